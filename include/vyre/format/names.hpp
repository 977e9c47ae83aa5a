// Archive names in error messages, shared by the container parsers (tar, ZIP, gzip).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace vyre::format {

// Names from archives go into error messages that end up on terminals: control bytes are escaped
// so that a hostile name cannot move the cursor or rewrite the line.
inline std::string archive_quote(std::string_view s) {
    std::string out = "'";
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F || c == '\'' || c == '\\') {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "'";
}

} // namespace vyre::format
