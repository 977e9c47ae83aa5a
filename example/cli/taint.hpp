// `vyre taint`: taint analysis of a program graph on the device. The graph file gives the nodes
// (names, roles) and edges (kinds); the TOML rules mark sources, sinks and sanitizers by name and
// pick the transfer function; every (source, sink, depth) within the depth bound is printed.
#pragma once

#include "common.hpp"

#include <vyre/engine/dataflow.hpp>
#include <vyre/engine/taint_rules.hpp>
#include <vyre/graph/io.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/json.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace vyre::cli {

namespace detail {

inline std::string node_text(const graph::labeled_graph& lg, std::uint32_t v) {
    const bool named = !lg.node_names.empty() && !lg.node_names[v].empty();
    return std::to_string(v) + (named ? " (" + lg.node_names[v] + ")" : "");
}

} // namespace detail

inline int cmd_taint(const std::vector<std::string>& args) {
    po::options_description options(
        "Taint analysis on the device: every sink a source reaches, with its depth.\n"
        "Graph files: the vyre-graph text format or the binary CSR image (doc/engine/dataflow.md)");
    options.add_options()("graph", po::value<std::string>(), "graph file (text edge list with node names, or binary CSR)")(
        "rules", po::value<std::string>(), "taint rules (TOML)")(
        "max-depth", po::value<std::uint32_t>(), "longest path followed, in edges (default: the rules' limits.max_depth, else none)")(
        "max-findings", po::value<std::uint32_t>(), "findings kept (default: the rules' limits.max_findings, else 1048576)")(
        "json", "print the findings as JSON");
    po::variables_map vm;
    if (!parse("taint", "--graph FILE --rules FILE.toml [--max-depth N] [--max-findings N] [--json]", options, args, vm)) return 0;
    if (!vm.count("graph")) throw po::error("--graph FILE is required");
    if (!vm.count("rules")) throw po::error("--rules FILE.toml is required");
    const auto t0 = std::chrono::steady_clock::now();
    const graph::labeled_graph lg = graph::load_graph(vm["graph"].as<std::string>());
    const engine::taint_rules rules = engine::load_taint_rules(vm["rules"].as<std::string>());
    const engine::taint_setup setup = engine::apply_taint_rules(lg, rules);
    for (const auto& w : setup.warnings) std::cerr << "vyre taint: warning: " << w << "\n";

    engine::dataflow_options o;
    o.params = setup.params;
    if (vm.count("max-depth")) o.max_depth = vm["max-depth"].as<std::uint32_t>();
    else if (rules.max_depth) o.max_depth = *rules.max_depth;
    if (vm.count("max-findings")) o.max_findings = vm["max-findings"].as<std::uint32_t>();
    else if (rules.max_findings) o.max_findings = *rules.max_findings;

    const auto sources = engine::taint_sources(setup.graph);
    runtime::context ctx;
    engine::dataflow df(ctx, setup.graph, setup.edge_kinds, *setup.transfer);
    const engine::dataflow_result r = df.run(sources, o);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    if (vm.count("json")) {
        std::cout << "{\"graph\":" << util::json_string(vm["graph"].as<std::string>())
                  << ",\"rules\":" << util::json_string(vm["rules"].as<std::string>())
                  << ",\"device\":" << util::json_string(ctx.device().label()) << ",\"transfer\":" << util::json_string(setup.transfer->name)
                  << ",\"max_depth\":" << (o.max_depth == engine::unlimited_depth ? std::string("null") : std::to_string(o.max_depth))
                  << ",\"nodes\":" << setup.graph.node_count() << ",\"edges\":" << setup.graph.edge_count()
                  << ",\"sources\":" << sources.size() << ",\"converged\":" << (r.converged ? "true" : "false")
                  << ",\"findings\":[";
        for (std::size_t i = 0; i < r.findings.size(); ++i) {
            const auto& f = r.findings[i];
            const auto name = [&](std::uint32_t v) {
                return lg.node_names.empty() || lg.node_names[v].empty() ? std::string("null") : util::json_string(lg.node_names[v]);
            };
            std::cout << (i ? "," : "") << "{\"source\":" << f.source << ",\"source_name\":" << name(f.source)
                      << ",\"sink\":" << f.sink << ",\"sink_name\":" << name(f.sink) << ",\"depth\":" << f.depth << "}";
        }
        std::cout << "]}\n";
        return 0;
    }
    std::cout << "graph: " << setup.graph.node_count() << " nodes, " << setup.graph.edge_count() << " edges; "
              << sources.size() << " sources; transfer " << setup.transfer->name << "; max depth "
              << (o.max_depth == engine::unlimited_depth ? std::string("none") : std::to_string(o.max_depth)) << "; device "
              << ctx.device().label() << "\n";
    for (const auto& f : r.findings)
        std::cout << "finding: source " << detail::node_text(lg, f.source) << " -> sink " << detail::node_text(lg, f.sink)
                  << ", depth " << f.depth << "\n";
    std::printf("%zu finding%s in %.3f s (%u level%s%s)\n", r.findings.size(), r.findings.size() == 1 ? "" : "s", seconds,
                r.levels, r.levels == 1 ? "" : "s", r.converged ? "" : "; stopped at max depth before the fixpoint");
    return 0;
}

} // namespace vyre::cli
