// bench_graph: graph.bfs on the device against the CPU peer (reference::bfs_findings_bitparallel,
// a bit-parallel multi-source BFS on every host core), same graph, same sources, same run, results
// compared record for record. Figures are traversed edges per second summed over sources (TEPS:
// for each source, the out-edges of every node it reaches and expands), kernel-only (device time
// of every launch) and end-to-end (the whole bfs() call: validation, reverse CSR, uploads,
// launches, readback, canonical sort; the CPU column is its whole call as well).
//
// Inputs: RMAT graphs (Graph500 parameters, edge factor 16) at scales 16, 18, 20 with 64, 1,024 and
// 16,384 sources, and the Debian package dependency graph built from the machine's apt lists.
// Sinks: about one node in 1,024 (RMAT); a few well-known libraries (Debian). No depth limit.
//
//   bench_graph [--scale 16,18,20] [--sources 64,1024,16384] [--edge-factor 16] [--runs 3]
//               [--apt-lists /var/lib/apt/lists] [--no-rmat] [--no-debian] [--bounded] [--seed N]
//
// --bounded also runs the bounded_queue variant where a level could exceed its 4096-node queue
// (its overflow count is printed and its results are not comparable then); by default it runs
// only where it is exact by construction. VYRE_DEVICE picks the device.
#include "bench_util.hpp"
#include "debian_graph.hpp"
#include "graph_common.hpp"

#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/reference/graph.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace g = vyre::graph;
namespace og = vyre::ops::graph;
namespace ref = vyre::reference;
using vyre::bench::gteps;
using vyre::bench::measure;
using vyre::bench::now_seconds;
using vyre::bench::pick_sources;
using vyre::bench::read_file;
using vyre::bench::timing;
using vyre::bench::traversed_edges;

struct settings {
    std::vector<std::uint32_t> scales{16, 18, 20};
    std::vector<std::uint32_t> source_counts{64, 1024, 16384};
    std::uint32_t edge_factor = 16;
    int runs = 3;
    std::string apt_lists = "/var/lib/apt/lists";
    bool rmat = true, debian = true, bounded = false;
    std::uint64_t seed = 0x6a09e667f3bcc908ULL;
};


void print_table_header() {
    std::printf("%-22s %9s %10s %7s %10s %13s | %8s %8s | %-13s %8s %8s %8s %8s %7s %s\n", "graph", "nodes", "edges", "sources",
                "findings", "trav.edges", "cpu s", "GTEPS", "gpu variant", "kern s", "GTEPS", "e2e s", "GTEPS", "e2e/cpu",
                "check");
}

// One graph and one source set: the CPU peer, then the device variants, verified against it.
void run_case(vyre::runtime::context& ctx, const settings& s, const std::string& name, const g::csr_graph& gr,
              std::span<const std::uint32_t> sources) {
    const std::uint32_t depth = og::unlimited_depth;
    std::vector<g::finding> expected;
    const timing cpu = measure(s.runs, [&] {
        expected = ref::bfs_findings_bitparallel(gr, sources, depth);
        return 0.0;
    });
    const std::uint64_t edges = traversed_edges(gr, sources, depth);
    const auto row = [&](const char* variant, const timing& t, const std::string& check) {
        std::printf("%-22s %9u %10llu %7zu %10zu %13llu | %8.4f %8.3f | %-13s %8.4f %8.3f %8.4f %8.3f %7.2f %s\n", name.c_str(),
                    gr.node_count(), static_cast<unsigned long long>(gr.edge_count()), sources.size(), expected.size(),
                    static_cast<unsigned long long>(edges), cpu.seconds, gteps(edges, cpu.seconds), variant, t.kernel_seconds,
                    gteps(edges, t.kernel_seconds), t.seconds, gteps(edges, t.seconds), t.seconds > 0 ? cpu.seconds / t.seconds : 0,
                    check.c_str());
        std::fflush(stdout);
    };
    const auto emit_row = [&](const std::string& series, const char* metric, double value) {
        vyre::bench::emit({"graph", ctx.device().label(), name, "sources", double(sources.size()), series, metric, value});
    };
    const std::string cpu_series = "CPU bit-parallel " + std::to_string(vyre::util::thread_count()) + " threads";
    emit_row(cpu_series, "seconds", cpu.seconds);
    emit_row(cpu_series, "GTEPS", gteps(edges, cpu.seconds));
    if (expected.size() > std::numeric_limits<std::uint32_t>::max() / 4) {
        std::printf("%-22s %zu sources: %zu findings exceed one findings buffer; skipped\n", name.c_str(), sources.size(), expected.size());
        return;
    }
    std::vector<og::bfs_variant> variants{og::bfs_variant::bitset};
    const bool bounded_exact = og::choose_variant(gr, 1, depth) == og::bfs_variant::bounded_queue;
    if (bounded_exact || s.bounded) variants.push_back(og::bfs_variant::bounded_queue);
    for (const auto v : variants) {
        og::bfs_options o;
        o.variant = v;
        o.max_depth = depth;
        o.max_findings = static_cast<std::uint32_t>(std::max<std::size_t>(expected.size(), 1));
        og::bfs_result r;
        try {
            r = og::bfs(ctx, gr, sources, o); // warm-up: builds the kernels, first-touch allocations
            const timing t = measure(s.runs, [&] {
                r = og::bfs(ctx, gr, sources, o);
                return r.kernel_seconds;
            });
            std::string check = r.findings == expected && r.total_found == expected.size() ? "same" : "DIFFERENT";
            if (r.queue_overflows) check += " (" + std::to_string(r.queue_overflows) + " queue overflows)";
            if (r.batches > 1) check += " [" + std::to_string(r.batches) + " batches]";
            row(og::bfs_variant_name(v), t, check);
            if (r.findings == expected && r.total_found == expected.size()) {
                const std::string series = std::string("vyre ") + og::bfs_variant_name(v);
                emit_row(series, "kernel seconds", t.kernel_seconds);
                emit_row(series, "e2e seconds", t.seconds);
                emit_row(series, "kernel GTEPS", gteps(edges, t.kernel_seconds));
                emit_row(series, "e2e GTEPS", gteps(edges, t.seconds));
            }
        } catch (const vyre::resource_error& e) {
            std::printf("%-22s %zu sources, %s: skipped: %s\n", name.c_str(), sources.size(), og::bfs_variant_name(v), e.what());
        }
    }
}

void bench_rmat(vyre::runtime::context& ctx, const settings& s) {
    for (const std::uint32_t scale : s.scales) {
        const double t0 = now_seconds();
        g::csr_graph gr = g::rmat(scale, s.edge_factor, s.seed + scale);
        g::splitmix64 rng(s.seed ^ scale);
        for (auto& label : gr.node_data)
            if (g::uniform_below(rng, 1024) == 0) label = g::make_label(g::role::sink);
        std::printf("# RMAT scale %u, edge factor %u: %u nodes, %llu edges (generated in %.1f s)\n", scale, s.edge_factor,
                    gr.node_count(), static_cast<unsigned long long>(gr.edge_count()), now_seconds() - t0);
        for (const std::uint32_t count : s.source_counts) {
            const auto sources = pick_sources(gr, count, s.seed + count);
            run_case(ctx, s, "rmat-" + std::to_string(scale), gr, sources);
        }
    }
}

void bench_debian(vyre::runtime::context& ctx, const settings& s) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(s.apt_lists, ec)) {
        const std::string name = e.path().filename().string();
        if (name.ends_with("_Packages") || name.ends_with("_Packages.lz4")) files.push_back(e.path());
        else if (name.find("_Packages.") != std::string::npos)
            std::printf("# debian: %s: compression not read here (only plain and .lz4 indexes); skipped\n", name.c_str());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
        std::printf("# debian: no apt Packages lists in %s (run apt-get update, or pass --apt-lists DIR); skipped\n",
                    s.apt_lists.c_str());
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
        std::printf("# debian: %s (%zu bytes of index)\n", f.filename().c_str(), text.size());
    }
    vyre::bench::package_graph pg = builder.build();
    const char* watched[] = {"liblzma5", "libssl3", "zlib1g", "libsystemd0", "libxml2", "libcurl4", "libexpat1",
                             "libgnutls30", "libpcre2-8-0", "libsqlite3-0", "libgcc-s1", "libc6"};
    std::string sinks;
    for (const char* name : watched) {
        const std::uint32_t v = pg.find(name);
        if (v == pg.graph.node_count()) continue;
        pg.graph.node_data[v] = g::make_label(g::role::sink);
        sinks += std::string(sinks.empty() ? "" : ", ") + name;
    }
    std::printf("# debian: %zu package records, %zu packages, %u nodes with virtual and missing names, %llu dependency edges; "
                "sinks: %s\n",
                pg.stanzas, pg.packages, pg.graph.node_count(), static_cast<unsigned long long>(pg.graph.edge_count()),
                sinks.c_str());
    for (const std::uint32_t count : s.source_counts) {
        const auto sources = pick_sources(pg.graph, std::min<std::size_t>(count, pg.packages), s.seed + count);
        run_case(ctx, s, "debian", pg.graph, sources);
    }
    // Every package at once: "what does each package pull in?"
    std::vector<std::uint32_t> all;
    for (std::uint32_t v = 0; v < pg.graph.node_count(); ++v)
        if (pg.graph.offsets[v + 1] > pg.graph.offsets[v]) all.push_back(v);
    run_case(ctx, s, "debian-all", pg.graph, all);
}

} // namespace

int main(int argc, char** argv) {
    settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&] {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_graph: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--scale") s.scales = vyre::bench::parse_u32_list(value());
        else if (a == "--sources") s.source_counts = vyre::bench::parse_u32_list(value());
        else if (a == "--edge-factor") s.edge_factor = static_cast<std::uint32_t>(std::stoul(value()));
        else if (a == "--runs") s.runs = std::max(1, std::stoi(value()));
        else if (a == "--apt-lists") s.apt_lists = value();
        else if (a == "--seed") s.seed = std::stoull(value(), nullptr, 0);
        else if (a == "--no-rmat") s.rmat = false;
        else if (a == "--no-debian") s.debian = false;
        else if (a == "--bounded") s.bounded = true;
        else {
            std::fprintf(stderr,
                         "usage: bench_graph [--scale 16,18,20] [--sources 64,1024,16384] [--edge-factor 16] [--runs 3]\n"
                         "                   [--apt-lists DIR] [--no-rmat] [--no-debian] [--bounded] [--seed N]\n");
            return a == "--help" ? 0 : 2;
        }
    }
    vyre::runtime::context ctx(vyre::runtime::choose_device(), /*profiling=*/true);
    vyre::bench::print_header(ctx, "graph.bfs: device (both variants) vs CPU bit-parallel BFS on all cores, no depth limit");
    std::printf("# host: %u hardware threads; GTEPS = 1e9 traversed edges per second, summed over sources; "
                "median of %d runs\n",
                vyre::util::thread_count(), s.runs);
    print_table_header();
    if (s.rmat) bench_rmat(ctx, s);
    if (s.debian) bench_debian(ctx, s);
    return 0;
}
