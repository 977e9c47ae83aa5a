// JSON string literals from arbitrary bytes, for the command line's --json outputs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace vyre::util {

// `s` as a JSON string literal (quotes included), for the --json output of `vyre taint` and
// `vyre unpack`. Names (graph nodes, archive entries) are bytes:
// '"' and '\\' are escaped, control bytes (and DEL) become \u00XX, valid UTF-8 passes through,
// and each maximal invalid UTF-8 subpart (a stray continuation byte, a truncated sequence, an
// overlong form, a surrogate, above U+10FFFF) becomes U+FFFD written as \ufffd, so the output is
// always valid JSON (RFC 8259 requires UTF-8).
inline std::string json_string(std::string_view s) {
    std::string out = "\"";
    std::size_t i = 0;
    while (i < s.size()) {
        const auto u = static_cast<unsigned char>(s[i]);
        if (u < 0x80) {
            if (u == '"' || u == '\\') {
                out += '\\';
                out += static_cast<char>(u);
            } else if (u < 0x20 || u == 0x7F) {
                static constexpr char hex[] = "0123456789abcdef";
                out += "\\u00";
                out += hex[u >> 4];
                out += hex[u & 15];
            } else {
                out += static_cast<char>(u);
            }
            ++i;
            continue;
        }
        // A multi-byte sequence (Unicode 15, table 3-7): length from the lead byte, and the
        // valid range of the second byte, which excludes overlong forms, surrogates and values
        // above U+10FFFF.
        std::size_t length = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (u >= 0xC2 && u <= 0xDF) length = 2;
        else if (u >= 0xE0 && u <= 0xEF) {
            length = 3;
            if (u == 0xE0) lo = 0xA0;
            if (u == 0xED) hi = 0x9F;
        } else if (u >= 0xF0 && u <= 0xF4) {
            length = 4;
            if (u == 0xF0) lo = 0x90;
            if (u == 0xF4) hi = 0x8F;
        }
        std::size_t valid = length ? 1 : 0; // bytes of a well-formed prefix
        while (valid > 0 && valid < length && i + valid < s.size()) {
            const auto c = static_cast<unsigned char>(s[i + valid]);
            if (valid == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) break;
            ++valid;
        }
        if (length && valid == length) out.append(s.substr(i, length));
        else out += "\\ufffd"; // the maximal subpart of an ill-formed sequence, at least one byte
        i += std::max<std::size_t>(valid, 1);
    }
    return out + "\"";
}

} // namespace vyre::util
