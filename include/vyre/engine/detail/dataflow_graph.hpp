// The graph as engine::dataflow lays it out on the device (engine/dataflow.hpp): the graph as
// given, the reverse graph that pull levels walk, and the pull tasks of the nodes with many
// in-edges. upload_dataflow_graph checks and builds all of it on the device (ops/dataflow/setup.hpp);
// build_dataflow_reverse builds the reverse graph on the host, the oracle the tests compare with.
#pragma once

#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/ops/dataflow/level.hpp>
#include <vyre/ops/dataflow/setup.hpp>
#include <vyre/ops/primitive/prefix_sum.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine::detail {

// Pull tasks of a graph of edge_count edges at most: a node with d > edge_chunk in-edges has
// ceil(d / edge_chunk) <= 2 * floor(d / edge_chunk) of them.
inline std::uint64_t pull_task_bound(std::uint64_t edge_count) {
    return 2 * (edge_count / ops::dataflow::dataflow_edge_chunk);
}

// The reverse graph keeps every edge (whether one carries a fact is the transfer's call), with
// its kind: in-edge j of v is u -> v with kind in_kinds[j] (no kinds when the graph has none).
// pull_tasks holds 2 words per task: node, first in-edge.
struct dataflow_reverse {
    std::vector<std::uint32_t> in_offsets, in_sources, in_kinds, pull_tasks;
};

inline dataflow_reverse build_dataflow_reverse(const graph::csr_graph& g, std::span<const std::uint32_t> kinds) {
    constexpr std::uint32_t chunk = ops::dataflow::dataflow_edge_chunk;
    const std::uint32_t n = g.node_count();
    dataflow_reverse r;
    auto& in_offsets = r.in_offsets;
    in_offsets.assign(std::size_t{n} + 1, 0);
    r.in_sources.resize(g.targets.size());
    for (const std::uint32_t v : g.targets) ++in_offsets[std::size_t{v} + 1];
    for (std::size_t i = 1; i < in_offsets.size(); ++i) in_offsets[i] += in_offsets[i - 1];
    if (!kinds.empty()) r.in_kinds.resize(kinds.size());
    {
        std::vector<std::uint32_t> cursor(in_offsets.begin(), in_offsets.end() - 1);
        for (std::uint32_t u = 0; u < n; ++u)
            for (std::uint32_t k = g.offsets[u]; k < g.offsets[u + 1]; ++k) {
                const std::uint32_t at = cursor[g.targets[k]]++;
                r.in_sources[at] = u;
                if (!kinds.empty()) r.in_kinds[at] = kinds[k];
            }
    }
    // Pull tasks: the in-edges of every node with more than edge_chunk of them, edge_chunk a task.
    for (std::uint32_t v = 0; v < n; ++v)
        if (in_offsets[v + 1] - in_offsets[v] > chunk)
            for (std::uint64_t first = in_offsets[v]; first < in_offsets[v + 1]; first += chunk) {
                r.pull_tasks.push_back(v);
                r.pull_tasks.push_back(static_cast<std::uint32_t>(first));
            }
    return r;
}

// Where the setup of an engine went (wall-clock seconds on the host); engine::dataflow_setup_times.
struct dataflow_setup_times {
    double upload = 0;  // the graph's arrays into device buffers
    double check = 0;   // dataflow.setup.check, until the host has its verdict
    double reverse = 0; // in-edge offsets, reverse graph and pull tasks, until the task count is read
    double host = 0;    // the host's own passes: sinks and work-list capacity (on every core)
    double total = 0;   // the whole setup, these and the rest (allocations)
};

// The graph and its reverse in device buffers, with their element counts as bound.
struct dataflow_device_graph {
    boost::compute::buffer labels, offsets, targets, kinds, in_offsets, in_sources, in_kinds, pull_tasks;
    std::uint64_t pull_task_count = 0; // tasks (2 words each)
    // The setup's temporaries (cursor, task offsets, parameters, ...), which the device may still be
    // using when this is returned: free them once it is done (NVIDIA's driver waits for the whole
    // device before it frees memory).
    std::vector<boost::compute::buffer> scratch;
};

inline double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// Uploads `g` (whose sizes the caller has checked: offsets has node_count + 1 entries, kinds none
// or one per edge) and checks and builds the rest on the device. A graph that breaks an invariant
// is refused with validation_error naming the first broken one, as csr_graph::validate() does
// (the device finds that a violation exists; the message comes from the host's checker, which
// only runs then). Waits for the device twice: for the check's verdict and for the task count; the
// pull-task list may still be running when it returns (d.scratch holds what it uses).
inline dataflow_device_graph upload_dataflow_graph(runtime::context& ctx, const graph::csr_graph& g,
                                                   std::span<const std::uint32_t> kinds, dataflow_setup_times& times) {
    namespace b = ops::dataflow::dataflow_setup_binding;
    namespace ps = ops::primitive;
    using clock = std::chrono::steady_clock;
    const std::uint64_t n = g.node_count(), e = g.edge_count();
    if (n + 1 > ps::prefix_sum_limit)
        throw resource_error("engine::dataflow: " + std::to_string(n) + " nodes; the device setup handles at most " +
                             std::to_string(ps::prefix_sum_limit - 1));
    const auto& kernels = ops::dataflow::dataflow_setup_kernels_for();
    dataflow_device_graph d;
    const auto t0 = clock::now();
    const auto up = [&](std::span<const std::uint32_t> words) {
        auto buffer = runtime::allocate(ctx, words.size_bytes(), CL_MEM_READ_ONLY);
        runtime::write_staged(ctx, buffer, words.data(), words.size_bytes());
        return buffer;
    };
    d.labels = up(g.node_data);
    d.offsets = up(g.offsets);
    d.targets = up(g.targets);
    d.kinds = up(kinds);
    const auto t1 = clock::now();
    times.upload = seconds_between(t0, t1);

    const std::array<std::uint32_t, ops::dataflow::dataflow_setup_param_words> p{
        static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(e), kinds.empty() ? 0u : 1u, ops::dataflow::dataflow_edge_chunk};
    std::vector<runtime::buffer_arg> args(ops::dataflow::dataflow_setup_binding_count);
    args[b::offsets] = {d.offsets, static_cast<std::uint32_t>(n + 1)};
    args[b::targets] = {d.targets, static_cast<std::uint32_t>(e)};
    args[b::kinds] = {d.kinds, static_cast<std::uint32_t>(kinds.size())};
    args[b::params] = {runtime::make_parameter_buffer(ctx, p), ops::dataflow::dataflow_setup_param_words};
    d.scratch.push_back(args[b::params].buffer);
    constexpr std::uint32_t wg = ops::dataflow::dataflow_setup_workgroup;

    // The check, and the in-degrees (n + 1 counters, the last one staying 0).
    d.in_offsets = runtime::allocate(ctx, (n + 1) * 4);
    runtime::fill(ctx, d.in_offsets, 0, (n + 1) * 4);
    auto bad = runtime::allocate(ctx, 8);
    d.scratch.push_back(bad);
    runtime::fill(ctx, bad, 0xFFFFFFFFu, 8);
    args[b::counts] = {d.in_offsets, static_cast<std::uint32_t>(n + 1)};
    args[b::bad] = {bad, 2};
    runtime::dispatch(ctx, kernels.check, {runtime::groups_for(std::max(n, e), wg), 1, 1}, args);
    std::array<std::uint32_t, 2> verdict{};
    runtime::read(ctx, bad, verdict.data(), 8);
    const auto t2 = clock::now();
    times.check = seconds_between(t1, t2);
    if (verdict[0] != 0xFFFFFFFFu || verdict[1] != 0xFFFFFFFFu || g.offsets[0] != 0 || g.offsets[n] != e) {
        const auto v = graph::first_violation(g);
        throw validation_error(v ? v->message
                                 : "engine::dataflow: the device found a broken CSR invariant (offset index " +
                                       std::to_string(verdict[0]) + ", target index " + std::to_string(verdict[1]) +
                                       ") that the host's checker does not");
    }

    // In-edge offsets, then every edge into its slot.
    ps::exclusive_prefix_sum(ctx, d.in_offsets, n + 1, &d.scratch);
    auto cursor = runtime::allocate(ctx, n * 4);
    d.scratch.push_back(cursor);
    if (n != 0)
        runtime::cl_call("clEnqueueCopyBuffer", [&] { ctx.queue().enqueue_copy_buffer(d.in_offsets, cursor, 0, 0, n * 4); });
    d.in_sources = runtime::allocate(ctx, e * 4);
    d.in_kinds = runtime::allocate(ctx, kinds.size() * 4);
    args[b::cursor] = {cursor, static_cast<std::uint32_t>(n)};
    args[b::in_sources] = {d.in_sources, static_cast<std::uint32_t>(e)};
    args[b::in_kinds] = {d.in_kinds, static_cast<std::uint32_t>(kinds.size())};
    runtime::dispatch(ctx, kernels.scatter, {runtime::groups_for(e, wg), 1, 1}, args);

    // Pull tasks: counts per node, their offsets (the last word: how many), then the list.
    auto task_offsets = runtime::allocate(ctx, (n + 1) * 4);
    d.scratch.push_back(task_offsets);
    args[b::in_offsets] = {d.in_offsets, static_cast<std::uint32_t>(n + 1)};
    args[b::counts] = {task_offsets, static_cast<std::uint32_t>(n + 1)};
    runtime::dispatch(ctx, kernels.tasks, {runtime::groups_for(n + 1, wg), 1, 1}, args);
    ps::exclusive_prefix_sum(ctx, task_offsets, n + 1, &d.scratch);
    std::uint32_t tasks = 0;
    runtime::read(ctx, task_offsets, &tasks, 4, n * 4);
    d.pull_task_count = tasks;
    d.pull_tasks = runtime::allocate(ctx, std::uint64_t{tasks} * 8);
    args[b::pull_tasks] = {d.pull_tasks, 2 * tasks};
    runtime::dispatch(ctx, kernels.task_list, {runtime::groups_for(n, wg), 1, 1}, args);
    times.reverse = seconds_between(t2, clock::now());
    return d;
}

// The nodes labelled sink and the work-list capacity (ops::dataflow::dataflow_list_capacity) of a
// graph whose offsets are valid, on every core.
struct dataflow_host_counts {
    std::uint64_t sinks = 0, list_capacity = 0;
};

inline dataflow_host_counts count_dataflow_host(const graph::csr_graph& g) {
    const std::uint64_t n = g.node_count();
    constexpr std::uint64_t run = std::uint64_t{1} << 16;
    const std::size_t runs = static_cast<std::size_t>((n + run - 1) / run);
    std::vector<dataflow_host_counts> part(runs);
    util::parallel_for(runs, 0, [&](std::size_t r) {
        dataflow_host_counts c;
        for (std::uint64_t v = r * run; v < std::min(n, (r + 1) * run); ++v) {
            c.sinks += graph::is_sink(g.node_data[v]) ? 1 : 0;
            c.list_capacity += ops::dataflow::dataflow_node_entries(g.offsets[v + 1] - g.offsets[v]);
        }
        part[r] = c;
    });
    dataflow_host_counts total;
    for (const auto& c : part) {
        total.sinks += c.sinks;
        total.list_capacity += c.list_capacity;
    }
    return total;
}

} // namespace vyre::engine::detail
