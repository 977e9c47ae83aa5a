// compression.zstd (version 1): Zstandard raw and RLE blocks on the device, compressed blocks
// answered with zstd_error::unsupported_compressed_block. Two IR programs with identical results
// (the seed's one block per invocation, and a cooperative one where a workgroup copies or fills a
// block), and the block-level host API. Whole .zst files: engine/zstd_decompress.hpp.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/compression/block.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// Both programs leave the buffers exactly as reference::zstd_decode_blocks (reference/zstd.hpp)
// does: same bytes in every block's output window, same status, whatever the input and the
// descriptors say. The descriptor convention (the 3-byte block header travels with the content,
// flags 0) and every error rule are written down in reference/zstd.hpp. Bindings:
//   0 input        Bytes ReadOnly   block headers + contents
//   1 descriptors  U32   ReadOnly   5 words per block (block_descriptor)
//   2 output       Bytes ReadWrite  every block's output window; nothing outside them is written
//   3 statuses     U32   ReadWrite  2 words per block (block_status)
//   4 params       U32   Uniform    [block count, input bytes, output bytes, slices per block]
// Ranges are checked against params' byte counts (not the buffers' word-rounded lengths). The
// fourth word only shapes the cooperative program's launch (see below); the reference ignores it.
namespace zstd_binding {
enum : std::uint32_t { input = 0, descriptors = 1, output = 2, statuses = 3, params = 4 };
} // namespace zstd_binding
inline constexpr std::uint32_t zstd_param_words = 4;

inline constexpr const char* zstd_op_id = "compression.zstd";
inline constexpr const char* zstd_fast_op_id = "compression.zstd.fast";
inline constexpr std::uint32_t zstd_op_version = 1;

// RFC 8878's absolute block limit: no valid raw or RLE block regenerates more.
inline constexpr std::uint32_t zstd_max_block_bytes = 128u * 1024u;

// The seed's design: one block per invocation. Invocations share nothing, so 64 of them per
// workgroup change no result (as for compression.lz4's reference program).
inline constexpr std::uint32_t zstd_reference_workgroup = 64;
// The cooperative program: a workgroup of `workgroup` invocations moves one slice of one block,
// `unroll` bytes per invocation per step (independent loads in flight), slices of `slice` bytes.
inline constexpr std::uint32_t zstd_fast_workgroup = 256;
inline constexpr std::uint32_t zstd_fast_unroll = 8;
inline constexpr std::uint32_t zstd_fast_slice = 16384;

enum class zstd_variant { reference, fast, automatic };

inline const char* zstd_variant_name(zstd_variant v) noexcept {
    switch (v) {
    case zstd_variant::reference: return "reference";
    case zstd_variant::fast: return "fast";
    case zstd_variant::automatic: return "automatic";
    }
    return "?";
}

// What `automatic` runs on a device (both give the same results): the cooperative program where
// a workgroup's invocations run side by side (GPUs), the seed's program on CPU devices, where a
// 256-invocation workgroup is a loop and one invocation per block copies fastest (PoCL, 8 MiB of
// raw/RLE blocks: 12.9 GB/s against 0.3; `bench_zstd --shapes`).
inline zstd_variant resolve(zstd_variant v, const runtime::device_info& device) noexcept {
    if (v != zstd_variant::automatic) return v;
    return device.is_cpu() && !device.is_gpu() ? zstd_variant::reference : zstd_variant::fast;
}

namespace detail {

namespace zstd_code {
inline constexpr std::uint32_t none = zstd_error::none, corrupt_block = zstd_error::corrupt_block,
                               output_overflow = zstd_error::output_overflow,
                               rle_payload_missing = zstd_error::rle_payload_missing,
                               unsupported = zstd_error::unsupported_compressed_block;
} // namespace zstd_code

struct zstd_buffers {
    dsl::input_buffer<dsl::bytes> input;
    dsl::input_buffer<dsl::u32> descriptors;
    dsl::output_buffer<dsl::bytes> output;
    dsl::output_buffer<dsl::u32> statuses;
    dsl::uniform_buffer<dsl::u32> params;
};

inline zstd_buffers declare_zstd_buffers(dsl::kernel& k) {
    return {k.input<dsl::bytes>("input", zstd_binding::input), k.input<dsl::u32>("descriptors", zstd_binding::descriptors),
            k.output<dsl::bytes>("output", zstd_binding::output), k.output<dsl::u32>("statuses", zstd_binding::statuses),
            k.uniform<dsl::u32>("params", zstd_binding::params)};
}

// The checks of reference::zstd_decode_blocks, in its order. `fail(code)` records a status of
// {code, 0} and ends the invocation. Afterwards the block is a valid raw (type 0) or RLE (type 1)
// block of `size` bytes that fits its clipped output window; `src` is its first content byte and
// `dst` its first output byte.
struct zstd_checked_block {
    dsl::variable<dsl::u32> src, dst, type, size;
};

template <class Block, class Fail>
zstd_checked_block check_zstd_block(dsl::kernel& k, const zstd_buffers& b, const Block& block, Fail&& fail) {
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
    k.if_(type == 3u || size > zstd_max_block_bytes, [&] { fail(codes::corrupt_block); });
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
    d::kernel k(entry_name(zstd_op_id), {zstd_reference_workgroup, 1, 1});
    const detail::zstd_buffers bufs = detail::declare_zstd_buffers(k);
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
        slice % (workgroup * unroll) != 0 || slice > zstd_max_block_bytes)
        throw resource_error("zstd_program_fast: workgroup (" + std::to_string(workgroup) + ") must be a power of two up to 1024, " +
                             "unroll (" + std::to_string(unroll) + ") 1..32, and the slice (" + std::to_string(slice) +
                             " bytes) a multiple of workgroup * unroll, at most 128 KiB");
    const std::uint32_t step = workgroup * unroll;
    d::kernel k(entry_name(zstd_fast_op_id), {workgroup, 1, 1});
    const detail::zstd_buffers bufs = detail::declare_zstd_buffers(k);
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
    const std::uint32_t max_parts = zstd_max_block_bytes / slice;
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

// ---- registry entries ------------------------------------------------------------------------

inline ir::op_signature zstd_signature() { return {{ir::data_type::bytes}, ir::data_type::bytes}; }

inline op_info zstd_info() {
    return {zstd_op_id, zstd_op_version,
            "Zstandard raw/RLE blocks, compressed blocks rejected with code 4; one block per invocation (the seed's "
            "design; reference variant)",
            zstd_signature(), ir::convention::v1(), [] { return zstd_program_reference(); }};
}
// Not a separate op: the same op's cooperative program (same bindings, bytes and statuses), listed
// so that `vyre emit` shows it and the golden-kernel test guards its lowering.
inline op_info zstd_fast_info() {
    return {zstd_fast_op_id, zstd_op_version,
            "compression.zstd with a workgroup of " + std::to_string(zstd_fast_workgroup) +
                " invocations per block slice (cooperative variant, same results)",
            zstd_signature(), ir::convention::v1(), [] { return zstd_program_fast(); }};
}

// ---- running the programs --------------------------------------------------------------------

// A built program and the shape of its launch.
struct zstd_kernel {
    runtime::compiled_program program;
    zstd_variant variant = zstd_variant::reference;
    std::uint32_t slice = zstd_max_block_bytes; // bytes of a block per workgroup (cooperative program)
};

inline zstd_kernel make_zstd_kernel(zstd_variant v, std::uint32_t workgroup = zstd_fast_workgroup,
                                    std::uint32_t unroll = zstd_fast_unroll, std::uint32_t slice = zstd_fast_slice) {
    if (v == zstd_variant::reference)
        return {runtime::compiled_program(zstd_program_reference()), zstd_variant::reference, zstd_max_block_bytes};
    return {runtime::compiled_program(zstd_program_fast(workgroup, unroll, slice)), zstd_variant::fast, slice};
}

// The process-wide kernels of the default configurations, built on first use (automatic: fast;
// resolve it for the device first).
inline const zstd_kernel& zstd_kernel_for(zstd_variant v) {
    if (v == zstd_variant::reference) {
        static const zstd_kernel reference = make_zstd_kernel(zstd_variant::reference);
        return reference;
    }
    static const zstd_kernel fast = make_zstd_kernel(zstd_variant::fast);
    return fast;
}

inline std::uint64_t zstd_padded_bytes(std::uint64_t bytes) { return (bytes + 3) / 4 * 4; }

// The largest block count whose descriptor words a u32 index reaches.
inline constexpr std::uint32_t zstd_max_blocks = std::numeric_limits<std::uint32_t>::max() / 5;

// Device buffers of one dispatch. Input and output hold their byte counts rounded up to whole
// words (zstd_padded_bytes). largest_output: no block of the dispatch regenerates more (the
// largest descriptor output_size will do); it only decides how many slices the cooperative
// program launches per block, never what it writes.
struct zstd_device_blocks {
    boost::compute::buffer input;
    std::uint64_t input_bytes = 0;
    boost::compute::buffer descriptors; // block_count * 5 words
    std::uint32_t block_count = 0;
    boost::compute::buffer output;
    std::uint64_t output_bytes = 0;
    boost::compute::buffer statuses; // block_count * 2 words
    std::uint32_t largest_output = zstd_max_block_bytes;
};

// Enqueues one launch and returns its event; nothing on the host waits. The kernel is safe
// whatever the descriptors say. `params` receives the launch's parameter buffer: keep it until
// the event completes.
inline boost::compute::event enqueue_zstd(runtime::context& ctx, const zstd_kernel& kernel, const zstd_device_blocks& b,
                                          boost::compute::buffer& params) {
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    if (b.input_bytes > u32_max || b.output_bytes > u32_max)
        throw resource_error("compression.zstd: one dispatch addresses at most 2^32-1 input and output bytes (split into batches)");
    if (b.block_count > zstd_max_blocks)
        throw resource_error("compression.zstd: " + std::to_string(b.block_count) + " blocks in one dispatch; at most " +
                             std::to_string(zstd_max_blocks));
    if (b.block_count == 0) return {};
    const std::uint32_t largest = std::clamp<std::uint32_t>(b.largest_output, 1, zstd_max_block_bytes);
    const std::uint32_t slices = kernel.variant == zstd_variant::reference ? 1 : (largest + kernel.slice - 1) / kernel.slice;
    const auto wg = kernel.program.program().workgroup_size[0];
    const std::uint64_t groups = kernel.variant == zstd_variant::reference ? runtime::groups_for(b.block_count, wg)
                                                                          : std::uint64_t{b.block_count} * slices;
    if (groups * wg > u32_max)
        throw resource_error("compression.zstd: " + std::to_string(b.block_count) + " blocks need more than 2^32 invocations; split the dispatch");
    const auto words = [](std::uint64_t bytes) { return static_cast<std::uint32_t>((bytes + 3) / 4); };
    const std::uint32_t p[zstd_param_words] = {b.block_count, static_cast<std::uint32_t>(b.input_bytes),
                                               static_cast<std::uint32_t>(b.output_bytes), slices};
    params = runtime::detail::cl_call("clCreateBuffer", [&] {
        return boost::compute::buffer(ctx.cl_context(), sizeof p, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, const_cast<std::uint32_t*>(p));
    });
    const runtime::buffer_arg args[] = {{b.input, words(b.input_bytes)},
                                        {b.descriptors, b.block_count * 5},
                                        {b.output, words(b.output_bytes)},
                                        {b.statuses, b.block_count * 2},
                                        {params, zstd_param_words}};
    return runtime::dispatch(ctx, kernel.program, {static_cast<std::uint32_t>(groups), 1, 1}, args);
}

// The whole dispatch from host memory, with the shape of reference::zstd_decode_blocks: `output`
// is uploaded as it is (so bytes no block writes keep their values), decoded into, and read back.
// Descriptors are not checked (the kernel is safe whatever they say); blocks whose output windows
// overlap race on the device, so give them disjoint windows where the bytes matter.
inline void zstd_decode_blocks(runtime::context& ctx, std::span<const std::uint8_t> input,
                               std::span<const block_descriptor> descriptors, std::span<std::uint8_t> output,
                               std::span<block_status> statuses, zstd_variant variant = zstd_variant::automatic) {
    if (statuses.size() < descriptors.size())
        throw resource_error("compression.zstd: " + std::to_string(descriptors.size()) + " descriptors but room for " +
                             std::to_string(statuses.size()) + " statuses");
    if (descriptors.size() > zstd_max_blocks)
        throw resource_error("compression.zstd: " + std::to_string(descriptors.size()) + " blocks in one call");
    if (descriptors.empty()) return;
    zstd_device_blocks b;
    b.input_bytes = input.size();
    b.input = runtime::allocate(ctx, zstd_padded_bytes(input.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, b.input, input.data(), input.size());
    b.descriptors = runtime::upload(ctx, descriptors, CL_MEM_READ_ONLY);
    b.block_count = static_cast<std::uint32_t>(descriptors.size());
    b.output_bytes = output.size();
    b.output = runtime::allocate(ctx, zstd_padded_bytes(output.size()));
    runtime::write(ctx, b.output, output.data(), output.size());
    b.statuses = runtime::allocate(ctx, descriptors.size() * sizeof(block_status));
    std::uint32_t largest = 0;
    for (const auto& d : descriptors) largest = std::max(largest, d.output_size);
    b.largest_output = largest;
    boost::compute::buffer params;
    enqueue_zstd(ctx, zstd_kernel_for(resolve(variant, ctx.device())), b, params);
    runtime::read(ctx, b.statuses, statuses.data(), descriptors.size() * sizeof(block_status));
    runtime::read(ctx, b.output, output.data(), output.size());
}

} // namespace vyre::ops::compression
