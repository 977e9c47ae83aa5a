// Which .zst files the automatic route sends whole to the device route, and how much of one the
// host's cores then decode beside the device into host memory. Internal to
// engine/zstd_decompress.hpp, whose opening comment describes the routes; the device route itself
// is engine/detail/zstd_frames_pass.hpp.
#pragma once

#include <vyre/engine/detail/zstd_frames_pass.hpp>
#include <vyre/engine/detail/zstd_shared_frames.hpp>
#include <vyre/engine/detail/zstd_window_pass.hpp>
#include <vyre/engine/zstd_options.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/device.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace vyre::engine::detail {

// The automatic route's exception (engine/zstd_decompress.hpp): a file of fewer frames than the
// host has threads, whose frames hold compressed blocks, goes whole to the device route, where
// compression.zstd.blocks decodes every block at once. libzstd decodes a frame on one thread, so
// the host's cores sit idle there; one `zstd -T0` frame is the common case. Small files stay on
// the host (the passes' fixed costs), and so do files whose passes would not fit the device. One
// frame on the device (context warm) overtook libzstd between 8 and 16 MiB
// (doc/ops/compression.zstd.blocks.md).
inline constexpr std::uint64_t zstd_blocks_min_output = std::uint64_t{16} << 20;

inline bool zstd_blocks_pay(const runtime::device_info& device, const format::zstd_file& file, const zstd_options& options,
                            bool into_host = true) {
    if (device.is_cpu() && !device.is_gpu()) return false;
    const bool compressed = std::any_of(file.frames.begin(), file.frames.end(), [](const format::zstd_frame& f) {
        return std::any_of(f.blocks.begin(), f.blocks.end(), [](const auto& b) { return b.type == format::zstd_block_type::compressed; });
    });
    // A link word per output byte is the passes' largest buffer. Into host memory a frame too
    // long for that goes a window at a time, where its window size allows.
    const bool fits = (file.staging_size <= 0xFFFFFFFFull && file.staging_size * 4 <= device.max_allocation) ||
                      (into_host && std::all_of(file.frames.begin(), file.frames.end(), [&](const format::zstd_frame& f) {
                           return !zstd_frame_outgrows_dispatch(device, f) || zstd_windows_fit(device, f, options);
                       }));
    return compressed && fits && file.staging_size >= zstd_blocks_min_output && file.frames.size() < util::thread_count(options.threads);
}

// For the automatic route's exceptions below: a file with a compressed block (else the device
// makes its frames on every route) whose every frame fits one dispatch (zstd_frame_groups; else the
// host decodes the file).
inline bool zstd_compressed_frames_fit(const runtime::device_info& device, const format::zstd_file& file) {
    const std::uint64_t limit = std::min<std::uint64_t>(device.max_allocation, std::uint64_t{0xFFFFFFFFu} & ~std::uint64_t{3});
    if (std::any_of(file.frames.begin(), file.frames.end(),
                    [&](const format::zstd_frame& f) { return f.size > limit || f.output_capacity > limit; }))
        return false;
    return std::any_of(file.frames.begin(), file.frames.end(), [](const format::zstd_frame& f) {
        return std::any_of(f.blocks.begin(), f.blocks.end(), [](const auto& b) { return b.type == format::zstd_block_type::compressed; });
    });
}

// The automatic route's other exception: on a GPU, a file of many short frames with compressed
// blocks goes to the device route, compression.zstd.frames decoding a frame per subgroup. At 64
// KiB frames the device route beats libzstd on every host core, into host memory too
// (doc/ops/compression.zstd.frames.md); long frames are the third exception's. "Many" is at least three
// dispatches' worth (zstd_frames_per_compute_unit per compute unit each), as measured; "short" is
// at most zstd_device_max_frame_output on average. Sizes between are not measured and stay on the host.
inline constexpr std::uint64_t zstd_device_max_frame_output = std::uint64_t{64} << 10;

inline bool zstd_frames_pay(const runtime::device_info& device, const format::zstd_file& file, const zstd_options& options) {
    if (device.is_cpu() || !device.is_gpu() || file.frames.empty()) return false;
    const std::uint64_t enough = options.frames_per_dispatch != 0
                                     ? options.frames_per_dispatch
                                     : std::max<std::uint64_t>(device.compute_units, 1) * zstd_frames_per_compute_unit;
    if (file.frames.size() < 3 * enough || file.staging_size > file.frames.size() * zstd_device_max_frame_output) return false;
    return zstd_compressed_frames_fit(device, file);
}

// The first of the frames the host's cores decode beside the device on the device route into host
// memory (zstd_options::host_share): none on the device route unless a share is asked for; on the
// automatic route the estimated share (zstd_estimated_host_share), the device's rate that of the
// program the file's frames would take as one group, where the file has frames enough to keep every
// host thread busy (zstd_shared_min_frames_per_thread each; libzstd decodes a frame on one thread).
inline constexpr std::size_t zstd_shared_min_frames_per_thread = 8;

inline std::size_t zstd_shared_from(runtime::context& ctx, const format::zstd_file& file, const zstd_options& options) {
    if (options.host_share) return zstd_first_shared_frame(file, zstd_checked_host_share(*options.host_share));
    const unsigned threads = util::thread_count(options.threads);
    if (options.route != zstd_route::automatic || file.frames.size() < std::size_t{threads} * zstd_shared_min_frames_per_thread)
        return file.frames.size();
    const std::uint64_t enough = options.frames_per_dispatch != 0
                                     ? options.frames_per_dispatch
                                     : std::max<std::uint64_t>(ctx.device().compute_units, 1) * zstd_frames_per_compute_unit;
    const bool blocks = zstd_group_takes_blocks(ctx.device(), file, 0, file.frames.size(), enough);
    return zstd_first_shared_frame(file, zstd_estimated_host_share(threads, blocks));
}

// The automatic route's third exception: on a GPU, a file of many long frames with compressed
// blocks (at least zstd_shared_min_frames_per_thread per host thread, zstd_blocks_min_frame_output
// on average) goes to the device route, compression.zstd.blocks decoding its blocks at once and,
// into host memory, the host's cores taking a share of its last frames (zstd_shared_from). At 1 MiB
// frames that beat libzstd on every host core into host and into device memory; the figures are in
// doc/ops/compression.zstd.frames.md (Routes).
inline bool zstd_long_frames_pay(const runtime::device_info& device, const format::zstd_file& file, const zstd_options& options) {
    if (device.is_cpu() || !device.is_gpu() || file.frames.empty()) return false;
    const std::size_t threads = util::thread_count(options.threads);
    if (file.frames.size() < threads * zstd_shared_min_frames_per_thread ||
        file.staging_size < file.frames.size() * zstd_blocks_min_frame_output)
        return false;
    return zstd_compressed_frames_fit(device, file);
}

// Whether the automatic route sends a file to the device route (the three exceptions above).
inline bool zstd_device_route_pays(const runtime::device_info& device, const format::zstd_file& file, const zstd_options& options,
                                   bool into_host) {
    return zstd_blocks_pay(device, file, options, into_host) || zstd_frames_pay(device, file, options) ||
           zstd_long_frames_pay(device, file, options);
}

} // namespace vyre::engine::detail
