// `vyre unpack ARCHIVE... [-o DIR] [--list] [--json]`: archives and compressed streams nested in each
// other (LZ4, zstd, gzip, xz, lzma, bzip2, tar, ZIP, ar, cpio, RPM, 7z, ISO 9660; found by content),
// extracted safely with their modes and times, or listed with SHA-256.
#pragma once

#include "common.hpp"

#include <vyre/engine/image_flatten.hpp>
#include <vyre/engine/unpack.hpp>
#include <vyre/engine/unpack_devices.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/json.hpp>
#include <vyre/util/parallel.hpp>

#include <unistd.h> // isatty

#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vyre::cli {

// Archive names are bytes (old ZIPs use code page 437): invalid UTF-8 becomes U+FFFD so that the
// output is always valid JSON; --list prints the bytes themselves.
using util::json_string;

// Control characters in names would garble a terminal or a line-oriented reader.
inline std::string printable(std::string_view s) { return vyre::engine::unpack_printable(s); }
// Messages quote names already escaped (archive_quote): only control characters are left to escape.
inline std::string printable_message(std::string_view s) { return vyre::engine::unpack_printable(s, false); }

inline std::string human_bytes(std::uint64_t n) {
    char b[32];
    if (n >= (std::uint64_t{1} << 30)) std::snprintf(b, sizeof b, "%.2f GiB", double(n) / double(1 << 30));
    else if (n >= (1u << 20)) std::snprintf(b, sizeof b, "%.1f MiB", double(n) / double(1 << 20));
    else std::snprintf(b, sizeof b, "%llu bytes", static_cast<unsigned long long>(n));
    return b;
}

// Redraws one line on stderr, at most ten times a second, from the first half second on.
class progress_bar {
public:
    explicit progress_bar(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}
    void update(const vyre::engine::unpack_progress& p) {
        if (!enabled_) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - start_ < std::chrono::milliseconds(500) || now - last_ < std::chrono::milliseconds(100)) return;
        last_ = now;
        const bool bytes = std::string_view(p.phase) != "decode";
        const double pct = p.total ? 100.0 * double(p.done) / double(p.total) : 0.0;
        const int width = 30, filled = static_cast<int>(pct / 100.0 * width);
        std::string bar(static_cast<std::size_t>(std::clamp(filled, 0, width)), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r\033[K[%s] %5.1f%%  layer %u %s  %s / %s  %llu entries", bar.c_str(), pct, p.layer, p.phase,
                     bytes ? human_bytes(p.done).c_str() : std::to_string(p.done).c_str(),
                     bytes ? human_bytes(p.total).c_str() : (std::to_string(p.total) + " streams").c_str(),
                     static_cast<unsigned long long>(p.entries));
        drawn_ = true;
    }
    void clear() {
        if (drawn_) std::fprintf(stderr, "\r\033[K");
        drawn_ = false;
    }

private:
    bool enabled_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_, last_{};
};

// "2024-03-01 12:00:00" (UTC), or "-" where no time was recorded.
inline std::string utc_time(const std::optional<std::int64_t>& t) {
    if (!t) return "-";
    const std::time_t s = static_cast<std::time_t>(*t);
    std::tm tm{};
    if (!::gmtime_r(&s, &tm)) return "-";
    char b[32];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm);
    return b;
}

inline void print_list(std::ostream& os, const vyre::engine::unpack_report& r) {
    os << "TYPE      SIZE        COMPRESSED  METHOD   MODE  MTIME (UTC)          SHA256" << std::string(60, ' ') << "PATH\n";
    for (const auto& e : r.entries) {
        if (e.status != vyre::engine::unpack_status::ok) continue;
        char head[160];
        char mode[8] = "-";
        if (e.mode) std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(e.mode & 07777));
        std::snprintf(head, sizeof head, "%-8s  %-10llu  %-10llu  %-7s  %-4s  %-19s  ", vyre::engine::unpack_entry_type_name(e.type),
                      static_cast<unsigned long long>(e.size), static_cast<unsigned long long>(e.compressed_size), e.method.c_str(),
                      mode, utc_time(e.mtime).c_str());
        os << head << (e.sha256 ? vyre::util::to_hex(*e.sha256) : std::string(64, '-')) << "  " << printable(e.path);
        if (!e.link_target.empty()) os << " -> " << printable(e.link_target);
        os << "\n";
    }
}

// The input (its place on the command line, from 0) that an entry or problem belongs to, as JSON.
inline std::string input_of(const std::vector<std::uint32_t>& order) { return order.empty() ? "null" : std::to_string(order[0]); }

inline void print_json(std::ostream& os, const vyre::engine::unpack_report& r, const std::string& summary_fields) {
    os << "{\"entries\":[";
    for (std::size_t i = 0; i < r.entries.size(); ++i) {
        const auto& e = r.entries[i];
        os << (i ? ",\n" : "\n") << "{\"input\":" << input_of(e.order) << ",\"path\":" << json_string(e.path) << ",\"output_path\":" << json_string(e.output_path)
           << ",\"type\":\"" << vyre::engine::unpack_entry_type_name(e.type) << "\",\"size\":" << e.size
           << ",\"compressed_size\":" << e.compressed_size << ",\"method\":" << json_string(e.method)
           << ",\"sha256\":" << (e.sha256 ? "\"" + vyre::util::to_hex(*e.sha256) + "\"" : std::string("null"))
           << ",\"link_target\":" << (e.link_target.empty() ? std::string("null") : json_string(e.link_target))
           << ",\"mode\":" << e.mode << ",\"mtime\":" << (e.mtime ? std::to_string(*e.mtime) : std::string("null")) << ",\"depth\":" << e.depth << ",\"status\":\"" << vyre::engine::unpack_status_name(e.status)
           << "\",\"message\":" << (e.message.empty() ? std::string("null") : json_string(e.message)) << "}";
    }
    os << "\n],\"problems\":[";
    for (std::size_t i = 0; i < r.problems.size(); ++i) {
        const auto& p = r.problems[i];
        os << (i ? ",\n" : "\n") << "{\"input\":" << input_of(p.order) << ",\"path\":" << json_string(p.path) << ",\"status\":\""
           << vyre::engine::unpack_status_name(p.kind) << "\",\"message\":" << json_string(p.message) << "}";
    }
    os << "\n],\"summary\":{" << summary_fields << "}}\n";
}

// --devices: every choice of every use of the option ("all", numbers as `vyre devices` prints
// them, parts of names; commas separate several), each device once. Empty when the option is not given.
inline std::vector<std::unique_ptr<vyre::runtime::context>> open_devices(const po::variables_map& vm) {
    std::vector<std::unique_ptr<vyre::runtime::context>> out;
    if (!vm.count("devices")) return out;
    std::vector<std::string> choices;
    for (const auto& v : vm["devices"].as<std::vector<std::string>>()) {
        std::size_t b = 0;
        for (std::size_t e; (e = v.find(',', b)) != std::string::npos; b = e + 1) choices.push_back(v.substr(b, e - b));
        choices.push_back(v.substr(b));
    }
    for (const auto& d : vyre::runtime::select_devices(vyre::runtime::list_devices(), choices))
        out.push_back(std::make_unique<vyre::runtime::context>(d));
    return out;
}

// The devices of a run, for messages: "NVIDIA H200 (NVIDIA CUDA)", or "2 devices: A, B".
inline std::string devices_label(const std::vector<vyre::runtime::context*>& devices) {
    // A run that never asked for its device (small inputs, all on the host) does not make it to name it.
    if (devices.size() == 1) return devices[0]->used() ? devices[0]->device().label() : std::string("the host (no device needed)");
    std::string s = std::to_string(devices.size()) + " devices: ";
    for (std::size_t i = 0; i < devices.size(); ++i) s += (i ? ", " : "") + devices[i]->device().label();
    return s;
}

// What each device of a run did, as JSON (the summary's "devices").
inline std::string devices_json(const vyre::engine::unpack_device_stats& stats) {
    std::ostringstream os;
    os << "[";
    for (std::size_t i = 0; i < stats.size(); ++i) {
        const auto& d = stats[i];
        os << (i ? "," : "") << "{\"device\":" << json_string(d.device) << ",\"batches\":" << d.batches << ",\"inputs\":" << d.items
           << ",\"input_bytes\":" << d.bytes << ",\"busy_seconds\":" << d.busy_seconds << ",\"declined\":" << (d.declined ? "true" : "false") << "}";
    }
    os << "]";
    return os.str();
}

inline int cmd_unpack(const std::vector<std::string>& args) {
    namespace ve = vyre::engine;
    po::options_description options(
        "Opens archives and compressed streams found by their content (LZ4, zstd, gzip, xz, lzma, bzip2, tar, ZIP,\n"
        "RPM, and through libarchive ar/.deb, cpio, 7z and ISO 9660), nested to any depth\n"
        "up to --max-depth, and extracts them below DIR or lists them. Every LZ4 and zstd block and every deflate\n"
        "stream (gzip members, ZIP entries) of one nesting layer goes to the OpenCL device in one pass per codec\n"
        "(see the --*-route options), except for inputs under --host-below in all, which the host cores decode\n"
        "without starting the device. Unsafe names and links are refused, corrupt entries reported; the exit\n"
        "status is 1 when anything was refused or corrupt");
    options.add_options()("archive", po::value<std::vector<std::string>>(), "input files")(
        "output,o", po::value<std::string>(), "extract below this folder (default: the current folder, unless --list or --json)")(
        "list,l", "print every entry: type, size, compressed size, method, SHA-256, path")(
        "json", "print every entry and problem as one JSON document (see doc/unpack.md)")(
        "max-depth", po::value<unsigned>()->default_value(8), "containers opened one inside another at most (the inputs are depth 1)")(
        "max-total", po::value<std::string>(),
        ("bytes the decoders may produce in all, hard-link copies and ZIP stored entries included (default: 64G or half "
         "the physical memory, whichever is less: " + human_bytes(ve::default_max_total_bytes()) + " here)").c_str())(
        "max-entries", po::value<std::uint64_t>()->default_value(1000000), "entries of every container at every depth at most")(
        "max-ratio", po::value<std::uint64_t>()->default_value(1000), "decoded/compressed size of one stream or entry at most")(
        "ratio-min-size", po::value<std::string>()->default_value("1M"), "outputs up to this size pass the ratio check")(
        "flatten", "the input is a container image (docker save, an OCI archive): apply its layers in order, with their "
        "whiteouts, and extract or list the final filesystem (archives inside it stay closed)")(
        "keep-setid", "keep set-uid, set-gid and sticky bits on extracted files and folders (dropped by default)")(
        "no-recurse", "leave archives found inside entries closed (the inputs' own compression and archive still open)")(
        "stream-above", po::value<std::string>(),
        ("archives above this are unpacked in windows of --window bytes, so that memory does not grow with the archive: a "
         "tar in one compressed stream (gzip, zstd, LZ4, xz, lzma, bzip2) whose content is declared, or estimated at 4 "
         "times its size, above it (decoded as a stream on the host, or one zstd frame on the device a window of blocks at "
         "a time, the next window while one is written), a plain tar of more bytes, a ZIP whose entries "
         "declare more (0: every such archive; default: a quarter of --max-total's default, " +
         human_bytes(ve::unpack_options{}.stream_above_bytes) + " here)").c_str())(
        "window", po::value<std::string>(),
        ("bytes of whole entries unpacked at a time from an archive unpacked in windows (default: " +
         human_bytes(ve::unpack_options{}.window_bytes) + " here)").c_str())(
        "threads", po::value<unsigned>()->default_value(0), "host threads (0: every hardware thread)")(
        "deflate-route", po::value<std::string>()->default_value("automatic"),
        "where deflate streams (gzip members, ZIP entries) are inflated: device (compression.deflate), host "
        "(libdeflate on every core), or automatic (on GPUs the device for streams up to --deflate-device-max, the "
        "host for larger ones, except the largest of --deflate-pieces-min or more, which the device decodes in pieces "
        "while that shortens the pass; the host on CPU devices); gzip files whose members only inflating finds (several "
        "plain members) are inflated on the host on every route")(
        "deflate-device-max", po::value<std::string>()->default_value("256K"),
        "the automatic deflate route's cap: streams that decode to more go to the host cores")(
        "deflate-pieces-min", po::value<std::string>(),
        "deflate streams this large or larger may be decoded on the device in pieces, all of them together (default: 1M on "
        "the device route, 16M on the automatic route)")(
        "zstd-route", po::value<std::string>()->default_value("automatic"),
        "where zstd frames are decoded: device, host (libzstd, frames in parallel), or automatic (raw/RLE frames, "
        "many short frames and a few long ones on the device, the rest on the host; see doc/ops/compression.zstd.md)")(
        "lz4-route", po::value<std::string>()->default_value("automatic"),
        "where LZ4 blocks are decoded: device (compression.lz4), host (liblz4 on every core), or automatic (a GPU "
        "where a layer's blocks average at most 128 KiB; the host for larger ones, such as the lz4 tool's default 4 MiB, "
        "and on CPU devices)")(
        "host-below", po::value<std::string>()->default_value("64M"),
        "inputs totalling less than this are decoded on the host cores, every automatic route taking the host, and "
        "the device's driver is not started (0: never; not with --devices, whose devices are made first)")(
        "devices", po::value<std::vector<std::string>>(),
        "spread the inputs over several OpenCL devices: all, numbers as `vyre devices` prints them, or parts of "
        "names (\"nvidia\", \"pocl\"), commas between several; each device takes batches of whole inputs as fast "
        "as it finishes them, and the listing is the same as on one device (default: the one device VYRE_DEVICE or "
        "the first GPU names)")(
        "no-progress", "no progress bar (it is drawn on stderr only when stderr is a terminal)")(
        "timings", "print where the time went on stderr: the device context, each step of the layers, the rest");
    po::positional_options_description positional;
    positional.add("archive", -1);
    po::variables_map vm;
    if (!parse("unpack", "ARCHIVE... [-o DIR] [--list] [--json] [--flatten] [--keep-setid] [--max-depth N] [--max-total SIZE] [--max-entries N] [--max-ratio R] [--stream-above SIZE] [--window SIZE] [--no-recurse] [--deflate-route automatic|device|host] [--deflate-device-max SIZE] [--deflate-pieces-min SIZE] [--zstd-route automatic|device|host] [--lz4-route automatic|device|host] [--host-below SIZE] [--devices all|N|NAME,...]",
               options, args, vm, &positional))
        return 0;
    if (!vm.count("archive")) throw po::error("give at least one archive");
    ve::unpack_options o;
    o.limits.max_depth = vm["max-depth"].as<unsigned>();
    if (o.limits.max_depth == 0) throw po::error("--max-depth must be at least 1 (the inputs themselves), not 0");
    if (vm.count("max-total")) o.limits.max_total_bytes = parse_size("max-total", vm["max-total"].as<std::string>());
    o.limits.max_entries = vm["max-entries"].as<std::uint64_t>();
    o.limits.max_ratio = vm["max-ratio"].as<std::uint64_t>();
    if (o.limits.max_ratio == 0) throw po::error("--max-ratio must be at least 1, not 0");
    o.limits.ratio_min_bytes = parse_size("ratio-min-size", vm["ratio-min-size"].as<std::string>());
    if (vm.count("stream-above")) o.stream_above_bytes = parse_size("stream-above", vm["stream-above"].as<std::string>());
    if (vm.count("window")) o.window_bytes = parse_size("window", vm["window"].as<std::string>());
    if (o.window_bytes < (std::uint64_t{1} << 20))
        throw po::error("--window must be at least 1M, not " + std::to_string(o.window_bytes) + " bytes");
    o.recurse = !vm.count("no-recurse");
    o.keep_setid = vm.count("keep-setid") > 0;
    o.threads = vm["threads"].as<unsigned>();
    const std::string route = vm["deflate-route"].as<std::string>();
    if (const auto r = ve::deflate_route_from_name(route == "auto" ? "automatic" : route)) o.deflate = *r;
    else throw po::error("--deflate-route must be automatic, device or host, not \"" + route + "\"");
    o.deflate_device_max_bytes = parse_size("deflate-device-max", vm["deflate-device-max"].as<std::string>());
    if (vm.count("deflate-pieces-min"))
        o.deflate_pieces_min_bytes = parse_size("deflate-pieces-min", vm["deflate-pieces-min"].as<std::string>());
    const std::string zroute = vm["zstd-route"].as<std::string>();
    if (const auto r = ve::zstd_route_from_name(zroute == "auto" ? "automatic" : zroute); r && *r != ve::zstd_route::hybrid) o.zstd = *r;
    else throw po::error("--zstd-route must be automatic, device or host, not \"" + zroute + "\"");
    const std::string lroute = vm["lz4-route"].as<std::string>();
    if (const auto r = ve::lz4_route_from_name(lroute == "auto" ? "automatic" : lroute)) o.lz4 = *r;
    else throw po::error("--lz4-route must be automatic, device or host, not \"" + lroute + "\"");
    o.host_below_bytes = parse_size("host-below", vm["host-below"].as<std::string>());
    const bool list = vm.count("list") > 0, json = vm.count("json") > 0;
    o.hash = list || json;
    if (vm.count("output")) o.output_dir = vm["output"].as<std::string>();
    else if (!list && !json) o.output_dir = ".";
    progress_bar bar(!vm.count("no-progress") && ::isatty(2));
    o.progress = [&](const ve::unpack_progress& p) { bar.update(p); };
    // One device unless --devices: its driver starts while the containers are opened. The first
    // decode on the device waits for it, and so does the first write of a run that may use it (a
    // run without its device stops before it writes anything). Inputs under --host-below are
    // decoded on the host: their context is made only if something still asks for it.
    const auto names = vm["archive"].as<std::vector<std::string>>();
    std::vector<std::unique_ptr<input_file>> files;
    std::vector<ve::unpack_input> inputs;
    std::uint64_t input_bytes = 0;
    for (const auto& n : names) {
        files.push_back(std::make_unique<input_file>(n));
        inputs.push_back({n, files.back()->bytes(), files.back()->mapped()});
        input_bytes += inputs.back().bytes.size();
    }
    const bool device_named = o.deflate == ve::deflate_route::device || o.zstd == ve::zstd_route::device || o.lz4 == ve::lz4_route::device;
    const bool all_host = o.deflate == ve::deflate_route::host && o.zstd == ve::zstd_route::host && o.lz4 == ve::lz4_route::host;
    std::optional<vyre::runtime::context> background;
    if (!vm.count("devices"))
        background = (input_bytes < o.host_below_bytes && !device_named) || all_host ? vyre::runtime::context::on_first_use()
                                                                                     : vyre::runtime::context::in_background();
    const auto t0 = std::chrono::steady_clock::now();
    const auto chosen = open_devices(vm);
    std::vector<vyre::runtime::context*> devices;
    if (background) devices.push_back(&*background);
    for (auto& c : chosen) devices.push_back(c.get());
    const auto t_devices = std::chrono::steady_clock::now();
    if (vm.count("flatten") && inputs.size() != 1) throw po::error("--flatten takes one image, not " + std::to_string(inputs.size()) + " inputs");
    if (vm.count("flatten") && devices.size() > 1) throw po::error("--flatten runs on one device (its layers depend on each other), not " + std::to_string(devices.size()));
    ve::unpack_device_stats stats;
    const ve::unpack_report r = vm.count("flatten") ? ve::flatten_image(*devices[0], inputs[0], o) : ve::unpack_on_devices(devices, inputs, o, &stats);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bar.clear();

    std::size_t files_n = 0, dirs = 0, links = 0;
    std::uint64_t bytes = 0;
    for (const auto& e : r.entries) {
        if (e.status != ve::unpack_status::ok) continue;
        if (e.type == ve::unpack_entry_type::file || e.type == ve::unpack_entry_type::hard_link) {
            ++files_n;
            bytes += e.size;
        }
        dirs += e.type == ve::unpack_entry_type::directory;
        links += e.type == ve::unpack_entry_type::symlink;
    }
    const unsigned threads = vyre::util::thread_count(o.threads);
    std::ostringstream fields;
    fields << "\"entries\":" << r.entries.size() << ",\"files\":" << files_n << ",\"directories\":" << dirs
           << ",\"symlinks\":" << links << ",\"bytes\":" << bytes << ",\"refused\":" << r.refused()
           << ",\"corrupt\":" << r.corrupt() << ",\"warnings\":" << r.warnings() << ",\"containers\":" << r.containers << ",\"layers\":" << r.layers
           << ",\"decoded_bytes\":" << r.decoded_bytes << ",\"written_bytes\":" << r.written_bytes
           << ",\"lz4_device_blocks\":" << r.lz4_device_blocks << ",\"lz4_host_blocks\":" << r.lz4_host_blocks << ",\"lz4_dispatches\":" << r.lz4_dispatches
           << ",\"zstd_blocks\":" << r.zstd_blocks << ",\"zstd_dispatches\":" << r.zstd_dispatches
           << ",\"deflate_streams\":" << r.deflate_streams << ",\"deflate_device_streams\":" << r.deflate_device_streams
           << ",\"deflate_dispatches\":" << r.deflate_dispatches << ",\"deflate_piece_streams\":" << r.deflate_piece_streams
           << ",\"deflate_pieces\":" << r.deflate_pieces << ",\"deflate_host_files\":" << r.deflate_host_files
           << ",\"library_streams\":" << r.library_streams << ",\"streamed_archives\":" << r.streamed_archives
           << ",\"stream_windows\":" << r.stream_windows
           << ",\"seconds\":" << seconds
           << ",\"device\":" << json_string(devices_label(devices)) << ",\"devices\":" << devices_json(stats);
    if (json) print_json(std::cout, r, fields.str());
    else if (list) print_list(std::cout, r);
    std::cout << std::flush;

    for (const auto& p : r.problems)
        std::cerr << "vyre unpack: " << ve::unpack_status_name(p.kind) << ": " << printable(p.path) << ": " << printable_message(p.message) << "\n";
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f", seconds);
    std::cerr << "vyre unpack: " << r.entries.size() << " entries (" << files_n << " files, " << dirs << " folders, " << links
              << " symlinks), " << human_bytes(bytes) << "; " << r.containers << " containers in " << r.layers << " layer(s); "
              << r.refused() << " refused, " << r.corrupt() << " corrupt"
              << (r.warnings() ? ", " + std::to_string(r.warnings()) + " warning(s)" : std::string()) << "; " << secs << " s on " << devices_label(devices)
              << " (LZ4: " << r.lz4_device_blocks << " blocks in " << r.lz4_dispatches << " dispatch(es)"
              << (r.lz4_host_blocks ? ", " + std::to_string(r.lz4_host_blocks) + " on the host" : std::string())
              << "; zstd: " << r.zstd_blocks << " blocks in " << r.zstd_dispatches << " dispatch(es); deflate: "
              << r.deflate_streams << " streams, " << r.deflate_device_streams - r.deflate_piece_streams << " on the device in "
              << r.deflate_dispatches << " dispatch(es)"
              << (r.deflate_piece_streams ? ", " + std::to_string(r.deflate_piece_streams) + " in pieces on the device (" +
                                                std::to_string(r.deflate_pieces) + " pieces)"
                                          : std::string())
              << ", " << r.deflate_streams - r.deflate_device_streams << " on " << threads << " host threads"
              << (r.deflate_host_files ? " (" + std::to_string(r.deflate_host_files) + " gzip file(s) inflated whole)" : std::string())
              << (r.library_streams ? "; xz/lzma/bzip2: " + std::to_string(r.library_streams) + " streams on the host" : std::string())
              << (r.streamed_archives ? "; " + std::to_string(r.streamed_archives) + " archive(s) unpacked in " +
                                            std::to_string(r.stream_windows) + " window(s)"
                                      : std::string())
              << ")"
              << (o.output_dir.empty() ? std::string() : "; wrote " + human_bytes(r.written_bytes) + " below " + o.output_dir.string())
              << "\n";
    if (vm.count("timings")) {
        const auto s = timing;
        const auto& u = r.seconds;
        const double setup = std::chrono::duration<double>(t_devices - t0).count();
        const double steps = u.open + u.decode + u.finish + u.layer_files + u.write;
        std::cerr << "vyre unpack: seconds: " << (background ? context_timing(*background) : "device contexts " + s(setup)) << "; open " << s(u.open) << "; decode " << s(u.decode)
                  << " (lz4 " << s(u.lz4) << ", zstd " << s(u.zstd) << ", deflate " << s(u.deflate) << " [plan " << s(u.deflate_plan) << ", output pages " << s(u.deflate_output)
                  << "; then device ready " << s(u.deflate_ready) << ", enqueued " << s(u.deflate_enqueued) << ", batches back "
                  << s(u.deflate_batches) << ", done " << s(u.deflate_device) << "; host until " << s(u.deflate_host) << "], xz/lzma/bzip2 "
                  << s(u.library) << "); finish " << s(u.finish) << "; write " << s(u.write) << "; layers released " << s(u.release)
                  << "; the rest " << s(seconds - setup - steps - u.release) << "\n";
    }
    return finish_command(r.failures() == 0 ? 0 : 1); // warnings alone do not fail the run
}

} // namespace vyre::cli
