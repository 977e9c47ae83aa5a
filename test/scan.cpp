// The scan stage: pattern values and their text forms (scan/pattern.hpp), the device tables
// (scan/filter_tables.hpp), the CPU reference (reference/scan.hpp) on hand-checked cases, and
// scan.patterns (ops/scan/patterns.hpp) on every device against the reference: overlapping
// matches, matches at entry boundaries (none spans two entries), empty entries, nocase, wide, hex
// with wildcards, 1 and 65,536 patterns, the per-pattern cap and a hit buffer too small for one
// dispatch. Where Hyperscan is present (VYRE_HAVE_HYPERSCAN), the hits equal its literal mode's.
#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/ops/scan/patterns.hpp>
#include <vyre/reference/scan.hpp>
#include <vyre/scan/filter_tables.hpp>
#include <vyre/scan/pattern.hpp>

#if defined(VYRE_HAVE_HYPERSCAN)
#include <hs/hs.h>
#endif

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <span>
#include <string>
#include <vector>

VYRE_TEST_MAIN

namespace {

namespace vs = vyre::scan;
namespace so = vyre::ops::scan;
using bytes = std::vector<std::uint8_t>;
using vyre::test::to_bytes;

// Entries back to back in one buffer.
struct entry_set {
    bytes data;
    std::vector<vs::entry_extent> entries;
    void add(const bytes& b) {
        entries.push_back({data.size(), b.size()});
        data.insert(data.end(), b.begin(), b.end());
    }
};

std::vector<vs::hit> device_hits(vyre::runtime::context& ctx, const std::vector<vs::pattern>& patterns, const entry_set& s,
                                 so::scan_options o = {1u << 30, 1u << 20}) {
    so::device_patterns set(ctx, patterns);
    return so::scan_bytes(ctx, set, s.data, s.entries, o).hits;
}

std::string describe(const std::vector<vs::hit>& hits, std::size_t limit = 8) {
    std::ostringstream out;
    for (std::size_t i = 0; i < std::min(limit, hits.size()); ++i)
        out << '(' << hits[i].entry << ',' << hits[i].pattern << ',' << hits[i].offset << ") ";
    if (hits.size() > limit) out << "...";
    return out.str();
}

// The first difference between two hit lists, for a readable failure.
void check_equal(const std::vector<vs::hit>& got, const std::vector<vs::hit>& want) {
    BOOST_TEST_INFO("got " << got.size() << " hits: " << describe(got) << "; want " << want.size() << ": " << describe(want));
    if (got == want) return;
    std::size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    BOOST_TEST_INFO("first difference at hit " << i);
    BOOST_TEST(false);
}

// A random pattern: a piece of `data` (so it occurs), perhaps nocase or wide, or as hex with some
// bytes made wildcards or nibbles.
vs::pattern random_pattern(std::mt19937_64& rng, const bytes& data, std::size_t index) {
    const std::size_t len = 1 + rng() % (rng() % 4 == 0 ? 40 : 6);
    const std::size_t at = data.size() > len ? rng() % (data.size() - len) : 0;
    const std::string text(data.begin() + at, data.begin() + at + std::min(len, data.size()));
    const std::string name = "p" + std::to_string(index);
    switch (rng() % 5) {
    case 0: return vs::literal_pattern(name, text, {true, true, false});
    case 1: return vs::literal_pattern(name, text, {false, rng() % 2 == 0, true});
    case 2: {
        vs::pattern p = vs::literal_pattern(name, text);
        auto& f = p.forms[0];
        const std::size_t keep = rng() % f.size();
        for (std::size_t i = 0; i < f.size(); ++i) {
            if (i == keep) continue;
            const unsigned r = rng() % 6;
            const std::uint8_t m = r == 0 ? 0x00 : r == 1 ? 0xf0 : r == 2 ? 0x0f : 0xff;
            f.mask[i] = m;
            f.value[i] &= m;
        }
        return p;
    }
    default: return vs::literal_pattern(name, text);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(literal_and_hex_forms) {
    const auto plain = vs::literal_pattern("x", "aB1");
    BOOST_TEST(plain.forms.size() == 1u);
    BOOST_TEST((plain.forms[0].value == bytes{'a', 'B', '1'}));
    BOOST_TEST((plain.forms[0].mask == bytes{0xff, 0xff, 0xff}));
    const auto nocase = vs::literal_pattern("x", "aB1", {true, true, false});
    BOOST_TEST((nocase.forms[0].value == bytes{'A', 'B', '1'}));
    BOOST_TEST((nocase.forms[0].mask == bytes{0xdf, 0xdf, 0xff}));
    const auto both = vs::literal_pattern("x", "ab", {false, true, true});
    BOOST_TEST(both.forms.size() == 2u);
    BOOST_TEST((both.forms[1].value == bytes{'a', 0, 'b', 0}));
    const auto hex = vs::hex_pattern("h", "{ 4D 5a ?? 9? ?0 }");
    BOOST_TEST((hex.forms[0].value == bytes{0x4d, 0x5a, 0x00, 0x90, 0x00}));
    BOOST_TEST((hex.forms[0].mask == bytes{0xff, 0xff, 0x00, 0xf0, 0x0f}));
    BOOST_CHECK_THROW(vs::literal_pattern("e", ""), vyre::format_error);
    BOOST_CHECK_THROW(vs::hex_pattern("j", "4D [2-4] 5A"), vyre::format_error);
    // The piece every match of a hex string holds: between jumps, outside alternatives.
    BOOST_TEST((vs::hex_required_piece("j", "{ 4D [2-4] 5A 90 ?? [-] 01 }").forms[0].value == bytes{0x5a, 0x90, 0x00}));
    BOOST_TEST((vs::hex_required_piece("a", "{ 4D ( 01 02 03 04 | 05 ) 5A 5B }").forms[0].value == bytes{0x5a, 0x5b}));
    BOOST_TEST((vs::hex_required_piece("n", "{ 01 ~02 03 04 }").forms[0].value == bytes{0x03, 0x04}));
    BOOST_TEST((vs::hex_required_piece("p", "{ 4D 5A }").forms[0].value == bytes{0x4d, 0x5a}));
    BOOST_CHECK_THROW(vs::hex_required_piece("w", "{ ?? [1-2] ( 01 | 02 ) }"), vyre::format_error);
    BOOST_CHECK_THROW(vs::hex_required_piece("o", "{ 01 ( 02 | 03 }"), vyre::format_error);
    BOOST_CHECK_THROW(vs::hex_required_piece("b", "{ 01 [2- 03 }"), vyre::format_error);
    BOOST_CHECK_THROW(vs::hex_pattern("w", "?? ??"), vyre::format_error);
    BOOST_CHECK_THROW(vs::hex_pattern("o", "4D 5"), vyre::format_error);
    BOOST_CHECK_THROW(vs::hex_pattern("g", "4G"), vyre::format_error);
    BOOST_CHECK_THROW(vs::literal_pattern("n", "ab", {false, false, false}), vyre::format_error);
    BOOST_CHECK_THROW(vs::literal_pattern("long", std::string(vs::max_pattern_bytes + 1, 'a')), vyre::format_error);
    const auto lines = vs::literal_lines("alpha\r\n\nbeta\ngamma");
    BOOST_TEST(lines.size() == 3u);
    BOOST_TEST(lines[0].name == "alpha");
    BOOST_TEST(lines[2].name == "gamma");
}

BOOST_AUTO_TEST_CASE(reference_on_hand_checked_cases) {
    entry_set s;
    s.add(to_bytes("aaaa"));          // entry 0: overlapping matches
    s.add(to_bytes("xyzAb"));         // entry 1: "ab" nocase at 3; "za" must not join entries 1 and 2
    s.add({});                        // entry 2: empty
    s.add(to_bytes("a"));             // entry 3
    s.add({'h', 0, 'i', 0, 'h', 'i'}); // entry 4: wide "hi" at 0, ascii at 4
    const std::vector<vs::pattern> patterns = {vs::literal_pattern("aa", "aa"), vs::literal_pattern("ab", "ab", {true, true, false}),
                                               vs::literal_pattern("ba", "ba"), vs::literal_pattern("hi", "hi", {false, true, true}),
                                               vs::hex_pattern("z?", "7A ??")};
    const auto hits = vyre::reference::scan_hits(s.data, s.entries, patterns);
    const std::vector<vs::hit> want = {{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {1, 4, 2}, {1, 1, 3}, {4, 3, 0}, {4, 3, 4}};
    check_equal(hits, want);
}

BOOST_AUTO_TEST_CASE(every_atom_is_in_the_filter) {
    std::mt19937_64 rng(vyre::test::test_seed());
    const bytes data = vyre::test::text_bytes(rng, 20000);
    std::vector<vs::pattern> patterns;
    for (std::size_t i = 0; i < 2000; ++i) patterns.push_back(random_pattern(rng, data, i));
    const auto t = vs::build_filter_tables(patterns);
    std::size_t forms = 0;
    for (const auto& p : patterns) forms += p.forms.size();
    BOOST_TEST(t.forms.size() == forms * 4);
    BOOST_TEST(t.bucket_start.back() == forms);
    for (std::uint32_t k = 0; k < vs::atom_keys; ++k) {
        const bool listed = t.bucket_start[k + 1] > t.bucket_start[k];
        const bool bit = ((t.filter[k / 32] >> (k % 32)) & 1u) != 0;
        if (listed != bit) {
            BOOST_TEST(listed == bit, "key " << k);
            break;
        }
    }
}

VYRE_DEVICE_TEST(hand_checked_cases_on_the_device) {
    entry_set s;
    s.add(to_bytes("aaaa"));
    s.add(to_bytes("xyzAb"));
    s.add({});
    s.add(to_bytes("a"));
    s.add({'h', 0, 'i', 0, 'h', 'i'});
    const std::vector<vs::pattern> patterns = {vs::literal_pattern("aa", "aa"), vs::literal_pattern("ab", "ab", {true, true, false}),
                                               vs::literal_pattern("ba", "ba"), vs::literal_pattern("hi", "hi", {false, true, true}),
                                               vs::hex_pattern("z?", "7A ??")};
    check_equal(device_hits(dev.ctx(), patterns, s), vyre::reference::scan_hits(s.data, s.entries, patterns));
}

VYRE_DEVICE_TEST(random_patterns_and_entries_match_the_reference) {
    std::mt19937_64 rng(vyre::test::test_seed());
    for (int round = 0; round < 4; ++round) {
        entry_set s;
        const bytes text = vyre::test::text_bytes(rng, 150000);
        const bytes random = vyre::test::random_bytes(rng, 30000);
        const bytes repeat = vyre::test::repetitive_bytes(rng, 60000);
        // Entries of every size around the chunk size, cut from the three sources, and empty ones.
        for (int e = 0; e < 40; ++e) {
            const bytes& from = e % 3 == 0 ? text : e % 3 == 1 ? random : repeat;
            const std::size_t sizes[] = {0, 1, 3, 4, 5, so::scan_chunk_bytes - 1, so::scan_chunk_bytes, so::scan_chunk_bytes + 1,
                                         2 * so::scan_chunk_bytes + 7, 20000};
            const std::size_t n = std::min(from.size(), sizes[rng() % std::size(sizes)]);
            const std::size_t at = rng() % (from.size() - n + 1);
            s.add(bytes(from.begin() + at, from.begin() + at + n));
        }
        std::vector<vs::pattern> patterns;
        const std::size_t count = round == 0 ? 1 : round == 1 ? 30 : 800;
        for (std::size_t i = 0; i < count; ++i) patterns.push_back(random_pattern(rng, i % 2 ? text : s.data, i));
        const auto want = vyre::reference::scan_hits(s.data, s.entries, patterns);
        BOOST_TEST_CONTEXT("round " << round << ", " << count << " patterns") {
            BOOST_TEST(!want.empty());
            check_equal(device_hits(dev.ctx(), patterns, s), want);
        }
    }
}

VYRE_DEVICE_TEST(sixty_five_thousand_patterns) {
    std::mt19937_64 rng(vyre::test::test_seed() + 1);
    entry_set s;
    const bytes text = vyre::test::text_bytes(rng, 120000);
    s.add(bytes(text.begin(), text.begin() + 70000));
    s.add({});
    s.add(bytes(text.begin() + 70000, text.end()));
    // 65,536 patterns: pieces of the text (about half), and random words that mostly do not occur.
    std::vector<vs::pattern> patterns;
    for (std::size_t i = 0; i < 65536; ++i) {
        if (i % 2 == 0) {
            patterns.push_back(random_pattern(rng, text, i));
        } else {
            std::string w;
            for (std::size_t j = 0, n = 3 + rng() % 8; j < n; ++j) w.push_back(static_cast<char>('a' + rng() % 26));
            std::string name = "w";
            name += std::to_string(i);
            patterns.push_back(vs::literal_pattern(name, w));
        }
    }
    const auto want = vyre::reference::scan_hits(s.data, s.entries, patterns);
    check_equal(device_hits(dev.ctx(), patterns, s), want);
}

VYRE_DEVICE_TEST(the_cap_keeps_the_first_hits_and_counts_the_rest) {
    entry_set s;
    s.add(bytes(50000, 'a'));
    s.add(to_bytes("needle in a haystack: needle"));
    const std::vector<vs::pattern> patterns = {vs::literal_pattern("a", "a"), vs::literal_pattern("aaa", "aaa"),
                                               vs::literal_pattern("needle", "needle")};
    const auto all = vyre::reference::scan_hits(s.data, s.entries, patterns);
    so::device_patterns set(dev.ctx(), patterns);
    // A hit buffer smaller than one dispatch's hits: the scan splits its dispatches, same result.
    for (std::uint32_t capacity : {1u << 20, 1000u, 7u}) {
        BOOST_TEST_CONTEXT("hit capacity " << capacity) {
            // The buffer may not grow past `capacity`: dispatches are split instead.
            const auto uncapped = so::scan_bytes(dev.ctx(), set, s.data, s.entries, {1u << 30, capacity, capacity});
            if (capacity < 1000) BOOST_TEST(uncapped.dispatches > 10u);
            check_equal(uncapped.hits, all);
            BOOST_TEST(uncapped.capped_patterns == 0u);
            const auto r = so::scan_bytes(dev.ctx(), set, s.data, s.entries, {100, capacity, capacity});
            std::vector<std::uint64_t> counts(3, 0);
            for (const auto& h : all) ++counts[h.pattern];
            BOOST_TEST((counts == std::vector<std::uint64_t>{50003, 49998, 2}));
            BOOST_TEST((r.counts == counts));
            BOOST_TEST(r.capped_patterns == 2u);
            std::vector<vs::hit> want;
            std::vector<std::uint32_t> kept(3, 0);
            for (const auto& h : all)
                if (kept[h.pattern]++ < 100) want.push_back(h);
            check_equal(r.hits, want);
        }
    }
}

VYRE_DEVICE_TEST(results_are_deterministic) {
    std::mt19937_64 rng(vyre::test::test_seed() + 2);
    entry_set s;
    s.add(vyre::test::repetitive_bytes(rng, 200000));
    std::vector<vs::pattern> patterns;
    for (std::size_t i = 0; i < 300; ++i) patterns.push_back(random_pattern(rng, s.data, i));
    so::device_patterns set(dev.ctx(), patterns);
    const auto first = so::scan_bytes(dev.ctx(), set, s.data, s.entries, {50, 5000, 5000});
    for (int run = 0; run < 20; ++run) {
        const auto again = so::scan_bytes(dev.ctx(), set, s.data, s.entries, {50, 5000, 5000});
        BOOST_TEST((again.hits == first.hits));
        BOOST_TEST((again.counts == first.counts));
    }
}

#if defined(VYRE_HAVE_HYPERSCAN)
// Hyperscan's literal mode (hs_compile_lit_multi) reports each match's end; with its length that is
// the start. Every literal pattern, case-sensitive and caseless, overlapping matches included.
VYRE_DEVICE_TEST(hits_equal_hyperscan_literal_mode) {
    std::mt19937_64 rng(vyre::test::test_seed() + 3);
    entry_set s;
    const bytes text = vyre::test::text_bytes(rng, 300000);
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t n = std::min<std::size_t>(text.size() - at, rng() % 30000);
        s.add(bytes(text.begin() + at, text.begin() + at + n));
        at += n;
    }
    std::vector<vs::pattern> patterns;
    std::vector<std::string> literals;
    std::vector<unsigned> flags, ids;
    std::vector<std::size_t> lengths;
    for (std::size_t i = 0; i < 2000; ++i) {
        const std::size_t len = 2 + rng() % 10;
        const std::size_t at = rng() % (text.size() - len);
        std::string lit(text.begin() + at, text.begin() + at + len);
        const bool nocase = i % 3 == 0;
        patterns.push_back(vs::literal_pattern("p" + std::to_string(i), lit, {nocase, true, false}));
        literals.push_back(lit);
        flags.push_back(nocase ? HS_FLAG_CASELESS : 0u);
        ids.push_back(static_cast<unsigned>(i));
        lengths.push_back(len);
    }
    std::vector<const char*> ptrs;
    for (const auto& l : literals) ptrs.push_back(l.data());
    hs_database_t* db = nullptr;
    hs_compile_error_t* err = nullptr;
    BOOST_REQUIRE(hs_compile_lit_multi(ptrs.data(), flags.data(), ids.data(), lengths.data(), static_cast<unsigned>(ptrs.size()),
                                       HS_MODE_BLOCK, nullptr, &db, &err) == HS_SUCCESS);
    hs_scratch_t* scratch = nullptr;
    BOOST_REQUIRE(hs_alloc_scratch(db, &scratch) == HS_SUCCESS);
    struct context {
        std::vector<vs::hit>* hits;
        const std::vector<std::size_t>* lengths;
        std::uint32_t entry;
    };
    std::vector<vs::hit> want;
    for (std::uint32_t e = 0; e < s.entries.size(); ++e) {
        context c{&want, &lengths, e};
        const auto& x = s.entries[e];
        if (x.size == 0) continue;
        hs_scan(db, reinterpret_cast<const char*>(s.data.data() + x.offset), static_cast<unsigned>(x.size), 0, scratch,
                [](unsigned id, unsigned long long, unsigned long long to, unsigned, void* p) {
                    auto* c = static_cast<context*>(p);
                    c->hits->push_back({c->entry, id, to - (*c->lengths)[id]});
                    return 0;
                },
                &c);
    }
    hs_free_scratch(scratch);
    hs_free_database(db);
    std::sort(want.begin(), want.end(), vs::hit_order);
    BOOST_TEST(want.size() > 1000u);
    check_equal(device_hits(dev.ctx(), patterns, s), want);
}
#endif
