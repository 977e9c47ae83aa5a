// What every `vyre` subcommand shares: its entry in the subcommand table and option parsing with
// --help. Each subcommand lives in example/cli/<name>.hpp and is listed in example/vyre.cpp.
#pragma once

#include <vyre/runtime/context.hpp>
#include <vyre/util/parallel.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vyre::cli {

namespace po = boost::program_options;

struct subcommand {
    std::string summary;
    std::function<int(const std::vector<std::string>&)> run;
};

// Parses `args` against `options`; prints help and returns false when --help was given.
inline bool parse(const std::string& name, const std::string& usage, po::options_description& options,
                  const std::vector<std::string>& args, po::variables_map& vm,
                  const po::positional_options_description* positional = nullptr) {
    options.add_options()("help,h", "show this help");
    auto parser = po::command_line_parser(args).options(options);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << "usage: vyre " << name << " " << usage << "\n\n" << options;
        return false;
    }
    return true;
}

// "64G", "1M", "4096": bytes, with binary K/M/G/T suffixes.
inline std::uint64_t parse_size(const std::string& option, const std::string& text) {
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
        v = std::stoull(text, &used);
    } catch (const std::exception&) {
        throw po::error("--" + option + " takes a size such as 4096, 512K, 64M or 8G, not \"" + text + "\"");
    }
    const std::string suffix = text.substr(used);
    int shift = 0;
    if (suffix == "K" || suffix == "k") shift = 10;
    else if (suffix == "M") shift = 20;
    else if (suffix == "G") shift = 30;
    else if (suffix == "T") shift = 40;
    else if (!suffix.empty()) throw po::error("--" + option + ": unknown size suffix \"" + suffix + "\" in \"" + text + "\" (K, M, G or T)");
    if (shift && v > (~0ull >> shift)) throw po::error("--" + option + " " + text + " does not fit in 64 bits");
    return std::uint64_t{v} << shift;
}

// A file's bytes: a regular file mapped read-only (nothing copied; the kernel pages it in as it
// is read, where reading it into memory first faulted in every page of a fresh buffer), anything
// else (a pipe) read whole.
class input_file {
public:
    explicit input_file(const std::filesystem::path& path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
        struct stat st;
        if (::fstat(fd, &st) != 0) {
            const int e = errno;
            ::close(fd);
            throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(e));
        }
        if (S_ISDIR(st.st_mode)) {
            ::close(fd);
            throw std::runtime_error(path.string() + " is a folder, not a file");
        }
        if (!S_ISREG(st.st_mode)) {
            ::close(fd);
            std::ifstream f(path, std::ios::binary);
            if (!f) throw std::runtime_error("cannot open " + path.string());
            read_.assign(std::istreambuf_iterator<char>(f), {});
            bytes_ = read_;
            return;
        }
        const auto size = static_cast<std::size_t>(st.st_size);
        if (size > 0) {
            void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p == MAP_FAILED) {
                const int e = errno;
                ::close(fd);
                throw std::runtime_error("cannot map " + path.string() + ": " + std::strerror(e));
            }
            ::madvise(p, size, MADV_SEQUENTIAL);
            bytes_ = {static_cast<const std::uint8_t*>(p), size};
            mapped_ = true;
        }
        ::close(fd);
    }
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;
    ~input_file() {
        if (mapped_) ::munmap(const_cast<std::uint8_t*>(bytes_.data()), bytes_.size());
    }
    std::span<const std::uint8_t> bytes() const noexcept { return bytes_; }
    // Whether bytes() is a read-only mapping of the file (a regular file), not memory read into.
    bool mapped() const noexcept { return mapped_; }

private:
    std::span<const std::uint8_t> bytes_;
    std::vector<std::uint8_t> read_;
    bool mapped_ = false;
};

// Writes `bytes` to `path`, replacing what was there. A regular file gets its blocks reserved
// first (posix_fallocate: a full disk is an error here, never a fault while copying), is mapped,
// and every thread copies a piece into the mapping: on the H200 machine that wrote 7.6 GB to
// /dev/shm in 1.44 to 1.56 s against 2.87 to 3.04 s for one write() (pwrite from 16 threads:
// 3.53 to 3.55 s, the file's lock taking turns), 1.28 GB to a disk in 0.22 s against 0.46 to
// 0.48. Anything else (a pipe, /dev/stdout, /dev/null), a small file, or a file system that
// cannot reserve blocks ahead is written in order with write().
inline void write_output_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
    const auto fail = [&](int e) {
        ::close(fd);
        throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(e));
    };
    const auto write_in_order = [&] {
        for (std::size_t at = 0; at < bytes.size();) {
            const ssize_t w = ::write(fd, bytes.data() + at, bytes.size() - at);
            if (w < 0) {
                if (errno == EINTR) continue;
                fail(errno);
            }
            at += static_cast<std::size_t>(w);
        }
    };
    constexpr std::size_t piece = std::size_t{32} << 20;
    struct stat st;
    if (::fstat(fd, &st) != 0) fail(errno);
    void* mapped = MAP_FAILED;
    if (S_ISREG(st.st_mode) && bytes.size() > piece) {
        const int e = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes.size()));
        if (e == ENOSPC || e == EFBIG) fail(e);
        if (e == 0) mapped = ::mmap(nullptr, bytes.size(), PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (mapped == MAP_FAILED) {
        // Blocks another way may have reserved stay counted in the size; write() sets it again.
        if (S_ISREG(st.st_mode) && ::ftruncate(fd, 0) != 0) fail(errno);
        write_in_order();
    } else {
        auto* to = static_cast<std::uint8_t*>(mapped);
        vyre::util::parallel_for((bytes.size() + piece - 1) / piece, 0, [&](std::size_t i) {
            const std::size_t at = i * piece;
            std::memcpy(to + at, bytes.data() + at, std::min(piece, bytes.size() - at));
        });
        ::munmap(mapped, bytes.size());
    }
    if (::close(fd) != 0) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
}

// Seconds as the --timings lines print them.
inline std::string timing(double seconds) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", seconds);
    return b;
}

// The --timings words on the device context started in the background at the command's start.
inline std::string context_timing(const vyre::runtime::context& ctx) {
    if (!ctx.used()) return "device context not used";
    return "device context " + timing(ctx.making_seconds()) + " (made on its own thread from the start; threads waited " +
           timing(ctx.waited_seconds()) + " for it in all, counted in the steps below)";
}

// A command's exit status, given once everything it prints is written, when it holds a device: the
// process ends here, without destroying what the command holds. Destroying an OpenCL context
// makes the driver free its device memory, unpin its host memory and tear down the device's
// context, which the operating system does anyway when the process ends (doc/benchmarks.md has
// what it cost). Builds with sanitizers return, so that their checks at exit still run.
inline int finish_command(int status) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return status;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return status;
#endif
#endif
    // Under VYRE_TRACE, when the command is done: what the process takes after it (the driver's
    // teardown at exit) is the wall time less this.
    if (vyre::runtime::tracing())
        std::fprintf(stderr, "vyre trace: %9.4f s  exiting\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - vyre::runtime::trace_detail::origin).count());
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(status);
}

} // namespace vyre::cli
