// Layer-1 primitive ops: one pure scalar function each, run element-wise by one generic program.
// Convention V1: binding 0 `input` (ReadOnly U32) holds each invocation's operands side by side
// (signature().min_input_bytes() bytes per element), binding 1 `output` (ReadWrite) one result per
// element, binding 2 `params` (Uniform U32) holds [element count].
#pragma once

#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <span>
#include <vector>

namespace vyre::ops::primitive {

struct primitive_op {
    std::string id;
    std::string summary;
    ir::function function; // the scalar semantics; other programs may call it

    std::uint32_t arity() const noexcept { return static_cast<std::uint32_t>(function.params.size()); }
    ir::op_signature signature() const {
        ir::op_signature s;
        for (const auto& p : function.params) s.inputs.push_back(p.type);
        s.output = function.result;
        return s;
    }
    ir::program program() const;
    op_info info() const {
        return {id, 1, summary, signature(), ir::convention::v1(), [op = *this] { return op.program(); }};
    }
};

inline constexpr std::uint32_t elementwise_workgroup = 256;

inline ir::program primitive_op::program() const {
    using namespace ir;
    ir::program p;
    p.name = entry_name(id);
    p.workgroup_size = {elementwise_workgroup, 1, 1};
    const auto input = buffer_decl::storage("input", 0, buffer_access::read_only, data_type::u32);
    const auto output = buffer_decl::storage("output", 1, buffer_access::read_write, function.result);
    const auto params = buffer_decl::storage("params", 2, buffer_access::uniform, data_type::u32);
    p.buffers = {input, output, params};
    p.functions = {function};
    const auto i = var("i", data_type::u32);
    std::vector<expr> args;
    std::vector<node> then;
    for (std::uint32_t k = 0; k < arity(); ++k) {
        // Operands are stored as u32 words; Bool operands are "word != 0".
        expr word = load(input, binary(bin_op::add, binary(bin_op::mul, i, lit_u32(arity())), lit_u32(k)));
        const data_type t = function.params[k].type;
        args.push_back(t == data_type::u32 ? word : cast(t, word));
    }
    then.push_back(store(output, i, call(function.name, function.result, args)));
    p.body = {let("i", invocation_id(0)), if_(binary(bin_op::lt, i, load(params, lit_u32(0))), then)};
    return p;
}

// Runs `op` on the device over `input.size() / arity` elements and returns the results as u32
// words (Bool results are 0 or 1).
inline std::vector<std::uint32_t> run(runtime::context& ctx, const runtime::compiled_program& program, std::uint32_t arity,
                                      std::span<const std::uint32_t> input) {
    const std::uint64_t n = input.size() / arity;
    if (input.size() % arity != 0)
        throw resource_error("primitive op input of " + std::to_string(input.size()) + " words is not a whole number of " +
                             std::to_string(arity) + "-operand elements");
    if (n > 0xffffffffu / arity) throw resource_error("primitive op over " + std::to_string(n) + " elements: at most 2^32/arity");
    const std::uint32_t count = static_cast<std::uint32_t>(n);
    std::vector<runtime::buffer_arg> args(3);
    args[0] = {runtime::upload(ctx, input, CL_MEM_READ_ONLY), static_cast<std::uint32_t>(input.size())};
    args[1] = {runtime::allocate(ctx, std::size_t(count) * 4), count};
    args[2] = {runtime::upload(ctx, std::span<const std::uint32_t>(&count, 1), CL_MEM_READ_ONLY), 1};
    runtime::dispatch(ctx, program, {runtime::groups_for(count, elementwise_workgroup), 1, 1}, args);
    auto out = runtime::download<std::uint32_t>(ctx, args[1].buffer, count);
    ctx.finish();
    return out;
}

namespace detail {

inline ir::function::param u(const char* n) { return {n, ir::data_type::u32}; }
inline ir::function::param b(const char* n) { return {n, ir::data_type::boolean}; }
inline ir::expr vu(const char* n) { return ir::var(n, ir::data_type::u32); }
inline ir::expr vb(const char* n) { return ir::var(n, ir::data_type::boolean); }

inline primitive_op binary_op(std::string id, std::string fn, std::string summary, ir::bin_op op) {
    ir::function f{std::move(fn), {u("a"), u("b")}, ir::data_type::u32, ir::binary(op, vu("a"), vu("b"))};
    f.result = f.body.type;
    return {std::move(id), std::move(summary), std::move(f)};
}
inline primitive_op unary_op(std::string id, std::string fn, std::string summary, ir::un_op op) {
    return {std::move(id), std::move(summary), {std::move(fn), {u("a")}, ir::data_type::u32, ir::unary(op, vu("a"))}};
}

} // namespace detail

} // namespace vyre::ops::primitive
