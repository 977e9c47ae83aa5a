// compression.zstd on every device, both programs (reference and cooperative): the seed's
// conformance list, parity with the CPU oracle (bytes and statuses) on random and hostile blocks
// and descriptors with guard bytes around every output window, determinism, the IR programs on the
// reference interpreter; then whole files through the pipeline (engine/zstd_decompress.hpp) into
// host and device memory, every route (automatic, hybrid, host): frames written by the zstd and
// pzstd tools, hand-built raw/RLE frames, files mixing frames of every kind with skippable frames,
// which frames each route sends where, errors that name the same offset in every route, and
// seeded mutations.
#include "block_bindings.hpp"
#include "block_batch.hpp"
#include "harness.hpp"
#include "test_data.hpp"
#include "zstd_blocks.hpp"

#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/format/zstd_descriptions.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/reference/zstd.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace vyre::compression {
std::ostream& operator<<(std::ostream& os, const block_status& s) {
    return os << "{" << zstd_error_name(s.code) << ", " << s.output_size << "}";
}
} // namespace vyre::compression
namespace vyre::ops {
std::ostream& operator<<(std::ostream& os, block_variant v) { return os << block_variant_name(v); }
} // namespace vyre::ops

namespace vyre::engine {
std::ostream& operator<<(std::ostream& os, zstd_route r) { return os << zstd_route_name(r); }
std::ostream& operator<<(std::ostream& os, zstd_frame_path p) { return os << zstd_frame_path_name(p); }
} // namespace vyre::engine

namespace {

namespace fs = std::filesystem;
namespace cz = vyre::ops::compression;
namespace vc = vyre::compression;
namespace vo = vyre::ops;
namespace ze = vyre::compression::zstd_error;
namespace fmt = vyre::format;
namespace ref = vyre::reference;
namespace rt = vyre::runtime;
namespace eng = vyre::engine;
using bytes = std::vector<std::uint8_t>;

constexpr vo::block_variant variants[] = {vo::block_variant::reference, vo::block_variant::fast};
constexpr std::uint8_t canary = 0xA5;
constexpr std::uint32_t kib128 = 128u << 10;

using vyre::test::block_header;
using vyre::test::have_tool;
using vyre::test::libzstd_decompress;
using vyre::test::literal_block;
using vyre::test::make_corpus;
using vyre::test::put_le;
using vyre::test::random_bytes;
using vyre::test::run_tool;
using vyre::test::skippable;
using vyre::test::write_file;

// ---- blocks and frames by hand --------------------------------------------------------------------

// A block as compression.zstd takes it: the 3-byte header, then `content`.
bytes block_bytes(unsigned type, std::uint32_t size, const bytes& content, bool last = false) {
    bytes out;
    block_header(out, type, last, size);
    out.insert(out.end(), content.begin(), content.end());
    return out;
}

// ---- one dispatch: cases packed into an input, output windows separated by canary bytes --------

struct block_case {
    bytes block;           // header + content (or anything, for hostile cases)
    std::uint32_t capacity; // output window
};

struct batch {
    bytes input;
    std::vector<vc::block_descriptor> blocks;
    bytes output; // initial contents: canary everywhere
};

batch pack(const std::vector<block_case>& cases, std::mt19937_64& rng) {
    batch b;
    std::uint32_t out = static_cast<std::uint32_t>(rng() % 4);
    for (const auto& c : cases) {
        b.input.resize(b.input.size() + rng() % 4, 0x5A); // misaligned starts
        const auto in = static_cast<std::uint32_t>(b.input.size());
        b.input.insert(b.input.end(), c.block.begin(), c.block.end());
        b.blocks.push_back({in, static_cast<std::uint32_t>(c.block.size()), out, c.capacity, 0});
        out += c.capacity + static_cast<std::uint32_t>(rng() % 8); // guard gap
    }
    b.output.assign(out + rng() % 8, canary);
    return b;
}

struct run_result {
    bytes output;
    std::vector<vc::block_status> statuses;
};

run_result run_reference(const batch& b) {
    run_result r{b.output, std::vector<vc::block_status>(b.blocks.size())};
    ref::zstd_decode_blocks(b.input, b.blocks, r.output, r.statuses);
    return r;
}

run_result run_device(rt::context& ctx, vo::block_variant v, const batch& b) {
    run_result r{b.output, std::vector<vc::block_status>(b.blocks.size())};
    vo::decode_blocks_into<cz::zstd_op>(ctx, b.input, b.blocks, r.output, r.statuses, v);
    return r;
}

// Device == oracle, bytes (guards included) and statuses; returns the device's result.
run_result check_batch(rt::context& ctx, vo::block_variant v, const batch& b) {
    const run_result want = run_reference(b);
    const run_result got = run_device(ctx, v, b);
    BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
    if (got.output != want.output) {
        std::size_t i = 0;
        while (got.output[i] == want.output[i]) ++i;
        BOOST_ERROR("output differs from the oracle first at byte " << i << " (device " << int(got.output[i]) << ", oracle "
                                                                     << int(want.output[i]) << ")");
    }
    // Nothing outside the windows of successful blocks changed.
    bytes guards = b.output;
    for (std::size_t i = 0; i < b.blocks.size(); ++i)
        if (want.statuses[i].code == ze::none)
            std::copy_n(want.output.begin() + b.blocks[i].output_offset, want.statuses[i].output_size,
                        guards.begin() + b.blocks[i].output_offset);
    BOOST_TEST((got.output == guards));
    return got;
}

// The seed's list and the edges of every rule, with the statuses the oracle gives.
std::vector<block_case> conformance_cases(std::vector<vc::block_status>& expected) {
    std::mt19937_64 rng(7);
    std::vector<block_case> cases;
    const auto add = [&](bytes block, std::uint32_t capacity, vc::block_status s) {
        cases.push_back({std::move(block), capacity});
        expected.push_back(s);
    };
    const bytes five = {1, 2, 3, 4, 5};
    add(block_bytes(0, 5, five), 5, {ze::none, 5});                       // raw
    add(block_bytes(0, 5, five, true), 9, {ze::none, 5});                 // raw, last flag, room to spare
    add(block_bytes(1, 1000, {'x'}), 1000, {ze::none, 1000});             // RLE
    add(block_bytes(2, 5, five), 100, {ze::unsupported_compressed_block, 0}); // compressed: code 4
    add(block_bytes(3, 5, five), 100, {ze::corrupt_block, 0});             // reserved type
    add({0x01, 0x00}, 100, {ze::corrupt_block, 0});                        // header cut short
    add({}, 100, {ze::corrupt_block, 0});                                  // nothing at all
    add(block_bytes(0, 6, five), 100, {ze::corrupt_block, 0});             // raw content short
    add(block_bytes(0, 4, five), 100, {ze::corrupt_block, 0});             // raw content long
    add(block_bytes(1, 9, {7, 7}), 100, {ze::corrupt_block, 0});           // RLE with two bytes
    add(block_bytes(2, 9, five), 100, {ze::corrupt_block, 0});             // compressed size mismatch
    add(block_bytes(1, kib128 + 1, {7}), kib128 + 1, {ze::corrupt_block, 0}); // above 128 KiB
    add(block_bytes(1, 100, {}), 100, {ze::rle_payload_missing, 0});       // RLE, payload missing
    add(block_bytes(1, 0, {}), 100, {ze::rle_payload_missing, 0});
    add(block_bytes(0, 5, five), 4, {ze::output_overflow, 0});             // raw, window too small
    add(block_bytes(1, 100, {'y'}), 99, {ze::output_overflow, 0});         // RLE, window too small
    add(block_bytes(1, 100, {'y'}), 0, {ze::output_overflow, 0});
    add(block_bytes(0, 0, {}), 0, {ze::none, 0});                          // empty raw
    add(block_bytes(1, 0, {'z'}), 0, {ze::none, 0});                       // empty RLE
    add(block_bytes(2, 0, {}), 0, {ze::unsupported_compressed_block, 0});  // empty compressed
    add(block_bytes(1, kib128, {9}), kib128, {ze::none, kib128});          // the largest blocks
    add(block_bytes(0, kib128, random_bytes(rng, kib128)), kib128, {ze::none, kib128});
    add(block_bytes(3, 0, {}), 0, {ze::corrupt_block, 0});
    add(block_bytes(0, 3, {1, 2, 3}, true), 3, {ze::none, 3});
    return cases;
}

std::vector<block_case> random_cases(std::mt19937_64& rng, std::size_t count) {
    std::vector<block_case> cases;
    for (std::size_t i = 0; i < count; ++i) {
        const unsigned kind = rng() % 10;
        // Mostly small blocks (fast on a CPU device), now and then a large one.
        const std::uint32_t size = rng() % 200 == 0 ? static_cast<std::uint32_t>(rng() % (kib128 + 1))
                                   : rng() % 3 == 0 ? static_cast<std::uint32_t>(rng() % 5000)
                                                    : static_cast<std::uint32_t>(rng() % 300);
        bytes block;
        if (kind <= 3) {
            block = block_bytes(0, size, random_bytes(rng, size), rng() % 2);
        } else if (kind <= 6) {
            block = block_bytes(1, size, {static_cast<std::uint8_t>(rng())}, rng() % 2);
        } else if (kind == 7) {
            block = block_bytes(2, size % 2000, random_bytes(rng, size % 2000));
        } else {
            block = random_bytes(rng, rng() % 12); // hostile: any header, any content length
            if (block.size() >= 3 && rng() % 2) block[2] = static_cast<std::uint8_t>(rng() % 2);
        }
        if (kind != 9 && !block.empty() && rng() % 8 == 0) { // a corruption of a valid block
            switch (rng() % 3) {
            case 0: block.pop_back(); break;
            case 1: block.push_back(static_cast<std::uint8_t>(rng())); break;
            default: block[rng() % std::min<std::size_t>(3, block.size())] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
            }
        }
        std::uint32_t capacity = size;
        if (rng() % 6 == 0) capacity = static_cast<std::uint32_t>(rng() % (size + 16));
        if (kind >= 8) capacity = static_cast<std::uint32_t>(rng() % 64);
        cases.push_back({std::move(block), capacity});
    }
    return cases;
}

} // namespace

// ---- the seed's conformance list ------------------------------------------------------------------

VYRE_DEVICE_TEST(automatic_picks_a_program_for_the_device) {
    const auto& d = dev.ctx().device();
    BOOST_TEST((vo::resolve<cz::zstd_op>(vo::block_variant::automatic, d) ==
                (d.is_cpu() && !d.is_gpu() ? vo::block_variant::reference : vo::block_variant::fast)));
    BOOST_TEST((vo::resolve<cz::zstd_op>(vo::block_variant::reference, d) == vo::block_variant::reference));
    BOOST_TEST((vo::resolve<cz::zstd_op>(vo::block_variant::fast, d) == vo::block_variant::fast));
}

VYRE_DEVICE_TEST(seed_conformance_list) {
    std::vector<vc::block_status> expected;
    const auto cases = conformance_cases(expected);
    std::mt19937_64 rng(vyre::test::test_seed());
    const batch b = pack(cases, rng);
    BOOST_TEST(run_reference(b).statuses == expected, boost::test_tools::per_element());
    for (auto v : variants)
        BOOST_TEST_CONTEXT("variant " << v << ", seed " << vyre::test::test_seed()) {
            const run_result r = check_batch(dev.ctx(), v, b);
            BOOST_TEST(r.statuses == expected, boost::test_tools::per_element());
            const auto at = r.output.begin() + b.blocks[0].output_offset;
            BOOST_TEST((bytes(at, at + 5) == bytes{1, 2, 3, 4, 5}));
            const auto rle = r.output.begin() + b.blocks[2].output_offset;
            BOOST_TEST(std::count(rle, rle + 1000, 'x') == 1000);
        }
}

// The kernel is safe whatever the descriptors say: ranges past the buffers, offsets that wrap in
// 32 bits, windows running past the output (clipped, so they can only overflow).
VYRE_DEVICE_TEST(descriptors_outside_the_buffers) {
    batch b;
    b.input = block_bytes(0, 5, {1, 2, 3, 4, 5});
    const auto rle_at = static_cast<std::uint32_t>(b.input.size());
    const bytes rle = block_bytes(1, 10, {9});
    b.input.insert(b.input.end(), rle.begin(), rle.end());
    const auto in = static_cast<std::uint32_t>(b.input.size());
    b.output.assign(40, canary);
    b.blocks = {
        {0, 8, 0, 5, 0},                     // raw
        {rle_at, 4, 5, 10, 0},               // RLE
        {rle_at, 4, 35, 10, 0},              // RLE running past the 40-byte output: clipped, overflows
        {rle_at, 4, 25, 10, 0xFFFFFFFFu},    // flags are ignored
        {rle_at, 5, 15, 10, 0},              // input range past the input
        {0xFFFFFFFFu, 2, 15, 10, 0},         // input offset + size wraps in 32 bits
        {rle_at, 4, 0xFFFFFFF0u, 0x20, 0},   // output range past the buffer and past 2^32
        {in, 0, 15, 10, 0},                  // empty input at the very end
        {in + 1, 3, 15, 10, 0},              // input starting past the end
        {0, 8, 40, 0, 0},                    // empty window at the end of the output
        {rle_at, 4, 41, 10, 0},              // window starting past the output
        {0, 8, 20, 0xFFFFFFFFu, 0},          // window size that wraps
    };
    const std::vector<vc::block_status> expected = {
        {ze::none, 5}, {ze::none, 10}, {ze::output_overflow, 0}, {ze::none, 10},
        {ze::corrupt_block, 0}, {ze::corrupt_block, 0}, {ze::output_overflow, 0}, {ze::corrupt_block, 0},
        {ze::corrupt_block, 0}, {ze::output_overflow, 0}, {ze::output_overflow, 0}, {ze::none, 5}};
    BOOST_TEST(run_reference(b).statuses == expected, boost::test_tools::per_element());
    for (auto v : variants)
        BOOST_TEST_CONTEXT("variant " << v) {
            const run_result r = check_batch(dev.ctx(), v, b);
            BOOST_TEST(r.statuses == expected, boost::test_tools::per_element());
        }
}

// Block sizes and alignments around the cooperative program's steps (256 x 8 bytes), slices
// (16 KiB) and the block limit, source and destination at every offset modulo 4.
VYRE_DEVICE_TEST(cooperative_edges) {
    std::mt19937_64 rng(vyre::test::test_seed() + 3);
    std::vector<block_case> cases;
    for (std::uint32_t size : {1u, 255u, 256u, 257u, 2047u, 2048u, 2049u, 4096u, 16383u, 16384u, 16385u, 32769u, 100000u,
                               kib128 - 1, kib128})
        for (unsigned type : {0u, 1u})
            cases.push_back({type == 0 ? block_bytes(0, size, random_bytes(rng, size)) : block_bytes(1, size, {static_cast<std::uint8_t>(size)}),
                             size + static_cast<std::uint32_t>(rng() % 3)});
    const batch b = pack(cases, rng);
    for (auto v : variants) BOOST_TEST_CONTEXT("variant " << v) { check_batch(dev.ctx(), v, b); }

    // The slice count only shapes the launch: 1, the default, and more slices than a block has.
    const run_result want = run_reference(b);
    auto& ctx = dev.ctx();
    for (std::uint32_t largest : {1u, 16384u, kib128, 40000u})
        for (const auto& kernel : {cz::zstd_op::kernel(vo::block_variant::fast),
                                   cz::zstd_op::kernel(vo::block_variant::fast, 64, 4, 1024)})
            BOOST_TEST_CONTEXT("largest_output " << largest << ", slice " << kernel.slice) {
                vo::block_buffers d;
                d.input_bytes = b.input.size();
                d.input = rt::allocate(ctx, vyre::runtime::padded_bytes(b.input.size()));
                rt::write(ctx, d.input, b.input.data(), b.input.size());
                d.descriptors = rt::upload(ctx, std::span<const vc::block_descriptor>(b.blocks));
                d.block_count = static_cast<std::uint32_t>(b.blocks.size());
                d.output_bytes = b.output.size();
                d.output = rt::allocate(ctx, vyre::runtime::padded_bytes(b.output.size()));
                rt::write(ctx, d.output, b.output.data(), b.output.size());
                d.statuses = rt::allocate(ctx, b.blocks.size() * sizeof(vc::block_status));
                d.largest_output = largest;
                vo::block_launch_params params;
                vo::enqueue_blocks(ctx, kernel, d, params);
                run_result got{bytes(b.output.size()), std::vector<vc::block_status>(b.blocks.size())};
                rt::read(ctx, d.output, got.output.data(), got.output.size());
                rt::read(ctx, d.statuses, got.statuses.data(), got.statuses.size() * sizeof(vc::block_status));
                BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
                BOOST_TEST((got.output == want.output));
            }
}

// ---- parity with the oracle ------------------------------------------------------------------------

VYRE_DEVICE_TEST(parity_with_the_oracle_on_random_and_hostile_blocks) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed ^ 0x7a737464ULL);
    std::map<std::uint32_t, int> codes;
    for (int round = 0; round < 3; ++round) {
        const batch b = pack(random_cases(rng, 1500), rng);
        for (const auto& s : run_reference(b).statuses) ++codes[s.code];
        for (auto v : variants)
            BOOST_TEST_CONTEXT("variant " << v << ", seed " << seed << ", round " << round) { check_batch(dev.ctx(), v, b); }
    }
    for (std::uint32_t code = 0; code <= 4; ++code) BOOST_TEST_CONTEXT("code " << code) { BOOST_TEST(codes[code] > 0); }
}

// Random descriptors over random bytes: any range, any header the bytes happen to hold.
VYRE_DEVICE_TEST(parity_with_the_oracle_on_random_descriptors) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed ^ 0x64657363ULL);
    batch b;
    b.input = random_bytes(rng, 3000);
    for (std::size_t i = 0; i < b.input.size(); i += 1 + rng() % 40) b.input[i] = static_cast<std::uint8_t>(rng() % 8); // small sizes
    std::uint32_t out = 0;
    for (int i = 0; i < 2000; ++i) {
        const std::uint32_t at = rng() % 16 == 0 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() % 3010);
        const std::uint32_t n = rng() % 16 == 0 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() % 12);
        const std::uint32_t cap = rng() % 16 == 0 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() % 64);
        // Windows are disjoint, except those that only the last window's clipping reaches.
        b.blocks.push_back({at, n, out, cap, 0});
        out += std::min<std::uint32_t>(cap, 64) + static_cast<std::uint32_t>(rng() % 3);
    }
    b.output.assign(out + 64, canary);
    for (auto v : variants)
        BOOST_TEST_CONTEXT("variant " << v << ", seed " << seed) {
            // Windows wider than 64 bytes may overlap the next; compare statuses everywhere and
            // bytes where no window is wider than its slot.
            const run_result want = run_reference(b);
            const run_result got = run_device(dev.ctx(), v, b);
            BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
            bool overlapping = false;
            for (std::size_t i = 0; i < b.blocks.size(); ++i)
                overlapping = overlapping || (want.statuses[i].code == ze::none && want.statuses[i].output_size > 64);
            if (!overlapping) BOOST_TEST((got.output == want.output));
        }
}

// ---- determinism ---------------------------------------------------------------------------------------

VYRE_DEVICE_TEST(deterministic_over_100_runs) {
    std::mt19937_64 rng(vyre::test::test_seed() + 100);
    const batch b = pack(random_cases(rng, 120), rng);
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

// ---- the IR programs on the reference interpreter ----------------------------------------------------

BOOST_AUTO_TEST_CASE(programs_agree_with_the_oracle_on_the_interpreter) {
    std::vector<vc::block_status> expected;
    std::vector<block_case> cases = conformance_cases(expected);
    cases.erase(std::remove_if(cases.begin(), cases.end(), [](const block_case& c) { return c.capacity > 5000; }), cases.end());
    std::mt19937_64 rng(11);
    for (auto& c : random_cases(rng, 60))
        if (c.capacity <= 5000) cases.push_back(std::move(c));
    const batch b = pack(cases, rng);
    const run_result want = run_reference(b);
    const bytes want_output = vyre::test::padded_output(want.output);
    const auto n = static_cast<std::uint32_t>(b.blocks.size());
    for (const auto& [name, program, groups, slices] :
         {std::tuple{"reference", cz::zstd_program_reference(), (n + cz::zstd_reference_workgroup - 1) / cz::zstd_reference_workgroup, 0u},
          std::tuple{"fast", cz::zstd_program_fast(), n * 1, 1u},
          std::tuple{"fast 32x2, 256-byte slices", cz::zstd_program_fast(32, 2, 256), n * 3, 3u}}) {
        BOOST_TEST_CONTEXT("program " << name) {
            BOOST_CHECK_NO_THROW(vyre::ir::validate(program));
            const auto got = vyre::test::run_interpreter(program, groups, b, slices);
            BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
            BOOST_TEST((got.output == want_output));
        }
    }
}

BOOST_AUTO_TEST_CASE(programs_have_the_permanent_bindings) {
    for (const auto& p : {cz::zstd_program_reference(), cz::zstd_program_fast()}) vyre::test::check_block_bindings(p);
    BOOST_TEST(cz::zstd_op::infos()[0].id == "compression.zstd");
    BOOST_TEST(cz::zstd_op::infos()[0].version == 1u);
    BOOST_TEST((cz::zstd_op::infos()[0].signature == vyre::ir::op_signature{{vyre::ir::data_type::bytes}, vyre::ir::data_type::bytes}));
    BOOST_TEST(cz::zstd_op::infos()[0].program() == cz::zstd_program_reference());
    BOOST_TEST(cz::zstd_op::infos()[1].program() == cz::zstd_program_fast());
    BOOST_TEST(ze::none == 0u);
    BOOST_TEST(ze::corrupt_block == 1u);
    BOOST_TEST(ze::output_overflow == 2u);
    BOOST_TEST(ze::rle_payload_missing == 3u);
    BOOST_TEST(ze::unsupported_compressed_block == 4u);
    BOOST_CHECK_THROW(cz::zstd_program_fast(96), vyre::resource_error);
    BOOST_CHECK_THROW(cz::zstd_program_fast(256, 8, 1000), vyre::resource_error);
}

// ---- whole files through the hybrid pipeline ------------------------------------------------------

namespace {

struct header_spec {
    unsigned fcs_code = 0; // Frame_Content_Size_flag
    bool single_segment = false;
    std::uint8_t window = 0x50; // window log 20
    bool checksum = true;
    std::uint64_t fcs = 0;
};

bytes frame_header(const header_spec& h) {
    bytes out;
    put_le(out, fmt::zstd_magic, 4);
    out.push_back(static_cast<std::uint8_t>(h.fcs_code << 6 | (h.single_segment ? 0x20 : 0) | (h.checksum ? 4 : 0)));
    if (!h.single_segment) out.push_back(h.window);
    static constexpr unsigned fcs_bytes[4] = {0, 2, 4, 8};
    const unsigned n = (h.fcs_code == 0 && h.single_segment) ? 1 : fcs_bytes[h.fcs_code];
    put_le(out, n == 2 ? h.fcs - 256 : h.fcs, n);
    return out;
}

// A frame of raw and RLE blocks only (content appended to `content`).
bytes plain_frame(std::mt19937_64& rng, bytes& content, std::size_t blocks, bool declare_size, bool with_checksum,
                  std::uint8_t window = 0x58) {
    bytes body, c;
    for (std::size_t i = 0; i < blocks; ++i) {
        const std::uint32_t n = rng() % 3 == 0 ? kib128 : static_cast<std::uint32_t>(rng() % 70000);
        const bool last = i + 1 == blocks;
        if (rng() % 2) {
            const bytes data = random_bytes(rng, n);
            block_header(body, 0, last, n);
            body.insert(body.end(), data.begin(), data.end());
            c.insert(c.end(), data.begin(), data.end());
        } else {
            const auto v = static_cast<std::uint8_t>(rng());
            block_header(body, 1, last, n);
            body.push_back(v);
            c.insert(c.end(), n, v);
        }
    }
    bytes out = frame_header({declare_size ? 3u : 0u, false, window, with_checksum, c.size()});
    out.insert(out.end(), body.begin(), body.end());
    if (with_checksum) put_le(out, static_cast<std::uint32_t>(XXH64(c.data(), c.size(), 0)), 4);
    content.insert(content.end(), c.begin(), c.end());
    return out;
}

constexpr eng::zstd_route routes[] = {eng::zstd_route::automatic, eng::zstd_route::hybrid, eng::zstd_route::host};

// The path each route gives a frame, restated from the parse: frames with a compressed block go
// to the host (automatic; split when bound for device memory and zstd_split_pays, tested on its
// own below) or to the block path (hybrid); frames of raw/RLE blocks only go to the device,
// except that the hybrid route rebuilds them on the host when the result goes there.
eng::zstd_frame_path expected_path(eng::zstd_route route, bool to_device, const fmt::zstd_frame& f) {
    const bool compressed = f.compressed_blocks() != 0;
    if (route == eng::zstd_route::host) return eng::zstd_frame_path::host;
    if (route == eng::zstd_route::hybrid)
        return compressed || !to_device ? eng::zstd_frame_path::hybrid : eng::zstd_frame_path::device;
    if (!compressed) return eng::zstd_frame_path::device;
    return to_device && eng::detail::zstd_split_pays(f) ? eng::zstd_frame_path::split : eng::zstd_frame_path::host;
}

// What the report must say about where frames and blocks went: every frame's path, the counts,
// the blocks dispatched and the input bytes uploaded for them: at least their own bytes, and
// none of a host frame larger than the merge gap (smaller ones may ride along in a merged copy).
void check_routing(const eng::zstd_report& r, std::span<const std::uint8_t> zst, eng::zstd_route route, bool to_device) {
    const auto file = fmt::parse_zstd(zst, {std::uint64_t{1} << 40, 31});
    BOOST_TEST_REQUIRE(r.frame_path.size() == file.frames.size());
    eng::zstd_path_counts counts;
    std::size_t dispatched = 0, plain_blocks = 0;
    std::uint64_t dispatched_bytes = 0, plain_bytes = 0, large_host_frames = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        const auto& f = file.frames[k];
        const auto want = expected_path(route, to_device, f);
        BOOST_TEST_CONTEXT("frame " << k) { BOOST_TEST(r.frame_path[k] == want); }
        if (want == eng::zstd_frame_path::host) {
            ++counts.host;
            if (f.size > eng::detail::zstd_merge_gap) large_host_frames += f.size;
            continue;
        }
        ++(want == eng::zstd_frame_path::device ? counts.device
           : want == eng::zstd_frame_path::split ? counts.split
                                                 : counts.hybrid);
        for (const auto& b : f.blocks) {
            const bool plain = b.type != fmt::zstd_block_type::compressed;
            if (!plain && want == eng::zstd_frame_path::split) continue; // the host's alone
            ++dispatched;
            dispatched_bytes += vyre::compression::zstd_block_header_bytes + b.content_size;
            if (plain) {
                ++plain_blocks;
                plain_bytes += b.block_size;
            }
        }
    }
    BOOST_TEST(r.paths.device == counts.device);
    BOOST_TEST(r.paths.hybrid == counts.hybrid);
    BOOST_TEST(r.paths.host == counts.host);
    BOOST_TEST(r.paths.split == counts.split);
    BOOST_TEST(r.split.frames == file.frames.size());
    BOOST_TEST(r.blocks == file.block_count);
    BOOST_TEST(r.dispatched_blocks == dispatched);
    BOOST_TEST(r.split.device_blocks == plain_blocks);
    BOOST_TEST(r.split.device_bytes == plain_bytes);
    BOOST_TEST(r.device_input_bytes >= dispatched_bytes);
    BOOST_TEST(r.device_input_bytes + large_host_frames <= zst.size());
    if (dispatched == 0) {
        BOOST_TEST(r.batches == 0u);
        BOOST_TEST(r.device_input_bytes == 0u);
    } else {
        BOOST_TEST(r.batches >= 1u);
    }
}

// Through the pipeline into host memory and into device memory, every route, each with the
// default batches, with tiny ones (many dispatches, frames waiting on several batches) and with
// the seed's program, against `expected` and libzstd. Returns each route's default report (host
// target).
std::map<eng::zstd_route, eng::zstd_report> check_pipeline(rt::context& ctx, std::span<const std::uint8_t> zst,
                                                           const bytes& expected) {
    const auto lib = libzstd_decompress(zst, expected.size());
    BOOST_TEST_REQUIRE(lib.has_value());
    BOOST_TEST_REQUIRE((*lib == expected));
    std::map<eng::zstd_route, eng::zstd_report> first;
    for (const auto route : routes) {
        eng::zstd_options base;
        base.route = route;
        eng::zstd_options small = base;
        small.batch_input_bytes = 5000;
        small.threads = 2;
        eng::zstd_options reference_program = base;
        reference_program.variant = vo::block_variant::reference;
        int run = 0;
        for (const eng::zstd_options& options : {base, small, reference_program}) {
            BOOST_TEST_CONTEXT("route " << route << ", options " << run) {
                const auto host = eng::decompress_zstd(ctx, zst, options);
                BOOST_TEST(host.bytes.size() == expected.size());
                BOOST_TEST((host.bytes == expected));
                BOOST_TEST(host.report.output_bytes == expected.size());
                BOOST_TEST(host.report.split.redone_blocks == 0u);
                BOOST_TEST(host.report.split.device_blocks + host.report.split.cpu_blocks == host.report.blocks);
                BOOST_TEST(host.report.split.device_bytes + host.report.split.cpu_bytes == expected.size());
                check_routing(host.report, zst, route, false);

                // Into util::host_bytes (not zero-filled, faulted in on the host's threads): the same.
                vyre::util::host_bytes into(3, 0xEE); // what was there before is replaced
                const auto into_report = eng::decompress_zstd(ctx, zst, into, options);
                BOOST_TEST(std::ranges::equal(into, expected));
                BOOST_TEST(into_report.output_bytes == expected.size());
                BOOST_TEST(into_report.blocks == host.report.blocks);

                const auto device = eng::decompress_zstd_to_device(ctx, zst, options);
                BOOST_TEST(device.output_bytes == expected.size());
                bytes back(expected.size());
                rt::read(ctx, device.output, back.data(), back.size());
                BOOST_TEST((back == expected));
                // Into device memory, split frames move raw/RLE blocks from the host's share to the device's.
                if (device.report.paths.split == 0) {
                    BOOST_TEST(device.report.split.device_blocks == host.report.split.device_blocks);
                    BOOST_TEST(device.report.split.cpu_bytes == host.report.split.cpu_bytes);
                }
                BOOST_TEST(device.report.split.device_bytes + device.report.split.cpu_bytes == expected.size());
                BOOST_TEST(device.report.split.redone_blocks == 0u);
                check_routing(device.report, zst, route, true);
                if (run == 0) first[route] = host.report;
            }
            ++run;
        }
    }
    return first;
}

} // namespace

VYRE_DEVICE_TEST(pipeline_hand_built_raw_and_rle_frames) {
    std::mt19937_64 rng(vyre::test::test_seed() + 8);
    for (bool declare : {true, false})
        for (bool sum : {true, false})
            BOOST_TEST_CONTEXT("declared size " << declare << ", checksum " << sum) {
                bytes content;
                const bytes zst = plain_frame(rng, content, 6, declare, sum);
                const auto reports = check_pipeline(dev.ctx(), zst, content);
                for (const auto route : {eng::zstd_route::automatic, eng::zstd_route::hybrid})
                    BOOST_TEST_CONTEXT("route " << route) {
                        const auto& r = reports.at(route);
                        BOOST_TEST(r.split.device_blocks == 6u);
                        BOOST_TEST(r.split.cpu_blocks == 0u);
                        BOOST_TEST(r.split.device_bytes == content.size());
                    }
                const auto& host = reports.at(eng::zstd_route::host);
                BOOST_TEST(host.split.cpu_blocks == 6u);
                BOOST_TEST(host.split.cpu_bytes == content.size());
                BOOST_TEST(host.paths.host == 1u);
            }
    // A window of 2^31 (the parser's limit): the host route raises libzstd's default window limit.
    {
        bytes content;
        const bytes zst = plain_frame(rng, content, 2, false, true, 0xA8);
        BOOST_TEST_REQUIRE(fmt::parse_zstd(zst).frames.at(0).window_size == std::uint64_t{1} << 31);
        check_pipeline(dev.ctx(), zst, content);
    }
    // Many frames and skippable frames in between, empty frames, and a file of skippable frames only.
    bytes content, zst;
    skippable(zst, 0, 0);
    for (int f = 0; f < 12; ++f) {
        const bytes frame = plain_frame(rng, content, 1 + rng() % 3, f % 2, f % 3);
        zst.insert(zst.end(), frame.begin(), frame.end());
        if (f % 4 == 0) skippable(zst, static_cast<std::uint32_t>(f % 16), static_cast<std::uint32_t>(rng() % 100));
    }
    bytes empty = frame_header({0, true, 0, true, 0});
    block_header(empty, 0, true, 0);
    put_le(empty, static_cast<std::uint32_t>(XXH64(nullptr, 0, 0)), 4);
    zst.insert(zst.end(), empty.begin(), empty.end());
    const auto reports = check_pipeline(dev.ctx(), zst, content);
    for (const auto& [route, r] : reports)
        BOOST_TEST_CONTEXT("route " << route) {
            BOOST_TEST(r.split.frames == 13u);
            BOOST_TEST(r.split.skippable_frames == 4u);
            BOOST_TEST(r.split.cpu_blocks == (route == eng::zstd_route::host ? r.blocks : 0u));
        }
    bytes only;
    skippable(only, 5, 10);
    const auto none = eng::decompress_zstd(dev.ctx(), only);
    BOOST_TEST(none.bytes.empty());
    BOOST_TEST(none.report.split.skippable_frames == 1u);
    BOOST_TEST(eng::decompress_zstd(dev.ctx(), bytes{}).bytes.empty());
    vyre::util::host_bytes into(5, 1);
    BOOST_TEST(eng::decompress_zstd(dev.ctx(), only, into).split.skippable_frames == 1u);
    BOOST_TEST(into.empty());
    BOOST_TEST(eng::decompress_zstd_to_device(dev.ctx(), only).output_bytes == 0u);
}

VYRE_DEVICE_TEST(pipeline_frames_from_the_zstd_tool) {
    if (!have_tool("zstd")) {
        BOOST_TEST_MESSAGE("the zstd command line tool is absent: frames from it are not tested (CI installs it)");
        return;
    }
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        vyre::test::temp_dir dir("vyre_zstd_gpu_", false);
        const bytes corpus = make_corpus(300000, seed);
        write_file(dir.path / "corpus", corpus);
        std::uint64_t device_blocks = 0;
        for (const std::string o : {"-1", "-3", "-19", "--ultra -22", "--long -3", "-T0 -3", "--no-check -3",
                                    "--no-content-size -3", "-T2 -B1M -3"}) {
            BOOST_TEST_CONTEXT("zstd " << o) {
                const bytes zst = run_tool("zstd", o, dir.path / "corpus", dir.path / "out.zst");
                const auto reports = check_pipeline(dev.ctx(), zst, corpus);
                const auto& r = reports.at(eng::zstd_route::hybrid);
                BOOST_TEST(r.split.cpu_blocks > 0u);
                device_blocks += r.split.device_blocks;
                // Every frame of this corpus holds a compressed block: automatic decodes it whole on the host.
                const auto& a = reports.at(eng::zstd_route::automatic);
                BOOST_TEST(a.paths.host == a.split.frames);
                BOOST_TEST(a.batches == 0u);
                BOOST_TEST_MESSAGE("zstd " << o << ": " << r.blocks << " blocks in " << r.batches << " dispatch(es); device "
                                           << r.split.device_blocks << " blocks / " << r.split.device_bytes << " bytes, CPU "
                                           << r.split.cpu_blocks << " blocks / " << r.split.cpu_bytes << " bytes");
            }
        }
        BOOST_TEST(device_blocks > 0u); // the corpus makes the tool emit raw and RLE blocks (hybrid route)
        // Files of several frames, skippable frames between them.
        const bytes half(corpus.begin(), corpus.begin() + static_cast<std::ptrdiff_t>(corpus.size() / 2));
        write_file(dir.path / "half", half);
        const bytes za = run_tool("zstd", "-3", dir.path / "corpus", dir.path / "a.zst");
        const bytes zb = run_tool("zstd", "-19 --no-check --no-content-size", dir.path / "half", dir.path / "b.zst");
        bytes zst, expected;
        skippable(zst, 0, 0);
        for (const bytes* part : {&za, &zb, &za}) {
            zst.insert(zst.end(), part->begin(), part->end());
            skippable(zst, 0xF, 100);
            const bytes& c = part == &zb ? half : corpus;
            expected.insert(expected.end(), c.begin(), c.end());
        }
        for (const auto& [route, r] : check_pipeline(dev.ctx(), zst, expected))
            BOOST_TEST_CONTEXT("route " << route) {
                BOOST_TEST(r.split.frames == 3u);
                BOOST_TEST(r.split.skippable_frames == 4u);
            }

        if (!have_tool("pzstd")) {
            BOOST_TEST_MESSAGE("pzstd not installed: skipping its files");
        } else {
            const bytes big = make_corpus(1000000, seed);
            write_file(dir.path / "big", big);
            const bytes zp = run_tool("pzstd", "-p 2 -1", dir.path / "big", dir.path / "big.zst");
            const auto rp = check_pipeline(dev.ctx(), zp, big).at(eng::zstd_route::automatic);
            BOOST_TEST(rp.split.frames > 1u);
            BOOST_TEST_MESSAGE("pzstd: " << rp.split.frames << " frames, " << rp.split.skippable_frames << " skippable frames");
        }
    }
}

// One frame decoded a window of blocks at a time (the way of frames too long for one dispatch of
// compression.zstd.blocks, forced here with small windows): every window but the first starts
// with the frame's latest output, matches reach across windows, and tables carry over (treeless
// literals, repeated sequence tables). Windows of one block each, of about 200 KB, and of the
// whole frame, on both variants, equal libzstd; a damaged frame is refused or, where libzstd
// accepts it too, decodes to the same bytes.
VYRE_DEVICE_TEST(long_frames_decode_a_window_at_a_time) {
    if (!have_tool("zstd")) {
        BOOST_TEST_MESSAGE("the zstd command line tool is absent: windows are not tested (CI installs it)");
        return;
    }
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        vyre::test::temp_dir dir("vyre_zstd_windows_", false);
        const bytes corpus = make_corpus(700000, seed + 3);
        write_file(dir.path / "corpus", corpus);
        for (const std::string o : {"-3", "-19", "--long -3", "-T0 -1", "--no-check -3", "--no-content-size -9"}) {
            const bytes zst = run_tool("zstd", o, dir.path / "corpus", dir.path / "out.zst");
            const fmt::zstd_file parsed = fmt::parse_zstd(zst);
            BOOST_TEST_REQUIRE(parsed.frames.size() == 1u);
            const std::size_t blocks = parsed.frames[0].blocks.size();
            for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{200000}, std::uint64_t{1} << 30})
                for (const auto v : variants) // both programs on every device (automatic would pick one on a CPU device)
                    BOOST_TEST_CONTEXT("zstd " << o << ", windows of " << window << " bytes, " << vo::block_variant_name(v)) {
                        eng::zstd_options options;
                        options.route = eng::zstd_route::device;
                        options.device_program = eng::zstd_device_program::blocks;
                        options.window_bytes = window;
                        options.variant = v;
                        const auto r = eng::decompress_zstd(dev.ctx(), zst, options);
                        BOOST_TEST((r.bytes == corpus));
                        if (window == 1) BOOST_TEST(r.report.frame_windows == blocks); // a block each
                        if (window == 200000) BOOST_TEST(r.report.frame_windows >= 3u);
                        if (window == std::uint64_t{1} << 30) BOOST_TEST(r.report.frame_windows == 0u); // one dispatch
                        vyre::util::host_bytes into;
                        eng::decompress_zstd(dev.ctx(), zst, into, options);
                        BOOST_TEST(std::ranges::equal(into, corpus));
                    }
        }
        // A frame whose matches reach further back than its declared window: 200 KB of random
        // bytes again after 300 KB of others, compressed with a 1 MiB window, then the window
        // descriptor rewritten to 128 KiB. The format says no decoder needs more than the window;
        // libzstd's frame API decodes it anyway, and so does one dispatch. A window (whose history
        // is the declared window) refuses the match, and the frame goes to libzstd: every route
        // gives the same bytes.
        {
            std::mt19937_64 far_rng(seed + 9);
            bytes far(500000);
            for (auto& b : far) b = static_cast<std::uint8_t>(far_rng());
            far.insert(far.end(), far.begin(), far.begin() + 200000);
            write_file(dir.path / "far", far);
            bytes zst = run_tool("zstd", "-19 --long=20 --no-content-size", dir.path / "far", dir.path / "far.zst");
            BOOST_TEST_REQUIRE((zst.size() > 6 && (zst[4] & 0x20) == 0)); // a window descriptor follows the header byte
            zst[5] = 7u << 3;                                              // window log 17: 128 KiB
            BOOST_TEST_REQUIRE(fmt::parse_zstd(zst).frames.at(0).window_size == 128u << 10);
            eng::zstd_options host;
            host.route = eng::zstd_route::host;
            BOOST_TEST_REQUIRE((eng::decompress_zstd(dev.ctx(), zst, host).bytes == far));
            for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{200000}, std::uint64_t{1} << 30})
                BOOST_TEST_CONTEXT("a match past the declared window, windows of " << window << " bytes") {
                    eng::zstd_options options;
                    options.route = eng::zstd_route::device;
                    options.device_program = eng::zstd_device_program::blocks;
                    options.window_bytes = window;
                    const auto r = eng::decompress_zstd(dev.ctx(), zst, options);
                    BOOST_TEST((r.bytes == far));
                    // Windows hand the frame to libzstd; one dispatch decodes it on the device.
                    BOOST_TEST(r.report.paths.host == (window == std::uint64_t{1} << 30 ? 0u : 1u));
                }
        }
        // Damage: never a crash, the error named; bytes equal libzstd's where both accept.
        const bytes zst = run_tool("zstd", "-19", dir.path / "corpus", dir.path / "out.zst");
        std::mt19937_64 rng(seed + 5);
        eng::zstd_options options;
        options.route = eng::zstd_route::device;
        options.device_program = eng::zstd_device_program::blocks;
        options.window_bytes = 150000;
        std::size_t refused = 0;
        for (int m = 0; m < 40; ++m) {
            bytes bad = zst;
            const std::size_t at = 20 + rng() % (bad.size() - 24);
            bad[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
            BOOST_TEST_CONTEXT("bit flipped at " << at) {
                try {
                    const auto r = eng::decompress_zstd(dev.ctx(), bad, options);
                    const auto lib = libzstd_decompress(bad, corpus.size());
                    if (lib) BOOST_TEST((r.bytes == *lib));
                } catch (const vyre::error& e) {
                    ++refused;
                    BOOST_TEST(std::string(e.what()).find("zstd") != std::string::npos);
                }
            }
        }
        BOOST_TEST(refused > 0u);
    }
}

namespace {

// A file with every kind of frame, skippable frames between them: raw/RLE-only frames (0, 2, 4),
// a frame of compressed blocks only, larger than the merge gap (1: automatic uploads none of its
// bytes), a small frame mixing raw, RLE and compressed blocks (3), and a frame whose large RLE
// blocks follow one small compressed block (5, as libzstd writes runs of one byte: split into
// device memory).
struct mixed_file {
    bytes zst, content;
};

mixed_file make_mixed_file(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    mixed_file m;
    const auto framed = [&](const bytes& body, const bytes& c) {
        bytes out = frame_header({3u, false, 0x58, true, c.size()});
        out.insert(out.end(), body.begin(), body.end());
        put_le(out, static_cast<std::uint32_t>(XXH64(c.data(), c.size(), 0)), 4);
        m.zst.insert(m.zst.end(), out.begin(), out.end());
        m.content.insert(m.content.end(), c.begin(), c.end());
    };
    const auto plain = [&](std::size_t blocks) {
        const bytes f = plain_frame(rng, m.content, blocks, true, true);
        m.zst.insert(m.zst.end(), f.begin(), f.end());
    };
    skippable(m.zst, 0, 0);
    plain(3);
    skippable(m.zst, 3, 50);
    {
        bytes body, c;
        literal_block(body, c, random_bytes(rng, 60000));
        literal_block(body, c, random_bytes(rng, 50000), true);
        framed(body, c);
    }
    plain(2);
    {
        bytes body, c;
        const bytes raw = random_bytes(rng, 1000);
        block_header(body, 0, false, 1000);
        body.insert(body.end(), raw.begin(), raw.end());
        c.insert(c.end(), raw.begin(), raw.end());
        literal_block(body, c, random_bytes(rng, 300));
        block_header(body, 1, false, 5000);
        body.push_back('z');
        c.insert(c.end(), 5000, 'z');
        literal_block(body, c, random_bytes(rng, 20), true);
        framed(body, c);
    }
    skippable(m.zst, 15, 7);
    plain(2);
    {
        bytes body, c;
        literal_block(body, c, random_bytes(rng, 10));
        for (int k = 0; k < 3; ++k) {
            block_header(body, 1, false, kib128);
            body.push_back(static_cast<std::uint8_t>(k + 1));
            c.insert(c.end(), kib128, static_cast<std::uint8_t>(k + 1));
        }
        const bytes raw = random_bytes(rng, 700);
        block_header(body, 0, true, 700);
        body.insert(body.end(), raw.begin(), raw.end());
        c.insert(c.end(), raw.begin(), raw.end());
        framed(body, c);
    }
    return m;
}

// The format_error a decode throws, or nothing.
template <class F>
std::optional<vyre::format_error> format_error_of(F&& f) {
    try {
        f();
    } catch (const vyre::format_error& e) {
        return e;
    }
    return std::nullopt;
}

} // namespace

// Which frame goes where, and what is uploaded for the device, in each route.
VYRE_DEVICE_TEST(pipeline_routes_every_kind_of_frame) {
    using path = eng::zstd_frame_path;
    const mixed_file m = make_mixed_file(vyre::test::test_seed() + 21);
    const auto file = fmt::parse_zstd(m.zst);
    BOOST_TEST_REQUIRE(file.frames.size() == 6u);
    BOOST_TEST_REQUIRE(file.frames[1].size > eng::detail::zstd_merge_gap);
    const auto reports = check_pipeline(dev.ctx(), m.zst, m.content);
    const auto blocks_of = [&](std::initializer_list<std::size_t> frames) {
        std::size_t n = 0;
        for (std::size_t k : frames) n += file.frames[k].blocks.size();
        return n;
    };
    const auto first_header = [&](std::size_t k) { return file.frames[k].blocks.front().header_offset; };
    const auto last_end = [&](std::size_t k) { return file.frames[k].blocks.back().end_offset(); };

    const auto& a = reports.at(eng::zstd_route::automatic);
    BOOST_TEST((a.frame_path ==
                std::vector<path>{path::device, path::host, path::device, path::host, path::device, path::host}));
    BOOST_TEST(a.paths.device == 3u);
    BOOST_TEST(a.paths.hybrid == 0u);
    BOOST_TEST(a.paths.host == 3u);
    BOOST_TEST(a.paths.split == 0u);
    BOOST_TEST(a.dispatched_blocks == blocks_of({0, 2, 4}));
    // Two copies' worth of input: frame 0's blocks, then frames 2 to 4 (frame 3 is smaller than
    // the merge gap and rides along); none of frame 1.
    BOOST_TEST(a.device_input_bytes == (last_end(0) - first_header(0)) + (last_end(4) - first_header(2)));
    BOOST_TEST(a.split.cpu_blocks == blocks_of({1, 3, 5}));

    // Into device memory frame 5 is split: its three RLE blocks and its raw block are made by the
    // device (their input rides along with frame 4's), and only its compressed block's bytes go up.
    const auto d = eng::decompress_zstd_to_device(dev.ctx(), m.zst);
    BOOST_TEST((d.report.frame_path ==
                std::vector<path>{path::device, path::host, path::device, path::host, path::device, path::split}));
    BOOST_TEST(d.report.paths.split == 1u);
    BOOST_TEST(d.report.dispatched_blocks == blocks_of({0, 2, 4}) + 4);
    BOOST_TEST(d.report.device_input_bytes == (last_end(0) - first_header(0)) + (last_end(5) - first_header(2)));
    BOOST_TEST(d.report.split.device_blocks == a.split.device_blocks + 4);
    BOOST_TEST(d.report.split.device_bytes == a.split.device_bytes + 3 * kib128 + 700);

    const auto& h = reports.at(eng::zstd_route::hybrid);
    BOOST_TEST(h.paths.hybrid == 6u);
    BOOST_TEST(h.dispatched_blocks == file.block_count);
    BOOST_TEST(h.device_input_bytes == last_end(5) - first_header(0)); // one run: the gaps are headers and skippable frames

    const auto& o = reports.at(eng::zstd_route::host);
    BOOST_TEST(o.paths.host == 6u);
    BOOST_TEST(o.dispatched_blocks == 0u);
    BOOST_TEST(o.batches == 0u);
    BOOST_TEST(o.split.cpu_bytes == m.content.size());
}

// Corrupt frames of every kind: each route, into host and into device memory, throws the same
// format_error as the CPU pipeline, naming the same offset.
VYRE_DEVICE_TEST(pipeline_errors_name_the_same_offset_in_every_route) {
    const mixed_file m = make_mixed_file(vyre::test::test_seed() + 22);
    const auto file = fmt::parse_zstd(m.zst);
    BOOST_TEST_REQUIRE(file.frames.size() == 6u);
    const auto& mixed = file.frames[3];
    const auto& literals = mixed.blocks[1];
    BOOST_TEST_REQUIRE((literals.type == fmt::zstd_block_type::compressed));
    const fmt::zstd_block* rle = nullptr;
    for (std::size_t k : {0u, 2u, 4u})
        for (const auto& b : file.frames[k].blocks)
            if (b.type == fmt::zstd_block_type::rle && b.block_size > 0 && !rle) rle = &b;
    struct corruption {
        const char* what;
        std::uint64_t at;
        std::uint64_t offset; // where the error must point
        const char* says;
    };
    std::vector<corruption> cases = {
        {"checksum of a raw/RLE frame", file.frames[0].checksum_offset, file.frames[0].checksum_offset, "checksum mismatch"},
        {"checksum of a compressed frame", file.frames[1].checksum_offset + 3, file.frames[1].checksum_offset, "checksum mismatch"},
        // Its literals section now claims more bytes than the block holds: the walk's words (every
        // host path reads the literals header first, format::check_zstd_frame), where the literals start.
        {"literals of a mixed frame", literals.content_offset() + 1, 0, "compressed block: truncated"},
        {"raw bytes of a mixed frame", mixed.blocks[0].content_offset() + 500, mixed.checksum_offset, "checksum mismatch"},
        {"a literal byte of a compressed frame", file.frames[1].blocks[0].content_offset() + 1000, file.frames[1].checksum_offset,
         "checksum mismatch"},
        {"an RLE byte of a split frame", file.frames[5].blocks[2].content_offset(), file.frames[5].checksum_offset,
         "checksum mismatch"},
        {"checksum of a split frame", file.frames[5].checksum_offset, file.frames[5].checksum_offset, "checksum mismatch"},
    };
    if (rle) cases.push_back({"an RLE byte of a raw/RLE frame", rle->content_offset(), 0, "checksum mismatch"});
    for (auto& c : cases) {
        if (c.offset == 0 && c.at == literals.content_offset() + 1) {
            bytes z = m.zst;
            z[c.at] ^= 0xFF;
            c.offset = literals.content_offset() + fmt::detail::zstd_read_literals_header(z, literals.content_offset(), literals.end_offset()).bytes;
        } else if (c.offset == 0) { // the RLE block's frame
            for (const auto& f : file.frames)
                if (c.at > f.offset && c.at < f.offset + f.size) c.offset = f.checksum_offset;
        }
        BOOST_TEST_CONTEXT(c.what) {
            bytes z = m.zst;
            z[c.at] ^= 0xFF;
            const auto want = format_error_of([&] { vyre::engine::decompress_zstd_host(z); });
            BOOST_TEST_REQUIRE(want.has_value());
            BOOST_TEST(want->offset() == c.offset);
            BOOST_TEST_INFO(want->what());
            BOOST_TEST(std::string(want->what()).find(c.says) != std::string::npos);
            for (const auto route : routes)
                for (bool to_device : {false, true})
                    BOOST_TEST_CONTEXT("route " << route << (to_device ? ", into device memory" : ", into host memory")) {
                        eng::zstd_options o;
                        o.route = route;
                        const auto got = format_error_of([&] {
                            if (to_device) eng::decompress_zstd_to_device(dev.ctx(), z, o);
                            else eng::decompress_zstd(dev.ctx(), z, o);
                        });
                        BOOST_TEST_REQUIRE(got.has_value());
                        BOOST_TEST(got->offset() == c.offset);
                        BOOST_TEST(std::string(got->what()) == std::string(want->what()));
                    }
        }
    }
}

// A frame with no compressed block whose device result is wrong: the host redoes the block and
// still verifies the checksum from the input (the device-target path of frames that never come back).
BOOST_AUTO_TEST_CASE(device_frame_check_redoes_failed_blocks) {
    std::mt19937_64 rng(3);
    bytes content;
    const bytes zst = plain_frame(rng, content, 4, false, true);
    const auto file = fmt::parse_zstd(zst);
    std::vector<vc::block_status> st;
    for (const auto& b : file.frames[0].blocks) st.push_back({ze::none, *b.regenerated_size});
    st[1] = {ze::corrupt_block, 0};
    bytes staging(file.staging_size, canary);
    int waits = 0;
    const auto o = vyre::engine::detail::zstd_check_device_frame(zst, file.frames[0], st, staging,
                                                                 [&](std::size_t) { ++waits; });
    BOOST_TEST(waits == 4);
    BOOST_TEST(o.size == content.size());
    BOOST_TEST(o.stats.redone_blocks == 1u);
    BOOST_TEST(o.stats.cpu_blocks == 1u);
    const auto& b1 = file.frames[0].blocks[1];
    BOOST_TEST(std::equal(staging.begin() + b1.output_offset, staging.begin() + b1.output_offset + *b1.regenerated_size,
                          content.begin() + b1.output_offset));
    bytes bad = zst;
    bad[bad.size() - 2] ^= 1;
    BOOST_CHECK_THROW(vyre::engine::detail::zstd_check_device_frame(bad, fmt::parse_zstd(bad).frames[0], st, staging,
                                                                    [](std::size_t) {}),
                      vyre::format_error);
}

// Which frames bound for device memory are split: large RLE blocks after few runs of compressed
// blocks, in a frame whose slots are final.
BOOST_AUTO_TEST_CASE(split_pays_for_large_rle_blocks_only) {
    std::mt19937_64 rng(5);
    const auto frame_of = [&](const std::vector<int>& kinds, bool declare) { // 0 raw, 1 RLE 128 KiB, 2 literals
        bytes body, c;
        for (std::size_t i = 0; i < kinds.size(); ++i) {
            const bool last = i + 1 == kinds.size();
            if (kinds[i] == 2) {
                literal_block(body, c, random_bytes(rng, 100), last);
            } else if (kinds[i] == 1) {
                block_header(body, 1, last, kib128);
                body.push_back(7);
                c.insert(c.end(), kib128, 7);
            } else {
                const bytes raw = random_bytes(rng, kib128);
                block_header(body, 0, last, kib128);
                body.insert(body.end(), raw.begin(), raw.end());
                c.insert(c.end(), raw.begin(), raw.end());
            }
        }
        bytes z = frame_header({declare ? 3u : 0u, false, 0x58, false, c.size()});
        z.insert(z.end(), body.begin(), body.end());
        return fmt::parse_zstd(z).frames.at(0);
    };
    using eng::detail::zstd_split_pays;
    BOOST_TEST(zstd_split_pays(frame_of({2, 1, 1, 0, 1}, true)));      // one run, 3 x 128 KiB of RLE
    BOOST_TEST(!zstd_split_pays(frame_of({2, 1, 0, 0, 0}, true)));     // 128 KiB of RLE: under the saving
    BOOST_TEST(!zstd_split_pays(frame_of({2, 0, 0, 0, 2}, true)));     // raw blocks save nothing
    BOOST_TEST(!zstd_split_pays(frame_of({2, 1, 1, 1, 1}, false)));    // slots not final: no declared size
    // Two compressed blocks: their sizes, and so the slots after the first, are known only once decoded.
    BOOST_TEST(!zstd_split_pays(frame_of({2, 1, 1, 1, 1, 1, 2}, true)));
    BOOST_TEST(!zstd_split_pays(frame_of({1, 1, 1, 0}, true)));        // no compressed block: a device frame
}

// A split frame on the host: the prefix up to the last compressed block is decoded into host
// staging, the raw/RLE blocks after it are only hashed from the input (their slots stay untouched)
// unless the device got one wrong, which is then made on the host and counted as redone.
BOOST_AUTO_TEST_CASE(split_frame_decodes_its_prefix_only) {
    std::mt19937_64 rng(9);
    bytes body, c;
    const bytes raw0 = random_bytes(rng, 50);
    block_header(body, 0, false, 50);
    body.insert(body.end(), raw0.begin(), raw0.end());
    c.insert(c.end(), raw0.begin(), raw0.end());
    literal_block(body, c, random_bytes(rng, 100));
    block_header(body, 1, false, 5000);
    body.push_back(3);
    c.insert(c.end(), 5000, 3);
    const bytes raw = random_bytes(rng, 300);
    block_header(body, 0, true, 300);
    body.insert(body.end(), raw.begin(), raw.end());
    c.insert(c.end(), raw.begin(), raw.end());
    bytes z = frame_header({3u, false, 0x58, true, c.size()});
    z.insert(z.end(), body.begin(), body.end());
    put_le(z, static_cast<std::uint32_t>(XXH64(c.data(), c.size(), 0)), 4);
    const auto file = fmt::parse_zstd(z);
    const auto& f = file.frames.at(0);
    BOOST_TEST_REQUIRE(f.exact_layout);
    const std::vector<vc::block_status> st = {
        {ze::none, 50}, {ze::unsupported_compressed_block, 0}, {ze::none, 5000}, {ze::corrupt_block, 0}};
    bytes staging(file.staging_size, canary);
    const auto dctx = vyre::engine::detail::zstd_make_frame_dctx();
    std::vector<std::size_t> waited;
    const auto o = eng::detail::zstd_decode_split_frame(dctx.get(), z, f, st, staging, [&](std::size_t i) { waited.push_back(i); });
    BOOST_TEST((waited == std::vector<std::size_t>{0, 2, 3})); // the raw/RLE blocks only
    BOOST_TEST(o.size == c.size());
    BOOST_TEST(o.stats.device_blocks == 2u);
    BOOST_TEST(o.stats.device_bytes == 5050u);
    BOOST_TEST(o.stats.cpu_blocks == 2u);
    BOOST_TEST(o.stats.cpu_bytes == 400u);
    BOOST_TEST(o.stats.redone_blocks == 1u);
    BOOST_TEST(std::equal(c.begin(), c.begin() + 150, staging.begin())); // the prefix
    const auto& rle = f.blocks[2];
    BOOST_TEST(std::count(staging.begin() + rle.output_offset, staging.begin() + rle.output_offset + 5000, canary) == 5000);
    const auto& last = f.blocks[3];
    BOOST_TEST(std::equal(raw.begin(), raw.end(), staging.begin() + last.output_offset)); // redone
    // The checksum covers the bytes never written on the host.
    bytes bad = z;
    bad[rle.content_offset()] ^= 1;
    try {
        eng::detail::zstd_decode_split_frame(dctx.get(), bad, fmt::parse_zstd(bad).frames.at(0), st, staging, [](std::size_t) {});
        BOOST_ERROR("a changed RLE byte was not caught");
    } catch (const vyre::format_error& e) {
        BOOST_TEST(e.offset() == f.checksum_offset);
    }
    // A compressed block that counts its zero sequences in two bytes (valid; libzstd 1.5.4 refuses
    // it as it is) is decoded rewritten here too, and a block breaking a rule libzstd 1.5.4 does
    // not keep (bytes after a count of zero sequences) is refused in the walk's words.
    for (const bool extraneous : {false, true}) {
        BOOST_TEST_CONTEXT("bytes after the count: " << extraneous) {
            bytes body2, c2;
            const bytes text = {'z', 'e', 'r', 'o', ' ', 's', 'e', 'q', 'u', 'e', 'n', 'c', 'e'};
            block_header(body2, 2, false, extraneous ? 17 : 16);
            body2.push_back(13 << 3); // raw literals, 13 bytes
            body2.insert(body2.end(), text.begin(), text.end());
            body2.push_back(0x80);
            body2.push_back(0x00);
            if (extraneous) body2.push_back(0x00);
            c2.insert(c2.end(), text.begin(), text.end());
            block_header(body2, 1, true, 5000);
            body2.push_back(7);
            c2.insert(c2.end(), 5000, 7);
            bytes z2 = frame_header({3u, false, 0x58, true, c2.size()});
            z2.insert(z2.end(), body2.begin(), body2.end());
            put_le(z2, static_cast<std::uint32_t>(XXH64(c2.data(), c2.size(), 0)), 4);
            const auto file2 = fmt::parse_zstd(z2);
            const std::vector<vc::block_status> st2 = {{ze::unsupported_compressed_block, 0}, {ze::none, 5000}};
            bytes staging2(file2.staging_size, canary);
            const auto run = [&] {
                return eng::detail::zstd_decode_split_frame(dctx.get(), z2, file2.frames.at(0), st2, staging2, [](std::size_t) {});
            };
            if (!extraneous) {
                const auto o2 = run();
                BOOST_TEST(o2.size == c2.size());
                BOOST_TEST(std::equal(text.begin(), text.end(), staging2.begin()));
            } else {
                try {
                    run();
                    BOOST_ERROR("bytes after a count of zero sequences were accepted");
                } catch (const vyre::format_error& e) {
                    BOOST_TEST(std::string(e.what()).find("no sequences, yet 1 bytes follow") != std::string::npos, e.what());
                }
            }
        }
    }
}

// ---- mutations through the pipeline ----------------------------------------------------------------

VYRE_DEVICE_TEST(pipeline_survives_mutations) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::vector<bytes> bases;
    std::mt19937_64 rng(seed ^ 0x6d7574ULL);
    {
        bytes c;
        bases.push_back(plain_frame(rng, c, 3, true, true));
        c.clear();
        bases.push_back(plain_frame(rng, c, 2, false, true));
        // Split into device memory by the automatic route: a small compressed block, large RLE blocks.
        bytes body;
        c.clear();
        literal_block(body, c, random_bytes(rng, 40));
        for (int k = 0; k < 3; ++k) {
            block_header(body, 1, false, kib128);
            body.push_back(static_cast<std::uint8_t>(9 * k));
            c.insert(c.end(), kib128, static_cast<std::uint8_t>(9 * k));
        }
        const bytes raw = random_bytes(rng, 200);
        block_header(body, 0, true, 200);
        body.insert(body.end(), raw.begin(), raw.end());
        c.insert(c.end(), raw.begin(), raw.end());
        bytes split = frame_header({3u, false, 0x58, true, c.size()});
        split.insert(split.end(), body.begin(), body.end());
        put_le(split, static_cast<std::uint32_t>(XXH64(c.data(), c.size(), 0)), 4);
        BOOST_TEST_REQUIRE(eng::detail::zstd_split_pays(fmt::parse_zstd(split).frames.at(0)));
        bases.push_back(std::move(split));
    }
    if (have_tool("zstd")) {
        vyre::test::temp_dir dir("vyre_zstd_gpu_", false);
        const bytes corpus = make_corpus(24000, seed);
        write_file(dir.path / "m", corpus);
        bases.push_back(run_tool("zstd", "-3", dir.path / "m", dir.path / "m1.zst"));
        bases.push_back(run_tool("zstd", "-19 --no-check --no-content-size", dir.path / "m", dir.path / "m2.zst"));
    } else {
        BOOST_TEST_MESSAGE("the zstd command line tool is absent: mutating hand-built frames only (CI installs it)");
    }
    constexpr std::size_t limit = 8u << 20;
    eng::zstd_options options;
    options.max_output_bytes = limit;
    options.batch_input_bytes = 20000;
    fmt::zstd_parse_options parse;
    parse.max_output_size = limit;
    std::size_t accepted = 0, rejected = 0, lenient = 0;
    for (int i = 0; i < 240; ++i) {
        bytes z = bases[i % bases.size()];
        const unsigned kind = rng() % 4;
        if (kind == 0) {
            z.resize(rng() % z.size());
        } else if (kind == 1) {
            for (unsigned k = 0, n = 1 + rng() % 3; k < n; ++k) z[rng() % z.size()] ^= std::uint8_t(1u << (rng() % 8));
        } else if (kind == 2) {
            z[rng() % std::min<std::size_t>(z.size(), 24)] = static_cast<std::uint8_t>(rng());
        } else {
            z[rng() % z.size()] = static_cast<std::uint8_t>(rng());
        }
        BOOST_TEST_CONTEXT("seed " << seed << ", mutation " << i << " (kind " << kind << ")") {
            // The CPU pipeline (the same parser and host pass, the oracle for every block) decides.
            std::optional<bytes> want;
            std::optional<std::uint64_t> want_at;
            std::string why;
            try {
                want = vyre::engine::decompress_zstd_host(z, parse).output;
            } catch (const vyre::format_error& e) {
                want_at = e.offset();
                why = e.what();
            } catch (const vyre::error&) {
            }
            const bool to_device = (i / 3) % 2 == 0;
            options.route = routes[i % 3];
            std::optional<bytes> got;
            std::optional<std::uint64_t> got_at;
            try {
                if (to_device) {
                    const auto d = eng::decompress_zstd_to_device(dev.ctx(), z, options);
                    got.emplace(d.output_bytes);
                    rt::read(dev.ctx(), d.output, got->data(), got->size());
                } else {
                    got = eng::decompress_zstd(dev.ctx(), z, options).bytes;
                }
            } catch (const vyre::format_error& e) {
                BOOST_TEST(!std::string(e.what()).empty());
                got_at = e.offset();
            } catch (const vyre::resource_error& e) {
                BOOST_TEST(!std::string(e.what()).empty());
            }
            BOOST_TEST_CONTEXT("route " << options.route << (to_device ? ", into device memory" : ", into host memory")) {
                if (got && !want) {
                    // Allowed only where RFC 8878 is stricter than libzstd 1.5's frame API, which
                    // decodes host frames: a compressed block regenerating more than the block maximum.
                    ++lenient;
                    BOOST_TEST_INFO("the block path refuses: " << why);
                    BOOST_TEST((options.route != eng::zstd_route::hybrid && why.find("block maximum") != std::string::npos));
                } else {
                    BOOST_TEST(got.has_value() == want.has_value());
                    BOOST_TEST((got_at == want_at)); // the same error names the same offset in every route
                }
            }
            if (got && want) BOOST_TEST((*got == *want));
            if (got) {
                const auto lib = libzstd_decompress(z, limit);
                BOOST_TEST((lib && *lib == *got));
            }
            (got ? accepted : rejected)++;
        }
    }
    BOOST_TEST_MESSAGE("mutations through the pipeline: " << accepted << " decoded, " << rejected << " rejected (" << lenient
                                                          << " decoded by libzstd's frame API past the block maximum)");
    BOOST_TEST(accepted > 0u);
    BOOST_TEST(rejected > 0u);
}

VYRE_TEST_MAIN
