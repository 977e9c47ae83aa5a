// One long DEFLATE stream inflated on the device in pieces that decode at once: the host guesses
// where blocks start (format/deflate_split.hpp), compression.deflate.pieces decodes every piece
// with references in place of the 32 KiB before it, and two passes put the bytes in order:
//
//   1. compression.deflate.pieces (ops/compression/deflate_program.hpp): piece i from its first
//      bit to the first block start at or past the next piece's first bit. Its output region
//      (u32 elements) starts with 32,768 references 256 + w to byte w of its window (the last
//      32 KiB before the piece, not known yet); a match copies references as it copies bytes.
//      The host then checks that every piece ended exactly where the next one starts: a guess
//      that was not a block start shows up as a piece that ran past it, and the pieces from there
//      on are decoded again from where it did end (another round; every round settles at least
//      one more piece, so the rounds end).
//   2. compression.deflate.windows: one workgroup, piece after piece, replaces the references in
//      the last 32 KiB of each piece by the bytes they name (in the piece before, whose last
//      32 KiB the step before settled). This is the only serial pass: 32 KiB per piece.
//   3. compression.deflate.join: every piece at once, each element a byte or a reference into the
//      settled end of the piece before, written to the piece's place in the output.
//
// A reference to a byte before the stream's first (a corrupt stream) is distance_too_far, as for
// the whole stream. The caller gives the stream's output size (a gzip member's ISIZE, a ZIP
// entry's size); output of another size is reported, never written past.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/compression/deflate.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/compression/deflate_program.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/runtime/program_cache.hpp>
#include <vyre/runtime/subgroups.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// The window each piece after the first starts with: DEFLATE's reach.
inline constexpr std::uint32_t deflate_piece_window = vyre::compression::deflate_window_bytes;
// Pieces decoded by one subgroup of this many lanes (the fast variant's shape).
inline constexpr std::uint32_t deflate_piece_lanes = deflate_fast_lanes;
// A piece reads at most this many input bytes: its bit positions stay below 2^32.
inline constexpr std::uint64_t deflate_piece_max_input = (std::uint64_t{1} << 29) - 1;
inline constexpr std::uint32_t deflate_join_workgroup = 256;
// The windows pass is one workgroup stepping piece after piece: as wide as devices allow.
inline constexpr std::uint32_t deflate_windows_workgroup = 1024;
// An element no byte stands for: a reference to before the stream's first byte.
inline constexpr std::uint32_t deflate_no_byte = 0xFFFFFFFFu;

namespace deflate_split_binding {
inline constexpr std::uint32_t elements = 0, pieces = 1, statuses = 2, params = 3; // windows
inline constexpr std::uint32_t destinations = 3, output = 4, failures = 5, join_params = 6; // join
} // namespace deflate_split_binding

namespace detail {

// The byte an element stands for, given the settled end of the piece before (`previous` is where
// its region starts, `previous_written` its elements): itself below 256, the window byte it
// names, or deflate_no_byte.
template <class E, class P, class W>
auto deflate_window_byte(dsl::kernel& k, const dsl::output_buffer<dsl::u32>& elements, const E& value, const P& previous,
                         const W& previous_written) {
    namespace d = vyre::dsl;
    const auto v = k.let("window_value", value);
    k.if_(v >= 256u, [&] {
        const auto w = k.let("window_at", v - 256u);
        k.if_(w < deflate_piece_window && previous_written + w >= deflate_piece_window, [&] {
            v = elements[previous + previous_written - deflate_piece_window + w];
        }).else_([&] { v = d::lit(deflate_no_byte); });
    });
    return v;
}

} // namespace detail

// compression.deflate.windows: see the top of this file. One workgroup.
inline ir::program deflate_windows_program(std::uint32_t workgroup = deflate_windows_workgroup) {
    namespace d = vyre::dsl;
    namespace piece = deflate_piece;
    d::kernel k(entry_name("compression.deflate.windows"), {workgroup, 1, 1});
    const auto elements = k.output<d::u32>("elements", deflate_split_binding::elements);
    const auto pieces = k.input<d::u32>("pieces", deflate_split_binding::pieces);
    const auto statuses = k.input<d::u32>("statuses", deflate_split_binding::statuses);
    const auto params = k.uniform<d::u32>("params", deflate_split_binding::params);
    const auto i = k.let("piece", 1u);
    k.while_(i < params[0u], [&] {
        const auto base = k.let("base", pieces[i * piece::words + piece::out_base]);
        const auto written = k.let("written", statuses[i * piece::status_words + piece::written]);
        const auto previous = k.let("previous", pieces[(i - 1u) * piece::words + piece::out_base]);
        const auto previous_written = k.let("previous_written", statuses[(i - 1u) * piece::status_words + piece::written]);
        const auto j = k.let("j", written - d::min(written, deflate_piece_window) + d::local_id());
        k.while_(j < written, [&] {
            const auto v = detail::deflate_window_byte(k, elements, elements[base + j], previous, previous_written);
            k.store(elements, base + j, v);
            j = j + workgroup;
        });
        k.barrier(); // the next piece reads what this one settled
        i = i + 1u;
    });
    return k.program();
}

// compression.deflate.join: see the top of this file. params: pieces, slices per piece.
inline ir::program deflate_join_program(std::uint32_t workgroup = deflate_join_workgroup) {
    namespace d = vyre::dsl;
    namespace piece = deflate_piece;
    d::kernel k(entry_name("compression.deflate.join"), {workgroup, 1, 1});
    const auto elements = k.output<d::u32>("elements", deflate_split_binding::elements);
    const auto pieces = k.input<d::u32>("pieces", deflate_split_binding::pieces);
    const auto statuses = k.input<d::u32>("statuses", deflate_split_binding::statuses);
    const auto destinations = k.input<d::u32>("destinations", deflate_split_binding::destinations);
    const auto output = k.output<d::bytes>("output", deflate_split_binding::output);
    const auto failures = k.output<d::u32>("failures", deflate_split_binding::failures);
    const auto params = k.uniform<d::u32>("params", deflate_split_binding::join_params);
    const auto i = k.let("piece", d::workgroup_id() / params[1u]);
    const auto slice = k.let("slice", d::workgroup_id() % params[1u]);
    k.if_(i < params[0u], [&] {
        const auto base = k.let("base", pieces[i * piece::words + piece::out_base]);
        const auto window = k.let("window", pieces[i * piece::words + piece::window]);
        const auto written = k.let("written", statuses[i * piece::status_words + piece::written]);
        const auto previous = k.let("previous", d::select(i == 0u, 0u, pieces[(i - 1u) * piece::words + piece::out_base]));
        const auto previous_written = k.let("previous_written", d::select(i == 0u, 0u, statuses[(i - 1u) * piece::status_words + piece::written]));
        const auto count = k.let("count", written - window);
        const auto share = k.let("share", count / params[1u] + 1u);
        const auto from = k.let("from", d::min(count, slice * share));
        const auto to = k.let("to", d::min(count, from + share));
        const auto j = k.let("j", from + d::local_id());
        k.while_(j < to, [&] {
            const auto v = detail::deflate_window_byte(k, elements, elements[base + window + j], previous, previous_written);
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
            {"compression.deflate.windows", 1, "the last 32 KiB of every piece settled, piece after piece",
             {{ir::data_type::u32}, ir::data_type::u32}, ir::convention::v1(), [] { return deflate_windows_program(); }},
            {"compression.deflate.join", 1, "the pieces' elements written as the stream's bytes, in order",
             {{ir::data_type::u32}, ir::data_type::bytes}, ir::convention::v1(), [] { return deflate_join_program(); }}};
}

// What inflating one stream in pieces found.
struct deflate_split_result {
    vyre::compression::block_status status; // as compression.deflate's for the whole stream; bytes: its output size
    std::uint64_t pieces = 0;               // pieces the stream decoded in
    std::uint32_t rounds = 0;               // launches of the pieces program (1 when every guess held)
    // Host clock, seconds: the stream's upload and every round of pieces (until their statuses
    // are back), the windows pass, the join (each waited for before the next is timed).
    double pieces_seconds = 0, windows_seconds = 0, join_seconds = 0;
};

namespace detail {

inline const runtime::compiled_program& deflate_pieces_kernel(lower::subgroup_lowering lowering) {
    static const runtime::compiled_program warps(deflate_pieces_program(deflate_piece_lanes, deflate_fast_streams_per_workgroup));
    static const runtime::compiled_program khr(deflate_pieces_program(deflate_piece_lanes, 1));
    static const runtime::compiled_program emulated(deflate_pieces_program(deflate_piece_lanes, 1), lower::subgroup_lowering::emulated);
    return lowering == lower::subgroup_lowering::nvidia_ptx ? warps : lowering == lower::subgroup_lowering::khr ? khr : emulated;
}

} // namespace detail

// Inflates `stream` (raw DEFLATE) into `output` (a device buffer of at least `expected` bytes,
// rounded up to a word), the stream's pieces starting at `points` (bits, increasing, the first 0:
// format::deflate_split_points). On success, status {none, expected}; a stream that decodes to
// another size gets {output_overflow, 0} when larger (nothing written past `expected`) and
// {none, size} when smaller; a corrupt stream gets its error code (with 0 bytes: the host
// reference gives the exact count). Runs on ctx's queue and returns when done.
inline deflate_split_result inflate_split(runtime::context& ctx, std::span<const std::uint8_t> stream, std::span<const std::uint64_t> points,
                                          std::uint64_t expected, const boost::compute::buffer& output) {
    namespace e = vyre::compression::deflate_error;
    namespace piece = deflate_piece;
    deflate_split_result result;
    const auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
    const double started = clock();
    if (points.empty() || points.front() != 0 || !std::is_sorted(points.begin(), points.end()) ||
        std::adjacent_find(points.begin(), points.end()) != points.end())
        throw resource_error("inflate_split: split points must rise from 0");
    if (expected > 0xFFFFFFFFull || output.size() < (expected + 3) / 4 * 4)
        throw resource_error("inflate_split: an output of " + std::to_string(expected) + " bytes needs a buffer of " +
                             std::to_string((expected + 3) / 4 * 4) + " bytes and at most 2^32-1 of them");
    std::vector<std::uint64_t> starts(points.begin(), points.end());
    const std::uint64_t total_bits = std::uint64_t{stream.size()} * 8;
    while (!starts.empty() && starts.back() >= total_bits) starts.pop_back();
    if (starts.empty()) starts.push_back(0);
    auto input = runtime::allocate(ctx, runtime::padded_bytes(stream.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, input, stream.data(), stream.size());
    const std::uint32_t input_words = static_cast<std::uint32_t>(input.size() / 4);
    const lower::subgroup_lowering lowering = runtime::native_subgroups(ctx.device());
    const std::uint32_t per_group = lowering == lower::subgroup_lowering::nvidia_ptx ? deflate_fast_streams_per_workgroup : 1;

    // Records of every piece; its capacity from its share of the stream's bits, twice over.
    std::vector<std::uint32_t> records, statuses;
    std::vector<std::uint64_t> capacity;
    boost::compute::buffer elements;
    const auto lay_out = [&] {
        const std::size_t m = starts.size();
        records.assign(m * piece::words, 0);
        statuses.resize(m * piece::status_words, 0);
        capacity.resize(m, 0);
        std::uint64_t at = 0;
        for (std::size_t i = 0; i < m; ++i) {
            const std::uint64_t from = starts[i], to = i + 1 < m ? starts[i + 1] : total_bits;
            const std::uint64_t window = i == 0 ? 0 : deflate_piece_window;
            if (capacity[i] == 0)
                capacity[i] = window + std::min<std::uint64_t>(expected + 1, 2 * expected * (to - from) / std::max<std::uint64_t>(total_bits, 1) + 65536);
            const std::uint64_t in_base = from / 8;
            std::uint32_t* r = records.data() + i * piece::words;
            r[piece::in_base] = static_cast<std::uint32_t>(in_base);
            r[piece::in_size] = static_cast<std::uint32_t>(std::min<std::uint64_t>(stream.size() - in_base, deflate_piece_max_input));
            r[piece::start_bit] = static_cast<std::uint32_t>(from % 8);
            r[piece::stop_bit] = i + 1 < m ? static_cast<std::uint32_t>(std::min<std::uint64_t>(to - in_base * 8, 0xFFFFFFFEull)) : 0xFFFFFFFFu;
            r[piece::window] = static_cast<std::uint32_t>(window);
            r[piece::out_base] = static_cast<std::uint32_t>(at);
            r[piece::capacity] = static_cast<std::uint32_t>(capacity[i]);
            at += capacity[i];
            if (at > 0xFFFFFFFFull / 4) throw resource_error("inflate_split: the pieces' output regions outgrow one buffer; inflate on the host");
        }
        runtime::reserve(ctx, elements, static_cast<std::size_t>(std::max<std::uint64_t>(at, 1) * 4));
    };
    lay_out();
    // Rounds: decode pieces [settled, m), then settle them in order while each ends where the next
    // starts. A layout that moved the elements to a larger buffer lost the settled pieces' output:
    // they are decoded again.
    std::size_t settled = 0;
    const auto relay = [&] {
        const cl_mem before = elements.get();
        lay_out();
        if (elements.get() != before) settled = 0;
    };
    for (;;) {
        const std::size_t m = starts.size();
        const std::uint32_t count = static_cast<std::uint32_t>(m - settled);
        const auto record_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(records.data() + settled * piece::words, count * piece::words),
                                                   CL_MEM_READ_ONLY);
        auto status_buffer = runtime::allocate(ctx, count * piece::status_words * 4);
        const std::array<std::uint32_t, 4> p{count, static_cast<std::uint32_t>(stream.size()), static_cast<std::uint32_t>(elements.size() / 4), 0};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        const runtime::buffer_arg args[] = {{input, input_words},
                                            {record_buffer, count * piece::words},
                                            {elements, static_cast<std::uint32_t>(elements.size() / 4)},
                                            {status_buffer, count * piece::status_words},
                                            {params, 4}};
        runtime::dispatch(ctx, detail::deflate_pieces_kernel(lowering), {(count + per_group - 1) / per_group, 1, 1}, args);
        runtime::read(ctx, status_buffer, statuses.data() + settled * piece::status_words, count * piece::status_words * 4);
        ++result.rounds;
        bool again = false;
        while (settled < starts.size() && !again) {
            const std::uint32_t* s = statuses.data() + settled * piece::status_words;
            const std::uint32_t* r = records.data() + settled * piece::words;
            if (s[piece::code] == e::output_overflow && capacity[settled] < r[piece::window] + expected + 1) {
                capacity[settled] = r[piece::window] + expected + 1; // this piece alone may hold the whole output
                relay();
                again = true;
                break;
            }
            if (s[piece::code] != e::none) {
                result.status = {s[piece::code], 0};
                result.pieces = starts.size();
                return result;
            }
            if (s[piece::final_block] != 0) {
                starts.resize(settled + 1); // the stream ends here; later guesses lay past its end
                break;
            }
            const std::uint64_t end = std::uint64_t{r[piece::in_base]} * 8 + s[piece::end_bit];
            if (end <= starts[settled] || settled + 1 == starts.size()) { // no progress: never from a well-formed piece
                result.status = {e::input_overrun, 0};
                result.pieces = starts.size();
                return result;
            }
            if (end == starts[settled + 1]) {
                ++settled;
                continue;
            }
            // The next guess was no block start (the piece ran past it): the next piece starts
            // where this one ended, and guesses before that go.
            std::vector<std::uint64_t> next(starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(settled + 1));
            next.push_back(end);
            for (const std::uint64_t b : starts)
                if (b > end) next.push_back(b);
            starts = std::move(next);
            capacity.resize(settled + 1);
            capacity.resize(starts.size(), 0);
            ++settled;
            relay();
            again = true;
        }
        if (!again) break;
    }
    const std::size_t m = starts.size();
    result.pieces = m;
    const double pieces_done = clock();
    result.pieces_seconds = pieces_done - started;
    statuses.resize(m * piece::status_words);
    records.resize(m * piece::words);
    // Where each piece's bytes go.
    std::vector<std::uint32_t> destinations(m);
    std::uint64_t size = 0;
    std::uint32_t largest = 0;
    for (std::size_t i = 0; i < m; ++i) {
        destinations[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(size, 0xFFFFFFFFull));
        const std::uint32_t bytes = statuses[i * piece::status_words + piece::written] - records[i * piece::words + piece::window];
        size += bytes;
        largest = std::max(largest, bytes);
    }
    if (size > expected) {
        result.status = {e::output_overflow, 0};
        return result;
    }
    const auto record_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(records), CL_MEM_READ_ONLY);
    const auto status_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(statuses), CL_MEM_READ_ONLY);
    const auto destination_buffer = runtime::upload(ctx, std::span<const std::uint32_t>(destinations), CL_MEM_READ_ONLY);
    std::array<std::uint32_t, 1> no_failure{0};
    auto failures = runtime::upload(ctx, std::span<const std::uint32_t>(no_failure));
    const std::uint32_t element_words = static_cast<std::uint32_t>(elements.size() / 4);
    if (m > 1) {
        const std::array<std::uint32_t, 1> p{static_cast<std::uint32_t>(m)};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        static const runtime::compiled_program windows(deflate_windows_program());
        const runtime::buffer_arg args[] = {{elements, element_words},
                                            {record_buffer, static_cast<std::uint32_t>(records.size())},
                                            {status_buffer, static_cast<std::uint32_t>(statuses.size())},
                                            {params, 1}};
        runtime::dispatch(ctx, windows, {1, 1, 1}, args);
        ctx.queue().finish();
    }
    const double windows_done = clock();
    result.windows_seconds = windows_done - pieces_done;
    // Slices of about 64 KiB, so that a stream of few pieces still fills the device.
    const std::uint32_t slices = std::max<std::uint32_t>(1, largest / 65536);
    const std::array<std::uint32_t, 2> p{static_cast<std::uint32_t>(m), slices};
    const auto params = runtime::make_parameter_buffer(ctx, p);
    static const runtime::compiled_program join(deflate_join_program());
    const runtime::buffer_arg args[] = {{elements, element_words},
                                        {record_buffer, static_cast<std::uint32_t>(records.size())},
                                        {status_buffer, static_cast<std::uint32_t>(statuses.size())},
                                        {destination_buffer, static_cast<std::uint32_t>(m)},
                                        {output, static_cast<std::uint32_t>(output.size() / 4)},
                                        {failures, 1},
                                        {params, 2}};
    runtime::dispatch(ctx, join, {static_cast<std::uint32_t>(m * slices), 1, 1}, args);
    runtime::read(ctx, failures, no_failure.data(), 4);
    result.join_seconds = clock() - windows_done;
    result.status = no_failure[0] != 0 ? vyre::compression::block_status{e::distance_too_far, 0}
                                       : vyre::compression::block_status{e::none, static_cast<std::uint32_t>(size)};
    return result;
}

} // namespace vyre::ops::compression
