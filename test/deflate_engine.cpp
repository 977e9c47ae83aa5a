// engine/deflate_decompress.hpp on every device and every route (automatic, device, host): raw
// streams written by zlib at every level and strategy, batched and packed many ways; gzip files
// written by the gzip tool (-1, -6, -9), several members (cat of .gz files), BGZF files (members
// with BC extra fields, written here with zlib), every header flag (FEXTRA, FNAME, FCOMMENT,
// FHCRC), empty members; ZIP files made by the zip tool (-0 to -9) through engine::unpack, with
// tar.gz and BGZF files in the same pass; corrupt streams (flipped bits, truncation, lying ISIZE,
// CRC and sizes) giving the same named error on every route; seeded mutations. Every route must
// give the same bytes, and the same message when it fails.
#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/compression/deflate.hpp>
#include <vyre/engine/deflate_decompress.hpp>
#include <vyre/engine/unpack.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/reference/deflate.hpp>

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace vyre::engine {
std::ostream& operator<<(std::ostream& os, deflate_route r) { return os << deflate_route_name(r); }
} // namespace vyre::engine
namespace vyre::format {
std::ostream& operator<<(std::ostream& os, gzip_layout_kind k) { return os << gzip_layout_kind_name(k); }
} // namespace vyre::format

namespace {

namespace fs = std::filesystem;
namespace ve = vyre::engine;
namespace fmt = vyre::format;
using bytes = std::vector<std::uint8_t>;
using vyre::test::read_file;
using vyre::test::write_file;
constexpr auto& q = vyre::test::shell_quote;
constexpr auto& run = vyre::test::run_command;

constexpr ve::deflate_route routes[] = {ve::deflate_route::automatic, ve::deflate_route::device, ve::deflate_route::host};

struct temp_dir : vyre::test::scratch_dir {
    temp_dir() : scratch_dir("vyre_deflate_engine_") {}
};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// What automatic does on this device: the device path on GPUs, the host on CPU devices.
bool automatic_uses_device(const vyre::test::device_case& dev) { return !(dev.info().is_cpu() && !dev.info().is_gpu()); }

// ---- writing streams and members ------------------------------------------------------------------

bytes zlib_deflate(std::span<const std::uint8_t> data, int level, int strategy = Z_DEFAULT_STRATEGY) {
    z_stream s{};
    BOOST_REQUIRE(deflateInit2(&s, level, Z_DEFLATED, -15, 8, strategy) == Z_OK);
    bytes out(deflateBound(&s, static_cast<uLong>(data.size())) + 16);
    s.next_in = const_cast<Bytef*>(data.data());
    s.avail_in = static_cast<uInt>(data.size());
    s.next_out = out.data();
    s.avail_out = static_cast<uInt>(out.size());
    BOOST_REQUIRE(deflate(&s, Z_FINISH) == Z_STREAM_END);
    out.resize(s.total_out);
    deflateEnd(&s);
    return out;
}

std::uint32_t crc_of(std::span<const std::uint8_t> data) {
    return static_cast<std::uint32_t>(crc32(0, data.data(), static_cast<uInt>(data.size())));
}

void put_le(bytes& b, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// One gzip member with the header fields `flags` asks for (FHCRC computed over the header), its
// content deflated by zlib at `level`. `bgzf`: an FEXTRA with the BC subfield holding the size.
bytes gzip_member(std::span<const std::uint8_t> content, int level = 6, std::uint8_t flags = 0, bool bgzf = false,
                  const std::string& name = {}, const std::string& comment = {}, const bytes& extra = {}) {
    if (bgzf) flags |= fmt::gzip_flag_extra;
    bytes out = {0x1F, 0x8B, 8, flags, 0x78, 0x56, 0x34, 0x12, 0, 3};
    std::size_t bsize_at = 0;
    if (flags & fmt::gzip_flag_extra) {
        bytes x = extra;
        if (bgzf) {
            x.insert(x.end(), {'B', 'C', 2, 0});
            bsize_at = out.size() + 2 + extra.size() + 4;
            put_le(x, 0, 2);
        }
        put_le(out, x.size(), 2);
        out.insert(out.end(), x.begin(), x.end());
    }
    if (flags & fmt::gzip_flag_name) out.insert(out.end(), name.c_str(), name.c_str() + name.size() + 1);
    if (flags & fmt::gzip_flag_comment) out.insert(out.end(), comment.c_str(), comment.c_str() + comment.size() + 1);
    if (flags & fmt::gzip_flag_hcrc) put_le(out, crc_of(out) & 0xFFFF, 2);
    const bytes d = zlib_deflate(content, level);
    out.insert(out.end(), d.begin(), d.end());
    put_le(out, crc_of(content), 4);
    put_le(out, content.size(), 4);
    if (bgzf) {
        BOOST_REQUIRE(out.size() <= 65536);
        out[bsize_at] = static_cast<std::uint8_t>(out.size() - 1);
        out[bsize_at + 1] = static_cast<std::uint8_t>((out.size() - 1) >> 8);
    }
    return out;
}

// A BGZF file of `content` in blocks of `block` bytes, then the empty EOF member bgzip writes.
bytes bgzf_file(const bytes& content, std::size_t block, int level = 6) {
    bytes out;
    for (std::size_t at = 0; at < content.size(); at += block) {
        const bytes m = gzip_member(std::span(content).subspan(at, std::min(block, content.size() - at)), level, 0, true);
        out.insert(out.end(), m.begin(), m.end());
    }
    const bytes eof = gzip_member({}, level, 0, true);
    out.insert(out.end(), eof.begin(), eof.end());
    return out;
}

// The gzip tool's output for `content` at -level (FNAME set: it compresses a named file).
bytes gzip_tool(const temp_dir& dir, const bytes& content, int level, const std::string& name) {
    const fs::path in = dir.path / name;
    write_file(in, content);
    run("gzip -k -f -" + std::to_string(level) + " " + q(in));
    return read_file(fs::path(in.string() + ".gz"));
}

bytes corpus(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    bytes b = vyre::test::system_corpus(n / 2);
    const bytes r = vyre::test::repetitive_bytes(rng, n / 4);
    const bytes t = vyre::test::random_bytes(rng, n / 4);
    b.insert(b.end(), r.begin(), r.end());
    b.insert(b.end(), t.begin(), t.end());
    return b;
}

bytes concat(const bytes& a, const bytes& b) {
    bytes out = a;
    out.insert(out.end(), b.begin(), b.end());
    return out;
}

// decompress_gzip's bytes, or its format_error's message (prefixed "error: ").
struct gzip_outcome {
    bytes data;
    std::string error;
    ve::gzip_report report;
};

// The device cases lift the automatic route's size cap (every stream on a GPU), so that every stream
// of these small inputs takes the device path there; plans_route_by_device_size_and_limits checks the cap.
constexpr std::uint64_t no_cap = std::numeric_limits<std::uint64_t>::max();

gzip_outcome gzip_on(vyre::test::device_case& dev, std::span<const std::uint8_t> file, ve::deflate_route route,
                     ve::deflate_options o = {}) {
    o.route = route;
    o.device_max_bytes = no_cap;
    gzip_outcome out;
    try {
        ve::gzip_result r = ve::decompress_gzip(dev.ctx(), file, o);
        out.data.assign(r.bytes.begin(), r.bytes.end());
        out.report = std::move(r.report);
    } catch (const vyre::format_error& e) {
        out.error = e.what();
    }
    return out;
}

std::size_t expected_device_streams(vyre::test::device_case& dev, ve::deflate_route route, std::size_t streams) {
    if (route == ve::deflate_route::host) return 0;
    if (route == ve::deflate_route::automatic && !automatic_uses_device(dev)) return 0;
    return streams;
}

// ---- host-only: layouts, routes, plans --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(route_names_round_trip) {
    for (const ve::deflate_route r : routes) BOOST_TEST((ve::deflate_route_from_name(ve::deflate_route_name(r)) == r));
    BOOST_TEST(!ve::deflate_route_from_name("hybrid"));
    BOOST_TEST(!ve::deflate_route_from_name(""));
}

BOOST_AUTO_TEST_CASE(gzip_layouts_from_headers_and_trailers) {
    const bytes a = corpus(50000, 1), b = corpus(30000, 2);
    const bytes ga = gzip_member(a), gb = gzip_member(b, 9);
    // One member: the stream runs from the header to the trailer.
    fmt::gzip_layout l = fmt::gzip_layout_of(ga);
    BOOST_TEST(l.kind == fmt::gzip_layout_kind::single);
    BOOST_REQUIRE_EQUAL(l.members.size(), 1u);
    BOOST_TEST(l.members[0].deflate_offset == 10u);
    BOOST_TEST(l.members[0].deflate_size == ga.size() - 18);
    BOOST_TEST(l.members[0].isize == a.size());
    BOOST_TEST(l.members[0].crc32 == crc_of(a));
    BOOST_TEST(l.output_size == a.size());
    // Two different members read as one: nothing in the bytes says so (the streams' checks do).
    BOOST_TEST(fmt::gzip_layout_of(concat(ga, gb)).kind == fmt::gzip_layout_kind::single);
    // The same member twice: the first trailer is the last one's 8 bytes, inside the "stream".
    l = fmt::gzip_layout_of(concat(ga, ga));
    BOOST_TEST(l.kind == fmt::gzip_layout_kind::unknown);
    BOOST_TEST(contains(l.why, "also occur at byte offset " + std::to_string(ga.size() - 8)), l.why);
    BOOST_TEST(l.members.empty());
    // A truncated file: its last 8 bytes are deflate data, whose "ISIZE" no stream could make
    // (the one below is forced so that the test does not depend on the bytes).
    bytes cut(ga.begin(), ga.begin() + static_cast<std::ptrdiff_t>(ga.size() / 2));
    cut[cut.size() - 1] = 0xFF;
    l = fmt::gzip_layout_of(cut);
    BOOST_TEST(l.kind == fmt::gzip_layout_kind::unknown);
    BOOST_TEST(contains(l.why, "ISIZE"), l.why);
    // BGZF: every member with its size.
    const bytes bz = bgzf_file(a, 10000);
    l = fmt::gzip_layout_of(bz);
    BOOST_TEST(l.kind == fmt::gzip_layout_kind::bgzf);
    BOOST_TEST(l.members.size() == 6u); // five blocks and the EOF member
    BOOST_TEST(l.output_size == a.size());
    BOOST_TEST(l.members[2].output_offset == 20000u);
    BOOST_TEST(fmt::gzip_layout_of(concat(bz, bytes(100, 0))).kind == fmt::gzip_layout_kind::bgzf); // zero padding
    // A plain member after BGZF members, or a BGZF size that runs past the end: only inflating tells.
    l = fmt::gzip_layout_of(concat(bz, ga));
    BOOST_TEST(l.kind == fmt::gzip_layout_kind::unknown);
    BOOST_TEST(contains(l.why, "no BGZF size"), l.why);
    l = fmt::gzip_layout_of(bytes(bz.begin(), bz.end() - 40));
    BOOST_TEST(l.kind == fmt::gzip_layout_kind::unknown);
    BOOST_TEST(contains(l.why, "runs past the end"), l.why);
    // The BC subfield found among others; an extra field that is not subfields is no BGZF size.
    const bytes other = {'X', 'Y', 3, 0, 1, 2, 3};
    const bytes m = gzip_member(a, 6, fmt::gzip_flag_extra, true, {}, {}, other);
    const fmt::gzip_member h = fmt::parse_gzip_header(m, 0);
    BOOST_TEST((fmt::gzip_bgzf_member_size(m, h) == std::optional<std::uint64_t>(m.size())));
    const bytes junk = gzip_member(a, 6, fmt::gzip_flag_extra, false, {}, {}, bytes{'B', 'C', 9, 0, 1});
    BOOST_TEST(!fmt::gzip_bgzf_member_size(junk, fmt::parse_gzip_header(junk, 0)));
    BOOST_TEST(fmt::gzip_layout_of(junk).kind == fmt::gzip_layout_kind::single);
    // A broken header is the file's error, as in gzip_decompress.
    bytes broken = ga;
    broken[3] = 0xE0;
    BOOST_CHECK_THROW(fmt::gzip_layout_of(broken), vyre::format_error);
}

BOOST_AUTO_TEST_CASE(plans_route_by_device_size_and_limits) {
    namespace vd = vyre::engine::detail;
    const bytes in(100, 0);
    const ve::deflate_stream small{in, 1000, 0}, large{in, 50000, 0}, huge{in, std::uint64_t{5} << 30, 0};
    const std::vector<ve::deflate_stream> streams = {small, large, huge};
    vyre::runtime::device_info gpu, cpu;
    gpu.type = CL_DEVICE_TYPE_GPU;
    cpu.type = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT;
    gpu.max_allocation = cpu.max_allocation = std::uint64_t{8} << 30;
    ve::deflate_options o;
    o.device_max_bytes = 10000;
    const auto paths = [&](const vyre::runtime::device_info& d, ve::deflate_route r) {
        o.route = r;
        const vd::deflate_plan p = vd::make_deflate_plan(d, streams, o);
        std::string s;
        for (const ve::deflate_path x : p.paths) s += ve::deflate_path_name(x)[0];
        return s + " " + std::to_string(p.oversized);
    };
    BOOST_TEST(paths(gpu, ve::deflate_route::automatic) == "dhh 1"); // above the cap: host; 5 GiB no dispatch holds: host
    BOOST_TEST(paths(cpu, ve::deflate_route::automatic) == "hhh 1");
    BOOST_TEST(paths(gpu, ve::deflate_route::device) == "ddh 1");
    BOOST_TEST(paths(cpu, ve::deflate_route::device) == "ddh 1");
    BOOST_TEST(paths(gpu, ve::deflate_route::host) == "hhh 1");
    // The device is asked only when some stream may go to it (a context made in the background is
    // then not waited for): not on the host route, nor when every stream is above the cap.
    int asked = 0;
    const auto ask = [&]() -> const vyre::runtime::device_info& {
        ++asked;
        return gpu;
    };
    o.route = ve::deflate_route::host;
    BOOST_TEST(vd::make_deflate_plan(ask, streams, o).oversized == 1u);
    BOOST_TEST(asked == 0);
    o.route = ve::deflate_route::automatic;
    o.device_max_bytes = 100;
    BOOST_TEST(vd::make_deflate_plan(ask, streams, o).dispatched.empty());
    BOOST_TEST(asked == 0);
    o.device_max_bytes = 10000;
    BOOST_TEST(vd::make_deflate_plan(ask, streams, o).dispatched.size() == 1u);
    BOOST_TEST(asked == 1);
    o.max_output_bytes = 20000;
    o.route = ve::deflate_route::device;
    BOOST_CHECK_THROW(vd::make_deflate_plan(gpu, streams, o), vyre::resource_error);
    // Streams of one source close together upload as one run, gap included; others apart.
    bytes source(300000, 0);
    const ve::deflate_stream a{std::span(source).subspan(0, 1000), 10, 0, source},
        b{std::span(source).subspan(5000, 1000), 10, 0, source}, c{std::span(source).subspan(200000, 1000), 10, 0, source},
        d{std::span(source).subspan(201000, 1000), 10, 0, {}};
    const std::vector<ve::deflate_stream> packed = {a, b, c, d};
    o.max_output_bytes = ~std::uint64_t{0};
    const vd::deflate_plan p = vd::make_deflate_plan(gpu, packed, o);
    BOOST_REQUIRE_EQUAL(p.runs.size(), 3u);
    BOOST_TEST(p.runs[0].bytes == 6000u);
    BOOST_TEST(p.packed_bytes == 8000u);
    BOOST_REQUIRE_EQUAL(p.batches.size(), 1u);
    BOOST_TEST(p.batches[0].blocks[1].input_offset == 5000u);
    BOOST_TEST(p.batches[0].blocks[3].input_offset == 7000u);
    BOOST_TEST(p.batches[0].blocks[3].output_offset == 30u);
    // Launched longest output first, ties in plan order.
    const ve::deflate_stream sized[] = {{std::span(source).subspan(0, 10), 5, 0, source}, {std::span(source).subspan(10, 10), 9, 0, source},
                                        {std::span(source).subspan(20, 10), 5, 0, source}, {std::span(source).subspan(30, 10), 7, 0, source}};
    const vd::deflate_plan q = vd::make_deflate_plan(gpu, sized, o);
    BOOST_REQUIRE_EQUAL(q.launch.size(), 1u);
    BOOST_TEST((q.launch[0] == std::vector<std::uint32_t>{1, 3, 0, 2}));
}

// ---- raw streams -------------------------------------------------------------------------------------

// The long streams that go in pieces: on the device route every one from pieces_min_bytes up; on
// the automatic route (a GPU) the largest while that shortens the estimated pass, so a lone long
// stream goes and streams that the host cores decode side by side stay.
BOOST_AUTO_TEST_CASE(plans_send_the_longest_streams_in_pieces) {
    namespace vd = vyre::engine::detail;
    const bytes in(100, 0);
    const auto stream = [&](std::uint64_t mib) { return ve::deflate_stream{in, mib << 20, 0}; };
    vyre::runtime::device_info gpu, cpu;
    gpu.type = CL_DEVICE_TYPE_GPU;
    cpu.type = CL_DEVICE_TYPE_CPU;
    gpu.max_allocation = cpu.max_allocation = std::uint64_t{8} << 30; // pieces fit up to 256 MiB of output
    ve::deflate_options o;
    o.threads = 16;
    const auto paths = [&](const vyre::runtime::device_info& d, ve::deflate_route r, const std::vector<ve::deflate_stream>& streams) {
        o.route = r;
        const vd::deflate_plan p = vd::make_deflate_plan(d, streams, o);
        std::string s;
        for (const ve::deflate_path x : p.paths) s += ve::deflate_path_name(x)[0];
        BOOST_TEST(p.pieces_streams == static_cast<std::size_t>(std::count(s.begin(), s.end(), 'p')));
        for (const std::size_t k : p.dispatched) BOOST_TEST((p.paths[k] == ve::deflate_path::device));
        return s;
    };
    using ve::deflate_route;
    // One .tar.gz of 256 MiB, and one of 64 MiB: the device in pieces; one of 8 MiB, below
    // pieces_min_bytes: the host.
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(256)}) == "p");
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(64)}) == "p");
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(8)}) == "h");
    // Sixteen streams of 64 MiB on sixteen host threads: all of them decode at once on the host.
    BOOST_TEST(paths(gpu, deflate_route::automatic, std::vector<ve::deflate_stream>(16, stream(64))) == std::string(16, 'h'));
    // One long stream among short ones: only it moves; two as long as each other: neither (the
    // host takes them side by side in the time the device takes one after the other).
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(1), stream(200), stream(2)}) == "hph");
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(200), stream(200)}) == "hh");
    // Behind the batches: a ZIP's 24 MiB entry among 400 MiB of small entries, which the device
    // decodes first, stays on the host; alone, it goes.
    std::vector<ve::deflate_stream> zip(1600, ve::deflate_stream{in, std::uint64_t{256} << 10, 0});
    zip.push_back(stream(24));
    BOOST_TEST(paths(gpu, deflate_route::automatic, zip) == std::string(1600, 'd') + "h");
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(24)}) == "p");
    // Long streams on one host thread: more of them move (two of three: all three would leave the
    // host idle while the device decodes one after another).
    o.threads = 1;
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(100), stream(100), stream(100)}) == "pph");
    o.threads = 16;
    // Too large for the pieces' regions on this device (its output above 256 MiB): the host.
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(300)}) == "h");
    // CPU devices: never on the automatic route; the device route sends every long stream.
    BOOST_TEST(paths(cpu, deflate_route::automatic, {stream(256)}) == "h");
    // (On the device route streams go in pieces from 1 MiB up, deflate_device_pieces_min_bytes.)
    BOOST_TEST(paths(cpu, deflate_route::device, {stream(1), stream(16), stream(200), stream(200)}) == "pppp");
    const ve::deflate_stream below{in, (std::uint64_t{1} << 20) - 1, 0};
    BOOST_TEST(paths(gpu, deflate_route::device, {below, stream(1)}) == "dp");
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(1), stream(4)}) == "hh"); // the automatic route from 16 MiB up
    o.pieces_min_bytes = std::uint64_t{4} << 20; // set: the same on every route
    BOOST_TEST(paths(gpu, deflate_route::device, {below, stream(1), stream(4)}) == "ddp");
    o.pieces_min_bytes.reset();
    BOOST_TEST(paths(gpu, deflate_route::host, {stream(256)}) == "h");
    // A device context still being made: its wait counts against the device, and the device is not
    // asked (its context not waited for) unless a stream would go even so.
    int asked = 0;
    const auto ask = [&]() -> const vyre::runtime::device_info& {
        ++asked;
        return gpu;
    };
    const auto waiting = [&](double wait, const std::vector<ve::deflate_stream>& streams) {
        o.route = deflate_route::automatic;
        const vd::deflate_plan p = vd::make_deflate_plan(ask, streams, o, wait);
        std::string s;
        for (const ve::deflate_path x : p.paths) s += ve::deflate_path_name(x)[0];
        return s;
    };
    BOOST_TEST(waiting(0.25, {stream(256)}) == "h"); // 0.25 s, then 128 ms in pieces, against 224 ms on a core
    BOOST_TEST(asked == 0);
    BOOST_TEST(waiting(0.05, {stream(256)}) == "p");
    BOOST_TEST(asked == 1);
    BOOST_TEST(waiting(0.05, {stream(64)}) == "h");
    BOOST_TEST(asked == 1);
    // A device known to be a CPU device before its context is made: an endless wait, never asked.
    BOOST_TEST(waiting(std::numeric_limits<double>::infinity(), {stream(512)}) == "h");
    BOOST_TEST(asked == 1);
    // pieces_min_bytes at its maximum turns pieces off.
    o.pieces_min_bytes = std::numeric_limits<std::uint64_t>::max();
    BOOST_TEST(paths(gpu, deflate_route::automatic, {stream(256)}) == "h");
    BOOST_TEST(paths(gpu, deflate_route::device, {stream(256)}) == "d");
}

// Long streams in pieces (pieces_min_bytes lowered so that streams of a few MiB go): the same
// bytes as every route, and where a stream is corrupt or lies about its size or CRC-32, the host
// path takes it and gives the host route's message.
VYRE_DEVICE_TEST(long_streams_in_pieces_give_the_same_bytes_and_messages) {
    const bytes content = corpus(std::size_t{3} << 19, 21), short_content = corpus(50000, 22);
    const bytes good = zlib_deflate(content, 6), short_stream = zlib_deflate(short_content, 6);
    const std::uint32_t crc = crc_of(content);
    bytes flipped = good;
    for (std::size_t i = good.size() / 2; i < good.size() / 2 + 40; ++i) flipped[i] ^= 0x5A;
    const std::vector<ve::deflate_stream> streams = {
        {short_stream, short_content.size(), crc_of(short_content)}, {good, content.size(), crc},
        {good, content.size(), crc ^ 1}, {flipped, content.size(), crc}, {good, content.size() + 1, crc}};
    std::vector<std::string> first;
    for (const ve::deflate_route route : routes) {
        BOOST_TEST_CONTEXT("route " << route) {
            ve::deflate_options o;
            o.route = route;
            o.pieces_min_bytes = std::uint64_t{1} << 20;
            const ve::deflate_result r = ve::decompress_deflate(dev.ctx(), streams, o);
            BOOST_TEST(!r.errors[0]);
            BOOST_TEST(!r.errors[1], r.errors[1].value_or(""));
            BOOST_TEST((r.content(0).size() == short_content.size() && std::equal(r.content(0).begin(), r.content(0).end(), short_content.begin())));
            BOOST_TEST((r.content(1).size() == content.size() && std::equal(r.content(1).begin(), r.content(1).end(), content.begin())));
            BOOST_TEST(r.report.failed_streams == 3u);
            std::vector<std::string> got;
            for (std::size_t k = 2; k < streams.size(); ++k) got.push_back(r.errors[k].value_or("(no error)"));
            BOOST_TEST(contains(got[0], "CRC-32 mismatch: expected "), got[0]);
            BOOST_TEST(got[2] == "decodes to " + std::to_string(content.size()) + " bytes, " + std::to_string(content.size() + 1) + " expected");
            if (first.empty()) first = got;
            else BOOST_TEST(got == first, "the same messages on every route");
            if (route == ve::deflate_route::device) {
                BOOST_TEST((r.paths[0] == ve::deflate_path::device));
                for (std::size_t k = 1; k < streams.size(); ++k) BOOST_TEST((r.paths[k] == ve::deflate_path::pieces));
                BOOST_TEST(r.report.piece_streams == 4u);
                BOOST_TEST(r.report.piece_fallbacks == 3u, r.report.piece_fallback_reason);
                BOOST_TEST(r.report.device_streams == 2u);
                BOOST_TEST(r.report.host_streams == 3u);
                BOOST_TEST(r.report.pieces > 4u); // each long stream's input is cut every 16 KiB
            }
            if (route == ve::deflate_route::host) BOOST_TEST(r.report.piece_streams == 0u);
        }
    }
    // Several good long streams in pieces together, with a corrupt one among them: each good one's
    // bytes from the pieces (no fallback but the corrupt one's), the corrupt one the host's message.
    {
        const bytes other = corpus(std::size_t{5} << 18, 23), level9 = zlib_deflate(content, 9), level1 = zlib_deflate(other, 1);
        const std::vector<ve::deflate_stream> together = {
            {level9, content.size(), crc}, {flipped, content.size(), crc}, {level1, other.size(), crc_of(other)}, {good, content.size(), crc}};
        ve::deflate_options o;
        o.route = ve::deflate_route::device;
        o.pieces_min_bytes = std::uint64_t{1} << 20;
        const ve::deflate_result r = ve::decompress_deflate(dev.ctx(), together, o);
        BOOST_TEST(r.report.piece_streams == 4u);
        BOOST_TEST(r.report.piece_fallbacks == 1u, r.report.piece_fallback_reason);
        BOOST_TEST(r.errors[1].has_value());
        for (const std::size_t k : {0u, 2u, 3u}) {
            const bytes& want = k == 2 ? other : content;
            BOOST_TEST(!r.errors[k], r.errors[k].value_or(""));
            BOOST_TEST((r.content(k).size() == want.size() && std::equal(r.content(k).begin(), r.content(k).end(), want.begin())), "stream " << k);
        }
    }
    // The streams in pieces cut into several calls where their input passes one call's limit
    // (here 1.5 times a stream's): each call's streams, the corrupt one's fallback, every byte.
    {
        namespace vd = vyre::engine::detail;
        const std::vector<ve::deflate_stream> three = {{good, content.size(), crc}, {flipped, content.size(), crc}, {good, content.size(), crc}};
        std::vector<std::uint64_t> offsets{0, content.size(), 2 * content.size()};
        bytes out(3 * content.size());
        std::vector<std::optional<std::string>> errors(3);
        const std::vector<std::size_t> which{0, 1, 2};
        const vd::deflate_pieces_summary r = vd::decode_in_pieces(dev.ctx(), three, which, out, offsets, errors, good.size() * 3 / 2);
        BOOST_TEST(r.calls == 3u);
        BOOST_TEST(r.fallbacks == 1u);
        BOOST_TEST(!errors[0]);
        BOOST_TEST(errors[1].has_value());
        BOOST_TEST(!errors[2]);
        BOOST_TEST(std::equal(content.begin(), content.end(), out.begin()));
        BOOST_TEST(std::equal(content.begin(), content.end(), out.begin() + static_cast<std::ptrdiff_t>(2 * content.size())));
        const vd::deflate_pieces_summary one = vd::decode_in_pieces(dev.ctx(), three, which, out, offsets, errors);
        BOOST_TEST(one.calls == 1u);
    }
    // keep_on_device: the batched stream stays on the device, the one in pieces comes back.
    {
        ve::deflate_options o;
        o.route = ve::deflate_route::device;
        o.pieces_min_bytes = std::uint64_t{1} << 20;
        o.keep_on_device = true;
        const std::vector<ve::deflate_stream> two = {streams[0], streams[1]};
        const ve::deflate_result r = ve::decompress_deflate(dev.ctx(), two, o);
        BOOST_TEST(r.ok());
        BOOST_REQUIRE(r.kept);
        BOOST_TEST(r.kept->has(0));
        BOOST_TEST(!r.kept->has(1));
        BOOST_TEST((r.content(1).size() == content.size() && std::equal(r.content(1).begin(), r.content(1).end(), content.begin())));
        BOOST_TEST(r.report.piece_streams == 1u);
    }
    // A gzip file of one long member, as gzip writes it: in pieces on the device route.
    temp_dir dir;
    const bytes gz = gzip_tool(dir, content, 6, "long.bin");
    ve::deflate_options o;
    o.pieces_min_bytes = std::uint64_t{1} << 20;
    const gzip_outcome g = gzip_on(dev, gz, ve::deflate_route::device, o);
    BOOST_TEST(g.error.empty(), g.error);
    BOOST_TEST(g.data == content);
    BOOST_TEST(g.report.deflate.piece_streams == 1u);
    BOOST_TEST(g.report.deflate.piece_fallbacks == 0u, g.report.deflate.piece_fallback_reason);
    BOOST_TEST(!g.report.whole_on_host);
}

VYRE_DEVICE_TEST(streams_decode_to_the_same_bytes_on_every_route) {
    std::mt19937_64 rng(vyre::test::test_seed());
    std::vector<bytes> contents = {{}, vyre::test::to_bytes("a"), corpus(200000, 3), vyre::test::random_bytes(rng, 70000),
                                   vyre::test::repetitive_bytes(rng, 300000), bytes(100000, 'z'), vyre::test::text_bytes(rng, 40000)};
    // Every level (0: stored blocks), fixed Huffman codes, Huffman only, RLE, filtered.
    std::vector<bytes> packed;
    std::vector<std::size_t> of;
    for (std::size_t i = 0; i < contents.size(); ++i) {
        for (int level : {0, 1, 6, 9}) {
            packed.push_back(zlib_deflate(contents[i], level));
            of.push_back(i);
        }
        for (int strategy : {Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE, Z_FILTERED}) {
            packed.push_back(zlib_deflate(contents[i], 6, strategy));
            of.push_back(i);
        }
    }
    // All the streams in one buffer, a gap between each two (packed into runs for the upload).
    bytes source;
    std::vector<std::size_t> at;
    for (const bytes& p : packed) {
        at.push_back(source.size());
        source.insert(source.end(), p.begin(), p.end());
        source.insert(source.end(), 37, 0xEE);
    }
    std::vector<ve::deflate_stream> streams;
    for (std::size_t k = 0; k < packed.size(); ++k)
        streams.push_back({std::span(source).subspan(at[k], packed[k].size()), contents[of[k]].size(), crc_of(contents[of[k]]),
                           k % 2 ? std::span<const std::uint8_t>(source) : std::span<const std::uint8_t>()});
    for (const ve::deflate_route route : routes) {
        for (const std::uint64_t batch : {std::uint64_t{64} << 20, std::uint64_t{50000}}) {
            BOOST_TEST_CONTEXT("route " << route << ", batches of " << batch << " bytes") {
                ve::deflate_options o;
                o.route = route;
                o.device_max_bytes = no_cap;
                o.batch_input_bytes = o.batch_output_bytes = batch;
                const ve::deflate_result r = ve::decompress_deflate(dev.ctx(), streams, o);
                BOOST_TEST(r.ok());
                for (std::size_t k = 0; k < streams.size(); ++k) {
                    BOOST_TEST(!r.errors[k], "stream " << k << ": " << r.errors[k].value_or(""));
                    BOOST_TEST((r.content(k).size() == contents[of[k]].size() &&
                                std::equal(r.content(k).begin(), r.content(k).end(), contents[of[k]].begin())),
                               "stream " << k);
                }
                const std::size_t device = expected_device_streams(dev, route, streams.size());
                BOOST_TEST(r.report.streams == streams.size());
                BOOST_TEST(r.report.device_streams == device);
                BOOST_TEST(r.report.host_streams == streams.size() - device);
                BOOST_TEST((r.report.batches != 0) == (device != 0));
                if (device != 0 && batch < 1000000) BOOST_TEST(r.report.batches > 2u);
                if (device != 0 && batch > 1000000) BOOST_TEST(r.report.batches == 1u);
                // One batch's input comes from many runs of the source through the pinned slots
                // (runtime::write_gathered, from 1 MiB); batches of 50,000 bytes straight.
                if (device != 0 && batch > 1000000) BOOST_TEST(r.report.device_input_bytes >= vyre::runtime::staged_write_minimum);
            }
        }
    }
    // Nothing at all.
    const ve::deflate_result none = ve::decompress_deflate(dev.ctx(), std::span<const ve::deflate_stream>());
    BOOST_TEST(none.offsets.size() == 1u);
    BOOST_TEST(none.output->empty());
}

VYRE_DEVICE_TEST(corrupt_streams_name_the_status_and_the_size_on_every_route) {
    const bytes content = corpus(60000, 4);
    const bytes good = zlib_deflate(content, 6);
    const std::uint32_t crc = crc_of(content);
    bytes flipped = good;
    for (std::size_t i = 200; i < 240; ++i) flipped[i] ^= 0x5A;
    const bytes truncated(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2));
    const bytes stored = zlib_deflate(content, 0);
    bytes bad_len = stored;
    bad_len[3] ^= 1; // the first stored block's NLEN no longer complements LEN
    const std::vector<ve::deflate_stream> streams = {
        {flipped, content.size(), crc}, {truncated, content.size(), crc}, {good, content.size() + 1, crc},
        {good, content.size() - 1, crc}, {good, content.size(), crc ^ 1}, {bad_len, content.size(), crc},
        {good, content.size(), crc}, // and one good stream among them
    };
    std::vector<std::string> first;
    for (const ve::deflate_route route : routes) {
        BOOST_TEST_CONTEXT("route " << route) {
            ve::deflate_options o;
            o.route = route;
            const ve::deflate_result r = ve::decompress_deflate(dev.ctx(), streams, o);
            BOOST_TEST(r.report.failed_streams == streams.size() - 1);
            BOOST_TEST(!r.errors.back());
            BOOST_TEST(std::equal(r.content(streams.size() - 1).begin(), r.content(streams.size() - 1).end(), content.begin()));
            std::vector<std::string> got;
            for (std::size_t k = 0; k + 1 < streams.size(); ++k) got.push_back(r.errors[k].value_or("(no error)"));
            // The oracle's status, by name, with the size expected.
            for (std::size_t k : {0u, 1u, 3u, 5u}) {
                bytes out(streams[k].size);
                const auto m = vyre::reference::deflate_inflate(streams[k].input, out);
                const std::string named = std::string(vyre::compression::deflate_error_name(m.status.code)) + " after " +
                                          std::to_string(m.status.output_size) + " bytes, " + std::to_string(streams[k].size) +
                                          " expected";
                if (m.status.code != 0) BOOST_TEST(got[k] == named, "stream " << k);
            }
            BOOST_TEST(got[1].rfind("input_overrun after ", 0) == 0u, got[1]);
            BOOST_TEST(got[2] == "decodes to " + std::to_string(content.size()) + " bytes, " + std::to_string(content.size() + 1) + " expected");
            BOOST_TEST(got[3].rfind("output_overflow after ", 0) == 0u, got[3]);
            BOOST_TEST(contains(got[3], " bytes, " + std::to_string(content.size() - 1) + " expected"), got[3]);
            BOOST_TEST(contains(got[4], "CRC-32 mismatch: expected "), got[4]);
            BOOST_TEST(got[5] == "stored_length_mismatch after 0 bytes, " + std::to_string(content.size()) + " expected");
            if (first.empty()) first = got;
            else BOOST_TEST(got == first, "the same messages on every route");
        }
    }
}

// keep_on_device: the device streams' content stays on the device; what comes back (statuses,
// CRCs computed there, heads) gives the same verdicts as the bytes would, and the kept buffer holds
// exactly the content.
VYRE_DEVICE_TEST(kept_streams_stay_on_the_device_with_the_same_checks) {
    std::mt19937_64 rng(vyre::test::test_seed());
    std::vector<bytes> contents = {{}, vyre::test::to_bytes("abc"), corpus(200000, 5), vyre::test::random_bytes(rng, 70000),
                                   bytes(600, 'q'), vyre::test::text_bytes(rng, 40000)};
    std::vector<bytes> packed;
    for (const bytes& c : contents) packed.push_back(zlib_deflate(c, 6));
    std::vector<ve::deflate_stream> streams;
    for (std::size_t k = 0; k < contents.size(); ++k) streams.push_back({packed[k], contents[k].size(), crc_of(contents[k])});
    // A stream whose CRC is wrong and one whose size is: the verdicts of the host route.
    streams.push_back({packed[2], contents[2].size(), crc_of(contents[2]) ^ 0x10});
    streams.push_back({packed[5], contents[5].size() + 3, crc_of(contents[5])});
    ve::deflate_options host;
    host.route = ve::deflate_route::host;
    const ve::deflate_result want = ve::decompress_deflate(dev.ctx(), streams, host);
    BOOST_TEST(!want.kept);
    for (const std::uint64_t batch : {std::uint64_t{64} << 20, std::uint64_t{50000}}) {
        BOOST_TEST_CONTEXT("batches of " << batch << " bytes") {
            ve::deflate_options o;
            o.route = ve::deflate_route::device;
            o.keep_on_device = true;
            o.batch_input_bytes = o.batch_output_bytes = batch;
            const ve::deflate_result r = ve::decompress_deflate(dev.ctx(), streams, o);
            BOOST_REQUIRE(r.kept);
            BOOST_TEST(r.output->empty(), "nothing of the kept streams in host memory");
            BOOST_TEST(r.report.kept_bytes == r.report.device_output_bytes);
            BOOST_TEST(r.errors == want.errors);
            for (std::size_t k = 0; k < contents.size(); ++k) {
                BOOST_TEST_CONTEXT("stream " << k) {
                    BOOST_REQUIRE(r.kept->has(k));
                    BOOST_TEST(r.content(k).empty());
                    bytes back(contents[k].size());
                    vyre::runtime::read(dev.ctx(), r.kept->buffer, back.data(), back.size(), r.kept->offsets[k]);
                    BOOST_TEST(back == contents[k]);
                    const auto head = r.kept->head(k, contents[k].size());
                    BOOST_TEST(head.size() == std::min<std::size_t>(contents[k].size(), ve::deflate_head_bytes));
                    BOOST_TEST(std::equal(head.begin(), head.end(), contents[k].begin()));
                }
            }
        }
    }
}

// ---- gzip files ----------------------------------------------------------------------------------------

VYRE_DEVICE_TEST(gzip_tool_files_on_every_route) {
    temp_dir dir;
    const bytes content = corpus(400000, 5);
    for (const int level : {1, 6, 9}) {
        const bytes file = gzip_tool(dir, content, level, "corpus" + std::to_string(level));
        for (const ve::deflate_route route : routes) {
            BOOST_TEST_CONTEXT("gzip -" << level << ", route " << route) {
                const gzip_outcome g = gzip_on(dev, file, route);
                BOOST_TEST(g.error.empty(), g.error);
                BOOST_TEST(g.data == content);
                BOOST_TEST(g.report.layout == fmt::gzip_layout_kind::single);
                BOOST_TEST(!g.report.whole_on_host, g.report.host_reason);
                BOOST_TEST(g.report.members == 1u);
                BOOST_TEST(g.report.deflate.device_streams == expected_device_streams(dev, route, 1));
            }
        }
    }
}

VYRE_DEVICE_TEST(gzip_multi_member_bgzf_flags_and_empty_members) {
    temp_dir dir;
    const bytes a = corpus(120000, 6), b = corpus(70000, 7);
    const bytes ga = gzip_tool(dir, a, 6, "a"), gb = gzip_tool(dir, b, 9, "b");
    std::uint8_t all = fmt::gzip_flag_text | fmt::gzip_flag_hcrc | fmt::gzip_flag_extra | fmt::gzip_flag_name | fmt::gzip_flag_comment;
    run("gzip -c < /dev/null > " + q(dir.path / "empty.gz"));
    const bytes empty = read_file(dir.path / "empty.gz");
    struct file {
        std::string name;
        bytes gz, content;
        fmt::gzip_layout_kind layout;
        bool whole; // inflated whole on the host on every route
        std::size_t members;
    };
    const std::vector<file> files = {
        {"cat a.gz b.gz", concat(ga, gb), concat(a, b), fmt::gzip_layout_kind::single, true, 2},
        {"cat a.gz a.gz", concat(ga, ga), concat(a, a), fmt::gzip_layout_kind::unknown, true, 2},
        {"BGZF", bgzf_file(a, 20000), a, fmt::gzip_layout_kind::bgzf, false, 7},
        {"BGZF, level 1, padded", concat(bgzf_file(b, 65000, 1), bytes(512, 0)), b, fmt::gzip_layout_kind::bgzf, false, 3},
        {"every header flag", gzip_member(a, 9, all, false, "name.bin", "a comment", bytes{'X', 'Y', 1, 0, 7}), a,
         fmt::gzip_layout_kind::single, false, 1},
        {"FNAME and FHCRC", gzip_member(b, 1, fmt::gzip_flag_name | fmt::gzip_flag_hcrc, false, "b.txt"), b,
         fmt::gzip_layout_kind::single, false, 1},
        {"gzip of nothing", empty, {}, fmt::gzip_layout_kind::single, false, 1},
        {"an empty member, hand-built", gzip_member({}), {}, fmt::gzip_layout_kind::single, false, 1},
        {"two empty members", concat(empty, empty), {}, fmt::gzip_layout_kind::unknown, true, 2},
        {"an empty member, then a", concat(empty, ga), a, fmt::gzip_layout_kind::single, true, 2},
    };
    for (const file& f : files)
        for (const ve::deflate_route route : routes) {
            BOOST_TEST_CONTEXT(f.name << ", route " << route) {
                const gzip_outcome g = gzip_on(dev, f.gz, route);
                BOOST_TEST(g.error.empty(), g.error);
                BOOST_TEST(g.data == f.content);
                BOOST_TEST(g.report.layout == f.layout);
                BOOST_TEST(g.report.whole_on_host == f.whole, g.report.host_reason);
                BOOST_TEST(g.report.members == f.members);
                if (f.whole) BOOST_TEST(!g.report.host_reason.empty());
                if (!f.whole) BOOST_TEST(g.report.deflate.device_streams == expected_device_streams(dev, route, f.members));
                // The gzip tool reads the same bytes (it warns about zero padding, with status 2).
                if (route == ve::deflate_route::host && !contains(f.name, "padded")) {
                    write_file(dir.path / "t.gz", f.gz);
                    run("gzip -d -c " + q(dir.path / "t.gz") + " > " + q(dir.path / "t.out"));
                    BOOST_TEST(read_file(dir.path / "t.out") == f.content);
                }
            }
        }
    // A BGZF file's members go to the device in one dispatch.
    const gzip_outcome g = gzip_on(dev, bgzf_file(concat(a, b), 30000), ve::deflate_route::device);
    BOOST_TEST(g.report.deflate.device_streams == 8u);
    BOOST_TEST(g.report.deflate.batches == 1u);
}

VYRE_DEVICE_TEST(corrupt_gzip_files_fail_with_the_same_message_on_every_route) {
    temp_dir dir;
    const bytes content = corpus(100000, 8);
    const bytes gz = gzip_tool(dir, content, 6, "c");
    const std::size_t n = gz.size();
    std::vector<std::pair<std::string, bytes>> files;
    bytes f = gz;
    for (std::size_t i = n / 2; i < n / 2 + 16; ++i) f[i] ^= 0xA5;
    files.emplace_back("flipped bits", f);
    files.emplace_back("truncated", bytes(gz.begin(), gz.begin() + static_cast<std::ptrdiff_t>(n - 100)));
    f = gz;
    f[n - 4] ^= 1; // ISIZE one off
    files.emplace_back("lying ISIZE", f);
    f = gz;
    f[n - 8] ^= 0x10;
    files.emplace_back("lying CRC", f);
    f = bgzf_file(content, 30000);
    const fmt::gzip_member second = fmt::gzip_layout_of(f).members.at(1);
    f[second.deflate_offset + second.deflate_size / 2] ^= 0xFF;
    files.emplace_back("BGZF, a member flipped", f);
    for (const auto& [name, file] : files) {
        std::string first;
        for (const ve::deflate_route route : routes) {
            BOOST_TEST_CONTEXT(name << ", route " << route) {
                const gzip_outcome g = gzip_on(dev, file, route);
                BOOST_TEST(!g.error.empty());
                BOOST_TEST(g.data.empty());
                if (name == "lying ISIZE") {
                    BOOST_TEST(contains(g.error, "gzip ISIZE is " + std::to_string(content.size() ^ 1)), g.error);
                    BOOST_TEST(contains(g.error, "member 0 (byte offset 0, ISIZE " + std::to_string(content.size() ^ 1) + ")"), g.error);
                }
                if (name == "lying CRC") BOOST_TEST(contains(g.error, "CRC-32 mismatch"), g.error);
                if (name == "flipped bits") BOOST_TEST(contains(g.error, "read as one member, member 0"), g.error);
                if (name == "BGZF, a member flipped") BOOST_TEST(contains(g.error, "read as BGZF members, member "), g.error);
                if (first.empty()) first = g.error;
                else BOOST_TEST(g.error == first);
            }
        }
    }
}

VYRE_DEVICE_TEST(seeded_mutations_agree_on_every_route) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("VYRE_TEST_SEED=" << seed) {
        std::mt19937_64 rng(seed);
        const bytes content = corpus(30000, seed);
        const std::vector<bytes> bases = {gzip_member(content, 6), gzip_member(content, 0), bgzf_file(content, 8000)};
        for (int round = 0; round < 24; ++round) {
            bytes file = bases[static_cast<std::size_t>(round) % bases.size()];
            const int kind = static_cast<int>(rng() % 3);
            if (kind == 0) file[rng() % file.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
            if (kind == 1) file.resize(1 + rng() % file.size());
            if (kind == 2)
                for (int i = 0; i < 8; ++i) file[10 + rng() % (file.size() - 10)] = static_cast<std::uint8_t>(rng());
            gzip_outcome first;
            for (const ve::deflate_route route : {ve::deflate_route::device, ve::deflate_route::host}) {
                BOOST_TEST_CONTEXT("round " << round << ", route " << route) {
                    gzip_outcome g;
                    try {
                        g = gzip_on(dev, file, route);
                    } catch (const std::exception& e) {
                        BOOST_FAIL("not a format_error: " << e.what());
                    }
                    if (route == ve::deflate_route::device) first = g;
                    else {
                        BOOST_TEST(g.error == first.error);
                        BOOST_TEST(g.data == first.data);
                    }
                }
            }
        }
    }
}

// ---- ZIP and gzip through engine::unpack -----------------------------------------------------------------

struct tree {
    temp_dir dir;
    fs::path src;
    tree() {
        src = dir.path / "src";
        fs::create_directories(src / "text");
        std::mt19937_64 rng(11);
        write_file(src / "text" / "corpus.txt", vyre::test::system_corpus(300000));
        write_file(src / "random.bin", vyre::test::random_bytes(rng, 50000));
        write_file(src / "runs.bin", vyre::test::repetitive_bytes(rng, 200000));
        write_file(src / "empty.txt", bytes{});
        write_file(src / "one.txt", vyre::test::to_bytes("1"));
    }
};

ve::unpack_report unpack_files(vyre::test::device_case& dev, const std::vector<fs::path>& files, const fs::path& out,
                               ve::deflate_route route, std::uint64_t pieces_min = ve::deflate_pieces_min_bytes) {
    std::vector<bytes> data;
    data.reserve(files.size());
    std::vector<ve::unpack_input> inputs;
    for (const auto& f : files) {
        data.push_back(read_file(f));
        inputs.push_back({f.filename().string(), data.back()});
    }
    ve::unpack_options o;
    o.output_dir = out;
    o.deflate = route;
    o.deflate_device_max_bytes = no_cap;
    o.deflate_pieces_min_bytes = pieces_min;
    return ve::unpack(dev.ctx(), inputs, o);
}

std::string problems_of(const ve::unpack_report& r) {
    std::string s;
    for (const auto& p : r.problems) s += "\n  " + std::string(ve::unpack_status_name(p.kind)) + " " + p.path + ": " + p.message;
    return s;
}

void check_same_files(const fs::path& src, const fs::path& out) {
    std::set<std::string> seen;
    for (const auto& e : fs::recursive_directory_iterator(src)) {
        if (!e.is_regular_file()) continue;
        const std::string rel = e.path().lexically_relative(src).generic_string();
        BOOST_TEST((fs::is_regular_file(out / rel) && read_file(out / rel) == read_file(e.path())), rel << " in " << out);
    }
}

VYRE_DEVICE_TEST(zip_tool_levels_and_gzip_files_through_unpack_in_one_pass) {
    tree t;
    const fs::path a = t.dir.path;
    std::vector<fs::path> inputs;
    for (int level = 0; level <= 9; ++level) {
        inputs.push_back(a / ("l" + std::to_string(level) + ".zip"));
        run("cd " + q(t.src) + " && zip -q -r -" + std::to_string(level) + " " + q(inputs.back()) + " .");
    }
    run("tar -czf " + q(a / "t.tar.gz") + " -C " + q(t.src) + " .");
    inputs.push_back(a / "t.tar.gz");
    const bytes corpus_txt = read_file(t.src / "text" / "corpus.txt");
    write_file(a / "b.txt.gz", bgzf_file(corpus_txt, 40000));
    inputs.push_back(a / "b.txt.gz");
    for (const ve::deflate_route route : routes) {
        BOOST_TEST_CONTEXT("route " << route) {
            const fs::path out = a / ("out_" + std::string(ve::deflate_route_name(route)));
            const ve::unpack_report r = unpack_files(dev, inputs, out, route);
            BOOST_TEST(r.problems.empty(), problems_of(r));
            BOOST_TEST(read_file(out / "b.txt") == corpus_txt);
            check_same_files(t.src, out); // each input extracts into `out`: the same files every time
            BOOST_TEST(r.deflate_host_files == 0u);
            // zip deflates corpus.txt and runs.bin at levels 1 to 9 (it stores what deflate does not
            // shrink), the tar.gz is one stream, the BGZF file eight blocks and its EOF member.
            BOOST_TEST(r.deflate_streams >= 9u * 2 + 1 + 9);
            const std::size_t device = expected_device_streams(dev, route, r.deflate_streams);
            BOOST_TEST(r.deflate_device_streams == device);
            // Every deflate stream of the layer in one pass: one dispatch at the default batch size.
            BOOST_TEST(r.deflate_dispatches == (device != 0 ? 1u : 0u));
            BOOST_TEST(r.deflate_piece_streams == 0u);
        }
    }
    // The device route with streams from 256 KiB up in pieces: the tar.gz's one stream and
    // corpus.txt (300,000 bytes) in each ZIP made at levels 1 to 9.
    const fs::path out = a / "out_pieces";
    const ve::unpack_report r = unpack_files(dev, inputs, out, ve::deflate_route::device, 256 << 10);
    BOOST_TEST(r.problems.empty(), problems_of(r));
    BOOST_TEST(read_file(out / "b.txt") == corpus_txt);
    check_same_files(t.src, out);
    BOOST_TEST(r.deflate_piece_streams == 10u);
    BOOST_TEST(r.deflate_pieces >= 10u);
    BOOST_TEST(r.deflate_device_streams == r.deflate_streams);
}

VYRE_DEVICE_TEST(corrupt_entries_and_members_are_named_in_unpack_on_every_route) {
    tree t;
    const fs::path a = t.dir.path;
    run("cd " + q(t.src / "text") + " && zip -q -6 " + q(a / "z.zip") + " corpus.txt");
    run("cd " + q(t.src) + " && zip -q -6 " + q(a / "y.zip") + " runs.bin one.txt");
    const bytes zip = read_file(a / "z.zip");
    const std::size_t data = 30 + std::string("corpus.txt").size() + (zip[28] | zip[29] << 8);
    bytes flipped = zip;
    for (std::size_t i = data + 1000; i < data + 1040; ++i) flipped[i] ^= 0x5A;
    write_file(a / "flipped.zip", flipped);
    // A lying CRC and a lying size, in the local header and the central directory alike.
    const auto central = static_cast<std::size_t>(std::search(zip.begin(), zip.end(), std::begin("PK\1\2"), std::begin("PK\1\2") + 4) - zip.begin());
    bytes crc = zip;
    crc[14] ^= 1;
    crc[central + 16] ^= 1;
    write_file(a / "crc.zip", crc);
    bytes size = zip;
    size[22] ^= 1;
    size[central + 24] ^= 1;
    write_file(a / "size.zip", size);
    const bytes content = read_file(t.src / "text" / "corpus.txt");
    bytes gz = gzip_member(content);
    gz[gz.size() / 2] ^= 0x81;
    write_file(a / "bad.txt.gz", gz);
    const std::vector<fs::path> inputs = {a / "flipped.zip", a / "crc.zip", a / "size.zip", a / "y.zip", a / "bad.txt.gz"};
    std::vector<std::string> first;
    for (const ve::deflate_route route : routes) {
        BOOST_TEST_CONTEXT("route " << route) {
            const ve::unpack_report r = unpack_files(dev, inputs, a / ("out_" + std::string(ve::deflate_route_name(route))), route);
            BOOST_TEST_MESSAGE(problems_of(r));
            BOOST_REQUIRE_EQUAL(r.problems.size(), 4u);
            std::vector<std::string> got;
            for (const auto& p : r.problems) {
                BOOST_TEST((p.kind == ve::unpack_status::corrupt));
                got.push_back(p.path + ": " + p.message);
            }
            BOOST_TEST(contains(got[0], "flipped.zip!/corpus.txt: ZIP entry 'corpus.txt': "), got[0]);
            BOOST_TEST(contains(got[0], " expected"), got[0]);
            BOOST_TEST(contains(got[1], "crc.zip!/corpus.txt: ZIP entry 'corpus.txt': CRC-32 mismatch"), got[1]);
            BOOST_TEST(contains(got[2], "size.zip!/corpus.txt: ZIP entry 'corpus.txt': "), got[2]);
            BOOST_TEST(contains(got[2], std::to_string(content.size() ^ 1) + " expected"), got[2]);
            BOOST_TEST(contains(got[3], "bad.txt.gz: gzip: "), got[3]);
            BOOST_TEST(contains(got[3], "read as one member, member 0 (byte offset 0, ISIZE " + std::to_string(content.size()) + ")"), got[3]);
            BOOST_TEST(r.deflate_host_files == 1u); // bad.txt.gz, inflated whole to say what is wrong
            // The intact archive beside them is extracted.
            BOOST_TEST(read_file(a / ("out_" + std::string(ve::deflate_route_name(route))) / "runs.bin") == read_file(t.src / "runs.bin"));
            if (first.empty()) first = got;
            else BOOST_TEST(got == first, "the same messages on every route");
        }
    }
    // Content kept on the device (listing only, files handed to a later stage): the CRCs and
    // statuses checked there give the same problems, and the intact entries hold their bytes.
    std::vector<bytes> held;
    std::vector<ve::unpack_input> in;
    for (const auto& f : inputs) held.push_back(read_file(f));
    for (std::size_t i = 0; i < inputs.size(); ++i) in.push_back({inputs[i].filename().string(), held[i]});
    ve::unpack_options o;
    o.deflate = ve::deflate_route::device;
    o.deflate_device_max_bytes = no_cap;
    o.keep_on_device = true;
    std::map<std::string, bytes> files;
    std::size_t on_device = 0;
    o.layer_files = [&](std::span<const ve::unpack_file_view> views) {
        for (const auto& v : views) {
            bytes b(v.bytes.begin(), v.bytes.end());
            if (v.device) {
                ++on_device;
                b.resize(v.device->size);
                vyre::runtime::read(dev.ctx(), v.device->buffer, b.data(), b.size(), v.device->offset);
            }
            files[std::string(v.path)] = std::move(b);
        }
    };
    const ve::unpack_report r = ve::unpack(dev.ctx(), in, o);
    std::vector<std::string> got;
    for (const auto& p : r.problems) got.push_back(p.path + ": " + p.message);
    BOOST_TEST(got == first, "the same messages with the content kept on the device");
    BOOST_TEST(r.kept_bytes > 0u);
    BOOST_TEST(on_device >= 1u); // runs.bin (one.txt is small enough that zip may store it)
    BOOST_TEST(files["y.zip!/runs.bin"] == read_file(t.src / "runs.bin"));
    BOOST_TEST(files["y.zip!/one.txt"] == read_file(t.src / "one.txt"));
}

} // namespace

VYRE_TEST_MAIN
