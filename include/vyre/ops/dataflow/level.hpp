// The level programs of engine::dataflow (engine/dataflow.hpp has the whole design): the start
// program `dataflow.init` and, per transfer function, one top-down and one bottom-up level program
// (`dataflow.level.<transfer>.push`, `.pull`), with their bindings and params, as IR.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/ops/dataflow/transfer.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/program_cache.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::dataflow {

inline constexpr const char* dataflow_init_op_id = "dataflow.init";
inline constexpr const char* dataflow_frontier_lanes_op_id = "dataflow.frontier_lanes";
inline constexpr std::uint32_t unlimited_depth = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint32_t dataflow_init_workgroup = 64;
inline constexpr std::uint32_t dataflow_level_workgroup = 256;
inline constexpr std::uint32_t dataflow_param_words = 17;
// dataflow.frontier_lanes runs at most this many workgroups, striding over the work list: enough
// to fill a large GPU, and few enough that their atomic ORs into W words stay cheap.
inline constexpr std::uint32_t dataflow_frontier_lanes_workgroups = 1024;
// Edges one group of a level program walks at most. A node with more edges is split into chunks
// of this many, each walked by its own group, so that an RMAT hub (160,000 edges at scale 22) is
// walked by hundreds of groups at once instead of holding the whole level on one group's serial
// loop; 256 keeps a group's chain of dependent loads short while a hub's chunks still add only
// one list entry (or pull task) per 256 edges (doc/engine/dataflow.md, "Work list").
inline constexpr std::uint32_t dataflow_edge_chunk = 256;

inline std::string dataflow_level_op_id(const std::string& transfer, bool push) {
    return "dataflow.level." + transfer + (push ? ".push" : ".pull");
}

namespace dataflow_binding {
enum : std::uint32_t {
    node_labels = 0, edge_offsets = 1, edge_targets = 2, edge_kinds = 3, source_nodes = 4, findings = 5,
    finding_count = 6, params = 7, visited = 8, frontier = 9, next = 10, in_offsets = 11, in_sources = 12,
    in_kinds = 13, list = 14, next_list = 15, next_count = 16, stamps = 17, pull_tasks = 18, frontier_lanes = 19,
};
} // namespace dataflow_binding
inline constexpr std::uint32_t dataflow_binding_count = 20;
namespace dataflow_param { // u32 constants (not an enum) so that they index DSL buffers directly
inline constexpr std::uint32_t lanes = 0, num_nodes = 1, max_findings = 2, depth = 3, words = 4, source_base = 5,
                               entries = 6, list_count = 7, list_capacity = 8, p0 = 9, group_shift = 13,
                               edge_chunk = 14, pull_tasks = 15, lanes_workgroups = 16;
} // namespace dataflow_param
// The words of next_count: list entries appended, entries beyond one per node (chunks of nodes
// with more than edge_chunk out-edges), and the out-edges of the appended nodes. The edge counter
// sits in its own 128-byte line, away from the entry counter both are added to per node.
namespace dataflow_counter {
inline constexpr std::uint32_t entries = 0, extra_entries = 1, edges = 32, words = 33;
} // namespace dataflow_counter

// Lanes of one group: the words of a node (W, rounded up to a power of two), at most 32; a group
// of 32 walks W > 32 words in steps of 32.
inline std::uint32_t dataflow_group_shift(std::uint64_t words) {
    std::uint32_t shift = 0;
    while (shift < 5 && (std::uint64_t{1} << shift) < words) ++shift;
    return shift;
}

// Work-list entries of one node: its out-edges in chunks of dataflow_edge_chunk (one entry for a
// node without out-edges).
inline std::uint64_t dataflow_node_entries(std::uint64_t degree) {
    return std::max<std::uint64_t>(1, (degree + dataflow_edge_chunk - 1) / dataflow_edge_chunk);
}

// Entries a work list can hold at most: every node once, plus the extra chunks of the nodes with
// more than dataflow_edge_chunk out-edges (at most edge_count / dataflow_edge_chunk in all).
inline std::uint64_t dataflow_list_capacity(std::span<const std::uint32_t> offsets) {
    std::uint64_t entries = 0;
    for (std::size_t u = 0; u + 1 < offsets.size(); ++u) entries += dataflow_node_entries(offsets[u + 1] - offsets[u]);
    return entries;
}
inline std::uint64_t dataflow_list_capacity_bound(std::uint64_t n, std::uint64_t e) { return n + e / dataflow_edge_chunk; }

// The bytes of a batch of `words` words of 32 sources: three bitmaps (visited, frontier, next) and
// the frontier's lanes.
inline std::uint64_t dataflow_batch_bytes(std::uint64_t n, std::uint64_t words) { return 4 * words * (3 * n + 1); }

namespace detail {

// ---- the programs ------------------------------------------------------------------------------

struct buffers {
    dsl::input_buffer<dsl::u32> labels, offsets, targets, kinds, sources;
    dsl::output_buffer<dsl::u32> findings, count;
    dsl::uniform_buffer<dsl::u32> params;
    dsl::output_buffer<dsl::u32> visited, next_list, counters, stamps;
};

inline buffers declare(dsl::kernel& k) {
    namespace b = dataflow_binding;
    return {k.input<dsl::u32>("node_labels", b::node_labels),  k.input<dsl::u32>("edge_offsets", b::edge_offsets),
            k.input<dsl::u32>("edge_targets", b::edge_targets), k.input<dsl::u32>("edge_kinds", b::edge_kinds),
            k.input<dsl::u32>("source_nodes", b::source_nodes), k.output<dsl::u32>("findings", b::findings),
            k.output<dsl::u32>("finding_count", b::finding_count), k.uniform<dsl::u32>("params", b::params),
            k.output<dsl::u32>("visited", b::visited),          k.output<dsl::u32>("next_list", b::next_list),
            k.output<dsl::u32>("next_count", b::next_count),    k.output<dsl::u32>("stamps", b::stamps)};
}

// The role byte of a label (graph/labels.hpp: bits 16..23).
template <class L>
auto transfer_role(const L& label) {
    return (label >> 16u) & 0xFFu;
}

// List entries of a node of `degree` out-edges (dataflow_node_entries), written without the
// overflow of degree + chunk - 1.
template <class D, class C>
auto node_entries(const D& degree, const C& chunk) {
    return dsl::max(degree / chunk + dsl::select(degree % chunk != 0u, 1u, 0u), 1u);
}

// Writes the `count` entries (node, first out-edge of the chunk) of `node` from entry `at` on.
template <class N, class A, class C>
void write_entries(dsl::kernel& k, const buffers& b, const N& node, const A& at, const C& count) {
    const auto first = k.let("entry_first", b.offsets[node]);
    const auto chunk = k.let("entry_chunk", b.params[dataflow_param::edge_chunk]);
    k.for_("c", 0u, count, [&](auto c) {
        k.store(b.next_list, (at + c) * 2u, node);
        k.store(b.next_list, (at + c) * 2u + 1u, first + c * chunk);
    });
}

// Appends `node` to next_list with one atomic per counter: for the programs whose appends happen
// inside their edge loops (init, push), where no workgroup can gather them first.
template <class N>
void append_node(dsl::kernel& k, const buffers& b, const N& node) {
    namespace d = vyre::dsl;
    namespace c = dataflow_counter;
    const auto degree = k.let("append_degree", b.offsets[node + 1u] - b.offsets[node]);
    const auto count = k.let("append_entries", node_entries(degree, b.params[dataflow_param::edge_chunk]));
    const auto at = k.let("append_at", d::atomic_add(b.counters, c::entries, count));
    k.let("append_edges_old", d::atomic_add(b.counters, c::edges, degree));
    k.if_(count > 1u, [&] { k.let("append_extra_old", d::atomic_add(b.counters, c::extra_entries, count - 1u)); });
    write_entries(k, b, node, at, count);
}

// Reports sink v for every lane of `lanes` (word w) at `depth`: one counter update per word.
template <class V, class W, class L, class D>
void report_lanes(dsl::kernel& k, const buffers& b, const V& v, const W& w, const L& lanes, const D& depth) {
    namespace d = vyre::dsl;
    k.if_((transfer_role(b.labels[v]) | 1u) == 3u, [&] {
        const auto slot = k.let("slot", d::atomic_add(b.count, 0u, d::popcount(lanes)));
        const auto max_findings = k.let("max_findings", b.params[dataflow_param::max_findings]);
        const auto base = k.let("lane_base", b.params[dataflow_param::source_base] + w * 32u);
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

// The lanes of word w that hold sources of this batch (all 32 but in the last word).
template <class W>
auto lane_mask(dsl::kernel& k, const buffers& b, const W& w) {
    namespace d = vyre::dsl;
    const auto here = k.let("lanes_here", d::min(b.params[dataflow_param::lanes] - w * 32u, 32u));
    return k.let("mask", d::select(here == 32u, 0xFFFFFFFFu, (1u << here) - 1u));
}

using transfer_call = dsl::function<dsl::u32(dsl::u32, dsl::u32, dsl::u32, dsl::u32, dsl::u32, dsl::u32, dsl::u32,
                                             dsl::u32, dsl::u32, dsl::u32, dsl::u32)>;

// The program with the transfer function declared first, so the body's calls resolve to it.
inline ir::program with_transfer(ir::program p, const transfer_function& t) {
    p.functions.insert(p.functions.begin(), t.function);
    return p;
}

// One invocation per lane of the batch.
inline ir::program init_program() {
    namespace d = vyre::dsl;
    namespace prm = dataflow_param;
    d::kernel k(entry_name(dataflow_init_op_id), {dataflow_init_workgroup, 1, 1});
    const buffers b = declare(k);
    const auto frontier = k.output<d::u32>("frontier", dataflow_binding::frontier);
    const auto lane = k.let("lane", d::invocation_id());
    k.if_(lane >= b.params[prm::lanes], [&] { k.return_(); });
    const auto source_idx = k.let("source_idx", b.params[prm::source_base] + lane);
    const auto node = k.let("node", b.sources[source_idx]);
    const auto index = k.let("index", node * b.params[prm::words] + (lane >> 5u));
    const auto bit = k.let("bit", 1u << (lane & 31u));
    // Atomic: a node listed twice puts two lanes of one word here.
    k.let("visited_old", d::atomic_or(b.visited, index, bit));
    k.if_(transfer_role(b.labels[node]) == 3u, [&] {
        const auto slot = k.let("slot", d::atomic_add(b.count, 0u, 1u));
        k.if_(slot < b.params[prm::max_findings], [&] {
            k.store(b.findings, slot * 4u, node);
            k.store(b.findings, slot * 4u + 1u, node);
            k.store(b.findings, slot * 4u + 2u, 0u);
            k.store(b.findings, slot * 4u + 3u, source_idx);
        });
    });
    k.let("frontier_old", d::atomic_or(frontier, index, bit));
    // Stamps start at 0xFFFFFFFF: the first lane to stamp depth 0 on the node lists it.
    const auto stamp_old = k.let("stamp_old", d::atomic_exchange(b.stamps, node, 0u));
    k.if_(stamp_old != 0u, [&] { append_node(k, b, node); });
    return k.program();
}

// Top-down level: one group of 2^group_shift lanes per work-list entry (node u, first edge of the
// chunk); lane l handles words l, l + group, ... of u, so every load of an edge's row is one
// coalesced line and the edge's target and label are one broadcast.
inline ir::program push_program(const transfer_function& t) {
    namespace d = vyre::dsl;
    namespace prm = dataflow_param;
    d::kernel k(entry_name(dataflow_level_op_id(t.name, true)), {dataflow_level_workgroup, 1, 1});
    const buffers b = declare(k);
    const auto frontier = k.output<d::u32>("frontier", dataflow_binding::frontier);
    const auto next = k.output<d::u32>("next", dataflow_binding::next);
    const auto list = k.input<d::u32>("list", dataflow_binding::list);
    const transfer_call transfer(transfer_function_name);

    const auto shift = k.let("group_shift", b.params[prm::group_shift]);
    const auto gid = k.let("gid", d::invocation_id());
    const auto j = k.let("j", gid >> shift);
    k.if_(j >= b.params[prm::list_count], [&] { k.return_(); });
    const auto lane = k.let("group_lane", gid & ((1u << shift) - 1u));
    const auto words = k.let("words", b.params[prm::words]);
    const auto depth = k.let("depth", b.params[prm::depth]);
    const auto u = k.let("u", list[j * 2u]);
    const auto first = k.let("first", list[j * 2u + 1u]);
    const auto u_end = k.let("u_end", b.offsets[u + 1u]);
    const auto last = k.let("last", first + d::min(b.params[prm::edge_chunk], u_end - first));
    // A node walked by one group clears its frontier row here, so the old frontier ends the level
    // empty, ready to be `next`; the chunks of a larger node share the row, and the host clears it.
    const auto whole = k.let("whole", first == b.offsets[u] && last == u_end);
    const auto u_label = k.let("u_label", b.labels[u]);
    k.for_("ks", 0u, (words + (1u << shift) - 1u) >> shift, [&](auto ks) {
        const auto w = k.let("w", lane + (ks << shift));
        k.if_(w >= words, [&] { k.continue_(); });
        const auto index = k.let("index", u * words + w);
        const auto lanes = k.let("lanes", frontier[index]);
        k.if_(lanes == 0u, [&] { k.continue_(); });
        k.if_(whole, [&] { k.store(frontier, index, 0u); });
        const auto lane_base = k.let("word_lane_base", b.params[prm::source_base] + w * 32u);
        k.for_("e", first, last, [&](auto e) {
            const auto v = k.let("v", b.targets[e]);
            const auto crossing = k.let("crossing", transfer(lanes, lane_base, u, v, u_label, b.labels[v], b.kinds[e],
                                                             b.params[prm::p0], b.params[prm::p0 + 1u],
                                                             b.params[prm::p0 + 2u], b.params[prm::p0 + 3u]) &
                                                        lanes);
            k.if_(crossing == 0u, [&] { k.continue_(); });
            const auto vi = k.let("vi", v * words + w);
            const auto fresh = k.let("fresh", crossing & ~b.visited[vi]);
            k.if_(fresh == 0u, [&] { k.continue_(); });
            // The atomic decides which group reaches (v, lane) first: only it reports the lane.
            const auto old = k.let("old", d::atomic_or(b.visited, vi, fresh));
            const auto gained = k.let("gained", fresh & ~old);
            k.if_(gained == 0u, [&] { k.continue_(); });
            report_lanes(k, b, v, w, gained, depth);
            k.let("next_old", d::atomic_or(next, vi, gained));
            // The stamp lists v once per level, whichever group and word reach it first; a plain
            // read first spares the atomic once it is stamped.
            k.if_(b.stamps[v] != depth, [&] {
                const auto stamp_old = k.let("stamp_old", d::atomic_exchange(b.stamps, v, depth));
                k.if_(stamp_old != depth, [&] { append_node(k, b, v); });
            });
        });
    });
    return with_transfer(k.program(), t);
}

// Bottom-up level: one group per node v (the first num_nodes groups) ORs the transferred frontier
// words of v's in-edges, word by word, stopping a word once every lane it still needs is found; a
// node with more than edge_chunk in-edges is left to the pull tasks (the groups after those),
// each of which walks one chunk of its in-edges and merges what it finds with atomics. At the end
// each workgroup appends its groups' new nodes with one atomic per counter.
inline ir::program pull_program(const transfer_function& t) {
    namespace d = vyre::dsl;
    namespace prm = dataflow_param;
    namespace c = dataflow_counter;
    constexpr std::uint32_t wg = dataflow_level_workgroup;
    d::kernel k(entry_name(dataflow_level_op_id(t.name, false)), {wg, 1, 1});
    const buffers b = declare(k);
    const auto frontier = k.input<d::u32>("frontier", dataflow_binding::frontier);
    const auto next = k.output<d::u32>("next", dataflow_binding::next);
    const auto in_offsets = k.input<d::u32>("in_offsets", dataflow_binding::in_offsets);
    const auto in_sources = k.input<d::u32>("in_sources", dataflow_binding::in_sources);
    const auto in_kinds = k.input<d::u32>("in_kinds", dataflow_binding::in_kinds);
    const auto tasks = k.input<d::u32>("pull_tasks", dataflow_binding::pull_tasks);
    const auto frontier_lanes = k.input<d::u32>("frontier_lanes", dataflow_binding::frontier_lanes);
    // Per group of the workgroup: the list entries and out-edges its node adds, then its offset.
    const auto group_entries = k.workgroup<d::u32>("group_entries", wg);
    const auto group_edges = k.workgroup<d::u32>("group_edges", wg);
    const auto group_offset = k.workgroup<d::u32>("group_offset", wg);
    const auto list_base = k.workgroup<d::u32>("list_base", 1);
    const transfer_call transfer(transfer_function_name);

    const auto shift = k.let("group_shift", b.params[prm::group_shift]);
    const auto gid = k.let("gid", d::invocation_id());
    const auto g = k.let("g", gid >> shift);
    const auto lane = k.let("group_lane", gid & ((1u << shift) - 1u));
    const auto lg = k.let("local_group", d::local_id() >> shift);
    const auto n = k.let("n", b.params[prm::num_nodes]);
    const auto words = k.let("words", b.params[prm::words]);
    const auto depth = k.let("depth", b.params[prm::depth]);
    const auto chunk = k.let("chunk", b.params[prm::edge_chunk]);
    const auto heavy = k.let("heavy", g >= n);
    const auto task = k.let("task", g - n);
    const auto v = k.let("v", d::select(heavy, tasks[task * 2u], g));
    const auto in_begin = k.let("in_begin", in_offsets[v]);
    const auto in_end = k.let("in_end", in_offsets[v + 1u]);
    const auto first = k.let("first", d::select(heavy, tasks[task * 2u + 1u], in_begin));
    const auto last = k.let("last", d::select(heavy, first + d::min(chunk, in_end - first), in_end));
    const auto works = k.let("works", d::select(heavy, task < b.params[prm::pull_tasks], in_end - in_begin <= chunk));
    k.if_(works, [&] {
        const auto v_label = k.let("v_label", b.labels[v]);
        k.for_("ks", 0u, (words + (1u << shift) - 1u) >> shift, [&](auto ks) {
            const auto w = k.let("w", lane + (ks << shift));
            k.if_(w >= words, [&] { k.continue_(); });
            const auto i = k.let("i", v * words + w);
            const auto mask = lane_mask(k, b, w);
            const auto seen = k.let("seen", b.visited[i]);
            // Lanes the frontier holds nowhere cannot reach v at this depth: without this, a node
            // that some source of its word never reaches would walk all its in-edges every level.
            const auto need = k.let("need", mask & frontier_lanes[w] & ~seen);
            k.if_(need == 0u, [&] { k.continue_(); });
            const auto lane_base = k.let("word_lane_base", b.params[prm::source_base] + w * 32u);
            const auto reached = k.let("reached", 0u);
            k.for_("e", first, last, [&](auto e) {
                const auto u = k.let("u", in_sources[e]);
                // Only lanes still needed can add anything: most in-neighbours contribute none.
                const auto lanes = k.let("lanes", frontier[u * words + w] & need & ~reached);
                k.if_(lanes == 0u, [&] { k.continue_(); });
                reached = reached | (transfer(lanes, lane_base, u, v, b.labels[u], v_label, in_kinds[e], b.params[prm::p0],
                                              b.params[prm::p0 + 1u], b.params[prm::p0 + 2u], b.params[prm::p0 + 3u]) &
                                     lanes);
                // Every lane of the word is accounted for: the other in-edges cannot add one.
                k.if_(reached == need, [&] { k.break_(); });
            });
            k.if_(reached == 0u, [&] { k.continue_(); });
            // A group of its own owns the node's words; the tasks of one node share them, so an
            // atomic decides which task gains each lane.
            const auto gained = k.let("gained", reached);
            const auto listed = k.let("listed", 1u);
            k.if_(heavy, [&] {
                const auto old = k.let("old", d::atomic_or(b.visited, i, reached));
                gained = reached & ~old;
                k.if_(gained != 0u, [&] {
                    k.let("next_old", d::atomic_or(next, i, gained));
                    const auto stamp_old = k.let("stamp_old", d::atomic_exchange(b.stamps, v, depth));
                    listed = d::select(stamp_old != depth, 1u, 0u);
                });
            }).else_([&] {
                k.store(b.visited, i, seen | reached);
                k.store(next, i, reached);
            });
            k.if_(gained == 0u, [&] { k.continue_(); });
            report_lanes(k, b, v, w, gained, depth);
            k.if_(listed != 0u, [&] {
                // Every lane that gains a word of the node writes the same two values.
                const auto degree = k.let("degree", b.offsets[v + 1u] - b.offsets[v]);
                k.store(group_entries, lg, node_entries(degree, chunk));
                k.store(group_edges, lg, degree);
            });
        });
    });
    k.barrier();
    // One invocation sums the workgroup's groups and reserves their entries with one atomic.
    k.if_(d::local_id() == 0u, [&] {
        const auto total = k.let("total", 0u);
        const auto edges = k.let("edges", 0u);
        const auto extra = k.let("extra", 0u);
        k.for_("p", 0u, wg >> shift, [&](auto p) {
            const auto count = k.let("count", group_entries[p]);
            k.store(group_offset, p, total);
            total = total + count;
            edges = edges + group_edges[p];
            extra = extra + d::select(count > 1u, count - 1u, 0u);
        });
        k.if_(total != 0u, [&] {
            const auto at = k.let("list_at", d::atomic_add(b.counters, c::entries, total));
            k.store(list_base, 0u, at);
            k.let("edges_old", d::atomic_add(b.counters, c::edges, edges));
            k.if_(extra != 0u, [&] { k.let("extra_old", d::atomic_add(b.counters, c::extra_entries, extra)); });
        });
    });
    k.barrier();
    k.if_(lane == 0u && group_entries[lg] != 0u, [&] {
        write_entries(k, b, v, list_base[0u] + group_offset[lg], group_entries[lg]);
    });
    return with_transfer(k.program(), t);
}

// The lanes the frontier holds, per word (frontier_lanes[w] = OR of the frontier rows of the
// listed nodes): what a pull level can still find. Runs params[lanes_workgroups] workgroups (at
// most dataflow_frontier_lanes_workgroups); each group strides over the work list, and a
// workgroup merges its groups' words before one atomic OR per word.
inline ir::program frontier_lanes_program() {
    namespace d = vyre::dsl;
    namespace prm = dataflow_param;
    constexpr std::uint32_t wg = dataflow_level_workgroup;
    d::kernel k(entry_name(dataflow_frontier_lanes_op_id), {wg, 1, 1});
    const auto params = k.uniform<d::u32>("params", dataflow_binding::params);
    const auto frontier = k.input<d::u32>("frontier", dataflow_binding::frontier);
    const auto list = k.input<d::u32>("list", dataflow_binding::list);
    const auto lanes = k.output<d::u32>("frontier_lanes", dataflow_binding::frontier_lanes);
    const auto part = k.workgroup<d::u32>("part", wg);
    const auto shift = k.let("group_shift", params[prm::group_shift]);
    const auto gid = k.let("gid", d::invocation_id());
    const auto lane = k.let("group_lane", gid & ((1u << shift) - 1u));
    const auto lg = k.let("local_group", d::local_id() >> shift);
    const auto groups = k.let("groups", params[prm::lanes_workgroups] * (wg >> shift));
    const auto words = k.let("words", params[prm::words]);
    const auto count = k.let("count", params[prm::list_count]);
    k.for_("ks", 0u, (words + (1u << shift) - 1u) >> shift, [&](auto ks) {
        const auto w = k.let("w", lane + (ks << shift));
        const auto acc = k.let("acc", 0u);
        k.if_(w < words, [&] {
            const auto j = k.let("j", gid >> shift);
            k.while_(j < count, [&] {
                acc = acc | frontier[list[j * 2u] * words + w];
                j = j + groups;
            });
        });
        k.store(part, d::local_id(), acc);
        k.barrier();
        k.if_(lg == 0u && w < words, [&] {
            k.for_("p", 1u, wg >> shift, [&](auto p) { acc = acc | part[(p << shift) + lane]; });
            k.if_(acc != 0u, [&] { k.let("lanes_old", d::atomic_or(lanes, w, acc)); });
        });
        k.barrier();
    });
    return k.program();
}

} // namespace detail

inline ir::program dataflow_init_program() { return detail::init_program(); }
inline ir::program dataflow_frontier_lanes_program() { return detail::frontier_lanes_program(); }
inline ir::program dataflow_push_program(const transfer_function& t) { return detail::push_program(t); }
inline ir::program dataflow_pull_program(const transfer_function& t) { return detail::pull_program(t); }

// ---- the programs, built -----------------------------------------------------------------------

// The programs of one transfer function, lowered once per process and built once per context.
struct dataflow_level_kernels {
    runtime::compiled_program push, pull;
    explicit dataflow_level_kernels(const transfer_function& t)
        : push(dataflow_push_program(t)), pull(dataflow_pull_program(t)) {}
};

inline const runtime::compiled_program& dataflow_init_kernel() {
    static const runtime::compiled_program p(dataflow_init_program());
    return p;
}
inline const runtime::compiled_program& dataflow_frontier_lanes_kernel() {
    static const runtime::compiled_program p(dataflow_frontier_lanes_program());
    return p;
}

// Keyed by name and by the function itself, so two transfers that share a name never share kernels.
inline const dataflow_level_kernels& dataflow_level_kernels_for(const transfer_function& t) {
    static std::mutex lock;
    static std::map<std::string, std::unique_ptr<dataflow_level_kernels>> cache;
    const std::string key = t.name + '\n' + ir::to_string(ir::program{"k", {}, {1, 1, 1}, {t.function}, {}});
    const std::lock_guard<std::mutex> g(lock);
    auto& slot = cache[key];
    if (!slot) slot = std::make_unique<dataflow_level_kernels>(t);
    return *slot;
}

// ---- registry entries ---------------------------------------------------------------------------

inline op_info dataflow_init_info() {
    return {dataflow_init_op_id, 1, "engine::dataflow: start nodes of a batch of sources (32 per word), depth-0 findings",
            {{ir::data_type::bytes}, ir::data_type::bytes}, ir::convention::v1(), [] { return dataflow_init_program(); }};
}

inline op_info dataflow_frontier_lanes_info() {
    return {dataflow_frontier_lanes_op_id, 1, "engine::dataflow: the lanes (sources) the frontier holds, per word, before a bottom-up level",
            {{ir::data_type::bytes}, ir::data_type::bytes}, ir::convention::v1(), [] { return dataflow_frontier_lanes_program(); }};
}

// The push and pull programs of each built-in transfer function.
inline std::vector<op_info> dataflow_level_infos() {
    std::vector<op_info> out;
    for (const transfer_function* t : transfers::builtin())
        for (const bool push : {true, false})
            out.push_back({dataflow_level_op_id(t->name, push), 1,
                           std::string("engine::dataflow: one ") + (push ? "top-down" : "bottom-up") + " level, transfer " +
                               t->name + " (" + t->summary + ")",
                           {{ir::data_type::bytes}, ir::data_type::bytes}, ir::convention::v1(),
                           [t, push] { return push ? dataflow_push_program(*t) : dataflow_pull_program(*t); }});
    return out;
}

} // namespace vyre::ops::dataflow
