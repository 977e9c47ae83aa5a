// engine::unpack over several devices at once: `vyre unpack --devices all`. The inputs are split
// into batches of whole inputs (runtime/device_pool.hpp hands them out by measured throughput);
// each batch is an ordinary engine::unpack run on one device, with every LZ4/zstd block and
// deflate stream of its layers in one pass per codec on that device. The runs share the job's
// limits, and their reports merge into the one a single device would give.
#pragma once

// What is the same as on one device, and what is not:
//   - entries and problems, in the same order (listing orders count the job's inputs), with the
//     same statuses and messages; decoded, written and kept byte counts;
//   - limits count over the whole job (max_total_bytes, max_entries); when one is reached, which
//     of the entries decoded at that moment on different devices pass may differ;
//   - the device counters (blocks, streams, dispatches) are totals over the devices, and the
//     seconds are added up over the runs (more than the job's wall time);
//   - extracting, two inputs that write one output path: one device keeps the later input's file,
//     several keep one of them;
//   - unpack_options::progress and layer_files are called from one run at a time, write_filter
//     from several threads at once.

#include <vyre/engine/unpack.hpp>
#include <vyre/runtime/device_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace vyre::engine {

// What each device did in a run of unpack_on_devices.
using unpack_device_stats = std::vector<runtime::device_batches>;

namespace detail {

inline std::vector<std::uint64_t> input_sizes(std::span<const unpack_input> inputs) {
    std::vector<std::uint64_t> sizes(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) sizes[i] = inputs[i].bytes.size();
    return sizes;
}

// The stats of a job that ran whole on one device, started at t0.
inline unpack_device_stats one_device_stats(const runtime::context& device, std::span<const unpack_input> inputs,
                                            std::chrono::steady_clock::time_point t0) {
    std::uint64_t bytes = 0;
    for (const auto& in : inputs) bytes += in.bytes.size();
    // A run that never asked for its device (all on the host) does not make it to name it.
    return {{device.used() ? device.device().label() : std::string("host"), 1, inputs.size(), bytes,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), false}};
}

// The options of each run of a job split over `devices`: the job's shared state (`shared`), the
// host threads divided among the devices, and progress and layer_files called from one run at a
// time (under `callback_lock`, which outlives the runs).
inline unpack_options per_run_options(const unpack_options& options, std::shared_ptr<shared_run> shared, std::size_t devices,
                                      std::mutex& callback_lock) {
    unpack_options each = options;
    each.shared = std::move(shared);
    each.threads = std::max(1u, util::thread_count(options.threads) / static_cast<unsigned>(devices));
    if (options.progress)
        each.progress = [&options, &callback_lock](const unpack_progress& p) {
            const std::lock_guard<std::mutex> g(callback_lock);
            options.progress(p);
        };
    if (options.layer_files)
        each.layer_files = [&options, &callback_lock](std::span<const unpack_file_view> files) {
            const std::lock_guard<std::mutex> g(callback_lock);
            options.layer_files(files);
        };
    return each;
}

} // namespace detail

// engine::unpack with the inputs spread over `devices` (see the note at the top); one device is
// the same as engine::unpack. Host threads (options.threads) are divided among the devices.
// Throws what engine::unpack throws, for any device.
inline unpack_report unpack_on_devices(std::span<runtime::context* const> devices, std::span<const unpack_input> inputs,
                                       const unpack_options& options = {}, unpack_device_stats* stats = nullptr,
                                       runtime::batch_limits limits = {}) {
    if (devices.empty()) throw std::invalid_argument("vyre: unpack_on_devices needs at least one device");
    if (devices.size() == 1) {
        const auto t0 = std::chrono::steady_clock::now();
        unpack_report r = unpack(*devices[0], inputs, options);
        if (stats) *stats = detail::one_device_stats(*devices[0], inputs, t0);
        return r;
    }
    // A caller that already splits a job (options.shared set) keeps its state and finishes the folders itself.
    const bool own_job = !options.shared;
    auto shared = own_job ? std::make_shared<detail::shared_run>(options.limits) : options.shared;
    std::mutex callback_lock;
    const unpack_options each = detail::per_run_options(options, shared, devices.size(), callback_lock);
    std::mutex runs_lock;
    std::map<std::size_t, unpack_report> runs; // by first input
    auto done = runtime::run_batches(
        devices, detail::input_sizes(inputs),
        [&](runtime::context& ctx, std::size_t, std::size_t first, std::size_t last) {
            unpack_options o = each;
            o.first_order = static_cast<std::uint32_t>(first + options.first_order);
            unpack_report r = unpack(ctx, inputs.subspan(first, last - first), o);
            const std::lock_guard<std::mutex> g(runs_lock);
            runs.emplace(first, std::move(r));
        },
        limits);

    unpack_report job;
    for (auto& [first, r] : runs) detail::add_run(job, std::move(r));
    if (own_job && !options.output_dir.empty()) {
        const detail::output_tree tree(options.output_dir);
        detail::finish_folders(tree, *shared, job.problems, options.threads);
    }
    const auto by_order = [](const auto& a, const auto& b) { return a.order < b.order; };
    std::stable_sort(job.problems.begin(), job.problems.end(), by_order);
    job.decoded_bytes = shared->budget.used() + shared->released.load();
    if (stats) *stats = std::move(done);
    return job;
}

} // namespace vyre::engine
