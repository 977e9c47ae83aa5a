// primitive.prefix_sum: the exclusive prefix sum of a u32 buffer, in place on the device (sums
// wrap modulo 2^32, as u32 arithmetic does). Device-side setup steps that turn counts into offsets
// (the reverse graph of engine::dataflow: in-degrees into in-edge offsets, pull tasks into task
// offsets) need it; the host never sees the counts.
//
// Two programs. primitive.prefix_sum.tiles scans tiles of prefix_sum_tile elements, one workgroup
// each (every invocation sums prefix_sum_items consecutive elements, the workgroup scans those
// sums in workgroup memory, then every invocation writes its elements' exclusive prefixes) and
// writes each tile's total to tile_sums. When there is more than one tile, the tile totals are
// scanned the same way (recursively: 2048 tiles per level) and primitive.prefix_sum.carry adds
// each tile's prefix to its elements.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace vyre::ops::primitive {

inline constexpr const char* prefix_sum_tiles_op_id = "primitive.prefix_sum.tiles";
inline constexpr const char* prefix_sum_carry_op_id = "primitive.prefix_sum.carry";

inline constexpr std::uint32_t prefix_sum_workgroup = 256;
inline constexpr std::uint32_t prefix_sum_items = 8; // consecutive elements per invocation
inline constexpr std::uint32_t prefix_sum_tile = prefix_sum_workgroup * prefix_sum_items;
// The most elements one call scans: u32 invocation ids must cover every tile's workgroup.
inline constexpr std::uint64_t prefix_sum_limit = std::uint64_t{0xFFFFFFFFu} - prefix_sum_tile;

// Both programs: data (the elements, scanned in place), tile_sums (tiles: one total per tile
// written; carry: the scanned totals read), params ([0] element count).
namespace prefix_sum_binding {
inline constexpr std::uint32_t data = 0, tile_sums = 1, params = 2;
}

inline ir::program prefix_sum_tiles_program() {
    namespace d = vyre::dsl;
    constexpr std::uint32_t wg = prefix_sum_workgroup, items = prefix_sum_items;
    d::kernel k(entry_name(prefix_sum_tiles_op_id), {wg, 1, 1});
    const auto data = k.output<d::u32>("data", prefix_sum_binding::data);
    const auto tile_sums = k.output<d::u32>("tile_sums", prefix_sum_binding::tile_sums);
    const auto params = k.uniform<d::u32>("params", prefix_sum_binding::params);
    const auto part = k.workgroup<d::u32>("part", wg);
    const auto count = k.let("count", params[0u]);
    const auto lid = k.let("lid", d::local_id());
    // u64 would be needed past 2^32 elements; the host keeps count below that.
    const auto base = k.let("base", d::workgroup_id() * prefix_sum_tile + lid * items);
    const auto own = k.let("own", 0u);
    k.for_("i", 0u, items, [&](auto i) {
        k.if_(base + i < count, [&] { own = own + data[base + i]; });
    });
    k.store(part, lid, own);
    k.barrier();
    // Inclusive scan of the workgroup's sums (Hillis and Steele: log2(wg) steps of one add each).
    k.for_("s", 0u, static_cast<std::uint32_t>(std::bit_width(wg) - 1), [&](auto s) {
        const auto add = k.let("add", 0u);
        k.if_(lid >= (1u << s), [&] { add = part[lid - (1u << s)]; });
        k.barrier();
        k.store(part, lid, part[lid] + add);
        k.barrier();
    });
    const auto run = k.let("run", part[lid] - own);
    k.for_("i", 0u, items, [&](auto i) {
        k.if_(base + i < count, [&] {
            const auto v = k.let("v", data[base + i]);
            k.store(data, base + i, run);
            run = run + v;
        });
    });
    k.if_(lid == wg - 1u, [&] { k.store(tile_sums, d::workgroup_id(), part[lid]); });
    return k.program();
}

inline ir::program prefix_sum_carry_program() {
    namespace d = vyre::dsl;
    d::kernel k(entry_name(prefix_sum_carry_op_id), {prefix_sum_workgroup, 1, 1});
    const auto data = k.output<d::u32>("data", prefix_sum_binding::data);
    const auto tile_sums = k.input<d::u32>("tile_sums", prefix_sum_binding::tile_sums);
    const auto params = k.uniform<d::u32>("params", prefix_sum_binding::params);
    const auto id = k.let("id", d::invocation_id());
    k.if_(id < params[0u] && id >= prefix_sum_tile, [&] { k.store(data, id, data[id] + tile_sums[id / prefix_sum_tile]); });
    return k.program();
}

inline std::vector<op_info> prefix_sum_infos() {
    const ir::op_signature sig{{ir::data_type::u32}, ir::data_type::u32};
    return {{prefix_sum_tiles_op_id, 1, "exclusive prefix sum of u32 tiles in place, and each tile's total", sig,
             ir::convention::v1(), [] { return prefix_sum_tiles_program(); }},
            {prefix_sum_carry_op_id, 1, "adds each tile's scanned total to the tile's elements", sig, ir::convention::v1(),
             [] { return prefix_sum_carry_program(); }}};
}

inline const runtime::compiled_program& prefix_sum_tiles_kernel() {
    static const runtime::compiled_program p(prefix_sum_tiles_program());
    return p;
}
inline const runtime::compiled_program& prefix_sum_carry_kernel() {
    static const runtime::compiled_program p(prefix_sum_carry_program());
    return p;
}

// Replaces the first `count` elements of `data` with their exclusive prefix sum, on the
// context's queue (nothing waits). A buffer of count + 1 elements whose last is 0 ends with the
// total. Throws resource_error when `count` is above what u32 invocation ids cover or above the
// buffer. The launches' temporary buffers (tile totals, parameters) go to `keep` when given, so
// that the caller frees them once the device is done: NVIDIA's driver waits for the whole device
// before it frees memory, which would otherwise happen here, right after the enqueues.
inline void exclusive_prefix_sum(runtime::context& ctx, const boost::compute::buffer& data, std::uint64_t count,
                                 std::vector<boost::compute::buffer>* keep = nullptr) {
    if (count == 0) return;
    if (count > prefix_sum_limit || count * 4 > data.size())
        throw resource_error(std::string(prefix_sum_tiles_op_id) + ": " + std::to_string(count) + " elements in a buffer of " +
                             std::to_string(data.size()) + " bytes (at most " + std::to_string(prefix_sum_limit) +
                             " elements, and no more than the buffer holds)");
    const auto tiles = runtime::groups_for(count, prefix_sum_tile);
    const auto sums = runtime::allocate(ctx, std::size_t{tiles} * 4);
    const std::array<std::uint32_t, 1> p{static_cast<std::uint32_t>(count)};
    const auto params = runtime::make_parameter_buffer(ctx, p);
    std::vector<runtime::buffer_arg> args(3);
    args[prefix_sum_binding::data] = {data, static_cast<std::uint32_t>(count)};
    args[prefix_sum_binding::tile_sums] = {sums, tiles};
    args[prefix_sum_binding::params] = {params, 1};
    runtime::dispatch(ctx, prefix_sum_tiles_kernel(), {tiles, 1, 1}, args);
    if (tiles > 1) {
        exclusive_prefix_sum(ctx, sums, tiles, keep);
        runtime::dispatch(ctx, prefix_sum_carry_kernel(), {runtime::groups_for(count, prefix_sum_workgroup), 1, 1}, args);
    }
    if (keep) {
        keep->push_back(sums);
        keep->push_back(params);
    }
}

} // namespace vyre::ops::primitive
