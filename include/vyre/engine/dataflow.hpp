// engine::dataflow: level-synchronous fixpoint over a CSR graph on the device, thousands of
// sources at once (32 per u32 word), with a pluggable transfer function (ops/dataflow/transfer.hpp)
// and the taint contract: every (source, sink, depth) within max_depth, in canonical order.
#pragma once

// Semantics: exactly reference::dataflow_findings (reference/dataflow.hpp).
//
// State. Sources are lanes, 32 per u32 word; a batch of L lanes uses W = ceil(L / 32) words per
// node in three bitmaps, entry node * W + w: visited (lanes that reached the node), frontier
// (lanes that reached it at the current depth) and next. A node's W words are one row: with
// 1,024 sources, one 128-byte line. Every program works on rows: a group of G lanes
// (G = W rounded up to a power of two, at most 32; lane l takes words l, l + G, ...) handles one
// node, so an edge costs one broadcast load of its endpoint and one coalesced row.
//
// Work list. The frontier's NODES, as entries (node, first out-edge of the chunk): a node with
// more than dataflow_edge_chunk (256) out-edges gets one entry per 256 of them, so RMAT hubs
// (160,000 edges at scale 22) are walked by hundreds of groups at once rather than by one group
// that holds up the whole level. A per-node stamp (the depth at which the node was last listed;
// atomic exchange, no reset between levels) lists each node once per level whichever group
// reaches it first. Every launch also counts, for the next level, the entries it lists, the
// entries beyond one per node, and the out-edges of the nodes it lists (the frontier's edges).
//
// Every batch runs:
//   dataflow.init (ops/dataflow/level.hpp, one invocation per lane): the start node enters visited
//     and the frontier, depth 0 is reported (source+sink starts), and the start nodes are listed;
//   then one launch per depth, either direction, chosen per level (below):
//     dataflow.level.<transfer>.push (one group per list entry (u, chunk)): for each out-edge
//       u -> v of the chunk, lanes' = transfer(frontier word, ...) & frontier word; an atomic OR
//       into visited decides which group gains each (v, lane), and only it reports the lane and
//       ORs it into next; the stamp lists v. A group that walks its node whole clears the node's
//       frontier row, so the old frontier ends the level empty (it becomes `next`).
//     dataflow.level.<transfer>.pull (one group per node, then one per pull task): ORs transfer(
//       frontier word of u) over v's in-edges u -> v (a reverse CSR keeping each edge's kind,
//       built on the device with the pull tasks when the engine is made: ops/dataflow/setup.hpp),
//       word by word, stopping a word once every lane it still needs is found, and writes the
//       lanes gained to visited and next (it owns the row: plain stores). The lanes a word still
//       needs leave out those the frontier holds nowhere (dataflow.frontier_lanes ORs the listed
//       rows first, one launch before each pull level): otherwise a node that one source of its
//       word never reaches would walk all its in-edges at every pull level. A node with more than
//       256 in-edges is left to its pull tasks (a table built with the reverse graph: one task per
//       256 in-edges), which merge their finds with atomics and the stamp, as push does. Each
//       workgroup lists its new nodes with one atomic per counter.
//   Invariant: `next` is all zero when a level starts. A push level leaves the old frontier empty
//   except the rows of nodes walked in chunks; a pull level leaves it whole; then the host clears
//   it (one fill) before the next level.
//   Direction (automatic, dataflow_push_pays): push a small frontier, or a large one that is still
//   growing on wide rows; pull the rest (the constants' comment gives the measurements). Either
//   direction at any level gives the same findings, since both list the same nodes in the same
//   format.
//   Convergence: the host reads the counters after each level and stops when nothing was listed
//   (the fixpoint) or at max_depth.
//
// Bindings of the four programs (params is Uniform, the rest ReadOnly or ReadWrite):
//   0 node_labels  1 edge_offsets  2 edge_targets  3 edge_kinds  4 source_nodes (all)  5 findings
//   6 finding_count  7 params  8 visited  9 frontier  10 next  11 in_offsets  12 in_sources
//   13 in_kinds  14 list  15 next_list (2 words per entry: node, first edge)  16 next_count (the
//   counters: [0] entries, [1] entries beyond one per node, [32] out-edges of the listed nodes)
//   17 stamps (one per node)  18 pull_tasks (2 words per task: node, first in-edge)
//   19 frontier_lanes (W words: the lanes the frontier holds)
//   params: {lanes, num_nodes, max_findings, depth, words (W), source_base, entries (n * W),
//            list_count, list_capacity, p0, p1, p2, p3, group_shift (log2 G), edge_chunk, pull_tasks,
//            lanes_workgroups (dataflow.frontier_lanes' grid)}
// A graph without edge kinds binds edge_kinds and in_kinds with 0 elements: out-of-bounds loads
// read 0, so every edge has kind 0 and no memory is spent on them. Findings are 4 words each,
// (source, sink, depth, source_idx), counted by one atomic add per reported word of lanes; the
// counter keeps counting past max_findings.
//
// Memory. Per batch: 3 bitmaps of 4 * n * W bytes (and W words of frontier lanes). Fixed: the graph and its reverse, the pull
// tasks, two work lists (8 bytes per entry: at most n + e / 256 entries), the stamps, sources and
// findings. Sources are batched in whole words so that everything fits the launch budget
// (ops::graph::launch_memory_budget: 7/8 of device memory, at most 8 GiB per launch), each bitmap
// fits one buffer, and a batch cannot count more than 2^32-1 findings. 1M nodes x 10,000 sources
// needs 3 x 1.25 GB of bitmaps: one batch on an 80 GB device.

#include <vyre/engine/dataflow_plan.hpp>
#include <vyre/engine/detail/dataflow_graph.hpp>
#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/graph/traversal.hpp>
#include <vyre/ops/dataflow/level.hpp>
#include <vyre/ops/dataflow/transfer.hpp>
#include <vyre/ops/graph/launch.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/util/host_bytes.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace vyre::engine {

using detail::dataflow_setup_times; // where an engine's setup went (engine/detail/dataflow_graph.hpp)

// ---- the engine ---------------------------------------------------------------------------------

// A graph resident on one device, ready for many runs: the graph crosses the bus once, as given,
// and is checked and reversed on the device (engine/detail/dataflow_graph.hpp); the engine keeps
// no host copy. Not thread-safe: one run at a time per object.
class dataflow {
public:
    // edge_kinds: empty, or one kind per entry of graph.targets. Checked in this order: the
    // graph's array sizes, the kinds' count and the transfer's name (validation_error), whether it
    // fits the device (graph_resource_error), then its contents on the device (validation_error
    // naming the first broken invariant, as csr_graph::validate() does).
    dataflow(runtime::context& ctx, const graph::csr_graph& g, std::span<const std::uint32_t> edge_kinds = {},
             transfer_function transfer = transfers::block_sanitizers())
        : ctx_(&ctx), transfer_(std::move(transfer)) {
        const auto t0 = std::chrono::steady_clock::now();
        if (auto v = graph::size_violation(g)) throw validation_error(v->message);
        graph::validate_edge_kinds(g, edge_kinds, "engine::dataflow");
        if (!ops::dataflow::valid_transfer_name(transfer_.name))
            throw validation_error("engine::dataflow: transfer name '" + transfer_.name + "' must be 1 to 48 characters of a-z, 0-9 and _");
        n_ = g.node_count();
        e_ = g.edge_count();
        has_kinds_ = !edge_kinds.empty();
        plan_dataflow(ctx.device(), n_, e_, has_kinds_, 0, 0, {});
        kernels_ = &ops::dataflow::dataflow_level_kernels_for(transfer_);
        upload_graph(g, edge_kinds);
        setup_.total = detail::seconds_between(t0, std::chrono::steady_clock::now());
    }

    // One object owns its device buffers: move it, never copy it.
    dataflow(const dataflow&) = delete;
    dataflow& operator=(const dataflow&) = delete;
    dataflow(dataflow&&) = default;
    dataflow& operator=(dataflow&&) = default;

    const transfer_function& transfer() const noexcept { return transfer_; }
    std::uint32_t node_count() const noexcept { return n_; }
    std::uint64_t edge_count() const noexcept { return e_; }
    // Where the constructor's time went.
    const dataflow_setup_times& setup_times() const noexcept { return setup_; }

    // The plan run() would follow, without running it.
    dataflow_plan plan(std::size_t source_count, const dataflow_options& o = {}) const {
        return plan_dataflow(ctx_->device(), n_, e_, has_kinds_, source_count, sinks_, o);
    }

    // Every finding of `sources` (node ids; entry i is source_idx i) within o.max_depth.
    dataflow_result run(std::span<const std::uint32_t> sources, const dataflow_options& o = {});

private:
    void upload_graph(const graph::csr_graph& g, std::span<const std::uint32_t> edge_kinds);
    // prepare: where given, the result vector is made (allocated and zeroed, on a helper thread) at
    // the run's size as soon as this batch's count is read, while its findings are read back.
    void run_batch(std::uint64_t base, std::uint64_t lanes, const dataflow_options& o, std::uint32_t& capacity,
                   std::size_t& staged, dataflow_result& r, std::future<std::vector<graph::finding>>* prepare);
    boost::compute::event fill(boost::compute::buffer& b, std::uint32_t pattern, std::size_t bytes);

    runtime::context* ctx_;
    transfer_function transfer_;
    std::uint32_t n_ = 0;
    std::uint64_t e_ = 0;
    bool has_kinds_ = false;
    detail::dataflow_setup_times setup_;
    std::uint64_t sinks_ = 0;
    std::uint64_t list_capacity_ = 0; // entries of one work list
    std::uint64_t pull_tasks_ = 0;
    const ops::dataflow::dataflow_level_kernels* kernels_ = nullptr;
    std::vector<runtime::buffer_arg> args_;
    ops::graph::launch_log log_{nullptr, {}, 0};
    boost::compute::buffer visited_, frontier_, next_, list_, next_list_, stamps_, findings_, frontier_lanes_;
    // The run's records in device order, before sorting into the result. Kept across runs: a host
    // buffer touched once costs no page faults the next time (first touches can cost as much as
    // the sort). Not zero-filled; its new memory is faulted in on every core before the read-back
    // (the driver's copy into unmapped pageable memory faulted it in on one thread).
    std::vector<graph::finding, util::default_init_allocator<graph::finding>> staged_;
    std::size_t result_hint_ = 0; // the last run's stored findings: the size the next result is prepared at
};

inline boost::compute::event dataflow::fill(boost::compute::buffer& b, std::uint32_t pattern, std::size_t bytes) {
    const auto e = ops::graph::fill_words(*ctx_, b, pattern, bytes);
    if (ctx_->profiling() && e.get()) log_.events.push_back(e); // device time, but not a launch
    return e;
}

inline void dataflow::upload_graph(const graph::csr_graph& g, std::span<const std::uint32_t> edge_kinds) {
    namespace b = ops::dataflow::dataflow_binding;
    detail::dataflow_device_graph d = detail::upload_dataflow_graph(*ctx_, g, edge_kinds, setup_);
    // The offsets are valid now: the host's two counts, on every core, while the device finishes
    // the pull-task list (its temporaries are freed after that: the driver waits for the device).
    const auto t0 = std::chrono::steady_clock::now();
    const detail::dataflow_host_counts counts = detail::count_dataflow_host(g);
    setup_.host = detail::seconds_between(t0, std::chrono::steady_clock::now());
    sinks_ = counts.sinks;
    list_capacity_ = counts.list_capacity;
    pull_tasks_ = d.pull_task_count;
    const auto e32 = static_cast<std::uint32_t>(e_);
    args_.assign(ops::dataflow::dataflow_binding_count, {});
    args_[b::node_labels] = {d.labels, n_};
    args_[b::edge_offsets] = {d.offsets, n_ + 1};
    args_[b::edge_targets] = {d.targets, e32};
    args_[b::edge_kinds] = {d.kinds, has_kinds_ ? e32 : 0}; // none: bound with 0 elements, so every kind reads 0
    args_[b::in_offsets] = {d.in_offsets, n_ + 1};
    args_[b::in_sources] = {d.in_sources, e32};
    args_[b::in_kinds] = {d.in_kinds, has_kinds_ ? e32 : 0};
    args_[b::pull_tasks] = {d.pull_tasks, static_cast<std::uint32_t>(2 * pull_tasks_)};
    args_[b::finding_count] = {runtime::allocate(*ctx_, 4), 1};
    args_[b::next_count] = {runtime::allocate(*ctx_, 4 * ops::dataflow::dataflow_counter::words),
                            ops::dataflow::dataflow_counter::words};
    stamps_ = runtime::allocate(*ctx_, std::size_t{n_} * 4);
    list_ = runtime::allocate(*ctx_, list_capacity_ * 8);
    next_list_ = runtime::allocate(*ctx_, list_capacity_ * 8);
    ctx_->finish();
    d.scratch.clear();
}

inline dataflow_result dataflow::run(std::span<const std::uint32_t> sources, const dataflow_options& o) {
    namespace b = ops::dataflow::dataflow_binding;
    // The graph was validated when it was uploaded and cannot change since: only the sources are
    // checked here (validating 67M edges again would cost a run at RMAT 22 more than its kernels).
    for (std::size_t i = 0; i < sources.size(); ++i)
        if (sources[i] >= n_)
            throw validation_error("engine::dataflow: sources[" + std::to_string(i) + "] = " + std::to_string(sources[i]) +
                                   " is not a node: node_count is " + std::to_string(n_) + ", valid range [0, " +
                                   std::to_string(n_) + ")");
    const dataflow_plan p = plan(sources.size(), o);
    dataflow_result r;
    if (sources.empty()) return r;
    log_ = {ctx_, {}, 0};
    const std::uint64_t n = n_, max_entries = n * p.batch_words;
    // Reallocated only when a larger batch needs more than the last run's buffers hold.
    if (!visited_.get() || visited_.size() < max_entries * 4) {
        for (auto* buffer : {&visited_, &frontier_, &next_}) *buffer = {}; // free before allocating
        visited_ = runtime::allocate(*ctx_, max_entries * 4);
        frontier_ = runtime::allocate(*ctx_, max_entries * 4);
        next_ = runtime::allocate(*ctx_, max_entries * 4);
    }
    if (!frontier_lanes_.get() || frontier_lanes_.size() < p.batch_words * 4)
        frontier_lanes_ = runtime::allocate(*ctx_, p.batch_words * 4);
    if (!findings_.get() || findings_.size() < std::size_t(o.max_findings) * 16) {
        findings_ = {};
        findings_ = runtime::allocate(*ctx_, std::size_t(o.max_findings) * 16);
    }
    args_[b::source_nodes] = {runtime::upload(*ctx_, sources, CL_MEM_READ_ONLY), static_cast<std::uint32_t>(sources.size())};
    args_[b::findings] = {findings_, o.max_findings * 4};
    // The result vector is fresh memory, and its first touches cost page faults that can take
    // longer than sorting the findings: a helper thread allocates and touches it at the last run's
    // size while the device works (a fresh engine's first run: at its own size, from the moment
    // the last batch's count is read). Without the thread, the sort does it.
    std::future<std::vector<graph::finding>> prepared;
    if (result_hint_ != 0) {
        try {
            prepared = std::async(std::launch::async, [size = result_hint_] { return std::vector<graph::finding>(size); });
        } catch (const std::system_error&) {
        }
    }
    std::uint32_t capacity = o.max_findings; // records the remaining batches may still store
    std::size_t staged = 0;                  // records read back into staged_
    for (std::uint64_t base = 0; base < sources.size(); base += 32 * p.batch_words) {
        const std::uint64_t lanes = std::min<std::uint64_t>(32 * p.batch_words, sources.size() - base);
        // A fresh engine has no last run's size: its last batch prepares the result once the count is known.
        run_batch(base, lanes, o, capacity, staged, r, base + lanes == sources.size() && !prepared.valid() ? &prepared : nullptr);
    }
    ctx_->finish();
    args_[b::source_nodes] = {};
    r.launches = log_.launches;
    r.kernel_seconds = log_.seconds();
    if (r.total_found > o.max_findings && !o.truncate)
        throw ops::graph::graph_resource_error(
            "findings", r.total_found, o.max_findings, "findings",
            "engine::dataflow: " + std::to_string(r.total_found) + " findings exceed the output capacity max_findings = " +
                std::to_string(o.max_findings) + " (raise max_findings, or set truncate to keep a subset)");
    const auto t0 = std::chrono::steady_clock::now();
    if (prepared.valid()) r.findings = prepared.get();
    graph::sort_canonical_by_source(std::span<const graph::finding>(staged_.data(), staged), r.findings, sources);
    result_hint_ = staged;
    r.sort_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

inline void dataflow::run_batch(std::uint64_t base, std::uint64_t lanes, const dataflow_options& o, std::uint32_t& capacity,
                                std::size_t& staged, dataflow_result& r, std::future<std::vector<graph::finding>>* prepare) {
    namespace b = ops::dataflow::dataflow_binding;
    namespace prm = ops::dataflow::dataflow_param;
    namespace cnt = ops::dataflow::dataflow_counter;
    namespace og = vyre::ops::graph;
    constexpr std::uint32_t wg = ops::dataflow::dataflow_level_workgroup;
    const std::uint64_t n = n_, e = e_;
    const std::uint64_t words = (lanes + 31) / 32, entries = n * words;
    const std::uint32_t shift = ops::dataflow::dataflow_group_shift(words);
    // Invocations are u32: a pull launch has a group of 2^shift lanes per node and per task.
    if (((n + pull_tasks_) << shift) > detail::u32_max)
        throw ops::graph::graph_resource_error("invocations", (n + pull_tasks_) << shift, detail::u32_max, "invocations",
                                               "engine::dataflow: a pull level over " + std::to_string(n) + " nodes and " +
                                                   std::to_string(pull_tasks_) + " tasks needs more than 2^32-1 invocations");
    const std::uint32_t batch = r.batches++;
    for (auto* buffer : {&visited_, &frontier_, &next_}) fill(*buffer, 0, entries * 4);
    fill(args_[b::finding_count].buffer, 0, 4);
    fill(stamps_, 0xFFFFFFFFu, n * 4); // no depth: the first stamp of any depth lists a node
    runtime::parameter_buffer<ops::dataflow::dataflow_param_words> param_buffer; // remade when a level's words change
    std::array<std::uint32_t, ops::dataflow::dataflow_param_words> params = {
        static_cast<std::uint32_t>(lanes), static_cast<std::uint32_t>(n), capacity, 0, static_cast<std::uint32_t>(words),
        static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(entries), 0, static_cast<std::uint32_t>(list_capacity_),
        o.params[0], o.params[1], o.params[2], o.params[3], shift, dataflow_edge_chunk, static_cast<std::uint32_t>(pull_tasks_), 0};
    const auto bind = [&] {
        args_[b::params] = {param_buffer.hold(*ctx_, params), ops::dataflow::dataflow_param_words};
        args_[b::visited] = {visited_, static_cast<std::uint32_t>(entries)};
        args_[b::frontier] = {frontier_, static_cast<std::uint32_t>(entries)};
        args_[b::next] = {next_, static_cast<std::uint32_t>(entries)};
        args_[b::list] = {list_, static_cast<std::uint32_t>(2 * list_capacity_)};
        args_[b::next_list] = {next_list_, static_cast<std::uint32_t>(2 * list_capacity_)};
        args_[b::stamps] = {stamps_, static_cast<std::uint32_t>(n)};
        args_[b::frontier_lanes] = {frontier_lanes_, static_cast<std::uint32_t>(words)};
    };
    // What the last launch listed: entries, the entries beyond one per node, the nodes' out-edges.
    std::array<std::uint32_t, cnt::words> counters{};
    const auto read_counters = [&] { runtime::read(*ctx_, args_[b::next_count].buffer, counters.data(), sizeof counters); };
    const auto event_seconds = [&](const boost::compute::event& ev) { return runtime::event_seconds(*ctx_, ev); };
    fill(args_[b::next_count].buffer, 0, 4 * cnt::words);
    bind();
    log_.add(runtime::dispatch(*ctx_, ops::dataflow::dataflow_init_kernel(),
                               {og::launch_groups(lanes, ops::dataflow::dataflow_init_workgroup, o.min_workgroups), 1, 1}, args_));
    read_counters();
    bool next_dirty = false; // whether the last level left rows of the old frontier (now `next`) set
    std::uint64_t previous_nodes = 0; // nodes of the frontier before this level's (the start nodes: none)
    std::uint64_t depth = 1;
    for (; depth <= o.max_depth && counters[cnt::entries] != 0; ++depth) {
        std::swap(list_, next_list_);
        const std::uint64_t list_count = counters[cnt::entries], nodes = list_count - counters[cnt::extra_entries];
        const std::uint64_t frontier_edges = counters[cnt::edges];
        const bool push = dataflow_push_pays(frontier_edges, nodes, previous_nodes, n, e, words, o.direction);
        previous_nodes = nodes;
        dataflow_level_trace t{batch, static_cast<std::uint32_t>(depth), push ? dataflow_direction::push : dataflow_direction::pull,
                               list_count, nodes, frontier_edges, 0, 0};
        boost::compute::event clear;
        if (next_dirty) clear = fill(next_, 0, entries * 4);
        // dataflow.frontier_lanes: one group per list entry, up to its workgroup cap.
        const std::uint32_t lanes_groups = std::min(runtime::groups_for(list_count << shift, wg),
                                                    ops::dataflow::dataflow_frontier_lanes_workgroups);
        params[prm::depth] = static_cast<std::uint32_t>(depth);
        params[prm::list_count] = static_cast<std::uint32_t>(list_count);
        params[prm::lanes_workgroups] = lanes_groups;
        bind();
        fill(args_[b::next_count].buffer, 0, 4 * cnt::words);
        boost::compute::event level, lanes_event;
        if (push) {
            level = runtime::dispatch(*ctx_, kernels_->push, {og::launch_groups(list_count << shift, wg, o.min_workgroups), 1, 1}, args_);
            ++r.push_levels;
            // Nodes walked in chunks share their frontier row, which none of their groups may clear.
            next_dirty = counters[cnt::extra_entries] != 0;
        } else {
            // First the lanes the frontier holds: lanes it holds nowhere need no in-edge walks.
            fill(frontier_lanes_, 0, words * 4);
            lanes_event = runtime::dispatch(*ctx_, ops::dataflow::dataflow_frontier_lanes_kernel(), {lanes_groups, 1, 1}, args_);
            log_.add(lanes_event);
            level = runtime::dispatch(*ctx_, kernels_->pull, {og::launch_groups((n + pull_tasks_) << shift, wg, o.min_workgroups), 1, 1}, args_);
            ++r.pull_levels;
            next_dirty = true; // a pull reads the frontier without clearing it
        }
        log_.add(level);
        std::swap(frontier_, next_);
        read_counters();
        if (o.trace) { // both events are complete: the read waited for them
            t.seconds = event_seconds(level) + event_seconds(lanes_event);
            t.clear_seconds = event_seconds(clear);
            r.trace.push_back(t);
        }
    }
    r.levels = std::max(r.levels, static_cast<std::uint32_t>(depth - 1));
    if (counters[cnt::entries] != 0) r.converged = false; // max_depth stopped a frontier that still had facts
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint32_t count = og::read_word(*ctx_, args_[b::finding_count].buffer);
    r.total_found += count;
    const std::uint32_t stored = std::min(count, capacity);
    if (prepare != nullptr && staged + stored != 0) {
        try {
            *prepare = std::async(std::launch::async, [size = staged + stored] { return std::vector<graph::finding>(size); });
        } catch (const std::system_error&) {
        }
    }
    if (staged_.size() < staged + stored) {
        const std::size_t touched = staged_.size();
        staged_.resize(staged + stored);
        util::fault_in({reinterpret_cast<std::uint8_t*>(staged_.data() + touched), (staged_.size() - touched) * sizeof(graph::finding)});
    }
    runtime::read(*ctx_, args_[b::findings].buffer, staged_.data() + staged, std::size_t(stored) * sizeof(graph::finding));
    staged += stored;
    capacity -= stored;
    r.readback_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One-shot: uploads the graph, runs once.
inline dataflow_result run_dataflow(runtime::context& ctx, const graph::csr_graph& g, std::span<const std::uint32_t> edge_kinds,
                                    std::span<const std::uint32_t> sources, const transfer_function& transfer,
                                    const dataflow_options& o = {}) {
    dataflow engine(ctx, g, edge_kinds, transfer);
    return engine.run(sources, o);
}

// The taint contract's sources: every node whose role is source or source+sink, ascending.
inline std::vector<std::uint32_t> taint_sources(const graph::csr_graph& g) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t v = 0; v < g.node_count(); ++v)
        if (graph::is_source(g.node_data[v])) out.push_back(v);
    return out;
}

} // namespace vyre::engine
