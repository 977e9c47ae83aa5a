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

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <utility>

namespace vyre::runtime {

// VYRE_TRACE=MS prints to stderr every OpenCL call (and every program build) that took at least MS
// milliseconds of wall time on the calling thread, with when it ended since the process started and
// a number per thread: where a pipeline waits for the driver (a blocking read is the device work
// before it as well), without a profiler. Unset, empty or not a number: no trace, and no clock read.
namespace trace_detail {
inline const auto origin = std::chrono::steady_clock::now();
inline double threshold_ms() {
    static const double t = [] {
        const char* v = std::getenv("VYRE_TRACE");
        if (v == nullptr || *v == 0) return -1.0;
        char* end = nullptr;
        const double ms = std::strtod(v, &end);
        return end == v || ms < 0 ? -1.0 : ms;
    }();
    return t;
}
inline unsigned thread_number() {
    static std::atomic<unsigned> next{0};
    thread_local const unsigned n = next++;
    return n;
}
} // namespace trace_detail

inline bool tracing() { return trace_detail::threshold_ms() >= 0; }

// Ends one traced step begun at `start` (what: the OpenCL call; about: what it was for, or null).
inline void trace_end(const char* what, const char* about, std::chrono::steady_clock::time_point start) {
    const auto end = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(end - start).count();
    if (ms < trace_detail::threshold_ms()) return;
    std::fprintf(stderr, "vyre trace: %9.4f s  thread %2u  %8.3f ms  %s%s%s\n",
                 std::chrono::duration<double>(end - trace_detail::origin).count(), trace_detail::thread_number(), ms, what,
                 about ? "  " : "", about ? about : "");
}

// Runs `f`, turning Boost.Compute's exception into vyre::opencl_error naming the call: every
// OpenCL call vyre makes goes through it, in every layer that talks to a device (and is traced
// there under VYRE_TRACE).
template <class F>
decltype(auto) cl_call(const char* what, F&& f) {
    struct traced {
        const char* what;
        std::chrono::steady_clock::time_point start;
        ~traced() {
            if (what) trace_end(what, nullptr, start);
        }
    } t{tracing() ? what : nullptr, tracing() ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{}};
    try {
        return std::forward<F>(f)();
    } catch (const boost::compute::opencl_error& e) {
        throw opencl_error(what, e.error_code());
    }
}

} // namespace vyre::runtime
