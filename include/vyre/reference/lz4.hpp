// CPU oracle of compression.lz4: decodes one LZ4 block (or copies one stored block) into a fixed
// output region with the op's exact status codes. The GPU kernel must match it byte for byte.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/compression/lz4.hpp>
#include <vyre/error.hpp>

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace vyre::reference {

// Semantics shared by every implementation of compression.lz4 (the kernel is transcribed from this
// file). A block is `in` (n bytes); its output region is `out` (cap bytes, descriptor word 3).
//
// Sequences are decoded while input remains (ip < n). Per sequence:
//  1. token = in[ip++]; literal length = token >> 4; when that is 15, extension bytes follow, each
//     added, until one below 255. If the input ends inside the chain: corrupt_token.
//  2. Literal run longer than the input left: literal_overflow. Else longer than the output left:
//     output_overflow. Else it is copied.
//  3. If the input ends exactly here the block is done (the last sequence has no match).
//  4. Fewer than 2 bytes left for the little-endian match offset: corrupt_token.
//  5. match length = (token & 15) + 4, extended like the literal length when the nibble is 15;
//     input ending inside the chain: corrupt_token.
//  6. offset 0, or offset above the bytes this block has written: offset_oob (a block has no
//     history before its own output; offset 0 names a byte not yet written).
//  7. Match longer than the output left: match_overflow. Else it is copied one byte at a time,
//     front to back, so an overlapping match (offset < length) repeats the bytes it just wrote.
// The loop also ends when the input ends right after a match: the seed loop accepts that, so
// this decoder does not enforce LZ4's end-of-block rules (last 5 bytes literals, last match 12
// bytes before the end), which are compressor obligations: a few blocks liblz4 rejects for those
// rules decode here. Every block liblz4 (1.9.4) accepts decodes here to the same bytes, except one
// with a match at offset 0, which liblz4 fills with zeros and this decoder rejects.
//
// On success: {none, bytes written}, which may be below cap (the caller compares with what it
// expects). On error: the code, and output_size = the bytes written by the sequences before the
// failing step; nothing of the failing copy is written, and out beyond output_size is untouched.
// Lengths behave as unbounded integers; with 32-bit words they may saturate at 2^32-1, because a
// length that large fails the bound check that follows either way.
// Neither `in` nor `out` is ever accessed outside its bounds.

namespace detail {

inline constexpr std::uint32_t u32_max = std::numeric_limits<std::uint32_t>::max();

inline std::uint32_t saturating_add(std::uint32_t a, std::uint32_t b) {
    return a > u32_max - b ? u32_max : a + b;
}

// Block sizes travel in 32-bit descriptor words; a larger span is a caller bug, not input data.
inline void require_u32_sizes(std::size_t in_size, std::size_t out_size) {
    if (in_size > u32_max || out_size > u32_max)
        throw resource_error("LZ4 block or output region above 2^32-1 bytes: split it first");
}

} // namespace detail

inline compression::block_status lz4_decompress_block(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    namespace lz = compression::lz4_error;
    detail::require_u32_sizes(in.size(), out.size());
    const std::uint32_t n = static_cast<std::uint32_t>(in.size());
    const std::uint32_t cap = static_cast<std::uint32_t>(out.size());
    std::uint32_t ip = 0; // invariant: ip <= n
    std::uint32_t op = 0; // invariant: op <= cap
    while (ip < n) {
        const std::uint32_t token = in[ip];
        ip += 1;
        std::uint32_t literal_length = token >> 4;
        if (literal_length == 15) {
            std::uint32_t extra = 255;
            while (extra == 255) {
                if (ip == n) return {lz::corrupt_token, op};
                extra = in[ip];
                ip += 1;
                literal_length = detail::saturating_add(literal_length, extra);
            }
        }
        if (literal_length > n - ip) return {lz::literal_overflow, op};
        if (literal_length > cap - op) return {lz::output_overflow, op};
        for (std::uint32_t i = 0; i < literal_length; ++i) out[op + i] = in[ip + i];
        ip += literal_length;
        op += literal_length;
        if (ip == n) break;

        if (n - ip < 2) return {lz::corrupt_token, op};
        const std::uint32_t offset = std::uint32_t{in[ip]} | (std::uint32_t{in[ip + 1]} << 8);
        ip += 2;
        std::uint32_t match_length = (token & 15) + 4;
        if (match_length == 19) {
            std::uint32_t extra = 255;
            while (extra == 255) {
                if (ip == n) return {lz::corrupt_token, op};
                extra = in[ip];
                ip += 1;
                match_length = detail::saturating_add(match_length, extra);
            }
        }
        if (offset == 0 || offset > op) return {lz::offset_oob, op};
        if (match_length > cap - op) return {lz::match_overflow, op};
        for (std::uint32_t i = 0; i < match_length; ++i) out[op + i] = out[op - offset + i];
        op += match_length;
    }
    return {lz::none, op};
}

// A stored block (descriptor flag block_flag_uncompressed): copied verbatim. A block longer than
// its output region is output_overflow with nothing written; a shorter one succeeds with its own
// length as output_size, like a compressed block decoding short.
inline compression::block_status lz4_copy_stored_block(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    namespace lz = compression::lz4_error;
    detail::require_u32_sizes(in.size(), out.size());
    const std::uint32_t n = static_cast<std::uint32_t>(in.size());
    if (n > out.size()) return {lz::output_overflow, 0};
    for (std::uint32_t i = 0; i < n; ++i) out[i] = in[i];
    return {lz::none, n};
}

inline compression::block_status lz4_decode_block(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                                                       std::uint32_t flags) {
    return (flags & compression::block_flag_uncompressed) ? lz4_copy_stored_block(in, out)
                                                               : lz4_decompress_block(in, out);
}

// The whole op: one status per descriptor, blocks in any order (they own disjoint output regions).
// A descriptor whose input range leaves `input` gets {literal_overflow, 0}; one whose output range
// leaves `output` gets {output_overflow, 0}; neither block is touched. Reserved flag bits are
// ignored (check_descriptors rejects them on the host).
inline std::vector<compression::block_status> lz4_decompress(std::span<const std::uint8_t> input,
                                                                  std::span<const compression::block_descriptor> blocks,
                                                                  std::span<std::uint8_t> output) {
    namespace lz = compression::lz4_error;
    std::vector<compression::block_status> statuses;
    statuses.reserve(blocks.size());
    for (const auto& d : blocks) {
        if (d.input_offset > input.size() || d.input_size > input.size() - d.input_offset) {
            statuses.push_back({lz::literal_overflow, 0});
        } else if (d.output_offset > output.size() || d.output_size > output.size() - d.output_offset) {
            statuses.push_back({lz::output_overflow, 0});
        } else {
            statuses.push_back(lz4_decode_block(input.subspan(d.input_offset, d.input_size),
                                                output.subspan(d.output_offset, d.output_size), d.flags));
        }
    }
    return statuses;
}

// What lz4_measure_block finds: the status lz4_decompress_block would return, and where in the
// block decoding stopped (n on success; on error, just past the last byte read), for messages.
struct lz4_measure {
    compression::block_status status;
    std::uint32_t input_position;
};

// Runs the decoder's checks without writing anything, so a host parser learns a block's exact
// decoded size (LZ4 frames do not record it) and rejects corrupt blocks before any dispatch.
// `history` is how many bytes of earlier output a match may also reach (linked blocks of a frame:
// the frame's output so far); with history 0 the status equals lz4_decompress_block's exactly.
inline lz4_measure lz4_measure_block(std::span<const std::uint8_t> in, std::uint32_t capacity, std::uint32_t history = 0) {
    namespace lz = compression::lz4_error;
    detail::require_u32_sizes(in.size(), 0);
    const std::uint32_t n = static_cast<std::uint32_t>(in.size());
    std::uint32_t ip = 0;
    std::uint32_t op = 0;
    auto fail = [&](std::uint32_t code) { return lz4_measure{{code, op}, ip}; };
    // Reads one extension chain; false when the input ends inside it.
    auto extend = [&](std::uint32_t& length) {
        std::uint32_t extra = 255;
        while (extra == 255) {
            if (ip == n) return false;
            extra = in[ip];
            ip += 1;
            length = detail::saturating_add(length, extra);
        }
        return true;
    };
    while (ip < n) {
        const std::uint32_t token = in[ip];
        ip += 1;
        std::uint32_t literal_length = token >> 4;
        if (literal_length == 15 && !extend(literal_length)) return fail(lz::corrupt_token);
        if (literal_length > n - ip) return fail(lz::literal_overflow);
        if (literal_length > capacity - op) return fail(lz::output_overflow);
        ip += literal_length;
        op += literal_length;
        if (ip == n) break;
        if (n - ip < 2) return fail(lz::corrupt_token);
        const std::uint32_t offset = std::uint32_t{in[ip]} | (std::uint32_t{in[ip + 1]} << 8);
        ip += 2;
        std::uint32_t match_length = (token & 15) + 4;
        if (match_length == 19 && !extend(match_length)) return fail(lz::corrupt_token);
        if (offset == 0 || (offset > op && offset - op > history)) return fail(lz::offset_oob);
        if (match_length > capacity - op) return fail(lz::match_overflow);
        op += match_length;
    }
    return {{lz::none, op}, ip};
}

} // namespace vyre::reference
