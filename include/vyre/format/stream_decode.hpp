// A compressed stream decoded piece by piece, in bounded memory: the codec library's own streaming
// decoder (zlib for gzip, libzstd, liblz4's frame API, liblzma for xz and lzma, libbz2) behind one
// pull interface. What reads it: format/salvage.hpp (the bytes before the damage of a stream that
// failed) and the windowed unpack of archives larger than memory (engine/detail/unpack_stream.hpp).
#pragma once

// A stream ends in one of three ways, and the decoder tells them apart:
//   - done():   the last frame or member ended where the input ends (gzip, bzip2, xz, zstd and LZ4
//               frames may be concatenated; zstd and LZ4 skippable frames decode to nothing; zero
//               bytes after a gzip member, a bzip2 stream or an xz stream are padding), or ended
//               before bytes that start no new one: trailing() counts those, and they are ignored,
//               as bsdtar and Python's bz2 and lzma modules ignore them (gzip -d warns);
//   - failed(): damage, a checksum that does not match, a limit (a zstd window above 128 MiB, an
//               xz dictionary above lzma_memory_limit), or an input that ends inside a frame;
//               error() says which, with the input's byte offset where it was found;
//   - neither:  more output is waiting (call read again).
// Trailing bytes that begin with a member's or frame's magic are read as that member or frame,
// and fail as damage if they are not one: only bytes that cannot be the start of one are trailing.
// A codec emits only what it has checked as far as its format lets it: zstd and LZ4 emit whole
// blocks, bzip2 a block once its CRC matched (libbz2 hands a block's bytes out before it checks
// them, so they are held here until it has), DEFLATE and LZMA emit as they go, so the last bytes
// before a corruption may be wrong. Checksums over a whole stream (gzip's CRC-32, zstd's XXH64) are checked at its end.

#include <vyre/compression/lz4.hpp>
#include <vyre/compression/skippable.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/format/bzip2.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/xz.hpp>
#include <vyre/format/zstd_frame_checks.hpp>
#include <vyre/util/little_endian.hpp>

#include <bzlib.h>
#include <lz4frame.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

// Whether stream_decoder reads `kind`.
inline bool stream_decodable(content_kind kind) noexcept {
    return kind == content_kind::gzip || kind == content_kind::zstd || kind == content_kind::lz4_frame ||
           kind == content_kind::xz || kind == content_kind::lzma || kind == content_kind::bzip2;
}

class stream_decoder {
public:
    // `in` must outlive the decoder. A kind stream_decodable refuses fails at the first read.
    stream_decoder(content_kind kind, std::span<const std::uint8_t> in) : kind_(kind), in_(in) { start(); }
    ~stream_decoder() { stop(); }
    stream_decoder(const stream_decoder&) = delete;
    stream_decoder& operator=(const stream_decoder&) = delete;

    // Decodes into `out`; returns how many bytes it wrote (0 only once done() or failed()).
    std::size_t read(std::span<std::uint8_t> out) {
        std::size_t wrote = 0;
        while (wrote < out.size() && !done_ && !failed()) {
            const std::uint64_t before = pos_;
            const std::size_t n = step(out.subspan(wrote));
            wrote += n;
            // Neither input taken nor output given: the library waits for input that is not there.
            if (n == 0 && pos_ == before && !done_ && !failed()) fail("the input ended inside the stream", pos_);
        }
        return wrote;
    }

    bool done() const noexcept { return done_; }
    bool failed() const noexcept { return !error_.empty(); }
    const std::string& error() const noexcept { return error_; }
    // Input bytes consumed so far.
    std::uint64_t consumed() const noexcept { return pos_; }
    // Output bytes produced so far.
    std::uint64_t produced() const noexcept { return produced_; }
    // Once done(): the bytes after the last member or frame that were ignored, and where they start.
    std::uint64_t trailing() const noexcept { return trailing_; }
    std::uint64_t trailing_at() const noexcept { return trailing_at_; }
    // "gzip: 39 bytes after the last member are not gzip data and were ignored (input byte offset 206)".
    std::string trailing_message() const {
        const char* unit = kind_ == content_kind::gzip ? "member" : kind_ == content_kind::zstd || kind_ == content_kind::lz4_frame ? "frame" : "stream";
        return std::string(content_kind_name(kind_)) + ": " + std::to_string(trailing_) + " byte(s) after the last " + unit +
               " are not " + content_kind_name(kind_) + " data and were ignored (input byte offset " + std::to_string(trailing_at_) + ")";
    }

private:
    content_kind kind_;
    std::span<const std::uint8_t> in_;
    std::uint64_t pos_ = 0;
    std::uint64_t produced_ = 0;
    bool done_ = false;
    std::uint64_t trailing_ = 0, trailing_at_ = 0;
    std::string error_;
    bool started_ = false; // the library's state below is live
    z_stream z_{};
    ZSTD_DCtx* zstd_ = nullptr;
    std::size_t zstd_hint_ = 1; // 0 once a zstd frame ended with its output flushed
    // libzstd is given only input whose frames are checked where it is laxer than the format
    // (format/zstd_frame_checks.hpp), walked this far ahead of it; the first block the checks
    // refuse is reported once libzstd has decoded every block before it.
    static constexpr std::uint64_t zstd_check_ahead = std::uint64_t{256} << 10;
    std::optional<zstd_check_cursor> zstd_checks_;
    std::string zstd_refused_;
    std::uint64_t zstd_refused_at_ = 0;
    // A block that writes its count of zero sequences in two bytes, which libzstd 1.5.4 refuses
    // though the format allows it, goes to libzstd rewritten with the count in one byte
    // (zstd_block_in_one_byte_counts), in place of its own bytes [zstd_detour_from_, end).
    std::vector<std::uint8_t> zstd_detour_;
    std::size_t zstd_detour_at_ = 0;
    std::uint64_t zstd_detour_from_ = 0;
    LZ4F_dctx* lz4_ = nullptr;
    lzma_stream lzma_ = LZMA_STREAM_INIT;
    bz_stream bz_{};
    // A bzip2 block's bytes, held until libbz2 has checked the block's CRC, and how many of them
    // have been handed out.
    std::vector<std::uint8_t> bz_held_;
    std::size_t bz_held_at_ = 0;
    static constexpr std::size_t bz_hold_step = std::size_t{1} << 20;

    // The library's chunk of input at a time: zlib and libbz2 count in 32-bit unsigned ints.
    static constexpr std::uint64_t chunk = std::uint64_t{1} << 30;

    // The stream ended at pos_ and what follows starts no new member or frame.
    void end_before_trailing() {
        trailing_at_ = pos_;
        trailing_ = left();
        done_ = true;
    }

    void fail(std::string why, std::uint64_t at) {
        if (error_.empty()) error_ = std::string(content_kind_name(kind_)) + ": " + why + " (input byte offset " + std::to_string(at) + ")";
    }

    void start() {
        switch (kind_) {
        case content_kind::gzip:
            started_ = inflateInit2(&z_, 15 + 16) == Z_OK;
            break;
        case content_kind::zstd:
            zstd_checks_.emplace(in_);
            zstd_checks_->keep_blocks = true;
            zstd_ = ZSTD_createDCtx();
            // Frames that ask for a window above 128 MiB (what zstd --long=27 writes) are refused,
            // so a 10-byte header cannot ask for gigabytes here.
            if (zstd_) ZSTD_DCtx_setParameter(zstd_, ZSTD_d_windowLogMax, 27);
            started_ = zstd_ != nullptr;
            break;
        case content_kind::lz4_frame:
            started_ = !LZ4F_isError(LZ4F_createDecompressionContext(&lz4_, LZ4F_VERSION));
            break;
        case content_kind::xz:
        case content_kind::lzma:
            // xz streams one at a time (concatenation is handled in lzma_step, so that bytes after
            // the last stream are told apart from damage).
            started_ = (kind_ == content_kind::xz ? lzma_stream_decoder(&lzma_, lzma_memory_limit, 0)
                                                  : lzma_alone_decoder(&lzma_, lzma_memory_limit)) == LZMA_OK;
            break;
        case content_kind::bzip2:
            started_ = BZ2_bzDecompressInit(&bz_, 0, 0) == BZ_OK;
            break;
        default: break;
        }
        if (!started_) fail(stream_decodable(kind_) ? "the decoder could not be set up" : "not a stream this decoder reads", 0);
    }

    void stop() {
        if (!started_) return;
        switch (kind_) {
        case content_kind::gzip: inflateEnd(&z_); break;
        case content_kind::zstd: ZSTD_freeDCtx(zstd_); break;
        case content_kind::lz4_frame: LZ4F_freeDecompressionContext(lz4_); break;
        case content_kind::xz:
        case content_kind::lzma: lzma_end(&lzma_); break;
        case content_kind::bzip2: BZ2_bzDecompressEnd(&bz_); break;
        default: break;
        }
        started_ = false;
    }

    // One call of the library: returns the bytes it wrote; sets done_ or the error.
    std::size_t step(std::span<std::uint8_t> out) {
        const std::size_t n = [&] {
            switch (kind_) {
            case content_kind::gzip: return gzip_step(out);
            case content_kind::zstd: return zstd_step(out);
            case content_kind::lz4_frame: return lz4_step(out);
            case content_kind::bzip2: return bzip2_step(out);
            default: return lzma_step(out);
            }
        }();
        produced_ += n;
        return n;
    }

    std::uint64_t left() const { return in_.size() - pos_; }
    bool zeros_to_the_end() const {
        return std::all_of(in_.begin() + static_cast<std::ptrdiff_t>(pos_), in_.end(), [](std::uint8_t b) { return b == 0; });
    }

    // After a zstd or LZ4 frame: whether the next bytes are the magic of a frame of its kind or of a
    // skippable frame (which the library reads next; fewer than 4 bytes are none).
    bool frame_magic_here() const {
        if (left() < 4) return false;
        const std::uint32_t m = util::read_le32(in_, pos_);
        return compression::is_skippable_magic(m) || m == (kind_ == content_kind::zstd ? compression::zstd_magic : compression::lz4_frame_magic);
    }

    // After an xz stream: skips its zero padding, which comes in multiples of 4 bytes (false
    // where it does not).
    bool skip_xz_padding() {
        std::uint64_t p = pos_;
        while (p < in_.size() && in_[p] == 0) ++p;
        if ((p - pos_) % 4 != 0) return false;
        pos_ = p;
        return true;
    }

    // Whether the bytes at pos_ begin like a member or frame of this kind (its magic number, or as
    // much of it as is left): such bytes are a member or frame that is cut or damaged, not
    // trailing bytes.
    bool starts_like_a_stream() const {
        const auto rest = in_.subspan(static_cast<std::size_t>(pos_));
        const auto prefix_of = [&](std::span<const std::uint8_t> magic) {
            const std::size_t n = std::min(rest.size(), magic.size());
            return n > 0 && std::equal(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(n), magic.begin());
        };
        const auto le32 = [](std::uint32_t m) {
            return std::array<std::uint8_t, 4>{std::uint8_t(m), std::uint8_t(m >> 8), std::uint8_t(m >> 16), std::uint8_t(m >> 24)};
        };
        switch (kind_) {
        case content_kind::gzip: return prefix_of(std::array<std::uint8_t, 2>{gzip_id1, gzip_id2});
        case content_kind::bzip2: return prefix_of(std::array<std::uint8_t, 3>{'B', 'Z', 'h'});
        case content_kind::xz: return prefix_of(xz_magic);
        case content_kind::zstd:
        case content_kind::lz4_frame: {
            // A skippable frame's magic is 0x184D2A5?: its first byte's high half, then three bytes.
            const std::array<std::uint8_t, 4> skippable = le32(compression::skippable_magic_first);
            const bool skip = !rest.empty() && (rest[0] & 0xF0) == skippable[0] &&
                              std::equal(rest.begin() + 1, rest.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(rest.size(), 4)), skippable.begin() + 1);
            return skip || prefix_of(le32(kind_ == content_kind::zstd ? compression::zstd_magic : compression::lz4_frame_magic));
        }
        default: return false;
        }
    }

    // After the last member or frame: what follows is trailing bytes, or a cut or damaged one.
    void trailing_or_damage() {
        if (kind_ != content_kind::lzma && starts_like_a_stream()) fail("a frame or stream after the last one is cut or damaged", pos_);
        else end_before_trailing();
    }

    std::size_t gzip_step(std::span<std::uint8_t> out) {
        const std::size_t room = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), chunk));
        const std::uint64_t given = std::min(left(), chunk);
        z_.next_in = const_cast<Bytef*>(in_.data() + pos_);
        z_.avail_in = static_cast<uInt>(given);
        z_.next_out = out.data();
        z_.avail_out = static_cast<uInt>(room);
        const int r = inflate(&z_, Z_NO_FLUSH);
        pos_ += given - z_.avail_in;
        const std::size_t wrote = room - z_.avail_out;
        if (r == Z_STREAM_END) {
            if (left() == 0 || zeros_to_the_end()) done_ = true; // zero padding (tape blocks), as gzip -d reads it
            else if (left() >= 2 && in_[pos_] == gzip_id1 && in_[pos_ + 1] == gzip_id2) inflateReset(&z_); // the next member
            else if (starts_like_a_stream()) fail("a member's header is cut or damaged", pos_);
            else end_before_trailing();
        } else if (r == Z_BUF_ERROR && left() == 0) {
            fail("the input ended inside a member", pos_);
        } else if (r != Z_OK && r != Z_BUF_ERROR) {
            fail(z_.msg ? z_.msg : "inflate error " + std::to_string(r), pos_);
        }
        return wrote;
    }

    // How far libzstd may read: the end of the checked frames, or of the blocks before a refused one.
    std::uint64_t zstd_checked_to() {
        if (zstd_refused_.empty()) {
            try {
                zstd_checks_->advance(pos_ + zstd_check_ahead);
            } catch (const format_error& e) {
                const std::string& m = e.message();
                const std::string prefix = "zstd: ";
                zstd_refused_ = m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
                zstd_refused_at_ = e.offset();
            }
        }
        return std::max(pos_, zstd_checks_->checked_to());
    }

    std::size_t zstd_step(std::span<std::uint8_t> out) {
        std::uint64_t limit = zstd_checked_to();
        std::deque<zstd_block>& rewrite = zstd_checks_->two_byte_blocks;
        // Never behind pos_ (libzstd stops at the first one), and dropped if it were.
        while (zstd_detour_.empty() && !rewrite.empty() && rewrite.front().header_offset < pos_) rewrite.pop_front();
        if (zstd_detour_.empty() && !rewrite.empty() && rewrite.front().header_offset == pos_) {
            zstd_detour_ = zstd_block_in_one_byte_counts(in_, rewrite.front());
            zstd_detour_at_ = 0;
            zstd_detour_from_ = pos_;
            rewrite.pop_front();
        }
        const bool detour = !zstd_detour_.empty();
        // libzstd stops at the next block to rewrite (the walk reports it before libzstd may reach it).
        if (!detour && !rewrite.empty()) limit = std::min(limit, rewrite.front().header_offset);
        ZSTD_inBuffer src = detour ? ZSTD_inBuffer{zstd_detour_.data() + zstd_detour_at_, zstd_detour_.size() - zstd_detour_at_, 0}
                                   : ZSTD_inBuffer{in_.data() + pos_, static_cast<std::size_t>(limit - pos_), 0};
        ZSTD_outBuffer dst{out.data(), out.size(), 0};
        const std::size_t r = ZSTD_decompressStream(zstd_, &dst, &src);
        if (!detour) {
            pos_ += src.pos;
        } else {
            // Rewritten byte i stands for input byte from + i, its last for the input's last two.
            zstd_detour_at_ += src.pos;
            pos_ = zstd_detour_from_ + zstd_detour_at_ + (zstd_detour_at_ == zstd_detour_.size() ? 1 : 0);
            if (zstd_detour_at_ == zstd_detour_.size()) zstd_detour_.clear();
        }
        if (ZSTD_isError(r)) {
            fail(ZSTD_getErrorName(r), pos_);
        } else if (!detour && dst.pos == 0 && pos_ == limit && !zstd_refused_.empty() && (rewrite.empty() || rewrite.front().header_offset != pos_)) {
            fail(zstd_refused_, zstd_refused_at_); // every block before the refused one is out
        } else {
            zstd_hint_ = r;
            // 0: a frame ended and its output is flushed; done where the input ends there too, or
            // where what follows is no frame.
            if (r == 0 && left() == 0) done_ = true;
            else if (r == 0 && !frame_magic_here()) trailing_or_damage();
            else if (dst.pos == 0 && src.pos == 0 && left() == 0) fail("the input ended inside a frame", pos_);
        }
        return dst.pos;
    }

    std::size_t lz4_step(std::span<std::uint8_t> out) {
        std::size_t dst = out.size(), src = static_cast<std::size_t>(left());
        const std::size_t r = LZ4F_decompress(lz4_, out.data(), &dst, in_.data() + pos_, &src, nullptr);
        pos_ += src;
        if (LZ4F_isError(r)) fail(LZ4F_getErrorName(r), pos_);
        else if (r == 0 && left() == 0) done_ = true; // a frame ended where the input ends
        else if (r == 0 && !frame_magic_here()) trailing_or_damage();
        else if (dst == 0 && src == 0 && left() == 0) fail("the input ended inside a frame", pos_);
        return dst;
    }

    std::size_t lzma_step(std::span<std::uint8_t> out) {
        lzma_.next_in = in_.data() + pos_;
        lzma_.avail_in = static_cast<std::size_t>(left());
        lzma_.next_out = out.data();
        lzma_.avail_out = out.size();
        const lzma_ret r = lzma_code(&lzma_, LZMA_FINISH);
        pos_ = in_.size() - lzma_.avail_in;
        const std::size_t wrote = out.size() - lzma_.avail_out;
        if (r == LZMA_STREAM_END) {
            if (left() == 0) {
                done_ = true;
            } else if (kind_ == content_kind::lzma) {
                trailing_or_damage(); // an lzma stream is one stream
            } else if (!skip_xz_padding()) {
                fail("xz stream padding of a length that is not a multiple of 4", pos_);
            } else if (left() == 0) {
                done_ = true;
            } else if (is_xz(in_.subspan(static_cast<std::size_t>(pos_)))) {
                lzma_end(&lzma_);
                lzma_ = LZMA_STREAM_INIT;
                started_ = lzma_stream_decoder(&lzma_, lzma_memory_limit, 0) == LZMA_OK;
                if (!started_) fail("the decoder could not be set up", pos_);
            } else {
                trailing_or_damage();
            }
        } else if (r == LZMA_BUF_ERROR) {
            fail("the input ended inside the stream", pos_);
        } else if (r == LZMA_MEMLIMIT_ERROR) {
            fail("the dictionary needs more than " + std::to_string(lzma_memory_limit >> 20) + " MiB of memory", pos_);
        } else if (r != LZMA_OK) {
            fail(r == LZMA_DATA_ERROR ? "corrupt data" : r == LZMA_FORMAT_ERROR ? "not a stream of this format"
                     : r == LZMA_OPTIONS_ERROR ? "unsupported options" : r == LZMA_BUF_ERROR ? "truncated"
                     : "decoder error " + std::to_string(static_cast<int>(r)),
                 pos_);
        }
        return wrote;
    }

    // A block's checked bytes are handed out first. Then one call with input and no room for
    // output reads at most to the end of the next block (libbz2 then waits to write it out), and
    // calls with room and no input write the block's bytes out until libbz2 has checked its CRC
    // and asks for input again; only then are they handed out. A block that fails its CRC hands
    // out none of its bytes.
    std::size_t bzip2_step(std::span<std::uint8_t> out) {
        const auto hand_out = [&] {
            const std::size_t n = std::min(out.size(), bz_held_.size() - bz_held_at_);
            std::copy_n(bz_held_.begin() + static_cast<std::ptrdiff_t>(bz_held_at_), n, out.begin());
            bz_held_at_ += n;
            return n;
        };
        if (bz_held_at_ < bz_held_.size()) return hand_out();
        bz_held_.clear();
        bz_held_at_ = 0;
        const auto refused = [&](int r) {
            bz_held_.clear();
            fail(r == BZ_DATA_ERROR ? "corrupt data (a block's CRC or structure)" : r == BZ_DATA_ERROR_MAGIC ? "not a bzip2 stream"
                     : "decoder error " + std::to_string(r),
                 pos_);
            return std::size_t{0};
        };
        const std::uint64_t given = std::min(left(), chunk);
        char no_room = 0;
        bz_.next_in = const_cast<char*>(reinterpret_cast<const char*>(in_.data() + pos_));
        bz_.avail_in = static_cast<unsigned>(given);
        bz_.next_out = &no_room;
        bz_.avail_out = 0;
        int r = BZ2_bzDecompress(&bz_);
        pos_ += given - bz_.avail_in;
        if (r == BZ_STREAM_END) {
            // Concatenated streams (what pbzip2 writes) follow one another.
            if (left() == 0 || zeros_to_the_end()) {
                done_ = true;
            } else if (is_bzip2(in_.subspan(static_cast<std::size_t>(pos_)))) {
                BZ2_bzDecompressEnd(&bz_);
                bz_ = {};
                started_ = BZ2_bzDecompressInit(&bz_, 0, 0) == BZ_OK;
                if (!started_) fail("the decoder could not be set up", pos_);
            } else {
                trailing_or_damage();
            }
            return 0;
        }
        if (r != BZ_OK) return refused(r);
        for (;;) {
            const std::size_t have = bz_held_.size();
            bz_held_.resize(have + bz_hold_step);
            bz_.next_in = nullptr;
            bz_.avail_in = 0;
            bz_.next_out = reinterpret_cast<char*>(bz_held_.data() + have);
            bz_.avail_out = static_cast<unsigned>(bz_hold_step);
            r = BZ2_bzDecompress(&bz_);
            bz_held_.resize(have + (bz_hold_step - bz_.avail_out));
            if (r != BZ_OK) return refused(r);
            if (bz_.avail_out != 0) break; // the block is out and its CRC matched, or libbz2 waits for input
        }
        if (bz_held_.empty() && left() == 0) fail("the input ended inside the stream", pos_);
        return hand_out();
    }
};

} // namespace vyre::format
