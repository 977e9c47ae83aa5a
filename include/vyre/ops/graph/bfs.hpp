// graph.bfs: multi-source breadth-first search over a CSR graph, reporting every sink a source
// reaches (findings), as IR programs in two variants with identical results, and the host API
// (validation, resource checks, batching, dispatch, readback, canonical order).
#pragma once

// Semantics: exactly reference::bfs_findings (reference/graph.hpp): one traversal per entry of
// `sources`; depth is the shortest path length; a node is reached when depth <= max_depth; a
// sanitizer is reached but never expanded and never reported; a finding (source, sink, depth,
// source_idx) for every reached node at depth >= 1 whose role is sink or source+sink, and for the
// start node itself at depth 0 when its role is source+sink. graph.reachability
// (reachability.hpp) runs the same programs reporting every reached node.
//
// Two variants:
//
// bounded_queue — the seed's program, `graph.bfs`: one invocation per source (workgroups of 64),
//   its own visited bitmap in visited_set, and a bounded frontier queue of MAX_BFS_QUEUE = 4096
//   nodes per BFS level. A level wider than 4096 nodes keeps its first 4096 (in discovery order)
//   for expansion; every further node is still marked visited and reported at its (correct)
//   depth, but not expanded, and counts one queue overflow. Beyond the seed, the overflows are
//   counted on the device (binding 8) and returned: never silent. A source whose frontier
//   overflowed may miss nodes behind the dropped ones, or see them deeper than their shortest
//   depth; a run with queue_overflows == 0 is exact.
//
//   Bindings (0..7 are the seed's, permanent):
//     0 node_labels     U32 ReadOnly   label per node (role in bits 16..23)
//     1 edge_offsets    U32 ReadOnly   CSR offsets (node_count + 1)
//     2 edge_targets    U32 ReadOnly   CSR targets
//     3 source_nodes    U32 ReadOnly   start node per source_idx
//     4 findings        U32 ReadWrite  4 words per finding: source, sink, depth, source_idx
//     5 finding_count   U32 ReadWrite  [0]: atomic count; keeps counting past max_findings
//     6 params          U32 Uniform    {num_sources, num_nodes, max_findings, max_depth, words_per_source}
//     7 visited_set     U32 ReadWrite  bit (node % 32) of word source_idx * words_per_source + node / 32; zeroed
//     8 queue_overflows U32 ReadWrite  [0]: nodes not queued because a level was full; zeroed
//     9 queue           U32 ReadWrite  scratch: 2 * 4096 entries per source (see below)
//
//   The queue. The seed keeps `array<u32, 4096>` in each invocation's private memory. The IR has
//   no private arrays, a workgroup array would need 64 * 16 KiB per workgroup (beyond every
//   device's local memory), and an OpenCL private array this large spills to off-chip memory
//   anyway. So the queue lives in a ReadWrite scratch buffer: two halves of 4096 entries per
//   source (the level being expanded and the next one, swapped per level, which makes the bound
//   exactly "4096 nodes per level" whatever the visit order), entry (half * 4096 + pos) of
//   source s at word (half * 4096 + pos) * num_sources + s. That interleaving is how GPUs lay out
//   spilled private arrays: invocations reading the same queue position touch adjacent words.
//
// bitset — unbounded, never drops: level-synchronous and bit-parallel over sources. Sources are
//   lanes, 32 per u32 word; a batch of L lanes uses W = ceil(L / 32) words per node in three
//   bitmaps (visited, frontier, next; entry node * W + w). `graph.bfs.bitset_init` puts each
//   lane's start node in visited and frontier, reports depth 0 and lists the (node, word) entries
//   of the first frontier. Each further level is one launch, in one of two directions (Beamer's
//   direction-optimizing BFS), chosen per level by the host from the size of the work list:
//     `graph.bfs.bitset_push` (top-down): one invocation per work-list entry (u, w) expands u's
//       out-edges for the 32 lanes of word w: atomic OR into visited decides which invocation
//       gains each (node, lane), only it reports it, and an atomic OR into next (old value 0)
//       appends (v, w) to the next work list. Cheap while the frontier is small.
//     `graph.bfs.bitset_pull` (bottom-up): one invocation per (node, word) ORs the frontier words
//       of the node's in-neighbours (a reverse CSR built on the host without the edges leaving
//       sanitizers, stopping once every lane is accounted for), keeps the lanes not yet visited,
//       writes visited and next (it owns the entry: no atomics but the counters) and reports.
//       Cheap when the frontier is a large part of the graph; needs no complete work list.
//   A sanitizer is reached and reported like any node but never enters the frontier or a list.
//   The host swaps frontier and next, and stops when a level lists nothing or max_depth is
//   reached. Sources that do not fit in memory at once run in batches of whole words.
//
//   Bindings of the three bitset programs (0..7 as graph.bfs where they mean the same):
//     0 node_labels  1 edge_offsets  2 edge_targets  3 source_nodes (all of them)  4 findings
//     5 finding_count  6 params  7 visited  8 frontier  9 next  10 in_offsets  11 in_sources
//     12 list (this level's entries)  13 next_list  14 next_count
//     params: {lanes, num_nodes, max_findings, depth, words (W), source_base, mode, num_nodes * W,
//              list_count, list_capacity}; mode 0 reports findings as graph.bfs does, mode 1 every
//     reached node (graph.reachability). source_idx in a record is source_base + lane.
//
// How the host picks (variant automatic): bounded_queue only where it is exact and cheap — no
// level can hold more than 4096 nodes (bounded by node_count - 1 and by the number of nodes
// with an in-edge; by the largest out-degree when max_depth is 1) and there are at most
// automatic_bounded_max_sources sources (one invocation per source leaves a GPU idle, and its
// serial BFS grows with the graph). Everything else runs bitset.

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/graph/traversal.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::ops::graph {

inline constexpr const char* bfs_op_id = "graph.bfs";
inline constexpr const char* reachability_op_id = "graph.reachability";
inline constexpr const char* bitset_init_op_id = "graph.bfs.bitset_init";
inline constexpr const char* bitset_pull_op_id = "graph.bfs.bitset_pull";
inline constexpr const char* bitset_push_op_id = "graph.bfs.bitset_push";

// The seed's MAX_BFS_QUEUE: frontier nodes per level per source in the bounded variant.
inline constexpr std::uint32_t max_bfs_queue = 4096;
inline constexpr std::uint32_t bfs_workgroup = 64;     // the seed's
inline constexpr std::uint32_t bitset_workgroup = 256; // one invocation per (node, word)
inline constexpr std::uint32_t bfs_param_words = 5;
inline constexpr std::uint32_t bitset_param_words = 10;
inline constexpr std::uint32_t unlimited_depth = std::numeric_limits<std::uint32_t>::max();
// Above this many sources `automatic` runs bitset even where the bounded queue is exact.
inline constexpr std::size_t automatic_bounded_max_sources = 256;

namespace bfs_binding {
enum : std::uint32_t {
    node_labels = 0, edge_offsets = 1, edge_targets = 2, source_nodes = 3, findings = 4, finding_count = 5,
    params = 6, visited_set = 7, queue_overflows = 8, queue = 9,
};
} // namespace bfs_binding
namespace bitset_binding {
enum : std::uint32_t {
    node_labels = 0, edge_offsets = 1, edge_targets = 2, source_nodes = 3, findings = 4, finding_count = 5,
    params = 6, visited = 7, frontier = 8, next = 9, in_offsets = 10, in_sources = 11, list = 12, next_list = 13,
    next_count = 14,
};
} // namespace bitset_binding
namespace bitset_param {
enum : std::uint32_t {
    lanes = 0, num_nodes = 1, max_findings = 2, depth = 3, words = 4, source_base = 5, mode = 6, entries = 7,
    list_count = 8, list_capacity = 9,
};
} // namespace bitset_param

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

// What a traversal reports: findings (graph.bfs) or every reached node (graph.reachability).
enum class report_mode : std::uint32_t { findings = 0, reached = 1 };

// A request above what the device (or u32 indexing) allows, with the numbers as fields: which
// quantity, how much it needs and the limit it broke (bytes, or a count where the unit says so).
class graph_resource_error : public resource_error {
public:
    graph_resource_error(std::string quantity, std::uint64_t required, std::uint64_t limit, std::string unit,
                         const std::string& what)
        : resource_error(what), quantity_(std::move(quantity)), required_(required), limit_(limit), unit_(std::move(unit)) {}
    const std::string& quantity() const noexcept { return quantity_; }
    std::uint64_t required() const noexcept { return required_; }
    std::uint64_t limit() const noexcept { return limit_; }
    const std::string& unit() const noexcept { return unit_; }

private:
    std::string quantity_;
    std::uint64_t required_, limit_;
    std::string unit_;
};

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

namespace detail {

// The role byte of a label, and the two role tests the programs need (labels.hpp: reserved
// roles 5..255 act as normal, which these tests give without naming them).
template <class L>
auto role_of(const L& label) {
    return (label >> 16u) & 0xFFu;
}

// ---- the bounded program ----------------------------------------------------------------------

inline ir::program bounded_program(report_mode mode) {
    namespace d = vyre::dsl;
    const bool all = mode == report_mode::reached;
    d::kernel k(entry_name(all ? reachability_op_id : bfs_op_id), {bfs_workgroup, 1, 1});
    const auto labels = k.input<d::u32>("node_labels", bfs_binding::node_labels);
    const auto offsets = k.input<d::u32>("edge_offsets", bfs_binding::edge_offsets);
    const auto targets = k.input<d::u32>("edge_targets", bfs_binding::edge_targets);
    const auto sources = k.input<d::u32>("source_nodes", bfs_binding::source_nodes);
    const auto findings = k.output<d::u32>("findings", bfs_binding::findings);
    const auto count = k.output<d::u32>("finding_count", bfs_binding::finding_count);
    const auto params = k.uniform<d::u32>("params", bfs_binding::params);
    const auto visited = k.output<d::u32>("visited_set", bfs_binding::visited_set);
    const auto overflows = k.output<d::u32>("queue_overflows", bfs_binding::queue_overflows);
    const auto queue = k.output<d::u32>("queue", bfs_binding::queue);

    const auto s = k.let("source_idx", d::invocation_id());
    const auto num_sources = k.let("num_sources", params[0u]);
    k.if_(s >= num_sources, [&] { k.return_(); });
    const auto max_findings = k.let("max_findings", params[2u]);
    const auto max_depth = k.let("max_depth", params[3u]);
    const auto visited_base = k.let("visited_base", s * params[4u]);
    const auto start = k.let("start", sources[s]);

    // Appends (start, node, depth, s); `tag` keeps the two call sites' variable names apart.
    const auto emit = [&](const std::string& tag, const auto& node, const auto& depth) {
        const auto slot = k.let("slot_" + tag, d::atomic_add(count, 0u, 1u));
        k.if_(slot < max_findings, [&] {
            k.store(findings, slot * 4u, start);
            k.store(findings, slot * 4u + 1u, node);
            k.store(findings, slot * 4u + 2u, depth);
            k.store(findings, slot * 4u + 3u, s);
        });
    };

    k.let("start_old", d::atomic_or(visited, visited_base + (start >> 5u), 1u << (start & 31u)));
    if (all) k.block([&] { emit("start", start, 0u); });
    else k.if_(role_of(labels[start]) == 3u, [&] { emit("start", start, 0u); });
    k.store(queue, s, start); // half 0, position 0

    const auto level_size = k.let("level_size", 1u);
    const auto half = k.let("queue_half", 0u);
    const auto depth = k.let("depth", 0u);
    k.while_(level_size > 0u && depth < max_depth, [&] {
        const auto next_half = k.let("next_half", half ^ 1u);
        const auto next_size = k.let("next_size", 0u);
        const auto next_depth = k.let("next_depth", depth + 1u);
        k.for_("i", 0u, level_size, [&](auto i) {
            const auto u = k.let("u", queue[(half * max_bfs_queue + i) * num_sources + s]);
            k.if_(role_of(labels[u]) == 4u, [&] { k.continue_(); }); // a sanitizer is not expanded
            k.for_("e", offsets[u], offsets[u + 1u], [&](auto e) {
                const auto v = k.let("v", targets[e]);
                const auto word = k.let("word", visited_base + (v >> 5u));
                const auto bit = k.let("bit", 1u << (v & 31u));
                // A plain read first: most edges meet visited nodes, and it spares their atomic.
                k.if_((visited[word] & bit) != 0u, [&] { k.continue_(); });
                const auto old = k.let("old", d::atomic_or(visited, word, bit));
                k.if_((old & bit) != 0u, [&] { k.continue_(); });
                if (all) k.block([&] { emit("reached", v, next_depth); });
                else k.if_((role_of(labels[v]) | 1u) == 3u, [&] { emit("reached", v, next_depth); });
                k.if_(next_size < max_bfs_queue, [&] {
                    k.store(queue, (next_half * max_bfs_queue + next_size) * num_sources + s, v);
                    next_size = next_size + 1u;
                }).else_([&] { k.let("overflow_old", d::atomic_add(overflows, 0u, 1u)); });
            });
        });
        half = next_half;
        level_size = next_size;
        depth = next_depth;
    });
    return k.program();
}

// ---- the bitset programs ----------------------------------------------------------------------

struct bitset_buffers {
    dsl::input_buffer<dsl::u32> labels, offsets, targets, sources;
    dsl::output_buffer<dsl::u32> findings, count;
    dsl::uniform_buffer<dsl::u32> params;
    dsl::output_buffer<dsl::u32> visited;
};

inline bitset_buffers declare_bitset_buffers(dsl::kernel& k) {
    return {k.input<dsl::u32>("node_labels", bitset_binding::node_labels),
            k.input<dsl::u32>("edge_offsets", bitset_binding::edge_offsets),
            k.input<dsl::u32>("edge_targets", bitset_binding::edge_targets),
            k.input<dsl::u32>("source_nodes", bitset_binding::source_nodes),
            k.output<dsl::u32>("findings", bitset_binding::findings),
            k.output<dsl::u32>("finding_count", bitset_binding::finding_count),
            k.uniform<dsl::u32>("params", bitset_binding::params),
            k.output<dsl::u32>("visited", bitset_binding::visited)};
}

// Appends `entry` to next_list; past list_capacity only the count grows (the host then pulls).
template <class E>
void append_entry(dsl::kernel& k, const bitset_buffers& b, const dsl::output_buffer<dsl::u32>& list,
                  const dsl::output_buffer<dsl::u32>& count, const E& entry) {
    const auto at = k.let("at", dsl::atomic_add(count, 0u, 1u));
    k.if_(at < b.params[9u], [&] { k.store(list, at, entry); });
}

// Reports node v for every lane set in `lanes` (a word of lanes, word w) at `depth`: one
// counter update for the whole word, then a record per lane while below max_findings.
template <class V, class W, class L, class D>
void report_lanes(dsl::kernel& k, const bitset_buffers& b, const V& v, const W& w, const L& lanes, const D& depth) {
    namespace d = vyre::dsl;
    k.if_(b.params[6u] != 0u || (role_of(b.labels[v]) | 1u) == 3u, [&] {
        const auto slot = k.let("slot", d::atomic_add(b.count, 0u, d::popcount(lanes)));
        const auto max_findings = k.let("max_findings", b.params[2u]);
        const auto base = k.let("lane_base", b.params[5u] + w * 32u);
        const auto bits = k.let("bits", lanes);
        k.while_(bits != 0u, [&] {
            const auto source_idx = k.let("lane_source_idx", base + d::ctz(bits));
            k.if_(slot < max_findings, [&] {
                k.store(b.findings, slot * 4u, b.sources[source_idx]);
                k.store(b.findings, slot * 4u + 1u, v);
                k.store(b.findings, slot * 4u + 2u, depth);
                k.store(b.findings, slot * 4u + 3u, source_idx);
            });
            slot = slot + 1u;
            bits = bits & (bits - 1u);
        });
    });
}

// One invocation per lane of the batch: its start node enters visited (and the frontier and the
// first work list, unless it is a sanitizer, which is never expanded); depth 0 is reported.
inline ir::program bitset_init_program() {
    namespace d = vyre::dsl;
    d::kernel k(entry_name(bitset_init_op_id), {bfs_workgroup, 1, 1});
    const bitset_buffers b = declare_bitset_buffers(k);
    const auto frontier = k.output<d::u32>("frontier", bitset_binding::frontier);
    const auto next_list = k.output<d::u32>("next_list", bitset_binding::next_list);
    const auto next_count = k.output<d::u32>("next_count", bitset_binding::next_count);
    const auto lane = k.let("lane", d::invocation_id());
    k.if_(lane >= b.params[0u], [&] { k.return_(); });
    const auto source_idx = k.let("source_idx", b.params[5u] + lane);
    const auto node = k.let("node", b.sources[source_idx]);
    const auto index = k.let("index", node * b.params[4u] + (lane >> 5u));
    const auto bit = k.let("bit", 1u << (lane & 31u));
    const auto role = k.let("role", role_of(b.labels[node]));
    // Atomic: a node listed twice puts two lanes of one word here.
    k.let("visited_old", d::atomic_or(b.visited, index, bit));
    k.if_(b.params[6u] != 0u || role == 3u, [&] {
        const auto slot = k.let("slot", d::atomic_add(b.count, 0u, 1u));
        k.if_(slot < b.params[2u], [&] {
            k.store(b.findings, slot * 4u, node);
            k.store(b.findings, slot * 4u + 1u, node);
            k.store(b.findings, slot * 4u + 2u, 0u);
            k.store(b.findings, slot * 4u + 3u, source_idx);
        });
    });
    k.if_(role != 4u, [&] {
        const auto old = k.let("frontier_old", d::atomic_or(frontier, index, bit));
        k.if_(old == 0u, [&] { append_entry(k, b, next_list, next_count, index); });
    });
    return k.program();
}

// Bottom-up level: one invocation per (node, word) of the batch.
inline ir::program bitset_pull_program() {
    namespace d = vyre::dsl;
    d::kernel k(entry_name(bitset_pull_op_id), {bitset_workgroup, 1, 1});
    const bitset_buffers b = declare_bitset_buffers(k);
    const auto frontier = k.input<d::u32>("frontier", bitset_binding::frontier);
    const auto next = k.output<d::u32>("next", bitset_binding::next);
    const auto in_offsets = k.input<d::u32>("in_offsets", bitset_binding::in_offsets);
    const auto in_sources = k.input<d::u32>("in_sources", bitset_binding::in_sources);
    const auto next_list = k.output<d::u32>("next_list", bitset_binding::next_list);
    const auto next_count = k.output<d::u32>("next_count", bitset_binding::next_count);

    const auto i = k.let("i", d::invocation_id());
    k.if_(i >= b.params[7u], [&] { k.return_(); });
    const auto words = k.let("words", b.params[4u]);
    const auto v = k.let("v", i / words);
    const auto w = k.let("w", i - v * words);
    const auto lanes_here = k.let("lanes_here", d::min(b.params[0u] - w * 32u, 32u));
    const auto mask = k.let("mask", d::select(lanes_here == 32u, 0xFFFFFFFFu, (1u << lanes_here) - 1u));
    const auto seen = k.let("seen", b.visited[i]);
    const auto fresh = k.let("fresh", 0u);
    k.if_((seen & mask) != mask, [&] {
        const auto reached = k.let("reached", 0u);
        k.for_("e", in_offsets[v], in_offsets[v + 1u], [&](auto e) {
            reached = reached | frontier[in_sources[e] * words + w];
            // Every lane of the word is accounted for: the other in-edges cannot add one.
            k.if_(((reached | seen) & mask) == mask, [&] { k.break_(); });
        });
        fresh = reached & ~seen;
    });
    const auto expand = k.let("expand", 0u); // the lanes v joins the next frontier with
    k.if_(fresh != 0u, [&] {
        k.store(b.visited, i, seen | fresh);
        report_lanes(k, b, v, w, fresh, b.params[3u]);
        k.if_(role_of(b.labels[v]) != 4u, [&] {
            expand = fresh;
            append_entry(k, b, next_list, next_count, i);
        });
    });
    k.store(next, i, expand);
    return k.program();
}

// Top-down level: one invocation per entry (node * words + word) of the work list.
inline ir::program bitset_push_program() {
    namespace d = vyre::dsl;
    d::kernel k(entry_name(bitset_push_op_id), {bitset_workgroup, 1, 1});
    const bitset_buffers b = declare_bitset_buffers(k);
    const auto frontier = k.output<d::u32>("frontier", bitset_binding::frontier);
    const auto next = k.output<d::u32>("next", bitset_binding::next);
    const auto list = k.input<d::u32>("list", bitset_binding::list);
    const auto next_list = k.output<d::u32>("next_list", bitset_binding::next_list);
    const auto next_count = k.output<d::u32>("next_count", bitset_binding::next_count);

    const auto j = k.let("j", d::invocation_id());
    k.if_(j >= b.params[8u], [&] { k.return_(); });
    const auto words = k.let("words", b.params[4u]);
    const auto index = k.let("index", list[j]);
    const auto u = k.let("u", index / words);
    const auto w = k.let("w", index - u * words);
    const auto lanes = k.let("lanes", frontier[index]);
    k.store(frontier, index, 0u); // entries are unique: the frontier ends the level empty, ready to be `next`
    k.for_("e", b.offsets[u], b.offsets[u + 1u], [&](auto e) {
        const auto v = k.let("v", b.targets[e]);
        const auto vi = k.let("vi", v * words + w);
        const auto fresh = k.let("fresh", lanes & ~b.visited[vi]);
        k.if_(fresh == 0u, [&] { k.continue_(); });
        // The atomic decides which invocation reaches (v, lane) first: only it reports the lane.
        const auto old = k.let("old", d::atomic_or(b.visited, vi, fresh));
        const auto gained = k.let("gained", fresh & ~old);
        k.if_(gained == 0u, [&] { k.continue_(); });
        report_lanes(k, b, v, w, gained, b.params[3u]);
        k.if_(role_of(b.labels[v]) != 4u, [&] {
            const auto next_old = k.let("next_old", d::atomic_or(next, vi, gained));
            k.if_(next_old == 0u, [&] { append_entry(k, b, next_list, next_count, vi); });
        });
    });
    return k.program();
}

} // namespace detail

inline ir::program bfs_program() { return detail::bounded_program(report_mode::findings); }
inline ir::program bitset_init_program() { return detail::bitset_init_program(); }
inline ir::program bitset_pull_program() { return detail::bitset_pull_program(); }
inline ir::program bitset_push_program() { return detail::bitset_push_program(); }

// ---- registry entries ---------------------------------------------------------------------------

inline ir::op_signature bfs_signature() { return {{ir::data_type::bytes}, ir::data_type::bytes}; }

inline op_info bfs_info() {
    return {bfs_op_id, 1,
            "multi-source BFS findings, one invocation per source with a 4096-node queue per level (the seed's design; "
            "overflow counted)",
            bfs_signature(), ir::convention::v1(), [] { return bfs_program(); }};
}
// The unbounded variant's programs (graph.bfs and graph.reachability share them: params mode).
inline op_info bitset_init_info() {
    return {bitset_init_op_id, 1, "graph.bfs bitset variant: start nodes of a batch of sources (32 per word)", bfs_signature(),
            ir::convention::v1(), [] { return bitset_init_program(); }};
}
inline op_info bitset_pull_info() {
    return {bitset_pull_op_id, 1, "graph.bfs bitset variant: one bottom-up BFS level, one invocation per (node, 32 sources)",
            bfs_signature(), ir::convention::v1(), [] { return bitset_pull_program(); }};
}
inline op_info bitset_push_info() {
    return {bitset_push_op_id, 1, "graph.bfs bitset variant: one top-down BFS level over the work list of (node, 32 sources)",
            bfs_signature(), ir::convention::v1(), [] { return bitset_push_program(); }};
}

// ---- host side ----------------------------------------------------------------------------------

namespace detail {

// The process-wide programs, lowered once and built once per context.
inline const runtime::compiled_program& bounded_kernel(report_mode mode) {
    if (mode == report_mode::reached) {
        static const runtime::compiled_program reached(bounded_program(report_mode::reached));
        return reached;
    }
    static const runtime::compiled_program findings(bounded_program(report_mode::findings));
    return findings;
}
inline const runtime::compiled_program& bitset_init_kernel() {
    static const runtime::compiled_program p(bitset_init_program());
    return p;
}
inline const runtime::compiled_program& bitset_pull_kernel() {
    static const runtime::compiled_program p(bitset_pull_program());
    return p;
}
inline const runtime::compiled_program& bitset_push_kernel() {
    static const runtime::compiled_program p(bitset_push_program());
    return p;
}

inline constexpr std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();

inline std::string op_name(report_mode mode) { return mode == report_mode::reached ? reachability_op_id : bfs_op_id; }

} // namespace detail

// Device memory one traversal plans to use: 7/8 of the device's memory (the rest is left to
// others), and never more than launch_memory_cap. The cap is a driver quirk: NVIDIA's OpenCL
// driver 580.159 on the H100 reports 85 GB of memory and a largest allocation of 21 GB, yet a
// launch whose buffers totalled 8.5 GiB ran in 25 ms while 10.5 GiB did not finish within 40 s
// and 17 GiB failed with CL_OUT_OF_RESOURCES after ~96 s, leaving the context unusable (measured
// 2026-11-22). Staying within 8 GiB per launch costs only batch size: the bitset variant runs
// more batches, and the bounded variant refuses (graph_resource_error) what it cannot hold.
inline constexpr std::uint64_t launch_memory_cap = std::uint64_t{8} << 30;

inline std::uint64_t launch_memory_budget(const runtime::device_info& d) {
    return std::min(d.global_memory - d.global_memory / 8, launch_memory_cap);
}

// The largest buffer a traversal allocates: the device's largest allocation, u32 indexing
// (2^32-1 words) and the launch budget.
inline std::uint64_t max_buffer_bytes(const runtime::device_info& d) {
    return 4 * std::min({d.max_allocation / 4, std::uint64_t{std::numeric_limits<std::uint32_t>::max()}, launch_memory_budget(d) / 4});
}

namespace detail {

inline std::uint64_t max_buffer_words(const runtime::device_info& d) { return max_buffer_bytes(d) / 4; }

inline std::string limit_text(const runtime::device_info& d) {
    return "min(maximum allocation " + std::to_string(d.max_allocation) + " bytes, 2^32-1 u32 words, launch budget " +
           std::to_string(launch_memory_budget(d)) + " bytes) on " + d.label();
}

inline void check_buffer(const runtime::device_info& d, report_mode mode, const std::string& quantity, std::uint64_t words,
                         const std::string& formula) {
    const std::uint64_t limit = max_buffer_words(d);
    if (words <= limit) return;
    throw graph_resource_error(quantity, words * 4, limit * 4, "bytes",
                               op_name(mode) + ": " + quantity + " needs " + formula + " = " + std::to_string(words) +
                                   " words (" + std::to_string(words * 4) + " bytes), above the largest buffer of " +
                                   std::to_string(limit * 4) + " bytes: " + limit_text(d));
}

inline void check_total(const runtime::device_info& d, report_mode mode, std::uint64_t bytes, const std::string& parts) {
    const std::uint64_t budget = launch_memory_budget(d);
    if (bytes <= budget) return;
    throw graph_resource_error("device memory", bytes, budget, "bytes",
                               op_name(mode) + ": one dispatch needs " + std::to_string(bytes) + " bytes of device memory (" +
                                   parts + "), above the launch budget of " + std::to_string(budget) +
                                   " bytes (min(7/8 of " + std::to_string(d.global_memory) + ", " +
                                   std::to_string(launch_memory_cap) + ")) on " + d.label());
}

// Nodes a traversal can report: every node, or those whose role is sink or source+sink. Each
// source reports a node at most once, so sources * this bounds the finding counter.
inline std::uint64_t reportable_nodes(const vyre::graph::csr_graph& g, report_mode mode) {
    if (mode == report_mode::reached) return g.node_count();
    return static_cast<std::uint64_t>(std::count_if(g.node_data.begin(), g.node_data.end(),
                                                    [](std::uint32_t l) { return vyre::graph::is_sink(l); }));
}

// The widest level any traversal can have, from the graph alone: levels >= 1 hold nodes with an
// in-edge other than the start; at depth 1 at most the largest out-degree.
inline std::uint64_t max_level_width(const vyre::graph::csr_graph& g, std::uint32_t max_depth) {
    const std::uint32_t n = g.node_count();
    if (max_depth == 0 || n == 0) return 0;
    std::vector<bool> has_in(n, false);
    for (const std::uint32_t t : g.targets) has_in[t] = true;
    const std::uint64_t with_in = static_cast<std::uint64_t>(std::count(has_in.begin(), has_in.end(), true));
    std::uint64_t bound = std::min<std::uint64_t>(n - 1, with_in);
    if (max_depth == 1) {
        std::uint64_t degree = 0;
        for (std::uint32_t u = 0; u < n; ++u) degree = std::max<std::uint64_t>(degree, g.offsets[u + 1] - g.offsets[u]);
        bound = std::min(bound, degree);
    }
    return bound;
}

struct launch_log {
    runtime::context* ctx;
    std::vector<boost::compute::event> events;
    std::uint32_t launches = 0;

    void add(const boost::compute::event& e) {
        ++launches;
        if (ctx->profiling() && e.get()) events.push_back(e);
    }
    double seconds() const {
        double s = 0;
        for (const auto& e : events) {
            const auto start = e.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_START);
            const auto end = e.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_END);
            s += double(end - start) * 1e-9;
        }
        return s;
    }
};

inline boost::compute::buffer constants(runtime::context& ctx, std::span<const std::uint32_t> words) {
    return runtime::detail::cl_call("clCreateBuffer", [&] {
        return boost::compute::buffer(ctx.cl_context(), words.size_bytes(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      const_cast<std::uint32_t*>(words.data()));
    });
}

inline void zero_fill(runtime::context& ctx, boost::compute::buffer& b) {
    const std::uint32_t zero = 0;
    runtime::detail::cl_call("clEnqueueFillBuffer", [&] { ctx.queue().enqueue_fill_buffer(b, &zero, 4, 0, b.size()); });
}

inline std::uint32_t read_word(runtime::context& ctx, const boost::compute::buffer& b) {
    std::uint32_t v = 0;
    runtime::read(ctx, b, &v, 4);
    return v;
}

// Appends the first min(count, capacity) findings of `b` to `out`.
inline std::uint64_t read_findings(runtime::context& ctx, const boost::compute::buffer& b, std::uint32_t count,
                                   std::uint32_t capacity, std::vector<vyre::graph::finding>& out) {
    const std::uint32_t stored = std::min(count, capacity);
    const std::size_t old = out.size();
    out.resize(old + stored);
    runtime::read(ctx, b, out.data() + old, std::size_t(stored) * sizeof(vyre::graph::finding));
    return stored;
}

inline std::uint32_t groups(std::uint64_t invocations, std::uint32_t workgroup, std::uint32_t min_workgroups) {
    return std::max(runtime::groups_for(invocations, workgroup), min_workgroups);
}

// The seed's program: one dispatch over every source.
inline traversal_result run_bounded(runtime::context& ctx, const vyre::graph::csr_graph& g,
                                    std::span<const std::uint32_t> sources, const bfs_options& o, report_mode mode) {
    const auto& dev = ctx.device();
    const std::uint64_t n = g.node_count(), s = sources.size(), e = g.edge_count();
    const std::uint64_t wps = (n + 31) / 32;
    check_buffer(dev, mode, "visited_set", s * wps,
                 "num_sources (" + std::to_string(s) + ") x words_per_source (" + std::to_string(wps) + ")");
    check_buffer(dev, mode, "queue", s * 2 * max_bfs_queue,
                 "num_sources (" + std::to_string(s) + ") x 2 x MAX_BFS_QUEUE (" + std::to_string(max_bfs_queue) + ")");
    check_buffer(dev, mode, "findings", std::uint64_t{o.max_findings} * 4,
                 "max_findings (" + std::to_string(o.max_findings) + ") x 4");
    const std::uint64_t counter_bound = s * reportable_nodes(g, mode);
    if (counter_bound > u32_max)
        throw graph_resource_error("finding_count", counter_bound, u32_max, "findings",
                                   op_name(mode) + ": " + std::to_string(s) + " sources x " +
                                       std::to_string(reportable_nodes(g, mode)) +
                                       " reportable nodes may count past the u32 finding_count (2^32-1) in one dispatch; "
                                       "the bitset variant splits the sources into batches");
    const std::uint64_t bytes = 4 * (n + (n + 1) + e + s + s * wps + s * 2 * max_bfs_queue + std::uint64_t{o.max_findings} * 4 + 2 + bfs_param_words);
    check_total(dev, mode, bytes, "graph, sources, visited_set, queue and findings");

    traversal_result r;
    r.variant = bfs_variant::bounded_queue;
    r.batches = 1;
    launch_log log{&ctx, {}, 0};
    const std::uint32_t params[bfs_param_words] = {static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(n), o.max_findings,
                                                   o.max_depth, static_cast<std::uint32_t>(wps)};
    std::vector<runtime::buffer_arg> args(10);
    args[bfs_binding::node_labels] = {runtime::upload(ctx, std::span<const std::uint32_t>(g.node_data), CL_MEM_READ_ONLY),
                                      static_cast<std::uint32_t>(n)};
    args[bfs_binding::edge_offsets] = {runtime::upload(ctx, std::span<const std::uint32_t>(g.offsets), CL_MEM_READ_ONLY),
                                       static_cast<std::uint32_t>(n + 1)};
    args[bfs_binding::edge_targets] = {runtime::upload(ctx, std::span<const std::uint32_t>(g.targets), CL_MEM_READ_ONLY),
                                       static_cast<std::uint32_t>(e)};
    args[bfs_binding::source_nodes] = {runtime::upload(ctx, sources, CL_MEM_READ_ONLY), static_cast<std::uint32_t>(s)};
    args[bfs_binding::findings] = {runtime::allocate(ctx, std::size_t(o.max_findings) * 16), o.max_findings * 4};
    args[bfs_binding::finding_count] = {runtime::allocate(ctx, 4), 1};
    args[bfs_binding::params] = {constants(ctx, params), bfs_param_words};
    args[bfs_binding::visited_set] = {runtime::allocate(ctx, std::size_t(s * wps) * 4), static_cast<std::uint32_t>(s * wps)};
    args[bfs_binding::queue_overflows] = {runtime::allocate(ctx, 4), 1};
    args[bfs_binding::queue] = {runtime::allocate(ctx, std::size_t(s) * 2 * max_bfs_queue * 4),
                                static_cast<std::uint32_t>(s * 2 * max_bfs_queue)};
    for (auto b : {bfs_binding::finding_count, bfs_binding::visited_set, bfs_binding::queue_overflows})
        zero_fill(ctx, args[b].buffer);
    log.add(runtime::dispatch(ctx, bounded_kernel(mode), {groups(s, bfs_workgroup, o.min_workgroups), 1, 1}, args));
    const std::uint32_t count = read_word(ctx, args[bfs_binding::finding_count].buffer);
    r.queue_overflows = read_word(ctx, args[bfs_binding::queue_overflows].buffer);
    r.total_found = count;
    read_findings(ctx, args[bfs_binding::findings].buffer, count, o.max_findings, r.records);
    ctx.finish();
    r.launches = log.launches;
    r.kernel_seconds = log.seconds();
    return r;
}

// In-edges of every node, without the edges that leave a sanitizer (they are never followed).
struct reverse_csr {
    std::vector<std::uint32_t> offsets, sources;
};

inline reverse_csr reverse_without_sanitizers(const vyre::graph::csr_graph& g) {
    const std::uint32_t n = g.node_count();
    reverse_csr r;
    r.offsets.assign(std::size_t{n} + 1, 0);
    for (std::uint32_t u = 0; u < n; ++u) {
        if (vyre::graph::is_sanitizer(g.node_data[u])) continue;
        for (const std::uint32_t v : g.neighbors(u)) ++r.offsets[std::size_t{v} + 1];
    }
    for (std::size_t i = 1; i < r.offsets.size(); ++i) r.offsets[i] += r.offsets[i - 1];
    r.sources.resize(r.offsets.back());
    std::vector<std::uint32_t> cursor(r.offsets.begin(), r.offsets.end() - 1);
    for (std::uint32_t u = 0; u < n; ++u) {
        if (vyre::graph::is_sanitizer(g.node_data[u])) continue;
        for (const std::uint32_t v : g.neighbors(u)) r.sources[cursor[v]++] = u;
    }
    return r;
}

// Work-list entries a batch of `entries` (node, word) pairs keeps: a push level pays off only
// while its list is a small part of the whole (see push_pays), so lists need not hold them all.
inline std::uint64_t list_capacity(std::uint64_t entries) { return std::min(entries, entries / 8 + 4096); }

// Bytes a batch of `words` words of 32 sources needs: visited, frontier and next bitmaps, and two
// work lists.
inline std::uint64_t bitset_batch_bytes(std::uint64_t n, std::uint64_t words) {
    return 4 * (3 * n * words + 2 * list_capacity(n * words));
}

// Words of 32 sources per batch: the most that fit one buffer (each bitmap is node_count x words),
// all batch buffers in the device memory left after the fixed ones (leaving an eighth of it to
// others), and a finding counter that cannot pass 2^32-1 within a batch.
inline std::uint64_t bitset_batch_words(const runtime::device_info& dev, report_mode mode, std::uint64_t n,
                                        std::uint64_t source_words, std::uint64_t fixed_bytes, std::uint64_t reportable,
                                        std::uint32_t max_batch_sources) {
    const std::uint64_t usable = launch_memory_budget(dev);
    const std::uint64_t one_word = fixed_bytes + bitset_batch_bytes(n, 1);
    if (one_word > usable)
        throw graph_resource_error("device memory", one_word, usable, "bytes",
                                   op_name(mode) + " (bitset): the graph, sources and findings buffers (" +
                                       std::to_string(fixed_bytes) + " bytes) and one word of 32 sources (bitmaps and work lists, " +
                                       std::to_string(bitset_batch_bytes(n, 1)) + " bytes for " + std::to_string(n) +
                                       " nodes) need " + std::to_string(one_word) + " bytes, above the launch budget of " +
                                       std::to_string(usable) + " bytes (min(7/8 of " + std::to_string(dev.global_memory) + ", " +
                                       std::to_string(launch_memory_cap) + ")) on " + dev.label());
    const std::uint64_t by_buffer = max_buffer_words(dev) / n;
    if (by_buffer == 0)
        throw graph_resource_error("bitset row", n * 4, max_buffer_words(dev) * 4, "bytes",
                                   op_name(mode) + " (bitset): one word of 32 sources over " + std::to_string(n) +
                                       " nodes needs " + std::to_string(n * 4) + " bytes per bitmap, above the largest buffer of " +
                                       std::to_string(max_buffer_words(dev) * 4) + " bytes: " + limit_text(dev));
    const std::uint64_t by_counter = reportable == 0 ? source_words : u32_max / (32 * reportable);
    if (by_counter == 0)
        throw graph_resource_error("finding_count", 32 * reportable, u32_max, "findings",
                                   op_name(mode) + " (bitset): 32 sources x " + std::to_string(reportable) +
                                       " reportable nodes may count past the u32 finding_count (2^32-1) in one batch");
    std::uint64_t words = std::min({source_words, by_buffer, by_counter});
    if (max_batch_sources != 0) words = std::min<std::uint64_t>(words, std::max<std::uint32_t>(max_batch_sources / 32, 1));
    // The largest count whose buffers fit (bitset_batch_bytes grows with words).
    std::uint64_t lo = 1, hi = words;
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo + 1) / 2;
        if (fixed_bytes + bitset_batch_bytes(n, mid) <= usable) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// Top-down beats bottom-up while the work list's edges are few next to a full sweep: a pull level
// visits every (node, word) and scans in-edges; a push level only the list's out-edges, with
// atomics (weighed 8 times a plain load).
inline bool push_pays(std::uint64_t list_count, std::uint64_t capacity, std::uint64_t n, std::uint64_t e,
                      std::uint64_t words, bitset_direction direction) {
    if (list_count > capacity) return false; // the list is incomplete: only a sweep finds every entry
    if (direction != bitset_direction::automatic) return direction == bitset_direction::push;
    const double per_entry = 1.0 + double(e) / double(n);
    return double(list_count) * per_entry * 8 <= double(n + e) * double(words);
}

inline traversal_result run_bitset(runtime::context& ctx, const vyre::graph::csr_graph& g,
                                   std::span<const std::uint32_t> sources, const bfs_options& o, report_mode mode) {
    const auto& dev = ctx.device();
    const std::uint64_t n = g.node_count(), s = sources.size(), e = g.edge_count();
    const reverse_csr rev = reverse_without_sanitizers(g);
    check_buffer(dev, mode, "findings", std::uint64_t{o.max_findings} * 4,
                 "max_findings (" + std::to_string(o.max_findings) + ") x 4");
    const std::uint64_t fixed =
        4 * (2 * n + 2 * (n + 1) + e + rev.sources.size() + s + std::uint64_t{o.max_findings} * 4 + 2 + bitset_param_words);
    const std::uint64_t source_words = (s + 31) / 32;
    const std::uint64_t batch_words =
        bitset_batch_words(dev, mode, n, source_words, fixed, reportable_nodes(g, mode), o.max_batch_sources);
    using binding = std::uint32_t;
    namespace b = bitset_binding;

    traversal_result r;
    r.variant = bfs_variant::bitset;
    launch_log log{&ctx, {}, 0};
    std::vector<runtime::buffer_arg> args(15);
    const auto upload = [&](binding at, std::span<const std::uint32_t> words) {
        args[at] = {runtime::upload(ctx, words, CL_MEM_READ_ONLY), static_cast<std::uint32_t>(words.size())};
    };
    upload(b::node_labels, g.node_data);
    upload(b::edge_offsets, g.offsets);
    upload(b::edge_targets, g.targets);
    upload(b::source_nodes, sources);
    upload(b::in_offsets, rev.offsets);
    upload(b::in_sources, rev.sources);
    args[b::findings] = {runtime::allocate(ctx, std::size_t(o.max_findings) * 16), o.max_findings * 4};
    args[b::finding_count] = {runtime::allocate(ctx, 4), 1};
    args[b::next_count] = {runtime::allocate(ctx, 4), 1};
    const std::uint64_t max_entries = n * batch_words, max_capacity = list_capacity(max_entries);
    boost::compute::buffer visited = runtime::allocate(ctx, max_entries * 4);
    boost::compute::buffer frontier = runtime::allocate(ctx, max_entries * 4);
    boost::compute::buffer next = runtime::allocate(ctx, max_entries * 4);
    boost::compute::buffer list = runtime::allocate(ctx, max_capacity * 4);
    boost::compute::buffer next_list = runtime::allocate(ctx, max_capacity * 4);

    std::uint32_t capacity = o.max_findings; // records the remaining batches may still store
    for (std::uint64_t base = 0; base < s; base += 32 * batch_words) {
        const std::uint64_t lanes = std::min<std::uint64_t>(32 * batch_words, s - base);
        const std::uint64_t words = (lanes + 31) / 32, entries = n * words, list_cap = list_capacity(entries);
        ++r.batches;
        for (auto* buffer : {&args[b::finding_count].buffer, &args[b::next_count].buffer, &visited, &frontier, &next})
            zero_fill(ctx, *buffer);
        bool next_clean = true; // push levels OR into `next`; pull levels write all of it
        std::uint32_t params[bitset_param_words] = {static_cast<std::uint32_t>(lanes), static_cast<std::uint32_t>(n), capacity, 0,
                                                    static_cast<std::uint32_t>(words), static_cast<std::uint32_t>(base),
                                                    static_cast<std::uint32_t>(mode), static_cast<std::uint32_t>(entries), 0,
                                                    static_cast<std::uint32_t>(list_cap)};
        const auto bind = [&] {
            args[b::params] = {constants(ctx, params), bitset_param_words};
            args[b::visited] = {visited, static_cast<std::uint32_t>(entries)};
            args[b::frontier] = {frontier, static_cast<std::uint32_t>(entries)};
            args[b::next] = {next, static_cast<std::uint32_t>(entries)};
            args[b::list] = {list, static_cast<std::uint32_t>(list_cap)};
            args[b::next_list] = {next_list, static_cast<std::uint32_t>(list_cap)};
        };
        bind();
        log.add(runtime::dispatch(ctx, bitset_init_kernel(), {groups(lanes, bfs_workgroup, o.min_workgroups), 1, 1}, args));
        std::uint32_t list_count = read_word(ctx, args[b::next_count].buffer);
        for (std::uint64_t depth = 1; depth <= o.max_depth && list_count != 0; ++depth) {
            std::swap(list, next_list);
            const bool push = push_pays(list_count, list_cap, n, e, words, o.direction);
            if (push && !next_clean) zero_fill(ctx, next);
            params[bitset_param::depth] = static_cast<std::uint32_t>(depth);
            params[bitset_param::list_count] = list_count;
            bind();
            zero_fill(ctx, args[b::next_count].buffer);
            if (push) {
                log.add(runtime::dispatch(ctx, bitset_push_kernel(), {groups(list_count, bitset_workgroup, o.min_workgroups), 1, 1}, args));
                ++r.push_levels;
                next_clean = true; // the push cleared every frontier entry it read: the frontier is empty now
            } else {
                log.add(runtime::dispatch(ctx, bitset_pull_kernel(), {groups(entries, bitset_workgroup, o.min_workgroups), 1, 1}, args));
                ++r.pull_levels;
                next_clean = false;
            }
            std::swap(frontier, next);
            list_count = read_word(ctx, args[b::next_count].buffer);
        }
        const std::uint32_t count = read_word(ctx, args[b::finding_count].buffer);
        r.total_found += count;
        capacity -= static_cast<std::uint32_t>(read_findings(ctx, args[b::findings].buffer, count, capacity, r.records));
    }
    ctx.finish();
    r.launches = log.launches;
    r.kernel_seconds = log.seconds();
    return r;
}

} // namespace detail

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
