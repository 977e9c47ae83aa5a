// The level programs of engine::dataflow (engine/dataflow.hpp has the whole design): the start
// program `dataflow.init` and, per transfer function, one top-down and one bottom-up level program
// (`dataflow.level.<transfer>.push`, `.pull`), with their bindings and params, as IR.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/ops/dataflow/transfer.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/program_cache.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace vyre::ops::dataflow {

inline constexpr const char* dataflow_init_op_id = "dataflow.init";
inline constexpr std::uint32_t unlimited_depth = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint32_t dataflow_init_workgroup = 64;
inline constexpr std::uint32_t dataflow_level_workgroup = 256;
inline constexpr std::uint32_t dataflow_param_words = 13;

inline std::string dataflow_level_op_id(const std::string& transfer, bool push) {
    return "dataflow.level." + transfer + (push ? ".push" : ".pull");
}

namespace dataflow_binding {
enum : std::uint32_t {
    node_labels = 0, edge_offsets = 1, edge_targets = 2, edge_kinds = 3, source_nodes = 4, findings = 5,
    finding_count = 6, params = 7, visited = 8, frontier = 9, next = 10, in_offsets = 11, in_sources = 12,
    in_kinds = 13, list = 14, next_list = 15, next_count = 16,
};
} // namespace dataflow_binding
inline constexpr std::uint32_t dataflow_binding_count = 17;
namespace dataflow_param { // u32 constants (not an enum) so that they index DSL buffers directly
inline constexpr std::uint32_t lanes = 0, num_nodes = 1, max_findings = 2, depth = 3, words = 4, source_base = 5,
                               entries = 6, list_count = 7, list_capacity = 8, p0 = 9;
} // namespace dataflow_param

// Work-list entries a batch of `entries` (node, word) pairs keeps, and the bytes of a batch of
// `words` words of 32 sources (three bitmaps, two work lists): graph.bfs's bitset sizes.
inline std::uint64_t dataflow_list_capacity(std::uint64_t entries) { return ops::graph::detail::list_capacity(entries); }
inline std::uint64_t dataflow_batch_bytes(std::uint64_t n, std::uint64_t words) {
    return 4 * (3 * n * words + 2 * dataflow_list_capacity(n * words));
}

namespace detail {

// ---- the programs ------------------------------------------------------------------------------

struct buffers {
    dsl::input_buffer<dsl::u32> labels, offsets, targets, kinds, sources;
    dsl::output_buffer<dsl::u32> findings, count;
    dsl::uniform_buffer<dsl::u32> params;
    dsl::output_buffer<dsl::u32> visited, next_list, next_count;
};

inline buffers declare(dsl::kernel& k) {
    namespace b = dataflow_binding;
    return {k.input<dsl::u32>("node_labels", b::node_labels),  k.input<dsl::u32>("edge_offsets", b::edge_offsets),
            k.input<dsl::u32>("edge_targets", b::edge_targets), k.input<dsl::u32>("edge_kinds", b::edge_kinds),
            k.input<dsl::u32>("source_nodes", b::source_nodes), k.output<dsl::u32>("findings", b::findings),
            k.output<dsl::u32>("finding_count", b::finding_count), k.uniform<dsl::u32>("params", b::params),
            k.output<dsl::u32>("visited", b::visited),          k.output<dsl::u32>("next_list", b::next_list),
            k.output<dsl::u32>("next_count", b::next_count)};
}

// The role byte of a label (graph/labels.hpp: bits 16..23).
template <class L>
auto transfer_role(const L& label) {
    return (label >> 16u) & 0xFFu;
}

// Appends `entry` to next_list; past list_capacity only the count grows (the host then pulls).
template <class E>
void append_entry(dsl::kernel& k, const buffers& b, const E& entry) {
    const auto at = k.let("at", dsl::atomic_add(b.next_count, 0u, 1u));
    k.if_(at < b.params[dataflow_param::list_capacity], [&] { k.store(b.next_list, at, entry); });
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
    const auto old = k.let("frontier_old", d::atomic_or(frontier, index, bit));
    k.if_(old == 0u, [&] { append_entry(k, b, index); });
    return k.program();
}

// Top-down level: one invocation per work-list entry (u * W + w).
inline ir::program push_program(const transfer_function& t) {
    namespace d = vyre::dsl;
    namespace prm = dataflow_param;
    d::kernel k(entry_name(dataflow_level_op_id(t.name, true)), {dataflow_level_workgroup, 1, 1});
    const buffers b = declare(k);
    const auto frontier = k.output<d::u32>("frontier", dataflow_binding::frontier);
    const auto next = k.output<d::u32>("next", dataflow_binding::next);
    const auto list = k.input<d::u32>("list", dataflow_binding::list);
    const transfer_call transfer(transfer_function_name);

    const auto j = k.let("j", d::invocation_id());
    k.if_(j >= b.params[prm::list_count], [&] { k.return_(); });
    const auto words = k.let("words", b.params[prm::words]);
    const auto index = k.let("index", list[j]);
    const auto u = k.let("u", index / words);
    const auto w = k.let("w", index - u * words);
    const auto lanes = k.let("lanes", frontier[index]);
    k.store(frontier, index, 0u); // entries are unique: the frontier ends the level empty, ready to be `next`
    const auto u_label = k.let("u_label", b.labels[u]);
    const auto lane_base = k.let("word_lane_base", b.params[prm::source_base] + w * 32u);
    k.for_("e", b.offsets[u], b.offsets[u + 1u], [&](auto e) {
        const auto v = k.let("v", b.targets[e]);
        const auto crossing = k.let("crossing", transfer(lanes, lane_base, u, v, u_label, b.labels[v], b.kinds[e],
                                                         b.params[prm::p0], b.params[prm::p0 + 1u],
                                                         b.params[prm::p0 + 2u], b.params[prm::p0 + 3u]) &
                                                    lanes);
        const auto vi = k.let("vi", v * words + w);
        const auto fresh = k.let("fresh", crossing & ~b.visited[vi]);
        k.if_(fresh == 0u, [&] { k.continue_(); });
        // The atomic decides which invocation reaches (v, lane) first: only it reports the lane.
        const auto old = k.let("old", d::atomic_or(b.visited, vi, fresh));
        const auto gained = k.let("gained", fresh & ~old);
        k.if_(gained == 0u, [&] { k.continue_(); });
        report_lanes(k, b, v, w, gained, b.params[prm::depth]);
        const auto next_old = k.let("next_old", d::atomic_or(next, vi, gained));
        k.if_(next_old == 0u, [&] { append_entry(k, b, vi); });
    });
    return with_transfer(k.program(), t);
}

// Bottom-up level: one invocation per (v, w).
inline ir::program pull_program(const transfer_function& t) {
    namespace d = vyre::dsl;
    namespace prm = dataflow_param;
    d::kernel k(entry_name(dataflow_level_op_id(t.name, false)), {dataflow_level_workgroup, 1, 1});
    const buffers b = declare(k);
    const auto frontier = k.input<d::u32>("frontier", dataflow_binding::frontier);
    const auto next = k.output<d::u32>("next", dataflow_binding::next);
    const auto in_offsets = k.input<d::u32>("in_offsets", dataflow_binding::in_offsets);
    const auto in_sources = k.input<d::u32>("in_sources", dataflow_binding::in_sources);
    const auto in_kinds = k.input<d::u32>("in_kinds", dataflow_binding::in_kinds);
    const transfer_call transfer(transfer_function_name);

    const auto i = k.let("i", d::invocation_id());
    k.if_(i >= b.params[prm::entries], [&] { k.return_(); });
    const auto words = k.let("words", b.params[prm::words]);
    const auto v = k.let("v", i / words);
    const auto w = k.let("w", i - v * words);
    const auto lanes_here = k.let("lanes_here", d::min(b.params[prm::lanes] - w * 32u, 32u));
    const auto mask = k.let("mask", d::select(lanes_here == 32u, 0xFFFFFFFFu, (1u << lanes_here) - 1u));
    const auto seen = k.let("seen", b.visited[i]);
    const auto fresh = k.let("fresh", 0u);
    k.if_((seen & mask) != mask, [&] {
        const auto v_label = k.let("v_label", b.labels[v]);
        const auto lane_base = k.let("word_lane_base", b.params[prm::source_base] + w * 32u);
        const auto reached = k.let("reached", 0u);
        k.for_("e", in_offsets[v], in_offsets[v + 1u], [&](auto e) {
            const auto u = k.let("u", in_sources[e]);
            // Only lanes not yet seen can add anything: most in-neighbours contribute none.
            const auto lanes = k.let("lanes", frontier[u * words + w] & ~(seen | reached));
            k.if_(lanes == 0u, [&] { k.continue_(); });
            reached = reached | (transfer(lanes, lane_base, u, v, b.labels[u], v_label, in_kinds[e], b.params[prm::p0],
                                          b.params[prm::p0 + 1u], b.params[prm::p0 + 2u], b.params[prm::p0 + 3u]) &
                                 lanes);
            // Every lane of the word is accounted for: the other in-edges cannot add one.
            k.if_(((reached | seen) & mask) == mask, [&] { k.break_(); });
        });
        fresh = reached & mask;
    });
    k.if_(fresh != 0u, [&] {
        k.store(b.visited, i, seen | fresh);
        report_lanes(k, b, v, w, fresh, b.params[prm::depth]);
        append_entry(k, b, i);
    });
    k.store(next, i, fresh);
    return with_transfer(k.program(), t);
}

// The programs of one transfer function, lowered once per process and built once per context.
struct level_kernels {
    runtime::compiled_program push, pull;
    level_kernels(const transfer_function& t) : push(push_program(t)), pull(pull_program(t)) {}
};

inline const runtime::compiled_program& init_kernel() {
    static const runtime::compiled_program p(init_program());
    return p;
}

// Keyed by name and by the function itself, so two transfers that share a name never share kernels.
inline const level_kernels& kernels_for(const transfer_function& t) {
    static std::mutex lock;
    static std::map<std::string, std::unique_ptr<level_kernels>> cache;
    const std::string key = t.name + '\n' + ir::to_string(ir::program{"k", {}, {1, 1, 1}, {t.function}, {}});
    const std::lock_guard<std::mutex> g(lock);
    auto& slot = cache[key];
    if (!slot) slot = std::make_unique<level_kernels>(t);
    return *slot;
}

} // namespace detail

inline ir::program dataflow_init_program() { return detail::init_program(); }
inline ir::program dataflow_push_program(const transfer_function& t) { return detail::push_program(t); }
inline ir::program dataflow_pull_program(const transfer_function& t) { return detail::pull_program(t); }

// ---- registry entries ---------------------------------------------------------------------------

inline op_info dataflow_init_info() {
    return {dataflow_init_op_id, 1, "engine::dataflow: start nodes of a batch of sources (32 per word), depth-0 findings",
            {{ir::data_type::bytes}, ir::data_type::bytes}, ir::convention::v1(), [] { return dataflow_init_program(); }};
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
