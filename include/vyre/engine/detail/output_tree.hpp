// Writing below the output folder of `vyre unpack` without ever following a symbolic link: every
// folder on the way is opened with O_NOFOLLOW from the output folder down.
#pragma once

#include <vyre/error.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace vyre::engine::detail {

struct fd_guard {
    int fd = -1;
    fd_guard() = default;
    explicit fd_guard(int f) : fd(f) {}
    fd_guard(fd_guard&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
    fd_guard& operator=(fd_guard&& o) noexcept {
        if (this != &o) {
            reset();
            fd = std::exchange(o.fd, -1);
        }
        return *this;
    }
    ~fd_guard() { reset(); }
    void reset() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
};

inline std::string errno_text(int e) { return std::strerror(e); }

class output_tree {
public:
    explicit output_tree(const std::filesystem::path& root) {
        std::error_code ec;
        std::filesystem::create_directories(root, ec);
        root_.fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_.fd < 0) throw error("cannot open the output folder " + root.string() + ": " + errno_text(errno));
    }

    // The folders one thread opened last, from the root down, each held open: entries come in
    // archive order, so the next file is usually in the same folder or a near one, and its walk
    // starts at the deepest folder the two paths share instead of at the root (one open per new
    // folder rather than one per component per entry). At most dir_cache_depth() components a
    // thread are held, deeper ones opened on each walk: 16, or fewer where a thread per core each
    // holding 16 would take more than a quarter of the process's limit on open files.
    static constexpr std::size_t dir_cache_max_depth = 16;
    static std::size_t dir_cache_depth() {
        static const std::size_t depth = [] {
            rlimit r{};
            const std::uint64_t limit = ::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? r.rlim_cur : 1u << 20;
            const std::uint64_t threads = std::max(1u, std::thread::hardware_concurrency());
            return static_cast<std::size_t>(std::clamp<std::uint64_t>(limit / 4 / threads, 1, dir_cache_max_depth));
        }();
        return depth;
    }
    struct dir_cache {
        std::string path;              // the folder last opened ("" for the root)
        std::vector<std::size_t> ends; // where each held component of `path` ends
        std::vector<fd_guard> fds;     // their folders: fds[i] is path[0, ends[i])
        fd_guard deep;                 // `path` itself, where it lies below the held components
    };

    // Opens (creating when `create`) the folder `dir` below the root, never through a symlink:
    // each component is opened with O_NOFOLLOW from the one before. Returns an fd owned by
    // `cache` (valid until the next call with it), or -1 with `why` set.
    int open_dir(std::string_view dir, bool create, std::string& why, dir_cache& cache) const {
        if (dir == cache.path) return cache.deep.fd >= 0 ? cache.deep.fd : cache.fds.empty() ? root_.fd : cache.fds.back().fd;
        // The held components that `dir` starts with.
        std::size_t keep = 0;
        while (keep < cache.ends.size()) {
            const std::size_t e = cache.ends[keep];
            if (dir.size() < e || dir.compare(0, e, cache.path, 0, e) != 0 || (dir.size() > e && dir[e] != '/')) break;
            ++keep;
        }
        cache.ends.resize(keep);
        cache.fds.resize(keep);
        cache.deep.reset();
        // Room reserved first, so that nothing below allocates once an fd is open (an fd would
        // leak, or `path`, `ends` and `fds` disagree, if an allocation failed in between).
        cache.ends.reserve(dir_cache_max_depth);
        cache.fds.reserve(dir_cache_max_depth);
        cache.path.reserve(dir.size());
        cache.path.assign(dir.substr(0, keep == 0 ? 0 : cache.ends.back()));
        std::size_t at = keep == 0 ? 0 : cache.ends.back() + 1;
        int cur = keep == 0 ? root_.fd : cache.fds.back().fd;
        fd_guard below; // a component past the held ones
        while (at < dir.size()) {
            std::size_t end = dir.find('/', at);
            if (end == std::string_view::npos) end = dir.size();
            const std::string c(dir.substr(at, end - at));
            if (create && ::mkdirat(cur, c.c_str(), 0755) != 0 && errno != EEXIST) {
                why = "cannot create folder " + std::string(dir.substr(0, end)) + ": " + errno_text(errno);
                return -1;
            }
            const int next = ::openat(cur, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next < 0) {
                const int e = errno;
                why = std::string(dir.substr(0, end)) +
                      (e == ELOOP || e == ENOTDIR ? " is not a folder (a symlink or a file written earlier): not followed"
                                                  : ": " + errno_text(e));
                return -1;
            }
            if (cache.fds.size() < dir_cache_depth()) {
                cache.fds.emplace_back(next);
                cache.ends.push_back(end);
                cache.path.assign(dir.substr(0, end));
            } else {
                below = fd_guard(next);
            }
            cur = next;
            at = end + 1;
        }
        cache.path.assign(dir);
        cache.deep = std::move(below);
        return cur;
    }

    static std::pair<std::string_view, std::string> split(std::string_view path) {
        const std::size_t slash = path.rfind('/');
        if (slash == std::string_view::npos) return {std::string_view(), std::string(path)};
        return {path.substr(0, slash), std::string(path.substr(slash + 1))};
    }

    std::string make_dir(std::string_view path, dir_cache& cache) const {
        std::string why;
        return open_dir(path, true, why, cache) < 0 ? why : std::string();
    }

    // The mode is what the file is created with, so the process's umask applies (as for tar run
    // by a user other than root). Set-id bits, where the caller keeps them, are set again after
    // the write (writing clears them). `mtime` (seconds since the epoch) becomes the file's
    // modification time.
    std::string write_file(std::string_view path, std::span<const std::uint8_t> bytes, std::uint32_t mode,
                           std::optional<std::int64_t> mtime, dir_cache& cache) const {
        auto [dir, name] = split(path);
        std::string why;
        const int d = open_dir(dir, false, why, cache);
        if (d < 0) return why;
        const mode_t m = static_cast<mode_t>(mode & 07777);
        // The file is always a new one (O_EXCL): whatever already stands there (an earlier entry,
        // a symlink, a hard link to a file elsewhere) is removed, never opened, and the create
        // tried again. Another run writing the same path at the same time
        // (engine/unpack_devices.hpp) can create it in between: then again. Creating first and
        // removing only on EEXIST spares the usual case (nothing there) an unlink, which takes the
        // folder's lock that every thread writing into it needs.
        int f = ::openat(d, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, m & 0777);
        for (int attempt = 0; f < 0 && errno == EEXIST && attempt < 4; ++attempt) {
            if (::unlinkat(d, name.c_str(), 0) != 0 && errno != ENOENT) {
                struct stat st;
                if (::fstatat(d, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
                    return "cannot replace folder " + std::string(path) + " with a file";
            }
            f = ::openat(d, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, m & 0777);
        }
        if (f < 0) return "cannot create " + std::string(path) + ": " + errno_text(errno);
        fd_guard file(f);
        std::size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::write(f, bytes.data() + done, std::min<std::size_t>(bytes.size() - done, std::size_t{1} << 30));
            if (n < 0) {
                if (errno == EINTR) continue;
                return "cannot write " + std::string(path) + ": " + errno_text(errno);
            }
            done += static_cast<std::size_t>(n);
        }
        if ((m & 07000) && ::fchmod(f, m & ~umask_bits() & 07777) != 0)
            return "cannot set the mode of " + std::string(path) + ": " + errno_text(errno);
        if (mtime) {
            const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(*mtime), 0}};
            if (::futimens(f, times) != 0) return "cannot set the time of " + std::string(path) + ": " + errno_text(errno);
        }
        return {};
    }

    // The content of the regular file at `path`, which this run wrote (a hard link to a file of an
    // earlier window of an archive unpacked in windows is written as a copy of it), read without
    // following a symlink on the way; at most max_bytes. `why` says what failed.
    std::vector<std::uint8_t> read_file(std::string_view path, std::uint64_t max_bytes, std::string& why, dir_cache& cache) const {
        auto [dir, name] = split(path);
        const int d = open_dir(dir, false, why, cache);
        if (d < 0) return {};
        const int f = ::openat(d, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (f < 0) {
            why = "cannot read back " + std::string(path) + ": " + errno_text(errno);
            return {};
        }
        fd_guard file(f);
        struct stat st;
        if (::fstat(f, &st) != 0) {
            why = "cannot read back " + std::string(path) + ": " + errno_text(errno);
            return {};
        }
        if (!S_ISREG(st.st_mode)) {
            why = std::string(path) + " is no longer a regular file";
            return {};
        }
        if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
            why = "its copy of " + std::to_string(st.st_size) + " bytes is more than the " + std::to_string(max_bytes) + " bytes left";
            return {};
        }
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
        std::size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::read(f, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                why = "cannot read back " + std::string(path) + ": " + (n < 0 ? errno_text(errno) : std::string("it is shorter than it was"));
                return {};
            }
            done += static_cast<std::size_t>(n);
        }
        return bytes;
    }

    // A folder's mode and time, set once everything below it is written (a folder without write
    // permission could not take its entries otherwise, and each entry written would change its time).
    std::string set_dir_metadata(std::string_view path, std::uint32_t mode, std::optional<std::int64_t> mtime, dir_cache& cache) const {
        std::string why;
        const int d = open_dir(path, false, why, cache);
        if (d < 0) return why;
        if (mtime) {
            const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(*mtime), 0}};
            if (::futimens(d, times) != 0) return "cannot set the time of " + std::string(path) + ": " + errno_text(errno);
        }
        if (mode && ::fchmod(d, static_cast<mode_t>(mode & 07777) & ~umask_bits()) != 0)
            return "cannot set the mode of " + std::string(path) + ": " + errno_text(errno);
        return {};
    }

    // The process's umask, read without changing it (umask(2) would, for every thread).
    static mode_t umask_bits() {
        static const mode_t bits = [] {
            std::ifstream status("/proc/self/status");
            std::string line;
            while (std::getline(status, line))
                if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
            return static_cast<mode_t>(022);
        }();
        return bits;
    }

    std::string write_symlink(std::string_view path, const std::string& target, std::optional<std::int64_t> mtime, dir_cache& cache) const {
        auto [dir, name] = split(path);
        std::string why;
        const int d = open_dir(dir, false, why, cache);
        if (d < 0) return why;
        struct stat st;
        if (::fstatat(d, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
            if (S_ISDIR(st.st_mode)) return "cannot replace folder " + std::string(path) + " with a symlink";
            ::unlinkat(d, name.c_str(), 0);
        }
        if (::symlinkat(target.c_str(), d, name.c_str()) != 0)
            return "cannot create symlink " + std::string(path) + ": " + errno_text(errno);
        if (mtime) { // the link's own time, never its target's
            const timespec times[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(*mtime), 0}};
            ::utimensat(d, name.c_str(), times, AT_SYMLINK_NOFOLLOW);
        }
        return {};
    }

private:
    fd_guard root_;
};

} // namespace vyre::engine::detail
