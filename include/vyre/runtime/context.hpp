// runtime::context: one device, its OpenCL context and the command queue vyre dispatches on.
// Build one from VYRE_DEVICE, from a device, or around a queue that the caller already owns.
#pragma once

#include <vyre/runtime/device.hpp>

#include <memory>

namespace vyre::runtime {

class staging_slots; // buffer.hpp: pinned memory kept for staged writes

class context {
public:
    // The default device (VYRE_DEVICE, else the first GPU, else the first device).
    context() : context(choose_device()) {}

    explicit context(const device_info& info, bool profiling = false)
        : info_(info),
          context_(cl_call("clCreateContext", [&] { return bc::context(info.device); })),
          queue_(cl_call("clCreateCommandQueue", [&] {
              return bc::command_queue(context_, info.device,
                                       profiling ? bc::command_queue::enable_profiling : 0);
          })) {}

    // Interoperation: run on a queue (and so a context and device) the application already has.
    explicit context(const bc::command_queue& queue)
        : info_(describe(queue.get_device())), context_(queue.get_context()), queue_(queue) {}

    // Interoperation with OpenCL-CLHPP or raw OpenCL: `cl::CommandQueue q; runtime::context c(q());`
    // The handle is retained, so the caller keeps ownership of its own reference.
    explicit context(cl_command_queue queue) : context(bc::command_queue(queue, true)) {}

    const device_info& device() const noexcept { return info_; }
    const bc::context& cl_context() const noexcept { return context_; }
    bc::command_queue& queue() noexcept { return queue_; }
    const bc::command_queue& queue() const noexcept { return queue_; }
    bool profiling() const {
        return (queue_.get_info<cl_command_queue_properties>(CL_QUEUE_PROPERTIES) & CL_QUEUE_PROFILING_ENABLE) != 0;
    }
    void finish() { cl_call("clFinish", [&] { queue_.finish(); }); }

    // The pinned slots of write_staged (buffer.hpp), made at its first use and shared by copies of
    // this context made after that: pinning memory costs far more than copying through it, so it is
    // done once. Like the queue, a context is used from one thread at a time.
    std::shared_ptr<staging_slots>& staging() const noexcept { return staging_; }

private:
    device_info info_;
    bc::context context_;
    bc::command_queue queue_;
    mutable std::shared_ptr<staging_slots> staging_;
};

} // namespace vyre::runtime
