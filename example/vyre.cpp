// The vyre command line: one subcommand per job (`vyre devices`, ...). `vyre --help` lists them,
// `vyre SUBCOMMAND --help` explains one.
#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/lower/opencl.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/ops/registry.hpp>
#include <vyre/runtime/device.hpp>

#include <boost/program_options.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace po = boost::program_options;

namespace {

struct subcommand {
    std::string summary;
    std::function<int(const std::vector<std::string>&)> run;
};

// Parses `args` against `options`; prints help and returns false when --help was given.
bool parse(const std::string& name, const std::string& usage, po::options_description& options,
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

int cmd_devices(const std::vector<std::string>& args) {
    po::options_description options("Lists every OpenCL device of every platform, marking the one vyre uses by default");
    options.add_options()("filter", po::value<std::string>()->default_value(""),
                          "only devices whose name or platform contains this text");
    po::variables_map vm;
    if (!parse("devices", "[--filter TEXT]", options, args, vm)) return 0;
    namespace rt = vyre::runtime;
    const auto all = rt::filter_devices(rt::list_devices(), vm["filter"].as<std::string>());
    if (all.empty()) {
        std::cerr << "vyre: no OpenCL device found (is an OpenCL driver such as PoCL installed?)\n";
        return 1;
    }
    std::string chosen;
    try {
        chosen = rt::choose_device().label();
    } catch (const vyre::no_device& e) {
        std::cerr << "vyre: " << e.what() << "\n";
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& d = all[i];
        std::cout << (d.label() == chosen ? "* " : "  ") << i << ": " << d.name << "\n"
                  << "     platform: " << d.platform << " | type: " << rt::device_type_name(d.type)
                  << " | " << d.version << " | driver " << d.driver_version << "\n"
                  << "     compute units: " << d.compute_units
                  << " | global memory: " << (d.global_memory >> 20) << " MiB"
                  << " | max allocation: " << (d.max_allocation >> 20) << " MiB"
                  << " | local memory: " << (d.local_memory >> 10) << " KiB\n";
    }
    std::cout << "(* = default device; choose another with VYRE_DEVICE=<part of its name or platform>)\n";
    return 0;
}

int cmd_emit(const std::vector<std::string>& args) {
    po::options_description options("Prints the OpenCL C that an op lowers to, or writes the kernels of every op");
    options.add_options()("op", po::value<std::string>(), "op id, e.g. primitive.bitwise.xor")(
        "all", "every op of the registry")("list", "list op ids with their versions and summaries")(
        "out", po::value<std::string>(), "with --all: folder to write <op-id>.cl files into (default: print)");
    po::positional_options_description positional;
    positional.add("op", 1);
    po::variables_map vm;
    if (!parse("emit", "<op-id> | --all [--out DIR] | --list", options, args, vm, &positional)) return 0;
    const auto& ops = vyre::ops::registry();
    if (vm.count("list")) {
        for (const auto& op : ops) std::cout << op.id << " v" << op.version << "  " << op.summary << "\n";
        return 0;
    }
    if (vm.count("all")) {
        if (!vm.count("out")) {
            for (const auto& op : ops) std::cout << vyre::lower::to_opencl(op.program()).source << "\n";
            return 0;
        }
        const std::filesystem::path dir = vm["out"].as<std::string>();
        std::filesystem::create_directories(dir);
        for (const auto& op : ops) {
            std::ofstream out(dir / op.kernel_file(), std::ios::binary);
            out << vyre::lower::to_opencl(op.program()).source;
            if (!out) throw std::runtime_error("cannot write " + (dir / op.kernel_file()).string());
        }
        std::cout << "wrote " << ops.size() << " kernels to " << dir.string() << "\n";
        return 0;
    }
    if (!vm.count("op")) throw po::error("give an op id, --all or --list");
    const auto id = vm["op"].as<std::string>();
    const auto* op = vyre::ops::find_op(id);
    if (!op) {
        std::cerr << "vyre emit: no op \"" << id << "\" (vyre emit --list shows them)\n";
        return 2;
    }
    std::cout << vyre::lower::to_opencl(op->program()).source;
    return 0;
}

// ---- decompress ------------------------------------------------------------------------------

// How `vyre decompress` decodes one container format. A format is recognised by the first magic
// number that is not a skippable frame's; add zstd by adding an entry to archive_formats().
struct decompress_settings {
    vyre::ops::compression::lz4_variant variant = vyre::ops::compression::lz4_variant::automatic;
    bool cpu = false;
};
struct decoded {
    std::vector<std::uint8_t> bytes;
    std::string summary; // frames, blocks, where they ran
    std::string where;   // the device, or "CPU"
};
struct archive_format {
    std::string name;
    std::string suffix;
    std::function<bool(std::uint32_t magic)> recognises;
    std::function<decoded(std::span<const std::uint8_t>, const decompress_settings&)> decode; // empty: not supported yet
};

decoded decode_lz4(std::span<const std::uint8_t> file, const decompress_settings& s) {
    namespace cz = vyre::ops::compression;
    decoded d;
    if (s.cpu) {
        const auto layout = vyre::format::parse_lz4_frames(file);
        d.bytes = vyre::format::lz4_decompress_frames_cpu(file);
        d.summary = std::to_string(layout.frames.size()) + " frame(s), " + std::to_string(layout.blocks.size()) + " blocks";
        d.where = "CPU (reference decoder; liblz4 for linked blocks)";
        return d;
    }
    vyre::runtime::context ctx;
    cz::lz4_frames_options options;
    options.variant = s.variant;
    cz::lz4_frames_report r;
    d.bytes = cz::decompress_frames(ctx, file, options, &r);
    d.summary = std::to_string(r.frames) + " frame(s), " + std::to_string(r.blocks) + " blocks: " +
                std::to_string(r.device_blocks) + " on the device in " + std::to_string(r.batches) + " dispatch(es) (" +
                cz::lz4_variant_name(cz::resolve(s.variant, ctx.device())) + " program), " + std::to_string(r.host_blocks) +
                " of linked frames on the host";
    d.where = ctx.device().label();
    return d;
}

// Zstandard: raw/RLE blocks on the device (compression.zstd), compressed blocks on the host
// (libzstd's block API), frames in parallel; prints who did what.
decoded decode_zstd(std::span<const std::uint8_t> file, const decompress_settings& s) {
    namespace cz = vyre::ops::compression;
    decoded d;
    const auto pct = [](std::uint64_t part, std::uint64_t whole) {
        char b[16];
        std::snprintf(b, sizeof b, "%.1f%%", whole ? 100.0 * double(part) / double(whole) : 0.0);
        return std::string(b);
    };
    const auto split = [&](const vyre::format::zstd_decode_stats& st, const char* device, const char* host) {
        const std::uint64_t total = st.device_bytes + st.cpu_bytes;
        return std::to_string(st.frames) + " frame(s), " + std::to_string(st.skippable_frames) + " skippable; " + device + " " +
               std::to_string(st.device_blocks) + " raw/RLE blocks, " + std::to_string(st.device_bytes) + " bytes (" +
               pct(st.device_bytes, total) + "); " + host + " " + std::to_string(st.cpu_blocks) + " blocks, " +
               std::to_string(st.cpu_bytes) + " bytes (" + pct(st.cpu_bytes, total) + ")" +
               (st.redone_blocks ? ", " + std::to_string(st.redone_blocks) + " redone on the host" : "");
    };
    if (s.cpu) {
        auto r = vyre::format::zstd_decompress_cpu_reference(file);
        d.bytes = std::move(r.output);
        d.summary = split(r.stats, "CPU reference decoder", "libzstd block API");
        d.where = "CPU";
        return d;
    }
    vyre::runtime::context ctx;
    vyre::engine::zstd_options options;
    options.variant = s.variant == cz::lz4_variant::reference ? cz::zstd_variant::reference
                      : s.variant == cz::lz4_variant::fast    ? cz::zstd_variant::fast
                                                              : cz::zstd_variant::automatic;
    auto r = vyre::engine::decompress_zstd(ctx, file, options);
    d.bytes = std::move(r.bytes);
    d.summary = std::to_string(r.report.blocks) + " blocks in " + std::to_string(r.report.batches) + " dispatch(es) (" +
                cz::zstd_variant_name(cz::resolve(options.variant, ctx.device())) + " program): " +
                split(r.report.split, "GPU", "CPU (compressed)");
    d.where = ctx.device().label();
    return d;
}

const std::vector<archive_format>& archive_formats() {
    static const std::vector<archive_format> formats = {
        {"LZ4", ".lz4",
         [](std::uint32_t m) { return m == vyre::format::lz4_frame_magic || m == vyre::format::lz4_legacy_magic; },
         decode_lz4},
        {"Zstandard", ".zst", [](std::uint32_t m) { return m == vyre::format::zstd_magic; }, decode_zstd},
    };
    return formats;
}

std::uint32_t le32(std::span<const std::uint8_t> b, std::size_t at) {
    return std::uint32_t{b[at]} | std::uint32_t{b[at + 1]} << 8 | std::uint32_t{b[at + 2]} << 16 | std::uint32_t{b[at + 3]} << 24;
}

// The first magic number after any skippable frames (LZ4 and zstd share their magic range), or 0.
std::uint32_t first_magic(std::span<const std::uint8_t> file) {
    std::size_t at = 0;
    while (at + 4 <= file.size()) {
        const std::uint32_t m = le32(file, at);
        if (m < vyre::format::lz4_skippable_magic_first || m > vyre::format::lz4_skippable_magic_last) return m;
        if (at + 8 > file.size()) return m;
        at += 8 + std::size_t{le32(file, at + 4)};
    }
    return 0;
}

int cmd_decompress(const std::vector<std::string>& args) {
    po::options_description options(
        "Decompresses an archive on the OpenCL device. LZ4 files (frames, legacy frames, skippable frames, concatenated):\n"
        "every block of frames with independent blocks goes to the device in one dispatch; frames with linked blocks\n"
        "are decoded on the host. Zstandard files: every block goes to the device (compression.zstd), which writes raw\n"
        "and RLE blocks; compressed blocks are decoded on the host (libzstd's block API), frames in parallel. Checksums\n"
        "are verified");
    options.add_options()("file", po::value<std::string>(), "input file; its format is detected by its magic number")(
        "output,o", po::value<std::string>(), "output file (default: FILE without its .lz4 or .zst suffix)")(
        "variant", po::value<std::string>()->default_value("automatic"),
        "compression.lz4 / compression.zstd program: reference (one block per invocation, the seed's design), fast, or "
        "automatic (fast on GPUs, reference on CPU devices)")(
        "cpu", "decode on the host instead (reference decoder, liblz4 for linked blocks)")(
        "force,f", "overwrite the output file if it exists");
    po::positional_options_description positional;
    positional.add("file", 1);
    po::variables_map vm;
    if (!parse("decompress", "FILE [-o OUT] [--variant reference|fast|automatic] [--cpu] [--force]", options, args, vm,
               &positional))
        return 0;
    if (!vm.count("file")) throw po::error("give the file to decompress");
    namespace cz = vyre::ops::compression;
    decompress_settings settings;
    const std::string variant = vm["variant"].as<std::string>();
    if (variant == "reference") settings.variant = cz::lz4_variant::reference;
    else if (variant == "fast") settings.variant = cz::lz4_variant::fast;
    else if (variant != "automatic") throw po::error("--variant must be reference, fast or automatic, not \"" + variant + "\"");
    settings.cpu = vm.count("cpu") > 0;

    const std::filesystem::path in = vm["file"].as<std::string>();
    std::ifstream f(in, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + in.string());
    const std::vector<std::uint8_t> file(std::istreambuf_iterator<char>(f), {});
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
    const auto t0 = std::chrono::steady_clock::now();
    const decoded d = format->decode(file, settings);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ofstream o(out, std::ios::binary | std::ios::trunc);
    o.write(reinterpret_cast<const char*>(d.bytes.data()), static_cast<std::streamsize>(d.bytes.size()));
    if (!o) throw std::runtime_error("cannot write " + out.string());
    std::cout << in.string() << " -> " << out.string() << ": " << format->name << ", " << d.summary << "\n"
              << "  " << file.size() << " -> " << d.bytes.size() << " bytes in " << seconds * 1e3 << " ms ("
              << (seconds > 0 ? double(d.bytes.size()) / seconds / 1e9 : 0.0) << " GB/s, device setup and kernel builds "
              << "included) on " << d.where << "\n";
    return 0;
}

std::map<std::string, subcommand> subcommands() {
    return {
        {"decompress", {"decompress an .lz4 or .zst file on the device (vyre decompress FILE [-o OUT])", cmd_decompress}},
        {"devices", {"list OpenCL devices and the default choice", cmd_devices}},
        {"emit", {"print the OpenCL C of an op, or write every op's kernel", cmd_emit}},
    };
}

void print_usage(std::ostream& os) {
    os << "usage: vyre SUBCOMMAND [OPTIONS]   (vyre SUBCOMMAND --help for its options)\n\nsubcommands:\n";
    for (const auto& [name, sc] : subcommands()) os << "  " << name << std::string(12 - name.size(), ' ') << sc.summary << "\n";
    os << "\nenvironment: VYRE_DEVICE selects the device (substring of device or platform name)\n";
}

} // namespace

int main(int argc, char* argv[]) {
    if (argc < 2) {
        print_usage(std::cerr);
        return 2;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        print_usage(std::cout);
        return 0;
    }
    const auto all = subcommands();
    const auto it = all.find(name);
    if (it == all.end()) {
        std::cerr << "vyre: unknown subcommand \"" << name << "\"\n";
        print_usage(std::cerr);
        return 2;
    }
    try {
        return it->second.run(std::vector<std::string>(argv + 2, argv + argc));
    } catch (const po::error& e) {
        std::cerr << "vyre " << name << ": " << e.what() << " (see vyre " << name << " --help)\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "vyre " << name << ": " << e.what() << "\n";
        return 1;
    }
}
