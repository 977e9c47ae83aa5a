// The tables the device scan reads, built on the host from a pattern set: a bit per atom key
// (the filter, small enough for workgroup memory), the forms listed under each key, and each
// form's bytes. Plain words, so that the op, the benchmark and the tests share one layout.
//
// Every form of every pattern has one atom: a run of 4 fixed bytes within it (2 where it has no
// run of 4, 1 where it has no run of 2), chosen among its runs so that few forms share a key and,
// between equals, by how rare its bytes are in ordinary data. A byte is fixed when its mask is 0xff, or 0xdf on a letter (nocase). Atoms are
// keyed with ASCII letters folded to upper case, so one key serves both cases:
//   4-byte atoms: key (word * 0x9E3779B1) >> 14, in [0, 2^18) (a hash: keys collide);
//   2-byte atoms: 2^18 + the two bytes as a little-endian u16;
//   1-byte atoms: 2^18 + 2^16 + the byte.
// A scan computes these keys at every position of the data; where the filter has the key's bit,
// it checks every form listed under the key, at the offset its atom implies. Each match is found
// at exactly one position (its atom's), so no match is reported twice and none is lost at the
// boundary between two pieces of work.
#pragma once

#include <vyre/error.hpp>
#include <vyre/scan/pattern.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace vyre::scan {

inline constexpr std::uint32_t atom4_keys = 1u << 18;
inline constexpr std::uint32_t atom2_keys = 1u << 16;
inline constexpr std::uint32_t atom1_keys = 256;
inline constexpr std::uint32_t atom2_base = atom4_keys;
inline constexpr std::uint32_t atom1_base = atom4_keys + atom2_keys;
inline constexpr std::uint32_t atom_keys = atom4_keys + atom2_keys + atom1_keys;
inline constexpr std::uint32_t filter_words = atom_keys / 32;
inline constexpr std::uint32_t atom_hash_multiplier = 0x9E3779B1u;
// A bucket item packs (form << item_offset_bits) | atom offset.
inline constexpr std::uint32_t item_offset_bits = 12;
inline constexpr std::uint32_t max_forms = 1u << (32 - item_offset_bits);
static_assert(max_pattern_bytes <= (1u << item_offset_bits));

inline std::uint8_t fold_letter(std::uint8_t b) noexcept {
    return detail::is_letter(b) ? static_cast<std::uint8_t>(b & 0xdfu) : b;
}
inline std::uint32_t atom4_key(std::uint32_t folded_word) noexcept { return (folded_word * atom_hash_multiplier) >> 14; }

struct filter_tables {
    std::vector<std::uint32_t> filter;       // filter_words: bit k of word k/32 set when key k has forms
    std::vector<std::uint32_t> bucket_start; // atom_keys + 1: the items of key k are [start[k], start[k+1])
    std::vector<std::uint32_t> items;        // (form << item_offset_bits) | atom offset within the form
    std::vector<std::uint32_t> forms;        // 4 words a form: pattern index, first byte word, length, 0
    std::vector<std::uint32_t> form_bytes;   // a word a byte: value | mask << 8
    std::uint32_t patterns = 0;
    std::uint32_t longest = 0; // bytes of the longest form
};

namespace detail {

inline bool fixed_byte(const byte_pattern& f, std::size_t i) noexcept {
    return f.mask[i] == 0xffu || (f.mask[i] == 0xdfu && is_letter(f.value[i]));
}
// How common a byte is in ordinary data (text, code, binaries): lower is rarer, better for atoms.
inline unsigned byte_weight(std::uint8_t b) noexcept {
    if (b == 0x00 || b == 0xff) return 8;
    if (b == ' ' || b == '\n' || b == '\t' || b == '\r') return 6;
    if (is_letter(b) || (b >= '0' && b <= '9')) return 2;
    if (b < 0x20 || b >= 0x80) return 3;
    return 2;
}

// The atom of a form: its offset and length (4, 2 or 1).
struct atom {
    std::uint32_t offset = 0, length = 0;
};
inline std::uint32_t atom_key(const byte_pattern& f, atom a) {
    std::uint32_t word = 0;
    for (std::uint32_t i = 0; i < a.length; ++i) word |= std::uint32_t(fold_letter(f.value[a.offset + i])) << (8 * i);
    if (a.length == 4) return atom4_key(word);
    if (a.length == 2) return atom2_base + word;
    return atom1_base + word;
}

// The form's atom: the longest fixed run length available (4, else 2, else 1), and among the
// windows of that length the one whose key lists the fewest forms so far (`listed`, per key), then
// the one of the rarest bytes, then the first. Spreading the forms over the keys keeps the lists
// short where many patterns share a prefix (BOOST_..., PFNGL...).
inline atom choose_atom(const byte_pattern& f, std::span<const std::uint32_t> listed) {
    for (std::uint32_t len : {4u, 2u, 1u}) {
        atom best{};
        std::uint64_t best_score = ~std::uint64_t{0};
        for (std::size_t at = 0; at + len <= f.size(); ++at) {
            unsigned w = 0;
            bool ok = true;
            for (std::uint32_t i = 0; i < len && ok; ++i) {
                ok = fixed_byte(f, at + i);
                w += byte_weight(fold_letter(f.value[at + i]));
            }
            if (!ok) continue;
            const atom a{static_cast<std::uint32_t>(at), len};
            const std::uint64_t score = (std::uint64_t{listed[atom_key(f, a)]} << 8) | w;
            if (score < best_score) best = a, best_score = score;
        }
        if (best.length != 0) return best;
    }
    return {}; // unreachable for checked forms (check_form requires a fixed byte)
}

} // namespace detail

inline filter_tables build_filter_tables(const std::vector<pattern>& patterns) {
    if (patterns.size() > 0xffffffffu) throw resource_error("build_filter_tables: too many patterns");
    filter_tables t;
    t.patterns = static_cast<std::uint32_t>(patterns.size());
    struct keyed {
        std::uint32_t key, item;
    };
    std::vector<keyed> keyed_items;
    // bucket_start[k + 1] counts the forms listed under key k so far, which steers the choice of
    // atoms; the prefix sum below turns the counts into starts.
    t.bucket_start.assign(atom_keys + 1, 0);
    const std::span<std::uint32_t> listed = std::span(t.bucket_start).subspan(1);
    std::uint32_t form = 0;
    for (std::uint32_t p = 0; p < patterns.size(); ++p) {
        for (const auto& f : patterns[p].forms) {
            detail::check_form(patterns[p].name, f);
            if (form >= max_forms)
                throw resource_error("build_filter_tables: more than " + std::to_string(max_forms) + " pattern forms");
            const auto a = detail::choose_atom(f, listed);
            const std::uint32_t key = detail::atom_key(f, a);
            ++listed[key];
            keyed_items.push_back({key, (form << item_offset_bits) | a.offset});
            t.forms.insert(t.forms.end(), {p, static_cast<std::uint32_t>(t.form_bytes.size()), static_cast<std::uint32_t>(f.size()), 0u});
            for (std::size_t i = 0; i < f.size(); ++i) t.form_bytes.push_back(f.value[i] | (std::uint32_t(f.mask[i]) << 8));
            t.longest = std::max(t.longest, static_cast<std::uint32_t>(f.size()));
            ++form;
        }
    }
    std::stable_sort(keyed_items.begin(), keyed_items.end(), [](const keyed& a, const keyed& b) { return a.key < b.key; });
    t.filter.assign(filter_words, 0);
    t.items.reserve(keyed_items.size());
    for (const auto& k : keyed_items) {
        t.filter[k.key / 32] |= 1u << (k.key % 32);
        t.items.push_back(k.item);
    }
    std::partial_sum(t.bucket_start.begin(), t.bucket_start.end(), t.bucket_start.begin());
    // Empty vectors cannot become device buffers: one unused word keeps each non-empty.
    if (t.items.empty()) t.items.push_back(0);
    if (t.forms.empty()) t.forms.assign(4, 0);
    if (t.form_bytes.empty()) t.form_bytes.push_back(0);
    return t;
}

} // namespace vyre::scan
