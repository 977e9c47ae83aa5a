// zstd blocks and frames for the tests: little-endian fields, block headers, skippable frames, and
// libzstd's one-shot decoder as an oracle.
#pragma once

#include <vyre/format/zstd_decompress.hpp> // <zstd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
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

} // namespace vyre::test
