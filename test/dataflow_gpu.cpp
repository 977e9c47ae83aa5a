// engine::dataflow on every device: the seed's archetypes against the single-source CPU reference
// and against graph.bfs / graph.reachability; sanitizers; max_depth cut-offs; transfer functions
// (allow_all, block_sanitizers, edge_kind_mask, and a custom one that filters sources: a
// transformed fact word); seeded random graphs with batches and both directions; hubs split into
// chunks both ways with 1 to 47 words of sources; the per-level trace against the reference's
// frontiers; the automatic direction's rule; determinism over 100 runs; every validation error;
// the taint rules (TOML) and their errors; the example.
#include "harness.hpp"

#include <vyre/engine/dataflow.hpp>
#include <vyre/engine/taint_rules.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/graph/io.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/ops/graph/reachability.hpp>
#include <vyre/reference/dataflow.hpp>
#include <vyre/util/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <ostream>
#include <string>
#include <vector>

namespace vyre::graph {
std::ostream& operator<<(std::ostream& os, const finding& f) {
    return os << "(" << f.source << ", " << f.sink << ", " << f.depth << ", " << f.source_idx << ")";
}
std::ostream& operator<<(std::ostream& os, role r) { return os << to_string(r); }
} // namespace vyre::graph

namespace {

namespace g = vyre::graph;
namespace en = vyre::engine;
namespace og = vyre::ops::graph;
namespace ref = vyre::reference;
using g::finding;
using g::role;
using sources_t = std::vector<std::uint32_t>;
using kinds_t = std::vector<std::uint32_t>;
constexpr std::uint32_t unbounded = en::unlimited_depth;

void set_role(g::csr_graph& gr, std::uint32_t node, role r) { gr.node_data[node] = g::make_label(r); }

en::dataflow_options depth_opt(std::uint32_t max_depth) {
    en::dataflow_options o;
    o.max_depth = max_depth;
    return o;
}

// Runs the engine (every direction) and checks it against the single-source reference; returns
// the findings.
std::vector<finding> check(vyre::test::device_case& dev, const g::csr_graph& gr, const kinds_t& kinds,
                           const sources_t& sources, const en::transfer_function& t, en::dataflow_options o = {}) {
    const auto expected = ref::dataflow_findings(gr, kinds, sources, o.max_depth, t.host, o.params);
    en::dataflow engine(dev.ctx(), gr, kinds, t);
    std::vector<finding> out;
    for (const auto dir : {en::dataflow_direction::automatic, en::dataflow_direction::push, en::dataflow_direction::pull}) {
        BOOST_TEST_CONTEXT("transfer " << t.name << ", direction " << int(dir) << ", max_depth " << o.max_depth) {
            o.direction = dir;
            const auto r = engine.run(sources, o);
            BOOST_TEST(r.total_found == expected.size());
            BOOST_TEST(r.findings == expected, boost::test_tools::per_element());
            out = r.findings;
        }
    }
    return out;
}

std::vector<finding> check(vyre::test::device_case& dev, const g::csr_graph& gr, const sources_t& sources,
                           std::uint32_t max_depth = unbounded) {
    return check(dev, gr, {}, sources, en::transfers::block_sanitizers(), depth_opt(max_depth));
}

// ---- archetypes, and parity with graph.bfs ---------------------------------------------------------

VYRE_DEVICE_TEST(archetypes_match_reference_and_graph_bfs) {
    std::vector<std::pair<std::string, g::csr_graph>> cases;
    cases.emplace_back("empty", g::csr_graph{});
    cases.emplace_back("self_loop", g::cycle(1));
    cases.emplace_back("complete", g::complete(9));
    cases.emplace_back("chain", g::chain(40));
    cases.emplace_back("star", g::star(50));
    cases.emplace_back("binary_tree", g::binary_tree(63));
    cases.emplace_back("diamond", g::diamond());
    cases.emplace_back("cycle", g::cycle(12));
    const g::csr_graph parts[] = {g::chain(6), g::cycle(5), g::star(7)};
    cases.emplace_back("disconnected", g::disjoint_union(parts));
    for (auto& [name, gr] : cases)
        BOOST_TEST_CONTEXT("archetype " << name) {
            sources_t sources;
            for (std::uint32_t v = 0; v < gr.node_count(); ++v) {
                if (v % 3 == 0) sources.push_back(v);
                if (v % 4 == 1) set_role(gr, v, role::sink);
                if (v % 7 == 6) set_role(gr, v, role::source_and_sink);
            }
            for (const std::uint32_t depth : {unbounded, 0u, 1u, 3u}) {
                const auto f = check(dev, gr, sources, depth);
                og::bfs_options bo;
                bo.max_depth = depth;
                bo.variant = og::bfs_variant::bitset;
                BOOST_TEST(og::bfs(dev.ctx(), gr, sources, bo).findings == f, boost::test_tools::per_element());
            }
        }
}

VYRE_DEVICE_TEST(archetype_expectations) {
    g::csr_graph chain = g::chain(40);
    for (std::uint32_t v = 5; v < 40; v += 5) set_role(chain, v, role::sink);
    const auto f = check(dev, chain, {0});
    BOOST_TEST(f.size() == 7u);
    for (const auto& x : f) BOOST_TEST(x.depth == x.sink);
    g::csr_graph loop = g::cycle(1);
    set_role(loop, 0, role::source_and_sink); // the start itself at depth 0, once; the self-loop adds nothing
    BOOST_TEST((check(dev, loop, {0}) == std::vector<finding>{{0, 0, 0, 0}}));
    g::csr_graph diamond = g::diamond();
    set_role(diamond, 3, role::sink);
    BOOST_TEST((check(dev, diamond, {0}) == std::vector<finding>{{0, 3, 2, 0}})); // shortest depth, once
}

// Every node source+sink and allow_all: the findings are graph.reachability's records.
VYRE_DEVICE_TEST(parity_with_graph_reachability) {
    g::csr_graph gr = g::rmat(9, 4, 77);
    for (auto& label : gr.node_data) label = g::make_label(role::source_and_sink);
    sources_t sources;
    for (std::uint32_t v = 0; v < gr.node_count(); v += 7) sources.push_back(v);
    for (const std::uint32_t depth : {unbounded, 2u}) {
        og::bfs_options bo;
        bo.max_depth = depth;
        const auto reach = og::reachability(dev.ctx(), gr, sources, bo).reached;
        const auto f = check(dev, gr, {}, sources, en::transfers::allow_all(), depth_opt(depth));
        BOOST_TEST_REQUIRE(f.size() == reach.size());
        for (std::size_t i = 0; i < f.size(); ++i)
            BOOST_TEST((f[i].source == reach[i].source && f[i].sink == reach[i].node && f[i].depth == reach[i].depth));
    }
}

// ---- sanitizers and depth --------------------------------------------------------------------------

VYRE_DEVICE_TEST(sanitizers_block_only_with_a_blocking_transfer) {
    // 0 -> 1 (sanitizer) -> 2 (sink); 0 -> 3 -> 4 -> 5 (sink); 1 -> 5
    const g::edge edges[] = {{0, 1}, {1, 2}, {0, 3}, {3, 4}, {4, 5}, {1, 5}};
    g::csr_graph gr = g::to_csr(6, edges);
    set_role(gr, 1, role::sanitizer);
    set_role(gr, 2, role::sink);
    set_role(gr, 5, role::sink);
    // Sanitizer on the only path to 2; on one of the two paths to 5 (found via the other, deeper).
    BOOST_TEST((check(dev, gr, {0}) == std::vector<finding>{{0, 5, 3, 0}}));
    const auto open = check(dev, gr, {}, {0}, en::transfers::allow_all());
    BOOST_TEST((open == std::vector<finding>{{0, 2, 2, 0}, {0, 5, 2, 0}}));
    BOOST_TEST(check(dev, gr, {1}).empty()); // a sanitizer start does not propagate
    set_role(gr, 4, role::sanitizer);
    BOOST_TEST(check(dev, gr, {0}).empty());
}

VYRE_DEVICE_TEST(max_depth_cuts_off) {
    g::csr_graph gr = g::chain(20);
    set_role(gr, 19, role::sink);
    set_role(gr, 10, role::sink);
    en::dataflow engine(dev.ctx(), gr);
    for (std::uint32_t d = 0; d < 22; ++d) {
        const auto r = engine.run(sources_t{0}, depth_opt(d));
        BOOST_TEST(r.findings.size() == (d >= 19 ? 2u : d >= 10 ? 1u : 0u));
        // Node 19 still has to be expanded (it has no out-edges, but only level 20 can tell): the
        // fixpoint is confirmed from max_depth 20 on.
        BOOST_TEST(r.converged == (d >= 20));
        BOOST_TEST(r.levels == std::min(d, 20u));
    }
}

// ---- transfer functions ------------------------------------------------------------------------------

g::csr_graph random_graph(std::uint64_t seed, std::uint32_t scale, std::uint32_t factor) {
    g::csr_graph gr = g::rmat(scale, factor, seed);
    g::splitmix64 rng(seed * 31 + 1);
    for (auto& label : gr.node_data) {
        const auto r = g::uniform_below(rng, 20);
        label = r == 0 ? g::make_label(role::sanitizer, 0x1234) : r < 4 ? g::make_label(role::sink) : r == 4 ? g::make_label(role::source_and_sink) : 0;
    }
    return gr;
}

kinds_t random_kinds(const g::csr_graph& gr, std::uint64_t seed, std::uint32_t kinds) {
    g::splitmix64 rng(seed);
    kinds_t out(gr.edge_count());
    for (auto& k : out) k = static_cast<std::uint32_t>(g::uniform_below(rng, kinds));
    return out;
}

sources_t random_sources(const g::csr_graph& gr, std::uint64_t seed, std::size_t count) {
    g::splitmix64 rng(seed);
    sources_t out(count);
    for (auto& s : out) s = static_cast<std::uint32_t>(g::uniform_below(rng, gr.node_count()));
    return out;
}

// A transformed fact word: sources with odd source_idx never cross edges of kind 1, and sources
// whose source_idx is at least p2 never leave a node whose id is a multiple of 5.
const en::transfer_function& odd_sources_filtered() {
    static const en::transfer_function t = en::make_transfer(
        "test_odd_filter", "test: odd source_idx blocked on kind 1; source_idx >= p2 blocked at multiples of 5",
        [](auto lanes, auto lane_base, auto from, auto, auto, auto, auto kind, auto, auto, auto p2, auto) {
            namespace d = vyre::dsl;
            const auto by_kind = d::select(kind == 1u, 0x55555555u, 0xFFFFFFFFu);
            // Lane l is source_idx lane_base + l: lanes at or above p2 - lane_base are blocked here.
            const auto first_blocked = d::select(p2 <= lane_base, 0u, d::min(p2 - lane_base, 32u));
            const auto low = d::select(first_blocked == 32u, 0xFFFFFFFFu, (1u << first_blocked) - 1u);
            const auto by_node = d::select(from % 5u == 0u, low, 0xFFFFFFFFu);
            return lanes & by_kind & by_node;
        },
        [](std::uint32_t lanes, const ref::edge_view& e) {
            std::uint32_t keep = 0;
            for (std::uint32_t l = 0; l < 32; ++l) {
                const std::uint32_t idx = e.lane_base + l;
                const bool blocked = (e.kind == 1 && idx % 2 == 1) || (e.from % 5 == 0 && idx >= e.params[2]);
                if (!blocked) keep |= 1u << l;
            }
            return lanes & keep;
        });
    return t;
}

VYRE_DEVICE_TEST(transfer_functions_on_random_graphs) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        for (std::uint64_t round = 0; round < 2; ++round) {
            const g::csr_graph gr = random_graph(seed + round, 8, 6);
            const kinds_t kinds = random_kinds(gr, seed + 11 * round, 4);
            const sources_t sources = random_sources(gr, seed + 7 * round, 70);
            en::dataflow_options o;
            for (const auto* t : en::transfers::builtin()) check(dev, gr, kinds, sources, *t, o);
            o.params = {0b0101, 1, 0, 0}; // edge_kind_mask: kinds 0 and 2, sanitizers block
            const auto masked = check(dev, gr, kinds, sources, en::transfers::edge_kind_mask(), o);
            o.params = {0, 0, 40, 0};
            const auto filtered = check(dev, gr, kinds, sources, odd_sources_filtered(), o);
            const auto open = check(dev, gr, kinds, sources, en::transfers::allow_all(), o);
            BOOST_TEST(filtered.size() < open.size()); // the filter really removed facts
            o.max_depth = 2;
            check(dev, gr, kinds, sources, odd_sources_filtered(), o);
            o.params = {0xFFFFFFFFu, 0, 0, 0}; // every kind, sanitizers do not block: allow_all
            BOOST_TEST(check(dev, gr, kinds, sources, en::transfers::edge_kind_mask(), o) ==
                       ref::dataflow_findings(gr, kinds, sources, 2, en::transfers::allow_all_host{}));
        }
    }
}

VYRE_DEVICE_TEST(batches_give_the_same_findings) {
    const g::csr_graph gr = random_graph(vyre::test::test_seed() + 5, 9, 4);
    const kinds_t kinds = random_kinds(gr, 3, 3);
    const sources_t sources = random_sources(gr, 9, 200);
    en::dataflow engine(dev.ctx(), gr, kinds, odd_sources_filtered());
    en::dataflow_options o;
    o.params = {0, 0, 100, 0};
    const auto expected = ref::dataflow_findings(gr, kinds, sources, unbounded, odd_sources_filtered().host, o.params);
    const auto whole = engine.run(sources, o);
    BOOST_TEST(whole.batches == 1u);
    BOOST_TEST(whole.findings == expected, boost::test_tools::per_element());
    o.max_batch_sources = 64;
    const auto batched = engine.run(sources, o);
    BOOST_TEST(batched.batches == 4u);
    BOOST_TEST(batched.findings == expected, boost::test_tools::per_element());
    // A memory budget that holds the graph and two words of sources per batch.
    o.max_batch_sources = 0;
    const auto p2 = engine.plan(sources.size(), o);
    o.memory_budget = p2.fixed_bytes + en::dataflow_batch_bytes(gr.node_count(), 2);
    const auto budgeted = engine.run(sources, o);
    BOOST_TEST(engine.plan(sources.size(), o).batch_words == 2u);
    BOOST_TEST(budgeted.batches == 4u);
    BOOST_TEST(budgeted.findings == expected, boost::test_tools::per_element());
    o.min_workgroups = 7;
    BOOST_TEST(engine.run(sources, o).findings == expected, boost::test_tools::per_element());
}

// ---- hubs, word counts, directions, the trace ------------------------------------------------------

// A graph whose hubs need chunks both ways: node 0 pushes to 1..700 (3 chunks of out-edges), each
// of them to node 701 (700 in-edges: 3 pull tasks), which pushes to 702..1500 (4 chunks); a ring
// over 702..1500 gives those nodes in-edges from the frontier too. Sanitizers among 1..700 and
// sinks everywhere.
g::csr_graph double_star() {
    std::vector<g::edge> edges;
    for (std::uint32_t i = 1; i <= 700; ++i) edges.push_back({0, i}), edges.push_back({i, 701});
    for (std::uint32_t j = 702; j <= 1500; ++j) edges.push_back({701, j}), edges.push_back({j, j == 1500 ? 702 : j + 1});
    g::csr_graph gr = g::to_csr(1501, edges);
    for (std::uint32_t v = 1; v <= 1500; ++v)
        if (v % 97 == 5) set_role(gr, v, role::sanitizer);
        else if (v % 7 == 3) set_role(gr, v, role::sink);
        else if (v % 13 == 4) set_role(gr, v, role::source_and_sink);
    return gr;
}

// The degrees every path of the programs depends on, so the tests below can fail for the right reason.
std::uint32_t max_out_degree(const g::csr_graph& gr) {
    std::uint32_t d = 0;
    for (std::uint32_t u = 0; u < gr.node_count(); ++u) d = std::max(d, gr.offsets[u + 1] - gr.offsets[u]);
    return d;
}
std::uint32_t max_in_degree(const g::csr_graph& gr) {
    std::vector<std::uint32_t> in(gr.node_count(), 0);
    for (const std::uint32_t v : gr.targets) ++in[v];
    return gr.node_count() == 0 ? 0 : *std::max_element(in.begin(), in.end());
}

// W = 1, 2, 32, 33 and 47 words (groups of 1, 2 and 32 lanes; a group walking two words per lane),
// on graphs whose hubs have more than dataflow_edge_chunk edges each way: every direction against
// the single-source reference.
VYRE_DEVICE_TEST(hubs_and_word_counts_match_reference) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        std::vector<std::pair<std::string, g::csr_graph>> graphs;
        graphs.emplace_back("double_star", double_star());
        graphs.emplace_back("rmat_10", random_graph(seed + 3, 10, 16));
        for (const auto& [name, gr] : graphs)
            BOOST_TEST_CONTEXT("graph " << name) {
                BOOST_TEST_REQUIRE(max_out_degree(gr) > en::dataflow_edge_chunk);
                BOOST_TEST_REQUIRE(max_in_degree(gr) > en::dataflow_edge_chunk);
                for (const std::size_t count : {1u, 40u, 1000u, 1040u, 1500u})
                    BOOST_TEST_CONTEXT(count << " sources") {
                        sources_t sources = random_sources(gr, seed + count, count);
                        sources[0] = 0; // the hub itself starts
                        check(dev, gr, sources, unbounded);
                        if (count == 1040) check(dev, gr, sources, 2);
                    }
            }
        // Transfer functions on the hubs: kinds, a filter of source lanes.
        const g::csr_graph gr = double_star();
        const kinds_t kinds = random_kinds(gr, seed + 5, 3);
        const sources_t sources = random_sources(gr, seed + 6, 100);
        en::dataflow_options o;
        o.params = {0b101, 1, 50, 0};
        check(dev, gr, kinds, sources, en::transfers::edge_kind_mask(), o);
        check(dev, gr, kinds, sources, odd_sources_filtered(), o);
    }
}

// The frontier of every level, from the single-source reference: nodes some source first reaches
// at depth d - 1 (so expanded at level d), and their out-edges and work-list entries.
struct level_frontier {
    std::uint64_t nodes = 0, edges = 0, entries = 0;
};
std::vector<level_frontier> expected_frontiers(const g::csr_graph& gr, const sources_t& sources) {
    std::vector<std::vector<bool>> at_depth;
    for (const std::uint32_t s : sources) {
        std::vector<std::uint32_t> depth(gr.node_count(), unbounded);
        std::vector<std::uint32_t> queue{s};
        depth[s] = 0;
        for (std::size_t i = 0; i < queue.size(); ++i) {
            const std::uint32_t u = queue[i];
            if (at_depth.size() <= depth[u]) at_depth.resize(depth[u] + 1, std::vector<bool>(gr.node_count(), false));
            at_depth[depth[u]][u] = true;
            if (g::is_sanitizer(gr.node_data[u])) continue; // block_sanitizers
            for (const std::uint32_t v : gr.neighbors(u))
                if (depth[v] == unbounded) depth[v] = depth[u] + 1, queue.push_back(v);
        }
    }
    std::vector<level_frontier> out;
    for (const auto& nodes : at_depth) {
        level_frontier f;
        for (std::uint32_t u = 0; u < gr.node_count(); ++u)
            if (nodes[u]) {
                const std::uint32_t d = gr.offsets[u + 1] - gr.offsets[u];
                ++f.nodes;
                f.edges += d;
                f.entries += std::max<std::uint32_t>(1, (d + en::dataflow_edge_chunk - 1) / en::dataflow_edge_chunk);
            }
        out.push_back(f);
    }
    return out;
}

VYRE_DEVICE_TEST(trace_is_filled_and_consistent) {
    const g::csr_graph gr = double_star();
    const sources_t sources = random_sources(gr, 17, 70);
    const auto frontiers = expected_frontiers(gr, sources);
    en::dataflow engine(dev.ctx(), gr);
    en::dataflow_options o;
    BOOST_TEST(engine.run(sources, o).trace.empty()); // only when asked for
    o.trace = true;
    std::vector<en::dataflow_level_trace> push_trace;
    for (const auto dir : {en::dataflow_direction::push, en::dataflow_direction::pull, en::dataflow_direction::automatic})
        BOOST_TEST_CONTEXT("direction " << en::dataflow_direction_name(dir)) {
            o.direction = dir;
            const auto r = engine.run(sources, o);
            BOOST_TEST_REQUIRE(r.trace.size() == r.levels); // one batch
            BOOST_TEST(r.trace.size() == r.push_levels + r.pull_levels);
            // The last level expands the deepest frontier and lists nothing.
            BOOST_TEST_REQUIRE(r.trace.size() == frontiers.size());
            for (std::size_t i = 0; i < r.trace.size(); ++i)
                BOOST_TEST_CONTEXT("level " << i + 1) {
                    const auto& t = r.trace[i];
                    BOOST_TEST(t.batch == 0u);
                    BOOST_TEST(t.depth == i + 1);
                    if (dir != en::dataflow_direction::automatic) BOOST_TEST((t.direction == dir));
                    else BOOST_TEST((t.direction != en::dataflow_direction::automatic));
                    BOOST_TEST(t.nodes == frontiers[i].nodes);
                    BOOST_TEST(t.frontier_edges == frontiers[i].edges);
                    BOOST_TEST(t.entries == frontiers[i].entries);
                    BOOST_TEST(t.seconds >= 0.0);
                    BOOST_TEST(t.clear_seconds >= 0.0);
                }
            if (dev.ctx().profiling()) BOOST_TEST(r.kernel_seconds > 0.0);
        }
    // Batches: one record per level of every batch, batch by batch.
    o.direction = en::dataflow_direction::automatic;
    o.max_batch_sources = 32;
    const auto r = engine.run(sources, o);
    BOOST_TEST(r.batches == 3u);
    BOOST_TEST_REQUIRE(!r.trace.empty());
    BOOST_TEST(r.trace.front().batch == 0u);
    BOOST_TEST(r.trace.back().batch == 2u);
    for (std::size_t i = 1; i < r.trace.size(); ++i)
        BOOST_TEST((r.trace[i].batch == r.trace[i - 1].batch ? r.trace[i].depth == r.trace[i - 1].depth + 1
                                                              : r.trace[i].batch == r.trace[i - 1].batch + 1 && r.trace[i].depth == 1u));
}

// The automatic direction's rule (engine/dataflow.hpp gives the measurements behind it).
BOOST_AUTO_TEST_CASE(automatic_direction_rule) {
    using en::dataflow_direction;
    const std::uint64_t n = 1000, e = 16000;
    const auto pays = [&](std::uint64_t edges, std::uint64_t nodes, std::uint64_t previous, std::uint64_t words,
                          dataflow_direction d = dataflow_direction::automatic) {
        return en::dataflow_push_pays(edges, nodes, previous, n, e, words, d);
    };
    BOOST_TEST(pays(1000, 100, 10, 32));     // a small frontier is pushed
    BOOST_TEST(pays(10000, 500, 100, 32));   // a large one still growing on wide rows too
    BOOST_TEST(!pays(10000, 500, 500, 32));  // but pulled once it stops growing
    BOOST_TEST(!pays(10000, 500, 100, 2));   // and pulled on narrow rows, growing or not
    BOOST_TEST(!pays(1000, 100, 10, 32, dataflow_direction::pull));
    BOOST_TEST(pays(10000, 500, 500, 2, dataflow_direction::push));
}

VYRE_DEVICE_TEST(deterministic_over_100_runs) {
    const g::csr_graph gr = random_graph(99, 7, 8);
    const sources_t sources = random_sources(gr, 4, 90);
    en::dataflow engine(dev.ctx(), gr);
    const auto first = engine.run(sources);
    BOOST_TEST(!first.findings.empty());
    for (int run = 0; run < 100; ++run) {
        const auto again = engine.run(sources);
        if (again.findings != first.findings || again.total_found != first.total_found) {
            BOOST_ERROR("run " << run << " differs");
            break;
        }
    }
    // Hubs walked in chunks by many groups at once, in both directions: the atomics and stamps
    // decide who reports what, never what is reported.
    const g::csr_graph hubs = double_star();
    const sources_t many = random_sources(hubs, 8, 1100);
    en::dataflow hub_engine(dev.ctx(), hubs);
    const auto expected = ref::dataflow_findings(hubs, {}, many, unbounded, en::transfers::block_sanitizers_host{});
    for (const auto dir : {en::dataflow_direction::push, en::dataflow_direction::pull})
        for (int run = 0; run < 10; ++run) {
            en::dataflow_options o;
            o.direction = dir;
            if (hub_engine.run(many, o).findings != expected) {
                BOOST_ERROR("direction " << en::dataflow_direction_name(dir) << ", run " << run << " differs");
                break;
            }
        }
}

// ---- validation --------------------------------------------------------------------------------------

template <class E, class F>
void expect_error(F f, const std::string& needle) {
    try {
        f();
        BOOST_ERROR("no error; expected one mentioning '" << needle << "'");
    } catch (const E& e) {
        BOOST_TEST_CONTEXT("message: " << e.what()) { BOOST_TEST(std::string(e.what()).find(needle) != std::string::npos); }
    }
}

VYRE_DEVICE_TEST(every_validation_error) {
    auto& ctx = dev.ctx();
    g::csr_graph bad = g::chain(4);
    bad.offsets[2] = 9;
    expect_error<vyre::validation_error>([&] { en::dataflow(ctx, bad); }, "offsets[2] = 9");
    bad = g::chain(4);
    bad.targets[1] = 17;
    expect_error<vyre::validation_error>([&] { en::dataflow(ctx, bad); }, "targets[1] = 17");
    const g::csr_graph gr = g::chain(4);
    expect_error<vyre::validation_error>([&] { en::dataflow(ctx, gr, kinds_t{1, 2}); }, "edge_kinds has 2 entries");
    en::dataflow engine(ctx, gr);
    expect_error<vyre::validation_error>([&] { engine.run(sources_t{0, 4}); }, "sources[1] = 4");
    // source_count x node_count overflow, checked before anything is sized.
    expect_error<vyre::validation_error>(
        [&] { en::plan_dataflow(ctx.device(), 0xFFFFFFFFull, 0, false, std::uint64_t{1} << 33, 0, {}); }, "overflows 64 bits");
    // Output capacity: more findings than max_findings.
    g::csr_graph sinks = g::star(10);
    for (std::uint32_t v = 1; v < 10; ++v) set_role(sinks, v, role::sink);
    en::dataflow star(ctx, sinks);
    en::dataflow_options o;
    o.max_findings = 5;
    expect_error<vyre::resource_error>([&] { star.run(sources_t{0}, o); }, "9 findings exceed the output capacity max_findings = 5");
    o.truncate = true;
    const auto cut = star.run(sources_t{0}, o);
    BOOST_TEST(cut.total_found == 9u);
    BOOST_TEST(cut.findings.size() == 5u);
    // A findings buffer above the device's largest buffer.
    o.max_findings = 0xFFFFFFFFu;
    expect_error<og::graph_resource_error>([&] { star.run(sources_t{0}, o); }, "max_findings (4294967295)");
    // Resources above the device's limits (a budget standing in for a small device).
    o = {};
    o.max_findings = 1;
    o.memory_budget = 64;
    expect_error<og::graph_resource_error>([&] { star.run(sources_t{0}, o); }, "above 64 bytes");
    try {
        star.run(sources_t{0}, o);
    } catch (const og::graph_resource_error& e) {
        BOOST_TEST(e.quantity() == "device memory");
        BOOST_TEST(e.limit() == 64u);
        BOOST_TEST(e.required() > 64u);
    }
    // The graph fits, but not one word of 32 sources beside it.
    o.memory_budget = 0;
    o.memory_budget = star.plan(1, o).fixed_bytes + 8;
    expect_error<og::graph_resource_error>([&] { star.run(sources_t{0}, o); }, "one word of 32 sources");
    expect_error<vyre::validation_error>(
        [&] { en::make_transfer("Bad Name", "", [](auto l, auto, auto, auto, auto, auto, auto, auto, auto, auto, auto) { return l; },
                                en::transfers::allow_all_host{}); },
        "'Bad Name'");
}

// The reverse graph and pull tasks built on the device equal the host builder's: in-edge offsets
// and tasks word for word, each node's in-edges as a set of (source, kind) pairs (their order
// within a node is the order the device's atomics landed in, which nothing depends on).
VYRE_DEVICE_TEST(device_setup_equals_host_builder) {
    auto& ctx = dev.ctx();
    g::csr_graph no_edges;
    no_edges.offsets.assign(6, 0);
    no_edges.node_data.assign(5, 0);
    const g::csr_graph hubs = double_star();
    const g::csr_graph rmat = random_graph(vyre::test::test_seed() + 11, 11, 12);
    const g::csr_graph self_loops = g::to_csr(3, std::vector<g::edge>{{0, 0}, {0, 0}, {1, 1}, {2, 0}, {2, 0}});
    struct case_t {
        const char* name;
        const g::csr_graph* graph;
        kinds_t kinds;
    };
    const g::csr_graph empty;
    const std::vector<case_t> cases = {{"empty", &empty, {}},
                                       {"nodes without edges", &no_edges, {}},
                                       {"multi-edges and self loops, kinds", &self_loops, {3, 4, 5, 6, 7}},
                                       {"hubs (pull tasks)", &hubs, {}},
                                       {"hubs with kinds", &hubs, random_kinds(hubs, 5, 9)},
                                       {"rmat 11", &rmat, random_kinds(rmat, 6, 3)}};
    BOOST_TEST(max_in_degree(hubs) > 2 * en::dataflow_edge_chunk); // several tasks for one node
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            const g::csr_graph& gr = *c.graph;
            const std::uint64_t n = gr.node_count(), e = gr.edge_count();
            en::detail::dataflow_setup_times times;
            const auto d = en::detail::upload_dataflow_graph(ctx, gr, c.kinds, times);
            const auto host = en::detail::build_dataflow_reverse(gr, c.kinds);
            BOOST_TEST(vyre::runtime::download<std::uint32_t>(ctx, d.in_offsets, n + 1) == host.in_offsets,
                       boost::test_tools::per_element());
            BOOST_TEST(d.pull_task_count * 2 == host.pull_tasks.size());
            BOOST_TEST(vyre::runtime::download<std::uint32_t>(ctx, d.pull_tasks, d.pull_task_count * 2) == host.pull_tasks,
                       boost::test_tools::per_element());
            const auto sources = vyre::runtime::download<std::uint32_t>(ctx, d.in_sources, e);
            const auto kinds = vyre::runtime::download<std::uint32_t>(ctx, d.in_kinds, c.kinds.empty() ? 0 : e);
            const auto in_edges = [&](const kinds_t& src, const kinds_t& kd, std::uint32_t v) {
                std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
                for (std::uint32_t j = host.in_offsets[v]; j < host.in_offsets[v + 1]; ++j)
                    out.emplace_back(src[j], kd.empty() ? 0 : kd[j]);
                std::sort(out.begin(), out.end());
                return out;
            };
            std::uint64_t differ = 0;
            for (std::uint32_t v = 0; v < n; ++v)
                if (in_edges(sources, kinds, v) != in_edges(host.in_sources, host.in_kinds, v)) ++differ;
            BOOST_TEST(differ == 0u);
        }
    }
}

// The device's check finds exactly the graphs the host's checker refuses, with the same message:
// seeded single-word corruptions of offsets and targets (in range, past the end, decreasing).
VYRE_DEVICE_TEST(device_check_agrees_with_validate) {
    std::mt19937 rng(vyre::test::test_seed() + 3);
    const g::csr_graph base = random_graph(vyre::test::test_seed() + 12, 6, 4);
    int refused = 0, accepted = 0;
    for (int round = 0; round < 60; ++round) {
        g::csr_graph gr = base;
        const bool in_offsets = round % 2 == 0;
        auto& words = in_offsets ? gr.offsets : gr.targets;
        const std::size_t at = std::uniform_int_distribution<std::size_t>(0, words.size() - 1)(rng);
        const std::uint32_t pick = std::uniform_int_distribution<std::uint32_t>(0, 3)(rng);
        words[at] = pick == 0 ? words[at] + 1 : pick == 1 ? words[at] - 1 : pick == 2 ? 0xFFFFFFFFu
                                                                                      : std::uniform_int_distribution<std::uint32_t>(0, 2 * gr.node_count())(rng);
        std::string want, got;
        try {
            gr.validate();
        } catch (const vyre::validation_error& e) {
            want = e.what();
        }
        try {
            en::dataflow engine(dev.ctx(), gr);
        } catch (const vyre::validation_error& e) {
            got = e.what();
        }
        BOOST_TEST(got == want, "round " << round << " (" << (in_offsets ? "offsets" : "targets") << "[" << at << "])");
        (want.empty() ? accepted : refused) += 1;
    }
    BOOST_TEST(refused > 10); // the rounds test both verdicts
    BOOST_TEST(accepted > 5);
}

BOOST_AUTO_TEST_CASE(level_programs_validate) {
    for (const auto& info : en::dataflow_level_infos()) BOOST_CHECK_NO_THROW(vyre::ir::validate(info.program()));
    BOOST_CHECK_NO_THROW(vyre::ir::validate(en::dataflow_init_program()));
    for (const auto& info : vyre::ops::dataflow::dataflow_setup_infos()) BOOST_CHECK_NO_THROW(vyre::ir::validate(info.program()));
    BOOST_CHECK_NO_THROW(vyre::ir::validate(en::dataflow_push_program(odd_sources_filtered())));
}

// The sizing target: 1M nodes x 10,000 sources on an 80 GB device runs in one batch
// within the 8 GiB launch budget; a 2 GiB device splits it into batches of whole words.
BOOST_AUTO_TEST_CASE(plan_sizes_a_million_nodes_by_ten_thousand_sources) {
    vyre::runtime::device_info big;
    big.global_memory = 80ull << 30;
    big.max_allocation = 20ull << 30;
    const auto p = en::plan_dataflow(big, 1u << 20, 16u << 20, false, 10000, 1024, {});
    BOOST_TEST(p.batches == 1u);
    BOOST_TEST(p.batch_words == 313u);
    BOOST_TEST(p.state_bits == 10000ull << 20);
    BOOST_TEST(p.fixed_bytes + p.batch_bytes <= p.budget);
    vyre::runtime::device_info small = big;
    small.global_memory = 2ull << 30;
    small.max_allocation = 512ull << 20;
    const auto q = en::plan_dataflow(small, 1u << 20, 16u << 20, false, 10000, 1024, {});
    BOOST_TEST(q.batches > 1u);
    BOOST_TEST(q.batch_words * (1u << 20) * 4u <= (512ull << 20)); // each bitmap fits one allocation
    BOOST_TEST(q.fixed_bytes + q.batch_bytes <= q.budget);
}

// ---- rules ------------------------------------------------------------------------------------------

template <class F>
void expect_rules_error(F f, std::uint64_t line, const std::string& key, const std::string& needle) {
    try {
        f();
        BOOST_ERROR("no rules_error; expected one at line " << line << " key '" << key << "'");
    } catch (const en::rules_error& e) {
        BOOST_TEST_CONTEXT("message: " << e.what()) {
            BOOST_TEST(e.file() == "r.toml");
            BOOST_TEST(e.line() == line);
            BOOST_TEST(e.key() == key);
            BOOST_TEST(std::string(e.what()).find("r.toml:" + std::to_string(line)) == 0u);
            BOOST_TEST(std::string(e.what()).find(needle) != std::string::npos);
        }
    }
}

BOOST_AUTO_TEST_CASE(rules_errors_name_file_line_and_key) {
    const auto parse = [](const std::string& text) { return [text] { en::parse_taint_rules(text, "r.toml"); }; };
    expect_rules_error(parse("version = 1\n[sources]\nlabels = [\"a\", 3]\n"), 3, "sources.labels[1]", "expected a string");
    expect_rules_error(parse("[sinks]\nlabel = [\"system\"]\n"), 2, "sinks.label", "unknown key");
    expect_rules_error(parse("\n\nversion = 2\n"), 3, "version", "unsupported");
    expect_rules_error(parse("[transfer]\nfunction = \"magic\"\n"), 2, "transfer.function", "unknown transfer function 'magic'");
    expect_rules_error(parse("[transfer]\nparams = [1, 2]\n"), 2, "transfer.params", "4 integers");
    expect_rules_error(parse("[limits]\nmax_depth = -1\n"), 2, "limits.max_depth", "outside");
    expect_rules_error(parse("[sources]\nlabels = [\"a\",, ]\nversion = 1\n"), 2, "", "TOML syntax");
    expect_rules_error(parse("sources = 3\n"), 1, "sources", "expected a table");
    // Keys inside a table name their own line, not the table header's.
    expect_rules_error(parse("[transfer]\nsanitizers_block = true\n\nedge_kinds = [\"data\"]\n"), 4, "transfer.edge_kinds",
                       "edge_kind_mask");
    expect_rules_error(parse("version = 1\n[transfer]\nfunction = \"edge_kind_mask\"\nparams = [1, 2, 3, 4]\n# p0\n"
                             "edge_kinds = [\"data\"]\n"),
                       6, "transfer.edge_kinds", "not both");
    expect_rules_error(parse("[transfer]\nedge_kinds = [\"data\"]\nfunction = \"edge_kind_mask\"\nparams = [1, 2, 3, 4]\n"), 4,
                       "transfer.params", "not both");
    try {
        en::load_taint_rules("/nonexistent/rules.toml");
        BOOST_ERROR("no error");
    } catch (const en::rules_error& e) {
        BOOST_TEST(e.file() == "/nonexistent/rules.toml");
    }
}

// Inputs on which Debian's toml++ 3.3.0 reached undefined behaviour, an assertion or a stack
// overflow (include/vyre/third_party/toml++/README.md): each must now be a rules_error at line 1.
BOOST_AUTO_TEST_CASE(rules_files_that_crashed_toml_3_3) {
    const auto parse = [](const std::string& text) { return [text] { en::parse_taint_rules(text, "r.toml"); }; };
    expect_rules_error(parse("\xd0\x90"), 1, "", "TOML syntax");         // __builtin_unreachable in the whitespace test
    expect_rules_error(parse("[+"), 1, "", "TOML syntax");               // assertion in parse_key
    std::string dotted = "a";
    for (int i = 0; i < 200000; ++i) dotted += ".a";
    expect_rules_error(parse(dotted + " = 1\n"), 1, "", "TOML syntax");  // recursion as deep as the key
    expect_rules_error(parse("a = " + std::string(100000, '[') + std::string(100000, ']') + "\n"), 1, "", "TOML syntax");
    expect_rules_error(parse("s = [\n}"), 2, "", "TOML syntax"); // assertion in parse_value (found by fuzzing; patched here)
    expect_rules_error(parse("s = [1, }]"), 1, "", "TOML syntax");
}

BOOST_AUTO_TEST_CASE(rules_set_roles_kinds_and_params) {
    const auto lg = g::read_graph_text("vyre-graph 1\nnodes 5\nnode 0 normal getenv_QUERY\nnode 1 normal shell_quote\n"
                                       "node 2 normal system\nnode 3 sink log\nnode 4 normal other\n"
                                       "edge 0 1 data\nedge 1 2 data\nedge 0 3 call\nedge 3 4\n");
    const auto rules = en::parse_taint_rules("[sources]\npatterns = [\"getenv*\"]\n[sinks]\nlabels = [\"system\", \"getenv_QUERY\"]\n"
                                             "[sanitizers]\npatterns = [\"*quote\"]\n"
                                             "[transfer]\nfunction = \"edge_kind_mask\"\nedge_kinds = [\"data\", \"\", \"nope\"]\n",
                                             "r.toml");
    const auto s = en::apply_taint_rules(lg, rules);
    BOOST_TEST(g::role_of(s.graph.node_data[0]) == role::source_and_sink);
    BOOST_TEST(g::role_of(s.graph.node_data[1]) == role::sanitizer);
    BOOST_TEST(g::role_of(s.graph.node_data[2]) == role::sink);
    BOOST_TEST(g::role_of(s.graph.node_data[3]) == role::sink); // from the file
    BOOST_TEST((s.kind_names == std::vector<std::string>{"", "call", "data"}));
    BOOST_TEST((s.edge_kinds == kinds_t{2, 1, 2, 0})); // edges of node 0 first (data, call), then 1, then 3
    BOOST_TEST(s.params[0] == ((1u << 2) | 1u));
    BOOST_TEST(s.params[1] == 1u);
    BOOST_TEST(s.transfer == &en::transfers::edge_kind_mask());
    BOOST_TEST(s.warnings.size() == 1u); // kind 'nope'
    BOOST_TEST(en::glob_match("a*b?c", "axxbyc"));
    BOOST_TEST(!en::glob_match("a*b?c", "axxbc"));
}

// sanitizers_block and params only matter to edge_kind_mask: with another function they are
// accepted with a warning naming the file, line and key.
BOOST_AUTO_TEST_CASE(rules_warn_about_params_other_functions_ignore) {
    const auto r = en::parse_taint_rules("version = 1\n[transfer]\nfunction = \"allow_all\"\n"
                                         "sanitizers_block = false\nparams = [1, 2, 3, 4]\n",
                                         "r.toml");
    BOOST_TEST_REQUIRE(r.warnings.size() == 2u);
    BOOST_TEST_INFO("warnings: " << r.warnings[0] << " | " << r.warnings[1]);
    BOOST_TEST(r.warnings[0].find("r.toml:4: key 'transfer.sanitizers_block': ignored") == 0u);
    BOOST_TEST_INFO("warnings: " << r.warnings[0] << " | " << r.warnings[1]);
    BOOST_TEST(r.warnings[1].find("r.toml:5: key 'transfer.params': ignored") == 0u);
    const auto lg = g::read_graph_text("vyre-graph 1\nnodes 2\nedge 0 1\n");
    const auto s = en::apply_taint_rules(lg, r);
    BOOST_TEST(s.warnings.size() >= 2u); // the CLI prints these
    BOOST_TEST(s.warnings[0] == r.warnings[0]);
    // The default function (block_sanitizers) warns too; edge_kind_mask does not.
    BOOST_TEST(en::parse_taint_rules("[transfer]\nsanitizers_block = true\n", "r.toml").warnings.size() == 1u);
    BOOST_TEST(en::parse_taint_rules("[transfer]\nfunction = \"edge_kind_mask\"\nsanitizers_block = false\nparams = [1, 0, 0, 0]\n",
                                     "r.toml")
                   .warnings.empty());
}

// vyre taint --json escapes names so that the output is valid JSON whatever bytes they hold.
BOOST_AUTO_TEST_CASE(json_string_escapes_and_replaces_invalid_utf8) {
    using std::string_literals::operator""s;
    using vyre::util::json_string;
    BOOST_TEST(json_string("plain") == "\"plain\"");
    BOOST_TEST(json_string("a\"b\\c") == "\"a\\\"b\\\\c\"");
    BOOST_TEST(json_string("t\tn\n\x7f"s + '\0') == "\"t\\u0009n\\u000a\\u007f\\u0000\"");
    // Valid UTF-8 (2, 3 and 4 bytes, U+10FFFF) passes through unchanged.
    const std::string valid = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf";
    BOOST_TEST(json_string(valid) == "\"" + valid + "\"");
    // Each maximal ill-formed subpart becomes one U+FFFD.
    BOOST_TEST(json_string("caf\xe9") == "\"caf\\ufffd\"");                  // Latin-1
    BOOST_TEST(json_string("\x80x") == "\"\\ufffdx\"");                       // stray continuation
    BOOST_TEST(json_string("\xe2\x82x") == "\"\\ufffdx\"");                  // truncated, then ASCII
    BOOST_TEST(json_string("\xe2\x82") == "\"\\ufffd\"");                    // truncated at the end
    BOOST_TEST(json_string("\xc0\xaf") == "\"\\ufffd\\ufffd\"");            // overlong '/'
    BOOST_TEST(json_string("\xed\xa0\x80") == "\"\\ufffd\\ufffd\\ufffd\""); // surrogate U+D800
    BOOST_TEST(json_string("\xf4\x90\x80\x80") == "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); // above U+10FFFF
    BOOST_TEST(json_string("\xff\xfe") == "\"\\ufffd\\ufffd\"");
    // Every output byte is ASCII or part of a well-formed sequence: no raw byte >= 0x80 survives
    // from an invalid input.
    for (unsigned b = 0x80; b < 0x100; ++b) {
        BOOST_TEST_CONTEXT("byte " << b) { BOOST_TEST(json_string(std::string(1, static_cast<char>(b))) == "\"\\ufffd\""); }
    }
}

// The shipped example: the CGI handler's unsanitized path reaches system(), the quoted one does not.
VYRE_DEVICE_TEST(example_cgi_handler) {
    const std::filesystem::path dir = std::filesystem::path(VYRE_SOURCE_DIR) / "example" / "taint";
    const auto lg = g::load_graph(dir / "cgi_handler.graph");
    const auto s = en::apply_taint_rules(lg, en::load_taint_rules(dir / "rules.toml"));
    const auto sources = en::taint_sources(s.graph);
    BOOST_TEST_REQUIRE(!sources.empty());
    en::dataflow engine(dev.ctx(), s.graph, s.edge_kinds, *s.transfer);
    en::dataflow_options o;
    o.params = s.params;
    const auto r = engine.run(sources, o);
    BOOST_TEST(r.findings == ref::dataflow_findings(s.graph, s.edge_kinds, sources, unbounded, s.transfer->host, s.params),
               boost::test_tools::per_element());
    std::vector<std::string> sinks;
    for (const auto& f : r.findings) sinks.push_back(lg.node_names[f.sink]);
    BOOST_TEST(std::count(sinks.begin(), sinks.end(), "system") == 1);
    BOOST_TEST(std::count(sinks.begin(), sinks.end(), "popen") == 0); // only reached through shell_quote
}

// ---- the CPU references agree with each other -----------------------------------------------------

BOOST_AUTO_TEST_CASE(bitparallel_reference_matches_simple_reference) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        const g::csr_graph gr = random_graph(seed, 9, 5);
        const kinds_t kinds = random_kinds(gr, seed + 1, 3);
        const sources_t sources = random_sources(gr, seed + 2, 700);
        const en::transfer_params p{0b011, 1, 300, 0};
        for (const auto* t : {&en::transfers::allow_all(), &en::transfers::block_sanitizers(), &en::transfers::edge_kind_mask(),
                              &odd_sources_filtered()})
            for (const std::uint32_t depth : {unbounded, 3u})
                BOOST_TEST(ref::dataflow_findings_bitparallel(gr, kinds, sources, depth, t->host, p, 2) ==
                               ref::dataflow_findings(gr, kinds, sources, depth, t->host, p),
                           boost::test_tools::per_element());
    }
}

} // namespace

VYRE_TEST_MAIN
