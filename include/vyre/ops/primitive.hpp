// All layer-1 primitive ops.
#pragma once

#include <vyre/ops/primitive/bitwise.hpp>
#include <vyre/ops/primitive/compare.hpp>
#include <vyre/ops/primitive/math.hpp>

namespace vyre::ops::primitive {

inline const std::vector<primitive_op>& all() {
    static const std::vector<primitive_op> ops = [] {
        std::vector<primitive_op> out;
        for (auto&& list : {bitwise_ops(), compare_ops(), math_ops()})
            out.insert(out.end(), list.begin(), list.end());
        return out;
    }();
    return ops;
}

inline const primitive_op* find(std::string_view id) {
    for (const auto& op : all())
        if (op.id == id) return &op;
    return nullptr;
}

} // namespace vyre::ops::primitive
