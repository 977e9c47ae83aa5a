// compression.lz4: LZ4 block decompression on the device. The op's traits (lz4_op, plugged into
// ops/block_op.hpp's runtime); its two IR programs with identical results (the seed's one block per
// invocation, and a fast one where several invocations share a block) are in
// ops/compression/lz4_program.hpp. Whole LZ4 files: engine/lz4_decompress.hpp.
#pragma once

#include <vyre/compression/lz4.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/compression/lz4_program.hpp>
#include <vyre/ops/op.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// ---- the op ------------------------------------------------------------------------------------

struct lz4_op {
    static constexpr const char* id = "compression.lz4";
    static constexpr const char* fast_id = "compression.lz4.fast";
    static constexpr std::uint32_t version = 1;

    static const char* status_name(std::uint32_t code) noexcept { return vyre::compression::lz4_error_name(code); }

    // Measured on PoCL: the cooperative program's barriers cost more than they share there
    // (doc/ops/compression.lz4.md).
    static block_variant automatic(const runtime::device_info& device) noexcept { return fast_on_gpus(device); }

    // A resolved variant's program, built; the rest shapes the fast one (lz4_program_fast), and
    // `subgroups` forces one lowering of its subgroups on every device (else each device's own).
    static block_kernel kernel(block_variant v, std::uint32_t lanes = lz4_fast_lanes, std::uint32_t window = lz4_fast_window,
                               std::uint32_t blocks_per_workgroup = 1, std::uint32_t stage = lz4_fast_stage,
                               std::optional<lower::subgroup_lowering> subgroups = std::nullopt,
                               std::uint32_t unroll = lz4_fast_unroll) {
        if (v == block_variant::reference)
            return {id, runtime::compiled_program(lz4_program_reference()), block_variant::reference, lz4_reference_workgroup};
        return {id, runtime::compiled_program(lz4_program_fast(lanes, window, blocks_per_workgroup, stage, unroll), subgroups),
                block_variant::fast, blocks_per_workgroup};
    }
    // The default programs for devices whose subgroups lower as `subgroups`, one per shape.
    // Where subgroups are NVIDIA warps, shapes 0, 1 and 2 decode one block per 32, 16 or 8 lanes
    // and shape 3 one per 32 lanes copying 4 bytes per lane per step, all in workgroups of
    // lz4_fast_group_invocations. Narrower blocks share a warp's parse instructions but copy
    // fewer bytes per step, so they win only with blocks to fill the GPU; wide unrolled copies win
    // only where copies are long (incompressible data, one literal run per block) and cost the
    // short copies of compressible data more than they save. Elsewhere one subgroup of 32 is the
    // whole workgroup (emulation needs that, and cl_khr_subgroups falls back to it), whatever the
    // shape.
    static constexpr std::uint32_t shapes = 4;
    static constexpr std::uint32_t literal_shape = 3;
    static block_kernel kernel(block_variant v, lower::subgroup_lowering subgroups, std::uint32_t shape = 0) {
        const std::uint32_t lanes = lanes_of(subgroups, shape);
        return kernel(v, lanes, lz4_fast_window, blocks_per_workgroup(subgroups, lanes), lz4_fast_stage,
                      subgroups == lower::subgroup_lowering::emulated ? std::optional(subgroups) : std::nullopt,
                      unroll_of(subgroups, shape));
    }
    static std::uint32_t lanes_of(lower::subgroup_lowering subgroups, std::uint32_t shape) noexcept {
        if (subgroups != lower::subgroup_lowering::nvidia_ptx || shape >= literal_shape) return lz4_fast_lanes;
        return lz4_fast_lanes >> shape;
    }
    static std::uint32_t unroll_of(lower::subgroup_lowering subgroups, std::uint32_t shape) noexcept {
        return subgroups == lower::subgroup_lowering::nvidia_ptx && shape == literal_shape ? 4 : lz4_fast_unroll;
    }
    static std::uint32_t blocks_per_workgroup(lower::subgroup_lowering subgroups, std::uint32_t lanes) noexcept {
        return subgroups == lower::subgroup_lowering::nvidia_ptx ? lz4_fast_group_invocations / lanes : 1;
    }
    // The choice, measured on the H100 (doc/ops/compression.lz4.md has the figures): a launch whose
    // output is less than 1.1x its input (nearly incompressible data) takes the unrolled 32-lane
    // shape. Otherwise the narrowest width whose blocks still fill at least 3/4 of what the GPU
    // holds at once (compute units x 2048 resident invocations on NVIDIA GPUs since Volta): many
    // small blocks take 8 lanes, about one wave of blocks 16, fewer 32. 0 for block_count,
    // input_bytes or output_bytes means not known.
    static std::uint32_t shape_for(const runtime::device_info& device, lower::subgroup_lowering subgroups, std::uint32_t block_count,
                                   std::uint64_t input_bytes = 0, std::uint64_t output_bytes = 0) noexcept {
        if (subgroups != lower::subgroup_lowering::nvidia_ptx) return 0;
        if (input_bytes != 0 && output_bytes != 0 && 10 * output_bytes < 11 * input_bytes) return literal_shape;
        const std::uint64_t resident = std::uint64_t{std::max(device.compute_units, 1u)} * 2048;
        for (std::uint32_t shape = 2; shape > 0; --shape) {
            const std::uint64_t in_flight = resident / (lz4_fast_lanes >> shape);
            if (4 * std::uint64_t{block_count} >= 3 * in_flight) return shape;
        }
        return 0;
    }
    // The registry's fast program is the one NVIDIA GPUs run; program_for gives each device's.
    static std::vector<op_info> infos() {
        auto infos = block_op_infos(id, fast_id, version, "LZ4 block decompression, one block per invocation (the seed's design; reference variant)",
                                    "compression.lz4 with one block per subgroup of " + std::to_string(lz4_fast_lanes) +
                                        " invocations (fast variant, same results)",
                                    [] { return lz4_program_reference(); },
                                    [] { return lz4_program_fast(lz4_fast_lanes, lz4_fast_window, lz4_fast_group_invocations / lz4_fast_lanes); });
        infos[1].program_for = [](lower::subgroup_lowering l) {
            return lz4_program_fast(lz4_fast_lanes, lz4_fast_window, blocks_per_workgroup(l, lz4_fast_lanes), lz4_fast_stage);
        };
        return infos;
    }
};
static_assert(block_op<lz4_op>);

} // namespace vyre::ops::compression
