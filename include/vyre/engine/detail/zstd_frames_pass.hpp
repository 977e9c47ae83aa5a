// The zstd pipeline's device route: every frame regenerated whole by compression.zstd.frames
// (compressed blocks included), the host only walking block sections before and checking content
// sizes and checksums after.
// Internal to engine/zstd_decompress.hpp, whose opening comment describes the routes.
#pragma once

#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/engine/zstd_options.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/ops/compression/zstd_frames.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine::detail {

// Consecutive frames whose input and staging each stay within one dispatch's limits.
struct zstd_frame_group {
    std::size_t first = 0, count = 0;
};

inline std::vector<zstd_frame_group> zstd_frame_groups(runtime::context& ctx, const format::zstd_file& file, const zstd_options& options) {
    // Offsets are 32-bit words in the program; buffers are also bounded by the device.
    const std::uint64_t limit = std::min<std::uint64_t>(ctx.device().max_allocation, std::uint64_t{0xFFFFFFFFu} & ~std::uint64_t{3});
    const std::uint64_t input_limit = std::min<std::uint64_t>(limit, std::max<std::uint64_t>(options.batch_input_bytes, 1));
    std::vector<zstd_frame_group> groups;
    std::uint64_t in = 0, out = 0;
    for (std::size_t i = 0; i < file.frames.size(); ++i) {
        const auto& f = file.frames[i];
        if (f.size > limit || f.output_capacity > limit)
            throw resource_error("zstd: the frame at byte offset " + std::to_string(f.offset) + " (" + std::to_string(f.size) +
                                 " bytes, staging " + std::to_string(f.output_capacity) +
                                 ") exceeds what one dispatch of compression.zstd.frames holds (" + std::to_string(limit) + " bytes)");
        if (groups.empty() || in + f.size > input_limit || out + f.output_capacity > limit) {
            groups.push_back({i, 0});
            in = out = 0;
        }
        ++groups.back().count;
        in += f.size;
        out += f.output_capacity;
    }
    return groups;
}

// The error a frame the device refused gets: what failed, at its block's header.
[[noreturn]] inline void zstd_device_refused(const format::zstd_frame& f, std::span<const std::uint32_t> status) {
    const std::uint32_t block = status[2];
    const std::uint64_t at = block < f.blocks.size() ? f.blocks[block].header_offset : f.offset;
    throw format_error(std::string("zstd: block ") + std::to_string(block) + " of the frame at byte offset " + std::to_string(f.offset) +
                           ": " + compression::zstd_frame_reason_text(status[3]) + " (" + compression::zstd_error_name(status[0]) +
                           ")",
                       at);
}

// Checks every frame's status, content size and checksum against its bytes, held in `staging`
// at the frames' staging offsets; returns the frames' sizes.
inline std::vector<std::uint64_t> zstd_check_device_frames(const format::zstd_file& file, std::span<const std::uint32_t> statuses,
                                                           std::span<const std::uint8_t> staging, unsigned threads) {
    namespace c = compression;
    std::vector<std::uint64_t> sizes(file.frames.size());
    for (std::size_t i = 0; i < file.frames.size(); ++i) {
        const auto status = statuses.subspan(i * c::zstd_status_words, c::zstd_status_words);
        if (status[0] != c::zstd_error::none) zstd_device_refused(file.frames[i], status);
        sizes[i] = status[1];
    }
    for (std::size_t i = 0; i < file.frames.size(); ++i) {
        const auto& f = file.frames[i];
        if (f.content_size && *f.content_size != sizes[i])
            throw format_error("zstd: frame declares " + std::to_string(*f.content_size) + " content bytes but decodes to " +
                                   std::to_string(sizes[i]),
                               f.offset);
    }
    // Checksums where the frames carry one (`staging` may be empty when none does).
    util::parallel_for(file.frames.size(), threads, [&](std::size_t i) {
        const auto& f = file.frames[i];
        if (f.checksum) zstd_check_frame(f, staging.subspan(f.output_offset, sizes[i]));
    });
    return sizes;
}

struct zstd_frames_run {
    std::vector<std::uint32_t> statuses; // zstd_status_words per frame of the file
    std::size_t dispatches = 0;
    std::uint64_t uploaded = 0;
    std::size_t transfers = 0;
};

// Every frame through compression.zstd.frames, group by group: the group's file bytes up, the
// program, then (into host memory) its staging region back into `staging`, or (into device
// memory) into `device_staging` at the frames' staging offsets.
inline zstd_frames_run zstd_run_frames(runtime::context& ctx, std::span<const std::uint8_t> data, const format::zstd_file& file,
                                       const zstd_options& options, std::span<std::uint8_t> staging,
                                       boost::compute::buffer* device_staging) {
    namespace c = compression;
    zstd_frames_run run;
    run.statuses.assign(file.frames.size() * c::zstd_status_words, 0);
    for (const auto& g : zstd_frame_groups(ctx, file, options)) {
        std::vector<std::size_t> which(g.count);
        std::iota(which.begin(), which.end(), g.first);
        const format::zstd_sections s = format::plan_zstd_sections(data, file, which);
        auto input = runtime::allocate(ctx, runtime::padded_bytes(s.input_bytes), CL_MEM_READ_ONLY);
        runtime::write(ctx, input, data.data() + s.input_base, s.input_bytes);
        const auto r = ops::compression::enqueue_zstd_frames(ctx, input, s.input_bytes, s, options.variant);
        runtime::read(ctx, r.statuses, run.statuses.data() + g.first * c::zstd_status_words, g.count * c::zstd_status_words * 4);
        if (device_staging)
            runtime::cl_call("clEnqueueCopyBuffer", [&] { ctx.queue().enqueue_copy_buffer(r.output, *device_staging, 0, s.output_base, s.output_bytes); });
        else
            runtime::read(ctx, r.output, staging.data() + s.output_base, s.output_bytes);
        ++run.dispatches;
        run.uploaded += s.input_bytes;
        run.transfers += 3;
    }
    return run;
}

inline void zstd_report_device_route(const format::zstd_file& file, const zstd_frames_run& run, std::span<const std::uint64_t> sizes,
                                     std::uint64_t input_bytes, zstd_report& report) {
    report.blocks = file.block_count;
    report.dispatched_blocks = file.block_count;
    report.batches = run.dispatches;
    report.input_bytes = input_bytes;
    report.device_input_bytes = run.uploaded;
    report.staging_bytes = file.staging_size;
    report.transfers = run.transfers;
    report.paths.device = file.frames.size();
    report.frame_path.assign(file.frames.size(), zstd_frame_path::device);
    report.frame_bytes.assign(sizes.begin(), sizes.end());
    report.output_bytes = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
    report.split.frames = file.frames.size();
    report.split.skippable_frames = file.skippable_frames.size();
    report.split.device_blocks = file.block_count;
    report.split.device_bytes = report.output_bytes;
}

// Into device memory: every frame made in `device_staging`; the checksums are checked on the
// host, so frames that carry one are read back into `scratch` for it (an XXH64 on the device
// would spare that copy). Frames are gathered into a buffer of their own unless they already
// follow each other.
inline zstd_device_result zstd_frames_to_device(runtime::context& ctx, std::span<const std::uint8_t> data, const format::zstd_file& file,
                                                const zstd_options& options, std::span<std::uint8_t> scratch,
                                                boost::compute::buffer& device_staging) {
    const zstd_frames_run run = zstd_run_frames(ctx, data, file, options, {}, &device_staging);
    const bool checksums = std::any_of(file.frames.begin(), file.frames.end(), [](const auto& f) { return f.checksum.has_value(); });
    std::vector<std::uint8_t> owned;
    if (checksums) {
        if (scratch.size() < file.staging_size) {
            owned.resize(static_cast<std::size_t>(file.staging_size));
            scratch = owned;
        }
        runtime::read(ctx, device_staging, scratch.data(), file.staging_size);
    } else {
        ctx.finish();
        scratch = {};
    }
    const auto sizes = zstd_check_device_frames(file, run.statuses, scratch, util::thread_count(options.threads));
    zstd_device_result result;
    zstd_report_device_route(file, run, sizes, data.size(), result.report);
    result.report.transfers += checksums;
    result.output_bytes = result.report.output_bytes;
    bool packed = true;
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        packed = packed && file.frames[k].output_offset == at;
        at += sizes[k];
    }
    if (packed) {
        result.output = device_staging;
        return result;
    }
    result.output = runtime::allocate(ctx, runtime::padded_bytes(result.output_bytes));
    at = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        if (sizes[k] != 0)
            runtime::cl_call("clEnqueueCopyBuffer",
                    [&] { ctx.queue().enqueue_copy_buffer(device_staging, result.output, file.frames[k].output_offset, at, sizes[k]); });
        at += sizes[k];
        ++result.report.transfers;
    }
    return result;
}

} // namespace vyre::engine::detail
