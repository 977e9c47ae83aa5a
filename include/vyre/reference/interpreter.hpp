// The CPU interpreter of ir::program: the oracle that DEFINES what every IR program means.
// The OpenCL lowering, and any other backend, must leave the buffers exactly as run() does.
//
// Semantics (the project's definition; a backend that differs is wrong):
//
// Values. U32, I32 and Bool are 32 bits wide, U64 is 64 bits. A value is its bit pattern; every
//   integer operation wraps (two's complement for I32, never undefined). Bool is 0 or 1.
// Literals: their bits (the low 32 bits for 32-bit types); a Bool literal is (value != 0).
// Binary ops (both operands have one type):
//   Add Sub Mul        wrap modulo 2^width.
//   Div                x / 0 == x (the dividend). I32 truncates toward zero; INT_MIN / -1 == INT_MIN.
//   Mod                x % 0 == 0. I32 takes the dividend's sign (C); INT_MIN % -1 == 0.
//   Shl Shr            the amount is masked to the width (b & 31, or b & 63 for U64);
//                      Shr is arithmetic for I32, logical for U32 and U64.
//   Lt Le Gt Ge Min Max  signed for I32, unsigned otherwise.
//   Eq Ne Lt Le Gt Ge And Or  yield Bool (0/1). Eq Ne BitAnd BitOr BitXor also take Bool operands.
//   AbsDiff            |a - b| in the type's order, computed without overflow, returned as a bit
//                      pattern of the operand type: AbsDiff(I32 INT_MIN, I32 INT_MAX) == -1 (0xFFFFFFFF).
// Unary ops (on the bit pattern; the result has the operand's type): Negate = 0 - x (wrapping),
//   BitNot = ~x, LogicalNot (Bool) = 1 - x, Popcount, Clz (Clz(0) = width), Ctz (Ctz(0) = width),
//   ReverseBits (bit i moves to bit width-1-i).
// Cast: U32 <-> I32 keeps the bits; U32 -> U64 zero-extends; I32 -> U64 sign-extends; U64 -> U32/I32
//   keeps the low 32 bits; Bool -> integer gives 0/1; integer -> Bool is (x != 0).
// Select(c, a, b) = c ? a : b. Expressions have no side effects except Atomic, so the order in which
//   operands are evaluated is unobservable.
// Buffers. Storage buffer bytes are little-endian. Load(buffer, index) takes an element index; on a
//   Bytes buffer it is a BYTE index (byte i is lane i%4 of word i/4) and yields the byte 0..255 as U32.
//   An index >= the element count loads 0. A Bool buffer loads (word != 0). BufLen is the element
//   count, but the number of backing u32 words for Bytes. Store out of bounds does nothing; a Bytes
//   store writes the low 8 bits of the value into that one byte; a Bool store writes 0 or 1 as a u32.
//   Workgroup buffers hold `count` elements, are zero at the start of each workgroup and are
//   private to it. A Bytes workgroup buffer's count is in bytes, a multiple of 4; its BufLen is
//   count / 4 words, as for storage.
// Atomic(op, buffer, index, value) on a U32/I32 ReadWrite buffer returns the old element and stores
//   old op value (Add wraps; Min/Max are signed for I32; Exchange stores value). CompareExchange(index,
//   expected, value) stores value iff old == expected and returns old. Out of bounds: returns 0 and
//   changes nothing.
// Call(f, args) is f's body expression evaluated with its parameters bound to the arguments.
// Statements. Let evaluates its value and declares the variable; Assign updates it; blocks scope as
//   in C. Loop(counter, from, to) evaluates from and to ONCE on entry; the counter takes from,
//   from+1, ..., to-1 (nothing when from >= to, compared in the counter type's signedness).
//   While(cond) evaluates cond before every iteration. Break and Continue act on the innermost loop;
//   Return ends the invocation.
// Ids. InvocationId(axis) = WorkgroupId(axis) * workgroup_size[axis] + LocalId(axis).
// Execution. Workgroups run one after another, x fastest, then y, then z. Inside a workgroup the
//   invocations run in LOCKSTEP: each statement runs to completion for every active invocation, in
//   local linear id order (x fastest), before the next statement starts. An If runs its then-branch
//   for the invocations whose condition holds, then its else-branch for the others. A loop iterates
//   while any invocation is still in it. Break, Continue and Return deactivate an invocation for the
//   rest of the iteration / the loop / the program. Hence Barrier is a no-op here, and stores and
//   atomics of one workgroup take effect in a defined order.
#pragma once

#include <vyre/error.hpp>
#include <vyre/ir/program.hpp>
#include <vyre/ir/validate.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vyre::reference {

// The raw little-endian bytes of one storage buffer.
using buffer_data = std::vector<std::uint8_t>;

namespace detail {

inline constexpr std::uint64_t low32 = 0xffffffffULL;
inline constexpr std::uint32_t none = ~std::uint32_t{0};

// Expression opcodes are specialised by operand type when compiling, so that evaluation is one
// switch per node with no type dispatch left in it.
enum class opcode : std::uint8_t {
    literal, var, param, load32, load64, load_bool, load_byte, buf_len,
    local_id, workgroup_id, invocation_id,
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
//   load*: a = buffer, b = index. buf_len: a = buffer. ids: sub = axis.
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
    store32, store64, store_bool, store_byte, // buffer[e0] = e1
    if_, loop, while_, break_, continue_, return_, block, nothing,
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
            return push(c);
        }
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
            c.kind = step::set;
            c.e0 = expression(n.exprs.at(0)); // before declaring: the value cannot see the new name
            c.slot = new_slot();
            scope_.emplace_back(n.name, c.slot);
            return c;
        case node_kind::assign:
            c.kind = step::set;
            c.e0 = expression(n.exprs.at(0));
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
        case node_kind::barrier: c.kind = step::nothing; return c; // lockstep makes it implicit
        case node_kind::block:
            c.kind = step::block;
            c.body = body(n.body, depth + 1);
            return c;
        }
        throw std::logic_error("reference interpreter: unknown node kind");
    }
};

inline std::uint32_t read32(const std::uint8_t* p) noexcept {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
inline std::uint64_t read64(const std::uint8_t* p) noexcept { return read32(p) | std::uint64_t(read32(p + 4)) << 32; }
inline void write32(std::uint8_t* p, std::uint32_t v) noexcept {
    p[0] = std::uint8_t(v);
    p[1] = std::uint8_t(v >> 8);
    p[2] = std::uint8_t(v >> 16);
    p[3] = std::uint8_t(v >> 24);
}
inline void write64(std::uint8_t* p, std::uint64_t v) noexcept {
    write32(p, std::uint32_t(v));
    write32(p + 4, std::uint32_t(v >> 32));
}

constexpr std::uint32_t reverse_bits32(std::uint32_t x) noexcept {
    x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
    x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
    x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
    x = (x >> 8 & 0x00ff00ffu) | (x & 0x00ff00ffu) << 8;
    return x >> 16 | x << 16;
}
constexpr std::uint64_t reverse_bits64(std::uint64_t x) noexcept {
    return std::uint64_t(reverse_bits32(std::uint32_t(x))) << 32 | reverse_bits32(std::uint32_t(x >> 32));
}
constexpr std::int32_t as_i32(std::uint64_t v) noexcept { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }
constexpr std::uint64_t from_i32(std::int32_t v) noexcept { return static_cast<std::uint32_t>(v); }

struct buffer_view {
    std::uint8_t* data = nullptr;
    std::uint64_t count = 0; // addressable elements: bytes for Bytes buffers
    std::uint32_t len = 0;   // what BufLen reports
};

// Runs a compiled program one workgroup at a time, all invocations of a workgroup in lockstep.
class machine {
public:
    machine(const ir::program& p, const compiled& c, std::vector<buffer_data>& buffers)
        : c_(c), size_(p.workgroup_size), lanes_(p.invocations_per_workgroup()) {
        std::uint64_t local_bytes = 0;
        for (const auto& b : p.buffers)
            if (!b.is_storage()) local_bytes += std::uint64_t(b.count) * ir::element_bytes(b.element);
        local_.resize(local_bytes);
        std::uint64_t offset = 0;
        for (const auto& b : p.buffers) {
            buffer_view v;
            if (b.is_storage()) {
                auto& data = buffers[b.binding];
                v.data = data.data();
                v.count = data.size() / ir::element_bytes(b.element);
                v.len = static_cast<std::uint32_t>(b.element == ir::data_type::bytes ? data.size() / 4 : v.count);
            } else {
                v.data = local_.data() + offset;
                v.count = b.count;
                v.len = b.element == ir::data_type::bytes ? b.count / 4 : b.count;
                offset += std::uint64_t(b.count) * ir::element_bytes(b.element);
            }
            views_.push_back(v);
        }
        slots_.assign(std::size_t(lanes_) * c_.slots, 0);
        staging_.assign(c_.staging, 0);
        state_.assign(lanes_, running);
        for (std::uint32_t z = 0; z < size_[2]; ++z)
            for (std::uint32_t y = 0; y < size_[1]; ++y)
                for (std::uint32_t x = 0; x < size_[0]; ++x) local_ids_.push_back({x, y, z});
        all_.resize(lanes_);
        for (std::uint32_t i = 0; i < lanes_; ++i) all_[i] = i;
        scratch_.resize(2 * (std::size_t(c_.depth) + 1));
        for (auto& s : scratch_) s.reserve(lanes_);
    }

    void run(std::array<std::uint32_t, 3> groups) {
        for (std::uint32_t z = 0; z < groups[2]; ++z)
            for (std::uint32_t y = 0; y < groups[1]; ++y)
                for (std::uint32_t x = 0; x < groups[0]; ++x) {
                    group_ = {x, y, z};
                    std::fill(local_.begin(), local_.end(), std::uint8_t{0});
                    std::fill(slots_.begin(), slots_.end(), 0);
                    std::fill(state_.begin(), state_.end(), running);
                    exec(c_.body, all_);
                }
    }

private:
    // Where an invocation is: running, or inactive until its innermost loop ends the iteration
    // (continued), ends the loop (broken), or for good (returned).
    enum lane_state : std::uint8_t { running, continued, broken, returned };
    using lane_list = std::span<const std::uint32_t>;

    const compiled& c_;
    std::array<std::uint32_t, 3> size_;
    std::uint32_t lanes_;
    std::vector<std::uint8_t> local_; // all workgroup buffers of the current workgroup
    std::vector<buffer_view> views_;  // by buffer index of the program
    std::vector<std::uint64_t> slots_;   // lanes_ x c_.slots variables
    std::vector<std::uint64_t> staging_; // call arguments
    std::vector<lane_state> state_;
    std::vector<std::array<std::uint32_t, 3>> local_ids_;
    std::vector<std::uint32_t> all_;
    std::vector<std::vector<std::uint32_t>> scratch_; // two lane lists per nesting depth
    std::array<std::uint32_t, 3> group_{};

    // The invocation being evaluated.
    std::uint32_t lane_ = 0;
    std::uint64_t* vars_ = nullptr;
    const std::uint64_t* frame_ = nullptr; // parameters of the function being evaluated

    void enter(std::uint32_t lane) noexcept {
        lane_ = lane;
        vars_ = slots_.data() + std::size_t(lane) * c_.slots;
    }

    // Leaves are most operands: reading them here saves a call and a dispatch per leaf.
    [[gnu::always_inline]] std::uint64_t arg(std::uint32_t i) {
        const cexpr& x = c_.exprs[i];
        if (x.code == opcode::var) return vars_[x.a];
        if (x.code == opcode::literal) return x.imm;
        return eval(i);
    }

    std::uint64_t eval(std::uint32_t i) {
        const cexpr& x = c_.exprs[i];
        switch (x.code) {
        case opcode::literal: return x.imm;
        case opcode::var: return vars_[x.a];
        case opcode::param: return frame_[x.a];
        case opcode::load32: {
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            return k < b.count ? read32(b.data + 4 * k) : 0;
        }
        case opcode::load64: {
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            return k < b.count ? read64(b.data + 8 * k) : 0;
        }
        case opcode::load_bool: {
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            return k < b.count ? read32(b.data + 4 * k) != 0 : 0;
        }
        case opcode::load_byte: {
            const buffer_view& b = views_[x.a];
            const std::uint64_t k = arg(x.b);
            return k < b.count ? b.data[k] : 0;
        }
        case opcode::buf_len: return views_[x.a].len;
        case opcode::local_id: return local_ids_[lane_][x.sub];
        case opcode::workgroup_id: return group_[x.sub];
        case opcode::invocation_id:
            return std::uint32_t(group_[x.sub] * size_[x.sub] + local_ids_[lane_][x.sub]);
        case opcode::add32: return (arg(x.a) + arg(x.b)) & low32;
        case opcode::add64: return arg(x.a) + arg(x.b);
        case opcode::sub32: return (arg(x.a) - arg(x.b)) & low32;
        case opcode::sub64: return arg(x.a) - arg(x.b);
        case opcode::mul32: return (arg(x.a) * arg(x.b)) & low32;
        case opcode::mul64: return arg(x.a) * arg(x.b);
        case opcode::div_u32:
        case opcode::div_u64: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return b == 0 ? a : a / b;
        }
        case opcode::div_i32: {
            const std::int32_t a = as_i32(arg(x.a)), b = as_i32(arg(x.b));
            if (b == 0 || (a == INT32_MIN && b == -1)) return from_i32(a);
            return from_i32(a / b);
        }
        case opcode::mod_u32:
        case opcode::mod_u64: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return b == 0 ? 0 : a % b;
        }
        case opcode::mod_i32: {
            const std::int32_t a = as_i32(arg(x.a)), b = as_i32(arg(x.b));
            if (b == 0 || b == -1) return 0; // x % -1 is always 0; C leaves INT_MIN % -1 undefined
            return from_i32(a % b);
        }
        case opcode::bit_and: return arg(x.a) & arg(x.b);
        case opcode::bit_or: return arg(x.a) | arg(x.b);
        case opcode::bit_xor: return arg(x.a) ^ arg(x.b);
        case opcode::shl32: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return (a << (b & 31)) & low32;
        }
        case opcode::shl64: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a << (b & 63);
        }
        case opcode::shr_u32: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a >> (b & 31);
        }
        case opcode::shr_i32: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return from_i32(as_i32(a) >> (b & 31)); // arithmetic: C++20 defines >> on negatives
        }
        case opcode::shr_u64: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a >> (b & 63);
        }
        case opcode::eq: return arg(x.a) == arg(x.b);
        case opcode::ne: return arg(x.a) != arg(x.b);
        case opcode::lt_u: return arg(x.a) < arg(x.b);
        case opcode::le_u: return arg(x.a) <= arg(x.b);
        case opcode::gt_u: return arg(x.a) > arg(x.b);
        case opcode::ge_u: return arg(x.a) >= arg(x.b);
        case opcode::lt_i: return as_i32(arg(x.a)) < as_i32(arg(x.b));
        case opcode::le_i: return as_i32(arg(x.a)) <= as_i32(arg(x.b));
        case opcode::gt_i: return as_i32(arg(x.a)) > as_i32(arg(x.b));
        case opcode::ge_i: return as_i32(arg(x.a)) >= as_i32(arg(x.b));
        case opcode::min_u: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return b < a ? b : a;
        }
        case opcode::max_u: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a < b ? b : a;
        }
        case opcode::min_i: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return as_i32(b) < as_i32(a) ? b : a;
        }
        case opcode::max_i: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return as_i32(a) < as_i32(b) ? b : a;
        }
        case opcode::abs_diff_u: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return a > b ? a - b : b - a;
        }
        case opcode::abs_diff_i32: {
            const std::uint64_t a = arg(x.a), b = arg(x.b);
            return (as_i32(a) > as_i32(b) ? a - b : b - a) & low32; // exact modulo 2^32
        }
        case opcode::negate32: return (0 - arg(x.a)) & low32;
        case opcode::negate64: return 0 - arg(x.a);
        case opcode::bit_not32: return ~arg(x.a) & low32;
        case opcode::bit_not64: return ~arg(x.a);
        case opcode::logical_not: return 1 - arg(x.a);
        case opcode::popcount: return static_cast<std::uint64_t>(std::popcount(arg(x.a)));
        case opcode::clz32: return static_cast<std::uint64_t>(std::countl_zero(static_cast<std::uint32_t>(arg(x.a))));
        case opcode::clz64: return static_cast<std::uint64_t>(std::countl_zero(arg(x.a)));
        case opcode::ctz32: return static_cast<std::uint64_t>(std::countr_zero(static_cast<std::uint32_t>(arg(x.a))));
        case opcode::ctz64: return static_cast<std::uint64_t>(std::countr_zero(arg(x.a)));
        case opcode::reverse32: return reverse_bits32(static_cast<std::uint32_t>(arg(x.a)));
        case opcode::reverse64: return reverse_bits64(arg(x.a));
        case opcode::truncate32: return arg(x.a) & low32;
        case opcode::sign_extend: return static_cast<std::uint64_t>(static_cast<std::int64_t>(as_i32(arg(x.a))));
        case opcode::to_bool: return arg(x.a) != 0;
        case opcode::select: {
            const std::uint64_t cond = arg(x.a), t = arg(x.b), f = arg(x.c);
            return cond ? t : f;
        }
        case opcode::atomic: return atomic(x);
        case opcode::call: {
            std::uint64_t* args = staging_.data() + x.imm;
            for (std::uint32_t k = 0; k < x.b; ++k) args[k] = arg(c_.call_args[x.a + k]);
            const std::uint64_t* caller = frame_;
            frame_ = args;
            const std::uint64_t r = arg(c_.function_roots[x.c]);
            frame_ = caller;
            return r;
        }
        }
        return 0;
    }

    std::uint64_t atomic(const cexpr& x) {
        const buffer_view& b = views_[x.imm];
        const std::uint64_t k = arg(x.a);
        const std::uint32_t expected = x.c == none ? 0 : static_cast<std::uint32_t>(arg(x.c));
        const std::uint32_t v = static_cast<std::uint32_t>(arg(x.b));
        if (k >= b.count) return 0;
        std::uint8_t* p = b.data + 4 * k;
        const std::uint32_t old = read32(p);
        const bool s = x.flag != 0;
        std::uint32_t next = old;
        switch (static_cast<ir::atomic_op>(x.sub)) {
        case ir::atomic_op::add: next = old + v; break;
        case ir::atomic_op::bit_or: next = old | v; break;
        case ir::atomic_op::bit_and: next = old & v; break;
        case ir::atomic_op::bit_xor: next = old ^ v; break;
        case ir::atomic_op::min: next = (s ? as_i32(v) < as_i32(old) : v < old) ? v : old; break;
        case ir::atomic_op::max: next = (s ? as_i32(v) > as_i32(old) : v > old) ? v : old; break;
        case ir::atomic_op::exchange: next = v; break;
        case ir::atomic_op::compare_exchange: next = old == expected ? v : old; break;
        }
        write32(p, next);
        return old;
    }

    void exec(const std::vector<cnode>& body, lane_list lanes) {
        for (const cnode& n : body) exec(n, lanes);
    }

    void exec(const cnode& n, lane_list lanes) {
        switch (n.kind) {
        case step::set:
            for (std::uint32_t l : lanes)
                if (state_[l] == running) {
                    enter(l);
                    vars_[n.slot] = eval(n.e0);
                }
            return;
        case step::store32:
        case step::store64:
        case step::store_bool:
        case step::store_byte:
            for (std::uint32_t l : lanes)
                if (state_[l] == running) {
                    enter(l);
                    store(n, eval(n.e0), eval(n.e1));
                }
            return;
        case step::if_: {
            auto& then_lanes = scratch_[2 * n.depth];
            auto& else_lanes = scratch_[2 * n.depth + 1];
            then_lanes.clear();
            else_lanes.clear();
            for (std::uint32_t l : lanes)
                if (state_[l] == running) {
                    enter(l);
                    (eval(n.e0) ? then_lanes : else_lanes).push_back(l);
                }
            if (!then_lanes.empty()) exec(n.body, then_lanes);
            if (!else_lanes.empty()) exec(n.else_body, else_lanes);
            return;
        }
        case step::loop: counted_loop(n, lanes); return;
        case step::while_: while_loop(n, lanes); return;
        case step::break_: leave(lanes, broken); return;
        case step::continue_: leave(lanes, continued); return;
        case step::return_: leave(lanes, returned); return;
        case step::block: exec(n.body, lanes); return;
        case step::nothing: return;
        }
    }

    void store(const cnode& n, std::uint64_t index, std::uint64_t value) {
        const buffer_view& b = views_[n.buffer];
        if (index >= b.count) return;
        switch (n.kind) {
        case step::store64: write64(b.data + 8 * index, value); return;
        case step::store_byte: b.data[index] = static_cast<std::uint8_t>(value); return;
        default: write32(b.data + 4 * index, static_cast<std::uint32_t>(value)); return; // Bool is 0/1
        }
    }

    void leave(lane_list lanes, lane_state why) {
        for (std::uint32_t l : lanes)
            if (state_[l] == running) state_[l] = why;
    }

    // After an iteration: Continue ends only the iteration; Break ends the loop (the invocation
    // runs on after it); Return ends everything. Returns whether the lane stays in the loop.
    bool finish_iteration(std::uint32_t l) {
        switch (state_[l]) {
        case returned: return false;
        case broken: state_[l] = running; return false;
        default: state_[l] = running; return true;
        }
    }

    void counted_loop(const cnode& n, lane_list lanes) {
        auto& in = scratch_[2 * n.depth];
        in.clear();
        const std::uint64_t mask = n.wide ? ~std::uint64_t{0} : low32;
        auto below = [&](std::uint64_t a, std::uint64_t b) { return n.is_signed ? as_i32(a) < as_i32(b) : a < b; };
        for (std::uint32_t l : lanes)
            if (state_[l] == running) {
                enter(l);
                const std::uint64_t from = eval(n.e0), to = eval(n.e1);
                vars_[n.slot] = from;
                vars_[n.end_slot] = to;
                if (below(from, to)) in.push_back(l);
            }
        while (!in.empty()) {
            exec(n.body, in);
            std::size_t kept = 0;
            for (std::uint32_t l : in) {
                if (!finish_iteration(l)) continue;
                std::uint64_t* v = slots_.data() + std::size_t(l) * c_.slots;
                v[n.slot] = (v[n.slot] + 1) & mask; // cannot wrap: the counter was below `to`
                if (below(v[n.slot], v[n.end_slot])) in[kept++] = l;
            }
            in.resize(kept);
        }
    }

    void while_loop(const cnode& n, lane_list lanes) {
        auto& in = scratch_[2 * n.depth];
        in.clear();
        for (std::uint32_t l : lanes)
            if (state_[l] == running) in.push_back(l);
        while (!in.empty()) {
            std::size_t kept = 0;
            for (std::uint32_t l : in) {
                enter(l);
                if (eval(n.e0)) in[kept++] = l;
            }
            in.resize(kept);
            if (in.empty()) return;
            exec(n.body, in);
            kept = 0;
            for (std::uint32_t l : in)
                if (finish_iteration(l)) in[kept++] = l;
            in.resize(kept);
        }
    }
};

// Buffers must exist and hold whole elements before anything runs, so that no access can fall
// between the bounds check and the end of the data.
inline void check_buffers(const ir::program& p, const std::vector<buffer_data>& buffers) {
    for (const auto& b : p.buffers) {
        if (!b.is_storage()) continue;
        const std::string what = "buffer \"" + b.name + "\" (binding " + std::to_string(b.binding) + ")";
        if (b.binding >= buffers.size())
            throw resource_error("reference::run: " + what + " has no data: only " + std::to_string(buffers.size()) +
                                 " buffers were given");
        const std::uint32_t unit = b.element == ir::data_type::bytes ? 4 : ir::min_bytes(b.element);
        if (buffers[b.binding].size() % unit != 0)
            throw resource_error("reference::run: " + what + " has " + std::to_string(buffers[b.binding].size()) +
                                 " bytes, not a multiple of its " + std::to_string(unit) + "-byte " +
                                 (b.element == ir::data_type::bytes ? "backing word" : "element"));
    }
}

} // namespace detail

// Runs `p` over workgroups[0] * workgroups[1] * workgroups[2] workgroups of p.workgroup_size
// invocations. buffers[b] is the storage buffer with binding b and is updated in place.
// Throws validation_error for an invalid program, resource_error for a missing binding or a
// buffer that does not hold whole elements (whole u32 words for Bytes).
inline void run(const ir::program& p, std::array<std::uint32_t, 3> workgroups, std::vector<buffer_data>& buffers) {
    ir::validate(p);
    detail::check_buffers(p, buffers);
    const detail::compiled c = detail::compiler(p).build();
    detail::machine(p, c, buffers).run(workgroups);
}

} // namespace vyre::reference
