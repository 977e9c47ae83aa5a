// YARA rules in the scan stage: which conditions the analysis lets the device prefilter
// (scan/yara_conditions.hpp), and engine/yara_scan.hpp on every device against the yara tool
// (`yara -r` over the folder the archives were made from): the same (rule, file) matches with rules
// the scan can prefilter and rules it cannot (filesize, uint16(0), not, regular expressions, hex
// wildcards, a private rule used by another), and libyara run on fewer files than there are when
// every rule is prefiltered.
#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/engine/yara_scan.hpp>
#include <vyre/scan/yara_conditions.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

VYRE_TEST_MAIN

namespace {

namespace ve = vyre::engine;
using vyre::test::shell_quote;

const char* const mixed_rules = R"(
import "pe"
// literal strings: prefiltered
rule literal_text { strings: $a = "alpha_marker" condition: $a }
rule nocase_or_wide { meta: author = "vyre" strings: $a = "BETA_MARK" nocase $b = "gamma_mark" wide condition: any of them }
rule both_needed { strings: $a = "delta_mark" $b = "epsilon_mark" condition: $a and $b }
rule counted { strings: $a = "zeta_mark" condition: #a > 2 }
rule hex_literal { strings: $h = { 6B 61 70 70 61 5F 6D } condition: $h at 0 or $h in (1..100000) }
rule with_filesize { strings: $a = "alpha_marker" condition: $a and filesize > 100 }
/* conditions the scan cannot prefilter */
rule mz_header { condition: uint16(0) == 0x5A4D }
rule tiny { condition: filesize < 16 }
rule without_omega { strings: $a = "omega_mark" condition: not $a and filesize > 30000 }
rule either_or_size { strings: $a = "alpha_marker" condition: $a or filesize == 7 }
rule regex_string { strings: $r = /eta_mark[0-9]+/ condition: $r }
rule hex_wildcard { strings: $h = { 61 6C ?? 68 61 } $n = { 6B 61 ?? ?0 61 5F } condition: any of them }
rule hex_jump { strings: $h = { 61 6C [1-2] 61 5F } condition: $h }
rule hex_alternative { strings: $h = { 7A 65 74 61 ( 5F | 2D ) 6D 61 72 6B } condition: $h }
private rule private_alpha { strings: $a = "alpha_marker" condition: $a }
rule uses_private { condition: private_alpha and filesize > 0 }
)";

const char* const literal_rules = R"(
rule literal_text { strings: $a = "alpha_marker" condition: $a }
rule nocase_or_wide { strings: $a = "BETA_MARK" nocase $b = "gamma_mark" wide condition: 1 of them }
rule counted { strings: $a = "zeta_mark" condition: #a >= 3 }
rule overlapping { strings: $a = "aa" condition: #a > 2 }
rule two_of { strings: $a = "delta_mark" $b = "epsilon_mark" $c = "alpha_marker" condition: 2 of them }
rule summed { strings: $a = "kappa_m" $b = "omega_mark" condition: #a + #b > 1 }
rule hex_wildcard { strings: $h = { 61 6C ?? 68 61 } $n = { 6B 61 ?? ?0 61 5F } condition: any of them }
rule hex_jump { strings: $h = { 61 6C [1-2] 61 5F } condition: $h }
)";

// A folder of files holding the markers (some files none), and archives of it.
struct marked_tree {
    vyre::test::temp_dir dir{"vyre-yara-scan-", true};
    std::vector<std::string> archives;

    explicit marked_tree(std::uint64_t seed) {
        namespace fs = std::filesystem;
        std::mt19937_64 rng(seed);
        fs::create_directories(dir.path / "tree/pkg/sub");
        const char* markers[] = {"alpha_marker", "beta_mark", "BETA_MARK", "delta_mark", "epsilon_mark", "zeta_mark",
                                 "kappa_m", "omega_mark", "eta_mark42", "alpha", "al_ha"};
        for (int f = 0; f < 40; ++f) {
            std::string text;
            const std::size_t size = f == 0 ? 0 : f == 1 ? 7 : f == 2 ? 12 : 50 + rng() % 60000;
            while (text.size() < size) {
                text += "filler text " + std::to_string(rng() % 1000) + " ";
                if (rng() % 200 == 0) text += markers[rng() % std::size(markers)];
            }
            text.resize(size);
            if (f == 3) text = "MZ" + text;
            if (f == 4) text = std::string("kappa_m") + text;
            if (f == 6) text += " aaaa "; // three overlapping matches of "aa"
            if (f == 7) text += " aaa ";  // two
            if (f == 5) {
                const std::string wide = "gamma_mark";
                for (char c : wide) text += std::string(1, c) + '\0';
            }
            vyre::test::write_text(dir.path / "tree/pkg" / (f % 3 ? "" : "sub") / ("f" + std::to_string(f)), text);
        }
        const std::string d = shell_quote(dir.path / "tree");
        vyre::test::run_command("cd " + d + " && tar czf ../tree.tgz pkg && zip -qr ../tree.zip pkg");
        archives = {dir / "tree.tgz", dir / "tree.zip"};
    }

    // (rule, path below tree/) of `yara -r RULES tree/`.
    std::set<std::pair<std::string, std::string>> yara_tool(const std::string& rules) const {
        vyre::test::write_text(dir.path / "rules.yar", rules);
        const std::string cmd = "yara -r " + shell_quote(dir.path / "rules.yar") + " " + shell_quote(dir.path / "tree");
        std::set<std::pair<std::string, std::string>> out;
        std::istringstream lines(vyre::test::command_output(cmd));
        const std::string prefix = (dir.path / "tree").string() + "/";
        for (std::string line; std::getline(lines, line);) {
            const auto space = line.find(' ');
            if (space == std::string::npos) continue;
            std::string path = line.substr(space + 1);
            if (path.rfind(prefix, 0) == 0) path = path.substr(prefix.size());
            out.insert({line.substr(0, space), path});
        }
        return out;
    }
};

std::set<std::pair<std::string, std::string>> ours_for(const ve::yara_scan_report& r, const std::string& archive) {
    std::set<std::pair<std::string, std::string>> out;
    for (const auto& m : r.matches)
        if (m.path.rfind(archive + "!/", 0) == 0) out.insert({m.rule, m.path.substr(archive.size() + 2)});
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(conditions_that_need_a_string) {
    const auto c = vyre::scan::yara_rule_conditions(mixed_rules);
    std::map<std::string, bool> needs;
    for (const auto& x : c) needs[x.name] = x.needs_a_string;
    BOOST_TEST(c.size() == 16u);
    for (const char* yes : {"literal_text", "nocase_or_wide", "both_needed", "counted", "hex_literal", "with_filesize", "regex_string",
                            "hex_wildcard", "hex_jump", "hex_alternative", "private_alpha"})
        BOOST_TEST(needs[yes], yes);
    for (const char* no : {"mz_header", "tiny", "without_omega", "either_or_size", "uses_private"}) BOOST_TEST(!needs[no], no);
    // Hex strings' text, by identifier, for the patterns libyara cannot give back.
    for (const auto& x : c)
        if (x.name == "hex_wildcard") {
            BOOST_TEST(x.hex_strings.size() == 2u);
            BOOST_TEST(x.hex_strings[0].first == "$h");
            BOOST_TEST(x.hex_strings[0].second == " 61 6C ?? 68 61 ");
            BOOST_TEST(x.hex_strings[1].first == "$n");
        }
    // Forms around the edges.
    const auto one = [](const std::string& condition, bool strings = true) {
        const auto r = vyre::scan::yara_rule_conditions("rule r { " + std::string(strings ? "strings: $a = \"x\" $b = \"y\" " : "") +
                                                        "condition: " + condition + " }");
        return r.size() == 1 && r[0].needs_a_string;
    };
    BOOST_TEST(one("($a or $b) and filesize < 10"));
    BOOST_TEST(!one("($a or $b) or filesize < 10"));
    BOOST_TEST(!one("(filesize) > 10"));
    BOOST_TEST(one("2 of ($a, $b)"));
    BOOST_TEST(!one("0 of ($a, $b)"));
    BOOST_TEST(!one("#a > -1"));
    BOOST_TEST(!one("#a >= 0"));
    BOOST_TEST(one("#a == 1"));
    BOOST_TEST(!one("not $a"));
    BOOST_TEST(!one("for any of them : ( $ at 0 )"));
    BOOST_TEST(!one("any of them", false));
    BOOST_TEST(one("$a and \"}\" == \"}\""));
    BOOST_TEST(!one("pe.is_dll() or $a"));
    BOOST_TEST(one("#a + #b > 3"));
    BOOST_TEST(!one("#a + 2 > 3"));
    BOOST_TEST(!one("#a > 1.5"));
    BOOST_TEST(one("#a > 0x10"));
    // What the conditions need, as formulas.
    const auto need = [](const std::string& condition) {
        const auto r = vyre::scan::yara_rule_conditions("rule r { strings: $a = \"x\" $b = \"y\" $c = \"z\" condition: " + condition + " }");
        return r.size() == 1 ? r[0].need : vyre::scan::yara_string_need{};
    };
    using need_t = vyre::scan::yara_string_need;
    {
        const auto n = need("#a > 5");
        BOOST_TEST((n.kind == need_t::count && n.n == 6u && n.names == std::vector<std::string>{"$a"}));
    }
    {
        const auto n = need("#a + #c >= 2KB");
        BOOST_TEST((n.kind == need_t::count && n.n == 2048u && n.names == std::vector<std::string>{"$a", "$c"}));
    }
    {
        const auto n = need("2 of ($a, $b*) and filesize < 100");
        BOOST_TEST((n.kind == need_t::strings && n.n == 2u && n.names == std::vector<std::string>{"$a", "$b*"}));
    }
    {
        const auto n = need("all of them in (0..100)");
        BOOST_TEST((n.kind == need_t::strings && n.n == 0u && n.names == std::vector<std::string>{"them"}));
    }
    {
        const auto n = need("$a and ($b or #c == 3)");
        BOOST_TEST(n.kind == need_t::all);
        BOOST_TEST(n.parts.size() == 2u);
        BOOST_TEST((n.parts.size() == 2u && n.parts[1].kind == need_t::either && n.parts[1].parts.size() == 2u &&
                    n.parts[1].parts[1].kind == need_t::count && n.parts[1].parts[1].n == 3u));
    }
    BOOST_TEST(need("$a and ($b or filesize > 3)").kind == need_t::strings); // the or needs no string: only $a is left
    BOOST_TEST(need("#a < 5").kind == need_t::anything);
    // Text the reader does not follow ends the list: those rules are not prefiltered.
    BOOST_TEST(vyre::scan::yara_rule_conditions("rule ok { condition: true } garbage here").size() == 1u);
}

// The prefilter's decision per file from a scan call's hits: a file goes to libyara only where a
// rule's strings hit as often and as many as its condition needs.
BOOST_AUTO_TEST_CASE(candidates_follow_what_conditions_need) {
    const ve::yara_rules rules(R"(
rule counted { strings: $a = "aa" condition: #a > 2 }
rule two_of_three { strings: $a = "x1" $b = "x2" $c = "x3" condition: 2 of them }
rule all_named { strings: $a = "y1" $b = "y2" condition: all of ($*) and filesize > 1 }
rule summed { strings: $a = "s1" $b = "s2" condition: #a + #b >= 3 }
rule piece { strings: $h = { 61 62 [1-3] 63 64 } condition: #h > 3 }
rule same_text { strings: $a = "x1" condition: $a }
)", "needs.yar");
    BOOST_TEST(rules.prefiltered_count() == 6u);
    BOOST_TEST(!rules.every_file());
    std::map<std::string, std::uint32_t> index;
    for (std::uint32_t p = 0; p < rules.patterns().size(); ++p) index[rules.patterns()[p].name] = p;
    BOOST_TEST(index.size() == 10u);
    // Each file's hits: (pattern name, how many).
    const std::vector<std::vector<std::pair<std::string, int>>> files = {
        {},                                              // 0: no hit
        {{"counted:$a", 2}},                             // 1: two of three
        {{"counted:$a", 3}},                             // 2: enough
        {{"two_of_three:$a", 5}},                        // 3: one string of two
        {{"two_of_three:$a", 1}, {"two_of_three:$c", 1}}, // 4: two strings
        {{"all_named:$a", 4}},                           // 5: not all
        {{"all_named:$a", 1}, {"all_named:$b", 1}},      // 6: all
        {{"summed:$a", 1}, {"summed:$b", 1}},            // 7: two in all
        {{"summed:$a", 2}, {"summed:$b", 1}},            // 8: three
        {{"piece:$h", 1}},                               // 9: a piece counts as present only
        {{"same_text:$a", 1}},                           // 10: the other rule's string of the same text
        {{"all_named:$b", 1}},                           // 11: the other string of all_named
    };
    const std::vector<char> want = {0, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0};
    // Hits in entry order, each entry's in a mixed order of patterns, and the files listed backwards
    // too: the decision must not depend on the order.
    for (const bool backwards : {false, true}) {
        std::vector<vyre::scan::hit> hits;
        for (std::size_t f = 0; f < files.size(); ++f) {
            const std::uint32_t entry = static_cast<std::uint32_t>(backwards ? files.size() - 1 - f : f);
            for (int round = 0; round < 8; ++round)
                for (const auto& [name, times] : files[f])
                    if (round < times) hits.push_back({entry, index.at(name), static_cast<std::uint64_t>(round * 10)});
        }
        if (backwards) std::reverse(hits.begin(), hits.end());
        const auto got = rules.may_match(files.size(), hits);
        for (std::size_t f = 0; f < files.size(); ++f) {
            const std::size_t entry = backwards ? files.size() - 1 - f : f;
            BOOST_TEST(int(got.at(entry)) == int(want[f]), "file " << f << (backwards ? " (backwards)" : ""));
        }
        // A pattern past its hit cap counts as present in every file, as often as asked: with
        // all_named's $a capped, the files with its $b (6, 11) may match; with counted's $a, all.
        const std::uint32_t all_a[] = {index.at("all_named:$a")}, counted_a[] = {index.at("counted:$a")};
        std::vector<char> capped_want = want;
        capped_want[11] = 1;
        const auto got_all = rules.may_match(files.size(), hits, all_a);
        const auto got_counted = rules.may_match(files.size(), hits, counted_a);
        for (std::size_t f = 0; f < files.size(); ++f) {
            const std::size_t entry = backwards ? files.size() - 1 - f : f;
            BOOST_TEST(int(got_all.at(entry)) == int(capped_want[f]), "all_named:$a capped, file " << f);
            BOOST_TEST(int(got_counted.at(entry)) == 1, "counted:$a capped, file " << f);
        }
    }
}

// util::background_jobs, which runs libyara beside the scan: heaviest first, every job run once,
// a job's exception rethrown by wait(), and abandon() leaving no job running.
BOOST_AUTO_TEST_CASE(background_jobs_run_heaviest_first_and_rethrow) {
    for (const unsigned threads : {1u, 4u}) {
        BOOST_TEST_CONTEXT("threads " << threads) {
            vyre::util::background_jobs jobs(threads);
            std::mutex m;
            std::vector<int> ran;
            // The first job holds every thread's attention until the rest are queued.
            std::atomic<bool> go{false};
            for (unsigned t = 0; t < threads; ++t)
                jobs.push(1000, [&] {
                    while (!go.load()) std::this_thread::yield();
                });
            std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the blockers start
            for (int w : {3, 9, 1, 7, 5}) jobs.push(static_cast<std::uint64_t>(w), [&, w] {
                const std::lock_guard<std::mutex> g(m);
                ran.push_back(w);
            });
            go = true;
            jobs.wait();
            BOOST_TEST(ran.size() == 5u);
            if (threads == 1) BOOST_TEST((ran == std::vector<int>{9, 7, 5, 3, 1}));
            jobs.push(1, [] { throw std::runtime_error("job failed"); });
            jobs.push(2, [&] {
                const std::lock_guard<std::mutex> g(m);
                ran.push_back(100);
            });
            BOOST_CHECK_THROW(jobs.wait(), std::runtime_error);
            BOOST_TEST(ran.back() == 100);
            jobs.wait(); // the failure was reported once
            std::atomic<int> started{0};
            go = false;
            for (int j = 0; j < 50; ++j) jobs.push(1, [&] {
                ++started;
                while (!go.load()) std::this_thread::yield();
            });
            std::thread release([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                go = true;
            });
            jobs.abandon(); // drops the queued ones, then waits for the running ones until the release
            release.join();
            BOOST_TEST(started.load() <= static_cast<int>(threads)); // only those running ran
            jobs.wait();
        }
    }
}

BOOST_AUTO_TEST_CASE(rules_errors_name_the_line) {
    try {
        ve::yara_rules rules("rule a { condition: true }\nrule b { condition: nonsense_identifier }\n", "bad.yar");
        BOOST_TEST(false, "compiled");
    } catch (const vyre::format_error& e) {
        BOOST_TEST(std::string(e.what()).find("bad.yar") != std::string::npos, e.what());
        BOOST_TEST(std::string(e.what()).find("line 2") != std::string::npos, e.what());
    }
}

VYRE_DEVICE_TEST(matches_equal_the_yara_tool_over_the_extracted_tree) {
    if (!vyre::test::have_tool("yara")) {
        BOOST_TEST_MESSAGE("yara is not installed: comparison skipped");
        return;
    }
    const marked_tree tree(vyre::test::test_seed());
    std::vector<vyre::test::bytes> data;
    std::vector<ve::unpack_input> inputs;
    for (const auto& a : tree.archives) data.push_back(vyre::test::read_file(a));
    for (std::size_t i = 0; i < data.size(); ++i) inputs.push_back({tree.archives[i], data[i]});
    for (const char* source : {mixed_rules, literal_rules}) {
        const bool all_literal = source == literal_rules;
        BOOST_TEST_CONTEXT((all_literal ? "literal rules" : "mixed rules")) {
            const ve::yara_rules rules(source, "rules.yar");
            // Mixed: the six literal rules, the private one and the three hex ones (not
            // regex_string, nor the conditions that need no string).
            BOOST_TEST(rules.prefiltered_count() == (all_literal ? 8u : 10u));
            const vyre::ops::scan::device_patterns set(dev.ctx(), rules.patterns());
            const auto want = tree.yara_tool(source);
            BOOST_TEST(want.size() > 10u);
            // The automatic deflate route, and the device route with its output scanned there
            // (what a GPU does; here on every device), whose candidate files libyara reads back.
            // The automatic route also with every host file of 1,000 bytes or more scanned first
            // (the order for the largest files, scan_batcher::early_bytes).
            // And the device route with a hit cap of one per pattern and call: most patterns pass it.
            struct variant {
                ve::deflate_route route;
                std::uint64_t early;
                std::uint32_t max_hits;
            };
            for (const variant v : {variant{ve::deflate_route::automatic, 0, 10000}, variant{ve::deflate_route::device, 0, 10000},
                                    variant{ve::deflate_route::automatic, 1000, 10000}, variant{ve::deflate_route::device, 0, 1}}) {
                const auto route = v.route;
                const auto early = v.early;
                BOOST_TEST_CONTEXT("deflate route " << ve::deflate_route_name(route) << ", early from " << early << ", hit cap " << v.max_hits) {
                    ve::scan_archives_options o;
                    if (early) o.early_bytes = early;
                    o.scan.max_hits_per_pattern = v.max_hits;
                    o.unpack.deflate = route;
                    o.unpack.deflate_device_max_bytes = std::numeric_limits<std::uint64_t>::max();
                    const auto r = ve::yara_scan_archives(dev.ctx(), rules, set, inputs, o);
                    BOOST_TEST(r.unpack.problems.empty());
                    for (const auto& archive : tree.archives) {
                        const auto got = ours_for(r, archive);
                        BOOST_TEST_INFO("archive " << archive);
                        BOOST_TEST((got == want));
                        for (const auto& m : got)
                            if (!want.count(m)) BOOST_TEST(false, "only ours: " << m.first << " " << m.second);
                        for (const auto& m : want)
                            if (!got.count(m)) BOOST_TEST(false, "only yara's: " << m.first << " " << m.second);
                    }
                    // Where libyara reads every file, every file is on the host, and most hold 1,000 bytes or more.
                    if (!all_literal) BOOST_TEST((early ? r.files_first > r.files / 2 : r.files_first == 0u), r.files_first << " of " << r.files);
                    // With every pattern under its cap the literal rules skip files; past it, most files go.
                    if (!all_literal) BOOST_TEST(r.files_evaluated == r.files);
                    else if (v.max_hits > 1) BOOST_TEST(r.files_evaluated < r.files);
                    // Content stays on the device only where libyara does not read every file.
                    if (route == ve::deflate_route::device) BOOST_TEST((r.unpack.kept_bytes > 0) == all_literal);
                }
            }
        }
    }
}
