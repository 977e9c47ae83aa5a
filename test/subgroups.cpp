// Subgroup operations (ir::expr_kind::subgroup and friends, program::subgroup_size):
//  A. on every device, every op agrees with the reference interpreter at subgroup sizes 1..32,
//     from subgroup-uniform and divergent inputs (lanes, deltas and masks out of range, conditions
//     mixed, all true, all false), under each lowering the device has: its own (with several
//     subgroups per workgroup where that lowering allows it) and emulation, forced;
//  B. the interpreter's results, checked against values written out by hand;
//  C. the validation rules (operand types, whole values, uniform control flow, program shape);
//  D. the OpenCL C each lowering writes.
// Programs hold many ops each (PoCL builds take most of a second), one per size and lowering.
#include "harness.hpp"

#include <vyre/dsl.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/lower/opencl.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/subgroups.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace dsl = vyre::dsl;
namespace ir = vyre::ir;
namespace ref = vyre::reference;
namespace rt = vyre::runtime;
using vyre::lower::subgroup_lowering;
using buffers = std::vector<std::vector<std::uint8_t>>;
using words = std::vector<std::uint32_t>;

namespace {

constexpr std::uint32_t sizes[] = {1, 2, 4, 8, 16, 32};
constexpr std::uint32_t canary = 0xCDCDCDCDu;

// ---- the test program -------------------------------------------------------------------------
//
// One invocation per element: invocation i reads val[i] (a value), lane[i] (a lane, delta or mask),
// cond[i] (a condition, nonzero = true) and sg_lane[g] (g: the subgroup's index in the dispatch,
// the same for the whole subgroup: broadcast's lane and a flag), and writes its result of slot s
// to out[s * n + i] (n invocations in all).

enum slot : std::uint32_t {
    s_broadcast, s_shuffle, s_shuffle_up, s_shuffle_down, s_shuffle_xor, s_ballot, s_any, s_all, s_inclusive_add,
    s_exclusive_add,
    s_local_id, s_id, s_size,
    s_broadcast_first, s_broadcast_last, s_xor_1, s_up_1, s_down_1, s_rotate,
    s_loop_value, s_loop_ballots,
    s_if_second_subgroup, s_if_flag, s_if_flag_all,
    s_barrier_1, s_barrier_2,
    s_after_return,
    s_branch_parity, s_branch_if_else, s_branch_nested, // the branches program only
    slot_count
};
constexpr const char* slot_names[slot_count] = {
    "SubgroupBroadcast(v, sg_lane[g])", "SubgroupShuffle(v, l)", "SubgroupShuffleUp(v, l)", "SubgroupShuffleDown(v, l)",
    "SubgroupShuffleXor(v, l)", "SubgroupBallot(c)", "SubgroupAny(c)", "SubgroupAll(c)", "SubgroupInclusiveAdd(v)",
    "SubgroupExclusiveAdd(v)",
    "subgroup_local_id", "subgroup_id", "subgroup_size",
    "SubgroupBroadcast(v, 0u)", "SubgroupBroadcast(v, S - 1)", "SubgroupShuffleXor(v, 1u)", "SubgroupShuffleUp(v, 1u)",
    "SubgroupShuffleDown(v, 1u)", "SubgroupShuffle(v, subgroup_local_id + 1)",
    "loop of (g % 3) + 1 trips: InclusiveAdd then ShuffleXor", "loop of (g % 3) + 1 trips: Ballot",
    "if (subgroup_id == 1) ExclusiveAdd", "if (sg_lane[g] & 4) Ballot", "if (sg_lane[g] & 4) All",
    "subgroup_barrier, then a neighbour's slot", "second subgroup_barrier round, mirrored slot",
    "InclusiveAdd after the subgroups with g % 4 == 3 returned",
    "if (g odd) ShuffleDown; if (g even) Broadcast", "if (g odd) ShuffleDown else Broadcast",
    "if (sg_lane[g] & 4) { Ballot; if (subgroup_id == 0) ShuffleXor } else InclusiveAdd",
};
enum binding : std::uint32_t { b_val, b_lane, b_cond, b_sg_lane, b_out, binding_count };

// all_ops: every op, in straight code, a loop, ifs, around subgroup barriers and after a return;
// branches: ops in the branches of ifs on g (kept apart: see subgroup_ops_in_branches_on_the_
// subgroup_index).
enum class shape { all_ops, branches };

ir::program ops_program(std::uint32_t S, std::uint32_t wg, shape sh = shape::all_ops) {
    using dsl::u32;
    dsl::kernel k("subgroup_ops", {wg, 1, 1});
    k.use_subgroups(S);
    auto val = k.input<u32>("val", b_val);
    auto lane = k.input<u32>("lane", b_lane);
    auto cond = k.input<u32>("cond", b_cond);
    auto sg_lane = k.input<u32>("sg_lane", b_sg_lane);
    auto out = k.output<u32>("out", b_out);
    auto stage = k.workgroup<u32>("stage", wg);

    auto i = k.let("i", dsl::invocation_id());
    auto n = k.let("n", val.size());
    auto put = [&](slot s, const auto& value) { k.store(out, i + n * std::uint32_t(s), value); };
    auto v = k.let("v", val[i]);
    auto l = k.let("l", lane[i]);
    auto c = k.let("c", cond[i] != 0u);
    auto g = k.let("g", dsl::workgroup_id() * (wg / S) + dsl::subgroup_id()); // subgroup-uniform
    auto bl = k.let("bl", sg_lane[g]);                                         // so is this load

    if (sh == shape::branches) {
        auto w = k.let("w", 0u);
        k.if_(g % 2u == 1u, [&] { w = dsl::subgroup_shuffle_down(v, l); });
        k.if_(g % 2u == 0u, [&] { w = dsl::subgroup_broadcast(v, bl ^ 1u); });
        put(s_branch_parity, w);
        auto w1 = k.let("w1", 0u);
        k.if_(g % 2u == 1u, [&] { w1 = dsl::subgroup_shuffle_down(v, l); }).else_([&] { w1 = dsl::subgroup_broadcast(v, bl ^ 1u); });
        put(s_branch_if_else, w1);
        auto w3 = k.let("w3", 0u);
        k.if_((bl & 4u) != 0u, [&] {
            w3 = dsl::subgroup_ballot(c);
            k.if_(dsl::subgroup_id() == 0u, [&] { w3 = dsl::subgroup_shuffle_xor(w3 + v, 1u); });
        }).else_([&] { w3 = dsl::subgroup_inclusive_add(v); });
        put(s_branch_nested, w3);
        return k.program();
    }

    // Every op on operands from the buffers.
    put(s_broadcast, k.let("r_broadcast", dsl::subgroup_broadcast(v, bl)));
    put(s_shuffle, k.let("r_shuffle", dsl::subgroup_shuffle(v, l)));
    put(s_shuffle_up, k.let("r_shuffle_up", dsl::subgroup_shuffle_up(v, l)));
    put(s_shuffle_down, k.let("r_shuffle_down", dsl::subgroup_shuffle_down(v, l)));
    put(s_shuffle_xor, k.let("r_shuffle_xor", dsl::subgroup_shuffle_xor(v, l)));
    put(s_ballot, k.let("r_ballot", dsl::subgroup_ballot(c)));
    put(s_any, dsl::select(k.let("r_any", dsl::subgroup_any(c)), 1u, 0u));
    put(s_all, dsl::select(k.let("r_all", dsl::subgroup_all(c)), 1u, 0u));
    put(s_inclusive_add, k.let("r_inclusive", dsl::subgroup_inclusive_add(v)));
    put(s_exclusive_add, k.let("r_exclusive", dsl::subgroup_exclusive_add(v)));
    put(s_local_id, dsl::subgroup_local_id());
    put(s_id, dsl::subgroup_id());
    put(s_size, dsl::subgroup_size());

    // Constant and computed lanes, as kernels write them.
    put(s_broadcast_first, k.let("r_first", dsl::subgroup_broadcast(v, 0u)));
    put(s_broadcast_last, k.let("r_last", dsl::subgroup_broadcast(v, S - 1u)));
    put(s_xor_1, k.let("r_xor_1", dsl::subgroup_shuffle_xor(v, 1u)));
    put(s_up_1, k.let("r_up_1", dsl::subgroup_shuffle_up(v, 1u)));
    put(s_down_1, k.let("r_down_1", dsl::subgroup_shuffle_down(v, 1u)));
    put(s_rotate, k.let("r_rotate", dsl::subgroup_shuffle(v, dsl::subgroup_local_id() + 1u)));

    // A loop whose trip count is the same for a subgroup, but not for the workgroup.
    auto acc = k.let("acc", v);
    auto ballots = k.let("ballots", 0u);
    auto trips = k.let("trips", g % 3u + 1u);
    k.for_("j", 0u, trips, [&](auto j) {
        auto t = k.let("t", dsl::subgroup_inclusive_add(acc ^ l));
        acc = dsl::subgroup_shuffle_xor(t, j + 1u);
        auto b = k.let("b", dsl::subgroup_ballot(((acc >> j) & 1u) != 0u));
        ballots = ballots * 3u + b;
    });
    put(s_loop_value, acc);
    put(s_loop_ballots, ballots);

    // Branches on conditions the same for a subgroup (more in the branches program).
    auto w2 = k.let("w2", 0xDEADu);
    k.if_(dsl::subgroup_id() == 1u, [&] { w2 = dsl::subgroup_exclusive_add(v); });
    put(s_if_second_subgroup, w2);
    auto w3 = k.let("w3", 0xBEEFu);
    auto w4 = k.let("w4", 7u);
    k.if_((bl & 4u) != 0u, [&] {
        w3 = dsl::subgroup_ballot(c);
        auto all = k.let("q", dsl::subgroup_all(c));
        w4 = dsl::select(all, 1u, 0u);
    });
    put(s_if_flag, w3);
    put(s_if_flag_all, w4);

    // Each lane writes its slot of workgroup memory and reads another lane's of its own subgroup.
    auto base = k.let("base", dsl::subgroup_id() * S);
    k.store(stage, dsl::local_id(), v * 3u + 1u);
    k.subgroup_barrier();
    auto r1 = k.let("r1", stage[base + (dsl::subgroup_local_id() + 1u) % S]);
    put(s_barrier_1, r1);
    k.subgroup_barrier();
    k.store(stage, dsl::local_id(), r1 ^ 0x5A5A5A5Au);
    k.subgroup_barrier();
    put(s_barrier_2, k.let("r2", stage[base + (S - 1u) - dsl::subgroup_local_id()]));

    // Whole subgroups leave; the others go on with their subgroup operations.
    k.if_(g % 4u == 3u, [&] { k.return_(); });
    put(s_after_return, k.let("z", dsl::subgroup_inclusive_add(v ^ l)));
    return k.program();
}

// ---- inputs -----------------------------------------------------------------------------------

std::vector<std::uint8_t> bytes_of(const words& w) {
    std::vector<std::uint8_t> out(4 * w.size());
    for (std::size_t k = 0; k < w.size(); ++k)
        for (int b = 0; b < 4; ++b) out[4 * k + b] = std::uint8_t(w[k] >> (8 * b));
    return out;
}
words words_of(const std::vector<std::uint8_t>& d) {
    words out(d.size() / 4);
    for (std::size_t k = 0; k < out.size(); ++k)
        for (int b = 0; b < 4; ++b) out[k] |= std::uint32_t(d[4 * k + b]) << (8 * b);
    return out;
}

struct ops_inputs {
    words val, lane, cond, sg_lane;
};

buffers to_buffers(const ops_inputs& in) {
    buffers b(binding_count);
    b[b_val] = bytes_of(in.val);
    b[b_lane] = bytes_of(in.lane);
    b[b_cond] = bytes_of(in.cond);
    b[b_sg_lane] = bytes_of(in.sg_lane);
    b[b_out] = bytes_of(words(slot_count * in.val.size(), canary));
    return b;
}

// Lanes, deltas and masks in and out of range.
std::vector<std::uint32_t> interesting_lanes(std::uint32_t S, std::mt19937& rng) {
    return {0u, 1u, S - 1u, S, S + 3u, 37u, 0xFFFFFFFFu, std::uint32_t(rng() % S), std::uint32_t(rng() % (2 * S)),
            std::uint32_t(rng())};
}

enum class input_kind { uniform, divergent, all_true, all_false };
const char* kind_name(input_kind k) {
    switch (k) {
    case input_kind::uniform: return "subgroup-uniform inputs";
    case input_kind::divergent: return "divergent inputs, conditions mixed";
    case input_kind::all_true: return "divergent inputs, conditions all true";
    case input_kind::all_false: return "divergent inputs, conditions all false";
    }
    return "?";
}

ops_inputs make_inputs(input_kind kind, std::uint32_t S, std::uint32_t n, std::mt19937& rng) {
    const auto lanes = interesting_lanes(S, rng);
    const std::uint32_t subgroups = n / S;
    ops_inputs in;
    in.val.resize(n);
    in.lane.resize(n);
    in.cond.resize(n);
    in.sg_lane.resize(subgroups);
    for (std::uint32_t g = 0; g < subgroups; ++g) {
        in.sg_lane[g] = kind == input_kind::uniform ? lanes[g % lanes.size()] : lanes[rng() % lanes.size()];
        const std::uint32_t value = std::uint32_t(rng()), lane = lanes[(g + 3) % lanes.size()];
        for (std::uint32_t k = g * S; k < (g + 1) * S; ++k) {
            switch (kind) {
            case input_kind::uniform:
                in.val[k] = value;
                in.lane[k] = lane;
                in.cond[k] = g % 2;
                break;
            case input_kind::divergent:
            case input_kind::all_true:
            case input_kind::all_false:
                in.val[k] = std::uint32_t(rng());
                in.lane[k] = lanes[rng() % lanes.size()];
                in.cond[k] = kind == input_kind::all_true ? std::uint32_t(rng()) | 1u
                             : kind == input_kind::all_false ? 0u
                                                             : std::uint32_t(rng() % 2);
                break;
            }
        }
    }
    return in;
}

// ---- comparing --------------------------------------------------------------------------------

// Every slot of `got` equals `want`; a mismatch names the op, the invocation and both values.
// Returns the number of mismatches.
std::uint32_t compare_slots(const words& got, const words& want, std::uint32_t n, std::uint32_t S, const char* got_name) {
    BOOST_TEST_REQUIRE(got.size() == want.size());
    std::uint32_t total = 0;
    for (std::uint32_t s = 0; s < slot_count; ++s)
        BOOST_TEST_CONTEXT("op " << slot_names[s]) {
            std::uint32_t bad = 0;
            for (std::uint32_t i = 0; i < n; ++i) {
                const std::uint32_t a = got[s * n + i], b = want[s * n + i];
                if (a == b) continue;
                if (bad++ < 6)
                    BOOST_ERROR("invocation " << i << " (dispatch subgroup " << i / S << ", lane " << i % S << "): " << got_name
                                              << " 0x" << std::hex << a << ", interpreter 0x" << b << std::dec);
            }
            if (bad > 6) BOOST_ERROR(bad << " invocations differ in all");
            total += bad;
        }
    return total;
}

std::string inputs_dump(const ops_inputs& in) {
    std::ostringstream os;
    os << "inputs: val/lane/cond per invocation:";
    for (std::size_t k = 0; k < in.val.size() && k < 64; ++k)
        os << (k % 8 ? " " : "\n  ") << std::hex << in.val[k] << "/" << in.lane[k] << "/" << in.cond[k] << std::dec;
    os << "\n  sg_lane:";
    for (auto x : in.sg_lane) os << " " << x;
    return os.str();
}

// The ids are also checked against their definition, independently of the interpreter.
void check_ids(const words& got, std::uint32_t n, std::uint32_t S, std::uint32_t wg) {
    std::uint32_t bad = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t local = i % wg;
        if (got[s_local_id * n + i] != local % S || got[s_id * n + i] != local / S || got[s_size * n + i] != S)
            if (bad++ < 4)
                BOOST_ERROR("invocation " << i << ": subgroup_local_id " << got[s_local_id * n + i] << ", subgroup_id "
                                          << got[s_id * n + i] << ", subgroup_size " << got[s_size * n + i] << "; expected "
                                          << local % S << ", " << local / S << ", " << S);
    }
}

words run_reference(const ir::program& p, std::uint32_t groups, const ops_inputs& in) {
    buffers b = to_buffers(in);
    ref::run(p, {groups, 1, 1}, b, ref::run_options::checking_races());
    return words_of(b[b_out]);
}

struct mode {
    std::string name;
    std::uint32_t workgroup;
    std::optional<subgroup_lowering> forced;
};

// Builds `ops_program(S, m.workgroup, sh)` as `m` says and checks every input kind on the device.
void check_mode(vyre::test::device_case& dev, std::uint32_t S, const mode& m, std::mt19937& rng, shape sh) {
    const auto native = rt::native_subgroups(dev.ctx().device());
    const ir::program p = ops_program(S, m.workgroup, sh);
    const std::uint32_t groups = m.workgroup == S ? std::max(8u, 64u / S) : 3u;
    const std::uint32_t n = groups * m.workgroup;
    rt::compiled_program cp(p, m.forced);
    subgroup_lowering used{};
    try {
        used = cp.subgroups_on(dev.ctx());
    } catch (const vyre::resource_error& e) {
        // cl_khr_subgroups devices run the subgroup size they choose; PoCL's is the whole
        // workgroup, so several subgroups per workgroup cannot be had there (documented in
        // runtime/program_cache.hpp). Any other failure is a failure.
        if (native == subgroup_lowering::khr && !m.forced && m.workgroup != S) {
            BOOST_TEST_MESSAGE(dev.label() << ": no " << S << "-wide subgroups in workgroups of " << m.workgroup << ": " << e.what());
            return;
        }
        throw;
    }
    if (m.forced) BOOST_TEST((used == *m.forced), "forced " << subgroup_lowering_name(*m.forced) << " but built " << subgroup_lowering_name(used));
    else if (native == subgroup_lowering::khr && m.workgroup == S)
        BOOST_TEST((used == subgroup_lowering::khr || used == subgroup_lowering::emulated), "built " << subgroup_lowering_name(used));
    else
        BOOST_TEST((used == native), "native " << subgroup_lowering_name(native) << " but built " << subgroup_lowering_name(used));
    BOOST_TEST_CONTEXT("lowering " << subgroup_lowering_name(used)) {
        for (const auto kind : {input_kind::uniform, input_kind::divergent, input_kind::all_true, input_kind::all_false})
            BOOST_TEST_CONTEXT(kind_name(kind)) {
                const ops_inputs in = make_inputs(kind, S, n, rng);
                buffers device = to_buffers(in);
                rt::run(dev.ctx(), cp, {groups, 1, 1}, device);
                const words got = words_of(device[b_out]);
                const words want = run_reference(p, groups, in);
                if (compare_slots(got, want, n, S, "device") != 0)
                    BOOST_ERROR("the device differs from the interpreter; " << inputs_dump(in) << "\nprogram:\n" << p);
                if (sh == shape::all_ops) check_ids(got, n, S, m.workgroup);
            }
    }
}

// ---- small programs for validation ------------------------------------------------------------

const ir::buffer_decl in_buf = ir::buffer_decl::storage("in", 0, ir::buffer_access::read_only, ir::data_type::u32);
const ir::buffer_decl out_buf = ir::buffer_decl::storage("out", 1, ir::buffer_access::read_write, ir::data_type::u32);

ir::program small(std::vector<ir::node> body, std::uint32_t S = 8, std::array<std::uint32_t, 3> wg = {32, 1, 1},
                  std::vector<ir::function> functions = {}) {
    ir::program p;
    p.name = "sg";
    p.buffers = {in_buf, out_buf};
    p.workgroup_size = wg;
    p.subgroup_size = S;
    p.functions = std::move(functions);
    p.body = std::move(body);
    return p;
}

ir::expr U(const char* name) { return ir::var(name, ir::data_type::u32); }
ir::expr B(const char* name) { return ir::var(name, ir::data_type::boolean); }
ir::expr sg(ir::subgroup_op op, std::vector<ir::expr> args) { return ir::subgroup(op, std::move(args)); }
ir::expr eq(ir::expr a, ir::expr b) { return ir::binary(ir::bin_op::eq, std::move(a), std::move(b)); }
ir::expr add(ir::expr a, ir::expr b) { return ir::binary(ir::bin_op::add, std::move(a), std::move(b)); }

// x = in[invocation], c = x is odd: the operands of most cases below.
std::vector<ir::node> prologue() {
    return {ir::let("x", ir::load(in_buf, ir::invocation_id())),
            ir::let("c", ir::binary(ir::bin_op::ne, ir::binary(ir::bin_op::bit_and, U("x"), ir::lit_u32(1)), ir::lit_u32(0)))};
}
ir::program with_prologue(std::vector<ir::node> rest, std::uint32_t S = 8, std::array<std::uint32_t, 3> wg = {32, 1, 1},
                          std::vector<ir::function> functions = {}) {
    auto body = prologue();
    for (auto& n : rest) body.push_back(std::move(n));
    body.push_back(ir::store(out_buf, ir::invocation_id(), U("x")));
    return small(std::move(body), S, wg, std::move(functions));
}

void expect_invalid(const ir::program& p, const std::string& part) {
    BOOST_TEST_CONTEXT("program:\n" << p) {
        try {
            ir::validate(p);
            BOOST_ERROR("validated, but must be rejected with a message containing \"" << part << "\"");
        } catch (const vyre::validation_error& e) {
            const std::string what = e.what();
            BOOST_TEST(what.find(part) != std::string::npos, "message \"" << what << "\" does not contain \"" << part << "\"");
        }
    }
}
void expect_valid(const ir::program& p) {
    BOOST_TEST_CONTEXT("program:\n" << p) {
        BOOST_CHECK_NO_THROW(ir::validate(p));
        // and the interpreter runs it
        buffers b(2);
        b[0] = bytes_of(words{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                              29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,
                              54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64});
        b[1].assign(64 * 4, 0);
        BOOST_CHECK_NO_THROW(ref::run(p, {2, 1, 1}, b));
    }
}

} // namespace

// =================================================================================================
// A. Device against interpreter
// =================================================================================================

namespace {

// Every op at subgroup size S under each lowering the device has: its own, with several subgroups
// per workgroup unless that is emulation (which needs the subgroup to be the whole workgroup), its
// own with one subgroup per workgroup, and emulation forced (on devices with real subgroups too).
void check_size(vyre::test::device_case& dev, std::uint32_t S, shape sh = shape::all_ops) {
    const auto native = rt::native_subgroups(dev.ctx().device());
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed << ", native lowering " << subgroup_lowering_name(native)) {
        std::mt19937 rng(static_cast<std::uint32_t>(seed + S));
        std::vector<mode> modes;
        if (native != subgroup_lowering::emulated) modes.push_back({"automatic, 4 subgroups per workgroup", 4 * S, std::nullopt});
        modes.push_back({"automatic, one subgroup per workgroup", S, std::nullopt});
        modes.push_back({"emulation forced", S, subgroup_lowering::emulated});
        for (const mode& m : modes)
            BOOST_TEST_CONTEXT("subgroup size " << S << ", " << m.name << " (workgroup " << m.workgroup << ")") {
                // One mode failing to build must not hide the others.
                try {
                    check_mode(dev, S, m, rng, sh);
                } catch (const std::exception& e) {
                    BOOST_ERROR("exception: " << e.what());
                }
            }
    }
}

} // namespace

// One case per size, so that a driver that dies on one size (a signal, not an exception) leaves
// the others to run.
VYRE_DEVICE_TEST(every_subgroup_op_agrees_with_the_interpreter_at_size_1) { check_size(dev, 1); }
VYRE_DEVICE_TEST(every_subgroup_op_agrees_with_the_interpreter_at_size_2) { check_size(dev, 2); }
VYRE_DEVICE_TEST(every_subgroup_op_agrees_with_the_interpreter_at_size_4) { check_size(dev, 4); }
VYRE_DEVICE_TEST(every_subgroup_op_agrees_with_the_interpreter_at_size_8) { check_size(dev, 8); }
VYRE_DEVICE_TEST(every_subgroup_op_agrees_with_the_interpreter_at_size_16) { check_size(dev, 16); }
VYRE_DEVICE_TEST(every_subgroup_op_agrees_with_the_interpreter_at_size_32) { check_size(dev, 32); }

// Subgroup operations in ifs on g's parity (one if per parity, and one if-else) and in both
// branches of an if-else with another if nested. PoCL 5.0 aborted in its compiler on the
// emulated lowering of the two ifs on g's parity when they stood in the middle of the all-ops
// program (an assertion in its work-item loops, "Cannot add context restore for a PHI node at the
// region entry"), though not in this program: a case of its own, so that a driver dying on such
// code cannot take the other cases down with it.
VYRE_DEVICE_TEST(subgroup_ops_in_branches_on_the_subgroup_index) {
    for (const std::uint32_t S : {8u, 32u, 2u}) check_size(dev, S, shape::branches);
}

// Emulation keeps one subgroup per workgroup: asking it for more is an error, not a wrong result.
VYRE_DEVICE_TEST(emulation_refuses_several_subgroups_per_workgroup) {
    const ir::program p = ops_program(8, 32);
    BOOST_CHECK_THROW((rt::compiled_program{p, subgroup_lowering::emulated}), vyre::resource_error);
    if (rt::native_subgroups(dev.ctx().device()) == subgroup_lowering::emulated) {
        rt::compiled_program cp(p);
        BOOST_CHECK_THROW(cp.subgroups_on(dev.ctx()), vyre::resource_error);
    }
}

// =================================================================================================
// B. The interpreter's results, by hand
// =================================================================================================

namespace {

struct hand_case {
    std::uint32_t S, wg;
    ops_inputs in;
    words out;

    hand_case(std::uint32_t s, std::uint32_t w, words val, words lane, words cond, words sg_lane, shape sh = shape::all_ops)
        : S(s), wg(w) {
        in = {std::move(val), std::move(lane), std::move(cond), std::move(sg_lane)};
        out = run_reference(ops_program(S, wg, sh), std::uint32_t(in.val.size()) / wg, in);
    }
    words at(slot s) const {
        const std::size_t n = in.val.size();
        return words(out.begin() + std::ptrdiff_t(s * n), out.begin() + std::ptrdiff_t((s + 1) * n));
    }
};

#define VYRE_SLOT_IS(hc, s, ...)                                                                   \
    BOOST_TEST_CONTEXT("op " << slot_names[s]) {                                                   \
        const words expected_ = __VA_ARGS__;                                                       \
        BOOST_TEST((hc).at(s) == expected_, boost::test_tools::per_element());                     \
    }

} // namespace

BOOST_AUTO_TEST_CASE(interpreter_shuffles_by_one_in_a_subgroup_of_four) {
    const hand_case h(4, 4, {10, 20, 30, 40}, {1, 1, 1, 1}, {1, 0, 1, 1}, {6});
    VYRE_SLOT_IS(h, s_broadcast, {30, 30, 30, 30}); // lane 6 of 4 is lane 2
    VYRE_SLOT_IS(h, s_shuffle, {20, 20, 20, 20});
    VYRE_SLOT_IS(h, s_shuffle_up, {10, 10, 20, 30});
    VYRE_SLOT_IS(h, s_shuffle_down, {20, 30, 40, 40});
    VYRE_SLOT_IS(h, s_shuffle_xor, {20, 10, 40, 30});
    VYRE_SLOT_IS(h, s_ballot, {0b1101, 0b1101, 0b1101, 0b1101});
    VYRE_SLOT_IS(h, s_any, {1, 1, 1, 1});
    VYRE_SLOT_IS(h, s_all, {0, 0, 0, 0});
    VYRE_SLOT_IS(h, s_inclusive_add, {10, 30, 60, 100});
    VYRE_SLOT_IS(h, s_exclusive_add, {0, 10, 30, 60});
    VYRE_SLOT_IS(h, s_local_id, {0, 1, 2, 3});
    VYRE_SLOT_IS(h, s_id, {0, 0, 0, 0});
    VYRE_SLOT_IS(h, s_size, {4, 4, 4, 4});
    VYRE_SLOT_IS(h, s_broadcast_first, {10, 10, 10, 10});
    VYRE_SLOT_IS(h, s_broadcast_last, {40, 40, 40, 40});
    VYRE_SLOT_IS(h, s_xor_1, {20, 10, 40, 30});
    VYRE_SLOT_IS(h, s_up_1, {10, 10, 20, 30});
    VYRE_SLOT_IS(h, s_down_1, {20, 30, 40, 40});
    VYRE_SLOT_IS(h, s_rotate, {20, 30, 40, 10});
    // Subgroup 0 is not the second; sg_lane 6 has bit 4 set: the ballot and All of the conditions.
    VYRE_SLOT_IS(h, s_if_second_subgroup, {0xDEAD, 0xDEAD, 0xDEAD, 0xDEAD});
    VYRE_SLOT_IS(h, s_if_flag, {0b1101, 0b1101, 0b1101, 0b1101});
    VYRE_SLOT_IS(h, s_if_flag_all, {0, 0, 0, 0});
    // stage = {31, 61, 91, 121}; lane i reads lane (i + 1) % 4; then stage = r1 ^ 0x5A5A5A5A and
    // lane i reads lane 3 - i.
    VYRE_SLOT_IS(h, s_barrier_1, {61, 91, 121, 31});
    VYRE_SLOT_IS(h, s_barrier_2, {31 ^ 0x5A5A5A5Au, 121 ^ 0x5A5A5A5Au, 91 ^ 0x5A5A5A5Au, 61 ^ 0x5A5A5A5Au});
    // v ^ l = {11, 21, 31, 41}; g = 0 does not return.
    VYRE_SLOT_IS(h, s_after_return, {11, 32, 63, 104});
    // One trip (g % 3 + 1 = 1, j = 0): t = InclusiveAdd(v ^ l) = {11, 32, 63, 104}; acc = t of lane
    // i ^ 1 = {32, 11, 104, 63}; ballot of bit 0 of acc: lanes 1 and 3 = 0b1010.
    VYRE_SLOT_IS(h, s_loop_value, {32, 11, 104, 63});
    VYRE_SLOT_IS(h, s_loop_ballots, {0b1010, 0b1010, 0b1010, 0b1010});
}

BOOST_AUTO_TEST_CASE(interpreter_lanes_out_of_range) {
    // Lanes 4 (= S): Shuffle wraps to lane 0; Up, Down and Xor leave every value where it is.
    const hand_case a(4, 4, {10, 20, 30, 40}, {4, 4, 4, 4}, {0, 0, 0, 0}, {0xFFFFFFFFu});
    VYRE_SLOT_IS(a, s_broadcast, {40, 40, 40, 40}); // lane 0xFFFFFFFF % 4 = 3
    VYRE_SLOT_IS(a, s_shuffle, {10, 10, 10, 10});
    VYRE_SLOT_IS(a, s_shuffle_up, {10, 20, 30, 40});
    VYRE_SLOT_IS(a, s_shuffle_down, {10, 20, 30, 40});
    VYRE_SLOT_IS(a, s_shuffle_xor, {10, 20, 30, 40});
    VYRE_SLOT_IS(a, s_ballot, {0, 0, 0, 0});
    VYRE_SLOT_IS(a, s_any, {0, 0, 0, 0});
    VYRE_SLOT_IS(a, s_all, {0, 0, 0, 0});
    // A lane, delta or mask of its own per invocation.
    const hand_case b(4, 4, {10, 20, 30, 40}, {3, 6, 0xFFFFFFFFu, 1}, {5, 9, 1, 0xFFFFFFFFu}, {37});
    VYRE_SLOT_IS(b, s_broadcast, {20, 20, 20, 20});        // 37 % 4 = 1
    VYRE_SLOT_IS(b, s_shuffle, {40, 30, 40, 20});          // lanes 3, 2, 3, 1
    VYRE_SLOT_IS(b, s_shuffle_up, {10, 20, 30, 30});       // only lane 3 - 1 exists
    VYRE_SLOT_IS(b, s_shuffle_down, {40, 20, 30, 40});     // only lane 0 + 3 exists
    VYRE_SLOT_IS(b, s_shuffle_xor, {40, 20, 30, 30});      // 0^3 = 3, 1^6 = 7, 2^~0 huge, 3^1 = 2
    VYRE_SLOT_IS(b, s_ballot, {0b1111, 0b1111, 0b1111, 0b1111}); // nonzero conditions are all true
    VYRE_SLOT_IS(b, s_any, {1, 1, 1, 1});
    VYRE_SLOT_IS(b, s_all, {1, 1, 1, 1});
}

BOOST_AUTO_TEST_CASE(interpreter_keeps_subgroups_apart) {
    // Two subgroups of 4 in a workgroup of 8, and a second workgroup: g = 0, 1, 2, 3.
    const hand_case h(4, 8, {1, 2, 3, 4, 5, 6, 7, 8, 0xFFFFFFFFu, 2, 0x80000000u, 0x80000000u, 0, 0, 0, 1},
                      words(16, 1), {1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, {1, 7, 0, 2});
    VYRE_SLOT_IS(h, s_broadcast, {2, 2, 2, 2, 8, 8, 8, 8, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0, 0, 0});
    VYRE_SLOT_IS(h, s_inclusive_add, {1, 3, 6, 10, 5, 11, 18, 26, 0xFFFFFFFFu, 1, 0x80000001u, 1, 0, 0, 0, 1});
    VYRE_SLOT_IS(h, s_exclusive_add, {0, 1, 3, 6, 0, 5, 11, 18, 0, 0xFFFFFFFFu, 1, 0x80000001u, 0, 0, 0, 0});
    VYRE_SLOT_IS(h, s_ballot, {15, 15, 15, 15, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0});
    VYRE_SLOT_IS(h, s_any, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0});
    VYRE_SLOT_IS(h, s_all, {1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    VYRE_SLOT_IS(h, s_shuffle_down, {2, 3, 4, 4, 6, 7, 8, 8, 2, 0x80000000u, 0x80000000u, 0x80000000u, 0, 0, 1, 1});
    VYRE_SLOT_IS(h, s_local_id, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
    VYRE_SLOT_IS(h, s_id, {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1});
    // Only subgroup 1 of each workgroup takes the branch.
    VYRE_SLOT_IS(h, s_if_second_subgroup,
                 {0xDEAD, 0xDEAD, 0xDEAD, 0xDEAD, 0, 5, 11, 18, 0xDEAD, 0xDEAD, 0xDEAD, 0xDEAD, 0, 0, 0, 0});
    // g = 3 returned before its last op: its slots keep the canary.
    // v ^ 1 = {0, 3, 2, 5}, {4, 7, 6, 9}, {0xFFFFFFFE, 3, 0x80000001, 0x80000001}.
    VYRE_SLOT_IS(h, s_after_return, {0, 3, 5, 10, 4, 11, 17, 26, 0xFFFFFFFEu, 1, 0x80000002u, 3, canary, canary, canary, canary});
    // Only g = 1 has bit 2 (4) in sg_lane (7): it alone takes the branch on it.
    VYRE_SLOT_IS(h, s_if_flag, {0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF, 2, 2, 2, 2, 0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF, 0xBEEF});
    VYRE_SLOT_IS(h, s_if_flag_all, {7, 7, 7, 7, 0, 0, 0, 0, 7, 7, 7, 7, 7, 7, 7, 7});
}

BOOST_AUTO_TEST_CASE(interpreter_runs_the_branches_its_subgroups_take) {
    // The branches program, g = 0..3 with sg_lane 4, 7, 0, 2.
    const hand_case h(4, 8, {1, 2, 3, 4, 5, 6, 7, 8, 0xFFFFFFFFu, 2, 0x80000000u, 0x80000000u, 0, 0, 0, 1}, words(16, 1),
                      {1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, {4, 7, 0, 2}, shape::branches);
    // Odd g shuffle down by 1, even g broadcast lane sg_lane ^ 1 (5 % 4 = 1, and 1).
    VYRE_SLOT_IS(h, s_branch_parity, {2, 2, 2, 2, 6, 7, 8, 8, 2, 2, 2, 2, 0, 0, 1, 1});
    VYRE_SLOT_IS(h, s_branch_if_else, {2, 2, 2, 2, 6, 7, 8, 8, 2, 2, 2, 2, 0, 0, 1, 1});
    // g = 0 (bit 4, subgroup 0): ballot 15, then ShuffleXor by 1 of 15 + v = {16, 17, 18, 19};
    // g = 1 (bit 4, subgroup 1): the ballot 0b0010; g = 2 and 3: InclusiveAdd.
    VYRE_SLOT_IS(h, s_branch_nested, {17, 16, 19, 18, 2, 2, 2, 2, 0xFFFFFFFFu, 1, 0x80000001u, 1, 0, 0, 0, 1});
    // The other slots are not written.
    VYRE_SLOT_IS(h, s_ballot, words(16, canary));
}

BOOST_AUTO_TEST_CASE(interpreter_at_the_smallest_and_largest_sizes) {
    // Subgroups of 1: every op sees only itself.
    const hand_case one(1, 1, {7, 9}, {5, 0}, {1, 0}, {3, 0});
    VYRE_SLOT_IS(one, s_broadcast, {7, 9});
    VYRE_SLOT_IS(one, s_shuffle, {7, 9});
    VYRE_SLOT_IS(one, s_shuffle_up, {7, 9});
    VYRE_SLOT_IS(one, s_shuffle_down, {7, 9});
    VYRE_SLOT_IS(one, s_shuffle_xor, {7, 9});
    VYRE_SLOT_IS(one, s_ballot, {1, 0});
    VYRE_SLOT_IS(one, s_any, {1, 0});
    VYRE_SLOT_IS(one, s_all, {1, 0});
    VYRE_SLOT_IS(one, s_inclusive_add, {7, 9});
    VYRE_SLOT_IS(one, s_exclusive_add, {0, 0});
    // Subgroups of 32: the ballot fills all 32 bits; lane 31's ShuffleXor by 16 reads lane 15.
    words val(32), cond(32, 1);
    for (std::uint32_t k = 0; k < 32; ++k) val[k] = 100 + k;
    const hand_case big(32, 32, val, words(32, 16), cond, {31});
    words xor16(32), ballot(32, 0xFFFFFFFFu), last(32, 131), incl(32);
    for (std::uint32_t k = 0; k < 32; ++k) {
        xor16[k] = 100 + (k ^ 16);
        incl[k] = (k + 1) * 100 + k * (k + 1) / 2;
    }
    VYRE_SLOT_IS(big, s_shuffle_xor, xor16);
    VYRE_SLOT_IS(big, s_ballot, ballot);
    VYRE_SLOT_IS(big, s_all, words(32, 1));
    VYRE_SLOT_IS(big, s_broadcast, last);
    VYRE_SLOT_IS(big, s_inclusive_add, incl);
}

// =================================================================================================
// C. Validation
// =================================================================================================

BOOST_AUTO_TEST_CASE(subgroup_values_are_u32_and_conditions_bool) {
    using ir::subgroup_op;
    const auto x_i32 = ir::let("xi", ir::cast(ir::data_type::i32, U("x")));
    const auto XI = ir::var("xi", ir::data_type::i32);
    expect_invalid(with_prologue({x_i32, ir::let("y", sg(subgroup_op::shuffle, {XI, ir::subgroup_local_id()}))}),
                   "SubgroupShuffle of a I32 value: subgroup values are U32");
    expect_invalid(with_prologue({x_i32, ir::let("y", sg(subgroup_op::broadcast, {XI, ir::lit_u32(0)}))}), "SubgroupBroadcast of a I32 value");
    expect_invalid(with_prologue({x_i32, ir::let("y", sg(subgroup_op::inclusive_add, {XI}))}), "SubgroupInclusiveAdd of a I32 value");
    expect_invalid(with_prologue({ir::let("y", sg(subgroup_op::shuffle_xor, {ir::cast(ir::data_type::u64, U("x")), ir::lit_u32(1)}))}),
                   "SubgroupShuffleXor of a U64 value");
    expect_invalid(with_prologue({ir::let("y", sg(subgroup_op::ballot, {U("x")}))}), "the condition of SubgroupBallot must be Bool");
    expect_invalid(with_prologue({ir::let("y", sg(subgroup_op::shuffle, {U("x"), ir::lit_i32(1)}))}),
                   "the lane operand of SubgroupShuffle must be U32");
    expect_invalid(with_prologue({ir::let("y", sg(subgroup_op::shuffle, {U("x")}))}), "SubgroupShuffle needs 2 operands, got 1");
}

BOOST_AUTO_TEST_CASE(subgroup_ops_are_whole_values_of_let_or_assign) {
    using ir::subgroup_op;
    expect_invalid(with_prologue({ir::let("y", add(sg(subgroup_op::ballot, {B("c")}), ir::lit_u32(1)))}),
                   "SubgroupBallot must be the whole value of a let or assign");
    expect_invalid(with_prologue({ir::store(out_buf, ir::invocation_id(), sg(subgroup_op::inclusive_add, {U("x")}))}),
                   "SubgroupInclusiveAdd must be the whole value of a let or assign");
    expect_invalid(with_prologue({ir::if_(sg(subgroup_op::any, {B("c")}), {})}), "SubgroupAny must be the whole value of a let or assign");
    expect_invalid(with_prologue({ir::let("y", sg(subgroup_op::shuffle, {sg(subgroup_op::shuffle, {U("x"), ir::lit_u32(1)}), ir::lit_u32(2)}))}),
                   "SubgroupShuffle must be the whole value of a let or assign");
    // The whole value of an assign is fine.
    expect_valid(with_prologue({ir::let("y", ir::lit_u32(0)), ir::assign("y", sg(subgroup_op::shuffle_down, {U("x"), ir::lit_u32(1)}))}));
}

BOOST_AUTO_TEST_CASE(subgroup_ops_need_the_whole_subgroup) {
    using ir::subgroup_op;
    const std::string divergent = "inside control flow that differs within a subgroup";
    // A condition that differs within a subgroup.
    expect_invalid(with_prologue({ir::if_(eq(ir::local_id(), ir::lit_u32(0)), {ir::let("y", sg(subgroup_op::inclusive_add, {U("x")}))})}),
                   "SubgroupInclusiveAdd " + divergent);
    expect_invalid(with_prologue({ir::if_(B("c"), {}, {ir::let("y", sg(subgroup_op::ballot, {B("c")}))})}), "SubgroupBallot " + divergent);
    // A loop bound that does.
    expect_invalid(with_prologue({ir::loop("j", ir::lit_u32(0), ir::invocation_id(), {ir::let("y", sg(subgroup_op::shuffle_xor, {U("x"), ir::lit_u32(1)}))})}),
                   "SubgroupShuffleXor " + divergent);
    // A break that does.
    expect_invalid(with_prologue({ir::loop("j", ir::lit_u32(0), ir::lit_u32(4),
                                           {ir::if_(eq(ir::subgroup_local_id(), U("j")), {ir::break_()}),
                                            ir::let("y", sg(subgroup_op::any, {B("c")}))})}),
                   "SubgroupAny " + divergent);
    // After some invocations of the subgroup returned.
    expect_invalid(with_prologue({ir::if_(B("c"), {ir::return_()}), ir::let("y", sg(subgroup_op::all, {B("c")}))}), "SubgroupAll " + divergent);
    // A variable assigned under divergent control is divergent too.
    expect_invalid(with_prologue({ir::let("f", ir::lit_bool(false)), ir::if_(B("c"), {ir::assign("f", ir::lit_bool(true))}),
                                  ir::if_(B("f"), {ir::let("y", sg(subgroup_op::exclusive_add, {U("x")}))})}),
                   "SubgroupExclusiveAdd " + divergent);
    // Subgroup barriers likewise.
    expect_invalid(with_prologue({ir::if_(eq(ir::local_id(), ir::lit_u32(0)), {ir::subgroup_barrier()})}),
                   "subgroup_barrier inside control flow that differs within a subgroup");
    expect_invalid(with_prologue({ir::loop("j", ir::lit_u32(0), ir::subgroup_local_id(), {ir::subgroup_barrier()})}),
                   "subgroup_barrier inside control flow that differs within a subgroup");
}

BOOST_AUTO_TEST_CASE(subgroup_uniform_control_flow_is_accepted) {
    using ir::subgroup_op;
    const auto op = [] { return ir::let("y", sg(subgroup_op::inclusive_add, {U("x")})); };
    expect_valid(with_prologue({ir::if_(eq(ir::subgroup_id(), ir::lit_u32(0)), {op()})}));
    expect_valid(with_prologue({ir::if_(ir::binary(ir::bin_op::ne, ir::load(in_buf, ir::workgroup_id()), ir::lit_u32(0)), {op()})}));
    expect_valid(with_prologue({ir::if_(ir::binary(ir::bin_op::ne, ir::load(in_buf, ir::subgroup_id()), ir::lit_u32(0)), {op()}, {op()})}));
    expect_valid(with_prologue({ir::loop("j", ir::lit_u32(0), add(ir::subgroup_id(), ir::lit_u32(1)), {op(), ir::subgroup_barrier()})}));
    expect_valid(with_prologue({ir::if_(eq(ir::subgroup_id(), ir::lit_u32(1)), {ir::return_()}), op(), ir::subgroup_barrier()}));
    expect_valid(with_prologue({ir::if_(eq(ir::subgroup_id(), ir::lit_u32(2)), {ir::subgroup_barrier()})}));
    // A ballot, any or all is the same for the subgroup: it may steer a branch.
    expect_valid(with_prologue({ir::let("a", sg(subgroup_op::any, {B("c")})), ir::if_(B("a"), {op()})}));
    // Broadcast needs a lane the same for the subgroup: a subgroup-uniform variable is one.
    expect_valid(with_prologue({ir::let("ln", add(ir::binary(ir::bin_op::mul, ir::subgroup_id(), ir::lit_u32(3)), ir::lit_u32(1))),
                                ir::let("y", sg(subgroup_op::broadcast, {U("x"), U("ln")}))}));
    expect_valid(with_prologue({ir::let("bits", sg(subgroup_op::ballot, {B("c")})),
                                ir::let("y", sg(subgroup_op::broadcast, {U("x"), ir::unary(ir::un_op::ctz, U("bits"))}))}));
    expect_valid(with_prologue({ir::let("y", sg(subgroup_op::broadcast, {U("x"), ir::load(in_buf, ir::subgroup_id())}))}));
}

BOOST_AUTO_TEST_CASE(broadcast_lane_must_be_subgroup_uniform) {
    using ir::subgroup_op;
    const std::string msg = "SubgroupBroadcast's lane differs between invocations of the subgroup";
    expect_invalid(with_prologue({ir::let("y", sg(subgroup_op::broadcast, {U("x"), ir::subgroup_local_id()}))}), msg);
    expect_invalid(with_prologue({ir::let("y", sg(subgroup_op::broadcast, {U("x"), U("x")}))}), msg);
    // A ReadWrite buffer may change under the subgroup: not uniform even at a uniform index.
    expect_invalid(with_prologue({ir::let("y", sg(subgroup_op::broadcast, {U("x"), ir::load(out_buf, ir::workgroup_id())}))}), msg);
    // Shuffle takes a lane per invocation.
    expect_valid(with_prologue({ir::let("y", sg(subgroup_op::shuffle, {U("x"), ir::subgroup_local_id()}))}));
}

BOOST_AUTO_TEST_CASE(workgroup_barriers_still_need_the_whole_workgroup) {
    const std::string msg = "barrier inside divergent control flow";
    expect_invalid(with_prologue({ir::if_(eq(ir::subgroup_id(), ir::lit_u32(0)), {ir::barrier()})}), msg);
    expect_invalid(with_prologue({ir::loop("j", ir::lit_u32(0), ir::subgroup_id(), {ir::barrier()})}), msg);
    expect_invalid(with_prologue({ir::let("a", sg(ir::subgroup_op::any, {B("c")})), ir::if_(B("a"), {ir::barrier()})}), msg);
    expect_valid(with_prologue({ir::if_(eq(ir::workgroup_id(), ir::lit_u32(0)), {ir::barrier()})}));
}

BOOST_AUTO_TEST_CASE(subgroups_need_a_declared_size_that_fits_the_workgroup) {
    using ir::subgroup_op;
    const auto op = ir::let("y", sg(subgroup_op::ballot, {B("c")}));
    expect_invalid(with_prologue({op}, 0), "SubgroupBallot in a program that declares no subgroup size");
    expect_invalid(with_prologue({ir::let("y", ir::subgroup_local_id())}, 0), "in a program that declares no subgroup size");
    expect_invalid(with_prologue({ir::let("y", ir::subgroup_size())}, 0), "in a program that declares no subgroup size");
    expect_invalid(with_prologue({ir::subgroup_barrier()}, 0), "subgroup_barrier in a program that declares no subgroup size");
    expect_invalid(with_prologue({op}, 3), "subgroup size 3 is not a power of two in 1..32");
    expect_invalid(with_prologue({op}, 64, {64, 1, 1}), "subgroup size 64 is not a power of two in 1..32");
    expect_invalid(with_prologue({op}, 16, {40, 1, 1}), "workgroup size 40 is not a multiple of the subgroup size 16");
    expect_invalid(with_prologue({op}, 8, {8, 4, 1}), "subgroups need a one-dimensional workgroup");
    expect_invalid(with_prologue({op}, 8, {8, 1, 2}), "subgroups need a one-dimensional workgroup");
    for (const std::uint32_t S : sizes)
        BOOST_TEST_CONTEXT("subgroup size " << S) { expect_valid(with_prologue({op}, S, {32, 1, 1})); }
    // A declared size without any subgroup operation is fine.
    expect_valid(with_prologue({}, 4));
}

BOOST_AUTO_TEST_CASE(functions_are_pure_of_subgroups) {
    using ir::subgroup_op;
    const ir::function scan{"scan", {{"a", ir::data_type::u32}}, ir::data_type::u32, sg(subgroup_op::inclusive_add, {U("a")})};
    expect_invalid(with_prologue({ir::let("y", ir::call("scan", ir::data_type::u32, {U("x")}))}, 8, {32, 1, 1}, {scan}),
                   "functions are pure: no SubgroupInclusiveAdd");
    const ir::function lane{"lane", {{"a", ir::data_type::u32}}, ir::data_type::u32, add(U("a"), ir::subgroup_local_id())};
    expect_invalid(with_prologue({ir::let("y", ir::call("lane", ir::data_type::u32, {U("x")}))}, 8, {32, 1, 1}, {lane}),
                   "functions are pure: no subgroup ids");
}

// =================================================================================================
// D. The OpenCL C of each lowering
// =================================================================================================

BOOST_AUTO_TEST_CASE(each_lowering_writes_its_own_primitives) {
    using vyre::lower::to_opencl;
    const ir::program p = ops_program(8, 32), one = ops_program(8, 8);
    const auto has = [](const vyre::lower::kernel_source& ks, const std::string& s) { return ks.source.find(s) != std::string::npos; };

    const auto khr = to_opencl(p, subgroup_lowering::khr);
    BOOST_TEST((khr.subgroups == subgroup_lowering::khr));
    BOOST_TEST(has(khr, "#pragma OPENCL EXTENSION cl_khr_subgroups : enable"), khr.source);
    for (const char* s : {"sub_group_broadcast", "sub_group_scan_inclusive_add", "sub_group_scan_exclusive_add", "sub_group_any",
                          "sub_group_all", "get_sub_group_local_id", "get_sub_group_id", "sub_group_barrier", "sub_group_shuffle"})
        BOOST_TEST(has(khr, s), "khr source lacks " << s);
    BOOST_TEST(!has(khr, "vyre_sg_scratch"));
    BOOST_TEST(!has(khr, "shfl.sync"));

    const auto ptx = to_opencl(p, subgroup_lowering::nvidia_ptx);
    BOOST_TEST((ptx.subgroups == subgroup_lowering::nvidia_ptx));
    for (const char* s : {"shfl.sync", "vote.sync", "bar.warp.sync"}) BOOST_TEST(has(ptx, s), "nvidia_ptx source lacks " << s);
    BOOST_TEST(!has(ptx, "sub_group_"));
    BOOST_TEST(!has(ptx, "cl_khr_subgroups"));
    BOOST_TEST(!has(ptx, "vyre_sg_scratch"));

    const auto emu = to_opencl(one, subgroup_lowering::emulated);
    BOOST_TEST((emu.subgroups == subgroup_lowering::emulated));
    BOOST_TEST(has(emu, "__local uint vyre_sg_scratch[8];"), emu.source);
    BOOST_TEST(!has(emu, "sub_group_"));
    BOOST_TEST(!has(emu, "shfl.sync"));
    BOOST_TEST(!has(emu, "cl_khr_subgroups"));
    // The scratch array is the kernel's local variable: the helpers before the kernel take it as a
    // parameter and must not name it (OpenCL C rejects the undeclared name; PoCL 3.1's clang crashes).
    const std::string helpers = emu.source.substr(0, emu.source.find("__kernel"));
    BOOST_TEST(helpers.find("vyre_sg_scratch") == std::string::npos, "helpers name the kernel's scratch array:\n" << helpers);

    // The kernel arguments are the same under every lowering.
    BOOST_TEST((khr.arguments == ptx.arguments));
    BOOST_TEST((khr.arguments == emu.arguments));
}

BOOST_AUTO_TEST_CASE(emulation_needs_the_subgroup_to_be_the_workgroup) {
    using vyre::lower::to_opencl;
    const ir::program p = ops_program(32, 64);
    BOOST_CHECK_THROW(to_opencl(p, subgroup_lowering::emulated), vyre::resource_error);
    BOOST_CHECK_NO_THROW(to_opencl(p, subgroup_lowering::khr));
    BOOST_CHECK_NO_THROW(to_opencl(p, subgroup_lowering::nvidia_ptx));
    BOOST_CHECK_NO_THROW(to_opencl(ops_program(32, 32), subgroup_lowering::emulated));
    // An invalid program is a validation error under every lowering, before any lowering choice.
    ir::program bad = ops_program(32, 64);
    bad.subgroup_size = 0;
    for (const auto l : {subgroup_lowering::emulated, subgroup_lowering::khr, subgroup_lowering::nvidia_ptx})
        BOOST_CHECK_THROW(to_opencl(bad, l), vyre::validation_error);
}

BOOST_AUTO_TEST_CASE(programs_without_subgroups_lower_the_same_under_every_lowering) {
    using vyre::lower::to_opencl;
    ir::program p = small({ir::let("x", ir::load(in_buf, ir::invocation_id())), ir::barrier(),
                           ir::store(out_buf, ir::invocation_id(), add(U("x"), ir::local_id()))},
                          0, {64, 1, 1});
    const auto emu = to_opencl(p, subgroup_lowering::emulated);
    BOOST_TEST(emu.source == to_opencl(p, subgroup_lowering::khr).source);
    BOOST_TEST(emu.source == to_opencl(p, subgroup_lowering::nvidia_ptx).source);
    BOOST_TEST(emu.source.find("vyre_sg") == std::string::npos, emu.source);
    BOOST_TEST(emu.source.find("sub_group") == std::string::npos);
    BOOST_TEST(emu.source.find("subgroups of") == std::string::npos); // the header names no lowering
}

// ---- the interpreter's race check (reference::run_options::check_races) ----------------------------

namespace {

// Workgroups of 8 invocations in subgroups of 4 over a u32 buffer of 8 words: each invocation
// writes word `write_at`, then (after `sync`, if any) reads word `read_at` into out[i]; with
// `read_first` the read comes before the write. Returns the validation error's text, or "" when
// the checked run passed.
enum class sync { none, subgroup, workgroup };
std::string race_run(const std::function<ir::expr()>& write_at, const std::function<ir::expr()>& read_at, sync s,
                     bool read_first = false, const std::function<ir::expr()>& value = {}) {
    ir::program p = small({}, 4, {8, 1, 1});
    p.buffers.push_back(ir::buffer_decl::workgroup("shared", 8, ir::data_type::u32));
    const ir::buffer_decl& shared = p.buffers.back();
    const auto write = ir::store(shared, write_at(), value ? value() : ir::local_id());
    const auto read = ir::let("x", ir::load(shared, read_at()));
    if (read_first) p.body = {read, write};
    else p.body = {write};
    if (s == sync::subgroup) p.body.push_back(ir::subgroup_barrier());
    if (s == sync::workgroup) p.body.push_back(ir::barrier());
    if (!read_first) p.body.push_back(read);
    p.body.push_back(ir::store(out_buf, ir::invocation_id(), U("x")));
    std::vector<ref::buffer_data> buffers{ref::buffer_data(4 * 8, 0), ref::buffer_data(4 * 8, 0)};
    try {
        ref::run(p, {1, 1, 1}, buffers, ref::run_options::checking_races());
    } catch (const vyre::validation_error& e) {
        return e.what();
    }
    return "";
}
ir::expr lit(std::uint32_t v) { return ir::lit_u32(v); }
ir::expr lane_in_subgroup() { return ir::subgroup_local_id(); }
ir::expr subgroup_base() { return ir::binary(ir::bin_op::mul, ir::subgroup_id(), lit(4)); }
ir::expr own() { return ir::local_id(); }
ir::expr neighbour() { return add(subgroup_base(), ir::binary(ir::bin_op::mod, add(lane_in_subgroup(), lit(1)), lit(4))); }
ir::expr other_subgroup() { return ir::binary(ir::bin_op::mod, add(ir::local_id(), lit(4)), lit(8)); }

} // namespace

BOOST_AUTO_TEST_CASE(race_check_finds_unordered_accesses_and_passes_ordered_ones) {
    // Reading a neighbour's word: a race without a barrier, ordered by either kind of barrier.
    const std::string raw = race_run(own, neighbour, sync::none);
    BOOST_TEST(raw.find("data race in workgroup (0, 0, 0): shared[1] read by invocation 0 (subgroup 0) after invocation 1 "
                        "(subgroup 0) had written it") != std::string::npos,
               raw);
    BOOST_TEST(race_run(own, neighbour, sync::subgroup) == "");
    BOOST_TEST(race_run(own, neighbour, sync::workgroup) == "");
    // Another subgroup's word: a subgroup barrier does not join the two, a workgroup barrier does.
    BOOST_TEST(race_run(own, other_subgroup, sync::subgroup).find("data race") != std::string::npos);
    BOOST_TEST(race_run(own, other_subgroup, sync::workgroup) == "");
    // Its own word: program order suffices.
    BOOST_TEST(race_run(own, own, sync::none) == "");
    // Read, then a neighbour overwrites (no barrier between: the write is checked against the read).
    const std::string war = race_run(own, neighbour, sync::none, true);
    BOOST_TEST(war.find("written by invocation") != std::string::npos, war);
    BOOST_TEST(war.find("had read it") != std::string::npos, war);
    // Every invocation of a subgroup writing one word: the same value is one store, different
    // values race; another subgroup reading it races without a workgroup barrier.
    BOOST_TEST(race_run(subgroup_base, subgroup_base, sync::none, false, [] { return lit(7); }) == "");
    BOOST_TEST(race_run(subgroup_base, subgroup_base, sync::none, false, ir::subgroup_local_id).find("written by") != std::string::npos);
    BOOST_TEST(race_run(subgroup_base, [] { return ir::binary(ir::bin_op::mod, add(subgroup_base(), lit(4)), lit(8)); }, sync::subgroup,
                        false, [] { return lit(7); })
                   .find("data race") != std::string::npos);
    // Off by default: the same racy program runs.
    ir::program p = small({ir::store(out_buf, ir::local_id(), ir::local_id()),
                           ir::let("x", ir::load(out_buf, ir::binary(ir::bin_op::bit_xor, ir::local_id(), lit(1))))},
                          4, {8, 1, 1});
    std::vector<ref::buffer_data> buffers{ref::buffer_data(32, 0), ref::buffer_data(32, 0)};
    BOOST_CHECK_NO_THROW(ref::run(p, {1, 1, 1}, buffers));
    BOOST_CHECK_THROW(ref::run(p, {1, 1, 1}, buffers, ref::run_options::checking_races()), vyre::validation_error);
}

VYRE_TEST_MAIN
