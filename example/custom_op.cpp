// Writing your own op: a permanent id, a scalar function the IR can inline into any program, and
// a program that runs it element-wise. This one hashes each 32-bit word with FNV-1a over its four
// bytes, written once as an ir::function and reused by the kernel through a call.
#include <vyre/dsl.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <cstring>
#include <iostream>

namespace dsl = vyre::dsl;

namespace example {

// FNV-1a of the four little-endian bytes of `w`, as a C++ reference for the check below.
std::uint32_t fnv1a(std::uint32_t w) {
    std::uint32_t h = 2166136261u;
    for (int i = 0; i < 4; ++i) h = (h ^ ((w >> (8 * i)) & 0xffu)) * 16777619u;
    return h;
}

struct word_hash_op {
    static constexpr const char* id = "example.hash.fnv1a_word";

    static vyre::ir::program program() {
        dsl::kernel k(vyre::ops::entry_name(id), {128, 1, 1});
        // The scalar meaning, as a pure function: other programs can call it too.
        auto hash = k.function<dsl::u32(dsl::u32)>("fnv1a_word", {"w"}, [](auto w) {
            auto step = [&](auto h, unsigned lane) { return (h ^ ((w >> (8u * lane)) & 0xffu)) * 16777619u; };
            return step(step(step(step(dsl::lit<dsl::u32>(2166136261u), 0), 1), 2), 3);
        });
        auto in = k.input<dsl::u32>("words");
        auto out = k.output<dsl::u32>("hashes");
        auto i = k.let("i", dsl::invocation_id());
        k.if_(i < out.size(), [&] { k.store(out, i, hash(in[i])); });
        return k.program();
    }
};

} // namespace example

int main() {
    const auto program = example::word_hash_op::program();
    vyre::runtime::context ctx;
    vyre::runtime::compiled_program compiled(program);

    const std::uint32_t n = 4096;
    std::vector<std::vector<std::uint8_t>> buffers(2, std::vector<std::uint8_t>(n * 4));
    for (std::uint32_t x = 0; x < n; ++x) {
        const std::uint32_t w = x * 2654435761u;
        std::memcpy(&buffers[0][x * 4], &w, 4);
    }
    vyre::runtime::run(ctx, compiled, {vyre::runtime::groups_for(n, 128), 1, 1}, buffers);

    int wrong = 0;
    for (std::uint32_t x = 0; x < n; ++x) {
        std::uint32_t got = 0;
        std::memcpy(&got, &buffers[1][x * 4], 4);
        if (got != example::fnv1a(x * 2654435761u)) ++wrong;
    }
    std::cout << example::word_hash_op::id << " on " << ctx.device().label() << ": " << n - wrong << " of " << n
              << " hashes match the C++ reference\n";
    return wrong == 0 ? 0 : 1;
}
