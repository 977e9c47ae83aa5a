// DEFLATE's shared vocabulary (RFC 1951): the status codes of compression.deflate and the numbers
// of the format that the CPU reference, the op's programs and the engine all use.
#pragma once

#include <cstdint>

namespace vyre::compression {

// Status codes of compression.deflate (permanent values). reference/deflate.hpp defines exactly
// when each is reported; in short:
namespace deflate_error {
enum : std::uint32_t {
    none = 0,
    input_overrun = 1,          // the stream's input ends before its final block does
    output_overflow = 2,        // the stream decodes to more bytes than its output region holds
    bad_block_type = 3,         // block type 3 (reserved)
    stored_length_mismatch = 4, // a stored block whose LEN is not the complement of NLEN
    bad_code_lengths = 5,       // HLIT above 286 or HDIST above 30, a repeat with nothing to repeat or
                                // past the last length, an over-subscribed code, no end-of-block code
    incomplete_code = 6,        // a code that leaves bit patterns unused where DEFLATE needs it whole
    invalid_symbol = 7,         // literal/length symbol 286 or 287, distance symbol 30 or 31, or bits
                                // that no code of an incomplete code starts with
    distance_too_far = 8,       // a match reaching back before the stream's first byte
};
} // namespace deflate_error

inline const char* deflate_error_name(std::uint32_t code) noexcept {
    switch (code) {
    case deflate_error::none: return "none";
    case deflate_error::input_overrun: return "input_overrun";
    case deflate_error::output_overflow: return "output_overflow";
    case deflate_error::bad_block_type: return "bad_block_type";
    case deflate_error::stored_length_mismatch: return "stored_length_mismatch";
    case deflate_error::bad_code_lengths: return "bad_code_lengths";
    case deflate_error::incomplete_code: return "incomplete_code";
    case deflate_error::invalid_symbol: return "invalid_symbol";
    case deflate_error::distance_too_far: return "distance_too_far";
    default: return "unknown_deflate_error";
    }
}

// RFC 1951's limits.
inline constexpr std::uint32_t deflate_max_code_bits = 15;     // no Huffman code is longer
inline constexpr std::uint32_t deflate_max_literal_codes = 286; // HLIT + 257 at most
inline constexpr std::uint32_t deflate_max_distance_codes = 30; // HDIST + 1 at most
inline constexpr std::uint32_t deflate_fixed_literal_codes = 288; // the fixed code's literal/length lengths
inline constexpr std::uint32_t deflate_fixed_distance_codes = 32; // and its distance lengths (all 5)
inline constexpr std::uint32_t deflate_code_length_codes = 19;
inline constexpr std::uint32_t deflate_end_of_block = 256;
inline constexpr std::uint32_t deflate_window_bytes = 32768; // how far back a match may reach
inline constexpr std::uint32_t deflate_max_match = 258;

// The order in which a dynamic block lists its code-length code's lengths.
inline constexpr std::uint8_t deflate_code_length_order[deflate_code_length_codes] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                                                      11, 4,  12, 3, 13, 2, 14, 1, 15};

// Length symbol 257 + i (i < 29): base length and extra bits. Written as arithmetic so the device
// programs compute them the same way (they have no constant tables).
constexpr std::uint32_t deflate_length_extra(std::uint32_t i) noexcept { return i < 8 || i == 28 ? 0 : (i - 4) >> 2; }
constexpr std::uint32_t deflate_length_base(std::uint32_t i) noexcept {
    return i < 8 ? 3 + i : i == 28 ? 258 : ((4 + (i & 3)) << deflate_length_extra(i)) + 3;
}
// Distance symbol i (i < 30): base distance and extra bits.
constexpr std::uint32_t deflate_distance_extra(std::uint32_t i) noexcept { return i < 4 ? 0 : (i >> 1) - 1; }
constexpr std::uint32_t deflate_distance_base(std::uint32_t i) noexcept {
    return i < 4 ? 1 + i : ((2 + (i & 1)) << deflate_distance_extra(i)) + 1;
}
static_assert(deflate_length_base(0) == 3 && deflate_length_base(8) == 11 && deflate_length_base(27) == 227 &&
              deflate_length_extra(27) == 5 && deflate_length_base(28) == 258);
static_assert(deflate_distance_base(4) == 5 && deflate_distance_base(29) == 24577 && deflate_distance_extra(29) == 13);

// The code-length order's entry i, as arithmetic (for the device programs).
constexpr std::uint32_t deflate_code_length_symbol(std::uint32_t i) noexcept {
    return i < 3 ? 16 + i : i == 3 ? 0 : ((i - 4) & 1) == 0 ? 8 + ((i - 4) >> 1) : 7 - ((i - 5) >> 1);
}
static_assert([] {
    for (std::uint32_t i = 0; i < deflate_code_length_codes; ++i)
        if (deflate_code_length_symbol(i) != deflate_code_length_order[i]) return false;
    return true;
}());

} // namespace vyre::compression
