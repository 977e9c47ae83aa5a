// Graph files: a line-oriented text edge list with node roles and names (for people and taint
// reports) and a little-endian binary CSR image (for speed). Both readers treat input as hostile.
//
// Text format, version 1 (UTF-8; '\n' ends a line, a '\r' before it is ignored):
//
//     # comment: '#' at the start of a token runs to the end of the line
//     vyre-graph 1                  first directive: format name and version
//     nodes 6                       node count, exactly once, before any node or edge line
//     node 0 source req.query       node <id> <role> [name]
//     node 4 0x00020007 eval        role: normal|source|sink|source+sink|sanitizer, or a whole
//                                   label word (decimal or 0x hex) when its other bits matter
//     edge 0 1                      edge <source> <target> [kind]
//     edge 1 4 call
//
// Tokens are separated by spaces or tabs; a name or kind is one token of non-space, non-control
// bytes not starting with '#'. Nodes without a `node` line are normal and unnamed; a node may be
// described once. Edges keep their file order within each source node. Every error is a
// format_error naming the line and carrying the byte offset of the offending token.
//
// Binary format, version 1 (all integers little-endian):
//
//     offset  size                 field
//     0       8                    magic "VYRECSR\0"
//     8       4                    version = 1
//     12      4                    node_count (n)
//     16      8                    edge_count (e), at most 2^32-1
//     24      4 * (n + 1)          offsets
//     ...     4 * e                targets
//     ...     4 * n                node_data
//
// The file size must equal 24 + 4 * (2n + 1 + e) exactly; that is checked before anything is
// allocated, so a hostile count cannot make the reader allocate more than the input's size. The
// arrays must then pass csr_graph::validate(); a violation is reported at its byte offset.
#pragma once

#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/util/little_endian.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::graph {

// A graph with what only the text format carries. node_names: empty, or one per node ("" for
// unnamed). edge_kinds: empty, or one per entry of graph.targets ("" for none).
struct labeled_graph {
    csr_graph graph;
    std::vector<std::string> node_names;
    std::vector<std::string> edge_kinds;
    friend bool operator==(const labeled_graph&, const labeled_graph&) = default;
};

struct text_read_options {
    // Bounds memory for a hostile `nodes` line: the reader allocates about 40 bytes per node
    // (offsets, labels, and names once any node is named).
    std::uint32_t max_nodes = 1u << 24;
};

inline constexpr std::string_view text_magic = "vyre-graph";
inline constexpr std::uint32_t text_version = 1;
inline constexpr std::array<std::uint8_t, 8> binary_magic = {'V', 'Y', 'R', 'E', 'C', 'S', 'R', 0};
inline constexpr std::uint32_t binary_version = 1;
inline constexpr std::size_t binary_header_size = 24;

namespace detail {

struct token {
    std::string_view text;
    std::uint64_t offset; // byte offset in the whole input
};

[[noreturn]] inline void text_error(std::uint64_t line, std::uint64_t offset, const std::string& what) {
    throw format_error("graph text line " + std::to_string(line) + ": " + what, offset);
}

// A name or kind the format can carry: one token, no control bytes, not a comment.
inline bool is_word(std::string_view s) noexcept {
    if (s.empty() || s.front() == '#') return false;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u == 0x7f) return false;
    }
    return true;
}

// Splits one line (without its '\n') into tokens, dropping a comment; control bytes other than
// tab are an error, so binary junk is named rather than half-parsed.
inline std::vector<token> tokenize(std::string_view line, std::uint64_t line_offset, std::uint64_t line_no) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::vector<token> out;
    std::size_t i = 0;
    while (i < line.size()) {
        const auto u = static_cast<unsigned char>(line[i]);
        if (u == ' ' || u == '\t') { ++i; continue; }
        if (u < 0x20 || u == 0x7f)
            text_error(line_no, line_offset + i, "control byte " + std::to_string(u) + " in line");
        if (line[i] == '#') break;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') {
            const auto c = static_cast<unsigned char>(line[j]);
            if (c < 0x20 || c == 0x7f) text_error(line_no, line_offset + j, "control byte " + std::to_string(c) + " in line");
            ++j;
        }
        out.push_back({line.substr(i, j - i), line_offset + i});
        i = j;
    }
    return out;
}

// Decimal or 0x-prefixed hex u32; the whole token must be the number.
inline bool parse_u32(std::string_view s, std::uint32_t& value) noexcept {
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    if (s.empty()) return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
    return ec == std::errc() && end == s.data() + s.size();
}

class text_reader {
public:
    explicit text_reader(const text_read_options& opt) : opt_(opt) {}

    void line(std::span<const token> t, std::uint64_t line_no) {
        line_ = line_no;
        if (t.empty()) return;
        const std::string_view d = t[0].text;
        if (!seen_magic_) return magic(t);
        if (d == "nodes") return nodes(t);
        if (d == "node") return node(t);
        if (d == "edge") return edge_line(t);
        if (d == text_magic) fail(t[0], "'vyre-graph' may appear only once, as the first directive");
        fail(t[0], "unknown directive '" + std::string(d) + "' (expected nodes, node or edge)");
    }

    labeled_graph finish(std::uint64_t end_offset) {
        if (!seen_magic_) end_error(end_offset, "no 'vyre-graph 1' line (the text is empty or only comments)");
        if (!seen_nodes_) end_error(end_offset, "missing 'nodes <count>' line");
        labeled_graph out;
        out.graph = try_to_csr(node_count_, edges_, labels_);
        out.node_names = std::move(names_);
        if (any_kind_) {
            // Same stable placement as to_csr, so kinds line up with graph.targets.
            out.edge_kinds.resize(edges_.size());
            std::vector<std::uint32_t> cursor(out.graph.offsets.begin(), out.graph.offsets.end() - 1);
            for (std::size_t i = 0; i < edges_.size(); ++i)
                out.edge_kinds[cursor[edges_[i].source]++] = std::move(kinds_[i]);
        }
        return out;
    }

private:
    [[noreturn]] void fail(const token& at, const std::string& what) const { text_error(line_, at.offset, what); }

    [[noreturn]] void end_error(std::uint64_t end_offset, const std::string& what) const {
        throw format_error("graph text, end of input after line " + std::to_string(line_) + ": " + what, end_offset);
    }

    void arity(std::span<const token> t, std::size_t lo, std::size_t hi, const char* usage) const {
        if (t.size() < lo) fail(t.back(), std::string("too few fields, expected '") + usage + "'");
        if (t.size() > hi) fail(t[hi], std::string("unexpected field '") + std::string(t[hi].text) + "', expected '" + usage + "'");
    }

    std::uint32_t number(const token& at, const char* what) const {
        std::uint32_t v = 0;
        if (!parse_u32(at.text, v))
            fail(at, std::string(what) + " '" + std::string(at.text) + "' is not a u32 (decimal or 0x hex)");
        return v;
    }

    std::uint32_t node_id(const token& at, const char* what) const {
        if (!seen_nodes_) fail(at, "'nodes <count>' must come before node and edge lines");
        const std::uint32_t v = number(at, what);
        if (v >= node_count_)
            fail(at, std::string(what) + " " + std::to_string(v) + " is not a node: 'nodes' declared " +
                         std::to_string(node_count_) + ", valid range [0, " + std::to_string(node_count_) + ")");
        return v;
    }

    void magic(std::span<const token> t) {
        if (t[0].text != text_magic) fail(t[0], "expected 'vyre-graph 1' as the first directive, found '" + std::string(t[0].text) + "'");
        arity(t, 2, 2, "vyre-graph 1");
        if (number(t[1], "version") != text_version)
            fail(t[1], "unsupported version " + std::string(t[1].text) + " (this reader knows version 1)");
        seen_magic_ = true;
    }

    void nodes(std::span<const token> t) {
        arity(t, 2, 2, "nodes <count>");
        if (seen_nodes_) fail(t[0], "'nodes' appears twice");
        const std::uint32_t n = number(t[1], "node count");
        if (n > opt_.max_nodes)
            fail(t[1], "node count " + std::to_string(n) + " exceeds the reader's limit of " +
                           std::to_string(opt_.max_nodes) + " (text_read_options::max_nodes)");
        node_count_ = n;
        labels_.assign(n, 0);
        described_.assign(n, false);
        seen_nodes_ = true;
    }

    void node(std::span<const token> t) {
        arity(t, 3, 4, "node <id> <role> [name]");
        const std::uint32_t id = node_id(t[1], "node id");
        if (described_[id]) fail(t[1], "node " + std::to_string(id) + " is described twice");
        described_[id] = true;
        if (const auto r = parse_role(t[2].text)) labels_[id] = make_label(*r);
        else if (!parse_u32(t[2].text, labels_[id]))
            fail(t[2], "role '" + std::string(t[2].text) +
                           "' is neither normal, source, sink, source+sink, sanitizer nor a u32 label");
        if (t.size() == 4) {
            if (names_.empty()) names_.resize(node_count_);
            names_[id] = std::string(t[3].text);
        }
    }

    void edge_line(std::span<const token> t) {
        arity(t, 3, 4, "edge <source> <target> [kind]");
        const std::uint32_t s = node_id(t[1], "edge source");
        const std::uint32_t d = node_id(t[2], "edge target");
        edges_.push_back({s, d});
        kinds_.emplace_back(t.size() == 4 ? t[3].text : std::string_view{});
        any_kind_ = any_kind_ || t.size() == 4;
    }

    text_read_options opt_;
    std::uint64_t line_ = 0;
    bool seen_magic_ = false, seen_nodes_ = false, any_kind_ = false;
    std::uint32_t node_count_ = 0;
    std::vector<std::uint32_t> labels_;
    std::vector<bool> described_;
    std::vector<std::string> names_, kinds_;
    std::vector<edge> edges_;
};

inline void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) { util::append_le(out, v, 4); }

inline std::uint64_t get_le(std::span<const std::uint8_t> in, std::size_t at, int bytes) noexcept {
    return util::read_le(in, at, static_cast<unsigned>(bytes));
}

inline std::string role_field(std::uint32_t label) {
    if ((label & ~role_mask) == 0 && has_known_role(label)) return std::string(to_string(role_of(label)));
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(label));
    return buf;
}

inline void check_words(std::span<const std::string> words, std::size_t expected, const char* what) {
    if (!words.empty() && words.size() != expected)
        throw validation_error(std::string("write_graph_text: ") + what + " has " + std::to_string(words.size()) +
                               " entries, expected 0 or " + std::to_string(expected));
    for (std::size_t i = 0; i < words.size(); ++i)
        if (!words[i].empty() && !is_word(words[i]))
            throw validation_error(std::string("write_graph_text: ") + what + "[" + std::to_string(i) + "] = '" +
                                   words[i] + "' is not one token (no spaces or control bytes, no leading '#')");
}

} // namespace detail

inline labeled_graph read_graph_text(std::string_view text, const text_read_options& opt = {}) {
    detail::text_reader reader(opt);
    std::uint64_t line_no = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t eol = std::min(text.find('\n', pos), text.size());
        ++line_no;
        const auto tokens = detail::tokenize(text.substr(pos, eol - pos), pos, line_no);
        reader.line(tokens, line_no);
        pos = eol + 1;
    }
    return reader.finish(text.size());
}

inline std::string write_graph_text(const labeled_graph& lg) {
    const csr_graph& g = lg.graph;
    g.validate();
    detail::check_words(lg.node_names, g.node_count(), "node_names");
    detail::check_words(lg.edge_kinds, g.edge_count(), "edge_kinds");
    std::string out = std::string(text_magic) + " " + std::to_string(text_version) + "\nnodes " +
                      std::to_string(g.node_count()) + "\n";
    for (std::uint32_t n = 0; n < g.node_count(); ++n) {
        const bool named = !lg.node_names.empty() && !lg.node_names[n].empty();
        if (g.node_data[n] == 0 && !named) continue;
        out += "node " + std::to_string(n) + " " + detail::role_field(g.node_data[n]);
        if (named) out += " " + lg.node_names[n];
        out += "\n";
    }
    for (std::uint32_t n = 0; n < g.node_count(); ++n)
        for (std::uint32_t k = g.offsets[n]; k < g.offsets[n + 1]; ++k) {
            out += "edge " + std::to_string(n) + " " + std::to_string(g.targets[k]);
            if (!lg.edge_kinds.empty() && !lg.edge_kinds[k].empty()) out += " " + lg.edge_kinds[k];
            out += "\n";
        }
    return out;
}

inline std::vector<std::uint8_t> write_csr_binary(const csr_graph& g) {
    g.validate();
    std::vector<std::uint8_t> out(binary_magic.begin(), binary_magic.end());
    out.reserve(binary_header_size + 4 * (g.offsets.size() + g.targets.size() + g.node_data.size()));
    detail::put_u32(out, binary_version);
    detail::put_u32(out, g.node_count());
    detail::put_u32(out, static_cast<std::uint32_t>(g.edge_count()));
    detail::put_u32(out, 0); // high half of the u64 edge count
    for (const auto* a : {&g.offsets, &g.targets, &g.node_data})
        for (const std::uint32_t v : *a) detail::put_u32(out, v);
    return out;
}

inline bool is_csr_binary(std::span<const std::uint8_t> bytes) noexcept {
    return bytes.size() >= binary_magic.size() && std::equal(binary_magic.begin(), binary_magic.end(), bytes.begin());
}

inline csr_graph read_csr_binary(std::span<const std::uint8_t> in) {
    if (in.size() < binary_header_size)
        throw format_error("graph binary: " + std::to_string(in.size()) + " bytes is shorter than the " +
                               std::to_string(binary_header_size) + "-byte header",
                           in.size());
    if (!is_csr_binary(in)) throw format_error("graph binary: bad magic, expected \"VYRECSR\\0\"", 0);
    const std::uint64_t version = detail::get_le(in, 8, 4);
    if (version != binary_version)
        throw format_error("graph binary: unsupported version " + std::to_string(version) + " (this reader knows 1)", 8);
    const std::uint64_t n = detail::get_le(in, 12, 4);
    const std::uint64_t e = detail::get_le(in, 16, 8);
    if (e > max_edges)
        throw format_error("graph binary: edge_count " + std::to_string(e) + " exceeds u32 offsets (at most " +
                               std::to_string(max_edges) + ")",
                           16);
    const std::uint64_t expected = binary_header_size + 4 * (2 * n + 1 + e); // < 2^37: no overflow
    if (in.size() != expected)
        throw format_error("graph binary: node_count " + std::to_string(n) + " and edge_count " + std::to_string(e) +
                               " need a file of exactly " + std::to_string(expected) + " bytes, but it has " +
                               std::to_string(in.size()),
                           std::min<std::uint64_t>(in.size(), expected));
    const std::uint64_t base[3] = {binary_header_size, binary_header_size + 4 * (n + 1),
                                   binary_header_size + 4 * (n + 1 + e)};
    csr_graph g;
    std::vector<std::uint32_t>* arrays[3] = {&g.offsets, &g.targets, &g.node_data};
    const std::uint64_t sizes[3] = {n + 1, e, n};
    for (int a = 0; a < 3; ++a) {
        arrays[a]->resize(sizes[a]);
        for (std::uint64_t i = 0; i < sizes[a]; ++i)
            (*arrays[a])[i] = static_cast<std::uint32_t>(detail::get_le(in, base[a] + 4 * i, 4));
    }
    if (const auto v = first_violation(g))
        throw format_error("graph binary: " + v->message, base[static_cast<int>(v->array)] + 4 * v->index);
    return g;
}

// Whole-file helpers. load_graph recognises the binary magic and reads anything else as text.
inline std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw error("cannot open graph file '" + path.string() + "'");
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (f.bad()) throw error("cannot read graph file '" + path.string() + "'");
    return bytes;
}

inline labeled_graph load_graph(const std::filesystem::path& path, const text_read_options& opt = {}) {
    const auto bytes = read_file_bytes(path);
    if (is_csr_binary(bytes)) return {read_csr_binary(bytes), {}, {}};
    return read_graph_text(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), opt);
}

inline void write_file_bytes(const std::filesystem::path& path, std::string_view bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f || !f.write(bytes.data(), static_cast<std::streamsize>(bytes.size())))
        throw error("cannot write graph file '" + path.string() + "'");
}

inline void save_graph_text(const std::filesystem::path& path, const labeled_graph& lg) {
    write_file_bytes(path, write_graph_text(lg));
}

inline void save_csr_binary(const std::filesystem::path& path, const csr_graph& g) {
    const auto bytes = write_csr_binary(g);
    write_file_bytes(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

} // namespace vyre::graph
