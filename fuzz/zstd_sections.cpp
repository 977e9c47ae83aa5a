// The zstd walk and the CPU oracle of compression.zstd.frames on arbitrary bytes:
// format::parse_zstd and format::plan_zstd_sections give a format_error (or resource_error past
// their bounds) or records whose ranges lie inside the input; reference::zstd_decode_frames then
// writes only inside the frames' regions and the literals' scratch (the buffers are exactly the
// sizes the plan asks for, so ASan sees any byte past them), and every frame it decodes equals
// what libzstd makes of that frame where libzstd accepts it. The walk with device_tables accepts
// the same inputs, and its described tables, built as compression.zstd.fse_tables builds them,
// give the same statuses and bytes. Planned a block per window (format::plan_zstd_window, each
// window carrying the tables its first block reuses), every frame gives the same block records
// and the same tables behind them as the whole walk. The parse over segments of a few bytes (the
// walk ahead from guessed frame starts that parse_zstd does on several threads) gives the same
// frames, layout and error as one walk, also under a small budget of records (max_table_bytes).
// The host routes' checks (format::check_zstd_frame) refuse no frame that the walk accepts, and
// what the streamed decoder makes of a file the block walk passes fits the walk's output bound.
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_frame_checks.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/format/zstd_window_sections.hpp>
#include <vyre/reference/zstd_frames.hpp>

#include <zstd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace {

// Everything a parse says, or what it threw, for comparing two parses of the same bytes.
struct parse_outcome {
    bool failed = false;
    bool format = false;
    std::uint64_t offset = 0;
    std::string message;
    vyre::format::zstd_file file;
};

parse_outcome parse(std::span<const std::uint8_t> in, const vyre::format::zstd_parse_options& o, std::uint64_t segment) {
    parse_outcome r;
    try {
        r.file = vyre::format::detail::zstd_parse_in_segments(in, o, 1, segment);
    } catch (const vyre::format_error& e) {
        r.failed = r.format = true;
        r.offset = e.offset();
        r.message = e.what();
    } catch (const vyre::error& e) {
        r.failed = true;
        r.message = e.what();
    }
    return r;
}

bool same(const parse_outcome& a, const parse_outcome& b) {
    if (a.failed || b.failed) return a.failed == b.failed && a.format == b.format && a.offset == b.offset && a.message == b.message;
    const auto& x = a.file;
    const auto& y = b.file;
    if (x.frames.size() != y.frames.size() || x.skippable_frames.size() != y.skippable_frames.size() || x.block_count != y.block_count ||
        x.staging_size != y.staging_size)
        return false;
    for (std::size_t i = 0; i < x.skippable_frames.size(); ++i)
        if (x.skippable_frames[i].offset != y.skippable_frames[i].offset || x.skippable_frames[i].data_size != y.skippable_frames[i].data_size)
            return false;
    for (std::size_t i = 0; i < x.frames.size(); ++i) {
        const auto& f = x.frames[i];
        const auto& g = y.frames[i];
        if (f.offset != g.offset || f.size != g.size || f.first_block != g.first_block || f.output_offset != g.output_offset ||
            f.output_capacity != g.output_capacity || f.exact_layout != g.exact_layout || f.content_size != g.content_size ||
            f.checksum != g.checksum || f.blocks.size() != g.blocks.size())
            return false;
        for (std::size_t k = 0; k < f.blocks.size(); ++k) {
            const auto& p = f.blocks[k];
            const auto& q = g.blocks[k];
            if (p.header_offset != q.header_offset || p.type != q.type || p.block_size != q.block_size ||
                p.regenerated_size != q.regenerated_size || p.output_offset != q.output_offset || p.output_capacity != q.output_capacity)
                return false;
        }
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace c = vyre::compression;
    const std::span<const std::uint8_t> in(data, size);
    {
        vyre::format::zstd_parse_options o;
        o.max_output_size = std::uint64_t{8} << 20;
        const parse_outcome one = parse(in, o, 0);
        for (const std::uint64_t segment : {1u, 7u, 64u, 509u})
            if (!same(parse(in, o, segment), one)) std::abort();
        // Under a budget of records (max_table_bytes) that the input picks, a few frames' and
        // blocks' worth: the same frames or the same zstd_table_error, at the same block, from
        // every segmentation.
        if (size != 0) {
            o.max_table_bytes = vyre::format::zstd_table_bytes(1 + data[0] % 4, data[size - 1] % 64);
            const parse_outcome budgeted = parse(in, o, 0);
            for (const std::uint64_t segment : {1u, 7u, 64u, 509u})
                if (!same(parse(in, o, segment), budgeted)) std::abort();
        }
    }
    // The streamed decoder, which every route runs past the budget: where the block walk passes
    // the whole input, what it decodes fits the walk's output bound (the size of its first buffer).
    try {
        vyre::format::zstd_check_cursor walk(in); // throws what check_zstd_block throws
        walk.advance(size);
        if (!walk.stopped()) {
            const auto streamed =
                vyre::engine::zstd_decode_streamed(in, std::uint64_t{8} << 20, [] { return vyre::resource_error("over the limit"); });
            if (streamed.bytes.size() > walk.output_bound()) std::abort();
        }
    } catch (const vyre::error&) {
    }
    vyre::format::zstd_file file;
    vyre::format::zstd_sections s;
    try {
        vyre::format::zstd_parse_options o;
        o.max_output_size = std::uint64_t{8} << 20;
        file = vyre::format::parse_zstd(in, o);
    } catch (const vyre::error&) {
        return 0;
    }
    std::vector<std::size_t> all(file.frames.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    // The checks walked a block header at a time (check_zstd_frames) say what the checks of the
    // parsed frames say: the same refusal, or the same frames to decode another way.
    {
        bool streamed_refused = false, refused = false;
        std::optional<std::vector<vyre::format::zstd_frame>> streamed;
        try {
            streamed = vyre::format::check_zstd_frames(in);
        } catch (const vyre::format_error&) {
            streamed_refused = true;
        }
        std::vector<const vyre::format::zstd_frame*> two_bytes;
        for (const auto& f : file.frames) {
            try {
                if (vyre::format::check_zstd_frame(in, f).zero_sequences_in_two_bytes) two_bytes.push_back(&f);
            } catch (const vyre::format_error&) {
                refused = true;
                break;
            }
        }
        if (streamed_refused != refused || (!refused && !streamed)) std::abort();
        if (streamed) {
            if (streamed->size() != two_bytes.size()) std::abort();
            for (std::size_t i = 0; i < two_bytes.size(); ++i) {
                const auto& a = (*streamed)[i];
                const auto& b = *two_bytes[i];
                if (a.offset != b.offset || a.size != b.size || a.blocks.size() != b.blocks.size() || a.output_capacity != b.output_capacity)
                    std::abort();
            }
        }
    }
    // The host routes' checks refuse a frame only where the walk refuses it too.
    for (std::size_t f = 0; f < file.frames.size(); ++f) {
        bool checked = true, walked = true;
        try {
            (void)vyre::format::check_zstd_frame(in, file.frames[f]);
        } catch (const vyre::format_error&) {
            checked = false;
        }
        try {
            (void)vyre::format::plan_zstd_sections(in, file, std::span<const std::size_t>(&f, 1),
                                                   vyre::format::zstd_plan_options{.device_tables = true});
        } catch (const vyre::format_error&) {
            walked = false;
        } catch (const vyre::resource_error&) {
        }
        if (!checked && walked) std::abort();
    }
    try {
        s = vyre::format::plan_zstd_sections(in, file, all);
    } catch (const vyre::format_error&) {
        // The walk that describes its FSE tables refuses the same bytes.
        try {
            vyre::format::plan_zstd_sections(in, file, all, vyre::format::zstd_plan_options{.device_tables = true});
        } catch (const vyre::error&) {
            return 0;
        }
        std::abort();
    } catch (const vyre::resource_error&) {
        return 0;
    }
    if (s.input_base + s.input_bytes > size || s.output_bytes > (std::uint64_t{8} << 20)) std::abort();
    const auto input = in.subspan(s.input_base, s.input_bytes);
    for (std::size_t b = 0; b < s.blocks.size(); b += c::zstd_block_words) {
        const std::uint32_t* rec = s.blocks.data() + b;
        if (rec[c::zstd_block_field::source] > input.size()) std::abort();
        if ((rec[c::zstd_block_field::kind] & 3u) == 2u && rec[c::zstd_block_field::sequences] != 0 &&
            std::uint64_t{rec[c::zstd_block_field::sequences_at]} + rec[c::zstd_block_field::sequences_size] > input.size())
            std::abort();
    }
    std::vector<std::uint8_t> literals(s.literal_bytes), output(s.output_bytes);
    std::vector<std::uint32_t> statuses(s.frame_count() * c::zstd_status_words);
    vyre::reference::zstd_decode_frames(input, s.frames, s.blocks, s.tables, literals, output, statuses);
    {
        vyre::format::zstd_sections d;
        try {
            d = vyre::format::plan_zstd_sections(in, file, all, vyre::format::zstd_plan_options{.device_tables = true});
        } catch (const vyre::error&) {
            std::abort(); // the host-built walk accepted these bytes
        }
        if (d.table_words() != s.table_words() || d.blocks.size() != s.blocks.size()) std::abort();
        vyre::format::zstd_build_tables_on_host(d);
        std::vector<std::uint8_t> literals2(d.literal_bytes), output2(d.output_bytes);
        std::vector<std::uint32_t> statuses2(d.frame_count() * c::zstd_status_words);
        vyre::reference::zstd_decode_frames(input, d.frames, d.blocks, d.tables, literals2, output2, statuses2);
        if (statuses2 != statuses) std::abort();
        for (std::size_t f = 0; f < s.frame_count(); ++f) {
            const std::uint32_t at = s.frames[f * c::zstd_frame_words + 2], n = statuses[f * c::zstd_status_words + 1];
            if (statuses[f * c::zstd_status_words] == c::zstd_error::none && n != 0 &&
                std::memcmp(output.data() + at, output2.data() + at, n) != 0)
                std::abort();
        }
    }
    // A block per window: the same records (offsets moved by the window's bases) and tables.
    {
        namespace field = c::zstd_block_field;
        // The table a record names at word `at`: a Huffman code's words, or an FSE table's.
        const auto table = [](const std::vector<std::uint32_t>& t, std::uint32_t at, bool huffman) {
            if (at >= t.size()) std::abort();
            const std::size_t n = huffman ? 1 + (t[at] >> 8) : 1 + (std::size_t{1} << t[at]);
            if (n > t.size() - at) std::abort();
            return std::vector<std::uint32_t>(t.begin() + at, t.begin() + at + n);
        };
        for (std::size_t f = 0; f < file.frames.size(); ++f) {
            const auto& frame = file.frames[f];
            vyre::format::zstd_window_carry carry;
            for (std::size_t b = 0; b < frame.blocks.size(); ++b) {
                vyre::format::zstd_sections w;
                try {
                    w = vyre::format::plan_zstd_window(in, frame, b, 1, carry, vyre::format::zstd_plan_options{});
                } catch (const vyre::error&) {
                    std::abort(); // the whole walk accepted these bytes
                }
                const std::uint32_t* whole = s.blocks.data() + (s.frames[f * c::zstd_frame_words] + b) * c::zstd_block_words;
                const std::uint32_t* one = w.blocks.data();
                if (w.blocks.size() != c::zstd_block_words || one[field::kind] != whole[field::kind] ||
                    one[field::size] != whole[field::size] || one[field::maximum] != whole[field::maximum] ||
                    w.input_base + one[field::source] != s.input_base + whole[field::source])
                    std::abort();
                if ((whole[field::kind] & 3u) != 2u) continue;
                for (std::uint32_t k = 0; k < 4; ++k)
                    if (one[field::stream_sizes + k] != whole[field::stream_sizes + k]) std::abort();
                if (((whole[field::kind] >> 2) & 3u) == c::zstd_literals_huffman &&
                    table(w.tables, one[field::huffman_table], true) != table(s.tables, whole[field::huffman_table], true))
                    std::abort();
                if (one[field::sequences] != whole[field::sequences]) std::abort();
                if (whole[field::sequences] == 0) continue;
                if (one[field::sequences_size] != whole[field::sequences_size] ||
                    w.input_base + one[field::sequences_at] != s.input_base + whole[field::sequences_at])
                    std::abort();
                for (const std::uint32_t t : {field::literal_length_table, field::offset_table, field::match_length_table})
                    if (table(w.tables, one[t], false) != table(s.tables, whole[t], false)) std::abort();
            }
        }
    }
    for (std::size_t f = 0; f < s.frame_count(); ++f) {
        const std::uint32_t* st = statuses.data() + f * c::zstd_status_words;
        if (st[0] != c::zstd_error::none) continue;
        const auto& frame = file.frames[f];
        const std::uint32_t at = s.frames[f * c::zstd_frame_words + 2], n = st[1];
        if (n > s.frames[f * c::zstd_frame_words + 3]) std::abort();
        std::vector<std::uint8_t> lib(std::size_t{n} + 1);
        // A frame counting zero sequences in two bytes goes to libzstd rewritten, as the host routes give it.
        std::vector<std::uint8_t> rewritten;
        if (vyre::format::check_zstd_frame(in, frame).zero_sequences_in_two_bytes)
            rewritten = vyre::format::zstd_frame_in_one_byte_counts(in, frame);
        ZSTD_DCtx* d = ZSTD_createDCtx();
        const std::size_t got = rewritten.empty() ? ZSTD_decompressDCtx(d, lib.data(), lib.size(), data + frame.offset, frame.size)
                                                  : ZSTD_decompressDCtx(d, lib.data(), lib.size(), rewritten.data(), rewritten.size());
        ZSTD_freeDCtx(d);
        if (!ZSTD_isError(got) && frame.checksum && (got != n || std::memcmp(lib.data(), output.data() + at, n) != 0)) std::abort();
    }
    return 0;
}
