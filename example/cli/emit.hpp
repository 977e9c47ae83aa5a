// `vyre emit`: the OpenCL C an op lowers to, or every op's kernel written to a folder.
#pragma once

#include "common.hpp"

#include <vyre/lower/opencl.hpp>
#include <vyre/ops/registry.hpp>
#include <vyre/runtime/program_cache.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vyre::cli {

inline int cmd_emit(const std::vector<std::string>& args) {
    po::options_description options("Prints the OpenCL C that an op lowers to, or writes the kernels of every op");
    options.add_options()("op", po::value<std::string>(), "op id, e.g. primitive.bitwise.xor")(
        "all", "every op of the registry")("list", "list op ids with their versions and summaries")(
        "out", po::value<std::string>(), "with --all: folder to write <op-id>.cl files into (default: print)")(
        "device", po::value<std::string>(), "build the op on this device (a name filter; \"\" for the default) and print the "
                                            "source it ran, with how its subgroups were lowered there");
    po::positional_options_description positional;
    positional.add("op", 1);
    po::variables_map vm;
    if (!parse("emit", "<op-id> [--device FILTER] | --all [--out DIR] | --list", options, args, vm, &positional)) return 0;
    const auto& ops = vyre::ops::registry();
    if (vm.count("list")) {
        for (const auto& op : ops) std::cout << op.id << " v" << op.version << "  " << op.summary << "\n";
        return 0;
    }
    if (vm.count("all")) {
        if (!vm.count("out")) {
            for (const auto& op : ops) std::cout << vyre::lower::to_opencl(op.program()).source << "\n";
            return 0;
        }
        const std::filesystem::path dir = vm["out"].as<std::string>();
        std::filesystem::create_directories(dir);
        for (const auto& op : ops) {
            std::ofstream out(dir / op.kernel_file(), std::ios::binary);
            out << vyre::lower::to_opencl(op.program()).source;
            if (!out) throw std::runtime_error("cannot write " + (dir / op.kernel_file()).string());
        }
        std::cout << "wrote " << ops.size() << " kernels to " << dir.string() << "\n";
        return 0;
    }
    if (!vm.count("op")) throw po::error("give an op id, --all or --list");
    const auto id = vm["op"].as<std::string>();
    const auto* op = vyre::ops::find_op(id);
    if (!op) {
        std::cerr << "vyre emit: no op \"" << id << "\" (vyre emit --list shows them)\n";
        return 2;
    }
    if (!vm.count("device")) {
        std::cout << vyre::lower::to_opencl(op->program()).source;
        return 0;
    }
    // What the device really runs: a cl_khr_subgroups build may fall back to emulation.
    vyre::runtime::context ctx(vyre::runtime::choose_device(vm["device"].as<std::string>()));
    const auto offered = vyre::runtime::native_subgroups(ctx.device());
    const vyre::ir::program p = op->program_for ? op->program_for(offered) : op->program();
    const vyre::runtime::compiled_program built(p);
    const auto lowering = built.subgroups_on(ctx);
    std::cout << "// device: " << ctx.device().label() << "\n";
    if (p.subgroup_size != 0)
        std::cout << "// subgroups of " << p.subgroup_size << ": " << vyre::lower::subgroup_lowering_name(lowering) << " (the device offers "
                  << vyre::lower::subgroup_lowering_name(offered) << ")\n";
    std::cout << vyre::lower::to_opencl(p, lowering).source;
    return 0;
}

} // namespace vyre::cli
