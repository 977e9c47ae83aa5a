// The vyre command line: one subcommand per job (`vyre devices`, ...). `vyre --help` lists them,
// `vyre SUBCOMMAND --help` explains one. Each subcommand lives in example/cli/<name>.hpp.
#include "cli/common.hpp"
#include "cli/compress.hpp"
#include "cli/decompress.hpp"
#include "cli/devices.hpp"
#include "cli/emit.hpp"
#include "cli/scan.hpp"
#include "cli/taint.hpp"
#include "cli/unpack.hpp"

#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

namespace po = boost::program_options;
using vyre::cli::subcommand;

// One line per subcommand.
std::map<std::string, subcommand> subcommands() {
    std::map<std::string, subcommand> all;
    all["compress"] = {"compress a file of 4 KiB pages into a page file (vyre compress --pages FILE [-o OUT])", vyre::cli::cmd_compress};
    all["decompress"] = {"decompress an .lz4, .zst or .gz file on the device (vyre decompress FILE [-o OUT])", vyre::cli::cmd_decompress};
    all["devices"] = {"list OpenCL devices and the default choice", vyre::cli::cmd_devices};
    all["emit"] = {"print the OpenCL C of an op, or write every op's kernel", vyre::cli::cmd_emit};
    all["scan"] = {"find literal patterns in every file inside archives, on the device (vyre scan -f PATTERNS ARCHIVE|DIR...)", vyre::cli::cmd_scan};
    all["taint"] = {"taint analysis of a program graph on the device (vyre taint --graph FILE --rules FILE.toml)", vyre::cli::cmd_taint};
    all["unpack"] = {"extract or list nested archives (LZ4, zstd, gzip, tar, ZIP) on the device (vyre unpack ARCHIVE... -o DIR)", vyre::cli::cmd_unpack};
    return all;
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
