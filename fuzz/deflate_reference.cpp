// compression.deflate's CPU oracle (reference/deflate.hpp) on arbitrary bytes, held to zlib: where
// zlib inflates the stream completely within the output region, the oracle gives the same bytes
// and status none; where zlib refuses it (or it needs more room), the oracle reports an error.
// The first two bytes choose the output region's size (up to 64 KiB), the rest is the stream.
#include <vyre/reference/deflate.hpp>

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::size_t cap = std::size_t{data[0]} | std::size_t{data[1]} << 8;
    const std::span<const std::uint8_t> stream(data + 2, size - 2);

    std::vector<std::uint8_t> ours(cap, 0xA5);
    const auto m = vyre::reference::deflate_inflate(stream, ours);
    if (m.status.output_size > cap || m.input_position > stream.size()) std::abort();

    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) std::abort();
    std::vector<std::uint8_t> theirs(cap + 1);
    z.next_in = const_cast<Bytef*>(stream.data());
    z.avail_in = static_cast<uInt>(stream.size());
    z.next_out = theirs.data();
    z.avail_out = static_cast<uInt>(theirs.size());
    const int r = inflate(&z, Z_FINISH);
    const std::size_t made = z.total_out;
    inflateEnd(&z);
    const bool zlib_ok = r == Z_STREAM_END && made <= cap;

    if (zlib_ok != (m.status.code == vyre::compression::deflate_error::none)) std::abort();
    if (zlib_ok && (m.status.output_size != made || !std::equal(theirs.begin(), theirs.begin() + made, ours.begin()))) std::abort();
    // Nothing past what the oracle says it wrote was touched.
    if (!std::all_of(ours.begin() + m.status.output_size, ours.end(), [](std::uint8_t b) { return b == 0xA5; })) std::abort();
    return 0;
}
