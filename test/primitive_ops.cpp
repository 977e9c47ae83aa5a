// Primitive ops on every device: each result equals the reference interpreter and an independent
// C++ oracle, over exhaustive 8-bit grids, 32-bit edge values and seeded random words.
#include "harness.hpp"

#include <vyre/ops/primitive.hpp>
#include <vyre/ops/primitive/prefix_sum.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <bit>
#include <functional>
#include <map>
#include <numeric>
#include <random>

namespace prim = vyre::ops::primitive;
namespace rt = vyre::runtime;
using u32 = std::uint32_t;

namespace {

// The C++ statement of each op's meaning, written independently of the IR.
const std::map<std::string, std::function<u32(const u32*)>>& oracles() {
    static const std::map<std::string, std::function<u32(const u32*)>> m = {
        {"primitive.bitwise.and", [](const u32* x) { return x[0] & x[1]; }},
        {"primitive.bitwise.or", [](const u32* x) { return x[0] | x[1]; }},
        {"primitive.bitwise.xor", [](const u32* x) { return x[0] ^ x[1]; }},
        {"primitive.bitwise.not", [](const u32* x) { return ~x[0]; }},
        {"primitive.bitwise.shl", [](const u32* x) { return x[0] << (x[1] & 31); }},
        {"primitive.bitwise.shr", [](const u32* x) { return x[0] >> (x[1] & 31); }},
        {"primitive.bitwise.rotl", [](const u32* x) { return std::rotl(x[0], int(x[1] & 31)); }},
        {"primitive.bitwise.rotr", [](const u32* x) { return std::rotr(x[0], int(x[1] & 31)); }},
        {"primitive.bitwise.clz", [](const u32* x) { return u32(std::countl_zero(x[0])); }},
        {"primitive.bitwise.ctz", [](const u32* x) { return u32(std::countr_zero(x[0])); }},
        {"primitive.bitwise.popcount", [](const u32* x) { return u32(std::popcount(x[0])); }},
        {"primitive.bitwise.reverse_bits", [](const u32* x) {
             u32 r = 0;
             for (int i = 0; i < 32; ++i) r |= ((x[0] >> i) & 1u) << (31 - i);
             return r;
         }},
        {"primitive.bitwise.extract_bits", [](const u32* x) {
             const u32 o = std::min(x[1], 32u), c = std::min(x[2], 32u - o);
             if (c == 0) return 0u;
             const std::uint64_t mask = (std::uint64_t(1) << c) - 1;
             return u32((std::uint64_t(x[0]) >> o) & mask);
         }},
        {"primitive.bitwise.insert_bits", [](const u32* x) {
             const u32 o = std::min(x[2], 32u), c = std::min(x[3], 32u - o);
             const std::uint64_t mask = ((std::uint64_t(1) << c) - 1) << o;
             return u32((x[0] & ~mask) | ((std::uint64_t(x[1]) << o) & mask));
         }},
        {"primitive.compare.eq", [](const u32* x) { return u32(x[0] == x[1]); }},
        {"primitive.compare.ne", [](const u32* x) { return u32(x[0] != x[1]); }},
        {"primitive.compare.lt", [](const u32* x) { return u32(x[0] < x[1]); }},
        {"primitive.compare.le", [](const u32* x) { return u32(x[0] <= x[1]); }},
        {"primitive.compare.gt", [](const u32* x) { return u32(x[0] > x[1]); }},
        {"primitive.compare.ge", [](const u32* x) { return u32(x[0] >= x[1]); }},
        {"primitive.compare.logical_not", [](const u32* x) { return u32(x[0] == 0); }},
        {"primitive.compare.select", [](const u32* x) { return x[0] != 0 ? x[1] : x[2]; }},
        {"primitive.math.add", [](const u32* x) { return x[0] + x[1]; }},
        {"primitive.math.sub", [](const u32* x) { return x[0] - x[1]; }},
        {"primitive.math.mul", [](const u32* x) { return x[0] * x[1]; }},
        {"primitive.math.div", [](const u32* x) { return x[1] == 0 ? x[0] : x[0] / x[1]; }},
        {"primitive.math.mod", [](const u32* x) { return x[1] == 0 ? 0u : x[0] % x[1]; }},
        {"primitive.math.min", [](const u32* x) { return std::min(x[0], x[1]); }},
        {"primitive.math.max", [](const u32* x) { return std::max(x[0], x[1]); }},
        {"primitive.math.abs_diff", [](const u32* x) { return x[0] > x[1] ? x[0] - x[1] : x[1] - x[0]; }},
        {"primitive.math.clamp", [](const u32* x) { return std::min(std::max(x[0], x[1]), x[2]); }},
        {"primitive.math.negate", [](const u32* x) { return 0u - x[0]; }},
        {"primitive.math.add_sat", [](const u32* x) { return x[0] + x[1] < x[0] ? 0xffffffffu : x[0] + x[1]; }},
        {"primitive.math.sub_sat", [](const u32* x) { return x[0] < x[1] ? 0u : x[0] - x[1]; }},
    };
    return m;
}

const std::vector<u32>& edge_values() {
    static const std::vector<u32> v = {0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 255, 256, 0xffff, 0x10000,
                                       0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff};
    return v;
}

// Operand tuples: an exhaustive 8-bit grid for one and two operands (65,536 pairs); for three and
// four operands, every combination of the edge values.
std::vector<u32> grid(u32 arity) {
    std::vector<u32> in;
    if (arity == 1) {
        for (u32 a = 0; a < 256; ++a) in.push_back(a);
        for (u32 a : edge_values()) in.push_back(a);
    } else if (arity == 2) {
        for (u32 a = 0; a < 256; ++a)
            for (u32 b = 0; b < 256; ++b) in.insert(in.end(), {a, b});
        for (u32 a : edge_values())
            for (u32 b : edge_values()) in.insert(in.end(), {a, b});
    } else {
        const auto& e = edge_values();
        std::vector<std::size_t> idx(arity, 0);
        while (true) {
            for (u32 k = 0; k < arity; ++k) in.push_back(e[idx[k]]);
            u32 k = 0;
            while (k < arity && ++idx[k] == e.size()) idx[k++] = 0;
            if (k == arity) break;
        }
    }
    return in;
}

std::vector<u32> random_words(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 g(seed);
    std::vector<u32> v(n);
    for (auto& x : v) x = u32(g());
    return v;
}

std::vector<u32> interpret(const prim::primitive_op& op, const std::vector<u32>& input) {
    const u32 n = u32(input.size() / op.arity());
    std::vector<vyre::reference::buffer_data> bufs(3);
    bufs[0].resize(input.size() * 4);
    std::memcpy(bufs[0].data(), input.data(), input.size() * 4);
    bufs[1].assign(std::size_t(n) * 4, 0xAB);
    bufs[2].resize(4);
    std::memcpy(bufs[2].data(), &n, 4);
    vyre::reference::run(op.program(), {rt::groups_for(n, prim::elementwise_workgroup), 1, 1}, bufs, vyre::reference::run_options::checking_races());
    std::vector<u32> out(n);
    std::memcpy(out.data(), bufs[1].data(), bufs[1].size());
    return out;
}

// Checks device == interpreter == oracle on every element, reporting the first few mismatches.
void check_op(rt::context& ctx, const prim::primitive_op& op, const std::vector<u32>& input) {
    static std::map<std::string, std::unique_ptr<rt::compiled_program>> compiled;
    auto& cp = compiled[op.id];
    if (!cp) cp = std::make_unique<rt::compiled_program>(op.program());
    const auto device = prim::run(ctx, *cp, op.arity(), input);
    const auto reference = interpret(op, input);
    const auto& oracle = oracles().at(op.id);
    BOOST_REQUIRE_EQUAL(device.size(), input.size() / op.arity());
    int reported = 0;
    for (std::size_t i = 0; i < device.size() && reported < 5; ++i) {
        const u32* args = &input[i * op.arity()];
        const u32 want = oracle(args);
        if (device[i] != want || reference[i] != want) {
            ++reported;
            std::ostringstream a;
            for (u32 k = 0; k < op.arity(); ++k) a << (k ? ", " : "") << "0x" << std::hex << args[k];
            BOOST_ERROR(op.id << "(" << a.str() << "): device " << device[i] << ", interpreter " << reference[i]
                              << ", expected " << want);
        }
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(every_primitive_has_an_oracle) {
    for (const auto& op : prim::all()) BOOST_TEST(oracles().count(op.id) == 1u, op.id);
    BOOST_TEST(prim::all().size() == oracles().size());
}

VYRE_DEVICE_TEST(grids_and_edge_values) {
    for (const auto& op : prim::all())
        BOOST_TEST_CONTEXT("op " << op.id) { check_op(dev.ctx(), op, grid(op.arity())); }
}

VYRE_DEVICE_TEST(seeded_random_words) {
    const auto seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed << " (replay with VYRE_TEST_SEED)") {
        for (const auto& op : prim::all()) {
            auto input = random_words(4096 * op.arity(), seed ^ std::hash<std::string>{}(op.id));
            // Small shift amounts and field bounds matter more than huge ones.
            if (op.id.find("bits") != std::string::npos)
                for (std::size_t i = 0; i < input.size(); ++i)
                    if (i % op.arity() >= op.arity() - 2) input[i] %= 40;
            BOOST_TEST_CONTEXT("op " << op.id) { check_op(dev.ctx(), op, input); }
        }
    }
}

VYRE_DEVICE_TEST(deterministic_over_100_runs) {
    const auto* op = prim::find("primitive.math.mul");
    BOOST_REQUIRE(op);
    rt::compiled_program cp(op->program());
    const auto input = random_words(2 * 10000, vyre::test::test_seed());
    const auto first = prim::run(dev.ctx(), cp, 2, input);
    for (int run = 0; run < 100; ++run) BOOST_REQUIRE(prim::run(dev.ctx(), cp, 2, input) == first);
}

VYRE_DEVICE_TEST(results_do_not_depend_on_workgroup_size) {
    const auto* op = prim::find("primitive.bitwise.rotl");
    BOOST_REQUIRE(op);
    const auto input = random_words(2 * 1000, vyre::test::test_seed() + 1);
    std::vector<u32> first;
    for (u32 wg : {1u, 7u, 64u, 256u}) {
        auto p = op->program();
        p.workgroup_size = {wg, 1, 1};
        rt::compiled_program cp(p);
        // prim::run sizes the grid for the standard workgroup, so launch directly here.
        const u32 n = 1000;
        std::vector<std::vector<std::uint8_t>> bufs(3);
        bufs[0].resize(input.size() * 4);
        std::memcpy(bufs[0].data(), input.data(), bufs[0].size());
        bufs[1].assign(n * 4, 0);
        bufs[2].resize(4);
        std::memcpy(bufs[2].data(), &n, 4);
        rt::run(dev.ctx(), cp, {rt::groups_for(n, wg), 1, 1}, bufs);
        std::vector<u32> out(n);
        std::memcpy(out.data(), bufs[1].data(), n * 4);
        if (first.empty()) first = out;
        BOOST_TEST(out == first, "workgroup size " << wg);
    }
    BOOST_TEST(first[0] == std::rotl(input[0], int(input[1] & 31)));
}

// primitive.prefix_sum against std::exclusive_scan (u32, wrapping): one tile, tile edges, two and
// three levels of tiles; the words after `count` stay as they were.
VYRE_DEVICE_TEST(prefix_sum_equals_exclusive_scan) {
    std::mt19937 rng(vyre::test::test_seed());
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{2047}, std::size_t{2048},
                                    std::size_t{2049}, std::size_t{2048 * 3 + 1}, std::size_t{2048 * 2048 + 7}}) {
        BOOST_TEST_CONTEXT("count " << count) {
            std::vector<u32> in(count + 16);
            // Small values and, one run in two, values near 2^32 that make the sums wrap.
            const u32 top = count % 2 ? 0xFFFFFFFFu : 1000u;
            for (auto& v : in) v = std::uniform_int_distribution<u32>(0, top)(rng);
            auto buffer = rt::upload(dev.ctx(), std::span<const u32>(in));
            prim::exclusive_prefix_sum(dev.ctx(), buffer, count);
            const auto out = rt::download<u32>(dev.ctx(), buffer, in.size());
            std::vector<u32> want(in);
            std::exclusive_scan(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(count), want.begin(), u32{0});
            BOOST_TEST(out == want, boost::test_tools::per_element());
        }
    }
    auto small = rt::allocate(dev.ctx(), 16);
    BOOST_CHECK_THROW(prim::exclusive_prefix_sum(dev.ctx(), small, 5), vyre::resource_error); // more than the buffer holds
}

BOOST_AUTO_TEST_CASE(prefix_sum_programs_validate) {
    for (const auto& info : prim::prefix_sum_infos()) BOOST_CHECK_NO_THROW(vyre::ir::validate(info.program()));
}

VYRE_TEST_MAIN
