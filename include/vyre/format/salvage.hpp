// What a damaged compressed stream holds before the damage. The decoders vyre runs (the device
// ops, libdeflate, the block engines) decode whole streams and fail whole; a truncated or corrupted
// .tar.gz, .tar.zst, .tar.lz4, .tar.xz or .tar.bz2 still holds every entry that lies before the
// damage, and GNU tar extracts those. decode_prefix runs the codec library's own streaming decoder
// (zlib, libzstd, liblz4's frame API, liblzma, libbz2) and keeps what it produced before the first
// error. engine/unpack.hpp uses it for compressed streams that failed, so that the tar inside
// lists the entries before the damage.
#pragma once

// A codec emits only what it has checked as far as its format lets it: zstd, LZ4 and bzip2 emit
// whole blocks, DEFLATE and LZMA emit as they go, so the last bytes before a corruption may be
// wrong (a tar checks each header's checksum, so a wrong header ends the listing there). Checksums
// over the whole stream (gzip's CRC-32, zstd's XXH64) cannot be checked on a prefix: a prefix is
// what the stream held, as well as the codec can tell.

#include <vyre/format/detect.hpp>
#include <vyre/format/stream_decode.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace vyre::format {

// The bytes a `kind` stream (gzip, zstd, lz4 frames, xz, lzma, bzip2) decodes to before its first
// error, at most `limit` of them. Empty for other kinds, and where nothing decoded. Never throws
// for bad input.
inline std::vector<std::uint8_t> decode_prefix(content_kind kind, std::span<const std::uint8_t> in, std::uint64_t limit) {
    if (!stream_decodable(kind)) return {};
    stream_decoder d(kind, in);
    std::vector<std::uint8_t> out;
    // Grows by 1 MiB pieces, so that a short stream given a large limit allocates what it decodes.
    while (out.size() < limit && !d.done() && !d.failed()) {
        const std::size_t at = out.size();
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(limit - at, std::uint64_t{1} << 20));
        out.resize(at + n);
        out.resize(at + d.read(std::span<std::uint8_t>(out).subspan(at, n)));
    }
    return out;
}

} // namespace vyre::format
