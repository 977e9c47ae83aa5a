// Lowering: ir::program -> OpenCL C 1.2 source. A pure function of the program (same program,
// same bytes) that gives the generated code the IR's defined semantics: wrapping arithmetic,
// masked shifts, x/0 == x and x%0 == 0, zero for out-of-bounds loads, no-op out-of-bounds stores.
#pragma once

#include <vyre/ir/validate.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace vyre::lower {

// Kernel arguments, in order: for each storage buffer sorted by binding, the buffer and then its
// element count as `uint` (u32 words for Bytes buffers).
struct kernel_source {
    std::string source;
    std::string entry;
    std::vector<ir::buffer_decl> arguments; // storage buffers in argument order
};

namespace detail {

using ir::data_type;

inline std::string c_type(data_type t) {
    switch (t) {
    case data_type::u32:
    case data_type::boolean: return "uint";
    case data_type::i32: return "int";
    case data_type::u64: return "ulong";
    case data_type::vec2u32: return "uint2";
    case data_type::vec4u32: return "uint4";
    case data_type::bytes: return "uchar";
    }
    return "uint";
}

// The width mask of shift amounts and the zero of each type, as OpenCL C literals.
inline std::string zero(data_type t) { return t == data_type::u64 ? "0ul" : t == data_type::i32 ? "0" : "0u"; }

class writer {
public:
    explicit writer(const ir::program& p) : p_(p) {}

    kernel_source run() {
        // Functions and kernel are written first: they decide which helpers the prelude needs.
        std::ostringstream functions;
        for (const auto& f : p_.functions) {
            functions << "static inline " << c_type(f.result) << " " << function_name(f.name) << "(";
            for (std::size_t i = 0; i < f.params.size(); ++i)
                functions << (i ? ", " : "") << c_type(f.params[i].type) << " " << f.params[i].name;
            functions << ") {\n    return " << expr(f.body) << ";\n}\n\n";
        }
        std::ostringstream body;
        emit_kernel(body);
        std::ostringstream out;
        out << "// vyre program \"" << p_.name << "\", lowered to OpenCL C 1.2\n";
        for (const auto& [name, text] : helpers_) out << text;
        if (!helpers_.empty()) out << "\n";
        out << functions.str() << body.str();
        kernel_source ks;
        ks.source = out.str();
        ks.entry = p_.name;
        ks.arguments = storage_in_binding_order();
        return ks;
    }

private:
    const ir::program& p_;
    std::map<std::string, std::string> helpers_; // name -> definition, emitted in name order

    std::vector<ir::buffer_decl> storage_in_binding_order() const {
        std::vector<ir::buffer_decl> out;
        for (const auto& b : p_.buffers)
            if (b.is_storage()) out.push_back(b);
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.binding < b.binding; });
        return out;
    }

    void need(const std::string& name, const std::string& text) { helpers_.emplace(name, text); }

    // Address space and element type of a buffer, as used in helper names and parameters.
    static std::string space(const ir::buffer_decl& b) {
        return b.access == ir::buffer_access::workgroup ? "local" : b.access == ir::buffer_access::uniform ? "constant" : "global";
    }
    std::string length_of(const ir::buffer_decl& b) const {
        if (b.is_storage()) return b.name + "_len";
        // The helpers bound a Bytes buffer by whole words (index >> 2), as for storage buffers.
        return std::to_string(b.element == data_type::bytes ? b.count / 4 : b.count) + "u";
    }

    std::string load_helper(const ir::buffer_decl& b) {
        const std::string sp = space(b), t = c_type(b.element);
        const std::string name = "vyre_load_" + sp + "_" + t;
        if (b.element == data_type::bytes)
            need(name, "static inline uint " + name + "(const __" + sp + " uchar* b, uint words, uint i) {\n"
                       "    return (i >> 2) < words ? (uint)b[i] : 0u;\n}\n");
        else
            need(name, "static inline " + t + " " + name + "(const __" + sp + " " + t + "* b, uint n, uint i) {\n"
                       "    return i < n ? b[i] : " + zero(b.element) + ";\n}\n");
        return name;
    }
    std::string store_helper(const ir::buffer_decl& b) {
        const std::string sp = space(b), t = c_type(b.element);
        const std::string name = "vyre_store_" + sp + "_" + t;
        if (b.element == data_type::bytes)
            need(name, "static inline void " + name + "(__" + sp + " uchar* b, uint words, uint i, uint v) {\n"
                       "    if ((i >> 2) < words) b[i] = (uchar)v;\n}\n");
        else
            need(name, "static inline void " + name + "(__" + sp + " " + t + "* b, uint n, uint i, " + t + " v) {\n"
                       "    if (i < n) b[i] = v;\n}\n");
        return name;
    }
    std::string atomic_helper(const ir::buffer_decl& b, ir::atomic_op op) {
        static const char* names[] = {"add", "or", "and", "xor", "min", "max", "xchg", "cmpxchg"};
        const std::string t = c_type(b.element), fn = std::string("atomic_") + names[static_cast<int>(op)];
        const std::string name = "vyre_" + fn + "_" + t;
        if (op == ir::atomic_op::compare_exchange)
            need(name, "static inline " + t + " " + name + "(volatile __global " + t + "* b, uint n, uint i, " + t + " expected, " + t +
                       " v) {\n    return i < n ? " + fn + "(&b[i], expected, v) : " + zero(b.element) + ";\n}\n");
        else
            need(name, "static inline " + t + " " + name + "(volatile __global " + t + "* b, uint n, uint i, " + t + " v) {\n"
                       "    return i < n ? " + fn + "(&b[i], v) : " + zero(b.element) + ";\n}\n");
        return name;
    }

    std::string div_helper(bool mod, data_type t) {
        const std::string ct = c_type(t), name = std::string("vyre_") + (mod ? "mod_" : "div_") + ct;
        std::string cond, result;
        if (t == data_type::i32) {
            if (mod) need(name, "static inline int " + name + "(int a, int b) {\n    return (b == 0 || (a == INT_MIN && b == -1)) ? 0 : a % b;\n}\n");
            else need(name, "static inline int " + name + "(int a, int b) {\n    return (b == 0 || (a == INT_MIN && b == -1)) ? a : a / b;\n}\n");
        } else {
            const std::string z = zero(t);
            if (mod) need(name, "static inline " + ct + " " + name + "(" + ct + " a, " + ct + " b) {\n    return b == " + z + " ? " + z + " : a % b;\n}\n");
            else need(name, "static inline " + ct + " " + name + "(" + ct + " a, " + ct + " b) {\n    return b == " + z + " ? a : a / b;\n}\n");
        }
        return name;
    }

    std::string bit_helper(ir::un_op op, data_type t) {
        // Both work on the unsigned pattern; I32 reinterprets around them.
        const bool wide = t == data_type::u64;
        const std::string ut = wide ? "ulong" : "uint";
        if (op == ir::un_op::ctz) {
            const std::string name = std::string("vyre_ctz_") + ut;
            if (wide) need(name, "static inline ulong vyre_ctz_ulong(ulong x) {\n    return x == 0ul ? 64ul : 63ul - clz(x & (0ul - x));\n}\n");
            else need(name, "static inline uint vyre_ctz_uint(uint x) {\n    return x == 0u ? 32u : 31u - clz(x & (0u - x));\n}\n");
            return name;
        }
        const std::string name = std::string("vyre_reverse_bits_") + ut;
        if (wide)
            need(name, "static inline ulong vyre_reverse_bits_ulong(ulong x) {\n"
                       "    x = ((x >> 1) & 0x5555555555555555ul) | ((x & 0x5555555555555555ul) << 1);\n"
                       "    x = ((x >> 2) & 0x3333333333333333ul) | ((x & 0x3333333333333333ul) << 2);\n"
                       "    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0ful) | ((x & 0x0f0f0f0f0f0f0f0ful) << 4);\n"
                       "    x = ((x >> 8) & 0x00ff00ff00ff00fful) | ((x & 0x00ff00ff00ff00fful) << 8);\n"
                       "    x = ((x >> 16) & 0x0000ffff0000fffful) | ((x & 0x0000ffff0000fffful) << 16);\n"
                       "    return (x >> 32) | (x << 32);\n}\n");
        else
            need(name, "static inline uint vyre_reverse_bits_uint(uint x) {\n"
                       "    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);\n"
                       "    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);\n"
                       "    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);\n"
                       "    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);\n"
                       "    return (x >> 16) | (x << 16);\n}\n");
        return name;
    }

    static std::string literal(const ir::expr& e) {
        switch (e.type) {
        case data_type::i32: {
            const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(e.value));
            if (v == INT32_MIN) return "(-2147483647 - 1)";
            return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
        }
        case data_type::u64: return std::to_string(e.value) + "ul";
        case data_type::boolean: return e.value != 0 ? "1u" : "0u";
        default: return std::to_string(static_cast<std::uint32_t>(e.value)) + "u";
        }
    }

    // IR functions live in a prefix users cannot take, so no name meets an OpenCL builtin.
    static std::string function_name(const std::string& n) { return "vyre_fn_" + n; }

    static std::string axis(std::uint8_t a) { return std::to_string(a); }

    std::string expr(const ir::expr& e) {
        switch (e.kind) {
        case ir::expr_kind::literal: return literal(e);
        case ir::expr_kind::var: return e.name;
        case ir::expr_kind::load: {
            const auto& b = *p_.find_buffer(e.name);
            std::string call = load_helper(b) + "(" + b.name + ", " + length_of(b) + ", " + expr(e.args[0]) + ")";
            return b.element == data_type::boolean ? "((uint)(" + call + " != 0u))" : call;
        }
        case ir::expr_kind::buf_len: return length_of(*p_.find_buffer(e.name));
        case ir::expr_kind::invocation_id: return "(uint)get_global_id(" + axis(e.op) + ")";
        case ir::expr_kind::local_id: return "(uint)get_local_id(" + axis(e.op) + ")";
        case ir::expr_kind::workgroup_id: return "(uint)get_group_id(" + axis(e.op) + ")";
        case ir::expr_kind::binary: return binary(e);
        case ir::expr_kind::unary: return unary(e);
        case ir::expr_kind::cast: return cast(e.type, e.args[0].type, expr(e.args[0]));
        case ir::expr_kind::select: return "(" + expr(e.args[0]) + " ? " + expr(e.args[1]) + " : " + expr(e.args[2]) + ")";
        case ir::expr_kind::atomic: {
            const auto& b = *p_.find_buffer(e.name);
            std::string out = atomic_helper(b, e.atomic_kind()) + "(" + b.name + ", " + length_of(b);
            for (const auto& a : e.args) out += ", " + expr(a);
            return out + ")";
        }
        case ir::expr_kind::call: {
            std::string out = function_name(e.name) + "(";
            for (std::size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + expr(e.args[i]);
            return out + ")";
        }
        }
        return "0u";
    }

    std::string binary(const ir::expr& e) {
        using ir::bin_op;
        const data_type t = e.args[0].type;
        const std::string a = expr(e.args[0]), b = expr(e.args[1]);
        const bool i32 = t == data_type::i32;
        auto infix = [&](const char* op) { return "(" + a + " " + op + " " + b + ")"; };
        // Signed overflow is undefined in C: I32 arithmetic runs on the unsigned bit pattern.
        auto wrapping = [&](const char* op) {
            return i32 ? "as_int(as_uint(" + a + ") " + op + " as_uint(" + b + "))" : infix(op);
        };
        const std::string width_mask = t == data_type::u64 ? "63ul" : i32 ? "31" : "31u";
        switch (e.binary_op()) {
        case bin_op::add: return wrapping("+");
        case bin_op::sub: return wrapping("-");
        case bin_op::mul: return wrapping("*");
        case bin_op::div: return div_helper(false, t) + "(" + a + ", " + b + ")";
        case bin_op::mod: return div_helper(true, t) + "(" + a + ", " + b + ")";
        case bin_op::bit_and: return infix("&");
        case bin_op::bit_or: return infix("|");
        case bin_op::bit_xor: return infix("^");
        case bin_op::shl:
            return i32 ? "as_int(as_uint(" + a + ") << (" + b + " & 31))" : "(" + a + " << (" + b + " & " + width_mask + "))";
        case bin_op::shr: return "(" + a + " >> (" + b + " & " + width_mask + "))";
        case bin_op::eq: return "((uint)" + infix("==") + ")";
        case bin_op::ne: return "((uint)" + infix("!=") + ")";
        case bin_op::lt: return "((uint)" + infix("<") + ")";
        case bin_op::le: return "((uint)" + infix("<=") + ")";
        case bin_op::gt: return "((uint)" + infix(">") + ")";
        case bin_op::ge: return "((uint)" + infix(">=") + ")";
        case bin_op::logical_and: return "((uint)" + infix("&&") + ")";
        case bin_op::logical_or: return "((uint)" + infix("||") + ")";
        case bin_op::min: return "min(" + a + ", " + b + ")";
        case bin_op::max: return "max(" + a + ", " + b + ")";
        case bin_op::abs_diff: return i32 ? "as_int(abs_diff(" + a + ", " + b + "))" : "abs_diff(" + a + ", " + b + ")";
        }
        return "0u";
    }

    std::string unary(const ir::expr& e) {
        using ir::un_op;
        const data_type t = e.args[0].type;
        const std::string a = expr(e.args[0]);
        const bool i32 = t == data_type::i32;
        switch (e.unary_op()) {
        case un_op::negate: return i32 ? "as_int(0u - as_uint(" + a + "))" : "(" + zero(t) + " - " + a + ")";
        case un_op::bit_not: return "(~" + a + ")";
        case un_op::logical_not: return "(" + a + " ^ 1u)";
        case un_op::popcount: return "popcount(" + a + ")";
        case un_op::clz: return "clz(" + a + ")";
        case un_op::ctz:
        case un_op::reverse_bits: {
            const std::string fn = bit_helper(e.unary_op(), t);
            return i32 ? "as_int(" + fn + "(as_uint(" + a + ")))" : fn + "(" + a + ")";
        }
        }
        return "0u";
    }

    static std::string cast(data_type to, data_type from, const std::string& a) {
        if (to == from) return a;
        if (to == data_type::boolean) return "((uint)(" + a + " != " + zero(from) + "))";
        switch (to) {
        case data_type::u32: return from == data_type::i32 ? "as_uint(" + a + ")" : "(uint)(" + a + ")";
        case data_type::i32:
            return from == data_type::u32 ? "as_int(" + a + ")" : from == data_type::u64 ? "as_int((uint)(" + a + "))" : "(int)(" + a + ")";
        case data_type::u64: return "(ulong)(" + a + ")"; // from I32 this sign-extends, as C converts values
        default: return a;
        }
    }

    // ---- statements ---------------------------------------------------------------------------

    void line(std::ostream& os, int depth, const std::string& text) { os << std::string(4 * depth, ' ') << text << "\n"; }

    void body(std::ostream& os, const std::vector<ir::node>& nodes, int depth, int loop_depth) {
        for (const auto& n : nodes) statement(os, n, depth, loop_depth);
    }

    void statement(std::ostream& os, const ir::node& n, int depth, int loop_depth) {
        using ir::node_kind;
        switch (n.kind) {
        case node_kind::let: line(os, depth, c_type(n.type) + " " + n.name + " = " + expr(n.exprs[0]) + ";"); return;
        case node_kind::assign: line(os, depth, n.name + " = " + expr(n.exprs[0]) + ";"); return;
        case node_kind::store: {
            const auto& b = *p_.find_buffer(n.name);
            std::string value = expr(n.exprs[1]);
            if (b.element == data_type::boolean) value = "((uint)(" + value + " != 0u))";
            line(os, depth, store_helper(b) + "(" + b.name + ", " + length_of(b) + ", " + expr(n.exprs[0]) + ", " + value + ");");
            return;
        }
        case node_kind::if_:
            line(os, depth, "if (" + expr(n.exprs[0]) + ") {");
            body(os, n.body, depth + 1, loop_depth);
            if (!n.else_body.empty()) {
                line(os, depth, "} else {");
                body(os, n.else_body, depth + 1, loop_depth);
            }
            line(os, depth, "}");
            return;
        case node_kind::loop: {
            // The end is read once, into a variable named by nesting depth (unique where visible).
            const std::string end = "vyre_end" + std::to_string(loop_depth);
            line(os, depth, "for (" + c_type(n.type) + " " + n.name + " = " + expr(n.exprs[0]) + ", " + end + " = " +
                                expr(n.exprs[1]) + "; " + n.name + " < " + end + "; ++" + n.name + ") {");
            body(os, n.body, depth + 1, loop_depth + 1);
            line(os, depth, "}");
            return;
        }
        case node_kind::while_:
            line(os, depth, "while (" + expr(n.exprs[0]) + ") {");
            body(os, n.body, depth + 1, loop_depth + 1);
            line(os, depth, "}");
            return;
        case node_kind::break_: line(os, depth, "break;"); return;
        case node_kind::continue_: line(os, depth, "continue;"); return;
        case node_kind::return_: line(os, depth, "return;"); return;
        case node_kind::barrier: line(os, depth, "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"); return;
        case node_kind::block:
            line(os, depth, "{");
            body(os, n.body, depth + 1, loop_depth);
            line(os, depth, "}");
            return;
        }
    }

    void emit_kernel(std::ostream& os) {
        const auto& wg = p_.workgroup_size;
        os << "__kernel __attribute__((reqd_work_group_size(" << wg[0] << ", " << wg[1] << ", " << wg[2] << ")))\n";
        os << "void " << p_.name << "(";
        const auto args = storage_in_binding_order();
        for (std::size_t i = 0; i < args.size(); ++i) {
            const auto& b = args[i];
            const bool read_only = b.access == ir::buffer_access::read_only;
            const std::string qualifier = b.access == ir::buffer_access::uniform ? "__constant " : read_only ? "__global const " : "__global ";
            os << (i ? ",\n    " : "\n    ") << qualifier << c_type(b.element) << "* " << b.name << ", const uint " << b.name << "_len";
        }
        os << ")\n{\n";
        bool has_local = false;
        for (const auto& b : p_.buffers)
            if (!b.is_storage()) {
                line(os, 1, "__local " + c_type(b.element) + " " + b.name + "[" + std::to_string(b.count) + "];");
                has_local = true;
            }
        if (has_local) {
            // Workgroup memory starts zeroed, as the reference interpreter defines it.
            line(os, 1, "{");
            line(os, 2, "const uint vyre_lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));");
            line(os, 2, "const uint vyre_lsize = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));");
            for (const auto& b : p_.buffers)
                if (!b.is_storage())
                    line(os, 2, "for (uint vyre_i = vyre_lid; vyre_i < " + std::to_string(b.count) + "u; vyre_i += vyre_lsize) " + b.name +
                                    "[vyre_i] = " + zero(b.element) + ";");
            line(os, 2, "barrier(CLK_LOCAL_MEM_FENCE);");
            line(os, 1, "}");
        }
        body(os, p_.body, 1, 0);
        os << "}\n";
    }
};

} // namespace detail

// Validates `p` (without device limits) and returns its OpenCL C source.
inline kernel_source to_opencl(const ir::program& p) {
    ir::validate(p);
    return detail::writer(p).run();
}

} // namespace vyre::lower
