// engine::dataflow: level-synchronous fixpoint over a CSR graph on the device, thousands of
// sources at once (32 per u32 word), with a pluggable transfer function (ops/dataflow/transfer.hpp)
// and the taint contract: every (source, sink, depth) within max_depth, in canonical order.
#pragma once

// Semantics: exactly reference::dataflow_findings (reference/dataflow.hpp).
//
// State. Sources are lanes, 32 per u32 word; a batch of L lanes uses W = ceil(L / 32) words per
// node in three bitmaps, entry node * W + w: visited (lanes that reached the node), frontier
// (lanes that reached it at the current depth) and next. Every batch runs:
//   dataflow.init (ops/dataflow/level.hpp, one invocation per lane): the start node enters visited and the frontier,
//     depth 0 is reported (source+sink starts), and the first work list of (node, word) entries
//     is written;
//   then one launch per depth, either direction, chosen per level by the size of the work list:
//     dataflow.level.<transfer>.push (one invocation per work-list entry (u, w)): for each
//       out-edge u -> v, lanes' = transfer(frontier word, ...) & frontier word; an atomic OR into
//       visited decides which invocation gains each (v, lane), and only it reports the lane; an
//       atomic OR into next whose old value was 0 appends (v, w) to the next work list;
//     dataflow.level.<transfer>.pull (one invocation per (v, w)): ORs transfer(frontier word of
//       u) over v's in-edges u -> v (a reverse CSR keeping each edge's kind), keeps the lanes not
//       yet visited, reports them, and writes next (it owns the entry: no atomics but counters).
//   Convergence: each launch counts the entries it adds to the next work list (next_count); the
//   host reads that word after the level and stops at 0 (the fixpoint) or at max_depth.
//
// Bindings of the three programs (params is Uniform, the rest ReadOnly or ReadWrite):
//   0 node_labels  1 edge_offsets  2 edge_targets  3 edge_kinds  4 source_nodes (all)  5 findings
//   6 finding_count  7 params  8 visited  9 frontier  10 next  11 in_offsets  12 in_sources
//   13 in_kinds  14 list  15 next_list  16 next_count
//   params: {lanes, num_nodes, max_findings, depth, words (W), source_base, entries (n * W),
//            list_count, list_capacity, p0, p1, p2, p3}
// A graph without edge kinds binds edge_kinds and in_kinds with 0 elements: out-of-bounds loads
// read 0, so every edge has kind 0 and no memory is spent on them. Findings are 4 words each,
// (source, sink, depth, source_idx), counted by one atomic add per reported word of lanes; the
// counter keeps counting past max_findings.
//
// Memory. Per batch: 3 bitmaps of 4 * n * W bytes and two work lists; sources are batched in
// whole words so that the graph, its reverse, the findings buffer and one batch fit the launch
// budget (ops::graph::launch_memory_budget: 7/8 of device memory, at most 8 GiB per launch), each
// bitmap fits one buffer, and a batch cannot count more than 2^32-1 findings. 1M nodes x 10,000
// sources needs 3 x 1.25 GB of bitmaps: one batch on an 80 GB device.

#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/ops/dataflow/level.hpp>
#include <vyre/ops/dataflow/transfer.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/reference/dataflow.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::engine {

// The ops the engine runs (ops/dataflow/), under the engine's names.
using ops::dataflow::dataflow_batch_bytes;
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
    double kernel_seconds = 0;            // device time of the launches (profiling queues only)
};

// How one run uses memory: what the plan function decided and why.
struct dataflow_plan {
    std::uint64_t fixed_bytes = 0;   // graph, reverse graph, sources, findings, counters
    std::uint64_t batch_words = 0;   // words of 32 sources per batch
    std::uint64_t batches = 0;
    std::uint64_t batch_bytes = 0;   // bitmaps and work lists of one full batch
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
    // Graph and reverse graph (offsets, targets or sources, kinds), labels, sources, findings, counters.
    p.fixed_bytes = 4 * (node_count + 2 * (node_count + 1) + 2 * edge_words + source_count + findings_words + 2 +
                         ops::dataflow::dataflow_param_words);
    if (p.fixed_bytes > p.budget)
        throw og::graph_resource_error("device memory", p.fixed_bytes, p.budget, "bytes",
                                       "engine::dataflow: the graph, its reverse, sources and findings need " +
                                           std::to_string(p.fixed_bytes) + " bytes, above " + detail::budget_text(dev, p.budget));
    if (source_count == 0) return p;
    const std::uint64_t one = p.fixed_bytes + dataflow_batch_bytes(node_count, 1);
    if (one > p.budget)
        throw og::graph_resource_error("device memory", one, p.budget, "bytes",
                                       "engine::dataflow: the graph, its reverse, sources and findings (" +
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

// ---- the engine ---------------------------------------------------------------------------------

// A graph resident on one device, ready for many runs: the graph and its reverse are validated,
// built and uploaded once. Not thread-safe: one run at a time per object.
class dataflow {
public:
    // edge_kinds: empty, or one kind per entry of graph.targets. Throws validation_error for a
    // malformed graph or kinds, graph_resource_error when the graph does not fit the device.
    dataflow(runtime::context& ctx, graph::csr_graph g, std::vector<std::uint32_t> edge_kinds = {},
             transfer_function transfer = transfers::block_sanitizers())
        : ctx_(&ctx), g_(std::move(g)), kinds_(std::move(edge_kinds)), transfer_(std::move(transfer)) {
        g_.validate();
        reference::detail::check_kinds(g_, kinds_, "engine::dataflow");
        if (!ops::dataflow::detail::valid_transfer_name(transfer_.name))
            throw validation_error("engine::dataflow: transfer name '" + transfer_.name + "' must be 1 to 48 characters of a-z, 0-9 and _");
        sinks_ = static_cast<std::uint64_t>(std::count_if(g_.node_data.begin(), g_.node_data.end(), graph::is_sink));
        plan_dataflow(ctx.device(), g_.node_count(), g_.edge_count(), !kinds_.empty(), 0, sinks_, {});
        kernels_ = &ops::dataflow::detail::kernels_for(transfer_);
        upload_graph();
    }

    // One object owns its device buffers: move it, never copy it.
    dataflow(const dataflow&) = delete;
    dataflow& operator=(const dataflow&) = delete;
    dataflow(dataflow&&) = default;
    dataflow& operator=(dataflow&&) = default;

    const graph::csr_graph& graph() const noexcept { return g_; }
    const transfer_function& transfer() const noexcept { return transfer_; }

    // The plan run() would follow, without running it.
    dataflow_plan plan(std::size_t source_count, const dataflow_options& o = {}) const {
        return plan_dataflow(ctx_->device(), g_.node_count(), g_.edge_count(), !kinds_.empty(), source_count, sinks_, o);
    }

    // Every finding of `sources` (node ids; entry i is source_idx i) within o.max_depth.
    dataflow_result run(std::span<const std::uint32_t> sources, const dataflow_options& o = {});

private:
    void upload_graph();
    void run_batch(std::uint64_t base, std::uint64_t lanes,
                   const dataflow_options& o, std::uint32_t& capacity, dataflow_result& r);

    runtime::context* ctx_;
    graph::csr_graph g_;
    std::vector<std::uint32_t> kinds_;
    transfer_function transfer_;
    std::uint64_t sinks_ = 0;
    const ops::dataflow::detail::level_kernels* kernels_ = nullptr;
    std::vector<runtime::buffer_arg> args_;
    ops::graph::detail::launch_log log_{nullptr, {}, 0};
    boost::compute::buffer visited_, frontier_, next_, list_, next_list_;
};

inline void dataflow::upload_graph() {
    namespace b = ops::dataflow::dataflow_binding;
    const std::uint32_t n = g_.node_count();
    // The reverse graph keeps every edge (whether one carries a fact is the transfer's call), with
    // its kind: in-edge j of v is u -> v with kind in_kinds[j].
    std::vector<std::uint32_t> in_offsets(std::size_t{n} + 1, 0), in_sources(g_.targets.size()), in_kinds;
    for (const std::uint32_t v : g_.targets) ++in_offsets[std::size_t{v} + 1];
    for (std::size_t i = 1; i < in_offsets.size(); ++i) in_offsets[i] += in_offsets[i - 1];
    if (!kinds_.empty()) in_kinds.resize(kinds_.size());
    {
        std::vector<std::uint32_t> cursor(in_offsets.begin(), in_offsets.end() - 1);
        for (std::uint32_t u = 0; u < n; ++u)
            for (std::uint32_t k = g_.offsets[u]; k < g_.offsets[u + 1]; ++k) {
                const std::uint32_t at = cursor[g_.targets[k]]++;
                in_sources[at] = u;
                if (!kinds_.empty()) in_kinds[at] = kinds_[k];
            }
    }
    args_.assign(ops::dataflow::dataflow_binding_count, {});
    const auto up = [&](std::uint32_t at, std::span<const std::uint32_t> words) {
        args_[at] = {runtime::upload(*ctx_, words, CL_MEM_READ_ONLY), static_cast<std::uint32_t>(words.size())};
    };
    up(b::node_labels, g_.node_data);
    up(b::edge_offsets, g_.offsets);
    up(b::edge_targets, g_.targets);
    up(b::edge_kinds, kinds_); // empty: one word bound with 0 elements, so every kind reads 0
    up(b::in_offsets, in_offsets);
    up(b::in_sources, in_sources);
    up(b::in_kinds, in_kinds);
    args_[b::finding_count] = {runtime::allocate(*ctx_, 4), 1};
    args_[b::next_count] = {runtime::allocate(*ctx_, 4), 1};
}

inline dataflow_result dataflow::run(std::span<const std::uint32_t> sources, const dataflow_options& o) {
    namespace b = ops::dataflow::dataflow_binding;
    namespace ogd = vyre::ops::graph::detail;
    reference::detail::check_inputs(g_, sources, "engine::dataflow");
    const dataflow_plan p = plan(sources.size(), o);
    dataflow_result r;
    if (sources.empty()) return r;
    log_ = {ctx_, {}, 0};
    const std::uint64_t n = g_.node_count(), max_entries = n * p.batch_words;
    // Reallocated only when a larger batch needs more than the last run's buffers hold.
    if (!visited_.get() || visited_.size() < max_entries * 4) {
        for (auto* buffer : {&visited_, &frontier_, &next_, &list_, &next_list_}) *buffer = {}; // free before allocating
        visited_ = runtime::allocate(*ctx_, max_entries * 4);
        frontier_ = runtime::allocate(*ctx_, max_entries * 4);
        next_ = runtime::allocate(*ctx_, max_entries * 4);
        list_ = runtime::allocate(*ctx_, ops::dataflow::dataflow_list_capacity(max_entries) * 4);
        next_list_ = runtime::allocate(*ctx_, ops::dataflow::dataflow_list_capacity(max_entries) * 4);
    }
    args_[b::source_nodes] = {runtime::upload(*ctx_, sources, CL_MEM_READ_ONLY), static_cast<std::uint32_t>(sources.size())};
    args_[b::findings] = {runtime::allocate(*ctx_, std::size_t(o.max_findings) * 16), o.max_findings * 4};
    std::uint32_t capacity = o.max_findings; // records the remaining batches may still store
    for (std::uint64_t base = 0; base < sources.size(); base += 32 * p.batch_words)
        run_batch(base, std::min<std::uint64_t>(32 * p.batch_words, sources.size() - base), o, capacity, r);
    ctx_->finish();
    args_[b::source_nodes] = args_[b::findings] = {};
    r.launches = log_.launches;
    r.kernel_seconds = log_.seconds();
    if (r.total_found > o.max_findings && !o.truncate)
        throw ops::graph::graph_resource_error(
            "findings", r.total_found, o.max_findings, "findings",
            "engine::dataflow: " + std::to_string(r.total_found) + " findings exceed the output capacity max_findings = " +
                std::to_string(o.max_findings) + " (raise max_findings, or set truncate to keep a subset)");
    ogd::sort_records(r.findings, sources);
    return r;
}

inline void dataflow::run_batch(std::uint64_t base, std::uint64_t lanes,
                                const dataflow_options& o, std::uint32_t& capacity, dataflow_result& r) {
    namespace b = ops::dataflow::dataflow_binding;
    namespace prm = ops::dataflow::dataflow_param;
    namespace ogd = vyre::ops::graph::detail;
    const std::uint64_t n = g_.node_count(), e = g_.edge_count();
    const std::uint64_t words = (lanes + 31) / 32, entries = n * words, list_cap = ops::dataflow::dataflow_list_capacity(entries);
    ++r.batches;
    for (auto* buffer : {&args_[b::finding_count].buffer, &args_[b::next_count].buffer, &visited_, &frontier_, &next_})
        ogd::zero_fill(*ctx_, *buffer);
    bool next_clean = true; // push levels OR into `next`; pull levels write all of it
    std::uint32_t params[ops::dataflow::dataflow_param_words] = {static_cast<std::uint32_t>(lanes), static_cast<std::uint32_t>(n), capacity, 0,
                                                  static_cast<std::uint32_t>(words), static_cast<std::uint32_t>(base),
                                                  static_cast<std::uint32_t>(entries), 0, static_cast<std::uint32_t>(list_cap),
                                                  o.params[0], o.params[1], o.params[2], o.params[3]};
    const auto bind = [&] {
        args_[b::params] = {ogd::constants(*ctx_, params), ops::dataflow::dataflow_param_words};
        args_[b::visited] = {visited_, static_cast<std::uint32_t>(entries)};
        args_[b::frontier] = {frontier_, static_cast<std::uint32_t>(entries)};
        args_[b::next] = {next_, static_cast<std::uint32_t>(entries)};
        args_[b::list] = {list_, static_cast<std::uint32_t>(list_cap)};
        args_[b::next_list] = {next_list_, static_cast<std::uint32_t>(list_cap)};
    };
    bind();
    log_.add(runtime::dispatch(*ctx_, ops::dataflow::detail::init_kernel(),
                               {ogd::groups(lanes, ops::dataflow::dataflow_init_workgroup, o.min_workgroups), 1, 1}, args_));
    std::uint32_t list_count = ogd::read_word(*ctx_, args_[b::next_count].buffer);
    const auto direction = o.direction == dataflow_direction::push   ? ops::graph::bitset_direction::push
                           : o.direction == dataflow_direction::pull ? ops::graph::bitset_direction::pull
                                                                     : ops::graph::bitset_direction::automatic;
    std::uint64_t depth = 1;
    for (; depth <= o.max_depth && list_count != 0; ++depth) {
        std::swap(list_, next_list_);
        const bool push = ogd::push_pays(list_count, list_cap, n, e, words, direction);
        if (push && !next_clean) ogd::zero_fill(*ctx_, next_);
        params[prm::depth] = static_cast<std::uint32_t>(depth);
        params[prm::list_count] = list_count;
        bind();
        ogd::zero_fill(*ctx_, args_[b::next_count].buffer);
        if (push) {
            log_.add(runtime::dispatch(*ctx_, kernels_->push,
                                       {ogd::groups(list_count, ops::dataflow::dataflow_level_workgroup, o.min_workgroups), 1, 1}, args_));
            ++r.push_levels;
            next_clean = true; // the push cleared every frontier entry it read: the old frontier is empty
        } else {
            log_.add(runtime::dispatch(*ctx_, kernels_->pull,
                                       {ogd::groups(entries, ops::dataflow::dataflow_level_workgroup, o.min_workgroups), 1, 1}, args_));
            ++r.pull_levels;
            next_clean = false;
        }
        std::swap(frontier_, next_);
        list_count = ogd::read_word(*ctx_, args_[b::next_count].buffer);
    }
    r.levels = std::max(r.levels, static_cast<std::uint32_t>(depth - 1));
    if (list_count != 0) r.converged = false; // max_depth stopped a frontier that still had facts
    const std::uint32_t count = ogd::read_word(*ctx_, args_[b::finding_count].buffer);
    r.total_found += count;
    capacity -= static_cast<std::uint32_t>(ogd::read_findings(*ctx_, args_[b::findings].buffer, count, capacity, r.findings));
}

// One-shot: uploads the graph, runs once.
inline dataflow_result run_dataflow(runtime::context& ctx, const graph::csr_graph& g, std::span<const std::uint32_t> edge_kinds,
                                    std::span<const std::uint32_t> sources, const transfer_function& transfer,
                                    const dataflow_options& o = {}) {
    dataflow engine(ctx, g, std::vector<std::uint32_t>(edge_kinds.begin(), edge_kinds.end()), transfer);
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
