// Little-endian integers in byte spans, as every container and frame format stores them. The
// caller checks the range first (the parsers name the field and the offset when it is short).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace vyre::util {

// The `bytes` (1..8) little-endian bytes at `at`.
inline std::uint64_t read_le(std::span<const std::uint8_t> b, std::uint64_t at, unsigned bytes) noexcept {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= std::uint64_t{b[static_cast<std::size_t>(at) + i]} << (8 * i);
    return v;
}
inline std::uint16_t read_le16(std::span<const std::uint8_t> b, std::uint64_t at) noexcept {
    return static_cast<std::uint16_t>(read_le(b, at, 2));
}
inline std::uint32_t read_le32(std::span<const std::uint8_t> b, std::uint64_t at) noexcept {
    return static_cast<std::uint32_t>(read_le(b, at, 4));
}
// One load on a little-endian host (the byte loop above is not always folded into one: the hot
// loops of the zstd walk read their bits through this).
inline std::uint64_t read_le64(std::span<const std::uint8_t> b, std::uint64_t at) noexcept {
    if constexpr (std::endian::native == std::endian::little) {
        std::uint64_t v;
        std::memcpy(&v, b.data() + at, 8);
        return v;
    } else {
        return read_le(b, at, 8);
    }
}

// Appends v as `bytes` little-endian bytes.
inline void append_le(std::vector<std::uint8_t>& out, std::uint64_t v, unsigned bytes) {
    for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

} // namespace vyre::util
