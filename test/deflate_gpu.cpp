// compression.deflate on every device, both variants (one stream per invocation, one per subgroup)
// and the subgroups emulated: hand-built streams reaching every status code and every corner of
// RFC 1951 (stored blocks, empty streams, 258-byte matches, distance 32768, 15-bit codes, fixed
// and dynamic blocks, incomplete codes zlib allows), parity with the CPU oracle (bytes and
// statuses) and of the oracle with zlib and libdeflate on streams written by zlib (every level and
// strategy), libdeflate (levels 1-12) and the gzip tool, seeded mutations with guard bytes around
// every output region, hostile descriptors, determinism, and the IR programs on the interpreter.
#include "block_batch.hpp"
#include "block_bindings.hpp"
#include "deflate_writers.hpp"
#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/format/deflate_split.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/ops/compression/deflate_split.hpp>
#include <vyre/reference/deflate.hpp>
#include <vyre/reference/interpreter.hpp>

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace vyre::compression {
std::ostream& operator<<(std::ostream& os, const block_status& s) {
    return os << "{" << deflate_error_name(s.code) << ", " << s.output_size << "}";
}
} // namespace vyre::compression
namespace vyre::ops {
std::ostream& operator<<(std::ostream& os, block_variant v) { return os << block_variant_name(v); }
} // namespace vyre::ops

namespace {

namespace cz = vyre::ops::compression;
namespace vc = vyre::compression;
namespace vo = vyre::ops;
namespace de = vyre::compression::deflate_error;
namespace ref = vyre::reference;
namespace rt = vyre::runtime;
using bytes = std::vector<std::uint8_t>;
using vyre::test::libdeflate_deflate;
using vyre::test::zlib_deflate;
using vyre::test::random_bytes;
using vyre::test::repetitive_bytes;
using vyre::test::system_corpus;
using vyre::test::text_bytes;

constexpr std::uint8_t canary = vyre::test::block_canary;

// ---- writing streams ------------------------------------------------------------------------------

// zlib's raw inflate of `in` into at most `cap` bytes: the bytes, or nothing where zlib reports an
// error, a stream that does not end, or more than `cap` bytes.
std::optional<bytes> zlib_inflate(const bytes& in, std::size_t cap) {
    z_stream s{};
    if (inflateInit2(&s, -15) != Z_OK) return std::nullopt;
    bytes out(cap + 1);
    s.next_in = const_cast<Bytef*>(in.data());
    s.avail_in = static_cast<uInt>(in.size());
    s.next_out = out.data();
    s.avail_out = static_cast<uInt>(out.size());
    const int r = inflate(&s, Z_FINISH);
    const std::size_t n = s.total_out;
    inflateEnd(&s);
    if (r != Z_STREAM_END || n > cap) return std::nullopt;
    out.resize(n);
    return out;
}

// Bits least significant first, as DEFLATE packs them; Huffman codes go most significant bit first.
struct bit_writer {
    bytes out;
    std::uint32_t used = 0; // bits used in the last byte
    void put(std::uint32_t value, std::uint32_t count) {
        for (std::uint32_t i = 0; i < count; ++i) {
            if (used == 0) out.push_back(0);
            out.back() |= static_cast<std::uint8_t>(((value >> i) & 1u) << used);
            used = (used + 1) & 7;
        }
    }
    void code(std::uint32_t value, std::uint32_t length) {
        for (std::uint32_t i = length; i > 0; --i) put((value >> (i - 1)) & 1u, 1);
    }
    void align() { used = 0; }
    void raw(const bytes& b) {
        align();
        out.insert(out.end(), b.begin(), b.end());
    }
};

// The fixed code (RFC 1951 3.2.6).
void fixed_symbol(bit_writer& w, std::uint32_t s) {
    if (s < 144) w.code(0x30 + s, 8);
    else if (s < 256) w.code(0x190 + s - 144, 9);
    else if (s < 280) w.code(s - 256, 7);
    else w.code(0xC0 + s - 280, 8);
}
void fixed_distance(bit_writer& w, std::uint32_t symbol) { w.code(symbol, 5); }

// A match of `length` at `distance` in the fixed code.
void fixed_match(bit_writer& w, std::uint32_t length, std::uint32_t distance) {
    std::uint32_t li = 0;
    while (li + 1 < 29 && vc::deflate_length_base(li + 1) <= length) ++li;
    fixed_symbol(w, 257 + li);
    w.put(length - vc::deflate_length_base(li), vc::deflate_length_extra(li));
    std::uint32_t di = 0;
    while (di + 1 < 30 && vc::deflate_distance_base(di + 1) <= distance) ++di;
    fixed_distance(w, di);
    w.put(distance - vc::deflate_distance_base(di), vc::deflate_distance_extra(di));
}

void stored_block(bit_writer& w, const bytes& data, bool final) {
    w.put(final, 1);
    w.put(0, 2);
    w.align();
    const auto n = static_cast<std::uint32_t>(data.size());
    w.put(n, 16);
    w.put(~n & 0xFFFF, 16);
    w.raw(data);
}

// A dynamic block header with the given code-length code lengths (19, in symbol order) and the
// literal/length + distance lengths written with it (each a code-length symbol and its extra bits).
struct dynamic_header {
    std::uint32_t hlit = 257, hdist = 1;
    std::vector<std::uint32_t> clc_lengths = std::vector<std::uint32_t>(19, 0);
};
void put_dynamic_header(bit_writer& w, bool final, const dynamic_header& h) {
    w.put(final, 1);
    w.put(2, 2);
    w.put(h.hlit - 257, 5);
    w.put(h.hdist - 1, 5);
    w.put(19 - 4, 4);
    for (std::uint32_t i = 0; i < 19; ++i) w.put(h.clc_lengths[vc::deflate_code_length_order[i]], 3);
}

// ---- batches: many streams in one dispatch, each output region framed by canary bytes (test/block_batch.hpp)

using stream_case = vyre::test::block_case;
using batch = vyre::test::block_batch;
using run_result = vyre::test::block_run;
using vyre::test::guards_intact;
using vyre::test::pack;
using vyre::test::run_device;

const auto oracle = [](const auto& input, const auto& blocks, auto& output) { return ref::deflate_decompress(input, blocks, output); };

run_result run_reference(const batch& b) { return vyre::test::run_reference(b, oracle); }

// Every status and every byte of the output buffer against the oracle.
run_result check_batch(rt::context& ctx, const vo::block_kernel& kernel, const batch& b) {
    return vyre::test::check_batch(ctx, kernel, b, oracle);
}

// The kernels every device runs: both variants as the op builds them for it, and the fast one with
// its subgroups emulated (a whole workgroup of 32 for one stream).
struct named_kernel {
    std::string name;
    const vo::block_kernel* kernel;
};
std::vector<named_kernel> kernels_for(const rt::device_info& device) {
    static const vo::block_kernel emulated =
        cz::deflate_op::kernel(vo::block_variant::fast, 1, vyre::lower::subgroup_lowering::emulated);
    std::vector<named_kernel> k = {{"reference", &vo::kernel_for<cz::deflate_op>(vo::block_variant::reference, device)},
                                   {"fast", &vo::kernel_for<cz::deflate_op>(vo::block_variant::fast, device)}};
    if (vyre::runtime::native_subgroups(device) != vyre::lower::subgroup_lowering::emulated)
        k.push_back({"fast, subgroups emulated", &emulated});
    return k;
}

void check_everywhere(vyre::test::device_case& dev, const batch& b) {
    for (const auto& [name, kernel] : kernels_for(dev.ctx().device()))
        BOOST_TEST_CONTEXT("program " << name) { check_batch(dev.ctx(), *kernel, b); }
}

// ---- hand-built streams: every status code, every corner -----------------------------------------

std::vector<stream_case> conformance_cases(std::vector<vc::block_status>& expected) {
    std::vector<stream_case> cases;
    const auto add = [&](bytes s, std::uint32_t capacity, vc::block_status want, std::uint32_t flags = 0) {
        cases.push_back({std::move(s), capacity, flags});
        expected.push_back(want);
    };
    const auto ok = [](std::size_t n) { return vc::block_status{de::none, static_cast<std::uint32_t>(n)}; };
    const auto fail = [](std::uint32_t code, std::size_t n) { return vc::block_status{code, static_cast<std::uint32_t>(n)}; };
    const bytes hello = vyre::test::to_bytes("hello, hello, hello deflate");
    {   // empty streams: a final empty stored block, a final fixed block with only end-of-block
        bit_writer w;
        stored_block(w, {}, true);
        add(w.out, 0, ok(0));
        bit_writer f;
        f.put(1, 1), f.put(1, 2), fixed_symbol(f, 256);
        add(f.out, 0, ok(0));
        add(f.out, 10, ok(0));
    }
    {   // stored blocks, then a fixed one with literals and an overlapping match, all in one stream
        bit_writer w;
        stored_block(w, hello, false);
        stored_block(w, {}, false);
        w.put(1, 1), w.put(1, 2);
        for (char c : std::string("ab")) fixed_symbol(w, static_cast<std::uint8_t>(c));
        fixed_match(w, 10, 2); // "abababababab"
        fixed_symbol(w, 256);
        add(w.out, static_cast<std::uint32_t>(hello.size() + 12), ok(hello.size() + 12));
        add(w.out, static_cast<std::uint32_t>(hello.size() + 11), fail(de::output_overflow, hello.size() + 2));
        add(w.out, static_cast<std::uint32_t>(hello.size()), fail(de::output_overflow, hello.size()));
        add(w.out, 3, fail(de::output_overflow, 0));
        add(bytes(w.out.begin(), w.out.end() - 1), 100, fail(de::input_overrun, hello.size() + 12));
    }
    {   // 258-byte matches at distance 32768, after 32768 stored bytes
        std::mt19937_64 rng(3);
        const bytes first = random_bytes(rng, 32768);
        bit_writer w;
        stored_block(w, first, false);
        w.put(1, 1), w.put(1, 2);
        fixed_match(w, 258, 32768);
        fixed_match(w, 258, 32768);
        fixed_match(w, 3, 1);
        fixed_symbol(w, 256);
        add(w.out, 32768 + 519, ok(32768 + 519));
        // A distance at most the bytes written so far, then one past them.
        bit_writer far;
        stored_block(far, bytes(first.begin(), first.begin() + 100), false);
        far.put(1, 1), far.put(1, 2);
        fixed_match(far, 3, 100);
        fixed_symbol(far, 'x');
        fixed_match(far, 5, 104);
        fixed_match(far, 5, 110);
        fixed_symbol(far, 256);
        add(far.out, 40000, fail(de::distance_too_far, 109));
    }
    // bad block type; stored length mismatch; input ending in the header, in LEN, in the data
    add({0x07}, 10, fail(de::bad_block_type, 0));
    {
        bit_writer w;
        w.put(1, 1), w.put(0, 2), w.align(), w.put(5, 16), w.put(0, 16), w.raw(hello);
        add(w.out, 100, fail(de::stored_length_mismatch, 0));
    }
    add({}, 10, fail(de::input_overrun, 0));
    add({0x01, 0x05}, 10, fail(de::input_overrun, 0));
    {
        bit_writer w;
        stored_block(w, hello, true);
        add(bytes(w.out.begin(), w.out.begin() + 8), 100, fail(de::input_overrun, 0));
    }
    // Fixed code symbols that no length or distance has: 286, distance 30; distance too far.
    {
        bit_writer w;
        w.put(1, 1), w.put(1, 2), fixed_symbol(w, 'q'), fixed_symbol(w, 286), fixed_symbol(w, 256);
        add(w.out, 10, fail(de::invalid_symbol, 1));
        bit_writer d;
        d.put(1, 1), d.put(1, 2), fixed_symbol(d, 'q'), fixed_symbol(d, 'r'), fixed_symbol(d, 257), fixed_distance(d, 30),
            fixed_symbol(d, 256);
        add(d.out, 10, fail(de::invalid_symbol, 2));
        bit_writer f;
        f.put(1, 1), f.put(1, 2), fixed_symbol(f, 'q'), fixed_match(f, 3, 2), fixed_symbol(f, 256);
        add(f.out, 10, fail(de::distance_too_far, 1));
    }
    // Dynamic headers. A code-length code of 18 (7 extra bits) and 0..15 at 5 bits: complete.
    const auto full_clc = [] {
        dynamic_header h;
        // 13 codes of 4 bits and 6 of 5 bits: 13/16 + 6/32 = 1, a complete code.
        for (std::uint32_t s = 0; s < 19; ++s) h.clc_lengths[s] = s < 13 ? 4 : 5;
        return h;
    };
    {   // HLIT 287 and HDIST 31: bad_code_lengths before the code-length lengths are read
        bit_writer w;
        w.put(1, 1), w.put(2, 2), w.put(30, 5), w.put(0, 5), w.put(0, 4);
        add(w.out, 10, fail(de::bad_code_lengths, 0));
        bit_writer d;
        d.put(1, 1), d.put(2, 2), d.put(0, 5), d.put(30, 5), d.put(0, 4);
        add(d.out, 10, fail(de::bad_code_lengths, 0));
    }
    {   // the code-length code: over-subscribed, incomplete, empty
        dynamic_header over;
        over.clc_lengths.assign(19, 1);
        bit_writer w;
        put_dynamic_header(w, true, over);
        add(w.out, 10, fail(de::bad_code_lengths, 0));
        dynamic_header one;
        one.clc_lengths[8] = 1;
        bit_writer i;
        put_dynamic_header(i, true, one);
        add(i.out, 10, fail(de::incomplete_code, 0));
        bit_writer e;
        put_dynamic_header(e, true, dynamic_header{});
        add(e.out, 10, fail(de::incomplete_code, 0));
    }
    // The lengths, written with a complete code-length code where symbol s has code ... (canonical):
    // lengths 4 for 0..12, 5 for 13..18.
    const auto clc_code = [](std::uint32_t s) -> std::pair<std::uint32_t, std::uint32_t> {
        return s < 13 ? std::pair{s, 4u} : std::pair{26u + (s - 13), 5u};
    };
    const auto put_length = [&](bit_writer& w, std::uint32_t s) {
        const auto [c, l] = clc_code(s);
        w.code(c, l);
    };
    {
        const dynamic_header h = full_clc();
        // repeat 16 with nothing before it
        bit_writer r;
        put_dynamic_header(r, true, h);
        put_length(r, 16), r.put(0, 2);
        add(r.out, 10, fail(de::bad_code_lengths, 0));
        // a repeat past the last length (258 lengths: 18 x 138 + 18 x 120 + 17 x 3 > 258)
        bit_writer p;
        put_dynamic_header(p, true, h);
        put_length(p, 18), p.put(127, 7), put_length(p, 18), p.put(127, 7);
        add(p.out, 10, fail(de::bad_code_lengths, 0));
        // no end-of-block code: all 258 lengths zero
        bit_writer z;
        put_dynamic_header(z, true, h);
        put_length(z, 18), z.put(127, 7), put_length(z, 18), z.put(109, 7);
        add(z.out, 10, fail(de::bad_code_lengths, 0));
        // input ending inside the lengths
        add(bytes(z.out.begin(), z.out.end() - 2), 10, fail(de::input_overrun, 0));
        // Literal/length codes over-subscribed, symbols 0..2 and 256 at the lengths given (the
        // other literal/length symbols and the one distance length zero): all at length 1, and
        // across two lengths, whose table entries different lanes of the fast program would write.
        const auto over_subscribed = [&](std::uint32_t l0, std::uint32_t l1, std::uint32_t l2, std::uint32_t l256) {
            bit_writer o;
            put_dynamic_header(o, true, h);
            put_length(o, l0), put_length(o, l1), put_length(o, l2);
            put_length(o, 18), o.put(127, 7), put_length(o, 18), o.put(253 - 138 - 11, 7), put_length(o, l256);
            put_length(o, 0);
            add(o.out, 10, fail(de::bad_code_lengths, 0));
        };
        over_subscribed(1, 1, 1, 1);
        over_subscribed(1, 1, 2, 2);
        // literal/length code incomplete with codes of 2 bits: 'a' at 1, 256 at 2
        bit_writer i;
        put_dynamic_header(i, true, h);
        put_length(i, 18), i.put(97 - 11, 7), put_length(i, 1);
        put_length(i, 18), i.put(127, 7), put_length(i, 18), i.put(158 - 138 - 11, 7), put_length(i, 2);
        put_length(i, 0);
        add(i.out, 10, fail(de::incomplete_code, 0));
        // a single one-bit code for end-of-block and no distance code: allowed, an empty stream
        bit_writer s;
        put_dynamic_header(s, true, h);
        put_length(s, 18), s.put(127, 7), put_length(s, 18), s.put(256 - 138 - 11, 7), put_length(s, 1), put_length(s, 0);
        s.code(0, 1);
        add(s.out, 10, ok(0));
        // ... and then the unused half of that code: invalid_symbol
        bit_writer u;
        put_dynamic_header(u, true, h);
        put_length(u, 18), u.put(127, 7), put_length(u, 18), u.put(256 - 138 - 11, 7), put_length(u, 1), put_length(u, 0);
        u.code(1, 1), u.put(0, 16);
        add(u.out, 10, fail(de::invalid_symbol, 0));
        // 'a' and 256 at one bit each, one distance code of one bit: "a", then a match with it
        bit_writer m;
        put_dynamic_header(m, true, [&] {
            dynamic_header x = h;
            x.hlit = 258;
            return x;
        }());
        put_length(m, 18), m.put(97 - 11, 7), put_length(m, 1);
        put_length(m, 18), m.put(127, 7), put_length(m, 18), m.put(158 - 138 - 11, 7); // up to 255
        put_length(m, 1), put_length(m, 1), put_length(m, 1);                          // 256, 257, distance 0
        // that is 3 codes of 1 bit: over-subscribed
        add(m.out, 10, fail(de::bad_code_lengths, 0));
    }
    // Stored flag: copied verbatim.
    add(hello, static_cast<std::uint32_t>(hello.size()), ok(hello.size()), vc::block_flag_uncompressed);
    add(hello, 3, fail(de::output_overflow, 0), vc::block_flag_uncompressed);
    return cases;
}

// The longest codes: 26 symbols with Fibonacci frequencies would need codes of 25 bits, so zlib's
// Huffman-only coder must limit them to its 15 (checked below).
bytes skewed_bytes() {
    bytes out;
    std::uint64_t a = 1, b = 1;
    for (std::uint8_t s = 0; s < 26; ++s) {
        out.insert(out.end(), a, s);
        const std::uint64_t c = a + b;
        a = b, b = c;
    }
    std::mt19937_64 rng(9);
    std::shuffle(out.begin(), out.end(), rng);
    return out;
}

// The longest literal/length code of a stream's first block, when it is dynamic (0 otherwise).
std::uint32_t longest_literal_code(const bytes& stream) {
    ref::detail::deflate_reader r(stream);
    std::uint32_t last = 0, type = 0, nlen = 0, ndist = 0, ncode = 0;
    if (!r.take(1, last) || !r.take(2, type) || type != 2 || !r.take(5, nlen) || !r.take(5, ndist) || !r.take(4, ncode)) return 0;
    nlen += 257, ndist += 1, ncode += 4;
    std::uint8_t clc[19] = {}, lengths[320] = {};
    for (std::uint32_t i = 0; i < ncode; ++i) {
        std::uint32_t v = 0;
        r.take(3, v);
        clc[vc::deflate_code_length_order[i]] = static_cast<std::uint8_t>(v);
    }
    ref::detail::deflate_code h;
    ref::detail::build_deflate_code(h, clc, 19);
    for (std::uint32_t i = 0; i < nlen + ndist;) {
        std::uint32_t s = 0, repeat = 0, value = 0;
        if (r.decode(h, s) != de::none) return 0;
        if (s < 16) {
            lengths[i++] = static_cast<std::uint8_t>(s);
            continue;
        }
        if (s == 16) r.take(2, repeat), repeat += 3, value = i == 0 ? 0 : lengths[i - 1];
        else if (s == 17) r.take(3, repeat), repeat += 3;
        else r.take(7, repeat), repeat += 11;
        for (std::uint32_t k = 0; k < repeat && i < nlen + ndist; ++k) lengths[i++] = static_cast<std::uint8_t>(value);
    }
    return *std::max_element(lengths, lengths + nlen);
}

} // namespace

BOOST_AUTO_TEST_SUITE(deflate_oracle)

// The CPU oracle is the definition the device programs are held to: check it first, alone.
BOOST_AUTO_TEST_CASE(hand_built_streams_give_the_documented_statuses) {
    std::vector<vc::block_status> expected;
    const auto cases = conformance_cases(expected);
    for (std::size_t i = 0; i < cases.size(); ++i)
        BOOST_TEST_CONTEXT("case " << i) {
            bytes out(cases[i].capacity, canary);
            const auto got = ref::deflate_decode_block(cases[i].block, out, cases[i].flags);
            BOOST_TEST(got == expected[i]);
        }
}

// Streams every common writer makes decode to the original, and the oracle agrees with zlib and
// libdeflate on what each stream is.
BOOST_AUTO_TEST_CASE(parity_with_zlib_and_libdeflate) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0xdef1a7e);
    const std::vector<bytes> inputs = {system_corpus(300000), text_bytes(rng, 70000), repetitive_bytes(rng, 50000), random_bytes(rng, 40000),
                                       skewed_bytes(), bytes(100000, 'z'), {}};
    libdeflate_decompressor* ld = libdeflate_alloc_decompressor();
    int streams = 0;
    const auto check = [&](const bytes& original, const bytes& stream, const std::string& writer) {
        BOOST_TEST_CONTEXT(writer << ", " << original.size() << " bytes") {
            bytes out(original.size(), canary);
            const auto m = ref::deflate_inflate(stream, out);
            BOOST_TEST(m.status == (vc::block_status{de::none, static_cast<std::uint32_t>(original.size())}));
            BOOST_TEST(m.input_position == stream.size());
            BOOST_TEST((out == original));
            bytes lib(original.size());
            std::size_t n = 0;
            BOOST_TEST(libdeflate_deflate_decompress(ld, stream.data(), stream.size(), lib.data(), lib.size(), &n) == LIBDEFLATE_SUCCESS);
            BOOST_TEST((n == original.size() && lib == original));
            ++streams;
        }
    };
    for (const bytes& original : inputs) {
        for (int level = 0; level <= 9; ++level)
            for (int strategy : {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED})
                check(original, zlib_deflate(original, level, strategy, level % 3 == 0 ? 1 : 9),
                      "zlib level " + std::to_string(level) + " strategy " + std::to_string(strategy));
        for (int level = 1; level <= 12; ++level) check(original, libdeflate_deflate(original, level), "libdeflate level " + std::to_string(level));
    }
    libdeflate_free_decompressor(ld);
    BOOST_TEST(streams == 7 * (50 + 12));
}

// Corrupt streams: where zlib inflates a stream completely, the oracle gives the same bytes, and
// where zlib refuses one, the oracle refuses it too.
BOOST_AUTO_TEST_CASE(mutations_agree_with_zlib) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x2a);
    std::vector<std::pair<bytes, bytes>> sources;
    for (std::size_t n : {0u, 30u, 500u, 4000u, 40000u})
        for (const bytes& original : {text_bytes(rng, n), repetitive_bytes(rng, n), random_bytes(rng, n / 8)})
            for (int level : {1, 6, 9}) sources.emplace_back(original, zlib_deflate(original, level, level == 1 ? Z_FIXED : Z_DEFAULT_STRATEGY));
    int agreed = 0, accepted = 0;
    for (int it = 0; it < 6000; ++it) {
        const auto& [original, stream] = sources[rng() % sources.size()];
        bytes m = stream.empty() ? bytes{0} : stream;
        switch (rng() % 3) {
        case 0:
            for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) m[rng() % m.size()] ^= std::uint8_t(1u << (rng() % 8));
            break;
        case 1: m.resize(rng() % m.size()); break;
        default: m[rng() % m.size()] = static_cast<std::uint8_t>(rng()); break;
        }
        const std::size_t cap = original.size() + 64;
        bytes out(cap, 0);
        const auto ours = ref::deflate_inflate(m, out);
        const auto theirs = zlib_inflate(m, cap);
        const bool same = ours.status.code == de::none ? theirs && out.size() >= ours.status.output_size &&
                                                             std::equal(theirs->begin(), theirs->end(), out.begin()) &&
                                                             theirs->size() == ours.status.output_size
                                                       : !theirs.has_value();
        if (!same) BOOST_ERROR("mutation " << it << ": oracle " << vc::deflate_error_name(ours.status.code) << " after "
                                           << ours.status.output_size << " bytes, zlib " << (theirs ? "inflates it" : "refuses it"));
        agreed += same;
        accepted += ours.status.code == de::none;
    }
    BOOST_TEST(agreed == 6000);
    BOOST_TEST(accepted > 0);
}

// The split points the host finds for compression.deflate.pieces (test/deflate_split.cpp) are block
// starts: zlib's own trace of each stream says where its blocks start.
BOOST_AUTO_TEST_CASE(split_points_are_block_starts) {
    for (const vyre::test::stream_case& c : vyre::test::split_test_streams(600000)) {
        BOOST_TEST_CONTEXT(c.name) {
            const auto truth = vyre::test::zlib_block_starts(c.stream, c.data.size());
            const auto points = vyre::format::deflate_split_points(c.stream, vyre::test::split_piece_bytes, 2);
            BOOST_TEST_REQUIRE(!points.empty());
            BOOST_TEST(points.front() == 0u);
            BOOST_TEST(std::is_sorted(points.begin(), points.end()));
            for (const std::uint64_t p : points) BOOST_TEST(std::binary_search(truth.begin(), truth.end(), p), "bit " << p);
            if (c.dynamic) BOOST_TEST(points.size() > 2u);
            else BOOST_TEST(points.size() == 1u);
        }
    }
    // Nothing to find in nothing, or in a stream shorter than a piece.
    BOOST_TEST(vyre::format::deflate_split_points({}, vyre::test::split_piece_bytes).size() == 1u);
    BOOST_TEST(!vyre::format::find_deflate_block({}, 0, 1000).has_value());
}

namespace {

// The u32 words of a little-endian buffer, and back.
std::vector<std::uint32_t> words_of(const vyre::reference::buffer_data& b) {
    std::vector<std::uint32_t> w(b.size() / 4);
    std::memcpy(w.data(), b.data(), w.size() * 4);
    return w;
}
vyre::reference::buffer_data buffer_of(const std::vector<std::uint32_t>& w) {
    vyre::reference::buffer_data b(w.size() * 4);
    std::memcpy(b.data(), w.data(), b.size());
    return b;
}

// Text in many small blocks: zlib with memLevel 1 ends a block every 128 symbols.
bytes small_block_stream(const bytes& text) { return vyre::test::zlib_deflate(text, 6, Z_DEFAULT_STRATEGY, 1); }

} // namespace

// compression.deflate.block_starts on the reference interpreter (its own order of invocations,
// its bounds and race checks) gives the host finder's points; the bytes past the stream in its
// buffer (0x5A here) change nothing.
BOOST_AUTO_TEST_CASE(block_starts_on_the_interpreter) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0xb5);
    const bytes text = system_corpus(60000);
    const std::vector<std::pair<std::string, bytes>> streams{{"zlib level 6, small blocks", small_block_stream(text)},
                                                             {"libdeflate level 1", vyre::test::libdeflate_deflate(text, 1)},
                                                             {"random bytes", vyre::test::random_bytes(rng, 5000)}};
    std::size_t found = 0;
    for (const auto& [name, stream] : streams)
        for (const std::uint32_t window : {700u, 2048u}) {
            BOOST_TEST_CONTEXT(name << ", windows of " << window) {
                const auto n = static_cast<std::uint32_t>(stream.size());
                std::vector<std::uint64_t> host;
                for (std::uint64_t at = window; at < n; at += window)
                    if (const auto b = vyre::format::find_deflate_block(stream, at * 8, std::min<std::uint64_t>(n, at + window) * 8)) host.push_back(*b);
                const std::uint32_t windows = (n - window + window - 1) / window;
                std::vector<vyre::reference::buffer_data> buffers(4);
                buffers[0] = stream;
                buffers[0].resize(vyre::runtime::padded_bytes(stream.size()), 0x5A);
                buffers[1] = buffer_of(std::vector<std::uint32_t>(windows, cz::deflate_no_block_start));
                std::vector<std::uint32_t> described;
                for (const auto& w : cz::deflate_search_windows(window, n, window, n)) described.insert(described.end(), {w.first, w.bytes, w.stream_end});
                buffers[2] = buffer_of(described);
                buffers[3] = buffer_of({windows});
                vyre::reference::run(cz::deflate_block_starts_program(), {windows, 1, 1}, buffers, vyre::reference::run_options::checking_races());
                const auto points_of = [&](const std::vector<std::uint32_t>& slots) {
                    std::vector<std::uint64_t> got;
                    for (std::uint32_t w = 0; w < windows; ++w)
                        if (slots[w] != cz::deflate_no_block_start) got.push_back(std::uint64_t{window} * (w + 1) * 8 + slots[w]);
                    return got;
                };
                BOOST_TEST(points_of(words_of(buffers[1])) == host, boost::test_tools::per_element());
                found += host.size();
                // The two programs the search runs by default: the candidates listed, then checked.
                const std::uint32_t capacity = n / 4 + 16; // one per 32 bits: never passed here
                std::vector<vyre::reference::buffer_data> list(4);
                list[0] = buffers[0];
                list[1] = buffer_of(std::vector<std::uint32_t>(1 + 2 * capacity, 0));
                list[2] = buffers[2];
                list[3] = buffer_of({windows, capacity});
                vyre::reference::run(cz::deflate_block_candidates_program(), {windows, 1, 1}, list, vyre::reference::run_options::checking_races());
                const auto listed = words_of(list[1]);
                BOOST_REQUIRE(listed[0] <= capacity);
                std::vector<vyre::reference::buffer_data> check(5);
                check[0] = buffers[0];
                check[1] = buffer_of(std::vector<std::uint32_t>(windows, cz::deflate_no_block_start));
                check[2] = buffers[2];
                check[3] = buffer_of({listed[0]});
                check[4] = list[1];
                vyre::reference::run(cz::deflate_block_check_program(), {(listed[0] + 255) / 256, 1, 1}, check,
                                     vyre::reference::run_options::checking_races());
                BOOST_TEST(points_of(words_of(check[1])) == host, boost::test_tools::per_element());
                BOOST_TEST(listed[0] >= host.size()); // every start was a candidate
            }
        }
    BOOST_TEST(found > 30u);
}

// compression.deflate.pieces and compression.deflate.join on the reference interpreter: a
// stream of many blocks cut at its block starts, each piece decoded from its own start with
// references for the 32 KiB before it (lockstep subgroups of 32 lanes, one and two pieces per
// workgroup, and one lane), ends where the next starts, and the join writes the stream's bytes.
BOOST_AUTO_TEST_CASE(pieces_and_join_on_the_interpreter) {
    namespace piece = cz::deflate_piece;
    const bytes text = system_corpus(9000);
    const bytes stream = small_block_stream(text);
    const auto points = vyre::format::deflate_split_points(stream, 400, 1);
    BOOST_TEST_REQUIRE(points.size() >= 4u);
    const auto truth = vyre::test::zlib_block_starts(stream, text.size());
    for (const std::uint64_t p : points) BOOST_TEST_REQUIRE(std::binary_search(truth.begin(), truth.end(), p));
    const auto m = static_cast<std::uint32_t>(points.size());
    const auto n = static_cast<std::uint32_t>(stream.size());
    const std::uint32_t capacity = cz::deflate_piece_window + static_cast<std::uint32_t>(text.size()) + 1;
    std::vector<std::uint32_t> records(m * piece::words);
    for (std::uint32_t i = 0; i < m; ++i) {
        std::uint32_t* r = records.data() + i * piece::words;
        const std::uint64_t in_base = points[i] / 8;
        r[piece::in_base] = static_cast<std::uint32_t>(in_base);
        r[piece::in_size] = n - r[piece::in_base];
        r[piece::start_bit] = static_cast<std::uint32_t>(points[i] % 8);
        r[piece::stop_bit] = i + 1 < m ? static_cast<std::uint32_t>(points[i + 1] - in_base * 8) : 0xFFFFFFFFu;
        r[piece::out_base] = i * capacity;
        r[piece::capacity] = capacity;
        r[piece::window] = i == 0 ? 0u : cz::deflate_piece_window;
    }
    for (const auto& [lanes, per_group] : {std::pair{32u, 1u}, std::pair{32u, 2u}, std::pair{1u, 1u}}) {
        BOOST_TEST_CONTEXT(lanes << " lanes, " << per_group << " pieces per workgroup") {
            std::vector<vyre::reference::buffer_data> buffers(5);
            buffers[0] = stream;
            buffers[0].resize(vyre::runtime::padded_bytes(stream.size()), 0x5A);
            buffers[1] = buffer_of(records);
            buffers[2] = buffer_of(std::vector<std::uint32_t>(std::size_t{m} * capacity, 0xEEEEEEEEu));
            buffers[3] = buffer_of(std::vector<std::uint32_t>(m * piece::status_words, 0xEEEEEEEEu));
            buffers[4] = buffer_of({m, n, m * capacity, 0});
            vyre::reference::run(cz::deflate_pieces_program(lanes, per_group), {(m + per_group - 1) / per_group, 1, 1}, buffers,
                                 vyre::reference::run_options::checking_races());
            const auto statuses = words_of(buffers[3]);
            std::vector<std::uint32_t> destinations(m);
            std::uint32_t size = 0;
            for (std::uint32_t i = 0; i < m; ++i) {
                const std::uint32_t* st = statuses.data() + i * piece::status_words;
                BOOST_TEST(st[piece::code] == de::none, "piece " << i);
                BOOST_TEST(st[piece::final_block] == (i + 1 == m ? 1u : 0u), "piece " << i);
                if (i + 1 < m) BOOST_TEST(points[i] / 8 * 8 + st[piece::end_bit] == points[i + 1], "piece " << i);
                destinations[i] = size;
                size += st[piece::written] - records[i * piece::words + piece::window];
            }
            BOOST_TEST_REQUIRE(size == text.size());
            // The join: every element to its place, references followed back to bytes.
            std::vector<vyre::reference::buffer_data> join(7);
            join[0] = std::move(buffers[2]);
            join[1] = buffer_of(records);
            join[2] = buffer_of(statuses);
            join[3] = buffer_of(destinations);
            join[4] = bytes(vyre::runtime::padded_bytes(text.size()), 0xA5);
            join[5] = buffer_of(std::vector<std::uint32_t>(m, 0u)); // a failure flag per piece
            join[6] = buffer_of({m, 2});
            vyre::reference::run(cz::deflate_join_program(64), {m * 2, 1, 1}, join, vyre::reference::run_options::checking_races());
            BOOST_TEST(words_of(join[5]) == std::vector<std::uint32_t>(m, 0u), boost::test_tools::per_element());
            join[4].resize(text.size());
            BOOST_TEST((join[4] == text), "the joined bytes differ from the stream's");
        }
    }
}

// compression.deflate.join over pieces of two streams (as inflate_split_streams joins them): a
// reference reaching before its own stream's first byte sets only its piece's failure flag, and
// never reads the stream before; every other element is written to its place.
BOOST_AUTO_TEST_CASE(join_flags_each_piece_that_reaches_before_its_stream) {
    namespace piece = cz::deflate_piece;
    constexpr std::uint32_t w = cz::deflate_piece_window;
    // Pieces: 0, stream A's only piece (4 bytes); 1, stream B's first piece (10 bytes); 2, B's
    // second piece, a window and 3 elements: byte 'x', byte 9 of piece 1 (window slot w - 1) and
    // slot w - 11, one before B's first byte.
    const std::vector<std::uint32_t> bases{0, 16, 32};
    std::vector<std::uint32_t> elements(32 + w + 3, 0xEEEEEEEEu);
    for (std::uint32_t i = 0; i < 4; ++i) elements[i] = 'a' + i;
    for (std::uint32_t i = 0; i < 10; ++i) elements[16 + i] = 'A' + i;
    elements[32 + w] = 'x';
    elements[32 + w + 1] = 256 + (w - 1);
    elements[32 + w + 2] = 256 + (w - 11);
    std::vector<std::uint32_t> records(3 * piece::words, 0), statuses(3 * piece::status_words, 0);
    const std::uint32_t windows[3] = {0, 0, w}, written[3] = {4, 10, w + 3};
    for (std::uint32_t i = 0; i < 3; ++i) {
        records[i * piece::words + piece::out_base] = bases[i];
        records[i * piece::words + piece::window] = windows[i];
        statuses[i * piece::status_words + piece::written] = written[i];
    }
    std::vector<vyre::reference::buffer_data> join(7);
    join[0] = buffer_of(elements);
    join[1] = buffer_of(records);
    join[2] = buffer_of(statuses);
    join[3] = buffer_of({0, 8, 18}); // A at 0; B at 8, its second piece after its first's 10 bytes
    join[4] = bytes(24, '.');
    join[5] = buffer_of({0, 0, 0});
    join[6] = buffer_of({3, 1});
    vyre::reference::run(cz::deflate_join_program(64), {3, 1, 1}, join, vyre::reference::run_options::checking_races());
    BOOST_TEST(words_of(join[5]) == (std::vector<std::uint32_t>{0, 0, 1}), boost::test_tools::per_element());
    const std::string out(join[4].begin(), join[4].end());
    BOOST_TEST(out.substr(0, 4) == "abcd");
    BOOST_TEST(out.substr(8, 10) == "ABCDEFGHIJ");
    BOOST_TEST(out.substr(18, 2) == "xJ");
}

BOOST_AUTO_TEST_SUITE_END()

// ---- the device programs --------------------------------------------------------------------------

VYRE_DEVICE_TEST(conformance_list) {
    std::vector<vc::block_status> expected;
    const auto cases = conformance_cases(expected);
    std::mt19937_64 rng(vyre::test::test_seed());
    const batch b = pack(cases, rng);
    BOOST_TEST(run_reference(b).statuses == expected, boost::test_tools::per_element());
    check_everywhere(dev, b);
}

VYRE_DEVICE_TEST(streams_from_zlib_libdeflate_and_gzip) {
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x51);
    std::vector<stream_case> cases;
    const bytes corpus = system_corpus(400000);
    const auto add = [&](const bytes& original, bytes stream) {
        cases.push_back({std::move(stream), static_cast<std::uint32_t>(original.size()), 0});
    };
    for (int level = 0; level <= 9; ++level)
        for (int strategy : {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED}) {
            const std::size_t at = rng() % (corpus.size() - 70000);
            const bytes piece(corpus.begin() + static_cast<std::ptrdiff_t>(at), corpus.begin() + static_cast<std::ptrdiff_t>(at + 1 + rng() % 70000));
            add(piece, zlib_deflate(piece, level, strategy));
        }
    for (int level = 1; level <= 12; ++level) {
        const bytes piece = level % 2 ? text_bytes(rng, 1 + rng() % 90000) : repetitive_bytes(rng, 1 + rng() % 90000);
        add(piece, libdeflate_deflate(piece, level));
    }
    const bytes skewed = skewed_bytes();
    const bytes longest = zlib_deflate(skewed, 9, Z_HUFFMAN_ONLY, 9);
    BOOST_TEST(longest_literal_code(longest) == 15u);
    add(skewed, longest);
    add(corpus, zlib_deflate(corpus, 6));
    const bytes noise = random_bytes(rng, 100000);
    add(noise, zlib_deflate(noise, 6));
    // The gzip tool: its member's deflate stream lies between the 10-byte header (no name when
    // reading standard input) and the 8-byte trailer.
    vyre::test::temp_dir dir("vyre-deflate-gpu-", true);
    const bytes piece(corpus.begin(), corpus.begin() + 150000);
    vyre::test::write_file(dir / "in", piece);
    for (const char* level : {"-1", "-6", "-9"}) {
        BOOST_TEST_REQUIRE(std::system(("gzip -c " + std::string(level) + " < " + (dir / "in") + " > " + (dir / "out.gz")).c_str()) == 0);
        const bytes gz = vyre::test::read_file(dir / "out.gz");
        BOOST_TEST_REQUIRE(gz.size() > 18u);
        add(piece, bytes(gz.begin() + 10, gz.end() - 8));
    }
    const batch b = pack(cases, rng);
    const run_result want = run_reference(b);
    for (const auto& s : want.statuses) BOOST_TEST(s.code == de::none);
    check_everywhere(dev, b);
}

VYRE_DEVICE_TEST(descriptors_outside_the_buffers) {
    const bytes stream = zlib_deflate(vyre::test::to_bytes("some text, some text, some text"), 6);
    const auto n = static_cast<std::uint32_t>(stream.size());
    batch b;
    b.input = stream;
    b.output.assign(64, canary);
    b.blocks = {{0, n, 0, 31, 0},         {1, n, 0, 0, 0},          {n + 1, 0, 0, 0, 0},       {0xFFFFFFF0u, 0x20, 0, 0, 0},
                {0, n, 60, 10, 0},        {0, n, 0xFFFFFFF0u, 0x20, 0}, {0, 0, 64, 0, 0},          {0, n, 33, 31, 0}};
    const run_result want = run_reference(b);
    BOOST_TEST(want.statuses[0] == (vc::block_status{de::none, 31}));
    BOOST_TEST(want.statuses[1].code == de::input_overrun);
    BOOST_TEST(want.statuses[3].code == de::input_overrun);
    BOOST_TEST(want.statuses[4].code == de::output_overflow);
    BOOST_TEST(want.statuses[5].code == de::output_overflow);
    check_everywhere(dev, b);
}

VYRE_DEVICE_TEST(survives_mutations) {
    const std::uint64_t seed = vyre::test::test_seed();
    std::mt19937_64 rng(seed ^ 0x6d75746174696f6eULL);
    std::vector<std::pair<bytes, bytes>> sources;
    for (std::size_t n : {0u, 1u, 60u, 700u, 3000u, 9000u})
        for (const bytes& original : {text_bytes(rng, n), repetitive_bytes(rng, n), random_bytes(rng, n / 4)})
            for (int level : {1, 6, 9}) sources.emplace_back(original, zlib_deflate(original, level, level == 1 ? Z_FIXED : Z_DEFAULT_STRATEGY));
    std::map<std::uint32_t, int> codes;
    for (int round = 0; round < 2; ++round) {
        std::vector<stream_case> cases;
        for (int it = 0; it < 600; ++it) {
            const auto& [original, stream] = sources[rng() % sources.size()];
            bytes m = stream.empty() ? bytes{0} : stream;
            const std::size_t at = rng() % m.size();
            switch (rng() % 5) {
            case 0:
                for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) m[rng() % m.size()] ^= std::uint8_t(1u << (rng() % 8));
                break;
            case 1: m.resize(rng() % m.size()); break;
            case 2: m[at] = static_cast<std::uint8_t>(rng()); break;
            case 3: m.erase(m.begin() + static_cast<std::ptrdiff_t>(at)); break;
            default: m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng())); break;
            }
            const std::size_t capacity = rng() % 4 == 0 ? rng() % (original.size() + 64) : original.size();
            cases.push_back({std::move(m), static_cast<std::uint32_t>(capacity), rng() % 50 == 0 ? vc::block_flag_uncompressed : 0u});
        }
        const batch b = pack(cases, rng);
        for (const auto& s : run_reference(b).statuses) ++codes[s.code];
        BOOST_TEST_CONTEXT("seed " << seed << ", batch " << round) { check_everywhere(dev, b); }
    }
    // Random damage reaches these codes; the rest come from the hand-built list.
    for (std::uint32_t code : {de::none, de::input_overrun, de::output_overflow, de::bad_block_type, de::invalid_symbol, de::distance_too_far})
        BOOST_TEST_CONTEXT("code " << vc::deflate_error_name(code)) { BOOST_TEST(codes[code] > 0); }
}

VYRE_DEVICE_TEST(deterministic_over_100_runs) {
    std::mt19937_64 rng(vyre::test::test_seed() + 100);
    std::vector<stream_case> cases;
    for (int i = 0; i < 16; ++i) {
        const bytes original = i % 3 == 0 ? text_bytes(rng, rng() % 20000) : repetitive_bytes(rng, rng() % 20000);
        bytes stream = zlib_deflate(original, 1 + i % 9);
        if (i % 4 == 3 && !stream.empty()) stream[rng() % stream.size()] ^= 0x10;
        cases.push_back({std::move(stream), static_cast<std::uint32_t>(original.size()), 0});
    }
    const batch b = pack(cases, rng);
    const run_result want = run_reference(b);
    for (const auto& [name, kernel] : kernels_for(dev.ctx().device()))
        BOOST_TEST_CONTEXT("program " << name) {
            int same = 0;
            for (int run = 0; run < 100; ++run) {
                const run_result r = run_device(dev.ctx(), *kernel, b);
                same += r.output == want.output && r.statuses == want.statuses;
            }
            BOOST_TEST(same == 100);
        }
}

// A flagged uncompressed block of nearly 4 GiB, the most one dispatch addresses: copied whole by
// the subgroup programs, whose lanes' copy index would otherwise wrap near 2^32 and never end.
VYRE_DEVICE_TEST(flagged_block_of_nearly_4_gib_is_copied_whole) {
    if (const std::string why = vyre::test::huge_block_unfit(dev.ctx().device()); !why.empty()) {
        BOOST_TEST_MESSAGE("left out on " << dev.ctx().device().label() << ": " << why);
        return;
    }
    const bytes input = vyre::test::huge_pattern(vyre::test::huge_block_bytes);
    for (const auto& [name, kernel] : kernels_for(dev.ctx().device())) {
        if (std::string_view(name) == "reference") continue; // one lane steps by one: it cannot wrap
        BOOST_TEST_CONTEXT("program " << name) {
            const run_result r = vyre::test::run_alone(dev.ctx(), *kernel, input, vyre::test::huge_block_bytes, vc::block_flag_uncompressed);
            BOOST_TEST(r.statuses.at(0).code == de::none);
            BOOST_TEST(r.statuses.at(0).output_size == vyre::test::huge_block_bytes);
            BOOST_TEST((r.output == input));
        }
    }
}

VYRE_DEVICE_TEST(block_api_keeps_output_on_the_device) {
    std::mt19937_64 rng(5);
    const bytes a = text_bytes(rng, 5000), c = repetitive_bytes(rng, 3000);
    const bytes ca = zlib_deflate(a, 6), cc = zlib_deflate(c, 9);
    const bytes input = vyre::test::concat({ca, c, cc});
    const auto u = [](std::size_t v) { return static_cast<std::uint32_t>(v); };
    const std::vector<vc::block_descriptor> blocks = {{0, u(ca.size()), 3, 5000, 0},
                                                      {u(ca.size()), 3000, 5010, 3000, vc::block_flag_uncompressed},
                                                      {u(ca.size() + c.size()), u(cc.size()), 8020, 3100, 0}};
    for (auto v : {vo::block_variant::reference, vo::block_variant::fast, vo::block_variant::automatic})
        BOOST_TEST_CONTEXT("variant " << v) {
            const auto r = vo::decode_blocks<cz::deflate_op>(dev.ctx(), input, blocks, 11125, v);
            const std::vector<vc::block_status> want = {{de::none, 5000}, {de::none, 3000}, {de::none, 3000}};
            BOOST_TEST(r.statuses == want, boost::test_tools::per_element());
            const bytes out = vo::read_output(dev.ctx(), r);
            const bytes expected = vyre::test::concat({bytes(3, 0), a, bytes(7, 0), c, bytes(10, 0), c, bytes(105, 0)});
            BOOST_TEST((out == expected));
        }
}

// ---- the IR programs on the reference interpreter -------------------------------------------------

namespace {

// The shapes the interpreter tests run: one lane and 32 lanes per stream, several streams per
// workgroup, smaller tables.
std::vector<std::tuple<const char*, vyre::ir::program, std::uint32_t>> interpreted_programs() {
    return {std::tuple{"one lane per stream", cz::deflate_program(1), 1u}, std::tuple{"32 lanes per stream", cz::deflate_program(32), 1u},
            std::tuple{"4 lanes, 3 streams per workgroup, 9- and 7-bit tables", cz::deflate_program(4, 3, 9, 7), 3u},
            std::tuple{"one lane per stream, 3 streams per workgroup", cz::deflate_program(1, 3), 3u},
            std::tuple{"32 lanes, 4 streams per workgroup", cz::deflate_program(32, 4), 4u}};
}

} // namespace

BOOST_AUTO_TEST_CASE(programs_agree_with_the_oracle_on_the_interpreter) {
    std::vector<vc::block_status> expected;
    std::vector<stream_case> cases = conformance_cases(expected);
    cases.erase(std::remove_if(cases.begin(), cases.end(), [](const stream_case& c) { return c.block.size() > 2000 || c.capacity > 4000; }),
                cases.end());
    std::mt19937_64 rng(11);
    const bytes text = text_bytes(rng, 2500);
    cases.push_back({zlib_deflate(text, 6), 2500, 0});
    cases.push_back({zlib_deflate(text, 1, Z_FIXED), 2500, 0});
    bytes mutated = zlib_deflate(text, 9);
    mutated[mutated.size() / 2] ^= 0x21;
    cases.push_back({mutated, 2500, 0});
    const batch b = pack(cases, rng);
    const run_result want = run_reference(b);
    const bytes want_output = vyre::test::padded_output(want.output);
    for (const auto& [name, program, per_group] : interpreted_programs()) {
        BOOST_TEST_CONTEXT("program " << name) {
            BOOST_CHECK_NO_THROW(vyre::ir::validate(program));
            vyre::test::check_block_bindings(program);
            const auto got = vyre::test::run_interpreter(program, std::uint32_t((b.blocks.size() + per_group - 1) / per_group), b);
            BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
            BOOST_TEST((got.output == want_output));
        }
    }
}

// Descriptors that leave the buffers, stored (uncompressed) blocks that fit, overflow or leave the
// input, and streams of fewer than four bytes at the input's very end: the interpreter, which
// refuses an unchecked access out of bounds, gives the oracle's statuses and bytes.
BOOST_AUTO_TEST_CASE(hostile_descriptors_on_the_interpreter) {
    const bytes stream = zlib_deflate(vyre::test::to_bytes("some text, some text, some text"), 6);
    const auto n = static_cast<std::uint32_t>(stream.size());
    const std::uint32_t stored = vc::block_flag_uncompressed;
    // The input ends on a whole word with a two-byte stream (a final fixed block holding only its end
    // code), so that a read of four bytes from its start would leave the buffer.
    const bytes filler((4 - (n + 2) % 4) % 4, 0x77);
    const auto t = static_cast<std::uint32_t>(n + filler.size());
    batch b;
    b.input = vyre::test::concat({stream, filler, bytes{0x03, 0x00}});
    b.output.assign(100, canary);
    b.blocks = {{0, n, 0, 31, 0},           {1, n, 0, 0, 0},           {t + 3, 0, 0, 0, 0},         {0xFFFFFFF0u, 0x20, 0, 0, 0},
                {0, n, 60, 10, 0},          {0, n, 0xFFFFFFF0u, 0x20, 0}, {0, 0, 64, 0, 0},         {0, n, 33, 31, 0},
                {0, 8, 70, 8, stored},      {0, 9, 80, 8, stored},     {t, 4, 90, 6, stored},       {t, 2, 90, 4, 0},
                {t + 1, 1, 95, 4, 0},       {t + 2, 0, 99, 1, 0}};
    BOOST_TEST(b.input.size() % 4 == 0u);
    const run_result want = run_reference(b);
    BOOST_TEST(want.statuses[8] == (vc::block_status{de::none, 8}));
    BOOST_TEST(want.statuses[9].code == de::output_overflow);
    BOOST_TEST(want.statuses[10].code == de::input_overrun);
    BOOST_TEST(want.statuses[11] == (vc::block_status{de::none, 0}));
    const bytes want_output = vyre::test::padded_output(want.output);
    for (const auto& [name, program, per_group] : interpreted_programs()) {
        BOOST_TEST_CONTEXT("program " << name) {
            const auto got = vyre::test::run_interpreter(program, std::uint32_t((b.blocks.size() + per_group - 1) / per_group), b);
            BOOST_TEST(got.statuses == want.statuses, boost::test_tools::per_element());
            BOOST_TEST((got.output == want_output));
        }
    }
}

BOOST_AUTO_TEST_CASE(program_arguments_are_checked) {
    BOOST_CHECK_THROW(cz::deflate_program(3), vyre::resource_error);
    BOOST_CHECK_THROW(cz::deflate_program(64), vyre::resource_error);
    BOOST_CHECK_THROW(cz::deflate_program(1, 0), vyre::resource_error);
    BOOST_CHECK_THROW(cz::deflate_program(1, 1025), vyre::resource_error);
    BOOST_CHECK_THROW(cz::deflate_program(32, 0), vyre::resource_error);
    BOOST_CHECK_THROW(cz::deflate_program(32, 1, 13, 8), vyre::resource_error);
    BOOST_CHECK_THROW(cz::deflate_program(32, 1, 10, 6), vyre::resource_error);
}

VYRE_TEST_MAIN
