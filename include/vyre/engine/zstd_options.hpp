// What engine/zstd_decompress.hpp takes and reports: routes, the path each frame took, options,
// reports and results of decoding whole .zst files.
#pragma once

#include <vyre/engine/zstd_host.hpp>
#include <vyre/ops/block_op.hpp>

#include <boost/compute/buffer.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vyre::engine {

// Which frames go where (see the table above).
// device: every frame regenerated whole by compression.zstd.frames, compressed blocks included.
enum class zstd_route { automatic, hybrid, host, device };

inline const char* zstd_route_name(zstd_route r) noexcept {
    switch (r) {
    case zstd_route::automatic: return "automatic";
    case zstd_route::hybrid: return "hybrid";
    case zstd_route::host: return "host";
    case zstd_route::device: return "device";
    }
    return "?";
}

inline std::optional<zstd_route> zstd_route_from_name(std::string_view name) noexcept {
    for (zstd_route r : {zstd_route::automatic, zstd_route::hybrid, zstd_route::host, zstd_route::device})
        if (name == zstd_route_name(r)) return r;
    return std::nullopt;
}

// How one frame was decoded (see the list above).
enum class zstd_frame_path : std::uint8_t { device, hybrid, host, split };

inline const char* zstd_frame_path_name(zstd_frame_path p) noexcept {
    switch (p) {
    case zstd_frame_path::device: return "device";
    case zstd_frame_path::hybrid: return "hybrid";
    case zstd_frame_path::host: return "host";
    case zstd_frame_path::split: return "split";
    }
    return "?";
}

// Frames per path.
struct zstd_path_counts {
    std::size_t device = 0;
    std::size_t hybrid = 0;
    std::size_t host = 0;
    std::size_t split = 0;
};

// Route device: the program that regenerates a dispatch's frames. frames: compression.zstd.frames,
// a subgroup per frame, block after block. blocks: compression.zstd.blocks, every block of the
// dispatch at once (the host schedules the blocks between its passes, so a dispatch waits for
// each). automatic: blocks where a dispatch holds fewer frames than fill the device (one large
// frame runs on one subgroup otherwise) and the passes' scratch fits, frames elsewhere.
enum class zstd_device_program { automatic, frames, blocks };

inline const char* zstd_device_program_name(zstd_device_program p) noexcept {
    switch (p) {
    case zstd_device_program::automatic: return "automatic";
    case zstd_device_program::frames: return "frames";
    case zstd_device_program::blocks: return "blocks";
    }
    return "?";
}

inline std::optional<zstd_device_program> zstd_device_program_from_name(std::string_view name) noexcept {
    for (zstd_device_program p : {zstd_device_program::automatic, zstd_device_program::frames, zstd_device_program::blocks})
        if (name == zstd_device_program_name(p)) return p;
    return std::nullopt;
}

struct zstd_options {
    // automatic: the cooperative program on GPUs, the seed's on CPU devices (ops::compression::resolve).
    ops::block_variant variant = ops::block_variant::automatic;
    zstd_route route = zstd_route::automatic;
    // Input bytes of one dispatch (also lowered to the device's largest allocation; into host
    // memory, also the most output bytes one dispatch reads back): smaller batches start the
    // pipeline sooner, larger ones launch fewer kernels.
    std::uint64_t batch_input_bytes = std::uint64_t{64} << 20;
    // Route device: one dispatch of compression.zstd.frames decodes at least this many frames
    // (one subgroup each) and batch_input_bytes of input before the next one starts, unless the
    // file runs out or a 32-bit limit is reached. 0: 32 per compute unit, enough to fill a GPU.
    std::uint64_t frames_per_dispatch = 0;
    zstd_device_program device_program = zstd_device_program::automatic;
    // Route device, into host memory: a frame longer than this many output bytes, or too long for
    // one dispatch of compression.zstd.blocks, is decoded a window of this many bytes at a time
    // (engine/detail/zstd_window_pass.hpp); 0: detail::zstd_default_window_bytes (256 MiB).
    std::uint64_t window_bytes = 0;
    // The staging layout may ask for at most this much memory (hostile files regenerate up to
    // 32768 bytes per input byte): above it, resource_error before anything is allocated.
    std::uint64_t max_output_bytes = std::uint64_t{16} << 30;
    // Into host memory, where the device route takes a file of many frames: the share of the
    // output (the file's last frames, whole) that the host's cores decode with libzstd while the
    // device decodes the rest, in [0, 1). The host's frames never cross the bus, and its cores
    // are otherwise idle while the device's output comes back. Unset: 0 on the device route
    // (every frame on the device); on the automatic route the share at which both sides are
    // estimated to end together (detail::zstd_estimated_host_share).
    std::optional<double> host_share;
    // Threads of the host pass; 0: all hardware threads.
    unsigned threads = 0;
    // Route device: record when each group's steps ran (zstd_report::timeline). Its queues then
    // take profiling, which costs a little; for benchmarks (bench_zstd --timeline).
    bool timeline = false;
};

// When one group of frames went through each step of the device route (zstd_options::timeline),
// in milliseconds from the route's start, [begin, end): on the host, its walk (planning), the
// enqueue of its work, the wait for its results and their check; on the device (OpenCL profiling, placed on the host's clock by
// the upload's enqueue time), its upload, the FSE tables' build, the program, the hash and the
// copy of its output. A step that did not run reads 0, 0.
struct zstd_group_steps {
    std::size_t first = 0, frames = 0;
    double walk[2]{}, enqueue[2]{}, upload[2]{}, tables[2]{}, kernel[2]{}, hash[2]{}, output[2]{}, wait[2]{}, check[2]{};
};

// Who did what. split.device_*: raw/RLE blocks whose device result was kept; split.cpu_*: blocks
// of host frames, compressed blocks of hybrid and split frames, and any block the host had to
// redo (also counted in split.redone_blocks).
struct zstd_report {
    zstd_decode_stats split;
    zstd_path_counts paths;                 // frames per path
    std::vector<zstd_frame_path> frame_path; // each frame's path, in file order (skippable frames excluded)
    std::size_t blocks = 0;                  // every block of the file
    std::size_t dispatched_blocks = 0;       // of which sent to compression.zstd
    std::size_t batches = 0;                 // dispatches of compression.zstd
    // Route device: of those dispatches, how many went through compression.zstd.blocks, and the
    // resolve rounds they took.
    std::size_t block_batches = 0;
    std::size_t resolve_rounds = 0;
    // Of those dispatches, windows of frames too long for one (engine/detail/zstd_window_pass.hpp).
    std::size_t frame_windows = 0;
    // Route device into device memory: frames whose checksum the device computed (bytes.xxh64),
    // so that their bytes never came back.
    std::size_t device_hashed_frames = 0;
    std::uint64_t input_bytes = 0;
    std::uint64_t device_input_bytes = 0;    // bytes uploaded for the dispatches (the packed runs)
    std::uint64_t output_bytes = 0;
    std::uint64_t staging_bytes = 0;
    // The layout asked for more staging than the input vouches for (zstd_layout_unproven): every
    // frame was decoded on the host into memory that grew with its output, none laid out. Also
    // where the file has more tiny blocks or frames than a parse may list
    // (format::zstd_table_error): then the whole file was streamed through libzstd, and
    // frame_path and frame_bytes are empty.
    bool grown = false;
    // Where the time went (wall clock, from the start of the passes): until the last batch's
    // statuses were back, until the host pass (and, into device memory, its uploads) ended, and
    // how long the host pass's threads waited for the device in all.
    double device_seconds = 0;
    double host_seconds = 0;
    double wait_seconds = 0;
    std::size_t transfers = 0; // host <-> device copies enqueued
    // Decoded bytes of each frame, in file order (skippable frames excluded): where one frame's
    // output ends in the packed result, for callers that decode many files as one (engine/unpack.hpp).
    std::vector<std::uint64_t> frame_bytes;
    std::vector<zstd_group_steps> timeline; // with zstd_options::timeline, route device
    // Route device into host memory (zstd_options::host_share): the frames the host's cores
    // decoded beside the device (counted in paths.host), and when they did, in milliseconds from
    // the route's start.
    std::size_t shared_frames = 0;
    double shared[2]{};
};

struct zstd_result {
    std::vector<std::uint8_t> bytes;
    zstd_report report;
};

// The decompressed file in device memory: output holds output_bytes (rounded up to whole words).
struct zstd_device_result {
    boost::compute::buffer output;
    std::uint64_t output_bytes = 0;
    zstd_report report;
};

} // namespace vyre::engine
