// ir::program: a whole GPU program (buffers, workgroup shape, helper functions, body) as a value,
// with its text form for debugging and a stable hash for caches.
#pragma once

#include <vyre/ir/node.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace vyre::ir {

// A pure function a program can call from expressions: `result name(params...) { return body; }`.
// It is how one op's scalar semantics is reused (inlined) inside another op's program.
struct function {
    struct param {
        std::string name;
        data_type type = data_type::u32;
        friend bool operator==(const param&, const param&) = default;
    };
    std::string name;
    std::vector<param> params;
    data_type result = data_type::u32;
    expr body;
    friend bool operator==(const function&, const function&) = default;
};

struct program {
    std::string name = "main"; // the kernel's entry point name
    std::vector<buffer_decl> buffers;
    std::array<std::uint32_t, 3> workgroup_size{64, 1, 1};
    std::vector<function> functions;
    std::vector<node> body;
    // Invocations per subgroup: 0 when the program uses no subgroup operation, else a power of two
    // up to 32 that divides the workgroup (one-dimensional workgroups only).
    std::uint32_t subgroup_size = 0;

    const buffer_decl* find_buffer(std::string_view n) const noexcept {
        for (const auto& b : buffers)
            if (b.name == n) return &b;
        return nullptr;
    }
    const function* find_function(std::string_view n) const noexcept {
        for (const auto& f : functions)
            if (f.name == n) return &f;
        return nullptr;
    }
    std::uint32_t invocations_per_workgroup() const noexcept {
        return workgroup_size[0] * workgroup_size[1] * workgroup_size[2];
    }
    friend bool operator==(const program&, const program&) = default;
};

// ---- text form ------------------------------------------------------------------------------

namespace detail {

inline void print(std::ostream& os, const expr& e) {
    switch (e.kind) {
    case expr_kind::literal:
        if (e.type == data_type::i32) os << static_cast<std::int32_t>(static_cast<std::uint32_t>(e.value)) << "i";
        else if (e.type == data_type::boolean) os << (e.value ? "true" : "false");
        else os << e.value << (e.type == data_type::u64 ? "ul" : "u");
        return;
    case expr_kind::var: os << e.name; return;
    case expr_kind::load:
        os << e.name << "["; print(os, e.args[0]); os << (e.bounds() == bounds::unchecked ? " unchecked]" : "]"); return;
    case expr_kind::load_u32_le:
        os << e.name << ".u32_le["; print(os, e.args[0]); os << (e.bounds() == bounds::unchecked ? " unchecked]" : "]"); return;
    case expr_kind::buf_len: os << "len(" << e.name << ")"; return;
    case expr_kind::invocation_id: os << "invocation_id." << "xyz"[e.op % 3]; return;
    case expr_kind::local_id: os << "local_id." << "xyz"[e.op % 3]; return;
    case expr_kind::workgroup_id: os << "workgroup_id." << "xyz"[e.op % 3]; return;
    case expr_kind::binary:
        os << "(" << name(e.binary_op()) << " "; print(os, e.args[0]); os << " "; print(os, e.args[1]); os << ")";
        return;
    case expr_kind::unary: os << "(" << name(e.unary_op()) << " "; print(os, e.args[0]); os << ")"; return;
    case expr_kind::cast: os << "(" << name(e.type) << " "; print(os, e.args[0]); os << ")"; return;
    case expr_kind::select:
        os << "(select "; print(os, e.args[0]); os << " "; print(os, e.args[1]); os << " "; print(os, e.args[2]); os << ")";
        return;
    case expr_kind::atomic:
        os << "(atomic" << name(e.atomic_kind()) << " " << e.name;
        for (const auto& a : e.args) { os << " "; print(os, a); }
        os << ")";
        return;
    case expr_kind::call:
        os << "(call " << e.name;
        for (const auto& a : e.args) { os << " "; print(os, a); }
        os << ")";
        return;
    case expr_kind::subgroup_local_id: os << "subgroup_local_id"; return;
    case expr_kind::subgroup_id: os << "subgroup_id"; return;
    case expr_kind::subgroup_size: os << "subgroup_size"; return;
    case expr_kind::subgroup:
        os << "(" << name(e.subgroup_kind());
        for (const auto& a : e.args) { os << " "; print(os, a); }
        os << ")";
        return;
    }
}

inline void print(std::ostream& os, const std::vector<node>& body, int depth);

inline void print(std::ostream& os, const node& n, int depth) {
    const std::string pad(2 * depth, ' ');
    switch (n.kind) {
    case node_kind::let: os << pad << "let " << n.name << ": " << name(n.type) << " = "; print(os, n.exprs[0]); os << "\n"; return;
    case node_kind::assign: os << pad << n.name << " = "; print(os, n.exprs[0]); os << "\n"; return;
    case node_kind::store:
        os << pad << n.name << "["; print(os, n.exprs[0]);
        os << (n.access == bounds::unchecked ? " unchecked] = " : "] = "); print(os, n.exprs[1]); os << "\n"; return;
    case node_kind::if_:
        os << pad << "if "; print(os, n.exprs[0]); os << " {\n"; print(os, n.body, depth + 1);
        if (!n.else_body.empty()) { os << pad << "} else {\n"; print(os, n.else_body, depth + 1); }
        os << pad << "}\n";
        return;
    case node_kind::loop:
        os << pad << "loop " << n.name << " in "; print(os, n.exprs[0]); os << " .. "; print(os, n.exprs[1]);
        os << " {\n"; print(os, n.body, depth + 1); os << pad << "}\n";
        return;
    case node_kind::while_:
        os << pad << "while "; print(os, n.exprs[0]); os << " {\n"; print(os, n.body, depth + 1); os << pad << "}\n";
        return;
    case node_kind::break_: os << pad << "break\n"; return;
    case node_kind::continue_: os << pad << "continue\n"; return;
    case node_kind::return_: os << pad << "return\n"; return;
    case node_kind::barrier: os << pad << "barrier\n"; return;
    case node_kind::subgroup_barrier: os << pad << "subgroup_barrier\n"; return;
    case node_kind::block: os << pad << "{\n"; print(os, n.body, depth + 1); os << pad << "}\n"; return;
    }
}

inline void print(std::ostream& os, const std::vector<node>& body, int depth) {
    for (const auto& n : body) print(os, n, depth);
}

} // namespace detail

inline std::ostream& operator<<(std::ostream& os, const expr& e) { detail::print(os, e); return os; }
inline std::ostream& operator<<(std::ostream& os, const node& n) { detail::print(os, n, 0); return os; }

inline std::ostream& operator<<(std::ostream& os, const program& p) {
    os << "program " << p.name << " workgroup(" << p.workgroup_size[0] << ", " << p.workgroup_size[1] << ", "
       << p.workgroup_size[2] << ")";
    if (p.subgroup_size != 0) os << " subgroup(" << p.subgroup_size << ")"; // absent otherwise: older hashes stay
    os << "\n";
    for (const auto& b : p.buffers) {
        os << "  buffer " << b.name << ": " << name(b.element) << " " << name(b.access);
        if (b.is_storage()) os << " @" << b.binding;
        else os << " [" << b.count << "]";
        os << "\n";
    }
    for (const auto& f : p.functions) {
        os << "  fn " << f.name << "(";
        for (std::size_t i = 0; i < f.params.size(); ++i)
            os << (i ? ", " : "") << f.params[i].name << ": " << name(f.params[i].type);
        os << ") -> " << name(f.result) << " = " << f.body << "\n";
    }
    detail::print(os, p.body, 1);
    return os;
}

inline std::string to_string(const program& p) {
    std::ostringstream os;
    os << p;
    return os.str();
}
inline std::string to_string(const expr& e) {
    std::ostringstream os;
    os << e;
    return os.str();
}

// A stable 64-bit hash of the program's full text form (FNV-1a): equal programs hash equal on
// every platform and run, so it can key caches on disk.
inline std::uint64_t stable_hash(std::string_view text) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}
inline std::uint64_t hash(const program& p) { return stable_hash(to_string(p)); }

} // namespace vyre::ir

template <>
struct std::hash<vyre::ir::program> {
    std::size_t operator()(const vyre::ir::program& p) const { return static_cast<std::size_t>(vyre::ir::hash(p)); }
};
