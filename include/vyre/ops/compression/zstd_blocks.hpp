// compression.zstd.blocks: Zstandard frames regenerated with every block decoded at once, so that
// one large frame (what `zstd -T0` writes) fills the device as many small frames do. It takes
// the records and tables compression.zstd.frames takes (format/zstd_sections.hpp) and leaves the
// same statuses and bytes; the passes and the host's part between them are laid out in
// compression/zstd_blocks.hpp, the programs in zstd_blocks_program.hpp.
#pragma once

#include <vyre/compression/zstd.hpp>
#include <vyre/compression/zstd_blocks.hpp>
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/error.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/block_program.hpp>
#include <vyre/ops/compression/zstd_blocks_program.hpp>
#include <vyre/ops/compression/zstd_fse_tables.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/runtime/subgroups.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// Blocks per workgroup of the fast shape where subgroups are NVIDIA warps (one elsewhere), and of
// the reference shape (an invocation each).
inline constexpr std::uint32_t zstd_blocks_per_workgroup = 4;
inline constexpr std::uint32_t zstd_blocks_fast_lanes = 32;
// Pointer jumping at least halves each chain per round: output sizes below 2^32 need at most 33.
inline constexpr std::uint32_t zstd_blocks_max_rounds = 64;
// Output bytes per entry of the list of bytes the first resolve round leaves short of a literal.
inline constexpr std::uint64_t zstd_blocks_listed_per = 64;

inline std::vector<op_info> zstd_blocks_infos() {
    const ir::op_signature sig{{ir::data_type::bytes}, ir::data_type::bytes};
    const auto info = [&](const char* id, std::string summary, std::function<ir::program()> p) {
        return op_info{id, 1, std::move(summary), sig, ir::convention::v1(), std::move(p)};
    };
    std::vector<op_info> out{
        info(zstd_blocks_decode_id, "zstd blocks decoded at once: literals and sequence records, one block per invocation (reference)",
             [] { return zstd_blocks_decode_program(1, zstd_blocks_per_workgroup); }),
        info(zstd_blocks_decode_fast_id, "compression.zstd.blocks.decode with one block per subgroup of 32 (fast, same results)",
             [] { return zstd_blocks_decode_program(zstd_blocks_fast_lanes, zstd_blocks_per_workgroup); }),
        info(zstd_blocks_execute_id, "zstd blocks executed at once: literals and a link per output byte, one block per invocation (reference)",
             [] { return zstd_blocks_execute_program(1, zstd_blocks_per_workgroup); }),
        info(zstd_blocks_execute_fast_id, "compression.zstd.blocks.execute with one block per subgroup of 32 (fast, same results)",
             [] { return zstd_blocks_execute_program(zstd_blocks_fast_lanes, zstd_blocks_per_workgroup); }),
        info(zstd_blocks_resolve_id, "one round of pointer jumping over zstd match bytes' links, literals copied where they end",
             [] { return zstd_blocks_resolve_program(); })};
    const auto per = [](lower::subgroup_lowering l) { return l == lower::subgroup_lowering::nvidia_ptx ? zstd_blocks_per_workgroup : 1u; };
    out[1].program_for = [per](lower::subgroup_lowering l) { return zstd_blocks_decode_program(zstd_blocks_fast_lanes, per(l)); };
    out[3].program_for = [per](lower::subgroup_lowering l) { return zstd_blocks_execute_program(zstd_blocks_fast_lanes, per(l)); };
    return out;
}

// The decode and execute kernels of a variant for a device, built once per lowering.
struct zstd_blocks_kernels {
    const runtime::compiled_program* decode;
    const runtime::compiled_program* execute;
    std::uint32_t per_workgroup;
};

inline zstd_blocks_kernels zstd_blocks_kernels_for(block_variant v, const runtime::device_info& device) {
    if (v == block_variant::automatic) v = fast_on_gpus(device);
    if (v == block_variant::reference) {
        static const runtime::compiled_program d(zstd_blocks_decode_program(1, zstd_blocks_per_workgroup));
        static const runtime::compiled_program e(zstd_blocks_execute_program(1, zstd_blocks_per_workgroup));
        return {&d, &e, zstd_blocks_per_workgroup};
    }
    constexpr std::uint32_t lanes = zstd_blocks_fast_lanes;
    switch (runtime::native_subgroups(device)) {
    case lower::subgroup_lowering::emulated: {
        static const runtime::compiled_program d(zstd_blocks_decode_program(lanes, 1), lower::subgroup_lowering::emulated);
        static const runtime::compiled_program e(zstd_blocks_execute_program(lanes, 1), lower::subgroup_lowering::emulated);
        return {&d, &e, 1};
    }
    case lower::subgroup_lowering::nvidia_ptx: {
        static const runtime::compiled_program d(zstd_blocks_decode_program(lanes, zstd_blocks_per_workgroup));
        static const runtime::compiled_program e(zstd_blocks_execute_program(lanes, zstd_blocks_per_workgroup));
        return {&d, &e, zstd_blocks_per_workgroup};
    }
    default: {
        static const runtime::compiled_program d(zstd_blocks_decode_program(lanes, 1));
        static const runtime::compiled_program e(zstd_blocks_execute_program(lanes, 1));
        return {&d, &e, 1};
    }
    }
}

// Device memory the passes need beyond the input and the output (the literals' scratch, the
// sequence records, a link word per output byte and the resolve rounds' list), so that a caller can choose another route
// where it does not fit.
inline std::uint64_t zstd_blocks_scratch_bytes(const format::zstd_sections& s) {
    const auto plan = vyre::compression::zstd_plan_sequences(s.frames, s.blocks);
    return s.literal_bytes + plan.records * vyre::compression::zstd_sequence_words * 4 + s.output_bytes * 4 +
           std::max<std::uint64_t>(1024, s.output_bytes / zstd_blocks_listed_per) * 8;
}

// True when every buffer of the passes fits the device's largest allocation and their offsets fit 32 bits.
inline bool zstd_blocks_fit(const runtime::device_info& device, const format::zstd_sections& s) {
    const auto plan = vyre::compression::zstd_plan_sequences(s.frames, s.blocks);
    const std::uint64_t records = plan.records * vyre::compression::zstd_sequence_words;
    const std::uint64_t largest = std::max({s.literal_bytes, records * 4, s.output_bytes * 4});
    return largest <= device.max_allocation && records <= 0xFFFFFFFFull && s.output_bytes <= 0xFFFFFFFFull &&
           s.input_bytes <= 0xFFFFFFFFull && s.literal_bytes <= 0xFFFFFFFFull;
}

struct zstd_blocks_result {
    boost::compute::buffer output;
    std::uint64_t output_bytes = 0;
    std::vector<std::uint32_t> statuses; // zstd_status_words per frame, as compression.zstd.frames leaves them
    std::uint64_t sequences = 0;         // sequence records decoded into
    std::size_t rounds = 0;              // resolve rounds run
    std::array<std::uint32_t, 3> repeats{1, 4, 8}; // the repeat offsets the last frame's blocks leave
    // Wall clock of each pass, its wait for the device included.
    double decode_seconds = 0, execute_seconds = 0, resolve_seconds = 0;
    // On a profiling queue, the kernels' own time in each pass (the FSE tables' build, decode,
    // execute, every resolve round); 0 elsewhere.
    double tables_kernel_seconds = 0, decode_kernel_seconds = 0, execute_kernel_seconds = 0, resolve_kernel_seconds = 0;
};

// Regenerates the frames of `s` from `input` (a device buffer holding the file bytes the sections
// were planned from: [s.input_base, + s.input_bytes)) on ctx's queue, waiting for each pass: the
// host schedules the blocks between them. The frames write `output` when given (at least
// s.output_bytes long; nothing outside the frames' regions is written), else a buffer allocated
// here. Throws resource_error where the passes' buffers do not fit (zstd_blocks_fit says so first),
// or where `input` holds fewer than input_bytes bytes (the decode pass's bit reader tests no index
// of its own inside the ranges it checked against input_bytes: ir::bounds).
// The first frame may continue one decoded before (`start`): its region's first start.history
// bytes must then hold that frame's latest output, and its status counts only what follows them.
inline zstd_blocks_result decode_zstd_blocks(runtime::context& ctx, const boost::compute::buffer& input, std::uint64_t input_bytes,
                                             const format::zstd_sections& s, block_variant v = block_variant::automatic,
                                             const boost::compute::buffer* output = nullptr,
                                             const vyre::compression::zstd_frame_start& start = {}) {
    namespace c = vyre::compression;
    namespace bcm = boost::compute;
    const std::string id = "compression.zstd.blocks";
    if (!zstd_blocks_fit(ctx.device(), s) || input_bytes > 0xFFFFFFFFull)
        throw resource_error(id + ": " + std::to_string(s.output_bytes) + " output bytes with " + std::to_string(zstd_blocks_scratch_bytes(s)) +
                             " bytes of scratch do not fit the device's allocations of " + std::to_string(ctx.device().max_allocation) +
                             " bytes or 32-bit offsets");
    if (output && output->size() < s.output_bytes)
        throw resource_error(id + ": an output buffer of " + std::to_string(output->size()) + " bytes for frames that need " +
                             std::to_string(s.output_bytes));
    if (input_bytes != 0 && input.size() < input_bytes)
        throw resource_error(id + ": an input buffer of " + std::to_string(input.size()) + " bytes for " + std::to_string(input_bytes) +
                             " input bytes");
    const auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
    const zstd_blocks_kernels kernels = zstd_blocks_kernels_for(v, ctx.device());
    const std::size_t nframes = s.frame_count(), nblocks = s.blocks.size() / c::zstd_block_words;
    zstd_blocks_result r;
    r.output = output ? *output : runtime::allocate(ctx, std::max<std::uint64_t>(4, runtime::padded_bytes(s.output_bytes)));
    r.output_bytes = s.output_bytes;
    r.statuses.assign(nframes * c::zstd_status_words, 0);
    if (nframes == 0) return r;
    const auto u32 = [](std::uint64_t x) { return static_cast<std::uint32_t>(x); };
    const auto words = [](const bcm::buffer& b) { return static_cast<std::uint32_t>(b.size() / 4); };
    const auto upload = [&](const std::vector<std::uint32_t>& w) {
        static constexpr std::uint32_t none = 0; // an empty list still binds a word
        return runtime::upload(ctx, w.empty() ? std::span<const std::uint32_t>(&none, 1) : std::span<const std::uint32_t>(w), CL_MEM_READ_ONLY);
    };
    const auto groups = [&](std::uint64_t n, std::uint32_t per) { return u32((n + per - 1) / per); };

    // ---- decode
    double t0 = clock();
    const c::zstd_sequence_plan plan = c::zstd_plan_sequences(s.frames, s.blocks);
    r.sequences = plan.records;
    const bcm::buffer blocks = upload(s.blocks), plan_words = upload(plan.plan);
    // The tables planned on the host, then those described built after them (compression.zstd.fse_tables).
    bcm::buffer tables = runtime::allocate(ctx, std::max<std::uint64_t>(1, s.table_words()) * 4);
    runtime::write(ctx, tables, s.tables.data(), s.tables.size() * 4);
    zstd_fse_tables_buffers fse;
    enqueue_zstd_fse_tables(ctx, tables, s.table_words(), s.fse_descriptions, fse);
    bcm::buffer literals = runtime::allocate(ctx, std::max<std::uint64_t>(4, runtime::padded_bytes(s.literal_bytes)));
    bcm::buffer sequences = runtime::allocate(ctx, std::max<std::uint64_t>(4, plan.records * c::zstd_sequence_words * 4));
    bcm::buffer summaries = runtime::allocate(ctx, nblocks * c::zstd_summary_words * 4);
    std::vector<std::uint32_t> summary(nblocks * c::zstd_summary_words);
    if (nblocks != 0) {
        const std::array<std::uint32_t, zstd_decode_param_words> p{u32(nblocks), u32(input_bytes), u32(s.literal_bytes), u32(s.table_words()),
                                                                  u32(plan.records)};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        namespace b = zstd_decode_binding;
        std::vector<runtime::buffer_arg> args(8);
        args[b::input] = {input, words(input)};
        args[b::blocks] = {blocks, words(blocks)};
        args[b::tables] = {tables, words(tables)};
        args[b::plan] = {plan_words, words(plan_words)};
        args[b::literals] = {literals, words(literals)};
        args[b::sequences] = {sequences, words(sequences)};
        args[b::summaries] = {summaries, words(summaries)};
        args[b::params] = {params, zstd_decode_param_words};
        const auto ran = runtime::dispatch(ctx, *kernels.decode, {groups(nblocks, kernels.per_workgroup), 1, 1}, args);
        runtime::read(ctx, summaries, summary.data(), summary.size() * 4);
        r.tables_kernel_seconds = runtime::event_seconds(ctx, fse.dispatch);
        r.decode_kernel_seconds = runtime::event_seconds(ctx, ran);
    }
    double t1 = clock();
    r.decode_seconds = t1 - t0;

    // ---- schedule, execute
    const c::zstd_block_schedule schedule = c::zstd_schedule_blocks(s.frames, s.blocks, summary, s.output_bytes, start);
    r.repeats = schedule.repeats;
    // Frames as plan_zstd_sections lays them out never overlap, so the links fit the output's size;
    // records from elsewhere may make frames share regions.
    if (schedule.links > 0xFFFFFFFFull || schedule.links * 4 > ctx.device().max_allocation)
        throw resource_error(id + ": the frames' regions need " + std::to_string(schedule.links) +
                             " link words, more than 32-bit offsets or one allocation of the device holds");
    bcm::buffer links = runtime::allocate(ctx, std::max<std::uint64_t>(4, schedule.links * 4));
    std::vector<std::uint32_t> verdict(nblocks, 0);
    if (nblocks != 0) {
        const bcm::buffer exec = upload(schedule.exec);
        bcm::buffer verdicts = runtime::allocate(ctx, nblocks * 4);
        // The history ends start.history bytes into the first frame's region.
        const std::uint64_t history_end = start.history == 0 ? 0 : std::uint64_t{s.frames[2]} + start.history;
        const std::array<std::uint32_t, zstd_execute_param_words> p{u32(nblocks), u32(input_bytes), u32(s.literal_bytes), u32(s.output_bytes),
                                                                   u32(std::min<std::uint64_t>(history_end, s.output_bytes))};
        const auto params = runtime::make_parameter_buffer(ctx, p);
        namespace b = zstd_execute_binding;
        std::vector<runtime::buffer_arg> args(10);
        args[b::input] = {input, words(input)};
        args[b::blocks] = {blocks, words(blocks)};
        args[b::plan] = {plan_words, words(plan_words)};
        args[b::sequences] = {sequences, words(sequences)};
        args[b::exec] = {exec, words(exec)};
        args[b::literals] = {literals, words(literals)};
        // The frames' regions only: a caller's buffer may be longer.
        args[b::output] = {r.output, u32(runtime::padded_bytes(s.output_bytes) / 4)};
        args[b::links] = {links, words(links)};
        args[b::verdicts] = {verdicts, words(verdicts)};
        args[b::params] = {params, zstd_execute_param_words};
        const auto ran = runtime::dispatch(ctx, *kernels.execute, {groups(nblocks, kernels.per_workgroup), 1, 1}, args);
        runtime::read(ctx, verdicts, verdict.data(), verdict.size() * 4);
        r.execute_kernel_seconds = runtime::event_seconds(ctx, ran);
    }
    t0 = clock();
    r.execute_seconds = t0 - t1;

    // ---- statuses, resolve
    std::vector<std::uint32_t> ranges;
    c::zstd_block_statuses(s.frames, summary, schedule, verdict, r.statuses, ranges);
    const std::size_t nranges = ranges.size() / c::zstd_range_words;
    if (nranges != 0) {
        static const runtime::compiled_program resolve(zstd_blocks_resolve_program());
        namespace round = zstd_resolve_round;
        const bcm::buffer range_words = upload(ranges);
        bcm::buffer unresolved = runtime::allocate(ctx, 8);
        // The bytes the first round leaves short of a literal, listed for the rounds after it
        // (an entry of 8 bytes for every 64 of output at most; more go over the ranges again).
        const std::uint32_t capacity = u32(std::max<std::uint64_t>(1024, schedule.links / zstd_blocks_listed_per));
        bcm::buffer list = runtime::allocate(ctx, std::uint64_t{capacity} * 8);
        namespace b = zstd_resolve_binding;
        std::vector<runtime::buffer_arg> args(6);
        args[b::ranges] = {range_words, words(range_words)};
        args[b::links] = {links, words(links)};
        args[b::output] = {r.output, u32(runtime::padded_bytes(s.output_bytes) / 4)};
        args[b::unresolved] = {unresolved, 2};
        args[b::list] = {list, 2 * capacity};
        std::array<std::uint32_t, 2> left{1, 0}; // still short of a literal, listed by the first round
        std::uint32_t kind = round::first;
        runtime::fill(ctx, unresolved, 0, 8);
        for (; left[0] != 0; ++r.rounds) {
            if (r.rounds == zstd_blocks_max_rounds)
                throw resource_error(id + ": links still unresolved after " + std::to_string(zstd_blocks_max_rounds) + " rounds");
            if (r.rounds != 0) runtime::fill(ctx, unresolved, 0, 4); // the list's count stays
            const std::uint32_t units = kind == round::list ? left[1] : u32(nranges);
            const std::array<std::uint32_t, zstd_resolve_param_words> p{units, kind, zstd_resolve_hops, capacity};
            args[b::params] = {runtime::make_parameter_buffer(ctx, p), zstd_resolve_param_words};
            const std::uint32_t workgroups = kind == round::list ? groups(units, zstd_resolve_workgroup) : units;
            const auto ran = runtime::dispatch(ctx, resolve, {workgroups, 1, 1}, args);
            runtime::read(ctx, unresolved, left.data(), 8);
            r.resolve_kernel_seconds += runtime::event_seconds(ctx, ran);
            if (kind == round::first) kind = left[1] <= capacity ? round::list : round::ranges;
        }
    }
    r.resolve_seconds = clock() - t0;
    return r;
}

} // namespace vyre::ops::compression
