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

#include <vyre/format/bzip2.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/xz.hpp>

#include <bzlib.h>
#include <lz4frame.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace vyre::format {

namespace detail {

// An output buffer that grows by 1 MiB pieces up to `limit` bytes.
class prefix_sink {
public:
    explicit prefix_sink(std::uint64_t limit) : limit_(limit) {}
    // Room for the next piece (nullptr with size 0 once the limit is reached).
    std::pair<std::uint8_t*, std::size_t> room() {
        const std::uint64_t left = limit_ - std::min<std::uint64_t>(limit_, used_);
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, std::uint64_t{1} << 20));
        if (n == 0) return {nullptr, 0};
        if (bytes_.size() < used_ + n) bytes_.resize(static_cast<std::size_t>(used_ + n));
        return {bytes_.data() + used_, n};
    }
    void wrote(std::size_t n) { used_ += n; }
    bool full() const { return used_ >= limit_; }
    std::vector<std::uint8_t> take() {
        bytes_.resize(static_cast<std::size_t>(used_));
        return std::move(bytes_);
    }

private:
    std::uint64_t limit_;
    std::uint64_t used_ = 0;
    std::vector<std::uint8_t> bytes_;
};

inline std::vector<std::uint8_t> gzip_prefix(std::span<const std::uint8_t> in, std::uint64_t limit) {
    prefix_sink out(limit);
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK) return {};
    std::uint64_t pos = 0;
    for (;;) {
        if (z.avail_in == 0) {
            const std::uint64_t n = std::min<std::uint64_t>(in.size() - pos, std::uint64_t{1} << 30);
            if (n == 0) break;
            z.next_in = const_cast<Bytef*>(in.data() + pos);
            z.avail_in = static_cast<uInt>(n);
            pos += n;
        }
        const auto [at, size] = out.room();
        if (size == 0) break;
        z.next_out = at;
        z.avail_out = static_cast<uInt>(size);
        const int r = inflate(&z, Z_NO_FLUSH);
        out.wrote(size - z.avail_out);
        if (r == Z_STREAM_END) {
            // The next member, if one follows.
            const std::uint64_t next = pos - z.avail_in;
            if (in.size() - next < 2 || in[next] != gzip_id1 || in[next + 1] != gzip_id2) break;
            inflateReset(&z);
            continue;
        }
        if (r != Z_OK) break; // damage, or no progress with the input exhausted (truncation)
    }
    inflateEnd(&z);
    return out.take();
}

inline std::vector<std::uint8_t> zstd_prefix(std::span<const std::uint8_t> in, std::uint64_t limit) {
    prefix_sink out(limit);
    const std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> d(ZSTD_createDCtx(), &ZSTD_freeDCtx);
    if (!d) return {};
    // Frames that ask for a window above 128 MiB (what zstd --long=27 writes) are refused, so a
    // 10-byte header cannot ask for gigabytes here.
    ZSTD_DCtx_setParameter(d.get(), ZSTD_d_windowLogMax, 27);
    ZSTD_inBuffer src{in.data(), in.size(), 0};
    while (src.pos < src.size) {
        const auto [at, size] = out.room();
        if (size == 0) break;
        ZSTD_outBuffer dst{at, size, 0};
        const std::size_t r = ZSTD_decompressStream(d.get(), &dst, &src);
        out.wrote(dst.pos);
        if (ZSTD_isError(r)) break;
        if (dst.pos == 0 && src.pos == src.size) break;
    }
    // What is buffered inside the decoder (a block decoded but not yet flushed).
    for (;;) {
        const auto [at, size] = out.room();
        if (size == 0) break;
        ZSTD_outBuffer dst{at, size, 0};
        ZSTD_inBuffer none{nullptr, 0, 0};
        const std::size_t r = ZSTD_decompressStream(d.get(), &dst, &none);
        out.wrote(dst.pos);
        if (ZSTD_isError(r) || dst.pos == 0) break;
    }
    return out.take();
}

inline std::vector<std::uint8_t> lz4_prefix(std::span<const std::uint8_t> in, std::uint64_t limit) {
    prefix_sink out(limit);
    LZ4F_dctx* raw = nullptr;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&raw, LZ4F_VERSION))) return {};
    const std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> d(raw, &LZ4F_freeDecompressionContext);
    std::uint64_t pos = 0;
    while (pos < in.size()) {
        const auto [at, size] = out.room();
        if (size == 0) break;
        std::size_t dst = size, src = static_cast<std::size_t>(in.size() - pos);
        const std::size_t r = LZ4F_decompress(d.get(), at, &dst, in.data() + pos, &src, nullptr);
        out.wrote(dst);
        pos += src;
        if (LZ4F_isError(r)) break;
        if (dst == 0 && src == 0) break;
    }
    return out.take();
}

inline std::vector<std::uint8_t> lzma_prefix(std::span<const std::uint8_t> in, std::uint64_t limit, bool xz) {
    prefix_sink out(limit);
    lzma_stream s = LZMA_STREAM_INIT;
    if ((xz ? lzma_stream_decoder(&s, lzma_memory_limit, LZMA_CONCATENATED) : lzma_alone_decoder(&s, lzma_memory_limit)) != LZMA_OK) return {};
    s.next_in = in.data();
    s.avail_in = in.size();
    for (;;) {
        const auto [at, size] = out.room();
        if (size == 0) break;
        s.next_out = at;
        s.avail_out = size;
        const lzma_ret r = lzma_code(&s, LZMA_FINISH);
        out.wrote(size - s.avail_out);
        if (r != LZMA_OK) break; // the end, damage, truncation or a limit
    }
    lzma_end(&s);
    return out.take();
}

inline std::vector<std::uint8_t> bzip2_prefix(std::span<const std::uint8_t> in, std::uint64_t limit) {
    prefix_sink out(limit);
    std::uint64_t pos = 0;
    while (pos < in.size() && is_bzip2(in.subspan(static_cast<std::size_t>(pos))) && !out.full()) {
        bz_stream s{};
        if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK) break;
        const std::uint64_t n = std::min<std::uint64_t>(in.size() - pos, std::uint64_t{1} << 30);
        s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + pos));
        s.avail_in = static_cast<unsigned>(n);
        int r = BZ_OK;
        for (;;) {
            const auto [at, size] = out.room();
            if (size == 0) break;
            s.next_out = reinterpret_cast<char*>(at);
            s.avail_out = static_cast<unsigned>(size);
            r = BZ2_bzDecompress(&s);
            out.wrote(size - s.avail_out);
            if (r != BZ_OK || (s.avail_in == 0 && s.avail_out != 0)) break;
        }
        pos += n - s.avail_in;
        BZ2_bzDecompressEnd(&s);
        if (r != BZ_STREAM_END) break;
    }
    return out.take();
}

} // namespace detail

// The bytes a `kind` stream (gzip, zstd, lz4 frames, xz, lzma, bzip2) decodes to before its first
// error, at most `limit` of them. Empty for other kinds, and where nothing decoded. Never throws
// for bad input.
inline std::vector<std::uint8_t> decode_prefix(content_kind kind, std::span<const std::uint8_t> in, std::uint64_t limit) {
    switch (kind) {
    case content_kind::gzip: return detail::gzip_prefix(in, limit);
    case content_kind::zstd: return detail::zstd_prefix(in, limit);
    case content_kind::lz4_frame: return detail::lz4_prefix(in, limit);
    case content_kind::xz: return detail::lzma_prefix(in, limit, true);
    case content_kind::lzma: return detail::lzma_prefix(in, limit, false);
    case content_kind::bzip2: return detail::bzip2_prefix(in, limit);
    default: return {};
    }
}

} // namespace vyre::format
