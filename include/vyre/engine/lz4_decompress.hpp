// Whole LZ4 files through compression.lz4: one file, or every LZ4 file of an archive layer in one
// pass, and the same on the host (liblz4 and the CPU reference), which is also the oracle.
//
// How a pass goes. format::parse_lz4_frames lists every block of every file (checking headers and
// block checksums, and learning each block's exact size). Every block of every frame with
// independent blocks (and of legacy frames), across all the files, goes to one route
// (lz4_options::route): to the device as one set of descriptors, one launch per batch that
// compression::make_block_batches cuts, each batch's input and output windows below 4 GiB and the
// device's largest allocation; or to liblz4 on every host core. Frames with linked
// blocks are decoded on the host afterwards, files in parallel: each of their blocks may copy from
// the previous 64 KiB of the frame's output, so block k cannot start before block k-1 has
// finished, which leaves a GPU nothing to run in parallel. Content sizes and content checksums
// are verified at the end. A file whose block the device decodes to anything but {none, its exact
// size} fails with a message naming the frame and block; the other files of the pass are kept.
#pragma once

#include <vyre/compression/batch.hpp>
#include <vyre/compression/block.hpp>
#include <vyre/compression/lz4.hpp>
#include <vyre/error.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/reference/lz4.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/host_bytes.hpp>
#include <vyre/util/parallel.hpp>

#include <lz4.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::engine {

// Where a pass's independent blocks are decoded: device (compression.lz4), host (liblz4 on every
// core, blocks in parallel), or automatic: a GPU where the blocks are small enough
// (lz4_device_max_block_bytes), else the host (engine::unpack also sends a run of small inputs
// to the host, unpack_options::host_below_bytes).
enum class lz4_route { automatic, device, host };

// The automatic route's crossover: a pass whose independent blocks decode to at most this many
// bytes on average goes to a GPU; larger blocks, and every pass on a CPU device, go to liblz4 on
// the host cores. One subgroup decodes a block serially, so large blocks leave the device to a
// few long chains. On the H100 (2026-11-25, the same blocks in one run, doc/benchmarks.md)
// compression.lz4 ran 49.7 and 39.8 GB/s end to end at 4 and 64 KiB blocks against 25.5 and 24.1
// for liblz4 on 16 host threads, but 31.6 against 36.7 at 256 KiB, and 5.4 to 6.2 at 4 MiB, the
// lz4 tool's default block size (doc/ops/compression.lz4.md has the unpack figures).
inline constexpr std::uint64_t lz4_device_max_block_bytes = std::uint64_t{128} << 10;

inline const char* lz4_route_name(lz4_route r) noexcept {
    switch (r) {
    case lz4_route::automatic: return "automatic";
    case lz4_route::device: return "device";
    case lz4_route::host: return "host";
    }
    return "?";
}

inline std::optional<lz4_route> lz4_route_from_name(std::string_view name) noexcept {
    for (lz4_route r : {lz4_route::automatic, lz4_route::device, lz4_route::host})
        if (name == lz4_route_name(r)) return r;
    return std::nullopt;
}

struct lz4_options {
    lz4_route route = lz4_route::automatic;
    ops::block_variant variant = ops::block_variant::automatic;
    // Per launch; also lowered to the device's largest allocation. Smaller limits make more batches.
    compression::batch_limits limits = {};
    // A hostile file may describe far more output than it holds: refuse above this.
    std::uint64_t max_output_bytes = std::numeric_limits<std::uint64_t>::max();
    // Host threads for linked frames, the host route and checksums (0: every core).
    unsigned threads = 0;
};

struct lz4_report {
    std::size_t files = 0;
    std::size_t frames = 0;
    std::size_t blocks = 0;         // data blocks of every frame
    std::size_t device_blocks = 0;  // decoded by compression.lz4 on the device
    std::size_t host_blocks = 0;    // decoded on the host: blocks of linked frames, and every block on the host route
    std::size_t batches = 0;        // launches
    std::uint64_t input_bytes = 0;  // the files
    std::uint64_t output_bytes = 0; // decoded
    // The file had too many tiny blocks or frames to list (format::lz4_table_error): decoded on
    // the host as a walk reached each block (decompress_lz4_walked).
    bool walked = false;
};

// ---- on the host ----------------------------------------------------------------------------------

// Decodes one block of frame `f` on the host into `output` (the whole file's output): an
// independent block with the CPU reference of compression.lz4, a linked one with liblz4 and the
// frame's previous 64 KiB of output as dictionary (so linked blocks are decoded in order).
inline void decompress_lz4_block_host(const format::lz4_frame& f, const compression::block_extent& e, std::span<const std::uint8_t> file,
                                      std::span<std::uint8_t> output) {
    if (e.input_offset > file.size() || e.input_size > file.size() - e.input_offset || e.output_offset > output.size() ||
        e.output_size > output.size() - e.output_offset)
        throw format_error("LZ4 block lies outside the file or the output", e.input_offset);
    const auto in = file.subspan(e.input_offset, e.input_size);
    const auto out = output.subspan(e.output_offset, e.output_size);
    const bool linked = !f.blocks_independent && !(e.flags & compression::block_flag_uncompressed);
    std::uint64_t produced = 0;
    if (linked) {
        const std::uint64_t history = std::min<std::uint64_t>(e.output_offset - f.output_offset, compression::lz4_window_size);
        const int r = LZ4_decompress_safe_usingDict(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
                                                    static_cast<int>(in.size()), static_cast<int>(out.size()),
                                                    reinterpret_cast<const char*>(out.data()) - history, static_cast<int>(history));
        produced = r < 0 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(r);
    } else {
        const auto st = reference::lz4_decode_block(in, out, e.flags);
        produced = st.code == compression::lz4_error::none ? st.output_size : ~std::uint64_t{0};
    }
    if (produced != e.output_size)
        throw format_error("LZ4 block starting at byte " + std::to_string(e.input_offset) + " failed to decode to its " +
                               std::to_string(e.output_size) + " bytes",
                           e.input_offset);
}

// Decodes one frame's blocks on the host into `output` (the whole file's output,
// layout.output_size bytes), block by block (decompress_lz4_block_host). Checksums are not checked
// here (format::verify_lz4_content does that once every frame is decoded).
inline void decompress_lz4_frame_host(const format::lz4_layout& layout, std::size_t frame, std::span<const std::uint8_t> file,
                                      std::span<std::uint8_t> output) {
    if (output.size() != layout.output_size)
        throw format_error("LZ4 output buffer holds " + std::to_string(output.size()) + " bytes, the frames describe " +
                           std::to_string(layout.output_size));
    const format::lz4_frame& f = layout.frames.at(frame);
    for (std::size_t i = f.first_block; i < f.first_block + f.block_count; ++i)
        decompress_lz4_block_host(f, layout.blocks.at(i).extent, file, output);
}

namespace detail {

inline void check_lz4_output_size(std::uint64_t output_size, std::uint64_t max_output_bytes) {
    if (output_size > max_output_bytes || output_size > std::numeric_limits<std::size_t>::max() / 2)
        throw resource_error("LZ4 file decodes to " + std::to_string(output_size) + " bytes, above the limit of " +
                             std::to_string(max_output_bytes));
}

inline void check_lz4_output_size(const format::lz4_layout& layout, std::uint64_t max_output_bytes) {
    check_lz4_output_size(layout.output_size, max_output_bytes);
}

} // namespace detail

// A file with more tiny blocks or frames than a parse may list (format::lz4_table_error), decoded
// on the host with nothing listed: a first walk (format::walk_lz4_frames) reports what
// parse_lz4_frames would and counts the output; `out` is then sized to it (`max_output_bytes`
// checked as for every file) and a second walk decodes each block as it reaches it
// (decompress_lz4_block_host) and checks each frame as it ends. Same bytes and same errors as the
// listed path; memory is the file and its output.
template <class Bytes>
format::lz4_walk_counts decompress_lz4_walked(std::span<const std::uint8_t> file, Bytes& out,
                                              std::uint64_t max_output_bytes = std::numeric_limits<std::uint64_t>::max()) {
    const format::lz4_walk_counts counts = format::walk_lz4_frames(file, {});
    detail::check_lz4_output_size(counts.output_size, max_output_bytes);
    out.resize(static_cast<std::size_t>(counts.output_size));
    const std::span<std::uint8_t> output(out.data(), out.size());
    // As in the listed path, a block that fails to decode is reported before any frame's
    // checksum: the first checksum error waits for the end of the walk.
    std::optional<format_error> unverified;
    format::lz4_walk_visitor decode;
    decode.block = [&](const format::lz4_frame& f, const format::lz4_block& b) { decompress_lz4_block_host(f, b.extent, file, output); };
    decode.frame = [&](const format::lz4_frame& f) {
        if (unverified) return;
        try {
            format::verify_lz4_frame_content(f, output);
        } catch (const format_error& e) {
            unverified = e;
        }
    };
    (void)format::walk_lz4_frames(file, decode);
    if (unverified) throw *unverified;
    return counts;
}

// Decodes a whole LZ4 file (every frame, in order) on the host and verifies its checksums and
// content sizes. `max_output_bytes` bounds what a hostile file may make us allocate.
inline std::vector<std::uint8_t> decompress_lz4_host(std::span<const std::uint8_t> file,
                                                     std::uint64_t max_output_bytes = std::numeric_limits<std::uint64_t>::max()) {
    format::lz4_layout layout;
    try {
        layout = format::parse_lz4_frames(file);
    } catch (const format::lz4_table_error&) {
        std::vector<std::uint8_t> output;
        (void)decompress_lz4_walked(file, output, max_output_bytes);
        return output;
    }
    detail::check_lz4_output_size(layout, max_output_bytes);
    std::vector<std::uint8_t> output(static_cast<std::size_t>(layout.output_size));
    for (std::size_t i = 0; i < layout.frames.size(); ++i) decompress_lz4_frame_host(layout, i, file, output);
    format::verify_lz4_content(layout, output);
    return output;
}

// ---- on the device, many files in one pass -------------------------------------------------------

// One file of a pass: its bytes and its parsed layout (format::parse_lz4_frames).
struct lz4_file {
    std::span<const std::uint8_t> bytes;
    const format::lz4_layout* layout = nullptr;
};

// What a pass made: file k's content is output[offsets[k], + its layout's output_size), unless
// errors[k] says why it failed (with the byte of the file where). The output is shared so that the
// contents can be handed on without a copy.
struct lz4_files_result {
    std::shared_ptr<util::host_bytes> output;
    std::vector<std::uint64_t> offsets;
    std::vector<std::optional<format_error>> errors;
    std::span<const std::uint8_t> content(std::size_t k, const lz4_file& f) const {
        return {output->data() + offsets[k], static_cast<std::size_t>(f.layout->output_size)};
    }
};

// Decodes every file of `files` (see the note at the top), the device's blocks of all of them in
// one set of launches. Adds to `report`. A pass whose files decode to more than
// options.max_output_bytes in all is a resource_error before anything is allocated.
inline lz4_files_result decompress_lz4_files(runtime::context& ctx, std::span<const lz4_file> files, const lz4_options& options = {},
                                             lz4_report* report = nullptr) {
    namespace vc = vyre::compression;
    lz4_files_result r;
    r.errors.resize(files.size());
    // One input address space: the files back to back (no copy for a single file).
    std::vector<std::uint64_t> in_base;
    std::vector<std::uint8_t> joined;
    std::span<const std::uint8_t> input;
    std::uint64_t in_total = 0, out_total = 0;
    for (const lz4_file& f : files) {
        in_base.push_back(in_total);
        in_total += f.bytes.size();
        r.offsets.push_back(out_total);
        out_total += f.layout->output_size;
    }
    if (files.size() == 1) {
        input = files[0].bytes;
    } else {
        joined.resize(static_cast<std::size_t>(in_total));
        for (std::size_t k = 0; k < files.size(); ++k)
            if (!files[k].bytes.empty()) std::memcpy(joined.data() + in_base[k], files[k].bytes.data(), files[k].bytes.size());
        input = joined;
    }
    if (out_total > options.max_output_bytes || out_total > std::numeric_limits<std::size_t>::max() / 2)
        throw resource_error("LZ4 files decode to " + std::to_string(out_total) + " bytes, above the limit of " +
                             std::to_string(options.max_output_bytes));
    // Not zero-filled (every block writes its bytes; a failed file's content is never handed on),
    // and its pages faulted in on every core: a zero fill and first touches on one thread cost more
    // than decoding a large file on all of them.
    r.output = std::make_shared<util::host_bytes>(static_cast<std::size_t>(out_total));
    util::fault_in(*r.output, options.threads);

    // Every independent block of every file: one set of descriptors for the whole pass.
    std::vector<vc::block_extent> extents;
    std::vector<std::size_t> file_of, block_of;
    std::size_t blocks = 0, frames = 0;
    for (std::size_t k = 0; k < files.size(); ++k) {
        const format::lz4_layout& l = *files[k].layout;
        blocks += l.blocks.size();
        frames += l.frames.size();
        for (std::size_t i = 0; i < l.blocks.size(); ++i)
            if (l.frames[l.blocks[i].frame].blocks_independent) {
                vc::block_extent e = l.blocks[i].extent;
                e.input_offset += in_base[k];
                e.output_offset += r.offsets[k];
                extents.push_back(e);
                file_of.push_back(k);
                block_of.push_back(i);
            }
    }
    bool on_host = options.route == lz4_route::host;
    if (options.route == lz4_route::automatic) {
        std::uint64_t block_bytes = 0;
        for (const vc::block_extent& e : extents) block_bytes += e.output_size;
        // The device is asked only where the blocks are small enough for it.
        on_host = extents.empty() || block_bytes > extents.size() * lz4_device_max_block_bytes || !ctx.device().is_gpu();
    }
    if (on_host) {
        // liblz4 on every core, a block at a time; the first failing block of a file names it.
        std::vector<char> failed(extents.size(), 0);
        util::parallel_for(extents.size(), options.threads, [&](std::size_t i) {
            const vc::block_extent& e = extents[i];
            // A layout from elsewhere than format::parse_lz4_frames is not trusted to stay inside.
            if (e.input_offset > input.size() || e.input_size > input.size() - e.input_offset || e.output_offset > out_total ||
                e.output_size > out_total - e.output_offset) {
                failed[i] = 1;
                return;
            }
            const auto* in = input.data() + e.input_offset;
            auto* out = r.output->data() + e.output_offset;
            if (e.flags & vc::block_flag_uncompressed) {
                if (e.input_size != e.output_size) failed[i] = 1;
                else if (e.input_size != 0) std::memcpy(out, in, e.input_size);
                return;
            }
            constexpr std::uint64_t int_max = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
            if (e.input_size > int_max || e.output_size > int_max) { // liblz4 takes int sizes
                failed[i] = 1;
                return;
            }
            const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                                                static_cast<int>(e.input_size), static_cast<int>(e.output_size));
            if (got >= 0 && static_cast<std::uint64_t>(got) == e.output_size) return;
            // liblz4 also enforces the encoder's end-of-block rules (the last five bytes are
            // literals), which compression.lz4 and the parser's measuring do not: the device's
            // verdict, the CPU reference's, stands, so that a file decodes alike on either route.
            const auto st = reference::lz4_decode_block({in, e.input_size}, {out, e.output_size}, e.flags);
            failed[i] = st.code != compression::lz4_error::none || st.output_size != e.output_size;
        });
        for (std::size_t i = 0; i < extents.size(); ++i) {
            const std::size_t k = file_of[i];
            if (!failed[i] || r.errors[k]) continue;
            const format::lz4_layout& l = *files[k].layout;
            const format::lz4_block& b = l.blocks[block_of[i]];
            r.errors[k].emplace("LZ4 frame " + std::to_string(b.frame) + ", block " + std::to_string(block_of[i] - l.frames[b.frame].first_block) +
                                    ": does not decode to its " + std::to_string(b.extent.output_size) + " bytes (liblz4)",
                                b.extent.input_offset);
        }
    }
    const auto batches = on_host ? std::vector<vc::block_batch>{}
                                 : vc::make_block_batches(extents, ops::device_batch_limits(ctx.device(), options.limits));
    for (const vc::block_batch& batch : batches) {
        const auto window = input.subspan(static_cast<std::size_t>(batch.input_base), static_cast<std::size_t>(batch.input_bytes));
        const ops::block_result got = ops::decode_blocks<ops::compression::lz4_op>(ctx, window, batch.blocks, batch.output_bytes, options.variant);
        for (std::size_t i = 0; i < batch.blocks.size(); ++i) {
            const std::size_t k = file_of[batch.first_extent + i];
            const format::lz4_layout& l = *files[k].layout;
            const format::lz4_block& b = l.blocks[block_of[batch.first_extent + i]];
            if (ops::block_ok(got.statuses[i], b.extent.output_size) || r.errors[k]) continue;
            r.errors[k].emplace("LZ4 frame " + std::to_string(b.frame) + ", block " +
                                    std::to_string(block_of[batch.first_extent + i] - l.frames[b.frame].first_block) +
                                    ": device decoding gave " +
                                    ops::block_failure_text<ops::compression::lz4_op>(got.statuses[i], b.extent.output_size),
                                b.extent.input_offset);
        }
        // The whole window at once: bytes of linked frames inside it are decoded again below.
        runtime::read(ctx, got.output, r.output->data() + batch.output_base, static_cast<std::size_t>(batch.output_bytes));
    }

    // Linked frames on the host, files in parallel; then every file's content sizes and checksums.
    std::atomic<std::size_t> host_blocks{0};
    util::parallel_for(files.size(), options.threads, [&](std::size_t k) {
        if (r.errors[k]) return;
        const format::lz4_layout& l = *files[k].layout;
        const std::span<std::uint8_t> out(r.output->data() + r.offsets[k], static_cast<std::size_t>(l.output_size));
        try {
            for (std::size_t f = 0; f < l.frames.size(); ++f)
                if (!l.frames[f].blocks_independent) {
                    decompress_lz4_frame_host(l, f, files[k].bytes, out);
                    host_blocks += l.frames[f].block_count;
                }
            format::verify_lz4_content(l, out);
        } catch (const format_error& e) {
            r.errors[k] = e;
        } catch (const std::exception& e) {
            r.errors[k].emplace(e.what());
        }
    });
    if (report) {
        report->files += files.size();
        report->frames += frames;
        report->blocks += blocks;
        report->device_blocks += on_host ? 0 : extents.size();
        report->host_blocks += host_blocks + (on_host ? extents.size() : 0);
        report->batches += batches.size();
        report->input_bytes += in_total;
        report->output_bytes += out_total;
    }
    return r;
}

// Decodes a whole LZ4 file (standard, legacy and skippable frames, in any order) and returns its
// content: the pass above with one file. Any failure is a format_error naming the frame and block
// (at the byte of the file where it lies); a file decoding to more than options.max_output_bytes
// is a resource_error before anything is allocated.
// Into `out` (resized to the content): no copy, and no zero fill of the output.
inline void decompress_lz4(runtime::context& ctx, std::span<const std::uint8_t> file, util::host_bytes& out,
                           const lz4_options& options = {}, lz4_report* report = nullptr) {
    if (report) *report = {};
    format::lz4_layout layout;
    try {
        layout = format::parse_lz4_frames(file);
    } catch (const format::lz4_table_error&) {
        // Too many tiny blocks to list: the host walks and decodes them (a device would gain
        // nothing on blocks of a few bytes).
        const format::lz4_walk_counts c = decompress_lz4_walked(file, out, options.max_output_bytes);
        if (report) {
            report->files = 1;
            report->frames = static_cast<std::size_t>(c.frames);
            report->blocks = report->host_blocks = static_cast<std::size_t>(c.blocks);
            report->input_bytes = file.size();
            report->output_bytes = c.output_size;
            report->walked = true;
        }
        return;
    }
    detail::check_lz4_output_size(layout, options.max_output_bytes);
    const lz4_file one{file, &layout};
    lz4_files_result r = decompress_lz4_files(ctx, std::span(&one, 1), options, report);
    if (r.errors[0]) throw *r.errors[0];
    out = std::move(*r.output);
}

inline std::vector<std::uint8_t> decompress_lz4(runtime::context& ctx, std::span<const std::uint8_t> file, const lz4_options& options = {},
                                                lz4_report* report = nullptr) {
    util::host_bytes out;
    decompress_lz4(ctx, file, out, options, report);
    return std::vector<std::uint8_t>(out.begin(), out.end());
}

} // namespace vyre::engine
