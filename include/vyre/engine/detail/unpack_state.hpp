// Part of engine/unpack.hpp (included there after the public types): what the steps of a run hand
// each other (containers, entries, decode jobs, the bytes that hold them), the limits' checks, and
// the state of one run.
#pragma once

#include <vyre/engine/detail/output_tree.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::engine::detail {

namespace fmt = format;

// What a run opens: every kind detect() names but raw data. A file of skippable frames only is a
// stream that decodes to nothing, as `lz4 -d` and `zstd -d` decode it.
inline bool is_container(fmt::content_kind k) { return k != fmt::content_kind::unknown; }

// Compressed streams whose content is one decode job (the rest are archives with entries).
inline bool is_stream(fmt::content_kind k) {
    return k == fmt::content_kind::lz4_frame || k == fmt::content_kind::lz4_legacy || k == fmt::content_kind::zstd ||
           k == fmt::content_kind::gzip || k == fmt::content_kind::xz || k == fmt::content_kind::lzma ||
           k == fmt::content_kind::bzip2 || k == fmt::content_kind::skippable;
}

using owner_ptr = std::shared_ptr<const void>;

struct blob {
    blob() = default;
    blob(std::span<const std::uint8_t> b, owner_ptr o = {}) : bytes(b), owner(std::move(o)) {}

    std::span<const std::uint8_t> bytes;
    owner_ptr owner; // keeps bytes alive (empty: the caller's input)
    // Content left on the device (unpack_options::keep_on_device): `bytes` is empty, `head` holds
    // its first bytes (up to deflate_head_bytes; fewer only when the content is shorter, or when
    // a gzip file's first member is) and lives as long as owner.
    std::shared_ptr<const unpack_device_bytes> device;
    std::span<const std::uint8_t> head;

    std::uint64_t size() const noexcept { return device ? device->size : bytes.size(); }
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
    // A window of a tar unpacked in windows (detail/unpack_stream.hpp): the files of the earlier
    // windows (checked names), which a hard link here copies from the output folder (or refuses
    // where nothing is written), the windows' size, and where this one starts in the stream's
    // content (messages say so: their offsets are the window's).
    const std::set<std::string>* earlier_files = nullptr;
    std::uint64_t window_bytes = 0, window_start = 0, entries_before = 0;
    // A window of a ZIP unpacked in windows: only its entries [entry_first, entry_end), in
    // central-directory order, are opened (the directory's own problems are reported by the first).
    std::size_t entry_first = 0, entry_end = SIZE_MAX;
    const fmt::zip_archive* zip = nullptr; // that ZIP's directory, parsed once for all its windows
    // The digests of a container image's layers by path, where the caller knows them (a window of a
    // tar unpacked in windows: none); null: open_tar finds them in the tar itself.
    const std::map<std::string, std::string>* layer_digests = nullptr;
};

// How a job is decoded: gzip members and ZIP deflate entries by the deflate engine, LZ4 and zstd by
// theirs, `library` on the host cores by liblzma or libbz2 (xz, lzma and bzip2 streams, ZIP methods
// 12, 14 and 95).
enum class codec { none, gzip, lz4, zstd, zip_deflate, library };
inline constexpr std::size_t codec_count = 6;

struct decode_job {
    codec kind = codec::none;
    fmt::content_kind stream = fmt::content_kind::unknown; // library streams: xz, lzma or bzip2
    blob input;
    // ZIP entries: the archive and the entry (the deflate engine checks sizes and the CRC of deflate
    // entries; zstd entries are checked when their layer finishes).
    std::span<const std::uint8_t> zip_archive;
    fmt::zip_entry zip;
    std::optional<std::uint64_t> declared_size;
    blob output;
    unpack_status failure = unpack_status::ok;
    std::string message;
    // A compressed stream that failed keeps, in `output`, what decoded before the damage
    // (format/salvage.hpp); `failure` and `message` still say what went wrong.
    bool salvaged = false;

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

// The bytes a run may still produce (limits.max_total_bytes), taken by every thread as it goes. A
// run's budget takes from its job's (shared_run::budget) and counts what it holds itself, so that
// a window of an archive unpacked in windows can give back what it held once it is written.
class byte_budget {
public:
    explicit byte_budget(std::uint64_t limit) : limit_(limit) {}
    explicit byte_budget(byte_budget& parent) : limit_(parent.limit_), parent_(&parent) {}
    // Reserves n bytes; false (nothing reserved) when the total would pass the limit.
    bool take(std::uint64_t n) {
        if (parent_) {
            if (!parent_->take(n)) return false;
            used_ += n;
            return true;
        }
        std::uint64_t used = used_.load();
        do {
            if (n > limit_ || used > limit_ - n) return false;
        } while (!used_.compare_exchange_weak(used, used + n));
        return true;
    }
    void give_back(std::uint64_t n) {
        used_ -= n;
        if (parent_) parent_->give_back(n);
    }
    // What the limit leaves: of the job's, for a run's budget.
    std::uint64_t left() const { return parent_ ? parent_->left() : limit_ - std::min(limit_, used_.load()); }
    // What this budget holds (a run's: what that run took and did not give back).
    std::uint64_t used() const { return used_.load(); }
    std::uint64_t limit() const { return limit_; }

private:
    std::uint64_t limit_;
    byte_budget* parent_ = nullptr;
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

inline std::string total_message(const byte_budget& b, std::uint64_t n) {
    return "total output limit reached: " + std::to_string(n) + " more bytes, " + std::to_string(b.left()) + " of " +
           std::to_string(b.limit()) + " left (--max-total changes it)";
}

// A folder written with a recorded mode or time: set by finish_folders after the last layer.
struct folder_metadata {
    std::uint32_t mode = 0;
    std::optional<std::int64_t> mtime;
    std::string path;
    std::vector<std::uint32_t> order;
};

// What the runs of one job share, when the job is split into runs (engine/unpack_devices.hpp runs
// batches of the inputs on several devices at once): the limits count over the whole job, and
// folders get their recorded metadata once, after the last run, since another run may still be
// writing into them.
struct shared_run {
    explicit shared_run(const unpack_limits& l) : budget(l.max_total_bytes) {}

    byte_budget budget;
    // Bytes that counted against the budget while they were held and were given back after: the
    // windows of archives unpacked in windows (detail/unpack_stream.hpp).
    std::atomic<std::uint64_t> released{0};
    std::atomic<std::uint64_t> entries{0};
    std::mutex folders_lock;
    std::map<std::string, folder_metadata> folders;

    // Reserves up to n of the `limit` entries; returns how many it got.
    std::uint64_t take_entries(std::uint64_t n, std::uint64_t limit) {
        std::uint64_t seen = entries.load(), got = 0;
        do {
            got = std::min(n, limit - std::min(limit, seen));
        } while (!entries.compare_exchange_weak(seen, seen + got));
        return got;
    }
    void add_folder(const std::string& output_path, folder_metadata m) {
        const std::lock_guard<std::mutex> g(folders_lock);
        folders[output_path] = std::move(m);
    }
};

// One run: the device, the options and the byte budget they set, the output folder, the report
// being filled, and what progress reports need. Every step of a layer takes it.
struct run_state {
    run_state(runtime::context& c, const unpack_options& o)
        : ctx(c), options(o), shared(o.shared ? o.shared : std::make_shared<shared_run>(o.limits)), budget(shared->budget),
          threads(util::thread_count(o.threads)) {
        if (!o.output_dir.empty()) tree.emplace(o.output_dir);
    }

    runtime::context& ctx;
    const unpack_options& options;
    std::shared_ptr<shared_run> shared; // this run's own unless options.shared names a job's
    byte_budget budget;                 // takes from shared->budget
    unsigned threads = 1;
    std::optional<output_tree> tree;
    unpack_report report;
    std::mutex progress_lock;
    std::uint64_t entries_seen = 0; // by this run (progress reports)
    unsigned layer = 0;
    std::atomic<std::uint64_t> decode_done{0};
    // What the first layer (the run's own containers) held of the budget once it was done: a window
    // gives that back when it ends; what nested archives decode stays counted for the whole job.
    std::uint64_t first_layer_held = 0;
    std::atomic<std::uint64_t> fetched{0}; // kept content read back (report.fetched_bytes at the end)
    std::uint64_t decode_total = 0;

    void problem(const std::string& path, unpack_status kind, std::string message, std::vector<std::uint32_t> order) {
        report.problems.push_back({path, kind, std::move(message), std::move(order)});
    }

    void progress(unsigned at_layer, const char* phase, std::uint64_t done, std::uint64_t total) {
        if (!options.progress) return;
        std::unique_lock<std::mutex> g(progress_lock, std::try_to_lock);
        if (!g) return; // another thread is reporting: skip, the next call will catch up
        options.progress({at_layer, phase, done, total, entries_seen});
    }

    void progress_tick() { progress(layer, "decode", ++decode_done, decode_total); }
};

// Adds the counters and listings of one run to the job's report (runs are added in input order).
inline void add_run(unpack_report& job, unpack_report&& run) {
    std::move(run.entries.begin(), run.entries.end(), std::back_inserter(job.entries));
    std::move(run.problems.begin(), run.problems.end(), std::back_inserter(job.problems));
    job.containers += run.containers;
    job.layers = std::max(job.layers, run.layers);
    job.written_bytes += run.written_bytes;
    job.lz4_device_blocks += run.lz4_device_blocks;
    job.lz4_dispatches += run.lz4_dispatches;
    job.lz4_host_blocks += run.lz4_host_blocks;
    job.zstd_blocks += run.zstd_blocks;
    job.zstd_dispatches += run.zstd_dispatches;
    job.deflate_streams += run.deflate_streams;
    job.deflate_device_streams += run.deflate_device_streams;
    job.deflate_dispatches += run.deflate_dispatches;
    job.deflate_piece_streams += run.deflate_piece_streams;
    job.deflate_pieces += run.deflate_pieces;
    job.deflate_host_files += run.deflate_host_files;
    job.library_streams += run.library_streams;
    job.streamed_archives += run.streamed_archives;
    job.stream_windows += run.stream_windows;
    job.kept_bytes += run.kept_bytes;
    job.fetched_bytes += run.fetched_bytes;
    auto& s = job.seconds;
    const auto& r = run.seconds;
    s.open += r.open, s.decode += r.decode, s.lz4 += r.lz4, s.zstd += r.zstd, s.deflate += r.deflate;
    s.deflate_device += r.deflate_device, s.deflate_host += r.deflate_host;
    s.deflate_plan += r.deflate_plan, s.deflate_output += r.deflate_output, s.deflate_ready += r.deflate_ready;
    s.deflate_enqueued += r.deflate_enqueued, s.deflate_batches += r.deflate_batches;
    s.library += r.library, s.finish += r.finish, s.layer_files += r.layer_files, s.write += r.write;
    s.release += r.release;
}

} // namespace vyre::engine::detail
