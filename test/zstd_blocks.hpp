// zstd blocks and frames for the tests: little-endian fields, block headers, skippable frames, and
// libzstd's one-shot decoder as an oracle.
#pragma once

#include <vyre/engine/zstd_host.hpp> // <zstd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::test {

// Appends the low `n` bytes of `v`, little-endian.
inline void put_le(std::vector<std::uint8_t>& out, std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// Appends a 3-byte block header: Block_Size, Block_Type, Last_Block.
inline void block_header(std::vector<std::uint8_t>& out, unsigned type, bool last, std::uint32_t size) {
    put_le(out, (std::uint32_t{size} << 3) | (type << 1) | (last ? 1u : 0u), 3);
}

// Appends a compressed block that libzstd accepts without any entropy coding (raw literals, no
// sequences) and its content to `content`.
inline void literal_block(std::vector<std::uint8_t>& out, std::vector<std::uint8_t>& content,
                          const std::vector<std::uint8_t>& lits, bool last = false) {
    std::vector<std::uint8_t> body;
    const auto n = static_cast<std::uint32_t>(lits.size());
    if (n < 32) {
        body.push_back(static_cast<std::uint8_t>(n << 3));
    } else if (n < 4096) {
        body.push_back(static_cast<std::uint8_t>(0x4 | ((n & 0xF) << 4)));
        body.push_back(static_cast<std::uint8_t>(n >> 4));
    } else {
        body.push_back(static_cast<std::uint8_t>(0xC | ((n & 0xF) << 4)));
        put_le(body, n >> 4, 2);
    }
    body.insert(body.end(), lits.begin(), lits.end());
    body.push_back(0); // Number_of_Sequences
    block_header(out, 2, last, static_cast<std::uint32_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
    content.insert(content.end(), lits.begin(), lits.end());
}

// Appends a skippable frame (magic 0x184D2A5X) of `n` bytes i * 7.
inline void skippable(std::vector<std::uint8_t>& out, std::uint32_t magic_low, std::uint32_t n) {
    put_le(out, 0x184D2A50u | magic_low, 4);
    put_le(out, n, 4);
    for (std::uint32_t i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(i * 7));
}

// libzstd's one-shot verdict. The buffer is left uninitialised: only the bytes written are touched.
inline std::optional<std::vector<std::uint8_t>> libzstd_decompress(std::span<const std::uint8_t> src, std::size_t capacity) {
    const auto out = std::make_unique_for_overwrite<std::uint8_t[]>(std::max<std::size_t>(capacity, 1));
    const std::size_t n = ZSTD_decompress(out.get(), capacity, src.data(), src.size());
    if (ZSTD_isError(n)) return std::nullopt;
    return std::vector<std::uint8_t>(out.get(), out.get() + n);
}

// One frame (window 1 MiB, no content size, no checksum) of `n` compressed blocks that each hold
// `content`. With no content size, the layout gives every compressed block a 128 KiB slot, so
// kilobytes of tiny blocks ask for a gigabyte of staging (engine::zstd_layout_unproven):
//   empty_compressed_block   raw literals of 0 bytes, no sequences: valid, regenerates nothing
//   broken_compressed_block  one sequence announced and no byte for it: libzstd refuses it
//   rle_128k_compressed_block  128 KiB of RLE literals in 5 bytes: valid, a true 26,000:1 ratio
inline const std::vector<std::uint8_t> empty_compressed_block = {0x00, 0x00};
inline const std::vector<std::uint8_t> broken_compressed_block = {0x00, 0x01};
inline const std::vector<std::uint8_t> rle_128k_compressed_block = {0x0D, 0x00, 0x20, 'v', 0x00};

inline std::vector<std::uint8_t> frame_of_compressed_blocks(const std::vector<std::uint8_t>& content, std::size_t n) {
    std::vector<std::uint8_t> out;
    put_le(out, 0xFD2FB528u, 4);
    out.push_back(0x00); // no content size, no checksum, no dictionary, not single-segment
    out.push_back(0x50); // window 2^20
    for (std::size_t i = 0; i < n; ++i) {
        block_header(out, 2, i + 1 == n, static_cast<std::uint32_t>(content.size()));
        out.insert(out.end(), content.begin(), content.end());
    }
    return out;
}

// One frame (window 1 MiB, no content size, no checksum) of `n` empty raw blocks, 3 bytes each,
// then a last raw block holding `tail`: valid, and listing its blocks would take 16 times the
// file (format::zstd_table_error past the budget).
inline std::vector<std::uint8_t> frame_of_empty_raw_blocks(std::size_t n, const std::string& tail) {
    std::vector<std::uint8_t> out;
    out.reserve(6 + 3 * (n + 1) + tail.size());
    put_le(out, 0xFD2FB528u, 4);
    out.push_back(0x00);
    out.push_back(0x50);
    for (std::size_t i = 0; i < n; ++i) block_header(out, 0, false, 0);
    block_header(out, 0, true, static_cast<std::uint32_t>(tail.size()));
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

// `n` frames of one empty raw block each (9 bytes a frame).
inline std::vector<std::uint8_t> empty_frames(std::size_t n) {
    std::vector<std::uint8_t> out;
    out.reserve(9 * n);
    for (std::size_t i = 0; i < n; ++i) {
        put_le(out, 0xFD2FB528u, 4);
        out.push_back(0x00);
        out.push_back(0x50);
        block_header(out, 0, true, 0);
    }
    return out;
}

} // namespace vyre::test
