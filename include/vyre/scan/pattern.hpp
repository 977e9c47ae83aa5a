// Patterns of the scan stage as plain values: what a pattern matches, written as bytes with a mask
// per byte, and the text forms users write (literal strings with nocase / wide / ascii, hex strings
// with wildcards). Shared by the CPU reference, the device tables and the command line.
#pragma once

#include <vyre/error.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::scan {

// One form a pattern takes in the bytes: `value.size()` bytes, byte i matching b when
// (b & mask[i]) == value[i]. Mask 0xff is an exact byte, 0xdf on an upper-case letter matches
// either case, 0x00 any byte (`??`), 0xf0 / 0x0f one nibble (`4?`, `?A`).
struct byte_pattern {
    std::vector<std::uint8_t> value;
    std::vector<std::uint8_t> mask;
    std::size_t size() const noexcept { return value.size(); }
    bool matches_at(const std::uint8_t* bytes) const noexcept {
        for (std::size_t i = 0; i < value.size(); ++i)
            if ((bytes[i] & mask[i]) != value[i]) return false;
        return true;
    }
    friend bool operator==(const byte_pattern&, const byte_pattern&) = default;
};

// Flags of a literal pattern, as YARA spells them: `ascii` (the default when `wide` is absent)
// matches the string's bytes, `wide` its UTF-16LE form (each byte followed by a zero byte); both
// together match either; `nocase` folds ASCII letters.
struct literal_flags {
    bool nocase = false;
    bool ascii = true;
    bool wide = false;
};

// A pattern as the user gave it: a name (reported with each hit) and its forms in the bytes (one,
// or two for `ascii wide`). Hits of any form report the pattern.
struct pattern {
    std::string name;
    std::vector<byte_pattern> forms;
};

// Longest pattern form the scan accepts, in bytes.
inline constexpr std::size_t max_pattern_bytes = 4096;

namespace detail {
inline bool is_letter(std::uint8_t b) noexcept { return (b | 0x20u) >= 'a' && (b | 0x20u) <= 'z'; }
inline void check_form(const std::string& name, const byte_pattern& f) {
    if (f.size() == 0) throw format_error("pattern \"" + name + "\" is empty");
    if (f.size() > max_pattern_bytes)
        throw format_error("pattern \"" + name + "\" is " + std::to_string(f.size()) + " bytes; at most " +
                           std::to_string(max_pattern_bytes) + " are accepted");
    bool fixed = false;
    for (std::size_t i = 0; i < f.size(); ++i) {
        if ((f.value[i] & ~f.mask[i]) != 0) throw format_error("pattern \"" + name + "\": a value bit outside its mask");
        fixed = fixed || f.mask[i] == 0xffu || (f.mask[i] == 0xdfu && is_letter(f.value[i]));
    }
    if (!fixed) throw format_error("pattern \"" + name + "\" has no fixed byte: it would match almost everywhere");
}
} // namespace detail

// The forms of a literal string under `flags`.
inline pattern literal_pattern(std::string name, std::string_view text, literal_flags flags = {}) {
    if (!flags.ascii && !flags.wide) throw format_error("pattern \"" + name + "\": neither ascii nor wide");
    const auto byte = [&](std::uint8_t c, byte_pattern& f) {
        if (flags.nocase && detail::is_letter(c)) {
            f.value.push_back(static_cast<std::uint8_t>(c & 0xdfu));
            f.mask.push_back(0xdfu);
        } else {
            f.value.push_back(c);
            f.mask.push_back(0xffu);
        }
    };
    pattern p{std::move(name), {}};
    if (flags.ascii) {
        byte_pattern f;
        for (char c : text) byte(static_cast<std::uint8_t>(c), f);
        p.forms.push_back(std::move(f));
    }
    if (flags.wide) {
        byte_pattern f;
        for (char c : text) {
            byte(static_cast<std::uint8_t>(c), f);
            f.value.push_back(0);
            f.mask.push_back(0xffu);
        }
        p.forms.push_back(std::move(f));
    }
    for (const auto& f : p.forms) detail::check_form(p.name, f);
    return p;
}

// A hex string as YARA writes it between braces (the braces optional): byte pairs such as `4D`,
// `??` for any byte, `4?` / `?D` for one nibble, spaces anywhere. Jumps and alternatives are not
// accepted here (format_error naming them).
inline pattern hex_pattern(std::string name, std::string_view text) {
    std::string digits;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if ((c == '{' && digits.empty()) || (c == '}' && text.find_first_not_of(" \t\r\n", i + 1) == std::string_view::npos)) continue;
        if (c == '[' || c == '(' || c == '|' || c == '~')
            throw format_error("hex pattern \"" + name + "\": '" + std::string(1, c) + "' at offset " + std::to_string(i) +
                               " (jumps, alternatives and negation are not supported)");
        const bool hex = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
        if (!hex && c != '?')
            throw format_error("hex pattern \"" + name + "\": '" + std::string(1, c) + "' at offset " + std::to_string(i) + " is not a hex digit");
        digits.push_back(c);
    }
    if (digits.size() % 2 != 0) throw format_error("hex pattern \"" + name + "\": an odd number of hex digits");
    const auto nibble = [](char c) -> std::uint8_t {
        return static_cast<std::uint8_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    };
    byte_pattern f;
    for (std::size_t i = 0; i < digits.size(); i += 2) {
        std::uint8_t v = 0, m = 0;
        if (digits[i] != '?') v |= static_cast<std::uint8_t>(nibble(digits[i]) << 4), m |= 0xf0;
        if (digits[i + 1] != '?') v |= nibble(digits[i + 1]), m |= 0x0f;
        f.value.push_back(v);
        f.mask.push_back(m);
    }
    detail::check_form(name, f);
    return {std::move(name), {std::move(f)}};
}

// For a prefilter: the piece of a hex string (YARA's syntax, jumps `[n]`, `[n-m]`, `[n-]`, `[-]` and
// alternatives `( .. | .. )` allowed) that every match of the string contains: the longest run of
// byte pairs between two jumps and outside every alternative (longest by fixed nibbles). A hit of
// it is necessary for a match, not sufficient. format_error when the string has no such run with
// a fixed byte, or brackets that do not close.
inline pattern hex_required_piece(std::string name, std::string_view text) {
    std::string best, piece;
    int depth = 0;
    const auto fixed = [](const std::string& digits) {
        return static_cast<std::size_t>(std::count_if(digits.begin(), digits.end(), [](char c) { return c != '?'; }));
    };
    const auto close_piece = [&] {
        if (fixed(piece) > fixed(best) || (fixed(piece) == fixed(best) && piece.size() > best.size())) best = piece;
        piece.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '{' || c == '}') continue;
        if (c == '[') {
            const std::size_t end = text.find(']', i);
            if (end == std::string_view::npos) throw format_error("hex pattern \"" + name + "\": '[' at offset " + std::to_string(i) + " does not close");
            close_piece();
            i = end;
            continue;
        }
        if (c == '(' || c == ')' || c == '|') {
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (depth < 0) throw format_error("hex pattern \"" + name + "\": ')' at offset " + std::to_string(i) + " closes nothing");
            if (depth == 0 || c == '(') close_piece();
            else piece.clear();
            continue;
        }
        if (depth > 0) continue;
        if (c == '~') { // a negated byte: any byte, as far as the piece is concerned
            close_piece();
            i += 2;
            continue;
        }
        piece.push_back(c);
    }
    if (depth != 0) throw format_error("hex pattern \"" + name + "\": an alternative does not close");
    close_piece();
    if (best.size() % 2 != 0) throw format_error("hex pattern \"" + name + "\": an odd number of hex digits in a piece");
    return hex_pattern(std::move(name), best);
}

// A patterns file as `grep -F -f` reads it: one literal string per line (the line's bytes, without
// its '\n' and a '\r' before it), each named by its text; empty lines are skipped.
inline std::vector<pattern> literal_lines(std::string_view text, literal_flags flags = {}) {
    std::vector<pattern> out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(at, end - at);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty()) out.push_back(literal_pattern(std::string(line), line, flags));
        at = end + 1;
    }
    return out;
}

// One match: pattern `pattern` (its index in the scanned set) starts `offset` bytes into entry
// `entry`. The scan reports hits in this order: entry, then offset, then pattern.
struct hit {
    std::uint32_t entry = 0;
    std::uint32_t pattern = 0;
    std::uint64_t offset = 0;
    friend bool operator==(const hit&, const hit&) = default;
};
inline bool hit_order(const hit& a, const hit& b) noexcept {
    if (a.entry != b.entry) return a.entry < b.entry;
    if (a.offset != b.offset) return a.offset < b.offset;
    return a.pattern < b.pattern;
}

// The bytes a scan reads: entry i is bytes [offset, offset + size) of one buffer. Entries may be
// empty; a match never spans two entries.
struct entry_extent {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

} // namespace vyre::scan
