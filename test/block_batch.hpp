// Batches for the device tests of block ops (ops/block_op.hpp): many blocks in one dispatch, each
// held to the op's CPU oracle. Blocks lie in one input with random junk between them (a decoder
// reading past its block sees junk); output regions start at unaligned offsets with 1..16 canary
// bytes between them, and the buffer's padding holds the canary too, so a write outside a
// block's region shows. The oracle is the op's reference decoder: a callable taking (input,
// descriptors, output) and returning the statuses, such as reference::lz4_decompress.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/reference/interpreter.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

namespace vyre::test {

inline constexpr std::uint8_t block_canary = 0xA5;

struct block_case {
    std::vector<std::uint8_t> block; // the encoded block or stream
    std::uint32_t capacity = 0;      // its output region's size
    std::uint32_t flags = 0;         // the descriptor's flags
};

struct block_batch {
    std::vector<std::uint8_t> input;
    std::vector<compression::block_descriptor> blocks;
    std::vector<std::uint8_t> output; // initial contents: all canary
};

struct block_run {
    std::vector<std::uint8_t> output;
    std::vector<compression::block_status> statuses;
};

inline block_batch pack(const std::vector<block_case>& cases, std::mt19937_64& rng) {
    block_batch b;
    std::uint32_t out = static_cast<std::uint32_t>(1 + rng() % 16);
    for (const auto& c : cases) {
        for (std::size_t k = rng() % 8; k > 0; --k) b.input.push_back(static_cast<std::uint8_t>(rng()));
        const auto at = static_cast<std::uint32_t>(b.input.size());
        b.input.insert(b.input.end(), c.block.begin(), c.block.end());
        b.blocks.push_back({at, static_cast<std::uint32_t>(c.block.size()), out, c.capacity, c.flags});
        out += c.capacity + static_cast<std::uint32_t>(1 + rng() % 16);
    }
    for (std::size_t k = rng() % 8; k > 0; --k) b.input.push_back(static_cast<std::uint8_t>(rng()));
    b.output.assign(out, block_canary);
    return b;
}

// The interpreter's race check for a batch: on, except for the output buffer where descriptors
// give two blocks overlapping output regions (hostile descriptors; their races are the caller's,
// as compression::check_descriptors says).
inline reference::run_options race_check(std::span<const compression::block_descriptor> blocks) {
    reference::run_options options = reference::run_options::checking_races();
    try {
        compression::check_descriptors(blocks, UINT64_MAX, UINT64_MAX);
    } catch (const format_error&) {
        options.races_allowed_on = {"output"};
    }
    return options;
}

// A block program over a batch (any type with input, blocks and output) on the IR's reference
// interpreter, `groups` workgroups, the parameter words {blocks, input bytes, output bytes,
// slices}: the statuses and the output buffer, padded with the canary as a device's would be. The
// input is padded with 0x5A. The interpreter refuses an unchecked access out of bounds
// (ir::bounds) and, as it checks races here, an access racing with another invocation's, with
// validation_error.
template <class Batch>
block_run run_interpreter(const ir::program& program, std::uint32_t groups, const Batch& b, std::uint32_t slices = 0) {
    const auto padded = [](std::vector<std::uint8_t> v, std::uint8_t fill) {
        v.resize(runtime::padded_bytes(v.size()), fill);
        return v;
    };
    const auto u = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
    std::vector<reference::buffer_data> buffers(5);
    buffers[0] = padded(b.input, 0x5A);
    buffers[1].resize(b.blocks.size() * sizeof(compression::block_descriptor));
    std::memcpy(buffers[1].data(), b.blocks.data(), buffers[1].size());
    buffers[2] = padded(b.output, block_canary);
    buffers[3].assign(b.blocks.size() * sizeof(compression::block_status), 0xEE);
    const std::uint32_t params[4] = {u(b.blocks.size()), u(b.input.size()), u(b.output.size()), slices};
    buffers[4].resize(sizeof params);
    std::memcpy(buffers[4].data(), params, sizeof params);
    reference::run(program, {groups, 1, 1}, buffers, race_check(b.blocks));
    block_run r;
    r.statuses.resize(b.blocks.size());
    std::memcpy(r.statuses.data(), buffers[3].data(), buffers[3].size());
    r.output = std::move(buffers[2]);
    return r;
}

// `output` padded with the canary to whole words, as run_interpreter returns it.
inline std::vector<std::uint8_t> padded_output(std::vector<std::uint8_t> output) {
    output.resize(runtime::padded_bytes(output.size()), block_canary);
    return output;
}

// The device run through the kernel-level API, on an output buffer that starts as b.output;
// `params` (when given) is the launch's parameter buffer, kept between calls.
inline block_run run_device(runtime::context& ctx, const ops::block_kernel& kernel, const block_batch& b,
                            ops::block_launch_params* params = nullptr) {
    ops::block_buffers d;
    d.input = runtime::allocate(ctx, runtime::padded_bytes(b.input.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, d.input, b.input.data(), b.input.size());
    d.input_bytes = b.input.size();
    d.descriptors = runtime::upload(ctx, std::span<const compression::block_descriptor>(b.blocks), CL_MEM_READ_ONLY);
    d.block_count = static_cast<std::uint32_t>(b.blocks.size());
    d.output = runtime::allocate(ctx, runtime::padded_bytes(b.output.size()));
    std::vector<std::uint8_t> padded = b.output;
    padded.resize(runtime::padded_bytes(b.output.size()), block_canary);
    runtime::write(ctx, d.output, padded.data(), padded.size());
    d.output_bytes = b.output.size();
    d.statuses = runtime::allocate(ctx, std::max<std::size_t>(b.blocks.size(), 1) * sizeof(compression::block_status));
    ops::block_launch_params fresh;
    ops::enqueue_blocks(ctx, kernel, d, params ? *params : fresh);
    block_run r;
    r.output.resize(padded.size());
    r.statuses.resize(b.blocks.size());
    runtime::read(ctx, d.output, r.output.data(), r.output.size());
    runtime::read(ctx, d.statuses, r.statuses.data(), r.statuses.size() * sizeof(compression::block_status));
    ctx.finish();
    // The padding past output_bytes is no block's: it must still hold the canary too.
    BOOST_TEST(std::all_of(r.output.begin() + static_cast<std::ptrdiff_t>(b.output.size()), r.output.end(),
                           [](std::uint8_t x) { return x == block_canary; }));
    r.output.resize(b.output.size());
    return r;
}

// The oracle's run of the batch.
template <class Oracle>
block_run run_reference(const block_batch& b, const Oracle& oracle) {
    block_run r;
    r.output = b.output;
    r.statuses = oracle(b.input, b.blocks, r.output);
    return r;
}

// Every byte outside the blocks' output regions still holds the canary.
inline bool guards_intact(const block_batch& b, const std::vector<std::uint8_t>& output) {
    std::vector<bool> owned(output.size(), false);
    for (const auto& d : b.blocks)
        if (std::uint64_t{d.output_offset} + d.output_size <= output.size())
            std::fill(owned.begin() + d.output_offset, owned.begin() + d.output_offset + d.output_size, true);
    for (std::size_t i = 0; i < output.size(); ++i)
        if (!owned[i] && output[i] != block_canary) return false;
    return true;
}

// Runs the batch on the device and checks it against the oracle: every status, every byte of the
// output buffer (partial outputs, untouched tails and guards alike). Returns the device's run.
template <class Oracle>
block_run check_batch(runtime::context& ctx, const ops::block_kernel& kernel, const block_batch& b, const Oracle& oracle,
                      ops::block_launch_params* params = nullptr) {
    const block_run want = run_reference(b, oracle);
    const block_run got = run_device(ctx, kernel, b, params);
    BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
    BOOST_TEST(guards_intact(b, got.output));
    if (got.output != want.output) {
        std::size_t first = 0;
        while (got.output[first] == want.output[first]) ++first;
        std::size_t block = 0;
        for (std::size_t i = 0; i < b.blocks.size(); ++i)
            if (b.blocks[i].output_offset <= first) block = i;
        BOOST_ERROR("output differs from the reference at byte " << first << " (block " << block << ", got "
                                                                  << int(got.output[first]) << ", want "
                                                                  << int(want.output[first]) << ")");
    }
    return got;
}

// ---- blocks of nearly 4 GiB ---------------------------------------------------------------------

// The largest output a one-block dispatch can address, less a little: a subgroup's copy index
// stepping past 2^32 - 1 would wrap here (32 lanes stepping from 2^32 - 32 + lane).
inline constexpr std::uint32_t huge_block_bytes = 0xFFFFFFF0u;

// Why a huge block's test is left out on a device, or empty where it runs: where the device
// holds the dispatch (two buffers of 4 GiB) and the host the test's copies (about 16 GiB more),
// such as the NVIDIA GPU of the GPU test machine. (PoCL there allocates at most 2 GiB at once.)
inline std::string huge_block_unfit(const runtime::device_info& device) {
    const std::uint64_t gib = std::uint64_t{1} << 30;
    const std::uint64_t host = std::uint64_t(sysconf(_SC_PHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGESIZE));
    if (device.max_allocation < runtime::padded_bytes(huge_block_bytes))
        return "the device allocates at most " + std::to_string(device.max_allocation) + " bytes at once";
    if (device.global_memory < 12 * gib) return "the device has " + std::to_string(device.global_memory) + " bytes of memory";
    if (host < 48 * gib) return "the host has " + std::to_string(host) + " bytes of memory";
    return {};
}

// n bytes that differ from their neighbours and repeat nowhere near (a counter through a 64-bit
// mixing step), quick to make at gigabytes.
inline std::vector<std::uint8_t> huge_pattern(std::size_t n) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; i += 8) {
        std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
        x ^= x >> 31;
        std::memcpy(v.data() + i, &x, std::min<std::size_t>(8, n - i));
    }
    return v;
}

// One block alone in a dispatch, input and output regions at offset 0, the output buffer exactly
// `capacity` bytes (plus the canary padding run_device checks).
inline block_run run_alone(runtime::context& ctx, const ops::block_kernel& kernel, std::vector<std::uint8_t> input,
                           std::uint32_t capacity, std::uint32_t flags) {
    block_batch b;
    b.blocks.push_back({0, static_cast<std::uint32_t>(input.size()), 0, capacity, flags});
    b.input = std::move(input);
    b.output.assign(capacity, block_canary);
    return run_device(ctx, kernel, b);
}

} // namespace vyre::test
