// The formats vyre defines or parses itself (besides ZIP, gzip and zstd, which have targets of
// their own) and the LZ4 block reference, on arbitrary bytes; the input's first byte picks which.
// Beyond "no crash":
//   0  format::parse_lz4_frames: a format_error/resource_error, or frames and blocks whose stored
//      bytes lie inside the input, whose outputs tile [0, output_size) in file order, and that
//      verify_lz4_block_checksums accepts or refuses with a format_error; and for files of up to
//      1 MiB, engine::decompress_lz4 on its host route gives decompress_lz4_host's bytes or both
//      refuse, without ever making its device context, and engine::decompress_lz4_walked (nothing
//      listed) its bytes or its error;
//   1  reference::lz4_decompress_block against liblz4's LZ4_decompress_safe on the same block
//      (the second byte sets the output room): every block liblz4 accepts decodes to the same
//      bytes, or is refused as offset_oob (liblz4 fills a match at offset 0 with zeros); and the
//      reference never writes past the bytes it reports (guard bytes around the room);
//   2  format::parse_tar: a format_error, or entries in increasing order whose headers and data
//      lie inside the input, and an end offset inside it; format::parse_tar_prefix on the first
//      two thirds: the whole archive's first entries, each ending (padded) before its end offset;
//      the global pax records written back as one header (tar_pax_global_header) read the same;
//      a sparse entry expands (tar_sparse_content, under 1 MiB) to exactly its size or is refused
//      with a vyre error;
//   3  format::parse_page_file: a format_error, or blocks inside the file; decoding it on the
//      host under a 1 MiB limit gives content_bytes() bytes or a vyre error, never more;
//   4  graph::read_csr_binary and graph::read_graph_text (at most 65,536 nodes): a vyre error or
//      a graph that validates;
//   5  engine::parse_taint_rules (TOML): rules, or a rules_error naming the file and a line inside
//      the text, nothing else (Debian's toml++ 3.3.0 reached undefined behaviour here); rules
//      that parse, applied to a small labelled graph, give a setup that validates;
//   6  round trips through the encoders: the bytes compressed by liblz4 decode to themselves in
//      the LZ4 block reference; padded to 1 KiB pages, compressed by compression.lz4_pages' CPU
//      reference and written as a page file, they parse and decode (liblz4) to themselves.
//      A graph text that reads (mode 4) is written and read back to the same graph.
#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/engine/page_file.hpp>
#include <vyre/engine/taint_rules.hpp>
#include <vyre/error.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/format/page_file.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/graph/io.hpp>
#include <vyre/reference/lz4.hpp>
#include <vyre/reference/lz4_pages.hpp>

#include <lz4.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace f = vyre::format;

// Walked with nothing listed (the route of files of too many tiny blocks): the listed decode's
// bytes, or its error at the same byte. For files that parse with outputs of at most 1 MiB, and
// files that do not parse (neither decode allocates then).
void walked_as_listed(std::span<const std::uint8_t> in) {
    std::string listed_error, walked_error;
    std::vector<std::uint8_t> listed, walked;
    try {
        listed = vyre::engine::decompress_lz4_host(in);
    } catch (const vyre::error& e) {
        listed_error = e.what();
    }
    try {
        (void)vyre::engine::decompress_lz4_walked(in, walked);
    } catch (const vyre::error& e) {
        walked_error = e.what();
    }
    if (walked_error != listed_error || (listed_error.empty() && walked != listed)) std::abort();
}

void lz4_frames(std::span<const std::uint8_t> in) {
    f::lz4_parse_options options;
    options.verify_block_checksums = false;
    f::lz4_layout layout;
    try {
        layout = f::parse_lz4_frames(in, options);
    } catch (const vyre::format_error&) {
        return walked_as_listed(in);
    } catch (const vyre::resource_error&) {
        return;
    }
    std::uint64_t out = 0;
    for (const auto& b : layout.blocks) {
        const auto& x = b.extent;
        if (x.input_offset > in.size() || x.input_size > in.size() - x.input_offset) std::abort();
        if (x.output_offset != out) std::abort();
        out += x.output_size;
        if (b.frame >= layout.frames.size()) std::abort();
    }
    if (out != layout.output_size) std::abort();
    for (const auto& fr : layout.frames)
        if (fr.offset > in.size() || fr.size > in.size() - fr.offset) std::abort();
    try {
        f::verify_lz4_block_checksums(layout, in);
    } catch (const vyre::format_error&) {
    }
    // The LZ4 engine's host route (liblz4 on the host cores, the CPU reference where liblz4
    // refuses) against the CPU reference of the whole file: the same bytes, or both refuse; and
    // it never asks for a device (its context is made on first use, so never here).
    if (layout.output_size > (std::uint64_t{1} << 20)) return;
    static vyre::runtime::context never = vyre::runtime::context::on_first_use();
    std::optional<std::vector<std::uint8_t>> reference, host;
    try {
        reference = vyre::engine::decompress_lz4_host(in);
    } catch (const vyre::error&) {
    }
    try {
        vyre::engine::lz4_options o;
        o.route = vyre::engine::lz4_route::host;
        o.threads = 1;
        host = vyre::engine::decompress_lz4(never, in, o);
    } catch (const vyre::error&) {
    }
    if (reference.has_value() != host.has_value() || (reference && *reference != *host) || never.used()) std::abort();
    walked_as_listed(in);
}

void lz4_block(std::span<const std::uint8_t> in) {
    if (in.empty()) return;
    const std::size_t room = std::size_t{in[0]} * 64;
    const auto block = in.subspan(1);
    constexpr std::size_t guard = 32;
    constexpr std::uint8_t fill = 0xA5;
    std::vector<std::uint8_t> ours(room + 2 * guard, fill), theirs(room + 1, 0);
    const auto st = vyre::reference::lz4_decompress_block(block, std::span(ours).subspan(guard, room));
    if (st.output_size > room) std::abort();
    for (std::size_t i = 0; i < guard; ++i)
        if (ours[i] != fill || ours[guard + room + i] != fill) std::abort();
    // Nothing past the reported bytes is touched (on success and on failure alike).
    for (std::size_t i = st.output_size; i < room; ++i)
        if (ours[guard + i] != fill) std::abort();
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()), reinterpret_cast<char*>(theirs.data()),
                                      static_cast<int>(block.size()), static_cast<int>(room));
    if (n < 0) return; // the reference may accept blocks that break LZ4's end-of-block rules
    if (st.code == vyre::compression::lz4_error::offset_oob) return;
    if (st.code != vyre::compression::lz4_error::none || st.output_size != static_cast<std::uint32_t>(n)) std::abort();
    if (!std::equal(theirs.begin(), theirs.begin() + n, ours.begin() + guard)) std::abort();
}

void tar(std::span<const std::uint8_t> in) {
    f::tar_archive a;
    bool whole = true;
    try {
        a = f::parse_tar(in);
    } catch (const vyre::format_error&) {
        whole = false;
    }
    if (whole && !a.global_pax.empty()) {
        // The one header the windows of a streamed tar carry holds the same global records.
        const auto g = f::tar_pax_global_header(a.global_pax);
        if (f::parse_tar(g).global_pax != a.global_pax) std::abort();
    }
    if (whole) {
        if (a.end_offset > in.size()) std::abort();
        std::uint64_t previous_end = 0;
        for (const auto& e : a.entries) {
            if (e.first_header_offset < previous_end || e.first_header_offset > e.header_offset) std::abort();
            if (e.header_offset + 512 > in.size() || e.data_offset < e.header_offset + 512) std::abort();
            if (e.data_offset > in.size() || e.size > in.size() - e.data_offset) std::abort();
            if (f::tar_entry_data(in, e).size() != e.size) std::abort();
            if (e.type == f::tar_entry_type::sparse) {
                try {
                    if (f::tar_sparse_content(in, e, 1u << 20).size() != e.sparse_size) std::abort();
                } catch (const vyre::error&) {
                }
            }
            previous_end = e.data_offset + e.size;
        }
    }
    // A prefix (what a window of a streamed archive holds): its entries are the whole archive's
    // first ones, each ending with its padding before end_offset, which lies inside the prefix.
    const auto prefix = in.first(in.size() - in.size() / 3);
    f::tar_archive p;
    try {
        p = f::parse_tar_prefix(prefix);
    } catch (const vyre::format_error&) {
        return;
    }
    if (p.end_offset > prefix.size()) std::abort();
    for (std::size_t i = 0; i < p.entries.size(); ++i) {
        const auto& e = p.entries[i];
        if (e.data_offset > p.end_offset || (e.size + 511) / 512 * 512 > p.end_offset - e.data_offset) std::abort();
        if (whole && (i >= a.entries.size() || a.entries[i].header_offset != e.header_offset || a.entries[i].size != e.size ||
                      a.entries[i].name != e.name))
            std::abort();
    }
    if (!p.cut_short && whole && p.entries.size() != a.entries.size() && p.end_marker) std::abort();
}

void page_file(std::span<const std::uint8_t> in) {
    f::page_file_view v;
    try {
        v = f::parse_page_file(in);
    } catch (const vyre::format_error&) {
        return;
    }
    for (std::size_t i = 0; i < v.records.size(); ++i) {
        const auto b = v.block(i);
        if (b.data() < in.data() || b.data() + b.size() > in.data() + in.size()) std::abort();
    }
    constexpr std::uint64_t limit = std::uint64_t{1} << 20;
    try {
        const auto out = vyre::engine::decompress_page_file_host(v, limit);
        if (out.size() != v.content_bytes() || out.size() > limit) std::abort();
    } catch (const vyre::error&) {
    }
}

void graphs(std::span<const std::uint8_t> in) {
    try {
        vyre::graph::read_csr_binary(in).validate();
    } catch (const vyre::error&) {
    }
    vyre::graph::text_read_options opt;
    opt.max_nodes = 1u << 16;
    try {
        const auto lg = vyre::graph::read_graph_text(std::string_view(reinterpret_cast<const char*>(in.data()), in.size()), opt);
        lg.graph.validate();
        if (lg.graph.node_count() > opt.max_nodes) std::abort();
        if (vyre::graph::read_graph_text(vyre::graph::write_graph_text(lg), opt) != lg) std::abort();
    } catch (const vyre::error&) {
    }
}

vyre::graph::labeled_graph small_graph() {
    vyre::graph::labeled_graph lg;
    lg.graph.offsets = {0, 1, 2, 2};
    lg.graph.targets = {1, 2};
    lg.graph.node_data = {0, 0, 0};
    lg.node_names = {"getenv_QUERY", "escape_html", "system"};
    return lg;
}

void taint_rules(std::span<const std::uint8_t> in) {
    const std::string text(reinterpret_cast<const char*>(in.data()), in.size());
    const auto lines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    vyre::engine::taint_rules rules;
    try {
        rules = vyre::engine::parse_taint_rules(text, "fuzz.toml");
    } catch (const vyre::engine::rules_error& e) {
        if (e.file() != "fuzz.toml" || e.line() > lines) std::abort();
        return;
    }
    static const vyre::graph::labeled_graph lg = small_graph();
    try {
        const auto setup = vyre::engine::apply_taint_rules(lg, rules);
        setup.graph.validate();
        if (!setup.transfer) std::abort();
    } catch (const vyre::engine::rules_error&) {
    } catch (const vyre::validation_error&) {
    }
}

void round_trips(std::span<const std::uint8_t> in) {
    if (in.empty()) return;
    std::vector<std::uint8_t> packed(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(in.size()))));
    const int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(packed.data()),
                                       static_cast<int>(in.size()), static_cast<int>(packed.size()));
    if (n <= 0) std::abort();
    std::vector<std::uint8_t> back(in.size());
    const auto st = vyre::reference::lz4_decompress_block(std::span(packed).first(static_cast<std::size_t>(n)), back);
    if (st.code != vyre::compression::lz4_error::none || st.output_size != in.size() || back != std::vector(in.begin(), in.end()))
        std::abort();

    constexpr std::uint32_t page = 1024;
    std::vector<std::uint8_t> pages(in.begin(), in.end());
    pages.resize((pages.size() + page - 1) / page * page, 0);
    std::vector<std::uint8_t> slots(pages.size());
    const auto records = vyre::reference::lz4_compress_pages(pages, page, slots);
    const auto file = f::write_page_file(page, records, [&](std::size_t i) {
        return std::span<const std::uint8_t>(slots).subspan(i * page, records[i].length);
    });
    if (vyre::engine::decompress_page_file_host(f::parse_page_file(file), pages.size()) != pages) std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::span<const std::uint8_t> in(data + 1, size - 1);
    switch (data[0] % 7) {
    case 0: lz4_frames(in); break;
    case 1: lz4_block(in); break;
    case 2: tar(in); break;
    case 3: page_file(in); break;
    case 4: graphs(in); break;
    case 5: taint_rules(in); break;
    default: round_trips(in); break;
    }
    return 0;
}
