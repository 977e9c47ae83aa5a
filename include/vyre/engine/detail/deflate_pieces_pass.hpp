// The deflate pipeline's long streams: which ones the device decodes in pieces
// (ops/compression/deflate_split.hpp: split points found on the device, the pieces decoded at
// once, joined in order), and how they are run: all of them together. A stream of tens of MiB has no stream-level
// parallelism, so the batches (one subgroup per stream) would decode it at the rate of one
// subgroup, and libdeflate at the rate of one host core; in pieces the device beats that core.
// Internal to engine/deflate_decompress.hpp, whose opening comment describes the whole pipeline.
#pragma once

#include <vyre/engine/detail/deflate_checks.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/bytes/crc32.hpp>
#include <vyre/ops/compression/deflate_block_starts.hpp>
#include <vyre/ops/compression/deflate_split.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine::detail {

// The automatic route's estimate of a stream's time, fitted to the H200's figures for streams of
// 16 to 256 MiB of the mixed corpus in pieces, from host bytes to host bytes, and for libdeflate
// on one host core (doc/ops/compression.deflate.md, "The route"): in pieces a fixed cost and a
// rate, on a host core a rate. Streams in pieces go together (decode_in_pieces), so the fixed
// cost counts once for all of them. The estimates only order the choices below; a stream's bytes
// and checks are the same either way.
inline constexpr double deflate_pieces_fixed_seconds = 0.006;
inline constexpr double deflate_pieces_bytes_per_second = 2.2e9;
inline constexpr double deflate_host_core_bytes_per_second = 1.2e9;

// The batches (one subgroup a stream) run before the pieces, on the same device: their time, from
// the pass's start to the last batch back, counts before any piece. On the H100 (2026-12-05) 412.8
// MiB of 32,527 ZIP entries took 0.10 to 0.12 s so: a ZIP's large entries, which the host would
// have decoded long before, waited behind them when this was left out.
inline constexpr double deflate_batches_bytes_per_second = 3.5e9;

inline double deflate_pieces_seconds(std::uint64_t bytes) noexcept {
    return deflate_pieces_fixed_seconds + static_cast<double>(bytes) / deflate_pieces_bytes_per_second;
}

// Whether inflate_split can take the stream on `device`: its input within the split-point
// finder's reach, and its output small enough that the pieces' first regions (twice their share
// at least, with room to grow) take at most half of ops::compression::deflate_region_budget.
inline std::uint64_t deflate_pieces_max_bytes(const runtime::device_info& device) noexcept {
    return ops::compression::deflate_region_budget(device) / 4;
}
inline bool deflate_pieces_fit(const deflate_stream& s, std::uint64_t max_bytes) noexcept {
    return !s.input.empty() && s.input.size() <= ops::compression::deflate_block_starts_max_stream && s.size <= max_bytes;
}
inline bool deflate_pieces_fit(const deflate_stream& s, const runtime::device_info& device) noexcept {
    return deflate_pieces_fit(s, deflate_pieces_max_bytes(device));
}
// The most a stream can be on any device (the largest buffers).
inline constexpr std::uint64_t deflate_pieces_largest_bytes = std::uint64_t{1} << 29;

// The input bytes between split points: about a thousand pieces, each 16 to 64 KiB of input
// (the sizes measured; more pieces than that only lengthen the join's chains).
inline std::uint64_t deflate_piece_input_bytes(std::uint64_t input_bytes) noexcept {
    return std::clamp<std::uint64_t>(input_bytes / 1024, std::uint64_t{16} << 10, std::uint64_t{64} << 10);
}

// How long a device context still being made may take to be ready, estimated: what the H200's
// OpenCL driver took to start (0.24 to 0.26 s, `vyre unpack --timings`) less the time since it began.
// A device known to be a CPU device (chosen, its context not made yet) never gets pieces on the
// automatic route: an endless wait, so that the plan does not wait for it either.
inline constexpr double deflate_context_start_seconds = 0.25;

inline double deflate_device_wait_seconds(const runtime::context& ctx) {
    if (ctx.ready()) return 0.0;
    if (ctx.is_cpu_device().value_or(false)) return std::numeric_limits<double>::infinity();
    return std::max(0.0, deflate_context_start_seconds - ctx.making_began_seconds_ago());
}

// Which of the streams that `paths` gives the host go to the device in pieces: those of at least
// options.pieces_min_bytes that fit (at most `max_bytes`, deflate_pieces_max_bytes). On the
// device route, all of them. On the automatic route (a GPU), the largest ones for as long as
// moving one more lowers the longer of the two passes' estimated times: the device's (the wait
// for its context, `device_wait_seconds`, the batches before the pieces, `batch_bytes` of
// content, then the streams together) and the host's (its
// bytes over every thread, or its largest stream on one thread, whichever is longer). Many large
// streams thus stay on the host cores, where they decode side by side; a single one (a .tar.gz)
// goes to the device when it is large enough to gain, the wait for the device included. Returns
// how many go.
inline std::size_t choose_piece_streams(std::span<const deflate_stream> streams, std::vector<deflate_path>& paths, std::uint64_t max_bytes,
                                        const deflate_options& options, double device_wait_seconds = 0,
                                        std::uint64_t batch_bytes = 0) {
    if (options.route == deflate_route::host) return 0;
    std::vector<std::size_t> candidates;
    std::uint64_t host_bytes = 0, largest_other = 0;
    for (std::size_t k = 0; k < streams.size(); ++k) {
        if (paths[k] != deflate_path::host) continue;
        host_bytes += streams[k].size;
        if (streams[k].size >= deflate_pieces_min(options) && deflate_pieces_fit(streams[k], max_bytes))
            candidates.push_back(k);
        else
            largest_other = std::max(largest_other, streams[k].size);
    }
    if (options.route == deflate_route::device) {
        for (const std::size_t k : candidates) paths[k] = deflate_path::pieces;
        return candidates.size();
    }
    std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) { return streams[a].size > streams[b].size; });
    const double threads = util::thread_count(options.threads);
    const auto host_seconds = [&](std::uint64_t bytes, std::uint64_t largest) {
        return std::max(static_cast<double>(bytes) / threads, static_cast<double>(largest)) / deflate_host_core_bytes_per_second;
    };
    double device_seconds = device_wait_seconds + static_cast<double>(batch_bytes) / deflate_batches_bytes_per_second;
    std::size_t moved = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const std::uint64_t size = streams[candidates[i]].size;
        const std::uint64_t next_largest = std::max(largest_other, i + 1 < candidates.size() ? streams[candidates[i + 1]].size : 0);
        const double before = std::max(moved == 0 ? 0.0 : device_seconds, host_seconds(host_bytes, std::max(largest_other, size)));
        const double after = moved == 0 ? device_seconds + deflate_pieces_seconds(size)
                                        : device_seconds + static_cast<double>(size) / deflate_pieces_bytes_per_second;
        if (std::max(after, host_seconds(host_bytes - size, next_largest)) >= before) break;
        paths[candidates[i]] = deflate_path::pieces;
        device_seconds = after;
        host_bytes -= size;
        ++moved;
    }
    return moved;
}

// What the streams in pieces did: their pieces in all, and how many of them the host decoded
// instead, with the first one's reason.
struct deflate_pieces_summary {
    std::uint64_t pieces = 0;
    std::size_t calls = 0; // of inflate_split_streams
    std::size_t fallbacks = 0;
    std::string first_fallback_reason;
};

// Decodes streams `which` (indices into `streams`) in pieces on ctx's queue, as many at once as
// one call of ops::compression::inflate_split_streams takes (their input below 2^29 bytes, their
// output below 4 GiB and the device's largest buffer): one search, shared rounds and one join
// for all of them, then their CRC-32s on the device (ops::bytes::crc32_device, one launch) and
// each one's content read into its slot of `output` (at offsets[k]) and checked as every route
// does. Whatever stops a stream's pieces (a stream they find corrupt or of another size or CRC-32,
// a limit, a failed allocation or build) leaves it to the host path there and then, so its bytes
// and message are those of the host route. `max_input_bytes` lowers the input of one call (tests).
inline deflate_pieces_summary decode_in_pieces(runtime::context& ctx, std::span<const deflate_stream> streams, std::span<const std::size_t> which,
                                               std::span<std::uint8_t> output, std::span<const std::uint64_t> offsets,
                                               std::vector<std::optional<std::string>>& errors,
                                               std::uint64_t max_input_bytes = ops::compression::deflate_block_starts_max_stream) {
    namespace cz = ops::compression;
    deflate_pieces_summary summary;
    const auto slot = [&](std::size_t k) {
        return output.subspan(static_cast<std::size_t>(offsets[k]), static_cast<std::size_t>(streams[k].size));
    };
    const auto fall_back = [&](std::size_t k, const std::string& why) {
        if (summary.fallbacks++ == 0) summary.first_fallback_reason = why;
        errors[k] = deflate_host_stream(streams[k], slot(k));
    };
    const std::uint64_t most_output = std::min<std::uint64_t>(0xFFFFFFFCull, ctx.device().max_allocation);
    for (std::size_t first = 0; first < which.size();) {
        // The streams of one call: word-aligned in its input, back to back in its output.
        std::vector<cz::deflate_split_stream> described;
        std::uint64_t in_bytes = 0, out_bytes = 0;
        std::size_t last = first;
        for (; last < which.size(); ++last) {
            const deflate_stream& s = streams[which[last]];
            const std::uint64_t in_at = (in_bytes + 3) / 4 * 4;
            if (!described.empty() && (in_at + s.input.size() > std::min(max_input_bytes, cz::deflate_block_starts_max_stream) ||
                                       out_bytes + s.size > most_output))
                break;
            described.push_back({in_at, s.input.size(), out_bytes, s.size});
            in_bytes = in_at + s.input.size();
            out_bytes += s.size;
        }
        const std::span<const std::size_t> group = which.subspan(first, last - first);
        std::vector<bool> done(group.size(), false);
        try {
            // One staged copy of every stream, each padded to a word (runtime::write_gathered).
            static constexpr std::uint8_t zeros[4] = {};
            std::vector<runtime::host_piece> parts;
            for (std::size_t g = 0; g < group.size(); ++g) {
                const std::uint64_t at = g == 0 ? 0 : described[g - 1].input_offset + described[g - 1].input_bytes;
                if (described[g].input_offset > at) parts.push_back({zeros, static_cast<std::size_t>(described[g].input_offset - at)});
                parts.push_back({streams[group[g]].input.data(), streams[group[g]].input.size()});
            }
            auto input = runtime::allocate(ctx, runtime::padded_bytes(in_bytes), CL_MEM_READ_ONLY);
            runtime::write_gathered(ctx, input, parts);
            auto out = runtime::allocate(ctx, runtime::padded_bytes(out_bytes));
            const cz::deflate_split_streams_result r =
                cz::inflate_split_streams(ctx, input, described, deflate_piece_input_bytes(in_bytes), out);
            ++summary.calls;
            summary.pieces += r.pieces;
            std::vector<ops::bytes::byte_range> ranges;
            for (const auto& d : described) ranges.push_back({d.output_offset, d.expected});
            const std::vector<std::uint32_t> crcs = ops::bytes::crc32_device(ctx, out, ranges);
            for (std::size_t g = 0; g < group.size(); ++g) {
                const std::size_t k = group[g];
                const compression::block_status& st = r.statuses[g];
                if (st.code != compression::deflate_error::none || st.output_size != streams[k].size) {
                    fall_back(k, deflate_status_failure(st, streams[k].size));
                } else {
                    runtime::read(ctx, out, slot(k).data(), slot(k).size(), described[g].output_offset);
                    if (std::optional<std::string> why = deflate_check_crc(streams[k], st, crcs[g])) fall_back(k, *why);
                }
                done[g] = true;
            }
        } catch (const vyre::error& e) { // a limit, an allocation, a build: the host still has the streams
            for (std::size_t g = 0; g < group.size(); ++g)
                if (!done[g]) fall_back(group[g], e.what());
        }
        first = last;
    }
    return summary;
}

} // namespace vyre::engine::detail
