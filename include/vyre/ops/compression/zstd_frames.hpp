// compression.zstd.frames: whole Zstandard frames regenerated on the device, compressed blocks
// included (Huffman literals, FSE sequences, repeat offsets, matches into earlier blocks). The
// host lays each frame's blocks and tables out first (format/zstd_sections.hpp, in the layout of
// compression/zstd_entropy.hpp); one subgroup then decodes one frame, block after block. Two
// shapes with identical results: one invocation per frame (reference variant) and one subgroup
// of 32 per frame (fast variant). CPU oracle: reference/zstd_frames.hpp.
#pragma once

#include <vyre/compression/zstd.hpp>
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/block_program.hpp>
#include <vyre/ops/compression/detail/zstd_program_parts.hpp>
#include <vyre/ops/compression/zstd_fse_tables.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/runtime/subgroups.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::compression {

inline constexpr const char* zstd_frames_id = "compression.zstd.frames";
inline constexpr const char* zstd_frames_fast_id = "compression.zstd.frames.fast";

namespace zstd_frames_binding {
enum : std::uint32_t { input = 0, frames = 1, blocks = 2, tables = 3, literals = 4, output = 5, statuses = 6, params = 7 };
}
// params: [frames, input bytes, output bytes, literals bytes, block words, table words]
inline constexpr std::uint32_t zstd_frames_param_words = 6;

inline constexpr std::uint32_t zstd_frames_fast_lanes = 32;
// Frames per workgroup of the fast shape where subgroups are NVIDIA warps (one elsewhere).
inline constexpr std::uint32_t zstd_frames_per_workgroup = 4;
// The reference shape: invocations share nothing, so a workgroup holds several frames (each
// with its own Huffman table in workgroup memory: 8 KiB a frame).
inline constexpr std::uint32_t zstd_frames_reference_workgroup = 4;

// The program. Both shapes leave the statuses reference::zstd_decode_frames leaves and, for
// frames that decode, the same bytes, for records as format::plan_zstd_sections makes them;
// whatever the records say, nothing outside the frames' regions and the literals' scratch is
// written. How a frame is decoded:
//   - a raw or RLE block is copied or filled by the lanes together;
//   - a compressed block's Huffman code is expanded into a table of workgroup memory; lane s
//     decodes Huffman stream s (of 1 or 4) into the literals' scratch (with one lane, the
//     streams one after another); raw and RLE literals are copied there too;
//   - the subgroup then copies the block's three FSE tables and the length codes' values into
//     the same workgroup memory: thousands of frames' tables do not stay in the L1 cache, and
//     every sequence reads them on its serial path;
//   - the sequences are decoded by every lane alike (the same bits, the same states: uniform
//     control flow). A short sequence (literals and match of at most 32 bytes each, a match that
//     does not overlap itself) is one load and one store of a byte per lane, its stores held back
//     until the next sequence is decoded; the lanes split a longer sequence's literal copy and
//     match copy, as compression.deflate does (a match reading bytes written since the last
//     barrier waits at one).
// The bit reader keeps up to 64 bits of a backward bitstream; reads past the stream's first byte
// give zeros and are counted, so that a stream consumed inexactly is caught at its end.
inline ir::program zstd_frames_program(std::uint32_t lanes, std::uint32_t frames_per_workgroup) {
    namespace d = vyre::dsl;
    namespace c = vyre::compression;
    namespace field = c::zstd_block_field;
    namespace why = c::zstd_frame_reason;
    detail::zstd_check_shape("zstd_frames_program", "frames", lanes, frames_per_workgroup);
    const bool shared = lanes > 1;
    const std::uint32_t table_words = 1u << c::zstd_huffman_max_bits;
    d::kernel k(entry_name(shared ? zstd_frames_fast_id : zstd_frames_id), {lanes * frames_per_workgroup, 1, 1});
    if (shared) k.use_subgroups(lanes);
    namespace b = zstd_frames_binding;
    const auto in = k.input<d::bytes>("input", b::input);
    const auto frames = k.input<d::u32>("frames", b::frames);
    const auto blocks = k.input<d::u32>("blocks", b::blocks);
    const auto tables = k.input<d::u32>("tables", b::tables);
    const auto lit = k.output<d::bytes>("literals", b::literals);
    const auto out = k.output<d::bytes>("output", b::output);
    const auto statuses = k.output<d::u32>("statuses", b::statuses);
    const auto params = k.uniform<d::u32>("params", b::params);
    const d::workgroup_buffer<d::u32> huff = k.workgroup<d::u32>("huffman", table_words * frames_per_workgroup);

    const auto unit = detail::zstd_lane_and_slot(k, shared);
    const auto lane = unit.lane, slot = unit.slot;
    const auto frame = k.let("frame", d::workgroup_id() * frames_per_workgroup + slot);
    k.if_(frame >= params[0u], [&] { k.return_(); });
    const auto base = k.let("table_base", slot * table_words);
    const auto in_bytes = k.let("input_bytes", params[1u]);
    const auto out_bytes = k.let("output_bytes", params[2u]);
    const auto lit_bytes = k.let("literal_bytes", params[3u]);
    const auto block_words = k.let("block_words", params[4u]);
    const auto tw = k.let("table_words", params[5u]);
    const auto sync = [&] {
        if (shared) k.subgroup_barrier();
    };
    const auto within = [](const auto& at, const auto& n, const auto& size) { return detail::zstd_within(at, n, size); };

    const auto first = k.let("first_block", frames[frame * 4u]);
    const auto nblocks = k.let("block_count", frames[frame * 4u + 1u]);
    const auto out_base = k.let("out_base", frames[frame * 4u + 2u]);
    const auto cap = k.let("capacity", frames[frame * 4u + 3u]);
    const auto reason = k.let("reason", why::none);
    const auto op = k.let("op", 0u); // bytes of the frame written; op <= cap
    const auto bi = k.let("block", 0u);
    const auto rep1 = k.let("rep1", 1u);
    const auto rep2 = k.let("rep2", 4u);
    const auto rep3 = k.let("rep3", 8u);
    const auto fenced = k.let("fenced", 0u); // output written before the last barrier
    const auto expanded = k.let("expanded", 0xFFFFFFFFu); // the Huffman table in workgroup memory

    const detail::zstd_bits reader(k, in);

    // out[out_base + op + j] = source(j) for j < count, lanes taking j = lane, lane + lanes, ...
    // Every caller checks count <= cap - op first, and its source lies in a range it checked (the
    // block's input or literals, or the output before op): no access tests its index (ir::bounds).
    // A record's size may be any U32 (records made elsewhere): j steps by strided_next, so a count
    // near 2^32 ends the loop. (Loading several bytes a lane before storing them was measured
    // slower: doc/ops/compression.zstd.frames.md.)
    const auto copy_out = [&](const std::string& name, const auto& count, const auto& source) {
        const auto j = k.let(name, lane);
        k.while_(j < count, [&] {
            k.store_unchecked(out, out_base + op + j, source(j));
            j = strided_next(j, lanes);
        });
    };

    k.if_(!within(first * c::zstd_block_words, nblocks * c::zstd_block_words, block_words) || first > 0x0FFFFFFFu ||
              nblocks > 0x0FFFFFFFu || !within(out_base, cap, out_bytes),
          [&] { reason = why::bad_record; });
    const auto seq = reader.make("seq");
    const auto hs = reader.make("huf");
    k.while_(reason == why::none && bi < nblocks, [&] {
        const auto rec = k.let("rec", (first + bi) * c::zstd_block_words);
        const auto kind = k.let("kind", blocks[rec + field::kind]);
        const auto type = k.let("type", kind & 3u);
        const auto size = k.let("size", blocks[rec + field::size]);
        const auto src = k.let("src", blocks[rec + field::source]);
        k.if_(type < 2u, [&] {
            k.if_(!within(src, d::select(type == 0u, size, 1u), in_bytes), [&] {
                reason = why::bad_record;
                k.break_();
            });
            k.if_(size > cap - op, [&] {
                reason = why::capacity;
                k.break_();
            });
            copy_out("plain_j", size, [&](const auto& j) { return in.unchecked(src + d::select(type == 0u, j, 0u)); });
            op = op + size;
            bi = bi + 1u;
            k.continue_();
        });
        const auto lit_type = k.let("literals_type", (kind >> 2u) & 3u);
        const auto lit_at = k.let("literals_at", blocks[rec + field::literals_at]);
        const auto maximum = k.let("maximum", blocks[rec + field::maximum]);
        k.if_(type != 2u || lit_type > 2u || !within(lit_at, size, lit_bytes), [&] {
            reason = why::bad_record;
            k.break_();
        });
        k.if_(size > maximum, [&] {
            reason = why::block_maximum;
            k.break_();
        });
        // ---- literals into scratch
        k.if_(lit_type < 2u, [&] {
            k.if_(!within(src, d::select(lit_type == 0u, size, 1u), in_bytes), [&] {
                reason = why::bad_record;
                k.break_();
            });
            const auto j = k.let("raw_j", lane);
            k.while_(j < size, [&] {
                k.store_unchecked(lit, lit_at + j, in.unchecked(src + d::select(lit_type == 0u, j, 0u)));
                j = strided_next(j, lanes);
            });
        }).else_([&] {
            const auto table = k.let("huffman_table", blocks[rec + field::huffman_table]);
            k.if_(table >= tw, [&] {
                reason = why::bad_record;
                k.break_();
            });
            const auto header = k.let("huffman_header", tables[table]);
            const auto bits = k.let("huffman_bits", header & 0xFFu);
            const auto nsym = k.let("huffman_symbols", header >> 8u);
            k.if_(bits == 0u || bits > c::zstd_huffman_max_bits || nsym > 256u || !within(table + 1u, nsym, tw), [&] {
                reason = why::bad_record;
                k.break_();
            });
            k.if_(table != expanded, [&] {
                detail::zstd_expand_huffman(k, tables, huff, base, table, bits, nsym, lane, lanes, sync);
                expanded = table;
            });
            const auto four = k.let("four_streams", (kind & c::zstd_four_streams) != 0u);
            const auto streams = k.let("streams", d::select(four, 4u, 1u));
            const auto segment = k.let("segment", d::select(four, (size + 3u) >> 2u, size));
            k.if_(segment * (streams - 1u) > size, [&] {
                reason = why::literals_stream;
                k.break_();
            });
            const auto verdicts = detail::zstd_decode_huffman_streams(k, reader, hs, blocks, lit, huff, rec, size, src, lit_at, base,
                                                                      bits, streams, segment, in_bytes, lane, lanes);
            const auto bad_range = verdicts.bad_range, bad_stream = verdicts.bad_stream;
            // The lanes' verdicts, the same in every lane (a variable assigned in divergent flow
            // stays divergent, so the branches test fresh ones).
            const auto any_range = shared ? k.let("any_bad_range", d::subgroup_any(bad_range)) : bad_range;
            const auto any_stream = shared ? k.let("any_bad_stream", d::subgroup_any(bad_stream)) : bad_stream;
            k.if_(any_range, [&] {
                reason = why::bad_record;
                k.break_();
            });
            k.if_(any_stream, [&] {
                reason = why::literals_stream;
                k.break_();
            });
        });
        k.if_(reason != why::none, [&] { k.break_(); });
        sync(); // the literals are in scratch for every lane

        // ---- sequences
        const auto nseq = k.let("sequences", blocks[rec + field::sequences]);
        const auto block_start = k.let("block_start", op);
        const auto lit_pos = k.let("lit_pos", 0u);
        k.if_(nseq != 0u, [&] {
            const auto llt = k.let("ll_table", blocks[rec + field::literal_length_table]);
            const auto oft = k.let("of_table", blocks[rec + field::offset_table]);
            const auto mlt = k.let("ml_table", blocks[rec + field::match_length_table]);
            const auto seq_at = k.let("seq_at", blocks[rec + field::sequences_at]);
            const auto seq_size = k.let("seq_size", blocks[rec + field::sequences_size]);
            const auto table_ok = [&](const auto& t) { return detail::zstd_table_ok(tables, t, tw); };
            k.if_(tw < c::zstd_match_values_at + 64u || !table_ok(llt) || !table_ok(oft) || !table_ok(mlt) || !within(seq_at, seq_size, in_bytes), [&] {
                reason = why::bad_record;
                k.break_();
            });
            const auto marked = reader.start(seq, seq_at, seq_size, "seq");
            k.if_(!marked, [&] {
                reason = why::sequences_stream;
                k.break_();
            });
            // The sequences, with their tables read from `tb` (FSE tables at l_at, o_at and m_at,
            // the length codes' values at `values`).
            const auto decode_sequences = [&](const auto& tb, const auto& l_at, const auto& o_at, const auto& m_at, const auto& values) {
                const auto states = detail::zstd_start_sequences(k, reader, seq, tb, l_at, o_at, m_at);
                // A short sequence's bytes, loaded and not yet stored (held_ll + held_ml of them
                // at held_op; see below).
                struct held_bytes {
                    d::variable<d::u32> op, ll, ml, literal, match;
                };
                std::optional<held_bytes> held;
                if (shared)
                    held.emplace(held_bytes{k.let("held_op", 0u), k.let("held_ll", 0u), k.let("held_ml", 0u), k.let("held_literal", 0u),
                                            k.let("held_match", 0u)});
                const auto put_held = [&] {
                    k.if_(lane < held->ll, [&] { k.store_unchecked(out, out_base + held->op + lane, held->literal); });
                    k.if_(lane < held->ml, [&] { k.store_unchecked(out, out_base + held->op + held->ll + lane, held->match); });
                    held->ll = 0u;
                    held->ml = 0u;
                };
                const auto i = k.let("seq_i", 0u);
                k.while_(i < nseq, [&] {
                    const auto sq = detail::zstd_decode_sequence(k, reader, seq, tb, states, l_at, o_at, m_at, i, nseq, values);
                    const auto ofv = sq.ofv, ml = sq.ml, ll = sq.ll;
                    // Repeat offsets (RFC 8878 3.1.1.5)
                    const auto off = k.let("offset", 0u);
                    k.if_(ofv > 3u, [&] {
                        off = ofv - 3u;
                        rep3 = rep2;
                        rep2 = rep1;
                        rep1 = off;
                    }).else_([&] {
                        const auto index = k.let("rep_index", ofv - 1u + d::select(ll == 0u, 1u, 0u));
                        k.if_(index == 0u, [&] { off = rep1; }).else_([&] {
                            off = d::select(index == 1u, rep2, d::select(index == 2u, rep3, rep1 - 1u));
                            k.if_(index != 1u, [&] { rep3 = rep2; });
                            rep2 = rep1;
                            rep1 = off;
                        });
                    });
                    // The sequence's tests, in this order, in one branch: the first that fails
                    // names the reason.
                    const auto bytes = k.let("sequence_bytes", d::cast<d::u64>(ll) + d::cast<d::u64>(ml));
                    const auto fault = k.let(
                        "sequence_fault",
                        d::select(ll > size - lit_pos, d::lit(why::literals_overrun),
                                  d::select(bytes > d::cast<d::u64>(maximum - (op - block_start)), d::lit(why::block_maximum),
                                            d::select(bytes > d::cast<d::u64>(cap - op), d::lit(why::capacity),
                                                      d::select(off == 0u || off > op + ll, d::lit(why::offset), d::lit(why::none))))));
                    k.if_(fault != why::none, [&] {
                        reason = fault;
                        k.break_();
                    });
                    if (shared) {
                        // A short sequence in one step: literals and match of at most `lanes`
                        // bytes each, a match that does not overlap itself. Each lane reads its
                        // literal byte and its match byte before it writes either, so the two
                        // reads wait together where the copies below wait for each in turn. A
                        // match byte that this sequence's literals write comes from the scratch
                        // (the literal it copies), so only bytes of earlier sequences need the
                        // barrier; lanes past the match read its last source byte again, inside
                        // what the barrier covers (as compression.lz4's fast program does).
                        //
                        // The step's bytes are held in registers and stored after the next
                        // sequence is decoded, so that their loads' latency passes while it
                        // decodes. Held bytes are stored before any later load of the output.
                        k.if_(ll <= lanes && ml <= lanes && ml != 0u && off >= ml, [&] {
                            const auto literal_at = k.let("step_literal_at", lit_at + lit_pos);
                            const auto from = k.let("step_from", op + ll - off);
                            put_held();
                            k.if_(from < op && d::min(from + ml, op) > fenced, [&] {
                                k.subgroup_barrier();
                                fenced = op;
                            });
                            held->literal = 0u;
                            k.if_(lane < ll, [&] { held->literal = lit.unchecked(literal_at + lane); });
                            const auto source = k.let("step_source", from + d::min(lane, ml - 1u));
                            k.if_(source < op, [&] { held->match = out.unchecked(out_base + source); }).else_([&] {
                                held->match = lit.unchecked(literal_at + (source - op));
                            });
                            held->op = op;
                            held->ll = ll;
                            held->ml = ml;
                            op = op + ll + ml;
                            lit_pos = lit_pos + ll;
                            i = i + 1u;
                            k.continue_();
                        });
                        put_held();
                    }
                    copy_out("lit_j", ll, [&](const auto& j) { return lit.unchecked(lit_at + lit_pos + j); });
                    op = op + ll;
                    lit_pos = lit_pos + ll;
                    const auto from = k.let("match_from", op - off);
                    if (shared) {
                        k.if_(from + d::min(off, ml) > fenced, [&] {
                            k.subgroup_barrier();
                            fenced = op;
                        });
                        k.if_(off >= ml, [&] {
                            copy_out("match_j", ml, [&](const auto& j) { return out.unchecked(out_base + from + j); });
                        }).else_([&] {
                            // An overlapping match (a run of one byte is a match of offset 1).
                            repeat_pattern(k, "repeat_j", ml, off, lane, lanes,
                                           [&](const auto& at) { return out.unchecked(out_base + from + at); },
                                           [&](const auto& j, const auto& byte) { k.store_unchecked(out, out_base + op + j, byte); });
                        });
                    } else {
                        copy_out("match_j", ml, [&](const auto& j) { return out.unchecked(out_base + from + j); });
                    }
                    op = op + ml;
                    i = i + 1u;
                });
                if (shared) put_held(); // also where a check failed: its bytes lie in the frame's region
            };
            if (shared) {
                // The subgroup stages the block's tables in the frame's workgroup memory (the
                // Huffman table's place: a later treeless block expands its table again).
                namespace staged = detail::zstd_staged;
                detail::zstd_stage_sequence_tables(k, tables, huff, base, llt, oft, mlt, lane, lanes, sync);
                expanded = 0xFFFFFFFFu;
                decode_sequences(huff, base + staged::literal_length, base + staged::offset, base + staged::match_length,
                                 base + staged::values);
            } else {
                decode_sequences(tables, llt, oft, mlt, d::lit(0u));
            }
            k.if_(reason != why::none, [&] { k.break_(); });
            k.if_(!detail::zstd_bits::exhausted(seq), [&] {
                reason = why::sequences_stream;
                k.break_();
            });
        });
        k.if_(reason != why::none, [&] { k.break_(); });
        const auto rest = k.let("rest", size - lit_pos);
        k.if_(rest > maximum - (op - block_start), [&] {
            reason = why::block_maximum;
            k.break_();
        });
        k.if_(rest > cap - op, [&] {
            reason = why::capacity;
            k.break_();
        });
        copy_out("rest_j", rest, [&](const auto& j) { return lit.unchecked(lit_at + lit_pos + j); });
        op = op + rest;
        bi = bi + 1u;
    });
    k.if_(lane == 0u, [&] {
        const auto st = k.let("status_at", frame * c::zstd_status_words);
        k.store(statuses, st, d::select(reason == why::none, std::uint32_t{c::zstd_error::none},
                                        d::select(reason == why::capacity, std::uint32_t{c::zstd_error::output_overflow},
                                                  std::uint32_t{c::zstd_error::corrupt_block})));
        k.store(statuses, st + 1u, d::select(reason == why::none, op, 0u));
        k.store(statuses, st + 2u, d::select(reason == why::none, 0u, bi));
        k.store(statuses, st + 3u, reason);
    });
    return k.program();
}

inline std::uint32_t zstd_frames_per_workgroup_for(lower::subgroup_lowering l) noexcept {
    return l == lower::subgroup_lowering::nvidia_ptx ? zstd_frames_per_workgroup : 1;
}

inline std::vector<op_info> zstd_frames_infos() {
    const ir::op_signature sig{{ir::data_type::bytes}, ir::data_type::bytes};
    op_info ref{zstd_frames_id, 1, "whole Zstandard frames, compressed blocks included, one frame per invocation (reference variant)",
                sig, ir::convention::v1(), [] { return zstd_frames_program(1, zstd_frames_reference_workgroup); }};
    op_info fast{zstd_frames_fast_id, 1,
                 "compression.zstd.frames with one frame per subgroup of " + std::to_string(zstd_frames_fast_lanes) +
                     " invocations (fast variant, same results)",
                 sig, ir::convention::v1(), [] { return zstd_frames_program(zstd_frames_fast_lanes, zstd_frames_per_workgroup); }};
    fast.program_for = [](lower::subgroup_lowering l) { return zstd_frames_program(zstd_frames_fast_lanes, zstd_frames_per_workgroup_for(l)); };
    return {std::move(ref), std::move(fast)};
}

// The kernel of a variant for a device, built once per lowering.
struct zstd_frames_kernel {
    const runtime::compiled_program* program;
    std::uint32_t frames_per_workgroup;
};

inline zstd_frames_kernel zstd_frames_kernel_for(block_variant v, const runtime::device_info& device) {
    if (v == block_variant::automatic) v = fast_on_gpus(device);
    if (v == block_variant::reference) {
        static const runtime::compiled_program p(zstd_frames_program(1, zstd_frames_reference_workgroup));
        return {&p, zstd_frames_reference_workgroup};
    }
    const lower::subgroup_lowering l = runtime::native_subgroups(device);
    static const runtime::compiled_program emulated(zstd_frames_program(zstd_frames_fast_lanes, 1), lower::subgroup_lowering::emulated);
    static const runtime::compiled_program khr(zstd_frames_program(zstd_frames_fast_lanes, 1));
    static const runtime::compiled_program nvidia(zstd_frames_program(zstd_frames_fast_lanes, zstd_frames_per_workgroup));
    switch (l) {
    case lower::subgroup_lowering::emulated: return {&emulated, 1};
    case lower::subgroup_lowering::nvidia_ptx: return {&nvidia, zstd_frames_per_workgroup};
    default: return {&khr, 1};
    }
}

// Device buffers of a run: the planned records and tables, scratch, output, statuses and the
// parameters. A run may take the buffers of an earlier one that has completed (every command that
// read or wrote them, readbacks included): it reuses each that is large enough and grows the
// others (runtime::reserve), so that a pipeline frees nothing between its runs.
struct zstd_frames_buffers {
    boost::compute::buffer frames, blocks, tables, literals, output, statuses, params;
    zstd_fse_tables_buffers fse; // the described tables' build (format::zstd_plan_options::device_tables)
    std::array<std::uint32_t, zstd_frames_param_words> words{}; // what params holds: the write reads it from here
    std::uint64_t output_bytes = 0;
    boost::compute::event dispatch; // the program's run (none when there are no frames)
};

// Enqueues compression.zstd.frames over `input` (a device buffer holding the file bytes the
// sections were planned from: [s.input_base, + s.input_bytes)) on ctx's queue into `r`, nothing
// waited for: the records, tables and parameters are written from `s` and `r` (both must outlive
// the queue's work), the described tables built (compression.zstd.fse_tables), and the program
// dispatched. The frames write `output` when given (at least
// s.output_bytes long; nothing outside the frames' regions is written), else r.output. `r` is
// empty or holds the buffers of a run that has completed. `writes`, when given, carries the
// writes instead of ctx's queue, which waits for them (as enqueue_zstd_fse_tables does).
inline void enqueue_zstd_frames(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t input_bytes,
                                const format::zstd_sections& s, zstd_frames_buffers& r, block_variant v = block_variant::automatic,
                                const boost::compute::buffer* output = nullptr, boost::compute::command_queue* writes = nullptr) {
    namespace c = vyre::compression;
    const std::size_t nframes = s.frame_count();
    if (input_bytes > 0xFFFFFFFFull || s.output_bytes > 0xFFFFFFFFull || s.literal_bytes > 0xFFFFFFFFull)
        throw resource_error(std::string(zstd_frames_id) + ": input " + std::to_string(input_bytes) + ", output " +
                             std::to_string(s.output_bytes) + " and literals " + std::to_string(s.literal_bytes) +
                             " bytes must each fit 32 bits");
    if (s.blocks.size() > 0xFFFFFFFFull || s.table_words() > 0xFFFFFFFFull)
        throw resource_error(std::string(zstd_frames_id) + ": " + std::to_string(s.blocks.size()) + " record words and " +
                             std::to_string(s.table_words()) + " table words must each fit 32 bits");
    // The program leaves the tests of its copies out where its range checks cover them
    // (ir::bounds): the buffers must hold what the parameters say.
    if (input_bytes != 0 && input.size() < input_bytes)
        throw resource_error(std::string(zstd_frames_id) + ": an input buffer of " + std::to_string(input.size()) + " bytes for " +
                             std::to_string(input_bytes) + " input bytes");
    if (output && output->size() < s.output_bytes)
        throw resource_error(std::string(zstd_frames_id) + ": an output buffer of " + std::to_string(output->size()) +
                             " bytes for frames that need " + std::to_string(s.output_bytes));
    // Every check passes before an upload from `s` starts; what can fail later (the program's
    // build, the dispatch) waits for the uploads before it throws.
    const zstd_frames_kernel kernel = zstd_frames_kernel_for(v, ctx.device());
    runtime::reserve(ctx, r.frames, std::max<std::size_t>(1, s.frames.size()) * 4, CL_MEM_READ_ONLY);
    runtime::reserve(ctx, r.blocks, std::max<std::size_t>(1, s.blocks.size()) * 4, CL_MEM_READ_ONLY);
    runtime::reserve(ctx, r.tables, std::max<std::uint64_t>(1, s.table_words()) * 4);
    runtime::reserve(ctx, r.literals, std::max<std::uint64_t>(4, (s.literal_bytes + 3) & ~std::uint64_t{3}));
    if (output)
        r.output = *output;
    else
        runtime::reserve(ctx, r.output, std::max<std::uint64_t>(4, (s.output_bytes + 3) & ~std::uint64_t{3}));
    runtime::reserve(ctx, r.statuses, std::max<std::size_t>(1, nframes) * c::zstd_status_words * 4);
    runtime::reserve(ctx, r.params, zstd_frames_param_words * 4, CL_MEM_READ_ONLY);
    r.output_bytes = s.output_bytes;
    r.dispatch = {};
    if (nframes == 0) return;
    boost::compute::command_queue& to = writes ? *writes : ctx.queue();
    boost::compute::event written;
    const auto write = [&](boost::compute::buffer& b, const void* from, std::size_t bytes) {
        if (bytes != 0) runtime::cl_call("clEnqueueWriteBuffer", [&] { written = to.enqueue_write_buffer_async(b, 0, bytes, from); });
    };
    try {
        write(r.frames, s.frames.data(), s.frames.size() * 4);
        write(r.blocks, s.blocks.data(), s.blocks.size() * 4);
        write(r.tables, s.tables.data(), s.tables.size() * 4);
        // Written through the queue into a buffer the run keeps, not made per run: replacing a
        // buffer frees one, which the NVIDIA driver does only once the whole device is idle.
        r.words = {static_cast<std::uint32_t>(nframes), static_cast<std::uint32_t>(input_bytes), static_cast<std::uint32_t>(s.output_bytes),
                   static_cast<std::uint32_t>(s.literal_bytes), static_cast<std::uint32_t>(s.blocks.size()),
                   static_cast<std::uint32_t>(s.table_words())};
        write(r.params, r.words.data(), r.words.size() * 4);
        // The program waits for the writes above; the tables' build for its own ones too.
        if (writes) runtime::wait_across(*writes, written, ctx.queue());
        enqueue_zstd_fse_tables(ctx, r.tables, s.table_words(), s.fse_descriptions, r.fse, writes);
        namespace b = zstd_frames_binding;
        std::vector<runtime::buffer_arg> args(8);
        args[b::input] = {input, static_cast<std::uint32_t>(input.size() / 4)};
        args[b::frames] = {r.frames, static_cast<std::uint32_t>(r.frames.size() / 4)};
        args[b::blocks] = {r.blocks, static_cast<std::uint32_t>(r.blocks.size() / 4)};
        args[b::tables] = {r.tables, static_cast<std::uint32_t>(r.tables.size() / 4)};
        args[b::literals] = {r.literals, static_cast<std::uint32_t>(r.literals.size() / 4)};
        args[b::output] = {r.output, static_cast<std::uint32_t>(r.output.size() / 4)};
        args[b::statuses] = {r.statuses, static_cast<std::uint32_t>(r.statuses.size() / 4)};
        args[b::params] = {r.params, zstd_frames_param_words};
        const auto groups = static_cast<std::uint32_t>((nframes + kernel.frames_per_workgroup - 1) / kernel.frames_per_workgroup);
        r.dispatch = runtime::dispatch(ctx, *kernel.program, {groups, 1, 1}, args);
    } catch (...) {
        // Writes from `s` may be pending: they finish before the caller may free it.
        try {
            if (writes) writes->finish();
            ctx.queue().finish();
        } catch (...) {
        }
        throw;
    }
}

// The same into buffers of its own, returned with the dispatch's event.
inline zstd_frames_buffers enqueue_zstd_frames(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t input_bytes,
                                               const format::zstd_sections& s, block_variant v = block_variant::automatic,
                                               const boost::compute::buffer* output = nullptr) {
    zstd_frames_buffers r;
    enqueue_zstd_frames(ctx, input, input_bytes, s, r, v, output, nullptr);
    return r;
}

} // namespace vyre::ops::compression
