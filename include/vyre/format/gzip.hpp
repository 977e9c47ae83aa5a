// gzip files (RFC 1952: one or more members, each header + raw deflate + CRC32/ISIZE trailer) and raw
// deflate streams (ZIP method 8), inflated on the CPU by libdeflate under a caller-supplied output limit.
#pragma once

// Why a parser inflates: a gzip member records neither its compressed size nor where the next
// member starts, so the only way to find the members of every file is to inflate each one to its
// end (gzip_decompress). The other frame parsers (LZ4, zstd) list blocks without decoding them and
// leave decoding to engine/; gzip_layout_of does the same for the files whose members can be found
// without inflating (one member, the usual .gz and .tar.gz, and BGZF files, whose members say their
// size), for engine/deflate_decompress.hpp to inflate on the device.

#include <vyre/error.hpp>
#include <vyre/format/names.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/little_endian.hpp>

#include <libdeflate.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::format {

inline constexpr std::uint8_t gzip_id1 = 0x1F;
inline constexpr std::uint8_t gzip_id2 = 0x8B;
inline constexpr std::uint8_t gzip_method_deflate = 8;
// FLG bits (RFC 1952, 2.3.1). The three high bits are reserved and must be zero.
inline constexpr std::uint8_t gzip_flag_text = 0x01;
inline constexpr std::uint8_t gzip_flag_hcrc = 0x02;
inline constexpr std::uint8_t gzip_flag_extra = 0x04;
inline constexpr std::uint8_t gzip_flag_name = 0x08;
inline constexpr std::uint8_t gzip_flag_comment = 0x10;
inline constexpr std::uint8_t gzip_flag_reserved = 0xE0;
inline constexpr std::size_t gzip_header_min_size = 10;
inline constexpr std::size_t gzip_trailer_size = 8;

// The best deflate can do is a 258-byte match coded in 2 bits, so a stream of n bytes never inflates
// to more than about 1032 n bytes. Used to refuse declared sizes no stream could produce before
// allocating for them, and to bound the first guess of an unknown size.
inline constexpr std::uint64_t deflate_max_ratio = 1032;

// One member of a gzip file. Offsets are into the gzip input; output_offset/output_size locate its
// content in the concatenated output of all members.
struct gzip_member {
    std::uint64_t offset = 0; // of the ID1 byte
    std::uint8_t flags = 0;
    std::uint32_t mtime = 0;
    std::uint8_t extra_flags = 0; // XFL
    std::uint8_t os = 0;
    std::uint64_t extra_offset = 0; // FEXTRA payload (after XLEN), extra_size bytes
    std::uint64_t extra_size = 0;
    std::string name;    // FNAME bytes as stored (ISO 8859-1 by the RFC, UTF-8 in practice)
    std::string comment; // FCOMMENT bytes as stored
    std::uint64_t deflate_offset = 0;
    std::uint64_t deflate_size = 0; // known only once the stream is inflated
    std::uint64_t trailer_offset = 0;
    std::uint32_t crc32 = 0; // stored CRC-32 of the content
    std::uint32_t isize = 0; // stored content size modulo 2^32
    std::uint64_t output_offset = 0;
    std::uint64_t output_size = 0;

    std::uint64_t end_offset() const noexcept { return trailer_offset + gzip_trailer_size; }
};

// A decompressed gzip file: every member, and their contents one after the other.
struct gzip_content {
    std::vector<gzip_member> members;
    std::vector<std::uint8_t> data;
};

// The CRC-32 of gzip and ZIP (libdeflate's), over the whole of `bytes`.
inline std::uint32_t crc32_of(std::span<const std::uint8_t> bytes) {
    return static_cast<std::uint32_t>(libdeflate_crc32(0, bytes.data(), bytes.size()));
}

namespace detail {

// One decompressor per thread: allocating one costs more than inflating a small ZIP entry.
inline libdeflate_decompressor& thread_decompressor() {
    struct holder {
        libdeflate_decompressor* d = libdeflate_alloc_decompressor();
        ~holder() { libdeflate_free_decompressor(d); }
    };
    thread_local holder h;
    if (!h.d) throw std::bad_alloc();
    return *h.d;
}

} // namespace detail

// What inflating one raw deflate stream gave (libdeflate, one decompressor per thread).
struct inflate_outcome {
    libdeflate_result result = LIBDEFLATE_BAD_DATA;
    std::size_t consumed = 0; // input bytes of the deflate stream (on success)
    std::size_t produced = 0; // output bytes (on success)
};

// Inflates one raw deflate stream from the start of `in` into `out` (which may be empty).
inline inflate_outcome inflate_into(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    std::uint8_t none = 0; // libdeflate is handed a real pointer even for an empty destination
    inflate_outcome r;
    r.result = libdeflate_deflate_decompress_ex(&detail::thread_decompressor(), in.data(), in.size(),
                                                out.empty() ? &none : out.data(), out.size(), &r.consumed,
                                                &r.produced);
    return r;
}

// The most bytes `in_size` bytes of deflate data can inflate to (deflate_max_ratio, and slack for
// tiny inputs): a declared size above it is a lie, refused before anything is allocated.
inline std::uint64_t deflate_output_bound(std::uint64_t in_size) {
    constexpr std::uint64_t slack = 64 * 1024;
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    return in_size > (max - slack) / deflate_max_ratio ? max : in_size * deflate_max_ratio + slack;
}

namespace detail {

// What inflate_append did on this thread (tests check that it stays linear in the output).
struct inflate_counters {
    std::uint64_t zero_filled = 0; // bytes the output vector was grown by (std::vector zero-fills them)
    std::uint64_t passes = 0;      // inflate calls (a short buffer costs one more)
};
inline inflate_counters& inflate_stats() {
    thread_local inflate_counters c;
    return c;
}

// Inflates the deflate stream at the start of `in` into `out` from byte `used` on (the bytes of
// `out` past `used` are room, kept between calls so that many members of one file reuse it instead
// of zero-filling a fresh buffer each); advances `used` and returns the stream's compressed size.
// The output size is unknown up front (ISIZE is a hint, modulo 2^32, and may lie): the room is
// grown to the hint, bounded by the deflate ratio and the limit, and doubled on a short buffer,
// never beyond `limit` bytes appended. Each retry inflates again; the doublings cost at most twice a
// right first guess. The room only ever grows, so every byte of it is zero-filled at most once.
inline std::uint64_t inflate_append(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::size_t& used,
                                    std::uint64_t size_hint, std::uint64_t limit, std::uint64_t base_offset) {
    const std::uint64_t room = out.size() - used;
    std::uint64_t cap = std::min({std::max<std::uint64_t>(size_hint, 64 * 1024), deflate_output_bound(in.size()), limit});
    cap = std::max(cap, std::min(room, limit)); // room already there costs nothing
    for (;;) {
        if (cap > out.max_size() - used)
            throw resource_error("deflate output of " + std::to_string(cap) + " bytes does not fit in memory");
        if (used + cap > out.size()) {
            inflate_stats().zero_filled += used + cap - out.size();
            out.resize(used + static_cast<std::size_t>(cap));
        }
        ++inflate_stats().passes;
        const inflate_outcome r = inflate_into(in, std::span<std::uint8_t>(out).subspan(used, static_cast<std::size_t>(cap)));
        if (r.result == LIBDEFLATE_SUCCESS) {
            used += r.produced;
            return r.consumed;
        }
        if (r.result != LIBDEFLATE_INSUFFICIENT_SPACE) throw format_error("invalid deflate data", base_offset);
        if (cap >= limit)
            throw resource_error("deflate stream at byte offset " + std::to_string(base_offset) +
                                 " inflates to more than the output limit of " + std::to_string(limit) + " bytes");
        cap = cap > limit / 2 ? limit : std::max<std::uint64_t>(cap * 2, 1);
    }
}

} // namespace detail

// Inflates a raw deflate stream (RFC 1951, no header) whose content size is known, as in a ZIP entry:
// exactly `expected_size` bytes, or a format_error. A size above `limit` is a resource_error before
// anything is allocated. `base_offset` is where `in` starts in the caller's file, for messages.
inline std::vector<std::uint8_t> inflate_raw(std::span<const std::uint8_t> in, std::uint64_t expected_size,
                                             std::uint64_t limit, std::uint64_t base_offset = 0) {
    if (expected_size > limit)
        throw resource_error("deflate stream at byte offset " + std::to_string(base_offset) + " declares " +
                             std::to_string(expected_size) + " bytes, above the output limit of " +
                             std::to_string(limit));
    if (expected_size > deflate_output_bound(in.size()))
        throw format_error("deflate stream of " + std::to_string(in.size()) + " bytes cannot inflate to the " +
                               std::to_string(expected_size) + " bytes declared for it",
                           base_offset);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(expected_size));
    const inflate_outcome r = inflate_into(in, out);
    if (r.result == LIBDEFLATE_INSUFFICIENT_SPACE)
        throw format_error("deflate stream inflates to more than the " + std::to_string(expected_size) +
                               " bytes declared for it",
                           base_offset);
    if (r.result != LIBDEFLATE_SUCCESS) throw format_error("invalid deflate data", base_offset);
    if (r.produced != expected_size)
        throw format_error("deflate stream inflates to " + std::to_string(r.produced) + " bytes, " +
                               std::to_string(expected_size) + " were declared for it",
                           base_offset);
    return out;
}

// Reads the member header at `offset`: every field up to the start of the deflate stream
// (deflate_offset). The FHCRC header checksum, when present, is verified.
inline gzip_member parse_gzip_header(std::span<const std::uint8_t> in, std::uint64_t offset) {
    const auto need = [&](std::uint64_t at, std::uint64_t count, const char* what) {
        const std::uint64_t left = at <= in.size() ? in.size() - at : 0;
        if (count > left)
            throw format_error(std::string("truncated gzip header: ") + what + " needs " + std::to_string(count) +
                                   " bytes, " + std::to_string(left) + " remain",
                               at);
    };
    const auto zero_terminated = [&](std::uint64_t at, const char* what) {
        const std::uint64_t left = at <= in.size() ? in.size() - at : 0;
        const void* nul = left ? std::memchr(in.data() + at, 0, static_cast<std::size_t>(left)) : nullptr;
        if (!nul) throw format_error(std::string("truncated gzip header: the ") + what + " has no terminating zero byte", at);
        return std::string(reinterpret_cast<const char*>(in.data() + at), static_cast<const std::uint8_t*>(nul) - (in.data() + at));
    };
    need(offset, gzip_header_min_size, "fixed header");
    gzip_member m;
    m.offset = offset;
    if (in[offset] != gzip_id1 || in[offset + 1] != gzip_id2)
        throw format_error("not a gzip member: magic bytes " + util::hex(in[offset], 2) + " " +
                               util::hex(in[offset + 1], 2) + " (expected 0x1F 0x8B)",
                           offset);
    if (in[offset + 2] != gzip_method_deflate)
        throw format_error("gzip compression method " + std::to_string(in[offset + 2]) + " is not deflate (8)", offset + 2);
    m.flags = in[offset + 3];
    if (m.flags & gzip_flag_reserved)
        throw format_error("reserved gzip flag bits are set in FLG " + util::hex(m.flags, 2), offset + 3);
    m.mtime = util::read_le32(in, offset + 4);
    m.extra_flags = in[offset + 8];
    m.os = in[offset + 9];
    std::uint64_t p = offset + gzip_header_min_size;
    if (m.flags & gzip_flag_extra) {
        need(p, 2, "XLEN");
        const std::uint16_t xlen = util::read_le16(in, p);
        need(p + 2, xlen, "extra field (FEXTRA)");
        m.extra_offset = p + 2;
        m.extra_size = xlen;
        p += 2 + std::uint64_t{xlen};
    }
    if (m.flags & gzip_flag_name) {
        m.name = zero_terminated(p, "file name (FNAME)");
        p += m.name.size() + 1;
    }
    if (m.flags & gzip_flag_comment) {
        m.comment = zero_terminated(p, "comment (FCOMMENT)");
        p += m.comment.size() + 1;
    }
    if (m.flags & gzip_flag_hcrc) {
        need(p, 2, "header CRC (FHCRC)");
        const std::uint16_t stored = util::read_le16(in, p);
        const auto computed = static_cast<std::uint16_t>(crc32_of(in.subspan(offset, p - offset)));
        if (stored != computed)
            throw format_error("gzip header CRC mismatch: stored " + util::hex(stored, 4) + ", computed " +
                                   util::hex(computed, 4),
                               p);
        p += 2;
    }
    m.deflate_offset = p;
    return m;
}

// Decompresses a whole gzip file: every member in order, each CRC-32 and ISIZE verified. Zero bytes
// after the last member are accepted as padding (tape blocks, as gzip itself does); other trailing
// bytes are a format_error. Output beyond `limit` bytes in total stops with a resource_error,
// whatever the members' ISIZE fields claim.
inline gzip_content gzip_decompress(std::span<const std::uint8_t> in,
                                    std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()) {
    if (in.empty()) throw format_error("empty input is not a gzip file", 0);
    gzip_content out;
    std::uint64_t pos = 0;
    // The last ISIZE of the file is the usual single member's exact size: a first guess only. The
    // room it makes is kept for the members after the first (inflate_append), never made again.
    const std::uint32_t hint = in.size() >= 4 ? util::read_le32(in, in.size() - 4) : 0;
    std::size_t used = 0; // bytes of out.data that are content; the rest is room
    while (pos < in.size()) {
        if (!out.members.empty()) {
            const auto rest = in.subspan(static_cast<std::size_t>(pos));
            if (std::all_of(rest.begin(), rest.end(), [](std::uint8_t b) { return b == 0; })) break;
            if (rest.size() < 2 || rest[0] != gzip_id1 || rest[1] != gzip_id2)
                throw format_error("unexpected bytes after gzip member " + std::to_string(out.members.size()) +
                                       " (neither a gzip header nor zero padding)",
                                   pos);
        }
        gzip_member m = parse_gzip_header(in, pos);
        m.output_offset = used;
        m.deflate_size = detail::inflate_append(in.subspan(static_cast<std::size_t>(m.deflate_offset)), out.data, used,
                                                out.members.empty() ? hint : 0, limit - used, m.deflate_offset);
        m.output_size = used - m.output_offset;
        m.trailer_offset = m.deflate_offset + m.deflate_size;
        if (in.size() - m.trailer_offset < gzip_trailer_size)
            throw format_error("truncated gzip member: the trailer (CRC-32, ISIZE) needs 8 bytes, " +
                                   std::to_string(in.size() - m.trailer_offset) + " remain",
                               m.trailer_offset);
        m.crc32 = util::read_le32(in, m.trailer_offset);
        m.isize = util::read_le32(in, m.trailer_offset + 4);
        const auto content = std::span<const std::uint8_t>(out.data).subspan(static_cast<std::size_t>(m.output_offset),
                                                                              static_cast<std::size_t>(m.output_size));
        if (const std::uint32_t computed = crc32_of(content); computed != m.crc32)
            throw format_error("gzip CRC-32 mismatch: stored " + util::hex(m.crc32, 8) + ", computed " +
                                   util::hex(computed, 8),
                               m.trailer_offset);
        if (static_cast<std::uint32_t>(m.output_size) != m.isize)
            throw format_error("gzip ISIZE is " + std::to_string(m.isize) + ", the member inflates to " +
                                   std::to_string(m.output_size) + " bytes",
                               m.trailer_offset + 4);
        pos = m.end_offset();
        out.members.push_back(std::move(m));
    }
    out.data.resize(used);
    return out;
}

// ---- members found without inflating ------------------------------------------------------------

// BGZF (the blocked gzip of SAM/BAM, tabix and bgzip): every member carries an FEXTRA subfield
// SI1 'B', SI2 'C', LEN 2 whose value, BSIZE, is the whole member's size minus 1.
inline constexpr std::uint8_t bgzf_si1 = 'B';
inline constexpr std::uint8_t bgzf_si2 = 'C';

// The member's size by its BGZF subfield, or nothing when it has none. Subfields (RFC 1952,
// 2.3.1.1: SI1, SI2, LEN, then LEN bytes) are walked while they fit in the extra field; one that
// does not fit ends the walk, as gzip itself ignores the field's content.
inline std::optional<std::uint64_t> gzip_bgzf_member_size(std::span<const std::uint8_t> in, const gzip_member& m) {
    if (!(m.flags & gzip_flag_extra)) return std::nullopt;
    const std::uint64_t end = m.extra_offset + m.extra_size;
    for (std::uint64_t p = m.extra_offset; end - p >= 4;) {
        const std::uint16_t len = util::read_le16(in, p + 2);
        if (len > end - p - 4) break;
        if (in[p] == bgzf_si1 && in[p + 1] == bgzf_si2 && len == 2) return std::uint64_t{util::read_le16(in, p + 4)} + 1;
        p += 4 + std::uint64_t{len};
    }
    return std::nullopt;
}

// How a file's members were found: as one member, by their BGZF sizes, or not at all.
enum class gzip_layout_kind { single, bgzf, unknown };

inline const char* gzip_layout_kind_name(gzip_layout_kind k) noexcept {
    switch (k) {
    case gzip_layout_kind::single: return "single";
    case gzip_layout_kind::bgzf: return "bgzf";
    case gzip_layout_kind::unknown: return "unknown";
    }
    return "?";
}

// Where a gzip file's members are, as far as their headers and trailers tell without inflating:
//   single   the file read as one member: its deflate stream runs from the end of its header to
//            the last 8 bytes of the file, which are its trailer (CRC-32, ISIZE);
//   bgzf     the first member has a BGZF size, and so has every member after it (zero bytes
//            after the last one are padding, as in gzip_decompress);
//   unknown  anything else, `why` says what: only inflating finds the members (gzip_decompress).
// Each member's deflate_size, trailer_offset, crc32 and isize are what that reading gives, and
// output_size is its ISIZE (the content size modulo 2^32), output_offset the ISIZEs before it.
// Nothing is inflated, so the reading is what the trailers claim: whoever inflates a member checks
// its content against crc32 and output_size, and inflates the file with gzip_decompress when one
// differs. A file of several plain members (`cat a.gz b.gz`) read as one member fails that check:
// its first stream ends at its own final block, whose content is not what the last trailer
// describes. It could pass only where the first member's own trailer is the same 8 bytes as the
// last one (`cat a.gz a.gz`); so a reading is refused (unknown) when a member's trailer bytes
// occur inside its deflate bytes, wherever a member boundary could hide. Also refused: an ISIZE
// larger than deflate_output_bound of the member's deflate bytes (no stream could make it: a
// truncated file, whose last 8 bytes are deflate data), and a trailer that overlaps the header.
// What the checks leave unseen: bytes between a stream's final block and its trailer that are
// not a trailer, which gzip_decompress refuses and the reading ignores. A broken header is a
// format_error, as in gzip_decompress.
struct gzip_layout {
    gzip_layout_kind kind = gzip_layout_kind::unknown;
    std::vector<gzip_member> members; // single: one; bgzf: every member; unknown: none
    std::uint64_t output_size = 0;    // the members' ISIZEs added up
    std::string why;                  // unknown: why the members cannot be found without inflating
};

namespace detail {

// The trailer at m.trailer_offset read into m; an empty string when the member passes the checks
// above, else why it does not.
inline std::string read_gzip_trailer(std::span<const std::uint8_t> in, gzip_member& m, std::size_t index) {
    const std::string who = "member " + std::to_string(index) + " (byte offset " + std::to_string(m.offset) + ")";
    if (m.trailer_offset < m.deflate_offset || m.trailer_offset + gzip_trailer_size > in.size())
        return who + ": no room for a deflate stream and a trailer after its header";
    m.deflate_size = m.trailer_offset - m.deflate_offset;
    m.crc32 = util::read_le32(in, m.trailer_offset);
    m.isize = util::read_le32(in, m.trailer_offset + 4);
    if (m.isize > deflate_output_bound(m.deflate_size))
        return who + ": ISIZE " + std::to_string(m.isize) + " is more than " + std::to_string(m.deflate_size) +
               " deflate bytes can make (not a trailer)";
    const auto stream = in.subspan(static_cast<std::size_t>(m.deflate_offset), static_cast<std::size_t>(m.deflate_size));
    const auto trailer = in.subspan(static_cast<std::size_t>(m.trailer_offset), gzip_trailer_size);
    const auto hit = std::search(stream.begin(), stream.end(), std::boyer_moore_horspool_searcher(trailer.begin(), trailer.end()));
    if (hit != stream.end())
        return who + ": its trailer's 8 bytes also occur at byte offset " +
               std::to_string(m.deflate_offset + static_cast<std::uint64_t>(hit - stream.begin())) +
               ", where another member could start";
    return {};
}

} // namespace detail

inline gzip_layout gzip_layout_of(std::span<const std::uint8_t> in) {
    if (in.empty()) throw format_error("empty input is not a gzip file", 0);
    gzip_layout out;
    const auto give_up = [&](std::string why) {
        out.kind = gzip_layout_kind::unknown;
        out.members.clear();
        out.output_size = 0;
        out.why = std::move(why);
        return out;
    };
    gzip_member first = parse_gzip_header(in, 0);
    if (!gzip_bgzf_member_size(in, first)) {
        first.trailer_offset = in.size() >= gzip_trailer_size ? in.size() - gzip_trailer_size : 0;
        if (std::string why = detail::read_gzip_trailer(in, first, 0); !why.empty()) return give_up("read as one member, " + why);
        first.output_size = first.isize;
        out.kind = gzip_layout_kind::single;
        out.output_size = first.isize;
        out.members.push_back(std::move(first));
        return out;
    }
    out.kind = gzip_layout_kind::bgzf;
    for (std::uint64_t pos = 0; pos < in.size();) {
        const auto rest = in.subspan(static_cast<std::size_t>(pos));
        if (!out.members.empty() && std::all_of(rest.begin(), rest.end(), [](std::uint8_t b) { return b == 0; })) break;
        const std::string who = "BGZF member " + std::to_string(out.members.size()) + " (byte offset " + std::to_string(pos) + ")";
        if (rest.size() < 2 || rest[0] != gzip_id1 || rest[1] != gzip_id2)
            return give_up(who + ": neither a gzip header nor zero padding");
        gzip_member m = parse_gzip_header(in, pos);
        const std::optional<std::uint64_t> size = gzip_bgzf_member_size(in, m);
        if (!size) return give_up(who + ": no BGZF size in its header");
        if (*size > in.size() - pos)
            return give_up(who + ": its BGZF size of " + std::to_string(*size) + " bytes runs past the end of the file");
        m.trailer_offset = *size >= gzip_trailer_size ? pos + *size - gzip_trailer_size : 0; // 0: read_gzip_trailer says why
        if (std::string why = detail::read_gzip_trailer(in, m, out.members.size()); !why.empty()) return give_up("BGZF " + why);
        m.output_offset = out.output_size;
        m.output_size = m.isize;
        out.output_size += m.isize;
        pos += *size;
        out.members.push_back(std::move(m));
    }
    return out;
}

} // namespace vyre::format
