// runtime::context: one device, its OpenCL context and the command queue vyre dispatches on.
// Build one from VYRE_DEVICE, from a device, or around a queue that the caller already owns; or
// start one in the background (context::in_background) and use it when it is ready, or have it
// made where it is first needed (context::on_first_use).
#pragma once

#include <vyre/runtime/device.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

namespace vyre::runtime {

class staging_slots; // buffer.hpp: pinned memory kept for staged writes

class context {
public:
    // The default device (VYRE_DEVICE, else the first GPU, else the first device).
    context() : context(choose_device()) {}

    explicit context(const device_info& info, bool profiling = false) : context(make(info, profiling)) {}

    // Interoperation: run on a queue (and so a context and device) the application already has.
    explicit context(const bc::command_queue& queue)
        : context(parts{describe(queue.get_device()), queue.get_context(), queue, 0}) {}

    // Interoperation with OpenCL-CLHPP or raw OpenCL: `cl::CommandQueue q; runtime::context c(q());`
    // The handle is retained, so the caller keeps ownership of its own reference.
    explicit context(cl_command_queue queue) : context(bc::command_queue(queue, true)) {}

    // The default device's context, made on a thread of its own: a GPU driver's start-up (loading
    // it, creating the device context) takes a large part of a second, and a command can read and
    // parse its inputs meanwhile. The first use of device(), cl_context() or queue() waits until it
    // is made, and throws what making it threw (no device, say).
    static context in_background(bool profiling = false) {
        context c(deferred{});
        const auto start = std::chrono::steady_clock::now();
        c.state_->began = start;
        c.state_->made = std::async(std::launch::async, [profiling, start, state = c.state_.get()] {
                              ++started_count();
                              const device_info info = choose_device();
                              state->chosen_is_cpu.store(info.is_cpu() && !info.is_gpu() ? 1 : 0, std::memory_order_release);
                              auto p = std::make_shared<parts>(make(info, profiling));
                              p->making_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                              return p;
                          }).share();
        return c;
    }

    // The default device's context, made by the first call that needs it, on that thread: for a
    // run that may need no device at all (engine::unpack of small inputs decodes on the host), so
    // that such a run never loads a driver.
    static context on_first_use(bool profiling = false) {
        context c(deferred{});
        c.state_->made = std::async(std::launch::deferred, [profiling] {
                              ++started_count();
                              const auto start = std::chrono::steady_clock::now();
                              auto p = std::make_shared<parts>(make(choose_device(), profiling));
                              p->making_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                              return p;
                          }).share();
        return c;
    }

    // How many contexts in_background and on_first_use have begun to make in this process: a
    // test's way to see that a run made none.
    static std::uint64_t contexts_started() noexcept { return started_count().load(); }

    const device_info& device() const { return get().info; }
    const bc::context& cl_context() const { return get().context; }
    bc::command_queue& queue() { return get().queue; }
    const bc::command_queue& queue() const { return get().queue; }
    bool profiling() const {
        return (queue().get_info<cl_command_queue_properties>(CL_QUEUE_PROPERTIES) & CL_QUEUE_PROFILING_ENABLE) != 0;
    }
    void finish() { cl_call("clFinish", [&] { queue().finish(); }); }

    // Whether the context has been used (always, for one made on the spot; for one made in the
    // background or on first use, whether anything has asked for it yet).
    bool used() const noexcept { return state_->used.load(std::memory_order_acquire); }
    // For one started in_background or on_first_use: how long making it took (waiting for it, or
    // making it, if need be), and how long its users waited for it, summed over the threads that
    // waited (two passes of a layer may wait at once). Both 0 for one made on the spot. Asking
    // making_seconds() of one not used yet waits for it (or, on first use, makes it): check used().
    double making_seconds() const { return get().making_seconds; }
    double waited_seconds() const noexcept { return double(state_->waited_nanoseconds.load()) * 1e-9; }
    // Whether using it now would not wait: made on the spot, used already, or made in the
    // background by now. A caller choosing between the device and the host uses this and
    // making_began_seconds_ago() to weigh the wait (a GPU driver's start-up) without waiting.
    bool ready() const {
        return state_->used.load(std::memory_order_acquire) ||
               state_->made.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    }
    // Whether the device is a CPU device (PoCL) and not a GPU, once that is known: for one made in
    // the background, as soon as the device is chosen, before its driver context is made (a GPU
    // driver's start is the slow part); for any other, once it is ready. Unset before. Once made,
    // it throws what making the context threw.
    std::optional<bool> is_cpu_device() const {
        if (ready()) return device().is_cpu() && !device().is_gpu();
        const int chosen = state_->chosen_is_cpu.load(std::memory_order_acquire);
        if (chosen < 0) return std::nullopt;
        return chosen == 1;
    }
    // For one made in_background: seconds since making began; 0 for any other.
    double making_began_seconds_ago() const noexcept {
        if (state_->began == std::chrono::steady_clock::time_point{}) return 0;
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - state_->began).count();
    }

    // The pinned slots of write_staged (buffer.hpp), made at its first use and shared by copies of
    // this context made after that: pinning memory costs far more than copying through it, so it is
    // done once. Like the queue, a context is used from one thread at a time.
    std::shared_ptr<staging_slots>& staging() const noexcept { return staging_; }

    // What an engine keeps on this context from one call to the next (its command queues, device
    // buffers as large as the last call needed, its walk threads), one object per type T, shared
    // by every copy of the context. take_kept<T>() hands the kept object to its caller alone and
    // null when none is kept, or when another call holds it (that caller then makes its own), so
    // calls on several threads never share one; keep() puts it back when the call is done (an
    // object already kept is replaced). Device memory kept here stays allocated until
    // release_kept() or until the context's last copy goes.
    template <class T>
    std::shared_ptr<T> take_kept() const {
        const std::lock_guard<std::mutex> l(state_->kept_lock);
        for (auto& [type, object] : state_->kept)
            if (type == std::type_index(typeid(T))) return std::static_pointer_cast<T>(std::exchange(object, nullptr));
        return nullptr;
    }
    template <class T>
    void keep(std::shared_ptr<T> object) const {
        std::shared_ptr<void> replaced; // destroyed outside the lock
        const std::lock_guard<std::mutex> l(state_->kept_lock);
        for (auto& [type, held] : state_->kept)
            if (type == std::type_index(typeid(T))) {
                replaced = std::exchange(held, std::move(object));
                return;
            }
        state_->kept.emplace_back(std::type_index(typeid(T)), std::move(object));
    }
    // Frees everything kept (objects taken by a call now running go when it ends, unless it keeps them).
    void release_kept() const {
        std::vector<std::pair<std::type_index, std::shared_ptr<void>>> released;
        const std::lock_guard<std::mutex> l(state_->kept_lock);
        released.swap(state_->kept);
    }
    // How many objects are kept now.
    std::size_t kept_count() const {
        const std::lock_guard<std::mutex> l(state_->kept_lock);
        std::size_t n = 0;
        for (const auto& entry : state_->kept) n += entry.second != nullptr;
        return n;
    }

private:
    struct parts {
        device_info info;
        bc::context context;
        bc::command_queue queue;
        double making_seconds = 0;
    };
    // Shared by copies (their OpenCL handles would be shared anyway).
    struct shared_state {
        // in_background: -1 until the device is chosen. Set by the thread that makes the context,
        // so declared first: destroyed after `made`, whose destruction waits for that thread.
        std::atomic<int> chosen_is_cpu{-1};
        std::shared_future<std::shared_ptr<parts>> made;
        std::atomic<bool> used{false};
        std::atomic<std::int64_t> waited_nanoseconds{0};
        std::chrono::steady_clock::time_point began{}; // in_background's start
        std::mutex kept_lock;
        std::vector<std::pair<std::type_index, std::shared_ptr<void>>> kept; // take_kept / keep
    };
    struct deferred {};
    explicit context(deferred) : state_(std::make_shared<shared_state>()) {}
    explicit context(parts p) : state_(std::make_shared<shared_state>()) {
        std::promise<std::shared_ptr<parts>> promise;
        promise.set_value(std::make_shared<parts>(std::move(p)));
        state_->made = promise.get_future().share();
        state_->used = true;
    }

    static std::atomic<std::uint64_t>& started_count() noexcept {
        static std::atomic<std::uint64_t> n{0};
        return n;
    }

    static parts make(const device_info& info, bool profiling) {
        bc::context c = cl_call("clCreateContext", [&] { return bc::context(info.device); });
        bc::command_queue q = cl_call("clCreateCommandQueue", [&] {
            return bc::command_queue(c, info.device, profiling ? bc::command_queue::enable_profiling : 0);
        });
        return {info, std::move(c), std::move(q), 0};
    }
    // After the first use, an atomic load and the shared_future's own (the value is made).
    parts& get() const {
        if (!state_->used.load(std::memory_order_acquire)) {
            const auto t0 = std::chrono::steady_clock::now();
            state_->made.wait();
            state_->waited_nanoseconds += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
            state_->used.store(true, std::memory_order_release);
        }
        return *state_->made.get();
    }

    std::shared_ptr<shared_state> state_;
    mutable std::shared_ptr<staging_slots> staging_;
};

// Makes `to` wait for `done`, an event of `from` (another queue of the same context): `from` is
// flushed first, since a queue that waits on work never submitted waits forever.
inline void wait_across(bc::command_queue& from, const bc::event& done, bc::command_queue& to) {
    if (done.get() == nullptr) return;
    cl_call("clFlush", [&] { from.flush(); });
    cl_call("clEnqueueBarrierWithWaitList", [&] { to.enqueue_barrier(bc::wait_list(done)); });
}

} // namespace vyre::runtime
