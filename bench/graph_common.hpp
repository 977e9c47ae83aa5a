// What the graph benchmarks (bench_graph, bench_dataflow) share: list options, traversed-edge
// counts, timing over runs, GTEPS, Graph500-style source picks, and reading an index file.
#pragma once

#include "measure.hpp"

#include <vyre/graph/csr.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/reference/graph.hpp>

#include <algorithm>
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

// Traversed edges summed over sources (reference::traversed_edges). Not timed.
inline std::uint64_t traversed_edges(const graph::csr_graph& gr, std::span<const std::uint32_t> sources, std::uint32_t max_depth) {
    return reference::traversed_edges(gr, sources, max_depth);
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
