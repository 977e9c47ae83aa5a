// The host side of graph.bfs and graph.reachability (bfs.hpp): the compiled programs, the
// resource checks, and the runs of the bounded and the bitset variant (batches, levels, readback).
#pragma once

#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/ops/graph/bfs_options.hpp>
#include <vyre/ops/graph/bfs_programs.hpp>
#include <vyre/ops/graph/launch.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::ops::graph::detail {

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

// Appends the first min(count, capacity) findings of `b` to `out`.
inline std::uint64_t read_findings(runtime::context& ctx, const boost::compute::buffer& b, std::uint32_t count,
                                   std::uint32_t capacity, std::vector<vyre::graph::finding>& out) {
    const std::uint32_t stored = std::min(count, capacity);
    const std::size_t old = out.size();
    out.resize(old + stored);
    runtime::read(ctx, b, out.data() + old, std::size_t(stored) * sizeof(vyre::graph::finding));
    return stored;
}

inline void zero_fill(runtime::context& ctx, boost::compute::buffer& b) { fill_words(ctx, b, 0, b.size()); }

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
    args[bfs_binding::params] = {runtime::make_parameter_buffer(ctx, params), bfs_param_words};
    args[bfs_binding::visited_set] = {runtime::allocate(ctx, std::size_t(s * wps) * 4), static_cast<std::uint32_t>(s * wps)};
    args[bfs_binding::queue_overflows] = {runtime::allocate(ctx, 4), 1};
    args[bfs_binding::queue] = {runtime::allocate(ctx, std::size_t(s) * 2 * max_bfs_queue * 4),
                                static_cast<std::uint32_t>(s * 2 * max_bfs_queue)};
    for (auto b : {bfs_binding::finding_count, bfs_binding::visited_set, bfs_binding::queue_overflows})
        zero_fill(ctx, args[b].buffer);
    log.add(runtime::dispatch(ctx, bounded_kernel(mode), {launch_groups(s, bfs_workgroup, o.min_workgroups), 1, 1}, args));
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

    runtime::parameter_buffer<bitset_param_words> param_buffer;
    std::uint32_t capacity = o.max_findings; // records the remaining batches may still store
    for (std::uint64_t base = 0; base < s; base += 32 * batch_words) {
        const std::uint64_t lanes = std::min<std::uint64_t>(32 * batch_words, s - base);
        const std::uint64_t words = (lanes + 31) / 32, entries = n * words, list_cap = list_capacity(entries);
        ++r.batches;
        for (auto* buffer : {&args[b::finding_count].buffer, &args[b::next_count].buffer, &visited, &frontier, &next})
            zero_fill(ctx, *buffer);
        bool next_clean = true; // push levels OR into `next`; pull levels write all of it
        std::array<std::uint32_t, bitset_param_words> params = {static_cast<std::uint32_t>(lanes), static_cast<std::uint32_t>(n),
                                                                capacity, 0, static_cast<std::uint32_t>(words),
                                                                static_cast<std::uint32_t>(base), static_cast<std::uint32_t>(mode),
                                                                static_cast<std::uint32_t>(entries), 0,
                                                                static_cast<std::uint32_t>(list_cap)};
        const auto bind = [&] {
            args[b::params] = {param_buffer.hold(ctx, params), bitset_param_words};
            args[b::visited] = {visited, static_cast<std::uint32_t>(entries)};
            args[b::frontier] = {frontier, static_cast<std::uint32_t>(entries)};
            args[b::next] = {next, static_cast<std::uint32_t>(entries)};
            args[b::list] = {list, static_cast<std::uint32_t>(list_cap)};
            args[b::next_list] = {next_list, static_cast<std::uint32_t>(list_cap)};
        };
        bind();
        log.add(runtime::dispatch(ctx, bitset_init_kernel(), {launch_groups(lanes, bfs_workgroup, o.min_workgroups), 1, 1}, args));
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
                log.add(runtime::dispatch(ctx, bitset_push_kernel(), {launch_groups(list_count, bitset_workgroup, o.min_workgroups), 1, 1}, args));
                ++r.push_levels;
                next_clean = true; // the push cleared every frontier entry it read: the frontier is empty now
            } else {
                log.add(runtime::dispatch(ctx, bitset_pull_kernel(), {launch_groups(entries, bitset_workgroup, o.min_workgroups), 1, 1}, args));
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

} // namespace vyre::ops::graph::detail
