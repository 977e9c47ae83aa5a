// What graph.bfs, graph.reachability and engine::dataflow launches share on the host: the memory
// one launch may use, the error naming a broken limit, a launch log, fills and word reads.
#pragma once

#include <vyre/error.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace vyre::ops::graph {


// A request above what the device (or u32 indexing) allows, with the numbers as fields: which
// quantity, how much it needs and the limit it broke (bytes, or a count where the unit says so).
class graph_resource_error : public resource_error {
public:
    graph_resource_error(std::string quantity, std::uint64_t required, std::uint64_t limit, std::string unit,
                         const std::string& what)
        : resource_error(what), quantity_(std::move(quantity)), required_(required), limit_(limit), unit_(std::move(unit)) {}
    const std::string& quantity() const noexcept { return quantity_; }
    std::uint64_t required() const noexcept { return required_; }
    std::uint64_t limit() const noexcept { return limit_; }
    const std::string& unit() const noexcept { return unit_; }

private:
    std::string quantity_;
    std::uint64_t required_, limit_;
    std::string unit_;
};

// Device memory one traversal plans to use: 7/8 of the device's memory (the rest is left to
// others), and never more than launch_memory_cap. The cap is a driver quirk: NVIDIA's OpenCL
// driver on the H100 reports far more memory, and a largest allocation far above the cap, yet
// launches whose buffers totalled somewhat more than 8 GiB never finished or failed with
// CL_OUT_OF_RESOURCES, leaving the context unusable (doc/ops/graph.md, "Resource checks", has
// the measurements). Staying within 8 GiB per launch costs only batch size: the bitset variant
// runs more batches, and the bounded variant refuses (graph_resource_error) what it cannot hold.
inline constexpr std::uint64_t launch_memory_cap = std::uint64_t{8} << 30;

inline std::uint64_t launch_memory_budget(const runtime::device_info& d) {
    return std::min(d.global_memory - d.global_memory / 8, launch_memory_cap);
}

// The largest buffer a traversal allocates: the device's largest allocation, u32 indexing
// (2^32-1 words) and the launch budget.
inline std::uint64_t max_buffer_bytes(const runtime::device_info& d) {
    return 4 * std::min({d.max_allocation / 4, std::uint64_t{std::numeric_limits<std::uint32_t>::max()}, launch_memory_budget(d) / 4});
}

// Launches of one traversal, and their device time where the queue profiles.
struct launch_log {
    runtime::context* ctx;
    std::vector<boost::compute::event> events;
    std::uint32_t launches = 0;

    void add(const boost::compute::event& e) {
        ++launches;
        if (ctx->profiling() && e.get()) events.push_back(e);
    }
    double seconds() const {
        double s = 0;
        for (const auto& e : events) s += runtime::event_seconds(*ctx, e);
        return s;
    }
};

// Fills `bytes` bytes of `b` with the u32 `pattern`, on the context's queue; returns the event.
inline boost::compute::event fill_words(runtime::context& ctx, boost::compute::buffer& b, std::uint32_t pattern,
                                        std::size_t bytes) {
    return runtime::fill(ctx, b, pattern, bytes);
}

inline std::uint32_t read_word(runtime::context& ctx, const boost::compute::buffer& b) {
    std::uint32_t v = 0;
    runtime::read(ctx, b, &v, 4);
    return v;
}

// Workgroups that cover `invocations`, at least min_workgroups (tests dispatch extra ones, which
// must change nothing).
inline std::uint32_t launch_groups(std::uint64_t invocations, std::uint32_t workgroup, std::uint32_t min_workgroups) {
    return std::max(runtime::groups_for(invocations, workgroup), min_workgroups);
}

} // namespace vyre::ops::graph
