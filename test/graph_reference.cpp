// Graph data structures and CPU references: CSR invariants, construction, labels, the seed's
// archetypes with hand-written expected findings, the multi-threaded and bit-parallel CPU BFS
// against the simple oracle, generators, and both file formats with malformed input.
#include "harness.hpp"

#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/graph/io.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/reference/graph.hpp>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace g = vyre::graph;
namespace ref = vyre::reference;

using g::finding;
using g::reach;
using g::role;

namespace {

constexpr std::uint32_t unbounded = std::numeric_limits<std::uint32_t>::max();

// The message of the vyre::error that f throws, or "(no error)".
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const vyre::error& e) {
        return e.what();
    }
    return "(no error)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

void set_role(g::csr_graph& gr, std::uint32_t node, role r) { gr.node_data[node] = g::make_label(r); }

// Runs every CPU implementation, checks they agree, and returns the simple reference's answer.
std::vector<finding> findings(const g::csr_graph& gr, std::vector<std::uint32_t> sources, std::uint32_t depth) {
    const auto expected = ref::bfs_findings(gr, sources, depth);
    for (unsigned threads : {1u, 3u}) {
        BOOST_TEST_CONTEXT("threads " << threads) {
            BOOST_TEST((ref::bfs_findings_threaded(gr, sources, depth, threads) == expected));
            BOOST_TEST((ref::bfs_findings_bitparallel(gr, sources, depth, threads) == expected));
        }
    }
    return expected;
}

std::vector<reach> reached(const g::csr_graph& gr, std::vector<std::uint32_t> sources, std::uint32_t depth) {
    const auto expected = ref::reachable_nodes(gr, sources, depth);
    for (unsigned threads : {1u, 3u}) {
        BOOST_TEST_CONTEXT("threads " << threads) {
            BOOST_TEST((ref::reachable_nodes_threaded(gr, sources, depth, threads) == expected));
            BOOST_TEST((ref::reachable_nodes_bitparallel(gr, sources, depth, threads) == expected));
        }
    }
    return expected;
}

using F = std::vector<finding>;
using R = std::vector<reach>;

} // namespace

// ---------------------------------------------------------------- labels and findings

BOOST_AUTO_TEST_CASE(label_encoding_is_bits_16_to_23) {
    BOOST_TEST(g::make_label(role::sink) == 0x00020000u);
    BOOST_TEST(g::make_label(role::sanitizer, 0xAB00'1234u) == 0xAB04'1234u);
    BOOST_TEST(g::make_label(role::normal, 0x00FF'0000u) == 0u); // metadata cannot forge a role
    BOOST_TEST(g::role_bits(0x1203'4567u) == 3);
    BOOST_TEST((g::role_of(0x0001'FFFFu) == role::source));
    BOOST_TEST((g::role_of(0x0005'0000u) == role::normal)); // reserved reads as normal
    BOOST_TEST(!g::has_known_role(0x0005'0000u));
    BOOST_TEST(g::is_source(g::make_label(role::source_and_sink)));
    BOOST_TEST(g::is_sink(g::make_label(role::source_and_sink)));
    BOOST_TEST(!g::is_sink(g::make_label(role::sanitizer)));
    BOOST_TEST(g::is_sanitizer(g::make_label(role::sanitizer, 0xFFFF)));
    BOOST_TEST(!g::is_source(g::make_label(role::sink)));
    for (std::uint8_t v = 0; v <= 4; ++v) BOOST_TEST((g::parse_role(g::to_string(role(v))) == role(v)));
    BOOST_TEST(!g::parse_role("Sink").has_value());
}

BOOST_AUTO_TEST_CASE(findings_sort_by_source_sink_depth_then_index) {
    F f = {{2, 1, 1, 0}, {1, 9, 3, 4}, {1, 9, 2, 7}, {1, 3, 5, 1}, {1, 9, 2, 5}};
    g::sort_canonical(f);
    BOOST_TEST((f == F{{1, 3, 5, 1}, {1, 9, 2, 5}, {1, 9, 2, 7}, {1, 9, 3, 4}, {2, 1, 1, 0}}));
    R r = {{1, 2, 0}, {0, 5, 1}, {0, 2, 3}};
    g::sort_canonical(r);
    BOOST_TEST((r == R{{0, 2, 3}, {0, 5, 1}, {1, 2, 0}}));
}

// ---------------------------------------------------------------- CSR validation

BOOST_AUTO_TEST_CASE(valid_graphs_pass) {
    BOOST_TEST(error_of([] { g::csr_graph{}.validate(); }) == "(no error)");
    const g::csr_graph gr{{0, 2, 2, 3}, {1, 2, 0}, {0, 0, 0}};
    BOOST_TEST(error_of([&] { gr.validate(); }) == "(no error)");
    BOOST_TEST(gr.node_count() == 3u);
    BOOST_TEST(gr.edge_count() == 3u);
    BOOST_TEST(gr.neighbors(0).size() == 2u);
    BOOST_TEST(gr.neighbors(1).empty());
    BOOST_TEST(gr.neighbors(2)[0] == 0u);
}

BOOST_AUTO_TEST_CASE(offsets_length_must_be_node_count_plus_one) {
    const g::csr_graph gr{{0, 1}, {0}, {0, 0}};
    const auto v = g::first_violation(gr);
    BOOST_REQUIRE(v.has_value());
    BOOST_TEST((v->array == g::csr_array::offsets));
    const std::string m = error_of([&] { gr.validate(); });
    BOOST_TEST(contains(m, "offsets length == node_count + 1"), m);
    BOOST_TEST(contains(m, "offsets has 2 entries"), m);
    BOOST_TEST(contains(m, "exactly 3"), m);
}

BOOST_AUTO_TEST_CASE(offsets_must_start_at_zero) {
    const std::string m = error_of([] { g::csr_graph{{1, 1}, {0}, {0}}.validate(); });
    BOOST_TEST(contains(m, "offsets[0] == 0"), m);
    BOOST_TEST(contains(m, "offsets[0] = 1"), m);
}

BOOST_AUTO_TEST_CASE(offsets_must_not_decrease) {
    const g::csr_graph gr{{0, 2, 1, 3}, {0, 1, 2}, {0, 0, 0}};
    const auto v = g::first_violation(gr);
    BOOST_REQUIRE(v.has_value());
    BOOST_TEST(v->index == 2u);
    const std::string m = error_of([&] { gr.validate(); });
    BOOST_TEST(contains(m, "non-decreasing"), m);
    BOOST_TEST(contains(m, "offsets[2] = 1"), m);
    BOOST_TEST(contains(m, "offsets[1] = 2"), m);
    BOOST_TEST(contains(m, "valid range [2, 4)"), m);
}

BOOST_AUTO_TEST_CASE(offsets_must_not_pass_edge_count) {
    // A large middle offset that would make the shader read past targets.
    const std::string m = error_of([] { g::csr_graph{{0, 7, 7}, {0, 1}, {0, 0}}.validate(); });
    BOOST_TEST(contains(m, "offsets[1] = 7"), m);
    BOOST_TEST(contains(m, "edge_count (targets length) 2"), m);
    BOOST_TEST(contains(m, "valid range [0, 3)"), m);
}

BOOST_AUTO_TEST_CASE(last_offset_must_equal_edge_count) {
    const std::string m = error_of([] { g::csr_graph{{0, 1, 2}, {0, 1, 1}, {0, 0}}.validate(); });
    BOOST_TEST(contains(m, "offsets[node_count] == edge_count"), m);
    BOOST_TEST(contains(m, "offsets[2] = 2"), m);
    BOOST_TEST(contains(m, "targets has 3 entries"), m);
}

BOOST_AUTO_TEST_CASE(targets_must_be_nodes) {
    const g::csr_graph gr{{0, 1, 3, 3}, {2, 0, 9}, {0, 0, 0}};
    const auto v = g::first_violation(gr);
    BOOST_REQUIRE(v.has_value());
    BOOST_TEST((v->array == g::csr_array::targets));
    BOOST_TEST(v->index == 2u);
    const std::string m = error_of([&] { gr.validate(); });
    BOOST_TEST(contains(m, "target < node_count"), m);
    BOOST_TEST(contains(m, "targets[2] = 9"), m);
    BOOST_TEST(contains(m, "edge of node 1"), m);
    BOOST_TEST(contains(m, "valid range [0, 3)"), m);
}

// ---------------------------------------------------------------- construction

BOOST_AUTO_TEST_CASE(to_csr_keeps_input_order_and_drops_invalid_edges) {
    const g::edge edges[] = {{2, 0}, {0, 3}, {7, 1}, {0, 1}, {1, 9}, {2, 2}, {0, 3}};
    const auto gr = g::to_csr(4, edges);
    BOOST_TEST(error_of([&] { gr.validate(); }) == "(no error)");
    BOOST_TEST((gr.offsets == std::vector<std::uint32_t>{0, 3, 3, 5, 5}));
    BOOST_TEST((gr.targets == std::vector<std::uint32_t>{3, 1, 3, 0, 2})); // duplicates kept, order stable
    BOOST_TEST((gr.node_data == std::vector<std::uint32_t>{0, 0, 0, 0}));
}

BOOST_AUTO_TEST_CASE(try_to_csr_names_the_first_invalid_edge) {
    const g::edge edges[] = {{0, 1}, {1, 2}, {4, 0}, {5, 5}};
    const std::string m = error_of([&] { g::try_to_csr(4, edges); });
    BOOST_TEST(contains(m, "edge 2 (source 4, target 0)"), m);
    BOOST_TEST(contains(m, "node_count is 4"), m);
    const g::edge fine[] = {{0, 1}, {1, 2}};
    const std::uint32_t labels[] = {1, 2, 3};
    const auto gr = g::try_to_csr(3, fine, labels);
    BOOST_TEST((gr.node_data == std::vector<std::uint32_t>{1, 2, 3}));
    const std::uint32_t short_labels[] = {1};
    BOOST_TEST(contains(error_of([&] { g::to_csr(3, fine, short_labels); }), "1 labels for node_count 3"));
}

BOOST_AUTO_TEST_CASE(to_csr_of_nothing) {
    const auto gr = g::to_csr(0, {});
    BOOST_TEST((gr == g::csr_graph{}));
    const g::edge edges[] = {{0, 0}};
    BOOST_TEST(g::to_csr(0, edges).edge_count() == 0u);
}

// ---------------------------------------------------------------- archetypes (seed 001)

BOOST_AUTO_TEST_CASE(empty_graph) {
    const g::csr_graph gr;
    BOOST_TEST(findings(gr, {}, unbounded).empty());
    BOOST_TEST(reached(gr, {}, unbounded).empty());
    const std::string m = error_of([&] { ref::bfs_findings(gr, std::vector<std::uint32_t>{0}, 3); });
    BOOST_TEST(contains(m, "sources[0] = 0 is not a node"), m);
}

BOOST_AUTO_TEST_CASE(single_node_self_loop_reports_only_when_source_and_sink) {
    auto gr = g::cycle(1);
    BOOST_TEST((gr.targets == std::vector<std::uint32_t>{0}));
    for (role r : {role::normal, role::source, role::sink, role::sanitizer}) {
        set_role(gr, 0, r);
        BOOST_TEST_CONTEXT("role " << g::to_string(r)) { BOOST_TEST(findings(gr, {0}, unbounded).empty()); }
    }
    set_role(gr, 0, role::source_and_sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 0, 0, 0}}));
    BOOST_TEST((findings(gr, {0}, 0) == F{{0, 0, 0, 0}}));
    BOOST_TEST((reached(gr, {0}, unbounded) == R{{0, 0, 0}}));
}

BOOST_AUTO_TEST_CASE(complete_graph_every_sink_at_depth_one) {
    auto gr = g::complete(4);
    set_role(gr, 0, role::source);
    set_role(gr, 1, role::source);
    set_role(gr, 2, role::sink);
    set_role(gr, 3, role::sink);
    // Node 1 is reached from 0 (and 0 from 1) but a plain source is never a finding.
    BOOST_TEST((findings(gr, {0, 1}, unbounded) == F{{0, 2, 1, 0}, {0, 3, 1, 0}, {1, 2, 1, 1}, {1, 3, 1, 1}}));
    BOOST_TEST((findings(gr, {0, 1}, 0).empty()));
}

BOOST_AUTO_TEST_CASE(chain_depths_and_max_depth_is_inclusive) {
    auto gr = g::chain(5);
    set_role(gr, 0, role::source);
    set_role(gr, 2, role::sink);
    set_role(gr, 4, role::sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 2, 2, 0}, {0, 4, 4, 0}}));
    BOOST_TEST((findings(gr, {0}, 4) == F{{0, 2, 2, 0}, {0, 4, 4, 0}}));
    BOOST_TEST((findings(gr, {0}, 3) == F{{0, 2, 2, 0}}));
    BOOST_TEST((findings(gr, {0}, 2) == F{{0, 2, 2, 0}}));
    BOOST_TEST(findings(gr, {0}, 1).empty());
    BOOST_TEST(findings(gr, {0}, 0).empty());
    BOOST_TEST((findings(gr, {3}, unbounded) == F{{3, 4, 1, 0}}));
    BOOST_TEST((reached(gr, {2}, 1) == R{{2, 2, 0}, {2, 3, 1}}));
    BOOST_TEST((reached(gr, {0}, 0) == R{{0, 0, 0}}));
}

BOOST_AUTO_TEST_CASE(star_spokes_at_depth_one) {
    auto gr = g::star(5);
    set_role(gr, 0, role::source);
    for (std::uint32_t i = 1; i < 5; ++i) set_role(gr, i, role::sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 1, 1, 0}, {0, 2, 1, 0}, {0, 3, 1, 0}, {0, 4, 1, 0}}));
    BOOST_TEST(findings(gr, {3}, unbounded).empty()); // spokes have no outgoing edges
}

BOOST_AUTO_TEST_CASE(binary_tree_depths_are_levels) {
    auto gr = g::binary_tree(15);
    BOOST_TEST(gr.edge_count() == 14u);
    set_role(gr, 3, role::sink);
    set_role(gr, 6, role::sink);
    set_role(gr, 14, role::sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 3, 2, 0}, {0, 6, 2, 0}, {0, 14, 3, 0}}));
    BOOST_TEST((findings(gr, {1}, unbounded) == F{{1, 3, 1, 0}})); // 6 and 14 are under node 2
    const auto r = reached(gr, {0}, unbounded);
    BOOST_REQUIRE(r.size() == 15u);
    for (const reach& x : r) BOOST_TEST(x.depth == std::bit_width(x.node + 1) - 1u);
}

BOOST_AUTO_TEST_CASE(diamond_reports_shortest_depth_once) {
    auto d = g::diamond();
    set_role(d, 3, role::sink);
    BOOST_TEST((findings(d, {0}, unbounded) == F{{0, 3, 2, 0}}));
    // Lopsided: 0->1->2->3->5 and 0->4->5; the long arm is listed first.
    const g::edge edges[] = {{0, 1}, {1, 2}, {2, 3}, {3, 5}, {0, 4}, {4, 5}};
    auto gr = g::to_csr(6, edges);
    set_role(gr, 5, role::sink);
    set_role(gr, 3, role::sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 3, 3, 0}, {0, 5, 2, 0}}));
    BOOST_TEST((reached(gr, {0}, unbounded) == R{{0, 0, 0}, {0, 1, 1}, {0, 2, 2}, {0, 3, 3}, {0, 4, 1}, {0, 5, 2}}));
}

BOOST_AUTO_TEST_CASE(cycle_terminates_without_duplicates) {
    auto gr = g::cycle(4);
    set_role(gr, 0, role::source);
    set_role(gr, 2, role::sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 2, 2, 0}}));
    BOOST_TEST((reached(gr, {0}, unbounded) == R{{0, 0, 0}, {0, 1, 1}, {0, 2, 2}, {0, 3, 3}}));
    // A source+sink on the cycle: depth 0 from itself, never again around the loop.
    set_role(gr, 0, role::source_and_sink);
    BOOST_TEST((findings(gr, {0, 1}, unbounded) == F{{0, 0, 0, 0}, {0, 2, 2, 0}, {1, 0, 3, 1}, {1, 2, 1, 1}}));
}

BOOST_AUTO_TEST_CASE(disconnected_components_do_not_mix) {
    const g::csr_graph parts[] = {g::chain(3), g::chain(3)};
    auto gr = g::disjoint_union(parts);
    BOOST_TEST((gr.targets == std::vector<std::uint32_t>{1, 2, 4, 5}));
    set_role(gr, 2, role::sink);
    set_role(gr, 5, role::sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 2, 2, 0}}));
    BOOST_TEST((findings(gr, {3, 0}, unbounded) == F{{0, 2, 2, 1}, {3, 5, 2, 0}}));
}

BOOST_AUTO_TEST_CASE(sanitizer_on_the_only_path) {
    auto gr = g::chain(3);
    set_role(gr, 0, role::source);
    set_role(gr, 1, role::sanitizer);
    set_role(gr, 2, role::sink);
    BOOST_TEST(findings(gr, {0}, unbounded).empty());
    // The sanitizer itself is reached; what lies behind it is not.
    BOOST_TEST((reached(gr, {0}, unbounded) == R{{0, 0, 0}, {0, 1, 1}}));
}

BOOST_AUTO_TEST_CASE(sanitizer_on_one_of_two_paths) {
    const g::edge edges[] = {{0, 1}, {1, 3}, {0, 2}, {2, 3}};
    auto gr = g::to_csr(4, edges);
    set_role(gr, 1, role::sanitizer);
    set_role(gr, 3, role::sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 3, 2, 0}}));
    // Sanitizer on the short path: the finding comes through the longer clean one.
    const g::edge lopsided[] = {{0, 1}, {1, 4}, {0, 2}, {2, 3}, {3, 4}};
    auto lg = g::to_csr(5, lopsided);
    set_role(lg, 1, role::sanitizer);
    set_role(lg, 4, role::sink);
    BOOST_TEST((findings(lg, {0}, unbounded) == F{{0, 4, 3, 0}}));
    BOOST_TEST(findings(lg, {0}, 2).empty());
}

BOOST_AUTO_TEST_CASE(sanitizer_that_is_also_a_sink) {
    // One role per node: a sanitizing sink is written as role sanitizer, and sanitizer wins.
    auto gr = g::chain(3);
    set_role(gr, 0, role::source);
    gr.node_data[1] = g::make_label(role::sanitizer, 0x1234);
    set_role(gr, 2, role::sink);
    BOOST_TEST(findings(gr, {0}, unbounded).empty());
    BOOST_TEST(findings(gr, {1}, unbounded).empty()); // a sanitizer start does not expand either
    BOOST_TEST((reached(gr, {1}, unbounded) == R{{1, 1, 0}}));
}

BOOST_AUTO_TEST_CASE(roles_when_reached) {
    // 0 -> 1 (source+sink) -> 2 (reserved role 7) -> 3 (source) -> 4 (sink)
    auto gr = g::chain(5);
    set_role(gr, 1, role::source_and_sink);
    gr.node_data[2] = 0x0007'0000u;
    set_role(gr, 3, role::source);
    set_role(gr, 4, role::sink);
    BOOST_TEST((findings(gr, {0}, unbounded) == F{{0, 1, 1, 0}, {0, 4, 4, 0}}));
    BOOST_TEST((findings(gr, {1}, unbounded) == F{{1, 1, 0, 0}, {1, 4, 3, 0}}));
}

BOOST_AUTO_TEST_CASE(duplicate_sources_run_twice) {
    auto gr = g::chain(3);
    set_role(gr, 2, role::sink);
    BOOST_TEST((findings(gr, {0, 1, 0}, unbounded) == F{{0, 2, 2, 0}, {0, 2, 2, 2}, {1, 2, 1, 1}}));
    BOOST_TEST((reached(gr, {2, 2}, unbounded) == R{{2, 2, 0}, {2, 2, 0}}));
}

BOOST_AUTO_TEST_CASE(references_reject_bad_input) {
    const auto gr = g::chain(3);
    const std::vector<std::uint32_t> bad = {0, 9};
    for (const auto& f : std::vector<std::function<void()>>{
             [&] { ref::bfs_findings(gr, bad, 1); }, [&] { ref::bfs_findings_threaded(gr, bad, 1); },
             [&] { ref::bfs_findings_bitparallel(gr, bad, 1); }, [&] { ref::reachable_nodes(gr, bad, 1); },
             [&] { ref::reachable_nodes_threaded(gr, bad, 1); }, [&] { ref::reachable_nodes_bitparallel(gr, bad, 1); }}) {
        const std::string m = error_of(f);
        BOOST_TEST(contains(m, "sources[1] = 9 is not a node"), m);
    }
    const g::csr_graph broken{{0, 1}, {5}, {0}};
    BOOST_TEST(contains(error_of([&] { ref::bfs_findings_bitparallel(broken, std::vector<std::uint32_t>{0}, 1); }),
                        "targets[0] = 5"));
}

// ---------------------------------------------------------------- random graphs: all CPU versions agree

namespace {

// Roles drawn per node: about 6% sinks, 2% source+sink, 4% sanitizers, 4% sources, 1% reserved.
void random_roles(g::csr_graph& gr, std::uint64_t seed) {
    g::splitmix64 rng(seed);
    for (auto& label : gr.node_data) {
        const auto r = g::uniform_below(rng, 100);
        const auto meta = static_cast<std::uint32_t>(rng()) & ~g::role_mask;
        label = r < 6    ? g::make_label(role::sink, meta)
                : r < 8  ? g::make_label(role::source_and_sink, meta)
                : r < 12 ? g::make_label(role::sanitizer, meta)
                : r < 16 ? g::make_label(role::source, meta)
                : r < 17 ? (meta | 0x00090000u)
                         : meta;
    }
}

std::vector<std::uint32_t> random_sources(std::uint32_t nodes, std::size_t count, std::uint64_t seed) {
    g::splitmix64 rng(seed);
    std::vector<std::uint32_t> s(count);
    for (auto& x : s) x = static_cast<std::uint32_t>(g::uniform_below(rng, nodes));
    return s;
}

void check_all_versions_agree(const g::csr_graph& gr, const std::vector<std::uint32_t>& sources) {
    for (std::uint32_t depth : {0u, 1u, 3u, unbounded}) {
        const auto f = ref::bfs_findings(gr, sources, depth);
        const auto r = ref::reachable_nodes(gr, sources, depth);
        if (depth == unbounded) BOOST_TEST(!f.empty()); // the roles make findings certain
        // 1, 2, 3 threads make the bit-parallel version pick 256, 128 and 64 lanes per batch.
        for (unsigned threads : {1u, 2u, 3u}) {
            BOOST_TEST_CONTEXT("max_depth " << depth << ", threads " << threads) {
                BOOST_TEST((ref::bfs_findings_threaded(gr, sources, depth, threads) == f));
                BOOST_TEST((ref::bfs_findings_bitparallel(gr, sources, depth, threads) == f));
                BOOST_TEST((ref::reachable_nodes_threaded(gr, sources, depth, threads) == r));
                BOOST_TEST((ref::reachable_nodes_bitparallel(gr, sources, depth, threads) == r));
            }
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(rmat_all_cpu_versions_agree) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        auto gr = g::rmat(10, 8, seed);
        random_roles(gr, seed + 1);
        check_all_versions_agree(gr, random_sources(gr.node_count(), 300, seed + 2));
    }
}

BOOST_AUTO_TEST_CASE(erdos_renyi_all_cpu_versions_agree) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        auto gr = g::erdos_renyi(1500, 3000, seed);
        random_roles(gr, seed + 3);
        auto sources = random_sources(gr.node_count(), 290, seed + 4);
        sources.push_back(sources.front()); // a duplicate, in another batch
        check_all_versions_agree(gr, sources);
    }
}

BOOST_AUTO_TEST_CASE(deep_chain_bitparallel_is_linear) {
    // 50 000 levels: a frontier sweep over all nodes per level would take ~2.5e9 steps.
    auto gr = g::chain(50'000);
    set_role(gr, 49'999, role::sink);
    const std::vector<std::uint32_t> sources = {0, 10, 49'999};
    BOOST_TEST((ref::bfs_findings_bitparallel(gr, sources, unbounded) == F{{0, 49'999, 49'999, 0}, {10, 49'999, 49'989, 1}}));
    BOOST_TEST(ref::bfs_findings_bitparallel(gr, sources, 49'988).empty());
}

// ---------------------------------------------------------------- generators

namespace {
std::uint64_t fnv1a(const g::csr_graph& gr) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const auto* a : {&gr.offsets, &gr.targets, &gr.node_data})
        for (const std::uint32_t v : *a)
            for (int i = 0; i < 4; ++i) h = (h ^ ((v >> (8 * i)) & 0xFF)) * 0x100000001b3ULL;
    return h;
}
} // namespace

BOOST_AUTO_TEST_CASE(splitmix64_matches_the_published_sequence) {
    g::splitmix64 rng(0);
    BOOST_TEST(rng() == 0xe220a8397b1dcdafULL);
    BOOST_TEST(rng() == 0x6e789e6aa1b965f4ULL);
    g::splitmix64 r2(1);
    for (int i = 0; i < 1000; ++i) {
        BOOST_TEST_REQUIRE(g::uniform_below(r2, 7) < 7u);
        const double u = g::uniform_unit(r2);
        BOOST_TEST_REQUIRE((u >= 0.0 && u < 1.0));
    }
}

BOOST_AUTO_TEST_CASE(generators_are_deterministic) {
    const auto a = g::rmat(8, 4, 42);
    BOOST_TEST(a.node_count() == 256u);
    BOOST_TEST(a.edge_count() == 1024u);
    BOOST_TEST((a == g::rmat(8, 4, 42)));
    BOOST_TEST(!(a == g::rmat(8, 4, 43)));
    // Pinned values: a change here means every recorded benchmark input changed.
    BOOST_TEST(fnv1a(a) == 0xc2cf98dd41cce784ULL);
    const auto e = g::erdos_renyi(100, 700, 42);
    BOOST_TEST(fnv1a(e) == 0x67c1a0ed9bcecf92ULL);
    BOOST_TEST((e == g::erdos_renyi(100, 700, 42)));
}

BOOST_AUTO_TEST_CASE(rmat_is_skewed) {
    // Graph500 parameters concentrate edges: the top 5% of nodes by out-degree hold far more
    // than 5% of the edges (a uniform graph would give about 5-10%).
    const auto gr = g::rmat(12, 16, 7);
    std::vector<std::uint32_t> deg(gr.node_count());
    for (std::uint32_t n = 0; n < gr.node_count(); ++n) deg[n] = gr.offsets[n + 1] - gr.offsets[n];
    std::sort(deg.rbegin(), deg.rend());
    std::uint64_t top = 0;
    for (std::size_t i = 0; i < deg.size() / 20; ++i) top += deg[i];
    BOOST_TEST(top * 100 / gr.edge_count() > 30u);
}

BOOST_AUTO_TEST_CASE(erdos_renyi_edges_are_distinct_without_self_loops) {
    for (std::uint64_t m : {0ull, 1ull, 500ull, 30ull * 29ull}) {
        const auto edges = g::erdos_renyi_edges(30, m, 9);
        BOOST_TEST_REQUIRE(edges.size() == m);
        for (std::size_t i = 0; i < edges.size(); ++i) {
            BOOST_TEST_REQUIRE(edges[i].source != edges[i].target);
            BOOST_TEST_REQUIRE(edges[i].target < 30u);
            if (i > 0) BOOST_TEST_REQUIRE((edges[i - 1] < edges[i]));
        }
    }
    BOOST_TEST(contains(error_of([] { g::erdos_renyi_edges(30, 30 * 29 + 1, 1); }), "allow only 870"));
    BOOST_TEST(g::erdos_renyi_edges(1, 0, 1).empty());
}

BOOST_AUTO_TEST_CASE(generators_refuse_unrepresentable_sizes) {
    BOOST_TEST(contains(error_of([] { g::rmat_edges(32, 1, 1); }), "scale 32"));
    BOOST_TEST(contains(error_of([] { g::rmat_edges(31, 2, 1); }), "do not fit u32"));
    BOOST_TEST(contains(error_of([] { g::erdos_renyi_edges(100'000, 5'000'000'000ull, 1); }), "do not fit u32"));
    BOOST_TEST(contains(error_of([] { g::complete(70'000); }), "do not fit u32"));
    BOOST_TEST(contains(error_of([] { g::rmat_edges(4, 1, 1, {0.5, 0.5, 0.5, 0.0}); }), "sum to 1"));
}

BOOST_AUTO_TEST_CASE(archetype_shapes) {
    BOOST_TEST((g::chain(4).targets == std::vector<std::uint32_t>{1, 2, 3}));
    BOOST_TEST((g::cycle(3).targets == std::vector<std::uint32_t>{1, 2, 0}));
    BOOST_TEST((g::star(4).offsets == std::vector<std::uint32_t>{0, 3, 3, 3, 3}));
    BOOST_TEST(g::complete(5).edge_count() == 20u);
    BOOST_TEST((g::binary_tree(6).targets == std::vector<std::uint32_t>{1, 2, 3, 4, 5}));
    BOOST_TEST((g::diamond().targets == std::vector<std::uint32_t>{1, 2, 3, 3}));
    BOOST_TEST(g::chain(0).node_count() == 0u);
    BOOST_TEST(g::chain(1).edge_count() == 0u);
}

// ---------------------------------------------------------------- I/O

namespace {
g::labeled_graph sample_labeled() {
    const g::edge edges[] = {{0, 1}, {1, 2}, {1, 3}, {3, 4}, {0, 4}};
    g::labeled_graph lg;
    lg.graph = g::to_csr(6, edges);
    lg.graph.node_data[0] = g::make_label(role::source);
    lg.graph.node_data[2] = g::make_label(role::sanitizer);
    lg.graph.node_data[4] = g::make_label(role::sink, 0x0100'0007); // metadata bits survive
    lg.graph.node_data[5] = 0x0009'0000;                             // reserved role survives
    lg.node_names = {"req.query", "", "escape_html", "", "eval", ""};
    lg.edge_kinds.assign(lg.graph.edge_count(), "");
    lg.edge_kinds[2] = "call";
    return lg;
}

std::string text_error_of(std::string_view text, g::text_read_options opt = {}) {
    return error_of([&] { g::read_graph_text(text, opt); });
}

std::uint64_t offset_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const vyre::format_error& e) {
        return e.offset();
    }
    return ~0ull - 1;
}
} // namespace

BOOST_AUTO_TEST_CASE(text_round_trip) {
    const auto lg = sample_labeled();
    const std::string text = g::write_graph_text(lg);
    BOOST_TEST(contains(text, "node 0 source req.query\n"), text);
    BOOST_TEST(contains(text, "node 4 0x01020007 eval\n"), text);
    BOOST_TEST(contains(text, "edge 1 2 call\n"), text);
    BOOST_TEST((g::read_graph_text(text) == lg));
}

BOOST_AUTO_TEST_CASE(text_reads_a_hand_written_file) {
    const std::string text =
        "# taint graph of a tiny handler\r\n"
        "vyre-graph 1\n"
        "\n"
        "nodes 4   # four nodes\n"
        "node 0 source   req.body\n"
        "node 3\tsink exec\n"
        "node 1 sanitizer\n"
        "edge 0 2 assign\n"
        "edge 2 3\n"
        "edge 0 1\n"
        "edge 1 3 call";
    const auto lg = g::read_graph_text(text);
    BOOST_TEST((lg.graph.offsets == std::vector<std::uint32_t>{0, 2, 3, 4, 4}));
    BOOST_TEST((lg.graph.targets == std::vector<std::uint32_t>{2, 1, 3, 3}));
    BOOST_TEST((lg.edge_kinds == std::vector<std::string>{"assign", "", "call", ""}));
    BOOST_TEST((lg.node_names == std::vector<std::string>{"req.body", "", "", "exec"}));
    BOOST_TEST((findings(lg.graph, {0}, unbounded) == F{{0, 3, 2, 0}}));
}

BOOST_AUTO_TEST_CASE(malformed_text_names_line_and_offset) {
    const std::string head = "vyre-graph 1\nnodes 3\n"; // 21 bytes
    struct bad {
        std::string text;
        std::string expect;
        std::uint64_t offset;
    };
    const std::vector<bad> cases = {
        {"", "no 'vyre-graph 1' line", 0},
        {"nodes 3\n", "line 1: expected 'vyre-graph 1'", 0},
        {"vyre-graph 2\n", "line 1: unsupported version 2", 11},
        {"vyre-graph 1\n", "missing 'nodes <count>'", 13},
        {"vyre-graph 1\nedge 0 1\n", "line 2: 'nodes <count>' must come before", 18},
        {head + "nodes 3\n", "line 3: 'nodes' appears twice", 21},
        {head + "node 3 sink\n", "line 3: node id 3 is not a node", 26},
        {head + "edge 0 -1\n", "line 3: edge target '-1' is not a u32", 28},
        {head + "edge 0 4294967296\n", "is not a u32", 28},
        {head + "edge 0 1 call extra\n", "line 3: unexpected field 'extra'", 35},
        {head + "edge 0\n", "line 3: too few fields", 26},
        {head + "node 1 sink\nnode 1 source\n", "line 4: node 1 is described twice", 38},
        {head + "node 1 taint\n", "line 3: role 'taint' is neither", 28},
        {head + "frob 1\n", "line 3: unknown directive 'frob'", 21},
        {head + "edge 0 1\x01\n", "line 3: control byte 1", 29},
        {head + "vyre-graph 1\n", "may appear only once", 21},
        {"vyre-graph 1\nnodes 99999999999\n", "node count '99999999999' is not a u32", 19},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT("input: " << c.text) {
            const std::string m = text_error_of(c.text);
            BOOST_TEST(contains(m, c.expect), m);
            BOOST_TEST(offset_of([&] { g::read_graph_text(c.text); }) == c.offset);
        }
    }
    g::text_read_options small;
    small.max_nodes = 1000;
    BOOST_TEST(contains(text_error_of("vyre-graph 1\nnodes 4000000000\n", small), "exceeds the reader's limit of 1000"));
    BOOST_TEST(contains(text_error_of("vyre-graph 1\nnodes 4000000000\n"), "exceeds the reader's limit"));
}

BOOST_AUTO_TEST_CASE(text_writer_refuses_unwritable_names) {
    auto lg = sample_labeled();
    lg.node_names[1] = "two words";
    BOOST_TEST(contains(error_of([&] { g::write_graph_text(lg); }), "node_names[1] = 'two words' is not one token"));
    lg.node_names[1] = "#x";
    BOOST_TEST(contains(error_of([&] { g::write_graph_text(lg); }), "node_names[1]"));
    lg = sample_labeled();
    lg.edge_kinds.pop_back();
    BOOST_TEST(contains(error_of([&] { g::write_graph_text(lg); }), "edge_kinds has 4 entries, expected 0 or 5"));
}

BOOST_AUTO_TEST_CASE(binary_round_trip) {
    auto gr = g::rmat(9, 4, 3);
    random_roles(gr, 4);
    const auto bytes = g::write_csr_binary(gr);
    BOOST_TEST(bytes.size() == 24u + 4u * (2u * 512u + 1u + 2048u));
    BOOST_TEST(g::is_csr_binary(bytes));
    BOOST_TEST((g::read_csr_binary(bytes) == gr));
    const auto empty = g::write_csr_binary(g::csr_graph{});
    BOOST_TEST(empty.size() == 28u);
    BOOST_TEST((g::read_csr_binary(empty) == g::csr_graph{}));
}

namespace {
std::vector<std::uint8_t> header(std::uint32_t version, std::uint32_t n, std::uint64_t e) {
    std::vector<std::uint8_t> b(g::binary_magic.begin(), g::binary_magic.end());
    for (std::uint64_t v : {std::uint64_t{version}, std::uint64_t{n}})
        for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(e >> (8 * i)));
    return b;
}
} // namespace

BOOST_AUTO_TEST_CASE(malformed_binary_is_rejected_before_allocating) {
    const auto read = [](const std::vector<std::uint8_t>& b) { return [b] { g::read_csr_binary(b); }; };
    BOOST_TEST(contains(error_of(read({'V', 'Y'})), "shorter than the 24-byte header"));
    auto b = header(1, 0, 0);
    b[0] = 'X';
    BOOST_TEST(contains(error_of(read(b)), "bad magic"));
    BOOST_TEST(offset_of(read(header(2, 0, 0))) == 8u);
    BOOST_TEST(contains(error_of(read(header(2, 0, 0))), "unsupported version 2"));
    // Hostile counts in a 24-byte file: refused by the size check, nothing allocated.
    BOOST_TEST(contains(error_of(read(header(1, 0xFFFFFFFFu, 0xFFFFFFFFull))), "need a file of exactly"));
    BOOST_TEST(contains(error_of(read(header(1, 5, 1ull << 40))), "exceeds u32 offsets"));
    BOOST_TEST(offset_of(read(header(1, 5, 1ull << 40))) == 16u);
    // Trailing bytes are an error too.
    auto good = g::write_csr_binary(g::chain(3));
    good.push_back(0);
    BOOST_TEST(contains(error_of(read(good)), "exactly 60 bytes, but it has 61"));
    // An invariant violation is reported at the byte of the offending word.
    auto bad_target = g::write_csr_binary(g::chain(3)); // offsets at 24, targets at 40
    bad_target[44] = 7;
    BOOST_TEST(offset_of(read(bad_target)) == 44u);
    BOOST_TEST(contains(error_of(read(bad_target)), "targets[1] = 7"));
    auto bad_offset = g::write_csr_binary(g::chain(3));
    bad_offset[24 + 8] = 9; // offsets[2]
    BOOST_TEST(offset_of(read(bad_offset)) == 32u);
}

BOOST_AUTO_TEST_CASE(mutated_files_never_crash) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        g::splitmix64 rng(seed);
        auto lg = sample_labeled();
        const auto bin = g::write_csr_binary(lg.graph);
        const auto text = g::write_graph_text(lg);
        int accepted = 0, rejected = 0;
        for (int i = 0; i < 3000; ++i) {
            auto b = bin;
            std::string t = text;
            for (int k = 0, flips = 1 + int(g::uniform_below(rng, 3)); k < flips; ++k) {
                b[g::uniform_below(rng, b.size())] ^= static_cast<std::uint8_t>(1 + g::uniform_below(rng, 255));
                t[g::uniform_below(rng, t.size())] = static_cast<char>(g::uniform_below(rng, 128));
            }
            if (i % 7 == 0) b.resize(g::uniform_below(rng, b.size()));
            if (i % 5 == 0) t.resize(g::uniform_below(rng, t.size()));
            for (const auto& f : std::vector<std::function<g::csr_graph()>>{
                     [&] { return g::read_csr_binary(b); }, [&] { return g::read_graph_text(t).graph; }}) {
                try {
                    const auto gr = f();
                    BOOST_TEST_REQUIRE(!g::first_violation(gr).has_value());
                    ++accepted;
                } catch (const vyre::format_error&) {
                    ++rejected;
                } catch (const vyre::validation_error&) {
                    BOOST_FAIL("a reader let a validation_error escape instead of a format_error");
                }
            }
        }
        BOOST_TEST(accepted > 0);
        BOOST_TEST(rejected > 0);
    }
}

BOOST_AUTO_TEST_CASE(files_on_disk) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("vyre_graph_reference_" + std::to_string(vyre::test::test_seed()) + "_" +
                      std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    std::filesystem::create_directories(dir);
    const auto lg = sample_labeled();
    g::save_graph_text(dir / "g.txt", lg);
    g::save_csr_binary(dir / "g.bin", lg.graph);
    BOOST_TEST((g::load_graph(dir / "g.txt") == lg));
    const auto from_bin = g::load_graph(dir / "g.bin");
    BOOST_TEST((from_bin.graph == lg.graph));
    BOOST_TEST(from_bin.node_names.empty());
    BOOST_TEST(contains(error_of([&] { g::load_graph(dir / "missing.txt"); }), "cannot open graph file"));
    std::filesystem::remove_all(dir);
}

VYRE_TEST_MAIN
