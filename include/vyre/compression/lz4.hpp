// LZ4's shared vocabulary: the status codes of compression.lz4 and the numbers of LZ4's frame
// format (magic numbers, sizes), defined once for the frame parser, the detector, the CPU
// reference, the op and the engine.
#pragma once

#include <vyre/compression/skippable.hpp>

#include <cstdint>

namespace vyre::compression {

// Status codes of compression.lz4 (permanent values). reference/lz4.hpp defines exactly when each
// is reported; in short:
namespace lz4_error {
enum : std::uint32_t {
    none = 0,
    corrupt_token = 1,    // input ends inside a length extension chain or a match offset
    offset_oob = 2,       // match offset 0, or beyond the bytes the block has written
    output_overflow = 3,  // literals (or a stored block) longer than the output region left
    literal_overflow = 4, // literals run past the end of the block's input
    match_overflow = 5,   // match longer than the output region left
};
} // namespace lz4_error

inline const char* lz4_error_name(std::uint32_t code) noexcept {
    switch (code) {
    case lz4_error::none: return "none";
    case lz4_error::corrupt_token: return "corrupt_token";
    case lz4_error::offset_oob: return "offset_oob";
    case lz4_error::output_overflow: return "output_overflow";
    case lz4_error::literal_overflow: return "literal_overflow";
    case lz4_error::match_overflow: return "match_overflow";
    default: return "unknown_lz4_error";
    }
}

// LZ4 frame format (lz4_Frame_format.md): magic numbers, and the sizes every reader agrees on.
inline constexpr std::uint32_t lz4_frame_magic = 0x184D2204;
inline constexpr std::uint32_t lz4_legacy_magic = 0x184C2102;
// Skippable frames (shared with zstd): compression/skippable.hpp.
// A legacy frame's blocks decode to 8 MiB each (the last one to less).
inline constexpr std::uint32_t lz4_legacy_block_size = 8u << 20;
// LZ4_COMPRESSBOUND of a legacy block: any larger size field is not a block.
inline constexpr std::uint32_t lz4_legacy_max_compressed = lz4_legacy_block_size + lz4_legacy_block_size / 255 + 16;
// How far back a match of a linked block may reach into earlier blocks of its frame.
inline constexpr std::uint32_t lz4_window_size = 64 * 1024;

} // namespace vyre::compression
