// compression.deflate.block_starts: where a long DEFLATE stream can be cut into pieces, found on
// the device. The same answer as format::deflate_split_points (format/deflate_split.hpp), which
// the host reaches by testing bit after bit: for every multiple m of the piece size, the first
// bit in [m, m + piece size) bytes where a dynamic-Huffman block header starts whose codes the
// decoder accepts (reference::deflate_dynamic_block_at). Each bit goes through two tests:
//
//   1. Cheap tests on the header's first 74 bits (four word loads): BTYPE 2, HLIT and HDIST in
//      range, the code-length code's lengths present in the stream and complete (their Kraft
//      sum). On compressed data about one bit in 1,400 passes (a fifth pass the first three).
//   2. A bit that passes reads the literal/length and distance code lengths as the decoder does,
//      keeping for each code only its Kraft sum (in 2^-15ths), whether it has codes of two bits
//      or more, and whether end-of-block has a code: enough to tell over-subscribed, incomplete
//      (allowed only for codes of one bit) and a missing end-of-block, without the lengths.
//      It stops at the first failure (on compressed data after about 46 code-length symbols);
//      an over-subscribed code fails as soon as its sum passes 1.
//
// Test 2 is a serial walk of hundreds of bits, so where one invocation of a subgroup runs it the
// others wait. Two programs therefore split the tests (find_deflate_blocks_at):
//   - compression.deflate.block_starts.candidates: a workgroup per window, a byte's eight bits per
//     invocation, 256 bytes a step over the whole window; every bit that passes test 1 is appended
//     to a list (an atomic count, then the window's slot and the bit);
//   - compression.deflate.block_starts.check: an invocation per listed bit runs test 2, so that a
//     subgroup's lanes walk 32 candidates side by side; an accepted bit lowers its window's slot
//     with an atomic minimum.
// Where the list would pass its capacity (an input made to pass test 1 everywhere), the one-program
// search runs instead (compression.deflate.block_starts: a workgroup per window in order, a step
// of 256 bytes at a time, test 2 where test 1 passes, stopping after the first step that found a
// start), with the same answer.
//
// The slots are each window's offset in bits from m (0xFFFFFFFF: none), so the host reads back
// 4 bytes per piece. A chance pass is still only a guess: inflate_split checks every piece ends
// where the next starts (ops/compression/deflate_split.hpp).
#pragma once

#include <vyre/compression/deflate.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/runtime/program_cache.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::ops::compression {

inline constexpr std::uint32_t deflate_block_starts_workgroup = 256;
// A window's offsets in bits, and the stream's bit positions, stay below 2^32.
inline constexpr std::uint64_t deflate_block_starts_max_piece = (std::uint64_t{1} << 29) - 1;
inline constexpr std::uint64_t deflate_block_starts_max_stream = (std::uint64_t{1} << 29) - 1;
inline constexpr std::uint32_t deflate_no_block_start = 0xFFFFFFFFu;

namespace deflate_block_starts_binding {
inline constexpr std::uint32_t input = 0, found = 1, windows = 2, params = 3;
// The candidates program writes `candidates` (a count, then a window's slot and a bit per
// candidate) in place of `found`; the check program reads them as a fifth binding.
inline constexpr std::uint32_t candidates = 1, listed = 4;
} // namespace deflate_block_starts_binding

// The candidates of a search are listed in a buffer of 1 + 2 * capacity words; by default the
// capacity is one candidate per 512 bits of the windows (on compressed data about one bit in
// 1,400 passes test 1), at least this many.
inline constexpr std::uint64_t deflate_block_candidates_min_capacity = 4096;
inline constexpr std::uint64_t deflate_block_candidates_bits_each = 512;

// One window of a search, in bytes of the input buffer: headers may start in [first, first +
// bytes), and must lie before stream_end, where the window's stream ends (several streams may
// share the buffer). Three u32 words each in the windows binding.
struct deflate_search_window {
    std::uint32_t first = 0, bytes = 0, stream_end = 0;
};
static_assert(sizeof(deflate_search_window) == 12);

namespace detail {

// Step 2 at the top of this file: whether the codes of the dynamic block header whose BTYPE ends
// `start` bits into byte `byte` of `in` (n bytes) are usable. `v` holds the header's bits from
// BFINAL on, `fields` the code-length code's 3-bit lengths (field f for symbol
// deflate_code_length_order[f], zeros past HCLEN's), whose Kraft sum is known to be complete.
inline vyre::dsl::variable<vyre::dsl::boolean> deflate_codes_accepted(vyre::dsl::kernel& k, const vyre::dsl::input_buffer<vyre::dsl::bytes>& in,
                                                                      const auto& n, const auto& byte, const auto& start, const auto& v,
                                                                      const auto& fields) {
    namespace d = vyre::dsl;
    using vyre::compression::deflate_code_length_codes;
    using vyre::compression::deflate_code_length_order;
    // Each code-length symbol's length, and how many symbols have each length (5 bits per length
    // 1..7), for a canonical decode.
    std::vector<d::variable<d::u32>> clen;
    for (std::uint32_t s = 0; s < deflate_code_length_codes; ++s) clen.push_back(k.let("clen" + std::to_string(s), 0u));
    const auto counts = k.let("clen_counts", d::lit<d::u64>(0));
    for (std::uint32_t f = 0; f < deflate_code_length_codes; ++f) {
        auto& l = clen[deflate_code_length_order[f]];
        l = d::cast<d::u32>(fields >> d::lit<d::u64>(3 * f)) & 7u;
        counts = counts + d::select(l != 0u, d::lit<d::u64>(1) << d::cast<d::u64>(l * 5u - 5u), d::lit<d::u64>(0));
    }
    // The lengths, read a bit at a time: `acc` holds the next `held` bits, `ip` is the next byte.
    const auto ok = k.let("ok", true);
    const auto ip = k.let("ip", byte + (start >> 3u));
    const auto acc = k.let("acc", in[ip] >> (start & 7u));
    const auto held = k.let("held", 8u - (start & 7u));
    ip = ip + 1u;
    const auto take = [&](const auto& count, const auto& value) {
        const auto t = k.let("take_t", 0u);
        value = 0u;
        k.while_(t < count, [&] {
            k.if_(held == 0u, [&] {
                k.if_(ip >= n, [&] { ok = false; }); // input_overrun
                acc = in[ip];
                ip = ip + 1u;
                held = 8u;
            });
            value = value | ((acc & 1u) << t);
            acc = acc >> 1u;
            held = held - 1u;
            t = t + 1u;
        });
    };
    const auto nlen = k.let("nlen", ((v >> 3u) & 31u) + 257u);
    const auto total = k.let("total", nlen + ((v >> 8u) & 31u) + 1u);
    const auto index = k.let("index", 0u);
    const auto previous = k.let("previous", 0u);
    const auto lit_kraft = k.let("lit_kraft", 0u);
    const auto dist_kraft = k.let("dist_kraft", 0u);
    const auto lit_long = k.let("lit_long", false);
    const auto dist_long = k.let("dist_long", false);
    const auto end_of_block = k.let("end_of_block", false);
    const auto bit = k.let("bit", 0u);
    const auto extra = k.let("extra", 0u);
    k.while_(ok && index < total, [&] {
        // A symbol of the code-length code, its code growing a bit per step (the reference's
        // decode): its length and its rank among the symbols of that length.
        const auto code = k.let("code", 0u);
        const auto first = k.let("first", 0u);
        const auto length = k.let("length", 1u);
        const auto rank = k.let("rank", 0xFFFFFFFFu);
        k.while_(ok && length <= 7u, [&] {
            take(1u, bit);
            code = code | bit;
            const auto c = k.let("c", d::cast<d::u32>(counts >> d::cast<d::u64>(length * 5u - 5u)) & 31u);
            k.if_(code - first < c, [&] {
                rank = code - first;
                k.break_();
            });
            first = (first + c) << 1u;
            code = code << 1u;
            length = length + 1u;
        });
        k.if_(rank == 0xFFFFFFFFu, [&] { ok = false; }); // input ran out (a complete code has no invalid code)
        const auto symbol = k.let("symbol", 0u);
        for (std::uint32_t s = 0; s < deflate_code_length_codes; ++s) {
            k.if_(clen[s] == length, [&] {
                k.if_(rank == 0u, [&] { symbol = s; });
                rank = rank - 1u;
            });
        }
        const auto len = k.let("len", symbol);
        const auto repeat = k.let("repeat", 1u);
        k.if_(symbol == 16u, [&] {
            k.if_(index == 0u, [&] { ok = false; });
            take(2u, extra);
            len = previous;
            repeat = 3u + extra;
        });
        k.if_(symbol == 17u, [&] {
            take(3u, extra);
            len = 0u;
            repeat = 3u + extra;
        });
        k.if_(symbol == 18u, [&] {
            take(7u, extra);
            len = 0u;
            repeat = 11u + extra;
        });
        k.if_(index + repeat > total, [&] { ok = false; });
        k.if_(ok && len != 0u, [&] {
            const auto literal = k.let("literal", d::min(index + repeat, nlen) - d::min(index, nlen));
            const auto distance = k.let("distance", repeat - literal);
            lit_kraft = lit_kraft + (literal << (15u - len));
            dist_kraft = dist_kraft + (distance << (15u - len));
            lit_long = lit_long || (len >= 2u && literal != 0u);
            dist_long = dist_long || (len >= 2u && distance != 0u);
            end_of_block = end_of_block || (index <= 256u && index + repeat > 256u);
        });
        k.if_(lit_kraft > 32768u || dist_kraft > 32768u, [&] { ok = false; }); // over-subscribed: the sums only grow
        previous = len;
        index = index + repeat;
    });
    return k.let("accepted", ok && end_of_block && (lit_kraft == 32768u || !lit_long) && (dist_kraft == 32768u || !dist_long));
}

// Test 1 at the top of this file for the header whose BFINAL is bit q of [lo, hi) (16 bytes from
// the word holding byte i; q < 32) and bit `at` of the stream (n bytes): `v` the header's bits from
// BFINAL on, `ncode` the code-length lengths it has, `fields` their 3-bit lengths (field f for
// symbol deflate_code_length_order[f]; zeros past HCLEN's), `plausible` whether the cheap tests
// pass and the code-length code is complete.
struct deflate_header_bits {
    vyre::dsl::variable<vyre::dsl::u32> v, ncode;
    vyre::dsl::variable<vyre::dsl::u64> fields;
    vyre::dsl::variable<vyre::dsl::boolean> plausible;
};

inline deflate_header_bits deflate_header_at(vyre::dsl::kernel& k, const auto& lo, const auto& hi, const auto& q, const auto& at,
                                             const auto& n) {
    namespace d = vyre::dsl;
    // 64 bits of [lo, hi) from bit s (s < 64; hi << 64 written as two shifts).
    const auto bits_from = [&](const auto& s) {
        return (lo >> d::cast<d::u64>(s)) | ((hi << d::lit<d::u64>(1)) << d::cast<d::u64>(63u - s));
    };
    const deflate_header_bits h{k.let("v", d::cast<d::u32>(bits_from(q))), k.let("ncode", 0u), k.let("fields", d::lit<d::u64>(0)),
                                k.let("plausible", false)};
    h.ncode = ((h.v >> 13u) & 15u) + 4u;
    // The header's bits before the lengths: 3 + 14 + 3 per code-length length (n < 2^29).
    const auto header_end = k.let("header_end", at + 17u + h.ncode * 3u);
    const auto cheap = k.let("cheap", ((h.v >> 1u) & 3u) == 2u && ((h.v >> 3u) & 31u) <= 29u && ((h.v >> 8u) & 31u) <= 29u &&
                                          header_end <= n * 8u);
    k.if_(cheap, [&] {
        h.fields = bits_from(q + 17u) & ((d::lit<d::u64>(1) << d::cast<d::u64>(h.ncode * 3u)) - d::lit<d::u64>(1));
        const auto kraft = k.let("clen_kraft", 0u); // in 128ths: complete at 128
        for (std::uint32_t f = 0; f < vyre::compression::deflate_code_length_codes; ++f) {
            const auto l = k.let("kraft_l" + std::to_string(f), d::cast<d::u32>(h.fields >> d::lit<d::u64>(3 * f)) & 7u);
            kraft = kraft + d::select(l != 0u, 128u >> l, 0u);
        }
        h.plausible = kraft == 128u;
    });
    return h;
}

// lo and hi of deflate_header_at: the 16 bytes from the word holding byte i (zeros past the end).
inline auto deflate_header_words(vyre::dsl::kernel& k, const vyre::dsl::input_buffer<vyre::dsl::bytes>& in, const auto& i) {
    namespace d = vyre::dsl;
    const auto a = k.let("a", i & ~3u);
    const auto lo = k.let("lo", d::cast<d::u64>(in.u32_le(a)) | (d::cast<d::u64>(in.u32_le(a + 4u)) << d::lit<d::u64>(32)));
    const auto hi = k.let("hi", d::cast<d::u64>(in.u32_le(a + 8u)) | (d::cast<d::u64>(in.u32_le(a + 12u)) << d::lit<d::u64>(32)));
    return std::pair{lo, hi};
}

} // namespace detail

// params: the windows. Workgroup w searches window w (deflate_search_window, the windows
// binding) and lowers found's slot w.
inline ir::program deflate_block_starts_program(std::uint32_t workgroup = deflate_block_starts_workgroup) {
    namespace d = vyre::dsl;
    d::kernel k(entry_name("compression.deflate.block_starts"), {workgroup, 1, 1});
    const auto in = k.input<d::bytes>("input", deflate_block_starts_binding::input);
    const auto found = k.output<d::u32>("found", deflate_block_starts_binding::found);
    const auto windows = k.input<d::u32>("windows", deflate_block_starts_binding::windows);
    const auto params = k.uniform<d::u32>("params", deflate_block_starts_binding::params);
    const auto step = k.workgroup<d::u32>("step", 1);
    const auto slot = k.let("slot", d::workgroup_id());
    k.if_(slot < params[0u], [&] {
        const auto window_start = k.let("window_start", windows[slot * 3u]);
        const auto window_bytes = k.let("window_bytes", windows[slot * 3u + 1u]);
        const auto n = k.let("n", windows[slot * 3u + 2u]);
        const auto from = k.let("from", 0u);
        k.while_(from < window_bytes, [&] {
            const auto first_bit = k.let("first_bit", (from + d::local_id()) * 8u); // of this byte, from the window's start
            const auto i = k.let("i", window_start + from + d::local_id());
            const auto words = detail::deflate_header_words(k, in, i);
            const auto &lo = words.first, &hi = words.second;
            const auto o = k.let("o", 0u);
            k.while_(from + d::local_id() < window_bytes && o < 8u, [&] {
                const auto h = detail::deflate_header_at(k, lo, hi, (i & 3u) * 8u + o, i * 8u + o, n);
                k.if_(h.plausible, [&] {
                    const auto earlier = k.let("earlier", d::atomic_or(found, slot, 0u));
                    k.if_(earlier > first_bit + o, [&] {
                        const auto accepted = detail::deflate_codes_accepted(k, in, n, i, o + 17u + h.ncode * 3u, h.v, h.fields);
                        k.if_(accepted, [&] {
                            k.let("lowered", d::atomic_min(found, slot, first_bit + o));
                            k.break_(); // a later bit of this byte is a later start
                        });
                    });
                });
                o = o + 1u;
            });
            // The step's starts are in: one invocation reads the slot for all.
            k.barrier();
            k.if_(d::local_id() == 0u, [&] {
                const auto now = k.let("now", d::atomic_or(found, slot, 0u));
                k.store(step, 0u, now);
            });
            k.barrier();
            k.if_(step[0u] != deflate_no_block_start, [&] { k.break_(); });
            from = from + workgroup;
        });
    });
    return k.program();
}

// params: the windows, the list's capacity. Workgroup w goes through window w and lists every bit
// that passes test 1: candidates[0] counts them all, and the first `capacity` are at
// candidates[1 + 2j] (the window's slot) and [2 + 2j] (the bit, from the window's first byte).
inline ir::program deflate_block_candidates_program(std::uint32_t workgroup = deflate_block_starts_workgroup) {
    namespace d = vyre::dsl;
    d::kernel k(entry_name("compression.deflate.block_starts.candidates"), {workgroup, 1, 1});
    const auto in = k.input<d::bytes>("input", deflate_block_starts_binding::input);
    const auto candidates = k.output<d::u32>("candidates", deflate_block_starts_binding::candidates);
    const auto windows = k.input<d::u32>("windows", deflate_block_starts_binding::windows);
    const auto params = k.uniform<d::u32>("params", deflate_block_starts_binding::params);
    const auto slot = k.let("slot", d::workgroup_id());
    k.if_(slot < params[0u], [&] {
        const auto window_start = k.let("window_start", windows[slot * 3u]);
        const auto window_bytes = k.let("window_bytes", windows[slot * 3u + 1u]);
        const auto n = k.let("n", windows[slot * 3u + 2u]);
        const auto from = k.let("from", d::local_id());
        k.while_(from < window_bytes, [&] {
            const auto i = k.let("i", window_start + from);
            const auto words = detail::deflate_header_words(k, in, i);
            const auto &lo = words.first, &hi = words.second;
            const auto o = k.let("o", 0u);
            k.while_(o < 8u, [&] {
                const auto h = detail::deflate_header_at(k, lo, hi, (i & 3u) * 8u + o, i * 8u + o, n);
                k.if_(h.plausible, [&] {
                    const auto j = k.let("j", d::atomic_add(candidates, 0u, 1u));
                    k.if_(j < params[1u], [&] {
                        k.store(candidates, 1u + 2u * j, slot);
                        k.store(candidates, 2u + 2u * j, from * 8u + o);
                    });
                });
                o = o + 1u;
            });
            from = from + workgroup;
        });
    });
    return k.program();
}

// params: the candidates listed (at most the list's capacity). Invocation j runs test 2 on
// candidate j of `listed` (as the candidates program wrote it) and lowers found's slot where it
// passes.
inline ir::program deflate_block_check_program(std::uint32_t workgroup = deflate_block_starts_workgroup) {
    namespace d = vyre::dsl;
    d::kernel k(entry_name("compression.deflate.block_starts.check"), {workgroup, 1, 1});
    const auto in = k.input<d::bytes>("input", deflate_block_starts_binding::input);
    const auto found = k.output<d::u32>("found", deflate_block_starts_binding::found);
    const auto windows = k.input<d::u32>("windows", deflate_block_starts_binding::windows);
    const auto params = k.uniform<d::u32>("params", deflate_block_starts_binding::params);
    const auto listed = k.input<d::u32>("listed", deflate_block_starts_binding::listed);
    const auto j = k.let("j", d::invocation_id());
    k.if_(j < params[0u], [&] {
        const auto slot = k.let("slot", listed[1u + 2u * j]);
        const auto bit = k.let("listed_bit", listed[2u + 2u * j]);
        const auto n = k.let("n", windows[slot * 3u + 2u]);
        const auto i = k.let("i", windows[slot * 3u] + (bit >> 3u));
        const auto o = k.let("o", bit & 7u);
        const auto words = detail::deflate_header_words(k, in, i);
        const auto h = detail::deflate_header_at(k, words.first, words.second, (i & 3u) * 8u + o, i * 8u + o, n);
        k.if_(h.plausible, [&] {
            const auto accepted = detail::deflate_codes_accepted(k, in, n, i, o + 17u + h.ncode * 3u, h.v, h.fields);
            k.if_(accepted, [&] { k.let("lowered", d::atomic_min(found, slot, bit)); });
        });
    });
    return k.program();
}

inline std::vector<op_info> deflate_block_starts_infos() {
    const ir::op_signature sig{{ir::data_type::bytes}, ir::data_type::u32};
    return {{"compression.deflate.block_starts", 1, "where a long DEFLATE stream's dynamic blocks start, the first in each window (one program)",
             sig, ir::convention::v1(), [] { return deflate_block_starts_program(); }},
            {"compression.deflate.block_starts.candidates", 1, "the bits of DEFLATE windows where a dynamic block header could start, listed",
             sig, ir::convention::v1(), [] { return deflate_block_candidates_program(); }},
            {"compression.deflate.block_starts.check", 1, "the listed bits whose block headers the decoder accepts, the first in each window",
             sig, ir::convention::v1(), [] { return deflate_block_check_program(); }}};
}

// The first block start (see the top of this file) in each of `windows`, in bits from the
// window's first byte, or deflate_no_block_start: the windows, which may lie in different streams
// of one buffer (`input`, a whole number of words; every stream_end at most its size and below
// 2^29), searched together. `capacity`: candidates the list holds (0: one per
// deflate_block_candidates_bits_each bits of the windows, at least
// deflate_block_candidates_min_capacity); past it the one-program search runs. Runs on ctx's
// queue and returns when done.
inline std::vector<std::uint32_t> find_deflate_blocks_at(runtime::context& ctx, const boost::compute::buffer& input,
                                                         std::span<const deflate_search_window> windows, std::uint64_t capacity = 0) {
    for (const deflate_search_window& w : windows)
        if (w.stream_end > deflate_block_starts_max_stream || w.stream_end > input.size() || w.bytes > w.stream_end ||
            w.first > w.stream_end - w.bytes)
            throw resource_error("find_deflate_blocks: a window of " + std::to_string(w.bytes) + " bytes from byte " + std::to_string(w.first) +
                                 " of a stream ending at byte " + std::to_string(w.stream_end) +
                                 " (the stream's end below 2^29, the window inside it, the buffer holding it)");
    if (windows.empty()) return {};
    const auto count = static_cast<std::uint32_t>(windows.size());
    const std::vector<std::uint32_t> none(count, deflate_no_block_start);
    auto found = runtime::upload(ctx, std::span<const std::uint32_t>(none));
    const auto window_buffer = runtime::upload(ctx, std::span<const deflate_search_window>(windows), CL_MEM_READ_ONLY);
    const auto input_words = static_cast<std::uint32_t>(input.size() / 4);
    if (capacity == 0) {
        std::uint64_t bits = 0;
        for (const deflate_search_window& w : windows) bits += std::uint64_t{w.bytes} * 8;
        capacity = std::max(deflate_block_candidates_min_capacity, bits / deflate_block_candidates_bits_each);
    }
    // A count word and two words a candidate, within one allocation and u32 indices.
    capacity = std::min<std::uint64_t>({capacity, (ctx.device().max_allocation / 4 - 1) / 2, 0x7FFFFFFEu});
    const std::array<std::uint32_t, 1> zero{0};
    auto listed = runtime::allocate(ctx, runtime::padded_bytes(4 * (1 + 2 * capacity)));
    runtime::write(ctx, listed, zero.data(), 4);
    const std::array<std::uint32_t, 2> lp{count, static_cast<std::uint32_t>(capacity)};
    const auto list_params = runtime::make_parameter_buffer(ctx, lp);
    static const runtime::compiled_program list(deflate_block_candidates_program());
    const runtime::buffer_arg list_args[] = {{input, input_words},
                                             {listed, static_cast<std::uint32_t>(1 + 2 * capacity)},
                                             {window_buffer, count * 3},
                                             {list_params, 2}};
    runtime::dispatch(ctx, list, {count, 1, 1}, list_args);
    std::uint32_t candidates = 0;
    runtime::read(ctx, listed, &candidates, 4);
    if (candidates <= capacity) {
        if (candidates != 0) {
            const std::array<std::uint32_t, 1> cp{candidates};
            const auto check_params = runtime::make_parameter_buffer(ctx, cp);
            static const runtime::compiled_program check(deflate_block_check_program());
            const runtime::buffer_arg check_args[] = {{input, input_words},
                                                      {found, count},
                                                      {window_buffer, count * 3},
                                                      {check_params, 1},
                                                      {listed, static_cast<std::uint32_t>(1 + 2 * capacity)}};
            runtime::dispatch(ctx, check, {(candidates + deflate_block_starts_workgroup - 1) / deflate_block_starts_workgroup, 1, 1},
                              check_args);
        }
    } else {
        const std::array<std::uint32_t, 1> p{count};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        static const runtime::compiled_program program(deflate_block_starts_program());
        const runtime::buffer_arg args[] = {{input, input_words}, {found, count}, {window_buffer, count * 3}, {params, 1}};
        runtime::dispatch(ctx, program, {count, 1, 1}, args);
    }
    std::vector<std::uint32_t> back(count);
    runtime::read(ctx, found, back.data(), back.size() * 4);
    return back;
}

// The windows of `window_bytes` bytes that cover bytes [first_byte, end_byte) of a stream ending
// at byte `stream_end` of its buffer, the last one cut at end_byte.
inline std::vector<deflate_search_window> deflate_search_windows(std::uint64_t first_byte, std::uint64_t end_byte, std::uint64_t window_bytes,
                                                                 std::uint64_t stream_end) {
    std::vector<deflate_search_window> windows;
    if (window_bytes == 0 || window_bytes > deflate_block_starts_max_piece || stream_end > deflate_block_starts_max_stream || end_byte > stream_end)
        throw resource_error("find_deflate_blocks: windows of " + std::to_string(window_bytes) + " bytes to byte " + std::to_string(end_byte) +
                             " of a stream of " + std::to_string(stream_end) + " bytes (both sizes below 2^29, the buffer holding the stream)");
    for (std::uint64_t at = first_byte; at < end_byte; at += window_bytes)
        windows.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(std::min(window_bytes, end_byte - at)),
                           static_cast<std::uint32_t>(stream_end)});
    return windows;
}

// The first block start in each window of `window_bytes` bytes of bytes [first_byte, end_byte)
// of the stream in `input` (its `stream_bytes` bytes, the buffer a whole number of words), in
// bits from the buffer's start, increasing; a window without one gives none. Runs on ctx's queue
// and returns when done.
inline std::vector<std::uint64_t> find_deflate_blocks_in(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t stream_bytes,
                                                         std::uint64_t first_byte, std::uint64_t end_byte, std::uint64_t window_bytes) {
    const std::vector<deflate_search_window> windows = deflate_search_windows(first_byte, end_byte, window_bytes, stream_bytes);
    if (input.size() < stream_bytes)
        throw resource_error("find_deflate_blocks: a buffer of " + std::to_string(input.size()) + " bytes does not hold a stream of " +
                             std::to_string(stream_bytes));
    const std::vector<std::uint32_t> found = find_deflate_blocks_at(ctx, input, windows);
    std::vector<std::uint64_t> points;
    for (std::size_t w = 0; w < windows.size(); ++w)
        if (found[w] != deflate_no_block_start) points.push_back(std::uint64_t{windows[w].first} * 8 + found[w]);
    return points;
}

// format::deflate_split_points on the device, the same bits: 0, then the first block start in
// each window of `piece_bytes` bytes after the first.
inline std::vector<std::uint64_t> find_deflate_blocks(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t stream_bytes,
                                                      std::uint64_t piece_bytes) {
    std::vector<std::uint64_t> points{0};
    if (piece_bytes == 0 || stream_bytes <= piece_bytes) return points;
    for (const std::uint64_t p : find_deflate_blocks_in(ctx, input, stream_bytes, piece_bytes, stream_bytes, piece_bytes)) points.push_back(p);
    return points;
}

} // namespace vyre::ops::compression
