// compression.lz4's two IR programs, with identical results: the seed's one block per invocation
// (the reference variant) and one block per subgroup (the fast variant). The op's traits:
// ops/compression/lz4.hpp.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/compression/lz4.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/block_program.hpp>
#include <vyre/ops/op.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// Both programs decode exactly as reference::lz4_decompress (reference/lz4.hpp): same bytes in
// every block's output region, same status, whatever the input and the descriptors. They bind
// the five buffers of every block op (ops/block_op.hpp); the fourth parameter word is unused. A
// descriptor is checked against params' byte counts (not the buffers' word-rounded lengths), so a
// block outside the data gets {literal_overflow, 0} or {output_overflow, 0} as the reference says,
// and no invocation reads or writes outside [0, input bytes) and its own output region.

// The seed gives every block one invocation and workgroups of 1. Invocations of the reference
// program share nothing, so grouping 64 of them changes no result; it only lets a GPU fill its
// SIMD lanes (a workgroup of 1 runs one lane of 32) and launch 64 times fewer workgroups.
inline constexpr std::uint32_t lz4_reference_workgroup = 64;
// The fast program: one block per subgroup of this many invocations (one warp on NVIDIA GPUs;
// bench_lz4 --lanes compares others).
inline constexpr std::uint32_t lz4_fast_lanes = 32;
// Invocations per workgroup where the device runs subgroups as warps: 64 / lanes blocks each
// (one block each where they are emulated); bench_lz4 --blocks compares others.
inline constexpr std::uint32_t lz4_fast_group_invocations = 64;
// Bytes of each block's input staged in workgroup memory for the parse (bench_lz4 --stages). None
// by default: measured on the H100, staging costs more instructions than the loads it replaces
// (doc/ops/compression.lz4.md).
inline constexpr std::uint32_t lz4_fast_stage = 0;
// Bytes each lane copies per step of a literal or match copy (bench_lz4 --unrolls): its reads all
// issue before its writes.
inline constexpr std::uint32_t lz4_fast_unroll = 1;
// Bytes of recent output the fast program keeps in workgroup memory for matches to read (see the
// program's comment; bench_lz4 --windows compares them). None by default: measured on the H100, a
// window slowed the common 4 KiB and 64 KiB blocks, and since the one-step path (which it turns
// off) it slows 256 KiB blocks too (doc/ops/compression.lz4.md).
inline constexpr std::uint32_t lz4_fast_window = 0;

namespace detail {

// The status codes as plain u32 constants: the DSL takes integers, not enumerators.
namespace lz4_code {
namespace e = vyre::compression::lz4_error;
inline constexpr std::uint32_t none = e::none, corrupt_token = e::corrupt_token, offset_oob = e::offset_oob,
                               output_overflow = e::output_overflow, literal_overflow = e::literal_overflow,
                               match_overflow = e::match_overflow;
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

// A block's descriptor words and the dispatch's byte counts, as variables with the same names in
// both programs.
struct lz4_block_fields {
    dsl::variable<dsl::u32> in_base, in_size, out_base, capacity, flags, input_bytes, output_bytes;
};

template <class Block>
lz4_block_fields let_block_fields(dsl::kernel& k, const block_program_buffers& b, const Block& block) {
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
    d::kernel k(entry_name("compression.lz4"), {lz4_reference_workgroup, 1, 1});
    const block_program_buffers bufs = declare_block_buffers(k);
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
    // Named copies rather than a structured binding: the lambdas below capture them (C++20 allows
    // capturing bindings; clang before 16 does not).
    const detail::lz4_block_fields fields = detail::let_block_fields(k, bufs, block);
    const auto in_base = fields.in_base, n = fields.in_size, out_base = fields.out_base, cap = fields.capacity,
               flags = fields.flags, in_bytes = fields.input_bytes, out_bytes = fields.output_bytes;
    k.if_(in_base > in_bytes || n > in_bytes - in_base, [&] { finish(codes::literal_overflow, 0u); });
    k.if_(out_base > out_bytes || cap > out_bytes - out_base, [&] { finish(codes::output_overflow, 0u); });

    k.if_((flags & vyre::compression::block_flag_uncompressed) != 0u, [&] {
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
// One subgroup of `lanes` invocations (a power of two up to 32; 32 = one warp on NVIDIA GPUs)
// decodes one block, and a workgroup holds `blocks_per_workgroup` of them. Every lane parses the
// same sequence from the same bytes, so the parse is one instruction stream for the subgroup (its
// loads read one address) and all control flow around it is uniform in the subgroup. The lanes
// split only to copy: a sequence's literals, then its match, `lanes` bytes at a time, lane i taking
// bytes i, i + lanes, ...
//
// Why subgroups: blocks of one subgroup each share nothing but the workgroup's memory, and
// synchronise with subgroup barriers only, so a workgroup can hold several blocks without tying
// each to the slowest (a workgroup barrier would), and the device keeps more blocks in flight than
// with one small workgroup per block (an SM holds a limited number of workgroups). Where subgroups
// are emulated (lower::subgroup_lowering) the subgroup is the whole workgroup: one block each.
//
// The stage. Sequence headers and short literals are read from `stage` bytes of the block's input
// copied into workgroup memory by the whole subgroup (each lane a few bytes, wide coalesced reads,
// all in flight at once) instead of one byte at a time from global memory in the middle of the
// serial chain, where each new 32-byte sector would cost a full memory round trip. A sequence that
// starts with less than a quarter of the stage left refills it from its own start; literals,
// offsets and extension bytes that reach past the stage are read from global memory directly.
// stage = 0 builds the program reading global memory only.
//
// The window. A match usually copies bytes written a few hundred or thousand bytes earlier, by
// this same subgroup. Read back from global memory, those bytes make a round trip to the device's
// L2 cache in the middle of every sequence's serial chain. With a window, every output byte is
// also written to a ring of the last `window` bytes in workgroup memory (position p in slot
// p mod window of the block's own ring), and a match whose source and own bytes fit in the ring
// (offset + length <= window) reads from it; longer reaches read global memory as before.
//
// Ordering. Byte m of a match at offset o starting at p is out[p - o + (m mod o)], a position
// before p that another lane may have written. Every position below `fenced` was written before
// the last subgroup barrier, so every lane sees it; a match whose source reaches `fenced` first
// runs a barrier (uniform: every lane takes the same branch) and moves `fenced` to p. Most matches
// reach further back than the last sequence or two and need none. An overlapping match (o below
// its length) reads only its first o bytes of pattern, all before p, so its own writes never feed
// its reads and it needs no rounds. The ring adds two hazards, as its slots are reused: a lane
// still reading a slot for one match while another lane, already at a later sequence, overwrites
// it; and two lanes writing one slot (positions p and p + window) in either order. `ring_limit` is
// the first position whose slot is unsafe to write: the lowest source read since the last barrier
// plus window, and at most fenced + window. Writing at or past it runs the barrier first (once per
// window bytes of output at least). A match's own reads and writes never share a slot
// (offset + length <= window). The stage is rewritten only between two subgroup barriers, after
// every lane's last read of it.
//
// Errors and partial sizes come from the same checks in the same order as the reference program
// (reference::lz4_decompress_block): a failing step writes nothing, earlier steps' bytes stay.
// The three bytes after a sequence's literals (the offset, and the next token when the match
// length has no extension) are read before the literal copy so that their latency overlaps it;
// those reads are clamped to the block's last byte, and the values are used only once the checks
// have shown that the bytes belong to the block.

inline ir::program lz4_program_fast(std::uint32_t lanes = lz4_fast_lanes, std::uint32_t window = lz4_fast_window,
                                    std::uint32_t blocks_per_workgroup = 1, std::uint32_t stage = lz4_fast_stage,
                                    std::uint32_t unroll = lz4_fast_unroll) {
    namespace d = vyre::dsl;
    namespace codes = detail::lz4_code;
    if (!std::has_single_bit(lanes) || lanes > 32)
        throw resource_error("lz4_program_fast: lanes per block (" + std::to_string(lanes) +
                             ") must be a power of two in 1..32 (one block per subgroup of that many invocations)");
    if (blocks_per_workgroup == 0 || lanes * blocks_per_workgroup > 1024)
        throw resource_error("lz4_program_fast: " + std::to_string(blocks_per_workgroup) + " blocks per workgroup of " +
                             std::to_string(lanes) + " lanes each; it takes 1 or more, at most 1024 invocations in all");
    // One pass of a copy writes `lanes` consecutive positions; with a ring at least that long,
    // two positions `window` apart in one copy are written by the same invocation, in order.
    if (window != 0 && (!std::has_single_bit(window) || window < std::max(lanes, 4u) || window > 65536))
        throw resource_error("lz4_program_fast: window (" + std::to_string(window) + " bytes) must be 0 (none) or a power of two in " +
                             std::to_string(std::max(lanes, 4u)) + "..65536 (at least the " + std::to_string(lanes) + " lanes)");
    if (unroll == 0 || unroll > 8)
        throw resource_error("lz4_program_fast: unroll (" + std::to_string(unroll) + " bytes per lane per copy step) must be in 1..8");
    // A refill happens with less than stage / 4 bytes left, and must leave room for a token.
    if (stage != 0 && (!std::has_single_bit(stage) || stage < 16 || stage > 4096))
        throw resource_error("lz4_program_fast: stage (" + std::to_string(stage) + " bytes) must be 0 (none) or a power of two in 16..4096");
    const std::uint32_t blocks = blocks_per_workgroup;
    d::kernel k(entry_name("compression.lz4.fast"), {lanes * blocks, 1, 1});
    k.use_subgroups(lanes);
    const block_program_buffers bufs = declare_block_buffers(k);
    const auto& in = bufs.input;
    const auto& out = bufs.output;
    const auto& st = bufs.statuses;
    const auto& params = bufs.params;
    d::workgroup_buffer<d::bytes> ring{"window"};
    if (window != 0) ring = k.workgroup<d::bytes>("window", window * blocks);
    d::workgroup_buffer<d::bytes> staged{"staged"};
    if (stage != 0) staged = k.workgroup<d::bytes>("staged", stage * blocks);
    const std::uint32_t slot_mask = window - 1;

    const auto lane = k.let("lane", d::subgroup_local_id());
    const auto block = k.let("block_index", d::workgroup_id() * blocks + d::subgroup_id());
    k.if_(block >= params[0u], [&] { k.return_(); });
    // Named copies rather than a structured binding: the lambdas below capture them (C++20 allows
    // capturing bindings; clang before 16 does not).
    const detail::lz4_block_fields fields = detail::let_block_fields(k, bufs, block);
    const auto in_base = fields.in_base, n = fields.in_size, out_base = fields.out_base, cap = fields.capacity,
               flags = fields.flags, in_bytes = fields.input_bytes, out_bytes = fields.output_bytes;
    const auto code = k.let("code", codes::none);
    const auto op = k.let("op", 0u); // invariant: op <= cap
    // This block's parts of the workgroup buffers.
    const auto ring_base = k.let("ring_base", d::subgroup_id() * window);
    const auto stage_base = k.let("stage_base", d::subgroup_id() * stage);
    // out[out_base + to + j] = source(j) for j < count, lane i taking j = i, i + lanes, ...; with
    // `keep`, the byte also goes to the ring. With unroll u, each step covers lanes * u bytes: every
    // lane first reads its u bytes (indices past the end read the last byte again, so no read
    // leaves the source), then writes those that belong to the copy. Every caller has checked
    // to + count <= cap, and every source stays inside the block's input or before out_base + to,
    // so neither the loads nor the stores test their indices (ir::bounds); nor do the ring's,
    // masked into this block's part. A count may be near 2^32 (a literal run or a match of a
    // block of nearly 4 GiB): j steps by strided_next, and a byte is written while
    // u * lanes < count - j, which cannot wrap as j + u * lanes < count would. (Where
    // j + u * lanes wraps, the load's index falls below u * lanes, inside the source, and the
    // byte is not written.)
    const auto copy = [&](const std::string& name, const auto& to, const auto& count, const auto& source, bool keep) {
        const auto j = k.let(name, lane);
        k.while_(j < count, [&] {
            std::vector<d::variable<d::u32>> bytes;
            for (std::uint32_t u = 0; u < unroll; ++u)
                bytes.push_back(u == 0 ? k.let(name + "_byte", source(j))
                                       : k.let(name + "_byte" + std::to_string(u), source(d::min(j + u * lanes, count - 1u))));
            for (std::uint32_t u = 0; u < unroll; ++u) {
                const auto write = [&] {
                    k.store_unchecked(out, out_base + to + j + u * lanes, bytes[u]);
                    if (keep) k.store_unchecked(ring, ring_base + ((to + j + u * lanes) & slot_mask), bytes[u]);
                };
                if (u == 0) write();
                else k.if_(u * lanes < count - j, write);
            }
            j = strided_next(j, lanes * unroll);
        });
    };

    // An overlapping match: out[out_base + to + j] = read(j mod period) (repeat_pattern,
    // ops/block_program.hpp). With unroll > 1, the copy above with the division.
    const auto repeat = [&](const std::string& name, const auto& to, const auto& count, const auto& period, const auto& read, bool keep) {
        if (unroll != 1) {
            copy(name, to, count, [&](const auto& j) { return read(j % period); }, keep);
            return;
        }
        repeat_pattern(k, name, count, period, lane, lanes, read, [&](const auto& j, const auto& byte) {
            k.store_unchecked(out, out_base + to + j, byte);
            if (keep) k.store_unchecked(ring, ring_base + ((to + j) & slot_mask), byte);
        });
    };

    k.if_(in_base > in_bytes || n > in_bytes - in_base, [&] { code = codes::literal_overflow; }).else_([&] {
        k.if_(out_base > out_bytes || cap > out_bytes - out_base, [&] { code = codes::output_overflow; }).else_([&] {
            k.if_((flags & vyre::compression::block_flag_uncompressed) != 0u, [&] {
                k.if_(n > cap, [&] { code = codes::output_overflow; }).else_([&] {
                    copy("stored_j", 0u, n, [&](const auto& j) { return in.unchecked(in_base + j); }, false);
                    op = n;
                });
            }).else_([&] {
                const bool windowed = window != 0;
                const auto ip = k.let("ip", 0u); // invariant: ip <= n
                const auto last_byte = k.let("last_byte", in_base + n - 1u); // used in the loop below, where n >= 1
                const auto fenced = k.let("fenced", 0u);
                // fenced + window at first: nothing read yet (declared only with the ring)
                std::optional<d::variable<d::u32>> ring_limit;
                if (windowed) ring_limit.emplace(k.let("ring_limit", window));
                // The stage holds input bytes [stage_from, stage_from + stage) of the block. It is
                // refilled in one place only, at the top of a sequence with fewer than stage / 4
                // bytes left in it (stage_from starts a whole stage back, so the first sequence
                // fills it); bytes a sequence needs past it come from global memory. (One fill
                // site, as each barrier site multiplies the work of compilers that run a
                // workgroup's invocations in loops, such as PoCL's.)
                const bool staging = stage != 0;
                const auto stage_from = k.let("stage_from", 0u - stage);
                const auto staged_at = [&](const auto& at) { return staged[stage_base + (at - stage_from)]; };
                // `into` = the input byte at block position `at` < n, from the stage when it holds it.
                const auto read_byte = [&](const auto& into, const auto& at) {
                    if (!staging) {
                        into = in.unchecked(in_base + at);
                    } else {
                        k.if_(at - stage_from < stage, [&] { into = staged_at(at); }).else_([&] { into = in.unchecked(in_base + at); });
                    }
                };
                const auto token = k.let("token", 0u);
                if (!staging) token = in[in_base];
                // Where the match length takes an extension, `token` (loaded ahead) holds its first
                // byte. Narrow shapes (no one-step path, below) also load the byte after it, the
                // next token: measured faster at 8 and 16 lanes and slower at 32, which load the
                // next token after the extension (doc/ops/compression.lz4.md).
                const bool extension_ahead = !staging && !windowed && lanes < 32;
                std::optional<d::variable<d::u32>> token_after;
                if (extension_ahead) token_after.emplace(k.let("token_after", 0u));
                const auto sync = [&] {
                    k.subgroup_barrier();
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
                        read_byte(extra, ip);
                        ip = ip + 1u;
                        length = detail::saturating_add(length, extra);
                    });
                };
                k.while_(ip < n, [&] {
                    if (staging) {
                        k.if_(ip - stage_from > stage - stage / 4, [&] {
                            k.subgroup_barrier(); // every lane is done reading the old bytes
                            stage_from = ip;
                            const auto t = k.let("fill_t", lane);
                            k.while_(t < stage, [&] {
                                k.store(staged, stage_base + t, in[in_base + stage_from + t]);
                                t = t + lanes;
                            });
                            k.subgroup_barrier();
                        });
                        token = staged_at(ip);
                    }
                    ip = ip + 1u;
                    const auto literal_length = k.let("literal_length", token >> 4u);
                    const auto match_length = k.let("match_length", (token & 15u) + 4u);
                    k.if_(literal_length == 15u, [&] { extend("literal_extra", literal_length); });
                    k.if_(code == codes::none && literal_length > n - ip, [&] { code = codes::literal_overflow; });
                    k.if_(code == codes::none && literal_length > cap - op, [&] { code = codes::output_overflow; });
                    k.if_(code != codes::none, [&] { k.break_(); });
                    const auto after = k.let("after_literals", ip + literal_length); // <= n
                    const auto offset = k.let("offset", 0u);
                    if (windowed) k.if_(op + literal_length > *ring_limit, sync);
                    // The offset and the next token, loaded before the tests that make them
                    // needed, so that their latency passes during the tests and copies; clamped
                    // into the block (n >= 1 here), which changes no byte that is used: the offset
                    // only where two bytes follow the literals, the token only where a sequence
                    // follows the match.
                    const auto load_ahead = [&] {
                        offset = in.unchecked(d::min(in_base + after, last_byte)) | (in.unchecked(d::min(in_base + after + 1u, last_byte)) << 8u);
                        if (!staging) token = in.unchecked(d::min(in_base + after + 2u, last_byte));
                        if (extension_ahead) *token_after = in.unchecked(d::min(in_base + after + 3u, last_byte));
                    };
                    // A short sequence in one step: literals and match of at most `lanes` bytes
                    // each, no match-length extension, every test of the steps below passed, and
                    // a match that does not overlap itself. Each lane reads its literal byte and
                    // its match byte before it writes either, so the two reads' latencies
                    // overlap, where the steps below wait for each copy's reads in turn. A match
                    // byte that this sequence's literals write comes from the input instead (the
                    // literal it copies), so only bytes written by earlier sequences need the
                    // barrier. Only where a block has a subgroup of 32 to itself (a warp on
                    // NVIDIA GPUs): narrower blocks share a warp, and blocks that take the step
                    // and blocks that do not would split it (doc/ops/compression.lz4.md).
                    const bool short_sequences = !staging && !windowed && lanes == 32;
                    if (short_sequences) {
                        load_ahead();
                        const auto one_step = k.let("one_step", literal_length <= lanes && match_length <= lanes && match_length != 19u &&
                                                                    n - after >= 2u && offset >= match_length &&
                                                                    offset <= op + literal_length && match_length <= cap - op - literal_length);
                        k.if_(one_step, [&] {
                            const auto literal_at = k.let("step_literal_at", in_base + ip);
                            const auto from = k.let("step_from", op + literal_length - offset);
                            k.if_(d::min(from + match_length, op) > fenced, sync);
                            const auto literal = k.let("step_literal", in.unchecked(d::min(literal_at + lane, last_byte)));
                            // Lanes past the match read its last source byte again: a read of
                            // a position the barrier test did not cover would race with the lane
                            // that wrote it, even though the byte is not stored.
                            const auto source = k.let("step_source", from + d::min(lane, match_length - 1u));
                            const auto matched = k.let("step_match", 0u);
                            k.if_(source < op, [&] { matched = out.unchecked(out_base + source); }).else_([&] {
                                matched = in.unchecked(d::min(literal_at + (source - op), last_byte));
                            });
                            k.if_(lane < literal_length, [&] { k.store_unchecked(out, out_base + op + lane, literal); });
                            k.if_(lane < match_length, [&] { k.store_unchecked(out, out_base + op + literal_length + lane, matched); });
                            ip = after + 2u;
                            op = op + literal_length + match_length;
                            k.continue_();
                        });
                    }
                    const auto from_global = [&] {
                        const auto literal_at = k.let("literal_at", in_base + ip);
                        if (!short_sequences) load_ahead();
                        copy("literal_j", op, literal_length, [&](const auto& j) { return in.unchecked(literal_at + j); }, windowed);
                    };
                    if (!staging) {
                        from_global();
                    } else {
                        // The literals and the two offset bytes from the stage when it holds them
                        // (after >= stage_from, so the difference does not wrap).
                        k.if_(after - stage_from <= stage - 2u, [&] {
                            offset = staged_at(after) | (staged_at(after + 1u) << 8u);
                            const auto literal_at = k.let("staged_literal_at", stage_base + (ip - stage_from));
                            copy("staged_literal_j", op, literal_length, [&](const auto& j) { return staged[literal_at + j]; }, windowed);
                        }).else_(from_global);
                    }
                    ip = after;
                    op = op + literal_length;
                    k.if_(ip == n, [&] { k.break_(); });

                    k.if_(n - ip < 2u, [&] {
                        code = codes::corrupt_token;
                        k.break_();
                    });
                    ip = ip + 2u;
                    k.if_(match_length == 19u, [&] {
                        if (staging) {
                            extend("match_extra", match_length); // the next token is read at the top of the loop
                            return;
                        }
                        // One extension byte (below 255) was loaded ahead: where ip < n, `token`
                        // is the byte at ip. Narrow shapes loaded the next token after it too
                        // (used only where ip + 1 < n, and then token_after is the byte there),
                        // so the chain waits for no load; the others load it now. Longer chains
                        // read on.
                        k.if_(token < 255u && ip < n, [&] {
                            match_length = match_length + token;
                            ip = ip + 1u;
                            if (extension_ahead) token = *token_after;
                            else token = in.unchecked(in_base + d::min(ip, n - 1u));
                        }).else_([&] {
                            extend("match_extra", match_length);
                            // ip <= n, and the token is used only where ip < n
                            token = in.unchecked(in_base + d::min(ip, n - 1u));
                        });
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
                            copy("match_j", op, match_length, [&](const auto& j) { return out.unchecked(out_base + from + j); }, windowed);
                        }).else_([&] {
                            repeat("repeat_j", op, match_length, offset, [&](const auto& at) { return out.unchecked(out_base + from + at); },
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
                                copy("near_j", op, match_length,
                                     [&](const auto& j) { return ring.unchecked(ring_base + ((from + j) & slot_mask)); }, true);
                            }).else_([&] {
                                repeat("near_repeat_j", op, match_length, offset,
                                       [&](const auto& at) { return ring.unchecked(ring_base + ((from + at) & slot_mask)); }, true);
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

} // namespace vyre::ops::compression
