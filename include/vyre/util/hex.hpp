// Numbers as hexadecimal text for messages ("0x184D2204"), so that every parser names magic
// numbers, checksums and flags the same way.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace vyre::util {

// "0x" and upper-case digits, padded with zeros to at least `digits` digits.
inline std::string hex(std::uint64_t v, int digits = 0) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%0*llX", digits, static_cast<unsigned long long>(v));
    return buf;
}

} // namespace vyre::util
