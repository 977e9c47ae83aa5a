// The graph as engine::dataflow lays it out on the device, built on the host (engine/dataflow.hpp):
// the reverse graph that pull levels walk, and the pull tasks of the nodes with many in-edges.
#pragma once

#include <vyre/graph/csr.hpp>
#include <vyre/ops/dataflow/level.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace vyre::engine::detail {

// Pull tasks of a graph of edge_count edges at most: a node with d > edge_chunk in-edges has
// ceil(d / edge_chunk) <= 2 * floor(d / edge_chunk) of them.
inline std::uint64_t pull_task_bound(std::uint64_t edge_count) {
    return 2 * (edge_count / ops::dataflow::dataflow_edge_chunk);
}

// The reverse graph keeps every edge (whether one carries a fact is the transfer's call), with
// its kind: in-edge j of v is u -> v with kind in_kinds[j] (no kinds when the graph has none).
// pull_tasks holds 2 words per task: node, first in-edge.
struct dataflow_reverse {
    std::vector<std::uint32_t> in_offsets, in_sources, in_kinds, pull_tasks;
};

inline dataflow_reverse build_dataflow_reverse(const graph::csr_graph& g, std::span<const std::uint32_t> kinds) {
    constexpr std::uint32_t chunk = ops::dataflow::dataflow_edge_chunk;
    const std::uint32_t n = g.node_count();
    dataflow_reverse r;
    auto& in_offsets = r.in_offsets;
    in_offsets.assign(std::size_t{n} + 1, 0);
    r.in_sources.resize(g.targets.size());
    for (const std::uint32_t v : g.targets) ++in_offsets[std::size_t{v} + 1];
    for (std::size_t i = 1; i < in_offsets.size(); ++i) in_offsets[i] += in_offsets[i - 1];
    if (!kinds.empty()) r.in_kinds.resize(kinds.size());
    {
        std::vector<std::uint32_t> cursor(in_offsets.begin(), in_offsets.end() - 1);
        for (std::uint32_t u = 0; u < n; ++u)
            for (std::uint32_t k = g.offsets[u]; k < g.offsets[u + 1]; ++k) {
                const std::uint32_t at = cursor[g.targets[k]]++;
                r.in_sources[at] = u;
                if (!kinds.empty()) r.in_kinds[at] = kinds[k];
            }
    }
    // Pull tasks: the in-edges of every node with more than edge_chunk of them, edge_chunk a task.
    for (std::uint32_t v = 0; v < n; ++v)
        if (in_offsets[v + 1] - in_offsets[v] > chunk)
            for (std::uint64_t first = in_offsets[v]; first < in_offsets[v + 1]; first += chunk) {
                r.pull_tasks.push_back(v);
                r.pull_tasks.push_back(static_cast<std::uint32_t>(first));
            }
    return r;
}

} // namespace vyre::engine::detail
