// compression.deflate's program: DEFLATE streams (RFC 1951) inflated one per descriptor, in two
// shapes with identical results: one invocation per stream (the reference variant) and one
// subgroup per stream (the fast variant). The op's traits: ops/compression/deflate.hpp.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/compression/deflate.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/block_program.hpp>
#include <vyre/ops/compression/detail/deflate_program_parts.hpp>
#include <vyre/ops/op.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace vyre::ops::compression {

// Both shapes inflate exactly as reference::deflate_decompress (reference/deflate.hpp): same bytes
// in every stream's output region, same status, whatever the input and the descriptors. They bind
// the five buffers of every block op (ops/block_op.hpp); the fourth parameter word is unused. A
// descriptor whose input range leaves the input is {input_overrun, 0}, one whose output range leaves
// the output {output_overflow, 0}; no invocation reads or writes outside [0, input bytes) and its
// own output region.
//
// How a stream is decoded. The bit reader keeps up to 64 bits of the stream in a 64-bit word,
// refilled four bytes at a time once 32 or fewer are left. Each block's Huffman codes are built
// in workgroup memory, per stream:
//   - the code lengths (literal/length then distance, or the code-length code's 19);
//   - per code, how many symbols have each length and the symbols in code order (canonical
//     decoding, RFC 1951 3.2.2), for codes longer than the table below;
//   - per code, a table indexed by the next `table bits` of the stream, each entry the symbol and
//     its length for codes at most that long (detail::deflate_no_entry: longer, or no code
//     starts so).
// A symbol is one table read; a longer code walks the canonical code one bit at a time from the
// counts. Literals, most of the symbols of data that compresses poorly, take a loop of their own
// (a table read, one combined test, a store each) while their codes are in the table and held
// whole and the output has room; anything else leaves it for the general path. The code-length
// code is built in the distance code's place (it is done with before the distance code is built).
//
// One subgroup per stream (lanes > 1): every lane reads the same bits and decodes the same symbols
// (one instruction stream, uniform control flow, broadcast reads), and the lanes split the work
// that has width: building a code (detail::deflate_build_code), stored blocks and match copies.
// Every lane writes each literal (the same byte to the same place: no branch on the lane). A match
// reading bytes at or after `fenced` (the output position at the last subgroup barrier) runs a
// barrier first, as in compression.lz4. With one lane per stream the same program runs serially.

// Table bits of the literal/length and distance codes: most codes are shorter (longer ones take
// the canonical walk). The distance table also holds the code-length code, whose codes are at
// most 7 bits.
inline constexpr std::uint32_t deflate_literal_table_bits = 10;
inline constexpr std::uint32_t deflate_distance_table_bits = 8;
// The fast variant: one stream per subgroup of this many lanes, this many streams per workgroup
// where subgroups are NVIDIA warps (one elsewhere: emulated subgroups are the whole workgroup).
// Four measured 5 to 6% faster than two on the H100 with streams of 64 KiB and the same with
// 1 MiB (doc/ops/compression.deflate.md).
inline constexpr std::uint32_t deflate_fast_lanes = 32;
inline constexpr std::uint32_t deflate_fast_streams_per_workgroup = 4;

namespace detail {

// The program of both ops. Streams: one per descriptor of the block op's buffers, bytes out.
// Pieces (`pieces`): one per piece record, each element of output a u32 that is a byte (below
// 256) or a reference, 256 + w, to byte w of the 32 KiB the piece follows (its window, not known
// while it decodes): the piece's region starts with `window` such references, the output the
// piece writes follows them, and matches copy references as they copy bytes. A piece starts at
// its first bit and stops at the first block start at or past its stop bit, or after the
// stream's final block.
template <bool pieces>
ir::program deflate_program_of(std::uint32_t lanes, std::uint32_t streams_per_workgroup, std::uint32_t literal_bits,
                               std::uint32_t distance_bits) {
    namespace d = vyre::dsl;
    namespace codes = detail::deflate_code;
    namespace vc = vyre::compression;
    if (!std::has_single_bit(lanes) || lanes > 32)
        throw resource_error("deflate_program: lanes per stream (" + std::to_string(lanes) + ") must be a power of two in 1..32");
    if (streams_per_workgroup == 0 || lanes * streams_per_workgroup > 1024)
        throw resource_error("deflate_program: " + std::to_string(streams_per_workgroup) + " streams per workgroup of " +
                             std::to_string(lanes) + " lanes; it takes 1 or more, at most 1024 invocations in all");
    if (literal_bits < 9 || literal_bits > 12 || distance_bits < 7 || distance_bits > 10)
        throw resource_error("deflate_program: table bits (" + std::to_string(literal_bits) + ", " + std::to_string(distance_bits) +
                             ") must be 9..12 for literal/length codes and 7..10 for distances");
    const bool shared = lanes > 1;
    const detail::deflate_layout at{literal_bits, distance_bits};
    d::kernel k(pieces   ? entry_name("compression.deflate.pieces")
                : shared ? entry_name("compression.deflate.fast")
                         : entry_name("compression.deflate"),
                {lanes * streams_per_workgroup, 1, 1});
    if (shared) k.use_subgroups(lanes);
    // The block op's five buffers, or the same bindings with piece records and u32 elements out.
    struct piece_buffers {
        d::input_buffer<d::bytes> input;
        d::input_buffer<d::u32> descriptors;
        d::output_buffer<d::u32> output;
        d::output_buffer<d::u32> statuses;
        d::uniform_buffer<d::u32> params;
    };
    const auto bufs = [&] {
        if constexpr (pieces)
            return piece_buffers{k.input<d::bytes>("input", block_binding::input), k.input<d::u32>("pieces", block_binding::descriptors),
                                 k.output<d::u32>("output", block_binding::output), k.output<d::u32>("statuses", block_binding::statuses),
                                 k.uniform<d::u32>("params", block_binding::params)};
        else
            return declare_block_buffers(k);
    }();
    const auto& in = bufs.input;
    const auto& out = bufs.output;
    const auto& params = bufs.params;
    const std::uint32_t record = pieces ? deflate_piece::words : 5u;
    const d::workgroup_buffer<d::u32> wg = k.workgroup<d::u32>("codes", at.words() * streams_per_workgroup);

    const auto lane = shared ? k.let("lane", d::subgroup_local_id()) : k.let("lane", 0u);
    const auto block = shared ? k.let("block_index", d::workgroup_id() * streams_per_workgroup + d::subgroup_id())
                              : k.let("block_index", d::workgroup_id() * streams_per_workgroup + d::local_id());
    k.if_(block >= params[0u], [&] { k.return_(); });
    const auto base = shared ? k.let("region", d::subgroup_id() * at.words()) : k.let("region", d::local_id() * at.words());

    namespace piece = deflate_piece;
    // A record's word: a stream descriptor's (5 words) or a piece's.
    const auto field = [&](std::uint32_t stream_word, std::uint32_t piece_word) {
        const std::uint32_t word = pieces ? piece_word : stream_word;
        return bufs.descriptors[block * record + word];
    };
    const auto in_base = k.let("in_base", bufs.descriptors[block * record]);
    const auto n = k.let("in_size", field(1u, piece::in_size));
    const auto out_base = k.let("out_base", field(2u, piece::out_base));
    const auto cap = k.let("capacity", field(3u, piece::capacity));
    const auto flags = pieces ? k.let("block_flags", 0u) : k.let("block_flags", field(4u, 4u));
    const auto in_bytes = k.let("input_bytes", params[1u]);
    const auto out_bytes = k.let("output_bytes", params[2u]);
    const auto code = k.let("code", codes::none);
    const auto op = k.let("op", 0u); // invariant: op <= cap
    // Pieces: where decoding stopped, and whether the final block ended it.
    std::optional<d::variable<d::u32>> end_bit, final_block;
    if (pieces) end_bit.emplace(k.let("end_bit", 0u)), final_block.emplace(k.let("final_block", 0u));

    // Copies spread over the stream's lanes (detail/deflate_program_parts.hpp says which needs what).
    const detail::deflate_copies<std::decay_t<decltype(out)>, std::decay_t<decltype(out_base)>> copies{k, out, out_base, lane, lanes, shared};
    const auto copy = [&](const auto&... a) { copies.copy(a...); };
    const auto repeat = [&](const auto&... a) { copies.repeat(a...); };
    const auto copy_apart = [&](const auto&... a) { copies.copy_apart(a...); };

    // ---- the bit reader: `bits` holds the next `nbits` bits of the stream (zeros above them);
    // `ip` is the next input byte to take (ip <= n). A refill runs only when 32 bits or fewer are
    // held and then takes four bytes at once, so a symbol's code and its extra bits (at most
    // 15 + 13) never wait for a second one. Those four bytes were loaded at the previous refill
    // (`ahead` holds the bytes at ip while four are left): the load's latency passes while the
    // symbols before it decode. The last three bytes of a stream come one at a time. The input's
    // loads need no tests of their own (ir::bounds): the descriptor's range was checked against
    // the input at the start, and every load stays below in_base + n.
    const auto ip = k.let("ip", 0u);
    const auto bits = k.let("bits", d::lit<d::u64>(0));
    const auto nbits = k.let("nbits", 0u);
    const auto ahead = k.let("ahead", 0u);
    // `sure`: the stream has four bytes or more (a refill by words just ran). Near the end the load
    // reads bytes the refill will not take, and is not used; a stream under four bytes never
    // refills by words and loads nothing ahead.
    const auto load_ahead = [&](bool sure) {
        const auto load = [&] {
            const auto at_ = in_base + d::min(ip, n - 4u);
            ahead = in.u32_le_unchecked(at_);
        };
        if (sure) load();
        else k.if_(n >= 4u, load);
    };
    const auto refill = [&] {
        k.if_(nbits <= 32u, [&] {
            k.if_(n - ip >= 4u, [&] {
                bits = bits | (d::cast<d::u64>(ahead) << d::cast<d::u64>(nbits));
                ip = ip + 4u;
                nbits = nbits + 32u;
                load_ahead(true);
            }).else_([&] {
                k.while_(nbits <= 56u && ip < n, [&] {
                    bits = bits | (d::cast<d::u64>(in.unchecked(in_base + ip)) << d::cast<d::u64>(nbits));
                    ip = ip + 1u;
                    nbits = nbits + 8u;
                });
            });
        });
    };
    // The low 32 bits held, for table indices and extra bits.
    const auto low = [&] { return d::cast<d::u32>(bits); };
    const auto drop = [&](const auto& count) {
        if constexpr (std::is_integral_v<std::decay_t<decltype(count)>>) bits = bits >> d::lit<d::u64>(count);
        else bits = bits >> d::cast<d::u64>(count);
        nbits = nbits - count;
    };
    // `count` (at most 32) bits as a number, or input_overrun in `code`. `take_held` takes them
    // from the bits held without a refill: right after a Huffman code of at most 15 bits, whose
    // refill left at least 32 bits or took the stream's every byte, the extra bits are all held.
    // With `leave`, a failure also leaves the loop take_held runs in.
    const auto take_held = [&](const std::string& name, const auto& count, bool leave = false) {
        const auto v = k.let(name, 0u);
        k.if_(nbits < count, [&] {
            code = codes::input_overrun;
            if (leave) k.break_();
        }).else_([&] {
            v = low() & ((d::lit(1u) << count) - 1u);
            drop(count);
        });
        return v;
    };
    const auto take = [&](const std::string& name, const auto& count) {
        refill();
        return take_held(name, count);
    };
    const auto stop_on_error = [&] { k.if_(code != codes::none, [&] { k.break_(); }); };

    const auto build = [&](const auto& first, const auto& count, const auto& counts_at, const auto& sorted_at,
                           const auto& table_at, const auto& table_bits) {
        return detail::deflate_build_code(k, wg, base, lane, lanes, first, count, counts_at, sorted_at, table_at, table_bits);
    };

    // ---- decoding one symbol of a built code into `symbol`, or an error in `code`.
    // The table entry of the bits held (within the stream's region by construction: no test,
    // ir::bounds).
    const auto table_entry = [&](std::uint32_t table_at, std::uint32_t table_bits) {
        return wg.unchecked(base + table_at + (low() & ((1u << table_bits) - 1u)));
    };
    // `entry`: the table entry of the bits held, read right after a refill.
    const auto decode_entry = [&](const std::string& p, const auto& symbol, std::uint32_t counts_at, std::uint32_t sorted_at,
                                  const auto& entry_value) {
        const auto held = k.let(p + "_held", low());
        const auto entry = k.let(p + "_entry", entry_value);
        const auto len = k.let(p + "_len", entry >> 16u);
        symbol = entry & 0xFFFFu;
        // A table hit with its bits held (the common case) takes one test (an entry with no code
        // has a length no bit count reaches); the rest walks or fails.
        k.if_(len <= nbits, [&] { drop(len); }).else_([&] {
            k.if_(entry == detail::deflate_no_entry, [&] {
                len = 0u;
                // The canonical walk (RFC 1951 3.2.2): the code grows a bit at a time; codes of
                // each length are consecutive numbers starting at `first`.
                const auto walk = k.let(p + "_walk", 0u);
                const auto first = k.let(p + "_first", 0u);
                const auto index = k.let(p + "_index", 0u);
                const auto l = k.let(p + "_l", 1u);
                k.while_(l <= vc::deflate_max_code_bits, [&] {
                    walk = walk | ((held >> (l - 1u)) & 1u);
                    const auto have = k.let(p + "_have", wg[base + counts_at + l]);
                    k.if_(walk - first < have, [&] {
                        symbol = wg[base + sorted_at + index + (walk - first)];
                        len = l;
                        k.break_();
                    });
                    index = index + have;
                    first = (first + have) << 1u;
                    walk = walk << 1u;
                    l = l + 1u;
                });
            });
            k.if_((len == 0u && nbits < vc::deflate_max_code_bits) || (len != 0u && len > nbits), [&] {
                code = codes::input_overrun;
            }).else_([&] {
                k.if_(len == 0u, [&] { code = codes::invalid_symbol; }).else_([&] { drop(len); });
            });
            stop_on_error(); // leaves the loop decode_entry runs in: the common case has no test of `code`
        });
    };
    const auto decode = [&](const std::string& p, const auto& symbol, std::uint32_t counts_at, std::uint32_t sorted_at,
                            std::uint32_t table_at, std::uint32_t table_bits) {
        refill();
        decode_entry(p, symbol, counts_at, sorted_at, table_entry(table_at, table_bits));
    };

    const auto literal_count = k.let("literal_count", 0u);
    const auto distance_first = k.let("distance_first", 0u);
    const auto distance_count = k.let("distance_count", 0u);
    const auto fixed_built = k.let("fixed_built", false);

    k.if_(in_base > in_bytes || n > in_bytes - in_base, [&] { code = codes::input_overrun; }).else_([&] {
        k.if_(out_base > out_bytes || cap > out_bytes - out_base, [&] { code = codes::output_overflow; }).else_([&] {
            k.if_((flags & vc::block_flag_uncompressed) != 0u, [&] {
                k.if_(n > cap, [&] { code = codes::output_overflow; }).else_([&] {
                    copy_apart("stored_j", 0u, n, [&](const auto& j) { return in.unchecked(in_base + j); });
                    op = n;
                });
            }).else_([&] {
                const auto fenced = k.let("fenced", 0u);
                const auto last = k.let("last", 0u);
                std::optional<d::variable<d::u32>> stop_bit;
                if (pieces) {
                    // The window's references first (the first match reading them runs a barrier:
                    // fenced is 0), then the piece's output after them.
                    const auto window = k.let("window", field(0u, piece::window));
                    k.if_(window > cap, [&] { code = codes::output_overflow; }).else_([&] {
                        const auto j = k.let("window_j", lane);
                        k.while_(j < window, [&] {
                            k.store_unchecked(out, out_base + j, j + 256u);
                            j = j + lanes;
                        });
                        op = window;
                    });
                    stop_bit.emplace(k.let("stop_bit", field(0u, piece::stop_bit)));
                }
                load_ahead(false);
                if (pieces) {
                    // The piece's first bit (fewer than 8 into its first byte).
                    const auto start_bit = k.let("start_bit", field(0u, piece::start_bit));
                    k.if_(code == codes::none, [&] { take("start_skip", start_bit); });
                }
                k.while_(last == 0u, [&] {
                    if (pieces) {
                        // Bits read so far: ip < 2^29 (the host's limit on a piece's input).
                        k.if_(code != codes::none || ip * 8u - nbits >= *stop_bit, [&] { k.break_(); });
                    }
                    const auto header = take("block_header", 3u);
                    stop_on_error();
                    last = header & 1u;
                    const auto type = k.let("block_type", header >> 1u);
                    k.if_(type == 3u, [&] {
                        code = codes::bad_block_type;
                        k.break_();
                    });
                    k.if_(type == 0u, [&] {
                        // Stored: back to the byte after the last whole byte read.
                        drop(nbits & 7u);
                        ip = ip - (nbits >> 3u);
                        bits = d::lit<d::u64>(0);
                        nbits = 0u;
                        k.if_(n - ip < 4u, [&] {
                            code = codes::input_overrun;
                            k.break_();
                        });
                        const auto len = k.let("stored_len", in[in_base + ip] | (in[in_base + ip + 1u] << 8u));
                        const auto nlen = k.let("stored_nlen", in[in_base + ip + 2u] | (in[in_base + ip + 3u] << 8u));
                        ip = ip + 4u;
                        k.if_(len != (~nlen & 0xFFFFu), [&] {
                            code = codes::stored_length_mismatch;
                            k.break_();
                        });
                        k.if_(len > n - ip, [&] {
                            code = codes::input_overrun;
                            k.break_();
                        });
                        k.if_(len > cap - op, [&] {
                            code = codes::output_overflow;
                            k.break_();
                        });
                        copy_apart("stored_block_j", op, len, [&](const auto& j) { return in.unchecked(in_base + ip + j); });
                        ip = ip + len;
                        op = op + len;
                        load_ahead(false);
                        k.continue_();
                    });
                    // The block's codes: for a dynamic block the code-length code (which 0), then
                    // the literal/length (1) and distance (2) codes, all built at one place (each
                    // barrier site costs compilers that run a workgroup's invocations in loops).
                    const auto which = k.let("which", 3u);
                    k.if_(type == 1u, [&] {
                        literal_count = vc::deflate_fixed_literal_codes;
                        distance_first = vc::deflate_fixed_literal_codes;
                        distance_count = vc::deflate_fixed_distance_codes;
                        k.if_(!fixed_built, [&] {
                            which = 1u;
                            const auto j = k.let("fixed_j", lane);
                            k.while_(j < vc::deflate_fixed_literal_codes + vc::deflate_fixed_distance_codes, [&] {
                                k.store(wg, base + at.lengths + j,
                                        d::select(j < 144u, 8u, d::select(j < 256u, 9u, d::select(j < 280u, 7u, d::select(j < 288u, 8u, 5u)))));
                                j = j + lanes;
                            });
                        });
                        fixed_built = true;
                    }).else_([&] {
                        fixed_built = false;
                        which = 0u;
                        const auto hlit = take("hlit", 5u);
                        const auto hdist = take("hdist", 5u);
                        const auto hclen = take("hclen", 4u);
                        stop_on_error();
                        literal_count = hlit + 257u;
                        distance_first = literal_count;
                        distance_count = hdist + 1u;
                        k.if_(literal_count > vc::deflate_max_literal_codes || distance_count > vc::deflate_max_distance_codes, [&] {
                            code = codes::bad_code_lengths;
                            k.break_();
                        });
                        // The code-length code's lengths, 3 bits each in the RFC's order.
                        const auto i = k.let("clc_i", 0u);
                        k.while_(i < vc::deflate_code_length_codes, [&] {
                            const auto symbol = k.let("clc_symbol", d::select(i < 3u, 16u + i, d::select(i == 3u, 0u,
                                d::select(((i - 4u) & 1u) == 0u, 8u + ((i - 4u) >> 1u), 7u - ((i - 5u) >> 1u)))));
                            const auto length = k.let("clc_length", 0u);
                            k.if_(i < hclen + 4u, [&] {
                                const auto v = take("clc_bits", 3u);
                                length = v;
                            });
                            stop_on_error();
                            k.if_(lane == 0u, [&] { k.store(wg, base + at.lengths + symbol, length); });
                            i = i + 1u;
                        });
                    });
                    stop_on_error();
                    k.while_(which < 3u, [&] {
                        const auto clc = which == 0u;
                        const auto literal = which == 1u;
                        const auto b = build(d::select(clc, 0u, d::select(literal, 0u, distance_first)),
                                             d::select(clc, vc::deflate_code_length_codes, d::select(literal, literal_count, distance_count)),
                                             d::select(literal, at.literal_counts, at.distance_counts),
                                             d::select(literal, at.literal_sorted, at.distance_sorted),
                                             d::select(literal, at.literal_table, at.distance_table()),
                                             d::select(clc, 7u, d::select(literal, literal_bits, distance_bits)));
                        // A dynamic block needs an end-of-block code (checked before the codes).
                        // The length is read only when it is tested: IR operands are all
                        // evaluated, and with the code-length code (which 0) the lanes are about
                        // to rewrite it without a barrier.
                        k.if_(literal && type == 2u, [&] {
                            k.if_(wg[base + at.lengths + vc::deflate_end_of_block] == 0u, [&] {
                                code = codes::bad_code_lengths;
                                k.break_();
                            });
                        });
                        k.if_(b.over, [&] {
                            code = codes::bad_code_lengths;
                            k.break_();
                        });
                        k.if_(b.incomplete && (clc || b.long_codes), [&] {
                            code = codes::incomplete_code;
                            k.break_();
                        });
                        k.if_(clc, [&] {
                            // The literal/length and distance lengths.
                            const auto total = k.let("length_total", literal_count + distance_count);
                            const auto index = k.let("length_index", 0u);
                            const auto previous = k.let("previous_length", 0u);
                            k.while_(index < total, [&] {
                                const auto symbol = k.let("length_symbol", 0u);
                                decode("clc_decode", symbol, at.distance_counts, at.distance_sorted, at.distance_table(), 7u);
                                k.if_(symbol < 16u, [&] {
                                    k.if_(lane == 0u, [&] { k.store(wg, base + at.lengths + index, symbol); });
                                    previous = symbol;
                                    index = index + 1u;
                                    k.continue_();
                                });
                                const auto value = k.let("repeat_value", 0u);
                                const auto repeat = k.let("repeat", 0u);
                                k.if_(symbol == 16u, [&] {
                                    k.if_(index == 0u, [&] { code = codes::bad_code_lengths; }).else_([&] {
                                        value = previous;
                                        const auto extra = take("repeat_extra2", 2u);
                                        repeat = 3u + extra;
                                    });
                                }).else_([&] {
                                    k.if_(symbol == 17u, [&] {
                                        const auto extra = take("repeat_extra3", 3u);
                                        repeat = 3u + extra;
                                    }).else_([&] {
                                        const auto extra = take("repeat_extra7", 7u);
                                        repeat = 11u + extra;
                                    });
                                });
                                stop_on_error();
                                k.if_(repeat > total - index, [&] {
                                    code = codes::bad_code_lengths;
                                    k.break_();
                                });
                                const auto j = k.let("repeat_j", lane);
                                k.while_(j < repeat, [&] {
                                    k.store(wg, base + at.lengths + index + j, value);
                                    j = j + lanes;
                                });
                                previous = value;
                                index = index + repeat;
                            });
                            stop_on_error();
                        });
                        which = which + 1u;
                    });
                    stop_on_error();

                    // ---- the block's symbols
                    const auto symbol = k.let("symbol", 0u);
                    const auto distance_symbol = k.let("distance_symbol", 0u);
                    k.while_(true, [&] {
                        // Literals first, in a loop of their own: a table hit, held whole, a
                        // literal, room for it. It leaves on anything else with the entry of the
                        // bits held, read right after a refill, which decode_entry takes on.
                        refill();
                        const auto entry = k.let("lit_entry", table_entry(at.literal_table, literal_bits));
                        k.while_((entry >> 16u) <= nbits && (entry & 0xFFFFu) < 256u && op < cap, [&] {
                            // op < cap was just tested; bytes keep the entry's low 8 bits, pieces take the symbol.
                            if (pieces) k.store_unchecked(out, out_base + op, entry & 0xFFFFu);
                            else k.store_unchecked(out, out_base + op, entry);
                            op = op + 1u;
                            drop(entry >> 16u);
                            refill();
                            entry = table_entry(at.literal_table, literal_bits);
                        });
                        decode_entry("lit_decode", symbol, at.literal_counts, at.literal_sorted, entry);
                        k.if_(symbol < 256u, [&] {
                            k.if_(op == cap, [&] {
                                code = codes::output_overflow;
                                k.break_();
                            });
                            // Every lane writes the same byte (one store, no branch on the lane);
                            // op < cap was just tested.
                            k.store_unchecked(out, out_base + op, symbol);
                            op = op + 1u;
                            k.continue_();
                        });
                        k.if_(symbol == vc::deflate_end_of_block, [&] { k.break_(); });
                        const auto li = k.let("length_code", symbol - 257u);
                        k.if_(li >= 29u, [&] {
                            code = codes::invalid_symbol;
                            k.break_();
                        });
                        const auto length_bits = k.let("length_bits", d::select(li < 8u || li == 28u, 0u, (li - 4u) >> 2u));
                        const auto length_extra = take_held("length_extra", length_bits, true);
                        const auto length = k.let("match_length",
                                                  d::select(li < 8u, 3u + li,
                                                            d::select(li == 28u, 258u, ((4u + (li & 3u)) << length_bits) + 3u)) +
                                                      length_extra);
                        decode("dist_decode", distance_symbol, at.distance_counts, at.distance_sorted, at.distance_table(),
                               distance_bits);
                        // Symbols 30 and 31 take no extra bits here, so that they fail below as
                        // invalid, not for want of input; the three tests share one branch.
                        const auto bad_distance_symbol = k.let("bad_distance_symbol", distance_symbol >= vc::deflate_max_distance_codes);
                        const auto distance_bits_n = k.let(
                            "distance_bits", d::select(distance_symbol < 4u || bad_distance_symbol, 0u, (distance_symbol >> 1u) - 1u));
                        const auto distance_extra = take_held("distance_extra", distance_bits_n, true);
                        const auto distance = k.let("distance", d::select(distance_symbol < 4u, 1u + distance_symbol,
                                                                          ((2u + (distance_symbol & 1u)) << distance_bits_n) + 1u) +
                                                                    distance_extra);
                        k.if_(bad_distance_symbol || distance > op || length > cap - op, [&] {
                            code = d::select(bad_distance_symbol, d::lit(codes::invalid_symbol),
                                             d::select(distance > op, d::lit(codes::distance_too_far), d::lit(codes::output_overflow)));
                            k.break_();
                        });
                        const auto from = k.let("match_from", op - distance);
                        if (shared) {
                            k.if_(from + d::min(distance, length) > fenced, [&] {
                                k.subgroup_barrier();
                                fenced = op;
                            });
                            k.if_(distance >= length, [&] {
                                copy("match_j", op, length, [&](const auto& j) { return out.unchecked(out_base + from + j); });
                            }).else_([&] {
                                repeat("repeat_j", op, length, distance, [&](const auto& at_) { return out.unchecked(out_base + from + at_); });
                            });
                        } else {
                            // One lane: front to back, an overlapping match reading what it just wrote.
                            copy("match_j", op, length, [&](const auto& j) { return out.unchecked(out_base + from + j); });
                        }
                        op = op + length;
                    });
                    stop_on_error();
                });
                if (pieces) {
                    *end_bit = ip * 8u - nbits;
                    *final_block = last;
                }
            });
        });
    });
    k.if_(lane == 0u, [&] {
        if (pieces) {
            k.store(bufs.statuses, block * piece::status_words + piece::code, code);
            k.store(bufs.statuses, block * piece::status_words + piece::written, op);
            k.store(bufs.statuses, block * piece::status_words + piece::end_bit, *end_bit);
            k.store(bufs.statuses, block * piece::status_words + piece::final_block, *final_block);
        } else {
            k.store(bufs.statuses, block * 2u, code);
            k.store(bufs.statuses, block * 2u + 1u, op);
        }
    });
    return k.program();
}

} // namespace detail

// The program: `lanes` invocations per stream (1, or a power of two up to 32 forming a subgroup),
// `streams_per_workgroup` streams per workgroup (with one lane per stream, invocation i of the
// workgroup decodes its stream i alone), table bits as above.
inline ir::program deflate_program(std::uint32_t lanes, std::uint32_t streams_per_workgroup = 1,
                                   std::uint32_t literal_bits = deflate_literal_table_bits,
                                   std::uint32_t distance_bits = deflate_distance_table_bits) {
    return detail::deflate_program_of<false>(lanes, streams_per_workgroup, literal_bits, distance_bits);
}

// compression.deflate.pieces: the pieces of one stream, one per subgroup of `lanes` (or per
// invocation with one lane), decoded as detail::deflate_program_of says.
inline ir::program deflate_pieces_program(std::uint32_t lanes, std::uint32_t pieces_per_workgroup = 1) {
    return detail::deflate_program_of<true>(lanes, pieces_per_workgroup, deflate_literal_table_bits, deflate_distance_table_bits);
}

} // namespace vyre::ops::compression
