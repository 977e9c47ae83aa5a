// Waiting for a command queue without keeping a core busy: shared by the engines' device passes
// (engine/zstd_decompress.hpp, engine/deflate_decompress.hpp), whose host passes need every core.
#pragma once

#include <vyre/error.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/opencl.hpp>

#include <chrono>
#include <string>
#include <thread>

namespace vyre::engine::detail {

// Waits for everything enqueued on `q` so far (a driver's clFinish may spin a core) by polling a
// marker; `op` names the op in the error when a command failed.
inline void wait_queue_idle(boost::compute::command_queue& q, const char* op) {
    boost::compute::event marker = runtime::cl_call("clEnqueueMarkerWithWaitList", [&] { return q.enqueue_marker(); });
    runtime::cl_call("clFlush", [&] { q.flush(); });
    for (;;) {
        const cl_int status = runtime::cl_call("clGetEventInfo", [&] { return marker.status(); });
        if (status == CL_COMPLETE) return;
        if (status < 0) {
            runtime::cl_call("clFinish", [&] { q.finish(); }); // reports the failed command's error
            throw error(std::string(op) + ": a device command failed (status " + std::to_string(status) + ")");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

} // namespace vyre::engine::detail
