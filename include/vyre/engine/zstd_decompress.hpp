// Whole .zst files through compression.zstd: the seed's hybrid pipeline. Raw and RLE blocks are
// regenerated on the device, compressed blocks on the host (libzstd's block API), and the result
// lands in host memory or stays in device memory.
#pragma once

// What runs where, in order:
//
//   1. host    format::parse_zstd lists every block of every frame and gives each a staging slot
//              (format/zstd_frame.hpp). Nothing is decoded.
//   2. device  ALL blocks of all frames go to compression.zstd, one dispatch per batch (batches cut
//              the input into windows of options.batch_input_bytes, so that the host can start
//              on the first frames while later input is still uploading). Raw and RLE blocks are
//              written into one device staging buffer at their slots; compressed blocks answer
//              unsupported_compressed_block (code 4) and write nothing.
//   3. host    Meanwhile every frame is finished on the host, frames in parallel on all cores
//              (format/zstd_decompress.hpp): compressed blocks are decoded with the window
//              history they need, the device's raw/RLE bytes (read back slot by slot) are
//              inserted into that history, content sizes and XXH64 checksums are verified. A
//              frame waits for the device only when it reaches a raw or RLE block, and only for
//              that block's batch (frames that never wait are handed out first). Any raw/RLE
//              block whose device status is not {0, its size} is regenerated on the host (counted
//              in redone_blocks). The driving thread sleeps while the device works: every core
//              belongs to the host pass.
//   4. output  Host target: frames are packed to the front of the staging memory. Device
//              target: as each frame is finished, the bytes the host made for it are uploaded
//              into device staging (overlapping the host pass); when every frame filled its slots
//              exactly (the usual case: encoders declare the content size), that buffer is the
//              output, otherwise frames are gathered into a new one. Only host-made bytes cross
//              PCIe towards the device, and a frame with no compressed block never comes back to
//              the host: its checksum is computed from the raw bytes and RLE runs of the input,
//              which are what the device copied.
//
// Output equals ZSTD_decompress's byte for byte on every input ZSTD_decompress accepts (up to the
// dictionary and window limits of format::parse_zstd); anything malformed is a format_error that
// names the byte offset.

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
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace vyre::engine {

struct zstd_options {
    // automatic: the cooperative program on GPUs, the seed's on CPU devices (ops::compression::resolve).
    ops::compression::zstd_variant variant = ops::compression::zstd_variant::automatic;
    // Input bytes of one dispatch (also lowered to the device's largest allocation): smaller
    // batches let the host start sooner, larger ones launch fewer kernels.
    std::uint64_t batch_input_bytes = std::uint64_t{64} << 20;
    // The staging layout may ask for at most this much memory (hostile files regenerate up to
    // 32768 bytes per input byte): above it, resource_error before anything is allocated.
    std::uint64_t max_output_bytes = std::uint64_t{16} << 30;
    // Threads of the host pass; 0: all hardware threads.
    unsigned threads = 0;
};

// Who did what. split.device_*: raw/RLE blocks whose device result was kept; split.cpu_*:
// compressed blocks plus any block the host had to redo (also counted in split.redone_blocks).
struct zstd_report {
    format::zstd_decode_stats split;
    std::size_t blocks = 0;
    std::size_t batches = 0; // dispatches of compression.zstd
    std::uint64_t input_bytes = 0;
    std::uint64_t output_bytes = 0;
    std::uint64_t staging_bytes = 0;
    // Where the time went (wall clock): the dispatches and their transfers, the host pass (frames
    // in parallel, overlapping the device), and how long its threads waited for the device in all.
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

enum class zstd_target { host, device };

inline bool zstd_plain(const fmt::zstd_block& b) { return b.type != fmt::zstd_block_type::compressed; }

// What one run needs to know about the file, computed once.
struct zstd_plan {
    const fmt::zstd_file* file = nullptr;
    std::vector<const fmt::zstd_block*> blocks; // every block, in file order (status order)
    std::vector<char> host_frame;               // frames the host rebuilds from host staging
    std::vector<cz::block_batch> batches;
    bool shared_output = true;                  // every batch writes one device staging buffer

    std::size_t batch_of(std::size_t block) const {
        const auto it = std::upper_bound(batches.begin(), batches.end(), block,
                                         [](std::size_t i, const cz::block_batch& b) { return i < b.first_extent; });
        return static_cast<std::size_t>(it - batches.begin()) - 1;
    }
};

inline zstd_plan make_zstd_plan(runtime::context& ctx, const fmt::zstd_file& file, const zstd_options& options,
                                zstd_target target) {
    zstd_plan plan;
    plan.file = &file;
    plan.blocks.reserve(file.block_count);
    for (const auto& f : file.frames) {
        for (const auto& b : f.blocks) plan.blocks.push_back(&b);
        plan.host_frame.push_back(target == zstd_target::host || f.compressed_blocks() != 0);
    }
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    const std::uint64_t device_max = ctx.device().max_allocation / 4 * 4;
    plan.shared_output = file.staging_size <= u32_max && cz::zstd_padded_bytes(file.staging_size) <= device_max;
    if (!plan.shared_output && target == zstd_target::device)
        throw resource_error("compression.zstd: a device-resident result of " + std::to_string(file.staging_size) +
                             " staging bytes exceeds one device buffer (at most 2^32-1 bytes and the device's largest "
                             "allocation of " + std::to_string(device_max) + "); decode to host memory instead");
    const auto extents = fmt::zstd_block_extents(file);
    std::uint64_t largest_block = 1; // a batch holds at least one block, however small the option
    for (const auto& e : extents) largest_block = std::max<std::uint64_t>(largest_block, e.input_size);
    cz::batch_limits limits;
    limits.max_input_bytes = std::min({std::max(options.batch_input_bytes, largest_block), device_max, u32_max});
    limits.max_output_bytes = plan.shared_output ? u32_max : std::min(device_max, u32_max);
    // The cooperative program launches up to 8 slices of 256 invocations per block: 2^21 blocks
    // stay below 2^32 invocations.
    limits.max_blocks = std::size_t{1} << 21;
    plan.batches = cz::make_block_batches(extents, limits);
    return plan;
}

// Contiguous runs of slots: calls f(first block, end block) for each maximal run of consecutive
// blocks in [begin, end) that `keep` selects and whose slots follow each other.
template <class Keep, class F>
void zstd_slot_runs(const zstd_plan& plan, std::size_t begin, std::size_t end, Keep&& keep, F&& f) {
    std::size_t i = begin;
    while (i < end) {
        if (!keep(i) || plan.blocks[i]->output_capacity == 0) {
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        while (j < end && keep(j) && plan.blocks[j - 1]->output_offset + plan.blocks[j - 1]->output_capacity ==
                                         plan.blocks[j]->output_offset)
            ++j;
        f(i, j);
        i = j;
    }
}

// Waits for everything enqueued so far without keeping a core busy (a driver's clFinish may spin,
// and every core belongs to the host pass meanwhile).
inline void zstd_wait_idle(runtime::context& ctx) {
    auto& q = ctx.queue();
    boost::compute::event marker = runtime::detail::cl_call("clEnqueueMarkerWithWaitList", [&] { return q.enqueue_marker(); });
    runtime::detail::cl_call("clFlush", [&] { q.flush(); });
    for (;;) {
        const cl_int status = runtime::detail::cl_call("clGetEventInfo", [&] { return marker.status(); });
        if (status == CL_COMPLETE) return;
        if (status < 0) {
            ctx.finish(); // reports the failed command's error
            throw error("compression.zstd: a device command failed (status " + std::to_string(status) + ")");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

// Step 2, on the calling thread: one dispatch per batch; after each, the batch's statuses are
// published to the host pass (statuses of compressed blocks stay at their preset {4, 0}) and its
// waiters released.
struct zstd_device_pass {
    runtime::context& ctx;
    std::span<const std::uint8_t> data;
    const zstd_plan& plan;
    const cz::zstd_kernel& kernel;
    zstd_target target;
    std::span<std::uint8_t> staging;             // host staging
    boost::compute::buffer& device_staging;      // shared device staging (when plan.shared_output)
    std::vector<cz::block_status>& statuses;     // what the host pass reads
    std::vector<cz::block_status>& device_statuses;
    std::vector<std::promise<void>>& ready;
    std::size_t transfers = 0;

    void run() {
        for (std::size_t k = 0; k < plan.batches.size(); ++k) {
            batch(plan.batches[k]);
            ready[k].set_value();
        }
    }

    void batch(const cz::block_batch& batch) {
        namespace bcm = boost::compute;
        auto& q = ctx.queue();
        const std::size_t n = batch.blocks.size();
        std::vector<cz::block_descriptor> descriptors = batch.blocks;
        std::uint64_t out_base = batch.output_base; // staging offset of the bound output's byte 0
        cz::zstd_device_blocks b;
        if (plan.shared_output) {
            for (auto& d : descriptors) d.output_offset += static_cast<std::uint32_t>(batch.output_base);
            out_base = 0;
            b.output = device_staging;
            b.output_bytes = plan.file->staging_size;
        } else {
            b.output = runtime::allocate(ctx, cz::zstd_padded_bytes(batch.output_bytes));
            b.output_bytes = batch.output_bytes;
        }
        b.input_bytes = batch.input_bytes;
        b.input = runtime::allocate(ctx, cz::zstd_padded_bytes(batch.input_bytes), CL_MEM_READ_ONLY);
        b.descriptors = runtime::allocate(ctx, n * sizeof(cz::block_descriptor), CL_MEM_READ_ONLY);
        b.statuses = runtime::allocate(ctx, n * sizeof(cz::block_status));
        b.block_count = static_cast<std::uint32_t>(n);
        std::uint32_t largest = 1;
        for (std::size_t i = batch.first_extent; i < batch.first_extent + n; ++i)
            if (zstd_plain(*plan.blocks[i])) largest = std::max(largest, plan.blocks[i]->output_capacity);
        b.largest_output = largest;
        runtime::detail::cl_call("clEnqueueWriteBuffer", [&] {
            if (batch.input_bytes != 0)
                q.enqueue_write_buffer_async(b.input, 0, batch.input_bytes, data.data() + batch.input_base);
            q.enqueue_write_buffer_async(b.descriptors, 0, n * sizeof(cz::block_descriptor), descriptors.data());
        });
        bcm::buffer params;
        cz::enqueue_zstd(ctx, kernel, b, params);
        runtime::detail::cl_call("clEnqueueReadBuffer", [&] {
            q.enqueue_read_buffer_async(b.statuses, 0, n * sizeof(cz::block_status), device_statuses.data() + batch.first_extent);
            transfers += 3;
            // The raw/RLE bytes the host pass needs, run by run.
            const auto wanted = [&](std::size_t i) {
                return zstd_plain(*plan.blocks[i]) && plan.host_frame[frame_of(i)];
            };
            zstd_slot_runs(plan, batch.first_extent, batch.first_extent + n, wanted, [&](std::size_t i, std::size_t j) {
                const auto* first = plan.blocks[i];
                const auto* last = plan.blocks[j - 1];
                const std::uint64_t bytes = last->output_offset + last->output_capacity - first->output_offset;
                q.enqueue_read_buffer_async(b.output, first->output_offset - out_base, bytes, staging.data() + first->output_offset);
                ++transfers;
            });
        });
        zstd_wait_idle(ctx);
        for (std::size_t i = batch.first_extent; i < batch.first_extent + n; ++i)
            if (zstd_plain(*plan.blocks[i])) statuses[i] = device_statuses[i];
    }

    std::size_t frame_of(std::size_t block) const {
        const auto& frames = plan.file->frames;
        const auto it = std::upper_bound(frames.begin(), frames.end(), block,
                                         [](std::size_t i, const fmt::zstd_frame& f) { return i < f.first_block; });
        return static_cast<std::size_t>(it - frames.begin()) - 1;
    }
};

// Step 3 for a frame of the device target without compressed blocks: nothing of it comes back.
// The statuses are checked, a failed block is redone into host staging (and uploaded later),
// and the content size and checksum are verified from the input's bytes.
template <class Wait>
fmt::detail::zstd_frame_outcome zstd_check_device_frame(std::span<const std::uint8_t> data, const fmt::zstd_frame& f,
                                                        std::span<const cz::block_status> statuses,
                                                        std::span<std::uint8_t> staging, Wait&& wait) {
    if (f.dictionary_id != 0)
        throw format_error("zstd: frame needs dictionary " + std::to_string(f.dictionary_id) +
                               "; decoding with dictionaries is not supported",
                           f.offset + 4);
    fmt::detail::zstd_frame_outcome out;
    out.stats.frames = 1;
    XXH64_state_t hash;
    XXH64_reset(&hash, 0);
    std::array<std::uint8_t, 4096> run{};
    for (std::size_t i = 0; i < f.blocks.size(); ++i) {
        const fmt::zstd_block& b = f.blocks[i];
        wait(f.first_block + i);
        const std::uint32_t n = *b.regenerated_size;
        if (fmt::detail::zstd_device_done(b, statuses[f.first_block + i])) {
            ++out.stats.device_blocks;
            out.stats.device_bytes += n;
        } else {
            fmt::detail::zstd_redo_plain(data, b, staging.subspan(b.output_offset, b.output_capacity));
            ++out.stats.cpu_blocks;
            out.stats.cpu_bytes += n;
            ++out.stats.redone_blocks;
        }
        out.size += n;
        if (!f.checksum) continue;
        if (b.type == fmt::zstd_block_type::raw) {
            XXH64_update(&hash, data.data() + b.content_offset(), n);
        } else {
            run.fill(data[b.content_offset()]);
            for (std::uint32_t left = n; left != 0;) {
                const std::uint32_t step = std::min<std::uint32_t>(left, run.size());
                XXH64_update(&hash, run.data(), step);
                left -= step;
            }
        }
    }
    // The parser already checked the declared size against the raw/RLE sizes; checked again here
    // so that this path and the host path reject the same frames.
    if (f.content_size && *f.content_size != out.size)
        throw format_error("zstd: frame declares " + std::to_string(*f.content_size) + " content bytes but decodes to " +
                               std::to_string(out.size),
                           f.offset);
    if (f.checksum) {
        const auto computed = static_cast<std::uint32_t>(XXH64_digest(&hash));
        if (computed != *f.checksum)
            throw format_error("zstd: content checksum mismatch: stored " + fmt::detail::zstd_hex(*f.checksum) +
                                   ", computed " + fmt::detail::zstd_hex(computed),
                               f.checksum_offset);
    }
    return out;
}

struct zstd_pass_result {
    std::vector<fmt::detail::zstd_frame_outcome> frames;
    std::vector<cz::block_status> statuses; // the device's answers, every block
    zstd_report report;
};

// Blocks a frame's bytes come from the host for: compressed blocks, and raw/RLE blocks the device
// did not regenerate as promised.
inline bool zstd_host_made(const zstd_plan& plan, std::span<const cz::block_status> statuses, std::size_t i) {
    return !zstd_plain(*plan.blocks[i]) || !fmt::detail::zstd_device_done(*plan.blocks[i], statuses[i]);
}

// A frame that filled its staging slots exactly is final in device staging once its host-made
// blocks are uploaded there.
inline bool zstd_exact(const fmt::zstd_frame& f, const fmt::detail::zstd_frame_outcome& o) {
    return !o.failure && o.size == f.output_capacity;
}

inline void zstd_upload(runtime::context& ctx, boost::compute::buffer& dst, std::uint64_t dst_offset, const std::uint8_t* src,
                        std::uint64_t bytes) {
    if (bytes == 0) return;
    runtime::detail::cl_call("clEnqueueWriteBuffer", [&] { ctx.queue().enqueue_write_buffer_async(dst, dst_offset, bytes, src); });
}

// Device target: the host-made blocks of exact frames, uploaded into device staging (where the
// device already wrote the rest of those frames) in few large copies: runs are collected until
// enough bytes are pending, then sorted and merged (one enqueue costs microseconds of driver time,
// and a 64 KiB frame may be all there is between two device-made blocks).
struct zstd_uploader {
    runtime::context& ctx;
    const zstd_plan& plan;
    std::span<const cz::block_status> statuses;
    std::span<const std::uint8_t> staging;
    boost::compute::buffer& device_staging;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pending; // [begin, end) in staging
    std::uint64_t pending_bytes = 0;
    std::size_t transfers = 0;
    static constexpr std::uint64_t flush_bytes = std::uint64_t{16} << 20;

    void add(const fmt::zstd_frame& f) {
        zstd_slot_runs(plan, f.first_block, f.first_block + f.blocks.size(),
                       [&](std::size_t i) { return zstd_host_made(plan, statuses, i); }, [&](std::size_t i, std::size_t j) {
                           const auto* last = plan.blocks[j - 1];
                           pending.emplace_back(plan.blocks[i]->output_offset, last->output_offset + last->output_capacity);
                           pending_bytes += pending.back().second - pending.back().first;
                       });
        if (pending_bytes >= flush_bytes) flush();
    }
    void flush() {
        std::sort(pending.begin(), pending.end());
        for (std::size_t i = 0; i < pending.size();) {
            std::uint64_t begin = pending[i].first, end = pending[i].second;
            for (++i; i < pending.size() && pending[i].first == end; ++i) end = pending[i].second;
            zstd_upload(ctx, device_staging, begin, staging.data() + begin, end - begin);
            ++transfers;
        }
        pending.clear();
        pending_bytes = 0;
    }
};

// Steps 2 and 3 (and, for the device target, the uploads of step 4 that can start early).
// `staging` is host memory of at least file.staging_size bytes; `device_staging` a device buffer
// of file.staging_size bytes (rounded up to words) when plan.shared_output.
inline zstd_pass_result zstd_run_passes(runtime::context& ctx, std::span<const std::uint8_t> data, const zstd_plan& plan,
                                        const zstd_options& options, zstd_target target, std::span<std::uint8_t> staging,
                                        boost::compute::buffer& device_staging) {
    const fmt::zstd_file& file = *plan.file;
    const std::size_t frames = file.frames.size();
    zstd_pass_result r;
    r.frames.resize(frames);
    r.statuses.assign(file.block_count, cz::block_status{cz::zstd_error::unsupported_compressed_block, 0});
    std::vector<cz::block_status> statuses = r.statuses;
    std::vector<std::promise<void>> ready(plan.batches.size());
    std::vector<std::shared_future<void>> futures;
    for (auto& p : ready) futures.push_back(p.get_future().share());

    // Frames that never wait for the device go first: by the time the pool reaches the others,
    // their batches are back.
    std::vector<std::size_t> order;
    order.reserve(frames);
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t k = 0; k < frames; ++k) {
            const auto& bl = file.frames[k].blocks;
            const bool waits = std::any_of(bl.begin(), bl.end(), [](const fmt::zstd_block& b) { return zstd_plain(b); });
            if (waits == (pass == 1)) order.push_back(k);
        }

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
            const auto& f = futures[plan.batch_of(block)];
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
                if (plan.host_frame[k]) {
                    if (!dctx) dctx = fmt::detail::zstd_make_dctx();
                    r.frames[k] = fmt::detail::zstd_finish_frame(dctx.get(), data, f, statuses, staging, wait);
                } else {
                    r.frames[k] = zstd_check_device_frame(data, f, statuses, staging, wait);
                }
            } catch (...) {
                r.frames[k].failure = std::current_exception();
            }
            {
                std::lock_guard<std::mutex> g(done_lock);
                done.push_back(k);
            }
            done_cv.notify_one();
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
        const auto& kernel = cz::zstd_kernel_for(cz::resolve(options.variant, ctx.device()));
        zstd_device_pass pass{ctx, data, plan, kernel, target, staging, device_staging, statuses, r.statuses, ready};
        try {
            pass.run();
            transfers += pass.transfers;
            r.report.device_seconds = std::chrono::duration<double>(clock::now() - started).count();
            if (target == zstd_target::device) {
                // Then it uploads each exact frame's host-made blocks as frames are done.
                zstd_uploader up{ctx, plan, r.statuses, staging, device_staging, {}, 0, 0};
                for (std::size_t handled = 0; handled < frames;) {
                    std::vector<std::size_t> batch;
                    {
                        std::unique_lock<std::mutex> g(done_lock);
                        done_cv.wait(g, [&] { return !done.empty(); });
                        batch.swap(done);
                    }
                    for (std::size_t k : batch)
                        if (zstd_exact(file.frames[k], r.frames[k])) up.add(file.frames[k]);
                    handled += batch.size();
                }
                up.flush();
                transfers += up.transfers;
            }
        } catch (...) {
            device_failure = std::current_exception();
            for (std::size_t k = 0; k < ready.size(); ++k) {
                try {
                    ready[k].set_exception(device_failure);
                } catch (const std::future_error&) { // already satisfied
                }
            }
        }
    }
    r.report.host_seconds = std::chrono::duration<double>(clock::now() - started).count();
    r.report.wait_seconds = double(waited_ns.load()) * 1e-9;
    r.report.transfers = transfers;
    if (target == zstd_target::device && !device_failure) {
        try {
            zstd_wait_idle(ctx);
        } catch (...) {
            device_failure = std::current_exception();
        }
    }
    if (device_failure) std::rethrow_exception(device_failure);
    for (const auto& o : r.frames)
        if (o.failure) std::rethrow_exception(o.failure);

    r.report.blocks = file.block_count;
    r.report.batches = plan.batches.size();
    r.report.input_bytes = data.size();
    r.report.staging_bytes = file.staging_size;
    r.report.split.skippable_frames = file.skippable_frames.size();
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

inline boost::compute::buffer zstd_device_staging(runtime::context& ctx, const zstd_plan& plan) {
    if (!plan.shared_output) return {};
    return runtime::allocate(ctx, cz::zstd_padded_bytes(plan.file->staging_size));
}

// Step 4 of the device target. Exact frames are already complete in device staging; when every
// frame is exact, that buffer is the output. Otherwise frames are gathered into a new buffer:
// exact ones by device copies, the others (always host frames: a frame without compressed blocks
// is exact) uploaded from where the host pass rebuilt them.
inline boost::compute::buffer zstd_assemble_on_device(runtime::context& ctx, const zstd_plan& plan, const zstd_pass_result& r,
                                                      std::span<const std::uint8_t> staging, boost::compute::buffer& device_staging) {
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
            zstd_upload(ctx, out, at, staging.data() + f.output_offset, size);
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
// as does a file held there for the upload.
inline zstd_report decompress_zstd_into(runtime::context& ctx, std::span<const std::uint8_t> file,
                                        const format::zstd_file& parsed, std::span<std::uint8_t> staging,
                                        const zstd_options& options = {}) {
    if (staging.size() < parsed.staging_size)
        throw resource_error("decompress_zstd_into: staging of " + std::to_string(staging.size()) + " bytes, the layout needs " +
                             std::to_string(parsed.staging_size));
    if (!parsed.frames.empty() && parsed.frames.back().offset + parsed.frames.back().size > file.size())
        throw error("decompress_zstd_into: the parsed frames extend past the " + std::to_string(file.size()) + "-byte file");
    const auto plan = detail::make_zstd_plan(ctx, parsed, options, detail::zstd_target::host);
    auto device_staging = detail::zstd_device_staging(ctx, plan);
    const auto r = detail::zstd_run_passes(ctx, file, plan, options, detail::zstd_target::host, staging, device_staging);
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
// decodes (frames with compressed blocks, and blocks it redoes): `scratch` of at least
// format::parse_zstd(file).staging_size bytes, reused across calls, in pinned host memory for DMA
// speed; empty: allocated here (pageable). Nothing else comes back from the device.
inline zstd_device_result decompress_zstd_to_device(runtime::context& ctx, std::span<const std::uint8_t> file,
                                                    const zstd_options& options = {}, std::span<std::uint8_t> scratch = {}) {
    const format::zstd_file parsed = detail::zstd_parse(file, options);
    const auto plan = detail::make_zstd_plan(ctx, parsed, options, detail::zstd_target::device);
    auto device_staging = detail::zstd_device_staging(ctx, plan);
    std::unique_ptr<std::uint8_t[]> owned;
    if (scratch.empty() && parsed.staging_size != 0) {
        // Uninitialised: only the slots of host-decoded frames and redone blocks are ever touched.
        owned = std::make_unique_for_overwrite<std::uint8_t[]>(static_cast<std::size_t>(parsed.staging_size));
        scratch = {owned.get(), static_cast<std::size_t>(parsed.staging_size)};
    }
    if (scratch.size() < parsed.staging_size)
        throw resource_error("decompress_zstd_to_device: scratch of " + std::to_string(scratch.size()) +
                             " bytes, the layout needs " + std::to_string(parsed.staging_size));
    const auto r = detail::zstd_run_passes(ctx, file, plan, options, detail::zstd_target::device, scratch, device_staging);
    zstd_device_result result;
    result.output = detail::zstd_assemble_on_device(ctx, plan, r, scratch, device_staging);
    result.output_bytes = r.report.output_bytes;
    result.report = r.report;
    return result;
}

} // namespace vyre::engine
