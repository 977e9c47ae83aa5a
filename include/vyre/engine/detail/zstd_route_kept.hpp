// What zstd's device route (engine/detail/zstd_frames_pass.hpp) keeps on the context from one
// call to the next: its queues, its sets of device buffers and its walk's threads.
// Internal to engine/zstd_decompress.hpp, whose opening comment describes the routes.
#pragma once

#include <vyre/ops/bytes/xxh64.hpp>
#include <vyre/ops/compression/zstd_frames.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/device.hpp>
#include <vyre/runtime/opencl.hpp>
#include <vyre/util/parallel.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace vyre::engine::detail {

// Groups of frames in flight on the device route: the host walks group k while the device still
// works on the groups before it, up to this many of them enqueued at once (each holds a set of
// buffers). With two, the walk of group k waited for group k-2, whose last frames often still ran
// beside group k-1 (doc/ops/compression.zstd.frames.md, "Pipeline").
inline constexpr std::size_t zstd_groups_in_flight = 3;

// What the device route keeps on the context from one call to the next
// (runtime::context::take_kept): its four command queues (uploads, two for the programs,
// results), zstd_groups_in_flight sets of device buffers, and the walk's threads. Made for each
// call, they cost milliseconds around a route that itself takes tens of them on a GiB of short
// frames: making the queues, and freeing every buffer once the device is idle (the NVIDIA driver's
// rule, see below). Kept only while the sets are at most a quarter of the device's memory
// (zstd_route_keeps), so that a large file's buffers do not crowd out the next stage's.
struct zstd_route_buffer_set {
    boost::compute::buffer input;
    ops::compression::zstd_frames_buffers buffers;
    ops::bytes::xxh64_buffers hash;

    std::uint64_t bytes() const {
        std::uint64_t n = 0;
        const auto& b = buffers;
        for (const boost::compute::buffer* x : {&input, &b.frames, &b.blocks, &b.tables, &b.literals, &b.output, &b.statuses, &b.params,
                                                &b.fse.descriptions, &b.fse.params, &hash.ranges, &hash.digests, &hash.params})
            if (x->get() != nullptr) n += x->size();
        return n;
    }
};

struct zstd_route_kept {
    bool profiling = false;
    boost::compute::command_queue up, down;
    // Group k's programs run on queue k % 2, so that a group's kernel can start while the one
    // before finishes its last frames rather than after it.
    std::array<runtime::context, 2> program_queues;
    // Group k takes set k % zstd_groups_in_flight, once the group that last had it has been
    // checked: the NVIDIA driver frees memory only once the whole device is idle, so a group whose
    // buffers were freed while the next one ran would stall the pipeline.
    std::array<zstd_route_buffer_set, zstd_groups_in_flight> sets;
    std::optional<util::worker_pool> walkers; // made at the first group that walks on several threads
    unsigned walkers_for = 0;                 // the thread count `walkers` was made for (it may hold fewer)

    zstd_route_kept(runtime::context& ctx, bool profiling_queues)
        : profiling(profiling_queues), up(make_queue(ctx, profiling_queues)), down(make_queue(ctx, profiling_queues)),
          program_queues{runtime::context(make_queue(ctx, profiling_queues)), runtime::context(make_queue(ctx, profiling_queues))} {}

    static boost::compute::command_queue make_queue(runtime::context& ctx, bool profiling_queue) {
        return runtime::cl_call("clCreateCommandQueue", [&] {
            return boost::compute::command_queue(ctx.cl_context(), ctx.device().device, profiling_queue ? CL_QUEUE_PROFILING_ENABLE : 0);
        });
    }
};

// A kept set whose input or output buffer is smaller than a call's largest group needs (`input`,
// `output` bytes) would be replaced while the call runs, its old buffers held until the call ends
// (they cannot be freed while groups run): the call's peak would hold both. Such sets are freed
// before the call starts, while nothing of this route runs on the device, so that a call needs no
// more memory for what an earlier one kept.
inline void zstd_route_drop_small_sets(zstd_route_kept& kept, std::uint64_t input, std::uint64_t output) {
    for (zstd_route_buffer_set& set : kept.sets) {
        const auto small = [](const boost::compute::buffer& b, std::uint64_t need) { return b.get() != nullptr && b.size() < need; };
        if (small(set.input, input) || small(set.buffers.output, output)) set = {};
    }
}

inline bool zstd_route_keeps(const runtime::device_info& device, const zstd_route_kept& kept) {
    std::uint64_t bytes = 0;
    for (const auto& set : kept.sets) bytes += set.bytes();
    return bytes <= device.global_memory / 4;
}

} // namespace vyre::engine::detail
