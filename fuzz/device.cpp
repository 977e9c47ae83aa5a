// The device side, on the first OpenCL device (PoCL in CI; VYRE_DEVICE picks another). Byte 0
// picks the mode.
//
// Byte 0 below 0x70: the device decoders (compression.lz4, compression.zstd, compression.deflate)
// on fuzzer-chosen blocks in batches, held to their CPU references byte for byte: every status,
// every byte of every output region (partial outputs and untouched tails alike), and the canary
// bytes between and after the regions. Byte 0 picks the op (mod 3) and the program (reference or
// fast, bit 2); then up to 16 blocks, each a 2-byte little-endian length, a 1-byte output room in
// units of 64 bytes, a 1-byte gap (1..16 canary bytes after the region) and that many bytes.
// Where bit 3 is set and the batch is small (32 KiB in and out at most), the program the device ran
// (for LZ4's fast program, where byte 0 >> 4 mod 3 is 1 or 2, its 16- or 8-lane shape, as NVIDIA
// GPUs run large launches) also runs on the IR's reference interpreter, held to the same reference: the interpreter refuses
// an unchecked access out of bounds (ir::bounds), so a hot loop's promise that its indices are in
// bounds is fuzzed directly, not only through what the device happens to do with a stray access.
//
// Byte 0 from 0x70 to 0x7F: a whole .zst file (the rest) through engine::decompress_zstd's device
// route, into host memory and into device memory: both must fail, or both give the same bytes,
// and those of libzstd where libzstd decodes the file too. Into device memory the device checks
// the frames' checksums itself (bytes.xxh64, frames of up to 256 KiB), into host memory the host
// does; small groups of frames (bits 2-3: 1 to 4 frames per dispatch) exercise the buffer sets the
// groups share, and bits 0-1 pick the program (automatic, frames, blocks, and blocks with every
// frame decoded a block per window into host memory, engine/detail/zstd_window_pass.hpp).
//
// Byte 0 at or above 0x80: the whole `vyre unpack` pipeline (engine::unpack) on the rest,
// extracting into a scratch folder. Beyond "no crash": nothing is written outside the scratch
// folder (the folder that holds it gains nothing, and no link inside it resolves outside it),
// and the decoded bytes stay within the limit set here (64 MiB). Where bit 0 of byte 0 is set, every
// compressed tar is unpacked in windows of 4 KiB (unpack_options::stream_above_bytes 0; with bit 1
// too, zstd on the device route, so that one frame's windows are decoded on the device): there the
// stream's own content counts only while its window is held, so the bound is the limit plus what
// the ratio limit lets the stream make. Slow by fuzzing standards (files are created on every
// run), it finds what the per-format targets cannot: layers opening each other.
// VYRE_FUZZ_DEVICE=blocks (or zstd, or unpack) runs one mode only.
#include <vyre/compression/block.hpp>
#include <vyre/engine/unpack.hpp>
#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/reference/deflate.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/reference/lz4.hpp>
#include <vyre/reference/zstd.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/device.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include <stdlib.h> // mkdtemp
#include <unistd.h> // getpid, write
#include <fcntl.h> // open
#include <signal.h> // sigaction
#include <zstd.h>

namespace {

namespace cz = vyre::ops::compression;
using vyre::compression::block_descriptor;
using vyre::compression::block_status;

constexpr std::uint8_t canary = 0xA5;

// The input being run, so that a failed check can name itself and keep the input: two runs on
// NVIDIA's OpenCL driver ended in SIGABRT with neither libFuzzer's report nor a crash file, so the
// harness writes both itself (to VYRE_FUZZ_FAILURES, default the working folder).
std::span<const std::uint8_t> current_input;

std::string failure_path() {
    const char* dir = std::getenv("VYRE_FUZZ_FAILURES");
    return std::string(dir ? dir : ".") + "/fuzz_device-failure-" + std::to_string(::getpid()) + ".bin";
}

// A SIGABRT keeps the input too, from a check below or from a library. An OpenCL driver built on
// LLVM replaces libFuzzer's SIGABRT handler with LLVM's when it loads (PoCL's libLLVM does, seen
// with strace; the silent aborts on NVIDIA's driver looked the same), and LLVM's returns, after
// which abort() ends the process with no report and no crash file.
// So the handler libFuzzer set is kept before the driver loads; this one, (re)installed before
// every input, writes the input with async-signal-safe calls only, puts libFuzzer's handler back
// and raises the signal again for it, so that libFuzzer reports and writes its crash file too.
char abort_path[4096];
std::size_t abort_path_length = 0;
struct sigaction fuzzer_abort_handler {};

void keep_input_on_abort(int, siginfo_t*, void*) {
    if (!current_input.empty()) {
        const int fd = ::open(abort_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            [[maybe_unused]] const auto written = ::write(fd, current_input.data(), current_input.size());
            ::close(fd);
        }
        static const char note[] = "fuzz_device: SIGABRT; the input is in ";
        [[maybe_unused]] const auto a = ::write(2, note, sizeof note - 1);
        [[maybe_unused]] const auto b = ::write(2, abort_path, abort_path_length);
        [[maybe_unused]] const auto c = ::write(2, "\n", 1);
    }
    ::sigaction(SIGABRT, &fuzzer_abort_handler, nullptr);
    ::raise(SIGABRT); // delivered to libFuzzer's handler once this one returns
}

void install_abort_handler() {
    struct sigaction now {};
    if (::sigaction(SIGABRT, nullptr, &now) != 0) return;
    if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == keep_input_on_abort) return;
    if (abort_path_length == 0) {
        std::snprintf(abort_path, sizeof abort_path, "%s", failure_path().c_str());
        abort_path_length = std::strlen(abort_path);
    }
    struct sigaction mine {};
    mine.sa_sigaction = keep_input_on_abort;
    mine.sa_flags = SA_SIGINFO;
    sigemptyset(&mine.sa_mask);
    ::sigaction(SIGABRT, &mine, nullptr);
}

vyre::runtime::context& device() {
    static vyre::runtime::context ctx; // VYRE_DEVICE picks it, as for the command line
    return ctx;
}

[[noreturn]] void failed(const std::string& why) {
    const std::string path = failure_path();
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(current_input.data(), 1, current_input.size(), f);
        std::fclose(f);
    }
    std::fprintf(stderr, "fuzz_device: check failed: %s (the input, %zu bytes, is in %s)\n", why.c_str(), current_input.size(), path.c_str());
    std::fflush(stderr);
    std::abort();
}

// Blocks compared per op and program, printed when the run ends (doc/reliability.md quotes them).
struct block_counts {
    std::uint64_t n[3][2] = {};
    std::uint64_t interpreted[3] = {}; // of those, also on the interpreter
    ~block_counts() {
        static const char* const ops[3] = {"compression.lz4", "compression.zstd", "compression.deflate"};
        for (int op = 0; op < 3; ++op)
            std::fprintf(stderr, "blocks compared: %s reference %llu, fast %llu (%llu of them also on the interpreter)\n", ops[op],
                         static_cast<unsigned long long>(n[op][0]), static_cast<unsigned long long>(n[op][1]),
                         static_cast<unsigned long long>(interpreted[op]));
    }
} counts;

// Files through the zstd device route, and how many of them decoded (printed when the run ends).
struct zstd_counts {
    std::uint64_t files = 0, decoded = 0, hashed = 0;
    ~zstd_counts() {
        std::fprintf(stderr, "zstd files compared: %llu (%llu decoded, %llu frames hashed on the device)\n",
                     static_cast<unsigned long long>(files), static_cast<unsigned long long>(decoded),
                     static_cast<unsigned long long>(hashed));
    }
} zstd_files;

struct batch {
    std::vector<std::uint8_t> input;
    std::vector<block_descriptor> blocks;
    std::size_t output_bytes = 0;
};

batch read_batch(std::span<const std::uint8_t> in) {
    batch b;
    std::size_t at = 0;
    std::uint32_t out = 0;
    while (b.blocks.size() < 16 && at + 4 <= in.size()) {
        const std::size_t length = std::min<std::size_t>(in[at] | in[at + 1] << 8, in.size() - at - 4);
        const std::uint32_t room = std::uint32_t{in[at + 2]} * 64, gap = 1 + in[at + 3] % 16;
        at += 4;
        b.blocks.push_back({static_cast<std::uint32_t>(b.input.size()), static_cast<std::uint32_t>(length), out, room, 0});
        b.input.insert(b.input.end(), in.begin() + at, in.begin() + at + length);
        at += length;
        out += room + gap;
    }
    b.output_bytes = out;
    return b;
}

template <class Op, class Oracle>
void compare(vyre::runtime::context& ctx, const batch& b, vyre::ops::block_variant variant, Oracle oracle) {
    std::vector<std::uint8_t> want(b.output_bytes, canary), got(b.output_bytes, canary);
    std::vector<block_status> want_status(b.blocks.size()), got_status(b.blocks.size());
    oracle(b.input, b.blocks, std::span(want), std::span(want_status));
    vyre::ops::decode_blocks_into<Op>(ctx, b.input, b.blocks, got, got_status, variant);
    if (got_status != want_status) failed("a block status differs from the CPU reference's");
    if (got != want) failed("output bytes differ from the CPU reference's");
    // Between and after the regions only the canary.
    std::vector<bool> owned(b.output_bytes, false);
    for (const auto& d : b.blocks) std::fill(owned.begin() + d.output_offset, owned.begin() + d.output_offset + d.output_size, true);
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!owned[i] && got[i] != canary) failed("a canary byte outside every output region was overwritten");
}

// The kernel the device ran for `b`, on the reference interpreter, against the same oracle.
// `forced`, where given, is the kernel to interpret instead (a shape the device would not pick for
// so few blocks).
template <class Op, class Oracle>
void interpret(vyre::runtime::context& ctx, const batch& b, vyre::ops::block_variant variant, Oracle oracle, std::uint64_t& count,
               const vyre::ops::block_kernel* forced = nullptr) {
    if (b.input.size() > 32768 || b.output_bytes > 32768) return;
    const auto u = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
    std::uint32_t largest = 1;
    for (const auto& d : b.blocks) largest = std::max(largest, d.output_size);
    const auto& kernel = forced ? *forced : vyre::ops::kernel_for<Op>(variant, ctx.device(), u(b.blocks.size()), b.input.size(), b.output_bytes);
    std::uint32_t slices = 1, groups = (u(b.blocks.size()) + std::max(kernel.blocks_per_workgroup, 1u) - 1) / std::max(kernel.blocks_per_workgroup, 1u);
    if (kernel.slice != 0) {
        slices = std::min(largest / kernel.slice + (largest % kernel.slice != 0), std::max(kernel.max_slices, 1u));
        groups = u(b.blocks.size()) * slices;
    }
    std::vector<std::uint8_t> want(b.output_bytes, canary);
    std::vector<block_status> want_status(b.blocks.size());
    oracle(b.input, b.blocks, std::span(want), std::span(want_status));
    const auto padded = [](std::vector<std::uint8_t> v, std::uint8_t fill) {
        v.resize(vyre::runtime::padded_bytes(v.size()), fill);
        return v;
    };
    std::vector<vyre::reference::buffer_data> buffers(5);
    buffers[0] = padded(b.input, 0x5A);
    buffers[1].resize(b.blocks.size() * sizeof(block_descriptor));
    std::memcpy(buffers[1].data(), b.blocks.data(), buffers[1].size());
    buffers[2] = padded(std::vector<std::uint8_t>(b.output_bytes, canary), canary);
    buffers[3].assign(b.blocks.size() * sizeof(block_status), 0xEE);
    const std::uint32_t params[4] = {u(b.blocks.size()), u(b.input.size()), u(b.output_bytes), slices};
    buffers[4].resize(sizeof params);
    std::memcpy(buffers[4].data(), params, sizeof params);
    try {
        // Races are checked, except on the output where descriptors overlap (then they are the
        // caller's, as compression::check_descriptors says).
        vyre::reference::run_options options = vyre::reference::run_options::checking_races();
        try {
            vyre::compression::check_descriptors(b.blocks, UINT64_MAX, UINT64_MAX);
        } catch (const vyre::format_error&) {
            options.races_allowed_on = {"output"};
        }
        vyre::reference::run(kernel.program.program(), {groups, 1, 1}, buffers, options);
    } catch (const vyre::validation_error& e) {
        failed(std::string("the program on the interpreter: ") + e.what());
    }
    std::vector<block_status> got_status(b.blocks.size());
    std::memcpy(got_status.data(), buffers[3].data(), buffers[3].size());
    if (got_status != want_status) failed("on the interpreter, a block status differs from the CPU reference's");
    if (buffers[2] != padded(want, canary)) failed("on the interpreter, output bytes differ from the CPU reference's");
    count += b.blocks.size();
}

namespace fs = std::filesystem;

struct scratch {
    fs::path root, out;
    scratch() {
        std::string tmpl = (fs::temp_directory_path() / "vyre_fuzz_unpack_XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) std::abort();
        root = tmpl;
        out = root / "out";
    }
    ~scratch() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
};

bool inside(const fs::path& p, const fs::path& folder) {
    const auto rel = p.lexically_normal().lexically_relative(folder.lexically_normal());
    return !rel.empty() && *rel.begin() != "..";
}

// The device decoders on a batch (byte 0 below 0x70).
void blocks(const std::uint8_t* data, std::size_t size) {
    if (size < 5) return;
    vyre::runtime::context& ctx = device();
    const batch b = read_batch(std::span(data + 1, size - 1));
    if (b.blocks.empty() || b.input.empty()) return;
    const auto variant = data[0] & 4 ? vyre::ops::block_variant::fast : vyre::ops::block_variant::reference;
    counts.n[data[0] % 3][data[0] & 4 ? 1 : 0] += b.blocks.size();
    const bool on_interpreter = (data[0] & 8) != 0;
    // LZ4's narrow shapes (8 and 16 lanes a block, as many blocks as fill 64 invocations) are what
    // NVIDIA GPUs run for launches of thousands of blocks, never for a batch this small: where byte
    // 0 >> 4 says so (mod 3: 32, 16 or 8 lanes), the interpreter runs one of them instead.
    static const std::uint32_t lane_choices[3] = {32, 16, 8};
    const std::uint32_t lanes = lane_choices[(data[0] >> 4) % 3];
    const vyre::ops::block_kernel* narrow = nullptr;
    if (data[0] % 3 == 0 && variant == vyre::ops::block_variant::fast && lanes != 32) {
        const auto shape = [](std::uint32_t n) {
            return cz::lz4_op::kernel(vyre::ops::block_variant::fast, n, 0, 64 / n, cz::lz4_fast_stage, vyre::lower::subgroup_lowering::nvidia_ptx);
        };
        static const vyre::ops::block_kernel sixteen = shape(16), eight = shape(8);
        narrow = lanes == 16 ? &sixteen : &eight;
    }
    const auto both = [&]<class Op>(auto oracle) {
        compare<Op>(ctx, b, variant, oracle);
        if (on_interpreter) interpret<Op>(ctx, b, variant, oracle, counts.interpreted[data[0] % 3], narrow);
    };
    switch (data[0] % 3) {
    case 0:
        both.template operator()<cz::lz4_op>([](auto in, auto blocks, auto out, auto st) {
            const auto r = vyre::reference::lz4_decompress(in, blocks, out);
            std::copy(r.begin(), r.end(), st.begin());
        });
        break;
    case 1:
        both.template operator()<cz::zstd_op>([](auto in, auto blocks, auto out, auto st) {
            vyre::reference::zstd_decode_blocks(in, blocks, out, st);
        });
        break;
    default:
        both.template operator()<cz::deflate_op>([](auto in, auto blocks, auto out, auto st) {
            const auto r = vyre::reference::deflate_decompress(in, blocks, out);
            std::copy(r.begin(), r.end(), st.begin());
        });
        break;
    }
}

// A .zst file through the device route both ways (byte 0 from 0x70 to 0x7F).
void zstd_route(std::uint8_t mode, const std::uint8_t* data, std::size_t size) {
    namespace eng = vyre::engine;
    vyre::runtime::context& ctx = device();
    const std::span<const std::uint8_t> file(data, size);
    eng::zstd_options o;
    o.route = eng::zstd_route::device;
    static constexpr eng::zstd_device_program programs[4] = {eng::zstd_device_program::automatic, eng::zstd_device_program::frames,
                                                             eng::zstd_device_program::blocks, eng::zstd_device_program::blocks};
    o.device_program = programs[mode & 3];
    if ((mode & 3) == 3) o.window_bytes = 1; // into host memory only: into device memory stays one dispatch
    o.frames_per_dispatch = 1 + ((mode >> 2) & 3);
    o.batch_input_bytes = 1;
    o.max_output_bytes = std::uint64_t{16} << 20;
    o.threads = 1;
    std::optional<std::vector<std::uint8_t>> host, dev;
    std::string host_error, dev_error;
    try {
        host = eng::decompress_zstd(ctx, file, o).bytes;
    } catch (const vyre::error& e) {
        host_error = e.what();
    }
    try {
        const auto d = eng::decompress_zstd_to_device(ctx, file, o);
        zstd_files.hashed += d.report.device_hashed_frames;
        std::vector<std::uint8_t> back(static_cast<std::size_t>(d.output_bytes));
        if (!back.empty()) vyre::runtime::read(ctx, d.output, back.data(), back.size());
        dev = std::move(back);
    } catch (const vyre::error& e) {
        dev_error = e.what();
    }
    ++zstd_files.files;
    if (host.has_value() != dev.has_value()) // one target accepted what the other refused
        failed(host ? "into device memory refused what into host memory decoded: " + dev_error
                    : "into host memory refused what into device memory decoded: " + host_error);
    if (!host) return;
    ++zstd_files.decoded;
    if (*host != *dev) failed("into host and into device memory gave different bytes");
    // libzstd, where it decodes the file within one byte more than ours gave.
    std::vector<std::uint8_t> theirs(host->size() + 1);
    const std::size_t n = ZSTD_decompress(theirs.data(), theirs.size(), data, size);
    if (!ZSTD_isError(n) && (n != host->size() || !std::equal(host->begin(), host->end(), theirs.begin())))
        failed("libzstd decoded the file to other bytes");
}

// The unpack pipeline on the bytes after byte 0.
void unpack(bool windows, bool route_to_device, const std::uint8_t* data, std::size_t size) {
    static const scratch where;
    vyre::runtime::context& ctx = device();
    std::error_code ec;
    fs::remove_all(where.out, ec);
    vyre::engine::unpack_options o;
    o.output_dir = where.out;
    o.threads = 1;
    o.limits.max_total_bytes = std::uint64_t{64} << 20;
    o.limits.max_entries = 200;
    if (windows) {
        o.stream_above_bytes = 0;
        o.window_bytes = 4096;
        // Bit 1 of byte 0: one zstd frame's windows decoded on the device whatever the device is
        // (engine/detail/unpack_zstd_source.hpp), the host's decoder going on where it stops.
        if (route_to_device) o.zstd = vyre::engine::zstd_route::device;
    }
    const vyre::engine::unpack_input input{"fuzz.bin", std::span<const std::uint8_t>(data, size)};
    vyre::engine::unpack_report r;
    try {
        r = vyre::engine::unpack(ctx, std::span(&input, 1), o);
    } catch (const vyre::error&) {
        return; // a whole-job error (the output folder cannot be made, say); nothing to check
    }
    const std::uint64_t bound = o.limits.max_total_bytes +
                                (r.streamed_archives ? std::max<std::uint64_t>(size * o.limits.max_ratio, o.limits.ratio_min_bytes) : 0);
    if (r.decoded_bytes > bound) failed("unpack decoded more than its limit");
    for (const auto& entry : fs::directory_iterator(where.root))
        if (entry.path().filename() != "out") failed("unpack wrote beside its output folder: " + entry.path().string());
    if (fs::exists(where.out)) {
        for (auto it = fs::recursive_directory_iterator(where.out); it != fs::recursive_directory_iterator(); ++it) {
            if (!it->is_symlink()) continue;
            const fs::path target = fs::read_symlink(it->path());
            const fs::path resolved = target.is_absolute() ? target : it->path().parent_path() / target;
            if (!inside(resolved, where.out)) failed("unpack left a link that leads out: " + it->path().string());
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // VYRE_FUZZ_DEVICE=blocks, =zstd or =unpack keeps one mode (long runs of the fast one, blocks).
    static const std::string only = [] {
        const char* v = std::getenv("VYRE_FUZZ_DEVICE");
        return std::string(v ? v : "");
    }();
    if (size == 0) return 0;
    static const bool fuzzer_handler_kept = ::sigaction(SIGABRT, nullptr, &fuzzer_abort_handler) == 0;
    (void)fuzzer_handler_kept;
    device(); // the driver loaded before the handler goes in
    install_abort_handler();
    current_input = std::span(data, size);
    struct forget_input {
        ~forget_input() { current_input = {}; } // libFuzzer frees the bytes after this call
    } forget;
    const char* mode = data[0] >= 0x80 ? "unpack" : data[0] >= 0x70 ? "zstd" : "blocks";
    if (!only.empty() && only != mode) return 0;
    if (data[0] >= 0x80) unpack((data[0] & 1) != 0, (data[0] & 2) != 0, data + 1, size - 1);
    else if (data[0] >= 0x70) zstd_route(data[0], data + 1, size - 1);
    else blocks(data, size);
    return 0;
}
