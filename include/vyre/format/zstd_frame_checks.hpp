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

#include <cstdint>
#include <span>
#include <string>

namespace vyre::format {

struct zstd_frame_check {
    // A block writes its count of zero sequences in two bytes: valid, and refused by libzstd 1.5.4.
    bool zero_sequences_in_two_bytes = false;
};

// Checks frame `f` of `data` (from parse_zstd over `data`); throws format_error, in the words of
// the device route's walk and at the same byte offset, where a block breaks one of the rules above
// or its headers are truncated.
inline zstd_frame_check check_zstd_frame(std::span<const std::uint8_t> data, const zstd_frame& f) {
    namespace c = compression;
    zstd_frame_check out;
    for (const zstd_block& b : f.blocks) {
        if (b.type != zstd_block_type::compressed) continue;
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
        const detail::zstd_sequence_count n = detail::zstd_read_sequence_count(data, literals + section, end);
        out.zero_sequences_in_two_bytes = out.zero_sequences_in_two_bytes || n.zero_in_two_bytes;
    }
    return out;
}

} // namespace vyre::format
