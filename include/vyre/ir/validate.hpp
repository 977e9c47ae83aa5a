// Validation of ir::program before lowering. Each rule violation throws validation_error with a
// message naming where (node path), what (buffer, variable, function) and the rule.
#pragma once

#include <vyre/error.hpp>
#include <vyre/ir/program.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace vyre::ir {

// Limits of the device a program will run on; the defaults are what every OpenCL 1.2 GPU offers.
struct resource_limits {
    std::uint64_t max_workgroup_size = 256;
    std::uint64_t local_memory = 16 * 1024;
    std::uint64_t constant_buffer = 64 * 1024;
};

// True for a name usable as an OpenCL C identifier that vyre does not reserve for itself.
bool is_valid_identifier(std::string_view s);

namespace detail {

inline const std::set<std::string, std::less<>>& reserved_words() {
    static const std::set<std::string, std::less<>> words = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
        "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
        "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
        "volatile", "while", "bool", "true", "false", "uchar", "ushort", "uint", "ulong", "half", "size_t",
        "ptrdiff_t", "intptr_t", "uintptr_t", "global", "local", "constant", "private", "kernel", "__global",
        "__local", "__constant", "__private", "__kernel", "read_only", "write_only", "read_write", "image2d_t",
        "image3d_t", "sampler_t", "event_t", "min", "max", "abs", "clz", "popcount", "select", "barrier",
        "get_global_id", "get_local_id", "get_group_id", "get_local_size", "main", "uint2", "uint4", "int2", "int4",
        "abs_diff", "as_int", "as_uint", "atomic_add", "atomic_or", "atomic_and", "atomic_xor", "atomic_min",
        "atomic_max", "atomic_xchg", "atomic_cmpxchg", "INT_MIN", "CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE"};
    return words;
}

class validator {
public:
    validator(const program& p, const resource_limits* limits) : p_(p), limits_(limits) {}

    void run() {
        check_header();
        for (std::size_t i = 0; i < p_.functions.size(); ++i) check_function(i);
        compute_uniform_vars();
        scopes_.assign(1, {});
        check_body(p_.body, "body", /*in_loop=*/false, workgroup);
    }

private:
    struct variable {
        std::string name;
        data_type type;
        bool counter;
    };

    const program& p_;
    const resource_limits* limits_;
    std::vector<std::vector<variable>> scopes_;
    std::map<std::string, int> var_levels_; // variables less than workgroup-uniform
    int control_ = 0;                       // uniformity of the statement being checked
    const function* current_function_ = nullptr;

    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw validation_error("invalid program \"" + p_.name + "\" at " + where + ": " + what);
    }

    void check_identifier(const std::string& where, const std::string& kind, const std::string& n) const {
        if (!is_valid_identifier(n))
            fail(where, kind + " name \"" + n + "\" is not a valid identifier (letters, digits and '_', not starting "
                        "with a digit, at most 64 characters, not an OpenCL C keyword or builtin, not starting with \"vyre_\")");
    }

    void check_header() {
        check_identifier("program", "program", p_.name);
        for (int a = 0; a < 3; ++a)
            if (p_.workgroup_size[a] == 0) fail("program", "workgroup_size[" + std::to_string(a) + "] is 0; each axis must be at least 1");
        const std::uint64_t wg = std::uint64_t(p_.workgroup_size[0]) * p_.workgroup_size[1] * p_.workgroup_size[2];
        if (wg > 1024) fail("program", "workgroup size " + std::to_string(wg) + " exceeds 1024 invocations");
        if (limits_ && wg > limits_->max_workgroup_size)
            fail("program", "workgroup size " + std::to_string(wg) + " exceeds the device limit of " +
                                std::to_string(limits_->max_workgroup_size));
        if (p_.subgroup_size != 0) {
            const std::uint32_t sg = p_.subgroup_size;
            if (sg > 32 || (sg & (sg - 1)) != 0)
                fail("program", "subgroup size " + std::to_string(sg) + " is not a power of two in 1..32");
            if (p_.workgroup_size[1] != 1 || p_.workgroup_size[2] != 1)
                fail("program", "subgroups need a one-dimensional workgroup; this one is (" + std::to_string(p_.workgroup_size[0]) +
                                    ", " + std::to_string(p_.workgroup_size[1]) + ", " + std::to_string(p_.workgroup_size[2]) + ")");
            if (p_.workgroup_size[0] % sg != 0)
                fail("program", "workgroup size " + std::to_string(p_.workgroup_size[0]) + " is not a multiple of the subgroup size " +
                                    std::to_string(sg));
        }
        std::set<std::string> names;
        std::set<std::uint32_t> bindings;
        std::uint64_t local_bytes = 0;
        for (const auto& b : p_.buffers) {
            const std::string where = "buffer \"" + b.name + "\"";
            check_identifier(where, "buffer", b.name);
            if (!names.insert(b.name).second) fail(where, "duplicate buffer name");
            if (b.is_storage()) {
                if (!bindings.insert(b.binding).second)
                    fail(where, "duplicate binding " + std::to_string(b.binding) + " (each storage buffer needs its own)");
            } else {
                if (b.count == 0) fail(where, "workgroup buffer has count 0; it needs a static element count >= 1");
                if (b.element == data_type::bytes && b.count % 4 != 0)
                    fail(where, "a Bytes workgroup buffer has count " + std::to_string(b.count) +
                                    "; it must be a multiple of 4 (bytes are held in whole u32 words)");
                local_bytes += std::uint64_t(b.count) * element_bytes(b.element);
            }
        }
        if (limits_ && local_bytes > limits_->local_memory)
            fail("program", "workgroup buffers need " + std::to_string(local_bytes) + " bytes of local memory; the device has " +
                                std::to_string(limits_->local_memory));
        std::set<std::string> fnames;
        for (const auto& f : p_.functions) {
            check_identifier("function \"" + f.name + "\"", "function", f.name);
            if (!fnames.insert(f.name).second) fail("function \"" + f.name + "\"", "duplicate function name");
            if (names.count(f.name)) fail("function \"" + f.name + "\"", "a buffer has the same name");
        }
    }

    void check_function(std::size_t index) {
        const function& f = p_.functions[index];
        const std::string where = "function \"" + f.name + "\"";
        scopes_.assign(1, {});
        for (const auto& prm : f.params) {
            check_identifier(where, "parameter", prm.name);
            if (!is_scalar(prm.type)) fail(where, "parameter \"" + prm.name + "\" has non-scalar type " + std::string(name(prm.type)));
            if (find_var(prm.name)) fail(where, "duplicate parameter \"" + prm.name + "\"");
            scopes_.back().push_back({prm.name, prm.type, false});
        }
        current_function_ = &f;
        check_expr(f.body, where + " body", true);
        current_function_ = nullptr;
        if (f.body.type != f.result)
            fail(where, "body has type " + std::string(name(f.body.type)) + " but the function returns " + std::string(name(f.result)));
    }

    const variable* find_var(const std::string& n) const {
        for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
            for (const auto& v : *s)
                if (v.name == n) return &v;
        return nullptr;
    }

    const buffer_decl& buffer(const std::string& where, const std::string& n) const {
        const buffer_decl* b = p_.find_buffer(n);
        if (!b) fail(where, "buffer \"" + n + "\" is not declared");
        return *b;
    }

    void expect(const std::string& where, const expr& e, data_type t, const std::string& role) const {
        if (e.type != t)
            fail(where, role + " must be " + std::string(name(t)) + " but is " + std::string(name(e.type)) + ": " + to_string(e));
    }

    // `top_level_value`: the expression is the whole value of a let or assign, the only place an
    // atomic may stand, so that its single side effect has a defined order.
    void check_expr(const expr& e, const std::string& where, bool top_level_value) {
        const bool in_function = current_function_ != nullptr;
        auto sub = [&](const expr& a) { check_expr(a, where, false); };
        switch (e.kind) {
        case expr_kind::literal:
            if (!is_scalar(e.type)) fail(where, "literal of non-scalar type " + std::string(name(e.type)));
            return;
        case expr_kind::var: {
            const variable* v = find_var(e.name);
            if (!v) fail(where, "variable \"" + e.name + "\" is used but not declared in scope");
            if (v->type != e.type)
                fail(where, "variable \"" + e.name + "\" is " + std::string(name(v->type)) + " but used as " + std::string(name(e.type)));
            return;
        }
        case expr_kind::load: {
            if (in_function) fail(where, "functions are pure: no load of \"" + e.name + "\"");
            const auto& b = buffer(where, e.name);
            if (!is_scalar(loaded_type(b.element)))
                fail(where, "loads of " + std::string(name(b.element)) + " elements (buffer \"" + b.name +
                                "\") are not supported in expressions; declare the buffer as U32 and index its lanes");
            if (e.args.size() != 1) fail(where, "load needs one index");
            if (e.op > static_cast<std::uint8_t>(bounds::unchecked)) fail(where, "load of \"" + e.name + "\" with an unknown bounds mode");
            sub(e.args[0]);
            expect(where, e.args[0], data_type::u32, "index into \"" + e.name + "\"");
            expect(where, e, loaded_type(b.element), "load result");
            return;
        }
        case expr_kind::load_u32_le: {
            if (in_function) fail(where, "functions are pure: no load of \"" + e.name + "\"");
            const auto& b = buffer(where, e.name);
            if (b.element != data_type::bytes)
                fail(where, "a little-endian U32 load reads a Bytes buffer; \"" + b.name + "\" holds " + std::string(name(b.element)) +
                                " elements (index them directly)");
            if (e.args.size() != 1) fail(where, "a little-endian U32 load needs one byte index");
            if (e.op > static_cast<std::uint8_t>(bounds::unchecked)) fail(where, "load of \"" + e.name + "\" with an unknown bounds mode");
            sub(e.args[0]);
            expect(where, e.args[0], data_type::u32, "byte index into \"" + e.name + "\"");
            expect(where, e, data_type::u32, "little-endian U32 load result");
            return;
        }
        case expr_kind::buf_len:
            if (in_function) fail(where, "functions are pure: no len(\"" + e.name + "\")");
            buffer(where, e.name);
            expect(where, e, data_type::u32, "len");
            return;
        case expr_kind::invocation_id:
        case expr_kind::local_id:
        case expr_kind::workgroup_id:
            if (in_function) fail(where, "functions are pure: no invocation ids");
            if (e.op > 2) fail(where, "axis " + std::to_string(e.op) + " is out of range 0..2");
            expect(where, e, data_type::u32, "id");
            return;
        case expr_kind::subgroup_local_id:
        case expr_kind::subgroup_id:
        case expr_kind::subgroup_size:
            if (in_function) fail(where, "functions are pure: no subgroup ids");
            check_uses_subgroups(where, to_string(e));
            expect(where, e, data_type::u32, "id");
            return;
        case expr_kind::subgroup: check_subgroup(e, where, top_level_value); return;
        case expr_kind::binary: check_binary(e, where); return;
        case expr_kind::unary: {
            if (e.args.size() != 1) fail(where, "unary op needs one operand");
            sub(e.args[0]);
            const data_type t = e.args[0].type;
            if (e.unary_op() == un_op::logical_not) expect(where, e.args[0], data_type::boolean, "operand of LogicalNot");
            else if (!is_integer(t)) fail(where, std::string(name(e.unary_op())) + " needs an integer operand, got " + std::string(name(t)));
            expect(where, e, t, "result");
            return;
        }
        case expr_kind::cast:
            if (e.args.size() != 1) fail(where, "cast needs one operand");
            sub(e.args[0]);
            if (!is_scalar(e.type) || !is_scalar(e.args[0].type))
                fail(where, "cast from " + std::string(name(e.args[0].type)) + " to " + std::string(name(e.type)) + ": only scalars cast");
            return;
        case expr_kind::select:
            if (e.args.size() != 3) fail(where, "select needs three operands");
            for (const auto& a : e.args) sub(a);
            expect(where, e.args[0], data_type::boolean, "select condition");
            if (!is_scalar(e.args[1].type)) fail(where, "select of non-scalar values");
            expect(where, e.args[2], e.args[1].type, "select's second value");
            expect(where, e, e.args[1].type, "select result");
            return;
        case expr_kind::atomic: check_atomic(e, where, top_level_value); return;
        case expr_kind::call: {
            const function* f = p_.find_function(e.name);
            if (!f) fail(where, "call of undeclared function \"" + e.name + "\"");
            if (in_function && !(f < current_function_))
                fail(where, "function \"" + current_function_->name + "\" may only call functions declared before it (no recursion)");
            if (e.args.size() != f->params.size())
                fail(where, "call of \"" + e.name + "\" with " + std::to_string(e.args.size()) + " arguments; it takes " +
                                std::to_string(f->params.size()));
            for (std::size_t i = 0; i < e.args.size(); ++i) {
                sub(e.args[i]);
                expect(where, e.args[i], f->params[i].type, "argument " + std::to_string(i) + " of \"" + e.name + "\"");
            }
            expect(where, e, f->result, "call result");
            return;
        }
        }
        fail(where, "unknown expression kind");
    }

    void check_uses_subgroups(const std::string& where, const std::string& what) const {
        if (p_.subgroup_size == 0)
            fail(where, what + " in a program that declares no subgroup size (set program::subgroup_size, e.g. 32)");
    }

    void check_subgroup(const expr& e, const std::string& where, bool top_level_value) {
        const std::string what(name(e.subgroup_kind()));
        if (e.op > static_cast<std::uint8_t>(subgroup_op::exclusive_add)) fail(where, "unknown subgroup op " + std::to_string(e.op));
        if (current_function_) fail(where, "functions are pure: no " + what);
        check_uses_subgroups(where, what);
        if (!top_level_value)
            fail(where, what + " must be the whole value of a let or assign (every invocation of the subgroup evaluates it "
                               "together, so it cannot stand where an operand may be skipped)");
        if (control_ == varying)
            fail(where, what + " inside control flow that differs within a subgroup (a condition or loop bound that differs "
                               "between invocations of a subgroup, or after some of them returned): every invocation of the "
                               "subgroup must take part");
        const subgroup_op op = e.subgroup_kind();
        if (e.args.size() != operand_count(op))
            fail(where, what + " needs " + std::to_string(operand_count(op)) + " operands, got " + std::to_string(e.args.size()));
        for (const auto& a : e.args) check_expr(a, where, false);
        const bool condition = op == subgroup_op::ballot || op == subgroup_op::any || op == subgroup_op::all;
        if (condition) expect(where, e.args[0], data_type::boolean, "the condition of " + what);
        else if (e.args[0].type != data_type::u32)
            fail(where, what + " of a " + std::string(name(e.args[0].type)) + " value: subgroup values are U32 (cast it): " + to_string(e));
        if (e.args.size() == 2) expect(where, e.args[1], data_type::u32, "the lane operand of " + what);
        if (op == subgroup_op::broadcast && level(e.args[1]) == varying)
            fail(where, what + "'s lane differs between invocations of the subgroup (use SubgroupShuffle): " + to_string(e.args[1]));
        expect(where, e, subgroup_result(op), "result of " + what);
    }

    void check_binary(const expr& e, const std::string& where) {
        if (e.args.size() != 2) fail(where, "binary op needs two operands");
        check_expr(e.args[0], where, false);
        check_expr(e.args[1], where, false);
        const bin_op op = e.binary_op();
        const data_type l = e.args[0].type, r = e.args[1].type;
        const std::string opn(name(op));
        if (l != r)
            fail(where, opn + " of " + std::string(name(l)) + " and " + std::string(name(r)) + ": operands must have the same type (cast one)");
        if (is_logical(op)) {
            if (l != data_type::boolean) fail(where, opn + " needs Bool operands, got " + std::string(name(l)));
        } else if (op == bin_op::eq || op == bin_op::ne || op == bin_op::bit_and || op == bin_op::bit_or ||
                   op == bin_op::bit_xor) {
            if (!is_scalar(l)) fail(where, opn + " needs scalar operands, got " + std::string(name(l)));
        } else if (!is_integer(l)) {
            fail(where, opn + " needs integer operands, got " + std::string(name(l)));
        }
        expect(where, e, binary_result(op, l), "result of " + opn);
    }

    void check_atomic(const expr& e, const std::string& where, bool top_level_value) {
        if (current_function_) fail(where, "functions are pure: no atomics");
        const auto& b = buffer(where, e.name);
        const std::string what = "atomic" + std::string(name(e.atomic_kind())) + " on buffer \"" + b.name + "\"";
        if (b.access == buffer_access::workgroup) fail(where, what + ": atomics on Workgroup buffers are not allowed");
        if (b.access != buffer_access::read_write)
            fail(where, what + ": the buffer is " + std::string(name(b.access)) + "; atomics need ReadWrite");
        if (b.element != data_type::u32 && b.element != data_type::i32)
            fail(where, what + ": atomics need a U32 or I32 buffer, not " + std::string(name(b.element)));
        if (!top_level_value)
            fail(where, what + ": an atomic must be the whole value of a let or assign (its side effect needs a defined order)");
        const std::size_t want = e.atomic_kind() == atomic_op::compare_exchange ? 3 : 2;
        if (e.args.size() != want) fail(where, what + " needs " + std::to_string(want) + " operands");
        for (const auto& a : e.args) check_expr(a, where, false);
        expect(where, e.args[0], data_type::u32, "atomic index");
        for (std::size_t i = 1; i < e.args.size(); ++i) expect(where, e.args[i], b.element, "atomic operand");
        expect(where, e, b.element, "atomic result");
    }

    // ---- uniformity: which values are the same for every invocation of a workgroup or subgroup --

    // How far a value (or the control flow reaching a statement) is shared: by the whole
    // workgroup, by each subgroup, or not at all. Barriers need `workgroup`; subgroup barriers and
    // subgroup operations need `subgroup` or better.
    enum uniformity : int { workgroup = 0, subgroup = 1, varying = 2 };

    int level(const expr& e) const {
        switch (e.kind) {
        case expr_kind::literal:
        case expr_kind::buf_len:
        case expr_kind::workgroup_id:
        case expr_kind::subgroup_size: return workgroup;
        case expr_kind::var: {
            const auto it = var_levels_.find(e.name);
            return it == var_levels_.end() ? workgroup : it->second;
        }
        case expr_kind::invocation_id:
        case expr_kind::local_id:
        case expr_kind::subgroup_local_id:
        case expr_kind::atomic: return varying;
        case expr_kind::subgroup_id: return subgroup;
        case expr_kind::subgroup: {
            // A broadcast, ballot, any or all gives every invocation of the subgroup one value.
            const auto op = e.subgroup_kind();
            const bool shared = op == subgroup_op::broadcast || op == subgroup_op::ballot || op == subgroup_op::any ||
                                op == subgroup_op::all;
            return shared ? subgroup : varying;
        }
        case expr_kind::load:
        case expr_kind::load_u32_le: {
            // Read-only and uniform memory holds one value per index for the whole dispatch. A
            // workgroup buffer is shared by the workgroup: read at a uniform index after a barrier
            // (a subgroup barrier, for an index uniform in the subgroup), every invocation sees the
            // same value, which is how cooperative kernels broadcast shared state (programs must put
            // a barrier between its writes and such reads).
            const buffer_decl* b = p_.find_buffer(e.name);
            const bool shared = b && b->access != buffer_access::read_write;
            return shared ? level(e.args[0]) : varying;
        }
        default: {
            int l = workgroup;
            for (const auto& a : e.args) l = std::max(l, level(a));
            return l;
        }
        }
    }
    bool is_uniform(const expr& e) const { return level(e) == workgroup; }

    static bool contains_kind(const std::vector<node>& body, node_kind k, bool into_loops) {
        for (const auto& n : body) {
            if (n.kind == k) return true;
            const bool loop = n.kind == node_kind::loop || n.kind == node_kind::while_;
            if (loop && !into_loops) continue;
            if (contains_kind(n.body, k, into_loops) || contains_kind(n.else_body, k, into_loops)) return true;
        }
        return false;
    }

    // A loop runs its body as divergently as its bounds (or condition) differ, and as its
    // iterations are left early (a break, continue or return under a condition that differs).
    int loop_level(const node& n) const {
        int l = n.kind == node_kind::loop ? std::max(level(n.exprs[0]), level(n.exprs[1])) : level(n.exprs[0]);
        return std::max(l, exit_level(n.body, workgroup));
    }
    // The most divergent control level at which the body leaves early.
    int exit_level(const std::vector<node>& body, int control) const {
        int l = workgroup;
        for (const auto& n : body) {
            if (n.kind == node_kind::break_ || n.kind == node_kind::continue_ || n.kind == node_kind::return_) {
                l = std::max(l, control);
            } else if (n.kind == node_kind::if_) {
                const int c = std::max(control, level(n.exprs[0]));
                l = std::max({l, exit_level(n.body, c), exit_level(n.else_body, c)});
            } else if (n.kind == node_kind::block) {
                l = std::max(l, exit_level(n.body, control));
            } else if ((n.kind == node_kind::loop || n.kind == node_kind::while_) && contains_kind(n.body, node_kind::return_, true)) {
                l = std::max({l, control, loop_level(n)});
            }
        }
        return l;
    }

    void mark_uniformity(const std::vector<node>& body, int control, bool& changed) {
        int d = control;
        for (const auto& n : body) {
            auto mark = [&](const std::string& v, int l) {
                auto& known = var_levels_[v];
                if (l > known) {
                    known = l;
                    changed = true;
                }
            };
            switch (n.kind) {
            case node_kind::let:
            case node_kind::assign: mark(n.name, std::max(d, level(n.exprs[0]))); break;
            case node_kind::if_: {
                const int inner = std::max(d, level(n.exprs[0]));
                mark_uniformity(n.body, inner, changed);
                mark_uniformity(n.else_body, inner, changed);
                if (contains_kind(n.body, node_kind::return_, true) || contains_kind(n.else_body, node_kind::return_, true))
                    d = inner; // some invocations may have left: the rest of the body runs at that level
                break;
            }
            case node_kind::loop:
            case node_kind::while_: {
                const int inner = std::max(d, loop_level(n));
                if (n.kind == node_kind::loop) mark(n.name, inner);
                mark_uniformity(n.body, inner, changed);
                break;
            }
            case node_kind::block: mark_uniformity(n.body, d, changed); break;
            default: break;
            }
        }
    }

    void compute_uniform_vars() {
        bool changed = true;
        while (changed) {
            changed = false;
            mark_uniformity(p_.body, workgroup, changed);
        }
    }

    // ---- statements ---------------------------------------------------------------------------

    void declare(const std::string& where, const std::string& n, data_type t, bool counter) {
        check_identifier(where, "variable", n);
        if (find_var(n)) fail(where, "variable \"" + n + "\" is already declared in an enclosing scope (no shadowing)");
        if (p_.find_buffer(n)) fail(where, "variable \"" + n + "\" has the name of a buffer");
        scopes_.back().push_back({n, t, counter});
    }

    void check_body(const std::vector<node>& body, const std::string& path, bool in_loop, int control) {
        scopes_.emplace_back();
        int d = control;
        for (std::size_t i = 0; i < body.size(); ++i) {
            const node& n = body[i];
            const std::string where = path + "[" + std::to_string(i) + "]";
            check_node(n, where, in_loop, d);
            if (n.kind == node_kind::if_ &&
                (contains_kind(n.body, node_kind::return_, true) || contains_kind(n.else_body, node_kind::return_, true) ||
                 (in_loop && (contains_kind(n.body, node_kind::break_, false) || contains_kind(n.body, node_kind::continue_, false) ||
                              contains_kind(n.else_body, node_kind::break_, false) || contains_kind(n.else_body, node_kind::continue_, false)))))
                d = std::max(d, level(n.exprs[0]));
        }
        scopes_.pop_back();
    }

    void check_node(const node& n, const std::string& where, bool in_loop, int control) {
        control_ = control;
        switch (n.kind) {
        case node_kind::let:
            if (n.exprs.size() != 1) fail(where, "let needs one value");
            check_expr(n.exprs[0], where + " (let " + n.name + ")", true);
            if (!is_scalar(n.exprs[0].type)) fail(where, "let " + n.name + ": only scalar variables are supported");
            if (n.type != n.exprs[0].type)
                fail(where, "let " + n.name + " declared " + std::string(name(n.type)) + " but its value is " + std::string(name(n.exprs[0].type)));
            declare(where, n.name, n.type, false);
            return;
        case node_kind::assign: {
            if (n.exprs.size() != 1) fail(where, "assign needs one value");
            const variable* v = find_var(n.name);
            if (!v) fail(where, "assignment to undeclared variable \"" + n.name + "\"");
            if (v->counter) fail(where, "assignment to loop counter \"" + n.name + "\" (counters are read-only)");
            check_expr(n.exprs[0], where + " (assign " + n.name + ")", true);
            if (n.exprs[0].type != v->type)
                fail(where, "assignment of " + std::string(name(n.exprs[0].type)) + " to \"" + n.name + "\" of type " + std::string(name(v->type)));
            return;
        }
        case node_kind::store: {
            if (n.exprs.size() != 2) fail(where, "store needs an index and a value");
            if (n.access > bounds::unchecked) fail(where, "store to \"" + n.name + "\" with an unknown bounds mode");
            const auto& b = buffer(where, n.name);
            if (!writable(b.access))
                fail(where, "store to buffer \"" + b.name + "\" which is " + std::string(name(b.access)) + "; stores need ReadWrite or Workgroup");
            if (!is_scalar(loaded_type(b.element)))
                fail(where, "stores of " + std::string(name(b.element)) + " elements are not supported; declare the buffer as U32");
            check_expr(n.exprs[0], where + " (store index)", false);
            check_expr(n.exprs[1], where + " (store value)", false);
            expect(where, n.exprs[0], data_type::u32, "index into \"" + b.name + "\"");
            expect(where, n.exprs[1], loaded_type(b.element), "value stored into \"" + b.name + "\"");
            return;
        }
        case node_kind::if_: {
            if (n.exprs.size() != 1) fail(where, "if needs one condition");
            check_expr(n.exprs[0], where + " (if condition)", false);
            expect(where, n.exprs[0], data_type::boolean, "if condition");
            const int inner = std::max(control, level(n.exprs[0]));
            check_body(n.body, where + ".then", in_loop, inner);
            check_body(n.else_body, where + ".else", in_loop, inner);
            return;
        }
        case node_kind::loop: {
            if (n.exprs.size() != 2) fail(where, "loop needs from and to");
            check_expr(n.exprs[0], where + " (loop from)", false);
            check_expr(n.exprs[1], where + " (loop to)", false);
            if (!is_integer(n.exprs[0].type)) fail(where, "loop bounds must be integers");
            expect(where, n.exprs[1], n.exprs[0].type, "loop end");
            if (n.type != n.exprs[0].type) fail(where, "loop counter type differs from its bounds");
            scopes_.emplace_back();
            declare(where, n.name, n.type, true);
            check_body(n.body, where + ".body", true, std::max(control, loop_level(n)));
            scopes_.pop_back();
            return;
        }
        case node_kind::while_:
            if (n.exprs.size() != 1) fail(where, "while needs one condition");
            check_expr(n.exprs[0], where + " (while condition)", false);
            expect(where, n.exprs[0], data_type::boolean, "while condition");
            check_body(n.body, where + ".body", true, std::max(control, loop_level(n)));
            return;
        case node_kind::break_:
        case node_kind::continue_:
            if (!in_loop) fail(where, std::string(n.kind == node_kind::break_ ? "break" : "continue") + " outside a loop");
            return;
        case node_kind::return_: return;
        case node_kind::barrier:
            if (control != workgroup)
                fail(where, "barrier inside divergent control flow (a condition or loop bound that differs between invocations "
                            "of a workgroup, or after some invocations returned): every invocation must reach the same barriers");
            return;
        case node_kind::subgroup_barrier:
            check_uses_subgroups(where, "subgroup_barrier");
            if (control == varying)
                fail(where, "subgroup_barrier inside control flow that differs within a subgroup (a condition or loop bound "
                            "that differs between invocations of a subgroup, or after some of them returned): every "
                            "invocation of a subgroup must reach the same subgroup barriers");
            return;
        case node_kind::block: check_body(n.body, where + ".block", in_loop, control); return;
        }
        fail(where, "unknown node kind");
    }
};

} // namespace detail

inline bool is_valid_identifier(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    if (s.rfind("vyre_", 0) == 0 || s.rfind("__", 0) == 0) return false;
    if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return !detail::reserved_words().count(s);
}

// Throws validation_error on the first broken rule. With `limits`, also checks the program
// against a device's workgroup and local-memory limits.
inline void validate(const program& p, const resource_limits* limits = nullptr) {
    detail::validator(p, limits).run();
}
inline void validate(const program& p, const resource_limits& limits) { validate(p, &limits); }

} // namespace vyre::ir
