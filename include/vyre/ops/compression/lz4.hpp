// compression.lz4: LZ4 block decompression on the device. Two IR programs with identical results
// (the seed's one block per invocation, and a fast one where several invocations share a block),
// the block-level host API (descriptors in, device bytes + statuses out) and whole LZ4 files.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/ops/compression/block.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// Both programs decode exactly as reference::lz4_decompress (reference/lz4.hpp): same bytes in
// every block's output region, same status, whatever the input and the descriptors. Bindings:
//   0 input        Bytes ReadOnly   compressed bytes of every block
//   1 descriptors  U32   ReadOnly   5 words per block (block_descriptor)
//   2 output       Bytes ReadWrite  every block's output region; nothing outside them is written
//   3 statuses     U32   ReadWrite  2 words per block (block_status)
//   4 params       U32   Uniform    [block count, input bytes, output bytes, 0]
// A descriptor is checked against params' byte counts (not the buffers' word-rounded lengths),
// so a block outside the data gets {literal_overflow, 0} or {output_overflow, 0} as the reference
// says, and no invocation reads or writes outside [0, input bytes) and its own output region.
namespace lz4_binding {
enum : std::uint32_t { input = 0, descriptors = 1, output = 2, statuses = 3, params = 4 };
} // namespace lz4_binding
inline constexpr std::uint32_t lz4_param_words = 4;

inline constexpr const char* lz4_op_id = "compression.lz4";
inline constexpr const char* lz4_fast_op_id = "compression.lz4.fast";

// The seed gives every block one invocation and workgroups of 1. Invocations of the reference
// program share nothing, so grouping 64 of them changes no result; it only lets a GPU fill its
// SIMD lanes (a workgroup of 1 runs one lane of 32) and launch 64 times fewer workgroups.
inline constexpr std::uint32_t lz4_reference_workgroup = 64;
// The fast program: one block per workgroup of this many invocations (one warp on NVIDIA GPUs;
// bench_lz4 --lanes compares others).
inline constexpr std::uint32_t lz4_fast_lanes = 32;
// Bytes of recent output the fast program keeps in workgroup memory for matches to read (see the
// program's comment; bench_lz4 --windows compares them). None by default: on the H100 a 4096-byte
// window made 256 KiB and 4 MiB blocks 3% and 16% faster but 4 KiB and 64 KiB blocks 5% slower
// (doc/ops/compression.lz4.md).
inline constexpr std::uint32_t lz4_fast_window = 0;

enum class lz4_variant { reference, fast, automatic };

inline const char* lz4_variant_name(lz4_variant v) noexcept {
    switch (v) {
    case lz4_variant::reference: return "reference";
    case lz4_variant::fast: return "fast";
    case lz4_variant::automatic: return "automatic";
    }
    return "?";
}

// What the host runs for `automatic` (both programs give the same bytes and statuses): the
// cooperative program on GPUs; the seed's program on CPU devices, where a workgroup's invocations
// run one after another and the cooperative program's barriers cost more than they share (PoCL on
// 16 cores, the mixed corpus in 64 KiB blocks: kernel 1.72 GB/s against 0.70; doc/benchmarks.md).
inline lz4_variant resolve(lz4_variant v, const runtime::device_info& device) noexcept {
    if (v != lz4_variant::automatic) return v;
    return device.is_cpu() && !device.is_gpu() ? lz4_variant::reference : lz4_variant::fast;
}

namespace detail {

// The status codes as plain u32 constants: the DSL takes integers, not enumerators.
namespace lz4_code {
inline constexpr std::uint32_t none = lz4_error::none, corrupt_token = lz4_error::corrupt_token,
                               offset_oob = lz4_error::offset_oob, output_overflow = lz4_error::output_overflow,
                               literal_overflow = lz4_error::literal_overflow, match_overflow = lz4_error::match_overflow;
} // namespace lz4_code

// Where the fast program's block is: decoding sequences, a stored block still to copy, or done.
namespace lz4_state {
inline constexpr std::uint32_t decoding = 0, stored = 1, stopped = 2;
} // namespace lz4_state

// a + b, saturating at 2^32-1 as the reference's lengths do (a saturated length fails the bound
// check that follows, so it never reaches a copy).
template <class A, class B>
auto saturating_add(const A& a, const B& b) {
    return dsl::select(a > 0xFFFFFFFFu - b, 0xFFFFFFFFu, a + b);
}

// The bindings, in the same order and with the same names in both programs.
struct lz4_buffers {
    dsl::input_buffer<dsl::bytes> input;
    dsl::input_buffer<dsl::u32> descriptors;
    dsl::output_buffer<dsl::bytes> output;
    dsl::output_buffer<dsl::u32> statuses;
    dsl::uniform_buffer<dsl::u32> params;
};

inline lz4_buffers declare_lz4_buffers(dsl::kernel& k) {
    return {k.input<dsl::bytes>("input", lz4_binding::input), k.input<dsl::u32>("descriptors", lz4_binding::descriptors),
            k.output<dsl::bytes>("output", lz4_binding::output), k.output<dsl::u32>("statuses", lz4_binding::statuses),
            k.uniform<dsl::u32>("params", lz4_binding::params)};
}

// A block's descriptor words and the dispatch's byte counts, as variables with the same names in
// both programs.
struct lz4_block_fields {
    dsl::variable<dsl::u32> in_base, in_size, out_base, capacity, flags, input_bytes, output_bytes;
};

template <class Block>
lz4_block_fields let_block_fields(dsl::kernel& k, const lz4_buffers& b, const Block& block) {
    return {k.let("in_base", b.descriptors[block * 5u]),       k.let("in_size", b.descriptors[block * 5u + 1u]),
            k.let("out_base", b.descriptors[block * 5u + 2u]), k.let("capacity", b.descriptors[block * 5u + 3u]),
            k.let("block_flags", b.descriptors[block * 5u + 4u]), k.let("input_bytes", b.params[1u]),
            k.let("output_bytes", b.params[2u])};
}

} // namespace detail

// ---- the reference program: the seed's design, transcribed from reference::lz4_decompress_block

inline ir::program lz4_program_reference() {
    namespace d = vyre::dsl;
    namespace codes = detail::lz4_code;
    d::kernel k(entry_name(lz4_op_id), {lz4_reference_workgroup, 1, 1});
    const detail::lz4_buffers bufs = detail::declare_lz4_buffers(k);
    const auto& in = bufs.input;
    const auto& out = bufs.output;
    const auto& st = bufs.statuses;
    const auto& params = bufs.params;

    const auto block = k.let("block_index", d::invocation_id());
    k.if_(block >= params[0u], [&] { k.return_(); });
    // Every exit writes the status and returns.
    const auto finish = [&](const auto& code, const auto& size) {
        k.store(st, block * 2u, code);
        k.store(st, block * 2u + 1u, size);
        k.return_();
    };
    const auto [in_base, n, out_base, cap, flags, in_bytes, out_bytes] = detail::let_block_fields(k, bufs, block);
    k.if_(in_base > in_bytes || n > in_bytes - in_base, [&] { finish(codes::literal_overflow, 0u); });
    k.if_(out_base > out_bytes || cap > out_bytes - out_base, [&] { finish(codes::output_overflow, 0u); });

    k.if_((flags & block_flag_uncompressed) != 0u, [&] {
        k.if_(n > cap, [&] { finish(codes::output_overflow, 0u); });
        k.for_("stored_i", 0u, n, [&](auto i) { k.store(out, out_base + i, in[in_base + i]); });
        finish(codes::none, n);
    });

    const auto ip = k.let("ip", 0u); // invariant: ip <= n
    const auto op = k.let("op", 0u); // invariant: op <= cap
    // An extension chain: bytes added to `length` until one below 255; corrupt_token at the end of input.
    const auto extend = [&](const char* name, const auto& length) {
        const auto extra = k.let(name, 255u);
        k.while_(extra == 255u, [&] {
            k.if_(ip == n, [&] { finish(codes::corrupt_token, op); });
            extra = in[in_base + ip];
            ip = ip + 1u;
            length = detail::saturating_add(length, extra);
        });
    };
    k.while_(ip < n, [&] {
        const auto token = k.let("token", in[in_base + ip]);
        ip = ip + 1u;
        const auto literal_length = k.let("literal_length", token >> 4u);
        k.if_(literal_length == 15u, [&] { extend("literal_extra", literal_length); });
        k.if_(literal_length > n - ip, [&] { finish(codes::literal_overflow, op); });
        k.if_(literal_length > cap - op, [&] { finish(codes::output_overflow, op); });
        k.for_("literal_i", 0u, literal_length, [&](auto i) { k.store(out, out_base + op + i, in[in_base + ip + i]); });
        ip = ip + literal_length;
        op = op + literal_length;
        k.if_(ip == n, [&] { k.break_(); });

        k.if_(n - ip < 2u, [&] { finish(codes::corrupt_token, op); });
        const auto offset = k.let("offset", in[in_base + ip] | (in[in_base + ip + 1u] << 8u));
        ip = ip + 2u;
        const auto match_length = k.let("match_length", (token & 15u) + 4u);
        k.if_(match_length == 19u, [&] { extend("match_extra", match_length); });
        k.if_(offset == 0u || offset > op, [&] { finish(codes::offset_oob, op); });
        k.if_(match_length > cap - op, [&] { finish(codes::match_overflow, op); });
        // Front to back, one byte at a time: an overlapping match re-reads the bytes it just wrote.
        k.for_("match_i", 0u, match_length,
               [&](auto i) { k.store(out, out_base + op + i, out[out_base + op - offset + i]); });
        op = op + match_length;
    });
    finish(codes::none, op);
    return k.program();
}

// ---- the fast program ------------------------------------------------------------------------
//
// One workgroup of `lanes` invocations (a power of two; 32 = one warp on NVIDIA GPUs) decodes one
// block. Every lane parses the same sequence from the same input bytes, so the parse is a single
// instruction stream for the workgroup (its loads read one address: one transaction) and all the
// control flow around it is uniform. The lanes split only to copy: a sequence's literals, then its
// match, `lanes` bytes at a time, lane i taking bytes i, i + lanes, ...
//
// Why one block per workgroup: blocks sharing a workgroup parse different sequences, so their
// lanes diverge at every length extension and error check, and a barrier they share ties each
// block to the slowest. Alone, a block costs a few dozen instructions per sequence, and the device
// schedules blocks independently.
//
// The window. A match usually copies bytes written a few hundred or thousand bytes earlier, by
// this same workgroup. Read back from global memory, those bytes make a round trip to the device's
// L2 cache (the first-level cache does not keep what an invocation stores) in the middle of every
// sequence's serial chain. So every output byte is also written to a ring of the last `window`
// bytes in workgroup memory (position p in slot p mod window), and a match whose source and own
// bytes fit in the ring (offset + length <= window) reads from it; longer reaches read global
// memory as before. window = 0 builds the program without the ring.
//
// Ordering. Byte m of a match at offset o starting at p is out[p - o + (m mod o)], a position
// before p that another lane may have written. Every position below `fenced` was written before
// the last barrier, so every lane sees it; a match whose source reaches `fenced` first runs a
// barrier (uniform: every lane takes the same branch) and moves `fenced` to p. Most matches reach
// further back than the last sequence or two and need none. An overlapping match (o below its
// length) reads only its first o bytes of pattern, all before p, so its own writes never feed its
// reads and it needs no rounds. The ring adds two hazards, as its slots are reused: a lane still
// reading a slot for one match while another lane, already at a later sequence, overwrites it;
// and two lanes writing one slot (positions p and p + window) in either order. `ring_limit` is the
// first position whose slot is unsafe to write: the lowest source read since the last barrier
// plus window, and at most fenced + window. Writing at or past it runs the barrier first (once per
// window bytes of output at least). A match's own reads and writes never share a slot
// (offset + length <= window).
//
// Errors and partial sizes come from the same checks in the same order as the reference program
// (reference::lz4_decompress_block): a failing step writes nothing, earlier steps' bytes stay.
// The three bytes after a sequence's literals (the offset, and the next token when the match
// length has no extension) are loaded before the literal copy so that their latency overlaps it;
// loads are bounded by the input buffer, and the values are used only once the checks have shown
// that the bytes belong to the block.

inline ir::program lz4_program_fast(std::uint32_t lanes = lz4_fast_lanes, std::uint32_t window = lz4_fast_window) {
    namespace d = vyre::dsl;
    namespace codes = detail::lz4_code;
    if (!std::has_single_bit(lanes) || lanes > 1024)
        throw resource_error("lz4_program_fast: lanes per block (" + std::to_string(lanes) +
                             ") must be a power of two in 1..1024 (one block per workgroup of that many invocations)");
    // One pass of a copy writes `lanes` consecutive positions; with a ring at least that long,
    // two positions `window` apart in one copy are written by the same invocation, in order.
    if (window != 0 && (!std::has_single_bit(window) || window < std::max(lanes, 4u) || window > 65536))
        throw resource_error("lz4_program_fast: window (" + std::to_string(window) + " bytes) must be 0 (none) or a power of two in " +
                             std::to_string(std::max(lanes, 4u)) + "..65536 (at least the " + std::to_string(lanes) + " lanes)");
    d::kernel k(entry_name(lz4_fast_op_id), {lanes, 1, 1});
    const detail::lz4_buffers bufs = detail::declare_lz4_buffers(k);
    const auto& in = bufs.input;
    const auto& out = bufs.output;
    const auto& st = bufs.statuses;
    const auto& params = bufs.params;
    d::workgroup_buffer<d::bytes> ring{"window"};
    if (window != 0) ring = k.workgroup<d::bytes>("window", window);
    const std::uint32_t slot_mask = window - 1;

    const auto lane = k.let("lane", d::local_id());
    const auto block = k.let("block_index", d::workgroup_id());
    k.if_(block >= params[0u], [&] { k.return_(); });
    const auto [in_base, n, out_base, cap, flags, in_bytes, out_bytes] = detail::let_block_fields(k, bufs, block);
    const auto code = k.let("code", codes::none);
    const auto op = k.let("op", 0u); // invariant: op <= cap
    // out[out_base + to + j] = source(j) for j < count, lane i taking j = i, i + lanes, ...; with
    // `keep`, the byte also goes to the ring.
    const auto copy = [&](const std::string& name, const auto& to, const auto& count, const auto& source, bool keep) {
        const auto j = k.let(name, lane);
        k.while_(j < count, [&] {
            if (keep) {
                const auto byte = k.let(name + "_byte", source(j));
                k.store(out, out_base + to + j, byte);
                k.store(ring, (to + j) & slot_mask, byte);
            } else {
                k.store(out, out_base + to + j, source(j));
            }
            j = j + lanes;
        });
    };

    k.if_(in_base > in_bytes || n > in_bytes - in_base, [&] { code = codes::literal_overflow; }).else_([&] {
        k.if_(out_base > out_bytes || cap > out_bytes - out_base, [&] { code = codes::output_overflow; }).else_([&] {
            k.if_((flags & block_flag_uncompressed) != 0u, [&] {
                k.if_(n > cap, [&] { code = codes::output_overflow; }).else_([&] {
                    copy("stored_j", 0u, n, [&](const auto& j) { return in[in_base + j]; }, false);
                    op = n;
                });
            }).else_([&] {
                const bool windowed = window != 0;
                const auto ip = k.let("ip", 0u); // invariant: ip <= n
                const auto fenced = k.let("fenced", 0u);
                // fenced + window at first: nothing read yet (declared only with the ring)
                std::optional<d::variable<d::u32>> ring_limit;
                if (windowed) ring_limit.emplace(k.let("ring_limit", window));
                const auto token = k.let("token", in[in_base]);
                const auto sync = [&] {
                    k.barrier();
                    fenced = op;
                    if (windowed) *ring_limit = detail::saturating_add(op, window);
                };
                // An extension chain: bytes added to `length` until one below 255; corrupt_token
                // when the input ends first.
                const auto extend = [&](const char* name, const auto& length) {
                    const auto extra = k.let(name, 255u);
                    k.while_(extra == 255u, [&] {
                        k.if_(ip == n, [&] {
                            code = codes::corrupt_token;
                            k.break_();
                        });
                        extra = in[in_base + ip];
                        ip = ip + 1u;
                        length = detail::saturating_add(length, extra);
                    });
                };
                k.while_(ip < n, [&] {
                    ip = ip + 1u;
                    const auto literal_length = k.let("literal_length", token >> 4u);
                    const auto match_length = k.let("match_length", (token & 15u) + 4u);
                    k.if_(literal_length == 15u, [&] { extend("literal_extra", literal_length); });
                    k.if_(code == codes::none && literal_length > n - ip, [&] { code = codes::literal_overflow; });
                    k.if_(code == codes::none && literal_length > cap - op, [&] { code = codes::output_overflow; });
                    k.if_(code != codes::none, [&] { k.break_(); });
                    const auto literal_at = k.let("literal_at", in_base + ip);
                    const auto after = k.let("after_literals", literal_at + literal_length);
                    const auto offset = k.let("offset", in[after] | (in[after + 1u] << 8u));
                    token = in[after + 2u];
                    if (windowed) k.if_(op + literal_length > *ring_limit, sync);
                    copy("literal_j", op, literal_length, [&](const auto& j) { return in[literal_at + j]; }, windowed);
                    ip = ip + literal_length;
                    op = op + literal_length;
                    k.if_(ip == n, [&] { k.break_(); });

                    k.if_(n - ip < 2u, [&] {
                        code = codes::corrupt_token;
                        k.break_();
                    });
                    ip = ip + 2u;
                    k.if_(match_length == 19u, [&] {
                        extend("match_extra", match_length);
                        token = in[in_base + ip];
                    });
                    k.if_(code != codes::none, [&] { k.break_(); });
                    k.if_(offset == 0u || offset > op, [&] {
                        code = codes::offset_oob;
                        k.break_();
                    });
                    k.if_(match_length > cap - op, [&] {
                        code = codes::match_overflow;
                        k.break_();
                    });
                    const auto from = k.let("match_from", op - offset);
                    // Global copies: from the output region, as written before the last barrier.
                    const auto copy_from_output = [&] {
                        k.if_(offset >= match_length, [&] {
                            copy("match_j", op, match_length, [&](const auto& j) { return out[out_base + from + j]; }, windowed);
                        }).else_([&] {
                            copy("repeat_j", op, match_length, [&](const auto& j) { return out[out_base + from + j % offset]; },
                                 windowed);
                        });
                    };
                    if (!windowed) {
                        k.if_(from + d::min(offset, match_length) > fenced, sync);
                        copy_from_output();
                    } else {
                        // offset <= op and match_length <= cap - op, so the sum does not wrap.
                        k.if_(from + d::min(offset, match_length) > fenced || op + match_length > *ring_limit, sync);
                        k.if_(offset + match_length <= window, [&] {
                            *ring_limit = d::min(*ring_limit, detail::saturating_add(from, window));
                            k.if_(offset >= match_length, [&] {
                                copy("near_j", op, match_length, [&](const auto& j) { return ring[(from + j) & slot_mask]; }, true);
                            }).else_([&] {
                                copy("near_repeat_j", op, match_length,
                                     [&](const auto& j) { return ring[(from + j % offset) & slot_mask]; }, true);
                            });
                        }).else_(copy_from_output);
                    }
                    op = op + match_length;
                });
            });
        });
    });
    k.if_(lane == 0u, [&] {
        k.store(st, block * 2u, code);
        k.store(st, block * 2u + 1u, op);
    });
    return k.program();
}

// ---- registry entries ------------------------------------------------------------------------

inline ir::op_signature lz4_signature() { return {{ir::data_type::bytes}, ir::data_type::bytes}; }

inline op_info lz4_info() {
    return {lz4_op_id, 1, "LZ4 block decompression, one block per invocation (the seed's design; reference variant)",
            lz4_signature(), ir::convention::v1(), [] { return lz4_program_reference(); }};
}
// Not a separate op: the same op's fast program (same bindings, bytes and statuses), listed so
// that `vyre emit` shows it and the golden-kernel test guards its lowering.
inline op_info lz4_fast_info() {
    return {lz4_fast_op_id, 1,
            "compression.lz4 with one block per workgroup of " + std::to_string(lz4_fast_lanes) +
                " invocations (fast variant, same results)",
            lz4_signature(), ir::convention::v1(), [] { return lz4_program_fast(); }};
}

// ---- running the programs --------------------------------------------------------------------

// A built program and how many blocks one of its workgroups decodes.
struct lz4_kernel {
    runtime::compiled_program program;
    std::uint32_t blocks_per_workgroup;
};

inline lz4_kernel make_lz4_kernel(lz4_variant v, std::uint32_t lanes = lz4_fast_lanes, std::uint32_t window = lz4_fast_window) {
    if (v == lz4_variant::reference) return {runtime::compiled_program(lz4_program_reference()), lz4_reference_workgroup};
    return {runtime::compiled_program(lz4_program_fast(lanes, window)), 1};
}

// The process-wide kernels of the default configurations, built on first use. `v` is a resolved
// variant (reference or fast).
inline const lz4_kernel& lz4_kernel_for(lz4_variant v) {
    if (v == lz4_variant::reference) {
        static const lz4_kernel reference = make_lz4_kernel(lz4_variant::reference);
        return reference;
    }
    static const lz4_kernel fast = make_lz4_kernel(lz4_variant::fast);
    return fast;
}

// Device buffers of one dispatch. Buffers hold whole u32 words: input and output must be at least
// their byte counts rounded up to a multiple of 4 (lz4_padded_bytes).
struct lz4_device_blocks {
    boost::compute::buffer input;
    std::uint64_t input_bytes = 0;
    boost::compute::buffer descriptors; // block_count * 5 words
    std::uint32_t block_count = 0;
    boost::compute::buffer output;
    std::uint64_t output_bytes = 0;
    boost::compute::buffer statuses; // block_count * 2 words
};

inline std::uint64_t lz4_padded_bytes(std::uint64_t bytes) { return (bytes + 3) / 4 * 4; }

// The largest block count whose descriptor words a u32 index reaches.
inline constexpr std::uint32_t lz4_max_blocks = std::numeric_limits<std::uint32_t>::max() / 5;

// A launch's parameter buffer and the words it holds. Pass the same one to launches with the same
// block count and byte counts and it is made once: replacing a buffer frees the old one, and the
// NVIDIA driver waits for the whole device before it frees memory, which would serialize launches
// and copies running on other queues.
struct lz4_launch_params {
    boost::compute::buffer buffer;
    std::array<std::uint32_t, lz4_param_words> words{};
};

// Enqueues one decompression launch and returns its event; nothing on the host waits, so launches
// on several queues overlap. No host-side descriptor checks: the kernel itself is safe whatever
// the descriptors say. `params` holds the launch's parameter buffer: keep it until the event.
inline boost::compute::event enqueue_lz4(runtime::context& ctx, const lz4_kernel& kernel, const lz4_device_blocks& b,
                                         lz4_launch_params& params) {
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    if (b.input_bytes > u32_max || b.output_bytes > u32_max)
        throw resource_error("compression.lz4: one dispatch addresses at most 2^32-1 input and output bytes (split into batches)");
    if (b.block_count > lz4_max_blocks)
        throw resource_error("compression.lz4: " + std::to_string(b.block_count) + " blocks in one dispatch; at most " +
                             std::to_string(lz4_max_blocks));
    if (b.block_count == 0) return {};
    const auto words = [](std::uint64_t bytes) { return static_cast<std::uint32_t>((bytes + 3) / 4); };
    const std::array<std::uint32_t, lz4_param_words> p = {b.block_count, static_cast<std::uint32_t>(b.input_bytes),
                                                          static_cast<std::uint32_t>(b.output_bytes), 0};
    // Filled at creation, not through the queue: no blocking write between launches.
    if (params.buffer.get() == nullptr || params.words != p) {
        params.buffer = runtime::detail::cl_call("clCreateBuffer", [&] {
            return boost::compute::buffer(ctx.cl_context(), sizeof p, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                          const_cast<std::uint32_t*>(p.data()));
        });
        params.words = p;
    }
    const runtime::buffer_arg args[] = {{b.input, words(b.input_bytes)},
                                        {b.descriptors, b.block_count * 5},
                                        {b.output, words(b.output_bytes)},
                                        {b.statuses, b.block_count * 2},
                                        {params.buffer, lz4_param_words}};
    return runtime::dispatch(ctx, kernel.program, {runtime::groups_for(b.block_count, kernel.blocks_per_workgroup), 1, 1}, args);
}

// The same with a parameter buffer made for this launch (stored in `params`).
inline boost::compute::event enqueue_lz4(runtime::context& ctx, const lz4_kernel& kernel, const lz4_device_blocks& b,
                                         boost::compute::buffer& params) {
    lz4_launch_params fresh;
    boost::compute::event e = enqueue_lz4(ctx, kernel, b, fresh);
    params = fresh.buffer;
    return e;
}

// What decompress_blocks returns: the output stays on the device (a next stage can use it as is);
// bytes no block produced are zero. statuses[i] belongs to descriptor i.
struct lz4_block_result {
    boost::compute::buffer output; // lz4_padded_bytes(output_bytes) bytes
    std::uint64_t output_bytes = 0;
    std::vector<block_status> statuses;
};

namespace detail {

inline boost::compute::buffer upload_bytes(runtime::context& ctx, std::span<const std::uint8_t> bytes) {
    auto b = runtime::allocate(ctx, lz4_padded_bytes(bytes.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, b, bytes.data(), bytes.size());
    return b;
}

inline void check_lz4_sizes(std::uint64_t input_bytes, std::uint64_t output_bytes, std::size_t blocks) {
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    if (input_bytes > u32_max || output_bytes > u32_max)
        throw resource_error("compression.lz4: input (" + std::to_string(input_bytes) + " bytes) and output (" +
                             std::to_string(output_bytes) + " bytes) of one call must each stay below 4 GiB; "
                             "make_block_batches splits larger work");
    if (blocks > lz4_max_blocks) throw resource_error("compression.lz4: " + std::to_string(blocks) + " blocks in one call");
}

} // namespace detail

// Decodes `blocks` of a device input (input_bytes bytes; the buffer holds them rounded up to whole
// words) into a new zero-filled device output of output_bytes. The descriptors are checked first
// (check_descriptors: ranges inside the buffers, no overlapping outputs, no reserved flags) and a
// bad one is a format_error; a corrupt block is not an error here but a status.
inline lz4_block_result decompress_blocks(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t input_bytes,
                                          std::span<const block_descriptor> blocks, std::uint64_t output_bytes,
                                          lz4_variant variant = lz4_variant::automatic) {
    detail::check_lz4_sizes(input_bytes, output_bytes, blocks.size());
    if (input.size() < lz4_padded_bytes(input_bytes))
        throw resource_error("compression.lz4: the input buffer holds " + std::to_string(input.size()) + " bytes, " +
                             std::to_string(lz4_padded_bytes(input_bytes)) + " needed (input bytes rounded up to words)");
    check_descriptors(blocks, input_bytes, output_bytes);
    lz4_block_result r;
    r.output_bytes = output_bytes;
    r.output = runtime::allocate(ctx, lz4_padded_bytes(output_bytes));
    const std::uint8_t zero = 0;
    runtime::detail::cl_call("clEnqueueFillBuffer", [&] {
        ctx.queue().enqueue_fill_buffer(r.output, &zero, 1, 0, r.output.size());
    });
    r.statuses.resize(blocks.size());
    if (blocks.empty()) return r;
    lz4_device_blocks b;
    b.input = input;
    b.input_bytes = input_bytes;
    b.descriptors = runtime::upload(ctx, blocks, CL_MEM_READ_ONLY);
    b.block_count = static_cast<std::uint32_t>(blocks.size());
    b.output = r.output;
    b.output_bytes = output_bytes;
    b.statuses = runtime::allocate(ctx, blocks.size() * sizeof(block_status));
    boost::compute::buffer params;
    enqueue_lz4(ctx, lz4_kernel_for(resolve(variant, ctx.device())), b, params);
    runtime::read(ctx, b.statuses, r.statuses.data(), blocks.size() * sizeof(block_status));
    return r;
}

// The same from host bytes (uploaded first).
inline lz4_block_result decompress_blocks(runtime::context& ctx, std::span<const std::uint8_t> input,
                                          std::span<const block_descriptor> blocks, std::uint64_t output_bytes,
                                          lz4_variant variant = lz4_variant::automatic) {
    detail::check_lz4_sizes(input.size(), output_bytes, blocks.size());
    return decompress_blocks(ctx, detail::upload_bytes(ctx, input), input.size(), blocks, output_bytes, variant);
}

// The first output_bytes of a result, copied to the host.
inline std::vector<std::uint8_t> read_output(runtime::context& ctx, const lz4_block_result& r) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(r.output_bytes));
    runtime::read(ctx, r.output, out.data(), out.size());
    return out;
}

// ---- whole LZ4 files -------------------------------------------------------------------------

struct lz4_frames_options {
    lz4_variant variant = lz4_variant::automatic;
    // Per dispatch; also lowered to the device's largest allocation. Smaller limits make more batches.
    batch_limits limits = {};
    // A hostile file may describe far more output than it holds: refuse above this.
    std::uint64_t max_output_bytes = std::numeric_limits<std::uint64_t>::max();
};

struct lz4_frames_report {
    std::size_t frames = 0;
    std::size_t blocks = 0;         // data blocks of every frame
    std::size_t device_blocks = 0;  // decoded by compression.lz4 on the device
    std::size_t host_blocks = 0;    // blocks of linked frames, decoded on the host
    std::size_t batches = 0;        // dispatches
    std::uint64_t input_bytes = 0;  // the file
    std::uint64_t output_bytes = 0; // decoded
};

// Decodes a whole LZ4 file (standard, legacy and skippable frames, in any order) and returns its
// content. format::parse_lz4_frames lists the blocks (checking headers and block checksums, and
// learning each block's exact size); every block of every frame with independent blocks (and of
// legacy frames) goes to the device in ONE dispatch per batch (make_block_batches: each batch's
// input and output windows stay below 4 GiB and the device's largest allocation). Frames with
// linked blocks are decoded on the host, in order, after the device batches: each of their blocks
// may copy from the previous 64 KiB of the frame's output, so block k cannot start before block
// k-1 has finished, which leaves a GPU nothing to run in parallel. Content sizes and content
// checksums are verified at the end; any mismatch, and any block whose device status is not
// {none, its exact size}, is a format_error naming the frame and block.
inline std::vector<std::uint8_t> decompress_frames(runtime::context& ctx, std::span<const std::uint8_t> file,
                                                   const lz4_frames_options& options = {}, lz4_frames_report* report = nullptr) {
    const format::lz4_layout layout = format::parse_lz4_frames(file);
    if (layout.output_size > options.max_output_bytes || layout.output_size > std::numeric_limits<std::size_t>::max() / 2)
        throw resource_error("LZ4 file decodes to " + std::to_string(layout.output_size) + " bytes, above the limit of " +
                             std::to_string(options.max_output_bytes));
    std::vector<std::uint8_t> output(static_cast<std::size_t>(layout.output_size));

    // The blocks the device decodes, and which layout block each one is (for messages).
    std::vector<block_extent> extents;
    std::vector<std::size_t> block_of;
    for (std::size_t i = 0; i < layout.blocks.size(); ++i)
        if (layout.frames[layout.blocks[i].frame].blocks_independent) {
            extents.push_back(layout.blocks[i].extent);
            block_of.push_back(i);
        }
    batch_limits limits = options.limits;
    const std::uint64_t device_max = ctx.device().max_allocation / 4 * 4;
    limits.max_input_bytes = std::min(limits.max_input_bytes, device_max);
    limits.max_output_bytes = std::min(limits.max_output_bytes, device_max);
    limits.max_blocks = std::min<std::size_t>(limits.max_blocks, lz4_max_blocks);
    const auto batches = make_block_batches(extents, limits);

    for (const block_batch& batch : batches) {
        const auto window = file.subspan(static_cast<std::size_t>(batch.input_base), static_cast<std::size_t>(batch.input_bytes));
        const lz4_block_result r = decompress_blocks(ctx, window, batch.blocks, batch.output_bytes, options.variant);
        for (std::size_t k = 0; k < batch.blocks.size(); ++k) {
            const std::size_t index = block_of[batch.first_extent + k];
            const format::lz4_block& b = layout.blocks[index];
            const block_status s = r.statuses[k];
            if (s.code != lz4_error::none || s.output_size != b.extent.output_size) {
                const auto& f = layout.frames[b.frame];
                throw format_error("LZ4 frame " + std::to_string(b.frame) + ", block " + std::to_string(index - f.first_block) +
                                       ": device decoding gave " + lz4_error_name(s.code) + " after " +
                                       std::to_string(s.output_size) + " bytes, " + std::to_string(b.extent.output_size) +
                                       " expected",
                                   b.extent.input_offset);
            }
        }
        // The whole window at once: bytes of linked frames inside it are decoded again below.
        runtime::read(ctx, r.output, output.data() + batch.output_base, static_cast<std::size_t>(batch.output_bytes));
    }
    std::size_t host_blocks = 0;
    for (std::size_t f = 0; f < layout.frames.size(); ++f)
        if (!layout.frames[f].blocks_independent) {
            format::lz4_decode_frame_cpu(layout, f, file, output);
            host_blocks += layout.frames[f].block_count;
        }
    format::verify_lz4_content(layout, output);
    if (report) {
        report->frames = layout.frames.size();
        report->blocks = layout.blocks.size();
        report->device_blocks = extents.size();
        report->host_blocks = host_blocks;
        report->batches = batches.size();
        report->input_bytes = file.size();
        report->output_bytes = output.size();
    }
    return output;
}

} // namespace vyre::ops::compression
