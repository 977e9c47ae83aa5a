// One DEFLATE stream inflated in pieces (format/deflate_split.hpp, ops/compression/deflate_split.hpp):
// the split points the host finds are block starts (zlib's own trace says where blocks start), and
// on every device the pieces give the stream's bytes: on streams of zlib and libdeflate at several
// levels, with guesses that are no block starts mixed in (more rounds, the same bytes), with
// pieces whose output outgrows their first region, and on corrupt streams (an error exactly where
// the CPU reference finds one, never a crash).
#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/format/deflate_split.hpp>
#include <vyre/ops/compression/deflate_split.hpp>
#include <vyre/reference/deflate.hpp>
#include <vyre/runtime/buffer.hpp>

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

namespace cz = vyre::ops::compression;
namespace de = vyre::compression::deflate_error;
using bytes = std::vector<std::uint8_t>;

bytes zlib_raw(const bytes& data, int level, int strategy = Z_DEFAULT_STRATEGY) {
    z_stream s{};
    BOOST_TEST_REQUIRE(deflateInit2(&s, level, Z_DEFLATED, -15, 8, strategy) == Z_OK);
    bytes out(deflateBound(&s, static_cast<uLong>(data.size())) + 16);
    s.next_in = const_cast<Bytef*>(data.data());
    s.avail_in = static_cast<uInt>(data.size());
    s.next_out = out.data();
    s.avail_out = static_cast<uInt>(out.size());
    BOOST_TEST_REQUIRE(deflate(&s, Z_FINISH) == Z_STREAM_END);
    out.resize(s.total_out);
    deflateEnd(&s);
    return out;
}

bytes libdeflate_raw(const bytes& data, int level) {
    libdeflate_compressor* c = libdeflate_alloc_compressor(level);
    BOOST_TEST_REQUIRE(c != nullptr);
    bytes out(libdeflate_deflate_compress_bound(c, data.size()));
    out.resize(libdeflate_deflate_compress(c, data.data(), data.size(), out.data(), out.size()));
    libdeflate_free_compressor(c);
    return out;
}

// Where zlib's inflate says blocks start (bits; the first is 0).
std::vector<std::uint64_t> zlib_block_starts(const bytes& stream, std::size_t size) {
    std::vector<std::uint64_t> starts{0};
    z_stream z{};
    BOOST_TEST_REQUIRE(inflateInit2(&z, -15) == Z_OK);
    bytes out(size + 1);
    z.next_in = const_cast<Bytef*>(stream.data());
    z.avail_in = static_cast<uInt>(stream.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    for (;;) {
        const int r = inflate(&z, Z_BLOCK);
        if (r != Z_OK) break;
        // At a block boundary, not after the last block: the next block starts here.
        if ((z.data_type & 128) != 0 && (z.data_type & 64) == 0)
            starts.push_back(std::uint64_t{z.total_in} * 8 - static_cast<std::uint64_t>(z.data_type & 7));
    }
    inflateEnd(&z);
    return starts;
}

struct stream_case {
    std::string name;
    bytes data, stream;
    bool dynamic = true; // written with dynamic-Huffman blocks (split points expected)
};

// Streams of about `n` bytes of mixed text, code and noise, several writers.
std::vector<stream_case> streams(std::size_t n) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x5b117);
    const bytes corpus = vyre::test::system_corpus(n);
    std::vector<stream_case> out;
    for (const int level : {1, 6, 9}) out.push_back({"zlib level " + std::to_string(level), corpus, zlib_raw(corpus, level)});
    for (const int level : {1, 6, 12}) out.push_back({"libdeflate level " + std::to_string(level), corpus, libdeflate_raw(corpus, level)});
    out.push_back({"zlib, fixed codes only", corpus, zlib_raw(corpus, 6, Z_FIXED), false});
    const bytes noise = vyre::test::random_bytes(rng, n / 4);
    out.push_back({"zlib, random bytes (stored blocks)", noise, zlib_raw(noise, 6), false});
    // A run of zeros (a ratio near 1000) then text: the first pieces' output far above their share.
    bytes uneven(n, 0);
    uneven.insert(uneven.end(), corpus.begin(), corpus.begin() + static_cast<std::ptrdiff_t>(std::min(corpus.size(), n / 2)));
    out.push_back({"zlib, zeros then text", uneven, zlib_raw(uneven, 6)});
    return out;
}

constexpr std::uint64_t piece_bytes = 8192;

BOOST_AUTO_TEST_CASE(split_points_are_block_starts) {
    for (const stream_case& c : streams(600000)) {
        BOOST_TEST_CONTEXT(c.name) {
            const auto truth = zlib_block_starts(c.stream, c.data.size());
            const auto points = vyre::format::deflate_split_points(c.stream, piece_bytes, 2);
            BOOST_TEST_REQUIRE(!points.empty());
            BOOST_TEST(points.front() == 0u);
            BOOST_TEST(std::is_sorted(points.begin(), points.end()));
            for (const std::uint64_t p : points) BOOST_TEST(std::binary_search(truth.begin(), truth.end(), p), "bit " << p);
            if (c.dynamic) BOOST_TEST(points.size() > 2u);
            else BOOST_TEST(points.size() == 1u);
        }
    }
    // Nothing to find in nothing, or in a stream shorter than a piece.
    BOOST_TEST(vyre::format::deflate_split_points({}, piece_bytes).size() == 1u);
    BOOST_TEST(!vyre::format::find_deflate_block({}, 0, 1000).has_value());
}

// Inflates c.stream in pieces starting at `points` and checks the bytes against c.data.
cz::deflate_split_result inflate_and_check(vyre::runtime::context& ctx, const stream_case& c, const std::vector<std::uint64_t>& points) {
    auto output = vyre::runtime::allocate(ctx, (c.data.size() + 3) / 4 * 4 + 4);
    const cz::deflate_split_result r = cz::inflate_split(ctx, c.stream, points, c.data.size(), output);
    BOOST_TEST(r.status.code == de::none);
    BOOST_TEST(r.status.output_size == c.data.size());
    if (r.status.code == de::none && r.status.output_size == c.data.size()) {
        bytes back(c.data.size());
        vyre::runtime::read(ctx, output, back.data(), back.size());
        BOOST_TEST((back == c.data), "the pieces' bytes differ from the stream's");
    }
    return r;
}

VYRE_DEVICE_TEST(pieces_give_the_stream) {
    for (const stream_case& c : streams(600000)) {
        BOOST_TEST_CONTEXT(c.name) {
            const auto points = vyre::format::deflate_split_points(c.stream, piece_bytes, 2);
            const auto r = inflate_and_check(dev.ctx(), c, points);
            BOOST_TEST(r.pieces == points.size());
            if (c.name.find("zeros") == std::string::npos) BOOST_TEST(r.rounds == 1u); // every guess was a block start
            // One piece (the stream alone) gives the same.
            inflate_and_check(dev.ctx(), c, {0});
        }
    }
}

VYRE_DEVICE_TEST(guesses_that_are_no_block_starts_cost_rounds_not_bytes) {
    const stream_case c = streams(400000)[1]; // zlib level 6
    const auto truth = zlib_block_starts(c.stream, c.data.size());
    BOOST_TEST_REQUIRE(truth.size() > 2u);
    // Every true start, and beside it bits that start no block (one bit on, half way to the next).
    std::vector<std::uint64_t> points;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        points.push_back(truth[i]);
        const std::uint64_t next = i + 1 < truth.size() ? truth[i + 1] : c.stream.size() * 8;
        points.push_back(truth[i] + 1);
        points.push_back((truth[i] + next) / 2);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    const auto r = inflate_and_check(dev.ctx(), c, points);
    BOOST_TEST(r.rounds > 1u);
    BOOST_TEST(r.pieces == truth.size());
    // Only false guesses after the first: the first piece runs to the end of its block.
    inflate_and_check(dev.ctx(), c, {0, 17, 4000, 4001});
}

VYRE_DEVICE_TEST(random_guesses_among_stored_and_uneven_blocks) {
    // Text, runs of zeros and random bytes (stored blocks) in turn, and split points at random
    // bits beside the finder's: false guesses and regrown pieces in the same rounds.
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x7a11);
    const bytes corpus = vyre::test::system_corpus(300000);
    bytes data;
    for (int part = 0; part < 12; ++part) {
        const std::size_t n = 20000 + rng() % 60000;
        if (part % 3 == 0) data.insert(data.end(), corpus.begin(), corpus.begin() + static_cast<std::ptrdiff_t>(std::min(n, corpus.size())));
        else if (part % 3 == 1) data.insert(data.end(), n * 4, 0);
        else {
            const bytes noise = vyre::test::random_bytes(rng, n);
            data.insert(data.end(), noise.begin(), noise.end());
        }
    }
    for (const int level : {1, 6, 9}) {
        const stream_case c{"mixed, zlib level " + std::to_string(level), data, zlib_raw(data, level)};
        BOOST_TEST_CONTEXT(c.name) {
            for (int trial = 0; trial < 4; ++trial) {
                auto points = vyre::format::deflate_split_points(c.stream, 2048 << trial, 2);
                for (int g = 0; g < 40; ++g) points.push_back(rng() % (c.stream.size() * 8));
                std::sort(points.begin(), points.end());
                points.erase(std::unique(points.begin(), points.end()), points.end());
                const auto r = inflate_and_check(dev.ctx(), c, points);
                BOOST_TEST(r.false_guesses > 0u);
            }
        }
    }
}

VYRE_DEVICE_TEST(pieces_that_outgrow_their_region) {
    const auto all = streams(600000);
    const stream_case& c = all.back(); // zeros then text
    const auto points = vyre::format::deflate_split_points(c.stream, 64, 2);
    BOOST_TEST_REQUIRE(points.size() > 2u);
    const auto r = inflate_and_check(dev.ctx(), c, points);
    BOOST_TEST(r.rounds > 1u);
}

VYRE_DEVICE_TEST(corrupt_streams_fail_where_the_reference_fails) {
    const stream_case c = streams(200000)[4]; // libdeflate level 6: many blocks
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0xc0ab);
    auto output = vyre::runtime::allocate(dev.ctx(), (c.data.size() + 3) / 4 * 4 + 4);
    for (int round = 0; round < 24; ++round) {
        bytes broken = c.stream;
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int f = 0; f < flips; ++f) broken[rng() % broken.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        if (round % 6 == 5) broken.resize(broken.size() * (rng() % 100) / 100);
        bytes expected(c.data.size());
        const auto want = vyre::reference::deflate_inflate(broken, expected).status;
        const bool whole = want.code == de::none && want.output_size == c.data.size();
        const auto points = vyre::format::deflate_split_points(broken, 4096, 2);
        const auto got = cz::inflate_split(dev.ctx(), broken, points, c.data.size(), output);
        BOOST_TEST_CONTEXT("round " << round << ", reference {" << want.code << ", " << want.output_size << "}") {
            if (want.code != de::none) {
                BOOST_TEST(got.status.code != de::none);
            } else if (whole) {
                BOOST_TEST_REQUIRE(got.status.code == de::none);
                BOOST_TEST(got.status.output_size == c.data.size());
                bytes back(c.data.size());
                vyre::runtime::read(dev.ctx(), output, back.data(), back.size());
                BOOST_TEST((back == expected));
            } else {
                BOOST_TEST((got.status.code != de::none || got.status.output_size == want.output_size));
            }
        }
    }
}

} // namespace

VYRE_TEST_MAIN
