// One DEFLATE stream inflated in pieces (ops/compression/deflate_split.hpp) on every device: the
// pieces give the stream's bytes (the split points themselves are checked on the host, under the
// sanitizers too, in test/deflate_gpu.cpp): on streams of zlib and libdeflate at several
// levels, with guesses that are no block starts mixed in (more rounds, the same bytes), with
// pieces whose output outgrows their first region, and on corrupt streams (an error exactly where
// the CPU reference finds one, never a crash).
#include "deflate_writers.hpp"
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

using vyre::test::stream_case;
using vyre::test::zlib_block_starts;
constexpr std::uint64_t piece_bytes = vyre::test::split_piece_bytes;

std::vector<stream_case> streams(std::size_t n) { return vyre::test::split_test_streams(n); }

// Inflates c.stream in pieces starting at `points` and checks the bytes against c.data.
cz::deflate_split_result inflate_and_check(vyre::runtime::context& ctx, const stream_case& c, const std::vector<std::uint64_t>& points,
                                           const cz::deflate_split_options& options = {}) {
    auto output = vyre::runtime::allocate(ctx, (c.data.size() + 3) / 4 * 4 + 4);
    const cz::deflate_split_result r = cz::inflate_split(ctx, c.stream, points, c.data.size(), output, options);
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

// compression.deflate.block_starts against the host's finder: the same points, bit for bit, on
// real streams at several piece sizes, on random bytes (chance headers) and on streams with bits
// flipped, so that both the accepted and the nearly accepted headers are compared.
VYRE_DEVICE_TEST(the_device_finds_the_hosts_split_points) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0xb10c);
    std::vector<stream_case> all = streams(400000);
    const bytes noise = vyre::test::random_bytes(rng, 300000);
    all.push_back({"random bytes as a stream", noise, noise});
    for (int k = 0; k < 3; ++k) {
        bytes broken = all[static_cast<std::size_t>(k) * 2].stream;
        for (int f = 0; f < 64; ++f) broken[rng() % broken.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        all.push_back({all[static_cast<std::size_t>(k) * 2].name + ", 64 bits flipped", {}, broken});
    }
    std::size_t compared = 0;
    for (const stream_case& c : all) {
        auto input = vyre::runtime::allocate(dev.ctx(), vyre::runtime::padded_bytes(c.stream.size()));
        vyre::runtime::write(dev.ctx(), input, c.stream.data(), c.stream.size());
        for (const std::uint64_t piece : {std::uint64_t{1000}, std::uint64_t{4096}, piece_bytes, std::uint64_t{65537}}) {
            BOOST_TEST_CONTEXT(c.name << ", pieces of " << piece << " bytes") {
                const auto host = vyre::format::deflate_split_points(c.stream, piece, 2);
                const auto device = cz::find_deflate_blocks(dev.ctx(), input, c.stream.size(), piece);
                BOOST_TEST(device == host, boost::test_tools::per_element());
                compared += host.size() - 1;
            }
        }
    }
    BOOST_TEST(compared > 100u); // points were found, not only the leading 0s
    // The one-program search, which runs where the candidates would pass the list's capacity,
    // gives the same slots: a capacity of one forces it, two candidates suffice to pass it.
    for (const stream_case& c : all) {
        auto input = vyre::runtime::allocate(dev.ctx(), vyre::runtime::padded_bytes(c.stream.size()));
        vyre::runtime::write(dev.ctx(), input, c.stream.data(), c.stream.size());
        const auto windows = cz::deflate_search_windows(0, c.stream.size(), 4096, c.stream.size());
        BOOST_TEST_CONTEXT(c.name) {
            BOOST_TEST(cz::find_deflate_blocks_at(dev.ctx(), input, windows, 1) == cz::find_deflate_blocks_at(dev.ctx(), input, windows),
                       boost::test_tools::per_element());
        }
    }
    // Windows of a range (how a piece that outgrew its region is cut): the host's finder per window.
    const stream_case& c = all[4]; // libdeflate level 6
    auto input = vyre::runtime::allocate(dev.ctx(), vyre::runtime::padded_bytes(c.stream.size()));
    vyre::runtime::write(dev.ctx(), input, c.stream.data(), c.stream.size());
    for (int trial = 0; trial < 8; ++trial) {
        const std::uint64_t first = rng() % c.stream.size(), end = first + rng() % (c.stream.size() - first + 1);
        const std::uint64_t window = 1 + rng() % 3000;
        std::vector<std::uint64_t> host;
        for (std::uint64_t at = first; at < end; at += window)
            if (const auto b = vyre::format::find_deflate_block(c.stream, at * 8, std::min(end, at + window) * 8)) host.push_back(*b);
        BOOST_TEST_CONTEXT("bytes [" << first << ", " << end << ") in windows of " << window) {
            BOOST_TEST(cz::find_deflate_blocks_in(dev.ctx(), input, c.stream.size(), first, end, window) == host, boost::test_tools::per_element());
        }
    }
    // Arguments it refuses: pieces too large for bit offsets in 32 bits, a buffer short of the stream.
    auto small = vyre::runtime::allocate(dev.ctx(), 1024);
    BOOST_CHECK_THROW(cz::find_deflate_blocks(dev.ctx(), small, 4096, 512), vyre::resource_error);
    BOOST_CHECK_THROW(cz::find_deflate_blocks(dev.ctx(), small, std::uint64_t{1} << 40, std::uint64_t{1} << 30), vyre::resource_error);
    BOOST_TEST(cz::find_deflate_blocks(dev.ctx(), small, 1024, 1024) == std::vector<std::uint64_t>{0});
}

// The whole route with the points found on the device: the same bytes.
VYRE_DEVICE_TEST(pieces_from_points_found_on_the_device) {
    for (const stream_case& c : streams(500000)) {
        BOOST_TEST_CONTEXT(c.name) {
            auto output = vyre::runtime::allocate(dev.ctx(), (c.data.size() + 3) / 4 * 4 + 4);
            const auto r = cz::inflate_split(dev.ctx(), c.stream, piece_bytes, c.data.size(), output);
            BOOST_TEST_REQUIRE(r.status.code == de::none);
            BOOST_TEST(r.status.output_size == c.data.size());
            BOOST_TEST(r.pieces == vyre::format::deflate_split_points(c.stream, piece_bytes, 2).size());
            bytes back(c.data.size());
            vyre::runtime::read(dev.ctx(), output, back.data(), back.size());
            BOOST_TEST((back == c.data), "the pieces' bytes differ from the stream's");
        }
    }
}

// Arguments inflate_split refuses, with nothing decoded: split points that do not rise from 0, an
// output buffer smaller than the expected bytes, more than 2^32 - 1 of them.
VYRE_DEVICE_TEST(arguments_it_refuses) {
    const stream_case c = streams(50000)[1];
    auto output = vyre::runtime::allocate(dev.ctx(), (c.data.size() + 3) / 4 * 4);
    const auto refused = [&](std::vector<std::uint64_t> points, std::uint64_t expected, const boost::compute::buffer& out) {
        BOOST_CHECK_THROW(cz::inflate_split(dev.ctx(), c.stream, points, expected, out), vyre::resource_error);
    };
    refused({}, c.data.size(), output);
    refused({8, 800}, c.data.size(), output);
    refused({0, 800, 400}, c.data.size(), output);
    refused({0, 800, 800}, c.data.size(), output);
    refused({0}, c.data.size() + 4, output);
    refused({0}, std::uint64_t{1} << 32, output);
    // A piece size past the stream's: one piece, the whole stream.
    const auto whole = cz::inflate_split(dev.ctx(), c.stream, std::uint64_t{1} << 30, c.data.size(), output);
    BOOST_TEST(whole.status.code == de::none);
    BOOST_TEST(whole.pieces == 1u);
}

// The pieces program with its subgroups emulated in workgroup memory, on every device (where the
// device has subgroups of its own too): the same bytes.
VYRE_DEVICE_TEST(pieces_with_subgroups_emulated) {
    cz::deflate_split_options emulated;
    emulated.lowering = vyre::lower::subgroup_lowering::emulated;
    for (const stream_case& c : streams(200000)) {
        BOOST_TEST_CONTEXT(c.name) {
            inflate_and_check(dev.ctx(), c, vyre::format::deflate_split_points(c.stream, piece_bytes, 2), emulated);
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
        const stream_case c{"mixed, zlib level " + std::to_string(level), data, vyre::test::zlib_deflate(data, level)};
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
    // 8 MiB of zeros then text, by libdeflate (a block per 300 KB or so of output: a few hundred
    // bytes of stream each in the zeros). First regions of twice a piece's share: the zeros'
    // pieces outgrow them. Pieces of 64 bytes hold no block start inside (decoded again whole);
    // pieces of 4 KiB do (cut there).
    bytes data(std::size_t{8} << 20, 0);
    const bytes text = vyre::test::system_corpus(300000);
    data.insert(data.end(), text.begin(), text.end());
    const stream_case c{"8 MiB of zeros then text, libdeflate level 6", data, vyre::test::libdeflate_deflate(data, 6)};
    std::uint32_t cut = 0, regrown = 0;
    for (const std::uint64_t piece : {std::uint64_t{64}, std::uint64_t{4096}}) {
        BOOST_TEST_CONTEXT("pieces of " << piece << " bytes") {
            const auto points = vyre::format::deflate_split_points(c.stream, piece, 2);
            BOOST_TEST_REQUIRE(points.size() > 2u);
            const auto r = inflate_and_check(dev.ctx(), c, points, cz::deflate_split_options{2});
            BOOST_TEST(r.rounds > 1u);
            BOOST_TEST_MESSAGE("pieces of " << piece << ": " << r.pieces << " pieces, " << r.cut << " cut, " << r.regrown << " regrown");
            cut += r.cut, regrown += r.regrown;
        }
    }
    BOOST_TEST(cut > 0u);
    BOOST_TEST(regrown > 0u);
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

// Many streams in one call (inflate_split_streams): every writer's stream, one shorter than a
// piece, an empty region, a corrupt stream and one whose expected size is too small, side by side
// at unaligned offsets. Each gets its own status, the good ones their bytes, and nothing is
// written outside a good stream's region (guard bytes fill the rest of the output); with the
// subgroups emulated too, and with a budget small enough to cut the streams into groups.
VYRE_DEVICE_TEST(many_streams_at_once) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x3a57);
    std::vector<stream_case> cases = streams(120000);
    const bytes short_text = vyre::test::system_corpus(3000);
    cases.push_back({"shorter than a piece", short_text, vyre::test::zlib_deflate(short_text, 6)});
    cases.push_back({"an empty stream", {}, vyre::test::zlib_deflate({}, 6)});
    // A corrupt copy of the libdeflate level 6 stream: bits flipped until the reference refuses it.
    stream_case broken = cases[4];
    broken.name += ", corrupt";
    for (bytes out(broken.data.size());;) {
        broken.stream = cases[4].stream;
        for (int f = 0; f < 3; ++f) broken.stream[rng() % broken.stream.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        if (vyre::reference::deflate_inflate(broken.stream, out).status.code != de::none) break;
    }
    const std::size_t corrupt = cases.size();
    cases.push_back(broken);
    const std::size_t too_small = 1; // zlib level 6, expected 100 bytes short
    constexpr std::uint8_t guard = 0xC3;
    bytes input, image;
    std::vector<cz::deflate_split_stream> described;
    for (std::size_t k = 0; k < cases.size(); ++k) {
        input.resize(input.size() + 3, 0x5A); // unaligned, and bytes between the streams
        image.resize(image.size() + 5, guard);
        const std::uint64_t expected = cases[k].data.size() - (k == too_small ? 100 : 0);
        described.push_back({input.size(), cases[k].stream.size(), image.size(), expected});
        input.insert(input.end(), cases[k].stream.begin(), cases[k].stream.end());
        if (k == corrupt || k == too_small) image.resize(image.size() + expected, guard);
        else image.insert(image.end(), cases[k].data.begin(), cases[k].data.end());
    }
    image.resize((image.size() + 8) / 4 * 4, guard);
    auto in = vyre::runtime::allocate(dev.ctx(), vyre::runtime::padded_bytes(input.size()));
    vyre::runtime::write(dev.ctx(), in, input.data(), input.size());
    cz::deflate_split_options emulated, grouped;
    emulated.lowering = vyre::lower::subgroup_lowering::emulated;
    grouped.region_budget = 1'000'000; // a few streams a group
    for (const auto& [name, options] : {std::pair{"native subgroups", cz::deflate_split_options{}}, std::pair{"emulated", emulated},
                                        std::pair{"groups", grouped}}) {
        BOOST_TEST_CONTEXT(name) {
            auto out = vyre::runtime::allocate(dev.ctx(), image.size());
            vyre::runtime::fill(dev.ctx(), out, 0xC3C3C3C3u, image.size()).wait();
            const auto r = cz::inflate_split_streams(dev.ctx(), in, described, piece_bytes, out, options);
            BOOST_TEST_REQUIRE(r.statuses.size() == cases.size());
            for (std::size_t k = 0; k < cases.size(); ++k) {
                BOOST_TEST_CONTEXT(cases[k].name) {
                    if (k == corrupt) BOOST_TEST(r.statuses[k].code != de::none);
                    else if (k == too_small) BOOST_TEST(r.statuses[k].code == de::output_overflow);
                    else {
                        BOOST_TEST(r.statuses[k].code == de::none);
                        BOOST_TEST(r.statuses[k].output_size == cases[k].data.size());
                    }
                }
            }
            bytes back(image.size());
            vyre::runtime::read(dev.ctx(), out, back.data(), back.size());
            // The corrupt stream's own region may hold what its pieces joined before the join
            // found the damage (a reference before its first byte); nothing else may differ.
            const auto& bad = described[corrupt];
            std::copy_n(image.begin() + static_cast<std::ptrdiff_t>(bad.output_offset), bad.expected,
                        back.begin() + static_cast<std::ptrdiff_t>(bad.output_offset));
            BOOST_TEST((back == image), "a stream's bytes or the guard bytes around them differ");
            BOOST_TEST(r.pieces > cases.size() + 4); // several streams in more than one piece
            if (options.region_budget != 0) BOOST_TEST(r.groups > 2u);
            else BOOST_TEST(r.groups == 1u);
        }
    }
    // Streams that leave their buffers are refused before anything runs.
    auto out = vyre::runtime::allocate(dev.ctx(), image.size());
    std::vector<cz::deflate_split_stream> outside = described;
    outside.back().output_offset = image.size();
    BOOST_CHECK_THROW(cz::inflate_split_streams(dev.ctx(), in, outside, piece_bytes, out), vyre::resource_error);
    outside = described;
    outside.back().input_bytes += 64;
    BOOST_CHECK_THROW(cz::inflate_split_streams(dev.ctx(), in, outside, piece_bytes, out), vyre::resource_error);
}

} // namespace

VYRE_TEST_MAIN
