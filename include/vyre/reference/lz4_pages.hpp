// CPU oracle of compression.lz4_pages: the same parse as the device program, byte for byte, in
// plain C++ (one page at a time). The device output must equal what this writes.
#pragma once

#include <vyre/compression/pages.hpp>
#include <vyre/error.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::reference {

// The page record and its kinds are the op's permanent layout (compression/pages.hpp).
using vyre::compression::make_page_record;
using vyre::compression::page_kind;
using vyre::compression::page_record;

// LZ4's block rules, and the parse the device program makes (compression.lz4_pages, version 2):
//  - hash of the 4 bytes at p (little-endian u32 `s`): (s * 2654435761) >> (32 - 12): 12 bits for
//    every page size (lz4_pages_hash_bits), as LZ4 itself hashes small inputs (the functions below
//    take other widths, 10 to 13 bits, for the program's other shapes; the op is 12);
//  - candidate of p: the latest q < p with the same hash, every earlier position counting (also
//    those inside matches), whether or not its bytes equal p's; positions from 0 to n - 12 are
//    hashed and looked up (later ones cannot start a match);
//  - match length at p: the common prefix of the bytes at p and at its candidate, at most up to
//    n - 5 (LZ4: the last 5 bytes are literals); a match needs 4 bytes and may start at p <= n - 12
//    (LZ4: the last match starts at least 12 bytes before the end);
//  - greedy: from the end of the last match (the anchor), the first position with a match is taken;
//    the match is then extended backwards over literals while the bytes before both ends agree
//    (as LZ4's "catch up" does), and the parse goes on at its end.
// The block is the sequences in LZ4's format; when it is not smaller than the page the page is
// stored as is, and a page of one repeated byte is same_fill.
inline constexpr std::uint32_t lz4_min_match = 4;
inline constexpr std::uint32_t lz4_last_literals = 5;
inline constexpr std::uint32_t lz4_match_start_limit = 12; // a match starts at p <= n - 12

// Bits of the position hash (the same for every page size: a table of 4096 entries).
inline constexpr std::uint32_t lz4_pages_hash_bits(std::uint32_t /*page_size*/ = 0) { return 12; }
inline constexpr std::uint32_t lz4_pages_min_hash_bits = 10, lz4_pages_max_hash_bits = 13;

// Bytes LZ4 spends on a length field beyond the token's nibble.
inline std::uint32_t lz4_length_extra_bytes(std::uint32_t length) { return length >= 15 ? 1 + (length - 15) / 255 : 0; }

// Compresses one page (page.size() bytes, a power of two from 1 KiB to 16 KiB) into `out`
// (at least page.size() bytes). Writes the block (or the page, when stored) to out[0, length).
inline page_record lz4_compress_page(std::span<const std::uint8_t> page, std::span<std::uint8_t> out,
                                     std::uint32_t hash_bits = lz4_pages_hash_bits()) {
    const std::uint32_t n = static_cast<std::uint32_t>(page.size());
    if (n < 1024 || n > 16384 || (n & (n - 1)) != 0)
        throw resource_error("lz4_compress_page: page size " + std::to_string(page.size()) + " is not a power of two in [1024, 16384]");
    if (hash_bits < lz4_pages_min_hash_bits || hash_bits > lz4_pages_max_hash_bits)
        throw resource_error("lz4_compress_page: " + std::to_string(hash_bits) + " hash bits; 10 to 13 are supported");
    if (out.size() < n) throw resource_error("lz4_compress_page: output of " + std::to_string(out.size()) + " bytes for a page of " + std::to_string(n));
    if (std::all_of(page.begin(), page.end(), [&](std::uint8_t b) { return b == page[0]; }))
        return make_page_record(0, page_kind::same_fill, page[0]);

    const std::uint32_t hash_shift = 32 - hash_bits;
    const auto read32 = [&](std::uint32_t p) {
        return std::uint32_t{page[p]} | std::uint32_t{page[p + 1]} << 8 | std::uint32_t{page[p + 2]} << 16 | std::uint32_t{page[p + 3]} << 24;
    };
    // Candidates of the positions that may start a match (<= n - 12): the latest earlier same hash,
    // through a table of the latest position of each hash filled in position order.
    const std::uint32_t last_start = n - lz4_match_start_limit;
    const std::uint32_t match_limit = n - lz4_last_literals;
    std::vector<std::int32_t> candidate(last_start + 1, -1);
    {
        std::vector<std::int32_t> latest(std::size_t{1} << hash_bits, -1);
        for (std::uint32_t p = 0; p <= last_start; ++p) {
            const std::uint32_t h = (read32(p) * 2654435761u) >> hash_shift;
            candidate[p] = latest[h];
            latest[h] = static_cast<std::int32_t>(p);
        }
    }
    const auto match_length = [&](std::uint32_t p, std::uint32_t c) {
        std::uint32_t len = 0;
        while (p + len < match_limit && page[p + len] == page[c + len]) ++len;
        return len;
    };

    struct sequence {
        std::uint32_t literal_start, literal_length, offset, match_length;
    };
    std::vector<sequence> seqs;
    std::uint32_t anchor = 0, p = 0, size = 0;
    const auto encoded = [](std::uint32_t ll, std::uint32_t ml) {
        return 1 + lz4_length_extra_bytes(ll) + ll + (ml ? 2 + lz4_length_extra_bytes(ml - lz4_min_match) : 0);
    };
    while (p <= last_start && size < n) {
        if (candidate[p] < 0) {
            ++p;
            continue;
        }
        std::uint32_t c = static_cast<std::uint32_t>(candidate[p]);
        std::uint32_t len = match_length(p, c);
        if (len < lz4_min_match) {
            ++p;
            continue;
        }
        std::uint32_t q = p;
        while (q > anchor && c > 0 && page[q - 1] == page[c - 1]) {
            --q;
            --c;
            ++len;
        }
        seqs.push_back({anchor, q - anchor, q - c, len});
        size += encoded(q - anchor, len);
        anchor = p = q + len;
    }
    seqs.push_back({anchor, n - anchor, 0, 0});
    size += encoded(n - anchor, 0);
    if (size >= n) {
        std::copy(page.begin(), page.end(), out.begin());
        return make_page_record(n, page_kind::stored);
    }
    std::uint32_t o = 0;
    const auto put_extra = [&](std::uint32_t length) {
        if (length < 15) return;
        length -= 15;
        for (; length >= 255; length -= 255) out[o++] = 255;
        out[o++] = static_cast<std::uint8_t>(length);
    };
    for (const sequence& s : seqs) {
        const std::uint32_t ml = s.match_length ? s.match_length - lz4_min_match : 0;
        out[o++] = static_cast<std::uint8_t>(std::min(s.literal_length, 15u) << 4 | std::min(ml, 15u));
        put_extra(s.literal_length);
        std::copy_n(page.begin() + s.literal_start, s.literal_length, out.begin() + o);
        o += s.literal_length;
        if (s.match_length) {
            out[o++] = static_cast<std::uint8_t>(s.offset);
            out[o++] = static_cast<std::uint8_t>(s.offset >> 8);
            put_extra(ml);
        }
    }
    return make_page_record(o, page_kind::compressed);
}

// Every page of `pages` (a whole number of pages of page_size bytes) into fixed slots of page_size
// bytes each, as the device writes them (slot bytes past a record's length are left as they were).
inline std::vector<page_record> lz4_compress_pages(std::span<const std::uint8_t> pages, std::uint32_t page_size,
                                                   std::span<std::uint8_t> slots, std::uint32_t hash_bits = lz4_pages_hash_bits()) {
    if (page_size == 0 || pages.size() % page_size != 0 || slots.size() < pages.size())
        throw resource_error("lz4_compress_pages: " + std::to_string(pages.size()) + " bytes is not a whole number of " +
                             std::to_string(page_size) + "-byte pages, or the slots are too small");
    const std::size_t count = pages.size() / page_size;
    std::vector<page_record> records(count);
    for (std::size_t i = 0; i < count; ++i)
        records[i] = lz4_compress_page(pages.subspan(i * page_size, page_size), slots.subspan(i * page_size, page_size), hash_bits);
    return records;
}

} // namespace vyre::reference
