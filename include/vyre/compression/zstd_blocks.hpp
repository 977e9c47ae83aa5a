// How compression.zstd.blocks splits frames into blocks that decode at once, and the host's part
// between its passes: the layouts of the words the passes exchange, the repeat offsets carried
// from block to block, and the frames' statuses put together from the blocks' verdicts, equal to
// those compression.zstd.frames and its CPU oracle (reference/zstd_frames.hpp) leave.
//
// The passes, over the records and tables of compression/zstd_entropy.hpp:
//   decode   (device, a subgroup per block) a compressed block's literals into the scratch and
//            its sequences into sequence records, repeat offsets kept symbolic (relative to the
//            offsets the block starts with, which depend on earlier blocks); the block's
//            regenerated size and its own checks (streams, literals overrun, block maximum)
//   schedule (host, zstd_schedule_blocks) each block's place in its frame's output and the
//            repeat offsets it starts with, block after block
//   execute  (device, a subgroup per block) literals into the output; every output byte gets a
//            link: to itself for a literal, to the byte it copies for a match (a match byte
//            whose source lies in a continued frame's history, zstd_frame_start, copies it at
//            once and counts as a literal); capacity and offset checks
//   statuses (host, zstd_block_statuses) the frames' statuses, and the blocks to resolve
//   resolve  (device, rounds) links followed until each leads to a literal (pointer jumping:
//            each round at least halves what is left), then each match byte copies its literal
#pragma once

#include <vyre/compression/zstd.hpp>
#include <vyre/compression/zstd_entropy.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace vyre::compression {

// A sequence record: [literal length, match length, slot, offset]: slot 0 holds the offset
// itself; slot 1 to 3 says it is repeat offset slot - 1 of those the block started with, less the
// fourth word (RFC 8878's "Repeated_Offset1 - 1", applied that many times). Every word is whole:
// lengths from tables made elsewhere may use all 32 bits.
inline constexpr std::uint32_t zstd_sequence_words = 4;

// Per block, host to decode: [first sequence record, room for records]. Every match is at least
// 3 bytes long, so a block needs no more records than Block_Maximum_Size / 3 + 1 (it fails its
// block maximum before), and a frame no more than its capacity / 3 + 1 in all (it fails its
// capacity before): rooms are handed out in block order within those bounds, so that the records
// a hostile file asks for never outgrow about five bytes per byte of output it declares. (The
// bounds hold for the match-length values plan_zstd_sections writes, which start at 3.)
inline constexpr std::uint32_t zstd_plan_words = 2;

// Per block, decode to host: [reason, stage, sequences executable, regenerated size, then the
// three repeat offsets the block leaves, each as (slot, value) as in a sequence record]. Stage
// 0: the block failed before its first sequence (reason set) or has none to run; stage 1: the
// execute pass runs `sequences executable` of them first (the reason, if any, comes after).
inline constexpr std::uint32_t zstd_summary_words = 10;

// Per block, host to execute: [sequences to run | flags, output offset, offset in its frame,
// the frame's capacity, link offset, the three repeat offsets it starts with].
inline constexpr std::uint32_t zstd_exec_words = 8;
inline constexpr std::uint32_t zstd_exec_skip = 1u << 31; // not run (its frame failed before it)
inline constexpr std::uint32_t zstd_exec_rest = 1u << 30; // the literals after the last sequence too
inline constexpr std::uint32_t zstd_exec_count = zstd_exec_rest - 1;

// Per block to resolve: [link offset, output offset, bytes].
inline constexpr std::uint32_t zstd_range_words = 3;

// Sequence records of every block: zstd_plan_words per block, and how many records in all.
struct zstd_sequence_plan {
    std::vector<std::uint32_t> plan;
    std::uint64_t records = 0;
};

inline zstd_sequence_plan zstd_plan_sequences(std::span<const std::uint32_t> frames, std::span<const std::uint32_t> blocks) {
    namespace field = zstd_block_field;
    zstd_sequence_plan p;
    const std::size_t n = blocks.size() / zstd_block_words;
    p.plan.assign(n * zstd_plan_words, 0); // blocks of no frame get no room
    for (std::size_t f = 0; f < frames.size() / zstd_frame_words; ++f) {
        const std::uint64_t first = frames[f * zstd_frame_words], count = frames[f * zstd_frame_words + 1];
        std::uint64_t left = frames[f * zstd_frame_words + 3] / 3ull + 1;
        for (std::uint64_t b = first; b < std::min<std::uint64_t>(first + count, n); ++b) {
            const std::uint32_t* rec = blocks.data() + b * zstd_block_words;
            const bool compressed = (rec[field::kind] & 3u) == 2u;
            const std::uint64_t room =
                compressed ? std::min<std::uint64_t>({rec[field::sequences], rec[field::maximum] / 3ull + 1, left}) : 0;
            p.plan[b * zstd_plan_words] = static_cast<std::uint32_t>(std::min<std::uint64_t>(p.records, 0xFFFFFFFFull));
            p.plan[b * zstd_plan_words + 1] = static_cast<std::uint32_t>(room);
            p.records += room;
            left -= room;
        }
    }
    return p;
}

// Where the first frame of a dispatch starts when it continues a frame decoded before (one long
// frame decoded a window of blocks at a time): the first `history` bytes of its region already
// hold the frame's latest output, which its matches may reach (the execute pass copies those
// bytes at once and gives the history no link words), and its first block starts with `repeats`.
struct zstd_frame_start {
    std::uint32_t history = 0;
    std::array<std::uint32_t, 3> repeats{1, 4, 8};
};

// The words the execute pass needs, and what the statuses need afterwards.
struct zstd_block_schedule {
    std::vector<std::uint32_t> exec;           // zstd_exec_words per block
    std::vector<std::uint8_t> frame_bad;       // per frame: its record lies outside its buffers
    std::uint64_t links = 0;                   // link words the execute pass writes
    std::array<std::uint32_t, 3> repeats{1, 4, 8}; // the repeat offsets the last frame's blocks leave
};

// Repeat offsets (slot, value) applied to the offsets a block starts with.
inline std::uint32_t zstd_repeat_value(std::uint32_t slot, std::uint32_t value, const std::array<std::uint32_t, 3>& in) noexcept {
    return slot == 0 ? value : in[slot - 1] - value;
}

inline bool zstd_range_within(std::uint64_t at, std::uint64_t n, std::uint64_t size) noexcept { return at <= size && n <= size - at; }

// After the decode pass: each block's place in its frame and the repeat offsets it starts with.
// A frame's blocks after one that failed in the decode pass, or that start past the frame's
// capacity (an earlier one fails for it), are skipped. The first frame starts as `start` says.
inline zstd_block_schedule zstd_schedule_blocks(std::span<const std::uint32_t> frames, std::span<const std::uint32_t> blocks,
                                                std::span<const std::uint32_t> summaries, std::uint64_t output_bytes,
                                                const zstd_frame_start& start = {}) {
    namespace why = zstd_frame_reason;
    const std::size_t nframes = frames.size() / zstd_frame_words, nblocks = blocks.size() / zstd_block_words;
    zstd_block_schedule s;
    s.exec.assign(nblocks * zstd_exec_words, 0);
    for (std::size_t b = 0; b < nblocks; ++b) s.exec[b * zstd_exec_words] = zstd_exec_skip;
    s.frame_bad.assign(nframes, 0);
    for (std::size_t f = 0; f < nframes; ++f) {
        const std::uint32_t first = frames[f * zstd_frame_words], count = frames[f * zstd_frame_words + 1];
        const std::uint32_t out_base = frames[f * zstd_frame_words + 2], cap = frames[f * zstd_frame_words + 3];
        if (!zstd_range_within(std::uint64_t{first} * zstd_block_words, std::uint64_t{count} * zstd_block_words, blocks.size()) ||
            !zstd_range_within(out_base, cap, output_bytes) || (f == 0 && start.history > cap)) {
            s.frame_bad[f] = 1;
            continue;
        }
        // The history's bytes have no link words: a block's link offset counts from the first byte
        // after it.
        const std::uint32_t history = f == 0 ? start.history : 0;
        std::array<std::uint32_t, 3> rep = f == 0 ? start.repeats : std::array<std::uint32_t, 3>{1, 4, 8};
        std::uint64_t op = history, room = 0; // room: what a block that failed in the decode pass may still write
        for (std::uint32_t k = 0; k < count; ++k) {
            const std::size_t b = std::size_t{first} + k;
            const std::uint32_t* sum = summaries.data() + b * zstd_summary_words;
            if (op > cap) break;
            std::uint32_t* e = s.exec.data() + b * zstd_exec_words;
            const bool before = sum[0] != why::none && sum[1] == 0;
            if (!before) {
                e[0] = (sum[2] & zstd_exec_count) | (sum[0] == why::none ? zstd_exec_rest : 0u);
                e[1] = static_cast<std::uint32_t>(out_base + op);
                e[2] = static_cast<std::uint32_t>(op);
                e[3] = cap;
                e[4] = static_cast<std::uint32_t>(s.links + op - history);
                std::copy(rep.begin(), rep.end(), e + 5);
            }
            if (sum[0] != why::none) {
                // It runs the sequences before its failure, which stay within its block maximum.
                if (!before) room = blocks[b * zstd_block_words + zstd_block_field::maximum];
                break;
            }
            rep = {zstd_repeat_value(sum[4], sum[5], rep), zstd_repeat_value(sum[6], sum[7], rep), zstd_repeat_value(sum[8], sum[9], rep)};
            op += sum[3];
        }
        s.links += std::min<std::uint64_t>(op + room, cap) - history;
        s.repeats = rep;
    }
    return s;
}

// After the execute pass: every frame's status (zstd_status_words, as the oracle's) from the
// blocks' decode summaries and execute verdicts (a reason per block), and the blocks of the
// frames that decode, to resolve (zstd_range_words each).
inline void zstd_block_statuses(std::span<const std::uint32_t> frames, std::span<const std::uint32_t> summaries,
                                const zstd_block_schedule& s, std::span<const std::uint32_t> verdicts, std::span<std::uint32_t> statuses,
                                std::vector<std::uint32_t>& ranges) {
    namespace why = zstd_frame_reason;
    const std::size_t nframes = frames.size() / zstd_frame_words;
    ranges.clear();
    for (std::size_t f = 0; f < nframes; ++f) {
        std::uint32_t reason = s.frame_bad[f] ? why::bad_record : why::none, failed = 0;
        std::uint64_t op = 0;
        const std::uint32_t first = frames[f * zstd_frame_words], count = frames[f * zstd_frame_words + 1];
        const std::size_t resolved = ranges.size();
        for (std::uint32_t k = 0; reason == why::none && k < count; ++k) {
            const std::size_t b = std::size_t{first} + k;
            const std::uint32_t* sum = summaries.data() + b * zstd_summary_words;
            const std::uint32_t* e = s.exec.data() + b * zstd_exec_words;
            const bool before = sum[0] != why::none && sum[1] == 0;
            // A block skipped for its place fails where an earlier one failed; never reached.
            const std::uint32_t executed = before || (e[0] & zstd_exec_skip) ? why::none : verdicts[b];
            reason = before ? sum[0] : executed != why::none ? executed : sum[0];
            if (reason != why::none) {
                failed = k;
                break;
            }
            if (e[0] & zstd_exec_skip) { // cannot happen for a frame whose earlier blocks all passed
                reason = why::bad_record;
                failed = k;
                break;
            }
            if (sum[3] != 0) ranges.insert(ranges.end(), {e[4], e[1], sum[3]});
            op += sum[3];
        }
        if (reason != why::none) ranges.resize(resolved);
        std::uint32_t* st = statuses.data() + f * zstd_status_words;
        st[0] = reason == why::none ? zstd_error::none : reason == why::capacity ? zstd_error::output_overflow : zstd_error::corrupt_block;
        st[1] = reason == why::none ? static_cast<std::uint32_t>(op) : 0;
        st[2] = reason == why::none ? 0 : failed;
        st[3] = reason;
    }
}

} // namespace vyre::compression
