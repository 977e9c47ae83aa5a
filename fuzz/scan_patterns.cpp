// The scan stage's host side on arbitrary input: patterns parsed from text (scan::hex_pattern,
// scan::hex_required_piece, scan::literal_lines) give a clear format_error or forms that scan::build_filter_tables accepts;
// and the tables, walked on the CPU exactly as scan.patterns walks them on the device (the three
// atom keys at every position, the filter bit, the bucket, verification at the atom's offset),
// find the same hits as reference::scan_hits. Input: pattern lines, a zero byte, then the data;
// a line starting with '{' is a hex string (with jumps or alternatives: its required piece; the
// piece of a string hex_pattern accepts is the string itself), one starting with "i:" a nocase literal, "w:" an
// ascii-and-wide literal, any other a literal. The data is cut into entries at each 0xff byte.
#include <vyre/reference/scan.hpp>
#include <vyre/scan/filter_tables.hpp>
#include <vyre/scan/pattern.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace vs = vyre::scan;

std::vector<vs::hit> table_hits(const vs::filter_tables& t, std::span<const std::uint8_t> bytes,
                                std::span<const vs::entry_extent> entries) {
    std::vector<vs::hit> out;
    const auto check = [&](std::uint32_t key, std::uint32_t e, const std::uint8_t* data, std::uint64_t size, std::uint64_t p) {
        if (((t.filter[key / 32] >> (key % 32)) & 1u) == 0) return;
        for (std::uint32_t it = t.bucket_start[key]; it < t.bucket_start[key + 1]; ++it) {
            const std::uint32_t form = t.items[it] >> vs::item_offset_bits, atom = t.items[it] & ((1u << vs::item_offset_bits) - 1);
            const std::uint32_t length = t.forms[form * 4 + 2], first = t.forms[form * 4 + 1];
            if (atom > p || length > size - (p - atom)) continue;
            const std::uint64_t start = p - atom;
            bool ok = true;
            for (std::uint32_t j = 0; j < length && ok; ++j) {
                const std::uint32_t m = t.form_bytes[first + j];
                ok = (data[start + j] & (m >> 8)) == (m & 0xff);
            }
            if (ok) out.push_back({e, t.forms[form * 4], start});
        }
    };
    for (std::uint32_t e = 0; e < entries.size(); ++e) {
        const std::uint8_t* data = bytes.data() + entries[e].offset;
        const std::uint64_t size = entries[e].size;
        for (std::uint64_t p = 0; p < size; ++p) {
            const std::uint64_t rest = size - p;
            const std::uint32_t b0 = vs::fold_letter(data[p]);
            check(vs::atom1_base + b0, e, data, size, p);
            if (rest >= 2) check(vs::atom2_base + (b0 | std::uint32_t(vs::fold_letter(data[p + 1])) << 8), e, data, size, p);
            if (rest >= 4) {
                std::uint32_t word = 0;
                for (int i = 0; i < 4; ++i) word |= std::uint32_t(vs::fold_letter(data[p + i])) << (8 * i);
                check(vs::atom4_key(word), e, data, size, p);
            }
        }
    }
    std::sort(out.begin(), out.end(), vs::hit_order);
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    const std::size_t zero = all.find('\0');
    if (zero == std::string_view::npos) return 0;
    std::vector<vs::pattern> patterns;
    std::string_view text = all.substr(0, zero);
    while (!text.empty() && patterns.size() < 64) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(std::min(text.size(), end + 1));
        try {
            if (!line.empty() && line[0] == '{') {
                vs::pattern piece{"h", {}};
                bool has_piece = true;
                try {
                    piece = vs::hex_required_piece("h", line);
                } catch (const vyre::format_error&) {
                    has_piece = false;
                }
                try {
                    patterns.push_back(vs::hex_pattern("h", line));
                } catch (const vyre::format_error&) {
                    if (has_piece) patterns.push_back(std::move(piece));
                    continue;
                }
                if (!has_piece || piece.forms[0].value != patterns.back().forms[0].value || piece.forms[0].mask != patterns.back().forms[0].mask)
                    std::abort(); // a string without jumps is its own required piece
            }
            else if (line.starts_with("i:")) patterns.push_back(vs::literal_pattern("i", line.substr(2), {true, true, false}));
            else if (line.starts_with("w:")) patterns.push_back(vs::literal_pattern("w", line.substr(2), {false, true, true}));
            else
                for (auto& p : vs::literal_lines(line)) patterns.push_back(std::move(p));
        } catch (const vyre::format_error&) {
        }
    }
    const std::span<const std::uint8_t> bytes(data + zero + 1, size - zero - 1);
    std::vector<vs::entry_extent> entries;
    std::uint64_t from = 0;
    for (std::uint64_t i = 0; i <= bytes.size(); ++i)
        if (i == bytes.size() || bytes[i] == 0xff) {
            entries.push_back({from, i - from});
            from = i + 1;
        }
    const vs::filter_tables t = vs::build_filter_tables(patterns);
    if (t.bucket_start.back() != t.items.size() && !(t.bucket_start.back() == 0 && t.items.size() == 1)) std::abort();
    if (table_hits(t, bytes, entries) != vyre::reference::scan_hits(bytes, entries, patterns)) std::abort();
    return 0;
}
