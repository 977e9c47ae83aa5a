// Whole .zst files through compression.zstd and libzstd. Each frame is routed before anything is
// dispatched: made by the device, decoded whole by the host, or split between them (the seed's
// hybrid: raw/RLE blocks on the device, compressed blocks on the host). The result lands in host
// memory or stays in device memory.
#pragma once

// The paths a frame can take (zstd_frame_path):
//
//   device  compression.zstd regenerates every block (the frame has no compressed block). The
//           host only checks the statuses, the content size and the XXH64 checksum, computed from
//           the input's raw bytes and RLE runs, never from the output.
//   hybrid  raw/RLE blocks on the device, compressed blocks on the host with libzstd's block API
//           (ZSTD_decompressBlock, the device's bytes announced with ZSTD_insertBlock), the
//           checksum in a pass of its own (engine/zstd_host.hpp). The seed's design.
//   host    the whole frame with libzstd's frame API (ZSTD_decompressDCtx), which checks the
//           content size and the checksum itself, hashing each block while it is in cache.
//   split   (device target only) the device makes every raw/RLE block; the host decodes the frame
//           only up to its last compressed block (the block path, the raw/RLE blocks before it
//           made from the input as history) and hashes the rest from the input, so that only
//           the compressed blocks' bytes (and any block the device got wrong) are uploaded.
//
// The routes (zstd_options::route) give them so:
//
//   route      frame with a compressed block               frame of raw/RLE blocks only
//   automatic  host; split into device memory when its     device
//              RLE blocks save enough (zstd_split_pays)
//   hybrid     hybrid                                      hybrid into host memory, device into device memory
//   host       host                                        host
//   device     the whole frame on the device (compression.zstd.frames, or compression.zstd.blocks
//              where a dispatch holds too few frames to fill the device; zstd_options::device_program);
//              into host memory, a frame longer than 256 MiB (zstd_options::window_bytes) a window
//              of blocks at a time (engine/detail/zstd_window_pass.hpp), which also lifts the 4 GiB
//              limit of one dispatch of compression.zstd.blocks
//
// Two exceptions, on a GPU, for files whose frames hold compressed blocks: automatic sends a file of
// fewer frames than the host has threads, of at least zstd_blocks_min_output bytes, whole to the
// device route (detail::zstd_blocks_pay): libzstd decodes a frame on one thread, while
// compression.zstd.blocks decodes every block of it at once. And it sends a file of many short
// frames there too (detail::zstd_frames_pay), where a frame per subgroup beats libzstd on every core,
// and a file of many long frames (detail::zstd_long_frames_pay, 1 MiB frames say), whose blocks
// compression.zstd.blocks decodes at once. Into host memory the device route may share a file of
// many frames with the host's cores: they decode its last frames with libzstd while the device
// decodes the rest and reads it back (zstd_options::host_share; on the automatic route, for long
// frames, a share measured to pay; engine/detail/zstd_shared_frames.hpp).
//
// Why automatic routes so. The device cannot decode a compressed block, so a frame that holds one
// is decoded on the host whatever else it holds, and the frame API is the fastest host code for
// it (the block path adds ZSTD_insertBlock calls and a hashing pass of its own). Into host memory,
// sending its raw/RLE blocks to the device as well would move their bytes over PCIe twice (input
// up, output back) to save a memcpy/memset that a core does at many GB/s: the host decodes it
// alone. Into device memory the frame's bytes must go up once known. The hybrid path moves its
// raw blocks twice (input up, output back as history for the block API) and gains only on RLE
// blocks. Decoding it whole on the host and uploading the output moves every byte once. Cheaper
// still when the frame holds large RLE blocks (libzstd writes a run of one byte as a tiny
// compressed block followed by RLE blocks): the device makes the raw/RLE blocks from their input
// (a raw block's input is as large as its output; an RLE block's is one byte), the host decodes
// only what the compressed blocks need as history (the frame up to its last compressed block)
// and hashes the rest from the input without writing it, and only the compressed blocks' output
// goes up. That costs a copy per run of compressed blocks instead of a share of one merged copy,
// so it is taken only where the RLE bytes saved pay for those copies (zstd_split_saving per run).
// A frame without a compressed block needs the host only for its checksum, read from the input at
// hashing speed: the device makes it for either target.
//
// What runs where, in order:
//
//   1. host    format::parse_zstd lists every block of every frame and gives each a staging slot
//              (format/zstd_frame.hpp); the plan gives every frame its path. Only the blocks of
//              device and hybrid frames, and the raw/RLE blocks of split frames, are dispatched,
//              and only their bytes are uploaded: the file's runs that hold them (runs closer
//              than zstd_merge_gap merged), packed back to back and cut into batches of
//              options.batch_input_bytes. Nothing is decoded.
//   2. device  One dispatch per batch, over command queues of their own, ordered by events:
//              batch k+1 uploads while batch k runs and batch k-1 reads back. Three sets of batch
//              buffers, allocated once at the largest batch, rotate; a set's next upload waits for
//              its last readback. Into device memory, blocks write the device staging buffer (the
//              result) at their slots; into host memory, each batch writes its set's output
//              buffer, read back into the blocks' host staging slots. Compressed blocks (hybrid
//              frames) answer unsupported_compressed_block (code 4) and write nothing. The driving
//              thread enqueues everything, then sleeps, polling each batch's last readback;
//              when it completes, the batch's statuses are published and its waiters released.
//   3. host    Meanwhile every frame is finished on the host, frames in parallel on all cores,
//              host and split frames first (they wait last, if at all): host frames by the frame
//              API; split frames by the block path up to their last compressed block, the rest
//              hashed from the input, then the statuses of their raw/RLE blocks are read; hybrid
//              frames by the block path (a frame waits for a raw/RLE block's batch only when it
//              reaches that block); device frames by hashing the input, then reading the
//              statuses. Any raw/RLE block whose device status is not {0, its size} is
//              regenerated on the host (counted in redone_blocks). Every core belongs to this pass.
//   4. output  Host target: frames are packed to the front of the staging memory. Device
//              target: as each frame is finished, the bytes the host made for it are uploaded
//              into device staging on a queue of their own (overlapping the host pass); when
//              every frame filled its slots exactly (the usual case: encoders declare the content
//              size), that buffer is the output, otherwise frames are gathered into a new one. A
//              device frame never comes back to the host.
//
// Output equals ZSTD_decompress's byte for byte on every input ZSTD_decompress accepts (up to the
// dictionary and window limits of format::parse_zstd); anything malformed is a format_error that
// names the byte offset, with the same message whatever the route (a host frame that libzstd
// refuses is run through the block path to say where). One difference remains: libzstd 1.5's
// frame API accepts a compressed block that regenerates more than its frame's block maximum,
// which RFC 8878 forbids and the other paths refuse; a host frame decodes as ZSTD_decompress
// decodes it.

#include <vyre/engine/detail/zstd_frames_pass.hpp>
#include <vyre/engine/detail/zstd_host_pass.hpp>
#include <vyre/engine/detail/zstd_route_choice.hpp>
#include <vyre/engine/zstd_options.hpp>
#include <vyre/util/host_bytes.hpp>

#include <cstdint>
#include <span>

namespace vyre::engine {


// Decodes a whole .zst file into `out`, resized to the decompressed size. Faster than the overload
// returning a zstd_result for large files: `out`'s new bytes are not zero-filled, and they are
// faulted in on the host's threads (options.threads) before the device's read-back lands in them.
inline zstd_report decompress_zstd(runtime::context& ctx, std::span<const std::uint8_t> file, util::host_bytes& out,
                                   const zstd_options& options = {});

// Decodes into caller memory: `parsed` is format::parse_zstd(file) and staging has room for
// parsed.staging_size bytes; on return staging[0, report.output_bytes) is the decompressed file.
// Staging in pinned host memory (runtime::pinned_host_buffer) makes the readback run at DMA speed,
// as does a file held there for the upload. Device memory is used only for the dispatched
// blocks' batches (three sets at the largest batch), none when every frame is a host frame. The
// device route keeps its command queues and buffer sets on `ctx` for the next call when they are
// at most a quarter of the device's memory (runtime::context::release_kept frees them).
inline zstd_report decompress_zstd_into(runtime::context& ctx, std::span<const std::uint8_t> file,
                                        const format::zstd_file& parsed, std::span<std::uint8_t> staging,
                                        const zstd_options& options = {}) {
    if (staging.size() < parsed.staging_size)
        throw resource_error("decompress_zstd_into: staging of " + std::to_string(staging.size()) + " bytes, the layout needs " +
                             std::to_string(parsed.staging_size));
    if (!parsed.frames.empty() && parsed.frames.back().offset + parsed.frames.back().size > file.size())
        throw error("decompress_zstd_into: the parsed frames extend past the " + std::to_string(file.size()) + "-byte file");
    if (options.route == zstd_route::device || (options.route == zstd_route::automatic && detail::zstd_device_route_pays(ctx.device(), parsed, options, true))) {
        const auto run = detail::zstd_run_frames(ctx, file, parsed, options, staging, nullptr, detail::zstd_shared_from(ctx, parsed, options));
        const auto& sizes = run.sizes;
        zstd_report report;
        detail::zstd_report_device_route(parsed, run, file.size(), report);
        std::uint64_t at = 0;
        for (std::size_t k = 0; k < parsed.frames.size(); ++k) {
            // Left to right never overwrites a frame not yet moved: each frame fits its region.
            if (parsed.frames[k].output_offset != at) std::memmove(staging.data() + at, staging.data() + parsed.frames[k].output_offset, sizes[k]);
            at += sizes[k];
        }
        return report;
    }
    const auto plan = detail::make_zstd_plan(ctx, parsed, options, detail::zstd_target::host);
    boost::compute::buffer no_device_staging;
    const auto r = detail::zstd_run_passes(ctx, file, plan, options, staging, no_device_staging);
    detail::zstd_pack_on_host(parsed, r, staging);
    return r.report;
}

// Decodes a whole .zst file (frames, skippable frames, concatenated) into host memory.
inline zstd_result decompress_zstd(runtime::context& ctx, std::span<const std::uint8_t> file, const zstd_options& options = {}) {
    auto [parsed, grown] = detail::zstd_parse_or_grow(file, options);
    if (grown) return std::move(*grown);
    zstd_result result;
    result.bytes.resize(static_cast<std::size_t>(parsed.staging_size));
    result.report = decompress_zstd_into(ctx, file, parsed, result.bytes, options);
    result.bytes.resize(static_cast<std::size_t>(result.report.output_bytes));
    return result;
}

inline zstd_report decompress_zstd(runtime::context& ctx, std::span<const std::uint8_t> file, util::host_bytes& out,
                                   const zstd_options& options) {
    auto [parsed, grown] = detail::zstd_parse_or_grow(file, options);
    if (grown) {
        out.assign(grown->bytes.begin(), grown->bytes.end());
        return std::move(grown->report);
    }
    out.resize(static_cast<std::size_t>(parsed.staging_size));
    util::fault_in(out, options.threads);
    zstd_report report = decompress_zstd_into(ctx, file, parsed, out, options);
    out.resize(static_cast<std::size_t>(report.output_bytes));
    return report;
}

// Decodes a whole .zst file into device memory. The host needs scratch memory for the frames it
// decodes (host and hybrid frames, and blocks it redoes): `scratch` of at least
// format::parse_zstd(file).staging_size bytes, reused across calls, in pinned host memory for DMA
// speed; empty: allocated here (pageable). Nothing else comes back from the device. On the device
// route the device also checks the frames' checksums (bytes.xxh64) where every checksummed frame
// declares its size and detail::zstd_device_hashes finds the frames short enough; otherwise the
// frames come back into `scratch` to be hashed there.
inline zstd_device_result decompress_zstd_to_device(runtime::context& ctx, std::span<const std::uint8_t> file,
                                                    const zstd_options& options = {}, std::span<std::uint8_t> scratch = {}) {
    auto [parsed, grown] = detail::zstd_parse_or_grow(file, options);
    if (grown) {
        zstd_device_result result;
        result.output = runtime::allocate(ctx, runtime::padded_bytes(grown->bytes.size()));
        if (!grown->bytes.empty()) ctx.queue().enqueue_write_buffer(result.output, 0, grown->bytes.size(), grown->bytes.data());
        result.output_bytes = grown->bytes.size();
        result.report = std::move(grown->report);
        ++result.report.transfers;
        return result;
    }
    auto device_staging = runtime::allocate(ctx, runtime::padded_bytes(parsed.staging_size));
    if (options.route == zstd_route::device || (options.route == zstd_route::automatic && detail::zstd_device_route_pays(ctx.device(), parsed, options, false)))
        return detail::zstd_frames_to_device(ctx, file, parsed, options, scratch, device_staging);
    const auto plan = detail::make_zstd_plan(ctx, parsed, options, detail::zstd_target::device);
    std::unique_ptr<std::uint8_t[]> owned;
    if (scratch.empty() && parsed.staging_size != 0) {
        // Uninitialised: only the slots of host-decoded frames and redone blocks are ever touched.
        owned = std::make_unique_for_overwrite<std::uint8_t[]>(static_cast<std::size_t>(parsed.staging_size));
        scratch = {owned.get(), static_cast<std::size_t>(parsed.staging_size)};
    }
    if (scratch.size() < parsed.staging_size)
        throw resource_error("decompress_zstd_to_device: scratch of " + std::to_string(scratch.size()) +
                             " bytes, the layout needs " + std::to_string(parsed.staging_size));
    const auto r = detail::zstd_run_passes(ctx, file, plan, options, scratch, device_staging);
    zstd_device_result result;
    result.output = detail::zstd_assemble_on_device(ctx, plan, r, scratch, device_staging);
    result.output_bytes = r.report.output_bytes;
    result.report = r.report;
    return result;
}

} // namespace vyre::engine

