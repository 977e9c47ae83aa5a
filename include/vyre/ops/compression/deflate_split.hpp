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
//   2. compression.deflate.join: every element of every piece at once, written to the piece's
//      place in the output. A reference names an element at the end of the piece before, which
//      may itself be a reference (a run that spans pieces): the element follows the chain back,
//      one piece per step, to a byte. Nothing is written to the pieces' regions, so no element
//      waits for another.
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

// The window each piece after the first starts with: DEFLATE's reach.
inline constexpr std::uint32_t deflate_piece_window = vyre::compression::deflate_window_bytes;
// Pieces decoded by one subgroup of this many lanes (the fast variant's shape).
inline constexpr std::uint32_t deflate_piece_lanes = deflate_fast_lanes;
// A piece reads at most this many input bytes: its bit positions stay below 2^32.
inline constexpr std::uint64_t deflate_piece_max_input = (std::uint64_t{1} << 29) - 1;
inline constexpr std::uint32_t deflate_join_workgroup = 256;
// An element no byte stands for: a reference to before the stream's first byte.
inline constexpr std::uint32_t deflate_no_byte = 0xFFFFFFFFu;

namespace deflate_join_binding {
inline constexpr std::uint32_t elements = 0, pieces = 1, statuses = 2, destinations = 3, output = 4, failures = 5, params = 6;
} // namespace deflate_join_binding

// compression.deflate.join: see the top of this file. params: pieces, slices per piece (each
// piece's elements are cut into that many slices, one workgroup each).
inline ir::program deflate_join_program(std::uint32_t workgroup = deflate_join_workgroup) {
    namespace d = vyre::dsl;
    namespace piece = deflate_piece;
    d::kernel k(entry_name("compression.deflate.join"), {workgroup, 1, 1});
    const auto elements = k.input<d::u32>("elements", deflate_join_binding::elements);
    const auto pieces = k.input<d::u32>("pieces", deflate_join_binding::pieces);
    const auto statuses = k.input<d::u32>("statuses", deflate_join_binding::statuses);
    const auto destinations = k.input<d::u32>("destinations", deflate_join_binding::destinations);
    const auto output = k.output<d::bytes>("output", deflate_join_binding::output);
    const auto failures = k.output<d::u32>("failures", deflate_join_binding::failures);
    const auto params = k.uniform<d::u32>("params", deflate_join_binding::params);
    const auto i = k.let("piece", d::workgroup_id() / params[1u]);
    const auto slice = k.let("slice", d::workgroup_id() % params[1u]);
    k.if_(i < params[0u], [&] {
        const auto base = k.let("base", pieces[i * piece::words + piece::out_base]);
        const auto window = k.let("window", pieces[i * piece::words + piece::window]);
        const auto count = k.let("count", statuses[i * piece::status_words + piece::written] - window);
        const auto share = k.let("share", count / params[1u] + 1u);
        const auto from = k.let("from", d::min(count, slice * share));
        const auto to = k.let("to", d::min(count, from + share));
        const auto j = k.let("j", from + d::local_id());
        k.while_(j < to, [&] {
            const auto v = k.let("v", elements[base + window + j]);
            // A reference: element written - window_bytes + w of the piece before, and so on back.
            const auto at = k.let("at", i);
            k.while_(v >= 256u, [&] {
                const auto w = k.let("w", v - 256u);
                k.if_(at == 0u || w >= deflate_piece_window, [&] {
                    v = d::lit(deflate_no_byte);
                    k.break_();
                });
                at = at - 1u;
                const auto written = k.let("previous_written", statuses[at * piece::status_words + piece::written]);
                k.if_(written + w < deflate_piece_window, [&] { // before the stream's first byte
                    v = d::lit(deflate_no_byte);
                    k.break_();
                });
                v = elements[pieces[at * piece::words + piece::out_base] + written - deflate_piece_window + w];
            });
            k.if_(v >= 256u, [&] { k.store(failures, 0u, 1u); });
            k.store(output, destinations[i] + j, v);
            j = j + workgroup;
        });
    });
    return k.program();
}

inline std::vector<op_info> deflate_split_infos() {
    return {{"compression.deflate.pieces", 1, "pieces of one DEFLATE stream, each from a guessed block start, references for the window before it",
             {{ir::data_type::bytes}, ir::data_type::u32}, ir::convention::v1(),
             [] { return deflate_pieces_program(deflate_piece_lanes, deflate_fast_streams_per_workgroup); }},
            {"compression.deflate.join", 1, "the pieces' elements written as the stream's bytes, in order",
             {{ir::data_type::u32}, ir::data_type::bytes}, ir::convention::v1(), [] { return deflate_join_program(); }},
            deflate_block_starts_info()};
}

// What inflating one stream in pieces found.
struct deflate_split_result {
    vyre::compression::block_status status; // as compression.deflate's for the whole stream; bytes: its output size
    std::uint64_t pieces = 0;               // pieces the stream decoded in
    std::uint32_t rounds = 0;               // launches of the pieces program (1 when every guess held)
    std::uint32_t false_guesses = 0;        // split points that were no block start
    std::uint32_t regrown = 0;              // pieces decoded again in a larger region
    std::uint32_t cut = 0;                  // pieces that outgrew their region, cut at block starts inside them
    std::uint64_t failed_piece = 0;         // on an error: the bit where the piece that found it starts
    // Per round: the pieces it decoded, its seconds (host clock, until their statuses were back),
    // and the most elements one of its pieces wrote (its window included; the round waits for
    // its slowest piece, and a piece's time grows with its output).
    struct round {
        std::uint32_t pieces = 0;
        double seconds = 0;
        std::uint32_t largest = 0;
    };
    std::vector<round> round_log;
    // Host clock, seconds: the stream's upload and the search for split points on the device
    // (inflate_split with a piece size; 0 with the points given), every round of pieces (until
    // their statuses are back; with the points given, the upload too), then the join (waited for).
    double search_seconds = 0, pieces_seconds = 0, join_seconds = 0;
};

namespace detail {

inline const runtime::compiled_program& deflate_pieces_kernel(lower::subgroup_lowering lowering) {
    static const runtime::compiled_program warps(deflate_pieces_program(deflate_piece_lanes, deflate_fast_streams_per_workgroup));
    static const runtime::compiled_program khr(deflate_pieces_program(deflate_piece_lanes, 1));
    static const runtime::compiled_program emulated(deflate_pieces_program(deflate_piece_lanes, 1), lower::subgroup_lowering::emulated);
    return lowering == lower::subgroup_lowering::nvidia_ptx ? warps : lowering == lower::subgroup_lowering::khr ? khr : emulated;
}

// One piece as the host tracks it: where it starts and stops (bits of the stream), its region of
// the elements buffer, and what its last decoding reported.
struct deflate_piece_state {
    std::uint64_t start = 0, stop = 0; // stop: the next piece's start, or ~0 for the last
    std::uint64_t base = 0, capacity = 0;
    bool decoded = false; // its status is from its present region and stop
    std::array<std::uint32_t, deflate_piece::status_words> status{};
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
struct deflate_split_options {
    std::uint32_t region_factor = 0;
    std::optional<lower::subgroup_lowering> lowering;
};

// The elements the first regions of a stream's pieces may take: half the device's largest buffer
// and half of 2^32 (u32 elements, so a region can grow once).
inline std::uint64_t deflate_region_budget(const runtime::device_info& device) noexcept {
    return std::min<std::uint64_t>(device.max_allocation / 4 / 2, std::uint64_t{1} << 31);
}

// The factor a first region gets (deflate_split_options::region_factor 0): the stream's
// regions, each its share times the factor, fill at most deflate_region_budget, and at least
// twice the share.
inline std::uint64_t deflate_region_factor(const runtime::device_info& device, std::uint64_t expected, std::uint64_t pieces) {
    const std::uint64_t budget = deflate_region_budget(device);
    const std::uint64_t fixed = pieces * (deflate_piece_window + 65536);
    if (budget <= fixed) return 2;
    return std::clamp<std::uint64_t>((budget - fixed) / std::max<std::uint64_t>(expected, 1), 2, 16);
}

// Inflates `stream` (raw DEFLATE) into `output` (a device buffer of at least `expected` bytes,
// rounded up to a word), the stream's pieces starting at `points` (bits, increasing, the first 0:
// format::deflate_split_points or find_deflate_blocks). On success, status {none, expected}; a
// stream that decodes to another size gets {output_overflow, 0} when larger (nothing written past
// `expected`) and {none, size} when smaller; a corrupt stream gets its error code (with 0 bytes:
// the host reference gives the exact count). Runs on ctx's queue and returns when done.
// detail::inflate_pieces does the work, the stream already in `input`.
namespace detail {
inline double deflate_split_clock() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

inline deflate_split_result inflate_pieces(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t stream_bytes,
                                           std::span<const std::uint64_t> points, std::uint64_t expected, const boost::compute::buffer& output,
                                           const deflate_split_options& options, double started);
} // namespace detail

inline deflate_split_result inflate_split(runtime::context& ctx, std::span<const std::uint8_t> stream, std::span<const std::uint64_t> points,
                                          std::uint64_t expected, const boost::compute::buffer& output,
                                          const deflate_split_options& options = {}) {
    const double started = detail::deflate_split_clock();
    auto input = runtime::allocate(ctx, runtime::padded_bytes(stream.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, input, stream.data(), stream.size());
    return detail::inflate_pieces(ctx, input, stream.size(), points, expected, output, options, started);
}

// The same, the split points found on the device (find_deflate_blocks, every `piece_bytes` bytes
// of the stream) after the stream's upload.
inline deflate_split_result inflate_split(runtime::context& ctx, std::span<const std::uint8_t> stream, std::uint64_t piece_bytes,
                                          std::uint64_t expected, const boost::compute::buffer& output,
                                          const deflate_split_options& options = {}) {
    const double started = detail::deflate_split_clock();
    auto input = runtime::allocate(ctx, runtime::padded_bytes(stream.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, input, stream.data(), stream.size());
    const std::vector<std::uint64_t> points = find_deflate_blocks(ctx, input, stream.size(), piece_bytes);
    const double searched = detail::deflate_split_clock();
    deflate_split_result r = detail::inflate_pieces(ctx, input, stream.size(), points, expected, output, options, searched);
    r.search_seconds = searched - started;
    return r;
}

inline deflate_split_result detail::inflate_pieces(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t stream_bytes,
                                                   std::span<const std::uint64_t> points, std::uint64_t expected,
                                                   const boost::compute::buffer& output, const deflate_split_options& options, double started) {
    namespace e = vyre::compression::deflate_error;
    namespace piece = deflate_piece;
    using state = detail::deflate_piece_state;
    deflate_split_result result;
    const auto clock = detail::deflate_split_clock;
    if (points.empty() || points.front() != 0 || !std::is_sorted(points.begin(), points.end()) ||
        std::adjacent_find(points.begin(), points.end()) != points.end())
        throw resource_error("inflate_split: split points must rise from 0");
    if (expected > 0xFFFFFFFFull || output.size() < (expected + 3) / 4 * 4)
        throw resource_error("inflate_split: an output of " + std::to_string(expected) + " bytes needs a buffer of " +
                             std::to_string((expected + 3) / 4 * 4) + " bytes and at most 2^32-1 of them");
    if (input.size() < stream_bytes || input.size() % 4 != 0) throw resource_error("inflate_split: the input buffer does not hold the stream in words");
    const std::uint64_t total_bits = stream_bytes * 8, none = ~std::uint64_t{0};
    std::vector<state> pieces;
    for (const std::uint64_t p : points)
        if (p < total_bits || pieces.empty()) pieces.push_back({p, none});
    for (std::size_t i = 0; i + 1 < pieces.size(); ++i) pieces[i].stop = pieces[i + 1].start;
    const std::uint32_t input_words = static_cast<std::uint32_t>(input.size() / 4);
    const lower::subgroup_lowering lowering = options.lowering.value_or(runtime::native_subgroups(ctx.device()));
    const std::uint32_t per_group = lowering == lower::subgroup_lowering::nvidia_ptx ? deflate_fast_streams_per_workgroup : 1;

    // The elements buffer: regions handed out in order, grown (its contents copied) when a
    // region does not fit; element indices stay below 2^32.
    boost::compute::buffer elements;
    std::uint64_t used = 0;
    const auto window_of = [&](const state& p) { return p.start == 0 ? 0u : deflate_piece_window; };
    const auto place = [&](state& p, std::uint64_t capacity) {
        p.capacity = capacity;
        p.base = used;
        used += capacity;
        if (used > 0xFFFFFFFFull) throw resource_error("inflate_split: the pieces' output regions pass 2^32 elements; inflate on the host");
    };
    // A first region: the factor times the piece's share of the output, and 64 KiB.
    const std::uint64_t factor =
        options.region_factor != 0 ? options.region_factor : deflate_region_factor(ctx.device(), expected, pieces.size());
    const auto estimate = [&](const state& p) {
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
    for (state& p : pieces) place(p, estimate(p));
    // Decodes pieces `which` (indices into `pieces`) in one launch and takes their statuses.
    const auto decode = [&](const std::vector<std::size_t>& which) {
        const double round_started = clock();
        fit();
        std::vector<std::uint32_t> records(which.size() * piece::words);
        for (std::size_t k = 0; k < which.size(); ++k) {
            const state& p = pieces[which[k]];
            const std::uint64_t in_base = p.start / 8;
            std::uint32_t* r = records.data() + k * piece::words;
            r[piece::in_base] = static_cast<std::uint32_t>(in_base);
            r[piece::in_size] = static_cast<std::uint32_t>(std::min<std::uint64_t>(stream_bytes - in_base, deflate_piece_max_input));
            r[piece::start_bit] = static_cast<std::uint32_t>(p.start % 8);
            r[piece::stop_bit] = p.stop == none ? 0xFFFFFFFFu : static_cast<std::uint32_t>(std::min<std::uint64_t>(p.stop - in_base * 8, 0xFFFFFFFEull));
            r[piece::out_base] = static_cast<std::uint32_t>(p.base);
            r[piece::capacity] = static_cast<std::uint32_t>(p.capacity);
            r[piece::window] = window_of(p);
        }
        const std::uint32_t count = static_cast<std::uint32_t>(which.size());
        const auto record_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(records), CL_MEM_READ_ONLY);
        auto status_buffer = runtime::allocate(ctx, count * piece::status_words * 4);
        const std::array<std::uint32_t, 4> p{count, static_cast<std::uint32_t>(stream_bytes), static_cast<std::uint32_t>(elements.size() / 4), 0};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        const runtime::buffer_arg args[] = {{input, input_words},
                                            {record_buffer, count * piece::words},
                                            {elements, static_cast<std::uint32_t>(std::min<std::size_t>(elements.size() / 4, 0xFFFFFFFFu))},
                                            {status_buffer, count * piece::status_words},
                                            {params, 4}};
        runtime::dispatch(ctx, detail::deflate_pieces_kernel(lowering), {(count + per_group - 1) / per_group, 1, 1}, args);
        std::vector<std::uint32_t> back(count * piece::status_words);
        runtime::read(ctx, status_buffer, back.data(), back.size() * 4);
        std::uint32_t largest = 0;
        for (std::size_t k = 0; k < which.size(); ++k) {
            std::copy_n(back.data() + k * piece::status_words, piece::status_words, pieces[which[k]].status.begin());
            pieces[which[k]].decoded = true;
            largest = std::max(largest, back[k * piece::status_words + piece::written]);
        }
        ++result.rounds;
        result.round_log.push_back({count, clock() - round_started, largest});
    };
    std::size_t settled = 0; // pieces [0, settled) start where the stream's blocks do and end where the next starts
    const auto fail = [&](std::uint32_t code) {
        result.status = {code, 0};
        result.pieces = pieces.size();
        return result;
    };
    const auto regrowable = [&](const state& p) {
        return p.status[piece::code] == e::output_overflow && p.capacity < window_of(p) + expected + 1;
    };
    // A new piece from `end` (a block start, if the piece that ended there started at one) to the
    // next guess after it, placed at index i; nothing when a piece starts there already.
    const auto start_at = [&](std::size_t i, std::uint64_t end) {
        if (i < pieces.size() && pieces[i].start == end) return;
        state fresh{end, i < pieces.size() ? pieces[i].start : none};
        place(fresh, estimate(fresh));
        pieces.insert(pieces.begin() + static_cast<std::ptrdiff_t>(i), fresh);
        ++result.false_guesses;
    };
    for (bool done = false; !done;) {
        std::vector<std::size_t> which;
        for (std::size_t i = 0; i < pieces.size(); ++i)
            if (!pieces[i].decoded) which.push_back(i);
        if (which.empty()) return fail(e::input_overrun); // nothing left to try: never from a well-formed stream
        decode(which);
        // Settle pieces in order while each ends where the next starts.
        while (settled < pieces.size() && pieces[settled].decoded && !regrowable(pieces[settled])) {
            state& p = pieces[settled];
            if (p.status[piece::code] != e::none) {
                result.failed_piece = p.start;
                return fail(p.status[piece::code]);
            }
            if (p.status[piece::final_block] != 0) {
                pieces.resize(settled + 1); // the stream ends here; later guesses lay past its end
                ++settled;
                done = true;
                break;
            }
            const std::uint64_t end = p.start / 8 * 8 + p.status[piece::end_bit];
            if (p.stop == none || end <= p.start) return fail(e::input_overrun); // never from a well-formed piece
            // Every piece that starts before this one's end came from a guess that was no block
            // start (a piece further on may have ended inside this one): they go, and the next
            // piece starts where this one ended (made here when no piece starts there).
            std::size_t next = settled + 1;
            while (next < pieces.size() && pieces[next].start < end) ++next;
            pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(settled + 1), pieces.begin() + static_cast<std::ptrdiff_t>(next));
            start_at(settled + 1, end);
            pieces[settled].stop = end;
            ++settled;
        }
        if (done) break;
        // Beyond the settled pieces, guess on: a piece that outgrew its region is cut at the
        // blocks that start inside it, or decoded again in a region sixteen times larger, and
        // where a piece ran past the next guess, a piece starts where it ended (all of them in the
        // next round, not one per round).
        for (std::size_t i = settled; i < pieces.size(); ++i) {
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
                // (The device's search takes streams below 2^29 bytes; a longer one, split at points
                // the host found, has its outgrown pieces decoded again whole.)
                if (stream_bytes <= deflate_block_starts_max_stream && stop / 8 > q.start / 8 + 1) {
                    const std::uint64_t from = q.start / 8 + 1, to = stop / 8;
                    inside = find_deflate_blocks_in(ctx, input, stream_bytes, from, to, std::max<std::uint64_t>(64, (to - from) / 64));
                    std::erase_if(inside, [&](std::uint64_t b) { return b <= q.start || b >= stop; });
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
    }
    result.pieces = pieces.size();
    const double pieces_done = clock();
    result.pieces_seconds = pieces_done - started;
    // Where each piece's bytes go, and the records and statuses the join reads.
    const std::size_t m = pieces.size();
    std::vector<std::uint32_t> records(m * piece::words), statuses(m * piece::status_words), destinations(m);
    std::uint64_t size = 0;
    std::uint32_t largest = 0;
    for (std::size_t i = 0; i < m; ++i) {
        const state& p = pieces[i];
        records[i * piece::words + piece::out_base] = static_cast<std::uint32_t>(p.base);
        records[i * piece::words + piece::window] = window_of(p);
        std::copy(p.status.begin(), p.status.end(), statuses.begin() + static_cast<std::ptrdiff_t>(i * piece::status_words));
        destinations[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(size, 0xFFFFFFFFull));
        const std::uint32_t bytes = p.status[piece::written] - window_of(p);
        size += bytes;
        largest = std::max(largest, bytes);
    }
    if (size > expected) return fail(e::output_overflow);
    const auto record_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(records), CL_MEM_READ_ONLY);
    const auto status_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(statuses), CL_MEM_READ_ONLY);
    const auto destination_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(destinations), CL_MEM_READ_ONLY);
    std::array<std::uint32_t, 1> no_failure{0};
    auto failures = runtime::upload(ctx, std::span<const std::uint32_t>(no_failure));
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
                                        {failures, 1},
                                        {params, 2}};
    runtime::dispatch(ctx, join, {static_cast<std::uint32_t>(m * slices), 1, 1}, args);
    runtime::read(ctx, failures, no_failure.data(), 4);
    result.join_seconds = clock() - pieces_done;
    result.status = no_failure[0] != 0 ? vyre::compression::block_status{e::distance_too_far, 0}
                                       : vyre::compression::block_status{e::none, static_cast<std::uint32_t>(size)};
    return result;
}

} // namespace vyre::ops::compression
