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
#include <string>
#include <vector>

namespace vyre::format {

// What decode_prefix read: the bytes decoded before the first error (or all of them), whether the
// stream ended, and the bytes after its end that start no new member or frame (ignored; see
// stream_decoder::trailing).
struct decoded_prefix {
    std::vector<std::uint8_t> bytes;
    bool ended = false;        // the last member or frame ended, within the limit
    std::uint64_t trailing = 0; // bytes after it, ignored
    std::string trailing_message; // what a reader is told about them ("gzip: 39 byte(s) after ...")
};

// The bytes a `kind` stream (gzip, zstd, lz4 frames, xz, lzma, bzip2) decodes to before its first
// error, at most `limit` of them. Empty for other kinds, and where nothing decoded. Never throws
// for bad input.
inline decoded_prefix decode_prefix(content_kind kind, std::span<const std::uint8_t> in, std::uint64_t limit) {
    decoded_prefix r;
    if (!stream_decodable(kind)) return r;
    stream_decoder d(kind, in);
    std::vector<std::uint8_t>& out = r.bytes;
    // Grows by 1 MiB pieces, so that a short stream given a large limit allocates what it decodes.
    while (out.size() < limit && !d.done() && !d.failed()) {
        const std::size_t at = out.size();
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(limit - at, std::uint64_t{1} << 20));
        out.resize(at + n);
        out.resize(at + d.read(std::span<std::uint8_t>(out).subspan(at, n)));
    }
    // At the limit, one more read tells a stream that ends exactly there from a longer one.
    if (!d.done() && !d.failed()) {
        std::uint8_t probe = 0;
        if (d.read(std::span<std::uint8_t>(&probe, 1)) != 0) return r;
    }
    r.ended = d.done();
    r.trailing = d.trailing();
    if (r.trailing) r.trailing_message = d.trailing_message();
    return r;
}

} // namespace vyre::format
