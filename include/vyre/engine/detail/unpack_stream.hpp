// Part of engine/unpack.hpp (included there after the public types): archives larger than memory.
// An input that is a tar in one compressed stream, with content above
// unpack_options::stream_above_bytes, is decoded by the codec library's streaming decoder
// (format/stream_decode.hpp) and unpacked in windows of whole tar entries; every other input goes
// through the ordinary run (detail/unpack_layer.hpp).
#pragma once

// How a streamed input goes:
//   - the decoder fills a window up to window_bytes; format::parse_tar_prefix finds where its last
//     whole entry ends (an entry ends with its padding; extension headers go with their entry);
//   - the whole entries are a tar of their own, opened as the stream's content would have been
//     (depth 2, named x.tar.zst!/name), and run through every later layer and the sink; listing
//     orders continue from the window before, so the merged listing is the ordinary one;
//   - the bytes after the cut move to the front, behind one global pax header holding every global
//     record seen so far (they apply to every later entry, so every window carries them), and the
//     decoder fills on;
//   - a window without one whole entry doubles until it holds one, within half of what the total
//     limit leaves (a window is counted against it while it is held);
//   - at the end-of-archive blocks the rest of the stream is decoded and dropped, so that damage or
//     a checksum after the tar is still reported; where the stream fails, the bytes before the
//     damage are the last window (the tar reader then reports an entry cut short), and the
//     stream's problem says what failed, at which input offset.
// Peak memory: one window (or the largest entry, where larger), plus the codec's own state (at most
// a zstd window of 128 MiB, an xz dictionary of format::lzma_memory_limit), plus what the
// window's entries decode to, as in an ordinary run of that many entries. The input is read once,
// front to back.

#include <vyre/engine/detail/unpack_layer.hpp>
#include <vyre/engine/detail/unpack_state.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/stream_decode.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/util/little_endian.hpp>

#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine::detail {

// What a compressed stream's content is declared to be, or estimated at (4 times its compressed
// size), whichever is more: the first zstd frame's content size, a gzip file's last ISIZE. A
// declaration beyond what the ratio limit lets the stream make is not believed (a truncated gzip
// file's last four bytes are not its ISIZE).
inline std::uint64_t estimated_content(fmt::content_kind kind, std::span<const std::uint8_t> in, const unpack_limits& limits) {
    const std::uint64_t guess = in.size() > UINT64_MAX / 4 ? UINT64_MAX : in.size() * 4;
    std::uint64_t declared = 0;
    if (kind == fmt::content_kind::zstd) {
        const unsigned long long n = ZSTD_getFrameContentSize(in.data(), in.size());
        if (n != ZSTD_CONTENTSIZE_UNKNOWN && n != ZSTD_CONTENTSIZE_ERROR) declared = n;
    } else if (kind == fmt::content_kind::gzip && in.size() >= 18) {
        declared = util::read_le32(in, in.size() - 4); // modulo 2^32
    }
    return std::max(guess, std::min(declared, ratio_cap(limits, in.size())));
}

// Whether an input is unpacked in windows: a tar in one stream format::stream_decoder reads, with
// content above options.stream_above_bytes.
inline bool unpacks_in_windows(fmt::content_kind kind, std::span<const std::uint8_t> in, const unpack_options& o) {
    if (!fmt::stream_decodable(kind) || o.stream_above_bytes == UINT64_MAX || o.limits.max_depth < 2) return false;
    if (estimated_content(kind, in, o.limits) <= o.stream_above_bytes && o.stream_above_bytes != 0) return false;
    std::uint8_t head[fmt::tar_block_size];
    fmt::stream_decoder d(kind, in);
    // What the ordinary run would take the content for, told by its head.
    return d.read(head) == sizeof head && fmt::detect(head, false) == fmt::content_kind::tar;
}

// One streamed input (see the note at the top), listed with order `order` as an ordinary run would.
inline unpack_report unpack_in_windows(runtime::context& ctx, const unpack_input& input, fmt::content_kind kind,
                                       std::uint32_t order, const unpack_options& options) {
    unpack_report job;
    job.streamed_archives = 1;
    job.containers = 2; // the stream and the tar in it
    const std::vector<std::uint32_t> stream_order = {order, 0};
    shared_run& shared = *options.shared;
    const std::uint64_t ratio_limit = ratio_cap(options.limits, input.bytes.size());
    // Never more than half of what the total limit leaves: a window is held, and counted, whole.
    const std::uint64_t window =
        std::max<std::uint64_t>(std::min(options.window_bytes, shared.budget.left() / 2), fmt::tar_block_size);
    fmt::stream_decoder decoder(kind, input.bytes);
    const auto too_much = [&] { return decoder.produced() > ratio_limit; };

    std::vector<std::uint8_t> buf;    // the global pax records so far as one header, then the bytes not yet unpacked
    std::size_t globals = 0;          // bytes of that header at the front of buf
    std::uint64_t target = window;    // what buf is filled to
    std::uint64_t entries_before = 0; // tar entries of the earlier windows
    std::uint64_t content_at = 0;     // where buf's bytes after the global headers lie in the stream's content
    std::set<std::string> earlier_files; // regular files of the earlier windows (hard links to them are refused)
    std::string failure;              // what stopped the stream, when something did
    unpack_status failure_kind = unpack_status::corrupt;
    bool last = false;
    while (!last) {
        // Fill.
        while (buf.size() < target && !decoder.done() && !decoder.failed()) {
            const std::size_t at = buf.size();
            const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(target - at, std::uint64_t{8} << 20));
            buf.resize(at + n);
            buf.resize(at + decoder.read(std::span<std::uint8_t>(buf).subspan(at, n)));
        }
        if (too_much()) break;
        const bool stream_over = decoder.done() || decoder.failed();
        const std::span<const std::uint8_t> bytes(buf);
        fmt::tar_archive tar;
        bool damaged = false;
        try {
            tar = fmt::parse_tar_prefix(bytes);
        } catch (const format_error&) {
            damaged = true; // the ordinary tar reader reports it, on the whole of what is here
        }
        std::size_t cut = bytes.size();
        if (!damaged && !tar.end_marker && !stream_over) {
            if (tar.entries.empty()) { // not one whole entry yet: a larger window, within the total limit
                const std::uint64_t larger = std::max<std::uint64_t>(target, buf.size()) * 2;
                if (larger > shared.budget.left()) {
                    failure_kind = unpack_status::refused;
                    failure = "a tar entry longer than " + std::to_string(buf.size()) + " bytes: a window of " + std::to_string(larger) +
                              " bytes to hold it: " + total_message(shared.budget, larger);
                    break;
                }
                target = larger;
                continue;
            }
            cut = static_cast<std::size_t>(tar.end_offset);
        }
        last = damaged || tar.end_marker || stream_over;
        if (!shared.budget.take(cut)) {
            failure_kind = unpack_status::refused;
            failure = "window of " + std::to_string(cut) + " bytes: " + total_message(shared.budget, cut);
            break;
        }

        // The window: a run of its own from depth 2, as the stream's content would be opened.
        std::vector<container> layer(1);
        container& c = layer[0];
        c.path = input.name;
        c.order = stream_order;
        c.depth = 2;
        c.kind = fmt::content_kind::tar;
        c.data.bytes = bytes.first(cut);
        c.earlier_files = &earlier_files;
        c.window_bytes = window;
        c.window_start = content_at - globals; // the window's offset o is the content's window_start + o
        c.entries_before = entries_before;
        run_state run(ctx, options);
        unpack_report r = run_layers(run, std::move(layer), 2);
        shared.budget.give_back(cut);
        r.containers -= 1; // the window's tar is the one counted above
        r.layers += 1;     // the stream's
        add_run(job, std::move(r));
        ++job.stream_windows;
        if (last) break;

        // The next window: the global pax records so far (every later entry is under them; records
        // after the cut are read again there, to the same effect) as one header, then the bytes
        // after the cut.
        entries_before += tar.entries.size();
        content_at += cut - globals;
        for (const auto& e : tar.entries)
            if (e.type == fmt::tar_entry_type::regular)
                if (checked_name n = check_entry_name(e.name); n.refusal.empty()) earlier_files.insert(std::move(n.path));
        std::vector<std::uint8_t> next =
            tar.global_pax.empty() ? std::vector<std::uint8_t>{} : fmt::tar_pax_global_header(tar.global_pax);
        const std::size_t header = next.size();
        next.reserve(header + (buf.size() - cut) + window);
        next.insert(next.end(), buf.begin() + static_cast<std::ptrdiff_t>(cut), buf.end());
        buf = std::move(next);
        globals = header;
        target = window + globals;
    }
    // After the tar's end: the rest of the stream, decoded to check it and dropped (within the
    // ratio limit, like the rest).
    if (failure.empty() && !too_much()) {
        std::vector<std::uint8_t> scratch(std::size_t{1} << 20);
        while (!decoder.done() && !decoder.failed() && !too_much()) decoder.read(scratch);
        if (decoder.failed())
            failure = decoder.error() + "; the " + std::to_string(decoder.produced()) + " bytes decoded before the damage are kept";
    }
    if (failure.empty() && too_much()) {
        failure_kind = unpack_status::refused;
        failure = ratio_message(options.limits, decoder.produced(), input.bytes.size()) + "; the entries of the windows before are kept";
    }
    if (failure.empty() && decoder.done() && decoder.trailing()) {
        failure_kind = unpack_status::warning;
        failure = decoder.trailing_message();
    }
    // The stream's problem first, as the ordinary run lists it (before its tar's).
    if (!failure.empty()) job.problems.insert(job.problems.begin(), {input.name, failure_kind, failure, stream_order});
    shared.released += decoder.produced();
    return job;
}

// engine::unpack: the inputs that unpack in windows one by one, the others in ordinary runs of
// consecutive inputs; one report, in listing order, as one run would give.
// unpack_options::host_below_bytes: the options of a run whose every automatic route goes to the
// host cores, where the context is still unused and the inputs are small.
inline unpack_options small_run_on_host(const runtime::context& ctx, std::span<const unpack_input> inputs, unpack_options options) {
    std::uint64_t total = 0;
    for (const auto& in : inputs) total += in.bytes.size();
    // A caller that keeps content on the device (keep_on_device) wants it there whatever the size.
    if (ctx.used() || options.keep_on_device || total >= options.host_below_bytes) return options;
    if (options.deflate == deflate_route::automatic) options.deflate = deflate_route::host;
    if (options.zstd == zstd_route::automatic) options.zstd = zstd_route::host;
    if (options.lz4 == lz4_route::automatic) options.lz4 = lz4_route::host;
    return options;
}

inline unpack_report unpack_inputs(runtime::context& ctx, std::span<const unpack_input> inputs, const unpack_options& given) {
    const unpack_options options = small_run_on_host(ctx, inputs, given);
    std::vector<fmt::content_kind> kinds(inputs.size());
    std::vector<char> windowed(inputs.size(), 0);
    bool any = false;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        kinds[i] = fmt::detect(inputs[i].bytes);
        windowed[i] = unpacks_in_windows(kinds[i], inputs[i].bytes, options);
        any = any || windowed[i];
    }
    if (!any) return run_unpack(ctx, inputs, options);

    // A caller that already splits a job (options.shared set) keeps its state and finishes the folders itself.
    const bool own_job = !options.shared;
    unpack_options each = options;
    if (own_job) each.shared = std::make_shared<shared_run>(options.limits);
    unpack_report job;
    for (std::size_t i = 0; i < inputs.size();) {
        const std::uint32_t order = static_cast<std::uint32_t>(options.first_order + i);
        if (windowed[i]) {
            add_run(job, unpack_in_windows(ctx, inputs[i], kinds[i], order, each));
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < inputs.size() && !windowed[end]) ++end;
        each.first_order = order;
        add_run(job, run_unpack(ctx, inputs.subspan(i, end - i), each));
        each.first_order = options.first_order;
        i = end;
    }
    if (own_job && !options.output_dir.empty()) {
        const output_tree tree(options.output_dir);
        finish_folders(tree, *each.shared, job.problems, options.threads);
    }
    const auto by_order = [](const auto& a, const auto& b) { return a.order < b.order; };
    std::stable_sort(job.entries.begin(), job.entries.end(), by_order);
    std::stable_sort(job.problems.begin(), job.problems.end(), by_order);
    job.decoded_bytes = each.shared->budget.used() + each.shared->released.load();
    return job;
}

} // namespace vyre::engine::detail
