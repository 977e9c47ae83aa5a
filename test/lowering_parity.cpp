// The OpenCL lowering agrees with the reference interpreter on every device: every binary and
// unary op and cast on U32, I32, U64 and Bool edge values, out-of-bounds loads and stores, byte
// buffers, loops with break/continue, early return, atomics, a workgroup reduction with barriers and a
// Bytes workgroup buffer.
#include "harness.hpp"

#include <vyre/reference/interpreter.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <vyre/lower/opencl.hpp>

#include <cstring>
#include <functional>
#include <random>

using namespace vyre::ir;
namespace rt = vyre::runtime;
using buffers = std::vector<std::vector<std::uint8_t>>;

namespace {

// Runs `p` on the device and in the interpreter from the same inputs; every buffer must end equal.
void check_parity(vyre::test::device_case& dev, const program& p, std::array<std::uint32_t, 3> groups, const buffers& inputs) {
    buffers device = inputs, reference = inputs;
    rt::compiled_program cp(p);
    rt::run(dev.ctx(), cp, groups, device);
    vyre::reference::run(p, groups, reference, vyre::reference::run_options::checking_races());
    for (std::size_t b = 0; b < inputs.size(); ++b) {
        if (device[b] == reference[b]) continue;
        std::size_t i = 0;
        while (i < device[b].size() && device[b][i] == reference[b][i]) ++i;
        BOOST_ERROR("program " << p.name << ": buffer " << b << " differs first at byte " << i << " (device "
                               << int(device[b][i]) << ", interpreter " << int(reference[b][i]) << ")\n" << p);
    }
}

std::vector<std::uint64_t> edges(data_type t) {
    if (t == data_type::boolean) return {0, 1};
    std::vector<std::uint64_t> v = {0, 1, 2, 3, 5, 31, 32, 33, 63, 64, 65, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff};
    if (t == data_type::u64) v.insert(v.end(), {0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull, 0xfffffffffffffffeull});
    return v;
}

void put(std::vector<std::uint8_t>& buf, std::size_t index, data_type t, std::uint64_t v) {
    const std::size_t size = std::min<std::size_t>(min_bytes(t), sizeof v); // scalars only here
    std::memcpy(buf.data() + index * size, &v, size); // little-endian host
}

// out[i] = op(a[i], b[i]) over every pair of edge values of type t.
void check_binary(vyre::test::device_case& dev, data_type t, bin_op op) {
    const auto e = edges(t);
    const std::uint32_t n = std::uint32_t(e.size() * e.size());
    const data_type rt_ = binary_result(op, t);
    program p;
    p.name = "binary_" + std::string(name(op)) + "_" + std::string(name(t));
    const auto a = buffer_decl::storage("a", 0, buffer_access::read_only, t);
    const auto b = buffer_decl::storage("b", 1, buffer_access::read_only, t);
    const auto out = buffer_decl::storage("out", 2, buffer_access::read_write, rt_);
    p.buffers = {a, b, out};
    const auto i = var("i", data_type::u32);
    p.body = {let("i", invocation_id()), store(out, i, binary(op, load(a, i), load(b, i)))};
    buffers in(3);
    in[0].resize(n * min_bytes(t));
    in[1].resize(n * min_bytes(t));
    in[2].assign(n * min_bytes(rt_), 0xEE);
    for (std::size_t x = 0; x < e.size(); ++x)
        for (std::size_t y = 0; y < e.size(); ++y) {
            put(in[0], x * e.size() + y, t, e[x]);
            put(in[1], x * e.size() + y, t, e[y]);
        }
    check_parity(dev, p, {rt::groups_for(n, 64), 1, 1}, in);
}

void check_unary_and_casts(vyre::test::device_case& dev, data_type t) {
    const auto e = edges(t);
    const std::uint32_t n = std::uint32_t(e.size());
    program p;
    p.name = "unary_" + std::string(name(t));
    const auto a = buffer_decl::storage("a", 0, buffer_access::read_only, t);
    p.buffers = {a};
    const auto i = var("i", data_type::u32);
    p.body = {let("i", invocation_id())};
    buffers in(1);
    in[0].resize(n * min_bytes(t));
    for (std::size_t x = 0; x < e.size(); ++x) put(in[0], x, t, e[x]);
    std::uint32_t binding = 1;
    auto output = [&](const expr& value, const std::string& nm) {
        const auto out = buffer_decl::storage(nm, binding, buffer_access::read_write, value.type);
        p.buffers.push_back(out);
        p.body.push_back(store(out, i, value));
        in.emplace_back(n * min_bytes(value.type), 0xEE);
        ++binding;
    };
    if (t == data_type::boolean) output(unary(un_op::logical_not, load(a, i)), "not_");
    else
        for (un_op op : {un_op::negate, un_op::bit_not, un_op::popcount, un_op::clz, un_op::ctz, un_op::reverse_bits})
            output(unary(op, load(a, i)), "u_" + std::string(name(op)));
    for (data_type to : {data_type::u32, data_type::i32, data_type::u64, data_type::boolean})
        output(cast(to, load(a, i)), "cast_" + std::string(name(to)));
    check_parity(dev, p, {rt::groups_for(n, 64), 1, 1}, in);
}

} // namespace

VYRE_DEVICE_TEST(binary_ops_on_every_type) {
    for (data_type t : {data_type::u32, data_type::i32, data_type::u64})
        for (int op = 0; op <= int(bin_op::abs_diff); ++op) {
            const auto o = bin_op(op);
            if (is_logical(o)) continue;
            BOOST_TEST_CONTEXT(name(o) << " on " << name(t)) { check_binary(dev, t, o); }
        }
    for (bin_op o : {bin_op::eq, bin_op::ne, bin_op::bit_and, bin_op::bit_or, bin_op::bit_xor, bin_op::logical_and, bin_op::logical_or})
        BOOST_TEST_CONTEXT(name(o) << " on Bool") { check_binary(dev, data_type::boolean, o); }
}

VYRE_DEVICE_TEST(unary_ops_and_casts_on_every_type) {
    for (data_type t : {data_type::u32, data_type::i32, data_type::u64, data_type::boolean})
        BOOST_TEST_CONTEXT(name(t)) { check_unary_and_casts(dev, t); }
}

VYRE_DEVICE_TEST(out_of_bounds_loads_read_zero_and_stores_do_nothing) {
    program p;
    p.name = "bounds";
    const auto in = buffer_decl::storage("in", 0, buffer_access::read_only, data_type::u32);
    const auto out = buffer_decl::storage("out", 1, buffer_access::read_write, data_type::u32);
    const auto src = buffer_decl::storage("src", 3, buffer_access::read_only, data_type::bytes);
    const auto bytes = buffer_decl::storage("bytes", 2, buffer_access::read_write, data_type::bytes);
    p.buffers = {in, out, bytes, src};
    const auto i = var("i", data_type::u32);
    // Invocation i reads in[i*3] (beyond the end for most i) and writes out[i*2] (beyond for half).
    p.body = {let("i", invocation_id()),
              store(out, binary(bin_op::mul, i, lit_u32(2)), binary(bin_op::add, load(in, binary(bin_op::mul, i, lit_u32(3))), lit_u32(1))),
              store(bytes, binary(bin_op::add, i, lit_u32(5)), binary(bin_op::add, load(src, i), lit_u32(0x101)))};
    buffers b(4);
    b[0] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0};
    b[1].assign(64 * 4, 0xCC);
    b[2].assign(16, 0);
    b[3].assign(12, 0);
    for (int k = 0; k < 12; ++k) b[3][k] = std::uint8_t(k * 3 + 1);
    check_parity(dev, p, {1, 1, 1}, b); // 64 invocations
    buffers ref = b;
    vyre::reference::run(p, {1, 1, 1}, ref);
    std::uint32_t w0 = 0, w31 = 0;
    std::memcpy(&w0, ref[1].data(), 4);
    std::memcpy(&w31, ref[1].data() + 31 * 4 * 2, 4);
    BOOST_TEST(w0 == 2u);  // in[0] + 1
    BOOST_TEST(w31 == 1u); // in[93] is out of bounds: 0 + 1
}

// Unchecked accesses (ir::bounds) whose indices are in bounds give what checked ones give, on every
// Bytes, U32, U64, Bool and workgroup buffer; the lowering emits them bare.
VYRE_DEVICE_TEST(unchecked_accesses_in_bounds_match_checked_ones) {
    program p;
    p.name = "unchecked";
    const auto src = buffer_decl::storage("src", 0, buffer_access::read_only, data_type::bytes);
    const auto words = buffer_decl::storage("words", 1, buffer_access::read_write, data_type::u32);
    const auto wide = buffer_decl::storage("wide", 2, buffer_access::read_write, data_type::u64);
    const auto flags = buffer_decl::storage("flags", 3, buffer_access::read_write, data_type::boolean);
    const auto bytes = buffer_decl::storage("bytes", 4, buffer_access::read_write, data_type::bytes);
    const auto scratch = buffer_decl::workgroup("scratch", 64, data_type::u32);
    p.buffers = {src, words, wide, flags, bytes, scratch};
    const auto i = var("i", data_type::u32), j = var("j", data_type::u32);
    const auto un = bounds::unchecked;
    // Invocation i: byte 255 - i of src, through the workgroup buffer (its neighbour's slot), into
    // words[i] (added to its own), wide[i] (times 2^32 + 1), flags[i] (odd?) and bytes[63 - i] (with byte i
    // of src).
    p.body = {let("i", local_id()), let("j", binary(bin_op::bit_xor, i, lit_u32(1))),
              store(scratch, i, load(src, binary(bin_op::sub, lit_u32(255), i), un), un),
              barrier(),
              store(words, i, binary(bin_op::add, load(scratch, j, un), load(words, i, un)), un),
              store(wide, i, binary(bin_op::mul, cast(data_type::u64, load(scratch, j, un)), lit_u64(0x100000001ull)), un),
              store(flags, i, binary(bin_op::eq, binary(bin_op::bit_and, load(scratch, j, un), lit_u32(1)), lit_u32(1)), un),
              store(bytes, binary(bin_op::sub, lit_u32(63), i), binary(bin_op::add, load(src, i, un), load(scratch, j, un)), un)};
    const std::string source = vyre::lower::to_opencl(p).source;
    BOOST_TEST(source.find("vyre_load_") == std::string::npos);
    BOOST_TEST(source.find("vyre_store_") == std::string::npos);
    buffers b(5);
    b[0].resize(256);
    for (int k = 0; k < 256; ++k) b[0][k] = std::uint8_t(k * 7 + 3);
    b[1].resize(64 * 4);
    for (int k = 0; k < 64 * 4; ++k) b[1][k] = std::uint8_t(k);
    b[2].assign(64 * 8, 0xCC);
    b[3].assign(64 * 4, 0xCC);
    b[4].resize(64);
    for (int k = 0; k < 64; ++k) b[4][k] = std::uint8_t(200 - k);
    check_parity(dev, p, {1, 1, 1}, b);
    // The same program with every access checked ends the same.
    program checked = p;
    const std::function<void(std::vector<node>&)> check_all = [&](std::vector<node>& body) {
        const std::function<void(expr&)> in_expr = [&](expr& e) {
            if (e.kind == expr_kind::load) e.op = 0;
            for (auto& a : e.args) in_expr(a);
        };
        for (auto& n : body) {
            n.access = bounds::checked;
            for (auto& e : n.exprs) in_expr(e);
            check_all(n.body);
            check_all(n.else_body);
        }
    };
    check_all(checked.body);
    buffers x = b, y = b;
    vyre::reference::run(p, {1, 1, 1}, x);
    vyre::reference::run(checked, {1, 1, 1}, y);
    BOOST_TEST((x == y));
}

VYRE_DEVICE_TEST(loops_break_continue_and_early_return) {
    program p;
    p.name = "control";
    const auto out = buffer_decl::storage("out", 0, buffer_access::read_write, data_type::u32);
    p.buffers = {out};
    const auto i = var("i", data_type::u32), k = var("k", data_type::u32), acc = var("acc", data_type::u32);
    const auto j = var("j", data_type::u32);
    p.body = {
        let("i", invocation_id()),
        if_(binary(bin_op::eq, binary(bin_op::mod, i, lit_u32(7)), lit_u32(6)), {return_()}),
        let("acc", lit_u32(0)),
        loop("k", lit_u32(0), binary(bin_op::add, i, lit_u32(3)),
             {if_(binary(bin_op::eq, binary(bin_op::bit_and, k, lit_u32(1)), lit_u32(1)), {continue_()}),
              if_(binary(bin_op::gt, k, lit_u32(40)), {break_()}), assign("acc", binary(bin_op::add, acc, k))}),
        let("j", i),
        while_(binary(bin_op::ne, j, lit_u32(0)), {assign("j", binary(bin_op::shr, j, lit_u32(1))), assign("acc", binary(bin_op::add, acc, lit_u32(100)))}),
        store(out, i, acc)};
    buffers b(1);
    b[0].assign(100 * 4, 0x77);
    check_parity(dev, p, {2, 1, 1}, b);
}

VYRE_DEVICE_TEST(atomic_counter_and_compare_exchange) {
    program p;
    p.name = "atomics";
    const auto counter = buffer_decl::storage("counter", 0, buffer_access::read_write, data_type::u32);
    const auto slots = buffer_decl::storage("slots", 1, buffer_access::read_write, data_type::i32);
    p.buffers = {counter, slots};
    const auto i = var("i", data_type::u32);
    p.body = {let("i", invocation_id()),
              let("old", atomic(atomic_op::add, counter, lit_u32(0), lit_u32(3))),
              let("m", atomic(atomic_op::max, counter, lit_u32(1), i)),
              let("o", atomic(atomic_op::bit_or, counter, lit_u32(2), binary(bin_op::shl, lit_u32(1), binary(bin_op::mod, i, lit_u32(32))))),
              let("s", atomic(atomic_op::min, slots, lit_u32(0), binary(bin_op::sub, lit_i32(100), cast(data_type::i32, i)))),
              let("c", atomic_compare_exchange(slots, lit_u32(1), lit_i32(0), lit_i32(7))),
              let("x", atomic(atomic_op::add, counter, lit_u32(999), lit_u32(1)))}; // out of bounds
    buffers b(2);
    b[0].assign(3 * 4, 0);
    b[1].assign(2 * 4, 0);
    b[1][0] = 50;
    check_parity(dev, p, {4, 1, 1}, b); // 256 invocations
    buffers ref = b;
    vyre::reference::run(p, {4, 1, 1}, ref);
    std::uint32_t c[3];
    std::int32_t s[2];
    std::memcpy(c, ref[0].data(), 12);
    std::memcpy(s, ref[1].data(), 8);
    BOOST_TEST(c[0] == 768u);
    BOOST_TEST(c[1] == 255u);
    BOOST_TEST(c[2] == 0xffffffffu);
    BOOST_TEST(s[0] == 100 - 255);
    BOOST_TEST(s[1] == 7);
}

VYRE_DEVICE_TEST(workgroup_reduction_with_barriers) {
    program p;
    p.name = "reduce";
    p.workgroup_size = {64, 1, 1};
    const auto in = buffer_decl::storage("in", 0, buffer_access::read_only, data_type::u32);
    const auto out = buffer_decl::storage("out", 1, buffer_access::read_write, data_type::u32);
    const auto tile = buffer_decl::workgroup("tile", 64, data_type::u32);
    p.buffers = {in, out, tile};
    const auto l = var("l", data_type::u32), s = var("s", data_type::u32);
    p.body = {let("l", local_id()),
              store(tile, l, load(in, invocation_id())),
              barrier(),
              let("s", lit_u32(32)),
              while_(binary(bin_op::gt, s, lit_u32(0)),
                     {if_(binary(bin_op::lt, l, s), {store(tile, l, binary(bin_op::add, load(tile, l), load(tile, binary(bin_op::add, l, s))))}),
                      barrier(), assign("s", binary(bin_op::shr, s, lit_u32(1)))}),
              if_(binary(bin_op::eq, l, lit_u32(0)), {store(out, workgroup_id(), load(tile, lit_u32(0)))})};
    const std::uint32_t groups = 16;
    buffers b(2);
    b[0].resize(groups * 64 * 4);
    std::mt19937 g(vyre::test::test_seed());
    std::vector<std::uint32_t> vals(groups * 64);
    for (auto& v : vals) v = g() % 100000;
    std::memcpy(b[0].data(), vals.data(), b[0].size());
    b[1].assign(groups * 4, 0);
    check_parity(dev, p, {groups, 1, 1}, b);
    rt::compiled_program cp(p);
    rt::run(dev.ctx(), cp, {groups, 1, 1}, b);
    for (std::uint32_t w = 0; w < groups; ++w) {
        std::uint32_t want = 0, got = 0;
        for (int k = 0; k < 64; ++k) want += vals[w * 64 + k];
        std::memcpy(&got, b[1].data() + w * 4, 4);
        BOOST_TEST(got == want, "workgroup " << w);
    }
}

// Little-endian U32 loads (ir::load_u32_le) at every byte position of a global, a workgroup and a
// uniform Bytes buffer, checked (past the end, and past index 2^32 - 1) and unchecked, as the
// interpreter gives them.
VYRE_DEVICE_TEST(little_endian_u32_loads_at_every_byte_position) {
    program p;
    p.name = "u32_le";
    p.workgroup_size = {64, 1, 1};
    const auto src = buffer_decl::storage("src", 0, buffer_access::read_only, data_type::bytes);
    const auto out = buffer_decl::storage("out", 1, buffer_access::read_write, data_type::u32);
    const auto ring = buffer_decl::workgroup("ring", 32, data_type::bytes);
    const auto consts = buffer_decl::storage("consts", 2, buffer_access::uniform, data_type::bytes);
    p.buffers = {src, out, ring, consts};
    const auto i = var("i", data_type::u32);
    const auto at = [&](std::uint32_t row) { return binary(bin_op::add, binary(bin_op::mul, i, lit_u32(8)), lit_u32(row)); };
    const auto un = bounds::unchecked;
    const auto below = [&](std::uint32_t n) { return binary(bin_op::min, i, lit_u32(n)); };
    p.body = {let("i", local_id()),
              if_(binary(bin_op::lt, i, lit_u32(32)), {store(ring, i, load(src, binary(bin_op::add, i, lit_u32(3))))}),
              barrier(),
              store(out, at(0), load_u32_le(src, i)),                                             // past the 24 bytes from 21 on
              store(out, at(1), load_u32_le(src, binary(bin_op::add, i, lit_u32(0xFFFFFFF0u)))), // past 2^32 - 1 from 13 on
              store(out, at(2), load_u32_le(src, below(20), un)),
              store(out, at(3), load_u32_le(ring, i)),
              store(out, at(4), load_u32_le(ring, below(28), un)),
              store(out, at(5), load_u32_le(src, binary(bin_op::shl, i, lit_u32(26)))),         // far past the end
              store(out, at(6), load_u32_le(consts, i)),
              store(out, at(7), load_u32_le(consts, below(12), un))};
    buffers b(3);
    b[0].resize(24);
    std::mt19937 g(vyre::test::test_seed());
    for (auto& v : b[0]) v = static_cast<std::uint8_t>(g() | 1); // no zero byte: a zero read shows
    b[1].assign(64 * 8 * 4, 0xEE);
    b[2].resize(16);
    for (auto& v : b[2]) v = static_cast<std::uint8_t>(g() | 1);
    check_parity(dev, p, {1, 1, 1}, b);
    // The interpreter's values, spot-checked against the bytes.
    buffers ref = b;
    vyre::reference::run(p, {1, 1, 1}, ref);
    const auto word = [&](std::uint32_t inv, std::uint32_t row) {
        std::uint32_t w = 0;
        std::memcpy(&w, ref[1].data() + (inv * 8 + row) * 4, 4);
        return w;
    };
    const auto le_of = [&](const std::vector<std::uint8_t>& v, std::size_t k, int n) {
        std::uint32_t w = 0;
        for (int j = 0; j < n; ++j) w |= std::uint32_t(v[k + j]) << (8 * j);
        return w;
    };
    const auto le = [&](std::size_t k, int n) { return le_of(b[0], k, n); };
    BOOST_TEST(word(5, 0) == le(5, 4));
    BOOST_TEST(word(22, 0) == le(22, 2));
    BOOST_TEST(word(30, 0) == 0u);
    BOOST_TEST(word(13, 1) == 0u);
    BOOST_TEST(word(14, 1) == 0u); // 2^32 - 2: the two bytes past 2^32 - 1 read zero, not bytes 0 and 1
    BOOST_TEST(word(16, 1) == le(0, 4)); // the index wrapped to 0 before the load
    BOOST_TEST(word(40, 2) == le(20, 4));
    BOOST_TEST(word(2, 3) == le(5, 4));   // ring[k] = src[k + 3], zero past src
    BOOST_TEST(word(19, 3) == le(22, 2));
    BOOST_TEST(word(0, 5) == le(0, 4));
    BOOST_TEST(word(1, 5) == 0u);
    BOOST_TEST(word(3, 6) == le_of(b[2], 3, 4));
    BOOST_TEST(word(14, 6) == le_of(b[2], 14, 2));
    BOOST_TEST(word(40, 7) == le_of(b[2], 12, 4));
}

// A Bytes workgroup buffer: 32 invocations store bytes of neighbouring invocations' words (byte
// stores must not disturb the other three bytes of a word), then read them back reversed, with one
// index past the end (loads 0, the store does nothing) and the buffer's length in words.
VYRE_DEVICE_TEST(workgroup_bytes_buffer) {
    program p;
    p.name = "local_bytes";
    p.workgroup_size = {32, 1, 1};
    const auto in = buffer_decl::storage("in", 0, buffer_access::read_only, data_type::bytes);
    const auto out = buffer_decl::storage("out", 1, buffer_access::read_write, data_type::bytes);
    const auto len = buffer_decl::storage("len", 2, buffer_access::read_write, data_type::u32);
    const auto ring = buffer_decl::workgroup("ring", 32, data_type::bytes);
    p.buffers = {in, out, len, ring};
    const auto l = var("l", data_type::u32), base = var("base", data_type::u32);
    p.body = {let("l", local_id()),
              let("base", binary(bin_op::mul, workgroup_id(), lit_u32(32))),
              store(ring, l, load(in, binary(bin_op::add, base, l))),
              store(ring, binary(bin_op::add, l, lit_u32(32)), lit_u32(0xAB)), // past the end: nothing
              barrier(),
              store(out, binary(bin_op::add, base, l),
                    binary(bin_op::add, load(ring, binary(bin_op::sub, lit_u32(31), l)), load(ring, binary(bin_op::add, l, lit_u32(32))))),
              if_(binary(bin_op::eq, l, lit_u32(0)), {store(len, workgroup_id(), buf_len(ring))})};
    const std::uint32_t groups = 8;
    buffers b(3);
    b[0].resize(groups * 32);
    std::mt19937 g(vyre::test::test_seed());
    for (auto& v : b[0]) v = static_cast<std::uint8_t>(g());
    b[1].assign(groups * 32, 0);
    b[2].assign(groups * 4, 0);
    check_parity(dev, p, {groups, 1, 1}, b);
    rt::compiled_program cp(p);
    rt::run(dev.ctx(), cp, {groups, 1, 1}, b);
    for (std::uint32_t w = 0; w < groups; ++w) {
        for (std::uint32_t i = 0; i < 32; ++i) BOOST_TEST(b[1][w * 32 + i] == b[0][w * 32 + 31 - i], "workgroup " << w << " byte " << i);
        std::uint32_t words = 0;
        std::memcpy(&words, b[2].data() + w * 4, 4);
        BOOST_TEST(words == 8u);
    }
}

VYRE_TEST_MAIN
