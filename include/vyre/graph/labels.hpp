// The permanent node label encoding of the graph ops: a node's role lives in bits 16..23 of its
// u32 label word; the other 24 bits belong to the caller (file id, line, language node kind...).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vyre::graph {

// Role values are permanent. Role is one value, not a set of flags, so a node cannot be
// "sanitizer and sink" at once: such a node is written as `sanitizer`. That loses nothing,
// because a sanitizer's behaviour (no finding, no expansion) would override the sink role anyway.
// Values 5..255 are reserved; every op and reference treats them exactly like `normal`.
enum class role : std::uint8_t {
    normal = 0,
    source = 1,          // traversal may start here; reaching it from elsewhere reports nothing
    sink = 2,            // reaching it from a source reports a finding
    source_and_sink = 3, // both of the above
    sanitizer = 4,       // reached, but its outgoing edges are never followed; never a finding
};

inline constexpr std::uint32_t role_shift = 16;
inline constexpr std::uint32_t role_mask = 0xFFu << role_shift;
inline constexpr std::uint8_t max_known_role = 4;

// The raw role byte, reserved values included.
constexpr std::uint8_t role_bits(std::uint32_t label) noexcept {
    return static_cast<std::uint8_t>((label & role_mask) >> role_shift);
}

constexpr bool has_known_role(std::uint32_t label) noexcept { return role_bits(label) <= max_known_role; }

// The role of a label; reserved values read as `normal`, which is how traversal treats them.
constexpr role role_of(std::uint32_t label) noexcept {
    return has_known_role(label) ? static_cast<role>(role_bits(label)) : role::normal;
}

// A label with role `r` and the caller's metadata in the bits outside 16..23 (the role bits of
// `low_bits` are discarded so metadata can never forge a role).
constexpr std::uint32_t make_label(role r, std::uint32_t low_bits = 0) noexcept {
    return (low_bits & ~role_mask) | (static_cast<std::uint32_t>(r) << role_shift);
}

constexpr bool is_source(std::uint32_t label) noexcept {
    const role r = role_of(label);
    return r == role::source || r == role::source_and_sink;
}

constexpr bool is_sink(std::uint32_t label) noexcept {
    const role r = role_of(label);
    return r == role::sink || r == role::source_and_sink;
}

constexpr bool is_sanitizer(std::uint32_t label) noexcept { return role_of(label) == role::sanitizer; }

constexpr std::string_view to_string(role r) noexcept {
    switch (r) {
    case role::normal: return "normal";
    case role::source: return "source";
    case role::sink: return "sink";
    case role::source_and_sink: return "source+sink";
    case role::sanitizer: return "sanitizer";
    }
    return "reserved";
}

// Inverse of to_string; nullopt for any other text.
constexpr std::optional<role> parse_role(std::string_view text) noexcept {
    for (std::uint8_t v = 0; v <= max_known_role; ++v) {
        const auto r = static_cast<role>(v);
        if (to_string(r) == text) return r;
    }
    return std::nullopt;
}

} // namespace vyre::graph
