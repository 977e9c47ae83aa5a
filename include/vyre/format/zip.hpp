// ZIP archives read through the central directory (ZIP64 included): every entry with its method,
// sizes and data extent, cross-checked against its local header. Extracting an entry:
// engine/zip_extract.hpp.
#pragma once

// What is fatal and what is not. The end of central directory record is the archive's index. Without
// it, an input that starts with a local header (a ZIP cut short, or whose end is damaged) is read
// as a streaming reader reads it, local header after local header (zip_archive::local_walk);
// anything else, or a central directory that lies outside the file, cannot be listed, and
// parse_zip throws format_error. Everything after that is reported, not thrown: a damaged entry gets
// status corrupt with the reason and the byte offset, an entry that cannot be extracted here gets
// unsupported_method or encrypted, and damage to the directory itself (ending early, more entries
// declared than present) goes to zip_archive::problems, while every entry that could be read is
// listed. A caller treats problems like corrupt entries.

#include <vyre/error.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/little_endian.hpp>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

inline constexpr std::uint32_t zip_local_signature = 0x04034B50;
inline constexpr std::uint32_t zip_central_signature = 0x02014B50;
inline constexpr std::uint32_t zip_eocd_signature = 0x06054B50;
inline constexpr std::uint32_t zip64_eocd_signature = 0x06064B50;
inline constexpr std::uint32_t zip64_locator_signature = 0x07064B50;
inline constexpr std::uint32_t zip_descriptor_signature = 0x08074B50;
inline constexpr std::size_t zip_local_header_size = 30;
inline constexpr std::size_t zip_central_header_size = 46;
inline constexpr std::size_t zip_eocd_size = 22;
inline constexpr std::size_t zip64_locator_size = 20;
inline constexpr std::size_t zip64_eocd_min_size = 56;
inline constexpr std::size_t zip_max_comment = 0xFFFF;

inline constexpr std::uint16_t zip_method_stored = 0;
inline constexpr std::uint16_t zip_method_deflate = 8;
// PKWARE's APPNOTE 6.3.8 assigns 93 to Zstandard; writers before it used 20 (since deprecated). Both read.
inline constexpr std::uint16_t zip_method_zstd = 93;
inline constexpr std::uint16_t zip_method_zstd_legacy = 20;
inline constexpr std::uint16_t zip_method_aes = 99; // WinZip AES: encrypted, the real method is inside

inline constexpr std::uint16_t zip_flag_encrypted = 0x0001;
inline constexpr std::uint16_t zip_flag_data_descriptor = 0x0008;
inline constexpr std::uint16_t zip_flag_strong_encryption = 0x0040;
inline constexpr std::uint16_t zip_flag_utf8 = 0x0800;

inline const char* zip_method_name(std::uint16_t method) noexcept {
    switch (method) {
    case 0: return "stored";
    case 1: return "shrink";
    case 6: return "implode";
    case 8: return "deflate";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "lzma";
    case 20: return "zstd (legacy id 20)";
    case 93: return "zstd";
    case 95: return "xz";
    case 96: return "jpeg";
    case 97: return "wavpack";
    case 98: return "ppmd";
    case 99: return "aes";
    default: return "unknown";
    }
}

// ok < unsupported_method < encrypted < corrupt: an entry keeps its most serious problem.
enum class zip_entry_status { ok, unsupported_method, encrypted, corrupt };

inline const char* zip_entry_status_name(zip_entry_status s) noexcept {
    switch (s) {
    case zip_entry_status::ok: return "ok";
    case zip_entry_status::unsupported_method: return "unsupported method";
    case zip_entry_status::encrypted: return "encrypted";
    case zip_entry_status::corrupt: return "corrupt";
    }
    return "unknown";
}

// Whether `s` is well-formed UTF-8 (ASCII included): no overlong forms, no surrogates, nothing
// past U+10FFFF.
inline bool zip_valid_utf8(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (n == 0 || s.size() - i < n) return false;
        for (std::size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
        const auto c1 = static_cast<unsigned char>(s[i + 1 < s.size() ? i + 1 : i]);
        if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return false;
        i += n;
    }
    return true;
}

struct zip_entry {
    // Bytes as stored (UTF-8 when utf8_name(), else usually CP437). Not checked for "..", a leading
    // '/', drive letters or backslashes: the caller decides what is safe to write.
    std::string name;
    // The UTF-8 name of an Info-ZIP Unicode Path extra field (0x7075) that still describes `name`
    // (its CRC-32 of the name matches; a tool that renamed the entry without it leaves a stale one):
    // what the entry is called, for writers that keep the name field in a legacy code page.
    std::string unicode_name;
    std::string comment;
    zip_entry_status status = zip_entry_status::ok;
    std::string problem; // why status is not ok
    std::uint64_t problem_offset = format_error::npos;
    std::uint16_t version_made_by = 0;
    std::uint16_t version_needed = 0;
    std::uint16_t flags = 0; // general purpose bits of the central directory header
    std::uint16_t method = 0;
    std::uint16_t dos_time = 0;
    std::uint16_t dos_date = 0;
    std::optional<std::int64_t> unix_mtime; // from the extended timestamp field, where present
    std::uint32_t crc32 = 0;
    std::uint32_t external_attributes = 0;
    std::uint64_t compressed_size = 0;
    std::uint64_t uncompressed_size = 0;
    std::uint64_t central_offset = 0; // of its central directory header
    std::uint64_t local_offset = 0;   // of its local header
    std::uint64_t data_offset = 0;    // of its stored (compressed) bytes; known once the local header is read
    std::uint64_t end_offset = 0;     // past its data and data descriptor; 0 when the local header was unreadable
    bool zip64 = false;               // a size or the offset came from a ZIP64 extra field

    bool utf8_name() const noexcept { return (flags & zip_flag_utf8) != 0; }
    bool has_data_descriptor() const noexcept { return (flags & zip_flag_data_descriptor) != 0; }
    // Written on a system whose paths separate components with '\\' (the host byte of
    // version_made_by: 0 MS-DOS and Windows' FAT, 6 OS/2, 11 NTFS, 14 VFAT).
    bool dos_host() const noexcept {
        const unsigned host = version_made_by >> 8;
        return host == 0 || host == 6 || host == 11 || host == 14;
    }
    // The entry's path with '/' between components, as Info-ZIP's unzip and 7-Zip read it: from a
    // DOS-like host, '\\' is a separator (some Windows tools write them); elsewhere it is a name's
    // byte. Not in a name that is not UTF-8 either: a legacy code page, which may be a double-byte
    // one (Shift JIS, Big5, GBK) where 0x5C is the second byte of a character.
    std::string path_name() const {
        std::string p = unicode_name.empty() ? name : unicode_name;
        if (dos_host() && zip_valid_utf8(p)) std::replace(p.begin(), p.end(), '\\', '/');
        return p;
    }
    // A folder: a path ending in '/', a Unix mode that says so, or (from a DOS-like host, whose
    // tools may leave the '/' out) an empty entry with the MS-DOS directory attribute (0x10).
    bool is_directory() const {
        const std::string p = path_name(); // a Unicode Path name ends in '/' only where the name field does
        if (!p.empty() && p.back() == '/') return true;
        if ((unix_mode() & 0170000) == 0040000) return true;
        return dos_host() && (external_attributes & 0x10) != 0 && uncompressed_size == 0;
    }
    // st_mode when a Unix writer recorded one (high half of the external attributes), else 0.
    std::uint32_t unix_mode() const noexcept { return (version_made_by >> 8) == 3 ? external_attributes >> 16 : 0; }
    // A symlink's content (after extraction) is its target.
    bool is_symlink() const noexcept { return (unix_mode() & 0170000) == 0120000; }
    bool is_zstd() const noexcept { return method == zip_method_zstd || method == zip_method_zstd_legacy; }
};

struct zip_problem {
    std::string message;
    std::uint64_t offset = format_error::npos;
};

struct zip_archive {
    std::vector<zip_entry> entries;
    std::vector<zip_problem> problems; // damage to the directory itself; see the note at the top
    std::string comment;
    std::uint64_t eocd_offset = 0;
    std::uint64_t cd_offset = 0;
    std::uint64_t cd_size = 0;
    std::uint64_t declared_entries = 0;
    bool zip64 = false; // the ZIP64 end of central directory record was read
    // No end record: the entries were found by walking the local headers from the start, as a
    // streaming reader finds them (problems says so, and where the walk stopped).
    bool local_walk = false;
    // Bytes before the archive proper (a self-extractor's stub), added to every offset the archive
    // records; cd_offset and the entries' offsets here already include it.
    std::uint64_t prefix_size = 0;
};

} // namespace vyre::format

// The parser: the records of an archive checked against each other (after the types above).
#include <vyre/format/detail/zip_parser.hpp>

namespace vyre::format {

// Lists a ZIP archive through its central directory. Throws format_error only when there is no
// directory to read; see the note at the top for everything else.
inline zip_archive parse_zip(std::span<const std::uint8_t> data) {
    return detail::zip_parser(data).run();
}

// An entry's modification time in seconds since the epoch: the extended timestamp where the writer
// left one, else the MS-DOS date and time read as local time (as unzip and Python's zipfile read
// them); nullopt for a date MS-DOS cannot hold (month or day 0, as some writers leave).
inline std::optional<std::int64_t> zip_mtime(const zip_entry& e) {
    if (e.unix_mtime) return e.unix_mtime;
    std::tm t{};
    t.tm_year = 80 + (e.dos_date >> 9);
    t.tm_mon = ((e.dos_date >> 5) & 15) - 1;
    t.tm_mday = e.dos_date & 31;
    t.tm_hour = e.dos_time >> 11;
    t.tm_min = (e.dos_time >> 5) & 63;
    t.tm_sec = (e.dos_time & 31) * 2;
    t.tm_isdst = -1;
    if (t.tm_mon < 0 || t.tm_mon > 11 || t.tm_mday == 0) return std::nullopt;
    const std::time_t s = std::mktime(&t);
    if (s == static_cast<std::time_t>(-1)) return std::nullopt;
    return static_cast<std::int64_t>(s);
}

// The stored (compressed) bytes of an entry: a view into the archive, for a decompressor to read.
inline std::span<const std::uint8_t> zip_entry_data(std::span<const std::uint8_t> data, const zip_entry& e) {
    if (e.end_offset == 0 || e.data_offset > data.size() || e.compressed_size > data.size() - e.data_offset)
        throw format_error("ZIP entry " + archive_quote(e.name) + ": its data lies outside the archive",
                           e.central_offset);
    return data.subspan(static_cast<std::size_t>(e.data_offset), static_cast<std::size_t>(e.compressed_size));
}

} // namespace vyre::format
