// `vyre scan [--patterns FILE] [-e TEXT]... [--nocase] [--wide] [--json] ARCHIVE|DIR...`: every file
// inside the archives (nested to any depth) and plain files, scanned on the device for literal
// patterns; `--yara RULES` evaluates YARA rules with the device scan as their prefilter. Exit
// status as grep's (0 found, 1 none, 2 error).
#pragma once

#include "common.hpp"
#include "unpack.hpp"

#include <vyre/engine/scan.hpp>
#include <vyre/engine/scan_devices.hpp>
#include <vyre/scan/pattern.hpp>
#if defined(VYRE_HAVE_YARA)
#include <vyre/engine/yara_scan.hpp>
#endif

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace vyre::cli {

// Writes line(out, i) for i = 0..n-1 to stdout, in order. The text is made on `threads` threads (0:
// every core), a block of lines at a time (a run may print millions of findings); each block is
// written before the next is made, so memory stays bounded.
template <class Line>
void write_each(std::size_t n, unsigned threads, Line&& line) {
    constexpr std::size_t piece = 16384, block = 64 * piece;
    std::vector<std::string> texts(block / piece);
    for (std::size_t first = 0; first < n; first += block) {
        const std::size_t count = std::min(block, n - first), pieces = (count + piece - 1) / piece;
        vyre::util::parallel_for(pieces, threads, [&](std::size_t p) {
            std::string& out = texts[p];
            out.clear();
            for (std::size_t i = first + p * piece, end = std::min(first + count, i + piece); i < end; ++i) line(out, i);
        });
        for (std::size_t p = 0; p < pieces; ++p) std::cout.write(texts[p].data(), static_cast<std::streamsize>(texts[p].size()));
    }
}

// The regular files named, and those below the folders named (sorted, symbolic links not followed).
inline std::vector<std::string> scan_paths(const std::vector<std::string>& names) {
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    for (const auto& n : names) {
        if (fs::is_directory(fs::symlink_status(n))) {
            std::vector<std::string> found;
            for (auto it = fs::recursive_directory_iterator(n, fs::directory_options::skip_permission_denied);
                 it != fs::recursive_directory_iterator(); ++it)
            {
                std::error_code ec;
                if (it->is_symlink(ec) || ec) continue;
                if (it->is_regular_file(ec) && !ec) found.push_back(it->path().string());
            }
            std::sort(found.begin(), found.end());
            out.insert(out.end(), found.begin(), found.end());
        } else {
            out.push_back(n);
        }
    }
    return out;
}

// The run's options and inputs, from the command line (shared by patterns and --yara).
inline vyre::engine::scan_archives_options scan_run_options(const po::variables_map& vm) {
    vyre::engine::scan_archives_options o;
    o.scan.max_hits_per_pattern = vm["max-hits"].as<std::uint32_t>();
    o.unpack.limits.max_depth = vm["max-depth"].as<unsigned>();
    if (o.unpack.limits.max_depth == 0) throw po::error("--max-depth must be at least 1, not 0");
    if (vm.count("max-total")) o.unpack.limits.max_total_bytes = parse_size("max-total", vm["max-total"].as<std::string>());
    if (vm.count("stream-above")) o.unpack.stream_above_bytes = parse_size("stream-above", vm["stream-above"].as<std::string>());
    if (vm.count("window")) o.unpack.window_bytes = parse_size("window", vm["window"].as<std::string>());
    if (o.unpack.window_bytes < (std::uint64_t{1} << 20))
        throw po::error("--window must be at least 1M, not " + std::to_string(o.unpack.window_bytes) + " bytes");
    o.unpack.threads = vm["threads"].as<unsigned>();
    o.keep_on_device = !vm.count("via-host");
    return o;
}

struct scan_run_inputs {
    std::vector<std::unique_ptr<input_file>> files;
    std::vector<vyre::engine::unpack_input> inputs;
    explicit scan_run_inputs(const po::variables_map& vm) {
        for (const auto& n : scan_paths(vm["input"].as<std::vector<std::string>>())) {
            files.push_back(std::make_unique<input_file>(n));
            inputs.push_back({n, files.back()->bytes(), files.back()->mapped()});
        }
    }
};

// The --timings words on the archives' steps, shared by patterns and --yara.
inline std::string steps_timing(const vyre::engine::unpack_seconds& u) {
    return "open " + timing(u.open) + "; decode " + timing(u.decode) + " (lz4 " + timing(u.lz4) + ", zstd " + timing(u.zstd) +
           ", deflate " + timing(u.deflate) + " [plan " + timing(u.deflate_plan) + ", output pages " + timing(u.deflate_output) +
           "; then device ready " + timing(u.deflate_ready) + ", enqueued " + timing(u.deflate_enqueued) + ", batches back " +
           timing(u.deflate_batches) + ", done " + timing(u.deflate_device) + "; host until " + timing(u.deflate_host) + "]); finish " +
           timing(u.finish);
}

#if defined(VYRE_HAVE_YARA)
// `t_start`: when the command started (and with it the context).
inline int scan_yara(const po::variables_map& vm, vyre::runtime::context& ctx, std::chrono::steady_clock::time_point t_start) {
    namespace ve = vyre::engine;
    using clock = std::chrono::steady_clock;
    const std::string rules_path = vm["yara"].as<std::string>();
    std::ifstream in(rules_path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the rules file " + rules_path);
    const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ve::scan_archives_options o = scan_run_options(vm);
    progress_bar bar(!vm.count("no-progress") && ::isatty(2));
    o.unpack.progress = [&](const ve::unpack_progress& p) { bar.update(p); };
    const scan_run_inputs run(vm);
    const auto t0 = clock::now();
    const ve::yara_rules rules(source, rules_path);
    const vyre::ops::scan::device_patterns set(ctx, rules.patterns());
    const auto t1 = clock::now();
    const ve::yara_scan_report r = ve::yara_scan_archives(ctx, rules, set, run.inputs, o);
    const auto t2 = clock::now();
    const double seconds = std::chrono::duration<double>(t2 - t0).count();
    bar.clear();
    if (vm.count("json")) {
        std::cout << "{\"matches\":[";
        for (std::size_t i = 0; i < r.matches.size(); ++i)
            std::cout << (i ? ",\n" : "\n") << "{\"rule\":" << json_string(r.matches[i].rule) << ",\"path\":" << json_string(r.matches[i].path) << "}";
        std::cout << "\n],\"problems\":[";
        for (std::size_t i = 0; i < r.unpack.problems.size(); ++i) {
            const auto& p = r.unpack.problems[i];
            std::cout << (i ? ",\n" : "\n") << "{\"path\":" << json_string(p.path) << ",\"status\":\""
                      << ve::unpack_status_name(p.kind) << "\",\"message\":" << json_string(p.message) << "}";
        }
        std::cout << "\n],\"summary\":{\"rules\":" << r.rules << ",\"prefiltered_rules\":" << r.prefiltered_rules
                  << ",\"files\":" << r.files << ",\"files_evaluated\":" << r.files_evaluated << ",\"bytes\":" << r.bytes
                  << ",\"matches\":" << r.matches.size() << ",\"kept_bytes\":" << r.unpack.kept_bytes
                  << ",\"fetched_bytes\":" << r.unpack.fetched_bytes << ",\"seconds\":" << seconds << ",\"device\":" << json_string(ctx.device().label()) << "}}\n";
    } else {
        for (const auto& m : r.matches) std::cout << printable(m.rule) << ' ' << printable(m.path) << '\n';
    }
    std::cout << std::flush;
    for (const auto& p : r.unpack.problems)
        std::cerr << "vyre scan: " << ve::unpack_status_name(p.kind) << ": " << printable(p.path) << ": " << printable_message(p.message) << "\n";
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.3f", seconds);
    std::cerr << "vyre scan: " << r.matches.size() << " matches of " << r.rules << " rules (" << r.prefiltered_rules
              << " prefiltered on the device) in " << r.files << " files (" << human_bytes(r.bytes) << "); libyara evaluated "
              << r.files_evaluated << " files; " << r.unpack.problems.size() << " problem(s); " << secs << " s on " << ctx.device().label()
              << " (" << r.scan_dispatches << " scan dispatch(es); deflate: " << r.unpack.deflate_device_streams << " of "
              << r.unpack.deflate_streams << " streams on the device"
              << (r.unpack.kept_bytes ? "; " + human_bytes(r.unpack.kept_bytes) + " decoded and scanned on the device, " +
                                            human_bytes(r.unpack.fetched_bytes) + " of that read back"
                                      : std::string())
              << ")\n";
    if (vm.count("timings")) {
        const auto& u = r.unpack.seconds;
        const auto between = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
        std::cerr << "vyre scan: seconds: " << context_timing(ctx) << "; rules file and inputs " << timing(between(t_start, t0))
                  << "; rules compiled " << timing(between(t0, t1)) << "; " << steps_timing(u) << "; scan "
                  << timing(u.layer_files) << " (" << r.files_first << " host file(s) of " << human_bytes(ve::yara_early_bytes)
                  << " or more first; uploads " << timing(r.stage.upload) << ", scan calls " << timing(r.stage.calls)
                  << ", reading the " << r.read_back_files << " candidates left on the device back " << timing(r.read_back_seconds)
                  << " in " << r.read_back_calls << " call(s), of which waiting for their program " << timing(r.read_back_program_seconds)
                  << ", waiting for libyara " << timing(r.libyara_waited_seconds)
                  << "); libyara " << timing(r.libyara_seconds) << " of its threads' time beside the steps, the largest file it evaluated "
                  << r.largest_evaluated << " bytes; layers released " << timing(u.release) << "; the rest "
                  << timing(between(t1, t2) - (u.open + u.decode + u.finish + u.layer_files + u.write + u.release))
                  << "; printing " << timing(between(t2, clock::now())) << "; total " << timing(between(t_start, clock::now()))
                  << "\n";
    }
    return finish_command(r.matches.empty() ? 1 : 0);
}
#else
inline int scan_yara(const po::variables_map&, vyre::runtime::context&, std::chrono::steady_clock::time_point) {
    throw std::runtime_error("--yara: this vyre was built without libyara (Debian: libyara-dev)");
}
#endif

inline int cmd_scan(const std::vector<std::string>& args) {
    namespace ve = vyre::engine;
    namespace vs = vyre::scan;
    po::options_description options(
        "Scans every file inside archives and compressed streams (LZ4, zstd, gzip, tar, ZIP, nested to any depth, opened\n"
        "as `vyre unpack` opens them) and every plain file, on the OpenCL device, for literal patterns. Prints one line\n"
        "per hit: PATH:OFFSET:PATTERN (PATH as outer.tgz!/package/lib/x.js, OFFSET of the match's first byte in that\n"
        "file). Exit status: 0 when something was found, 1 when nothing was, 2 on an error");
    options.add_options()("input", po::value<std::vector<std::string>>(), "archives, files and folders (searched recursively)")(
        "patterns,f", po::value<std::vector<std::string>>(), "a file of literal patterns, one per line (as grep -F -f)")(
        "regexp,e", po::value<std::vector<std::string>>(), "a literal pattern (repeatable)")(
        "nocase,i", "ASCII letters match either case")(
        "wide", "also match each pattern's UTF-16LE form (each byte followed by a zero byte)")(
        "yara", po::value<std::string>(), "a YARA rules file: print `RULE PATH` for every rule that matches a file (as yara -r), "
        "libyara evaluating the rules on the files the device scan lets through")(
        "json", "print hits, per-pattern counts and problems as one JSON document")(
        "max-hits", po::value<std::uint32_t>()->default_value(10000), "hits printed per pattern at most (all are counted)")(
        "max-depth", po::value<unsigned>()->default_value(8), "containers opened one inside another at most")(
        "max-total", po::value<std::string>(), "bytes the decoders may produce in all (as vyre unpack --max-total)")(
        "stream-above", po::value<std::string>(), "compressed tars with more content are scanned in windows (as vyre unpack --stream-above)")(
        "window", po::value<std::string>(), "bytes of whole tar entries scanned at a time from such a tar (as vyre unpack --window)")(
        "threads", po::value<unsigned>()->default_value(0), "host threads (0: every hardware thread)")(
        "timings", "print where the time went on stderr: setup, each step of the archives' layers, the scan, printing")(
        "via-host", "bring every file the device decodes to host memory and upload it again to scan it (by default it is "
        "scanned where it was decoded; this is for comparison)")(
        "devices", po::value<std::vector<std::string>>(),
        "spread the inputs over several OpenCL devices, as vyre unpack --devices (literal patterns; not with --yara)")(
        "no-progress", "no progress bar (it is drawn on stderr only when stderr is a terminal)");
    po::positional_options_description positional;
    positional.add("input", -1);
    po::variables_map vm;
    if (!parse("scan", "[--patterns FILE] [-e TEXT]... [--nocase] [--wide] [--yara RULES] [--json] [--max-hits N] [--devices all|N|NAME,...] ARCHIVE|DIR...", options, args, vm,
               &positional))
        return 0;
    try {
        if (!vm.count("input")) throw po::error("give at least one archive, file or folder");
        using clock = std::chrono::steady_clock;
        const auto t_start = clock::now();
        // One device unless --devices: its driver starts while the patterns and inputs are read and
        // the containers opened (the scan's first use of it waits).
        std::optional<vyre::runtime::context> background;
        if (!vm.count("devices")) background = vyre::runtime::context::in_background();
        vs::literal_flags flags{vm.count("nocase") > 0, true, vm.count("wide") > 0};
        std::vector<vs::pattern> patterns;
        if (vm.count("patterns"))
            for (const auto& f : vm["patterns"].as<std::vector<std::string>>()) {
                std::ifstream in(f, std::ios::binary);
                if (!in) throw std::runtime_error("cannot read the patterns file " + f);
                const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
                for (auto& p : vs::literal_lines(text, flags)) patterns.push_back(std::move(p));
            }
        if (vm.count("regexp"))
            for (const auto& t : vm["regexp"].as<std::vector<std::string>>()) patterns.push_back(vs::literal_pattern(t, t, flags));
        if (vm.count("yara")) {
            if (!patterns.empty()) throw po::error("--yara takes no --patterns or -e: the rules' strings are the patterns");
            if (vm.count("devices")) throw po::error("--yara runs on one device: --devices is for literal patterns");
            return scan_yara(vm, *background, t_start);
        }
        if (patterns.empty()) throw po::error("no patterns: give --patterns FILE, -e TEXT or --yara RULES");

        ve::scan_archives_options o = scan_run_options(vm);
        progress_bar bar(!vm.count("no-progress") && ::isatty(2));
        o.unpack.progress = [&](const ve::unpack_progress& p) { bar.update(p); };

        const scan_run_inputs run(vm);
        const auto& inputs = run.inputs;
        const auto t0 = clock::now();
        const auto chosen = open_devices(vm);
        std::vector<vyre::runtime::context*> devices;
        if (background) devices.push_back(&*background);
        for (auto& c : chosen) devices.push_back(c.get());
        std::vector<std::unique_ptr<const vyre::ops::scan::device_patterns>> tables; // one copy per device
        std::vector<const vyre::ops::scan::device_patterns*> sets;
        for (auto* c : devices) {
            tables.push_back(std::make_unique<const vyre::ops::scan::device_patterns>(*c, patterns));
            sets.push_back(tables.back().get());
        }
        const auto& set = *sets[0];
        const auto t1 = clock::now();
        ve::unpack_device_stats stats;
        const ve::scan_archives_report r = ve::scan_archives_on_devices(devices, sets, inputs, o, &stats);
        const auto t2 = clock::now();
        const double seconds = std::chrono::duration<double>(t2 - t0).count();
        bar.clear();

        const auto& names = set.patterns;
        // Paths and pattern names as printed, each written once: a file or a pattern may have
        // millions of hits.
        const auto each = [](const auto& items, auto&& text) {
            std::vector<std::string> out;
            out.reserve(items.size());
            for (const auto& x : items) out.push_back(text(x));
            return out;
        };
        if (vm.count("json")) {
            const auto paths = each(r.hit_files, [](const ve::scan_file& f) { return input_of(f.order) + ",\"path\":" + json_string(f.path); });
            const auto pattern_names = each(names, [](const vs::pattern& q) { return json_string(q.name); });
            std::cout << "{\"hits\":[";
            write_each(r.findings.size(), o.unpack.threads, [&](std::string& out, std::size_t i) {
                const auto& f = r.findings[i];
                out += i ? ",\n{\"input\":" : "\n{\"input\":";
                out += paths[f.file];
                out += ",\"offset\":";
                out += std::to_string(f.offset);
                out += ",\"pattern\":";
                out += pattern_names[f.pattern];
                out += '}';
            });
            std::cout << "\n],\"counts\":[";
            bool first = true;
            for (std::size_t q = 0; q < r.counts.size(); ++q) {
                if (r.counts[q] == 0) continue;
                std::cout << (first ? "\n" : ",\n") << "{\"pattern\":" << json_string(names[q].name) << ",\"count\":" << r.counts[q] << "}";
                first = false;
            }
            std::cout << "\n],\"problems\":[";
            for (std::size_t i = 0; i < r.unpack.problems.size(); ++i) {
                const auto& p = r.unpack.problems[i];
                std::cout << (i ? ",\n" : "\n") << "{\"input\":" << input_of(p.order) << ",\"path\":" << json_string(p.path) << ",\"status\":\""
                          << ve::unpack_status_name(p.kind) << "\",\"message\":" << json_string(p.message) << "}";
            }
            std::cout << "\n],\"summary\":{\"files\":" << r.files << ",\"bytes\":" << r.bytes << ",\"hits\":" << r.findings.size()
                      << ",\"capped_patterns\":" << r.capped_patterns << ",\"scan_dispatches\":" << r.scan_dispatches
                      << ",\"kept_bytes\":" << r.kept_bytes << ",\"fetched_bytes\":" << r.unpack.fetched_bytes
                      << ",\"seconds\":" << seconds << ",\"device\":" << json_string(devices_label(devices))
                      << ",\"devices\":" << devices_json(stats) << "}}\n";
        } else {
            const auto paths = each(r.hit_files, [](const ve::scan_file& f) { return printable(f.path); });
            const auto pattern_names = each(names, [](const vs::pattern& q) { return printable(q.name); });
            write_each(r.findings.size(), o.unpack.threads, [&](std::string& out, std::size_t i) {
                const auto& f = r.findings[i];
                out += paths[f.file];
                out += ':';
                out += std::to_string(f.offset);
                out += ':';
                out += pattern_names[f.pattern];
                out += '\n';
            });
        }
        std::cout << std::flush;
        for (const auto& p : r.unpack.problems)
            std::cerr << "vyre scan: " << ve::unpack_status_name(p.kind) << ": " << printable(p.path) << ": " << printable_message(p.message) << "\n";
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.3f", seconds);
        std::cerr << "vyre scan: " << r.findings.size() << " hits of " << names.size() << " patterns in " << r.files << " files ("
                  << human_bytes(r.bytes) << ")"
                  << (r.capped_patterns ? "; " + std::to_string(r.capped_patterns) + " pattern(s) over --max-hits, counted only" : std::string())
                  << "; " << r.unpack.problems.size() << " problem(s); " << secs << " s on " << devices_label(devices) << " ("
                  << r.scan_dispatches << " scan dispatch(es); deflate: " << r.unpack.deflate_device_streams << " of "
                  << r.unpack.deflate_streams << " streams on the device"
                  << (r.unpack.kept_bytes ? "; " + human_bytes(r.kept_bytes) + " scanned where the device decoded it, " +
                                                human_bytes(r.unpack.fetched_bytes) + " of that read back"
                                          : std::string())
                  << ")\n";
        if (vm.count("timings")) {
            const auto s = timing;
            const auto& u = r.unpack.seconds;
            const auto between = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
            const double run = between(t1, t2);
            const double steps = u.open + u.decode + u.finish + u.layer_files + u.write;
            std::cerr << "vyre scan: seconds: "
                      << (background ? context_timing(*background) : "device contexts " + s(between(t0, t1)) + " (with the pattern tables)")
                      << (background ? "; patterns, inputs and pattern tables " : "; patterns and inputs ")
                      << s(between(t_start, background ? t1 : t0)) << "; " << steps_timing(u)
                      << "; scan " << s(u.layer_files) << " (uploads " << s(r.stage.upload)
                      << ", scan calls " << s(r.stage.calls) << ", findings " << s(r.stage.findings) << ", these with the plain inputs')" << "; layers released " << s(u.release)
                      << "; findings ordered " << s(r.stage.order) << "; the rest (plain inputs, sorting entries) "
                      << s(run - steps - u.release - r.stage.order)
                      << "; printing " << s(between(t2, clock::now())) << "; total " << s(between(t_start, clock::now())) << "\n";
        }
        std::uint64_t total = 0;
        for (const auto c : r.counts) total += c;
        return finish_command(total > 0 ? 0 : 1);
    } catch (const po::error&) {
        throw;
    } catch (const std::exception& e) {
        std::cerr << "vyre scan: " << e.what() << "\n";
        return 2;
    }
}

} // namespace vyre::cli
