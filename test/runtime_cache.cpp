// The build caches: one build per program and context, binaries reused from disk by a new
// program object, an unwritable cache folder ignored, build errors carrying the compiler log,
// concurrent dispatch from several threads, and cache files written by several processes at once.
#include "harness.hpp"

#include <vyre/ops/primitive.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/program_cache.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace prim = vyre::ops::primitive;
namespace rt = vyre::runtime;
namespace fs = std::filesystem;

namespace {

struct cache_dir_guard {
    explicit cache_dir_guard(const std::string& value) {
        const char* old = std::getenv("VYRE_CACHE_DIR");
        had_ = old != nullptr;
        if (had_) old_ = old;
        ::setenv("VYRE_CACHE_DIR", value.c_str(), 1);
    }
    ~cache_dir_guard() {
        if (had_) ::setenv("VYRE_CACHE_DIR", old_.c_str(), 1);
        else ::unsetenv("VYRE_CACHE_DIR");
    }
    bool had_ = false;
    std::string old_;
};

fs::path fresh_dir(const std::string& name) {
    const auto dir = fs::temp_directory_path() / ("vyre-test-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    return dir;
}

} // namespace

// Processes that share a cache folder write the same entries at once, and processes forked from
// one parent share its thread id: whatever a reader finds is one writer's whole file, never a
// mixture or a part (with one temporary name per thread id, forked writers interleaved).
BOOST_AUTO_TEST_CASE(cache_entries_written_by_forked_processes_are_whole) {
    const fs::path dir = fresh_dir("forked-writers");
    const fs::path file = dir / "entry.bin";
    constexpr int writers = 6, rounds = 200;
    constexpr std::size_t size = 128 * 1024;
    std::vector<pid_t> children;
    const auto stop_children = [&] {
        for (const pid_t pid : children)
            if (pid > 0) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, nullptr, 0);
            }
    };
    for (int w = 0; w < writers; ++w) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            // The child never returns into the test runner, whatever happens.
            try {
                const std::vector<unsigned char> bytes(size + std::size_t(w) * 4096, static_cast<unsigned char>('a' + w));
                for (int r = 0; r < rounds; ++r) rt::detail::write_file_quietly(file, bytes);
            } catch (...) {
                std::_Exit(2);
            }
            std::_Exit(0);
        }
        if (pid < 0) stop_children();
        BOOST_TEST_REQUIRE(pid > 0);
        children.push_back(pid);
    }
    int reads = 0, broken = 0, running = writers;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (running > 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            stop_children();
            BOOST_FAIL("the writers did not finish within 120 s");
        }
        const auto got = rt::detail::read_file(file);
        if (!got.empty()) {
            ++reads;
            const int w = got[0] - 'a';
            const bool whole = w >= 0 && w < writers && got.size() == size + std::size_t(w) * 4096 &&
                               std::all_of(got.begin(), got.end(), [&](unsigned char c) { return c == got[0]; });
            broken += whole ? 0 : 1;
        }
        for (auto& pid : children) {
            int status = 0;
            if (pid > 0 && ::waitpid(pid, &status, WNOHANG) == pid) {
                BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0));
                pid = 0;
                --running;
            }
        }
    }
    BOOST_TEST_MESSAGE(reads << " reads while " << writers << " processes wrote");
    BOOST_TEST(reads > 0);
    BOOST_TEST(broken == 0);
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path() != file) left.push_back(e.path().filename().string());
    BOOST_TEST(left.empty(), "temporaries left behind: " << left.size());
    fs::remove_all(dir);
}

// VYRE_OPENCL_OPTIONS adds to OpenCL C 1.2, never replaces it, and what the process builds with is
// what its environment said.
BOOST_AUTO_TEST_CASE(build_options_append_the_extra_ones) {
    BOOST_TEST(rt::build_options_with("") == "-cl-std=CL1.2");
    BOOST_TEST(rt::build_options_with("-cl-nv-maxrregcount=64") == "-cl-std=CL1.2 -cl-nv-maxrregcount=64");
    const char* extra = std::getenv("VYRE_OPENCL_OPTIONS");
    BOOST_TEST(std::string(rt::build_options()) == rt::build_options_with(extra ? extra : ""));
}

VYRE_DEVICE_TEST(second_dispatch_does_not_rebuild) {
    cache_dir_guard off("off");
    const auto* op = prim::find("primitive.math.add");
    rt::compiled_program cp(op->program());
    const std::vector<std::uint32_t> in = {1, 2, 3, 4};
    const auto builds = rt::stats().source_builds.load();
    const auto kernels = rt::stats().kernels_created.load();
    BOOST_TEST(prim::run(dev.ctx(), cp, 2, in) == (std::vector<std::uint32_t>{3, 7}));
    BOOST_TEST(rt::stats().source_builds.load() == builds + 1);
    for (int i = 0; i < 10; ++i) prim::run(dev.ctx(), cp, 2, in);
    BOOST_TEST(rt::stats().source_builds.load() == builds + 1);
    BOOST_TEST(rt::stats().kernels_created.load() == kernels + 1);
}

VYRE_DEVICE_TEST(disk_cache_serves_a_new_program_object) {
    const auto dir = fresh_dir("disk");
    cache_dir_guard guard(dir.string());
    const auto* op = prim::find("primitive.math.sub");
    const std::vector<std::uint32_t> in = {10, 3};
    {
        rt::compiled_program cold(op->program());
        const auto builds = rt::stats().source_builds.load();
        BOOST_TEST(prim::run(dev.ctx(), cold, 2, in)[0] == 7u);
        BOOST_TEST(rt::stats().source_builds.load() == builds + 1);
    }
    BOOST_TEST(!fs::is_empty(dir));
    rt::compiled_program warm(op->program());
    const auto builds = rt::stats().source_builds.load();
    const auto loads = rt::stats().binary_loads.load();
    BOOST_TEST(prim::run(dev.ctx(), warm, 2, in)[0] == 7u);
    BOOST_TEST(rt::stats().source_builds.load() == builds);
    BOOST_TEST(rt::stats().binary_loads.load() == loads + 1);
    fs::remove_all(dir);
}

VYRE_DEVICE_TEST(unwritable_cache_dir_is_skipped_quietly) {
    cache_dir_guard guard("/proc/vyre-cannot-write-here");
    const auto* op = prim::find("primitive.math.mul");
    rt::compiled_program cp(op->program());
    BOOST_TEST(prim::run(dev.ctx(), cp, 2, std::vector<std::uint32_t>{6, 7})[0] == 42u);
}

VYRE_DEVICE_TEST(build_error_carries_log_and_source) {
    vyre::lower::kernel_source bad;
    bad.entry = "broken";
    bad.source = "__kernel void broken(__global uint* o) { o[0] = this_is_not_declared; }\n";
    try {
        vyre::runtime::detail::build_from_source(dev.ctx(), bad);
        BOOST_FAIL("a kernel with an undeclared identifier built");
    } catch (const vyre::build_error& e) {
        BOOST_TEST(!e.log().empty());
        BOOST_TEST(e.source() == bad.source);
        BOOST_TEST(std::string(e.what()).find("this_is_not_declared") != std::string::npos, e.what());
    }
}

VYRE_DEVICE_TEST(concurrent_dispatch_from_threads) {
    cache_dir_guard off("off");
    const auto* op = prim::find("primitive.bitwise.xor");
    rt::compiled_program cp(op->program());
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            rt::context ctx(dev.info()); // each thread its own queue; the program is shared
            for (int i = 0; i < 20; ++i) {
                const std::uint32_t a = std::uint32_t(t * 1000 + i), b = 0x5a5a5a5au;
                if (prim::run(ctx, cp, 2, std::vector<std::uint32_t>{a, b})[0] == (a ^ b)) ++ok[t];
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) BOOST_TEST(ok[t] == 20, "thread " << t);
}

VYRE_TEST_MAIN
