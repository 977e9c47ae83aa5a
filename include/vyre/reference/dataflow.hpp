// CPU references of the dataflow engine (engine/dataflow.hpp): a plain one-source-at-a-time
// traversal the tests trust, and a multi-threaded bit-parallel one (64 sources per u64 word) that
// is the CPU peer in benchmarks. Both take the transfer function's host form.
//
// Semantics, shared with the engine:
// - One traversal per entry of `sources` (source_idx = position). A fact starts at the source's
//   node at depth 0 and crosses edge u -> v (edge index k, kind kinds[k], or 0 without kinds)
//   when the transfer function, given that edge and the source, lets the source's lane through.
// - A transfer function sees a word of 32 lanes: bit l stands for source_idx lane_base + l, and
//   lane_base is a multiple of 32. It returns the lanes that cross; lanes it was not given never
//   cross (the caller ANDs), so a transfer can block, allow, or filter lanes. It must be
//   lane-wise: bit l of its answer may depend on lane l's source_idx and on the edge, never on
//   the other bits of `lanes` (so that 1 source or 32 sources at once give the same result).
// - Depth is the length of the shortest path of crossable edges; a node is reached when its depth
//   <= max_depth. Findings are graph.bfs's: (source, sink, depth, source_idx) for each reached
//   node at depth >= 1 whose role is sink or source+sink, and the start at depth 0 when it is
//   source+sink (reference::reports_finding). Canonical order (graph/finding.hpp).
#pragma once

#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/graph/traversal.hpp>
#include <vyre/reference/graph.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::reference {

// Four words a transfer function may read, set per run (by rules, never by the graph).
using transfer_params = std::array<std::uint32_t, 4>;

// What a transfer function knows about one edge for one word of lanes.
struct edge_view {
    std::uint32_t lane_base;  // source_idx of bit 0 (a multiple of 32)
    std::uint32_t from, to;   // the edge u -> v
    std::uint32_t from_label, to_label;
    std::uint32_t kind;       // edge kind (0 where the graph has none)
    transfer_params params;
};

namespace detail {

inline std::uint32_t kind_at(std::span<const std::uint32_t> kinds, std::uint64_t k) noexcept {
    return kinds.empty() ? 0 : kinds[k];
}

} // namespace detail

// The plain algorithm, written for obviousness: one BFS per source, asking the transfer function
// about the source's own lane on every edge.
template <class Transfer>
std::vector<graph::finding> dataflow_findings(const graph::csr_graph& g, std::span<const std::uint32_t> kinds,
                                              std::span<const std::uint32_t> sources, std::uint32_t max_depth,
                                              Transfer&& transfer, const transfer_params& params = {}) {
    graph::validate_traversal(g, sources, "dataflow_findings");
    graph::validate_edge_kinds(g, kinds, "dataflow_findings");
    std::vector<graph::finding> out;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const auto idx = static_cast<std::uint32_t>(i);
        const std::uint32_t bit = 1u << (idx % 32), lane_base = idx - idx % 32;
        std::vector<bool> visited(g.node_count(), false);
        std::deque<std::pair<std::uint32_t, std::uint32_t>> queue{{sources[i], 0}};
        visited[sources[i]] = true;
        while (!queue.empty()) {
            const auto [u, depth] = queue.front();
            queue.pop_front();
            if (reports_finding(g.node_data[u], depth)) out.push_back({sources[i], u, depth, idx});
            if (depth == max_depth) continue;
            for (std::uint64_t k = g.offsets[u]; k < g.offsets[u + 1]; ++k) {
                const std::uint32_t v = g.targets[k];
                const edge_view e{lane_base, u, v, g.node_data[u], g.node_data[v], detail::kind_at(kinds, k), params};
                if (visited[v] || (transfer(bit, e) & bit) == 0) continue;
                visited[v] = true;
                queue.push_back({v, depth + 1});
            }
        }
    }
    graph::sort_canonical(out);
    return out;
}

namespace detail {

// Level-synchronous traversal of up to 64*W sources at once (as bit_walker in graph.hpp), with
// the transfer function applied per edge to each 32-lane half-word that holds a lane.
template <std::size_t W, class Transfer>
class dataflow_walker {
public:
    static constexpr std::size_t lanes = 64 * W;

    dataflow_walker(const graph::csr_graph& g, std::span<const std::uint32_t> kinds, const Transfer& t,
                    const transfer_params& p)
        : g_(g), kinds_(kinds), transfer_(t), params_(p), visited_(g.node_count()), next_(g.node_count()),
          frontier_(g.node_count()) {}

    // on_level(node, depth, lanes newly reaching node at this depth). base: source_idx of lane 0.
    template <class OnLevel>
    void walk(std::span<const std::uint32_t> batch, std::uint32_t base, std::uint32_t max_depth, OnLevel on_level) {
        current_.clear();
        for (std::size_t l = 0; l < batch.size(); ++l) {
            const std::uint32_t s = batch[l];
            if (!frontier_[s].any()) current_.push_back(s);
            frontier_[s].w[l / 64] |= std::uint64_t{1} << (l % 64);
        }
        touched_.assign(current_.begin(), current_.end());
        for (const std::uint32_t s : current_) {
            visited_[s] = frontier_[s];
            on_level(s, 0, frontier_[s]);
        }
        for (std::uint32_t depth = 1; !current_.empty() && depth - 1 != max_depth; ++depth) {
            expand(base);
            std::sort(next_list_.begin(), next_list_.end());
            for (const std::uint32_t u : current_) frontier_[u] = {};
            for (const std::uint32_t v : next_list_) {
                frontier_[v] = next_[v];
                next_[v] = {};
                on_level(v, depth, frontier_[v]);
            }
            touched_.insert(touched_.end(), next_list_.begin(), next_list_.end());
            current_.swap(next_list_);
        }
        for (const std::uint32_t u : current_) frontier_[u] = {};
        for (const std::uint32_t u : touched_) visited_[u] = {};
    }

private:
    // The lanes of a 64-lane word that cross edge e: two 32-lane questions, skipping empty halves.
    std::uint64_t cross(std::uint64_t word, edge_view& e, std::uint32_t lane_base) const {
        std::uint64_t out = 0;
        if (const auto lo = static_cast<std::uint32_t>(word)) {
            e.lane_base = lane_base;
            out = transfer_(lo, e) & lo;
        }
        if (const auto hi = static_cast<std::uint32_t>(word >> 32)) {
            e.lane_base = lane_base + 32;
            out |= std::uint64_t{transfer_(hi, e) & hi} << 32;
        }
        return out;
    }

    void expand(std::uint32_t base) {
        next_list_.clear();
        for (const std::uint32_t u : current_) {
            const lane_set<W> f = frontier_[u];
            edge_view e{0, u, 0, g_.node_data[u], 0, 0, params_};
            for (std::uint64_t k = g_.offsets[u]; k < g_.offsets[u + 1]; ++k) {
                const std::uint32_t v = g_.targets[k];
                e.to = v;
                e.to_label = g_.node_data[v];
                e.kind = kind_at(kinds_, k);
                lane_set<W>& seen = visited_[v];
                lane_set<W> fresh;
                std::uint64_t any = 0;
                for (std::size_t i = 0; i < W; ++i) {
                    const std::uint64_t candidates = f.w[i] & ~seen.w[i];
                    fresh.w[i] = candidates ? cross(candidates, e, base + static_cast<std::uint32_t>(64 * i)) : 0;
                    any |= fresh.w[i];
                }
                if (any == 0) continue;
                lane_set<W>& nx = next_[v];
                if (!nx.any()) next_list_.push_back(v);
                for (std::size_t i = 0; i < W; ++i) {
                    nx.w[i] |= fresh.w[i];
                    seen.w[i] |= fresh.w[i];
                }
            }
        }
    }

    const graph::csr_graph& g_;
    std::span<const std::uint32_t> kinds_;
    const Transfer& transfer_;
    transfer_params params_;
    std::vector<lane_set<W>> visited_, next_, frontier_;
    std::vector<std::uint32_t> current_, next_list_, touched_;
};

template <std::size_t W, class Transfer>
collection dataflow_batches(const graph::csr_graph& g, std::span<const std::uint32_t> kinds,
                            std::span<const std::uint32_t> sources, std::uint32_t max_depth, const Transfer& t,
                            const transfer_params& p, unsigned threads) {
    constexpr std::size_t lanes = dataflow_walker<W, Transfer>::lanes;
    const std::size_t batches = (sources.size() + lanes - 1) / lanes;
    return collect(batches, sources.size(), threads, [&] {
        return [&, walker = dataflow_walker<W, Transfer>(g, kinds, t, p)](std::size_t b, std::vector<tagged>& out) mutable {
            const std::size_t base = b * lanes;
            const auto batch = sources.subspan(base, std::min(lanes, sources.size() - base));
            walker.walk(batch, static_cast<std::uint32_t>(base), max_depth,
                        [&](std::uint32_t node, std::uint32_t depth, const lane_set<W>& reached) {
                            if (!reports_finding(g.node_data[node], depth)) return;
                            reached.for_each_lane([&](std::uint32_t l) {
                                out.push_back({batch[l], node, depth, static_cast<std::uint32_t>(base + l)});
                            });
                        });
        };
    });
}

} // namespace detail

// dataflow_findings by bit-parallel traversal on `threads` threads (0: every hardware thread):
// the CPU peer of the engine. Transfer is called as transfer(lanes, edge_view) -> lanes.
template <class Transfer>
std::vector<graph::finding> dataflow_findings_bitparallel(const graph::csr_graph& g, std::span<const std::uint32_t> kinds,
                                                          std::span<const std::uint32_t> sources, std::uint32_t max_depth,
                                                          const Transfer& transfer, const transfer_params& params = {},
                                                          unsigned threads = 0) {
    graph::validate_traversal(g, sources, "dataflow_findings_bitparallel");
    graph::validate_edge_kinds(g, kinds, "dataflow_findings_bitparallel");
    const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(util::thread_count(threads), sources.size()));
    // Wider words share each edge scan among more sources, while every thread still has a batch.
    const auto c = sources.size() >= 256 * workers
                       ? detail::dataflow_batches<4>(g, kinds, sources, max_depth, transfer, params, threads)
                   : sources.size() >= 128 * workers
                       ? detail::dataflow_batches<2>(g, kinds, sources, max_depth, transfer, params, threads)
                       : detail::dataflow_batches<1>(g, kinds, sources, max_depth, transfer, params, threads);
    return detail::assemble<graph::finding>(c, sources, threads, detail::as_finding);
}

} // namespace vyre::reference
