// engine::scan_archives over several devices at once: `vyre scan --devices all`. As with
// engine/unpack_devices.hpp, batches of whole inputs go to the devices as fast as each finishes
// them (runtime/device_pool.hpp); each batch is an ordinary scan_archives run on one device, with
// that device's copy of the pattern set, and the reports merge into the one a single device gives.
#pragma once

// The same as on one device: hit files and findings in listing order, per-pattern counts, the
// unpacking's entries and problems, bytes and files scanned. Where a pattern hits more than
// scan_options::max_hits_per_pattern times, the findings kept are its first in listing order
// (one device keeps its first in scanning order, which visits layer by layer), so the two differ
// only for capped patterns. Limits count over the whole job (engine/unpack_devices.hpp).

#include <vyre/engine/scan.hpp>
#include <vyre/engine/unpack_devices.hpp>
#include <vyre/runtime/device_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vyre::engine {

// scan_archives with the inputs spread over `devices`; sets[d] is the pattern set built on
// devices[d] (ops::scan::device_patterns), the same patterns on every device. One device is the
// same as scan_archives. Host threads (options.unpack.threads) are divided among the devices.
inline scan_archives_report scan_archives_on_devices(std::span<runtime::context* const> devices,
                                                     std::span<const ops::scan::device_patterns* const> sets,
                                                     std::span<const unpack_input> inputs,
                                                     const scan_archives_options& options = {},
                                                     unpack_device_stats* stats = nullptr, runtime::batch_limits limits = {}) {
    if (devices.empty() || sets.size() != devices.size())
        throw std::invalid_argument("vyre: scan_archives_on_devices needs one pattern set per device (" +
                                    std::to_string(sets.size()) + " sets for " + std::to_string(devices.size()) + " devices)");
    for (const auto* s : sets)
        if (s->tables.patterns != sets[0]->tables.patterns)
            throw std::invalid_argument("vyre: scan_archives_on_devices needs the same patterns on every device");
    if (devices.size() == 1) {
        const auto t0 = std::chrono::steady_clock::now();
        scan_archives_report r = scan_archives(*devices[0], *sets[0], inputs, options);
        if (stats) *stats = detail::one_device_stats(*devices[0], inputs, t0);
        return r;
    }
    auto shared = options.unpack.shared ? options.unpack.shared : std::make_shared<detail::shared_run>(options.unpack.limits);
    std::mutex callback_lock;
    scan_archives_options each = options;
    each.unpack = detail::per_run_options(options.unpack, shared, devices.size(), callback_lock);
    const auto sizes = detail::input_sizes(inputs);
    std::mutex runs_lock;
    std::map<std::size_t, scan_archives_report> runs; // by first input
    auto done = runtime::run_batches(
        devices, sizes,
        [&](runtime::context& ctx, std::size_t d, std::size_t first, std::size_t last) {
            scan_archives_report r = scan_archives(ctx, *sets[d], inputs.subspan(first, last - first), each);
            // Listing orders count this batch's inputs: make them count the job's.
            const auto shift = [&](std::vector<std::uint32_t>& order) {
                if (!order.empty()) order[0] += static_cast<std::uint32_t>(first);
            };
            for (auto& f : r.hit_files) shift(f.order);
            for (auto& e : r.unpack.entries) shift(e.order);
            for (auto& p : r.unpack.problems) shift(p.order);
            const std::lock_guard<std::mutex> g(runs_lock);
            runs.emplace(first, std::move(r));
        },
        limits);

    scan_archives_report job;
    job.counts.assign(sets[0]->tables.patterns, 0);
    const std::uint32_t cap = options.scan.max_hits_per_pattern;
    std::vector<std::uint64_t> kept(job.counts.size(), 0);
    for (auto& [first, r] : runs) {
        // Batches come in input order and each is in listing order: appending keeps the order.
        // Each pattern keeps its first `cap` findings; a file left with none is dropped.
        std::vector<std::uint32_t> renumber(r.hit_files.size(), 0xffffffffu);
        for (const auto& f : r.findings) {
            if (kept[f.pattern] >= cap) continue;
            ++kept[f.pattern];
            if (renumber[f.file] == 0xffffffffu) {
                renumber[f.file] = static_cast<std::uint32_t>(job.hit_files.size());
                job.hit_files.push_back(std::move(r.hit_files[f.file]));
            }
            job.findings.push_back({renumber[f.file], f.pattern, f.offset});
        }
        for (std::size_t q = 0; q < r.counts.size(); ++q) job.counts[q] += r.counts[q];
        job.files += r.files;
        job.bytes += r.bytes;
        job.kept_bytes += r.kept_bytes;
        job.scan_dispatches += r.scan_dispatches;
        job.kernel_seconds += r.kernel_seconds;
        job.stage.upload += r.stage.upload, job.stage.calls += r.stage.calls,
            job.stage.findings += r.stage.findings, job.stage.order += r.stage.order;
        detail::add_run(job.unpack, std::move(r.unpack));
    }
    for (std::size_t q = 0; q < job.counts.size(); ++q) job.capped_patterns += job.counts[q] > kept[q];
    const auto by_order = [](const auto& a, const auto& b) { return a.order < b.order; };
    std::stable_sort(job.unpack.problems.begin(), job.unpack.problems.end(), by_order);
    job.unpack.decoded_bytes = shared->budget.used();
    if (stats) *stats = std::move(done);
    return job;
}

} // namespace vyre::engine
