// The single place where vyre includes OpenCL and Boost.Compute, with the configuration they need.
#pragma once

// vyre generates OpenCL C 1.2 and uses only the 1.2 host API, which every driver provides.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif

#include <boost/compute/core.hpp>

#include <vyre/error.hpp>

#include <exception>
#include <utility>

namespace vyre::runtime {

// Runs `f`, turning Boost.Compute's exception into vyre::opencl_error naming the call: every
// OpenCL call vyre makes goes through it, in every layer that talks to a device.
template <class F>
decltype(auto) cl_call(const char* what, F&& f) {
    try {
        return std::forward<F>(f)();
    } catch (const boost::compute::opencl_error& e) {
        throw opencl_error(what, e.error_code());
    }
}

} // namespace vyre::runtime
