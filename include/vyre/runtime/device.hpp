// Finding OpenCL devices: list every device of every platform, and pick one by VYRE_DEVICE.
#pragma once

#include <vyre/runtime/opencl.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::runtime {

namespace bc = boost::compute;

// What a person needs to know about a device to choose it, and what ops need to size work.
struct device_info {
    bc::device device;
    std::string name;
    std::string platform;
    std::string vendor;
    std::string version;
    std::string driver_version;
    std::string extensions; // CL_DEVICE_EXTENSIONS, space-separated
    cl_device_type type = 0; // a bitmask: PoCL reports CPU|DEFAULT, so test bits
    std::uint32_t compute_units = 0;
    std::uint64_t global_memory = 0;
    std::uint64_t max_allocation = 0;
    std::uint64_t local_memory = 0;
    std::uint64_t constant_buffer = 0;
    std::size_t max_workgroup_size = 0;
    bool little_endian = true;

    bool is_gpu() const noexcept { return (type & CL_DEVICE_TYPE_GPU) != 0; }
    bool is_cpu() const noexcept { return (type & CL_DEVICE_TYPE_CPU) != 0; }
    // "NVIDIA H100 80GB HBM3 (NVIDIA CUDA)": unique enough for filters and test names.
    std::string label() const { return name + " (" + platform + ")"; }
    bool has_extension(std::string_view ext) const {
        for (std::size_t at = extensions.find(ext); at != std::string::npos; at = extensions.find(ext, at + 1)) {
            const std::size_t end = at + ext.size();
            if ((at == 0 || extensions[at - 1] == ' ') && (end == extensions.size() || extensions[end] == ' ')) return true;
        }
        return false;
    }
};

inline std::string device_type_name(cl_device_type type) {
    std::string out;
    auto add = [&](cl_device_type bit, const char* n) {
        if (type & bit) out += out.empty() ? n : std::string("|") + n;
    };
    add(CL_DEVICE_TYPE_GPU, "GPU");
    add(CL_DEVICE_TYPE_CPU, "CPU");
    add(CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR");
    add(CL_DEVICE_TYPE_DEFAULT, "DEFAULT");
    return out.empty() ? "UNKNOWN" : out;
}

inline device_info describe(const bc::device& d) {
    device_info i;
    i.device = d;
    i.name = d.name();
    i.platform = d.platform().name();
    i.vendor = d.vendor();
    i.version = d.version();
    i.driver_version = d.driver_version();
    i.extensions = d.get_info<std::string>(CL_DEVICE_EXTENSIONS);
    i.type = d.type();
    i.compute_units = d.compute_units();
    i.global_memory = d.global_memory_size();
    i.max_allocation = d.get_info<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    i.local_memory = d.local_memory_size();
    i.constant_buffer = d.get_info<cl_ulong>(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
    i.max_workgroup_size = d.max_work_group_size();
    i.little_endian = d.get_info<cl_bool>(CL_DEVICE_ENDIAN_LITTLE) == CL_TRUE;
    return i;
}

namespace detail {
// A call of device discovery, traced (VYRE_TRACE) like the calls through cl_call; its failures are
// answers (no platform, no device), not errors.
template <class F>
auto discovery_call(const char* what, F&& f) {
    const bool traced = tracing();
    const auto start = traced ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    auto result = std::forward<F>(f)();
    if (traced) trace_end(what, nullptr, start);
    return result;
}
} // namespace detail

// Every device of every platform, in platform order. An absent ICD loader configuration
// (no platform at all) gives an empty list, not an exception: callers decide what that means.
inline std::vector<device_info> list_devices() {
    std::vector<device_info> out;
    cl_uint count = 0;
    if (detail::discovery_call("clGetPlatformIDs", [&] { return clGetPlatformIDs(0, nullptr, &count); }) != CL_SUCCESS || count == 0)
        return out;
    std::vector<cl_platform_id> platforms(count);
    if (clGetPlatformIDs(count, platforms.data(), nullptr) != CL_SUCCESS) return out;
    for (cl_platform_id p : platforms) {
        cl_uint n = 0;
        if (detail::discovery_call("clGetDeviceIDs", [&] { return clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n); }) != CL_SUCCESS ||
            n == 0)
            continue;
        std::vector<cl_device_id> ids(n);
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr) != CL_SUCCESS) continue;
        for (cl_device_id id : ids) out.push_back(describe(bc::device(id)));
    }
    return out;
}

namespace detail {
inline std::string lower_case(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}
} // namespace detail

// True when `filter` (case-insensitive) occurs in the device's name, platform, vendor or version
// string: "nvidia", "h100", "pocl" (PoCL names itself in its version string) all work.
inline bool matches(const device_info& d, std::string_view filter) {
    const std::string f = detail::lower_case(filter);
    for (const std::string* field : {&d.name, &d.platform, &d.vendor, &d.version})
        if (detail::lower_case(*field).find(f) != std::string::npos) return true;
    return false;
}

// The devices whose name or platform contains `filter`; all of them when `filter` is empty.
inline std::vector<device_info> filter_devices(const std::vector<device_info>& all, std::string_view filter) {
    if (filter.empty()) return all;
    std::vector<device_info> out;
    for (const auto& d : all)
        if (matches(d, filter)) out.push_back(d);
    return out;
}

inline std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

// The device vyre uses by default: the first match of `filter` (VYRE_DEVICE when `filter` is
// empty); without a filter the first GPU, else the first device. A filter that matches nothing
// throws no_device listing what exists: a silent fallback would run work on the wrong device.
inline device_info choose_device(std::string filter = {}) {
    const bool from_env = filter.empty();
    if (from_env) filter = env_or_empty("VYRE_DEVICE");
    const auto all = list_devices();
    if (all.empty())
        throw no_device("no OpenCL device found: no platform is registered with the ICD loader "
                        "(install an OpenCL driver such as PoCL: apt-get install pocl-opencl-icd)");
    if (!filter.empty()) {
        const auto hits = filter_devices(all, filter);
        if (hits.empty()) {
            std::string names;
            for (const auto& d : all) names += "\n  " + d.label();
            throw no_device("no OpenCL device matches " + std::string(from_env ? "VYRE_DEVICE=" : "the device filter ") + "\"" +
                            filter + "\"; devices present:" + names);
        }
        return hits.front();
    }
    for (const auto& d : all)
        if (d.is_gpu()) return d;
    return all.front();
}

// The devices a list of choices names, each once, in the order of `all`: "all" (every device), a
// number (its index in `all`, as `vyre devices` numbers list_devices()), or text (every device
// `matches`). A choice that names nothing throws no_device listing what exists.
inline std::vector<device_info> select_devices(const std::vector<device_info>& all, const std::vector<std::string>& choices) {
    std::vector<char> chosen(all.size(), 0);
    for (const auto& c : choices) {
        bool any = false;
        if (c == "all") {
            std::fill(chosen.begin(), chosen.end(), 1);
            any = !all.empty();
        } else if (!c.empty() && std::all_of(c.begin(), c.end(), [](unsigned char x) { return std::isdigit(x); })) {
            const std::size_t i = c.size() > 6 ? all.size() : std::stoul(c);
            if (i < all.size()) chosen[i] = any = true;
        } else {
            for (std::size_t i = 0; i < all.size(); ++i)
                if (!c.empty() && matches(all[i], c)) chosen[i] = any = true;
        }
        if (!any) {
            std::string names;
            for (std::size_t i = 0; i < all.size(); ++i) names += "\n  " + std::to_string(i) + ": " + all[i].label();
            throw no_device("no OpenCL device matches the choice \"" + c + "\" (all, a number, or part of a name); devices present:" +
                            (names.empty() ? std::string(" none") : names));
        }
    }
    std::vector<device_info> out;
    for (std::size_t i = 0; i < all.size(); ++i)
        if (chosen[i]) out.push_back(all[i]);
    return out;
}

} // namespace vyre::runtime
