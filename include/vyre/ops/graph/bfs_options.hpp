// What graph.bfs and graph.reachability are asked and what they answer: the variants and the
// bitset directions, the options, and the results (bfs.hpp runs them).
#pragma once

#include <vyre/graph/finding.hpp>

#include <cstdint>
#include <limits>
#include <vector>

namespace vyre::ops::graph {

inline constexpr std::uint32_t unlimited_depth = std::numeric_limits<std::uint32_t>::max();

enum class bfs_variant { bounded_queue, bitset, automatic };

// How the bitset variant computes a level: top-down from a work list (push), bottom-up over
// every (node, word) (pull), or per level by the size of the work list (automatic).
enum class bitset_direction { automatic, push, pull };

inline const char* bfs_variant_name(bfs_variant v) noexcept {
    switch (v) {
    case bfs_variant::bounded_queue: return "bounded_queue";
    case bfs_variant::bitset: return "bitset";
    case bfs_variant::automatic: return "automatic";
    }
    return "?";
}

struct bfs_options {
    std::uint32_t max_depth = unlimited_depth; // inclusive; 0 reaches only the start nodes
    std::uint32_t max_findings = 1u << 20;     // records stored; the count goes on past it
    bfs_variant variant = bfs_variant::automatic;
    // Dispatch at least this many workgroups per launch (the extra invocations do nothing): the
    // results must not depend on it. 0: as many as the work needs.
    std::uint32_t min_workgroups = 0;
    // bitset: at most this many sources per batch (rounded down to a multiple of 32, at least 32).
    // 0: as many as memory allows. Batching never changes results.
    std::uint32_t max_batch_sources = 0;
    // bitset: the direction of every level (push and pull give the same results; automatic is fastest).
    bitset_direction direction = bitset_direction::automatic;
};

// One traversal's raw output, in the device's finding layout (reachability reads sink as node).
struct traversal_result {
    std::vector<vyre::graph::finding> records; // canonical order; at most max_findings
    std::uint64_t total_found = 0;             // every record found, stored or not
    std::uint64_t queue_overflows = 0;         // bounded_queue: nodes not queued; bitset: always 0
    bfs_variant variant = bfs_variant::automatic; // the variant that ran
    std::uint32_t batches = 0;                 // source batches (bitset), 1 for bounded_queue
    std::uint32_t launches = 0;                // kernel dispatches
    std::uint32_t push_levels = 0, pull_levels = 0; // bitset: levels run each way
    double kernel_seconds = 0;                 // device time of the launches (profiling queues only)
};

struct bfs_result {
    std::vector<vyre::graph::finding> findings; // canonical order (finding.hpp); at most max_findings
    std::uint64_t total_found = 0;              // may exceed max_findings: then findings is a subset
    std::uint64_t queue_overflows = 0;          // > 0 only for bounded_queue, and then results may be incomplete
    bfs_variant variant = bfs_variant::automatic; // the variant that ran
    std::uint32_t batches = 0, launches = 0, push_levels = 0, pull_levels = 0;
    double kernel_seconds = 0;                  // device time of the launches (profiling queues only)
};

} // namespace vyre::ops::graph
