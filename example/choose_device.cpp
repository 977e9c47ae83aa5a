// Running an op on a chosen device: list what is there, pick by a name filter (the first argument,
// else VYRE_DEVICE), and run primitive.math.add_sat on it. Also shows reusing a queue you own.
//   ./choose_device            ./choose_device pocl            ./choose_device nvidia
#include <vyre/ops/primitive.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <iostream>

int main(int argc, char* argv[]) {
    namespace rt = vyre::runtime;
    for (const auto& d : rt::list_devices()) std::cout << "found: " << d.label() << " [" << rt::device_type_name(d.type) << "]\n";
    try {
        const rt::device_info chosen = rt::choose_device(argc > 1 ? argv[1] : "");
        rt::context ctx(chosen);
        std::cout << "running on: " << ctx.device().label() << "\n";

        // An application that already has an OpenCL queue passes it in instead (cl::CommandQueue
        // or a raw cl_command_queue work the same way): vyre then shares its context and device.
        rt::context shared(ctx.queue().get());

        const auto* op = vyre::ops::primitive::find("primitive.math.add_sat");
        rt::compiled_program compiled(op->program());
        const std::vector<std::uint32_t> pairs = {1, 2, 0xfffffff0u, 0x20u, 0xffffffffu, 1};
        const auto sums = vyre::ops::primitive::run(shared, compiled, op->arity(), pairs);
        for (std::size_t i = 0; i < sums.size(); ++i)
            std::cout << pairs[2 * i] << " +sat " << pairs[2 * i + 1] << " = " << sums[i] << "\n";
        return sums == std::vector<std::uint32_t>{3, 0xffffffffu, 0xffffffffu} ? 0 : 1;
    } catch (const vyre::no_device& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
}
