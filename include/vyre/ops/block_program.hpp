// The DSL side of block ops: the five bindings every block op's programs declare (ops/block_op.hpp
// lists them), with the same names in every program so that their kernels read alike.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/ops/block_op.hpp>

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

// The signature of every block op: bytes in, bytes out.
inline ir::op_signature block_op_signature() { return {{ir::data_type::bytes}, ir::data_type::bytes}; }

} // namespace vyre::ops
