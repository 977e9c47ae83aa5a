// vyre::dsl: programs written with the expression templates equal the same programs written with
// the IR builders, every operator lowers to the right IR kind, op and type, and the results validate.
// (Misuse that must not compile is in compile_fail/dsl_*.cpp.)
#include "harness.hpp"

#include <vyre/dsl.hpp>
#include <vyre/ir/validate.hpp>

#include <stdexcept>
#include <type_traits>

namespace dsl = vyre::dsl;
namespace ir = vyre::ir;
using dsl::boolean;
using dsl::i32;
using dsl::u32;
using dsl::u64;

namespace {

// The types record the tree: `a + b` of two u32 loads is an Add node over both operand types.
using u32_var = dsl::expression<ir::expr_kind::var, u32, 0>;
using u32_lit = dsl::expression<ir::expr_kind::literal, u32, 0>;
static_assert(std::is_same_v<decltype(std::declval<u32_var>() + std::declval<u32_var>()),
                             dsl::expression<ir::expr_kind::binary, u32, ir::bin_op::add, u32_var, u32_var>>);
static_assert(std::is_same_v<decltype(std::declval<u32_var>() < 1u),
                             dsl::expression<ir::expr_kind::binary, boolean, ir::bin_op::lt, u32_var, u32_lit>>);
static_assert(std::is_same_v<decltype(dsl::cast<u64>(std::declval<u32_var>()))::value_type, u64>);
static_assert(std::is_same_v<decltype(std::declval<dsl::input_buffer<dsl::bytes>>()[0u])::value_type, u32>);

// A variable of `type` named `name`, as the IR spells it.
ir::expr v(const char* name, ir::data_type type = ir::data_type::u32) { return ir::var(name, type); }

void check_binary(const ir::expr& e, ir::bin_op op, ir::data_type type) {
    BOOST_TEST_CONTEXT("operator " << ir::name(op) << ": " << e) {
        BOOST_TEST((e.kind == ir::expr_kind::binary));
        BOOST_TEST((e.binary_op() == op));
        BOOST_TEST((e.type == type));
        BOOST_TEST((e == ir::binary(op, e.args.at(0), e.args.at(1))));
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(xor_kernel_equals_the_ir_builders) {
    dsl::kernel k("xor_op", {64, 1, 1});
    auto a = k.input<u32>("a");
    auto b = k.input<u32>("b");
    auto out = k.output<u32>("out");
    auto i = k.let("i", dsl::invocation_id());
    k.if_(i < out.size(), [&] { k.store(out, i, a[i] ^ b[i]); });
    const ir::program p = k.program();

    ir::program q;
    q.name = "xor_op";
    q.workgroup_size = {64, 1, 1};
    const auto da = ir::buffer_decl::storage("a", 0, ir::buffer_access::read_only, ir::data_type::u32);
    const auto db = ir::buffer_decl::storage("b", 1, ir::buffer_access::read_only, ir::data_type::u32);
    const auto dout = ir::buffer_decl::storage("out", 2, ir::buffer_access::read_write, ir::data_type::u32);
    q.buffers = {da, db, dout};
    q.body = {ir::let("i", ir::invocation_id(0)),
              ir::if_(ir::binary(ir::bin_op::lt, v("i"), ir::buf_len(dout)),
                      {ir::store(dout, v("i"), ir::binary(ir::bin_op::bit_xor, ir::load(da, v("i")), ir::load(db, v("i"))))})};

    BOOST_TEST(p == q, "dsl:\n" << p << "ir:\n" << q);
    BOOST_CHECK_NO_THROW(ir::validate(p));
}

BOOST_AUTO_TEST_CASE(every_binary_operator_lowers_to_its_op_and_type) {
    dsl::kernel k("ops");
    const auto x = k.let("x", 5u);
    const auto y = k.let("y", 3u);
    const auto p = k.let("p", true);
    const auto q = k.let("q", false);
    using ir::bin_op;
    constexpr auto U = ir::data_type::u32;
    constexpr auto B = ir::data_type::boolean;
    check_binary(to_ir(x + y), bin_op::add, U);
    check_binary(to_ir(x - y), bin_op::sub, U);
    check_binary(to_ir(x * y), bin_op::mul, U);
    check_binary(to_ir(x / y), bin_op::div, U);
    check_binary(to_ir(x % y), bin_op::mod, U);
    check_binary(to_ir(x & y), bin_op::bit_and, U);
    check_binary(to_ir(x | y), bin_op::bit_or, U);
    check_binary(to_ir(x ^ y), bin_op::bit_xor, U);
    check_binary(to_ir(x << y), bin_op::shl, U);
    check_binary(to_ir(x >> y), bin_op::shr, U);
    check_binary(to_ir(x == y), bin_op::eq, B);
    check_binary(to_ir(x != y), bin_op::ne, B);
    check_binary(to_ir(x < y), bin_op::lt, B);
    check_binary(to_ir(x <= y), bin_op::le, B);
    check_binary(to_ir(x > y), bin_op::gt, B);
    check_binary(to_ir(x >= y), bin_op::ge, B);
    check_binary(to_ir(p && q), bin_op::logical_and, B);
    check_binary(to_ir(p || q), bin_op::logical_or, B);
    check_binary(to_ir(dsl::min(x, y)), bin_op::min, U);
    check_binary(to_ir(dsl::max(x, y)), bin_op::max, U);
    check_binary(to_ir(dsl::abs_diff(x, y)), bin_op::abs_diff, U);
    check_binary(to_ir(p == q), bin_op::eq, B);   // equality and bitwise ops take booleans too
    check_binary(to_ir(p ^ q), bin_op::bit_xor, B);

    // Operands in order, as the IR builder takes them; a C++ value may stand on either side.
    BOOST_TEST((to_ir(x - y) == ir::binary(bin_op::sub, v("x"), v("y"))));
    BOOST_TEST((to_ir(10u - x) == ir::binary(bin_op::sub, ir::lit_u32(10), v("x"))));
    BOOST_TEST((to_ir(x << 3u) == ir::binary(bin_op::shl, v("x"), ir::lit_u32(3))));
    BOOST_TEST((to_ir(p && true) == ir::binary(bin_op::logical_and, v("p", B), ir::lit_bool(true))));
}

BOOST_AUTO_TEST_CASE(unary_operators_select_and_cast) {
    dsl::kernel k("unary");
    const auto x = k.let("x", 5u);
    const auto s = k.let("s", -5);
    const auto p = k.let("p", true);
    using ir::un_op;
    constexpr auto U = ir::data_type::u32;
    BOOST_TEST((to_ir(-s) == ir::unary(un_op::negate, v("s", ir::data_type::i32))));
    BOOST_TEST((to_ir(~x) == ir::unary(un_op::bit_not, v("x"))));
    BOOST_TEST((to_ir(!p) == ir::unary(un_op::logical_not, v("p", ir::data_type::boolean))));
    BOOST_TEST((to_ir(dsl::popcount(x)) == ir::unary(un_op::popcount, v("x"))));
    BOOST_TEST((to_ir(dsl::clz(x)) == ir::unary(un_op::clz, v("x"))));
    BOOST_TEST((to_ir(dsl::ctz(x)) == ir::unary(un_op::ctz, v("x"))));
    BOOST_TEST((to_ir(dsl::reverse_bits(x)) == ir::unary(un_op::reverse_bits, v("x"))));
    BOOST_TEST((to_ir(-s).type == ir::data_type::i32));

    BOOST_TEST((to_ir(dsl::select(p, x, 7u)) == ir::select(v("p", ir::data_type::boolean), v("x"), ir::lit_u32(7))));
    BOOST_TEST((to_ir(dsl::select(x > 1u, 1u, 0u)).type == U));
    BOOST_TEST((to_ir(dsl::cast<u64>(x)) == ir::cast(ir::data_type::u64, v("x"))));
    BOOST_TEST((to_ir(dsl::cast<boolean>(x)).type == ir::data_type::boolean));
    BOOST_TEST((to_ir(dsl::cast<i32>(x + 1u)) == ir::cast(ir::data_type::i32, ir::binary(ir::bin_op::add, v("x"), ir::lit_u32(1)))));
}

BOOST_AUTO_TEST_CASE(cpp_values_take_the_type_they_meet) {
    dsl::kernel k("literals");
    const auto x = k.let("x", 5u);
    const auto s = k.let("s", 5);
    const auto w = k.let("w", dsl::cast<u64>(x));
    // Beside an expression, an int literal takes its type, modulo 2^bits.
    BOOST_TEST((to_ir(x + 1) == ir::binary(ir::bin_op::add, v("x"), ir::lit_u32(1))));
    BOOST_TEST((to_ir(x + -1) == ir::binary(ir::bin_op::add, v("x"), ir::lit_u32(0xffffffffu))));
    BOOST_TEST((to_ir(s * -3) == ir::binary(ir::bin_op::mul, v("s", ir::data_type::i32), ir::lit_i32(-3))));
    BOOST_TEST((to_ir(s + 0xffffffffu) == ir::binary(ir::bin_op::add, v("s", ir::data_type::i32), ir::lit_i32(-1))));
    BOOST_TEST((to_ir(w + 1) == ir::binary(ir::bin_op::add, v("w", ir::data_type::u64), ir::lit_u64(1))));
    BOOST_TEST((to_ir(w << 40u) == ir::binary(ir::bin_op::shl, v("w", ir::data_type::u64), ir::lit_u64(40))));
    // Alone, the C++ type decides; lit<T> names the type outright.
    BOOST_TEST((to_ir(dsl::lit(7u)) == ir::lit_u32(7)));
    BOOST_TEST((to_ir(dsl::lit(-7)) == ir::lit_i32(-7)));
    BOOST_TEST((to_ir(dsl::lit(std::uint64_t{1} << 40)) == ir::lit_u64(std::uint64_t{1} << 40)));
    BOOST_TEST((to_ir(dsl::lit(true)) == ir::lit_bool(true)));
    BOOST_TEST((to_ir(dsl::lit<u64>(3)) == ir::lit_u64(3)));
    BOOST_TEST((to_ir(dsl::lit<i32>(-1)) == ir::lit_i32(-1)));

    const ir::program p = k.program();
    BOOST_TEST((p.body.at(0) == ir::let("x", ir::lit_u32(5))));
    BOOST_TEST((p.body.at(1) == ir::let("s", ir::lit_i32(5))));
    BOOST_TEST((p.body.at(2) == ir::let("w", ir::cast(ir::data_type::u64, v("x")))));
}

BOOST_AUTO_TEST_CASE(terminals_buffers_and_builtins) {
    dsl::kernel k("terminals");
    auto in = k.input<u32>("in");
    auto raw = k.input<dsl::bytes>("raw");
    auto wide = k.uniform<u64>("wide");
    const auto din = ir::buffer_decl::storage("in", 0, ir::buffer_access::read_only, ir::data_type::u32);
    const auto draw = ir::buffer_decl::storage("raw", 1, ir::buffer_access::read_only, ir::data_type::bytes);
    BOOST_TEST((to_ir(in[3u]) == ir::load(din, ir::lit_u32(3))));
    BOOST_TEST((to_ir(in[3]) == ir::load(din, ir::lit_u32(3))));
    BOOST_TEST((to_ir(raw[dsl::invocation_id()]) == ir::load(draw, ir::invocation_id(0))));
    BOOST_TEST((to_ir(raw[0u]).type == ir::data_type::u32)); // a byte loads as a u32
    BOOST_TEST((to_ir(wide[0u]).type == ir::data_type::u64));
    BOOST_TEST((to_ir(in.size()) == ir::buf_len(din)));
    BOOST_TEST((to_ir(in[in[0u]]) == ir::load(din, ir::load(din, ir::lit_u32(0)))));
    BOOST_TEST((to_ir(dsl::invocation_id(2)) == ir::invocation_id(2)));
    BOOST_TEST((to_ir(dsl::local_id(1)) == ir::local_id(1)));
    BOOST_TEST((to_ir(dsl::workgroup_id()) == ir::workgroup_id(0)));
}

BOOST_AUTO_TEST_CASE(buffers_take_bindings_in_order_or_as_given) {
    dsl::kernel k("bindings", {256, 1, 1});
    k.input<u32>("a");
    k.storage<i32, ir::buffer_access::read_write>("b", 5);
    k.uniform<u32>("c");
    k.output<u32>("d", 2);
    k.workgroup<u32>("tile", 256);
    const ir::program p = k.program();
    const std::vector<ir::buffer_decl> want = {
        ir::buffer_decl::storage("a", 0, ir::buffer_access::read_only, ir::data_type::u32),
        ir::buffer_decl::storage("b", 5, ir::buffer_access::read_write, ir::data_type::i32),
        ir::buffer_decl::storage("c", 6, ir::buffer_access::uniform, ir::data_type::u32),
        ir::buffer_decl::storage("d", 2, ir::buffer_access::read_write, ir::data_type::u32),
        ir::buffer_decl::workgroup("tile", 256, ir::data_type::u32),
    };
    BOOST_TEST((p.buffers == want));
    BOOST_TEST((p.workgroup_size == std::array<std::uint32_t, 3>{256, 1, 1}));
    BOOST_CHECK_NO_THROW(ir::validate(p));
}

BOOST_AUTO_TEST_CASE(atomics_return_the_old_value_into_a_let_or_assign) {
    dsl::kernel k("atomics");
    auto hist = k.output<u32>("hist");
    auto signed_hist = k.output<i32>("signed_hist");
    auto i = k.let("i", dsl::invocation_id());
    auto old = k.let("old", dsl::atomic_add(hist, i % 16u, 1u));
    old = dsl::atomic_or(hist, 0u, i);
    old = dsl::atomic_and(hist, 0u, 0xffu);
    old = dsl::atomic_xor(hist, 0u, 1);
    old = dsl::atomic_min(hist, 1u, i);
    old = dsl::atomic_max(hist, 1u, i);
    k.assign(old, dsl::atomic_exchange(hist, 2u, 9u));
    old = dsl::atomic_compare_exchange(hist, 3u, 0u, i);
    k.let("s", dsl::atomic_add(signed_hist, 0u, -1));
    const ir::program p = k.program();

    const auto h = *p.find_buffer("hist");
    const auto sh = *p.find_buffer("signed_hist");
    using ir::atomic_op;
    const std::vector<ir::node> want = {
        ir::let("i", ir::invocation_id(0)),
        ir::let("old", ir::atomic(atomic_op::add, h, ir::binary(ir::bin_op::mod, v("i"), ir::lit_u32(16)), ir::lit_u32(1))),
        ir::assign("old", ir::atomic(atomic_op::bit_or, h, ir::lit_u32(0), v("i"))),
        ir::assign("old", ir::atomic(atomic_op::bit_and, h, ir::lit_u32(0), ir::lit_u32(0xff))),
        ir::assign("old", ir::atomic(atomic_op::bit_xor, h, ir::lit_u32(0), ir::lit_u32(1))),
        ir::assign("old", ir::atomic(atomic_op::min, h, ir::lit_u32(1), v("i"))),
        ir::assign("old", ir::atomic(atomic_op::max, h, ir::lit_u32(1), v("i"))),
        ir::assign("old", ir::atomic(atomic_op::exchange, h, ir::lit_u32(2), ir::lit_u32(9))),
        ir::assign("old", ir::atomic_compare_exchange(h, ir::lit_u32(3), ir::lit_u32(0), v("i"))),
        ir::let("s", ir::atomic(atomic_op::add, sh, ir::lit_u32(0), ir::lit_i32(-1))),
    };
    BOOST_TEST((p.body == want), "dsl:\n" << p);
    BOOST_CHECK_NO_THROW(ir::validate(p));
}

BOOST_AUTO_TEST_CASE(control_flow_equals_the_ir_builders) {
    dsl::kernel k("flow", {64, 1, 1});
    auto in = k.input<u32>("in");
    auto out = k.output<u32>("out");
    auto i = k.let("i", dsl::invocation_id());
    k.if_(i >= in.size(), [&] { k.return_(); });
    auto acc = k.let("acc", 0u);
    k.for_("j", 0u, 8u, [&](auto j) {
        k.if_(j == 3u, [&] { k.continue_(); }).else_([&] { acc = acc + in[(i + j) % in.size()]; });
        k.if_(acc > 1000u, [&] { k.break_(); });
    });
    auto n = k.let("n", acc);
    k.while_(n != 0u, [&] {
        n = n >> 1u;
        acc = acc ^ n;
    });
    k.block([&] {
        auto tmp = k.let("tmp", acc * 2u);
        k.store(out, i, tmp);
    });
    const ir::program p = k.program();

    using ir::bin_op;
    const auto din = *p.find_buffer("in");
    const auto dout = *p.find_buffer("out");
    const auto lit = ir::lit_u32;
    const std::vector<ir::node> want = {
        ir::let("i", ir::invocation_id(0)),
        ir::if_(ir::binary(bin_op::ge, v("i"), ir::buf_len(din)), {ir::return_()}),
        ir::let("acc", lit(0)),
        ir::loop("j", lit(0), lit(8),
                 {ir::if_(ir::binary(bin_op::eq, v("j"), lit(3)), {ir::continue_()},
                          {ir::assign("acc", ir::binary(bin_op::add, v("acc"),
                                                        ir::load(din, ir::binary(bin_op::mod, ir::binary(bin_op::add, v("i"), v("j")),
                                                                                 ir::buf_len(din)))))}),
                  ir::if_(ir::binary(bin_op::gt, v("acc"), lit(1000)), {ir::break_()})}),
        ir::let("n", v("acc")),
        ir::while_(ir::binary(bin_op::ne, v("n"), lit(0)),
                   {ir::assign("n", ir::binary(bin_op::shr, v("n"), lit(1))),
                    ir::assign("acc", ir::binary(bin_op::bit_xor, v("acc"), v("n")))}),
        ir::block({ir::let("tmp", ir::binary(bin_op::mul, v("acc"), lit(2))), ir::store(dout, v("i"), v("tmp"))}),
    };
    BOOST_TEST((p.body == want), "dsl:\n" << p);
    BOOST_CHECK_NO_THROW(ir::validate(p));
}

BOOST_AUTO_TEST_CASE(loop_bounds_take_the_type_of_an_expression_bound) {
    dsl::kernel k("bounds");
    auto in = k.input<u64>("in");
    auto total = k.let("total", dsl::lit<u64>(0));
    k.for_("j", 1u, in.size(), [&](auto j) { total = total + in[j]; });
    auto big = k.let("big", dsl::cast<u64>(in.size()));
    k.for_("w", 0, big, [&](auto w) { total = total ^ w; }); // the literal 0 takes the bound's u64 type
    const ir::program p = k.program();
    const auto din = *p.find_buffer("in");
    constexpr auto W = ir::data_type::u64;
    BOOST_TEST((p.body.at(1) == ir::loop("j", ir::lit_u32(1), ir::buf_len(din),
                                         {ir::assign("total", ir::binary(ir::bin_op::add, v("total", W), ir::load(din, v("j"))))})));
    BOOST_TEST((p.body.at(3) == ir::loop("w", ir::lit_u64(0), v("big", W),
                                         {ir::assign("total", ir::binary(ir::bin_op::bit_xor, v("total", W), v("w", W)))})));
    BOOST_CHECK_NO_THROW(ir::validate(p));
}

BOOST_AUTO_TEST_CASE(assigning_one_handle_to_another_records_an_assign) {
    dsl::kernel k("handles");
    auto a = k.let("a", 1u);
    auto b = k.let("b", 2u);
    a = b; // not a re-binding of the handle
    k.assign(b, 7);
    auto c = a; // a copy is the same variable
    c = c + b;
    const ir::program p = k.program();
    BOOST_TEST(p.body.size() == 5u);
    BOOST_TEST((p.body.at(2) == ir::assign("a", v("b"))));
    BOOST_TEST((p.body.at(3) == ir::assign("b", ir::lit_u32(7))));
    BOOST_TEST((p.body.at(4) == ir::assign("a", ir::binary(ir::bin_op::add, v("a"), v("b")))));
    BOOST_TEST(a.name() == "a");
}

BOOST_AUTO_TEST_CASE(workgroup_buffers_and_barriers) {
    // A workgroup sum of 64 values: load into on-chip memory, then halve the active range.
    dsl::kernel k("tile_sum", {64, 1, 1});
    auto in = k.input<u32>("in");
    auto out = k.output<u32>("out");
    auto tile = k.workgroup<u32>("tile", 64);
    auto lid = k.let("lid", dsl::local_id());
    k.store(tile, lid, in[dsl::invocation_id()]);
    k.barrier();
    auto stride = k.let("stride", 32u);
    k.while_(stride > 0u, [&] {
        k.if_(lid < stride, [&] { k.store(tile, lid, tile[lid] + tile[lid + stride]); });
        k.barrier();
        stride = stride >> 1u;
    });
    k.if_(lid == 0u, [&] { k.store(out, dsl::workgroup_id(), tile[0u]); });
    const ir::program p = k.program();

    using ir::bin_op;
    const auto din = *p.find_buffer("in");
    const auto dout = *p.find_buffer("out");
    const auto dtile = ir::buffer_decl::workgroup("tile", 64, ir::data_type::u32);
    BOOST_TEST((*p.find_buffer("tile") == dtile));
    const std::vector<ir::node> want = {
        ir::let("lid", ir::local_id(0)),
        ir::store(dtile, v("lid"), ir::load(din, ir::invocation_id(0))),
        ir::barrier(),
        ir::let("stride", ir::lit_u32(32)),
        ir::while_(ir::binary(bin_op::gt, v("stride"), ir::lit_u32(0)),
                   {ir::if_(ir::binary(bin_op::lt, v("lid"), v("stride")),
                            {ir::store(dtile, v("lid"), ir::binary(bin_op::add, ir::load(dtile, v("lid")),
                                                                   ir::load(dtile, ir::binary(bin_op::add, v("lid"), v("stride")))))}),
                    ir::barrier(), ir::assign("stride", ir::binary(bin_op::shr, v("stride"), ir::lit_u32(1)))}),
        ir::if_(ir::binary(bin_op::eq, v("lid"), ir::lit_u32(0)), {ir::store(dout, ir::workgroup_id(0), ir::load(dtile, ir::lit_u32(0)))}),
    };
    BOOST_TEST((p.body == want), "dsl:\n" << p);
    BOOST_CHECK_NO_THROW(ir::validate(p));
}

BOOST_AUTO_TEST_CASE(functions_declare_and_call) {
    dsl::kernel k("calls");
    auto in = k.input<u32>("in");
    auto out = k.output<u32>("out");
    auto rotl = k.function<u32(u32, u32)>("rotl", {"x", "n"},
                                          [](auto x, auto n) { return (x << (n & 31u)) | (x >> ((32u - n) & 31u)); });
    auto is_odd = k.function<boolean(u32)>("is_odd", {"x"}, [](auto x) { return (x & 1u) == 1u; });
    auto one = k.function<u64()>("one", {}, [] { return 1u; }); // a C++ value takes the result type
    auto i = k.let("i", dsl::invocation_id());
    k.if_(is_odd(i), [&] { k.store(out, i, rotl(in[i], 8)); });
    k.let("o", one());
    const ir::program p = k.program();

    using ir::bin_op;
    const auto lit = ir::lit_u32;
    const ir::function want_rotl{
        "rotl", {{"x", ir::data_type::u32}, {"n", ir::data_type::u32}}, ir::data_type::u32,
        ir::binary(bin_op::bit_or, ir::binary(bin_op::shl, v("x"), ir::binary(bin_op::bit_and, v("n"), lit(31))),
                   ir::binary(bin_op::shr, v("x"), ir::binary(bin_op::bit_and, ir::binary(bin_op::sub, lit(32), v("n")), lit(31))))};
    const ir::function want_odd{"is_odd", {{"x", ir::data_type::u32}}, ir::data_type::boolean,
                                ir::binary(bin_op::eq, ir::binary(bin_op::bit_and, v("x"), lit(1)), lit(1))};
    const ir::function want_one{"one", {}, ir::data_type::u64, ir::lit_u64(1)};
    BOOST_TEST((p.functions == std::vector<ir::function>{want_rotl, want_odd, want_one}), "dsl:\n" << p);
    const auto din = *p.find_buffer("in");
    const auto dout = *p.find_buffer("out");
    BOOST_TEST((p.body.at(1) == ir::if_(ir::call("is_odd", ir::data_type::boolean, {v("i")}),
                                        {ir::store(dout, v("i"), ir::call("rotl", ir::data_type::u32, {ir::load(din, v("i")), lit(8)}))})));
    BOOST_TEST((p.body.at(2) == ir::let("o", ir::call("one", ir::data_type::u64, {}))));
    BOOST_TEST(rotl.name() == "rotl");
    BOOST_CHECK_NO_THROW(ir::validate(p));
}

BOOST_AUTO_TEST_CASE(runtime_rules_are_left_to_validate) {
    // The DSL checks types; names and scopes need the whole program, so validate reports them.
    dsl::kernel k("twice");
    k.let("x", 1u);
    k.let("x", 2u);
    BOOST_CHECK_THROW(ir::validate(k.program()), vyre::validation_error);

    dsl::kernel divergent("divergent");
    auto i = divergent.let("i", dsl::invocation_id());
    divergent.if_(i == 0u, [&] { divergent.barrier(); });
    BOOST_CHECK_THROW(ir::validate(divergent.program()), vyre::validation_error);

    // Bytes in workgroup memory are held in whole words: the count must be a multiple of 4.
    dsl::kernel ragged("ragged");
    ragged.workgroup<dsl::bytes>("ring", 30);
    BOOST_CHECK_THROW(ir::validate(ragged.program()), vyre::validation_error);
    dsl::kernel whole("whole");
    whole.workgroup<dsl::bytes>("ring", 32);
    BOOST_CHECK_NO_THROW(ir::validate(whole.program()));
}

BOOST_AUTO_TEST_CASE(the_builder_recovers_from_a_throwing_body) {
    dsl::kernel k("recover");
    BOOST_CHECK_THROW(k.if_(true, [&] {
        BOOST_CHECK_THROW((void)k.program(), std::logic_error); // inside a body: not a whole program
        k.return_();
        throw std::runtime_error("user code failed");
    }),
                      std::runtime_error);
    k.return_();
    const ir::program p = k.program();
    BOOST_TEST((p.body == std::vector<ir::node>{ir::return_()}));
}

VYRE_TEST_MAIN
