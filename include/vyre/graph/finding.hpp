// The records the graph ops emit: `finding` (graph.bfs, the permanent vec4<u32> layout) and
// `reach` (graph.reachability), each with its canonical order.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <span>
#include <type_traits>

namespace vyre::graph {

// A sink reached from a source: findings[i] = (source, sink, depth, source_idx) on the device.
// `source_idx` is the position of the start node in the sources list, so a node listed twice
// yields two findings that differ only there.
struct finding {
    std::uint32_t source;
    std::uint32_t sink;
    std::uint32_t depth;
    std::uint32_t source_idx;

    // Member order is the canonical order: (source, sink, depth) as the seed requires, then
    // source_idx so that the order is total and sorted outputs compare equal byte for byte.
    friend constexpr auto operator<=>(const finding&, const finding&) = default;
};

static_assert(sizeof(finding) == 16 && alignof(finding) == 4, "finding is the permanent vec4<u32> layout");
static_assert(std::is_standard_layout_v<finding> && std::is_trivially_copyable_v<finding>);

// A node reached from a source within the depth bound, at its shortest depth.
struct reach {
    std::uint32_t source;
    std::uint32_t node;
    std::uint32_t depth;

    // Canonical order: (source, node, depth).
    friend constexpr auto operator<=>(const reach&, const reach&) = default;
};

static_assert(sizeof(reach) == 12 && std::is_trivially_copyable_v<reach>);

// Device output arrives in scheduling order; sorting makes it comparable and deterministic.
// The comparisons pack two u32 keys per u64: the same order as operator<, about twice as fast.
inline void sort_canonical(std::span<finding> findings) {
    std::sort(findings.begin(), findings.end(), [](const finding& x, const finding& y) {
        const std::uint64_t kx = std::uint64_t{x.source} << 32 | x.sink, ky = std::uint64_t{y.source} << 32 | y.sink;
        if (kx != ky) return kx < ky;
        return (std::uint64_t{x.depth} << 32 | x.source_idx) < (std::uint64_t{y.depth} << 32 | y.source_idx);
    });
}

inline void sort_canonical(std::span<reach> reached) {
    std::sort(reached.begin(), reached.end(), [](const reach& x, const reach& y) {
        const std::uint64_t kx = std::uint64_t{x.source} << 32 | x.node, ky = std::uint64_t{y.source} << 32 | y.node;
        return kx != ky ? kx < ky : x.depth < y.depth;
    });
}

} // namespace vyre::graph
