// xz and LZMA streams, decoded on the host by liblzma (Debian's liblzma-dev): .xz files (several
// streams one after another and stream padding included, as `xz -d` reads them), .lzma files (the
// LZMA_Alone format of LZMA Utils and 7-Zip), and the entries of ZIP methods 14 (LZMA) and 95 (xz).
// These codecs stay on the host: LZMA's range coder decodes one bit after the other, with no block
// a device could take in parallel, and the formats that carry it (.deb data, .tar.xz sources, RPM
// payloads) are a small part of what a scanner reads next to DEFLATE and zstd.
#pragma once

// Limits. Output beyond `limit` bytes stops decoding with a resource_error, whatever the headers
// declare; a stream whose dictionary needs more than lzma_memory_limit to decode is refused before
// anything is allocated (a 16-byte .lzma header may ask for a 4 GiB dictionary).

#include <vyre/error.hpp>

#include <lzma.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

inline constexpr std::array<std::uint8_t, 6> xz_magic = {0xFD, '7', 'z', 'X', 'Z', 0x00};
inline constexpr std::size_t lzma_alone_header_size = 13; // properties, dictionary size, uncompressed size
// What one LZMA decoder may allocate (the dictionary, mostly): xz -9 needs 65 MiB.
inline constexpr std::uint64_t lzma_memory_limit = std::uint64_t{512} << 20;
// ZIP method 14's general-purpose flag bit 1: the data ends with an end-of-stream marker.
inline constexpr std::uint16_t zip_flag_lzma_eos = 0x0002;

inline bool is_xz(std::span<const std::uint8_t> d) noexcept {
    return d.size() >= xz_magic.size() && std::equal(xz_magic.begin(), xz_magic.end(), d.begin());
}

// An .lzma file has no magic number: its header is told by what a real one holds. The properties
// byte encodes lc/lp/pb (at most 224): 0x5D (lc=3 lp=0 pb=2) is what every common encoder writes,
// and 0x5E what an encoder told lc=4 writes (xz --lzma1=lc=4); the dictionary size is 2^n or
// 2^n + 2^(n-1) (what the encoders write; 4 KiB to 1.5 GiB), and the uncompressed size is unknown
// (all ones) or below 2^48. Only those two properties bytes are accepted (libarchive weighs the
// same two), so that other data (a tar entry, a binary file with small integers) is not taken
// for LZMA.
inline bool looks_like_lzma_alone(std::span<const std::uint8_t> d) noexcept {
    if (d.size() < lzma_alone_header_size || (d[0] != 0x5D && d[0] != 0x5E)) return false;
    const std::uint32_t dict = std::uint32_t{d[1]} | std::uint32_t{d[2]} << 8 | std::uint32_t{d[3]} << 16 | std::uint32_t{d[4]} << 24;
    bool dict_ok = false;
    for (unsigned n = 12; n <= 30 && !dict_ok; ++n)
        dict_ok = dict == (1u << n) || dict == (1u << n) + (1u << (n - 1));
    if (!dict_ok) return false;
    bool all_ones = true;
    for (int i = 5; i < 13; ++i) all_ones = all_ones && d[static_cast<std::size_t>(i)] == 0xFF;
    return all_ones || (d[11] == 0 && d[12] == 0);
}

// A stream whose dictionary needs more memory than lzma_memory_limit allows.
class lzma_memory_error : public resource_error {
public:
    using resource_error::resource_error;
};

namespace detail {

inline const char* lzma_result_text(lzma_ret r) {
    switch (r) {
    case LZMA_FORMAT_ERROR: return "not in the expected format (bad magic number or header)";
    case LZMA_OPTIONS_ERROR: return "uses options this liblzma does not support";
    case LZMA_DATA_ERROR: return "corrupt data";
    case LZMA_BUF_ERROR: return "truncated: the input ends inside the stream";
    case LZMA_UNSUPPORTED_CHECK: return "uses an integrity check this liblzma cannot verify";
    case LZMA_PROG_ERROR: return "invalid arguments to liblzma";
    default: return "decoding failed";
    }
}

// Runs an initialised decoder over all of `in` into a growing buffer of at most `limit` bytes.
// `codec` names the format in messages ("xz", "lzma").
inline std::vector<std::uint8_t> lzma_run(lzma_stream& s, std::span<const std::uint8_t> in, std::uint64_t limit,
                                          const char* codec, bool whole_input) {
    struct ender {
        lzma_stream& s;
        ~ender() { lzma_end(&s); }
    } end{s};
    std::vector<std::uint8_t> out;
    // A first guess: four times the input, grown by doubling up to the limit (plus one byte, to
    // see whether the content goes past it).
    const std::uint64_t cap = limit == std::numeric_limits<std::uint64_t>::max() ? limit : limit + 1;
    std::uint64_t size = std::min<std::uint64_t>(cap, std::max<std::uint64_t>(std::uint64_t{64} << 10, in.size() * std::uint64_t{4}));
    out.resize(static_cast<std::size_t>(size));
    s.next_in = in.data();
    s.avail_in = in.size();
    s.next_out = out.data();
    s.avail_out = out.size();
    for (;;) {
        const lzma_ret r = lzma_code(&s, LZMA_FINISH);
        if (r == LZMA_STREAM_END) break;
        if (r == LZMA_OK && s.avail_out > 0) continue;
        if (r == LZMA_OK) { // the buffer is full
            if (size >= cap)
                throw resource_error(std::string(codec) + ": content above the limit of " + std::to_string(limit) + " bytes");
            const std::uint64_t grown = size > cap / 2 ? cap : size * 2;
            out.resize(static_cast<std::size_t>(grown));
            s.next_out = out.data() + size;
            s.avail_out = static_cast<std::size_t>(grown - size);
            size = grown;
            continue;
        }
        if (r == LZMA_MEM_ERROR) throw std::bad_alloc();
        if (r == LZMA_MEMLIMIT_ERROR)
            throw lzma_memory_error(std::string(codec) + ": the stream needs " + std::to_string(lzma_memusage(&s) >> 20) +
                                 " MiB of memory to decode, above the limit of " + std::to_string(lzma_memory_limit >> 20) + " MiB");
        throw format_error(std::string(codec) + ": " + lzma_result_text(r), s.total_in);
    }
    if (s.total_out > limit)
        throw resource_error(std::string(codec) + ": content above the limit of " + std::to_string(limit) + " bytes");
    if (whole_input && s.avail_in != 0)
        throw format_error(std::string(codec) + ": " + std::to_string(s.avail_in) + " bytes after the end of the stream",
                           s.total_in);
    out.resize(static_cast<std::size_t>(s.total_out));
    return out;
}

} // namespace detail

// An .xz file: every stream, one after the other, and the zero padding between them. Throws
// format_error (with the input offset) for damaged or truncated input, resource_error past `limit`
// or lzma_memory_limit.
inline std::vector<std::uint8_t> xz_decompress(std::span<const std::uint8_t> in,
                                               std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()) {
    if (!is_xz(in)) throw format_error("xz: not an xz stream (no magic number)", 0);
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&s, lzma_memory_limit, LZMA_CONCATENATED) != LZMA_OK) throw std::bad_alloc();
    return detail::lzma_run(s, in, limit, "xz", true);
}

// An .lzma (LZMA_Alone) file. The format has no room for a second stream: bytes after the end of
// the stream are a format_error.
inline std::vector<std::uint8_t> lzma_alone_decompress(std::span<const std::uint8_t> in,
                                                       std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()) {
    if (in.size() < lzma_alone_header_size)
        throw format_error("lzma: " + std::to_string(in.size()) + " bytes, shorter than the 13-byte header", 0);
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_alone_decoder(&s, lzma_memory_limit) != LZMA_OK) throw std::bad_alloc();
    return detail::lzma_run(s, in, limit, "lzma", true);
}

// The data of a ZIP method-14 entry (APPNOTE 5.8.8): a 2-byte LZMA SDK version, the size of the
// properties (2 bytes, little-endian, 5 in every writer), the properties (lc/lp/pb byte and the
// dictionary size), then raw LZMA data, ended by an end-of-stream marker when `eos_marker` (the
// entry's flag bit 1) or by the entry's uncompressed size otherwise.
inline std::vector<std::uint8_t> zip_lzma_decompress(std::span<const std::uint8_t> in, std::uint64_t declared_size, bool eos_marker,
                                                     std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()) {
    if (in.size() < 9) throw format_error("lzma: " + std::to_string(in.size()) + " bytes, shorter than ZIP's 9-byte LZMA header", 0);
    const unsigned props_size = in[2] | unsigned{in[3]} << 8;
    if (props_size != 5)
        throw format_error("lzma: ZIP LZMA properties of " + std::to_string(props_size) + " bytes (5 expected)", 2);
    // The same stream with an LZMA_Alone header in front: the decoder liblzma has for it takes the
    // size (or "unknown, ended by the marker") from there.
    std::vector<std::uint8_t> alone(lzma_alone_header_size + in.size() - 9);
    std::copy(in.begin() + 4, in.begin() + 9, alone.begin());
    const std::uint64_t size = eos_marker ? ~std::uint64_t{0} : declared_size;
    for (int i = 0; i < 8; ++i) alone[static_cast<std::size_t>(5 + i)] = static_cast<std::uint8_t>(size >> (8 * i));
    std::copy(in.begin() + 9, in.end(), alone.begin() + lzma_alone_header_size);
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_alone_decoder(&s, lzma_memory_limit) != LZMA_OK) throw std::bad_alloc();
    // Writers may pad the entry after the stream; the entry's sizes are checked by the caller.
    return detail::lzma_run(s, alone, limit, "lzma", false);
}

} // namespace vyre::format
