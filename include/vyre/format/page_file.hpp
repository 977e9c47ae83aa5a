// The page file: a batch of fixed-size pages compressed one by one (compression.lz4_pages or
// liblz4), with a header, a table of per-page lengths and kinds, and the blocks. Writer and
// validating reader; decoding whole files is engine/page_file.hpp's. Layout: doc/ops/compression.lz4_pages.md.
#pragma once

#include <vyre/compression/pages.hpp>
#include <vyre/error.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/little_endian.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

// Header, 32 bytes, little-endian:
//   0  u32 magic 0x47505956 ("VYPG")     4  u16 version (1)    6  u16 header bytes (32)
//   8  u32 page size                    12  u32 flags (0; other values are reserved)
//  16  u64 page count                   24  u64 block bytes (the sum of every page's length)
// then page count table entries of 8 bytes (u32 length, u32 kind | fill << 8: the device's
// page_record), then the blocks, in page order, back to back. Nothing may follow the blocks.
inline constexpr std::uint32_t page_file_magic = 0x47505956u;
inline constexpr std::uint16_t page_file_version = 1;
inline constexpr std::size_t page_file_header_bytes = 32;
inline constexpr std::size_t page_file_entry_bytes = 8;
// The most bytes a page file may decode to unless the caller says otherwise (as for zstd). A table
// entry of 8 bytes stands for a whole page (a same_fill page of 16 KiB), so a small hostile file
// can declare far more content than its own size: decoders check content_bytes() against a limit
// before they allocate.
inline constexpr std::uint64_t page_file_default_max_output = std::uint64_t{16} << 30;

struct page_file_view {
    std::uint32_t page_size = 0;
    std::vector<compression::page_record> records;
    std::vector<std::uint64_t> offsets; // of each block in `blocks`
    std::span<const std::uint8_t> blocks;
    std::uint64_t content_bytes() const { return std::uint64_t{page_size} * records.size(); }
    std::span<const std::uint8_t> block(std::size_t i) const {
        return blocks.subspan(static_cast<std::size_t>(offsets[i]), records[i].length);
    }
};

namespace detail {
inline bool valid_page_size(std::uint64_t s) { return s >= 1024 && s <= 16384 && (s & (s - 1)) == 0; }

// A record's own rules, whatever the file around it says.
inline void check_page_record(const compression::page_record& r, std::uint32_t page_size, std::size_t index, std::uint64_t offset) {
    const std::string where = "page " + std::to_string(index) + ": ";
    if ((r.flags >> 16) != 0 || ((r.flags >> 8) & 0xFFu && r.kind() != compression::page_kind::same_fill))
        throw format_error(where + "reserved flag bits set (flags " + util::hex(r.flags) + ")", offset);
    switch (r.kind()) {
    case compression::page_kind::same_fill:
        if (r.length != 0) throw format_error(where + "a same_fill page has length " + std::to_string(r.length) + ", not 0", offset);
        return;
    case compression::page_kind::stored:
        if (r.length != page_size)
            throw format_error(where + "a stored page has length " + std::to_string(r.length) + ", not the page size " + std::to_string(page_size), offset);
        return;
    case compression::page_kind::compressed:
        if (r.length == 0 || r.length >= page_size)
            throw format_error(where + "a compressed page has length " + std::to_string(r.length) + "; it must be in 1.." +
                                   std::to_string(page_size - 1),
                               offset);
        return;
    }
    throw format_error(where + "unknown page kind " + std::to_string(r.flags & 0xFFu), offset);
}
} // namespace detail

// A page file for `records` whose blocks are block(i).
template <class Block>
std::vector<std::uint8_t> write_page_file(std::uint32_t page_size, std::span<const compression::page_record> records, Block&& block) {
    if (!detail::valid_page_size(page_size)) throw format_error("page file: page size " + std::to_string(page_size) + " is not a power of two in [1024, 16384]");
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
        detail::check_page_record(records[i], page_size, i, 0);
        total += records[i].length;
    }
    std::vector<std::uint8_t> out;
    out.reserve(page_file_header_bytes + records.size() * page_file_entry_bytes + static_cast<std::size_t>(total));
    util::append_le(out, page_file_magic, 4);
    util::append_le(out, page_file_version, 2);
    util::append_le(out, page_file_header_bytes, 2);
    util::append_le(out, page_size, 4);
    util::append_le(out, 0, 4);
    util::append_le(out, records.size(), 8);
    util::append_le(out, total, 8);
    for (const auto& r : records) {
        util::append_le(out, r.length, 4);
        util::append_le(out, r.flags, 4);
    }
    for (std::size_t i = 0; i < records.size(); ++i) {
        const std::span<const std::uint8_t> b = block(i);
        if (b.size() != records[i].length) throw format_error("page file: block " + std::to_string(i) + " is not its record's length");
        out.insert(out.end(), b.begin(), b.end());
    }
    return out;
}

// Parses and checks a page file: header fields, every table entry, and that the blocks fill the rest
// of the file exactly. Every size is checked against the file's own length before it is used, so
// a hostile header cannot make parsing allocate more than the file (the table is at most file/8
// entries) or read outside it. Throws format_error naming the field and its byte offset. The
// content it declares is NOT bounded by the file's size (one 8-byte entry stands for a page): check
// it with check_page_file_output before allocating the decoded pages.
inline page_file_view parse_page_file(std::span<const std::uint8_t> file) {
    if (file.size() < page_file_header_bytes)
        throw format_error("page file: " + std::to_string(file.size()) + " bytes is shorter than the 32-byte header", 0);
    const auto magic = static_cast<std::uint32_t>(util::read_le(file, 0, 4));
    if (magic != page_file_magic) throw format_error("page file: magic " + util::hex(magic) + " is not VYPG (0x47505956)", 0);
    const auto version = util::read_le(file, 4, 2), header = util::read_le(file, 6, 2);
    if (version != page_file_version) throw format_error("page file: version " + std::to_string(version) + " (this reader knows 1)", 4);
    if (header != page_file_header_bytes) throw format_error("page file: header size " + std::to_string(header) + ", not 32", 6);
    const std::uint64_t page_size = util::read_le(file, 8, 4), flags = util::read_le(file, 12, 4);
    if (!detail::valid_page_size(page_size)) throw format_error("page file: page size " + std::to_string(page_size) + " is not a power of two in [1024, 16384]", 8);
    if (flags != 0) throw format_error("page file: reserved header flags " + std::to_string(flags), 12);
    const std::uint64_t count = util::read_le(file, 16, 8), block_bytes = util::read_le(file, 24, 8);
    const std::uint64_t room = file.size() - page_file_header_bytes;
    if (count > room / page_file_entry_bytes)
        throw format_error("page file: page count " + std::to_string(count) + " needs a table larger than the file", 16);
    const std::uint64_t table_end = page_file_header_bytes + count * page_file_entry_bytes;
    if (block_bytes != file.size() - table_end)
        throw format_error("page file: block bytes " + std::to_string(block_bytes) + ", but " + std::to_string(file.size() - table_end) +
                               " bytes follow the table",
                           24);
    page_file_view v;
    v.page_size = static_cast<std::uint32_t>(page_size);
    v.records.resize(static_cast<std::size_t>(count));
    v.offsets.resize(static_cast<std::size_t>(count));
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < v.records.size(); ++i) {
        const std::size_t entry = page_file_header_bytes + i * page_file_entry_bytes;
        compression::page_record r{static_cast<std::uint32_t>(util::read_le(file, entry, 4)), static_cast<std::uint32_t>(util::read_le(file, entry + 4, 4))};
        detail::check_page_record(r, v.page_size, i, entry);
        if (r.length > block_bytes - at)
            throw format_error("page " + std::to_string(i) + ": its block of " + std::to_string(r.length) + " bytes runs past the end of the file", entry);
        v.records[i] = r;
        v.offsets[i] = at;
        at += r.length;
    }
    if (at != block_bytes)
        throw format_error("page file: the table's lengths add up to " + std::to_string(at) + " bytes, the header says " + std::to_string(block_bytes), 24);
    v.blocks = file.subspan(static_cast<std::size_t>(table_end));
    return v;
}

// Throws resource_error when the file decodes to more than `max_output_bytes` (or more than this
// host can address): call before allocating the output. Parsing only bounds the file's own size;
// the content can be page_size / 8 times larger (2048 times for 16 KiB same_fill pages).
inline void check_page_file_output(const page_file_view& v, std::uint64_t max_output_bytes) {
    if (v.content_bytes() > max_output_bytes || v.content_bytes() > std::numeric_limits<std::size_t>::max() / 2)
        throw resource_error("page file: decodes to " + std::to_string(v.content_bytes()) + " bytes (" + std::to_string(v.records.size()) +
                             " pages of " + std::to_string(v.page_size) + " bytes), above the output limit of " +
                             std::to_string(max_output_bytes) + " bytes");
}

} // namespace vyre::format
