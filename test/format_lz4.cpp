// Host side of compression.lz4: the reference block decoder (hand-built blocks, parity with liblz4,
// mutations), block batching, and the LZ4 frame parser on frames from liblz4 and the lz4 tool.
#include "harness.hpp"
#include "lz4_blocks.hpp"
#include "test_data.hpp"

#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/compression/batch.hpp>
#include <vyre/compression/lz4.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/reference/lz4.hpp>

#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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
#include <vector>

#include <unistd.h>

namespace vyre::compression {
std::ostream& operator<<(std::ostream& os, const block_status& s) {
    return os << "{" << lz4_error_name(s.code) << ", " << s.output_size << "}";
}
} // namespace vyre::compression
namespace vyre::format {
std::ostream& operator<<(std::ostream& os, lz4_frame_kind k) { return os << lz4_frame_kind_name(k); }
} // namespace vyre::format

namespace {

namespace lz = vyre::compression::lz4_error;
namespace fmt = vyre::format;
namespace ref = vyre::reference;
using bytes = std::vector<std::uint8_t>;

using vyre::test::concat;
using vyre::test::liblz4_decode;
using vyre::test::lz4_compress_block;
using vyre::test::lz4_tool;
using vyre::test::put_length_tail;
using vyre::test::put_sequence;
using vyre::test::random_bytes;
using vyre::test::read_file;
using vyre::test::repetitive_bytes;
using vyre::test::system_corpus;
using vyre::test::text_bytes;
using vyre::test::to_bytes;
using vyre::test::write_file;

void put_le32(bytes& b, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// Decodes into a region framed by guard bytes; everything not written must keep the fill value.
struct guarded_result {
    vyre::compression::block_status status{};
    bytes output;             // the first status.output_size bytes of the region
    bool guards_intact = true; // bytes before and after the region
    bool tail_untouched = true; // region bytes at and after status.output_size
};

constexpr std::size_t guard = 64;
constexpr std::uint8_t fill = 0xA5;

guarded_result guarded_decode(const bytes& block, std::size_t capacity, std::uint32_t flags = 0) {
    const bytes in(block); // exact-size heap copy: a sanitizer sees any read past it
    bytes region(capacity + 2 * guard, fill);
    guarded_result r;
    r.status = ref::lz4_decode_block(in, std::span(region).subspan(guard, capacity), flags);
    const auto is_fill = [](std::uint8_t v) { return v == fill; };
    r.guards_intact = std::all_of(region.begin(), region.begin() + guard, is_fill) &&
                      std::all_of(region.end() - guard, region.end(), is_fill);
    const std::size_t produced = std::min<std::size_t>(r.status.output_size, capacity);
    r.tail_untouched = std::all_of(region.begin() + guard + produced, region.end() - guard, is_fill);
    r.output.assign(region.begin() + guard, region.begin() + guard + produced);
    return r;
}

void check_decodes_to(const bytes& block, const bytes& expected, std::size_t capacity) {
    const auto r = guarded_decode(block, capacity);
    BOOST_TEST(r.status == (vyre::compression::block_status{lz::none, static_cast<std::uint32_t>(expected.size())}));
    BOOST_TEST(r.output == expected, boost::test_tools::per_element());
    BOOST_TEST(r.guards_intact);
    BOOST_TEST(r.tail_untouched);
    const auto m = ref::lz4_measure_block(block, static_cast<std::uint32_t>(capacity));
    BOOST_TEST(m.status == r.status);
}

void check_fails(const bytes& block, std::size_t capacity, vyre::compression::block_status expected) {
    const auto r = guarded_decode(block, capacity);
    BOOST_TEST(r.status == expected);
    BOOST_TEST(r.guards_intact);
    BOOST_TEST(r.tail_untouched);
    BOOST_TEST(ref::lz4_measure_block(block, static_cast<std::uint32_t>(capacity)).status == expected);
}

} // namespace

// ---- the permanent layouts --------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(block_layouts_are_permanent) {
    BOOST_TEST(sizeof(vyre::compression::block_descriptor) == 20u);
    BOOST_TEST(offsetof(vyre::compression::block_descriptor, input_offset) == 0u);
    BOOST_TEST(offsetof(vyre::compression::block_descriptor, input_size) == 4u);
    BOOST_TEST(offsetof(vyre::compression::block_descriptor, output_offset) == 8u);
    BOOST_TEST(offsetof(vyre::compression::block_descriptor, output_size) == 12u);
    BOOST_TEST(offsetof(vyre::compression::block_descriptor, flags) == 16u);
    BOOST_TEST(sizeof(vyre::compression::block_status) == 8u);
    BOOST_TEST(offsetof(vyre::compression::block_status, output_size) == 4u);
    BOOST_TEST(vyre::compression::block_flag_uncompressed == 1u);
    const std::map<std::uint32_t, std::string> lz4_names = {{0, "none"},           {1, "corrupt_token"},
                                                            {2, "offset_oob"},     {3, "output_overflow"},
                                                            {4, "literal_overflow"}, {5, "match_overflow"}};
    for (const auto& [code, name] : lz4_names) BOOST_TEST(vyre::compression::lz4_error_name(code) == name);
    BOOST_TEST(std::string(vyre::compression::lz4_error_name(6)) == "unknown_lz4_error");
    const std::map<std::uint32_t, std::string> zstd_names = {{0, "none"},
                                                             {1, "corrupt_block"},
                                                             {2, "output_overflow"},
                                                             {3, "rle_payload_missing"},
                                                             {4, "unsupported_compressed_block"}};
    for (const auto& [code, name] : zstd_names) BOOST_TEST(vyre::compression::zstd_error_name(code) == name);
    BOOST_TEST(std::string(vyre::compression::zstd_error_name(5)) == "unknown_zstd_error");
    BOOST_TEST(vyre::compression::zstd_error::unsupported_compressed_block == 4u);
}

// ---- the reference decoder on hand-built blocks -------------------------------------------------

BOOST_AUTO_TEST_CASE(reference_empty_and_literal_blocks) {
    check_decodes_to({}, {}, 0);
    check_decodes_to({}, {}, 16);
    check_decodes_to({0x00}, {}, 0); // what LZ4_compress_default makes of empty input
    check_decodes_to({0x50, 'h', 'e', 'l', 'l', 'o'}, to_bytes("hello"), 5);
    check_decodes_to({0x50, 'h', 'e', 'l', 'l', 'o'}, to_bytes("hello"), 9); // short output is not an error
    // The match nibble of the last sequence is ignored: the input ends after its literals.
    check_decodes_to({0x3F, 'a', 'b', 'c'}, to_bytes("abc"), 3);
}

BOOST_AUTO_TEST_CASE(reference_matches) {
    bytes block;
    put_sequence(block, to_bytes("abcd"), 4, 4); // non-overlapping: copies "abcd"
    put_sequence(block, to_bytes("xyz"));
    BOOST_TEST(block == (bytes{0x40, 'a', 'b', 'c', 'd', 4, 0, 0x30, 'x', 'y', 'z'}), boost::test_tools::per_element());
    check_decodes_to(block, to_bytes("abcdabcdxyz"), 11);

    block.clear(); // overlap, offset 1: a run of one byte
    put_sequence(block, to_bytes("a"), 1, 10);
    check_decodes_to(block, bytes(11, 'a'), 11);

    block.clear(); // overlap, offset 2 < length 7: the pair repeats
    put_sequence(block, to_bytes("ab"), 2, 7);
    put_sequence(block, to_bytes("!"));
    check_decodes_to(block, to_bytes("ababababa!"), 10);

    block.clear(); // a match reaching the very first byte (offset == bytes written)
    put_sequence(block, to_bytes("0123456789"), 10, 5);
    check_decodes_to(block, to_bytes("012345678901234"), 15);

    block.clear(); // the block may end right after a match (the seed loop accepts it)
    put_sequence(block, to_bytes("xy"), 2, 6);
    check_decodes_to(block, to_bytes("xyxyxyxy"), 8);
}

BOOST_AUTO_TEST_CASE(reference_long_lengths) {
    for (std::uint32_t n : {15u, 16u, 269u, 270u, 271u, 15u + 255u * 4u + 10u, 15u + 255u * 9u}) {
        BOOST_TEST_CONTEXT("literal length " << n) {
            bytes literals(n);
            for (std::uint32_t i = 0; i < n; ++i) literals[i] = static_cast<std::uint8_t>(i % 251);
            bytes block;
            put_sequence(block, literals);
            check_decodes_to(block, literals, n);
        }
    }
    // 15 + 255*4 + 10: token nibble 15, then 255 x4, then 10.
    bytes block{0xF0, 255, 255, 255, 255, 10};
    const bytes literals(1045, 'L');
    block.insert(block.end(), literals.begin(), literals.end());
    check_decodes_to(block, literals, 1045);

    for (std::uint32_t m : {18u, 19u, 20u, 273u, 274u, 19u + 255u * 3u + 7u, 19u + 255u * 40u}) {
        BOOST_TEST_CONTEXT("match length " << m) {
            bytes block2;
            put_sequence(block2, to_bytes("a"), 1, m);
            put_sequence(block2, to_bytes("b"));
            bytes expected(1 + m, 'a');
            expected.push_back('b');
            check_decodes_to(block2, expected, expected.size());
        }
    }
    // 19 + 255*3 + 7 = 791 spelled out: token 0x1F, 'a', offset 1, then 255 x3, 7.
    check_decodes_to({0x1F, 'a', 1, 0, 255, 255, 255, 7, 0x10, 'b'}, concat({bytes(792, 'a'), to_bytes("b")}), 793);
}

BOOST_AUTO_TEST_CASE(reference_error_codes) {
    // corrupt_token: input ends inside a literal extension chain, before a match offset, inside
    // the offset, inside a match extension chain.
    check_fails({0xF0}, 64, {lz::corrupt_token, 0});
    check_fails({0xF0, 255, 255}, 64, {lz::corrupt_token, 0});
    check_fails({0x40, 'a', 'b', 'c', 'd', 4}, 64, {lz::corrupt_token, 4});
    check_fails({0x4F, 'a', 'b', 'c', 'd', 4, 0}, 64, {lz::corrupt_token, 4});
    check_fails({0x4F, 'a', 'b', 'c', 'd', 4, 0, 255}, 64, {lz::corrupt_token, 4});
    // offset_oob: offset 0; offset one past the bytes written; a match before any output.
    check_fails({0x40, 'a', 'b', 'c', 'd', 0, 0, 0x10, 'z'}, 64, {lz::offset_oob, 4});
    check_fails({0x40, 'a', 'b', 'c', 'd', 5, 0, 0x10, 'z'}, 64, {lz::offset_oob, 4});
    check_fails({0x00, 1, 0, 0x10, 'z'}, 64, {lz::offset_oob, 0});
    check_fails({0x40, 'a', 'b', 'c', 'd', 0xFF, 0xFF}, 64, {lz::offset_oob, 4});
    // output_overflow: literals longer than the output region (nothing of them written).
    check_fails({0x50, 'h', 'e', 'l', 'l', 'o'}, 4, {lz::output_overflow, 0});
    check_fails({0x20, 'a', 'b', 1, 0, 0x30, 'x', 'y', 'z'}, 8, {lz::output_overflow, 6});
    // literal_overflow: literals run past the end of the input (a truncated block).
    check_fails({0x50, 'h', 'e', 'l'}, 64, {lz::literal_overflow, 0});
    check_fails({0x20, 'a', 'b', 1, 0, 0x30, 'x'}, 64, {lz::literal_overflow, 6});
    check_fails({0xF0, 200}, 1000, {lz::literal_overflow, 0});
    // match_overflow: a match longer than the output left.
    check_fails({0x40, 'a', 'b', 'c', 'd', 4, 0}, 6, {lz::match_overflow, 4});
    check_fails({0x1F, 'a', 1, 0, 255, 0, 0x10, 'b'}, 100, {lz::match_overflow, 1});

    // Partial output before the failure is kept and reported.
    const auto r = guarded_decode({0x20, 'a', 'b', 1, 0, 0x30, 'x'}, 64);
    BOOST_TEST(r.output == to_bytes("abbbbb"), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(reference_lengths_saturate_instead_of_wrapping) {
    // 15 + 255*16843009 wraps a 32-bit length to 14 exactly; a wrapping decoder would then accept
    // the 14 literals that follow. Saturation makes it literal_overflow.
    bytes block(1 + 16843009, 255);
    block[0] = 0xF0;
    block.push_back(0);
    block.insert(block.end(), 14, 'x');
    check_fails(block, 64, {lz::literal_overflow, 0});
}

BOOST_AUTO_TEST_CASE(reference_stored_blocks) {
    const bytes data = to_bytes("stored verbatim, flag bit 0");
    const auto exact = guarded_decode(data, data.size(), vyre::compression::block_flag_uncompressed);
    BOOST_TEST(exact.status == (vyre::compression::block_status{lz::none, static_cast<std::uint32_t>(data.size())}));
    BOOST_TEST(exact.output == data, boost::test_tools::per_element());
    BOOST_TEST(exact.guards_intact);

    const auto roomy = guarded_decode(data, data.size() + 10, vyre::compression::block_flag_uncompressed);
    BOOST_TEST(roomy.status == (vyre::compression::block_status{lz::none, static_cast<std::uint32_t>(data.size())}));
    BOOST_TEST(roomy.tail_untouched);

    const auto small = guarded_decode(data, data.size() - 1, vyre::compression::block_flag_uncompressed);
    BOOST_TEST(small.status == (vyre::compression::block_status{lz::output_overflow, 0}));
    BOOST_TEST(small.tail_untouched);
    BOOST_TEST(small.guards_intact);

    // The same bytes as a compressed block would be read as tokens: the flag decides.
    const auto empty = guarded_decode({}, 0, vyre::compression::block_flag_uncompressed);
    BOOST_TEST(empty.status == (vyre::compression::block_status{lz::none, 0}));
}

BOOST_AUTO_TEST_CASE(reference_batch_of_descriptors) {
    bytes b1;
    put_sequence(b1, to_bytes("abc"), 3, 9);
    put_sequence(b1, to_bytes("!"));
    const bytes b2 = to_bytes("plain");
    const bytes b3 = {0x40, 'a', 'b', 'c', 'd', 0, 0}; // offset 0
    const bytes input = concat({b1, b2, b3});
    const auto u = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
    const std::vector<vyre::compression::block_descriptor> blocks = {
        {0, u(b1.size()), 0, 13, 0},
        {u(b1.size()), u(b2.size()), 13, 5, vyre::compression::block_flag_uncompressed},
        {u(b1.size() + b2.size()), u(b3.size()), 18, 8, 0},
        {u(input.size() - 2), 3, 26, 4, 0},        // input range past the input buffer
        {0, u(b1.size()), 30, 13, 0},              // output range past the output buffer
        {0xFFFFFFF0u, 0x20, 0, 1, 0},              // offsets that would wrap in 32 bits
        {0, u(b1.size()), 0xFFFFFFF0u, 0x20, 0}};
    bytes output(32, fill);
    const auto statuses = ref::lz4_decompress(input, blocks, output);
    const std::vector<vyre::compression::block_status> expected = {{lz::none, 13},
                                                    {lz::none, 5},
                                                    {lz::offset_oob, 4},
                                                    {lz::literal_overflow, 0},
                                                    {lz::output_overflow, 0},
                                                    {lz::literal_overflow, 0},
                                                    {lz::output_overflow, 0}};
    BOOST_TEST(statuses == expected, boost::test_tools::per_element());
    BOOST_TEST(std::string(output.begin(), output.begin() + 22) == "abcabcabcabc!plainabcd");
    BOOST_TEST(std::all_of(output.begin() + 22, output.end(), [](std::uint8_t v) { return v == fill; }));
}

// ---- parity with liblz4 and mutations ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(reference_matches_liblz4) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed);
    const std::function<bytes(std::mt19937_64&, std::size_t)> generators[] = {random_bytes, text_bytes, repetitive_bytes};
    const int levels[] = {0, -8, 1, 4, 9, 12};
    int cases = 0;
    for (int round = 0; round < 12; ++round) {
        for (std::size_t g = 0; g < std::size(generators); ++g) {
            for (int level : levels) {
                const std::size_t n = round == 0 ? g : (rng() % 2 ? rng() % 300 : rng() % 70000);
                BOOST_TEST_CONTEXT("seed " << seed << ", round " << round << ", data set " << g << ", level " << level
                                           << ", size " << n) {
                    const bytes original = generators[g](rng, n);
                    const bytes block = lz4_compress_block(original, level);
                    check_decodes_to(block, original, original.size());
                    const auto lib = liblz4_decode(block, original.size());
                    BOOST_TEST(lib.has_value());
                    if (lib) BOOST_TEST(*lib == original);
                    ++cases;
                }
            }
        }
    }
    // Long matches and literal runs: 1 MiB of one byte, and of incompressible bytes.
    for (const bytes& big : {bytes(1 << 20, 'z'), random_bytes(rng, 1 << 20)}) {
        const bytes block = lz4_compress_block(big, 9);
        const auto r = guarded_decode(block, big.size());
        BOOST_TEST(r.status == (vyre::compression::block_status{lz::none, static_cast<std::uint32_t>(big.size())}));
        BOOST_TEST((r.output == big));
    }
    BOOST_TEST(cases == 12 * 3 * 6);
}

BOOST_AUTO_TEST_CASE(reference_survives_mutations) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed ^ 0x6d75746174696f6eULL);
    struct source {
        bytes original, block;
    };
    std::vector<source> sources;
    for (std::size_t n : {0u, 1u, 40u, 300u, 2000u, 5000u}) {
        sources.push_back({text_bytes(rng, n), {}});
        sources.push_back({repetitive_bytes(rng, n), {}});
        sources.push_back({random_bytes(rng, n / 4), {}});
    }
    for (auto& s : sources) s.block = lz4_compress_block(s.original, rng() % 2 ? 0 : 9);

    std::map<std::uint32_t, int> codes;
    int stricter_than_liblz4 = 0, liblz4_zero_offsets = 0;
    constexpr int iterations = 12000;
    for (int it = 0; it < iterations; ++it) {
        const source& s = sources[rng() % sources.size()];
        bytes m = s.block;
        const int kind = static_cast<int>(rng() % 6);
        if (m.empty()) m.push_back(0);
        const std::size_t at = rng() % m.size();
        switch (kind) {
        case 0: // one to three bit flips
            for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) m[rng() % m.size()] ^= std::uint8_t(1u << (rng() % 8));
            break;
        case 1: m.resize(rng() % m.size()); break; // truncation
        case 2: m[at] = rng() % 3 == 0 ? 0x00 : rng() % 2 ? 0xFF : static_cast<std::uint8_t>(rng()); break;
        case 3: m.erase(m.begin() + static_cast<std::ptrdiff_t>(at)); break;
        case 4: m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng())); break;
        default: m[at] = static_cast<std::uint8_t>((rng() % 16) << 4 | (rng() % 16)); break; // a new token
        }
        const std::size_t capacity = rng() % 4 == 0 ? rng() % (s.original.size() + 64) : s.original.size();
        BOOST_TEST_CONTEXT("seed " << seed << ", iteration " << it << ", mutation " << kind << ", capacity " << capacity) {
            const auto r = guarded_decode(m, capacity);
            ++codes[r.status.code];
            BOOST_TEST(r.status.code <= 5u);
            BOOST_TEST(r.status.output_size <= capacity);
            BOOST_TEST(r.guards_intact);
            BOOST_TEST(r.tail_untouched);
            BOOST_TEST(ref::lz4_measure_block(m, static_cast<std::uint32_t>(capacity)).status == r.status);
            // Any block liblz4 accepts decodes here to the same bytes, except a match at offset 0:
            // liblz4 writes zeros for it, this decoder stops there with offset_oob.
            const auto lib = liblz4_decode(m, capacity);
            if (lib && r.status.code == lz::offset_oob) {
                ++liblz4_zero_offsets;
                const std::size_t at = r.status.output_size;
                BOOST_TEST_REQUIRE(lib->size() >= at + 4);
                BOOST_TEST(std::equal(r.output.begin(), r.output.end(), lib->begin()));
                BOOST_TEST(std::all_of(lib->begin() + at, lib->begin() + at + 4, [](std::uint8_t v) { return v == 0; }));
            } else if (lib) {
                BOOST_TEST(r.status.code == lz::none);
                BOOST_TEST(r.output == *lib);
            } else if (r.status.code == lz::none) {
                ++stricter_than_liblz4;
            }
        }
    }
    BOOST_TEST_MESSAGE("mutations: " << iterations << ", accepted here but rejected by liblz4 (end-of-block rules): "
                                     << stricter_than_liblz4 << ", offset 0 accepted by liblz4: " << liblz4_zero_offsets);
    for (std::uint32_t code = 0; code <= 5; ++code) BOOST_TEST_CONTEXT("code " << code) { BOOST_TEST(codes[code] > 0); }
}

BOOST_AUTO_TEST_CASE(measure_with_history_reaches_earlier_output) {
    const bytes block = {0x00, 3, 0, 0x10, 'z'}; // a 4-byte match 3 bytes back, then 'z'
    BOOST_TEST(ref::lz4_measure_block(block, 64, 0).status == (vyre::compression::block_status{lz::offset_oob, 0}));
    BOOST_TEST(ref::lz4_measure_block(block, 64, 2).status == (vyre::compression::block_status{lz::offset_oob, 0}));
    BOOST_TEST(ref::lz4_measure_block(block, 64, 3).status == (vyre::compression::block_status{lz::none, 5}));
    BOOST_TEST(ref::lz4_measure_block(block, 64, 3).input_position == 5u);
    BOOST_TEST(ref::lz4_measure_block(block, 3, 3).status == (vyre::compression::block_status{lz::match_overflow, 0}));
}

// ---- batching ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(batches_respect_limits) {
    std::vector<vyre::compression::block_extent> extents;
    std::uint64_t in = 5'000'000'000ULL, out = 9'000'000'000ULL; // beyond 32 bits on purpose
    for (std::uint32_t i = 0; i < 40; ++i) {
        const std::uint32_t isz = 1000 + i * 37, osz = 4000 + i * 101;
        extents.push_back({in, out, isz, osz, i % 3 == 0 ? vyre::compression::block_flag_uncompressed : 0});
        in += isz + 8; // headers between blocks
        out += osz;
    }
    vyre::compression::batch_limits limits;
    limits.max_input_bytes = 10'000;
    limits.max_output_bytes = 50'000;
    limits.max_blocks = 7;
    const auto batches = vyre::compression::make_block_batches(extents, limits);
    BOOST_TEST(batches.size() > 5u);
    std::size_t next = 0;
    for (const auto& b : batches) {
        BOOST_TEST(b.first_extent == next);
        BOOST_TEST(b.input_bytes <= limits.max_input_bytes);
        BOOST_TEST(b.output_bytes <= limits.max_output_bytes);
        BOOST_TEST(b.blocks.size() <= limits.max_blocks);
        BOOST_TEST(!b.blocks.empty());
        BOOST_CHECK_NO_THROW(vyre::compression::check_descriptors(b.blocks, b.input_bytes, b.output_bytes));
        for (std::size_t k = 0; k < b.blocks.size(); ++k) {
            const auto& e = extents[next + k];
            const auto& d = b.blocks[k];
            BOOST_TEST(b.input_base + d.input_offset == e.input_offset);
            BOOST_TEST(b.output_base + d.output_offset == e.output_offset);
            BOOST_TEST(d.input_size == e.input_size);
            BOOST_TEST(d.output_size == e.output_size);
            BOOST_TEST(d.flags == e.flags);
        }
        next += b.blocks.size();
    }
    BOOST_TEST(next == extents.size());
    // Default limits: everything fits one batch.
    BOOST_TEST(vyre::compression::make_block_batches(extents).size() == 1u);
    BOOST_TEST(vyre::compression::make_block_batches({}).empty());

    // An extent larger than a limit cannot be split.
    limits.max_output_bytes = 3000;
    BOOST_CHECK_THROW(vyre::compression::make_block_batches(extents, limits), vyre::resource_error);
    // A range that wraps 64 bits is malformed.
    const std::vector<vyre::compression::block_extent> wrapping = {{~0ULL - 3, 0, 10, 10, 0}};
    BOOST_CHECK_THROW(vyre::compression::make_block_batches(wrapping), vyre::format_error);
}

BOOST_AUTO_TEST_CASE(descriptor_checks) {
    const std::vector<vyre::compression::block_descriptor> good = {{0, 10, 0, 100, 0}, {10, 5, 100, 50, 1}, {15, 0, 150, 0, 0}};
    BOOST_CHECK_NO_THROW(vyre::compression::check_descriptors(good, 15, 150));
    BOOST_CHECK_THROW(vyre::compression::check_descriptors(good, 14, 150), vyre::format_error);
    BOOST_CHECK_THROW(vyre::compression::check_descriptors(good, 15, 149), vyre::format_error);
    auto bad = good;
    bad[1].flags = 2;
    BOOST_CHECK_THROW(vyre::compression::check_descriptors(bad, 15, 150), vyre::format_error);
    bad = good;
    bad[1].output_offset = 99; // overlaps block 0
    BOOST_CHECK_THROW(vyre::compression::check_descriptors(bad, 15, 150), vyre::format_error);
    bad = good;
    bad[0].input_offset = 0xFFFFFFFFu; // must not wrap in 32 bits
    BOOST_CHECK_THROW(vyre::compression::check_descriptors(bad, 15, 150), vyre::format_error);
}

// ---- frames ------------------------------------------------------------------------------------

namespace {

std::uint32_t xxh32(std::span<const std::uint8_t> b) { return XXH32(b.data(), b.size(), 0); }

// A frame written here, to place every field where a test wants it.
struct frame_options {
    unsigned size_code = 4;          // BD block maximum size
    std::size_t cut = 64 * 1024;     // content bytes per block (may be below the maximum)
    bool block_checksums = false;
    bool content_checksum = true;
    bool content_size = false;
    bool linked = false;             // only sets the flag; blocks are compressed independently
    std::size_t store_every = 0;     // store every n-th block uncompressed (0: never)
};

bytes make_frame(const bytes& content, const frame_options& o) {
    bytes f;
    put_le32(f, fmt::lz4_frame_magic);
    const std::uint8_t flg = static_cast<std::uint8_t>(0x40 | (o.linked ? 0 : 0x20) | (o.block_checksums ? 0x10 : 0) |
                                                       (o.content_size ? 0x08 : 0) | (o.content_checksum ? 0x04 : 0));
    f.push_back(flg);
    f.push_back(static_cast<std::uint8_t>(o.size_code << 4));
    if (o.content_size) {
        put_le32(f, static_cast<std::uint32_t>(content.size()));
        put_le32(f, static_cast<std::uint32_t>(static_cast<std::uint64_t>(content.size()) >> 32));
    }
    f.push_back(static_cast<std::uint8_t>(xxh32(std::span(f).subspan(4)) >> 8));
    for (std::size_t at = 0, i = 0; at < content.size(); at += o.cut, ++i) {
        const bytes piece(content.begin() + static_cast<std::ptrdiff_t>(at),
                          content.begin() + static_cast<std::ptrdiff_t>(std::min(content.size(), at + o.cut)));
        const bool stored = o.store_every && i % o.store_every == o.store_every - 1;
        const bytes data = stored ? piece : lz4_compress_block(piece);
        put_le32(f, static_cast<std::uint32_t>(data.size()) | (stored ? 0x80000000u : 0));
        f.insert(f.end(), data.begin(), data.end());
        if (o.block_checksums) put_le32(f, xxh32(data));
    }
    put_le32(f, 0);
    if (o.content_checksum) put_le32(f, xxh32(content));
    return f;
}

// Recomputes the header checksum after a test edited FLG/BD/optional fields.
void fix_header_checksum(bytes& f) {
    const std::size_t size = 2 + ((f[4] & 0x08) ? 8 : 0) + ((f[4] & 0x01) ? 4 : 0);
    f[4 + size] = static_cast<std::uint8_t>(xxh32(std::span(f).subspan(4, size)) >> 8);
}

bytes skippable_frame(std::uint32_t magic, const bytes& data) {
    bytes f;
    put_le32(f, magic);
    put_le32(f, static_cast<std::uint32_t>(data.size()));
    f.insert(f.end(), data.begin(), data.end());
    return f;
}

bytes legacy_frame(const bytes& content, std::size_t block = fmt::lz4_legacy_block_size) {
    bytes f;
    put_le32(f, fmt::lz4_legacy_magic);
    for (std::size_t at = 0; at < content.size(); at += block) {
        const bytes piece(content.begin() + static_cast<std::ptrdiff_t>(at),
                          content.begin() + static_cast<std::ptrdiff_t>(std::min(content.size(), at + block)));
        const bytes data = lz4_compress_block(piece, -4);
        put_le32(f, static_cast<std::uint32_t>(data.size()));
        f.insert(f.end(), data.begin(), data.end());
    }
    return f;
}

bytes liblz4_frame(const bytes& content, LZ4F_blockSizeID_t size, LZ4F_blockMode_t mode, bool block_checksum,
                   bool content_checksum, bool content_size, int level) {
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.blockSizeID = size;
    prefs.frameInfo.blockMode = mode;
    prefs.frameInfo.blockChecksumFlag = block_checksum ? LZ4F_blockChecksumEnabled : LZ4F_noBlockChecksum;
    prefs.frameInfo.contentChecksumFlag = content_checksum ? LZ4F_contentChecksumEnabled : LZ4F_noContentChecksum;
    prefs.frameInfo.contentSize = content_size ? content.size() : 0;
    prefs.compressionLevel = level;
    bytes out(LZ4F_compressFrameBound(content.size(), &prefs));
    const std::size_t r = LZ4F_compressFrame(out.data(), out.size(), content.data(), content.size(), &prefs);
    BOOST_REQUIRE(!LZ4F_isError(r));
    out.resize(r);
    return out;
}

// Expects a format_error at exactly `offset` whose message mentions `word`.
void expect_format_error(const bytes& file, std::uint64_t offset, const std::string& word) {
    try {
        (void)vyre::engine::decompress_lz4_host(file);
        BOOST_ERROR("no format_error; expected one at byte " << offset << " about \"" << word << "\"");
    } catch (const vyre::format_error& e) {
        BOOST_TEST(e.offset() == offset, "offset " << e.offset() << " != " << offset << ": " << e.what());
        BOOST_TEST(std::string(e.what()).find(word) != std::string::npos, "\"" << word << "\" not in: " << e.what());
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(frames_from_liblz4) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed ^ 0xf4a3e5ULL);
    const bytes text = text_bytes(rng, 400'000);
    const bytes noise = random_bytes(rng, 150'000); // incompressible: stored blocks
    const bytes mixed = concat({text, noise, repetitive_bytes(rng, 200'000)});
    int stored_blocks = 0, linked_frames = 0, expected_linked = 0;
    for (const bytes* content : {&text, &mixed}) {
        for (LZ4F_blockSizeID_t size : {LZ4F_max64KB, LZ4F_max256KB, LZ4F_max1MB, LZ4F_max4MB}) {
            for (LZ4F_blockMode_t mode : {LZ4F_blockIndependent, LZ4F_blockLinked}) {
                const bool flags = (static_cast<int>(size) + static_cast<int>(mode)) % 2 == 0;
                BOOST_TEST_CONTEXT("seed " << seed << ", content " << content->size() << ", block size id " << size
                                           << ", linked " << (mode == LZ4F_blockLinked) << ", flags " << flags) {
                    const bytes file = liblz4_frame(*content, size, mode, flags, !flags, flags, flags ? 4 : 1);
                    const auto layout = fmt::parse_lz4_frames(file);
                    BOOST_REQUIRE(layout.frames.size() == 1u);
                    const auto& f = layout.frames[0];
                    BOOST_TEST(f.kind == fmt::lz4_frame_kind::standard);
                    BOOST_TEST(f.offset == 0u);
                    BOOST_TEST(f.size == file.size());
                    // liblz4 lowers the block size to fit small inputs.
                    BOOST_TEST(f.block_max_size <= (64u * 1024u << (2 * (size - LZ4F_max64KB))));
                    // liblz4 marks a single-block frame independent whatever was asked.
                    const bool one_block = content->size() <= (64u * 1024u << (2 * (size - LZ4F_max64KB)));
                    BOOST_TEST(f.blocks_independent == (mode == LZ4F_blockIndependent || one_block));
                    BOOST_TEST(f.block_checksums == flags);
                    BOOST_TEST(f.content_checksum.has_value() == !flags);
                    BOOST_TEST(f.content_size.has_value() == flags);
                    BOOST_TEST(layout.output_size == content->size());
                    BOOST_TEST(f.block_count == layout.blocks.size());
                    for (const auto& b : layout.blocks) {
                        BOOST_TEST(b.extent.output_size <= f.block_max_size);
                        stored_blocks += (b.extent.flags & vyre::compression::block_flag_uncompressed) ? 1 : 0;
                    }
                    linked_frames += f.blocks_independent ? 0 : 1;
                    expected_linked += (mode == LZ4F_blockLinked && !one_block) ? 1 : 0;
                    BOOST_TEST(fmt::lz4_independent_extents(layout).size() == (f.blocks_independent ? layout.blocks.size() : 0u));
                    const bytes decoded = vyre::engine::decompress_lz4_host(file);
                    BOOST_TEST((decoded == *content));
                }
            }
        }
    }
    BOOST_TEST(stored_blocks > 0);
    BOOST_TEST(linked_frames == expected_linked);
    BOOST_TEST(linked_frames >= 4);
}

BOOST_AUTO_TEST_CASE(frames_written_here) {
    std::mt19937_64 rng(vyre::test::test_seed());
    const bytes content = concat({text_bytes(rng, 200'000), random_bytes(rng, 70'000)});
    frame_options o;
    o.cut = 50'000; // partial blocks: below the 64 KiB maximum
    o.block_checksums = true;
    o.content_size = true;
    o.store_every = 3;
    const bytes file = make_frame(content, o);
    const auto layout = fmt::parse_lz4_frames(file);
    BOOST_TEST(layout.blocks.size() == 6u);
    std::uint64_t out = 0;
    for (std::size_t i = 0; i < layout.blocks.size(); ++i) {
        const auto& e = layout.blocks[i].extent;
        BOOST_TEST(e.output_offset == out);
        BOOST_TEST(e.output_size == std::min<std::uint64_t>(50'000, content.size() - out));
        BOOST_TEST(((e.flags & vyre::compression::block_flag_uncompressed) != 0) == (i % 3 == 2));
        BOOST_TEST(layout.blocks[i].checksum.has_value());
        out += e.output_size;
    }
    BOOST_TEST(layout.frames[0].content_size.value_or(0) == content.size());
    BOOST_TEST((vyre::engine::decompress_lz4_host(file) == content));

    // The empty frame, and a frame whose EndMark carries the stored bit (liblz4 takes it as EndMark).
    const bytes empty = make_frame({}, frame_options{});
    BOOST_TEST(vyre::engine::decompress_lz4_host(empty).empty());
    bytes odd_end = make_frame(to_bytes("abc"), frame_options{});
    odd_end[odd_end.size() - 5] = 0x80; // last byte of the EndMark, before the content checksum
    BOOST_TEST(vyre::engine::decompress_lz4_host(odd_end) == to_bytes("abc"));
}

BOOST_AUTO_TEST_CASE(concatenated_skippable_and_legacy_frames) {
    std::mt19937_64 rng(vyre::test::test_seed() + 7);
    const bytes a = text_bytes(rng, 100'000), b = repetitive_bytes(rng, 20'000);
    const bytes c = text_bytes(rng, 9 * 1024 * 1024 + 12345); // two legacy blocks
    frame_options linked;
    linked.linked = true;
    const bytes file = concat({make_frame(a, frame_options{}), skippable_frame(0x184D2A50, to_bytes("user data")),
                               legacy_frame(c), skippable_frame(0x184D2A5F, {}), make_frame(b, linked),
                               legacy_frame(a, 30'000), legacy_frame({})});
    const auto layout = fmt::parse_lz4_frames(file);
    using k = fmt::lz4_frame_kind;
    std::vector<k> kinds;
    for (const auto& f : layout.frames) kinds.push_back(f.kind);
    const std::vector<k> expected = {k::standard, k::skippable, k::legacy, k::skippable, k::standard, k::legacy, k::legacy};
    BOOST_TEST((kinds == expected));
    BOOST_TEST(layout.frames[1].magic == 0x184D2A50u);
    BOOST_TEST(layout.frames[1].size == 8u + 9u);
    BOOST_TEST(layout.frames[2].block_count == 2u);
    BOOST_TEST(layout.blocks[layout.frames[2].first_block].extent.output_size == fmt::lz4_legacy_block_size);
    BOOST_TEST(layout.frames[2].output_size == c.size());
    BOOST_TEST(!layout.frames[4].blocks_independent);
    BOOST_TEST(layout.frames[5].block_count == 4u);
    BOOST_TEST(layout.frames[6].block_count == 0u);
    std::uint64_t at = 0;
    for (const auto& f : layout.frames) {
        BOOST_TEST(f.offset == at);
        at += f.size;
    }
    BOOST_TEST(at == file.size());
    BOOST_TEST((vyre::engine::decompress_lz4_host(file) == concat({a, c, b, a})));

    // What a device dispatch would do: independent blocks in batches, the linked frame on the host.
    bytes output(layout.output_size, 0);
    vyre::compression::batch_limits limits;
    limits.max_input_bytes = fmt::lz4_legacy_max_compressed;
    limits.max_output_bytes = 9 << 20;
    const auto extents = fmt::lz4_independent_extents(layout);
    BOOST_TEST(extents.size() == layout.blocks.size() - layout.frames[4].block_count);
    const auto batches = vyre::compression::make_block_batches(extents, limits);
    BOOST_TEST(batches.size() >= 2u);
    for (const auto& batch : batches) {
        vyre::compression::check_descriptors(batch.blocks, batch.input_bytes, batch.output_bytes);
        bytes out(batch.output_bytes);
        const auto statuses = ref::lz4_decompress(std::span(file).subspan(batch.input_base, batch.input_bytes), batch.blocks, out);
        // Copy back block by block: the output window may span regions of blocks left out.
        for (std::size_t i = 0; i < statuses.size(); ++i) {
            const auto& d = batch.blocks[i];
            BOOST_TEST(statuses[i] == (vyre::compression::block_status{lz::none, d.output_size}));
            std::copy_n(out.begin() + d.output_offset, d.output_size,
                        output.begin() + static_cast<std::ptrdiff_t>(batch.output_base + d.output_offset));
        }
    }
    vyre::engine::decompress_lz4_frame_host(layout, 4, file, output);
    BOOST_CHECK_NO_THROW(fmt::verify_lz4_content(layout, output));
    BOOST_TEST((output == concat({a, c, b, a})));
}

BOOST_AUTO_TEST_CASE(frame_header_errors) {
    const bytes content = to_bytes("frame header errors are reported with their byte offset");
    frame_options o;
    o.content_size = true;
    const bytes good = make_frame(content, o); // FLG at 4, BD at 5, content size 6..13, HC at 14
    BOOST_TEST(vyre::engine::decompress_lz4_host(good) == content);
    auto edited = [&](auto edit, bool fix) {
        bytes f = good;
        edit(f);
        if (fix) fix_header_checksum(f);
        return f;
    };
    expect_format_error(edited([](bytes& f) { f[0] = 0x05; }, false), 0, "magic");
    expect_format_error(edited([](bytes& f) { f[4] = (f[4] & 0x3F) | 0x80; }, true), 4, "version");
    expect_format_error(edited([](bytes& f) { f[4] &= 0x3F; }, true), 4, "version");
    expect_format_error(edited([](bytes& f) { f[4] |= 0x02; }, true), 4, "reserved");
    expect_format_error(edited([](bytes& f) { f[5] |= 0x80; }, true), 5, "reserved");
    expect_format_error(edited([](bytes& f) { f[5] |= 0x01; }, true), 5, "reserved");
    expect_format_error(edited([](bytes& f) { f[5] = 0x30; }, true), 5, "block maximum size");
    expect_format_error(edited([](bytes& f) { f[5] = 0x00; }, true), 5, "block maximum size");
    expect_format_error(edited([](bytes& f) { f[14] ^= 0x01; }, false), 14, "header checksum");
    expect_format_error(edited([](bytes& f) { f[6] ^= 0x01; }, false), 14, "header checksum");
    expect_format_error(edited([](bytes& f) { f[6] += 1; }, true), 6, "declares");
    // A frame asking for an external dictionary: the DictID field follows the descriptor flags.
    bytes dict = {0x04, 0x22, 0x4D, 0x18, 0x61, 0x40, 0x78, 0x56, 0x34, 0x12, 0x00};
    fix_header_checksum(dict);
    put_le32(dict, 0);
    expect_format_error(dict, 6, "dictionary");
    // A block larger than the block maximum size, stored or compressed.
    bytes big = edited([](bytes&) {}, false);
    big[15] = 0x01; big[16] = 0x00; big[17] = 0x01; big[18] = 0x00; // 65537
    expect_format_error(big, 15, "block maximum size");
    big[18] = 0x80;
    expect_format_error(big, 15, "block maximum size");
    // A compressed block that decodes past the block maximum size (64 KiB + 1 bytes of one byte).
    bytes over;
    put_le32(over, fmt::lz4_frame_magic);
    over.insert(over.end(), {0x60, 0x40, 0x00});
    fix_header_checksum(over);
    bytes run;
    put_sequence(run, to_bytes("q"), 1, 65536);
    put_le32(over, static_cast<std::uint32_t>(run.size()));
    over.insert(over.end(), run.begin(), run.end());
    put_le32(over, 0);
    try {
        (void)fmt::parse_lz4_frames(over);
        BOOST_ERROR("an oversized block was accepted");
    } catch (const vyre::format_error& e) {
        BOOST_TEST(std::string(e.what()).find("match_overflow") != std::string::npos, e.what());
        BOOST_TEST(e.offset() > 11u);
        BOOST_TEST(e.offset() <= 11u + run.size());
    }
    // Anything after the last frame must be a frame.
    expect_format_error(concat({good, to_bytes("junk")}), good.size(), "magic");
    expect_format_error(concat({good, to_bytes("ju")}), good.size(), "truncated");
    expect_format_error({}, 0, "empty");
    // Legacy: a size field that is neither a block size nor a magic number; an empty block.
    bytes legacy = legacy_frame(content);
    put_le32(legacy, 0x7FFFFFFF);
    expect_format_error(legacy, legacy.size() - 4, "legacy");
    legacy.resize(legacy.size() - 4);
    put_le32(legacy, 0);
    expect_format_error(legacy, legacy.size() - 4, "legacy");
}

BOOST_AUTO_TEST_CASE(frame_truncations_and_checksums) {
    std::mt19937_64 rng(vyre::test::test_seed() + 11);
    const bytes content = text_bytes(rng, 3000);
    frame_options o;
    o.cut = 1000;
    o.block_checksums = true;
    o.content_size = true;
    const bytes good = make_frame(content, o);
    // Every proper prefix of a standard frame is truncated somewhere.
    for (std::size_t n = 1; n < good.size(); ++n) {
        BOOST_TEST_CONTEXT("prefix of " << n << " bytes") {
            try {
                (void)vyre::engine::decompress_lz4_host(std::span(good).first(n));
                BOOST_ERROR("a truncated frame was accepted");
            } catch (const vyre::format_error& e) {
                BOOST_TEST(e.offset() <= n);
            }
        }
    }
    // Block checksum: first block's data starts at 4 + 2 + 8 + 1 + 4 = 19.
    const auto layout = fmt::parse_lz4_frames(good);
    const auto& b0 = layout.blocks[0];
    BOOST_TEST(b0.extent.input_offset == 19u);
    bytes bad = good;
    bad[b0.checksum_offset] ^= 0x10;
    expect_format_error(bad, b0.checksum_offset, "block checksum");
    bad = good;
    bad[b0.extent.input_offset + 3] ^= 0x01; // the data, not the checksum
    expect_format_error(bad, b0.checksum_offset, "block checksum");
    // Content checksum, when block checksums are off and the damage is in a literal byte.
    frame_options plain;
    plain.block_checksums = false;
    const bytes good2 = make_frame(content, plain);
    const auto layout2 = fmt::parse_lz4_frames(good2);
    bad = good2;
    const auto& e2 = layout2.blocks[0].extent;
    bad[e2.input_offset + e2.input_size - 1] ^= 0x01; // the last literal: a block ends with literals
    expect_format_error(bad, layout2.frames[0].content_checksum_offset, "content checksum");
    // verify functions on their own: wrong output size, wrong bytes.
    bytes out = vyre::engine::decompress_lz4_host(good);
    BOOST_CHECK_NO_THROW(fmt::verify_lz4_content(layout, out));
    BOOST_CHECK_NO_THROW(fmt::verify_lz4_block_checksums(layout, good));
    BOOST_CHECK_THROW(fmt::verify_lz4_content(layout, std::span(out).first(out.size() - 1)), vyre::format_error);
    frame_options checked;
    const bytes good3 = make_frame(content, checked);
    const auto layout3 = fmt::parse_lz4_frames(good3);
    bytes out3 = vyre::engine::decompress_lz4_host(good3);
    out3[1234] ^= 0x20;
    BOOST_CHECK_THROW(fmt::verify_lz4_content(layout3, out3), vyre::format_error);
    // Parsing without block checksum verification leaves it to verify_lz4_block_checksums.
    bad = good;
    bad[b0.checksum_offset] ^= 0x10;
    fmt::lz4_parse_options lax;
    lax.verify_block_checksums = false;
    const auto layout4 = fmt::parse_lz4_frames(bad, lax);
    BOOST_CHECK_THROW(fmt::verify_lz4_block_checksums(layout4, bad), vyre::format_error);
    // A hostile output bound.
    BOOST_CHECK_THROW(vyre::engine::decompress_lz4_host(good, content.size() - 1), vyre::resource_error);
}

BOOST_AUTO_TEST_CASE(frame_mutations) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed ^ 0xf7a3eULL);
    const bytes content = concat({text_bytes(rng, 6000), repetitive_bytes(rng, 6000), random_bytes(rng, 500)});
    frame_options checked;
    checked.cut = 4000;
    checked.block_checksums = true;
    checked.store_every = 4;
    frame_options bare = checked;
    bare.block_checksums = false;
    bare.content_checksum = false;
    frame_options linked = checked;
    linked.linked = true;
    const bytes frames[] = {make_frame(content, checked), make_frame(content, bare), make_frame(content, linked),
                            concat({legacy_frame(content, 5000), make_frame(content, checked)})};
    int rejected = 0, accepted = 0;
    for (int it = 0; it < 3000; ++it) {
        const std::size_t which = rng() % std::size(frames);
        bytes m = frames[which];
        const std::size_t at = rng() % m.size();
        const int kind = static_cast<int>(rng() % 4);
        switch (kind) {
        case 0: m[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
        case 1: m[at] = static_cast<std::uint8_t>(rng()); break;
        case 2: m.resize(at); break;
        default: m.erase(m.begin() + static_cast<std::ptrdiff_t>(at)); break;
        }
        BOOST_TEST_CONTEXT("seed " << seed << ", iteration " << it << ", frame set " << which << ", mutation " << kind
                                   << ", at " << at) {
            // Walked with nothing listed (the route of files of too many tiny blocks): the same
            // bytes, or the same error at the same byte.
            const auto outcome = [&](const auto& decode) -> std::string {
                try {
                    const bytes out = decode();
                    return "decoded " + std::to_string(out.size()) + " bytes, xxh32 " + std::to_string(xxh32(out));
                } catch (const vyre::error& e) {
                    return e.what();
                }
            };
            BOOST_TEST(outcome([&] {
                           bytes out;
                           (void)vyre::engine::decompress_lz4_walked(m, out);
                           return out;
                       }) == outcome([&] { return vyre::engine::decompress_lz4_host(m); }));
            try {
                const bytes out = vyre::engine::decompress_lz4_host(m);
                ++accepted;
                // With checksums, anything accepted is the original content.
                if (which == 0 || which == 2) BOOST_TEST((out == content));
                // A legacy frame ends at the end of the file, so a cut between its blocks is
                // undetectable; any other damage leaves the checked frame behind it intact.
                if (which == 3 && kind != 2) {
                    BOOST_TEST_REQUIRE(out.size() >= content.size());
                    BOOST_TEST(std::equal(content.begin(), content.end(), out.end() - static_cast<std::ptrdiff_t>(content.size())));
                }
            } catch (const vyre::format_error&) {
                ++rejected;
            }
        }
    }
    BOOST_TEST_MESSAGE("frame mutations: " << rejected << " rejected, " << accepted << " accepted");
    BOOST_TEST(rejected > 2000);
}

// Millions of tiny blocks or frames: a parse's records (56 bytes a block, more a frame) would be
// 11 times a file of one-byte blocks, so past a budget it throws lz4_table_error and the file is
// decoded as a walk reaches each block, nothing listed.
BOOST_AUTO_TEST_CASE(millions_of_tiny_blocks_are_walked_not_listed) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x7ab1eULL);
    frame_options one_byte;
    one_byte.cut = 1;
    one_byte.store_every = 1; // every block stored: 4 + 1 bytes
    const bytes small = make_frame(text_bytes(rng, 1000), one_byte);
    const std::uint64_t needs = fmt::lz4_table_bytes(1, 1000);
    fmt::lz4_parse_options o;
    o.max_table_bytes = needs;
    BOOST_TEST(fmt::parse_lz4_frames(small, o).blocks.size() == 1000u);
    o.max_table_bytes = needs - 1;
    try {
        (void)fmt::parse_lz4_frames(small, o);
        BOOST_ERROR("a parse past max_table_bytes did not throw");
    } catch (const fmt::lz4_table_error& e) {
        BOOST_TEST(std::string(e.what()).find("past " + std::to_string(needs - 1) + " bytes") != std::string::npos, e.what());
    }
    // Skippable frames count too.
    bytes skippables;
    for (int i = 0; i < 1000; ++i) skippables = concat({skippables, skippable_frame(0x184D2A50, {})});
    o.max_table_bytes = fmt::lz4_table_bytes(999, 0);
    BOOST_CHECK_THROW((void)fmt::parse_lz4_frames(skippables, o), fmt::lz4_table_error);
    // The shared budget (format/record_budget.hpp), caught as every format's budget error.
    BOOST_CHECK_THROW((void)fmt::parse_lz4_frames(skippables, o), fmt::record_budget_error);
    // The walk hands on what the parse lists, in order, in the same places.
    const fmt::lz4_layout listed = fmt::parse_lz4_frames(small);
    std::vector<vyre::compression::block_extent> seen;
    std::size_t frames_seen = 0;
    fmt::lz4_walk_visitor v;
    v.block = [&](const fmt::lz4_frame&, const fmt::lz4_block& b) { seen.push_back(b.extent); };
    v.frame = [&](const fmt::lz4_frame& f) { BOOST_TEST(f.output_size == listed.frames.at(frames_seen++).output_size); };
    const auto counts = fmt::walk_lz4_frames(small, v);
    BOOST_TEST(counts.frames == 1u);
    BOOST_TEST(counts.blocks == 1000u);
    BOOST_TEST(counts.output_size == listed.output_size);
    BOOST_REQUIRE(seen.size() == listed.blocks.size());
    for (std::size_t i = 0; i < seen.size(); ++i)
        BOOST_TEST((seen[i].input_offset == listed.blocks[i].extent.input_offset && seen[i].output_offset == listed.blocks[i].extent.output_offset));
    // The default budget: 5 million one-byte blocks (25 MB), linked and independent, and 3 million
    // empty skippable frames (24 MB), each far past it, decode within 128 MiB of headroom; listing
    // every block took about 280 MB.
    const bytes content = text_bytes(rng, 5'000'000);
    const bytes many = make_frame(content, one_byte);
    frame_options linked_bytes = one_byte;
    linked_bytes.linked = true;
    const bytes many_linked = make_frame(content, linked_bytes);
    bytes empty_frames;
    empty_frames.reserve(3'000'000 * 8);
    for (int i = 0; i < 3'000'000; ++i) {
        put_le32(empty_frames, 0x184D2A5Au);
        put_le32(empty_frames, 0);
    }
    BOOST_CHECK_THROW((void)fmt::parse_lz4_frames(many), fmt::lz4_table_error);
    const auto st = vyre::test::exit_status_with_address_space_headroom(std::uint64_t{128} << 20, [&] {
        if (vyre::engine::decompress_lz4_host(many) != content) return 2;
        if (vyre::engine::decompress_lz4_host(many_linked) != content) return 3;
        if (!vyre::engine::decompress_lz4_host(empty_frames).empty()) return 4;
        return 0;
    });
    // 70: bad_alloc (the blocks were listed); 2-4: the wrong outcome, in the order above.
    if (st) BOOST_TEST(*st == 0);
    else BOOST_TEST_MESSAGE("under AddressSanitizer: the address-space cap is not tested");
    // A wrong content checksum is found as the walk ends the frame: the listed path's error.
    bytes bad = many;
    bad[bad.size() - 1] ^= 1;
    expect_format_error(bad, bad.size() - 4, "content checksum mismatch");
}

// ---- frames written by the lz4 command line tool -----------------------------------------------

BOOST_AUTO_TEST_CASE(frames_from_lz4_tool) {
    if (!vyre::test::command_succeeds("lz4 -V")) {
        BOOST_TEST_MESSAGE("the lz4 command line tool is absent: frames from it are not tested");
        return;
    }
    const vyre::test::temp_dir dir("vyre_format_lz4_", true);
    const bytes corpus = system_corpus(1'000'000);
    const bytes small = bytes(corpus.begin(), corpus.begin() + 400'000);
    struct variant {
        std::string options;
        const bytes* content;
        std::uint32_t block_max;
        bool independent, content_size, content_checksum, block_checksums;
    };
    const std::uint32_t KiB = 1024;
    // The tool lowers the block maximum size to the smallest that holds a one-block file (1 MiB here).
    const variant variants[] = {
        {"-1", &corpus, 1024 * KiB, true, false, true, false},
        {"-9", &corpus, 1024 * KiB, true, false, true, false},
        {"-12 -B5", &small, 256 * KiB, true, false, true, false},
        {"-B4", &corpus, 64 * KiB, true, false, true, false},
        {"-B5", &corpus, 256 * KiB, true, false, true, false},
        {"-B6", &corpus, 1024 * KiB, true, false, true, false},
        {"-B7", &corpus, 1024 * KiB, true, false, true, false},
        {"-B4 -BD", &corpus, 64 * KiB, false, false, true, false},
        {"-B5 -BD -9", &corpus, 256 * KiB, false, false, true, false},
        {"-B5 --content-size", &corpus, 256 * KiB, true, true, true, false},
        {"-B6 --no-frame-crc", &corpus, 1024 * KiB, true, false, false, false},
        {"-B4 -BX", &corpus, 64 * KiB, true, false, true, true},
        {"-B100000", &corpus, 256 * KiB, true, false, true, false}, // 100000-byte blocks: partially filled
        {"--fast=3", &corpus, 1024 * KiB, true, false, true, false},
    };
    std::vector<bytes> files;
    for (std::size_t i = 0; i < std::size(variants); ++i) {
        const variant& v = variants[i];
        BOOST_TEST_CONTEXT("lz4 " << v.options) {
            const bytes file = lz4_tool(dir, *v.content, v.options, "v" + std::to_string(i));
            const auto layout = fmt::parse_lz4_frames(file);
            BOOST_REQUIRE(layout.frames.size() == 1u);
            const auto& f = layout.frames[0];
            BOOST_TEST(f.kind == fmt::lz4_frame_kind::standard);
            BOOST_TEST(f.block_max_size == v.block_max);
            BOOST_TEST(f.blocks_independent == v.independent);
            BOOST_TEST(f.content_size.has_value() == v.content_size);
            BOOST_TEST(f.content_checksum.has_value() == v.content_checksum);
            BOOST_TEST(f.block_checksums == v.block_checksums);
            BOOST_TEST(layout.output_size == v.content->size());
            if (v.options == "-B100000") BOOST_TEST(layout.blocks[0].extent.output_size == 100000u);
            BOOST_TEST((vyre::engine::decompress_lz4_host(file) == *v.content));
            files.push_back(file);
        }
    }
    // Legacy format (-l): 8 MiB blocks, so a larger input makes several.
    std::mt19937_64 rng(3);
    const bytes large = concat({corpus, corpus, corpus, corpus, corpus, corpus, corpus, corpus, text_bytes(rng, 600'000)});
    const bytes legacy = lz4_tool(dir, large, "-l", "legacy");
    const auto legacy_layout = fmt::parse_lz4_frames(legacy);
    BOOST_REQUIRE(legacy_layout.frames.size() == 1u);
    BOOST_TEST(legacy_layout.frames[0].kind == fmt::lz4_frame_kind::legacy);
    BOOST_TEST(legacy_layout.blocks.size() == 2u);
    BOOST_TEST((vyre::engine::decompress_lz4_host(legacy) == large));
    // An empty file, and concatenations (as `cat a.lz4 b.lz4` makes them), skippable frames between.
    const bytes empty = lz4_tool(dir, {}, "", "empty");
    BOOST_TEST(vyre::engine::decompress_lz4_host(empty).empty());
    const bytes joined = concat({files[3], skippable_frame(0x184D2A53, to_bytes("meta")), legacy, empty, files[7],
                                 files[9]});
    BOOST_TEST((vyre::engine::decompress_lz4_host(joined) == concat({corpus, large, corpus, corpus})));
    // The tool agrees about the concatenation.
    write_file(dir / "joined.lz4", joined);
    const std::string cmd = "lz4 -q -d -f '" + (dir / "joined.lz4") + "' '" + (dir / "joined.out") + "' >/dev/null 2>&1";
    BOOST_TEST(std::system(cmd.c_str()) == 0);
    BOOST_TEST((read_file(dir / "joined.out") == concat({corpus, large, corpus, corpus})));

    // A damaged header or checksum of a tool-made frame is a format_error.
    bytes bad = files[3];
    bad[4] ^= 0x40; // version bits 01 -> 00
    expect_format_error(bad, 4, "version");
    bad = files[3];
    bad[6] ^= 0x01; // header checksum
    expect_format_error(bad, 6, "header checksum");
    bad = files[11]; // -BX: block checksums
    const auto layout11 = fmt::parse_lz4_frames(bad);
    bad[layout11.blocks[3].extent.input_offset + 100] ^= 0x04;
    expect_format_error(bad, layout11.blocks[3].checksum_offset, "block checksum");
    bad = files[4];
    bad[bad.size() - 1] ^= 0x80; // content checksum
    expect_format_error(bad, bad.size() - 4, "content checksum");
}

VYRE_TEST_MAIN
