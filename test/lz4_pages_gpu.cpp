// compression.lz4_pages on every device: the device's records and blocks equal the CPU oracle's
// byte for byte; every block decodes with liblz4 (LZ4_decompress_safe) and with compression.lz4 on
// the device; same-fill, stored and compressed pages; the stored/compressed edge; batch sizes around
// the workgroup size; seeded random batches; determinism; the ratio against LZ4_compress_default;
// the program on the reference interpreter; the page file format and the hybrid compressor.
#include "harness.hpp"
#include "lz4_blocks.hpp"
#include "test_data.hpp"

#include <vyre/engine/page_compressor.hpp>
#include <vyre/engine/page_file.hpp>
#include <vyre/format/page_file.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/ops/compression/lz4_pages.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/reference/lz4_pages.hpp>

#include <lz4.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

namespace cz = vyre::ops::compression;
namespace vc = vyre::compression;
namespace vo = vyre::ops;
namespace ref = vyre::reference;
using bytes = std::vector<std::uint8_t>;
constexpr std::size_t page_size = 4096;

// One page of a kind picked by `kind` (0..8), from `rng`.
bytes make_page(std::mt19937_64& rng, unsigned kind, const bytes& corpus) {
    bytes p(page_size);
    switch (kind % 9) {
    case 0: p = vyre::test::random_bytes(rng, page_size); break;
    case 1: break; // zero
    case 2: std::fill(p.begin(), p.end(), static_cast<std::uint8_t>(1 + rng() % 255)); break;
    case 3: p = vyre::test::text_bytes(rng, page_size); break;
    case 4: // binary: little-endian structs of small integers and pointers
        for (std::size_t i = 0; i + 16 <= page_size; i += 16) {
            const std::uint32_t v[4] = {static_cast<std::uint32_t>(rng() % 300), 0x7ffd0000u + static_cast<std::uint32_t>(rng() % 64) * 16,
                                        static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(rng() % 3)};
            std::memcpy(p.data() + i, v, 16);
        }
        break;
    case 5: { // real data: a slice of the system's headers
        const std::size_t at = rng() % (corpus.size() - page_size);
        p.assign(corpus.begin() + static_cast<std::ptrdiff_t>(at), corpus.begin() + static_cast<std::ptrdiff_t>(at + page_size));
        break;
    }
    case 6: p = vyre::test::repetitive_bytes(rng, page_size); break;
    case 7: // mostly zero, a few bytes set (sparse pages are common in swap)
        for (int i = 0; i < 20; ++i) p[rng() % page_size] = static_cast<std::uint8_t>(rng());
        break;
    default: // almost same-fill: one byte differs, at either end or inside
        std::fill(p.begin(), p.end(), static_cast<std::uint8_t>(rng()));
        p[(rng() % 3 == 0) ? 0 : (rng() % 2 ? page_size - 1 : rng() % page_size)] ^= 0x40;
        break;
    }
    return p;
}

const bytes& corpus() {
    static const bytes c = vyre::test::system_corpus(4 << 20);
    return c;
}

bytes make_batch(std::mt19937_64& rng, std::size_t pages) {
    bytes b;
    b.reserve(pages * page_size);
    for (std::size_t i = 0; i < pages; ++i) {
        const bytes p = make_page(rng, static_cast<unsigned>(rng() % 9), corpus());
        b.insert(b.end(), p.begin(), p.end());
    }
    return b;
}

// Pages near the stored/compressed edge: random bytes with `copies` repeats of a 24-byte chunk.
bytes edge_batch(std::mt19937_64& rng) {
    bytes b;
    for (unsigned copies = 0; copies < 24; ++copies) {
        bytes p = vyre::test::random_bytes(rng, page_size);
        for (unsigned c = 0; c < copies; ++c) std::memcpy(p.data() + 100 + c * 160, p.data() + 16, 24);
        b.insert(b.end(), p.begin(), p.end());
    }
    return b;
}

// Pages that steer the parse into its rarer paths: matches far past the per-invocation cap (a
// period-3 pattern: every step of the workgroup-wide extension, up to the last-literals limit),
// literal and match lengths of 15, 270 and more (length bytes, 255s among them), a match that ends
// exactly at the limit, and catch-ups: the position before a match start has its bytes' latest
// earlier hash on other bytes (a 12-bit hash collision), so the match is extended backwards.
bytes structured_batch(std::mt19937_64& rng) {
    namespace ref = vyre::reference;
    const auto hash = [](const std::uint8_t* p) {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return (v * 2654435761u) >> (32 - ref::lz4_pages_hash_bits());
    };
    // Other 4 bytes with the same hash as `at`.
    const auto collision = [&](const std::uint8_t* at) {
        for (std::uint32_t v = 1;; ++v) {
            std::uint8_t c[4];
            std::memcpy(c, &v, 4);
            if (hash(c) == hash(at) && std::memcmp(c, at, 4) != 0) return bytes(c, c + 4);
        }
    };
    bytes b;
    const auto add = [&](const bytes& p) { b.insert(b.end(), p.begin(), p.end()); };
    { // period 3 from byte 10 to the end, one disturbed byte in the middle
        bytes p = vyre::test::random_bytes(rng, page_size);
        for (std::size_t i = 10; i < page_size; ++i) p[i] = "xyz"[i % 3];
        p[2000] = '!';
        add(p);
    }
    for (std::size_t ll : {14u, 15u, 16u, 269u, 270u, 271u, 600u}) {
        // zeros (a match to byte 200), ll random literals, then a match of ll + 5 bytes from the
        // literals' start (copied forward, so it overlaps them where longer)
        bytes p = vyre::test::random_bytes(rng, page_size);
        std::fill(p.begin(), p.begin() + 200, 0);
        for (std::size_t i = 0; i < ll + 5; ++i) p[200 + ll + i] = p[200 + i];
        add(p);
    }
    { // a match that runs to the last-literals limit, and one that would run past it
        bytes p = vyre::test::random_bytes(rng, page_size);
        std::memcpy(p.data() + page_size - 300, p.data() + 1000, 300);
        add(p);
        bytes q = vyre::test::random_bytes(rng, page_size);
        std::memcpy(q.data() + page_size - 305, q.data() + 1000, 300);
        add(q);
    }
    { // catch-ups by one and by two bytes through hash collisions
        bytes p = vyre::test::random_bytes(rng, page_size);
        const char* text = "QRSTUVWXYZ0123456789abcdefghij";
        std::memcpy(p.data() + 100, text, 30);
        std::memcpy(p.data() + 2000, text, 30);
        const bytes c1 = collision(p.data() + 2000); // "QRST"'s hash on other bytes, later than 100
        std::memcpy(p.data() + 1500, c1.data(), 4);
        std::memcpy(p.data() + 300, text + 5, 20); // the same again, caught up by two
        std::memcpy(p.data() + 3000, text + 5, 20);
        const bytes c2 = collision(p.data() + 3000), c3 = collision(p.data() + 3001);
        std::memcpy(p.data() + 2600, c2.data(), 4);
        std::memcpy(p.data() + 2700, c3.data(), 4);
        add(p);
    }
    return b;
}

// The oracle's records and slots for a batch.
struct expected_pages {
    std::vector<ref::page_record> records;
    bytes slots;
};
expected_pages oracle(const bytes& batch) {
    expected_pages e;
    e.slots.assign(batch.size(), 0);
    e.records = ref::lz4_compress_pages(batch, page_size, e.slots);
    return e;
}

// Checks one page record against its page: liblz4 decodes the block to the page.
void check_decodes(const bytes& batch, std::size_t i, const ref::page_record& r, std::span<const std::uint8_t> block) {
    const bytes page(batch.begin() + static_cast<std::ptrdiff_t>(i * page_size), batch.begin() + static_cast<std::ptrdiff_t>((i + 1) * page_size));
    switch (r.kind()) {
    case ref::page_kind::same_fill:
        BOOST_CHECK_EQUAL(r.length, 0u);
        BOOST_CHECK(std::all_of(page.begin(), page.end(), [&](std::uint8_t v) { return v == r.fill(); }));
        break;
    case ref::page_kind::stored:
        BOOST_CHECK_EQUAL(r.length, page_size);
        BOOST_CHECK(std::equal(page.begin(), page.end(), block.begin(), block.end()));
        break;
    case ref::page_kind::compressed: {
        BOOST_CHECK_LT(r.length, page_size);
        const auto decoded = vyre::test::liblz4_decode(bytes(block.begin(), block.end()), page_size);
        BOOST_REQUIRE_MESSAGE(decoded.has_value(), "page " << i << ": liblz4 rejects the block");
        BOOST_CHECK_MESSAGE(*decoded == page, "page " << i << ": liblz4 decodes the block to other bytes");
        break;
    }
    default: BOOST_ERROR("page " << i << ": unknown kind " << r.flags);
    }
}

// The device result equals the oracle's, every block decodes with liblz4, and the compressed blocks
// decode with compression.lz4 on the same device.
void check_batch(vyre::runtime::context& ctx, const bytes& batch, const std::string& what) {
    BOOST_TEST_CONTEXT(what << ", " << batch.size() / page_size << " pages") {
        const expected_pages want = oracle(batch);
        const cz::compressed_pages got = cz::compress_pages(ctx, batch);
        BOOST_REQUIRE_EQUAL(got.records.size(), want.records.size());
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < got.records.size(); ++i) {
            const auto& r = got.records[i];
            const bool same = r == want.records[i] &&
                              std::equal(got.block(i).begin(), got.block(i).end(), want.slots.begin() + static_cast<std::ptrdiff_t>(i * page_size));
            if (!same && mismatches++ < 5)
                BOOST_ERROR("page " << i << ": device record {" << r.length << ", " << r.flags << "}, oracle {" << want.records[i].length
                                    << ", " << want.records[i].flags << "}" << (r == want.records[i] ? " (bytes differ)" : ""));
            check_decodes(batch, i, r, got.block(i));
        }
        BOOST_CHECK_EQUAL(mismatches, 0u);

        // compression.lz4 on the device decodes the compressed blocks (and copies the stored ones).
        std::vector<vc::block_descriptor> blocks;
        std::vector<std::size_t> which;
        for (std::size_t i = 0; i < got.records.size(); ++i) {
            const auto& r = got.records[i];
            if (r.kind() == ref::page_kind::same_fill) continue;
            const std::uint32_t flags = r.kind() == ref::page_kind::stored ? vc::block_flag_uncompressed : 0u;
            blocks.push_back({static_cast<std::uint32_t>(i * page_size), r.length, static_cast<std::uint32_t>(blocks.size() * page_size),
                              static_cast<std::uint32_t>(page_size), flags});
            which.push_back(i);
        }
        if (blocks.empty()) return;
        const auto result = vo::decode_blocks<cz::lz4_op>(ctx, got.data, blocks, blocks.size() * page_size);
        const bytes decoded = vo::read_output(ctx, result);
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            const std::size_t i = which[k];
            BOOST_CHECK_MESSAGE(result.statuses[k].code == vc::lz4_error::none && result.statuses[k].output_size == page_size,
                                "page " << i << ": compression.lz4 status " << result.statuses[k].code << ", " << result.statuses[k].output_size);
            BOOST_CHECK_MESSAGE(std::equal(decoded.begin() + static_cast<std::ptrdiff_t>(k * page_size),
                                           decoded.begin() + static_cast<std::ptrdiff_t>((k + 1) * page_size),
                                           batch.begin() + static_cast<std::ptrdiff_t>(i * page_size)),
                                "page " << i << ": compression.lz4 decodes the block to other bytes");
        }
    }
}

} // namespace

// ---- host: the oracle itself ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(oracle_blocks_decode_with_liblz4) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        std::mt19937_64 rng(seed);
        bytes batch = make_batch(rng, 300);
        const bytes edge = edge_batch(rng);
        batch.insert(batch.end(), edge.begin(), edge.end());
        const expected_pages e = oracle(batch);
        bool kinds[3] = {};
        for (std::size_t i = 0; i < e.records.size(); ++i) {
            kinds[static_cast<unsigned>(e.records[i].kind()) % 3] = true;
            check_decodes(batch, i, e.records[i], std::span<const std::uint8_t>(e.slots).subspan(i * page_size, e.records[i].length));
        }
        BOOST_CHECK(kinds[0] && kinds[1] && kinds[2]);
    }
}

// The edge batch has pages on both sides of "the block would not be smaller": some stored, and
// some compressed to within a few bytes of the page size.
BOOST_AUTO_TEST_CASE(oracle_covers_the_incompressible_edge) {
    std::mt19937_64 rng(7);
    const bytes batch = edge_batch(rng);
    const expected_pages e = oracle(batch);
    std::size_t stored = 0, tight = 0;
    for (const auto& r : e.records) {
        stored += r.kind() == ref::page_kind::stored;
        tight += r.kind() == ref::page_kind::compressed && r.length >= page_size - 64;
    }
    BOOST_CHECK_GT(stored, 0u);
    BOOST_CHECK_GT(tight, 0u);
}

// Ratio within 5% of LZ4_compress_default on real data (the system's headers, page by page) and on
// the mixed generator.
BOOST_AUTO_TEST_CASE(ratio_is_within_5_percent_of_liblz4) {
    std::mt19937_64 rng(3);
    for (const auto& [name, data] : {std::pair<std::string, bytes>{"system headers", bytes(corpus().begin(), corpus().begin() + (2 << 20))},
                                     std::pair<std::string, bytes>{"mixed pages", make_batch(rng, 512)}}) {
        const expected_pages e = oracle(data);
        std::uint64_t ours = 0, theirs = 0;
        bytes dst(static_cast<std::size_t>(LZ4_compressBound(page_size)));
        for (std::size_t i = 0; i < e.records.size(); ++i) {
            ours += e.records[i].length;
            const char* src = reinterpret_cast<const char*>(data.data() + i * page_size);
            // The same container rules for liblz4: same-fill pages cost nothing, a block that is not
            // smaller is stored.
            const bool fill = std::all_of(src, src + page_size, [&](char c) { return c == src[0]; });
            const int r = LZ4_compress_default(src, reinterpret_cast<char*>(dst.data()), page_size, static_cast<int>(dst.size()));
            theirs += fill ? 0 : std::min<std::uint64_t>(static_cast<std::uint64_t>(r), page_size);
        }
        const double ours_ratio = double(data.size()) / double(ours), theirs_ratio = double(data.size()) / double(theirs);
        BOOST_TEST_MESSAGE(name << ": ratio " << ours_ratio << ", liblz4 " << theirs_ratio);
        BOOST_CHECK_MESSAGE(ours_ratio >= 0.95 * theirs_ratio, name << ": ratio " << ours_ratio << " vs liblz4 " << theirs_ratio);
    }
}

// The IR program means what the oracle says, on the IR's own interpreter (a few pages: it is slow).
BOOST_AUTO_TEST_CASE(program_agrees_with_the_oracle_on_the_interpreter) {
    const auto program = cz::lz4_pages_program();
    BOOST_REQUIRE_NO_THROW(vyre::ir::validate(program));
    std::mt19937_64 rng(5);
    bytes batch;
    for (unsigned kind : {3u, 0u, 2u, 7u}) {
        const bytes p = make_page(rng, kind, corpus());
        batch.insert(batch.end(), p.begin(), p.end());
    }
    const expected_pages want = oracle(batch);
    const std::uint32_t count = static_cast<std::uint32_t>(batch.size() / page_size);
    std::vector<ref::buffer_data> buffers(4);
    buffers[0] = batch;
    buffers[1].assign(batch.size(), 0);
    buffers[2].assign(count * 8, 0xEE);
    const std::uint32_t params[4] = {count, 0, 0, 0};
    buffers[3].resize(sizeof params);
    std::memcpy(buffers[3].data(), params, sizeof params);
    ref::run(program, {count, 1, 1}, buffers);
    for (std::uint32_t i = 0; i < count; ++i) {
        ref::page_record r;
        std::memcpy(&r, buffers[2].data() + i * 8, 8);
        BOOST_CHECK_EQUAL(r.length, want.records[i].length);
        BOOST_CHECK_EQUAL(r.flags, want.records[i].flags);
        BOOST_CHECK(std::equal(buffers[1].begin() + i * page_size, buffers[1].begin() + i * page_size + r.length,
                               want.slots.begin() + i * page_size));
    }
}

// ---- device ------------------------------------------------------------------------------------

VYRE_DEVICE_TEST(every_kind_of_page_round_trips) {
    std::mt19937_64 rng(1);
    bytes batch;
    for (unsigned kind = 0; kind < 9; ++kind)
        for (int copy = 0; copy < 3; ++copy) {
            const bytes p = make_page(rng, kind, corpus());
            batch.insert(batch.end(), p.begin(), p.end());
        }
    const bytes edge = edge_batch(rng);
    batch.insert(batch.end(), edge.begin(), edge.end());
    check_batch(dev.ctx(), batch, "every kind and the incompressible edge");
}

VYRE_DEVICE_TEST(batch_sizes_around_the_workgroup) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed) {
        std::mt19937_64 rng(seed);
        for (std::size_t pages : {1u, 31u, 32u, 33u, 1000u}) check_batch(dev.ctx(), make_batch(rng, pages), "seeded mixed batch");
    }
}

VYRE_DEVICE_TEST(structured_pages_round_trip) {
    std::mt19937_64 rng(41);
    check_batch(dev.ctx(), structured_batch(rng), "structured pages");
}

// The workgroup size is a shape, not a parameter of the parse: every shape writes the oracle's
// records and bytes.
VYRE_DEVICE_TEST(every_shape_gives_the_oracles_bytes) {
    std::mt19937_64 rng(43);
    bytes batch = make_batch(rng, 120);
    for (const bytes& more : {structured_batch(rng), edge_batch(rng), bytes(corpus().begin(), corpus().begin() + 64 * page_size)})
        batch.insert(batch.end(), more.begin(), more.end());
    const expected_pages want = oracle(batch);
    const auto count = static_cast<std::uint32_t>(batch.size() / page_size);
    for (std::uint32_t w : {32u, 64u, 128u}) {
        BOOST_TEST_CONTEXT("workgroup " << w) {
            const cz::lz4_pages_kernel& kernel = cz::lz4_pages_kernel_for(page_size, w);
            BOOST_CHECK_EQUAL(kernel.workgroup, w);
            cz::lz4_pages_device d = cz::allocate_lz4_pages(dev.ctx(), count, page_size);
            vyre::runtime::write(dev.ctx(), d.pages, batch.data(), batch.size());
            boost::compute::buffer params;
            cz::enqueue_lz4_pages(dev.ctx(), kernel, d, count, params).wait();
            std::vector<ref::page_record> records(count);
            bytes slots(batch.size());
            vyre::runtime::read(dev.ctx(), d.records, records.data(), count * sizeof(ref::page_record));
            vyre::runtime::read(dev.ctx(), d.output, slots.data(), slots.size());
            std::size_t mismatches = 0;
            for (std::size_t i = 0; i < count; ++i) {
                const bool same = records[i] == want.records[i] &&
                                  std::equal(slots.begin() + static_cast<std::ptrdiff_t>(i * page_size),
                                             slots.begin() + static_cast<std::ptrdiff_t>(i * page_size + records[i].length),
                                             want.slots.begin() + static_cast<std::ptrdiff_t>(i * page_size));
                if (!same && mismatches++ < 5) BOOST_ERROR("page " << i << " differs from the oracle");
            }
            BOOST_CHECK_EQUAL(mismatches, 0u);
        }
    }
}

// The program's other hash widths write other blocks, the oracle's at the same width, each decoding.
VYRE_DEVICE_TEST(other_hash_widths_give_the_oracles_bytes) {
    std::mt19937_64 rng(47);
    bytes batch = make_batch(rng, 60);
    for (const bytes& more : {structured_batch(rng), bytes(corpus().begin(), corpus().begin() + 40 * page_size)})
        batch.insert(batch.end(), more.begin(), more.end());
    const auto count = static_cast<std::uint32_t>(batch.size() / page_size);
    for (std::uint32_t bits : {10u, 11u, 13u}) {
        BOOST_TEST_CONTEXT(bits << " hash bits") {
            bytes want_slots(batch.size());
            const auto want = ref::lz4_compress_pages(batch, page_size, want_slots, bits);
            const cz::lz4_pages_kernel kernel{vyre::runtime::compiled_program(cz::lz4_pages_program(page_size, 32, bits)), page_size, 32, bits};
            cz::lz4_pages_device d = cz::allocate_lz4_pages(dev.ctx(), count, page_size);
            vyre::runtime::write(dev.ctx(), d.pages, batch.data(), batch.size());
            boost::compute::buffer params;
            cz::enqueue_lz4_pages(dev.ctx(), kernel, d, count, params).wait();
            std::vector<ref::page_record> records(count);
            bytes slots(batch.size());
            vyre::runtime::read(dev.ctx(), d.records, records.data(), count * sizeof(ref::page_record));
            vyre::runtime::read(dev.ctx(), d.output, slots.data(), slots.size());
            std::size_t mismatches = 0;
            for (std::size_t i = 0; i < count; ++i) {
                const auto block = std::span<const std::uint8_t>(slots).subspan(i * page_size, records[i].length);
                if (!(records[i] == want[i]) || !std::equal(block.begin(), block.end(), want_slots.begin() + static_cast<std::ptrdiff_t>(i * page_size)))
                    ++mismatches;
                check_decodes(batch, i, records[i], block);
            }
            BOOST_CHECK_EQUAL(mismatches, 0u);
        }
    }
    BOOST_CHECK_THROW(cz::lz4_pages_program(page_size, 32, 9), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_pages_program(page_size, 32, 14), vyre::resource_error);
    bytes out(page_size);
    BOOST_CHECK_THROW(ref::lz4_compress_page(bytes(batch.begin(), batch.begin() + page_size), out, 14), vyre::resource_error);
}

// The program's other page sizes (built by hand: the op registers 4 KiB), against the oracle.
VYRE_DEVICE_TEST(other_page_sizes_give_the_oracles_bytes) {
    std::mt19937_64 rng(53);
    for (std::uint32_t ps : {1024u, 16384u}) {
        BOOST_TEST_CONTEXT(ps << "-byte pages") {
            bytes batch;
            for (int i = 0; i < 6; ++i) { // real data, a long period-5 run, random, sparse
                const std::size_t at = rng() % (corpus().size() - ps);
                batch.insert(batch.end(), corpus().begin() + static_cast<std::ptrdiff_t>(at), corpus().begin() + static_cast<std::ptrdiff_t>(at + ps));
            }
            bytes run = vyre::test::random_bytes(rng, ps), noise = vyre::test::random_bytes(rng, ps), sparse(ps, 0);
            for (std::size_t i = 7; i < ps; ++i) run[i] = static_cast<std::uint8_t>("vwxyz"[i % 5]);
            for (int i = 0; i < 9; ++i) sparse[rng() % ps] = static_cast<std::uint8_t>(rng());
            for (const bytes* p : {&run, &noise, &sparse}) batch.insert(batch.end(), p->begin(), p->end());
            const auto count = static_cast<std::uint32_t>(batch.size() / ps);
            bytes want_slots(batch.size());
            const auto want = ref::lz4_compress_pages(batch, ps, want_slots);
            const cz::lz4_pages_kernel kernel{vyre::runtime::compiled_program(cz::lz4_pages_program(ps, 32)), ps, 32};
            cz::lz4_pages_device d = cz::allocate_lz4_pages(dev.ctx(), count, ps);
            vyre::runtime::write(dev.ctx(), d.pages, batch.data(), batch.size());
            boost::compute::buffer params;
            cz::enqueue_lz4_pages(dev.ctx(), kernel, d, count, params).wait();
            std::vector<ref::page_record> records(count);
            bytes slots(batch.size());
            vyre::runtime::read(dev.ctx(), d.records, records.data(), count * sizeof(ref::page_record));
            vyre::runtime::read(dev.ctx(), d.output, slots.data(), slots.size());
            for (std::size_t i = 0; i < count; ++i) {
                BOOST_TEST_CONTEXT("page " << i) {
                    BOOST_CHECK(records[i] == want[i]);
                    BOOST_CHECK(std::equal(slots.begin() + static_cast<std::ptrdiff_t>(i * ps), slots.begin() + static_cast<std::ptrdiff_t>(i * ps + records[i].length),
                                           want_slots.begin() + static_cast<std::ptrdiff_t>(i * ps)));
                    if (records[i].kind() == ref::page_kind::compressed) {
                        const auto decoded = vyre::test::liblz4_decode(bytes(slots.begin() + static_cast<std::ptrdiff_t>(i * ps),
                                                                             slots.begin() + static_cast<std::ptrdiff_t>(i * ps + records[i].length)),
                                                                       ps);
                        BOOST_CHECK(decoded && std::equal(decoded->begin(), decoded->end(), batch.begin() + static_cast<std::ptrdiff_t>(i * ps)));
                    }
                }
            }
        }
    }
}

VYRE_DEVICE_TEST(real_data_pages_round_trip) {
    const bytes data(corpus().begin(), corpus().begin() + (1 << 20));
    check_batch(dev.ctx(), data, "system headers");
}

VYRE_DEVICE_TEST(same_batch_same_bytes) {
    std::mt19937_64 rng(9);
    const bytes batch = make_batch(rng, 200);
    const cz::compressed_pages a = cz::compress_pages(dev.ctx(), batch);
    for (int run = 0; run < 3; ++run) {
        const cz::compressed_pages b = cz::compress_pages(dev.ctx(), batch);
        BOOST_REQUIRE(a.records == b.records);
        for (std::size_t i = 0; i < a.records.size(); ++i)
            BOOST_REQUIRE(std::equal(a.block(i).begin(), a.block(i).end(), b.block(i).begin(), b.block(i).end()));
    }
}

VYRE_DEVICE_TEST(input_that_is_not_whole_pages_is_an_error) {
    const bytes odd(page_size + 1, 0);
    BOOST_CHECK_THROW(cz::compress_pages(dev.ctx(), odd), vyre::format_error);
    const cz::compressed_pages none = cz::compress_pages(dev.ctx(), bytes{});
    BOOST_CHECK(none.records.empty());
}

// ---- the page file ----------------------------------------------------------------------------

namespace {
bytes page_file_of(const bytes& batch) {
    const expected_pages e = oracle(batch);
    return vyre::format::write_page_file(page_size, std::span<const ref::page_record>(e.records), [&](std::size_t i) {
        return std::span<const std::uint8_t>(e.slots).subspan(i * page_size, e.records[i].length);
    });
}
} // namespace

BOOST_AUTO_TEST_CASE(page_file_round_trips_on_the_cpu) {
    std::mt19937_64 rng(21);
    const bytes batch = make_batch(rng, 60);
    const bytes file = page_file_of(batch);
    const auto v = vyre::format::parse_page_file(file);
    BOOST_CHECK_EQUAL(v.records.size(), 60u);
    bytes out(static_cast<std::size_t>(v.content_bytes()));
    vyre::engine::decompress_page_file_host(v, out);
    BOOST_CHECK(out == batch);
    const auto empty = vyre::format::parse_page_file(page_file_of(bytes{}));
    BOOST_CHECK(empty.records.empty());
}

// Every hostile variation is a format_error, never a crash or a large allocation.
BOOST_AUTO_TEST_CASE(hostile_page_files_are_rejected) {
    std::mt19937_64 rng(22);
    const bytes good = page_file_of(make_batch(rng, 12));
    const auto put = [](bytes f, std::size_t at, std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) f[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
        return f;
    };
    std::vector<std::pair<std::string, bytes>> bad = {
        {"empty", bytes{}},
        {"short header", bytes(good.begin(), good.begin() + 20)},
        {"magic", put(good, 0, 0x12345678, 4)},
        {"version", put(good, 4, 2, 2)},
        {"header size", put(good, 6, 64, 2)},
        {"page size 0", put(good, 8, 0, 4)},
        {"page size 3000", put(good, 8, 3000, 4)},
        {"page size 512", put(good, 8, 512, 4)},
        {"page size 32768", put(good, 8, 32768, 4)},
        {"page size 4097", put(good, 8, 4097, 4)},
        {"flags", put(good, 12, 1, 4)},
        {"count 2^62", put(good, 16, std::uint64_t{1} << 62, 8)},
        {"count 2^64-1", put(good, 16, ~std::uint64_t{0}, 8)},
        {"count + 1", put(good, 16, 13, 8)},
        {"block bytes", put(good, 24, 5, 8)},
        {"truncated", bytes(good.begin(), good.end() - 1)},
        {"trailing byte", [&] { bytes f = good; f.push_back(0); return f; }()},
        {"kind 3", put(good, 32 + 4, 3, 4)},
        {"stored length", put(put(good, 32, 100, 4), 32 + 4, 1, 4)},
        {"fill on a compressed page", put(good, 32 + 8 * 3 + 4, 0x100, 4)},
        {"length 2^32-1", put(good, 32, 0xFFFFFFFFu, 4)},
    };
    for (const auto& item : bad) {
        const auto& f = item.second; // not a structured binding: the lambda captures it
        BOOST_CHECK_MESSAGE([&] {
            try {
                vyre::format::parse_page_file(f);
            } catch (const vyre::format_error&) {
                return true;
            }
            return false;
        }(), "not rejected: " << item.first);
    }
    // A block whose bytes are corrupt parses, but does not decode.
    bytes corrupt = good;
    const auto v = vyre::format::parse_page_file(good);
    for (std::size_t i = 0; i < v.records.size(); ++i)
        if (v.records[i].kind() == ref::page_kind::compressed) {
            const std::size_t at = static_cast<std::size_t>(v.blocks.data() - good.data() + v.offsets[i]);
            corrupt[at] = 0xFF;                    // token: 15 literals + extension
            corrupt[at + 1] = 0xFF;                // a long literal run past the block
            break;
        }
    bytes out(static_cast<std::size_t>(v.content_bytes()));
    BOOST_CHECK_THROW(vyre::engine::decompress_page_file_host(vyre::format::parse_page_file(corrupt), out), vyre::format_error);
}

namespace {
// A valid page file of `count` same_fill pages of `page_size` bytes: 32 + 8 * count bytes that
// decode to count * page_size (2048 times the table for 16 KiB pages).
bytes same_fill_page_file(std::uint32_t page_size, std::size_t count) {
    const std::vector<ref::page_record> records(count, ref::make_page_record(0, ref::page_kind::same_fill, 0xAB));
    return vyre::format::write_page_file(page_size, std::span<const ref::page_record>(records),
                                         [](std::size_t) { return std::span<const std::uint8_t>(); });
}
} // namespace

// A small file whose table declares more content than the caller's limit is refused before the
// output is allocated, on the CPU path; at the limit it decodes.
BOOST_AUTO_TEST_CASE(page_file_content_above_the_output_limit_is_refused) {
    const std::size_t count = 4096; // 32 KiB of table -> 64 MiB of content
    const bytes file = same_fill_page_file(16384, count);
    BOOST_REQUIRE_EQUAL(file.size(), 32u + 8u * count);
    const auto v = vyre::format::parse_page_file(file);
    BOOST_REQUIRE_EQUAL(v.content_bytes(), std::uint64_t{count} * 16384);
    const std::uint64_t limit = 1 << 20;
    BOOST_CHECK_THROW(vyre::format::check_page_file_output(v, limit), vyre::resource_error);
    try {
        vyre::engine::decompress_page_file_host(v, limit);
        BOOST_ERROR("a page file of " << v.content_bytes() << " bytes decoded under a limit of " << limit);
    } catch (const vyre::resource_error& e) {
        const std::string what = e.what();
        BOOST_CHECK_MESSAGE(what.find(std::to_string(v.content_bytes())) != std::string::npos &&
                                what.find(std::to_string(limit)) != std::string::npos,
                            "the message names neither the content size nor the limit: " << what);
    }
    // Exactly at the limit: decodes.
    const bytes small = same_fill_page_file(16384, 64);
    const auto sv = vyre::format::parse_page_file(small);
    const bytes out = vyre::engine::decompress_page_file_host(sv, sv.content_bytes());
    BOOST_CHECK_EQUAL(out.size(), sv.content_bytes());
    BOOST_CHECK(std::all_of(out.begin(), out.end(), [](std::uint8_t b) { return b == 0xAB; }));
    BOOST_CHECK_THROW(vyre::engine::decompress_page_file_host(sv, sv.content_bytes() - 1), vyre::resource_error);
}

// Shapes whose loops would not cover the page are refused (workgroup above a quarter of the page
// size: the load loop would run zero times and record an empty page as same_fill).
BOOST_AUTO_TEST_CASE(invalid_program_shapes_throw) {
    BOOST_CHECK_THROW(cz::lz4_pages_program(1024, 256), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_pages_program(4096, 1024), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_pages_program(4096, 16), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_pages_program(4096, 96), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_pages_program(3000, 32), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_pages_program(32768, 32), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_pages_program(512, 32), vyre::resource_error);
    for (std::uint32_t w : {32u, 64u, 128u})
        for (std::uint32_t ps : {1024u, 4096u, 16384u}) BOOST_CHECK_NO_THROW(vyre::ir::validate(cz::lz4_pages_program(ps, w)));
    BOOST_CHECK_THROW(cz::lz4_pages_kernel_for(8192), vyre::resource_error);
    BOOST_CHECK_THROW(cz::lz4_pages_kernel_for(4096, 48), vyre::resource_error);
    BOOST_CHECK_EQUAL(cz::lz4_pages_workgroup_bytes(4096), 13076u);
    BOOST_CHECK_EQUAL(cz::lz4_pages_workgroup_bytes(4096, 128), 4u * (1024 + 2048 + 6 * 128 + 16 + 1));
}

// Device records are checked before their lengths index the slots.
BOOST_AUTO_TEST_CASE(invalid_device_records_throw) {
    constexpr std::uint32_t ps = page_size;
    const auto rec = [](std::uint32_t length, std::uint32_t flags) { return ref::page_record{length, flags}; };
    BOOST_CHECK_NO_THROW(cz::check_lz4_pages_record(rec(100, 0), ps, 0));
    BOOST_CHECK_NO_THROW(cz::check_lz4_pages_record(rec(ps, 1), ps, 0));
    BOOST_CHECK_NO_THROW(cz::check_lz4_pages_record(rec(0, 2 | 0x7F00), ps, 0));
    for (const auto& bad : {rec(ps + 1, 0), rec(ps, 0), rec(0, 0), rec(100, 1), rec(0xFFFFFFFFu, 1), rec(5, 2), rec(0, 3), rec(100, 0x100),
                            rec(0, 0x10002)})
        BOOST_CHECK_THROW(cz::check_lz4_pages_record(bad, ps, 7), vyre::error);
}

VYRE_DEVICE_TEST(page_file_above_the_output_limit_is_refused_on_the_device) {
    const bytes file = same_fill_page_file(16384, 4096);
    const auto v = vyre::format::parse_page_file(file);
    BOOST_CHECK_THROW(vyre::engine::decompress_page_file(dev.ctx(), v, 1 << 20), vyre::resource_error);
    const bytes small = same_fill_page_file(16384, 4);
    const auto sv = vyre::format::parse_page_file(small);
    BOOST_CHECK_EQUAL(vyre::engine::decompress_page_file(dev.ctx(), sv, sv.content_bytes()).size(), sv.content_bytes());
}

VYRE_DEVICE_TEST(page_file_decodes_on_the_device) {
    std::mt19937_64 rng(23);
    const bytes batch = make_batch(rng, 70);
    const bytes file = page_file_of(batch);
    const auto v = vyre::format::parse_page_file(file);
    BOOST_CHECK(vyre::engine::decompress_page_file(dev.ctx(), v) == batch);
}

// ---- the engine: both backends, the measured crossover ------------------------------------------

VYRE_DEVICE_TEST(page_compressor_backends_round_trip) {
    std::mt19937_64 rng(31);
    const bytes batch = make_batch(rng, 300);
    vyre::engine::page_compressor_options o;
    o.chunk_pages = 64; // several chunks, more than in flight: the pipeline reuses its buffers
    o.in_flight = 2;
    vyre::engine::page_compressor pc(dev.ctx(), o);
    const expected_pages want = oracle(batch);
    for (const auto& r : {pc.compress_device(batch), pc.compress_cpu(batch)}) {
        BOOST_TEST_CONTEXT("backend " << vyre::engine::page_backend_name(r.backend)) {
            BOOST_REQUIRE_EQUAL(r.records.size(), 300u);
            for (std::size_t i = 0; i < r.records.size(); ++i) check_decodes(batch, i, r.records[i], r.block(i));
            if (r.backend == vyre::engine::page_backend::device)
                for (std::size_t i = 0; i < r.records.size(); ++i) {
                    BOOST_CHECK(r.records[i] == want.records[i]);
                    BOOST_CHECK(std::equal(r.block(i).begin(), r.block(i).end(), want.slots.begin() + static_cast<std::ptrdiff_t>(i * page_size)));
                }
        }
    }
    // The automatic chunk (4,500 pages: chunks of 2,048, the last shorter) and one result reused
    // across batches of other sizes (its memory faulted in ahead of the blocks, then trimmed) give
    // exactly the bytes of fresh results.
    {
        const bytes big = make_batch(rng, 4500);
        vyre::engine::page_compressor pipe(dev.ctx());
        const auto fresh_big = pipe.compress_device(big);
        const auto fresh_small = pipe.compress_device(batch);
        const auto same = [](const vyre::engine::packed_pages& a, const vyre::engine::packed_pages& b) {
            return a.records == b.records && a.offsets == b.offsets && a.data.size() == b.data.size() &&
                   std::equal(a.data.begin(), a.data.end(), b.data.begin());
        };
        std::uint64_t sum = 0;
        for (const auto& rc : fresh_big.records) sum += rc.length;
        BOOST_TEST(fresh_big.data.size() == sum);
        // Every page against the CPU oracle, so that the reused results below are held to it too.
        const expected_pages want_big = oracle(big);
        std::size_t differ = 0;
        for (std::size_t i = 0; i < fresh_big.records.size(); ++i)
            if (!(fresh_big.records[i] == want_big.records[i]) ||
                !std::equal(fresh_big.block(i).begin(), fresh_big.block(i).end(),
                            want_big.slots.begin() + static_cast<std::ptrdiff_t>(i * page_size)))
                ++differ;
        BOOST_TEST(differ == 0u);
        vyre::engine::packed_pages reused = pipe.compress_device(batch);
        pipe.compress_device(big, reused);
        BOOST_TEST(same(reused, fresh_big));
        pipe.compress_device(batch, reused);
        BOOST_TEST(same(reused, fresh_small));
        // The timeline: one record per chunk, in page order, each chunk's steps in its queue's order.
        vyre::engine::page_compressor_options to;
        to.timeline = true;
        vyre::engine::page_compressor timed(dev.ctx(), to);
        BOOST_TEST(same(timed.compress_device(big), fresh_big));
        const auto& steps = timed.timeline();
        BOOST_TEST_REQUIRE(steps.size() == 3u);
        for (std::size_t c = 0; c < steps.size(); ++c) {
            const auto& t = steps[c];
            BOOST_TEST(t.first == c * 2048);
            BOOST_TEST(t.pages == (c < 2 ? 2048u : 4500u - 4096u));
            BOOST_TEST(t.upload[0] <= t.upload[1]);
            BOOST_TEST(t.upload[1] <= t.kernel[0]);
            BOOST_TEST(t.kernel[0] <= t.kernel[1]);
            BOOST_TEST(t.kernel[1] <= t.readback[0]);
            BOOST_TEST(t.readback[0] <= t.readback[1]);
        }
    }
    // automatic: measures both on the first batch and picks by size.
    vyre::engine::page_compressor automatic(dev.ctx());
    const auto r = automatic.compress(bytes(batch.begin(), batch.begin() + 40 * page_size));
    const auto& c = automatic.calibration();
    BOOST_CHECK(c.measured);
    BOOST_CHECK_GT(c.cpu_page_s, 0.0);
    BOOST_CHECK_GT(c.device_page_s, 0.0);
    BOOST_TEST_MESSAGE(dev.label() << ": cpu " << c.cpu_fixed_s * 1e6 << " us + " << c.cpu_page_s * 1e6 << " us/page; device "
                                   << c.device_fixed_s * 1e6 << " us + " << c.device_page_s * 1e6 << " us/page; crossover " << c.crossover_pages);
    BOOST_CHECK(r.backend == (40 >= c.crossover_pages ? vyre::engine::page_backend::device : vyre::engine::page_backend::cpu));
    for (std::size_t i = 0; i < r.records.size(); ++i) check_decodes(batch, i, r.records[i], r.block(i));
}

VYRE_TEST_MAIN
