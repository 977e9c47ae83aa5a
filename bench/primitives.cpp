// Primitive ops: build and dispatch latency for every op, and streaming throughput of
// primitive.bitwise.xor against the device's own copy bandwidth and a multi-threaded CPU xor.
//   bench_primitives [--mib N] [--runs N]
#include "bench_util.hpp"

#include <vyre/ops/primitive.hpp>
#include <vyre/ops/registry.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/util/parallel.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

namespace rt = vyre::runtime;
namespace prim = vyre::ops::primitive;
using vyre::bench::median;
using vyre::bench::now_seconds;

namespace {

// Build and dispatch latency of every standard op of the registry: cold build (no vyre caches),
// build from vyre's disk cache, and a warm one-workgroup dispatch, enqueue to completion. Every
// storage buffer is bound empty (0 elements), so each kernel runs its bounds-checked path on no
// data: what is timed is the launch, not the op's work.
void build_latency(rt::context& ctx) {
    std::printf("\n## build and dispatch latency per op (ms)\n%-34s %10s %10s %12s\n", "op", "cold", "disk", "warm-dispatch");
    const auto dir = std::filesystem::temp_directory_path() / ("vyre-bench-cache-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::vector<double> colds, disks, warms;
    const auto empty_args = [&](const rt::compiled_program& cp) {
        std::vector<rt::buffer_arg> args;
        for (const auto& decl : cp.source().arguments) {
            if (args.size() <= decl.binding) args.resize(decl.binding + 1);
            args[decl.binding] = {rt::allocate(ctx, 64), 0};
        }
        return args;
    };
    const auto launch = [&](const rt::compiled_program& cp, const std::vector<rt::buffer_arg>& args) {
        rt::dispatch(ctx, cp, {1, 1, 1}, args);
        ctx.finish();
    };
    for (const auto& op : vyre::ops::registry()) {
        ::setenv("VYRE_CACHE_DIR", "off", 1);
        double t0 = now_seconds();
        {
            rt::compiled_program cold(op.program());
            launch(cold, empty_args(cold));
        }
        const double cold_ms = (now_seconds() - t0) * 1e3;
        ::setenv("VYRE_CACHE_DIR", dir.c_str(), 1);
        {
            rt::compiled_program prime(op.program());
            launch(prime, empty_args(prime));
        }
        t0 = now_seconds();
        rt::compiled_program warm(op.program());
        const auto args = empty_args(warm);
        launch(warm, args);
        const double disk_ms = (now_seconds() - t0) * 1e3;
        std::vector<double> lat;
        for (int i = 0; i < 200; ++i) {
            t0 = now_seconds();
            launch(warm, args);
            lat.push_back((now_seconds() - t0) * 1e3);
        }
        std::printf("%-34s %10.2f %10.2f %12.4f\n", op.id.c_str(), cold_ms, disk_ms, median(lat));
        const auto emit_row = [&](const char* metric, double value) {
            vyre::bench::emit({"build", ctx.device().label(), "every registry op", "", 0, op.id, metric, value});
        };
        emit_row("cold build ms", cold_ms);
        emit_row("disk-cache build ms", disk_ms);
        emit_row("warm dispatch us", median(lat) * 1e3);
        colds.push_back(cold_ms);
        disks.push_back(disk_ms);
        warms.push_back(median(lat));
    }
    std::printf("%-34s %10.2f %10.2f %12.4f\n", "median over ops", median(colds), median(disks), median(warms));
    std::filesystem::remove_all(dir);
    ::setenv("VYRE_CACHE_DIR", "off", 1);
}

void cpu_xor(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
    // One slice per thread, handed out like any other index: a thread that cannot start leaves its
    // slice to the others.
    const unsigned threads = vyre::util::thread_count();
    vyre::util::parallel_for(threads, threads, [=](std::size_t t) {
        const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
        for (std::size_t i = begin; i < end; ++i) out[i] = in[2 * i] ^ in[2 * i + 1];
    });
}

void streaming_xor(rt::context& ctx, std::size_t mib, int runs) {
    const std::size_t in_bytes = mib << 20, n = in_bytes / 8, out_bytes = n * 4;
    std::printf("\n## streaming primitive.bitwise.xor: %zu MiB of operands -> %zu MiB of results\n", mib, out_bytes >> 20);
    std::vector<std::uint32_t> host_in(2 * n), host_out(n), cpu_out(n);
    std::mt19937_64 g(42);
    for (auto& x : host_in) x = std::uint32_t(g());
    rt::pinned_host_buffer pin_in(ctx, in_bytes), pin_out(ctx, out_bytes);
    std::memcpy(pin_in.span().data(), host_in.data(), in_bytes);
    auto d_in = rt::allocate(ctx, in_bytes, CL_MEM_READ_ONLY);
    auto d_out = rt::allocate(ctx, out_bytes);
    const std::uint32_t count = std::uint32_t(n);
    std::vector<rt::buffer_arg> args = {{d_in, std::uint32_t(2 * n)}, {d_out, count},
                                        {rt::upload(ctx, std::span<const std::uint32_t>(&count, 1)), 1}};
    const auto* op = prim::find("primitive.bitwise.xor");
    rt::compiled_program cp(op->program());
    pin_in.copy_to_device(d_in, in_bytes).wait();
    rt::dispatch(ctx, cp, {rt::groups_for(n, prim::elementwise_workgroup), 1, 1}, args).wait();

    // Device copy bandwidth on the same buffer size: the ceiling for a memory-bound kernel.
    auto d_copy = rt::allocate(ctx, in_bytes);
    std::vector<double> copy_t, kernel_t, e2e_t, cpu_t;
    for (int r = 0; r < runs; ++r) {
        auto e = ctx.queue().enqueue_copy_buffer(d_in, d_copy, 0, 0, in_bytes);
        e.wait();
        copy_t.push_back(vyre::bench::event_seconds(e));
        auto k = rt::dispatch(ctx, cp, {rt::groups_for(n, prim::elementwise_workgroup), 1, 1}, args);
        k.wait();
        kernel_t.push_back(vyre::bench::event_seconds(k));
        const double t0 = now_seconds();
        pin_in.copy_to_device(d_in, in_bytes);
        rt::dispatch(ctx, cp, {rt::groups_for(n, prim::elementwise_workgroup), 1, 1}, args);
        pin_out.copy_from_device(d_out, out_bytes).wait();
        e2e_t.push_back(now_seconds() - t0);
        const double c0 = now_seconds();
        cpu_xor(host_in.data(), cpu_out.data(), n);
        cpu_t.push_back(now_seconds() - c0);
    }
    std::memcpy(host_out.data(), pin_out.span().data(), out_bytes);
    const bool same = host_out == cpu_out;
    const double moved = double(in_bytes + out_bytes);
    const double copy_gbs = 2.0 * in_bytes / median(copy_t) / 1e9;
    const double kernel_gbs = moved / median(kernel_t) / 1e9;
    const double e2e_gbs = moved / median(e2e_t) / 1e9;
    const double cpu_gbs = moved / median(cpu_t) / 1e9;
    std::printf("results equal the CPU: %s\n", same ? "yes" : "NO");
    std::printf("%-44s %10s\n", "measure (bytes read + written / median time)", "GB/s");
    std::printf("%-44s %10.1f\n", "device copy (clEnqueueCopyBuffer)", copy_gbs);
    std::printf("%-44s %10.1f   (%.0f%% of device copy)\n", "vyre xor, kernel only", kernel_gbs, 100 * kernel_gbs / copy_gbs);
    std::printf("%-44s %10.1f\n", "vyre xor, end to end (pinned in -> out)", e2e_gbs);
    std::printf("%-44s %10.1f   (%u threads)\n", "CPU xor, all cores", cpu_gbs, vyre::util::thread_count());
    std::printf("%-44s %10.2f\n", "ratio kernel / CPU", kernel_gbs / cpu_gbs);
    std::printf("%-44s %10.2f\n", "ratio end-to-end / CPU", e2e_gbs / cpu_gbs);
    const auto emit_row = [&](const std::string& series, const char* metric, double value) {
        vyre::bench::emit({"primitives", ctx.device().label(), "xor of random u32 pairs", "MiB", double(mib), series, metric, value});
    };
    emit_row("device copy (clEnqueueCopyBuffer)", "kernel GB/s", copy_gbs);
    emit_row("vyre primitive.bitwise.xor", "kernel GB/s", kernel_gbs);
    emit_row("vyre primitive.bitwise.xor", "e2e GB/s", e2e_gbs);
    emit_row("CPU xor " + std::to_string(vyre::util::thread_count()) + " threads", "GB/s", cpu_gbs);
    if (!same) std::exit(1);
}

} // namespace

int main(int argc, char** argv) {
    std::size_t mib = 256;
    int runs = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--mib")) mib = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
    }
    rt::context ctx(rt::choose_device(), /*profiling=*/true);
    vyre::bench::print_header(ctx, "bench_primitives");
    build_latency(ctx);
    streaming_xor(ctx, mib, runs);
    return 0;
}
