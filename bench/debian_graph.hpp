// Debian package dependency graphs from apt's Packages indexes (deb822 stanzas): a real
// supply-chain reachability graph for bench_graph and bench_dataflow ("which packages
// transitively depend on X?").
#pragma once

// A node per package name (real packages, and names only mentioned: virtual packages and
// missing dependencies). Edges, from dependent to dependency:
//   Package P, Depends / Pre-Depends "a (>= 1) | b:any [amd64] <!nocheck>, c"  ->  P->a, P->b, P->c
//     (every alternative: any of them may be what gets installed);
//   Package P, Provides "v (= 2)"  ->  v->P (depending on a virtual package reaches its providers).
// Versions, architecture qualifiers and restriction lists are dropped; duplicate edges merged.
// Several indexes (main, updates, security) merge by name. Input is untrusted text: anything
// that does not parse is skipped, never an error. All labels are `normal`.

#include <vyre/graph/csr.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vyre::bench {

struct package_graph {
    vyre::graph::csr_graph graph;
    std::vector<std::string> names; // node id -> package name
    std::size_t stanzas = 0;        // package records read (a name in several indexes counts each time)
    std::size_t packages = 0;       // distinct names that have a record

    // The node of a package name, or node_count() when absent.
    std::uint32_t find(std::string_view name) const {
        const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), name,
                                         [&](std::uint32_t id, std::string_view n) { return names[id] < n; });
        return it != sorted_.end() && names[*it] == name ? *it : graph.node_count();
    }

private:
    friend class package_graph_builder;
    std::vector<std::uint32_t> sorted_; // node ids in name order
};

class package_graph_builder {
public:
    // Adds every stanza of one Packages index (already decompressed).
    void add_index(std::string_view text) {
        stanza s;
        const std::string_view* field = nullptr; // the field a continuation line belongs to
        for (std::size_t pos = 0; pos < text.size();) {
            const std::size_t end = std::min(text.find('\n', pos), text.size());
            std::string_view line = text.substr(pos, end - pos);
            pos = end + 1;
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (line.find_first_not_of(" \t") == std::string_view::npos) { // blank: end of stanza
                finish(s);
                s = {};
                field = nullptr;
            } else if (line.front() == ' ' || line.front() == '\t') {
                if (field) continuation_.emplace_back(field, line); // a folded value
            } else {
                const std::size_t colon = line.find(':');
                field = nullptr;
                if (colon == std::string_view::npos) continue;
                const std::string_view name = line.substr(0, colon), value = line.substr(colon + 1);
                if (name == "Package") s.package = trim(value);
                else if (name == "Depends") field = &(s.depends = value);
                else if (name == "Pre-Depends") field = &(s.pre_depends = value);
                else if (name == "Provides") field = &(s.provides = value);
            }
        }
        finish(s);
    }

    package_graph build() {
        package_graph out;
        out.stanzas = stanzas_;
        out.packages = with_record_.size();
        std::sort(edges_.begin(), edges_.end());
        edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
        out.graph = vyre::graph::to_csr(static_cast<std::uint32_t>(names_.size()), edges_);
        out.names = names_;
        out.sorted_.resize(names_.size());
        for (std::uint32_t i = 0; i < out.sorted_.size(); ++i) out.sorted_[i] = i;
        std::sort(out.sorted_.begin(), out.sorted_.end(), [&](std::uint32_t a, std::uint32_t b) { return names_[a] < names_[b]; });
        return out;
    }

private:
    struct stanza {
        std::string_view package, depends, pre_depends, provides;
    };

    static std::string_view trim(std::string_view s) {
        const std::size_t a = s.find_first_not_of(" \t");
        if (a == std::string_view::npos) return {};
        const std::size_t b = s.find_last_not_of(" \t");
        return s.substr(a, b - a + 1);
    }

    // "libfoo1:any (>= 2) [amd64]" -> "libfoo1"; empty when no name is there.
    static std::string_view package_name(std::string_view item) {
        item = trim(item);
        const std::size_t end = item.find_first_of(" \t(:[<");
        return trim(item.substr(0, end));
    }

    std::uint32_t node(std::string_view name) {
        const auto [it, added] = ids_.try_emplace(std::string(name), static_cast<std::uint32_t>(names_.size()));
        if (added) names_.emplace_back(name);
        return it->second;
    }

    // Each alternative of each comma-separated relation of `value` (and its folded lines).
    template <class F>
    void relations(std::string_view value, const std::string_view* field, F f) {
        auto one_line = [&](std::string_view v) {
            while (!v.empty()) {
                const std::size_t comma = std::min(v.find(','), v.size());
                std::string_view rel = v.substr(0, comma);
                v = comma < v.size() ? v.substr(comma + 1) : std::string_view{};
                while (!rel.empty()) {
                    const std::size_t bar = std::min(rel.find('|'), rel.size());
                    const std::string_view name = package_name(rel.substr(0, bar));
                    rel = bar < rel.size() ? rel.substr(bar + 1) : std::string_view{};
                    if (!name.empty()) f(name);
                }
            }
        };
        one_line(value);
        for (const auto& [owner, line] : continuation_)
            if (owner == field) one_line(line);
    }

    void finish(stanza& s) {
        if (!s.package.empty()) {
            ++stanzas_;
            const std::uint32_t p = node(s.package);
            with_record_.try_emplace(p, true);
            relations(s.depends, &s.depends, [&](std::string_view d) { edges_.push_back({p, node(d)}); });
            relations(s.pre_depends, &s.pre_depends, [&](std::string_view d) { edges_.push_back({p, node(d)}); });
            relations(s.provides, &s.provides, [&](std::string_view v) { edges_.push_back({node(v), p}); });
        }
        continuation_.clear();
    }

    std::unordered_map<std::string, std::uint32_t> ids_;
    std::unordered_map<std::uint32_t, bool> with_record_;
    std::vector<std::string> names_;
    std::vector<vyre::graph::edge> edges_;
    std::vector<std::pair<const std::string_view*, std::string_view>> continuation_;
    std::size_t stanzas_ = 0;
};

} // namespace vyre::bench
