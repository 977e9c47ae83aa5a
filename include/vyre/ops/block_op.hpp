// The generic runtime of block ops: ops that turn independent blocks, each named by a
// vyre::compression::block_descriptor, into bytes in one output buffer with one vyre::compression::block_status
// per block (compression.lz4, compression.zstd). An op describes itself once, in a traits struct;
// kernel lookup, parameter buffers, launch shape, enqueue, batching limits and decode-and-check are
// written here, once, for every such op. doc/contributing.md walks through adding one.
#pragma once

#include <vyre/compression/batch.hpp>
#include <vyre/compression/block.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::ops {

// Every block op has the seed's program (one block per invocation) and a fast one with the same
// bytes and statuses; `automatic` lets the op pick per device (block_op::automatic).
enum class block_variant { reference, fast, automatic };

inline const char* block_variant_name(block_variant v) noexcept {
    switch (v) {
    case block_variant::reference: return "reference";
    case block_variant::fast: return "fast";
    case block_variant::automatic: return "automatic";
    }
    return "?";
}

inline std::optional<block_variant> block_variant_from_name(std::string_view name) noexcept {
    for (const block_variant v : {block_variant::reference, block_variant::fast, block_variant::automatic})
        if (name == block_variant_name(v)) return v;
    return std::nullopt;
}

// The bindings of every block op's programs, in this order:
//   0 input        Bytes ReadOnly   the blocks' bytes
//   1 descriptors  U32   ReadOnly   5 words per block (vyre::compression::block_descriptor)
//   2 output       Bytes ReadWrite  every block's output region; nothing outside them is written
//   3 statuses     U32   ReadWrite  2 words per block (vyre::compression::block_status)
//   4 params       U32   Uniform    [block count, input bytes, output bytes, slices per block]
// Programs check descriptors against the params' byte counts, not the buffers' word-rounded
// lengths. The fourth word only shapes sliced launches (block_kernel::slice); others ignore it.
namespace block_binding {
enum : std::uint32_t { input = 0, descriptors = 1, output = 2, statuses = 3, params = 4 };
} // namespace block_binding
inline constexpr std::uint32_t block_param_words = 4;
using block_launch_params = runtime::parameter_buffer<block_param_words>;

// A built program of a block op and the shape of its launches.
struct block_kernel {
    const char* op = "block op"; // the op's permanent id, for messages
    runtime::compiled_program program;
    block_variant variant = block_variant::reference; // resolved: reference or fast
    // Unsliced launches: workgroups cover the blocks, this many blocks per workgroup.
    std::uint32_t blocks_per_workgroup = 1;
    // Sliced launches (slice > 0): every block gets `slices` workgroups, each taking `slice` bytes
    // of its output, slices = ceil(largest block output / slice), at most max_slices.
    std::uint32_t slice = 0;
    std::uint32_t max_slices = 1;
};

// What an op's traits struct provides; ops/compression/lz4.hpp is a complete example.
template <class Op>
concept block_op = requires(std::uint32_t code, block_variant v, const runtime::device_info& device) {
    { Op::id } -> std::convertible_to<const char*>;      // permanent op id, "compression.lz4"
    { Op::version } -> std::convertible_to<std::uint32_t>;
    { Op::status_name(code) } -> std::convertible_to<const char*>;
    { Op::automatic(device) } -> std::same_as<block_variant>; // what `automatic` runs on a device
    { Op::kernel(v) } -> std::same_as<block_kernel>;          // the default program of a resolved variant
    { Op::infos() } -> std::same_as<std::vector<op_info>>;    // its registry entries
};

template <block_op Op>
block_variant resolve(block_variant v, const runtime::device_info& device) noexcept {
    return v == block_variant::automatic ? Op::automatic(device) : v;
}

// The process-wide kernel of an op's default program for a device, built on first use. An op
// whose programs use subgroups also provides kernel(variant, lowering, shape) and
// shape_for(device, lowering, block_count, input_bytes, output_bytes) (0 <= shape < Op::shapes):
// its launch shape may depend on how the device runs subgroups (runtime/subgroups.hpp) and on the
// launch's blocks and bytes, so each lowering and shape has its own kernel. 0 means not known.
template <block_op Op>
const block_kernel& kernel_for(block_variant v, const runtime::device_info& device, std::uint32_t block_count = 0,
                               std::uint64_t input_bytes = 0, std::uint64_t output_bytes = 0) {
    v = resolve<Op>(v, device);
    if constexpr (requires { Op::kernel(v, lower::subgroup_lowering::emulated, 0u); }) {
        static const block_kernel reference = Op::kernel(block_variant::reference);
        if (v == block_variant::reference) return reference;
        const lower::subgroup_lowering lowering = runtime::native_subgroups(device);
        const std::uint32_t shape =
            std::min<std::uint32_t>(Op::shape_for(device, lowering, block_count, input_bytes, output_bytes), Op::shapes - 1);
        static std::mutex lock;
        static std::unique_ptr<block_kernel> fast[3][Op::shapes];
        const std::lock_guard<std::mutex> g(lock);
        auto& slot = fast[static_cast<int>(lowering)][shape];
        if (!slot) slot.reset(new block_kernel(Op::kernel(block_variant::fast, lowering, shape)));
        return *slot;
    } else {
        if (v == block_variant::reference) {
            static const block_kernel reference = Op::kernel(block_variant::reference);
            return reference;
        }
        static const block_kernel fast = Op::kernel(block_variant::fast);
        return fast;
    }
}

// Device buffers of one launch. Input and output hold their byte counts rounded up to whole words
// (runtime::padded_bytes). largest_output bounds every block's output (the largest descriptor
// output_size will do); it only sets how many slices a sliced launch runs, never what is written.
struct block_buffers {
    boost::compute::buffer input;
    std::uint64_t input_bytes = 0;
    boost::compute::buffer descriptors; // block_count * 5 words
    std::uint32_t block_count = 0;
    boost::compute::buffer output;
    std::uint64_t output_bytes = 0;
    boost::compute::buffer statuses; // block_count * 2 words
    std::uint32_t largest_output = std::numeric_limits<std::uint32_t>::max();
};

// Enqueues one launch and returns its event; nothing on the host waits, so launches on several
// queues overlap. No host-side descriptor checks: the programs are safe whatever the descriptors
// say, given input and output buffers that hold the bytes b claims (checked here: the programs'
// hot loops leave the tests of their accesses out where the descriptor checks cover them,
// ir::bounds). `params` holds the launch's parameter buffer (kept while its words stay the same):
// keep it until the event completes.
inline boost::compute::event enqueue_blocks(runtime::context& ctx, const block_kernel& kernel, const block_buffers& b,
                                            block_launch_params& params) {
    const std::string op = kernel.op;
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    if (b.input_bytes > u32_max || b.output_bytes > u32_max)
        throw resource_error(op + ": one dispatch addresses at most 2^32-1 input and output bytes (split into batches)");
    if (b.block_count > vyre::compression::max_blocks_per_dispatch)
        throw resource_error(op + ": " + std::to_string(b.block_count) + " blocks in one dispatch; at most " +
                             std::to_string(vyre::compression::max_blocks_per_dispatch));
    if (b.block_count == 0) return {};
    const auto holds = [](const boost::compute::buffer& buffer, std::uint64_t bytes) {
        return bytes == 0 || (buffer.get() != nullptr && buffer.size() >= runtime::padded_bytes(bytes));
    };
    if (!holds(b.input, b.input_bytes) || !holds(b.output, b.output_bytes))
        throw resource_error(op + ": the input or output buffer is smaller than the " + std::to_string(b.input_bytes) + " input and " +
                             std::to_string(b.output_bytes) + " output bytes the launch claims (rounded up to words)");
    const std::uint32_t wg = kernel.program.program().workgroup_size[0];
    std::uint32_t slices = 1;
    std::uint64_t groups = runtime::groups_for(b.block_count, std::max(kernel.blocks_per_workgroup, 1u));
    if (kernel.slice != 0) {
        const std::uint32_t largest = std::max(b.largest_output, 1u);
        slices = std::min(largest / kernel.slice + (largest % kernel.slice != 0), std::max(kernel.max_slices, 1u));
        groups = std::uint64_t{b.block_count} * slices;
        // A sliced program computes invocation indices in 32 bits.
        if (groups * wg > u32_max)
            throw resource_error(op + ": " + std::to_string(b.block_count) + " blocks need more than 2^32 invocations; split the dispatch");
    }
    const auto words = [](std::uint64_t bytes) { return static_cast<std::uint32_t>((bytes + 3) / 4); };
    const auto& p = params.hold(ctx, {b.block_count, static_cast<std::uint32_t>(b.input_bytes),
                                      static_cast<std::uint32_t>(b.output_bytes), slices});
    const runtime::buffer_arg args[] = {{b.input, words(b.input_bytes)},
                                        {b.descriptors, b.block_count * 5},
                                        {b.output, words(b.output_bytes)},
                                        {b.statuses, b.block_count * 2},
                                        {p, block_param_words}};
    return runtime::dispatch(ctx, kernel.program, {static_cast<std::uint32_t>(groups), 1, 1}, args);
}

// The limits of one launch on this device: buffers it can allocate, descriptor words a u32 reaches.
inline vyre::compression::batch_limits device_batch_limits(const runtime::device_info& device, vyre::compression::batch_limits limits = {}) {
    const std::uint64_t device_max = runtime::max_word_buffer_bytes(device);
    limits.max_input_bytes = std::min(limits.max_input_bytes, device_max);
    limits.max_output_bytes = std::min(limits.max_output_bytes, device_max);
    limits.max_blocks = std::min<std::size_t>(limits.max_blocks, vyre::compression::max_blocks_per_dispatch);
    return limits;
}

// Whether a block decoded to exactly what its container promised.
inline bool block_ok(const vyre::compression::block_status& s, std::uint32_t expected_size) noexcept {
    return s.code == 0 && s.output_size == expected_size;
}

// "corrupt_token after 12 bytes, 100 expected": a failed block, for messages.
template <block_op Op>
std::string block_failure_text(const vyre::compression::block_status& s, std::uint32_t expected_size) {
    return std::string(Op::status_name(s.code)) + " after " + std::to_string(s.output_size) + " bytes, " +
           std::to_string(expected_size) + " expected";
}

// What decode_blocks returns: the output stays on the device (a next stage can use it as is);
// bytes no block produced are zero. statuses[i] belongs to descriptor i.
struct block_result {
    boost::compute::buffer output; // runtime::padded_bytes(output_bytes) bytes
    std::uint64_t output_bytes = 0;
    std::vector<vyre::compression::block_status> statuses;
};

namespace detail {

inline void check_block_call(const char* op, std::uint64_t input_bytes, std::uint64_t output_bytes, std::size_t blocks) {
    const std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    if (input_bytes > u32_max || output_bytes > u32_max)
        throw resource_error(std::string(op) + ": input (" + std::to_string(input_bytes) + " bytes) and output (" +
                             std::to_string(output_bytes) + " bytes) of one call must each stay below 4 GiB; "
                             "make_block_batches splits larger work");
    if (blocks > vyre::compression::max_blocks_per_dispatch)
        throw resource_error(std::string(op) + ": " + std::to_string(blocks) + " blocks in one call");
}

inline std::uint32_t largest_output(std::span<const vyre::compression::block_descriptor> blocks) {
    std::uint32_t largest = 0;
    for (const auto& d : blocks) largest = std::max(largest, d.output_size);
    return largest;
}

} // namespace detail

// Decodes `blocks` of a device input (input_bytes bytes; the buffer holds them rounded up to whole
// words) into a new zero-filled device output of output_bytes. The descriptors are checked first
// (vyre::compression::check_descriptors: ranges inside the buffers, no overlapping outputs, no reserved
// flags) and a bad one is a format_error; a corrupt block is not an error here but a status.
template <block_op Op>
block_result decode_blocks(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t input_bytes,
                           std::span<const vyre::compression::block_descriptor> blocks, std::uint64_t output_bytes,
                           block_variant variant = block_variant::automatic) {
    detail::check_block_call(Op::id, input_bytes, output_bytes, blocks.size());
    if (input.size() < runtime::padded_bytes(input_bytes))
        throw resource_error(std::string(Op::id) + ": the input buffer holds " + std::to_string(input.size()) + " bytes, " +
                             std::to_string(runtime::padded_bytes(input_bytes)) + " needed (input bytes rounded up to words)");
    vyre::compression::check_descriptors(blocks, input_bytes, output_bytes);
    block_result r;
    r.output_bytes = output_bytes;
    r.output = runtime::allocate(ctx, runtime::padded_bytes(output_bytes));
    runtime::fill(ctx, r.output, 0, r.output.size());
    r.statuses.resize(blocks.size());
    if (blocks.empty()) return r;
    block_buffers b;
    b.input = input;
    b.input_bytes = input_bytes;
    b.descriptors = runtime::upload(ctx, blocks, CL_MEM_READ_ONLY);
    b.block_count = static_cast<std::uint32_t>(blocks.size());
    b.output = r.output;
    b.output_bytes = output_bytes;
    b.statuses = runtime::allocate(ctx, blocks.size() * sizeof(vyre::compression::block_status));
    b.largest_output = detail::largest_output(blocks);
    block_launch_params params;
    enqueue_blocks(ctx, kernel_for<Op>(variant, ctx.device(), b.block_count, b.input_bytes, b.output_bytes), b, params);
    runtime::read(ctx, b.statuses, r.statuses.data(), blocks.size() * sizeof(vyre::compression::block_status));
    return r;
}

// The same from host bytes (uploaded first).
template <block_op Op>
block_result decode_blocks(runtime::context& ctx, std::span<const std::uint8_t> input,
                           std::span<const vyre::compression::block_descriptor> blocks, std::uint64_t output_bytes,
                           block_variant variant = block_variant::automatic) {
    detail::check_block_call(Op::id, input.size(), output_bytes, blocks.size());
    auto device_input = runtime::allocate(ctx, runtime::padded_bytes(input.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, device_input, input.data(), input.size());
    return decode_blocks<Op>(ctx, device_input, input.size(), blocks, output_bytes, variant);
}

// The whole launch from host memory, with the shape of the ops' CPU references: `output` is
// uploaded as it is (so bytes no block writes keep their values), decoded into, and read back.
// Descriptors are not checked (the programs are safe whatever they say); blocks whose output
// regions overlap race on the device, so give them disjoint regions where the bytes matter.
template <block_op Op>
void decode_blocks_into(runtime::context& ctx, std::span<const std::uint8_t> input,
                        std::span<const vyre::compression::block_descriptor> descriptors, std::span<std::uint8_t> output,
                        std::span<vyre::compression::block_status> statuses, block_variant variant = block_variant::automatic) {
    if (statuses.size() < descriptors.size())
        throw resource_error(std::string(Op::id) + ": " + std::to_string(descriptors.size()) + " descriptors but room for " +
                             std::to_string(statuses.size()) + " statuses");
    detail::check_block_call(Op::id, input.size(), output.size(), descriptors.size());
    if (descriptors.empty()) return;
    block_buffers b;
    b.input_bytes = input.size();
    b.input = runtime::allocate(ctx, runtime::padded_bytes(input.size()), CL_MEM_READ_ONLY);
    runtime::write(ctx, b.input, input.data(), input.size());
    b.descriptors = runtime::upload(ctx, descriptors, CL_MEM_READ_ONLY);
    b.block_count = static_cast<std::uint32_t>(descriptors.size());
    b.output_bytes = output.size();
    b.output = runtime::allocate(ctx, runtime::padded_bytes(output.size()));
    runtime::write(ctx, b.output, output.data(), output.size());
    b.statuses = runtime::allocate(ctx, descriptors.size() * sizeof(vyre::compression::block_status));
    b.largest_output = detail::largest_output(descriptors);
    block_launch_params params;
    enqueue_blocks(ctx, kernel_for<Op>(variant, ctx.device(), b.block_count, b.input_bytes, b.output_bytes), b, params);
    runtime::read(ctx, b.statuses, statuses.data(), descriptors.size() * sizeof(vyre::compression::block_status));
    runtime::read(ctx, b.output, output.data(), output.size());
}

// The first output_bytes of a result, copied to the host.
inline std::vector<std::uint8_t> read_output(runtime::context& ctx, const block_result& r) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(r.output_bytes));
    runtime::read(ctx, r.output, out.data(), out.size());
    return out;
}

} // namespace vyre::ops
