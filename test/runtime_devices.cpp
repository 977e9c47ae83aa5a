// The device layer: enumeration, filtering, the default choice, and a context that runs work.
#include "harness.hpp"

#include <vyre/ops/primitive.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/device_pool.hpp>

#include <CL/opencl.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <random>
#include <stdexcept>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace rt = vyre::runtime;

BOOST_AUTO_TEST_CASE(filter_that_matches_nothing_is_an_error) {
    BOOST_CHECK_THROW(rt::choose_device("no such device, surely"), vyre::no_device);
}

BOOST_AUTO_TEST_CASE(filter_is_case_insensitive_substring) {
    const auto all = rt::list_devices();
    BOOST_REQUIRE(!all.empty());
    const auto& first = all.front();
    std::string upper = first.platform;
    for (auto& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    const auto hits = rt::filter_devices(all, upper);
    BOOST_TEST(!hits.empty());
    BOOST_TEST(rt::filter_devices(all, "").size() == all.size());
}

BOOST_AUTO_TEST_CASE(select_devices_by_all_number_and_name) {
    const auto all = rt::list_devices();
    BOOST_REQUIRE(!all.empty());
    BOOST_TEST(rt::select_devices(all, {"all"}).size() == all.size());
    BOOST_TEST(rt::select_devices(all, {"0"}).size() == 1u);
    // The same device named twice (by number and by name) is chosen once.
    BOOST_TEST(rt::select_devices(all, {"0", all.front().name}).size() == rt::filter_devices(all, all.front().name).size());
    BOOST_TEST(rt::select_devices(all, {"0", "0"}).size() == 1u);
    const auto by_name = rt::select_devices(all, {all.front().platform});
    BOOST_TEST(!by_name.empty());
    BOOST_TEST(by_name.front().label() == all.front().label());
    for (const std::string bad : {"999", "no such device, surely", ""}) {
        try {
            rt::select_devices(all, {bad});
            BOOST_ERROR("select_devices accepted \"" << bad << "\"");
        } catch (const vyre::no_device& e) {
            BOOST_TEST(std::string(e.what()).find("\"" + bad + "\"") != std::string::npos, e.what());
            BOOST_TEST(std::string(e.what()).find(all.front().label()) != std::string::npos, e.what());
        }
    }
}

namespace {
// batch_schedule driven by made-up devices of fixed speeds (bytes per second): each device asks
// for its next batch when its previous one would end. Returns the time the last batch ends and
// checks that every item is handed out once, in contiguous batches.
struct simulated_run {
    double makespan = 0;
    std::vector<std::uint64_t> bytes; // per device
    std::vector<bool> declined;
};

simulated_run simulate(const std::vector<std::uint64_t>& sizes, const std::vector<double>& speeds, rt::batch_limits limits = {}) {
    rt::batch_schedule s(sizes, speeds.size(), limits);
    std::vector<double> free_at(speeds.size(), 0);
    std::vector<bool> stopped(speeds.size(), false);
    std::vector<int> owner(sizes.size(), -1);
    simulated_run r;
    r.bytes.assign(speeds.size(), 0);
    std::size_t expected_first = 0;
    for (;;) {
        std::size_t d = speeds.size();
        for (std::size_t k = 0; k < speeds.size(); ++k)
            if (!stopped[k] && (d == speeds.size() || free_at[k] < free_at[d])) d = k;
        if (d == speeds.size()) break;
        const auto batch = s.next(d);
        if (!batch) {
            stopped[d] = true;
            continue;
        }
        BOOST_REQUIRE_EQUAL(batch->first, expected_first); // contiguous, in order
        BOOST_REQUIRE_LT(batch->first, batch->second);
        expected_first = batch->second;
        std::uint64_t b = 0;
        for (std::size_t i = batch->first; i < batch->second; ++i) {
            BOOST_REQUIRE_EQUAL(owner[i], -1);
            owner[i] = static_cast<int>(d);
            b += sizes[i];
        }
        const double seconds = static_cast<double>(b) / speeds[d];
        free_at[d] += seconds;
        s.done(d, b, seconds);
        r.bytes[d] += b;
    }
    BOOST_REQUIRE_EQUAL(expected_first, sizes.size());
    BOOST_TEST(std::count(owner.begin(), owner.end(), -1) == 0);
    r.makespan = *std::max_element(free_at.begin(), free_at.end());
    for (std::size_t d = 0; d < speeds.size(); ++d) r.declined.push_back(s.declined(d));
    return r;
}
} // namespace

BOOST_AUTO_TEST_CASE(batch_schedule_follows_measured_throughput) {
    std::mt19937_64 rng(vyre::test::test_seed());
    std::vector<std::uint64_t> sizes(3000);
    std::uint64_t total = 0;
    for (auto& s : sizes) total += s = 1 + rng() % (8u << 20); // archives of up to 8 MiB: about 12 GB
    const auto ideal = [&](const std::vector<double>& speeds) {
        double all = 0;
        for (const double v : speeds) all += v;
        return static_cast<double>(total) / all;
    };
    // One device takes everything and never declines.
    const auto one = simulate(sizes, {5e9});
    BOOST_TEST(one.bytes[0] == total);
    BOOST_TEST(!one.declined[0]);
    // Two equal GPUs share the work evenly and finish together.
    const auto two = simulate(sizes, {20e9, 20e9});
    BOOST_TEST(two.makespan <= 1.05 * ideal({20e9, 20e9}), two.makespan << " s against " << ideal({20e9, 20e9}));
    // A CPU device ten times slower than the GPU takes about its share, and the end is not held up.
    const auto mixed = simulate(sizes, {20e9, 2e9});
    BOOST_TEST(mixed.bytes[1] < total / 5, mixed.bytes[1] << " of " << total << " bytes on the slow device");
    BOOST_TEST(mixed.bytes[1] > 0u);
    BOOST_TEST(mixed.makespan <= 1.05 * ideal({20e9, 2e9}), mixed.makespan << " s against " << ideal({20e9, 2e9}));
    // A device a hundred times slower takes little and stops before the end, where a batch of its
    // own would outlast the GPU's work on everything left.
    const auto slow = simulate(sizes, {20e9, 200e6});
    BOOST_TEST(slow.declined[1]);
    BOOST_TEST(!slow.declined[0]);
    BOOST_TEST(slow.bytes[1] < total / 50, slow.bytes[1] << " of " << total << " bytes on the slow device");
    BOOST_TEST(slow.makespan <= 1.05 * ideal({20e9, 200e6}), slow.makespan << " s against " << ideal({20e9, 200e6}));
    // Batches respect max_items, and one item larger than max_bytes is still handed out whole.
    rt::batch_limits tiny;
    tiny.min_bytes = 1;
    tiny.max_bytes = 1;
    tiny.max_items = 1;
    const auto single_items = simulate(sizes, {1e9, 1e9, 3e9}, tiny);
    BOOST_TEST(single_items.bytes[0] + single_items.bytes[1] + single_items.bytes[2] == total);
}

BOOST_AUTO_TEST_CASE(opencl_error_names) {
    BOOST_TEST(vyre::opencl_error_name(-5) == "CL_OUT_OF_RESOURCES");
    BOOST_TEST(vyre::opencl_error_name(-11) == "CL_BUILD_PROGRAM_FAILURE");
    BOOST_TEST(vyre::opencl_error_name(-12345) == "CL error -12345");
}

VYRE_DEVICE_TEST(device_reports_sane_limits) {
    const auto& d = dev.info();
    BOOST_TEST(!d.name.empty());
    BOOST_TEST(d.compute_units >= 1u);
    BOOST_TEST(d.max_workgroup_size >= 1u);
    BOOST_TEST(d.max_allocation >= 1024u * 1024u);
    BOOST_TEST(d.little_endian); // the Bytes layout of the IR assumes a little-endian device
}

VYRE_DEVICE_TEST(context_runs_a_kernel) {
    auto& ctx = dev.ctx();
    auto program = boost::compute::program::create_with_source(
        "__kernel void twice(__global uint* o) { o[get_global_id(0)] = 2u * (uint)get_global_id(0); }",
        ctx.cl_context());
    program.build();
    boost::compute::kernel k(program, "twice");
    boost::compute::buffer b(ctx.cl_context(), 256 * sizeof(cl_uint));
    k.set_arg(0, b);
    ctx.queue().enqueue_1d_range_kernel(k, 0, 256, 0);
    std::vector<cl_uint> host(256, 7);
    ctx.queue().enqueue_read_buffer(b, 0, 256 * sizeof(cl_uint), host.data());
    for (cl_uint i = 0; i < 256; ++i) BOOST_TEST(host[i] == 2 * i);
}

// write_staged through the context's pinned slots: three slices and an odd tail at an odd offset
// (both slots reused, the last slice short), on the context, then on a copy of it made once its
// slots exist (it shares them); the bytes outside the written range stay.
VYRE_DEVICE_TEST(staged_writes_land_where_asked) {
    auto& ctx = dev.ctx();
    const std::size_t bytes = 2 * vyre::runtime::staged_write_slice + vyre::runtime::staged_write_slice / 2 + 12345, offset = 4099;
    std::vector<std::uint8_t> src(bytes);
    std::mt19937 rng(vyre::test::test_seed());
    for (auto& b : src) b = static_cast<std::uint8_t>(rng());
    auto dst = vyre::runtime::allocate(ctx, bytes + offset + 1000);
    for (int round = 0; round < 2; ++round) {
        vyre::runtime::fill(ctx, dst, 0x5A5A5A5Au, dst.size() & ~std::size_t{3});
        vyre::runtime::context copy = ctx;
        vyre::runtime::write_staged(round == 0 ? ctx : copy, dst, src.data(), bytes, offset);
        const auto back = vyre::runtime::download<std::uint8_t>(ctx, dst, dst.size() & ~std::size_t{3});
        BOOST_TEST(std::equal(src.begin(), src.end(), back.begin() + static_cast<std::ptrdiff_t>(offset)), "round " << round);
        BOOST_TEST(std::all_of(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(offset), [](std::uint8_t b) { return b == 0x5A; }));
        BOOST_TEST(std::all_of(back.begin() + static_cast<std::ptrdiff_t>(offset + bytes), back.end(), [](std::uint8_t b) { return b == 0x5A; }));
        BOOST_TEST(ctx.staging() != nullptr);
        if (round == 1) BOOST_TEST(copy.staging() == ctx.staging()); // a copy made once the slots exist shares them
    }
}

// read_staged, the way back through the same slots: several sizes from an odd offset (below
// staged_write_minimum, read directly; one slice and a bit; four slices and an odd tail, so that
// both slots are refilled), each landing in host memory exactly, the bytes around it untouched.
VYRE_DEVICE_TEST(staged_reads_bring_back_what_was_asked) {
    auto& ctx = dev.ctx();
    const std::size_t slice = vyre::runtime::staged_write_slice, offset = 4099;
    const std::size_t total = 4 * slice + 12345;
    std::vector<std::uint8_t> src(total + offset);
    std::mt19937 rng(vyre::test::test_seed() + 1);
    for (auto& b : src) b = static_cast<std::uint8_t>(rng());
    const auto buffer = vyre::runtime::upload(ctx, std::span<const std::uint8_t>(src), CL_MEM_READ_ONLY);
    for (const std::size_t bytes : {std::size_t{1000}, slice + 3, total}) {
        std::vector<std::uint8_t> back(bytes + 64, 0xA5);
        vyre::runtime::read_staged(ctx, buffer, back.data() + 32, bytes, offset);
        BOOST_TEST(std::equal(back.begin() + 32, back.begin() + 32 + static_cast<std::ptrdiff_t>(bytes), src.begin() + offset),
                   bytes << " bytes");
        BOOST_TEST(std::all_of(back.begin(), back.begin() + 32, [](std::uint8_t b) { return b == 0xA5; }));
        BOOST_TEST(std::all_of(back.end() - 32, back.end(), [](std::uint8_t b) { return b == 0xA5; }));
    }
}

// write_gathered: pieces of every size (empty ones, one byte, pieces that straddle slices and
// 1 MiB copy units) land back to back from an odd offset, as one joined buffer would; a total below
// staged_write_minimum (joined on the host first) and a single piece (written as it is) too.
VYRE_DEVICE_TEST(gathered_writes_land_back_to_back) {
    auto& ctx = dev.ctx();
    std::mt19937 rng(vyre::test::test_seed());
    const std::size_t slice = vyre::runtime::staged_write_slice;
    const std::vector<std::vector<std::size_t>> layouts = {
        {0, 1, 3 * (1u << 20) + 17, 0, slice - 5, 4097, slice + slice / 3, 0, 2, 12345},
        {0, 7, 300, 0, 5000, 1},
        {3, (1u << 20) + 5, 0, 0}, // ends in empty pieces, as a scan batch whose size is whole words does
        {2 * slice + 9},
    };
    for (const auto& sizes : layouts) {
        std::vector<std::vector<std::uint8_t>> pieces;
        std::vector<vyre::runtime::host_piece> gather;
        std::vector<std::uint8_t> joined;
        for (const std::size_t n : sizes) {
            pieces.emplace_back(n);
            for (auto& b : pieces.back()) b = static_cast<std::uint8_t>(rng());
            joined.insert(joined.end(), pieces.back().begin(), pieces.back().end());
        }
        for (const auto& p : pieces) gather.push_back({p.data(), p.size()});
        const std::size_t offset = 4099;
        auto dst = vyre::runtime::allocate(ctx, joined.size() + offset + 1000);
        vyre::runtime::fill(ctx, dst, 0x5A5A5A5Au, dst.size() & ~std::size_t{3});
        vyre::runtime::write_gathered(ctx, dst, gather, offset);
        const auto back = vyre::runtime::download<std::uint8_t>(ctx, dst, dst.size() & ~std::size_t{3});
        BOOST_TEST(std::equal(joined.begin(), joined.end(), back.begin() + static_cast<std::ptrdiff_t>(offset)), sizes.size() << " pieces");
        BOOST_TEST(std::all_of(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(offset), [](std::uint8_t b) { return b == 0x5A; }));
        BOOST_TEST(std::all_of(back.begin() + static_cast<std::ptrdiff_t>(offset + joined.size()), back.end(),
                               [](std::uint8_t b) { return b == 0x5A; }));
    }
}

// A context started in the background: unused until the first call that needs it, which waits for
// it; then the default device's, usable as any other and shared by its copies. An error in making
// it (a VYRE_DEVICE that matches nothing) is thrown by each call that needs it. (A device case,
// so that it stays out of the sanitizer build's host cases: it makes an OpenCL context.)
VYRE_DEVICE_TEST(context_made_in_the_background) {
    auto ctx = rt::context::in_background();
    const rt::context copy = ctx;
    BOOST_TEST(!ctx.used());
    // Known as soon as the device is chosen, maybe already; the same once the context is made.
    const std::optional<bool> early = ctx.is_cpu_device();
    BOOST_TEST(ctx.making_began_seconds_ago() >= 0.0);
    BOOST_TEST(ctx.device().label() == rt::choose_device().label());
    BOOST_TEST(ctx.used());
    BOOST_TEST(ctx.ready());
    const bool cpu = ctx.device().is_cpu() && !ctx.device().is_gpu();
    BOOST_TEST((ctx.is_cpu_device() == std::optional<bool>(cpu)));
    if (early) BOOST_TEST(*early == cpu);
    BOOST_TEST(copy.used());
    BOOST_TEST(copy.cl_context().get() == ctx.cl_context().get());
    BOOST_TEST(ctx.making_seconds() > 0.0);
    BOOST_TEST(ctx.waited_seconds() >= 0.0);
    const rt::context at_once;
    BOOST_TEST(at_once.used());
    BOOST_TEST(at_once.ready());
    BOOST_TEST(at_once.making_began_seconds_ago() == 0.0);
    BOOST_TEST(at_once.making_seconds() == 0.0);
    BOOST_TEST(at_once.waited_seconds() == 0.0);
    const std::vector<std::uint32_t> words{1, 2, 3, 0xdeadbeefu};
    auto b = rt::upload(ctx, std::span<const std::uint32_t>(words));
    std::vector<std::uint32_t> back(words.size(), 0);
    rt::read(ctx, b, back.data(), back.size() * 4);
    BOOST_TEST(back == words, boost::test_tools::per_element());

    const std::string before = rt::env_or_empty("VYRE_DEVICE");
    ::setenv("VYRE_DEVICE", "no such device, surely", 1);
    auto bad = rt::context::in_background();
    BOOST_CHECK_THROW(bad.device(), vyre::no_device);
    BOOST_CHECK_THROW(bad.queue(), vyre::no_device);
    if (before.empty()) ::unsetenv("VYRE_DEVICE");
    else ::setenv("VYRE_DEVICE", before.c_str(), 1);
}

// A context made on first use: nothing is made until a call needs it; then four threads asking at
// once all get the one context, made once, on the thread that came first.
VYRE_DEVICE_TEST(context_made_on_first_use) {
    const std::uint64_t started = rt::context::contexts_started();
    auto ctx = rt::context::on_first_use();
    const rt::context copy = ctx;
    BOOST_TEST(!ctx.used());
    BOOST_TEST(rt::context::contexts_started() == started); // nothing made yet
    BOOST_TEST(!ctx.ready());
    BOOST_TEST(!ctx.is_cpu_device()); // not chosen either
    std::vector<cl_context> seen(4, nullptr);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < seen.size(); ++t) threads.emplace_back([&, t] { seen[t] = copy.cl_context().get(); });
    for (auto& t : threads) t.join();
    BOOST_TEST(ctx.used());
    BOOST_TEST(rt::context::contexts_started() == started + 1); // made once, for all four
    for (const cl_context c : seen) BOOST_TEST(c == ctx.cl_context().get());
    BOOST_TEST(ctx.device().label() == rt::choose_device().label());
    BOOST_TEST(ctx.making_seconds() > 0.0);
    BOOST_TEST(ctx.waited_seconds() >= ctx.making_seconds());
}

// read_each: pieces of two buffers, in any order, an empty one among them, three thousand small
// ones, each into its own memory; the bytes around each destination stay.
VYRE_DEVICE_TEST(many_reads_land_in_their_own_memory) {
    auto& ctx = dev.ctx();
    std::vector<std::uint8_t> a(1000000), b(5000);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 7 + 1);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i * 13 + 5);
    const auto da = rt::upload(ctx, std::span<const std::uint8_t>(a)), db = rt::upload(ctx, std::span<const std::uint8_t>(b));
    struct want {
        const boost::compute::buffer* src;
        const std::vector<std::uint8_t>* host;
        std::size_t offset, bytes;
    };
    std::vector<want> wants = {{&da, &a, 99000, 1000}, {&db, &b, 3, 4001}, {&da, &a, 0, 0}, {&da, &a, 17, 65536}, {&db, &b, 0, 1},
                               {&da, &a, 900000, 50000}};
    for (std::size_t i = 0; i < 3000; ++i) wants.push_back({i % 2 ? &da : &db, i % 2 ? &a : &b, (i * 37) % 4000, i % 300});
    std::vector<std::vector<std::uint8_t>> out;
    std::vector<rt::read_piece> pieces;
    for (const auto& w : wants) out.emplace_back(w.bytes + 2, 0xee);
    for (std::size_t i = 0; i < wants.size(); ++i) pieces.push_back({wants[i].src, wants[i].offset, out[i].data() + 1, wants[i].bytes});
    rt::read_each(ctx, pieces);
    for (std::size_t i = 0; i < wants.size(); ++i) {
        const auto& w = wants[i];
        BOOST_TEST(out[i].front() == 0xee);
        BOOST_TEST(out[i].back() == 0xee);
        BOOST_TEST(std::equal(out[i].begin() + 1, out[i].end() - 1, w.host->begin() + static_cast<std::ptrdiff_t>(w.offset)), "piece " << i);
    }
}

VYRE_DEVICE_TEST(context_wraps_an_existing_queue) {
    auto& owned = dev.ctx();
    rt::context borrowed(owned.queue().get());
    BOOST_TEST(borrowed.device().name == dev.info().name);
    BOOST_TEST(borrowed.cl_context().get() == owned.cl_context().get());
}

VYRE_DEVICE_TEST(runs_on_an_opencl_clhpp_queue) {
    // An application that owns its OpenCL objects through OpenCL-CLHPP hands vyre its queue.
    cl::Device device(dev.info().device.id(), /*retain=*/true);
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    rt::context borrowed(queue());
    BOOST_TEST(borrowed.cl_context().get() == context());
    const auto* op = vyre::ops::primitive::find("primitive.math.max");
    BOOST_REQUIRE(op);
    rt::compiled_program cp(op->program());
    const auto out = vyre::ops::primitive::run(borrowed, cp, 2, std::vector<std::uint32_t>{3, 9, 12, 4});
    BOOST_TEST(out == (std::vector<std::uint32_t>{9, 12}));
}

// run_batches on real contexts: two queues on one device work through the items, each item once,
// and a failure in one batch stops the run and reaches the caller.
VYRE_DEVICE_TEST(run_batches_covers_every_item_once) {
    rt::context second(dev.ctx().device());
    rt::context* devices[] = {&dev.ctx(), &second};
    std::vector<std::uint64_t> sizes(200, 1000);
    std::vector<std::atomic<int>> seen(sizes.size());
    rt::batch_limits limits;
    limits.min_bytes = 1000;
    limits.max_bytes = 20000;
    const auto stats = rt::run_batches(devices, sizes, [&](rt::context& ctx, std::size_t, std::size_t first, std::size_t last) {
        ctx.finish();
        for (std::size_t i = first; i < last; ++i) ++seen[i];
    }, limits);
    for (std::size_t i = 0; i < sizes.size(); ++i) BOOST_REQUIRE_EQUAL(seen[i].load(), 1);
    BOOST_REQUIRE_EQUAL(stats.size(), 2u);
    BOOST_TEST(stats[0].items + stats[1].items == sizes.size());
    BOOST_TEST(stats[0].bytes + stats[1].bytes == 200000u);
    BOOST_TEST(stats[0].device == dev.ctx().device().label());
    BOOST_CHECK_THROW(rt::run_batches(devices, sizes, [&](rt::context&, std::size_t, std::size_t first, std::size_t) {
        if (first >= 100) throw std::runtime_error("batch failed");
    }, limits), std::runtime_error);
}

VYRE_TEST_MAIN
