// The reference interpreter's compiler (reference/interpreter.hpp): an ir::program turned into
// code with every name resolved to an index and every opcode specialised by operand type.
#pragma once

#include <vyre/ir/program.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vyre::reference::detail {

inline constexpr std::uint64_t low32 = 0xffffffffULL;
inline constexpr std::uint32_t none = ~std::uint32_t{0};

// Expression opcodes are specialised by operand type when compiling, so that evaluation is one
// switch per node with no type dispatch left in it.
enum class opcode : std::uint8_t {
    literal, var, param, load32, load64, load_bool, load_byte, load_u32_le, buf_len,
    local_id, workgroup_id, invocation_id, subgroup_local_id, subgroup_id,
    add32, add64, sub32, sub64, mul32, mul64,
    div_u32, div_i32, div_u64, mod_u32, mod_i32, mod_u64,
    bit_and, bit_or, bit_xor,
    shl32, shl64, shr_u32, shr_i32, shr_u64,
    eq, ne, lt_u, lt_i, le_u, le_i, gt_u, gt_i, ge_u, ge_i,
    min_u, min_i, max_u, max_i, abs_diff_u, abs_diff_i32,
    negate32, negate64, bit_not32, bit_not64, logical_not, popcount, clz32, clz64, ctz32, ctz64,
    reverse32, reverse64,
    truncate32, sign_extend, to_bool,
    select, atomic, call,
};

// One compiled expression node. Operand fields by opcode:
//   var: a = variable slot. param: a = parameter index in the current call frame.
//   load*: a = buffer, b = index, flag = unchecked (ir::bounds). buf_len: a = buffer. ids: sub = axis.
//   binary: a, b. unary and casts: a. select: a, b, c.
//   atomic: sub = atomic_op, flag = signed, imm = buffer, a = index, b = value, c = expected.
//   call: a = first entry in call_args, b = argument count, c = function, imm = first staging slot.
struct cexpr {
    opcode code = opcode::literal;
    std::uint8_t sub = 0;
    std::uint8_t flag = 0;
    std::uint32_t a = none, b = none, c = none;
    std::uint64_t imm = 0;
};

enum class step : std::uint8_t {
    set, // let or assign: slot = e0
    subgroup_set, // let or assign of a subgroup op (sub = ir::subgroup_op): slot = op(e0[, e1])
    store32, store64, store_bool, store_byte, // buffer[e0] = e1
    if_, loop, while_, break_, continue_, return_, block, nothing,
    barrier, subgroup_barrier, // no-ops in lockstep; the race check counts them
};

// One compiled statement. Nested bodies sit one `depth` deeper; the depth picks the scratch lane
// lists an If or a loop uses, so that running needs no allocation.
struct cnode {
    step kind = step::nothing;
    bool is_signed = false; // loop counter is I32
    bool wide = false;      // loop counter is U64
    std::uint32_t depth = 0;
    std::uint32_t slot = none;     // set target; loop counter
    std::uint32_t end_slot = none; // loop: the `to` value read on entry
    std::uint32_t buffer = none;   // stores
    bool unchecked = false;        // stores: ir::bounds::unchecked
    std::uint8_t sub = 0;          // subgroup_set: the ir::subgroup_op
    std::uint32_t e0 = none, e1 = none;
    std::vector<cnode> body, else_body;
};

// A program with every name resolved: variables to slots, buffers and functions to indices.
struct compiled {
    std::vector<cexpr> exprs;
    std::vector<std::uint32_t> call_args;      // argument expressions of every call site
    std::vector<std::uint32_t> function_roots; // body expression of each function
    std::vector<cnode> body;
    std::uint32_t slots = 0;   // variable slots per invocation
    std::uint32_t staging = 0; // argument slots of all call sites
    std::uint32_t depth = 0;   // deepest statement nesting
};

class compiler {
public:
    explicit compiler(const ir::program& p) : p_(p) {}

    compiled build() {
        for (const auto& f : p_.functions) {
            params_ = &f.params;
            out_.function_roots.push_back(expression(f.body));
        }
        params_ = nullptr;
        out_.body = body(p_.body, 0);
        return std::move(out_);
    }

private:
    const ir::program& p_;
    compiled out_;
    std::vector<std::pair<std::string_view, std::uint32_t>> scope_; // visible variables, innermost last
    const std::vector<ir::function::param>* params_ = nullptr;     // set while compiling a function

    // Validation already guarantees every name resolves; these throws guard against misuse only.
    [[noreturn]] static void unresolved(std::string_view what, std::string_view n) {
        throw std::logic_error("reference interpreter: unresolved " + std::string(what) + " \"" + std::string(n) + "\"");
    }
    std::uint32_t buffer_index(std::string_view n) const {
        for (std::size_t i = 0; i < p_.buffers.size(); ++i)
            if (p_.buffers[i].name == n) return static_cast<std::uint32_t>(i);
        unresolved("buffer", n);
    }
    std::uint32_t slot_of(std::string_view n) const {
        for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
            if (it->first == n) return it->second;
        unresolved("variable", n);
    }
    std::uint32_t push(const cexpr& e) {
        out_.exprs.push_back(e);
        return static_cast<std::uint32_t>(out_.exprs.size() - 1);
    }

    static opcode binary_code(ir::bin_op op, ir::data_type t) {
        using ir::bin_op;
        const bool s = t == ir::data_type::i32, w = t == ir::data_type::u64;
        switch (op) {
        case bin_op::add: return w ? opcode::add64 : opcode::add32;
        case bin_op::sub: return w ? opcode::sub64 : opcode::sub32;
        case bin_op::mul: return w ? opcode::mul64 : opcode::mul32;
        case bin_op::div: return w ? opcode::div_u64 : s ? opcode::div_i32 : opcode::div_u32;
        case bin_op::mod: return w ? opcode::mod_u64 : s ? opcode::mod_i32 : opcode::mod_u32;
        case bin_op::bit_and:
        case bin_op::logical_and: return opcode::bit_and; // Bool operands are 0/1
        case bin_op::bit_or:
        case bin_op::logical_or: return opcode::bit_or;
        case bin_op::bit_xor: return opcode::bit_xor;
        case bin_op::shl: return w ? opcode::shl64 : opcode::shl32;
        case bin_op::shr: return w ? opcode::shr_u64 : s ? opcode::shr_i32 : opcode::shr_u32;
        case bin_op::eq: return opcode::eq;
        case bin_op::ne: return opcode::ne;
        case bin_op::lt: return s ? opcode::lt_i : opcode::lt_u;
        case bin_op::le: return s ? opcode::le_i : opcode::le_u;
        case bin_op::gt: return s ? opcode::gt_i : opcode::gt_u;
        case bin_op::ge: return s ? opcode::ge_i : opcode::ge_u;
        case bin_op::min: return s ? opcode::min_i : opcode::min_u;
        case bin_op::max: return s ? opcode::max_i : opcode::max_u;
        case bin_op::abs_diff: return s ? opcode::abs_diff_i32 : opcode::abs_diff_u;
        }
        throw std::logic_error("reference interpreter: unknown binary op");
    }

    static opcode unary_code(ir::un_op op, ir::data_type t) {
        using ir::un_op;
        const bool w = t == ir::data_type::u64;
        switch (op) {
        case un_op::negate: return w ? opcode::negate64 : opcode::negate32;
        case un_op::bit_not: return w ? opcode::bit_not64 : opcode::bit_not32;
        case un_op::logical_not: return opcode::logical_not;
        case un_op::popcount: return opcode::popcount;
        case un_op::clz: return w ? opcode::clz64 : opcode::clz32;
        case un_op::ctz: return w ? opcode::ctz64 : opcode::ctz32;
        case un_op::reverse_bits: return w ? opcode::reverse64 : opcode::reverse32;
        }
        throw std::logic_error("reference interpreter: unknown unary op");
    }

    std::uint32_t expression(const ir::expr& e) {
        using ir::data_type;
        using ir::expr_kind;
        cexpr c;
        switch (e.kind) {
        case expr_kind::literal:
            c.code = opcode::literal;
            c.imm = e.type == data_type::u64 ? e.value : e.type == data_type::boolean ? (e.value != 0) : (e.value & low32);
            return push(c);
        case expr_kind::var:
            if (params_) {
                for (std::size_t i = 0; i < params_->size(); ++i)
                    if ((*params_)[i].name == e.name) {
                        c.code = opcode::param;
                        c.a = static_cast<std::uint32_t>(i);
                        return push(c);
                    }
                unresolved("parameter", e.name);
            }
            c.code = opcode::var;
            c.a = slot_of(e.name);
            return push(c);
        case expr_kind::load: {
            c.a = buffer_index(e.name);
            switch (p_.buffers[c.a].element) {
            case data_type::u64: c.code = opcode::load64; break;
            case data_type::boolean: c.code = opcode::load_bool; break;
            case data_type::bytes: c.code = opcode::load_byte; break;
            default: c.code = opcode::load32; break;
            }
            c.b = expression(e.args.at(0));
            c.flag = e.bounds() == ir::bounds::unchecked;
            return push(c);
        }
        case expr_kind::load_u32_le:
            c.code = opcode::load_u32_le;
            c.a = buffer_index(e.name);
            c.b = expression(e.args.at(0));
            c.flag = e.bounds() == ir::bounds::unchecked;
            return push(c);
        case expr_kind::buf_len:
            c.code = opcode::buf_len;
            c.a = buffer_index(e.name);
            return push(c);
        case expr_kind::invocation_id:
        case expr_kind::local_id:
        case expr_kind::workgroup_id:
            c.code = e.kind == expr_kind::invocation_id ? opcode::invocation_id
                : e.kind == expr_kind::local_id         ? opcode::local_id
                                                        : opcode::workgroup_id;
            c.sub = e.op;
            return push(c);
        case expr_kind::subgroup_local_id:
        case expr_kind::subgroup_id:
            c.code = e.kind == expr_kind::subgroup_local_id ? opcode::subgroup_local_id : opcode::subgroup_id;
            return push(c);
        case expr_kind::subgroup_size:
            c.code = opcode::literal;
            c.imm = p_.subgroup_size;
            return push(c);
        case expr_kind::subgroup: break; // only as a let's or assign's whole value: see statement()
        case expr_kind::binary:
            c.code = binary_code(e.binary_op(), e.args.at(0).type);
            c.a = expression(e.args[0]);
            c.b = expression(e.args.at(1));
            return push(c);
        case expr_kind::unary:
            c.code = unary_code(e.unary_op(), e.args.at(0).type);
            c.a = expression(e.args[0]);
            return push(c);
        case expr_kind::cast: {
            const data_type from = e.args.at(0).type, to = e.type;
            const std::uint32_t operand = expression(e.args[0]);
            // Values are kept masked to their width, so most casts change nothing at all.
            if (to == data_type::boolean && from != data_type::boolean) c.code = opcode::to_bool;
            else if (from == data_type::i32 && to == data_type::u64) c.code = opcode::sign_extend;
            else if (from == data_type::u64 && to != data_type::u64 && to != data_type::boolean) c.code = opcode::truncate32;
            else return operand;
            c.a = operand;
            return push(c);
        }
        case expr_kind::select:
            c.code = opcode::select;
            c.a = expression(e.args.at(0));
            c.b = expression(e.args.at(1));
            c.c = expression(e.args.at(2));
            return push(c);
        case expr_kind::atomic: {
            c.code = opcode::atomic;
            c.sub = e.op;
            const std::uint32_t buffer = buffer_index(e.name);
            c.imm = buffer;
            c.flag = p_.buffers[buffer].element == data_type::i32;
            c.a = expression(e.args.at(0));
            if (e.atomic_kind() == ir::atomic_op::compare_exchange) {
                c.c = expression(e.args.at(1));
                c.b = expression(e.args.at(2));
            } else {
                c.b = expression(e.args.at(1));
            }
            return push(c);
        }
        case expr_kind::call: {
            const ir::function* f = p_.find_function(e.name);
            if (!f) unresolved("function", e.name);
            std::vector<std::uint32_t> args;
            for (const auto& a : e.args) args.push_back(expression(a));
            c.code = opcode::call;
            c.a = static_cast<std::uint32_t>(out_.call_args.size());
            c.b = static_cast<std::uint32_t>(args.size());
            c.c = static_cast<std::uint32_t>(f - p_.functions.data());
            // Each call site owns its argument slots. Functions call only functions declared before
            // them, so no call site is re-entered while its arguments are live, and invocations
            // evaluate one at a time: one set of slots serves every invocation.
            c.imm = out_.staging;
            out_.staging += c.b;
            out_.call_args.insert(out_.call_args.end(), args.begin(), args.end());
            return push(c);
        }
        }
        throw std::logic_error("reference interpreter: unknown expression kind");
    }

    std::uint32_t new_slot() { return out_.slots++; }

    // The value of a let or assign: a subgroup op runs as its own step over the whole subgroup.
    void value(cnode& c, const ir::expr& e) {
        if (e.kind != ir::expr_kind::subgroup) {
            c.kind = step::set;
            c.e0 = expression(e);
            return;
        }
        c.kind = step::subgroup_set;
        c.sub = e.op;
        c.e0 = expression(e.args.at(0));
        if (e.args.size() > 1) c.e1 = expression(e.args[1]);
    }

    std::vector<cnode> body(const std::vector<ir::node>& nodes, std::uint32_t depth) {
        if (depth > out_.depth) out_.depth = depth;
        const std::size_t mark = scope_.size();
        std::vector<cnode> out;
        out.reserve(nodes.size());
        for (const auto& n : nodes) out.push_back(statement(n, depth));
        scope_.resize(mark);
        return out;
    }

    cnode statement(const ir::node& n, std::uint32_t depth) {
        using ir::data_type;
        using ir::node_kind;
        cnode c;
        c.depth = depth;
        switch (n.kind) {
        case node_kind::let:
            value(c, n.exprs.at(0)); // before declaring: the value cannot see the new name
            c.slot = new_slot();
            scope_.emplace_back(n.name, c.slot);
            return c;
        case node_kind::assign:
            value(c, n.exprs.at(0));
            c.slot = slot_of(n.name);
            return c;
        case node_kind::store:
            c.buffer = buffer_index(n.name);
            switch (p_.buffers[c.buffer].element) {
            case data_type::u64: c.kind = step::store64; break;
            case data_type::boolean: c.kind = step::store_bool; break;
            case data_type::bytes: c.kind = step::store_byte; break;
            default: c.kind = step::store32; break;
            }
            c.e0 = expression(n.exprs.at(0));
            c.e1 = expression(n.exprs.at(1));
            c.unchecked = n.access == ir::bounds::unchecked;
            return c;
        case node_kind::if_:
            c.kind = step::if_;
            c.e0 = expression(n.exprs.at(0));
            c.body = body(n.body, depth + 1);
            c.else_body = body(n.else_body, depth + 1);
            return c;
        case node_kind::loop: {
            c.kind = step::loop;
            c.is_signed = n.type == data_type::i32;
            c.wide = n.type == data_type::u64;
            c.e0 = expression(n.exprs.at(0));
            c.e1 = expression(n.exprs.at(1));
            c.slot = new_slot();
            c.end_slot = new_slot();
            const std::size_t mark = scope_.size();
            scope_.emplace_back(n.name, c.slot);
            c.body = body(n.body, depth + 1);
            scope_.resize(mark);
            return c;
        }
        case node_kind::while_:
            c.kind = step::while_;
            c.e0 = expression(n.exprs.at(0));
            c.body = body(n.body, depth + 1);
            return c;
        case node_kind::break_: c.kind = step::break_; return c;
        case node_kind::continue_: c.kind = step::continue_; return c;
        case node_kind::return_: c.kind = step::return_; return c;
        case node_kind::barrier: c.kind = step::barrier; return c;
        case node_kind::subgroup_barrier: c.kind = step::subgroup_barrier; return c;
        case node_kind::block:
            c.kind = step::block;
            c.body = body(n.body, depth + 1);
            return c;
        }
        throw std::logic_error("reference interpreter: unknown node kind");
    }
};

} // namespace vyre::reference::detail
