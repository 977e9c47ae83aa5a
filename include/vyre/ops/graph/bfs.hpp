// graph.bfs: multi-source breadth-first search over a CSR graph, reporting every sink a source
// reaches (findings). The host API: validation, the choice of variant, canonical order.
#pragma once

// Semantics: exactly reference::bfs_findings (reference/graph.hpp): one traversal per entry of
// `sources`; depth is the shortest path length; a node is reached when depth <= max_depth; a
// sanitizer is reached but never expanded and never reported; a finding (source, sink, depth,
// source_idx) for every reached node at depth >= 1 whose role is sink or source+sink, and for the
// start node itself at depth 0 when its role is source+sink. graph.reachability
// (reachability.hpp) runs the same programs reporting every reached node.
//
// Two variants with identical results (their design and programs: bfs_programs.hpp; their runs:
// detail/bfs_run.hpp; options and results: bfs_options.hpp): bounded_queue, the seed's program
// with one invocation per source and a bounded queue per level, exact only while no level
// overflows it; and bitset, unbounded, level-synchronous and bit-parallel over sources.
//
// How the host picks (variant automatic): bounded_queue only where it is exact and cheap — no
// level can hold more than 4096 nodes (bounded by node_count - 1 and by the number of nodes
// with an in-edge; by the largest out-degree when max_depth is 1) and there are at most
// automatic_bounded_max_sources sources (one invocation per source leaves a GPU idle, and its
// serial BFS grows with the graph). Everything else runs bitset.

#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/traversal.hpp>
#include <vyre/ops/graph/bfs_options.hpp>
#include <vyre/ops/graph/bfs_programs.hpp>
#include <vyre/ops/graph/detail/bfs_run.hpp>
#include <vyre/ops/graph/launch.hpp>
#include <vyre/runtime/context.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace vyre::ops::graph {

// Above this many sources `automatic` runs bitset even where the bounded queue is exact.
inline constexpr std::size_t automatic_bounded_max_sources = 256;

// The variant `automatic` runs for this input (see the top of this file).
inline bfs_variant choose_variant(const vyre::graph::csr_graph& g, std::size_t source_count, std::uint32_t max_depth) {
    if (source_count > automatic_bounded_max_sources) return bfs_variant::bitset;
    return detail::max_level_width(g, max_depth) > max_bfs_queue ? bfs_variant::bitset : bfs_variant::bounded_queue;
}

// The machinery under graph.bfs and graph.reachability: validates the graph and the sources
// (validation_error naming the first bad one), checks resources before any allocation
// (graph_resource_error), runs the chosen variant and sorts the records canonically.
inline traversal_result traverse(runtime::context& ctx, const vyre::graph::csr_graph& g, std::span<const std::uint32_t> sources,
                                 const bfs_options& options, report_mode mode) {
    vyre::graph::validate_traversal(g, sources, detail::op_name(mode).c_str());
    const bfs_variant v = options.variant == bfs_variant::automatic ? choose_variant(g, sources.size(), options.max_depth)
                                                                    : options.variant;
    traversal_result r;
    if (sources.empty()) {
        r.variant = v;
        return r;
    }
    if (sources.size() > detail::u32_max)
        throw graph_resource_error("sources", sources.size(), detail::u32_max, "sources",
                                   detail::op_name(mode) + ": " + std::to_string(sources.size()) +
                                       " sources in one call; at most 2^32-1");
    r = v == bfs_variant::bounded_queue ? detail::run_bounded(ctx, g, sources, options, mode)
                                        : detail::run_bitset(ctx, g, sources, options, mode);
    vyre::graph::sort_canonical_by_source(r.records, sources);
    return r;
}

// graph.bfs: every finding of `sources` within options.max_depth, in canonical order.
inline bfs_result bfs(runtime::context& ctx, const vyre::graph::csr_graph& g, std::span<const std::uint32_t> sources,
                      const bfs_options& options = {}) {
    traversal_result t = traverse(ctx, g, sources, options, report_mode::findings);
    return {std::move(t.records), t.total_found, t.queue_overflows, t.variant, t.batches, t.launches, t.push_levels,
            t.pull_levels, t.kernel_seconds};
}

} // namespace vyre::ops::graph
