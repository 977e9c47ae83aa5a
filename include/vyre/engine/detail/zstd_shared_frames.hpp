// The zstd device route into host memory, its frames shared with the host's cores
// (zstd_options::host_share): the device decodes the file's first frames and reads them back,
// while the host's cores decode its last frames with libzstd straight into their staging slots.
// Into host memory the route is bound by the read-back of its output over the bus, and the cores,
// once they have walked the device's groups, only wait for it; every byte they decode is a byte
// less to read back. Internal to engine/detail/zstd_frames_pass.hpp (the task) and
// engine/detail/zstd_route_choice.hpp (the share).
#pragma once

#include <vyre/engine/zstd_host.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <thread>

namespace vyre::engine::detail {

// The automatic route's share (zstd_options::host_share unset), measured on the H200 test machine
// with 16 host threads (doc/ops/compression.zstd.frames.md, Pipeline: "Frames shared with the
// host's cores"). Files of many short frames (compression.zstd.frames) share nothing: there the
// host's cores walk the device's groups, and libzstd beside them slowed both sides at every share
// tried. Files of long frames (compression.zstd.blocks, whose walk is done before the device
// starts) were fastest at a share of 0.4 (against 0.3, 0.35 and 0.45, alternating in one call),
// and there both sides ended together. The two rates below are what each side made in that call:
// the device's part into pinned host memory, and libzstd's beside it per host thread (about half
// its rate alone: it shares the memory with the device's read-back; doc/benchmarks.md, "zstd's
// automatic route: the host's share of long frames, 0.4"). The estimate gives each side its share
// of those two rates, so fewer threads take less.
inline constexpr double zstd_blocks_into_host_bytes_per_second = 17e9;
inline constexpr double zstd_host_thread_beside_device_bytes_per_second = 0.71e9;

inline double zstd_estimated_host_share(unsigned threads, bool blocks_program) noexcept {
    if (!blocks_program) return 0.0;
    const double host = static_cast<double>(threads) * zstd_host_thread_beside_device_bytes_per_second;
    return host / (host + zstd_blocks_into_host_bytes_per_second);
}

// The share asked for, checked: a share outside [0, 1) is refused with its value named.
inline double zstd_checked_host_share(double share) {
    if (!(share >= 0.0 && share < 1.0))
        throw error("zstd_options::host_share " + std::to_string(share) + " is outside [0, 1): the device keeps at least one frame");
    return share;
}

// The first of the frames the host takes for `share` of the output: the file's last frames, whole,
// as many as fit in that share (a frame that would pass it stays on the device, so one long frame
// is never taken, and the device keeps at least the first frame). frames.size(): none.
inline std::size_t zstd_first_shared_frame(const format::zstd_file& file, double share) {
    std::uint64_t total = 0;
    for (const format::zstd_frame& f : file.frames) total += f.output_capacity;
    const auto target = static_cast<std::uint64_t>(std::floor(static_cast<double>(total) * share));
    std::size_t first = file.frames.size();
    std::uint64_t taken = 0;
    while (first > 1 && file.frames[first - 1].output_capacity != 0 && taken + file.frames[first - 1].output_capacity <= target)
        taken += file.frames[--first].output_capacity;
    return first;
}

// The host's frames [first, frames.size()), decoded on a thread of their own (which runs them on
// `threads` threads) while the caller drives the device. Each frame is first walked as the device's
// frames are (format::plan_zstd_sections, its tables described, not built), so that what the walk
// refuses (reserved bits, malformed headers and table descriptions) is refused in the same words
// whichever side a frame falls on; then libzstd's frame API decodes it into its staging slot,
// checking its content size and checksum; sizes[i] gets frame i's decoded size. join() waits and rethrows the first error; a task destroyed unjoined (the device
// route failed) stops at the next frame and is waited for, so nothing writes into staging after.
class zstd_shared_frames_task {
public:
    zstd_shared_frames_task() = default;
    zstd_shared_frames_task(const zstd_shared_frames_task&) = delete;
    zstd_shared_frames_task& operator=(const zstd_shared_frames_task&) = delete;

    bool started() const noexcept { return thread_.joinable() || joined_; }

    void start(std::span<const std::uint8_t> data, const format::zstd_file& file, std::size_t first, std::span<std::uint8_t> staging,
               std::span<std::uint64_t> sizes, unsigned threads) {
        if (started() || first >= file.frames.size()) return;
        thread_ = std::jthread([this, data, &file, first, staging, sizes, threads](std::stop_token stop) {
            began_ = clock();
            struct state {
                zstd_dctx_ptr dctx = zstd_make_frame_dctx();
            };
            try {
                util::parallel_chunks<state>(file.frames.size() - first, threads, 1, [&](std::size_t b, std::size_t e, state& s) {
                    for (std::size_t k = b; k < e && !stop.stop_requested(); ++k) {
                        const std::size_t frame = first + k;
                        format::plan_zstd_sections(data, file, std::span<const std::size_t>(&frame, 1),
                                                   format::zstd_plan_options{1, format::zstd_default_max_plan_bytes, true});
                        sizes[frame] = zstd_decode_frame(s.dctx.get(), data, file.frames[frame], staging).size;
                    }
                });
            } catch (...) {
                failure_ = std::current_exception();
            }
            ended_ = clock();
        });
    }

    // Waits for the host's frames; rethrows the first error among them.
    void join() {
        if (thread_.joinable()) thread_.join();
        joined_ = true;
        if (failure_) std::rethrow_exception(failure_);
    }

    // Host clock (seconds) when the task began and ended its frames; 0 if it never ran.
    double began() const noexcept { return began_; }
    double ended() const noexcept { return ended_; }

private:
    static double clock() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
    std::exception_ptr failure_;
    double began_ = 0, ended_ = 0;
    bool joined_ = false;
    std::jthread thread_; // last: destroyed (stop asked, then joined) before the members it writes
};

} // namespace vyre::engine::detail
