// CPU references (the oracles) of graph.reachability and graph.bfs, plus two multi-threaded CPU
// versions with identical results: one BFS per source over threads, and a bit-parallel
// level-synchronous BFS that runs 64 sources per u64 word (the CPU peer in benchmarks), which also
// counts the edges a traversal scans (traversed_edges, for benchmarks' rates).
//
// Semantics, shared by every function here and by the GPU ops:
// - One traversal per entry of `sources`; entry i has source_idx i. A node listed twice is
//   traversed twice and its records appear twice (findings differ in source_idx).
// - Depth is the shortest number of edges from the start node; the start node has depth 0.
//   A node is reached when its depth <= max_depth (inclusive); max_depth 0 reaches only the start.
// - A sanitizer node is reached (it appears in reachable_nodes at its depth) but its outgoing
//   edges are never followed; this holds for a sanitizer start node too.
// - reachable_nodes reports every reached node, the start node included, at depth 0.
// - bfs_findings reports (source, sink, depth, source_idx) for every reached node at depth >= 1
//   whose role is sink or source+sink. The start node itself is reported at depth 0 only when its
//   role is source+sink (the seed: "no finding unless the node has both labels"); a self-loop
//   never adds a depth-1 finding, because the start node is already visited. Nodes of role source
//   are traversed but never reported; sanitizers are never reported; reserved roles act as normal.
// - Results are returned in canonical order (finding.hpp), so equal semantics give equal vectors.
// - Invalid input throws validation_error: a graph failing csr_graph::validate(), a source id not
//   below node_count, or more than 2^32 sources (source_idx is u32).
#pragma once

#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/graph/traversal.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

namespace vyre::reference {

// Whether reaching a node with this label at this depth reports a finding (see the header).
constexpr bool reports_finding(std::uint32_t label, std::uint32_t depth) noexcept {
    return depth == 0 ? graph::role_of(label) == graph::role::source_and_sink : graph::is_sink(label);
}

namespace detail {

// The plain algorithm, written for obviousness: a queue of (node, depth) and a fresh visited set.
template <class OnReach>
void simple_bfs(const graph::csr_graph& g, std::uint32_t start, std::uint32_t max_depth, OnReach on_reach) {
    std::vector<bool> visited(g.node_count(), false);
    std::deque<std::pair<std::uint32_t, std::uint32_t>> queue{{start, 0}};
    visited[start] = true;
    while (!queue.empty()) {
        const auto [node, depth] = queue.front();
        queue.pop_front();
        on_reach(node, depth);
        if (depth == max_depth || graph::is_sanitizer(g.node_data[node])) continue;
        for (const std::uint32_t next : g.neighbors(node)) {
            if (visited[next]) continue;
            visited[next] = true;
            queue.push_back({next, depth + 1});
        }
    }
}

} // namespace detail

// Every (source, node, depth) with node reached from source within max_depth, canonical order.
inline std::vector<graph::reach> reachable_nodes(const graph::csr_graph& g, std::span<const std::uint32_t> sources,
                                                 std::uint32_t max_depth) {
    graph::validate_traversal(g, sources, "reachable_nodes");
    std::vector<graph::reach> out;
    for (const std::uint32_t s : sources)
        detail::simple_bfs(g, s, max_depth, [&](std::uint32_t node, std::uint32_t depth) {
            out.push_back({s, node, depth});
        });
    graph::sort_canonical(out);
    return out;
}

// Every finding of graph.bfs (see the header for the rules), canonical order.
inline std::vector<graph::finding> bfs_findings(const graph::csr_graph& g, std::span<const std::uint32_t> sources,
                                                std::uint32_t max_depth) {
    graph::validate_traversal(g, sources, "bfs_findings");
    std::vector<graph::finding> out;
    for (std::size_t i = 0; i < sources.size(); ++i)
        detail::simple_bfs(g, sources[i], max_depth, [&](std::uint32_t node, std::uint32_t depth) {
            if (reports_finding(g.node_data[node], depth))
                out.push_back({sources[i], node, depth, static_cast<std::uint32_t>(i)});
        });
    graph::sort_canonical(out);
    return out;
}

namespace detail {

// Records while collecting: (source, node, depth, source_idx), the finding layout, for findings
// and reaches alike.
using tagged = graph::finding;

// What the workers produced: one vector per worker, sorted by (source_idx, node), and for each
// source_idx the run of its records. Each source_idx belongs to exactly one task.
struct collection {
    std::vector<std::vector<tagged>> parts;
    std::vector<std::span<const tagged>> by_index;
};

// Runs tasks 0..task_count-1 over worker threads with dynamic scheduling. Each thread makes its own
// state with make_worker() (so big scratch arrays exist once per thread), appends to its own
// vector, and sorts it itself, so the sorting is parallel too.
template <class MakeWorker>
collection collect(std::size_t task_count, std::size_t source_count, unsigned threads, MakeWorker make_worker) {
    collection c;
    c.by_index.resize(source_count);
    if (task_count == 0) return c;
    c.parts.resize(std::min<std::size_t>(util::thread_count(threads), task_count));
    std::atomic<std::size_t> next_task{0};
    util::run_on_threads(static_cast<unsigned>(c.parts.size()), [&](unsigned w) {
        auto worker = make_worker();
        auto& part = c.parts[w];
        for (std::size_t t; (t = next_task.fetch_add(1)) < task_count;) worker(t, part);
        std::sort(part.begin(), part.end(), [](const tagged& x, const tagged& y) {
            return (std::uint64_t{x.source_idx} << 32 | x.sink) < (std::uint64_t{y.source_idx} << 32 | y.sink);
        });
        for (std::size_t i = 0, j; i < part.size(); i = j) {
            for (j = i + 1; j < part.size() && part[j].source_idx == part[i].source_idx;) ++j;
            c.by_index[part[i].source_idx] = std::span<const tagged>(part.data() + i, j - i);
        }
    });
    return c;
}

inline graph::finding as_finding(const tagged& t) noexcept { return t; }
inline graph::reach as_reach(const tagged& t) noexcept { return {t.source, t.sink, t.depth}; }

// Canonical order without one big serial sort: order the source indices by (source node, index)
// and lay their runs out in that order, in parallel. Runs are sorted by node and a node has one
// depth per traversal, so only a node listed several times needs a merge (a sort of its group).
template <class Out, class Convert>
std::vector<Out> assemble(const collection& c, std::span<const std::uint32_t> sources, unsigned threads,
                          Convert convert) {
    const std::size_t count = sources.size();
    std::vector<std::uint32_t> order(count);
    for (std::size_t i = 0; i < count; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return (std::uint64_t{sources[x]} << 32 | x) < (std::uint64_t{sources[y]} << 32 | y);
    });
    std::vector<std::size_t> pos(count + 1, 0), groups;
    for (std::size_t k = 0; k < count; ++k) {
        pos[k + 1] = pos[k] + c.by_index[order[k]].size();
        if (k == 0 || sources[order[k]] != sources[order[k - 1]]) groups.push_back(k);
    }
    groups.push_back(count);
    std::vector<Out> out(pos[count]);
    constexpr std::size_t chunk = 64;
    util::parallel_for(groups.size() - 1, threads, [&](std::size_t gi) {
        const std::size_t k0 = groups[gi], k1 = groups[gi + 1];
        if (k1 - k0 == 1) {
            const auto run = c.by_index[order[k0]];
            std::transform(run.begin(), run.end(), out.begin() + pos[k0], convert);
            return;
        }
        std::vector<tagged> merged;
        for (std::size_t k = k0; k < k1; ++k)
            merged.insert(merged.end(), c.by_index[order[k]].begin(), c.by_index[order[k]].end());
        graph::sort_canonical(merged);
        std::transform(merged.begin(), merged.end(), out.begin() + pos[k0], convert);
    }, chunk);
    return out;
}

// One BFS at a time with scratch reused across sources: visited is a stamp per node (no clearing
// between sources) and the queue is one array holding each node at most once.
class source_walker {
public:
    explicit source_walker(const graph::csr_graph& g) : g_(g), stamp_(g.node_count(), 0), queue_(g.node_count()) {}

    template <class OnReach>
    void walk(std::uint32_t start, std::uint32_t max_depth, OnReach on_reach) {
        if (++current_ == 0) { // wrapped after 2^32-1 sources: old stamps would alias
            std::fill(stamp_.begin(), stamp_.end(), 0);
            current_ = 1;
        }
        std::size_t head = 0, tail = 1;
        queue_[0] = start;
        stamp_[start] = current_;
        for (std::uint32_t depth = 0; head < tail; ++depth) {
            const std::size_t level_end = tail;
            for (; head < level_end; ++head) {
                const std::uint32_t node = queue_[head];
                on_reach(node, depth);
                if (depth == max_depth || graph::is_sanitizer(g_.node_data[node])) continue;
                for (const std::uint32_t next : g_.neighbors(node)) {
                    if (stamp_[next] == current_) continue;
                    stamp_[next] = current_;
                    queue_[tail++] = next;
                }
            }
        }
    }

private:
    const graph::csr_graph& g_;
    std::vector<std::uint32_t> stamp_;
    std::vector<std::uint32_t> queue_;
    std::uint32_t current_ = 0;
};

} // namespace detail

// reachable_nodes with sources spread over `threads` threads (0: all hardware threads).
inline std::vector<graph::reach> reachable_nodes_threaded(const graph::csr_graph& g,
                                                          std::span<const std::uint32_t> sources,
                                                          std::uint32_t max_depth, unsigned threads = 0) {
    graph::validate_traversal(g, sources, "reachable_nodes_threaded");
    const auto c = detail::collect(sources.size(), sources.size(), threads, [&] {
        return [&, walker = detail::source_walker(g)](std::size_t i, std::vector<detail::tagged>& out) mutable {
            walker.walk(sources[i], max_depth, [&](std::uint32_t node, std::uint32_t depth) {
                out.push_back({sources[i], node, depth, static_cast<std::uint32_t>(i)});
            });
        };
    });
    return detail::assemble<graph::reach>(c, sources, threads, detail::as_reach);
}

// bfs_findings with sources spread over `threads` threads (0: all hardware threads).
inline std::vector<graph::finding> bfs_findings_threaded(const graph::csr_graph& g,
                                                         std::span<const std::uint32_t> sources,
                                                         std::uint32_t max_depth, unsigned threads = 0) {
    graph::validate_traversal(g, sources, "bfs_findings_threaded");
    const auto c = detail::collect(sources.size(), sources.size(), threads, [&] {
        return [&, walker = detail::source_walker(g)](std::size_t i, std::vector<detail::tagged>& out) mutable {
            walker.walk(sources[i], max_depth, [&](std::uint32_t node, std::uint32_t depth) {
                if (reports_finding(g.node_data[node], depth))
                    out.push_back({sources[i], node, depth, static_cast<std::uint32_t>(i)});
            });
        };
    });
    return detail::assemble<graph::finding>(c, sources, threads, detail::as_finding);
}

namespace detail {

// W words of lanes: lane l of a batch is bit l%64 of word l/64.
template <std::size_t W>
struct lane_set {
    std::array<std::uint64_t, W> w{};

    bool any() const noexcept {
        std::uint64_t a = 0;
        for (std::size_t i = 0; i < W; ++i) a |= w[i];
        return a != 0;
    }
    template <class F>
    void for_each_lane(F f) const {
        for (std::size_t i = 0; i < W; ++i)
            for (std::uint64_t bits = w[i]; bits != 0; bits &= bits - 1)
                f(static_cast<std::uint32_t>(i * 64 + std::countr_zero(bits)));
    }
};

// Level-synchronous BFS of up to 64*W sources at once. Each node holds one bit per lane in
// visited/frontier/next, so one scan of a node's edges advances every traversal that has the
// node in its frontier. Only nodes on the current frontier are scanned (a list, not a sweep),
// so deep, narrow graphs cost O(V + E) per batch too. Depths and reached sets equal the
// per-source BFS exactly: a lane's bit enters a node at the first level that lane reaches it.
template <std::size_t W>
class bit_walker {
public:
    static constexpr std::size_t lanes = 64 * W;

    explicit bit_walker(const graph::csr_graph& g)
        : g_(g), state_(g.node_count()), frontier_(g.node_count()) {}

    // on_level(node, depth, lanes newly reaching node at this depth), once per (node, depth).
    template <class OnLevel>
    void walk(std::span<const std::uint32_t> batch, std::uint32_t max_depth, OnLevel on_level) {
        current_.clear();
        for (std::size_t l = 0; l < batch.size(); ++l) {
            const std::uint32_t s = batch[l];
            if (!frontier_[s].any()) current_.push_back(s);
            frontier_[s].w[l / 64] |= std::uint64_t{1} << (l % 64);
        }
        touched_.assign(current_.begin(), current_.end());
        for (const std::uint32_t s : current_) {
            state_[s].visited = frontier_[s];
            on_level(s, 0, frontier_[s]);
        }
        for (std::uint32_t depth = 1; !current_.empty(); ++depth) {
            if (depth - 1 == max_depth) break;
            expand();
            std::sort(next_list_.begin(), next_list_.end()); // ascending ids: the next scan streams
            for (const std::uint32_t u : current_) frontier_[u] = {};
            for (const std::uint32_t v : next_list_) {
                frontier_[v] = state_[v].next;
                state_[v].next = {};
                on_level(v, depth, frontier_[v]);
            }
            touched_.insert(touched_.end(), next_list_.begin(), next_list_.end());
            current_.swap(next_list_);
        }
        for (const std::uint32_t u : current_) frontier_[u] = {};
        for (const std::uint32_t u : touched_) state_[u].visited = {};
    }

private:
    // Edge scans are bound by the random access to the target's state: ask for it early.
    static constexpr std::size_t prefetch_distance = 8;
    static void prefetch([[maybe_unused]] const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(p, 1);
#endif
    }

    void expand() {
        next_list_.clear();
        for (const std::uint32_t u : current_) {
            if (graph::is_sanitizer(g_.node_data[u])) continue;
            const lane_set<W> f = frontier_[u];
            const auto nbrs = g_.neighbors(u);
            for (std::size_t k = 0; k < nbrs.size(); ++k) {
                if (k + prefetch_distance < nbrs.size()) prefetch(&state_[nbrs[k + prefetch_distance]]);
                const std::uint32_t v = nbrs[k];
                lane_set<W>& seen = state_[v].visited;
                lane_set<W> fresh;
                std::uint64_t any = 0;
                for (std::size_t i = 0; i < W; ++i) {
                    fresh.w[i] = f.w[i] & ~seen.w[i];
                    any |= fresh.w[i];
                }
                if (any == 0) continue;
                lane_set<W>& nx = state_[v].next;
                if (!nx.any()) next_list_.push_back(v);
                for (std::size_t i = 0; i < W; ++i) {
                    nx.w[i] |= fresh.w[i];
                    seen.w[i] |= fresh.w[i];
                }
            }
        }
    }

    const graph::csr_graph& g_;
    // The two words an edge scan touches at its target share one cache line.
    struct alignas(2 * sizeof(lane_set<W>)) target_state {
        lane_set<W> visited, next;
    };

    std::vector<target_state> state_;
    std::vector<lane_set<W>> frontier_;
    std::vector<std::uint32_t> current_, next_list_, touched_;
};

// Runs the batches of `sources` through bit_walker<W> on worker threads, recording each lane
// that reaches a node at a depth for which keep(node, depth) holds.
template <std::size_t W, class Keep>
collection bitparallel_batches(const graph::csr_graph& g, std::span<const std::uint32_t> sources,
                               std::uint32_t max_depth, unsigned threads, Keep keep) {
    constexpr std::size_t lanes = bit_walker<W>::lanes;
    const std::size_t batches = (sources.size() + lanes - 1) / lanes;
    return collect(batches, sources.size(), threads, [&] {
        return [&, walker = bit_walker<W>(g)](std::size_t b, std::vector<tagged>& out) mutable {
            const std::size_t base = b * lanes;
            const auto batch = sources.subspan(base, std::min(lanes, sources.size() - base));
            walker.walk(batch, max_depth, [&](std::uint32_t node, std::uint32_t depth, const lane_set<W>& reached) {
                if (!keep(node, depth)) return;
                reached.for_each_lane([&](std::uint32_t l) {
                    out.push_back({batch[l], node, depth, static_cast<std::uint32_t>(base + l)});
                });
            });
        };
    });
}

// Wider words amortise each edge scan over more sources, but only pay off while every thread
// still gets a batch; scratch is 3 * node_count * 8 * W bytes per thread.
template <class Keep>
collection bitparallel(const graph::csr_graph& g, std::span<const std::uint32_t> sources, std::uint32_t max_depth,
                       unsigned threads, Keep keep) {
    const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(util::thread_count(threads), sources.size()));
    if (sources.size() >= 256 * workers) return bitparallel_batches<4>(g, sources, max_depth, threads, keep);
    if (sources.size() >= 128 * workers) return bitparallel_batches<2>(g, sources, max_depth, threads, keep);
    return bitparallel_batches<1>(g, sources, max_depth, threads, keep);
}

} // namespace detail

// reachable_nodes by bit-parallel multi-source BFS on `threads` threads (0: all hardware threads).
inline std::vector<graph::reach> reachable_nodes_bitparallel(const graph::csr_graph& g,
                                                             std::span<const std::uint32_t> sources,
                                                             std::uint32_t max_depth, unsigned threads = 0) {
    graph::validate_traversal(g, sources, "reachable_nodes_bitparallel");
    const auto c = detail::bitparallel(g, sources, max_depth, threads, [](std::uint32_t, std::uint32_t) { return true; });
    return detail::assemble<graph::reach>(c, sources, threads, detail::as_reach);
}

// bfs_findings by bit-parallel multi-source BFS on `threads` threads (0: all hardware threads).
inline std::vector<graph::finding> bfs_findings_bitparallel(const graph::csr_graph& g,
                                                            std::span<const std::uint32_t> sources,
                                                            std::uint32_t max_depth, unsigned threads = 0) {
    graph::validate_traversal(g, sources, "bfs_findings_bitparallel");
    const auto c = detail::bitparallel(g, sources, max_depth, threads, [&g](std::uint32_t node, std::uint32_t depth) {
        return reports_finding(g.node_data[node], depth);
    });
    return detail::assemble<graph::finding>(c, sources, threads, detail::as_finding);
}

// Edges the BFS of every source scans within max_depth: each source adds the out-degree of every
// node it expands (reached at depth < max_depth, not a sanitizer). The numerator of traversed
// edges per second in benchmarks; bit-parallel on `threads` threads (0: all hardware threads).
inline std::uint64_t traversed_edges(const graph::csr_graph& g, std::span<const std::uint32_t> sources,
                                     std::uint32_t max_depth, unsigned threads = 0) {
    graph::validate_traversal(g, sources, "traversed_edges");
    constexpr std::size_t lanes = detail::bit_walker<4>::lanes;
    const std::size_t batches = (sources.size() + lanes - 1) / lanes;
    const std::size_t workers = std::max<std::size_t>(1, std::min<std::size_t>(util::thread_count(threads), batches));
    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> total{0};
    util::run_on_threads(static_cast<unsigned>(workers), [&](unsigned) {
        detail::bit_walker<4> walker(g);
        std::uint64_t sum = 0;
        for (std::size_t b; (b = next.fetch_add(1)) < batches;) {
            const auto batch = sources.subspan(b * lanes, std::min(lanes, sources.size() - b * lanes));
            walker.walk(batch, max_depth, [&](std::uint32_t node, std::uint32_t depth, const detail::lane_set<4>& reached) {
                if (depth >= max_depth || graph::is_sanitizer(g.node_data[node])) return;
                std::uint64_t count = 0;
                for (const auto w : reached.w) count += static_cast<std::uint64_t>(std::popcount(w));
                sum += count * (g.offsets[node + 1] - g.offsets[node]);
            });
        }
        total += sum;
    });
    return total;
}

} // namespace vyre::reference
