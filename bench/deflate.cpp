// compression.deflate against libdeflate on all host cores and zlib on one, same streams, same run:
// GB/s of decompressed bytes for each, and ours / peer. Ours is measured two ways:
//   kernel  one dispatch over every stream, compressed bytes already on the device, time from the
//           OpenCL profiling events (median of the runs after a first that builds and warms up);
//   e2e     compressed bytes in pinned host memory -> decompressed bytes (and statuses) in pinned
//           host memory, the streams cut into 1/2/4/.../32 pieces whose uploads, kernels and
//           readbacks overlap, over three queues, one per step (shown as xN), or one queue per
//           piece (sN); the best is reported (bench_lz4 pipelines the same way).
// The peers: libdeflate_deflate_decompress, streams handed out one at a time to all host threads
// (util/parallel.hpp, as the other benchmarks' host peers), and zlib's inflate (windowBits -15, raw
// DEFLATE) on one thread. Every stream's status, size and bytes are checked against the original,
// for ours and for both peers, before any figure is printed: a wrong stream stops the program with
// exit status 1.
//   bench_deflate PATH [--mib N (256)] [--block-sizes 65536,1048576] [--level L (6)]
//                 [--compressors libdeflate,zlib] [--runs N (5)] [--variant reference|fast|automatic[,...]]
//                 [--threads N] [--no-zlib] [--kernel-only] [--shapes L:S:LB:DB[,...]] [--pieces-kib K[,...] [--pieces-each]]
//   bench_deflate --zip DIR_OR_FILES[,...] [--mib N] ...      (with or without PATH)
//   bench_deflate PATH --one-stream [--mib N] [--piece-kib K (64)] [--search device,host[:F],...] [--level L] [--runs N] [--threads N]
// PATH is a file (its first N MiB) or a folder (its files in sorted path order, concatenated up to
// N MiB, as a tar would hold them), cut into pieces of each block size, each piece compressed as one
// raw DEFLATE stream by each compressor named (libdeflate by default; zlib's deflate with
// windowBits -15), at --level.
// --zip takes ZIP files, or folders searched for *.whl, *.zip and *.jar (sorted paths): every
// deflate entry (method 8) becomes one stream, as stored in the archive, in archive order, until the
// next one would pass N MiB of decompressed bytes (an entry larger than N MiB on its own, an empty
// one, or one the directory marks damaged or encrypted is skipped and counted). Python wheels are
// ZIP files, so a folder of downloaded wheels is benchmarked as published. The expected bytes of an
// entry are libdeflate's output checked against the size and CRC-32 its archive records.
// --one-stream: the first N MiB as ONE raw DEFLATE stream per compressor (a .tar.gz's single
// member), inflated by ops/compression/deflate_split.hpp (split points every K KiB of compressed
// input, found on the device after the upload or on the host threads (--search, a row each; ":F"
// after either sets deflate_split_options::region_factor), the pieces decoded at once on the device) against libdeflate and zlib on one thread each (one
// stream has nothing to share among threads). Times: the search for split points (on the device:
// with the stream's upload); host bytes to decompressed bytes in device memory without the search
// (pieces, join; the upload with a host search); the same plus the bytes read back; all of it;
// each checked byte for byte.
// --pieces-kib K adds a row per K: every stream of the set inflated in pieces of about K KiB of its
// input (ops/compression/deflate_split.hpp, inflate_split_streams: split points found on the
// device, every stream's pieces in the same rounds, one join), from compressed bytes on the device
// to decompressed bytes in device memory, timed on the host clock around the call (several
// launches and their waits), kernel only, every stream checked the same way; --pieces-each adds
// rows of the same with one call per stream, one stream after another.
// --shapes adds fixed shapes of the program beside the variants, one row each: L:S:LB:DB is
// deflate_program(L, S, LB, DB), L lanes per stream (1: the reference program), S streams per
// workgroup, LB and DB table bits of the literal/length and distance codes; the row is labelled
// "LxS LB/DB". Shape rows are kernel only (no end to end), on the same streams, every stream checked
// the same way. A shape this device cannot build (too much workgroup memory, subgroups it cannot
// run, a kernel that cannot launch workgroups that large) prints a row saying so and why; the run
// goes on.
#include "bench_util.hpp"
#include "corpus.hpp"
#include "deflate_streams.hpp"

#include <vyre/format/deflate_split.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/ops/compression/deflate_split.hpp>
#include <vyre/runtime/buffer.hpp>

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace rt = vyre::runtime;
namespace cz = vyre::ops::compression;
namespace vc = vyre::compression;
namespace vo = vyre::ops;
namespace bcm = boost::compute;
namespace vb = vyre::bench;
using vyre::bench::median;
using vyre::bench::now_seconds;
using bytes = std::vector<std::uint8_t>;

namespace {

constexpr std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();

// A decoder that got a stream wrong: no figures.
[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_deflate: %s: NOT printing figures\n", what.c_str());
    std::exit(1);
}

// A setup that cannot run (bad option, unreadable input).
[[noreturn]] void refuse(const std::string& what) {
    std::fprintf(stderr, "bench_deflate: %s\n", what.c_str());
    std::exit(2);
}

struct settings {
    std::string path;
    std::vector<std::string> zip;
    std::size_t mib = 256;
    std::vector<std::size_t> block_sizes = {65536, 1048576};
    int level = 6;
    std::vector<std::string> compressors = {"libdeflate"};
    int runs = 5;
    std::vector<vo::block_variant> variants = {vo::block_variant::automatic};
    unsigned threads = vyre::util::thread_count();
    bool zlib_peer = true;
    bool kernel_only = false;
    // --shapes: fixed shapes of the program measured beside the variants (kernel only).
    struct shape {
        std::uint32_t lanes = 1, streams = 1, literal_bits = 0, distance_bits = 0;
        std::string label() const {
            return std::to_string(lanes) + "x" + std::to_string(streams) + " " + std::to_string(literal_bits) + "/" +
                   std::to_string(distance_bits);
        }
    };
    std::vector<shape> shapes;
    std::vector<std::uint64_t> pieces_kib; // --pieces-kib: rows of every stream in pieces
    bool pieces_each = false;              // --pieces-each: and rows of one stream at a time
};

// A set of streams as our program takes them (vyre::bench::deflate_set with 32-bit block
// descriptors): stream i reads compressed[input_offset, +input_size) and must decode to exactly
// plain[output_offset, +output_size).
struct stream_set {
    std::string input;  // the results' input name
    std::string x_name; // "block_bytes" (x: the block size), or "" (ZIP entries)
    double x = 0;
    std::string size;      // the table's first column: "64 KiB", "ZIP"
    std::string made_with; // "libdeflate-6", "zlib-6", "archives"
    bytes compressed;
    std::shared_ptr<const bytes> plain;
    std::vector<vc::block_descriptor> streams;
};

std::string size_text(std::size_t n) {
    if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
    if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + " KiB";
    return std::to_string(n) + " B";
}

// A set made by bench/deflate_streams.hpp (as bench_nvcomp makes it), in our descriptors; a set
// that cannot be made is refused.
stream_set as_stream_set(const std::function<vb::deflate_set()>& make, std::string x_name, double x, std::string size) {
    vb::deflate_set d;
    try {
        d = make();
    } catch (const vb::stream_error& e) {
        refuse(e.what());
    }
    if (d.compressed.size() > u32_max) refuse("the compressed streams pass 4 GiB; take a smaller --mib");
    stream_set s;
    s.input = std::move(d.input);
    s.x_name = std::move(x_name);
    s.x = x;
    s.size = std::move(size);
    s.made_with = std::move(d.made_with);
    s.compressed = std::move(d.compressed);
    s.plain = std::move(d.plain);
    s.streams.reserve(d.streams.size());
    for (const auto& t : d.streams)
        s.streams.push_back({static_cast<std::uint32_t>(t.input_offset), static_cast<std::uint32_t>(t.input_size),
                             static_cast<std::uint32_t>(t.output_offset), static_cast<std::uint32_t>(t.output_size), 0});
    return s;
}

// ---- checking ----------------------------------------------------------------------------------

// The first of streams [first, first + st.size()) that decoded wrongly, described ("" when none):
// status none with exactly its size, and the original's bytes in its region of `out` (which has
// the set's plain layout).
std::string wrong_stream(const stream_set& s, std::size_t first, std::span<const vc::block_status> st, const std::uint8_t* out) {
    for (std::size_t i = 0; i < st.size(); ++i) {
        const auto& d = s.streams[first + i];
        if (!vo::block_ok(st[i], d.output_size))
            return "stream " + std::to_string(first + i) + ": " + vo::block_failure_text<cz::deflate_op>(st[i], d.output_size);
        if (std::memcmp(out + d.output_offset, s.plain->data() + d.output_offset, d.output_size) != 0)
            return "stream " + std::to_string(first + i) + ": status none, but its bytes differ from the original";
    }
    return {};
}

// ---- the peers ---------------------------------------------------------------------------------

// libdeflate on `threads` threads, one decompressor each, streams handed out one at a time.
double libdeflate_seconds(const stream_set& s, std::uint8_t* out, unsigned threads) {
    std::atomic<bool> ok{true};
    const double t0 = now_seconds();
    vyre::util::parallel_chunks<vb::deflate_decompressor_state>(s.streams.size(), threads, 1,
                                                            [&](std::size_t begin, std::size_t end, vb::deflate_decompressor_state& st) {
        for (std::size_t i = begin; i < end; ++i) {
            const auto& d = s.streams[i];
            std::size_t got = 0;
            if (!st.d ||
                libdeflate_deflate_decompress(st.d, s.compressed.data() + d.input_offset, d.input_size, out + d.output_offset,
                                              d.output_size, &got) != LIBDEFLATE_SUCCESS ||
                got != d.output_size)
                ok = false;
        }
    });
    const double t = now_seconds() - t0;
    if (!ok) fail(s.input + ": libdeflate could not decode a stream to its size");
    return t;
}

// zlib's inflate on this thread, one z_stream reset per stream.
double zlib_seconds(const stream_set& s, std::uint8_t* out) {
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) refuse("inflateInit2 failed");
    bool ok = true;
    const double t0 = now_seconds();
    for (const auto& d : s.streams) {
        if (inflateReset(&z) != Z_OK) {
            ok = false;
            break;
        }
        z.next_in = const_cast<Bytef*>(s.compressed.data() + d.input_offset);
        z.avail_in = d.input_size;
        z.next_out = out + d.output_offset;
        z.avail_out = d.output_size;
        if (inflate(&z, Z_FINISH) != Z_STREAM_END || z.total_out != d.output_size) {
            ok = false;
            break;
        }
    }
    const double t = now_seconds() - t0;
    inflateEnd(&z);
    if (!ok) fail(s.input + ": zlib could not decode a stream to its size");
    return t;
}

// Median GB/s of `runs` timed calls of `once` (after one untimed), the output checked after.
template <class F>
double peer_gbs(const stream_set& s, bytes& out, int runs, const char* name, F once) {
    std::memset(out.data(), 0, out.size()); // nothing left from another decoder
    std::vector<double> t;
    for (int r = 0; r < runs + 1; ++r) {
        const double seconds = once(out.data());
        if (r > 0) t.push_back(seconds);
    }
    if (std::memcmp(out.data(), s.plain->data(), s.plain->size()) != 0) fail(s.input + ": " + name + "'s output differs from the original");
    return double(s.plain->size()) / median(t) / 1e9;
}

// ---- ours --------------------------------------------------------------------------------------

// Streams [first, last) of a set on the device, with descriptors relative to the piece; input_at and
// output_at: where the piece starts in the set's compressed and plain bytes.
struct device_piece {
    std::size_t first = 0, last = 0;
    std::uint64_t input_at = 0, output_at = 0;
    vo::block_buffers buffers;
    vo::block_launch_params params; // made once, reused by every launch of this piece
};

std::unique_ptr<device_piece> make_piece(rt::context& ctx, const stream_set& s, std::size_t first, std::size_t last) {
    auto p = std::make_unique<device_piece>();
    p->first = first;
    p->last = last;
    std::vector<vc::block_descriptor> d(s.streams.begin() + static_cast<std::ptrdiff_t>(first),
                                        s.streams.begin() + static_cast<std::ptrdiff_t>(last));
    p->input_at = d.front().input_offset;
    p->output_at = d.front().output_offset;
    std::uint32_t largest = 1;
    for (auto& x : d) {
        x.input_offset -= static_cast<std::uint32_t>(p->input_at);
        x.output_offset -= static_cast<std::uint32_t>(p->output_at);
        largest = std::max(largest, x.output_size);
    }
    vo::block_buffers& b = p->buffers;
    b.input_bytes = std::uint64_t{d.back().input_offset} + d.back().input_size;
    b.output_bytes = std::uint64_t{d.back().output_offset} + d.back().output_size;
    b.block_count = static_cast<std::uint32_t>(d.size());
    b.largest_output = largest;
    b.input = rt::allocate(ctx, rt::padded_bytes(b.input_bytes), CL_MEM_READ_ONLY);
    b.descriptors = rt::upload(ctx, std::span<const vc::block_descriptor>(d), CL_MEM_READ_ONLY);
    b.output = rt::allocate(ctx, rt::padded_bytes(b.output_bytes));
    b.statuses = rt::allocate(ctx, d.size() * sizeof(vc::block_status));
    // Nothing a kernel did not write can pass the checks: no status, and bytes that are no file's.
    rt::fill(ctx, b.output, 0xA55AA55Au, rt::padded_bytes(b.output_bytes)).wait();
    rt::fill(ctx, b.statuses, 0xFFFFFFFFu, d.size() * sizeof(vc::block_status)).wait();
    return p;
}

struct figures {
    double kernel_gbs = 0, e2e_gbs = 0;
    std::size_t e2e_pieces = 0;
    bool e2e_per_piece = false; // one queue per piece (sN), else one per step (xN)
};

// `fixed`: a program of one shape (--shapes) run for every launch instead of the variant's.
figures run_ours(rt::context& ctx, vo::block_variant variant, const stream_set& s, rt::pinned_host_buffer& pin_in,
                 rt::pinned_host_buffer& pin_out, int runs, bool kernel_only, const std::string& name,
                 const vo::block_kernel* fixed = nullptr) {
    const std::size_t n = s.streams.size();
    const double out_bytes = double(s.plain->size());
    // The op's program for a launch of this piece (it may depend on the launch, as for compression.lz4).
    const auto kernel = [&](const device_piece& p) -> const vo::block_kernel& {
        if (fixed) return *fixed;
        return vo::kernel_for<cz::deflate_op>(variant, ctx.device(), p.buffers.block_count, p.buffers.input_bytes, p.buffers.output_bytes);
    };
    figures f;

    // Kernel only: every stream in one dispatch, input resident.
    {
        auto all = make_piece(ctx, s, 0, n);
        rt::write(ctx, all->buffers.input, s.compressed.data(), s.compressed.size());
        std::vector<double> kt;
        for (int r = 0; r < runs + 1; ++r) {
            bcm::event e = vo::enqueue_blocks(ctx, kernel(*all), all->buffers, all->params);
            e.wait();
            if (r > 0) kt.push_back(vyre::bench::event_seconds(e)); // the first run builds and warms up
        }
        std::vector<vc::block_status> st(n);
        rt::read(ctx, all->buffers.statuses, st.data(), n * sizeof(vc::block_status));
        bytes out(s.plain->size());
        rt::read(ctx, all->buffers.output, out.data(), out.size());
        if (const std::string wrong = wrong_stream(s, 0, st, out.data()); !wrong.empty()) fail(s.input + ", " + name + ", kernel: " + wrong);
        f.kernel_gbs = out_bytes / median(kt) / 1e9;
    }
    if (kernel_only) return f;

    // End to end. Statuses come back into pinned memory too (a read into pageable memory may hold
    // the host thread until the queue gets there, serializing the pieces).
    constexpr std::size_t max_pieces = 32;
    std::vector<rt::context> queues;
    for (std::size_t q = 0; q < max_pieces; ++q) queues.emplace_back(bcm::command_queue(ctx.cl_context(), ctx.device().device));
    rt::pinned_host_buffer pin_statuses(ctx, n * sizeof(vc::block_status));
    const auto* statuses = reinterpret_cast<const vc::block_status*>(pin_statuses.span().data());
    double best = 0;
    for (std::size_t pieces = 1; pieces <= std::min(max_pieces, n); pieces *= 2) {
        std::vector<std::unique_ptr<device_piece>> parts;
        for (std::size_t c = 0; c < pieces; ++c) parts.push_back(make_piece(ctx, s, n * c / pieces, n * (c + 1) / pieces));
        for (const bool per_piece : {false, true}) {
            // One pass: every piece uploaded, decoded and read back; with one queue per step, events
            // order a piece's steps across the queues; with one queue per piece, its queue does.
            const auto pass = [&] {
                for (std::size_t c = 0; c < pieces; ++c) {
                    device_piece& p = *parts[c];
                    rt::context& up = queues[per_piece ? c : 0];
                    rt::context& run = queues[per_piece ? c : 1];
                    rt::context& down = queues[per_piece ? c : 2];
                    const bcm::event uploaded =
                        up.queue().enqueue_write_buffer_async(p.buffers.input, 0, p.buffers.input_bytes, pin_in.span().data() + p.input_at);
                    if (!per_piece) {
                        up.queue().flush();
                        run.queue().enqueue_barrier(bcm::wait_list(uploaded));
                    }
                    const bcm::event decoded = vo::enqueue_blocks(run, kernel(p), p.buffers, p.params);
                    if (!per_piece) {
                        run.queue().flush();
                        down.queue().enqueue_barrier(bcm::wait_list(decoded));
                    }
                    down.queue().enqueue_read_buffer_async(p.buffers.output, 0, p.buffers.output_bytes, pin_out.span().data() + p.output_at);
                    down.queue().enqueue_read_buffer_async(p.buffers.statuses, 0, p.buffers.block_count * sizeof(vc::block_status),
                                                           pin_statuses.span().data() + p.first * sizeof(vc::block_status));
                    down.queue().flush();
                }
                for (rt::context& q : queues) q.finish();
            };
            std::vector<double> et;
            for (int r = 0; r < runs + 1; ++r) {
                std::memset(pin_out.span().data(), 0, s.plain->size());
                std::memset(pin_statuses.span().data(), 0xFF, pin_statuses.size());
                const double t0 = now_seconds();
                pass();
                if (r > 0) et.push_back(now_seconds() - t0);
            }
            const std::string wrong = wrong_stream(s, 0, std::span<const vc::block_status>(statuses, n), pin_out.span().data());
            if (!wrong.empty())
                fail(s.input + ", " + name + ", end to end (" + (per_piece ? "s" : "x") + std::to_string(pieces) + "): " + wrong);
            const double gbs = out_bytes / median(et) / 1e9;
            if (gbs > best) {
                best = gbs;
                f.e2e_pieces = pieces;
                f.e2e_per_piece = per_piece;
            }
        }
    }
    f.e2e_gbs = best;
    return f;
}

// Every stream of the set in pieces (inflate_split_streams, split points every `piece_bytes` of a
// stream's input found on the device), compressed bytes already on the device to decompressed
// bytes in device memory, host clock around the call (it waits for its rounds); the median of
// `runs` after a first, every stream checked after the last.
struct pieces_figures {
    double gbs = 0, search = 0, pieces = 0, join = 0;
    cz::deflate_split_streams_result last;
};

// `each`: one call per stream, one after another (as the deflate engine ran its long streams),
// instead of one call for all.
pieces_figures run_pieces(rt::context& ctx, const stream_set& s, int runs, std::uint64_t piece_bytes, bool each) {
    if (s.compressed.size() > cz::deflate_block_starts_max_stream) refuse("--pieces-kib: the compressed streams pass 2^29 bytes; take a smaller --mib");
    std::vector<cz::deflate_split_stream> described;
    for (const auto& d : s.streams) described.push_back({d.input_offset, d.input_size, d.output_offset, d.output_size});
    auto input = rt::allocate(ctx, rt::padded_bytes(s.compressed.size()), CL_MEM_READ_ONLY);
    rt::write(ctx, input, s.compressed.data(), s.compressed.size());
    auto output = rt::allocate(ctx, rt::padded_bytes(s.plain->size()));
    std::vector<double> t, search, pieces, join;
    pieces_figures f;
    for (int r = 0; r < runs + 1; ++r) {
        rt::fill(ctx, output, 0xA55AA55Au, rt::padded_bytes(s.plain->size())).wait();
        const double t0 = now_seconds();
        if (each) {
            cz::deflate_split_streams_result all;
            for (const auto& d : described) {
                auto one = cz::inflate_split_streams(ctx, input, std::span(&d, 1), piece_bytes, output);
                all.statuses.push_back(one.statuses.at(0));
                all.pieces += one.pieces, all.groups += one.groups, all.rounds += one.rounds, all.false_guesses += one.false_guesses;
                all.cut += one.cut, all.regrown += one.regrown;
                all.search_seconds += one.search_seconds, all.pieces_seconds += one.pieces_seconds, all.join_seconds += one.join_seconds;
            }
            f.last = std::move(all);
        } else {
            f.last = cz::inflate_split_streams(ctx, input, described, piece_bytes, output);
        }
        if (r == 0) continue; // builds the programs
        t.push_back(now_seconds() - t0);
        search.push_back(f.last.search_seconds), pieces.push_back(f.last.pieces_seconds), join.push_back(f.last.join_seconds);
    }
    bytes out(s.plain->size());
    rt::read(ctx, output, out.data(), out.size());
    if (const std::string wrong = wrong_stream(s, 0, f.last.statuses, out.data()); !wrong.empty())
        fail(s.input + ", in pieces of " + std::to_string(piece_bytes) + " bytes: " + wrong);
    f.gbs = double(s.plain->size()) / median(t) / 1e9;
    f.search = median(search), f.pieces = median(pieces), f.join = median(join);
    return f;
}

// ---- the program -------------------------------------------------------------------------------

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

// "L:S:LB:DB" (four unsigned numbers), or refuse.
settings::shape parse_shape(const std::string& item) {
    std::vector<std::uint32_t> v;
    std::stringstream ss(item);
    for (std::string part; std::getline(ss, part, ':');) {
        if (part.empty() || part.size() > 9 || !std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
            refuse("--shapes: \"" + item + "\" is not L:S:LB:DB (lanes per stream, streams per workgroup, literal and distance table bits)");
        v.push_back(static_cast<std::uint32_t>(std::stoul(part)));
    }
    if (v.size() != 4 || item.back() == ':')
        refuse("--shapes: \"" + item + "\" is not L:S:LB:DB (lanes per stream, streams per workgroup, literal and distance table bits)");
    return {v[0], v[1], v[2], v[3]};
}

// The first line of an error's message (a build log follows it in some).
std::string first_line(const std::string& what) {
    return what.substr(0, what.find('\n'));
}

void usage() {
    std::fprintf(stderr,
                 "usage: bench_deflate [PATH] [--zip DIR_OR_FILES[,...]] (one or both)\n"
                 "       [--mib N (256: of PATH; of decompressed entries with --zip)] [--block-sizes 65536,1048576]\n"
                 "       [--level L (6)] [--compressors libdeflate,zlib (default libdeflate)] [--runs N (5)]\n"
                 "       [--variant reference|fast|automatic[,...] (automatic)] [--threads N (all cores)]\n"
                 "       [--no-zlib (skip the single-threaded zlib peer)] [--kernel-only]\n"
                 "       [--shapes L:S:LB:DB[,...] (fixed shapes of the program, kernel only: L lanes per stream,\n"
                 "        S streams per workgroup, LB/DB literal/length and distance table bits; e.g. 32:2:10:8,1:1:10:8)]\n"
                 "       [--pieces-kib K[,...] (also every stream in pieces of K KiB of input, kernel only)] [--pieces-each]\n"
                 "       bench_deflate PATH --one-stream [--mib N] [--piece-kib K (64)] [--search device,host[:F],...] [--level L] [--runs N]\n");
    std::exit(2);
}

} // namespace

// Whether zlib's inflate passes a block start at bit `bit` of raw DEFLATE `stream` (for messages).
bool block_start(const std::vector<std::uint8_t>& stream, std::size_t size, std::uint64_t bit) {
    if (bit == 0) return true;
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) return false;
    std::vector<std::uint8_t> out(size + 1);
    z.next_in = const_cast<Bytef*>(stream.data());
    z.avail_in = static_cast<uInt>(stream.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    bool found = false;
    while (inflate(&z, Z_BLOCK) == Z_OK) {
        const std::uint64_t at = std::uint64_t{z.total_in} * 8 - static_cast<std::uint64_t>(z.data_type & 7);
        if ((z.data_type & 128) != 0 && at == bit) found = true;
        if (at > bit) break;
    }
    inflateEnd(&z);
    return found;
}

// --one-stream (see the top of this file).
int one_stream(const std::string& path, std::uint64_t mib, std::uint64_t piece_kib, const std::vector<std::string>& searches, int level, int runs,
               unsigned threads) {
    rt::context ctx(rt::choose_device());
    vyre::bench::print_header(ctx, "bench_deflate --one-stream: one DEFLATE stream in pieces on the device against libdeflate and zlib on one thread");
    const auto input = vyre::bench::read_input_path(path, static_cast<std::size_t>(mib << 20), "bench_deflate");
    const std::string name = vyre::bench::input_label(path);
    std::printf("# input: %s, %zu bytes; pieces of %llu KiB of compressed input; host search on %u threads; %d runs, median\n",
                path.c_str(), input.size(), static_cast<unsigned long long>(piece_kib), vyre::util::thread_count(threads), runs);
    std::printf("%-12s %-9s %7s %8s %7s %10s %12s %12s %10s %12s %12s %8s\n", "made with", "search", "ratio", "pieces", "rounds", "search s",
                "device GB/s", "+readback", "all GB/s", "libdeflate", "zlib", "all/ld");
    for (const std::string made : {"libdeflate", "zlib"}) {
        std::vector<std::uint8_t> stream;
        if (made == "libdeflate") {
            libdeflate_compressor* c = libdeflate_alloc_compressor(level);
            stream.resize(libdeflate_deflate_compress_bound(c, input.size()));
            stream.resize(libdeflate_deflate_compress(c, input.data(), input.size(), stream.data(), stream.size()));
            libdeflate_free_compressor(c);
        } else {
            z_stream z{};
            if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) refuse("deflateInit2 failed");
            stream.resize(deflateBound(&z, static_cast<uLong>(input.size())));
            z.next_in = const_cast<Bytef*>(input.data());
            z.avail_in = static_cast<uInt>(input.size());
            z.next_out = stream.data();
            z.avail_out = static_cast<uInt>(stream.size());
            if (deflate(&z, Z_FINISH) != Z_STREAM_END) refuse("zlib deflate failed");
            stream.resize(z.total_out);
            deflateEnd(&z);
        }
        for (const std::string& where : searches) {
        // "device" or "host", then ":F" for first regions of F times a piece's share (default: as memory allows).
        const std::string on = where.substr(0, where.find(':'));
        cz::deflate_split_options options;
        if (where.find(':') != std::string::npos) options.region_factor = static_cast<std::uint32_t>(std::stoul(where.substr(where.find(':') + 1)));
        std::vector<std::uint8_t> back(input.size());
        auto output = rt::allocate(ctx, rt::padded_bytes(input.size()));
        std::vector<double> search, device, readback, whole, peer_ld, peer_zlib, pieces_s, join_s;
        cz::deflate_split_result last, cold;
        double cold_seconds = 0; // run 0: programs loaded (or built) and the first large buffers allocated
        for (int r = 0; r <= runs; ++r) { // run 0 builds the programs and warms up
            const double t0 = vyre::bench::now_seconds();
            double t1 = t0;
            if (on == "host") {
                const auto points = vyre::format::deflate_split_points(stream, piece_kib << 10, threads);
                t1 = vyre::bench::now_seconds();
                last = cz::inflate_split(ctx, stream, points, input.size(), output, options);
            } else {
                last = cz::inflate_split(ctx, stream, piece_kib << 10, input.size(), output, options);
                t1 = t0 + last.search_seconds;
            }
            const double t2 = vyre::bench::now_seconds();
            rt::read(ctx, output, back.data(), back.size());
            const double t3 = vyre::bench::now_seconds();
            if (last.status.code != 0 || last.status.output_size != input.size() || back != input) {
                const auto at = std::mismatch(back.begin(), back.end(), input.begin()).first - back.begin();
                fail(name + ", " + made + ", one stream in pieces: status " + std::to_string(last.status.code) + ", " +
                     std::to_string(last.status.output_size) + " bytes of " + std::to_string(input.size()) + ", first wrong byte at " +
                     std::to_string(at) + "; " + std::to_string(last.pieces) + " pieces, " + std::to_string(last.rounds) + " rounds, " +
                     std::to_string(last.false_guesses) + " false guesses, " + std::to_string(last.regrown) + " regrown; failing piece at bit " +
                     std::to_string(last.failed_piece) + (block_start(stream, input.size(), last.failed_piece) ? " (a block start)" : " (no block start)"));
            }
            std::fill(back.begin(), back.end(), 0);
            libdeflate_decompressor* d = libdeflate_alloc_decompressor();
            const double t4 = vyre::bench::now_seconds();
            const auto rc = libdeflate_deflate_decompress(d, stream.data(), stream.size(), back.data(), back.size(), nullptr);
            const double t5 = vyre::bench::now_seconds();
            libdeflate_free_decompressor(d);
            if (rc != LIBDEFLATE_SUCCESS || back != input) fail(name + ", " + made + ": libdeflate's bytes differ from the input");
            z_stream z{};
            inflateInit2(&z, -15);
            z.next_in = stream.data();
            z.avail_in = static_cast<uInt>(stream.size());
            z.next_out = back.data();
            z.avail_out = static_cast<uInt>(back.size());
            const double t6 = vyre::bench::now_seconds();
            const int zr = inflate(&z, Z_FINISH);
            const double t7 = vyre::bench::now_seconds();
            inflateEnd(&z);
            if (zr != Z_STREAM_END || back != input) fail(name + ", " + made + ": zlib's bytes differ from the input");
            if (r == 0) {
                cold = last;
                cold_seconds = t3 - t0;
                continue;
            }
            pieces_s.push_back(last.pieces_seconds), join_s.push_back(last.join_seconds);
            search.push_back(t1 - t0), device.push_back(t2 - t1), readback.push_back(t3 - t1), whole.push_back(t3 - t0);
            peer_ld.push_back(t5 - t4), peer_zlib.push_back(t7 - t6);
        }
        const double gb = static_cast<double>(input.size()) / 1e9;
        const double s_search = vyre::bench::median(search), s_device = vyre::bench::median(device), s_back = vyre::bench::median(readback);
        const double all = vyre::bench::median(whole), ld = gb / vyre::bench::median(peer_ld), zl = gb / vyre::bench::median(peer_zlib);
        std::printf("%-12s %-9s %7.2f %8llu %7u %10.4f %12.2f %12.2f %10.2f %12.2f %12.2f %8.2f\n", made.c_str(), where.c_str(),
                    static_cast<double>(input.size()) / static_cast<double>(stream.size()), static_cast<unsigned long long>(last.pieces),
                    last.rounds, s_search, gb / s_device, gb / s_back, gb / all, ld, zl, (gb / all) / ld);
        std::printf("#   %s: %zu -> %zu bytes; device steps (medians): pieces %.4f s (upload, rounds, statuses), join %.4f s; "
                    "%u false guesses, %u pieces cut, %u regrown\n",
                    made.c_str(), stream.size(), input.size(), vyre::bench::median(pieces_s), vyre::bench::median(join_s), last.false_guesses,
                    last.cut, last.regrown);
        std::printf("#   %s: first run (programs loaded or built, first buffers): all %.4f s, search %.4f s, pieces %.4f s, join %.4f s, "
                    "%.2f GB/s\n",
                    made.c_str(), cold_seconds, cold.search_seconds, cold.pieces_seconds, cold.join_seconds, gb / cold_seconds);
        std::printf("#   %s: rounds of the last run (pieces/ms/largest piece's output in KiB):", made.c_str());
        for (const auto& round : last.round_log) std::printf(" %u/%.1f/%u", round.pieces, round.seconds * 1e3, round.largest / 1024);
        std::printf("\n");
        const std::string label = name + " one stream (" + made + ", " + where + " search)";
        const auto emit = [&](const std::string& series, const std::string& metric, double v) {
            vyre::bench::emit({"deflate", ctx.device().label(), label, "", 0, series, metric, v});
        };
        emit("vyre pieces", "device GB/s", gb / s_device);
        emit("vyre pieces", "e2e GB/s", gb / all);
        emit("vyre pieces, the search for split points", "ms", s_search * 1e3);
        emit("libdeflate 1 thread", "GB/s", ld);
        emit("zlib 1 thread", "GB/s", zl);
        }
    }
    std::printf("# device: host bytes -> bytes in device memory (pieces, join; the upload with a host search), the search\n"
                "# excluded; +readback: and read back; all: all of it; all/ld: against libdeflate on one thread\n");
    return 0;
}

int main(int argc, char** argv) {
    settings s;
    bool one = false;
    std::uint64_t piece_kib = 64;
    std::vector<std::string> searches{"device", "host"};
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&] {
            if (i + 1 >= argc) usage();
            return std::string(argv[++i]);
        };
        if (a == "--mib") s.mib = std::stoull(value());
        else if (a == "--runs") s.runs = std::max(1, std::stoi(value()));
        else if (a == "--threads") s.threads = static_cast<unsigned>(std::max(1, std::stoi(value())));
        else if (a == "--level") s.level = std::stoi(value());
        else if (a == "--zip") {
            for (const auto& z : split(value())) s.zip.push_back(z);
        } else if (a == "--compressors") {
            s.compressors = split(value());
            for (const auto& c : s.compressors)
                if (c != "libdeflate" && c != "zlib") usage();
            if (s.compressors.empty()) usage();
        } else if (a == "--block-sizes") {
            s.block_sizes.clear();
            for (const auto& b : split(value())) s.block_sizes.push_back(std::stoull(b));
            for (std::size_t b : s.block_sizes)
                if (b == 0 || b > (std::size_t{1} << 31)) refuse("--block-sizes: each between 1 byte and 2 GiB");
        } else if (a == "--variant" || a == "--variants") {
            s.variants.clear();
            for (const auto& v : split(value())) {
                const auto parsed = vo::block_variant_from_name(v);
                if (!parsed) usage();
                s.variants.push_back(*parsed);
            }
            if (s.variants.empty()) usage();
        } else if (a == "--no-zlib") s.zlib_peer = false;
        else if (a == "--one-stream") one = true;
        else if (a == "--piece-kib") piece_kib = std::max<std::uint64_t>(1, std::stoull(value()));
        else if (a == "--pieces-each") s.pieces_each = true;
        else if (a == "--pieces-kib") {
            s.pieces_kib.clear();
            for (const auto& k : split(value())) s.pieces_kib.push_back(std::max<std::uint64_t>(1, std::stoull(k)));
        }
        else if (a == "--search") {
            searches = split(value());
            for (const auto& w : searches)
                if (const auto on = w.substr(0, w.find(':')); (on != "device" && on != "host") ||
                                                              (w.find(':') != std::string::npos && w.find_first_not_of("0123456789", on.size() + 1) != std::string::npos))
                    usage();
            if (searches.empty()) usage();
        }
        else if (a == "--kernel-only") s.kernel_only = true;
        else if (a == "--shapes") {
            s.shapes.clear();
            for (const auto& item : split(value())) s.shapes.push_back(parse_shape(item));
            if (s.shapes.empty()) usage();
        } else if (a == "--help" || a == "-h") usage();
        else if (!a.empty() && a[0] != '-' && s.path.empty()) s.path = a;
        else usage();
    }
    if (s.path.empty() && s.zip.empty()) usage();
    if (one && s.path.empty()) usage();
    if (one) return one_stream(s.path, s.mib, piece_kib, searches, s.level, s.runs, s.threads);
    if (s.mib == 0 || s.mib > 4095) refuse("--mib: 1 to 4095 (one dispatch addresses below 4 GiB of output)");
    // --shapes: each shape's program (no device needed yet); numbers it does not take are refused.
    std::vector<vyre::ir::program> shape_programs;
    for (const auto& sh : s.shapes) {
        try {
            shape_programs.push_back(cz::deflate_program(sh.lanes, sh.streams, sh.literal_bits, sh.distance_bits));
        } catch (const vyre::resource_error& e) {
            refuse("--shapes " + sh.label() + ": " + e.what());
        }
    }

    rt::context ctx(rt::choose_device(), /*profiling=*/true);
    vyre::bench::print_header(ctx, "bench_deflate: compression.deflate against libdeflate on all host cores and zlib on one");
    const std::uint64_t limit = std::uint64_t{s.mib} << 20;
    std::printf("# libdeflate %s on up to %u threads; zlib %s on 1 thread%s; %d runs, median; GB/s of decompressed bytes\n",
                LIBDEFLATE_VERSION_STRING, s.threads, zlibVersion(), s.zlib_peer ? "" : " (skipped: --no-zlib)", s.runs);
    std::printf("# kernel: one dispatch over every stream (OpenCL profiling events); e2e: pinned compressed bytes in, pinned\n"
                "# decompressed bytes out, best of 1/2/4/.../32 pieces over three queues, one per step (xN), or one queue\n"
                "# per piece (sN)\n");
    if (!s.shapes.empty())
        std::printf("# --shapes: rows labelled LxS LB/DB run deflate_program(L, S, LB, DB) for every launch: L lanes per stream\n"
                    "# (1: the reference program), S streams per workgroup, LB/DB table bits of the literal/length and\n"
                    "# distance codes; kernel only (end to end skipped: -); a shape this device cannot build is skipped\n");

    // The programs measured: each variant asked for, resolved on this device, once.
    std::vector<vo::block_variant> variants;
    for (const auto v : s.variants) {
        const vo::block_variant r = vo::resolve<cz::deflate_op>(v, ctx.device());
        if (v == vo::block_variant::automatic) std::printf("# automatic runs the %s variant on this device\n", vo::block_variant_name(r));
        if (std::find(variants.begin(), variants.end(), r) != variants.end()) continue;
        variants.push_back(r);
        const vo::block_kernel& k = vo::kernel_for<cz::deflate_op>(r, ctx.device());
        const auto& p = k.program.program();
        if (p.subgroup_size != 0)
            std::printf("# vyre %s: %u lanes per stream (subgroups %s), workgroups of %u invocations, %u stream%s each\n",
                        vo::block_variant_name(r), p.subgroup_size, vyre::lower::subgroup_lowering_name(k.program.subgroups_on(ctx)),
                        p.invocations_per_workgroup(), k.blocks_per_workgroup, k.blocks_per_workgroup == 1 ? "" : "s");
        else
            std::printf("# vyre %s: one invocation per stream, %u per workgroup\n", vo::block_variant_name(r), p.invocations_per_workgroup());
    }

    // --shapes: each shape's program, built here once; a shape this device cannot build (workgroup
    // memory, subgroups, a kernel that cannot launch workgroups that large) keeps why in `skipped`.
    struct shape_kernel {
        std::string label;
        std::unique_ptr<vo::block_kernel> kernel;
        std::string skipped;
    };
    std::vector<shape_kernel> shapes;
    int program_width = 10; // the table's program column
    for (std::size_t i = 0; i < s.shapes.size(); ++i) {
        const auto& sh = s.shapes[i];
        shape_kernel& k = shapes.emplace_back();
        k.label = sh.label();
        program_width = std::max(program_width, static_cast<int>(k.label.size()));
        const vo::block_variant variant = sh.lanes == 1 ? vo::block_variant::reference : vo::block_variant::fast;
        const std::uint32_t invocations = shape_programs[i].invocations_per_workgroup();
        const std::uint64_t local_bytes =
            std::uint64_t{cz::detail::deflate_layout{sh.literal_bits, sh.distance_bits}.words()} * 4 * sh.streams;
        try {
            k.kernel.reset(
                new vo::block_kernel{cz::deflate_op::id, rt::compiled_program(std::move(shape_programs[i])), variant, sh.streams});
            auto& built = k.kernel->program.kernel_for(ctx); // the build, and the checks of this device's limits
            const auto most = built.kernel.get_work_group_info<std::size_t>(ctx.device().device, CL_KERNEL_WORK_GROUP_SIZE);
            if (most < invocations)
                k.skipped = "its kernel launches at most " + std::to_string(most) +
                            " invocations per workgroup on this device, the shape needs " + std::to_string(invocations);
        } catch (const vyre::error& e) { // validation_error, resource_error, build_error, opencl_error
            k.skipped = first_line(e.what());
            if (k.skipped.size() != std::string(e.what()).size())
                std::fprintf(stderr, "bench_deflate: --shapes %s: %s\n", k.label.c_str(), e.what());
        }
        if (!k.skipped.empty()) {
            std::printf("# vyre %s: skipped: %s\n", k.label.c_str(), k.skipped.c_str());
            k.kernel.reset();
        } else if (sh.lanes > 1)
            std::printf("# vyre %s: %u lanes per stream (subgroups %s), workgroups of %u invocations, %u stream%s each, %llu bytes of "
                        "workgroup memory\n",
                        k.label.c_str(), sh.lanes, vyre::lower::subgroup_lowering_name(k.kernel->program.subgroups_on(ctx)), invocations,
                        sh.streams, sh.streams == 1 ? "" : "s", static_cast<unsigned long long>(local_bytes));
        else
            std::printf("# vyre %s: one invocation per stream, %u per workgroup, %llu bytes of workgroup memory\n", k.label.c_str(),
                        invocations, static_cast<unsigned long long>(local_bytes));
        std::fflush(stdout);
    }

    // The sets: the corpus cut and compressed each way asked for, then the ZIP entries.
    std::vector<std::function<stream_set()>> makers;
    std::shared_ptr<const bytes> input;
    if (!s.path.empty()) {
        input = std::make_shared<const bytes>(vyre::bench::read_input_path(s.path, static_cast<std::size_t>(limit), "bench_deflate"));
        if (input->empty()) refuse(s.path + " is empty");
        std::printf("# input: %s, %zu bytes\n", s.path.c_str(), input->size());
        const std::string label = vyre::bench::input_label(s.path);
        for (const auto& compressor : s.compressors)
            for (std::size_t block : s.block_sizes)
                makers.push_back([&, compressor, block, label] {
                    return as_stream_set([&] { return vb::deflate_pieces(input, label, block, compressor, s.level, s.threads); },
                                         "block_bytes", double(block), size_text(block));
                });
    }
    if (!s.zip.empty())
        makers.push_back([&] { return as_stream_set([&] { return vb::zip_entries(s.zip, limit, s.threads); }, "", 0, "ZIP"); });

    std::printf("\n%-7s %8s %6s %-13s %-*s %11s %11s %11s %9s %8s %8s %8s %8s\n", "stream", "streams", "ratio", "made with", program_width,
                "program", "kernel GB/s", "e2e GB/s", "libdeflate", "zlib", "kern/ldf", "e2e/ldf", "kern/zl", "e2e/zl");
    for (const auto& make : makers) {
        const stream_set set = make();
        const std::size_t plain_bytes = set.plain->size();
        const double ratio = double(plain_bytes) / double(set.compressed.size());
        const unsigned lib_threads = static_cast<unsigned>(std::min<std::size_t>(s.threads, set.streams.size()));
        const auto emit_row = [&](const std::string& series, const char* metric, double value) {
            vyre::bench::emit({"deflate", ctx.device().label(), set.input, set.x_name, set.x, series, metric, value});
        };

        // The peers, on the same streams.
        bytes host_out(plain_bytes);
        const double lib_gbs = peer_gbs(set, host_out, s.runs, "libdeflate",
                                        [&](std::uint8_t* out) { return libdeflate_seconds(set, out, lib_threads); });
        const double zlib_gbs = s.zlib_peer ? peer_gbs(set, host_out, s.runs, "zlib", [&](std::uint8_t* out) { return zlib_seconds(set, out); })
                                            : 0.0;
        emit_row("libdeflate " + std::to_string(lib_threads) + " threads", "GB/s", lib_gbs);
        if (s.zlib_peer) emit_row("zlib 1 thread", "GB/s", zlib_gbs);
        emit_row("input", "compression ratio", ratio);

        // Pinned copies of this set's bytes, both directions: the end-to-end bound.
        rt::pinned_host_buffer pin_in(ctx, set.compressed.size()), pin_out(ctx, plain_bytes);
        std::memcpy(pin_in.span().data(), set.compressed.data(), set.compressed.size());
        double bound_gbs = 0;
        {
            auto d_in = rt::allocate(ctx, rt::padded_bytes(set.compressed.size()));
            auto d_out = rt::allocate(ctx, rt::padded_bytes(plain_bytes));
            std::vector<double> h2d, d2h;
            for (int r = 0; r < 3; ++r) {
                auto e1 = pin_in.copy_to_device(d_in, set.compressed.size());
                e1.wait();
                auto e2 = pin_out.copy_from_device(d_out, plain_bytes);
                e2.wait();
                h2d.push_back(vyre::bench::event_seconds(e1));
                d2h.push_back(vyre::bench::event_seconds(e2));
            }
            bound_gbs = double(plain_bytes) / std::max(median(h2d), median(d2h)) / 1e9;
            emit_row("pinned copy bound", "e2e GB/s", bound_gbs);
        }

        for (const auto v : variants) {
            const std::string series = std::string("vyre ") + vo::block_variant_name(v);
            const figures f = run_ours(ctx, v, set, pin_in, pin_out, s.runs, s.kernel_only, series);
            char e2e[32] = "-", e2e_lib[16] = "-", e2e_zlib[16] = "-", kern_zlib[16] = "-", zlib_text[16] = "-";
            if (!s.kernel_only) {
                std::snprintf(e2e, sizeof e2e, "%.2f %s%zu", f.e2e_gbs, f.e2e_per_piece ? "s" : "x", f.e2e_pieces);
                std::snprintf(e2e_lib, sizeof e2e_lib, "%.2f", f.e2e_gbs / lib_gbs);
                if (s.zlib_peer) std::snprintf(e2e_zlib, sizeof e2e_zlib, "%.2f", f.e2e_gbs / zlib_gbs);
            }
            if (s.zlib_peer) {
                std::snprintf(kern_zlib, sizeof kern_zlib, "%.2f", f.kernel_gbs / zlib_gbs);
                std::snprintf(zlib_text, sizeof zlib_text, "%.3f", zlib_gbs);
            }
            std::printf("%-7s %8zu %6.2f %-13s %-*s %11.3f %11s %11.3f %9s %8.2f %8s %8s %8s\n", set.size.c_str(), set.streams.size(), ratio,
                        set.made_with.c_str(), program_width, vo::block_variant_name(v), f.kernel_gbs, e2e, lib_gbs, zlib_text,
                        f.kernel_gbs / lib_gbs, e2e_lib, kern_zlib, e2e_zlib);
            emit_row(series, "kernel GB/s", f.kernel_gbs);
            if (!s.kernel_only) emit_row(series, "e2e GB/s", f.e2e_gbs);
            std::fflush(stdout);
        }
        // --pieces-kib: every stream in pieces, kernel only (all at once; with --pieces-each, then
        // one stream at a time too).
        std::vector<std::pair<std::uint64_t, bool>> pieces_rows;
        for (const std::uint64_t kib : s.pieces_kib) {
            pieces_rows.emplace_back(kib, false);
            if (s.pieces_each) pieces_rows.emplace_back(kib, true);
        }
        for (const auto& [kib, each] : pieces_rows) {
            const pieces_figures f = run_pieces(ctx, set, s.runs, kib << 10, each);
            const std::string label = "pieces " + std::to_string(kib) + " KiB" + (each ? ", each" : "");
            char kern_zlib[16] = "-", zlib_text[16] = "-";
            if (s.zlib_peer) {
                std::snprintf(kern_zlib, sizeof kern_zlib, "%.2f", f.gbs / zlib_gbs);
                std::snprintf(zlib_text, sizeof zlib_text, "%.3f", zlib_gbs);
            }
            std::printf("%-7s %8zu %6.2f %-13s %-*s %11.3f %11s %11.3f %9s %8.2f %8s %8s %8s\n", set.size.c_str(), set.streams.size(), ratio,
                        set.made_with.c_str(), program_width, label.c_str(), f.gbs, "-", lib_gbs, zlib_text, f.gbs / lib_gbs, "-", kern_zlib, "-");
            std::printf("#   %s: %llu pieces, %u groups, %u rounds, %u false guesses, %u cut, %u regrown; seconds (medians): search %.4f, "
                        "rounds %.4f, join %.4f; last run's rounds (pieces/ms/largest KiB):",
                        label.c_str(), static_cast<unsigned long long>(f.last.pieces), f.last.groups, f.last.rounds, f.last.false_guesses,
                        f.last.cut, f.last.regrown, f.search, f.pieces, f.join);
            for (const auto& round : f.last.round_log) std::printf(" %u/%.1f/%u", round.pieces, round.seconds * 1e3, round.largest / 1024);
            std::printf("\n");
            emit_row("vyre fast in " + label + " (search, rounds and join, host clock)", "kernel GB/s", f.gbs);
            emit_row("vyre fast in " + label + ", the search for split points", "ms", f.search * 1e3);
            std::fflush(stdout);
        }
        // --shapes: each fixed shape on the same streams, kernel only.
        for (const auto& k : shapes) {
            std::string skipped = k.skipped;
            figures f;
            if (skipped.empty()) {
                try {
                    f = run_ours(ctx, k.kernel->variant, set, pin_in, pin_out, s.runs, /*kernel_only=*/true, "vyre " + k.label,
                                 k.kernel.get());
                } catch (const vyre::error& e) { // a launch this device refuses
                    skipped = first_line(e.what());
                }
            }
            if (!skipped.empty()) {
                std::printf("%-7s %8zu %6.2f %-13s %-*s skipped: %s\n", set.size.c_str(), set.streams.size(), ratio, set.made_with.c_str(),
                            program_width, k.label.c_str(), skipped.c_str());
                std::fflush(stdout);
                continue;
            }
            char kern_zlib[16] = "-", zlib_text[16] = "-";
            if (s.zlib_peer) {
                std::snprintf(kern_zlib, sizeof kern_zlib, "%.2f", f.kernel_gbs / zlib_gbs);
                std::snprintf(zlib_text, sizeof zlib_text, "%.3f", zlib_gbs);
            }
            std::printf("%-7s %8zu %6.2f %-13s %-*s %11.3f %11s %11.3f %9s %8.2f %8s %8s %8s\n", set.size.c_str(), set.streams.size(), ratio,
                        set.made_with.c_str(), program_width, k.label.c_str(), f.kernel_gbs, "-", lib_gbs, zlib_text,
                        f.kernel_gbs / lib_gbs, "-", kern_zlib, "-");
            emit_row("vyre " + k.label + " (lanes x streams per workgroup, table bits)", "kernel GB/s", f.kernel_gbs);
            std::fflush(stdout);
        }
        std::printf("#   %s: %zu streams, %zu -> %zu bytes; libdeflate on %u threads; pinned copy bound %.2f GB/s of output\n",
                    set.input.c_str(), set.streams.size(), set.compressed.size(), plain_bytes, lib_threads, bound_gbs);
        std::fflush(stdout);
    }
    return 0;
}
