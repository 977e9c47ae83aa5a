// Pieces of compression.deflate's program (ops/compression/deflate_program.hpp) that need none of
// its bit reader: the words of a piece's record and status (compression.deflate.pieces), the error codes it writes, the layout of a stream's workgroup memory, and the
// building of a Huffman code there by the lanes of a subgroup.
#pragma once

#include <vyre/compression/deflate.hpp>
#include <vyre/dsl.hpp>
#include <vyre/ops/block_program.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// Pieces of one stream (compression.deflate.pieces, ops/compression/deflate_split.hpp): the
// words of a piece's record, and of its status.
namespace deflate_piece {
inline constexpr std::uint32_t words = 7;
// The stream's bytes from in_base (in_size of them), the piece's first bit (0..7 into them), the
// bit at or past which it stops at the next block's start (0xFFFFFFFF: only the final block ends
// it), its output region (u32 elements) and the elements of that region its window takes first.
inline constexpr std::uint32_t in_base = 0, in_size = 1, start_bit = 2, stop_bit = 3, out_base = 4, capacity = 5, window = 6;
inline constexpr std::uint32_t status_words = 4;
// The status code, the elements written (window included), the bit where decoding stopped
// (relative to in_base), and 1 when the stream's final block ended the piece.
inline constexpr std::uint32_t code = 0, written = 1, end_bit = 2, final_block = 3;
} // namespace deflate_piece

// Bytes each lane of the fast variant loads before it stores them, in stored blocks.
inline constexpr std::uint32_t deflate_copy_batch = 8;

} // namespace vyre::ops::compression

namespace vyre::ops::compression::detail {

namespace deflate_code {
namespace e = vyre::compression::deflate_error;
inline constexpr std::uint32_t none = e::none, input_overrun = e::input_overrun, output_overflow = e::output_overflow,
                               bad_block_type = e::bad_block_type, stored_length_mismatch = e::stored_length_mismatch,
                               bad_code_lengths = e::bad_code_lengths, incomplete_code = e::incomplete_code,
                               invalid_symbol = e::invalid_symbol, distance_too_far = e::distance_too_far;
} // namespace deflate_code

// A table entry with no code of at most the table's bits: its length field (above bit 16) is
// larger than any count of bits held, so one comparison tells a usable entry.
inline constexpr std::uint32_t deflate_no_entry = 0xFFFF0000u;

// Where each part of a stream's workgroup memory starts, in u32 words.
struct deflate_layout {
    std::uint32_t literal_bits, distance_bits;
    static constexpr std::uint32_t lengths = 0; // 288 literal/length + 32 distance lengths at most
    static constexpr std::uint32_t literal_counts = 320, distance_counts = 336; // 16 each
    static constexpr std::uint32_t literal_sorted = 352, distance_sorted = 640; // 288, 32
    static constexpr std::uint32_t literal_table = 672;
    std::uint32_t distance_table() const { return literal_table + (1u << literal_bits); }
    std::uint32_t words() const { return distance_table() + (1u << distance_bits); }
};

// What building a code found: over-subscribed, bit patterns left unused, codes of 2 bits or more
// (an incomplete code is allowed only without them).
struct deflate_built {
    vyre::dsl::variable<vyre::dsl::boolean> over;
    vyre::dsl::variable<vyre::dsl::boolean> incomplete;
    vyre::dsl::variable<vyre::dsl::boolean> long_codes;
};

// Builds a code from `count` lengths at lengths[first, first + count) of the stream's region at
// `base`: counts, symbols in code order, and the table of `table_bits` at `table_at`. Lane i of
// `lanes` (a subgroup when more than one) owns the code lengths l with (l - 1) mod lanes = i: it
// alone counts, places and fills the table for symbols of those lengths (every lane reads every
// length; no ballots, three subgroup barriers).
inline deflate_built deflate_build_code(vyre::dsl::kernel& k, const vyre::dsl::workgroup_buffer<vyre::dsl::u32>& wg,
                                        const vyre::dsl::variable<vyre::dsl::u32>& base, const vyre::dsl::variable<vyre::dsl::u32>& lane,
                                        std::uint32_t lanes, const auto& first, const auto& count, const auto& counts_at,
                                        const auto& sorted_at, const auto& table_at, const auto& table_bits) {
    namespace d = vyre::dsl;
    const auto sync = [&] {
        if (lanes > 1) k.subgroup_barrier();
    };
    const std::uint32_t max_bits = vyre::compression::deflate_max_code_bits;
    const auto owns = [&](std::uint32_t l) { return lane == (l - 1u) % lanes; };
    sync(); // the lengths are written, and every lane is done reading the old code
    for (std::uint32_t l = 1; l <= max_bits; ++l) k.if_(owns(l), [&] { k.store(wg, base + counts_at + l, 0u); });
    const auto entries = k.let("build_entries", d::lit(1u) << table_bits);
    const auto t = k.let("build_t", lane);
    k.while_(t < entries, [&] {
        k.store(wg, base + table_at + t, deflate_no_entry);
        t = t + lanes;
    });
    const auto s1 = k.let("build_s1", 0u);
    k.while_(s1 < count, [&] {
        const auto len = k.let("build_len1", wg[base + deflate_layout::lengths + first + s1]);
        k.if_(len != 0u && lane == (len - 1u) % lanes, [&] {
            k.store(wg, base + counts_at + len, wg[base + counts_at + len] + 1u);
        });
        s1 = s1 + 1u;
    });
    sync(); // counts complete, table cleared
    // Completeness (the Kraft sum), and where each length starts among the sorted symbols
    // (place) and in code space (next), for the lengths this lane owns.
    const auto over = k.let("build_over", false);
    const auto left = k.let("build_left", 1u);
    const auto long_sum = k.let("build_long", 0u);
    const auto offset = k.let("build_offset", 0u);
    const auto next = k.let("build_next", 0u);
    const auto previous = k.let("build_previous", 0u);
    std::vector<d::variable<d::u32>> place, value;
    for (std::uint32_t l = 1; l <= max_bits; ++l) {
        const auto have = k.let("build_have" + std::to_string(l), wg[base + counts_at + l]);
        over = over || have > left * 2u;
        left = d::select(over, 0u, left * 2u - have);
        if (l >= 2) long_sum = long_sum + have;
        offset = offset + previous;
        next = (next + previous) << 1u;
        previous = have;
        place.push_back(k.let("build_place" + std::to_string(l), offset));
        value.push_back(k.let("build_value" + std::to_string(l), next));
    }
    const auto s2 = k.let("build_s2", 0u);
    k.while_(s2 < count, [&] {
        const auto len = k.let("build_len2", wg[base + deflate_layout::lengths + first + s2]);
        for (std::uint32_t l = 1; l <= max_bits; ++l) {
            k.if_(len == l && owns(l), [&] {
                k.store(wg, base + sorted_at + place[l - 1], s2);
                if (l <= 12) {
                    // Not for an over-subscribed code, which fails the block unused: its
                    // codes would share entries, written by different lanes.
                    k.if_(len <= table_bits && !over, [&] {
                        // The code's bits in stream order are its reversal; every entry whose
                        // low bits are those holds the symbol.
                        const auto e = k.let("build_e", d::reverse_bits(value[l - 1]) >> (32u - l));
                        const auto entry = k.let("build_entry", s2 | (l << 16u));
                        k.while_(e < entries, [&] {
                            k.store(wg, base + table_at + e, entry);
                            e = e + (1u << l);
                        });
                    });
                }
                place[l - 1] = place[l - 1] + 1u;
                value[l - 1] = value[l - 1] + 1u;
            });
        }
        s2 = s2 + 1u;
    });
    sync(); // the code is built
    return deflate_built{over, k.let("build_incomplete", !over && left != 0u), k.let("build_has_long", long_sum != 0u)};
}

// Copies spread over a stream's lanes, for compression.deflate's program: the kernel, its output
// buffer, the stream's output base, the lane and how many lanes a stream has (`shared`: more than
// one, a subgroup).
template <class Out, class Base>
struct deflate_copies {
    vyre::dsl::kernel& k;
    const Out& out;
    const Base& out_base;
    const vyre::dsl::variable<vyre::dsl::u32>& lane;
    std::uint32_t lanes;
    bool shared;

    // out[out_base + to + j] = source(j) for j < count, lane i taking j = i, i + lanes, ... Every
    // caller has checked to + count <= cap first, so the stores need no test of their own
    // (ir::bounds), nor do the sources' loads: input within [in_base, in_base + n), output before
    // out_base + to. Its counts are a match's (at most 258) or, with one lane, anything: j + lanes
    // cannot wrap then. Stored bytes, whose counts reach 2^32 - 1, go through copy_apart.
    void copy(const std::string& name, const auto& to, const auto& count, const auto& source) const {
        const auto j = k.let(name, lane);
        k.while_(j < count, [&] {
            k.store_unchecked(out, out_base + to + j, source(j));
            j = j + lanes;
        });
    }
    // An overlapping match (period < count): out[out_base + to + j] = read(j mod period)
    // (repeat_pattern, ops/block_program.hpp).
    void repeat(const std::string& name, const auto& to, const auto& count, const auto& period, const auto& read) const {
        repeat_pattern(k, name, count, period, lane, lanes, read,
                       [&](const auto& j, const auto& byte) { k.store_unchecked(out, out_base + to + j, byte); });
    }
    // The same for a source the copy does not write (the input): each lane loads
    // `deflate_copy_batch` bytes before it stores them, so their loads wait together (the compiler
    // keeps a load after a store to a buffer that may alias it). With one lane, the plain copy.
    // A flagged uncompressed block's count may be near 2^32: the batches run while
    // j + (batch - 1) * lanes < count, written so that it cannot wrap, and j steps by strided_next.
    void copy_apart(const std::string& name, const auto& to, const auto& count, const auto& source) const {
        namespace d = vyre::dsl;
        if (!shared) return copy(name, to, count, source);
        const std::uint32_t batch = deflate_copy_batch;
        const auto j = k.let(name, lane);
        const auto batched_end = k.let(name + "_batched_end", count - d::min(count, (batch - 1u) * lanes));
        k.while_(j < batched_end, [&] {
            std::vector<d::variable<d::u32>> v;
            for (std::uint32_t b = 0; b < batch; ++b) v.push_back(k.let(name + "_v" + std::to_string(b), source(j + b * lanes)));
            for (std::uint32_t b = 0; b < batch; ++b) k.store_unchecked(out, out_base + to + j + b * lanes, v[b]);
            j = strided_next(j, batch * lanes);
        });
        k.while_(j < count, [&] {
            k.store_unchecked(out, out_base + to + j, source(j));
            j = strided_next(j, lanes);
        });
    }
};

} // namespace vyre::ops::compression::detail
