// Which YARA rules can be prefiltered: read from a rules file's text, for each rule its name and
// whether its condition can only be true when one of its strings matches. The scan stage uses the
// answer to skip libyara on files where none of a rule's strings occur; a rule the analysis cannot
// prove so (or cannot read) is evaluated on every file, so the answer may be "no" too often but
// never "yes" wrongly.
//
// The analysis, on the condition's tokens (C and C++ comments, strings and regular expressions
// read as whole tokens):
//   A or B         needs a string when both do;
//   A and B        when either does;
//   ( A )          when A does, unless something follows the parenthesis (a comparison);
//   $a, $a at E, $a in (E..F), #a > N (N >= 0), #a >= N or #a == N (N >= 1), any of them,
//   all of them, N of them (N >= 1), any / all / N of ($a, $b*) and those with `at` / `in`:
//                  need a string;
//   anything else (not, filesize, uint16(0), module calls, other rules' names, for loops,
//   arithmetic): does not.
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vyre::scan {

struct yara_rule_condition {
    std::string name;
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

// Recursive descent over one condition's tokens (see the note at the top).
class yara_condition_parser {
public:
    yara_condition_parser(std::vector<yara_token> tokens, bool has_strings) : t_(std::move(tokens)), has_strings_(has_strings) {}

    bool needs_a_string() {
        const bool r = expression();
        return r && at_ == t_.size();
    }

private:
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
    bool expression() {
        bool all = term();
        while (is(peek(), "or")) {
            ++at_;
            all = term() && all;
        }
        return all;
    }
    bool term() {
        bool any = factor();
        while (is(peek(), "and")) {
            ++at_;
            any = factor() || any;
        }
        return any;
    }
    bool factor() {
        const auto* t = peek();
        if (!t) return false;
        if (is(t, "(")) {
            ++at_;
            const bool inner = expression();
            if (!is(peek(), ")")) return skip_opaque(), false;
            ++at_;
            if (at_boundary()) return inner;
            skip_opaque();
            return false;
        }
        const std::size_t start = at_;
        skip_opaque();
        return needs_string(start, at_);
    }
    static bool number_at_least(const yara_token& t, long minimum) {
        if (t.kind != yara_token::number) return false;
        try {
            return std::stol(t.text, nullptr, 0) >= minimum;
        } catch (...) {
            return false;
        }
    }
    // Whether the tokens [b, e) alone need a string (the leaf forms of the note at the top).
    bool needs_string(std::size_t b, std::size_t e) const {
        if (b == e) return false;
        const yara_token& first = t_[b];
        const auto word = [&](std::size_t i) -> std::string_view { return i < e && t_[i].kind == yara_token::word ? std::string_view(t_[i].text) : ""; };
        const auto sym = [&](std::size_t i) -> std::string_view { return i < e && t_[i].kind == yara_token::symbol ? std::string_view(t_[i].text) : ""; };
        if (first.kind == yara_token::word && first.text.size() > 1 && first.text[0] == '$' && first.text.find('*') == std::string::npos) {
            if (b + 1 == e) return true;                                       // $a
            if (word(b + 1) == "at" || word(b + 1) == "in") return true;       // $a at E, $a in (..)
            return false;
        }
        if (first.kind == yara_token::word && first.text.size() > 1 && first.text[0] == '#' && b + 3 == e) {
            const std::string_view op = sym(b + 1);
            if (op == ">") return number_at_least(t_[b + 2], 0);
            if (op == ">=" || op == "==") return number_at_least(t_[b + 2], 1);
            return false;
        }
        // any / all / N of them | ( ... ) [at E | in (..)]
        const bool quantifier = word(b) == "any" || word(b) == "all" || number_at_least(first, 1);
        if (quantifier && word(b + 1) == "of") {
            if (word(b + 2) == "them") return has_strings_ && (b + 3 == e || word(b + 3) == "at" || word(b + 3) == "in");
            if (sym(b + 2) == "(") {
                std::size_t i = b + 3;
                bool strings_only = true;
                for (; i < e && sym(i) != ")"; ++i)
                    if (!(sym(i) == "," || (t_[i].kind == yara_token::word && t_[i].text[0] == '$'))) strings_only = false;
                if (i >= e || !strings_only || i == b + 3) return false;
                return i + 1 == e || word(i + 1) == "at" || word(i + 1) == "in";
            }
        }
        return false;
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
        out.push_back({name.text, detail::yara_condition_parser(std::move(condition), has_strings).needs_a_string(), std::move(hex_strings)});
        t = lex.next();
    }
    return out;
}

} // namespace vyre::scan
