// Adding a block codec, as doc/contributing.md describes it: a traits struct, its IR program and a
// CPU reference, plugged into the generic block-op runtime (ops/block_op.hpp), which gives it
// kernel lookup, parameter buffers, launches and decode-and-check for free. The codec is a toy
// run-length code: a block is pairs of bytes (count, value), decoded to `count` copies of `value`.
#include <vyre/compression/block.hpp>
#include <vyre/dsl.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/block_program.hpp>
#include <vyre/runtime/context.hpp>

#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

namespace dsl = vyre::dsl;
namespace ops = vyre::ops;
namespace vc = vyre::compression;

namespace example {

// 1. Status codes: permanent values, 0 for success, each with a name (plain u32 constants, which
// the DSL takes as they are).
namespace rle_error {
inline constexpr std::uint32_t none = 0, odd_input = 1, output_overflow = 2;
} // namespace rle_error

inline const char* rle_error_name(std::uint32_t code) noexcept {
    switch (code) {
    case rle_error::none: return "none";
    case rle_error::odd_input: return "odd_input";
    case rle_error::output_overflow: return "output_overflow";
    default: return "unknown_rle_error";
    }
}

// 2. The CPU reference: what the device must produce, byte for byte and status for status. A
// failing block keeps the bytes written before the failing pair and reports how many.
inline vc::block_status rle_decode_block(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    std::uint32_t op = 0;
    for (std::size_t ip = 0; ip < in.size(); ip += 2) {
        if (in.size() - ip < 2) return {rle_error::odd_input, op};
        const std::uint32_t count = in[ip];
        if (count > out.size() - op) return {rle_error::output_overflow, op};
        for (std::uint32_t i = 0; i < count; ++i) out[op + i] = in[ip + 1];
        op += count;
    }
    return {rle_error::none, op};
}

// 3. The IR program: one block per invocation, the five bindings every block op has. It checks its
// descriptor against the launch's byte counts, so no descriptor can make it read or write outside
// the data.
inline vyre::ir::program rle_program() {
    dsl::kernel k(ops::entry_name("example.rle"), {64, 1, 1});
    const ops::block_program_buffers b = ops::declare_block_buffers(k);
    const auto block = k.let("block_index", dsl::invocation_id());
    k.if_(block >= b.params[0u], [&] { k.return_(); });
    const auto finish = [&](const auto& code, const auto& size) {
        k.store(b.statuses, block * 2u, code);
        k.store(b.statuses, block * 2u + 1u, size);
        k.return_();
    };
    const auto in_base = k.let("in_base", b.descriptors[block * 5u]);
    const auto n = k.let("in_size", b.descriptors[block * 5u + 1u]);
    const auto out_base = k.let("out_base", b.descriptors[block * 5u + 2u]);
    const auto cap = k.let("capacity", b.descriptors[block * 5u + 3u]);
    k.if_(in_base > b.params[1u] || n > b.params[1u] - in_base, [&] { finish(rle_error::odd_input, 0u); });
    k.if_(out_base > b.params[2u] || cap > b.params[2u] - out_base, [&] { finish(rle_error::output_overflow, 0u); });
    const auto ip = k.let("ip", 0u);
    const auto op = k.let("op", 0u);
    k.while_(ip < n, [&] {
        k.if_(n - ip < 2u, [&] { finish(rle_error::odd_input, op); });
        const auto count = k.let("count", b.input[in_base + ip]);
        const auto value = k.let("value", b.input[in_base + ip + 1u]);
        k.if_(count > cap - op, [&] { finish(rle_error::output_overflow, op); });
        k.for_("i", 0u, count, [&](auto i) { k.store(b.output, out_base + op + i, value); });
        op = op + count;
        ip = ip + 2u;
    });
    finish(rle_error::none, op);
    return k.program();
}

// 4. The traits struct: everything the generic runtime needs to know about the op.
struct rle_op {
    static constexpr const char* id = "example.rle";
    static constexpr std::uint32_t version = 1;
    static const char* status_name(std::uint32_t code) noexcept { return rle_error_name(code); }
    // One program serves every device; a codec with a faster variant picks it here per device.
    static ops::block_variant automatic(const vyre::runtime::device_info&) noexcept { return ops::block_variant::reference; }
    static ops::block_kernel kernel(ops::block_variant) {
        return {id, vyre::runtime::compiled_program(rle_program()), ops::block_variant::reference, 64};
    }
    static std::vector<ops::op_info> infos() {
        return {{id, version, "toy run-length decoding, one block per invocation", ops::block_op_signature(),
                 vyre::ir::convention::v1(), [] { return rle_program(); }}};
    }
};
static_assert(ops::block_op<rle_op>, "rle_op provides everything the block-op runtime needs");

} // namespace example

int main() {
    // Three blocks: a good one, one with an odd byte at the end, one that overflows its room.
    const std::vector<std::uint8_t> input = {3, 'a', 2, 'b', 0, 'z', 4, 'c', /**/ 2, 'x', 7, /**/ 9, 'y'};
    const std::vector<vc::block_descriptor> blocks = {{0, 8, 0, 16, 0}, {8, 3, 16, 8, 0}, {11, 2, 24, 4, 0}};
    const std::uint64_t output_bytes = 28;

    // The CPU reference over the same descriptors.
    std::vector<std::uint8_t> want(output_bytes, 0);
    std::vector<vc::block_status> want_status;
    for (const auto& d : blocks)
        want_status.push_back(example::rle_decode_block(std::span(input).subspan(d.input_offset, d.input_size),
                                                        std::span(want).subspan(d.output_offset, d.output_size)));

    // The device, through the generic runtime: upload, check descriptors, launch, read statuses.
    vyre::runtime::context ctx;
    const ops::block_result r = ops::decode_blocks<example::rle_op>(ctx, input, blocks, output_bytes);
    const std::vector<std::uint8_t> got = ops::read_output(ctx, r);

    bool same = got == want && r.statuses == want_status;
    for (std::size_t i = 0; i < blocks.size(); ++i)
        std::cout << "block " << i << ": " << example::rle_op::status_name(r.statuses[i].code) << ", " << r.statuses[i].output_size
                  << " bytes (reference: " << example::rle_op::status_name(want_status[i].code) << ", " << want_status[i].output_size
                  << ")\n";
    std::cout << "decoded: " << std::string(got.begin(), got.begin() + r.statuses[0].output_size) << "\n";
    std::cout << (same ? "device equals the CPU reference on " : "MISMATCH on ") << ctx.device().label() << "\n";
    return same ? 0 : 1;
}
