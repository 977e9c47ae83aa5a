// Which YARA rules can be prefiltered, and with what: read from a rules file's text, for each rule
// its name and what its condition needs of its strings. The scan stage uses the answer to skip
// libyara on files where a rule's strings do not occur as its condition needs them to; a rule the
// analysis cannot read is evaluated on every file, so the answer may be "anything" too often but
// never too little.
//
// The analysis, on the condition's tokens (C and C++ comments, strings and regular expressions
// read as whole tokens), builds a formula over how often each string matches in a file:
//   A or B         holds where A or B does (anything, if either needs no string);
//   A and B        where both do (a part that needs no string drops out);
//   ( A )          as A, unless something follows the parenthesis (a comparison): anything;
//   $a, $a at E, $a in (E..F)                      $a matches;
//   #a > N (N >= 0), #a >= N or #a == N (N >= 1), and sums #a + #b ... in their place
//                                                  the matches add up to at least N + 1, N;
//   any / all / N of them, or of ($a, $b*), with or without `at` / `in`
//                                                  at least 1 / all / N of those strings match;
//   anything else (not, filesize, uint16(0), module calls, other rules' names, for loops,
//   arithmetic, numbers other than decimal or 0x hex with an optional KB / MB): anything.
// Each formula grows with the counts: given counts at least libyara's (a device scan's matches,
// before fullword, private or the position tests apply), it holds wherever the condition can.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vyre::scan {

// What a condition needs of its rule's strings (see the note at the top).
struct yara_string_need {
    enum kind_t : std::uint8_t {
        anything, // may hold with no string matching
        strings,  // at least n of the strings named match (n = 0: all of them)
        count,    // the matches of the strings named add up to at least n
        all,      // every part holds
        either,   // some part holds
    } kind = anything;
    // "$a", "$a*" (every string whose identifier starts with "$a"), or "them" (every string).
    std::vector<std::string> names;
    std::uint64_t n = 0;
    std::vector<yara_string_need> parts;

    // Whether it holds where no string matches.
    bool holds_without_strings() const {
        switch (kind) {
        case anything: return true;
        case strings:
        case count: return false;
        case all: return std::all_of(parts.begin(), parts.end(), [](const auto& p) { return p.holds_without_strings(); });
        case either: return std::any_of(parts.begin(), parts.end(), [](const auto& p) { return p.holds_without_strings(); });
        }
        return true;
    }
};

struct yara_rule_condition {
    std::string name;
    yara_string_need need;
    bool needs_a_string = false; // true: the rule cannot match a file where none of its strings do
    // The hex strings of the rule as written between their braces, by identifier ("$h"; anonymous
    // ones, named "$" only, are left out): libyara keeps no text of a hex string with wildcards.
    std::vector<std::pair<std::string, std::string>> hex_strings;
};

namespace detail {

struct yara_token {
    enum kind_t { word, number, string, regex, symbol, end } kind = end;
    std::string text;
};

// Tokens of YARA source. `regex_after` decides whether a '/' starts a regular expression: after
// '=' (a string's value) or the word "matches".
class yara_lexer {
public:
    explicit yara_lexer(std::string_view s) : s_(s) {}

    yara_token next() {
        skip_space();
        yara_token t;
        if (at_ >= s_.size()) return t;
        const char c = s_[at_];
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '#' || c == '@' || c == '!') {
            const std::size_t b = at_++;
            while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '_' || s_[at_] == '*' || s_[at_] == '.'))
                ++at_;
            t = {yara_token::word, std::string(s_.substr(b, at_ - b))};
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            const std::size_t b = at_++;
            while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '.')) ++at_;
            t = {yara_token::number, std::string(s_.substr(b, at_ - b))};
        } else if (c == '"') {
            t = {yara_token::string, quoted('"')};
        } else if (c == '/' && regex_allowed_) {
            t = {yara_token::regex, quoted('/')};
            while (at_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[at_]))) ++at_; // flags
        } else {
            // Two-character operators first.
            static const char* pairs[] = {"..", ">=", "<=", "==", "!=", "<<", ">>"};
            for (const char* p : pairs)
                if (s_.substr(at_, 2) == p) {
                    at_ += 2;
                    regex_allowed_ = false;
                    return {yara_token::symbol, p};
                }
            t = {yara_token::symbol, std::string(1, c)};
            ++at_;
        }
        regex_allowed_ = (t.kind == yara_token::symbol && t.text == "=") || (t.kind == yara_token::word && t.text == "matches");
        return t;
    }

    // The raw text of a hex string after its '{', up to the matching '}' (hex strings hold no
    // braces of their own), which is passed.
    std::string hex_text() {
        const std::size_t b = at_;
        while (at_ < s_.size() && s_[at_] != '}') ++at_;
        std::string text(s_.substr(b, at_ - b));
        if (at_ < s_.size()) ++at_;
        regex_allowed_ = false;
        return text;
    }

private:
    void skip_space() {
        for (;;) {
            while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
            if (s_.substr(at_, 2) == "//") {
                while (at_ < s_.size() && s_[at_] != '\n') ++at_;
            } else if (s_.substr(at_, 2) == "/*") {
                const std::size_t e = s_.find("*/", at_ + 2);
                at_ = e == std::string_view::npos ? s_.size() : e + 2;
            } else {
                return;
            }
        }
    }
    std::string quoted(char q) {
        std::string out;
        ++at_;
        while (at_ < s_.size() && s_[at_] != q) {
            if (s_[at_] == '\\' && at_ + 1 < s_.size()) out += s_[at_++];
            out += s_[at_++];
        }
        if (at_ < s_.size()) ++at_;
        return out;
    }

    std::string_view s_;
    std::size_t at_ = 0;
    bool regex_allowed_ = false;
};

// A YARA integer as the analysis reads it: decimal or 0x hex digits, optionally followed by KB or
// MB; anything else is not read (nullopt), so no form is read as more than it is.
inline std::optional<std::uint64_t> yara_integer(const std::string& text) {
    std::uint64_t scale = 1;
    std::string digits = text;
    if (digits.size() > 2 && (digits.ends_with("KB") || digits.ends_with("MB"))) {
        scale = digits.ends_with("KB") ? 1024 : 1024 * 1024;
        digits.resize(digits.size() - 2);
    }
    const bool hex = digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
    const std::size_t first = hex ? 2 : 0;
    if (digits.size() == first || digits.size() - first > (hex ? 15u : 18u)) return std::nullopt; // no overflow below
    std::uint64_t v = 0;
    for (std::size_t i = first; i < digits.size(); ++i) {
        const char c = digits[i];
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (d < 0) return std::nullopt;
        v = v * (hex ? 16 : 10) + static_cast<std::uint64_t>(d);
    }
    if (v > UINT64_MAX / scale) return std::nullopt;
    return v * scale;
}

// Recursive descent over one condition's tokens (see the note at the top).
class yara_condition_parser {
public:
    yara_condition_parser(std::vector<yara_token> tokens, bool has_strings) : t_(std::move(tokens)), has_strings_(has_strings) {}

    yara_string_need need() {
        yara_string_need r = expression();
        return at_ == t_.size() ? r : yara_string_need{};
    }

private:
    using need_t = yara_string_need;
    const yara_token* peek(std::size_t ahead = 0) const { return at_ + ahead < t_.size() ? &t_[at_ + ahead] : nullptr; }
    bool is(const yara_token* t, std::string_view text) const { return t && t->text == text && t->kind != yara_token::string; }
    bool at_boundary() const {
        const auto* t = peek();
        return !t || is(t, "and") || is(t, "or") || is(t, ")");
    }
    // Skips to the next `and`, `or` or unmatched ')' at this depth.
    void skip_opaque() {
        int depth = 0;
        while (const auto* t = peek()) {
            if (depth == 0 && (is(t, "and") || is(t, "or") || is(t, ")"))) return;
            if (is(t, "(")) ++depth;
            if (is(t, ")")) --depth;
            ++at_;
        }
    }
    need_t expression() {
        need_t any{need_t::either, {}, 0, {}};
        bool opaque = false;
        for (bool first = true; first || is(peek(), "or"); first = false) {
            if (!first) ++at_;
            need_t t = term();
            opaque = opaque || t.kind == need_t::anything;
            any.parts.push_back(std::move(t));
        }
        if (opaque) return {};
        return any.parts.size() == 1 ? std::move(any.parts[0]) : any;
    }
    need_t term() {
        need_t all{need_t::all, {}, 0, {}};
        for (bool first = true; first || is(peek(), "and"); first = false) {
            if (!first) ++at_;
            need_t f = factor();
            if (f.kind != need_t::anything) all.parts.push_back(std::move(f));
        }
        if (all.parts.empty()) return {};
        return all.parts.size() == 1 ? std::move(all.parts[0]) : all;
    }
    need_t factor() {
        const auto* t = peek();
        if (!t) return {};
        if (is(t, "(")) {
            ++at_;
            need_t inner = expression();
            if (!is(peek(), ")")) return skip_opaque(), need_t{};
            ++at_;
            if (at_boundary()) return inner;
            skip_opaque();
            return {};
        }
        const std::size_t start = at_;
        skip_opaque();
        return leaf(start, at_);
    }
    // What the tokens [b, e) alone need (the leaf forms of the note at the top).
    need_t leaf(std::size_t b, std::size_t e) const {
        if (b == e) return {};
        const yara_token& first = t_[b];
        const auto word = [&](std::size_t i) -> std::string_view { return i < e && t_[i].kind == yara_token::word ? std::string_view(t_[i].text) : ""; };
        const auto sym = [&](std::size_t i) -> std::string_view { return i < e && t_[i].kind == yara_token::symbol ? std::string_view(t_[i].text) : ""; };
        const auto integer = [&](std::size_t i) { return i < e && t_[i].kind == yara_token::number ? yara_integer(t_[i].text) : std::nullopt; };
        const auto is_id = [&](std::size_t i, char c) { return word(i).size() > 1 && word(i)[0] == c && word(i).find('*') == std::string_view::npos; };
        if (is_id(b, '$')) {
            if (b + 1 == e || word(b + 1) == "at" || word(b + 1) == "in") return {need_t::strings, {first.text}, 1, {}}; // $a, $a at E, $a in (..)
            return {};
        }
        if (is_id(b, '#')) { // #a [+ #b ...] OP N
            need_t sum{need_t::count, {}, 0, {}};
            std::size_t i = b;
            for (;; i += 2) {
                if (!is_id(i, '#')) return {};
                sum.names.push_back("$" + t_[i].text.substr(1));
                if (sym(i + 1) != "+") break;
            }
            const std::string_view op = sym(i + 1);
            const auto n = integer(i + 2);
            if (!n || i + 3 != e) return {};
            if (op == ">" && *n < UINT64_MAX) sum.n = *n + 1;
            else if ((op == ">=" || op == "==") && *n >= 1) sum.n = *n;
            else return {};
            return sum;
        }
        // any / all / N of them | ( ... ) [at E | in (..)]
        const auto n = integer(b);
        if (!(word(b) == "any" || word(b) == "all" || (n && *n >= 1)) || word(b + 1) != "of") return {};
        need_t of{need_t::strings, {}, word(b) == "any" ? 1 : word(b) == "all" ? 0 : *n, {}};
        std::size_t after = 0;
        if (word(b + 2) == "them") {
            if (!has_strings_) return {};
            of.names = {"them"};
            after = b + 3;
        } else if (sym(b + 2) == "(") {
            std::size_t i = b + 3;
            for (; i < e && sym(i) != ")"; ++i) {
                if (sym(i) == ",") continue;
                if (!(t_[i].kind == yara_token::word && t_[i].text[0] == '$')) return {};
                of.names.push_back(t_[i].text);
            }
            if (i >= e || of.names.empty()) return {};
            after = i + 1;
        } else {
            return {};
        }
        if (after == e || word(after) == "at" || word(after) == "in") return of;
        return {};
    }

    std::vector<yara_token> t_;
    bool has_strings_;
    std::size_t at_ = 0;
};

} // namespace detail

// Every rule of `source` (a YARA rules file's text) with what its condition needs. Text this
// reader does not follow ends the list early: rules missing from it are treated by the caller as
// not prefilterable.
inline std::vector<yara_rule_condition> yara_rule_conditions(std::string_view source) {
    using detail::yara_token;
    std::vector<yara_rule_condition> out;
    detail::yara_lexer lex(source);
    yara_token t = lex.next();
    while (t.kind != yara_token::end) {
        // import "pe"; include "x" (the included rules are not read: not prefilterable)
        if (t.kind == yara_token::word && (t.text == "import" || t.text == "include")) {
            lex.next();
            t = lex.next();
            continue;
        }
        while (t.kind == yara_token::word && (t.text == "private" || t.text == "global")) t = lex.next();
        if (!(t.kind == yara_token::word && t.text == "rule")) return out;
        const yara_token name = lex.next();
        if (name.kind != yara_token::word) return out;
        t = lex.next();
        while (t.kind != yara_token::end && !(t.kind == yara_token::symbol && t.text == "{")) t = lex.next(); // tags
        if (t.kind == yara_token::end) return out;
        bool has_strings = false;
        std::vector<std::pair<std::string, std::string>> hex_strings;
        std::string last_word;
        t = lex.next();
        // meta: and strings: sections, up to condition:
        while (t.kind != yara_token::end && !(t.kind == yara_token::word && t.text == "condition")) {
            if (t.kind == yara_token::word && t.text == "strings") has_strings = true;
            if (t.kind == yara_token::symbol && t.text == "=") {
                t = lex.next();
                if (t.kind == yara_token::symbol && t.text == "{") {
                    std::string text = lex.hex_text();
                    if (last_word.size() > 1 && last_word[0] == '$') hex_strings.emplace_back(last_word, std::move(text));
                }
            }
            last_word = t.kind == yara_token::word ? t.text : std::string();
            t = lex.next();
        }
        if (t.kind == yara_token::end) return out;
        t = lex.next(); // ':'
        if (!(t.kind == yara_token::symbol && t.text == ":")) return out;
        std::vector<yara_token> condition;
        int depth = 0;
        for (t = lex.next(); t.kind != yara_token::end; t = lex.next()) {
            if (t.kind == yara_token::symbol && t.text == "{") ++depth;
            if (t.kind == yara_token::symbol && t.text == "}" && depth-- == 0) break;
            condition.push_back(t);
        }
        if (t.kind == yara_token::end) return out;
        yara_string_need need = detail::yara_condition_parser(std::move(condition), has_strings).need();
        const bool needs = !need.holds_without_strings();
        out.push_back({name.text, std::move(need), needs, std::move(hex_strings)});
        t = lex.next();
    }
    return out;
}

} // namespace vyre::scan
