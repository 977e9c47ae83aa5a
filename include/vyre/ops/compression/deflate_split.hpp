// One long DEFLATE stream inflated on the device in pieces that decode at once: the device (or
// the host) guesses where blocks start (compression.deflate.block_starts in
// ops/compression/deflate_block_starts.hpp; format/deflate_split.hpp), compression.deflate.pieces decodes every piece
// with references in place of the 32 KiB before it, and compression.deflate.join puts the bytes
// in order:
//
//   1. compression.deflate.pieces (ops/compression/deflate_program.hpp): piece i from its first
//      bit to the first block start at or past the next piece's first bit. Its output region
//      (u32 elements) starts with 32,768 references 256 + w to byte w of its window (the last
//      32 KiB before the piece, not known yet); a match copies references as it copies bytes.
//      The host then checks, piece after piece, that each ended exactly where the next one
//      starts. A guess that was no block start shows up as a piece that ran past it: a new piece
//      starts where that one ended. A piece whose output outgrew its region (a run of zeros, say)
//      is cut at the block starts found inside it, its parts sharing a region sixteen times
//      larger, or decoded again whole in such a region where none is found. The next round
//      decodes only those new, cut and regrown pieces, all of them at once (beyond the settled
//      pieces, on the guess that each piece started at a block). A cut leaves each part less
//      input, a piece is regrown at most eight times (then it may hold the whole output), and a
//      round that changes no piece settles at least one more, so the rounds end.
//   2. compression.deflate.join (ops/compression/deflate_join.hpp): every element of every piece
//      at once, written to the piece's place in the output. A reference names an element at the
//      end of the piece before, which may itself be a reference (a run that spans pieces): the
//      element follows the chain back, one piece per step, to a byte.
//
// Many streams (inflate_split_streams) go the same way together: one search over all of them,
// every stream's unsettled pieces in the same rounds, one join; a stream's first piece has no
// window, so nothing crosses from one stream to the next. Where streams of a MiB and more are too
// few to fill the device one subgroup each, their pieces are not.
//
// A reference to a byte before the stream's first (a corrupt stream) is distance_too_far, as for
// the whole stream. The caller gives the stream's output size (a gzip member's ISIZE, a ZIP
// entry's size); output of another size is reported, never written past.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/compression/deflate.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/compression/deflate_block_starts.hpp>
#include <vyre/ops/compression/deflate_join.hpp>
#include <vyre/ops/compression/deflate_program.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/device.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/runtime/program_cache.hpp>
#include <vyre/runtime/subgroups.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::ops::compression {

// Pieces decoded by one subgroup of this many lanes (the fast variant's shape).
inline constexpr std::uint32_t deflate_piece_lanes = deflate_fast_lanes;
// A piece reads at most this many input bytes: its bit positions stay below 2^32.
inline constexpr std::uint64_t deflate_piece_max_input = (std::uint64_t{1} << 29) - 1;

inline std::vector<op_info> deflate_split_infos() {
    std::vector<op_info> out{
        {"compression.deflate.pieces", 1, "pieces of one DEFLATE stream, each from a guessed block start, references for the window before it",
         {{ir::data_type::bytes}, ir::data_type::u32}, ir::convention::v1(),
         [] { return deflate_pieces_program(deflate_piece_lanes, deflate_fast_streams_per_workgroup); }},
        {"compression.deflate.join", 1, "the pieces' elements written as the stream's bytes, in order",
         {{ir::data_type::u32}, ir::data_type::bytes}, ir::convention::v1(), [] { return deflate_join_program(); }}};
    for (op_info& info : deflate_block_starts_infos()) out.push_back(std::move(info));
    return out;
}

// One round of pieces: how many it decoded, its seconds (host clock, until their statuses were
// back), and the most elements one of them wrote (its window included; the round waits for its
// slowest piece, and a piece's time grows with its output).
struct deflate_split_round {
    std::uint32_t pieces = 0;
    double seconds = 0;
    std::uint32_t largest = 0;
};

// What inflating one stream in pieces found.
struct deflate_split_result {
    vyre::compression::block_status status; // as compression.deflate's for the whole stream; bytes: its output size
    std::uint64_t pieces = 0;               // pieces the stream decoded in
    std::uint32_t rounds = 0;               // launches of the pieces program (1 when every guess held)
    std::uint32_t false_guesses = 0;        // split points that were no block start
    std::uint32_t regrown = 0;              // pieces decoded again in a larger region
    std::uint32_t cut = 0;                  // pieces that outgrew their region, cut at block starts inside them
    std::uint64_t failed_piece = 0;         // on an error: the bit where the piece that found it starts
    using round = deflate_split_round;
    std::vector<deflate_split_round> round_log;
    // Host clock, seconds: the stream's upload and the search for split points on the device
    // (inflate_split with a piece size; 0 with the points given), every round of pieces (until
    // their statuses are back; with the points given, the upload too), then the join (waited for).
    double search_seconds = 0, pieces_seconds = 0, join_seconds = 0;
};

// One of several streams inflated in pieces together (inflate_split_streams): its bytes in the
// input buffer, and where its output goes in the output buffer and how long it must be.
struct deflate_split_stream {
    std::uint64_t input_offset = 0, input_bytes = 0;
    std::uint64_t output_offset = 0, expected = 0;
};

// What inflating several streams in pieces found: each stream's status (as deflate_split_result's)
// and, on an error, the bit of that stream where the failing piece starts; the counts and seconds
// of deflate_split_result over all of them. `groups`: the launches of rounds the streams were cut
// into so that the pieces' regions fit the device (deflate_region_budget).
struct deflate_split_streams_result {
    std::vector<vyre::compression::block_status> statuses;
    std::vector<std::uint64_t> failed_pieces;
    std::uint64_t pieces = 0;
    std::uint32_t rounds = 0, false_guesses = 0, regrown = 0, cut = 0, groups = 0;
    std::vector<deflate_split_round> round_log;
    double search_seconds = 0, pieces_seconds = 0, join_seconds = 0;
};

namespace detail {

inline const runtime::compiled_program& deflate_pieces_kernel(lower::subgroup_lowering lowering) {
    static const runtime::compiled_program warps(deflate_pieces_program(deflate_piece_lanes, deflate_fast_streams_per_workgroup));
    static const runtime::compiled_program khr(deflate_pieces_program(deflate_piece_lanes, 1));
    static const runtime::compiled_program emulated(deflate_pieces_program(deflate_piece_lanes, 1), lower::subgroup_lowering::emulated);
    return lowering == lower::subgroup_lowering::nvidia_ptx ? warps : lowering == lower::subgroup_lowering::khr ? khr : emulated;
}

// One piece as the host tracks it: where it starts and stops (bits of its stream), its region of
// the elements buffer, and what its last decoding reported.
struct deflate_piece_state {
    std::uint64_t start = 0, stop = 0; // stop: the next piece's start, or ~0 for the last
    std::uint64_t base = 0, capacity = 0;
    bool decoded = false; // its status is from its present region and stop
    std::array<std::uint32_t, deflate_piece::status_words> status{};
};

// One stream's pieces as the host tracks them: pieces [0, settled) start where the stream's
// blocks do and end where the next starts; `done` once its last block is settled or it failed.
struct deflate_split_work {
    deflate_split_stream stream;
    std::vector<deflate_piece_state> pieces;
    std::size_t settled = 0;
    bool done = false, failed = false;
    vyre::compression::block_status status{};
    std::uint64_t failed_piece = 0;
};

} // namespace detail

// How large a piece's first region is: `region_factor` times its share of the output (its share
// of the stream's bits times the output size), plus 64 KiB. A piece that outgrows it is decoded
// again in a later round, which waits for the slowest such piece, so the default (0) takes the
// largest factor up to 16 that the device's memory and 2^32 elements allow for the whole stream.
//
// `lowering` picks how the pieces program's subgroups are lowered: the device's own when unset;
// lower::subgroup_lowering::emulated (workgroup memory and barriers) runs on every device, which
// is how the tests check that lowering where the device has real subgroups.
//
// `region_budget`: the elements the first regions of one group of streams may take (0: the
// device's, deflate_region_budget); inflate_split_streams starts a new group past it.
struct deflate_split_options {
    std::uint32_t region_factor = 0;
    std::optional<lower::subgroup_lowering> lowering;
    std::uint64_t region_budget = 0;
};

// The elements the first regions of a stream's pieces may take: half the device's largest buffer
// and half of 2^32 (u32 elements, so a region can grow once).
inline std::uint64_t deflate_region_budget(const runtime::device_info& device) noexcept {
    return std::min<std::uint64_t>(device.max_allocation / 4 / 2, std::uint64_t{1} << 31);
}

// The elements a stream's first regions take beyond its output (its pieces' windows and margins).
inline constexpr std::uint64_t deflate_piece_overhead = deflate_piece_window + 65536;

// The factor a first region gets (deflate_split_options::region_factor 0): the streams'
// regions, each its share times the factor, fill at most `budget` elements (deflate_region_budget), and at least
// twice the share.
inline std::uint64_t deflate_region_factor(std::uint64_t budget, std::uint64_t expected, std::uint64_t pieces) {
    const std::uint64_t fixed = pieces * deflate_piece_overhead;
    if (budget <= fixed) return 2;
    return std::clamp<std::uint64_t>((budget - fixed) / std::max<std::uint64_t>(expected, 1), 2, 16);
}

// The rounds and the join for `work` (streams in `input`, their pieces starting at their split
// points), in one elements buffer; each stream's status ends in its work. See the top of this
// file, and inflate_split_streams.
namespace detail {
inline double deflate_split_clock() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

inline void inflate_pieces(runtime::context& ctx, const boost::compute::buffer& input, std::vector<deflate_split_work>& work,
                           const boost::compute::buffer& output, boost::compute::buffer& elements, const deflate_split_options& options,
                           deflate_split_streams_result& result);
} // namespace detail

// Inflates `stream` (raw DEFLATE) into `output` (a device buffer of at least `expected` bytes,
// rounded up to a word), the stream's pieces starting at `points` (bits, increasing, the first 0:
// format::deflate_split_points or find_deflate_blocks). On success, status {none, expected}; a
// stream that decodes to another size gets {output_overflow, 0} when larger (nothing written past
// `expected`) and {none, size} when smaller; a corrupt stream gets its error code (with 0 bytes:
// the host reference gives the exact count). Runs on ctx's queue and returns when done.
namespace detail {
inline deflate_split_result inflate_one(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t stream_bytes,
                                        std::vector<std::uint64_t> points, std::uint64_t expected, const boost::compute::buffer& output,
                                        const deflate_split_options& options, double started) {
    if (expected > 0xFFFFFFFFull || output.size() < (expected + 3) / 4 * 4)
        throw resource_error("inflate_split: an output of " + std::to_string(expected) + " bytes needs a buffer of " +
                             std::to_string((expected + 3) / 4 * 4) + " bytes and at most 2^32-1 of them");
    const double entered = deflate_split_clock();
    std::vector<deflate_split_work> work(1);
    work[0].stream = {0, stream_bytes, 0, expected};
    for (const std::uint64_t p : points) work[0].pieces.push_back({p, 0});
    deflate_split_streams_result all;
    boost::compute::buffer elements;
    inflate_pieces(ctx, input, work, output, elements, options, all);
    deflate_split_result r;
    r.status = work[0].status;
    r.failed_piece = work[0].failed_piece;
    r.pieces = all.pieces;
    r.rounds = all.rounds, r.false_guesses = all.false_guesses, r.regrown = all.regrown, r.cut = all.cut;
    r.round_log = std::move(all.round_log);
    r.pieces_seconds = all.pieces_seconds + (entered - started);
    r.join_seconds = all.join_seconds;
    return r;
}
} // namespace detail

inline deflate_split_result inflate_split(runtime::context& ctx, std::span<const std::uint8_t> stream, std::span<const std::uint64_t> points,
                                          std::uint64_t expected, const boost::compute::buffer& output,
                                          const deflate_split_options& options = {}) {
    const double started = detail::deflate_split_clock();
    auto input = runtime::allocate(ctx, runtime::padded_bytes(stream.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, input, stream.data(), stream.size());
    return detail::inflate_one(ctx, input, stream.size(), {points.begin(), points.end()}, expected, output, options, started);
}

// The same, the split points found on the device (find_deflate_blocks, every `piece_bytes` bytes
// of the stream) after the stream's upload.
inline deflate_split_result inflate_split(runtime::context& ctx, std::span<const std::uint8_t> stream, std::uint64_t piece_bytes,
                                          std::uint64_t expected, const boost::compute::buffer& output,
                                          const deflate_split_options& options = {}) {
    const double started = detail::deflate_split_clock();
    auto input = runtime::allocate(ctx, runtime::padded_bytes(stream.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, input, stream.data(), stream.size());
    std::vector<std::uint64_t> points = find_deflate_blocks(ctx, input, stream.size(), piece_bytes);
    const double searched = detail::deflate_split_clock();
    deflate_split_result r = detail::inflate_one(ctx, input, stream.size(), std::move(points), expected, output, options, searched);
    r.search_seconds = searched - started;
    return r;
}

// Many streams at once (ZIP entries, gzip members of 1 MiB and up), already in `input` (a whole
// number of words, below 2^29 bytes: the split points' reach), into their regions of `output`
// (a whole number of words, below 2^32 bytes): each stream is cut where the first block start
// after every `piece_bytes` of its input lies (found on the device, one launch for all streams),
// and every unsettled piece of every stream decodes in the same round, so that one subgroup per
// piece, not per stream, sets the pace. Streams whose regions together pass the device's budget
// (deflate_region_budget) go in groups, one after another. Each stream's status is as
// inflate_split's; a stream's damage does not stop the others, but a limit of the device (a
// group's regions, grown, past 2^32 elements or its largest buffer) throws for the whole call, as
// it does for one stream (the deflate engine then inflates the group on the host). Runs on ctx's
// queue and returns when done.
inline deflate_split_streams_result inflate_split_streams(runtime::context& ctx, const boost::compute::buffer& input,
                                                          std::span<const deflate_split_stream> streams, std::uint64_t piece_bytes,
                                                          const boost::compute::buffer& output, const deflate_split_options& options = {}) {
    const double started = detail::deflate_split_clock();
    deflate_split_streams_result result;
    if (input.size() % 4 != 0 || input.size() > deflate_block_starts_max_stream + 4 || output.size() % 4 != 0 || output.size() > 0xFFFFFFFFull)
        throw resource_error("inflate_split_streams: input buffers below 2^29 bytes and output buffers below 2^32, both whole words (" +
                             std::to_string(input.size()) + " and " + std::to_string(output.size()) + " bytes)");
    std::vector<deflate_search_window> windows;
    std::vector<std::size_t> window_stream;
    for (std::size_t k = 0; k < streams.size(); ++k) {
        const deflate_split_stream& s = streams[k];
        if (s.input_offset + s.input_bytes > std::min<std::uint64_t>(input.size(), deflate_block_starts_max_stream) ||
            s.output_offset + s.expected > output.size())
            throw resource_error("inflate_split_streams: stream " + std::to_string(k) + " (" + std::to_string(s.input_bytes) + " bytes at " +
                                 std::to_string(s.input_offset) + ", " + std::to_string(s.expected) + " out at " + std::to_string(s.output_offset) +
                                 ") leaves its buffers");
        if (piece_bytes == 0 || s.input_bytes <= piece_bytes) continue;
        for (const auto& w : deflate_search_windows(s.input_offset + piece_bytes, s.input_offset + s.input_bytes, piece_bytes,
                                                    s.input_offset + s.input_bytes)) {
            windows.push_back(w);
            window_stream.push_back(k);
        }
    }
    std::vector<std::vector<std::uint64_t>> points(streams.size(), std::vector<std::uint64_t>{0});
    const std::vector<std::uint32_t> found = find_deflate_blocks_at(ctx, input, windows);
    for (std::size_t w = 0; w < windows.size(); ++w)
        if (found[w] != deflate_no_block_start)
            points[window_stream[w]].push_back((windows[w].first - streams[window_stream[w]].input_offset) * std::uint64_t{8} + found[w]);
    result.search_seconds = detail::deflate_split_clock() - started;
    result.statuses.resize(streams.size());
    result.failed_pieces.resize(streams.size());
    // Groups of streams in order, each within the budget at twice its share.
    const std::uint64_t budget = options.region_budget != 0 ? options.region_budget : deflate_region_budget(ctx.device());
    boost::compute::buffer elements;
    for (std::size_t first = 0; first < streams.size();) {
        std::vector<detail::deflate_split_work> work;
        std::uint64_t need = 0;
        std::size_t last = first;
        for (; last < streams.size(); ++last) {
            const std::uint64_t more = 2 * streams[last].expected + points[last].size() * deflate_piece_overhead;
            if (!work.empty() && need + more > budget) break;
            need += more;
            detail::deflate_split_work& w = work.emplace_back();
            w.stream = streams[last];
            for (const std::uint64_t p : points[last]) w.pieces.push_back({p, 0});
        }
        detail::inflate_pieces(ctx, input, work, output, elements, options, result);
        for (std::size_t k = first; k < last; ++k) {
            result.statuses[k] = work[k - first].status;
            result.failed_pieces[k] = work[k - first].failed_piece;
        }
        ++result.groups;
        first = last;
    }
    return result;
}

inline void detail::inflate_pieces(runtime::context& ctx, const boost::compute::buffer& input, std::vector<deflate_split_work>& work,
                                   const boost::compute::buffer& output, boost::compute::buffer& elements, const deflate_split_options& options,
                                   deflate_split_streams_result& result) {
    namespace e = vyre::compression::deflate_error;
    namespace piece = deflate_piece;
    using state = deflate_piece_state;
    const auto clock = deflate_split_clock;
    const double entered = clock();
    const std::uint64_t none = ~std::uint64_t{0};
    if (input.size() % 4 != 0) throw resource_error("inflate_split: the input buffer does not hold the streams in words");
    std::uint64_t expected_all = 0, pieces_all = 0;
    for (deflate_split_work& w : work) {
        auto& pieces = w.pieces;
        if (pieces.empty() || pieces.front().start != 0 ||
            !std::is_sorted(pieces.begin(), pieces.end(), [](const state& a, const state& b) { return a.start < b.start; }) ||
            std::adjacent_find(pieces.begin(), pieces.end(), [](const state& a, const state& b) { return a.start == b.start; }) != pieces.end())
            throw resource_error("inflate_split: split points must rise from 0");
        if (input.size() < w.stream.input_offset + w.stream.input_bytes || w.stream.expected > 0xFFFFFFFFull)
            throw resource_error("inflate_split: the input buffer does not hold the stream, or its output passes 2^32-1 bytes");
        const std::uint64_t total_bits = w.stream.input_bytes * 8;
        while (pieces.size() > 1 && pieces.back().start >= total_bits) pieces.pop_back();
        for (std::size_t i = 0; i < pieces.size(); ++i) pieces[i].stop = i + 1 < pieces.size() ? pieces[i + 1].start : none;
        expected_all += w.stream.expected;
        pieces_all += pieces.size();
    }
    const lower::subgroup_lowering lowering = options.lowering.value_or(runtime::native_subgroups(ctx.device()));
    const std::uint32_t per_group = lowering == lower::subgroup_lowering::nvidia_ptx ? deflate_fast_streams_per_workgroup : 1;

    // The elements buffer: regions handed out in order, grown (its contents copied) when a
    // region does not fit; element indices stay below 2^32.
    std::uint64_t used = 0;
    const auto window_of = [&](const state& p) { return p.start == 0 ? 0u : deflate_piece_window; };
    const auto place = [&](state& p, std::uint64_t capacity) {
        p.capacity = capacity;
        p.base = used;
        used += capacity;
        if (used > 0xFFFFFFFFull) throw resource_error("inflate_split: the pieces' output regions pass 2^32 elements; inflate on the host");
    };
    // A first region: the factor times the piece's share of its stream's output, and 64 KiB.
    const std::uint64_t factor = options.region_factor != 0
                                    ? options.region_factor
                                    : deflate_region_factor(options.region_budget != 0 ? options.region_budget : deflate_region_budget(ctx.device()),
                                                            expected_all, pieces_all);
    const auto estimate = [&](const deflate_split_work& w, const state& p) {
        const std::uint64_t total_bits = w.stream.input_bytes * 8, expected = w.stream.expected;
        const std::uint64_t bits = (p.stop == none ? total_bits : p.stop) - p.start;
        const double share = static_cast<double>(expected) * static_cast<double>(bits) / static_cast<double>(std::max<std::uint64_t>(total_bits, 1));
        return window_of(p) + std::min<std::uint64_t>(expected + 1, static_cast<std::uint64_t>(share * static_cast<double>(factor)) + 65536);
    };
    const auto fit = [&] {
        const std::size_t bytes = static_cast<std::size_t>(std::max<std::uint64_t>(used, 1) * 4);
        if (elements.get() != nullptr && elements.size() >= bytes) return;
        boost::compute::buffer grown = runtime::allocate(ctx, bytes + bytes / 4 > ctx.device().max_allocation ? bytes : bytes + bytes / 4);
        if (elements.get() != nullptr)
            runtime::cl_call("clEnqueueCopyBuffer", [&] { ctx.queue().enqueue_copy_buffer(elements, grown, 0, 0, elements.size()); });
        elements = std::move(grown);
    };
    for (deflate_split_work& w : work)
        for (state& p : w.pieces) place(p, estimate(w, p));
    // Decodes pieces `which` (stream, piece) in one launch and takes their statuses.
    const auto decode = [&](const std::vector<std::pair<std::size_t, std::size_t>>& which) {
        const double round_started = clock();
        fit();
        std::vector<std::uint32_t> records(which.size() * piece::words);
        for (std::size_t k = 0; k < which.size(); ++k) {
            const deflate_split_stream& s = work[which[k].first].stream;
            const state& p = work[which[k].first].pieces[which[k].second];
            const std::uint64_t in_base = p.start / 8;
            std::uint32_t* r = records.data() + k * piece::words;
            r[piece::in_base] = static_cast<std::uint32_t>(s.input_offset + in_base);
            r[piece::in_size] = static_cast<std::uint32_t>(std::min<std::uint64_t>(s.input_bytes - in_base, deflate_piece_max_input));
            r[piece::start_bit] = static_cast<std::uint32_t>(p.start % 8);
            r[piece::stop_bit] = p.stop == none ? 0xFFFFFFFFu : static_cast<std::uint32_t>(std::min<std::uint64_t>(p.stop - in_base * 8, 0xFFFFFFFEull));
            r[piece::out_base] = static_cast<std::uint32_t>(p.base);
            r[piece::capacity] = static_cast<std::uint32_t>(p.capacity);
            r[piece::window] = window_of(p);
        }
        const std::uint32_t count = static_cast<std::uint32_t>(which.size());
        const auto record_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(records), CL_MEM_READ_ONLY);
        auto status_buffer = runtime::allocate(ctx, count * piece::status_words * 4);
        const std::array<std::uint32_t, 4> p{count, static_cast<std::uint32_t>(std::min<std::size_t>(input.size(), 0xFFFFFFFFu)),
                                             static_cast<std::uint32_t>(elements.size() / 4), 0};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        const runtime::buffer_arg args[] = {{input, static_cast<std::uint32_t>(input.size() / 4)},
                                            {record_buffer, count * piece::words},
                                            {elements, static_cast<std::uint32_t>(std::min<std::size_t>(elements.size() / 4, 0xFFFFFFFFu))},
                                            {status_buffer, count * piece::status_words},
                                            {params, 4}};
        runtime::dispatch(ctx, deflate_pieces_kernel(lowering), {(count + per_group - 1) / per_group, 1, 1}, args);
        std::vector<std::uint32_t> back(count * piece::status_words);
        runtime::read(ctx, status_buffer, back.data(), back.size() * 4);
        std::uint32_t largest = 0;
        for (std::size_t k = 0; k < which.size(); ++k) {
            state& q = work[which[k].first].pieces[which[k].second];
            std::copy_n(back.data() + k * piece::status_words, piece::status_words, q.status.begin());
            q.decoded = true;
            largest = std::max(largest, back[k * piece::status_words + piece::written]);
        }
        ++result.rounds;
        result.round_log.push_back({count, clock() - round_started, largest});
    };
    // After a round, a stream's pieces settle in order and the next guesses are made.
    const auto advance = [&](deflate_split_work& w) {
        auto& pieces = w.pieces;
        const std::uint64_t total_bits = w.stream.input_bytes * 8, expected = w.stream.expected;
        const auto fail = [&](std::uint32_t code) {
            w.status = {code, 0};
            w.done = w.failed = true;
        };
        const auto regrowable = [&](const state& p) {
            return p.status[piece::code] == e::output_overflow && p.capacity < window_of(p) + expected + 1;
        };
        // A new piece from `end` (a block start, if the piece that ended there started at one) to
        // the next guess after it, placed at index i; nothing when a piece starts there already.
        const auto start_at = [&](std::size_t i, std::uint64_t end) {
            if (i < pieces.size() && pieces[i].start == end) return;
            state fresh{end, i < pieces.size() ? pieces[i].start : none};
            place(fresh, estimate(w, fresh));
            pieces.insert(pieces.begin() + static_cast<std::ptrdiff_t>(i), fresh);
            ++result.false_guesses;
        };
        // Settle pieces in order while each ends where the next starts.
        while (w.settled < pieces.size() && pieces[w.settled].decoded && !regrowable(pieces[w.settled])) {
            state& p = pieces[w.settled];
            if (p.status[piece::code] != e::none) {
                w.failed_piece = p.start;
                return fail(p.status[piece::code]);
            }
            if (p.status[piece::final_block] != 0) {
                pieces.resize(w.settled + 1); // the stream ends here; later guesses lay past its end
                ++w.settled;
                w.done = true;
                return;
            }
            const std::uint64_t end = p.start / 8 * 8 + p.status[piece::end_bit];
            if (p.stop == none || end <= p.start) return fail(e::input_overrun); // never from a well-formed piece
            // Every piece that starts before this one's end came from a guess that was no block
            // start (a piece further on may have ended inside this one): they go, and the next
            // piece starts where this one ended (made here when no piece starts there).
            std::size_t next = w.settled + 1;
            while (next < pieces.size() && pieces[next].start < end) ++next;
            pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(w.settled + 1), pieces.begin() + static_cast<std::ptrdiff_t>(next));
            start_at(w.settled + 1, end);
            pieces[w.settled].stop = end;
            ++w.settled;
        }
        // Beyond the settled pieces, guess on: a piece that outgrew its region is cut at the
        // blocks that start inside it, or decoded again in a region sixteen times larger, and
        // where a piece ran past the next guess, a piece starts where it ended (all of them in the
        // next round, not one per round).
        for (std::size_t i = w.settled; i < pieces.size(); ++i) {
            state& q = pieces[i];
            if (!q.decoded) continue;
            if (regrowable(q)) {
                const std::uint64_t grown = std::min<std::uint64_t>(window_of(q) + expected + 1, q.capacity * 16) - window_of(q);
                // Its output is far above its share, and one subgroup decodes it alone: its parts,
                // from each block start found inside it (windows of a 64th of it, 64 bytes at
                // least), decode at once, each with its share of the larger region. A part that
                // outgrows its region again is cut again (each cut leaves less input to a piece,
                // so cutting ends); a piece with no block start inside is decoded again whole.
                std::vector<std::uint64_t> inside;
                const std::uint64_t stop = q.stop == none ? total_bits : q.stop;
                const std::uint64_t at = w.stream.input_offset, end_byte = at + w.stream.input_bytes;
                // (The device's search reaches bytes below 2^29; past that, an outgrown piece is
                // decoded again whole.)
                if (end_byte <= deflate_block_starts_max_stream && stop / 8 > q.start / 8 + 1) {
                    const std::uint64_t from = at + q.start / 8 + 1, to = at + stop / 8;
                    for (const std::uint64_t b : find_deflate_blocks_in(ctx, input, end_byte, from, to, std::max<std::uint64_t>(64, (to - from) / 64)))
                        if (b - at * 8 > q.start && b - at * 8 < stop) inside.push_back(b - at * 8);
                }
                if (inside.empty()) {
                    place(q, window_of(q) + grown);
                    q.decoded = false;
                    ++result.regrown;
                    continue;
                }
                const std::uint64_t whole = stop - q.start, original_stop = q.stop;
                const auto part = [&](state& r) {
                    const std::uint64_t bits = (r.stop == none ? total_bits : r.stop) - r.start;
                    place(r, window_of(r) + std::min<std::uint64_t>(expected + 1, grown * bits / whole + 65536));
                    r.decoded = false;
                };
                q.stop = inside.front();
                part(q);
                std::vector<state> parts;
                for (std::size_t k = 0; k < inside.size(); ++k) {
                    state r{inside[k], k + 1 < inside.size() ? inside[k + 1] : original_stop};
                    part(r);
                    parts.push_back(r);
                }
                pieces.insert(pieces.begin() + static_cast<std::ptrdiff_t>(i + 1), parts.begin(), parts.end());
                ++result.cut;
                i += parts.size();
                continue;
            }
            if (q.status[piece::code] != e::none || q.status[piece::final_block] != 0 || q.stop == none) continue;
            const std::uint64_t end = q.start / 8 * 8 + q.status[piece::end_bit];
            if (end <= q.stop) continue;
            std::size_t next = i + 1;
            while (next < pieces.size() && pieces[next].start < end) ++next;
            start_at(next, end);
        }
        // Nothing left to try: never from a well-formed stream.
        if (std::none_of(pieces.begin(), pieces.end(), [](const state& p) { return !p.decoded; })) fail(e::input_overrun);
    };
    for (;;) {
        std::vector<std::pair<std::size_t, std::size_t>> which;
        for (std::size_t k = 0; k < work.size(); ++k)
            for (std::size_t i = 0; !work[k].done && i < work[k].pieces.size(); ++i)
                if (!work[k].pieces[i].decoded) which.emplace_back(k, i);
        if (which.empty()) break;
        decode(which);
        for (deflate_split_work& w : work)
            if (!w.done) advance(w);
    }
    const double pieces_done = clock();
    result.pieces_seconds += pieces_done - entered;
    // Where each piece's bytes go, and the records and statuses the join reads: the pieces of the
    // streams that decoded, at most to their expected size.
    std::vector<std::uint32_t> records, statuses, destinations;
    std::vector<std::size_t> owner; // the stream of each joined piece
    std::uint32_t largest = 0;
    for (std::size_t k = 0; k < work.size(); ++k) {
        deflate_split_work& w = work[k];
        result.pieces += w.pieces.size();
        if (w.failed) continue;
        std::uint64_t size = 0;
        for (const state& p : w.pieces) size += p.status[piece::written] - window_of(p);
        if (size > w.stream.expected) {
            w.status = {e::output_overflow, 0};
            w.failed = true;
            continue;
        }
        w.status = {e::none, static_cast<std::uint32_t>(size)};
        std::uint64_t at = w.stream.output_offset;
        for (const state& p : w.pieces) {
            const std::size_t r = records.size();
            records.resize(r + piece::words);
            records[r + piece::out_base] = static_cast<std::uint32_t>(p.base);
            records[r + piece::window] = window_of(p);
            statuses.insert(statuses.end(), p.status.begin(), p.status.end());
            destinations.push_back(static_cast<std::uint32_t>(at));
            const std::uint32_t bytes = p.status[piece::written] - window_of(p);
            at += bytes;
            largest = std::max(largest, bytes);
            owner.push_back(k);
        }
    }
    const std::size_t m = destinations.size();
    if (m != 0) {
        const auto record_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(records), CL_MEM_READ_ONLY);
        const auto status_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(statuses), CL_MEM_READ_ONLY);
        const auto destination_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(destinations), CL_MEM_READ_ONLY);
        std::vector<std::uint32_t> failed(m, 0);
        auto failures = runtime::upload(ctx, std::span<const std::uint32_t>(failed));
        // Slices of about 64 KiB, so that a stream of few pieces still fills the device.
        const std::uint32_t slices = std::max<std::uint32_t>(1, largest / 65536);
        const std::array<std::uint32_t, 2> p{static_cast<std::uint32_t>(m), slices};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        static const runtime::compiled_program join(deflate_join_program());
        const runtime::buffer_arg args[] = {{elements, static_cast<std::uint32_t>(std::min<std::size_t>(elements.size() / 4, 0xFFFFFFFFu))},
                                            {record_buffer, static_cast<std::uint32_t>(records.size())},
                                            {status_buffer, static_cast<std::uint32_t>(statuses.size())},
                                            {destination_buffer, static_cast<std::uint32_t>(m)},
                                            {output, static_cast<std::uint32_t>(output.size() / 4)},
                                            {failures, static_cast<std::uint32_t>(m)},
                                            {params, 2}};
        runtime::dispatch(ctx, join, {static_cast<std::uint32_t>(m * slices), 1, 1}, args);
        runtime::read(ctx, failures, failed.data(), m * 4);
        for (std::size_t i = 0; i < m; ++i)
            if (failed[i] != 0) work[owner[i]].status = {e::distance_too_far, 0};
    }
    result.join_seconds += clock() - pieces_done;
}

} // namespace vyre::ops::compression
