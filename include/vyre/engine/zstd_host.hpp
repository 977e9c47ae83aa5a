// The host half of the zstd pipeline (engine/zstd_decompress.hpp): the block path of the seed's
// hybrid design (after compression.zstd has written the raw and RLE blocks, decode the compressed
// blocks on the CPU with libzstd's block API and pack the output), whole frames with libzstd's frame
// API for the frames the pipeline routes to the host, and whole files on the host (the oracle).
#pragma once

// How the CPU pass keeps libzstd byte-exact. Within a frame, blocks are visited in order with one
// ZSTD_DCtx per frame (ZSTD_decompressBegin). The frame's output is rebuilt contiguously at the
// start of its staging region: a block already written by the device is slid down to the write
// position and announced with ZSTD_insertBlock; a compressed block is decoded there directly with
// ZSTD_decompressBlock, which finds its whole history (every earlier byte of the frame) right
// before it, exactly as in ZSTD_decompress. Since slots are never smaller than the blocks they
// hold, the write position never passes the start of a slot still to be read.
//
// libzstd anchors its history on the first destination it is given with a nonzero size; empty
// raw/RLE blocks are therefore not inserted, and a compressed block is always offered at least
// one byte of room (the layout's 1-byte minimum slot).

#include <vyre/compression/block.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_frame_checks.hpp>
#include <vyre/reference/zstd.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/parallel.hpp>

#ifndef ZSTD_STATIC_LINKING_ONLY
#define ZSTD_STATIC_LINKING_ONLY
#endif
#include <zstd.h>
#include <zstd_errors.h>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine {

// Who regenerated what. Device blocks: raw/RLE blocks whose device status was accepted as is.
// CPU blocks: compressed blocks, plus any block whose device status was not the expected one
// (counted again in redone_blocks; the seed's fallback for a block the device failed).
struct zstd_decode_stats {
    std::uint64_t device_blocks = 0;
    std::uint64_t device_bytes = 0;
    std::uint64_t cpu_blocks = 0;
    std::uint64_t cpu_bytes = 0;
    std::uint64_t redone_blocks = 0;
    std::uint64_t frames = 0;
    std::uint64_t skippable_frames = 0;

    zstd_decode_stats& operator+=(const zstd_decode_stats& o) noexcept {
        device_blocks += o.device_blocks;
        device_bytes += o.device_bytes;
        cpu_blocks += o.cpu_blocks;
        cpu_bytes += o.cpu_bytes;
        redone_blocks += o.redone_blocks;
        frames += o.frames;
        skippable_frames += o.skippable_frames;
        return *this;
    }
};

struct zstd_hybrid_result {
    std::uint64_t output_size = 0;  // staging[0, output_size) is the decompressed file
    zstd_decode_stats stats;
};

namespace detail {

struct zstd_dctx_deleter {
    void operator()(ZSTD_DCtx* d) const noexcept { ZSTD_freeDCtx(d); }
};
using zstd_dctx_ptr = std::unique_ptr<ZSTD_DCtx, zstd_dctx_deleter>;

inline zstd_dctx_ptr zstd_make_dctx() {
    zstd_dctx_ptr d(ZSTD_createDCtx());
    if (!d) throw resource_error("zstd: ZSTD_createDCtx failed (out of memory)");
    return d;
}

struct zstd_frame_outcome {
    std::uint64_t size = 0;
    zstd_decode_stats stats;
    std::exception_ptr failure;
};

// The device's answer is kept only when it is exactly what a raw/RLE block must produce.
inline bool zstd_device_done(const format::zstd_block& b, const compression::block_status& s) {
    return b.type != format::zstd_block_type::compressed && s.code == compression::zstd_error::none &&
           s.output_size == b.regenerated_size;
}

inline std::size_t zstd_decode_compressed(ZSTD_DCtx* dctx, std::span<const std::uint8_t> data, const format::zstd_block& b,
                                          std::uint32_t block_maximum_size, std::uint8_t* dst, std::size_t room) {
    // Room beyond the block maximum would let a hostile block regenerate more than RFC 8878 allows.
    const std::size_t capacity = std::min<std::size_t>(room, std::max<std::uint32_t>(block_maximum_size, 1));
    const std::size_t n =
        ZSTD_decompressBlock(dctx, dst, capacity, data.data() + b.content_offset(), b.content_size);
    if (ZSTD_isError(n) && ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
        throw format_error("zstd: compressed block regenerates more than " + std::to_string(capacity) +
                               " bytes, what its frame allows (block maximum " + std::to_string(block_maximum_size) +
                               ", and the declared content size when there is one)",
                           b.header_offset);
    if (ZSTD_isError(n))
        throw format_error(std::string("zstd: compressed block does not decode: ") + ZSTD_getErrorName(n),
                           b.header_offset);
    if (n > block_maximum_size)
        throw format_error("zstd: compressed block regenerates " + std::to_string(n) +
                               " bytes, above the frame's block maximum " + std::to_string(block_maximum_size),
                           b.header_offset);
    return n;
}

// A compressed block that writes its count of zero sequences in two bytes, which libzstd 1.5.4
// refuses though the format allows it: decoded as zstd_decode_compressed does, rewritten with the
// count in one byte (format::zstd_block_in_one_byte_counts); errors are named at the block's header.
inline std::size_t zstd_decode_rewritten(ZSTD_DCtx* dctx, std::span<const std::uint8_t> data, const format::zstd_block& b,
                                         std::uint32_t block_maximum_size, std::uint8_t* dst, std::size_t room) {
    const std::vector<std::uint8_t> rewritten = format::zstd_block_in_one_byte_counts(data, b);
    format::zstd_block alone = b;
    alone.header_offset = 0;
    alone.block_size = b.block_size - 1;
    alone.content_size = b.content_size - 1;
    try {
        return zstd_decode_compressed(dctx, rewritten, alone, block_maximum_size, dst, room);
    } catch (const format_error& e) {
        throw format_error(e.message(), b.header_offset);
    }
}

inline std::size_t zstd_redo_plain(std::span<const std::uint8_t> data, const format::zstd_block& b, std::span<std::uint8_t> dst) {
    const auto s = reference::zstd_decode_block(
        data.subspan(b.header_offset, vyre::compression::zstd_block_header_bytes + b.content_size), dst);
    if (s.code != compression::zstd_error::none)
        throw format_error(std::string("zstd: block rejected by the reference decoder: ") +
                               compression::zstd_error_name(s.code),
                           b.header_offset);
    return s.output_size;
}

// The content size and checksum checks of zstd_check_frame, in two steps, for frames whose bytes
// are hashed as they are made rather than from one finished buffer.
inline void zstd_check_size(const format::zstd_frame& f, std::uint64_t size) {
    if (f.content_size && *f.content_size != size)
        throw format_error("zstd: frame declares " + std::to_string(*f.content_size) + " content bytes but decodes to " +
                               std::to_string(size),
                           f.offset);
}

inline void zstd_check_digest(const format::zstd_frame& f, XXH64_state_t& hash) {
    if (!f.checksum) return;
    const auto computed = static_cast<std::uint32_t>(XXH64_digest(&hash));
    if (computed != *f.checksum)
        throw format_error("zstd: content checksum mismatch: stored " + util::hex(*f.checksum) + ", computed " +
                               util::hex(computed),
                           f.checksum_offset);
}

inline void zstd_check_frame(const format::zstd_frame& f, std::span<const std::uint8_t> content) {
    zstd_check_size(f, content.size());
    if (f.checksum) {
        const auto computed = static_cast<std::uint32_t>(XXH64(content.data(), content.size(), 0));
        if (computed != *f.checksum)
            throw format_error("zstd: content checksum mismatch: stored " + util::hex(*f.checksum) + ", computed " +
                                   util::hex(computed),
                               f.checksum_offset);
    }
}

// The error a frame refused by compression.zstd.frames or its CPU reference gets (statuses of
// compression/zstd_entropy.hpp): what failed, at its block's header.
[[noreturn]] inline void zstd_frame_refused(const format::zstd_frame& f, std::span<const std::uint32_t> status) {
    const std::uint32_t block = status[2];
    const std::uint64_t at = block < f.blocks.size() ? f.blocks[block].header_offset : f.offset;
    throw format_error(std::string("zstd: block ") + std::to_string(block) + " of the frame at byte offset " + std::to_string(f.offset) +
                           ": " + compression::zstd_frame_reason_text(status[3]) + " (" + compression::zstd_error_name(status[0]) +
                           ")",
                       at);
}

struct zstd_no_wait {
    void operator()(std::size_t) const noexcept {}
};

// Rebuilds one frame at the start of its staging region; returns its decoded size. The frame is
// first checked where libzstd is laxer than the format (format::check_zstd_frame); a block that
// libzstd would refuse though the format allows it (zero sequences counted in two bytes) goes to
// libzstd rewritten (format::zstd_block_in_one_byte_counts). A pipeline
// that overlaps this pass with the device passes before_device_block: it is called with the
// block's index (among all blocks of the file) before each raw or RLE block, and returns only
// when that block's status and staging bytes are in place. Compressed blocks are decoded here
// whatever their status says; their status only counts toward redone_blocks.
template <class Wait = zstd_no_wait>
inline zstd_frame_outcome zstd_finish_frame(ZSTD_DCtx* dctx, std::span<const std::uint8_t> data, const format::zstd_frame& f,
                                            std::span<const compression::block_status> statuses,
                                            std::span<std::uint8_t> staging, Wait&& before_device_block = {}) {
    if (f.dictionary_id != 0)
        throw format_error("zstd: frame needs dictionary " + std::to_string(f.dictionary_id) +
                               "; decoding with dictionaries is not supported",
                           f.offset + 4);
    zstd_frame_outcome out;
    out.stats.frames = 1;
    const bool two_byte_counts = format::check_zstd_frame(data, f).zero_sequences_in_two_bytes;
    ZSTD_decompressBegin(dctx);
    std::uint8_t* const base = staging.data();
    std::uint64_t w = f.output_offset;
    for (std::size_t i = 0; i < f.blocks.size(); ++i) {
        const format::zstd_block& b = f.blocks[i];
        if (b.type != format::zstd_block_type::compressed) before_device_block(f.first_block + i);
        const auto& s = statuses[f.first_block + i];
        const std::uint64_t room = b.output_offset + b.output_capacity - w;
        std::size_t n = 0;
        if (zstd_device_done(b, s)) {
            n = s.output_size;
            if (b.output_offset != w) std::memmove(base + w, base + b.output_offset, n);
            ++out.stats.device_blocks;
            out.stats.device_bytes += n;
        } else {
            const bool expected = b.type == format::zstd_block_type::compressed &&
                                  s.code == compression::zstd_error::unsupported_compressed_block;
            if (b.type != format::zstd_block_type::compressed) n = zstd_redo_plain(data, b, staging.subspan(w, room));
            else if (!two_byte_counts || !format::check_zstd_block(data, b)) n = zstd_decode_compressed(dctx, data, b, f.block_maximum_size, base + w, room);
            else n = zstd_decode_rewritten(dctx, data, b, f.block_maximum_size, base + w, room);
            ++out.stats.cpu_blocks;
            out.stats.cpu_bytes += n;
            out.stats.redone_blocks += expected ? 0 : 1;
        }
        if (b.type != format::zstd_block_type::compressed && n != 0) ZSTD_insertBlock(dctx, base + w, n);
        w += n;
    }
    out.size = w - f.output_offset;
    zstd_check_frame(f, staging.subspan(f.output_offset, out.size));
    return out;
}

// A DCtx for whole frames: the window limit raised to what the parser admits (libzstd's default
// of 2^27 would refuse frames that the block path decodes).
inline zstd_dctx_ptr zstd_make_frame_dctx() {
    zstd_dctx_ptr d = zstd_make_dctx();
    ZSTD_DCtx_setParameter(d.get(), ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX);
    return d;
}

// One whole frame with libzstd's frame API, into the start of its staging region; returns its
// decoded size. libzstd verifies the content size and checksum itself, hashing each block while
// it is still in cache, which is why a frame the host decodes anyway goes through here rather
// than through the block path above. The frame is first checked as there (format::check_zstd_frame;
// a frame libzstd wrongly refuses goes to it rewritten, format::zstd_frame_in_one_byte_counts).
// When libzstd refuses the frame, the block path runs over it
// to say what is wrong and where, in the same words as every other route (error path only); if
// that path happens to accept the frame, libzstd's verdict stands, named at the frame's offset.
inline zstd_frame_outcome zstd_decode_frame(ZSTD_DCtx* dctx, std::span<const std::uint8_t> data, const format::zstd_frame& f,
                                            std::span<std::uint8_t> staging) {
    if (f.dictionary_id != 0)
        throw format_error("zstd: frame needs dictionary " + std::to_string(f.dictionary_id) +
                               "; decoding with dictionaries is not supported",
                           f.offset + 4);
    zstd_frame_outcome out;
    out.stats.frames = 1;
    out.stats.cpu_blocks = f.blocks.size();
    std::vector<std::uint8_t> rewritten;
    if (format::check_zstd_frame(data, f).zero_sequences_in_two_bytes) rewritten = format::zstd_frame_in_one_byte_counts(data, f);
    const std::uint8_t* const frame = rewritten.empty() ? data.data() + f.offset : rewritten.data();
    const std::size_t n = ZSTD_decompressDCtx(dctx, staging.data() + f.output_offset, f.output_capacity, frame,
                                              rewritten.empty() ? f.size : rewritten.size());
    if (ZSTD_isError(n)) {
        format::zstd_frame alone = f;
        alone.first_block = 0;
        const std::vector<compression::block_status> none(
            f.blocks.size(), {compression::zstd_error::unsupported_compressed_block, 0});
        zstd_finish_frame(dctx, data, alone, none, staging); // throws the block path's format_error
        throw format_error(std::string("zstd: frame does not decode: ") + ZSTD_getErrorName(n), f.offset);
    }
    out.size = n;
    out.stats.cpu_bytes = n;
    return out;
}

inline void zstd_check_hybrid_inputs(std::span<const std::uint8_t> data, const format::zstd_file& file,
                                     std::span<const compression::block_status> statuses,
                                     std::span<std::uint8_t> staging) {
    if (statuses.size() < file.block_count)
        throw error("zstd: " + std::to_string(statuses.size()) + " block statuses for " +
                    std::to_string(file.block_count) + " blocks");
    if (staging.size() < file.staging_size)
        throw error("zstd: staging buffer of " + std::to_string(staging.size()) + " bytes, the layout needs " +
                    std::to_string(file.staging_size));
    if (!file.frames.empty()) {
        const format::zstd_frame& f = file.frames.back();
        if (f.offset + f.size > data.size())
            throw error("zstd: the parsed frames extend past the " + std::to_string(data.size()) + "-byte input");
    }
}

} // namespace detail

// Finishes a decompression the device started. `file` is format::parse_zstd(data); statuses[i] is the
// device's answer for the i-th block (zstd_block_extents order); staging holds what the device
// wrote at the layout's offsets. Frames are decoded in parallel (threads = 0: all hardware
// threads), then packed to the front of staging. Throws format_error for corrupt compressed
// blocks, a content size or checksum mismatch, and frames that need a dictionary.
inline zstd_hybrid_result decompress_zstd_hybrid_host(std::span<const std::uint8_t> data, const format::zstd_file& file,
                                                     std::span<const compression::block_status> statuses,
                                                     std::span<std::uint8_t> staging, unsigned threads = 0) {
    detail::zstd_check_hybrid_inputs(data, file, statuses, staging);
    const std::size_t frames = file.frames.size();
    std::vector<detail::zstd_frame_outcome> outcomes(frames);
    // One decompression context per thread, made on its first frame.
    util::parallel_chunks<detail::zstd_dctx_ptr>(frames, threads, 1, [&](std::size_t k, std::size_t, detail::zstd_dctx_ptr& dctx) {
        try {
            if (!dctx) dctx = detail::zstd_make_dctx();
            outcomes[k] = detail::zstd_finish_frame(dctx.get(), data, file.frames[k], statuses, staging);
        } catch (...) {
            outcomes[k].failure = std::current_exception();
        }
    });

    zstd_hybrid_result result;
    result.stats.skippable_frames = file.skippable_frames.size();
    for (std::size_t k = 0; k < frames; ++k) {
        if (outcomes[k].failure) std::rethrow_exception(outcomes[k].failure);
        const format::zstd_frame& f = file.frames[k];
        // Packing left to right never overwrites a frame not yet moved: every frame's output fits
        // in its own region, so the write position stays at or before the next region's start.
        if (f.output_offset != result.output_size)
            std::memmove(staging.data() + result.output_size, staging.data() + f.output_offset, outcomes[k].size);
        result.output_size += outcomes[k].size;
        result.stats += outcomes[k].stats;
    }
    return result;
}

// Layouts the input does not vouch for. A frame that does not declare its content size gives each
// compressed block a slot of Block_Maximum_Size (128 KiB), and five bytes of compressed block can
// truly regenerate that much, so a 40 KB file of tiny blocks lays out a gigabyte of staging before
// a byte is decoded. Staging is therefore allocated up front only while the part of it not
// proven by raw and RLE block sizes stays within zstd_trusted_staging(input size): 64 MiB plus
// 128 bytes per input byte, beyond the ratio of any real data that is not RLE blocks. A file
// past that is decoded with zstd_decode_growing, whose memory follows what really decodes.
inline constexpr std::uint64_t zstd_trusted_staging(std::uint64_t input_bytes) noexcept {
    constexpr std::uint64_t base = std::uint64_t{64} << 20, per_byte = 128;
    return input_bytes > (~std::uint64_t{0} - base) / per_byte ? ~std::uint64_t{0} : base + input_bytes * per_byte;
}

inline bool zstd_layout_unproven(const format::zstd_file& file, std::uint64_t input_bytes) noexcept {
    std::uint64_t proven = 0; // raw and RLE blocks: their slots are their exact sizes
    for (const auto& f : file.frames)
        for (const auto& b : f.blocks)
            if (b.type != format::zstd_block_type::compressed) proven += *b.regenerated_size;
    return file.staging_size - std::min(proven, file.staging_size) > zstd_trusted_staging(input_bytes);
}

namespace detail {

// The window libzstd's streaming decoder admits when it may write at most `limit` bytes: the
// parse's own limit (2^31, ZSTD_WINDOWLOG_MAX on 64-bit hosts) where the output may grow that
// large, else the smallest power of two that holds `limit`, never below libzstd's default (2^27).
// The streaming decoder reserves a frame's declared window (or its content size, if smaller), so
// a window no larger than the output it may write keeps that reservation within the limit.
inline int zstd_stream_window_log(std::uint64_t limit) noexcept {
    int log = 27;
    while (log < ZSTD_WINDOWLOG_MAX && (std::uint64_t{1} << log) < limit) ++log;
    return log;
}

// zstd_decode_growing's decoding with libzstd's streaming API, without its checks. `bound`: at
// most this many bytes come out where the caller knows it (a walk of the block headers), which
// caps the first allocation.
template <class OverLimit>
inline void zstd_stream_growing(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::uint64_t limit,
                                const std::string& who, std::uint64_t at, OverLimit over_limit,
                                std::uint64_t bound = ~std::uint64_t{0}) {
    std::size_t produced = out.size();
    if (in.empty()) return;
    const detail::zstd_dctx_ptr ds = detail::zstd_make_dctx();
    ZSTD_DCtx_setParameter(ds.get(), ZSTD_d_windowLogMax, zstd_stream_window_log(limit));
    const std::uint64_t guess = std::max<std::uint64_t>(std::uint64_t{in.size()} * 4, 64 * 1024);
    const std::uint64_t first = produced + (bound < guess ? bound + 1 : guess);
    out.resize(static_cast<std::size_t>(std::max<std::uint64_t>(produced, std::min(limit, first))));
    ZSTD_inBuffer src{in.data(), in.size(), 0};
    const auto refused = [&](const std::string& why) {
        out.resize(produced);
        return format_error(who + ": " + why, at);
    };
    for (;;) {
        if (produced == out.size() && out.size() < limit) {
            out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(limit, std::uint64_t{out.size()} * 2 + 1)));
        } else if (produced == out.size()) {
            // No room left below the limit: one more byte of output is over it.
            std::uint8_t extra = 0;
            ZSTD_outBuffer probe{&extra, 1, 0};
            const std::size_t r = ZSTD_decompressStream(ds.get(), &probe, &src);
            if (ZSTD_isError(r)) throw refused(ZSTD_getErrorName(r));
            if (probe.pos != 0) {
                out.resize(produced);
                throw over_limit();
            }
            if (src.pos == src.size) {
                if (r != 0) throw refused("the data ends inside a frame");
                break;
            }
            continue;
        }
        ZSTD_outBuffer dst{out.data(), out.size(), produced};
        const std::size_t r = ZSTD_decompressStream(ds.get(), &dst, &src);
        if (ZSTD_isError(r)) throw refused(ZSTD_getErrorName(r));
        produced = dst.pos;
        if (src.pos == src.size && r == 0) break; // every frame complete, the input used up
        if (src.pos == src.size && produced < out.size()) throw refused("the data ends inside a frame");
    }
    out.resize(produced);
}

} // namespace detail

// Appends the decoded zstd frames of `in` to `out` with libzstd's streaming API, growing `out` as
// the data proves itself (doubling from max(4 bytes per input byte, 64 KiB)), never holding more
// than `limit` bytes in all: memory follows the real output, not a declared size or a layout
// (`bound`, where the caller knows that at most so many bytes come out, caps the first buffer).
// One more byte than `limit` would take throws over_limit() (a callable returning the exception);
// libzstd's refusal or data that ends inside a frame throws format_error "WHO: <reason>" at byte
// offset `at`; a frame that breaks a rule libzstd does not check (format::check_zstd_frame), at
// `at` plus the offset inside `in` where it does. A frame libzstd wrongly refuses goes to it
// rewritten (format::zstd_frame_in_one_byte_counts). Windows up to zstd_stream_window_log(limit)
// are admitted; content checksums are verified.
template <class OverLimit>
inline void zstd_decode_growing(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::uint64_t limit,
                                const std::string& who, std::uint64_t at, OverLimit over_limit,
                                std::uint64_t bound = ~std::uint64_t{0}) {
    // The frames checked first, a block header at a time; a stream that does not parse is left to
    // libzstd, which refuses it in its own words.
    // An error inside the stream is named at its offset in the caller's input (`at` + its own).
    const auto within = [&](const format_error& e) {
        return format_error(who + ": " + e.message(), e.offset() == format_error::npos ? at : at + e.offset());
    };
    std::optional<std::vector<format::zstd_frame>> rewrite;
    try {
        rewrite = format::check_zstd_frames(in);
    } catch (const format_error& e) {
        throw within(e);
    }
    if (!rewrite) return detail::zstd_stream_growing(in, out, limit, who, at, over_limit, bound);
    // Frames libzstd would refuse though the format allows them (none that a zstd tool writes) go
    // to it rewritten; the bytes between them as they are.
    std::uint64_t from = 0;
    for (const format::zstd_frame& f : *rewrite) {
        if (f.offset > from)
            detail::zstd_stream_growing(in.subspan(from, f.offset - from), out, limit, who, at + from, over_limit, bound);
        const std::vector<std::uint8_t> rewritten = format::zstd_frame_in_one_byte_counts(in, f);
        detail::zstd_stream_growing(rewritten, out, limit, who, at + f.offset, over_limit, bound);
        from = f.offset + f.size;
    }
    if (from < in.size()) detail::zstd_stream_growing(in.subspan(from), out, limit, who, at + from, over_limit, bound);
}

// A file whose layout is unproven (zstd_layout_unproven), frame by frame into a growing buffer of
// at most `limit` bytes: the bytes, and each frame's decoded size in file order.
struct zstd_grown {
    std::vector<std::uint8_t> bytes;
    std::vector<std::uint64_t> frame_bytes;
};

template <class OverLimit>
inline zstd_grown zstd_decode_frames_growing(std::span<const std::uint8_t> data, const format::zstd_file& file, std::uint64_t limit,
                                             OverLimit over_limit) {
    zstd_grown g;
    g.frame_bytes.reserve(file.frames.size());
    for (const auto& f : file.frames) {
        const std::size_t before = g.bytes.size();
        zstd_decode_growing(data.subspan(f.offset, f.size), g.bytes, limit, "zstd: frame at byte offset " + std::to_string(f.offset),
                            f.offset, over_limit);
        g.frame_bytes.push_back(g.bytes.size() - before);
    }
    return g;
}

// A file with more tiny blocks or frames than a parse may list (format::zstd_table_error), decoded
// with libzstd's streaming decoder into memory that grows with its output, up to `limit` bytes:
// nothing is kept per block, so memory follows the output, not the block count. `frames` and
// `blocks` are counted by a walk that keeps nothing either.
struct zstd_streamed {
    std::vector<std::uint8_t> bytes;
    std::uint64_t frames = 0, skippable_frames = 0, blocks = 0;
};

template <class OverLimit>
inline zstd_streamed zstd_decode_streamed(std::span<const std::uint8_t> data, std::uint64_t limit, OverLimit over_limit) {
    zstd_streamed s;
    format::zstd_check_cursor walk(data);
    walk.advance(data.size());
    s.frames = walk.frames();
    s.skippable_frames = walk.skippable_frames();
    s.blocks = walk.blocks();
    // A file of empty blocks decodes to next to nothing: its first buffer is what its blocks can
    // hold, not four bytes per input byte.
    zstd_decode_growing(data, s.bytes, limit, "zstd", 0, over_limit, walk.stopped() ? ~std::uint64_t{0} : walk.output_bound());
    return s;
}

struct zstd_host_result {
    std::vector<std::uint8_t> output;
    zstd_decode_stats stats;
};

// The whole pipeline without a device: reference::zstd_decode_block stands in for the GPU op on
// every block (so compressed blocks come back as unsupported_compressed_block), then the hybrid
// CPU pass finishes. Its output equals ZSTD_decompress's byte for byte.
inline zstd_host_result decompress_zstd_host(std::span<const std::uint8_t> data,
                                                     const format::zstd_parse_options& options = {}, unsigned threads = 0) {
    format::zstd_parse_options unlimited = options;
    unlimited.max_output_size = ~std::uint64_t{0};
    const auto over_limit = [&] { return resource_error("zstd: the output passes max_output_size " + std::to_string(options.max_output_size)); };
    zstd_host_result result;
    format::zstd_file file;
    try {
        file = format::parse_zstd(data, unlimited);
    } catch (const format::zstd_table_error&) {
        auto s = zstd_decode_streamed(data, options.max_output_size, over_limit);
        result.output = std::move(s.bytes);
        result.stats.frames = s.frames;
        result.stats.skippable_frames = s.skippable_frames;
        result.stats.cpu_blocks = s.blocks;
        result.stats.cpu_bytes = result.output.size();
        return result;
    }
    if (zstd_layout_unproven(file, data.size())) {
        auto g = zstd_decode_frames_growing(data, file, options.max_output_size, over_limit);
        result.output = std::move(g.bytes);
        result.stats.frames = file.frames.size();
        result.stats.skippable_frames = file.skippable_frames.size();
        result.stats.cpu_blocks = file.block_count;
        result.stats.cpu_bytes = result.output.size();
        return result;
    }
    format::check_zstd_staging(file, options.max_output_size);
    result.output.resize(file.staging_size);
    std::vector<compression::block_status> statuses;
    statuses.reserve(file.block_count);
    for (const auto& f : file.frames)
        for (const auto& b : f.blocks)
            statuses.push_back(reference::zstd_decode_block(
                data.subspan(b.header_offset, vyre::compression::zstd_block_header_bytes + b.content_size),
                std::span(result.output).subspan(b.output_offset, b.output_capacity)));
    const auto hybrid = decompress_zstd_hybrid_host(data, file, statuses, result.output, threads);
    result.output.resize(hybrid.output_size);
    result.stats = hybrid.stats;
    return result;
}

} // namespace vyre::engine
