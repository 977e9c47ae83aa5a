// The permanent block layouts every block codec shares (5-word descriptor, 2-word status, flag
// bits) and the host-side check of a dispatch's descriptors. Plain values: every layer may include
// this, and it includes nothing of vyre's but the errors.
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

namespace vyre::compression {


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

// The largest block count whose descriptor words (5 per block) a u32 index reaches.
inline constexpr std::uint32_t max_blocks_per_dispatch = std::numeric_limits<std::uint32_t>::max() / 5;

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

} // namespace vyre::compression
