// compression.zstd.fse_tables: the FSE decoding tables of many Zstandard blocks built on the
// device from their descriptions (compression/zstd_entropy.hpp: a table's offset, accuracy log
// and normalized counts), into the tables buffer compression.zstd.frames and compression.zstd.blocks
// read. The host's walk (format::plan_zstd_sections with device_tables) then only reads each
// description, and uploads 29 words for a table of up to 513.
//
// How. One invocation builds one table, as RFC 8878 4.1.1 does: symbols of probability -1 take the
// last cells, the others are spread with the RFC's step, and then, cell by cell in order, each
// symbol's next state numbers its cells from its count up. The symbols are written into the
// table's own cells first and read back for the second pass; the per-symbol state counters live in
// workgroup memory. A description that builds no table (counts that do not sum to the table's
// size, a count below -1, an accuracy log outside 5 to 9, more than 53 symbols, a table that would leave
// the buffer) leaves zstd_fse_refused in the table's header word, which the decoders refuse as a
// bad record; one whose offset is outside the buffer writes nothing. CPU reference:
// compression::zstd_build_described_tables.
#pragma once

#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::compression {

inline constexpr const char* zstd_fse_tables_id = "compression.zstd.fse_tables";

namespace zstd_fse_tables_binding {
inline constexpr std::uint32_t descriptions = 0, tables = 1, params = 2;
}
// params: [descriptions, table words]
inline constexpr std::uint32_t zstd_fse_tables_param_words = 2;
inline constexpr std::uint32_t zstd_fse_tables_workgroup = 64;

inline ir::program zstd_fse_tables_program(std::uint32_t workgroup = zstd_fse_tables_workgroup) {
    namespace d = vyre::dsl;
    namespace c = vyre::compression;
    namespace b = zstd_fse_tables_binding;
    d::kernel k(entry_name(zstd_fse_tables_id), {workgroup, 1, 1});
    const auto descriptions = k.input<d::u32>("descriptions", b::descriptions);
    const auto tables = k.output<d::u32>("tables", b::tables);
    const auto params = k.uniform<d::u32>("params", b::params);
    // Symbol s's next state for invocation i at s * workgroup + i.
    const auto next = k.workgroup<d::u32>("next", c::zstd_fse_max_symbols * workgroup);

    const auto id = k.let("id", d::invocation_id());
    const auto lane = k.let("lane", d::local_id());
    const auto base = k.let("base", id * c::zstd_fse_description_words);
    const auto at = k.let("at", d::select(id < params[0u], descriptions[base], 0xFFFFFFFFu));
    const auto words = k.let("words", params[1u]);
    k.if_(at < words, [&] {
        const auto head = k.let("head", descriptions[base + 1u]);
        const auto log = k.let("log", head & 0xFFu);
        const auto n = k.let("n", head >> 8u);
        // Symbol s's count as 16 bits: 0xFFFF is -1, 0x8000 and up (else) below -1.
        const auto count = [&](const std::string& tag, const auto& s) {
            return k.let("h_" + tag, (descriptions[base + 2u + s / 2u] >> ((s & 1u) * 16u)) & 0xFFFFu);
        };
        const auto size = k.let("size", d::lit(1u) << d::select(log <= c::zstd_literal_length_max_log, log, 0u));
        const auto ok = k.let("ok", log >= c::zstd_fse_min_log && log <= c::zstd_literal_length_max_log && n <= c::zstd_fse_max_symbols &&
                                        size < words - at);
        const auto total = k.let("total", 0u);
        k.for_("s", 0u, d::select(ok, n, 0u), [&](const auto& s) {
            const auto h = count("sum", s);
            total = total + d::select(h == 0xFFFFu, 1u, d::select(h < 0x8000u, h, 0u));
            ok = ok && (h < 0x8000u || h == 0xFFFFu);
        });
        ok = ok && total == size;
        // Symbols of probability -1 at the top, each starting its states at 1; the others at their count.
        const auto high = k.let("high", size - 1u);
        k.for_("l", 0u, d::select(ok, n, 0u), [&](const auto& s) {
            const auto h = count("low", s);
            k.if_(h == 0xFFFFu, [&] {
                k.store(tables, at + 1u + high, s);
                high = high - 1u;
            });
            k.store(next, s * workgroup + lane, d::select(h == 0xFFFFu, 1u, h));
        });
        // The spread: every cell up to `high` is visited once, since the step is odd (for logs from 5).
        const auto step = k.let("step", (size >> 1u) + (size >> 3u) + 3u);
        const auto pos = k.let("pos", 0u);
        k.for_("p", 0u, d::select(ok, n, 0u), [&](const auto& s) {
            const auto h = count("spread", s);
            k.for_("i", 0u, d::select(h < 0x8000u, h, 0u), [&](const auto&) {
                k.store(tables, at + 1u + pos, s);
                pos = (pos + step) & (size - 1u);
                k.while_(pos > high, [&] { pos = (pos + step) & (size - 1u); });
            });
        });
        ok = ok && pos == 0u;
        // States numbered cell by cell: bits = log - floor(log2(state)), baseline = (state << bits) - size.
        k.for_("u", 0u, d::select(ok, size, 0u), [&](const auto& u) {
            const auto symbol = k.let("symbol", tables[at + 1u + u]);
            const auto state = k.let("state", next[symbol * workgroup + lane]);
            k.store(next, symbol * workgroup + lane, state + 1u);
            const auto bits = k.let("bits", log - (31u - d::clz(state)));
            k.store(tables, at + 1u + u, bits | (symbol << 4u) | (((state << bits) - size) << 10u));
        });
        k.store(tables, at, d::select(ok, log, c::zstd_fse_refused));
    });
    return k.program();
}

inline op_info zstd_fse_tables_info() {
    return {zstd_fse_tables_id, 1,
            "zstd FSE decoding tables built from their descriptions (accuracy log, normalized counts), one invocation per table",
            {{ir::data_type::u32}, ir::data_type::u32}, ir::convention::v1(), [] { return zstd_fse_tables_program(); }};
}

inline const runtime::compiled_program& zstd_fse_tables_kernel() {
    static const runtime::compiled_program p(zstd_fse_tables_program());
    return p;
}

// Device buffers of a run, kept for the next one (runtime::reserve). The parameters stay here
// until the write that reads them has run.
struct zstd_fse_tables_buffers {
    boost::compute::buffer descriptions, params;
    std::array<std::uint32_t, zstd_fse_tables_param_words> words{};
    boost::compute::event dispatch; // none when there are no descriptions
};

// Enqueues the build of every described table into `tables` (its first `table_words` words; the
// buffer is read-write) on ctx's queue, nothing waited for: `descriptions` is written from where it
// is, so it must outlive the queue's work. `b` is empty or holds the buffers of a completed run.
// `writes`, when given, carries the writes instead of ctx's queue, which waits for them: a
// pipeline keeps them in order with its other uploads there (engine/detail/zstd_frames_pass.hpp).
inline void enqueue_zstd_fse_tables(runtime::context& ctx, const boost::compute::buffer& tables, std::uint64_t table_words,
                                    std::span<const std::uint32_t> descriptions, zstd_fse_tables_buffers& b,
                                    boost::compute::command_queue* writes = nullptr) {
    namespace c = vyre::compression;
    const std::uint64_t count = descriptions.size() / c::zstd_fse_description_words;
    if (descriptions.size() % c::zstd_fse_description_words != 0)
        throw resource_error(std::string(zstd_fse_tables_id) + ": " + std::to_string(descriptions.size()) + " description words, not a multiple of " +
                             std::to_string(c::zstd_fse_description_words));
    if (table_words > tables.size() / 4 || count > 0xFFFFFFFFull / c::zstd_fse_description_words)
        throw resource_error(std::string(zstd_fse_tables_id) + ": " + std::to_string(table_words) + " table words in a buffer of " +
                             std::to_string(tables.size()) + " bytes, " + std::to_string(count) + " descriptions");
    b.dispatch = {};
    if (count == 0) return;
    runtime::reserve(ctx, b.descriptions, descriptions.size_bytes(), CL_MEM_READ_ONLY);
    runtime::reserve(ctx, b.params, zstd_fse_tables_param_words * 4, CL_MEM_READ_ONLY);
    b.words = {static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(table_words)};
    boost::compute::command_queue& to = writes ? *writes : ctx.queue();
    boost::compute::event written;
    runtime::cl_call("clEnqueueWriteBuffer", [&] {
        to.enqueue_write_buffer_async(b.descriptions, 0, descriptions.size_bytes(), descriptions.data());
        written = to.enqueue_write_buffer_async(b.params, 0, b.words.size() * 4, b.words.data());
    });
    if (writes) runtime::wait_across(*writes, written, ctx.queue());
    namespace bind = zstd_fse_tables_binding;
    const auto words = [](const boost::compute::buffer& x) { return static_cast<std::uint32_t>(x.size() / 4); };
    std::vector<runtime::buffer_arg> args(3);
    args[bind::descriptions] = {b.descriptions, words(b.descriptions)};
    args[bind::tables] = {tables, static_cast<std::uint32_t>(table_words)};
    args[bind::params] = {b.params, zstd_fse_tables_param_words};
    const auto groups = static_cast<std::uint32_t>((count + zstd_fse_tables_workgroup - 1) / zstd_fse_tables_workgroup);
    b.dispatch = runtime::dispatch(ctx, zstd_fse_tables_kernel(), {groups, 1, 1}, args);
}

// The same, waited for.
inline void build_zstd_fse_tables(runtime::context& ctx, const boost::compute::buffer& tables, std::uint64_t table_words,
                                  std::span<const std::uint32_t> descriptions) {
    zstd_fse_tables_buffers b;
    enqueue_zstd_fse_tables(ctx, tables, table_words, descriptions, b);
    runtime::cl_call("clFinish", [&] { ctx.queue().finish(); });
}

} // namespace vyre::ops::compression
