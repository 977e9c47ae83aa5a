// A user's program against an installed vyre: lists the OpenCL devices and opens the default one.
// Exits non-zero when there is no device, so CI notices an install that cannot reach OpenCL.
#if __has_include(<vyre/vyre.hpp>)
#include <vyre/vyre.hpp> // the umbrella header, once it exists: every public header must compile here
#endif
#include <vyre/error.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/device.hpp>

#include <iostream>

int main() {
    try {
        const auto devices = vyre::runtime::list_devices();
        for (const auto& d : devices) std::cout << "device: " << d.label() << "\n";
        vyre::runtime::context ctx; // the default device (VYRE_DEVICE)
        std::cout << "default: " << ctx.device().label() << "\n";
        return devices.empty() ? 1 : 0;
    } catch (const vyre::error& e) {
        std::cerr << "consumer: " << e.what() << "\n";
        return 1;
    }
}
