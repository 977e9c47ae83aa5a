// vyre::dsl::kernel: the statement builder that owns the ir::program being written, and the
// handles it hands out (variables, loop counters, functions).
#pragma once

// Statements are recorded in order into the current body; a statement with a body (if_, for_,
// while_, block) opens a new one, runs the C++ lambda the user gave, and closes it, so C++ scopes
// mirror the IR's. Each statement lowers its expressions with to_ir as it is recorded; after that
// the expression templates are gone. The builder checks types at compile time only: run
// ir::validate on the result for the rules that need the whole program (names, scopes, barriers).
//
//   dsl::kernel k("xor_op", {64, 1, 1});
//   auto a = k.input<dsl::u32>("a");
//   auto b = k.input<dsl::u32>("b");
//   auto out = k.output<dsl::u32>("out");
//   auto i = k.let("i", dsl::invocation_id());
//   k.if_(i < out.size(), [&] { k.store(out, i, a[i] ^ b[i]); });
//   ir::program p = k.program();

#include <vyre/dsl/expression.hpp>
#include <vyre/ir/program.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vyre::dsl {

class kernel;

// A variable declared by kernel::let. Using it in an expression reads it; assigning to it records
// an Assign (`x = x + 1u`), so a handle is never re-bound, even by `x = y` of two handles.
template <class T>
class variable : public expression<ir::expr_kind::var, T, 0> {
public:
    variable(std::string name, kernel& owner) : expression<ir::expr_kind::var, T, 0>{std::move(name), {}}, kernel_(&owner) {}
    variable(const variable&) = default;

    const std::string& name() const noexcept { return this->data; }

    template <operand V>
    const variable& operator=(const V& value) const;
    const variable& operator=(const variable& value) const { return operator= <expression<ir::expr_kind::var, T, 0>>(value); }

private:
    kernel* kernel_;
};

// The counter of a for_ loop: readable like a variable; the IR forbids assigning to it.
template <class T>
struct counter : expression<ir::expr_kind::var, T, 0> {
    counter& operator=(const counter&) = delete;
    template <class V>
    void operator=(const V&) const {
        static_assert(detail::always_false<V>, "vyre::dsl: a loop counter is read-only; copy it into a let to change it");
    }
};

// A function declared by kernel::function; calling it builds a Call expression. R and P are
// value types: `dsl::function<u32(u32, u32)>`.
template <class Signature>
class function;

template <class R, class... P>
class function<R(P...)> {
    static_assert(value_type<R> && (value_type<P> && ...),
                  "vyre::dsl: a function's result and parameters must be u32, i32, u64 or boolean");

public:
    explicit function(std::string name) : name_(std::move(name)) {}
    const std::string& name() const noexcept { return name_; }

    template <operand... A>
    auto operator()(const A&... args) const {
        if constexpr (sizeof...(A) != sizeof...(P)) {
            static_assert(detail::always_false<A...>, "vyre::dsl: a call needs one argument per parameter of the function");
            return expression<ir::expr_kind::call, R, 0>{name_, {}};
        } else {
            static_assert((detail::fits<A, P> && ...),
                          "vyre::dsl: a call's arguments must have the function's parameter types; use cast<T>()");
            return expression<ir::expr_kind::call, R, 0, decltype(detail::to_node<P>(args))...>{
                name_, {detail::to_node<P>(args)...}};
        }
    }

private:
    std::string name_;
};

namespace detail {

// True where an expression reads nothing but its operands and variables: what a function body may be.
template <class E>
struct is_pure;
template <ir::expr_kind K, class T, auto Op, class... C>
struct is_pure<expression<K, T, Op, C...>>
    : std::bool_constant<K != ir::expr_kind::load && K != ir::expr_kind::load_u32_le && K != ir::expr_kind::buf_len && K != ir::expr_kind::atomic &&
                         K != ir::expr_kind::invocation_id && K != ir::expr_kind::local_id &&
                         K != ir::expr_kind::workgroup_id && K != ir::expr_kind::subgroup_local_id &&
                         K != ir::expr_kind::subgroup_id && K != ir::expr_kind::subgroup_size &&
                         K != ir::expr_kind::subgroup && (is_pure<C>::value && ...)> {};

template <class Signature>
struct signature;
template <class R, class... P>
struct signature<R(P...)> {
    using result = R;
    using names = std::array<std::string, sizeof...(P)>;

    static std::vector<ir::function::param> params(const names& n) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::vector<ir::function::param>{ir::function::param{n[I], ir_type<P>}...};
        }(std::index_sequence_for<P...>{});
    }
    // Calls the user's body with one variable per parameter.
    template <class F>
    static auto body(const names& n, F& f) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return f(expression<ir::expr_kind::var, P, 0>{n[I], {}}...);
        }(std::index_sequence_for<P...>{});
    }
};

} // namespace detail

// The handle kernel::if_ returns, so that an else branch chains: `k.if_(c, f).else_(g);`.
class if_statement {
public:
    // Only on the temporary if_ returned: the if is then still the last statement recorded.
    template <class F>
    void else_(F&& body) &&;

private:
    friend class kernel;
    explicit if_statement(kernel& owner) : kernel_(&owner) {}
    kernel* kernel_;
};

class kernel {
public:
    explicit kernel(std::string name, std::array<std::uint32_t, 3> workgroup_size = {64, 1, 1}) {
        program_.name = std::move(name);
        program_.workgroup_size = workgroup_size;
    }
    // Handles point back here: a kernel stays where it was made.
    kernel(const kernel&) = delete;
    kernel& operator=(const kernel&) = delete;

    // ---- buffers --------------------------------------------------------------------------------

    // A storage buffer at `binding`. input/output/uniform without a binding take the one after the
    // highest used so far.
    template <class T, ir::buffer_access Access>
    dsl::buffer<T, Access> storage(std::string name, std::uint32_t binding) {
        static_assert(Access != ir::buffer_access::workgroup, "vyre::dsl: declare workgroup buffers with workgroup<T>(name, count)");
        program_.buffers.push_back(ir::buffer_decl::storage(name, binding, Access, ir_type<T>));
        next_binding_ = std::max(next_binding_, binding + 1);
        return {std::move(name)};
    }
    template <class T>
    input_buffer<T> input(std::string name) { return input<T>(std::move(name), next_binding_); }
    template <class T>
    input_buffer<T> input(std::string name, std::uint32_t binding) {
        return storage<T, ir::buffer_access::read_only>(std::move(name), binding);
    }
    template <class T>
    output_buffer<T> output(std::string name) { return output<T>(std::move(name), next_binding_); }
    template <class T>
    output_buffer<T> output(std::string name, std::uint32_t binding) {
        return storage<T, ir::buffer_access::read_write>(std::move(name), binding);
    }
    template <class T>
    uniform_buffer<T> uniform(std::string name) { return uniform<T>(std::move(name), next_binding_); }
    template <class T>
    uniform_buffer<T> uniform(std::string name, std::uint32_t binding) {
        return storage<T, ir::buffer_access::uniform>(std::move(name), binding);
    }
    // On-chip memory of `count` elements shared by one workgroup.
    template <class T>
    workgroup_buffer<T> workgroup(std::string name, std::uint32_t count) {
        program_.buffers.push_back(ir::buffer_decl::workgroup(name, count, ir_type<T>));
        return {std::move(name)};
    }

    // ---- statements -----------------------------------------------------------------------------

    // Declares a variable with the value's type (a C++ value: the type its C++ type maps to).
    template <operand V>
    variable<detail::type_of_t<V>> let(std::string name, const V& value) {
        using T = detail::type_of_t<V>;
        emit(ir::let(name, to_ir(detail::to_value_node<T>(value))));
        return {std::move(name), *this};
    }

    template <class T, operand V>
    void assign(const variable<T>& target, const V& value) {
        static_assert(detail::fits<V, T>, "vyre::dsl: the assigned value must have the variable's type; use cast<T>()");
        emit(ir::assign(target.name(), to_ir(detail::to_value_node<T>(value))));
    }

    template <class T, ir::buffer_access Access, operand I, operand V>
    void store(const dsl::buffer<T, Access>& b, const I& index, const V& value, ir::bounds bounds = ir::bounds::checked) {
        static_assert(Access != ir::buffer_access::read_only, "vyre::dsl: cannot store into a read-only buffer");
        static_assert(Access != ir::buffer_access::uniform,
                      "vyre::dsl: cannot store into a uniform buffer (uniform buffers are read-only)");
        static_assert(detail::fits<I, u32>, "vyre::dsl: a buffer index must be u32; use cast<u32>()");
        static_assert(detail::fits<V, loaded_t<T>>, "vyre::dsl: the stored value must have the buffer's element type; use cast<T>()");
        emit({ir::node_kind::store, b.name, ir_type<T>,
              {to_ir(detail::to_node<u32>(index)), to_ir(detail::to_node<loaded_t<T>>(value))}, {}, {}, bounds});
    }
    // A store whose index the program has proven in bounds: no test (ir::bounds).
    template <class T, ir::buffer_access Access, operand I, operand V>
    void store_unchecked(const dsl::buffer<T, Access>& b, const I& index, const V& value) {
        store(b, index, value, ir::bounds::unchecked);
    }

    template <operand C, class F>
    if_statement if_(const C& condition, F&& then_body) {
        static_assert(detail::fits<C, boolean>, "vyre::dsl: an if_ condition must be boolean; compare it (x != 0u)");
        ir::expr c = to_ir(detail::to_node<boolean>(condition));
        emit(ir::if_(std::move(c), record(std::forward<F>(then_body))));
        return if_statement(*this);
    }

    // Counts `counter` from `from` to `to` - 1 (`to` is read once); `body` receives the counter.
    template <operand From, operand To, class F>
    void for_(std::string name, const From& from, const To& to, F&& body) {
        using T = detail::meet_t<From, To>;
        static_assert(integer_type<T> && !detail::mismatched<From, To>, "vyre::dsl: for_ bounds must be integers of one type");
        ir::expr lo = to_ir(detail::to_node<T>(from));
        ir::expr hi = to_ir(detail::to_node<T>(to));
        std::vector<ir::node> nodes = record([&] { body(counter<T>{{name, {}}}); });
        emit(ir::loop(std::move(name), std::move(lo), std::move(hi), std::move(nodes)));
    }

    template <operand C, class F>
    void while_(const C& condition, F&& body) {
        static_assert(detail::fits<C, boolean>, "vyre::dsl: a while_ condition must be boolean; compare it (x != 0u)");
        ir::expr c = to_ir(detail::to_node<boolean>(condition));
        emit(ir::while_(std::move(c), record(std::forward<F>(body))));
    }

    // A nested scope: its lets end with it.
    template <class F>
    void block(F&& body) { emit(ir::block(record(std::forward<F>(body)))); }

    void break_() { emit(ir::break_()); }
    void continue_() { emit(ir::continue_()); }
    void return_() { emit(ir::return_()); }
    void barrier() { emit(ir::barrier()); }
    // Orders memory between the invocations of one subgroup, which all must reach it.
    void subgroup_barrier() { emit(ir::subgroup_barrier()); }

    // Declares that the program uses subgroups of `size` invocations (a power of two up to 32
    // dividing the workgroup); the subgroup operations and ids need it.
    void use_subgroups(std::uint32_t size) { program_.subgroup_size = size; }

    // A pure function `body(params...)` the program can call (inlined by the lowering):
    //   auto mad = k.function<u32(u32, u32, u32)>("mad", {"a", "b", "c"}, [](auto a, auto b, auto c) { return a * b + c; });
    //   k.let("y", mad(x, 3u, 1u));
    template <class Signature, class F>
    dsl::function<Signature> function(std::string name, const typename detail::signature<Signature>::names& params, F&& body) {
        using sig = detail::signature<Signature>;
        using R = typename sig::result;
        const auto value = sig::body(params, body);
        using V = std::remove_cvref_t<decltype(value)>;
        static_assert(detail::fits<V, R>, "vyre::dsl: a function's body must have its result type; use cast<T>()");
        if constexpr (any_expression<V>)
            static_assert(detail::is_pure<typename V::expression_type>::value,
                          "vyre::dsl: a function body is pure: no loads, buffer sizes, atomics or invocation ids");
        program_.functions.push_back({name, sig::params(params), ir_type<R>, to_ir(detail::to_node<R>(value))});
        return dsl::function<Signature>(std::move(name));
    }

    // The program written so far (a copy: the kernel can go on recording).
    ir::program program() const {
        if (!scopes_.empty()) throw std::logic_error("vyre::dsl::kernel::program() called inside a statement's body");
        return program_;
    }

private:
    friend class if_statement;

    std::vector<ir::node>& current() { return scopes_.empty() ? program_.body : scopes_.back(); }
    void emit(ir::node n) { current().push_back(std::move(n)); }

    // Runs `f` with a fresh body as the current one, and returns what it recorded.
    template <class F>
    std::vector<ir::node> record(F&& f) {
        scopes_.emplace_back();
        try {
            std::forward<F>(f)();
        } catch (...) {
            scopes_.pop_back();
            throw;
        }
        std::vector<ir::node> body = std::move(scopes_.back());
        scopes_.pop_back();
        return body;
    }

    ir::program program_;
    std::vector<std::vector<ir::node>> scopes_; // bodies being recorded, innermost last
    std::uint32_t next_binding_ = 0;
};

template <class T>
template <operand V>
const variable<T>& variable<T>::operator=(const V& value) const {
    kernel_->assign(*this, value);
    return *this;
}

template <class F>
void if_statement::else_(F&& body) && {
    // Record first: recording may grow the stack of bodies, and the if lives in one of them.
    std::vector<ir::node> nodes = kernel_->record(std::forward<F>(body));
    kernel_->current().back().else_body = std::move(nodes);
}

} // namespace vyre::dsl
