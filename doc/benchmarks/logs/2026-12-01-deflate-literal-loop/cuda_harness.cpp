// Runs an OpenCL-built vyre block kernel's PTX through the CUDA driver, so that ncu can profile it.
// usage: harness PTX ENTRY DATA STREAM_BYTES MIB RUNS [STREAMS_PER_WG LANES]
#include <dlfcn.h>
#include <libdeflate.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cctype>
#include <fstream>
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
    if (argc < 7) { std::fprintf(stderr, "usage\n"); return 2; }
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) { std::fprintf(stderr, "no libcuda\n"); return 1; }
#define L(name) name = (name##_t)dlsym(lib, #name);
    L(cuInit) L(cuDeviceGet) L(cuCtxCreate_v2) L(cuModuleLoadData) L(cuModuleGetFunction) L(cuMemAlloc_v2) L(cuMemcpyHtoD_v2) L(cuMemcpyDtoH_v2)
    L(cuCtxSynchronize) L(cuMemsetD8_v2) L(cuLaunchKernel)
    std::ifstream pf(argv[1]); std::stringstream ps; ps << pf.rdbuf(); std::string ptx = ps.str();
    if (auto m = ptx.find(".metadata_section"); m != std::string::npos) ptx.resize(m);
    for (std::string a : {".ptr .const", "ld.const."}) {
        std::string b = a == ".ptr .const" ? ".ptr .global" : "ld.global.";
        for (size_t at = 0; (at = ptx.find(a, at)) != std::string::npos;) ptx.replace(at, a.size(), b);
    }
    // OpenCL's global offset (%envregN, set by its driver) is 0 here.
    for (size_t at = 0; (at = ptx.find("%envreg", at)) != std::string::npos;) {
        size_t e = at + 7; while (e < ptx.size() && std::isdigit((unsigned char)ptx[e])) ++e;
        ptx.replace(at, e - at, "0");
    }
    const unsigned stream = std::atoi(argv[4]), runs = std::atoi(argv[6]);
    const unsigned per_wg = argc > 7 ? std::atoi(argv[7]) : 4, lanes = argc > 8 ? std::atoi(argv[8]) : 32;
    std::ifstream df(argv[3], std::ios::binary); std::vector<unsigned char> data((size_t(std::atoi(argv[5])) << 20));
    df.read((char*)data.data(), data.size()); data.resize(df.gcount());
    std::vector<unsigned char> comp; std::vector<uint32_t> desc; uint32_t blocks = 0;
    auto* c = libdeflate_alloc_compressor(6);
    for (size_t at = 0; at < data.size(); at += stream) {
        size_t n = std::min<size_t>(stream, data.size() - at);
        std::vector<unsigned char> tmp(libdeflate_deflate_compress_bound(c, n));
        size_t got = libdeflate_deflate_compress(c, data.data() + at, n, tmp.data(), tmp.size());
        desc.insert(desc.end(), {uint32_t(comp.size()), uint32_t(got), uint32_t(at), uint32_t(n), 0u});
        comp.insert(comp.end(), tmp.begin(), tmp.begin() + got); ++blocks;
    }
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuCtxCreate_v2(&ctx, 0, dev));
    CUmodule mod; CK(cuModuleLoadData(&mod, ptx.c_str())); CUfunction fn; CK(cuModuleGetFunction(&fn, mod, argv[2]));
    auto pad = [](size_t b) { return (b + 15) / 16 * 16 + 64; };
    CUdeviceptr din, dd, dout, dst, dpar;
    CK(cuMemAlloc_v2(&din, pad(comp.size()))); CK(cuMemAlloc_v2(&dd, desc.size() * 4)); CK(cuMemAlloc_v2(&dout, pad(data.size())));
    CK(cuMemAlloc_v2(&dst, blocks * 8)); CK(cuMemAlloc_v2(&dpar, 16));
    CK(cuMemcpyHtoD_v2(din, comp.data(), comp.size())); CK(cuMemcpyHtoD_v2(dd, desc.data(), desc.size() * 4));
    uint32_t par[4] = {blocks, uint32_t(comp.size()), uint32_t(data.size()), 1}; CK(cuMemcpyHtoD_v2(dpar, par, 16));
    uint32_t win = (comp.size() + 3) / 4, wd = desc.size(), wout = (data.size() + 3) / 4, wst = blocks * 2, wpar = 4;
    void* args[] = {&din, &win, &dd, &wd, &dout, &wout, &dst, &wst, &dpar, &wpar};
    double best = 1e9;
    for (unsigned r = 0; r < runs; ++r) {
        CK(cuMemsetD8_v2(dout, 0x5a, pad(data.size()))); CK(cuCtxSynchronize());
        auto t0 = std::chrono::steady_clock::now();
        CK(cuLaunchKernel(fn, (blocks + per_wg - 1) / per_wg, 1, 1, per_wg * lanes, 1, 1, 0, nullptr, args, nullptr));
        CK(cuCtxSynchronize());
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::vector<unsigned char> out(data.size()); std::vector<uint32_t> st(blocks * 2);
    CK(cuMemcpyDtoH_v2(out.data(), dout, out.size())); CK(cuMemcpyDtoH_v2(st.data(), dst, st.size() * 4));
    size_t bad = 0; for (uint32_t i = 0; i < blocks; ++i) if (st[2 * i] != 0 || st[2 * i + 1] != desc[5 * i + 3]) ++bad;
    std::printf("status[0] = {%u, %u}, descriptor 0 = {%u %u %u %u}\n", st[0], st[1], desc[0], desc[1], desc[2], desc[3]);
    std::printf("%u streams of %u bytes, ratio %.2f: best %.3f ms, %.2f GB/s; bad statuses %zu; output %s\n", blocks, stream,
                double(data.size()) / comp.size(), best * 1e3, data.size() / best / 1e9, bad, out == data ? "equal" : "DIFFERS");
}
