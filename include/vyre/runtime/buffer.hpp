// Device buffers and host transfers, including pinned host memory: pageable copies are staged by
// the driver and run several times slower than pinned ones (doc/runtime.md), so bulk data should
// be staged through pinned memory.
#pragma once

#include <vyre/runtime/context.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace vyre::runtime {

// OpenCL cannot allocate zero bytes; an empty buffer still gets one word so it can be bound.
inline bc::buffer allocate(const context& ctx, std::size_t bytes, cl_mem_flags flags = CL_MEM_READ_WRITE) {
    const std::size_t size = bytes == 0 ? 4 : bytes;
    if (size > ctx.device().max_allocation)
        throw resource_error("buffer of " + std::to_string(size) + " bytes exceeds the device's maximum allocation of " +
                             std::to_string(ctx.device().max_allocation) + " bytes on " + ctx.device().label());
    return cl_call("clCreateBuffer", [&] { return bc::buffer(ctx.cl_context(), size, flags); });
}

// Makes `b` (empty or held from an earlier run) at least `bytes` long: kept when it is, otherwise
// replaced by one an eighth larger than asked (within the device's maximum allocation), so that
// runs of slowly growing sizes reallocate rarely. For buffers kept across the runs of a pipeline:
// the NVIDIA driver frees memory only once the whole device is idle, so freeing a run's buffers
// while the next run works would make the runs take turns.
inline void reserve(const context& ctx, bc::buffer& b, std::size_t bytes, cl_mem_flags flags = CL_MEM_READ_WRITE) {
    if (b.get() != nullptr && b.size() >= bytes) return;
    const std::size_t spare = std::min<std::size_t>(bytes + bytes / 8, ctx.device().max_allocation);
    b = allocate(ctx, (std::max(spare, bytes) + 3) / 4 * 4, flags);
}

// Blocking copies between host memory and a device buffer.
inline void write(context& ctx, bc::buffer& dst, const void* src, std::size_t bytes, std::size_t offset = 0) {
    if (bytes == 0) return;
    cl_call("clEnqueueWriteBuffer", [&] { ctx.queue().enqueue_write_buffer(dst, offset, bytes, src); });
}
inline void read(context& ctx, const bc::buffer& src, void* dst, std::size_t bytes, std::size_t offset = 0) {
    if (bytes == 0) return;
    cl_call("clEnqueueReadBuffer", [&] { ctx.queue().enqueue_read_buffer(src, offset, bytes, dst); });
}

// Many reads, each from a place in a device buffer into host memory of its own: every read
// enqueued, then one wait, so that the host does not wait for the device once per piece.
struct read_piece {
    const bc::buffer* src;
    std::size_t offset;
    void* dst;
    std::size_t bytes;
};
inline void read_each(context& ctx, std::span<const read_piece> pieces) {
    bool any = false;
    try {
        for (const auto& p : pieces) {
            if (p.bytes == 0) continue;
            cl_call("clEnqueueReadBuffer", [&] { ctx.queue().enqueue_read_buffer_async(*p.src, p.offset, p.bytes, p.dst); });
            any = true;
        }
    } catch (...) {
        // The reads already enqueued still write into the caller's memory: wait for them first.
        if (any) {
            try {
                ctx.finish();
            } catch (...) {
            }
        }
        throw;
    }
    if (any) ctx.finish();
}

// Fills the first `bytes` bytes of `b` (a multiple of 4) with the u32 `pattern` on the context's
// queue and returns the event; nothing waits.
inline bc::event fill(context& ctx, bc::buffer& b, std::uint32_t pattern, std::size_t bytes) {
    if (bytes == 0) return {};
    return cl_call("clEnqueueFillBuffer", [&] { return ctx.queue().enqueue_fill_buffer(b, &pattern, 4, 0, bytes); });
}

template <class T>
bc::buffer upload(context& ctx, std::span<const T> data, cl_mem_flags flags = CL_MEM_READ_WRITE) {
    auto b = allocate(ctx, data.size_bytes(), flags);
    write(ctx, b, data.data(), data.size_bytes());
    return b;
}
template <class T>
std::vector<T> download(context& ctx, const bc::buffer& b, std::size_t count) {
    std::vector<T> out(count);
    read(ctx, b, out.data(), count * sizeof(T));
    return out;
}

// Page-locked host memory, mapped for the life of the object: fill span() on the host, then
// copy_to_device() runs at DMA speed. Reuse one across batches; allocating it is slow.
class pinned_host_buffer {
public:
    pinned_host_buffer(context& ctx, std::size_t bytes)
        : ctx_(&ctx), bytes_(bytes), host_(allocate(ctx, bytes, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR)) {
        data_ = static_cast<std::uint8_t*>(cl_call("clEnqueueMapBuffer", [&] {
            return ctx.queue().enqueue_map_buffer(host_, CL_MAP_READ | CL_MAP_WRITE, 0, bytes_ == 0 ? 4 : bytes_);
        }));
    }
    ~pinned_host_buffer() {
        try {
            ctx_->queue().enqueue_unmap_buffer(host_, data_);
            ctx_->queue().finish();
        } catch (...) {
        }
    }
    pinned_host_buffer(const pinned_host_buffer&) = delete;
    pinned_host_buffer& operator=(const pinned_host_buffer&) = delete;

    std::span<std::uint8_t> span() noexcept { return {data_, bytes_}; }
    std::size_t size() const noexcept { return bytes_; }

    // Asynchronous copies on the context's queue; wait on the returned event (or finish()).
    bc::event copy_to_device(bc::buffer& dst, std::size_t bytes, std::size_t dst_offset = 0) {
        return ctx_->queue().enqueue_write_buffer_async(dst, dst_offset, bytes, data_);
    }
    bc::event copy_from_device(const bc::buffer& src, std::size_t bytes, std::size_t src_offset = 0) {
        return ctx_->queue().enqueue_read_buffer_async(src, src_offset, bytes, data_);
    }

private:
    context* ctx_;
    std::size_t bytes_;
    bc::buffer host_;
    std::uint8_t* data_ = nullptr;
};

// Two pinned slots of staged_write_slice bytes for write_staged, owned through the context (and
// shared by copies of it made after they exist), mapped and unmapped on a handle of the context's
// queue. Pinning memory costs
// more than copying many times its size through it (doc/runtime.md): made per call, the slots
// would cost more than they save. One staged write at a time uses them (`lock`), with the slots'
// own pool of host threads.
inline constexpr std::size_t staged_write_slice = std::size_t{16} << 20;

class staging_slots {
public:
    staging_slots(const bc::context& c, const bc::command_queue& q) : queue_(q) {
        for (int i = 0; i < 2; ++i) {
            host_[i] = cl_call("clCreateBuffer", [&] { return bc::buffer(c, staged_write_slice, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR); });
            data_[i] = static_cast<std::uint8_t*>(cl_call("clEnqueueMapBuffer", [&] {
                return queue_.enqueue_map_buffer(host_[i], CL_MAP_READ | CL_MAP_WRITE, 0, staged_write_slice);
            }));
        }
    }
    ~staging_slots() {
        try {
            for (int i = 0; i < 2; ++i)
                if (data_[i]) queue_.enqueue_unmap_buffer(host_[i], data_[i]);
            queue_.finish();
        } catch (...) {
        }
    }
    staging_slots(const staging_slots&) = delete;
    staging_slots& operator=(const staging_slots&) = delete;

    std::uint8_t* slot(int i) noexcept { return data_[i]; }
    util::worker_pool& copiers() noexcept { return pool_; }
    std::mutex lock;

private:
    bc::command_queue queue_;
    bc::buffer host_[2];
    std::uint8_t* data_[2] = {nullptr, nullptr};
    util::worker_pool pool_{0}; // the host threads that fill the slots (every core)
};

// A blocking copy of pageable host memory into dst (at `offset`) at nearly the speed of a pinned
// one: the context's two pinned slots (staging_slots, made at the first call), one filled by every
// host core while the DMA engine drains the other. The driver's own pageable path stages on one
// thread, which is what limits it (doc/runtime.md has the figures). Copies below
// staged_write_minimum go straight through write().
inline constexpr std::size_t staged_write_minimum = std::size_t{1} << 20;

// The context's slots, made at the first staged copy.
inline std::shared_ptr<staging_slots> staging_of(context& ctx) {
    auto& shared = ctx.staging();
    if (!shared) shared = std::make_shared<staging_slots>(ctx.cl_context(), ctx.queue());
    return shared;
}

// The copy in flight into or out of each slot, waited for when it goes: a staged copy returns only
// once neither slot is being written by the device, on every path out (an enqueue that throws
// leaves the other slot's copy in flight).
struct slot_copies {
    bc::event events[2];
    bc::event& operator[](std::size_t i) noexcept { return events[i]; }
    slot_copies() = default;
    slot_copies(const slot_copies&) = delete;
    slot_copies& operator=(const slot_copies&) = delete;
    ~slot_copies() {
        for (auto& e : events)
            if (e.get()) try {
                    e.wait();
                } catch (...) {
                }
    }
};

// Host bytes of a gathered write: pieces land back to back.
struct host_piece {
    const void* data = nullptr;
    std::size_t bytes = 0;
};

// write_staged of many pieces of host memory, written back to back into dst from `offset`, as if
// they had been copied into one buffer first: each slot is filled from the pieces it covers, so
// from staged_write_minimum on the gathering costs no copy of its own (the scan stage's files,
// scattered over the archives). Below it, the pieces are joined on this thread and written.
inline void write_gathered(context& ctx, bc::buffer& dst, std::span<const host_piece> pieces, std::size_t offset = 0) {
    // starts[i]: where piece i lands, relative to offset; starts.back(): the whole size.
    std::vector<std::size_t> starts(pieces.size() + 1, 0);
    for (std::size_t i = 0; i < pieces.size(); ++i) starts[i + 1] = starts[i] + pieces[i].bytes;
    const std::size_t bytes = starts.back();
    if (bytes == 0) return;
    // [at, at + n) of the whole into `to`: the pieces it overlaps, found by their starts.
    const auto gather = [&](std::uint8_t* to, std::size_t at, std::size_t n) {
        std::size_t i = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), at) - starts.begin()) - 1;
        for (std::size_t done = 0; done < n; ++i) {
            const std::size_t from = at + done - starts[i], take = std::min(n - done, pieces[i].bytes - from);
            if (take) std::memcpy(to + done, static_cast<const std::uint8_t*>(pieces[i].data) + from, take);
            done += take;
        }
    };
    if (bytes < staged_write_minimum) {
        if (pieces.size() == 1) {
            write(ctx, dst, pieces[0].data, bytes, offset);
            return;
        }
        std::vector<std::uint8_t> joined(bytes);
        gather(joined.data(), 0, bytes);
        write(ctx, dst, joined.data(), bytes, offset);
        return;
    }
    const std::shared_ptr<staging_slots> slots = staging_of(ctx);
    const std::lock_guard<std::mutex> hold(slots->lock);
    slot_copies pending; // both slots' copies done before this returns, on every path out
    constexpr std::size_t piece = std::size_t{1} << 20; // one copy per thread and MiB
    for (std::size_t at = 0, i = 0; at < bytes; at += staged_write_slice, ++i) {
        const std::size_t n = std::min(staged_write_slice, bytes - at), s = i % 2;
        if (pending[s].get()) cl_call("clWaitForEvents", [&] { pending[s].wait(); });
        std::uint8_t* slot = slots->slot(static_cast<int>(s));
        slots->copiers().run((n + piece - 1) / piece, 1, [&](std::size_t p) noexcept {
            gather(slot + p * piece, at + p * piece, std::min(piece, n - p * piece));
        });
        pending[s] = cl_call("clEnqueueWriteBuffer", [&] { return ctx.queue().enqueue_write_buffer_async(dst, offset + at, n, slot); });
        ctx.queue().flush();
    }
    for (auto& e : pending.events)
        if (e.get()) cl_call("clWaitForEvents", [&] { e.wait(); });
}

inline void write_staged(context& ctx, bc::buffer& dst, const void* src, std::size_t bytes, std::size_t offset = 0) {
    const host_piece one{src, bytes};
    write_gathered(ctx, dst, std::span<const host_piece>(&one, 1), offset);
}

// The way back: a blocking read of [offset, offset + bytes) of src into pageable host memory at
// nearly the speed of a pinned one, through the same two slots: every host core copies one slot
// out (faulting dst's pages in as it goes) while the DMA engine fills the other. The driver's own
// pageable read stages on the calling thread. Reads below staged_write_minimum go straight through
// read().
inline void read_staged(context& ctx, const bc::buffer& src, void* dst, std::size_t bytes, std::size_t offset = 0) {
    if (bytes < staged_write_minimum) return read(ctx, src, dst, bytes, offset);
    const std::shared_ptr<staging_slots> slots = staging_of(ctx);
    const std::lock_guard<std::mutex> hold(slots->lock);
    slot_copies pending; // no read may land in a slot after this returns, on every path out
    const std::size_t slices = (bytes + staged_write_slice - 1) / staged_write_slice;
    const auto enqueue = [&](std::size_t i) {
        const std::size_t at = i * staged_write_slice, n = std::min(staged_write_slice, bytes - at);
        pending[i % 2] = cl_call("clEnqueueReadBuffer", [&] {
            return ctx.queue().enqueue_read_buffer_async(src, offset + at, n, slots->slot(static_cast<int>(i % 2)));
        });
        ctx.queue().flush();
    };
    for (std::size_t i = 0; i < std::min<std::size_t>(slices, 2); ++i) enqueue(i);
    constexpr std::size_t piece = std::size_t{1} << 20; // one copy per thread and MiB
    auto* out = static_cast<std::uint8_t*>(dst);
    for (std::size_t i = 0; i < slices; ++i) {
        const std::size_t at = i * staged_write_slice, n = std::min(staged_write_slice, bytes - at), s = i % 2;
        cl_call("clWaitForEvents", [&] { pending[s].wait(); });
        pending[s] = bc::event();
        const std::uint8_t* slot = slots->slot(static_cast<int>(s));
        slots->copiers().run((n + piece - 1) / piece, 1, [&](std::size_t p) noexcept {
            std::memcpy(out + at + p * piece, slot + p * piece, std::min(piece, n - p * piece));
        });
        if (i + 2 < slices) enqueue(i + 2);
    }
}

} // namespace vyre::runtime
