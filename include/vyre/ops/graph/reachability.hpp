// graph.reachability: every (source, node, depth) with node reached from source within max_depth,
// on the device, equal after canonical sorting to reference::reachable_nodes.
#pragma once

// Built on graph.bfs's machinery (bfs.hpp): the same two variants, the same checks and batching.
// bounded_queue runs the program `graph.reachability`, which is graph.bfs's program with one
// change: it reports every node it reaches (the start at depth 0 included), not only sinks. Its
// bindings and params are graph.bfs's; a record is (source, node, depth, source_idx) in the
// findings buffer. bitset runs graph.bfs.bitset_init / graph.bfs.bitset with params mode 1.

#include <vyre/ops/graph/bfs.hpp>

#include <span>
#include <utility>
#include <vector>

namespace vyre::ops::graph {

inline ir::program reachability_program() { return detail::bounded_program(report_mode::reached); }

inline op_info reachability_info() {
    return {reachability_op_id, 1,
            "multi-source reachability: every (source, node, depth) within max_depth (graph.bfs's program reporting every "
            "reached node)",
            bfs_signature(), ir::convention::v1(), [] { return reachability_program(); }};
}

struct reachability_result {
    std::vector<vyre::graph::reach> reached; // canonical order; at most options.max_findings records
    std::uint64_t total_found = 0;           // every record found; above max_findings `reached` is a subset
    std::uint64_t queue_overflows = 0;       // > 0 only for bounded_queue, and then results may be incomplete
    bfs_variant variant = bfs_variant::automatic;
    std::uint32_t batches = 0, launches = 0, push_levels = 0, pull_levels = 0;
    double kernel_seconds = 0;
};

// Every node each source reaches within options.max_depth (options.max_findings caps the records
// stored). A source listed twice gives its records twice, as reference::reachable_nodes does.
inline reachability_result reachability(runtime::context& ctx, const vyre::graph::csr_graph& g,
                                        std::span<const std::uint32_t> sources, const bfs_options& options = {}) {
    traversal_result t = traverse(ctx, g, sources, options, report_mode::reached);
    reachability_result r{{}, t.total_found, t.queue_overflows, t.variant, t.batches,
                            t.launches, t.push_levels, t.pull_levels, t.kernel_seconds};
    r.reached.reserve(t.records.size());
    // Records are sorted by (source, node, depth, source_idx): dropping source_idx keeps the order.
    for (const auto& f : t.records) r.reached.push_back({f.source, f.sink, f.depth});
    return r;
}

} // namespace vyre::ops::graph
