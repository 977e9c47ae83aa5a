// The scan stage over archives, behind `vyre scan`: every file inside the inputs (nested archives
// and compressed streams opened by engine/unpack.hpp, layer by layer) scanned on the device with
// scan.patterns (ops/scan/patterns.hpp); hits come back as (path, pattern, offset).
#pragma once

// How a run goes. Inputs that are archives or compressed streams go to engine::unpack, which
// hands over each layer's files (unpack_options::layer_files) before it drops them; inputs that are
// neither are scanned as they are.
//
// Files the device decoded (deflate streams: ZIP entries, gzip members) stay where the decoder
// left them (unpack_options::keep_on_device): their CRC-32s are checked and their first bytes read
// on the device, and at the end of the layer they are scanned in place, all in one call. Only
// nested containers cross back to the host, which must parse them. The other files (stored
// entries, tar members, what the host decoded) are gathered back to back into a device buffer of
// at most batch_bytes, straight from where they are (runtime::write_gathered: from 1 MiB on,
// through the context's pinned slots with every core copying); a full batch, and the last of each
// layer, is scanned in one call. A file larger than batch_bytes is uploaded and scanned on its own. Only hits and counts
// come back from the device.
//
// One cap (scan_options::max_hits_per_pattern) covers the whole run: a pattern's hits kept are its
// first in the order files are scanned (the plain inputs, then the archives' files layer by layer:
// in each layer the files on the host in listing order, then those on the device in listing order);
// findings are reported in listing order.
//
// Not yet: the upload and the scan take turns instead of overlapping, and the scan of a layer starts
// once the whole layer is decoded.

#include <vyre/engine/unpack.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/ops/scan/patterns.hpp>
#include <vyre/runtime/buffer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <vector>

namespace vyre::engine {

struct scan_archives_options {
    // Limits, deflate route, threads and progress of the unpacking; its output_dir and hash are
    // not used (nothing is written).
    unpack_options unpack;
    ops::scan::scan_options scan;
    // Bytes of files gathered into one upload and one scan call.
    std::uint64_t batch_bytes = std::uint64_t{256} << 20;
    // Host files of at least this many bytes are scanned first in each layer, in a call of their
    // own (more where they pass batch_bytes; 0: every file in listing order). Unset: none for
    // scan_archives, yara_early_bytes for yara_scan_archives, whose libyara takes longest on the
    // largest files.
    std::optional<std::uint64_t> early_bytes;
    // Scan what the device decoded where it is (see the note at the top); false: every file's
    // bytes come to the host first and are uploaded again (for comparison).
    bool keep_on_device = true;
};

// A file with findings.
struct scan_file {
    std::string path;                 // as unpack_entry::path ("outer.tgz!/package/lib/x.js"), or the input's name
    std::vector<std::uint32_t> order; // listing order of the file
};

struct scan_finding {
    std::uint32_t file = 0;    // index in scan_archives_report::hit_files
    std::uint32_t pattern = 0; // index in the pattern set
    std::uint64_t offset = 0;  // of the match's first byte in the file
};

// Wall seconds of the scan stage's own steps, added up over a run (inside unpack_seconds::layer_files
// for the archives' files): where `vyre scan --timings` says the scan's time went.
struct scan_stage_seconds {
    double upload = 0;   // host files gathered into the device's batch buffer (runtime::write_gathered)
    double calls = 0;    // scan calls: dispatches, waits, hits read back and ordered
    double findings = 0; // each call's hits made findings (the sink)
    double order = 0;    // the findings put in listing order at the end
};

struct scan_archives_report {
    std::vector<scan_file> hit_files;   // the files with findings, in listing order
    std::vector<scan_finding> findings; // by file, offset, pattern
    std::vector<std::uint64_t> counts;  // every match of each pattern, kept or not
    std::uint32_t capped_patterns = 0;  // patterns with more matches than findings kept
    std::size_t files = 0;              // files scanned
    std::uint64_t bytes = 0;            // bytes scanned
    std::uint64_t kept_bytes = 0;       // of them, scanned where the decoders left them on the device
    std::size_t scan_dispatches = 0;
    double kernel_seconds = 0;          // scan kernels, with a profiling queue; else 0
    scan_stage_seconds stage;
    unpack_report unpack;               // what unpacking found: entries, problems, decoders' device work
};

namespace detail {

// A file of one scan call: its bytes stay valid until the sink returns (they are the unpack
// engine's, or the input's). A file left on the device has `device` set and no bytes.
struct scanned_file {
    std::string path;
    std::vector<std::uint32_t> order;
    std::span<const std::uint8_t> bytes;
    const unpack_device_bytes* device = nullptr;
};

// What is done with each scan call's result: hits' entries index `files`.
using scan_sink = std::function<void(std::span<const scanned_file> files, const ops::scan::scan_result& result)>;

// Gathers files into a device buffer and scans it when full and at the end of each layer (see the
// note at the top), handing each result to the sink.
class scan_batcher {
public:
    scan_batcher(runtime::context& ctx, const ops::scan::device_patterns& set, const ops::scan::scan_options& options,
                 std::uint64_t batch_bytes, ops::scan::hit_budget* budget, scan_sink sink)
        : ctx_(ctx), set_(set), options_(options), budget_(budget), sink_(std::move(sink)), batch_bytes_(batch_bytes) {}

    void add(std::string_view path, std::span<const std::uint8_t> bytes, std::span<const std::uint32_t> order) {
        size_up();
        ++files_scanned;
        bytes_scanned += bytes.size();
        if (bytes.size() > capacity_) {
            scan_alone(path, bytes, order);
            return;
        }
        if (used_ + bytes.size() > capacity_) flush();
        files_.push_back({std::string(path), {order.begin(), order.end()}, bytes});
        extents_.push_back({used_, bytes.size()});
        pieces_.push_back({bytes.data(), bytes.size()});
        used_ += bytes.size();
    }

    // A file left on the device: scanned in place with the others of its buffer at the next flush.
    void add_kept(std::string_view path, const unpack_device_bytes& device, std::span<const std::uint32_t> order) {
        if (!kept_files_.empty() && kept_buffer_.get() != device.buffer.get()) flush_kept();
        kept_buffer_ = device.buffer;
        ++files_scanned;
        bytes_scanned += device.size;
        kept_bytes_scanned += device.size;
        kept_files_.push_back({std::string(path), {order.begin(), order.end()}, {}, &device});
        kept_extents_.push_back({device.offset, device.size});
    }

    void flush() {
        if (!files_.empty()) {
            // The batch is over whatever happens below (a throw included): nothing of it is kept.
            struct batch_done {
                scan_batcher& b;
                ~batch_done() {
                    b.pieces_.clear();
                    b.files_.clear();
                    b.extents_.clear();
                    b.used_ = 0;
                }
            } done{*this};
            // Words past the last file are read as whole words: zeros.
            const std::uint64_t end = std::max<std::uint64_t>(4, (used_ + 3) & ~std::uint64_t{3});
            static constexpr std::uint8_t zeros[4] = {};
            pieces_.push_back({zeros, static_cast<std::size_t>(end - used_)});
            const auto t0 = clock::now();
            if (!device_.get() || device_.size() < end) {
                // Room that doubles from 16 MiB up to capacity_, so that a small run takes little.
                std::uint64_t size = device_.get() ? device_.size() : std::uint64_t{16} << 20;
                while (size < end) size *= 2;
                device_ = runtime::allocate(ctx_, static_cast<std::size_t>(std::min(size, capacity_)), CL_MEM_READ_ONLY);
            }
            runtime::write_gathered(ctx_, device_, pieces_);
            seconds.upload += since(t0);
            scan(device_, files_, extents_);
        }
        flush_kept();
    }

    // Called where the views handed to add() end: after the plain inputs, at the end of each
    // layer, and (with true, and it must not throw then) on the way out of a layer that failed. A
    // sink whose work outlives its call (engine/yara_scan.hpp) waits there.
    std::function<void(bool failed)> views_end;

    // Host files of at least this many bytes (0: none) are scanned first in each layer, in a call of
    // their own: a sink whose work on a file grows with its size (libyara) starts on the largest
    // while the rest upload.
    std::uint64_t early_bytes = 0;
    std::size_t early_files = 0; // files scanned first for early_bytes

    std::size_t files_scanned = 0;
    std::uint64_t bytes_scanned = 0;
    std::uint64_t kept_bytes_scanned = 0;
    std::size_t dispatches = 0;
    double kernel_seconds = 0;
    scan_stage_seconds seconds;
    std::vector<unpack_problem> problems; // files that could not be scanned

private:
    using clock = std::chrono::steady_clock;
    static double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

    // The sizes that depend on the device, found at the first file: a context started in the
    // background is not waited for while the containers are opened.
    void size_up() {
        if (capacity_) return;
        limit_ = std::min<std::uint64_t>(ctx_.device().max_allocation, 0xffffffffull) & ~std::uint64_t{3};
        capacity_ = std::max<std::uint64_t>(4, std::min(batch_bytes_, limit_)) & ~std::uint64_t{3};
    }

    void scan_alone(std::string_view path, std::span<const std::uint8_t> bytes, std::span<const std::uint32_t> order) {
        flush();
        if (bytes.size() > limit_) {
            problems.push_back({std::string(path), unpack_status::refused,
                                "not scanned: " + std::to_string(bytes.size()) + " bytes; one file may have at most " +
                                    std::to_string(limit_) + " on this device",
                                {order.begin(), order.end()}});
            return;
        }
        const auto t0 = clock::now();
        static constexpr std::uint8_t zeros[4] = {};
        const runtime::host_piece padded[2] = {{bytes.data(), bytes.size()}, {zeros, ((bytes.size() + 3) & ~std::size_t{3}) - bytes.size()}};
        auto buffer = runtime::allocate(ctx_, std::max<std::size_t>(4, bytes.size() + padded[1].bytes), CL_MEM_READ_ONLY);
        runtime::write_gathered(ctx_, buffer, padded);
        seconds.upload += since(t0);
        files_.push_back({std::string(path), {order.begin(), order.end()}, bytes});
        extents_.push_back({0, bytes.size()});
        scan(buffer, files_, extents_);
    }

    void flush_kept() {
        if (kept_files_.empty()) return;
        scan(kept_buffer_, kept_files_, kept_extents_);
        kept_buffer_ = boost::compute::buffer();
    }

    void scan(const boost::compute::buffer& data, std::vector<scanned_file>& files, std::vector<vyre::scan::entry_extent>& extents) {
        const auto t0 = clock::now();
        const auto r = ops::scan::scan_device(ctx_, set_, data, extents, options_, budget_);
        const auto t1 = clock::now();
        seconds.calls += std::chrono::duration<double>(t1 - t0).count();
        dispatches += r.dispatches;
        kernel_seconds += r.kernel_seconds;
        sink_(files, r);
        seconds.findings += since(t1);
        files.clear();
        extents.clear();
    }

    runtime::context& ctx_;
    const ops::scan::device_patterns& set_;
    const ops::scan::scan_options& options_;
    ops::scan::hit_budget* budget_;
    scan_sink sink_;
    std::uint64_t batch_bytes_, capacity_ = 0, limit_ = 0, used_ = 0;
    boost::compute::buffer device_;             // the batch's files, back to back
    std::vector<runtime::host_piece> pieces_;   // where they are on the host
    std::vector<scanned_file> files_;
    std::vector<vyre::scan::entry_extent> extents_;
    boost::compute::buffer kept_buffer_; // the buffer of kept_files_
    std::vector<scanned_file> kept_files_;
    std::vector<vyre::scan::entry_extent> kept_extents_;
};

// Every file of `inputs` through the batcher: the plain inputs first, then the archives' files
// layer by layer, each layer scanned before the unpack engine drops it; with keep_on_device, what
// the device decoded is scanned there. Returns what unpacking reported, with the batcher's
// problems and listing orders that count every input.
inline unpack_report scan_inputs(runtime::context& ctx, std::span<const unpack_input> inputs, const unpack_options& options,
                                 bool keep_on_device, scan_batcher& batcher) {
    unpack_report report;
    std::vector<unpack_input> archives;
    std::vector<std::uint32_t> archive_index; // unpack's input i is inputs[archive_index[i]]
    for (std::uint32_t i = 0; i < inputs.size(); ++i) {
        if (is_container(format::detect(inputs[i].bytes))) {
            archives.push_back(inputs[i]);
            archive_index.push_back(i);
        } else {
            const std::uint32_t order[] = {i};
            batcher.add(inputs[i].name, inputs[i].bytes, order);
        }
    }
    batcher.flush();
    if (batcher.views_end) batcher.views_end(false);
    if (!archives.empty()) {
        unpack_options u = options;
        u.output_dir.clear();
        u.hash = false;
        u.keep_on_device = keep_on_device;
        u.host_below_bytes = 0; // the scan needs the device whatever the size: decode there too
        u.layer_files = [&](std::span<const unpack_file_view> files) {
            // The views end with this call.
            try {
                std::vector<std::uint32_t> order;
                const auto early = [&](const unpack_file_view& f) { return batcher.early_bytes && !f.device && f.bytes.size() >= batcher.early_bytes; };
                for (const bool first : {true, false}) {
                    if (first && std::none_of(files.begin(), files.end(), early)) continue;
                    for (const auto& f : files) {
                        if (early(f) != first) continue;
                        batcher.early_files += first;
                        order.assign(f.order.begin(), f.order.end());
                        if (!order.empty()) order[0] = archive_index[order[0]];
                        if (f.device) batcher.add_kept(f.path, *f.device, order);
                        else batcher.add(f.path, f.bytes, order);
                    }
                    batcher.flush();
                }
            } catch (...) {
                if (batcher.views_end) batcher.views_end(true);
                throw;
            }
            if (batcher.views_end) batcher.views_end(false);
        };
        report = unpack(ctx, archives, u);
        const auto renumber = [&](std::vector<std::uint32_t>& order) {
            if (!order.empty() && order[0] < archive_index.size()) order[0] = archive_index[order[0]];
        };
        for (auto& e : report.entries) renumber(e.order);
        for (auto& p : report.problems) renumber(p.order);
    }
    for (auto& p : batcher.problems) report.problems.push_back(std::move(p));
    std::stable_sort(report.problems.begin(), report.problems.end(),
                     [](const unpack_problem& a, const unpack_problem& b) { return a.order < b.order; });
    return report;
}

} // namespace detail

// Scans every file in `inputs` (see the note at the top). Throws only for what stops the whole run
// (a device failure); damaged archives are problems in report.unpack, and the rest is scanned.
inline scan_archives_report scan_archives(runtime::context& ctx, const ops::scan::device_patterns& set,
                                          std::span<const unpack_input> inputs, const scan_archives_options& options = {}) {
    scan_archives_report report;
    report.counts.assign(set.tables.patterns, 0);
    ops::scan::hit_budget budget;
    // Each call's files with hits join hit_files once; findings name them by index (a path per
    // finding would be a string per hit, and there may be millions).
    detail::scan_batcher batcher(ctx, set, options.scan, options.batch_bytes, &budget,
                                 [&](std::span<const detail::scanned_file> files, const ops::scan::scan_result& r) {
                                     std::uint32_t last_entry = 0xffffffffu, file = 0;
                                     for (const auto& h : r.hits) { // sorted by entry
                                         if (h.entry != last_entry) {
                                             last_entry = h.entry;
                                             file = static_cast<std::uint32_t>(report.hit_files.size());
                                             report.hit_files.push_back({files[h.entry].path, files[h.entry].order});
                                         }
                                         report.findings.push_back({file, h.pattern, h.offset});
                                     }
                                     for (std::size_t q = 0; q < r.counts.size(); ++q) report.counts[q] += r.counts[q];
                                 });
    batcher.early_bytes = options.early_bytes.value_or(0);
    report.unpack = detail::scan_inputs(ctx, inputs, options.unpack, options.keep_on_device, batcher);
    report.files = batcher.files_scanned;
    report.bytes = batcher.bytes_scanned;
    report.kept_bytes = batcher.kept_bytes_scanned;
    report.scan_dispatches = batcher.dispatches;
    report.kernel_seconds = batcher.kernel_seconds;
    report.stage = batcher.seconds;
    const auto ordering = std::chrono::steady_clock::now();
    // Files in listing order (a file is scanned once, so no two share an order), then findings.
    std::vector<std::uint32_t> by_order(report.hit_files.size()), rank(report.hit_files.size());
    for (std::uint32_t f = 0; f < by_order.size(); ++f) by_order[f] = f;
    std::sort(by_order.begin(), by_order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return report.hit_files[a].order < report.hit_files[b].order; });
    std::vector<scan_file> sorted_files(report.hit_files.size());
    for (std::uint32_t i = 0; i < by_order.size(); ++i) {
        rank[by_order[i]] = i;
        sorted_files[i] = std::move(report.hit_files[by_order[i]]);
    }
    report.hit_files = std::move(sorted_files);
    // A file's findings came from one scan call, already by offset and pattern: placing them by
    // file, in the order they came (a counting sort), orders them all.
    std::vector<std::size_t> start(report.hit_files.size() + 1, 0);
    for (const auto& f : report.findings) ++start[rank[f.file] + 1];
    for (std::size_t f = 0; f < report.hit_files.size(); ++f) start[f + 1] += start[f];
    std::vector<scan_finding> placed(report.findings.size());
    for (const auto& f : report.findings) placed[start[rank[f.file]]++] = {rank[f.file], f.pattern, f.offset};
    report.findings = std::move(placed);
    std::vector<std::uint64_t> kept(report.counts.size(), 0);
    for (const auto& f : report.findings) ++kept[f.pattern];
    for (std::size_t q = 0; q < report.counts.size(); ++q) report.capped_patterns += report.counts[q] > kept[q];
    report.stage.order = std::chrono::duration<double>(std::chrono::steady_clock::now() - ordering).count();
    return report;
}

} // namespace vyre::engine
