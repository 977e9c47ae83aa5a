// What every op publishes: a permanent id, a version, its signature and calling convention, and
// (for IR-first ops) the ir::program it lowers from. The registry lists these.
#pragma once

#include <vyre/lower/opencl.hpp>
#include <vyre/ir/program.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace vyre::ops {

struct op_info {
    std::string id;          // permanent, e.g. "primitive.bitwise.xor", "compression.lz4"
    std::uint32_t version = 1;
    std::string summary;     // one line for `vyre emit --list`
    ir::op_signature signature;
    ir::convention convention;
    std::function<ir::program()> program; // the IR the op lowers from
    // Where the program's shape depends on how a device runs subgroups (lower::subgroup_lowering):
    // the program for each; empty when program() serves every device.
    std::function<ir::program(lower::subgroup_lowering)> program_for = {};

    // The file `vyre emit --all` writes and the golden test compares: "<id>.cl".
    std::string kernel_file() const { return id + ".cl"; }
};

// "primitive.bitwise.xor" -> "primitive_bitwise_xor": op ids as OpenCL entry-point names.
inline std::string entry_name(const std::string& id) {
    std::string out = id;
    for (char& c : out)
        if (c == '.' || c == '-') c = '_';
    return out;
}

} // namespace vyre::ops
