// Part of engine/unpack.hpp: content a decoder left on the device (unpack_options::keep_on_device),
// as the finish step of a layer sees it: what each file is, told from its head, and the files the
// host must read (the containers it parses), brought back. Both read from the device for many files
// at once: one blocking read per file costs the driver about a millisecond, and a layer holds tens
// of thousands of files.
#pragma once

#include <vyre/compression/skippable.hpp>
#include <vyre/engine/deflate_decompress.hpp>
#include <vyre/engine/detail/unpack_state.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/ops/bytes/heads.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/util/little_endian.hpp>
#include <vyre/util/parallel.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <vector>

namespace vyre::engine::detail {

namespace fmt = format;

// Content a decoder left on the device, brought to the host for a step that reads its bytes.
inline void fetch_to_host(run_state& run, blob& b) {
    if (!b.device) return;
    std::vector<std::uint8_t> v(static_cast<std::size_t>(b.device->size));
    runtime::read(run.ctx, b.device->buffer, v.data(), v.size(), static_cast<std::size_t>(b.device->offset));
    run.fetched += v.size();
    b = owned_blob(std::move(v));
}

// The same for many blobs: every read enqueued, then one wait (runtime::read_each).
inline void fetch_all_to_host(run_state& run, std::span<blob* const> blobs) {
    std::vector<std::vector<std::uint8_t>> bytes;
    std::vector<runtime::read_piece> reads;
    std::vector<blob*> fetched;
    for (blob* b : blobs) {
        if (!b->device) continue;
        bytes.emplace_back(static_cast<std::size_t>(b->device->size));
        fetched.push_back(b);
    }
    for (std::size_t k = 0; k < fetched.size(); ++k)
        reads.push_back({&fetched[k]->device->buffer, static_cast<std::size_t>(fetched[k]->device->offset), bytes[k].data(), bytes[k].size()});
    runtime::read_each(run.ctx, reads);
    for (std::size_t k = 0; k < fetched.size(); ++k) {
        run.fetched += bytes[k].size();
        *fetched[k] = owned_blob(std::move(bytes[k]));
    }
}

// Whether device content's head cannot tell what it is, so that format::detect needs the whole
// content: the head is shorter than detect reads, or opens with a skippable frame (detect then
// reads on).
inline bool head_is_not_enough(const blob& b) {
    const bool short_head = b.head.size() < std::min<std::uint64_t>(b.device->size, deflate_head_bytes);
    const bool skippable = b.head.size() >= 4 && compression::is_skippable_magic(util::read_le32(b.head, 0));
    return short_head || skippable;
}

// Whether device content is told by the 5 bytes at iso9660_magic_offset: its head says nothing and
// the content reaches them (detect looks there for an ISO 9660 image).
inline bool needs_iso_probe(const blob& b) {
    return b.device && !head_is_not_enough(b) && b.device->size >= fmt::iso9660_magic_offset + 5 &&
           fmt::detect(b.head, false) == fmt::content_kind::unknown;
}

// What a file's content is (format::detect). Content on the device is told by its head, which
// decides as the whole would (detect reads the first 512 bytes, and 5 bytes at
// iso9660_magic_offset, which `iso_magic` holds where needs_iso_probe), unless the head is not
// enough (head_is_not_enough): such content is fetched first. The one difference: a ZIP with data
// before it is found by its end, which is not read back from the device (one read per file would
// cost the scan more than such files are worth), so there it stays a file.
inline fmt::content_kind detect_content(run_state& run, blob& b, const std::uint8_t* iso_magic = nullptr) {
    if (b.device) {
        if (!head_is_not_enough(b)) {
            const fmt::content_kind k = fmt::detect(b.head, false);
            if (k != fmt::content_kind::unknown || b.device->size < fmt::iso9660_magic_offset + 5) return k;
            std::uint8_t magic[5];
            if (iso_magic) std::copy(iso_magic, iso_magic + 5, magic);
            else runtime::read(run.ctx, b.device->buffer, magic, sizeof magic, static_cast<std::size_t>(b.device->offset + fmt::iso9660_magic_offset));
            if (!std::equal(magic, magic + 5, "CD001")) return k;
        }
        fetch_to_host(run, b);
    }
    return fmt::detect(b.bytes);
}

// The 5 bytes at iso9660_magic_offset of each blob (device content, needs_iso_probe), read with one
// bytes.heads call per device buffer (bytes.heads reads a buffer's first 4 GiB; content past them
// is read alone): 8 bytes per blob, the 5 at 8 * k.
inline std::vector<std::uint8_t> read_iso_magics(run_state& run, std::span<const blob* const> blobs) {
    std::vector<std::uint8_t> magics(blobs.size() * 8, 0);
    std::map<cl_mem, std::vector<std::size_t>, std::less<>> by_buffer;
    for (std::size_t k = 0; k < blobs.size(); ++k) {
        const unpack_device_bytes& d = *blobs[k]->device;
        if (d.offset + d.size <= 0xffffffffull) by_buffer[d.buffer.get()].push_back(k);
        else runtime::read(run.ctx, d.buffer, magics.data() + k * 8, 5, static_cast<std::size_t>(d.offset + fmt::iso9660_magic_offset));
    }
    for (const auto& [buffer, list] : by_buffer) {
        std::vector<ops::bytes::byte_range> ranges;
        ranges.reserve(list.size());
        for (const std::size_t k : list) {
            const unpack_device_bytes& d = *blobs[k]->device;
            ranges.push_back({d.offset + fmt::iso9660_magic_offset, d.size - fmt::iso9660_magic_offset});
        }
        const std::vector<std::uint8_t> heads = ops::bytes::heads_device(run.ctx, blobs[list.front()]->device->buffer, ranges, 8);
        for (std::size_t r = 0; r < list.size(); ++r) std::copy_n(heads.begin() + static_cast<std::ptrdiff_t>(r * 8), 8, magics.begin() + static_cast<std::ptrdiff_t>(list[r] * 8));
    }
    return magics;
}

} // namespace vyre::engine::detail
