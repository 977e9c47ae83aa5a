// The zstd pipeline's device route: every frame regenerated whole by compression.zstd.frames
// (compressed blocks included), the host only walking block sections before and checking content
// sizes and checksums after.
// Internal to engine/zstd_decompress.hpp, whose opening comment describes the routes.
#pragma once

#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/engine/detail/zstd_route_kept.hpp>
#include <vyre/engine/detail/zstd_shared_frames.hpp>
#include <vyre/engine/detail/zstd_window_pass.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/engine/zstd_options.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/ops/bytes/xxh64.hpp>
#include <vyre/ops/compression/zstd_blocks.hpp>
#include <vyre/ops/compression/zstd_frames.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <initializer_list>
#include <memory>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine::detail {

// Consecutive frames whose input and staging each stay within one dispatch's limits, or one
// frame decoded a window at a time (engine/detail/zstd_window_pass.hpp).
struct zstd_frame_group {
    std::size_t first = 0, count = 0;
    bool windowed = false;
};

// One subgroup decodes one frame, so a dispatch needs many frames to fill the device: a group
// closes only once it holds options.frames_per_dispatch frames (by default this many per compute
// unit) and options.batch_input_bytes of input, or reaches a limit.
inline constexpr std::uint64_t zstd_frames_per_compute_unit = 32;

// Frames that take windows (zstd_frame_takes_windows) get a group each when `windows` allows
// them (into host memory) and they fit (zstd_windows_fit); otherwise a frame too long for one
// dispatch is refused. Groups cover frames [0, end) (the rest are the host's: zstd_shared_frames.hpp).
inline std::vector<zstd_frame_group> zstd_frame_groups(runtime::context& ctx, const format::zstd_file& file, const zstd_options& options,
                                                       bool windows, std::size_t end = ~std::size_t{0}) {
    // Offsets are 32-bit words in the program; buffers are also bounded by the device.
    const std::uint64_t limit = std::min<std::uint64_t>(ctx.device().max_allocation, std::uint64_t{0xFFFFFFFFu} & ~std::uint64_t{3});
    const std::uint64_t batch = std::max<std::uint64_t>(options.batch_input_bytes, 1);
    const std::uint64_t enough = options.frames_per_dispatch != 0
                                     ? options.frames_per_dispatch
                                     : std::max<std::uint64_t>(ctx.device().compute_units, 1) * zstd_frames_per_compute_unit;
    std::vector<zstd_frame_group> groups;
    // The device holds a group's whole span of the file, skippable frames between its frames too.
    std::uint64_t first_offset = 0, out = 0;
    for (std::size_t i = 0; i < std::min(end, file.frames.size()); ++i) {
        const auto& f = file.frames[i];
        if (windows && zstd_frame_takes_windows(ctx.device(), f, options) && zstd_windows_fit(ctx.device(), f, options)) {
            groups.push_back({i, 1, true}); // the next frame opens a group of its own
            continue;
        }
        if (f.size > limit || f.output_capacity > limit)
            throw resource_error("zstd: the frame at byte offset " + std::to_string(f.offset) + " (" + std::to_string(f.size) +
                                 " bytes, staging " + std::to_string(f.output_capacity) +
                                 ") exceeds what one dispatch of compression.zstd.frames holds (" + std::to_string(limit) + " bytes)");
        const std::uint64_t span = groups.empty() ? 0 : f.offset + f.size - first_offset;
        const bool full = !groups.empty() && groups.back().count >= enough && f.offset - first_offset >= batch;
        if (groups.empty() || groups.back().windowed || full || span > limit || out + f.output_capacity > limit) {
            groups.push_back({i, 0});
            first_offset = f.offset;
            out = 0;
        }
        ++groups.back().count;
        out += f.output_capacity;
    }
    return groups;
}

// Which program decodes a group on the device route with zstd_device_program::automatic:
// compression.zstd.blocks where a frame per subgroup cannot keep the device busy, that is where
// the group holds fewer than `enough` frames and its frames are either fewer than the compute units
// or long (zstd_blocks_min_frame_output on average: one subgroup decodes a frame at a few tens of
// MB/s, so a long frame keeps its subgroup busy long after the others are done). The last group of
// a file of many short frames is short too, and stays with compression.zstd.frames: through the
// blocks program it cost such a file more than it saved, while 1,024 frames of 1 MiB ran faster
// through it (figures in doc/ops/compression.zstd.frames.md).
inline constexpr std::uint64_t zstd_blocks_min_frame_output = std::uint64_t{256} << 10;

inline bool zstd_group_takes_blocks(const runtime::device_info& device, const format::zstd_file& file, std::size_t first,
                                    std::size_t count, std::uint64_t enough) {
    if (count >= enough) return false;
    std::uint64_t output = 0;
    for (std::size_t i = first; i < first + count; ++i) output += file.frames[i].output_capacity;
    return count < std::max<std::uint64_t>(device.compute_units, 1) || output >= count * zstd_blocks_min_frame_output;
}

// Where the device route hashes frames itself (bytes.xxh64): when every frame that carries a
// checksum declares its content size (the range to hash is known before decoding; a frame that
// decodes to another size fails on that first), and the longest of them is short or a small share
// of all checksummed bytes. Into device memory the frames then never come back; into host memory
// the host's cores are spared the hashing, which otherwise holds up the walk of the next group.
// Each frame's four accumulators walk it in order, so the kernel's time follows the longest frame
// while the host's cores share the total: a few long frames hash faster on the host, many on the
// device (measured crossover in doc/ops/bytes.md).
inline constexpr std::uint64_t zstd_device_hash_short_frame = std::uint64_t{256} << 10;
inline constexpr std::uint64_t zstd_device_hash_share = 128; // longest frame × this ≤ checksummed bytes

inline bool zstd_device_hashes(const format::zstd_file& file) {
    std::uint64_t longest = 0, total = 0;
    for (const format::zstd_frame& f : file.frames) {
        if (!f.checksum) continue;
        if (!f.content_size || *f.content_size > f.output_capacity) return false;
        longest = std::max(longest, *f.content_size);
        total += *f.content_size;
    }
    return longest <= zstd_device_hash_short_frame || longest <= total / zstd_device_hash_share;
}

// Checks frames [first, first + count): status, content size, and the checksum against the
// bytes at their staging offsets in `staging` (which may be empty when none carries one), or,
// when `digests` is given, against the device's XXH64 of each frame (a low and a high word per
// frame of the group).
inline void zstd_check_device_frames(const format::zstd_file& file, std::size_t first, std::size_t count,
                                     std::span<const std::uint32_t> statuses, std::span<const std::uint8_t> staging,
                                     std::span<std::uint64_t> sizes, unsigned threads, std::span<const std::uint32_t> digests = {}) {
    namespace c = compression;
    for (std::size_t i = first; i < first + count; ++i) {
        const auto status = statuses.subspan(i * c::zstd_status_words, c::zstd_status_words);
        const auto& f = file.frames[i];
        if (status[0] != c::zstd_error::none) zstd_frame_refused(f, status);
        sizes[i] = status[1];
        if (f.content_size && *f.content_size != sizes[i])
            throw format_error("zstd: frame declares " + std::to_string(*f.content_size) + " content bytes but decodes to " +
                                   std::to_string(sizes[i]),
                               f.offset);
    }
    if (!digests.empty()) {
        for (std::size_t k = 0; k < count; ++k) {
            const auto& f = file.frames[first + k];
            if (f.checksum && digests[2 * k] != *f.checksum)
                throw format_error("zstd: content checksum mismatch: stored " + util::hex(*f.checksum) + ", computed " +
                                       util::hex(digests[2 * k]),
                                   f.checksum_offset);
        }
        return;
    }
    util::parallel_for(count, threads, [&](std::size_t k) {
        const auto& f = file.frames[first + k];
        if (f.checksum) zstd_check_frame(f, staging.subspan(f.output_offset, sizes[first + k]));
    });
}

// The timeline's device steps (OpenCL profiling, in the device's nanoseconds) placed on the host's
// clock, in milliseconds from `start`: the first recorded upload was queued when the host says it
// was enqueued (`enqueued`, seconds), which fixes the offset between the two clocks.
template <class Recorded>
void zstd_place_device_steps(const std::vector<Recorded>& recorded, double start, std::vector<zstd_group_steps>& timeline) {
    const auto at = [](const boost::compute::event& e, cl_profiling_info what) {
        return double(e.get_profiling_info<cl_ulong>(what)) * 1e-9;
    };
    double offset = 0;
    bool any = false;
    for (const auto& r : recorded)
        if (r.upload.get() != nullptr) {
            offset = r.enqueued - at(r.upload, CL_PROFILING_COMMAND_QUEUED);
            any = true;
            break;
        }
    if (!any) return;
    const auto place = [&](const boost::compute::event& e, double (&to)[2]) {
        if (e.get() == nullptr) return;
        to[0] = (at(e, CL_PROFILING_COMMAND_START) + offset - start) * 1e3;
        to[1] = (at(e, CL_PROFILING_COMMAND_END) + offset - start) * 1e3;
    };
    for (std::size_t k = 0; k < recorded.size(); ++k) {
        place(recorded[k].upload, timeline[k].upload);
        place(recorded[k].tables, timeline[k].tables);
        place(recorded[k].kernel, timeline[k].kernel);
        place(recorded[k].hash, timeline[k].hash);
        place(recorded[k].output, timeline[k].output);
    }
}

struct zstd_frames_run {
    std::vector<std::uint64_t> sizes; // each frame's decoded bytes
    // Wall clock: the whole run, the host's planning and checking in it, and its waits for the device.
    double seconds = 0, host_seconds = 0, wait_seconds = 0;
    std::size_t dispatches = 0;
    std::size_t block_dispatches = 0, resolve_rounds = 0; // through compression.zstd.blocks
    std::size_t windows = 0;                                // of which windows of long frames
    std::vector<std::size_t> host_frames; // frames libzstd decoded after their windows (zstd_windows_run::host_frame)
    std::size_t shared_frames = 0;         // the file's last frames, decoded by the host's cores (zstd_shared_frames.hpp)
    double shared[2]{};                    // when they were, ms from the run's start
    std::uint64_t uploaded = 0;
    std::size_t transfers = 0;
    std::size_t hashed_frames = 0; // checked by bytes.xxh64 on the device
    std::vector<zstd_group_steps> timeline; // with options.timeline
};

// zstd_route_drop_small_sets (engine/detail/zstd_route_kept.hpp) for a call's groups: the most
// input and output bytes one group needs of a buffer set (windowed frames use buffers of their own).
inline void zstd_route_drop_small_sets(const format::zstd_file& file, std::span<const zstd_frame_group> groups, zstd_route_kept& kept) {
    std::uint64_t input = 0, output = 0;
    for (const zstd_frame_group& g : groups) {
        if (g.count == 0 || g.windowed) continue;
        const std::uint64_t base = file.frames[g.first].offset;
        std::uint64_t in = 0, out = 0;
        for (std::size_t i = g.first; i < g.first + g.count; ++i) {
            in = std::max(in, file.frames[i].offset + file.frames[i].size - base);
            out += file.frames[i].output_capacity;
        }
        input = std::max(input, in), output = std::max(output, out);
    }
    zstd_route_drop_small_sets(kept, input, output);
}

// Every frame through compression.zstd.frames, checked, group by group over four queues (uploads,
// two for the programs, results): group k is planned on the host (all cores) and uploaded while
// the groups before it run, come back and are checked. Into host memory (device_staging null) every frame's bytes land in
// `staging` at its staging offset; into device memory they land in `device_staging` there, and
// come back into `staging` only where a checksum needs them and the device does not hash them.
// Into host memory, frames from `shared_from` on are the host's (zstd_shared_frames.hpp): its cores
// decode them into `staging` once the first group is planned, beside the device's groups.
inline zstd_frames_run zstd_run_frames(runtime::context& ctx, std::span<const std::uint8_t> data, const format::zstd_file& file,
                                       const zstd_options& options, std::span<std::uint8_t> staging,
                                       boost::compute::buffer* device_staging, std::size_t shared_from = ~std::size_t{0}) {
    namespace c = compression;
    namespace bcm = boost::compute;
    const unsigned threads = util::thread_count(options.threads);
    zstd_frames_run run;
    run.sizes.assign(file.frames.size(), 0);
    std::vector<std::uint32_t> statuses(file.frames.size() * c::zstd_status_words, 0);
    if (device_staging != nullptr || shared_from == 0) shared_from = file.frames.size(); // the device keeps its first frame
    shared_from = std::min(shared_from, file.frames.size());
    const auto groups = zstd_frame_groups(ctx, file, options, device_staging == nullptr, shared_from);
    if (groups.empty()) return run;
    const std::uint64_t enough = options.frames_per_dispatch != 0
                                     ? options.frames_per_dispatch
                                     : std::max<std::uint64_t>(ctx.device().compute_units, 1) * zstd_frames_per_compute_unit;
    const auto by_blocks = [&](const zstd_frame_group& g, const format::zstd_sections& s) {
        switch (options.device_program) {
        case zstd_device_program::frames: return false;
        case zstd_device_program::blocks: return true;
        default: return zstd_group_takes_blocks(ctx.device(), file, g.first, g.count, enough) && ops::compression::zstd_blocks_fit(ctx.device(), s);
        }
    };
    // The queues, buffer sets and walk threads of an earlier call on this context, else new ones.
    std::shared_ptr<zstd_route_kept> kept = ctx.take_kept<zstd_route_kept>();
    if (!kept || kept->profiling != options.timeline) kept = std::make_shared<zstd_route_kept>(ctx, options.timeline);
    else zstd_route_drop_small_sets(file, groups, *kept);
    bcm::command_queue &up = kept->up, &down = kept->down;
    auto& program_queues = kept->program_queues;
    auto& sets = kept->sets;
    auto& walkers = kept->walkers;
    const bool device_hash = zstd_device_hashes(file);
    struct in_flight {
        format::zstd_sections sections; // read by the record uploads until the group is done
        bcm::buffer blocks_output;      // compression.zstd.blocks' result, its own buffer
        bcm::event done;
        bool checksums = false;
        std::vector<std::uint32_t> digests; // the device's XXH64 of each frame, where it hashed them
    };
    std::vector<std::unique_ptr<in_flight>> flight(groups.size());
    std::vector<bcm::buffer> retired; // freed once everything is done (see zstd_route_kept::sets)
    // With options.timeline: each group's device events, and the host's clock when its upload was enqueued.
    struct recorded_steps {
        bcm::event upload, tables, kernel, hash, output;
        double enqueued = 0;
    };
    std::vector<recorded_steps> recorded(options.timeline ? groups.size() : 0);
    if (options.timeline) run.timeline.resize(groups.size());
    // Runs `enqueue`, which may replace buffers of `held` by larger ones: those replaced wait in
    // `retired` rather than being freed now.
    const auto grown = [&](std::initializer_list<bcm::buffer*> held, const auto& enqueue) {
        std::vector<bcm::buffer> before;
        for (bcm::buffer* h : held) before.push_back(*h);
        enqueue();
        std::size_t i = 0;
        for (bcm::buffer* h : held) {
            if (before[i].get() != nullptr && before[i].get() != h->get()) retired.push_back(std::move(before[i]));
            ++i;
        }
    };
    const auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
    const double start = clock();
    // The host's frames start once the first group is planned: before, the walk has every core.
    // Declared after everything the task reads, so that a failure below stops and waits for it first.
    zstd_shared_frames_task shared;
    const auto start_shared = [&] { shared.start(data, file, shared_from, staging, run.sizes, threads); };
    const auto finish = [&](std::size_t k) {
        if (!flight[k]) return; // a windowed frame: finished and checked as it ran
        const double t0 = clock();
        flight[k]->done.wait();
        const double t1 = clock();
        run.wait_seconds += t1 - t0;
        zstd_check_device_frames(file, groups[k].first, groups[k].count, statuses, flight[k]->checksums ? staging : std::span<std::uint8_t>(),
                                 run.sizes, threads, flight[k]->digests);
        const double t2 = clock();
        run.host_seconds += t2 - t1;
        if (options.timeline) {
            auto& steps = run.timeline[k];
            steps.wait[0] = (t0 - start) * 1e3, steps.wait[1] = (t1 - start) * 1e3;
            steps.check[0] = (t1 - start) * 1e3, steps.check[1] = (t2 - start) * 1e3;
        }
        // compression.zstd.blocks' output goes with its group: its passes already free their
        // scratch as they return, and keeping every such output would hold a whole file's output
        // on the device even when it comes back to the host.
        flight[k].reset();
    };
    try {
        std::size_t checked = 0; // groups [0, checked) are finished
        for (std::size_t k = 0; k < groups.size(); ++k) {
            const auto& g = groups[k];
            if (g.windowed) {
                start_shared();
                while (checked < k) finish(checked++);
                const zstd_windows_run w = zstd_run_windows(ctx, data, file, g.first, options, staging);
                run.sizes[g.first] = w.size;
                if (w.host_frame) run.host_frames.push_back(g.first);
                run.host_seconds += w.host_seconds;
                run.dispatches += w.windows;
                run.block_dispatches += w.windows;
                run.windows += w.windows;
                run.resolve_rounds += w.rounds;
                run.uploaded += w.uploaded;
                run.transfers += w.transfers;
                continue;
            }
            std::vector<std::size_t> which(g.count);
            std::iota(which.begin(), which.end(), g.first);
            auto& f = flight[k] = std::make_unique<in_flight>();
            zstd_route_buffer_set& set = sets[k % zstd_groups_in_flight];
            runtime::context& program_queue = program_queues[k % 2];
            // The group's input, file bytes [base, + bytes) (what its walk will plan as the
            // sections' input), goes up on the upload queue and is waited for by the group's programs.
            bool uploaded_input = false;
            std::uint64_t uploaded_base = 0, uploaded_bytes = 0;
            const auto upload_input = [&](std::uint64_t base, std::uint64_t bytes) {
                grown({&set.input}, [&] { runtime::reserve(ctx, set.input, runtime::padded_bytes(bytes), CL_MEM_READ_ONLY); });
                bcm::event uploaded;
                runtime::cl_call("clEnqueueWriteBuffer",
                                 [&] { uploaded = up.enqueue_write_buffer_async(set.input, 0, bytes, data.data() + base); });
                if (options.timeline) recorded[k].upload = uploaded, recorded[k].enqueued = clock();
                // Flushed before the program queue waits on it (the blocks program blocks on its queue next).
                runtime::wait_across(up, uploaded, program_queue.queue());
                uploaded_input = true, uploaded_base = base, uploaded_bytes = bytes;
            };
            // Where the group's buffer set is free already (no group before it still holds it), its
            // input is uploaded before the walk, during it: one group of large frames otherwise
            // waited for its whole walk before the copy began.
            if (checked + zstd_groups_in_flight > k) {
                const std::uint64_t base = file.frames[g.first].offset;
                std::uint64_t bytes = 0;
                for (std::size_t i = g.first; i < g.first + g.count; ++i)
                    bytes = std::max(bytes, file.frames[i].offset + file.frames[i].size - base);
                upload_input(base, bytes);
            }
            const double t0 = clock();
            // The FSE tables are built on the device (compression.zstd.fse_tables) from their
            // descriptions: building them was most of the walk's time, and their words most of the upload.
            if (threads > 1 && (!walkers || kept->walkers_for != threads)) walkers.emplace(threads), kept->walkers_for = threads;
            format::zstd_plan_options plan{threads, format::zstd_default_max_plan_bytes, true};
            plan.pool = threads > 1 && walkers ? &*walkers : nullptr; // a kept pool, never for a one-thread call
            f->sections = format::plan_zstd_sections(data, file, which, plan);
            start_shared();
            const double t1 = clock();
            run.host_seconds += t1 - t0;
            if (options.timeline) {
                auto& steps = run.timeline[k];
                steps.first = g.first, steps.frames = g.count;
                steps.walk[0] = (t0 - start) * 1e3, steps.walk[1] = (t1 - start) * 1e3;
            }
            // Only now wait, if at all, for the group whose buffers this one takes: the walk
            // above ran while the device worked on the groups before.
            while (checked + zstd_groups_in_flight <= k) finish(checked++);
            const double t2 = clock();
            const format::zstd_sections& s = f->sections;
            f->checksums = std::any_of(which.begin(), which.end(), [&](std::size_t i) { return file.frames[i].checksum.has_value(); });
            if (!uploaded_input || uploaded_base != s.input_base || uploaded_bytes != s.input_bytes) upload_input(s.input_base, s.input_bytes);
            bcm::wait_list ran;
            bcm::event last;
            if (by_blocks(g, s)) {
                // Every pass has finished when this returns (the host schedules between them).
                const auto r = ops::compression::decode_zstd_blocks(program_queue, set.input, s.input_bytes, s, options.variant);
                std::copy(r.statuses.begin(), r.statuses.end(), statuses.begin() + static_cast<std::ptrdiff_t>(g.first * c::zstd_status_words));
                f->blocks_output = r.output;
                ++run.block_dispatches;
                run.resolve_rounds += r.rounds;
            } else {
                auto& b = set.buffers;
                // The records are written on the upload queue, right behind the group's input:
                // written on the program queue, they waited for the next group's upload there.
                grown({&b.frames, &b.blocks, &b.tables, &b.literals, &b.output, &b.statuses, &b.params, &b.fse.descriptions, &b.fse.params},
                      [&] { ops::compression::enqueue_zstd_frames(program_queue, set.input, s.input_bytes, s, b, options.variant, nullptr, &up); });
                ran = bcm::wait_list(b.dispatch);
                if (options.timeline) recorded[k].tables = b.fse.dispatch, recorded[k].kernel = b.dispatch;
                runtime::cl_call("clEnqueueReadBuffer", [&] {
                    last = down.enqueue_read_buffer_async(b.statuses, 0, g.count * c::zstd_status_words * 4,
                                                          statuses.data() + g.first * c::zstd_status_words, ran);
                });
            }
            const bcm::buffer& output = f->blocks_output.get() != nullptr ? f->blocks_output : set.buffers.output;
            bcm::wait_list hashed;
            if (device_hash && f->checksums) {
                // Each frame's declared content, hashed where the program left it; 8 bytes a frame come back.
                std::vector<ops::bytes::byte_range> ranges(g.count);
                for (std::size_t i = 0; i < g.count; ++i) {
                    const auto& fr = file.frames[g.first + i];
                    if (fr.checksum) ranges[i] = {fr.output_offset - s.output_base, *fr.content_size};
                }
                grown({&set.hash.ranges, &set.hash.digests, &set.hash.params},
                      [&] { ops::bytes::enqueue_xxh64(program_queue, output, ranges, set.hash); });
                hashed = bcm::wait_list(set.hash.dispatch);
                if (options.timeline) recorded[k].hash = set.hash.dispatch;
                f->digests.assign(g.count * 2, 0);
                run.hashed_frames += g.count;
            }
            runtime::cl_call("clEnqueueReadBuffer", [&] {
                // Frames that regenerate nothing (empty frames) have no bytes to move: OpenCL
                // refuses copies and reads of size 0.
                const bool bytes = s.output_bytes != 0;
                if (device_staging) {
                    if (bytes) last = down.enqueue_copy_buffer(output, *device_staging, 0, s.output_base, s.output_bytes, ran);
                    if (bytes && options.timeline) recorded[k].output = last;
                    if (!f->digests.empty())
                        last = down.enqueue_read_buffer_async(set.hash.digests, 0, f->digests.size() * 4, f->digests.data(), hashed);
                    else if (f->checksums && bytes)
                        last = down.enqueue_read_buffer_async(output, 0, s.output_bytes, staging.data() + s.output_base, ran);
                } else {
                    if (bytes) last = down.enqueue_read_buffer_async(output, 0, s.output_bytes, staging.data() + s.output_base, ran);
                    if (bytes && options.timeline) recorded[k].output = last;
                    if (!f->digests.empty())
                        last = down.enqueue_read_buffer_async(set.hash.digests, 0, f->digests.size() * 4, f->digests.data(), hashed);
                }
                // Nothing read back at all (compression.zstd.blocks' statuses came back as it ran):
                // an event that completes with the group's work.
                if (last.get() == nullptr) last = down.enqueue_marker(ran);
                f->done = last;
            });
            runtime::cl_call("clFlush", [&] {
                up.flush();
                program_queue.queue().flush();
                down.flush();
            });
            ++run.dispatches;
            run.uploaded += s.input_bytes;
            run.transfers += 5 + (device_staging && f->checksums) + (!device_staging && !f->digests.empty());
            if (options.timeline) run.timeline[k].enqueue[0] = (t2 - start) * 1e3, run.timeline[k].enqueue[1] = (clock() - start) * 1e3;
        }
        while (checked < groups.size()) finish(checked++);
        start_shared(); // (no group at all)
        shared.join();
        if (shared.began() != 0) {
            run.shared_frames = file.frames.size() - shared_from;
            run.shared[0] = (shared.began() - start) * 1e3, run.shared[1] = (shared.ended() - start) * 1e3;
            for (std::size_t i = shared_from; i < file.frames.size(); ++i) run.host_frames.push_back(i);
        }
        run.seconds = clock() - start;
        if (options.timeline) zstd_place_device_steps(recorded, start, run.timeline);
    } catch (...) {
        // Nothing may still write into memory the caller frees.
        for (bcm::command_queue* q : {&up, &program_queues[0].queue(), &program_queues[1].queue(), &down}) {
            try {
                q->finish();
            } catch (...) {
            }
        }
        throw;
    }
    // Everything is done: the next call on this context may take them.
    if (zstd_route_keeps(ctx.device(), *kept)) ctx.keep(std::move(kept));
    return run;
}

inline void zstd_report_device_route(const format::zstd_file& file, const zstd_frames_run& run, std::uint64_t input_bytes,
                                     zstd_report& report) {
    const auto& sizes = run.sizes;
    report.blocks = file.block_count;
    report.dispatched_blocks = file.block_count;
    report.batches = run.dispatches;
    report.block_batches = run.block_dispatches;
    report.resolve_rounds = run.resolve_rounds;
    report.frame_windows = run.windows;
    report.device_hashed_frames = run.hashed_frames;
    report.input_bytes = input_bytes;
    report.device_input_bytes = run.uploaded;
    report.staging_bytes = file.staging_size;
    report.transfers = run.transfers;
    report.device_seconds = run.seconds;
    report.host_seconds = run.host_seconds;
    report.wait_seconds = run.wait_seconds;
    report.timeline = run.timeline;
    report.shared_frames = run.shared_frames;
    report.shared[0] = run.shared[0], report.shared[1] = run.shared[1];
    for (std::size_t i = file.frames.size() - run.shared_frames; i < file.frames.size(); ++i)
        report.dispatched_blocks -= file.frames[i].blocks.size(); // the host's frames never went to the device
    report.paths.device = file.frames.size();
    report.frame_path.assign(file.frames.size(), zstd_frame_path::device);
    report.frame_bytes.assign(sizes.begin(), sizes.end());
    report.output_bytes = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
    report.split.frames = file.frames.size();
    report.split.skippable_frames = file.skippable_frames.size();
    report.split.device_blocks = file.block_count;
    report.split.device_bytes = report.output_bytes;
    for (const std::size_t i : run.host_frames) {
        report.frame_path[i] = zstd_frame_path::host;
        --report.paths.device;
        ++report.paths.host;
        report.split.device_blocks -= file.frames[i].blocks.size();
        report.split.device_bytes -= sizes[i];
        report.split.cpu_blocks += file.frames[i].blocks.size();
        report.split.cpu_bytes += sizes[i];
    }
}

// Into device memory: every frame made in `device_staging` and hashed there (bytes.xxh64) where
// zstd_device_hashes allows, else read back into `scratch` for its checksum; then gathered into
// a buffer of their own unless they already follow each other.
inline zstd_device_result zstd_frames_to_device(runtime::context& ctx, std::span<const std::uint8_t> data, const format::zstd_file& file,
                                                const zstd_options& options, std::span<std::uint8_t> scratch,
                                                boost::compute::buffer& device_staging) {
    std::vector<std::uint8_t> owned;
    const bool checksums = std::any_of(file.frames.begin(), file.frames.end(), [](const auto& f) { return f.checksum.has_value(); });
    if (checksums && !zstd_device_hashes(file) && scratch.size() < file.staging_size) {
        owned.resize(static_cast<std::size_t>(file.staging_size));
        scratch = owned;
    }
    const zstd_frames_run run = zstd_run_frames(ctx, data, file, options, scratch, &device_staging);
    zstd_device_result result;
    zstd_report_device_route(file, run, data.size(), result.report);
    result.output_bytes = result.report.output_bytes;
    bool packed = true;
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        packed = packed && file.frames[k].output_offset == at;
        at += run.sizes[k];
    }
    if (packed) {
        result.output = device_staging;
        return result;
    }
    result.output = runtime::allocate(ctx, runtime::padded_bytes(result.output_bytes));
    at = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        if (run.sizes[k] != 0)
            runtime::cl_call("clEnqueueCopyBuffer", [&] {
                ctx.queue().enqueue_copy_buffer(device_staging, result.output, file.frames[k].output_offset, at, run.sizes[k]);
            });
        at += run.sizes[k];
        ++result.report.transfers;
    }
    return result;
}

} // namespace vyre::engine::detail
