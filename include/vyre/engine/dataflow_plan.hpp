// What a run of engine::dataflow (engine/dataflow.hpp) is asked and how it is planned, without a
// device at hand: its options and result, the rule that picks each level's direction, and
// plan_dataflow, which checks a run against the device's memory and splits its sources into
// batches before anything is allocated.
#pragma once

#include <vyre/engine/detail/dataflow_graph.hpp>
#include <vyre/error.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/ops/dataflow/level.hpp>
#include <vyre/ops/dataflow/transfer.hpp>
#include <vyre/ops/graph/launch.hpp>
#include <vyre/runtime/device.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace vyre::engine {

// The ops the engine runs (ops/dataflow/), under the engine's names.
using ops::dataflow::dataflow_batch_bytes;
using ops::dataflow::dataflow_edge_chunk;
using ops::dataflow::dataflow_init_op_id;
using ops::dataflow::dataflow_init_program;
using ops::dataflow::dataflow_level_infos;
using ops::dataflow::dataflow_level_op_id;
using ops::dataflow::dataflow_pull_program;
using ops::dataflow::dataflow_push_program;
using ops::dataflow::edge_view;
using ops::dataflow::make_transfer;
using ops::dataflow::transfer_function;
using ops::dataflow::transfer_params;
using ops::dataflow::unlimited_depth;
namespace transfers = ops::dataflow::transfers;

// How a level is computed; every choice gives the same findings.
enum class dataflow_direction { automatic, push, pull };

inline const char* dataflow_direction_name(dataflow_direction d) noexcept {
    switch (d) {
    case dataflow_direction::automatic: return "auto";
    case dataflow_direction::push: return "push";
    case dataflow_direction::pull: return "pull";
    }
    return "?";
}

// Automatic direction, set from per-level traces of all-push and all-pull runs on the H100 (RMAT
// 20 and 22 with 64, 1,024 and 16,384 sources: bench_dataflow --trace --direction push,pull; the
// measured levels are on doc/engine/dataflow.md):
// - A push level costs about its frontier's out-edges, one row each (plus atomics where lanes are
//   gained). A frontier whose out-edges and nodes are under (n + e) / dataflow_push_edge_ratio is
//   pushed: a pull level reads every node's visited row and more, whatever the frontier.
// - A pull level costs every incomplete (node, word) row's in-edges until its needed lanes are found.
//   While the frontier still grows (more than dataflow_pull_growth times the nodes of the level
//   before), most rows miss lanes they only gain later, so a pull walks nearly all n + e rows and
//   a push is cheaper. Once it stops growing, most rows are complete for the lanes still moving
//   and a pull stops early: then it is the cheaper one.
// - Rows of at most dataflow_pull_narrow_words words are pulled whenever the frontier is large,
//   growing or not: a sweep over narrow rows costs less than the atomics a push spends per gained
//   word. From 16 words on, the growing levels are the push's again.
// Per-level traces of all-push and all-pull runs (bench_dataflow --trace --direction push,pull)
// give every level's cost both ways: the way to check these constants on another device.
inline constexpr double dataflow_push_edge_ratio = 4.0;
inline constexpr double dataflow_pull_growth = 1.01;
inline constexpr std::uint64_t dataflow_pull_narrow_words = 8;

// frontier_edges and frontier_nodes: the level's frontier; previous_nodes: the frontier before
// it; words: W.
inline bool dataflow_push_pays(std::uint64_t frontier_edges, std::uint64_t frontier_nodes, std::uint64_t previous_nodes,
                               std::uint64_t n, std::uint64_t e, std::uint64_t words, dataflow_direction direction) {
    if (direction != dataflow_direction::automatic) return direction == dataflow_direction::push;
    if (double(frontier_edges + frontier_nodes) * dataflow_push_edge_ratio < double(n + e)) return true;
    return words > dataflow_pull_narrow_words && double(frontier_nodes) > dataflow_pull_growth * double(previous_nodes);
}

struct dataflow_options {
    std::uint32_t max_depth = unlimited_depth; // inclusive; 0 reports only source+sink starts
    std::uint32_t max_findings = 1u << 20;     // records the findings buffer holds
    // More findings than max_findings: a resource_error (default; results must be complete), or,
    // with truncate, a subset of max_findings (which ones depends on scheduling) and total_found.
    bool truncate = false;
    transfer_params params{};                  // p0..p3 of the transfer function
    // Testing and tuning knobs; none changes the findings:
    std::uint32_t max_batch_sources = 0;       // at most this many sources per batch (whole words); 0: memory decides
    std::uint64_t memory_budget = 0;           // plan within this many bytes (0: the device's launch budget)
    dataflow_direction direction = dataflow_direction::automatic;
    std::uint32_t min_workgroups = 0;          // dispatch at least this many workgroups per launch
    bool trace = false;                        // fill dataflow_result::trace (one record per level)
};

// One level of one batch, as run (dataflow_options::trace).
struct dataflow_level_trace {
    std::uint32_t batch = 0, depth = 0;       // depth >= 1: the level that finds the nodes at this depth
    dataflow_direction direction = dataflow_direction::push; // push or pull, as run
    std::uint64_t entries = 0;                // work-list entries it started from (node chunks)
    std::uint64_t nodes = 0;                  // frontier nodes
    std::uint64_t frontier_edges = 0;         // out-edges of the frontier nodes
    double seconds = 0;                       // device time of the level's launches (profiling queues only)
    double clear_seconds = 0;                 // device time of clearing `next` before it (0: not needed)
};

struct dataflow_result {
    std::vector<graph::finding> findings; // canonical order (graph/finding.hpp)
    std::uint64_t total_found = 0;        // every finding, stored or not
    std::uint32_t batches = 0, launches = 0, push_levels = 0, pull_levels = 0;
    // Levels run after the start nodes, in the batch that ran most. A batch stops at the first level
    // that adds nothing (its fixpoint: converged) or after max_depth levels (converged stays true
    // only if that level added nothing either).
    std::uint32_t levels = 0;
    bool converged = true;
    // Device time (profiling queues only) of the launches and of the buffer fills around them.
    double kernel_seconds = 0;
    double readback_seconds = 0, sort_seconds = 0; // host time reading the findings back, and sorting them
    std::vector<dataflow_level_trace> trace; // with dataflow_options::trace: every level of every batch
};

// How one run uses memory: what the plan function decided and why.
struct dataflow_plan {
    std::uint64_t fixed_bytes = 0;   // graph, reverse graph, pull tasks, work lists, stamps, sources, findings, counters
    std::uint64_t batch_words = 0;   // words of 32 sources per batch
    std::uint64_t batches = 0;
    std::uint64_t batch_bytes = 0;   // bitmaps of one full batch
    std::uint64_t budget = 0;        // the launch budget planned within
    std::uint64_t state_bits = 0;    // source_count x node_count: the visited bits of the whole run
};

// ---- validation and planning --------------------------------------------------------------------

namespace detail {

inline constexpr std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();

inline std::string budget_text(const runtime::device_info& dev, std::uint64_t budget) {
    return std::to_string(budget) + " bytes (the launch budget, or dataflow_options::memory_budget, on " + dev.label() + ")";
}

} // namespace detail

// Plans a run of `source_count` sources over a graph of node_count nodes and edge_count edges
// (`with_kinds`: edge kinds are stored), `sinks` of which can be reported, without allocating:
// validation_error when source_count x node_count overflows 64 bits; graph_resource_error (a
// resource_error carrying quantity, required and limit) when the findings buffer, a bitmap row or
// the fixed buffers and one word of sources exceed the device; otherwise the batches.
inline dataflow_plan plan_dataflow(const runtime::device_info& dev, std::uint64_t node_count, std::uint64_t edge_count,
                                   bool with_kinds, std::uint64_t source_count, std::uint64_t sinks,
                                   const dataflow_options& o) {
    namespace og = vyre::ops::graph;
    dataflow_plan p;
    if (node_count != 0 && source_count > std::numeric_limits<std::uint64_t>::max() / node_count)
        throw validation_error("engine::dataflow: source_count (" + std::to_string(source_count) + ") x node_count (" +
                               std::to_string(node_count) + ") overflows 64 bits: the run's visited state cannot be sized");
    p.state_bits = source_count * node_count;
    if (source_count > detail::u32_max)
        throw validation_error("engine::dataflow: " + std::to_string(source_count) +
                               " sources in one run; source_idx is u32, so at most 4294967295");
    p.budget = og::launch_memory_budget(dev);
    if (o.memory_budget != 0) p.budget = std::min(p.budget, o.memory_budget);
    const std::uint64_t max_words = std::min(og::max_buffer_bytes(dev), p.budget) / 4;
    const std::uint64_t findings_words = std::uint64_t{o.max_findings} * 4;
    if (findings_words > max_words)
        throw og::graph_resource_error("findings", findings_words * 4, max_words * 4, "bytes",
                                       "engine::dataflow: max_findings (" + std::to_string(o.max_findings) +
                                           ") x 16 bytes = " + std::to_string(findings_words * 4) +
                                           " bytes, above the largest buffer of " + std::to_string(max_words * 4) +
                                           " bytes on " + dev.label() + ": lower max_findings");
    const std::uint64_t edge_words = edge_count * (with_kinds ? 2 : 1);
    if (edge_count > max_words)
        throw og::graph_resource_error("edge_targets", edge_count * 4, max_words * 4, "bytes",
                                       "engine::dataflow: " + std::to_string(edge_count) +
                                           " edges need buffers of " + std::to_string(edge_count * 4) +
                                           " bytes, above the largest buffer of " + std::to_string(max_words * 4) +
                                           " bytes on " + dev.label());
    // Graph and reverse graph (offsets, targets or sources, kinds), labels, pull tasks, two work
    // lists, stamps, sources, findings, counters, params.
    const std::uint64_t list_words = 2 * ops::dataflow::dataflow_list_capacity_bound(node_count, edge_count);
    p.fixed_bytes = 4 * (node_count + 2 * (node_count + 1) + 2 * edge_words + 2 * detail::pull_task_bound(edge_count) +
                         2 * list_words + node_count + source_count + findings_words + 1 +
                         ops::dataflow::dataflow_counter::words + ops::dataflow::dataflow_param_words);
    if (p.fixed_bytes > p.budget)
        throw og::graph_resource_error("device memory", p.fixed_bytes, p.budget, "bytes",
                                       "engine::dataflow: the graph, its reverse, work lists, sources and findings need " +
                                           std::to_string(p.fixed_bytes) + " bytes, above " + detail::budget_text(dev, p.budget));
    if (source_count == 0) return p;
    const std::uint64_t one = p.fixed_bytes + dataflow_batch_bytes(node_count, 1);
    if (one > p.budget)
        throw og::graph_resource_error("device memory", one, p.budget, "bytes",
                                       "engine::dataflow: the graph, its reverse, work lists, sources and findings (" +
                                           std::to_string(p.fixed_bytes) + " bytes) and one word of 32 sources (" +
                                           std::to_string(dataflow_batch_bytes(node_count, 1)) + " bytes for " +
                                           std::to_string(node_count) + " nodes) need " + std::to_string(one) +
                                           " bytes, above " + detail::budget_text(dev, p.budget));
    if (node_count > max_words)
        throw og::graph_resource_error("bitmap row", node_count * 4, max_words * 4, "bytes",
                                       "engine::dataflow: one word of 32 sources over " + std::to_string(node_count) +
                                           " nodes needs a bitmap of " + std::to_string(node_count * 4) +
                                           " bytes, above the largest buffer of " + std::to_string(max_words * 4) + " bytes");
    const std::uint64_t source_words = (source_count + 31) / 32;
    // A batch's u32 counter must not wrap: 32 lanes per word, each reports a sink at most once.
    const std::uint64_t by_counter = sinks == 0 ? source_words : detail::u32_max / (32 * sinks);
    if (by_counter == 0)
        throw og::graph_resource_error("finding_count", 32 * sinks, detail::u32_max, "findings",
                                       "engine::dataflow: 32 sources x " + std::to_string(sinks) +
                                           " sinks may count past the u32 finding counter in one batch");
    std::uint64_t words = std::min({source_words, max_words / std::max<std::uint64_t>(node_count, 1), by_counter});
    if (o.max_batch_sources != 0) words = std::min<std::uint64_t>(words, std::max<std::uint32_t>(o.max_batch_sources / 32, 1));
    std::uint64_t lo = 1, hi = words; // the most words whose buffers fit (batch_bytes grows with words)
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo + 1) / 2;
        if (p.fixed_bytes + dataflow_batch_bytes(node_count, mid) <= p.budget) lo = mid;
        else hi = mid - 1;
    }
    p.batch_words = lo;
    p.batches = (source_words + lo - 1) / lo;
    p.batch_bytes = dataflow_batch_bytes(node_count, lo);
    return p;
}

} // namespace vyre::engine
