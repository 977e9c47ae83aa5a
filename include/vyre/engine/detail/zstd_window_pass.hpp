// The zstd device route's way through one long frame (a `.tar.zst` written by `zstd -T0` is one
// frame; one of several GB outgrows one dispatch of compression.zstd.blocks, whose offsets are
// 32-bit and whose link word per output byte must fit the device's largest allocation): the
// frame is decoded a window of blocks at a time, each window a dispatch of its own whose region
// starts with the frame's latest output, as much as the frame's window size lets a match reach
// (compression::zstd_frame_start). Into host memory only: into the file's staging
// (engine/zstd_decompress.hpp, through engine/detail/zstd_frames_pass.hpp), or window by window to
// a caller that reads the frame as a stream (engine/detail/unpack_zstd_source.hpp).
//
// The windows overlap so: while the device decodes window k, the host walks window k+1's
// sections (format::plan_zstd_window, which carries the tables its first blocks reuse), window
// k-1 comes back over a queue of its own, and a host thread hashes what has come back, window
// after window (XXH64 is one sequential state). Two output buffers alternate; a window's history
// is copied on the device from the tail of the one before.
#pragma once

#include <vyre/engine/zstd_host.hpp>
#include <vyre/engine/zstd_options.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/format/zstd_window_sections.hpp>
#include <vyre/ops/compression/zstd_blocks.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/util/parallel.hpp>

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::engine::detail {

// Output bytes a window holds (at least one block) unless zstd_options::window_bytes says
// otherwise; a frame longer than this goes a window at a time even where one dispatch would hold
// it, because the windows overlap the walk, the read-back and the hash with the device's work,
// which one dispatch runs one after another (doc/ops/compression.zstd.blocks.md has the
// figures of each window size).
inline constexpr std::uint64_t zstd_default_window_bytes = std::uint64_t{256} << 20;

// True when compression.zstd.blocks cannot take frame f in one dispatch.
inline bool zstd_frame_outgrows_dispatch(const runtime::device_info& device, const format::zstd_frame& f) {
    return f.output_capacity > 0xFFFFFFFFull || f.output_capacity * 4 > device.max_allocation || f.size > 0xFFFFFFFFull;
}

// The history a window needs: as far back as the frame's window lets a match reach.
inline std::uint64_t zstd_window_history(const format::zstd_frame& f) { return std::min(f.window_size, f.output_capacity); }

inline std::uint64_t zstd_window_bytes(const zstd_options& options) {
    return options.window_bytes != 0 ? options.window_bytes : zstd_default_window_bytes;
}

// Whether frame f decodes in windows on `device`: a window's region (history, its blocks, at
// most one block past window_bytes) within 32-bit offsets and the device's largest allocation,
// its link words too. A frame whose window is gigabytes long stays on the host.
inline bool zstd_windows_fit(const runtime::device_info& device, const format::zstd_frame& f, const zstd_options& options) {
    const std::uint64_t blocks = zstd_window_bytes(options) + f.block_maximum_size;
    const std::uint64_t region = zstd_window_history(f) + blocks;
    return f.dictionary_id == 0 && region <= 0xFFFFFFFFull && runtime::padded_bytes(region) <= device.max_allocation &&
           blocks * 4 <= device.max_allocation;
}

// Whether frame f takes the windowed way: it outgrows one dispatch or one window.
inline bool zstd_frame_takes_windows(const runtime::device_info& device, const format::zstd_frame& f, const zstd_options& options) {
    return zstd_frame_outgrows_dispatch(device, f) || f.output_capacity > zstd_window_bytes(options);
}

// Blocks [first, first + count) of each window: consecutive blocks up to window_bytes of staging
// capacity (at least one block each).
inline std::vector<std::pair<std::size_t, std::size_t>> zstd_frame_windows(const format::zstd_frame& f, std::uint64_t window_bytes) {
    std::vector<std::pair<std::size_t, std::size_t>> windows;
    std::uint64_t capacity = 0;
    for (std::size_t b = 0; b < f.blocks.size(); ++b) {
        const std::uint64_t c = f.blocks[b].output_capacity;
        if (windows.empty() || (capacity != 0 && capacity + c > window_bytes)) {
            windows.emplace_back(b, 0);
            capacity = 0;
        }
        ++windows.back().second;
        capacity += c;
    }
    return windows;
}

struct zstd_windows_run {
    std::uint64_t size = 0; // the frame's decoded bytes
    std::size_t windows = 0, rounds = 0;
    std::uint64_t uploaded = 0;
    std::size_t transfers = 0;
    // Wall clock the device thread waited for the next window's walk, and for the last hash.
    double host_seconds = 0;
    // A window refused a match reaching past its history, and libzstd decoded the frame instead.
    bool host_frame = false;
};

// Where the windows' bytes go when they do not go to staging: a caller that consumes the frame as a
// stream (engine/detail/unpack_zstd_source.hpp) hands out a buffer per window and takes it back,
// in order, once the window's bytes are in it.
struct zstd_window_output {
    // Room for window w's `size` bytes (called on the device's thread; it may wait for room).
    std::function<std::uint8_t*(std::size_t w, std::uint64_t size)> place;
    // Window w's bytes are in the room `place` gave (called in window order, on a thread of the pass).
    std::function<void(std::size_t w)> ready;
};

// Decodes frame `index` of `file` (parsed from `data`) window by window into staging at the frame's
// staging offset, checks its content size and checksum, and returns its decoded size. Throws
// format_error naming the failing block as every other route does.
// With `output`, each window goes where output->place says instead (staging is not touched), and
// where a window refuses a match reaching past its history the run stops there with host_frame set
// and `size` the bytes already given: the caller decodes the rest.
inline zstd_windows_run zstd_run_windows(runtime::context& ctx, std::span<const std::uint8_t> data, const format::zstd_file& file,
                                         std::size_t index, const zstd_options& options, std::span<std::uint8_t> staging,
                                         const zstd_window_output* output = nullptr) {
    namespace c = compression;
    namespace bcm = boost::compute;
    const format::zstd_frame& f = file.frames.at(index);
    if (!zstd_windows_fit(ctx.device(), f, options))
        throw resource_error("zstd: the frame at byte offset " + std::to_string(f.offset) + " (window of " + std::to_string(f.window_size) +
                             " bytes) does not fit compression.zstd.blocks' windows on " + ctx.device().label());
    const auto windows = zstd_frame_windows(f, zstd_window_bytes(options));
    const std::uint64_t history_max = zstd_window_history(f);
    const unsigned threads = util::thread_count(options.threads);
    const auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
    const auto make_queue = [&] {
        return runtime::cl_call("clCreateCommandQueue", [&] { return bcm::command_queue(ctx.cl_context(), ctx.device().device); });
    };
    runtime::context program(make_queue());
    bcm::command_queue down = make_queue();
    zstd_windows_run run;
    run.windows = windows.size();

    format::zstd_window_carry carry;
    const auto plan = [&, options = format::zstd_plan_options{threads, format::zstd_default_max_plan_bytes, true}](std::size_t w) {
        return format::plan_zstd_window(data, f, windows[w].first, windows[w].second, carry, options);
    };
    XXH64_state_t hash;
    XXH64_reset(&hash, 0);
    bcm::buffer input;
    std::array<bcm::buffer, 2> out;
    std::array<bcm::event, 2> back; // each output buffer's last read-back
    std::array<std::uint64_t, 2> filled{0, 0}; // history plus decoded bytes each holds
    std::future<format::zstd_sections> next;
    std::future<void> hashed; // the hash of every window read back so far
    std::uint64_t produced = 0;
    std::array<std::uint32_t, 3> repeats{1, 4, 8};
    try {
        next = std::async(std::launch::async, plan, std::size_t{0});
        for (std::size_t w = 0; w < windows.size(); ++w) {
            const double t0 = clock();
            format::zstd_sections s = next.get();
            run.host_seconds += clock() - t0;
            // The walk carries tables from window to window, so it runs in order, a window ahead.
            if (w + 1 < windows.size()) next = std::async(std::launch::async, plan, w + 1);
            const std::uint64_t history = std::min(history_max, produced);
            format::zstd_prepend_history(s, history);
            bcm::buffer& o = out[w % 2];
            if (back[w % 2].get() != nullptr) back[w % 2].wait(); // window w - 2's bytes have left it
            runtime::reserve(program, o, runtime::padded_bytes(s.output_bytes));
            runtime::reserve(program, input, runtime::padded_bytes(s.input_bytes), CL_MEM_READ_ONLY);
            runtime::cl_call("clEnqueueWriteBuffer", [&] {
                program.queue().enqueue_write_buffer_async(input, 0, s.input_bytes, data.data() + s.input_base);
            });
            if (history != 0) {
                const std::uint64_t from = filled[(w + 1) % 2] - history;
                runtime::cl_call("clEnqueueCopyBuffer",
                                 [&] { program.queue().enqueue_copy_buffer(out[(w + 1) % 2], o, from, 0, history); });
                ++run.transfers;
            }
            run.uploaded += s.input_bytes;
            run.transfers += 2;
            const auto r = ops::compression::decode_zstd_blocks(program, input, s.input_bytes, s, options.variant, &o,
                                                                c::zstd_frame_start{static_cast<std::uint32_t>(history), repeats});
            run.rounds += r.rounds;
            std::array<std::uint32_t, c::zstd_status_words> status{};
            std::copy(r.statuses.begin(), r.statuses.begin() + c::zstd_status_words, status.begin());
            if (status[0] != c::zstd_error::none) {
                // A match reaching further back than the history the window held (the frame's
                // window size) breaks the format, but libzstd's frame API, and one dispatch,
                // accept a match anywhere in the frame's earlier output: the host decides, so
                // that every route gives one answer.
                if (status[3] == c::zstd_frame_reason::offset && history < produced) {
                    run.host_frame = true;
                    break;
                }
                status[2] += static_cast<std::uint32_t>(windows[w].first); // counted from the frame's first block
                zstd_frame_refused(f, status);
            }
            const std::uint64_t size = status[1];
            std::uint8_t* to = size == 0 ? nullptr : output ? output->place(w, size) : staging.data() + f.output_offset + produced;
            filled[w % 2] = history + size;
            back[w % 2] = {};
            if (size != 0)
                runtime::cl_call("clEnqueueReadBuffer", [&] {
                    back[w % 2] = down.enqueue_read_buffer_async(o, history, size, to);
                    down.flush();
                });
            if ((f.checksum || output) && size != 0)
                hashed = std::async(std::launch::async, [&hash, before = std::move(hashed), done = back[w % 2], to, size, w, output,
                                                         checksum = f.checksum.has_value()]() mutable {
                    if (before.valid()) before.get();
                    done.wait();
                    if (checksum) XXH64_update(&hash, to, size);
                    if (output) output->ready(w);
                });
            produced += size;
            repeats = r.repeats;
        }
        const double t0 = clock();
        runtime::cl_call("clFinish", [&] { down.finish(); });
        if (hashed.valid()) hashed.get();
        run.host_seconds += clock() - t0;
    } catch (...) {
        // Nothing may still write into staging or read the hash once the caller has them back.
        try {
            down.finish();
        } catch (...) {
        }
        try {
            if (hashed.valid()) hashed.wait();
        } catch (...) {
        }
        if (next.valid()) next.wait();
        throw;
    }
    if (run.host_frame && output) {
        run.size = produced;
        return run;
    }
    if (run.host_frame) {
        // The read-backs and the hash are done (above); the frame is decoded again from its start.
        const zstd_dctx_ptr dctx = zstd_make_frame_dctx();
        run.size = zstd_decode_frame(dctx.get(), data, f, staging).size;
        return run;
    }
    zstd_check_size(f, produced);
    zstd_check_digest(f, hash);
    run.size = produced;
    return run;
}

} // namespace vyre::engine::detail
