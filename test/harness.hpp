// The device matrix for Boost.Test: every case declared with VYRE_DEVICE_TEST runs once on each
// OpenCL device of every platform (VYRE_DEVICES filters by substring of device or platform name).
// Cases are grouped in one suite per device, so every failure message names the device.
// With no device at all, a failing case is registered: an empty matrix must never pass.
#pragma once

#include <boost/test/unit_test.hpp>

#include <vyre/runtime/context.hpp>

#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace vyre::test {

// What a device case receives: the device and a context on it, made once per device.
class device_case {
public:
    explicit device_case(runtime::device_info info) : info_(std::move(info)) {}
    const runtime::device_info& info() const noexcept { return info_; }
    std::string label() const { return info_.label(); }
    runtime::context& ctx() {
        if (!ctx_) ctx_ = std::make_unique<runtime::context>(info_);
        return *ctx_;
    }

private:
    runtime::device_info info_;
    std::unique_ptr<runtime::context> ctx_;
};

using device_case_fn = void (*)(device_case&);

struct registered_case {
    std::string name;
    device_case_fn fn;
    const char* file;
    std::size_t line;
};

inline std::vector<registered_case>& device_cases() {
    static std::vector<registered_case> cases;
    return cases;
}

struct device_case_registrar {
    device_case_registrar(const char* name, device_case_fn fn, const char* file, std::size_t line) {
        device_cases().push_back({name, fn, file, line});
    }
};

// A test-unit name may not contain characters Boost.Test reserves in paths and filters.
inline std::string suite_name(const runtime::device_info& d, std::size_t index) {
    std::string out;
    for (char c : d.label()) {
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
        const char keep = ok ? c : '_';
        if (keep == '_' && !out.empty() && out.back() == '_') continue; // one '_' for a run
        out += keep;
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return "dev" + std::to_string(index) + "_" + out;
}

inline std::vector<std::shared_ptr<device_case>>& matrix() {
    static std::vector<std::shared_ptr<device_case>> m;
    return m;
}

// A seed for randomized tests: VYRE_TEST_SEED when set, else a fixed default. Cases print it
// on failure (BOOST_TEST_CONTEXT) so any failing run can be replayed.
inline std::uint64_t test_seed() {
    const std::string s = runtime::env_or_empty("VYRE_TEST_SEED");
    return s.empty() ? 0x5eedULL : std::stoull(s, nullptr, 0);
}

inline bool init_device_matrix() {
    auto& master = boost::unit_test::framework::master_test_suite();
    if (device_cases().empty()) return true; // a host-only test program
    const std::string filter = runtime::env_or_empty("VYRE_DEVICES");
    const auto devices = runtime::filter_devices(runtime::list_devices(), filter);
    if (devices.empty()) {
        const std::string why = filter.empty()
            ? "no OpenCL device found on any platform: the device matrix is empty"
            : "no OpenCL device matches VYRE_DEVICES=\"" + filter + "\"";
        master.add(boost::unit_test::make_test_case(
            [why] { BOOST_FAIL(why); }, "no_opencl_device", __FILE__, __LINE__));
        return true;
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
        auto dc = std::make_shared<device_case>(devices[i]);
        matrix().push_back(dc);
        auto* suite = BOOST_TEST_SUITE(suite_name(devices[i], i));
        for (const auto& c : device_cases()) {
            auto fn = c.fn;
            suite->add(boost::unit_test::make_test_case(
                [fn, dc] {
                    BOOST_TEST_CONTEXT("device: " << dc->label()) { fn(*dc); }
                },
                c.name, c.file, c.line));
        }
        master.add(suite);
    }
    return true;
}

} // namespace vyre::test

// Declares a case that runs on every device: VYRE_DEVICE_TEST(name) { use dev.ctx() ... }
#define VYRE_DEVICE_TEST(name)                                                                   \
    static void name(::vyre::test::device_case& dev);                                            \
    static ::vyre::test::device_case_registrar name##_registrar(#name, &name, __FILE__, __LINE__); \
    static void name([[maybe_unused]] ::vyre::test::device_case& dev)

// Every test program defines its entry point through this (in exactly one translation unit).
// The shared Boost.Test library (BOOST_TEST_DYN_LINK) and the static one take init functions of
// different types; both build the same device matrix.
#if defined(BOOST_TEST_DYN_LINK)
#define VYRE_TEST_MAIN                                                                           \
    int main(int argc, char* argv[]) {                                                           \
        return ::boost::unit_test::unit_test_main(&::vyre::test::init_device_matrix, argc, argv); \
    }
#else
// The static library's own main() calls this well-known init function.
#define VYRE_TEST_MAIN                                                                           \
    ::boost::unit_test::test_suite* init_unit_test_suite(int, char*[]) {                         \
        ::vyre::test::init_device_matrix();                                                      \
        return nullptr;                                                                          \
    }
#endif
