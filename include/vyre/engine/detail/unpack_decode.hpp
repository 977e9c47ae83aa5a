// Part of engine/unpack.hpp (included there after the public types): step 2 of a layer, decoding.
// Every LZ4 job goes to engine::decompress_lz4_files in one pass (one set of descriptors), every zstd
// job to the zstd engine as one multi-frame stream, every deflate stream (gzip members, ZIP entries)
// to the deflate engine in one pass; each decoder checks its jobs against the ratio limit and takes
// their bytes from the run's budget.
#pragma once

#include <vyre/engine/deflate_decompress.hpp>
#include <vyre/engine/detail/unpack_state.hpp>
#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/error.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/format/bzip2.hpp>
#include <vyre/format/xz.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/format/zip_methods.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/util/parallel.hpp>
#include <vyre/util/host_bytes.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace vyre::engine::detail {

namespace fmt = format;

// A decoder's message with the codec named once: "zstd: truncated block", whether or not the
// decoder's own message already starts with "zstd: ". LZ4's messages also name it as "LZ4 ...".
inline std::string with_codec(const char* codec, const std::string& what, bool bare_name_counts = false) {
    const std::string prefix = std::string(codec) + ": ";
    return what.rfind(prefix, 0) == 0 || (bare_name_counts && what.rfind(codec, 0) == 0) ? what : prefix + what;
}

// Whether `size` bytes, known (or bounded) before decoding, pass the ratio and the total left;
// fails the job otherwise, with the compressed size and the limit. Reserves nothing.
inline bool fits(run_state& run, decode_job& j, std::uint64_t size, const char* verb) {
    const std::uint64_t in = j.input.bytes.size();
    if (size > ratio_cap(run.options.limits, in)) {
        j.fail(unpack_status::refused, "zstd: " + std::to_string(in) + " compressed bytes " + verb + " " +
                                           std::to_string(size) + " bytes: " + ratio_message(run.options.limits, size, in) +
                                           "; refused before decoding");
        return false;
    }
    if (size > run.budget.left()) {
        j.fail(unpack_status::refused, "zstd: " + std::to_string(in) + " compressed bytes " + verb + " " +
                                           std::to_string(size) + " bytes: " + total_message(run.budget, size) +
                                           "; refused before decoding");
        return false;
    }
    return true;
}

// Budget and ratio checks of a size known before decoding.
inline bool admit(run_state& run, decode_job& j, std::uint64_t size) {
    if (size > ratio_cap(run.options.limits, j.input.bytes.size())) {
        j.fail(unpack_status::refused, ratio_message(run.options.limits, size, j.input.bytes.size()));
        return false;
    }
    if (!run.budget.take(size)) {
        j.fail(unpack_status::refused, total_message(run.budget, size));
        return false;
    }
    return true;
}

// The inputs of several jobs as one byte range (no copy when there is one job).
inline blob concatenate(const std::vector<decode_job*>& jobs, std::vector<std::uint64_t>& base) {
    base.clear();
    if (jobs.size() == 1) {
        base.push_back(0);
        return jobs[0]->input;
    }
    std::uint64_t total = 0;
    for (const auto* j : jobs) {
        base.push_back(total);
        total += j->input.bytes.size();
    }
    std::vector<std::uint8_t> all(static_cast<std::size_t>(total));
    for (std::size_t k = 0; k < jobs.size(); ++k)
        if (!jobs[k]->input.bytes.empty())
            std::memcpy(all.data() + base[k], jobs[k]->input.bytes.data(), jobs[k]->input.bytes.size());
    return owned_blob(std::move(all));
}

// Every LZ4 job of the layer in one pass of engine::decompress_lz4_files, on unpack_options::lz4's
// route: the device decodes the independent blocks of all of them at once (or liblz4 on every
// host core, where the blocks are large or the run small), linked frames and checksums follow on
// the host.
inline void decode_lz4(run_state& run, std::vector<decode_job*>& all) {
    std::vector<fmt::lz4_layout> layouts(all.size());
    std::vector<char> walked(all.size(), 0);
    util::parallel_for(all.size(), run.threads, [&](std::size_t k) {
        try {
            layouts[k] = fmt::parse_lz4_frames(all[k]->input.bytes);
        } catch (const fmt::lz4_table_error&) {
            walked[k] = 1; // too many tiny blocks to list: decoded as a walk reaches them, below
        } catch (const std::exception& e) {
            all[k]->fail(unpack_status::corrupt, with_codec("LZ4", e.what(), true));
        }
    });
    // The layouts are held together for one pass: their records share the budget of one parse of
    // all the jobs' bytes (many files each a little under their own budget would add up past it),
    // and the jobs past it are walked instead.
    std::uint64_t input_bytes = 0, listed = 0;
    for (const decode_job* j : all) input_bytes += j->input.bytes.size();
    const std::uint64_t table_budget = fmt::record_budget(input_bytes);
    std::vector<decode_job*> jobs;
    std::vector<lz4_file> files;
    for (std::size_t k = 0; k < all.size(); ++k) {
        if (all[k]->failure != unpack_status::ok || walked[k]) continue;
        const std::uint64_t table = fmt::lz4_table_bytes(layouts[k].frames.size(), layouts[k].blocks.size());
        if (table > table_budget - listed) {
            layouts[k] = {};
            walked[k] = 1;
            continue;
        }
        if (!admit(run, *all[k], layouts[k].output_size)) continue;
        listed += table;
        jobs.push_back(all[k]);
        files.push_back({all[k]->input.bytes, &layouts[k]});
    }
    for (std::size_t k = 0; k < all.size(); ++k) {
        if (!walked[k]) continue;
        decode_job& j = *all[k];
        try {
            const fmt::lz4_walk_counts c = fmt::walk_lz4_frames(j.input.bytes, {});
            if (admit(run, j, c.output_size)) {
                std::vector<std::uint8_t> out;
                (void)decompress_lz4_walked(j.input.bytes, out);
                j.output = owned_blob(std::move(out));
                run.report.lz4_host_blocks += c.blocks;
            }
        } catch (const std::exception& e) {
            j.fail(unpack_status::corrupt, with_codec("LZ4", e.what(), true));
        }
        run.progress_tick();
    }
    if (jobs.empty()) return;
    lz4_options o;
    o.route = run.options.lz4;
    o.threads = run.threads;
    lz4_report r;
    const lz4_files_result got = decompress_lz4_files(run.ctx, files, o, &r);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        if (got.errors[k]) {
            jobs[k]->fail(unpack_status::corrupt, with_codec("LZ4", got.errors[k]->what(), true));
        } else {
            jobs[k]->output = {got.content(k, files[k]), got.output};
        }
        run.progress_tick();
    }
    run.report.lz4_dispatches += r.batches;
    run.report.lz4_device_blocks += r.device_blocks;
    run.report.lz4_host_blocks += r.host_blocks;
}

// zstd jobs whose staging layout the input does not vouch for (zstd_layout_unproven: a gigabyte of
// slots from kilobytes of tiny blocks): each alone on the host, into memory that grows with its
// output and stops at the ratio cap; the real size is then charged to the job's byte budget.
inline void decode_zstd_grown(run_state& run, const std::vector<decode_job*>& grown) {
    const unpack_limits& limits = run.options.limits;
    util::parallel_for(grown.size(), run.threads, [&](std::size_t k) {
        decode_job& j = *grown[k];
        const std::uint64_t in = j.input.bytes.size(), cap = ratio_cap(limits, in);
        try {
            std::vector<std::uint8_t> out;
            zstd_decode_growing(j.input.bytes, out, cap, "zstd", 0, [&] {
                return resource_error(ratio_message(limits, cap + 1, in) + "; decoding stopped there");
            });
            j.output = owned_blob(std::move(out));
        } catch (const resource_error& e) {
            j.fail(unpack_status::refused, with_codec("zstd", e.what()));
        } catch (const std::exception& e) {
            j.fail(unpack_status::corrupt, with_codec("zstd", e.what()));
        }
    });
    for (decode_job* j : grown) {
        if (j->failure != unpack_status::ok) continue;
        const std::uint64_t n = j->output.bytes.size();
        if (j->declared_size && n != *j->declared_size) {
            j->fail(unpack_status::corrupt, "zstd content is " + std::to_string(n) + " bytes, the ZIP entry declares " +
                                                std::to_string(*j->declared_size));
            j->output = {};
        } else if (!run.budget.take(n)) {
            j->fail(unpack_status::refused, total_message(run.budget, n));
            j->output = {};
        }
    }
}

// zstd jobs (streams and ZIP entries): limits checked on what parsing knows, then one multi-frame
// stream for the zstd engine; when that fails, each job alone on the host, to find the corrupt ones.
inline void decode_zstd(run_state& run, std::vector<decode_job*>& all) {
    std::vector<std::uint64_t> staging(all.size()), table(all.size());
    std::vector<char> unproven(all.size(), 0);
    util::parallel_for(all.size(), run.threads, [&](std::size_t k) {
        decode_job& j = *all[k];
        const std::uint64_t in = j.input.bytes.size();
        // Every limit is checked against what parsing knows before anything is allocated: the
        // ZIP entry's declared size, then the staging layout (exact for raw and RLE blocks and
        // for frames that declare their content size, an upper bound otherwise).
        if (j.declared_size && !fits(run, j, *j.declared_size, "declares")) return;
        try {
            fmt::zstd_parse_options p;
            p.max_output_size = std::numeric_limits<std::uint64_t>::max(); // block descriptors only
            const auto f = fmt::parse_zstd(j.input.bytes, p);
            if (zstd_layout_unproven(f, in)) {
                unproven[k] = 1;
                return;
            }
            if (!fits(run, j, f.staging_size, "may decode to")) return;
            staging[k] = f.staging_size;
            table[k] = fmt::zstd_table_bytes(f.frames.size(), f.block_count);
        } catch (const fmt::zstd_table_error&) {
            unproven[k] = 1; // too many tiny blocks to list: streamed on the host, below
        } catch (const resource_error& e) {
            j.fail(unpack_status::refused, with_codec("zstd", e.what()) + " (" + std::to_string(in) + " compressed bytes)");
        } catch (const std::exception& e) {
            all[k]->fail(unpack_status::corrupt, with_codec("zstd", e.what()));
        }
    });
    std::vector<decode_job*> jobs, grown;
    std::uint64_t reserved = 0;
    // The jobs parsed together below keep the records of all of them at once: their sum has the
    // budget of one parse of all their bytes (many entries each a little under their own budget
    // would add up past it), and the jobs past it are streamed instead.
    std::uint64_t input_bytes = 0, listed = 0;
    for (const decode_job* j : all) input_bytes += j->input.bytes.size();
    const std::uint64_t table_budget = fmt::record_budget(input_bytes);
    for (std::size_t k = 0; k < all.size(); ++k) {
        if (all[k]->failure != unpack_status::ok) continue;
        if (unproven[k] || table[k] > table_budget - listed) {
            grown.push_back(all[k]);
            continue;
        }
        // Staging is an upper bound of the output: the ratio is checked on the real size below.
        if (!run.budget.take(staging[k])) {
            all[k]->fail(unpack_status::refused, total_message(run.budget, staging[k]));
            continue;
        }
        reserved += staging[k];
        listed += table[k];
        jobs.push_back(all[k]);
    }
    decode_zstd_grown(run, grown);
    if (jobs.empty()) return;
    std::vector<std::uint64_t> in_base;
    const blob input = concatenate(jobs, in_base);
    std::uint64_t produced = 0;
    bool done = false;
    try {
        fmt::zstd_parse_options p;
        p.max_output_size = std::max<std::uint64_t>(reserved, 1);
        p.max_table_bytes = std::max<std::uint64_t>(listed, 1); // what the jobs' own parses kept
        p.threads = run.threads;
        const fmt::zstd_file parsed = fmt::parse_zstd(input.bytes, p);
        // Not zero-filled (the decoders write every byte a job's content covers) but faulted in on
        // every thread: the device's read-back into unmapped memory was the decode's largest cost.
        const auto staging_size = static_cast<std::size_t>(parsed.staging_size);
        auto staging_buffer = std::make_shared<util::host_bytes>(std::max<std::size_t>(staging_size, 1));
        util::fault_in(*staging_buffer, run.threads);
        engine::zstd_options o;
        o.route = run.options.zstd;
        o.max_output_bytes = p.max_output_size;
        o.threads = run.threads;
        const auto r = decompress_zstd_into(run.ctx, input.bytes, parsed, std::span<std::uint8_t>(staging_buffer->data(), staging_size), o);
        run.report.zstd_blocks += r.blocks;
        run.report.zstd_dispatches += r.batches;
        // Frames are packed in file order: each job's content is the run of its frames.
        std::uint64_t at = 0;
        std::size_t frame = 0;
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            const std::uint64_t end = k + 1 < jobs.size() ? in_base[k + 1] : input.bytes.size();
            const std::uint64_t begin = at;
            for (; frame < parsed.frames.size() && parsed.frames[frame].offset < end; ++frame) at += r.frame_bytes[frame];
            jobs[k]->output = {std::span<const std::uint8_t>(staging_buffer->data() + begin, static_cast<std::size_t>(at - begin)),
                               staging_buffer};
        }
        produced = at;
        done = true;
    } catch (const no_device&) {
        throw; // no device (a context made in the background failed): not a job's fault
    } catch (const std::exception&) {
        // Some job is corrupt: decode each alone on the host to find which, and keep the others.
    }
    if (!done) {
        produced = 0;
        std::atomic<std::uint64_t> sum{0};
        util::parallel_for(jobs.size(), run.threads, [&](std::size_t k) {
            try {
                fmt::zstd_parse_options p;
                p.max_output_size = std::max<std::uint64_t>(staging[k], 1);
                auto r = decompress_zstd_host(jobs[k]->input.bytes, p, 1);
                sum += r.output.size();
                jobs[k]->output = owned_blob(std::move(r.output));
            } catch (const std::exception& e) {
                jobs[k]->fail(unpack_status::corrupt, with_codec("zstd", e.what()));
            }
        });
        produced = sum;
    }
    run.budget.give_back(reserved - std::min(reserved, produced));
    for (auto* j : jobs) {
        if (j->failure != unpack_status::ok) continue;
        const std::uint64_t n = j->output.bytes.size();
        if (n > ratio_cap(run.options.limits, j->input.bytes.size())) {
            j->fail(unpack_status::refused, ratio_message(run.options.limits, n, j->input.bytes.size()));
            j->output = {};
        } else if (j->declared_size && n != *j->declared_size) {
            j->fail(unpack_status::corrupt, "zstd content is " + std::to_string(n) + " bytes, the ZIP entry declares " +
                                                std::to_string(*j->declared_size));
            j->output = {};
        }
    }
}

// A gzip file inflated whole by libdeflate (format::gzip_decompress), which finds its members by
// inflating them: the size is unknown until inflated, so the cap is the tighter of both limits.
// `found` is what the file's streams found when they were tried, added to a failure's message.
inline void inflate_gzip_whole(run_state& run, decode_job& j, const std::string& found) {
    const std::uint64_t cap = std::min(ratio_cap(run.options.limits, j.input.bytes.size()), run.budget.left());
    fmt::gzip_content g;
    try {
        g = fmt::gzip_decompress(j.input.bytes, cap);
    } catch (const resource_error&) {
        j.fail(unpack_status::refused, cap == run.budget.left() ? total_message(run.budget, cap + 1)
                                                                : ratio_message(run.options.limits, cap + 1, j.input.bytes.size()));
        return;
    } catch (const std::exception& e) {
        j.fail(unpack_status::corrupt, with_codec("gzip", e.what()) + (found.empty() ? "" : "; " + found));
        return;
    }
    if (!run.budget.take(g.data.size())) {
        j.fail(unpack_status::refused, total_message(run.budget, g.data.size()));
        return;
    }
    j.output = owned_blob(std::move(g.data));
}

// How one deflate job goes through decode_deflate.
struct deflate_job_plan {
    fmt::gzip_layout layout;          // gzip: its members, as their headers tell
    std::uint64_t reserved = 0;       // taken from the budget for its streams
    std::size_t first = 0, count = 0; // its streams in the pass
    bool whole = false;               // gzip: inflated whole on the host
    std::string found;                // gzip: what its streams found, when one failed
};

// The content of a job whose streams are first..first+count-1 of a pass: a view of the host output,
// the place of its streams on the device when all of them stayed there, else (some stayed, some
// not: a gzip file whose members straddle the route's size cap) their bytes brought together on
// the host.
inline blob deflate_job_output(run_state& run, const deflate_result& r, std::span<const deflate_stream> streams, std::size_t first,
                               std::size_t count) {
    std::size_t on_device = 0;
    std::uint64_t total = 0;
    for (std::size_t m = first; m < first + count; ++m) {
        on_device += r.kept && r.kept->has(m);
        total += streams[m].size;
    }
    if (on_device == 0) {
        const std::uint64_t begin = r.offsets[first], end = r.offsets[first + count];
        return {std::span<const std::uint8_t>(r.output->data() + begin, static_cast<std::size_t>(end - begin)), r.output};
    }
    if (on_device == count) {
        // The streams of one job are neighbours on the device: the device packs its streams in order.
        blob b;
        b.device = std::make_shared<const unpack_device_bytes>(unpack_device_bytes{r.kept->buffer, r.kept->offsets[first], total});
        b.head = r.kept->head(first, streams[first].size);
        b.owner = r.kept;
        return b;
    }
    std::vector<std::uint8_t> joined(static_cast<std::size_t>(total));
    std::uint64_t at = 0;
    for (std::size_t m = first; m < first + count; ++m) {
        if (r.kept->has(m)) {
            runtime::read(run.ctx, r.kept->buffer, joined.data() + at, static_cast<std::size_t>(streams[m].size),
                          static_cast<std::size_t>(r.kept->offsets[m]));
            run.fetched += streams[m].size;
        } else {
            std::copy(r.content(m).begin(), r.content(m).end(), joined.begin() + static_cast<std::ptrdiff_t>(at));
        }
        at += streams[m].size;
    }
    return owned_blob(std::move(joined));
}

// gzip streams and ZIP deflate entries: every deflate stream of the layer (the members of gzip
// files whose headers and trailers say where they are, ZIP method-8 entries) through the deflate
// engine in one pass, on options.deflate's route. Their sizes are known before decoding (ISIZE,
// the entry's declared size), so the ratio is checked and the bytes are taken from the budget
// first. A gzip file whose members cannot be found so, whose ISIZEs do not pass the limits (they
// may lie: the host finds out) or one of whose streams fails is inflated whole on the host, one
// file per thread, under the limits as it decodes. ZIP entries keep their checks (size, CRC-32),
// failures named by the entry.
inline void decode_deflate(run_state& run, std::vector<decode_job*>& jobs) {
    std::vector<deflate_job_plan> plans(jobs.size());
    util::parallel_for(jobs.size(), run.threads, [&](std::size_t k) {
        decode_job& j = *jobs[k];
        deflate_job_plan& p = plans[k];
        if (j.kind == codec::zip_deflate) {
            const std::uint64_t declared = *j.declared_size;
            if (!admit(run, j, declared)) return;
            if (declared > fmt::deflate_output_bound(j.input.bytes.size())) {
                run.budget.give_back(declared);
                j.fail(unpack_status::corrupt, "ZIP entry " + fmt::archive_quote(j.zip.name) + ": " +
                                                   std::to_string(j.input.bytes.size()) + " deflate bytes cannot inflate to the " +
                                                   std::to_string(declared) + " bytes declared");
                return;
            }
            p.reserved = declared;
            p.count = 1;
            return;
        }
        try {
            p.layout = fmt::gzip_layout_of(j.input.bytes);
        } catch (const std::exception&) { // a broken header: inflating the file says where
            p.whole = true;
            return;
        }
        const std::uint64_t total = p.layout.output_size;
        if (p.layout.kind == fmt::gzip_layout_kind::unknown || total > ratio_cap(run.options.limits, j.input.bytes.size()) ||
            !run.budget.take(total)) {
            p.whole = true;
            return;
        }
        p.reserved = total;
        p.count = p.layout.members.size();
    });

    std::vector<deflate_stream> streams;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
        decode_job& j = *jobs[k];
        deflate_job_plan& p = plans[k];
        if (j.failure != unpack_status::ok || p.count == 0) continue;
        p.first = streams.size();
        if (j.kind == codec::zip_deflate) {
            streams.push_back({j.input.bytes, *j.declared_size, j.zip.crc32, j.zip_archive});
        } else {
            const std::vector<deflate_stream> members = gzip_member_streams(j.input.bytes, p.layout);
            streams.insert(streams.end(), members.begin(), members.end());
        }
    }
    if (!streams.empty()) {
        deflate_options o;
        o.route = run.options.deflate;
        o.device_max_bytes = run.options.deflate_device_max_bytes;
        o.pieces_min_bytes = run.options.deflate_pieces_min_bytes;
        o.threads = run.threads;
        o.keep_on_device = run.options.keep_on_device && !run.tree && !run.options.hash;
        const deflate_result r = decompress_deflate(run.ctx, streams, o);
        run.report.deflate_streams += r.report.streams;
        run.report.deflate_device_streams += r.report.device_streams;
        run.report.deflate_dispatches += r.report.batches;
        run.report.deflate_piece_streams += r.report.piece_streams - r.report.piece_fallbacks;
        run.report.deflate_pieces += r.report.pieces;
        run.report.kept_bytes += r.report.kept_bytes;
        run.report.seconds.deflate_device += r.report.device_seconds;
        run.report.seconds.deflate_host += r.report.host_seconds;
        run.report.seconds.deflate_plan += r.report.plan_seconds;
        run.report.seconds.deflate_output += r.report.output_seconds;
        run.report.seconds.deflate_ready += r.report.device_ready_seconds;
        run.report.seconds.deflate_enqueued += r.report.device_enqueued_seconds;
        run.report.seconds.deflate_batches += r.report.device_batches_seconds;
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            decode_job& j = *jobs[k];
            deflate_job_plan& p = plans[k];
            if (j.failure != unpack_status::ok || p.count == 0) continue;
            std::size_t failed = p.count;
            for (std::size_t m = 0; m < p.count && failed == p.count; ++m)
                if (r.errors[p.first + m]) failed = m;
            if (failed == p.count) {
                j.output = deflate_job_output(run, r, streams, p.first, p.count);
                run.progress_tick();
                continue;
            }
            run.budget.give_back(p.reserved);
            if (j.kind == codec::zip_deflate) {
                j.fail(unpack_status::corrupt, "ZIP entry " + fmt::archive_quote(j.zip.name) + ": " + *r.errors[p.first]);
                run.progress_tick();
            } else {
                p.whole = true;
                p.found = gzip_member_failure(p.layout, failed, *r.errors[p.first + failed]);
            }
        }
    }

    std::vector<std::size_t> whole;
    for (std::size_t k = 0; k < jobs.size(); ++k)
        if (jobs[k]->failure == unpack_status::ok && plans[k].whole) whole.push_back(k);
    run.report.deflate_streams += whole.size();
    run.report.deflate_host_files += whole.size();
    util::parallel_for(whole.size(), run.threads, [&](std::size_t i) {
        inflate_gzip_whole(run, *jobs[whole[i]], plans[whole[i]].found);
        run.progress_tick();
    });
}

// xz, lzma and bzip2 streams and ZIP entries of methods 12, 14 and 95: decoded on the host cores
// by liblzma and libbz2, one job per thread. A ZIP entry's declared size is checked and taken
// before decoding and bounds its output; a stream's size is unknown until decoded, so its cap is
// the tighter of the ratio and what is left of the budget (as for gzip files inflated whole).
inline void decode_library(run_state& run, std::vector<decode_job*>& jobs) {
    run.report.library_streams += jobs.size();
    util::parallel_for(jobs.size(), run.threads, [&](std::size_t k) {
        decode_job& j = *jobs[k];
        const std::uint64_t in = j.input.bytes.size();
        if (j.declared_size) {
            if (!admit(run, j, *j.declared_size)) return;
            try {
                j.output = owned_blob(fmt::zip_decode_library_method(j.input.bytes, j.zip, *j.declared_size));
            } catch (const resource_error& e) { // the decoder's memory limit
                run.budget.give_back(*j.declared_size);
                j.fail(unpack_status::refused, e.what());
            } catch (const std::exception& e) {
                run.budget.give_back(*j.declared_size);
                j.fail(unpack_status::corrupt, e.what());
            }
            run.progress_tick();
            return;
        }
        const std::uint64_t cap = std::min(ratio_cap(run.options.limits, in), run.budget.left());
        std::vector<std::uint8_t> out;
        try {
            switch (j.stream) {
            case fmt::content_kind::xz: out = fmt::xz_decompress(j.input.bytes, cap); break;
            case fmt::content_kind::lzma: out = fmt::lzma_alone_decompress(j.input.bytes, cap); break;
            default: out = fmt::bzip2_decompress(j.input.bytes, cap); break;
            }
        } catch (const fmt::lzma_memory_error& e) {
            j.fail(unpack_status::refused, e.what());
            run.progress_tick();
            return;
        } catch (const resource_error&) {
            // The limit the codec met is the tighter of the two; say which.
            j.fail(unpack_status::refused, cap == run.budget.left() ? total_message(run.budget, cap + 1)
                                                                    : ratio_message(run.options.limits, cap + 1, in));
            run.progress_tick();
            return;
        } catch (const std::exception& e) {
            j.fail(unpack_status::corrupt, e.what());
            run.progress_tick();
            return;
        }
        if (!run.budget.take(out.size())) j.fail(unpack_status::refused, total_message(run.budget, out.size()));
        else j.output = owned_blob(std::move(out));
        run.progress_tick();
    });
}

} // namespace vyre::engine::detail
