// Zstandard container parser (RFC 8878): frames, skippable frames and block headers of a .zst
// file, laid out as per-block descriptors for compression.zstd. Parses only; decodes nothing.
#pragma once

// Output layout ("staging"). The GPU writes raw and RLE blocks while compressed blocks are still
// undecoded, so every block needs an output position before any compressed block's regenerated
// size is known. Each block gets a slot in a staging buffer; frames follow each other in file order:
//
//   raw, RLE    slot = the exact regenerated size (Block_Size)
//   compressed  slot = the frame's Block_Maximum_Size (RFC 8878 bounds every block's regenerated
//               size by it); when the frame declares its content size, the compressed blocks share
//               exactly content_size - (raw + RLE bytes), so the slot shrinks to that (a frame with
//               one compressed block is then laid out exactly). Never below 1 byte, so that the
//               CPU decoder is never handed an empty destination (see zstd_decompress.hpp).
//
// Encoders emit full 128 KiB blocks except at the end of a frame or job, so the slots are nearly
// always exact. Where they are not, the CPU pass (zstd_decompress.hpp) slides each block down to
// its final position as it walks the frame, then packs the frames together. `exact_layout` marks
// the frames whose staging offsets are already final.

#include <vyre/compression/batch.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/error.hpp>
#include <vyre/format/record_budget.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/little_endian.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

// RFC 8878's numbers (magic numbers, block limits) are in compression/zstd.hpp and compression/skippable.hpp.
using compression::zstd_magic;

enum class zstd_block_type : std::uint8_t { raw = 0, rle = 1, compressed = 2, reserved = 3 };

struct zstd_block {
    zstd_block_type type = zstd_block_type::raw;
    bool last = false;
    std::uint64_t header_offset = 0;  // file offset of the 3-byte block header
    std::uint32_t block_size = 0;     // the header's Block_Size field
    std::uint32_t content_size = 0;   // bytes after the header: Block_Size, or 1 for RLE
    // Known for raw and RLE blocks, and for a compressed block whose size the frame's declared
    // content size implies; empty until decoded otherwise.
    std::optional<std::uint32_t> regenerated_size;
    std::uint64_t output_offset = 0;  // staging slot (see the layout note above)
    std::uint32_t output_capacity = 0;

    std::uint64_t content_offset() const noexcept { return header_offset + compression::zstd_block_header_bytes; }
    std::uint64_t end_offset() const noexcept { return content_offset() + content_size; }
};

struct zstd_frame {
    std::uint64_t offset = 0;          // of the magic number
    std::uint64_t size = 0;            // bytes in the file, header to checksum
    std::uint64_t window_size = 0;
    std::uint32_t block_maximum_size = 0;
    std::uint32_t dictionary_id = 0;   // 0: no dictionary
    bool single_segment = false;
    std::optional<std::uint64_t> content_size;
    std::optional<std::uint32_t> checksum;  // low 32 bits of XXH64(content, seed 0)
    std::uint64_t checksum_offset = 0;
    std::vector<zstd_block> blocks;
    std::size_t first_block = 0;       // index of blocks[0] among all blocks of the file
    std::uint64_t output_offset = 0;   // staging region of the frame
    std::uint64_t output_capacity = 0;
    bool exact_layout = false;

    std::size_t compressed_blocks() const noexcept {
        return static_cast<std::size_t>(std::count_if(blocks.begin(), blocks.end(),
            [](const zstd_block& b) { return b.type == zstd_block_type::compressed; }));
    }
};

struct zstd_skippable_frame {
    std::uint64_t offset = 0;  // of the magic number
    std::uint32_t magic = 0;   // 0x184D2A50 .. 0x184D2A5F
    std::uint32_t data_size = 0;
    std::uint64_t data_offset() const noexcept { return offset + 8; }
};

struct zstd_file {
    std::vector<zstd_frame> frames;
    std::vector<zstd_skippable_frame> skippable_frames;
    std::size_t block_count = 0;
    std::uint64_t staging_size = 0;
};

struct zstd_parse_options {
    // Bound on the staging buffer the layout may ask for. Hostile files regenerate up to 32768
    // bytes per input byte (a 4-byte RLE block makes 128 KiB), so a caller sets what it can hold.
    std::uint64_t max_output_size = std::uint64_t{1} << 30;
    // libzstd's limit on 64-bit hosts; the format itself goes to 41.
    unsigned max_window_log = 31;
    // Threads that walk ahead from guessed frame starts (0: every core). The walk from frame to
    // frame waits on a cache miss at each frame (its end is tens of KiB past its start), so a file
    // of many frames parses faster from several places at once; the result is the same.
    unsigned threads = 1;
    // Bytes of records the parse may keep (zstd_table_bytes: one zstd_frame a frame, one
    // zstd_block a block); 0: record_budget(input size). Real data keeps about 50 bytes per
    // 128 KiB block, but a block can be 3 bytes of input (an empty one), which would make the
    // records 16 times the file. Past the budget the parse throws zstd_table_error, and the
    // engine's routes decode such a file with libzstd's streaming decoder instead.
    std::uint64_t max_table_bytes = 0;
};

// The records a parse keeps for `frames` frames of `blocks` blocks in all.
inline constexpr std::uint64_t zstd_table_bytes(std::uint64_t frames, std::uint64_t blocks) noexcept {
    return frames * sizeof(zstd_frame) + blocks * sizeof(zstd_block);
}

// Thrown where a parse's records would pass zstd_parse_options::max_table_bytes: a file of
// millions of tiny blocks or frames, to be decoded without a parse (a streaming decoder).
class zstd_table_error : public record_budget_error {
public:
    using record_budget_error::record_budget_error;
};

namespace detail {

// `options` with max_table_bytes 0 replaced by the default budget for `input_bytes`.
inline zstd_parse_options with_table_budget(zstd_parse_options options, std::uint64_t input_bytes) noexcept {
    if (options.max_table_bytes == 0) options.max_table_bytes = record_budget(input_bytes);
    return options;
}

inline zstd_table_error zstd_table_error_at(std::uint64_t offset, std::uint64_t max_table_bytes) {
    return zstd_table_error("zstd: the block at byte offset " + std::to_string(offset) + " takes the parse's records past " +
                            std::to_string(max_table_bytes) +
                            " bytes (max_table_bytes): too many tiny blocks or frames to lay out; a streaming decoder reads them");
}

inline std::uint64_t zstd_read_le(std::span<const std::uint8_t> data, std::uint64_t pos, unsigned bytes) {
    return util::read_le(data, pos, bytes);
}

// Throws unless `count` bytes remain at `pos`.
inline void zstd_need(std::span<const std::uint8_t> data, std::uint64_t pos, std::uint64_t count, const char* what) {
    const std::uint64_t left = pos <= data.size() ? data.size() - pos : 0;
    if (count > left)
        throw format_error(std::string("zstd: truncated ") + what + ": needs " + std::to_string(count) +
                               " bytes, " + std::to_string(left) + " remain",
                           pos);
}

struct zstd_frame_header {
    std::uint64_t window_size = 0;
    std::uint32_t dictionary_id = 0;
    bool single_segment = false;
    bool has_checksum = false;
    std::optional<std::uint64_t> content_size;
    std::uint64_t size = 0;  // descriptor byte to the first block header
};

inline zstd_frame_header zstd_parse_frame_header(std::span<const std::uint8_t> data, std::uint64_t pos,
                                                 const zstd_parse_options& options) {
    zstd_need(data, pos, 1, "frame header descriptor");
    const std::uint8_t fhd = data[pos];
    if (fhd & 0x08)
        throw format_error("zstd: frame header descriptor " + util::hex(fhd) + " has the reserved bit 3 set", pos);
    zstd_frame_header h;
    const unsigned fcs_flag = fhd >> 6;
    h.single_segment = (fhd >> 5) & 1u;
    h.has_checksum = (fhd >> 2) & 1u;
    static constexpr unsigned dict_bytes[4] = {0, 1, 2, 4};
    static constexpr unsigned fcs_bytes[4] = {0, 2, 4, 8};
    const unsigned dict_size = dict_bytes[fhd & 3u];
    const unsigned fcs_size = (fcs_flag == 0 && h.single_segment) ? 1 : fcs_bytes[fcs_flag];
    h.size = 1 + (h.single_segment ? 0 : 1) + dict_size + fcs_size;
    zstd_need(data, pos, h.size, "frame header");
    std::uint64_t at = pos + 1;
    if (!h.single_segment) {
        const std::uint8_t wd = data[at];
        const unsigned window_log = 10 + (wd >> 3);
        if (window_log > options.max_window_log)
            throw format_error("zstd: window descriptor " + util::hex(wd) + " asks for window log " +
                                   std::to_string(window_log) + ", above the supported " +
                                   std::to_string(options.max_window_log),
                               at);
        const std::uint64_t base = std::uint64_t{1} << window_log;
        h.window_size = base + (base / 8) * (wd & 7u);
        ++at;
    }
    h.dictionary_id = static_cast<std::uint32_t>(zstd_read_le(data, at, dict_size));
    at += dict_size;
    if (fcs_size != 0) {
        const std::uint64_t fcs = zstd_read_le(data, at, fcs_size);
        h.content_size = fcs_size == 2 ? fcs + 256 : fcs;
    }
    if (h.single_segment) h.window_size = *h.content_size;
    return h;
}

inline zstd_block zstd_parse_block_header(std::span<const std::uint8_t> data, std::uint64_t pos,
                                          std::uint32_t block_maximum_size) {
    zstd_need(data, pos, compression::zstd_block_header_bytes, "block header");
    const auto header = static_cast<std::uint32_t>(zstd_read_le(data, pos, 3));
    zstd_block b;
    b.header_offset = pos;
    b.last = header & 1u;
    b.type = static_cast<zstd_block_type>((header >> 1) & 3u);
    b.block_size = header >> 3;
    if (b.type == zstd_block_type::reserved)
        throw format_error("zstd: block header " + util::hex(header) + " has the reserved block type 3", pos);
    if (b.block_size > block_maximum_size)
        throw format_error("zstd: block size " + std::to_string(b.block_size) + " exceeds the frame's block maximum " +
                               std::to_string(block_maximum_size),
                           pos);
    b.content_size = b.type == zstd_block_type::rle ? 1 : b.block_size;
    zstd_need(data, b.content_offset(), b.content_size, "block content");
    if (b.type != zstd_block_type::compressed) b.regenerated_size = b.block_size;
    return b;
}

// Checks the declared content size against what the blocks can regenerate, then lays out slots.
inline void zstd_layout_frame(zstd_frame& f, std::uint64_t known_bytes, std::uint64_t& staging) {
    const std::size_t compressed = f.compressed_blocks();
    if (f.content_size) {
        const std::uint64_t fcs = *f.content_size;
        const std::uint64_t reachable = known_bytes + std::uint64_t{compressed} * f.block_maximum_size;
        if (compressed == 0 ? known_bytes != fcs : reachable < fcs)
            throw format_error("zstd: frame declares " + std::to_string(fcs) + " content bytes but its blocks " +
                                   (compressed == 0 ? "regenerate " : "can regenerate at most ") +
                                   std::to_string(compressed == 0 ? known_bytes : reachable),
                               f.offset);
    }
    std::uint64_t slot = f.block_maximum_size;
    if (f.content_size) slot = std::min(slot, *f.content_size - known_bytes);
    slot = std::max<std::uint64_t>(slot, 1);
    f.output_offset = staging;
    f.exact_layout = true;
    for (auto& b : f.blocks) {
        if (b.type == zstd_block_type::compressed) {
            if (compressed == 1 && f.content_size)
                b.regenerated_size = static_cast<std::uint32_t>(*f.content_size - known_bytes);
            b.output_capacity = static_cast<std::uint32_t>(slot);
        } else {
            b.output_capacity = *b.regenerated_size;
        }
        f.exact_layout = f.exact_layout && b.regenerated_size == b.output_capacity;
        b.output_offset = staging;
        staging += b.output_capacity;
    }
    f.output_capacity = staging - f.output_offset;
}

// Thrown by zstd_parse_frame when its blocks reach past `stop_past` (a walk ahead's reach).
struct zstd_walk_stop {};

inline zstd_frame zstd_parse_frame(std::span<const std::uint8_t> data, std::uint64_t pos,
                                   const zstd_parse_options& options, std::uint64_t& staging,
                                   std::uint64_t stop_past = ~std::uint64_t{0}) {
    zstd_frame f;
    f.offset = pos;
    const zstd_frame_header h = zstd_parse_frame_header(data, pos + 4, options);
    f.window_size = h.window_size;
    f.dictionary_id = h.dictionary_id;
    f.single_segment = h.single_segment;
    f.content_size = h.content_size;
    f.block_maximum_size = static_cast<std::uint32_t>(std::min<std::uint64_t>(h.window_size, compression::zstd_max_block_bytes));
    std::uint64_t at = pos + 4 + h.size;
    std::uint64_t known_bytes = 0;  // raw + RLE; at most (file size / 3) * 128 KiB, far from overflow
    for (bool last = false; !last;) {
        zstd_block b = zstd_parse_block_header(data, at, f.block_maximum_size);
        if (b.regenerated_size) {
            known_bytes += *b.regenerated_size;
            if (f.content_size && known_bytes > *f.content_size)
                throw format_error("zstd: blocks regenerate more than the declared content size " +
                                       std::to_string(*f.content_size),
                                   at);
        }
        last = b.last;
        at = b.end_offset();
        if (at > stop_past) throw zstd_walk_stop{};
        if (zstd_table_bytes(1, f.blocks.size() + 1) > options.max_table_bytes) throw zstd_table_error_at(b.header_offset, options.max_table_bytes);
        f.blocks.push_back(b);
    }
    if (h.has_checksum) {
        zstd_need(data, at, 4, "content checksum");
        f.checksum = static_cast<std::uint32_t>(zstd_read_le(data, at, 4));
        f.checksum_offset = at;
        at += 4;
    }
    f.size = at - pos;
    zstd_layout_frame(f, known_bytes, staging);
    return f;
}

inline resource_error zstd_staging_error(std::uint64_t frame_offset, std::uint64_t staging, std::uint64_t max_output_size) {
    return resource_error("zstd: the frame at byte offset " + std::to_string(frame_offset) + " needs staging up to " +
                          std::to_string(staging) + " bytes, above max_output_size " + std::to_string(max_output_size));
}

} // namespace detail

// What parse_zstd checks with options.max_output_size, for a file parsed without that limit: the
// same resource_error, naming the first frame whose staging ends past max_output_size.
inline void check_zstd_staging(const zstd_file& file, std::uint64_t max_output_size) {
    for (const auto& f : file.frames)
        if (f.output_offset + f.output_capacity > max_output_size)
            throw detail::zstd_staging_error(f.offset, f.output_offset + f.output_capacity, max_output_size);
}

namespace detail {

// What starts at a position of a .zst file: a frame (laid out from staging 0) or a skippable
// frame. Throws as parse_zstd does.
struct zstd_element {
    std::uint64_t offset = 0;
    bool skippable = false;
    zstd_frame frame;
    zstd_skippable_frame skip;
    std::uint64_t end() const noexcept { return skippable ? skip.data_offset() + skip.data_size : offset + frame.size; }
};

inline zstd_element zstd_parse_element(std::span<const std::uint8_t> data, std::uint64_t pos, const zstd_parse_options& options,
                                       std::uint64_t stop_past = ~std::uint64_t{0}) {
    zstd_need(data, pos, 4, "frame magic number");
    const auto magic = static_cast<std::uint32_t>(zstd_read_le(data, pos, 4));
    zstd_element e;
    e.offset = pos;
    if (magic == zstd_magic) {
        std::uint64_t staging = 0;
        e.frame = zstd_parse_frame(data, pos, options, staging, stop_past);
    } else if (compression::is_skippable_magic(magic)) {
        zstd_need(data, pos, 8, "skippable frame header");
        e.skippable = true;
        e.skip = {pos, magic, static_cast<std::uint32_t>(zstd_read_le(data, pos + 4, 4))};
        zstd_need(data, e.skip.data_offset(), e.skip.data_size, "skippable frame data");
    } else {
        throw format_error("zstd: unknown frame magic number " + util::hex(magic) +
                               " (zstd frames start with 0xFD2FB528, skippable frames with 0x184D2A5?)",
                           pos);
    }
    return e;
}

// Appends an element to the file, the frame's slots moved to the end of the staging so far.
inline void zstd_append_element(zstd_file& file, zstd_element&& e, const zstd_parse_options& options) {
    if (e.skippable) {
        file.skippable_frames.push_back(e.skip);
        return;
    }
    zstd_frame& f = e.frame;
    const std::uint64_t base = file.staging_size;
    f.output_offset += base;
    for (auto& b : f.blocks) b.output_offset += base;
    file.staging_size += f.output_capacity;
    if (file.staging_size > options.max_output_size) throw zstd_staging_error(f.offset, file.staging_size, options.max_output_size);
    f.first_block = file.block_count;
    file.block_count += f.blocks.size();
    file.frames.push_back(std::move(f));
}

// The elements met walking from the first frame magic number in [from, to) until the walk passes
// `to` or meets something it cannot parse (it stops there: the file's own walk, if it comes this
// way, meets it again and reports it). A frame whose blocks reach a segment past `to` stops the
// walk too: a guess inside a frame may read on through fake blocks to the end of the file, and
// every segment's walk doing so would cost the time and memory of many walks of the file (a long
// true frame is then walked by the file's own walk instead).
inline std::vector<zstd_element> zstd_walk_ahead(std::span<const std::uint8_t> data, std::uint64_t from, std::uint64_t to,
                                                 const zstd_parse_options& options) {
    std::vector<zstd_element> out;
    static constexpr std::uint8_t magic[4] = {0x28, 0xB5, 0x2F, 0xFD}; // zstd_magic, little-endian
    const std::uint8_t* first = data.data() + from;
    const std::uint8_t* last = data.data() + std::min<std::uint64_t>(data.size(), to + 3);
    const std::uint8_t* hit = std::search(first, last, std::begin(magic), std::end(magic));
    if (hit == last) return out;
    const std::uint64_t reach = to + (to - from);
    // Records of up to a byte per byte of the segment: past that the file's walk goes on from here
    // and applies the budget (every segment's walk keeping more would add up to more than it).
    zstd_parse_options within = options;
    within.max_table_bytes = std::min(options.max_table_bytes, to - from);
    std::uint64_t kept = 0;
    for (std::uint64_t pos = static_cast<std::uint64_t>(hit - data.data()); pos < to && pos < data.size();) {
        try {
            out.push_back(zstd_parse_element(data, pos, within, reach));
            if (!out.back().skippable) kept += zstd_table_bytes(1, out.back().frame.blocks.size());
            if (kept > within.max_table_bytes) {
                out.pop_back();
                break;
            }
        } catch (const zstd_walk_stop&) {
            break;
        } catch (const std::exception&) { // malformed, or out of memory: the file's walk decides
            break;
        }
        pos = out.back().end();
    }
    return out;
}

// parse_zstd's walk over segments of `segment` bytes (0 or the file's size: one segment), every
// segment after the first walked ahead on up to `threads` threads (see parse_zstd). The fuzz
// target zstd_sections walks tiny segments on one thread and checks that nothing changes.
inline zstd_file zstd_parse_in_segments(std::span<const std::uint8_t> data, const zstd_parse_options& given, unsigned threads,
                                        std::uint64_t segment) {
    const zstd_parse_options options = with_table_budget(given, data.size());
    zstd_file file;
    if (segment == 0 || segment > data.size()) segment = std::max<std::uint64_t>(data.size(), 1);
    const std::uint64_t segments = (data.size() + segment - 1) / segment;
    std::vector<std::vector<zstd_element>> ahead(segments);
    if (segments > 1)
        util::parallel_for(segments - 1, threads, [&](std::size_t k) {
            const std::uint64_t from = (k + 1) * segment;
            ahead[k + 1] = zstd_walk_ahead(data, from, std::min<std::uint64_t>(data.size(), from + segment), options);
        });
    std::size_t guessed = 0;
    for (const auto& walked : ahead) guessed += walked.size();
    file.frames.reserve(guessed + guessed / 16);
    std::uint64_t pos = 0;
    for (std::uint64_t k = 0; k < segments; ++k) {
        const std::uint64_t end = std::min<std::uint64_t>(data.size(), (k + 1) * segment);
        auto& walked = ahead[k];
        const auto at = std::lower_bound(walked.begin(), walked.end(), pos, [](const zstd_element& e, std::uint64_t p) { return e.offset < p; });
        if (at != walked.end() && at->offset == pos) {
            for (auto e = at; e != walked.end(); ++e) {
                // A frame that would take the records past the budget is walked again below, so
                // that the error is the one walk's, at the same block.
                if (!e->skippable &&
                    zstd_table_bytes(file.frames.size() + 1, file.block_count + e->frame.blocks.size()) > options.max_table_bytes)
                    break;
                pos = e->end();
                zstd_append_element(file, std::move(*e), options);
            }
        }
        walked = {};
        while (pos < end) {
            // The records the file's walk keeps so far count against the budget of the next frame.
            zstd_parse_options left = options;
            const std::uint64_t kept = zstd_table_bytes(file.frames.size(), file.block_count);
            left.max_table_bytes = options.max_table_bytes - std::min(kept, options.max_table_bytes);
            zstd_element e = zstd_parse_element(data, pos, left);
            pos = e.end();
            zstd_append_element(file, std::move(e), options);
        }
    }
    return file;
}

} // namespace detail

// Parses every frame of a .zst file (several frames and skippable frames may follow each other).
// Throws format_error naming the byte offset on anything malformed or truncated, resource_error
// when the layout would need more than options.max_output_size bytes of staging.
//
// With options.threads other than 1 and a file of several MiB, threads first walk from the first
// frame magic number found in each of a number of segments of the file (a guess: those bytes may
// lie inside a frame); the file's own walk then takes a segment's elements from the first one that
// starts exactly where it has got to, since the walk from there is the same. Where none does, and
// for the first segment, it walks on its own, so results and errors are those of one walk.
inline zstd_file parse_zstd(std::span<const std::uint8_t> data, const zstd_parse_options& options = {}) {
    constexpr std::uint64_t min_segment = std::uint64_t{1} << 20;
    const unsigned threads = util::thread_count(options.threads);
    const std::uint64_t segments =
        threads <= 1 ? 1 : std::clamp<std::uint64_t>(data.size() / min_segment, 1, std::uint64_t{4} * threads);
    return detail::zstd_parse_in_segments(data, options, threads, (data.size() + segments - 1) / segments);
}

// One compression.zstd extent per block (3-byte header + content -> its staging slot, flags 0),
// frames in file order: the order the statuses come back in. make_block_batches turns them into
// 32-bit descriptors.
inline std::vector<compression::block_extent> zstd_block_extents(const zstd_file& file) {
    std::vector<compression::block_extent> out;
    out.reserve(file.block_count);
    for (const auto& f : file.frames)
        for (const auto& b : f.blocks)
            out.push_back({b.header_offset, b.output_offset,
                           static_cast<std::uint32_t>(compression::zstd_block_header_bytes + b.content_size), b.output_capacity, 0u});
    return out;
}

} // namespace vyre::format
