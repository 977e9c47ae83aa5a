// CPU oracle of compression.deflate: inflates one raw DEFLATE stream (RFC 1951) into a fixed output
// region with the op's exact status codes. The device programs must match it byte for byte.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/compression/deflate.hpp>
#include <vyre/error.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace vyre::reference {

// Semantics shared by every implementation of compression.deflate. A stream is `in` (n bytes,
// bits read least significant first); its output region is `out` (cap bytes). Blocks are decoded
// until the one marked final; input after it is ignored (a container's trailer may follow).
//
// Reading. Every read needs its bits inside the input: a read past the end is input_overrun.
// A Huffman symbol is read one bit at a time, the code growing by one bit per step (1 to 15 bits),
// so running out of input before a code matches is input_overrun, and 15 bits that no code starts
// with (possible only in an incomplete code) is invalid_symbol.
//
// Per block: BFINAL (1 bit), BTYPE (2 bits); type 3 is bad_block_type.
//  - Stored (0): skip to the next byte boundary; LEN and NLEN (2 bytes each) must be there
//    (input_overrun) and NLEN the complement of LEN (stored_length_mismatch); LEN bytes must follow
//    (input_overrun) and fit the output left (output_overflow); then they are copied.
//  - Fixed (1): literal/length lengths 8 (0-143), 9 (144-255), 7 (256-279), 8 (280-287); 32
//    distance codes of 5 bits.
//  - Dynamic (2): HLIT, HDIST, HCLEN. More than 286 literal/length or 30 distance codes is
//    bad_code_lengths (checked before the code-length lengths are read). The code-length code
//    must be complete: over-subscribed is bad_code_lengths, incomplete is incomplete_code. Then the
//    HLIT + HDIST lengths: repeat 16 with no length before it, or any repeat running past the last
//    length, is bad_code_lengths (16's check comes before its two extra bits, the overrun check
//    after them). No code for end-of-block (256) is bad_code_lengths. Each of the two codes
//    over-subscribed is bad_code_lengths; incomplete is incomplete_code unless every length is 0
//    or 1 (a single one-bit code, or no distance code at all, as zlib allows).
//  Then symbols: a literal needs one byte of output left (output_overflow). 256 ends the block.
//  257-285 is a match: its extra length bits, then a distance symbol (30 or 31: invalid_symbol)
//  and its extra bits; a distance beyond the bytes the stream has written is distance_too_far; a
//  length beyond the output left is output_overflow. The copy runs front to back, one byte at a
//  time, so an overlapping match repeats what it just wrote. Symbols 286 and 287 (fixed code) are
//  invalid_symbol.
//
// On success: {none, bytes written}, which may be below cap (the caller compares with what it
// expects). On error: the code and the bytes written before the failing step; nothing of the
// failing step is written, and out beyond output_size is untouched. Neither `in` nor `out` is ever
// accessed outside its bounds.

// What inflating a stream found: the status, and how many input bytes it used (up to the byte
// holding the final block's last bit; on error, up to the last byte read).
struct deflate_measure {
    compression::block_status status;
    std::uint32_t input_position;
};

namespace detail {

// A canonical Huffman code: how many symbols have each length, and the symbols ordered by code.
struct deflate_code {
    std::array<std::uint16_t, compression::deflate_max_code_bits + 1> count{};
    std::array<std::uint16_t, compression::deflate_fixed_literal_codes> symbol{};
};

// Builds `h` from n lengths; returns what the code leaves unused: 0 complete, above 0 incomplete,
// below 0 over-subscribed.
inline int build_deflate_code(deflate_code& h, const std::uint8_t* lengths, std::uint32_t n) {
    h.count.fill(0);
    for (std::uint32_t s = 0; s < n; ++s) ++h.count[lengths[s]];
    int left = 1;
    for (std::uint32_t len = 1; len <= compression::deflate_max_code_bits; ++len) {
        left = left * 2 - h.count[len];
        if (left < 0) return left;
    }
    std::array<std::uint16_t, compression::deflate_max_code_bits + 2> offset{};
    for (std::uint32_t len = 1; len <= compression::deflate_max_code_bits; ++len) offset[len + 1] = offset[len] + h.count[len];
    for (std::uint32_t s = 0; s < n; ++s)
        if (lengths[s] != 0) h.symbol[offset[lengths[s]]++] = static_cast<std::uint16_t>(s);
    return left;
}

class deflate_reader {
public:
    explicit deflate_reader(std::span<const std::uint8_t> in) : in_(in) {}
    std::uint64_t bits_left() const { return std::uint64_t{in_.size()} * 8 - position_; }
    // false when fewer than k bits are left (nothing is consumed then).
    bool take(std::uint32_t k, std::uint32_t& value) {
        if (k > bits_left()) return false;
        value = 0;
        for (std::uint32_t i = 0; i < k; ++i, ++position_) value |= std::uint32_t((in_[position_ >> 3] >> (position_ & 7)) & 1u) << i;
        return true;
    }
    void align() { position_ = (position_ + 7) & ~std::uint64_t{7}; }
    std::uint32_t byte_position() const { return static_cast<std::uint32_t>((position_ + 7) >> 3); }
    void skip_bytes(std::uint32_t n) { position_ += std::uint64_t{n} * 8; }
    void skip_bits(std::uint32_t n) { position_ += n; }
    const std::uint8_t* bytes_at_position() const { return in_.data() + (position_ >> 3); }

    // A symbol of `h`, or the status code that stops decoding.
    std::uint32_t decode(const deflate_code& h, std::uint32_t& symbol) {
        std::uint32_t code = 0, first = 0, index = 0;
        for (std::uint32_t len = 1; len <= compression::deflate_max_code_bits; ++len) {
            std::uint32_t bit = 0;
            if (!take(1, bit)) return compression::deflate_error::input_overrun;
            code |= bit;
            const std::uint32_t count = h.count[len];
            if (code - first < count) {
                symbol = h.symbol[index + (code - first)];
                return compression::deflate_error::none;
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        return compression::deflate_error::invalid_symbol;
    }

private:
    std::span<const std::uint8_t> in_;
    std::uint64_t position_ = 0; // in bits
};

// The fixed code's lengths (all 288 literal/length, then the 32 distance lengths).
inline std::array<std::uint8_t, compression::deflate_fixed_literal_codes + compression::deflate_fixed_distance_codes>
fixed_deflate_lengths() {
    std::array<std::uint8_t, compression::deflate_fixed_literal_codes + compression::deflate_fixed_distance_codes> l{};
    for (std::uint32_t s = 0; s < compression::deflate_fixed_literal_codes; ++s) l[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    for (std::uint32_t s = 0; s < compression::deflate_fixed_distance_codes; ++s) l[compression::deflate_fixed_literal_codes + s] = 5;
    return l;
}

// A dynamic block's codes (RFC 1951 3.2.7), read after its BTYPE: the code-length code, then the
// literal/length and distance lengths, built into `lit` and `dist`. Returns the status code that
// stops decoding (none when both codes are usable), with the checks in the order the comment at
// the top of this file gives.
inline std::uint32_t read_dynamic_codes(deflate_reader& r, deflate_code& lit, deflate_code& dist) {
    namespace e = compression::deflate_error;
    using namespace vyre::compression;
    std::array<std::uint8_t, deflate_max_literal_codes + deflate_max_distance_codes> lengths{};
    std::uint32_t nlen = 0, ndist = 0, ncode = 0;
    if (!r.take(5, nlen) || !r.take(5, ndist) || !r.take(4, ncode)) return e::input_overrun;
    nlen += 257;
    ndist += 1;
    ncode += 4;
    if (nlen > deflate_max_literal_codes || ndist > deflate_max_distance_codes) return e::bad_code_lengths;
    lengths.fill(0);
    for (std::uint32_t i = 0; i < ncode; ++i) {
        std::uint32_t l = 0;
        if (!r.take(3, l)) return e::input_overrun;
        lengths[deflate_code_length_order[i]] = static_cast<std::uint8_t>(l);
    }
    deflate_code lencode;
    const int left = build_deflate_code(lencode, lengths.data(), deflate_code_length_codes);
    if (left < 0) return e::bad_code_lengths;
    if (left > 0) return e::incomplete_code;
    lengths.fill(0);
    for (std::uint32_t index = 0; index < nlen + ndist;) {
        std::uint32_t symbol = 0;
        if (const std::uint32_t c = r.decode(lencode, symbol); c != e::none) return c;
        if (symbol < 16) {
            lengths[index++] = static_cast<std::uint8_t>(symbol);
            continue;
        }
        std::uint32_t value = 0, repeat = 0, extra = 0;
        if (symbol == 16) {
            if (index == 0) return e::bad_code_lengths;
            value = lengths[index - 1];
            if (!r.take(2, extra)) return e::input_overrun;
            repeat = 3 + extra;
        } else if (symbol == 17) {
            if (!r.take(3, extra)) return e::input_overrun;
            repeat = 3 + extra;
        } else {
            if (!r.take(7, extra)) return e::input_overrun;
            repeat = 11 + extra;
        }
        if (index + repeat > nlen + ndist) return e::bad_code_lengths;
        for (std::uint32_t i = 0; i < repeat; ++i) lengths[index++] = static_cast<std::uint8_t>(value);
    }
    if (lengths[deflate_end_of_block] == 0) return e::bad_code_lengths;
    const auto check = [&](deflate_code& h, const std::uint8_t* l, std::uint32_t n) {
        const int unused = build_deflate_code(h, l, n);
        if (unused < 0) return e::bad_code_lengths;
        if (unused > 0 && n != std::uint32_t{h.count[0]} + h.count[1]) return e::incomplete_code;
        return e::none;
    };
    if (const std::uint32_t c = check(lit, lengths.data(), nlen); c != e::none) return c;
    if (const std::uint32_t c = check(dist, lengths.data() + nlen, ndist); c != e::none) return c;
    return e::none;
}

} // namespace detail

// Whether a dynamic-Huffman block (BTYPE 2, either BFINAL) whose codes deflate_inflate accepts
// starts at bit `bit` of `in`: how a stream is cut into pieces that decode apart
// (format/deflate_split.hpp).
inline bool deflate_dynamic_block_at(std::span<const std::uint8_t> in, std::uint64_t bit) {
    if (bit >= std::uint64_t{in.size()} * 8) return false;
    detail::deflate_reader r(in.subspan(static_cast<std::size_t>(bit >> 3)));
    r.skip_bits(static_cast<std::uint32_t>(bit & 7));
    std::uint32_t header = 0;
    if (!r.take(3, header) || (header >> 1) != 2) return false;
    detail::deflate_code lit, dist;
    return detail::read_dynamic_codes(r, lit, dist) == compression::deflate_error::none;
}

// Inflates one stream, reporting where it stopped in the input.
inline deflate_measure deflate_inflate(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    namespace e = compression::deflate_error;
    using namespace vyre::compression;
    if (in.size() > std::numeric_limits<std::uint32_t>::max() || out.size() > std::numeric_limits<std::uint32_t>::max())
        throw resource_error("deflate stream or output region above 2^32-1 bytes: split it first");
    const std::uint32_t cap = static_cast<std::uint32_t>(out.size());
    detail::deflate_reader r(in);
    std::uint32_t op = 0;
    const auto fail = [&](std::uint32_t code) { return deflate_measure{{code, op}, r.byte_position()}; };
    detail::deflate_code lit, dist;
    std::uint32_t last = 0;
    do {
        std::uint32_t type = 0;
        if (!r.take(1, last) || !r.take(2, type)) return fail(e::input_overrun);
        if (type == 3) return fail(e::bad_block_type);
        if (type == 0) {
            r.align();
            std::uint32_t len = 0, nlen = 0;
            if (!r.take(16, len) || !r.take(16, nlen)) return fail(e::input_overrun);
            if (len != (~nlen & 0xFFFFu)) return fail(e::stored_length_mismatch);
            if (std::uint64_t{len} * 8 > r.bits_left()) return fail(e::input_overrun);
            if (len > cap - op) return fail(e::output_overflow);
            const std::uint8_t* from = r.bytes_at_position();
            for (std::uint32_t i = 0; i < len; ++i) out[op + i] = from[i];
            r.skip_bytes(len);
            op += len;
            continue;
        }
        if (type == 1) {
            const auto fixed = detail::fixed_deflate_lengths();
            detail::build_deflate_code(lit, fixed.data(), deflate_fixed_literal_codes);
            detail::build_deflate_code(dist, fixed.data() + deflate_fixed_literal_codes, deflate_fixed_distance_codes);
        } else {
            if (const std::uint32_t c = detail::read_dynamic_codes(r, lit, dist); c != e::none) return fail(c);
        }
        for (;;) {
            std::uint32_t symbol = 0;
            if (const std::uint32_t c = r.decode(lit, symbol); c != e::none) return fail(c);
            if (symbol < 256) {
                if (op == cap) return fail(e::output_overflow);
                out[op++] = static_cast<std::uint8_t>(symbol);
                continue;
            }
            if (symbol == deflate_end_of_block) break;
            const std::uint32_t li = symbol - 257;
            if (li >= 29) return fail(e::invalid_symbol);
            std::uint32_t extra = 0, dsym = 0, dextra = 0;
            if (!r.take(deflate_length_extra(li), extra)) return fail(e::input_overrun);
            const std::uint32_t length = deflate_length_base(li) + extra;
            if (const std::uint32_t c = r.decode(dist, dsym); c != e::none) return fail(c);
            if (dsym >= deflate_max_distance_codes) return fail(e::invalid_symbol);
            if (!r.take(deflate_distance_extra(dsym), dextra)) return fail(e::input_overrun);
            const std::uint32_t distance = deflate_distance_base(dsym) + dextra;
            if (distance > op) return fail(e::distance_too_far);
            if (length > cap - op) return fail(e::output_overflow);
            for (std::uint32_t i = 0; i < length; ++i, ++op) out[op] = out[op - distance];
        }
    } while (last == 0);
    return {{e::none, op}, r.byte_position()};
}

inline compression::block_status deflate_decompress_block(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    return deflate_inflate(in, out).status;
}

// A block flagged block_flag_uncompressed is copied verbatim: output_overflow with nothing written
// when it is longer than its output region.
inline compression::block_status deflate_decode_block(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                                                      std::uint32_t flags) {
    if ((flags & compression::block_flag_uncompressed) == 0) return deflate_decompress_block(in, out);
    if (in.size() > out.size()) return {compression::deflate_error::output_overflow, 0};
    std::copy(in.begin(), in.end(), out.begin());
    return {compression::deflate_error::none, static_cast<std::uint32_t>(in.size())};
}

// The whole op: one status per descriptor. A descriptor whose input range leaves `input` gets
// {input_overrun, 0}; one whose output range leaves `output` gets {output_overflow, 0}; neither
// stream is touched. Reserved flag bits are ignored (check_descriptors rejects them on the host).
inline std::vector<compression::block_status> deflate_decompress(std::span<const std::uint8_t> input,
                                                                 std::span<const compression::block_descriptor> blocks,
                                                                 std::span<std::uint8_t> output) {
    namespace e = compression::deflate_error;
    std::vector<compression::block_status> statuses;
    statuses.reserve(blocks.size());
    for (const auto& d : blocks) {
        if (d.input_offset > input.size() || d.input_size > input.size() - d.input_offset)
            statuses.push_back({e::input_overrun, 0});
        else if (d.output_offset > output.size() || d.output_size > output.size() - d.output_offset)
            statuses.push_back({e::output_overflow, 0});
        else
            statuses.push_back(deflate_decode_block(input.subspan(d.input_offset, d.input_size),
                                                    output.subspan(d.output_offset, d.output_size), d.flags));
    }
    return statuses;
}

} // namespace vyre::reference
