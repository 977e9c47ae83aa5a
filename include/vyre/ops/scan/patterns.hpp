// scan.patterns: every match of a set of byte patterns (literal strings, nocase, wide, hex with
// wildcards; scan/pattern.hpp) in many entries of one device buffer, on the device. Equal, after
// the host's sort and cap, to reference::scan_hits (reference/scan.hpp).
//
// How it scans. The data is cut into chunks of `positions` bytes of one entry; each workgroup
// copies the atom filter (scan/filter_tables.hpp, 40 KiB) into workgroup memory once, then takes
// chunks in turn. At every position an invocation computes the three atom keys of the bytes there
// (1, 2 and 4 bytes, letters folded) and tests their bits; where a bit is set it checks the forms
// listed under that key against the data, at the offset its atom gives. Each match is checked at
// exactly one position, so a hit is found once, and entries are bounds: no match spans two.
// Invocations of a workgroup take neighbouring positions, so their loads coalesce.
//
// Hits go to a buffer through an atomic counter; every pattern's hits are also counted. The host
// sorts what the device found and keeps, per pattern, at most options.max_hits_per_pattern hits:
// the first ones in chunk order (the order of the data, except that a pattern with an ascii and a
// wide form finds each form's matches at its own atom). Patterns that reached the cap are muted for
// the chunks after, which bounds the hit buffer; a dispatch that overflows the buffer is split.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/scan/filter_tables.hpp>
#include <vyre/scan/pattern.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::scan {

inline constexpr const char* patterns_op_id = "scan.patterns";

// Bindings of the program.
namespace scan_binding {
inline constexpr std::uint32_t data = 0, chunks = 1, entries = 2, filter = 3, bucket_start = 4, items = 5, forms = 6,
                               form_bytes = 7, muted = 8, hits = 9, counts = 10, params = 11;
}
// Launch shape: invocations per workgroup and positions per invocation (a chunk is their product).
inline constexpr std::uint32_t scan_workgroup = 256;
inline constexpr std::uint32_t scan_positions_per_invocation = 16;
inline constexpr std::uint32_t scan_chunk_bytes = scan_workgroup * scan_positions_per_invocation;

// The program. Buffers: data (bytes); chunks (u32 pairs: entry, first position in the entry);
// entries (u32 pairs: byte offset in data, size); the four tables of scan::filter_tables; muted (a
// bit per pattern: count its hits, record none); hits (u32 triples: entry, pattern, offset);
// counts ([0] hits recorded or dropped for want of room, [1 + p] pattern p's hits); params ([0]
// end chunk, [1] first chunk, [2] hit capacity in triples, [3] workgroups launched).
inline ir::program patterns_program(std::uint32_t workgroup = scan_workgroup,
                                    std::uint32_t positions = scan_positions_per_invocation) {
    namespace d = vyre::dsl;
    namespace vs = vyre::scan;
    d::kernel k(entry_name(patterns_op_id), {workgroup, 1, 1});
    const auto data = k.input<d::bytes>("data", scan_binding::data);
    const auto chunks = k.input<d::u32>("chunks", scan_binding::chunks);
    const auto entries = k.input<d::u32>("entries", scan_binding::entries);
    const auto filter = k.input<d::u32>("filter", scan_binding::filter);
    const auto bucket_start = k.input<d::u32>("bucket_start", scan_binding::bucket_start);
    const auto items = k.input<d::u32>("items", scan_binding::items);
    const auto forms = k.input<d::u32>("forms", scan_binding::forms);
    const auto form_bytes = k.input<d::u32>("form_bytes", scan_binding::form_bytes);
    const auto muted = k.input<d::u32>("muted", scan_binding::muted);
    const auto hits = k.output<d::u32>("hits", scan_binding::hits);
    const auto counts = k.output<d::u32>("counts", scan_binding::counts);
    const auto params = k.uniform<d::u32>("params", scan_binding::params);
    const auto bitmap = k.workgroup<d::u32>("filter_bits", vs::filter_words);

    const auto w = k.let("w", d::local_id());
    k.while_(w < vs::filter_words, [&] {
        k.store(bitmap, w, filter[w]);
        w = w + workgroup;
    });
    k.barrier();

    const auto fold = [&](const auto& b) { return d::select(((b | 0x20u) - 0x61u) < 26u, b & 0xdfu, b); };
    const auto capacity = k.let("capacity", params[2u]);
    const auto chunk = k.let("chunk", params[1u] + d::workgroup_id());
    k.while_(chunk < params[0u], [&] {
        const auto entry = k.let("entry", chunks[chunk * 2u]);
        const auto first = k.let("first", chunks[chunk * 2u + 1u]);
        const auto base = k.let("base", entries[entry * 2u]);
        const auto size = k.let("size", entries[entry * 2u + 1u]);
        k.for_("i", 0u, positions, [&](const auto& i) {
            const auto p = k.let("p", first + i * workgroup + d::local_id());
            k.if_(p < size, [&] {
                const auto rest = k.let("rest", size - p);
                const auto b0 = k.let("b0", fold(data[base + p]));
                const auto b1 = k.let("b1", d::select(rest >= 2u, fold(data[base + p + 1u]), 0u));
                const auto word = k.let("word", 0u);
                k.if_(rest >= 4u, [&] {
                    word = b0 | (b1 << 8u) | (fold(data[base + p + 2u]) << 16u) | (fold(data[base + p + 3u]) << 24u);
                });
                // Keys to test, as in scan::filter_tables; a key past its data length is skipped.
                const auto check = [&](const std::string& tag, const auto& key) {
                    k.if_(((bitmap[key >> 5u] >> (key & 31u)) & 1u) != 0u, [&] {
                        const auto it = k.let("it_" + tag, bucket_start[key]);
                        const auto end = k.let("end_" + tag, bucket_start[key + 1u]);
                        k.while_(it < end, [&] {
                            const auto item = k.let("item_" + tag, items[it]);
                            const auto form = k.let("form_" + tag, item >> vs::item_offset_bits);
                            const auto atom = k.let("atom_" + tag, item & ((1u << vs::item_offset_bits) - 1u));
                            const auto length = k.let("length_" + tag, forms[form * 4u + 2u]);
                            k.if_(atom <= p && length <= size - (p - atom), [&] {
                                const auto start = k.let("start_" + tag, p - atom);
                                const auto fb = k.let("fb_" + tag, forms[form * 4u + 1u]);
                                const auto j = k.let("j_" + tag, 0u);
                                k.while_(j < length, [&] {
                                    const auto m = k.let("m_" + tag, form_bytes[fb + j]);
                                    k.if_((data[base + start + j] & (m >> 8u)) != (m & 0xffu), [&] { k.break_(); });
                                    j = j + 1u;
                                });
                                k.if_(j == length, [&] {
                                    const auto pattern = k.let("pattern_" + tag, forms[form * 4u]);
                                    k.let("seen_" + tag, d::atomic_add(counts, pattern + 1u, 1u));
                                    // counts[0] stops short of wrapping (a read, then the add: it may
                                    // pass 2^31 by the invocations in flight, never 2^32).
                                    k.if_(((muted[pattern >> 5u] >> (pattern & 31u)) & 1u) == 0u && counts[0u] < 0x80000000u, [&] {
                                        const auto slot = k.let("slot_" + tag, d::atomic_add(counts, 0u, 1u));
                                        k.if_(slot < capacity, [&] {
                                            k.store(hits, slot * 3u, entry);
                                            k.store(hits, slot * 3u + 1u, pattern);
                                            k.store(hits, slot * 3u + 2u, start);
                                        });
                                    });
                                });
                            });
                            it = it + 1u;
                        });
                    });
                };
                check("k1", b0 + vs::atom1_base);
                k.if_(rest >= 2u, [&] { check("k2", (b0 | (b1 << 8u)) + vs::atom2_base); });
                k.if_(rest >= 4u, [&] { check("k4", (word * vs::atom_hash_multiplier) >> 14u); });
            });
        });
        chunk = chunk + params[3u];
    });
    return k.program();
}

inline op_info patterns_info() {
    return {patterns_op_id, 1,
            "multi-pattern matching of byte patterns (literals, nocase, wide, hex with wildcards) over many entries: an atom "
            "filter in workgroup memory, then verification; (entry, pattern, offset) hits",
            {{ir::data_type::bytes}, ir::data_type::u32}, ir::convention::v1(), [] { return patterns_program(); }};
}

inline const runtime::compiled_program& patterns_kernel() {
    static const runtime::compiled_program p(patterns_program());
    return p;
}

// A pattern set's tables in one context's device memory, made once and scanned with many times.
// The tables are built on the host at once and uploaded at the first scan (or on_device()): a
// context started in the background (runtime::context::in_background) is not waited for before
// the work that needs no device. `ctx` must outlive the set.
struct device_patterns {
    std::vector<vyre::scan::pattern> patterns;
    vyre::scan::filter_tables tables;

    struct buffers {
        boost::compute::buffer filter, bucket_start, items, forms, form_bytes;
    };

    device_patterns(runtime::context& ctx, std::vector<vyre::scan::pattern> set)
        : patterns(std::move(set)), tables(vyre::scan::build_filter_tables(patterns)), ctx_(&ctx) {}

    // The tables in the context's memory, uploaded by the first call (thread-safe).
    const buffers& on_device() const {
        std::call_once(uploaded_, [&] {
            const auto up = [&](const std::vector<std::uint32_t>& v) {
                return runtime::upload(*ctx_, std::span<const std::uint32_t>(v), CL_MEM_READ_ONLY);
            };
            buffers_ = {up(tables.filter), up(tables.bucket_start), up(tables.items), up(tables.forms), up(tables.form_bytes)};
        });
        return buffers_;
    }

private:
    runtime::context* ctx_;
    mutable std::once_flag uploaded_;
    mutable buffers buffers_;
};

// Hit triples one chunk may need at most before the scan gives up (a chunk where thousands of
// patterns match at every byte): 768 MiB of device memory.
inline constexpr std::uint32_t max_hit_capacity = 1u << 26;

struct scan_options {
    // Hits kept per pattern; beyond it only the count grows (scan_result::counts).
    std::uint32_t max_hits_per_pattern = 10000;
    // Hit triples one dispatch can record at first (12 bytes each).
    std::uint32_t hit_capacity = 1u << 20;
    // A dispatch that finds more hits than its buffer holds runs again with room for all of them
    // when they are at most this many (16M: 192 MiB); beyond, its range of chunks is split.
    std::uint32_t hit_capacity_limit = 1u << 24;
};

struct scan_result {
    std::vector<vyre::scan::hit> hits;   // sorted by scan::hit_order, at most the cap per pattern
    std::vector<std::uint64_t> counts;   // every match of each pattern, kept or not
    std::uint32_t capped_patterns = 0;   // patterns with more matches than hits kept
    std::uint32_t dispatches = 0;
    double kernel_seconds = 0;           // with a profiling queue; else 0
};

namespace detail {

inline std::uint32_t scan_workgroups(const runtime::context& ctx, std::uint64_t chunks) {
    const std::uint64_t resident = std::max<std::uint32_t>(1, ctx.device().compute_units) * 8ull;
    return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, std::min(chunks, resident)));
}

// The hits of `triples` (entry, pattern, offset), in scan::hit_order: placed by entry (a counting
// sort), then each entry's sorted by offset and pattern, entries spread over the host's cores.
inline std::vector<vyre::scan::hit> sorted_hits(const std::vector<std::uint32_t>& triples, std::size_t entries, std::uint32_t patterns) {
    const std::size_t n = triples.size() / 3;
    std::vector<std::size_t> start(entries + 1, 0);
    for (std::size_t h = 0; h < n; ++h) {
        if (triples[3 * h] >= entries || triples[3 * h + 1] >= patterns)
            throw resource_error("scan.patterns: the device reported pattern " + std::to_string(triples[3 * h + 1]) + " in entry " +
                                 std::to_string(triples[3 * h]));
        ++start[triples[3 * h] + 1];
    }
    for (std::size_t e = 0; e < entries; ++e) start[e + 1] += start[e];
    std::vector<vyre::scan::hit> out(n);
    std::vector<std::size_t> at(start.begin(), start.end() - 1);
    for (std::size_t h = 0; h < n; ++h) out[at[triples[3 * h]]++] = {triples[3 * h], triples[3 * h + 1], triples[3 * h + 2]};
    const auto sort_entry = [&](std::size_t e) { std::sort(out.begin() + start[e], out.begin() + start[e + 1], vyre::scan::hit_order); };
    if (n < 65536) {
        for (std::size_t e = 0; e < entries; ++e) sort_entry(e);
    } else {
        util::parallel_for(entries, 0, sort_entry, 64);
    }
    return out;
}

} // namespace detail

// The hits kept so far of each pattern, carried from one scan call to the next so that one cap
// covers them all (a scan of many batches).
struct hit_budget {
    std::vector<std::uint32_t> kept;
};

// Scans `entries` of the device buffer `data` (each entry inside its whole 4-byte words, offsets
// below 2^32) with the pattern set `set`, and returns the hits. The data stays on the device; only
// hits and counts are read back. With `budget`, the cap counts the hits kept by earlier calls too.
inline scan_result scan_device(runtime::context& ctx, const device_patterns& set, const boost::compute::buffer& data,
                               std::span<const vyre::scan::entry_extent> entries, const scan_options& options = {},
                               hit_budget* budget = nullptr) {
    namespace vs = vyre::scan;
    if (options.hit_capacity == 0 || options.hit_capacity > max_hit_capacity)
        throw resource_error("scan.patterns: hit_capacity " + std::to_string(options.hit_capacity) + " is not in 1.." +
                             std::to_string(max_hit_capacity));
    if (entries.size() > 0x7fffffffu) throw resource_error("scan.patterns: " + std::to_string(entries.size()) + " entries in one call");
    // Chunks in data order; entry offsets and sizes as the program reads them.
    std::vector<std::uint32_t> chunk_words, entry_words;
    const std::uint64_t readable = data.size() & ~std::size_t{3}; // the program reads whole words' bytes
    entry_words.reserve(entries.size() * 2 + 2);
    for (std::size_t e = 0; e < entries.size(); ++e) {
        const auto& x = entries[e];
        if (x.offset > readable || x.size > readable - x.offset || x.offset + x.size > 0xffffffffull)
            throw resource_error("scan.patterns: entry " + std::to_string(e) + " (offset " + std::to_string(x.offset) + ", " +
                                 std::to_string(x.size) + " bytes) leaves the data buffer or its first 4 GiB");
        entry_words.push_back(static_cast<std::uint32_t>(x.offset));
        entry_words.push_back(static_cast<std::uint32_t>(x.size));
        for (std::uint64_t at = 0; at < x.size; at += scan_chunk_bytes) {
            chunk_words.push_back(static_cast<std::uint32_t>(e));
            chunk_words.push_back(static_cast<std::uint32_t>(at));
        }
    }
    const std::uint64_t chunk_count = chunk_words.size() / 2;
    scan_result r;
    const std::uint32_t patterns = set.tables.patterns;
    r.counts.assign(patterns, 0);
    hit_budget local;
    std::vector<std::uint32_t>& kept = (budget ? *budget : local).kept;
    kept.resize(patterns, 0);
    const std::vector<std::uint32_t> kept_before = kept;
    if (chunk_count == 0) return r;
    if (chunk_count > 0xffffffffull) throw resource_error("scan.patterns: too many chunks in one call");
    entry_words.resize(std::max<std::size_t>(entry_words.size(), 2));

    const auto up = [&](const std::vector<std::uint32_t>& v) { return runtime::upload(ctx, std::span<const std::uint32_t>(v), CL_MEM_READ_ONLY); };
    const auto chunk_buffer = up(chunk_words);
    const auto entry_buffer = up(entry_words);
    std::vector<std::uint32_t> muted((patterns + 31) / 32 + 1, 0);
    const auto mute_full = [&] {
        for (std::uint32_t q = 0; q < patterns; ++q)
            if (kept[q] >= options.max_hits_per_pattern) muted[q / 32] |= 1u << (q % 32);
    };
    mute_full();
    auto muted_buffer = runtime::allocate(ctx, muted.size() * 4, CL_MEM_READ_ONLY);
    std::uint32_t capacity = options.hit_capacity;
    auto hit_buffer = runtime::allocate(ctx, std::size_t{capacity} * 12);
    auto count_buffer = runtime::allocate(ctx, (std::size_t{patterns} + 1) * 4);
    std::vector<std::uint32_t> counts(patterns + 1);
    std::vector<std::uint32_t> triples;

    const auto& kernel = patterns_kernel();
    std::uint64_t next = 0, step = chunk_count;
    while (next < chunk_count) {
        const std::uint64_t end = std::min(chunk_count, next + step);
        runtime::write(ctx, muted_buffer, muted.data(), muted.size() * 4);
        runtime::fill(ctx, count_buffer, 0, counts.size() * 4);
        const std::uint32_t groups = detail::scan_workgroups(ctx, end - next);
        const std::array<std::uint32_t, 4> p{static_cast<std::uint32_t>(end), static_cast<std::uint32_t>(next), capacity, groups};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        std::vector<runtime::buffer_arg> args(12);
        const auto words = [](const boost::compute::buffer& b) { return static_cast<std::uint32_t>(b.size() / 4); };
        args[scan_binding::data] = {data, words(data)};
        args[scan_binding::chunks] = {chunk_buffer, words(chunk_buffer)};
        args[scan_binding::entries] = {entry_buffer, words(entry_buffer)};
        const auto& tables = set.on_device();
        args[scan_binding::filter] = {tables.filter, words(tables.filter)};
        args[scan_binding::bucket_start] = {tables.bucket_start, words(tables.bucket_start)};
        args[scan_binding::items] = {tables.items, words(tables.items)};
        args[scan_binding::forms] = {tables.forms, words(tables.forms)};
        args[scan_binding::form_bytes] = {tables.form_bytes, words(tables.form_bytes)};
        args[scan_binding::muted] = {muted_buffer, words(muted_buffer)};
        args[scan_binding::hits] = {hit_buffer, capacity * 3};
        args[scan_binding::counts] = {count_buffer, patterns + 1};
        args[scan_binding::params] = {params, 4};
        const auto ev = runtime::dispatch(ctx, kernel, {groups, 1, 1}, args);
        ++r.dispatches;
        runtime::read(ctx, count_buffer, counts.data(), counts.size() * 4);
        ctx.finish();
        r.kernel_seconds += runtime::event_seconds(ctx, ev);
        const std::uint32_t found = counts[0];
        if (found > capacity) {
            // Room for all of them where it is affordable (one more dispatch); otherwise a range
            // expected to fit, from this one's count.
            if (found <= std::max(options.hit_capacity_limit, capacity) || end - next == 1) {
                if (found > max_hit_capacity)
                    throw resource_error("scan.patterns: " + std::to_string(found) + " hits in one chunk of " +
                                         std::to_string(scan_chunk_bytes) + " bytes (at most " + std::to_string(max_hit_capacity) +
                                         "); lower max_hits_per_pattern");
                capacity = found;
                hit_buffer = runtime::allocate(ctx, std::size_t{capacity} * 12);
            } else {
                step = std::max<std::uint64_t>(1, (end - next) * capacity / found / 2);
            }
            continue;
        }
        triples.resize(std::size_t{found} * 3);
        runtime::read(ctx, hit_buffer, triples.data(), triples.size() * 4);
        const std::vector<vs::hit> batch = detail::sorted_hits(triples, entries.size(), patterns);
        for (const auto& h : batch) {
            if (kept[h.pattern] < options.max_hits_per_pattern) {
                ++kept[h.pattern];
                r.hits.push_back(h);
            }
        }
        for (std::uint32_t q = 0; q < patterns; ++q) r.counts[q] += counts[q + 1];
        mute_full();
        next = end;
        step = std::min(chunk_count, step * 2); // after a split, grow again: muted patterns may have been the cause
    }
    // Hits of an entry that spans two dispatches come back in two pieces: one final sort.
    if (r.dispatches > 1) std::sort(r.hits.begin(), r.hits.end(), vs::hit_order);
    for (std::uint32_t q = 0; q < patterns; ++q) r.capped_patterns += r.counts[q] > kept[q] - kept_before[q];
    return r;
}

// As scan_device, for bytes in host memory: uploads them (in pieces below the device's largest
// allocation and 4 GiB, whole entries each) and scans each piece.
inline scan_result scan_bytes(runtime::context& ctx, const device_patterns& set, std::span<const std::uint8_t> bytes,
                              std::span<const vyre::scan::entry_extent> entries, const scan_options& options = {}) {
    const std::uint64_t limit = std::min<std::uint64_t>(ctx.device().max_allocation, 0xffffffffull) & ~std::uint64_t{3};
    scan_result r;
    r.counts.assign(set.tables.patterns, 0);
    hit_budget budget;
    std::size_t e = 0;
    while (e < entries.size()) {
        // A piece: entries e..f-1, copied back to back.
        std::size_t f = e;
        std::uint64_t piece = 0;
        while (f < entries.size() && (f == e || piece + entries[f].size <= limit)) piece += entries[f++].size;
        if (piece > limit)
            throw resource_error("scan.patterns: entry " + std::to_string(e) + " is " + std::to_string(entries[e].size) +
                                 " bytes; one scan takes at most " + std::to_string(limit));
        std::vector<std::uint8_t> host(std::max<std::uint64_t>(4, (piece + 3) & ~std::uint64_t{3}), 0);
        std::vector<vyre::scan::entry_extent> local(f - e);
        std::uint64_t at = 0;
        for (std::size_t i = e; i < f; ++i) {
            const auto& x = entries[i];
            if (x.offset > bytes.size() || x.size > bytes.size() - x.offset)
                throw resource_error("scan.patterns: entry " + std::to_string(i) + " leaves the bytes");
            std::copy_n(bytes.data() + x.offset, x.size, host.data() + at);
            local[i - e] = {at, x.size};
            at += x.size;
        }
        const auto buffer = runtime::upload(ctx, std::span<const std::uint8_t>(host), CL_MEM_READ_ONLY);
        auto part = scan_device(ctx, set, buffer, local, options, &budget);
        for (auto h : part.hits) {
            h.entry += static_cast<std::uint32_t>(e);
            r.hits.push_back(h);
        }
        for (std::size_t q = 0; q < r.counts.size(); ++q) r.counts[q] += part.counts[q];
        r.dispatches += part.dispatches;
        r.kernel_seconds += part.kernel_seconds;
        e = f;
    }
    for (std::size_t q = 0; q < r.counts.size(); ++q) r.capped_patterns += r.counts[q] > budget.kept[q];
    return r;
}

} // namespace vyre::ops::scan
