// Host-side batching of blocks: extents with 64-bit positions (files and outputs beyond 4 GiB)
// cut into dispatches whose 32-bit descriptor words and buffers stay within the limits.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace vyre::compression {

// A block as a parser finds it: 64-bit positions in the source file and in the whole decoded
// output, which may exceed 4 GiB. make_block_batches turns extents into 32-bit descriptors.
struct block_extent {
    std::uint64_t input_offset = 0;
    std::uint64_t output_offset = 0;
    std::uint32_t input_size = 0;
    std::uint32_t output_size = 0;
    std::uint32_t flags = 0;
    friend bool operator==(const block_extent&, const block_extent&) = default;
};

// How large one dispatch may be. The defaults are what 32-bit descriptor words can address
// (offset + size must not wrap); a caller lowers them to its device's buffer limits.
struct batch_limits {
    std::uint64_t max_input_bytes = std::numeric_limits<std::uint32_t>::max();
    std::uint64_t max_output_bytes = std::numeric_limits<std::uint32_t>::max();
    std::size_t max_blocks = std::numeric_limits<std::size_t>::max();
};

// One dispatch: upload source bytes [input_base, input_base + input_bytes) as the input buffer,
// allocate output_bytes of output, run `blocks`, then place the output at output_base of the whole
// output. Its descriptors are the extents [first_extent, first_extent + blocks.size()), in order,
// so statuses map back to extents by index. Uploading a window of the source avoids a copy.
// The windows may also span bytes of extents left out of the batches (linked LZ4 frames decoded
// on the host): copy results back block by block, not the whole output window.
struct block_batch {
    std::size_t first_extent = 0;
    std::uint64_t input_base = 0;
    std::uint64_t input_bytes = 0;
    std::uint64_t output_base = 0;
    std::uint64_t output_bytes = 0;
    std::vector<block_descriptor> blocks;
};

namespace detail {

// End of [offset, offset + size), or an error when it does not fit in 64 bits.
inline std::uint64_t extent_end(std::uint64_t offset, std::uint64_t size, std::size_t index, const char* what) {
    if (offset > std::numeric_limits<std::uint64_t>::max() - size)
        throw format_error("block extent " + std::to_string(index) + ": " + what + " range wraps around 2^64");
    return offset + size;
}

struct window {
    std::uint64_t lo = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t hi = 0;
    std::uint64_t size() const { return hi > lo ? hi - lo : 0; }
    window joined(std::uint64_t begin, std::uint64_t end) const { return {std::min(lo, begin), std::max(hi, end)}; }
};

inline block_batch close_batch(std::span<const block_extent> extents, std::size_t first, std::size_t last,
                               window in, window out) {
    block_batch b;
    b.first_extent = first;
    b.input_base = in.lo;
    b.input_bytes = in.size();
    b.output_base = out.lo;
    b.output_bytes = out.size();
    b.blocks.reserve(last - first);
    for (std::size_t i = first; i < last; ++i) {
        const block_extent& e = extents[i];
        // The window holds every extent of the batch and is at most 2^32-1 long, so these fit.
        b.blocks.push_back({static_cast<std::uint32_t>(e.input_offset - in.lo), e.input_size,
                            static_cast<std::uint32_t>(e.output_offset - out.lo), e.output_size, e.flags});
    }
    return b;
}

} // namespace detail

// Splits extents, in their order, into as few consecutive batches as the limits allow. Throws
// resource_error when one extent alone exceeds a limit, format_error when an extent's range wraps.
inline std::vector<block_batch> make_block_batches(std::span<const block_extent> extents, const batch_limits& limits = {}) {
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    const std::uint64_t max_in = std::min(limits.max_input_bytes, u32_max);
    const std::uint64_t max_out = std::min(limits.max_output_bytes, u32_max);
    const std::size_t max_blocks = std::max<std::size_t>(limits.max_blocks, 1);
    std::vector<block_batch> batches;
    std::size_t first = 0;
    detail::window in, out;
    for (std::size_t i = 0; i < extents.size(); ++i) {
        const block_extent& e = extents[i];
        const std::uint64_t in_end = detail::extent_end(e.input_offset, e.input_size, i, "input");
        const std::uint64_t out_end = detail::extent_end(e.output_offset, e.output_size, i, "output");
        if (e.input_size > max_in || e.output_size > max_out)
            throw resource_error("block extent " + std::to_string(i) + " (" + std::to_string(e.input_size) + " input, " +
                                 std::to_string(e.output_size) + " output bytes) exceeds the batch limits");
        const detail::window in2 = in.joined(e.input_offset, in_end);
        const detail::window out2 = out.joined(e.output_offset, out_end);
        if (i > first && (in2.size() > max_in || out2.size() > max_out || i - first >= max_blocks)) {
            batches.push_back(detail::close_batch(extents, first, i, in, out));
            first = i;
            in = detail::window{}.joined(e.input_offset, in_end);
            out = detail::window{}.joined(e.output_offset, out_end);
        } else {
            in = in2;
            out = out2;
        }
    }
    if (first < extents.size()) batches.push_back(detail::close_batch(extents, first, extents.size(), in, out));
    return batches;
}

} // namespace vyre::compression
