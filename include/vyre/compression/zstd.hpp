// Zstandard's shared vocabulary: the status codes of compression.zstd and the numbers of RFC 8878
// that the frame parser, the detector, the CPU reference, the op and the engine all use.
#pragma once

#include <vyre/compression/skippable.hpp>

#include <cstddef>
#include <cstdint>

namespace vyre::compression {

// Status codes of compression.zstd (permanent values).
namespace zstd_error {
enum : std::uint32_t {
    none = 0,
    corrupt_block = 1,
    output_overflow = 2,
    rle_payload_missing = 3,
    unsupported_compressed_block = 4,
};
} // namespace zstd_error

inline const char* zstd_error_name(std::uint32_t code) noexcept {
    switch (code) {
    case zstd_error::none: return "none";
    case zstd_error::corrupt_block: return "corrupt_block";
    case zstd_error::output_overflow: return "output_overflow";
    case zstd_error::rle_payload_missing: return "rle_payload_missing";
    case zstd_error::unsupported_compressed_block: return "unsupported_compressed_block";
    default: return "unknown_zstd_error";
    }
}

// RFC 8878: the frame magic number, and every block's limits. (Skippable frames, shared with LZ4:
// compression/skippable.hpp.)
inline constexpr std::uint32_t zstd_magic = 0xFD2FB528u;
// No block regenerates more than this (Block_Maximum_Size is never above it).
inline constexpr std::uint32_t zstd_max_block_bytes = 128u * 1024u;
inline constexpr std::size_t zstd_block_header_bytes = 3;

} // namespace vyre::compression
