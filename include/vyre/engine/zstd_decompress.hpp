// Whole .zst files through compression.zstd and libzstd. Each frame is routed before anything is
// dispatched: made by the device, decoded whole by the host, or split between them (the seed's
// hybrid: raw/RLE blocks on the device, compressed blocks on the host). The result lands in host
// memory or stays in device memory.
#pragma once

// The paths a frame can take (zstd_frame_path):
//
//   device  compression.zstd regenerates every block (the frame has no compressed block). The
//           host only checks the statuses, the content size and the XXH64 checksum, computed from
//           the input's raw bytes and RLE runs, never from the output.
//   hybrid  raw/RLE blocks on the device, compressed blocks on the host with libzstd's block API
//           (ZSTD_decompressBlock, the device's bytes announced with ZSTD_insertBlock), the
//           checksum in a pass of its own (format/zstd_decompress.hpp). The seed's design.
//   host    the whole frame with libzstd's frame API (ZSTD_decompressDCtx), which checks the
//           content size and the checksum itself, hashing each block while it is in cache.
//   split   (device target only) the device makes every raw/RLE block; the host decodes the frame
//           only up to its last compressed block (the block path, the raw/RLE blocks before it
//           made from the input as history) and hashes the rest from the input, so that only
//           the compressed blocks' bytes (and any block the device got wrong) are uploaded.
//
// The routes (zstd_options::route) give them so:
//
//   route      frame with a compressed block               frame of raw/RLE blocks only
//   automatic  host; split into device memory when its     device
//              RLE blocks save enough (zstd_split_pays)
//   hybrid     hybrid                                      hybrid into host memory, device into device memory
//   host       host                                        host
//
// Why automatic routes so. The device cannot decode a compressed block, so a frame that holds one
// is decoded on the host whatever else it holds, and the frame API is the fastest host code for
// it (the block path adds ZSTD_insertBlock calls and a hashing pass of its own). Into host memory,
// sending its raw/RLE blocks to the device as well would move their bytes over PCIe twice (input
// up, output back) to save a memcpy/memset that a core does at many GB/s: the host decodes it
// alone. Into device memory the frame's bytes must go up once known. The hybrid path moves its
// raw blocks twice (input up, output back as history for the block API) and gains only on RLE
// blocks. Decoding it whole on the host and uploading the output moves every byte once. Cheaper
// still when the frame holds large RLE blocks (libzstd writes a run of one byte as a tiny
// compressed block followed by RLE blocks): the device makes the raw/RLE blocks from their input
// (a raw block's input is as large as its output; an RLE block's is one byte), the host decodes
// only what the compressed blocks need as history (the frame up to its last compressed block)
// and hashes the rest from the input without writing it, and only the compressed blocks' output
// goes up. That costs a copy per run of compressed blocks instead of a share of one merged copy,
// so it is taken only where the RLE bytes saved pay for those copies (zstd_split_saving per run).
// A frame without a compressed block needs the host only for its checksum, read from the input at
// hashing speed: the device makes it for either target.
//
// What runs where, in order:
//
//   1. host    format::parse_zstd lists every block of every frame and gives each a staging slot
//              (format/zstd_frame.hpp); the plan gives every frame its path. Only the blocks of
//              device and hybrid frames, and the raw/RLE blocks of split frames, are dispatched,
//              and only their bytes are uploaded: the file's runs that hold them (runs closer
//              than zstd_merge_gap merged), packed back to back and cut into batches of
//              options.batch_input_bytes. Nothing is decoded.
//   2. device  One dispatch per batch, over command queues of their own, ordered by events:
//              batch k+1 uploads while batch k runs and batch k-1 reads back. Three sets of batch
//              buffers, allocated once at the largest batch, rotate; a set's next upload waits for
//              its last readback. Into device memory, blocks write the device staging buffer (the
//              result) at their slots; into host memory, each batch writes its set's output
//              buffer, read back into the blocks' host staging slots. Compressed blocks (hybrid
//              frames) answer unsupported_compressed_block (code 4) and write nothing. The driving
//              thread enqueues everything, then sleeps, polling each batch's last readback;
//              when it completes, the batch's statuses are published and its waiters released.
//   3. host    Meanwhile every frame is finished on the host, frames in parallel on all cores,
//              host and split frames first (they wait last, if at all): host frames by the frame
//              API; split frames by the block path up to their last compressed block, the rest
//              hashed from the input, then the statuses of their raw/RLE blocks are read; hybrid
//              frames by the block path (a frame waits for a raw/RLE block's batch only when it
//              reaches that block); device frames by hashing the input, then reading the
//              statuses. Any raw/RLE block whose device status is not {0, its size} is
//              regenerated on the host (counted in redone_blocks). Every core belongs to this pass.
//   4. output  Host target: frames are packed to the front of the staging memory. Device
//              target: as each frame is finished, the bytes the host made for it are uploaded
//              into device staging on a queue of their own (overlapping the host pass); when
//              every frame filled its slots exactly (the usual case: encoders declare the content
//              size), that buffer is the output, otherwise frames are gathered into a new one. A
//              device frame never comes back to the host.
//
// Output equals ZSTD_decompress's byte for byte on every input ZSTD_decompress accepts (up to the
// dictionary and window limits of format::parse_zstd); anything malformed is a format_error that
// names the byte offset, with the same message whatever the route (a host frame that libzstd
// refuses is run through the block path to say where). One difference remains: libzstd 1.5's
// frame API accepts a compressed block that regenerates more than its frame's block maximum,
// which RFC 8878 forbids and the other paths refuse; a host frame decodes as ZSTD_decompress
// decodes it.

#include <vyre/error.hpp>
#include <vyre/format/zstd_decompress.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/ops/compression/block.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/runtime/buffer.hpp>

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

namespace vyre::engine {

// Which frames go where (see the table above).
enum class zstd_route { automatic, hybrid, host };

inline const char* zstd_route_name(zstd_route r) noexcept {
    switch (r) {
    case zstd_route::automatic: return "automatic";
    case zstd_route::hybrid: return "hybrid";
    case zstd_route::host: return "host";
    }
    return "?";
}

inline std::optional<zstd_route> zstd_route_from_name(std::string_view name) noexcept {
    for (zstd_route r : {zstd_route::automatic, zstd_route::hybrid, zstd_route::host})
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

struct zstd_options {
    // automatic: the cooperative program on GPUs, the seed's on CPU devices (ops::compression::resolve).
    ops::compression::zstd_variant variant = ops::compression::zstd_variant::automatic;
    zstd_route route = zstd_route::automatic;
    // Input bytes of one dispatch (also lowered to the device's largest allocation; into host
    // memory, also the most output bytes one dispatch reads back): smaller batches start the
    // pipeline sooner, larger ones launch fewer kernels.
    std::uint64_t batch_input_bytes = std::uint64_t{64} << 20;
    // The staging layout may ask for at most this much memory (hostile files regenerate up to
    // 32768 bytes per input byte): above it, resource_error before anything is allocated.
    std::uint64_t max_output_bytes = std::uint64_t{16} << 30;
    // Threads of the host pass; 0: all hardware threads.
    unsigned threads = 0;
};

// Who did what. split.device_*: raw/RLE blocks whose device result was kept; split.cpu_*: blocks
// of host frames, compressed blocks of hybrid and split frames, and any block the host had to
// redo (also counted in split.redone_blocks).
struct zstd_report {
    format::zstd_decode_stats split;
    zstd_path_counts paths;                 // frames per path
    std::vector<zstd_frame_path> frame_path; // each frame's path, in file order (skippable frames excluded)
    std::size_t blocks = 0;                  // every block of the file
    std::size_t dispatched_blocks = 0;       // of which sent to compression.zstd
    std::size_t batches = 0;                 // dispatches of compression.zstd
    std::uint64_t input_bytes = 0;
    std::uint64_t device_input_bytes = 0;    // bytes uploaded for the dispatches (the packed runs)
    std::uint64_t output_bytes = 0;
    std::uint64_t staging_bytes = 0;
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

namespace detail {

namespace cz = ops::compression;
namespace fmt = format;
namespace bcm = boost::compute;

enum class zstd_target { host, device };

inline bool zstd_plain(const fmt::zstd_block& b) { return b.type != fmt::zstd_block_type::compressed; }

// Two dispatched blocks whose file ranges are at most this far apart upload as one copy, gap
// included: one enqueue costs the driver microseconds, in which PCIe (~55 GB/s pinned) moves
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
    case zstd_route::host: return zstd_frame_path::host;
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
    std::vector<cz::block_batch> batches;
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
    const std::uint64_t device_max = ctx.device().max_allocation / 4 * 4;
    if (target == zstd_target::device && (file.staging_size > u32_max || cz::zstd_padded_bytes(file.staging_size) > device_max))
        throw resource_error("compression.zstd: a device-resident result of " + std::to_string(file.staging_size) +
                             " staging bytes exceeds one device buffer (at most 2^32-1 bytes and the device's largest "
                             "allocation of " + std::to_string(device_max) + "); decode to host memory instead");
    if (plan.dispatched.empty()) return plan;

    std::vector<cz::block_extent> extents;
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
        const std::uint32_t in_size = static_cast<std::uint32_t>(fmt::zstd_block_header_size + b.content_size);
        // A compressed block answers code 4 before its window is looked at: it needs none.
        const std::uint32_t out_size = zstd_plain(b) ? b.output_capacity : 0;
        const std::uint64_t out = target == zstd_target::device ? b.output_offset : packed_out;
        packed_out += out_size;
        extents.push_back({run.packed_offset + (begin - run.file_offset), out, in_size, out_size, 0u});
        largest_block = std::max<std::uint64_t>({largest_block, in_size, out_size});
    }
    cz::batch_limits limits;
    const std::uint64_t batch = std::max(options.batch_input_bytes, largest_block);
    limits.max_input_bytes = std::min({batch, device_max, u32_max});
    // Into device memory every batch writes the one device staging buffer; into host memory each
    // batch has an output buffer of its own, and its size is what one readback moves.
    limits.max_output_bytes = target == zstd_target::device ? u32_max : std::min({batch, device_max, u32_max});
    // The cooperative program launches up to 8 slices of 256 invocations per block: 2^21 blocks
    // stay below 2^32 invocations.
    limits.max_blocks = std::size_t{1} << 21;
    plan.batches = cz::make_block_batches(extents, limits);
    for (std::size_t k = 0; k < plan.batches.size(); ++k) {
        cz::block_batch& b = plan.batches[k];
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

// Waits for everything enqueued on `q` so far without keeping a core busy (a driver's clFinish
// may spin, and every core belongs to the host pass meanwhile).
inline void zstd_wait_idle(bcm::command_queue& q) {
    bcm::event marker = runtime::detail::cl_call("clEnqueueMarkerWithWaitList", [&] { return q.enqueue_marker(); });
    runtime::detail::cl_call("clFlush", [&] { q.flush(); });
    for (;;) {
        const cl_int status = runtime::detail::cl_call("clGetEventInfo", [&] { return marker.status(); });
        if (status == CL_COMPLETE) return;
        if (status < 0) {
            runtime::detail::cl_call("clFinish", [&] { q.finish(); }); // reports the failed command's error
            throw error("compression.zstd: a device command failed (status " + std::to_string(status) + ")");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

inline void zstd_wait_idle(runtime::context& ctx) { zstd_wait_idle(ctx.queue()); }

inline void zstd_upload(bcm::command_queue& q, bcm::buffer& dst, std::uint64_t dst_offset, const std::uint8_t* src,
                        std::uint64_t bytes) {
    if (bytes == 0) return;
    runtime::detail::cl_call("clEnqueueWriteBuffer", [&] { q.enqueue_write_buffer_async(dst, dst_offset, bytes, src); });
}

// One set of batch buffers, sized for the largest batch.
struct zstd_batch_buffers {
    bcm::buffer input, descriptors, statuses, output;
};

// Step 2. Queues of its own over the caller's OpenCL context: uploads, kernels, readbacks, and
// (device target) the uploads of host-made bytes, which must not queue behind batches waiting
// for their buffer set. The destructor waits for everything enqueued, so that no copy lands in
// host memory after the caller has let go of it, whatever was thrown.
struct zstd_device_pass {
    runtime::context& ctx;
    std::span<const std::uint8_t> data;
    const zstd_plan& plan;
    std::span<std::uint8_t> staging;          // host staging
    bcm::buffer& device_staging;              // device target: the result
    std::vector<cz::block_status>& statuses;  // what the host pass reads (raw/RLE blocks published)
    std::vector<cz::block_status>& answers;   // the device's answers, every block
    // Per dispatched block, as read back. Pinned: a read into pageable memory is staged by the
    // driver, which can hold the host thread until the queue reaches it.
    std::optional<runtime::pinned_host_buffer> dense_memory;
    std::span<cz::block_status> dense;
    const cz::zstd_kernel* kernel = nullptr;
    std::optional<runtime::context> run;      // a context over the kernel queue (enqueue_zstd takes one)
    bcm::command_queue up, down, result;
    std::vector<zstd_batch_buffers> sets;
    std::vector<bcm::buffer> params;          // per batch, alive until it ran
    std::vector<bcm::event> ran, done;        // per batch: its kernel, its last readback
    std::size_t transfers = 0;

    zstd_device_pass(runtime::context& c, std::span<const std::uint8_t> d, const zstd_plan& p, std::span<std::uint8_t> s,
                     bcm::buffer& ds, std::vector<cz::block_status>& st, std::vector<cz::block_status>& an)
        : ctx(c), data(d), plan(p), staging(s), device_staging(ds), statuses(st), answers(an) {}
    zstd_device_pass(const zstd_device_pass&) = delete;
    zstd_device_pass& operator=(const zstd_device_pass&) = delete;

    ~zstd_device_pass() {
        for (bcm::command_queue* q : {&up, run ? &run->queue() : nullptr, &down, &result}) {
            if (!q || !q->get()) continue;
            try {
                q->finish();
            } catch (...) {
            }
        }
    }

    bcm::command_queue make_queue() {
        return runtime::detail::cl_call("clCreateCommandQueue",
                                        [&] { return bcm::command_queue(ctx.cl_context(), ctx.device().device); });
    }

    // Queues and buffers; nothing when no block is dispatched and nothing is uploaded.
    void start(const zstd_options& options) {
        if (plan.target == zstd_target::device) result = make_queue();
        if (plan.batches.empty()) return;
        kernel = &cz::zstd_kernel_for(cz::resolve(options.variant, ctx.device()));
        up = make_queue();
        down = make_queue();
        run.emplace(make_queue());
        dense_memory.emplace(ctx, std::max<std::size_t>(plan.dispatched.size(), 1) * sizeof(cz::block_status));
        dense = {reinterpret_cast<cz::block_status*>(dense_memory->span().data()), plan.dispatched.size()};
        params.resize(plan.batches.size());
        ran.resize(plan.batches.size());
        done.resize(plan.batches.size());
        sets.resize(std::min(zstd_buffer_sets, plan.batches.size()));
        for (auto& s : sets) {
            s.input = runtime::allocate(ctx, cz::zstd_padded_bytes(plan.largest_input), CL_MEM_READ_ONLY);
            s.descriptors = runtime::allocate(ctx, plan.largest_count * sizeof(cz::block_descriptor), CL_MEM_READ_ONLY);
            s.statuses = runtime::allocate(ctx, plan.largest_count * sizeof(cz::block_status));
            if (plan.target == zstd_target::host) s.output = runtime::allocate(ctx, cz::zstd_padded_bytes(plan.largest_output));
        }
    }

    // Upload, kernel and readback of batch k, each on its queue, each waiting for the one before.
    void enqueue(std::size_t k) {
        const cz::block_batch& batch = plan.batches[k];
        zstd_batch_buffers& set = sets[k % sets.size()];
        const std::size_t n = batch.blocks.size();
        const std::size_t first = batch.first_extent;
        bcm::wait_list after;
        if (k >= sets.size()) after.insert(done[k - sets.size()]); // the set's previous batch is read back
        bcm::event uploaded;
        runtime::detail::cl_call("clEnqueueWriteBuffer", [&] {
            const std::uint64_t lo = batch.input_base, hi = lo + batch.input_bytes;
            auto it = std::upper_bound(plan.runs.begin(), plan.runs.end(), lo, [](std::uint64_t v, const zstd_input_run& r) {
                return v < r.packed_offset + r.bytes;
            });
            for (; it != plan.runs.end() && it->packed_offset < hi; ++it) {
                const std::uint64_t a = std::max(lo, it->packed_offset), b = std::min(hi, it->packed_offset + it->bytes);
                up.enqueue_write_buffer_async(set.input, a - lo, b - a, data.data() + it->file_offset + (a - it->packed_offset), after);
                after = bcm::wait_list();
                ++transfers;
            }
            uploaded = up.enqueue_write_buffer_async(set.descriptors, 0, n * sizeof(cz::block_descriptor), batch.blocks.data(), after);
            ++transfers;
        });
        cz::zstd_device_blocks b;
        b.input = set.input;
        b.input_bytes = batch.input_bytes;
        b.descriptors = set.descriptors;
        b.block_count = static_cast<std::uint32_t>(n);
        b.statuses = set.statuses;
        if (plan.target == zstd_target::device) {
            b.output = device_staging;
            b.output_bytes = plan.file->staging_size;
        } else {
            b.output = set.output;
            b.output_bytes = batch.output_bytes;
        }
        std::uint32_t largest = 1;
        for (const auto& d : batch.blocks) largest = std::max(largest, d.output_size);
        b.largest_output = largest;
        runtime::detail::cl_call("clEnqueueBarrierWithWaitList", [&] { run->queue().enqueue_barrier(bcm::wait_list(uploaded)); });
        ran[k] = cz::enqueue_zstd(*run, *kernel, b, params[k]);
        runtime::detail::cl_call("clEnqueueReadBuffer", [&] {
            bcm::event last = down.enqueue_read_buffer_async(set.statuses, 0, n * sizeof(cz::block_status), dense.data() + first,
                                                             bcm::wait_list(ran[k]));
            ++transfers;
            // The raw/RLE bytes the host wants, in runs contiguous both in host staging and in
            // the device buffer (one copy each).
            const auto contiguous = [&](std::size_t p, std::size_t q) {
                const auto &a = *plan.blocks[plan.dispatched[p]], &c = *plan.blocks[plan.dispatched[q]];
                const auto &da = batch.blocks[p - first], &dc = batch.blocks[q - first];
                return a.output_offset + a.output_capacity == c.output_offset &&
                       std::uint64_t{da.output_offset} + da.output_size == dc.output_offset;
            };
            for (std::size_t p = first; p < first + n;) {
                if (!plan.read_back[p] || batch.blocks[p - first].output_size == 0) {
                    ++p;
                    continue;
                }
                std::size_t q = p + 1;
                while (q < first + n && plan.read_back[q] && contiguous(q - 1, q)) ++q;
                const auto &d0 = batch.blocks[p - first], &dl = batch.blocks[q - 1 - first];
                const std::uint64_t bytes = std::uint64_t{dl.output_offset} + dl.output_size - d0.output_offset;
                last = down.enqueue_read_buffer_async(b.output, d0.output_offset, bytes,
                                                      staging.data() + plan.blocks[plan.dispatched[p]]->output_offset);
                ++transfers;
                p = q;
            }
            done[k] = last;
        });
        // Cross-queue waits only resolve once the commands waited on are submitted.
        runtime::detail::cl_call("clFlush", [&] {
            up.flush();
            run->queue().flush();
            down.flush();
        });
    }

    // Whether batch k is back (statuses and bytes); throws when a command of it failed.
    bool complete(std::size_t k) {
        for (bcm::event* e : {&ran[k], &done[k]}) {
            const cl_int s = runtime::detail::cl_call("clGetEventInfo", [&] { return e->status(); });
            if (s < 0)
                throw error("compression.zstd: a device command of batch " + std::to_string(k) + " failed (status " +
                            std::to_string(s) + ")");
        }
        return runtime::detail::cl_call("clGetEventInfo", [&] { return done[k].status(); }) == CL_COMPLETE;
    }

    // Statuses of compressed blocks stay at their preset {4, 0} for the host pass.
    void publish(std::size_t k) {
        const cz::block_batch& batch = plan.batches[k];
        for (std::size_t p = batch.first_extent; p < batch.first_extent + batch.blocks.size(); ++p) {
            const std::size_t i = plan.dispatched[p];
            answers[i] = dense[p];
            if (zstd_plain(*plan.blocks[i])) statuses[i] = dense[p];
        }
    }

    void finish() {
        for (bcm::command_queue* q : {&up, run ? &run->queue() : nullptr, &down, &result})
            if (q && q->get()) zstd_wait_idle(*q);
    }
};

inline void zstd_check_dictionary(const fmt::zstd_frame& f) {
    if (f.dictionary_id != 0)
        throw format_error("zstd: frame needs dictionary " + std::to_string(f.dictionary_id) +
                               "; decoding with dictionaries is not supported",
                           f.offset + 4);
}

// The content size and checksum checks of format::detail::zstd_check_frame, same words, for
// frames whose bytes are hashed as they are made rather than from one finished buffer.
inline void zstd_check_size(const fmt::zstd_frame& f, std::uint64_t size) {
    if (f.content_size && *f.content_size != size)
        throw format_error("zstd: frame declares " + std::to_string(*f.content_size) + " content bytes but decodes to " +
                               std::to_string(size),
                           f.offset);
}

inline void zstd_check_digest(const fmt::zstd_frame& f, XXH64_state_t& hash) {
    if (!f.checksum) return;
    const auto computed = static_cast<std::uint32_t>(XXH64_digest(&hash));
    if (computed != *f.checksum)
        throw format_error("zstd: content checksum mismatch: stored " + fmt::detail::zstd_hex(*f.checksum) + ", computed " +
                               fmt::detail::zstd_hex(computed),
                           f.checksum_offset);
}

// Hashes a raw or RLE block's content from the input: raw bytes as they are, an RLE run through
// a small buffer that stays in cache (nothing is written where the output goes).
struct zstd_plain_hasher {
    std::array<std::uint8_t, 4096> run{};
    void add(XXH64_state_t& hash, std::span<const std::uint8_t> data, const fmt::zstd_block& b) {
        const std::uint32_t n = *b.regenerated_size;
        if (b.type == fmt::zstd_block_type::raw) {
            XXH64_update(&hash, data.data() + b.content_offset(), n);
            return;
        }
        run.fill(data[b.content_offset()]);
        for (std::uint32_t left = n; left != 0;) {
            const std::uint32_t step = std::min<std::uint32_t>(left, run.size());
            XXH64_update(&hash, run.data(), step);
            left -= step;
        }
    }
};

// The statuses of a frame's raw/RLE blocks from `first` on, after the host pass has what it needs
// of the frame: a block the device made as promised is final in device staging; any other is
// regenerated into host staging at its slot (the frame is exact: device frames always, split
// frames by choice) and counted as redone, to be uploaded with the host's bytes (device target)
// or to stand in host staging (host target).
template <class Wait>
void zstd_take_device_blocks(std::span<const std::uint8_t> data, const fmt::zstd_frame& f, std::size_t first,
                             std::span<const cz::block_status> statuses, std::span<std::uint8_t> staging, Wait&& wait,
                             fmt::zstd_decode_stats& stats) {
    for (std::size_t i = first; i < f.blocks.size(); ++i) {
        const fmt::zstd_block& b = f.blocks[i];
        if (b.type == fmt::zstd_block_type::compressed) continue;
        wait(f.first_block + i);
        const std::uint32_t n = *b.regenerated_size;
        if (fmt::detail::zstd_device_done(b, statuses[f.first_block + i])) {
            ++stats.device_blocks;
            stats.device_bytes += n;
        } else {
            fmt::detail::zstd_redo_plain(data, b, staging.subspan(b.output_offset, b.output_capacity));
            ++stats.cpu_blocks;
            stats.cpu_bytes += n;
            ++stats.redone_blocks;
        }
    }
}

// Step 3 for a device frame: nothing of it needs to come back. The checksum is computed from the
// input first (no waiting: the raw bytes and RLE runs are what the device copies), then the
// statuses are checked.
template <class Wait>
fmt::detail::zstd_frame_outcome zstd_check_device_frame(std::span<const std::uint8_t> data, const fmt::zstd_frame& f,
                                                        std::span<const cz::block_status> statuses,
                                                        std::span<std::uint8_t> staging, Wait&& wait) {
    zstd_check_dictionary(f);
    fmt::detail::zstd_frame_outcome out;
    out.stats.frames = 1;
    for (const auto& b : f.blocks) out.size += *b.regenerated_size;
    // The parser already checked the declared size against the raw/RLE sizes; checked again here
    // so that this path and the host path reject the same frames.
    zstd_check_size(f, out.size);
    if (f.checksum) {
        XXH64_state_t hash;
        XXH64_reset(&hash, 0);
        zstd_plain_hasher hasher;
        for (const auto& b : f.blocks) hasher.add(hash, data, b);
        zstd_check_digest(f, hash);
    }
    zstd_take_device_blocks(data, f, 0, statuses, staging, wait, out.stats);
    return out;
}

// Step 3 for a split frame (device target, exact layout). The host needs the frame's bytes only
// up to its last compressed block, as history for that block's matches: it decodes that prefix
// with the block API, making the raw/RLE blocks in it from the input (memcpy/memset), hashing each
// block while it is in cache. The raw/RLE blocks after it are hashed from the input like a device
// frame's and never written on the host, whose memory bandwidth the prefix-free part would
// otherwise cost. Then the statuses of every raw/RLE block are taken. The checks and their
// messages are the block path's (format/zstd_decompress.hpp).
template <class Wait>
fmt::detail::zstd_frame_outcome zstd_decode_split_frame(ZSTD_DCtx* dctx, std::span<const std::uint8_t> data,
                                                        const fmt::zstd_frame& f, std::span<const cz::block_status> statuses,
                                                        std::span<std::uint8_t> staging, Wait&& wait) {
    zstd_check_dictionary(f);
    fmt::detail::zstd_frame_outcome out;
    out.stats.frames = 1;
    std::size_t tail = 0; // the first block after the last compressed one
    for (std::size_t i = 0; i < f.blocks.size(); ++i)
        if (f.blocks[i].type == fmt::zstd_block_type::compressed) tail = i + 1;
    XXH64_state_t hash;
    XXH64_reset(&hash, 0);
    ZSTD_decompressBegin(dctx);
    std::uint8_t* const base = staging.data();
    std::uint64_t w = f.output_offset;
    for (std::size_t i = 0; i < tail; ++i) {
        const fmt::zstd_block& b = f.blocks[i];
        std::size_t n = 0;
        if (b.type == fmt::zstd_block_type::compressed) {
            n = fmt::detail::zstd_decode_compressed(dctx, data, b, f.block_maximum_size, base + w,
                                                    b.output_offset + b.output_capacity - w);
            ++out.stats.cpu_blocks;
            out.stats.cpu_bytes += n;
        } else {
            // The parser checked the header against the content. A compressed block never
            // writes past its slot, so w is at or before this block's slot (before it only when
            // that block fell short, which the size check below reports).
            n = *b.regenerated_size;
            if (b.type == fmt::zstd_block_type::raw) std::memcpy(base + w, data.data() + b.content_offset(), n);
            else std::memset(base + w, data[b.content_offset()], n);
            if (n != 0) ZSTD_insertBlock(dctx, base + w, n);
        }
        if (f.checksum) XXH64_update(&hash, base + w, n);
        w += n;
    }
    out.size = w - f.output_offset;
    zstd_plain_hasher hasher;
    for (std::size_t i = tail; i < f.blocks.size(); ++i) {
        out.size += *f.blocks[i].regenerated_size;
        if (f.checksum) hasher.add(hash, data, f.blocks[i]);
    }
    zstd_check_size(f, out.size);
    zstd_check_digest(f, hash);
    zstd_take_device_blocks(data, f, 0, statuses, staging, wait, out.stats);
    return out;
}

struct zstd_pass_result {
    std::vector<fmt::detail::zstd_frame_outcome> frames;
    std::vector<cz::block_status> statuses; // the device's answers, every block ({4, 0} where not dispatched)
    zstd_report report;
};

// Blocks a frame's bytes come from the host for: compressed blocks, blocks of host frames (never
// dispatched: their preset status is {4, 0}), and raw/RLE blocks the device did not regenerate
// as promised (for a split frame, the host's bytes of such a block sit at its slot: the frame
// is exact).
inline bool zstd_host_made(const zstd_plan& plan, std::span<const cz::block_status> statuses, std::size_t i) {
    return !zstd_plain(*plan.blocks[i]) || !fmt::detail::zstd_device_done(*plan.blocks[i], statuses[i]);
}

// A frame that filled its staging slots exactly is final in device staging once its host-made
// blocks are uploaded there.
inline bool zstd_exact(const fmt::zstd_frame& f, const fmt::detail::zstd_frame_outcome& o) {
    return !o.failure && o.size == f.output_capacity;
}

// Device target: the host-made blocks of exact frames, uploaded into device staging (where the
// device already wrote the rest of those frames) in few large copies: runs are collected until
// enough bytes are pending, then sorted and merged (one enqueue costs microseconds of driver time,
// and a 64 KiB frame may be all there is between two device-made blocks).
struct zstd_uploader {
    bcm::command_queue& queue;
    const zstd_plan& plan;
    std::span<const cz::block_status> statuses;
    std::span<const std::uint8_t> staging;
    bcm::buffer& device_staging;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pending{}; // [begin, end) in staging
    std::uint64_t pending_bytes = 0;
    std::size_t transfers = 0;
    static constexpr std::uint64_t flush_bytes = std::uint64_t{16} << 20;

    void add(const fmt::zstd_frame& f) {
        const std::size_t end = f.first_block + f.blocks.size();
        for (std::size_t i = f.first_block; i < end;) {
            if (!zstd_host_made(plan, statuses, i) || plan.blocks[i]->output_capacity == 0) {
                ++i;
                continue;
            }
            std::size_t j = i + 1;
            while (j < end && zstd_host_made(plan, statuses, j)) ++j; // a frame's slots follow each other
            const auto* last = plan.blocks[j - 1];
            pending.emplace_back(plan.blocks[i]->output_offset, last->output_offset + last->output_capacity);
            pending_bytes += pending.back().second - pending.back().first;
            i = j;
        }
        if (pending_bytes >= flush_bytes) flush();
    }
    void flush() {
        std::sort(pending.begin(), pending.end());
        for (std::size_t i = 0; i < pending.size();) {
            std::uint64_t begin = pending[i].first, end = pending[i].second;
            for (++i; i < pending.size() && pending[i].first == end; ++i) end = pending[i].second;
            zstd_upload(queue, device_staging, begin, staging.data() + begin, end - begin);
            ++transfers;
        }
        runtime::detail::cl_call("clFlush", [&] { queue.flush(); });
        pending.clear();
        pending_bytes = 0;
    }
};

// Steps 2 and 3 (and, for the device target, the uploads of step 4 that can start early).
// `staging` is host memory of at least file.staging_size bytes; `device_staging` (device target)
// a device buffer of file.staging_size bytes, rounded up to words.
inline zstd_pass_result zstd_run_passes(runtime::context& ctx, std::span<const std::uint8_t> data, const zstd_plan& plan,
                                        const zstd_options& options, std::span<std::uint8_t> staging,
                                        bcm::buffer& device_staging) {
    const fmt::zstd_file& file = *plan.file;
    const zstd_target target = plan.target;
    const std::size_t frames = file.frames.size();
    zstd_pass_result r;
    r.frames.resize(frames);
    r.statuses.assign(file.block_count, cz::block_status{cz::zstd_error::unsupported_compressed_block, 0});
    std::vector<cz::block_status> statuses = r.statuses;
    std::vector<std::promise<void>> ready(plan.batches.size());
    std::vector<std::shared_future<void>> futures;
    futures.reserve(ready.size());
    for (auto& p : ready) futures.push_back(p.get_future().share());

    // Host and split frames go first: they decode without waiting (a split frame waits only for
    // its statuses, at its end), and by the time the pool reaches the others, their batches are back.
    std::vector<std::size_t> order;
    order.reserve(frames);
    const auto decodes_first = [&](std::size_t k) {
        return plan.paths[k] == zstd_frame_path::host || plan.paths[k] == zstd_frame_path::split;
    };
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t k = 0; k < frames; ++k)
            if (decodes_first(k) == (pass == 0)) order.push_back(k);

    // Frames finished by the pool, for the uploads of the device target.
    std::mutex done_lock;
    std::condition_variable done_cv;
    std::vector<std::size_t> done;

    using clock = std::chrono::steady_clock;
    std::atomic<std::int64_t> waited_ns{0};
    std::atomic<std::size_t> next{0};
    auto worker = [&, futures] { // each thread waits through its own copies of the futures
        fmt::detail::zstd_dctx_ptr dctx;
        const auto wait = [&](std::size_t block) {
            const std::uint32_t k = plan.batch_index[block];
            if (k == zstd_plan::no_batch) return;
            const auto& f = futures[k];
            if (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
                const auto t0 = clock::now();
                f.wait();
                waited_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t0).count();
            }
            f.get();
        };
        for (std::size_t n; (n = next.fetch_add(1)) < frames;) {
            const std::size_t k = order[n];
            try {
                const fmt::zstd_frame& f = file.frames[k];
                switch (plan.paths[k]) {
                case zstd_frame_path::host:
                    if (!dctx) dctx = fmt::detail::zstd_make_frame_dctx();
                    r.frames[k] = fmt::detail::zstd_decode_frame(dctx.get(), data, f, staging);
                    break;
                case zstd_frame_path::split:
                    if (!dctx) dctx = fmt::detail::zstd_make_frame_dctx();
                    r.frames[k] = zstd_decode_split_frame(dctx.get(), data, f, statuses, staging, wait);
                    break;
                case zstd_frame_path::hybrid:
                    if (!dctx) dctx = fmt::detail::zstd_make_frame_dctx();
                    r.frames[k] = fmt::detail::zstd_finish_frame(dctx.get(), data, f, statuses, staging, wait);
                    break;
                case zstd_frame_path::device:
                    r.frames[k] = zstd_check_device_frame(data, f, statuses, staging, wait);
                    break;
                }
            } catch (...) {
                r.frames[k].failure = std::current_exception();
            }
            if (target == zstd_target::device) {
                {
                    std::lock_guard<std::mutex> g(done_lock);
                    done.push_back(k);
                }
                done_cv.notify_one();
            }
        }
    };
    const unsigned hw = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t n_threads = std::min<std::size_t>(hw, frames);
    std::exception_ptr device_failure;
    const auto started = clock::now();
    std::size_t transfers = 0;
    {
        std::vector<std::jthread> pool;
        for (std::size_t t = 0; t < n_threads; ++t) pool.emplace_back(worker);
        // This thread drives the device while the pool works; it sleeps while the device runs.
        try {
            zstd_device_pass pass(ctx, data, plan, staging, device_staging, statuses, r.statuses);
            pass.start(options);
            for (std::size_t k = 0; k < plan.batches.size(); ++k) pass.enqueue(k);
            std::optional<zstd_uploader> up;
            if (target == zstd_target::device) up.emplace(zstd_uploader{pass.result, plan, r.statuses, staging, device_staging});
            std::size_t published = 0, handled = 0;
            for (;;) {
                while (published < plan.batches.size() && pass.complete(published)) {
                    pass.publish(published);
                    ready[published].set_value();
                    if (++published == plan.batches.size())
                        r.report.device_seconds = std::chrono::duration<double>(clock::now() - started).count();
                }
                if (up) { // then it uploads each exact frame's host-made blocks as frames are done
                    std::vector<std::size_t> batch;
                    {
                        std::lock_guard<std::mutex> g(done_lock);
                        batch.swap(done);
                    }
                    for (std::size_t k : batch)
                        if (zstd_exact(file.frames[k], r.frames[k])) up->add(file.frames[k]);
                    handled += batch.size();
                }
                if (published == plan.batches.size() && (!up || handled == frames)) break;
                if (up) {
                    std::unique_lock<std::mutex> g(done_lock);
                    done_cv.wait_for(g, std::chrono::microseconds(50), [&] { return !done.empty(); });
                } else {
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                }
            }
            if (up) {
                up->flush();
                transfers += up->transfers;
            }
            pass.finish();
            transfers += pass.transfers;
        } catch (...) {
            device_failure = std::current_exception();
            for (auto& p : ready) {
                try {
                    p.set_exception(device_failure);
                } catch (const std::future_error&) { // already satisfied
                }
            }
        }
    }
    r.report.host_seconds = std::chrono::duration<double>(clock::now() - started).count();
    r.report.wait_seconds = double(waited_ns.load()) * 1e-9;
    r.report.transfers = transfers;
    if (device_failure) std::rethrow_exception(device_failure);
    for (const auto& o : r.frames)
        if (o.failure) std::rethrow_exception(o.failure);

    r.report.blocks = file.block_count;
    r.report.dispatched_blocks = plan.dispatched.size();
    r.report.batches = plan.batches.size();
    r.report.input_bytes = data.size();
    r.report.device_input_bytes = plan.packed_bytes;
    r.report.staging_bytes = file.staging_size;
    r.report.split.skippable_frames = file.skippable_frames.size();
    r.report.frame_path = plan.paths;
    for (zstd_frame_path p : plan.paths) {
        switch (p) {
        case zstd_frame_path::device: ++r.report.paths.device; break;
        case zstd_frame_path::hybrid: ++r.report.paths.hybrid; break;
        case zstd_frame_path::host: ++r.report.paths.host; break;
        case zstd_frame_path::split: ++r.report.paths.split; break;
        }
    }
    r.report.frame_bytes.reserve(r.frames.size());
    for (const auto& o : r.frames) {
        r.report.split += o.stats;
        r.report.output_bytes += o.size;
        r.report.frame_bytes.push_back(o.size);
    }
    // The host pass read the preset {4, 0} for compressed blocks; a different device answer means
    // the device did not do what the op promises (the block was decoded on the host regardless).
    for (std::size_t i = 0; i < plan.blocks.size(); ++i)
        if (!zstd_plain(*plan.blocks[i]) && r.statuses[i].code != cz::zstd_error::unsupported_compressed_block)
            ++r.report.split.redone_blocks;
    return r;
}

// Step 4 of the device target. Exact frames are already complete in device staging; when every
// frame is exact, that buffer is the output. Otherwise frames are gathered into a new buffer:
// exact ones by device copies, the others (never device frames: a frame without compressed
// blocks is exact) uploaded from where the host pass rebuilt them.
inline bcm::buffer zstd_assemble_on_device(runtime::context& ctx, const zstd_plan& plan, const zstd_pass_result& r,
                                           std::span<const std::uint8_t> staging, bcm::buffer& device_staging) {
    const fmt::zstd_file& file = *plan.file;
    bool all_exact = true;
    for (std::size_t k = 0; k < file.frames.size(); ++k) all_exact = all_exact && zstd_exact(file.frames[k], r.frames[k]);
    if (all_exact) return device_staging;
    auto out = runtime::allocate(ctx, cz::zstd_padded_bytes(r.report.output_bytes));
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        const fmt::zstd_frame& f = file.frames[k];
        const std::uint64_t size = r.frames[k].size;
        if (zstd_exact(f, r.frames[k])) {
            if (size != 0)
                runtime::detail::cl_call("clEnqueueCopyBuffer",
                                         [&] { ctx.queue().enqueue_copy_buffer(device_staging, out, f.output_offset, at, size); });
        } else {
            zstd_upload(ctx.queue(), out, at, staging.data() + f.output_offset, size);
        }
        at += size;
    }
    zstd_wait_idle(ctx);
    return out;
}

inline void zstd_pack_on_host(const fmt::zstd_file& file, const zstd_pass_result& r, std::span<std::uint8_t> staging) {
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        const fmt::zstd_frame& f = file.frames[k];
        // Left to right never overwrites a frame not yet moved: each frame fits in its region.
        if (f.output_offset != at) std::memmove(staging.data() + at, staging.data() + f.output_offset, r.frames[k].size);
        at += r.frames[k].size;
    }
}

inline fmt::zstd_file zstd_parse(std::span<const std::uint8_t> file, const zstd_options& options) {
    fmt::zstd_parse_options p;
    p.max_output_size = options.max_output_bytes;
    return fmt::parse_zstd(file, p);
}

} // namespace detail

// Decodes into caller memory: `parsed` is format::parse_zstd(file) and staging has room for
// parsed.staging_size bytes; on return staging[0, report.output_bytes) is the decompressed file.
// Staging in pinned host memory (runtime::pinned_host_buffer) makes the readback run at DMA speed,
// as does a file held there for the upload. Device memory is used only for the dispatched
// blocks' batches (three sets at the largest batch), none when every frame is a host frame.
inline zstd_report decompress_zstd_into(runtime::context& ctx, std::span<const std::uint8_t> file,
                                        const format::zstd_file& parsed, std::span<std::uint8_t> staging,
                                        const zstd_options& options = {}) {
    if (staging.size() < parsed.staging_size)
        throw resource_error("decompress_zstd_into: staging of " + std::to_string(staging.size()) + " bytes, the layout needs " +
                             std::to_string(parsed.staging_size));
    if (!parsed.frames.empty() && parsed.frames.back().offset + parsed.frames.back().size > file.size())
        throw error("decompress_zstd_into: the parsed frames extend past the " + std::to_string(file.size()) + "-byte file");
    const auto plan = detail::make_zstd_plan(ctx, parsed, options, detail::zstd_target::host);
    boost::compute::buffer no_device_staging;
    const auto r = detail::zstd_run_passes(ctx, file, plan, options, staging, no_device_staging);
    detail::zstd_pack_on_host(parsed, r, staging);
    return r.report;
}

// Decodes a whole .zst file (frames, skippable frames, concatenated) into host memory.
inline zstd_result decompress_zstd(runtime::context& ctx, std::span<const std::uint8_t> file, const zstd_options& options = {}) {
    const format::zstd_file parsed = detail::zstd_parse(file, options);
    zstd_result result;
    result.bytes.resize(static_cast<std::size_t>(parsed.staging_size));
    result.report = decompress_zstd_into(ctx, file, parsed, result.bytes, options);
    result.bytes.resize(static_cast<std::size_t>(result.report.output_bytes));
    return result;
}

// Decodes a whole .zst file into device memory. The host needs scratch memory for the frames it
// decodes (host and hybrid frames, and blocks it redoes): `scratch` of at least
// format::parse_zstd(file).staging_size bytes, reused across calls, in pinned host memory for DMA
// speed; empty: allocated here (pageable). Nothing else comes back from the device.
inline zstd_device_result decompress_zstd_to_device(runtime::context& ctx, std::span<const std::uint8_t> file,
                                                    const zstd_options& options = {}, std::span<std::uint8_t> scratch = {}) {
    const format::zstd_file parsed = detail::zstd_parse(file, options);
    const auto plan = detail::make_zstd_plan(ctx, parsed, options, detail::zstd_target::device);
    auto device_staging = runtime::allocate(ctx, ops::compression::zstd_padded_bytes(parsed.staging_size));
    std::unique_ptr<std::uint8_t[]> owned;
    if (scratch.empty() && parsed.staging_size != 0) {
        // Uninitialised: only the slots of host-decoded frames and redone blocks are ever touched.
        owned = std::make_unique_for_overwrite<std::uint8_t[]>(static_cast<std::size_t>(parsed.staging_size));
        scratch = {owned.get(), static_cast<std::size_t>(parsed.staging_size)};
    }
    if (scratch.size() < parsed.staging_size)
        throw resource_error("decompress_zstd_to_device: scratch of " + std::to_string(scratch.size()) +
                             " bytes, the layout needs " + std::to_string(parsed.staging_size));
    const auto r = detail::zstd_run_passes(ctx, file, plan, options, scratch, device_staging);
    zstd_device_result result;
    result.output = detail::zstd_assemble_on_device(ctx, plan, r, scratch, device_staging);
    result.output_bytes = r.report.output_bytes;
    result.report = r.report;
    return result;
}

} // namespace vyre::engine
