// `vyre decompress FILE`: an .lz4, .zst or .gz file decoded on the device (format found by magic number).
#pragma once

#include "common.hpp"

#include <vyre/engine/deflate_decompress.hpp>
#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/engine/page_file.hpp>
#include <vyre/format/page_file.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/ops/compression/lz4_pages.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/host_bytes.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <iostream>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace vyre::cli {

// How `vyre decompress` decodes one container format. A format is recognised by the first magic
// number that is not a skippable frame's; add one by adding an entry to archive_formats().
struct decompress_settings {
    vyre::ops::block_variant variant = vyre::ops::block_variant::automatic;
    std::string route = "automatic"; // Zstandard and gzip, each reads it as its own routes ("auto": automatic)
    vyre::engine::zstd_device_program zstd_program = vyre::engine::zstd_device_program::automatic;
    std::uint64_t zstd_window = 0; // zstd_options::window_bytes
    std::optional<double> zstd_host_share; // zstd_options::host_share
    bool cpu = false;
    // The input is under --host-below and the route automatic: every automatic route takes the
    // host, and the device is not started (as vyre unpack does for small inputs).
    bool small = false;
};
// The device's context, started on a thread of its own (runtime::context::in_background) as soon
// as the command knows it will need one, so that the driver's start-up overlaps reading the input;
// a route that stays on the host never waits for it. An error in making it surfaces at get().
class background_context {
public:
    void start() {
        if (!ctx_) ctx_ = vyre::runtime::context::in_background();
    }
    vyre::runtime::context& get() {
        start();
        ctx_->device(); // waits here, so that an error surfaces at get()
        return *ctx_;
    }
    // The context without waiting for it: for a decoder that asks for the device only if it sends
    // work there (its first use waits, and throws what making it threw).
    vyre::runtime::context& lazy() {
        start();
        return *ctx_;
    }
    bool used() const noexcept { return ctx_ && ctx_->used(); }
    double making_seconds() const { return ctx_->making_seconds(); } // how long the context took to make
    double waited_seconds() const { return ctx_->waited_seconds(); } // of which the command waited for

private:
    std::optional<vyre::runtime::context> ctx_;
};

struct decoded {
    std::span<const std::uint8_t> bytes; // the output, held by `owner`
    std::shared_ptr<const void> owner;
    std::string summary; // frames, blocks, where they ran
    std::string where;   // the device, or "CPU"
    std::string timings; // the decoder's own account of its time, for --timings; may be empty

    template <class Bytes>
    void keep(Bytes&& b) {
        auto held = std::make_shared<std::remove_cvref_t<Bytes>>(std::forward<Bytes>(b));
        bytes = {held->data(), held->size()};
        owner = std::move(held);
    }
};
struct archive_format {
    std::string name;
    std::string suffix;
    std::function<bool(std::uint32_t magic)> recognises;
    std::function<decoded(std::span<const std::uint8_t>, const decompress_settings&, background_context&)> decode; // empty: not supported yet
};

inline decoded decode_lz4(std::span<const std::uint8_t> file, const decompress_settings& s, background_context& device) {
    decoded d;
    if (s.cpu) {
        std::vector<std::uint8_t> out;
        const auto counted = vyre::engine::decompress_lz4_walked(file, out);
        d.keep(std::move(out));
        d.summary = std::to_string(counted.frames) + " frame(s), " + std::to_string(counted.blocks) + " blocks";
        d.where = "CPU (reference decoder; liblz4 for linked blocks)";
        return d;
    }
    // The automatic route asks for the device only where the blocks are small enough for it.
    vyre::runtime::context& ctx = device.lazy();
    vyre::engine::lz4_options options;
    options.variant = s.variant;
    const auto route = vyre::engine::lz4_route_from_name(s.route == "auto" ? "automatic" : s.route);
    if (!route) throw po::error("--route for an LZ4 file must be automatic, device or host, not \"" + s.route + "\"");
    options.route = s.small ? vyre::engine::lz4_route::host : *route;
    vyre::engine::lz4_report r;
    vyre::util::host_bytes out;
    vyre::engine::decompress_lz4(ctx, file, out, options, &r);
    d.keep(std::move(out));
    d.summary = "route " + std::string(vyre::engine::lz4_route_name(options.route)) + (s.small ? " (a file under --host-below)" : "") + ": " +
                std::to_string(r.frames) + " frame(s), " + std::to_string(r.blocks) + " blocks: " +
                std::to_string(r.device_blocks) + " on the device in " + std::to_string(r.batches) + " dispatch(es)" +
                (r.device_blocks != 0 ? std::string(" (") +
                                            vyre::ops::block_variant_name(vyre::ops::resolve<vyre::ops::compression::lz4_op>(s.variant, ctx.device())) +
                                            " program)"
                                      : std::string()) +
                ", " + std::to_string(r.host_blocks) + " on the host (linked frames, and blocks above " +
                std::to_string(vyre::engine::lz4_device_max_block_bytes >> 10) + " KiB on average or on a CPU device: liblz4)";
    d.where = r.device_blocks != 0 ? ctx.device().label()
              : r.walked           ? "CPU (too many tiny blocks to list: reference decoder as a walk reaches them; liblz4 for linked blocks)"
                                   : "CPU (liblz4)";
    return d;
}

// Zstandard: frames routed to the device (compression.zstd), to the host (libzstd), or split
// between them (engine/zstd_decompress.hpp), frames in parallel; prints who did what.
inline decoded decode_zstd(std::span<const std::uint8_t> file, const decompress_settings& s, background_context& device) {
    decoded d;
    const auto pct = [](std::uint64_t part, std::uint64_t whole) {
        char b[16];
        std::snprintf(b, sizeof b, "%.1f%%", whole ? 100.0 * double(part) / double(whole) : 0.0);
        return std::string(b);
    };
    const auto split = [&](const vyre::engine::zstd_decode_stats& st, const char* device, const char* host,
                           const char* device_blocks = "raw/RLE blocks") {
        const std::uint64_t total = st.device_bytes + st.cpu_bytes;
        return std::to_string(st.frames) + " frame(s), " + std::to_string(st.skippable_frames) + " skippable; " + device + " " +
               std::to_string(st.device_blocks) + " " + device_blocks + ", " + std::to_string(st.device_bytes) + " bytes (" +
               pct(st.device_bytes, total) + "); " + host + " " + std::to_string(st.cpu_blocks) + " blocks, " +
               std::to_string(st.cpu_bytes) + " bytes (" + pct(st.cpu_bytes, total) + ")" +
               (st.redone_blocks ? ", " + std::to_string(st.redone_blocks) + " redone on the host" : "");
    };
    if (s.cpu) {
        auto r = vyre::engine::decompress_zstd_host(file);
        d.keep(std::move(r.output));
        d.summary = split(r.stats, "CPU reference decoder", "libzstd block API");
        d.where = "CPU";
        return d;
    }
    vyre::engine::zstd_options options;
    options.variant = s.variant;
    const auto route = vyre::engine::zstd_route_from_name(s.route == "auto" ? "automatic" : s.route);
    if (!route) throw po::error("--route for a Zstandard file must be automatic, hybrid, device or host, not \"" + s.route + "\"");
    options.route = s.small ? vyre::engine::zstd_route::host : *route;
    options.device_program = s.zstd_program;
    options.window_bytes = s.zstd_window;
    options.host_share = s.zstd_host_share;
    // The host route never asks for the device; the others wait for it where they need it.
    vyre::runtime::context& ctx = device.lazy();
    // Into util::host_bytes: a large output is neither zero-filled first nor faulted in by one thread.
    struct {
        vyre::util::host_bytes bytes;
        vyre::engine::zstd_report report;
    } r;
    r.report = vyre::engine::decompress_zstd(ctx, file, r.bytes, options);
    d.keep(std::move(r.bytes));
    const auto& p = r.report.paths;
    d.summary = "route " + std::string(vyre::engine::zstd_route_name(options.route)) + (s.small ? " (a file under --host-below)" : "") +
                ": frames " + std::to_string(p.device) +
                " device / " + std::to_string(p.hybrid) + " hybrid / " + std::to_string(p.host) + " host; " +
                std::to_string(r.report.dispatched_blocks) + " of " + std::to_string(r.report.blocks) + " blocks in " +
                std::to_string(r.report.batches) + " dispatch(es) (" +
                (ctx.used() ? vyre::ops::block_variant_name(vyre::ops::resolve<vyre::ops::compression::zstd_op>(options.variant, ctx.device()))
                            : "no") +
                " program" +
                (r.report.block_batches != 0 ? "; " + std::to_string(r.report.block_batches) + " with every block at once" +
                                                   (r.report.frame_windows != 0
                                                        ? " (" + std::to_string(r.report.frame_windows) + " window(s) of long frames)"
                                                        : std::string()) +
                                                   ", " + std::to_string(r.report.resolve_rounds) + " resolve round(s)"
                                             : std::string()) +
                (r.report.shared_frames != 0 ? "; the host's cores took the last " + std::to_string(r.report.shared_frames) + " frames"
                                             : std::string()) +
                "): " +
                split(r.report.split, "GPU", "CPU",
                      options.route == vyre::engine::zstd_route::device || r.report.block_batches != 0 ? "blocks" : "raw/RLE blocks");
    d.where = ctx.used() ? ctx.device().label() : "CPU (libzstd)";
    char t[160];
    std::snprintf(t, sizeof t, "zstd passes: device done after %.3f, host after %.3f, host waited %.3f for the device", r.report.device_seconds,
                  r.report.host_seconds, r.report.wait_seconds);
    d.timings = t;
    return d;
}

// gzip: the members' deflate streams routed to the device (compression.deflate) or the host
// (libdeflate), when the file's headers say where they are (one member, or BGZF); else the file
// inflated whole on the host (engine/deflate_decompress.hpp). Prints who did what.
inline decoded decode_gzip(std::span<const std::uint8_t> file, const decompress_settings& s, background_context& device) {
    namespace ve = vyre::engine;
    ve::deflate_options options;
    options.variant = s.variant;
    const auto route = s.cpu ? std::optional(ve::deflate_route::host) : ve::deflate_route_from_name(s.route == "auto" ? "automatic" : s.route);
    if (!route) throw po::error("--route for a gzip file must be automatic, device or host, not \"" + s.route + "\"");
    options.route = s.small ? ve::deflate_route::host : *route;
    // The host route never asks for the device; the others wait for it where they need it.
    vyre::runtime::context& ctx = device.lazy();
    ve::gzip_result r = ve::decompress_gzip(ctx, file, options);
    decoded d;
    d.keep(std::move(r.bytes));
    const ve::gzip_report& g = r.report;
    const ve::deflate_report& p = g.deflate;
    d.summary = "route " + std::string(ve::deflate_route_name(options.route)) + (s.small ? " (a file under --host-below)" : "") + ": " +
                std::to_string(g.members) + " member(s)";
    if (p.streams != 0) {
        const std::size_t in_pieces = p.piece_streams - p.piece_fallbacks;
        d.summary += " (" + std::string(vyre::format::gzip_layout_kind_name(g.layout)) + "): " + std::to_string(p.device_streams - in_pieces) +
                     " stream(s) on the device in " + std::to_string(p.batches) + " dispatch(es)";
        if (p.batches != 0)
            d.summary += std::string(" (") +
                         vyre::ops::block_variant_name(vyre::ops::resolve<vyre::ops::compression::deflate_op>(options.variant, ctx.device())) +
                         " program)";
        if (p.piece_streams != 0)
            d.summary += ", " + std::to_string(in_pieces) + " in pieces on the device (" + std::to_string(p.pieces) + " pieces)" +
                         (p.piece_fallbacks ? " (" + std::to_string(p.piece_fallbacks) + " left to the host: " + p.piece_fallback_reason + ")" : "");
        d.summary += ", " + std::to_string(p.host_streams) + " on the host (libdeflate)";
    }
    if (g.whole_on_host) d.summary += "; inflated whole on the host (libdeflate): " + g.host_reason;
    d.where = p.device_streams != 0 ? ctx.device().label() : "CPU (libdeflate)";
    return d;
}

inline const std::vector<archive_format>& archive_formats() {
    static const std::vector<archive_format> formats = {
        {"LZ4", ".lz4",
         [](std::uint32_t m) { return m == vyre::format::lz4_frame_magic || m == vyre::format::lz4_legacy_magic; },
         decode_lz4},
        {"Zstandard", ".zst", [](std::uint32_t m) { return m == vyre::format::zstd_magic; }, decode_zstd},
        // ID1, ID2 and CM (deflate): the FLG byte above them varies.
        {"gzip", ".gz", [](std::uint32_t m) { return (m & 0xFFFFFFu) == 0x088B1Fu; }, decode_gzip},
    };
    return formats;
}

inline std::uint32_t le32(std::span<const std::uint8_t> b, std::size_t at) {
    return std::uint32_t{b[at]} | std::uint32_t{b[at + 1]} << 8 | std::uint32_t{b[at + 2]} << 16 | std::uint32_t{b[at + 3]} << 24;
}

// The first magic number after any skippable frames (LZ4 and zstd share their magic range), or 0.
inline std::uint32_t first_magic(std::span<const std::uint8_t> file) {
    std::size_t at = 0;
    while (at + 4 <= file.size()) {
        const std::uint32_t m = le32(file, at);
        if (m < vyre::compression::skippable_magic_first || m > vyre::compression::skippable_magic_last) return m;
        if (at + 8 > file.size()) return m;
        at += 8 + std::size_t{le32(file, at + 4)};
    }
    return 0;
}

// `vyre decompress --pages FILE`: a page file (vyre compress --pages) restored page by page, on the
// device (compression.lz4) or with --cpu on the host (liblz4). Either way a file that decodes to more
// than `max_output_bytes` is refused before the output is allocated (an 8-byte table entry stands
// for a whole page, so a small hostile file can declare 2048 times its size).
inline int decompress_pages(const std::filesystem::path& in, const std::filesystem::path& out, bool cpu,
                            std::uint64_t max_output_bytes = vyre::format::page_file_default_max_output) {
    const input_file input(in);
    const std::span<const std::uint8_t> file = input.bytes();
    const auto t0 = std::chrono::steady_clock::now();
    const vyre::format::page_file_view v = vyre::format::parse_page_file(file);
    std::vector<std::uint8_t> pages;
    std::string where = "CPU (liblz4)";
    vyre::format::check_page_file_output(v, max_output_bytes); // before any allocation or device setup
    if (cpu) {
        pages = vyre::engine::decompress_page_file_host(v, max_output_bytes);
    } else {
        vyre::runtime::context ctx;
        pages = vyre::engine::decompress_page_file(ctx, v, max_output_bytes);
        where = ctx.device().label();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    write_output_file(out, pages);
    std::cout << in.string() << " -> " << out.string() << ": page file, " << v.records.size() << " pages of " << v.page_size << " bytes\n"
              << "  " << file.size() << " -> " << pages.size() << " bytes in " << seconds * 1e3 << " ms on " << where << "\n";
    return 0;
}

inline int cmd_decompress(const std::vector<std::string>& args) {
    po::options_description options(
        "Decompresses an archive on the OpenCL device (files under --host-below on the host cores). LZ4 files (frames, legacy frames, skippable frames, concatenated):\n"
        "every block of frames with independent blocks goes to a GPU in one dispatch where the blocks average at most\n"
        "128 KiB (the lz4 tool's default 4 MiB blocks, and every block on a CPU device, go to liblz4 on the host\n"
        "cores; --route device or host sends every independent block there); frames with linked blocks are decoded on the host. Zstandard files: each frame is routed (--route): frames of raw/RLE blocks only are\n"
        "regenerated on the device (compression.zstd), frames with compressed blocks are decoded whole on the host\n"
        "(libzstd), frames in parallel; --route device decodes every frame on the device (compression.zstd.frames, or\n"
        "compression.zstd.blocks for every block at once where there are too few frames to fill the device).\n"
        "gzip files: each member's deflate stream is routed (--route) to the device\n"
        "(compression.deflate) or the host (libdeflate) when the headers say where the members are (one member, or\n"
        "BGZF); other files (several plain members) are inflated whole on the host. Checksums are verified");
    options.add_options()("file", po::value<std::string>(), "input file; its format is detected by its magic number")(
        "output,o", po::value<std::string>(), "output file (default: FILE without its .lz4, .zst or .gz suffix)")(
        "variant", po::value<std::string>()->default_value("automatic"),
        "compression.lz4 / compression.zstd / compression.deflate program: reference (one block or stream per "
        "invocation, the seed's design), fast, or automatic (fast on GPUs, reference on CPU devices)")(
        "route", po::value<std::string>()->default_value("automatic"),
        "Zstandard: which frames go where. automatic: frames with a compressed block decoded whole on the host "
        "(libzstd's frame API), the others made on the device, except on a GPU a file of fewer frames than the host has "
        "threads and at least 16 MiB (compression.zstd.blocks), of many frames of up to 64 KiB (compression.zstd.frames) or of many "
        "long frames (compression.zstd.blocks, the host's cores decoding the last of them beside the device), which goes whole to the device; hybrid: every block to the device, which writes the "
        "raw/RLE blocks, compressed blocks on the host with libzstd's block API (the seed's design); host: every frame "
        "on the host; device: every frame regenerated whole on the device, compressed blocks included "
        "(compression.zstd.frames). gzip: device: every member's stream on the device, those of 1 MiB or more in pieces; host: libdeflate on every core; automatic "
        "(or auto): the device for streams of at most engine::deflate_device_max_bytes (256 KiB), larger ones and every stream on CPU devices on the host, "
        "except on a GPU a member of 16 MiB or more (engine::deflate_pieces_min_bytes), which the device decodes in pieces. "
        "LZ4: device: every independent block on the device; host: liblz4 on every core; automatic (or auto): the device where "
        "blocks average at most 128 KiB on a GPU")(
        "zstd-program", po::value<std::string>()->default_value("automatic"),
        "Zstandard, --route device: frames (compression.zstd.frames, a subgroup per frame), blocks "
        "(compression.zstd.blocks, every block at once), or automatic (blocks where too few frames fill the device and they are few or long)")(
        "zstd-window", po::value<std::uint64_t>()->default_value(0),
        "Zstandard on the device into host memory: decode every frame longer than BYTES a window of BYTES of output at a "
        "time (each window reading the end of the one before); 0: 256 MiB")(
        "zstd-host-share", po::value<double>(),
        "Zstandard on the device route: the share of the output, in [0, 1), whose frames (the file's last) the host's cores "
        "decode with libzstd beside the device (default: none with --route device; with automatic, 0.4 on 16 threads for long frames)")(
        "cpu", "decode on the host instead (reference decoder, liblz4 for linked blocks; gzip: libdeflate)")(
        "host-below", po::value<std::string>()->default_value("64M"),
        "with the automatic route, a file smaller than this is decoded on the host cores (libzstd, liblz4, libdeflate) "
        "and the device's driver is not started: its start-up costs more than the device saves there (0: never)")(
        "force,f", "overwrite the output file if it exists")(
        "timings", "print where the time went on stderr: reading, the device context (made while the file is read), "
                   "decoding and the programs it loaded, writing")(
        "pages", "FILE is a page file (vyre compress --pages); the output is the pages (default name: FILE without .vypg)")(
        "max-output", po::value<std::uint64_t>()->default_value(vyre::format::page_file_default_max_output),
        "with --pages: refuse a page file that decodes to more than BYTES (checked before allocating; default 16 GiB)");
    po::positional_options_description positional;
    positional.add("file", 1);
    po::variables_map vm;
    if (!parse("decompress", "FILE [-o OUT] [--variant reference|fast|automatic] [--route automatic|hybrid|device|host] [--zstd-program automatic|frames|blocks] [--zstd-window BYTES] [--zstd-host-share S] [--host-below SIZE] [--cpu] [--force] [--pages [--max-output BYTES]]", options, args, vm,
               &positional))
        return 0;
    if (!vm.count("file")) throw po::error("give the file to decompress");
    decompress_settings settings;
    const std::string variant = vm["variant"].as<std::string>();
    const auto chosen = vyre::ops::block_variant_from_name(variant);
    if (!chosen) throw po::error("--variant must be reference, fast or automatic, not \"" + variant + "\"");
    settings.variant = *chosen;
    settings.cpu = vm.count("cpu") > 0;
    const std::string program = vm["zstd-program"].as<std::string>();
    const auto zstd_program = vyre::engine::zstd_device_program_from_name(program);
    if (!zstd_program) throw po::error("--zstd-program must be automatic, frames or blocks, not \"" + program + "\"");
    settings.zstd_program = *zstd_program;
    settings.zstd_window = vm["zstd-window"].as<std::uint64_t>();
    if (vm.count("zstd-host-share")) {
        const double share = vm["zstd-host-share"].as<double>();
        if (!(share >= 0 && share < 1)) throw po::error("--zstd-host-share must lie in [0, 1), not " + std::to_string(share));
        settings.zstd_host_share = share;
    }
    settings.route = vm["route"].as<std::string>(); // each format's decoder reads it as its own routes
    if (settings.route != "auto" && !vyre::engine::zstd_route_from_name(settings.route) &&
        !vyre::engine::deflate_route_from_name(settings.route))
        throw po::error("--route must be automatic (or auto), hybrid, device or host, not \"" + settings.route + "\"");

    const std::filesystem::path in = vm["file"].as<std::string>();
    if (!vm["max-output"].defaulted() && !vm.count("pages")) throw po::error("--max-output applies to page files: give --pages");
    if (vm.count("pages")) {
        std::filesystem::path out;
        if (vm.count("output")) out = vm["output"].as<std::string>();
        else if (in.extension() == ".vypg") out = in.parent_path() / in.stem();
        else throw po::error("cannot name the output: " + in.string() + " does not end in .vypg; give -o OUT");
        if (std::filesystem::exists(out) && !vm.count("force")) {
            std::cerr << "vyre decompress: " << out.string() << " exists; give --force to overwrite it\n";
            return 1;
        }
        return decompress_pages(in, out, settings.cpu, vm["max-output"].as<std::uint64_t>());
    }
    using clock = std::chrono::steady_clock;
    const auto t_start = clock::now();
    // The driver starts while the file is read, unless the file is small enough for the host
    // (--host-below; a pipe's size is not known before it is read, so it starts then too).
    const std::uint64_t host_below = parse_size("host-below", vm["host-below"].as<std::string>());
    const bool automatic = settings.route == "automatic" || settings.route == "auto";
    std::error_code size_error;
    const std::uint64_t known_size = std::filesystem::is_regular_file(in, size_error) ? std::filesystem::file_size(in, size_error) : UINT64_MAX;
    background_context device;
    if (!settings.cpu && (!automatic || size_error || known_size >= host_below)) device.start();
    const input_file input(in);
    const std::span<const std::uint8_t> file = input.bytes();
    settings.small = !settings.cpu && automatic && file.size() < host_below;
    const auto t_read = clock::now();
    const std::uint32_t magic = first_magic(file);
    const archive_format* format = nullptr;
    for (const auto& candidate : archive_formats())
        if (candidate.recognises(magic)) format = &candidate;
    if (!format) {
        std::cerr << "vyre decompress: " << in.string() << " is not a format vyre decodes (first magic number 0x" << std::hex
                  << magic << std::dec << ")\n";
        return 1;
    }
    if (!format->decode) {
        std::cerr << "vyre decompress: " << in.string() << " is a " << format->name << " file; vyre does not decode "
                  << format->name << " files yet\n";
        return 1;
    }
    std::filesystem::path out;
    if (vm.count("output")) {
        out = vm["output"].as<std::string>();
    } else if (in.extension() == format->suffix) {
        out = in.parent_path() / in.stem();
    } else {
        throw po::error("cannot name the output: " + in.string() + " does not end in " + format->suffix + "; give -o OUT");
    }
    if (std::filesystem::exists(out) && !vm.count("force")) {
        std::cerr << "vyre decompress: " << out.string() << " exists; give --force to overwrite it\n";
        return 1;
    }
    const auto t0 = clock::now();
    const auto builds_before = vyre::runtime::stats().build_nanoseconds.load();
    const decoded d = format->decode(file, settings, device);
    const auto t1 = clock::now();
    const double seconds = std::chrono::duration<double>(t1 - t0).count();
    write_output_file(out, d.bytes);
    const auto t_written = clock::now();
    std::cout << in.string() << " -> " << out.string() << ": " << format->name << ", " << d.summary << "\n"
              << "  " << file.size() << " -> " << d.bytes.size() << " bytes in " << seconds * 1e3 << " ms ("
              << (seconds > 0 ? double(d.bytes.size()) / seconds / 1e9 : 0.0) << " GB/s, device setup and kernel builds "
              << "included) on " << d.where << "\n";
    if (vm.count("timings")) {
        const auto s = [](double x) {
            char b[32];
            std::snprintf(b, sizeof b, "%.3f", x);
            return std::string(b);
        };
        const auto between = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
        const double builds = double(vyre::runtime::stats().build_nanoseconds.load() - builds_before) * 1e-9;
        std::cerr << "vyre decompress: seconds: read " << s(between(t_start, t_read)) << "; device context "
                  << (device.used() ? s(device.making_seconds()) + " (on its own thread from the start; waited " + s(device.waited_seconds()) + ")"
                                    : std::string("none"))
                  << "; decode " << s(seconds) << " (the wait above, and programs loaded or built: " << s(builds) << ", included"
                  << (d.timings.empty() ? std::string() : "; " + d.timings) << ")"
                  << "; write " << s(between(t1, t_written)) << "; total " << s(between(t_start, t_written)) << "\n";
    }
    return finish_command(0);
}

} // namespace vyre::cli
