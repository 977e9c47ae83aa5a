// Part of engine/unpack.hpp (included there after the public types): the run layer by layer, and
// within a layer the driver of its steps, with step 3 (finish) and step 4 (sink) written out here.
#pragma once

#include <vyre/engine/detail/output_tree.hpp>
#include <vyre/engine/detail/unpack_device_content.hpp>
#include <vyre/engine/detail/unpack_decode.hpp>
#include <vyre/engine/detail/unpack_names.hpp>
#include <vyre/engine/detail/unpack_open.hpp>
#include <vyre/engine/detail/unpack_state.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/names.hpp>
#include <vyre/format/salvage.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/parallel.hpp>
#include <vyre/util/sha256.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vyre::engine::detail {

namespace fmt = format;

// The permission bits a file or folder is written with: the recorded ones without the set-id and
// sticky bits (unless options.keep_setid), 0644 where the archive recorded none. The umask applies
// on top, as for tar run by a user other than root.
inline std::uint32_t file_mode(const unpack_options& o, std::uint32_t recorded) {
    if ((recorded & 07777) == 0) return 0644;
    return recorded & (o.keep_setid ? 07777u : 0777u);
}

// After the last layer (of the last run, where runs share a job): every folder's recorded mode
// and time (a folder's time changes with each entry written in it; a folder without write
// permission takes no entries). The owner keeps rwx on every folder (less what the umask takes),
// so that the tree can be read and removed afterwards. Deepest folders first, so that no folder
// is reached through one whose mode is already set; the folders of one depth on `threads`
// threads (setting a folder's mode or time changes nothing in its parent; a tree of thousands of
// folders took a tenth of a second on one). What fails is added to `problems`, deepest first.
inline void finish_folders(const output_tree& tree, shared_run& shared, std::vector<unpack_problem>& problems, unsigned threads) {
    const std::lock_guard<std::mutex> g(shared.folders_lock);
    using folder = std::pair<const std::string, folder_metadata>;
    std::vector<std::vector<folder*>> by_depth;
    for (auto& d : shared.folders) {
        const auto depth = static_cast<std::size_t>(std::count(d.first.begin(), d.first.end(), '/'));
        if (by_depth.size() <= depth) by_depth.resize(depth + 1);
        by_depth[depth].push_back(&d);
    }
    for (auto level = by_depth.rbegin(); level != by_depth.rend(); ++level) {
        std::vector<std::string> why(level->size());
        util::parallel_chunks<output_tree::dir_cache>(level->size(), threads, 64, [&](std::size_t b, std::size_t e, auto& cache) {
            for (std::size_t k = b; k < e; ++k)
                why[k] = tree.set_dir_metadata((*level)[k]->first, (*level)[k]->second.mode, (*level)[k]->second.mtime, cache);
        });
        for (std::size_t k = 0; k < level->size(); ++k)
            if (!why[k].empty())
                problems.push_back({(*level)[k]->second.path, unpack_status::refused, std::move(why[k]), (*level)[k]->second.order});
    }
    shared.folders.clear();
}

// Step 4: hashes the kept entries of a layer and writes them below the output folder.
inline void write_layer(run_state& run, std::vector<item>& items, const std::vector<std::size_t>& sink) {
    // A run that may use its device and cannot have it (a context made in the background that
    // failed) stops before it writes anything, not after a layer that needed none; by the first
    // write the device is nearly always made. A run whose every route is the host needs none.
    const unpack_options& o = run.options;
    if (run.tree && (o.deflate != deflate_route::host || o.zstd != zstd_route::host || o.lz4 != lz4_route::host)) (void)run.ctx.device();
    std::uint64_t total = 0;
    for (const std::size_t i : sink) total += items[i].content.bytes.size();
    // Later entries with the same output path win, as in tar.
    std::unordered_map<std::string_view, std::size_t> last;
    if (run.tree)
        for (const std::size_t i : sink)
            if (!run.options.write_filter || run.options.write_filter(items[i].e)) last[items[i].e.output_path] = i;
    const auto written = [&](std::size_t i) {
        if (!run.tree) return false;
        const auto f = last.find(items[i].e.output_path);
        return f != last.end() && f->second == i;
    };
    // Folders first, parents before children (a set orders "a" before "a/b").
    std::map<std::string, std::string> dir_failed;
    if (run.tree) {
        std::set<std::string> dirs;
        for (const std::size_t i : sink) {
            const auto& p = items[i].e.output_path;
            if (!written(i)) continue; // its parents are made by the entry that is written, if any
            if (items[i].e.type == unpack_entry_type::directory) dirs.insert(p);
            // Deepest parent first: once one is known, so are all of its own parents.
            for (std::size_t s = p.rfind('/'); s != std::string::npos && s > 0; s = p.rfind('/', s - 1))
                if (!dirs.insert(p.substr(0, s)).second) break;
        }
        output_tree::dir_cache cache;
        for (const auto& d : dirs)
            if (std::string why = run.tree->make_dir(d, cache); !why.empty()) dir_failed[d] = why;
    }
    std::vector<std::string> failures(items.size());
    std::atomic<std::uint64_t> done{0};
    util::parallel_chunks<output_tree::dir_cache>(sink.size(), run.threads, 32, [&](std::size_t b, std::size_t e, auto& cache) {
        for (std::size_t k = b; k < e; ++k) {
            item& it = items[sink[k]];
            const bool file = it.e.type == unpack_entry_type::file || it.e.type == unpack_entry_type::hard_link;
            if (file && run.options.hash) it.e.sha256 = util::sha256_of(it.content.bytes);
            if (file && written(sink[k]))
                failures[sink[k]] = run.tree->write_file(it.e.output_path, it.content.bytes, file_mode(run.options, it.e.mode),
                                                         it.e.mtime, cache);
            done += it.content.bytes.size();
        }
        run.progress(run.layer, run.options.output_dir.empty() ? "hash" : "write", done, total);
    });
    // Symlinks last, so that no file of this layer is written through one.
    output_tree::dir_cache cache;
    for (const std::size_t i : sink) {
        item& it = items[i];
        if (run.tree && it.e.type == unpack_entry_type::symlink && written(i))
            failures[i] = run.tree->write_symlink(it.e.output_path, it.e.link_target, it.e.mtime, cache);
        if (run.tree && it.e.type == unpack_entry_type::directory) {
            const auto f = dir_failed.find(it.e.output_path);
            if (f != dir_failed.end()) failures[i] = f->second;
            else if (written(i) && (it.e.mode || it.e.mtime))
                run.shared->add_folder(it.e.output_path, {file_mode(run.options, it.e.mode) | 0700, it.e.mtime, it.e.path, it.e.order});
        }
        if (!failures[i].empty()) {
            it.e.status = unpack_status::refused;
            it.e.message = failures[i];
            run.problem(it.e.path, unpack_status::refused, failures[i], it.e.order);
        } else if (run.tree && written(i)) {
            run.report.written_bytes += it.content.bytes.size();
        }
        it.content = {};
    }
}

// Adds the wall seconds f takes to `total`.
template <class F>
void timed(double& total, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One layer: open its containers (step 1), decode what they hold (2), finish (3: take each job's
// result, check CRCs, resolve links, find nested containers) and sink (4). Returns the next layer.
inline std::vector<container> run_layer(run_state& run, unsigned depth, const std::vector<container>& layer) {
    run.layer = depth;
    run.report.containers += layer.size();
    unpack_seconds& seconds = run.report.seconds;
    std::vector<opened> parts(layer.size());
    timed(seconds.open, [&] {
        util::parallel_for(layer.size(), run.threads, [&](std::size_t i) {
            const container& c = layer[i];
            try {
                if (c.kind == fmt::content_kind::tar) open_tar(run, c, parts[i]);
                else if (c.kind == fmt::content_kind::zip) open_zip(c, parts[i]);
                else if (is_stream(c.kind)) open_stream(c, parts[i]);
                else if (c.kind == fmt::content_kind::rpm) open_rpm(c, parts[i]);
                else open_library(run, c, parts[i]);
            } catch (const std::exception& e) {
                parts[i].problems.push_back({c.path, unpack_status::corrupt, e.what(), c.order});
            }
        });
    });
    // One list of items and jobs for the whole layer.
    std::vector<item> items;
    std::vector<decode_job> jobs;
    for (auto& p : parts) {
        const int job_base = static_cast<int>(jobs.size());
        const int item_base = static_cast<int>(items.size());
        for (auto& it : p.items) {
            if (it.job >= 0) it.job += job_base;
            if (it.link_item >= 0) it.link_item += item_base;
            items.push_back(std::move(it));
        }
        for (auto& j : p.jobs) jobs.push_back(std::move(j));
        for (auto& pr : p.problems) run.report.problems.push_back(std::move(pr));
    }
    parts.clear();
    if (const std::uint64_t room = run.shared->take_entries(items.size(), run.options.limits.max_entries); items.size() > room) {
        // Entries past the limit are dropped before anything is decoded (links point backwards
        // in their container, so the kept ones never need a dropped one).
        const item& first = items[static_cast<std::size_t>(room)];
        run.problem(first.stream ? first.parent->path : first.e.path, unpack_status::refused,
                    "entry limit reached: this entry and the " + std::to_string(items.size() - room - 1) +
                        " after it in layer " + std::to_string(depth) + " are not processed (at most " +
                        std::to_string(run.options.limits.max_entries) + " entries in all; --max-entries changes it)",
                    first.e.order);
        items.resize(static_cast<std::size_t>(room));
    }
    run.entries_seen += items.size();

    // Refused entries are not decoded.
    std::vector<char> wanted(jobs.size(), 0);
    for (const auto& it : items)
        if (it.job >= 0 && it.e.status == unpack_status::ok) wanted[static_cast<std::size_t>(it.job)] = 1;
    std::vector<decode_job*> by_codec[codec_count];
    for (std::size_t k = 0; k < jobs.size(); ++k)
        if (wanted[k]) by_codec[static_cast<int>(jobs[k].kind)].push_back(&jobs[k]);
    run.decode_done = 0;
    run.decode_total = jobs.size();
    // The codecs' passes run side by side: zstd on a thread of its own (a large frame is decoded
    // on the host while the deflate streams are on the device), LZ4 then deflate on this one. They
    // share only what is safe to share: the byte budget (atomic), the device's in-order queue,
    // progress (one caller at a time), and each writes its own jobs and its own report counters.
    // Only where the budget cannot run out during the passes, though (what every job may make at
    // most fits in what is left): otherwise which codec's job takes the last bytes, and is the one
    // refused, would depend on timing, so the passes run one after the other (zstd, LZ4, deflate).
    std::vector<decode_job*> deflate = by_codec[static_cast<int>(codec::gzip)];
    deflate.insert(deflate.end(), by_codec[static_cast<int>(codec::zip_deflate)].begin(),
                   by_codec[static_cast<int>(codec::zip_deflate)].end());
    std::uint64_t most = 0; // what the jobs may make at most, saturating
    for (const auto& list : by_codec)
        for (const decode_job* j : list) {
            const std::uint64_t n = (j->kind == codec::zip_deflate || j->kind == codec::library) && j->declared_size ? *j->declared_size
                                                                                     : ratio_cap(run.options.limits, j->input.bytes.size());
            most = n > std::numeric_limits<std::uint64_t>::max() - most ? std::numeric_limits<std::uint64_t>::max() : most + n;
        }
    const bool side_by_side = most <= run.budget.left();
    const auto decode_start = std::chrono::steady_clock::now();
    std::exception_ptr zstd_failure;
    std::thread zstd_pass;
    const auto zstd_jobs = [&] {
        try {
            timed(seconds.zstd, [&] { decode_zstd(run, by_codec[static_cast<int>(codec::zstd)]); });
        } catch (...) {
            zstd_failure = std::current_exception();
        }
    };
    if (!by_codec[static_cast<int>(codec::zstd)].empty()) {
        if (side_by_side) {
            zstd_pass = std::thread(zstd_jobs);
        } else {
            zstd_jobs();
            if (zstd_failure) std::rethrow_exception(zstd_failure);
        }
    }
    try {
        if (!by_codec[static_cast<int>(codec::lz4)].empty()) timed(seconds.lz4, [&] { decode_lz4(run, by_codec[static_cast<int>(codec::lz4)]); });
        if (!deflate.empty()) timed(seconds.deflate, [&] { decode_deflate(run, deflate); });
        if (!by_codec[static_cast<int>(codec::library)].empty())
            timed(seconds.library, [&] { decode_library(run, by_codec[static_cast<int>(codec::library)]); });
    } catch (...) {
        if (zstd_pass.joinable()) zstd_pass.join();
        throw;
    }
    if (zstd_pass.joinable()) zstd_pass.join();
    if (zstd_failure) std::rethrow_exception(zstd_failure);
    // Salvage: a compressed stream that failed keeps what decoded before the damage, so that a
    // truncated .tar.gz still lists the entries before the cut (as GNU tar does); one that failed
    // only on bytes after its end keeps all of it, with a warning. ZIP entries do not: a damaged
    // entry is one file, reported as such.
    std::vector<std::size_t> broken;
    for (std::size_t i = 0; i < items.size(); ++i)
        if (items[i].stream && items[i].job >= 0 && jobs[static_cast<std::size_t>(items[i].job)].failure == unpack_status::corrupt)
            broken.push_back(i);
    util::parallel_for(broken.size(), run.threads, [&](std::size_t k) {
        const item& it = items[broken[k]];
        decode_job& j = jobs[static_cast<std::size_t>(it.job)];
        const std::uint64_t cap = std::min(ratio_cap(run.options.limits, j.input.bytes.size()), run.budget.left());
        fmt::decoded_prefix prefix = fmt::decode_prefix(it.parent->kind, j.input.bytes, cap);
        // A stream that ended whole before bytes that start no new member (trailing garbage) is
        // read as the established tools read it: all its content, and a warning.
        const bool whole = prefix.ended && prefix.trailing > 0;
        if ((prefix.bytes.empty() && !whole) || !run.budget.take(prefix.bytes.size())) return;
        if (whole) {
            j.failure = unpack_status::warning;
            j.message = prefix.trailing_message;
        } else {
            j.message += "; the " + std::to_string(prefix.bytes.size()) + " bytes decoded before the damage are kept";
        }
        j.output = owned_blob(std::move(prefix.bytes));
        j.salvaged = true;
    });
    seconds.decode += std::chrono::duration<double>(std::chrono::steady_clock::now() - decode_start).count();
    const auto finish_start = std::chrono::steady_clock::now();

    // Finish: take each job's result, check CRCs, resolve links, find nested containers.
    std::vector<container> next;
    std::vector<std::size_t> sink; // items whose entry is kept
    std::vector<std::string> link_targets(items.size());
    // What each file is, found here on every thread: detection reads the end of every file that is
    // nothing else (a ZIP with data before it), which for thousands of small files costs more
    // than all the rest of this step.
    std::vector<fmt::content_kind> kinds(items.size(), fmt::content_kind::unknown);
    std::vector<char> probe(items.size(), 0); // device content told by the bytes at iso9660_magic_offset
    util::parallel_for(items.size(), run.threads, [&](std::size_t i) {
        item& it = items[i];
        if (it.e.status != unpack_status::ok) return;
        if (it.job >= 0) {
            decode_job& j = jobs[static_cast<std::size_t>(it.job)];
            if (j.failure != unpack_status::ok && !j.salvaged) {
                it.e.status = j.failure;
                it.e.message = j.message;
                return;
            }
            it.content = j.output;
            it.e.size = it.content.size();
        }
        if (it.crc) {
            fetch_to_host(run, it.content);
            if (const std::uint32_t crc = fmt::crc32_of(it.content.bytes); crc != *it.crc) {
                it.e.status = unpack_status::corrupt;
                it.e.message = "CRC-32 mismatch: stored " + vyre::util::hex(*it.crc, 8) + ", computed " +
                               vyre::util::hex(crc, 8);
                return;
            }
        }
        if (it.e.type != unpack_entry_type::file) return;
        if (needs_iso_probe(it.content)) probe[i] = 1; // read below for all such files at once
        else kinds[i] = detect_content(run, it.content);
    });
    {
        std::vector<std::size_t> probed;
        std::vector<const blob*> blobs;
        for (std::size_t i = 0; i < items.size(); ++i)
            if (probe[i]) probed.push_back(i), blobs.push_back(&items[i].content);
        const std::vector<std::uint8_t> magics = read_iso_magics(run, blobs);
        util::parallel_for(probed.size(), run.threads,
                           [&](std::size_t k) { kinds[probed[k]] = detect_content(run, items[probed[k]].content, magics.data() + 8 * k); });
    }
    // The containers the host will parse (the loop below opens them), read back from the device
    // together.
    {
        std::vector<blob*> containers;
        for (std::size_t i = 0; i < items.size(); ++i) {
            item& it = items[i];
            if (it.e.status == unpack_status::ok && it.content.device && is_container(kinds[i]) && (it.stream || run.options.recurse) &&
                depth + 1 <= run.options.limits.max_depth)
                containers.push_back(&it.content);
        }
        fetch_all_to_host(run, containers);
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        item& it = items[i];
        if (it.job >= 0 && jobs[static_cast<std::size_t>(it.job)].salvaged) {
            const decode_job& j = jobs[static_cast<std::size_t>(it.job)];
            run.problem(it.parent->path, j.failure, j.message, it.e.order);
        }
        if (it.e.status == unpack_status::ok && it.link_item >= 0) {
            const item& target = items[static_cast<std::size_t>(it.link_item)];
            if (target.e.status != unpack_status::ok) {
                it.e.status = unpack_status::refused;
                it.e.message = "hard link to an entry that was not kept: " + fmt::archive_quote(it.e.link_target);
            } else if (!run.budget.take(target.content.size())) {
                // A copy is written: it counts like decoded bytes (links to one big file, or to
                // an archive, would otherwise multiply the output without limit).
                it.e.status = unpack_status::refused;
                it.e.message = "hard link to " + fmt::archive_quote(it.e.link_target) + ": " +
                               total_message(run.budget, target.content.size());
            } else {
                it.content = target.content;
                it.e.size = target.e.size;
            }
        }
        // ZIP stored entries are views whose data a crafted central directory may share: each counts.
        if (it.e.status == unpack_status::ok && it.job < 0 && it.parent->kind == fmt::content_kind::zip &&
            !it.content.bytes.empty() && !run.budget.take(it.content.bytes.size())) {
            it.e.status = unpack_status::refused;
            it.e.message = "stored entry: " + total_message(run.budget, it.content.bytes.size());
        }
        // ZIP symlinks keep their target as content.
        if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::symlink && it.parent->kind == fmt::content_kind::zip) {
            fetch_to_host(run, it.content);
            it.e.link_target.assign(it.content.bytes.begin(), it.content.bytes.end());
            if (std::string why = check_link_target(it.e.output_path, it.e.link_target); !why.empty()) {
                it.e.status = unpack_status::refused;
                it.e.message = why + ": " + fmt::archive_quote(it.e.link_target);
            }
        }
        if (it.e.status != unpack_status::ok) {
            // A stream that fails to decode is a problem of the stream (x.gz), not of its content.
            run.report.problems.push_back({it.stream ? it.parent->path : it.e.path, it.e.status, it.e.message, it.e.order});
            if (!it.stream) run.report.entries.push_back(std::move(it.e));
            continue;
        }
        // A hard link is never opened: its target is, once (links to an archive would otherwise
        // open it once per link, in every layer below).
        const bool file = it.e.type == unpack_entry_type::file;
        const fmt::content_kind kind = file ? kinds[i] : fmt::content_kind::unknown;
        const bool opens = is_container(kind) && (it.stream || run.options.recurse);
        if (opens && depth + 1 > run.options.limits.max_depth) {
            run.problem(it.e.path, unpack_status::refused,
                        "nested " + std::string(fmt::content_kind_name(kind)) + " not opened: nesting deeper than " +
                            std::to_string(run.options.limits.max_depth) + " containers (--max-depth changes it)",
                        it.e.order);
        } else if (opens) {
            fetch_to_host(run, it.content); // the host parses it
            container c;
            c.kind = kind;
            c.depth = depth + 1;
            c.data = it.content;
            c.order = it.e.order;
            if (it.stream && (!is_stream(kind) || it.parent->kind == fmt::content_kind::rpm)) {
                // An archive in a compressed stream opens in place: x.tar.zst!/name, x.cpio.gz!/name;
                // so does an RPM's compressed payload: x.rpm!/usr/bin/tool.
                c.path = it.parent->path;
                c.out_prefix = it.parent->out_prefix;
                next.push_back(std::move(c));
                continue;
            }
            c.path = it.e.path;
            c.out_prefix = it.e.output_path + "!";
            next.push_back(std::move(c));
        }
        sink.push_back(i);
    }
    seconds.finish += std::chrono::duration<double>(std::chrono::steady_clock::now() - finish_start).count();
    if (run.options.layer_files) timed(seconds.layer_files, [&] {
        std::vector<unpack_file_view> files;
        for (const std::size_t i : sink) {
            const item& it = items[i];
            if (it.e.type == unpack_entry_type::file || it.e.type == unpack_entry_type::hard_link)
                files.push_back({it.e.path, it.content.bytes, it.e.order, it.content.device.get()});
        }
        run.options.layer_files(files);
    });
    timed(seconds.write, [&] { write_layer(run, items, sink); });
    for (const std::size_t i : sink) run.report.entries.push_back(std::move(items[i].e));
    timed(seconds.release, [&] {
        std::vector<item>().swap(items);
        std::vector<decode_job>().swap(jobs);
    });
    return next;
}

// The layers of one run from `layer` (at nesting depth `depth`) on: each layer's nested containers
// are the next. Sets the folders' metadata at the end unless the run is part of a job
// (options.shared).
inline unpack_report run_layers(run_state& run, std::vector<container> layer, unsigned depth) {
    for (bool first = true; !layer.empty(); ++depth, first = false) {
        ++run.report.layers;
        std::vector<container> next = run_layer(run, depth, layer);
        if (first) run.first_layer_held = run.budget.used();
        timed(run.report.seconds.release, [&] { layer = std::move(next); });
    }
    if (run.tree && !run.options.shared) finish_folders(*run.tree, *run.shared, run.report.problems, run.threads);
    run.report.decoded_bytes = run.budget.used();
    run.report.fetched_bytes = run.fetched.load();
    const auto by_order = [](const auto& a, const auto& b) { return a.order < b.order; };
    std::stable_sort(run.report.entries.begin(), run.report.entries.end(), by_order);
    std::stable_sort(run.report.problems.begin(), run.report.problems.end(), by_order);
    return std::move(run.report);
}

// The whole run: the inputs are layer 1.
inline unpack_report run_unpack(runtime::context& ctx, std::span<const unpack_input> inputs, const unpack_options& options) {
    run_state run(ctx, options);
    std::vector<container> layer;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        container c;
        c.path = inputs[i].name;
        c.order = {static_cast<std::uint32_t>(options.first_order + i)};
        c.data.bytes = inputs[i].bytes;
        c.kind = fmt::detect(c.data.bytes);
        if (!is_container(c.kind)) {
            run.problem(c.path, unpack_status::refused,
                        std::string("not an archive or a compressed stream (content detected as ") +
                            fmt::content_kind_name(c.kind) + ")",
                        c.order);
            continue;
        }
        layer.push_back(std::move(c));
    }
    return run_layers(run, std::move(layer), 1);
}

} // namespace vyre::engine::detail
