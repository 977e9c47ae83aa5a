// tar archives: v7, POSIX ustar, GNU (long names and link targets in 'L'/'K' entries, base-256 numbers)
// and pax (extended headers 'x' and 'g'). Lists every entry with its metadata and where its data lies.
#pragma once

// What other readers accept is accepted (libarchive, GNU tar and Python's tarfile agree on it):
//   - Solaris tar's 'X' extended header is read as pax's 'x';
//   - Solaris ACL ('A') and extended-attribute ('E') headers describe the entry after them and are
//     skipped with their data; a GNU volume label ('V') is skipped;
//   - any other type flag (vendor extensions 'A' to 'Z', unknown digits) is a regular file whose
//     data follows, as those readers extract it;
//   - a pax number followed by junk ("1234567890junk") is the number its leading digits make.

// A tar archive has no index: each 512-byte header says how much data follows it, and the next
// header comes after that data, padded to 512 bytes. So one header that cannot be trusted (bad
// checksum, unreadable size, data past the end) leaves no way to find the rest: those are
// format_errors for the whole archive, naming the entry and the byte offset.

#include <vyre/error.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/format/names.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::format {

inline constexpr std::size_t tar_block_size = 512;
// A header's magic field: "ustar\0" in POSIX ustar (and pax) headers, "ustar  \0" in GNU ones, none
// in v7 ones. Both begin with tar_magic_prefix, which is what content detection looks for.
inline constexpr std::size_t tar_magic_offset = 257;
inline constexpr std::string_view tar_magic_prefix = "ustar";
inline constexpr std::string_view tar_ustar_magic{"ustar\0", 6};
inline constexpr std::string_view tar_gnu_magic{"ustar  \0", 8};

enum class tar_entry_type { regular, hard_link, symlink, character_device, block_device, directory, fifo, sparse, other };

inline const char* tar_entry_type_name(tar_entry_type t) noexcept {
    switch (t) {
    case tar_entry_type::regular: return "regular";
    case tar_entry_type::hard_link: return "hard link";
    case tar_entry_type::symlink: return "symlink";
    case tar_entry_type::character_device: return "character device";
    case tar_entry_type::block_device: return "block device";
    case tar_entry_type::directory: return "directory";
    case tar_entry_type::fifo: return "fifo";
    case tar_entry_type::sparse: return "sparse file";
    case tar_entry_type::other: return "other";
    }
    return "unknown";
}

struct tar_sparse_segment {
    std::uint64_t offset = 0; // in the file
    std::uint64_t bytes = 0;
};

// The header layout the entry's own header block uses; pax when an extended header applied to it.
enum class tar_header_format { v7, ustar, gnu, pax };

struct tar_entry {
    // The full path, as stored: pax path, else GNU long name, else ustar prefix + '/' + name.
    // Not checked for "..", leading '/' or anything else (the caller decides what is safe).
    std::string name;
    std::string link_target; // symlinks and hard links
    tar_entry_type type = tar_entry_type::regular;
    char typeflag = '0';
    tar_header_format format = tar_header_format::v7;
    std::uint32_t mode = 0; // permission bits (the header's mode field)
    std::uint64_t uid = 0;
    std::uint64_t gid = 0;
    std::int64_t mtime = 0; // seconds since the epoch (pax fractions are dropped)
    std::string uname;
    std::string gname;
    std::uint32_t dev_major = 0;
    std::uint32_t dev_minor = 0;
    // Bytes of data that follow the header in the archive: the file's content for regular files;
    // 0 for links, directories and devices. For sparse files, the packed data (tar_sparse_content
    // expands it).
    std::uint64_t size = 0;
    // Sparse files, in GNU tar's formats (old GNU 'S' headers; pax formats 0.0, 0.1 and 1.0): the
    // file's size, and its data segments in order (where in the file, how many bytes), whose bytes
    // follow one another in the entry's data. Format 1.0 keeps the map at the start of the data
    // instead (sparse_map_in_data), in decimal lines padded to 512 bytes.
    std::uint64_t sparse_size = 0;
    std::vector<tar_sparse_segment> sparse_map;
    bool sparse_map_in_data = false;
    // Why the sparse map could not be read (a field that is no number, records that do not fit
    // together), or empty: the entry is damaged, the archive after it is not.
    std::string sparse_problem;
    std::uint64_t first_header_offset = 0; // of the first 'L', 'K' or 'x' header that applies, else header_offset
    std::uint64_t header_offset = 0;       // of the entry's own header block
    std::uint64_t data_offset = 0;         // header_offset + 512 (later for GNU sparse extension blocks)
};

struct tar_archive {
    std::vector<tar_entry> entries;
    // Records of global pax headers ('g'), applied to every entry that follows; later ones win.
    std::map<std::string, std::string> global_pax;
    std::uint64_t end_offset = 0; // the first end-of-archive zero block, or the end of the input
    bool end_marker = false;      // false: the input ended without an end-of-archive block
    // parse_tar_prefix only: the input ended inside an entry (or its extension headers), which
    // starts at end_offset.
    bool cut_short = false;
    // What was passed over and how (a malformed pax record), with its byte offset.
    std::vector<std::string> warnings;
};

namespace detail {

inline std::string tar_octal(std::int64_t v) {
    const auto magnitude = v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s0%llo", v < 0 ? "-" : "", magnitude);
    return buf;
}

// A NUL-terminated field, or the whole field when it has no NUL (a 100-byte name fills its field).
inline std::string tar_string(std::span<const std::uint8_t> field) {
    const auto end = std::find(field.begin(), field.end(), std::uint8_t{0});
    return std::string(field.begin(), end);
}

// Octal ASCII (leading and trailing spaces, NUL-terminated or not; empty reads as 0) or, with the
// high bit of the first byte set, GNU base-256: big-endian two's complement (0x80 positive, 0xFF
// negative). Empty optional: not a number, or beyond 64-bit signed.
inline std::optional<std::int64_t> tar_number(std::span<const std::uint8_t> field) {
    if (field.empty()) return 0;
    if (field[0] & 0x80) {
        const bool negative = (field[0] & 0x40) != 0;
        const auto byte = [&](std::size_t i) {
            const std::uint8_t b = i == 0 ? static_cast<std::uint8_t>(field[0] & 0x3F) : field[i];
            return negative ? static_cast<std::uint8_t>(~b & (i == 0 ? 0x3F : 0xFF)) : b;
        };
        std::uint64_t magnitude = 0; // of the value, or of -(value + 1) when negative
        for (std::size_t i = 0; i < field.size(); ++i) {
            if (magnitude > (std::uint64_t{std::numeric_limits<std::int64_t>::max()} >> 8)) return std::nullopt;
            magnitude = magnitude << 8 | byte(i);
        }
        const auto m = static_cast<std::int64_t>(magnitude);
        return negative ? -m - 1 : m;
    }
    std::size_t end = std::find(field.begin(), field.end(), std::uint8_t{0}) - field.begin();
    std::size_t begin = 0;
    while (begin < end && field[begin] == ' ') ++begin;
    while (end > begin && field[end - 1] == ' ') --end;
    std::int64_t v = 0; // at most 12 octal digits: far below overflow
    for (std::size_t i = begin; i < end; ++i) {
        if (field[i] < '0' || field[i] > '7') return std::nullopt;
        v = v * 8 + (field[i] - '0');
    }
    return v;
}

// The stored checksum of a header block, and whether it matches: the sum of the block's bytes with
// the checksum field read as spaces. Old tars summed signed chars; GNU tar accepts both, so do we.
struct tar_checksum {
    std::optional<std::int64_t> stored;
    std::int64_t unsigned_sum = 0;
    std::int64_t signed_sum = 0;
    bool ok() const noexcept { return stored && (*stored == unsigned_sum || *stored == signed_sum); }
};

inline tar_checksum tar_header_checksum(std::span<const std::uint8_t> block) {
    tar_checksum c;
    c.stored = tar_number(block.subspan(148, 8));
    for (std::size_t i = 0; i < tar_block_size; ++i) {
        const std::uint8_t b = (i >= 148 && i < 156) ? std::uint8_t{' '} : block[i];
        c.unsigned_sum += b;
        c.signed_sum += static_cast<std::int8_t>(b);
    }
    return c;
}

inline bool tar_zero_block(std::span<const std::uint8_t> block) {
    return std::all_of(block.begin(), block.end(), [](std::uint8_t b) { return b == 0; });
}

// Records of one pax header: "<length> <key>=<value>\n", the length counting the whole record.
// A malformed record throws; or, given `warnings`, ends this header's records there (those before
// it apply) and is described in `warnings`, as libarchive and Python's tarfile pass over it: the
// header's size is known from its ustar header, so the entries after it are still readable, and a
// reader that stopped would hide them while tar extracts them.
inline void tar_pax_records(std::span<const std::uint8_t> data, std::uint64_t data_offset,
                            std::map<std::string, std::string>& into, std::vector<std::string>* warnings = nullptr) {
    std::size_t p = 0;
    while (p < data.size()) {
        if (data[p] == 0) break; // some writers pad the header data with NULs
        const std::uint64_t at = data_offset + p;
        const auto malformed = [&](const std::string& why, std::uint64_t where) {
            if (!warnings) throw format_error(why, where);
            warnings->push_back(why + " (at byte offset " + std::to_string(where) + "); the rest of that pax header is ignored");
        };
        std::size_t q = p;
        std::uint64_t length = 0;
        while (q < data.size() && data[q] >= '0' && data[q] <= '9' && q - p < 18) length = length * 10 + (data[q++] - '0');
        if (q == p || q >= data.size() || data[q] != ' ')
            return malformed("malformed pax record: expected \"<length> <key>=<value>\\n\"", at);
        if (length < q - p + 4)
            return malformed("pax record length " + std::to_string(length) + " is too short for \"<length> <key>=<value>\\n\"", at);
        if (length > data.size() - p)
            return malformed("pax record length " + std::to_string(length) + " does not fit in its header data (" +
                                 std::to_string(data.size() - p) + " bytes remain)",
                             at);
        const auto record = data.subspan(q + 1, static_cast<std::size_t>(length) - (q + 1 - p));
        if (record.back() != '\n') return malformed("pax record does not end with a newline", at + length - 1);
        const auto eq = std::find(record.begin(), record.end(), std::uint8_t{'='});
        if (eq == record.begin() || eq == record.end()) return malformed("pax record has no \"key=value\"", at);
        std::string key(record.begin(), eq), value(eq + 1, record.end() - 1);
        // GNU sparse format 0.0 repeats these two keys, one pair per segment: all are kept, in order.
        const auto repeated = into.find(key);
        if ((key == "GNU.sparse.offset" || key == "GNU.sparse.numbytes") && repeated != into.end())
            repeated->second += "," + value;
        else
            into[std::move(key)] = std::move(value);
        p += static_cast<std::size_t>(length);
    }
}

// Decimal pax values. mtime may be negative and carry a fraction (dropped, rounding down). Junk after
// the number is ignored, as libarchive ignores it; no digit at all is no number.
inline std::optional<std::int64_t> tar_pax_integer(std::string_view v, bool allow_sign_and_fraction) {
    const auto digits_end = [](std::string_view t, std::size_t from) {
        while (from < t.size() && t[from] >= '0' && t[from] <= '9') ++from;
        return from;
    };
    {
        // Cut the junk: [-]digits[.digits] where allowed, digits otherwise.
        std::size_t end = allow_sign_and_fraction && !v.empty() && v[0] == '-' ? 1 : 0;
        end = digits_end(v, end);
        if (allow_sign_and_fraction && end < v.size() && v[end] == '.') end = digits_end(v, end + 1);
        v = v.substr(0, end);
    }
    bool negative = false;
    if (allow_sign_and_fraction && !v.empty() && v[0] == '-') {
        negative = true;
        v.remove_prefix(1);
    }
    bool fraction = false;
    if (allow_sign_and_fraction) {
        if (const auto dot = v.find('.'); dot != std::string_view::npos) {
            const auto frac = v.substr(dot + 1);
            if (!std::all_of(frac.begin(), frac.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
            fraction = frac.find_first_not_of('0') != std::string_view::npos;
            v = v.substr(0, dot);
        }
    }
    if (v.empty() || v.size() > 18) return std::nullopt;
    std::int64_t n = 0;
    for (const char c : v) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return negative ? -n - (fraction ? 1 : 0) : n;
}

inline tar_entry_type tar_type_of(char typeflag, const std::string& name) {
    switch (typeflag) {
    case '0':
    case '7': return tar_entry_type::regular;
    case '\0': // old tars marked directories by a trailing slash alone
        return !name.empty() && name.back() == '/' ? tar_entry_type::directory : tar_entry_type::regular;
    case '1': return tar_entry_type::hard_link;
    case '2': return tar_entry_type::symlink;
    case '3': return tar_entry_type::character_device;
    case '4': return tar_entry_type::block_device;
    case '5':
    case 'D': return tar_entry_type::directory; // 'D': GNU dumpdir, a directory with a listing as data
    case '6': return tar_entry_type::fifo;
    case 'S': return tar_entry_type::sparse;
    default: return tar_entry_type::regular; // vendor extensions and unknown flags: a file, as other readers extract it
    }
}

// Headers that describe the entry after them ('L', 'K', 'x' and Solaris's 'X', 'A', 'E') or the
// archive ('g', and GNU's volume label 'V'): not entries of their own.
inline bool tar_extension_header(char typeflag) {
    switch (typeflag) {
    case 'L':
    case 'K':
    case 'x':
    case 'X':
    case 'A':
    case 'E':
    case 'g':
    case 'V': return true;
    default: return false;
    }
}

// Link, directory and device headers carry no data whatever their size field says (as Python's
// tarfile reads them); every other type, known or not, is followed by `size` bytes.
inline bool tar_type_has_data(char typeflag) {
    return typeflag < '1' || typeflag > '6';
}

} // namespace detail

} // namespace vyre::format

// The parser: headers read one after another, extension headers folded into their entry (after the
// types and helpers above).
#include <vyre/format/detail/tar_parser.hpp>

namespace vyre::format {

// Whether a 512-byte block is a tar header by its checksum (either sum), as content detection needs.
inline bool tar_header_checksum_ok(std::span<const std::uint8_t> block) {
    return block.size() >= tar_block_size && !detail::tar_zero_block(block.first(tar_block_size)) &&
           detail::tar_header_checksum(block.first(tar_block_size)).ok();
}

// Lists a tar archive's entries in order. Extension headers ('L', 'K', 'x', 'g') are folded into the
// entries they describe. Stops at the first zero block (the end marker; GNU tar writes two) or at
// the end of the input.
inline tar_archive parse_tar(std::span<const std::uint8_t> data) {
    return detail::tar_parser(data).run();
}

// The whole entries at the start of `data`, which may end inside one (a window of a tar being
// decoded): entries that end (padding included) within `data`, and in end_offset where the first
// that does not starts (cut_short) or where the archive ends. A damaged header still throws.
inline tar_archive parse_tar_prefix(std::span<const std::uint8_t> data) {
    return detail::tar_parser(data, true).run();
}

// One pax global header ('g') holding `records` (an empty value kept: it deletes the key), with its
// data padded to 512 bytes: what parse_tar reads back as those global records.
inline std::vector<std::uint8_t> tar_pax_global_header(const std::map<std::string, std::string>& records) {
    std::string data;
    for (const auto& [key, value] : records) {
        const std::string body = " " + key + "=" + value + "\n";
        std::size_t length = body.size() + 1; // the length counts its own digits
        while (std::to_string(length).size() + body.size() != length) ++length;
        data += std::to_string(length) + body;
    }
    std::vector<std::uint8_t> out(tar_block_size, 0);
    const std::string_view name = "././@PaxGlobalHeader";
    std::copy(name.begin(), name.end(), out.begin());
    const auto octal = [&](std::size_t at, std::size_t width, std::uint64_t v) {
        char field[24];
        std::snprintf(field, sizeof field, "%0*llo", static_cast<int>(width - 1), static_cast<unsigned long long>(v));
        std::copy(field, field + width - 1, out.begin() + static_cast<std::ptrdiff_t>(at));
    };
    octal(100, 8, 0644);
    octal(108, 8, 0);
    octal(116, 8, 0);
    octal(124, 12, data.size());
    octal(136, 12, 0);
    out[156] = 'g';
    std::copy(tar_ustar_magic.begin(), tar_ustar_magic.end(), out.begin() + tar_magic_offset);
    out[263] = out[264] = '0';
    std::fill_n(out.begin() + 148, 8, std::uint8_t{' '});
    std::uint64_t sum = 0;
    for (const std::uint8_t b : out) sum += b;
    octal(148, 7, sum);
    out.insert(out.end(), data.begin(), data.end());
    out.resize((out.size() + tar_block_size - 1) / tar_block_size * tar_block_size, 0);
    return out;
}

// A sparse file's content (the entry's data expanded by its map, zeros in the holes), at most
// `limit` bytes. Throws format_error where the map does not hold together: segments out of order,
// overlapping or past the file's size, or bytes that do not add up to the entry's data; and
// resource_error where the file is larger than `limit`.
inline std::vector<std::uint8_t> tar_sparse_content(std::span<const std::uint8_t> data, const tar_entry& e, std::uint64_t limit) {
    const auto fail = [&](const std::string& why, std::uint64_t at) -> void {
        throw format_error("tar entry " + archive_quote(e.name) + " (a GNU sparse file): " + why, at);
    };
    if (!e.sparse_problem.empty()) fail(e.sparse_problem, e.first_header_offset);
    if (e.data_offset > data.size() || e.size > data.size() - e.data_offset) fail("data lies outside the archive", e.data_offset);
    std::span<const std::uint8_t> packed = data.subspan(static_cast<std::size_t>(e.data_offset), static_cast<std::size_t>(e.size));
    std::vector<tar_sparse_segment> map = e.sparse_map;
    if (e.sparse_map_in_data) {
        // Format 1.0: the number of segments, then each one's offset and size, a decimal number
        // per line, padded with zeros to a whole block.
        std::size_t p = 0;
        const auto line = [&]() -> std::uint64_t {
            std::uint64_t v = 0;
            std::size_t digits = 0;
            for (; p < packed.size() && packed[p] >= '0' && packed[p] <= '9'; ++p, ++digits) {
                if (digits == 19) fail("a number of more than 19 digits in the map", e.data_offset + p);
                v = v * 10 + (packed[p] - '0');
            }
            if (digits == 0 || p >= packed.size() || packed[p] != '\n') fail("the map in the data is not decimal lines", e.data_offset + p);
            ++p;
            return v;
        };
        const std::uint64_t count = line();
        if (count > packed.size() / 4) fail("a map of " + std::to_string(count) + " segments in " + std::to_string(packed.size()) + " bytes", e.data_offset);
        for (std::uint64_t k = 0; k < count; ++k) {
            const std::uint64_t o = line();
            map.push_back({o, line()});
        }
        const std::size_t padded = (p + tar_block_size - 1) / tar_block_size * tar_block_size;
        if (padded > packed.size()) fail("the map runs past the entry's data", e.data_offset + p);
        packed = packed.subspan(padded);
    }
    if (e.sparse_size > limit)
        throw resource_error("tar entry " + archive_quote(e.name) + ": a GNU sparse file of " + std::to_string(e.sparse_size) + " bytes (" +
                             std::to_string(limit) + " allowed)");
    std::uint64_t end = 0, stored = 0;
    for (const auto& seg : map) {
        if (seg.offset < end || seg.offset > e.sparse_size || seg.bytes > e.sparse_size - seg.offset)
            fail("segment of " + std::to_string(seg.bytes) + " bytes at " + std::to_string(seg.offset) +
                     " overlaps the one before or lies past the file's size " + std::to_string(e.sparse_size),
                 e.first_header_offset);
        end = seg.offset + seg.bytes;
        stored += seg.bytes;
    }
    if (stored != packed.size())
        fail("the map's segments hold " + std::to_string(stored) + " bytes, the entry's data " + std::to_string(packed.size()), e.first_header_offset);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(e.sparse_size), 0);
    std::uint64_t from = 0;
    for (const auto& seg : map) {
        std::copy_n(packed.begin() + static_cast<std::ptrdiff_t>(from), seg.bytes, out.begin() + static_cast<std::ptrdiff_t>(seg.offset));
        from += seg.bytes;
    }
    return out;
}

// The data of an entry: a view into the archive, nothing copied.
inline std::span<const std::uint8_t> tar_entry_data(std::span<const std::uint8_t> data, const tar_entry& e) {
    if (e.data_offset > data.size() || e.size > data.size() - e.data_offset)
        throw format_error("tar entry " + archive_quote(e.name) + ": data lies outside the archive", e.data_offset);
    return data.subspan(static_cast<std::size_t>(e.data_offset), static_cast<std::size_t>(e.size));
}

} // namespace vyre::format
