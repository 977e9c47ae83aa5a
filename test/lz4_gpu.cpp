// compression.lz4 on every device, both programs (reference and fast): the seed's conformance list,
// parity with the CPU oracle (bytes and statuses) and with liblz4, seeded mutations with guard
// bytes around every output region, hostile descriptors, determinism, the IR programs on the
// reference interpreter, and whole files written by the lz4 command line tool.
#include "block_batch.hpp"
#include "block_bindings.hpp"
#include "harness.hpp"
#include "lz4_blocks.hpp"
#include "test_data.hpp"

#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/reference/lz4.hpp>

#include <lz4.h>
#include <lz4hc.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace vyre::compression {
std::ostream& operator<<(std::ostream& os, const block_status& s) {
    return os << "{" << lz4_error_name(s.code) << ", " << s.output_size << "}";
}
} // namespace vyre::compression
namespace vyre::ops {
std::ostream& operator<<(std::ostream& os, block_variant v) { return os << block_variant_name(v); }
} // namespace vyre::ops

namespace {

namespace cz = vyre::ops::compression;
namespace vc = vyre::compression;
namespace vo = vyre::ops;
namespace lz = vyre::compression::lz4_error;
namespace fmt = vyre::format;
namespace ref = vyre::reference;
namespace rt = vyre::runtime;
using bytes = std::vector<std::uint8_t>;

constexpr vo::block_variant variants[] = {vo::block_variant::reference, vo::block_variant::fast};
constexpr std::uint8_t canary = vyre::test::block_canary;

using vyre::test::concat;
using vyre::test::liblz4_decode;
using vyre::test::lz4_compress_block;
using vyre::test::lz4_tool;
using vyre::test::put_sequence;
using vyre::test::random_bytes;
using vyre::test::repetitive_bytes;
using vyre::test::system_corpus;
using vyre::test::text_bytes;
using vyre::test::to_bytes;

// ---- batches: many blocks in one dispatch, each output region framed by canary bytes (test/block_batch.hpp)

using vyre::test::block_case;
using batch = vyre::test::block_batch;
using run_result = vyre::test::block_run;
using vyre::test::guards_intact;
using vyre::test::pack;
using vyre::test::run_device;

const auto oracle = [](const auto& input, const auto& blocks, auto& output) { return ref::lz4_decompress(input, blocks, output); };

run_result run_device(rt::context& ctx, vo::block_variant v, const batch& b) {
    return run_device(ctx, vo::kernel_for<cz::lz4_op>(v, ctx.device()), b);
}

run_result run_reference(const batch& b) { return vyre::test::run_reference(b, oracle); }

// Runs the batch on the device and checks it against the CPU oracle (test/block_batch.hpp).
run_result check_batch(rt::context& ctx, const vo::block_kernel& kernel, const batch& b, vo::block_launch_params* params = nullptr) {
    return vyre::test::check_batch(ctx, kernel, b, oracle, params);
}

run_result check_batch(rt::context& ctx, vo::block_variant v, const batch& b) {
    return check_batch(ctx, vo::kernel_for<cz::lz4_op>(v, ctx.device()), b);
}

std::vector<block_case> conformance_cases(std::vector<vc::block_status>& expected) {
    std::vector<block_case> cases;
    const auto add = [&](bytes block, std::uint32_t capacity, vc::block_status want, std::uint32_t flags = 0) {
        cases.push_back({std::move(block), capacity, flags});
        expected.push_back(want);
    };
    const auto ok = [](std::size_t n) { return vc::block_status{lz::none, static_cast<std::uint32_t>(n)}; };
    // Empty blocks and literals only.
    add({}, 0, ok(0));
    add({}, 16, ok(0));
    add({0x00}, 0, ok(0));
    add({0x50, 'h', 'e', 'l', 'l', 'o'}, 5, ok(5));
    add({0x50, 'h', 'e', 'l', 'l', 'o'}, 9, ok(5));
    add({0x3F, 'a', 'b', 'c'}, 3, ok(3));
    // Matches: non-overlapping, overlapping at offset 1 and at offsets below the length (patterns
    // at most a subgroup wide and wider, for every shape's lanes: 8, 16, 32), the first byte, a
    // block ending right after a match.
    bytes b;
    put_sequence(b, to_bytes("abcd"), 4, 4);
    put_sequence(b, to_bytes("xyz"));
    add(b, 11, ok(11));
    for (auto [offset, length] : {std::pair{1, 10}, {1, 300}, {2, 7}, {3, 100}, {5, 4096}, {7, 8}, {8, 9}, {9, 70}, {16, 17},
                                  {17, 33}, {31, 200}, {32, 33}, {32, 97}, {33, 100}}) {
        bytes lits;
        for (int i = 0; i < offset; ++i) lits.push_back(static_cast<std::uint8_t>('A' + i));
        b.clear();
        put_sequence(b, lits, static_cast<std::uint16_t>(offset), static_cast<std::uint32_t>(length));
        put_sequence(b, to_bytes("!"));
        add(b, static_cast<std::uint32_t>(offset + length + 1), ok(offset + length + 1));
    }
    b.clear();
    put_sequence(b, to_bytes("0123456789"), 10, 5);
    add(b, 15, ok(15));
    b.clear();
    put_sequence(b, to_bytes("xy"), 2, 6);
    add(b, 8, ok(8));
    // A match whose source spans earlier sequences' literals and matches.
    b.clear();
    put_sequence(b, to_bytes("hello "), 6, 6);
    put_sequence(b, to_bytes("world"), 17, 40);
    put_sequence(b, to_bytes("."));
    add(b, 6 + 6 + 5 + 40 + 1, ok(58));
    // Maximum literal lengths 15 + 255*N and maximum match lengths 19 + 255*N.
    for (std::uint32_t n : {15u, 16u, 269u, 270u, 271u, 15u + 255u * 4u + 10u, 15u + 255u * 9u, 15u + 255u * 40u}) {
        bytes literals(n);
        for (std::uint32_t i = 0; i < n; ++i) literals[i] = static_cast<std::uint8_t>(i % 251);
        b.clear();
        put_sequence(b, literals);
        add(b, n, ok(n));
    }
    for (std::uint32_t m : {18u, 19u, 20u, 273u, 274u, 19u + 255u * 3u + 7u, 19u + 255u * 40u}) {
        b.clear();
        put_sequence(b, to_bytes("a"), 1, m);
        put_sequence(b, to_bytes("b"));
        add(b, m + 2, ok(m + 2));
    }
    add({0x1F, 'a', 1, 0, 255, 255, 255, 7, 0x10, 'b'}, 793, ok(793));
    // Every error code, with the reference's partial size.
    add({0xF0}, 64, {lz::corrupt_token, 0});
    add({0xF0, 255, 255}, 64, {lz::corrupt_token, 0});
    add({0x40, 'a', 'b', 'c', 'd', 4}, 64, {lz::corrupt_token, 4});
    add({0x4F, 'a', 'b', 'c', 'd', 4, 0}, 64, {lz::corrupt_token, 4});
    add({0x4F, 'a', 'b', 'c', 'd', 4, 0, 255}, 64, {lz::corrupt_token, 4});
    add({0x40, 'a', 'b', 'c', 'd', 0, 0, 0x10, 'z'}, 64, {lz::offset_oob, 4});
    add({0x40, 'a', 'b', 'c', 'd', 5, 0, 0x10, 'z'}, 64, {lz::offset_oob, 4});
    add({0x00, 1, 0, 0x10, 'z'}, 64, {lz::offset_oob, 0});
    add({0x40, 'a', 'b', 'c', 'd', 0xFF, 0xFF}, 64, {lz::offset_oob, 4});
    add({0x50, 'h', 'e', 'l', 'l', 'o'}, 4, {lz::output_overflow, 0});
    add({0x20, 'a', 'b', 1, 0, 0x30, 'x', 'y', 'z'}, 8, {lz::output_overflow, 6});
    add({0x50, 'h', 'e', 'l'}, 64, {lz::literal_overflow, 0});
    add({0x20, 'a', 'b', 1, 0, 0x30, 'x'}, 64, {lz::literal_overflow, 6});
    add({0xF0, 200}, 1000, {lz::literal_overflow, 0});
    add({0x40, 'a', 'b', 'c', 'd', 4, 0}, 6, {lz::match_overflow, 4});
    add({0x1F, 'a', 1, 0, 255, 0, 0x10, 'b'}, 100, {lz::match_overflow, 1});
    // Stored blocks (flag bit 0): verbatim, shorter than the region, longer than it, empty; the
    // same bytes without the flag are read as tokens.
    const bytes stored = to_bytes("stored verbatim, flag bit 0");
    const auto size = static_cast<std::uint32_t>(stored.size());
    add(stored, size, ok(size), vc::block_flag_uncompressed);
    add(stored, size + 10, ok(size), vc::block_flag_uncompressed);
    add(stored, size - 1, {lz::output_overflow, 0}, vc::block_flag_uncompressed);
    add({}, 0, ok(0), vc::block_flag_uncompressed);
    std::mt19937_64 rng(7);
    const bytes big = random_bytes(rng, 70000);
    add(big, 70000, ok(70000), vc::block_flag_uncompressed);
    bytes scratch(200);
    add(stored, 200, ref::lz4_decompress_block(stored, scratch));
    return cases;
}

} // namespace

// ---- the seed's conformance list ----------------------------------------------------------------

VYRE_DEVICE_TEST(seed_conformance_list) {
    std::vector<vc::block_status> expected;
    const auto cases = conformance_cases(expected);
    std::mt19937_64 rng(vyre::test::test_seed());
    const batch b = pack(cases, rng);
    for (auto v : variants) {
        BOOST_TEST_CONTEXT("variant " << v << ", seed " << vyre::test::test_seed()) {
            const run_result r = check_batch(dev.ctx(), v, b);
            BOOST_TEST(r.statuses == expected, boost::test_tools::per_element());
            // The decoded bytes of the successful cases are what liblz4 makes of them too.
            for (std::size_t i = 0; i < cases.size(); ++i) {
                if (expected[i].code != lz::none || cases[i].flags) continue;
                const auto lib = liblz4_decode(cases[i].block, cases[i].capacity);
                if (!lib) continue; // blocks breaking LZ4's end-of-block rules, accepted by the seed loop
                const auto at = r.output.begin() + b.blocks[i].output_offset;
                BOOST_TEST_CONTEXT("case " << i) { BOOST_TEST(bytes(at, at + static_cast<std::ptrdiff_t>(lib->size())) == *lib); }
            }
        }
    }
}

// A 32-bit length that would wrap to 14 saturates instead (literal_overflow), on the device too.
VYRE_DEVICE_TEST(lengths_saturate_instead_of_wrapping) {
    bytes block(1 + 16843009, 255);
    block[0] = 0xF0;
    block.push_back(0);
    block.insert(block.end(), 14, 'x');
    std::mt19937_64 rng(1);
    const batch b = pack({{block, 64, 0}}, rng);
    for (auto v : variants)
        BOOST_TEST_CONTEXT("variant " << v) {
            const run_result r = check_batch(dev.ctx(), v, b);
            BOOST_TEST(r.statuses[0] == (vc::block_status{lz::literal_overflow, 0}));
        }
}

// The kernel is safe whatever the descriptors say: ranges past the buffers, offsets that wrap in
// 32 bits, zero-sized regions at the very end. (The host API rejects these before a dispatch.)
VYRE_DEVICE_TEST(descriptors_outside_the_buffers) {
    bytes b1;
    put_sequence(b1, to_bytes("abc"), 3, 9);
    put_sequence(b1, to_bytes("!"));
    batch b;
    b.input = concat({b1, to_bytes("plain"), {0x40, 'a', 'b', 'c', 'd', 0, 0}});
    const auto u = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
    const std::uint32_t in = u(b.input.size());
    b.output.assign(38, canary);
    b.blocks = {{0, u(b1.size()), 0, 13, 0},
                {u(b1.size()), 5, 13, 5, vc::block_flag_uncompressed},
                {u(b1.size() + 5), 7, 18, 8, 0},
                {in - 2, 3, 26, 4, 0},            // input range past the input
                {0, u(b1.size()), 30, 13, 0},     // output range past the output
                {0xFFFFFFF0u, 0x20, 30, 1, 0},    // input offset that wraps in 32 bits
                {0, u(b1.size()), 0xFFFFFFF0u, 0x20, 0},
                {in, 0, 38, 0, 0},                // empty, at the very ends
                {in + 1, 0, 30, 0, 0},            // empty but starting past the input
                {0, u(b1.size()), 39, 0, 0},      // empty region past the output
                {in - 1, 1, 31, 7, vc::block_flag_uncompressed},
                {0, 4, 26, 0xFFFFFFFFu, vc::block_flag_uncompressed}};
    const std::vector<vc::block_status> expected = {{lz::none, 13},           {lz::none, 5},
                                                    {lz::offset_oob, 4},      {lz::literal_overflow, 0},
                                                    {lz::output_overflow, 0}, {lz::literal_overflow, 0},
                                                    {lz::output_overflow, 0}, {lz::none, 0},
                                                    {lz::literal_overflow, 0}, {lz::output_overflow, 0},
                                                    {lz::none, 1},            {lz::output_overflow, 0}};
    for (auto v : variants)
        BOOST_TEST_CONTEXT("variant " << v) {
            const run_result r = check_batch(dev.ctx(), v, b);
            BOOST_TEST(r.statuses == expected, boost::test_tools::per_element());
            BOOST_TEST(std::string(r.output.begin(), r.output.begin() + 22) == "abcabcabcabc!plainabcd");
        }
}

// Other widths of the fast program (invocations per block) give the same results: the
// conformance list and a batch of mutated blocks.
VYRE_DEVICE_TEST(fast_program_shapes_agree) {
    std::vector<vc::block_status> expected;
    std::vector<block_case> cases = conformance_cases(expected);
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x5a);
    for (int i = 0; i < 300; ++i) {
        const bytes original = i % 2 ? text_bytes(rng, rng() % 3000) : repetitive_bytes(rng, rng() % 3000);
        bytes block = lz4_compress_block(original, i % 3 ? 0 : 9);
        if (i % 2 && !block.empty()) block[rng() % block.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        cases.push_back({std::move(block), static_cast<std::uint32_t>(original.size()), 0});
    }
    const batch b = pack(cases, rng);
    // Every width, with and without the window of recent output (windows small enough that most
    // matches reach past them, global reads, or wrap the ring many times; a window is at least the
    // lane count), with and without the input stage (one of 16 bytes refills at almost every
    // sequence), several blocks per workgroup where the device runs subgroups natively, and the
    // subgroups emulated on every device, including those that have them.
    //
    // Left out: one invocation with a window of 512 bytes or more on PoCL. PoCL 3.1 (Debian 12)
    // leaves 16 or 32 output bytes of some long repeated matches unwritten there (they keep the
    // canary), while the same program on the IR interpreter (programs_agree_with_the_oracle_on_
    // the_interpreter below) and at 2 invocations and more on PoCL agrees with the oracle; a copy
    // loop of stride 1 is the one shape only that case has.
    const bool pocl = dev.ctx().device().platform.find("Portable Computing Language") != std::string::npos;
    const auto native = vyre::runtime::native_subgroups(dev.ctx().device());
    struct shape {
        std::uint32_t lanes, window, blocks, stage;
        bool emulate;
        std::uint32_t unroll = cz::lz4_fast_unroll;
    };
    // On a CPU device every program is compiled by LLVM inside the driver, and a program with both
    // the window and the stage takes PoCL 20 to 50 seconds: there the widths, windows and stages are
    // covered pairwise (every pair of values of any two of them appears in some shape) rather than
    // as a full product, which GPUs run.
    const bool cpu_device = dev.info().is_cpu() && !dev.info().is_gpu();
    std::vector<shape> shapes;
    if (cpu_device) {
        for (const auto& [lanes, window, stage] : std::initializer_list<std::array<std::uint32_t, 3>>{
                 {1, 0, 0}, {1, 16, 16}, {1, 256, 128}, {1, 16, 0}, {4, 0, 16}, {4, 16, 128},
                 {4, 256, 0}, {32, 0, 128}, {32, 256, 16}, {32, 0, 0}})
            shapes.push_back({lanes, window, 1, stage, false});
    } else {
        for (const std::uint32_t lanes : {1u, 4u, 32u})
            for (const std::uint32_t window : {0u, 16u, 256u})
                for (const std::uint32_t stage : {0u, 16u, 128u})
                    if (window == 0 || window >= lanes) shapes.push_back({lanes, window, 1, stage, false});
    }
    for (const std::uint32_t lanes : {8u, 16u}) shapes.push_back({lanes, cz::lz4_fast_window, 1, cz::lz4_fast_stage, false});
    shapes.push_back({32, 4096, 1, cz::lz4_fast_stage, false});
    if (native == vyre::lower::subgroup_lowering::nvidia_ptx)
        for (const std::uint32_t blocks : {2u, 4u, 8u}) {
            shapes.push_back({32, cz::lz4_fast_window, blocks, cz::lz4_fast_stage, false});
            shapes.push_back({16, 256, blocks, 16, false});
            shapes.push_back({8, 0, blocks, 0, false});
        }
    if (native == vyre::lower::subgroup_lowering::nvidia_ptx)
        for (std::uint32_t shape = 0; shape < cz::lz4_op::shapes; ++shape) {
            const auto lanes = cz::lz4_op::lanes_of(native, shape);
            shapes.push_back({lanes, cz::lz4_fast_window, cz::lz4_op::blocks_per_workgroup(native, lanes), cz::lz4_fast_stage, false,
                              cz::lz4_op::unroll_of(native, shape)});
        }
    for (const std::uint32_t stage : {0u, cz::lz4_fast_stage}) shapes.push_back({32, cz::lz4_fast_window, 1, stage, true});
    // Copies of several bytes per lane per step, with and without the ring and the stage (on a CPU
    // device, one of the two with both).
    for (const std::uint32_t unroll : {2u, 4u}) {
        shapes.push_back({32, 0, 1, 0, false, unroll});
        shapes.push_back({4, 16, 1, cpu_device && unroll == 4 ? 0u : 16u, false, unroll});
    }
    for (const shape& sh : shapes) {
        if (pocl && sh.lanes == 1 && sh.window >= 512) continue;
        BOOST_TEST_CONTEXT("fast program, " << sh.lanes << " invocations per block, window " << sh.window << ", " << sh.blocks
                                            << " blocks per workgroup, stage " << sh.stage << ", unroll " << sh.unroll
                                            << (sh.emulate ? ", subgroups emulated" : "")) {
            const vo::block_kernel kernel =
                cz::lz4_op::kernel(vo::block_variant::fast, sh.lanes, sh.window, sh.blocks, sh.stage,
                                   sh.emulate ? std::optional(vyre::lower::subgroup_lowering::emulated) : std::nullopt, sh.unroll);
            check_batch(dev.ctx(), kernel, b);
            if (sh.emulate) BOOST_TEST((kernel.program.subgroups_on(dev.ctx()) == vyre::lower::subgroup_lowering::emulated));
        }
    }
}

// Blocks of nearly 4 GiB, the most one dispatch addresses, through the fast program's default
// shape that copies the most bytes per step (on NVIDIA GPUs 32 lanes of 4 bytes; narrower shapes
// take minutes for 4 GiB on one subgroup): a flagged uncompressed block, and a match of offset 1
// that repeats one byte for almost all of it. Their lanes' copy indices would otherwise wrap near
// 2^32 and the copies never end. (No literal run comes near: its length's extension bytes take
// 1/255 of its size from the 2^32 - 1 input bytes.)
VYRE_DEVICE_TEST(blocks_of_nearly_4_gib_are_decoded_whole) {
    if (const std::string why = vyre::test::huge_block_unfit(dev.ctx().device()); !why.empty()) {
        BOOST_TEST_MESSAGE("left out on " << dev.ctx().device().label() << ": " << why);
        return;
    }
    const std::uint32_t size = vyre::test::huge_block_bytes;
    const bytes stored = vyre::test::huge_pattern(size);
    const bytes tail = to_bytes("tail!");
    bytes repeats;
    put_sequence(repeats, {'v'}, 1, size - 1 - static_cast<std::uint32_t>(tail.size()));
    put_sequence(repeats, tail);
    const auto native = vyre::runtime::native_subgroups(dev.ctx().device());
    std::uint32_t widest = 0;
    const auto step = [&](std::uint32_t shape) { return cz::lz4_op::lanes_of(native, shape) * cz::lz4_op::unroll_of(native, shape); };
    for (std::uint32_t shape = 1; shape < cz::lz4_op::shapes; ++shape)
        if (step(shape) > step(widest)) widest = shape;
    const vo::block_kernel kernel = cz::lz4_op::kernel(vo::block_variant::fast, native, widest);
    BOOST_TEST_MESSAGE("fast program, " << cz::lz4_op::lanes_of(native, widest) << " lanes per block, unroll "
                                        << cz::lz4_op::unroll_of(native, widest));
    const run_result s = vyre::test::run_alone(dev.ctx(), kernel, stored, size, vc::block_flag_uncompressed);
    BOOST_TEST((s.statuses.at(0) == vc::block_status{lz::none, size}));
    BOOST_TEST((s.output == stored));
    const run_result r = vyre::test::run_alone(dev.ctx(), kernel, repeats, size, 0);
    BOOST_TEST((r.statuses.at(0) == vc::block_status{lz::none, size}));
    const auto body_end = r.output.end() - static_cast<std::ptrdiff_t>(tail.size());
    BOOST_TEST(std::all_of(r.output.begin(), body_end, [](std::uint8_t b) { return b == 'v'; }));
    BOOST_TEST(std::equal(body_end, r.output.end(), tail.begin()));
}

// A launch's parameter buffer is made once for launches with the same counts and made again when
// they change: a batch with more blocks, decoded with the buffer of a smaller one, would leave its
// last blocks undecoded.
VYRE_DEVICE_TEST(launch_parameters_are_kept_and_renewed) {
    std::vector<vc::block_status> expected;
    std::vector<block_case> cases = conformance_cases(expected);
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x77);
    const batch small = pack(std::vector<block_case>(cases.begin(), cases.begin() + 3), rng);
    const batch large = pack(cases, rng);
    BOOST_TEST_REQUIRE(large.blocks.size() > small.blocks.size());
    const vo::block_kernel& kernel = vo::kernel_for<cz::lz4_op>(vo::block_variant::automatic, dev.ctx().device());
    vo::block_launch_params params;
    check_batch(dev.ctx(), kernel, small, &params);
    const cl_mem first = params.buffer.get();
    BOOST_TEST(params.words[0] == small.blocks.size());
    check_batch(dev.ctx(), kernel, small, &params);
    BOOST_TEST((params.buffer.get() == first)); // same counts: the same buffer
    check_batch(dev.ctx(), kernel, large, &params);
    BOOST_TEST(params.words[0] == large.blocks.size());
    BOOST_TEST(params.words[1] == large.input.size());
    BOOST_TEST(params.words[2] == large.output.size());
}

// ---- parity with the oracle and with liblz4 ------------------------------------------------------

VYRE_DEVICE_TEST(parity_with_reference_and_liblz4) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed);
    const bytes corpus = system_corpus(600'000);
    const std::function<bytes(std::mt19937_64&, std::size_t)> generators[] = {
        random_bytes, text_bytes, repetitive_bytes,
        [&](std::mt19937_64& g, std::size_t n) {
            n = std::min(n, corpus.size());
            const std::size_t at = g() % (corpus.size() - n + 1);
            return bytes(corpus.begin() + static_cast<std::ptrdiff_t>(at), corpus.begin() + static_cast<std::ptrdiff_t>(at + n));
        }};
    const int levels[] = {0, -8, 1, 9, 12};
    std::vector<bytes> originals;
    std::vector<block_case> cases;
    for (int round = 0; round < 4; ++round)
        for (std::size_t g = 0; g < std::size(generators); ++g)
            for (int level : levels) {
                const std::size_t n = round == 0 ? g * 3 : (rng() % 3 == 0 ? rng() % 300 : rng() % 66000);
                originals.push_back(generators[g](rng, n));
                cases.push_back({lz4_compress_block(originals.back(), level), static_cast<std::uint32_t>(n), 0});
            }
    // Whole corpus pieces of the block sizes LZ4 frames use.
    for (std::size_t n : {4096u, 65536u, 262144u}) {
        originals.emplace_back(corpus.begin(), corpus.begin() + static_cast<std::ptrdiff_t>(n));
        cases.push_back({lz4_compress_block(originals.back()), static_cast<std::uint32_t>(n), 0});
    }
    const batch b = pack(cases, rng);
    for (auto v : variants)
        BOOST_TEST_CONTEXT("variant " << v << ", seed " << seed) {
            const run_result r = check_batch(dev.ctx(), v, b);
            for (std::size_t i = 0; i < cases.size(); ++i)
                BOOST_TEST_CONTEXT("block " << i << " of " << originals[i].size() << " bytes") {
                    BOOST_TEST(r.statuses[i] == (vc::block_status{lz::none, cases[i].capacity}));
                    const auto at = r.output.begin() + b.blocks[i].output_offset;
                    const bytes got(at, at + static_cast<std::ptrdiff_t>(cases[i].capacity));
                    BOOST_TEST((got == originals[i]));
                    const auto lib = liblz4_decode(cases[i].block, cases[i].capacity);
                    BOOST_TEST((lib && *lib == got));
                }
        }
}

// ---- mutations ------------------------------------------------------------------------------

VYRE_DEVICE_TEST(survives_mutations) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed ^ 0x6d75746174696f6eULL);
    std::vector<std::pair<bytes, bytes>> sources; // original, block
    for (std::size_t n : {0u, 1u, 40u, 300u, 2000u, 5000u}) {
        for (bytes original : {text_bytes(rng, n), repetitive_bytes(rng, n), random_bytes(rng, n / 4)}) {
            bytes block = lz4_compress_block(original, rng() % 2 ? 0 : 9);
            sources.emplace_back(std::move(original), std::move(block));
        }
    }
    constexpr int batches = 3, per_batch = 1000;
    std::map<std::uint32_t, int> codes;
    for (int round = 0; round < batches; ++round) {
        std::vector<block_case> cases;
        for (int it = 0; it < per_batch; ++it) {
            const auto& [original, block] = sources[rng() % sources.size()];
            bytes m = block;
            if (m.empty()) m.push_back(0);
            const std::size_t at = rng() % m.size();
            switch (rng() % 7) {
            case 0:
                for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) m[rng() % m.size()] ^= std::uint8_t(1u << (rng() % 8));
                break;
            case 1: m.resize(rng() % m.size()); break;
            case 2: m[at] = rng() % 3 == 0 ? 0x00 : rng() % 2 ? 0xFF : static_cast<std::uint8_t>(rng()); break;
            case 3: m.erase(m.begin() + static_cast<std::ptrdiff_t>(at)); break;
            case 4: m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng())); break;
            case 5: m[at] = static_cast<std::uint8_t>((rng() % 16) << 4 | (rng() % 16)); break;
            default: // a length edit: an extension byte or a token nibble moved up or down
                m[at] = static_cast<std::uint8_t>(m[at] + (rng() % 2 ? 1 : 255) * (rng() % 2 ? 1 : 16));
                break;
            }
            const std::size_t capacity = rng() % 4 == 0 ? rng() % (original.size() + 64) : original.size();
            cases.push_back({std::move(m), static_cast<std::uint32_t>(capacity), rng() % 50 == 0 ? vc::block_flag_uncompressed : 0u});
        }
        const batch b = pack(cases, rng);
        const run_result want = run_reference(b);
        for (const auto& s : want.statuses) ++codes[s.code];
        for (auto v : variants)
            BOOST_TEST_CONTEXT("variant " << v << ", seed " << seed << ", batch " << round) { check_batch(dev.ctx(), v, b); }
    }
    // The mutations reach every status code.
    for (std::uint32_t code = 0; code <= 5; ++code) BOOST_TEST_CONTEXT("code " << code) { BOOST_TEST(codes[code] > 0); }
}

// ---- determinism ---------------------------------------------------------------------------------

VYRE_DEVICE_TEST(deterministic_over_100_runs) {
    std::mt19937_64 rng(vyre::test::test_seed() + 100);
    std::vector<block_case> cases;
    for (int i = 0; i < 24; ++i) {
        const bytes original = i % 3 == 0 ? text_bytes(rng, rng() % 6000) : repetitive_bytes(rng, rng() % 6000);
        bytes block = lz4_compress_block(original, i % 2 ? 0 : 12);
        if (i % 4 == 3 && !block.empty()) block[rng() % block.size()] ^= 0x10; // some corrupt ones too
        cases.push_back({std::move(block), static_cast<std::uint32_t>(original.size()), 0});
    }
    const batch b = pack(cases, rng);
    const run_result want = run_reference(b);
    for (auto v : variants)
        BOOST_TEST_CONTEXT("variant " << v) {
            int same = 0;
            for (int run = 0; run < 100; ++run) {
                const run_result r = run_device(dev.ctx(), v, b);
                same += r.output == want.output && r.statuses == want.statuses;
            }
            BOOST_TEST(same == 100);
        }
}

// ---- the host API ------------------------------------------------------------------------------

VYRE_DEVICE_TEST(block_api_keeps_output_on_the_device) {
    std::mt19937_64 rng(5);
    const bytes a = text_bytes(rng, 5000), c = repetitive_bytes(rng, 3000);
    const bytes ca = lz4_compress_block(a), cc = lz4_compress_block(c, 9);
    const bytes input = concat({ca, c, cc});
    const auto u = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
    // Regions with gaps: bytes no block writes read as zero.
    const std::vector<vc::block_descriptor> blocks = {{0, u(ca.size()), 3, 5000, 0},
                                                      {u(ca.size()), 3000, 5010, 3000, vc::block_flag_uncompressed},
                                                      {u(ca.size() + c.size()), u(cc.size()), 8020, 3100, 0}};
    for (auto v : {vo::block_variant::reference, vo::block_variant::fast, vo::block_variant::automatic})
        BOOST_TEST_CONTEXT("variant " << v) {
            const auto r = vo::decode_blocks<cz::lz4_op>(dev.ctx(), input, blocks, 11125, v);
            BOOST_TEST(r.output_bytes == 11125u);
            BOOST_TEST(r.output.size() >= 11125u);
            const std::vector<vc::block_status> want = {{lz::none, 5000}, {lz::none, 3000}, {lz::none, 3000}};
            BOOST_TEST(r.statuses == want, boost::test_tools::per_element());
            const bytes out = vo::read_output(dev.ctx(), r);
            const bytes expected = concat({bytes(3, 0), a, bytes(7, 0), c, bytes(10, 0), c, bytes(105, 0)});
            BOOST_TEST((out == expected));
        }
    // The device-input overload decodes in place from a buffer a previous stage left there.
    auto device_input = rt::allocate(dev.ctx(), vyre::runtime::padded_bytes(input.size()));
    rt::write(dev.ctx(), device_input, input.data(), input.size());
    const auto r = vo::decode_blocks<cz::lz4_op>(dev.ctx(), device_input, input.size(), blocks, 11125);
    BOOST_TEST(r.statuses[2] == (vc::block_status{lz::none, 3000}));
    // Descriptors are checked on the host: overlapping outputs, ranges past the buffers, flags.
    auto bad = blocks;
    bad[1].output_offset = 4000;
    BOOST_CHECK_THROW(vo::decode_blocks<cz::lz4_op>(dev.ctx(), input, bad, 11125), vyre::format_error);
    bad = blocks;
    bad[2].input_size += 1;
    BOOST_CHECK_THROW(vo::decode_blocks<cz::lz4_op>(dev.ctx(), input, bad, 11125), vyre::format_error);
    bad = blocks;
    bad[0].flags = 2;
    BOOST_CHECK_THROW(vo::decode_blocks<cz::lz4_op>(dev.ctx(), input, bad, 11125), vyre::format_error);
    BOOST_CHECK_THROW(vo::decode_blocks<cz::lz4_op>(dev.ctx(), device_input, input.size() + 8, blocks, 11125), vyre::resource_error);
    // No blocks: no dispatch, an empty result.
    const auto none = vo::decode_blocks<cz::lz4_op>(dev.ctx(), input, {}, 0);
    BOOST_TEST(none.statuses.empty());
}

// ---- the IR programs on the reference interpreter -------------------------------------------------

// Descriptors that leave the buffers, stored blocks that fit, overflow or leave the input, and a
// block cut after its literals that ends the input on a whole word (the offset and the next token
// are loaded before the tests that make them needed, clamped into the block): the fast programs on
// the interpreter, which refuses an unchecked access out of bounds, give the oracle's answers.
BOOST_AUTO_TEST_CASE(hostile_descriptors_on_the_interpreter) {
    std::mt19937_64 rng(5);
    const bytes text = text_bytes(rng, 200);
    const bytes v = lz4_compress_block(text);
    const auto n = static_cast<std::uint32_t>(v.size());
    const bytes cut = {0x1F, 'a', 0x01}; // one literal, then a match whose offset has one byte of two
    const bytes filler((4 - (n + cut.size()) % 4) % 4, 0x77);
    const auto t = static_cast<std::uint32_t>(n + filler.size());
    const std::uint32_t stored = vc::block_flag_uncompressed;
    batch b;
    b.input = vyre::test::concat({v, filler, cut});
    b.output.assign(300, canary);
    b.blocks = {{0, n, 0, 200, 0},       {t, 3, 200, 40, 0},        {t + 3, 0, 240, 4, 0},     {t + 2, 1, 244, 4, 0},
                {0, 8, 250, 8, stored},  {0, 9, 260, 8, stored},    {t, 4, 270, 6, stored},    {0xFFFFFFF0u, 0x20, 280, 4, 0},
                {0, n, 0xFFFFFFF0u, 0x20, 0}, {0, n, 290, 10, 0}};
    BOOST_TEST(b.input.size() % 4 == 0u);
    const run_result want = run_reference(b);
    BOOST_TEST(want.statuses[0] == (vc::block_status{lz::none, 200}));
    BOOST_TEST(want.statuses[4] == (vc::block_status{lz::none, 8}));
    BOOST_TEST(want.statuses[1].code != lz::none);
    const bytes want_output = vyre::test::padded_output(want.output);
    for (const auto& [name, program, per_group] :
         {std::tuple{"fast", cz::lz4_program_fast(), 1u}, std::tuple{"fast, 8 lanes, 4 blocks per workgroup", cz::lz4_program_fast(8, 0, 4), 4u},
          std::tuple{"fast, 4 bytes per lane per copy step", cz::lz4_program_fast(cz::lz4_fast_lanes, 0, 2, 0, 4), 2u},
          std::tuple{"fast, 4 lanes, 16-byte window and stage", cz::lz4_program_fast(4, 16, 1, 16), 1u}}) {
        BOOST_TEST_CONTEXT("program " << name) {
            const auto got = vyre::test::run_interpreter(program, std::uint32_t((b.blocks.size() + per_group - 1) / per_group), b);
            BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
            BOOST_TEST((got.output == want_output));
        }
    }
}

// The programs mean, by the IR's own definition (the CPU interpreter), what the oracle says; the
// device tests then check the lowering. Small cases only: the interpreter is slow.
BOOST_AUTO_TEST_CASE(programs_agree_with_the_oracle_on_the_interpreter) {
    std::vector<vc::block_status> expected;
    std::vector<block_case> cases = conformance_cases(expected);
    cases.erase(std::remove_if(cases.begin(), cases.end(), [](const block_case& c) { return c.block.size() > 3000 || c.capacity > 5000; }),
                cases.end());
    std::mt19937_64 rng(11);
    const bytes text = text_bytes(rng, 3000);
    cases.push_back({lz4_compress_block(text), 3000, 0});
    bytes mutated = lz4_compress_block(text, 9);
    mutated[mutated.size() / 2] ^= 0x21;
    cases.push_back({mutated, 3000, 0});
    const batch b = pack(cases, rng);
    const run_result want = run_reference(b);
    const bytes want_output = vyre::test::padded_output(want.output);
    for (const auto& [name, program, per_group] :
         {std::tuple{"reference", cz::lz4_program_reference(), cz::lz4_reference_workgroup},
          std::tuple{"fast", cz::lz4_program_fast(), 1u},
          std::tuple{"fast, 4 invocations per block", cz::lz4_program_fast(4), 1u},
          std::tuple{"fast, 1 invocation per block", cz::lz4_program_fast(1), 1u},
          std::tuple{"fast, no window", cz::lz4_program_fast(cz::lz4_fast_lanes, 0), 1u},
          std::tuple{"fast, 4 invocations per block, 16-byte window", cz::lz4_program_fast(4, 16), 1u},
          std::tuple{"fast, 2 blocks per workgroup", cz::lz4_program_fast(cz::lz4_fast_lanes, 0, 2), 2u},
          std::tuple{"fast, 3 blocks of 8 invocations per workgroup, 16-byte stage, 64-byte window", cz::lz4_program_fast(8, 64, 3, 16), 3u},
          std::tuple{"fast, no stage", cz::lz4_program_fast(cz::lz4_fast_lanes, 0, 1, 0), 1u},
          std::tuple{"fast, 4 bytes per lane per copy step", cz::lz4_program_fast(cz::lz4_fast_lanes, 0, 2, 0, 4), 2u},
          std::tuple{"fast, 8 lanes, 3 bytes per step, 16-byte stage and window", cz::lz4_program_fast(8, 16, 1, 16, 3), 1u}}) {
        BOOST_TEST_CONTEXT("program " << name) {
            BOOST_CHECK_NO_THROW(vyre::ir::validate(program));
            const auto got = vyre::test::run_interpreter(program, std::uint32_t((b.blocks.size() + per_group - 1) / per_group), b);
            BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
            BOOST_TEST((got.output == want_output));
        }
    }
}

// The launch shape follows the block count on NVIDIA GPUs (measured there: 8 lanes per block with
// a few waves of blocks, 16 with about one, 32 below); elsewhere one subgroup per workgroup.
BOOST_AUTO_TEST_CASE(launch_shape_follows_the_block_count) {
    using vyre::lower::subgroup_lowering;
    vyre::runtime::device_info h100;
    h100.type = CL_DEVICE_TYPE_GPU;
    h100.compute_units = 132; // holds 8,448 blocks of 32 lanes at once, 16,896 of 16, 33,792 of 8
    const auto lanes = [&](std::uint32_t blocks, subgroup_lowering l = subgroup_lowering::nvidia_ptx) {
        return cz::lz4_op::lanes_of(l, cz::lz4_op::shape_for(h100, l, blocks));
    };
    BOOST_TEST(lanes(262144) == 8u);  // 4 KiB blocks of 1 GiB
    BOOST_TEST(lanes(25344) == 8u);   // 3/4 of what 8-lane blocks fill
    BOOST_TEST(lanes(25343) == 16u);
    BOOST_TEST(lanes(16384) == 16u);  // 64 KiB blocks
    BOOST_TEST(lanes(12672) == 16u);
    BOOST_TEST(lanes(12671) == 32u);
    BOOST_TEST(lanes(4096) == 32u);   // 256 KiB blocks
    BOOST_TEST(lanes(0) == 32u);      // not known
    // Nearly incompressible launches (output below 1.1x input) take the unrolled 32-lane shape.
    const auto shape = [&](std::uint32_t blocks, std::uint64_t in, std::uint64_t out) {
        return cz::lz4_op::shape_for(h100, subgroup_lowering::nvidia_ptx, blocks, in, out);
    };
    BOOST_TEST(shape(262144, 1000, 1000) == cz::lz4_op::literal_shape);
    BOOST_TEST(shape(262144, 1000, 1099) == cz::lz4_op::literal_shape);
    BOOST_TEST(shape(262144, 1000, 1100) == 2u);
    BOOST_TEST(shape(262144, 1000, 1560) == 2u);
    BOOST_TEST(shape(262144, 0, 1000) == 2u); // sizes not known
    BOOST_TEST(cz::lz4_op::lanes_of(subgroup_lowering::nvidia_ptx, cz::lz4_op::literal_shape) == 32u);
    BOOST_TEST(cz::lz4_op::unroll_of(subgroup_lowering::nvidia_ptx, cz::lz4_op::literal_shape) == 4u);
    BOOST_TEST(cz::lz4_op::unroll_of(subgroup_lowering::nvidia_ptx, 0) == 1u);
    BOOST_TEST(cz::lz4_op::shape_for(h100, subgroup_lowering::emulated, 262144, 1000, 1000) == 0u);
    BOOST_TEST(lanes(262144, subgroup_lowering::emulated) == 32u);
    BOOST_TEST(lanes(262144, subgroup_lowering::khr) == 32u);
    BOOST_TEST(cz::lz4_op::blocks_per_workgroup(subgroup_lowering::nvidia_ptx, 8) == 8u);
    BOOST_TEST(cz::lz4_op::blocks_per_workgroup(subgroup_lowering::emulated, 32) == 1u);
    for (std::uint32_t shape = 0; shape < cz::lz4_op::shapes; ++shape) {
        const vo::block_kernel k = cz::lz4_op::kernel(vo::block_variant::fast, subgroup_lowering::nvidia_ptx, shape);
        BOOST_TEST(k.program.program().invocations_per_workgroup() == cz::lz4_fast_group_invocations);
        BOOST_TEST(k.blocks_per_workgroup * k.program.program().subgroup_size == cz::lz4_fast_group_invocations);
    }
}

BOOST_AUTO_TEST_CASE(programs_have_the_permanent_bindings) {
    for (const auto& p : {cz::lz4_program_reference(), cz::lz4_program_fast()}) vyre::test::check_block_bindings(p);
    BOOST_TEST(cz::lz4_op::infos()[0].id == "compression.lz4");
    BOOST_TEST(cz::lz4_op::infos()[0].version == 1u);
    BOOST_TEST((cz::lz4_op::infos()[0].signature == vyre::ir::op_signature{{vyre::ir::data_type::bytes}, vyre::ir::data_type::bytes}));
    BOOST_TEST(cz::lz4_op::infos()[0].program() == cz::lz4_program_reference());
    vyre::runtime::device_info gpu, cpu;
    gpu.type = CL_DEVICE_TYPE_GPU;
    cpu.type = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT;
    BOOST_TEST((vo::resolve<cz::lz4_op>(vo::block_variant::automatic, gpu) == vo::block_variant::fast));
    BOOST_TEST((vo::resolve<cz::lz4_op>(vo::block_variant::automatic, cpu) == vo::block_variant::reference));
    BOOST_TEST((vo::resolve<cz::lz4_op>(vo::block_variant::fast, cpu) == vo::block_variant::fast));
    BOOST_CHECK_THROW(cz::lz4_program_fast(3), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_program_fast(0), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_program_fast(64), vyre::resource_error); // a subgroup holds at most 32
    BOOST_CHECK_THROW(cz::lz4_program_fast(32, 0, 0), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_program_fast(32, 0, 64), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_program_fast(32, 0, 1, 8), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_program_fast(32, 0, 1, 100), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_program_fast(32, 0, 1, 0, 0), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_program_fast(32, 0, 1, 0, 9), vyre::resource_error);
    // Emulated subgroups are the whole workgroup: two blocks per workgroup cannot be emulated.
    BOOST_CHECK_THROW(cz::lz4_op::kernel(vo::block_variant::fast, 32, 0, 2, 128, vyre::lower::subgroup_lowering::emulated),
                      vyre::resource_error);
}

// A file of 400,000 one-byte blocks (2 MB) would list 22 MB of blocks, past the parse's default
// budget (format::lz4_table_error): every route decodes it on the host as the walk reaches each
// block, says so (no dispatch), and gives the content.
VYRE_DEVICE_TEST(every_route_walks_files_of_too_many_tiny_blocks) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x1b1ULL);
    const bytes content = vyre::test::text_bytes(rng, 400'000);
    const bytes file = vyre::test::lz4_frame_of_one_byte_blocks(content);
    BOOST_REQUIRE_THROW((void)vyre::format::parse_lz4_frames(file), vyre::format::lz4_table_error);
    for (const auto route : {vyre::engine::lz4_route::device, vyre::engine::lz4_route::automatic, vyre::engine::lz4_route::host}) {
        BOOST_TEST_CONTEXT("route " << vyre::engine::lz4_route_name(route)) {
            vyre::engine::lz4_options options;
            options.route = route;
            vyre::engine::lz4_report report;
            BOOST_TEST((vyre::engine::decompress_lz4(dev.ctx(), file, options, &report) == content));
            BOOST_TEST(report.blocks == 400'000u);
            BOOST_TEST(report.host_blocks == 400'000u);
            BOOST_TEST(report.batches == 0u);
            BOOST_TEST(report.walked);
            options.max_output_bytes = content.size() - 1;
            BOOST_CHECK_THROW((void)vyre::engine::decompress_lz4(dev.ctx(), file, options), vyre::resource_error);
            BOOST_CHECK_THROW((void)vyre::engine::decompress_lz4(dev.ctx(), std::span(file).first(file.size() - 3), {}), vyre::format_error);
        }
    }
}

// ---- whole files written by the lz4 command line tool --------------------------------------------

VYRE_DEVICE_TEST(frames_from_lz4_tool) {
    if (!vyre::test::command_succeeds("lz4 -V")) {
        BOOST_TEST_MESSAGE("the lz4 command line tool is absent: frames from it are not tested");
        return;
    }
    const vyre::test::temp_dir dir("vyre_lz4_gpu_", true);
    const bytes corpus = system_corpus(1'000'000);
    const bytes small(corpus.begin(), corpus.begin() + 300'000);
    struct tool_case {
        std::string options;
        const bytes* content;
        bool linked;
    };
    const tool_case cases[] = {
        {"-B4", &corpus, false},           {"-B5", &corpus, false},          {"-B6", &corpus, false},
        {"-B7", &corpus, false},           {"-B4 -BD", &corpus, true},       {"-B5 -BD -9", &small, true},
        {"-B5 --content-size", &corpus, false}, {"-B4 --no-frame-crc", &corpus, false}, {"-B4 -BX", &corpus, false},
        {"-l", &corpus, false},            {"-1 -B4", &corpus, false},       {"-9 -B5", &corpus, false},
        {"-12 -B4", &small, false},
    };
    std::vector<bytes> files;
    for (std::size_t i = 0; i < std::size(cases); ++i) {
        const tool_case& c = cases[i];
        BOOST_TEST_CONTEXT("lz4 " << c.options) {
            const bytes file = lz4_tool(dir, *c.content, c.options, "t" + std::to_string(i));
            vyre::engine::lz4_report report;
            vyre::engine::lz4_options options;
            options.route = vyre::engine::lz4_route::device;
            options.variant = i % 4 == 3 ? vo::block_variant::reference : vo::block_variant::automatic;
            const bytes out = vyre::engine::decompress_lz4(dev.ctx(), file, options, &report);
            BOOST_TEST((out == *c.content));
            BOOST_TEST(report.frames == 1u);
            BOOST_TEST(report.output_bytes == c.content->size());
            BOOST_TEST(report.blocks == report.device_blocks + report.host_blocks);
            BOOST_TEST((c.linked ? report.host_blocks : report.device_blocks) == report.blocks);
            BOOST_TEST(report.batches == (report.device_blocks ? 1u : 0u));
            // The automatic route: a GPU for independent blocks of at most 128 KiB on average
            // (-B4's 64 KiB), liblz4 on the host for larger ones (-B5, -B7) and on CPU devices.
            vyre::engine::lz4_report chosen;
            const bytes again = vyre::engine::decompress_lz4(dev.ctx(), file, {}, &chosen);
            BOOST_TEST((again == *c.content));
            const bool small_blocks = report.device_blocks != 0 &&
                                      report.output_bytes <= report.device_blocks * vyre::engine::lz4_device_max_block_bytes;
            BOOST_TEST(chosen.device_blocks == (small_blocks && dev.ctx().device().is_gpu() ? report.device_blocks : 0u));
            BOOST_TEST(chosen.blocks == chosen.device_blocks + chosen.host_blocks);
            files.push_back(file);
        }
    }
    // A concatenation of frames of every kind, with small batch limits: several dispatches.
    std::mt19937_64 rng(3);
    const bytes empty = lz4_tool(dir, {}, "", "empty");
    bytes skippable = {0x53, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 'm', 'e', 't', 'a'};
    const bytes joined = concat({files[0], skippable, files[9], empty, files[4], files[7]});
    vyre::engine::lz4_options options;
    options.route = vyre::engine::lz4_route::device;
    options.limits.max_output_bytes = 1'100'000;
    vyre::engine::lz4_report report;
    const bytes out = vyre::engine::decompress_lz4(dev.ctx(), joined, options, &report);
    BOOST_TEST((out == concat({corpus, corpus, corpus, corpus})));
    BOOST_TEST(report.frames == 6u);
    BOOST_TEST(report.batches >= 3u);
    BOOST_TEST(report.host_blocks > 0u);
    // A content checksum mismatch is reported, never ignored.
    bytes bad = files[1];
    bad[bad.size() - 1] ^= 0x80;
    try {
        (void)vyre::engine::decompress_lz4(dev.ctx(), bad);
        BOOST_ERROR("a content checksum mismatch was not reported");
    } catch (const vyre::format_error& e) {
        BOOST_TEST(std::string(e.what()).find("content checksum") != std::string::npos, e.what());
    }
    // A hostile size is refused before anything is allocated.
    vyre::engine::lz4_options tight;
    tight.max_output_bytes = 1000;
    BOOST_CHECK_THROW((void)vyre::engine::decompress_lz4(dev.ctx(), files[0], tight), vyre::resource_error);

    // Many files in one pass (as vyre unpack sends a layer): independent, linked and legacy frames
    // together, one file whose block the device cannot decode and one whose content checksum
    // lies. Each failure stays with its file; the others decode to their content.
    const bytes& independent = files[0];
    const bytes& linked = files[4];
    const bytes& legacy = files[9];
    const vyre::format::lz4_layout damaged_layout = vyre::format::parse_lz4_frames(independent);
    bytes damaged = independent; // parsed first, then changed: only the device sees the damage
    const auto& first = damaged_layout.blocks.at(0).extent;
    BOOST_TEST_REQUIRE(first.flags == 0u); // a compressed block
    damaged[first.input_offset] = 0x00;    // no literals, then a match before any output
    damaged[first.input_offset + 1] = 0x01;
    std::vector<bytes> inputs = {independent, damaged, linked, bad, legacy};
    std::vector<vyre::format::lz4_layout> layouts;
    for (std::size_t k = 0; k < inputs.size(); ++k)
        layouts.push_back(k == 1 ? damaged_layout : vyre::format::parse_lz4_frames(inputs[k]));
    std::vector<vyre::engine::lz4_file> pass;
    for (std::size_t k = 0; k < inputs.size(); ++k) pass.push_back({inputs[k], &layouts[k]});
    vyre::engine::lz4_report many;
    many.batches = 7; // the pass adds to a report
    vyre::engine::lz4_options on_device;
    on_device.route = vyre::engine::lz4_route::device;
    const auto got = vyre::engine::decompress_lz4_files(dev.ctx(), pass, on_device, &many);
    BOOST_TEST(many.batches == 8u); // every device block of the five files in one dispatch
    BOOST_TEST(many.files == 5u);
    for (const std::size_t k : {std::size_t{0}, std::size_t{2}, std::size_t{4}}) {
        BOOST_TEST_CONTEXT("file " << k) {
            BOOST_TEST_REQUIRE(!got.errors[k].has_value());
            const auto content = got.content(k, pass[k]);
            BOOST_TEST((bytes(content.begin(), content.end()) == corpus));
        }
    }
    BOOST_TEST_REQUIRE(got.errors[1].has_value());
    BOOST_TEST(std::string(got.errors[1]->what()).find("device decoding gave offset_oob") != std::string::npos,
               got.errors[1]->what());
    BOOST_TEST(got.errors[1]->offset() == first.input_offset);
    BOOST_TEST_REQUIRE(got.errors[3].has_value());
    BOOST_TEST(std::string(got.errors[3]->what()).find("content checksum") != std::string::npos, got.errors[3]->what());
    // The pass's total output is bounded before anything is allocated.
    BOOST_CHECK_THROW((void)vyre::engine::decompress_lz4_files(dev.ctx(), pass, tight), vyre::resource_error);

    // The host route (liblz4, blocks in parallel): the same contents and the same failures, each
    // with its file, and no dispatch.
    vyre::engine::lz4_options on_host;
    on_host.route = vyre::engine::lz4_route::host;
    vyre::engine::lz4_report host_report;
    const auto by_host = vyre::engine::decompress_lz4_files(dev.ctx(), pass, on_host, &host_report);
    BOOST_TEST(host_report.batches == 0u);
    BOOST_TEST(host_report.device_blocks == 0u);
    BOOST_TEST(host_report.host_blocks == host_report.blocks);
    for (const std::size_t k : {std::size_t{0}, std::size_t{2}, std::size_t{4}}) {
        BOOST_TEST_CONTEXT("host route, file " << k) {
            BOOST_TEST_REQUIRE(!by_host.errors[k].has_value());
            const auto content = by_host.content(k, pass[k]);
            BOOST_TEST((bytes(content.begin(), content.end()) == corpus));
        }
    }
    BOOST_TEST_REQUIRE(by_host.errors[1].has_value());
    BOOST_TEST(std::string(by_host.errors[1]->what()).find("block 0: does not decode") != std::string::npos, by_host.errors[1]->what());
    BOOST_TEST(by_host.errors[1]->offset() == first.input_offset);
    BOOST_TEST_REQUIRE(by_host.errors[3].has_value());
    BOOST_TEST(std::string(by_host.errors[3]->what()).find("content checksum") != std::string::npos, by_host.errors[3]->what());
    BOOST_CHECK(vyre::engine::lz4_route_from_name("host") == vyre::engine::lz4_route::host);

    // A legacy frame whose one block ends with a match ('a', then 4 bytes from offset 1: "aaaaa"):
    // the format and compression.lz4 accept it, liblz4 refuses it (the encoder's rule that a block
    // ends with 5 literals). Both routes give the device's answer.
    const bytes lenient = {0x02, 0x21, 0x4C, 0x18, 4, 0, 0, 0, 0x10, 'a', 0x01, 0x00};
    BOOST_TEST(LZ4_decompress_safe(reinterpret_cast<const char*>(lenient.data() + 8), std::array<char, 16>{}.data(), 4, 16) < 0);
    for (const auto route : {vyre::engine::lz4_route::device, vyre::engine::lz4_route::host}) {
        BOOST_TEST_CONTEXT("route " << vyre::engine::lz4_route_name(route)) {
            vyre::engine::lz4_options o;
            o.route = route;
            BOOST_TEST((vyre::engine::decompress_lz4(dev.ctx(), lenient, o) == bytes(5, 'a')));
        }
    }
    BOOST_TEST(!vyre::engine::lz4_route_from_name("gpu").has_value());
}

VYRE_TEST_MAIN
