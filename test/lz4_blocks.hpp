// LZ4 blocks for the tests: hand-encoded sequences, and liblz4's compressor and decoder as oracles.
#pragma once

#include <boost/test/unit_test.hpp>

#include <lz4.h>
#include <lz4hc.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace vyre::test {

// Appends an LZ4 length beyond its nibble: 255s, then the rest.
inline void put_length_tail(std::vector<std::uint8_t>& b, std::uint32_t rest) {
    for (; rest >= 255; rest -= 255) b.push_back(255);
    b.push_back(static_cast<std::uint8_t>(rest));
}

// One hand-encoded sequence; match_length 0 makes it the last sequence (literals only).
inline void put_sequence(std::vector<std::uint8_t>& b, const std::vector<std::uint8_t>& literals, std::uint16_t offset = 0,
                         std::uint32_t match_length = 0) {
    const std::uint32_t lit = static_cast<std::uint32_t>(literals.size());
    const std::uint32_t ml = match_length ? match_length - 4 : 0;
    b.push_back(static_cast<std::uint8_t>((std::min(lit, 15u) << 4) | std::min(ml, 15u)));
    if (lit >= 15) put_length_tail(b, lit - 15);
    b.insert(b.end(), literals.begin(), literals.end());
    if (!match_length) return;
    b.push_back(static_cast<std::uint8_t>(offset));
    b.push_back(static_cast<std::uint8_t>(offset >> 8));
    if (ml >= 15) put_length_tail(b, ml - 15);
}

// level 0: LZ4_compress_default; negative: LZ4_compress_fast with that acceleration; else LZ4HC level.
inline std::vector<std::uint8_t> lz4_compress_block(const std::vector<std::uint8_t>& src, int level = 0) {
    std::vector<std::uint8_t> dst(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(src.size()))));
    static const char nothing = 0; // liblz4's HC levels dereference the source even when it is empty
    const char* s = src.empty() ? &nothing : reinterpret_cast<const char*>(src.data());
    char* d = reinterpret_cast<char*>(dst.data());
    const int n = static_cast<int>(src.size()), cap = static_cast<int>(dst.size());
    const int r = level == 0 ? LZ4_compress_default(s, d, n, cap)
                  : level < 0 ? LZ4_compress_fast(s, d, n, cap, -level)
                              : LZ4_compress_HC(s, d, n, cap, level);
    BOOST_REQUIRE(r > 0);
    dst.resize(static_cast<std::size_t>(r));
    return dst;
}

// liblz4's verdict: decoded bytes, or nullopt when it rejects the block.
inline std::optional<std::vector<std::uint8_t>> liblz4_decode(const std::vector<std::uint8_t>& block, std::size_t capacity) {
    std::vector<std::uint8_t> out(capacity + 1); // never a null pointer, even for capacity 0
    const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()), reinterpret_cast<char*>(out.data()),
                                      static_cast<int>(block.size()), static_cast<int>(capacity));
    if (r < 0) return std::nullopt;
    out.resize(static_cast<std::size_t>(r));
    return out;
}

// An LZ4 frame (independent blocks of at most 64 KiB, no checksums) whose every block stores one
// byte of `content` (4 + 1 bytes a block): valid, and listing its blocks would take 11 times the
// file (format::lz4_table_error past the parse's budget). The descriptor's check byte is
// xxh32 of FLG and BD, >> 8: 0x82 for these (the lz4 tool writes the same header).
inline std::vector<std::uint8_t> lz4_frame_of_one_byte_blocks(const std::vector<std::uint8_t>& content) {
    std::vector<std::uint8_t> out = {0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82};
    out.reserve(out.size() + 5 * content.size() + 4);
    for (const std::uint8_t byte : content) out.insert(out.end(), {0x01, 0x00, 0x00, 0x80, byte});
    out.insert(out.end(), {0, 0, 0, 0});
    return out;
}

} // namespace vyre::test
