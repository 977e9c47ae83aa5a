// `vyre devices`: every OpenCL device of every platform, and the default choice.
#pragma once

#include "common.hpp"

#include <vyre/runtime/subgroups.hpp>

#include <vyre/runtime/device.hpp>
#include <vyre/error.hpp>
#include <cstddef>
#include <iostream>
#include <string>
#include <vector>

namespace vyre::cli {

inline int cmd_devices(const std::vector<std::string>& args) {
    po::options_description options("Lists every OpenCL device of every platform, marking the one vyre uses by default");
    options.add_options()("filter", po::value<std::string>()->default_value(""),
                          "only devices whose name or platform contains this text")(
        "extensions", po::bool_switch(), "also list each device's OpenCL extensions (cl_khr_fp64, cl_khr_subgroups, ...)");
    po::variables_map vm;
    if (!parse("devices", "[--filter TEXT] [--extensions]", options, args, vm)) return 0;
    namespace rt = vyre::runtime;
    const auto all = rt::filter_devices(rt::list_devices(), vm["filter"].as<std::string>());
    if (all.empty()) {
        std::cerr << "vyre: no OpenCL device found (is an OpenCL driver such as PoCL installed?)\n";
        return 1;
    }
    std::string chosen;
    try {
        chosen = rt::choose_device().label();
    } catch (const vyre::no_device& e) {
        std::cerr << "vyre: " << e.what() << "\n";
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& d = all[i];
        std::cout << (d.label() == chosen ? "* " : "  ") << i << ": " << d.name << "\n"
                  << "     platform: " << d.platform << " | type: " << rt::device_type_name(d.type)
                  << " | " << d.version << " | driver " << d.driver_version << "\n"
                  << "     compute units: " << d.compute_units
                  << " | global memory: " << (d.global_memory >> 20) << " MiB"
                  << " | max allocation: " << (d.max_allocation >> 20) << " MiB"
                  << " | local memory: " << (d.local_memory >> 10) << " KiB"
                  << " | subgroups: " << vyre::lower::subgroup_lowering_name(rt::native_subgroups(d)) << "\n";
        if (vm["extensions"].as<bool>()) {
            std::cout << "     extensions:";
            for (const auto& e : d.device.extensions()) std::cout << " " << e;
            std::cout << "\n";
        }
    }
    std::cout << "(* = default device; choose another with VYRE_DEVICE=<part of its name or platform>)\n";
    return 0;
}

} // namespace vyre::cli
