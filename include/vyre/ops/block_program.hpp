// The DSL side of block ops: the five bindings every block op's programs declare (ops/block_op.hpp
// lists them), with the same names in every program so that their kernels read alike.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/op.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace vyre::ops {

struct block_program_buffers {
    dsl::input_buffer<dsl::bytes> input;
    dsl::input_buffer<dsl::u32> descriptors;
    dsl::output_buffer<dsl::bytes> output;
    dsl::output_buffer<dsl::u32> statuses;
    dsl::uniform_buffer<dsl::u32> params;
};

inline block_program_buffers declare_block_buffers(dsl::kernel& k) {
    return {k.input<dsl::bytes>("input", block_binding::input), k.input<dsl::u32>("descriptors", block_binding::descriptors),
            k.output<dsl::bytes>("output", block_binding::output), k.output<dsl::u32>("statuses", block_binding::statuses),
            k.uniform<dsl::u32>("params", block_binding::params)};
}

// The next index of a lane's strided loop `while (j < count) { ...; j = j + step; }`: j + step,
// held at 2^32 - 1 instead of wrapping. A block may be nearly 4 GiB long, and a wrapped index
// would fall back below its count and the loop would never end; held, it ends the loop (no count
// exceeds 2^32 - 1). One `min` per step.
template <class J>
auto strided_next(const J& j, std::uint32_t step) {
    return dsl::min(j, 0xFFFFFFFFu - step) + step;
}

// An overlapping match spread over a subgroup of `lanes`, as LZ4, DEFLATE and
// Zstandard all have: copy byte j < count is pattern byte j mod period (period < count), lane i
// taking j = i, i + lanes, ... `read(at)` loads pattern byte `at` (below period, written before the
// copy and visible to every lane); `write(j, byte)` stores copy byte j.
//
// Lane i's place in the pattern moves on by lanes mod period per pass: an addition and a comparison
// instead of a division per byte. A period that is a power of two (runs of one byte repeated have
// period 1) takes a mask instead of the two divisions, which GPUs run as long chains of
// instructions; one that divides `lanes` (step 0) gives each lane the same byte on every pass, so
// it is loaded once for the whole copy instead of once per pass, each load a round trip on the
// block's serial chain.
template <class Count, class Period, class Lane, class Read, class Write>
void repeat_pattern(dsl::kernel& k, const std::string& name, const Count& count, const Period& period, const Lane& lane,
                    std::uint32_t lanes, const Read& read, const Write& write) {
    namespace d = vyre::dsl;
    const auto j = k.let(name, lane);
    const auto at = k.let(name + "_at", 0u);
    const auto step = k.let(name + "_step", 0u);
    k.if_((period & (period - 1u)) == 0u, [&] {
        at = lane & (period - 1u);
        step = d::lit<d::u32>(lanes) & (period - 1u);
    }).else_([&] {
        at = lane % period;
        step = d::lit<d::u32>(lanes) % period;
    });
    k.if_(step == 0u, [&] {
        const auto byte = k.let(name + "_same", read(at));
        k.while_(j < count, [&] {
            write(j, byte);
            j = strided_next(j, lanes);
        });
    }).else_([&] {
        k.while_(j < count, [&] {
            const auto byte = k.let(name + "_byte", read(at));
            write(j, byte);
            j = strided_next(j, lanes);
            at = at + step;
            at = d::select(at >= period, at - period, at);
        });
    });
}

// The signature of every block op: bytes in, bytes out.
inline ir::op_signature block_op_signature() { return {{ir::data_type::bytes}, ir::data_type::bytes}; }

// The registry entries of a block op with two programs: the op itself (its seed program) and its
// fast program under `fast_id` (not a separate op: listed so that `vyre emit` shows it and the
// golden-kernel test guards its lowering).
inline std::vector<op_info> block_op_infos(const char* id, const char* fast_id, std::uint32_t version, std::string reference_summary,
                                           std::string fast_summary, std::function<ir::program()> reference,
                                           std::function<ir::program()> fast) {
    return {{id, version, std::move(reference_summary), block_op_signature(), ir::convention::v1(), std::move(reference)},
            {fast_id, version, std::move(fast_summary), block_op_signature(), ir::convention::v1(), std::move(fast)}};
}

// `automatic` for ops whose fast program shares a block among a workgroup's invocations: that
// program on GPUs, the seed's on CPU devices, where a workgroup's invocations run one after another
// and the sharing costs more than it saves (each op's page has the figures).
inline block_variant fast_on_gpus(const runtime::device_info& device) noexcept {
    return device.is_cpu() && !device.is_gpu() ? block_variant::reference : block_variant::fast;
}

} // namespace vyre::ops
