// Host side of compression.zstd: the reference block decoder (the GPU op's oracle), the frame
// parser, the hybrid CPU pipeline and the host route's frame decoder (libzstd's frame API), checked
// against libzstd and the zstd command line tool; both host paths name the same offset for the same
// corruption.
#include "harness.hpp"
#include "test_data.hpp"
#include "zstd_blocks.hpp"

#include <vyre/engine/zstd_host.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_frame_checks.hpp>
#include <vyre/reference/zstd.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
namespace fmt = vyre::format;
namespace cmp = vyre::compression;
using bytes = std::vector<std::uint8_t>;

using vyre::test::block_header;
using vyre::test::have_tool;
using vyre::test::literal_block;
using vyre::test::libzstd_decompress;
using vyre::test::make_corpus;
using vyre::test::put_le;
using vyre::test::run_tool;
using vyre::test::skippable;
using vyre::test::write_file;

// ---------------------------------------------------------------- hand-built frames

void raw_block(bytes& out, bytes& content, const bytes& data, bool last = false) {
    block_header(out, 0, last, static_cast<std::uint32_t>(data.size()));
    out.insert(out.end(), data.begin(), data.end());
    content.insert(content.end(), data.begin(), data.end());
}

void rle_block(bytes& out, bytes& content, std::uint8_t value, std::uint32_t n, bool last = false) {
    block_header(out, 1, last, n);
    out.push_back(value);
    content.insert(content.end(), n, value);
}

struct header_spec {
    unsigned fcs_code = 0;          // Frame_Content_Size_flag
    bool single_segment = false;
    std::uint8_t window = 0x50;     // window log 20
    unsigned dict_code = 0;
    std::uint32_t dict_id = 0;
    bool checksum = true;
    std::uint64_t fcs = 0;
};

bytes frame_header(const header_spec& h) {
    bytes out;
    put_le(out, fmt::zstd_magic, 4);
    out.push_back(static_cast<std::uint8_t>(h.fcs_code << 6 | (h.single_segment ? 0x20 : 0) | (h.checksum ? 4 : 0) |
                                            h.dict_code));
    if (!h.single_segment) out.push_back(h.window);
    static constexpr unsigned dict_bytes[4] = {0, 1, 2, 4};
    put_le(out, h.dict_id, dict_bytes[h.dict_code]);
    static constexpr unsigned fcs_bytes[4] = {0, 2, 4, 8};
    const unsigned n = (h.fcs_code == 0 && h.single_segment) ? 1 : fcs_bytes[h.fcs_code];
    put_le(out, n == 2 ? h.fcs - 256 : h.fcs, n);
    return out;
}

void checksum(bytes& out, const bytes& content) {
    put_le(out, static_cast<std::uint32_t>(XXH64(content.data(), content.size(), 0)), 4);
}

bytes pattern(std::size_t n, std::uint64_t seed) {
    bytes out(n);
    std::mt19937_64 rng(seed);
    for (auto& b : out) b = static_cast<std::uint8_t>(rng() % 23 + 'a');
    return out;
}

// Blocks of every kind: raw, RLE, compressed (raw literals), empty ones; content is filled in.
bytes mixed_blocks(bytes& content) {
    bytes out;
    raw_block(out, content, pattern(1000, 1));
    literal_block(out, content, pattern(300, 2));
    rle_block(out, content, 'z', 5000);
    literal_block(out, content, pattern(20, 3));
    raw_block(out, content, {});
    rle_block(out, content, 'q', 0);
    literal_block(out, content, pattern(5000, 4));
    raw_block(out, content, pattern(50, 5), true);
    return out;
}

// ---------------------------------------------------------------- libzstd and the CLI

std::size_t bound_of(std::span<const std::uint8_t> src) {
    const unsigned long long b = ZSTD_decompressBound(src.data(), src.size());
    BOOST_REQUIRE(b != ZSTD_CONTENTSIZE_ERROR);
    return static_cast<std::size_t>(b);
}

// The host route's frame decoder over a whole file: every frame with libzstd's frame API into its
// staging region, then the frames packed together.
bytes decode_with_frame_api(std::span<const std::uint8_t> zst, const fmt::zstd_parse_options& options = {}) {
    const auto file = fmt::parse_zstd(zst, options);
    bytes staging(file.staging_size);
    const auto dctx = vyre::engine::detail::zstd_make_frame_dctx();
    std::uint64_t at = 0;
    for (const auto& f : file.frames) {
        const auto o = vyre::engine::detail::zstd_decode_frame(dctx.get(), zst, f, staging);
        BOOST_TEST(o.stats.frames == 1u);
        BOOST_TEST(o.stats.cpu_blocks == f.blocks.size());
        BOOST_TEST(o.stats.cpu_bytes == o.size);
        BOOST_TEST(o.stats.device_blocks == 0u);
        if (o.size != 0) std::memmove(staging.data() + at, staging.data() + f.output_offset, o.size);
        at += o.size;
    }
    staging.resize(at);
    return staging;
}

// Decodes with the whole CPU pipeline and with the frame API, and checks both against `expected`
// and libzstd.
vyre::engine::zstd_host_result check_round_trip(std::span<const std::uint8_t> zst, const bytes& expected, unsigned threads = 0) {
    auto r = vyre::engine::decompress_zstd_host(zst, {}, threads);
    BOOST_TEST(r.output.size() == expected.size());
    BOOST_TEST((r.output == expected));
    const auto lib = libzstd_decompress(zst, bound_of(zst));
    BOOST_REQUIRE(lib.has_value());
    BOOST_TEST((r.output == *lib));
    BOOST_TEST(r.stats.redone_blocks == 0u);
    BOOST_TEST((decode_with_frame_api(zst) == expected));
    return r;
}

template <class F>
std::uint64_t format_error_offset(F&& f) {
    try {
        f();
    } catch (const vyre::format_error& e) {
        BOOST_TEST_MESSAGE("format_error: " << e.what());
        return e.offset();
    }
    BOOST_ERROR("no format_error thrown");
    return 0;
}

template <class F>
std::string format_error_message(F&& f) {
    try {
        f();
    } catch (const vyre::format_error& e) {
        return e.what();
    }
    return "(no format_error)";
}

// The CPU pipeline's format_error offset for a corrupt file, after checking that the frame API
// path says the same thing at the same place.
std::uint64_t error_offset(const bytes& z) {
    const auto block_path = [&] { vyre::engine::decompress_zstd_host(z); };
    const auto frame_api = [&] { decode_with_frame_api(z); };
    BOOST_TEST(format_error_message(frame_api) == format_error_message(block_path));
    return format_error_offset(block_path);
}

bytes block_bytes(unsigned type, std::uint32_t size, const bytes& content, bool last = true) {
    bytes out;
    block_header(out, type, last, size);
    out.insert(out.end(), content.begin(), content.end());
    return out;
}

} // namespace

// ---------------------------------------------------------------- reference block decoder

BOOST_AUTO_TEST_CASE(reference_block_archetypes) {
    namespace err = cmp::zstd_error;
    const bytes five = {1, 2, 3, 4, 5};
    bytes out(200, 0xEE);

    auto s = vyre::reference::zstd_decode_block(block_bytes(0, 5, five), out);
    BOOST_TEST((s == cmp::block_status{err::none, 5}));
    BOOST_TEST((bytes(out.begin(), out.begin() + 5) == five));
    BOOST_TEST(out[5] == 0xEE);

    s = vyre::reference::zstd_decode_block(block_bytes(1, 100, {'x'}), out);
    BOOST_TEST((s == cmp::block_status{err::none, 100}));
    BOOST_TEST(std::count(out.begin(), out.begin() + 100, 'x') == 100);
    BOOST_TEST(out[100] == 0xEE);

    std::fill(out.begin(), out.end(), 0xEE);
    s = vyre::reference::zstd_decode_block(block_bytes(2, 5, five), out);
    BOOST_TEST((s == cmp::block_status{err::unsupported_compressed_block, 0}));
    BOOST_TEST(std::count(out.begin(), out.end(), 0xEE) == 200);

    s = vyre::reference::zstd_decode_block(block_bytes(1, 100, {}), out);
    BOOST_TEST((s == cmp::block_status{err::rle_payload_missing, 0}));

    s = vyre::reference::zstd_decode_block(block_bytes(0, 5, five), std::span(out).first(4));
    BOOST_TEST((s == cmp::block_status{err::output_overflow, 0}));
    s = vyre::reference::zstd_decode_block(block_bytes(1, 100, {'x'}), std::span(out).first(99));
    BOOST_TEST((s == cmp::block_status{err::output_overflow, 0}));
    BOOST_TEST(std::count(out.begin(), out.end(), 0xEE) == 200);

    s = vyre::reference::zstd_decode_block(block_bytes(0, 0, {}), std::span(out).first(0));
    BOOST_TEST((s == cmp::block_status{err::none, 0}));
    s = vyre::reference::zstd_decode_block(block_bytes(1, 0, {'x'}), std::span(out).first(0));
    BOOST_TEST((s == cmp::block_status{err::none, 0}));
}

BOOST_AUTO_TEST_CASE(reference_block_corrupt) {
    namespace err = cmp::zstd_error;
    const bytes five = {1, 2, 3, 4, 5};
    bytes out(1 << 18);
    const cmp::block_status corrupt{err::corrupt_block, 0};
    using vyre::reference::zstd_decode_block;
    BOOST_TEST((zstd_decode_block(bytes{}, out) == corrupt));
    BOOST_TEST((zstd_decode_block(bytes{0x01, 0x00}, out) == corrupt));              // header cut short
    BOOST_TEST((zstd_decode_block(block_bytes(3, 5, five), out) == corrupt));        // reserved type
    BOOST_TEST((zstd_decode_block(block_bytes(0, 6, five), out) == corrupt));        // raw size > content
    BOOST_TEST((zstd_decode_block(block_bytes(0, 4, five), out) == corrupt));        // raw size < content
    BOOST_TEST((zstd_decode_block(block_bytes(1, 9, {7, 7}), out) == corrupt));      // RLE with 2 bytes
    BOOST_TEST((zstd_decode_block(block_bytes(2, 9, five), out) == corrupt));        // compressed size mismatch
    BOOST_TEST((zstd_decode_block(block_bytes(1, (128 << 10) + 1, {7}), out) == corrupt));  // above 128 KiB
    BOOST_TEST((zstd_decode_block(block_bytes(1, 128 << 10, {7}), out) == cmp::block_status{err::none, 128u << 10}));
}

BOOST_AUTO_TEST_CASE(reference_batch_descriptors) {
    namespace err = cmp::zstd_error;
    bytes input = block_bytes(0, 5, {1, 2, 3, 4, 5});
    const auto rle_at = static_cast<std::uint32_t>(input.size());
    const bytes rle = block_bytes(1, 10, {9});
    input.insert(input.end(), rle.begin(), rle.end());
    bytes output(20, 0xEE);
    const std::vector<cmp::block_descriptor> d = {
        {0, 8, 0, 5, 0},               // raw
        {rle_at, 4, 5, 10, 0},         // RLE
        {rle_at, 4, 15, 10, 0},        // RLE running past the 20-byte output: clipped, overflows
        {rle_at, 5, 0, 10, 0},         // input range past the input
        {0xFFFFFFFFu, 2, 0, 10, 0},    // offset + size wraps in 32 bits
        {rle_at, 4, 0xFFFFFFF0u, 0x20, 0},  // output range past the buffer and past 2^32
    };
    std::vector<cmp::block_status> st(d.size());
    vyre::reference::zstd_decode_blocks(input, d, output, st);
    BOOST_TEST((st[0] == cmp::block_status{err::none, 5}));
    BOOST_TEST((st[1] == cmp::block_status{err::none, 10}));
    BOOST_TEST((st[2] == cmp::block_status{err::output_overflow, 0}));
    BOOST_TEST((st[3] == cmp::block_status{err::corrupt_block, 0}));
    BOOST_TEST((st[4] == cmp::block_status{err::corrupt_block, 0}));
    BOOST_TEST((st[5] == cmp::block_status{err::output_overflow, 0}));
    const bytes expected = {1, 2, 3, 4, 5, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE};
    BOOST_TEST((output == expected));
    std::vector<cmp::block_status> too_few(2);
    BOOST_CHECK_THROW(vyre::reference::zstd_decode_blocks(input, d, output, too_few), vyre::resource_error);
}

BOOST_AUTO_TEST_CASE(reference_random_blocks_stay_in_bounds) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        std::mt19937_64 rng(seed);
        for (int i = 0; i < 20000; ++i) {
            bytes in(rng() % 12);
            for (auto& b : in) b = static_cast<std::uint8_t>(rng());
            if (in.size() >= 3 && rng() % 2) in[2] = 0;  // small Block_Size values are the interesting ones
            bytes out(rng() % 10 + 2, 0xEE);
            const auto s = vyre::reference::zstd_decode_block(in, std::span(out).first(out.size() - 1));
            BOOST_TEST_REQUIRE(s.code <= 4u);
            BOOST_TEST_REQUIRE(s.output_size <= out.size() - 1);
            BOOST_TEST_REQUIRE(out.back() == 0xEE);
            if (s.code != 0) BOOST_TEST_REQUIRE(std::count(out.begin(), out.end(), 0xEE) == std::ptrdiff_t(out.size()));
        }
    }
}

// ---------------------------------------------------------------- hand-built frames

BOOST_AUTO_TEST_CASE(hand_frames_every_header_form) {
    bytes content;
    const bytes blocks = mixed_blocks(content);
    const std::uint64_t n = content.size();  // 11370: fits every FCS field size
    struct variant {
        header_spec h;
        const char* name;
    };
    const std::vector<variant> variants = {
        {{0, false, 0x50, 0, 0, true, 0}, "no content size"},
        {{1, false, 0x50, 0, 0, true, n}, "2-byte content size"},
        {{2, false, 0x50, 0, 0, true, n}, "4-byte content size"},
        {{3, false, 0x50, 0, 0, false, n}, "8-byte content size, no checksum"},
        {{1, true, 0, 0, 0, true, n}, "single segment"},
        {{0, false, 0x00, 0, 0, true, 0}, "1 KiB window"},  // block maximum 1 KiB: the blocks are too big
        {{0, false, 0x50, 1, 0, true, 0}, "dictionary id field holding 0"},
        {{2, false, 0x57, 3, 0, true, n}, "4-byte dictionary id field holding 0, mantissa 7"},
    };
    for (const auto& v : variants) {
        BOOST_TEST_CONTEXT(v.name) {
            bytes zst = frame_header(v.h);
            zst.insert(zst.end(), blocks.begin(), blocks.end());
            if (v.h.checksum) checksum(zst, content);
            if (v.h.window == 0x00 && !v.h.single_segment) {  // the 5000-byte RLE block is the first too big
                const std::size_t rle_at = frame_header(v.h).size() + (3 + 1000) + (3 + 2 + 300 + 1);
                BOOST_TEST(format_error_offset([&] { fmt::parse_zstd(zst); }) == rle_at);
                continue;
            }
            const auto file = fmt::parse_zstd(zst);
            BOOST_TEST_REQUIRE(file.frames.size() == 1u);
            const auto& f = file.frames[0];
            BOOST_TEST(f.blocks.size() == 8u);
            BOOST_TEST(f.compressed_blocks() == 3u);
            BOOST_TEST(f.size == zst.size());
            BOOST_TEST(f.checksum.has_value() == v.h.checksum);
            BOOST_TEST(f.content_size.has_value() == (v.h.fcs_code != 0 || v.h.single_segment));
            BOOST_TEST(f.block_maximum_size == (v.h.single_segment ? n : 128u << 10));
            BOOST_TEST(!f.exact_layout);
            const auto r = check_round_trip(zst, content);
            BOOST_TEST(r.stats.device_blocks == 5u);
            BOOST_TEST(r.stats.device_bytes == 6050u);
            BOOST_TEST(r.stats.cpu_blocks == 3u);
            BOOST_TEST(r.stats.cpu_bytes == 5320u);
        }
    }
}

BOOST_AUTO_TEST_CASE(hand_frames_layout) {
    // One compressed block and a declared size: every slot is exact.
    bytes content, zst = frame_header({2, false, 0x50, 0, 0, true, 0});
    raw_block(zst, content, pattern(700, 7));
    literal_block(zst, content, pattern(3000, 8));
    rle_block(zst, content, 1, 40000, true);
    checksum(zst, content);
    zst[6] = static_cast<std::uint8_t>(content.size());  // the 4-byte FCS field sits at offset 6
    zst[7] = static_cast<std::uint8_t>(content.size() >> 8);
    zst[8] = static_cast<std::uint8_t>(content.size() >> 16);
    const auto file = fmt::parse_zstd(zst);
    BOOST_TEST_REQUIRE(file.frames.size() == 1u);
    const auto& f = file.frames[0];
    BOOST_TEST(f.exact_layout);
    BOOST_TEST(file.staging_size == content.size());
    BOOST_TEST(f.blocks[1].output_offset == 700u);
    BOOST_TEST(f.blocks[1].regenerated_size.value_or(0) == 3000u);
    BOOST_TEST(f.blocks[2].output_offset == 3700u);
    BOOST_TEST(f.blocks[2].header_offset == f.blocks[1].end_offset());
    check_round_trip(zst, content);

    // No declared size: each compressed block reserves the block maximum; later blocks slide down.
    bytes c2, z2 = frame_header({0, false, 0x50, 0, 0, true, 0});
    literal_block(z2, c2, pattern(10, 9));
    raw_block(z2, c2, pattern(10, 10), true);
    checksum(z2, c2);
    const auto f2 = fmt::parse_zstd(z2);
    BOOST_TEST(f2.staging_size == (128u << 10) + 10u);
    BOOST_TEST(f2.frames[0].blocks[1].output_offset == 128u << 10);
    check_round_trip(z2, c2);
}

BOOST_AUTO_TEST_CASE(hand_frames_content_size_edges) {
    struct variant {
        header_spec h;
        std::size_t raw, rle;
        const char* name;
    };
    const std::vector<variant> variants = {
        {{0, true, 0, 0, 0, true, 250}, 100, 100, "single segment, 1-byte content size"},
        {{3, true, 0, 0, 0, true, 250}, 100, 100, "single segment, 8-byte content size"},
        {{1, false, 0x50, 0, 0, true, 256}, 100, 106, "2-byte field 0 means 256"},
        {{1, false, 0x50, 0, 0, true, 65791}, 60000, 5741, "2-byte field 0xFFFF means 65791"},
        {{0, true, 0, 0, 0, true, 0}, 0, 0, "empty single-segment frame"},
    };
    for (const auto& v : variants) {
        BOOST_TEST_CONTEXT(v.name) {
            bytes content, zst = frame_header(v.h);
            raw_block(zst, content, pattern(v.raw, 12), v.rle == 0);
            if (v.rle != 0) {
                rle_block(zst, content, 0x42, static_cast<std::uint32_t>(v.rle));
                literal_block(zst, content, pattern(50, 13), true);
            }
            checksum(zst, content);
            BOOST_TEST_REQUIRE(content.size() == v.h.fcs);
            const auto file = fmt::parse_zstd(zst);
            BOOST_TEST(file.frames.at(0).content_size.value_or(~0ull) == v.h.fcs);
            BOOST_TEST(file.frames.at(0).exact_layout);
            BOOST_TEST(file.staging_size == v.h.fcs);
            check_round_trip(zst, content);
        }
    }
    // The staging limit is a resource limit, checked before anything is allocated.
    bytes c, z = frame_header({0, false, 0x50, 0, 0, false, 0});
    for (int i = 0; i < 8; ++i) rle_block(z, c, 1, 128u << 10, i == 7);
    fmt::zstd_parse_options small;
    small.max_output_size = (1u << 20) - 1;
    BOOST_CHECK_THROW(fmt::parse_zstd(z, small), vyre::resource_error);
    small.max_output_size = 1u << 20;
    BOOST_TEST(fmt::parse_zstd(z, small).staging_size == 1u << 20);
}

BOOST_AUTO_TEST_CASE(hand_frames_device_statuses) {
    // The hybrid pass driven through the descriptor path: extents -> batches -> reference kernel.
    bytes c1, zst = frame_header({0, false, 0x50, 0, 0, true, 0});
    const bytes b1 = mixed_blocks(c1);
    zst.insert(zst.end(), b1.begin(), b1.end());
    checksum(zst, c1);
    skippable(zst, 0xA, 33);
    bytes c2;
    bytes f2 = frame_header({1, false, 0x48, 0, 0, false, 0});
    const bytes b2 = mixed_blocks(c2);
    f2[6] = static_cast<std::uint8_t>((c2.size() - 256) & 0xFF);
    f2[7] = static_cast<std::uint8_t>((c2.size() - 256) >> 8);
    zst.insert(zst.end(), f2.begin(), f2.end());
    zst.insert(zst.end(), b2.begin(), b2.end());
    bytes expected = c1;
    expected.insert(expected.end(), c2.begin(), c2.end());

    const auto file = fmt::parse_zstd(zst);
    BOOST_TEST_REQUIRE(file.frames.size() == 2u);
    BOOST_TEST(file.skippable_frames.size() == 1u);
    BOOST_TEST(file.frames[1].first_block == 8u);
    const auto extents = fmt::zstd_block_extents(file);
    BOOST_TEST_REQUIRE(extents.size() == 16u);
    const auto batches = cmp::make_block_batches(extents);
    BOOST_TEST_REQUIRE(batches.size() == 1u);
    const auto& batch = batches[0];
    cmp::check_descriptors(batch.blocks, batch.input_bytes, batch.output_bytes);
    for (unsigned threads : {1u, 2u, 0u}) {
        for (bool sabotage : {false, true}) {
            BOOST_TEST_CONTEXT("threads " << threads << ", device failures " << sabotage) {
                bytes staging(file.staging_size, 0xEE);
                std::vector<cmp::block_status> st(batch.blocks.size());
                vyre::reference::zstd_decode_blocks(
                    std::span(zst).subspan(batch.input_base, batch.input_bytes), batch.blocks,
                    std::span(staging).subspan(batch.output_base, batch.output_bytes), st);
                if (sabotage) {  // a raw block the device got wrong, an RLE block reported corrupt
                    st[0].output_size = 3;
                    staging[file.frames[0].blocks[0].output_offset] ^= 0xFF;
                    st[10] = {cmp::zstd_error::corrupt_block, 0};
                }
                const auto r = vyre::engine::decompress_zstd_hybrid_host(zst, file, st, staging, threads);
                BOOST_TEST(r.output_size == expected.size());
                BOOST_TEST((bytes(staging.begin(), staging.begin() + r.output_size) == expected));
                BOOST_TEST(r.stats.frames == 2u);
                BOOST_TEST(r.stats.skippable_frames == 1u);
                BOOST_TEST(r.stats.redone_blocks == (sabotage ? 2u : 0u));
                BOOST_TEST(r.stats.cpu_blocks == (sabotage ? 8u : 6u));
                BOOST_TEST(r.stats.device_blocks + r.stats.cpu_blocks == 16u);
            }
        }
    }
    BOOST_TEST((*libzstd_decompress(zst, 1 << 20) == expected));
}

// Known finding: a 24 KB file of thousands of tiny compressed blocks made the frame layout reserve
// a 128 KiB slot per block (a gigabyte) before the first block was decoded. Such a layout is not
// allocated: the file decodes into memory that grows with its output (zstd_decode_growing). Each
// decode runs in a child capped 256 MiB above this process, where the old allocation fails.
BOOST_AUTO_TEST_CASE(tiny_compressed_blocks_allocate_what_they_decode) {
    namespace ve = vyre::engine;
    constexpr std::size_t n = 8000;
    const bytes empty = vyre::test::frame_of_compressed_blocks(vyre::test::empty_compressed_block, n);
    const bytes broken = vyre::test::frame_of_compressed_blocks(vyre::test::broken_compressed_block, n);
    const bytes bomb = vyre::test::frame_of_compressed_blocks(vyre::test::rle_128k_compressed_block, n);
    const bytes real = vyre::test::frame_of_compressed_blocks(vyre::test::rle_128k_compressed_block, 600); // 75 MiB
    for (const bytes* z : {&empty, &broken, &bomb}) {
        const auto f = fmt::parse_zstd(*z);
        BOOST_TEST(f.staging_size == std::uint64_t{n} * cmp::zstd_max_block_bytes); // what the layout asks for
        BOOST_TEST(ve::zstd_layout_unproven(f, z->size()));
    }
    BOOST_TEST(ve::zstd_layout_unproven(fmt::parse_zstd(real), real.size()));
    BOOST_TEST(libzstd_decompress(empty, 1).has_value());
    BOOST_TEST(!libzstd_decompress(broken, 1 << 20).has_value());
    const auto st = vyre::test::exit_status_with_address_space_headroom(std::uint64_t{256} << 20, [&] {
        if (!ve::decompress_zstd_host(empty).output.empty()) return 2;
        try {
            (void)ve::decompress_zstd_host(broken);
            return 3;
        } catch (const vyre::format_error& e) {
            if (std::string(e.what()).find("zstd: frame at byte offset 0: ") != 0) return 4;
        }
        fmt::zstd_parse_options eight_mib;
        eight_mib.max_output_size = 8u << 20;
        try {
            (void)ve::decompress_zstd_host(bomb, eight_mib);
            return 5;
        } catch (const vyre::resource_error& e) {
            if (std::string(e.what()).find("passes max_output_size 8388608") == std::string::npos) return 6;
        }
        // Growing is only the allocation: 600 true 128 KiB blocks still decode whole.
        const auto out = ve::decompress_zstd_host(real).output;
        if (out.size() != std::size_t{600} * cmp::zstd_max_block_bytes) return 7;
        return std::all_of(out.begin(), out.end(), [](std::uint8_t b) { return b == 'v'; }) ? 0 : 8;
    });
    // 70: bad_alloc (the layout was allocated); 2-8: the wrong outcome, in the order above.
    if (st) BOOST_TEST(*st == 0);
    else BOOST_TEST_MESSAGE("under AddressSanitizer: the address-space cap is not tested");
    // The layout stays for files it fits: the same blocks, few enough, are laid out as before.
    const bytes few = vyre::test::frame_of_compressed_blocks(vyre::test::rle_128k_compressed_block, 8);
    BOOST_TEST(!ve::zstd_layout_unproven(fmt::parse_zstd(few), few.size()));
    BOOST_TEST(ve::decompress_zstd_host(few).output.size() == 8u * cmp::zstd_max_block_bytes);
}

// Millions of tiny blocks or frames: the parse's records (48 bytes a block, more a frame) would be
// 16 times a file of empty blocks, so past a budget it throws zstd_table_error and the file is
// streamed through libzstd, whose memory follows the output.
BOOST_AUTO_TEST_CASE(millions_of_tiny_blocks_are_streamed_not_listed) {
    namespace ve = vyre::engine;
    using vyre::test::frame_of_empty_raw_blocks;
    // The budget, exactly: a frame of 1,000 empty blocks needs its frame record and 1,001 block
    // records (the last holds "x").
    const bytes small = frame_of_empty_raw_blocks(1000, "x");
    const std::uint64_t needs = fmt::zstd_table_bytes(1, 1001);
    fmt::zstd_parse_options o;
    o.max_table_bytes = needs;
    BOOST_TEST(fmt::parse_zstd(small, o).block_count == 1001u);
    o.max_table_bytes = needs - 1;
    try {
        (void)fmt::parse_zstd(small, o);
        BOOST_ERROR("a parse past max_table_bytes did not throw");
    } catch (const fmt::zstd_table_error& e) {
        BOOST_TEST(std::string(e.what()).find("past " + std::to_string(needs - 1) + " bytes") != std::string::npos, e.what());
    }
    // Every format's budget error is a record_budget_error, and the budget is the shared one.
    BOOST_CHECK_THROW((void)fmt::parse_zstd(small, o), fmt::record_budget_error);
    BOOST_TEST(fmt::record_budget(1000) == fmt::record_budget_base + 1000);
    BOOST_TEST(fmt::record_budget(~std::uint64_t{0} - 5) == ~std::uint64_t{0});
    // Past the budget the file is streamed, and its first buffer is what its blocks can hold (one
    // byte here), not four bytes per input byte or 64 KiB.
    {
        const auto r = ve::decompress_zstd_host(small, o);
        BOOST_TEST((r.output == bytes{'x'}));
        BOOST_TEST(r.output.capacity() < 1024u, "capacity " << r.output.capacity());
        fmt::zstd_check_cursor walk(small);
        walk.advance(small.size());
        BOOST_TEST(walk.output_bound() == 1u);
    }
    // The streamed decoder admits the windows the parse admits, up to what its output limit can
    // hold: a frame declaring a 256 MiB window (no content size) and holding three bytes decodes
    // streamed as it does listed (libzstd's default limit of 128 MiB refused it).
    BOOST_TEST(ve::detail::zstd_stream_window_log(1) == 27);
    BOOST_TEST(ve::detail::zstd_stream_window_log((std::uint64_t{1} << 27) + 1) == 28);
    BOOST_TEST(ve::detail::zstd_stream_window_log(std::uint64_t{1} << 30) == 30);
    BOOST_TEST(ve::detail::zstd_stream_window_log(std::uint64_t{1} << 40) == 31);
    {
        bytes wide = frame_of_empty_raw_blocks(0, "abc");
        wide[5] = 18 << 3; // Window_Descriptor: exponent 18, 2^(10 + 18) bytes
        BOOST_TEST(fmt::parse_zstd(wide).frames.at(0).window_size == std::uint64_t{1} << 28);
        BOOST_TEST((ve::decompress_zstd_host(wide).output == bytes{'a', 'b', 'c'}));
        fmt::zstd_parse_options streamed;
        streamed.max_table_bytes = 1;
        BOOST_TEST((ve::decompress_zstd_host(wide, streamed).output == bytes{'a', 'b', 'c'}));
    }
    // Frames count too, on one thread and walked ahead on several (every segment's walk bounded).
    const bytes frames = vyre::test::empty_frames(5000);
    o.max_table_bytes = fmt::zstd_table_bytes(5000, 5000);
    BOOST_TEST(fmt::parse_zstd(frames, o).frames.size() == 5000u);
    const auto table_error_of = [](const auto& parse) -> std::string {
        try {
            parse();
        } catch (const fmt::zstd_table_error& e) {
            return e.what();
        }
        return "no zstd_table_error";
    };
    fmt::zstd_parse_options short_by_one = o;
    short_by_one.max_table_bytes -= 1;
    BOOST_TEST(table_error_of([&] { (void)fmt::parse_zstd(frames, short_by_one); })
                   .find("zstd: the block at byte offset " + std::to_string(frames.size() - 3)) == 0u);
    // Walked ahead, the frame that passes the budget fails where one walk fails: frames of 300
    // bytes, whose records fit in each segment's walk ahead, up to the last one.
    bytes longer;
    for (int i = 0; i < 500; ++i) {
        const bytes f = frame_of_empty_raw_blocks(0, std::string(300, 'x'));
        longer.insert(longer.end(), f.begin(), f.end());
    }
    o.max_table_bytes = fmt::zstd_table_bytes(500, 500);
    short_by_one.max_table_bytes = o.max_table_bytes - 1;
    const std::string one_walk = table_error_of([&] { (void)fmt::parse_zstd(longer, short_by_one); });
    BOOST_TEST(one_walk.find("zstd: the block at byte offset " + std::to_string(longer.size() - 303)) == 0u, one_walk);
    for (const std::uint64_t segment : {64u, 4096u}) {
        BOOST_TEST_CONTEXT("segments of " << segment << " bytes") {
            BOOST_TEST(fmt::detail::zstd_parse_in_segments(longer, o, 2, segment).frames.size() == 500u);
            BOOST_TEST(table_error_of([&] { (void)fmt::detail::zstd_parse_in_segments(longer, short_by_one, 2, segment); }) == one_walk);
        }
    }
    // The default budget: 4 million empty blocks (12 MB) and 2 million empty frames (18 MB), each
    // far past it, decode to what libzstd gives within 128 MiB of headroom; listing every block
    // took about 300 MB.
    const bytes blocks = frame_of_empty_raw_blocks(4'000'000, "tail");
    const bytes many_frames = vyre::test::empty_frames(2'000'000);
    BOOST_CHECK_THROW((void)fmt::parse_zstd(blocks), fmt::zstd_table_error);
    const bytes tail = {'t', 'a', 'i', 'l'};
    BOOST_TEST((libzstd_decompress(blocks, 16).value() == tail));
    const auto st = vyre::test::exit_status_with_address_space_headroom(std::uint64_t{128} << 20, [&] {
        const auto r = ve::decompress_zstd_host(blocks);
        if (r.output != tail) return 2;
        if (r.stats.frames != 1 || r.stats.cpu_blocks != 4'000'001) return 3;
        const auto f = ve::decompress_zstd_host(many_frames);
        if (!f.output.empty() || f.stats.frames != 2'000'000) return 4;
        return 0;
    });
    // 70: bad_alloc (the blocks were listed); 2-4: the wrong outcome, in the order above.
    if (st) BOOST_TEST(*st == 0);
    else BOOST_TEST_MESSAGE("under AddressSanitizer: the address-space cap is not tested");
    // A truncated one is refused in libzstd's words, not listed either.
    BOOST_CHECK_THROW((void)ve::decompress_zstd_host(std::span(blocks).first(blocks.size() - 2)), vyre::format_error);
}

BOOST_AUTO_TEST_CASE(hand_frames_corrupt) {
    bytes content, good = frame_header({0, false, 0x50, 0, 0, true, 0});
    const std::size_t header = good.size();  // 6
    raw_block(good, content, pattern(100, 11));
    rle_block(good, content, 5, 1000, true);
    const std::size_t sum_at = good.size();
    checksum(good, content);
    check_round_trip(good, content);

    auto with = [&](std::size_t at, std::uint8_t v) {
        bytes z = good;
        z[at] = v;
        return z;
    };
    BOOST_TEST(error_offset(with(0, 0x29)) == 0u);                           // bad magic
    BOOST_TEST(error_offset(with(4, good[4] | 0x08)) == 4u);                 // reserved bit
    BOOST_TEST(error_offset(with(5, 0xF8)) == 5u);                           // window log 41
    BOOST_TEST(error_offset(with(header, 0x20 | 0x06)) == header);           // reserved type
    BOOST_TEST(error_offset(with(sum_at + 1, good[sum_at + 1] ^ 1)) == sum_at);  // checksum
    bytes cd, dict = frame_header({0, false, 0x50, 1, 7, true, 0});
    rle_block(dict, cd, 5, 10, true);
    checksum(dict, cd);
    BOOST_TEST(fmt::parse_zstd(dict).frames.at(0).dictionary_id == 7u);
    BOOST_TEST(error_offset(dict) == 4u);  // needs a dictionary

    // RLE block above the block maximum (1 KiB window), and above the declared content size.
    bytes c, z = frame_header({0, false, 0x00, 0, 0, false, 0});
    rle_block(z, c, 1, 1025, true);
    BOOST_TEST(error_offset(z) == 6u);
    c.clear();
    z = frame_header({1, false, 0x50, 0, 0, false, 300});
    rle_block(z, c, 1, 200);
    const std::size_t second = z.size();
    rle_block(z, c, 1, 200, true);
    BOOST_TEST(error_offset(z) == second);
    // Declared size the blocks do not reach; a compressed block that does not decode.
    c.clear();
    z = frame_header({1, false, 0x50, 0, 0, false, 300});
    rle_block(z, c, 1, 200, true);
    BOOST_TEST(error_offset(z) == 0u);
    c.clear();
    z = frame_header({0, false, 0x50, 0, 0, false, 0});
    const std::size_t bad = z.size();
    block_header(z, 2, true, 3);
    z.insert(z.end(), {0xFF, 0xFF, 0xFF});
    // Its literals header (five bytes) is cut short: named where it starts, in the device walk's words.
    BOOST_TEST(error_offset(z) == bad + 3);

    // Every strict prefix is truncated somewhere; so is trailing garbage and a cut skippable frame.
    for (std::size_t len = 1; len < good.size(); ++len)
        BOOST_TEST_CONTEXT("prefix " << len) {
            BOOST_CHECK_THROW(vyre::engine::decompress_zstd_host(std::span(good).first(len)), vyre::format_error);
            BOOST_CHECK_THROW(decode_with_frame_api(std::span(good).first(len)), vyre::format_error);
        }
    for (std::size_t extra = 1; extra < 4; ++extra) {
        bytes g = good;
        g.insert(g.end(), extra, 0x28);
        BOOST_TEST(error_offset(g) == good.size());
    }
    bytes s = good;
    skippable(s, 0, 10);
    s.pop_back();
    BOOST_TEST(error_offset(s) == good.size() + 8);
    BOOST_TEST(vyre::engine::decompress_zstd_host(bytes{}).output.empty());
}

// ---------------------------------------------------------------- the parse on several threads

namespace {

// Everything parse_zstd says about a file, as one string: two parses agree when these do.
std::string describe(const fmt::zstd_file& file) {
    std::ostringstream out;
    out << file.frames.size() << " frames, " << file.skippable_frames.size() << " skippable, " << file.block_count << " blocks, staging "
        << file.staging_size << "\n";
    for (const auto& f : file.frames) {
        out << f.offset << ' ' << f.size << ' ' << f.window_size << ' ' << f.block_maximum_size << ' ' << f.content_size.value_or(~0ull) << ' '
            << f.checksum.value_or(0) << ' ' << f.checksum_offset << ' ' << f.first_block << ' ' << f.output_offset << ' '
            << f.output_capacity << ' ' << f.exact_layout << ':';
        for (const auto& b : f.blocks)
            out << ' ' << static_cast<int>(b.type) << '/' << b.last << '/' << b.header_offset << '/' << b.block_size << '/' << b.content_size
                << '/' << b.regenerated_size.value_or(~0u) << '/' << b.output_offset << '/' << b.output_capacity;
        out << '\n';
    }
    for (const auto& k : file.skippable_frames) out << "skip " << k.offset << ' ' << k.magic << ' ' << k.data_size << '\n';
    return out.str();
}

// parse_zstd's result, or what it threw (type, message, offset).
std::string parse_outcome(std::span<const std::uint8_t> z, unsigned threads, std::uint64_t max_output = std::uint64_t{1} << 40) {
    fmt::zstd_parse_options o;
    o.max_output_size = max_output;
    o.threads = threads;
    try {
        return describe(fmt::parse_zstd(z, o));
    } catch (const vyre::format_error& e) {
        return std::string("format_error at ") + std::to_string(e.offset()) + ": " + e.what();
    } catch (const vyre::resource_error& e) {
        return std::string("resource_error: ") + e.what();
    }
}

} // namespace

// Several MiB of frames (raw and RLE blocks, some frames without checksums or sizes), skippable
// frames between them, and raw content that holds the zstd magic number and whole zstd frames,
// so that the threads' guesses of where frames start are sometimes wrong: the parse on several
// threads must say exactly what one walk says, on the file and on broken copies of it.
BOOST_AUTO_TEST_CASE(parse_on_threads_equals_one_walk) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        std::mt19937_64 rng(seed);
        bytes z;
        const bytes nested = [&] {
            bytes c, f = frame_header({0, false, 0x50, 0, 0, true, 0});
            raw_block(f, c, pattern(300, 9));
            rle_block(f, c, 7, 900, true);
            checksum(f, c);
            return f;
        }();
        while (z.size() < (std::size_t{6} << 20)) {
            bytes content, f = frame_header({rng() % 2 ? 3u : 0u, false, 0x50, 0, 0, rng() % 3 != 0, 0});
            const unsigned blocks = 1 + static_cast<unsigned>(rng() % 4);
            for (unsigned b = 0; b < blocks; ++b) {
                const bool last = b + 1 == blocks;
                if (rng() % 5 == 0) {
                    rle_block(f, content, static_cast<std::uint8_t>(rng()), static_cast<std::uint32_t>(rng() % 60000), last);
                    continue;
                }
                bytes data = pattern(1000 + rng() % 40000, rng());
                // The magic number and a whole frame inside raw content: false frame starts.
                if (rng() % 3 == 0) {
                    const std::size_t at = rng() % (data.size() - 4);
                    data[at] = 0x28, data[at + 1] = 0xB5, data[at + 2] = 0x2F, data[at + 3] = 0xFD;
                }
                if (rng() % 4 == 0) data.insert(data.begin() + static_cast<std::ptrdiff_t>(rng() % data.size()), nested.begin(), nested.end());
                raw_block(f, content, data, last);
            }
            if (f[4] & 0xC0)
                for (unsigned i = 0; i < 8; ++i) f[6 + i] = static_cast<std::uint8_t>(content.size() >> (8 * i));
            if (f[4] & 4) checksum(f, content);
            z.insert(z.end(), f.begin(), f.end());
            if (rng() % 8 == 0) skippable(z, static_cast<unsigned>(rng() % 16), static_cast<std::uint32_t>(rng() % 3000));
            if (rng() % 40 == 0) z.insert(z.end(), nested.begin(), nested.end());
        }
        const std::string one = parse_outcome(z, 1);
        BOOST_TEST_REQUIRE(one.rfind("format_error", 0) == std::string::npos);
        BOOST_TEST_MESSAGE("parse on threads: " << one.substr(0, one.find('\n')));
        for (const unsigned threads : {2u, 4u, 16u, 0u}) BOOST_TEST_CONTEXT("threads " << threads) BOOST_TEST(parse_outcome(z, threads) == one);
        // A staging limit passed in the middle of the file.
        const auto parsed = fmt::parse_zstd(z);
        const std::uint64_t limit = parsed.staging_size / 2;
        BOOST_TEST(parse_outcome(z, 4, limit) == parse_outcome(z, 1, limit));
        BOOST_TEST(parse_outcome(z, 4, limit).rfind("resource_error", 0) == 0u);
        // Broken copies: bytes changed at random places, the file cut short, garbage after it.
        for (int round = 0; round < 24; ++round) {
            bytes bad = z;
            const std::size_t at = rng() % bad.size();
            if (round % 3 == 0) bad.resize(at);
            else if (round % 3 == 1) bad[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
            else for (std::size_t i = 0; i < 16; ++i) bad[(at + i * 4099) % bad.size()] = static_cast<std::uint8_t>(rng());
            BOOST_TEST_CONTEXT("round " << round << " at " << at) BOOST_TEST(parse_outcome(bad, 4) == parse_outcome(bad, 1));
        }
        bytes tail = z;
        tail.insert(tail.end(), {0x28, 0xB5, 0x2F});
        BOOST_TEST(parse_outcome(tail, 4) == parse_outcome(tail, 1));
        // Small files stay on one walk; an empty file has no frames.
        BOOST_TEST(parse_outcome(bytes{}, 4) == parse_outcome(bytes{}, 1));
        BOOST_TEST(parse_outcome(nested, 4) == parse_outcome(nested, 1));
    }
}

// ---------------------------------------------------------------- files written by zstd and pzstd

BOOST_AUTO_TEST_CASE(cli_frames_round_trip) {
    if (!have_tool("zstd")) {
        BOOST_TEST_MESSAGE("the zstd command line tool is absent: frames from it are not tested (CI installs it)");
        return;
    }
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        vyre::test::temp_dir dir("vyre_format_zstd_", false);
        const bytes corpus = make_corpus(400000, seed);
        const fs::path in = dir.path / "corpus";
        write_file(in, corpus);
        const std::vector<std::string> options = {
            "-1", "-3", "-19", "--ultra -22", "--long -3", "-T0 -3", "--no-check -3", "--no-content-size -3",
            "--target-compressed-block-size=1500 -5", "-T2 -B1M -3",
        };
        std::uint64_t raw_or_rle = 0;
        for (const auto& o : options) {
            BOOST_TEST_CONTEXT("zstd " << o) {
                const bytes zst = run_tool("zstd", o, in, dir.path / "out.zst");
                const auto r = check_round_trip(zst, corpus);
                const auto file = fmt::parse_zstd(zst);
                BOOST_TEST(r.stats.device_blocks + r.stats.cpu_blocks == file.block_count);
                BOOST_TEST(r.stats.cpu_blocks > 0u);
                BOOST_TEST(r.stats.device_bytes + r.stats.cpu_bytes == corpus.size());
                raw_or_rle += r.stats.device_blocks;
                BOOST_TEST_MESSAGE("zstd " << o << ": " << file.frames.size() << " frame(s), " << file.block_count
                                           << " blocks; device " << r.stats.device_blocks << " blocks / "
                                           << r.stats.device_bytes << " bytes, CPU " << r.stats.cpu_blocks
                                           << " blocks / " << r.stats.cpu_bytes << " bytes; staging "
                                           << file.staging_size);
            }
        }
        BOOST_TEST(raw_or_rle > 0u);  // the corpus makes the CLI emit raw and RLE blocks
    }
}

BOOST_AUTO_TEST_CASE(cli_multi_frame_files) {
    if (!have_tool("zstd")) {
        BOOST_TEST_MESSAGE("the zstd command line tool is absent: this case is not run (CI installs it)");
        return;
    }
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        vyre::test::temp_dir dir("vyre_format_zstd_", false);
        const bytes corpus = make_corpus(200000, seed);
        const bytes half(corpus.begin(), corpus.begin() + static_cast<std::ptrdiff_t>(corpus.size() / 2));
        write_file(dir.path / "a", corpus);
        write_file(dir.path / "b", half);
        const bytes za = run_tool("zstd", "-3", dir.path / "a", dir.path / "a.zst");
        const bytes zb = run_tool("zstd", "-19 --no-check --no-content-size", dir.path / "b", dir.path / "b.zst");
        bytes zst;
        skippable(zst, 0, 0);
        zst.insert(zst.end(), za.begin(), za.end());
        skippable(zst, 0xF, 100);
        zst.insert(zst.end(), zb.begin(), zb.end());
        zst.insert(zst.end(), za.begin(), za.end());
        bytes expected = corpus;
        expected.insert(expected.end(), half.begin(), half.end());
        expected.insert(expected.end(), corpus.begin(), corpus.end());
        const auto one = check_round_trip(zst, expected, 1);
        const auto all = check_round_trip(zst, expected, 0);
        BOOST_TEST(one.stats.frames == 3u);
        BOOST_TEST(one.stats.skippable_frames == 2u);
        BOOST_TEST(all.stats.cpu_bytes == one.stats.cpu_bytes);

        if (!have_tool("pzstd")) {
            BOOST_TEST_MESSAGE("pzstd not installed: skipping its files");
        } else {
            const bytes big = make_corpus(2000000, seed);
            write_file(dir.path / "big", big);
            const bytes zp = run_tool("pzstd", "-p 2 -1", dir.path / "big", dir.path / "big.zst");
            const auto r = check_round_trip(zp, big);
            const auto file = fmt::parse_zstd(zp);
            BOOST_TEST_MESSAGE("pzstd: " << file.frames.size() << " frames, " << file.skippable_frames.size()
                                         << " skippable frames");
            BOOST_TEST(file.frames.size() > 1u);
            BOOST_TEST(r.stats.frames == file.frames.size());
        }
    }
}

BOOST_AUTO_TEST_CASE(cli_corrupt_headers_and_checksums) {
    if (!have_tool("zstd")) {
        BOOST_TEST_MESSAGE("the zstd command line tool is absent: this case is not run (CI installs it)");
        return;
    }
    vyre::test::temp_dir dir("vyre_format_zstd_", false);
    const bytes corpus = make_corpus(100000, 1);
    write_file(dir.path / "c", corpus);
    const bytes good = run_tool("zstd", "-3", dir.path / "c", dir.path / "c.zst");
    const auto file = fmt::parse_zstd(good);
    BOOST_TEST_REQUIRE(file.frames.size() == 1u);
    const auto& f = file.frames[0];
    BOOST_TEST_REQUIRE(f.checksum.has_value());
    bytes z = good;
    z[f.checksum_offset] ^= 0x10;
    BOOST_TEST(error_offset(z) == f.checksum_offset);
    z = good;
    z[4] |= 0x08;
    BOOST_TEST(error_offset(z) == 4u);
    // A byte of compressed content changed: the block fails to decode or the checksum catches it.
    for (const auto& b : f.blocks) {
        if (b.type != fmt::zstd_block_type::compressed) continue;
        z = good;
        z[b.content_offset() + b.content_size / 2] ^= 0x5A;
        const auto at = error_offset(z);
        BOOST_TEST((at == f.offset || at == f.checksum_offset ||
                    (at >= f.blocks.front().header_offset && at < f.checksum_offset)));
    }
}

// ---------------------------------------------------------------- mutations

BOOST_AUTO_TEST_CASE(mutated_frames_agree_with_libzstd) {
    if (!have_tool("zstd")) {
        BOOST_TEST_MESSAGE("the zstd command line tool is absent: this case is not run (CI installs it)");
        return;
    }
    const std::uint64_t seed = vyre::test::test_seed();
    vyre::test::temp_dir dir("vyre_format_zstd_", false);
    std::vector<bytes> bases;
    {
        const bytes corpus = make_corpus(24000, seed);  // ~ 24 KB text, noise, 440 KB of runs
        write_file(dir.path / "m", corpus);
        bases.push_back(run_tool("zstd", "-3", dir.path / "m", dir.path / "m1.zst"));
        bases.push_back(run_tool("zstd", "-19 --no-check --no-content-size", dir.path / "m", dir.path / "m2.zst"));
        bases.push_back(run_tool("zstd", "--no-check --target-compressed-block-size=1500 -3", dir.path / "m",
                                 dir.path / "m3.zst"));
        bytes c, hand = frame_header({0, false, 0x50, 0, 0, false, 0});
        const bytes b = mixed_blocks(c);
        hand.insert(hand.end(), b.begin(), b.end());
        skippable(hand, 3, 5);
        bases.push_back(hand);
    }
    constexpr std::size_t limit = 8u << 20;
    fmt::zstd_parse_options options;
    options.max_output_size = limit;
    std::mt19937_64 rng(seed);
    std::size_t accepted = 0, rejected = 0, stricter = 0, frame_api_lenient = 0;
    for (int i = 0; i < 1200; ++i) {
        const bytes& base = bases[i % bases.size()];
        bytes z = base;
        const unsigned kind = rng() % 4;
        if (kind == 0) {
            z.resize(rng() % z.size());
        } else if (kind == 1) {
            for (unsigned k = 0, n = 1 + rng() % 3; k < n; ++k) z[rng() % z.size()] ^= std::uint8_t(1u << (rng() % 8));
        } else if (kind == 2) {
            z[rng() % std::min<std::size_t>(z.size(), 24)] = static_cast<std::uint8_t>(rng());  // headers
        } else {
            z[rng() % z.size()] = static_cast<std::uint8_t>(rng());
        }
        BOOST_TEST_CONTEXT("seed " << seed << ", mutation " << i << " (kind " << kind << ")") {
            std::optional<bytes> ours;
            std::string why;
            try {
                ours = vyre::engine::decompress_zstd_host(z, options).output;
            } catch (const vyre::format_error& e) {
                why = e.what();
            }
            const auto lib = libzstd_decompress(z, limit);
            // The frame API path: what libzstd says, frame by frame, after the same parse.
            std::optional<bytes> frames;
            std::string frames_why;
            try {
                frames = decode_with_frame_api(z, options);
            } catch (const vyre::format_error& e) {
                frames_why = e.what();
            }
            if (frames) {
                BOOST_TEST_REQUIRE(lib.has_value());
                BOOST_TEST((*frames == *lib));
                if (!ours) {
                    ++frame_api_lenient;
                    BOOST_TEST_INFO("the frame API decodes what the block path refuses: " << why);
                    BOOST_TEST(why.find("block maximum") != std::string::npos);
                }
            } else {
                BOOST_TEST(!ours.has_value());
                BOOST_TEST(frames_why == why); // the same message, the same offset
            }
            if (ours) {
                ++accepted;
                BOOST_TEST_REQUIRE(lib.has_value());
                BOOST_TEST_REQUIRE((*ours == *lib));
            } else {
                ++rejected;
                if (lib) {  // allowed only where RFC 8878 is stricter than libzstd 1.5's one-shot decoder
                    ++stricter;
                    BOOST_TEST_INFO("libzstd accepts what we reject: " << why);
                    BOOST_TEST(why.find("block maximum") != std::string::npos);
                }
            }
        }
    }
    BOOST_TEST_MESSAGE("mutations: " << accepted << " decoded as libzstd does, " << rejected << " rejected ("
                                     << stricter << " of them accepted by libzstd, " << frame_api_lenient
                                     << " by the frame API path)");
    BOOST_TEST(accepted > 0u);
    BOOST_TEST(rejected > 0u);
}

VYRE_TEST_MAIN

// A count of zero sequences written in two bytes (0x80 0x00), valid and refused by libzstd 1.5.4,
// rewritten in one byte: the block one byte shorter, its header saying so, everything else as it
// was; libzstd reads the rewritten frame. A block that does not end so is the caller's error.
BOOST_AUTO_TEST_CASE(zero_sequences_in_two_bytes_rewritten_in_one) {
    const bytes text = {'H', 'e', 'l', 'l', 'o', ' ', 'W', 'o', 'r', 'l', 'd', '!', '\n'};
    // A frame without content size or checksum; one last compressed block of 16 bytes: raw
    // literals (header 13 << 3), the text, and zero sequences in two bytes.
    bytes frame = {0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00, 0x85, 0x00, 0x00, 13 << 3};
    frame.insert(frame.end(), text.begin(), text.end());
    frame.push_back(0x80);
    frame.push_back(0x00);
    bytes file = frame;
    file.insert(file.end(), frame.begin(), frame.end()); // two such frames
    const fmt::zstd_file parsed = fmt::parse_zstd(file);
    BOOST_REQUIRE(parsed.frames.size() == 2u);
    for (const auto& f : parsed.frames) {
        BOOST_TEST(fmt::check_zstd_frame(file, f).zero_sequences_in_two_bytes);
        const bytes rewritten = fmt::zstd_frame_in_one_byte_counts(file, f);
        bytes want(frame.begin(), frame.end() - 1);
        want[6] = 0x7D; // (15 << 3) | (compressed << 1) | last
        want.back() = 0x00;
        BOOST_TEST((rewritten == want));
        bytes out(64);
        const bool refused = ZSTD_isError(ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size()));
        BOOST_TEST((refused || ZSTD_versionNumber() > 10504)); // refused by 1.5.4; later versions read it as it is
        const std::size_t n = ZSTD_decompress(out.data(), out.size(), rewritten.data(), rewritten.size());
        BOOST_REQUIRE(!ZSTD_isError(n));
        BOOST_TEST((bytes(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n)) == text));
        const bytes block = fmt::zstd_block_in_one_byte_counts(file, f.blocks[0]);
        BOOST_TEST((block == bytes(want.begin() + 6, want.end())));
    }
    // A block counting one sequence: not one to rewrite.
    bytes one = frame;
    one[one.size() - 2] = 0x01;
    one.pop_back();
    one[6] = 0x7D;
    const fmt::zstd_file other = fmt::parse_zstd(one);
    BOOST_CHECK_THROW(fmt::zstd_block_in_one_byte_counts(one, other.frames[0].blocks[0]), std::invalid_argument);
}
