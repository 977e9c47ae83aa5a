// The CSR graph every graph op consumes (offsets, targets, node_data), its permanent invariants
// with a checker that names the broken one, and construction from an edge list.
#pragma once

#include <vyre/error.hpp>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::graph {

// A directed edge source -> target.
struct edge {
    std::uint32_t source;
    std::uint32_t target;
    friend constexpr auto operator<=>(const edge&, const edge&) = default;
};

// neighbors(n) = targets[offsets[n] .. offsets[n+1]); node_data[n] is n's label (labels.hpp).
// The number of nodes is node_data.size(). A default-constructed graph is the valid empty graph.
struct csr_graph {
    std::vector<std::uint32_t> offsets{0};
    std::vector<std::uint32_t> targets;
    std::vector<std::uint32_t> node_data;

    // Meaningful once validate() has passed (it guarantees the count fits in u32).
    std::uint32_t node_count() const noexcept { return static_cast<std::uint32_t>(node_data.size()); }
    std::uint64_t edge_count() const noexcept { return targets.size(); }

    // Precondition: validated graph and node < node_count().
    std::span<const std::uint32_t> neighbors(std::uint32_t node) const noexcept {
        return std::span<const std::uint32_t>(targets).subspan(offsets[node], offsets[node + 1] - offsets[node]);
    }

    // Throws validation_error naming the invariant, the array position, the value and the valid range.
    void validate() const;

    friend bool operator==(const csr_graph&, const csr_graph&) = default;
};

inline constexpr std::uint64_t max_nodes = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint64_t max_edges = std::numeric_limits<std::uint32_t>::max(); // offsets are u32

enum class csr_array { offsets, targets, node_data };

// The first broken invariant: which array, which position in it, and a complete message.
struct csr_violation {
    csr_array array;
    std::uint64_t index;
    std::string message;
};

namespace detail {

inline std::string range_text(std::uint64_t lo, std::uint64_t hi_exclusive) {
    return "valid range [" + std::to_string(lo) + ", " + std::to_string(hi_exclusive) + ")";
}

inline std::optional<csr_violation> check_sizes(const csr_graph& g) {
    const std::uint64_t n = g.node_data.size();
    if (n > max_nodes)
        return csr_violation{csr_array::node_data, max_nodes,
                             "csr_graph: node_data has " + std::to_string(n) +
                                 " entries; node ids are u32, so node_count must be at most " +
                                 std::to_string(max_nodes)};
    if (g.offsets.size() != n + 1)
        return csr_violation{csr_array::offsets, std::min<std::uint64_t>(g.offsets.size(), n + 1),
                             "csr_graph: invariant 'offsets length == node_count + 1' broken: offsets has " +
                                 std::to_string(g.offsets.size()) + " entries, node_count (node_data length) is " +
                                 std::to_string(n) + ", so exactly " + std::to_string(n + 1) + " are required"};
    if (g.targets.size() > max_edges)
        return csr_violation{csr_array::targets, max_edges,
                             "csr_graph: targets has " + std::to_string(g.targets.size()) +
                                 " entries; offsets are u32, so edge_count must be at most " +
                                 std::to_string(max_edges)};
    return std::nullopt;
}

inline std::optional<csr_violation> check_offsets(const csr_graph& g) {
    const std::uint64_t n = g.node_data.size();
    const std::uint64_t e = g.targets.size();
    if (g.offsets[0] != 0)
        return csr_violation{csr_array::offsets, 0,
                             "csr_graph: invariant 'offsets[0] == 0' broken: offsets[0] = " +
                                 std::to_string(g.offsets[0]) + ", valid range [0, 1)"};
    for (std::uint64_t i = 1; i <= n; ++i) {
        const std::uint64_t prev = g.offsets[i - 1];
        const std::uint64_t v = g.offsets[i];
        if (v < prev || v > e)
            return csr_violation{csr_array::offsets, i,
                                 std::string("csr_graph: invariant '") +
                                     (v < prev ? "offsets non-decreasing" : "offsets[i] <= edge_count") +
                                     "' broken: offsets[" + std::to_string(i) + "] = " + std::to_string(v) +
                                     " with offsets[" + std::to_string(i - 1) + "] = " + std::to_string(prev) +
                                     " and edge_count (targets length) " + std::to_string(e) + ", " +
                                     range_text(prev, e + 1)};
    }
    if (g.offsets[n] != e)
        return csr_violation{csr_array::offsets, n,
                             "csr_graph: invariant 'offsets[node_count] == edge_count' broken: offsets[" +
                                 std::to_string(n) + "] = " + std::to_string(g.offsets[n]) +
                                 " but targets has " + std::to_string(e) + " entries, " +
                                 range_text(e, e + 1)};
    return std::nullopt;
}

inline std::optional<csr_violation> check_targets(const csr_graph& g) {
    const std::uint64_t n = g.node_data.size();
    for (std::uint64_t k = 0; k < g.targets.size(); ++k) {
        if (g.targets[k] < n) continue;
        // Offsets are valid by now, so the owning node is found by search.
        const auto owner = std::upper_bound(g.offsets.begin(), g.offsets.end(), k) - g.offsets.begin() - 1;
        return csr_violation{csr_array::targets, k,
                             "csr_graph: invariant 'target < node_count' broken: targets[" + std::to_string(k) +
                                 "] = " + std::to_string(g.targets[k]) + " (an edge of node " +
                                 std::to_string(owner) + "), " + range_text(0, n)};
    }
    return std::nullopt;
}

} // namespace detail

// The first broken size invariant (array lengths and u32 limits), without reading the arrays'
// contents: what a caller that checks the contents elsewhere (on a device) checks first.
inline std::optional<csr_violation> size_violation(const csr_graph& g) { return detail::check_sizes(g); }

// The first broken invariant, checked in the order sizes, offsets, targets; nullopt when valid.
inline std::optional<csr_violation> first_violation(const csr_graph& g) {
    if (auto v = detail::check_sizes(g)) return v;
    if (auto v = detail::check_offsets(g)) return v;
    return detail::check_targets(g);
}

inline void csr_graph::validate() const {
    if (auto v = first_violation(*this)) throw validation_error(v->message);
}

namespace detail {

inline void check_node_data(std::uint32_t node_count, std::span<const std::uint32_t> node_data) {
    if (!node_data.empty() && node_data.size() != node_count)
        throw validation_error("to_csr: node_data has " + std::to_string(node_data.size()) +
                               " labels for node_count " + std::to_string(node_count) +
                               " (pass exactly node_count labels, or none for all-normal nodes)");
}

inline bool edge_in_range(const edge& e, std::uint32_t node_count) noexcept {
    return e.source < node_count && e.target < node_count;
}

// Counting sort by source with an increasing cursor, so each node keeps its edges in input order.
inline csr_graph build_csr(std::uint32_t node_count, std::span<const edge> edges,
                           std::span<const std::uint32_t> node_data) {
    check_node_data(node_count, node_data);
    csr_graph g;
    try {
        g.offsets.assign(std::size_t{node_count} + 1, 0);
        if (node_data.empty()) g.node_data.assign(node_count, 0);
        else g.node_data.assign(node_data.begin(), node_data.end());
    } catch (const std::bad_alloc&) {
        throw resource_error("to_csr: cannot allocate a graph of " + std::to_string(node_count) + " nodes");
    }
    std::uint64_t valid = 0;
    for (const edge& e : edges) {
        if (!edge_in_range(e, node_count)) continue;
        ++valid;
        ++g.offsets[std::size_t{e.source} + 1]; // may wrap only when valid > max_edges, rejected below
    }
    if (valid > max_edges)
        throw resource_error("to_csr: " + std::to_string(valid) + " valid edges do not fit u32 offsets (at most " +
                             std::to_string(max_edges) + ")");
    for (std::size_t i = 1; i < g.offsets.size(); ++i) g.offsets[i] += g.offsets[i - 1];
    g.targets.resize(valid);
    std::vector<std::uint32_t> cursor(g.offsets.begin(), g.offsets.end() - 1);
    for (const edge& e : edges)
        if (edge_in_range(e, node_count)) g.targets[cursor[e.source]++] = e.target;
    return g;
}

} // namespace detail

// Builds a CSR graph, silently dropping edges whose source or target is not below node_count:
// a graph extracted from an untrusted program is still analysed with the edges that make sense.
// node_data: exactly node_count labels, or empty for all-normal nodes.
inline csr_graph to_csr(std::uint32_t node_count, std::span<const edge> edges,
                        std::span<const std::uint32_t> node_data = {}) {
    return detail::build_csr(node_count, edges, node_data);
}

// As to_csr, but the first out-of-range edge is an error naming its index, ends and node_count.
inline csr_graph try_to_csr(std::uint32_t node_count, std::span<const edge> edges,
                            std::span<const std::uint32_t> node_data = {}) {
    for (std::size_t i = 0; i < edges.size(); ++i) {
        if (detail::edge_in_range(edges[i], node_count)) continue;
        throw validation_error("try_to_csr: edge " + std::to_string(i) + " (source " +
                               std::to_string(edges[i].source) + ", target " + std::to_string(edges[i].target) +
                               ") is out of range: node_count is " + std::to_string(node_count) +
                               ", so node ids must lie in " + detail::range_text(0, node_count));
    }
    return detail::build_csr(node_count, edges, node_data);
}

} // namespace vyre::graph
