// The vyre command line: one subcommand per job (`vyre devices`, ...). `vyre --help` lists them,
// `vyre SUBCOMMAND --help` explains one.
#include <vyre/lower/opencl.hpp>
#include <vyre/ops/registry.hpp>
#include <vyre/runtime/device.hpp>

#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace po = boost::program_options;

namespace {

struct subcommand {
    std::string summary;
    std::function<int(const std::vector<std::string>&)> run;
};

// Parses `args` against `options`; prints help and returns false when --help was given.
bool parse(const std::string& name, const std::string& usage, po::options_description& options,
           const std::vector<std::string>& args, po::variables_map& vm,
           const po::positional_options_description* positional = nullptr) {
    options.add_options()("help,h", "show this help");
    auto parser = po::command_line_parser(args).options(options);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << "usage: vyre " << name << " " << usage << "\n\n" << options;
        return false;
    }
    return true;
}

int cmd_devices(const std::vector<std::string>& args) {
    po::options_description options("Lists every OpenCL device of every platform, marking the one vyre uses by default");
    options.add_options()("filter", po::value<std::string>()->default_value(""),
                          "only devices whose name or platform contains this text");
    po::variables_map vm;
    if (!parse("devices", "[--filter TEXT]", options, args, vm)) return 0;
    namespace rt = vyre::runtime;
    const auto all = rt::filter_devices(rt::list_devices(), vm["filter"].as<std::string>());
    if (all.empty()) {
        std::cerr << "vyre: no OpenCL device found (is an OpenCL driver such as PoCL installed?)\n";
        return 1;
    }
    std::string chosen;
    try {
        chosen = rt::choose_device().label();
    } catch (const vyre::no_device& e) {
        std::cerr << "vyre: " << e.what() << "\n";
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto& d = all[i];
        std::cout << (d.label() == chosen ? "* " : "  ") << i << ": " << d.name << "\n"
                  << "     platform: " << d.platform << " | type: " << rt::device_type_name(d.type)
                  << " | " << d.version << " | driver " << d.driver_version << "\n"
                  << "     compute units: " << d.compute_units
                  << " | global memory: " << (d.global_memory >> 20) << " MiB"
                  << " | max allocation: " << (d.max_allocation >> 20) << " MiB"
                  << " | local memory: " << (d.local_memory >> 10) << " KiB\n";
    }
    std::cout << "(* = default device; choose another with VYRE_DEVICE=<part of its name or platform>)\n";
    return 0;
}

int cmd_emit(const std::vector<std::string>& args) {
    po::options_description options("Prints the OpenCL C that an op lowers to, or writes the kernels of every op");
    options.add_options()("op", po::value<std::string>(), "op id, e.g. primitive.bitwise.xor")(
        "all", "every op of the registry")("list", "list op ids with their versions and summaries")(
        "out", po::value<std::string>(), "with --all: folder to write <op-id>.cl files into (default: print)");
    po::positional_options_description positional;
    positional.add("op", 1);
    po::variables_map vm;
    if (!parse("emit", "<op-id> | --all [--out DIR] | --list", options, args, vm, &positional)) return 0;
    const auto& ops = vyre::ops::registry();
    if (vm.count("list")) {
        for (const auto& op : ops) std::cout << op.id << " v" << op.version << "  " << op.summary << "\n";
        return 0;
    }
    if (vm.count("all")) {
        if (!vm.count("out")) {
            for (const auto& op : ops) std::cout << vyre::lower::to_opencl(op.program()).source << "\n";
            return 0;
        }
        const std::filesystem::path dir = vm["out"].as<std::string>();
        std::filesystem::create_directories(dir);
        for (const auto& op : ops) {
            std::ofstream out(dir / op.kernel_file(), std::ios::binary);
            out << vyre::lower::to_opencl(op.program()).source;
            if (!out) throw std::runtime_error("cannot write " + (dir / op.kernel_file()).string());
        }
        std::cout << "wrote " << ops.size() << " kernels to " << dir.string() << "\n";
        return 0;
    }
    if (!vm.count("op")) throw po::error("give an op id, --all or --list");
    const auto id = vm["op"].as<std::string>();
    const auto* op = vyre::ops::find_op(id);
    if (!op) {
        std::cerr << "vyre emit: no op \"" << id << "\" (vyre emit --list shows them)\n";
        return 2;
    }
    std::cout << vyre::lower::to_opencl(op->program()).source;
    return 0;
}

std::map<std::string, subcommand> subcommands() {
    return {
        {"devices", {"list OpenCL devices and the default choice", cmd_devices}},
        {"emit", {"print the OpenCL C of an op, or write every op's kernel", cmd_emit}},
    };
}

void print_usage(std::ostream& os) {
    os << "usage: vyre SUBCOMMAND [OPTIONS]   (vyre SUBCOMMAND --help for its options)\n\nsubcommands:\n";
    for (const auto& [name, sc] : subcommands()) os << "  " << name << std::string(12 - name.size(), ' ') << sc.summary << "\n";
    os << "\nenvironment: VYRE_DEVICE selects the device (substring of device or platform name)\n";
}

} // namespace

int main(int argc, char* argv[]) {
    if (argc < 2) {
        print_usage(std::cerr);
        return 2;
    }
    const std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        print_usage(std::cout);
        return 0;
    }
    const auto all = subcommands();
    const auto it = all.find(name);
    if (it == all.end()) {
        std::cerr << "vyre: unknown subcommand \"" << name << "\"\n";
        print_usage(std::cerr);
        return 2;
    }
    try {
        return it->second.run(std::vector<std::string>(argv + 2, argv + argc));
    } catch (const po::error& e) {
        std::cerr << "vyre " << name << ": " << e.what() << " (see vyre " << name << " --help)\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "vyre " << name << ": " << e.what() << "\n";
        return 1;
    }
}
