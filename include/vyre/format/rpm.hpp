// RPM packages: a 96-byte lead, a signature header, a header, then the payload, a cpio archive in
// a compressed stream (gzip, bzip2, xz, lzma or zstd). rpm_payload finds where the payload starts,
// so that engine/unpack.hpp opens it as the compressed stream it is (on the device where the codec
// goes there) and the cpio inside through its own checks; the headers' tags (name, version,
// scripts) are not read.
#pragma once

#include <vyre/error.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace vyre::format {

inline constexpr std::uint32_t rpm_lead_magic = 0xEDABEEDB;   // big-endian, at byte 0
inline constexpr std::uint32_t rpm_header_magic = 0x8EADE801; // big-endian: 8E AD E8, version 1
inline constexpr std::size_t rpm_lead_size = 96;
inline constexpr std::size_t rpm_header_intro = 16; // magic, 4 reserved bytes, index count, data size

namespace detail {

inline std::uint32_t read_be32(std::span<const std::uint8_t> d, std::uint64_t at) {
    return std::uint32_t{d[at]} << 24 | std::uint32_t{d[at + 1]} << 16 | std::uint32_t{d[at + 2]} << 8 | d[at + 3];
}

// The end of the header structure starting at `at`: its intro, 16 bytes per index entry, its data.
inline std::uint64_t rpm_header_end(std::span<const std::uint8_t> d, std::uint64_t at, const char* which) {
    if (d.size() < at || d.size() - at < rpm_header_intro)
        throw format_error(std::string("rpm: the ") + which + " header is cut short", at);
    if (read_be32(d, at) != rpm_header_magic)
        throw format_error(std::string("rpm: the ") + which + " header has no header magic number", at);
    const std::uint64_t entries = read_be32(d, at + 8), data = read_be32(d, at + 12);
    const std::uint64_t end = at + rpm_header_intro + entries * 16 + data; // at most 2^36 + 2^32 past at: no overflow
    if (end > d.size())
        throw format_error(std::string("rpm: the ") + which + " header declares " + std::to_string(entries) + " index entries and " +
                               std::to_string(data) + " bytes of data, past the end of the file",
                           at + 8);
    return end;
}

} // namespace detail

// The byte offset where the payload of the RPM `d` starts. Throws format_error (naming the
// header and the offset) when the lead or a header is damaged or runs past the end.
inline std::uint64_t rpm_payload(std::span<const std::uint8_t> d) {
    if (d.size() < rpm_lead_size || detail::read_be32(d, 0) != rpm_lead_magic)
        throw format_error("rpm: no RPM lead (the file is shorter than 96 bytes or lacks the magic number)", 0);
    // The signature header is padded to a multiple of 8 bytes; the header that follows is not.
    std::uint64_t at = detail::rpm_header_end(d, rpm_lead_size, "signature");
    at = (at + 7) / 8 * 8;
    if (at > d.size()) throw format_error("rpm: the signature header's padding runs past the end of the file", at);
    return detail::rpm_header_end(d, at, "main");
}

} // namespace vyre::format
