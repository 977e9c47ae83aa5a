// Packing a compression.lz4_pages batch on the device: its blocks back to back, so that only the
// compressed bytes cross the bus and the host copies one run per batch instead of one block per
// page. Two programs over the op's records and slots:
//
//   compression.lz4_pages.offsets (one workgroup): the exclusive prefix sum of the records'
//     lengths, offsets[0..count], offsets[count] the total. Each of the workgroup's invocations
//     sums a run of consecutive records, the workgroup scans those sums in workgroup memory, and
//     each invocation writes its run's offsets.
//   compression.lz4_pages.pack (one workgroup per page): page g's length bytes from its slot to
//     packed[offsets[g]..], byte by byte across the workgroup (consecutive invocations, consecutive
//     bytes).
//
// Bindings of both: 0 records (U32, ReadOnly, 2 words a page: length, kind | fill << 8), 1 output
// (Bytes, ReadOnly: the op's slots, page_size bytes a page), 2 offsets (U32, ReadWrite, count + 1
// words), 3 packed (Bytes, ReadWrite), 4 params ([0] count, [1] page_size).
// The records must have been checked (check_lz4_pages_record) before the offsets are trusted on
// the host; on the device every index stays inside its buffer whatever the lengths say (the
// lowering drops stores past a buffer's end), so a bad record costs wrong bytes, never a write
// elsewhere.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace vyre::ops::compression {

inline constexpr const char* lz4_pages_offsets_op_id = "compression.lz4_pages.offsets";
inline constexpr const char* lz4_pages_pack_op_id = "compression.lz4_pages.pack";
inline constexpr std::uint32_t lz4_pages_offsets_workgroup = 256;
inline constexpr std::uint32_t lz4_pages_pack_workgroup = 128;
inline constexpr std::uint32_t lz4_pages_pack_param_words = 2;

namespace lz4_pages_pack_binding {
inline constexpr std::uint32_t records = 0, output = 1, offsets = 2, packed = 3, params = 4;
}

inline ir::program lz4_pages_offsets_program() {
    namespace d = vyre::dsl;
    namespace b = lz4_pages_pack_binding;
    constexpr std::uint32_t wg = lz4_pages_offsets_workgroup;
    d::kernel k(entry_name(lz4_pages_offsets_op_id), {wg, 1, 1});
    const auto records = k.input<d::u32>("records", b::records);
    const auto offsets = k.output<d::u32>("offsets", b::offsets);
    const auto params = k.uniform<d::u32>("params", b::params);
    const auto part = k.workgroup<d::u32>("part", wg);
    const auto count = k.let("count", params[0u]);
    const auto lid = k.let("lid", d::local_id());
    const auto per = k.let("per", (count + (wg - 1u)) / wg);
    const auto first = k.let("first", lid * per);
    const auto own = k.let("own", 0u);
    k.for_("i", 0u, per, [&](auto i) {
        k.if_(first + i < count, [&] { own = own + records[(first + i) * 2u]; });
    });
    k.store(part, lid, own);
    k.barrier();
    k.for_("s", 0u, static_cast<std::uint32_t>(std::bit_width(wg) - 1), [&](auto s) {
        const auto add = k.let("add", 0u);
        k.if_(lid >= (1u << s), [&] { add = part[lid - (1u << s)]; });
        k.barrier();
        k.store(part, lid, part[lid] + add);
        k.barrier();
    });
    const auto run = k.let("run", part[lid] - own);
    k.for_("i", 0u, per, [&](auto i) {
        k.if_(first + i < count, [&] {
            k.store(offsets, first + i, run);
            run = run + records[(first + i) * 2u];
        });
    });
    k.if_(lid == wg - 1u, [&] { k.store(offsets, count, part[lid]); });
    return k.program();
}

inline ir::program lz4_pages_pack_program() {
    namespace d = vyre::dsl;
    namespace b = lz4_pages_pack_binding;
    constexpr std::uint32_t wg = lz4_pages_pack_workgroup;
    d::kernel k(entry_name(lz4_pages_pack_op_id), {wg, 1, 1});
    const auto records = k.input<d::u32>("records", b::records);
    const auto output = k.input<d::bytes>("output", b::output);
    const auto offsets = k.input<d::u32>("offsets", b::offsets);
    const auto packed = k.output<d::bytes>("packed", b::packed);
    const auto params = k.uniform<d::u32>("params", b::params);
    const auto g = k.let("g", d::workgroup_id());
    k.if_(g < params[0u], [&] {
        const auto length = k.let("length", records[g * 2u]);
        const auto slot = k.let("slot", g * params[1u]);
        const auto at = k.let("at", offsets[g]);
        const auto i = k.let("i", d::local_id());
        k.while_(i < length, [&] {
            k.store(packed, at + i, output[slot + i]);
            i = i + wg;
        });
    });
    return k.program();
}

inline std::vector<op_info> lz4_pages_pack_infos() {
    return {{lz4_pages_offsets_op_id, 1, "compression.lz4_pages: each block's offset when packed back to back, and the total",
             ir::op_signature{{ir::data_type::u32}, ir::data_type::u32}, ir::convention::v1(), [] { return lz4_pages_offsets_program(); }},
            {lz4_pages_pack_op_id, 1, "compression.lz4_pages: the blocks of a batch back to back",
             ir::op_signature{{ir::data_type::u32, ir::data_type::bytes, ir::data_type::u32}, ir::data_type::bytes},
             ir::convention::v1(), [] { return lz4_pages_pack_program(); }}};
}

struct lz4_pages_pack_kernels {
    runtime::compiled_program offsets{lz4_pages_offsets_program()}, pack{lz4_pages_pack_program()};
};
inline const lz4_pages_pack_kernels& lz4_pages_pack_kernels_for() {
    static const lz4_pages_pack_kernels k;
    return k;
}

// Enqueues both programs over the first `count` pages of a launch (its records and slots of
// `page_size` bytes) on ctx's queue: offsets (count + 1 words) and packed (at least the total,
// at most count * page_size bytes) are written; nothing waits. `params` is kept across launches
// (remade only when count or page_size change). Returns the pack's event.
inline boost::compute::event enqueue_lz4_pages_pack(runtime::context& ctx, const boost::compute::buffer& records,
                                                    const boost::compute::buffer& output, std::uint32_t count,
                                                    std::uint32_t page_size, const boost::compute::buffer& offsets,
                                                    const boost::compute::buffer& packed,
                                                    runtime::parameter_buffer<lz4_pages_pack_param_words>& params) {
    if (count == 0) return {};
    const std::uint64_t bytes = std::uint64_t{count} * page_size;
    if (bytes > 0xFFFFFFFFull || records.size() < std::size_t{count} * 8 || output.size() < bytes ||
        offsets.size() < (std::size_t{count} + 1) * 4 || packed.size() < bytes)
        throw resource_error(std::string(lz4_pages_pack_op_id) + ": " + std::to_string(count) + " pages of " + std::to_string(page_size) +
                             " bytes do not fit the buffers given (or 2^32 bytes)");
    const auto& k = lz4_pages_pack_kernels_for();
    namespace b = lz4_pages_pack_binding;
    std::array<runtime::buffer_arg, 5> args;
    args[b::records] = {records, count * 2u};
    args[b::output] = {output, static_cast<std::uint32_t>(bytes / 4)};
    args[b::offsets] = {offsets, count + 1u};
    args[b::packed] = {packed, static_cast<std::uint32_t>(bytes / 4)};
    args[b::params] = {params.hold(ctx, {count, page_size}), lz4_pages_pack_param_words};
    runtime::dispatch(ctx, k.offsets, {1, 1, 1}, args);
    return runtime::dispatch(ctx, k.pack, {count, 1, 1}, args);
}

} // namespace vyre::ops::compression
