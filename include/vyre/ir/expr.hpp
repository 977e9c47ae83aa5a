// IR expressions: one value type `expr` (a kind, a result type, and its operands) plus the
// functions that build each kind. Expressions are plain values: copy, compare, hash, print.
#pragma once

#include <vyre/ir/types.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::ir {

enum class expr_kind : std::uint8_t {
    literal,       // value: the bits of the constant
    var,           // name: a variable declared by let or a loop
    load,          // name: buffer; args: [index]; op: bounds. Out of bounds reads zero (checked).
    buf_len,       // name: buffer; element count (u32 words for Bytes)
    invocation_id, // op: axis 0..2; get_global_id
    local_id,      // op: axis; get_local_id
    workgroup_id,  // op: axis; get_group_id
    binary,        // op: bin_op; args: [lhs, rhs]
    unary,         // op: un_op; args: [operand]
    cast,          // type: target; args: [operand]
    select,        // args: [condition, if_true, if_false]
    atomic,        // op: atomic_op; name: buffer; args: [index, value] or [index, expected, value]
    call,          // name: function of the program; args: its arguments
    // Subgroups (ir/program.hpp: program::subgroup_size): the workgroup's invocations in groups of
    // subgroup_size consecutive local linear ids that run together.
    subgroup_local_id, // this invocation's index in its subgroup, 0..subgroup_size-1
    subgroup_id,       // which subgroup of the workgroup: local linear id / subgroup_size
    subgroup_size,     // the program's subgroup size, as a U32
    subgroup,          // op: subgroup_op; args by op (below). Only the whole value of a let or assign.
    // name: a Bytes buffer; args: [byte index i]; op: bounds. Bytes i..i+3 as one U32, byte i
    // least significant: a little-endian word at any byte position (bit readers, headers). Checked,
    // each byte outside the buffer (or past index 2^32 - 1) reads zero.
    load_u32_le,
};

// Whether a buffer access tests its index. `checked` (the default) gives every access a defined
// result: a load out of bounds reads zero, a store does nothing. `unchecked` is the program's
// promise that the index is in bounds, proven by tests the program already makes (an output
// position below a capacity the descriptors were checked against, say): the lowering emits the
// bare access, which saves NVIDIA's compiler a compare, a predicate and the buffer's base
// reloaded per access on the hottest loops. The reference interpreter holds the program to the
// promise: an unchecked access out of bounds throws validation_error naming the buffer and index,
// so the tests that run a program on the interpreter (conformance lists, mutation loops, fuzzing)
// catch a promise that does not hold.
enum class bounds : std::uint8_t { checked, unchecked };

enum class bin_op : std::uint8_t {
    add, sub, mul, div, mod, bit_and, bit_or, bit_xor, shl, shr,
    eq, ne, lt, le, gt, ge, logical_and, logical_or, min, max, abs_diff,
};

enum class un_op : std::uint8_t { negate, bit_not, logical_not, popcount, clz, ctz, reverse_bits };

enum class atomic_op : std::uint8_t { add, bit_or, bit_and, bit_xor, min, max, exchange, compare_exchange };

// Operations of a whole subgroup: every invocation of the subgroup evaluates them together
// (reference/interpreter.hpp gives the values). Operands: value and lane are U32, condition Bool.
enum class subgroup_op : std::uint8_t {
    broadcast,     // [value, lane]: value of invocation `lane` (lane is the same for the subgroup)
    shuffle,       // [value, lane]: value of invocation lane % size
    shuffle_up,    // [value, delta]: value of invocation id - delta, own value where that is < 0
    shuffle_down,  // [value, delta]: value of invocation id + delta, own value where that is >= size
    shuffle_xor,   // [value, mask]: value of invocation id ^ mask, own value where that is >= size
    ballot,        // [condition]: U32 with bit i set where invocation i's condition holds
    any,           // [condition]: Bool, whether it holds for any invocation
    all,           // [condition]: Bool, whether it holds for every invocation
    inclusive_add, // [value]: sum of the values of invocations 0..id (wrapping)
    exclusive_add, // [value]: sum of the values of invocations 0..id-1 (0 for invocation 0)
};

constexpr std::string_view name(bin_op op) noexcept {
    constexpr std::string_view names[] = {"Add", "Sub", "Mul", "Div", "Mod", "BitAnd", "BitOr",
                                          "BitXor", "Shl", "Shr", "Eq", "Ne", "Lt", "Le", "Gt", "Ge",
                                          "And", "Or", "Min", "Max", "AbsDiff"};
    return names[static_cast<int>(op)];
}
constexpr std::string_view name(un_op op) noexcept {
    constexpr std::string_view names[] = {"Negate", "BitNot", "LogicalNot", "Popcount", "Clz", "Ctz", "ReverseBits"};
    return names[static_cast<int>(op)];
}
constexpr std::string_view name(atomic_op op) noexcept {
    constexpr std::string_view names[] = {"Add", "Or", "And", "Xor", "Min", "Max", "Exchange", "CompareExchange"};
    return names[static_cast<int>(op)];
}
constexpr std::string_view name(subgroup_op op) noexcept {
    constexpr std::string_view names[] = {"SubgroupBroadcast", "SubgroupShuffle", "SubgroupShuffleUp", "SubgroupShuffleDown",
                                          "SubgroupShuffleXor", "SubgroupBallot", "SubgroupAny", "SubgroupAll",
                                          "SubgroupInclusiveAdd", "SubgroupExclusiveAdd"};
    return names[static_cast<int>(op)];
}
// Operands of a subgroup op: 2 for broadcast and the shuffles, else 1.
constexpr std::size_t operand_count(subgroup_op op) noexcept { return op <= subgroup_op::shuffle_xor ? 2 : 1; }
// Result type: U32 for all but any and all (Bool).
constexpr data_type subgroup_result(subgroup_op op) noexcept {
    return op == subgroup_op::any || op == subgroup_op::all ? data_type::boolean : data_type::u32;
}

constexpr bool is_comparison(bin_op op) noexcept { return op >= bin_op::eq && op <= bin_op::ge; }
constexpr bool is_logical(bin_op op) noexcept { return op == bin_op::logical_and || op == bin_op::logical_or; }
constexpr bool is_shift(bin_op op) noexcept { return op == bin_op::shl || op == bin_op::shr; }

struct expr {
    expr_kind kind = expr_kind::literal;
    data_type type = data_type::u32; // the type of the value this expression produces
    std::uint8_t op = 0;             // bin_op, un_op, atomic_op, subgroup_op, axis or bounds (loads), by kind
    std::uint64_t value = 0;         // literal bits (u32/i32/bool: low 32 bits)
    std::string name;                // variable, buffer or function
    std::vector<expr> args;

    bin_op binary_op() const noexcept { return static_cast<bin_op>(op); }
    un_op unary_op() const noexcept { return static_cast<un_op>(op); }
    atomic_op atomic_kind() const noexcept { return static_cast<atomic_op>(op); }
    subgroup_op subgroup_kind() const noexcept { return static_cast<subgroup_op>(op); }
    ir::bounds bounds() const noexcept { return static_cast<ir::bounds>(op); }
    friend bool operator==(const expr&, const expr&) = default;
};

// ---- builders -------------------------------------------------------------------------------

inline expr lit_u32(std::uint32_t v) { return {expr_kind::literal, data_type::u32, 0, v, {}, {}}; }
inline expr lit_i32(std::int32_t v) {
    return {expr_kind::literal, data_type::i32, 0, static_cast<std::uint32_t>(v), {}, {}};
}
inline expr lit_u64(std::uint64_t v) { return {expr_kind::literal, data_type::u64, 0, v, {}, {}}; }
inline expr lit_bool(bool v) { return {expr_kind::literal, data_type::boolean, 0, v ? 1u : 0u, {}, {}}; }

inline expr var(std::string name, data_type type) { return {expr_kind::var, type, 0, 0, std::move(name), {}}; }

// The element type a load from a buffer of `element` type yields: Bytes yields one byte as U32.
constexpr data_type loaded_type(data_type element) noexcept {
    return element == data_type::bytes ? data_type::u32 : element;
}

inline expr load(const buffer_decl& buffer, expr index, bounds b = bounds::checked) {
    return {expr_kind::load, loaded_type(buffer.element), static_cast<std::uint8_t>(b), 0, buffer.name, {std::move(index)}};
}
inline expr load_u32_le(const buffer_decl& buffer, expr index, bounds b = bounds::checked) {
    return {expr_kind::load_u32_le, data_type::u32, static_cast<std::uint8_t>(b), 0, buffer.name, {std::move(index)}};
}
inline expr buf_len(const buffer_decl& buffer) { return {expr_kind::buf_len, data_type::u32, 0, 0, buffer.name, {}}; }

inline expr invocation_id(std::uint8_t axis = 0) { return {expr_kind::invocation_id, data_type::u32, axis, 0, {}, {}}; }
inline expr local_id(std::uint8_t axis = 0) { return {expr_kind::local_id, data_type::u32, axis, 0, {}, {}}; }
inline expr workgroup_id(std::uint8_t axis = 0) { return {expr_kind::workgroup_id, data_type::u32, axis, 0, {}, {}}; }

// Result type of a binary op: Bool for comparisons and logic, else the left operand's type
// (validation checks that both operands agree).
constexpr data_type binary_result(bin_op op, data_type lhs) noexcept {
    return is_comparison(op) || is_logical(op) ? data_type::boolean : lhs;
}
inline expr binary(bin_op op, expr lhs, expr rhs) {
    const data_type t = binary_result(op, lhs.type);
    return {expr_kind::binary, t, static_cast<std::uint8_t>(op), 0, {}, {std::move(lhs), std::move(rhs)}};
}
inline expr unary(un_op op, expr operand) {
    const data_type t = operand.type;
    return {expr_kind::unary, t, static_cast<std::uint8_t>(op), 0, {}, {std::move(operand)}};
}
inline expr cast(data_type to, expr operand) { return {expr_kind::cast, to, 0, 0, {}, {std::move(operand)}}; }
inline expr select(expr condition, expr if_true, expr if_false) {
    const data_type t = if_true.type;
    return {expr_kind::select, t, 0, 0, {}, {std::move(condition), std::move(if_true), std::move(if_false)}};
}
// Returns the value the element held before the operation.
inline expr atomic(atomic_op op, const buffer_decl& buffer, expr index, expr value) {
    const data_type t = buffer.element;
    return {expr_kind::atomic, t, static_cast<std::uint8_t>(op), 0, buffer.name, {std::move(index), std::move(value)}};
}
inline expr atomic_compare_exchange(const buffer_decl& buffer, expr index, expr expected, expr value) {
    const data_type t = buffer.element;
    return {expr_kind::atomic, t, static_cast<std::uint8_t>(atomic_op::compare_exchange), 0, buffer.name,
            {std::move(index), std::move(expected), std::move(value)}};
}
inline expr subgroup_local_id() { return {expr_kind::subgroup_local_id, data_type::u32, 0, 0, {}, {}}; }
inline expr subgroup_id() { return {expr_kind::subgroup_id, data_type::u32, 0, 0, {}, {}}; }
inline expr subgroup_size() { return {expr_kind::subgroup_size, data_type::u32, 0, 0, {}, {}}; }
// A subgroup op over its operands (operand_count(op) of them).
inline expr subgroup(subgroup_op op, std::vector<expr> args) {
    return {expr_kind::subgroup, subgroup_result(op), static_cast<std::uint8_t>(op), 0, {}, std::move(args)};
}

inline expr call(std::string function, data_type result, std::vector<expr> args) {
    return {expr_kind::call, result, 0, 0, std::move(function), std::move(args)};
}

} // namespace vyre::ir
