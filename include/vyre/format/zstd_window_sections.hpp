// A long zstd frame planned a window of blocks at a time (format::plan_zstd_window), for the
// device route's windows (engine/detail/zstd_window_pass.hpp): the same walk as
// format/zstd_sections.hpp over some blocks of one frame, carrying the tables the blocks before
// them left.
#pragma once

#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace vyre::format {

// What one window of a long frame leaves for the next (plan_zstd_window): the tables its last
// blocks set, by where they came from.
struct zstd_window_carry {
    detail::zstd_carried carried;
};

// Lays out blocks [first, first + count) of frame f (parsed from `data`) for compression.zstd.blocks
// as a frame of their own: one frame record [0, count, 0, the blocks' staging capacity], to which
// zstd_prepend_history adds room for f's earlier output (compression::zstd_frame_start). Input offsets count from the first block's header (input_base), so a window's input
// is only its own blocks. The tables its blocks reuse from earlier blocks (treeless literals,
// repeated sequence tables) are made again from `carry`, which comes back holding what this
// window's blocks leave. Windows must be planned in order, each with the carry of the one before
// (a default carry for the frame's first). Throws as plan_zstd_sections does.
inline zstd_sections plan_zstd_window(std::span<const std::uint8_t> data, const zstd_frame& f, std::size_t first, std::size_t count,
                                      zstd_window_carry& carry, const zstd_plan_options& options) {
    namespace c = compression;
    zstd_sections s;
    if (first > f.blocks.size() || count > f.blocks.size() - first)
        throw resource_error("plan_zstd_window: blocks [" + std::to_string(first) + ", +" + std::to_string(count) + ") of a frame of " +
                             std::to_string(f.blocks.size()));
    if (count == 0) return s;
    s.input_base = f.blocks[first].header_offset;
    const detail::zstd_defaults defaults = detail::zstd_shared_tables(s.tables);
    detail::zstd_plan_budget budget;
    budget.limit = options.max_plan_bytes;
    detail::zstd_frame_plan p;
    p.input_base = s.input_base;
    p.table_base = static_cast<std::uint32_t>(s.tables.size());
    p.budget = &budget;
    p.describe = options.device_tables;
    detail::zstd_carry_into(data, carry.carried, defaults, p);
    detail::zstd_plan_blocks(data, f, first, count, defaults, p, carry.carried);
    std::uint64_t capacity = 0;
    for (std::size_t k = first; k < first + count; ++k) capacity += f.blocks[k].output_capacity;
    s.input_bytes = detail::zstd_u32(f.blocks[first + count - 1].end_offset() - s.input_base, "the input size");
    s.frames = {0u, static_cast<std::uint32_t>(count), 0u, detail::zstd_u32(capacity, "a window's output capacity")};
    s.output_bytes = capacity;
    // The window's own tables follow the shared ones already (table_base), and its described
    // tables follow every built one.
    const std::uint64_t described_base = s.tables.size() + p.tables.size();
    for (const auto& [slot, at] : p.described_slots) p.blocks[slot] = detail::zstd_u32(described_base + at, "the table words");
    for (std::size_t d = 0; d < p.descriptions.size(); d += c::zstd_fse_description_words)
        p.descriptions[d] = detail::zstd_u32(described_base + p.descriptions[d], "the table words");
    s.tables.insert(s.tables.end(), p.tables.begin(), p.tables.end());
    s.blocks = std::move(p.blocks);
    s.fse_descriptions = std::move(p.descriptions);
    s.described_words = p.described_words;
    s.literal_bytes = p.literal_bytes;
    s.compressed_blocks = p.compressed_blocks;
    s.sequences = p.sequences;
    detail::zstd_u32(s.literal_bytes, "the literals scratch");
    detail::zstd_u32(s.table_words(), "the table words");
    return s;
}

// Gives a window planned by plan_zstd_window `history` bytes of room before its blocks' output,
// for the frame's latest output (known only once the window before it is decoded).
inline void zstd_prepend_history(zstd_sections& s, std::uint64_t history) {
    if (s.frames.empty()) return;
    s.frames[3] = detail::zstd_u32(s.frames[3] + history, "a window's output capacity");
    s.output_bytes += history;
}

} // namespace vyre::format
