// The permanent block layouts shared by compression.lz4 and compression.zstd (5-word descriptor,
// 2-word status, error codes) and the host-side batching that keeps descriptor words inside 32 bits.
#pragma once

#include <vyre/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace vyre::ops::compression {

// One block of work for a decompression dispatch. Offsets are relative to the input and output
// buffers of the dispatch; a block reads input[input_offset, input_offset + input_size) and owns
// output[output_offset, output_offset + output_size). output_size is the block's capacity: a block
// may decode to fewer bytes (the status reports how many) but never to more.
struct block_descriptor {
    std::uint32_t input_offset;
    std::uint32_t input_size;
    std::uint32_t output_offset;
    std::uint32_t output_size;
    std::uint32_t flags;
};
static_assert(sizeof(block_descriptor) == 20, "the descriptor layout is permanent: 5 words");
static_assert(std::is_standard_layout_v<block_descriptor> && std::is_trivially_copyable_v<block_descriptor>,
              "a std::vector of descriptors uploads as-is");

// Flag bit 0: the block is stored, copy it verbatim. The other bits are reserved and must be zero
// (check_descriptors rejects them; the kernels ignore them).
inline constexpr std::uint32_t block_flag_uncompressed = 1;
inline constexpr std::uint32_t block_flags_known = block_flag_uncompressed;

// What one block reports: an error code of its op, and how many output bytes it produced before
// finishing or failing (diagnostic on error).
struct block_status {
    std::uint32_t code;
    std::uint32_t output_size;
    friend bool operator==(const block_status&, const block_status&) = default;
};
static_assert(sizeof(block_status) == 8, "the status layout is permanent: 2 words");
static_assert(std::is_standard_layout_v<block_status> && std::is_trivially_copyable_v<block_status>);

// Status codes of compression.lz4 (permanent values). reference/lz4.hpp defines exactly when each
// is reported; in short:
namespace lz4_error {
enum : std::uint32_t {
    none = 0,
    corrupt_token = 1,    // input ends inside a length extension chain or a match offset
    offset_oob = 2,       // match offset 0, or beyond the bytes the block has written
    output_overflow = 3,  // literals (or a stored block) longer than the output region left
    literal_overflow = 4, // literals run past the end of the block's input
    match_overflow = 5,   // match longer than the output region left
};
} // namespace lz4_error

inline const char* lz4_error_name(std::uint32_t code) noexcept {
    switch (code) {
    case lz4_error::none: return "none";
    case lz4_error::corrupt_token: return "corrupt_token";
    case lz4_error::offset_oob: return "offset_oob";
    case lz4_error::output_overflow: return "output_overflow";
    case lz4_error::literal_overflow: return "literal_overflow";
    case lz4_error::match_overflow: return "match_overflow";
    default: return "unknown_lz4_error";
    }
}

// Status codes of compression.zstd (permanent values).
namespace zstd_error {
enum : std::uint32_t {
    none = 0,
    corrupt_block = 1,
    output_overflow = 2,
    rle_payload_missing = 3,
    unsupported_compressed_block = 4,
};
} // namespace zstd_error

inline const char* zstd_error_name(std::uint32_t code) noexcept {
    switch (code) {
    case zstd_error::none: return "none";
    case zstd_error::corrupt_block: return "corrupt_block";
    case zstd_error::output_overflow: return "output_overflow";
    case zstd_error::rle_payload_missing: return "rle_payload_missing";
    case zstd_error::unsupported_compressed_block: return "unsupported_compressed_block";
    default: return "unknown_zstd_error";
    }
}

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

// Host-side check before a dispatch: every descriptor inside the buffers, no reserved flag bits,
// no two output regions overlapping (they would race on the device). Throws format_error naming
// the descriptor.
inline void check_descriptors(std::span<const block_descriptor> blocks, std::uint64_t input_bytes, std::uint64_t output_bytes) {
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const block_descriptor& d = blocks[i];
        const std::string name = "block descriptor " + std::to_string(i);
        if (std::uint64_t{d.input_offset} + d.input_size > input_bytes)
            throw format_error(name + ": input range [" + std::to_string(d.input_offset) + ", +" +
                               std::to_string(d.input_size) + ") exceeds the " + std::to_string(input_bytes) + "-byte input");
        if (std::uint64_t{d.output_offset} + d.output_size > output_bytes)
            throw format_error(name + ": output range [" + std::to_string(d.output_offset) + ", +" +
                               std::to_string(d.output_size) + ") exceeds the " + std::to_string(output_bytes) + "-byte output");
        if ((d.flags & ~block_flags_known) != 0)
            throw format_error(name + ": reserved flag bits set (flags " + std::to_string(d.flags) + ")");
    }
    std::vector<std::size_t> order(blocks.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::erase_if(order, [&](std::size_t i) { return blocks[i].output_size == 0; });
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return blocks[a].output_offset < blocks[b].output_offset; });
    for (std::size_t k = 1; k < order.size(); ++k) {
        const block_descriptor& prev = blocks[order[k - 1]];
        if (std::uint64_t{prev.output_offset} + prev.output_size > blocks[order[k]].output_offset)
            throw format_error("block descriptors " + std::to_string(order[k - 1]) + " and " + std::to_string(order[k]) +
                               " have overlapping output ranges");
    }
}

} // namespace vyre::ops::compression
