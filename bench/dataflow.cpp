// bench_dataflow: engine::dataflow (taint contract, transfer block_sanitizers) on the device
// against its CPU peer (reference::dataflow_findings_bitparallel: bit-parallel, 64 sources per
// word, every host core) and against graph.bfs (bitset variant, the same question asked of the
// graph op), same graph, same sources, same run; every result is compared with the CPU's.
//
// Figures: seconds and GTEPS (1e9 traversed edges per second summed over sources: for each
// source, the out-edges of every node it reaches and expands). Ours: kernel-only (device time of
// every launch), end-to-end with the graph resident (the whole run() call: sources upload,
// launches, readback, canonical sort), the setup (the engine's constructor: upload, then the
// device's check, reverse graph and pull tasks; median over runs after a cold one that builds the
// setup programs, with its parts printed), one-shot (setup + end-to-end: a query on a fresh graph)
// and, apart from them, the warm-up run (the first run(): kernel builds,
// first-touch allocations and a full traversal; not a figure, only printed). graph.bfs:
// kernel-only and its whole bfs() call (which uploads the graph every call). CPU: its whole call.
//
// Inputs: RMAT (Graph500 parameters, edge factor 16) at scales 20 and 22 with 64, 1,024 and
// 16,384 sources; about one node in 1,024 a sink and one in 4,096 a sanitizer. The Debian package
// dependency graph from apt's Packages lists (--apt-lists), else from dpkg's status file (the
// installed packages); a few well-known libraries are sinks.
//
//   bench_dataflow [--scale 20,22] [--sources 64,1024,16384] [--edge-factor 16] [--runs 3]
//                  [--cpu-max-sources N] [--no-bfs] [--no-rmat] [--no-debian]
//                  [--apt-lists DIR] [--dpkg-status FILE] [--max-depth N] [--seed N]
//                  [--direction auto,push,pull] [--trace] [--timeline]
//
// --direction runs the engine once per listed direction on every row (default: auto alone); a
// forced direction's row is named GRAPH/push or GRAPH/pull and emits no @result line (only auto's
// figures are the engine's). The frontier at each depth is the same whatever the direction, so the
// traces of push and pull runs give every level's cost both ways. --trace prints, for every timed
// run, one line per level: "@level" and then input, sources, direction, run, batch, depth, the
// direction the level ran, work-list entries, frontier nodes, frontier out-edges, the level's
// device milliseconds and those of clearing `next` before it.
// --timeline runs one more one-shot query per row after the timed runs (a fresh engine, then one
// run) and prints where its time went: the setup's steps, each level's device time, and the rest.
//
// --cpu-max-sources N skips the CPU peer (and the comparison) on rows with more sources than N;
// such rows say so, and nothing is extrapolated. Slow figures are timed once (a run over 20 s is
// a sample of its own). VYRE_DEVICE picks the device.
//
// A row whose findings differ from the CPU's or graph.bfs's prints MISMATCH (and a line on
// stderr) instead of its figures, emits nothing, and makes the program exit with status 1.
#include "bench_util.hpp"
#include "debian_graph.hpp"
#include "graph_common.hpp"

#include <vyre/engine/dataflow.hpp>
#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/reference/dataflow.hpp>
#include <vyre/reference/graph.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace g = vyre::graph;
namespace en = vyre::engine;
namespace og = vyre::ops::graph;
namespace ref = vyre::reference;
using vyre::bench::gteps;
using vyre::bench::measure;
using vyre::bench::median;
using vyre::bench::now_seconds;
using vyre::bench::pick_sources;
using vyre::bench::read_file;
using vyre::bench::timing;
using vyre::bench::traversed_edges;

int mismatched_rows = 0; // rows whose findings differed: the exit status says so

struct settings {
    std::vector<std::uint32_t> scales{20, 22};
    std::vector<std::uint32_t> source_counts{64, 1024, 16384};
    std::uint32_t edge_factor = 16;
    int runs = 3;
    std::uint64_t cpu_max_sources = std::numeric_limits<std::uint64_t>::max();
    bool bfs = true, rmat = true, debian = true;
    std::string apt_lists = "/var/lib/apt/lists";
    std::string dpkg_status = "/var/lib/dpkg/status";
    std::uint32_t max_depth = en::unlimited_depth;
    std::uint64_t seed = 0x6a09e667f3bcc908ULL;
    std::vector<en::dataflow_direction> directions{en::dataflow_direction::automatic};
    bool trace = false;
    bool timeline = false; // one more one-shot per row, printed step by step
};

std::vector<en::dataflow_direction> parse_directions(const std::string& text) {
    std::vector<en::dataflow_direction> out;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) {
        if (item == "auto" || item == "automatic") out.push_back(en::dataflow_direction::automatic);
        else if (item == "push") out.push_back(en::dataflow_direction::push);
        else if (item == "pull") out.push_back(en::dataflow_direction::pull);
        else {
            std::fprintf(stderr, "bench_dataflow: --direction takes auto, push and pull (comma-separated), not '%s'\n", item.c_str());
            std::exit(2);
        }
    }
    if (out.empty()) {
        std::fprintf(stderr, "bench_dataflow: --direction needs at least one of auto, push, pull\n");
        std::exit(2);
    }
    return out;
}

void print_trace(const std::string& name, std::size_t sources, en::dataflow_direction direction, int run,
                 const en::dataflow_result& r) {
    double sum = 0;
    for (const auto& t : r.trace) {
        std::printf("@level %s %zu %s run %d batch %u depth %u %s entries %llu nodes %llu frontier_edges %llu ms %.4f clear_ms %.4f\n",
                    name.c_str(), sources, en::dataflow_direction_name(direction), run, t.batch, t.depth,
                    en::dataflow_direction_name(t.direction), static_cast<unsigned long long>(t.entries),
                    static_cast<unsigned long long>(t.nodes), static_cast<unsigned long long>(t.frontier_edges), t.seconds * 1e3,
                    t.clear_seconds * 1e3);
        sum += t.seconds + t.clear_seconds;
    }
    std::printf("@level %s %zu %s run %d total: %zu levels %.4f ms, kernel (with init and fills) %.4f ms, %zu findings, "
                "host: readback %.4f ms, sort %.4f ms\n",
                name.c_str(), sources, en::dataflow_direction_name(direction), run, r.trace.size(), sum * 1e3,
                r.kernel_seconds * 1e3, r.findings.size(), r.readback_seconds * 1e3, r.sort_seconds * 1e3);
    std::fflush(stdout);
}


void emit(const vyre::runtime::context& ctx, const std::string& input, std::size_t sources, const std::string& series,
          const std::string& metric, double value) {
    vyre::bench::emit({"dataflow", ctx.device().label(), input, "sources", double(sources), series, metric, value});
}

void print_table_header() {
    std::printf("%-12s %9s %10s %7s %10s %14s | %8s %7s | %8s %8s %8s %8s %8s %7s %7s %7s | %8s %7s | %8s %8s %8s %7s | %s\n", "graph",
                "nodes", "edges", "sources", "findings", "trav.edges", "cpu s", "GTEPS", "setup s", "warm s", "kern s", "GTEPS",
                "e2e s", "GTEPS", "k/cpu", "e2e/cpu", "1shot s", "1sh/cpu", "bfs k s", "GTEPS", "bfs e2e", "GTEPS", "check");
}

// --timeline: one more one-shot query (a fresh engine, then one run), step by step in milliseconds.
// The setup's steps run one after another (engine/detail/dataflow_graph.hpp), host clock; "the
// rest" is the constructor's time outside them (its checks, allocations and final wait). The query:
// each level's device time (profiling events), and what the run's wall time spent outside them
// (launching, the counters' read-back after every level, the findings' read-back and sort).
// Returns whether its findings equal `want`.
bool print_one_shot_timeline(vyre::runtime::context& ctx, const std::string& row, const g::csr_graph& gr,
                             std::span<const std::uint32_t> sources, en::dataflow_options o, std::optional<en::dataflow>& engine,
                             const std::vector<g::finding>& want) {
    engine.reset();
    ctx.finish();
    const double t0 = now_seconds();
    engine.emplace(ctx, gr, std::span<const std::uint32_t>{}, en::transfers::block_sanitizers());
    const double t1 = now_seconds();
    o.trace = true;
    const en::dataflow_result q = engine->run(sources, o);
    const double t2 = now_seconds();
    const auto& p = engine->setup_times();
    const double rest = p.total - (p.upload + p.check + p.reverse + p.host);
    std::printf("# timeline %s %zu sources, one-shot %.3f ms: setup %.3f ms (upload %.3f, check %.3f, reverse graph and "
                "tasks %.3f, host counts %.3f, the rest %.3f), then the query %.3f ms:\n",
                row.c_str(), sources.size(), (t2 - t0) * 1e3, (t1 - t0) * 1e3, p.upload * 1e3, p.check * 1e3, p.reverse * 1e3,
                p.host * 1e3, rest * 1e3, (t2 - t1) * 1e3);
    double device = 0;
    std::string levels;
    for (const auto& t : q.trace) {
        device += t.seconds + t.clear_seconds;
        char one[96];
        std::snprintf(one, sizeof one, " %u:%s/%llu/%.3f", t.depth, t.direction == en::dataflow_direction::push ? "push" : "pull",
                      static_cast<unsigned long long>(t.nodes), (t.seconds + t.clear_seconds) * 1e3);
        levels += one;
    }
    const double query = t2 - t1;
    std::printf("#   %zu levels (depth:direction/frontier nodes/device ms):%s\n", q.trace.size(), levels.c_str());
    std::printf("#   levels' device time %.3f ms, all launches %.3f ms; findings read back %.3f ms, sorted %.3f ms; the rest of "
                "the query (launching, waiting for each level's counters) %.3f ms, %.1f us a level\n",
                device * 1e3, q.kernel_seconds * 1e3, q.readback_seconds * 1e3, q.sort_seconds * 1e3,
                (query - q.kernel_seconds - q.readback_seconds - q.sort_seconds) * 1e3,
                q.trace.empty() ? 0.0 : (query - q.kernel_seconds - q.readback_seconds - q.sort_seconds) * 1e6 / double(q.trace.size()));
    std::fflush(stdout);
    return q.findings == want;
}

void run_case(vyre::runtime::context& ctx, const settings& s, const std::string& name, const g::csr_graph& gr,
              std::span<const std::uint32_t> sources) {
    const std::uint32_t depth = s.max_depth;
    const auto transfer = en::transfers::block_sanitizers_host{};
    const std::uint64_t edges = traversed_edges(gr, sources, depth);

    // The CPU peer, unless the row is above --cpu-max-sources.
    std::optional<std::vector<g::finding>> expected;
    timing cpu;
    if (sources.size() <= s.cpu_max_sources) {
        std::vector<g::finding> out;
        cpu = measure(s.runs, [&] {
            out = ref::dataflow_findings_bitparallel(gr, {}, sources, depth, transfer);
            return 0.0;
        });
        expected = std::move(out);
    }

    en::dataflow_options o;
    o.max_depth = depth;
    o.max_findings = expected ? static_cast<std::uint32_t>(std::max<std::size_t>(expected->size(), 1)) : 1u << 26;
    o.trace = s.trace;
    bool bfs_done = false;
    for (const en::dataflow_direction direction : s.directions) {
        const bool automatic = direction == en::dataflow_direction::automatic;
        const std::string row = automatic ? name : name + "/" + en::dataflow_direction_name(direction);
        o.direction = direction;
        // Ours: setup (the constructor alone: upload, the device's check, reverse graph and pull
        // tasks), first cold (it builds the setup programs) and then `runs` times, each engine freed
        // before the next; a warm-up run (kernel builds, first-touch allocations; timed apart, not a
        // figure); then runs with the graph resident. One-shot = setup + one resident run: what
        // `vyre taint` on a fresh graph costs once the programs are built.
        std::optional<en::dataflow> engine;
        en::dataflow_result r;
        double cold_setup = 0, warm_up = 0;
        timing setup;
        en::detail::dataflow_setup_times parts;
        try {
            double t0 = now_seconds();
            engine.emplace(ctx, gr, std::span<const std::uint32_t>{}, en::transfers::block_sanitizers());
            cold_setup = now_seconds() - t0;
            std::vector<double> setups; // the previous engine is freed outside the timed region
            for (int run = 0; run < s.runs; ++run) {
                engine.reset();
                ctx.finish();
                const double t1 = now_seconds();
                engine.emplace(ctx, gr, std::span<const std::uint32_t>{}, en::transfers::block_sanitizers());
                ctx.finish();
                setups.push_back(now_seconds() - t1);
            }
            setup.seconds = median(setups);
            parts = engine->setup_times();
            t0 = now_seconds();
            r = engine->run(sources, o);
            warm_up = now_seconds() - t0;
        } catch (const vyre::resource_error& e) {
            std::printf("%-12s %zu sources: engine::dataflow skipped: %s\n", row.c_str(), sources.size(), e.what());
            continue;
        }
        std::vector<en::dataflow_result> runs; // traces are printed after the timing
        const timing ours = measure(s.runs, [&] {
            r = engine->run(sources, o);
            if (s.trace) runs.push_back(r);
            return r.kernel_seconds;
        });
        for (std::size_t i = 0; i < runs.size(); ++i) print_trace(name, sources.size(), direction, int(i + 1), runs[i]);
        bool mismatch = expected && r.findings != *expected;
        if (s.timeline && automatic && !print_one_shot_timeline(ctx, row, gr, sources, o, engine, r.findings)) {
            std::printf("# timeline %s: its findings differ from the timed runs'\n", row.c_str());
            mismatch = true;
        }
        std::string check = expected ? (mismatch ? "DIFFERENT from cpu" : "same as cpu") : "cpu skipped (--cpu-max-sources)";
        if (r.batches > 1) check += " [" + std::to_string(r.batches) + " batches]";
        check += " [" + std::to_string(r.levels) + " levels: " + std::to_string(r.push_levels) + " push, " +
                 std::to_string(r.pull_levels) + " pull]";
        engine.reset(); // free the device memory before graph.bfs allocates its own

        // graph.bfs on the same question (once per row).
        timing bfs;
        std::string bfs_count = "not run";
        if (s.bfs && !bfs_done) {
            bfs_done = true;
            og::bfs_options bo;
            bo.variant = og::bfs_variant::bitset;
            bo.max_depth = depth;
            bo.max_findings = o.max_findings;
            og::bfs_result br;
            try {
                br = og::bfs(ctx, gr, sources, bo);
                bfs = measure(s.runs, [&] {
                    br = og::bfs(ctx, gr, sources, bo);
                    return br.kernel_seconds;
                });
                bfs_count = std::to_string(br.findings.size());
                if (br.findings == r.findings) check += ", same as graph.bfs";
                else {
                    check += ", DIFFERENT from graph.bfs";
                    mismatch = true;
                }
            } catch (const vyre::resource_error& e) {
                check += std::string(", graph.bfs skipped: ") + e.what();
            }
        }

        if (mismatch) {
            // No figures for a wrong answer: the row says MISMATCH, stderr says so too, nothing is
            // emitted, and main() exits with status 1.
            ++mismatched_rows;
            std::printf("%-12s %9u %10llu %7zu %10zu %14llu | MISMATCH, no figures: %s\n", row.c_str(), gr.node_count(),
                        static_cast<unsigned long long>(gr.edge_count()), sources.size(), r.findings.size(),
                        static_cast<unsigned long long>(edges), check.c_str());
            std::fflush(stdout);
            std::fprintf(stderr, "bench_dataflow: MISMATCH on %s with %zu sources: %s (findings: ours %zu, cpu %s, graph.bfs %s)\n",
                         row.c_str(), sources.size(), check.c_str(), r.findings.size(),
                         expected ? std::to_string(expected->size()).c_str() : "not run", bfs_count.c_str());
            continue;
        }
        const double ratio_k = expected && ours.kernel_seconds > 0 ? cpu.seconds / ours.kernel_seconds : 0;
        const double ratio_e = expected && ours.seconds > 0 ? cpu.seconds / ours.seconds : 0;
        const double one_shot = setup.seconds + ours.seconds;
        const double ratio_1 = expected && one_shot > 0 ? cpu.seconds / one_shot : 0;
        std::printf("%-12s %9u %10llu %7zu %10zu %14llu | %8.4f %7.2f | %8.4f %8.3f %8.4f %8.2f %8.4f %7.2f %7.2f %7.2f | %8.4f %7.2f | %8.4f %8.2f %8.4f %7.2f | %s\n",
                    row.c_str(), gr.node_count(), static_cast<unsigned long long>(gr.edge_count()), sources.size(),
                    r.findings.size(), static_cast<unsigned long long>(edges), cpu.seconds, gteps(edges, cpu.seconds), setup.seconds,
                    warm_up, ours.kernel_seconds, gteps(edges, ours.kernel_seconds), ours.seconds, gteps(edges, ours.seconds),
                    ratio_k, ratio_e, one_shot, ratio_1, bfs.kernel_seconds, gteps(edges, bfs.kernel_seconds), bfs.seconds,
                    gteps(edges, bfs.seconds), check.c_str());
        std::printf("%-12s setup: %.4f s cold (builds its programs), %.4f s warm: upload %.4f, check %.4f, reverse graph %.4f, "
                    "host counts %.4f\n",
                    row.c_str(), cold_setup, setup.seconds, parts.upload, parts.check, parts.reverse, parts.host);
        std::fflush(stdout);
        if (!automatic) continue; // a forced direction is a diagnostic, not the engine's figure
        const unsigned threads = vyre::util::thread_count();
        if (expected) {
            emit(ctx, name, sources.size(), "cpu bit-parallel " + std::to_string(threads) + " threads", "seconds", cpu.seconds);
            emit(ctx, name, sources.size(), "cpu bit-parallel " + std::to_string(threads) + " threads", "GTEPS", gteps(edges, cpu.seconds));
            emit(ctx, name, sources.size(), "vyre dataflow", "kernel speed-up vs cpu", ratio_k);
            emit(ctx, name, sources.size(), "vyre dataflow", "e2e speed-up vs cpu", ratio_e);
            emit(ctx, name, sources.size(), "vyre dataflow", "one-shot speed-up vs cpu", ratio_1);
        }
        emit(ctx, name, sources.size(), "vyre dataflow", "kernel seconds", ours.kernel_seconds);
        emit(ctx, name, sources.size(), "vyre dataflow", "kernel GTEPS", gteps(edges, ours.kernel_seconds));
        emit(ctx, name, sources.size(), "vyre dataflow", "e2e seconds", ours.seconds);
        emit(ctx, name, sources.size(), "vyre dataflow", "e2e GTEPS", gteps(edges, ours.seconds));
        emit(ctx, name, sources.size(), "vyre dataflow", "setup seconds", setup.seconds);
        emit(ctx, name, sources.size(), "vyre dataflow", "one-shot seconds", one_shot);
        emit(ctx, name, sources.size(), "vyre dataflow", "cold setup seconds", cold_setup);
        if (s.bfs && bfs.seconds > 0) {
            emit(ctx, name, sources.size(), "graph.bfs bitset", "kernel GTEPS", gteps(edges, bfs.kernel_seconds));
            emit(ctx, name, sources.size(), "graph.bfs bitset", "e2e GTEPS", gteps(edges, bfs.seconds));
        }
    }
}

void bench_rmat(vyre::runtime::context& ctx, const settings& s) {
    for (const std::uint32_t scale : s.scales) {
        const double t0 = now_seconds();
        g::csr_graph gr = g::rmat(scale, s.edge_factor, s.seed + scale);
        g::splitmix64 rng(s.seed ^ scale);
        for (auto& label : gr.node_data) {
            const auto r = g::uniform_below(rng, 4096);
            if (r < 4) label = g::make_label(g::role::sink);
            else if (r == 4) label = g::make_label(g::role::sanitizer);
        }
        std::printf("# RMAT scale %u, edge factor %u: %u nodes, %llu edges (generated in %.1f s)\n", scale, s.edge_factor,
                    gr.node_count(), static_cast<unsigned long long>(gr.edge_count()), now_seconds() - t0);
        for (const std::uint32_t count : s.source_counts)
            run_case(ctx, s, "rmat-" + std::to_string(scale), gr, pick_sources(gr, count, s.seed + count));
    }
}

void bench_debian(vyre::runtime::context& ctx, const settings& s) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(s.apt_lists, ec)) {
        const std::string name = e.path().filename().string();
        if (name.ends_with("_Packages") || name.ends_with("_Packages.lz4")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    std::string label = "debian";
    if (files.empty() && std::filesystem::exists(s.dpkg_status)) {
        files.push_back(s.dpkg_status); // the installed packages: same stanza format
        label = "debian-installed";
    }
    if (files.empty()) {
        std::printf("# debian: no apt Packages lists in %s and no %s; skipped\n", s.apt_lists.c_str(), s.dpkg_status.c_str());
        return;
    }
    vyre::bench::package_graph_builder builder;
    for (const auto& f : files) {
        std::string text = read_file(f);
        if (f.extension() == ".lz4") {
            const auto bytes = vyre::engine::decompress_lz4_host(
                std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
            text.assign(bytes.begin(), bytes.end());
        }
        builder.add_index(text);
        std::printf("# debian: %s (%zu bytes of index)\n", f.c_str(), text.size());
    }
    vyre::bench::package_graph pg = builder.build();
    const char* watched[] = {"liblzma5", "libssl3", "zlib1g", "libsystemd0", "libxml2", "libcurl4", "libexpat1",
                             "libgnutls30", "libpcre2-8-0", "libsqlite3-0", "libgcc-s1", "libc6"};
    std::string sinks;
    for (const char* n : watched) {
        const std::uint32_t v = pg.find(n);
        if (v == pg.graph.node_count()) continue;
        pg.graph.node_data[v] = g::make_label(g::role::sink);
        sinks += std::string(sinks.empty() ? "" : ", ") + n;
    }
    std::printf("# %s: %zu packages, %u nodes, %llu dependency edges; sinks: %s\n", label.c_str(), pg.packages,
                pg.graph.node_count(), static_cast<unsigned long long>(pg.graph.edge_count()), sinks.c_str());
    for (const std::uint32_t count : s.source_counts)
        run_case(ctx, s, label, pg.graph, pick_sources(pg.graph, std::min<std::size_t>(count, pg.packages), s.seed + count));
}

} // namespace

int main(int argc, char** argv) {
    settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&] {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_dataflow: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--scale") s.scales = vyre::bench::parse_u32_list(value());
        else if (a == "--sources") s.source_counts = vyre::bench::parse_u32_list(value());
        else if (a == "--edge-factor") s.edge_factor = static_cast<std::uint32_t>(std::stoul(value()));
        else if (a == "--runs") s.runs = std::max(1, std::stoi(value()));
        else if (a == "--cpu-max-sources") s.cpu_max_sources = std::stoull(value());
        else if (a == "--apt-lists") s.apt_lists = value();
        else if (a == "--dpkg-status") s.dpkg_status = value();
        else if (a == "--max-depth") s.max_depth = static_cast<std::uint32_t>(std::stoul(value()));
        else if (a == "--seed") s.seed = std::stoull(value(), nullptr, 0);
        else if (a == "--no-bfs") s.bfs = false;
        else if (a == "--no-rmat") s.rmat = false;
        else if (a == "--no-debian") s.debian = false;
        else if (a == "--direction") s.directions = parse_directions(value());
        else if (a == "--trace") s.trace = true;
        else if (a == "--timeline") s.timeline = true;
        else {
            std::fprintf(stderr,
                         "usage: bench_dataflow [--scale 20,22] [--sources 64,1024,16384] [--edge-factor 16] [--runs 3]\n"
                         "                      [--cpu-max-sources N] [--no-bfs] [--no-rmat] [--no-debian]\n"
                         "                      [--apt-lists DIR] [--dpkg-status FILE] [--max-depth N] [--seed N]\n"
                         "                      [--direction auto,push,pull] [--trace] [--timeline]\n");
            return a == "--help" ? 0 : 2;
        }
    }
    vyre::runtime::context ctx(vyre::runtime::choose_device(), /*profiling=*/true);
    vyre::bench::print_header(ctx, "engine::dataflow (block_sanitizers) vs CPU bit-parallel on all cores vs graph.bfs (bitset)");
    std::printf("# host: %u hardware threads; GTEPS = 1e9 traversed edges per second, summed over sources; median of %d runs; "
                "e2e = run() with the graph resident (setup s: the constructor alone, upload + the device's check, reverse graph "
                "and pull tasks, median of the runs after a cold one; warm s: the first run(), with kernel builds, not a figure); "
                "1shot = setup + e2e, a fresh graph's query; k/cpu, e2e/cpu, 1sh/cpu: CPU seconds over ours\n",
                vyre::util::thread_count(), s.runs);
    print_table_header();
    if (s.rmat) bench_rmat(ctx, s);
    if (s.debian) bench_debian(ctx, s);
    if (mismatched_rows > 0) {
        std::fprintf(stderr, "bench_dataflow: %d row%s MISMATCHED (findings differ); their figures were not emitted\n",
                     mismatched_rows, mismatched_rows == 1 ? "" : "s");
        return 1;
    }
    return 0;
}
