// primitive.math.*: add sub mul div mod min max abs_diff clamp negate add_sat sub_sat over U32.
// Arithmetic wraps; a / 0 == a and a % 0 == 0 (the IR's definition); saturating ops clamp to
// [0, 2^32-1]; clamp(x, lo, hi) = min(max(x, lo), hi), so hi wins when lo > hi.
#pragma once

#include <vyre/ops/primitive/elementwise.hpp>

namespace vyre::ops::primitive {

inline std::vector<primitive_op> math_ops() {
    using namespace ir;
    using detail::u;
    using detail::vu;
    auto bin = [](bin_op op, expr a, expr b) { return binary(op, std::move(a), std::move(b)); };
    const expr sum = bin(bin_op::add, vu("a"), vu("b"));
    const expr add_sat = select(bin(bin_op::lt, sum, vu("a")), lit_u32(0xffffffffu), sum);
    const expr sub_sat = select(bin(bin_op::lt, vu("a"), vu("b")), lit_u32(0), bin(bin_op::sub, vu("a"), vu("b")));
    const expr clamp = bin(bin_op::min, bin(bin_op::max, vu("x"), vu("lo")), vu("hi"));
    return {
        detail::binary_op("primitive.math.add", "add", "a + b, wrapping", bin_op::add),
        detail::binary_op("primitive.math.sub", "subtract", "a - b, wrapping", bin_op::sub),
        detail::binary_op("primitive.math.mul", "multiply", "a * b, wrapping", bin_op::mul),
        detail::binary_op("primitive.math.div", "divide", "a / b, a when b is 0", bin_op::div),
        detail::binary_op("primitive.math.mod", "remainder", "a % b, 0 when b is 0", bin_op::mod),
        detail::binary_op("primitive.math.min", "minimum", "min(a, b)", bin_op::min),
        detail::binary_op("primitive.math.max", "maximum", "max(a, b)", bin_op::max),
        detail::binary_op("primitive.math.abs_diff", "absolute_difference", "|a - b|", bin_op::abs_diff),
        {"primitive.math.clamp", "min(max(x, lo), hi)", {"clamp_to", {u("x"), u("lo"), u("hi")}, data_type::u32, clamp}},
        detail::unary_op("primitive.math.negate", "negate", "0 - a, wrapping", un_op::negate),
        {"primitive.math.add_sat", "a + b, at most 2^32-1", {"add_saturating", {u("a"), u("b")}, data_type::u32, add_sat}},
        {"primitive.math.sub_sat", "a - b, at least 0", {"subtract_saturating", {u("a"), u("b")}, data_type::u32, sub_sat}},
    };
}

} // namespace vyre::ops::primitive
