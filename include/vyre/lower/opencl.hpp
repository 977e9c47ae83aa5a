// Lowering: ir::program -> OpenCL C 1.2 source. A pure function of the program (same program,
// same bytes) that gives the generated code the IR's defined semantics: wrapping arithmetic,
// masked shifts, x/0 == x and x%0 == 0, zero for out-of-bounds loads, no-op out-of-bounds stores
// (checked accesses; an unchecked one, ir::bounds, is emitted bare: the program proved its index).
#pragma once

#include <vyre/ir/validate.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace vyre::lower {

// How subgroup operations (ir::expr_kind::subgroup and friends) become OpenCL C; the runtime picks
// one per device (runtime/subgroups.hpp). Programs without subgroups lower the same under each.
enum class subgroup_lowering : std::uint8_t {
    emulated,   // workgroup memory and workgroup barriers: needs the subgroup to be the whole workgroup
    khr,        // cl_khr_subgroups built-ins (sub_group_shuffle where cl_khr_subgroup_shuffle is listed)
    nvidia_ptx, // inline PTX on NVIDIA GPUs: shfl.sync, vote.sync, bar.warp.sync over the subgroup's lanes
};

inline const char* subgroup_lowering_name(subgroup_lowering l) noexcept {
    switch (l) {
    case subgroup_lowering::emulated: return "emulated";
    case subgroup_lowering::khr: return "cl_khr_subgroups";
    case subgroup_lowering::nvidia_ptx: return "nvidia_ptx";
    }
    return "?";
}

// Kernel arguments, in order: for each storage buffer sorted by binding, the buffer and then its
// element count as `uint` (u32 words for Bytes buffers).
struct kernel_source {
    std::string source;
    std::string entry;
    std::vector<ir::buffer_decl> arguments; // storage buffers in argument order
    subgroup_lowering subgroups = subgroup_lowering::emulated; // how subgroup operations were lowered
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
    writer(const ir::program& p, subgroup_lowering subgroups) : p_(p), sg_(subgroups) {}

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
        out << "// vyre program \"" << p_.name << "\", lowered to OpenCL C 1.2";
        if (p_.subgroup_size != 0) out << ", subgroups of " << p_.subgroup_size << " " << subgroup_lowering_name(sg_);
        out << "\n";
        if (p_.subgroup_size != 0 && sg_ == subgroup_lowering::khr) {
            out << "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n";
            out << "#ifdef cl_khr_subgroup_shuffle\n#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable\n#endif\n";
        }
        for (const auto& [name, text] : helpers_) out << text;
        if (!helpers_.empty()) out << "\n";
        out << functions.str() << body.str();
        kernel_source ks;
        ks.source = out.str();
        ks.entry = p_.name;
        ks.arguments = storage_in_binding_order();
        ks.subgroups = sg_;
        return ks;
    }

private:
    const ir::program& p_;
    subgroup_lowering sg_;
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
    // Bytes i..i+3 as a little-endian U32. Unchecked: four byte loads from one pointer, so the
    // compiler forms one address and adds constant offsets (four indices, each a U32 that might
    // wrap, would each need an address of their own). Checked: the same where all four bytes lie
    // in the buffer, else byte by byte, zero outside it and past index 2^32 - 1.
    std::string load_u32_le_helper(const ir::buffer_decl& b, ir::bounds bounds) {
        const std::string sp = space(b);
        const std::string name = "vyre_load_u32_le_" + sp;
        need(name, "static inline uint " + name + "(const __" + sp + " uchar* b, uint i) {\n"
                   "    const __" + sp + " uchar* p = b + i;\n"
                   "    return (uint)p[0] | ((uint)p[1] << 8) | ((uint)p[2] << 16) | ((uint)p[3] << 24);\n}\n");
        if (bounds == ir::bounds::unchecked) return name;
        const std::string checked = name + "_checked";
        need(checked, "static inline uint " + checked + "(const __" + sp + " uchar* b, uint words, uint i) {\n"
                      "    if (i <= 0xFFFFFFFCu && ((i + 3u) >> 2) < words) return " + name + "(b, i);\n"
                      "    uint v = 0u;\n"
                      "    for (uint k = 0u; k < 4u; ++k)\n"
                      "        if (i + k >= i && ((i + k) >> 2) < words) v |= (uint)b[i + k] << (8u * k);\n"
                      "    return v;\n}\n");
        return checked;
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
            // Unchecked (ir::bounds): the bare access; the program has proven the index in bounds.
            std::string call = e.bounds() == ir::bounds::unchecked
                                   ? (b.element == data_type::bytes ? "((uint)" : "(") + b.name + "[" + expr(e.args[0]) + "])"
                                   : load_helper(b) + "(" + b.name + ", " + length_of(b) + ", " + expr(e.args[0]) + ")";
            return b.element == data_type::boolean ? "((uint)(" + call + " != 0u))" : call;
        }
        case ir::expr_kind::load_u32_le: {
            const auto& b = *p_.find_buffer(e.name);
            const std::string helper = load_u32_le_helper(b, e.bounds());
            return e.bounds() == ir::bounds::unchecked ? helper + "(" + b.name + ", " + expr(e.args[0]) + ")"
                                                       : helper + "(" + b.name + ", " + length_of(b) + ", " + expr(e.args[0]) + ")";
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
        case ir::expr_kind::subgroup_local_id: need_subgroup_primitives(); return "vyre_sg_lane()";
        case ir::expr_kind::subgroup_id:
            return sg_ == subgroup_lowering::khr ? "(uint)get_sub_group_id()" : "((uint)get_local_id(0) / " + sg_size() + ")";
        case ir::expr_kind::subgroup_size: return sg_size();
        case ir::expr_kind::subgroup: return subgroup(e);
        }
        return "0u";
    }

    // ---- subgroups ---------------------------------------------------------------------------
    //
    // Every lowering provides three primitives for the subgroup of the calling invocation: its
    // lane (0..S-1), fetch(v, src) (the value v of lane src, 0 <= src < S) and ballot(p) (bit i
    // for each lane i whose p is nonzero). The operations are written once over them, with the
    // interpreter's rules for lanes out of range. The lowerings differ only in the primitives,
    // and where a device has a direct built-in for a whole operation (scans, any, all).

    std::string sg_size() const { return std::to_string(p_.subgroup_size) + "u"; }
    // Where emulation keeps the subgroup's values: the workgroup's scratch array.
    std::string scratch_arg() const { return sg_ == subgroup_lowering::emulated ? "vyre_sg_scratch, " : ""; }
    std::string scratch_param() const { return sg_ == subgroup_lowering::emulated ? "__local uint* s, " : ""; }

    void need_subgroup_primitives() {
        const std::string S = sg_size();
        const std::uint32_t size = p_.subgroup_size;
        const std::string full = size == 32 ? "0xffffffffu" : std::to_string((1ull << size) - 1) + "u";
        switch (sg_) {
        case subgroup_lowering::nvidia_ptx:
            // A subgroup is S consecutive lanes of a warp; every instruction names exactly those
            // lanes in its member mask, so subgroups of one warp never wait for each other.
            need("vyre_sg_0", "static inline uint vyre_sg_lane(void) { return (uint)get_local_id(0) & (" + S + " - 1u); }\n"
                              "static inline uint vyre_sg_base(void) { return ((uint)get_local_id(0) & 31u) & ~(" + S + " - 1u); }\n"
                              "static inline uint vyre_sg_mask(void) { return " + full + " << vyre_sg_base(); }\n"
                              "static inline uint vyre_sg_fetch(uint v, uint src) {\n"
                              "    uint r, lane = vyre_sg_base() | src, mask = vyre_sg_mask();\n"
                              "    asm volatile(\"shfl.sync.idx.b32 %0, %1, %2, 0x1f, %3;\" : \"=r\"(r) : \"r\"(v), \"r\"(lane), \"r\"(mask));\n"
                              "    return r;\n}\n"
                              "static inline uint vyre_sg_ballot(uint p) {\n"
                              "    uint r, mask = vyre_sg_mask();\n"
                              "    asm volatile(\"{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, %2; }\" : \"=r\"(r) : \"r\"(p), \"r\"(mask));\n"
                              "    return (r >> vyre_sg_base()) & " + full + ";\n}\n"
                              "static inline void vyre_sg_barrier(void) {\n"
                              "    uint mask = vyre_sg_mask();\n"
                              "    asm volatile(\"bar.warp.sync %0;\" : : \"r\"(mask) : \"memory\");\n}\n");
            return;
        case subgroup_lowering::khr:
            need("vyre_sg_0", "static inline uint vyre_sg_lane(void) { return (uint)get_sub_group_local_id(); }\n"
                              "#ifdef cl_khr_subgroup_shuffle\n"
                              "static inline uint vyre_sg_fetch(uint v, uint src) { return sub_group_shuffle(v, src); }\n"
                              "#else\n"
                              "static inline uint vyre_sg_fetch(uint v, uint src) {\n"
                              "    uint r = v;\n"
                              "    for (uint j = 0u; j < " + S + "; ++j) {\n"
                              "        const uint t = sub_group_broadcast(v, j);\n"
                              "        if (j == src) r = t;\n"
                              "    }\n"
                              "    return r;\n}\n"
                              "#endif\n"
                              "static inline uint vyre_sg_ballot(uint p) { return sub_group_reduce_add(p != 0u ? 1u << vyre_sg_lane() : 0u); }\n"
                              "static inline void vyre_sg_barrier(void) { sub_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); }\n");
            return;
        case subgroup_lowering::emulated:
            // The subgroup is the workgroup: a value goes through the scratch array between two
            // workgroup barriers (the second keeps the next operation from overwriting it early).
            need("vyre_sg_0", "static inline uint vyre_sg_lane(void) { return (uint)get_local_id(0); }\n"
                              "static inline uint vyre_sg_fetch(__local uint* s, uint v, uint src) {\n"
                              "    s[vyre_sg_lane()] = v;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    const uint r = s[src];\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    return r;\n}\n"
                              "static inline uint vyre_sg_ballot(__local uint* s, uint p) {\n"
                              "    s[vyre_sg_lane()] = p != 0u ? 1u : 0u;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    uint r = 0u;\n"
                              "    for (uint j = 0u; j < " + S + "; ++j) r |= s[j] << j;\n"
                              "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                              "    return r;\n}\n"
                              "static inline void vyre_sg_barrier(void) { barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); }\n");
            return;
        }
    }

    std::string subgroup(const ir::expr& e) {
        using ir::subgroup_op;
        need_subgroup_primitives();
        const std::string S = sg_size(), sp = scratch_param(), sa = scratch_arg();
        const std::string fetch = "vyre_sg_fetch(" + sa;
        // Inside a helper the scratch array is its parameter `s`, not the kernel's local array.
        const std::string in_helper = sg_ == subgroup_lowering::emulated ? "s, " : "";
        const std::string helper_fetch = "vyre_sg_fetch(" + in_helper;
        const std::string a = expr(e.args[0]), b = e.args.size() > 1 ? expr(e.args[1]) : "";
        const bool khr = sg_ == subgroup_lowering::khr;
        // Keys order the definitions: the primitives (vyre_sg_0) first, the exclusive scan after the
        // inclusive one it calls.
        auto helper = [&](const std::string& name, const std::string& params, const std::string& body) {
            need(std::string(name == "vyre_sg_exclusive_add" ? "vyre_sg_2" : "vyre_sg_1") + name, "static inline uint " + name + "(" + sp + params + ") {\n" + body + "}\n");
        };
        switch (e.subgroup_kind()) {
        case subgroup_op::broadcast:
            if (khr) return "sub_group_broadcast(" + a + ", (" + b + ") & (" + S + " - 1u))";
            return fetch + a + ", (" + b + ") & (" + S + " - 1u))";
        case subgroup_op::shuffle: return fetch + a + ", (" + b + ") & (" + S + " - 1u))";
        case subgroup_op::shuffle_up:
            helper("vyre_sg_shuffle_up", "uint v, uint d", "    const uint i = vyre_sg_lane();\n    return " + helper_fetch + "v, d <= i ? i - d : i);\n");
            return "vyre_sg_shuffle_up(" + sa + a + ", " + b + ")";
        case subgroup_op::shuffle_down:
            helper("vyre_sg_shuffle_down", "uint v, uint d",
                   "    const uint i = vyre_sg_lane();\n    return " + helper_fetch + "v, d < " + S + " - i ? i + d : i);\n");
            return "vyre_sg_shuffle_down(" + sa + a + ", " + b + ")";
        case subgroup_op::shuffle_xor:
            helper("vyre_sg_shuffle_xor", "uint v, uint m",
                   "    const uint i = vyre_sg_lane();\n    return " + helper_fetch + "v, (i ^ m) < " + S + " ? i ^ m : i);\n");
            return "vyre_sg_shuffle_xor(" + sa + a + ", " + b + ")";
        case subgroup_op::ballot: return "vyre_sg_ballot(" + sa + a + ")";
        case subgroup_op::any:
            if (khr) return "((uint)(sub_group_any((int)(" + a + ")) != 0))";
            return "((uint)(vyre_sg_ballot(" + sa + a + ") != 0u))";
        case subgroup_op::all: {
            if (khr) return "((uint)(sub_group_all((int)(" + a + ")) != 0))";
            const std::string full = p_.subgroup_size == 32 ? "0xffffffffu" : std::to_string((1ull << p_.subgroup_size) - 1) + "u";
            return "((uint)(vyre_sg_ballot(" + sa + a + ") == " + full + "))";
        }
        case subgroup_op::inclusive_add:
        case subgroup_op::exclusive_add: {
            const bool inclusive = e.subgroup_kind() == subgroup_op::inclusive_add;
            if (khr) return inclusive ? "sub_group_scan_inclusive_add(" + a + ")" : "sub_group_scan_exclusive_add(" + a + ")";
            // Hillis-Steele: log2(S) rounds of fetching the partial sum d lanes down.
            helper("vyre_sg_inclusive_add", "uint v",
                   "    const uint i = vyre_sg_lane();\n"
                   "    for (uint d = 1u; d < " + S + "; d <<= 1) {\n"
                   "        const uint t = " + helper_fetch + "v, d <= i ? i - d : i);\n"
                   "        if (d <= i) v += t;\n"
                   "    }\n    return v;\n");
            if (inclusive) return "vyre_sg_inclusive_add(" + sa + a + ")";
            helper("vyre_sg_exclusive_add", "uint v", "    return vyre_sg_inclusive_add(" + in_helper + "v) - v;\n");
            return "vyre_sg_exclusive_add(" + sa + a + ")";
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
            if (n.access == ir::bounds::unchecked)
                line(os, depth, b.name + "[" + expr(n.exprs[0]) + "] = " + (b.element == data_type::bytes ? "(uchar)" : "") + "(" + value + ");");
            else
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
        case node_kind::subgroup_barrier:
            need_subgroup_primitives();
            line(os, depth, "vyre_sg_barrier();");
            return;
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
        if (p_.subgroup_size != 0 && sg_ == subgroup_lowering::emulated)
            line(os, 1, "__local uint vyre_sg_scratch[" + std::to_string(p_.subgroup_size) + "];");
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

// Validates `p` (without device limits) and returns its OpenCL C source. A program with subgroups
// lowers as `subgroups` says; emulation needs its subgroup to be the whole workgroup.
inline kernel_source to_opencl(const ir::program& p, subgroup_lowering subgroups = subgroup_lowering::khr) {
    ir::validate(p);
    if (p.subgroup_size != 0 && subgroups == subgroup_lowering::emulated && p.invocations_per_workgroup() != p.subgroup_size)
        throw resource_error("program \"" + p.name + "\": emulated subgroups are the whole workgroup, but its workgroup of " +
                             std::to_string(p.invocations_per_workgroup()) + " invocations holds subgroups of " +
                             std::to_string(p.subgroup_size) + " (build it with one subgroup per workgroup for this device)");
    return detail::writer(p, subgroups).run();
}

} // namespace vyre::lower
