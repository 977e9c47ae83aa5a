// graph.bfs's IR programs, shared with graph.reachability: the op ids, bindings and params, the
// bounded program (the seed's design) and the three bitset programs, and their registry entries.
#pragma once

// The host API that runs them is bfs.hpp; both variants give the same results.
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

#include <vyre/dsl.hpp>
#include <vyre/ops/op.hpp>

#include <cstdint>
#include <string>

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

// What a traversal reports: findings (graph.bfs) or every reached node (graph.reachability).
enum class report_mode : std::uint32_t { findings = 0, reached = 1 };

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

} // namespace vyre::ops::graph
