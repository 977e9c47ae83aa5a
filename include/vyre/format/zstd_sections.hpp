// The host's walk over Zstandard compressed blocks (RFC 8878 3.1.1.3): each block's literals
// section header, Huffman tree description, sequences section header and FSE table
// descriptions, read into the records and tables compression.zstd.frames decodes from
// (compression/zstd_entropy.hpp). The walk reads a few hundred bytes per block and decodes no
// bitstream: the device decodes the literals' Huffman streams and the sequences.
#pragma once

#include <vyre/compression/zstd.hpp>
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_descriptions.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

// The device's work for some consecutive frames of one file: records and tables in the layout of
// compression/zstd_entropy.hpp. Input offsets are file offsets less `input_base` (the first
// frame's offset: the device holds file bytes [input_base, + input_bytes)); output offsets are
// the frames' staging offsets (zstd_frame::output_offset) less `output_base`.
struct zstd_sections {
    std::vector<std::uint32_t> frames;   // zstd_frame_words per frame
    std::vector<std::uint32_t> blocks;   // zstd_block_words per block
    std::vector<std::uint32_t> tables;
    std::uint64_t literal_bytes = 0;     // scratch the literals need
    std::uint64_t input_base = 0;
    std::uint64_t input_bytes = 0;
    std::uint64_t output_base = 0;
    std::uint64_t output_bytes = 0;      // end of the last frame's region, less output_base
    std::uint64_t compressed_blocks = 0;
    std::uint64_t sequences = 0;
    // Planned with zstd_plan_options::device_tables: the FSE tables the blocks introduce, as
    // descriptions (compression/zstd_entropy.hpp) for compression.zstd.fse_tables to build on the
    // device into table words [tables.size(), + described_words); `tables` holds the rest.
    std::vector<std::uint32_t> fse_descriptions;
    std::uint64_t described_words = 0;

    std::size_t frame_count() const noexcept { return frames.size() / compression::zstd_frame_words; }
    // The words of the device's tables buffer: those planned on the host, then those described.
    std::uint64_t table_words() const noexcept { return tables.size() + described_words; }
};

// How plan_zstd_sections works. Frames are planned on up to `threads` threads (0: every core);
// the records and tables may take `max_plan_bytes` of memory; with `device_tables` the FSE tables
// are described rather than built (zstd_sections::fse_descriptions), which spares the host most
// of the walk and the upload most of the tables' words.
inline constexpr std::uint64_t zstd_default_max_plan_bytes = std::uint64_t{1} << 30;

struct zstd_plan_options {
    unsigned threads = 1;
    std::uint64_t max_plan_bytes = zstd_default_max_plan_bytes;
    bool device_tables = false;
    // Threads kept for walk after walk (the device route walks a group of frames while the device
    // decodes the one before): planned on these, `threads` unused. Starting the threads anew for
    // each of a walk's two passes cost a good part of a short group's walk.
    util::worker_pool* pool = nullptr;
};

namespace detail {

inline std::uint32_t zstd_u32(std::uint64_t v, const char* what) {
    if (v > std::numeric_limits<std::uint32_t>::max())
        throw resource_error(std::string("compression.zstd.frames: ") + what + " (" + std::to_string(v) + ") does not fit 32 bits");
    return static_cast<std::uint32_t>(v);
}

// A sequence table of a frame being planned: its word offset among the frame's tables, or among
// its described tables (device_tables).
struct zstd_table_ref {
    std::uint32_t at = 0;
    bool described = false;
};

// Where a carried table came from, so that a plan of later blocks of the frame (a window,
// plan_zstd_window in format/zstd_window_sections.hpp) can make it again: mode 0 the predefined
// table, 1 an RLE table of symbol `at`, 2 the description at file offset `at` (within a block
// that ends at `end`).
struct zstd_table_origin {
    std::uint32_t mode = 0;
    std::uint64_t at = 0, end = 0;
};

// What carries from one block of a frame to the next: the last Huffman table and the last
// table of each sequence code (none at a frame's start), and where each came from (the tree
// description of `huffman_bytes` bytes at file offset `huffman_at`).
struct zstd_carried {
    std::optional<std::uint32_t> huffman;
    std::optional<zstd_table_ref> literal_length, offset, match_length;
    std::uint64_t huffman_at = 0, huffman_bytes = 0;
    std::array<zstd_table_origin, 3> origins; // literal lengths, offsets, match lengths
};

struct zstd_defaults {
    zstd_table_ref literal_length, offset, match_length;
};

// Plans of runs of frames are made in parallel, each on its own: table offsets count from
// `table_base` (the shared tables come first), literal offsets from 0. Hostile input makes tables
// cheaply (a few description bytes give a table of up to 512 words), so the memory every plan's
// records and tables take is counted against one budget, shared by the plans made in parallel.
struct zstd_plan_budget {
    std::atomic<std::uint64_t> used{0};
    std::uint64_t limit = 0;

    void take(std::uint64_t words) {
        if (used.fetch_add(words * 4, std::memory_order_relaxed) + words * 4 > limit)
            throw resource_error("zstd: the blocks' records and tables need more than " + std::to_string(limit) +
                                 " bytes (plan_zstd_sections' max_plan_bytes)");
    }
};

// The records and tables of some consecutive frames (or of a window of one), planned together.
struct zstd_frame_plan {
    std::uint64_t input_base = 0;
    std::uint32_t table_base = 0;
    zstd_plan_budget* budget = nullptr;
    bool describe = false; // FSE tables described, not built (zstd_plan_options::device_tables)
    std::vector<std::uint32_t> blocks, tables;
    std::vector<std::uint32_t> descriptions;   // table offsets counted from the plan's first described word
    std::uint64_t described_words = 0;
    std::vector<std::pair<std::size_t, std::uint32_t>> described_slots; // (record word, described offset)
    std::uint64_t literal_bytes = 0, compressed_blocks = 0, sequences = 0;
    // literal_bytes where the frame being planned began: its own literals are checked against 32
    // bits as when each frame had a plan of its own (the total is checked once all are planned).
    std::uint64_t frame_literals = 0;
    // Words not yet taken from the shared budget. They are taken in batches: taken table by table,
    // frames walked on many threads all waited on the budget's one counter.
    std::uint64_t uncharged = 0;
    static constexpr std::uint64_t charge_batch = std::uint64_t{1} << 14;

    void charge(std::uint64_t words) {
        uncharged += words;
        if (uncharged >= charge_batch) settle();
    }
    void settle() {
        budget->take(uncharged);
        uncharged = 0;
    }

    template <class Table>
    std::uint32_t append(const Table& t) {
        const std::size_t before = tables.size();
        const std::uint32_t at = zstd_u32(table_base + std::uint64_t{compression::zstd_append_table(tables, t)}, "the table words");
        charge(tables.size() - before);
        return at;
    }

    // An FSE table of a distribution zstd_read_counts read: built here, or described for the
    // device, its words counted against the budget either way
    // (nullopt where the counts build no table, which a checked sum never gives).
    std::optional<zstd_table_ref> fse_table(std::span<const std::int16_t> counts, std::uint32_t log) {
        if (!describe) {
            const auto table = compression::zstd_fse_table(counts, log);
            if (table.empty()) return std::nullopt;
            return zstd_table_ref{append(table), false};
        }
        const std::uint64_t words = 1 + (std::uint64_t{1} << log);
        charge(words + compression::zstd_fse_description_words);
        const std::uint32_t at = zstd_u32(described_words, "the table words");
        compression::zstd_append_fse_description(descriptions, at, counts, log);
        described_words += words;
        return zstd_table_ref{at, true};
    }
};

inline void zstd_plan_compressed(std::span<const std::uint8_t> data, const zstd_frame& f, const zstd_block& b, zstd_frame_plan& s,
                                 zstd_carried& carried, const zstd_defaults& defaults, std::uint32_t* rec) {
    const auto input_offset = [&](std::uint64_t at, const char* what) { return zstd_u32(at - s.input_base, what); };
    namespace c = compression;
    namespace field = c::zstd_block_field;
    const std::uint64_t begin = b.content_offset(), end = b.end_offset();
    const auto bytes_at = [&](std::uint64_t at) { return data.subspan(at, end - at); };
    const auto fail = [&](const std::string& why, std::uint64_t at) { throw format_error("zstd: compressed block: " + why, at); };
    const auto need = [&](std::uint64_t at, std::uint64_t count, const char* what) { zstd_block_need(at, count, end, what); };
    // ---- literals section header (RFC 8878 3.1.1.3.1)
    const zstd_literals_header lh = zstd_read_literals_header(data, begin, end);
    const std::uint32_t type = lh.type, header = lh.bytes, regenerated = lh.regenerated, compressed = lh.compressed;
    const bool four = lh.four_streams;
    if (regenerated > f.block_maximum_size)
        fail(std::to_string(regenerated) + " literals, above the block maximum " + std::to_string(f.block_maximum_size), begin);
    const std::uint64_t literals = begin + header;
    std::uint64_t sequences = 0;
    rec[field::size] = regenerated;
    rec[field::source] = input_offset(literals, "a literals offset");
    zstd_u32(s.literal_bytes - s.frame_literals, "the literals scratch");
    // Past 32 bits only where the run's total is too, which plan_zstd_sections refuses.
    rec[field::literals_at] = static_cast<std::uint32_t>(s.literal_bytes);
    s.literal_bytes += regenerated;
    std::uint32_t kind = 2;
    if (type == 0) {
        need(literals, regenerated, "raw literals");
        sequences = literals + regenerated;
        kind |= c::zstd_literals_raw << 2;
    } else if (type == 1) {
        need(literals, 1, "RLE literal");
        sequences = literals + 1;
        kind |= c::zstd_literals_rle << 2;
    } else {
        need(literals, compressed, "compressed literals");
        sequences = literals + compressed;
        std::uint64_t streams = literals;
        if (type == 2) {
            auto [table, used] = zstd_read_huffman(data.subspan(literals, compressed), literals);
            carried.huffman = s.append(table);
            carried.huffman_at = literals;
            carried.huffman_bytes = compressed;
            streams += used;
        } else if (!carried.huffman) {
            fail("treeless literals with no earlier Huffman table in the frame", begin);
        }
        rec[field::huffman_table] = *carried.huffman;
        const std::uint64_t stream_bytes = sequences - streams;
        kind |= c::zstd_literals_huffman << 2;
        if (four) {
            kind |= c::zstd_four_streams;
            if (regenerated < 6) fail(std::to_string(regenerated) + " literals in four streams (at least 6)", begin);
            if (stream_bytes < 10) fail("four Huffman streams in " + std::to_string(stream_bytes) + " bytes (at least 10)", streams);
            std::uint64_t total = 6;
            for (std::uint32_t i = 0; i < 3; ++i) {
                const auto n = static_cast<std::uint32_t>(util::read_le(data, streams + 2 * i, 2));
                rec[field::stream_sizes + i] = n;
                total += n;
            }
            if (total >= stream_bytes)
                fail("the jump table's streams (" + std::to_string(total - 6) + " bytes) leave nothing of " +
                         std::to_string(stream_bytes - 6) + " for the fourth",
                     streams);
            rec[field::stream_sizes + 3] = static_cast<std::uint32_t>(stream_bytes - total);
            streams += 6;
        } else {
            if (stream_bytes == 0) fail("an empty Huffman stream", streams);
            rec[field::stream_sizes] = static_cast<std::uint32_t>(stream_bytes);
        }
        rec[field::source] = input_offset(streams, "a literals offset");
    }
    rec[field::kind] = kind;

    // ---- sequences section header (RFC 8878 3.1.1.3.2.1)
    const zstd_sequence_count n = zstd_read_sequence_count(data, sequences, end);
    const std::uint32_t count = n.count;
    std::uint64_t at = n.next;
    rec[field::sequences] = count;
    rec[field::maximum] = f.block_maximum_size;
    if (count == 0) return;
    need(at, 1, "symbol compression modes");
    const std::uint32_t modes = data[at++];
    if (modes & 3u) fail("symbol compression modes " + util::hex(static_cast<std::uint8_t>(modes)) + " set the reserved bits", at - 1);
    struct code_kind {
        const char* name;
        std::uint32_t mode, max_symbol, max_log;
        zstd_table_ref defaults;
        std::optional<zstd_table_ref>& carried;
        zstd_table_origin& origin;
        std::uint32_t slot;
    };
    std::array<code_kind, 3> kinds{{
        {"literal lengths", modes >> 6, c::zstd_literal_length_codes - 1, c::zstd_literal_length_max_log, defaults.literal_length,
         carried.literal_length, carried.origins[0], field::literal_length_table},
        {"offsets", (modes >> 4) & 3u, c::zstd_offset_codes - 1, c::zstd_offset_max_log, defaults.offset, carried.offset,
         carried.origins[1], field::offset_table},
        {"match lengths", (modes >> 2) & 3u, c::zstd_match_length_codes - 1, c::zstd_match_length_max_log, defaults.match_length,
         carried.match_length, carried.origins[2], field::match_length_table},
    }};
    for (auto& k : kinds) {
        switch (k.mode) {
        case 0:
            k.carried = k.defaults;
            k.origin = {0, 0, 0};
            break;
        case 1: {
            need(at, 1, "RLE symbol");
            const std::uint32_t symbol = data[at];
            if (symbol > k.max_symbol)
                fail(std::string("RLE ") + k.name + " symbol " + std::to_string(symbol) + " above " + std::to_string(k.max_symbol), at);
            k.carried = zstd_table_ref{s.append(c::zstd_fse_rle_table(static_cast<std::uint16_t>(symbol))), false};
            k.origin = {1, symbol, 0};
            at += 1;
            break;
        }
        case 2: {
            const zstd_counts counts = zstd_read_counts(bytes_at(at), k.max_symbol, k.max_log, at, k.name);
            k.carried = s.fse_table(counts.counts(), counts.log);
            if (!k.carried) fail(std::string("the ") + k.name + " distribution builds no table", at);
            k.origin = {2, at, end};
            at += counts.bytes;
            break;
        }
        default:
            if (!k.carried) fail(std::string("repeated ") + k.name + " table with no earlier table in the frame", at);
        }
        rec[k.slot] = k.carried->at;
        if (k.carried->described) s.described_slots.emplace_back(static_cast<std::size_t>(rec - s.blocks.data()) + k.slot, k.carried->at);
    }
    if (at >= end) fail(std::to_string(count) + " sequences with no bitstream", at);
    rec[field::sequences_at] = input_offset(at, "a sequences offset");
    rec[field::sequences_size] = static_cast<std::uint32_t>(end - at);
    s.sequences += count;
}

// Makes the tables `carried` names again in plan `p`, from their origins (a window's plan
// starts with what the blocks before it left).
inline void zstd_carry_into(std::span<const std::uint8_t> data, zstd_carried& carried, const zstd_defaults& defaults,
                            zstd_frame_plan& p) {
    namespace c = compression;
    if (carried.huffman)
        carried.huffman = p.append(zstd_read_huffman(data.subspan(carried.huffman_at, carried.huffman_bytes), carried.huffman_at).first);
    const std::array<std::uint32_t, 3> max_symbol{c::zstd_literal_length_codes - 1, c::zstd_offset_codes - 1, c::zstd_match_length_codes - 1};
    const std::array<std::uint32_t, 3> max_log{c::zstd_literal_length_max_log, c::zstd_offset_max_log, c::zstd_match_length_max_log};
    const std::array<zstd_table_ref, 3> predefined{defaults.literal_length, defaults.offset, defaults.match_length};
    const std::array<std::optional<zstd_table_ref>*, 3> refs{&carried.literal_length, &carried.offset, &carried.match_length};
    for (std::size_t i = 0; i < 3; ++i) {
        if (!*refs[i]) continue;
        const zstd_table_origin& o = carried.origins[i];
        if (o.mode == 0) {
            *refs[i] = predefined[i];
        } else if (o.mode == 1) {
            *refs[i] = zstd_table_ref{p.append(c::zstd_fse_rle_table(static_cast<std::uint16_t>(o.at))), false};
        } else {
            const zstd_counts counts = zstd_read_counts(data.subspan(o.at, o.end - o.at), max_symbol[i], max_log[i], o.at, "carried");
            *refs[i] = p.fse_table(counts.counts(), counts.log);
        }
    }
}

// Blocks [first, first + count) of a frame, planned into `p` (their records, the tables they
// introduce), starting from what `carried` says the blocks before them left, and leaving in it
// what they leave.
inline void zstd_plan_blocks(std::span<const std::uint8_t> data, const zstd_frame& f, std::size_t first, std::size_t count,
                             const zstd_defaults& defaults, zstd_frame_plan& p, zstd_carried& carried) {
    namespace c = compression;
    if (f.dictionary_id != 0)
        throw format_error("zstd: the frame needs dictionary " + std::to_string(f.dictionary_id) + ", and none is supported", f.offset);
    p.charge(count * c::zstd_block_words);
    // Appended: a plan may hold several frames (plan_zstd_sections plans a run of them into one).
    const std::size_t first_word = p.blocks.size();
    p.blocks.resize(first_word + count * c::zstd_block_words, 0u);
    for (std::size_t k = 0; k < count; ++k) {
        const zstd_block& b = f.blocks[first + k];
        std::uint32_t* rec = p.blocks.data() + first_word + k * c::zstd_block_words;
        if (b.type == zstd_block_type::compressed) {
            zstd_plan_compressed(data, f, b, p, carried, defaults, rec);
            ++p.compressed_blocks;
        } else {
            rec[c::zstd_block_field::kind] = b.type == zstd_block_type::raw ? 0u : 1u;
            rec[c::zstd_block_field::size] = b.block_size;
            rec[c::zstd_block_field::source] = zstd_u32(b.content_offset() - p.input_base, "a block offset");
            rec[c::zstd_block_field::maximum] = f.block_maximum_size;
        }
    }
    p.settle();
}

// One frame, planned into `p` (its blocks' records, the tables they introduce).
inline void zstd_plan_frame(std::span<const std::uint8_t> data, const zstd_frame& f, const zstd_defaults& defaults, zstd_frame_plan& p) {
    zstd_carried carried;
    p.frame_literals = p.literal_bytes;
    zstd_plan_blocks(data, f, 0, f.blocks.size(), defaults, p, carried);
}

// The tables every plan starts with (the values, then the predefined sequence tables).
inline zstd_defaults zstd_shared_tables(std::vector<std::uint32_t>& tables) {
    namespace c = compression;
    c::zstd_append_values(tables);
    return zstd_defaults{
        {c::zstd_append_table(tables, c::zstd_fse_table(c::zstd_literal_length_default, c::zstd_literal_length_default_log))},
        {c::zstd_append_table(tables, c::zstd_fse_table(c::zstd_offset_default, c::zstd_offset_default_log))},
        {c::zstd_append_table(tables, c::zstd_fse_table(c::zstd_match_length_default, c::zstd_match_length_default_log))}};
}

} // namespace detail

// Lays out frames `which` (consecutive, in file order) of a parsed file (zstd_file, from
// parse_zstd over `data`) for compression.zstd.frames: every block's record, every table (or its
// description, with options.device_tables), the scratch the literals need. Offsets are relative
// to the first listed frame's. Throws format_error naming the byte offset where a block's
// sections are malformed (for the first such frame in file order; the bitstreams themselves are
// the device's to check), resource_error where an offset or size outgrows the program's 32-bit
// words or the records and tables would take more than options.max_plan_bytes of memory.
inline zstd_sections plan_zstd_sections(std::span<const std::uint8_t> data, const zstd_file& file, std::span<const std::size_t> which,
                                        const zstd_plan_options& options) {
    const unsigned threads = options.threads;
    namespace c = compression;
    namespace field = c::zstd_block_field;
    zstd_sections s;
    if (which.empty()) return s;
    s.input_base = file.frames.at(which.front()).offset;
    s.output_base = file.frames[which.front()].output_offset;
    const detail::zstd_defaults defaults = detail::zstd_shared_tables(s.tables);
    const auto shared = static_cast<std::uint32_t>(s.tables.size());
    for (std::size_t k = 0; k < which.size(); ++k) {
        const zstd_frame& f = file.frames.at(which[k]);
        if (f.offset < s.input_base || f.output_offset < s.output_base || (k > 0 && which[k] != which[k - 1] + 1))
            throw resource_error("plan_zstd_sections: frames must be consecutive, in file order");
    }
    // Frames are planned in runs of this many consecutive ones, each run into one plan on one
    // thread: frames are short, and a plan (and its vectors) per frame made the allocator the cost
    // once many threads walked at once. The threads take runs from one counter.
    constexpr std::size_t run_frames = 8;
    const std::size_t runs = (which.size() + run_frames - 1) / run_frames;
    const auto run_end = [&](std::size_t r) { return std::min(which.size(), (r + 1) * run_frames); };
    std::vector<detail::zstd_frame_plan> plans(runs);
    std::vector<std::exception_ptr> failures(runs); // a run's first failure: it stops there
    detail::zstd_plan_budget budget;
    budget.limit = options.max_plan_bytes;
    // f(r) for every run. Neither pass below throws from f (failures are kept per run).
    const auto each_run = [&](const auto& f) {
        if (options.pool) options.pool->run(runs, 1, f);
        else util::parallel_for(runs, threads, f);
    };
    each_run([&](std::size_t r) {
        detail::zstd_frame_plan& p = plans[r];
        p.input_base = s.input_base;
        p.table_base = shared;
        p.budget = &budget;
        p.describe = options.device_tables;
        try {
            // Room for a block a frame (a Huffman table of up to 256 symbols, three FSE tables), so
            // that short frames' vectors do not grow a few words at a time.
            p.blocks.reserve(run_frames * c::zstd_block_words);
            p.tables.reserve(run_frames * (1 + 256));
            if (p.describe) {
                p.descriptions.reserve(run_frames * 3 * c::zstd_fse_description_words);
                p.described_slots.reserve(run_frames * 3);
            }
            for (std::size_t k = r * run_frames; k < run_end(r); ++k) detail::zstd_plan_frame(data, file.frames[which[k]], defaults, p);
        } catch (...) {
            failures[r] = std::current_exception();
        }
    });
    for (const auto& e : failures)
        if (e) std::rethrow_exception(e);
    // Where each run's records and tables land: running sums over the runs, with every size
    // checked against the program's 32-bit words here, so that the moves below, which hold most of
    // the bytes, run on every thread (done on one, they took most of the walk's time).
    for (std::size_t k = 0; k < which.size(); ++k) {
        const zstd_frame& f = file.frames[which[k]];
        s.input_bytes = std::max(s.input_bytes, f.offset + f.size - s.input_base);
        detail::zstd_u32(s.input_bytes, "the input size");
        const std::uint64_t out = f.output_offset - s.output_base;
        detail::zstd_u32(out, "a frame's output offset");
        detail::zstd_u32(f.output_capacity, "a frame's output capacity");
        s.output_bytes = std::max(s.output_bytes, out + f.output_capacity);
        detail::zstd_u32(s.output_bytes, "the output size");
    }
    struct run_start {
        std::uint64_t blocks = 0, tables = 0, descriptions = 0, described = 0, literals = 0;
    };
    std::vector<run_start> starts(runs + 1);
    starts[0].tables = shared;
    for (std::size_t r = 0; r < runs; ++r) {
        const detail::zstd_frame_plan& p = plans[r];
        starts[r + 1] = {starts[r].blocks + p.blocks.size(), starts[r].tables + p.tables.size(),
                         starts[r].descriptions + p.descriptions.size(), starts[r].described + p.described_words,
                         starts[r].literals + p.literal_bytes};
        detail::zstd_u32(starts[r + 1].blocks / c::zstd_block_words, "the block count");
        s.compressed_blocks += p.compressed_blocks;
        s.sequences += p.sequences;
    }
    const run_start& total = starts.back();
    s.literal_bytes = total.literals;
    s.described_words = total.described;
    // Every literal offset and table index below is under these totals, so they all fit 32 bits.
    detail::zstd_u32(s.literal_bytes, "the literals scratch");
    detail::zstd_u32(total.tables + total.described, "the table words");
    s.frames.resize(which.size() * c::zstd_frame_words);
    s.blocks.resize(total.blocks);
    s.tables.resize(total.tables);
    s.fse_descriptions.resize(total.descriptions);
    // Described tables follow every built one on the device.
    const std::uint64_t described_base = total.tables;
    each_run([&](std::size_t r) {
        detail::zstd_frame_plan& p = plans[r];
        const run_start& at = starts[r];
        std::uint64_t block = at.blocks / c::zstd_block_words;
        for (std::size_t k = r * run_frames; k < run_end(r); ++k) {
            const zstd_frame& f = file.frames[which[k]];
            std::uint32_t* frame = s.frames.data() + k * c::zstd_frame_words;
            frame[0] = static_cast<std::uint32_t>(block);
            frame[1] = static_cast<std::uint32_t>(f.blocks.size());
            frame[2] = static_cast<std::uint32_t>(f.output_offset - s.output_base);
            frame[3] = static_cast<std::uint32_t>(f.output_capacity);
            block += f.blocks.size();
        }
        // Move the run's own tables and literals to where they land (shared tables stay put).
        const std::uint64_t table_shift = at.tables - shared;
        for (std::size_t w = 0; w < p.blocks.size(); w += c::zstd_block_words) {
            std::uint32_t* rec = p.blocks.data() + w;
            if ((rec[field::kind] & 3u) != 2u) continue;
            rec[field::literals_at] = static_cast<std::uint32_t>(at.literals + rec[field::literals_at]);
            for (const std::uint32_t t : {field::huffman_table, field::literal_length_table, field::offset_table, field::match_length_table})
                if (rec[t] >= shared) rec[t] = static_cast<std::uint32_t>(rec[t] + table_shift);
        }
        const std::uint64_t described_at = described_base + at.described;
        for (const auto& [slot, d] : p.described_slots) p.blocks[slot] = static_cast<std::uint32_t>(described_at + d);
        for (std::size_t d = 0; d < p.descriptions.size(); d += c::zstd_fse_description_words)
            p.descriptions[d] = static_cast<std::uint32_t>(described_at + p.descriptions[d]);
        std::copy(p.descriptions.begin(), p.descriptions.end(), s.fse_descriptions.begin() + static_cast<std::ptrdiff_t>(at.descriptions));
        std::copy(p.blocks.begin(), p.blocks.end(), s.blocks.begin() + static_cast<std::ptrdiff_t>(at.blocks));
        std::copy(p.tables.begin(), p.tables.end(), s.tables.begin() + static_cast<std::ptrdiff_t>(at.tables));
        p = {};
    });
    return s;
}

inline zstd_sections plan_zstd_sections(std::span<const std::uint8_t> data, const zstd_file& file, std::span<const std::size_t> which,
                                        unsigned threads = 1, std::uint64_t max_plan_bytes = zstd_default_max_plan_bytes) {
    return plan_zstd_sections(data, file, which, zstd_plan_options{threads, max_plan_bytes, false});
}

// Sections planned with device_tables made whole on the host: every described table built into
// `tables` (compression::zstd_build_described_tables, the CPU reference of
// compression.zstd.fse_tables). Its tables are then the words a plan without device_tables
// builds, though at other offsets: the described ones follow every built one.
inline void zstd_build_tables_on_host(zstd_sections& s) {
    s.tables.resize(static_cast<std::size_t>(s.table_words()), 0u);
    compression::zstd_build_described_tables(std::span(s.tables), s.fse_descriptions);
    s.fse_descriptions.clear();
    s.described_words = 0;
}

} // namespace vyre::format
