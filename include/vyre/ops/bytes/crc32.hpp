// bytes.crc32: the CRC-32 of many byte ranges of one device buffer at once (the CRC of gzip, ZIP
// and zlib's crc32(): polynomial 0x04C11DB7 reflected, register starting at and finished with
// 0xFFFFFFFF), equal to format::crc32_of on the same bytes. It checks content the decoders leave in
// device memory without reading that content back.
//
// How. A CRC is linear over GF(2), so a range can be cut into chunks that are checksummed apart
// and joined: with raw(M) the CRC of M from a zero register and no final inversion,
//     raw(A B) = raw(A) * x^(8|B|)  xor  raw(B)          (product modulo the polynomial)
//     crc(M)   = raw(M) xor (0xFFFFFFFF * x^(8|M|)) xor 0xFFFFFFFF.
// Each invocation takes one chunk of chunk_bytes bytes of one range, runs the byte table over it
// (the table in workgroup memory), multiplies by x^(8 * bytes after the chunk), and XORs the result
// into the range's CRC with an atomic; the invocation of a range's first chunk adds the second term.
// Powers x^(8 * 2^b) come from the host (32 words), so x^(8n) takes one product per set bit of n.
// No chunk waits for another, and a range of any size spreads over as many invocations as it has
// chunks.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/bytes/ranges.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::bytes {

inline constexpr const char* crc32_op_id = "bytes.crc32";

namespace crc32_binding {
inline constexpr std::uint32_t data = 0, chunks = 1, ranges = 2, table = 3, powers = 4, crcs = 5, params = 6;
}

inline constexpr std::uint32_t crc32_workgroup = 64;
// Bytes one invocation checksums: enough that the per-chunk products cost little beside them.
inline constexpr std::uint32_t crc32_chunk_bytes = 4096;
inline constexpr std::uint32_t crc32_polynomial = 0xEDB88320u; // reflected

// a * b modulo the polynomial, in the reflected bit order (x^0 is bit 31).
constexpr std::uint32_t crc32_multiply(std::uint32_t a, std::uint32_t b) noexcept {
    std::uint32_t p = 0;
    for (int i = 0; i < 32; ++i) {
        if ((a >> (31 - i)) & 1u) p ^= b;
        b = (b & 1u) ? (b >> 1) ^ crc32_polynomial : b >> 1;
    }
    return p;
}

// The byte table (the CRC of each byte value from a zero register) and x^(8 * 2^b) for b < 32.
struct crc32_tables {
    std::array<std::uint32_t, 256> table{};
    std::array<std::uint32_t, 32> powers{};
};

inline const crc32_tables& crc32_host_tables() {
    static const crc32_tables t = [] {
        crc32_tables t;
        for (std::uint32_t v = 0; v < 256; ++v) {
            std::uint32_t c = v;
            for (int i = 0; i < 8; ++i) c = (c & 1u) ? (c >> 1) ^ crc32_polynomial : c >> 1;
            t.table[v] = c;
        }
        std::uint32_t p = 0x00800000u; // x^8
        for (auto& w : t.powers) {
            w = p;
            p = crc32_multiply(p, p);
        }
        return t;
    }();
    return t;
}

// The program. Buffers: data (bytes); chunks (u32 pairs: range, first byte of the chunk in the
// range); ranges (u32 pairs: byte offset in data, size); table (256 words); powers (32 words); crcs
// (one word per range, zero before the launch); params ([0] chunks, [1] chunk bytes).
inline ir::program crc32_program(std::uint32_t workgroup = crc32_workgroup) {
    namespace d = vyre::dsl;
    d::kernel k(entry_name(crc32_op_id), {workgroup, 1, 1});
    const auto data = k.input<d::bytes>("data", crc32_binding::data);
    const auto chunks = k.input<d::u32>("chunks", crc32_binding::chunks);
    const auto ranges = k.input<d::u32>("ranges", crc32_binding::ranges);
    const auto table = k.input<d::u32>("table", crc32_binding::table);
    const auto powers = k.input<d::u32>("powers", crc32_binding::powers);
    const auto crcs = k.output<d::u32>("crcs", crc32_binding::crcs);
    const auto params = k.uniform<d::u32>("params", crc32_binding::params);
    const auto local_table = k.workgroup<d::u32>("local_table", 256);

    const auto w = k.let("w", d::local_id());
    k.while_(w < 256u, [&] {
        k.store(local_table, w, table[w]);
        w = w + workgroup;
    });
    k.barrier();

    // value * x^(8n): one product per set bit of n, each 32 steps of shift and conditional XOR.
    const auto shift_by_bytes = [&](const std::string& tag, const auto& value, const auto& bytes) {
        const auto result = k.let("result_" + tag, value);
        const auto n = k.let("n_" + tag, bytes);
        const auto bit = k.let("bit_" + tag, 0u);
        k.while_(n != 0u, [&] {
            k.if_((n & 1u) != 0u, [&] {
                const auto a = k.let("a_" + tag, powers[bit]);
                const auto b = k.let("b_" + tag, result);
                const auto p = k.let("p_" + tag, 0u);
                k.for_("i_" + tag, 0u, 32u, [&](const auto& i) {
                    p = p ^ d::select(((a >> (31u - i)) & 1u) != 0u, b, 0u);
                    b = d::select((b & 1u) != 0u, (b >> 1u) ^ crc32_polynomial, b >> 1u);
                });
                result = p;
            });
            n = n >> 1u;
            bit = bit + 1u;
        });
        return result;
    };

    const auto c = k.let("c", d::invocation_id());
    k.if_(c < params[0u], [&] {
        const auto range = k.let("range", chunks[c * 2u]);
        const auto first = k.let("first", chunks[c * 2u + 1u]);
        const auto base = k.let("base", ranges[range * 2u]);
        const auto size = k.let("size", ranges[range * 2u + 1u]);
        const auto end = k.let("end", first + d::min(params[1u], size - first));
        const auto reg = k.let("reg", 0u);
        const auto i = k.let("i", first);
        k.while_(i < end, [&] {
            reg = local_table[(reg ^ data[base + i]) & 0xffu] ^ (reg >> 8u);
            i = i + 1u;
        });
        const auto part = k.let("part", shift_by_bytes("after", reg, size - end));
        k.if_(first == 0u, [&] { part = part ^ shift_by_bytes("init", 0xffffffffu, size) ^ 0xffffffffu; });
        k.let("old", d::atomic_xor(crcs, range, part));
    });
    return k.program();
}

inline op_info crc32_info() {
    return {crc32_op_id, 1,
            "CRC-32 (gzip, ZIP, zlib) of many byte ranges of one buffer: chunks checksummed apart and joined by "
            "polynomial products",
            {{ir::data_type::bytes}, ir::data_type::u32}, ir::convention::v1(), [] { return crc32_program(); }};
}

inline const runtime::compiled_program& crc32_kernel() {
    static const runtime::compiled_program p(crc32_program());
    return p;
}

// The CRC-32 of each range of `data` (each inside the buffer's whole words and its first 4 GiB),
// computed on the device through ctx's queue; only the CRCs come back. With a profiling queue,
// *kernel_seconds (when given) receives the dispatch's time on the device.
inline std::vector<std::uint32_t> crc32_device(runtime::context& ctx, const boost::compute::buffer& data,
                                               std::span<const byte_range> ranges, std::uint32_t chunk_bytes = crc32_chunk_bytes,
                                               double* kernel_seconds = nullptr) {
    if (chunk_bytes == 0) throw resource_error("bytes.crc32: chunk_bytes must be at least 1");
    const std::vector<std::uint32_t> range_list = range_words(crc32_op_id, ranges, data.size() & ~std::size_t{3});
    std::vector<std::uint32_t> chunk_list;
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        std::uint64_t at = 0;
        do { // an empty range still has its chunk: it finishes the CRC
            chunk_list.push_back(static_cast<std::uint32_t>(r));
            chunk_list.push_back(static_cast<std::uint32_t>(at));
            at += chunk_bytes;
        } while (at < ranges[r].size);
    }
    std::vector<std::uint32_t> crcs(ranges.size(), 0);
    if (ranges.empty()) return crcs;
    const std::uint64_t chunk_count = chunk_list.size() / 2;
    if (chunk_count > 0xffffffffull - crc32_workgroup) throw resource_error("bytes.crc32: too many chunks in one call");
    const crc32_tables& t = crc32_host_tables();
    const auto up = [&](std::span<const std::uint32_t> v) { return runtime::upload(ctx, v, CL_MEM_READ_ONLY); };
    const auto chunk_buffer = up(chunk_list);
    const auto range_buffer = up(range_list);
    const auto table_buffer = up(t.table);
    const auto power_buffer = up(t.powers);
    auto crc_buffer = runtime::allocate(ctx, crcs.size() * 4);
    runtime::fill(ctx, crc_buffer, 0, crcs.size() * 4);
    const std::array<std::uint32_t, 2> p{static_cast<std::uint32_t>(chunk_count), chunk_bytes};
    const auto params = runtime::make_parameter_buffer(ctx, p);
    const auto words = [](const boost::compute::buffer& b) { return static_cast<std::uint32_t>(b.size() / 4); };
    std::vector<runtime::buffer_arg> args(7);
    args[crc32_binding::data] = {data, words(data)};
    args[crc32_binding::chunks] = {chunk_buffer, words(chunk_buffer)};
    args[crc32_binding::ranges] = {range_buffer, words(range_buffer)};
    args[crc32_binding::table] = {table_buffer, 256};
    args[crc32_binding::powers] = {power_buffer, 32};
    args[crc32_binding::crcs] = {crc_buffer, static_cast<std::uint32_t>(crcs.size())};
    args[crc32_binding::params] = {params, 2};
    const auto groups = static_cast<std::uint32_t>((chunk_count + crc32_workgroup - 1) / crc32_workgroup);
    const auto ran = runtime::dispatch(ctx, crc32_kernel(), {groups, 1, 1}, args);
    runtime::read(ctx, crc_buffer, crcs.data(), crcs.size() * 4);
    if (kernel_seconds && ctx.profiling() && ran.get()) *kernel_seconds = runtime::event_seconds(ctx, ran);
    return crcs;
}

} // namespace vyre::ops::bytes
