// Subgroups on a device: which lowering of the IR's subgroup operations it gets
// (lower::subgroup_lowering), and what subgroup size a built kernel really runs with.
#pragma once

#include <vyre/lower/opencl.hpp>
#include <vyre/runtime/device.hpp>

#include <dlfcn.h>

#include <CL/cl_ext.h>

#include <cstddef>
#include <string>

namespace vyre::runtime {

// NVIDIA's OpenCL lists no cl_khr_subgroups but compiles inline PTX, whose warp instructions give
// subgroups of up to 32; devices listing cl_khr_subgroups use its built-ins; the rest emulate.
inline lower::subgroup_lowering native_subgroups(const device_info& d) {
    if (d.is_gpu() && detail::lower_case(d.platform).find("nvidia") != std::string::npos) return lower::subgroup_lowering::nvidia_ptx;
    if (d.has_extension("cl_khr_subgroups")) return lower::subgroup_lowering::khr;
    return lower::subgroup_lowering::emulated;
}

// The largest subgroup a built kernel has in one-dimensional workgroups of `workgroup` invocations
// (cl_khr_subgroups' CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE), or 0 where the driver cannot say.
inline std::size_t kernel_subgroup_size(cl_kernel kernel, const device_info& d, std::size_t workgroup) {
    using query_fn = cl_int (*)(cl_kernel, cl_device_id, cl_kernel_sub_group_info, size_t, const void*, size_t, void*, size_t*);
    query_fn query = nullptr;
    cl_platform_id platform = nullptr;
    if (clGetDeviceInfo(d.device.id(), CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) == CL_SUCCESS)
        query = reinterpret_cast<query_fn>(clGetExtensionFunctionAddressForPlatform(platform, "clGetKernelSubGroupInfoKHR"));
    // OpenCL 2.1 made the query core; the ICD loader exports it whatever version vyre targets.
    if (!query) query = reinterpret_cast<query_fn>(dlsym(RTLD_DEFAULT, "clGetKernelSubGroupInfo"));
    if (!query) return 0;
    std::size_t size = 0;
    const cl_int rc = query(kernel, d.device.id(), CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR, sizeof workgroup, &workgroup,
                            sizeof size, &size, nullptr);
    return rc == CL_SUCCESS ? size : 0;
}

} // namespace vyre::runtime
