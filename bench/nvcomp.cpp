// nvCOMP, NVIDIA's GPU compression library, on exactly the bytes the vyre benchmarks measure
// (the blocks, frames and pages come from bench/corpus.hpp, the code bench_lz4, bench_zstd and
// bench_lz4_pages use): the peer our GPU figures are compared with.
//   lz4        nvcompBatchedLZ4DecompressAsync over LZ4_compress_default blocks (bench_lz4's)
//   zstd       nvcompBatchedZstdDecompressAsync over independent frames (bench_zstd's frames64k,
//              frames1m: ZSTD_compress2 at --level, content checksums on)
//   lz4_pages  nvcompBatchedLZ4CompressAsync over batches of 4 KiB pages (bench_lz4_pages's)
//   deflate    nvcompBatchedDeflateDecompressAsync over raw DEFLATE streams (bench_deflate's): the
//              corpus cut into --deflate-blocks pieces, each compressed by each of
//              --deflate-compressors (libdeflate, zlib with windowBits -15) at --deflate-level; with
//              --zip, every deflate entry of the ZIP files given, picked as bench_deflate picks them.
//              In --cases only when named there or when --zip is given.
// GB/s of uncompressed bytes. kernel: CUDA events around the nvCOMP call alone, data on the device.
// e2e: compressed bytes (or pages) in pinned host memory -> results in pinned host memory, the
// chunk pointer and size arrays uploaded in the timed region too, best of 1/2/4/8 pieces over two
// streams (the same pipelining bench_lz4 gives vyre). Every output is checked before printing.
//   bench_nvcomp PATH [--mib N] [--runs N] [--cases lz4,zstd,lz4_pages,deflate] [--block-sizes 4096,...]
//                [--zstd-chunks 65536,1048576] [--level L] [--pages 100,500,...]
//                [--deflate-blocks 65536,1048576] [--deflate-level L] [--deflate-compressors libdeflate,zlib]
//                [--zip DIR_OR_FILES[,...]]
//   bench_nvcomp --synthetic compressible|incompressible ...
//   bench_nvcomp --zip DIR_OR_FILES[,...] [--mib N] [--runs N]      (the deflate case alone)
// CUDA is reached through the driver API (libcuda.so.1, loaded at run time) so that this program
// builds without the CUDA toolkit: only nvCOMP's headers and libnvcomp.so are needed
// (bench/run builds it when NVCOMP_ROOT points at an unpacked nvidia-libnvcomp wheel).
#include "measure.hpp"
#include "corpus.hpp"
#include "deflate_streams.hpp"

#include <nvcomp.h>
#include <nvcomp/deflate.h>
#include <nvcomp/lz4.h>
#include <nvcomp/zstd.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace {

using bytes = std::vector<std::uint8_t>;
using vyre::bench::median;
using vyre::bench::now_seconds;

// ---- the CUDA driver API, the few entry points used ------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUevent = struct CUevent_st*;
using CUstream = cudaStream_t; // nvcomp.h declares cudaStream_t as CUstream_st*, the driver's type

struct cuda_api {
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDriverGetVersion)(int*);
    CUresult (*cuDeviceGet)(CUdevice*, int);
    CUresult (*cuDeviceGetName)(char*, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuMemAlloc_v2)(CUdeviceptr*, std::size_t);
    CUresult (*cuMemFree_v2)(CUdeviceptr);
    CUresult (*cuMemAllocHost_v2)(void**, std::size_t);
    CUresult (*cuMemFreeHost)(void*);
    CUresult (*cuMemsetD8_v2)(CUdeviceptr, unsigned char, std::size_t);
    CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr, const void*, std::size_t, CUstream);
    CUresult (*cuMemcpyDtoHAsync_v2)(void*, CUdeviceptr, std::size_t, CUstream);
    CUresult (*cuStreamCreate)(CUstream*, unsigned);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuEventCreate)(CUevent*, unsigned);
    CUresult (*cuEventRecord)(CUevent, CUstream);
    CUresult (*cuEventSynchronize)(CUevent);
    CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
    CUresult (*cuGetErrorString)(CUresult, const char**);
};

cuda_api cu;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "bench_nvcomp: %s\n", what.c_str());
    std::exit(1);
}

void check(CUresult r, const char* call) {
    if (r == 0) return;
    const char* s = "?";
    if (cu.cuGetErrorString) cu.cuGetErrorString(r, &s);
    die(std::string(call) + " failed: " + s + " (" + std::to_string(r) + ")");
}

void check_nv(nvcompStatus_t s, const char* call) {
    if (s != nvcompSuccess) die(std::string(call) + " failed with nvcompStatus " + std::to_string(int(s)));
}

std::string load_cuda() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) die(std::string("cannot load the CUDA driver (libcuda.so.1): ") + dlerror());
    const auto sym = [&](const char* name) {
        void* p = dlsym(h, name);
        if (!p) die(std::string("libcuda.so.1 lacks ") + name);
        return p;
    };
#define VYRE_CU(name) cu.name = reinterpret_cast<decltype(cu.name)>(sym(#name))
    VYRE_CU(cuGetErrorString);
    VYRE_CU(cuInit);
    VYRE_CU(cuDriverGetVersion);
    VYRE_CU(cuDeviceGet);
    VYRE_CU(cuDeviceGetName);
    VYRE_CU(cuDevicePrimaryCtxRetain);
    VYRE_CU(cuCtxSetCurrent);
    VYRE_CU(cuMemAlloc_v2);
    VYRE_CU(cuMemFree_v2);
    VYRE_CU(cuMemAllocHost_v2);
    VYRE_CU(cuMemFreeHost);
    VYRE_CU(cuMemsetD8_v2);
    VYRE_CU(cuMemcpyHtoDAsync_v2);
    VYRE_CU(cuMemcpyDtoHAsync_v2);
    VYRE_CU(cuStreamCreate);
    VYRE_CU(cuStreamSynchronize);
    VYRE_CU(cuEventCreate);
    VYRE_CU(cuEventRecord);
    VYRE_CU(cuEventSynchronize);
    VYRE_CU(cuEventElapsedTime);
#undef VYRE_CU
    check(cu.cuInit(0), "cuInit");
    CUdevice dev = 0;
    check(cu.cuDeviceGet(&dev, 0), "cuDeviceGet");
    char name[256] = {};
    check(cu.cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
    // nvCOMP's own CUDA runtime calls use the device's primary context: make it current here.
    CUcontext ctx = nullptr;
    check(cu.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    // The label vyre's OpenCL benchmarks give the same GPU ("<name> (<platform>)"), so the report
    // puts both in one table.
    return std::string(name) + " (NVIDIA CUDA)";
}

// Device and pinned host memory that free themselves.
struct device_mem {
    CUdeviceptr p = 0;
    explicit device_mem(std::size_t n) { check(cu.cuMemAlloc_v2(&p, std::max<std::size_t>(n, 16)), "cuMemAlloc"); }
    ~device_mem() { cu.cuMemFree_v2(p); }
    device_mem(const device_mem&) = delete;
    device_mem& operator=(const device_mem&) = delete;
    template <class T = void>
    T* ptr() const { return reinterpret_cast<T*>(p); }
};
struct pinned_mem {
    void* p = nullptr;
    explicit pinned_mem(std::size_t n) { check(cu.cuMemAllocHost_v2(&p, std::max<std::size_t>(n, 16)), "cuMemAllocHost"); }
    ~pinned_mem() { cu.cuMemFreeHost(p); }
    pinned_mem(const pinned_mem&) = delete;
    pinned_mem& operator=(const pinned_mem&) = delete;
    template <class T = std::uint8_t>
    T* ptr() const { return static_cast<T*>(p); }
};

struct event_pair {
    CUevent a = nullptr, b = nullptr;
    event_pair() {
        check(cu.cuEventCreate(&a, 0), "cuEventCreate");
        check(cu.cuEventCreate(&b, 0), "cuEventCreate");
    }
    double seconds() const {
        check(cu.cuEventSynchronize(b), "cuEventSynchronize");
        float ms = 0;
        check(cu.cuEventElapsedTime(&ms, a, b), "cuEventElapsedTime");
        return double(ms) * 1e-3;
    }
};

// ---- the batch layout nvCOMP takes: chunk pointer, size and capacity arrays ---------------------

constexpr std::size_t align16(std::size_t n) { return (n + 15) / 16 * 16; }

// Chunks packed into one buffer at 16-byte aligned offsets (nvCOMP asks for 4), described by the
// arrays its batched calls take; `bases` are filled in once the device buffers exist.
struct chunk_batch {
    std::vector<std::size_t> in_offset, in_size, out_offset, out_size;
    std::size_t in_bytes = 0, out_bytes = 0;
};

chunk_batch pack(const std::vector<bytes>& in_chunks, const std::vector<std::size_t>& out_sizes) {
    chunk_batch b;
    for (std::size_t i = 0; i < in_chunks.size(); ++i) {
        b.in_offset.push_back(b.in_bytes);
        b.in_size.push_back(in_chunks[i].size());
        b.in_bytes += align16(in_chunks[i].size());
        b.out_offset.push_back(b.out_bytes);
        b.out_size.push_back(out_sizes[i]);
        b.out_bytes += align16(out_sizes[i]);
    }
    return b;
}

// Host-side pointer/size arrays for chunks [first, last) of `b`, laid out as one upload:
// in_ptrs | in_sizes | out_ptrs | out_capacities (each `count` words of 8 bytes).
struct chunk_arrays {
    std::size_t count = 0;
    pinned_mem host;
    device_mem dev;
    device_mem actual, statuses;
    chunk_arrays(const chunk_batch& b, std::size_t first, std::size_t last, CUdeviceptr in_base, CUdeviceptr out_base)
        : count(last - first), host(4 * 8 * (last - first)), dev(4 * 8 * (last - first)), actual(8 * (last - first)),
          statuses(sizeof(nvcompStatus_t) * (last - first)) {
        auto* w = host.ptr<std::uint64_t>();
        for (std::size_t i = first; i < last; ++i) {
            const std::size_t k = i - first;
            w[k] = in_base + b.in_offset[i];
            w[count + k] = b.in_size[i];
            w[2 * count + k] = out_base + b.out_offset[i];
            w[3 * count + k] = b.out_size[i];
        }
    }
    std::size_t bytes() const { return 4 * 8 * count; }
    void* const* in_ptrs() const { return dev.ptr<void* const>(); }
    const std::size_t* in_sizes() const { return dev.ptr<const std::size_t>() + count; }
    void* const* out_ptrs() const { return dev.ptr<void* const>() + 2 * count; }
    const std::size_t* out_caps() const { return dev.ptr<const std::size_t>() + 3 * count; }
    std::size_t* actual_sizes() const { return actual.ptr<std::size_t>(); }
    nvcompStatus_t* status_words() const { return statuses.ptr<nvcompStatus_t>(); }
};

// Pieces of a batch: chunk ranges [cut[i], cut[i+1]).
std::vector<std::size_t> cuts(std::size_t chunks, std::size_t pieces) {
    std::vector<std::size_t> c;
    for (std::size_t i = 0; i <= pieces; ++i) c.push_back(chunks * i / pieces);
    return c;
}

// The decompression of one batch with one codec: kernel time, e2e time, and a check.
struct codec_calls {
    std::function<std::size_t(std::size_t chunks, std::size_t max_out, std::size_t total_out)> temp_bytes;
    std::function<void(const chunk_arrays&, void* temp, std::size_t temp_bytes, std::size_t max_out, CUstream)> run;
};

struct figures {
    double kernel_gbs = 0, e2e_gbs = 0;
    int e2e_pieces = 0;
};

// Decompresses `chunks` (each decoding to `plain_sizes[i]` bytes of `plain`, consecutive) and
// checks every byte; returns the medians. With `exact_sizes`, every chunk's decompressed size as
// nvCOMP reports it must also be its plain size (a short chunk could otherwise hide behind zeros).
figures decompress_batch(const std::vector<bytes>& chunks, const std::vector<std::size_t>& plain_sizes, const bytes& plain,
                         const codec_calls& codec, int runs, const char* what, bool exact_sizes = false) {
    const chunk_batch b = pack(chunks, plain_sizes);
    const std::size_t max_out = *std::max_element(plain_sizes.begin(), plain_sizes.end());
    pinned_mem host_in(b.in_bytes), host_out(b.out_bytes);
    for (std::size_t i = 0; i < chunks.size(); ++i) std::memcpy(host_in.ptr() + b.in_offset[i], chunks[i].data(), chunks[i].size());
    device_mem d_in(b.in_bytes), d_out(b.out_bytes);
    CUstream streams[2];
    for (auto& s : streams) check(cu.cuStreamCreate(&s, 0), "cuStreamCreate");

    const auto verify = [&](const std::uint8_t* out) {
        std::size_t at = 0;
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            if (std::memcmp(out + b.out_offset[i], plain.data() + at, plain_sizes[i]) != 0)
                die(std::string(what) + ": nvCOMP output differs from the input at chunk " + std::to_string(i));
            at += plain_sizes[i];
        }
    };
    // `first`: the batch's index of a's first chunk.
    const auto check_statuses = [&](const chunk_arrays& a, std::size_t first) {
        std::vector<nvcompStatus_t> st(a.count);
        std::vector<std::size_t> sizes(a.count);
        check(cu.cuMemcpyDtoHAsync_v2(st.data(), a.statuses.p, st.size() * sizeof st[0], nullptr), "cuMemcpyDtoH");
        check(cu.cuMemcpyDtoHAsync_v2(sizes.data(), a.actual.p, sizes.size() * 8, nullptr), "cuMemcpyDtoH");
        check(cu.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
        for (std::size_t i = 0; i < a.count; ++i) {
            if (st[i] != nvcompSuccess)
                die(std::string(what) + ": nvCOMP status " + std::to_string(int(st[i])) + " on chunk " + std::to_string(first + i));
            if (exact_sizes && sizes[i] != plain_sizes[first + i])
                die(std::string(what) + ": nvCOMP decompressed chunk " + std::to_string(first + i) + " to " + std::to_string(sizes[i]) +
                    " bytes, " + std::to_string(plain_sizes[first + i]) + " expected");
        }
    };

    // Kernel only: everything on the device, one call over all chunks.
    figures f;
    {
        chunk_arrays a(b, 0, chunks.size(), d_in.p, d_out.p);
        check(cu.cuMemcpyHtoDAsync_v2(d_in.p, host_in.p, b.in_bytes, streams[0]), "cuMemcpyHtoD");
        check(cu.cuMemcpyHtoDAsync_v2(a.dev.p, a.host.p, a.bytes(), streams[0]), "cuMemcpyHtoD");
        const std::size_t tb = codec.temp_bytes(chunks.size(), max_out, b.out_bytes);
        device_mem temp(tb);
        std::vector<double> kt;
        for (int r = 0; r < runs + 1; ++r) {
            check(cu.cuMemsetD8_v2(d_out.p, 0, b.out_bytes), "cuMemsetD8");
            event_pair ev;
            check(cu.cuEventRecord(ev.a, streams[0]), "cuEventRecord");
            codec.run(a, temp.ptr(), tb, max_out, streams[0]);
            check(cu.cuEventRecord(ev.b, streams[0]), "cuEventRecord");
            const double t = ev.seconds();
            if (r > 0) kt.push_back(t);
        }
        check_statuses(a, 0);
        check(cu.cuMemcpyDtoHAsync_v2(host_out.p, d_out.p, b.out_bytes, streams[0]), "cuMemcpyDtoH");
        check(cu.cuStreamSynchronize(streams[0]), "cuStreamSynchronize");
        verify(host_out.ptr());
        f.kernel_gbs = double(plain.size()) / median(kt) / 1e9;
    }
    // End to end, pieces over two streams: upload arrays + compressed piece, decompress, read back.
    for (std::size_t pieces : {1, 2, 4, 8}) {
        if (pieces > chunks.size()) break;
        const auto c = cuts(chunks.size(), pieces);
        std::vector<std::unique_ptr<chunk_arrays>> arrays;
        std::vector<std::unique_ptr<device_mem>> temps;
        std::vector<std::size_t> temp_sizes;
        for (std::size_t p = 0; p < pieces; ++p) {
            arrays.push_back(std::make_unique<chunk_arrays>(b, c[p], c[p + 1], d_in.p, d_out.p));
            temp_sizes.push_back(codec.temp_bytes(c[p + 1] - c[p], max_out, b.out_bytes));
            temps.push_back(std::make_unique<device_mem>(temp_sizes.back()));
        }
        std::vector<double> et;
        for (int r = 0; r < runs + 1; ++r) {
            std::memset(host_out.p, 0, b.out_bytes);
            const double t0 = now_seconds();
            for (std::size_t p = 0; p < pieces; ++p) {
                CUstream s = streams[p % 2];
                const std::size_t in_at = b.in_offset[c[p]];
                const std::size_t in_end = c[p + 1] == chunks.size() ? b.in_bytes : b.in_offset[c[p + 1]];
                const std::size_t out_at = b.out_offset[c[p]];
                const std::size_t out_end = c[p + 1] == chunks.size() ? b.out_bytes : b.out_offset[c[p + 1]];
                check(cu.cuMemcpyHtoDAsync_v2(arrays[p]->dev.p, arrays[p]->host.p, arrays[p]->bytes(), s), "cuMemcpyHtoD");
                check(cu.cuMemcpyHtoDAsync_v2(d_in.p + in_at, host_in.ptr() + in_at, in_end - in_at, s), "cuMemcpyHtoD");
                codec.run(*arrays[p], temps[p]->ptr(), temp_sizes[p], max_out, s);
                check(cu.cuMemcpyDtoHAsync_v2(host_out.ptr() + out_at, d_out.p + out_at, out_end - out_at, s), "cuMemcpyDtoH");
            }
            for (auto s : streams) check(cu.cuStreamSynchronize(s), "cuStreamSynchronize");
            const double t = now_seconds() - t0;
            if (r > 0) et.push_back(t);
        }
        for (std::size_t p = 0; p < pieces; ++p) check_statuses(*arrays[p], c[p]);
        verify(host_out.ptr());
        const double gbs = double(plain.size()) / median(et) / 1e9;
        if (gbs > f.e2e_gbs) {
            f.e2e_gbs = gbs;
            f.e2e_pieces = static_cast<int>(pieces);
        }
    }
    return f;
}

codec_calls lz4_decompress_calls() {
    codec_calls c;
    c.temp_bytes = [](std::size_t n, std::size_t max_out, std::size_t total) {
        std::size_t t = 0;
        check_nv(nvcompBatchedLZ4DecompressGetTempSize(n, max_out, nvcompBatchedLZ4DecompressDefaultOpts, &t, total, nullptr),
                 "nvcompBatchedLZ4DecompressGetTempSize");
        return t;
    };
    c.run = [](const chunk_arrays& a, void* temp, std::size_t tb, std::size_t, CUstream s) {
        check_nv(nvcompBatchedLZ4DecompressAsync(a.in_ptrs(), a.in_sizes(), a.out_caps(), a.actual_sizes(), a.count, temp, tb,
                                                 a.out_ptrs(), nvcompBatchedLZ4DecompressDefaultOpts, a.status_words(), s),
                 "nvcompBatchedLZ4DecompressAsync");
    };
    return c;
}

codec_calls zstd_decompress_calls() {
    codec_calls c;
    c.temp_bytes = [](std::size_t n, std::size_t max_out, std::size_t total) {
        std::size_t t = 0;
        check_nv(nvcompBatchedZstdDecompressGetTempSize(n, max_out, nvcompBatchedZstdDecompressDefaultOpts, &t, total, nullptr),
                 "nvcompBatchedZstdDecompressGetTempSize");
        return t;
    };
    c.run = [](const chunk_arrays& a, void* temp, std::size_t tb, std::size_t, CUstream s) {
        check_nv(nvcompBatchedZstdDecompressAsync(a.in_ptrs(), a.in_sizes(), a.out_caps(), a.actual_sizes(), a.count, temp, tb,
                                                  a.out_ptrs(), nvcompBatchedZstdDecompressDefaultOpts, a.status_words(), s),
                 "nvcompBatchedZstdDecompressAsync");
    };
    return c;
}

codec_calls deflate_decompress_calls() {
    codec_calls c;
    c.temp_bytes = [](std::size_t n, std::size_t max_out, std::size_t total) {
        std::size_t t = 0;
        check_nv(nvcompBatchedDeflateDecompressGetTempSize(n, max_out, nvcompBatchedDeflateDecompressDefaultOpts, &t, total, nullptr),
                 "nvcompBatchedDeflateDecompressGetTempSize");
        return t;
    };
    c.run = [](const chunk_arrays& a, void* temp, std::size_t tb, std::size_t, CUstream s) {
        check_nv(nvcompBatchedDeflateDecompressAsync(a.in_ptrs(), a.in_sizes(), a.out_caps(), a.actual_sizes(), a.count, temp, tb,
                                                     a.out_ptrs(), nvcompBatchedDeflateDecompressDefaultOpts, a.status_words(), s),
                 "nvcompBatchedDeflateDecompressAsync");
    };
    return c;
}

// ---- raw DEFLATE streams, made and picked exactly as bench_deflate makes and picks them ----------

// A set from bench/deflate_streams.hpp, the code bench_deflate uses; one that cannot be made stops
// the program.
vyre::bench::deflate_set make_deflate_set(const std::function<vyre::bench::deflate_set()>& make) {
    try {
        return make();
    } catch (const vyre::bench::stream_error& e) {
        die(e.what());
    }
}

// LZ4 compression of `pages` 4 KiB pages taken from the start of `corpus` (wrapping around when it
// is shorter): kernel GB/s, e2e GB/s (pages in pinned memory -> sizes and compressed slots in
// pinned memory) and the compression ratio; every page is decoded again with liblz4 and compared.
struct page_figures {
    double kernel_gbs = 0, e2e_gbs = 0, ratio = 0;
};

page_figures compress_pages(const bytes& corpus, std::size_t pages, int runs) {
    constexpr std::size_t page = 4096;
    bytes input(pages * page);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = corpus[i % corpus.size()];
    std::size_t max_out = 0;
    check_nv(nvcompBatchedLZ4CompressGetMaxOutputChunkSize(page, nvcompBatchedLZ4CompressDefaultOpts, &max_out),
             "nvcompBatchedLZ4CompressGetMaxOutputChunkSize");
    const std::size_t slot = align16(max_out);
    std::size_t tb = 0;
    check_nv(nvcompBatchedLZ4CompressGetTempSize(pages, page, nvcompBatchedLZ4CompressDefaultOpts, &tb, input.size(), nullptr),
             "nvcompBatchedLZ4CompressGetTempSize");
    pinned_mem host_in(input.size()), host_out(pages * slot), host_arrays(3 * 8 * pages), host_sizes(8 * pages);
    std::memcpy(host_in.p, input.data(), input.size());
    device_mem d_in(input.size()), d_out(pages * slot), d_arrays(3 * 8 * pages), d_sizes(8 * pages), temp(tb),
        statuses(sizeof(nvcompStatus_t) * pages);
    auto* w = host_arrays.ptr<std::uint64_t>();
    for (std::size_t i = 0; i < pages; ++i) {
        w[i] = d_in.p + i * page;
        w[pages + i] = page;
        w[2 * pages + i] = d_out.p + i * slot;
    }
    CUstream s = nullptr;
    check(cu.cuStreamCreate(&s, 0), "cuStreamCreate");
    const auto launch = [&] {
        check_nv(nvcompBatchedLZ4CompressAsync(d_arrays.ptr<const void* const>(), d_arrays.ptr<const std::size_t>() + pages, page, pages,
                                               temp.ptr(), tb, d_arrays.ptr<void* const>() + 2 * pages, d_sizes.ptr<std::size_t>(),
                                               nvcompBatchedLZ4CompressDefaultOpts, statuses.ptr<nvcompStatus_t>(), s),
                 "nvcompBatchedLZ4CompressAsync");
    };
    page_figures f;
    std::vector<double> kt, et;
    check(cu.cuMemcpyHtoDAsync_v2(d_arrays.p, host_arrays.p, 3 * 8 * pages, s), "cuMemcpyHtoD");
    check(cu.cuMemcpyHtoDAsync_v2(d_in.p, host_in.p, input.size(), s), "cuMemcpyHtoD");
    for (int r = 0; r < runs + 1; ++r) {
        event_pair ev;
        check(cu.cuEventRecord(ev.a, s), "cuEventRecord");
        launch();
        check(cu.cuEventRecord(ev.b, s), "cuEventRecord");
        const double t = ev.seconds();
        if (r > 0) kt.push_back(t);
    }
    for (int r = 0; r < runs + 1; ++r) {
        const double t0 = now_seconds();
        check(cu.cuMemcpyHtoDAsync_v2(d_arrays.p, host_arrays.p, 3 * 8 * pages, s), "cuMemcpyHtoD");
        check(cu.cuMemcpyHtoDAsync_v2(d_in.p, host_in.p, input.size(), s), "cuMemcpyHtoD");
        launch();
        check(cu.cuMemcpyDtoHAsync_v2(host_sizes.p, d_sizes.p, 8 * pages, s), "cuMemcpyDtoH");
        check(cu.cuMemcpyDtoHAsync_v2(host_out.p, d_out.p, pages * slot, s), "cuMemcpyDtoH");
        check(cu.cuStreamSynchronize(s), "cuStreamSynchronize");
        if (r > 0) et.push_back(now_seconds() - t0);
    }
    std::vector<nvcompStatus_t> st(pages);
    check(cu.cuMemcpyDtoHAsync_v2(st.data(), statuses.p, st.size() * sizeof st[0], s), "cuMemcpyDtoH");
    check(cu.cuStreamSynchronize(s), "cuStreamSynchronize");
    std::size_t compressed = 0;
    std::vector<char> back(page);
    for (std::size_t i = 0; i < pages; ++i) {
        const std::size_t n = host_sizes.ptr<std::uint64_t>()[i];
        if (st[i] != nvcompSuccess || n > max_out) die("nvCOMP LZ4 compression failed on page " + std::to_string(i));
        const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(host_out.ptr() + i * slot), back.data(), static_cast<int>(n),
                                            static_cast<int>(page));
        if (got != static_cast<int>(page) || std::memcmp(back.data(), input.data() + i * page, page) != 0)
            die("nvCOMP LZ4 page " + std::to_string(i) + " does not decode to the input with liblz4");
        compressed += n;
    }
    f.kernel_gbs = double(input.size()) / median(kt) / 1e9;
    f.e2e_gbs = double(input.size()) / median(et) / 1e9;
    f.ratio = double(input.size()) / double(compressed);
    return f;
}

std::vector<std::string> parse_names(const std::string& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < s.size()) {
        const std::size_t comma = s.find(',', at);
        const std::string item = s.substr(at, comma - at);
        if (!item.empty()) out.push_back(item);
        at = comma == std::string::npos ? s.size() : comma + 1;
    }
    return out;
}

std::vector<std::size_t> parse_list(const std::string& s) {
    std::vector<std::size_t> out;
    std::size_t at = 0;
    while (at < s.size()) {
        const std::size_t comma = s.find(',', at);
        out.push_back(std::stoull(s.substr(at, comma - at)));
        at = comma == std::string::npos ? s.size() : comma + 1;
    }
    return out;
}

[[noreturn]] void usage() {
    std::fprintf(stderr,
                 "usage: bench_nvcomp PATH|--synthetic compressible|incompressible [--mib N (1024)] [--runs N (3)]\n"
                 "       [--cases lz4,zstd,lz4_pages,deflate (lz4,zstd,lz4_pages)] [--block-sizes 4096,65536,262144,4194304]\n"
                 "       [--zstd-chunks 65536,1048576] [--level L (3)] [--pages 100,500,1000,2000,5000,10000,100000]\n"
                 "       [--deflate-blocks 65536,1048576] [--deflate-level L (6)] [--deflate-compressors libdeflate,zlib (libdeflate)]\n"
                 "       [--zip DIR_OR_FILES[,...] (deflate case: every deflate entry; --mib caps their decompressed bytes)]\n"
                 "       bench_nvcomp --zip DIR_OR_FILES[,...] [--mib N] [--runs N]   (the deflate case alone)\n");
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    std::string path, synthetic, cases = "lz4,zstd,lz4_pages";
    bool cases_given = false;
    std::size_t mib = 1024;
    int runs = 3, level = 3, deflate_level = 6;
    std::vector<std::size_t> block_sizes = {4096, 65536, 262144, 4194304}, zstd_chunks = {65536, 1048576},
                             page_counts = {100, 500, 1000, 2000, 5000, 10000, 100000}, deflate_blocks = {65536, 1048576};
    std::vector<std::string> deflate_compressors = {"libdeflate"}, zip;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage();
            return argv[++i];
        };
        if (a == "--mib") mib = std::stoull(value());
        else if (a == "--runs") runs = std::stoi(value());
        else if (a == "--level") level = std::stoi(value());
        else if (a == "--cases") {
            cases = value();
            cases_given = true;
        }
        else if (a == "--synthetic") synthetic = value();
        else if (a == "--block-sizes") block_sizes = parse_list(value());
        else if (a == "--zstd-chunks") zstd_chunks = parse_list(value());
        else if (a == "--pages") page_counts = parse_list(value());
        else if (a == "--deflate-blocks") deflate_blocks = parse_list(value());
        else if (a == "--deflate-level") deflate_level = std::stoi(value());
        else if (a == "--deflate-compressors") {
            deflate_compressors = parse_names(value());
            for (const auto& c : deflate_compressors)
                if (c != "libdeflate" && c != "zlib") usage();
        } else if (a == "--zip") {
            for (const auto& z : parse_names(value())) zip.push_back(z);
        }
        else if (!a.empty() && a[0] != '-' && path.empty()) path = a;
        else usage();
    }
    if (!path.empty() && !synthetic.empty()) usage();
    const bool corpus = !path.empty() || !synthetic.empty();
    if (!corpus) {
        // --zip alone: the deflate case on the archives' entries; the other cases need PATH.
        if (zip.empty()) usage();
        if (!cases_given) cases = "deflate";
    } else if (!zip.empty() && !cases_given) {
        cases += ",deflate"; // --zip asks for the deflate case
    }
    for (const auto& c : parse_names(cases))
        if (c != "lz4" && c != "zstd" && c != "lz4_pages" && c != "deflate") usage();
        else if (!corpus && c != "deflate") usage();
    for (std::size_t b : deflate_blocks)
        if (b == 0 || b > (std::size_t{1} << 31)) usage();
    const std::string device = load_cuda();
    int driver = 0;
    cu.cuDriverGetVersion(&driver);
    nvcompProperties_t props{};
    nvcompGetProperties(&props);
    const std::string nv = "nvCOMP " + std::to_string(props.version / 1000) + "." + std::to_string(props.version % 1000 / 100) + "." +
                           std::to_string(props.version % 100);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    const auto shared_input = std::make_shared<const bytes>(!corpus              ? bytes()
                                                            : synthetic.empty() ? vyre::bench::read_input_path(path, mib << 20, "bench_nvcomp")
                                                                                : vyre::bench::synthetic_input(synthetic, mib << 20));
    const bytes& input = *shared_input;
    if (corpus && input.empty()) usage();
    const std::string label = !corpus ? std::string("(none)") : vyre::bench::input_label(synthetic.empty() ? path : "synthetic-" + synthetic);
    std::printf("# bench_nvcomp: %s on %s, CUDA driver %d.%d; input %s, %zu bytes; %d runs, median\n", nv.c_str(), device.c_str(),
                driver / 1000, driver % 1000 / 10, label.c_str(), input.size(), runs);
    const auto has = [&](const char* c) { return ("," + cases + ",").find(std::string(",") + c + ",") != std::string::npos; };

    if (has("lz4")) {
        std::printf("\n## LZ4 decompression (GB/s of decompressed output)\n%9s %8s %12s %12s\n", "block", "blocks", "kernel GB/s",
                    "e2e GB/s");
        for (std::size_t block : block_sizes) {
            const auto chunks = vyre::bench::lz4_compress_blocks(input, block, threads);
            std::vector<std::size_t> sizes;
            for (std::size_t i = 0; i < chunks.size(); ++i) sizes.push_back(std::min(block, input.size() - i * block));
            const figures f = decompress_batch(chunks, sizes, input, lz4_decompress_calls(), runs, "LZ4");
            std::printf("%9zu %8zu %12.2f %9.2f x%d\n", block, chunks.size(), f.kernel_gbs, f.e2e_gbs, f.e2e_pieces);
            vyre::bench::emit({"lz4", device, label, "block_bytes", double(block), nv + " LZ4", "kernel GB/s", f.kernel_gbs});
            vyre::bench::emit({"lz4", device, label, "block_bytes", double(block), nv + " LZ4", "e2e GB/s", f.e2e_gbs});
        }
    }
    if (has("zstd") && synthetic.empty()) {
        std::printf("\n## Zstandard decompression, independent frames, level %d (GB/s of decompressed output)\n%9s %8s %12s %12s\n",
                    level, "frame", "frames", "kernel GB/s", "e2e GB/s");
        for (std::size_t chunk : zstd_chunks) {
            const auto frames = vyre::bench::zstd_compress_chunks(input, chunk, level, threads);
            std::vector<std::size_t> sizes;
            for (std::size_t i = 0; i < frames.size(); ++i) sizes.push_back(std::min(chunk, input.size() - i * chunk));
            const figures f = decompress_batch(frames, sizes, input, zstd_decompress_calls(), runs, "zstd");
            std::printf("%9zu %8zu %12.2f %9.2f x%d\n", chunk, frames.size(), f.kernel_gbs, f.e2e_gbs, f.e2e_pieces);
            // bench_zstd names its cases frames64k and frames1m.
            const std::string case_name = chunk == 65536 ? "frames64k" : chunk == 1048576 ? "frames1m" : "frames" + std::to_string(chunk);
            vyre::bench::emit({"zstd", device, label + " " + case_name, "", 0, nv + " zstd", "kernel GB/s", f.kernel_gbs});
            vyre::bench::emit({"zstd", device, label + " " + case_name, "", 0, nv + " zstd", "e2e GB/s", f.e2e_gbs});
        }
    }
    if (has("lz4_pages")) {
        std::printf("\n## LZ4 compression of 4 KiB pages (GB/s of uncompressed input)\n%9s %12s %12s %8s\n", "pages", "kernel GB/s",
                    "e2e GB/s", "ratio");
        for (std::size_t pages : page_counts) {
            const page_figures f = compress_pages(input, pages, runs);
            std::printf("%9zu %12.2f %12.2f %8.3f\n", pages, f.kernel_gbs, f.e2e_gbs, f.ratio);
            vyre::bench::emit({"lz4_pages", device, label, "pages", double(pages), nv + " LZ4", "kernel GB/s", f.kernel_gbs});
            vyre::bench::emit({"lz4_pages", device, label, "pages", double(pages), nv + " LZ4", "e2e GB/s", f.e2e_gbs});
            vyre::bench::emit({"lz4_pages", device, label, "pages", double(pages), nv + " LZ4", "compression ratio", f.ratio});
        }
    }
    if (has("deflate")) {
        nvcompAlignmentRequirements_t align{};
        check_nv(nvcompBatchedDeflateDecompressGetRequiredAlignments(nvcompBatchedDeflateDecompressDefaultOpts, &align),
                 "nvcompBatchedDeflateDecompressGetRequiredAlignments");
        // Chunks are packed at 16-byte offsets of buffers cuMemAlloc aligns further.
        if (align.input > 16 || align.output > 16 || align.temp > 256)
            die("nvCOMP Deflate asks for alignments (input " + std::to_string(align.input) + ", output " + std::to_string(align.output) +
                ", temp " + std::to_string(align.temp) + ") this program does not give");
        std::printf("\n## Deflate decompression, raw DEFLATE streams (GB/s of decompressed output)\n%9s %8s %6s %-13s %12s %12s\n",
                    "stream", "streams", "ratio", "made with", "kernel GB/s", "e2e GB/s");
        const auto measure = [&](const vyre::bench::deflate_set& s, const std::string& size, const char* x_name, double x) {
            // nvCOMP takes one buffer per chunk: the streams copied out of the set.
            std::vector<bytes> chunks;
            std::vector<std::size_t> plain_sizes;
            for (const auto& d : s.streams) {
                const auto* at = s.compressed.data() + d.input_offset;
                chunks.emplace_back(at, at + d.input_size);
                plain_sizes.push_back(d.output_size);
            }
            const figures f = decompress_batch(chunks, plain_sizes, *s.plain, deflate_decompress_calls(), runs, "Deflate",
                                               /*exact_sizes=*/true);
            std::printf("%9s %8zu %6.2f %-13s %12.2f %9.2f x%d\n", size.c_str(), chunks.size(),
                        double(s.plain->size()) / double(s.compressed.size()), s.made_with.c_str(), f.kernel_gbs, f.e2e_gbs, f.e2e_pieces);
            vyre::bench::emit({"deflate", device, s.input, x_name, x, nv + " Deflate", "kernel GB/s", f.kernel_gbs});
            vyre::bench::emit({"deflate", device, s.input, x_name, x, nv + " Deflate", "e2e GB/s", f.e2e_gbs});
            std::fflush(stdout);
        };
        // The corpus's pieces (not the synthetic sets: bench_deflate has none), then the archives' entries.
        if (corpus && synthetic.empty())
            for (const auto& compressor : deflate_compressors)
                for (std::size_t block : deflate_blocks) {
                    const auto s = make_deflate_set(
                        [&] { return vyre::bench::deflate_pieces(shared_input, label, block, compressor, deflate_level, threads); });
                    measure(s, std::to_string(block), "block_bytes", double(block));
                }
        if (!zip.empty())
            measure(make_deflate_set([&] { return vyre::bench::zip_entries(zip, std::uint64_t{mib} << 20, threads); }), "ZIP", "", 0);
    }
    return 0;
}
