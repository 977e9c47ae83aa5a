// Hello, vyre: write a GPU program with the typed DSL, look at its IR and its OpenCL C, run it on
// the default device, and check the result against the CPU reference interpreter.
//   ./hello_dsl            (VYRE_DEVICE=<part of a device name> picks the device)
#include <vyre/dsl.hpp>
#include <vyre/lower/opencl.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <cstring>
#include <iostream>

namespace dsl = vyre::dsl;

int main() {
    // out[i] = a[i] * 3 + b[i], for every i below the output's length.
    dsl::kernel k("scale_add", {64, 1, 1});
    auto a = k.input<dsl::u32>("a");
    auto b = k.input<dsl::u32>("b");
    auto out = k.output<dsl::u32>("out");
    auto i = k.let("i", dsl::invocation_id());
    k.if_(i < out.size(), [&] { k.store(out, i, a[i] * 3u + b[i]); });
    const vyre::ir::program program = k.program();

    std::cout << "--- IR ---\n" << program << "\n--- OpenCL C ---\n" << vyre::lower::to_opencl(program).source << "\n";

    // Buffers are raw little-endian bytes, indexed by binding: the same shape for the GPU and the CPU.
    const std::uint32_t n = 1000;
    std::vector<std::vector<std::uint8_t>> buffers(3, std::vector<std::uint8_t>(n * 4));
    for (std::uint32_t x = 0; x < n; ++x) {
        std::memcpy(&buffers[0][x * 4], &x, 4);
        const std::uint32_t y = 7 * x;
        std::memcpy(&buffers[1][x * 4], &y, 4);
    }
    auto on_cpu = buffers;

    vyre::runtime::context ctx; // VYRE_DEVICE, else the first GPU, else the first device
    vyre::runtime::compiled_program compiled(program);
    vyre::runtime::run(ctx, compiled, {vyre::runtime::groups_for(n, 64), 1, 1}, buffers);
    vyre::reference::run(program, {vyre::runtime::groups_for(n, 64), 1, 1}, on_cpu);

    std::uint32_t last = 0;
    std::memcpy(&last, &buffers[2][(n - 1) * 4], 4);
    std::cout << "ran on " << ctx.device().label() << ": out[" << n - 1 << "] = " << last << " (expected " << (n - 1) * 10
              << ")\n";
    const bool same = buffers == on_cpu;
    std::cout << (same ? "device and reference interpreter agree\n" : "device and reference interpreter DIFFER\n");
    return same && last == (n - 1) * 10 ? 0 : 1;
}
