// The zstd pipeline's plan: which path each frame takes, which blocks go to the device, and how their
// bytes are packed into batches.
// Internal to engine/zstd_decompress.hpp, whose opening comment describes the whole pipeline.
#pragma once

#include <vyre/error.hpp>
#include <vyre/compression/batch.hpp>
#include <vyre/compression/block.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/engine/zstd_options.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace vyre::engine::detail {

namespace cz = ops::compression;
namespace fmt = format;
namespace bcm = boost::compute;

enum class zstd_target { host, device };

inline bool zstd_plain(const fmt::zstd_block& b) { return b.type != fmt::zstd_block_type::compressed; }

// Two dispatched blocks whose file ranges are at most this far apart upload as one copy, gap
// included: one enqueue costs the driver microseconds, in which a pinned PCIe copy moves
// hundreds of KiB, so 64 KiB of extra bytes costs less than the copy it saves.
inline constexpr std::uint64_t zstd_merge_gap = std::uint64_t{64} << 10;

// Upload bytes a split frame must save per run of compressed blocks (each run is a copy of its
// own, where a host frame shares one merged copy with its neighbours): a few microseconds of
// driver time per copy, in which PCIe moves about this much.
inline constexpr std::uint64_t zstd_split_saving = std::uint64_t{256} << 10;

// Whether a frame with compressed blocks, bound for device memory, is cheaper split than uploaded
// whole: its RLE blocks save (size - 1) upload bytes each (raw blocks save nothing: their input
// is their output), and its slots must be known to be final (exact_layout), or the frame is
// gathered from host memory after all.
inline bool zstd_split_pays(const fmt::zstd_frame& f) {
    if (!f.exact_layout) return false;
    std::uint64_t saved = 0, runs = 0;
    bool in_run = false;
    for (const auto& b : f.blocks) {
        const bool compressed = b.type == fmt::zstd_block_type::compressed;
        runs += compressed && !in_run;
        in_run = compressed;
        if (b.type == fmt::zstd_block_type::rle && b.block_size > 1) saved += b.block_size - 1;
    }
    return runs != 0 && saved >= runs * zstd_split_saving;
}

inline zstd_frame_path zstd_path_of(zstd_route route, zstd_target target, const fmt::zstd_frame& f) {
    const bool compressed = f.compressed_blocks() != 0;
    switch (route) {
    case zstd_route::host:
    case zstd_route::device: // never planned here: engine/detail/zstd_frames_pass.hpp runs it
        return zstd_frame_path::host;
    case zstd_route::hybrid:
        // Into host memory the seed rebuilt every frame from host staging.
        return compressed || target == zstd_target::host ? zstd_frame_path::hybrid : zstd_frame_path::device;
    case zstd_route::automatic: break;
    }
    if (!compressed) return zstd_frame_path::device;
    return target == zstd_target::device && zstd_split_pays(f) ? zstd_frame_path::split : zstd_frame_path::host;
}

// Batch buffer sets in rotation: one uploading, one running, one reading back.
inline constexpr std::size_t zstd_buffer_sets = 3;

// Bytes [file_offset, + bytes) of the file sit at packed_offset of the packed device input.
struct zstd_input_run {
    std::uint64_t file_offset = 0;
    std::uint64_t packed_offset = 0;
    std::uint64_t bytes = 0;
};

// What one run needs to know about the file, computed once.
struct zstd_plan {
    static constexpr std::uint32_t no_batch = std::numeric_limits<std::uint32_t>::max();

    const fmt::zstd_file* file = nullptr;
    zstd_target target = zstd_target::host;
    std::vector<const fmt::zstd_block*> blocks; // every block, in file order (status order)
    std::vector<zstd_frame_path> paths;         // per frame
    std::vector<std::size_t> dispatched;        // blocks sent to the device, in file order (extent order)
    std::vector<char> read_back;                // per dispatched block: its bytes come back into host staging
    std::vector<std::uint32_t> batch_index;     // per block: its batch, or no_batch
    std::vector<zstd_input_run> runs;           // the packed device input
    std::uint64_t packed_bytes = 0;
    // Descriptors' input offsets are relative to the batch's window of the packed input; output
    // offsets are absolute in device staging (device target) or relative to the batch's own
    // output buffer (host target, where dispatched raw/RLE blocks are packed back to back).
    std::vector<compression::block_batch> batches;
    std::uint64_t largest_input = 0, largest_output = 0;
    std::size_t largest_count = 0;
};

inline zstd_plan make_zstd_plan(runtime::context& ctx, const fmt::zstd_file& file, const zstd_options& options,
                                zstd_target target) {
    zstd_plan plan;
    plan.file = &file;
    plan.target = target;
    plan.blocks.reserve(file.block_count);
    plan.paths.reserve(file.frames.size());
    plan.batch_index.assign(file.block_count, zstd_plan::no_batch);
    for (const auto& f : file.frames) {
        const zstd_frame_path path = zstd_path_of(options.route, target, f);
        plan.paths.push_back(path);
        for (std::size_t j = 0; j < f.blocks.size(); ++j) {
            const fmt::zstd_block& b = f.blocks[j];
            plan.blocks.push_back(&b);
            if (path == zstd_frame_path::host || (path == zstd_frame_path::split && !zstd_plain(b))) continue;
            plan.dispatched.push_back(f.first_block + j);
            // Into device memory only hybrid frames need the device's bytes on the host (history
            // for their compressed blocks).
            plan.read_back.push_back(zstd_plain(b) && (target == zstd_target::host || path == zstd_frame_path::hybrid));
        }
    }
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    // Asked only where a buffer goes to the device: a plan of host frames into host memory never
    // waits for a context (a run on the host may have none).
    if (target == zstd_target::host && plan.dispatched.empty()) return plan;
    const std::uint64_t device_max = runtime::max_word_buffer_bytes(ctx.device());
    if (target == zstd_target::device && (file.staging_size > u32_max || runtime::padded_bytes(file.staging_size) > device_max))
        throw resource_error("compression.zstd: a device-resident result of " + std::to_string(file.staging_size) +
                             " staging bytes exceeds one device buffer (at most 2^32-1 bytes and the device's largest "
                             "allocation of " + std::to_string(device_max) + "); decode to host memory instead");
    if (plan.dispatched.empty()) return plan;

    std::vector<compression::block_extent> extents;
    extents.reserve(plan.dispatched.size());
    std::uint64_t packed_out = 0, largest_block = 1; // a batch holds at least one block, however small the option
    for (std::size_t i : plan.dispatched) {
        const fmt::zstd_block& b = *plan.blocks[i];
        const std::uint64_t begin = b.header_offset, end = b.end_offset();
        if (plan.runs.empty() || begin - (plan.runs.back().file_offset + plan.runs.back().bytes) > zstd_merge_gap)
            plan.runs.push_back({begin, plan.packed_bytes, 0});
        zstd_input_run& run = plan.runs.back();
        run.bytes = end - run.file_offset;
        plan.packed_bytes = run.packed_offset + run.bytes;
        const std::uint32_t in_size = static_cast<std::uint32_t>(vyre::compression::zstd_block_header_bytes + b.content_size);
        // A compressed block answers code 4 before its window is looked at: it needs none.
        const std::uint32_t out_size = zstd_plain(b) ? b.output_capacity : 0;
        const std::uint64_t out = target == zstd_target::device ? b.output_offset : packed_out;
        packed_out += out_size;
        extents.push_back({run.packed_offset + (begin - run.file_offset), out, in_size, out_size, 0u});
        largest_block = std::max<std::uint64_t>({largest_block, in_size, out_size});
    }
    compression::batch_limits limits;
    const std::uint64_t batch = std::max(options.batch_input_bytes, largest_block);
    limits.max_input_bytes = std::min({batch, device_max, u32_max});
    // Into device memory every batch writes the one device staging buffer; into host memory each
    // batch has an output buffer of its own, and its size is what one readback moves.
    limits.max_output_bytes = target == zstd_target::device ? u32_max : std::min({batch, device_max, u32_max});
    // The cooperative program launches up to 8 slices of 256 invocations per block: 2^21 blocks
    // stay below 2^32 invocations.
    limits.max_blocks = std::size_t{1} << 21;
    plan.batches = compression::make_block_batches(extents, limits);
    for (std::size_t k = 0; k < plan.batches.size(); ++k) {
        compression::block_batch& b = plan.batches[k];
        if (target == zstd_target::device) // staging_size <= 2^32-1 was checked above
            for (auto& d : b.blocks) d.output_offset += static_cast<std::uint32_t>(b.output_base);
        for (std::size_t p = b.first_extent; p < b.first_extent + b.blocks.size(); ++p)
            plan.batch_index[plan.dispatched[p]] = static_cast<std::uint32_t>(k);
        plan.largest_input = std::max(plan.largest_input, b.input_bytes);
        plan.largest_output = std::max(plan.largest_output, b.output_bytes);
        plan.largest_count = std::max(plan.largest_count, b.blocks.size());
    }
    return plan;
}


} // namespace vyre::engine::detail
