// Part of engine/unpack.hpp: the content of a zstd stream unpacked in windows
// (engine/detail/unpack_stream.hpp), decoded on the device where it can be, a window of blocks at a
// time, on a thread of its own.
#pragma once

// Who decodes:
//   - one zstd frame that is the whole input, where the zstd route allows the device (the device
//     route, or the automatic route on a GPU) and compression.zstd.blocks' windows hold the frame:
//     the device, a window of blocks at a time (detail/zstd_window_pass.hpp), each window read
//     back into one of three buffers of this source's, which the reader copies from;
//   - anything else, and the rest of a frame the device stops on (damage, a checksum that does not
//     match, a match reaching past the window the frame declares, a device that fails): libzstd's
//     streaming decoder (format::stream_decoder) on the host. After a device stop it decodes the
//     stream again from its start and drops what the device already gave, so that the bytes, and
//     where the damage is reported, are those of the host's decoder; where libzstd stops short of
//     what the device gave (it holds back a block or more of its output), the device's reason
//     names the damage.
// Memory: three windows' buffers (the device's windows are the reader's window size, at most
// max_window_bytes), plus the decoder's own state.

#include <vyre/engine/detail/zstd_window_pass.hpp>
#include <vyre/engine/zstd_options.hpp>
#include <vyre/error.hpp>
#include <vyre/format/stream_decode.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/host_bytes.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace vyre::engine::detail {

// The pull interface of format::stream_decoder (read, done, failed, error, consumed, produced,
// trailing, trailing_message), fed by the decoding thread.
class zstd_stream_source {
public:
    // Bytes of one piece the host decoder hands over; the most a device window holds.
    static constexpr std::uint64_t host_piece_bytes = std::uint64_t{16} << 20;
    static constexpr std::uint64_t max_window_bytes = std::uint64_t{256} << 20;

    // `in` and `ctx` must outlive the source. `window`: what the reader takes at a time, and the
    // device's windows (at most max_window_bytes); `threads` walk the frame's blocks.
    zstd_stream_source(runtime::context& ctx, std::span<const std::uint8_t> in, zstd_route route, std::uint64_t window, unsigned threads)
        : ctx_(ctx), in_(in), route_(route), threads_(util::thread_count(threads)),
          window_(std::clamp<std::uint64_t>(window, 1, max_window_bytes)) {
        // One window read back, one waiting, one being read.
        free_.resize(3);
        producer_ = std::thread([this] { produce(route_ != zstd_route::host); });
    }
    ~zstd_stream_source() {
        {
            const std::lock_guard<std::mutex> g(m_);
            stop_ = true;
        }
        cv_.notify_all();
        producer_.join();
    }
    zstd_stream_source(const zstd_stream_source&) = delete;
    zstd_stream_source& operator=(const zstd_stream_source&) = delete;

    // Up to out.size() bytes, fewer only at the end; waits for the decoding thread.
    std::size_t read(std::span<std::uint8_t> out) {
        std::size_t wrote = 0;
        while (wrote < out.size()) {
            if (at_ == current_.size) {
                std::unique_lock<std::mutex> l(m_);
                if (!current_.bytes.empty() || current_.bytes.capacity() != 0) free_.push_back(std::move(current_.bytes));
                current_ = {};
                at_ = 0;
                cv_.notify_all();
                cv_.wait(l, [&] { return !ready_.empty() || finished_; });
                if (ready_.empty()) break;
                current_ = std::move(ready_.front());
                ready_.pop_front();
                consumed_ = current_.consumed;
            }
            const std::size_t n = std::min(out.size() - wrote, current_.size - at_);
            std::memcpy(out.data() + wrote, current_.bytes.data() + current_.begin + at_, n);
            wrote += n;
            at_ += n;
            produced_ += n;
        }
        return wrote;
    }
    bool done() const { return over() && error_.empty(); }
    bool failed() const { return over() && !error_.empty(); }
    const std::string& error() const noexcept { return error_; }
    std::uint64_t consumed() const {
        const std::lock_guard<std::mutex> g(m_);
        return finished_ && ready_.empty() ? consumed_end_ : consumed_;
    }
    std::uint64_t produced() const noexcept { return produced_; }
    std::uint64_t trailing() const noexcept { return trailing_; }
    std::string trailing_message() const { return trailing_message_; }

    // The device's part of the work: blocks it decoded, and its windows (a dispatch each).
    std::size_t device_blocks() const {
        const std::lock_guard<std::mutex> g(m_);
        return device_blocks_;
    }
    std::size_t device_windows() const {
        const std::lock_guard<std::mutex> g(m_);
        return device_windows_;
    }

private:
    struct piece {
        util::host_bytes bytes;
        std::size_t begin = 0, size = 0;
        std::uint64_t consumed = 0; // input the decoder had read when it handed this piece over
    };
    struct stopped {}; // the reader is gone: the decoding thread ends

    bool over() const {
        const std::lock_guard<std::mutex> g(m_);
        return finished_ && ready_.empty() && at_ == current_.size;
    }
    // A free buffer of `size` bytes (waits for the reader to give one back). A buffer's first pages
    // are touched on every core here: the device's read-back would fault them in on one thread.
    util::host_bytes take(std::uint64_t size) {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return !free_.empty() || stop_; });
        if (stop_) throw stopped{};
        util::host_bytes b = std::move(free_.back());
        free_.pop_back();
        l.unlock();
        const bool fresh = b.capacity() < size;
        b.resize(static_cast<std::size_t>(size));
        if (fresh) util::fault_in(b, threads_);
        return b;
    }
    void hand_over(piece&& p) {
        {
            const std::lock_guard<std::mutex> g(m_);
            ready_.push_back(std::move(p));
        }
        cv_.notify_all();
    }

    void produce(bool device) {
        std::uint64_t given = 0; // bytes the device handed over
        std::string refused;     // why the device refused the frame, where it did
        try {
            if (device && on_device(given)) return finish({});
        } catch (const stopped&) {
            return finish({});
        } catch (const format_error& e) {
            refused = e.what();
            const std::lock_guard<std::mutex> g(m_);
            if (dispatching_) ++device_windows_; // the window that failed (not the walk before the first)
        } catch (const std::exception&) {
            // A device that fails: the host decodes (see the note at the top).
        }
        reclaim();
        try {
            on_host(given, refused);
        } catch (const stopped&) {
            finish({});
        } catch (const std::exception& e) {
            finish(std::string("the decoder stopped: ") + e.what());
        }
    }

    // The whole input as one frame on the device; false where it is not such a frame, or the
    // device route is not taken. `given`: what the device handed over.
    bool on_device(std::uint64_t& given) {
        const runtime::device_info& device = ctx_.device(); // waits for a context made in the background
        if (route_ == zstd_route::automatic && !device.is_gpu()) return false;
        format::zstd_parse_options po;
        po.max_output_size = UINT64_MAX; // laid out only: the windows hold a bounded part
        po.threads = threads_;
        format::zstd_file file;
        try {
            file = format::parse_zstd(in_, po);
        } catch (const format::zstd_table_error&) {
            return false; // too many tiny blocks to list: the host's streaming decoder reads them
        }
        if (file.frames.size() != 1 || !file.skippable_frames.empty()) return false;
        const format::zstd_frame& f = file.frames[0];
        zstd_options zo;
        zo.threads = threads_;
        zo.window_bytes = window_;
        if (f.offset != 0 || f.size != in_.size() || f.blocks.empty() || !zstd_windows_fit(device, f, zo)) return false;
        const auto windows = zstd_frame_windows(f, zo.window_bytes);
        const zstd_window_output output{
            [&](std::size_t w, std::uint64_t size) {
                util::host_bytes b = take(size);
                std::uint8_t* p = b.data();
                const std::lock_guard<std::mutex> g(m_);
                in_flight_[w] = std::move(b); // the buffer's bytes do not move with it
                return p;
            },
            [&](std::size_t w) {
                piece p;
                {
                    const std::lock_guard<std::mutex> g(m_);
                    p.bytes = std::move(in_flight_.at(w));
                    in_flight_.erase(w);
                }
                p.size = p.bytes.size();
                const auto& [first, count] = windows.at(w);
                p.consumed = f.blocks[first + count - 1].end_offset(); // the input read so far
                given += p.size;
                {
                    const std::lock_guard<std::mutex> g(m_);
                    device_blocks_ += windows.at(w).second;
                    ++device_windows_;
                }
                hand_over(std::move(p));
            }};
        dispatching_ = true;
        const zstd_windows_run run = zstd_run_windows(ctx_, in_, file, 0, zo, {}, &output);
        const std::lock_guard<std::mutex> g(m_);
        consumed_end_ = in_.size();
        if (run.host_frame) ++device_windows_; // the window that stopped
        return !run.host_frame;
    }

    // Buffers the device was given and did not fill go back to the pool.
    void reclaim() {
        const std::lock_guard<std::mutex> g(m_);
        for (auto& [w, b] : in_flight_) free_.push_back(std::move(b));
        in_flight_.clear();
    }

    // libzstd's streaming decoder, dropping the first `skip` bytes. Where it fails within
    // them, the device had decoded further, and its reason (`refused`, where it gave one) names the
    // damage more exactly: libzstd holds back a block or more of its output, and names the input
    // it had read, not the block.
    void on_host(std::uint64_t skip, const std::string& refused) {
        format::stream_decoder d(format::content_kind::zstd, in_);
        while (!d.done() && !d.failed()) {
            util::host_bytes b = take(host_piece_bytes);
            // In steps of 64 KiB: a codec that fails inside one call may give nothing of it
            // (liblz4's frame decoder), so a step bounds what damage takes with it.
            std::size_t n = 0;
            for (std::size_t got = 1; n < b.size() && got != 0;)
                n += got = d.read(std::span<std::uint8_t>(b).subspan(n, std::min<std::size_t>(b.size() - n, std::size_t{64} << 10)));
            const std::size_t dropped = static_cast<std::size_t>(std::min<std::uint64_t>(skip, n));
            skip -= dropped;
            if (n == dropped) {
                const std::lock_guard<std::mutex> g(m_);
                free_.push_back(std::move(b));
                continue;
            }
            hand_over({std::move(b), dropped, n - dropped, d.consumed()});
        }
        const std::lock_guard<std::mutex> g(m_);
        trailing_ = d.trailing();
        if (d.done() && d.trailing()) trailing_message_ = d.trailing_message();
        error_end_ = d.failed() && skip != 0 && !refused.empty() ? refused : d.error();
        consumed_end_ = d.consumed();
        finished_locked();
    }

    void finish(std::string error) {
        const std::lock_guard<std::mutex> g(m_);
        if (error_end_.empty()) error_end_ = std::move(error);
        finished_locked();
    }
    void finished_locked() {
        finished_ = true;
        // Read by the reader only once it has read every piece (done and failed say so then).
        error_ = error_end_;
        cv_.notify_all();
    }

    runtime::context& ctx_;
    std::span<const std::uint8_t> in_;
    zstd_route route_;
    unsigned threads_;
    std::uint64_t window_;

    mutable std::mutex m_;
    std::condition_variable cv_;
    std::vector<util::host_bytes> free_;          // buffers to fill
    std::map<std::size_t, util::host_bytes> in_flight_; // the device's windows being read back
    std::deque<piece> ready_;                     // filled, not read yet
    bool finished_ = false, stop_ = false;
    std::string error_end_;
    std::uint64_t consumed_end_ = 0;
    std::size_t device_blocks_ = 0, device_windows_ = 0;
    bool dispatching_ = false; // the walk is done, the windows go to the device

    // The reader's side.
    piece current_;
    std::size_t at_ = 0;
    std::uint64_t produced_ = 0, consumed_ = 0, trailing_ = 0;
    std::string error_, trailing_message_;

    std::thread producer_;
};

} // namespace vyre::engine::detail
