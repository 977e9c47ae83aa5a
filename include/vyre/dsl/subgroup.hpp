// The DSL's subgroup operations (ir/expr.hpp: expr_kind::subgroup and the subgroup ids): the
// functions that build them and their lowering to IR. A kernel using them declares its subgroup
// size first (kernel::use_subgroups); reference/interpreter.hpp defines their results.
#pragma once

#include <vyre/dsl/expression.hpp>

namespace vyre::dsl {

// Subgroup coordinates (the kernel declares its subgroup size: kernel::use_subgroups).
inline auto subgroup_local_id() { return expression<ir::expr_kind::subgroup_local_id, u32, 0>{}; }
inline auto subgroup_id() { return expression<ir::expr_kind::subgroup_id, u32, 0>{}; }
inline auto subgroup_size() { return expression<ir::expr_kind::subgroup_size, u32, 0>{}; }

// ---- subgroup operations ---------------------------------------------------------------------
// Each is evaluated by the whole subgroup together and, like the IR, may only be the whole value
// of a let or assign (`auto total = k.let("total", subgroup_inclusive_add(count));`). Values and
// lanes are u32 (cast others), conditions boolean. reference/interpreter.hpp defines the results.

namespace detail {

template <ir::subgroup_op Op, class V, class L>
auto subgroup_pair(const V& value, const L& lane) {
    static_assert(fits<V, u32>, "vyre::dsl: subgroup broadcasts and shuffles move u32 values; cast<u32>() others");
    static_assert(fits<L, u32>, "vyre::dsl: a subgroup lane, delta or mask must be u32");
    auto v = to_node<u32>(value);
    auto l = to_node<u32>(lane);
    return expression<ir::expr_kind::subgroup, u32, Op, decltype(v), decltype(l)>{{}, {std::move(v), std::move(l)}};
}
template <ir::subgroup_op Op, class C>
auto subgroup_vote(const C& condition) {
    static_assert(fits<C, boolean>, "vyre::dsl: subgroup_ballot, subgroup_any and subgroup_all take a boolean; compare first (x != 0u)");
    using R = std::conditional_t<Op == ir::subgroup_op::ballot, u32, boolean>;
    auto c = to_node<boolean>(condition);
    return expression<ir::expr_kind::subgroup, R, Op, decltype(c)>{{}, {std::move(c)}};
}
template <ir::subgroup_op Op, class V>
auto subgroup_scan(const V& value) {
    static_assert(fits<V, u32>, "vyre::dsl: subgroup scans add u32 values; cast<u32>() others");
    auto v = to_node<u32>(value);
    return expression<ir::expr_kind::subgroup, u32, Op, decltype(v)>{{}, {std::move(v)}};
}

} // namespace detail

// The value of invocation `lane` (the same lane for the whole subgroup).
template <operand V, operand L>
auto subgroup_broadcast(const V& value, const L& lane) { return detail::subgroup_pair<ir::subgroup_op::broadcast>(value, lane); }
// The value of invocation lane % subgroup size; lanes may differ.
template <operand V, operand L>
auto subgroup_shuffle(const V& value, const L& lane) { return detail::subgroup_pair<ir::subgroup_op::shuffle>(value, lane); }
// The value of invocation id - delta (own value below 0).
template <operand V, operand L>
auto subgroup_shuffle_up(const V& value, const L& delta) { return detail::subgroup_pair<ir::subgroup_op::shuffle_up>(value, delta); }
// The value of invocation id + delta (own value past the end).
template <operand V, operand L>
auto subgroup_shuffle_down(const V& value, const L& delta) { return detail::subgroup_pair<ir::subgroup_op::shuffle_down>(value, delta); }
// The value of invocation id ^ mask (own value past the end).
template <operand V, operand L>
auto subgroup_shuffle_xor(const V& value, const L& mask) { return detail::subgroup_pair<ir::subgroup_op::shuffle_xor>(value, mask); }
// Bit i set where invocation i's condition holds.
template <operand C>
auto subgroup_ballot(const C& condition) { return detail::subgroup_vote<ir::subgroup_op::ballot>(condition); }
template <operand C>
auto subgroup_any(const C& condition) { return detail::subgroup_vote<ir::subgroup_op::any>(condition); }
template <operand C>
auto subgroup_all(const C& condition) { return detail::subgroup_vote<ir::subgroup_op::all>(condition); }
// Sum over invocations 0..id (inclusive) or 0..id-1 (exclusive), wrapping.
template <operand V>
auto subgroup_inclusive_add(const V& value) { return detail::subgroup_scan<ir::subgroup_op::inclusive_add>(value); }
template <operand V>
auto subgroup_exclusive_add(const V& value) { return detail::subgroup_scan<ir::subgroup_op::exclusive_add>(value); }

// ---- lowering ----------------------------------------------------------------------------------

template <ir::expr_kind K, class T, auto Op>
    requires(K == ir::expr_kind::subgroup_local_id || K == ir::expr_kind::subgroup_id || K == ir::expr_kind::subgroup_size)
ir::expr to_ir(const expression<K, T, Op>&) {
    return {K, ir_type<T>, 0, 0, {}, {}};
}
template <class T, ir::subgroup_op Op, class... A>
ir::expr to_ir(const expression<ir::expr_kind::subgroup, T, Op, A...>& e) {
    return ir::subgroup(Op, detail::args_to_ir(e.children));
}

} // namespace vyre::dsl
