// What the graph benchmarks (bench_graph, bench_dataflow) share: list options, traversed-edge
// counts, timing over runs, GTEPS, Graph500-style source picks, and reading an index file.
#pragma once

#include "measure.hpp"

#include <vyre/graph/csr.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/reference/graph.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace vyre::bench {

// "64,1024,16384" -> {64, 1024, 16384}.
inline std::vector<std::uint32_t> parse_u32_list(const char* text) {
    std::vector<std::uint32_t> out;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(static_cast<std::uint32_t>(std::stoul(item)));
    return out;
}

// Traversed edges summed over sources: each lane of the bit-parallel walk adds the out-degree of
// every node it expands (reached at depth < max_depth, not a sanitizer). Not timed.
inline std::uint64_t traversed_edges(const graph::csr_graph& gr, std::span<const std::uint32_t> sources, std::uint32_t max_depth) {
    namespace ref = vyre::reference;
    constexpr std::size_t lanes = ref::detail::bit_walker<4>::lanes;
    const std::size_t batches = (sources.size() + lanes - 1) / lanes;
    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> total{0};
    ref::detail::on_threads(ref::detail::worker_count(0, batches), [&](unsigned) {
        ref::detail::bit_walker<4> walker(gr);
        std::uint64_t sum = 0;
        for (std::size_t b; (b = next.fetch_add(1)) < batches;) {
            const auto batch = sources.subspan(b * lanes, std::min(lanes, sources.size() - b * lanes));
            walker.walk(batch, max_depth, [&](std::uint32_t node, std::uint32_t depth, const ref::detail::lane_set<4>& reached) {
                if (depth >= max_depth || graph::is_sanitizer(gr.node_data[node])) return;
                std::uint64_t count = 0;
                for (const auto w : reached.w) count += static_cast<std::uint64_t>(std::popcount(w));
                sum += count * (gr.offsets[node + 1] - gr.offsets[node]);
            });
        }
        total += sum;
    });
    return total;
}

struct timing {
    double seconds = 0;        // median end-to-end
    double kernel_seconds = 0; // median device time
};

// Runs `run` (which returns its device seconds) `runs` times; medians of wall and device time.
template <class F>
timing measure(int runs, F run) {
    std::vector<double> wall, kernel;
    for (int r = 0; r < runs; ++r) {
        const double t0 = now_seconds();
        const double k = run();
        wall.push_back(now_seconds() - t0);
        kernel.push_back(k);
        if (wall.back() > 20) break; // long enough: one sample is a figure
    }
    return {median(wall), median(kernel)};
}

inline double gteps(std::uint64_t edges, double seconds) { return seconds > 0 ? double(edges) / seconds * 1e-9 : 0; }

// Sources as Graph500 picks them: random nodes with at least one out-edge.
inline std::vector<std::uint32_t> pick_sources(const graph::csr_graph& gr, std::size_t count, std::uint64_t seed) {
    std::vector<std::uint32_t> candidates;
    for (std::uint32_t v = 0; v < gr.node_count(); ++v)
        if (gr.offsets[v + 1] > gr.offsets[v]) candidates.push_back(v);
    std::vector<std::uint32_t> out;
    if (candidates.empty()) return out;
    graph::splitmix64 rng(seed);
    for (std::size_t i = 0; i < count; ++i) out.push_back(candidates[graph::uniform_below(rng, candidates.size())]);
    return out;
}

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace vyre::bench
