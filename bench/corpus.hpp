// Input and threads shared by the benchmark programs: a file's prefix, a folder read as a tar
// would hold it, and a simple parallel loop.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace vyre::bench {

// Runs f(i) for i in [0, n) on exactly `threads` threads, handing out indices one at a time.
template <class F>
void parallel_for(std::size_t n, unsigned threads, F&& f) {
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (std::size_t i = next++; i < n; i = next++) f(i);
        });
    for (auto& th : pool) th.join();
}

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

} // namespace vyre::bench
