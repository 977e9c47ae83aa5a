// compression.lz4_pages: LZ4 compression of a batch of fixed-size memory pages (4 KiB in v1) in one
// dispatch, one workgroup per page. Per page: a valid LZ4 block, its length and a kind (compressed,
// stored when the block would not be smaller, same_fill with the fill byte). The IR program, its
// registry entry, and the batch API (pages in, page records and blocks out).
#pragma once

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/format/page_file.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/reference/lz4_pages.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::compression {

using reference::page_kind;
using reference::page_record;

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
// Invocations per page. 128 gives each of the sort's 78 stages 16 compare-exchanges per invocation
// and keeps workgroup memory at 36.5 KiB, so several pages share an H100 SM (228 KiB). Devices with
// 32 KiB of local memory cannot run the program (check_lz4_pages_device says so).
inline constexpr std::uint32_t lz4_pages_default_workgroup = 128;
// Match lengths are precomputed up to this many bytes per position (each position compares at most
// cap/4 words); the serial parse extends longer matches itself.
inline constexpr std::uint32_t lz4_pages_length_cap = 64;

// The largest batch one dispatch takes: slot byte indices stay below 2^32.
inline std::uint64_t lz4_pages_max_batch(std::uint32_t page_size) { return (std::uint64_t{1} << 32) / page_size - 1; }

// The program's loops give each invocation page_size / 4 / workgroup words to load (and
// page_size / workgroup positions, page_size / 2 / workgroup compare-exchanges), so the workgroup
// may hold at most a quarter of the page size in invocations: with more, the load loop runs zero
// times and the page would be read as nothing.
inline void check_lz4_pages_shape(std::uint32_t page_size, std::uint32_t workgroup) {
    if (page_size < 1024 || page_size > 16384 || !std::has_single_bit(page_size) || !std::has_single_bit(workgroup) ||
        workgroup < 32 || workgroup > 1024 || std::uint64_t{workgroup} * 4 > page_size)
        throw resource_error("compression.lz4_pages: page size " + std::to_string(page_size) +
                             " must be a power of two in [1024, 16384] and workgroup " + std::to_string(workgroup) +
                             " a power of two in [32, 1024], at most a quarter of the page size (one word per invocation to load)");
}

// Workgroup memory the program declares per workgroup: the page (page_size/4 words), keys and
// match lengths (page_size words each), the start bitmap (page_size/32 words) and 4 words of
// state. 37,392 bytes (36.5 KiB) for 4 KiB pages: devices with 32 KiB of local memory cannot run it.
inline constexpr std::uint64_t lz4_pages_workgroup_bytes(std::uint32_t page_size) {
    return 4ull * (page_size / 4 + 2ull * page_size + page_size / 32 + 4);
}

// Throws resource_error, naming both sizes, when the device's local memory cannot hold the
// program's workgroup buffers (instead of the validator's generic message at the first dispatch).
inline void check_lz4_pages_device(const runtime::device_info& device, std::uint32_t page_size) {
    const std::uint64_t need = lz4_pages_workgroup_bytes(page_size);
    if (device.local_memory < need)
        throw resource_error("compression.lz4_pages: " + std::to_string(page_size) + "-byte pages need " + std::to_string(need) +
                             " bytes of workgroup (local) memory; " + device.label() + " has " + std::to_string(device.local_memory) +
                             " (compress on the CPU instead: engine::page_compressor with page_backend::cpu)");
}

// A record read back from the device, checked before its length is trusted (slots are page_size
// bytes): the kind is known, no reserved bits are set, and the length fits the kind.
inline void check_lz4_pages_record(const page_record& r, std::uint32_t page_size, std::size_t page) {
    const auto kind = r.flags & 0xFFu;
    const bool ok = (r.flags >> 16) == 0 &&
                    ((kind == static_cast<std::uint32_t>(page_kind::compressed) && r.length > 0 && r.length < page_size && (r.flags >> 8) == 0) ||
                     (kind == static_cast<std::uint32_t>(page_kind::stored) && r.length == page_size && (r.flags >> 8) == 0) ||
                     (kind == static_cast<std::uint32_t>(page_kind::same_fill) && r.length == 0));
    if (!ok)
        throw error("compression.lz4_pages: device record of page " + std::to_string(page) + " is invalid (length " + std::to_string(r.length) +
                    ", flags " + std::to_string(r.flags) + ", page size " + std::to_string(page_size) + ")");
}

// ---- the program -----------------------------------------------------------------------------
//
// One workgroup of `workgroup` invocations per page; everything per page lives in workgroup
// memory (page_size/4 + 2*page_size + page_size/32 + 4 words: 36.5 KiB for 4 KiB pages):
//  1. load the page (coalesced words) and test for one repeated byte: any invocation that sees a
//     different word sets a flag (all writers write the same value, so the race is benign). A
//     same_fill page ends here: one load pass and one barrier.
//  2. keys[p] = hash(p) << log2(page size) | p for every position; a bitonic sort of the keys
//     (log2(n) (log2(n) + 1) / 2 stages, one barrier each) puts every hash chain in position order,
//     so the key before p's with the same hash is the latest earlier position with that hash: p's
//     candidate. Deterministic, and no atomics (the IR has none on workgroup memory).
//  3. every position's match length against its candidate (word compares, at most the cap), packed
//     with the candidate; a bitmap marks the positions where a match may start.
//  4. one invocation walks the page greedily: the bitmap finds the next match start in 32-position
//     steps, a match is extended backwards over literals and, past the cap, forwards (through the
//     precomputed length at its end when that position's candidate has the same offset), and each
//     sequence is recorded with its output offset (the prefix sum comes free with the walk).
//  5. all invocations write the block: sequence headers by sequence, literal bytes by position (a
//     binary search finds a position's sequence), or the page itself when the block is not smaller.
inline ir::program lz4_pages_program(std::uint32_t page_size = lz4_pages_default_page_size,
                                     std::uint32_t workgroup = lz4_pages_default_workgroup) {
    namespace d = vyre::dsl;
    check_lz4_pages_shape(page_size, workgroup);
    const std::uint32_t n = page_size;
    const std::uint32_t words = n / 4;
    const std::uint32_t pos_bits = static_cast<std::uint32_t>(std::countr_zero(n));
    const std::uint32_t hash_shift = pos_bits; // hash = (s * 2654435761) >> pos_bits: 32 - pos_bits bits
    const std::uint32_t last_start = n - reference::lz4_match_start_limit;
    const std::uint32_t match_limit = n - reference::lz4_last_literals;
    const std::uint32_t cap = lz4_pages_length_cap;
    const std::uint32_t bitmap_words = n / 32;
    const std::uint32_t max_sequences = (n - reference::lz4_last_literals) / reference::lz4_min_match + 1;
    const std::uint32_t search_steps = static_cast<std::uint32_t>(std::bit_width(max_sequences));
    const std::uint32_t w = workgroup;

    d::kernel k(entry_name(lz4_pages_op_id), {w, 1, 1});
    const auto pages = k.input<d::u32>("pages", lz4_pages_binding::pages);
    const auto out = k.output<d::bytes>("output", lz4_pages_binding::output);
    const auto records = k.output<d::u32>("records", lz4_pages_binding::records);
    const auto params = k.uniform<d::u32>("params", lz4_pages_binding::params);
    const auto page = k.workgroup<d::u32>("page", words);
    // keys during the sort; afterwards the sequence records, 3 words each.
    const auto keys = k.workgroup<d::u32>("keys", n);
    // per position: match length << 16 | (candidate + 1), 0 where there is no candidate.
    const auto found = k.workgroup<d::u32>("found", n);
    const auto bitmap = k.workgroup<d::u32>("starts", bitmap_words);
    // [0]: not same-fill flag; [1]: sequence count; [2]: block size.
    const auto meta = k.workgroup<d::u32>("meta", 4);

    const auto lid = k.let("lid", d::local_id());
    const auto g = k.let("page_index", d::workgroup_id());
    k.if_(g >= params[0u], [&] { k.return_(); });
    const auto in_base = k.let("in_base", g * words);
    const auto slot = k.let("slot", g * n);

    // 1. load and same-fill test
    const auto first = k.let("first_word", pages[in_base]);
    const auto fill_word = k.let("fill_word", (first & 255u) * 0x01010101u);
    const auto differs = k.let("differs", 0u);
    k.for_("load_t", 0u, words / w, [&](auto t) {
        const auto i = k.let("load_i", t * w + lid);
        const auto v = k.let("load_v", pages[in_base + i]);
        k.store(page, i, v);
        differs = differs | (v ^ fill_word);
    });
    k.if_(differs != 0u, [&] { k.store(meta, 0u, 1u); });
    k.barrier();
    k.if_(meta[0u] == 0u, [&] {
        k.if_(lid == 0u, [&] {
            k.store(records, g * 2u, 0u);
            k.store(records, g * 2u + 1u, static_cast<std::uint32_t>(page_kind::same_fill) | ((first & 255u) << 8u));
        });
        k.return_();
    });

    // Byte i of the page, and the 4 bytes at i as a little-endian word (zero past the page).
    const auto byte_at = [&](const auto& i) { return (page[i >> 2u] >> ((i & 3u) << 3u)) & 255u; };
    const auto word_at = [&](const std::string& name, const auto& i) {
        const auto sh = k.let(name + "_sh", (i & 3u) << 3u);
        const auto lo = k.let(name + "_lo", page[i >> 2u]);
        const auto hi = k.let(name + "_hi", page[(i >> 2u) + 1u]);
        return k.let(name, d::select(sh == 0u, lo, (lo >> sh) | (hi << (32u - sh))));
    };

    // 2. keys, sort, candidates
    k.for_("key_t", 0u, n / w, [&](auto t) {
        const auto p = k.let("key_p", t * w + lid);
        const auto s = word_at("key_s", p);
        k.store(keys, p, (((s * 2654435761u) >> hash_shift) << pos_bits) | p);
    });
    k.barrier();
    k.for_("sort_k", 1u, pos_bits + 1u, [&](auto kb) {
        k.for_("sort_j", 0u, kb, [&](auto jj) {
            const auto jb = k.let("sort_jb", kb - 1u - jj);
            const auto jmask = k.let("sort_jmask", (1u << jb) - 1u);
            k.for_("sort_t", 0u, n / 2u / w, [&](auto t) {
                const auto idx = k.let("sort_idx", t * w + lid);
                const auto lo = k.let("sort_lo", ((idx >> jb) << (jb + 1u)) | (idx & jmask));
                const auto hi = k.let("sort_hi", lo + (1u << jb));
                const auto a = k.let("sort_a", keys[lo]);
                const auto b = k.let("sort_b", keys[hi]);
                const auto up = k.let("sort_up", ((lo >> kb) & 1u) == 0u);
                k.store(keys, lo, d::select(up, d::min(a, b), d::max(a, b)));
                k.store(keys, hi, d::select(up, d::max(a, b), d::min(a, b)));
            });
            k.barrier();
        });
    });
    k.for_("cand_t", 0u, n / w, [&](auto t) {
        const auto s = k.let("cand_s", t * w + lid);
        const auto key = k.let("cand_key", keys[s]);
        const auto before = k.let("cand_before", keys[s - 1u]);
        const auto same = k.let("cand_same", s > 0u && (before >> pos_bits) == (key >> pos_bits));
        k.store(found, key & (n - 1u), d::select(same, (before & (n - 1u)) + 1u, 0u));
    });
    k.barrier();

    // 3. match lengths (at most the cap, never past n - 5) and the bitmap of match starts
    k.for_("len_t", 0u, n / w, [&](auto t) {
        const auto p = k.let("len_p", t * w + lid);
        const auto f = k.let("len_f", found[p]);
        const auto len = k.let("len", 0u);
        k.if_(f != 0u && p < match_limit, [&] {
            const auto c = k.let("len_c", f - 1u);
            const auto limit = k.let("len_limit", d::min(cap, match_limit - p));
            k.while_(len < limit, [&] {
                const auto x = word_at("len_x", p + len);
                const auto y = word_at("len_y", c + len);
                const auto diff = k.let("len_diff", x ^ y);
                k.if_(diff != 0u, [&] {
                    len = len + (d::ctz(diff) >> 3u);
                    k.break_();
                });
                len = len + 4u;
            });
            len = d::min(len, limit);
        });
        k.store(found, p, (len << 16u) | f);
    });
    k.barrier();
    k.for_("bits_t", 0u, (bitmap_words + w - 1) / w, [&](auto t) {
        const auto bw = k.let("bits_w", t * w + lid);
        k.if_(bw < bitmap_words, [&] {
            const auto bits = k.let("bits", 0u);
            // Skewed order: invocation i reads position 32i + (b + i) % 32, so a warp's reads fall in
            // 32 different banks instead of one.
            k.for_("bits_b", 0u, 32u, [&](auto b) {
                const auto bit = k.let("bits_bit", (b + bw) & 31u);
                const auto p = k.let("bits_p", bw * 32u + bit);
                k.if_(p <= last_start && (found[p] >> 16u) >= reference::lz4_min_match, [&] { bits = bits | (1u << bit); });
            });
            k.store(bitmap, bw, bits);
        });
    });
    k.barrier();

    // 4. the greedy walk, by invocation 0
    const auto extra = [&](const auto& length) { return d::select(length >= 15u, 1u + (length - 15u) / 255u, 0u); };
    k.if_(lid == 0u, [&] {
        const auto anchor = k.let("anchor", 0u);
        const auto pos = k.let("pos", 0u);
        const auto size = k.let("size", 0u);
        const auto count = k.let("count", 0u);
        k.while_(size < n, [&] {
            // the next match start at or after pos
            const auto q = k.let("q", n);
            const auto bw = k.let("walk_w", pos >> 5u);
            const auto m = k.let("walk_m", 0u);
            k.if_(bw < bitmap_words, [&] { m = bitmap[bw] & (0xFFFFFFFFu << (pos & 31u)); });
            k.while_(bw < bitmap_words, [&] {
                k.if_(m != 0u, [&] {
                    q = (bw << 5u) + d::ctz(m);
                    k.break_();
                });
                bw = bw + 1u;
                m = bitmap[bw];
            });
            k.if_(q >= n, [&] { k.break_(); });
            const auto e = k.let("walk_e", found[q]);
            const auto c = k.let("walk_c", (e & 0xFFFFu) - 1u);
            const auto len = k.let("walk_len", e >> 16u);
            const auto offset = k.let("walk_off", q - c);
            // Past the cap: the precomputed length at the match's end continues it when that
            // position's candidate has the same offset; otherwise compare bytes.
            k.if_(len == cap, [&] {
                const auto x = k.let("ext_x", q + len);
                k.while_(true, [&] {
                    const auto ex = k.let("ext_e", found[x]);
                    k.if_(x < match_limit && (ex & 0xFFFFu) != 0u && x - ((ex & 0xFFFFu) - 1u) == offset, [&] {
                        const auto more = k.let("ext_more", ex >> 16u);
                        len = len + more;
                        x = x + more;
                        k.if_(more < cap, [&] { k.break_(); });
                    }).else_([&] {
                        k.while_(x < match_limit && byte_at(x) == byte_at(x - offset), [&] {
                            x = x + 1u;
                            len = len + 1u;
                        });
                        k.break_();
                    });
                });
            });
            k.while_(q > anchor && c > 0u && byte_at(q - 1u) == byte_at(c - 1u), [&] {
                q = q - 1u;
                c = c - 1u;
                len = len + 1u;
            });
            const auto literals = k.let("walk_ll", q - anchor);
            k.store(keys, count * 3u, anchor | (literals << 16u));
            k.store(keys, count * 3u + 1u, offset | (len << 16u));
            k.store(keys, count * 3u + 2u, size);
            size = size + 3u + extra(literals) + literals + extra(len - reference::lz4_min_match);
            count = count + 1u;
            anchor = q + len;
            pos = anchor;
        });
        const auto literals = k.let("last_ll", n - anchor);
        k.store(keys, count * 3u, anchor | (literals << 16u));
        k.store(keys, count * 3u + 1u, 0u);
        k.store(keys, count * 3u + 2u, size);
        size = size + 1u + extra(literals) + literals;
        k.store(meta, 1u, count + 1u);
        k.store(meta, 2u, size);
    });
    k.barrier();
    const auto sequences = k.let("sequences", meta[1u]);
    const auto total = k.let("total", meta[2u]);

    // 5. the block, or the page when the block is not smaller
    k.if_(total >= n, [&] {
        k.for_("raw_t", 0u, n / w, [&](auto t) {
            const auto i = k.let("raw_i", t * w + lid);
            k.store(out, slot + i, byte_at(i));
        });
        k.if_(lid == 0u, [&] {
            k.store(records, g * 2u, n);
            k.store(records, g * 2u + 1u, static_cast<std::uint32_t>(page_kind::stored));
        });
        k.return_();
    });
    const auto put_extra = [&](const auto& at, const auto& length) {
        k.if_(length >= 15u, [&] {
            const auto rest = k.let("hdr_rest", length - 15u);
            k.while_(rest >= 255u, [&] {
                k.store(out, at, 255u);
                at = at + 1u;
                rest = rest - 255u;
            });
            k.store(out, at, rest);
            at = at + 1u;
        });
    };
    k.for_("hdr_t", 0u, (max_sequences + w - 1) / w, [&](auto t) {
        const auto s = k.let("hdr_s", t * w + lid);
        k.if_(s < sequences, [&] {
            const auto r0 = k.let("hdr_r0", keys[s * 3u]);
            const auto r1 = k.let("hdr_r1", keys[s * 3u + 1u]);
            const auto ll = k.let("hdr_ll", r0 >> 16u);
            const auto ml = k.let("hdr_ml", r1 >> 16u);
            const auto mlx = k.let("hdr_mlx", d::select(ml == 0u, 0u, ml - reference::lz4_min_match));
            const auto at = k.let("hdr_at", slot + keys[s * 3u + 2u]);
            k.store(out, at, (d::min(ll, 15u) << 4u) | d::min(mlx, 15u));
            at = at + 1u;
            put_extra(at, ll);
            at = at + ll;
            k.if_(ml != 0u, [&] {
                k.store(out, at, r1 & 255u);
                k.store(out, at + 1u, (r1 >> 8u) & 255u);
                at = at + 2u;
                put_extra(at, mlx);
            });
        });
    });
    k.for_("lit_t", 0u, n / w, [&](auto t) {
        const auto p = k.let("lit_p", t * w + lid);
        // The last sequence whose literals start at or before p.
        const auto at = k.let("lit_seq", 0u);
        for (std::uint32_t step = 1u << (search_steps - 1); step != 0; step >>= 1) {
            const auto next = at + step;
            k.if_(next < sequences && (keys[next * 3u] & 0xFFFFu) <= p, [&] { at = next; });
        }
        const auto r0 = k.let("lit_r0", keys[at * 3u]);
        const auto start = k.let("lit_start", r0 & 0xFFFFu);
        const auto ll = k.let("lit_ll", r0 >> 16u);
        k.if_(p < start + ll, [&] {
            k.store(out, slot + keys[at * 3u + 2u] + 1u + extra(ll) + (p - start), byte_at(p));
        });
    });
    k.if_(lid == 0u, [&] {
        k.store(records, g * 2u, total);
        k.store(records, g * 2u + 1u, static_cast<std::uint32_t>(page_kind::compressed));
    });
    return k.program();
}

inline op_info lz4_pages_info() {
    return {lz4_pages_op_id, 1, "LZ4 compression of 4 KiB pages, one workgroup per page (records: length, kind | fill << 8)",
            ir::op_signature{{ir::data_type::u32}, ir::data_type::bytes}, ir::convention::v1(), [] { return lz4_pages_program(); }};
}

// ---- running the program ---------------------------------------------------------------------

struct lz4_pages_kernel {
    runtime::compiled_program program;
    std::uint32_t page_size;
};

inline const lz4_pages_kernel& lz4_pages_kernel_for(std::uint32_t page_size = lz4_pages_default_page_size) {
    if (page_size != lz4_pages_default_page_size) {
        check_lz4_pages_shape(page_size, lz4_pages_default_workgroup);
        throw resource_error("compression.lz4_pages: v1 runs " + std::to_string(lz4_pages_default_page_size) + "-byte pages, not " +
                             std::to_string(page_size) + " (build other sizes as lz4_pages_kernel{runtime::compiled_program(lz4_pages_program(" +
                             std::to_string(page_size) + ")), " + std::to_string(page_size) + "})");
    }
    static const lz4_pages_kernel k{runtime::compiled_program(lz4_pages_program()), lz4_pages_default_page_size};
    return k;
}

// Device buffers of one dispatch: `count` pages in, slots and records out.
struct lz4_pages_device {
    boost::compute::buffer pages;   // count * page_size bytes
    boost::compute::buffer output;  // count * page_size bytes (slots)
    boost::compute::buffer records; // count * 8 bytes
    std::uint32_t count = 0;
};

inline lz4_pages_device allocate_lz4_pages(runtime::context& ctx, std::uint32_t capacity, std::uint32_t page_size) {
    if (capacity > lz4_pages_max_batch(page_size))
        throw resource_error("compression.lz4_pages: " + std::to_string(capacity) + " pages in one dispatch; at most " +
                             std::to_string(lz4_pages_max_batch(page_size)));
    lz4_pages_device d;
    d.pages = runtime::allocate(ctx, std::size_t{capacity} * page_size, CL_MEM_READ_ONLY);
    d.output = runtime::allocate(ctx, std::size_t{capacity} * page_size);
    d.records = runtime::allocate(ctx, std::size_t{capacity} * sizeof(page_record));
    d.count = capacity;
    return d;
}

// Enqueues the compression of the first `count` pages of `d` on ctx's queue and returns the
// launch's event; nothing waits. `params` receives the launch's parameter buffer: keep it until
// the event completes.
inline boost::compute::event enqueue_lz4_pages(runtime::context& ctx, const lz4_pages_kernel& kernel, const lz4_pages_device& d,
                                               std::uint32_t count, boost::compute::buffer& params) {
    if (count > d.count)
        throw resource_error("compression.lz4_pages: " + std::to_string(count) + " pages for buffers of " + std::to_string(d.count));
    if (count == 0) return {};
    check_lz4_pages_device(ctx.device(), kernel.page_size);
    const std::uint32_t p[lz4_pages_param_words] = {count, 0, 0, 0};
    params = runtime::detail::cl_call("clCreateBuffer", [&] {
        return boost::compute::buffer(ctx.cl_context(), sizeof p, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, const_cast<std::uint32_t*>(p));
    });
    const std::uint32_t words = count * (kernel.page_size / 4);
    const runtime::buffer_arg args[] = {{d.pages, words}, {d.output, words}, {d.records, count * 2u}, {params, lz4_pages_param_words}};
    return runtime::dispatch(ctx, kernel.program, {count, 1, 1}, args);
}

// A batch's result: records[i] and page i's bytes at data[i * page_size, + records[i].length).
struct compressed_pages {
    std::uint32_t page_size = lz4_pages_default_page_size;
    std::vector<page_record> records;
    std::vector<std::uint8_t> data; // fixed slots of page_size bytes

    std::span<const std::uint8_t> block(std::size_t i) const {
        return std::span<const std::uint8_t>(data).subspan(i * page_size, records[i].length);
    }
    std::uint64_t compressed_bytes() const {
        std::uint64_t sum = 0;
        for (const auto& r : records) sum += r.length;
        return sum;
    }
};

namespace detail {
inline void check_pages_input(std::size_t bytes, std::uint32_t page_size) {
    if (bytes % page_size != 0)
        throw format_error("compression.lz4_pages: " + std::to_string(bytes) + " bytes is not a whole number of " +
                           std::to_string(page_size) + "-byte pages");
}
} // namespace detail

// Compresses every page of `pages` (a whole number of 4 KiB pages) on the device: one dispatch per
// lz4_pages_max_batch pages, blocking. The page bytes of stored pages are copied too, so every
// record's bytes are in `data`.
inline compressed_pages compress_pages(runtime::context& ctx, std::span<const std::uint8_t> pages,
                                       std::uint32_t page_size = lz4_pages_default_page_size) {
    const lz4_pages_kernel& kernel = lz4_pages_kernel_for(page_size);
    detail::check_pages_input(pages.size(), page_size);
    compressed_pages r;
    r.page_size = page_size;
    const std::size_t count = pages.size() / page_size;
    if (count != 0) check_lz4_pages_device(ctx.device(), page_size);
    r.records.resize(count);
    r.data.resize(pages.size());
    const std::size_t max_batch = static_cast<std::size_t>(
        std::min<std::uint64_t>(lz4_pages_max_batch(page_size), ctx.device().max_allocation / page_size));
    for (std::size_t first = 0; first < count; first += max_batch) {
        const auto n = static_cast<std::uint32_t>(std::min(max_batch, count - first));
        lz4_pages_device d = allocate_lz4_pages(ctx, n, page_size);
        const std::size_t bytes = std::size_t{n} * page_size;
        runtime::write(ctx, d.pages, pages.data() + first * page_size, bytes);
        boost::compute::buffer params;
        enqueue_lz4_pages(ctx, kernel, d, n, params);
        runtime::read(ctx, d.records, r.records.data() + first, n * sizeof(page_record));
        for (std::size_t i = first; i < first + n; ++i) check_lz4_pages_record(r.records[i], page_size, i);
        runtime::read(ctx, d.output, r.data.data() + first * page_size, bytes);
    }
    return r;
}

// Decodes a parsed page file on the device: compressed and stored pages through compression.lz4
// (one dispatch per batch that make_block_batches cuts), same_fill pages on the host. A page whose
// block does not decode to exactly one page is a format_error naming it. A file that decodes to
// more than `max_output_bytes` is a resource_error before anything is allocated (a small hostile
// file can declare 2048 times its size: format::check_page_file_output).
inline std::vector<std::uint8_t> decompress_page_file(runtime::context& ctx, const format::page_file_view& v,
                                                      std::uint64_t max_output_bytes = format::page_file_default_max_output) {
    format::check_page_file_output(v, max_output_bytes);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(v.content_bytes()));
    std::vector<block_extent> extents;
    std::vector<std::size_t> page_of;
    for (std::size_t i = 0; i < v.records.size(); ++i) {
        const page_record& r = v.records[i];
        if (r.kind() == page_kind::same_fill) {
            std::memset(out.data() + i * v.page_size, r.fill(), v.page_size);
            continue;
        }
        extents.push_back({v.offsets[i], std::uint64_t{i} * v.page_size, r.length, v.page_size,
                           r.kind() == page_kind::stored ? block_flag_uncompressed : 0u});
        page_of.push_back(i);
    }
    batch_limits limits;
    const std::uint64_t device_max = ctx.device().max_allocation / 4 * 4;
    limits.max_input_bytes = device_max;
    limits.max_output_bytes = device_max;
    limits.max_blocks = lz4_max_blocks;
    for (const block_batch& b : make_block_batches(extents, limits)) {
        const auto window = v.blocks.subspan(static_cast<std::size_t>(b.input_base), static_cast<std::size_t>(b.input_bytes));
        const lz4_block_result r = decompress_blocks(ctx, window, b.blocks, b.output_bytes);
        const std::vector<std::uint8_t> bytes = read_output(ctx, r);
        for (std::size_t k = 0; k < b.blocks.size(); ++k) {
            const std::size_t page = page_of[b.first_extent + k];
            if (r.statuses[k].code != lz4_error::none || r.statuses[k].output_size != v.page_size)
                throw format_error("page " + std::to_string(page) + ": device decoding gave " + lz4_error_name(r.statuses[k].code) + " after " +
                                   std::to_string(r.statuses[k].output_size) + " bytes, not one " + std::to_string(v.page_size) + "-byte page");
            std::memcpy(out.data() + page * v.page_size, bytes.data() + b.blocks[k].output_offset, v.page_size);
        }
    }
    return out;
}

} // namespace vyre::ops::compression
