// YARA rules over every file inside archives, behind `vyre scan --yara`: libyara (Debian's
// libyara-dev) compiles and evaluates the rules; the device scan (engine/scan.hpp, scan.patterns)
// is their prefilter, so that libyara runs only on files where a rule can match.
#pragma once

// How a run goes. The rules are compiled by libyara. Each rule's literal strings (text strings
// with nocase / ascii / wide; fullword and private ones too, whose matches are a subset of the
// literal's) and hex strings (their text read from the source, since libyara keeps none) become
// scan patterns: a hex string without jumps or alternatives as it is (wildcards and nibbles
// allowed), one with them as the piece every match contains (scan::hex_required_piece). A rule is
// prefiltered when its condition cannot be true without one of its strings matching
// (scan/yara_conditions.hpp) and all of its strings are such patterns. The files are scanned on
// the device as `vyre scan` scans them; then libyara evaluates every rule on each file where some
// rule's strings hit as its condition needs them to (`#a > 5` six hits, `2 of them` two of its
// strings, `$a and $b` both: yara_rules::may_match), or on every file when some rule is not
// prefiltered (a rule on `filesize`, `uint16(0)`, `not $a`, or with a regular expression). The
// device counts every match of a pattern, before fullword or a position test, so its counts are
// at least libyara's (a hex string sent as a piece counts only as present). A pattern that passed
// its hit cap in a scan call counts as present, as often as a need asks, in every file of that
// call (its hits are not all there), so only its rules look at every file. So a match is never lost
// to the prefilter: libyara decides every match, on exactly the bytes a plain `yara` would see.
// Where every rule is prefiltered, what the device decoded stays there and only the candidate
// files are read back.
// libyara evaluates the candidates on threads of its own, the largest first, while the run goes on
// (scanning the files left on the device, reading their candidates back); the run waits for it at
// the end of each layer, where the files' bytes are let go.
//
// Not yet: libyara's own string search runs again on each candidate file.

#include <vyre/engine/scan.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/bytes/gather.hpp>
#include <vyre/scan/pattern.hpp>
#include <vyre/scan/yara_conditions.hpp>
#include <vyre/util/parallel.hpp>

// libyara's headers one by one: <yara.h> also brings its module-writing macros (parent(),
// module(), ...), which would clash with other libraries' names.
#include <yara/compiler.h>
#include <yara/error.h>
#include <yara/libyara.h>
#include <yara/rules.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vyre::engine {

// libyara initialised for as long as one of these lives (yr_initialize is reference counted).
class yara_library {
public:
    yara_library() {
        if (yr_initialize() != ERROR_SUCCESS) throw resource_error("libyara could not be initialised");
    }
    ~yara_library() { yr_finalize(); }
    yara_library(const yara_library&) = delete;
    yara_library& operator=(const yara_library&) = delete;
};

// Compiled rules with their prefilter: the scan patterns of their literal strings, and which
// rules the scan may rule out.
class yara_rules {
public:
    // Compiles `source` (the text of a rules file; `name` names it in errors). Errors from libyara
    // are thrown as a format_error naming the line and libyara's message.
    yara_rules(const std::string& source, const std::string& name) {
        YR_COMPILER* compiler = nullptr;
        if (yr_compiler_create(&compiler) != ERROR_SUCCESS) throw resource_error("libyara: cannot create a compiler");
        std::unique_ptr<YR_COMPILER, void (*)(YR_COMPILER*)> owner(compiler, yr_compiler_destroy);
        std::string errors;
        yr_compiler_set_callback(
            compiler,
            [](int level, const char*, int line, const YR_RULE*, const char* message, void* user) {
                if (level != YARA_ERROR_LEVEL_ERROR) return;
                auto& e = *static_cast<std::string*>(user);
                e += (e.empty() ? "" : "; ") + std::string("line ") + std::to_string(line) + ": " + message;
            },
            &errors);
        if (yr_compiler_add_string(compiler, source.c_str(), nullptr) != 0 || !errors.empty())
            throw format_error("YARA rules " + name + ": " + errors);
        YR_RULES* rules = nullptr;
        if (yr_compiler_get_rules(compiler, &rules) != ERROR_SUCCESS) throw resource_error("libyara: cannot get the compiled rules of " + name);
        rules_.reset(rules);

        std::unordered_map<std::string, scan::yara_string_need> needs;
        std::unordered_map<std::string, std::string> hex_text; // "rule\n$id" -> the hex string's text
        for (auto& c : scan::yara_rule_conditions(source)) {
            if (c.needs_a_string) needs[c.name] = std::move(c.need);
            for (const auto& [id, text] : c.hex_strings) hex_text[c.name + "\n" + id] = text;
        }
        YR_RULE* rule = nullptr;
        yr_rules_foreach(rules, rule) {
            names_.emplace_back(rule->identifier);
            const auto rule_index = static_cast<std::uint32_t>(names_.size() - 1);
            std::vector<rule_string> strings; // the rule's strings in libyara's order, with their patterns
            bool covered = true, any = false;
            YR_STRING* string = nullptr;
            yr_rule_strings_foreach(rule, string) {
                any = true;
                const std::uint32_t flags = string->flags;
                const bool plain = !(flags & (STRING_FLAGS_XOR | STRING_FLAGS_BASE64 | STRING_FLAGS_BASE64_WIDE | STRING_FLAGS_REGEXP |
                                              STRING_FLAGS_CHAIN_PART));
                const bool literal = plain && (flags & STRING_FLAGS_LITERAL);
                if (plain && !literal && (flags & STRING_FLAGS_HEXADECIMAL)) {
                    // A hex string with wildcards, jumps or alternatives: its text, read from the
                    // source, as a hex pattern, or the piece of it every match holds.
                    const auto h = hex_text.find(names_.back() + "\n" + string->identifier);
                    const std::string name = names_.back() + ":" + string->identifier;
                    try {
                        if (h == hex_text.end()) throw format_error("no text");
                        try {
                            patterns_.push_back(scan::hex_pattern(name, h->second));
                            strings.push_back({string->identifier, patterns_.size() - 1, true});
                        } catch (const format_error&) {
                            // Matches of the string may share one match of the piece: its count
                            // says only whether the string can match.
                            patterns_.push_back(scan::hex_required_piece(name, h->second));
                            strings.push_back({string->identifier, patterns_.size() - 1, false});
                        }
                    } catch (const format_error&) {
                        covered = false;
                    }
                    continue;
                }
                if (!literal || string->length <= 0 || std::size_t(string->length) > scan::max_pattern_bytes) {
                    covered = false;
                    continue;
                }
                const std::string text(reinterpret_cast<const char*>(string->string), std::size_t(string->length));
                scan::literal_flags lf{(flags & STRING_FLAGS_NO_CASE) != 0, (flags & STRING_FLAGS_ASCII) != 0 || !(flags & STRING_FLAGS_WIDE),
                                       (flags & STRING_FLAGS_WIDE) != 0};
                try {
                    patterns_.push_back(scan::literal_pattern(names_.back() + ":" + string->identifier, text, lf));
                    strings.push_back({string->identifier, patterns_.size() - 1, true});
                } catch (const format_error&) {
                    covered = false; // no fixed byte: not a usable atom
                }
            }
            const auto n = needs.find(names_.back());
            prefiltered_.push_back(any && covered && n != needs.end());
            needs_.push_back(prefiltered_.back() ? compiled_need(n->second, strings) : compiled{});
            for (const auto& x : strings) {
                pattern_rule_.push_back(rule_index);
                pattern_counted_.push_back(x.counted);
            }
        }
    }

    YR_RULES* get() const noexcept { return rules_.get(); }
    std::size_t rule_count() const noexcept { return names_.size(); }
    std::size_t prefiltered_count() const noexcept { return static_cast<std::size_t>(std::count(prefiltered_.begin(), prefiltered_.end(), true)); }
    // Whether every file must go to libyara (some rule is not prefiltered).
    bool every_file() const noexcept { return prefiltered_count() < rule_count(); }
    const std::vector<scan::pattern>& patterns() const noexcept { return patterns_; }
    const std::string& name(std::size_t rule) const { return names_.at(rule); }

    // For each of `files` scanned in one call, whether a prefiltered rule can match it, by what
    // its condition needs of the counts of its strings' patterns in `hits` (the call's, each a
    // match the device found: at least as many as libyara finds of each string). `capped`: the
    // patterns that passed their hit cap in the call, whose hits are not all there: in every file
    // they count as present, as often as a need asks. The rules that are not prefiltered are for
    // the caller (every_file()).
    std::vector<char> may_match(std::size_t files, std::span<const scan::hit> hits, std::span<const std::uint32_t> capped = {}) const {
        std::vector<char> out(files, 0);
        std::vector<std::uint64_t> counts(patterns_.size(), 0);
        std::vector<std::uint32_t> always; // the rules of capped patterns: looked at in every file
        for (const std::uint32_t p : capped)
            if (p < counts.size()) {
                counts[p] = unbounded;
                always.push_back(pattern_rule_[p]);
            }
        std::vector<std::size_t> order(hits.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return hits[a].entry < hits[b].entry; });
        std::vector<std::uint32_t> seen, rules;
        std::size_t a = 0;
        for (std::size_t f = 0; f < files; ++f) {
            while (a < order.size() && hits[order[a]].entry < f) ++a; // entries past `files`: none
            for (; a < order.size() && hits[order[a]].entry == f; ++a)
                if (const std::uint32_t p = hits[order[a]].pattern; p < counts.size() && counts[p] != unbounded && counts[p]++ == 0) seen.push_back(p);
            if (seen.empty() && always.empty()) continue;
            rules = always;
            for (const std::uint32_t p : seen) rules.push_back(pattern_rule_[p]);
            std::sort(rules.begin(), rules.end());
            rules.erase(std::unique(rules.begin(), rules.end()), rules.end());
            for (const std::uint32_t r : rules)
                if (prefiltered_[r] && holds(needs_[r], counts)) {
                    out[f] = 1;
                    break;
                }
            for (const std::uint32_t p : seen) counts[p] = 0;
            seen.clear();
        }
        return out;
    }

    // The non-private rules that match `bytes`, by libyara (thread-safe: one scan per call).
    std::vector<std::string> matches(std::span<const std::uint8_t> bytes) const {
        std::vector<std::string> out;
        const int rc = yr_rules_scan_mem(
            rules_.get(), bytes.data(), bytes.size(), 0,
            [](YR_SCAN_CONTEXT*, int message, void* data, void* user) {
                if (message == CALLBACK_MSG_RULE_MATCHING)
                    static_cast<std::vector<std::string>*>(user)->emplace_back(static_cast<YR_RULE*>(data)->identifier);
                return CALLBACK_CONTINUE;
            },
            &out, 0);
        if (rc != ERROR_SUCCESS) throw resource_error("libyara: scanning failed with error " + std::to_string(rc));
        return out;
    }

private:
    // The count of a capped pattern: present, how often unknown.
    static constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();

    struct rule_string {
        std::string identifier;
        std::size_t pattern = 0;
        bool counted = true; // the pattern's matches are at least the string's (else: only whether it matches)
    };
    // A need (scan::yara_string_need) with its names resolved to pattern indices.
    struct compiled {
        scan::yara_string_need::kind_t kind = scan::yara_string_need::anything;
        std::vector<std::uint32_t> patterns;
        std::uint64_t n = 0;
        std::vector<compiled> parts;
    };

    static compiled compiled_need(const scan::yara_string_need& need, const std::vector<rule_string>& strings) {
        using need_t = scan::yara_string_need;
        compiled c{need.kind, {}, need.n, {}};
        for (const auto& part : need.parts) c.parts.push_back(compiled_need(part, strings));
        for (const std::string& name : need.names) {
            const bool prefix = name == "them" || name.ends_with('*');
            const std::string stem = name == "them" ? "$" : prefix ? name.substr(0, name.size() - 1) : name;
            const std::size_t before = c.patterns.size();
            for (const auto& x : strings)
                if (prefix ? x.identifier.starts_with(stem) : x.identifier == stem) c.patterns.push_back(static_cast<std::uint32_t>(x.pattern));
            if (c.patterns.size() == before) return {}; // a name that names no string: not followed
        }
        if (c.kind == need_t::strings && c.n == 0) c.n = c.patterns.size(); // all of them
        return c;
    }

    bool holds(const compiled& c, const std::vector<std::uint64_t>& counts) const {
        using need_t = scan::yara_string_need;
        switch (c.kind) {
        case need_t::anything: return true;
        case need_t::strings: {
            std::uint64_t matching = 0;
            for (const std::uint32_t p : c.patterns) matching += counts[p] > 0;
            return matching >= c.n;
        }
        case need_t::count: {
            std::uint64_t sum = 0;
            for (const std::uint32_t p : c.patterns) {
                if (counts[p] > 0 && (!pattern_counted_[p] || counts[p] == unbounded)) return true; // present, count unknown
                sum += counts[p]; // each below 2^32 (one call's hits)
            }
            return sum >= c.n;
        }
        case need_t::all: return std::all_of(c.parts.begin(), c.parts.end(), [&](const compiled& p) { return holds(p, counts); });
        case need_t::either: return std::any_of(c.parts.begin(), c.parts.end(), [&](const compiled& p) { return holds(p, counts); });
        }
        return true;
    }

    yara_library library_;
    struct rules_deleter {
        void operator()(YR_RULES* r) const { yr_rules_destroy(r); }
    };
    std::unique_ptr<YR_RULES, rules_deleter> rules_;
    std::vector<std::string> names_;
    std::vector<bool> prefiltered_;
    std::vector<compiled> needs_;               // per rule (anything where not prefiltered)
    std::vector<scan::pattern> patterns_;
    std::vector<std::uint32_t> pattern_rule_;   // per pattern: its rule
    std::vector<bool> pattern_counted_;         // per pattern: rule_string::counted
};

// Host files from this size on are scanned first in each layer (scan_batcher::early_bytes), so that
// libyara, which reads one file on one thread, starts on the largest candidates while the layer's
// other files upload and scan rather than after them (the run waits for it at the layer's end).
inline constexpr std::uint64_t yara_early_bytes = std::uint64_t{4} << 20;

struct yara_match {
    std::string path;                 // as scan_finding::path
    std::vector<std::uint32_t> order; // listing order of the file
    std::string rule;
};

struct yara_scan_report {
    std::vector<yara_match> matches; // by file (listing order), then in the rules' order
    std::size_t rules = 0, prefiltered_rules = 0;
    std::size_t files = 0;           // files scanned
    std::size_t files_evaluated = 0; // files libyara evaluated
    std::size_t files_first = 0;     // host files scanned first for their size (scan_archives_options::early_bytes)
    std::uint64_t bytes = 0;
    std::size_t scan_dispatches = 0;
    unpack_report unpack;
    scan_stage_seconds stage;      // the scan stage's parts; its findings part holds the two below
    double read_back_seconds = 0;  // candidate files read back from the device
    std::size_t read_back_files = 0;
    std::size_t read_back_calls = 0;         // bytes.gather calls that read them
    double read_back_program_seconds = 0;    // of read_back_seconds: waiting for bytes.gather's program
    std::uint64_t largest_evaluated = 0;     // bytes of the largest file libyara evaluated
    double libyara_seconds = 0;              // libyara evaluating the candidates, summed over its threads
    double libyara_waited_seconds = 0;       // the run waiting for libyara to finish a layer's candidates
};

// YARA rules over every file in `inputs` (see the note at the top). `patterns` must be built from
// rules.patterns() in the same context.
inline yara_scan_report yara_scan_archives(runtime::context& ctx, const yara_rules& rules, const ops::scan::device_patterns& patterns,
                                           std::span<const unpack_input> inputs, const scan_archives_options& options = {}) {
    yara_scan_report report;
    report.rules = rules.rule_count();
    report.prefiltered_rules = rules.prefiltered_count();
    // libyara runs beside the rest of the run, on at most its YR_MAX_THREADS scans at once: a file
    // on the host from the moment its scan call has passed it, one left on the device once read
    // back. The run waits for them where the files' views end (scan_batcher::views_end).
    util::background_jobs libyara(std::min(32u, util::thread_count(options.unpack.threads)));
    std::mutex lock; // guards report.matches
    const auto evaluate = [&](const detail::scanned_file& f, std::span<const std::uint8_t> bytes,
                              std::shared_ptr<const ops::bytes::gathered> owner) {
        ++report.files_evaluated;
        report.largest_evaluated = std::max<std::uint64_t>(report.largest_evaluated, bytes.size());
        libyara.push(bytes.size(), [&rules, &report, &lock, path = f.path, order = f.order, bytes, owner = std::move(owner)] {
            auto found = rules.matches(bytes);
            const std::lock_guard<std::mutex> g(lock);
            for (auto& name : found) report.matches.push_back({path, order, std::move(name)});
        });
    };
    // Each scan call on its own (no budget carried): a cap passed marks that call's files only.
    detail::scan_batcher batcher(ctx, patterns, options.scan, options.batch_bytes, nullptr,
                                 [&](std::span<const detail::scanned_file> files, const ops::scan::scan_result& r) {
                                     std::vector<char> candidate(files.size(), 1);
                                     if (!rules.every_file()) {
                                         // Patterns past their hit cap: more matches than hits kept.
                                         std::vector<std::uint32_t> capped;
                                         if (r.capped_patterns) {
                                             std::vector<std::uint64_t> kept(r.counts.size(), 0);
                                             for (const auto& h : r.hits)
                                                 if (h.pattern < kept.size()) ++kept[h.pattern];
                                             for (std::uint32_t q = 0; q < r.counts.size(); ++q)
                                                 if (r.counts[q] > kept[q]) capped.push_back(q);
                                         }
                                         candidate = rules.may_match(files.size(), r.hits, capped);
                                     }
                                     // Files left on the device come back packed by bytes.gather: per device
                                     // buffer one upload of their ranges, one dispatch and one read, where a
                                     // read per file cost tens of microseconds each on an NVIDIA queue.
                                     std::vector<std::pair<cl_mem, std::size_t>> by_buffer; // (buffer, file) in buffer order
                                     for (std::size_t f = 0; f < files.size(); ++f) {
                                         if (!candidate[f]) continue;
                                         if (const unpack_device_bytes* d = files[f].device) by_buffer.push_back({d->buffer.get(), f});
                                         else evaluate(files[f], files[f].bytes, nullptr);
                                     }
                                     const auto t0 = std::chrono::steady_clock::now();
                                     if (!by_buffer.empty()) {
                                         ops::bytes::gather_kernel().kernel_for(ctx); // built or loaded at its first use
                                         report.read_back_program_seconds +=
                                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                                     }
                                     std::stable_sort(by_buffer.begin(), by_buffer.end(),
                                                      [](const auto& a, const auto& b) { return std::less<cl_mem>()(a.first, b.first); });
                                     for (std::size_t a = 0; a < by_buffer.size();) {
                                         std::size_t b = a;
                                         std::vector<ops::bytes::byte_range> ranges;
                                         for (; b < by_buffer.size() && by_buffer[b].first == by_buffer[a].first; ++b) {
                                             const unpack_device_bytes* d = files[by_buffer[b].second].device;
                                             ranges.push_back({d->offset, d->size});
                                         }
                                         const auto pack = std::make_shared<const ops::bytes::gathered>(
                                             ops::bytes::gather_device(ctx, files[by_buffer[a].second].device->buffer, ranges));
                                         ++report.read_back_calls;
                                         for (std::size_t k = a; k < b; ++k)
                                             evaluate(files[by_buffer[k].second], pack->range(k - a, ranges[k - a].size), pack);
                                         a = b;
                                     }
                                     report.read_back_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                                     report.read_back_files += by_buffer.size();
                                 });
    batcher.early_bytes = options.early_bytes.value_or(yara_early_bytes);
    const bool may_read_back = options.keep_on_device && !rules.every_file();
    batcher.views_end = [&](bool failed) {
        if (failed) return libyara.abandon();
        const auto t0 = std::chrono::steady_clock::now();
        libyara.wait();
        report.libyara_waited_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    // When libyara reads every file, every file must come to the host anyway.
    report.unpack = detail::scan_inputs(ctx, inputs, options.unpack, may_read_back, batcher);
    report.files = batcher.files_scanned;
    report.bytes = batcher.bytes_scanned;
    report.scan_dispatches = batcher.dispatches;
    report.files_first = batcher.early_files;
    report.stage = batcher.seconds;
    report.libyara_seconds = libyara.busy_seconds();
    std::stable_sort(report.matches.begin(), report.matches.end(), [](const yara_match& a, const yara_match& b) { return a.order < b.order; });
    return report;
}

} // namespace vyre::engine
