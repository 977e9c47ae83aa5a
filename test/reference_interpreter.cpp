// The reference interpreter, the definition of IR semantics: every op on edge values, casts,
// buffer kinds and bounds, atomics, control flow, lockstep workgroups, calls, ids and errors.
// Expected values come from hand-computed constants or independent C++ (in 64-bit arithmetic),
// never from the interpreter itself.
#include "harness.hpp"

#include <vyre/reference/interpreter.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace ir = vyre::ir;
namespace ref = vyre::reference;
using ir::bin_op;
using ir::data_type;
using ir::un_op;

namespace {

constexpr std::uint32_t int_min = 0x80000000u;
constexpr std::uint32_t int_max = 0x7fffffffu;

ir::buffer_decl rw(const std::string& n, std::uint32_t binding, data_type t) {
    return ir::buffer_decl::storage(n, binding, ir::buffer_access::read_write, t);
}
ir::buffer_decl ro(const std::string& n, std::uint32_t binding, data_type t) {
    return ir::buffer_decl::storage(n, binding, ir::buffer_access::read_only, t);
}

// Little-endian encoding written out by hand, independent of the interpreter's.
ref::buffer_data encode(const std::vector<std::uint64_t>& values, unsigned width) {
    ref::buffer_data out;
    for (auto v : values)
        for (unsigned i = 0; i < width; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
    return out;
}
std::vector<std::uint64_t> decode(const ref::buffer_data& d, unsigned width) {
    std::vector<std::uint64_t> out(d.size() / width);
    for (std::size_t k = 0; k < out.size(); ++k)
        for (unsigned i = 0; i < width; ++i) out[k] |= std::uint64_t(d[k * width + i]) << (8 * i);
    return out;
}
ref::buffer_data words(std::vector<std::uint64_t> v) { return encode(v, 4); }
std::vector<std::uint64_t> words_of(const ref::buffer_data& d) { return decode(d, 4); }

ir::program make(std::vector<ir::buffer_decl> buffers, std::vector<ir::node> body,
                 std::array<std::uint32_t, 3> wg = {1, 1, 1}, std::vector<ir::function> fns = {}) {
    ir::program p;
    p.name = "t";
    p.buffers = std::move(buffers);
    p.workgroup_size = wg;
    p.functions = std::move(fns);
    p.body = std::move(body);
    return p;
}

// Evaluates one expression in one invocation by storing it into a one-element buffer.
std::uint64_t eval(const ir::expr& e, std::vector<ir::function> fns = {}) {
    const auto out = rw("out", 0, e.type);
    const auto p = make({out}, {ir::store(out, ir::lit_u32(0), e)}, {1, 1, 1}, std::move(fns));
    std::vector<ref::buffer_data> bufs{ref::buffer_data(ir::min_bytes(e.type), 0xCD)};
    ref::run(p, {1, 1, 1}, bufs);
    return decode(bufs[0], ir::min_bytes(e.type)).at(0);
}

ir::expr u(std::uint32_t v) { return ir::lit_u32(v); }
ir::expr i(std::int32_t v) { return ir::lit_i32(v); }
ir::expr q(std::uint64_t v) { return ir::lit_u64(v); }
ir::expr b(bool v) { return ir::lit_bool(v); }
ir::expr lit(data_type t, std::uint64_t v) {
    switch (t) {
    case data_type::u64: return q(v);
    case data_type::boolean: return b(v != 0);
    case data_type::i32: return i(std::int32_t(std::uint32_t(v)));
    default: return u(std::uint32_t(v));
    }
}
ir::expr bin(bin_op op, ir::expr l, ir::expr r) { return ir::binary(op, std::move(l), std::move(r)); }
ir::expr un(un_op op, ir::expr x) { return ir::unary(op, std::move(x)); }
ir::expr v(const std::string& n, data_type t = data_type::u32) { return ir::var(n, t); }

// ---- independent expectations -----------------------------------------------------------------

std::uint64_t expect_binary(bin_op op, data_type t, std::uint64_t a, std::uint64_t b) {
    const bool sgn = t == data_type::i32;
    const unsigned width = t == data_type::u64 ? 64 : 32;
    const std::uint64_t m = width == 64 ? ~0ULL : 0xffffffffULL;
    // I32 operands as mathematical integers; 64-bit arithmetic cannot overflow on them.
    const std::int64_t sa = std::int32_t(std::uint32_t(a)), sb = std::int32_t(std::uint32_t(b));
    switch (op) {
    case bin_op::add: return (a + b) & m;
    case bin_op::sub: return (a - b) & m;
    case bin_op::mul: return sgn ? std::uint64_t(sa * sb) & m : (a * b) & m;
    case bin_op::div:
        if (b == 0) return a;
        return sgn ? std::uint64_t(sa / sb) & m : a / b; // INT_MIN / -1 = 2^31, which wraps to INT_MIN
    case bin_op::mod:
        if (b == 0) return 0;
        return sgn ? std::uint64_t(sa % sb) & m : a % b;
    case bin_op::bit_and:
    case bin_op::logical_and: return a & b;
    case bin_op::bit_or:
    case bin_op::logical_or: return a | b;
    case bin_op::bit_xor: return a ^ b;
    case bin_op::shl: return (a << (b % width)) & m;
    case bin_op::shr: return sgn ? std::uint64_t(sa >> (b % width)) & m : a >> (b % width);
    case bin_op::eq: return a == b;
    case bin_op::ne: return a != b;
    case bin_op::lt: return sgn ? sa < sb : a < b;
    case bin_op::le: return sgn ? sa <= sb : a <= b;
    case bin_op::gt: return sgn ? sa > sb : a > b;
    case bin_op::ge: return sgn ? sa >= sb : a >= b;
    case bin_op::min: return sgn ? std::uint64_t(std::min(sa, sb)) & m : std::min(a, b);
    case bin_op::max: return sgn ? std::uint64_t(std::max(sa, sb)) & m : std::max(a, b);
    case bin_op::abs_diff: return sgn ? std::uint64_t(sa > sb ? sa - sb : sb - sa) & m : (a > b ? a - b : b - a);
    }
    return 0;
}

std::uint64_t expect_unary(un_op op, data_type t, std::uint64_t a) {
    const unsigned width = t == data_type::u64 ? 64 : 32;
    const std::uint64_t m = width == 64 ? ~0ULL : 0xffffffffULL;
    auto bit = [&](unsigned k) { return (a >> k) & 1; };
    std::uint64_t r = 0;
    switch (op) {
    case un_op::negate: return (~a + 1) & m;
    case un_op::bit_not: return ~a & m;
    case un_op::logical_not: return a ? 0 : 1;
    case un_op::popcount:
        for (unsigned k = 0; k < width; ++k) r += bit(k);
        return r;
    case un_op::clz:
        while (r < width && !bit(unsigned(width - 1 - r))) ++r;
        return r;
    case un_op::ctz:
        while (r < width && !bit(unsigned(r))) ++r;
        return r;
    case un_op::reverse_bits:
        for (unsigned k = 0; k < width; ++k) r |= bit(k) << (width - 1 - k);
        return r;
    }
    return 0;
}

const std::vector<std::uint64_t> edges32 = {0, 1, 2, 3, 7, 31, 32, 33, int_max, int_min, 0x80000001u,
                                            0xfffffff9u, 0xfffffffeu, 0xffffffffu, 0x12345678u};
const std::vector<std::uint64_t> edges64 = {0, 1, 2, 31, 32, 33, 63, 64, 65, 0x7fffffff, 0x80000000, 0xffffffff,
                                            0x100000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
                                            0xfffffffffffffffeULL, 0xffffffffffffffffULL, 0x123456789abcdef0ULL};

// Runs op over every pair of edge values at once: one invocation per pair, operands loaded from
// buffers (extra invocations of the last workgroup load and store out of bounds: no effect).
void check_binary_table(data_type t, const std::vector<std::uint64_t>& edges, std::vector<bin_op> ops) {
    std::vector<std::uint64_t> as, bs;
    for (auto a : edges)
        for (auto b : edges) {
            as.push_back(a);
            bs.push_back(b);
        }
    const std::uint32_t n = std::uint32_t(as.size());
    const unsigned w = ir::min_bytes(t);
    for (auto op : ops) {
        const data_type rt = ir::binary_result(op, t);
        const auto a = ro("a", 0, t), bb = ro("b", 1, t), out = rw("out", 2, rt);
        const auto id = ir::invocation_id(0);
        const auto p = make({a, bb, out}, {ir::store(out, id, bin(op, ir::load(a, id), ir::load(bb, id)))}, {16, 1, 1});
        std::vector<ref::buffer_data> bufs{encode(as, w), encode(bs, w), ref::buffer_data(n * ir::min_bytes(rt), 0xCD)};
        ref::run(p, {(n + 15) / 16, 1, 1}, bufs);
        const auto got = decode(bufs[2], ir::min_bytes(rt));
        int errors = 0;
        for (std::uint32_t k = 0; k < n && errors < 5; ++k) {
            const auto want = expect_binary(op, t, as[k], bs[k]);
            if (got[k] != want) {
                ++errors;
                BOOST_ERROR(ir::name(op) << " " << ir::name(t) << " " << std::hex << as[k] << ", " << bs[k] << ": got "
                                         << got[k] << ", want " << want);
            }
        }
        BOOST_TEST(errors == 0);
    }
}

void check_unary_table(data_type t, const std::vector<std::uint64_t>& edges, std::vector<un_op> ops) {
    for (auto op : ops)
        for (auto a : edges) {
            BOOST_TEST_CONTEXT(ir::name(op) << " " << ir::name(t) << " " << std::hex << a) {
                BOOST_TEST(eval(un(op, lit(t, a))) == expect_unary(op, t, a));
            }
        }
}

const std::vector<bin_op> integer_ops = {bin_op::add, bin_op::sub, bin_op::mul, bin_op::div, bin_op::mod,
                                         bin_op::bit_and, bin_op::bit_or, bin_op::bit_xor, bin_op::shl, bin_op::shr,
                                         bin_op::eq, bin_op::ne, bin_op::lt, bin_op::le, bin_op::gt, bin_op::ge,
                                         bin_op::min, bin_op::max, bin_op::abs_diff};
const std::vector<un_op> integer_unary = {un_op::negate, un_op::bit_not, un_op::popcount, un_op::clz, un_op::ctz,
                                          un_op::reverse_bits};

} // namespace

// ---- operators ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(binary_ops_on_edge_values) {
    check_binary_table(data_type::u32, edges32, integer_ops);
    check_binary_table(data_type::i32, edges32, integer_ops);
    check_binary_table(data_type::u64, edges64, integer_ops);
    check_binary_table(data_type::boolean, {0, 1},
                       {bin_op::eq, bin_op::ne, bin_op::logical_and, bin_op::logical_or, bin_op::bit_and,
                        bin_op::bit_or, bin_op::bit_xor});
}

BOOST_AUTO_TEST_CASE(binary_ops_named_cases) {
    // Division and remainder by zero, INT_MIN / -1.
    BOOST_TEST(eval(bin(bin_op::div, u(7), u(0))) == 7u);
    BOOST_TEST(eval(bin(bin_op::mod, u(7), u(0))) == 0u);
    BOOST_TEST(eval(bin(bin_op::div, i(-7), i(0))) == 0xfffffff9u);
    BOOST_TEST(eval(bin(bin_op::mod, i(-7), i(0))) == 0u);
    BOOST_TEST(eval(bin(bin_op::div, q(~0ULL), q(0))) == ~0ULL);
    BOOST_TEST(eval(bin(bin_op::div, i(INT32_MIN), i(-1))) == int_min);
    BOOST_TEST(eval(bin(bin_op::mod, i(INT32_MIN), i(-1))) == 0u);
    BOOST_TEST(eval(bin(bin_op::div, i(-7), i(2))) == std::uint32_t(-3));
    BOOST_TEST(eval(bin(bin_op::mod, i(-7), i(2))) == std::uint32_t(-1));
    BOOST_TEST(eval(bin(bin_op::mod, i(7), i(-2))) == 1u);
    BOOST_TEST(eval(bin(bin_op::div, u(0xfffffff9u), u(2))) == 0x7ffffffcu); // unsigned
    // Wrapping.
    BOOST_TEST(eval(bin(bin_op::add, u(0xffffffffu), u(1))) == 0u);
    BOOST_TEST(eval(bin(bin_op::add, i(INT32_MAX), i(1))) == int_min);
    BOOST_TEST(eval(bin(bin_op::mul, u(0x10000), u(0x10000))) == 0u);
    BOOST_TEST(eval(bin(bin_op::sub, q(0), q(1))) == ~0ULL);
    BOOST_TEST(eval(bin(bin_op::mul, q(0x100000000ULL), q(0x100000000ULL))) == 0u);
    // Shifts: the amount is masked to the width.
    BOOST_TEST(eval(bin(bin_op::shl, u(1), u(0))) == 1u);
    BOOST_TEST(eval(bin(bin_op::shl, u(1), u(31))) == 0x80000000u);
    BOOST_TEST(eval(bin(bin_op::shl, u(1), u(32))) == 1u);
    BOOST_TEST(eval(bin(bin_op::shl, u(1), u(33))) == 2u);
    BOOST_TEST(eval(bin(bin_op::shr, u(0x80000000u), u(31))) == 1u);
    BOOST_TEST(eval(bin(bin_op::shr, i(INT32_MIN), i(31))) == 0xffffffffu);
    BOOST_TEST(eval(bin(bin_op::shr, i(INT32_MIN), i(32))) == int_min);
    BOOST_TEST(eval(bin(bin_op::shr, i(INT32_MIN), i(33))) == 0xc0000000u);
    BOOST_TEST(eval(bin(bin_op::shr, i(-8), i(-1))) == 0xffffffffu); // -1 & 31 == 31
    BOOST_TEST(eval(bin(bin_op::shl, q(1), q(63))) == 0x8000000000000000ULL);
    BOOST_TEST(eval(bin(bin_op::shl, q(1), q(64))) == 1u);
    BOOST_TEST(eval(bin(bin_op::shr, q(0x8000000000000000ULL), q(63))) == 1u); // logical for U64
    BOOST_TEST(eval(bin(bin_op::shl, q(1), q(32))) == 0x100000000ULL);
    // Signedness of comparisons, min and max.
    BOOST_TEST(eval(bin(bin_op::lt, i(-1), i(0))) == 1u);
    BOOST_TEST(eval(bin(bin_op::lt, u(0xffffffffu), u(0))) == 0u);
    BOOST_TEST(eval(bin(bin_op::min, i(-1), i(1))) == 0xffffffffu);
    BOOST_TEST(eval(bin(bin_op::min, u(0xffffffffu), u(1))) == 1u);
    BOOST_TEST(eval(bin(bin_op::max, i(INT32_MIN), i(INT32_MAX))) == int_max);
    BOOST_TEST(eval(bin(bin_op::ge, q(0x8000000000000000ULL), q(1))) == 1u);
    // AbsDiff: without overflow, as the operand type's bits.
    BOOST_TEST(eval(bin(bin_op::abs_diff, i(INT32_MIN), i(INT32_MAX))) == 0xffffffffu);
    BOOST_TEST(eval(bin(bin_op::abs_diff, i(-5), i(3))) == 8u);
    BOOST_TEST(eval(bin(bin_op::abs_diff, u(0), u(0xffffffffu))) == 0xffffffffu);
    BOOST_TEST(eval(bin(bin_op::abs_diff, u(3), u(10))) == 7u);
    BOOST_TEST(eval(bin(bin_op::abs_diff, q(0), q(~0ULL))) == ~0ULL);
    // Bool.
    BOOST_TEST(eval(bin(bin_op::logical_and, b(true), b(false))) == 0u);
    BOOST_TEST(eval(bin(bin_op::logical_or, b(true), b(false))) == 1u);
    BOOST_TEST(eval(bin(bin_op::bit_xor, b(true), b(true))) == 0u);
    BOOST_TEST(eval(bin(bin_op::eq, b(false), b(false))) == 1u);
}

BOOST_AUTO_TEST_CASE(unary_ops_on_edge_values) {
    check_unary_table(data_type::u32, edges32, integer_unary);
    check_unary_table(data_type::i32, edges32, integer_unary);
    check_unary_table(data_type::u64, edges64, integer_unary);
    check_unary_table(data_type::boolean, {0, 1}, {un_op::logical_not});
    // Named cases.
    BOOST_TEST(eval(un(un_op::clz, u(0))) == 32u);
    BOOST_TEST(eval(un(un_op::ctz, u(0))) == 32u);
    BOOST_TEST(eval(un(un_op::clz, q(0))) == 64u);
    BOOST_TEST(eval(un(un_op::ctz, q(0))) == 64u);
    BOOST_TEST(eval(un(un_op::clz, u(1))) == 31u);
    BOOST_TEST(eval(un(un_op::clz, i(-1))) == 0u);
    BOOST_TEST(eval(un(un_op::ctz, u(0x80000000u))) == 31u);
    BOOST_TEST(eval(un(un_op::ctz, q(0x100000000ULL))) == 32u);
    BOOST_TEST(eval(un(un_op::popcount, i(-1))) == 32u);
    BOOST_TEST(eval(un(un_op::popcount, q(~0ULL))) == 64u);
    BOOST_TEST(eval(un(un_op::reverse_bits, u(1))) == 0x80000000u);
    BOOST_TEST(eval(un(un_op::reverse_bits, u(0x12345678u))) == 0x1e6a2c48u);
    BOOST_TEST(eval(un(un_op::reverse_bits, q(1))) == 0x8000000000000000ULL);
    BOOST_TEST(eval(un(un_op::reverse_bits, q(0x00000000000000f0ULL))) == 0x0f00000000000000ULL);
    BOOST_TEST(eval(un(un_op::negate, i(INT32_MIN))) == int_min);
    BOOST_TEST(eval(un(un_op::negate, u(1))) == 0xffffffffu);
    BOOST_TEST(eval(un(un_op::negate, q(1))) == ~0ULL);
    BOOST_TEST(eval(un(un_op::bit_not, u(0))) == 0xffffffffu);
    BOOST_TEST(eval(un(un_op::logical_not, b(false))) == 1u);
}

BOOST_AUTO_TEST_CASE(casts_and_select) {
    auto cast = [](data_type t, ir::expr e) { return ir::cast(t, std::move(e)); };
    BOOST_TEST(eval(cast(data_type::i32, u(0xffffffffu))) == 0xffffffffu);
    BOOST_TEST(eval(cast(data_type::u32, i(-2))) == 0xfffffffeu);
    BOOST_TEST(eval(cast(data_type::u64, u(0xffffffffu))) == 0xffffffffULL);       // zero-extends
    BOOST_TEST(eval(cast(data_type::u64, i(-1))) == 0xffffffffffffffffULL);        // sign-extends
    BOOST_TEST(eval(cast(data_type::u64, i(INT32_MAX))) == 0x7fffffffULL);
    BOOST_TEST(eval(cast(data_type::u64, i(INT32_MIN))) == 0xffffffff80000000ULL);
    BOOST_TEST(eval(cast(data_type::u32, q(0x123456789abcdef0ULL))) == 0x9abcdef0u); // truncates
    BOOST_TEST(eval(cast(data_type::i32, q(0xffffffff80000000ULL))) == int_min);
    BOOST_TEST(eval(cast(data_type::u32, b(true))) == 1u);
    BOOST_TEST(eval(cast(data_type::i32, b(true))) == 1u);
    BOOST_TEST(eval(cast(data_type::u64, b(true))) == 1u);
    BOOST_TEST(eval(cast(data_type::u32, b(false))) == 0u);
    BOOST_TEST(eval(cast(data_type::boolean, u(0))) == 0u);
    BOOST_TEST(eval(cast(data_type::boolean, u(0x100u))) == 1u);
    BOOST_TEST(eval(cast(data_type::boolean, i(INT32_MIN))) == 1u);
    BOOST_TEST(eval(cast(data_type::boolean, q(0x100000000ULL))) == 1u); // high bits count
    BOOST_TEST(eval(cast(data_type::u32, cast(data_type::u64, i(-3)))) == 0xfffffffdu);
    // A cast result is masked to its width before further arithmetic.
    BOOST_TEST(eval(bin(bin_op::shr, cast(data_type::u32, q(0xffffffff00000000ULL)), u(1))) == 0u);
    BOOST_TEST(eval(bin(bin_op::add, cast(data_type::u32, b(true)), u(0xffffffffu))) == 0u);

    BOOST_TEST(eval(ir::select(b(true), u(1), u(2))) == 1u);
    BOOST_TEST(eval(ir::select(b(false), u(1), u(2))) == 2u);
    BOOST_TEST(eval(ir::select(bin(bin_op::lt, i(-1), i(0)), q(~0ULL), q(5))) == ~0ULL);
    BOOST_TEST(eval(ir::select(b(false), b(true), b(false))) == 0u);
    // Literals keep the low 32 bits of 32-bit types.
    BOOST_TEST(eval(i(-1)) == 0xffffffffu);
    BOOST_TEST(eval(q(0xfedcba9876543210ULL)) == 0xfedcba9876543210ULL);
}

// ---- buffers -------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(out_of_bounds_load_is_zero_and_store_is_ignored) {
    const auto in = ro("in", 0, data_type::u32), out = rw("out", 1, data_type::u32);
    const auto p = make({in, out},
                        {ir::store(out, u(0), ir::load(in, u(3))), ir::store(out, u(1), ir::load(in, u(4))),
                         ir::store(out, u(2), ir::load(in, u(0xffffffffu))), ir::store(out, u(3), ir::buf_len(in)),
                         ir::store(out, u(4), u(77)), ir::store(out, u(0xffffffffu), u(78))});
    std::vector<ref::buffer_data> bufs{words({10, 11, 12, 13}), words({9, 9, 9, 9})};
    ref::run(p, {1, 1, 1}, bufs);
    BOOST_TEST(words_of(bufs[1]) == (std::vector<std::uint64_t>{13, 0, 0, 4}), boost::test_tools::per_element());
    BOOST_TEST(bufs[1].size() == 16u);
    BOOST_TEST(words_of(bufs[0]) == (std::vector<std::uint64_t>{10, 11, 12, 13}), boost::test_tools::per_element());
}

// An unchecked access (ir::bounds) is the program's promise; the interpreter holds it to that,
// naming the buffer and the index, where a checked one would read zero or do nothing.
BOOST_AUTO_TEST_CASE(unchecked_accesses_out_of_bounds_are_refused) {
    const auto in = ro("in", 0, data_type::u32), out = rw("out", 1, data_type::u32), by = rw("by", 2, data_type::bytes);
    const auto un = ir::bounds::unchecked;
    const auto run_one = [&](ir::node n) {
        std::vector<ref::buffer_data> bufs{words({10, 11, 12, 13}), words({9, 9, 9, 9}), words({0})};
        ref::run(make({in, out, by}, {std::move(n)}), {1, 1, 1}, bufs);
        return words_of(bufs[1]);
    };
    BOOST_TEST(run_one(ir::store(out, u(3), ir::load(in, u(2), un), un)) == (std::vector<std::uint64_t>{9, 9, 9, 12}),
               boost::test_tools::per_element());
    const auto refused = [&](ir::node n, const std::string& what) {
        try {
            run_one(std::move(n));
            BOOST_ERROR("no error for " << what);
        } catch (const vyre::validation_error& e) {
            BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
        }
    };
    refused(ir::store(out, u(0), ir::load(in, u(4), un)), "unchecked load of in[4] is out of bounds (4 elements)");
    refused(ir::store(out, u(4), u(1), un), "unchecked store to out[4] is out of bounds (4 elements)");
    refused(ir::store(by, u(4), u(1), un), "unchecked store to by[4] is out of bounds (4 elements)");
    refused(ir::store(out, u(0), ir::load(by, u(0xffffffffu), un)), "unchecked load of by[4294967295]");
    // A little-endian U32 load is four byte loads: by holds 4 bytes, so index 1 reaches by[4].
    refused(ir::store(out, u(0), ir::load_u32_le(by, u(1), un)), "unchecked load of by[4] is out of bounds (4 elements)");
    // The same accesses checked: zero and nothing.
    BOOST_TEST(run_one(ir::store(out, u(0), ir::load(in, u(4)))) == (std::vector<std::uint64_t>{0, 9, 9, 9}),
               boost::test_tools::per_element());
    // The text form tells them apart, so programs that differ only there hash differently.
    const auto a = make({in, out, by}, {ir::store(out, u(0), ir::load(in, u(1), un), un)});
    const auto b = make({in, out, by}, {ir::store(out, u(0), ir::load(in, u(1)))});
    BOOST_TEST(ir::to_string(a).find("in[1u unchecked]") != std::string::npos, ir::to_string(a));
    BOOST_TEST(ir::to_string(a).find("out[0u unchecked] =") != std::string::npos);
    const auto w = make({in, out, by}, {ir::store(out, u(0), ir::load_u32_le(by, u(0), un))});
    BOOST_TEST(ir::to_string(w).find("by.u32_le[0u unchecked]") != std::string::npos, ir::to_string(w));
    BOOST_TEST(ir::hash(a) != ir::hash(b));
}

BOOST_AUTO_TEST_CASE(bytes_buffers_are_little_endian_byte_views) {
    const auto in = ro("in", 0, data_type::bytes), out = rw("out", 1, data_type::u32), by = rw("by", 2, data_type::bytes);
    std::vector<ir::node> body;
    body.push_back(ir::loop("k", u(0), u(9), {ir::store(out, v("k"), ir::load(in, v("k")))})); // byte 8 is out of bounds
    body.push_back(ir::store(out, u(9), ir::buf_len(in)));
    body.push_back(ir::store(by, u(5), u(0x1ab)));   // low 8 bits only
    body.push_back(ir::store(by, u(0), u(0xfe)));
    body.push_back(ir::store(by, u(8), u(0x55)));    // out of bounds
    body.push_back(ir::store(out, u(10), ir::buf_len(by)));
    const auto p = make({in, out, by}, body);
    std::vector<ref::buffer_data> bufs{words({0x44332211, 0x88776655}), words(std::vector<std::uint64_t>(11, 0xdead)),
                                       words({0x11111111, 0x22222222})};
    ref::run(p, {1, 1, 1}, bufs);
    BOOST_TEST(words_of(bufs[1]) ==
                   (std::vector<std::uint64_t>{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 2, 2}),
               boost::test_tools::per_element());
    BOOST_TEST(words_of(bufs[2]) == (std::vector<std::uint64_t>{0x111111fe, 0x2222ab22}), boost::test_tools::per_element());
}

// A little-endian U32 load takes bytes i..i+3 at any byte position; checked, the bytes past the
// buffer (and past index 2^32 - 1) read zero.
BOOST_AUTO_TEST_CASE(little_endian_u32_loads_at_every_byte_position) {
    const auto in = ro("in", 0, data_type::bytes), out = rw("out", 1, data_type::u32);
    std::vector<ir::node> body;
    body.push_back(ir::loop("k", u(0), u(9), {ir::store(out, v("k"), ir::load_u32_le(in, v("k")))}));
    body.push_back(ir::store(out, u(9), ir::load_u32_le(in, u(0xfffffffeu))));
    body.push_back(ir::store(out, u(10), ir::load_u32_le(in, u(3), ir::bounds::unchecked)));
    const auto p = make({in, out}, body);
    std::vector<ref::buffer_data> bufs{words({0x44332211, 0x88776655}), words(std::vector<std::uint64_t>(11, 0xdead))};
    ref::run(p, {1, 1, 1}, bufs);
    BOOST_TEST(words_of(bufs[1]) == (std::vector<std::uint64_t>{0x44332211, 0x55443322, 0x66554433, 0x77665544, 0x88776655,
                                                                0x00887766, 0x00008877, 0x00000088, 0, 0, 0x77665544}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bool_and_u64_buffers) {
    const auto in = ro("in", 0, data_type::boolean), out = rw("out", 1, data_type::boolean),
               wide = rw("wide", 2, data_type::u64);
    const auto id = ir::invocation_id(0);
    std::vector<ir::node> body;
    // A Bool load is (word != 0); a Bool store writes 0 or 1.
    body.push_back(ir::store(out, id, un(un_op::logical_not, ir::load(in, id))));
    body.push_back(ir::store(wide, id,
                             bin(bin_op::add, ir::load(wide, id), ir::cast(data_type::u64, ir::load(in, id)))));
    const auto p = make({in, out, wide}, body, {4, 1, 1});
    std::vector<ref::buffer_data> bufs{words({0, 1, 2, 0xffffffff}), words({7, 7, 7, 7}),
                                       encode({0xffffffffULL, 0x1ffffffffULL, 5, ~0ULL}, 8)};
    ref::run(p, {1, 1, 1}, bufs);
    BOOST_TEST(words_of(bufs[1]) == (std::vector<std::uint64_t>{1, 0, 0, 0}), boost::test_tools::per_element());
    BOOST_TEST(decode(bufs[2], 8) == (std::vector<std::uint64_t>{0xffffffffULL, 0x200000000ULL, 6, 0}),
               boost::test_tools::per_element());
    // The raw little-endian layout of a U64 store.
    BOOST_TEST(bufs[2][8] == 0x00);
    BOOST_TEST(bufs[2][12] == 0x02);
}

// ---- atomics -------------------------------------------------------------------------------------

namespace {

// One invocation applies `op` to element 0 (value `val`, `expected` for CompareExchange) and
// stores the returned old value in `old`. Returns {old, new element}.
std::pair<std::uint64_t, std::uint64_t> atomic_once(ir::atomic_op op, data_type t, std::uint32_t initial,
                                                    std::uint32_t val, std::uint32_t expected = 0) {
    const auto buf = rw("buf", 0, t), old = rw("old", 1, t);
    const auto value = lit(t, val);
    const auto e = op == ir::atomic_op::compare_exchange ? ir::atomic_compare_exchange(buf, u(0), lit(t, expected), value)
                                                         : ir::atomic(op, buf, u(0), value);
    const auto p = make({buf, old}, {ir::let("o", e), ir::store(old, u(0), v("o", t))});
    std::vector<ref::buffer_data> bufs{words({initial}), words({0xdead})};
    ref::run(p, {1, 1, 1}, bufs);
    return {words_of(bufs[1])[0], words_of(bufs[0])[0]};
}

} // namespace

BOOST_AUTO_TEST_CASE(atomic_ops_return_old_values) {
    using ir::atomic_op;
    using pr = std::pair<std::uint64_t, std::uint64_t>;
    const auto U = data_type::u32, I = data_type::i32;
    BOOST_TEST((atomic_once(atomic_op::add, U, 0xffffffffu, 2) == pr{0xffffffffu, 1}));
    BOOST_TEST((atomic_once(atomic_op::bit_or, U, 0xf0, 0x0f) == pr{0xf0, 0xff}));
    BOOST_TEST((atomic_once(atomic_op::bit_and, U, 0xf0, 0x3c) == pr{0xf0, 0x30}));
    BOOST_TEST((atomic_once(atomic_op::bit_xor, U, 0xff, 0x0f) == pr{0xff, 0xf0}));
    BOOST_TEST((atomic_once(atomic_op::min, U, 5, 0xffffffffu) == pr{5, 5}));
    BOOST_TEST((atomic_once(atomic_op::max, U, 5, 0xffffffffu) == pr{5, 0xffffffffu}));
    BOOST_TEST((atomic_once(atomic_op::min, I, 5, 0xffffffffu) == pr{5, 0xffffffffu})); // -1 < 5
    BOOST_TEST((atomic_once(atomic_op::max, I, 5, 0xffffffffu) == pr{5, 5}));
    BOOST_TEST((atomic_once(atomic_op::max, I, int_min, int_max) == pr{int_min, int_max}));
    BOOST_TEST((atomic_once(atomic_op::exchange, U, 17, 42) == pr{17, 42}));
    BOOST_TEST((atomic_once(atomic_op::compare_exchange, U, 17, 42, 17) == pr{17, 42}));
    BOOST_TEST((atomic_once(atomic_op::compare_exchange, U, 17, 42, 16) == pr{17, 17}));
    BOOST_TEST((atomic_once(atomic_op::compare_exchange, I, 0xfffffffeu, 3, 0xfffffffeu) == pr{0xfffffffeu, 3}));
    BOOST_TEST((atomic_once(atomic_op::add, I, int_max, 1) == pr{int_max, int_min}));
}

BOOST_AUTO_TEST_CASE(atomic_counter_over_many_invocations_and_out_of_bounds) {
    // 64 workgroups of 64: the returned tickets follow the defined order (workgroups in turn,
    // invocations in local id order), so ticket == invocation id.
    const auto ctr = rw("ctr", 0, data_type::u32), out = rw("out", 1, data_type::u32);
    const auto id = ir::invocation_id(0);
    const auto p = make({ctr, out},
                        {ir::let("t", ir::atomic(ir::atomic_op::add, ctr, u(0), u(1))), ir::store(out, id, v("t")),
                         ir::let("z", ir::atomic(ir::atomic_op::add, ctr, u(1), u(5))),          // out of bounds
                         ir::assign("z", ir::atomic(ir::atomic_op::exchange, ctr, u(7), u(5))), // out of bounds
                         ir::if_(bin(bin_op::ne, v("z"), u(0)), {ir::store(out, id, u(0xbad))})},
                        {64, 1, 1});
    const std::uint32_t n = 64 * 64;
    std::vector<ref::buffer_data> bufs{words({0}), ref::buffer_data(4 * n)};
    ref::run(p, {64, 1, 1}, bufs);
    BOOST_TEST(words_of(bufs[0]) == std::vector<std::uint64_t>{n}, boost::test_tools::per_element());
    const auto got = words_of(bufs[1]);
    std::vector<std::uint64_t> want(n);
    std::iota(want.begin(), want.end(), 0);
    BOOST_TEST(got == want, boost::test_tools::per_element());
}

// ---- control flow --------------------------------------------------------------------------------

namespace {

// Runs `body` in one invocation with a U32 result buffer `out` of 8 words (initially 0).
std::vector<std::uint64_t> run_single(std::vector<ir::node> body, std::vector<ir::buffer_decl> extra = {}) {
    std::vector<ir::buffer_decl> bufs{rw("out", 0, data_type::u32)};
    bufs.insert(bufs.end(), extra.begin(), extra.end());
    const auto p = make(bufs, std::move(body));
    std::vector<ref::buffer_data> data{words(std::vector<std::uint64_t>(8, 0))};
    ref::run(p, {1, 1, 1}, data);
    return words_of(data[0]);
}
const auto out0 = rw("out", 0, data_type::u32);

} // namespace

BOOST_AUTO_TEST_CASE(counted_loops) {
    auto sum_loop = [](ir::expr from, ir::expr to, data_type t) {
        const auto zero = lit(t, 0);
        return run_single({ir::let("s", zero),
                           ir::loop("k", std::move(from), std::move(to), {ir::assign("s", bin(bin_op::add, v("s", t), v("k", t)))}),
                           ir::store(out0, u(0), ir::cast(data_type::u32, v("s", t)))})[0];
    };
    BOOST_TEST(sum_loop(u(3), u(7), data_type::u32) == 18u);
    BOOST_TEST(sum_loop(u(5), u(5), data_type::u32) == 0u);
    BOOST_TEST(sum_loop(u(7), u(3), data_type::u32) == 0u);
    BOOST_TEST(sum_loop(u(0xffffffffu), u(1), data_type::u32) == 0u);     // unsigned: from > to
    BOOST_TEST(sum_loop(i(-3), i(2), data_type::i32) == std::uint32_t(-5)); // signed: -3..1
    BOOST_TEST(sum_loop(i(-1), i(1), data_type::i32) == 0xffffffffu);       // -1 + 0
    BOOST_TEST(sum_loop(i(1), i(-1), data_type::i32) == 0u);
    BOOST_TEST(sum_loop(u(0xfffffffdu), u(0xffffffffu), data_type::u32) == 0xfffffffbu); // up to the top, no wrap
    BOOST_TEST(sum_loop(q(0x100000000ULL), q(0x100000002ULL), data_type::u64) == 1u);    // low 32 bits of 2^33+1

    // `to` is read once: growing it inside the body does not add iterations.
    const auto r = run_single({ir::let("n", u(4)), ir::let("c", u(0)),
                               ir::loop("k", u(0), v("n"),
                                        {ir::assign("n", bin(bin_op::add, v("n"), u(1))),
                                         ir::assign("c", bin(bin_op::add, v("c"), u(1)))}),
                               ir::store(out0, u(0), v("c")), ir::store(out0, u(1), v("n"))});
    BOOST_TEST(r[0] == 4u);
    BOOST_TEST(r[1] == 8u);
}

BOOST_AUTO_TEST_CASE(break_continue_while_nested) {
    // break at 5: 0+1+2+3+4
    auto r = run_single({ir::let("s", u(0)),
                         ir::loop("k", u(0), u(100),
                                  {ir::if_(bin(bin_op::eq, v("k"), u(5)), {ir::break_()}),
                                   ir::assign("s", bin(bin_op::add, v("s"), v("k")))}),
                         ir::store(out0, u(0), v("s"))});
    BOOST_TEST(r[0] == 10u);
    // continue on odd: 0+2+4+6+8
    r = run_single({ir::let("s", u(0)),
                    ir::loop("k", u(0), u(10),
                             {ir::if_(bin(bin_op::eq, bin(bin_op::mod, v("k"), u(2)), u(1)), {ir::continue_()}),
                              ir::assign("s", bin(bin_op::add, v("s"), v("k")))}),
                    ir::store(out0, u(0), v("s"))});
    BOOST_TEST(r[0] == 20u);
    // while re-evaluates its condition: 1, 3, ..., 2187; a while whose condition is false at once.
    r = run_single({ir::let("x", u(1)), ir::let("n", u(0)),
                    ir::while_(bin(bin_op::lt, v("x"), u(1000)),
                               {ir::assign("x", bin(bin_op::mul, v("x"), u(3))), ir::assign("n", bin(bin_op::add, v("n"), u(1)))}),
                    ir::while_(b(false), {ir::assign("x", u(0))}), ir::store(out0, u(0), v("x")),
                    ir::store(out0, u(1), v("n"))});
    BOOST_TEST(r[0] == 2187u);
    BOOST_TEST(r[1] == 7u);
    // while with break and continue: count the multiples of 3 below 20 but stop at 13.
    r = run_single({ir::let("x", u(0)), ir::let("n", u(0)),
                    ir::while_(b(true),
                               {ir::assign("x", bin(bin_op::add, v("x"), u(1))),
                                ir::if_(bin(bin_op::ge, v("x"), u(13)), {ir::break_()}),
                                ir::if_(bin(bin_op::ne, bin(bin_op::mod, v("x"), u(3)), u(0)), {ir::continue_()}),
                                ir::assign("n", bin(bin_op::add, v("n"), u(1)))}),
                    ir::store(out0, u(0), v("x")), ir::store(out0, u(1), v("n"))});
    BOOST_TEST(r[0] == 13u);
    BOOST_TEST(r[1] == 4u); // 3, 6, 9, 12
    // Nested: the inner break leaves only the inner loop; sum over i<6 of min(i, 3) iterations
    // each adding 10*i + j.
    r = run_single({ir::let("s", u(0)), ir::let("c", u(0)),
                    ir::loop("i", u(0), u(6),
                             {ir::loop("j", u(0), v("i"),
                                       {ir::if_(bin(bin_op::eq, v("j"), u(3)), {ir::break_()}),
                                        ir::assign("s", bin(bin_op::add, v("s"), bin(bin_op::add, bin(bin_op::mul, v("i"), u(10)), v("j"))))}),
                              ir::assign("c", bin(bin_op::add, v("c"), u(1)))}),
                    ir::store(out0, u(0), v("s")), ir::store(out0, u(1), v("c"))});
    std::uint32_t want = 0;
    for (std::uint32_t a = 0; a < 6; ++a)
        for (std::uint32_t j = 0; j < a && j < 3; ++j) want += 10 * a + j;
    BOOST_TEST(r[0] == want);
    BOOST_TEST(r[1] == 6u);
    // Blocks scope their lets: the same name declared in two sibling blocks.
    r = run_single({ir::block({ir::let("t", u(4)), ir::store(out0, u(0), v("t"))}),
                    ir::block({ir::let("t", q(5)), ir::store(out0, u(1), ir::cast(data_type::u32, v("t", data_type::u64)))})});
    BOOST_TEST(r[0] == 4u);
    BOOST_TEST(r[1] == 5u);
}

BOOST_AUTO_TEST_CASE(divergent_return_loops_and_trip_counts) {
    const auto out = rw("out", 0, data_type::u32), cnt = rw("cnt", 1, data_type::u32);
    const auto lid = ir::local_id(0);
    std::vector<ir::node> body;
    // Odd invocations return early; even ones go on.
    body.push_back(ir::if_(bin(bin_op::eq, bin(bin_op::bit_and, lid, u(1)), u(1)),
                           {ir::store(out, lid, u(100)), ir::return_()}));
    // Each even invocation loops lid times, and one of them returns from inside its loop.
    body.push_back(ir::let("s", u(0)));
    body.push_back(ir::loop("k", u(0), lid,
                            {ir::if_(bin(bin_op::logical_and, bin(bin_op::eq, lid, u(6)), bin(bin_op::eq, v("k"), u(2))),
                                     {ir::store(out, lid, u(200)), ir::return_()}),
                             ir::assign("s", bin(bin_op::add, v("s"), u(1)))}));
    body.push_back(ir::store(out, lid, v("s")));
    body.push_back(ir::let("old", ir::atomic(ir::atomic_op::add, cnt, u(0), u(1))));
    const auto p = make({out, cnt}, body, {8, 1, 1});
    std::vector<ref::buffer_data> bufs{words(std::vector<std::uint64_t>(8, 0xdead)), words({0})};
    ref::run(p, {1, 1, 1}, bufs);
    BOOST_TEST(words_of(bufs[0]) == (std::vector<std::uint64_t>{0, 100, 2, 100, 4, 100, 200, 100}),
               boost::test_tools::per_element());
    BOOST_TEST(words_of(bufs[1])[0] == 3u); // invocations 0, 2, 4 reached the end
}

BOOST_AUTO_TEST_CASE(lockstep_order_of_statements) {
    // Each statement completes for every invocation before the next starts: all four invocations
    // log their first ticket before any logs its second.
    const auto ctr = rw("ctr", 0, data_type::u32), trace = rw("trace", 1, data_type::u32);
    const auto lid = ir::local_id(0);
    const auto p = make({ctr, trace},
                        {ir::let("a", ir::atomic(ir::atomic_op::add, ctr, u(0), u(1))),
                         ir::let("b", ir::atomic(ir::atomic_op::add, ctr, u(0), u(1))),
                         ir::store(trace, bin(bin_op::mul, lid, u(2)), v("a")),
                         ir::store(trace, bin(bin_op::add, bin(bin_op::mul, lid, u(2)), u(1)), v("b"))},
                        {4, 1, 1});
    std::vector<ref::buffer_data> bufs{words({0}), ref::buffer_data(32)};
    ref::run(p, {1, 1, 1}, bufs);
    BOOST_TEST(words_of(bufs[1]) == (std::vector<std::uint64_t>{0, 4, 1, 5, 2, 6, 3, 7}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(workgroup_reduction_with_barriers) {
    // Each workgroup of 64 sums its 64 inputs in a local array in log2(64) halving steps. Run one
    // invocation after another this would read partial sums that are not written yet.
    const auto in = ro("in", 0, data_type::u32), out = rw("out", 1, data_type::u32);
    const auto tmp = ir::buffer_decl::workgroup("tmp", 64, data_type::u32);
    const auto lid = ir::local_id(0);
    std::vector<ir::node> body;
    body.push_back(ir::store(tmp, lid, ir::load(in, ir::invocation_id(0))));
    body.push_back(ir::barrier());
    body.push_back(ir::let("stride", u(32)));
    body.push_back(ir::while_(bin(bin_op::gt, v("stride"), u(0)),
                              {ir::if_(bin(bin_op::lt, lid, v("stride")),
                                       {ir::store(tmp, lid, bin(bin_op::add, ir::load(tmp, lid),
                                                                ir::load(tmp, bin(bin_op::add, lid, v("stride")))))}),
                               ir::barrier(), ir::assign("stride", bin(bin_op::shr, v("stride"), u(1)))}));
    body.push_back(ir::if_(bin(bin_op::eq, lid, u(0)), {ir::store(out, ir::workgroup_id(0), ir::load(tmp, u(0)))}));
    // A second local array checks zero-initialisation per workgroup: workgroup w adds w to it.
    const auto acc = ir::buffer_decl::workgroup("acc", 1, data_type::u32);
    body.push_back(ir::if_(bin(bin_op::eq, lid, u(0)),
                           {ir::store(acc, u(0), bin(bin_op::add, ir::load(acc, u(0)), ir::workgroup_id(0))),
                            ir::store(out, bin(bin_op::add, ir::workgroup_id(0), u(4)), ir::load(acc, u(0)))}));
    body.push_back(ir::store(out, u(8), ir::buf_len(tmp)));
    const auto p = make({in, out, tmp, acc}, body, {64, 1, 1});
    std::vector<std::uint64_t> input(256);
    for (std::uint32_t k = 0; k < 256; ++k) input[k] = k * k + 7;
    std::vector<ref::buffer_data> bufs{words(input), words(std::vector<std::uint64_t>(9, 0))};
    ref::run(p, {4, 1, 1}, bufs);
    std::vector<std::uint64_t> want(9, 0);
    for (std::uint32_t w = 0; w < 4; ++w) {
        for (std::uint32_t k = 0; k < 64; ++k) want[w] += input[w * 64 + k];
        want[4 + w] = w;
    }
    want[8] = 64;
    BOOST_TEST(words_of(bufs[1]) == want, boost::test_tools::per_element());
}

// ---- calls, ids, scale ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(function_calls) {
    using param = ir::function::param;
    ir::function muladd{"muladd", {param{"a"}, param{"b"}, param{"c"}}, data_type::u32,
                     bin(bin_op::add, bin(bin_op::mul, v("a"), v("b")), v("c"))};
    ir::function sq_plus{"sq_plus", {param{"x"}, param{"y"}}, data_type::u32,
                         ir::call("muladd", data_type::u32, {v("x"), v("x"), v("y")})};
    ir::function pick{"pick", {param{"c", data_type::boolean}, param{"x", data_type::i32}}, data_type::i32,
                      ir::select(v("c", data_type::boolean), un(un_op::negate, v("x", data_type::i32)), v("x", data_type::i32))};
    const std::vector<ir::function> fns{muladd, sq_plus, pick};
    auto call = [](const char* f, std::vector<ir::expr> args, data_type t = data_type::u32) {
        return ir::call(f, t, std::move(args));
    };
    BOOST_TEST(eval(call("muladd", {u(2), u(3), u(4)}), fns) == 10u);
    // Nested calls of the same function as arguments: each argument is complete before the call.
    BOOST_TEST(eval(call("muladd", {call("muladd", {u(2), u(3), u(4)}), call("muladd", {u(5), u(6), u(7)}), call("muladd", {u(1), u(1), u(1)})}),
                    fns) == 10u * 37u + 2u);
    BOOST_TEST(eval(call("sq_plus", {u(3), call("muladd", {u(1), u(2), u(3)})}), fns) == 14u);
    BOOST_TEST(eval(call("sq_plus", {call("sq_plus", {u(2), u(1)}), u(0xffffffffu)}), fns) == 24u); // 25 - 1
    BOOST_TEST(eval(call("pick", {b(true), i(5)}, data_type::i32), fns) == std::uint32_t(-5));
    BOOST_TEST(eval(call("pick", {b(false), i(5)}, data_type::i32), fns) == 5u);
    // Calls with per-invocation arguments.
    const auto out = rw("out", 0, data_type::u32);
    const auto id = ir::invocation_id(0);
    const auto p = make({out}, {ir::store(out, id, call("sq_plus", {id, u(1)}))}, {8, 1, 1}, fns);
    std::vector<ref::buffer_data> bufs{ref::buffer_data(4 * 16)};
    ref::run(p, {2, 1, 1}, bufs);
    const auto got = words_of(bufs[0]);
    for (std::uint32_t k = 0; k < 16; ++k) BOOST_TEST(got[k] == k * k + 1);
}

BOOST_AUTO_TEST_CASE(ids_over_a_2d_grid) {
    // Workgroups of 4x2 in a 3x2 grid: a 12x4 field of invocations.
    const auto out = rw("out", 0, data_type::u32), order = rw("order", 1, data_type::u32),
               ctr = rw("ctr", 2, data_type::u32);
    const auto gx = ir::invocation_id(0), gy = ir::invocation_id(1);
    const auto cell = bin(bin_op::add, bin(bin_op::mul, gy, u(12)), gx);
    auto shl = [](ir::expr e, std::uint32_t s) { return bin(bin_op::shl, std::move(e), u(s)); };
    const auto packed = bin(bin_op::bit_or,
                            bin(bin_op::bit_or, ir::local_id(0), shl(ir::local_id(1), 4)),
                            bin(bin_op::bit_or, shl(ir::workgroup_id(0), 8),
                                bin(bin_op::bit_or, shl(ir::workgroup_id(1), 12),
                                    bin(bin_op::bit_or, shl(ir::local_id(2), 16), shl(ir::workgroup_id(2), 20)))));
    const auto p = make({out, order, ctr},
                        {ir::store(out, cell, packed), ir::let("t", ir::atomic(ir::atomic_op::add, ctr, u(0), u(1))),
                         ir::store(order, cell, v("t"))},
                        {4, 2, 1});
    std::vector<ref::buffer_data> bufs{ref::buffer_data(4 * 48, 0xff), ref::buffer_data(4 * 48, 0xff), words({0})};
    ref::run(p, {3, 2, 1}, bufs);
    const auto got = words_of(bufs[0]), ord = words_of(bufs[1]);
    for (std::uint32_t y = 0; y < 4; ++y)
        for (std::uint32_t x = 0; x < 12; ++x) {
            const std::uint32_t lx = x % 4, ly = y % 2, wx = x / 4, wy = y / 2;
            BOOST_TEST_CONTEXT("x=" << x << " y=" << y) {
                BOOST_TEST(got[y * 12 + x] == (lx | ly << 4 | wx << 8 | wy << 12));
                // Workgroups x fastest then y; inside one, local linear id order.
                BOOST_TEST(ord[y * 12 + x] == (wy * 3 + wx) * 8 + (ly * 4 + lx));
            }
        }
    BOOST_TEST(words_of(bufs[2])[0] == 48u);
}

BOOST_AUTO_TEST_CASE(many_invocations) {
    // 65,536 invocations, each running a short loop: also a guard on interpreter speed.
    const auto out = rw("out", 0, data_type::u32);
    const auto id = ir::invocation_id(0);
    const auto p = make({out},
                        {ir::let("h", id),
                         ir::loop("k", u(0), u(8),
                                  {ir::assign("h", bin(bin_op::add, bin(bin_op::mul, v("h"), u(0x9e3779b1u)), v("k")))}),
                         ir::store(out, id, v("h"))},
                        {256, 1, 1});
    const std::uint32_t n = 65536;
    std::vector<ref::buffer_data> bufs{ref::buffer_data(4 * n)};
    ref::run(p, {n / 256, 1, 1}, bufs);
    const auto got = words_of(bufs[0]);
    int errors = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
        std::uint32_t h = k;
        for (std::uint32_t j = 0; j < 8; ++j) h = h * 0x9e3779b1u + j;
        errors += got[k] != h;
    }
    BOOST_TEST(errors == 0);
}

// ---- errors --------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(validation_and_resource_errors) {
    const auto in = ro("in", 0, data_type::u32), out = rw("out", 1, data_type::u32);
    std::vector<ref::buffer_data> bufs{words({1}), words({0})};
    // Store into a read-only buffer; an undeclared variable; an atomic on a read-only buffer.
    BOOST_CHECK_THROW(ref::run(make({in, out}, {ir::store(in, u(0), u(1))}), {1, 1, 1}, bufs), vyre::validation_error);
    BOOST_CHECK_THROW(ref::run(make({in, out}, {ir::store(out, u(0), v("nope"))}), {1, 1, 1}, bufs), vyre::validation_error);
    BOOST_CHECK_THROW(ref::run(make({in, out}, {ir::let("x", ir::atomic(ir::atomic_op::add, in, u(0), u(1)))}), {1, 1, 1}, bufs),
                      vyre::validation_error);
    // Barrier under a condition that differs between invocations.
    BOOST_CHECK_THROW(ref::run(make({in, out}, {ir::if_(bin(bin_op::eq, ir::local_id(0), u(0)), {ir::barrier()})}, {4, 1, 1}),
                               {1, 1, 1}, bufs),
                      vyre::validation_error);
    BOOST_TEST(words_of(bufs[1])[0] == 0u); // nothing ran

    const auto good = make({in, out}, {ir::store(out, u(0), ir::load(in, u(0)))});
    std::vector<ref::buffer_data> missing{words({1})}; // no buffer for binding 1
    BOOST_CHECK_THROW(ref::run(good, {1, 1, 1}, missing), vyre::resource_error);
    std::vector<ref::buffer_data> ragged{ref::buffer_data(6), words({0})};
    BOOST_CHECK_THROW(ref::run(good, {1, 1, 1}, ragged), vyre::resource_error);
    const auto by = ro("by", 0, data_type::bytes), wide = rw("wide", 1, data_type::u64);
    const auto p2 = make({by, wide}, {ir::store(wide, u(0), ir::cast(data_type::u64, ir::load(by, u(0))))});
    std::vector<ref::buffer_data> odd_bytes{ref::buffer_data(6), ref::buffer_data(8)};
    BOOST_CHECK_THROW(ref::run(p2, {1, 1, 1}, odd_bytes), vyre::resource_error);
    std::vector<ref::buffer_data> odd_wide{ref::buffer_data(8), ref::buffer_data(12)};
    BOOST_CHECK_THROW(ref::run(p2, {1, 1, 1}, odd_wide), vyre::resource_error);
    std::vector<ref::buffer_data> fine{ref::buffer_data{9, 8, 7, 6}, ref::buffer_data(16)};
    ref::run(p2, {1, 1, 1}, fine);
    BOOST_TEST(decode(fine[1], 8)[0] == 9u);
    // Empty buffers are fine: everything is out of bounds.
    std::vector<ref::buffer_data> empty{ref::buffer_data{}, ref::buffer_data{}};
    ref::run(good, {1, 1, 1}, empty);
    BOOST_TEST(empty[1].empty());
}

VYRE_TEST_MAIN
