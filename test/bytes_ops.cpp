// The ops over byte ranges of one device buffer (ops/bytes/): bytes.crc32 against libdeflate's and
// zlib's CRC-32 and against a bitwise CRC written here, bytes.heads against the bytes themselves,
// and bytes.xxh64 against libxxhash's XXH64, on every device and (xxh64) on the interpreter: empty
// ranges, ranges at odd offsets, sizes around the chunk size and around XXH64's 32-byte stripes,
// chunks of 1 and 7 bytes (every join), a range of several MiB, and ranges that leave the buffer.
#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/format/gzip.hpp>
#include <vyre/ops/bytes/crc32.hpp>
#include <vyre/ops/bytes/gather.hpp>
#include <vyre/ops/bytes/heads.hpp>
#include <vyre/ops/bytes/xxh64.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/runtime/buffer.hpp>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL // header-only, as vyre uses it (engine/zstd_host.hpp)
#endif
#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>

VYRE_TEST_MAIN

namespace {

namespace ob = vyre::ops::bytes;
using bytes = std::vector<std::uint8_t>;

// The CRC one bit at a time, as RFC 1952 describes it: shares nothing with the op's tables.
std::uint32_t bitwise_crc32(std::span<const std::uint8_t> data) {
    std::uint32_t c = 0xffffffffu;
    for (const std::uint8_t b : data) {
        c ^= b;
        for (int i = 0; i < 8; ++i) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

// A buffer padded to whole words, and ranges over it of the given sizes at random offsets.
struct range_set {
    bytes data;
    std::vector<ob::byte_range> ranges;
};

range_set make_ranges(std::mt19937_64& rng, const std::vector<std::size_t>& sizes) {
    range_set s;
    for (const std::size_t n : sizes) {
        // Gaps of 1 to 7 bytes that no range holds (0xEE, so that a read past a range's end
        // shows), and ranges start at every offset mod 4.
        s.data.resize(s.data.size() + 1 + rng() % 7, 0xEE);
        const bytes b = rng() % 2 ? vyre::test::random_bytes(rng, n) : vyre::test::text_bytes(rng, n);
        s.ranges.push_back({s.data.size(), n});
        s.data.insert(s.data.end(), b.begin(), b.begin() + std::min(n, b.size()));
        s.data.resize(s.ranges.back().offset + n);
    }
    s.data.resize(((s.data.size() + 3) & ~std::size_t{3}) + 4, 0xEE);
    return s;
}

std::span<const std::uint8_t> range_bytes(const range_set& s, std::size_t r) {
    return std::span<const std::uint8_t>(s.data).subspan(s.ranges[r].offset, s.ranges[r].size);
}

} // namespace

BOOST_AUTO_TEST_CASE(host_tables_and_reference_agree) {
    std::mt19937_64 rng(vyre::test::test_seed());
    for (const std::size_t n : {0u, 1u, 2u, 5u, 100u, 4096u, 70000u}) {
        const bytes b = vyre::test::random_bytes(rng, n);
        const auto want = static_cast<std::uint32_t>(crc32(0, b.data(), static_cast<uInt>(b.size())));
        BOOST_TEST(bitwise_crc32(b) == want);
        BOOST_TEST(vyre::format::crc32_of(b) == want);
    }
    BOOST_TEST(bitwise_crc32(vyre::test::to_bytes("123456789")) == 0xcbf43926u); // the catalogue's check value
    // x^8 squared is x^16, in the reflected order (x^0 at bit 31).
    BOOST_TEST(ob::crc32_host_tables().powers[1] == 0x00008000u);
    BOOST_TEST(ob::crc32_multiply(0x80000000u, 0x12345678u) == 0x12345678u); // 1 * b
}

VYRE_DEVICE_TEST(crc32_of_many_ranges_equals_zlib) {
    std::mt19937_64 rng(vyre::test::test_seed());
    const std::uint32_t c = ob::crc32_chunk_bytes;
    std::vector<std::size_t> sizes = {0, 1, 2, 3, 4, 5, 255, c - 1, c, c + 1, 2 * c + 3, 0, 50000, std::size_t{5} << 20};
    for (int i = 0; i < 40; ++i) sizes.push_back(rng() % 20000);
    const range_set s = make_ranges(rng, sizes);
    const auto buffer = vyre::runtime::upload(dev.ctx(), std::span<const std::uint8_t>(s.data), CL_MEM_READ_ONLY);
    for (const std::uint32_t chunk : {c, 1u, 7u, 65536u}) {
        if (chunk < 16 && s.data.size() > (1u << 20)) {
            // Chunks of a few bytes over the large range would be millions of invocations: the
            // small ranges alone show every join.
            std::vector<ob::byte_range> small(s.ranges.begin(), s.ranges.begin() + 13);
            const auto got = ob::crc32_device(dev.ctx(), buffer, small, chunk);
            for (std::size_t r = 0; r < small.size(); ++r) {
                BOOST_TEST_CONTEXT("chunk " << chunk << ", range " << r << " of " << s.ranges[r].size << " bytes") {
                    BOOST_TEST(got[r] == bitwise_crc32(range_bytes(s, r)));
                }
            }
            continue;
        }
        const auto got = ob::crc32_device(dev.ctx(), buffer, s.ranges, chunk);
        BOOST_TEST(got.size() == s.ranges.size());
        for (std::size_t r = 0; r < s.ranges.size(); ++r) {
            const auto b = range_bytes(s, r);
            BOOST_TEST_CONTEXT("chunk " << chunk << ", range " << r << " of " << b.size() << " bytes at offset " << s.ranges[r].offset) {
                BOOST_TEST(got[r] == static_cast<std::uint32_t>(crc32(0, b.data(), static_cast<uInt>(b.size()))));
            }
        }
    }
    BOOST_TEST(ob::crc32_device(dev.ctx(), buffer, {}).empty());
}

// Heads of 512 bytes for 2,100 more ranges come back through the pinned slots
// (runtime::read_staged, from 1 MiB); those of 4 bytes straight.
VYRE_DEVICE_TEST(heads_are_the_first_bytes) {
    std::mt19937_64 rng(vyre::test::test_seed() + 1);
    std::vector<std::size_t> sizes = {0, 1, 3, 4, 5, 511, 512, 513, 100000, 17};
    for (int i = 0; i < 2100; ++i) sizes.push_back(rng() % 700);
    const range_set s = make_ranges(rng, sizes);
    const auto buffer = vyre::runtime::upload(dev.ctx(), std::span<const std::uint8_t>(s.data), CL_MEM_READ_ONLY);
    for (const std::uint32_t head : {4u, 512u}) {
        const auto got = ob::heads_device(dev.ctx(), buffer, s.ranges, head);
        BOOST_TEST(got.size() == s.ranges.size() * head);
        if (head == 512u) BOOST_TEST(got.size() >= vyre::runtime::staged_write_minimum);
        for (std::size_t r = 0; r < s.ranges.size(); ++r) {
            bytes want(head, 0);
            const auto b = range_bytes(s, r);
            std::copy_n(b.begin(), std::min<std::size_t>(head, b.size()), want.begin());
            BOOST_TEST_CONTEXT("head " << head << ", range " << r) {
                BOOST_TEST(bytes(got.begin() + r * head, got.begin() + (r + 1) * head) == want);
            }
        }
    }
}

// Sizes around XXH64's stripes (32 bytes) and its tail steps (8, 4, 1 bytes), and larger ones.
std::vector<std::size_t> xxh64_sizes(std::mt19937_64& rng) {
    std::vector<std::size_t> sizes;
    for (std::size_t n = 0; n <= 72; ++n) sizes.push_back(n);
    for (const std::size_t n : {95u, 96u, 97u, 127u, 128u, 1000u, 4099u, 65536u, 65537u}) sizes.push_back(n);
    for (int i = 0; i < 20; ++i) sizes.push_back(rng() % 300000);
    return sizes;
}

VYRE_DEVICE_TEST(xxh64_of_many_ranges_equals_libxxhash) {
    std::mt19937_64 rng(vyre::test::test_seed() + 2);
    std::vector<std::size_t> sizes = xxh64_sizes(rng);
    sizes.push_back(std::size_t{3} << 20);
    const range_set s = make_ranges(rng, sizes);
    const auto buffer = vyre::runtime::upload(dev.ctx(), std::span<const std::uint8_t>(s.data), CL_MEM_READ_ONLY);
    const auto got = ob::xxh64_device(dev.ctx(), buffer, s.ranges);
    BOOST_REQUIRE(got.size() == s.ranges.size());
    for (std::size_t r = 0; r < s.ranges.size(); ++r) {
        const auto b = range_bytes(s, r);
        BOOST_TEST_CONTEXT("range " << r << " of " << b.size() << " bytes at offset " << s.ranges[r].offset) {
            BOOST_TEST(got[r] == XXH64(b.data(), b.size(), 0));
        }
    }
    BOOST_TEST(ob::xxh64_device(dev.ctx(), buffer, {}).empty());
    // One set of buffers over runs of more, fewer and more ranges again.
    ob::xxh64_buffers kept;
    for (const std::size_t count : {s.ranges.size(), std::size_t{3}, s.ranges.size()}) {
        const std::span<const ob::byte_range> some(s.ranges.data(), count);
        ob::enqueue_xxh64(dev.ctx(), buffer, some, kept);
        std::vector<std::uint32_t> pairs(count * 2);
        vyre::runtime::read(dev.ctx(), kept.digests, pairs.data(), pairs.size() * 4);
        for (std::size_t r = 0; r < count; ++r) {
            const auto b = range_bytes(s, r);
            BOOST_TEST((pairs[2 * r] | (std::uint64_t{pairs[2 * r + 1]} << 32)) == XXH64(b.data(), b.size(), 0));
        }
    }
}

// Ranges that end at the buffer's last byte, from every offset mod 4: the words read past a
// stripe's bytes must stay inside the buffer (no guard bytes after it here).
std::pair<bytes, std::vector<ob::byte_range>> ranges_to_the_end(std::mt19937_64& rng, std::size_t n) {
    const bytes data = vyre::test::random_bytes(rng, n);
    std::vector<ob::byte_range> ranges;
    for (std::size_t from = 0; from < 8; ++from)
        for (const std::size_t cut : {0u, 1u, 5u}) ranges.push_back({from, n - from - cut});
    return {data, ranges};
}

VYRE_DEVICE_TEST(xxh64_of_ranges_that_end_with_the_buffer) {
    std::mt19937_64 rng(vyre::test::test_seed() + 4);
    for (const std::size_t n : {64u, 1028u, 70000u}) {
        const auto [data, ranges] = ranges_to_the_end(rng, n);
        const auto buffer = vyre::runtime::upload(dev.ctx(), std::span<const std::uint8_t>(data), CL_MEM_READ_ONLY);
        const auto got = ob::xxh64_device(dev.ctx(), buffer, ranges);
        for (std::size_t r = 0; r < ranges.size(); ++r) {
            BOOST_TEST_CONTEXT("buffer of " << n << " bytes, range at " << ranges[r].offset << " of " << ranges[r].size) {
                BOOST_TEST(got[r] == XXH64(data.data() + ranges[r].offset, ranges[r].size, 0));
            }
        }
    }
}

// The digests the interpreter gives for `ranges` of `data` (its loads outside a buffer throw).
std::vector<std::uint64_t> interpreted_xxh64(const bytes& data, const std::vector<ob::byte_range>& ranges) {
    const auto program = ob::xxh64_program();
    BOOST_CHECK_NO_THROW(vyre::ir::validate(program));
    const auto words = ob::range_words(ob::xxh64_op_id, ranges, data.size());
    std::vector<vyre::reference::buffer_data> buffers(4);
    buffers[0] = data;
    buffers[1].resize(words.size() * 4);
    std::memcpy(buffers[1].data(), words.data(), buffers[1].size());
    buffers[2].assign(ranges.size() * 8, 0xEE);
    const auto n = static_cast<std::uint32_t>(ranges.size());
    buffers[3].resize(4);
    std::memcpy(buffers[3].data(), &n, 4);
    const std::uint32_t groups = (n * ob::xxh64_lanes + ob::xxh64_workgroup - 1) / ob::xxh64_workgroup;
    vyre::reference::run(program, {groups, 1, 1}, buffers, vyre::reference::run_options::checking_races());
    std::vector<std::uint64_t> digests(ranges.size());
    std::memcpy(digests.data(), buffers[2].data(), digests.size() * 8);
    return digests;
}

// The interpreter defines what the program means: the same digests there.
BOOST_AUTO_TEST_CASE(xxh64_program_on_the_interpreter) {
    std::mt19937_64 rng(vyre::test::test_seed() + 3);
    std::vector<std::size_t> sizes = xxh64_sizes(rng);
    sizes.resize(80); // the interpreter is slow: every tail and a few whole steps of stripes
    const range_set s = make_ranges(rng, sizes);
    const auto got = interpreted_xxh64(s.data, s.ranges);
    for (std::size_t r = 0; r < s.ranges.size(); ++r) {
        const auto b = range_bytes(s, r);
        BOOST_TEST_CONTEXT("range " << r << " of " << b.size() << " bytes") { BOOST_TEST(got[r] == XXH64(b.data(), b.size(), 0)); }
    }
    const auto [data, ranges] = ranges_to_the_end(rng, 1028);
    const auto to_the_end = interpreted_xxh64(data, ranges);
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        BOOST_TEST_CONTEXT("range at " << ranges[r].offset << " of " << ranges[r].size << ", to the buffer's end") {
            BOOST_TEST(to_the_end[r] == XXH64(data.data() + ranges[r].offset, ranges[r].size, 0));
        }
    }
}

// bytes.gather: every range's bytes from its start (a whole word), zeros to its word's end, for
// ranges at every offset modulo 4, empty ones, ones longer than a workgroup's step, and 3,000 small
// ones (as the candidate files of a scan), in any order, overlapping too.
VYRE_DEVICE_TEST(gathered_ranges_are_their_bytes) {
    std::mt19937_64 rng(vyre::test::test_seed() + 2);
    // One range of 3 MiB makes the packed output come back through the pinned slots
    // (runtime::read_staged, from 1 MiB).
    std::vector<std::size_t> sizes = {0, 1, 2, 3, 4, 5, 511, 512, 513, 100000, 17, 0, (std::size_t{3} << 20) + 5};
    for (int i = 0; i < 3000; ++i) sizes.push_back(rng() % 300);
    range_set s = make_ranges(rng, sizes);
    std::shuffle(s.ranges.begin(), s.ranges.end(), rng);
    s.ranges.push_back(s.ranges.front()); // the same bytes twice
    const auto buffer = vyre::runtime::upload(dev.ctx(), std::span<const std::uint8_t>(s.data), CL_MEM_READ_ONLY);
    const ob::gathered got = ob::gather_device(dev.ctx(), buffer, s.ranges);
    BOOST_TEST_REQUIRE(got.starts.size() == s.ranges.size());
    std::uint64_t at = 0;
    for (std::size_t r = 0; r < s.ranges.size(); ++r) {
        BOOST_TEST_CONTEXT("range " << r << " of " << s.ranges[r].size << " bytes at offset " << s.ranges[r].offset) {
            BOOST_TEST(got.starts[r] == at);
            const auto b = range_bytes(s, r);
            const auto g = got.range(r, s.ranges[r].size);
            BOOST_TEST(bytes(g.begin(), g.end()) == bytes(b.begin(), b.end()));
            for (std::uint64_t k = at + s.ranges[r].size; k < at + (s.ranges[r].size + 3) / 4 * 4; ++k) BOOST_TEST(got.bytes[k] == 0u);
            at += (s.ranges[r].size + 3) / 4 * 4;
        }
    }
    BOOST_TEST(got.bytes.size() == at);
    BOOST_TEST(got.bytes.size() >= vyre::runtime::staged_write_minimum);
    BOOST_TEST(ob::gather_device(dev.ctx(), buffer, {}).bytes.empty());
}

VYRE_DEVICE_TEST(ranges_outside_the_buffer_are_refused) {
    const bytes data(64, 1);
    const auto buffer = vyre::runtime::upload(dev.ctx(), std::span<const std::uint8_t>(data), CL_MEM_READ_ONLY);
    const std::vector<ob::byte_range> past = {{0, 10}, {60, 5}};
    BOOST_CHECK_EXCEPTION(ob::crc32_device(dev.ctx(), buffer, past), vyre::resource_error, [](const vyre::resource_error& e) {
        return std::string(e.what()).find("range 1 (offset 60, 5 bytes)") != std::string::npos;
    });
    BOOST_CHECK_THROW(ob::heads_device(dev.ctx(), buffer, past, 8), vyre::resource_error);
    BOOST_CHECK_EXCEPTION(ob::gather_device(dev.ctx(), buffer, past), vyre::resource_error, [](const vyre::resource_error& e) {
        return std::string(e.what()).find("bytes.gather: range 1 (offset 60, 5 bytes)") != std::string::npos;
    });
    BOOST_CHECK_THROW(ob::heads_device(dev.ctx(), buffer, std::vector<ob::byte_range>{{0, 4}}, 6), vyre::resource_error);
    BOOST_CHECK_THROW(ob::crc32_device(dev.ctx(), buffer, std::vector<ob::byte_range>{{0, 4}}, 0), vyre::resource_error);
    BOOST_CHECK_EXCEPTION(ob::xxh64_device(dev.ctx(), buffer, past), vyre::resource_error, [](const vyre::resource_error& e) {
        return std::string(e.what()).find("bytes.xxh64: range 1 (offset 60, 5 bytes)") != std::string::npos;
    });
}
