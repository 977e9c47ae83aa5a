// The device layer: enumeration, filtering, the default choice, and a context that runs work.
#include "harness.hpp"

#include <vyre/ops/primitive.hpp>
#include <vyre/runtime/context.hpp>

#include <CL/opencl.hpp>

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

VYRE_TEST_MAIN
