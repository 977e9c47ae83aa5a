// CPU oracle of compression.zstd.frames: whole Zstandard frames regenerated from the records and
// tables that format/zstd_sections.hpp lays out (compression/zstd_entropy.hpp), one frame after
// another, in the order and with the checks the device program uses, so that both leave the same
// statuses and, for frames that decode, the same bytes.
#pragma once

#include <vyre/compression/zstd.hpp>
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/error.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>

namespace vyre::reference {

namespace detail {

// A backward bitstream (RFC 8878 4.1): bits are read from the end of [begin, begin + size),
// highest first, after the end marker (the last byte's highest set bit). Reads past the first
// byte give zeros; the stream was consumed exactly when `left` ends at 0.
class zstd_backward_bits {
public:
    zstd_backward_bits(std::span<const std::uint8_t> stream) : s_(stream) {
        marker_ = !s_.empty() && s_.back() != 0;
        left_ = marker_ ? static_cast<std::int64_t>(s_.size()) * 8 - std::countl_zero(s_.back()) - 1 : 0;
    }
    bool has_marker() const noexcept { return marker_; }
    std::uint32_t peek(std::uint32_t n) const {
        std::uint32_t v = 0;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::int64_t bit = left_ - n + i;
            if (bit >= 0) v |= ((s_[static_cast<std::size_t>(bit / 8)] >> (bit % 8)) & 1u) << i;
        }
        return v;
    }
    void skip(std::uint32_t n) noexcept { left_ -= n; }
    std::uint32_t read(std::uint32_t n) {
        const std::uint32_t v = peek(n);
        skip(n);
        return v;
    }
    bool consumed_exactly() const noexcept { return left_ == 0; }

private:
    std::span<const std::uint8_t> s_;
    std::int64_t left_ = 0;
    bool marker_ = false;
};

} // namespace detail

// Regenerates every frame of `frames` (compression::zstd_frame_words each) into its region of
// `output`, through `literals` (scratch), writing compression::zstd_status_words per frame.
// Records and tables are untrusted: every range is checked against its buffer.
inline void zstd_decode_frames(std::span<const std::uint8_t> input, std::span<const std::uint32_t> frames,
                               std::span<const std::uint32_t> blocks, std::span<const std::uint32_t> tables,
                               std::span<std::uint8_t> literals, std::span<std::uint8_t> output, std::span<std::uint32_t> statuses) {
    namespace c = compression;
    namespace field = c::zstd_block_field;
    namespace why = c::zstd_frame_reason;
    const std::size_t count = frames.size() / c::zstd_frame_words;
    if (statuses.size() < count * c::zstd_status_words)
        throw resource_error("zstd_decode_frames: " + std::to_string(count) + " frames but room for " +
                             std::to_string(statuses.size() / c::zstd_status_words) + " statuses");
    const auto within = [](std::uint64_t at, std::uint64_t n, std::uint64_t size) { return at <= size && n <= size - at; };
    // A table's word offset and accuracy are usable when its entries lie in `tables`.
    const auto table_ok = [&](std::uint32_t at) {
        return at < tables.size() && tables[at] <= c::zstd_literal_length_max_log && within(at + 1ull, std::uint64_t{1} << tables[at], tables.size());
    };
    for (std::size_t fi = 0; fi < count; ++fi) {
        const std::uint32_t first = frames[fi * c::zstd_frame_words], nblocks = frames[fi * c::zstd_frame_words + 1];
        const std::uint32_t out_base = frames[fi * c::zstd_frame_words + 2], cap = frames[fi * c::zstd_frame_words + 3];
        std::uint32_t op = 0, bi = 0, reason = why::none;
        std::array<std::uint32_t, 3> rep{1, 4, 8};
        const auto out = [&](std::uint32_t at) -> std::uint8_t& { return output[out_base + at]; };
        if (!within(std::uint64_t{first} * c::zstd_block_words, std::uint64_t{nblocks} * c::zstd_block_words, blocks.size()) ||
            !within(out_base, cap, output.size()))
            reason = why::bad_record;
        for (; reason == why::none && bi < nblocks; ++bi) {
            const std::uint32_t* rec = blocks.data() + (std::size_t{first} + bi) * c::zstd_block_words;
            const std::uint32_t kind = rec[field::kind], type = kind & 3u, size = rec[field::size], src = rec[field::source];
            if (type < 2) {
                if (!within(src, type == 0 ? size : 1u, input.size())) { reason = why::bad_record; break; }
                if (size > cap - op) { reason = why::capacity; break; }
                for (std::uint32_t i = 0; i < size; ++i) out(op + i) = input[src + (type == 0 ? i : 0)];
                op += size;
                continue;
            }
            const std::uint32_t lit_type = (kind >> 2) & 3u, lit_at = rec[field::literals_at], maximum = rec[field::maximum];
            if (type != 2 || lit_type > 2 || !within(lit_at, size, literals.size())) { reason = why::bad_record; break; }
            if (size > maximum) { reason = why::block_maximum; break; }
            // ---- literals into scratch
            if (lit_type == c::zstd_literals_raw || lit_type == c::zstd_literals_rle) {
                if (!within(src, lit_type == c::zstd_literals_raw ? size : 1u, input.size())) { reason = why::bad_record; break; }
                for (std::uint32_t i = 0; i < size; ++i) literals[lit_at + i] = input[src + (lit_type == c::zstd_literals_raw ? i : 0)];
            } else {
                // The code's table, expanded as the device expands it (entries no symbol claims
                // decode symbol 0 with 0 bits; plan_zstd_sections never leaves any).
                const std::uint32_t table = rec[field::huffman_table];
                if (table >= tables.size()) { reason = why::bad_record; break; }
                const std::uint32_t bits = tables[table] & 0xFFu, nsym = tables[table] >> 8;
                if (bits == 0 || bits > c::zstd_huffman_max_bits || nsym > 256 || !within(table + 1ull, nsym, tables.size())) {
                    reason = why::bad_record;
                    break;
                }
                std::array<std::uint32_t, 1u << c::zstd_huffman_max_bits> expanded{};
                for (std::uint32_t i = 0; i < nsym; ++i) {
                    const std::uint32_t e = tables[table + 1 + i], n = (e >> 8) & 15u, first = e >> 12;
                    if (n == 0 || n > bits) continue;
                    for (std::uint32_t j = first; j < first + (1u << (bits - n)) && j < (1u << bits); ++j) expanded[j] = e & 0xFFFu;
                }
                const std::uint32_t streams = (kind & c::zstd_four_streams) ? 4 : 1;
                const std::uint32_t segment = streams == 4 ? (size + 3) / 4 : size;
                if (std::uint64_t{segment} * (streams - 1) > size) { reason = why::literals_stream; break; }
                // Every stream is decoded; a range outside the input outranks a corrupt stream.
                std::uint64_t at = src;
                bool bad_range = false, bad_stream = false;
                for (std::uint32_t s = 0; s < streams; ++s) {
                    const std::uint32_t n = rec[field::stream_sizes + s];
                    const std::uint32_t symbols = s + 1 < streams ? segment : size - segment * (streams - 1);
                    if (!within(at, n, input.size())) {
                        bad_range = true;
                        at += n;
                        continue;
                    }
                    detail::zstd_backward_bits in(input.subspan(at, n));
                    for (std::uint32_t i = 0; i < symbols; ++i) {
                        const std::uint32_t e = expanded[in.peek(bits)];
                        in.skip(e >> 8);
                        literals[lit_at + s * segment + i] = static_cast<std::uint8_t>(e);
                    }
                    bad_stream = bad_stream || !in.has_marker() || !in.consumed_exactly();
                    at += n;
                }
                reason = bad_range ? why::bad_record : bad_stream ? why::literals_stream : why::none;
                if (reason != why::none) break;
            }
            // ---- sequences
            const std::uint32_t nseq = rec[field::sequences];
            const std::uint32_t block_start = op;
            std::uint32_t lit_pos = 0;
            if (nseq != 0) {
                const std::uint32_t llt = rec[field::literal_length_table], oft = rec[field::offset_table], mlt = rec[field::match_length_table];
                const std::uint32_t seq_at = rec[field::sequences_at], seq_size = rec[field::sequences_size];
                if (tables.size() < c::zstd_match_values_at + 64u || !table_ok(llt) || !table_ok(oft) || !table_ok(mlt) ||
                    !within(seq_at, seq_size, input.size())) {
                    reason = why::bad_record;
                    break;
                }
                detail::zstd_backward_bits in(input.subspan(seq_at, seq_size));
                if (!in.has_marker()) { reason = why::sequences_stream; break; }
                std::uint32_t ls = in.read(tables[llt]), os = in.read(tables[oft]), ms = in.read(tables[mlt]);
                for (std::uint32_t i = 0; i < nseq; ++i) {
                    const std::uint32_t le = tables[llt + 1 + ls], oe = tables[oft + 1 + os], me = tables[mlt + 1 + ms];
                    const std::uint32_t lv = tables[(le >> 4) & 63u], mv = tables[c::zstd_match_values_at + ((me >> 4) & 63u)];
                    // Bit counts are masked and states kept inside their tables (records are
                    // untrusted; those plan_zstd_sections makes never reach the masks).
                    const std::uint32_t of_code = (oe >> 4) & 31u;
                    const std::uint32_t ofv = (1u << of_code) + in.read(of_code);
                    const std::uint32_t ml = (mv & 0xFFFFFFu) + in.read((mv >> 24) & 31u);
                    const std::uint32_t ll = (lv & 0xFFFFFFu) + in.read((lv >> 24) & 31u);
                    if (i + 1 < nseq) {
                        ls = ((le >> 10) + in.read(le & 15u)) & ((1u << tables[llt]) - 1u);
                        ms = ((me >> 10) + in.read(me & 15u)) & ((1u << tables[mlt]) - 1u);
                        os = ((oe >> 10) + in.read(oe & 15u)) & ((1u << tables[oft]) - 1u);
                    }
                    // Repeat offsets (RFC 8878 3.1.1.5).
                    std::uint32_t off;
                    if (ofv > 3) {
                        off = ofv - 3;
                        rep = {off, rep[0], rep[1]};
                    } else {
                        const std::uint32_t index = ofv - 1 + (ll == 0 ? 1 : 0);
                        if (index == 0) {
                            off = rep[0];
                        } else {
                            off = index == 3 ? rep[0] - 1 : rep[index];
                            if (index != 1) rep[2] = rep[1];
                            rep[1] = rep[0];
                            rep[0] = off;
                        }
                    }
                    if (ll > size - lit_pos) { reason = why::literals_overrun; break; }
                    if (std::uint64_t{ll} + ml > maximum - (op - block_start)) { reason = why::block_maximum; break; }
                    if (std::uint64_t{ll} + ml > cap - op) { reason = why::capacity; break; }
                    if (off == 0 || off > op + ll) { reason = why::offset; break; }
                    for (std::uint32_t j = 0; j < ll; ++j) out(op + j) = literals[lit_at + lit_pos + j];
                    op += ll;
                    lit_pos += ll;
                    for (std::uint32_t j = 0; j < ml; ++j) out(op + j) = out(op - off + j);
                    op += ml;
                }
                if (reason != why::none) break;
                if (!in.consumed_exactly()) { reason = why::sequences_stream; break; }
            }
            const std::uint32_t rest = size - lit_pos;
            if (rest > maximum - (op - block_start)) { reason = why::block_maximum; break; }
            if (rest > cap - op) { reason = why::capacity; break; }
            for (std::uint32_t j = 0; j < rest; ++j) out(op + j) = literals[lit_at + lit_pos + j];
            op += rest;
        }
        std::uint32_t* st = statuses.data() + fi * c::zstd_status_words;
        st[0] = reason == why::none ? c::zstd_error::none : reason == why::capacity ? c::zstd_error::output_overflow : c::zstd_error::corrupt_block;
        st[1] = reason == why::none ? op : 0;
        st[2] = reason == why::none ? 0 : bi;
        st[3] = reason;
    }
}

} // namespace vyre::reference
