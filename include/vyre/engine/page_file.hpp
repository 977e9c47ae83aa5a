// Whole page files decoded: on the device (every compressed and stored page's block through
// compression.lz4) or on the host with liblz4, the oracle. Writing page files: engine/page_compressor.hpp.
#pragma once

#include <vyre/compression/batch.hpp>
#include <vyre/compression/lz4.hpp>
#include <vyre/compression/pages.hpp>
#include <vyre/error.hpp>
#include <vyre/format/page_file.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/compression/lz4.hpp>

#include <lz4.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine {

// Decodes a parsed page file on the device: compressed and stored pages through compression.lz4
// (one launch per batch that compression::make_block_batches cuts), same_fill pages on the host. A
// page whose block does not decode to exactly one page is a format_error naming it. A file that
// decodes to more than `max_output_bytes` is a resource_error before anything is allocated (a
// small hostile file can declare 2048 times its size: format::check_page_file_output).
inline std::vector<std::uint8_t> decompress_page_file(runtime::context& ctx, const format::page_file_view& v,
                                                      std::uint64_t max_output_bytes = format::page_file_default_max_output) {
    namespace vc = vyre::compression;
    format::check_page_file_output(v, max_output_bytes);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(v.content_bytes()));
    std::vector<vc::block_extent> extents;
    std::vector<std::size_t> page_of;
    for (std::size_t i = 0; i < v.records.size(); ++i) {
        const vc::page_record& r = v.records[i];
        if (r.kind() == vc::page_kind::same_fill) {
            std::memset(out.data() + i * v.page_size, r.fill(), v.page_size);
            continue;
        }
        extents.push_back({v.offsets[i], std::uint64_t{i} * v.page_size, r.length, v.page_size,
                           r.kind() == vc::page_kind::stored ? vc::block_flag_uncompressed : 0u});
        page_of.push_back(i);
    }
    for (const vc::block_batch& b : vc::make_block_batches(extents, ops::device_batch_limits(ctx.device()))) {
        const auto window = v.blocks.subspan(static_cast<std::size_t>(b.input_base), static_cast<std::size_t>(b.input_bytes));
        const ops::block_result r = ops::decode_blocks<ops::compression::lz4_op>(ctx, window, b.blocks, b.output_bytes);
        const std::vector<std::uint8_t> bytes = ops::read_output(ctx, r);
        for (std::size_t k = 0; k < b.blocks.size(); ++k) {
            const std::size_t page = page_of[b.first_extent + k];
            if (!ops::block_ok(r.statuses[k], v.page_size))
                throw format_error("page " + std::to_string(page) + ": device decoding gave " +
                                   vc::lz4_error_name(r.statuses[k].code) + " after " + std::to_string(r.statuses[k].output_size) +
                                   " bytes, not one " + std::to_string(v.page_size) + "-byte page");
            std::memcpy(out.data() + page * v.page_size, bytes.data() + b.blocks[k].output_offset, v.page_size);
        }
    }
    return out;
}

// Decodes every page on the CPU (liblz4) into `out` (content_bytes() bytes). A block that does not
// decode to exactly one page is a format_error naming the page.
inline void decompress_page_file_host(const format::page_file_view& v, std::span<std::uint8_t> out) {
    if (out.size() < v.content_bytes()) throw resource_error("page file: output of " + std::to_string(out.size()) + " bytes for " + std::to_string(v.content_bytes()));
    for (std::size_t i = 0; i < v.records.size(); ++i) {
        std::uint8_t* dst = out.data() + i * v.page_size;
        const auto& r = v.records[i];
        const auto b = v.block(i);
        switch (r.kind()) {
        case vyre::compression::page_kind::same_fill: std::memset(dst, r.fill(), v.page_size); break;
        case vyre::compression::page_kind::stored: std::memcpy(dst, b.data(), v.page_size); break;
        case vyre::compression::page_kind::compressed: {
            const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(b.data()), reinterpret_cast<char*>(dst), static_cast<int>(b.size()),
                                                static_cast<int>(v.page_size));
            if (got != static_cast<int>(v.page_size))
                throw format_error("page " + std::to_string(i) + ": its LZ4 block decodes to " + (got < 0 ? std::string("an error") : std::to_string(got) + " bytes") +
                                   ", not one " + std::to_string(v.page_size) + "-byte page");
            break;
        }
        }
    }
}

// Decodes every page on the CPU into a new buffer, after checking the content against
// `max_output_bytes` (check_page_file_output) before anything is allocated.
inline std::vector<std::uint8_t> decompress_page_file_host(const format::page_file_view& v,
                                                           std::uint64_t max_output_bytes = format::page_file_default_max_output) {
    format::check_page_file_output(v, max_output_bytes);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(v.content_bytes()));
    decompress_page_file_host(v, out);
    return out;
}

} // namespace vyre::engine
