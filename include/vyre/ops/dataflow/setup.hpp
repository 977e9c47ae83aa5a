// The setup programs of engine::dataflow (engine/dataflow.hpp): they check a CSR graph already on
// the device and build from it the reverse graph and pull tasks that bottom-up levels walk, so
// that a graph crosses the bus once, as it is, and nothing is built on the host.
//
//   dataflow.setup.check (one invocation per node and per edge): the first i in 1..n with
//     offsets[i] < offsets[i-1] or offsets[i] > e, and the first edge whose target is not a node,
//     each by an atomic min into `bad` (all ones: none); the in-degree of every node by an atomic
//     add per edge (edges with a bad target are not counted).
//   primitive.prefix_sum over the in-degrees (n + 1 words, the last 0): the in-edge offsets.
//   dataflow.setup.scatter (one invocation per edge u -> v, u found by binary search in offsets):
//     an atomic add on v's cursor (a copy of the in-edge offsets) gives the edge its slot among
//     v's in-edges, which gets u (and the edge's kind). Slots within one node are taken in the
//     order the atomics land, so the in-edges of a node come in no fixed order: only their set is
//     defined. Nothing depends on the order; a pull level ORs over them.
//   dataflow.setup.tasks (one invocation per node): how many pull tasks the node has (one per
//     dataflow_edge_chunk in-edges when it has more than that many, else none);
//   primitive.prefix_sum over those: each node's first task (and the count, in the last word);
//   dataflow.setup.task_list: each node with tasks writes them (node, first in-edge), in node
//     order: the same list the host builder makes (engine/detail/dataflow_graph.hpp).
// The programs after the check run only on a graph it passed (the host throws first). The check
// itself reads a bad graph safely: out-of-range loads read 0 and stores and atomics are dropped
// (the lowering's rules).
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/ops/dataflow/level.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/program_cache.hpp>

#include <cstdint>
#include <vector>

namespace vyre::ops::dataflow {

inline constexpr const char* dataflow_setup_check_op_id = "dataflow.setup.check";
inline constexpr const char* dataflow_setup_scatter_op_id = "dataflow.setup.scatter";
inline constexpr const char* dataflow_setup_tasks_op_id = "dataflow.setup.tasks";
inline constexpr const char* dataflow_setup_task_list_op_id = "dataflow.setup.task_list";
inline constexpr std::uint32_t dataflow_setup_workgroup = 256;

// Bindings of the setup programs (params: [0] n, [1] e, [2] 1 when the graph has edge kinds,
// [3] dataflow_edge_chunk). `counts` is the in-degree, then in-edge offsets (check, scatter), or
// the pull-task counts, then task offsets (tasks, task_list); `cursor` is a copy of the in-edge
// offsets that scatter advances; `bad` holds two words: [0] the first bad offset's index,
// [1] the first bad target's index.
namespace dataflow_setup_binding {
enum : std::uint32_t {
    offsets = 0, targets = 1, kinds = 2, params = 3, counts = 4, bad = 5, cursor = 6, in_sources = 7, in_kinds = 8,
    in_offsets = 9, pull_tasks = 10,
};
} // namespace dataflow_setup_binding
inline constexpr std::uint32_t dataflow_setup_binding_count = 11;
inline constexpr std::uint32_t dataflow_setup_param_words = 4;

namespace detail {

inline ir::program setup_check_program() {
    namespace d = vyre::dsl;
    namespace b = dataflow_setup_binding;
    d::kernel k(entry_name(dataflow_setup_check_op_id), {dataflow_setup_workgroup, 1, 1});
    const auto offsets = k.input<d::u32>("offsets", b::offsets);
    const auto targets = k.input<d::u32>("targets", b::targets);
    const auto params = k.uniform<d::u32>("params", b::params);
    const auto degree = k.output<d::u32>("counts", b::counts);
    const auto bad = k.output<d::u32>("bad", b::bad);
    const auto id = k.let("id", d::invocation_id());
    const auto n = k.let("n", params[0u]);
    const auto e = k.let("e", params[1u]);
    k.if_(id < n, [&] {
        const auto next = k.let("next", offsets[id + 1u]);
        k.if_(next < offsets[id] || next > e, [&] { k.let("bad_offset", d::atomic_min(bad, 0u, id + 1u)); });
    });
    k.if_(id < e, [&] {
        const auto v = k.let("v", targets[id]);
        k.if_(v < n, [&] { k.let("degree_old", d::atomic_add(degree, v, 1u)); }).else_([&] {
            k.let("bad_target", d::atomic_min(bad, 1u, id));
        });
    });
    return k.program();
}

inline ir::program setup_scatter_program() {
    namespace d = vyre::dsl;
    namespace b = dataflow_setup_binding;
    d::kernel k(entry_name(dataflow_setup_scatter_op_id), {dataflow_setup_workgroup, 1, 1});
    const auto offsets = k.input<d::u32>("offsets", b::offsets);
    const auto targets = k.input<d::u32>("targets", b::targets);
    const auto kinds = k.input<d::u32>("kinds", b::kinds);
    const auto params = k.uniform<d::u32>("params", b::params);
    const auto cursor = k.output<d::u32>("cursor", b::cursor);
    const auto in_sources = k.output<d::u32>("in_sources", b::in_sources);
    const auto in_kinds = k.output<d::u32>("in_kinds", b::in_kinds);
    const auto edge = k.let("edge", d::invocation_id());
    k.if_(edge < params[1u], [&] {
        // The node u with offsets[u] <= edge < offsets[u + 1]: offsets[lo] <= edge < offsets[hi] holds.
        const auto lo = k.let("lo", 0u);
        const auto hi = k.let("hi", params[0u]);
        k.while_(hi - lo > 1u, [&] {
            const auto mid = k.let("mid", lo + (hi - lo) / 2u);
            k.if_(offsets[mid] <= edge, [&] { lo = mid; }).else_([&] { hi = mid; });
        });
        const auto at = k.let("at", d::atomic_add(cursor, targets[edge], 1u));
        k.store(in_sources, at, lo);
        k.if_(params[2u] != 0u, [&] { k.store(in_kinds, at, kinds[edge]); });
    });
    return k.program();
}

// The pull tasks of node `id` given its in-degree: ceil(degree / chunk) above chunk, else none.
inline ir::program setup_tasks_program() {
    namespace d = vyre::dsl;
    namespace b = dataflow_setup_binding;
    d::kernel k(entry_name(dataflow_setup_tasks_op_id), {dataflow_setup_workgroup, 1, 1});
    const auto in_offsets = k.input<d::u32>("in_offsets", b::in_offsets);
    const auto params = k.uniform<d::u32>("params", b::params);
    const auto counts = k.output<d::u32>("counts", b::counts);
    const auto id = k.let("id", d::invocation_id());
    const auto chunk = k.let("chunk", params[3u]);
    k.if_(id <= params[0u], [&] {
        const auto degree = k.let("degree", in_offsets[id + 1u] - in_offsets[id]);
        k.store(counts, id, d::select(id < params[0u] && degree > chunk, (degree - 1u) / chunk + 1u, 0u));
    });
    return k.program();
}

inline ir::program setup_task_list_program() {
    namespace d = vyre::dsl;
    namespace b = dataflow_setup_binding;
    d::kernel k(entry_name(dataflow_setup_task_list_op_id), {dataflow_setup_workgroup, 1, 1});
    const auto in_offsets = k.input<d::u32>("in_offsets", b::in_offsets);
    const auto params = k.uniform<d::u32>("params", b::params);
    const auto first_task = k.input<d::u32>("counts", b::counts);
    const auto tasks = k.output<d::u32>("pull_tasks", b::pull_tasks);
    const auto id = k.let("id", d::invocation_id());
    const auto chunk = k.let("chunk", params[3u]);
    k.if_(id < params[0u], [&] {
        const auto begin = k.let("begin", in_offsets[id]);
        const auto end = k.let("end", in_offsets[id + 1u]);
        k.if_(end - begin > chunk, [&] {
            const auto at = k.let("at", first_task[id] * 2u);
            const auto first = k.let("first", begin);
            k.while_(first < end, [&] {
                k.store(tasks, at, id);
                k.store(tasks, at + 1u, first);
                at = at + 2u;
                first = first + d::select(end - first > chunk, chunk, end - first);
            });
        });
    });
    return k.program();
}

} // namespace detail

inline ir::program dataflow_setup_check_program() { return detail::setup_check_program(); }
inline ir::program dataflow_setup_scatter_program() { return detail::setup_scatter_program(); }
inline ir::program dataflow_setup_tasks_program() { return detail::setup_tasks_program(); }
inline ir::program dataflow_setup_task_list_program() { return detail::setup_task_list_program(); }

inline std::vector<op_info> dataflow_setup_infos() {
    const ir::op_signature sig{{ir::data_type::u32}, ir::data_type::u32};
    return {{dataflow_setup_check_op_id, 1, "engine::dataflow setup: check a CSR graph on the device, count in-degrees", sig,
             ir::convention::v1(), [] { return dataflow_setup_check_program(); }},
            {dataflow_setup_scatter_op_id, 1, "engine::dataflow setup: every edge into its slot of the reverse graph", sig,
             ir::convention::v1(), [] { return dataflow_setup_scatter_program(); }},
            {dataflow_setup_tasks_op_id, 1, "engine::dataflow setup: pull tasks per node of the reverse graph", sig,
             ir::convention::v1(), [] { return dataflow_setup_tasks_program(); }},
            {dataflow_setup_task_list_op_id, 1, "engine::dataflow setup: the pull-task list, in node order", sig,
             ir::convention::v1(), [] { return dataflow_setup_task_list_program(); }}};
}

// The setup programs, lowered once per process and built once per context.
struct dataflow_setup_kernels {
    runtime::compiled_program check{dataflow_setup_check_program()}, scatter{dataflow_setup_scatter_program()},
        tasks{dataflow_setup_tasks_program()}, task_list{dataflow_setup_task_list_program()};
};
inline const dataflow_setup_kernels& dataflow_setup_kernels_for() {
    static const dataflow_setup_kernels k;
    return k;
}

} // namespace vyre::ops::dataflow
