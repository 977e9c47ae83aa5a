// The deflate pipeline: the plan (each stream's path, its output slot, the packed device input and
// its batches), the device pass (buffer sets in rotation, uploads, launches of compression.deflate
// and readbacks over queues of their own) and the host pass beside it (libdeflate for the host
// streams, the checks of every stream).
// Internal to engine/deflate_decompress.hpp (included there after the public types), whose opening
// comment describes the whole pipeline.
#pragma once

#include <vyre/compression/batch.hpp>
#include <vyre/compression/block.hpp>
#include <vyre/compression/deflate.hpp>
#include <vyre/engine/detail/deflate_checks.hpp>
#include <vyre/engine/detail/deflate_pieces_pass.hpp>
#include <vyre/engine/detail/queue_wait.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/bytes/crc32.hpp>
#include <vyre/ops/bytes/heads.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace vyre::engine::detail {

namespace bcm = boost::compute;

// Two streams of one source whose bytes are at most this far apart upload as one copy, gap
// included: one enqueue costs the driver microseconds, in which a PCIe copy moves tens of KiB, and
// the entries of a ZIP are a local header apart.
inline constexpr std::uint64_t deflate_merge_gap = std::uint64_t{64} << 10;

// Batch buffer sets in rotation: one uploading, one running, one reading back.
inline constexpr std::size_t deflate_buffer_sets = 3;

// Host bytes [data, data + bytes) sit at packed_offset of the packed device input.
struct deflate_input_run {
    const std::uint8_t* data = nullptr;
    std::uint64_t packed_offset = 0;
    std::uint64_t bytes = 0;
    const std::uint8_t* source = nullptr; // the source it came from (nullptr: none given)
};

struct deflate_plan {
    static constexpr std::uint32_t no_batch = std::numeric_limits<std::uint32_t>::max();

    std::span<const deflate_stream> streams;
    std::vector<deflate_path> paths;         // per stream
    std::vector<std::uint64_t> offsets;      // per stream, and the end: its slot in the output
    std::vector<std::size_t> dispatched;     // device streams, in order (extent order)
    std::vector<std::uint32_t> batch_index;  // per stream: its batch, or no_batch
    std::vector<deflate_input_run> runs;     // the packed device input
    std::uint64_t packed_bytes = 0;
    std::uint64_t device_output_bytes = 0;
    // Descriptors' input offsets are relative to the batch's window of the packed input, output
    // offsets to the batch's own output buffer (device streams packed back to back).
    std::vector<compression::block_batch> batches;
    // Per batch, the order its descriptors are launched in: longest output first (launch[b][j] is
    // the index in batches[b].blocks of the j-th). A stream decodes serially in one subgroup and the
    // device starts workgroups in about their order, so a long stream launched last would be the
    // kernel's tail; launched first, it decodes beside the rest. Neighbours of about one size also
    // end together, so a workgroup's subgroups idle less.
    std::vector<std::vector<std::uint32_t>> launch;
    std::uint64_t largest_input = 0, largest_output = 0;
    std::size_t largest_count = 0;
    std::size_t oversized = 0; // streams one dispatch cannot hold
    std::size_t pieces_streams = 0; // streams decoded on the device in pieces (deflate_path::pieces)
    // The device streams' content stays on the device (deflate_options::keep_on_device): their
    // slots in the host output are empty.
    bool keep = false;
};

inline bool deflate_cpu_device(const runtime::device_info& d) noexcept { return d.is_cpu() && !d.is_gpu(); }

inline std::uintptr_t deflate_address(const std::uint8_t* p) noexcept { return reinterpret_cast<std::uintptr_t>(p); }

// The source a stream's bytes may be merged within: its own, when the input lies inside it.
inline const std::uint8_t* deflate_source_of(const deflate_stream& s) noexcept {
    if (s.source.empty() || s.input.empty()) return nullptr;
    const std::uintptr_t lo = deflate_address(s.source.data()), hi = lo + s.source.size();
    const std::uintptr_t a = deflate_address(s.input.data()), b = a + s.input.size();
    return lo <= a && b <= hi ? s.source.data() : nullptr;
}

// `device_of()` gives the device's description; it is asked only when some stream may go to the
// device, so that a layer whose streams all stay on the host never waits for a context still being
// made (runtime::context::in_background). Without it, `oversized` counts the streams above the
// dispatch's 32-bit sizes. `device_wait_seconds`: how long asking would wait (the automatic route
// weighs it before it sends a long stream in pieces; deflate_device_wait_seconds).
template <class DeviceOf>
    requires std::is_invocable_r_v<const runtime::device_info&, DeviceOf&>
inline deflate_plan make_deflate_plan(DeviceOf&& device_of, std::span<const deflate_stream> streams, const deflate_options& options,
                                      double device_wait_seconds = 0) {
    deflate_plan plan;
    plan.streams = streams;
    const std::size_t n = streams.size();
    plan.paths.resize(n, deflate_path::host);
    plan.offsets.resize(n + 1, 0);
    plan.batch_index.assign(n, deflate_plan::no_batch);
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    bool may_dispatch = std::any_of(streams.begin(), streams.end(), [&](const deflate_stream& s) {
        return options.route == deflate_route::device || (options.route == deflate_route::automatic && s.size <= options.device_max_bytes);
    });
    if (!may_dispatch && options.route == deflate_route::automatic) {
        // Only long streams might go (in pieces): ask for the device only if one would on the
        // largest GPU, the wait for its context counted.
        std::vector<deflate_path> trial(n, deflate_path::host);
        may_dispatch = choose_piece_streams(streams, trial, deflate_pieces_largest_bytes, options, device_wait_seconds) != 0;
    }
    const runtime::device_info* device = may_dispatch ? &device_of() : nullptr;
    const std::uint64_t one_dispatch = device ? std::min(u32_max, runtime::max_word_buffer_bytes(*device)) : u32_max;
    const bool cpu = device && deflate_cpu_device(*device);
    for (std::size_t k = 0; k < n; ++k) {
        const deflate_stream& s = streams[k];
        if (s.size > options.max_output_bytes - std::min(options.max_output_bytes, plan.offsets[k]))
            throw resource_error("deflate: streams 0 to " + std::to_string(k) + " decode to more than the output limit of " +
                                 std::to_string(options.max_output_bytes) + " bytes (stream " + std::to_string(k) + ": " +
                                 std::to_string(s.size) + " bytes)");
        plan.offsets[k + 1] = plan.offsets[k] + s.size;
        if (s.input.size() > one_dispatch || s.size > one_dispatch) {
            ++plan.oversized;
            continue;
        }
        switch (options.route) {
        case deflate_route::host: break;
        case deflate_route::device: plan.paths[k] = deflate_path::device; break;
        case deflate_route::automatic:
            if (!cpu && s.size <= options.device_max_bytes) plan.paths[k] = deflate_path::device;
            break;
        }
        if (plan.paths[k] == deflate_path::device) plan.dispatched.push_back(k);
    }
    if (plan.offsets[n] > std::numeric_limits<std::size_t>::max() / 2)
        throw resource_error("deflate: " + std::to_string(plan.offsets[n]) + " bytes of output do not fit in memory");
    if (device && (options.route == deflate_route::device || !cpu)) {
        // A large stream goes in pieces rather than in a batch, whose one subgroup it would hold.
        for (const std::size_t k : plan.dispatched)
            if (streams[k].size >= deflate_pieces_min(options) && deflate_pieces_fit(streams[k], *device)) plan.paths[k] = deflate_path::host;
        std::uint64_t batch_bytes = 0; // what the batches decode before the pieces
        for (const std::size_t k : plan.dispatched)
            if (plan.paths[k] == deflate_path::device) batch_bytes += streams[k].size;
        choose_piece_streams(streams, plan.paths, deflate_pieces_max_bytes(*device), options, 0, batch_bytes); // the wait is over
        std::erase_if(plan.dispatched, [&](std::size_t k) { return plan.paths[k] != deflate_path::device; });
        for (std::size_t k = 0; k < n; ++k) plan.pieces_streams += plan.paths[k] == deflate_path::pieces;
    }
    if (plan.dispatched.empty()) return plan;

    std::vector<compression::block_extent> extents;
    extents.reserve(plan.dispatched.size());
    std::uint64_t largest_in = 1, largest_out = 1; // a batch holds at least one stream, however small the options
    for (const std::size_t k : plan.dispatched) {
        const deflate_stream& s = streams[k];
        const std::uint8_t* source = deflate_source_of(s);
        std::uint64_t at = plan.packed_bytes; // where the stream's input lands in the packed input
        if (!s.input.empty()) {
            deflate_input_run* last = plan.runs.empty() ? nullptr : &plan.runs.back();
            const std::uintptr_t a = deflate_address(s.input.data());
            const std::uintptr_t end = last ? deflate_address(last->data) + last->bytes : 0;
            if (last && source && last->source == source && a >= end && a - end <= deflate_merge_gap) {
                last->bytes = a + s.input.size() - deflate_address(last->data);
            } else {
                plan.runs.push_back({s.input.data(), plan.packed_bytes, s.input.size(), source});
                last = &plan.runs.back();
            }
            at = last->packed_offset + (a - deflate_address(last->data));
            plan.packed_bytes = last->packed_offset + last->bytes;
        }
        extents.push_back({at, plan.device_output_bytes, static_cast<std::uint32_t>(s.input.size()),
                           static_cast<std::uint32_t>(s.size), 0u});
        plan.device_output_bytes += s.size;
        largest_in = std::max<std::uint64_t>(largest_in, s.input.size());
        largest_out = std::max<std::uint64_t>(largest_out, s.size);
    }
    compression::batch_limits limits;
    limits.max_input_bytes = std::max(options.batch_input_bytes, largest_in);
    limits.max_output_bytes = std::max(options.batch_output_bytes, largest_out);
    plan.batches = compression::make_block_batches(extents, ops::device_batch_limits(*device, limits));
    for (std::size_t b = 0; b < plan.batches.size(); ++b) {
        const compression::block_batch& batch = plan.batches[b];
        for (std::size_t p = batch.first_extent; p < batch.first_extent + batch.blocks.size(); ++p)
            plan.batch_index[plan.dispatched[p]] = static_cast<std::uint32_t>(b);
        plan.largest_input = std::max(plan.largest_input, batch.input_bytes);
        plan.largest_output = std::max(plan.largest_output, batch.output_bytes);
        plan.largest_count = std::max(plan.largest_count, batch.blocks.size());
        std::vector<std::uint32_t>& order = plan.launch.emplace_back(batch.blocks.size());
        for (std::uint32_t j = 0; j < order.size(); ++j) order[j] = j;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return batch.blocks[a].output_size > batch.blocks[b].output_size; });
    }
    return plan;
}

inline deflate_plan make_deflate_plan(const runtime::device_info& device, std::span<const deflate_stream> streams,
                                      const deflate_options& options, double device_wait_seconds = 0) {
    return make_deflate_plan([&]() -> const runtime::device_info& { return device; }, streams, options, device_wait_seconds);
}

// Makes the plan keep its device streams' content on the device: their host slots shrink to nothing.
inline void keep_device_streams(deflate_plan& plan) {
    plan.keep = true;
    std::uint64_t at = 0;
    for (std::size_t k = 0; k + 1 < plan.offsets.size(); ++k) {
        const std::uint64_t size = plan.paths[k] == deflate_path::device ? 0 : plan.streams[k].size;
        plan.offsets[k] = at;
        at += size;
    }
    plan.offsets.back() = at;
}

// ---- the device pass ----------------------------------------------------------------------------

// One set of batch buffers, sized for the largest batch.
struct deflate_batch_buffers {
    bcm::buffer input, descriptors, statuses, output;
};

// Step 2: queues of its own over the caller's OpenCL context (uploads, kernels, readbacks). The
// destructor waits for everything enqueued, so that no copy lands in host memory after the caller
// has let go of it, whatever was thrown.
struct deflate_device_pass {
    runtime::context& ctx;
    const deflate_plan& plan;
    std::span<std::uint8_t> output;
    std::vector<compression::block_status>& statuses; // per stream, published per batch
    // Per dispatched stream, as read back. Pinned: a read into pageable memory is staged by the
    // driver, which can hold the host thread until the queue reaches it.
    std::optional<runtime::pinned_host_buffer> dense_memory;
    std::span<compression::block_status> dense;
    const ops::block_kernel* kernel = nullptr;
    std::optional<runtime::context> run; // a context over the kernel queue (ops::enqueue_blocks takes one)
    bcm::command_queue up, down;
    std::vector<deflate_batch_buffers> sets;
    std::vector<ops::block_launch_params> params; // per batch, alive until it ran
    std::vector<std::vector<compression::block_descriptor>> launched; // per batch, in plan.launch order, alive until uploaded
    std::vector<bcm::event> ran, done;            // per batch: its kernel (and copy to `kept`), its last readback
    std::size_t transfers = 0;
    bcm::buffer kept;                             // plan.keep: every device stream's content, back to back

    deflate_device_pass(runtime::context& c, const deflate_plan& p, std::span<std::uint8_t> o,
                        std::vector<compression::block_status>& s)
        : ctx(c), plan(p), output(o), statuses(s) {}
    deflate_device_pass(const deflate_device_pass&) = delete;
    deflate_device_pass& operator=(const deflate_device_pass&) = delete;

    ~deflate_device_pass() {
        for (bcm::command_queue* q : {&up, run ? &run->queue() : nullptr, &down}) {
            if (!q || !q->get()) continue;
            try {
                q->finish();
            } catch (...) {
            }
        }
    }

    bcm::command_queue make_queue() {
        return runtime::cl_call("clCreateCommandQueue", [&] { return bcm::command_queue(ctx.cl_context(), ctx.device().device); });
    }

    // Queues and buffers; nothing when no stream is dispatched.
    void start(const deflate_options& options) {
        if (plan.batches.empty()) return;
        kernel = &ops::kernel_for<ops::compression::deflate_op>(options.variant, ctx.device());
        up = make_queue();
        down = make_queue();
        run.emplace(make_queue());
        dense_memory.emplace(ctx, plan.dispatched.size() * sizeof(compression::block_status));
        dense = {reinterpret_cast<compression::block_status*>(dense_memory->span().data()), plan.dispatched.size()};
        params.resize(plan.batches.size());
        launched.resize(plan.batches.size());
        ran.resize(plan.batches.size());
        done.resize(plan.batches.size());
        // Fewer sets where three of the largest batch would take over half the device's memory (a
        // stream of several GiB makes its batch that large): the pipeline then waits for a set.
        const std::uint64_t per_set = plan.largest_input + plan.largest_output;
        const std::uint64_t room = ctx.device().global_memory / 2;
        const std::size_t fit =
            per_set == 0 || room == 0 ? deflate_buffer_sets : static_cast<std::size_t>(std::max<std::uint64_t>(room / per_set, 1));
        sets.resize(std::min({deflate_buffer_sets, plan.batches.size(), fit}));
        if (plan.keep) kept = runtime::allocate(ctx, std::max<std::uint64_t>(4, runtime::padded_bytes(plan.device_output_bytes)));
        for (auto& s : sets) {
            s.input = runtime::allocate(ctx, runtime::padded_bytes(plan.largest_input), CL_MEM_READ_ONLY);
            s.descriptors = runtime::allocate(ctx, plan.largest_count * sizeof(compression::block_descriptor), CL_MEM_READ_ONLY);
            s.statuses = runtime::allocate(ctx, plan.largest_count * sizeof(compression::block_status));
            s.output = runtime::allocate(ctx, runtime::padded_bytes(plan.largest_output));
        }
    }

    // Upload, kernel and readback of batch k, each on its queue, each waiting for the one before.
    void enqueue(std::size_t k) {
        const compression::block_batch& batch = plan.batches[k];
        deflate_batch_buffers& set = sets[k % sets.size()];
        const std::size_t n = batch.blocks.size();
        const std::size_t first = batch.first_extent;
        if (k >= sets.size()) // the set's previous batch is read back
            runtime::cl_call("clWaitForEvents", [&] { done[k - sets.size()].wait(); });
        // The batch's window of the packed input, from the runs it covers, through the context's
        // pinned slots filled on every core: one write per run from pageable memory was staged by
        // the driver on this thread, and it held the kernel back (the pass's enqueue mark).
        const std::uint64_t lo = batch.input_base, hi = lo + batch.input_bytes;
        std::vector<runtime::host_piece> pieces;
        auto it = std::upper_bound(plan.runs.begin(), plan.runs.end(), lo, [](std::uint64_t v, const deflate_input_run& r) {
            return v < r.packed_offset + r.bytes;
        });
        for (; it != plan.runs.end() && it->packed_offset < hi; ++it) {
            const std::uint64_t a = std::max(lo, it->packed_offset), b = std::min(hi, it->packed_offset + it->bytes);
            pieces.push_back({it->data + (a - it->packed_offset), static_cast<std::size_t>(b - a)});
        }
        runtime::write_gathered(ctx, set.input, pieces);
        transfers += (batch.input_bytes + runtime::staged_write_slice - 1) / runtime::staged_write_slice;
        std::vector<compression::block_descriptor>& descriptors = launched[k];
        descriptors.resize(n);
        for (std::size_t j = 0; j < n; ++j) descriptors[j] = batch.blocks[plan.launch[k][j]];
        const bcm::event uploaded = runtime::cl_call("clEnqueueWriteBuffer", [&] {
            return up.enqueue_write_buffer_async(set.descriptors, 0, n * sizeof(compression::block_descriptor), descriptors.data());
        });
        ++transfers;
        ops::block_buffers b;
        b.input = set.input;
        b.input_bytes = batch.input_bytes;
        b.descriptors = set.descriptors;
        b.block_count = static_cast<std::uint32_t>(n);
        b.statuses = set.statuses;
        b.output = set.output;
        b.output_bytes = batch.output_bytes;
        std::uint32_t largest = 1;
        for (const auto& d : batch.blocks) largest = std::max(largest, d.output_size);
        b.largest_output = largest;
        runtime::cl_call("clEnqueueBarrierWithWaitList", [&] { run->queue().enqueue_barrier(bcm::wait_list(uploaded)); });
        ran[k] = ops::enqueue_blocks(*run, *kernel, b, params[k]);
        // Kept content moves to its place in `kept` on the device, after the kernel (the queue is
        // in order, so the set's next kernel waits for the copy).
        if (plan.keep && batch.output_bytes != 0)
            ran[k] = runtime::cl_call("clEnqueueCopyBuffer", [&] {
                return run->queue().enqueue_copy_buffer(set.output, kept, 0, batch.output_base, batch.output_bytes);
            });
        runtime::cl_call("clEnqueueReadBuffer", [&] {
            bcm::event last = down.enqueue_read_buffer_async(set.statuses, 0, n * sizeof(compression::block_status),
                                                             dense.data() + first, bcm::wait_list(ran[k]));
            ++transfers;
            if (plan.keep) {
                done[k] = last;
                return;
            }
            // Streams next to each other in the output (no host stream between them) come back in
            // one copy: the device packs its streams back to back.
            for (std::size_t p = first; p < first + n;) {
                std::size_t q = p + 1;
                while (q < first + n && plan.offsets[plan.dispatched[q - 1] + 1] == plan.offsets[plan.dispatched[q]]) ++q;
                const auto &d0 = batch.blocks[p - first], &dl = batch.blocks[q - 1 - first];
                const std::uint64_t bytes = std::uint64_t{dl.output_offset} + dl.output_size - d0.output_offset;
                if (bytes != 0) {
                    last = down.enqueue_read_buffer_async(set.output, d0.output_offset, bytes,
                                                          output.data() + plan.offsets[plan.dispatched[p]]);
                    ++transfers;
                }
                p = q;
            }
            done[k] = last;
        });
        // Cross-queue waits only resolve once the commands waited on are submitted.
        runtime::cl_call("clFlush", [&] {
            up.flush();
            run->queue().flush();
            down.flush();
        });
    }

    // Whether batch k is back (statuses and bytes); throws when a command of it failed.
    bool complete(std::size_t k) {
        for (bcm::event* e : {&ran[k], &done[k]}) {
            const cl_int s = runtime::cl_call("clGetEventInfo", [&] { return e->status(); });
            if (s < 0)
                throw error("compression.deflate: a device command of batch " + std::to_string(k) + " failed (status " +
                            std::to_string(s) + ")");
        }
        return runtime::cl_call("clGetEventInfo", [&] { return done[k].status(); }) == CL_COMPLETE;
    }

    // The statuses of batch k, which came back in launch order.
    void publish(std::size_t k) {
        const compression::block_batch& batch = plan.batches[k];
        for (std::size_t j = 0; j < batch.blocks.size(); ++j)
            statuses[plan.dispatched[batch.first_extent + plan.launch[k][j]]] = dense[batch.first_extent + j];
    }

    void finish() {
        for (bcm::command_queue* q : {&up, run ? &run->queue() : nullptr, &down})
            if (q && q->get()) wait_queue_idle(*q, "compression.deflate");
    }

    // The kept checks' programs, built (or loaded) before they are needed.
    void prepare_kept_checks() {
        ops::bytes::crc32_kernel().kernel_for(*run);
        ops::bytes::heads_kernel().kernel_for(*run);
    }

    // plan.keep, once every batch is back: the kept streams' CRC-32s and heads, computed on the
    // device; only they are read back. Indexed by position in plan.dispatched.
    void kept_checks(std::vector<std::uint32_t>& crcs, std::vector<std::uint8_t>& heads) {
        // The heads come back through the caller's pinned slots (made by the uploads): pinning
        // slots of this pass's own would cost tens of milliseconds.
        if (!run->staging()) run->staging() = ctx.staging();
        std::vector<ops::bytes::byte_range> ranges(plan.dispatched.size());
        for (const auto& batch : plan.batches)
            for (std::size_t i = 0; i < batch.blocks.size(); ++i)
                ranges[batch.first_extent + i] = {batch.output_base + batch.blocks[i].output_offset, batch.blocks[i].output_size};
        crcs = ops::bytes::crc32_device(*run, kept, ranges);
        heads = ops::bytes::heads_device(*run, kept, ranges, deflate_head_bytes);
        transfers += 2;
    }
};

// ---- both passes --------------------------------------------------------------------------------

// Steps 2 and 3: the device pass on this thread, the host pass on every core beside it. `output`
// holds plan.offsets.back() bytes; errors[k] is set for each stream that fails. With plan.keep,
// the device streams are checked against the CRCs computed on the device, and *kept says where
// their content is.
inline deflate_report deflate_run_passes(runtime::context& ctx, const deflate_plan& plan, const deflate_options& options,
                                         std::span<std::uint8_t> output, std::vector<std::optional<std::string>>& errors,
                                         std::shared_ptr<const deflate_kept>* kept = nullptr) {
    const std::span<const deflate_stream> streams = plan.streams;
    const std::size_t n = streams.size();
    deflate_report report;
    report.streams = n;
    report.device_streams = plan.dispatched.size() + plan.pieces_streams;
    report.host_streams = n - report.device_streams;
    report.piece_streams = plan.pieces_streams;
    report.oversized_streams = plan.oversized;
    report.batches = plan.batches.size();
    report.output_bytes = plan.offsets.back();
    report.device_input_bytes = plan.packed_bytes;
    report.device_output_bytes = plan.device_output_bytes;
    for (const auto& s : streams) report.input_bytes += s.input.size();
    if (n == 0) return report;

    std::vector<compression::block_status> statuses(n, compression::block_status{compression::deflate_error::none, 0});
    std::vector<std::promise<void>> ready(plan.batches.size());
    std::vector<std::shared_future<void>> futures;
    futures.reserve(ready.size());
    for (auto& p : ready) futures.push_back(p.get_future().share());
    // Host streams first: they decode without waiting, and by the time the pool reaches the device
    // streams, their batches are back.
    std::vector<std::size_t> order;
    order.reserve(n);
    // Kept streams are checked after both passes, from their CRCs.
    for (int pass = 0; pass < (plan.keep ? 1 : 2); ++pass)
        for (std::size_t k = 0; k < n; ++k)
            if (plan.paths[k] == (pass == 0 ? deflate_path::host : deflate_path::device)) order.push_back(k);
    const std::size_t worked = order.size();

    using clock = std::chrono::steady_clock;
    std::atomic<std::int64_t> waited_ns{0}, host_end_ns{0};
    const auto started = clock::now();
    std::atomic<std::size_t> next{0};
    // A thread's exception (out of memory; a device failure, which the driver holds too) stops the
    // call once both passes are over; the first is kept.
    std::exception_ptr host_failure;
    std::atomic_flag failed = ATOMIC_FLAG_INIT;
    auto worker = [&, futures] { // each thread waits through its own copies of the futures
        for (std::size_t i; (i = next.fetch_add(1)) < worked;) {
            const std::size_t k = order[i];
            const std::span<std::uint8_t> out = output.subspan(static_cast<std::size_t>(plan.offsets[k]),
                                                               static_cast<std::size_t>(streams[k].size));
            try {
                if (plan.paths[k] == deflate_path::host) {
                    errors[k] = deflate_host_stream(streams[k], out);
                    continue;
                }
                const auto& f = futures[plan.batch_index[k]];
                if (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
                    const auto t0 = clock::now();
                    f.wait();
                    waited_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t0).count();
                }
                f.get();
                errors[k] = deflate_check(streams[k], statuses[k], out);
            } catch (...) {
                if (!failed.test_and_set()) host_failure = std::current_exception();
            }
        }
        const std::int64_t end = std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - started).count();
        for (std::int64_t seen = host_end_ns.load(); seen < end && !host_end_ns.compare_exchange_weak(seen, end);) {
        }
    };
    const auto n_threads = static_cast<unsigned>(std::min<std::size_t>(util::thread_count(options.threads), std::max<std::size_t>(worked, 1)));
    std::exception_ptr device_failure;
    std::vector<std::uint32_t> kept_crcs;
    std::vector<std::uint8_t> kept_heads;
    bcm::buffer kept_buffer;
    // This thread drives the device while the pool works; it sleeps while the device runs.
    util::run_beside(n_threads, worker, [&] {
        try {
            const auto mark = [&] { return std::chrono::duration<double>(clock::now() - started).count(); };
            deflate_device_pass pass(ctx, plan, output, statuses);
            pass.start(options);
            report.device_ready_seconds = mark();
            for (std::size_t k = 0; k < plan.batches.size(); ++k) pass.enqueue(k);
            report.device_enqueued_seconds = mark();
            if (plan.keep) pass.prepare_kept_checks(); // while the batches run
            for (std::size_t published = 0; published < plan.batches.size();) {
                while (published < plan.batches.size() && pass.complete(published)) {
                    pass.publish(published);
                    ready[published++].set_value();
                }
                if (published < plan.batches.size()) std::this_thread::sleep_for(std::chrono::microseconds(50));
            }
            report.device_batches_seconds = mark();
            if (plan.keep) {
                pass.kept_checks(kept_crcs, kept_heads);
                kept_buffer = pass.kept;
            }
            pass.finish();
            report.transfers = pass.transfers;
            std::vector<std::size_t> in_pieces;
            for (std::size_t k = 0; k < n; ++k)
                if (plan.paths[k] == deflate_path::pieces) in_pieces.push_back(k);
            if (!in_pieces.empty()) {
                const deflate_pieces_summary o = decode_in_pieces(ctx, streams, in_pieces, output, plan.offsets, errors);
                report.pieces += o.pieces;
                report.piece_fallbacks += o.fallbacks;
                if (report.piece_fallback_reason.empty()) report.piece_fallback_reason = o.first_fallback_reason;
            }
            report.device_streams -= report.piece_fallbacks;
            report.host_streams += report.piece_fallbacks;
            report.device_seconds = std::chrono::duration<double>(clock::now() - started).count();
        } catch (...) {
            device_failure = std::current_exception();
            for (auto& p : ready) {
                try {
                    p.set_exception(device_failure);
                } catch (const std::future_error&) { // already satisfied
                }
            }
        }
    });
    report.host_seconds = double(host_end_ns.load()) * 1e-9;
    report.wait_seconds = double(waited_ns.load()) * 1e-9;
    if (device_failure) std::rethrow_exception(device_failure);
    if (host_failure) std::rethrow_exception(host_failure);
    if (plan.keep) {
        auto k = std::make_shared<deflate_kept>();
        k->buffer = kept_buffer;
        k->offsets.assign(n, deflate_kept::not_kept);
        k->slots.assign(n, 0);
        for (const auto& batch : plan.batches)
            for (std::size_t i = 0; i < batch.blocks.size(); ++i) {
                const std::size_t p = batch.first_extent + i, s = plan.dispatched[p];
                errors[s] = deflate_check_crc(streams[s], statuses[s], kept_crcs.at(p));
                k->offsets[s] = batch.output_base + batch.blocks[i].output_offset;
                k->slots[s] = static_cast<std::uint32_t>(p);
            }
        k->heads = std::move(kept_heads);
        k->bytes = plan.device_output_bytes;
        report.kept_bytes = k->bytes;
        if (kept) *kept = std::move(k);
    }
    for (const auto& e : errors) report.failed_streams += e.has_value();
    return report;
}

} // namespace vyre::engine::detail
