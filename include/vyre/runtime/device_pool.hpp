// Several devices working through one list of items (archives, files), each device on a thread of
// its own with its own context and queues. Items go out in contiguous batches, sized by what each
// device has measured so far, so that a slow device (PoCL's CPU beside a GPU) takes less and
// stops taking work once the others would finish the rest sooner without it.
#pragma once

#include <vyre/runtime/context.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::runtime {

struct batch_limits {
    // A device's first batch (nothing measured yet) and the smallest later one.
    std::uint64_t min_bytes = std::uint64_t{16} << 20;
    // The largest batch (a batch's decoded content is held in memory while it runs).
    std::uint64_t max_bytes = std::uint64_t{1} << 30;
    std::size_t max_items = 4096;
};

// What one device of a pool did.
struct device_batches {
    std::string device;        // runtime::device_info::label()
    std::size_t batches = 0;
    std::size_t items = 0;
    std::uint64_t bytes = 0;   // of its items (their sizes as given)
    double busy_seconds = 0;   // running its batches
    bool declined = false;     // stopped while items were left, the others being faster
};

// The hand-out rule, apart from threads so that it can be tested with made-up timings. Thread-safe.
//   - A device with nothing measured gets min_bytes worth of items (at least one): a probe.
//   - Then guided self-scheduling weighted by throughput: half of the device's share of what is
//     left, its share being its measured bytes per second over everyone's (clamped to the limits).
//     Big batches early keep a GPU's dispatches full; small ones late even out the finish.
//   - A device declines (stops) when its batch would take longer than the other measured devices
//     need for everything left, their running batches included.
class batch_schedule {
public:
    using range = std::pair<std::size_t, std::size_t>; // items [first, second)

    batch_schedule(std::span<const std::uint64_t> sizes, std::size_t devices, batch_limits limits = {})
        : sizes_(sizes.begin(), sizes.end()), limits_(limits), state_(devices) {
        for (const auto s : sizes_) left_ += s;
    }

    // The next batch of `device`, or nothing: no items left, or the device declines.
    std::optional<range> next(std::size_t device) {
        const std::lock_guard<std::mutex> g(lock_);
        if (cursor_ == sizes_.size()) return std::nullopt;
        auto& me = state_[device];
        std::uint64_t target = limits_.min_bytes;
        if (me.measured()) {
            double all = 0;
            for (const auto& s : state_)
                if (s.measured()) all += s.rate();
            target = static_cast<std::uint64_t>(static_cast<double>(left_) * (me.rate() / all) / 2);
            target = std::clamp(target, limits_.min_bytes, std::max(limits_.min_bytes, limits_.max_bytes));
        }
        std::size_t end = cursor_;
        std::uint64_t bytes = 0;
        while (end < sizes_.size() && (end == cursor_ || (bytes < target && end - cursor_ < limits_.max_items)))
            bytes += sizes_[end++];
        if (me.measured() && declines(device, bytes)) {
            me.declined = true;
            return std::nullopt;
        }
        const range r{cursor_, end};
        cursor_ = end;
        left_ -= bytes;
        me.running = bytes;
        return r;
    }

    // `device` finished a batch of `bytes` in `seconds`.
    void done(std::size_t device, std::uint64_t bytes, double seconds) {
        const std::lock_guard<std::mutex> g(lock_);
        auto& me = state_[device];
        me.bytes += bytes;
        me.seconds += seconds;
        me.running = 0;
    }

    bool declined(std::size_t device) const {
        const std::lock_guard<std::mutex> g(lock_);
        return state_[device].declined;
    }

    // Bytes per second `device` has measured (0 before its first batch ends).
    double rate(std::size_t device) const {
        const std::lock_guard<std::mutex> g(lock_);
        return state_[device].measured() ? state_[device].rate() : 0;
    }

private:
    struct device_state {
        std::uint64_t bytes = 0;   // done
        double seconds = 0;        // spent on them
        std::uint64_t running = 0; // in its batch now
        bool declined = false;
        bool measured() const { return seconds > 0; }
        // Bytes per second; a batch of empty items still counts as one byte so that rates stay positive.
        double rate() const { return static_cast<double>(std::max<std::uint64_t>(bytes, 1)) / seconds; }
    };

    bool declines(std::size_t device, std::uint64_t bytes) const {
        double others = 0;
        std::uint64_t pending = left_;
        for (std::size_t d = 0; d < state_.size(); ++d) {
            if (d == device || state_[d].declined) continue;
            if (!state_[d].measured()) return false; // nothing known about the others yet
            others += state_[d].rate();
            pending += state_[d].running;
        }
        if (others == 0) return false; // the only device left
        return static_cast<double>(bytes) / state_[device].rate() > static_cast<double>(pending) / others;
    }

    std::vector<std::uint64_t> sizes_;
    batch_limits limits_;
    mutable std::mutex lock_;
    std::vector<device_state> state_;
    std::size_t cursor_ = 0;
    std::uint64_t left_ = 0;
};

// Runs work(ctx, device, first, last) over batches of items [first, last) until every item is
// done, one thread per device, batches as batch_schedule hands them out. Every item is in exactly
// one batch. The first exception stops the hand-out and is rethrown once every thread has ended.
template <class Work>
std::vector<device_batches> run_batches(std::span<context* const> devices, std::span<const std::uint64_t> sizes, Work&& work,
                                        batch_limits limits = {}) {
    batch_schedule schedule(sizes, devices.size(), limits);
    std::vector<device_batches> stats(devices.size());
    std::atomic<bool> failed{false};
    util::run_on_threads(static_cast<unsigned>(devices.size()), [&](unsigned d) {
        stats[d].device = devices[d]->device().label();
        try {
            while (!failed.load()) {
                const auto r = schedule.next(d);
                if (!r) break;
                std::uint64_t bytes = 0;
                for (std::size_t i = r->first; i < r->second; ++i) bytes += sizes[i];
                const auto t0 = std::chrono::steady_clock::now();
                work(*devices[d], static_cast<std::size_t>(d), r->first, r->second);
                const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                schedule.done(d, bytes, std::max(s, 1e-9));
                ++stats[d].batches;
                stats[d].items += r->second - r->first;
                stats[d].bytes += bytes;
                stats[d].busy_seconds += s;
            }
        } catch (...) {
            failed = true;
            throw;
        }
        stats[d].declined = schedule.declined(d);
    });
    return stats;
}

} // namespace vyre::runtime
