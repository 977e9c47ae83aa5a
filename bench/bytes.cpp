// bytes.crc32 against libdeflate's CRC-32 on all host cores, bytes.xxh64 against libxxhash's XXH64
// on all host cores, and bytes.heads, on the same ranges in the same run: what checking content the
// decoders leave on the device costs, beside checking it on the host. PATH (a file's first N MiB, or a folder's files in sorted path order up to N MiB) is
// cut into ranges of --range-bytes, each standing for one decoded ZIP entry or gzip member.
//   ours, kernel  the input in one device buffer: OpenCL profiling time of bytes.crc32's dispatch;
//   ours, call    wall time of ops::bytes::crc32_device (range and chunk tables uploaded, the
//                 dispatch, the CRCs read back), input already on the device: what the deflate
//                 engine pays per pass with keep_on_device;
//   heads, call   wall time of ops::bytes::heads_device (512 bytes of each range read back);
//   xxh64         bytes.xxh64's dispatch (profiling time) and ops::bytes::xxh64_device's wall time,
//                 against XXH64 over the same ranges on all host threads (zstd's checksum);
//   peer          libdeflate_crc32 (format::crc32_of) over the ranges, handed out one at a time to
//                 all host threads, input in host memory.
// Medians of --runs after a first run that builds and warms up. Every CRC is checked equal to the
// peer's before anything is printed (exit status 1 on a difference).
//   bench_bytes PATH [--mib N (1024)] [--range-bytes N (65536)] [--runs N (5)] [--threads N (all cores)]
#include "bench_util.hpp"
#include "corpus.hpp"

#include <vyre/format/gzip.hpp>
#include <vyre/ops/bytes/crc32.hpp>
#include <vyre/ops/bytes/heads.hpp>
#include <vyre/ops/bytes/xxh64.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <thread>
#include <vector>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace rt = vyre::runtime;
namespace vb = vyre::bench;
namespace ob = vyre::ops::bytes;

namespace {

[[noreturn]] void usage() {
    std::fprintf(stderr, "usage: bench_bytes PATH [--mib N (1024)] [--range-bytes N (65536)] [--runs N (5)] [--threads N (all cores)]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    std::string path;
    std::size_t mib = 1024, range_bytes = 65536;
    int runs = 5;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&] {
            if (i + 1 >= argc) usage();
            return std::string(argv[++i]);
        };
        if (a == "--mib") mib = std::stoull(value());
        else if (a == "--range-bytes") range_bytes = std::stoull(value());
        else if (a == "--runs") runs = std::max(1, std::stoi(value()));
        else if (a == "--threads") threads = static_cast<unsigned>(std::max(1, std::stoi(value())));
        else if (!a.empty() && a[0] != '-' && path.empty()) path = a;
        else usage();
    }
    if (path.empty() || mib == 0 || mib > 4095 || range_bytes == 0) usage();

    rt::context ctx(rt::choose_device(), /*profiling=*/true);
    vb::print_header(ctx, "bench_bytes: bytes.crc32, bytes.xxh64 and bytes.heads against libdeflate's CRC-32 and XXH64 on all host cores");
    const std::vector<std::uint8_t> input = vb::read_input_path(path, mib << 20, "bench_bytes");
    if (input.empty()) usage();
    std::vector<ob::byte_range> ranges;
    for (std::uint64_t at = 0; at < input.size(); at += range_bytes)
        ranges.push_back({at, std::min<std::uint64_t>(range_bytes, input.size() - at)});
    std::vector<std::uint8_t> padded(rt::padded_bytes(input.size()), 0);
    std::copy(input.begin(), input.end(), padded.begin());
    const auto device = rt::upload(ctx, std::span<const std::uint8_t>(padded), CL_MEM_READ_ONLY);

    std::vector<std::uint32_t> want(ranges.size()), got;
    std::vector<double> peer, kernel, call, heads, xpeer, xkernel, xcall;
    std::vector<std::uint64_t> xwant(ranges.size()), xgot;
    ob::xxh64_buffers xbuf;
    for (int r = 0; r <= runs; ++r) {
        double t = vb::now_seconds();
        vyre::util::parallel_for(ranges.size(), threads, [&](std::size_t k) {
            want[k] = vyre::format::crc32_of(std::span<const std::uint8_t>(input).subspan(ranges[k].offset, ranges[k].size));
        });
        const double p = vb::now_seconds() - t;
        double k = 0;
        t = vb::now_seconds();
        got = ob::crc32_device(ctx, device, ranges, ob::crc32_chunk_bytes, &k);
        const double c = vb::now_seconds() - t;
        t = vb::now_seconds();
        const auto h = ob::heads_device(ctx, device, ranges, 512);
        const double hs = vb::now_seconds() - t;
        if (got != want) {
            for (std::size_t i = 0; i < ranges.size(); ++i)
                if (got[i] != want[i]) std::fprintf(stderr, "bench_bytes: range %zu: device CRC %08x, libdeflate %08x\n", i, got[i], want[i]);
            return 1;
        }
        if (h.size() != ranges.size() * 512 || !std::equal(input.begin(), input.begin() + std::min<std::size_t>(512, ranges[0].size), h.begin())) {
            std::fprintf(stderr, "bench_bytes: bytes.heads differs from the input\n");
            return 1;
        }
        t = vb::now_seconds();
        vyre::util::parallel_for(ranges.size(), threads, [&](std::size_t k) {
            xwant[k] = XXH64(input.data() + ranges[k].offset, ranges[k].size, 0);
        });
        const double xp = vb::now_seconds() - t;
        t = vb::now_seconds();
        xgot = ob::xxh64_device(ctx, device, ranges);
        const double xc = vb::now_seconds() - t;
        ob::enqueue_xxh64(ctx, device, ranges, xbuf);
        xbuf.dispatch.wait();
        const double xk = double(xbuf.dispatch.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_END) -
                                 xbuf.dispatch.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_START)) * 1e-9;
        if (xgot != xwant) {
            std::fprintf(stderr, "bench_bytes: bytes.xxh64 differs from libxxhash\n");
            return 1;
        }
        if (r == 0) continue; // builds and warms up
        xpeer.push_back(xp);
        xcall.push_back(xc);
        xkernel.push_back(xk);
        peer.push_back(p);
        kernel.push_back(k);
        call.push_back(c);
        heads.push_back(hs);
    }
    const double gb = double(input.size()) * 1e-9;
    const std::string device_label = ctx.device().label(), in = vb::input_label(path);
    std::printf("# %zu bytes in %zu ranges of %zu bytes; medians of %d runs\n", input.size(), ranges.size(), range_bytes, runs);
    std::printf("%-36s %10s %10s\n", "", "seconds", "GB/s");
    const auto row = [&](const char* name, const std::string& series, double s) {
        std::printf("%-36s %10.5f %10.2f\n", name, s, s > 0 ? gb / s : 0);
        vb::emit({"bytes", device_label, in, "range_bytes", double(range_bytes), series, "GB/s", s > 0 ? gb / s : 0});
    };
    row("bytes.crc32 kernel", "vyre crc32 kernel", vb::median(kernel));
    row("bytes.crc32 call (tables, readback)", "vyre crc32 call", vb::median(call));
    row("bytes.heads call (512 B each)", "vyre heads call", vb::median(heads));
    row(("libdeflate crc32, " + std::to_string(threads) + " threads").c_str(), "libdeflate crc32 all threads", vb::median(peer));
    row("bytes.xxh64 kernel", "vyre xxh64 kernel", vb::median(xkernel));
    row("bytes.xxh64 call (ranges, readback)", "vyre xxh64 call", vb::median(xcall));
    row(("libxxhash XXH64, " + std::to_string(threads) + " threads").c_str(), "libxxhash xxh64 all threads", vb::median(xpeer));
    std::printf("kernel / libdeflate: %.2fx; call / libdeflate: %.2fx\n", vb::median(peer) / vb::median(kernel),
                vb::median(peer) / vb::median(call));
    std::printf("xxh64 kernel / libxxhash: %.2fx; call / libxxhash: %.2fx\n", vb::median(xpeer) / vb::median(xkernel),
                vb::median(xpeer) / vb::median(xcall));
    vb::emit({"bytes", device_label, in, "range_bytes", double(range_bytes), "vyre xxh64 kernel", "ratio vs libxxhash all threads",
              vb::median(xpeer) / vb::median(xkernel)});
    vb::emit({"bytes", device_label, in, "range_bytes", double(range_bytes), "vyre crc32 kernel", "ratio vs libdeflate all threads",
              vb::median(peer) / vb::median(kernel)});
    return 0;
}
