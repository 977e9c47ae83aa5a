// The CPU reference of the scan stage: every match of every pattern form in every entry, found by
// trying each form at each start position (indexed by the form's first byte), in hit order. It
// shares nothing with the device tables (scan/filter_tables.hpp) but the pattern values, so it can
// judge them.
#pragma once

#include <vyre/error.hpp>
#include <vyre/scan/pattern.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::reference {

// Every hit of `patterns` in `entries` of `bytes`, sorted by scan::hit_order. A pattern with two
// forms reports a hit for each form that matches (at different offsets, or the same offset if
// both forms match there).
inline std::vector<scan::hit> scan_hits(std::span<const std::uint8_t> bytes, std::span<const scan::entry_extent> entries,
                                        const std::vector<scan::pattern>& patterns) {
    struct form_ref {
        const scan::byte_pattern* form;
        std::uint32_t pattern;
    };
    // Forms by the byte their first position needs (both cases of a nocase letter; every byte for
    // a first position with a wildcard).
    std::array<std::vector<form_ref>, 256> by_first{};
    for (std::uint32_t p = 0; p < patterns.size(); ++p)
        for (const auto& f : patterns[p].forms) {
            if (f.size() == 0) throw format_error("reference::scan_hits: pattern \"" + patterns[p].name + "\" has an empty form");
            for (unsigned b = 0; b < 256; ++b)
                if ((b & f.mask[0]) == f.value[0]) by_first[b].push_back({&f, p});
        }
    std::vector<scan::hit> hits;
    for (std::uint32_t e = 0; e < entries.size(); ++e) {
        const auto& x = entries[e];
        if (x.offset > bytes.size() || x.size > bytes.size() - x.offset)
            throw format_error("reference::scan_hits: entry " + std::to_string(e) + " leaves the bytes");
        const std::uint8_t* data = bytes.data() + x.offset;
        for (std::uint64_t s = 0; s < x.size; ++s)
            for (const auto& r : by_first[data[s]])
                if (r.form->size() <= x.size - s && r.form->matches_at(data + s)) hits.push_back({e, r.pattern, s});
    }
    std::sort(hits.begin(), hits.end(), scan::hit_order);
    return hits;
}

} // namespace vyre::reference
