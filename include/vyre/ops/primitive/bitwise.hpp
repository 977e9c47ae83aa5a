// primitive.bitwise.*: and or xor not shl shr rotl rotr clz ctz popcount reverse_bits
// extract_bits insert_bits, over U32. Shift and rotate amounts are taken modulo 32.
#pragma once

#include <vyre/ops/primitive/elementwise.hpp>

namespace vyre::ops::primitive {

inline std::vector<primitive_op> bitwise_ops() {
    using namespace ir;
    using detail::u;
    using detail::vu;
    auto lit = [](std::uint32_t v) { return lit_u32(v); };
    auto bin = [](bin_op op, expr a, expr b) { return binary(op, std::move(a), std::move(b)); };
    // rotl(a, r) = a << (r mod 32) | a >> ((32 - r) mod 32): both shifts are masked, so r = 0 gives a.
    const expr rotl = bin(bin_op::bit_or, bin(bin_op::shl, vu("a"), vu("b")), bin(bin_op::shr, vu("a"), bin(bin_op::sub, lit(32), vu("b"))));
    const expr rotr = bin(bin_op::bit_or, bin(bin_op::shr, vu("a"), vu("b")), bin(bin_op::shl, vu("a"), bin(bin_op::sub, lit(32), vu("b"))));
    // Field bounds clamp as in WGSL: o = min(offset, 32), c = min(count, 32 - o).
    const expr o = bin(bin_op::min, vu("offset"), lit(32));
    const expr c = bin(bin_op::min, vu("count"), bin(bin_op::sub, lit(32), o));
    const expr field = select(bin(bin_op::ge, c, lit(32)), lit(0xffffffffu), bin(bin_op::sub, bin(bin_op::shl, lit(1), c), lit(1)));
    const expr extract = bin(bin_op::bit_and, bin(bin_op::shr, vu("a"), o), field);
    const expr mask = bin(bin_op::shl, field, o);
    const expr insert = bin(bin_op::bit_or, bin(bin_op::bit_and, vu("a"), unary(un_op::bit_not, mask)),
                            bin(bin_op::bit_and, bin(bin_op::shl, vu("b"), o), mask));
    return {
        detail::binary_op("primitive.bitwise.and", "bit_and", "a & b", bin_op::bit_and),
        detail::binary_op("primitive.bitwise.or", "bit_or", "a | b", bin_op::bit_or),
        detail::binary_op("primitive.bitwise.xor", "bit_xor", "a ^ b", bin_op::bit_xor),
        detail::unary_op("primitive.bitwise.not", "bit_not", "~a", un_op::bit_not),
        detail::binary_op("primitive.bitwise.shl", "shift_left", "a << (b mod 32)", bin_op::shl),
        detail::binary_op("primitive.bitwise.shr", "shift_right", "a >> (b mod 32), logical", bin_op::shr),
        {"primitive.bitwise.rotl", "rotate left by b mod 32", {"rotate_left", {u("a"), u("b")}, data_type::u32, rotl}},
        {"primitive.bitwise.rotr", "rotate right by b mod 32", {"rotate_right", {u("a"), u("b")}, data_type::u32, rotr}},
        detail::unary_op("primitive.bitwise.clz", "count_leading_zeros", "leading zero bits (32 for 0)", un_op::clz),
        detail::unary_op("primitive.bitwise.ctz", "count_trailing_zeros", "trailing zero bits (32 for 0)", un_op::ctz),
        detail::unary_op("primitive.bitwise.popcount", "population_count", "set bits", un_op::popcount),
        detail::unary_op("primitive.bitwise.reverse_bits", "reverse_bit_order", "bit i to bit 31-i", un_op::reverse_bits),
        {"primitive.bitwise.extract_bits", "count bits of a from offset (clamped to the word), zero-extended",
         {"extract_bit_field", {u("a"), u("offset"), u("count")}, data_type::u32, extract}},
        {"primitive.bitwise.insert_bits", "a with count bits from offset replaced by the low bits of b",
         {"insert_bit_field", {u("a"), u("b"), u("offset"), u("count")}, data_type::u32, insert}},
    };
}

} // namespace vyre::ops::primitive
