// Pieces of the zstd device programs written once: the backward bit reader, the expansion of a
// Huffman code into workgroup memory, a block's Huffman streams, and one sequence's decoding.
// compression.zstd.frames (a frame per subgroup) and compression.zstd.blocks (a block per
// subgroup) are both built from them, so that a bitstream means the same thing in both.
#pragma once

#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>

#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>

namespace vyre::ops::compression::detail {

namespace zd = vyre::dsl;

// The shape of a zstd program: `lanes` invocations per unit (a frame or a block; a subgroup when
// more than one), `per_workgroup` units per workgroup.
inline void zstd_check_shape(const char* program, const char* units, std::uint32_t lanes, std::uint32_t per_workgroup) {
    if (!std::has_single_bit(lanes) || lanes > 32 || per_workgroup == 0 || lanes * per_workgroup > 1024)
        throw resource_error(std::string(program) + ": " + std::to_string(per_workgroup) + " " + units + " per workgroup of " +
                             std::to_string(lanes) + " lanes (a power of two up to 32; at most 1024 invocations)");
}

// An invocation's lane in its unit and its unit's slot in the workgroup.
struct zstd_unit {
    zd::variable<zd::u32> lane, slot;
};

inline zstd_unit zstd_lane_and_slot(zd::kernel& k, bool shared) {
    const auto lane = shared ? k.let("lane", zd::subgroup_local_id()) : k.let("lane", 0u);
    const auto slot = shared ? k.let("slot", zd::subgroup_id()) : k.let("slot", zd::local_id());
    return {lane, slot};
}

// at + n <= size without overflow
inline auto zstd_within(const auto& at, const auto& n, const auto& size) { return at <= size && n <= size - at; }

// An FSE table's word offset and accuracy are usable when its entries lie in the tables' tw words.
inline auto zstd_table_ok(const zd::input_buffer<zd::u32>& tables, const auto& t, const auto& tw) {
    return t < tw && tables[t] <= vyre::compression::zstd_literal_length_max_log && zstd_within(t + 1u, zd::lit(1u) << tables[t], tw);
}

// A backward bitstream (RFC 8878 4.1) over input bytes [start, start + size): up to 64 bits held,
// refilled four bytes at a time. Reads past the stream's first byte give zeros and are counted
// in `virt`, so that a stream consumed inexactly is caught at its end. Every caller checks the
// stream's range against the input before `start`, and the reads stay inside it, so they test
// no index of their own (ir::bounds).
// The four bytes a refill takes are loaded one refill ahead (`ahead`, the word below `pos`
// whenever pos >= 4): a refill then shifts in a word already loaded, and the load it issues for
// the next has a sequence's or a few symbols' decoding to arrive, instead of every refill
// waiting for memory on the stream's serial chain.
struct zstd_reader {
    zd::variable<zd::u64> acc;
    zd::variable<zd::u32> nacc, pos, start, virt, ahead;
};

class zstd_bits {
public:
    zstd_bits(zd::kernel& k, const zd::input_buffer<zd::bytes>& in) : k_(k), in_(in) {}

    zstd_reader make(const std::string& p) const {
        return zstd_reader{k_.let(p + "_acc", zd::lit<zd::u64>(0)), k_.let(p + "_nacc", 0u), k_.let(p + "_pos", 0u),
                           k_.let(p + "_start", 0u), k_.let(p + "_virt", 0u), k_.let(p + "_ahead", 0u)};
    }

    // Holds at least 33 bits afterwards (zeros past the stream's start, counted in virt).
    void refill(const zstd_reader& r) const {
        auto& k = k_;
        const auto& in = in_;
        k.if_(r.nacc <= 32u, [&] {
            k.if_(r.pos >= 4u, [&] {
                r.acc = (r.acc << zd::lit<zd::u64>(32)) | zd::cast<zd::u64>(r.ahead);
                r.pos = r.pos - 4u;
                r.nacc = r.nacc + 32u;
                k.if_(r.pos >= 4u, [&] { r.ahead = in.u32_le_unchecked(r.start + r.pos - 4u); });
            }).else_([&] {
                k.while_(r.pos > 0u, [&] {
                    r.acc = (r.acc << zd::lit<zd::u64>(8)) | zd::cast<zd::u64>(in.unchecked(r.start + r.pos - 1u));
                    r.pos = r.pos - 1u;
                    r.nacc = r.nacc + 8u;
                });
                k.if_(r.nacc <= 32u, [&] {
                    r.acc = r.acc << zd::lit<zd::u64>(32);
                    r.nacc = r.nacc + 32u;
                    r.virt = r.virt + 32u;
                });
            });
        });
    }

    // Starts at the stream's end; the variable returned is false when it has no end marker.
    zd::variable<zd::boolean> start(const zstd_reader& r, const auto& at, const auto& size, const std::string& p) const {
        auto& k = k_;
        const auto ok = k.let(p + "_marked", false);
        r.start = at;
        r.acc = zd::lit<zd::u64>(0);
        r.nacc = 0u;
        r.pos = 0u;
        r.virt = 0u;
        k.if_(size != 0u, [&] {
            const auto last = k.let(p + "_last", in_.unchecked(at + size - 1u));
            k.if_(last != 0u, [&] {
                ok = true;
                r.acc = zd::cast<zd::u64>(last);
                r.nacc = 31u - zd::clz(last); // the bits below the marker
                r.pos = size - 1u;
                k.if_(r.pos >= 4u, [&] { r.ahead = in_.u32_le_unchecked(at + r.pos - 4u); });
            });
        });
        return ok;
    }

    static auto peek(const zstd_reader& r, const auto& n) {
        return zd::cast<zd::u32>((r.acc >> zd::cast<zd::u64>(r.nacc - n)) &
                                 ((zd::lit<zd::u64>(1) << zd::cast<zd::u64>(n)) - zd::lit<zd::u64>(1)));
    }
    zd::variable<zd::u32> read(const zstd_reader& r, const std::string& name, const auto& n) const {
        const auto v = k_.let(name, peek(r, n));
        r.nacc = r.nacc - n;
        return v;
    }
    static auto exhausted(const zstd_reader& r) { return r.pos == 0u && r.nacc == r.virt; }

private:
    zd::kernel& k_;
    const zd::input_buffer<zd::bytes>& in_;
};

// Expands the Huffman code at tables[table] (`bits` the longest code, `nsym` symbols) into
// huff[base, base + 2^bits), the lanes of a subgroup together; `sync` is their barrier (nothing
// for one lane). Entries no symbol claims stay 0.
template <class Sync>
void zstd_expand_huffman(zd::kernel& k, const zd::input_buffer<zd::u32>& tables, const zd::workgroup_buffer<zd::u32>& huff,
                         const auto& base, const auto& table, const auto& bits, const auto& nsym, const auto& lane, std::uint32_t lanes,
                         Sync sync) {
    sync(); // every lane is done with the previous table
    const auto j = k.let("clear_j", lane);
    k.while_(j < (zd::lit(1u) << bits), [&] {
        k.store(huff, base + j, 0u);
        j = j + lanes;
    });
    sync();
    const auto s = k.let("fill_s", lane);
    k.while_(s < nsym, [&] {
        const auto e = k.let("fill_e", tables[table + 1u + s]);
        const auto n = k.let("fill_n", (e >> 8u) & 15u);
        k.if_(n != 0u && n <= bits, [&] {
            const auto f = k.let("fill_f", e >> 12u);
            const auto end = k.let("fill_end", zd::min(f + (zd::lit(1u) << (bits - n)), zd::lit(1u) << bits));
            k.while_(f < end, [&] {
                k.store(huff, base + f, e & 0xFFFu);
                f = f + 1u;
            });
        });
        s = s + lanes;
    });
    sync();
}

// Decodes a compressed block's Huffman literals (`streams` of 1 or 4, each `segment` symbols
// but the last) into lit[lit_at, + size), lane s taking stream s (one lane: all of them in
// turn), with the code expanded at huff[base]. Returns each lane's verdicts: a stream outside the
// input (bad_range), a stream not consumed exactly or without an end marker (bad_stream).
struct zstd_stream_verdicts {
    zd::variable<zd::boolean> bad_range, bad_stream;
};

inline zstd_stream_verdicts zstd_decode_huffman_streams(zd::kernel& k, const zstd_bits& reader, const zstd_reader& hs,
                                                        const zd::input_buffer<zd::u32>& blocks, const zd::output_buffer<zd::bytes>& lit,
                                                        const zd::workgroup_buffer<zd::u32>& huff, const auto& rec, const auto& size,
                                                        const auto& src, const auto& lit_at, const auto& base, const auto& bits,
                                                        const auto& streams, const auto& segment, const auto& in_bytes,
                                                        const auto& lane, std::uint32_t lanes) {
    namespace field = vyre::compression::zstd_block_field;
    const auto size0 = k.let("stream_size0", blocks[rec + field::stream_sizes]);
    const auto size1 = k.let("stream_size1", blocks[rec + field::stream_sizes + 1u]);
    const auto size2 = k.let("stream_size2", blocks[rec + field::stream_sizes + 2u]);
    const auto size3 = k.let("stream_size3", blocks[rec + field::stream_sizes + 3u]);
    const zstd_stream_verdicts v{k.let("bad_range", false), k.let("bad_stream", false)};
    const auto s = k.let("stream", lane);
    k.while_(s < streams, [&] {
        // 64-bit sums: the sizes are untrusted
        const auto at64 = k.let("stream_at", zd::cast<zd::u64>(src) + zd::cast<zd::u64>(zd::select(s > 0u, size0, 0u)) +
                                                 zd::cast<zd::u64>(zd::select(s > 1u, size1, 0u)) +
                                                 zd::cast<zd::u64>(zd::select(s > 2u, size2, 0u)));
        const auto n = k.let("stream_bytes", zd::select(s == 0u, size0, zd::select(s == 1u, size1, zd::select(s == 2u, size2, size3))));
        const auto symbols = k.let("stream_symbols", zd::select(s + 1u < streams, segment, size - segment * (streams - 1u)));
        k.if_(at64 + zd::cast<zd::u64>(n) > zd::cast<zd::u64>(in_bytes), [&] { v.bad_range = true; }).else_([&] {
            const auto marked = reader.start(hs, zd::cast<zd::u32>(at64), n, "huf");
            const auto to = k.let("stream_to", lit_at + s * segment);
            const auto i = k.let("symbol_i", 0u);
            const auto mask = k.let("huffman_mask", (zd::lit(1u) << bits) - 1u);
            k.while_(i < symbols, [&] {
                reader.refill(hs);
                // base + at most 2^11 - 1: inside the unit's part of workgroup memory (bits <= 11 was checked)
                const auto e = k.let("huffman_entry", huff.unchecked(base + (zstd_bits::peek(hs, bits) & mask)));
                hs.nacc = hs.nacc - (e >> 8u);
                // Inside the block's literals: callers check lit_at + size against the scratch, and
                // the streams' symbols add up to size (segment * (streams - 1) <= size was checked).
                k.store_unchecked(lit, to + i, e & 0xFFu);
                i = i + 1u;
            });
            k.if_(!marked || !zstd_bits::exhausted(hs), [&] { v.bad_stream = true; });
        });
        s = s + lanes;
    });
    return v;
}

// The sequences' FSE states (RFC 8878 3.1.1.3.2.3): the three tables' accuracy logs and the
// states read from the bitstream's start. `tables` is the tables' buffer, or the workgroup memory
// a subgroup copied a block's tables into (zstd_stage_sequence_tables).
struct zstd_sequence_states {
    zd::variable<zd::u32> ll_log, of_log, ml_log, ls, os, ms;
};

template <class Tables>
zstd_sequence_states zstd_start_sequences(zd::kernel& k, const zstd_bits& reader, const zstd_reader& seq, const Tables& tables,
                                          const auto& llt, const auto& oft, const auto& mlt) {
    const auto ll_log = k.let("ll_log", tables[llt]);
    const auto of_log = k.let("of_log", tables[oft]);
    const auto ml_log = k.let("ml_log", tables[mlt]);
    reader.refill(seq);
    const auto ls = reader.read(seq, "ll_state", ll_log);
    const auto os = reader.read(seq, "of_state", of_log);
    const auto ms = reader.read(seq, "ml_state", ml_log);
    return {ll_log, of_log, ml_log, ls, os, ms};
}

// A word of a block's sequence tables. From workgroup memory, where zstd_stage_sequence_tables
// put them, the read tests no index (ir::bounds): each is the unit's base, a table's place in
// zstd_staged, and a state below 2^9 (accuracy logs are checked at most 9 before the tables are
// staged, and every state is masked to its table's log) or a 6-bit code, so it stays inside the
// unit's zstd_staged::words. From the tables' buffer it is tested.
template <class Tables>
auto zstd_table_word(const Tables& tables, const auto& at) {
    if constexpr (std::is_same_v<Tables, zd::workgroup_buffer<zd::u32>>) return tables.unchecked(at);
    else return tables[at];
}

// One sequence: its literal length, match length and offset value (before repeat offsets are
// applied), and the states moved on unless it is the block's last (i + 1 == nseq). The length
// codes' values are at tables[values] (zstd_entropy.hpp's layout puts them at 0).
struct zstd_sequence {
    zd::variable<zd::u32> ofv, ml, ll;
};

template <class Tables>
zstd_sequence zstd_decode_sequence(zd::kernel& k, const zstd_bits& reader, const zstd_reader& seq, const Tables& tables,
                                   const zstd_sequence_states& st, const auto& llt, const auto& oft, const auto& mlt, const auto& i,
                                   const auto& nseq, const auto& values) {
    namespace c = vyre::compression;
    const auto le = k.let("ll_entry", zstd_table_word(tables, llt + 1u + st.ls));
    const auto oe = k.let("of_entry", zstd_table_word(tables, oft + 1u + st.os));
    const auto me = k.let("ml_entry", zstd_table_word(tables, mlt + 1u + st.ms));
    const auto lv = k.let("ll_value", zstd_table_word(tables, values + ((le >> 4u) & 63u)));
    const auto mv = k.let("ml_value", zstd_table_word(tables, values + c::zstd_match_values_at + ((me >> 4u) & 63u)));
    const auto of_code = k.let("of_code", (oe >> 4u) & 31u);
    reader.refill(seq);
    const auto of_extra = reader.read(seq, "of_extra", of_code);
    const auto ofv = k.let("of_value", (zd::lit(1u) << of_code) + of_extra);
    reader.refill(seq);
    const auto ml_extra = reader.read(seq, "ml_extra", (mv >> 24u) & 31u);
    const auto ml = k.let("match_length", (mv & 0xFFFFFFu) + ml_extra);
    reader.refill(seq);
    const auto ll_extra = reader.read(seq, "ll_extra", (lv >> 24u) & 31u);
    const auto ll = k.let("literal_length", (lv & 0xFFFFFFu) + ll_extra);
    k.if_(i + 1u < nseq, [&] {
        reader.refill(seq);
        // The three states' bits in one read, literal length's highest: at most 9 + 9 + 8 from
        // tables the walk or compression.zstd.fse_tables built (any table's bits stay below 16, so
        // every shift below stays below 32).
        const auto mn = k.let("ml_nbits", me & 15u);
        const auto on = k.let("of_nbits", oe & 15u);
        const auto all = reader.read(seq, "state_bits", (le & 15u) + mn + on);
        const auto lb = all >> (mn + on);
        st.ls = ((le >> 10u) + lb) & ((zd::lit(1u) << st.ll_log) - 1u);
        const auto mb = (all >> on) & ((zd::lit(1u) << mn) - 1u);
        st.ms = ((me >> 10u) + mb) & ((zd::lit(1u) << st.ml_log) - 1u);
        const auto ob = all & ((zd::lit(1u) << on) - 1u);
        st.os = ((oe >> 10u) + ob) & ((zd::lit(1u) << st.of_log) - 1u);
    });
    return {ofv, ml, ll};
}

// Where a subgroup keeps a block's sequence tables in workgroup memory, from `base`: the three FSE
// tables (a header word and up to 2^9 states each) and the length codes' values.
namespace zstd_staged {
inline constexpr std::uint32_t slot_words = 1u + (1u << vyre::compression::zstd_literal_length_max_log);
inline constexpr std::uint32_t literal_length = 0, offset = slot_words, match_length = 2 * slot_words, values = 3 * slot_words;
inline constexpr std::uint32_t value_words = vyre::compression::zstd_match_values_at + 64; // every 6-bit code
inline constexpr std::uint32_t words = values + value_words;
// A unit's tables take the place of its Huffman table (2^11 words), which bounds every staged read.
static_assert(words <= 1u << vyre::compression::zstd_huffman_max_bits, "a block's sequence tables fit a Huffman table's place");
} // namespace zstd_staged

// Copies a block's three FSE tables (at llt, oft and mlt in `tables`, already checked by
// zstd_table_ok) and the length codes' values into wg[base, + zstd_staged::words), the lanes of a
// subgroup together, between two barriers. Each sequence then reads workgroup memory instead of
// tables that a full device's frames keep thrashing out of the L1 cache.
template <class Sync>
void zstd_stage_sequence_tables(zd::kernel& k, const zd::input_buffer<zd::u32>& tables, const zd::workgroup_buffer<zd::u32>& wg,
                                const auto& base, const auto& llt, const auto& oft, const auto& mlt, const auto& lane,
                                std::uint32_t lanes, Sync sync) {
    namespace staged = zstd_staged;
    sync(); // every lane is done with what the memory held
    const auto copy = [&](const std::string& name, const auto& from, const auto& to, const auto& n) {
        const auto j = k.let(name, lane);
        k.while_(j < n, [&] {
            k.store(wg, to + j, tables[from + j]);
            j = j + lanes;
        });
    };
    copy("stage_ll", llt, base + staged::literal_length, 1u + (zd::lit(1u) << tables[llt]));
    copy("stage_of", oft, base + staged::offset, 1u + (zd::lit(1u) << tables[oft]));
    copy("stage_ml", mlt, base + staged::match_length, 1u + (zd::lit(1u) << tables[mlt]));
    copy("stage_values", zd::lit(0u), base + staged::values, zd::lit(staged::value_words));
    sync();
}

} // namespace vyre::ops::compression::detail
