// The programs of compression.zstd.blocks (ops/compression/zstd_blocks.hpp): every block of
// every frame decoded at once, in the passes compression/zstd_blocks.hpp lays out. decode and
// execute come in two shapes with identical results: one invocation per block (reference
// variant) and one subgroup of 32 per block (fast variant); resolve spreads each block's bytes
// over a workgroup.
#pragma once

#include <vyre/compression/zstd_blocks.hpp>
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/block_program.hpp>
#include <vyre/ops/compression/detail/zstd_program_parts.hpp>
#include <vyre/ops/op.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace vyre::ops::compression {

inline constexpr const char* zstd_blocks_decode_id = "compression.zstd.blocks.decode";
inline constexpr const char* zstd_blocks_decode_fast_id = "compression.zstd.blocks.decode.fast";
inline constexpr const char* zstd_blocks_execute_id = "compression.zstd.blocks.execute";
inline constexpr const char* zstd_blocks_execute_fast_id = "compression.zstd.blocks.execute.fast";
inline constexpr const char* zstd_blocks_resolve_id = "compression.zstd.blocks.resolve";

namespace zstd_decode_binding {
enum : std::uint32_t { input = 0, blocks = 1, tables = 2, plan = 3, literals = 4, sequences = 5, summaries = 6, params = 7 };
}
// params: [blocks, input bytes, literals bytes, table words, sequence records]
inline constexpr std::uint32_t zstd_decode_param_words = 5;

namespace zstd_execute_binding {
enum : std::uint32_t { input = 0, blocks = 1, plan = 2, sequences = 3, exec = 4, literals = 5, output = 6, links = 7, verdicts = 8, params = 9 };
}
// params: [blocks, input bytes, literals bytes, output bytes, history end: output bytes below it
// are final before the pass (compression::zstd_frame_start), 0 for none]
inline constexpr std::uint32_t zstd_execute_param_words = 5;

namespace zstd_resolve_binding {
enum : std::uint32_t { ranges = 0, links = 1, output = 2, unresolved = 3, params = 4, list = 5 };
}
// unresolved: [a byte is still short of a literal (0 or 1), bytes the first round listed]
// list: (link index, output index) of each byte the first round left short, up to its capacity
// params: [ranges (rounds over ranges) or listed bytes (rounds over the list), round kind
// (zstd_resolve_round), links a byte follows per round, the list's capacity in entries]
inline constexpr std::uint32_t zstd_resolve_param_words = 4;
namespace zstd_resolve_round {
inline constexpr std::uint32_t ranges = 0; // a later round over the ranges
inline constexpr std::uint32_t first = 1;  // the first round, over the ranges: lists what it leaves
inline constexpr std::uint32_t list = 2;   // a later round over the listed bytes
} // namespace zstd_resolve_round
inline constexpr std::uint32_t zstd_resolve_workgroup = 256;
// Links a round follows per byte before it writes back what it reached. Every round reads and
// writes every byte's link, so fewer, longer rounds pay (measured in
// doc/ops/compression.zstd.blocks.md, "Performance").
inline constexpr std::uint32_t zstd_resolve_hops = 32;
// Bytes an invocation of resolve follows at once.
inline constexpr std::uint32_t zstd_resolve_bytes = 4;

// decode: a block per subgroup. Raw and RLE blocks are only checked. A compressed block's
// literals go into the scratch (lane s decoding Huffman stream s, from a code expanded into
// workgroup memory); its sequences are decoded by the first lane into sequence records, repeat
// offsets relative to those the block starts with; the summary says where the block stopped and
// why. Every check the frame program makes within a block is made here, in the same order.
inline ir::program zstd_blocks_decode_program(std::uint32_t lanes, std::uint32_t per_workgroup) {
    namespace d = vyre::dsl;
    namespace c = vyre::compression;
    namespace field = c::zstd_block_field;
    namespace why = c::zstd_frame_reason;
    detail::zstd_check_shape("zstd_blocks_decode_program", "blocks", lanes, per_workgroup);
    const bool shared = lanes > 1;
    const std::uint32_t table_words = 1u << c::zstd_huffman_max_bits;
    d::kernel k(entry_name(shared ? zstd_blocks_decode_fast_id : zstd_blocks_decode_id), {lanes * per_workgroup, 1, 1});
    if (shared) k.use_subgroups(lanes);
    namespace b = zstd_decode_binding;
    const auto in = k.input<d::bytes>("input", b::input);
    const auto blocks = k.input<d::u32>("blocks", b::blocks);
    const auto tables = k.input<d::u32>("tables", b::tables);
    const auto plan = k.input<d::u32>("plan", b::plan);
    const auto lit = k.output<d::bytes>("literals", b::literals);
    const auto seqs = k.output<d::u32>("records", b::sequences);
    const auto summaries = k.output<d::u32>("summaries", b::summaries);
    const auto params = k.uniform<d::u32>("params", b::params);
    const d::workgroup_buffer<d::u32> huff = k.workgroup<d::u32>("huffman", table_words * per_workgroup);

    const auto unit = detail::zstd_lane_and_slot(k, shared);
    const auto lane = unit.lane, slot = unit.slot;
    const auto block = k.let("block", d::workgroup_id() * per_workgroup + slot);
    k.if_(block >= params[0u], [&] { k.return_(); });
    const auto base = k.let("table_base", slot * table_words);
    const auto in_bytes = k.let("input_bytes", params[1u]);
    const auto lit_bytes = k.let("literal_bytes", params[2u]);
    const auto tw = k.let("table_words", params[3u]);
    const auto records = k.let("record_count", params[4u]);
    const auto sync = [&] {
        if (shared) k.subgroup_barrier();
    };
    const auto within = [](const auto& at, const auto& n, const auto& size) { return detail::zstd_within(at, n, size); };
    const detail::zstd_bits reader(k, in);

    const auto rec = k.let("rec", block * c::zstd_block_words);
    const auto kind = k.let("kind", blocks[rec + field::kind]);
    const auto type = k.let("type", kind & 3u);
    const auto size = k.let("size", blocks[rec + field::size]);
    const auto src = k.let("src", blocks[rec + field::source]);
    // Why the block failed: before its sequences (the same in every lane), and at or after one
    // (the first lane's: it decodes them).
    const auto reason = k.let("reason", why::none);
    const auto late = k.let("late_reason", why::none);
    const auto stage = k.let("stage", 0u);
    const auto run = k.let("run", 0u);
    const auto regenerated = k.let("regenerated", 0u);
    // The repeat offsets the block leaves: (slot, value) as in a sequence record.
    const auto t0 = k.let("rep_slot0", 1u), t1 = k.let("rep_slot1", 2u), t2 = k.let("rep_slot2", 3u);
    const auto v0 = k.let("rep_value0", 0u), v1 = k.let("rep_value1", 0u), v2 = k.let("rep_value2", 0u);
    const auto seq = reader.make("seq");
    const auto hs = reader.make("huf");
    k.if_(type < 2u, [&] {
        k.if_(!within(src, d::select(type == 0u, size, 1u), in_bytes), [&] { reason = why::bad_record; }).else_([&] { regenerated = size; });
    }).else_([&] {
        const auto lit_type = k.let("literals_type", (kind >> 2u) & 3u);
        const auto lit_at = k.let("literals_at", blocks[rec + field::literals_at]);
        const auto maximum = k.let("maximum", blocks[rec + field::maximum]);
        k.if_(type != 2u || lit_type > 2u || !within(lit_at, size, lit_bytes), [&] { reason = why::bad_record; });
        k.if_(reason == why::none && size > maximum, [&] { reason = why::block_maximum; });
        // ---- literals into scratch
        k.if_(reason == why::none && lit_type < 2u, [&] {
            k.if_(!within(src, d::select(lit_type == 0u, size, 1u), in_bytes), [&] { reason = why::bad_record; }).else_([&] {
                const auto j = k.let("raw_j", lane);
                k.while_(j < size, [&] {
                    k.store(lit, lit_at + j, in[src + d::select(lit_type == 0u, j, 0u)]);
                    j = strided_next(j, lanes);
                });
            });
        });
        k.if_(reason == why::none && lit_type == 2u, [&] {
            const auto table = k.let("huffman_table", blocks[rec + field::huffman_table]);
            const auto header = k.let("huffman_header", tables[table]);
            const auto bits = k.let("huffman_bits", header & 0xFFu);
            const auto nsym = k.let("huffman_symbols", header >> 8u);
            k.if_(table >= tw || bits == 0u || bits > c::zstd_huffman_max_bits || nsym > 256u || !within(table + 1u, nsym, tw),
                  [&] { reason = why::bad_record; });
            const auto four = k.let("four_streams", (kind & c::zstd_four_streams) != 0u);
            const auto streams = k.let("streams", d::select(four, 4u, 1u));
            const auto segment = k.let("segment", d::select(four, (size + 3u) >> 2u, size));
            k.if_(reason == why::none && segment * (streams - 1u) > size, [&] { reason = why::literals_stream; });
            k.if_(reason == why::none, [&] {
                detail::zstd_expand_huffman(k, tables, huff, base, table, bits, nsym, lane, lanes, sync);
                const auto verdicts = detail::zstd_decode_huffman_streams(k, reader, hs, blocks, lit, huff, rec, size, src, lit_at, base,
                                                                          bits, streams, segment, in_bytes, lane, lanes);
                const auto any_range = shared ? k.let("any_bad_range", d::subgroup_any(verdicts.bad_range)) : verdicts.bad_range;
                const auto any_stream = shared ? k.let("any_bad_stream", d::subgroup_any(verdicts.bad_stream)) : verdicts.bad_stream;
                k.if_(any_range, [&] { reason = why::bad_record; }).else_([&] {
                    k.if_(any_stream, [&] { reason = why::literals_stream; });
                });
            });
        });

        // ---- sequences, by the first lane
        const auto nseq = k.let("sequences", blocks[rec + field::sequences]);
        const auto block_op = k.let("block_op", 0u);
        const auto lit_pos = k.let("lit_pos", 0u);
        k.if_(reason == why::none && nseq != 0u, [&] {
            const auto llt = k.let("ll_table", blocks[rec + field::literal_length_table]);
            const auto oft = k.let("of_table", blocks[rec + field::offset_table]);
            const auto mlt = k.let("ml_table", blocks[rec + field::match_length_table]);
            const auto seq_at = k.let("seq_at", blocks[rec + field::sequences_at]);
            const auto seq_size = k.let("seq_size", blocks[rec + field::sequences_size]);
            const auto first = k.let("first_record", plan[block * c::zstd_plan_words]);
            const auto room = k.let("room", plan[block * c::zstd_plan_words + 1u]);
            k.if_(tw < c::zstd_match_values_at + 64u || !detail::zstd_table_ok(tables, llt, tw) || !detail::zstd_table_ok(tables, oft, tw) ||
                      !detail::zstd_table_ok(tables, mlt, tw) || !within(seq_at, seq_size, in_bytes) || !within(first, room, records),
                  [&] { reason = why::bad_record; });
            k.if_(reason == why::none, [&] {
                const auto marked = reader.start(seq, seq_at, seq_size, "seq");
                k.if_(!marked, [&] { reason = why::sequences_stream; });
            });
            // A subgroup stages the block's tables in workgroup memory (the Huffman table's place,
            // done with) for lane 0 to read; one invocation reads them where they are.
            namespace staged = detail::zstd_staged;
            if (shared)
                k.if_(reason == why::none, [&] { detail::zstd_stage_sequence_tables(k, tables, huff, base, llt, oft, mlt, lane, lanes, sync); });
            k.if_(reason == why::none && lane == 0u, [&] {
                stage = 1u;
                const auto decode_sequences = [&](const auto& tb, const auto& l_at, const auto& o_at, const auto& m_at, const auto& values) {
                    const auto states = detail::zstd_start_sequences(k, reader, seq, tb, l_at, o_at, m_at);
                    const auto i = k.let("seq_i", 0u);
                    k.while_(i < nseq, [&] {
                        const auto sq = detail::zstd_decode_sequence(k, reader, seq, tb, states, l_at, o_at, m_at, i, nseq, values);
                        const auto ofv = sq.ofv, ml = sq.ml, ll = sq.ll;
                        // Repeat offsets (RFC 8878 3.1.1.5), relative to the block's first ones.
                        const auto oslot = k.let("offset_slot", 0u);
                        const auto oval = k.let("offset_value", 0u);
                        k.if_(ofv > 3u, [&] {
                            oval = ofv - 3u;
                            t2 = t1;
                            v2 = v1;
                            t1 = t0;
                            v1 = v0;
                            t0 = 0u;
                            v0 = oval;
                        }).else_([&] {
                            const auto index = k.let("rep_index", ofv - 1u + d::select(ll == 0u, 1u, 0u));
                            k.if_(index == 0u, [&] {
                                oslot = t0;
                                oval = v0;
                            }).else_([&] {
                                oslot = d::select(index == 1u, t1, d::select(index == 2u, t2, t0));
                                // index 3: the first repeat offset less one
                                oval = d::select(index == 1u, v1, d::select(index == 2u, v2, d::select(t0 == 0u, v0 - 1u, v0 + 1u)));
                                k.if_(index != 1u, [&] {
                                    t2 = t1;
                                    v2 = v1;
                                });
                                t1 = t0;
                                v1 = v0;
                                t0 = oslot;
                                v0 = oval;
                            });
                        });
                        k.if_(i >= room, [&] {
                            late = why::bad_record;
                            k.break_();
                        });
                        k.if_(ll > size - lit_pos, [&] {
                            late = why::literals_overrun;
                            k.break_();
                        });
                        k.if_(d::cast<d::u64>(ll) + d::cast<d::u64>(ml) > d::cast<d::u64>(maximum - block_op), [&] {
                            late = why::block_maximum;
                            k.break_();
                        });
                        const auto at = k.let("record_at", (first + i) * c::zstd_sequence_words);
                        k.store(seqs, at, ll);
                        k.store(seqs, at + 1u, ml);
                        k.store(seqs, at + 2u, oslot);
                        k.store(seqs, at + 3u, oval);
                        lit_pos = lit_pos + ll;
                        block_op = block_op + ll + ml;
                        i = i + 1u;
                    });
                    run = i;
                    k.if_(late == why::none && !detail::zstd_bits::exhausted(seq), [&] { late = why::sequences_stream; });
                };
                if (shared)
                    decode_sequences(huff, base + staged::literal_length, base + staged::offset, base + staged::match_length,
                                     base + staged::values);
                else
                    decode_sequences(tables, llt, oft, mlt, d::lit(0u));
            });
        });
        k.if_(reason == why::none && late == why::none, [&] {
            const auto rest = k.let("rest", size - lit_pos);
            k.if_(rest > maximum - block_op, [&] { late = why::block_maximum; }).else_([&] { regenerated = block_op + rest; });
        });
    });
    k.if_(lane == 0u, [&] {
        const auto at = k.let("summary_at", block * c::zstd_summary_words);
        k.store(summaries, at, d::select(reason != why::none, reason, late));
        k.store(summaries, at + 1u, stage);
        k.store(summaries, at + 2u, run);
        k.store(summaries, at + 3u, regenerated);
        k.store(summaries, at + 4u, t0);
        k.store(summaries, at + 5u, v0);
        k.store(summaries, at + 6u, t1);
        k.store(summaries, at + 7u, v1);
        k.store(summaries, at + 8u, t2);
        k.store(summaries, at + 9u, v2);
    });
    return k.program();
}

// execute: literals are copied into the output, and every byte gets a link (its own index for a
// literal, the index of the byte it copies for a match). A match byte whose source lies below the
// history's end copies it at once and becomes a literal. Nothing the pass writes is read back, so
// no lane waits for another. The fast shape takes a block per subgroup and its sequences a batch
// at a time (each lane a record, the bytes then written side by side); the reference shape, an
// invocation per block, one sequence after another.
inline ir::program zstd_blocks_execute_program(std::uint32_t lanes, std::uint32_t per_workgroup) {
    namespace d = vyre::dsl;
    namespace c = vyre::compression;
    namespace field = c::zstd_block_field;
    namespace why = c::zstd_frame_reason;
    detail::zstd_check_shape("zstd_blocks_execute_program", "blocks", lanes, per_workgroup);
    const bool shared = lanes > 1;
    d::kernel k(entry_name(shared ? zstd_blocks_execute_fast_id : zstd_blocks_execute_id), {lanes * per_workgroup, 1, 1});
    if (shared) k.use_subgroups(lanes);
    namespace b = zstd_execute_binding;
    const auto in = k.input<d::bytes>("input", b::input);
    const auto blocks = k.input<d::u32>("blocks", b::blocks);
    const auto plan = k.input<d::u32>("plan", b::plan);
    const auto seqs = k.input<d::u32>("records", b::sequences);
    const auto exec = k.input<d::u32>("exec", b::exec);
    const auto lit = k.input<d::bytes>("literals", b::literals);
    const auto out = k.output<d::bytes>("output", b::output);
    const auto links = k.output<d::u32>("links", b::links);
    const auto verdicts = k.output<d::u32>("verdicts", b::verdicts);
    const auto params = k.uniform<d::u32>("params", b::params);

    const auto unit = detail::zstd_lane_and_slot(k, shared);
    const auto lane = unit.lane, slot = unit.slot;
    const auto block = k.let("block", d::workgroup_id() * per_workgroup + slot);
    k.if_(block >= params[0u], [&] { k.return_(); });
    const auto in_bytes = k.let("input_bytes", params[1u]);
    const auto lit_bytes = k.let("literal_bytes", params[2u]);
    const auto out_bytes = k.let("output_bytes", params[3u]);
    const auto history_end = k.let("history_end", params[4u]);
    const auto within = [](const auto& at, const auto& n, const auto& size) { return detail::zstd_within(at, n, size); };

    const auto e = k.let("exec_at", block * c::zstd_exec_words);
    const auto flags = k.let("flags", exec[e]);
    const auto reason = k.let("reason", why::none);
    k.if_((flags & c::zstd_exec_skip) == 0u, [&] {
        const auto run = k.let("run", flags & c::zstd_exec_count);
        const auto out_at = k.let("out_at", exec[e + 1u]);
        const auto op0 = k.let("op_start", exec[e + 2u]);
        const auto cap = k.let("capacity", exec[e + 3u]);
        const auto link_at = k.let("link_at", exec[e + 4u]);
        const auto r0 = k.let("rep0", exec[e + 5u]), r1 = k.let("rep1", exec[e + 6u]), r2 = k.let("rep2", exec[e + 7u]);
        // Indices of the frame's byte 0 (wrapping: only sums with the frame's own offsets are used).
        const auto frame_out = k.let("frame_out", out_at - op0);
        const auto frame_link = k.let("frame_link", link_at - op0);
        const auto op = k.let("op", op0);
        const auto rec = k.let("rec", block * c::zstd_block_words);
        const auto kind = k.let("kind", blocks[rec + field::kind]);
        const auto type = k.let("type", kind & 3u);
        const auto size = k.let("size", blocks[rec + field::size]);
        const auto src = k.let("src", blocks[rec + field::source]);
        // out[frame_out + op + j] = source(j) for j < count, a literal each. Records made elsewhere
        // may hold any U32 count: this and the other copies step by strided_next, so they end.
        const auto literals_out = [&](const std::string& name, const auto& count, const auto& source) {
            const auto j = k.let(name, lane);
            k.while_(j < count, [&] {
                k.store(out, frame_out + op + j, source(j));
                k.store(links, frame_link + op + j, frame_link + op + j);
                j = strided_next(j, lanes);
            });
        };
        k.if_(op0 > cap || !within(frame_out + op0, cap - op0, out_bytes), [&] { reason = why::bad_record; }).else_([&] {
            k.if_(type < 2u, [&] {
                k.if_(!within(src, d::select(type == 0u, size, 1u), in_bytes), [&] { reason = why::bad_record; }).else_([&] {
                    k.if_(size > cap - op, [&] { reason = why::capacity; }).else_([&] {
                        literals_out("plain_j", size, [&](const auto& j) { return in[src + d::select(type == 0u, j, 0u)]; });
                    });
                });
            }).else_([&] {
                const auto lit_at = k.let("literals_at", blocks[rec + field::literals_at]);
                const auto first = k.let("first_record", plan[block * c::zstd_plan_words]);
                const auto lit_pos = k.let("lit_pos", 0u);
                k.if_(!within(lit_at, size, lit_bytes), [&] { reason = why::bad_record; });
                if (shared) {
                    // A batch of up to `lanes` sequences at a time: lane s reads record i + s, the
                    // sequences' positions are prefix sums over the subgroup, and the lanes then
                    // write the batch's bytes side by side (byte p by lane p % lanes, which finds
                    // its sequence by a binary search over the lanes' starts). Each lane checks its
                    // own sequence as the serial loop would, and the batch stops before the first
                    // that fails, so the bytes written and the reason are the serial loop's.
                    // Lengths of 2^26 and more (records made elsewhere) end a batch, so that the
                    // sums of a batch stay below 2^32.
                    constexpr std::uint32_t big = 1u << 26;
                    const auto u64 = [](const auto& x) { return d::cast<d::u64>(x); };
                    const auto i = k.let("seq_i", 0u);
                    k.while_(reason == why::none && i < run, [&] {
                        const auto mine = k.let("mine", i + lane < run);
                        const auto ll = k.let("literal_length", 0u), ml = k.let("match_length", 0u);
                        const auto rs = k.let("record_slot", 0u), value = k.let("record_offset", 0u);
                        k.if_(mine, [&] {
                            const auto at = k.let("record_at", (first + i + lane) * c::zstd_sequence_words);
                            ll = seqs[at];
                            ml = seqs[at + 1u];
                            rs = seqs[at + 2u];
                            value = seqs[at + 3u];
                        });
                        const auto off = k.let("offset", d::select(rs == 0u, value, d::select(rs == 1u, r0, d::select(rs == 2u, r1, r2)) - value));
                        const auto exact = k.let("exact", ll < big && ml < big);
                        const auto inexact = k.let("inexact_lanes", d::subgroup_ballot(!exact));
                        const auto n = k.let("batch", d::min(run - i, d::min(d::ctz(inexact) + 1u, d::lit(lanes))));
                        const auto start = k.let("start", d::subgroup_exclusive_add(d::select(exact, ll + ml, d::lit(big))));
                        const auto lit_start = k.let("lit_start", d::subgroup_exclusive_add(d::select(exact, ll, d::lit(big))));
                        const auto at_op = k.let("at_op", u64(op) + u64(start));
                        const auto at_lit = k.let("at_lit", u64(lit_pos) + u64(lit_start));
                        const auto failure = k.let("failure", why::none);
                        k.if_(lane < n, [&] {
                            k.if_(at_op > u64(cap) || u64(ll) + u64(ml) > u64(cap) - at_op, [&] { failure = why::capacity; }).else_([&] {
                                k.if_(off == 0u || u64(off) > at_op + u64(ll), [&] { failure = why::offset; }).else_([&] {
                                    // the decode pass checked this: records from elsewhere
                                    k.if_(at_lit > u64(size) || u64(ll) > u64(size) - at_lit, [&] { failure = why::bad_record; });
                                });
                            });
                        });
                        const auto failed = k.let("failed_lanes", d::subgroup_ballot(failure != why::none));
                        const auto f = k.let("first_failed", d::ctz(failed));
                        const auto failed_why = k.let("failed_why", d::subgroup_broadcast(failure, d::min(f, d::lit(lanes - 1u))));
                        k.if_(f < n, [&] { reason = failed_why; });
                        const auto m = k.let("executed", d::min(f, n));
                        const auto last = k.let("last", d::select(m == 0u, 0u, m - 1u));
                        const auto last_start = k.let("last_start", d::subgroup_broadcast(start, last));
                        const auto last_bytes = k.let("last_bytes", d::subgroup_broadcast(ll + ml, last));
                        const auto last_lit_start = k.let("last_lit_start", d::subgroup_broadcast(lit_start, last));
                        const auto last_ll = k.let("last_literals", d::subgroup_broadcast(ll, last));
                        const auto region = k.let("region", d::select(m == 0u, 0u, last_start + last_bytes));
                        const auto key = k.let("key", d::select(lane < m, start, d::lit(0xFFFFFFFFu)));
                        const auto base = k.let("base", 0u);
                        k.while_(base < region, [&] {
                            const auto p = k.let("p", base + lane);
                            const auto s = k.let("s", 0u);
                            for (std::uint32_t step = lanes / 2; step >= 1; step /= 2) {
                                const auto probe = k.let("probe" + std::to_string(step), d::subgroup_shuffle(key, s + step));
                                k.if_(probe <= p, [&] { s = s + step; });
                            }
                            const auto s_start = k.let("s_start", d::subgroup_shuffle(start, s));
                            const auto s_ll = k.let("s_literals", d::subgroup_shuffle(ll, s));
                            const auto s_off = k.let("s_offset", d::subgroup_shuffle(off, s));
                            const auto s_lit = k.let("s_lit_start", d::subgroup_shuffle(lit_start, s));
                            k.if_(p < region, [&] {
                                const auto within = k.let("within", p - s_start);
                                const auto pos = k.let("pos", op + p);
                                k.if_(within < s_ll, [&] {
                                    k.store(out, frame_out + pos, lit[lit_at + lit_pos + s_lit + within]);
                                    k.store(links, frame_link + pos, frame_link + pos);
                                }).else_([&] {
                                    // The byte t of a match copies byte t - offset, and where the
                                    // match overlaps itself (t >= offset) that byte is one of its
                                    // own: the source is taken before the match, at t % offset, so
                                    // that no chain runs along a match. The match starts at or
                                    // after its offset (checked above), so the source never
                                    // wraps below the frame.
                                    const auto t = k.let("t", within - s_ll);
                                    const auto from_pos = k.let("from_pos", pos - s_off);
                                    k.if_(t >= s_off, [&] { from_pos = pos - t - s_off + t % s_off; });
                                    const auto from = k.let("from", frame_out + from_pos);
                                    k.if_(from < history_end, [&] {
                                        k.store(out, frame_out + pos, out[from]);
                                        k.store(links, frame_link + pos, frame_link + pos);
                                    }).else_([&] { k.store(links, frame_link + pos, frame_link + from_pos); });
                                });
                            });
                            base = strided_next(base, lanes);
                        });
                        op = op + region;
                        lit_pos = lit_pos + d::select(m == 0u, 0u, last_lit_start + last_ll);
                        i = i + m;
                    });
                } else {
                    const auto i = k.let("seq_i", 0u);
                    k.while_(reason == why::none && i < run, [&] {
                        const auto at = k.let("record_at", (first + i) * c::zstd_sequence_words);
                        const auto ll = k.let("literal_length", seqs[at]);
                        const auto ml = k.let("match_length", seqs[at + 1u]);
                        const auto rs = k.let("record_slot", seqs[at + 2u]);
                        const auto value = k.let("record_offset", seqs[at + 3u]);
                        const auto off = k.let("offset", d::select(rs == 0u, value, d::select(rs == 1u, r0, d::select(rs == 2u, r1, r2)) - value));
                        k.if_(d::cast<d::u64>(ll) + d::cast<d::u64>(ml) > d::cast<d::u64>(cap - op), [&] {
                            reason = why::capacity;
                            k.break_();
                        });
                        k.if_(off == 0u || off > op + ll, [&] {
                            reason = why::offset;
                            k.break_();
                        });
                        k.if_(ll > size - lit_pos, [&] {
                            reason = why::bad_record; // the decode pass checked this: records from elsewhere
                            k.break_();
                        });
                        literals_out("lit_j", ll, [&](const auto& j) { return lit[lit_at + lit_pos + j]; });
                        op = op + ll;
                        lit_pos = lit_pos + ll;
                        const auto j = k.let("match_j", lane);
                        k.while_(j < ml, [&] {
                            // op + j >= off (checked above), so the source never wraps below the frame.
                            const auto from = k.let("from", frame_out + op + j - off);
                            k.if_(from < history_end, [&] {
                                k.store(out, frame_out + op + j, out[from]);
                                k.store(links, frame_link + op + j, frame_link + op + j);
                            }).else_([&] { k.store(links, frame_link + op + j, frame_link + op + j - off); });
                            j = strided_next(j, lanes);
                        });
                        op = op + ml;
                        i = i + 1u;
                    });
                }
                k.if_(reason == why::none && (flags & c::zstd_exec_rest) != 0u, [&] {
                    const auto rest = k.let("rest", size - lit_pos);
                    k.if_(rest > cap - op, [&] { reason = why::capacity; }).else_([&] {
                        literals_out("rest_j", rest, [&](const auto& j) { return lit[lit_at + lit_pos + j]; });
                    });
                });
            });
        });
    });
    k.if_(lane == 0u, [&] { k.store(verdicts, block, reason); });
    return k.program();
}

// resolve: one round of pointer jumping. A byte whose link leads to another match byte follows
// up to params[2] links and keeps the furthest; one that reaches a literal copies it (in the
// first round, also those linked to a literal from the start). A byte still short of a literal
// sets `unresolved`, and in the first round is also listed, so that later rounds need visit only
// those (where the list held them all; otherwise they go over the ranges again). The ranges'
// rounds take a workgroup per range (a frame's bytes of one block); the list's, an invocation per
// listed byte. Links only ever point backwards, so every chain ends, and a link read while
// another invocation rewrites it is still a byte of the same chain.
inline ir::program zstd_blocks_resolve_program() {
    namespace d = vyre::dsl;
    namespace c = vyre::compression;
    namespace round = zstd_resolve_round;
    d::kernel k(entry_name(zstd_blocks_resolve_id), {zstd_resolve_workgroup, 1, 1});
    namespace b = zstd_resolve_binding;
    const auto ranges = k.input<d::u32>("ranges", b::ranges);
    const auto links = k.output<d::u32>("links", b::links);
    const auto out = k.output<d::bytes>("output", b::output);
    const auto unresolved = k.output<d::u32>("unresolved", b::unresolved);
    const auto params = k.uniform<d::u32>("params", b::params);
    const auto list = k.output<d::u32>("list", b::list);
    const auto units = k.let("units", params[0u]);
    const auto kind = k.let("round_kind", params[1u]);
    const auto most = k.let("most_hops", params[2u]);
    const auto capacity = k.let("capacity", params[3u]);
    // Byte i (its output at i + delta, as every byte of its frame) with link p and q = links[p]:
    // follows the chain, keeps how far it got and copies the literal it reached.
    const auto follow = [&](const auto& i, const auto& p, const auto& q, const auto& delta, const std::string& x) {
        const auto hops = k.let("hops" + x, 0u);
        k.while_(q != p && hops < most, [&] {
            p = q;
            q = links[p];
            hops = hops + 1u;
        });
        k.if_(hops != 0u, [&] { k.store(links, i, p); });
        k.if_(q != p, [&] {
            k.store(unresolved, 0u, 1u);
            k.if_(kind == round::first, [&] {
                const auto slot = k.let("slot" + x, d::atomic_add(unresolved, 1u, 1u));
                k.if_(slot < capacity, [&] {
                    k.store(list, 2u * slot, i);
                    k.store(list, 2u * slot + 1u, i + delta);
                });
            });
        }).else_([&] {
            k.if_(hops != 0u || kind != round::ranges, [&] { k.store(out, i + delta, out[p + delta]); });
        });
    };
    k.if_(kind == round::list, [&] {
        const auto e = k.let("entry", d::invocation_id());
        k.if_(e < units, [&] {
            const auto i = k.let("i", list[2u * e]);
            const auto delta = k.let("delta", list[2u * e + 1u] - i);
            const auto p = k.let("p", links[i]);
            const auto q = k.let("q", links[p]);
            follow(i, p, q, delta, "");
        });
    }).else_([&] {
        const auto r = k.let("range", d::workgroup_id());
        k.if_(r < units, [&] {
            const auto link_at = k.let("link_at", ranges[r * c::zstd_range_words]);
            const auto out_at = k.let("out_at", ranges[r * c::zstd_range_words + 1u]);
            const auto n = k.let("bytes", ranges[r * c::zstd_range_words + 2u]);
            const auto delta = k.let("delta", out_at - link_at);
            // Each invocation takes zstd_resolve_bytes bytes a workgroup apart at a time, their
            // first loads issued together: a byte's chain is a few dependent loads, and one chain
            // at a time leaves the invocation waiting on each.
            const auto j = k.let("j", d::local_id());
            k.while_(j < n, [&] {
                std::vector<d::variable<d::u32>> at, p, q;
                std::vector<d::variable<d::boolean>> valid;
                std::vector<std::string> x;
                for (std::uint32_t u = 0; u < zstd_resolve_bytes; ++u) x.push_back(std::to_string(u));
                for (std::uint32_t u = 0; u < zstd_resolve_bytes; ++u) {
                    // j < n, so n - j does not wrap, and j + u * workgroup < n where valid.
                    valid.push_back(k.let("valid" + x[u], n - j > u * zstd_resolve_workgroup));
                    at.push_back(k.let("at" + x[u], link_at + j + u * zstd_resolve_workgroup));
                    p.push_back(k.let("p" + x[u], 0u));
                    k.if_(valid[u], [&] { p[u] = links[at[u]]; });
                }
                for (std::uint32_t u = 0; u < zstd_resolve_bytes; ++u) {
                    q.push_back(k.let("q" + x[u], p[u]));
                    k.if_(valid[u] && p[u] != at[u], [&] { q[u] = links[p[u]]; });
                }
                for (std::uint32_t u = 0; u < zstd_resolve_bytes; ++u)
                    k.if_(valid[u] && p[u] != at[u], [&] { follow(at[u], p[u], q[u], delta, x[u]); });
                j = strided_next(j, zstd_resolve_bytes * zstd_resolve_workgroup);
            });
        });
    });
    return k.program();
}

} // namespace vyre::ops::compression
