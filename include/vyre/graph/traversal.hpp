// What every traversal of a CSR graph shares, whoever runs it (ops, engines, CPU references): the
// checks of its inputs, and the canonical order of its findings sorted on every core.
#pragma once

#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::graph {

// Throws validation_error, naming `who`, unless `g` passes csr_graph::validate(), every source is
// a node, and there are at most 2^32 sources (source_idx is u32).
inline void validate_traversal(const csr_graph& g, std::span<const std::uint32_t> sources, const char* who) {
    g.validate();
    if (sources.size() > (std::uint64_t{1} << 32))
        throw validation_error(std::string(who) + ": " + std::to_string(sources.size()) +
                               " sources, but source_idx is u32 (at most 4294967296 sources)");
    for (std::size_t i = 0; i < sources.size(); ++i)
        if (sources[i] >= g.node_count())
            throw validation_error(std::string(who) + ": sources[" + std::to_string(i) + "] = " +
                                   std::to_string(sources[i]) + " is not a node: node_count is " +
                                   std::to_string(g.node_count()) + ", valid range [0, " +
                                   std::to_string(g.node_count()) + ")");
}

// Throws validation_error, naming `who`, unless `kinds` is empty or holds one kind per edge.
inline void validate_edge_kinds(const csr_graph& g, std::span<const std::uint32_t> kinds, const char* who) {
    if (!kinds.empty() && kinds.size() != g.edge_count())
        throw validation_error(std::string(who) + ": edge_kinds has " + std::to_string(kinds.size()) +
                               " entries but the graph has " + std::to_string(g.edge_count()) +
                               " edges (give one kind per entry of targets, or none)");
}

// The canonical order (finding.hpp) of `in`, written to `out` (resized), where source_idx indexes
// `sources`, without one serial sort of every record: a counting sort puts each source_idx's
// records together, the groups in (source node, source_idx) order; then each run of one source
// node is sorted by (sink, depth, source_idx). Every pass runs on worker threads: the records are
// cut into slices, each slice counts its records per group and then scatters them to its own
// offsets, so the only serial work is per group, not per record. Same result as sort_canonical,
// which small inputs (and records naming a source_idx out of range) use directly.
inline void sort_canonical_by_source(std::span<const finding> in, std::vector<finding>& out,
                                     std::span<const std::uint32_t> sources) {
    constexpr std::size_t slice_min = 65536;
    const std::size_t s = sources.size(), total = in.size();
    const auto plain = [&] {
        out.assign(in.begin(), in.end());
        sort_canonical(out);
    };
    if (total < slice_min || s == 0) return plain();
    std::vector<std::uint32_t> order(s);
    for (std::size_t i = 0; i < s; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return (std::uint64_t{sources[x]} << 32 | x) < (std::uint64_t{sources[y]} << 32 | y);
    });
    std::vector<std::uint32_t> rank(s);
    for (std::size_t k = 0; k < s; ++k) rank[order[k]] = static_cast<std::uint32_t>(k);
    // Slices of at least slice_min records, a few per thread; their counts (slices x s words) stay
    // within 64 MiB.
    const std::size_t threads = std::min<std::size_t>(util::thread_count(), total / slice_min);
    const std::size_t slices = std::max<std::size_t>(1, std::min({4 * threads, total / slice_min, (std::size_t{1} << 24) / s}));
    const std::size_t per_slice = (total + slices - 1) / slices;
    // Runs body(slice, first record, end) for every slice on the worker threads.
    const auto each_slice = [&](auto body) {
        util::parallel_for(slices, static_cast<unsigned>(threads), [&](std::size_t sl) {
            body(sl, sl * per_slice, std::min(total, (sl + 1) * per_slice));
        });
    };
    std::vector<std::uint32_t> place(slices * s, 0); // per (slice, group): count, then where its next record goes
    std::atomic<bool> out_of_range{false};
    each_slice([&](std::size_t sl, std::size_t lo, std::size_t hi) {
        std::uint32_t* count = place.data() + sl * s;
        for (std::size_t i = lo; i < hi; ++i) {
            const std::uint32_t idx = in[i].source_idx;
            if (idx >= s) {
                out_of_range = true;
                return;
            }
            ++count[rank[idx]];
        }
    });
    if (out_of_range) return plain();
    std::vector<std::size_t> start(s + 1, 0); // first record of each group
    {
        std::size_t at = 0;
        for (std::size_t k = 0; k < s; ++k) {
            start[k] = at;
            for (std::size_t sl = 0; sl < slices; ++sl) {
                const std::uint32_t c = place[sl * s + k];
                place[sl * s + k] = static_cast<std::uint32_t>(at - start[k]); // offset within the group
                at += c;
            }
        }
        start[s] = at;
    }
    out.resize(total);
    each_slice([&](std::size_t sl, std::size_t lo, std::size_t hi) {
        std::uint32_t* cursor = place.data() + sl * s;
        for (std::size_t i = lo; i < hi; ++i) {
            const std::uint32_t k = rank[in[i].source_idx];
            out[start[k] + cursor[k]++] = in[i];
        }
    });
    std::vector<std::size_t> groups; // first rank of each run of one source node
    for (std::size_t k = 0; k < s; ++k)
        if (k == 0 || sources[order[k]] != sources[order[k - 1]]) groups.push_back(k);
    groups.push_back(s);
    util::parallel_for(groups.size() - 1, 0, [&](std::size_t gi) {
        const auto first = out.begin() + static_cast<std::ptrdiff_t>(start[groups[gi]]);
        const auto last = out.begin() + static_cast<std::ptrdiff_t>(start[groups[gi + 1]]);
        if (groups[gi + 1] - groups[gi] == 1) // one source_idx: (sink, depth) decides
            std::sort(first, last, [](const finding& x, const finding& y) {
                return (std::uint64_t{x.sink} << 32 | x.depth) < (std::uint64_t{y.sink} << 32 | y.depth);
            });
        else sort_canonical(std::span<finding>(first, last));
    });
}

// sort_canonical_by_source, in place.
inline void sort_canonical_by_source(std::vector<finding>& records, std::span<const std::uint32_t> sources) {
    if (records.size() < 65536) {
        sort_canonical(records);
        return;
    }
    const std::vector<finding> in = std::move(records);
    records = {};
    sort_canonical_by_source(in, records, sources);
}

} // namespace vyre::graph
