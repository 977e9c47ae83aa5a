// Helpers of the OpenCL benchmark programs: device events and the header naming the device, on
// top of measure.hpp (timing, medians, result lines).
#pragma once

#include "measure.hpp"

#include <vyre/runtime/context.hpp>

#include <cstdio>

namespace vyre::bench {

// Seconds a finished event spent executing on the device (needs a profiling queue).
inline double event_seconds(const boost::compute::event& e) {
    const auto start = e.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_START);
    const auto end = e.get_profiling_info<cl_ulong>(CL_PROFILING_COMMAND_END);
    return double(end - start) * 1e-9;
}

inline void print_header(const runtime::context& ctx, const char* what) {
    const auto& d = ctx.device();
    std::printf("# %s\n# device: %s | platform: %s | %s | driver %s | %u compute units\n", what, d.name.c_str(),
                d.platform.c_str(), d.version.c_str(), d.driver_version.c_str(), d.compute_units);
}

} // namespace vyre::bench
