// bytes.gather: many byte ranges of one device buffer packed into one output, so that the host reads
// them back with one command instead of one per range (on an NVIDIA queue each command costs tens
// of microseconds, and `vyre scan --yara` reads back thousands of candidate files).
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/bytes/ranges.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/util/host_bytes.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::bytes {

inline constexpr const char* gather_op_id = "bytes.gather";

namespace gather_binding {
inline constexpr std::uint32_t data = 0, ranges = 1, packed = 2, params = 3;
}

inline constexpr std::uint32_t gather_workgroup = 128;

// The program: one workgroup per range, its invocations taking the range's words in turn (most
// ranges are small files, so a workgroup each keeps the work of finding one's range to nothing).
// Buffers: data (bytes); ranges (u32 triples: byte offset in data, size, first word in packed);
// packed (u32: each range's bytes little-endian from its first word, zeros after its end up to the
// word's end); params ([0] ranges).
inline ir::program gather_program(std::uint32_t workgroup = gather_workgroup) {
    namespace d = vyre::dsl;
    d::kernel k(entry_name(gather_op_id), {workgroup, 1, 1});
    const auto data = k.input<d::bytes>("data", gather_binding::data);
    const auto ranges = k.input<d::u32>("ranges", gather_binding::ranges);
    const auto packed = k.output<d::u32>("packed", gather_binding::packed);
    const auto params = k.uniform<d::u32>("params", gather_binding::params);
    const auto range = k.let("range", d::workgroup_id());
    k.if_(range < params[0u], [&] {
        const auto base = k.let("base", ranges[range * 3u]);
        const auto size = k.let("size", ranges[range * 3u + 1u]);
        const auto first = k.let("first", ranges[range * 3u + 2u]);
        const auto w = k.let("w", d::local_id());
        k.while_(w * 4u < size, [&] {
            const auto at = k.let("at", w * 4u);
            k.store(packed, first + w, range_word(k, data, base, at, size));
            w = w + workgroup;
        });
    });
    return k.program();
}

inline op_info gather_info() {
    return {gather_op_id, 1, "many byte ranges of one buffer packed into one output, each from a whole word",
            {{ir::data_type::bytes}, ir::data_type::u32}, ir::convention::v1(), [] { return gather_program(); }};
}

inline const runtime::compiled_program& gather_kernel() {
    static const runtime::compiled_program p(gather_program());
    return p;
}

// What gather_device read back: range r's bytes are bytes[starts[r], + its size).
struct gathered {
    util::host_bytes bytes; // not zero-filled: the read writes every byte
    std::vector<std::uint64_t> starts;
    std::span<const std::uint8_t> range(std::size_t r, std::uint64_t size) const {
        return {bytes.data() + starts[r], static_cast<std::size_t>(size)};
    }
};

// The ranges of `data`, packed on the device (each from a 4-byte boundary) and read back with one
// read: one upload of the ranges, one dispatch, one read, however many ranges.
inline gathered gather_device(runtime::context& ctx, const boost::compute::buffer& data, std::span<const byte_range> ranges) {
    gathered out;
    out.starts.reserve(ranges.size());
    std::uint64_t words = 0;
    for (const byte_range& r : ranges) {
        out.starts.push_back(words * 4);
        words += (r.size + 3) / 4;
    }
    // Word and invocation indices stay below 2^32 (a range's last step reads up to a workgroup of
    // words past its end before its loop test stops it).
    if (words > (0xffffffffull - 4 * gather_workgroup) / 4 || ranges.size() > 0xffffffffull / gather_workgroup)
        throw resource_error("bytes.gather: " + std::to_string(ranges.size()) + " ranges of " + std::to_string(words * 4) +
                             " bytes in all, above one call's 4 GiB");
    out.bytes.resize(static_cast<std::size_t>(words * 4));
    if (words == 0) return out;
    const std::vector<std::uint32_t> pairs = range_words(gather_op_id, ranges, data.size() & ~std::size_t{3});
    std::vector<std::uint32_t> triples;
    triples.reserve(ranges.size() * 3);
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        triples.push_back(pairs[r * 2]);
        triples.push_back(pairs[r * 2 + 1]);
        triples.push_back(static_cast<std::uint32_t>(out.starts[r] / 4));
    }
    const auto range_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(triples), CL_MEM_READ_ONLY);
    auto packed = runtime::allocate(ctx, out.bytes.size());
    const std::array<std::uint32_t, 1> p{static_cast<std::uint32_t>(ranges.size())};
    const auto params = runtime::make_parameter_buffer(ctx, p);
    std::vector<runtime::buffer_arg> args(4);
    args[gather_binding::data] = {data, static_cast<std::uint32_t>(data.size() / 4)};
    args[gather_binding::ranges] = {range_buffer, static_cast<std::uint32_t>(triples.size())};
    args[gather_binding::packed] = {packed, static_cast<std::uint32_t>(words)};
    args[gather_binding::params] = {params, 1};
    runtime::dispatch(ctx, gather_kernel(), {static_cast<std::uint32_t>(ranges.size()), 1, 1}, args);
    // Little-endian words: on a little-endian host their bytes are the ranges' bytes.
    if constexpr (std::endian::native == std::endian::little) {
        runtime::read_staged(ctx, packed, out.bytes.data(), out.bytes.size());
    } else {
        std::vector<std::uint32_t> back(static_cast<std::size_t>(words));
        runtime::read(ctx, packed, back.data(), out.bytes.size());
        for (std::size_t w = 0; w < back.size(); ++w)
            for (int b = 0; b < 4; ++b) out.bytes[w * 4 + b] = static_cast<std::uint8_t>(back[w] >> (8 * b));
    }
    return out;
}

} // namespace vyre::ops::bytes
