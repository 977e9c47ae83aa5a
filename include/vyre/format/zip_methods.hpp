// The ZIP methods whose entries are decoded on the host through a library: bzip2 (method 12,
// libbz2), LZMA (14, liblzma), xz (95, liblzma) and PPMd (98, libarchive, where vyre is built with
// it). Stored, deflate and zstd entries have their own paths (the device takes deflate and zstd);
// these are rare enough in ZIPs, JARs and wheels that the host decodes them one entry per thread.
#pragma once

#include <vyre/error.hpp>
#include <vyre/format/bzip2.hpp>
#include <vyre/format/libarchive.hpp>
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
inline constexpr std::uint16_t zip_method_ppmd = 98;

inline bool zip_library_method(std::uint16_t method) noexcept {
    return method == zip_method_bzip2 || method == zip_method_lzma || method == zip_method_xz ||
           (method == zip_method_ppmd && libarchive_available());
}

namespace detail {

// A PPMd entry (PPMd variant I, revision 1, as WinZip and 7-Zip write it) is
// decoded by libarchive's ZIP reader, on an archive of that one entry made here: its local
// header with the central directory's sizes and CRC-32 (no data descriptor), its data, a central
// directory and an end record. libarchive thus reads exactly the bytes vyre's parser found, under
// the name "x", whatever the rest of the archive holds.
inline std::vector<std::uint8_t> zip_ppmd_decompress(std::span<const std::uint8_t> in, const zip_entry& e, std::uint64_t limit) {
    if (e.compressed_size > 0xFFFFFFFEu || e.uncompressed_size > 0xFFFFFFFEu)
        throw format_error("a PPMd entry of 4 GiB or more is not supported", e.central_offset + 20);
    std::vector<std::uint8_t> one;
    const auto put16 = [&](std::uint32_t v) {
        one.push_back(static_cast<std::uint8_t>(v));
        one.push_back(static_cast<std::uint8_t>(v >> 8));
    };
    const auto put32 = [&](std::uint32_t v) {
        put16(v & 0xFFFF);
        put16(v >> 16);
    };
    const auto header = [&](bool local) {
        put32(local ? zip_local_signature : zip_central_signature);
        if (!local) put16(e.version_made_by);
        put16(e.version_needed);
        put16(e.flags & ~zip_flag_data_descriptor);
        put16(e.method);
        put16(e.dos_time);
        put16(e.dos_date);
        put32(e.crc32);
        put32(static_cast<std::uint32_t>(e.compressed_size));
        put32(static_cast<std::uint32_t>(e.uncompressed_size));
        put16(1); // the name's length
        put16(0); // no extra field
        if (!local) {
            for (int k = 0; k < 3; ++k) put16(0); // comment length, disk, internal attributes
            put32(0);                              // external attributes
            put32(0);                              // the local header's offset
        }
        one.push_back('x');
    };
    one.reserve(in.size() + 128);
    header(true);
    one.insert(one.end(), in.begin(), in.end());
    const auto cd_offset = static_cast<std::uint32_t>(one.size());
    header(false);
    const auto cd_size = static_cast<std::uint32_t>(one.size() - cd_offset);
    put32(zip_eocd_signature);
    put32(0);  // disks
    put16(1);
    put16(1);
    put32(cd_size);
    put32(cd_offset);
    put16(0);
    std::uint64_t taken = 0;
    library_archive a = read_with_libarchive(one, library_format::zip, [&](std::uint64_t n) -> std::string {
        taken += n;
        return taken > limit ? "decodes to more than the " + std::to_string(limit) + " bytes allowed" : std::string();
    });
    if (!a.refusal.empty()) throw resource_error(a.refusal);
    if (!a.damage.empty()) throw format_error(a.damage);
    if (a.entries.size() != 1) throw format_error("libarchive read " + std::to_string(a.entries.size()) + " entries, not the one given");
    return std::move(a.entries[0].data);
}

} // namespace detail

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
        case zip_method_ppmd:
            if (!libarchive_available()) throw unsupported_format("PPMd: not supported in this build (vyre was built without libarchive)");
            out = detail::zip_ppmd_decompress(in, e, limit);
            break;
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
