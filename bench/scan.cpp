// scan.patterns against Hyperscan on all host cores, same input, same run: GB/s of scanned bytes
// for each, the hits each found, and ours / Hyperscan. PATH (a file's first N MiB, or a folder's
// files in sorted path order up to N MiB, as a tar would hold them) is cut into entries of
// --entry-bytes, each standing for one decompressed archive member: no match spans two entries.
// The pattern sets: for each count in --patterns, that many distinct words of the input (maximal
// runs of [A-Za-z0-9_] inside one entry, 4 to 32 bytes), drawn with a fixed seed (mt19937_64)
// among all that occur, so that every pattern hits at least once; or, with --pattern-file, every
// line of the file (as grep -F -f reads it). All are literal strings (scan::literal_pattern); a
// share of them, spread evenly over the set, is nocase (--nocase-share).
// Ours is measured two ways:
//   kernel  the input already in one device buffer: the OpenCL profiling time of the dispatches of
//           one scan_device call (scan_result::kernel_seconds), median of the runs after a first
//           that builds and warms up;
//   e2e     the input in pinned host memory (copied there once, untimed) -> hits in host memory,
//           sorted: one upload of the whole input, then scan_device (its chunk table upload, the
//           dispatch, the hit readback and the op's sort on the host), nothing overlapped; wall
//           time, median of the runs after the first.
// The hit buffer is the op's default (scan_options: a dispatch that overflows it runs again with
// room for all its hits); --hit-capacity N fixes it at N hits, so that dispatches that overflow it
// are split, and measures that.
// The peer: Hyperscan's literal mode (hs_compile_lit_multi, HS_MODE_BLOCK, HS_FLAG_CASELESS for
// the nocase patterns; a match starts at its end less the pattern's length), entries handed out one
// at a time to all host threads (util/parallel.hpp), one scratch per thread (hs_clone_scratch, on
// the thread's first entry, timed), each hit recorded as (entry, pattern, start) in its entry's
// list, unsorted; wall time, median of the runs after the first. Setup is reported apart (setup
// ms): ours, the tables' build (scan::build_filter_tables) and upload (ops::scan::device_patterns);
// Hyperscan's, its compile (hs_compile_lit_multi).
// Before a set's figures are printed, our hits (kernel run and end-to-end run) and Hyperscan's,
// sorted by scan::hit_order, must be equal, none capped (max_hits_per_pattern 2^30): on a
// difference the first one is printed and the program exits with status 1.
//   bench_scan PATH [--mib N (256)] [--patterns 1000,10000] [--pattern-file FILE] [--entry-bytes 65536]
//              [--runs N (5)] [--threads N (all cores)] [--nocase-share F (0)] [--hit-capacity N]
#include "bench_util.hpp"
#include "corpus.hpp"

#include <vyre/ops/scan/patterns.hpp>
#include <vyre/runtime/buffer.hpp>

#include <hs/hs.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace rt = vyre::runtime;
namespace vs = vyre::scan;
namespace sc = vyre::ops::scan;
namespace vb = vyre::bench;
using vb::median;
using vb::now_seconds;
using bytes = std::vector<std::uint8_t>;
using hits = std::vector<vs::hit>;

namespace {

// A scanner that found other hits than the peer: no figures.
[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_scan: %s: NOT printing figures\n", what.c_str());
    std::exit(1);
}

// A setup that cannot run (bad option, unreadable input, a pattern refused).
[[noreturn]] void refuse(const std::string& what) {
    std::fprintf(stderr, "bench_scan: %s\n", what.c_str());
    std::exit(2);
}

struct settings {
    std::string path, pattern_file;
    std::size_t mib = 256, entry_bytes = 65536;
    std::vector<std::size_t> counts = {1000, 10000};
    int runs = 5;
    unsigned threads = vyre::util::thread_count();
    double nocase_share = 0;
    std::uint64_t hit_capacity = 0;
};

// Pattern i of a set is nocase when the share's running total passes a whole number there.
bool is_nocase(std::size_t i, double share) {
    return std::floor(double(i + 1) * share) > std::floor(double(i) * share);
}

// ---- the pattern sets --------------------------------------------------------------------------

// The distinct words of the input, sorted: maximal runs of [A-Za-z0-9_] within one entry, 4 to 32
// bytes long.
std::vector<std::string_view> input_words(const bytes& in, std::span<const vs::entry_extent> entries) {
    const auto word_byte = [](std::uint8_t c) {
        return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
    };
    std::unordered_set<std::string_view> seen;
    for (const auto& x : entries) {
        const auto* p = reinterpret_cast<const char*>(in.data() + x.offset);
        for (std::size_t i = 0, j; i < x.size; i = j + 1) {
            for (j = i; j < x.size && word_byte(static_cast<std::uint8_t>(p[j])); ++j) {}
            if (j - i >= 4 && j - i <= 32) seen.emplace(p + i, j - i);
        }
    }
    std::vector<std::string_view> words(seen.begin(), seen.end());
    std::sort(words.begin(), words.end());
    return words;
}

// `n` of `words` drawn without replacement (a partial Fisher-Yates shuffle, seed 42): the same on
// every platform, and a smaller set is a prefix of a larger one.
std::vector<std::string> draw(std::vector<std::string_view> words, std::size_t n) {
    std::mt19937_64 rng(42);
    for (std::size_t i = 0; i < n; ++i) std::swap(words[i], words[i + rng() % (words.size() - i)]);
    return {words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n)};
}

std::vector<vs::pattern> literal_set(const std::vector<std::string>& text, double nocase_share) {
    std::vector<vs::pattern> out;
    try {
        for (std::size_t i = 0; i < text.size(); ++i)
            out.push_back(vs::literal_pattern(text[i], text[i], {.nocase = is_nocase(i, nocase_share)}));
    } catch (const vyre::error& e) {
        refuse(e.what());
    }
    return out;
}

// ---- the peer ----------------------------------------------------------------------------------

// A Hyperscan literal database of the set, and one scratch to clone per thread.
struct hyperscan_db {
    hs_database_t* db = nullptr;
    hs_scratch_t* scratch = nullptr;
    std::vector<std::size_t> lengths;
    double compile_seconds = 0;

    hyperscan_db(const std::vector<std::string>& text, double nocase_share) {
        std::vector<const char*> expressions;
        std::vector<unsigned> flags, ids;
        for (std::size_t i = 0; i < text.size(); ++i) {
            expressions.push_back(text[i].data());
            lengths.push_back(text[i].size());
            flags.push_back(is_nocase(i, nocase_share) ? HS_FLAG_CASELESS : 0u);
            ids.push_back(static_cast<unsigned>(i));
        }
        hs_compile_error_t* error = nullptr;
        const double t0 = now_seconds();
        const hs_error_t r = hs_compile_lit_multi(expressions.data(), flags.data(), ids.data(), lengths.data(),
                                                  static_cast<unsigned>(text.size()), HS_MODE_BLOCK, nullptr, &db, &error);
        compile_seconds = now_seconds() - t0;
        if (r != HS_SUCCESS) {
            const std::string message = error ? error->message : "error " + std::to_string(r);
            hs_free_compile_error(error);
            refuse("hs_compile_lit_multi: " + message);
        }
        if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) refuse("hs_alloc_scratch failed");
    }
    ~hyperscan_db() {
        hs_free_scratch(scratch);
        hs_free_database(db);
    }
    hyperscan_db(const hyperscan_db&) = delete;
    hyperscan_db& operator=(const hyperscan_db&) = delete;
};

struct hs_thread {
    hs_scratch_t* scratch = nullptr;
    ~hs_thread() { hs_free_scratch(scratch); }
};

// One scan with Hyperscan on `threads` threads: every hit into per_entry (made afresh), wall seconds.
double hyperscan_seconds(const hyperscan_db& h, const bytes& in, std::span<const vs::entry_extent> entries, unsigned threads,
                         std::vector<hits>& per_entry) {
    struct sink {
        hits* out;
        const std::size_t* lengths;
        std::uint32_t entry;
    };
    const auto on_match = [](unsigned id, unsigned long long, unsigned long long to, unsigned, void* p) -> int {
        auto* s = static_cast<sink*>(p);
        s->out->push_back({s->entry, id, to - s->lengths[id]});
        return 0;
    };
    per_entry.assign(entries.size(), {});
    std::atomic<bool> ok{true};
    const double t0 = now_seconds();
    vyre::util::parallel_chunks<hs_thread>(entries.size(), threads, 1, [&](std::size_t begin, std::size_t end, hs_thread& t) {
        if (!t.scratch && hs_clone_scratch(h.scratch, &t.scratch) != HS_SUCCESS) {
            ok = false;
            return;
        }
        for (std::size_t e = begin; e < end; ++e) {
            sink s{&per_entry[e], h.lengths.data(), static_cast<std::uint32_t>(e)};
            if (hs_scan(h.db, reinterpret_cast<const char*>(in.data() + entries[e].offset), static_cast<unsigned>(entries[e].size), 0,
                        t.scratch, on_match, &s) != HS_SUCCESS)
                ok = false;
        }
    });
    const double t = now_seconds() - t0;
    if (!ok) fail("hs_scan or hs_clone_scratch failed");
    return t;
}

// ---- checking ----------------------------------------------------------------------------------

// The first difference between two lists sorted by hit_order, described ("" when they are equal).
std::string first_difference(const hits& ours, const hits& peer, const std::vector<std::string>& text) {
    const std::size_t i = static_cast<std::size_t>(std::mismatch(ours.begin(), ours.end(), peer.begin(), peer.end()).first - ours.begin());
    if (i == ours.size() && i == peer.size()) return {};
    const auto at = [&](const char* who, const hits& v) {
        if (i >= v.size()) return std::string(who) + " has no more (" + std::to_string(v.size()) + " hits)";
        return std::string(who) + ": entry " + std::to_string(v[i].entry) + " offset " + std::to_string(v[i].offset) + " pattern " +
               std::to_string(v[i].pattern) + " \"" + text[v[i].pattern] + "\"";
    };
    return "hit " + std::to_string(i) + " differs; " + at("ours", ours) + "; " + at("Hyperscan", peer);
}

// ---- the program -------------------------------------------------------------------------------

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

void usage() {
    std::fprintf(stderr,
                 "usage: bench_scan PATH [--mib N (256)] [--patterns 1000,10000 (words of the input)] [--pattern-file FILE\n"
                 "       (one literal a line, instead)] [--entry-bytes 65536] [--runs N (5)] [--threads N (all cores)]\n"
                 "       [--nocase-share F (0: the share of nocase patterns)] [--hit-capacity N (fixed hit buffer; dispatches that overflow it are split)]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
    settings s;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&] {
            if (i + 1 >= argc) usage();
            return std::string(argv[++i]);
        };
        if (a == "--mib") s.mib = std::stoull(value());
        else if (a == "--patterns") {
            s.counts.clear();
            for (const auto& c : split(value())) s.counts.push_back(std::stoull(c));
            if (s.counts.empty() || std::find(s.counts.begin(), s.counts.end(), 0) != s.counts.end()) usage();
        } else if (a == "--pattern-file") s.pattern_file = value();
        else if (a == "--entry-bytes") s.entry_bytes = std::stoull(value());
        else if (a == "--runs") s.runs = std::max(1, std::stoi(value()));
        else if (a == "--threads") s.threads = static_cast<unsigned>(std::max(1, std::stoi(value())));
        else if (a == "--nocase-share") s.nocase_share = std::stod(value());
        else if (a == "--hit-capacity") s.hit_capacity = std::stoull(value());
        else if (a == "--help" || a == "-h") usage();
        else if (!a.empty() && a[0] != '-' && s.path.empty()) s.path = a;
        else usage();
    }
    if (s.path.empty()) usage();
    if (s.mib == 0 || s.mib > 4095) refuse("--mib: 1 to 4095 (one scan addresses below 4 GiB)");
    if (s.entry_bytes == 0 || s.entry_bytes > (std::size_t{1} << 31)) refuse("--entry-bytes: 1 byte to 2 GiB");
    if (!(s.nocase_share >= 0 && s.nocase_share <= 1)) refuse("--nocase-share: 0 to 1");

    rt::context ctx(rt::choose_device(), /*profiling=*/true);
    vb::print_header(ctx, "bench_scan: scan.patterns against Hyperscan's literal mode on all host cores");

    // The input, its entries, and the pattern sets.
    const bytes input = vb::read_input_path(s.path, s.mib << 20, "bench_scan");
    if (input.empty()) refuse(s.path + " is empty");
    const std::uint64_t padded = rt::padded_bytes(input.size());
    if (padded > ctx.device().max_allocation) refuse("the input passes the device's largest allocation; take a smaller --mib");
    std::vector<vs::entry_extent> entries;
    for (std::uint64_t at = 0; at < input.size(); at += s.entry_bytes)
        entries.push_back({at, std::min<std::uint64_t>(s.entry_bytes, input.size() - at)});
    const unsigned hs_threads = static_cast<unsigned>(std::min<std::size_t>(s.threads, entries.size()));

    std::vector<std::vector<std::string>> sets;
    if (!s.pattern_file.empty()) {
        std::ifstream f(s.pattern_file, std::ios::binary);
        if (!f) refuse("cannot read " + s.pattern_file);
        const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        std::vector<std::string> lines;
        try {
            for (const auto& p : vs::literal_lines(text)) lines.push_back(p.name);
        } catch (const vyre::error& e) {
            refuse(s.pattern_file + ": " + e.what());
        }
        if (lines.empty()) refuse(s.pattern_file + " has no patterns");
        sets.push_back(std::move(lines));
    } else {
        const auto words = input_words(input, entries);
        const std::size_t most = *std::max_element(s.counts.begin(), s.counts.end());
        if (most > words.size())
            refuse("the input has only " + std::to_string(words.size()) + " distinct words; --patterns asks for " + std::to_string(most));
        const auto drawn = draw(words, most);
        for (std::size_t n : s.counts) sets.emplace_back(drawn.begin(), drawn.begin() + static_cast<std::ptrdiff_t>(n));
    }

    std::printf("# Hyperscan %s, literal mode, block mode, on %u threads; %d runs, median; GB/s of scanned bytes\n", hs_version(),
                hs_threads, s.runs);
    std::printf("# kernel: the input resident on the device (OpenCL profiling time); e2e: pinned input -> sorted hits on the host\n"
                "# (upload, scan_device, readback, wall time); setup ms: ours, tables built and uploaded; Hyperscan's, compile\n");
    std::printf("# input: %s, %zu bytes in %zu entries of %zu bytes\n", s.path.c_str(), input.size(), entries.size(), s.entry_bytes);
    const std::string source = s.pattern_file.empty() ? "distinct words of the input ([A-Za-z0-9_]{4,32}), drawn with seed 42"
                                                      : "the lines of " + s.pattern_file;
    std::printf("# patterns: %s; nocase share %.2f\n", source.c_str(), s.nocase_share);

    // The input in pinned memory and on the device.
    rt::pinned_host_buffer pinned(ctx, padded);
    std::memcpy(pinned.span().data(), input.data(), input.size());
    std::memset(pinned.span().data() + input.size(), 0, padded - input.size());
    auto device_input = rt::allocate(ctx, padded, CL_MEM_READ_ONLY);
    pinned.copy_to_device(device_input, padded).wait();

    const std::string label = vb::input_label(s.path) + (s.pattern_file.empty() ? "" : " / " + vb::input_label(s.pattern_file));
    const double gb = double(input.size()) / 1e9;
    std::printf("\n%8s  %-22s %11s %9s %12s %8s %8s %9s\n", "patterns", "who", "kernel GB/s", "e2e GB/s", "hits", "kern/hs", "e2e/hs",
                "setup ms");
    for (const auto& text : sets) {
        const std::size_t n = text.size();
        const auto patterns = literal_set(text, s.nocase_share);

        // Hyperscan.
        const hyperscan_db hs(text, s.nocase_share);
        std::vector<hits> per_entry;
        std::vector<double> ht;
        for (int r = 0; r < s.runs + 1; ++r) {
            const double t = hyperscan_seconds(hs, input, entries, hs_threads, per_entry);
            if (r > 0) ht.push_back(t);
        }
        hits want;
        for (const auto& h : per_entry) want.insert(want.end(), h.begin(), h.end());
        std::sort(want.begin(), want.end(), vs::hit_order);

        // Ours: the tables, then the kernel runs on the resident input, then end to end.
        const double t0 = now_seconds();
        const sc::device_patterns tables(ctx, patterns);
        tables.on_device();
        ctx.finish();
        const double setup = now_seconds() - t0;
        sc::scan_options options;
        options.max_hits_per_pattern = 1u << 30;
        if (s.hit_capacity) {
            const std::uint64_t room = std::min<std::uint64_t>(ctx.device().max_allocation / 12, sc::max_hit_capacity);
            options.hit_capacity = options.hit_capacity_limit = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(s.hit_capacity, 1, room));
        }
        std::vector<double> kt, et;
        sc::scan_result kernel_run, e2e_run;
        for (int r = 0; r < s.runs + 1; ++r) {
            kernel_run = sc::scan_device(ctx, tables, device_input, entries, options);
            if (r > 0) kt.push_back(kernel_run.kernel_seconds);
        }
        for (int r = 0; r < s.runs + 1; ++r) {
            const double e0 = now_seconds();
            pinned.copy_to_device(device_input, padded).wait();
            e2e_run = sc::scan_device(ctx, tables, device_input, entries, options);
            if (r > 0) et.push_back(now_seconds() - e0);
        }
        for (const auto* run : {&kernel_run, &e2e_run})
            if (const std::string d = first_difference(run->hits, want, text); !d.empty())
                fail(std::to_string(n) + " patterns, " + (run == &kernel_run ? "kernel" : "end to end") + " run: " + d);

        const double hs_gbs = gb / median(ht), kernel_gbs = gb / median(kt), e2e_gbs = gb / median(et);
        const std::string peer = "hyperscan " + std::to_string(hs_threads) + " threads";
        std::printf("%8zu  %-22s %11.3f %9.3f %12zu %8.2f %8.2f %9.1f\n", n, "vyre", kernel_gbs, e2e_gbs, kernel_run.hits.size(),
                    kernel_gbs / hs_gbs, e2e_gbs / hs_gbs, setup * 1e3);
        std::printf("%8zu  %-22s %11s %9.3f %12zu %8s %8s %9.1f\n", n, peer.c_str(), "-", hs_gbs, want.size(), "-", "-",
                    hs.compile_seconds * 1e3);
        std::uint32_t largest_bucket = 0;
        for (std::size_t k = 0; k + 1 < tables.tables.bucket_start.size(); ++k)
            largest_bucket = std::max(largest_bucket, tables.tables.bucket_start[k + 1] - tables.tables.bucket_start[k]);
        std::printf("#   %zu patterns: %u dispatch%s a scan (hit buffer of %u hits), largest atom bucket %u forms\n", n,
                    kernel_run.dispatches, kernel_run.dispatches == 1 ? "" : "es", options.hit_capacity, largest_bucket);
        const auto emit = [&](const std::string& series, const char* metric, double value) {
            vb::emit({"scan", ctx.device().label(), label, "patterns", double(n), series, metric, value});
        };
        emit("vyre", "kernel GB/s", kernel_gbs);
        emit("vyre", "e2e GB/s", e2e_gbs);
        emit("vyre", "setup seconds", setup);
        emit(peer, "GB/s", hs_gbs);
        emit(peer, "setup seconds", hs.compile_seconds);
        std::fflush(stdout);
    }
    return 0;
}
