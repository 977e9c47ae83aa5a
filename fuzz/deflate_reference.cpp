// compression.deflate's CPU oracle (reference/deflate.hpp) on arbitrary bytes, held to zlib: where
// zlib inflates the stream completely within the output region, the oracle gives the same bytes
// and status none; where zlib refuses it (or it needs more room), the oracle reports an error.
// The first two bytes choose the output region's size (up to 64 KiB), the rest is the stream.
// The same stream's split points (format/deflate_split.hpp) rise from 0, stay inside it, and each
// is a block header the oracle accepts.
#include <vyre/format/deflate_split.hpp>
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

    const auto points = vyre::format::deflate_split_points(stream, 16, 1);
    if (points.empty() || points.front() != 0) std::abort();
    for (std::size_t i = 1; i < points.size(); ++i)
        if (points[i] <= points[i - 1] || points[i] >= stream.size() * 8 || !vyre::reference::deflate_dynamic_block_at(stream, points[i]))
            std::abort();
    return 0;
}
