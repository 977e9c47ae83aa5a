// Taint rules in TOML: which named nodes are sources, sinks and sanitizers, which transfer
// function runs with which parameters, and default limits. Rules only change the engine's inputs
// (node roles, edge kinds, parameters); they never change a program. Parsed with toml++.
//
// Schema, version 1 (every key optional; doc/engine/dataflow.md has the full text):
//
//     version = 1
//     [sources]     labels = ["QUERY_STRING"]      patterns = ["getenv*"]
//     [sinks]       labels = ["system"]            patterns = ["exec*"]
//     [sanitizers]  labels = ["shell_quote"]       patterns = ["*escape*"]
//     [transfer]    function = "edge_kind_mask"    # allow_all | block_sanitizers (default) | edge_kind_mask
//                   edge_kinds = ["data", ""]      # edge_kind_mask: kinds that carry facts ("" = edges without a kind)
//                   sanitizers_block = true        # edge_kind_mask: sanitizers stop facts too (default true)
//                   params = [0, 0, 0, 0]          # edge_kind_mask: p0..p3 as raw u32 (instead of edge_kinds / sanitizers_block)
//                   # sanitizers_block or params with another function: a warning (in taint_rules::warnings), no effect
//     [limits]      max_depth = 64                 max_findings = 1048576
//
// labels match a node's name exactly; patterns are globs ('*' any run, '?' one byte). A rule
// adds a role to the nodes it matches (source and sink together make source+sink); a sanitizer,
// from the rules or from the graph file, wins over both. Every error is a rules_error naming the
// file, the line of the offending key or value, and the key.
#pragma once

#include <vyre/engine/dataflow.hpp>
#include <vyre/error.hpp>
#include <vyre/graph/io.hpp>
#include <vyre/graph/labels.hpp>

// toml++, carried in the tree (third_party/toml++/README.md says which version and why).
#include <vyre/third_party/toml++/toml.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vyre::engine {

// A rule file problem: file, line (0 when it has none, e.g. an unreadable file) and key.
class rules_error : public validation_error {
public:
    rules_error(std::string file, std::uint64_t line, std::string key, const std::string& what)
        : validation_error(file + ":" + std::to_string(line) + ": " + (key.empty() ? "" : "key '" + key + "': ") + what),
          file_(std::move(file)), line_(line), key_(std::move(key)) {}
    const std::string& file() const noexcept { return file_; }
    std::uint64_t line() const noexcept { return line_; }
    const std::string& key() const noexcept { return key_; }

private:
    std::string file_;
    std::uint64_t line_;
    std::string key_;
};

struct name_rules {
    std::vector<std::string> labels;   // exact names
    std::vector<std::string> patterns; // globs
};

struct taint_rules {
    std::string file;
    name_rules sources, sinks, sanitizers;
    std::string transfer = "block_sanitizers";
    std::optional<std::vector<std::string>> edge_kinds; // edge_kind_mask: kinds that carry facts
    bool sanitizers_block = true;
    std::optional<transfer_params> params;              // raw p0..p3
    std::optional<std::uint32_t> max_depth, max_findings;
    std::vector<std::string> warnings; // "FILE:LINE: key 'K': ..." for keys that are valid but have no effect
};

// '*' matches any run of bytes, '?' one byte; everything else itself.
inline bool glob_match(std::string_view pattern, std::string_view text) noexcept {
    std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) { ++p; ++t; }
        else if (p < pattern.size() && pattern[p] == '*') { star = p++; mark = t; }
        else if (star != std::string_view::npos) { p = star + 1; t = ++mark; }
        else return false;
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

inline bool matches(const name_rules& r, std::string_view name) {
    if (name.empty()) return false;
    for (const auto& l : r.labels)
        if (l == name) return true;
    for (const auto& p : r.patterns)
        if (glob_match(p, name)) return true;
    return false;
}

namespace detail {

class rules_reader {
public:
    explicit rules_reader(std::string file) : file_(std::move(file)) {}

    taint_rules read(std::string_view text) {
        toml::table root;
        try {
            root = toml::parse(text, file_);
        } catch (const toml::parse_error& e) {
            throw rules_error(file_, e.source().begin.line, "", std::string("TOML syntax: ") + std::string(e.description()));
        }
        taint_rules r;
        r.file = file_;
        for (auto&& [key, node] : root) {
            const std::string k(key.str());
            if (k == "version") version(node, k);
            else if (k == "sources") names(node, k, r.sources);
            else if (k == "sinks") names(node, k, r.sinks);
            else if (k == "sanitizers") names(node, k, r.sanitizers);
            else if (k == "transfer") transfer(node, k, r);
            else if (k == "limits") limits(node, k, r);
            else fail(node, k, "unknown key (expected version, sources, sinks, sanitizers, transfer or limits)");
        }
        return r;
    }

private:
    [[noreturn]] void fail(const toml::node& at, const std::string& key, const std::string& what) const {
        throw rules_error(file_, at.source().begin.line, key, what);
    }

    const toml::table& table(const toml::node& n, const std::string& key) const {
        if (const auto* t = n.as_table()) return *t;
        fail(n, key, "expected a table ([" + key + "])");
    }

    std::uint32_t u32(const toml::node& n, const std::string& key) const {
        const auto* i = n.as_integer();
        if (!i) fail(n, key, "expected an integer");
        const std::int64_t v = i->get();
        if (v < 0 || v > std::int64_t{std::numeric_limits<std::uint32_t>::max()})
            fail(n, key, "value " + std::to_string(v) + " is outside [0, 4294967295]");
        return static_cast<std::uint32_t>(v);
    }

    std::vector<std::string> strings(const toml::node& n, const std::string& key) const {
        const auto* a = n.as_array();
        if (!a) fail(n, key, "expected an array of strings");
        std::vector<std::string> out;
        for (std::size_t i = 0; i < a->size(); ++i) {
            const auto* s = (*a)[i].as_string();
            if (!s) fail((*a)[i], key + "[" + std::to_string(i) + "]", "expected a string");
            out.push_back(s->get());
        }
        return out;
    }

    void version(const toml::node& n, const std::string& key) const {
        if (u32(n, key) != 1) fail(n, key, "unsupported rules version (this reader knows 1)");
    }

    void names(const toml::node& n, const std::string& key, name_rules& out) const {
        for (auto&& [k, v] : table(n, key)) {
            const std::string full = key + "." + std::string(k.str());
            if (k.str() == "labels") out.labels = strings(v, full);
            else if (k.str() == "patterns") out.patterns = strings(v, full);
            else fail(v, full, "unknown key (expected labels or patterns)");
        }
    }

    void transfer(const toml::node& n, const std::string& key, taint_rules& r) const {
        // Where each key was given, so that errors and warnings about them name their own line
        // (toml++ tables iterate in key order, not file order: the checks come after the loop).
        const toml::node *edge_kinds_at = nullptr, *params_at = nullptr, *sanitizers_block_at = nullptr;
        for (auto&& [k, v] : table(n, key)) {
            const std::string full = key + "." + std::string(k.str());
            if (k.str() == "function") {
                const auto* s = v.as_string();
                if (!s) fail(v, full, "expected a string");
                if (!transfers::find(s->get()))
                    fail(v, full, "unknown transfer function '" + s->get() + "' (allow_all, block_sanitizers or edge_kind_mask)");
                r.transfer = s->get();
            } else if (k.str() == "edge_kinds") {
                r.edge_kinds = strings(v, full);
                edge_kinds_at = &v;
            } else if (k.str() == "sanitizers_block") {
                const auto* b = v.as_boolean();
                if (!b) fail(v, full, "expected true or false");
                r.sanitizers_block = b->get();
                sanitizers_block_at = &v;
            } else if (k.str() == "params") {
                params_at = &v;
                const auto* a = v.as_array();
                if (!a || a->size() != 4) fail(v, full, "expected an array of 4 integers (p0, p1, p2, p3)");
                transfer_params p{};
                for (std::size_t i = 0; i < 4; ++i) p[i] = u32((*a)[i], full + "[" + std::to_string(i) + "]");
                r.params = p;
            } else {
                fail(v, full, "unknown key (expected function, edge_kinds, sanitizers_block or params)");
            }
        }
        if (params_at && edge_kinds_at) {
            // Name whichever of the two comes second in the file: the one that conflicts.
            const bool params_later = line_of(*params_at) >= line_of(*edge_kinds_at);
            fail(params_later ? *params_at : *edge_kinds_at, key + (params_later ? ".params" : ".edge_kinds"),
                 "give either params or edge_kinds, not both (edge_kinds sets p0)");
        }
        if (edge_kinds_at && r.transfer != "edge_kind_mask")
            fail(*edge_kinds_at, key + ".edge_kinds",
                 "edge_kinds needs function = \"edge_kind_mask\" (it is '" + r.transfer + "')");
        // Only edge_kind_mask reads p0..p3: elsewhere these keys would be silently ignored.
        if (r.transfer != "edge_kind_mask") {
            for (const auto& [at, name] : {std::pair{sanitizers_block_at, "sanitizers_block"}, std::pair{params_at, "params"}})
                if (at)
                    r.warnings.push_back(file_ + ":" + std::to_string(line_of(*at)) + ": key '" + key + "." + name +
                                         "': ignored: only function = \"edge_kind_mask\" reads it (it is '" + r.transfer + "')");
        }
    }

    static std::uint64_t line_of(const toml::node& n) noexcept { return n.source().begin.line; }

    void limits(const toml::node& n, const std::string& key, taint_rules& r) const {
        for (auto&& [k, v] : table(n, key)) {
            const std::string full = key + "." + std::string(k.str());
            if (k.str() == "max_depth") r.max_depth = u32(v, full);
            else if (k.str() == "max_findings") {
                r.max_findings = u32(v, full);
                if (*r.max_findings == 0) fail(v, full, "must be at least 1");
            } else fail(v, full, "unknown key (expected max_depth or max_findings)");
        }
    }

    std::string file_;
};

} // namespace detail

// Parses rules text; `file` names it in errors.
inline taint_rules parse_taint_rules(std::string_view text, const std::string& file = "<rules>") {
    return detail::rules_reader(file).read(text);
}

inline taint_rules load_taint_rules(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw rules_error(path.string(), 0, "", "cannot open the rules file");
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return parse_taint_rules(text, path.string());
}

// A graph and rules turned into the engine's inputs.
struct taint_setup {
    graph::csr_graph graph;                  // roles from the file, then the rules
    std::vector<std::uint32_t> edge_kinds;   // one id per edge (empty when the file names no kinds)
    std::vector<std::string> kind_names;     // id -> name; id 0 is "" (no kind)
    const transfer_function* transfer = nullptr;
    transfer_params params{};
    std::vector<std::string> warnings;       // the rules' own warnings, rule names that matched nothing, and the like
};

// Applies `rules` to `lg`. Edge kind ids: 0 for edges without a kind, then the distinct names in
// sorted order from 1. edge_kind_mask allows kinds below 32 only, so with it more than 31 named
// kinds is a rules_error (naming transfer.edge_kinds).
inline taint_setup apply_taint_rules(const graph::labeled_graph& lg, const taint_rules& rules) {
    lg.graph.validate();
    taint_setup s;
    s.warnings = rules.warnings;
    s.graph = lg.graph;
    s.transfer = transfers::find(rules.transfer);
    if (!s.transfer) throw rules_error(rules.file, 0, "transfer.function", "unknown transfer function '" + rules.transfer + "'");
    // Roles.
    std::vector<const name_rules*> lists = {&rules.sources, &rules.sinks, &rules.sanitizers};
    std::vector<bool> used_any(3, false);
    if (!lg.node_names.empty()) {
        for (std::uint32_t v = 0; v < s.graph.node_count(); ++v) {
            const std::string& name = lg.node_names[v];
            const bool src = matches(rules.sources, name), snk = matches(rules.sinks, name), san = matches(rules.sanitizers, name);
            used_any[0] = used_any[0] || src;
            used_any[1] = used_any[1] || snk;
            used_any[2] = used_any[2] || san;
            if (!src && !snk && !san) continue;
            std::uint32_t& label = s.graph.node_data[v];
            const bool source = src || graph::is_source(label), sink = snk || graph::is_sink(label);
            const graph::role r = san || graph::is_sanitizer(label) ? graph::role::sanitizer
                                  : source && sink                  ? graph::role::source_and_sink
                                  : source                          ? graph::role::source
                                                                    : graph::role::sink;
            label = graph::make_label(r, label);
        }
    }
    const char* section[] = {"sources", "sinks", "sanitizers"};
    for (int i = 0; i < 3; ++i)
        if (!used_any[i] && (!lists[i]->labels.empty() || !lists[i]->patterns.empty()))
            s.warnings.push_back(std::string("rules [") + section[i] + "] matched no node" +
                                 (lg.node_names.empty() ? " (the graph has no node names)" : ""));
    // Edge kinds.
    s.kind_names = {""};
    if (!lg.edge_kinds.empty()) {
        std::set<std::string> distinct(lg.edge_kinds.begin(), lg.edge_kinds.end());
        distinct.erase("");
        s.kind_names.insert(s.kind_names.end(), distinct.begin(), distinct.end());
        s.edge_kinds.resize(lg.edge_kinds.size());
        for (std::size_t k = 0; k < lg.edge_kinds.size(); ++k)
            s.edge_kinds[k] = static_cast<std::uint32_t>(
                std::lower_bound(s.kind_names.begin() + 1, s.kind_names.end(), lg.edge_kinds[k]) - s.kind_names.begin());
        for (std::size_t k = 0; k < lg.edge_kinds.size(); ++k)
            if (lg.edge_kinds[k].empty()) s.edge_kinds[k] = 0;
    }
    // Parameters.
    if (rules.params) s.params = *rules.params;
    else if (rules.transfer == "edge_kind_mask") {
        if (s.kind_names.size() > 32)
            throw rules_error(rules.file, 0, "transfer.edge_kinds",
                              "the graph has " + std::to_string(s.kind_names.size() - 1) +
                                  " named edge kinds; edge_kind_mask tells at most 31 apart");
        std::uint32_t mask = 0;
        if (!rules.edge_kinds) mask = 0xFFFFFFFFu; // no list: every kind
        else
            for (const std::string& name : *rules.edge_kinds) {
                const auto it = std::find(s.kind_names.begin(), s.kind_names.end(), name);
                if (it == s.kind_names.end()) {
                    s.warnings.push_back("rules transfer.edge_kinds: kind '" + name + "' does not occur in the graph");
                    continue;
                }
                mask |= 1u << (it - s.kind_names.begin());
            }
        s.params = {mask, rules.sanitizers_block ? 1u : 0u, 0, 0};
    }
    return s;
}

} // namespace vyre::engine
