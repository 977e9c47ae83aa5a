// The archive pipeline behind `vyre unpack`: archives and compressed streams (LZ4, zstd, gzip, tar,
// ZIP) nested in each other, opened layer by layer, every LZ4/zstd block of a layer decoded in one
// device pass, with safe extraction below one folder, limits against decompression bombs, and
// per-entry SHA-256.
#pragma once

// How a run goes. A layer is every container found at one nesting depth (the inputs are layer 1).
//
//   1. open     each container of the layer is parsed on the host, containers in parallel: a tar
//               lists its entries (views into its bytes), a ZIP its entries (stored ones are views,
//               deflate and zstd ones become decode jobs), a compressed stream (gzip, LZ4, zstd)
//               one decode job for its content. Entry names are checked here (absolute paths, ".."
//               components and escaping link targets are refused before anything is decoded).
//   2. decode   every LZ4 job of the layer is parsed (in parallel) and ALL their independent
//               blocks go to compression.lz4 as one set of descriptors (one dispatch per batch,
//               make_block_batches); every zstd job is concatenated into one multi-frame stream
//               for the zstd engine (its automatic route: frames of raw/RLE blocks on the device,
//               frames with compressed blocks decoded whole on all cores); deflate (gzip, ZIP
//               method 8) is inflated by libdeflate on all cores.
//   3. finish   sizes, CRCs and limits are checked; an entry whose content is itself a container
//               (by magic number, never by name) becomes part of the next layer; the content of a
//               compressed stream that is an archive opens in place (x.tar.zst lists x's entries
//               as x.tar.zst!/name, not x.tar.zst!/x.tar!/name).
//   4. sink     the layer's entries are hashed and written below the output folder, in parallel.
//
// Nothing a corrupt or hostile entry does stops the run: it is recorded as a problem (refused or
// corrupt, with its path and the offending value) and the rest goes on. What is refused:
//   - names that are absolute, hold a ".." component or a NUL byte, or are empty;
//   - symbolic links whose target is absolute or climbs out of the output folder, and targets with
//     ".." after a named component (a link written earlier could make "x/.." mean anything);
//   - a decoded size above limits.max_ratio times the compressed size (unless it is below
//     limits.ratio_min_bytes; zstd is checked on its declared or laid-out size before anything is
//     allocated), output beyond limits.max_total_bytes in all (hard-link copies and ZIP stored
//     entries count too), containers nested deeper than limits.max_depth (the deeper container is
//     kept as a plain file), entries beyond limits.max_entries, names over 4,096 bytes or 1,024
//     components. A hard link is written as a copy of its target and never opened as an archive.
// Writing never follows a symbolic link: every folder on the way is opened with O_NOFOLLOW from
// the output folder down, so a link written earlier cannot redirect a later entry.

#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/error.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/format/zstd_decompress.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/ops/compression/block.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/parallel.hpp>
#include <vyre/util/sha256.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vyre::engine {

// The default of unpack_limits::max_total_bytes: 64 GiB, or half of the machine's physical memory
// when that is less (a layer's decoded content is held in memory until it is written).
inline std::uint64_t default_max_total_bytes() noexcept {
    constexpr std::uint64_t ceiling = std::uint64_t{64} << 30;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return ceiling;
    const std::uint64_t physical = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    return std::min(ceiling, std::max<std::uint64_t>(physical / 2, std::uint64_t{1} << 20));
}

// Entry names longer than this, or with more components, are refused.
inline constexpr std::size_t unpack_max_name_bytes = 4096;
inline constexpr std::size_t unpack_max_name_components = 1024;

struct unpack_limits {
    // Every byte the decoders produce, at every depth, counts (what a bomb makes us allocate), and
    // every byte held or written that is not a disjoint slice of a container already counted:
    // hard-link copies and ZIP stored entries (whose data a crafted directory may share).
    std::uint64_t max_total_bytes = default_max_total_bytes();
    // Entries of every container at every depth, at most; the rest are not processed.
    std::uint64_t max_entries = 1000000;
    // decoded / compressed size of one stream or entry; deflate's own ceiling is about 1032.
    std::uint64_t max_ratio = 1000;
    // Outputs up to this size pass whatever their ratio (a run of zeros is legitimately tiny).
    std::uint64_t ratio_min_bytes = std::uint64_t{1} << 20;
    // Containers (archives and compressed streams) opened one inside another; the inputs are depth 1.
    unsigned max_depth = 8;
};

struct unpack_progress {
    unsigned layer = 0;
    const char* phase = "";    // "open", "decode", "write"
    std::uint64_t done = 0;    // bytes (decode, write) or containers (open)
    std::uint64_t total = 0;
    std::uint64_t entries = 0; // entries found so far
};

struct unpack_options {
    unpack_limits limits;
    // false: archives found inside entries stay plain files (the inputs' own layers still open,
    // so x.tar.zst still lists x's entries).
    bool recurse = true;
    bool hash = false; // SHA-256 of every file's content
    // Extract below this folder (created if missing); empty: list only.
    std::filesystem::path output_dir;
    unsigned threads = 0; // 0: every hardware thread
    std::function<void(const unpack_progress&)> progress; // called from one thread at a time
};

enum class unpack_entry_type { file, directory, symlink, hard_link, other };
enum class unpack_status { ok, refused, corrupt };

inline const char* unpack_entry_type_name(unpack_entry_type t) noexcept {
    switch (t) {
    case unpack_entry_type::file: return "file";
    case unpack_entry_type::directory: return "dir";
    case unpack_entry_type::symlink: return "symlink";
    case unpack_entry_type::hard_link: return "hardlink";
    case unpack_entry_type::other: return "other";
    }
    return "other";
}

inline const char* unpack_status_name(unpack_status s) noexcept {
    switch (s) {
    case unpack_status::ok: return "ok";
    case unpack_status::refused: return "refused";
    case unpack_status::corrupt: return "corrupt";
    }
    return "corrupt";
}

struct unpack_entry {
    std::string path;        // "outer.zip!/lib/a.jar!/x.class": the input, then each container's name, "!/" between
    std::string output_path; // below the output folder ("lib/a.jar!/x.class"); empty when refused
    unpack_entry_type type = unpack_entry_type::file;
    std::uint64_t size = 0;            // content bytes
    std::uint64_t compressed_size = 0; // bytes as stored in its container
    std::string method;                // stored, deflate, zstd, lz4, gzip
    std::string link_target;           // symlinks and hard links
    std::uint32_t mode = 0;            // permission bits as recorded (0: none recorded)
    std::optional<util::sha256_digest> sha256;
    unsigned depth = 1;                // of the container holding it
    unpack_status status = unpack_status::ok;
    std::string message;               // why status is not ok
    std::vector<std::uint32_t> order;  // listing order: a container's entries follow the container
};

// Something that went wrong: a refused or corrupt entry, or damage to a container itself.
struct unpack_problem {
    std::string path;
    unpack_status kind = unpack_status::corrupt;
    std::string message;
    std::vector<std::uint32_t> order;
};

struct unpack_report {
    std::vector<unpack_entry> entries;   // in listing order
    std::vector<unpack_problem> problems; // in listing order
    std::size_t containers = 0;          // opened (inputs included)
    std::size_t layers = 0;
    std::uint64_t decoded_bytes = 0;     // counted against limits.max_total_bytes: decoded, hard-link copies, ZIP stored entries
    std::uint64_t written_bytes = 0;
    // Device work: LZ4 blocks sent to the device, zstd blocks decoded by the zstd engine (only
    // frames without compressed blocks reach the device), and the dispatches they took.
    std::size_t lz4_device_blocks = 0, lz4_dispatches = 0, lz4_host_blocks = 0;
    std::size_t zstd_blocks = 0, zstd_dispatches = 0;
    std::size_t deflate_streams = 0; // inflated on the host
    std::size_t refused() const noexcept { return count(unpack_status::refused); }
    std::size_t corrupt() const noexcept { return count(unpack_status::corrupt); }

private:
    std::size_t count(unpack_status s) const noexcept {
        return static_cast<std::size_t>(std::count_if(problems.begin(), problems.end(), [&](const auto& p) { return p.kind == s; }));
    }
};

// Text safe for a terminal or a line-oriented reader: control characters become \xNN. Paths are
// raw bytes, so their backslashes are escaped too (a name holding "\x0A" stays distinct from one
// holding a newline); messages already quote the names they hold (archive_quote escapes them), so
// they are printed with escape_backslash false, never escaped twice.
inline std::string unpack_printable(std::string_view s, bool escape_backslash = true) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F || (c == '\\' && escape_backslash)) {
            static constexpr char hex[] = "0123456789ABCDEF";
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    return out;
}

struct unpack_input {
    std::string name; // how paths start ("outer.zip" in "outer.zip!/a")
    std::span<const std::uint8_t> bytes;
};

namespace detail {

namespace fmt = format;
namespace cz = ops::compression;

// ---- names and paths ---------------------------------------------------------------------------

// An archive's entry name as a relative path of plain components, or why it is refused.
struct checked_name {
    std::string path; // "a/b/c"; empty for the archive's root ("./")
    std::string refusal;
};

inline checked_name check_entry_name(std::string_view name) {
    checked_name r;
    if (name.empty()) return {"", "empty name"};
    if (name.size() > unpack_max_name_bytes)
        return {"", "name of " + std::to_string(name.size()) + " bytes, longer than " + std::to_string(unpack_max_name_bytes)};
    if (const auto parts = static_cast<std::size_t>(std::count(name.begin(), name.end(), '/')) + 1; parts > unpack_max_name_components)
        return {"", "name of " + std::to_string(parts) + " components, more than " + std::to_string(unpack_max_name_components)};
    if (name.find('\0') != std::string_view::npos) return {"", "name holds a NUL byte"};
    if (name.front() == '/') return {"", "absolute path"};
    if (name.size() >= 2 && name[1] == ':' && std::isalpha(static_cast<unsigned char>(name[0])))
        return {"", "absolute path (drive letter)"};
    std::size_t at = 0;
    while (at <= name.size()) {
        std::size_t end = name.find('/', at);
        if (end == std::string_view::npos) end = name.size();
        const std::string_view c = name.substr(at, end - at);
        if (c == "..") return {"", "'..' component"};
        if (!c.empty() && c != ".") {
            if (!r.path.empty()) r.path += '/';
            r.path += c;
        }
        at = end + 1;
    }
    return r;
}

// Whether a symbolic link at `link` (a checked path below the output folder) pointing at
// `target` stays inside the folder. Leading ".." climb the link's own folders, which this run
// created as real folders; a ".." after a named component is refused, because that component may
// be a link written earlier and "x/.." would then climb from wherever x points.
inline std::string check_link_target(std::string_view link, std::string_view target) {
    if (target.empty()) return "empty link target";
    if (target.find('\0') != std::string_view::npos) return "link target holds a NUL byte";
    if (target.front() == '/') return "link target is absolute";
    std::vector<std::string_view> dir;
    for (std::size_t at = 0; at < link.size();) {
        std::size_t end = link.find('/', at);
        if (end == std::string_view::npos) break; // the last component is the link itself
        dir.push_back(link.substr(at, end - at));
        at = end + 1;
    }
    bool named = false;
    for (std::size_t at = 0; at <= target.size();) {
        std::size_t end = target.find('/', at);
        if (end == std::string_view::npos) end = target.size();
        const std::string_view c = target.substr(at, end - at);
        if (c == "..") {
            if (named) return "link target has '..' after a named component";
            if (dir.empty()) return "link target climbs out of the output folder";
            dir.pop_back();
        } else if (!c.empty() && c != ".") {
            named = true;
        }
        at = end + 1;
    }
    return {};
}

inline std::string join_path(const std::string& prefix, const std::string& name) {
    if (prefix.empty()) return name;
    if (name.empty()) return prefix;
    return prefix + "/" + name;
}

// The name of a compressed stream's content: the stream's own name without its codec suffix.
inline std::string stream_stem(const std::string& path) {
    std::size_t cut = path.rfind('/');
    std::string base = cut == std::string::npos ? path : path.substr(cut + 1);
    struct suffix { const char* from; const char* to; };
    static constexpr suffix suffixes[] = {{".tgz", ".tar"}, {".tzst", ".tar"}, {".tlz4", ".tar"}, {".gz", ""},
                                          {".lz4", ""},     {".zst", ""},       {".zstd", ""}};
    if (base.empty() || base == "." || base == "..") return "content";
    for (const auto& s : suffixes) {
        const std::size_t n = std::strlen(s.from);
        if (base.size() > n && base.compare(base.size() - n, n, s.from) == 0) {
            // "...gz" would become "..": keep the whole name then.
            const std::string stem = base.substr(0, base.size() - n) + s.to;
            return stem == "." || stem == ".." ? base + ".out" : stem;
        }
    }
    return base;
}

inline bool is_container(fmt::content_kind k) {
    return k == fmt::content_kind::lz4_frame || k == fmt::content_kind::lz4_legacy || k == fmt::content_kind::zstd ||
           k == fmt::content_kind::gzip || k == fmt::content_kind::zip || k == fmt::content_kind::tar;
}

inline bool is_stream(fmt::content_kind k) {
    return k == fmt::content_kind::lz4_frame || k == fmt::content_kind::lz4_legacy || k == fmt::content_kind::zstd ||
           k == fmt::content_kind::gzip;
}

// ---- the pieces of a run -----------------------------------------------------------------------

using owner_ptr = std::shared_ptr<const void>;

struct blob {
    std::span<const std::uint8_t> bytes;
    owner_ptr owner; // keeps bytes alive (empty: the caller's input)
};

inline blob owned_blob(std::vector<std::uint8_t>&& v) {
    auto p = std::make_shared<std::vector<std::uint8_t>>(std::move(v));
    return {std::span<const std::uint8_t>(*p), p};
}

struct container {
    std::string path;       // display path
    std::string out_prefix; // output folder of its entries ("" for the inputs)
    std::vector<std::uint32_t> order;
    unsigned depth = 1;
    fmt::content_kind kind = fmt::content_kind::unknown;
    blob data;
};

enum class codec { none, gzip, lz4, zstd, zip_deflate };

struct decode_job {
    codec kind = codec::none;
    blob input;
    // ZIP entries: the archive and the entry (zip_extract checks sizes and the CRC).
    std::span<const std::uint8_t> zip_archive;
    fmt::zip_entry zip;
    std::optional<std::uint64_t> declared_size;
    blob output;
    unpack_status failure = unpack_status::ok;
    std::string message;

    void fail(unpack_status s, std::string why) {
        failure = s;
        message = std::move(why);
    }
};

// One entry of a container, or the content of a compressed stream (`stream`), during a layer.
struct item {
    unpack_entry e;
    blob content;
    int job = -1;                   // the decode job that makes `content`
    bool stream = false;            // content of a compressed stream: opens in place when an archive
    std::optional<std::uint32_t> crc; // ZIP entries decoded here: checked against the content
    int link_item = -1;             // hard links: the item (same container) they repeat
    const container* parent = nullptr;
};

class budget {
public:
    explicit budget(std::uint64_t limit) : limit_(limit) {}
    // Reserves n bytes; false (nothing reserved) when the total would pass the limit.
    bool take(std::uint64_t n) {
        std::uint64_t used = used_.load();
        do {
            if (n > limit_ || used > limit_ - n) return false;
        } while (!used_.compare_exchange_weak(used, used + n));
        return true;
    }
    void give_back(std::uint64_t n) { used_ -= n; }
    std::uint64_t left() const { return limit_ - std::min(limit_, used_.load()); }
    std::uint64_t used() const { return used_.load(); }
    std::uint64_t limit() const { return limit_; }

private:
    std::uint64_t limit_;
    std::atomic<std::uint64_t> used_{0};
};

inline std::uint64_t ratio_cap(const unpack_limits& l, std::uint64_t compressed) {
    const std::uint64_t cap = compressed > std::numeric_limits<std::uint64_t>::max() / std::max<std::uint64_t>(l.max_ratio, 1)
                                  ? std::numeric_limits<std::uint64_t>::max()
                                  : compressed * l.max_ratio;
    return std::max(cap, l.ratio_min_bytes);
}

inline std::string ratio_message(const unpack_limits& l, std::uint64_t out, std::uint64_t in) {
    return "decompression ratio above the limit: " + std::to_string(out) + " bytes from " + std::to_string(in) +
           " (more than " + std::to_string(l.max_ratio) + ":1 and above " + std::to_string(l.ratio_min_bytes) +
           " bytes; --max-ratio changes it)";
}

inline std::string total_message(const budget& b, std::uint64_t n) {
    return "total output limit reached: " + std::to_string(n) + " more bytes, " + std::to_string(b.left()) + " of " +
           std::to_string(b.limit()) + " left (--max-total changes it)";
}

// ---- writing below the output folder -----------------------------------------------------------

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

    // The last folder one thread opened: entries come in archive order, so the next file is
    // usually in the same folder or below it, and the walk starts there instead of at the root.
    struct dir_cache {
        std::string path;
        fd_guard fd;
    };

    // Opens (creating when `create`) the folder `dir` below the root, never through a symlink:
    // each component is opened with O_NOFOLLOW from the one before. Returns an fd owned by
    // `cache` (valid until the next call with it), or -1 with `why` set.
    int open_dir(std::string_view dir, bool create, std::string& why, dir_cache& cache) const {
        std::size_t at = 0;
        fd_guard cur;
        if (cache.fd.fd >= 0 && dir.size() >= cache.path.size() && dir.compare(0, cache.path.size(), cache.path) == 0 &&
            (dir.size() == cache.path.size() || cache.path.empty() || dir[cache.path.size()] == '/')) {
            if (dir.size() == cache.path.size()) return cache.fd.fd;
            at = cache.path.empty() ? 0 : cache.path.size() + 1;
            cur = fd_guard(::dup(cache.fd.fd));
        } else {
            cur = fd_guard(::dup(root_.fd));
        }
        if (cur.fd < 0) {
            why = "dup: " + errno_text(errno);
            return -1;
        }
        while (at < dir.size()) {
            std::size_t end = dir.find('/', at);
            if (end == std::string_view::npos) end = dir.size();
            const std::string c(dir.substr(at, end - at));
            if (create && ::mkdirat(cur.fd, c.c_str(), 0755) != 0 && errno != EEXIST) {
                why = "cannot create folder " + std::string(dir.substr(0, end)) + ": " + errno_text(errno);
                return -1;
            }
            const int next = ::openat(cur.fd, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next < 0) {
                const int e = errno;
                why = std::string(dir.substr(0, end)) +
                      (e == ELOOP || e == ENOTDIR ? " is not a folder (a symlink or a file written earlier): not followed"
                                                  : ": " + errno_text(e));
                return -1;
            }
            cur = fd_guard(next);
            at = end + 1;
        }
        cache.path = std::string(dir);
        cache.fd = std::move(cur);
        return cache.fd.fd;
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
    // by a user other than root).
    std::string write_file(std::string_view path, std::span<const std::uint8_t> bytes, std::uint32_t mode, dir_cache& cache) const {
        auto [dir, name] = split(path);
        std::string why;
        const int d = open_dir(dir, false, why, cache);
        if (d < 0) return why;
        const mode_t m = static_cast<mode_t>(mode & 0777);
        // Whatever stands there (an earlier entry, a symlink, a hard link to a file elsewhere) is
        // removed, never opened: the file is always a new one.
        if (::unlinkat(d, name.c_str(), 0) != 0 && errno != ENOENT) {
            struct stat st;
            if (::fstatat(d, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
                return "cannot replace folder " + std::string(path) + " with a file";
        }
        const int f = ::openat(d, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, m);
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
        return {};
    }

    std::string write_symlink(std::string_view path, const std::string& target, dir_cache& cache) const {
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
        return {};
    }

private:
    fd_guard root_;
};

// ---- the run -----------------------------------------------------------------------------------

class unpacker {
public:
    unpacker(runtime::context& ctx, const unpack_options& o) : ctx_(ctx), options_(o), budget_(o.limits.max_total_bytes) {
        threads_ = util::thread_count(o.threads);
        if (!o.output_dir.empty()) tree_.emplace(o.output_dir);
    }

    unpack_report run(std::span<const unpack_input> inputs) {
        std::vector<container> layer;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            container c;
            c.path = inputs[i].name;
            c.order = {static_cast<std::uint32_t>(i)};
            c.data.bytes = inputs[i].bytes;
            c.kind = fmt::detect(c.data.bytes);
            if (!is_container(c.kind)) {
                problem(c.path, unpack_status::refused,
                        std::string("not an archive or a compressed stream (content detected as ") +
                            fmt::content_kind_name(c.kind) + ")",
                        c.order);
                continue;
            }
            layer.push_back(std::move(c));
        }
        for (unsigned depth = 1; !layer.empty(); ++depth) {
            ++report_.layers;
            layer = run_layer(depth, layer);
        }
        report_.decoded_bytes = budget_.used();
        const auto by_order = [](const auto& a, const auto& b) { return a.order < b.order; };
        std::stable_sort(report_.entries.begin(), report_.entries.end(), by_order);
        std::stable_sort(report_.problems.begin(), report_.problems.end(), by_order);
        return std::move(report_);
    }

private:
    runtime::context& ctx_;
    const unpack_options& options_;
    budget budget_;
    unsigned threads_ = 1;
    std::optional<output_tree> tree_;
    unpack_report report_;
    std::mutex progress_lock_;
    std::uint64_t entries_seen_ = 0;

    void problem(const std::string& path, unpack_status kind, std::string message, std::vector<std::uint32_t> order) {
        report_.problems.push_back({path, kind, std::move(message), std::move(order)});
    }

    void progress(unsigned layer, const char* phase, std::uint64_t done, std::uint64_t total) {
        if (!options_.progress) return;
        std::unique_lock<std::mutex> g(progress_lock_, std::try_to_lock);
        if (!g) return; // another thread is reporting: skip, the next call will catch up
        options_.progress({layer, phase, done, total, entries_seen_});
    }

    // ---- 1. open -------------------------------------------------------------------------------

    struct opened {
        std::vector<item> items;
        std::vector<decode_job> jobs;
        std::vector<unpack_problem> problems;
    };

    static item make_item(const container& c, std::uint32_t index, std::string_view raw_name, checked_name&& name) {
        item it;
        it.parent = &c;
        it.e.depth = c.depth;
        it.e.order = c.order;
        it.e.order.push_back(index);
        it.e.path = c.path + "!/" + (name.refusal.empty() ? name.path : std::string(raw_name));
        if (name.refusal.empty()) it.e.output_path = join_path(c.out_prefix, name.path);
        else {
            it.e.status = unpack_status::refused;
            it.e.message = name.refusal + ": " + fmt::detail::archive_quote(raw_name);
        }
        return it;
    }

    void open_tar(const container& c, opened& out) const {
        fmt::tar_archive tar;
        try {
            tar = fmt::parse_tar(c.data.bytes);
        } catch (const format_error& e) {
            // A tar has no index: nothing after a broken header can be found. The entries before
            // it are kept (headers start on 512-byte boundaries, so the damage's block is where
            // the readable part ends; an extension header cut off there moves the end back again).
            std::uint64_t cut = e.offset() == format_error::npos ? 0 : std::min<std::uint64_t>(e.offset(), c.data.bytes.size());
            cut = cut / fmt::tar_block_size * fmt::tar_block_size;
            for (int attempt = 0; attempt < 4 && cut > 0; ++attempt) {
                try {
                    tar = fmt::parse_tar(c.data.bytes.first(static_cast<std::size_t>(cut)));
                    break;
                } catch (const format_error& again) {
                    const std::uint64_t o = again.offset() == format_error::npos ? 0 : again.offset();
                    cut = std::min(cut - fmt::tar_block_size, o / fmt::tar_block_size * fmt::tar_block_size);
                    tar = {};
                }
            }
            out.problems.push_back({c.path, unpack_status::corrupt,
                                    std::string("tar: ") + e.what() + "; " + std::to_string(tar.entries.size()) +
                                        " entries before it kept, the rest of the archive is unreadable",
                                    c.order});
        }
        std::unordered_map<std::string, int> seen; // checked path -> item, for hard links
        for (std::size_t i = 0; i < tar.entries.size(); ++i) {
            const auto& t = tar.entries[i];
            checked_name name = check_entry_name(t.name);
            if (name.refusal.empty() && name.path.empty()) continue; // "./": the archive's root folder
            const std::string rel = name.path;
            item it = make_item(c, static_cast<std::uint32_t>(i), t.name, std::move(name));
            it.e.method = "stored";
            it.e.mode = t.mode;
            it.e.link_target = t.link_target;
            switch (t.type) {
            case fmt::tar_entry_type::regular:
                it.e.type = unpack_entry_type::file;
                it.content = {fmt::tar_entry_data(c.data.bytes, t), c.data.owner};
                break;
            case fmt::tar_entry_type::directory: it.e.type = unpack_entry_type::directory; break;
            case fmt::tar_entry_type::symlink: it.e.type = unpack_entry_type::symlink; break;
            case fmt::tar_entry_type::hard_link: it.e.type = unpack_entry_type::hard_link; break;
            case fmt::tar_entry_type::sparse:
                it.e.type = unpack_entry_type::file;
                if (it.e.status == unpack_status::ok) {
                    it.e.status = unpack_status::refused;
                    it.e.message = "GNU sparse files are not supported";
                }
                break;
            default: it.e.type = unpack_entry_type::other; break;
            }
            it.e.size = it.content.bytes.size();
            it.e.compressed_size = it.e.size;
            if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::hard_link) {
                const checked_name target = check_entry_name(t.link_target);
                const auto found = target.refusal.empty() ? seen.find(target.path) : seen.end();
                if (found == seen.end()) {
                    it.e.status = unpack_status::refused;
                    it.e.message = "hard link to " + fmt::detail::archive_quote(t.link_target) +
                                   ", which is not a file earlier in the archive";
                } else {
                    it.link_item = found->second;
                }
            }
            if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::file)
                seen[rel] = static_cast<int>(out.items.size());
            if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::symlink)
                if (std::string why = check_link_target(it.e.output_path, t.link_target); !why.empty()) {
                    it.e.status = unpack_status::refused;
                    it.e.message = why + ": " + fmt::detail::archive_quote(t.link_target);
                }
            out.items.push_back(std::move(it));
        }
    }

    void open_zip(const container& c, opened& out) const {
        fmt::zip_archive zip;
        try {
            zip = fmt::parse_zip(c.data.bytes);
        } catch (const std::exception& e) {
            out.problems.push_back({c.path, unpack_status::corrupt, std::string("ZIP: ") + e.what(), c.order});
            return;
        }
        for (const auto& p : zip.problems)
            out.problems.push_back({c.path, unpack_status::corrupt,
                                    "ZIP central directory: " + p.message +
                                        (p.offset != format_error::npos ? " (byte offset " + std::to_string(p.offset) + ")" : ""),
                                    c.order});
        for (std::size_t i = 0; i < zip.entries.size(); ++i) {
            const auto& z = zip.entries[i];
            checked_name name = check_entry_name(z.name);
            if (name.refusal.empty() && name.path.empty()) continue;
            item it = make_item(c, static_cast<std::uint32_t>(i), z.name, std::move(name));
            it.e.method = z.is_zstd() ? "zstd" : fmt::zip_method_name(z.method);
            it.e.size = z.uncompressed_size;
            it.e.compressed_size = z.compressed_size;
            it.e.mode = z.unix_mode() & 07777;
            it.e.type = z.is_directory() ? unpack_entry_type::directory
                        : z.is_symlink() ? unpack_entry_type::symlink
                                         : unpack_entry_type::file;
            if (it.e.status == unpack_status::ok && z.status != fmt::zip_entry_status::ok) {
                it.e.status = z.status == fmt::zip_entry_status::corrupt ? unpack_status::corrupt : unpack_status::refused;
                it.e.message = std::string(fmt::zip_entry_status_name(z.status)) + ": " + z.problem +
                               (z.problem_offset != format_error::npos ? " (byte offset " + std::to_string(z.problem_offset) + ")" : "");
            }
            if (it.e.status == unpack_status::ok && it.e.type != unpack_entry_type::directory) {
                const auto data = fmt::zip_entry_data(c.data.bytes, z);
                if (z.method == fmt::zip_method_stored) {
                    it.content = {data, c.data.owner};
                    it.crc = z.crc32;
                } else {
                    decode_job j;
                    j.kind = z.is_zstd() ? codec::zstd : codec::zip_deflate;
                    j.input = {data, c.data.owner};
                    j.zip_archive = c.data.bytes;
                    j.zip = z;
                    j.declared_size = z.uncompressed_size;
                    if (z.is_zstd()) it.crc = z.crc32; // zip_extract checks deflate entries itself
                    it.job = static_cast<int>(out.jobs.size());
                    out.jobs.push_back(std::move(j));
                }
            }
            out.items.push_back(std::move(it));
        }
    }

    void open_stream(const container& c, opened& out) const {
        item it;
        it.parent = &c;
        it.stream = true;
        it.e.depth = c.depth;
        it.e.order = c.order;
        it.e.order.push_back(0);
        const std::string stem = stream_stem(c.path);
        it.e.path = c.path + "!/" + stem;
        it.e.output_path = join_path(c.out_prefix, stem);
        it.e.compressed_size = c.data.bytes.size();
        decode_job j;
        j.input = c.data;
        switch (c.kind) {
        case fmt::content_kind::gzip: j.kind = codec::gzip; it.e.method = "gzip"; break;
        case fmt::content_kind::zstd: j.kind = codec::zstd; it.e.method = "zstd"; break;
        default: j.kind = codec::lz4; it.e.method = "lz4"; break;
        }
        it.job = static_cast<int>(out.jobs.size());
        out.jobs.push_back(std::move(j));
        out.items.push_back(std::move(it));
    }

    // ---- 2. decode -----------------------------------------------------------------------------

    // Whether `size` bytes, known (or bounded) before decoding, pass the ratio and the total left;
    // fails the job otherwise, with the compressed size and the limit. Reserves nothing.
    bool fits(decode_job& j, std::uint64_t size, const char* verb) {
        const std::uint64_t in = j.input.bytes.size();
        if (size > ratio_cap(options_.limits, in)) {
            j.fail(unpack_status::refused, "zstd: " + std::to_string(in) + " compressed bytes " + verb + " " +
                                               std::to_string(size) + " bytes: " + ratio_message(options_.limits, size, in) +
                                               "; refused before decoding");
            return false;
        }
        if (size > budget_.left()) {
            j.fail(unpack_status::refused, "zstd: " + std::to_string(in) + " compressed bytes " + verb + " " +
                                               std::to_string(size) + " bytes: " + total_message(budget_, size) +
                                               "; refused before decoding");
            return false;
        }
        return true;
    }

    // Budget and ratio checks of a size known before decoding.
    bool admit(decode_job& j, std::uint64_t size) {
        if (size > ratio_cap(options_.limits, j.input.bytes.size())) {
            j.fail(unpack_status::refused, ratio_message(options_.limits, size, j.input.bytes.size()));
            return false;
        }
        if (!budget_.take(size)) {
            j.fail(unpack_status::refused, total_message(budget_, size));
            return false;
        }
        return true;
    }

    void decode_deflate(std::vector<decode_job*>& jobs) {
        report_.deflate_streams += jobs.size();
        util::parallel_for(jobs.size(), threads_, [&](std::size_t k) {
            decode_job& j = *jobs[k];
            try {
                if (j.kind == codec::zip_deflate) {
                    if (!admit(j, *j.declared_size)) return;
                    j.output = owned_blob(fmt::zip_extract(j.zip_archive, j.zip, *j.declared_size));
                } else {
                    // The size is unknown until inflated: the cap is the tighter of both limits.
                    const std::uint64_t cap = std::min(ratio_cap(options_.limits, j.input.bytes.size()), budget_.left());
                    fmt::gzip_content g;
                    try {
                        g = fmt::gzip_decompress(j.input.bytes, cap);
                    } catch (const resource_error&) {
                        j.fail(unpack_status::refused,
                               cap == budget_.left() ? total_message(budget_, cap + 1)
                                                     : ratio_message(options_.limits, cap + 1, j.input.bytes.size()));
                        return;
                    }
                    if (!budget_.take(g.data.size())) {
                        j.fail(unpack_status::refused, total_message(budget_, g.data.size()));
                        return;
                    }
                    j.output = owned_blob(std::move(g.data));
                }
            } catch (const std::exception& e) {
                j.fail(unpack_status::corrupt, std::string(j.kind == codec::gzip ? "gzip: " : "") + e.what());
            }
            progress_tick();
        });
    }

    std::atomic<std::uint64_t> decode_done_{0};
    std::uint64_t decode_total_ = 0;
    unsigned layer_ = 0;
    void progress_tick() { progress(layer_, "decode", ++decode_done_, decode_total_); }

    // The inputs of several jobs as one byte range (no copy when there is one job).
    static blob concatenate(const std::vector<decode_job*>& jobs, std::vector<std::uint64_t>& base) {
        base.clear();
        if (jobs.size() == 1) {
            base.push_back(0);
            return jobs[0]->input;
        }
        std::uint64_t total = 0;
        for (const auto* j : jobs) {
            base.push_back(total);
            total += j->input.bytes.size();
        }
        std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
        for (std::size_t k = 0; k < jobs.size(); ++k)
            if (!jobs[k]->input.bytes.empty())
                std::memcpy(all.data() + base[k], jobs[k]->input.bytes.data(), jobs[k]->input.bytes.size());
        return owned_blob(std::move(all));
    }

    void decode_lz4(std::vector<decode_job*>& all) {
        std::vector<fmt::lz4_layout> layouts(all.size());
        util::parallel_for(all.size(), threads_, [&](std::size_t k) {
            try {
                layouts[k] = fmt::parse_lz4_frames(all[k]->input.bytes);
            } catch (const std::exception& e) {
                all[k]->fail(unpack_status::corrupt, std::string("LZ4: ") + e.what());
            }
        });
        std::vector<decode_job*> jobs;
        std::vector<const fmt::lz4_layout*> layout;
        for (std::size_t k = 0; k < all.size(); ++k)
            if (all[k]->failure == unpack_status::ok && admit(*all[k], layouts[k].output_size)) {
                jobs.push_back(all[k]);
                layout.push_back(&layouts[k]);
            }
        if (jobs.empty()) return;
        std::vector<std::uint64_t> in_base;
        const blob input = concatenate(jobs, in_base);
        std::vector<std::uint64_t> out_base;
        std::uint64_t out_total = 0;
        for (const auto* l : layout) {
            out_base.push_back(out_total);
            out_total += l->output_size;
        }
        auto output = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(out_total));
        // Every independent block of every job: one set of descriptors for the whole layer.
        std::vector<cz::block_extent> extents;
        std::vector<std::size_t> job_of;
        for (std::size_t k = 0; k < jobs.size(); ++k)
            for (const auto& b : layout[k]->blocks)
                if (layout[k]->frames[b.frame].blocks_independent) {
                    cz::block_extent e = b.extent;
                    e.input_offset += in_base[k];
                    e.output_offset += out_base[k];
                    extents.push_back(e);
                    job_of.push_back(k);
                }
        if (!extents.empty()) {
            cz::batch_limits limits;
            const std::uint64_t device_max = ctx_.device().max_allocation / 4 * 4;
            limits.max_input_bytes = std::min(limits.max_input_bytes, device_max);
            limits.max_output_bytes = std::min(limits.max_output_bytes, device_max);
            limits.max_blocks = std::min<std::size_t>(limits.max_blocks, cz::lz4_max_blocks);
            const auto batches = cz::make_block_batches(extents, limits);
            for (const auto& batch : batches) {
                const auto window = input.bytes.subspan(static_cast<std::size_t>(batch.input_base),
                                                        static_cast<std::size_t>(batch.input_bytes));
                const auto r = cz::decompress_blocks(ctx_, window, batch.blocks, batch.output_bytes);
                for (std::size_t i = 0; i < batch.blocks.size(); ++i) {
                    const auto& e = extents[batch.first_extent + i];
                    const auto s = r.statuses[i];
                    decode_job& j = *jobs[job_of[batch.first_extent + i]];
                    if ((s.code != cz::lz4_error::none || s.output_size != e.output_size) && j.failure == unpack_status::ok)
                        j.fail(unpack_status::corrupt, "LZ4 block at byte offset " +
                                                           std::to_string(e.input_offset - in_base[job_of[batch.first_extent + i]]) +
                                                           ": " + cz::lz4_error_name(s.code) + " after " +
                                                           std::to_string(s.output_size) + " bytes, " +
                                                           std::to_string(e.output_size) + " expected");
                }
                runtime::read(ctx_, r.output, output->data() + batch.output_base, static_cast<std::size_t>(batch.output_bytes));
                ++report_.lz4_dispatches;
                report_.lz4_device_blocks += batch.blocks.size();
            }
        }
        // Linked frames (each block may copy from the previous 64 KiB) on the host, jobs in
        // parallel; then every job's content checksums.
        std::atomic<std::size_t> host_blocks{0};
        util::parallel_for(jobs.size(), threads_, [&](std::size_t k) {
            decode_job& j = *jobs[k];
            if (j.failure != unpack_status::ok) return;
            const std::span<std::uint8_t> out(output->data() + out_base[k], static_cast<std::size_t>(layout[k]->output_size));
            try {
                for (std::size_t f = 0; f < layout[k]->frames.size(); ++f)
                    if (!layout[k]->frames[f].blocks_independent) {
                        fmt::lz4_decode_frame_cpu(*layout[k], f, j.input.bytes, out);
                        host_blocks += layout[k]->frames[f].block_count;
                    }
                fmt::verify_lz4_content(*layout[k], out);
                j.output = {out, output};
            } catch (const std::exception& e) {
                j.fail(unpack_status::corrupt, std::string("LZ4: ") + e.what());
            }
            progress_tick();
        });
        report_.lz4_host_blocks += host_blocks;
    }

    void decode_zstd(std::vector<decode_job*>& all) {
        std::vector<std::uint64_t> staging(all.size());
        util::parallel_for(all.size(), threads_, [&](std::size_t k) {
            decode_job& j = *all[k];
            const std::uint64_t in = j.input.bytes.size();
            // Every limit is checked against what parsing knows before anything is allocated: the
            // ZIP entry's declared size, then the staging layout (exact for raw and RLE blocks and
            // for frames that declare their content size, an upper bound otherwise).
            if (j.declared_size && !fits(j, *j.declared_size, "declares")) return;
            try {
                fmt::zstd_parse_options p;
                p.max_output_size = std::numeric_limits<std::uint64_t>::max(); // block descriptors only
                const auto f = fmt::parse_zstd(j.input.bytes, p);
                if (!fits(j, f.staging_size, "may decode to")) return;
                staging[k] = f.staging_size;
            } catch (const resource_error& e) {
                j.fail(unpack_status::refused, std::string("zstd: ") + e.what() + " (" + std::to_string(in) + " compressed bytes)");
            } catch (const std::exception& e) {
                all[k]->fail(unpack_status::corrupt, std::string("zstd: ") + e.what());
            }
        });
        std::vector<decode_job*> jobs;
        std::uint64_t reserved = 0;
        for (std::size_t k = 0; k < all.size(); ++k) {
            if (all[k]->failure != unpack_status::ok) continue;
            // Staging is an upper bound of the output: the ratio is checked on the real size below.
            if (!budget_.take(staging[k])) {
                all[k]->fail(unpack_status::refused, total_message(budget_, staging[k]));
                continue;
            }
            reserved += staging[k];
            jobs.push_back(all[k]);
        }
        if (jobs.empty()) return;
        std::vector<std::uint64_t> in_base;
        const blob input = concatenate(jobs, in_base);
        std::uint64_t produced = 0;
        bool done = false;
        try {
            fmt::zstd_parse_options p;
            p.max_output_size = std::max<std::uint64_t>(reserved, 1);
            const fmt::zstd_file parsed = fmt::parse_zstd(input.bytes, p);
            auto staging_buffer = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(parsed.staging_size));
            engine::zstd_options o;
            o.max_output_bytes = p.max_output_size;
            o.threads = threads_;
            const auto r = decompress_zstd_into(ctx_, input.bytes, parsed, *staging_buffer, o);
            report_.zstd_blocks += r.blocks;
            report_.zstd_dispatches += r.batches;
            // Frames are packed in file order: each job's content is the run of its frames.
            std::uint64_t at = 0;
            std::size_t frame = 0;
            for (std::size_t k = 0; k < jobs.size(); ++k) {
                const std::uint64_t end = k + 1 < jobs.size() ? in_base[k + 1] : input.bytes.size();
                const std::uint64_t begin = at;
                for (; frame < parsed.frames.size() && parsed.frames[frame].offset < end; ++frame) at += r.frame_bytes[frame];
                jobs[k]->output = {std::span<const std::uint8_t>(staging_buffer->data() + begin, static_cast<std::size_t>(at - begin)),
                                   staging_buffer};
            }
            produced = at;
            done = true;
        } catch (const std::exception&) {
            // Some job is corrupt: decode each alone on the host to find which, and keep the others.
        }
        if (!done) {
            produced = 0;
            std::atomic<std::uint64_t> sum{0};
            util::parallel_for(jobs.size(), threads_, [&](std::size_t k) {
                try {
                    fmt::zstd_parse_options p;
                    p.max_output_size = std::max<std::uint64_t>(staging[k], 1);
                    auto r = fmt::zstd_decompress_cpu_reference(jobs[k]->input.bytes, p, 1);
                    sum += r.output.size();
                    jobs[k]->output = owned_blob(std::move(r.output));
                } catch (const std::exception& e) {
                    jobs[k]->fail(unpack_status::corrupt, std::string("zstd: ") + e.what());
                }
            });
            produced = sum;
        }
        budget_.give_back(reserved - std::min(reserved, produced));
        for (auto* j : jobs) {
            if (j->failure != unpack_status::ok) continue;
            const std::uint64_t n = j->output.bytes.size();
            if (n > ratio_cap(options_.limits, j->input.bytes.size())) {
                j->fail(unpack_status::refused, ratio_message(options_.limits, n, j->input.bytes.size()));
                j->output = {};
            } else if (j->declared_size && n != *j->declared_size) {
                j->fail(unpack_status::corrupt, "zstd content is " + std::to_string(n) + " bytes, the ZIP entry declares " +
                                                    std::to_string(*j->declared_size));
                j->output = {};
            }
        }
    }

    // ---- 3. finish and 4. sink -----------------------------------------------------------------

    std::vector<container> run_layer(unsigned depth, const std::vector<container>& layer) {
        layer_ = depth;
        report_.containers += layer.size();
        std::vector<opened> parts(layer.size());
        util::parallel_for(layer.size(), threads_, [&](std::size_t i) {
            const container& c = layer[i];
            try {
                if (c.kind == fmt::content_kind::tar) open_tar(c, parts[i]);
                else if (c.kind == fmt::content_kind::zip) open_zip(c, parts[i]);
                else open_stream(c, parts[i]);
            } catch (const std::exception& e) {
                parts[i].problems.push_back({c.path, unpack_status::corrupt, e.what(), c.order});
            }
        });
        // One list of items and jobs for the whole layer.
        std::vector<item> items;
        std::vector<decode_job> jobs;
        for (auto& p : parts) {
            const int job_base = static_cast<int>(jobs.size());
            const int item_base = static_cast<int>(items.size());
            for (auto& it : p.items) {
                if (it.job >= 0) it.job += job_base;
                if (it.link_item >= 0) it.link_item += item_base;
                items.push_back(std::move(it));
            }
            for (auto& j : p.jobs) jobs.push_back(std::move(j));
            for (auto& pr : p.problems) report_.problems.push_back(std::move(pr));
        }
        parts.clear();
        if (const std::uint64_t room = options_.limits.max_entries - std::min(options_.limits.max_entries, entries_seen_);
            items.size() > room) {
            // Entries past the limit are dropped before anything is decoded (links point backwards
            // in their container, so the kept ones never need a dropped one).
            const item& first = items[static_cast<std::size_t>(room)];
            problem(first.stream ? first.parent->path : first.e.path, unpack_status::refused,
                    "entry limit reached: this entry and the " + std::to_string(items.size() - room - 1) +
                        " after it in layer " + std::to_string(depth) + " are not processed (at most " +
                        std::to_string(options_.limits.max_entries) + " entries in all; --max-entries changes it)",
                    first.e.order);
            items.resize(static_cast<std::size_t>(room));
        }
        entries_seen_ += items.size();

        // Refused entries are not decoded.
        std::vector<char> wanted(jobs.size(), 0);
        for (const auto& it : items)
            if (it.job >= 0 && it.e.status == unpack_status::ok) wanted[static_cast<std::size_t>(it.job)] = 1;
        std::vector<decode_job*> by_codec[5];
        for (std::size_t k = 0; k < jobs.size(); ++k)
            if (wanted[k]) by_codec[static_cast<int>(jobs[k].kind)].push_back(&jobs[k]);
        decode_done_ = 0;
        decode_total_ = jobs.size();
        if (!by_codec[static_cast<int>(codec::lz4)].empty()) decode_lz4(by_codec[static_cast<int>(codec::lz4)]);
        if (!by_codec[static_cast<int>(codec::zstd)].empty()) decode_zstd(by_codec[static_cast<int>(codec::zstd)]);
        std::vector<decode_job*> deflate = by_codec[static_cast<int>(codec::gzip)];
        deflate.insert(deflate.end(), by_codec[static_cast<int>(codec::zip_deflate)].begin(),
                       by_codec[static_cast<int>(codec::zip_deflate)].end());
        if (!deflate.empty()) decode_deflate(deflate);

        // Finish: take each job's result, check CRCs, resolve links, find nested containers.
        std::vector<container> next;
        std::vector<std::size_t> sink; // items whose entry is kept
        std::vector<std::string> link_targets(items.size());
        util::parallel_for(items.size(), threads_, [&](std::size_t i) {
            item& it = items[i];
            if (it.e.status != unpack_status::ok) return;
            if (it.job >= 0) {
                decode_job& j = jobs[static_cast<std::size_t>(it.job)];
                if (j.failure != unpack_status::ok) {
                    it.e.status = j.failure;
                    it.e.message = j.message;
                    return;
                }
                it.content = j.output;
                it.e.size = it.content.bytes.size();
            }
            if (it.crc) {
                if (const std::uint32_t crc = fmt::detail::crc32_of(it.content.bytes); crc != *it.crc) {
                    it.e.status = unpack_status::corrupt;
                    it.e.message = "CRC-32 mismatch: stored " + fmt::detail::archive_hex(*it.crc, 8) + ", computed " +
                                   fmt::detail::archive_hex(crc, 8);
                }
            }
        });
        for (std::size_t i = 0; i < items.size(); ++i) {
            item& it = items[i];
            if (it.e.status == unpack_status::ok && it.link_item >= 0) {
                const item& target = items[static_cast<std::size_t>(it.link_item)];
                if (target.e.status != unpack_status::ok) {
                    it.e.status = unpack_status::refused;
                    it.e.message = "hard link to an entry that was not kept: " + fmt::detail::archive_quote(it.e.link_target);
                } else if (!budget_.take(target.content.bytes.size())) {
                    // A copy is written: it counts like decoded bytes (links to one big file, or to
                    // an archive, would otherwise multiply the output without limit).
                    it.e.status = unpack_status::refused;
                    it.e.message = "hard link to " + fmt::detail::archive_quote(it.e.link_target) + ": " +
                                   total_message(budget_, target.content.bytes.size());
                } else {
                    it.content = target.content;
                    it.e.size = target.e.size;
                }
            }
            // ZIP stored entries are views whose data a crafted central directory may share: each counts.
            if (it.e.status == unpack_status::ok && it.job < 0 && it.parent->kind == fmt::content_kind::zip &&
                !it.content.bytes.empty() && !budget_.take(it.content.bytes.size())) {
                it.e.status = unpack_status::refused;
                it.e.message = "stored entry: " + total_message(budget_, it.content.bytes.size());
            }
            // ZIP symlinks keep their target as content.
            if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::symlink && it.parent->kind == fmt::content_kind::zip) {
                it.e.link_target.assign(it.content.bytes.begin(), it.content.bytes.end());
                if (std::string why = check_link_target(it.e.output_path, it.e.link_target); !why.empty()) {
                    it.e.status = unpack_status::refused;
                    it.e.message = why + ": " + fmt::detail::archive_quote(it.e.link_target);
                }
            }
            if (it.e.status != unpack_status::ok) {
                // A stream that fails to decode is a problem of the stream (x.gz), not of its content.
                report_.problems.push_back({it.stream ? it.parent->path : it.e.path, it.e.status, it.e.message, it.e.order});
                if (!it.stream) report_.entries.push_back(std::move(it.e));
                continue;
            }
            // A hard link is never opened: its target is, once (links to an archive would otherwise
            // open it once per link, in every layer below).
            const bool file = it.e.type == unpack_entry_type::file;
            const fmt::content_kind kind = file ? fmt::detect(it.content.bytes) : fmt::content_kind::unknown;
            const bool opens = is_container(kind) && (it.stream || options_.recurse);
            if (opens && depth + 1 > options_.limits.max_depth) {
                problem(it.e.path, unpack_status::refused,
                        "nested " + std::string(fmt::content_kind_name(kind)) + " not opened: nesting deeper than " +
                            std::to_string(options_.limits.max_depth) + " containers (--max-depth changes it)",
                        it.e.order);
            } else if (opens) {
                container c;
                c.kind = kind;
                c.depth = depth + 1;
                c.data = it.content;
                c.order = it.e.order;
                if (it.stream && (kind == fmt::content_kind::tar || kind == fmt::content_kind::zip)) {
                    // An archive in a compressed stream opens in place: x.tar.zst!/name.
                    c.path = it.parent->path;
                    c.out_prefix = it.parent->out_prefix;
                    next.push_back(std::move(c));
                    continue;
                }
                c.path = it.e.path;
                c.out_prefix = it.e.output_path + "!";
                next.push_back(std::move(c));
            }
            sink.push_back(i);
        }
        write_layer(items, sink);
        for (const std::size_t i : sink) report_.entries.push_back(std::move(items[i].e));
        return next;
    }

    void write_layer(std::vector<item>& items, const std::vector<std::size_t>& sink) {
        std::uint64_t total = 0;
        for (const std::size_t i : sink) total += items[i].content.bytes.size();
        // Later entries with the same output path win, as in tar.
        std::unordered_map<std::string_view, std::size_t> last;
        if (tree_)
            for (const std::size_t i : sink) last[items[i].e.output_path] = i;
        const auto written = [&](std::size_t i) {
            if (!tree_) return false;
            const auto f = last.find(items[i].e.output_path);
            return f != last.end() && f->second == i;
        };
        // Folders first, parents before children (a set orders "a" before "a/b").
        std::map<std::string, std::string> dir_failed;
        if (tree_) {
            std::set<std::string> dirs;
            for (const std::size_t i : sink) {
                const auto& p = items[i].e.output_path;
                if (items[i].e.type == unpack_entry_type::directory && written(i)) dirs.insert(p);
                // Deepest parent first: once one is known, so are all of its own parents.
                for (std::size_t s = p.rfind('/'); s != std::string::npos && s > 0; s = p.rfind('/', s - 1))
                    if (!dirs.insert(p.substr(0, s)).second) break;
            }
            output_tree::dir_cache cache;
            for (const auto& d : dirs)
                if (std::string why = tree_->make_dir(d, cache); !why.empty()) dir_failed[d] = why;
        }
        std::vector<std::string> failures(items.size());
        std::atomic<std::uint64_t> done{0};
        util::parallel_chunks<output_tree::dir_cache>(sink.size(), threads_, 32, [&](std::size_t b, std::size_t e, auto& cache) {
            for (std::size_t k = b; k < e; ++k) {
                item& it = items[sink[k]];
                const bool file = it.e.type == unpack_entry_type::file || it.e.type == unpack_entry_type::hard_link;
                if (file && options_.hash) it.e.sha256 = util::sha256_of(it.content.bytes);
                // Files get 0644, or 0755 when the archive marks them executable: no setuid, no
                // world-writable files, whatever the archive says.
                const std::uint32_t mode = (it.e.mode & 0111) ? 0755 : 0644;
                if (file && written(sink[k])) failures[sink[k]] = tree_->write_file(it.e.output_path, it.content.bytes, mode, cache);
                done += it.content.bytes.size();
            }
            progress(layer_, options_.output_dir.empty() ? "hash" : "write", done, total);
        });
        // Symlinks last, so that no file of this layer is written through one.
        output_tree::dir_cache cache;
        for (const std::size_t i : sink) {
            item& it = items[i];
            if (tree_ && it.e.type == unpack_entry_type::symlink && written(i))
                failures[i] = tree_->write_symlink(it.e.output_path, it.e.link_target, cache);
            if (tree_ && it.e.type == unpack_entry_type::directory) {
                const auto f = dir_failed.find(it.e.output_path);
                if (f != dir_failed.end()) failures[i] = f->second;
            }
            if (!failures[i].empty()) {
                it.e.status = unpack_status::refused;
                it.e.message = failures[i];
                problem(it.e.path, unpack_status::refused, failures[i], it.e.order);
            } else if (tree_ && written(i)) {
                report_.written_bytes += it.content.bytes.size();
            }
            it.content = {};
        }
    }
};

} // namespace detail

// Opens every input (and everything nested in them, see the note at the top), lists every entry,
// and extracts below options.output_dir when it is set. Throws only for what stops the whole run
// (an output folder that cannot be opened, a device failure); everything about the archives
// themselves is in the report.
inline unpack_report unpack(runtime::context& ctx, std::span<const unpack_input> inputs, const unpack_options& options = {}) {
    return detail::unpacker(ctx, options).run(inputs);
}

} // namespace vyre::engine
