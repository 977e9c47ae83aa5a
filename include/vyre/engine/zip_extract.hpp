// Extracting one ZIP entry on the host: stored, deflate (libdeflate), zstd (libzstd), and bzip2,
// LZMA and xz entries (format/zip_methods.hpp), checked against the sizes and the CRC-32 the archive declares. Listing entries: format/zip.hpp.
#pragma once

#include <vyre/compression/zstd.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/error.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/names.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/format/zip_methods.hpp>
#include <vyre/util/hex.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine {

// Decompresses one entry on the CPU (stored, deflate, zstd, bzip2, LZMA, xz) and verifies its size and CRC-32. An
// entry whose status is not ok, or whose content does not match its sizes or CRC, is a format_error
// naming it; a declared size above `limit` a resource_error, before anything is decompressed.
inline std::vector<std::uint8_t> zip_extract(std::span<const std::uint8_t> data, const format::zip_entry& e,
                                             std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()) {
    const std::string who = "ZIP entry " + format::archive_quote(e.name);
    if (e.status != format::zip_entry_status::ok)
        throw format_error(who + " (" + format::zip_entry_status_name(e.status) + "): " + e.problem, e.problem_offset);
    if (e.uncompressed_size > limit)
        throw resource_error(who + " declares " + std::to_string(e.uncompressed_size) +
                             " bytes, above the output limit of " + std::to_string(limit));
    const auto in = format::zip_entry_data(data, e);
    std::vector<std::uint8_t> out;
    if (e.method == format::zip_method_stored) {
        out.assign(in.begin(), in.end());
    } else if (e.method == format::zip_method_deflate) {
        if (e.uncompressed_size > format::deflate_output_bound(in.size()))
            throw format_error(who + ": " + std::to_string(in.size()) + " deflate bytes cannot inflate to the " +
                                   std::to_string(e.uncompressed_size) + " bytes declared",
                               e.central_offset + 24);
        out.resize(static_cast<std::size_t>(e.uncompressed_size));
        const auto r = format::inflate_into(in, out);
        if (r.result == LIBDEFLATE_INSUFFICIENT_SPACE)
            throw format_error(who + " inflates to more than the " + std::to_string(e.uncompressed_size) + " bytes declared",
                               e.data_offset);
        if (r.result != LIBDEFLATE_SUCCESS) throw format_error(who + ": invalid deflate data", e.data_offset);
        if (r.produced != e.uncompressed_size)
            throw format_error(who + " inflates to " + std::to_string(r.produced) + " bytes, " +
                                   std::to_string(e.uncompressed_size) + " were declared",
                               e.data_offset);
    } else if (e.is_zstd()) {
        // The best zstd can do is a 4-byte RLE block regenerating a whole block (128 KiB).
        constexpr std::uint64_t zstd_max_ratio = compression::zstd_max_block_bytes / 4, slack = 1 << 20;
        if (in.size() < (std::numeric_limits<std::uint64_t>::max() - slack) / zstd_max_ratio &&
            e.uncompressed_size > in.size() * zstd_max_ratio + slack)
            throw format_error(who + ": " + std::to_string(in.size()) + " zstd bytes cannot decompress to the " +
                                   std::to_string(e.uncompressed_size) + " bytes declared",
                               e.central_offset + 24);
        // The buffer grows as the data proves itself, so an entry that declares far more than its
        // data holds (a 65 KB entry may declare 2 GiB and pass the ratio check above) costs the
        // memory of what it really decodes to.
        engine::zstd_decode_growing(in, out, e.uncompressed_size, who + ": invalid zstd data", e.data_offset, [&] {
            return format_error(who + " decompresses to more than the " + std::to_string(e.uncompressed_size) + " bytes declared",
                                e.data_offset);
        });
        if (out.size() != e.uncompressed_size)
            throw format_error(who + " decompresses to " + std::to_string(out.size()) + " bytes, " +
                                   std::to_string(e.uncompressed_size) + " were declared",
                               e.data_offset);
    } else if (format::zip_library_method(e.method)) {
        out = format::zip_decode_library_method(in, e, e.uncompressed_size);
    } else {
        throw format_error(who + ": compression method " + std::to_string(e.method) + " is not supported", e.central_offset + 10);
    }
    if (const std::uint32_t crc = format::crc32_of(out); crc != e.crc32)
        throw format_error(who + ": CRC-32 mismatch: stored " + util::hex(e.crc32, 8) + ", computed " +
                               util::hex(crc, 8),
                           e.central_offset + 16);
    return out;
}

} // namespace vyre::engine
