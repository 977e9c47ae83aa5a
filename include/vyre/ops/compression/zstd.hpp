// compression.zstd (version 1): Zstandard raw and RLE blocks on the device, compressed blocks
// answered with zstd_error::unsupported_compressed_block. The op's traits (zstd_op, plugged into
// ops/block_op.hpp's runtime) and its two IR programs with identical results: the seed's one block
// per invocation, and a cooperative one where a workgroup copies or fills a block. Whole .zst
// files: engine/zstd_decompress.hpp.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/block_program.hpp>
#include <vyre/ops/op.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// Both programs leave the buffers exactly as reference::zstd_decode_blocks (reference/zstd.hpp)
// does: same bytes in every block's output window, same status, whatever the input and the
// descriptors say. The descriptor convention (the 3-byte block header travels with the content,
// flags 0) and every error rule are written down in reference/zstd.hpp. They bind the five
// buffers of every block op (ops/block_op.hpp); ranges are checked against params' byte counts
// (not the buffers' word-rounded lengths). The fourth parameter word (slices per block) only
// shapes the cooperative program's launch (see below); the reference ignores it.

// The seed's design: one block per invocation. Invocations share nothing, so 64 of them per
// workgroup change no result (as for compression.lz4's reference program).
inline constexpr std::uint32_t zstd_reference_workgroup = 64;
// The cooperative program: a workgroup of `workgroup` invocations moves one slice of one block,
// `unroll` bytes per invocation per step (independent loads in flight), slices of `slice` bytes.
inline constexpr std::uint32_t zstd_fast_workgroup = 256;
inline constexpr std::uint32_t zstd_fast_unroll = 8;
inline constexpr std::uint32_t zstd_fast_slice = 16384;

namespace detail {

namespace zstd_code {
namespace e = vyre::compression::zstd_error;
inline constexpr std::uint32_t none = e::none, corrupt_block = e::corrupt_block, output_overflow = e::output_overflow,
                               rle_payload_missing = e::rle_payload_missing, unsupported = e::unsupported_compressed_block;
} // namespace zstd_code

// The checks of reference::zstd_decode_blocks, in its order. `fail(code)` records a status of
// {code, 0} and ends the invocation. Afterwards the block is a valid raw (type 0) or RLE (type 1)
// block of `size` bytes that fits its clipped output window; `src` is its first content byte and
// `dst` its first output byte.
struct zstd_checked_block {
    dsl::variable<dsl::u32> src, dst, type, size;
};

template <class Block, class Fail>
zstd_checked_block check_zstd_block(dsl::kernel& k, const block_program_buffers& b, const Block& block, Fail&& fail) {
    namespace d = vyre::dsl;
    namespace codes = zstd_code;
    const auto& in = b.input;
    const auto& desc = b.descriptors;
    const auto in_base = k.let("in_base", desc[block * 5u]);
    const auto n = k.let("in_size", desc[block * 5u + 1u]);
    const auto out_base = k.let("out_base", desc[block * 5u + 2u]);
    const auto cap = k.let("capacity", desc[block * 5u + 3u]);
    const auto in_bytes = k.let("input_bytes", b.params[1u]);
    const auto out_bytes = k.let("output_bytes", b.params[2u]);
    k.if_(in_base > in_bytes || n > in_bytes - in_base, [&] { fail(codes::corrupt_block); });
    // The window is the descriptor's range clipped to the output: a range past the buffer can
    // only overflow, never write out of bounds.
    const auto dst = k.let("dst", d::min(out_base, out_bytes));
    const auto room = k.let("room", d::min(cap, out_bytes - dst));
    k.if_(n < 3u, [&] { fail(codes::corrupt_block); });
    const auto header = k.let("header", in[in_base] | (in[in_base + 1u] << 8u) | (in[in_base + 2u] << 16u));
    const auto type = k.let("block_type", (header >> 1u) & 3u);
    const auto size = k.let("block_size", header >> 3u);
    const auto content = k.let("content_size", n - 3u);
    k.if_(type == 3u || size > vyre::compression::zstd_max_block_bytes, [&] { fail(codes::corrupt_block); });
    k.if_(type == 1u, [&] {
        k.if_(content == 0u, [&] { fail(codes::rle_payload_missing); });
        k.if_(content != 1u, [&] { fail(codes::corrupt_block); });
    }).else_([&] {
        k.if_(content != size, [&] { fail(codes::corrupt_block); });
    });
    k.if_(type == 2u, [&] { fail(codes::unsupported); });
    k.if_(size > room, [&] { fail(codes::output_overflow); });
    const auto src = k.let("src", in_base + 3u);
    return {src, dst, type, size};
}

} // namespace detail

// ---- the reference program: the seed's design, transcribed from reference::zstd_decode_block

inline ir::program zstd_program_reference() {
    namespace d = vyre::dsl;
    d::kernel k(entry_name("compression.zstd"), {zstd_reference_workgroup, 1, 1});
    const block_program_buffers bufs = declare_block_buffers(k);
    const auto& in = bufs.input;
    const auto& out = bufs.output;
    const auto& st = bufs.statuses;

    const auto block = k.let("block_index", d::invocation_id());
    k.if_(block >= bufs.params[0u], [&] { k.return_(); });
    const auto finish = [&](const auto& code, const auto& size) {
        k.store(st, block * 2u, code);
        k.store(st, block * 2u + 1u, size);
        k.return_();
    };
    const auto b = detail::check_zstd_block(k, bufs, block, [&](std::uint32_t code) { finish(code, 0u); });
    k.if_(b.type == 0u, [&] {
        k.for_("raw_i", 0u, b.size, [&](auto i) { k.store(out, b.dst + i, in[b.src + i]); });
    }).else_([&] {
        const auto value = k.let("rle_value", in[b.src]);
        k.for_("rle_i", 0u, b.size, [&](auto i) { k.store(out, b.dst + i, value); });
    });
    finish(detail::zstd_code::none, b.size);
    return k.program();
}

// ---- the cooperative program -----------------------------------------------------------------
//
// A raw or RLE block is up to 128 KiB of plain copying: one invocation per block leaves a GPU
// latency-bound on a handful of bytes in flight. Here workgroup w takes slice (w mod S) of block
// (w / S), where S = params[3] (0 counts as 1): bytes [slice * `slice`, + `slice`) of the block,
// the last slice running to the block's end, so any S >= 1 gives the same bytes (S only spreads
// large blocks over more workgroups). Every invocation of the workgroup runs the same checks on
// the same block (uniform branches, so early exits need no barrier), then invocation i moves
// bytes i, i + W, i + 2W, ...: each step issues `unroll` independent loads before its stores,
// and consecutive invocations touch consecutive bytes (coalesced). Invocation 0 of slice 0 writes
// the status. Bytes stay byte-wide: the IR's Bytes view has no wider access.
inline ir::program zstd_program_fast(std::uint32_t workgroup = zstd_fast_workgroup, std::uint32_t unroll = zstd_fast_unroll,
                                     std::uint32_t slice = zstd_fast_slice) {
    namespace d = vyre::dsl;
    if (!std::has_single_bit(workgroup) || workgroup > 1024 || unroll == 0 || unroll > 32 || slice == 0 ||
        slice % (workgroup * unroll) != 0 || slice > vyre::compression::zstd_max_block_bytes)
        throw resource_error("zstd_program_fast: workgroup (" + std::to_string(workgroup) + ") must be a power of two up to 1024, " +
                             "unroll (" + std::to_string(unroll) + ") 1..32, and the slice (" + std::to_string(slice) +
                             " bytes) a multiple of workgroup * unroll, at most 128 KiB");
    const std::uint32_t step = workgroup * unroll;
    d::kernel k(entry_name("compression.zstd.fast"), {workgroup, 1, 1});
    const block_program_buffers bufs = declare_block_buffers(k);
    const auto& in = bufs.input;
    const auto& out = bufs.output;
    const auto& st = bufs.statuses;

    const auto lid = k.let("lid", d::local_id());
    const auto slices = k.let("slices", d::max(bufs.params[3u], 1u));
    const auto group = k.let("group", d::workgroup_id());
    const auto block = k.let("block_index", group / slices);
    const auto part = k.let("slice", group % slices);
    k.if_(block >= bufs.params[0u], [&] { k.return_(); });
    const auto writer = k.let("writes_status", lid == 0u && part == 0u);
    const auto finish = [&](const auto& code, const auto& size) {
        k.if_(writer, [&] {
            k.store(st, block * 2u, code);
            k.store(st, block * 2u + 1u, size);
        });
        k.return_();
    };
    const auto b = detail::check_zstd_block(k, bufs, block, [&](std::uint32_t code) { finish(code, 0u); });

    // This workgroup's bytes [lo, hi) of the block (min() keeps part * slice from wrapping).
    const std::uint32_t max_parts = vyre::compression::zstd_max_block_bytes / slice;
    const auto lo = k.let("lo", d::min(part, max_parts) * slice);
    const auto hi = k.let("hi", d::select(part + 1u == slices, b.size, d::min(b.size, lo + slice)));
    const auto at = k.let("at", lo); // the step's first byte: the same in every invocation
    const auto copy_steps = [&](const auto& value_at) {
        k.while_(at < hi && hi - at >= step, [&] {
            std::vector<dsl::variable<dsl::u32>> v;
            for (std::uint32_t u = 0; u < unroll; ++u)
                v.push_back(k.let(std::string("v").append(std::to_string(u)), value_at(at + (u * workgroup) + lid)));
            for (std::uint32_t u = 0; u < unroll; ++u) k.store(out, b.dst + at + (u * workgroup) + lid, v[u]);
            at = at + step;
        });
        const auto i = k.let("tail_i", at + lid);
        k.while_(i < hi, [&] {
            k.store(out, b.dst + i, value_at(i));
            i = i + workgroup;
        });
    };
    k.if_(b.type == 0u, [&] {
        copy_steps([&](const auto& i) { return in[b.src + i]; });
    }).else_([&] {
        const auto value = k.let("rle_value", in[b.src]);
        copy_steps([&](const auto&) { return value; });
    });
    finish(detail::zstd_code::none, b.size);
    return k.program();
}

// ---- the op ------------------------------------------------------------------------------------

struct zstd_op {
    static constexpr const char* id = "compression.zstd";
    static constexpr const char* fast_id = "compression.zstd.fast";
    static constexpr std::uint32_t version = 1;

    static const char* status_name(std::uint32_t code) noexcept { return vyre::compression::zstd_error_name(code); }

    // Measured with `bench_zstd --shapes` on PoCL, where a 256-invocation workgroup is a loop and
    // one invocation per block copies fastest (doc/ops/compression.zstd.md).
    static block_variant automatic(const runtime::device_info& device) noexcept { return fast_on_gpus(device); }

    // A resolved variant's program, built; workgroup, unroll and slice shape the cooperative one.
    static block_kernel kernel(block_variant v, std::uint32_t workgroup = zstd_fast_workgroup, std::uint32_t unroll = zstd_fast_unroll,
                               std::uint32_t slice = zstd_fast_slice) {
        if (v == block_variant::reference)
            return {id, runtime::compiled_program(zstd_program_reference()), block_variant::reference, zstd_reference_workgroup};
        const std::uint32_t max_bytes = vyre::compression::zstd_max_block_bytes;
        return {id, runtime::compiled_program(zstd_program_fast(workgroup, unroll, slice)), block_variant::fast, 1, slice,
                max_bytes / slice + (max_bytes % slice != 0)};
    }

    static std::vector<op_info> infos() {
        return block_op_infos(id, fast_id, version,
                              "Zstandard raw/RLE blocks, compressed blocks rejected with code 4; one block per invocation (the "
                              "seed's design; reference variant)",
                              "compression.zstd with a workgroup of " + std::to_string(zstd_fast_workgroup) +
                                  " invocations per block slice (cooperative variant, same results)",
                              [] { return zstd_program_reference(); }, [] { return zstd_program_fast(); });
    }
};
static_assert(block_op<zstd_op>);

} // namespace vyre::ops::compression
