// engine::page_compressor: batches of 4 KiB pages compressed on the CPU (liblz4 on every core) or
// on the device (compression.lz4_pages), whichever a measurement on this machine says is faster for
// the batch's size; the device path overlaps upload, compression and readback of successive chunks.
#pragma once

#include <vyre/compression/pages.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/compression/lz4_pages.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/util/host_bytes.hpp>
#include <vyre/util/parallel.hpp>

#include <lz4.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace vyre::engine {

namespace cz = vyre::ops::compression;

enum class page_backend { automatic, cpu, device };

inline const char* page_backend_name(page_backend b) noexcept {
    switch (b) {
    case page_backend::automatic: return "automatic";
    case page_backend::cpu: return "cpu";
    case page_backend::device: return "device";
    }
    return "?";
}

struct page_compressor_options {
    page_backend backend = page_backend::automatic;
    // Device pipeline: pages per dispatch (0: page_compressor_chunk(batch)), and how many chunks
    // are in flight (each with its own queue and buffers; one on a CPU device), so that one
    // chunk's upload, another's kernel and a third's readback overlap.
    std::uint32_t chunk_pages = 0;
    unsigned in_flight = 3;
    // Invocations per page of compression.lz4_pages (32, 64 or 128: the same bytes).
    std::uint32_t workgroup = cz::lz4_pages_default_workgroup;
    // CPU path: threads (0: every core).
    unsigned threads = 0;
    // Record when each chunk's device steps ran (queues with profiling; page_compressor::timeline()).
    bool timeline = false;
};

// When one chunk's steps ran on the device, in milliseconds from the batch's first step (profiling
// events: the device's clock). [0] start, [1] end; readback: the records and the slots.
struct page_chunk_steps {
    std::size_t first = 0; // the chunk's first page
    std::uint32_t pages = 0;
    double upload[2]{}, kernel[2]{}, readback[2]{};
};

// The automatic chunk: a quarter of the batch, within 2,048 to 8,192 pages, chosen by measurement
// (doc/ops/compression.lz4_pages.md, "Pipeline"): below 2,048 pages a batch runs best as one chunk
// (smaller kernels leave most of the GPU idle and overlap little), from there several chunks in
// flight pay, and beyond 8,192 more chunks only add launches.
inline std::uint32_t page_compressor_chunk(std::size_t pages) {
    return static_cast<std::uint32_t>(std::clamp<std::size_t>(pages / 4, 2048, 8192));
}

// How much of a fresh result the packing threads fault in while the first chunk runs, at least.
inline constexpr std::size_t page_compressor_first_fault_bytes = std::size_t{8} << 20;

// What the first automatic batch measured: time(n) = fixed + n * per_page for each backend (fits
// through two batch sizes, best of three runs each), and the batch size from which the device wins.
struct page_calibration {
    bool measured = false;
    double cpu_fixed_s = 0, cpu_page_s = 0;
    double device_fixed_s = 0, device_page_s = 0;
    std::size_t crossover_pages = std::numeric_limits<std::size_t>::max(); // max: the device never wins
};

// Bytes whose resize() does not zero (util::host_bytes); otherwise a std::vector.
using page_bytes = util::host_bytes;

// The result of a batch compressed by the engine: blocks packed one after another (offsets[i]).
struct packed_pages {
    std::uint32_t page_size = cz::lz4_pages_default_page_size;
    std::vector<cz::page_record> records;
    std::vector<std::uint64_t> offsets;
    page_bytes data; // only the packed bytes: resize() leaves new bytes uninitialised
    page_backend backend = page_backend::automatic; // where it ran: cpu or device

    std::span<const std::uint8_t> block(std::size_t i) const {
        return std::span<const std::uint8_t>(data).subspan(static_cast<std::size_t>(offsets[i]), records[i].length);
    }
};

namespace detail {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace detail

// One page with liblz4 (LZ4_compress_default), under the same record rules as the device op:
// same_fill for one repeated byte, stored when the block would not be smaller. `slot` holds
// page.size() bytes.
inline cz::page_record liblz4_compress_page(std::span<const std::uint8_t> page, std::uint8_t* slot) {
    const auto n = static_cast<std::uint32_t>(page.size());
    if (std::all_of(page.begin(), page.end(), [&](std::uint8_t b) { return b == page[0]; }))
        return vyre::compression::make_page_record(0, cz::page_kind::same_fill, page[0]);
    // A destination one byte short of the page: liblz4 gives up (0) when the block would not be smaller.
    const int r = LZ4_compress_default(reinterpret_cast<const char*>(page.data()), reinterpret_cast<char*>(slot), static_cast<int>(n),
                                       static_cast<int>(n - 1));
    if (r > 0) return vyre::compression::make_page_record(static_cast<std::uint32_t>(r), cz::page_kind::compressed);
    std::memcpy(slot, page.data(), n);
    return vyre::compression::make_page_record(n, cz::page_kind::stored);
}

class page_compressor {
public:
    explicit page_compressor(runtime::context& ctx, page_compressor_options options = {}) : ctx_(&ctx), options_(options) {
        if (options_.threads == 0) options_.threads = util::thread_count();
        if (options_.in_flight == 0 || options_.in_flight > 16)
            throw resource_error("page_compressor: in_flight " + std::to_string(options_.in_flight) + " must be in 1..16");
        if (options_.chunk_pages > cz::lz4_pages_max_batch(page_size_))
            throw resource_error("page_compressor: chunk_pages " + std::to_string(options_.chunk_pages) + " must be 0 (automatic) or in 1.." +
                                 std::to_string(cz::lz4_pages_max_batch(page_size_)));
        cz::check_lz4_pages_shape(page_size_, options_.workgroup);
    }

    const page_calibration& calibration() const noexcept { return calibration_; }
    const page_compressor_options& options() const noexcept { return options_; }

    // The batch on the backend the options name; `automatic` measures both on the first batch
    // (calibrate) and then picks by the batch's size, or takes the CPU without measuring on a
    // device whose local memory cannot hold the program's workgroup buffers (12.8 KiB for 4 KiB
    // pages). page_backend::device on such a device throws resource_error saying so.
    packed_pages compress(std::span<const std::uint8_t> pages) {
        check_input(pages);
        page_backend b = options_.backend;
        if (b == page_backend::automatic) {
            if (ctx_->device().local_memory < cz::lz4_pages_workgroup_bytes(page_size_, options_.workgroup)) {
                b = page_backend::cpu; // the device cannot run compression.lz4_pages (check_lz4_pages_device)
            } else {
                if (!calibration_.measured && !pages.empty()) calibrate(pages);
                b = pages.size() / page_size_ >= calibration_.crossover_pages ? page_backend::device : page_backend::cpu;
            }
        }
        return b == page_backend::cpu ? compress_cpu(pages) : compress_device(pages);
    }

    // Times both backends on pages of `sample` (repeated where it holds fewer than the larger size)
    // at 64 and 2048 pages and fits time(n) = fixed + n * per_page to each. A device that needs
    // over 30 ms for 64 pages (a CPU OpenCL device) is not timed further and never picked
    // (crossover_pages stays at its maximum), whatever its per-page estimate (that time / 64).
    const page_calibration& calibrate(std::span<const std::uint8_t> sample) {
        check_input(sample);
        if (sample.empty()) throw format_error("page_compressor: calibration needs at least one page");
        const std::size_t small = 64, large = 2048;
        std::vector<std::uint8_t> pages(large * page_size_);
        for (std::size_t at = 0; at < pages.size(); at += sample.size())
            std::memcpy(pages.data() + at, sample.data(), std::min(sample.size(), pages.size() - at));
        const auto best_of_3 = [&](auto&& run, std::size_t n) {
            const std::span<const std::uint8_t> part(pages.data(), n * page_size_);
            double best = 1e30;
            for (int r = 0; r < 3; ++r) {
                const auto t0 = std::chrono::steady_clock::now();
                run(part);
                best = std::min(best, detail::seconds_since(t0));
            }
            return best;
        };
        const auto cpu = [&](std::span<const std::uint8_t> p) { compress_cpu(p); };
        const auto dev = [&](std::span<const std::uint8_t> p) { compress_device(p); };
        page_calibration c;
        const double cs = best_of_3(cpu, small), cl = best_of_3(cpu, large);
        // A slope at or below zero is noise (the small run was held up: a loaded host); the large
        // run's average per page is then the better estimate, and never zero.
        const auto per_page = [&](double t_small, double t_large) {
            return t_large > t_small ? (t_large - t_small) / double(large - small) : t_large / double(large);
        };
        c.cpu_page_s = per_page(cs, cl);
        c.cpu_fixed_s = std::max(0.0, cs - c.cpu_page_s * small);
        compress_device(std::span<const std::uint8_t>(pages.data(), page_size_)); // builds the kernel, allocates
        const double ds = best_of_3(dev, small);
        const bool slow_device = ds > 0.03;
        if (slow_device) {
            c.device_page_s = ds / small;
            c.device_fixed_s = 0;
        } else {
            const double dl = best_of_3(dev, large);
            c.device_page_s = per_page(ds, dl);
            c.device_fixed_s = std::max(0.0, ds - c.device_page_s * small);
        }
        if (!slow_device && c.device_page_s < c.cpu_page_s) {
            const double n = (c.device_fixed_s - c.cpu_fixed_s) / (c.cpu_page_s - c.device_page_s);
            c.crossover_pages = n <= 1 ? 1 : static_cast<std::size_t>(n) + 1;
        }
        c.measured = true;
        calibration_ = c;
        return calibration_;
    }

    // liblz4 on `threads` threads, page by page, into page-sized slots of an uninitialised scratch
    // buffer (first touched by the compressing threads: no serial zero fill of the input's size),
    // then packed by the same threads: a serial prefix sum of the lengths, and each block copied
    // to its offset in parallel into `data`, which resize() does not zero (page_bytes): no serial
    // pass over bytes is left.
    packed_pages compress_cpu(std::span<const std::uint8_t> pages) {
        check_input(pages);
        const std::size_t count = pages.size() / page_size_;
        packed_pages r = start(count);
        r.backend = page_backend::cpu;
        if (count == 0) return r;
        const std::unique_ptr<std::uint8_t[]> slots(new std::uint8_t[pages.size()]); // default-initialised: not zeroed
        util::parallel_for(count, options_.threads, [&](std::size_t i) {
            r.records[i] = liblz4_compress_page(pages.subspan(i * page_size_, page_size_), slots.get() + i * page_size_);
        }, 16); // pages in runs of 16: one atomic per run, not per page
        std::size_t at = 0;
        for (std::size_t i = 0; i < count; ++i) {
            r.offsets[i] = at;
            at += r.records[i].length;
        }
        r.data.resize(at);
        util::parallel_for(count, options_.threads, [&](std::size_t i) {
            if (r.records[i].length != 0)
                std::memcpy(r.data.data() + r.offsets[i], slots.get() + i * page_size_, r.records[i].length);
        }, 16);
        return r;
    }

    // compression.lz4_pages in chunks of chunk_pages, in_flight chunks at once on their own queues:
    // upload straight from `pages` as the caller holds them (no staging copy: pages in pinned host
    // memory, as the benchmark's, upload at DMA speed; pageable memory, as the CLI's vector, goes
    // through the driver's own staging and is slower), kernel, readback of records and slots into
    // the engine's pinned buffers, and packing on the host of the oldest chunk while later ones run.
    // Chunk c's upload and kernel are enqueued before the host waits for and packs chunk c - in_flight
    // on the same queue (in order: they only touch device buffers that chunk's kernel is done with),
    // so the device always has in_flight chunks queued; only c's readback into the pinned buffers
    // waits for the packing. Packing runs on `threads` host threads (a pool kept for the
    // compressor's life): a serial check of the chunk's records and prefix sum of their lengths,
    // then every block copied to its offset in parallel, into a result that is never zero-filled.
    // On an exception (an invalid device record, a failed enqueue) every set's queue is finished
    // before it leaves, so no transfer still reads `pages` or writes the pinned buffers afterwards.
    packed_pages compress_device(std::span<const std::uint8_t> pages) {
        packed_pages r;
        compress_device(pages, r);
        return r;
    }

    // The same into `r`, replacing its contents but keeping its allocations: a caller that
    // compresses batch after batch into one result skips the page faults of first touching fresh
    // result memory, which cost more than the packing copy itself. The bytes are the same as
    // compress_device(pages)'s. After an exception, `r` holds no meaningful result (only its
    // allocations are worth keeping).
    void compress_device(std::span<const std::uint8_t> pages, packed_pages& r) {
        check_input(pages);
        const std::size_t count = pages.size() / page_size_;
        r.page_size = page_size_;
        r.records.resize(count);
        r.offsets.resize(count);
        r.data.clear(); // keeps its capacity
        r.backend = page_backend::device;
        if (count == 0) return;
        const cz::lz4_pages_kernel& kernel = cz::lz4_pages_kernel_for(page_size_, options_.workgroup);
        const auto chunk = static_cast<std::uint32_t>(
            std::min<std::size_t>(options_.chunk_pages != 0 ? options_.chunk_pages : page_compressor_chunk(count), count));
        ensure_sets(chunk);
        if (!pool_) pool_ = std::make_unique<util::worker_pool>(options_.threads);
        // Address space for the worst case (every page stored); resize() within it neither moves
        // nor zeroes, and fresh memory is only committed where the packing threads write.
        r.data.reserve(pages.size());
        const std::size_t chunks = (count + chunk - 1) / chunk;
        struct pending {
            std::size_t first = 0;
            std::uint32_t pages = 0;
            boost::compute::event done;
            boost::compute::event upload, kernel, records; // kept for options.timeline
        };
        std::vector<pending> recorded; // with options.timeline: every chunk's events
        std::vector<pending> inflight(sets_.size());
        std::vector<bool> busy(sets_.size(), false);
        // Parameter buffers replaced in this batch (a last chunk of another length than the last
        // batch's): freed when the batch is done, since a free waits for the whole device.
        std::vector<boost::compute::buffer> retired;
        std::size_t packed = 0; // bytes of r.data holding blocks; r.data.size() may run ahead (faulted in)
        const auto drain = [&](std::size_t s) {
            if (!busy[s]) return;
            pending& p = inflight[s];
            // While the device still works on this chunk, the packing threads fault in the result
            // memory its blocks will land in (fresh memory costs a page fault per 4 KiB, or per 2
            // MiB with huge pages: as much as the copy into it): for the first chunk its input size,
            // and at least page_compressor_first_fault_bytes (each huge page faults on one thread,
            // so several on several threads cost about one; faulted chunk by chunk, small chunks'
            // huge pages came one after another), then the ratio so far plus an eighth.
            const double so_far = p.first == 0 ? 1.0 : double(packed) / double(p.first * page_size_);
            const std::size_t chunk_bytes = std::size_t{p.pages} * page_size_;
            const std::size_t ahead = p.first == 0 ? std::max(chunk_bytes, page_compressor_first_fault_bytes)
                                                   : static_cast<std::size_t>(std::min(1.0, so_far * 1.125) * double(chunk_bytes));
            const std::size_t want = std::min(pages.size(), packed + ahead);
            if (want > r.data.size()) {
                const std::size_t from = r.data.size();
                r.data.resize(want); // within the reserve: no move, no zeroing
                std::uint8_t* out = r.data.data();
                constexpr std::size_t os_page = 4096;
                pool_->run((want - from + os_page - 1) / os_page, 64, [&](std::size_t i) noexcept { out[from + i * os_page] = 0; });
            }
            runtime::cl_call("clWaitForEvents", [&] { p.done.wait(); });
            if (options_.timeline) recorded.push_back(p);
            set& st = *sets_[s];
            const auto* rec = reinterpret_cast<const cz::page_record*>(st.records_host->span().data());
            const std::uint8_t* slots = st.slots_host->span().data();
            // Serial and cheap (8 bytes a page): the device's records are checked before their
            // lengths are trusted as offsets.
            std::size_t at = packed;
            for (std::uint32_t i = 0; i < p.pages; ++i) {
                const cz::page_record rc = rec[i];
                cz::check_lz4_pages_record(rc, page_size_, p.first + i);
                r.records[p.first + i] = rc;
                r.offsets[p.first + i] = at;
                at += rc.length;
            }
            if (at > r.data.size()) r.data.resize(at); // within the reserve: no move, no zeroing
            packed = at;
            std::uint8_t* out = r.data.data();
            pool_->run(p.pages, 64, [&](std::size_t i) noexcept {
                const std::size_t g = p.first + i;
                if (r.records[g].length != 0) std::memcpy(out + r.offsets[g], slots + i * page_size_, r.records[g].length);
            });
            busy[s] = false;
        };
        // Finishes every set's queue if an exception leaves this function with transfers in flight
        // (they read the caller's `pages` and write the pinned buffers).
        struct finish_all_on_throw {
            std::vector<std::unique_ptr<set>>& sets;
            bool armed = true;
            ~finish_all_on_throw() {
                if (!armed) return;
                for (auto& st : sets) {
                    try {
                        st->queue.finish();
                    } catch (...) {
                        // Nothing more to do: the original exception is the one the caller needs.
                    }
                }
            }
        } guard{sets_};
        for (std::size_t c = 0; c < chunks; ++c) {
            const std::size_t s = c % sets_.size();
            set& st = *sets_[s];
            const std::size_t first = c * chunk;
            const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(chunk, count - first));
            const std::size_t bytes = std::size_t{n} * page_size_;
            auto& q = st.queue.queue();
            boost::compute::event uploaded, compressed;
            runtime::cl_call("clEnqueueWriteBuffer", [&] {
                uploaded = q.enqueue_write_buffer_async(st.device.pages, 0, bytes, pages.data() + first * page_size_);
            });
            // Full chunks and the last, shorter one keep parameter buffers of their own, so that no
            // launch replaces (frees) one while other sets' work is in flight.
            auto& launch_params = st.params[n == chunk ? 0 : 1];
            if (launch_params.buffer.get() && launch_params.words != std::array<std::uint32_t, cz::lz4_pages_param_words>{n, 0, 0, 0})
                retired.push_back(std::exchange(launch_params.buffer, {}));
            compressed = cz::enqueue_lz4_pages(st.queue, kernel, st.device, n, launch_params);
            q.flush();
            drain(s); // chunk c - in_flight: its readback precedes c's upload on this queue
            pending& p = inflight[s];
            p.first = first;
            p.pages = n;
            p.upload = uploaded;
            p.kernel = compressed;
            runtime::cl_call("clEnqueueReadBuffer", [&] {
                p.records = q.enqueue_read_buffer_async(st.device.records, 0, std::size_t{n} * sizeof(cz::page_record),
                                                        st.records_host->span().data());
                p.done = q.enqueue_read_buffer_async(st.device.output, 0, bytes, st.slots_host->span().data());
            });
            q.flush();
            busy[s] = true;
        }
        for (std::size_t c = chunks > sets_.size() ? chunks - sets_.size() : 0; c < chunks; ++c) drain(c % sets_.size());
        r.data.resize(packed); // drops what was faulted in ahead and not needed
        guard.armed = false;
        if (options_.timeline) timeline_ = steps_of(recorded);
    }

    std::uint32_t page_size() const noexcept { return page_size_; }

    // With options.timeline: the last device batch's chunks, when each step ran.
    const std::vector<page_chunk_steps>& timeline() const noexcept { return timeline_; }

private:
    // One pipeline stage's resources: a queue of its own and buffers for one chunk.
    struct set {
        runtime::context queue;
        cz::lz4_pages_device device;
        std::unique_ptr<runtime::pinned_host_buffer> records_host, slots_host;
        std::uint32_t capacity = 0;
        // Parameters of full chunks ([0]) and of a shorter last chunk ([1]), kept across launches.
        std::array<runtime::parameter_buffer<cz::lz4_pages_param_words>, 2> params;
    };

    void check_input(std::span<const std::uint8_t> pages) const {
        if (pages.size() % page_size_ != 0)
            throw format_error("page_compressor: " + std::to_string(pages.size()) + " bytes is not a whole number of " +
                               std::to_string(page_size_) + "-byte pages");
    }

    packed_pages start(std::size_t count) const {
        packed_pages r;
        r.page_size = page_size_;
        r.records.resize(count);
        r.offsets.resize(count);
        return r;
    }

    void ensure_sets(std::uint32_t chunk) {
        if (!sets_.empty() && sets_.front()->capacity >= chunk) return;
        for (auto& s : sets_) s->queue.finish();
        sets_.clear();
        // A CPU device runs one chunk at a time: its "device" is the host's cores, so chunks in
        // flight overlap nothing, and PoCL 5.0 (Ubuntu 24.04's) aborted in its kernel cache
        // (pocl_release_dlhandle_cache) with three chunks in flight on three queues.
        const unsigned depth = ctx_->device().is_cpu() ? 1u : options_.in_flight;
        for (unsigned i = 0; i < depth; ++i) {
            auto s = std::make_unique<set>(set{runtime::context(runtime::cl_call("clCreateCommandQueue", [&] {
                                                   return boost::compute::command_queue(ctx_->cl_context(), ctx_->device().device,
                                                                                        options_.timeline ? CL_QUEUE_PROFILING_ENABLE : 0);
                                               })),
                                               {}, nullptr, nullptr, chunk, {}});
            s->device = cz::allocate_lz4_pages(*ctx_, chunk, page_size_);
            s->records_host = std::make_unique<runtime::pinned_host_buffer>(s->queue, std::size_t{chunk} * sizeof(cz::page_record));
            s->slots_host = std::make_unique<runtime::pinned_host_buffer>(s->queue, std::size_t{chunk} * page_size_);
            sets_.push_back(std::move(s));
        }
    }

    template <class Pending>
    static std::vector<page_chunk_steps> steps_of(const std::vector<Pending>& recorded) {
        const auto at = [](const boost::compute::event& e, cl_profiling_info what) -> double {
            return e.get() ? double(e.get_profiling_info<cl_ulong>(what)) : 0.0;
        };
        double origin = 0;
        bool any = false;
        for (const auto& c : recorded)
            if (c.upload.get()) {
                const double t = at(c.upload, CL_PROFILING_COMMAND_START);
                origin = any ? std::min(origin, t) : t;
                any = true;
            }
        std::vector<page_chunk_steps> out;
        for (const auto& c : recorded) {
            page_chunk_steps p;
            p.first = c.first;
            p.pages = c.pages;
            const auto ms = [&](const boost::compute::event& e, cl_profiling_info what) { return (at(e, what) - origin) * 1e-6; };
            p.upload[0] = ms(c.upload, CL_PROFILING_COMMAND_START);
            p.upload[1] = ms(c.upload, CL_PROFILING_COMMAND_END);
            p.kernel[0] = ms(c.kernel, CL_PROFILING_COMMAND_START);
            p.kernel[1] = ms(c.kernel, CL_PROFILING_COMMAND_END);
            p.readback[0] = ms(c.records, CL_PROFILING_COMMAND_START);
            p.readback[1] = ms(c.done, CL_PROFILING_COMMAND_END);
            out.push_back(p);
        }
        return out;
    }

    runtime::context* ctx_;
    page_compressor_options options_;
    std::vector<page_chunk_steps> timeline_;
    std::uint32_t page_size_ = cz::lz4_pages_default_page_size;
    page_calibration calibration_;
    std::vector<std::unique_ptr<set>> sets_;
    std::unique_ptr<util::worker_pool> pool_; // the device path's packing threads (made at first use)
};

} // namespace vyre::engine
