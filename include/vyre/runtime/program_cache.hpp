// Building programs once: a compiled_program holds an ir::program, its OpenCL C (generated once)
// and the built kernel of each context it has run in. A warm dispatch finds its kernel by a
// short scan of those contexts: no source generation, no hashing, no clCreateKernel.
// Binaries are also kept on disk (VYRE_CACHE_DIR) so a new process skips the compiler.
#pragma once

#include <vyre/lower/opencl.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/subgroups.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include <unistd.h> // getpid

namespace vyre::runtime {

// Counters of what the caches did, for tests and for `vyre bench`.
struct cache_stats {
    std::atomic<std::uint64_t> source_builds{0};  // clBuildProgram from OpenCL C
    std::atomic<std::uint64_t> binary_loads{0};   // built from a binary found on disk
    std::atomic<std::uint64_t> kernels_created{0}; // clCreateKernel calls
    std::atomic<std::uint64_t> build_nanoseconds{0}; // wall time in detail::build (disk cache and compiler), all threads
};
inline cache_stats& stats() {
    static cache_stats s;
    return s;
}

// The OpenCL compiler's options: OpenCL C 1.2, then `extra` where not empty.
inline std::string build_options_with(const std::string& extra) {
    return extra.empty() ? std::string("-cl-std=CL1.2") : "-cl-std=CL1.2 " + extra;
}

// The options every program is built with: VYRE_OPENCL_OPTIONS (read once) as the extra ones, for
// measuring a driver's own options, such as NVIDIA's -cl-nv-maxrregcount=N.
inline const char* build_options() {
    static const std::string options = build_options_with(env_or_empty("VYRE_OPENCL_OPTIONS"));
    return options.c_str();
}

// The folder of the disk cache: VYRE_CACHE_DIR, else $XDG_CACHE_HOME/vyre, else ~/.cache/vyre.
// VYRE_CACHE_DIR=off disables it. Empty when there is nowhere to put it.
inline std::filesystem::path disk_cache_dir() {
    const std::string dir = env_or_empty("VYRE_CACHE_DIR");
    if (dir == "off") return {};
    if (!dir.empty()) return dir;
    const std::string xdg = env_or_empty("XDG_CACHE_HOME");
    if (!xdg.empty()) return std::filesystem::path(xdg) / "vyre";
    const std::string home = env_or_empty("HOME");
    if (!home.empty()) return std::filesystem::path(home) / ".cache" / "vyre";
    return {};
}

namespace detail {

inline std::string hex(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// Everything the binary depends on: the source, the compiler options and the exact driver.
inline std::string disk_key(const std::string& source, const device_info& d) {
    const std::string id = source + '\n' + build_options() + '\n' + d.platform + '\n' + d.name + '\n' + d.version + '\n' + d.driver_version;
    return hex(ir::stable_hash(id)) + "-" + hex(ir::stable_hash(std::string(id.rbegin(), id.rend())));
}

inline std::vector<unsigned char> read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return {};
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

// Writes through a temporary and a rename so that a concurrent reader never sees half a file.
// The temporary's name is the process's and the thread's own: processes that share a cache
// folder build the same programs at once, and forked processes share their parent's thread id,
// so two writers of one name would interleave their bytes and rename the mixture into place.
// Any failure leaves the cache without the entry: the disk cache is an optimisation only.
inline void write_file_quietly(const std::filesystem::path& p, const std::vector<unsigned char>& bytes) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) return;
    std::ostringstream suffix;
    suffix << ".tmp" << ::getpid() << '-' << std::hash<std::thread::id>{}(std::this_thread::get_id());
    const auto tmp = p.string() + suffix.str();
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out) return;
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        out.close(); // the last bytes reach the file here: a full disk shows now, not after the rename
        if (!out) { std::filesystem::remove(tmp, ec); return; }
    }
    std::filesystem::rename(tmp, p, ec);
    if (ec) std::filesystem::remove(tmp, ec);
}

inline bc::program build_from_binary(const context& ctx, const std::vector<unsigned char>& binary) {
    try {
        auto prog = bc::program::create_with_binary(binary, ctx.cl_context());
        prog.build(build_options());
        stats().binary_loads++;
        return prog;
    } catch (const bc::opencl_error&) {
        return {}; // a stale or foreign binary: fall back to source
    }
}

inline bc::program build_from_source(const context& ctx, const lower::kernel_source& ks) {
    if (!env_or_empty("VYRE_SHOW_KERNELS").empty())
        std::cerr << "=== vyre kernel \"" << ks.entry << "\" for " << ctx.device().label() << " ===\n" << ks.source << "\n";
    bc::program prog;
    try {
        prog = bc::program::create_with_source(ks.source, ctx.cl_context());
    } catch (const bc::opencl_error& e) {
        throw opencl_error("clCreateProgramWithSource", e.error_code());
    }
    try {
        prog.build(build_options());
    } catch (const bc::opencl_error& e) {
        std::string log;
        try { log = prog.build_log(); } catch (...) { log = "(no build log available)"; }
        throw build_error("OpenCL build of kernel \"" + ks.entry + "\" failed on " + ctx.device().label() + ": " +
                              opencl_error_name(e.error_code()) + "\n--- source ---\n" + ks.source,
                          log, ks.source);
    }
    stats().source_builds++;
    return prog;
}

inline bc::program build(const context& ctx, const lower::kernel_source& ks) {
    const auto start = std::chrono::steady_clock::now();
    struct timed {
        std::chrono::steady_clock::time_point start;
        const char* entry;
        ~timed() {
            const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
            stats().build_nanoseconds += static_cast<std::uint64_t>(ns);
            if (tracing()) trace_end("build", entry, start);
        }
    } timing{start, ks.entry.c_str()};
    const auto dir = disk_cache_dir();
    std::filesystem::path file;
    if (!dir.empty()) {
        file = dir / (disk_key(ks.source, ctx.device()) + ".bin");
        const auto binary = read_file(file);
        if (!binary.empty())
            if (auto prog = build_from_binary(ctx, binary); prog.get()) return prog;
    }
    auto prog = build_from_source(ctx, ks);
    if (!file.empty()) {
        try {
            write_file_quietly(file, prog.binary());
        } catch (const bc::opencl_error&) {
        }
    }
    return prog;
}

} // namespace detail

// A program ready to run: validated and lowered once at construction, built once per context.
// Keep one per program for the life of the process (ops hold theirs in a function-local static).
// Safe to use from several threads: a kernel's arguments are set and enqueued under its lock.
//
// A program with subgroups is lowered for each device as the device allows
// (runtime/subgroups.hpp), unless `subgroups` forces one lowering everywhere. With
// cl_khr_subgroups the built kernel must run the program's subgroup size; where it does not (or
// the build fails) a program whose subgroup is its whole workgroup falls back to emulation, and
// any other throws resource_error.
class compiled_program {
public:
    explicit compiled_program(ir::program p, std::optional<lower::subgroup_lowering> subgroups = std::nullopt)
        : program_(std::move(p)), forced_(subgroups),
          source_(lower::to_opencl(program_, subgroups.value_or(lower::subgroup_lowering::khr))) {}

    const ir::program& program() const noexcept { return program_; }
    // The OpenCL C without a device in mind (subgroups as cl_khr_subgroups unless forced); the
    // argument list is the same on every device.
    const lower::kernel_source& source() const noexcept { return source_; }

    // The kernel for this context, with the lock that guards its arguments.
    struct entry {
        cl_context context;
        bc::program program;
        bc::kernel kernel;
        lower::subgroup_lowering subgroups = lower::subgroup_lowering::emulated; // how this device's build lowered them
        std::mutex lock;
    };
    entry& kernel_for(const context& ctx) const {
        const cl_context key = ctx.cl_context().get();
        {
            std::lock_guard<std::mutex> g(mutex_);
            for (auto& e : entries_)
                if (e->context == key) return *e;
        }
        // Build outside the lock: a slow compile must not stall dispatches to other contexts.
        auto e = std::make_unique<entry>();
        e->context = key;
        ir::validate(program_, limits_of(ctx.device()));
        if (program_.subgroup_size == 0) build_into(*e, ctx, source_);
        else build_with_subgroups(*e, ctx);
        stats().kernels_created++;
        std::lock_guard<std::mutex> g(mutex_);
        for (auto& existing : entries_)
            if (existing->context == key) return *existing; // another thread won the race
        entries_.push_back(std::move(e));
        return *entries_.back();
    }

    // How the program's subgroup operations run on this context's device.
    lower::subgroup_lowering subgroups_on(const context& ctx) const { return kernel_for(ctx).subgroups; }

    // Forget the built kernels (e.g. before a context is destroyed).
    void purge() {
        std::lock_guard<std::mutex> g(mutex_);
        entries_.clear();
    }

    static ir::resource_limits limits_of(const device_info& d) {
        return {d.max_workgroup_size, d.local_memory, d.constant_buffer};
    }

private:
    ir::program program_;
    std::optional<lower::subgroup_lowering> forced_;
    lower::kernel_source source_;

    static void build_into(entry& e, const context& ctx, const lower::kernel_source& ks) {
        e.program = detail::build(ctx, ks);
        e.kernel = cl_call("clCreateKernel", [&] { return bc::kernel(e.program, ks.entry); });
        e.subgroups = ks.subgroups;
    }

    void build_with_subgroups(entry& e, const context& ctx) const {
        const auto& dev = ctx.device();
        const std::uint32_t S = program_.subgroup_size, wg = program_.invocations_per_workgroup();
        lower::subgroup_lowering want = forced_.value_or(native_subgroups(dev));
        // PoCL 5.0 aborts at the launch of a kernel using sub-group collectives in workgroups of
        // fewer than 4 invocations (its kernel lacks __pocl_work_group_alloca); PoCL's subgroup
        // is its workgroup, so those programs can emulate.
        if (!forced_ && want == lower::subgroup_lowering::khr && wg < 4 &&
            detail::lower_case(dev.platform).find("portable computing language") != std::string::npos)
            want = lower::subgroup_lowering::emulated;
        if (want != lower::subgroup_lowering::khr) return build_into(e, ctx, lower::to_opencl(program_, want));
        std::string why;
        try {
            build_into(e, ctx, lower::to_opencl(program_, want));
            const std::size_t got = kernel_subgroup_size(e.kernel.get(), dev, wg);
            if (got == S) return;
            why = got == 0 ? "the driver does not report its kernels' subgroup size"
                           : "its kernel runs subgroups of " + std::to_string(got);
        } catch (const build_error& b) {
            why = "the cl_khr_subgroups build failed: " + b.log();
        }
        if (forced_ || wg != S)
            throw resource_error("program \"" + program_.name + "\" needs subgroups of " + std::to_string(S) + " on " + dev.label() +
                                 ", which offers cl_khr_subgroups but " + why +
                                 (wg != S ? " (a program whose subgroup is its whole workgroup would fall back to emulation)" : ""));
        build_into(e, ctx, lower::to_opencl(program_, lower::subgroup_lowering::emulated));
    }
    mutable std::mutex mutex_;
    mutable std::vector<std::unique_ptr<entry>> entries_;
};

} // namespace vyre::runtime
