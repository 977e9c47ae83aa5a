// Content detection for archives and compressed streams by their magic numbers (never by file name):
// LZ4 (frame, legacy), zstd, gzip, ZIP, tar; anything else is raw data.
#pragma once

// Skippable frames. LZ4 and zstd define the same skippable frame (magic 0x184D2A50..0x184D2A5F,
// a 4-byte little-endian size, that many bytes of user data), and both decoders accept it anywhere
// in a file, so the magic alone says nothing about the codec. detect() steps over leading skippable
// frames and names the codec of the first real frame after them; a file of skippable frames only
// (it decodes to nothing under either codec) is `skippable`; skippable frames followed by anything
// else are `unknown` (neither decoder would accept the file).
//
// Order of the tests: the 4-byte magics at offset 0 first, then tar. A tar's first bytes are a file
// name, which could spell anything, whereas "ustar" at byte 257 or a valid header checksum is the
// weaker evidence; a file named "\x1F\x8B..." at the head of a tar is read as gzip (and fails there).

#include <vyre/compression/lz4.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/util/little_endian.hpp>

#include <cstdint>
#include <span>
#include <string_view>

namespace vyre::format {

enum class content_kind { lz4_frame, lz4_legacy, zstd, skippable, gzip, zip, tar, unknown };

inline const char* content_kind_name(content_kind k) noexcept {
    switch (k) {
    case content_kind::lz4_frame: return "lz4";
    case content_kind::lz4_legacy: return "lz4-legacy";
    case content_kind::zstd: return "zstd";
    case content_kind::skippable: return "skippable frames only";
    case content_kind::gzip: return "gzip";
    case content_kind::zip: return "zip";
    case content_kind::tar: return "tar";
    case content_kind::unknown: return "unknown/raw data";
    }
    return "unknown/raw data";
}

namespace detail {

inline content_kind detect_at(std::span<const std::uint8_t> data, std::uint64_t pos) {
    const std::uint64_t left = data.size() - pos;
    if (left >= 4) {
        const std::uint32_t m = util::read_le32(data, pos);
        if (m == compression::lz4_frame_magic) return content_kind::lz4_frame;
        if (m == compression::lz4_legacy_magic) return content_kind::lz4_legacy;
        if (m == compression::zstd_magic) return content_kind::zstd;
        if (m == zip_local_signature || m == zip_eocd_signature) return content_kind::zip;
    }
    if (left >= 2 && data[pos] == gzip_id1 && data[pos + 1] == gzip_id2) return content_kind::gzip;
    return content_kind::unknown;
}

} // namespace detail

// What the bytes are, from their first bytes (and a tar header's checksum). Reads at most the first
// 512 bytes plus the headers of any leading skippable frames; never throws.
inline content_kind detect(std::span<const std::uint8_t> data) noexcept {
    std::uint64_t pos = 0;
    bool skipped = false;
    // Each skippable frame moves pos forward by 8 bytes at least: the loop ends.
    while (data.size() - pos >= 8 && compression::is_skippable_magic(util::read_le32(data, pos))) {
        const std::uint64_t size = util::read_le32(data, pos + 4);
        if (size > data.size() - pos - 8) return content_kind::unknown; // truncated: no codec would accept it
        pos += 8 + size;
        skipped = true;
    }
    if (skipped) {
        if (pos == data.size()) return content_kind::skippable;
        const content_kind k = detail::detect_at(data, pos);
        return k == content_kind::lz4_frame || k == content_kind::lz4_legacy || k == content_kind::zstd
            ? k
            : content_kind::unknown;
    }
    const content_kind k = detail::detect_at(data, 0);
    if (k != content_kind::unknown) return k;
    if (data.size() >= tar_block_size) {
        const auto block = data.first(tar_block_size);
        const std::string_view magic(reinterpret_cast<const char*>(block.data() + tar_magic_offset), tar_magic_prefix.size());
        if (magic == tar_magic_prefix || tar_header_checksum_ok(block)) return content_kind::tar;
    }
    return content_kind::unknown;
}

} // namespace vyre::format
