// Content detection for archives and compressed streams by their magic numbers (never by file name):
// LZ4 (frame, legacy), zstd, gzip, xz, lzma, bzip2, ZIP, tar, and the containers read through
// libarchive (ar, cpio, 7z, RPM, ISO 9660); anything else is raw data.
#pragma once

// Skippable frames. LZ4 and zstd define the same skippable frame (magic 0x184D2A50..0x184D2A5F,
// a 4-byte little-endian size, that many bytes of user data), and both decoders accept it anywhere
// in a file, so the magic alone says nothing about the codec. detect() steps over leading skippable
// frames and names the codec of the first real frame after them; a file of skippable frames only
// (it decodes to nothing under either codec) is `skippable`; skippable frames followed by anything
// else are `unknown` (neither decoder would accept the file).
//
// Order of the tests: the magics at offset 0 of four bytes or more first, gzip's two bytes, then
// tar, then what has weaker evidence than a tar header: binary cpio (a 2-byte magic), an .lzma
// header (no magic at all, see looks_like_lzma_alone) and ISO 9660 ("CD001" at byte 32769, past
// a system area that may hold anything). A tar's first bytes are a file name, which could spell
// anything, whereas "ustar" at byte 257 or a valid header checksum is the weaker evidence; a file
// named "\x1F\x8B..." at the head of a tar is read as gzip (and fails there).

#include <vyre/compression/lz4.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/format/bzip2.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/libarchive.hpp>
#include <vyre/format/rpm.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/xz.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/util/little_endian.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include <string.h> // memrchr (a GNU extension, in glibc)

namespace vyre::format {

enum class content_kind {
    lz4_frame, lz4_legacy, zstd, skippable, gzip, zip, tar,
    xz, lzma, bzip2,                 // compressed streams the host decodes (format/xz.hpp, format/bzip2.hpp)
    rpm,                             // lead and headers, then a compressed cpio (format/rpm.hpp)
    ar, cpio, sevenzip, iso9660,     // containers read through libarchive (format/libarchive.hpp)
    unknown
};

// ISO 9660's volume descriptors start after a 32 KiB system area; the first holds "CD001" at byte 1.
inline constexpr std::size_t iso9660_magic_offset = 32769;

inline const char* content_kind_name(content_kind k) noexcept {
    switch (k) {
    case content_kind::lz4_frame: return "lz4";
    case content_kind::lz4_legacy: return "lz4-legacy";
    case content_kind::zstd: return "zstd";
    case content_kind::skippable: return "skippable frames only";
    case content_kind::gzip: return "gzip";
    case content_kind::zip: return "zip";
    case content_kind::tar: return "tar";
    case content_kind::xz: return "xz";
    case content_kind::lzma: return "lzma";
    case content_kind::bzip2: return "bzip2";
    case content_kind::ar: return "ar";
    case content_kind::cpio: return "cpio";
    case content_kind::sevenzip: return "7z";
    case content_kind::rpm: return "rpm";
    case content_kind::iso9660: return "iso9660";
    case content_kind::unknown: return "unknown/raw data";
    }
    return "unknown/raw data";
}

// The containers read through libarchive, as its reader names them.
inline std::optional<library_format> library_format_of(content_kind k) noexcept {
    switch (k) {
    case content_kind::ar: return library_format::ar;
    case content_kind::cpio: return library_format::cpio;
    case content_kind::sevenzip: return library_format::sevenzip;
    case content_kind::iso9660: return library_format::iso9660;
    default: return std::nullopt;
    }
}

namespace detail {

inline bool starts_with_at(std::span<const std::uint8_t> data, std::uint64_t pos, std::string_view magic) noexcept {
    return data.size() - pos >= magic.size() && std::equal(magic.begin(), magic.end(), data.begin() + static_cast<std::ptrdiff_t>(pos),
                                                           [](char m, std::uint8_t b) { return static_cast<std::uint8_t>(m) == b; });
}

// Old binary cpio: the magic 070707 (octal) as a 16-bit word of either byte order. Two bytes are
// weak evidence, so the header must hold up too: a file type POSIX defines, and a name after the
// 26-byte header that ends with its only NUL within the first 512 bytes (detect reads no further).
inline bool binary_cpio_header(std::span<const std::uint8_t> d) noexcept {
    constexpr std::size_t header = 26;
    if (d.size() < header) return false;
    const bool little = d[0] == 0xC7 && d[1] == 0x71, big = d[0] == 0x71 && d[1] == 0xC7;
    if (!little && !big) return false;
    const auto u16 = [&](std::size_t at) { return little ? d[at] | unsigned{d[at + 1]} << 8 : unsigned{d[at]} << 8 | d[at + 1]; };
    // The mode's file type is one POSIX defines (regular, folder, link, device, fifo, socket).
    const unsigned type = u16(6) & 0170000;
    if (type != 0100000 && type != 0040000 && type != 0120000 && type != 0020000 && type != 0060000 && type != 0010000 &&
        type != 0140000)
        return false;
    const std::size_t name_size = u16(20);
    if (name_size < 1 || header + name_size > 512 || d.size() < header + name_size || d[header + name_size - 1] != 0) return false;
    return std::find(d.begin() + header, d.begin() + static_cast<std::ptrdiff_t>(header + name_size - 1), 0) ==
           d.begin() + static_cast<std::ptrdiff_t>(header + name_size - 1);
}

inline content_kind detect_at(std::span<const std::uint8_t> data, std::uint64_t pos) {
    const std::uint64_t left = data.size() - pos;
    if (left >= 4) {
        const std::uint32_t m = util::read_le32(data, pos);
        if (m == compression::lz4_frame_magic) return content_kind::lz4_frame;
        if (m == compression::lz4_legacy_magic) return content_kind::lz4_legacy;
        if (m == compression::zstd_magic) return content_kind::zstd;
        if (m == zip_local_signature || m == zip_eocd_signature) return content_kind::zip;
    }
    using namespace std::string_view_literals;
    const auto rest = data.subspan(static_cast<std::size_t>(pos));
    if (is_xz(rest)) return content_kind::xz;
    if (is_bzip2(rest)) return content_kind::bzip2;
    if (starts_with_at(data, pos, "7z\xBC\xAF\x27\x1C"sv)) return content_kind::sevenzip;
    if (left >= 4 && read_be32(data, pos) == rpm_lead_magic) return content_kind::rpm;
    if (starts_with_at(data, pos, "!<arch>\n"sv)) return content_kind::ar;
    if (starts_with_at(data, pos, "070701"sv) || starts_with_at(data, pos, "070702"sv) || starts_with_at(data, pos, "070707"sv))
        return content_kind::cpio; // newc, crc, odc
    if (left >= 2 && data[pos] == gzip_id1 && data[pos + 1] == gzip_id2) return content_kind::gzip;
    return content_kind::unknown;
}

// A ZIP with data before it (a self-extracting archive, a JAR behind a launcher script), and
// perhaps after it (padding, as Python's zipfile and libarchive accept): its end of central
// directory record lies in the last 64 KiB + 22 bytes, its comment fits before the end of the file,
// and the central directory it points back to starts with its signature.
inline bool zip_at_end(std::span<const std::uint8_t> d) noexcept {
    if (d.size() < zip_eocd_size) return false;
    const std::uint64_t last = d.size() - zip_eocd_size;
    const std::uint64_t first = last > zip_max_comment ? last - zip_max_comment : 0;
    // Every file that is nothing else comes here, so the search skips from one 'P' (the
    // signature's first byte) back to the one before with memrchr rather than testing each offset.
    for (std::uint64_t end = last + 1; end > first;) {
        const void* hit = ::memrchr(d.data() + first, 0x50, static_cast<std::size_t>(end - first));
        if (!hit) break;
        const std::uint64_t pos = static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(hit) - d.data());
        end = pos;
        if (util::read_le32(d, pos) != zip_eocd_signature) continue;
        if (util::read_le16(d, pos + 20) > d.size() - pos - zip_eocd_size) continue;
        const std::uint64_t cd_size = util::read_le32(d, pos + 12);
        if (cd_size >= 4 && cd_size <= pos && util::read_le32(d, pos - cd_size) == zip_central_signature) return true;
    }
    return false;
}

} // namespace detail

// What the bytes are, from their first bytes (and a tar header's checksum). Reads at most the first
// 512 bytes plus the headers of any leading skippable frames, 5 bytes at iso9660_magic_offset, and,
// where `whole` (the span is all of the content, not only its head) and nothing else matched, the
// last 64 KiB for a ZIP with data before it. Never throws.
inline content_kind detect(std::span<const std::uint8_t> data, bool whole = true) noexcept {
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
    if (detail::binary_cpio_header(data)) return content_kind::cpio;
    if (looks_like_lzma_alone(data)) return content_kind::lzma;
    if (data.size() >= iso9660_magic_offset + 5 &&
        detail::starts_with_at(data, iso9660_magic_offset, "CD001")) return content_kind::iso9660;
    if (whole && detail::zip_at_end(data)) return content_kind::zip;
    return content_kind::unknown;
}

} // namespace vyre::format
