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
//   refuses it). Such a block is reported, and zstd_block_in_one_byte_counts and
//   zstd_frame_in_one_byte_counts rewrite it with the count in one byte, one byte shorter: the
//   same block in the form libzstd 1.5.4 reads.
//
// Who checks: engine/zstd_host.hpp before every frame libzstd decodes (check_zstd_frame, and
// check_zstd_frames on its streaming path), format/stream_decode.hpp ahead of what it streams
// through libzstd (zstd_check_cursor, whose reported blocks it gives libzstd rewritten).
//
// Not checked here: a match offset of 0 (off0.bin.zst; libzstd 1.5.4 takes it as 1). Seeing it
// takes every sequence of the frame decoded, which is libzstd's own work over again
// (doc/ops/compression.zstd.frames.md, Conformance). The checks read a few bytes a block.
#pragma once

#include <vyre/format/zstd_descriptions.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/util/little_endian.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <stdexcept>
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

// The frames of `data` walked a block header at a time from its start, each compressed block
// checked (check_zstd_block) as the walk passes it, nothing kept per block, so that memory does not
// grow with the input (parse_zstd keeps every block). A decoder that streams the data checks ahead
// of what it decodes with advance(); the walk stops for good where the frames do not parse (what
// follows is the decoder's to refuse in its own words, or trailing bytes). Throws what
// check_zstd_block throws.
class zstd_check_cursor {
public:
    explicit zstd_check_cursor(std::span<const std::uint8_t> data, const zstd_parse_options& options = {})
        : data_(data), options_(options) {}

    // Walks on until the walk passes `to`, stops, or the data ends.
    void advance(std::uint64_t to) {
        while (!stopped_ && at_ < to && at_ < data_.size()) stopped_ = !step();
    }
    // How far the data is checked: everything once the walk stopped or ended.
    std::uint64_t checked_to() const noexcept { return stopped_ ? data_.size() : at_; }
    // Whether the walk stopped where the frames do not parse.
    bool stopped() const noexcept { return stopped_; }
    // Frames, skippable frames and blocks met so far.
    std::uint64_t frames() const noexcept { return frames_; }
    std::uint64_t skippable_frames() const noexcept { return skippables_; }
    std::uint64_t blocks() const noexcept { return blocks_; }
    // At most this many bytes decode from the blocks met so far: raw and RLE blocks their sizes,
    // a compressed block its frame's Block_Maximum_Size.
    std::uint64_t output_bound() const noexcept { return output_bound_; }
    // Where the frames start that write zero sequences in two bytes, in order (unless keep_blocks).
    const std::vector<std::uint64_t>& zero_sequences_in_two_bytes() const noexcept { return two_bytes_; }
    // A streaming reader (keep_blocks) takes the blocks walked so far that write zero sequences in
    // two bytes, in order, and pops those it has passed, so that the queue spans only the walk's
    // lead over it; the list of frames above, which it does not need and which would grow with
    // the input, is then not kept.
    bool keep_blocks = false;
    std::deque<zstd_block> two_byte_blocks;

private:
    // One frame header, skippable frame or block; false where it does not parse.
    bool step() {
        try {
            if (!in_frame_) {
                detail::zstd_need(data_, at_, 8, "frame header");
                const auto magic = static_cast<std::uint32_t>(detail::zstd_read_le(data_, at_, 4));
                if (compression::is_skippable_magic(magic)) {
                    const std::uint64_t size = detail::zstd_read_le(data_, at_ + 4, 4);
                    if (size > data_.size() - at_ - 8) return false;
                    at_ += 8 + size;
                    ++skippables_;
                    return true;
                }
                if (magic != zstd_magic) return false;
                const detail::zstd_frame_header h = detail::zstd_parse_frame_header(data_, at_ + 4, options_);
                block_maximum_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(h.window_size, compression::zstd_max_block_bytes));
                checksum_ = h.has_checksum;
                frame_ = at_;
                in_frame_ = true;
                ++frames_;
                at_ += 4 + h.size;
                return true;
            }
        } catch (const format_error&) {
            return false;
        }
        zstd_block b;
        try {
            b = detail::zstd_parse_block_header(data_, at_, block_maximum_);
        } catch (const format_error&) {
            return false;
        }
        ++blocks_;
        const std::uint64_t most = b.type == zstd_block_type::compressed ? block_maximum_ : b.block_size;
        output_bound_ = most > ~std::uint64_t{0} - output_bound_ ? ~std::uint64_t{0} : output_bound_ + most;
        if (b.type == zstd_block_type::compressed && check_zstd_block(data_, b)) {
            if (keep_blocks) two_byte_blocks.push_back(b);
            else if (two_bytes_.empty() || two_bytes_.back() != frame_) two_bytes_.push_back(frame_);
        }
        at_ = b.end_offset();
        if (b.last) {
            in_frame_ = false;
            if (checksum_) at_ += 4;
            if (at_ > data_.size()) return false;
        }
        return true;
    }

    std::span<const std::uint8_t> data_;
    zstd_parse_options options_;
    std::uint64_t at_ = 0, frame_ = 0, frames_ = 0, skippables_ = 0, blocks_ = 0, output_bound_ = 0;
    std::uint32_t block_maximum_ = 0;
    bool in_frame_ = false, checksum_ = false, stopped_ = false;
    std::vector<std::uint64_t> two_bytes_;
};

// Every frame of `data` checked (zstd_check_cursor): the frames that write zero sequences in two
// bytes, parsed (laid out from staging 0), or nullopt where the frames do not parse (the caller's
// decoder then refuses them in its own words). Throws what check_zstd_block throws.
inline std::optional<std::vector<zstd_frame>> check_zstd_frames(std::span<const std::uint8_t> data,
                                                                const zstd_parse_options& options = {}) {
    zstd_check_cursor cursor(data, options);
    cursor.advance(data.size());
    if (cursor.stopped()) return std::nullopt;
    std::vector<zstd_frame> flagged;
    for (const std::uint64_t at : cursor.zero_sequences_in_two_bytes()) {
        std::uint64_t staging = 0;
        flagged.push_back(detail::zstd_parse_frame(data, at, detail::with_table_budget(options, data.size()), staging));
    }
    return flagged;
}

// Compressed block `b` of `data` (checked: check_zstd_block returned true), its header and content,
// with its count of zero sequences written in one byte instead of two. Nothing follows that count
// in a valid block, so its two bytes (0x80 0x00) are the block's last: the rewritten block drops
// the last byte, writes 0x00 before it, and says it is one byte shorter. Throws
// std::invalid_argument on a block without them (a caller's error, not the data's).
inline void zstd_append_block_in_one_byte_counts(std::span<const std::uint8_t> data, const zstd_block& b, std::vector<std::uint8_t>& out) {
    const std::uint64_t end = b.end_offset();
    if (b.type != zstd_block_type::compressed || b.content_size < 2 || end > data.size() || data[end - 2] != 0x80 || data[end - 1] != 0x00)
        throw std::invalid_argument("zstd_append_block_in_one_byte_counts: the block at byte offset " + std::to_string(b.header_offset) +
                                    " does not end in a count of zero sequences written in two bytes");
    const std::uint32_t header = (b.last ? 1u : 0u) | (2u << 1) | ((b.block_size - 1) << 3);
    util::append_le(out, header, static_cast<unsigned>(compression::zstd_block_header_bytes));
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(b.content_offset()), data.begin() + static_cast<std::ptrdiff_t>(end - 2));
    out.push_back(0x00);
}

inline std::vector<std::uint8_t> zstd_block_in_one_byte_counts(std::span<const std::uint8_t> data, const zstd_block& b) {
    std::vector<std::uint8_t> out;
    out.reserve(b.content_size + 2);
    zstd_append_block_in_one_byte_counts(data, b, out);
    return out;
}

// Frame `f` of `data` (parsed, every block listed) with every block that writes zero sequences in
// two bytes rewritten as zstd_block_in_one_byte_counts does; everything else as it is. The frame
// decodes to the same bytes, and libzstd 1.5.4 reads it. Throws what check_zstd_block throws.
inline std::vector<std::uint8_t> zstd_frame_in_one_byte_counts(std::span<const std::uint8_t> data, const zstd_frame& f) {
    std::vector<std::uint8_t> out;
    out.reserve(static_cast<std::size_t>(f.size));
    std::uint64_t from = f.offset;
    for (const zstd_block& b : f.blocks) {
        if (b.type != zstd_block_type::compressed || !check_zstd_block(data, b)) continue;
        out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(from), data.begin() + static_cast<std::ptrdiff_t>(b.header_offset));
        zstd_append_block_in_one_byte_counts(data, b, out);
        from = b.end_offset();
    }
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(from), data.begin() + static_cast<std::ptrdiff_t>(f.offset + f.size));
    return out;
}

} // namespace vyre::format
