// Skippable frames: LZ4 and Zstandard share them (16 magic numbers, a 4-byte size, then bytes a
// decoder ignores), so detection and both frame parsers read the range from here.
#pragma once

#include <cstdint>

namespace vyre::compression {

inline constexpr std::uint32_t skippable_magic_first = 0x184D2A50;
inline constexpr std::uint32_t skippable_magic_last = 0x184D2A5F;
inline constexpr bool is_skippable_magic(std::uint32_t m) noexcept { return m >= skippable_magic_first && m <= skippable_magic_last; }

} // namespace vyre::compression
