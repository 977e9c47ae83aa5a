// Small helpers shared by the benchmark programs: timing, medians, and device events.
#pragma once

#include <vyre/runtime/context.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace vyre::bench {

inline double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

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
