// Raw DEFLATE streams (gzip members, ZIP method-8 entries) through compression.deflate and
// libdeflate: many streams in one pass, each routed to the device or to the host cores, each
// checked against the size and the CRC-32 its container declares; and whole gzip files, whose
// members become streams where their headers and trailers say where they are.
#pragma once

// The routes (deflate_options::route):
//
//   route      stream
//   automatic  device when it decodes to at most options.device_max_bytes (deflate_device_max_bytes),
//              host above, except the largest streams of options.pieces_min_bytes or more
//              (deflate_pieces_min_bytes, 16 MiB), which go to the device in pieces for as long as that
//              shortens the estimated time of the whole pass (a single .tar.gz does, sixteen
//              of them on sixteen host cores do not: detail::choose_piece_streams); host on a CPU
//              device (PoCL), where libdeflate runs natively on the same cores the OpenCL program
//              would
//   device     device: in pieces from options.pieces_min_bytes up (deflate_device_pieces_min_bytes,
//              1 MiB), in batches below
//   host       host: libdeflate, streams in parallel on every core (what ran before the device op)
//
// On every route a stream that one dispatch cannot hold (input or output above 2^32-1 bytes or the
// device's largest allocation: compression.deflate's descriptors are 32-bit) goes to the host, and
// so does one too large for pieces (detail::deflate_pieces_fit) that would have gone in pieces.
//
// What runs where, in order (the zstd pipeline's shape, engine/zstd_decompress.hpp):
//
//   1. host    every stream gets its path and its slot in the output (streams back to back, in
//              order, each as large as the size it must decode to). The device streams' input is
//              packed: streams of one source (a file, an archive) closer than deflate_merge_gap
//              upload as one copy with the bytes between them, and the packed input is cut into
//              as few batches (make_block_batches) as the device's limits allow, or smaller ones
//              of options.batch_input_bytes input and options.batch_output_bytes output. Nothing
//              is decoded.
//   2. device  One dispatch of compression.deflate per batch, over command queues of their own,
//              ordered by events: batch k+1 uploads while batch k runs and batch k-1 reads back.
//              A batch's descriptors are launched longest output first (deflate_plan::launch).
//              Three sets of batch buffers, allocated once at the largest batch, rotate (fewer
//              where three would take over half the device's memory). Each
//              stream's output comes back into its slot (streams adjacent in the output in one
//              copy) with its status. The driving thread enqueues everything, then sleeps,
//              polling each batch's last readback, and releases the batch's waiters.
//   3. host    Meanwhile, on every core, the host streams are inflated by libdeflate into their
//              slots, then each device stream is checked once its batch is back.
//   4. device  Once the batches are back, the streams in pieces, all of them together on the
//              same thread (ops::compression::inflate_split_streams: one upload, split points found
//              on the device for every stream at once, every stream's pieces in the same rounds,
//              one join; their CRC-32s on the device (ops::bytes::crc32_device), then each one read
//              into its slot and checked). One that the pieces cannot decode or that fails a
//              check is inflated on the host there and then, so its bytes and message are the host
//              route's (deflate_report::piece_fallbacks). Their content always comes back to the
//              host, keep_on_device or not.
//
// The checks, the same on every path: the stream must decode without error to exactly the size
// it was given, and its CRC-32 (format::crc32_of) must be the one it was given. A failure names
// the op's status (ops::compression::deflate_op::status_name), the bytes made and the size
// expected: "invalid_symbol after 1234 bytes, 5000 expected", "decodes to 4000 bytes, 5000
// expected", "CRC-32 mismatch: expected 0x..., computed 0x...". A stream that fails on the host
// (libdeflate refuses it, or what it makes fails a check) is run through the op's CPU oracle
// (reference::deflate_inflate) to name the status the device would report, so the messages are
// the same on every route (streams up to deflate_oracle_bytes; a larger one is named by
// libdeflate's verdict). A stream the oracle then accepts with the right size and CRC-32 is kept:
// the device would have made it. Input after a stream's final block is not looked at, as in
// zip_extract.
//
// gzip files (decompress_gzip): format::gzip_layout_of finds the members from their headers and
// trailers when the file is one member (stream: from the end of its header to the last 8 bytes)
// or BGZF (every member says its size), and every member is a stream with its ISIZE and CRC-32.
// Any other file (several plain members, a trailer that cannot be one), and any file one of whose
// streams fails, is inflated whole on the host by format::gzip_decompress, which finds the
// members by inflating them; the report says so and why. That also covers what a layout cannot
// know: a member of 4 GiB or more (ISIZE is its size modulo 2^32) overflows its stream's slot and
// goes to the host, and a file of several members read as one fails its checks (format/gzip.hpp
// says which files a reading is refused for, and the one thing the checks cannot see).

#include <vyre/compression/batch.hpp>
#include <vyre/compression/block.hpp>
#include <vyre/compression/deflate.hpp>
#include <vyre/error.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/util/host_bytes.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::engine {

// Which streams go where (see the table above).
enum class deflate_route { automatic, device, host };

inline const char* deflate_route_name(deflate_route r) noexcept {
    switch (r) {
    case deflate_route::automatic: return "automatic";
    case deflate_route::device: return "device";
    case deflate_route::host: return "host";
    }
    return "?";
}

inline std::optional<deflate_route> deflate_route_from_name(std::string_view name) noexcept {
    for (deflate_route r : {deflate_route::automatic, deflate_route::device, deflate_route::host})
        if (name == deflate_route_name(r)) return r;
    return std::nullopt;
}

// The automatic route's crossover: a stream that decodes to at most this many bytes goes to the
// device, a larger one to libdeflate on the host cores. compression.deflate decodes a stream
// serially in one subgroup, so the device wins by decoding thousands at once, and a single large
// stream holds its whole batch back (doc/ops/compression.deflate.md has the per-stream rate
// measured on the H100), while libdeflate inflates one stream on one host core far faster. CPU
// devices never get the device path from this route.
inline constexpr std::uint64_t deflate_device_max_bytes = 256 * 1024;

// One raw DEFLATE stream (RFC 1951, no header) and what it must decode to.
struct deflate_stream {
    std::span<const std::uint8_t> input; // bytes after its final block are ignored
    std::uint64_t size = 0;              // the content's size, exactly
    std::uint32_t crc32 = 0;             // the content's CRC-32 (gzip's and ZIP's)
    // The buffer `input` lies in (a file, an archive), when known: streams of one source that lie
    // close together upload in one copy with the bytes between them, which must then be readable.
    std::span<const std::uint8_t> source = {};
};

// The smallest stream (bytes of content) that may be decoded on the device in pieces
// (ops/compression/deflate_split.hpp) rather than by one subgroup or one host core: on the H200
// one 16 MiB stream in pieces took 0.9 times libdeflate's time on one core, and larger ones less.
// The automatic route still weighs each such stream against the host cores (see the table above).
inline constexpr std::uint64_t deflate_pieces_min_bytes = std::uint64_t{16} << 20;
// The same on the device route, where the other streams go in batches of one subgroup a stream,
// each batch as long as its longest stream's serial decoding: of 16, 4 and 1 MiB, 1 MiB was the
// fastest for `vyre unpack --deflate-route device` of ZIPs of whole Python packages on the H200
// (doc/ops/compression.deflate.md, "The route", has the figures).
inline constexpr std::uint64_t deflate_device_pieces_min_bytes = std::uint64_t{1} << 20;

// Where one stream was decoded: in a batch of compression.deflate, on the host, or alone on the
// device in pieces.
enum class deflate_path : std::uint8_t { device, host, pieces };

inline const char* deflate_path_name(deflate_path p) noexcept {
    switch (p) {
    case deflate_path::device: return "device";
    case deflate_path::host: return "host";
    case deflate_path::pieces: return "pieces";
    }
    return "?";
}

struct deflate_options {
    // automatic: the fast program (one stream per subgroup) on GPUs, the reference one (one stream
    // per invocation) on CPU devices (ops::compression::deflate_op::automatic).
    ops::block_variant variant = ops::block_variant::automatic;
    deflate_route route = deflate_route::automatic;
    std::uint64_t device_max_bytes = deflate_device_max_bytes; // the automatic route's crossover
    // Streams of at least this many bytes may go to the device in pieces (unset:
    // deflate_device_pieces_min_bytes on the device route, deflate_pieces_min_bytes otherwise;
    // the maximum: never). deflate_pieces_min() reads it.
    std::optional<std::uint64_t> pieces_min_bytes;
    // Input and output bytes of one dispatch, raised to the largest stream. By default only the
    // device's limits cut batches (ops::device_batch_limits: its largest allocation, 32-bit
    // descriptors), so the streams take as few dispatches as the device allows; smaller batches
    // overlap one batch's upload, kernel and readback with the next ones'.
    std::uint64_t batch_input_bytes = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t batch_output_bytes = std::numeric_limits<std::uint64_t>::max();
    // The streams' sizes added up may be at most this much: above it, resource_error before
    // anything is allocated.
    std::uint64_t max_output_bytes = std::numeric_limits<std::uint64_t>::max();
    unsigned threads = 0; // threads of the host pass; 0: every hardware thread
    // Leave what the device decodes in device memory (deflate_result::kept) for a later stage on
    // the device: the streams' CRC-32s are computed there (bytes.crc32) and only their statuses,
    // CRCs and first deflate_head_bytes bytes (bytes.heads) come back. Ignored when the device
    // streams' content passes deflate_keep_limit; their bytes then come back as on every route.
    bool keep_on_device = false;
};

// The smallest stream that may go to the device in pieces under `o` (deflate_options::pieces_min_bytes).
inline std::uint64_t deflate_pieces_min(const deflate_options& o) noexcept {
    return o.pieces_min_bytes.value_or(o.route == deflate_route::device ? deflate_device_pieces_min_bytes : deflate_pieces_min_bytes);
}

// With deflate_options::keep_on_device, the first bytes of each kept stream the host gets (what
// format::detect reads to know an archive).
inline constexpr std::uint32_t deflate_head_bytes = 512;

// The most content kept on the device in one pass: one buffer, below the device's largest
// allocation and a quarter of its memory, and indexed by 32 bits (the ops that read it).
inline std::uint64_t deflate_keep_limit(const runtime::device_info& d) noexcept {
    return std::min({d.max_allocation, d.global_memory / 4, std::uint64_t{0xffffffffu} - 3});
}

// The streams a pass left on the device: stream k's content is buffer[offsets[k], + its size)
// when offsets[k] != not_kept, and its first bytes (up to deflate_head_bytes) are in heads at
// slots[k] * deflate_head_bytes.
struct deflate_kept {
    static constexpr std::uint64_t not_kept = std::numeric_limits<std::uint64_t>::max();
    boost::compute::buffer buffer; // whole words readable past the last stream
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> slots;
    std::vector<std::uint8_t> heads;
    std::uint64_t bytes = 0; // content kept

    bool has(std::size_t k) const noexcept { return k < offsets.size() && offsets[k] != not_kept; }
    std::span<const std::uint8_t> head(std::size_t k, std::uint64_t size) const {
        return std::span<const std::uint8_t>(heads).subspan(std::size_t{slots[k]} * deflate_head_bytes,
                                                            static_cast<std::size_t>(std::min<std::uint64_t>(size, deflate_head_bytes)));
    }
};

// Who did what.
struct deflate_report {
    std::size_t streams = 0;
    std::size_t device_streams = 0;    // decoded by compression.deflate, in batches or in pieces
    std::size_t host_streams = 0;      // inflated by libdeflate
    // Streams the plan sent to the device in pieces (deflate_path::pieces), their pieces in all,
    // and those of them the host decoded instead (the pieces failed a check or a limit;
    // piece_fallback_reason has the first one's why), which count as host streams.
    std::size_t piece_streams = 0;
    std::uint64_t pieces = 0;
    std::size_t piece_fallbacks = 0;
    std::string piece_fallback_reason;
    // Of the host streams, those one dispatch cannot hold (above 4 GiB when no stream of the pass
    // could go to the device, which is then not asked).
    std::size_t oversized_streams = 0;
    std::size_t failed_streams = 0;    // that failed a check (errors[k] says why)
    std::size_t batches = 0;           // dispatches of compression.deflate
    std::uint64_t input_bytes = 0;     // every stream's input
    std::uint64_t output_bytes = 0;    // every stream's size
    std::uint64_t device_input_bytes = 0;  // bytes uploaded for the dispatches (the packed input)
    std::uint64_t device_output_bytes = 0; // the device streams' sizes
    std::size_t transfers = 0;             // host <-> device copies enqueued
    std::uint64_t kept_bytes = 0;          // content left on the device (deflate_options::keep_on_device)
    // Wall clock from the start of the passes: until the device pass ended, until the host pass's
    // last thread had nothing left to do, and how long the host pass's threads waited for the
    // device in all.
    double device_seconds = 0;
    double host_seconds = 0;
    double wait_seconds = 0;
    // Before the passes: the plan (which waits for a context still being made) and the output's
    // pages. The device pass's marks, from the passes' start: its kernel and buffers ready, every
    // batch enqueued, the last batch back (the kept streams' checks and the pieces follow).
    double plan_seconds = 0, output_seconds = 0;
    double device_ready_seconds = 0, device_enqueued_seconds = 0, device_batches_seconds = 0;
};

// What a pass made: stream k's content is output[offsets[k], offsets[k + 1]) unless errors[k]
// says why it failed (its slot then holds what was made, the rest unspecified), or kept->has(k) says
// it stayed on the device (its slot is then empty). The output is shared so that contents can be
// handed on without a copy, and is not zero-filled: a stream that decodes writes all of its slot.
struct deflate_result {
    std::shared_ptr<util::host_bytes> output;
    std::shared_ptr<const deflate_kept> kept; // null when nothing stayed on the device
    std::vector<std::uint64_t> offsets; // one more than the streams
    std::vector<deflate_path> paths;
    std::vector<std::optional<std::string>> errors;
    deflate_report report;

    std::span<const std::uint8_t> content(std::size_t k) const {
        return {output->data() + offsets[k], static_cast<std::size_t>(offsets[k + 1] - offsets[k])};
    }
    bool ok() const noexcept { return report.failed_streams == 0; }
};

} // namespace vyre::engine

// The pipeline's plan, device pass and host pass (engine/detail/); they use the types above.
#include <vyre/engine/detail/deflate_pass.hpp>

namespace vyre::engine {

// Decodes every stream (see the note at the top): one set of batches for all the device streams,
// the host streams on every core beside them. A stream that fails is reported in errors[k], never
// thrown; what throws is a device command failing, and sizes above options.max_output_bytes
// (resource_error, before anything is allocated).
inline deflate_result decompress_deflate(runtime::context& ctx, std::span<const deflate_stream> streams,
                                         const deflate_options& options = {}) {
    const auto t0 = std::chrono::steady_clock::now();
    detail::deflate_plan plan = detail::make_deflate_plan([&]() -> const runtime::device_info& { return ctx.device(); }, streams, options,
                                                          detail::deflate_device_wait_seconds(ctx));
    if (options.keep_on_device && !plan.dispatched.empty() && plan.device_output_bytes <= deflate_keep_limit(ctx.device()))
        detail::keep_device_streams(plan);
    deflate_result r;
    // Its pages are faulted in on every core: a zero fill on one thread cost more than the device's
    // part of a layer of ZIP entries, and a read-back into unmapped pages faults them on one thread.
    r.output = std::make_shared<util::host_bytes>(static_cast<std::size_t>(plan.offsets.back()));
    const auto t1 = std::chrono::steady_clock::now();
    util::fault_in(*r.output, options.threads);
    r.errors.resize(streams.size());
    const auto t2 = std::chrono::steady_clock::now();
    r.report = detail::deflate_run_passes(ctx, plan, options, *r.output, r.errors, &r.kept);
    r.report.plan_seconds = std::chrono::duration<double>(t1 - t0).count();
    r.report.output_seconds = std::chrono::duration<double>(t2 - t1).count();
    r.offsets = std::move(plan.offsets);
    r.paths = std::move(plan.paths);
    return r;
}

// ---- gzip files ---------------------------------------------------------------------------------

// The deflate streams of a gzip file's members as format::gzip_layout_of found them (single or
// BGZF): each member's deflate bytes, its ISIZE and its CRC-32. Their contents, in order, are the
// file's content.
inline std::vector<deflate_stream> gzip_member_streams(std::span<const std::uint8_t> file, const format::gzip_layout& layout) {
    std::vector<deflate_stream> streams;
    streams.reserve(layout.members.size());
    for (const format::gzip_member& m : layout.members)
        streams.push_back({file.subspan(static_cast<std::size_t>(m.deflate_offset), static_cast<std::size_t>(m.deflate_size)),
                           m.isize, m.crc32, file});
    return streams;
}

// "read as one member, member 0 (byte offset 0, ISIZE 5000): invalid_symbol after 17 bytes, 5000
// expected": what a member's stream did, for messages.
inline std::string gzip_member_failure(const format::gzip_layout& layout, std::size_t member, std::string_view why) {
    const format::gzip_member& m = layout.members.at(member);
    return std::string(layout.kind == format::gzip_layout_kind::bgzf ? "read as BGZF members" : "read as one member") +
           ", member " + std::to_string(member) + " (byte offset " + std::to_string(m.offset) + ", ISIZE " +
           std::to_string(m.isize) + "): " + std::string(why);
}

struct gzip_report {
    format::gzip_layout_kind layout = format::gzip_layout_kind::unknown;
    std::size_t members = 0;    // found by the layout, or by inflating the file whole
    bool whole_on_host = false; // inflated by format::gzip_decompress (libdeflate)
    std::string host_reason;    // why: the layout's `why`, or the member whose stream failed
    deflate_report deflate;     // the members' pass (nothing when the layout found none)
};

struct gzip_result {
    util::host_bytes bytes;
    gzip_report report;
};

// Decodes a whole gzip file (see the note at the top). A file whose members were found decodes as
// streams on options.route; any other, or one whose streams fail, is inflated whole on the host,
// whose verdict stands: a format_error from format::gzip_decompress (naming the byte offset), with
// what the streams found added to its message when they were tried. Output above
// options.max_output_bytes is a resource_error.
inline gzip_result decompress_gzip(runtime::context& ctx, std::span<const std::uint8_t> file, const deflate_options& options = {}) {
    gzip_result result;
    gzip_report& rep = result.report;
    format::gzip_layout layout;
    try {
        layout = format::gzip_layout_of(file);
    } catch (const format_error& e) { // a broken header: gzip_decompress says the same, and stops the file
        layout.why = e.what();
    }
    rep.layout = layout.kind;
    std::string found; // what the streams found
    if (layout.kind != format::gzip_layout_kind::unknown && layout.output_size <= options.max_output_bytes) {
        const std::vector<deflate_stream> streams = gzip_member_streams(file, layout);
        deflate_result r = decompress_deflate(ctx, streams, options);
        rep.deflate = r.report;
        rep.members = layout.members.size();
        for (std::size_t k = 0; k < streams.size() && found.empty(); ++k)
            if (r.errors[k]) found = gzip_member_failure(layout, k, *r.errors[k]);
        if (found.empty()) {
            result.bytes = std::move(*r.output);
            return result;
        }
        rep.host_reason = found;
    } else if (layout.kind != format::gzip_layout_kind::unknown) {
        rep.host_reason = "its members' ISIZEs add up to " + std::to_string(layout.output_size) + " bytes, above the limit of " +
                          std::to_string(options.max_output_bytes);
    } else {
        rep.host_reason = layout.why;
    }
    rep.whole_on_host = true;
    try {
        format::gzip_content g = format::gzip_decompress(file, options.max_output_bytes);
        rep.members = g.members.size();
        result.bytes.assign(g.data.begin(), g.data.end());
    } catch (const format_error& e) {
        if (found.empty()) throw;
        throw format_error(std::string(e.what()) + "; " + found);
    }
    return result;
}

} // namespace vyre::engine
