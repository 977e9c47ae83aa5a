// bzip2 streams, decoded on the host by libbz2 (Debian's libbz2-dev): .bz2 files, several streams
// one after another included (what pbzip2 and lbzip2 write, and what `bzip2 -d` reads), and the
// entries of ZIP method 12. Like LZMA this stays on the host: bzip2 is rare in what a scanner reads
// (old source tarballs, a few ZIPs), and its blocks, though independent, start at bit offsets that
// only a search for their 48-bit magic number finds.
#pragma once

// Limits. Output beyond `limit` bytes stops decoding with a resource_error, whatever the content;
// a decoder needs at most 3.6 MiB (900 KiB blocks), so no memory limit is needed beyond that.
// After the last stream, zero bytes are accepted as padding (tape blocks, as gzip_decompress does);
// any other trailing byte is a format_error naming its offset.

#include <vyre/error.hpp>

#include <bzlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

// "BZh", the block size '1'..'9', then the first block's magic (the digits of pi) or, for an empty
// stream, the end-of-stream magic (those of sqrt(pi)).
inline bool is_bzip2(std::span<const std::uint8_t> d) noexcept {
    if (d.size() < 10 || d[0] != 'B' || d[1] != 'Z' || d[2] != 'h' || d[3] < '1' || d[3] > '9') return false;
    static constexpr std::uint8_t block[6] = {0x31, 0x41, 0x59, 0x26, 0x53, 0x59};
    static constexpr std::uint8_t end[6] = {0x17, 0x72, 0x45, 0x38, 0x50, 0x90};
    return std::equal(block, block + 6, d.begin() + 4) || std::equal(end, end + 6, d.begin() + 4);
}

namespace detail {

inline const char* bzip2_result_text(int r) {
    switch (r) {
    case BZ_DATA_ERROR: return "corrupt data (a block's CRC or its coding is wrong)";
    case BZ_DATA_ERROR_MAGIC: return "not a bzip2 stream (bad magic number)";
    case BZ_PARAM_ERROR: return "invalid arguments to libbz2";
    default: return "decoding failed";
    }
}

} // namespace detail

// A .bz2 file (or a ZIP method-12 entry): every stream, one after the other. Throws format_error
// (with the input offset) for damaged or truncated input, resource_error past `limit`.
inline std::vector<std::uint8_t> bzip2_decompress(std::span<const std::uint8_t> in,
                                                  std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()) {
    if (!is_bzip2(in)) throw format_error("bzip2: not a bzip2 stream (no magic number)", 0);
    const std::uint64_t cap = limit == std::numeric_limits<std::uint64_t>::max() ? limit : limit + 1;
    std::uint64_t size = std::min<std::uint64_t>(cap, std::max<std::uint64_t>(std::uint64_t{64} << 10, in.size() * std::uint64_t{5}));
    std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
    std::uint64_t pos = 0, produced = 0;
    while (pos < in.size()) {
        if (!is_bzip2(in.subspan(static_cast<std::size_t>(pos)))) {
            if (std::all_of(in.begin() + static_cast<std::ptrdiff_t>(pos), in.end(), [](std::uint8_t b) { return b == 0; })) break;
            throw format_error("bzip2: " + std::to_string(in.size() - pos) + " bytes after the last stream are not a bzip2 stream", pos);
        }
        bz_stream s{};
        if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK) throw std::bad_alloc();
        struct ender {
            bz_stream& s;
            ~ender() { BZ2_bzDecompressEnd(&s); }
        } end{s};
        // libbz2 counts in unsigned int: feed and drain at most 1 GiB at a time.
        constexpr std::uint64_t step = std::uint64_t{1} << 30;
        std::uint64_t fed = pos;
        for (;;) {
            if (s.avail_in == 0 && fed < in.size()) {
                const std::uint64_t n = std::min(step, in.size() - fed);
                s.next_in = const_cast<char*>(reinterpret_cast<const char*>(in.data() + fed));
                s.avail_in = static_cast<unsigned>(n);
                fed += n;
            }
            if (produced == size) {
                if (size >= cap)
                    throw resource_error("bzip2: content above the limit of " + std::to_string(limit) + " bytes");
                size = size > cap / 2 ? cap : size * 2;
                out.resize(static_cast<std::size_t>(size));
            }
            const std::uint64_t room = std::min(step, size - produced);
            s.next_out = reinterpret_cast<char*>(out.data() + produced);
            s.avail_out = static_cast<unsigned>(room);
            const std::uint64_t in_before = fed - s.avail_in;
            const int r = BZ2_bzDecompress(&s);
            produced += room - s.avail_out;
            const std::uint64_t at = fed - s.avail_in;
            if (r == BZ_STREAM_END) {
                pos = at;
                break;
            }
            if (r == BZ_MEM_ERROR) throw std::bad_alloc();
            if (r != BZ_OK) throw format_error(std::string("bzip2: ") + detail::bzip2_result_text(r), at);
            if (at == in_before && room == s.avail_out && fed == in.size())
                throw format_error("bzip2: truncated: the input ends inside the stream", in.size());
        }
    }
    if (produced > limit) throw resource_error("bzip2: content above the limit of " + std::to_string(limit) + " bytes");
    out.resize(static_cast<std::size_t>(produced));
    return out;
}

} // namespace vyre::format
