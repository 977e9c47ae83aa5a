// Host-side parser of LZ4 files (standard, skippable and legacy frames, concatenated in any order):
// lists every data block as a block_extent for compression.lz4 and checks the frames' checksums.
// Decoding whole files: engine/lz4_decompress.hpp.
#pragma once

#include <vyre/compression/batch.hpp>
#include <vyre/compression/block.hpp>
#include <vyre/compression/lz4.hpp>
#include <vyre/error.hpp>
#include <vyre/format/record_budget.hpp>
#include <vyre/reference/lz4.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/little_endian.hpp>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL // xxHash compiled into the includer: no library to link
#endif
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

// The format's numbers (magic numbers, legacy block size, window) are in compression/lz4.hpp.
using compression::lz4_frame_magic;
using compression::lz4_legacy_magic;
using compression::lz4_legacy_block_size;
using compression::lz4_legacy_max_compressed;
using compression::lz4_window_size;

enum class lz4_frame_kind { standard, skippable, legacy };

inline const char* lz4_frame_kind_name(lz4_frame_kind k) noexcept {
    switch (k) {
    case lz4_frame_kind::standard: return "standard";
    case lz4_frame_kind::skippable: return "skippable";
    case lz4_frame_kind::legacy: return "legacy";
    }
    return "unknown";
}

// One frame of the file. Its blocks are layout.blocks[first_block, first_block + block_count);
// its decoded content is output[output_offset, output_offset + output_size).
struct lz4_frame {
    lz4_frame_kind kind = lz4_frame_kind::standard;
    std::uint32_t magic = 0;
    std::uint64_t offset = 0; // of the magic number in the file
    std::uint64_t size = 0;   // bytes of the file the frame spans, magic number included
    // false: a block may copy from the frame's previous 64 KiB of output, so the blocks must be
    // decoded in order (on the host); true for legacy frames.
    bool blocks_independent = true;
    bool block_checksums = false;
    std::uint32_t block_max_size = 0; // decoded bytes per block at most; 0 for skippable frames
    // Declared content size. A declared 0 is read as "unknown", as liblz4 does.
    std::optional<std::uint64_t> content_size;
    std::uint64_t content_size_offset = 0;
    std::optional<std::uint32_t> content_checksum; // XXH32 of the decoded content, seed 0
    std::uint64_t content_checksum_offset = 0;
    std::size_t first_block = 0;
    std::size_t block_count = 0;
    std::uint64_t output_offset = 0;
    std::uint64_t output_size = 0;
};

// One data block. extent.input_offset/input_size locate the stored block data in the file (after
// its 4-byte size field), extent.output_offset/output_size its exact decoded bytes in the output of
// the whole file; extent.flags carries block_flag_uncompressed for stored blocks.
struct lz4_block {
    compression::block_extent extent;
    std::size_t frame = 0;
    std::optional<std::uint32_t> checksum; // XXH32 of the stored block data, seed 0
    std::uint64_t checksum_offset = 0;
};

struct lz4_layout {
    std::vector<lz4_frame> frames;
    std::vector<lz4_block> blocks;
    std::uint64_t output_size = 0; // the whole file's decoded bytes
};

struct lz4_parse_options {
    // Block checksums cover the stored bytes, so they can be checked before anything is decoded.
    bool verify_block_checksums = true;
    // Bytes of records the parse may keep (lz4_table_bytes: one lz4_frame a frame, one lz4_block a
    // block); 0: record_budget(file size). Real files keep about 56 bytes per 64 KiB to 4 MiB
    // block, but a block can be 5 bytes of input and a skippable frame 8, which would make the
    // records 11 times the file. Past the budget the parse throws lz4_table_error, and the
    // engine's routes decode such a file as walk_lz4_frames reaches each block instead.
    std::uint64_t max_table_bytes = 0;
};

// The records a parse keeps for `frames` frames of `blocks` blocks in all.
inline constexpr std::uint64_t lz4_table_bytes(std::uint64_t frames, std::uint64_t blocks) noexcept {
    return frames * sizeof(lz4_frame) + blocks * sizeof(lz4_block);
}

// Thrown where a parse's records would pass lz4_parse_options::max_table_bytes: a file of
// millions of tiny blocks or frames, to be decoded without a list of them (walk_lz4_frames).
class lz4_table_error : public record_budget_error {
public:
    using record_budget_error::record_budget_error;
};

// What walk_lz4_frames hands on: each block as the walk passes it (its frame so far: the header's
// fields, first_block and output_offset), and each frame as it ends (complete but for the
// content checksum, which covers the frame's decoded bytes).
struct lz4_walk_visitor {
    std::function<void(const lz4_frame&, const lz4_block&)> block;
    std::function<void(const lz4_frame&)> frame;
};

// What a walk counted.
struct lz4_walk_counts {
    std::uint64_t frames = 0, blocks = 0, output_size = 0;
};

namespace detail {

using util::read_le32;
using util::read_le64;

using util::hex;

inline std::uint32_t xxh32(std::span<const std::uint8_t> bytes) { return XXH32(bytes.data(), bytes.size(), 0); }

inline bool is_lz4_magic(std::uint32_t m) {
    return m == lz4_frame_magic || m == lz4_legacy_magic || compression::is_skippable_magic(m);
}

// One pass over the file; `pos` only moves forward, and every read is preceded by need().
class lz4_parser {
public:
    // With a visitor, nothing is listed: blocks and frames go to it as the walk passes them, and
    // run() returns a layout holding output_size only.
    lz4_parser(std::span<const std::uint8_t> file, const lz4_parse_options& options, const lz4_walk_visitor* visitor = nullptr)
        : file_(file), options_(options), visitor_(visitor) {
        if (options_.max_table_bytes == 0) options_.max_table_bytes = record_budget(file.size());
    }

    lz4_walk_counts counts() const noexcept { return {frames_, blocks_, layout_.output_size}; }

    lz4_layout run() {
        if (file_.empty()) throw format_error("empty input is not an LZ4 file", 0);
        while (pos_ < file_.size()) {
            need(4, "magic number");
            const std::uint32_t magic = read_le32(file_, pos_);
            if (magic == lz4_frame_magic)
                standard_frame();
            else if (magic == lz4_legacy_magic)
                legacy_frame();
            else if (compression::is_skippable_magic(magic))
                skippable_frame(magic);
            else
                throw format_error("unknown magic number " + hex(magic, 8) + ": not an LZ4 frame", pos_);
        }
        return std::move(layout_);
    }

private:
    std::span<const std::uint8_t> file_;
    lz4_parse_options options_;
    const lz4_walk_visitor* visitor_ = nullptr;
    std::size_t pos_ = 0;
    lz4_layout layout_;
    std::uint64_t frames_ = 0, blocks_ = 0; // walked, listed or not

    // Throws lz4_table_error where listing `frames` frames and `blocks` blocks passes the budget.
    void fits(std::uint64_t frames, std::uint64_t blocks, std::uint64_t at) const {
        if (lz4_table_bytes(frames, blocks) > options_.max_table_bytes)
            throw lz4_table_error("LZ4: the block or frame at byte offset " + std::to_string(at) + " takes the parse's records past " +
                                  std::to_string(options_.max_table_bytes) +
                                  " bytes (max_table_bytes): too many tiny blocks or frames to list; they are decoded as the walk reaches them");
    }

    std::size_t remaining() const { return file_.size() - pos_; }

    void need(std::uint64_t count, const char* what) const {
        if (remaining() < count)
            throw format_error(std::string("truncated LZ4 file: ") + what + " needs " + std::to_string(count) +
                                   " bytes, " + std::to_string(remaining()) + " remain",
                               pos_);
    }

    lz4_frame begin_frame(lz4_frame_kind kind, std::uint32_t magic) {
        lz4_frame f;
        f.kind = kind;
        f.magic = magic;
        f.offset = pos_;
        f.first_block = static_cast<std::size_t>(blocks_);
        f.output_offset = layout_.output_size;
        return f;
    }

    void end_frame(lz4_frame& f) {
        f.size = pos_ - f.offset;
        f.block_count = static_cast<std::size_t>(blocks_ - f.first_block);
        f.output_size = layout_.output_size - f.output_offset;
        if (visitor_) {
            if (visitor_->frame) visitor_->frame(f);
        } else {
            fits(layout_.frames.size() + 1, layout_.blocks.size(), f.offset);
            layout_.frames.push_back(f);
        }
        ++frames_;
    }

    void skippable_frame(std::uint32_t magic) {
        lz4_frame f = begin_frame(lz4_frame_kind::skippable, magic);
        need(8, "skippable frame header");
        const std::uint32_t size = read_le32(file_, pos_ + 4);
        pos_ += 8;
        need(size, "skippable frame data");
        pos_ += size;
        end_frame(f);
    }

    void standard_frame() {
        lz4_frame f = begin_frame(lz4_frame_kind::standard, lz4_frame_magic);
        pos_ += 4;
        need(2, "frame descriptor (FLG, BD)");
        const std::uint8_t flg = file_[pos_];
        const std::uint8_t bd = file_[pos_ + 1];
        if ((flg >> 6) != 1)
            throw format_error("unsupported LZ4 frame version " + std::to_string(flg >> 6) + " in FLG byte " + hex(flg, 2) +
                                   " (only version 1 is defined)",
                               pos_);
        if (flg & 0x02) throw format_error("reserved bit 1 of the FLG byte is set (" + hex(flg, 2) + ")", pos_);
        if (bd & 0x8F) throw format_error("reserved bits of the BD byte are set (" + hex(bd, 2) + ")", pos_ + 1);
        const unsigned size_code = (bd >> 4) & 7;
        if (size_code < 4)
            throw format_error("block maximum size code " + std::to_string(size_code) + " is undefined (4..7 allowed)",
                               pos_ + 1);
        f.block_max_size = 1u << (8 + 2 * size_code); // 4 -> 64 KiB ... 7 -> 4 MiB
        f.blocks_independent = (flg & 0x20) != 0;
        f.block_checksums = (flg & 0x10) != 0;
        const bool has_content_size = (flg & 0x08) != 0;
        const bool has_content_checksum = (flg & 0x04) != 0;
        const bool has_dict_id = (flg & 0x01) != 0;
        const std::size_t descriptor_size = 2 + (has_content_size ? 8 : 0) + (has_dict_id ? 4 : 0);
        need(descriptor_size + 1, "frame descriptor");
        const std::uint32_t header_checksum = (xxh32(file_.subspan(pos_, descriptor_size)) >> 8) & 0xFF;
        if (header_checksum != file_[pos_ + descriptor_size])
            throw format_error("frame header checksum mismatch: stored " + hex(file_[pos_ + descriptor_size], 2) +
                                   ", computed " + hex(header_checksum, 2),
                               pos_ + descriptor_size);
        std::size_t field = pos_ + 2;
        if (has_content_size) {
            f.content_size_offset = field;
            if (const std::uint64_t declared = read_le64(file_, field); declared != 0) f.content_size = declared;
            field += 8;
        }
        if (has_dict_id)
            throw format_error("LZ4 frame needs external dictionary " + hex(read_le32(file_, field), 8) +
                                   ": dictionaries are not supported",
                               field);
        pos_ += descriptor_size + 1;

        while (standard_block(f)) {
        }
        if (has_content_checksum) {
            need(4, "content checksum");
            f.content_checksum = read_le32(file_, pos_);
            f.content_checksum_offset = pos_;
            pos_ += 4;
        }
        end_frame(f);
        if (f.content_size && *f.content_size != f.output_size)
            throw format_error("LZ4 frame declares " + std::to_string(*f.content_size) + " content bytes but its blocks decode to " +
                                   std::to_string(f.output_size),
                               f.content_size_offset);
    }

    // Reads one block or the EndMark; false at the EndMark.
    bool standard_block(const lz4_frame& f) {
        need(4, "block size (or EndMark)");
        const std::uint32_t field = read_le32(file_, pos_);
        const std::uint32_t size = field & 0x7FFFFFFF;
        // A zero size ends the blocks; liblz4 also takes 0x80000000 (a "stored empty block") so.
        if (size == 0) {
            pos_ += 4;
            return false;
        }
        if (size > f.block_max_size)
            throw format_error("LZ4 block of " + std::to_string(size) + " bytes exceeds the frame's block maximum size " +
                                   std::to_string(f.block_max_size),
                               pos_);
        pos_ += 4;
        need(size, "block data");
        const std::size_t data = pos_;
        pos_ += size;
        lz4_block b;
        b.frame = static_cast<std::size_t>(frames_);
        b.extent.input_offset = data;
        b.extent.input_size = size;
        if (f.block_checksums) {
            need(4, "block checksum");
            b.checksum = read_le32(file_, pos_);
            b.checksum_offset = pos_;
            pos_ += 4;
            if (options_.verify_block_checksums) check_block_checksum(b);
        }
        if (field >> 31) {
            b.extent.flags = compression::block_flag_uncompressed;
            b.extent.output_size = size;
        } else {
            const std::uint64_t frame_output = layout_.output_size - f.output_offset;
            const std::uint32_t history =
                f.blocks_independent ? 0 : static_cast<std::uint32_t>(std::min<std::uint64_t>(frame_output, lz4_window_size));
            b.extent.output_size = measure(data, size, f.block_max_size, history);
        }
        add_block(f, b);
        return true;
    }

    void legacy_frame() {
        lz4_frame f = begin_frame(lz4_frame_kind::legacy, lz4_legacy_magic);
        f.block_max_size = lz4_legacy_block_size;
        pos_ += 4;
        // The frame ends at the end of the file or where a known magic number stands in place of
        // a block size; any other value must be a possible compressed size.
        while (pos_ < file_.size()) {
            need(4, "legacy block size");
            const std::uint32_t size = read_le32(file_, pos_);
            if (is_lz4_magic(size)) break;
            if (size == 0 || size > lz4_legacy_max_compressed)
                throw format_error("legacy LZ4 block size " + std::to_string(size) + " is neither in 1.." +
                                       std::to_string(lz4_legacy_max_compressed) + " nor a frame magic number",
                                   pos_);
            pos_ += 4;
            need(size, "legacy block data");
            lz4_block b;
            b.frame = static_cast<std::size_t>(frames_);
            b.extent.input_offset = pos_;
            b.extent.input_size = size;
            b.extent.output_size = measure(pos_, size, lz4_legacy_block_size, 0);
            pos_ += size;
            add_block(f, b);
        }
        end_frame(f);
    }

    // The exact decoded size of a compressed block, or format_error at the byte where it breaks.
    std::uint32_t measure(std::size_t data, std::uint32_t size, std::uint32_t capacity, std::uint32_t history) const {
        namespace lz = compression::lz4_error;
        const auto m = reference::lz4_measure_block(file_.subspan(data, size), capacity, history);
        if (m.status.code == lz::none) return m.status.output_size;
        std::string why = compression::lz4_error_name(m.status.code);
        if (m.status.code == lz::output_overflow || m.status.code == lz::match_overflow)
            why += ": decodes to more than the block maximum size " + std::to_string(capacity);
        throw format_error("corrupt LZ4 block starting at byte " + std::to_string(data) + " (" + why + ", after " +
                               std::to_string(m.status.output_size) + " decoded bytes)",
                           data + m.input_position);
    }

    void check_block_checksum(const lz4_block& b) const {
        const std::uint32_t computed = xxh32(file_.subspan(b.extent.input_offset, b.extent.input_size));
        if (computed != *b.checksum)
            throw format_error("LZ4 block checksum mismatch: stored " + hex(*b.checksum, 8) + ", computed " + hex(computed, 8),
                               b.checksum_offset);
    }

    void add_block(const lz4_frame& f, lz4_block b) {
        b.extent.output_offset = layout_.output_size;
        layout_.output_size += b.extent.output_size;
        if (visitor_) {
            if (visitor_->block) visitor_->block(f, b);
        } else {
            fits(layout_.frames.size() + 1, layout_.blocks.size() + 1, b.extent.input_offset);
            layout_.blocks.push_back(b);
        }
        ++blocks_;
    }
};

} // namespace detail

// Parses every frame of an LZ4 file. Each compressed block is walked once (nothing decoded) to learn
// its exact output size, so corrupt block structure is reported here, before any dispatch. Throws
// format_error naming the byte offset for: unknown magic numbers, truncation anywhere, a version
// other than 01, reserved bits set, undefined block maximum sizes, header checksum mismatches,
// blocks larger than the block maximum size (stored or decoded), corrupt blocks, block checksum
// mismatches, a declared content size that the blocks do not decode to, and frames that need an
// external dictionary (not supported); lz4_table_error where the list would pass
// options.max_table_bytes.
inline lz4_layout parse_lz4_frames(std::span<const std::uint8_t> file, const lz4_parse_options& options = {}) {
    return detail::lz4_parser(file, options).run();
}

// The same walk with nothing listed: each block and frame goes to `visitor` as the walk passes it
// (in file order, with its exact output place), and the same format_error ends it at the same
// byte as parse_lz4_frames, though the visitor has seen what came before. Memory does not grow
// with the file. Returns what it counted.
inline lz4_walk_counts walk_lz4_frames(std::span<const std::uint8_t> file, const lz4_walk_visitor& visitor,
                                       const lz4_parse_options& options = {}) {
    detail::lz4_parser p(file, options, &visitor);
    const lz4_layout walked = p.run();
    lz4_walk_counts c = p.counts();
    c.output_size = walked.output_size;
    return c;
}

// Checks the stored checksum of every block against the file's bytes.
inline void verify_lz4_block_checksums(const lz4_layout& layout, std::span<const std::uint8_t> file) {
    for (const lz4_block& b : layout.blocks) {
        if (!b.checksum) continue;
        const auto& e = b.extent;
        if (e.input_offset > file.size() || e.input_size > file.size() - e.input_offset)
            throw format_error("LZ4 block lies outside the " + std::to_string(file.size()) + "-byte file", e.input_offset);
        const std::uint32_t computed = detail::xxh32(file.subspan(e.input_offset, e.input_size));
        if (computed != *b.checksum)
            throw format_error("LZ4 block checksum mismatch: stored " + detail::hex(*b.checksum, 8) + ", computed " +
                                   detail::hex(computed, 8),
                               b.checksum_offset);
    }
}

// Checks frame `f`'s decoded bytes in `output` (the whole file's): its declared content size and
// content checksum. A mismatch is a format_error at the offending field of the file.
inline void verify_lz4_frame_content(const lz4_frame& f, std::span<const std::uint8_t> output) {
    if (f.output_offset > output.size() || f.output_size > output.size() - f.output_offset)
        throw format_error("LZ4 frame output lies outside the decoded output", f.offset);
    if (f.content_size && *f.content_size != f.output_size)
        throw format_error("LZ4 frame declares " + std::to_string(*f.content_size) + " content bytes, decoded " +
                               std::to_string(f.output_size),
                           f.content_size_offset);
    if (!f.content_checksum) return;
    const std::uint32_t computed = detail::xxh32(output.subspan(f.output_offset, f.output_size));
    if (computed != *f.content_checksum)
        throw format_error("LZ4 content checksum mismatch: stored " + detail::hex(*f.content_checksum, 8) + ", computed " +
                               detail::hex(computed, 8),
                           f.content_checksum_offset);
}

// Checks decoded output against the layout: total size, and every frame (verify_lz4_frame_content).
inline void verify_lz4_content(const lz4_layout& layout, std::span<const std::uint8_t> output) {
    if (output.size() != layout.output_size)
        throw format_error("decoded LZ4 output holds " + std::to_string(output.size()) + " bytes, the frames describe " +
                           std::to_string(layout.output_size));
    for (const lz4_frame& f : layout.frames) verify_lz4_frame_content(f, output);
}

// The blocks compression.lz4 can decode on a device: those of frames with independent blocks
// (standard frames with the B.Indep flag, and legacy frames). Linked frames go to
// engine::decompress_lz4_frame_host, in frame order.
inline std::vector<compression::block_extent> lz4_independent_extents(const lz4_layout& layout) {
    std::vector<compression::block_extent> out;
    for (const lz4_block& b : layout.blocks)
        if (layout.frames[b.frame].blocks_independent) out.push_back(b.extent);
    return out;
}

} // namespace vyre::format
