// Rules of the Zstandard format (RFC 8878) that Debian 12's libzstd (1.5.4) does not keep, checked
// on a frame's compressed blocks before libzstd decodes it on the host, so that the host's routes
// answer as the device's do (its walk, format/zstd_sections.hpp, and its decoder). The Zstandard
// project's conformance files show each one (test/data/zstd-golden/README.md):
//
// - nothing follows a sequences section of zero sequences in its block (zeroSeq_extraneous.zst:
//   libzstd 1.5.4 ignores what follows);
// - the FSE-compressed weights of a Huffman tree description hold at least their two initial
//   states (truncated_huff_state.zst: libzstd 1.5.4 reads zeros before the stream's start);
// - and the reverse: a count of zero sequences may take two bytes (zeroSeq_2B.zst: libzstd 1.5.4
//   refuses it). Such a frame is reported, for the caller to decode it some other way.
//
// Not checked here: a match offset of 0 (off0.bin.zst; libzstd 1.5.4 takes it as 1). Seeing it
// takes every sequence of the frame decoded, which is libzstd's own work over again
// (doc/ops/compression.zstd.frames.md, Conformance). The checks read a few bytes a block.
#pragma once

#include <vyre/format/zstd_descriptions.hpp>
#include <vyre/format/zstd_frame.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::format {

struct zstd_frame_check {
    // A block writes its count of zero sequences in two bytes: valid, and refused by libzstd 1.5.4.
    bool zero_sequences_in_two_bytes = false;
};

// Checks one compressed block `b` of `data`; throws format_error, in the words of the device
// route's walk and at the same byte offset, where it breaks one of the rules above or its headers
// are truncated. Returns whether it writes zero sequences in two bytes.
inline bool check_zstd_block(std::span<const std::uint8_t> data, const zstd_block& b) {
    namespace c = compression;
    const std::uint64_t begin = b.content_offset(), end = b.end_offset();
    const detail::zstd_literals_header lh = detail::zstd_read_literals_header(data, begin, end);
    const std::uint64_t literals = begin + lh.bytes;
    const std::uint64_t section = lh.type == 0 ? lh.regenerated : lh.type == 1 ? 1 : lh.compressed;
    detail::zstd_block_need(literals, section, end, lh.type == 0 ? "raw literals" : lh.type == 1 ? "RLE literal" : "compressed literals");
    if (lh.type == 2 && lh.compressed > 0 && data[literals] < 128) {
        // A tree description whose weights are FSE-compressed: a distribution, then the stream.
        const std::uint64_t size = std::uint64_t{1} + data[literals];
        if (size > lh.compressed)
            throw format_error("zstd: Huffman tree description: needs " + std::to_string(size) + " bytes, " +
                                   std::to_string(lh.compressed) + " remain",
                               literals);
        const auto body = data.subspan(literals + 1, size - 1);
        const detail::zstd_counts counts = detail::zstd_read_counts(body, c::zstd_huffman_max_bits, c::zstd_huffman_weight_max_log,
                                                                    literals + 1, "Huffman weights");
        detail::zstd_weights_stream_bits(body.subspan(counts.bytes), counts.log, literals + 1 + counts.bytes);
    }
    return detail::zstd_read_sequence_count(data, literals + section, end).zero_in_two_bytes;
}

// Checks frame `f` of `data` (from parse_zstd over `data`), block by block (check_zstd_block).
inline zstd_frame_check check_zstd_frame(std::span<const std::uint8_t> data, const zstd_frame& f) {
    zstd_frame_check out;
    for (const zstd_block& b : f.blocks)
        if (b.type == zstd_block_type::compressed && check_zstd_block(data, b)) out.zero_sequences_in_two_bytes = true;
    return out;
}

// Every frame of `data` checked as check_zstd_frame checks it, walked a block header at a time with
// nothing kept per block, so that memory does not grow with the input (parse_zstd keeps every
// block): the frames that write zero sequences in two bytes, parsed (laid out from staging 0), or
// nullopt where the frames do not parse (the caller's decoder then refuses them in its own words).
// Throws what check_zstd_block throws.
inline std::optional<std::vector<zstd_frame>> check_zstd_frames(std::span<const std::uint8_t> data,
                                                                const zstd_parse_options& options = {}) {
    std::vector<zstd_frame> flagged;
    // What parses at `at`, or nothing: a format_error of the parse ends the walk.
    const auto parsed = [](const auto& parse) -> std::optional<decltype(parse())> {
        try {
            return parse();
        } catch (const format_error&) {
            return std::nullopt;
        }
    };
    for (std::uint64_t pos = 0; pos < data.size();) {
        const auto magic = parsed([&] {
            detail::zstd_need(data, pos, 8, "frame header");
            return std::pair{static_cast<std::uint32_t>(detail::zstd_read_le(data, pos, 4)),
                             static_cast<std::uint32_t>(detail::zstd_read_le(data, pos + 4, 4))};
        });
        if (!magic) return std::nullopt;
        if (compression::is_skippable_magic(magic->first)) {
            if (magic->second > data.size() - pos - 8) return std::nullopt;
            pos += 8 + std::uint64_t{magic->second};
            continue;
        }
        if (magic->first != zstd_magic) return std::nullopt;
        const auto header = parsed([&] { return detail::zstd_parse_frame_header(data, pos + 4, options); });
        if (!header) return std::nullopt;
        const auto block_maximum = static_cast<std::uint32_t>(std::min<std::uint64_t>(header->window_size, compression::zstd_max_block_bytes));
        bool two_bytes = false;
        std::uint64_t at = pos + 4 + header->size;
        for (bool last = false; !last;) {
            const auto b = parsed([&] { return detail::zstd_parse_block_header(data, at, block_maximum); });
            if (!b) return std::nullopt;
            if (b->type == zstd_block_type::compressed && check_zstd_block(data, *b)) two_bytes = true;
            last = b->last;
            at = b->end_offset();
        }
        if (header->has_checksum) at += 4;
        if (at > data.size()) return std::nullopt;
        if (two_bytes) {
            std::uint64_t staging = 0;
            flagged.push_back(detail::zstd_parse_frame(data, pos, options, staging));
        }
        pos = at;
    }
    return flagged;
}

} // namespace vyre::format
