// Input and threads shared by the benchmark programs: a file's prefix, a folder read as a tar
// would hold it, synthetic sets, a simple parallel loop, and the compressed blocks and frames the
// decompression benchmarks feed to every decoder (ours, liblz4/libzstd, nvCOMP), so that each
// measures exactly the same bytes. Needs only liblz4 and libzstd (no OpenCL), so bench/nvcomp.cpp
// can use it on a machine with CUDA.
#pragma once

#include <vyre/util/parallel.hpp>

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace vyre::bench {

// f(i) for i in [0, n) on `threads` threads (the caller's among them), indices one at a time: the
// library's own host loop, so that the peers run as vyre's host code does.
using vyre::util::parallel_for;

// The first `limit` bytes of a file (fewer where it is shorter).
inline std::vector<std::uint8_t> read_prefix(const std::filesystem::path& p, std::size_t limit) {
    std::ifstream f(p, std::ios::binary);
    std::vector<std::uint8_t> b(limit);
    f.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(limit));
    b.resize(static_cast<std::size_t>(f.gcount()));
    return b;
}

// PATH as a benchmark input: a file's first `limit` bytes, or a folder's regular files (no links)
// in sorted path order, concatenated up to `limit` bytes. Anything else: a message naming
// `program`, and exit status 2.
inline std::vector<std::uint8_t> read_input_path(const std::string& path, std::size_t limit, const char* program) {
    const std::filesystem::path p = path;
    if (std::filesystem::is_regular_file(p)) return read_prefix(p, limit);
    if (!std::filesystem::is_directory(p)) {
        std::fprintf(stderr, "%s: %s is neither a file nor a folder\n", program, path.c_str());
        std::exit(2);
    }
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(p, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    std::vector<std::uint8_t> out;
    out.reserve(limit);
    for (const auto& f : files) {
        if (out.size() >= limit) break;
        const std::vector<std::uint8_t> b = read_prefix(f, limit - out.size());
        out.insert(out.end(), b.begin(), b.end());
    }
    return out;
}

// Synthetic inputs of `n` bytes (deterministic: mt19937_64, seed 42). "incompressible": random
// bytes. "compressible": words and short runs, LZ4 ratio around 6 to 8. Anything else: empty.
inline std::vector<std::uint8_t> synthetic_input(const std::string& kind, std::size_t n) {
    std::mt19937_64 rng(42);
    std::vector<std::uint8_t> b(n);
    if (kind == "incompressible") {
        for (auto& v : b) v = static_cast<std::uint8_t>(rng());
        return b;
    }
    if (kind != "compressible") return {};
    static const char* words[] = {"the ", "device ", "kernel ", "block ", "offset ", "match ", "literal ", "frame ",
                                  "\n", "return ", "{ ", "} ", "const ", "uint32_t ", "0x184D2204 ", ");\n"};
    std::size_t at = 0;
    while (at < n) {
        const bool run = rng() % 8 == 0;
        const std::string w = run ? std::string(1 + rng() % 200, static_cast<char>('a' + rng() % 3)) : words[rng() % 16];
        for (char c : w) {
            if (at == n) break;
            b[at++] = static_cast<std::uint8_t>(c);
        }
    }
    return b;
}

// `input` cut into blocks of `block` bytes (the last one shorter), each compressed with
// LZ4_compress_default: the blocks every LZ4 decompression benchmark decodes.
inline std::vector<std::vector<std::uint8_t>> lz4_compress_blocks(std::span<const std::uint8_t> input, std::size_t block,
                                                                  unsigned threads) {
    const std::size_t n = (input.size() + block - 1) / block;
    std::vector<std::vector<std::uint8_t>> parts(n);
    parallel_for(n, threads, [&](std::size_t i) {
        const std::size_t at = i * block, len = std::min(block, input.size() - at);
        auto& out = parts[i];
        out.resize(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(len))));
        const int r = LZ4_compress_default(reinterpret_cast<const char*>(input.data() + at), reinterpret_cast<char*>(out.data()),
                                           static_cast<int>(len), static_cast<int>(out.size()));
        if (r <= 0) {
            std::fprintf(stderr, "LZ4_compress_default failed on block %zu\n", i);
            std::exit(1);
        }
        out.resize(static_cast<std::size_t>(r));
    });
    return parts;
}

// One zstd frame of `in` at `level` with a content checksum; `workers` > 0 uses libzstd's
// multithreaded compressor (which cuts 128 KiB blocks the same way).
inline std::vector<std::uint8_t> zstd_compress_frame(std::span<const std::uint8_t> in, int level, int workers) {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    if (workers > 0) ZSTD_CCtx_setParameter(c, ZSTD_c_nbWorkers, workers);
    std::vector<std::uint8_t> out(ZSTD_compressBound(in.size()));
    const std::size_t n = ZSTD_compress2(c, out.data(), out.size(), in.data(), in.size());
    ZSTD_freeCCtx(c);
    if (ZSTD_isError(n)) {
        std::fprintf(stderr, "ZSTD_compress2: %s\n", ZSTD_getErrorName(n));
        std::exit(1);
    }
    out.resize(n);
    return out;
}

// `in` cut into chunks of `chunk` bytes, each one independent zstd frame, compressed in parallel.
inline std::vector<std::vector<std::uint8_t>> zstd_compress_chunks(std::span<const std::uint8_t> in, std::size_t chunk, int level,
                                                                   unsigned threads) {
    const std::size_t n = (in.size() + chunk - 1) / chunk;
    std::vector<std::vector<std::uint8_t>> parts(n);
    // No more threads than frames.
    parallel_for(n, static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1))), [&](std::size_t i) {
        const std::size_t at = i * chunk;
        parts[i] = zstd_compress_frame(in.subspan(at, std::min(chunk, in.size() - at)), level, 0);
    });
    return parts;
}

} // namespace vyre::bench
