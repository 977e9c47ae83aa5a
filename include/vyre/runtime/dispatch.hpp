// Running a compiled_program: bind buffers by binding number, launch whole workgroups, and a
// host-vector convenience with the same shape as reference::run for parity checks.
#pragma once

#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/program_cache.hpp>

#include <array>
#include <span>
#include <vector>

namespace vyre::runtime {

// A device buffer bound to a program: `elements` is what the program sees as its length
// (u32 words for Bytes buffers), so a buffer may be larger than the data it holds.
struct buffer_arg {
    bc::buffer buffer;
    std::uint32_t elements = 0;
};

// The element count a buffer of `bytes` bytes gives a buffer of `decl`'s type.
inline std::uint32_t element_count(const ir::buffer_decl& decl, std::size_t bytes) {
    const std::size_t unit = decl.element == ir::data_type::bytes ? 4 : ir::min_bytes(decl.element);
    const std::size_t n = bytes / unit;
    if (n > 0xffffffffu)
        throw resource_error("buffer \"" + decl.name + "\" holds " + std::to_string(n) + " elements; at most 2^32-1 are addressable");
    return static_cast<std::uint32_t>(n);
}

// Enqueues one launch of workgroups[0] x [1] x [2] workgroups. `args[b]` is bound to the buffer
// with binding b. Returns the launch's event; the call does not wait for it.
inline bc::event dispatch(context& ctx, const compiled_program& cp, std::array<std::uint32_t, 3> workgroups,
                          std::span<const buffer_arg> args) {
    const auto& p = cp.program();
    if (workgroups[0] == 0 || workgroups[1] == 0 || workgroups[2] == 0) return {};
    auto& e = cp.kernel_for(ctx);
    std::size_t global[3], local[3];
    for (int a = 0; a < 3; ++a) {
        local[a] = p.workgroup_size[a];
        global[a] = std::size_t(workgroups[a]) * p.workgroup_size[a];
    }
    std::lock_guard<std::mutex> g(e.lock);
    cl_uint index = 0;
    for (const auto& decl : cp.source().arguments) {
        if (decl.binding >= args.size() || !args[decl.binding].buffer.get())
            throw resource_error("program \"" + p.name + "\": no buffer bound at binding " + std::to_string(decl.binding) +
                                 " (\"" + decl.name + "\")");
        const auto& a = args[decl.binding];
        const std::size_t unit = decl.element == ir::data_type::bytes ? 4 : ir::min_bytes(decl.element);
        if (std::size_t(a.elements) * unit > a.buffer.size())
            throw resource_error("program \"" + p.name + "\": buffer \"" + decl.name + "\" is bound with " + std::to_string(a.elements) +
                                 " elements but holds only " + std::to_string(a.buffer.size()) + " bytes");
        e.kernel.set_arg(index++, a.buffer);
        e.kernel.set_arg(index++, static_cast<cl_uint>(a.elements));
    }
    return cl_call("clEnqueueNDRangeKernel", [&] {
        return ctx.queue().enqueue_nd_range_kernel(e.kernel, 3, nullptr, global, local);
    });
}

// How long an enqueued command ran on the device, from its event (finished), where ctx's queue
// profiles; 0 elsewhere and for no event (a launch of no workgroups).
inline double event_seconds(const context& ctx, const bc::event& e) {
    if (!e.get() || !ctx.profiling()) return 0;
    return double(e.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_END) - e.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_START)) * 1e-9;
}

// Uploads every buffer, runs, waits, and reads the writable buffers back into `buffers`
// (indexed by binding, raw little-endian bytes: the same convention as reference::run).
inline void run(context& ctx, const compiled_program& cp, std::array<std::uint32_t, 3> workgroups,
                std::vector<std::vector<std::uint8_t>>& buffers) {
    std::vector<buffer_arg> args(buffers.size());
    for (const auto& decl : cp.source().arguments) {
        if (decl.binding >= buffers.size())
            throw resource_error("program \"" + cp.program().name + "\": no host buffer for binding " + std::to_string(decl.binding));
        const auto& host = buffers[decl.binding];
        const cl_mem_flags flags = decl.access == ir::buffer_access::read_write ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY;
        args[decl.binding] = {upload(ctx, std::span<const std::uint8_t>(host), flags), element_count(decl, host.size())};
    }
    dispatch(ctx, cp, workgroups, args);
    for (const auto& decl : cp.source().arguments)
        if (decl.access == ir::buffer_access::read_write)
            read(ctx, args[decl.binding].buffer, buffers[decl.binding].data(), buffers[decl.binding].size());
    ctx.finish();
}

// Whole workgroups of `workgroup_size` invocations that cover `n` invocations.
constexpr std::uint32_t groups_for(std::uint64_t n, std::uint32_t workgroup_size) noexcept {
    return static_cast<std::uint32_t>((n + workgroup_size - 1) / workgroup_size);
}

} // namespace vyre::runtime
