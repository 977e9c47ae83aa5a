// compression.lz4 against liblz4 on all host cores, same blocks, same run: GB/s of decompressed
// output for both device programs, kernel only (profiling events) and end to end (compressed bytes
// in pinned host memory -> decompressed bytes in pinned host memory, cut into pieces whose
// uploads, kernels and readbacks overlap; see run_variant).
//   bench_lz4 PATH [--mib N] [--block-sizes 4096,65536,...] [--runs N] [--variants reference,fast] [--lanes 32,...]
//             [--windows 0,4096,...] [--blocks 1,2,4,...] [--stages 0,128,...] [--emulated]
//   bench_lz4 --synthetic compressible|incompressible [--mib N] ...
// PATH is a file (its first N MiB) or a folder (its files in sorted path order, concatenated up
// to N MiB, as a tar would hold them). Blocks are made with LZ4_compress_default.
#include "bench_util.hpp"
#include "corpus.hpp"

#include <vyre/ops/compression/lz4.hpp>
#include <vyre/runtime/buffer.hpp>

#include <lz4.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace rt = vyre::runtime;
namespace cz = vyre::ops::compression;
namespace vc = vyre::compression;
namespace vo = vyre::ops;
namespace bcm = boost::compute;
using vyre::bench::median;
using vyre::bench::parallel_for;
using vyre::bench::now_seconds;
using bytes = std::vector<std::uint8_t>;

namespace {

struct settings {
    std::string path;
    std::string synthetic;
    std::size_t mib = 64;
    std::vector<std::size_t> block_sizes = {4096, 65536, 262144, 4194304};
    int runs = 5;
    std::vector<vo::block_variant> variants = {vo::block_variant::reference, vo::block_variant::fast};
    unsigned threads = vyre::util::thread_count();
    bool kernel_only = false;
    bool timeline = false; // print when each step of the best end-to-end run ran
    std::vector<std::uint32_t> lanes = {cz::lz4_fast_lanes}; // widths of the fast program to measure
    std::vector<std::uint32_t> windows = {cz::lz4_fast_window}; // its windows of recent output (0: none)
    std::vector<std::uint32_t> blocks;                          // blocks per workgroup (empty: the device's default)
    std::vector<std::uint32_t> stages = {cz::lz4_fast_stage};   // bytes of input staged per block (0: none)
    std::vector<std::uint32_t> unrolls = {cz::lz4_fast_unroll}; // bytes per lane per copy step
    bool emulated = false; // also the default program with its subgroups emulated
    bool shapes_given = false; // --lanes, --windows, --blocks or --stages: measure those fixed shapes too
};

bytes load_input(const settings& s) {
    const std::size_t limit = s.mib << 20;
    if (!s.synthetic.empty()) {
        bytes b = vyre::bench::synthetic_input(s.synthetic, limit);
        if (b.empty()) {
            std::fprintf(stderr, "--synthetic takes compressible or incompressible\n");
            std::exit(2);
        }
        return b;
    }
    return vyre::bench::read_input_path(s.path, limit, "bench_lz4");
}

// The input cut into blocks of `block` bytes, each compressed with LZ4_compress_default.
struct block_set {
    std::size_t block_size = 0;
    bytes compressed;
    std::vector<vc::block_descriptor> blocks;
    std::uint64_t output_bytes = 0;
};

block_set make_blocks(const bytes& input, std::size_t block, unsigned threads) {
    block_set s;
    s.block_size = block;
    const std::vector<bytes> parts = vyre::bench::lz4_compress_blocks(input, block, threads);
    const std::size_t n = parts.size();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t at = i * block, len = std::min(block, input.size() - at);
        s.blocks.push_back({static_cast<std::uint32_t>(s.compressed.size()), static_cast<std::uint32_t>(parts[i].size()),
                            static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(len), 0});
        s.compressed.insert(s.compressed.end(), parts[i].begin(), parts[i].end());
    }
    s.output_bytes = input.size();
    return s;
}

double liblz4_seconds(const block_set& s, bytes& out, unsigned threads) {
    const double t0 = now_seconds();
    std::atomic<bool> ok{true};
    parallel_for(s.blocks.size(), threads, [&](std::size_t i) {
        const auto& d = s.blocks[i];
        const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(s.compressed.data() + d.input_offset),
                                          reinterpret_cast<char*>(out.data() + d.output_offset), static_cast<int>(d.input_size),
                                          static_cast<int>(d.output_size));
        if (r != static_cast<int>(d.output_size)) ok = false;
    });
    const double t = now_seconds() - t0;
    if (!ok) {
        std::fprintf(stderr, "liblz4 failed to decode a block\n");
        std::exit(1);
    }
    return t;
}

struct device_set {
    bcm::buffer input, descriptors, output, statuses;
    vo::block_launch_params params; // made once, reused by every run of this set
    vo::block_buffers args() const {
        return {input, input_bytes, descriptors, count, output, output_bytes, statuses};
    }
    std::uint64_t input_bytes = 0, output_bytes = 0;
    std::uint32_t count = 0;
};

device_set upload_set(rt::context& ctx, const block_set& s, std::size_t first, std::size_t last) {
    // Descriptors relative to this range of blocks.
    std::vector<vc::block_descriptor> d(s.blocks.begin() + static_cast<std::ptrdiff_t>(first), s.blocks.begin() + static_cast<std::ptrdiff_t>(last));
    const std::uint32_t in0 = d.empty() ? 0 : d.front().input_offset, out0 = d.empty() ? 0 : d.front().output_offset;
    device_set r;
    for (auto& x : d) {
        x.input_offset -= in0;
        x.output_offset -= out0;
    }
    r.count = static_cast<std::uint32_t>(d.size());
    r.input_bytes = d.empty() ? 0 : std::uint64_t{d.back().input_offset} + d.back().input_size;
    r.output_bytes = d.empty() ? 0 : std::uint64_t{d.back().output_offset} + d.back().output_size;
    r.input = rt::allocate(ctx, vyre::runtime::padded_bytes(r.input_bytes), CL_MEM_READ_ONLY);
    r.descriptors = rt::upload(ctx, std::span<const vc::block_descriptor>(d), CL_MEM_READ_ONLY);
    r.output = rt::allocate(ctx, vyre::runtime::padded_bytes(r.output_bytes));
    r.statuses = rt::allocate(ctx, std::max<std::size_t>(d.size(), 1) * sizeof(vc::block_status));
    return r;
}

bool statuses_ok(const std::vector<vc::block_status>& st, const block_set& s, std::size_t first) {
    for (std::size_t i = 0; i < st.size(); ++i)
        if (st[i].code != vc::lz4_error::none || st[i].output_size != s.blocks[first + i].output_size) return false;
    return true;
}

struct figures {
    double kernel_gbs = 0, e2e_gbs = 0;
    std::size_t e2e_depth = 1; // pieces the best end-to-end run was cut into
    bool e2e_streams = false;  // whether it was the `streams` ordering (else `stages`)
    bool e2e_ramp = false;     // whether its pieces grew (else equal pieces)
    std::size_t e2e_in_flight = 0; // streams: kernels at most in flight (0: no limit)
    std::string timeline;      // with --timeline: when each step of the best end-to-end run ran
};

// The program a launch of `blocks` blocks runs: a fixed shape, or the op's own choice per launch.
using kernel_choice = std::function<const vo::block_kernel&(std::uint32_t blocks, std::uint64_t input_bytes, std::uint64_t output_bytes)>;

figures run_variant(rt::context& ctx, const kernel_choice& kernel, const block_set& s, const bytes& input,
                    rt::pinned_host_buffer& pin_in, rt::pinned_host_buffer& pin_out, int runs, bool kernel_only, bool timeline, const char* name) {
    figures f;
    const double out_bytes = double(s.output_bytes);
    // Kernel only: everything on the device, one dispatch over every block.
    device_set all = upload_set(ctx, s, 0, s.blocks.size());
    rt::write(ctx, all.input, s.compressed.data(), s.compressed.size());
    std::vector<double> kt;
    for (int r = 0; r < runs + 1; ++r) {
        auto e = vo::enqueue_blocks(ctx, kernel(static_cast<std::uint32_t>(s.blocks.size()), all.input_bytes, all.output_bytes), all.args(),
                                    all.params);
        e.wait();
        if (r > 0) kt.push_back(vyre::bench::event_seconds(e)); // the first run builds and warms up
    }
    std::vector<vc::block_status> st(s.blocks.size());
    rt::read(ctx, all.statuses, st.data(), st.size() * sizeof(vc::block_status));
    bytes out(s.output_bytes);
    rt::read(ctx, all.output, out.data(), out.size());
    if (!statuses_ok(st, s, 0) || out != input) {
        std::fprintf(stderr, "%s: device output differs from the input (block size %zu): NOT printing figures\n", name, s.block_size);
        std::exit(1);
    }
    f.kernel_gbs = out_bytes / median(kt) / 1e9;
    if (kernel_only) return f;

    // End to end: the blocks cut into `chunks` pieces, each uploaded, decoded and read back, so that
    // one piece's upload, another's kernel and a third's readback can run at once (the two copy
    // directions use separate DMA engines). Two ways of ordering the pieces' steps are timed:
    //   stages   three queues, one per step (uploads, kernels, readbacks), events ordering a piece's
    //            three steps across them;
    //   streams  one queue per piece, its three steps in order on it: the pattern CUDA streams use.
    //            Nothing waits behind another piece's step (on a shared in-order queue, a piece's
    //            upload would wait for an earlier piece's readback), so the copy engines and the
    //            kernels of several pieces run as soon as their inputs are there.
    // More pieces start the readbacks sooner (the first one waits for only one piece's upload and
    // kernel) but give each kernel fewer blocks, and a kernel lasts at least as long as its
    // slowest block however few blocks it has: with one kernel queue (stages) small pieces'
    // kernels add up. Every depth in 1, 2, 4, ..., 32 is timed with both orderings; the best is
    // reported.
    constexpr std::size_t max_pieces = 32;
    std::vector<rt::context> queues;
    for (std::size_t q = 0; q < max_pieces; ++q) queues.emplace_back(bcm::command_queue(ctx.cl_context(), ctx.device().device));
    std::vector<rt::context> profiled;
    if (timeline)
        for (std::size_t q = 0; q < max_pieces; ++q)
            profiled.emplace_back(bcm::command_queue(ctx.cl_context(), ctx.device().device, CL_QUEUE_PROFILING_ENABLE));
    double best = 1e30;
    // Pieces of equal size, or a ramp: the first pieces smaller (weights 1, 2, 4, then 8 for the
    // rest), so that the first readback waits for a small piece's upload and kernel only.
    for (std::size_t chunks = 1; chunks <= std::min(max_pieces, s.blocks.size()); chunks *= 2)
      for (const bool ramp : {false, true}) {
        if (ramp && (chunks < 4 || 8 * chunks > s.blocks.size())) continue;
        std::vector<std::size_t> cut = {0};
        {
            std::vector<std::size_t> weight(chunks, 1);
            if (ramp)
                for (std::size_t c = 0; c < chunks; ++c) weight[c] = std::size_t{1} << std::min<std::size_t>(c, 3);
            std::size_t total = 0, sum = 0;
            for (auto w : weight) total += w;
            for (std::size_t c = 0; c + 1 < chunks; ++c) {
                sum += weight[c];
                cut.push_back(s.blocks.size() * sum / total);
            }
        }
        cut.push_back(s.blocks.size());
        std::vector<device_set> sets;
        for (std::size_t c = 0; c < chunks; ++c) sets.push_back(upload_set(ctx, s, cut[c], cut[c + 1]));
        // Statuses come back into pinned memory too: a read into pageable memory is staged by the
        // driver, which can hold the host thread until the queue reaches it and serialize the pieces.
        rt::pinned_host_buffer pin_statuses(ctx, s.blocks.size() * sizeof(vc::block_status));
        const auto statuses_of = [&](std::size_t c) {
            const auto* first = reinterpret_cast<const vc::block_status*>(pin_statuses.span().data()) + cut[c];
            return std::vector<vc::block_status>(first, first + (cut[c + 1] - cut[c]));
        };
        // One end-to-end pass over `qs`; with `steps`, each piece's three events (queues made with
        // profiling) for the timeline.
        // `in_flight` > 0 (streams only): a piece's kernel also waits for the kernel `in_flight`
        // pieces earlier, so that few kernels share the GPU and they end in order, the first soon.
        const auto pass = [&](std::vector<rt::context>& qs, bool streams, std::size_t in_flight,
                              std::vector<std::array<bcm::event, 3>>* steps) {
            std::vector<bcm::event> kernels;
            rt::context &qs_up = qs[0], &qs_compute = qs[1], &qs_down = qs[2];
            for (std::size_t c = 0; c < chunks; ++c) {
                device_set& d = sets[c];
                const auto& first = s.blocks[cut[c]];
                rt::context& qu = streams ? qs[c] : qs_up;
                rt::context& qk = streams ? qs[c] : qs_compute;
                rt::context& qd = streams ? qs[c] : qs_down;
                const bcm::event uploaded =
                    qu.queue().enqueue_write_buffer_async(d.input, 0, d.input_bytes, pin_in.span().data() + first.input_offset);
                if (!streams) {
                    qu.queue().flush();
                    qk.queue().enqueue_barrier(bcm::wait_list(uploaded));
                } else if (in_flight > 0 && c >= in_flight) {
                    qk.queue().enqueue_barrier(bcm::wait_list(kernels[c - in_flight]));
                }
                const bcm::event decoded =
                    vo::enqueue_blocks(qk, kernel(static_cast<std::uint32_t>(d.count), d.input_bytes, d.output_bytes), d.args(), d.params);
                kernels.push_back(decoded);
                if (!streams) {
                    qk.queue().flush();
                    qd.queue().enqueue_barrier(bcm::wait_list(decoded));
                }
                const bcm::event read =
                    qd.queue().enqueue_read_buffer_async(d.output, 0, d.output_bytes, pin_out.span().data() + first.output_offset);
                qd.queue().enqueue_read_buffer_async(d.statuses, 0, d.count * sizeof(vc::block_status),
                                                     pin_statuses.span().data() + cut[c] * sizeof(vc::block_status));
                qd.queue().flush();
                if (steps) steps->push_back({uploaded, decoded, read});
            }
            for (rt::context& q : qs) q.finish();
        };
        for (const auto& [streams, in_flight] : {std::pair{false, std::size_t{0}}, {true, std::size_t{0}}, {true, std::size_t{2}}, {true, std::size_t{4}}}) {
            if (in_flight >= chunks) continue;
            std::vector<double> et;
            for (int r = 0; r < runs + 1; ++r) {
                std::memset(pin_out.span().data(), 0, s.output_bytes);
                const double t0 = now_seconds();
                pass(queues, streams, in_flight, nullptr);
                if (r > 0) et.push_back(now_seconds() - t0);
            }
            for (std::size_t c = 0; c < chunks; ++c)
                if (!statuses_ok(statuses_of(c), s, cut[c])) {
                    std::fprintf(stderr, "%s: end-to-end statuses wrong: NOT printing figures\n", name);
                    std::exit(1);
                }
            if (std::memcmp(pin_out.span().data(), input.data(), input.size()) != 0) {
                std::fprintf(stderr, "%s: end-to-end output differs from the input: NOT printing figures\n", name);
                std::exit(1);
            }
            if (median(et) < best) {
                best = median(et);
                f.e2e_depth = chunks;
                f.e2e_streams = streams;
                f.e2e_ramp = ramp;
                f.e2e_in_flight = in_flight;
                if (timeline) {
                    // The best arrangement once more on profiling queues: when each step ran.
                    std::vector<std::array<bcm::event, 3>> steps;
                    pass(profiled, streams, in_flight, &steps);
                    const auto at = [](const bcm::event& e, cl_profiling_info what) { return e.get_profiling_info<cl_ulong>(what); };
                    cl_ulong origin = ~cl_ulong(0);
                    for (const auto& st : steps)
                        for (const auto& e : st) origin = std::min(origin, at(e, CL_PROFILING_COMMAND_START));
                    std::ostringstream t;
                    t << "# timeline of " << (streams ? "s" : "x") << chunks << (ramp ? "r" : "")
                      << (in_flight ? "k" + std::to_string(in_flight) : "") << " (ms from the first step's start; upload, kernel, readback)\n";
                    for (std::size_t c = 0; c < steps.size(); ++c) {
                        t << "#   piece " << c << ":";
                        for (const auto& e : steps[c]) {
                            char span[64];
                            std::snprintf(span, sizeof span, " %7.2f-%7.2f", (at(e, CL_PROFILING_COMMAND_START) - origin) * 1e-6,
                                          (at(e, CL_PROFILING_COMMAND_END) - origin) * 1e-6);
                            t << span;
                        }
                        t << "\n";
                    }
                    f.timeline = t.str();
                }
            }
        }
    }
    f.e2e_gbs = out_bytes / best / 1e9;
    return f;
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
    return out;
}

void usage() {
    std::fprintf(stderr,
                 "usage: bench_lz4 PATH | --synthetic compressible|incompressible\n"
                 "       [--mib N (64)] [--block-sizes 4096,65536,262144,4194304] [--runs N (5)]\n"
                 "       [--variants reference,fast] [--threads N (all cores)]\n"
                 "       [--lanes 32,16,... (invocations per block of fixed shapes measured beside the op's choice; default 32)]\n"
                 "       [--windows 0,4096,... (bytes of recent output it keeps in workgroup memory; 0 none; default 0)]\n"
                 "       [--blocks 1,2,4,... (blocks per workgroup of the fixed shapes; default 1)]\n"
                 "       [--stages 0,128,... (bytes of each block's input staged in workgroup memory; 0 none; default 0)]\n"
                 "       [--unrolls 1,4,... (bytes per lane per copy step of the fixed shapes; default 1)]\n"
                 "       [--emulated (also the default program with its subgroups emulated over workgroup memory)]\n"
                 "       [--kernel-only] [--timeline (when each step of the best end-to-end run ran)]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    settings s;
    // The fixed shapes' lists: each option replaces its default list and asks for those shapes.
    const std::map<std::string, std::vector<std::uint32_t>*> shape_lists = {
        {"--lanes", &s.lanes}, {"--windows", &s.windows}, {"--blocks", &s.blocks}, {"--stages", &s.stages}, {"--unrolls", &s.unrolls}};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&] {
            if (i + 1 >= argc) usage();
            return std::string(argv[++i]);
        };
        if (a == "--synthetic") s.synthetic = value();
        else if (a == "--mib") s.mib = std::stoull(value());
        else if (a == "--runs") s.runs = std::max(1, std::stoi(value()));
        else if (a == "--threads") s.threads = static_cast<unsigned>(std::max(1, std::stoi(value())));
        else if (const auto shape = shape_lists.find(a); shape != shape_lists.end()) {
            s.shapes_given = true;
            shape->second->clear();
            for (const auto& v : split(value())) shape->second->push_back(static_cast<std::uint32_t>(std::stoul(v)));
        } else if (a == "--emulated") s.emulated = true;
        else if (a == "--kernel-only") s.kernel_only = true;
        else if (a == "--timeline") s.timeline = true;
        else if (a == "--block-sizes") {
            s.block_sizes.clear();
            for (const auto& b : split(value())) s.block_sizes.push_back(std::stoull(b));
        } else if (a == "--variants") {
            s.variants.clear();
            for (const auto& v : split(value())) {
                if (v == "reference") s.variants.push_back(vo::block_variant::reference);
                else if (v == "fast") s.variants.push_back(vo::block_variant::fast);
                else usage();
            }
        } else if (a == "--help" || a == "-h") usage();
        else if (!a.empty() && a[0] != '-' && s.path.empty()) s.path = a;
        else usage();
    }
    if (s.path.empty() == s.synthetic.empty()) usage();

    rt::context ctx(rt::choose_device(), /*profiling=*/true);
    vyre::bench::print_header(ctx, "bench_lz4: compression.lz4 against liblz4 on all host cores");
    const bytes input = load_input(s);
    const std::string source = s.synthetic.empty() ? s.path : "synthetic-" + s.synthetic;
    const std::string source_label = vyre::bench::input_label(source);
    std::printf("# input: %s, %zu bytes; liblz4 %s on %u threads; %d runs, median\n", source.c_str(), input.size(),
                LZ4_versionString(), s.threads, s.runs);
    if (input.empty()) return 2;

    // (name, series, kernel): "vyre fast" is the op's own choice for each launch (its shape may
    // depend on the launch's block count); --lanes, --windows, --blocks and --stages add fixed shapes.
    struct named_kernel {
        std::string name, series;
        std::unique_ptr<vo::block_kernel> kernel; // null: the op's choice
    };
    std::vector<named_kernel> kernels;
    for (auto v : s.variants) {
        if (v != vo::block_variant::fast) {
            kernels.push_back({vo::block_variant_name(v), std::string("vyre ") + vo::block_variant_name(v),
                               std::unique_ptr<vo::block_kernel>(new vo::block_kernel(cz::lz4_op::kernel(v)))});
            continue;
        }
        kernels.push_back({"fast", "vyre fast", nullptr});
        if (!s.shapes_given) continue;
        const std::vector<std::uint32_t> blocks = s.blocks.empty() ? std::vector<std::uint32_t>{1} : s.blocks;
        for (std::uint32_t lanes : s.lanes)
            for (std::uint32_t window : s.windows)
                for (std::uint32_t per_group : blocks)
                    for (std::uint32_t stage : s.stages)
                        for (std::uint32_t unroll : s.unrolls) {
                            const std::string shape = std::to_string(lanes) + " lanes, window " + std::to_string(window) + ", " +
                                                      std::to_string(per_group) + " blocks/workgroup, stage " + std::to_string(stage) +
                                                      ", unroll " + std::to_string(unroll);
                            kernels.push_back({"fast(" + std::to_string(lanes) + ",w" + std::to_string(window) + ",b" +
                                                   std::to_string(per_group) + ",s" + std::to_string(stage) + ",u" + std::to_string(unroll) + ")",
                                               "vyre fast (" + shape + ")",
                                               std::unique_ptr<vo::block_kernel>(new vo::block_kernel(
                                                   cz::lz4_op::kernel(v, lanes, window, per_group, stage, std::nullopt, unroll)))});
                        }
    }
    if (s.emulated)
        kernels.push_back({"fast(emulated)", "vyre fast (subgroups emulated)",
                           std::unique_ptr<vo::block_kernel>(new vo::block_kernel(
                               cz::lz4_op::kernel(vo::block_variant::fast, vyre::lower::subgroup_lowering::emulated)))});
    const auto choice = [&](const named_kernel& k) -> kernel_choice {
        if (k.kernel) return [&k](std::uint32_t, std::uint64_t, std::uint64_t) -> const vo::block_kernel& { return *k.kernel; };
        return [&ctx](std::uint32_t blocks, std::uint64_t in, std::uint64_t out) -> const vo::block_kernel& {
            return vo::kernel_for<cz::lz4_op>(vo::block_variant::fast, ctx.device(), blocks, in, out);
        };
    };
    for (const auto& k : kernels) {
        if (!k.kernel) {
            std::printf("# %s: the op's choice per launch (subgroups %s)\n", k.name.c_str(),
                        vyre::lower::subgroup_lowering_name(vyre::runtime::native_subgroups(ctx.device())));
            continue;
        }
        const bool subgroups = k.kernel->program.program().subgroup_size != 0;
        std::printf("# %s: %s%s, %u invocations per workgroup\n", k.name.c_str(), subgroups ? "subgroups " : "no subgroups",
                    subgroups ? vyre::lower::subgroup_lowering_name(k.kernel->program.subgroups_on(ctx)) : "",
                    k.kernel->program.program().invocations_per_workgroup());
    }

    // The PCIe reference points: one pinned copy each way of the whole compressed input / output.
    std::printf("# GB/s of decompressed output; e2e: pinned compressed bytes in, pinned decompressed bytes out, best of\n"
                "# 1/2/4/.../32 pieces pipelined over three queues, one per step (shown as xN), or with one queue per\n"
                "# piece (sN); equal pieces, or growing ones (xNr, sNr: weights 1, 2, 4, then 8); with one queue per\n"
                "# piece, at most K kernels in flight (sNkK)\n");
    std::printf("\n%9s %8s %6s %-16s %11s %11s %11s %9s %9s\n", "block", "blocks", "ratio", "program", "kernel GB/s",
                "e2e GB/s", "liblz4 GB/s", "kern/lib", "e2e/lib");
    for (std::size_t block : s.block_sizes) {
        const block_set set = make_blocks(input, block, s.threads);
        const double ratio = double(input.size()) / double(set.compressed.size());
        rt::pinned_host_buffer pin_in(ctx, set.compressed.size()), pin_out(ctx, input.size());
        std::memcpy(pin_in.span().data(), set.compressed.data(), set.compressed.size());

        bytes cpu_out(input.size());
        std::vector<double> ct;
        for (int r = 0; r < s.runs + 1; ++r) {
            const double t = liblz4_seconds(set, cpu_out, s.threads);
            if (r > 0) ct.push_back(t);
        }
        if (cpu_out != input) {
            std::fprintf(stderr, "liblz4 output differs from the input\n");
            return 1;
        }
        const double cpu_gbs = double(input.size()) / median(ct) / 1e9;

        // Pinned transfer bandwidth of this set's bytes, for the end-to-end bound.
        auto d_in = rt::allocate(ctx, vyre::runtime::padded_bytes(set.compressed.size()));
        auto d_out = rt::allocate(ctx, vyre::runtime::padded_bytes(input.size()));
        std::vector<double> h2d, d2h;
        for (int r = 0; r < 3; ++r) {
            auto e1 = pin_in.copy_to_device(d_in, set.compressed.size());
            e1.wait();
            auto e2 = pin_out.copy_from_device(d_out, input.size());
            e2.wait();
            h2d.push_back(vyre::bench::event_seconds(e1));
            d2h.push_back(vyre::bench::event_seconds(e2));
        }
        // Both directions overlapped (PCIe is full duplex): the time the bytes alone need.
        const double bound_s = std::max(median(h2d), median(d2h));
        const double bound_gbs = double(input.size()) / bound_s / 1e9;
        // Whether the driver does overlap them: both copies enqueued at once on two queues, wall time.
        std::vector<double> both;
        {
            rt::context q1(bcm::command_queue(ctx.cl_context(), ctx.device().device));
            rt::context q2(bcm::command_queue(ctx.cl_context(), ctx.device().device));
            for (int r = 0; r < 4; ++r) {
                const double t0 = now_seconds();
                q1.queue().enqueue_write_buffer_async(d_in, 0, set.compressed.size(), pin_in.span().data());
                q2.queue().enqueue_read_buffer_async(d_out, 0, input.size(), pin_out.span().data());
                q1.queue().flush();
                q2.queue().flush();
                q1.finish();
                q2.finish();
                if (r > 0) both.push_back(now_seconds() - t0);
            }
        }

        const auto emit_row = [&](std::size_t x, const std::string& series, const char* metric, double value) {
            vyre::bench::emit({"lz4", ctx.device().label(), source_label, "block_bytes", double(x), series, metric, value});
        };
        emit_row(block, "liblz4 " + std::to_string(s.threads) + " threads", "GB/s", cpu_gbs);
        emit_row(block, "pinned copy bound", "e2e GB/s", bound_gbs);
        emit_row(block, "input", "compression ratio", ratio);
        for (const auto& k : kernels) {
            const auto& [name, series, kernel] = k;
            if (!kernel) {
                const auto& chosen = vo::kernel_for<cz::lz4_op>(vo::block_variant::fast, ctx.device(), static_cast<std::uint32_t>(set.blocks.size()),
                                                                set.compressed.size(), set.output_bytes);
                std::printf("# %zu-byte blocks: one launch of all %zu runs %u lanes per block, %u invocations per workgroup\n", block,
                            set.blocks.size(), chosen.program.program().subgroup_size, chosen.program.program().invocations_per_workgroup());
            }
            const figures f = run_variant(ctx, choice(k), set, input, pin_in, pin_out, s.runs, s.kernel_only, s.timeline, name.c_str());
            const std::string e2e = s.kernel_only ? std::string("-")
                                                  : std::to_string(f.e2e_gbs).substr(0, std::to_string(f.e2e_gbs).find('.') + 3) +
                                                        (f.e2e_streams ? " s" : " x") + std::to_string(f.e2e_depth) + (f.e2e_ramp ? "r" : "") +
                                                        (f.e2e_in_flight ? "k" + std::to_string(f.e2e_in_flight) : "");
            std::printf("%9zu %8zu %6.2f %-16s %11.2f %11s %11.2f %9.2f %9.2f\n", block, set.blocks.size(), ratio, name.c_str(),
                        f.kernel_gbs, e2e.c_str(), cpu_gbs, f.kernel_gbs / cpu_gbs, f.e2e_gbs / cpu_gbs);
            std::fputs(f.timeline.c_str(), stdout);
            emit_row(block, series, "kernel GB/s", f.kernel_gbs);
            if (!s.kernel_only) emit_row(block, series, "e2e GB/s", f.e2e_gbs);
        }
        std::printf("%9s %8s %6s %-16s pinned copies: %.1f GB/s in (compressed), %.1f GB/s out; copy bound %.1f GB/s of output\n",
                    "", "", "", "", double(set.compressed.size()) / median(h2d) / 1e9, double(input.size()) / median(d2h) / 1e9,
                    bound_gbs);
        std::printf("%9s %8s %6s %-16s both copies at once on two queues: %.2f ms (each alone %.2f + %.2f ms) = %.1f GB/s of output\n",
                    "", "", "", "", median(both) * 1e3, median(h2d) * 1e3, median(d2h) * 1e3, double(input.size()) / median(both) / 1e9);
        emit_row(block, "pinned copies at once", "e2e GB/s", double(input.size()) / median(both) / 1e9);
        std::fflush(stdout);
    }
    return 0;
}
