// Part of engine/unpack.hpp (included there after the public types): archives larger than memory.
// Three kinds of input are unpacked in windows of whole entries, each window a run of its own
// (detail/unpack_layer.hpp), when they are larger than unpack_options::stream_above_bytes:
//   - a tar in one compressed stream (content declared or estimated above it), decoded by the
//     codec library's streaming decoder (format/stream_decode.hpp), or, one zstd frame, on the
//     device (detail/unpack_zstd_source.hpp), the next window on a thread of its own while one is
//     unpacked;
//   - a plain tar (its size above it), its windows views of the input;
//   - a ZIP (its entries' declared sizes together above it), a window of consecutive entries of
//     its central directory at a time.
// Every other input goes through the ordinary run.
#pragma once

// How a tar goes (compressed or plain):
//   - the source fills a window up to window_bytes; format::parse_tar_prefix finds where its last
//     whole entry ends (an entry ends with its padding; extension headers go with their entry);
//   - the whole entries are a tar of their own, opened as the tar would have been (a compressed
//     stream's content at depth 2, named x.tar.zst!/name; a plain tar at depth 1), and run
//     through every later layer and the sink; listing orders continue from the window before, so
//     the merged listing is the ordinary one;
//   - the bytes after the cut move to the front, behind one global pax header holding every global
//     record seen so far (they apply to every later entry, so every window carries them), and the
//     source fills on;
//   - a window without one whole entry doubles until it holds one, within half of what the total
//     limit leaves (a window is counted against it while it is held);
//   - at the end-of-archive blocks the rest of a stream is decoded and dropped, so that damage or
//     a checksum after the tar is still reported; where the stream fails, the bytes before the
//     damage are the last window (the tar reader then reports an entry cut short), and the
//     stream's problem says what failed, at which input offset.
// A ZIP's window is the ZIP itself with only entries [entry_first, entry_end) opened
// (container::entry_first), consecutive entries whose declared sizes add up to at most
// window_bytes (at least one entry).
// What a window's run took from the byte budget (the window, what its entries decode to) is given
// back once it is written: the total limit bounds what one window holds, the ratio limit what the
// archive makes in all.
// Peak memory: two windows (one unpacked, the next decoded; or the largest entry, where larger),
// plus the codec's own state (at most a zstd window of 128 MiB, an xz dictionary of
// format::lzma_memory_limit; on the device, three windows of at most 256 MiB), plus what the
// window's entries decode to, as in an ordinary run of that many entries. The input is read once,
// front to back; where it is a read-only file mapping (unpack_input::file_mapping), the pages of
// each window are dropped from the process once the window is done (the page cache keeps them).

#include <vyre/engine/detail/unpack_layer.hpp>
#include <vyre/engine/detail/unpack_zstd_source.hpp>
#include <vyre/engine/detail/unpack_state.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/stream_decode.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/util/host_bytes.hpp>
#include <vyre/util/little_endian.hpp>
#include <vyre/util/parallel.hpp>

#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

namespace vyre::engine::detail {

// Drops the whole pages of `bytes` inside [from, to) from the process (madvise MADV_DONTNEED),
// where `bytes` is a read-only file mapping the run no longer reads there: the page cache keeps
// them, and a later read maps them again. Anything else is left alone (on memory that is not a
// file mapping, MADV_DONTNEED would zero it).
inline void drop_read_pages(const unpack_input& in, std::uint64_t from, std::uint64_t to) {
    if (!in.file_mapping || in.bytes.empty()) return;
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto base = reinterpret_cast<std::uintptr_t>(in.bytes.data());
    to = std::min<std::uint64_t>(to, in.bytes.size());
    if (page == 0 || from >= to) return;
    const std::uintptr_t first = (base + from + page - 1) / page * page, last = (base + to) / page * page;
    if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

// A plain tar read window by window: windows are views of the input (view, skip) until a global
// pax header has to go before them, then copies (read: the calls format::stream_decoder has).
class plain_source {
public:
    explicit plain_source(std::span<const std::uint8_t> in) : in_(in) {}
    std::size_t read(std::span<std::uint8_t> out) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), in_.size() - pos_));
        if (n) std::memcpy(out.data(), in_.data() + pos_, n);
        pos_ += n;
        return n;
    }
    // The next `n` bytes (fewer at the end), not read yet; skip(k) reads k of them.
    std::span<const std::uint8_t> view(std::uint64_t n) const {
        return in_.subspan(static_cast<std::size_t>(pos_), static_cast<std::size_t>(std::min<std::uint64_t>(n, in_.size() - pos_)));
    }
    void skip(std::uint64_t n) { pos_ += std::min<std::uint64_t>(n, in_.size() - pos_); }
    bool done() const noexcept { return pos_ == in_.size(); }
    bool failed() const noexcept { return false; }
    const std::string& error() const noexcept { return none_; }
    std::uint64_t consumed() const noexcept { return pos_; }
    std::uint64_t produced() const noexcept { return pos_; }
    std::uint64_t trailing() const noexcept { return 0; }
    std::string trailing_message() const { return {}; }

private:
    std::span<const std::uint8_t> in_;
    std::uint64_t pos_ = 0;
    std::string none_;
};

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

// How an input is unpacked: whole (the ordinary run) or in windows, and of which kind.
enum class window_mode { none, stream, plain_tar, zip };

// Whether an input is unpacked in windows (see the note at the top); `zip` receives the parsed
// central directory of a ZIP that is.
inline window_mode unpacks_in_windows(fmt::content_kind kind, std::span<const std::uint8_t> in, const unpack_options& o,
                                      fmt::zip_archive* zip = nullptr) {
    if (o.stream_above_bytes == UINT64_MAX) return window_mode::none;
    const auto above = [&](std::uint64_t n) { return o.stream_above_bytes == 0 || n > o.stream_above_bytes; };
    if (kind == fmt::content_kind::tar) return above(in.size()) ? window_mode::plain_tar : window_mode::none;
    if (kind == fmt::content_kind::zip) {
        fmt::zip_archive z;
        try {
            z = fmt::parse_zip(in);
        } catch (const std::exception&) {
            return window_mode::none; // the ordinary run reports it
        }
        std::uint64_t declared = 0;
        for (const auto& e : z.entries) declared += std::min<std::uint64_t>(e.uncompressed_size, UINT64_MAX - declared);
        if (!above(declared) || z.entries.size() < 2) return window_mode::none;
        if (zip) *zip = std::move(z);
        return window_mode::zip;
    }
    if (!fmt::stream_decodable(kind) || o.limits.max_depth < 2) return window_mode::none;
    if (!above(estimated_content(kind, in, o.limits))) return window_mode::none;
    std::uint8_t head[fmt::tar_block_size];
    fmt::stream_decoder d(kind, in);
    // What the ordinary run would take the content for, told by its head.
    return d.read(head) == sizeof head && fmt::detect(head, false) == fmt::content_kind::tar ? window_mode::stream : window_mode::none;
}

// One window's run: what its first layer (the window's own entries) took from the budget is given
// back once it is done (its bytes are written and released) and counted as released; what nested
// archives decode stays counted against the total for the whole job, as in an ordinary run.
inline unpack_report run_window(runtime::context& ctx, const unpack_options& options, container&& c) {
    std::vector<container> layer;
    const unsigned depth = c.depth;
    layer.push_back(std::move(c));
    run_state run(ctx, options);
    unpack_report r = run_layers(run, std::move(layer), depth);
    const std::uint64_t held = std::min(run.first_layer_held, run.budget.used());
    run.budget.give_back(held);
    options.shared->released += held;
    return r;
}

// One tar unpacked in windows (see the note at the top), listed with order `order` as an ordinary
// run would: the content of a compressed stream (`source` a format::stream_decoder, the tar at
// depth 2) or a plain tar (`source` a plain_source, the tar at depth 1).
// `window_bytes`: the windows' size; `waited`: the seconds the windows waited for the source's bytes.
template <class Source>
unpack_report unpack_tar_in_windows(runtime::context& ctx, const unpack_input& input, Source& source, std::uint32_t order,
                                    const unpack_options& options, std::uint64_t window_bytes, double& waited) {
    constexpr bool plain = std::is_same_v<Source, plain_source>;
    unpack_report job;
    job.streamed_archives = 1;
    job.containers = plain ? 1 : 2; // the stream and the tar in it
    const std::vector<std::uint32_t> stream_order = plain ? std::vector<std::uint32_t>{order} : std::vector<std::uint32_t>{order, 0};
    shared_run& shared = *options.shared;
    const std::uint64_t ratio_limit = ratio_cap(options.limits, input.bytes.size());
    // Never more than a third of what the total limit leaves: a window is held, and counted, whole,
    // and so is the next while it is decoded.
    const std::uint64_t window = std::max<std::uint64_t>(std::min(window_bytes, shared.budget.left() / 3), fmt::tar_block_size);
    const auto too_much = [&] { return source.produced() > ratio_limit; };

    util::host_bytes buf;             // the global pax records so far as one header, then the bytes not yet unpacked
    util::host_bytes spare;           // the buffer of the window before, kept for the next (its pages stay mapped)
    // Room for n bytes, with slack for the bytes after a cut, so that the two buffers keep their
    // pages from window to window (fresh pages each time cost their faults and zeroing again).
    const auto room = [&](std::uint64_t n) { return static_cast<std::size_t>(std::max<std::uint64_t>(n, window + window / 2)); };
    std::size_t globals = 0;          // bytes of that header at the front of buf
    std::uint64_t target = window;    // what buf is filled to
    std::uint64_t entries_before = 0; // tar entries of the earlier windows
    std::uint64_t content_at = 0;     // where buf's bytes after the global headers lie in the stream's content
    std::set<std::string> earlier_files; // files the earlier windows kept (a hard link to one copies what was written)
    const std::map<std::string, std::string> no_digests;
    std::string failure;              // what stopped the stream, when something did
    unpack_status failure_kind = unpack_status::corrupt;
    // Fills b up to `to` bytes from the source (fewer at its end).
    const auto fill = [&](util::host_bytes& b, std::uint64_t to) {
        if (b.size() < to && !source.done() && !source.failed()) b.reserve(room(to));
        while (b.size() < to && !source.done() && !source.failed()) {
            const std::size_t at = b.size();
            const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(to - at, std::uint64_t{64} << 20));
            b.resize(at + n);
            b.resize(at + source.read(std::span<std::uint8_t>(b).subspan(at, n)));
            drop_read_pages(input, 0, source.consumed());
        }
    };
    // A compressed stream's next window is decoded into the other buffer on a thread of its own
    // while a window is unpacked (its entries written), as a pipe overlaps `zstd -dc` and `tar x`.
    // It takes its room from the total limit first, and is not decoded ahead where that is spent.
    util::host_bytes next;     // declared before `filling`, whose end waits for the thread that fills it
    std::uint64_t prefetched = 0; // what the filling took from the total limit
    std::future<void> filling; // fills `next`, the buffer of the window after buf's
    bool last = false;
    while (!last) {
        // A plain tar's window is a view of the input, where no global header has to go before it.
        std::span<const std::uint8_t> bytes;
        bool viewing = false;
        if constexpr (plain) {
            if (buf.empty()) {
                bytes = source.view(target);
                viewing = true;
            }
        }
        timed(waited, [&] {
            if (filling.valid()) { // the window decoded beside the last one
                filling.get();
                shared.budget.give_back(prefetched); // the window takes its own below
                prefetched = 0;
                spare = std::move(buf);
                buf = std::move(next);
            }
            if (!viewing) fill(buf, target);
        });
        if (too_much()) break;
        if (!viewing) bytes = buf;
        const bool stream_over = viewing ? source.consumed() + bytes.size() == input.bytes.size() : source.done() || source.failed();
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
                const std::uint64_t larger = std::max<std::uint64_t>(target, bytes.size()) * 2;
                if (!viewing && larger > shared.budget.left()) { // a view holds nothing
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
        const std::uint64_t held = viewing ? 0 : cut; // a view of the input holds nothing more
        if (!shared.budget.take(held)) {
            failure_kind = unpack_status::refused;
            failure = "window of " + std::to_string(cut) + " bytes: " + total_message(shared.budget, cut);
            break;
        }

        // The next window: the global pax records so far (every later entry is under them; records
        // after the cut are read again there, to the same effect) as one header, then the bytes
        // after the cut (a view of the input moves past the cut instead, and is copied from then on
        // only behind such a header). A compressed stream's starts filling now.
        const std::vector<std::uint8_t> pax =
            last || tar.global_pax.empty() ? std::vector<std::uint8_t>{} : fmt::tar_pax_global_header(tar.global_pax);
        if (!plain && !last && shared.budget.take(window + pax.size())) {
            prefetched = window + pax.size();
            next = std::move(spare);
            next.reserve(room(pax.size() + (buf.size() - cut) + window));
            next.assign(pax.begin(), pax.end());
            next.insert(next.end(), buf.begin() + static_cast<std::ptrdiff_t>(cut), buf.end());
            filling = std::async(std::launch::async, [&fill, &next, to = window + pax.size()] { fill(next, to); });
        } else if (!plain && !last) { // no room to decode ahead: the bytes after the cut wait in buf's place
            next = std::move(spare);
            next.assign(pax.begin(), pax.end());
            next.insert(next.end(), buf.begin() + static_cast<std::ptrdiff_t>(cut), buf.end());
            filling = std::async(std::launch::deferred, [] {});
        }

        // The window: a run of its own, as the tar would be opened.
        container c;
        c.path = input.name;
        c.order = stream_order;
        c.depth = plain ? 1 : 2;
        c.kind = fmt::content_kind::tar;
        c.data.bytes = bytes.first(cut);
        c.earlier_files = &earlier_files;
        c.window_bytes = window;
        c.window_start = content_at - globals; // the window's offset o is the content's window_start + o
        c.entries_before = entries_before;
        c.layer_digests = &no_digests; // a window holds part of an image: its layers keep their paths
        unpack_report r = run_window(ctx, options, std::move(c));
        shared.budget.give_back(held);
        // The files this window kept, by their paths in the tar (output paths: the tar's own names).
        std::vector<std::string> window_files;
        for (const auto& e : r.entries)
            if (e.depth == (plain ? 1u : 2u) && e.type == unpack_entry_type::file && e.status == unpack_status::ok)
                window_files.push_back(e.output_path);
        r.containers -= 1;        // the window's tar is the one counted above
        if (!plain) r.layers += 1; // the stream's
        add_run(job, std::move(r));
        ++job.stream_windows;
        if (last) break;

        entries_before += tar.entries.size();
        content_at += cut - globals;
        for (const auto& e : window_files) earlier_files.insert(e);
        globals = pax.size();
        target = window + globals;
        if constexpr (plain) {
            util::host_bytes following = std::move(spare);
            following.assign(pax.begin(), pax.end());
            if (viewing) {
                source.skip(cut);
                drop_read_pages(input, 0, source.consumed());
            } else {
                following.reserve(room(globals + (buf.size() - cut) + window));
                following.insert(following.end(), buf.begin() + static_cast<std::ptrdiff_t>(cut), buf.end());
            }
            spare = std::move(buf);
            buf = std::move(following);
        }
    }
    if (filling.valid()) filling.get(); // (every path out of the loop has taken it; kept for safety)
    shared.budget.give_back(prefetched);
    // After the tar's end: the rest of the stream, decoded to check it and dropped (within the
    // ratio limit, like the rest). A plain tar's bytes after its end are not read, as in the
    // ordinary run.
    if (!plain && failure.empty() && !too_much()) {
        std::vector<std::uint8_t> scratch(std::size_t{1} << 20);
        while (!source.done() && !source.failed() && !too_much()) {
            source.read(scratch);
            drop_read_pages(input, 0, source.consumed());
        }
        if (source.failed())
            failure = source.error() + "; the " + std::to_string(source.produced()) + " bytes decoded before the damage are kept";
    }
    if (failure.empty() && too_much()) {
        failure_kind = unpack_status::refused;
        failure = ratio_message(options.limits, source.produced(), input.bytes.size()) + "; the entries of the windows before are kept";
    }
    if (failure.empty() && source.done() && source.trailing()) {
        failure_kind = unpack_status::warning;
        failure = source.trailing_message();
    }
    // The stream's problem first, as the ordinary run lists it (before its tar's).
    if (!failure.empty()) job.problems.insert(job.problems.begin(), {input.name, failure_kind, failure, stream_order});
    if (!plain) shared.released += source.produced();
    return job;
}

// The windows of a ZIP: consecutive entries of its central directory whose sizes add up to at most
// `window` (at least one entry each), as [first, end) pairs. An entry's size is its declared one,
// at most what the ratio limit lets its compressed bytes make; a damaged entry makes nothing (so
// that declared sizes cannot make a window of every entry).
inline std::vector<std::pair<std::size_t, std::size_t>> zip_windows(const fmt::zip_archive& zip, std::uint64_t window,
                                                                    const unpack_limits& limits) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::uint64_t held = 0;
    for (std::size_t i = 0; i < zip.entries.size(); ++i) {
        const auto& e = zip.entries[i];
        const std::uint64_t n =
            e.status == fmt::zip_entry_status::ok ? std::min(e.uncompressed_size, ratio_cap(limits, e.compressed_size)) : 0;
        if (out.empty() || held + std::min(n, window) > window) {
            out.push_back({i, i});
            held = 0;
        }
        out.back().second = i + 1;
        held += std::min(n, window);
    }
    return out;
}

// One ZIP unpacked in windows of its entries (see the note at the top), listed with order `order`
// as an ordinary run would.
inline unpack_report unpack_zip_in_windows(runtime::context& ctx, const unpack_input& input, const fmt::zip_archive& zip,
                                           std::uint32_t order, const unpack_options& options) {
    unpack_report job;
    job.streamed_archives = 1;
    job.containers = 1;
    for (const auto& [first, end] : zip_windows(zip, options.window_bytes, options.limits)) {
        container c;
        c.path = input.name;
        c.order = {order};
        c.depth = 1;
        c.kind = fmt::content_kind::zip;
        c.data.bytes = input.bytes;
        c.entry_first = first;
        c.entry_end = end;
        c.zip = &zip;
        unpack_report r = run_window(ctx, options, std::move(c));
        r.containers -= 1; // the ZIP, counted above
        add_run(job, std::move(r));
        ++job.stream_windows;
        std::uint64_t from = UINT64_MAX, to = 0;
        for (std::size_t i = first; i < end; ++i) {
            from = std::min(from, zip.entries[i].local_offset);
            to = std::max(to, zip.entries[i].end_offset);
        }
        drop_read_pages(input, from, to);
    }
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
    std::vector<window_mode> modes(inputs.size(), window_mode::none);
    std::vector<fmt::zip_archive> zips(inputs.size());
    // Every input's central directory or head is read to decide (hundreds of ZIPs on a command
    // line): on every core.
    util::parallel_for(inputs.size(), util::thread_count(options.threads), [&](std::size_t i) {
        kinds[i] = fmt::detect(inputs[i].bytes);
        modes[i] = unpacks_in_windows(kinds[i], inputs[i].bytes, options, &zips[i]);
    });
    const bool any = std::any_of(modes.begin(), modes.end(), [](window_mode m) { return m != window_mode::none; });
    if (!any) return run_unpack(ctx, inputs, options);

    // A caller that already splits a job (options.shared set) keeps its state and finishes the folders itself.
    const bool own_job = !options.shared;
    unpack_options each = options;
    if (own_job) each.shared = std::make_shared<shared_run>(options.limits);
    unpack_report job;
    for (std::size_t i = 0; i < inputs.size();) {
        const std::uint32_t order = static_cast<std::uint32_t>(options.first_order + i);
        if (modes[i] == window_mode::stream) {
            const std::uint64_t window = options.window_bytes;
            unpack_report r;
            double waited = 0;
            if (kinds[i] == fmt::content_kind::zstd && options.zstd != zstd_route::host) {
                // The device may decode it (engine/detail/unpack_zstd_source.hpp).
                // Its buffers are as large as the windows, which take at most a third of the total limit each.
                zstd_stream_source source(ctx, inputs[i].bytes, options.zstd, std::min(window, each.shared->budget.left() / 3),
                                          options.threads);
                r = unpack_tar_in_windows(ctx, inputs[i], source, order, each, window, waited);
                r.zstd_blocks += source.device_blocks();
                r.zstd_dispatches += source.device_windows();
            } else {
                fmt::stream_decoder source(kinds[i], inputs[i].bytes);
                r = unpack_tar_in_windows(ctx, inputs[i], source, order, each, window, waited);
            }
            // The stream's decoding, as far as the windows waited for it (the rest ran while they were written).
            const fmt::content_kind k = kinds[i];
            r.seconds.decode += waited;
            (k == fmt::content_kind::zstd        ? r.seconds.zstd
             : k == fmt::content_kind::gzip      ? r.seconds.deflate
             : k == fmt::content_kind::lz4_frame ? r.seconds.lz4
                                                 : r.seconds.library) += waited;
            add_run(job, std::move(r));
        } else if (modes[i] == window_mode::plain_tar) {
            plain_source source(inputs[i].bytes);
            double waited = 0;
            add_run(job, unpack_tar_in_windows(ctx, inputs[i], source, order, each, options.window_bytes, waited));
        } else if (modes[i] == window_mode::zip) {
            add_run(job, unpack_zip_in_windows(ctx, inputs[i], zips[i], order, each));
            zips[i] = {};
        }
        if (modes[i] != window_mode::none) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < inputs.size() && modes[end] == window_mode::none) ++end;
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
