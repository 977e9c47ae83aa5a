// graph.bfs and graph.reachability on every device, both variants (bounded_queue, the seed's
// program, and bitset, the unbounded one): the seed's archetypes, the queue bound (exactly
// MAX_BFS_QUEUE and one more), the largest visited_set the device allows, the max_findings cap,
// determinism over runs, workgroup counts and batch sizes, seeded RMAT and Erdős–Rényi graphs
// against the CPU references, and the IR programs on the reference interpreter.
#include "harness.hpp"

#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/ops/graph/reachability.hpp>
#include <vyre/reference/graph.hpp>
#include <vyre/reference/interpreter.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace vyre::graph {
std::ostream& operator<<(std::ostream& os, const finding& f) {
    return os << "(" << f.source << ", " << f.sink << ", " << f.depth << ", " << f.source_idx << ")";
}
std::ostream& operator<<(std::ostream& os, const reach& r) { return os << "(" << r.source << ", " << r.node << ", " << r.depth << ")"; }
} // namespace vyre::graph

namespace vyre::ops::graph {
std::ostream& operator<<(std::ostream& os, bfs_variant v) { return os << bfs_variant_name(v); }
} // namespace vyre::ops::graph

namespace {

namespace g = vyre::graph;
namespace og = vyre::ops::graph;
namespace ref = vyre::reference;
using g::finding;
using g::reach;
using g::role;
using og::bfs_variant;

constexpr bfs_variant variants[] = {bfs_variant::bounded_queue, bfs_variant::bitset};
constexpr std::uint32_t unbounded = og::unlimited_depth;
using sources_t = std::vector<std::uint32_t>;

void set_role(g::csr_graph& gr, std::uint32_t node, role r) { gr.node_data[node] = g::make_label(r); }

og::bfs_options with(bfs_variant v, std::uint32_t max_depth = unbounded) {
    og::bfs_options o;
    o.variant = v;
    o.max_depth = max_depth;
    return o;
}

// Runs graph.bfs with `v` and checks it against reference::bfs_findings (exact, no overflow);
// returns the device's findings.
std::vector<finding> gpu_findings(vyre::test::device_case& dev, const g::csr_graph& gr, const sources_t& sources,
                                  const og::bfs_options& o) {
    const auto expected = ref::bfs_findings(gr, sources, o.max_depth);
    const auto r = og::bfs(dev.ctx(), gr, sources, o);
    BOOST_TEST(r.variant == o.variant);
    BOOST_TEST(r.queue_overflows == 0u);
    BOOST_TEST(r.total_found == expected.size());
    BOOST_TEST(r.findings == expected, boost::test_tools::per_element());
    return r.findings;
}

std::vector<reach> gpu_reached(vyre::test::device_case& dev, const g::csr_graph& gr, const sources_t& sources,
                               const og::bfs_options& o) {
    const auto expected = ref::reachable_nodes(gr, sources, o.max_depth);
    const auto r = og::reachability(dev.ctx(), gr, sources, o);
    BOOST_TEST(r.variant == o.variant);
    BOOST_TEST(r.queue_overflows == 0u);
    BOOST_TEST(r.total_found == expected.size());
    BOOST_TEST(r.reached == expected, boost::test_tools::per_element());
    return r.reached;
}

// Both ops, both variants, against the references; returns the findings (equal for both variants).
std::vector<finding> check_both(vyre::test::device_case& dev, const g::csr_graph& gr, const sources_t& sources,
                                std::uint32_t max_depth = unbounded) {
    std::vector<finding> out;
    for (const bfs_variant v : variants) {
        BOOST_TEST_CONTEXT("variant " << v << ", max_depth " << max_depth) {
            out = gpu_findings(dev, gr, sources, with(v, max_depth));
            gpu_reached(dev, gr, sources, with(v, max_depth));
        }
    }
    return out;
}

// ---- the seed's structural archetypes ------------------------------------------------------------

VYRE_DEVICE_TEST(empty_graph_has_no_findings) {
    const g::csr_graph empty;
    for (const bfs_variant v : variants) {
        const auto r = og::bfs(dev.ctx(), empty, {}, with(v));
        BOOST_TEST(r.findings.empty());
        BOOST_TEST(r.total_found == 0u);
        BOOST_TEST(og::reachability(dev.ctx(), empty, {}, with(v)).reached.empty());
        const sources_t bad{0};
        BOOST_CHECK_THROW(og::bfs(dev.ctx(), empty, bad, with(v)), vyre::validation_error);
    }
}

VYRE_DEVICE_TEST(single_node_self_loop) {
    g::csr_graph gr = g::cycle(1);
    for (const role r : {role::normal, role::source, role::sink, role::sanitizer})
        BOOST_TEST_CONTEXT("role " << g::to_string(r)) {
            set_role(gr, 0, r);
            BOOST_TEST(check_both(dev, gr, {0}).empty()); // the self-loop adds no depth-1 finding
        }
    set_role(gr, 0, role::source_and_sink); // both labels: the start itself, at depth 0, once
    BOOST_TEST((check_both(dev, gr, {0}) == std::vector<finding>{{0, 0, 0, 0}}));
}

VYRE_DEVICE_TEST(complete_graph_every_sink_at_depth_1) {
    g::csr_graph gr = g::complete(9);
    for (std::uint32_t v : {2u, 5u, 7u}) set_role(gr, v, role::sink);
    const sources_t sources{0, 5, 8};
    const auto f = check_both(dev, gr, sources);
    BOOST_TEST(f.size() == 3u * 3u - 1u); // a source that is a sink does not find itself
    for (const auto& x : f) BOOST_TEST(x.depth == 1u);
}

VYRE_DEVICE_TEST(chain_depths_are_positions) {
    g::csr_graph gr = g::chain(40);
    for (std::uint32_t v = 5; v < 40; v += 5) set_role(gr, v, role::sink);
    const auto f = check_both(dev, gr, {0});
    BOOST_TEST(f.size() == 7u);
    for (const auto& x : f) BOOST_TEST(x.depth == x.sink);
    BOOST_TEST(check_both(dev, gr, {0}, 12).size() == 2u); // sinks 5 and 10 only
    BOOST_TEST(check_both(dev, gr, {3}, 0).empty());
}

VYRE_DEVICE_TEST(star_spokes_at_depth_1) {
    g::csr_graph gr = g::star(50);
    for (std::uint32_t v = 1; v < 50; ++v) set_role(gr, v, role::sink);
    const auto f = check_both(dev, gr, {0});
    BOOST_TEST(f.size() == 49u);
    for (const auto& x : f) BOOST_TEST(x.depth == 1u);
    BOOST_TEST(check_both(dev, gr, {7}).empty()); // a spoke reaches nothing
}

VYRE_DEVICE_TEST(binary_tree_depths_are_levels) {
    g::csr_graph gr = g::binary_tree(63);
    for (std::uint32_t v = 0; v < 63; ++v) set_role(gr, v, role::sink);
    const auto f = check_both(dev, gr, {0, 2});
    BOOST_TEST(f.size() == 62u + 30u);
    for (const auto& x : f)
        if (x.source == 0) BOOST_TEST(x.depth == static_cast<std::uint32_t>(std::bit_width(x.sink + 1) - 1));
}

VYRE_DEVICE_TEST(diamond_reports_the_shortest_depth_once) {
    g::csr_graph gr = g::diamond();
    set_role(gr, 3, role::sink);
    BOOST_TEST((check_both(dev, gr, {0}) == std::vector<finding>{{0, 3, 2, 0}}));
}

VYRE_DEVICE_TEST(cycle_terminates_without_duplicates) {
    g::csr_graph gr = g::cycle(10);
    for (std::uint32_t v = 0; v < 10; ++v) set_role(gr, v, role::sink);
    const auto f = check_both(dev, gr, {4});
    BOOST_TEST(f.size() == 9u); // every other node once; the start (a sink, not source+sink) not at all
    for (const auto& x : f) BOOST_TEST(x.depth == (x.sink + 10 - 4) % 10);
}

VYRE_DEVICE_TEST(disconnected_components_stay_apart) {
    const g::csr_graph parts[] = {g::chain(6), g::cycle(5), g::star(4)};
    g::csr_graph gr = g::disjoint_union(parts);
    for (std::uint32_t v = 6; v < 15; ++v) set_role(gr, v, role::sink);
    BOOST_TEST(check_both(dev, gr, {0, 2}).empty());
    const auto f = check_both(dev, gr, {0, 6, 11});
    for (const auto& x : f) BOOST_TEST(((x.source == 6 && x.sink < 11) || (x.source == 11 && x.sink >= 11)));
}

// ---- the seed's sanitizer archetypes -------------------------------------------------------------

VYRE_DEVICE_TEST(sanitizer_on_the_only_path_blocks) {
    g::csr_graph gr = g::chain(4);
    set_role(gr, 1, role::sanitizer);
    set_role(gr, 3, role::sink);
    BOOST_TEST(check_both(dev, gr, {0}).empty());
    // Reached but not expanded: reachability lists the sanitizer, not what lies behind it.
    BOOST_TEST((gpu_reached(dev, gr, {0}, with(bfs_variant::bitset)) == std::vector<reach>{{0, 0, 0}, {0, 1, 1}}));
    BOOST_TEST(check_both(dev, gr, {1}).empty()); // a sanitizer start is not expanded either
}

VYRE_DEVICE_TEST(sanitizer_on_one_of_two_paths) {
    g::csr_graph gr = g::diamond();
    set_role(gr, 1, role::sanitizer);
    set_role(gr, 3, role::sink);
    BOOST_TEST((check_both(dev, gr, {0}) == std::vector<finding>{{0, 3, 2, 0}}));
}

VYRE_DEVICE_TEST(sanitizer_that_is_also_a_sink) {
    // The role is one value, so "sanitizer and sink" is written as sanitizer (labels.hpp): no
    // finding for it, nothing behind it.
    g::csr_graph gr = g::chain(3);
    gr.node_data[1] = g::make_label(role::sanitizer, 0x00ABCDEF); // metadata bits do not matter
    set_role(gr, 2, role::sink);
    BOOST_TEST(check_both(dev, gr, {0}).empty());
    // The OR of both role values (6) is a reserved role, which acts as normal everywhere.
    gr.node_data[1] = 6u << g::role_shift;
    BOOST_TEST((check_both(dev, gr, {0}) == std::vector<finding>{{0, 2, 2, 0}}));
}

// ---- the queue bound -----------------------------------------------------------------------------

// Hub 0 -> spokes 1..w, spoke i -> leaf w+i (a sink): levels 1 and 2 are each w nodes wide.
g::csr_graph broom(std::uint32_t w) {
    std::vector<g::edge> edges;
    for (std::uint32_t i = 1; i <= w; ++i) edges.push_back({0, i});
    for (std::uint32_t i = 1; i <= w; ++i) edges.push_back({i, w + i});
    g::csr_graph gr = g::to_csr(2 * w + 1, edges);
    for (std::uint32_t i = 1; i <= w; ++i) set_role(gr, w + i, role::sink);
    return gr;
}

VYRE_DEVICE_TEST(exactly_max_bfs_queue_frontier_nodes) {
    const g::csr_graph gr = broom(og::max_bfs_queue);
    const auto f = check_both(dev, gr, {0});
    BOOST_TEST(f.size() == og::max_bfs_queue);
    BOOST_TEST(og::choose_variant(gr, 1, unbounded) == bfs_variant::bitset); // automatic never risks a drop
}

VYRE_DEVICE_TEST(max_bfs_queue_plus_one_frontier_nodes) {
    const std::uint32_t w = og::max_bfs_queue + 1;
    const g::csr_graph gr = broom(w);
    const auto expected = ref::bfs_findings(gr, sources_t{0}, unbounded);
    BOOST_TEST(expected.size() == w);
    // Bounded: the overflow is counted, and exactly one spoke is not expanded, so one leaf is missed.
    const auto r = og::bfs(dev.ctx(), gr, sources_t{0}, with(bfs_variant::bounded_queue));
    BOOST_TEST(r.queue_overflows >= 1u);
    BOOST_TEST(r.queue_overflows == 1u);
    BOOST_TEST(r.findings.size() == w - 1);
    BOOST_TEST(std::includes(expected.begin(), expected.end(), r.findings.begin(), r.findings.end()));
    const auto reached = og::reachability(dev.ctx(), gr, sources_t{0}, with(bfs_variant::bounded_queue));
    BOOST_TEST(reached.queue_overflows == 1u);
    BOOST_TEST(reached.reached.size() == 2u * w); // every spoke is still reached, one leaf is not
    // The unbounded variant and automatic are exact.
    gpu_findings(dev, gr, {0}, with(bfs_variant::bitset));
    gpu_reached(dev, gr, {0}, with(bfs_variant::bitset));
    const auto a = og::bfs(dev.ctx(), gr, sources_t{0});
    BOOST_TEST(a.variant == bfs_variant::bitset);
    BOOST_TEST(a.queue_overflows == 0u);
    BOOST_TEST(a.findings == expected, boost::test_tools::per_element());
}

// ---- resource limits -----------------------------------------------------------------------------

// The largest num_sources x words_per_source that one visited_set buffer can hold on this device:
// it runs (with the right findings) or fails with the structured error, and one source more is
// refused before anything is allocated; the bitset variant runs that many sources in batches.
VYRE_DEVICE_TEST(largest_visited_set_the_device_allows) {
    const auto& d = dev.info();
    const std::uint32_t n = 1u << 22; // words_per_source = 131072 (512 KiB), so few sources fill a buffer
    const std::uint64_t wps = n / 32;
    // min(max allocation, 2^32-1 words, the launch budget): see og::launch_memory_cap.
    const std::uint64_t limit_words = og::max_buffer_bytes(d) / 4;
    BOOST_TEST(limit_words <= std::min<std::uint64_t>(d.max_allocation / 4, 0xFFFFFFFFu));
    const std::uint64_t s_max = limit_words / wps;
    BOOST_TEST_MESSAGE("largest buffer " << limit_words * 4 << " bytes: at most " << s_max << " sources of " << n << " nodes");
    BOOST_REQUIRE(s_max >= 1u);
    g::csr_graph gr;
    gr.offsets.assign(n + 1, 0);
    gr.node_data.assign(n, 0);
    sources_t sources(s_max + 1);
    std::vector<finding> expected;
    for (std::uint32_t i = 0; i < sources.size(); ++i) {
        sources[i] = static_cast<std::uint32_t>((std::uint64_t{i} * 1021) % n); // distinct while i < n / gcd
        if (i % 5 == 0) set_role(gr, sources[i], role::source_and_sink);
    }
    for (std::uint32_t i = 0; i < sources.size(); ++i)
        if (i % 5 == 0 && i < s_max) expected.push_back({sources[i], sources[i], 0, i});
    g::sort_canonical(expected);

    const std::span<const std::uint32_t> fit(sources.data(), s_max);
    try {
        const auto r = og::bfs(dev.ctx(), gr, fit, with(bfs_variant::bounded_queue));
        BOOST_TEST(r.queue_overflows == 0u);
        BOOST_TEST(r.findings == expected, boost::test_tools::per_element());
    } catch (const og::graph_resource_error& e) {
        BOOST_TEST_MESSAGE("refused: " << e.what());
        BOOST_TEST(e.quantity() == "device memory"); // visited_set fits one buffer; with the queue it may not fit the budget
        BOOST_TEST(e.required() > e.limit());
        BOOST_TEST(std::string(e.what()).find(std::to_string(e.required())) != std::string::npos);
    }
    try {
        og::bfs(dev.ctx(), gr, sources, with(bfs_variant::bounded_queue));
        BOOST_FAIL("one source more than the buffer holds was accepted");
    } catch (const og::graph_resource_error& e) {
        BOOST_TEST(e.quantity() == "visited_set");
        BOOST_TEST(e.required() == (s_max + 1) * wps * 4);
        BOOST_TEST(e.limit() == limit_words * 4);
        BOOST_TEST(std::string(e.what()).find(std::to_string(s_max + 1)) != std::string::npos);
    }
    // Bitset: the same sources plus one, in batches (of at most 1024 to keep host memory small on CPU devices).
    og::bfs_options o = with(bfs_variant::bitset);
    o.max_batch_sources = 1024;
    expected.clear();
    for (std::uint32_t i = 0; i < sources.size(); i += 5) expected.push_back({sources[i], sources[i], 0, i});
    g::sort_canonical(expected);
    const auto r = og::bfs(dev.ctx(), gr, sources, o);
    BOOST_TEST(r.batches == (sources.size() + 1023) / 1024);
    BOOST_TEST(r.findings == expected, boost::test_tools::per_element());
}

VYRE_DEVICE_TEST(resource_errors_name_the_numbers) {
    const g::csr_graph gr = g::chain(10);
    for (const bfs_variant v : variants) {
        og::bfs_options o = with(v);
        o.max_findings = 0x7FFFFFFF; // 32 GiB of findings: above every buffer (and u32 indexing)
        try {
            og::bfs(dev.ctx(), gr, sources_t{0}, o);
            BOOST_FAIL("an oversized findings buffer was accepted");
        } catch (const og::graph_resource_error& e) {
            BOOST_TEST(e.quantity() == "findings");
            BOOST_TEST(e.required() == std::uint64_t{0x7FFFFFFF} * 16);
            BOOST_TEST(std::string(e.what()).find("2147483647") != std::string::npos);
        }
    }
    // Invalid input is refused before any dispatch, naming what is wrong.
    g::csr_graph broken = gr;
    broken.targets[3] = 99;
    try {
        og::bfs(dev.ctx(), broken, sources_t{0});
        BOOST_FAIL("an invalid graph was accepted");
    } catch (const vyre::validation_error& e) {
        BOOST_TEST(std::string(e.what()).find("targets[3] = 99") != std::string::npos);
    }
    try {
        og::reachability(dev.ctx(), gr, sources_t{0, 10});
        BOOST_FAIL("a source outside the graph was accepted");
    } catch (const vyre::validation_error& e) {
        BOOST_TEST(std::string(e.what()).find("sources[1] = 10") != std::string::npos);
    }
}

VYRE_DEVICE_TEST(max_findings_cap_keeps_counting) {
    g::csr_graph gr = g::complete(20);
    for (std::uint32_t v = 0; v < 20; ++v) set_role(gr, v, role::sink);
    sources_t sources;
    for (int copy = 0; copy < 4; ++copy)
        for (std::uint32_t v = 0; v < 20; ++v) sources.push_back(v);
    const auto expected = ref::bfs_findings(gr, sources, unbounded);
    BOOST_REQUIRE(expected.size() == 80u * 19u);
    for (const bfs_variant v : variants)
        for (const std::uint32_t cap : {0u, 1u, 50u, 1519u, 1520u})
            BOOST_TEST_CONTEXT("variant " << v << ", max_findings " << cap) {
                og::bfs_options o = with(v);
                o.max_findings = cap;
                o.max_batch_sources = 32; // bitset: three batches share the cap
                const auto r = og::bfs(dev.ctx(), gr, sources, o);
                BOOST_TEST(r.total_found == expected.size());
                BOOST_TEST(r.findings.size() == std::min<std::size_t>(cap, expected.size()));
                BOOST_TEST(std::is_sorted(r.findings.begin(), r.findings.end()));
                BOOST_TEST((std::adjacent_find(r.findings.begin(), r.findings.end()) == r.findings.end()));
                BOOST_TEST(std::includes(expected.begin(), expected.end(), r.findings.begin(), r.findings.end()));
                if (v == bfs_variant::bitset) BOOST_TEST(r.batches == 3u);
            }
}

VYRE_DEVICE_TEST(large_outputs_in_canonical_order) {
    // Over 65,536 records the host orders them with a parallel counting sort: same order as sort_canonical.
    g::csr_graph gr = g::complete(260);
    for (std::uint32_t v = 0; v < 260; v += 1) set_role(gr, v, v % 3 ? role::sink : role::source_and_sink);
    sources_t sources;
    for (std::uint32_t v = 0; v < 260; ++v) sources.push_back(259 - v);
    for (int copy = 0; copy < 5; ++copy) sources.push_back(7);
    const auto f = check_both(dev, gr, sources);
    BOOST_TEST(f.size() > 65536u);
}

// ---- determinism ----------------------------------------------------------------------------------

g::csr_graph labelled_rmat(std::uint32_t scale, std::uint32_t edge_factor, std::uint64_t seed) {
    g::csr_graph gr = g::rmat(scale, edge_factor, seed);
    g::splitmix64 rng(seed ^ 0xA5A5);
    for (auto& label : gr.node_data) {
        const auto r = g::uniform_below(rng, 100);
        label = r < 12 ? g::make_label(role::sink) : r < 15 ? g::make_label(role::sanitizer)
              : r < 17 ? g::make_label(role::source_and_sink) : r < 18 ? (9u << g::role_shift) | 0x1234u : 0u;
    }
    return gr;
}

VYRE_DEVICE_TEST(deterministic_over_100_runs) {
    const auto seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("VYRE_TEST_SEED=" << seed) {
        const g::csr_graph gr = labelled_rmat(8, 8, seed);
        sources_t sources;
        g::splitmix64 rng(seed);
        for (int i = 0; i < 40; ++i) sources.push_back(static_cast<std::uint32_t>(g::uniform_below(rng, gr.node_count())));
        const auto expected = ref::bfs_findings(gr, sources, unbounded);
        for (const bfs_variant v : variants)
            BOOST_TEST_CONTEXT("variant " << v) {
                int same = 0;
                for (int run = 0; run < 100; ++run) same += og::bfs(dev.ctx(), gr, sources, with(v)).findings == expected;
                BOOST_TEST(same == 100);
            }
    }
}

VYRE_DEVICE_TEST(independent_of_workgroup_count_and_batches) {
    const auto seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("VYRE_TEST_SEED=" << seed) {
        const g::csr_graph gr = labelled_rmat(7, 6, seed + 1);
        sources_t sources;
        g::splitmix64 rng(seed + 1);
        for (int i = 0; i < 100; ++i) sources.push_back(static_cast<std::uint32_t>(g::uniform_below(rng, gr.node_count())));
        const auto expected = ref::bfs_findings(gr, sources, 4);
        for (const bfs_variant v : variants)
            for (const std::uint32_t groups : {0u, 1u, 3u, 17u, 64u})
                for (const std::uint32_t batch : {0u, 32u, 64u})
                    for (const auto direction : {og::bitset_direction::automatic, og::bitset_direction::push, og::bitset_direction::pull})
                        BOOST_TEST_CONTEXT("variant " << v << ", min_workgroups " << groups << ", max_batch_sources " << batch
                                                      << ", direction " << static_cast<int>(direction)) {
                            og::bfs_options o = with(v, 4);
                            o.min_workgroups = groups;
                            o.max_batch_sources = batch;
                            o.direction = direction;
                            const auto r = og::bfs(dev.ctx(), gr, sources, o);
                            BOOST_TEST(r.findings == expected);
                            if (v == bfs_variant::bitset) {
                                BOOST_TEST(r.batches == (batch == 0 ? 1u : (100u + batch - 1) / batch));
                                if (direction == og::bitset_direction::push) BOOST_TEST(r.pull_levels == 0u);
                                if (direction == og::bitset_direction::pull) BOOST_TEST(r.push_levels == 0u);
                            }
                        }
    }
}

// ---- seeded random graphs against the CPU references --------------------------------------------

void random_labels(g::csr_graph& gr, g::splitmix64& rng) {
    for (auto& label : gr.node_data) {
        const auto r = g::uniform_below(rng, 100);
        label = r < 15 ? g::make_label(role::sink, static_cast<std::uint32_t>(rng())) : r < 19 ? g::make_label(role::sanitizer)
              : r < 22 ? g::make_label(role::source_and_sink) : r < 25 ? g::make_label(role::source)
              : r < 27 ? static_cast<std::uint32_t>(rng()) | (200u << g::role_shift) : 0u;
    }
}

void random_graph_cases(vyre::test::device_case& dev, bool rmat) {
    const auto seed = vyre::test::test_seed();
    for (std::uint64_t k = 0; k < 6; ++k) {
        g::splitmix64 rng(seed * 31 + k + (rmat ? 1000 : 0));
        g::csr_graph gr = rmat ? g::rmat(6 + static_cast<std::uint32_t>(k % 4), 4 + static_cast<std::uint32_t>(k), seed + k)
                               : g::erdos_renyi(50 + static_cast<std::uint32_t>(g::uniform_below(rng, 400)),
                                                static_cast<std::uint64_t>(100 + g::uniform_below(rng, 1500)), seed + k);
        random_labels(gr, rng);
        sources_t sources(1 + g::uniform_below(rng, 90));
        for (auto& s : sources) s = static_cast<std::uint32_t>(g::uniform_below(rng, gr.node_count()));
        const std::uint32_t depths[] = {0, 1, 2, 3, 5, unbounded};
        const std::uint32_t depth = depths[k % 6];
        BOOST_TEST_CONTEXT("VYRE_TEST_SEED=" << seed << ", case " << k << ": " << gr.node_count() << " nodes, "
                                             << gr.edge_count() << " edges, " << sources.size() << " sources, max_depth "
                                             << depth) {
            check_both(dev, gr, sources, depth);
            og::bfs_options o = with(bfs_variant::bitset, depth);
            o.max_batch_sources = 32;
            o.direction = k % 2 ? og::bitset_direction::push : og::bitset_direction::pull;
            gpu_findings(dev, gr, sources, o);
            gpu_reached(dev, gr, sources, o);
        }
    }
}

VYRE_DEVICE_TEST(random_rmat_graphs_match_the_reference) { random_graph_cases(dev, true); }
VYRE_DEVICE_TEST(random_erdos_renyi_graphs_match_the_reference) { random_graph_cases(dev, false); }

VYRE_DEVICE_TEST(automatic_variant_is_exact) {
    const g::csr_graph gr = labelled_rmat(9, 8, vyre::test::test_seed());
    const sources_t few{1, 2, 3}, many(300, 5);
    BOOST_TEST(og::choose_variant(gr, few.size(), unbounded) == bfs_variant::bounded_queue); // 512 nodes: no level can overflow
    BOOST_TEST(og::choose_variant(gr, many.size(), unbounded) == bfs_variant::bitset);
    for (const auto* s : {&few, &many}) {
        const auto r = og::bfs(dev.ctx(), gr, *s);
        BOOST_TEST(r.findings == ref::bfs_findings(gr, *s, unbounded));
        BOOST_TEST(r.variant == og::choose_variant(gr, s->size(), unbounded));
    }
}

// ---- the IR programs on the reference interpreter (the semantics, without a device) --------------

std::vector<std::uint8_t> bytes_of(std::span<const std::uint32_t> words) {
    std::vector<std::uint8_t> b(words.size_bytes());
    if (!b.empty()) std::memcpy(b.data(), words.data(), b.size());
    return b;
}
std::vector<std::uint32_t> words_of(const std::vector<std::uint8_t>& b) {
    std::vector<std::uint32_t> w(b.size() / 4);
    if (!w.empty()) std::memcpy(w.data(), b.data(), b.size());
    return w;
}
std::vector<finding> records_of(const std::vector<std::uint8_t>& findings, std::uint32_t count) {
    std::vector<finding> out(count);
    if (count) std::memcpy(out.data(), findings.data(), count * sizeof(finding));
    g::sort_canonical(out);
    return out;
}

BOOST_AUTO_TEST_CASE(bounded_program_on_the_interpreter) {
    g::splitmix64 rng(vyre::test::test_seed());
    g::csr_graph gr = g::erdos_renyi(70, 300, vyre::test::test_seed());
    random_labels(gr, rng);
    const sources_t sources{0, 3, 3, 69, 12};
    for (const auto mode : {og::report_mode::findings, og::report_mode::reached}) {
        const std::uint32_t n = gr.node_count(), s = static_cast<std::uint32_t>(sources.size()), wps = (n + 31) / 32, cap = 1000;
        const std::uint32_t params[] = {s, n, cap, 3, wps};
        std::vector<ref::buffer_data> b(10);
        b[0] = bytes_of(gr.node_data);
        b[1] = bytes_of(gr.offsets);
        b[2] = bytes_of(gr.targets);
        b[3] = bytes_of(sources);
        b[4].assign(cap * 16, 0);
        b[5].assign(4, 0);
        b[6] = bytes_of(params);
        b[7].assign(s * wps * 4, 0);
        b[8].assign(4, 0);
        b[9].assign(s * 2 * og::max_bfs_queue * 4, 0);
        ref::run(mode == og::report_mode::findings ? og::bfs_program() : og::reachability_program(), {2, 1, 1}, b);
        const auto got = records_of(b[4], words_of(b[5])[0]);
        BOOST_TEST(words_of(b[8])[0] == 0u);
        if (mode == og::report_mode::findings) {
            BOOST_TEST(got == ref::bfs_findings(gr, sources, 3), boost::test_tools::per_element());
        } else {
            const auto expected = ref::reachable_nodes(gr, sources, 3);
            std::vector<reach> r;
            for (const auto& f : got) r.push_back({f.source, f.sink, f.depth});
            BOOST_TEST(r == expected, boost::test_tools::per_element());
        }
    }
}

// The host loop of run_bitset, on the interpreter: levels alternate push and pull (or stay with one).
std::vector<finding> bitset_on_interpreter(const g::csr_graph& gr, const sources_t& sources, og::bitset_direction direction) {
    namespace b = og::bitset_binding;
    const auto rev = og::detail::reverse_without_sanitizers(gr);
    const std::uint32_t n = gr.node_count(), lanes = static_cast<std::uint32_t>(sources.size()), words = (lanes + 31) / 32;
    const std::uint32_t cap = 100000, entries = n * words;
    std::vector<ref::buffer_data> buf(15);
    buf[b::node_labels] = bytes_of(gr.node_data);
    buf[b::edge_offsets] = bytes_of(gr.offsets);
    buf[b::edge_targets] = bytes_of(gr.targets);
    buf[b::source_nodes] = bytes_of(sources);
    buf[b::in_offsets] = bytes_of(rev.offsets);
    buf[b::in_sources] = bytes_of(rev.sources);
    buf[b::findings].assign(std::size_t{cap} * 16, 0);
    buf[b::finding_count].assign(4, 0);
    for (auto at : {b::visited, b::frontier, b::next, b::list, b::next_list}) buf[at].assign(entries * 4, 0);
    buf[b::next_count].assign(4, 0);
    std::uint32_t params[og::bitset_param_words] = {lanes, n, cap, 0, words, 0, 0, entries, 0, entries};
    buf[b::params] = bytes_of(params);
    ref::run(og::bitset_init_program(), {1, 1, 1}, buf);
    for (std::uint32_t depth = 1;; ++depth) {
        const std::uint32_t count = words_of(buf[b::next_count])[0];
        if (count == 0) break;
        std::swap(buf[b::list], buf[b::next_list]);
        const bool push = direction == og::bitset_direction::push || (direction == og::bitset_direction::automatic && depth % 2 == 1);
        params[og::bitset_param::depth] = depth;
        params[og::bitset_param::list_count] = count;
        buf[b::params] = bytes_of(params);
        buf[b::next_count].assign(4, 0);
        if (push) std::fill(buf[b::next].begin(), buf[b::next].end(), 0); // the host's zero_fill when `next` is stale
        ref::run(push ? og::bitset_push_program() : og::bitset_pull_program(),
                 {((push ? count : entries) + og::bitset_workgroup - 1) / og::bitset_workgroup, 1, 1}, buf);
        std::swap(buf[b::frontier], buf[b::next]);
    }
    return records_of(buf[b::findings], words_of(buf[b::finding_count])[0]);
}

BOOST_AUTO_TEST_CASE(bitset_programs_on_the_interpreter) {
    g::splitmix64 rng(vyre::test::test_seed() + 7);
    g::csr_graph gr = g::rmat(6, 5, vyre::test::test_seed());
    random_labels(gr, rng);
    sources_t sources(45);
    for (auto& s : sources) s = static_cast<std::uint32_t>(g::uniform_below(rng, gr.node_count()));
    const auto expected = ref::bfs_findings(gr, sources, unbounded);
    for (const auto direction : {og::bitset_direction::push, og::bitset_direction::pull, og::bitset_direction::automatic})
        BOOST_TEST(bitset_on_interpreter(gr, sources, direction) == expected, boost::test_tools::per_element());
}

} // namespace

VYRE_TEST_MAIN
