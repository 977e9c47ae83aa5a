// bytes.heads: the first bytes of many byte ranges of one device buffer, packed into slots of
// `head_words` words (zeros past a range's end), so that one small readback tells the host what
// each content is (format::detect reads the first 512 bytes) while the contents stay on the device.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/bytes/ranges.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::bytes {

inline constexpr const char* heads_op_id = "bytes.heads";

namespace heads_binding {
inline constexpr std::uint32_t data = 0, ranges = 1, heads = 2, params = 3;
}

inline constexpr std::uint32_t heads_workgroup = 128;

// The program: one invocation per word of output. Buffers: data (bytes); ranges (u32 pairs: byte
// offset in data, size); heads (head_words words per range: its first bytes, little-endian, zeros
// after its end); params ([0] ranges, [1] head_words).
inline ir::program heads_program(std::uint32_t workgroup = heads_workgroup) {
    namespace d = vyre::dsl;
    d::kernel k(entry_name(heads_op_id), {workgroup, 1, 1});
    const auto data = k.input<d::bytes>("data", heads_binding::data);
    const auto ranges = k.input<d::u32>("ranges", heads_binding::ranges);
    const auto heads = k.output<d::u32>("heads", heads_binding::heads);
    const auto params = k.uniform<d::u32>("params", heads_binding::params);
    const auto id = k.let("id", d::invocation_id());
    const auto range = k.let("range", id / params[1u]);
    k.if_(range < params[0u], [&] {
        const auto at = k.let("at", (id - range * params[1u]) * 4u);
        const auto base = k.let("base", ranges[range * 2u]);
        const auto size = k.let("size", ranges[range * 2u + 1u]);
        k.store(heads, id, range_word(k, data, base, at, size));
    });
    return k.program();
}

inline op_info heads_info() {
    return {heads_op_id, 1, "the first bytes of many byte ranges of one buffer, packed into fixed slots",
            {{ir::data_type::bytes}, ir::data_type::u32}, ir::convention::v1(), [] { return heads_program(); }};
}

inline const runtime::compiled_program& heads_kernel() {
    static const runtime::compiled_program p(heads_program());
    return p;
}

// The first `head_bytes` bytes (a multiple of 4) of each range of `data`, read back as
// ranges.size() slots of head_bytes bytes, zero after each range's end.
inline std::vector<std::uint8_t> heads_device(runtime::context& ctx, const boost::compute::buffer& data,
                                              std::span<const byte_range> ranges, std::uint32_t head_bytes) {
    if (head_bytes == 0 || head_bytes % 4 != 0) throw resource_error("bytes.heads: head_bytes " + std::to_string(head_bytes) + " is not a positive multiple of 4");
    const std::uint32_t head_words = head_bytes / 4;
    if (ranges.size() > 0xffffffffull / head_words - heads_workgroup)
        throw resource_error("bytes.heads: " + std::to_string(ranges.size()) + " ranges of " + std::to_string(head_bytes) + " bytes in one call");
    std::vector<std::uint8_t> out(ranges.size() * head_bytes);
    if (ranges.empty()) return out;
    const std::vector<std::uint32_t> range_list = range_words(heads_op_id, ranges, data.size() & ~std::size_t{3});
    const auto range_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(range_list), CL_MEM_READ_ONLY);
    auto head_buffer = runtime::allocate(ctx, out.size());
    const std::array<std::uint32_t, 2> p{static_cast<std::uint32_t>(ranges.size()), head_words};
    const auto params = runtime::make_parameter_buffer(ctx, p);
    std::vector<runtime::buffer_arg> args(4);
    args[heads_binding::data] = {data, static_cast<std::uint32_t>(data.size() / 4)};
    args[heads_binding::ranges] = {range_buffer, static_cast<std::uint32_t>(range_list.size())};
    args[heads_binding::heads] = {head_buffer, static_cast<std::uint32_t>(out.size() / 4)};
    args[heads_binding::params] = {params, 2};
    const std::uint64_t words = out.size() / 4;
    runtime::dispatch(ctx, heads_kernel(), {static_cast<std::uint32_t>((words + heads_workgroup - 1) / heads_workgroup), 1, 1}, args);
    // Slots are little-endian words: on a little-endian host their bytes are the range's bytes.
    if constexpr (std::endian::native == std::endian::little) {
        runtime::read_staged(ctx, head_buffer, out.data(), out.size()); // tens of MB for tens of thousands of ranges
    } else {
        std::vector<std::uint32_t> words_back(words);
        runtime::read(ctx, head_buffer, words_back.data(), out.size());
        for (std::size_t w = 0; w < words; ++w)
            for (int b = 0; b < 4; ++b) out[w * 4 + b] = static_cast<std::uint8_t>(words_back[w] >> (8 * b));
    }
    return out;
}

} // namespace vyre::ops::bytes
