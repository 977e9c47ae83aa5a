// Seeded graph generators: RMAT (Graph500 parameters), Erdős–Rényi G(n, m), and the structural
// archetypes of the conformance suites. All labels are `normal`; callers set roles in node_data.
// Output depends only on the arguments: the generator is splitmix64 with explicit arithmetic, and
// no std:: distribution is used (their output differs between standard libraries).
#pragma once

#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace vyre::graph {

// splitmix64 (Steele, Lea, Flood 2014): tiny state, full 64-bit output, trivially reproducible.
class splitmix64 {
public:
    explicit constexpr splitmix64(std::uint64_t seed) noexcept : state_(seed) {}

    constexpr std::uint64_t operator()() noexcept {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t state_;
};

// Uniform in [0, bound), bound > 0. Rejection removes the modulo bias.
inline std::uint64_t uniform_below(splitmix64& rng, std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound; // 2^64 mod bound
    for (;;) {
        const std::uint64_t x = rng();
        if (x >= threshold) return x % bound;
    }
}

// Uniform in [0, 1) with 53 random bits: exact in IEEE double, so identical everywhere.
inline double uniform_unit(splitmix64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

namespace detail {

inline std::uint64_t checked_edge_total(std::uint64_t count, const char* what) {
    if (count > max_edges)
        throw resource_error(std::string(what) + ": " + std::to_string(count) +
                             " edges do not fit u32 CSR offsets (at most " + std::to_string(max_edges) + ")");
    return count;
}

} // namespace detail

// Quadrant probabilities of one RMAT recursion step; the defaults are Graph500's.
struct rmat_params {
    double a = 0.57;
    double b = 0.19;
    double c = 0.19;
    double d = 0.05;
};

// Graph500-style RMAT edge list: 2^scale nodes, edge_factor * 2^scale directed edges. Node ids
// are then shuffled (as Graph500 does) so hubs are not all near id 0. Duplicate edges and
// self-loops are kept, as in Graph500's edge lists.
inline std::vector<edge> rmat_edges(std::uint32_t scale, std::uint32_t edge_factor, std::uint64_t seed,
                                    const rmat_params& p = {}) {
    if (scale > 31) throw resource_error("rmat: scale " + std::to_string(scale) + " gives more than 2^32-1 nodes (at most 31)");
    const double sum = p.a + p.b + p.c + p.d;
    if (!(p.a >= 0 && p.b >= 0 && p.c >= 0 && p.d >= 0) || std::abs(sum - 1.0) > 1e-9)
        throw validation_error("rmat: probabilities a, b, c, d must be non-negative and sum to 1 (sum is " +
                               std::to_string(sum) + ")");
    const std::uint64_t n = std::uint64_t{1} << scale;
    const std::uint64_t m = detail::checked_edge_total(n * edge_factor, "rmat");
    splitmix64 rng(seed);
    std::vector<edge> edges(m);
    for (edge& e : edges) {
        std::uint32_t src = 0, dst = 0;
        for (std::uint32_t level = 0; level < scale; ++level) {
            const double r = uniform_unit(rng);
            const std::uint32_t bit = std::uint32_t{1} << level;
            if (r >= p.a + p.b + p.c) src |= bit, dst |= bit;
            else if (r >= p.a + p.b) src |= bit;
            else if (r >= p.a) dst |= bit;
        }
        e = {src, dst};
    }
    std::vector<std::uint32_t> perm(n);
    for (std::uint64_t i = 0; i < n; ++i) perm[i] = static_cast<std::uint32_t>(i);
    for (std::uint64_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[uniform_below(rng, i)]); // Fisher-Yates
    for (edge& e : edges) e = {perm[e.source], perm[e.target]};
    return edges;
}

inline csr_graph rmat(std::uint32_t scale, std::uint32_t edge_factor, std::uint64_t seed, const rmat_params& p = {}) {
    const auto edges = rmat_edges(scale, edge_factor, seed, p);
    return to_csr(static_cast<std::uint32_t>(std::uint64_t{1} << scale), edges);
}

// Directed G(n, m): m distinct edges, no self-loops, chosen uniformly among the n(n-1) possible
// ones (Floyd's sampling: exactly m draws, no rejection loop even when m is close to n(n-1)).
// Edges come out sorted by (source, target).
inline std::vector<edge> erdos_renyi_edges(std::uint32_t n, std::uint64_t m, std::uint64_t seed) {
    detail::checked_edge_total(m, "erdos_renyi");
    const std::uint64_t possible = std::uint64_t{n} * (n == 0 ? 0 : n - 1);
    if (m > possible)
        throw validation_error("erdos_renyi: " + std::to_string(m) + " distinct edges requested but " +
                               std::to_string(n) + " nodes allow only " + std::to_string(possible));
    splitmix64 rng(seed);
    std::unordered_set<std::uint64_t> chosen;
    chosen.reserve(m);
    std::vector<edge> edges;
    edges.reserve(m);
    const auto add = [&](std::uint64_t k) {
        chosen.insert(k);
        const auto src = static_cast<std::uint32_t>(k / (n - 1));
        const auto r = static_cast<std::uint32_t>(k % (n - 1));
        edges.push_back({src, r >= src ? r + 1 : r}); // skip the self-loop slot
    };
    for (std::uint64_t j = possible - m; j < possible; ++j) {
        const std::uint64_t t = uniform_below(rng, j + 1);
        add(chosen.count(t) ? j : t);
    }
    std::sort(edges.begin(), edges.end());
    return edges;
}

inline csr_graph erdos_renyi(std::uint32_t n, std::uint64_t m, std::uint64_t seed) {
    return to_csr(n, erdos_renyi_edges(n, m, seed));
}

// 0 -> 1 -> ... -> n-1
inline csr_graph chain(std::uint32_t n) {
    std::vector<edge> edges;
    for (std::uint32_t i = 0; i + 1 < n; ++i) edges.push_back({i, i + 1});
    return to_csr(n, edges);
}

// 0 -> 1 -> ... -> n-1 -> 0; cycle(1) is one node with a self-loop.
inline csr_graph cycle(std::uint32_t n) {
    std::vector<edge> edges;
    for (std::uint32_t i = 0; i < n; ++i) edges.push_back({i, i + 1 == n ? 0 : i + 1});
    return to_csr(n, edges);
}

// Hub 0 -> each spoke 1..n-1.
inline csr_graph star(std::uint32_t n) {
    std::vector<edge> edges;
    for (std::uint32_t i = 1; i < n; ++i) edges.push_back({0, i});
    return to_csr(n, edges);
}

// Every ordered pair i -> j with i != j.
inline csr_graph complete(std::uint32_t n) {
    detail::checked_edge_total(std::uint64_t{n} * (n == 0 ? 0 : n - 1), "complete");
    std::vector<edge> edges;
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j)
            if (i != j) edges.push_back({i, j});
    return to_csr(n, edges);
}

// Heap-ordered binary tree: i -> 2i+1 and i -> 2i+2 where those exist; node i sits at depth
// floor(log2(i + 1)).
inline csr_graph binary_tree(std::uint32_t n) {
    std::vector<edge> edges;
    for (std::uint64_t i = 0; i < n; ++i)
        for (std::uint64_t c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c)
            edges.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(c)});
    return to_csr(n, edges);
}

// 0 -> 1 -> 3 and 0 -> 2 -> 3: two paths merging at 3.
inline csr_graph diamond() {
    const edge edges[] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    return to_csr(4, edges);
}

// The parts side by side, part k's node ids shifted by the node counts of parts 0..k-1.
inline csr_graph disjoint_union(std::span<const csr_graph> parts) {
    std::uint64_t nodes = 0, edges = 0;
    for (const csr_graph& p : parts) {
        p.validate();
        nodes += p.node_count();
        edges += p.edge_count();
    }
    if (nodes > max_nodes) throw resource_error("disjoint_union: " + std::to_string(nodes) + " nodes exceed u32 ids");
    detail::checked_edge_total(edges, "disjoint_union");
    csr_graph g;
    for (const csr_graph& p : parts) {
        const auto node_base = static_cast<std::uint32_t>(g.node_data.size());
        const auto edge_base = static_cast<std::uint32_t>(g.targets.size());
        for (std::size_t i = 1; i < p.offsets.size(); ++i) g.offsets.push_back(edge_base + p.offsets[i]);
        for (const std::uint32_t t : p.targets) g.targets.push_back(node_base + t);
        g.node_data.insert(g.node_data.end(), p.node_data.begin(), p.node_data.end());
    }
    return g;
}

} // namespace vyre::graph
