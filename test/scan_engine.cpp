// engine/scan.hpp on every device: archives made by the system's tools (tar.gz, ZIP, a ZIP inside a
// tar.gz, tar.zst) and plain files, scanned; the findings must equal the CPU reference run over the
// files the unpack engine finds in them, with the cap over all batches, batches small enough that
// the files take several, and a file larger than a batch. Where ugrep is installed, `ugrep -z -F -f`
// (-o -b: leftmost-longest matches that do not overlap) must report what our hits reduce to under
// the same rule, file by file.
#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/engine/scan.hpp>
#include <vyre/engine/scan_devices.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/reference/scan.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

VYRE_TEST_MAIN

namespace {

namespace vs = vyre::scan;
namespace ve = vyre::engine;
using bytes = std::vector<std::uint8_t>;
using vyre::test::shell_quote;

// A folder of text files and archives of them, made with tar, gzip, zip and zstd.
struct archive_tree {
    vyre::test::temp_dir dir{"vyre-scan-engine-", true};
    std::vector<std::string> inputs; // the archives and one plain file
    std::vector<std::string> words;  // words that occur in the files

    explicit archive_tree(std::uint64_t seed) {
        std::mt19937_64 rng(seed);
        namespace fs = std::filesystem;
        fs::create_directories(dir.path / "pkg/src");
        fs::create_directories(dir.path / "pkg/data");
        // Text of words from a vocabulary of 3,000 random lower-case words.
        std::set<std::string> vocabulary;
        while (vocabulary.size() < 3000) {
            std::string w;
            for (std::size_t j = 0, n = 3 + rng() % 9; j < n; ++j) w.push_back(static_cast<char>('a' + rng() % 26));
            vocabulary.insert(w);
        }
        words.assign(vocabulary.begin(), vocabulary.end());
        static const char* separators[] = {" ", " ", " ", "\n", ", ", "(", ");\n", "_", "."};
        for (int f = 0; f < 12; ++f) {
            const std::size_t size = f == 0 ? 0 : f == 1 ? 300000 : 1000 + rng() % 40000;
            std::string text;
            while (text.size() < size) {
                text += words[rng() % words.size()];
                text += separators[rng() % std::size(separators)];
            }
            text.resize(size);
            vyre::test::write_text(dir.path / (f % 2 ? "pkg/src" : "pkg/data") / ("f" + std::to_string(f) + ".txt"), text);
        }
        const std::string d = shell_quote(dir.path);
        // outer.zip holds a tar as a deflated entry: an archive the device decodes, found by its head.
        vyre::test::run_command("cd " + d + " && tar czf pkg.tgz pkg && zip -qr pkg.zip pkg && mkdir -p nest && cp pkg.zip nest/ && tar czf nest.tgz nest"
                                " && tar cf pkg.tar pkg && zip -q outer.zip pkg.tar && rm pkg.tar");
        inputs = {dir / "pkg.tgz", dir / "pkg.zip", dir / "nest.tgz", dir / "pkg/src/f1.txt", dir / "outer.zip"};
        if (vyre::test::have_tool("zstd")) {
            vyre::test::run_command("cd " + d + " && tar cf - pkg | zstd -q -3 -o pkg.tar.zst");
            inputs.push_back(dir / "pkg.tar.zst");
        }
    }
};

struct mapped_inputs {
    std::vector<bytes> data;
    std::vector<ve::unpack_input> inputs;
    explicit mapped_inputs(const std::vector<std::string>& paths) {
        for (const auto& p : paths) data.push_back(vyre::test::read_file(p));
        for (std::size_t i = 0; i < paths.size(); ++i) inputs.push_back({paths[i], data[i]});
    }
};

// A finding with its file spelled out, as the reference makes them.
struct located {
    std::string path;
    std::vector<std::uint32_t> order;
    std::uint32_t pattern = 0;
    std::uint64_t offset = 0;
};

// The report's findings, each with its file; and its files checked: in listing order, each with a finding.
std::vector<located> located_findings(const ve::scan_archives_report& r) {
    for (std::size_t f = 1; f < r.hit_files.size(); ++f) BOOST_TEST((r.hit_files[f - 1].order < r.hit_files[f].order), "hit_files out of order");
    std::vector<char> used(r.hit_files.size(), 0);
    std::vector<located> out;
    for (const auto& f : r.findings) {
        BOOST_REQUIRE(f.file < r.hit_files.size());
        used[f.file] = 1;
        out.push_back({r.hit_files[f.file].path, r.hit_files[f.file].order, f.pattern, f.offset});
    }
    BOOST_TEST(std::count(used.begin(), used.end(), 0) == 0, "a file without findings in hit_files");
    return out;
}

// How the archives are decoded: the deflate route, and whether what the device decodes is scanned there.
struct decoding {
    ve::deflate_route route = ve::deflate_route::automatic;
    bool keep = true;
};

// The files unpack finds in the inputs (the non-archives as they are), and the reference's hits in
// them, as findings in the engine's order: in each layer the files on the host, then those the
// device kept (read back here), as the engine scans them.
std::vector<located> reference_findings(vyre::runtime::context& ctx, const mapped_inputs& in,
                                                 const std::vector<vs::pattern>& patterns, std::uint32_t cap,
                                                 decoding how = {ve::deflate_route::host, false}) {
    struct file {
        std::string path;
        std::vector<std::uint32_t> order;
        bytes content;
    };
    std::vector<file> files;
    std::vector<ve::unpack_input> archives;
    std::vector<std::uint32_t> index;
    for (std::uint32_t i = 0; i < in.inputs.size(); ++i) {
        const auto kind = vyre::format::detect(in.inputs[i].bytes);
        if (kind == vyre::format::content_kind::unknown) {
            files.push_back({in.inputs[i].name, {i}, in.data[i]});
        } else {
            archives.push_back(in.inputs[i]);
            index.push_back(i);
        }
    }
    ve::unpack_options o;
    o.deflate = how.route;
    o.deflate_device_max_bytes = std::numeric_limits<std::uint64_t>::max();
    o.keep_on_device = how.keep;
    o.layer_files = [&](std::span<const ve::unpack_file_view> views) {
        for (const bool on_device : {false, true}) {
            for (const auto& v : views) {
                if ((v.device != nullptr) != on_device) continue;
                std::vector<std::uint32_t> order(v.order.begin(), v.order.end());
                order[0] = index[order[0]];
                bytes content(v.bytes.begin(), v.bytes.end());
                if (v.device) {
                    content.resize(v.device->size);
                    vyre::runtime::read(ctx, v.device->buffer, content.data(), content.size(), v.device->offset);
                }
                files.push_back({std::string(v.path), order, std::move(content)});
            }
        }
    };
    ve::unpack(ctx, archives, o);
    // The cap keeps each pattern's first hits in scan order (plain inputs, then layer by layer);
    // findings are listed by file order.
    std::vector<located> out;
    std::vector<std::uint32_t> kept(patterns.size(), 0);
    for (const auto& f : files) {
        const vs::entry_extent whole{0, f.content.size()};
        for (const auto& h : vyre::reference::scan_hits(f.content, std::span(&whole, 1), patterns))
            if (kept[h.pattern]++ < cap) out.push_back({f.path, f.order, h.pattern, h.offset});
    }
    std::stable_sort(out.begin(), out.end(), [](const located& a, const located& b) {
        if (a.order != b.order) return a.order < b.order;
        if (a.offset != b.offset) return a.offset < b.offset;
        return a.pattern < b.pattern;
    });
    return out;
}

bool same(const located& a, const located& b) {
    return a.path == b.path && a.order == b.order && a.pattern == b.pattern && a.offset == b.offset;
}

void check_findings(const std::vector<located>& got, const std::vector<located>& want) {
    BOOST_TEST(got.size() == want.size());
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        if (!same(got[i], want[i])) {
            BOOST_TEST(false, "finding " << i << ": got " << got[i].path << ":" << got[i].offset << ":" << got[i].pattern << ", want "
                                         << want[i].path << ":" << want[i].offset << ":" << want[i].pattern);
            return;
        }
}

std::vector<vs::pattern> pick_patterns(const std::vector<std::string>& words, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::set<std::string> chosen;
    while (chosen.size() < std::min(n, words.size())) chosen.insert(words[rng() % words.size()]);
    std::vector<vs::pattern> out;
    for (const auto& w : chosen) out.push_back(vs::literal_pattern(w, w));
    return out;
}

} // namespace

VYRE_DEVICE_TEST(archives_scan_like_the_reference_over_their_files) {
    const archive_tree tree(vyre::test::test_seed());
    const mapped_inputs in(tree.inputs);
    const auto patterns = pick_patterns(tree.words, 300, vyre::test::test_seed());
    const vyre::ops::scan::device_patterns set(dev.ctx(), patterns);
    // Deflate on the device with its output scanned there (on a CPU device too), on the device
    // with every file brought to the host, and the automatic route.
    const decoding ways[] = {{ve::deflate_route::device, true}, {ve::deflate_route::device, false}, {ve::deflate_route::automatic, true}};
    for (const decoding how : ways) {
        for (const std::uint64_t batch : {std::uint64_t{256} << 20, std::uint64_t{64} << 10}) {
            for (const std::uint32_t cap : {1u << 30, 5u}) {
                BOOST_TEST_CONTEXT("route " << ve::deflate_route_name(how.route) << (how.keep ? ", kept" : ", to the host") << ", batch "
                                            << batch << " bytes, cap " << cap) {
                    ve::scan_archives_options o;
                    o.batch_bytes = batch;
                    o.scan.max_hits_per_pattern = cap;
                    o.unpack.deflate = how.route;
                    o.unpack.deflate_device_max_bytes = std::numeric_limits<std::uint64_t>::max();
                    o.keep_on_device = how.keep;
                    const auto r = ve::scan_archives(dev.ctx(), set, in.inputs, o);
                    BOOST_TEST(r.unpack.problems.empty());
                    const auto want = reference_findings(dev.ctx(), in, patterns, cap, how);
                    BOOST_TEST(want.size() > 100u);
                    const auto got = located_findings(r);
                    check_findings(got, want);
                    // Every cap and order aside, the same hits as with nothing kept.
                    if (cap > 1000) check_findings(got, reference_findings(dev.ctx(), in, patterns, cap));
                    if (batch < (std::uint64_t{1} << 20)) BOOST_TEST(r.scan_dispatches > 3u);
                    if (how.route == ve::deflate_route::device) {
                        BOOST_TEST((r.kept_bytes > 0) == how.keep);
                        if (how.keep) BOOST_TEST(r.unpack.kept_bytes >= r.kept_bytes);
                        else BOOST_TEST(r.unpack.kept_bytes == 0u);
                        // The tars inside pkg.tgz, nest.tgz and outer.zip came back to be parsed; the rest stayed.
                        if (how.keep) BOOST_TEST(r.unpack.fetched_bytes > 0u);
                        if (how.keep) BOOST_TEST(r.unpack.fetched_bytes < r.unpack.kept_bytes);
                    }
                }
            }
        }
    }
}

// The inputs spread over several devices (three contexts of one device, one input per batch, a
// damaged one among them) give the findings, counts and problems of one device; with a cap, each
// pattern keeps its first findings in listing order.
VYRE_DEVICE_TEST(several_devices_scan_as_one) {
    const archive_tree tree(vyre::test::test_seed() + 2);
    mapped_inputs in(tree.inputs);
    in.data[1].resize(in.data[1].size() / 2);
    in.inputs[1].bytes = in.data[1];
    const auto patterns = pick_patterns(tree.words, 200, 11);
    vyre::runtime::context second(dev.ctx().device()), third(dev.ctx().device());
    const vyre::ops::scan::device_patterns s1(dev.ctx(), patterns), s2(second, patterns), s3(third, patterns);
    vyre::runtime::context* devices[] = {&dev.ctx(), &second, &third};
    const vyre::ops::scan::device_patterns* sets[] = {&s1, &s2, &s3};
    vyre::runtime::batch_limits alone;
    alone.min_bytes = alone.max_bytes = 1;
    alone.max_items = 1;
    for (const std::uint32_t cap : {1u << 30, 3u}) {
        BOOST_TEST_CONTEXT("cap " << cap) {
            ve::scan_archives_options o;
            o.scan.max_hits_per_pattern = cap;
            const auto one = ve::scan_archives(dev.ctx(), s1, in.inputs, o);
            ve::unpack_device_stats stats;
            const auto many = ve::scan_archives_on_devices(devices, sets, in.inputs, o, &stats, alone);
            BOOST_TEST(many.counts == one.counts);
            BOOST_TEST(many.files == one.files);
            BOOST_TEST(many.bytes == one.bytes);
            BOOST_TEST(many.capped_patterns == one.capped_patterns);
            BOOST_REQUIRE(!one.unpack.problems.empty());
            BOOST_REQUIRE_EQUAL(many.unpack.problems.size(), one.unpack.problems.size());
            for (std::size_t i = 0; i < one.unpack.problems.size(); ++i) {
                BOOST_TEST(many.unpack.problems[i].path == one.unpack.problems[i].path);
                BOOST_TEST(many.unpack.problems[i].message == one.unpack.problems[i].message);
                BOOST_TEST(many.unpack.problems[i].order == one.unpack.problems[i].order);
            }
            std::size_t items = 0;
            for (const auto& d : stats) items += d.items;
            BOOST_TEST(items == in.inputs.size());
            const auto got = located_findings(many);
            if (cap > 1000) {
                BOOST_TEST(got.size() > 100u);
                check_findings(got, located_findings(one));
            } else { // each pattern's first `cap` findings of the uncapped listing
                const auto all = located_findings(ve::scan_archives(dev.ctx(), s1, in.inputs, {}));
                std::vector<located> want;
                std::vector<std::uint32_t> kept(patterns.size(), 0);
                for (const auto& f : all)
                    if (kept[f.pattern]++ < cap) want.push_back(f);
                check_findings(got, want);
            }
        }
    }
}

VYRE_DEVICE_TEST(damaged_archives_are_problems_and_the_rest_is_scanned) {
    const archive_tree tree(vyre::test::test_seed() + 1);
    mapped_inputs in(tree.inputs);
    // Truncate the ZIP in the middle of its data: it is read by its local headers up to the cut (a
    // warning, and the entry cut short a problem), and only the entries read whole are scanned;
    // the rest is scanned as before.
    in.data[1].resize(in.data[1].size() / 2);
    in.inputs[1].bytes = in.data[1];
    std::set<std::string> whole; // the truncated ZIP's entries that lie before the cut
    for (const auto& e : vyre::format::parse_zip(in.data[1]).entries)
        if (e.status == vyre::format::zip_entry_status::ok) whole.insert(tree.inputs[1] + "!/" + e.name);
    const auto patterns = pick_patterns(tree.words, 50, 7);
    const vyre::ops::scan::device_patterns set(dev.ctx(), patterns);
    const auto r = ve::scan_archives(dev.ctx(), set, in.inputs, {});
    BOOST_TEST(r.unpack.failures() >= 1u);
    BOOST_TEST(r.unpack.warnings() == 1u);
    BOOST_TEST(!r.findings.empty());
    for (const auto& f : located_findings(r))
        if (f.path.rfind(tree.inputs[1], 0) == 0) {
            const auto inner = f.path.find("!/", tree.inputs[1].size() + 2);
            BOOST_TEST(whole.count(f.path.substr(0, inner)) == 1u, f.path);
        }
}

// ugrep -z -F -f PATTERNS -o -b: per file, the leftmost match, the longest there, then on after its
// end. Our hits (every overlapping match) reduce to that set by the same rule.
VYRE_DEVICE_TEST(findings_reduce_to_what_ugrep_reports) {
    if (!vyre::test::have_tool("ugrep")) {
        BOOST_TEST_MESSAGE("ugrep is not installed: comparison skipped");
        return;
    }
    const archive_tree tree(vyre::test::test_seed() + 2);
    std::vector<std::string> paths = {tree.dir / "pkg.tgz", tree.dir / "pkg.zip", tree.dir / "pkg/src/f1.txt"};
    const mapped_inputs in(paths);
    const auto patterns = pick_patterns(tree.words, 200, 11);
    std::string list;
    for (const auto& p : patterns) list += p.name + "\n";
    vyre::test::write_text(tree.dir.path / "patterns.txt", list);
    const vyre::ops::scan::device_patterns set(dev.ctx(), patterns);
    ve::scan_archives_options o;
    o.scan.max_hits_per_pattern = 1u << 30;
    const auto r = ve::scan_archives(dev.ctx(), set, in.inputs, o);

    // Ours, reduced: (path in ugrep's spelling, offset, matched text).
    using row = std::tuple<std::string, std::uint64_t, std::string>;
    std::set<row> ours;
    std::map<std::string, std::vector<ve::scan_finding>> by_file;
    for (const auto& f : r.findings) by_file[r.hit_files[f.file].path].push_back(f);
    for (auto& [path, hits] : by_file) {
        std::string name = path;
        if (const auto bang = name.find("!/"); bang != std::string::npos) name = name.substr(0, bang) + "{" + name.substr(bang + 2) + "}";
        std::sort(hits.begin(), hits.end(), [&](const auto& a, const auto& b) {
            if (a.offset != b.offset) return a.offset < b.offset;
            return patterns[a.pattern].name.size() > patterns[b.pattern].name.size();
        });
        std::uint64_t cursor = 0;
        for (const auto& h : hits) {
            if (h.offset < cursor) continue;
            ours.insert({name, h.offset, patterns[h.pattern].name});
            cursor = h.offset + patterns[h.pattern].name.size();
        }
    }
    // ugrep's, with file names relative to the folder as it prints them.
    std::string cmd = "cd " + shell_quote(tree.dir.path) + " && ugrep -z -F -f patterns.txt -o -b --format='%f\t%b\t%o%~' pkg.tgz pkg.zip pkg/src/f1.txt";
    const std::string out = vyre::test::command_output(cmd);
    std::set<row> theirs;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        const auto a = line.find('\t'), b = line.find('\t', a + 1);
        BOOST_REQUIRE(a != std::string::npos && b != std::string::npos);
        theirs.insert({(tree.dir.path / line.substr(0, a)).string(), std::stoull(line.substr(a + 1, b - a - 1)), line.substr(b + 1)});
    }
    BOOST_TEST(theirs.size() > 100u);
    BOOST_TEST(ours.size() == theirs.size());
    std::vector<row> only_ours, only_theirs;
    std::set_difference(ours.begin(), ours.end(), theirs.begin(), theirs.end(), std::back_inserter(only_ours));
    std::set_difference(theirs.begin(), theirs.end(), ours.begin(), ours.end(), std::back_inserter(only_theirs));
    for (std::size_t i = 0; i < std::min<std::size_t>(3, only_ours.size()); ++i)
        BOOST_TEST(false, "only ours: " << std::get<0>(only_ours[i]) << ":" << std::get<1>(only_ours[i]) << ":" << std::get<2>(only_ours[i]));
    for (std::size_t i = 0; i < std::min<std::size_t>(3, only_theirs.size()); ++i)
        BOOST_TEST(false, "only ugrep's: " << std::get<0>(only_theirs[i]) << ":" << std::get<1>(only_theirs[i]) << ":"
                                           << std::get<2>(only_theirs[i]));
}
