// The zstd pipeline's host side: every frame finished on all cores beside the device pass (host,
// split, hybrid and device frames), checks, hashing, and the output assembled in host or device
// memory.
// Internal to engine/zstd_decompress.hpp, whose opening comment describes the whole pipeline.
#pragma once

#include <vyre/engine/detail/zstd_device_pass.hpp>
#include <vyre/format/zstd_frame_checks.hpp>

#include <optional>

namespace vyre::engine::detail {

namespace cz = ops::compression;
namespace fmt = format;
namespace bcm = boost::compute;

inline void zstd_check_dictionary(const fmt::zstd_frame& f) {
    if (f.dictionary_id != 0)
        throw format_error("zstd: frame needs dictionary " + std::to_string(f.dictionary_id) +
                               "; decoding with dictionaries is not supported",
                           f.offset + 4);
}

// Hashes a raw or RLE block's content from the input: raw bytes as they are, an RLE run through
// a small buffer that stays in cache (nothing is written where the output goes).
struct zstd_plain_hasher {
    std::array<std::uint8_t, 4096> run{};
    void add(XXH64_state_t& hash, std::span<const std::uint8_t> data, const fmt::zstd_block& b) {
        const std::uint32_t n = *b.regenerated_size;
        if (b.type == fmt::zstd_block_type::raw) {
            XXH64_update(&hash, data.data() + b.content_offset(), n);
            return;
        }
        run.fill(data[b.content_offset()]);
        for (std::uint32_t left = n; left != 0;) {
            const std::uint32_t step = std::min<std::uint32_t>(left, run.size());
            XXH64_update(&hash, run.data(), step);
            left -= step;
        }
    }
};

// The statuses of a frame's raw/RLE blocks from `first` on, after the host pass has what it needs
// of the frame: a block the device made as promised is final in device staging; any other is
// regenerated into host staging at its slot (the frame is exact: device frames always, split
// frames by choice) and counted as redone, to be uploaded with the host's bytes (device target)
// or to stand in host staging (host target).
template <class Wait>
void zstd_take_device_blocks(std::span<const std::uint8_t> data, const fmt::zstd_frame& f, std::size_t first,
                             std::span<const compression::block_status> statuses, std::span<std::uint8_t> staging, Wait&& wait,
                             zstd_decode_stats& stats) {
    for (std::size_t i = first; i < f.blocks.size(); ++i) {
        const fmt::zstd_block& b = f.blocks[i];
        if (b.type == fmt::zstd_block_type::compressed) continue;
        wait(f.first_block + i);
        const std::uint32_t n = *b.regenerated_size;
        if (detail::zstd_device_done(b, statuses[f.first_block + i])) {
            ++stats.device_blocks;
            stats.device_bytes += n;
        } else {
            detail::zstd_redo_plain(data, b, staging.subspan(b.output_offset, b.output_capacity));
            ++stats.cpu_blocks;
            stats.cpu_bytes += n;
            ++stats.redone_blocks;
        }
    }
}

// Step 3 for a device frame: nothing of it needs to come back. The checksum is computed from the
// input first (no waiting: the raw bytes and RLE runs are what the device copies), then the
// statuses are checked.
template <class Wait>
detail::zstd_frame_outcome zstd_check_device_frame(std::span<const std::uint8_t> data, const fmt::zstd_frame& f,
                                                        std::span<const compression::block_status> statuses,
                                                        std::span<std::uint8_t> staging, Wait&& wait) {
    zstd_check_dictionary(f);
    detail::zstd_frame_outcome out;
    out.stats.frames = 1;
    for (const auto& b : f.blocks) out.size += *b.regenerated_size;
    // The parser already checked the declared size against the raw/RLE sizes; checked again here
    // so that this path and the host path reject the same frames.
    zstd_check_size(f, out.size);
    if (f.checksum) {
        XXH64_state_t hash;
        XXH64_reset(&hash, 0);
        zstd_plain_hasher hasher;
        for (const auto& b : f.blocks) hasher.add(hash, data, b);
        zstd_check_digest(f, hash);
    }
    zstd_take_device_blocks(data, f, 0, statuses, staging, wait, out.stats);
    return out;
}

// Step 3 for a split frame (device target, exact layout). The host needs the frame's bytes only
// up to its last compressed block, as history for that block's matches: it decodes that prefix
// with the block API, making the raw/RLE blocks in it from the input (memcpy/memset), hashing each
// block while it is in cache. The raw/RLE blocks after it are hashed from the input like a device
// frame's and never written on the host, whose memory bandwidth the prefix-free part would
// otherwise cost. Then the statuses of every raw/RLE block are taken. The checks and their
// messages are the block path's (engine/zstd_host.hpp), format::check_zstd_frame's included.
template <class Wait>
detail::zstd_frame_outcome zstd_decode_split_frame(ZSTD_DCtx* dctx, std::span<const std::uint8_t> data,
                                                        const fmt::zstd_frame& f, std::span<const compression::block_status> statuses,
                                                        std::span<std::uint8_t> staging, Wait&& wait) {
    zstd_check_dictionary(f);
    // Where libzstd is laxer than the format, and the blocks it wrongly refuses (rewritten).
    const bool two_byte_counts = fmt::check_zstd_frame(data, f).zero_sequences_in_two_bytes;
    detail::zstd_frame_outcome out;
    out.stats.frames = 1;
    std::size_t tail = 0; // the first block after the last compressed one
    for (std::size_t i = 0; i < f.blocks.size(); ++i)
        if (f.blocks[i].type == fmt::zstd_block_type::compressed) tail = i + 1;
    XXH64_state_t hash;
    XXH64_reset(&hash, 0);
    ZSTD_decompressBegin(dctx);
    std::uint8_t* const base = staging.data();
    std::uint64_t w = f.output_offset;
    for (std::size_t i = 0; i < tail; ++i) {
        const fmt::zstd_block& b = f.blocks[i];
        std::size_t n = 0;
        if (b.type == fmt::zstd_block_type::compressed) {
            const std::size_t room = b.output_offset + b.output_capacity - w;
            n = two_byte_counts && fmt::check_zstd_block(data, b)
                    ? detail::zstd_decode_rewritten(dctx, data, b, f.block_maximum_size, base + w, room)
                    : detail::zstd_decode_compressed(dctx, data, b, f.block_maximum_size, base + w, room);
            ++out.stats.cpu_blocks;
            out.stats.cpu_bytes += n;
        } else {
            // The parser checked the header against the content. A compressed block never
            // writes past its slot, so w is at or before this block's slot (before it only when
            // that block fell short, which the size check below reports).
            n = *b.regenerated_size;
            if (b.type == fmt::zstd_block_type::raw) std::memcpy(base + w, data.data() + b.content_offset(), n);
            else std::memset(base + w, data[b.content_offset()], n);
            if (n != 0) ZSTD_insertBlock(dctx, base + w, n);
        }
        if (f.checksum) XXH64_update(&hash, base + w, n);
        w += n;
    }
    out.size = w - f.output_offset;
    zstd_plain_hasher hasher;
    for (std::size_t i = tail; i < f.blocks.size(); ++i) {
        out.size += *f.blocks[i].regenerated_size;
        if (f.checksum) hasher.add(hash, data, f.blocks[i]);
    }
    zstd_check_size(f, out.size);
    zstd_check_digest(f, hash);
    zstd_take_device_blocks(data, f, 0, statuses, staging, wait, out.stats);
    return out;
}

struct zstd_pass_result {
    std::vector<detail::zstd_frame_outcome> frames;
    std::vector<compression::block_status> statuses; // the device's answers, every block ({4, 0} where not dispatched)
    zstd_report report;
};

// Blocks a frame's bytes come from the host for: compressed blocks, blocks of host frames (never
// dispatched: their preset status is {4, 0}), and raw/RLE blocks the device did not regenerate
// as promised (for a split frame, the host's bytes of such a block sit at its slot: the frame
// is exact).
inline bool zstd_host_made(const zstd_plan& plan, std::span<const compression::block_status> statuses, std::size_t i) {
    return !zstd_plain(*plan.blocks[i]) || !detail::zstd_device_done(*plan.blocks[i], statuses[i]);
}

// A frame that filled its staging slots exactly is final in device staging once its host-made
// blocks are uploaded there.
inline bool zstd_exact(const fmt::zstd_frame& f, const detail::zstd_frame_outcome& o) {
    return !o.failure && o.size == f.output_capacity;
}

// Device target: the host-made blocks of exact frames, uploaded into device staging (where the
// device already wrote the rest of those frames) in few large copies: runs are collected until
// enough bytes are pending, then sorted and merged (one enqueue costs microseconds of driver time,
// and a 64 KiB frame may be all there is between two device-made blocks).
struct zstd_uploader {
    bcm::command_queue& queue;
    const zstd_plan& plan;
    std::span<const compression::block_status> statuses;
    std::span<const std::uint8_t> staging;
    bcm::buffer& device_staging;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pending{}; // [begin, end) in staging
    std::uint64_t pending_bytes = 0;
    std::size_t transfers = 0;
    static constexpr std::uint64_t flush_bytes = std::uint64_t{16} << 20;

    void add(const fmt::zstd_frame& f) {
        const std::size_t end = f.first_block + f.blocks.size();
        for (std::size_t i = f.first_block; i < end;) {
            if (!zstd_host_made(plan, statuses, i) || plan.blocks[i]->output_capacity == 0) {
                ++i;
                continue;
            }
            std::size_t j = i + 1;
            while (j < end && zstd_host_made(plan, statuses, j)) ++j; // a frame's slots follow each other
            const auto* last = plan.blocks[j - 1];
            pending.emplace_back(plan.blocks[i]->output_offset, last->output_offset + last->output_capacity);
            pending_bytes += pending.back().second - pending.back().first;
            i = j;
        }
        if (pending_bytes >= flush_bytes) flush();
    }
    void flush() {
        std::sort(pending.begin(), pending.end());
        for (std::size_t i = 0; i < pending.size();) {
            std::uint64_t begin = pending[i].first, end = pending[i].second;
            for (++i; i < pending.size() && pending[i].first == end; ++i) end = pending[i].second;
            zstd_upload(queue, device_staging, begin, staging.data() + begin, end - begin);
            ++transfers;
        }
        runtime::cl_call("clFlush", [&] { queue.flush(); });
        pending.clear();
        pending_bytes = 0;
    }
};

// Steps 2 and 3 (and, for the device target, the uploads of step 4 that can start early).
// `staging` is host memory of at least file.staging_size bytes; `device_staging` (device target)
// a device buffer of file.staging_size bytes, rounded up to words.
inline zstd_pass_result zstd_run_passes(runtime::context& ctx, std::span<const std::uint8_t> data, const zstd_plan& plan,
                                        const zstd_options& options, std::span<std::uint8_t> staging,
                                        bcm::buffer& device_staging) {
    const fmt::zstd_file& file = *plan.file;
    const zstd_target target = plan.target;
    const std::size_t frames = file.frames.size();
    zstd_pass_result r;
    r.frames.resize(frames);
    r.statuses.assign(file.block_count, compression::block_status{compression::zstd_error::unsupported_compressed_block, 0});
    std::vector<compression::block_status> statuses = r.statuses;
    std::vector<std::promise<void>> ready(plan.batches.size());
    std::vector<std::shared_future<void>> futures;
    futures.reserve(ready.size());
    for (auto& p : ready) futures.push_back(p.get_future().share());

    // Host and split frames go first: they decode without waiting (a split frame waits only for
    // its statuses, at its end), and by the time the pool reaches the others, their batches are back.
    std::vector<std::size_t> order;
    order.reserve(frames);
    const auto decodes_first = [&](std::size_t k) {
        return plan.paths[k] == zstd_frame_path::host || plan.paths[k] == zstd_frame_path::split;
    };
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t k = 0; k < frames; ++k)
            if (decodes_first(k) == (pass == 0)) order.push_back(k);

    // Frames finished by the pool, for the uploads of the device target.
    std::mutex done_lock;
    std::condition_variable done_cv;
    std::vector<std::size_t> done;

    using clock = std::chrono::steady_clock;
    std::atomic<std::int64_t> waited_ns{0};
    std::atomic<std::size_t> next{0};
    auto worker = [&, futures] { // each thread waits through its own copies of the futures
        detail::zstd_dctx_ptr dctx;
        const auto wait = [&](std::size_t block) {
            const std::uint32_t k = plan.batch_index[block];
            if (k == zstd_plan::no_batch) return;
            const auto& f = futures[k];
            if (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
                const auto t0 = clock::now();
                f.wait();
                waited_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - t0).count();
            }
            f.get();
        };
        for (std::size_t n; (n = next.fetch_add(1)) < frames;) {
            const std::size_t k = order[n];
            try {
                const fmt::zstd_frame& f = file.frames[k];
                switch (plan.paths[k]) {
                case zstd_frame_path::host:
                    if (!dctx) dctx = detail::zstd_make_frame_dctx();
                    r.frames[k] = detail::zstd_decode_frame(dctx.get(), data, f, staging);
                    break;
                case zstd_frame_path::split:
                    if (!dctx) dctx = detail::zstd_make_frame_dctx();
                    r.frames[k] = zstd_decode_split_frame(dctx.get(), data, f, statuses, staging, wait);
                    break;
                case zstd_frame_path::hybrid:
                    if (!dctx) dctx = detail::zstd_make_frame_dctx();
                    r.frames[k] = detail::zstd_finish_frame(dctx.get(), data, f, statuses, staging, wait);
                    break;
                case zstd_frame_path::device:
                    r.frames[k] = zstd_check_device_frame(data, f, statuses, staging, wait);
                    break;
                }
            } catch (...) {
                r.frames[k].failure = std::current_exception();
            }
            if (target == zstd_target::device) {
                {
                    std::lock_guard<std::mutex> g(done_lock);
                    done.push_back(k);
                }
                done_cv.notify_one();
            }
        }
    };
    const auto n_threads = static_cast<unsigned>(std::min<std::size_t>(util::thread_count(options.threads), frames));
    std::exception_ptr device_failure;
    const auto started = clock::now();
    std::size_t transfers = 0;
    // This thread drives the device while the pool works; it sleeps while the device runs.
    util::run_beside(n_threads, worker, [&] {
        try {
            zstd_device_pass pass(ctx, data, plan, staging, device_staging, statuses, r.statuses);
            pass.start(options);
            for (std::size_t k = 0; k < plan.batches.size(); ++k) pass.enqueue(k);
            std::optional<zstd_uploader> up;
            if (target == zstd_target::device) up.emplace(zstd_uploader{pass.result, plan, r.statuses, staging, device_staging});
            std::size_t published = 0, handled = 0;
            for (;;) {
                while (published < plan.batches.size() && pass.complete(published)) {
                    pass.publish(published);
                    ready[published].set_value();
                    if (++published == plan.batches.size())
                        r.report.device_seconds = std::chrono::duration<double>(clock::now() - started).count();
                }
                if (up) { // then it uploads each exact frame's host-made blocks as frames are done
                    std::vector<std::size_t> batch;
                    {
                        std::lock_guard<std::mutex> g(done_lock);
                        batch.swap(done);
                    }
                    for (std::size_t k : batch)
                        if (zstd_exact(file.frames[k], r.frames[k])) up->add(file.frames[k]);
                    handled += batch.size();
                }
                if (published == plan.batches.size() && (!up || handled == frames)) break;
                if (up) {
                    std::unique_lock<std::mutex> g(done_lock);
                    done_cv.wait_for(g, std::chrono::microseconds(50), [&] { return !done.empty(); });
                } else {
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                }
            }
            if (up) {
                up->flush();
                transfers += up->transfers;
            }
            pass.finish();
            transfers += pass.transfers;
        } catch (...) {
            device_failure = std::current_exception();
            for (auto& p : ready) {
                try {
                    p.set_exception(device_failure);
                } catch (const std::future_error&) { // already satisfied
                }
            }
        }
    });
    r.report.host_seconds = std::chrono::duration<double>(clock::now() - started).count();
    r.report.wait_seconds = double(waited_ns.load()) * 1e-9;
    r.report.transfers = transfers;
    if (device_failure) std::rethrow_exception(device_failure);
    for (const auto& o : r.frames)
        if (o.failure) std::rethrow_exception(o.failure);

    r.report.blocks = file.block_count;
    r.report.dispatched_blocks = plan.dispatched.size();
    r.report.batches = plan.batches.size();
    r.report.input_bytes = data.size();
    r.report.device_input_bytes = plan.packed_bytes;
    r.report.staging_bytes = file.staging_size;
    r.report.split.skippable_frames = file.skippable_frames.size();
    r.report.frame_path = plan.paths;
    for (zstd_frame_path p : plan.paths) {
        switch (p) {
        case zstd_frame_path::device: ++r.report.paths.device; break;
        case zstd_frame_path::hybrid: ++r.report.paths.hybrid; break;
        case zstd_frame_path::host: ++r.report.paths.host; break;
        case zstd_frame_path::split: ++r.report.paths.split; break;
        }
    }
    r.report.frame_bytes.reserve(r.frames.size());
    for (const auto& o : r.frames) {
        r.report.split += o.stats;
        r.report.output_bytes += o.size;
        r.report.frame_bytes.push_back(o.size);
    }
    // The host pass read the preset {4, 0} for compressed blocks; a different device answer means
    // the device did not do what the op promises (the block was decoded on the host regardless).
    for (std::size_t i = 0; i < plan.blocks.size(); ++i)
        if (!zstd_plain(*plan.blocks[i]) && r.statuses[i].code != compression::zstd_error::unsupported_compressed_block)
            ++r.report.split.redone_blocks;
    return r;
}

// Step 4 of the device target. Exact frames are already complete in device staging; when every
// frame is exact, that buffer is the output. Otherwise frames are gathered into a new buffer:
// exact ones by device copies, the others (never device frames: a frame without compressed
// blocks is exact) uploaded from where the host pass rebuilt them.
inline bcm::buffer zstd_assemble_on_device(runtime::context& ctx, const zstd_plan& plan, const zstd_pass_result& r,
                                           std::span<const std::uint8_t> staging, bcm::buffer& device_staging) {
    const fmt::zstd_file& file = *plan.file;
    bool all_exact = true;
    for (std::size_t k = 0; k < file.frames.size(); ++k) all_exact = all_exact && zstd_exact(file.frames[k], r.frames[k]);
    if (all_exact) return device_staging;
    auto out = runtime::allocate(ctx, runtime::padded_bytes(r.report.output_bytes));
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        const fmt::zstd_frame& f = file.frames[k];
        const std::uint64_t size = r.frames[k].size;
        if (zstd_exact(f, r.frames[k])) {
            if (size != 0)
                runtime::cl_call("clEnqueueCopyBuffer",
                                         [&] { ctx.queue().enqueue_copy_buffer(device_staging, out, f.output_offset, at, size); });
        } else {
            zstd_upload(ctx.queue(), out, at, staging.data() + f.output_offset, size);
        }
        at += size;
    }
    zstd_wait_idle(ctx);
    return out;
}

inline void zstd_pack_on_host(const fmt::zstd_file& file, const zstd_pass_result& r, std::span<std::uint8_t> staging) {
    std::uint64_t at = 0;
    for (std::size_t k = 0; k < file.frames.size(); ++k) {
        const fmt::zstd_frame& f = file.frames[k];
        // Left to right never overwrites a frame not yet moved: each frame fits in its region.
        if (f.output_offset != at) std::memmove(staging.data() + at, staging.data() + f.output_offset, r.frames[k].size);
        at += r.frames[k].size;
    }
}

// A file whose layout the input does not vouch for (zstd_layout_unproven) is decoded on the host,
// frame by frame into memory that grows with the output, up to options.max_output_bytes; one with
// more tiny blocks or frames than a parse may list (format::zstd_table_error) is streamed through
// libzstd whole (zstd_decode_streamed), with `file` left empty. nullopt for every other file,
// checked against max_output_bytes as parse_zstd would check it.
struct zstd_parsed {
    fmt::zstd_file file;
    std::optional<zstd_result> grown;
};

inline zstd_parsed zstd_parse_or_grow(std::span<const std::uint8_t> file, const zstd_options& options) {
    fmt::zstd_parse_options p;
    p.max_output_size = ~std::uint64_t{0};
    p.threads = options.threads;
    const auto over_limit = [&] { return resource_error("zstd: the output passes max_output_bytes " + std::to_string(options.max_output_bytes)); };
    zstd_parsed out;
    try {
        out.file = fmt::parse_zstd(file, p);
    } catch (const fmt::zstd_table_error&) {
        auto s = zstd_decode_streamed(file, options.max_output_bytes, over_limit);
        zstd_result r;
        r.bytes = std::move(s.bytes);
        zstd_report& rep = r.report;
        rep.grown = true;
        rep.paths.host = s.frames;
        rep.blocks = s.blocks;
        rep.input_bytes = file.size();
        rep.output_bytes = r.bytes.size();
        rep.split.frames = s.frames;
        rep.split.skippable_frames = s.skippable_frames;
        rep.split.cpu_blocks = s.blocks;
        rep.split.cpu_bytes = r.bytes.size();
        out.grown = std::move(r);
        return out;
    }
    if (!zstd_layout_unproven(out.file, file.size())) {
        fmt::check_zstd_staging(out.file, options.max_output_bytes);
        return out;
    }
    auto g = zstd_decode_frames_growing(file, out.file, options.max_output_bytes, over_limit);
    zstd_result r;
    r.bytes = std::move(g.bytes);
    zstd_report& rep = r.report;
    rep.grown = true;
    rep.frame_bytes = std::move(g.frame_bytes);
    rep.frame_path.assign(out.file.frames.size(), zstd_frame_path::host);
    rep.paths.host = out.file.frames.size();
    rep.blocks = out.file.block_count;
    rep.input_bytes = file.size();
    rep.output_bytes = r.bytes.size();
    rep.split.frames = out.file.frames.size();
    rep.split.skippable_frames = out.file.skippable_frames.size();
    rep.split.cpu_blocks = out.file.block_count;
    rep.split.cpu_bytes = r.bytes.size();
    out.grown = std::move(r);
    return out;
}


} // namespace vyre::engine::detail
