// primitive.compare.*: eq ne lt le gt ge (unsigned U32, result Bool), logical_not and select.
#pragma once

#include <vyre/ops/primitive/elementwise.hpp>

namespace vyre::ops::primitive {

inline std::vector<primitive_op> compare_ops() {
    using namespace ir;
    using detail::b;
    using detail::u;
    return {
        detail::binary_op("primitive.compare.eq", "equal", "a == b", bin_op::eq),
        detail::binary_op("primitive.compare.ne", "not_equal", "a != b", bin_op::ne),
        detail::binary_op("primitive.compare.lt", "less", "a < b (unsigned)", bin_op::lt),
        detail::binary_op("primitive.compare.le", "less_equal", "a <= b (unsigned)", bin_op::le),
        detail::binary_op("primitive.compare.gt", "greater", "a > b (unsigned)", bin_op::gt),
        detail::binary_op("primitive.compare.ge", "greater_equal", "a >= b (unsigned)", bin_op::ge),
        {"primitive.compare.logical_not", "!c (a nonzero word is true)",
         {"logical_negation", {b("c")}, data_type::boolean, unary(un_op::logical_not, detail::vb("c"))}},
        {"primitive.compare.select", "c ? a : b (a nonzero word is true)",
         {"choose", {b("c"), u("a"), u("b")}, data_type::u32, select(detail::vb("c"), detail::vu("a"), detail::vu("b"))}},
    };
}

} // namespace vyre::ops::primitive
