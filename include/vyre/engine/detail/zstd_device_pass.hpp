// The zstd pipeline's device side: batch buffers in rotation, uploads, launches of compression.zstd
// and readbacks over queues of their own.
// Internal to engine/zstd_decompress.hpp, whose opening comment describes the whole pipeline.
#pragma once

#include <vyre/engine/detail/queue_wait.hpp>
#include <vyre/engine/detail/zstd_plan.hpp>

namespace vyre::engine::detail {

namespace cz = ops::compression;
namespace fmt = format;
namespace bcm = boost::compute;

inline void zstd_wait_idle(bcm::command_queue& q) { wait_queue_idle(q, "compression.zstd"); }

inline void zstd_wait_idle(runtime::context& ctx) { zstd_wait_idle(ctx.queue()); }

inline void zstd_upload(bcm::command_queue& q, bcm::buffer& dst, std::uint64_t dst_offset, const std::uint8_t* src,
                        std::uint64_t bytes) {
    if (bytes == 0) return;
    runtime::cl_call("clEnqueueWriteBuffer", [&] { q.enqueue_write_buffer_async(dst, dst_offset, bytes, src); });
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
    std::vector<compression::block_status>& statuses;  // what the host pass reads (raw/RLE blocks published)
    std::vector<compression::block_status>& answers;   // the device's answers, every block
    // Per dispatched block, as read back. Pinned: a read into pageable memory is staged by the
    // driver, which can hold the host thread until the queue reaches it.
    std::optional<runtime::pinned_host_buffer> dense_memory;
    std::span<compression::block_status> dense;
    const ops::block_kernel* kernel = nullptr;
    std::optional<runtime::context> run;      // a context over the kernel queue (ops::enqueue_blocks takes one)
    bcm::command_queue up, down, result;
    std::vector<zstd_batch_buffers> sets;
    std::vector<ops::block_launch_params> params; // per batch, alive until it ran
    std::vector<bcm::event> ran, done;        // per batch: its kernel, its last readback
    std::size_t transfers = 0;

    zstd_device_pass(runtime::context& c, std::span<const std::uint8_t> d, const zstd_plan& p, std::span<std::uint8_t> s,
                     bcm::buffer& ds, std::vector<compression::block_status>& st, std::vector<compression::block_status>& an)
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
        return runtime::cl_call("clCreateCommandQueue",
                                        [&] { return bcm::command_queue(ctx.cl_context(), ctx.device().device); });
    }

    // Queues and buffers; nothing when no block is dispatched and nothing is uploaded.
    void start(const zstd_options& options) {
        if (plan.target == zstd_target::device) result = make_queue();
        if (plan.batches.empty()) return;
        kernel = &ops::kernel_for<ops::compression::zstd_op>(options.variant, ctx.device());
        up = make_queue();
        down = make_queue();
        run.emplace(make_queue());
        dense_memory.emplace(ctx, std::max<std::size_t>(plan.dispatched.size(), 1) * sizeof(compression::block_status));
        dense = {reinterpret_cast<compression::block_status*>(dense_memory->span().data()), plan.dispatched.size()};
        params.resize(plan.batches.size());
        ran.resize(plan.batches.size());
        done.resize(plan.batches.size());
        sets.resize(std::min(zstd_buffer_sets, plan.batches.size()));
        for (auto& s : sets) {
            s.input = runtime::allocate(ctx, runtime::padded_bytes(plan.largest_input), CL_MEM_READ_ONLY);
            s.descriptors = runtime::allocate(ctx, plan.largest_count * sizeof(compression::block_descriptor), CL_MEM_READ_ONLY);
            s.statuses = runtime::allocate(ctx, plan.largest_count * sizeof(compression::block_status));
            if (plan.target == zstd_target::host) s.output = runtime::allocate(ctx, runtime::padded_bytes(plan.largest_output));
        }
    }

    // Upload, kernel and readback of batch k, each on its queue, each waiting for the one before.
    void enqueue(std::size_t k) {
        const compression::block_batch& batch = plan.batches[k];
        zstd_batch_buffers& set = sets[k % sets.size()];
        const std::size_t n = batch.blocks.size();
        const std::size_t first = batch.first_extent;
        bcm::wait_list after;
        if (k >= sets.size()) after.insert(done[k - sets.size()]); // the set's previous batch is read back
        bcm::event uploaded;
        runtime::cl_call("clEnqueueWriteBuffer", [&] {
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
            uploaded = up.enqueue_write_buffer_async(set.descriptors, 0, n * sizeof(compression::block_descriptor), batch.blocks.data(), after);
            ++transfers;
        });
        ops::block_buffers b;
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
        runtime::cl_call("clEnqueueBarrierWithWaitList", [&] { run->queue().enqueue_barrier(bcm::wait_list(uploaded)); });
        ran[k] = ops::enqueue_blocks(*run, *kernel, b, params[k]);
        runtime::cl_call("clEnqueueReadBuffer", [&] {
            bcm::event last = down.enqueue_read_buffer_async(set.statuses, 0, n * sizeof(compression::block_status), dense.data() + first,
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
                throw error("compression.zstd: a device command of batch " + std::to_string(k) + " failed (status " +
                            std::to_string(s) + ")");
        }
        return runtime::cl_call("clGetEventInfo", [&] { return done[k].status(); }) == CL_COMPLETE;
    }

    // Statuses of compressed blocks stay at their preset {4, 0} for the host pass.
    void publish(std::size_t k) {
        const compression::block_batch& batch = plan.batches[k];
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

} // namespace vyre::engine::detail
