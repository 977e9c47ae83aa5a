// IR statements: one value type `node` (a kind, its expressions and nested bodies) plus builders.
#pragma once

#include <vyre/ir/expr.hpp>

#include <string>
#include <vector>

namespace vyre::ir {

enum class node_kind : std::uint8_t {
    let,       // name, type; exprs: [value]. Declares a variable in the enclosing block.
    assign,    // name; exprs: [value]
    store,     // name: buffer; exprs: [index, value]; access: bounds. Out of bounds does nothing (checked).
    if_,       // exprs: [condition]; body: then; else_body: else
    loop,      // name: counter; exprs: [from, to]; body. Counts from..to-1; `to` is read once.
    while_,    // exprs: [condition]; body. Repeats while the condition holds.
    break_,    // leaves the innermost loop
    continue_, // next iteration of the innermost loop
    return_,   // ends this invocation
    barrier,   // workgroup barrier over local and global memory
    block,     // body: a nested scope
    subgroup_barrier, // barrier of the invocation's subgroup over local and global memory
};

struct node {
    node_kind kind = node_kind::block;
    std::string name;
    data_type type = data_type::u32;
    std::vector<expr> exprs;
    std::vector<node> body;
    std::vector<node> else_body;
    bounds access = bounds::checked; // store: whether the index is tested (ir::bounds)
    friend bool operator==(const node&, const node&) = default;
};

inline node let(std::string name, expr value) {
    const data_type t = value.type;
    return {node_kind::let, std::move(name), t, {std::move(value)}, {}, {}};
}
inline node assign(std::string name, expr value) {
    const data_type t = value.type;
    return {node_kind::assign, std::move(name), t, {std::move(value)}, {}, {}};
}
inline node store(const buffer_decl& buffer, expr index, expr value, bounds b = bounds::checked) {
    return {node_kind::store, buffer.name, buffer.element, {std::move(index), std::move(value)}, {}, {}, b};
}
inline node if_(expr condition, std::vector<node> then_body, std::vector<node> else_body = {}) {
    return {node_kind::if_, {}, data_type::boolean, {std::move(condition)}, std::move(then_body), std::move(else_body)};
}
inline node loop(std::string counter, expr from, expr to, std::vector<node> body) {
    const data_type t = from.type;
    return {node_kind::loop, std::move(counter), t, {std::move(from), std::move(to)}, std::move(body), {}};
}
inline node while_(expr condition, std::vector<node> body) {
    return {node_kind::while_, {}, data_type::boolean, {std::move(condition)}, std::move(body), {}};
}
inline node break_() { return {node_kind::break_, {}, data_type::u32, {}, {}, {}}; }
inline node continue_() { return {node_kind::continue_, {}, data_type::u32, {}, {}, {}}; }
inline node return_() { return {node_kind::return_, {}, data_type::u32, {}, {}, {}}; }
inline node barrier() { return {node_kind::barrier, {}, data_type::u32, {}, {}, {}}; }
inline node subgroup_barrier() { return {node_kind::subgroup_barrier, {}, data_type::u32, {}, {}, {}}; }
inline node block(std::vector<node> body) { return {node_kind::block, {}, data_type::u32, {}, std::move(body), {}}; }

} // namespace vyre::ir
