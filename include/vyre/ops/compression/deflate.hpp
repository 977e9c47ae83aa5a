// compression.deflate: DEFLATE streams (RFC 1951) inflated on the device, one stream per
// descriptor. The op's traits (deflate_op, plugged into ops/block_op.hpp's runtime); its IR program
// in two shapes with identical results is in ops/compression/deflate_program.hpp. ZIP entries and
// gzip members become descriptors in engine/deflate_decompress.hpp.
#pragma once

#include <vyre/compression/deflate.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/compression/deflate_program.hpp>
#include <vyre/ops/op.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// ---- the op ------------------------------------------------------------------------------------

struct deflate_op {
    static constexpr const char* id = "compression.deflate";
    static constexpr const char* fast_id = "compression.deflate.fast";
    static constexpr std::uint32_t version = 1;

    static const char* status_name(std::uint32_t code) noexcept { return vyre::compression::deflate_error_name(code); }

    static block_variant automatic(const runtime::device_info& device) noexcept { return fast_on_gpus(device); }

    // A resolved variant's program, built; `subgroups` forces one lowering of the fast variant's
    // subgroups (else each device's own).
    static block_kernel kernel(block_variant v, std::uint32_t streams_per_workgroup = 1,
                               std::optional<lower::subgroup_lowering> subgroups = std::nullopt) {
        if (v == block_variant::reference) return {id, runtime::compiled_program(deflate_program(1)), block_variant::reference, 1};
        return {id, runtime::compiled_program(deflate_program(deflate_fast_lanes, streams_per_workgroup), subgroups),
                block_variant::fast, streams_per_workgroup};
    }
    // Per lowering: several streams per workgroup only where subgroups are NVIDIA warps (emulated
    // subgroups are the whole workgroup, and cl_khr_subgroups falls back to that).
    static constexpr std::uint32_t shapes = 1;
    static block_kernel kernel(block_variant v, lower::subgroup_lowering subgroups, std::uint32_t /*shape*/) {
        return kernel(v, streams_per_workgroup(subgroups),
                      subgroups == lower::subgroup_lowering::emulated ? std::optional(subgroups) : std::nullopt);
    }
    static std::uint32_t shape_for(const runtime::device_info&, lower::subgroup_lowering, std::uint32_t, std::uint64_t = 0,
                                   std::uint64_t = 0) noexcept {
        return 0;
    }
    static std::uint32_t streams_per_workgroup(lower::subgroup_lowering subgroups) noexcept {
        return subgroups == lower::subgroup_lowering::nvidia_ptx ? deflate_fast_streams_per_workgroup : 1;
    }

    static std::vector<op_info> infos() {
        auto infos = block_op_infos(id, fast_id, version, "DEFLATE streams (RFC 1951), one stream per invocation (reference variant)",
                                    "compression.deflate with one stream per subgroup of " + std::to_string(deflate_fast_lanes) +
                                        " invocations (fast variant, same results)",
                                    [] { return deflate_program(1); },
                                    [] { return deflate_program(deflate_fast_lanes, deflate_fast_streams_per_workgroup); });
        infos[1].program_for = [](lower::subgroup_lowering l) { return deflate_program(deflate_fast_lanes, streams_per_workgroup(l)); };
        return infos;
    }
};
static_assert(block_op<deflate_op>);

} // namespace vyre::ops::compression
