// compression.lz4_pages against liblz4 (LZ4_compress_default) on all host cores, same pages, same
// run, for batches of 100 to 100,000 4 KiB pages: GB/s of uncompressed input, kernel only
// (profiling events, one dispatch of the batch) and end to end, and compression ratios.
// What each timed figure includes, exactly:
//  - kernel: the one dispatch's device time (profiling events); no transfers, no host work.
//  - e2e (vyre): engine::page_compressor::compress_device on pages already in pinned host memory:
//    allocating the result's records, offsets and data (reserved, not zeroed), per chunk the
//    upload, the kernel, the readback of records and whole slots into the engine's pinned buffers,
//    the check of every record, and packing the blocks back to back into the result (on the host's
//    threads, overlapped with later chunks except for the last; the result's memory is new, so its
//    page faults are timed). Kernel build, device buffers, pinned buffers and the packing threads
//    are made before timing; freeing the previous run's result is not timed.
//  - e2e reuse (vyre): the same into a result of an earlier run (compress_device(pages, result)),
//    whose memory is already touched, as liblz4's output buffer below is.
//  - liblz4: on --threads threads (all cores), each page: the same-fill test, LZ4_compress_default
//    into a page-sized slot (stored when not smaller), into slots, records and a packed output
//    buffer all allocated and first touched before timing; then packing: a serial prefix sum of
//    the lengths and every block copied to its offset on the same threads. No serial zero fill,
//    no allocation in the timed region. Both sides end with the same thing: packed blocks and
//    records in host memory.
//   bench_lz4_pages PATH [--batches 100,500,...] [--runs N] [--threads N] [--chunk PAGES] [--in-flight N] [--timeline] [--reuse-first]
//                   [--workgroup 32,64,128] [--hash-bits 12,11]
//   bench_lz4_pages --synthetic [...]
// --workgroup and --hash-bits list program shapes: invocations per page (every workgroup writes the
// same bytes) and hash widths (the op is 12 bits; others write other blocks: a smaller table, more
// pages per SM, another ratio). The first of each runs every column; every other pair is timed
// kernel only, on the same pages, and printed on a line of its own under the row ("# workgroup W,
// hash bits B"): with the first's width its records must be the first's, with another width every
// block must decode to its page (LZ4_decompress_safe), and the line gives that shape's ratio too.
// PATH is a file (its first bytes) or a folder (its files in sorted path order, as a tar holds
// them); the input is cut into 4 KiB pages and repeated where it holds fewer pages than the largest
// batch. --synthetic builds mixed pages instead (text, binary, zero, same-fill, random, sparse).
// Every output is checked to decode to its pages (LZ4_decompress_safe) before figures are printed.
// --timeline prints, for the largest batch, when each chunk's steps ran in one more run on
// profiling queues (not a figure). --reuse-first times the reused result before the fresh one in
// each round (the default order is fresh, reused, liblz4), to see whether the order moves them.
#include "bench_util.hpp"
#include "corpus.hpp"

#include <vyre/engine/page_compressor.hpp>
#include <vyre/ops/compression/lz4_pages.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/util/parallel.hpp>

#include <lz4.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace rt = vyre::runtime;
namespace cz = vyre::ops::compression;
namespace vc = vyre::compression;
namespace en = vyre::engine;
using bytes = std::vector<std::uint8_t>;
using vyre::bench::median;
using vyre::bench::now_seconds;

namespace {

constexpr std::size_t page = 4096;

struct settings {
    std::string path;
    bool synthetic = false;
    bool timeline = false; // print when each chunk's steps ran, for the largest batch
    bool reuse_first = false; // each round times the reused result before the fresh one
    std::vector<std::size_t> batches = {100, 500, 1000, 2000, 5000, 10000, 100000};
    int runs = 5;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::uint32_t chunk = 0; // 0: the engine's automatic chunk
    unsigned in_flight = 3;
    std::vector<std::size_t> workgroups = {cz::lz4_pages_default_workgroup};
    std::vector<std::size_t> hash_bits = {vyre::reference::lz4_pages_hash_bits()};
};

bytes synthetic_pages(std::size_t pages) {
    std::mt19937_64 rng(42);
    static const char* words[] = {"the ", "device ", "kernel ", "page ", "offset ", "match ", "literal ", "\n", "return ", "{ ", "} ", "0x0 "};
    bytes b(pages * page);
    for (std::size_t i = 0; i < pages; ++i) {
        std::uint8_t* p = b.data() + i * page;
        switch (rng() % 6) {
        case 0: break; // zero
        case 1: std::memset(p, static_cast<int>(rng() % 256), page); break;
        case 2:
            for (std::size_t j = 0; j < page; ++j) p[j] = static_cast<std::uint8_t>(rng());
            break;
        case 3:
            for (int k = 0; k < 16; ++k) p[rng() % page] = static_cast<std::uint8_t>(rng());
            break;
        case 4:
            for (std::size_t j = 0; j + 8 <= page; j += 8) {
                const std::uint64_t v = (rng() % 4 == 0) ? rng() : 0x00007ffd00000000ull + rng() % 4096;
                std::memcpy(p + j, &v, 8);
            }
            break;
        default:
            for (std::size_t j = 0; j < page;) {
                const char* w = words[rng() % std::size(words)];
                for (; *w && j < page; ++w) p[j++] = static_cast<std::uint8_t>(*w);
            }
        }
    }
    return b;
}

// Every page's block decodes to the page (liblz4), on all threads; false at the first that does not.
bool round_trips(const en::packed_pages& r, std::span<const std::uint8_t> pages, unsigned threads) {
    std::atomic<bool> ok{true};
    vyre::bench::parallel_for(r.records.size(), threads, [&](std::size_t i) {
        const std::uint8_t* want = pages.data() + i * page;
        const auto& rec = r.records[i];
        const auto b = r.block(i);
        std::uint8_t got[page];
        switch (rec.kind()) {
        case vc::page_kind::same_fill: std::memset(got, rec.fill(), page); break;
        case vc::page_kind::stored:
            if (b.size() != page) ok = false;
            else std::memcpy(got, b.data(), page);
            break;
        case vc::page_kind::compressed:
            if (LZ4_decompress_safe(reinterpret_cast<const char*>(b.data()), reinterpret_cast<char*>(got), static_cast<int>(b.size()), page) !=
                static_cast<int>(page))
                ok = false;
            break;
        default: ok = false;
        }
        if (ok && std::memcmp(got, want, page) != 0) ok = false;
    });
    return ok;
}

std::vector<std::size_t> split(const std::string& s) {
    std::vector<std::size_t> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(std::stoull(item));
    return out;
}

[[noreturn]] void usage() {
    std::fprintf(stderr, "usage: bench_lz4_pages PATH | --synthetic [--batches 100,500,1000,2000,5000,10000,100000] [--runs N (5)]\n"
                         "       [--threads N (all cores)] [--chunk PAGES (automatic)] [--in-flight N (3)] [--timeline] [--reuse-first] [--workgroup 32[,64,128] (32)]\n"
                         "       [--hash-bits 12[,10,11,13] (12)]\n");
    std::exit(2);
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
        if (a == "--synthetic") s.synthetic = true;
        else if (a == "--batches") s.batches = split(value());
        else if (a == "--runs") s.runs = std::max(1, std::stoi(value()));
        else if (a == "--threads") s.threads = static_cast<unsigned>(std::max(1, std::stoi(value())));
        else if (a == "--chunk") s.chunk = static_cast<std::uint32_t>(std::stoul(value()));
        else if (a == "--in-flight") s.in_flight = static_cast<unsigned>(std::stoul(value()));
        else if (a == "--timeline") s.timeline = true;
        else if (a == "--reuse-first") s.reuse_first = true;
        else if (a == "--workgroup") s.workgroups = split(value());
        else if (a == "--hash-bits") s.hash_bits = split(value());
        else if (a == "--help" || a == "-h") usage();
        else if (!a.empty() && a[0] != '-' && s.path.empty()) s.path = a;
        else usage();
    }
    if (s.path.empty() == !s.synthetic || s.batches.empty() || s.workgroups.empty() || s.hash_bits.empty()) usage();
    for (std::size_t w : s.workgroups)
        if (w != 32 && w != 64 && w != 128) usage();
    for (std::size_t b : s.hash_bits)
        if (b < vyre::reference::lz4_pages_min_hash_bits || b > vyre::reference::lz4_pages_max_hash_bits) usage();
    if (s.hash_bits[0] != vyre::reference::lz4_pages_hash_bits()) {
        std::fprintf(stderr, "bench_lz4_pages: the first --hash-bits is the table's rows, end to end through the engine: it must be the op's %u\n",
                     vyre::reference::lz4_pages_hash_bits());
        return 2;
    }
    const std::size_t most = *std::max_element(s.batches.begin(), s.batches.end());

    rt::context ctx(rt::choose_device(), /*profiling=*/true);
    vyre::bench::print_header(ctx, "bench_lz4_pages: compression.lz4_pages against liblz4 on all host cores");
    bytes input = s.synthetic ? synthetic_pages(most) : vyre::bench::read_input_path(s.path, most * page, "bench_lz4_pages");
    input.resize(input.size() / page * page);
    if (input.empty()) {
        std::fprintf(stderr, "bench_lz4_pages: the input holds no whole 4 KiB page\n");
        return 2;
    }
    const std::size_t distinct = input.size() / page;
    if (distinct < most) {
        input.resize(most * page);
        for (std::size_t i = distinct; i < most; ++i) std::memcpy(input.data() + i * page, input.data() + (i % distinct) * page, page);
    }
    const std::string source = s.synthetic ? "synthetic mixed pages" : s.path;
    std::printf("# input: %s, %zu distinct pages (repeated to %zu); liblz4 %s on %u threads; %d runs, median\n", source.c_str(), distinct, most,
                LZ4_versionString(), s.threads, s.runs);
    std::printf("# GB/s of uncompressed pages. kernel: one dispatch, profiling events. e2e: pinned pages -> packed records in host\n"
                "# memory (chunks of --chunk pages, --in-flight on their own queues; result allocation and packing included).\n"
                "# e2e reuse: the same into an earlier run's result, its memory already touched (as liblz4's buffers are).\n"
                "# liblz4: LZ4_compress_default per page on all threads, same record rules (same-fill, stored), into pre-allocated\n"
                "# slots, packed in parallel into a pre-allocated buffer (no allocation timed). ratio: input bytes / (sum of lengths)\n");
    // The shapes: the first workgroup and width run the table's row; every other pair, a line under it.
    const auto u32 = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
    const std::uint32_t ps = cz::lz4_pages_default_page_size;
    const auto make_kernel = [&](std::size_t w, std::size_t bits) {
        return std::unique_ptr<cz::lz4_pages_kernel>(
            new cz::lz4_pages_kernel{rt::compiled_program(cz::lz4_pages_program(ps, u32(w), u32(bits))), ps, u32(w), u32(bits)});
    };
    const std::unique_ptr<cz::lz4_pages_kernel> main_kernel = make_kernel(s.workgroups[0], s.hash_bits[0]);
    const cz::lz4_pages_kernel& kernel = *main_kernel;
    std::vector<std::unique_ptr<cz::lz4_pages_kernel>> others;
    for (std::size_t b : s.hash_bits)
        for (std::size_t w : s.workgroups)
            if (w != s.workgroups[0] || b != s.hash_bits[0]) others.push_back(make_kernel(w, b));
    for (const cz::lz4_pages_kernel* k : [&] {
             std::vector<const cz::lz4_pages_kernel*> all{&kernel};
             for (const auto& o : others) all.push_back(o.get());
             return all;
         }())
        std::printf("# workgroup %u, hash bits %u: %llu bytes of workgroup memory per page%s\n", k->workgroup, k->hash_bits,
                    static_cast<unsigned long long>(cz::lz4_pages_workgroup_bytes(ps, k->workgroup, k->hash_bits)),
                    k == &kernel ? " (the table's rows)" : " (kernel only, lines under the rows)");
    std::printf("\n%7s %11s %9s %10s %11s %9s %9s %9s %9s %8s\n", "pages", "kernel GB/s", "e2e GB/s", "e2e reuse", "liblz4 GB/s", "kern/lib", "e2e/lib", "ratio",
                "lib ratio", "chunk");

    const std::string device = ctx.device().label();
    rt::pinned_host_buffer pinned(ctx, most * page);
    std::memcpy(pinned.span().data(), input.data(), most * page);
    for (std::size_t n : s.batches) {
        if (n == 0 || n > most) continue;
        const std::span<const std::uint8_t> pages(pinned.span().data(), n * page);
        const double gb = double(n * page) / 1e9;

        // Kernel only.
        cz::lz4_pages_device d = cz::allocate_lz4_pages(ctx, static_cast<std::uint32_t>(n), page);
        rt::write(ctx, d.pages, pages.data(), pages.size());
        std::vector<double> kt;
        boost::compute::buffer params;
        for (int r = 0; r < s.runs + 1; ++r) {
            auto e = cz::enqueue_lz4_pages(ctx, kernel, d, static_cast<std::uint32_t>(n), params);
            e.wait();
            if (r > 0) kt.push_back(vyre::bench::event_seconds(e));
        }

        // End to end on the device (the engine's pipeline), and liblz4 on every core: the engine's
        // per-page function (same record rules) into pre-allocated slots, packed in parallel.
        en::page_compressor_options o;
        o.chunk_pages = s.chunk; // 0: the engine's automatic chunk (page_compressor_chunk)
        o.in_flight = s.in_flight;
        o.workgroup = kernel.workgroup;
        o.threads = s.threads;
        en::page_compressor pc(ctx, o);
        en::packed_pages dev = pc.compress_device(pages.first(page)); // builds, allocates
        en::packed_pages reused = pc.compress_device(pages); // its allocations are kept by the timed runs
        std::vector<double> et, rt_, ct;
        en::packed_pages cpu;
        cpu.records.resize(n);
        cpu.offsets.resize(n);
        bytes packed(n * page, 1);         // allocated and touched before timing
        bytes slots(n * page, 1);
        const auto liblz4_all_cores = [&] {
            vyre::util::parallel_for(n, s.threads, [&](std::size_t i) {
                cpu.records[i] = en::liblz4_compress_page(pages.subspan(i * page, page), slots.data() + i * page);
            }, 16);
            std::uint64_t at = 0;
            for (std::size_t i = 0; i < n; ++i) {
                cpu.offsets[i] = at;
                at += cpu.records[i].length;
            }
            vyre::util::parallel_for(n, s.threads, [&](std::size_t i) {
                if (cpu.records[i].length) std::memcpy(packed.data() + cpu.offsets[i], slots.data() + i * page, cpu.records[i].length);
            }, 16);
            return at;
        };
        std::uint64_t cpu_bytes = 0;
        for (int r = 0; r < s.runs + 1; ++r) {
            const auto into_reused = [&] {
                const double t = now_seconds();
                pc.compress_device(pages, reused);
                if (r > 0) rt_.push_back(now_seconds() - t);
            };
            if (s.reuse_first) into_reused();
            dev = {}; // freeing the previous result (munmap) is not part of compressing this one
            double t0 = now_seconds();
            dev = pc.compress_device(pages);
            if (r > 0) et.push_back(now_seconds() - t0);
            if (!s.reuse_first) into_reused();
            t0 = now_seconds();
            cpu_bytes = liblz4_all_cores();
            if (r > 0) ct.push_back(now_seconds() - t0);
        }
        cpu.data.assign(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(cpu_bytes)); // for the check, untimed
        if (!round_trips(dev, pages, s.threads) || !round_trips(cpu, pages, s.threads)) {
            std::fprintf(stderr, "bench_lz4_pages: %zu pages: an output does not decode to its pages: NOT printing figures\n", n);
            return 1;
        }
        // The kernel-only run must give the pipeline's bytes (same program, same pages).
        std::vector<vc::page_record> records(n);
        rt::read(ctx, d.records, records.data(), n * sizeof(vc::page_record));
        if (records != dev.records || reused.records != dev.records || reused.offsets != dev.offsets || reused.data != dev.data) {
            std::fprintf(stderr, "bench_lz4_pages: %zu pages: kernel-only records differ from the pipeline's: NOT printing figures\n", n);
            return 1;
        }
        const auto total = [](const en::packed_pages& r) {
            std::uint64_t sum = 0;
            for (const auto& rec : r.records) sum += rec.length;
            return double(std::max<std::uint64_t>(sum, 1));
        };
        const double kernel_gbs = gb / median(kt), e2e_gbs = gb / median(et), reuse_gbs = gb / median(rt_), cpu_gbs = gb / median(ct);
        const double ratio = double(n * page) / total(dev), cpu_ratio = double(n * page) / total(cpu);
        std::printf("%7zu %11.2f %9.2f %10.2f %11.2f %9.2f %9.2f %9.3f %9.3f %8u\n", n, kernel_gbs, e2e_gbs, reuse_gbs, cpu_gbs, kernel_gbs / cpu_gbs, e2e_gbs / cpu_gbs,
                    ratio, cpu_ratio, o.chunk_pages ? o.chunk_pages : std::min<std::uint32_t>(en::page_compressor_chunk(n), static_cast<std::uint32_t>(n)));
        std::fflush(stdout);
        const std::string lib = "liblz4 " + std::to_string(s.threads) + " threads";
        const auto emit = [&](const std::string& series, const std::string& metric, double v) {
            vyre::bench::emit({"lz4_pages", device, vyre::bench::input_label(source), "pages", double(n), series, metric, v});
        };
        emit("vyre", "kernel GB/s", kernel_gbs);
        emit("vyre", "e2e GB/s", e2e_gbs);
        emit("vyre", "e2e reused result GB/s", reuse_gbs);
        emit(lib, "GB/s", cpu_gbs);
        emit("vyre", "compression ratio", ratio);
        emit(lib, "compression ratio", cpu_ratio);
        emit("vyre", "compression ratio vs liblz4", ratio / cpu_ratio);

        // --timeline, largest batch: one more run into the reused result on profiling queues (not
        // a figure: profiling can slow the queues), with when each chunk's steps ran.
        if (s.timeline && n == *std::max_element(s.batches.begin(), s.batches.end())) {
            en::page_compressor_options to = o;
            to.timeline = true;
            en::page_compressor tp(ctx, to);
            tp.compress_device(pages, reused); // builds, allocates
            const double t0 = now_seconds();
            tp.compress_device(pages, reused);
            const double wall = now_seconds() - t0;
            std::printf("# timeline of %zu pages into a reused result, profiling queues: %.2f ms wall (%.2f GB/s); ms from the "
                        "first step (device clock): upload, kernel, readback of records and slots\n",
                        n, wall * 1e3, gb / wall);
            for (const auto& c : tp.timeline())
                std::printf("#   pages %7zu +%5u | up %7.3f-%7.3f | kern %7.3f-%7.3f | back %7.3f-%7.3f\n", c.first, c.pages,
                            c.upload[0], c.upload[1], c.kernel[0], c.kernel[1], c.readback[0], c.readback[1]);
        }

        // The other shapes, kernel only, on the same device buffers: the same records as the row's
        // at its width; at another width, blocks that decode to their pages.
        for (const auto& other : others) {
            std::vector<double> ot;
            for (int r = 0; r < s.runs + 1; ++r) {
                auto e = cz::enqueue_lz4_pages(ctx, *other, d, static_cast<std::uint32_t>(n), params);
                e.wait();
                if (r > 0) ot.push_back(vyre::bench::event_seconds(e));
            }
            en::packed_pages got;
            got.records.resize(n);
            got.offsets.resize(n);
            rt::read(ctx, d.records, got.records.data(), n * sizeof(vc::page_record));
            bool ok = true;
            std::uint64_t bytes_out = 0;
            for (std::size_t i = 0; i < n && ok; ++i) {
                ok = got.records[i].length <= page && (got.records[i].flags >> 16) == 0;
                got.offsets[i] = i * page; // blocks stay in their slots
                bytes_out += got.records[i].length;
            }
            if (ok && other->hash_bits == kernel.hash_bits) ok = got.records == dev.records;
            if (ok && other->hash_bits != kernel.hash_bits) {
                got.data.resize(n * page);
                rt::read(ctx, d.output, got.data.data(), n * page);
                ok = round_trips(got, pages, s.threads);
            }
            if (!ok) {
                std::fprintf(stderr, "bench_lz4_pages: %zu pages: workgroup %u, hash bits %u: wrong records or blocks: NOT printing figures\n", n,
                             other->workgroup, other->hash_bits);
                return 1;
            }
            const double other_gbs = gb / median(ot), other_ratio = double(n * page) / double(std::max<std::uint64_t>(bytes_out, 1));
            std::printf("# workgroup %u, hash bits %u: kernel GB/s %.2f (kern/lib %.2f), ratio %.3f\n", other->workgroup, other->hash_bits, other_gbs,
                        other_gbs / cpu_gbs, other_ratio);
            std::fflush(stdout);
            const std::string series = "vyre workgroup " + std::to_string(other->workgroup) + " hash bits " + std::to_string(other->hash_bits);
            emit(series, "kernel GB/s", other_gbs);
            emit(series, "compression ratio", other_ratio);
        }
    }
    return 0;
}
