// Cutting one DEFLATE stream (RFC 1951) into pieces that decode apart: the host finds where
// dynamic-Huffman blocks start, without decoding what comes before them, so that a long stream
// (a container layer's .tar.gz is one) gives the device many pieces to inflate at once
// (ops/compression/deflate_split.hpp decodes and joins them).
//
// A block's start is not marked in the stream: a piece starts at the first bit, at or after a
// multiple of the piece size, where a dynamic block header begins whose codes the decoder accepts
// (reference::deflate_dynamic_block_at: BTYPE 2, HLIT and HDIST in range, a complete code-length
// code, the literal/length and distance lengths it encodes forming usable codes with an
// end-of-block code). That test rarely passes by chance, but a chance pass is possible, so a
// split point is only a guess: the decoder of the piece before it must end exactly there, and
// the decoding op checks that it did.
//
// Stored and fixed-Huffman blocks are never split points (a stored block's header says too little
// to be found reliably, a fixed one nothing): a stream made only of them stays one piece.
#pragma once

#include <vyre/reference/deflate.hpp>
#include <vyre/util/parallel.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace vyre::format {

namespace detail {

// The stream's bits [bit, bit + 57) as a number (zeros past its end).
inline std::uint64_t deflate_bits_at(std::span<const std::uint8_t> s, std::uint64_t bit) noexcept {
    const std::uint64_t byte = bit >> 3;
    std::uint64_t v = 0;
    if (byte + 8 <= s.size()) {
        std::memcpy(&v, s.data() + byte, 8);
    } else {
        for (std::uint64_t i = 0; byte + i < s.size() && i < 8; ++i) v |= std::uint64_t{s[byte + i]} << (8 * i);
    }
    return v >> (bit & 7);
}

// Kraft sums of four 3-bit code-length-code lengths (12 bits): sum of 2^(7 - l) over l != 0, in
// 128ths, so that the complete code-length code the header needs is a sum of exactly 128.
inline const std::array<std::uint16_t, 4096>& deflate_kraft_of_four() {
    static const std::array<std::uint16_t, 4096> table = [] {
        std::array<std::uint16_t, 4096> t{};
        for (std::uint32_t v = 0; v < 4096; ++v)
            for (std::uint32_t i = 0; i < 4; ++i)
                if (const std::uint32_t l = (v >> (3 * i)) & 7u; l != 0) t[v] = static_cast<std::uint16_t>(t[v] + (128u >> l));
        return t;
    }();
    return table;
}

} // namespace detail

// The first bit in [from, to) of `stream` where a dynamic-Huffman block starts that the decoder
// accepts (see the top of this file); nullopt where there is none. Cheap tests on the bits
// first (block type, HLIT, HDIST, a complete code-length code), the decoder's own checks after.
inline std::optional<std::uint64_t> find_deflate_block(std::span<const std::uint8_t> stream, std::uint64_t from, std::uint64_t to) {
    to = std::min<std::uint64_t>(to, std::uint64_t{stream.size()} * 8);
    const auto& kraft = detail::deflate_kraft_of_four();
    for (std::uint64_t bit = from; bit < to; ++bit) {
        const std::uint64_t v = detail::deflate_bits_at(stream, bit);
        // BTYPE 2, HLIT + 257 <= 286, HDIST + 1 <= 30.
        if (((v >> 1) & 3u) != 2u || ((v >> 3) & 31u) > 29u || ((v >> 8) & 31u) > 29u) continue;
        const std::uint32_t lengths = static_cast<std::uint32_t>((v >> 13) & 15u) + 4u;
        // The code-length code's lengths, 3 bits each from bit 17: 19 at most, 57 bits.
        const std::uint64_t w = detail::deflate_bits_at(stream, bit + 17);
        const std::uint64_t used = lengths == 19 ? w & ((std::uint64_t{1} << 57) - 1u) : w & ((std::uint64_t{1} << (3 * lengths)) - 1u);
        std::uint32_t sum = 0;
        for (std::uint32_t i = 0; i < 5; ++i) sum += kraft[(used >> (12 * i)) & 4095u];
        if (sum != 128u) continue;
        if (reference::deflate_dynamic_block_at(stream, bit)) return bit;
    }
    return std::nullopt;
}

// Where the pieces of a stream start, in bits: 0, then for every multiple m of `piece_bytes`
// the first block find_deflate_block finds in [m, m + piece_bytes) bytes (none found: no piece
// starts there), in increasing order. Searched on `threads` threads (0: every core).
inline std::vector<std::uint64_t> deflate_split_points(std::span<const std::uint8_t> stream, std::uint64_t piece_bytes,
                                                       unsigned threads = 0) {
    std::vector<std::uint64_t> points{0};
    if (piece_bytes == 0 || stream.size() <= piece_bytes) return points;
    const std::size_t searches = static_cast<std::size_t>((stream.size() - 1) / piece_bytes);
    std::vector<std::optional<std::uint64_t>> found(searches);
    util::parallel_for(searches, threads, [&](std::size_t i) {
        const std::uint64_t m = (i + 1) * piece_bytes * 8;
        found[i] = find_deflate_block(stream, m, m + piece_bytes * 8);
    });
    for (const auto& f : found)
        if (f && *f > points.back()) points.push_back(*f);
    return points;
}

} // namespace vyre::format
