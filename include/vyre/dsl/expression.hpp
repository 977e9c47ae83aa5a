// vyre::dsl expressions: value-type tags, the one expression node template, its terminals
// (literals, buffer loads, built-ins), operators and functions, and `to_ir`, which lowers a tree.
#pragma once

// Design (after Boost.YAP): the node kinds are the IR's own `ir::expr_kind`, and every DSL
// expression is one template, `expression<Kind, T, Op, Children...>`: T is the static value type
// (a tag below), Op the IR operator (an `ir::bin_op`, `ir::un_op` or `ir::atomic_op`; 0 where the
// kind has none), Children the operand expression types. So `a + b` of two u32 expressions is
// `expression<binary, u32, bin_op::add, A, B>`, and every typing rule is checked by the compiler
// with a static_assert whose message a person can read. `to_ir` (one overload per kind) turns a
// tree into an ir::expr; the kernel builder calls it once, when it records a statement.
//
// C++ values beside a DSL expression: an integer value (a literal such as `1`, `1u`) takes the
// type of the expression it meets, modulo 2^bits, as C converts it (on a u32 x, `x + -1` is
// `x + 0xffffffffu`, which wraps to x - 1); it must be no wider than that type (a 64-bit C++
// value beside a u32 expression does not compile). Only `true` and `false` meet a
// boolean expression, and a bool never meets an integer one. Where no expression fixes the type
// (`k.let("n", 0u)`, `lit(7)`), the C++ type decides: bool -> boolean, 32-bit unsigned -> u32,
// 32-bit signed -> i32, 64-bit unsigned -> u64; `lit<T>(v)` names the type outright.

#include <vyre/ir/expr.hpp>

#include <concepts>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace vyre::dsl {

// ---- value types ------------------------------------------------------------------------------

// Static value types of expressions. `bytes` is an element type only: a load from a bytes buffer
// yields one byte as a u32.
struct u32 {};
struct i32 {};
struct u64 {};
struct boolean {};
struct bytes {};

// The trait that maps a tag to its IR type and to the C++ type of its values.
template <class T>
struct type_traits; // not defined: T is not a vyre value type

template <>
struct type_traits<u32> {
    static constexpr ir::data_type id = ir::data_type::u32;
    using cpp_type = std::uint32_t;
};
template <>
struct type_traits<i32> {
    static constexpr ir::data_type id = ir::data_type::i32;
    using cpp_type = std::int32_t;
};
template <>
struct type_traits<u64> {
    static constexpr ir::data_type id = ir::data_type::u64;
    using cpp_type = std::uint64_t;
};
template <>
struct type_traits<boolean> {
    static constexpr ir::data_type id = ir::data_type::boolean;
    using cpp_type = bool;
};
template <>
struct type_traits<bytes> {
    static constexpr ir::data_type id = ir::data_type::bytes;
    using cpp_type = std::uint8_t;
};

template <class T>
inline constexpr ir::data_type ir_type = type_traits<T>::id;

// The types an expression can have, and those a buffer can hold.
template <class T>
concept value_type = std::same_as<T, u32> || std::same_as<T, i32> || std::same_as<T, u64> || std::same_as<T, boolean>;
template <class T>
concept integer_type = value_type<T> && !std::same_as<T, boolean>;
template <class T>
concept element_type = value_type<T> || std::same_as<T, bytes>;

// What a load from a buffer of element type T yields (mirrors ir::loaded_type).
template <class T>
using loaded_t = std::conditional_t<std::same_as<T, bytes>, u32, T>;

// ---- the node template ------------------------------------------------------------------------

namespace detail {

struct empty {};

// What a node carries besides its operands: a literal's bits, the name of a variable, buffer or
// function, or a built-in's axis.
template <ir::expr_kind K>
using payload_t = std::conditional_t<
    K == ir::expr_kind::literal, std::uint64_t,
    std::conditional_t<K == ir::expr_kind::var || K == ir::expr_kind::load || K == ir::expr_kind::load_u32_le || K == ir::expr_kind::buf_len ||
                           K == ir::expr_kind::atomic || K == ir::expr_kind::call,
                       std::string,
                       std::conditional_t<K == ir::expr_kind::invocation_id || K == ir::expr_kind::local_id ||
                                              K == ir::expr_kind::workgroup_id,
                                          std::uint8_t, empty>>>;

template <class...>
inline constexpr bool always_false = false;

} // namespace detail

template <ir::expr_kind Kind, class T, auto Op, class... Children>
struct expression {
    static_assert(value_type<T>, "vyre::dsl: an expression's type must be u32, i32, u64 or boolean");
    using value_type = T;
    using expression_type = expression; // handles derived from a node (variables) name the node here
    static constexpr ir::expr_kind kind = Kind;
    static constexpr auto op = Op;

    [[no_unique_address]] detail::payload_t<Kind> data{};
    [[no_unique_address]] std::tuple<Children...> children{};
};

namespace detail {

template <class E>
struct is_node : std::false_type {};
template <ir::expr_kind K, class T, auto Op, class... C>
struct is_node<expression<K, T, Op, C...>> : std::true_type {};

template <class E>
concept has_node = requires { typename E::expression_type; } && is_node<typename E::expression_type>::value;

} // namespace detail

// A DSL expression (a node, or a handle such as a variable that is one), and the C++ values that
// may stand beside one.
template <class E>
concept any_expression = detail::has_node<std::remove_cvref_t<E>>;
template <class V>
concept cpp_value = std::integral<std::remove_cvref_t<V>>;
template <class X>
concept operand = any_expression<X> || cpp_value<X>;
template <class A, class B>
concept binary_operands = operand<A> && operand<B> && (any_expression<A> || any_expression<B>);

namespace detail {

// The type a C++ value has where no expression fixes it.
template <class V>
auto cpp_value_type() {
    if constexpr (std::same_as<V, bool>) return boolean{};
    else if constexpr (std::unsigned_integral<V> && sizeof(V) == 4) return u32{};
    else if constexpr (std::signed_integral<V> && sizeof(V) == 4) return i32{};
    else if constexpr (std::unsigned_integral<V> && sizeof(V) == 8) return u64{};
    else {
        static_assert(always_false<V>, "vyre::dsl: this C++ type has no vyre type; use a u32, i32, u64 or bool value, or lit<T>()");
        return u32{};
    }
}

// The static type of an operand: an expression's own, or a lone C++ value's.
template <class X>
struct type_of {
    using type = decltype(cpp_value_type<std::remove_cvref_t<X>>());
};
template <any_expression X>
struct type_of<X> {
    using type = typename std::remove_cvref_t<X>::value_type;
};
template <class X>
using type_of_t = typename type_of<X>::type;

// The type two operands meet at: the first expression's, else the first C++ value's.
template <class A, class B>
auto meet() {
    if constexpr (any_expression<A> || !any_expression<B>) return type_of_t<A>{};
    else return type_of_t<B>{};
}
template <class A, class B>
using meet_t = decltype(meet<A, B>());

// True where both are expressions of different types (a C++ value adapts; see the rule above).
template <class A, class B>
inline constexpr bool mismatched = [] {
    if constexpr (any_expression<A> && any_expression<B>) return !std::same_as<type_of_t<A>, type_of_t<B>>;
    else return false;
}();

// False where X is an expression whose type is not T (a C++ value adapts to T).
template <class X, class T>
inline constexpr bool fits = [] {
    if constexpr (any_expression<X>) return std::same_as<type_of_t<X>, T>;
    else return true;
}();

template <class T, class V>
constexpr std::uint64_t literal_bits(V v) {
    if constexpr (std::same_as<T, boolean>) return v ? 1u : 0u;
    else if constexpr (std::same_as<T, i32>) return static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
    else return static_cast<typename type_traits<T>::cpp_type>(v);
}

template <class T, class V>
auto literal(V v) {
    static_assert(value_type<T>, "vyre::dsl: lit<T>() needs T to be u32, i32, u64 or boolean");
    if constexpr (std::same_as<T, boolean>) {
        static_assert(std::same_as<V, bool>, "vyre::dsl: only true or false converts to boolean; compare integers (x != 0u)");
    } else {
        static_assert(!std::same_as<V, bool>, "vyre::dsl: a bool does not convert to an integer type; use select(c, 1u, 0u)");
        static_assert(sizeof(V) <= sizeof(typename type_traits<T>::cpp_type),
                      "vyre::dsl: a C++ value wider than the expression's type does not convert; use a 32-bit literal or "
                      "cast<u64>() the expression");
    }
    return expression<ir::expr_kind::literal, T, 0>{literal_bits<T>(v), {}};
}

// An operand as a node of type T: an expression is copied as its node (a variable handle loses
// its kernel pointer), a C++ value becomes a literal of type T. The caller has checked the type
// of an expression operand; an atomic may never be an operand.
template <class T, class X>
auto to_node(const X& x) {
    if constexpr (any_expression<X>) {
        using node = typename X::expression_type;
        static_assert(node::kind != ir::expr_kind::atomic,
                      "vyre::dsl: an atomic must be the whole value of a let or assign (its side effect needs a defined order)");
        static_assert(node::kind != ir::expr_kind::subgroup,
                      "vyre::dsl: a subgroup operation must be the whole value of a let or assign (the whole subgroup evaluates it together)");
        return node(x);
    } else {
        return literal<T>(x);
    }
}

// The whole value of a let or assign: as to_node, but an atomic is allowed.
template <class T, class X>
auto to_value_node(const X& x) {
    if constexpr (any_expression<X>) return typename X::expression_type(x);
    else return literal<T>(x);
}

} // namespace detail

// A literal of type T (`lit<u64>(1)`), or of the type the C++ value's own type maps to (`lit(1u)`).
template <class T = void, cpp_value V>
auto lit(V v) {
    if constexpr (std::is_void_v<T>) return detail::literal<detail::type_of_t<V>>(v);
    else return detail::literal<T>(v);
}

// ---- terminals: buffers and built-ins --------------------------------------------------------

// A buffer the kernel declared: element type and access are part of its type, so a store into a
// read-only buffer or an atomic on a uniform one does not compile. `b[i]` loads, `b.size()` is its
// element count (BufLen). `b.unchecked(i)` loads without testing i (ir::bounds): only where the
// program has already proven i in bounds.
template <class T, ir::buffer_access Access>
struct buffer {
    static_assert(element_type<T>, "vyre::dsl: a buffer's element type must be u32, i32, u64, boolean or bytes");
    using element = T;
    static constexpr ir::buffer_access access = Access;

    std::string name;

    template <operand I>
    auto operator[](const I& index) const {
        static_assert(detail::fits<I, u32>, "vyre::dsl: a buffer index must be u32; use cast<u32>()");
        auto i = detail::to_node<u32>(index);
        return expression<ir::expr_kind::load, loaded_t<T>, 0, decltype(i)>{name, {std::move(i)}};
    }
    template <operand I>
    auto unchecked(const I& index) const {
        static_assert(detail::fits<I, u32>, "vyre::dsl: a buffer index must be u32; use cast<u32>()");
        auto i = detail::to_node<u32>(index);
        return expression<ir::expr_kind::load, loaded_t<T>, static_cast<std::uint8_t>(ir::bounds::unchecked), decltype(i)>{
            name, {std::move(i)}};
    }
    // Bytes i..i+3 of a bytes buffer as one u32, byte i least significant (ir::load_u32_le):
    // checked, bytes outside the buffer read zero; unchecked, the program has proven i + 3 in
    // bounds.
    template <operand I>
    auto u32_le(const I& index) const {
        return u32_le_node<static_cast<std::uint8_t>(ir::bounds::checked)>(index);
    }
    template <operand I>
    auto u32_le_unchecked(const I& index) const {
        return u32_le_node<static_cast<std::uint8_t>(ir::bounds::unchecked)>(index);
    }
    auto size() const { return expression<ir::expr_kind::buf_len, u32, 0>{name, {}}; }

private:
    template <std::uint8_t Bounds, class I>
    auto u32_le_node(const I& index) const {
        static_assert(std::is_same_v<T, bytes>, "vyre::dsl: u32_le reads a bytes buffer; index other buffers directly");
        static_assert(detail::fits<I, u32>, "vyre::dsl: a buffer index must be u32; use cast<u32>()");
        auto i = detail::to_node<u32>(index);
        return expression<ir::expr_kind::load_u32_le, u32, Bounds, decltype(i)>{name, {std::move(i)}};
    }
};

template <class T>
using input_buffer = buffer<T, ir::buffer_access::read_only>;
template <class T>
using output_buffer = buffer<T, ir::buffer_access::read_write>;
template <class T>
using uniform_buffer = buffer<T, ir::buffer_access::uniform>;
template <class T>
using workgroup_buffer = buffer<T, ir::buffer_access::workgroup>;

// Invocation coordinates on `axis` (0, 1, 2): get_global_id, get_local_id, get_group_id.
inline auto invocation_id(std::uint8_t axis = 0) { return expression<ir::expr_kind::invocation_id, u32, 0>{axis, {}}; }
inline auto local_id(std::uint8_t axis = 0) { return expression<ir::expr_kind::local_id, u32, 0>{axis, {}}; }
inline auto workgroup_id(std::uint8_t axis = 0) { return expression<ir::expr_kind::workgroup_id, u32, 0>{axis, {}}; }

// ---- operators and functions -----------------------------------------------------------------

namespace detail {

enum class op_class { arithmetic, bitwise, shift, equality, ordering, logical };

constexpr op_class classify(ir::bin_op op) noexcept {
    using ir::bin_op;
    switch (op) {
    case bin_op::bit_and:
    case bin_op::bit_or:
    case bin_op::bit_xor: return op_class::bitwise;
    case bin_op::shl:
    case bin_op::shr: return op_class::shift;
    case bin_op::eq:
    case bin_op::ne: return op_class::equality;
    case bin_op::lt:
    case bin_op::le:
    case bin_op::gt:
    case bin_op::ge: return op_class::ordering;
    case bin_op::logical_and:
    case bin_op::logical_or: return op_class::logical;
    default: return op_class::arithmetic;
    }
}

template <ir::bin_op Op, class A, class B>
auto binary(const A& a, const B& b) {
    using T = meet_t<A, B>;
    constexpr op_class c = classify(Op);
    constexpr bool compares = c == op_class::equality || c == op_class::ordering;
    constexpr bool is_bool = std::same_as<T, boolean>;
    if constexpr (compares)
        static_assert(!mismatched<A, B>, "vyre::dsl: operands of a comparison must have the same type; use cast<T>()");
    else
        static_assert(!mismatched<A, B>, "vyre::dsl: operands of a binary operator must have the same type; use cast<T>()");
    if constexpr (c == op_class::arithmetic)
        static_assert(!is_bool, "vyre::dsl: arithmetic (+ - * / % min max abs_diff) needs integer operands, not boolean");
    if constexpr (c == op_class::shift)
        static_assert(!is_bool, "vyre::dsl: cannot shift a boolean; << and >> need integer operands");
    if constexpr (c == op_class::ordering)
        static_assert(!is_bool, "vyre::dsl: < <= > >= need integer operands, not boolean");
    if constexpr (c == op_class::logical)
        static_assert(is_bool, "vyre::dsl: && and || need boolean operands; compare integers first (x != 0u)");
    using result = std::conditional_t<compares || c == op_class::logical, boolean, T>;
    auto l = to_node<T>(a);
    auto r = to_node<T>(b);
    return expression<ir::expr_kind::binary, result, Op, decltype(l), decltype(r)>{{}, {std::move(l), std::move(r)}};
}

template <ir::un_op Op, class X>
auto unary(const X& x) {
    using T = type_of_t<X>;
    if constexpr (Op == ir::un_op::logical_not)
        static_assert(std::same_as<T, boolean>, "vyre::dsl: ! needs a boolean operand; compare integers first (x == 0u)");
    else if constexpr (Op == ir::un_op::negate || Op == ir::un_op::bit_not)
        static_assert(integer_type<T>, "vyre::dsl: unary - and ~ need an integer operand; use ! for boolean");
    else
        static_assert(integer_type<T>, "vyre::dsl: popcount, clz, ctz and reverse_bits need an integer operand");
    auto e = to_node<T>(x);
    return expression<ir::expr_kind::unary, T, Op, decltype(e)>{{}, {std::move(e)}};
}

} // namespace detail

template <class A, class B> requires binary_operands<A, B>
auto operator+(const A& a, const B& b) { return detail::binary<ir::bin_op::add>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator-(const A& a, const B& b) { return detail::binary<ir::bin_op::sub>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator*(const A& a, const B& b) { return detail::binary<ir::bin_op::mul>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator/(const A& a, const B& b) { return detail::binary<ir::bin_op::div>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator%(const A& a, const B& b) { return detail::binary<ir::bin_op::mod>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator&(const A& a, const B& b) { return detail::binary<ir::bin_op::bit_and>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator|(const A& a, const B& b) { return detail::binary<ir::bin_op::bit_or>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator^(const A& a, const B& b) { return detail::binary<ir::bin_op::bit_xor>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator<<(const A& a, const B& b) { return detail::binary<ir::bin_op::shl>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator>>(const A& a, const B& b) { return detail::binary<ir::bin_op::shr>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator==(const A& a, const B& b) { return detail::binary<ir::bin_op::eq>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator!=(const A& a, const B& b) { return detail::binary<ir::bin_op::ne>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator<(const A& a, const B& b) { return detail::binary<ir::bin_op::lt>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator<=(const A& a, const B& b) { return detail::binary<ir::bin_op::le>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator>(const A& a, const B& b) { return detail::binary<ir::bin_op::gt>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator>=(const A& a, const B& b) { return detail::binary<ir::bin_op::ge>(a, b); }
// Both sides are always evaluated into the tree: these build an IR And/Or, they do not short-circuit C++.
template <class A, class B> requires binary_operands<A, B>
auto operator&&(const A& a, const B& b) { return detail::binary<ir::bin_op::logical_and>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto operator||(const A& a, const B& b) { return detail::binary<ir::bin_op::logical_or>(a, b); }

template <class A, class B> requires binary_operands<A, B>
auto min(const A& a, const B& b) { return detail::binary<ir::bin_op::min>(a, b); }
template <class A, class B> requires binary_operands<A, B>
auto max(const A& a, const B& b) { return detail::binary<ir::bin_op::max>(a, b); }
// |a - b| without overflow.
template <class A, class B> requires binary_operands<A, B>
auto abs_diff(const A& a, const B& b) { return detail::binary<ir::bin_op::abs_diff>(a, b); }

template <any_expression X>
auto operator-(const X& x) { return detail::unary<ir::un_op::negate>(x); }
template <any_expression X>
auto operator~(const X& x) { return detail::unary<ir::un_op::bit_not>(x); }
template <any_expression X>
auto operator!(const X& x) { return detail::unary<ir::un_op::logical_not>(x); }
template <any_expression X>
auto popcount(const X& x) { return detail::unary<ir::un_op::popcount>(x); }
template <any_expression X>
auto clz(const X& x) { return detail::unary<ir::un_op::clz>(x); }
template <any_expression X>
auto ctz(const X& x) { return detail::unary<ir::un_op::ctz>(x); }
template <any_expression X>
auto reverse_bits(const X& x) { return detail::unary<ir::un_op::reverse_bits>(x); }

// `c ? a : b` with both sides evaluated; a and b meet as the operands of a binary operator do.
template <operand C, operand A, operand B>
auto select(const C& condition, const A& if_true, const B& if_false) {
    static_assert(std::same_as<detail::type_of_t<C>, boolean>, "vyre::dsl: select's condition must be boolean");
    static_assert(!detail::mismatched<A, B>, "vyre::dsl: select's two values must have the same type; use cast<T>()");
    using T = detail::meet_t<A, B>;
    auto c = detail::to_node<boolean>(condition);
    auto t = detail::to_node<T>(if_true);
    auto f = detail::to_node<T>(if_false);
    return expression<ir::expr_kind::select, T, 0, decltype(c), decltype(t), decltype(f)>{
        {}, {std::move(c), std::move(t), std::move(f)}};
}

// Conversion between scalar types, as OpenCL C converts (truncating, sign- or zero-extending;
// to boolean: nonzero is true).
template <class T, any_expression X>
auto cast(const X& x) {
    static_assert(value_type<T>, "vyre::dsl: cast<T>() needs T to be u32, i32, u64 or boolean");
    auto e = detail::to_node<detail::type_of_t<X>>(x);
    return expression<ir::expr_kind::cast, T, 0, decltype(e)>{{}, {std::move(e)}};
}

// ---- atomics ---------------------------------------------------------------------------------
// Each returns the element's old value; like the IR, it may only be the whole value of a let or
// assign (`auto old = k.let("old", atomic_add(hist, bin, 1u));`).

namespace detail {

template <ir::atomic_op Op, class T, ir::buffer_access Access, class I, class... V>
auto atomic(const buffer<T, Access>& b, const I& index, const V&... values) {
    static_assert(Access == ir::buffer_access::read_write,
                  "vyre::dsl: atomics need a read_write buffer (read_only, uniform and workgroup buffers take none)");
    static_assert(std::same_as<T, u32> || std::same_as<T, i32>, "vyre::dsl: atomics need a u32 or i32 buffer");
    static_assert(fits<I, u32>, "vyre::dsl: a buffer index must be u32; use cast<u32>()");
    static_assert((fits<V, T> && ...), "vyre::dsl: an atomic's value must have the buffer's element type; use cast<T>()");
    return expression<ir::expr_kind::atomic, T, Op, decltype(to_node<u32>(index)), decltype(to_node<T>(values))...>{
        b.name, {to_node<u32>(index), to_node<T>(values)...}};
}

} // namespace detail

template <class T, ir::buffer_access A, operand I, operand V>
auto atomic_add(const buffer<T, A>& b, const I& index, const V& value) { return detail::atomic<ir::atomic_op::add>(b, index, value); }
template <class T, ir::buffer_access A, operand I, operand V>
auto atomic_or(const buffer<T, A>& b, const I& index, const V& value) { return detail::atomic<ir::atomic_op::bit_or>(b, index, value); }
template <class T, ir::buffer_access A, operand I, operand V>
auto atomic_and(const buffer<T, A>& b, const I& index, const V& value) { return detail::atomic<ir::atomic_op::bit_and>(b, index, value); }
template <class T, ir::buffer_access A, operand I, operand V>
auto atomic_xor(const buffer<T, A>& b, const I& index, const V& value) { return detail::atomic<ir::atomic_op::bit_xor>(b, index, value); }
template <class T, ir::buffer_access A, operand I, operand V>
auto atomic_min(const buffer<T, A>& b, const I& index, const V& value) { return detail::atomic<ir::atomic_op::min>(b, index, value); }
template <class T, ir::buffer_access A, operand I, operand V>
auto atomic_max(const buffer<T, A>& b, const I& index, const V& value) { return detail::atomic<ir::atomic_op::max>(b, index, value); }
template <class T, ir::buffer_access A, operand I, operand V>
auto atomic_exchange(const buffer<T, A>& b, const I& index, const V& value) { return detail::atomic<ir::atomic_op::exchange>(b, index, value); }
// Stores `value` where the element equals `expected`; returns the old element either way.
template <class T, ir::buffer_access A, operand I, operand E, operand V>
auto atomic_compare_exchange(const buffer<T, A>& b, const I& index, const E& expected, const V& value) {
    return detail::atomic<ir::atomic_op::compare_exchange>(b, index, expected, value);
}

// ---- lowering: one overload per kind ---------------------------------------------------------

namespace detail {
template <class Tuple>
std::vector<ir::expr> args_to_ir(const Tuple& children);
} // namespace detail

template <class T, auto Op>
ir::expr to_ir(const expression<ir::expr_kind::literal, T, Op>& e) {
    return {ir::expr_kind::literal, ir_type<T>, 0, e.data, {}, {}};
}
template <class T, auto Op>
ir::expr to_ir(const expression<ir::expr_kind::var, T, Op>& e) {
    return ir::var(e.data, ir_type<T>);
}
template <class T, auto Op, class I>
ir::expr to_ir(const expression<ir::expr_kind::load, T, Op, I>& e) {
    return {ir::expr_kind::load, ir_type<T>, static_cast<std::uint8_t>(Op), 0, e.data, {to_ir(std::get<0>(e.children))}};
}
template <class T, auto Op, class I>
ir::expr to_ir(const expression<ir::expr_kind::load_u32_le, T, Op, I>& e) {
    return {ir::expr_kind::load_u32_le, ir_type<T>, static_cast<std::uint8_t>(Op), 0, e.data, {to_ir(std::get<0>(e.children))}};
}
template <class T, auto Op>
ir::expr to_ir(const expression<ir::expr_kind::buf_len, T, Op>& e) {
    return {ir::expr_kind::buf_len, ir_type<T>, 0, 0, e.data, {}};
}
template <ir::expr_kind K, class T, auto Op>
    requires(K == ir::expr_kind::invocation_id || K == ir::expr_kind::local_id || K == ir::expr_kind::workgroup_id)
ir::expr to_ir(const expression<K, T, Op>& e) {
    return {K, ir_type<T>, e.data, 0, {}, {}};
}
template <class T, ir::bin_op Op, class L, class R>
ir::expr to_ir(const expression<ir::expr_kind::binary, T, Op, L, R>& e) {
    return ir::binary(Op, to_ir(std::get<0>(e.children)), to_ir(std::get<1>(e.children)));
}
template <class T, ir::un_op Op, class X>
ir::expr to_ir(const expression<ir::expr_kind::unary, T, Op, X>& e) {
    return ir::unary(Op, to_ir(std::get<0>(e.children)));
}
template <class T, auto Op, class X>
ir::expr to_ir(const expression<ir::expr_kind::cast, T, Op, X>& e) {
    return ir::cast(ir_type<T>, to_ir(std::get<0>(e.children)));
}
template <class T, auto Op, class C, class A, class B>
ir::expr to_ir(const expression<ir::expr_kind::select, T, Op, C, A, B>& e) {
    const auto& [c, a, b] = e.children;
    return ir::select(to_ir(c), to_ir(a), to_ir(b));
}
template <class T, ir::atomic_op Op, class... A>
ir::expr to_ir(const expression<ir::expr_kind::atomic, T, Op, A...>& e) {
    return {ir::expr_kind::atomic, ir_type<T>, static_cast<std::uint8_t>(Op), 0, e.data, detail::args_to_ir(e.children)};
}
template <class T, auto Op, class... A>
ir::expr to_ir(const expression<ir::expr_kind::call, T, Op, A...>& e) {
    return ir::call(e.data, ir_type<T>, detail::args_to_ir(e.children));
}
namespace detail {
template <class Tuple>
std::vector<ir::expr> args_to_ir(const Tuple& children) {
    return std::apply([](const auto&... a) { return std::vector<ir::expr>{to_ir(a)...}; }, children);
}
} // namespace detail

} // namespace vyre::dsl
