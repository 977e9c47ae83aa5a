// compression.lz4_pages's program: LZ4 compression of a batch of fixed-size memory pages, one
// workgroup per page, with its bindings, shapes and their checks. The op and its batch API:
// ops/compression/lz4_pages.hpp.
#pragma once

#include <vyre/compression/pages.hpp>
#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/reference/lz4_pages.hpp>
#include <vyre/runtime/device.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <type_traits>

namespace vyre::ops::compression {

using vyre::compression::page_kind;
using vyre::compression::page_record;

// Bindings:
//   0 pages    U32   ReadOnly   page g is words [g * page_size/4, (g + 1) * page_size/4)
//   1 output   Bytes ReadWrite  page g's slot is bytes [g * page_size, (g + 1) * page_size): the block
//                               (compressed) or the page (stored); nothing for same_fill; slot bytes past
//                               the record's length are left as they were
//   2 records  U32   ReadWrite  2 words per page (page_record): length, kind | fill << 8
//   3 params   U32   Uniform    [page count, 0, 0, 0]
// A stored page is never longer than its slot, and a block is only kept when shorter than the page,
// so a slot of page_size bytes is enough (LZ4_compressBound is not needed).
namespace lz4_pages_binding {
enum : std::uint32_t { pages = 0, output = 1, records = 2, params = 3 };
} // namespace lz4_pages_binding
inline constexpr std::uint32_t lz4_pages_param_words = 4;

inline constexpr const char* lz4_pages_op_id = "compression.lz4_pages";
inline constexpr std::uint32_t lz4_pages_default_page_size = 4096;
// Invocations per page, and positions per step of the candidate search (a chunk). 32 (one warp on
// NVIDIA, half a wavefront on AMD) keeps the search's in-chunk comparisons at 32 per position and
// the workgroup's memory at 12.8 KiB for 4 KiB pages, so 16 pages share an H100 SM (228 KiB). 64
// and 128 give the same bytes (the parse does not depend on the shape) with more invocations per
// page: more warps per SM for the same memory, and twice or four times the comparisons.
inline constexpr std::uint32_t lz4_pages_default_workgroup = 32;
// Match lengths are computed up to this many bytes by every position's invocation (4 word
// compares); the parse extends longer matches with the whole workgroup, 4 bytes per invocation.
inline constexpr std::uint32_t lz4_pages_length_cap = 16;

// The largest batch one dispatch takes: slot byte indices stay below 2^32.
inline std::uint64_t lz4_pages_max_batch(std::uint32_t page_size) { return (std::uint64_t{1} << 32) / page_size - 1; }

// Page sizes are powers of two from 1 KiB to 16 KiB; the workgroup is 32, 64 or 128 invocations
// (the in-chunk comparisons are unrolled per invocation, 32 per mask word); hashes have 10 to 13
// bits (12 for the op: other widths write other blocks, for comparing shapes).
inline void check_lz4_pages_shape(std::uint32_t page_size, std::uint32_t workgroup, std::uint32_t hash_bits = reference::lz4_pages_hash_bits()) {
    if (page_size < 1024 || page_size > 16384 || !std::has_single_bit(page_size) || !std::has_single_bit(workgroup) ||
        workgroup < 32 || workgroup > 128 || hash_bits < reference::lz4_pages_min_hash_bits || hash_bits > reference::lz4_pages_max_hash_bits)
        throw resource_error("compression.lz4_pages: page size " + std::to_string(page_size) + " must be a power of two in [1024, 16384], workgroup " +
                             std::to_string(workgroup) + " one of 32, 64 and 128, and hash bits " + std::to_string(hash_bits) + " in [10, 13]");
}

// Workgroup memory the program declares per workgroup: the page (page_size/4 words), the hash table
// (4096 entries of 16 bits: 2048 words), six words per invocation (the chunk's hashes, match
// lengths, match-start bits and reduction scratch, and the list of sequences to write, 4 words for
// each of W/2), one word per 8 invocations and a flag. 13,076 bytes for 4 KiB pages and 32
// invocations: 16 pages fit an H100 SM's 228 KiB.
inline constexpr std::uint64_t lz4_pages_workgroup_bytes(std::uint32_t page_size, std::uint32_t workgroup = lz4_pages_default_workgroup,
                                                         std::uint32_t hash_bits = reference::lz4_pages_hash_bits()) {
    return 4ull * (page_size / 4 + (std::uint64_t{1} << hash_bits) / 2 + 6ull * workgroup + workgroup / 8 + 1);
}

// Throws resource_error, naming both sizes, when the device's local memory cannot hold the
// program's workgroup buffers (instead of the validator's generic message at the first dispatch).
inline void check_lz4_pages_device(const runtime::device_info& device, std::uint32_t page_size,
                                   std::uint32_t workgroup = lz4_pages_default_workgroup,
                                   std::uint32_t hash_bits = reference::lz4_pages_hash_bits()) {
    const std::uint64_t need = lz4_pages_workgroup_bytes(page_size, workgroup, hash_bits);
    if (device.local_memory < need)
        throw resource_error("compression.lz4_pages: " + std::to_string(page_size) + "-byte pages need " + std::to_string(need) +
                             " bytes of workgroup (local) memory; " + device.label() + " has " + std::to_string(device.local_memory) +
                             " (compress on the CPU instead: engine::page_compressor with page_backend::cpu)");
}

// ---- the program -----------------------------------------------------------------------------
//
// One workgroup of W invocations per page (W = `workgroup`); everything per page lives in
// workgroup memory (lz4_pages_workgroup_bytes). The page is walked once, in chunks of W positions
// (one per invocation), and each chunk is finished before the next starts:
//  1. load the page (coalesced words, 8 in flight per invocation) and test for one repeated byte:
//     any invocation that sees a different word sets a flag (all writers write the same value, so
//     the race is benign). A same_fill page ends here: one load pass and one barrier.
//  2. candidates: a table holds, for each of the 4096 hashes, the latest position of an earlier
//     chunk with that hash (16 bits per entry, two to a word). Each invocation reads its
//     position's entry, then compares its hash with the W hashes of its chunk: the latest earlier
//     same hash in the chunk, where there is one, is the candidate instead; an invocation with no
//     later same hash in its chunk writes its position into the table (so every entry has at most
//     one writer: no atomics, no races, the same table whatever the order). The candidate is thus
//     the latest earlier position with the same hash in the page, as if found one position at a
//     time; entries sharing a word are written in two barrier-separated halves.
//  3. every invocation compares its position with its candidate, up to the length cap (4 words),
//     and publishes the length, whether the bytes before both agree (a catch-up is possible), and
//     a match-start bit.
//  4. the greedy parse, by the whole workgroup in step (every invocation computes the same values
//     from the same workgroup memory, so the parse needs no broadcast): from the anchor it takes
//     the next match start in the chunk (the bits, reduced to W/32 masks), extends a capped match
//     W x 4 bytes at a time with every invocation comparing one word, extends it backwards over
//     pending literals (LZ4's catch-up) where the published bit says it can, and records the
//     sequence (literals, offset, length, output offset: the block's size is the running sum). A
//     match may end in a later chunk: the parse resumes there. Once the block cannot end below the
//     page size, the page is stored and the remaining chunks are skipped, as they are once the
//     last match ends where no other may start.
//  5. once more than W/4 sequences are listed (a chunk starts at most W/4 matches, and the list
//     holds W/2), the next chunk writes them to the block after its first barrier, one output
//     byte per invocation and step (a search of the list finds each byte's sequence; token, length
//     bytes, literals, offset).
//  6. the last literals, then the record; a stored page's slot gets the page itself.
// Indices into workgroup memory are masked to the buffer's (power-of-two) size where the program
// never needs them past it, which spares the generated code the bounds test of every load.
inline ir::program lz4_pages_program(std::uint32_t page_size = lz4_pages_default_page_size,
                                     std::uint32_t workgroup = lz4_pages_default_workgroup,
                                     std::uint32_t hash_bits = reference::lz4_pages_hash_bits()) {
    namespace d = vyre::dsl;
    check_lz4_pages_shape(page_size, workgroup, hash_bits);
    const std::uint32_t n = page_size;
    const std::uint32_t words = n / 4;
    const std::uint32_t w = workgroup;
    const std::uint32_t mask_words = w / 32;
    const std::uint32_t table_words = (1u << hash_bits) / 2;
    const std::uint32_t last_start = n - reference::lz4_match_start_limit;
    const std::uint32_t match_limit = n - reference::lz4_last_literals;
    const std::uint32_t cap = lz4_pages_length_cap;
    const std::uint32_t chunks = (last_start + w) / w; // positions 0 .. last_start
    const std::uint32_t min_match = reference::lz4_min_match;
    // Sequences are written to the block in batches: the list holds those of up to two chunks (a
    // chunk starts at most W / 4 matches) and is written out once more than W / 4 are pending.
    const std::uint32_t list_size = w / 2;

    d::kernel k(entry_name(lz4_pages_op_id), {w, 1, 1});
    const auto pages = k.input<d::u32>("pages", lz4_pages_binding::pages);
    const auto out = k.output<d::bytes>("output", lz4_pages_binding::output);
    const auto records = k.output<d::u32>("records", lz4_pages_binding::records);
    const auto params = k.uniform<d::u32>("params", lz4_pages_binding::params);
    const auto page = k.workgroup<d::u32>("page", words);
    // entry h: 16 bits (position + 1, 0 = none) in word h % table_words, half h / table_words.
    const auto table = k.workgroup<d::u32>("table", table_words);
    const auto hashes = k.workgroup<d::u32>("hashes", w); // the chunk's hashes, by invocation
    // match length << 16 | bytes before agree << 15 | (candidate + 1), by invocation
    const auto found = k.workgroup<d::u32>("found", w);
    const auto bits = k.workgroup<d::u32>("bits", w); // 1 << (lid % 32) where a match starts (or a word differs)
    const auto red = k.workgroup<d::u32>("red", w);   // first differing byte of each invocation's word
    const auto part = k.workgroup<d::u32>("part", w / 8); // bits ORed 8 at a time
    // the sequences not yet written, 4 words each: literal start | literal length << 16, offset |
    // (match length - 4) << 16, output offset, token | literal length bytes << 8 | match length
    // bytes << 16
    const auto seqs = k.workgroup<d::u32>("seqs", 4 * list_size);
    const auto meta = k.workgroup<d::u32>("meta", 1); // not same-fill

    const auto lid = k.let("lid", d::local_id());
    const auto g = k.let("page_index", d::workgroup_id());
    k.if_(g >= params[0u], [&] { k.return_(); });
    const auto in_base = k.let("in_base", g * words);
    const auto slot = k.let("slot", g * n);
    const auto lane = k.let("lane", lid & (w - 1u)); // lid, as the compiler can see it is below W

    // 1. load and same-fill test
    const auto first = k.let("first_word", pages[in_base]);
    const auto fill_word = k.let("fill_word", (first & 255u) * 0x01010101u);
    const auto differs = k.let("differs", 0u);
    for (std::uint32_t t0 = 0; t0 < words / w; t0 += 8) {
        const std::uint32_t batch = std::min(8u, words / w - t0);
        std::vector<d::variable<d::u32>> v;
        for (std::uint32_t u = 0; u < batch; ++u)
            v.push_back(k.let("load_" + std::to_string(t0 + u), pages[in_base + ((t0 + u) * w) + lane]));
        for (std::uint32_t u = 0; u < batch; ++u) {
            k.store(page, ((t0 + u) * w) + lane, v[u]);
            differs = differs | (v[u] ^ fill_word);
        }
    }
    k.if_(differs != 0u, [&] { k.store(meta, 0u, 1u); });
    k.barrier();
    k.if_(meta[0u] == 0u, [&] {
        k.if_(lid == 0u, [&] {
            k.store(records, g * 2u, 0u);
            k.store(records, g * 2u + 1u, static_cast<std::uint32_t>(page_kind::same_fill) | ((first & 255u) << 8u));
        });
        k.return_();
    });

    // Word i of the page (i wraps: callers use what lies past the page only where it cannot
    // matter), byte i, and the 4 bytes at i as a little-endian word.
    const auto page_word = [&](const auto& i) { return page[i & (words - 1u)]; };
    const auto byte_at = [&](const auto& i) { return (page_word(i >> 2u) >> ((i & 3u) << 3u)) & 255u; };
    const auto funnel = [&](const std::string& name, const auto& lo, const auto& hi, const auto& sh) {
        return k.let(name, d::cast<d::u32>(((d::cast<d::u64>(hi) << std::uint64_t{32}) | d::cast<d::u64>(lo)) >> d::cast<d::u64>(sh)));
    };
    const auto word_at = [&](const std::string& name, const auto& i) {
        const auto at = k.let(name + "_at", i);
        const auto lo = k.let(name + "_lo", page_word(at >> 2u));
        const auto hi = k.let(name + "_hi", page_word((at >> 2u) + 1u));
        return funnel(name, lo, hi, (at & 3u) << 3u);
    };
    // The words at i, i + 4, ..., i + 4 (count - 1), from count + 1 loads.
    const auto words_at = [&](const std::string& name, const auto& i, std::uint32_t count) {
        const auto at = k.let(name + "_at", i);
        const auto sh = k.let(name + "_sh", (at & 3u) << 3u);
        std::vector<d::variable<d::u32>> raw, r;
        for (std::uint32_t j = 0; j <= count; ++j) raw.push_back(k.let(name + "_r" + std::to_string(j), page_word((at >> 2u) + j)));
        for (std::uint32_t j = 0; j < count; ++j) r.push_back(funnel(name + std::to_string(j), raw[j], raw[j + 1], sh));
        return r;
    };
    // Bytes LZ4 spends on a length beyond the token's nibble: 1 + (length - 15) / 255 from 15 on.
    const auto extra = [&](const auto& length) { return (length + 240u) / 255u; };
    // The W/32 words of a bits-per-invocation array ORed together, the same in every invocation.
    // Needs a barrier between the writes to `bits` and the call; has one inside.
    int reductions = 0;
    const auto or_reduce = [&](const std::string& name) {
        const std::string tag = name + std::to_string(reductions++);
        const auto grp = k.let(tag + "_grp", (lid & (w / 8u - 1u)) * 8u);
        const auto acc = k.let(tag + "_acc", ((bits[grp] | bits[grp + 1u]) | (bits[grp + 2u] | bits[grp + 3u])) |
                                                 ((bits[grp + 4u] | bits[grp + 5u]) | (bits[grp + 6u] | bits[grp + 7u])));
        k.if_(lid < w / 8u, [&] { k.store(part, lane, acc); });
        k.barrier();
        std::vector<d::variable<d::u32>> m;
        for (std::uint32_t i = 0; i < mask_words; ++i)
            m.push_back(k.let(tag + "_m" + std::to_string(i), part[4u * i] | part[4u * i + 1u] | part[4u * i + 2u] | part[4u * i + 3u]));
        return m;
    };
    // The bits at or above `from` (< W) of mask word i.
    const auto from_bits = [&](const std::string& name, const std::vector<d::variable<d::u32>>& m, std::uint32_t i, const auto& from) {
        const std::uint32_t lo = 32 * i;
        if (mask_words == 1) return k.let(name, m[i] & (0xFFFFFFFFu << from));
        if constexpr (std::is_integral_v<std::decay_t<decltype(from)>>) {
            // A constant `from` is shifted here, on the host, where a shift by 32 or more (the
            // branches the selects below leave out) would be undefined behaviour.
            const std::uint32_t shift = from - lo;
            return k.let(name, m[i] & d::select(from <= lo, 0xFFFFFFFFu, d::select(from >= lo + 32u, 0u, shift < 32u ? 0xFFFFFFFFu << shift : 0u)));
        } else {
            return k.let(name, m[i] & d::select(from <= lo, 0xFFFFFFFFu, d::select(from >= lo + 32u, 0u, 0xFFFFFFFFu << (from - lo))));
        }
    };
    // Whether any of W/32 mask words has a bit at or above `from` (< W).
    const auto any_from = [&](const std::string& name, const std::vector<d::variable<d::u32>>& m, const auto& from) {
        const auto r = from_bits(name + "0", m, 0, from);
        for (std::uint32_t i = 1; i < mask_words; ++i) r = r | from_bits(name + std::to_string(i), m, i, from);
        return r;
    };
    // The lowest set bit at or above `from` (< W) of W/32 mask words, or W.
    const auto first_set = [&](const std::string& name, const std::vector<d::variable<d::u32>>& m, const auto& from) {
        const auto r = k.let(name, w);
        for (std::uint32_t i = mask_words; i-- > 0;) {
            const auto mi = from_bits(name + "_b" + std::to_string(i), m, i, from);
            r = d::select(mi != 0u, 32u * i + d::ctz(mi), r);
        }
        return r;
    };
    // Writes the block's bytes [from, to) from `count` listed sequences, one byte per invocation
    // and step: each byte's sequence is the last whose output offset is not past it.
    const auto emit = [&](const std::string& name, const auto& from, const auto& to, const auto& count) {
        const auto k0 = k.let(name + "_k0", from);
        k.while_(k0 < to, [&] {
            const auto o = k.let(name + "_o", k0 + lid);
            const auto at = k.let(name + "_at", 0u);
            for (std::uint32_t step = list_size / 2; step != 0; step /= 2) {
                // both tests evaluated (no branch): the entry's load is always in bounds
                const auto listed = k.let(name + "_in" + std::to_string(step), d::cast<d::u32>(at + step < count));
                const auto before = k.let(name + "_bf" + std::to_string(step),
                                          d::cast<d::u32>(seqs[(4u * (at + step) + 2u) & (4u * list_size - 1u)] <= o));
                at = at + d::select((listed & before) != 0u, step, 0u);
            }
            const auto e0 = k.let(name + "_e0", seqs[(4u * at) & (4u * list_size - 1u)]);
            const auto e1 = k.let(name + "_e1", seqs[(4u * at + 1u) & (4u * list_size - 1u)]);
            const auto e3 = k.let(name + "_e3", seqs[(4u * at + 3u) & (4u * list_size - 1u)]);
            const auto kk = k.let(name + "_kk", o - seqs[(4u * at + 2u) & (4u * list_size - 1u)]);
            const auto ll = k.let(name + "_ll", e0 >> 16u);
            const auto le = k.let(name + "_le", (e3 >> 8u) & 255u);
            const auto me = k.let(name + "_me", e3 >> 16u);
            const auto li = k.let(name + "_li", kk - 1u - le); // literal index (wraps below the literals)
            const auto ai = k.let(name + "_ai", li - ll);      // index after the literals (wraps likewise)
            const auto lit = k.let(name + "_lit", byte_at((e0 & 0xFFFFu) + li)); // loaded whatever the byte is
            const auto v = k.let(name + "_v", e3 & 255u);
            v = d::select(kk - 1u < le, d::select(kk < le, 255u, ll - 15u - 255u * (le - 1u)), v);
            v = d::select(li < ll, lit, v);
            v = d::select(ai < 2u, (e1 >> (ai << 3u)) & 255u, v);
            v = d::select(ai - 2u < me, d::select(ai - 1u < me, 255u, (e1 >> 16u) - 15u - 255u * (me - 1u)), v);
            k.if_(o < to, [&] { k.store(out, slot + o, v); });
            k0 = k0 + w;
        });
    };
    // Lists a sequence: literals, offset, match length - 4, output offset and the bytes of the two
    // lengths past the token (the first invocation writes, after the list's last readers are done).
    const auto list = [&](const auto& index, const auto& lit, const auto& ll, const auto& off, const auto& mlx, const auto& at,
                          const auto& le, const auto& me) {
        k.if_(lid == 0u, [&] {
            const auto base = k.let("list_at", (4u * index) & (4u * list_size - 1u));
            k.store(seqs, base, lit | (ll << 16u));
            k.store(seqs, base + 1u, off | (mlx << 16u));
            k.store(seqs, base + 2u, at);
            k.store(seqs, base + 3u, (d::min(ll, 15u) << 4u) | d::min(mlx, 15u) | (le << 8u) | (me << 16u));
        });
    };

    // The parse's state: the same in every invocation.
    const auto anchor = k.let("anchor", 0u);   // start of the pending literals
    const auto pos = k.let("pos", 0u);         // where the next match may start
    const auto emitted = k.let("emitted", 0u); // the block's size so far
    const auto stored = k.let("stored", 0u);   // the block cannot be smaller than the page
    const auto count = k.let("count", 0u);     // sequences listed, not yet written
    const auto written = k.let("written", 0u); // the block's bytes written so far

    // Barriers sit only at the top level of loops whose conditions are the same for every
    // invocation, never under an if, and those loops have no break: compilers that run a workgroup's
    // invocations in loops between barriers (PoCL on CPUs) then need no copies of the code after a
    // barrier for each way of reaching it.
    const auto c = k.let("chunk", 0u);
    // Done early: the block cannot be smaller, or the last match ends where no other may start (as
    // after a page's zero-filled tail).
    k.while_(c < chunks && stored == 0u && pos <= last_start, [&] {
        const auto c0 = k.let("c0", c * w);
        const auto p = k.let("p", c0 + lane);

        // 2. candidates
        const auto wpv = words_at("wp", p, cap / 4);
        const auto& wp = wpv[0];
        const auto h = k.let("h", (wp * 2654435761u) >> (32u - hash_bits));
        k.store(hashes, lane, h);
        const auto tidx = k.let("tidx", h & (table_words - 1u));
        const auto thalf = k.let("thalf", (h >> (hash_bits - 1u)) << 4u);
        const auto tval = k.let("tval", (table[tidx] >> thalf) & 0xFFFFu);
        k.barrier();
        // 5. the listed sequences into the block, once the next chunk's could overflow the list (the
        // barrier above follows the last listing)
        k.if_(count > list_size - w / 4u, [&] {
            emit("emit", written, emitted, count);
            written = emitted;
            count = 0u;
        });
        // Same-hash invocations of the chunk, as W/32 masks (unrolled: one compare per invocation,
        // ORed as a balanced tree so that the compares do not wait on each other).
        std::vector<d::variable<d::u32>> same;
        for (std::uint32_t i = 0; i < mask_words; ++i) {
            std::vector<d::variable<d::u32>> level;
            for (std::uint32_t j = 0; j < 32; j += 2)
                level.push_back(k.let("eq" + std::to_string(i) + "_" + std::to_string(j),
                                      d::select(hashes[32u * i + j] == h, 1u << j, 0u) | d::select(hashes[32u * i + j + 1u] == h, 2u << j, 0u)));
            for (int round = 0; level.size() > 1; ++round) {
                std::vector<d::variable<d::u32>> next;
                for (std::size_t j = 0; j < level.size(); j += 2)
                    next.push_back(k.let("or" + std::to_string(i) + "_" + std::to_string(round) + "_" + std::to_string(j), level[j] | level[j + 1]));
                level = std::move(next);
            }
            same.push_back(level[0]);
        }
        const auto lw = k.let("lw", lane >> 5u);
        const auto lb = k.let("lb", lane & 31u);
        const auto pred = k.let("pred", w);   // the latest earlier same hash in the chunk, or W
        const auto later = k.let("later", 0u); // a later same hash in the chunk
        for (std::uint32_t i = 0; i < mask_words; ++i) {
            const auto below = k.let("below" + std::to_string(i),
                                     d::select(lw > i, same[i], d::select(lw == i, same[i] & ((1u << lb) - 1u), 0u)));
            pred = d::select(below != 0u, 32u * i + 31u - d::clz(below), pred);
            later = later | d::select(lw < i, same[i], d::select(lw == i, (same[i] >> lb) >> 1u, 0u));
        }
        const auto cand = k.let("cand", d::select(pred < w, c0 + pred + 1u, tval)); // candidate + 1, 0: none
        k.if_(later == 0u && thalf == 0u, [&] { k.store(table, tidx, (table[tidx] & 0xFFFF0000u) | (p + 1u)); });
        k.barrier();
        k.if_(later == 0u && thalf != 0u, [&] { k.store(table, tidx, (table[tidx] & 0xFFFFu) | ((p + 1u) << 16u)); });

        // 3. the match at p, up to the cap; whether the bytes before agree
        const auto entry = k.let("entry", cand);
        k.if_(cand != 0u && p <= last_start, [&] {
            const auto wcv = words_at("wc", cand - 1u, cap / 4);
            k.if_(wcv[0] == wp, [&] {
                // the first differing word past the first, and its place
                const auto dw = k.let("dw", 0u);
                const auto dat = k.let("dat", cap);
                for (std::uint32_t j = cap / 4 - 1; j >= 1; --j) {
                    const auto dj = k.let("d" + std::to_string(j), wpv[j] ^ wcv[j]);
                    dw = d::select(dj != 0u, dj, dw);
                    dat = d::select(dj != 0u, 4u * j, dat);
                }
                const auto len = k.let("len", d::min(dat + d::select(dw != 0u, d::ctz(dw) >> 3u, 0u), match_limit - p));
                const auto back = k.let("back", d::select(cand > 1u && byte_at(p - 1u) == byte_at(cand - 2u), 0x8000u, 0u));
                entry = (len << 16u) | back | cand;
            });
        });
        k.store(found, lane, entry);
        k.store(bits, lane, d::select(entry >= (min_match << 16u), 1u << lb, 0u));
        k.barrier();
        const auto starts = or_reduce("starts");

        // 4. the parse through this chunk, one sequence a step, while a match starts in it at or
        // after pos (the chunk's starts, as W/32 masks)
        const auto ahead = any_from("ahead", starts, (pos - c0) & (w - 1u));
        k.while_(pos < c0 + w && stored == 0u && ahead != 0u, [&] {
            const auto s_rel = first_set("s_rel", starts, pos - c0);
            const auto s = k.let("s", c0 + s_rel);
            const auto e = k.let("e", found[s_rel & (w - 1u)]);
            const auto mc = k.let("mc", (e & 0x7FFFu) - 1u);
            const auto mlen = k.let("mlen", e >> 16u);
            const auto off = k.let("off", s - mc);
            // Past the cap: every invocation compares one word, W words a step (no step without a
            // capped match).
            const auto x = k.let("ext_x", d::select(mlen == cap, s + cap, match_limit));
            k.while_(x < match_limit, [&] {
                k.barrier(); // the previous readers of bits, red and part are done
                const auto ya = k.let("ext_y", x + 4u * lane);
                const auto a = word_at("ext_a", ya);
                const auto b = word_at("ext_b", ya - off);
                const auto diff = k.let("ext_d", a ^ b);
                k.store(bits, lane, d::select(diff != 0u, 1u << lb, 0u));
                k.store(red, lane, d::ctz(diff) >> 3u);
                k.barrier();
                const auto miss = or_reduce("miss");
                const auto f = first_set("ext_f", miss, 0u);
                // a differing byte ends the match (and the loop: x is then set to the limit)
                const auto end = k.let("ext_end", d::min(x + 4u * f + red[f & (w - 1u)], match_limit));
                x = d::select(f < w, match_limit, d::min(x + 4u * w, match_limit));
                mlen = d::select(f < w, end, match_limit) - s;
            });
            const auto q = k.let("q", s);
            k.if_((e & 0x8000u) != 0u, [&] {
                k.while_(q > anchor && mc > 0u && byte_at(q - 1u) == byte_at(mc - 1u), [&] {
                    q = q - 1u;
                    mc = mc - 1u;
                    mlen = mlen + 1u;
                });
            });
            const auto ll = k.let("ll", q - anchor);
            const auto mlx = k.let("mlx", mlen - min_match);
            const auto le = k.let("le", extra(ll));
            const auto me = k.let("me", extra(mlx));
            const auto need = k.let("need", 3u + le + ll + me);
            // The last sequence adds at least its token: the block would not be smaller.
            k.if_(emitted + need + 1u >= n, [&] { stored = 1u; }).else_([&] {
                list(count, anchor, ll, off, mlx, emitted, le, me);
                count = count + 1u;
                emitted = emitted + need;
                anchor = q + mlen;
                pos = anchor;
            });
            ahead = any_from("next", starts, (pos - c0) & (w - 1u));
        });
        pos = d::max(pos, c0 + w); // no match starts in the rest of the chunk
        c = c + 1u;
    });

    // 6. the last literals and the record, or the page (barriers at the top level only: simpler
    // control flow around them for compilers that split kernels at barriers)
    const auto last_ll = k.let("last_ll", n - anchor);
    const auto last_le = k.let("last_le", extra(last_ll));
    const auto last_size = k.let("last_size", 1u + last_le + last_ll);
    k.if_(emitted + last_size >= n, [&] { stored = 1u; });
    k.barrier(); // the last chunk's readers of the list are done
    const auto no_match = k.let("no_match", 0u);
    k.if_(stored == 0u, [&] { list(count, anchor, last_ll, no_match, no_match, emitted, last_le, no_match); });
    k.barrier();
    k.if_(stored == 0u, [&] {
        emit("tail", written, emitted + last_size, count + 1u);
        emitted = emitted + last_size;
    });
    k.if_(stored != 0u, [&] {
        k.for_("raw_t", 0u, n / w, [&](auto t) {
            const auto i = k.let("raw_i", t * w + lane);
            k.store(out, slot + i, byte_at(i));
        });
        k.if_(lid == 0u, [&] {
            k.store(records, g * 2u, n);
            k.store(records, g * 2u + 1u, static_cast<std::uint32_t>(page_kind::stored));
        });
        k.return_();
    });
    k.if_(lid == 0u, [&] {
        k.store(records, g * 2u, emitted);
        k.store(records, g * 2u + 1u, static_cast<std::uint32_t>(page_kind::compressed));
    });
    return k.program();
}

} // namespace vyre::ops::compression
