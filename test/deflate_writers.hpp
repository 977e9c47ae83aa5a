// Raw DEFLATE streams written by zlib and libdeflate for the tests that check the decoders
// against them (test/deflate_gpu.cpp, test/deflate_split.cpp), where zlib says their blocks start,
// and the streams the pieces of one stream are tested on.
#pragma once

#include "harness.hpp"
#include "test_data.hpp"

#include <boost/test/unit_test.hpp>

#include <libdeflate.h>
#include <zlib.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace vyre::test {

// zlib's deflate of `data` with windowBits -15 (no zlib header): one raw stream.
inline std::vector<std::uint8_t> zlib_deflate(const std::vector<std::uint8_t>& data, int level, int strategy = Z_DEFAULT_STRATEGY,
                                              int mem_level = 8) {
    using bytes = std::vector<std::uint8_t>;
    z_stream s{};
    BOOST_TEST_REQUIRE(deflateInit2(&s, level, Z_DEFLATED, -15, mem_level, strategy) == Z_OK);
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

inline std::vector<std::uint8_t> libdeflate_deflate(const std::vector<std::uint8_t>& data, int level) {
    using bytes = std::vector<std::uint8_t>;
    libdeflate_compressor* c = libdeflate_alloc_compressor(level);
    BOOST_TEST_REQUIRE(c != nullptr);
    bytes out(libdeflate_deflate_compress_bound(c, data.size()));
    out.resize(libdeflate_deflate_compress(c, data.data(), data.size(), out.data(), out.size()));
    libdeflate_free_compressor(c);
    BOOST_TEST_REQUIRE(!out.empty());
    return out;
}

using bytes = std::vector<std::uint8_t>;

// Where zlib's inflate says blocks start (bits; the first is 0).
inline std::vector<std::uint64_t> zlib_block_starts(const bytes& stream, std::size_t size) {
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
inline std::vector<stream_case> split_test_streams(std::size_t n) {
    std::mt19937_64 rng(test_seed() ^ 0x5b117);
    const bytes corpus = system_corpus(n);
    std::vector<stream_case> out;
    for (const int level : {1, 6, 9}) out.push_back({"zlib level " + std::to_string(level), corpus, zlib_deflate(corpus, level)});
    for (const int level : {1, 6, 12}) out.push_back({"libdeflate level " + std::to_string(level), corpus, libdeflate_deflate(corpus, level)});
    out.push_back({"zlib, fixed codes only", corpus, zlib_deflate(corpus, 6, Z_FIXED), false});
    const bytes noise = random_bytes(rng, n / 4);
    out.push_back({"zlib, random bytes (stored blocks)", noise, zlib_deflate(noise, 6), false});
    // A run of zeros (a ratio near 1000) then text: the first pieces' output far above their share.
    bytes uneven(n, 0);
    uneven.insert(uneven.end(), corpus.begin(), corpus.begin() + static_cast<std::ptrdiff_t>(std::min(corpus.size(), n / 2)));
    out.push_back({"zlib, zeros then text", uneven, zlib_deflate(uneven, 6)});
    return out;
}

// Pieces of this many compressed bytes in the tests: several per stream of a few hundred KB.
inline constexpr std::uint64_t split_piece_bytes = 8192;

} // namespace vyre::test
