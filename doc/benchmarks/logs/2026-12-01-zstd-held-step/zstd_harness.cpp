// Runs the PTX that NVIDIA's OpenCL compiler made for compression.zstd.frames.fast through the CUDA
// driver, so that Nsight Compute (which does not see OpenCL kernels) can profile it. The frames are
// planned as the device route plans them (format::plan_zstd_sections, tables built on the host).
// usage: zstd_harness PTX ENTRY DATA FRAME_BYTES MIB RUNS [FRAMES_PER_WG]
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <zstd.h>
#include <dlfcn.h>
#include <chrono>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>
typedef int CUresult; typedef int CUdevice; typedef void* CUcontext; typedef void* CUmodule; typedef void* CUfunction; typedef unsigned long long CUdeviceptr;
#define F(name, ...) typedef CUresult (*name##_t)(__VA_ARGS__); name##_t name;
F(cuInit, unsigned) F(cuDeviceGet, CUdevice*, int) F(cuCtxCreate_v2, CUcontext*, unsigned, CUdevice) F(cuModuleLoadData, CUmodule*, const void*)
F(cuModuleGetFunction, CUfunction*, CUmodule, const char*) F(cuMemAlloc_v2, CUdeviceptr*, size_t) F(cuMemcpyHtoD_v2, CUdeviceptr, const void*, size_t)
F(cuMemcpyDtoH_v2, void*, CUdeviceptr, size_t) F(cuCtxSynchronize) F(cuMemsetD8_v2, CUdeviceptr, unsigned char, size_t)
F(cuLaunchKernel, CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**)
#define CK(x) do { CUresult r_ = (x); if (r_) { std::fprintf(stderr, "%s failed: %d\n", #x, r_); std::exit(1); } } while (0)
int main(int argc, char** argv) {
    if (argc < 7) { std::fprintf(stderr, "usage: zstd_harness PTX ENTRY DATA FRAME_BYTES MIB RUNS [FRAMES_PER_WG]\n"); return 2; }
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib && !std::getenv("PLAN_ONLY")) { std::fprintf(stderr, "no libcuda\n"); return 1; }
    if (lib) {
#define L(name) name = (name##_t)dlsym(lib, #name);
    L(cuInit) L(cuDeviceGet) L(cuCtxCreate_v2) L(cuModuleLoadData) L(cuModuleGetFunction) L(cuMemAlloc_v2) L(cuMemcpyHtoD_v2) L(cuMemcpyDtoH_v2)
    L(cuCtxSynchronize) L(cuMemsetD8_v2) L(cuLaunchKernel)
    }
    std::ifstream pf(argv[1]); std::stringstream ps; ps << pf.rdbuf(); std::string ptx = ps.str();
    if (auto m = ptx.find(".metadata_section"); m != std::string::npos) ptx.resize(m);
    for (std::string a : {".ptr .const", "ld.const."}) {
        std::string b = a == ".ptr .const" ? ".ptr .global" : "ld.global.";
        for (size_t at = 0; (at = ptx.find(a, at)) != std::string::npos;) ptx.replace(at, a.size(), b);
    }
    for (size_t at = 0; (at = ptx.find("%envreg", at)) != std::string::npos;) {
        size_t e = at + 7; while (e < ptx.size() && std::isdigit((unsigned char)ptx[e])) ++e;
        ptx.replace(at, e - at, "0");
    }
    const unsigned frame = std::atoi(argv[4]), runs = std::atoi(argv[6]), per_wg = argc > 7 ? std::atoi(argv[7]) : 4;
    std::ifstream df(argv[3], std::ios::binary); std::vector<unsigned char> data((size_t(std::atoi(argv[5])) << 20));
    df.read((char*)data.data(), data.size()); data.resize(df.gcount());
    std::vector<std::uint8_t> file;
    ZSTD_CCtx* cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3); ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    for (size_t at = 0; at < data.size(); at += frame) {
        size_t n = std::min<size_t>(frame, data.size() - at);
        std::vector<unsigned char> tmp(ZSTD_compressBound(n));
        size_t got = ZSTD_compress2(cc, tmp.data(), tmp.size(), data.data() + at, n);
        if (ZSTD_isError(got)) { std::fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(got)); return 1; }
        file.insert(file.end(), tmp.begin(), tmp.begin() + got);
    }
    namespace fmt = vyre::format;
    const fmt::zstd_file parsed = fmt::parse_zstd(file, {.max_output_size = std::uint64_t{1} << 32});
    std::vector<std::size_t> all(parsed.frames.size()); std::iota(all.begin(), all.end(), 0);
    const fmt::zstd_sections s = fmt::plan_zstd_sections(file, parsed, all, fmt::zstd_plan_options{.threads = 16});
    const uint32_t nframes = all.size();
    std::printf("file %zu bytes, %u frames; input base %llu bytes %llu, output %llu, literals %llu, %zu block words, %zu table words\n", file.size(), nframes,
                (unsigned long long)s.input_base, (unsigned long long)s.input_bytes, (unsigned long long)s.output_bytes,
                (unsigned long long)s.literal_bytes, s.blocks.size(), s.tables.size());
    std::fflush(stdout);
    if (std::getenv("PLAN_ONLY")) return 0;
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuCtxCreate_v2(&ctx, 0, dev));
    CUmodule mod; CK(cuModuleLoadData(&mod, ptx.c_str())); CUfunction fn; CK(cuModuleGetFunction(&fn, mod, argv[2]));
    auto pad = [](size_t b) { return (b + 3) / 4 * 4 + 64; };
    auto up = [&](const void* p, size_t bytes, uint32_t& words) {
        CUdeviceptr d; CK(cuMemAlloc_v2(&d, pad(bytes))); if (bytes && p) CK(cuMemcpyHtoD_v2(d, p, bytes)); words = (bytes + 3) / 4; return d;
    };
    uint32_t win, wf, wb, wt, wl, wo, ws, wp;
    CUdeviceptr din = up(file.data() + s.input_base, s.input_bytes, win);
    CUdeviceptr dfr = up(s.frames.data(), s.frames.size() * 4, wf), dbl = up(s.blocks.data(), s.blocks.size() * 4, wb);
    CUdeviceptr dtb = up(s.tables.data(), s.tables.size() * 4, wt);
    CUdeviceptr dli = up(nullptr, s.literal_bytes, wl); CK(cuMemsetD8_v2(dli, 0, pad(s.literal_bytes)));
    CUdeviceptr dout = up(nullptr, s.output_bytes, wo);
    CUdeviceptr dst = up(nullptr, nframes * 16, ws);
    uint32_t par[6] = {nframes, uint32_t(s.input_bytes), uint32_t(s.output_bytes), uint32_t(s.literal_bytes), uint32_t(s.blocks.size()),
                       uint32_t(s.tables.size())};
    CUdeviceptr dpar = up(par, sizeof par, wp);
    void* args[] = {&din, &win, &dfr, &wf, &dbl, &wb, &dtb, &wt, &dli, &wl, &dout, &wo, &dst, &ws, &dpar, &wp};
    double best = 1e9;
    for (unsigned r = 0; r < runs; ++r) {
        CK(cuMemsetD8_v2(dout, 0x5a, pad(s.output_bytes))); CK(cuCtxSynchronize());
        auto t0 = std::chrono::steady_clock::now();
        CK(cuLaunchKernel(fn, (nframes + per_wg - 1) / per_wg, 1, 1, per_wg * 32, 1, 1, 0, nullptr, args, nullptr));
        CK(cuCtxSynchronize());
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::vector<unsigned char> out(s.output_bytes); std::vector<uint32_t> st(nframes * 4);
    CK(cuMemcpyDtoH_v2(out.data(), dout, out.size())); CK(cuMemcpyDtoH_v2(st.data(), dst, st.size() * 4));
    size_t bad = 0; for (uint32_t i = 0; i < nframes; ++i) if (st[4 * i] != 0) ++bad;
    // The frames' regions lie back to back in the plan's output (each at its declared content size).
    const bool equal = out.size() == data.size() && out == data;
    std::printf("%u frames of %u bytes, ratio %.2f, %llu sequences: best %.3f ms, %.2f GB/s; bad statuses %zu (first {%u %u %u %u}); output %s\n",
                nframes, frame, double(data.size()) / file.size(), (unsigned long long)s.sequences, best * 1e3, data.size() / best / 1e9, bad,
                st[0], st[1], st[2], st[3], equal ? "equal" : "DIFFERS");
    return bad == 0 && equal ? 0 : 1;
}
