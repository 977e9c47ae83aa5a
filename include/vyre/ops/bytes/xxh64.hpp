// bytes.xxh64: the XXH64 (seed 0) of many byte ranges of one device buffer at once, equal to
// libxxhash's XXH64(). zstd's content checksum is its low 32 bits, so the frames a decoder leaves
// in device memory are checked there, and only 8 bytes a frame come back.
//
// How. XXH64 keeps four 64-bit accumulators; accumulator i takes bytes [32j + 8i, 32j + 8i + 8)
// of every whole 32-byte stripe j, and each step depends on the one before, so a range cannot be
// cut into chunks as a CRC can. Four invocations take a range, one per accumulator, each reading
// whole words, 32 stripes' worth at a time, a step ahead of hashing them; the first then merges
// the four, hashes the last partial stripe and finishes the digest. A range's time grows with its
// length (its stripes one after another), so the op suits many ranges, such as the frames of a
// layer; the host's cores hash a few long ranges faster.
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/bytes/ranges.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::bytes {

inline constexpr const char* xxh64_op_id = "bytes.xxh64";

namespace xxh64_binding {
inline constexpr std::uint32_t data = 0, ranges = 1, digests = 2, params = 3;
}

// Invocations per workgroup: 16 ranges of 4 lanes.
inline constexpr std::uint32_t xxh64_workgroup = 64;
inline constexpr std::uint32_t xxh64_lanes = 4;

// XXH64's primes (xxhash's specification).
namespace xxh64_prime {
inline constexpr std::uint64_t p1 = 0x9E3779B185EBCA87ull, p2 = 0xC2B2AE3D27D4EB4Full, p3 = 0x165667B19E3779F9ull,
                               p4 = 0x85EBCA77C2B2AE63ull, p5 = 0x27D4EB2F165667C5ull;
}

// Stripes each invocation reads before it hashes them: their loads are all in flight at once, so
// a range waits for memory once per step rather than once per stripe. With 1,024 ranges of 1 MiB a
// GPU holds only 4,096 invocations, one warp or so per multiprocessor, and the wait per stripe was
// the kernel's whole time.
inline constexpr std::uint32_t xxh64_stripes_per_step = 32;

// The program. Buffers: data (the bytes, read as little-endian u32 words: every range lies inside
// the buffer's whole words); ranges (u32 pairs: byte offset in data, size); digests (u32 pairs per
// range: low word, high word); params ([0] ranges). Invocation 4r + i takes accumulator i of range r.
inline ir::program xxh64_program(std::uint32_t workgroup = xxh64_workgroup, std::uint32_t stripes_per_step = xxh64_stripes_per_step) {
    namespace d = vyre::dsl;
    namespace p = xxh64_prime;
    using d::u64;
    d::kernel k(entry_name(xxh64_op_id), {workgroup, 1, 1});
    const auto data = k.input<d::u32>("data", xxh64_binding::data);
    const auto ranges = k.input<d::u32>("ranges", xxh64_binding::ranges);
    const auto digests = k.output<d::u32>("digests", xxh64_binding::digests);
    const auto params = k.uniform<d::u32>("params", xxh64_binding::params);
    const auto lanes = k.workgroup<u64>("accumulators", workgroup);

    const auto rotl = [](const auto& x, std::uint32_t r) { return (x << d::lit<u64>(r)) | (x >> d::lit<u64>(64 - r)); };
    const auto round = [&](const auto& acc, const auto& input) { return rotl(acc + input * d::lit<u64>(p::p2), 31) * d::lit<u64>(p::p1); };

    const auto id = k.let("id", d::invocation_id());
    const auto range = k.let("range", id / xxh64_lanes);
    const auto lane = k.let("lane", id % xxh64_lanes);
    const auto base = k.let("base", 0u);
    const auto size = k.let("size", 0u);
    // A range outside the buffer's whole words hashes as empty (the host refuses such ranges
    // first): inside it, every word read below is in bounds, so no read tests its index.
    k.if_(range < params[0u], [&] {
        const auto b = k.let("b", ranges[range * 2u]);
        const auto n = k.let("n", ranges[range * 2u + 1u]);
        k.if_(d::cast<u64>(b) + d::cast<u64>(n) <= d::cast<u64>(data.size()) * d::lit<u64>(4), [&] {
            base = b;
            size = n;
        });
    });
    const auto live = k.let("live", range < params[0u]);
    const auto stripes = k.let("stripes", size / 32u);
    // Eight bytes from byte `at`: from the words at `at` / 4 on, joined and shifted by `shift`
    // bits (at's place in its word). The third word is needed only when `at` is not a word's first
    // byte, and then lies inside the bytes read; otherwise the second is read again.
    const auto shift = k.let("shift", d::cast<u64>((base % 4u) * 8u));
    const auto third = k.let("third", d::select(base % 4u != 0u, 2u, 1u));
    const auto join = [&](const auto& w0, const auto& w1, const auto& w2) {
        // (w2 << 1) << (63 - shift) is w2 << (64 - shift), and 0 where shift is 0.
        return ((d::cast<u64>(w0) | (d::cast<u64>(w1) << d::lit<u64>(32))) >> shift) |
               ((d::cast<u64>(w2) << d::lit<u64>(1)) << (d::lit<u64>(63) - shift));
    };
    const auto read64 = [&](const std::string& tag, const auto& at) {
        const auto w = k.let("w_" + tag, at / 4u);
        return join(data.unchecked(w), data.unchecked(w + 1u), data.unchecked(w + third));
    };
    const auto byte_at = [&](const auto& at) { return (data.unchecked(at / 4u) >> ((at % 4u) * 8u)) & 0xffu; };

    // v1 = P1 + P2, v2 = P2, v3 = 0, v4 = -P1 (seed 0), lane i holding v(i+1).
    const auto acc = k.let("acc", d::select(lane == 0u, d::lit<u64>(p::p1 + p::p2),
                                            d::select(lane == 1u, d::lit<u64>(p::p2),
                                                      d::select(lane == 2u, d::lit<u64>(0), d::lit<u64>(0 - p::p1)))));
    // Lane i's eight bytes of stripe s start at word first + 8s (+ 0, 1, and 1 or 2).
    const auto first = k.let("first", base / 4u + lane * 2u);
    const auto steps = k.let("steps", stripes / stripes_per_step);
    // The words of a step are loaded at the end of the step before, all at once, and hashed in the
    // next: loaded right before their round, as a compiler places them, each stripe waited for
    // memory in turn. The last step loads the first one's words again instead of words past the range.
    std::vector<d::variable<d::u32>> w;
    for (std::uint32_t j = 0; j < stripes_per_step; ++j)
        for (const char* part : {"w0_", "w1_", "w2_"}) w.push_back(k.let(part + std::to_string(j), 0u));
    const auto load_step = [&](const auto& at) {
        for (std::uint32_t j = 0; j < stripes_per_step; ++j) {
            w[3 * j] = data.unchecked(at + j * 8u);
            w[3 * j + 1] = data.unchecked(at + (j * 8u + 1u));
            w[3 * j + 2] = data.unchecked(at + j * 8u + third);
        }
    };
    k.if_(steps != 0u, [&] { load_step(first); });
    k.for_("step", 0u, steps, [&](const auto& step) {
        for (std::uint32_t j = 0; j < stripes_per_step; ++j) acc = round(acc, join(w[3 * j], w[3 * j + 1], w[3 * j + 2]));
        load_step(k.let("at_next", d::select(step + 1u < steps, first + (step + 1u) * (stripes_per_step * 8u), first)));
    });
    k.for_("s", steps * stripes_per_step, stripes, [&](const auto& s) {
        const auto at = k.let("at_stripe", first + s * 8u);
        acc = round(acc, join(data.unchecked(at), data.unchecked(at + 1u), data.unchecked(at + third)));
    });
    k.store(lanes, d::local_id(), acc);
    k.barrier();
    k.if_(live && lane == 0u, [&] {
        const auto mine = k.let("mine", d::local_id());
        const auto h = k.let("h", d::lit<u64>(p::p5));
        k.if_(stripes != 0u, [&] {
            const auto v1 = k.let("v1", lanes[mine]);
            const auto v2 = k.let("v2", lanes[mine + 1u]);
            const auto v3 = k.let("v3", lanes[mine + 2u]);
            const auto v4 = k.let("v4", lanes[mine + 3u]);
            h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
            for (const auto* v : {&v1, &v2, &v3, &v4}) h = (h ^ round(d::lit<u64>(0), *v)) * d::lit<u64>(p::p1) + d::lit<u64>(p::p4);
        });
        h = h + d::cast<u64>(size);
        const auto at = k.let("at", base + stripes * 32u);
        const auto end = k.let("end", base + size);
        k.while_(at + 8u <= end, [&] {
            h = rotl(h ^ round(d::lit<u64>(0), read64("tail", at)), 27) * d::lit<u64>(p::p1) + d::lit<u64>(p::p4);
            at = at + 8u;
        });
        k.if_(at + 4u <= end, [&] {
            // Four bytes: the first word, and the next where they cross into it (inside the range).
            const auto w = k.let("w_word", at / 4u);
            const auto word = k.let("word", join(data.unchecked(w), data.unchecked(w + third - 1u), data.unchecked(w)) & d::lit<u64>(0xffffffffu));
            h = rotl(h ^ (word * d::lit<u64>(p::p1)), 23) * d::lit<u64>(p::p2) + d::lit<u64>(p::p3);
            at = at + 4u;
        });
        k.while_(at < end, [&] {
            h = rotl(h ^ (d::cast<u64>(byte_at(at)) * d::lit<u64>(p::p5)), 11) * d::lit<u64>(p::p1);
            at = at + 1u;
        });
        h = (h ^ (h >> d::lit<u64>(33))) * d::lit<u64>(p::p2);
        h = (h ^ (h >> d::lit<u64>(29))) * d::lit<u64>(p::p3);
        h = h ^ (h >> d::lit<u64>(32));
        k.store(digests, range * 2u, d::cast<d::u32>(h));
        k.store(digests, range * 2u + 1u, d::cast<d::u32>(h >> d::lit<u64>(32)));
    });
    return k.program();
}

inline op_info xxh64_info() {
    return {xxh64_op_id, 1,
            "XXH64 (seed 0; zstd's content checksum is its low half) of many byte ranges of one buffer: four invocations "
            "per range, one per accumulator, reading 32 stripes a step",
            {{ir::data_type::u32}, ir::data_type::u32}, ir::convention::v1(), [] { return xxh64_program(); }};
}

inline const runtime::compiled_program& xxh64_kernel() {
    static const runtime::compiled_program p(xxh64_program());
    return p;
}

// Device buffers of a run, kept for the next one (runtime::reserve): a pipeline that hashes batch
// after batch frees nothing between them. The range words and parameters stay here until the
// writes that read them have run.
struct xxh64_buffers {
    boost::compute::buffer ranges, digests, params;
    std::vector<std::uint32_t> range_words;
    std::array<std::uint32_t, 1> words{};
    boost::compute::event dispatch; // none when there are no ranges
};

// Enqueues the XXH64 of each range of `data` (each inside the buffer's whole words and its first
// 4 GiB) on ctx's queue into b.digests (a u32 pair per range: low, high), nothing waited for.
// `b` is empty or holds the buffers of a run that has completed.
inline void enqueue_xxh64(runtime::context& ctx, const boost::compute::buffer& data, std::span<const byte_range> ranges,
                          xxh64_buffers& b) {
    if (ranges.size() > (0xffffffffull - xxh64_workgroup) / xxh64_lanes)
        throw resource_error("bytes.xxh64: " + std::to_string(ranges.size()) + " ranges in one call");
    b.range_words = range_words(xxh64_op_id, ranges, data.size() & ~std::size_t{3});
    b.dispatch = {};
    runtime::reserve(ctx, b.ranges, b.range_words.size() * 4, CL_MEM_READ_ONLY);
    runtime::reserve(ctx, b.digests, std::max<std::size_t>(ranges.size(), 1) * 8);
    runtime::reserve(ctx, b.params, 4, CL_MEM_READ_ONLY);
    if (ranges.empty()) return;
    b.words = {static_cast<std::uint32_t>(ranges.size())};
    runtime::cl_call("clEnqueueWriteBuffer", [&] {
        ctx.queue().enqueue_write_buffer_async(b.ranges, 0, b.range_words.size() * 4, b.range_words.data());
        ctx.queue().enqueue_write_buffer_async(b.params, 0, 4, b.words.data());
    });
    const auto words = [](const boost::compute::buffer& x) { return static_cast<std::uint32_t>(x.size() / 4); };
    std::vector<runtime::buffer_arg> args(4);
    args[xxh64_binding::data] = {data, words(data)};
    args[xxh64_binding::ranges] = {b.ranges, words(b.ranges)};
    args[xxh64_binding::digests] = {b.digests, words(b.digests)};
    args[xxh64_binding::params] = {b.params, 1};
    const std::uint64_t invocations = ranges.size() * std::uint64_t{xxh64_lanes};
    const auto groups = static_cast<std::uint32_t>((invocations + xxh64_workgroup - 1) / xxh64_workgroup);
    b.dispatch = runtime::dispatch(ctx, xxh64_kernel(), {groups, 1, 1}, args);
}

// The XXH64 of each range of `data`, computed on the device through ctx's queue; only the digests
// come back.
inline std::vector<std::uint64_t> xxh64_device(runtime::context& ctx, const boost::compute::buffer& data,
                                               std::span<const byte_range> ranges) {
    xxh64_buffers b;
    enqueue_xxh64(ctx, data, ranges, b);
    std::vector<std::uint64_t> out(ranges.size(), 0);
    if (ranges.empty()) return out;
    std::vector<std::uint32_t> pairs(ranges.size() * 2);
    runtime::read(ctx, b.digests, pairs.data(), pairs.size() * 4);
    for (std::size_t r = 0; r < ranges.size(); ++r) out[r] = pairs[2 * r] | (std::uint64_t{pairs[2 * r + 1]} << 32);
    return out;
}

} // namespace vyre::ops::bytes
