// The zstd pipeline (engine/zstd_decompress.hpp: frames routed to the device through
// compression.zstd, to the host's libzstd, or split between them) against libzstd on all host
// cores, same files, same run, one row per route. GB/s of decompressed output:
//   ours->host    .zst in pinned host memory -> decompressed bytes in pinned host memory (parse included)
//   ours->device  .zst in pinned host memory -> decompressed bytes in one device buffer
//   kernel        compression.zstd alone over every block, input already on the device:
//                 raw/RLE bytes written per second of kernel time (profiling events); on the
//                 device route's row, compression.zstd.frames alone over every frame (all bytes)
//   libzstd       ZSTD_decompressDCtx, frames in parallel on std::threads into the same pinned
//                 output (one frame: one thread, as libzstd decodes a frame serially)
// Every output is compared with the original before anything is printed. The comment lines under
// each row say which path the frames took (device / hybrid / host / split), how much was
// dispatched and uploaded, and where the time went.
//   bench_zstd [PATH] [--mib N] [--runs N] [--threads N] [--level L] [--cases frames64k,frames1m,single,rawrle]
//              [--routes automatic,hybrid,host,device,device:frames,device:blocks,device@SHARE] [--timeline] [--release-kept]
// --routes: the routes measured on each case (default automatic,hybrid). A route named with
// @SHARE sets engine::zstd_options::host_share: into host memory, the host's cores decode that
// share of the output (the last frames) beside the device (device@0.3, automatic@0). The automatic route's
// figures keep the series names "vyre hybrid -> host" / "-> device" (bench/report.py's targets);
// the others are suffixed " (route NAME)". device takes its program as engine::zstd_options does
// (automatic); device:frames and device:blocks force compression.zstd.frames or
// compression.zstd.blocks, whose kern column is then that program alone (for blocks: its passes
// and the host's scheduling between them, wall clock, input resident).
// --timeline: after the rounds, one more run of each route into host and into device memory on
// profiling queues, printed group by group: when the device route walked, uploaded, ran, hashed,
// copied, waited and checked each group (engine::zstd_group_steps), in ms from its start.
// --release-kept: frees what the device route keeps on the context (runtime::context::release_kept)
// at the end of each of our calls, inside its time: every call then makes its queues, buffers and
// threads anew and frees them, as one-off calls do (to compare with the usual repeated calls).
// PATH is a file (its first N MiB) or a folder (its files in sorted path order, concatenated up to
// N MiB, as a tar would hold them); default /usr/share. The cases:
//   frames64k  the data cut into 64 KiB chunks, each one frame (ZSTD_compress2, checksums on)
//   frames1m   the same with 1 MiB chunks
//   single     one frame of everything (libzstd's multithreaded compressor: 128 KiB blocks)
//   rawrle     raw/RLE-heavy: 128 KiB blocks of random bytes (stored raw) and of one repeated
//              byte (RLE), 1 MiB frames, made by ZSTD_compress2 itself
#include "bench_util.hpp"
#include "corpus.hpp"

#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/ops/compression/zstd_blocks.hpp>
#include <vyre/ops/compression/zstd_frames.hpp>
#include <vyre/ops/compression/zstd_fse_tables.hpp>
#include <vyre/runtime/buffer.hpp>

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace rt = vyre::runtime;
namespace fmt = vyre::format;
namespace eng = vyre::engine;
using vyre::bench::median;
using vyre::bench::parallel_for;
using vyre::bench::now_seconds;
using bytes = std::vector<std::uint8_t>;

namespace {

// A route as measured: the engine's route, and on the device route its program.
struct route_choice {
    eng::zstd_route route = eng::zstd_route::automatic;
    eng::zstd_device_program program = eng::zstd_device_program::automatic;
    std::optional<double> host_share; // engine::zstd_options::host_share
    bool operator==(const route_choice&) const = default;
    std::string name() const {
        char share[32] = "";
        if (host_share) std::snprintf(share, sizeof share, "@%g", *host_share);
        return std::string(eng::zstd_route_name(route)) +
               (program == eng::zstd_device_program::automatic ? "" : std::string(":") + eng::zstd_device_program_name(program)) + share;
    }
};

std::optional<route_choice> route_from_name(std::string name) {
    route_choice c;
    if (const std::size_t at = name.find('@'); at != std::string::npos) {
        try {
            c.host_share = std::stod(name.substr(at + 1));
        } catch (const std::exception&) {
            return std::nullopt;
        }
        if (!(*c.host_share >= 0 && *c.host_share < 1)) return std::nullopt;
        name = name.substr(0, at);
    }
    const std::size_t colon = name.find(':');
    const auto r = eng::zstd_route_from_name(name.substr(0, colon));
    if (!r) return std::nullopt;
    c.route = *r;
    if (colon == std::string::npos) return c;
    const auto p = eng::zstd_device_program_from_name(name.substr(colon + 1));
    if (!p || *r != eng::zstd_route::device) return std::nullopt;
    c.program = *p;
    return c;
}

struct settings {
    std::string path = "/usr/share";
    std::size_t mib = 256;
    int runs = 7;
    int level = 3;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::uint64_t frames_per_dispatch = 0; // engine::zstd_options' (0: its default)
    std::vector<std::string> cases = {"frames64k", "frames1m", "single", "rawrle"};
    std::vector<route_choice> routes = {{eng::zstd_route::automatic, {}, {}}, {eng::zstd_route::hybrid, {}, {}}};
    // Kernel-only figures of other program shapes on the raw/RLE case: "reference" (the seed's
    // one block per invocation) or WORKGROUPxUNROLLxSLICE of the cooperative program.
    std::vector<std::string> shapes;
    bool timeline = false; // one more run of each route on profiling queues: when each group's steps ran
    bool release_kept = false; // free what the route keeps at the end of each call (timed)
};

bytes load_input(const settings& s) {
    const std::size_t limit = s.mib << 20;
    return vyre::bench::read_input_path(s.path, limit, "bench_zstd");
}

// Raw/RLE-heavy data: 128 KiB blocks, alternately (at random) incompressible and one byte repeated.
bytes raw_rle_data(std::size_t n) {
    std::mt19937_64 rng(42);
    bytes b(n);
    for (std::size_t at = 0; at < n; at += 128u << 10) {
        const std::size_t len = std::min<std::size_t>(128u << 10, n - at);
        if (rng() % 2) {
            for (std::size_t i = 0; i < len; ++i) b[at + i] = static_cast<std::uint8_t>(rng());
        } else {
            std::memset(b.data() + at, static_cast<int>(rng() & 0xFF), len);
        }
    }
    return b;
}

bytes compress_frame(std::span<const std::uint8_t> in, int level, int workers) {
    return vyre::bench::zstd_compress_frame(in, level, workers);
}

// Independent frames of `chunk` bytes each, compressed in parallel, concatenated.
bytes compress_frames(const bytes& in, std::size_t chunk, int level, unsigned threads) {
    bytes out;
    for (const auto& p : vyre::bench::zstd_compress_chunks(in, chunk, level, threads)) out.insert(out.end(), p.begin(), p.end());
    return out;
}

// libzstd on all cores: frames found with libzstd's own functions, decoded in parallel, each into
// its place. Returns the decoded size (0 on any error).
std::size_t libzstd_decompress(std::span<const std::uint8_t> zst, std::span<std::uint8_t> out, unsigned threads) {
    struct frame {
        std::size_t in_at, in_size, out_at, out_size;
    };
    std::vector<frame> frames;
    std::size_t in = 0, at = 0;
    while (in < zst.size()) {
        const std::size_t size = ZSTD_findFrameCompressedSize(zst.data() + in, zst.size() - in);
        const unsigned long long content = ZSTD_getFrameContentSize(zst.data() + in, zst.size() - in);
        if (ZSTD_isError(size) || content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN) return 0;
        frames.push_back({in, size, at, static_cast<std::size_t>(content)});
        in += size;
        at += static_cast<std::size_t>(content);
    }
    if (at > out.size()) return 0;
    std::atomic<bool> ok{true};
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < std::min<std::size_t>(threads, frames.size()); ++t)
        pool.emplace_back([&] {
            ZSTD_DCtx* d = ZSTD_createDCtx();
            for (std::size_t i = next++; i < frames.size(); i = next++) {
                const frame& f = frames[i];
                const std::size_t n = ZSTD_decompressDCtx(d, out.data() + f.out_at, f.out_size, zst.data() + f.in_at, f.in_size);
                if (ZSTD_isError(n) || n != f.out_size) ok = false;
            }
            ZSTD_freeDCtx(d);
        });
    for (auto& th : pool) th.join();
    return ok ? at : 0;
}

// compression.zstd alone: every block of the file in one dispatch, input resident on the device.
double kernel_seconds(rt::context& ctx, const fmt::zstd_file& file, std::span<const std::uint8_t> zst, int runs,
                      const vyre::ops::block_kernel* kernel = nullptr) {
    if (!kernel) kernel = &vyre::ops::kernel_for<vyre::ops::compression::zstd_op>(vyre::ops::block_variant::automatic, ctx.device());
    if (file.block_count == 0 || file.staging_size > 0xFFFFFFFFu || zst.size() > 0xFFFFFFFFu) return 0;
    std::vector<vyre::compression::block_descriptor> d;
    std::uint32_t largest = 1;
    for (const auto& e : fmt::zstd_block_extents(file)) {
        d.push_back({static_cast<std::uint32_t>(e.input_offset), e.input_size, static_cast<std::uint32_t>(e.output_offset),
                     e.output_size, 0});
        largest = std::max(largest, e.output_size);
    }
    vyre::ops::block_buffers b;
    b.input_bytes = zst.size();
    b.input = rt::allocate(ctx, vyre::runtime::padded_bytes(zst.size()), CL_MEM_READ_ONLY);
    rt::write(ctx, b.input, zst.data(), zst.size());
    b.descriptors = rt::upload(ctx, std::span<const vyre::compression::block_descriptor>(d), CL_MEM_READ_ONLY);
    b.block_count = static_cast<std::uint32_t>(d.size());
    b.output_bytes = file.staging_size;
    b.output = rt::allocate(ctx, vyre::runtime::padded_bytes(file.staging_size));
    b.statuses = rt::allocate(ctx, d.size() * sizeof(vyre::compression::block_status));
    b.largest_output = largest;
    std::vector<double> t;
    for (int r = 0; r < runs + 1; ++r) {
        vyre::ops::block_launch_params params;
        auto e = vyre::ops::enqueue_blocks(ctx, *kernel, b, params);
        e.wait();
        if (r > 0) t.push_back(vyre::bench::event_seconds(e));
    }
    return median(t);
}

// compression.zstd.frames alone: every frame of the file in one dispatch, input resident on the
// device (0 when the file outgrows one dispatch).
double frames_kernel_seconds(rt::context& ctx, const fmt::zstd_file& file, std::span<const std::uint8_t> zst, int runs) {
    if (file.frames.empty() || file.staging_size > 0xFFFFFFFFu || zst.size() > 0xFFFFFFFFu) return 0;
    std::vector<std::size_t> all(file.frames.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const fmt::zstd_sections sections = fmt::plan_zstd_sections(zst, file, all);
    auto input = rt::allocate(ctx, rt::padded_bytes(sections.input_bytes), CL_MEM_READ_ONLY);
    rt::write(ctx, input, zst.data() + sections.input_base, sections.input_bytes);
    std::vector<double> t;
    for (int r = 0; r < runs + 1; ++r) {
        auto b = vyre::ops::compression::enqueue_zstd_frames(ctx, input, sections.input_bytes, sections);
        b.dispatch.wait();
        if (r > 0) t.push_back(vyre::bench::event_seconds(b.dispatch));
    }
    return median(t);
}

// The host's walk over every frame (format::plan_zstd_sections on `threads` threads), with the FSE
// tables built on the host and with them described for the device; and compression.zstd.fse_tables
// building the described ones, kernel only. Printed as a comment line.
void walk_figures(rt::context& ctx, const fmt::zstd_file& file, std::span<const std::uint8_t> zst, int runs, unsigned threads,
                  std::uint64_t output_bytes) {
    if (file.frames.empty()) return;
    std::vector<std::size_t> all(file.frames.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    std::vector<double> built, described, kernel;
    fmt::zstd_sections host, device;
    for (int r = 0; r < runs + 1; ++r) {
        host = {}, device = {};
        double t0 = now_seconds();
        host = fmt::plan_zstd_sections(zst, file, all, fmt::zstd_plan_options{threads, fmt::zstd_default_max_plan_bytes, false});
        double t1 = now_seconds();
        device = fmt::plan_zstd_sections(zst, file, all, fmt::zstd_plan_options{threads, fmt::zstd_default_max_plan_bytes, true});
        double t2 = now_seconds();
        if (r > 0) built.push_back(t1 - t0), described.push_back(t2 - t1);
    }
    if (device.table_words() > 0xFFFFFFFFu || device.table_words() * 4 > ctx.device().max_allocation) return;
    auto tables = rt::allocate(ctx, std::max<std::uint64_t>(1, device.table_words()) * 4);
    vyre::ops::compression::zstd_fse_tables_buffers b;
    for (int r = 0; r < runs + 1; ++r) {
        vyre::ops::compression::enqueue_zstd_fse_tables(ctx, tables, device.table_words(), device.fse_descriptions, b);
        if (b.dispatch.get() == nullptr) return;
        b.dispatch.wait();
        if (r > 0) kernel.push_back(vyre::bench::event_seconds(b.dispatch));
    }
    const double gib = double(output_bytes) / double(1u << 30);
    std::printf("#   host walk, %u threads: %.2f ms with the FSE tables built (%.1f ms per GiB of output, %.1f MiB of table words), "
                "%.2f ms with them described (%.1f ms per GiB, %.1f MiB of table words and descriptions); "
                "compression.zstd.fse_tables builds %zu tables (%.1f MiB) in %.3f ms\n",
                threads, median(built) * 1e3, median(built) * 1e3 / gib, double(host.tables.size()) * 4 / double(1 << 20),
                median(described) * 1e3, median(described) * 1e3 / gib,
                double(device.tables.size() + device.fse_descriptions.size()) * 4 / double(1 << 20),
                device.fse_descriptions.size() / vyre::compression::zstd_fse_description_words, double(device.described_words) * 4 / double(1 << 20),
                median(kernel) * 1e3);
}

// compression.zstd.blocks alone: every frame of the file through its passes, input resident on
// the device; wall clock of the passes and the host's scheduling between them (0 when it does not fit).
double blocks_seconds(rt::context& ctx, const fmt::zstd_file& file, std::span<const std::uint8_t> zst, int runs, std::size_t* rounds) {
    if (file.frames.empty() || file.staging_size > 0xFFFFFFFFu || zst.size() > 0xFFFFFFFFu) return 0;
    std::vector<std::size_t> all(file.frames.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    const fmt::zstd_sections sections = fmt::plan_zstd_sections(zst, file, all);
    if (!vyre::ops::compression::zstd_blocks_fit(ctx.device(), sections)) return 0;
    auto input = rt::allocate(ctx, rt::padded_bytes(sections.input_bytes), CL_MEM_READ_ONLY);
    rt::write(ctx, input, zst.data() + sections.input_base, sections.input_bytes);
    std::vector<double> t;
    for (int r = 0; r < runs + 1; ++r) {
        const double t0 = now_seconds();
        const auto b = vyre::ops::compression::decode_zstd_blocks(ctx, input, sections.input_bytes, sections);
        const double t1 = now_seconds();
        *rounds = b.rounds;
        if (r > 0) t.push_back(t1 - t0);
        if (r == runs)
            std::printf("#   compression.zstd.blocks passes, last run: decode %.2f ms, execute %.2f ms, resolve %.2f ms (%zu rounds), "
                        "%llu sequences; kernels alone: FSE tables %.2f ms, decode %.2f ms, execute %.2f ms, resolve %.2f ms\n",
                        b.decode_seconds * 1e3, b.execute_seconds * 1e3, b.resolve_seconds * 1e3, b.rounds,
                        static_cast<unsigned long long>(b.sequences), b.tables_kernel_seconds * 1e3, b.decode_kernel_seconds * 1e3,
                        b.execute_kernel_seconds * 1e3, b.resolve_kernel_seconds * 1e3);
    }
    return median(t);
}

// One more run into host and into device memory with zstd_options::timeline, each group's steps
// printed (ms from the route's start; "-" where a step did not run).
void print_timelines(rt::context& ctx, std::span<const std::uint8_t> in, eng::zstd_options options, std::span<std::uint8_t> out) {
    options.timeline = true;
    const fmt::zstd_file parsed = fmt::parse_zstd(in, {std::uint64_t{1} << 40, 31});
    const eng::zstd_report into_host = eng::decompress_zstd_into(ctx, in, parsed, out, options);
    const auto d = eng::decompress_zstd_to_device(ctx, in, options, out);
    ctx.finish();
    for (const auto& [what, report] : {std::pair{"->host", &into_host}, std::pair{"->device", &d.report}}) {
        if (report->timeline.empty()) continue;
        std::printf("#   timeline %s (ms from the route's start; whole route %.2f ms):\n#   %5s %7s %15s %15s %15s %15s %15s %15s %15s %15s %15s\n",
                    what, report->device_seconds * 1e3, "group", "frames", "walk", "enqueue", "upload", "tables", "kernel", "hash",
                    "output", "wait", "check");
        for (std::size_t k = 0; k < report->timeline.size(); ++k) {
            const eng::zstd_group_steps& g = report->timeline[k];
            std::printf("#   %5zu %7zu", k, g.frames);
            for (const double* step : {g.walk, g.enqueue, g.upload, g.tables, g.kernel, g.hash, g.output, g.wait, g.check}) {
                if (step[0] == 0 && step[1] == 0) std::printf(" %15s", "-");
                else std::printf(" %7.2f-%-7.2f", step[0], step[1]);
            }
            std::printf("\n");
        }
        if (report->shared_frames != 0)
            std::printf("#   %5s %7zu the host's cores, libzstd: %7.2f-%-7.2f\n", "host", report->shared_frames, report->shared[0], report->shared[1]);
    }
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
    return out;
}

void usage() {
    std::fprintf(stderr, "usage: bench_zstd [PATH (/usr/share)] [--mib N (256)] [--runs N (rounds, 7)] [--threads N (all cores)]\n"
                         "       [--level L (3)] [--frames-per-dispatch N (the route's default)] [--cases frames64k,frames1m,single,rawrle] [--routes automatic,hybrid,host,device,device:frames,device:blocks,device@SHARE (automatic,hybrid)] [--timeline] [--release-kept]\n"
                         "       [--shapes reference,256x8x16384,... (kernel-only figures of program shapes, raw/RLE case)]\n");
    std::exit(2);
}

void fail(const char* what, const std::string& name) {
    std::fprintf(stderr, "%s: %s differs from the original: NOT printing figures\n", name.c_str(), what);
    std::exit(1);
}

} // namespace

int main(int argc, char** argv) {
    settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&] {
            if (i + 1 >= argc) usage();
            return std::string(argv[++i]);
        };
        if (a == "--mib") s.mib = std::stoull(value());
        else if (a == "--runs") s.runs = std::max(1, std::stoi(value()));
        else if (a == "--threads") s.threads = static_cast<unsigned>(std::max(1, std::stoi(value())));
        else if (a == "--frames-per-dispatch") s.frames_per_dispatch = std::stoull(value());
        else if (a == "--level") s.level = std::stoi(value());
        else if (a == "--cases") s.cases = split(value());
        else if (a == "--shapes") s.shapes = split(value());
        else if (a == "--timeline") s.timeline = true;
        else if (a == "--release-kept") s.release_kept = true;
        else if (a == "--routes") {
            s.routes.clear();
            for (const auto& name : split(value())) {
                const auto r = route_from_name(name);
                if (!r) usage();
                if (std::find(s.routes.begin(), s.routes.end(), *r) == s.routes.end()) s.routes.push_back(*r);
            }
            if (s.routes.empty()) usage();
            // automatic first: report.py takes the first figure whose series starts with "vyre hybrid -> host".
            std::stable_partition(s.routes.begin(), s.routes.end(), [](const route_choice& r) { return r.route == eng::zstd_route::automatic; });
        }
        else if (a == "--help" || a == "-h") usage();
        else if (!a.empty() && a[0] != '-') s.path = a;
        else usage();
    }
    rt::context ctx(rt::choose_device(), /*profiling=*/true);
    vyre::bench::print_header(ctx, "bench_zstd: zstd decompression (device, host and hybrid routes) against libzstd on all host cores");
    const bytes data = load_input(s);
    if (data.empty()) return 2;
    std::string route_list;
    for (const auto& r : s.routes) route_list += (route_list.empty() ? "" : ",") + r.name();
    std::printf("# input: %s, %zu bytes; libzstd %s on %u threads; level %d; %d rounds, median; GB/s of decompressed bytes; routes %s\n"
                "# host/zs, dev/zs: median over the rounds of libzstd's time / ours in the same round\n",
                s.path.c_str(), data.size(), ZSTD_versionString(), s.threads, s.level, s.runs, route_list.c_str());
    std::printf("\n%-10s %-13s %7s %6s %6s %15s %10s %10s %10s %10s %8s %8s\n", "case", "route", "frames", "blocks", "ratio",
                "GPU/CPU bytes", "host GB/s", "dev GB/s", "kern GB/s", "zstd GB/s", "host/zs", "dev/zs");
    const bytes raw_rle = raw_rle_data(data.size());
    for (const auto& name : s.cases) {
        const bytes* original = &data;
        bytes zst;
        if (name == "frames64k") zst = compress_frames(data, 64u << 10, s.level, s.threads);
        else if (name == "frames1m") zst = compress_frames(data, 1u << 20, s.level, s.threads);
        else if (name == "single") zst = compress_frame(data, s.level, static_cast<int>(s.threads));
        else if (name == "rawrle") {
            original = &raw_rle;
            zst = compress_frames(raw_rle, 1u << 20, s.level, s.threads);
        } else usage();
        const fmt::zstd_file file = fmt::parse_zstd(zst, {std::uint64_t{1} << 40, 31});
        const std::size_t n = original->size();
        rt::pinned_host_buffer pin_in(ctx, zst.size()), pin_out(ctx, file.staging_size);
        std::memcpy(pin_in.span().data(), zst.data(), zst.size());
        const std::span<const std::uint8_t> in = pin_in.span();
        const unsigned lib_threads = static_cast<unsigned>(std::min<std::size_t>(s.threads, file.frames.size()));

        // The parse alone (inside every figure of ours: a fixed cost of the call).
        std::vector<double> pt;
        for (int r = 0; r < s.runs + 1; ++r) {
            const double t0 = now_seconds();
            const fmt::zstd_file parsed = fmt::parse_zstd(in, {std::uint64_t{1} << 40, 31, s.threads});
            const double t = now_seconds() - t0;
            if (parsed.block_count != file.block_count) fail("parse", name);
            if (r > 0) pt.push_back(t);
        }
        std::uint64_t plain = 0; // what the kernel writes: every raw/RLE block of the file
        for (const auto& f : file.frames)
            for (const auto& b : f.blocks)
                if (b.type != fmt::zstd_block_type::compressed) plain += b.block_size;
        const double ks = kernel_seconds(ctx, file, in, s.runs);
        const auto measured = [&](eng::zstd_device_program p) {
            return std::any_of(s.routes.begin(), s.routes.end(), [&](const route_choice& r) {
                return r.route == eng::zstd_route::device && (r.program == p || r.program == eng::zstd_device_program::automatic);
            });
        };
        const double fks = measured(eng::zstd_device_program::frames) ? frames_kernel_seconds(ctx, file, in, s.runs) : 0.0;
        if (measured(eng::zstd_device_program::frames)) walk_figures(ctx, file, in, s.runs, s.threads, file.staging_size);
        std::size_t block_rounds = 0;
        const double bks = measured(eng::zstd_device_program::blocks) ? blocks_seconds(ctx, file, in, s.runs, &block_rounds) : 0.0;
        const auto gbs = [&](double seconds, double b) { return seconds > 0 ? b / seconds / 1e9 : 0.0; };

        // Rounds: each round times libzstd, then every route into host and into device memory, one
        // after another on the same input. The host's speed drifts between rounds (other load, clocks);
        // a ratio taken inside one round cancels that drift, so the ratios printed are medians of the
        // per-round ratios, beside the median GB/s of each side.
        const auto time_libzstd = [&] {
            std::memset(pin_out.span().data(), 0, n);
            const double t0 = now_seconds();
            const std::size_t got = libzstd_decompress(in, pin_out.span(), s.threads);
            const double t = now_seconds() - t0;
            if (got != n || std::memcmp(pin_out.span().data(), original->data(), n) != 0) fail("libzstd output", name);
            return t;
        };
        const auto options_for = [&](const route_choice& route) {
            eng::zstd_options options;
            options.route = route.route;
            options.device_program = route.program;
            options.host_share = route.host_share;
            options.threads = s.threads; // as many host threads as libzstd's figure had
            options.frames_per_dispatch = s.frames_per_dispatch;
            return options;
        };
        struct route_times {
            std::vector<double> host, device, host_ratio, device_ratio; // per round
            eng::zstd_report report, dreport;                             // of the last round
        };
        std::vector<route_times> rt_of(s.routes.size());
        std::vector<double> lt;
        for (int r = 0; r < s.runs + 1; ++r) {
            const double lib_t = time_libzstd();
            for (std::size_t k = 0; k < s.routes.size(); ++k) {
                const eng::zstd_options options = options_for(s.routes[k]);
                route_times& x = rt_of[k];
                // ours, into host memory (parse included)
                std::memset(pin_out.span().data(), 0, n);
                double t0 = now_seconds();
                const fmt::zstd_file parsed = fmt::parse_zstd(in, {std::uint64_t{1} << 40, 31, s.threads});
                x.report = eng::decompress_zstd_into(ctx, in, parsed, pin_out.span(), options);
                if (s.release_kept) ctx.release_kept();
                const double host_t = now_seconds() - t0;
                if (x.report.output_bytes != n || std::memcmp(pin_out.span().data(), original->data(), n) != 0)
                    fail("ours->host output", name);
                // ours, into device memory
                t0 = now_seconds();
                const auto d = eng::decompress_zstd_to_device(ctx, in, options, pin_out.span());
                x.dreport = d.report;
                ctx.finish();
                if (s.release_kept) ctx.release_kept();
                const double device_t = now_seconds() - t0;
                std::memset(pin_out.span().data(), 0, n);
                rt::read(ctx, d.output, pin_out.span().data(), d.output_bytes);
                if (d.output_bytes != n || std::memcmp(pin_out.span().data(), original->data(), n) != 0)
                    fail("ours->device output", name);
                if (r > 0) { // the first round builds the kernels and warms the caches
                    x.host.push_back(host_t);
                    x.device.push_back(device_t);
                    x.host_ratio.push_back(lib_t / host_t);
                    x.device_ratio.push_back(lib_t / device_t);
                }
            }
            if (r > 0) lt.push_back(lib_t);
        }
        const double lib = gbs(median(lt), double(n));
        const double kern = plain ? gbs(ks, double(plain)) : 0.0;
        // x: the case's frame size (0 for the single frame); the case name is the input.
        const std::string input = vyre::bench::input_label(s.path) + " " + name;
        const auto emit_row = [&](const std::string& series, const char* metric, double value) {
            vyre::bench::emit({"zstd", ctx.device().label(), input, "", 0, series, metric, value});
        };
        emit_row("libzstd " + std::to_string(lib_threads) + " threads", "GB/s", lib);
        // Not comparable with a full decoder's kernel figure: only the raw/RLE share is timed.
        if (kern > 0) emit_row("vyre compression.zstd (raw/RLE blocks only)", "kernel GB/s of raw/RLE bytes", kern);
        emit_row("input", "compression ratio", double(n) / double(zst.size()));
        std::printf("#   %s: parse %.2f ms (%zu frames), kernel alone %.3f ms over all %zu blocks\n", name.c_str(),
                    median(pt) * 1e3, file.frames.size(), ks * 1e3, file.block_count);
        if (fks > 0) {
            std::printf("#   %s: compression.zstd.frames alone %.3f ms: %.2f GB/s of output (the device route's kern column)\n",
                        name.c_str(), fks * 1e3, gbs(fks, double(n)));
            emit_row("vyre compression.zstd.frames", "kernel GB/s", gbs(fks, double(n)));
        }
        if (bks > 0) {
            std::printf("#   %s: compression.zstd.blocks alone %.3f ms (%zu resolve rounds): %.2f GB/s of output (passes and the "
                        "host's scheduling, wall clock)\n",
                        name.c_str(), bks * 1e3, block_rounds, gbs(bks, double(n)));
            emit_row("vyre compression.zstd.blocks", "passes GB/s", gbs(bks, double(n)));
        }

        for (std::size_t k = 0; k < s.routes.size(); ++k) {
            const route_choice& choice = s.routes[k];
            const eng::zstd_route route = choice.route;
            const route_times& x = rt_of[k];
            const eng::zstd_report& report = x.report;
            const double host = gbs(median(x.host), double(n)), dev = gbs(median(x.device), double(n));
            const double host_ratio = median(x.host_ratio), dev_ratio = median(x.device_ratio);
            char split_text[32];
            std::snprintf(split_text, sizeof split_text, "%.0f%%/%.0f%%", 100.0 * double(report.split.device_bytes) / double(n),
                          100.0 * double(report.split.cpu_bytes) / double(n));
            char kern_text[16];
            if (route == eng::zstd_route::device)
                std::snprintf(kern_text, sizeof kern_text, "%10.2f",
                              gbs(choice.program == eng::zstd_device_program::blocks ? bks : fks, double(n)));
            else if (kern > 0) std::snprintf(kern_text, sizeof kern_text, "%10.1f", kern);
            else std::snprintf(kern_text, sizeof kern_text, "%10s", "-");
            std::printf("%-10s %-13s %7zu %6zu %6.2f %15s %10.2f %10.2f %s %10.2f %8.2f %8.2f\n", name.c_str(),
                        choice.name().c_str(), file.frames.size(), file.block_count, double(n) / double(zst.size()),
                        split_text, host, dev, kern_text, lib, host_ratio, dev_ratio);
            const auto range = [](std::vector<double> v) {
                std::sort(v.begin(), v.end());
                char text[48];
                std::snprintf(text, sizeof text, "%.2f..%.2f", v.front(), v.back());
                return std::string(text);
            };
            std::printf("#   per-round ratios: ->host %s, ->device %s over %zu rounds\n", range(x.host_ratio).c_str(),
                        range(x.device_ratio).c_str(), x.host_ratio.size());
            // The automatic route keeps the series names the report's targets look for.
            const std::string suffix =
                route == eng::zstd_route::automatic && !choice.host_share ? "" : std::string(" (route ") + choice.name() + ")";
            emit_row("vyre hybrid -> host" + suffix, "e2e GB/s", host);
            emit_row("vyre hybrid -> device" + suffix, "e2e GB/s", dev);
            emit_row("vyre hybrid -> host" + suffix, "paired ratio to libzstd", host_ratio);
            emit_row("vyre hybrid -> device" + suffix, "paired ratio to libzstd", dev_ratio);
            emit_row("vyre hybrid" + suffix, "device share of bytes", double(report.split.device_bytes) / double(n));
            for (const auto& [what, rp] : {std::pair{"->host", &x.report}, std::pair{"->device", &x.dreport}})
                std::printf("#   ours%-8s last run: frames device/hybrid/host/split %zu/%zu/%zu/%zu, %zu of %zu blocks dispatched, "
                            "%.1f MiB uploaded for them; device pass %.1f ms, host pass %.1f ms, host threads waited %.1f ms "
                            "in all, %zu transfers, %zu dispatches (%zu of every block at once, %zu resolve rounds), %zu frames hashed on the device\n",
                            what, rp->paths.device, rp->paths.hybrid, rp->paths.host, rp->paths.split, rp->dispatched_blocks, rp->blocks,
                            double(rp->device_input_bytes) / double(1 << 20), rp->device_seconds * 1e3, rp->host_seconds * 1e3,
                            rp->wait_seconds * 1e3, rp->transfers, rp->batches, rp->block_batches, rp->resolve_rounds,
                            rp->device_hashed_frames);
            if (x.report.shared_frames != 0)
                std::printf("#   ours->host   last run: the host's cores decoded the last %zu frames (%.1f%% of the output) from %.2f to %.2f ms "
                            "of the device pass's %.2f\n",
                            x.report.shared_frames, 100.0 * double(x.report.split.cpu_bytes) / double(n), x.report.shared[0],
                            x.report.shared[1], x.report.device_seconds * 1e3);
            if (s.timeline) print_timelines(ctx, in, options_for(choice), pin_out.span());
            std::fflush(stdout);
        }
    }
    if (!s.shapes.empty()) {
        const bytes zst = compress_frames(raw_rle, 1u << 20, s.level, s.threads);
        const fmt::zstd_file file = fmt::parse_zstd(zst, {std::uint64_t{1} << 40, 31});
        std::uint64_t plain = 0;
        for (const auto& f : file.frames)
            for (const auto& b : f.blocks)
                if (b.type != fmt::zstd_block_type::compressed) plain += b.block_size;
        std::printf("\n# kernel only, rawrle case: %llu raw/RLE bytes in %zu blocks\n", static_cast<unsigned long long>(plain),
                    file.block_count);
        for (const auto& shape : s.shapes) {
            vyre::ops::block_kernel kernel = shape == "reference" ? vyre::ops::compression::zstd_op::kernel(vyre::ops::block_variant::reference) : [&] {
                unsigned w = 0, u = 0, sl = 0;
                if (std::sscanf(shape.c_str(), "%ux%ux%u", &w, &u, &sl) != 3) usage();
                return vyre::ops::compression::zstd_op::kernel(vyre::ops::block_variant::fast, w, u, sl);
            }();
            const double t = kernel_seconds(ctx, file, zst, s.runs, &kernel);
            std::printf("shape %-18s %10.1f GB/s (%.3f ms)\n", shape.c_str(), double(plain) / t / 1e9, t * 1e3);
            vyre::bench::emit({"zstd", ctx.device().label(), "rawrle kernel shapes", "", 0, "vyre " + shape, "kernel GB/s of raw/RLE bytes",
                               double(plain) / t / 1e9});
            std::fflush(stdout);
        }
    }
    std::printf("# libzstd decodes one frame on one thread: for `single` its column is one core, and so is ours for the\n"
                "# compressed blocks (frames are the unit of host parallelism on both sides)\n");
    return 0;
}
