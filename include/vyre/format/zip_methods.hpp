// The ZIP methods whose entries are decoded on the host through a library: bzip2 (method 12,
// libbz2), LZMA (14, liblzma) and xz (95, liblzma). Stored, deflate and zstd entries have their
// own paths (the device takes deflate and zstd); these are rare enough in ZIPs, JARs and wheels that
// the host decodes them one entry per thread.
#pragma once

#include <vyre/error.hpp>
#include <vyre/format/bzip2.hpp>
#include <vyre/format/names.hpp>
#include <vyre/format/xz.hpp>
#include <vyre/format/zip.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

inline constexpr std::uint16_t zip_method_bzip2 = 12;
inline constexpr std::uint16_t zip_method_lzma = 14;
inline constexpr std::uint16_t zip_method_xz = 95;

inline bool zip_library_method(std::uint16_t method) noexcept {
    return method == zip_method_bzip2 || method == zip_method_lzma || method == zip_method_xz;
}

// Decodes the data of an entry of one of those methods into at most `limit` bytes, then checks the
// size against the entry's declared size. The caller checks the CRC-32. Errors name the entry.
inline std::vector<std::uint8_t> zip_decode_library_method(std::span<const std::uint8_t> in, const zip_entry& e, std::uint64_t limit) {
    const std::string who = "ZIP entry " + archive_quote(e.name);
    std::vector<std::uint8_t> out;
    try {
        switch (e.method) {
        case zip_method_bzip2: out = bzip2_decompress(in, limit); break;
        case zip_method_lzma: out = zip_lzma_decompress(in, e.uncompressed_size, (e.flags & zip_flag_lzma_eos) != 0, limit); break;
        case zip_method_xz: out = xz_decompress(in, limit); break;
        default:
            throw format_error("compression method " + std::to_string(e.method) + " is not decoded by a library", e.central_offset + 10);
        }
    } catch (const resource_error& x) {
        throw resource_error(who + ": " + x.what());
    } catch (const format_error& x) {
        // The codec's offset counts from the entry's data, which starts at data_offset.
        throw format_error(who + " (data at byte offset " + std::to_string(e.data_offset) + "): " + x.what());
    }
    if (out.size() != e.uncompressed_size)
        throw format_error(who + " decodes to " + std::to_string(out.size()) + " bytes, " + std::to_string(e.uncompressed_size) +
                               " were declared",
                           e.data_offset);
    return out;
}

} // namespace vyre::format
