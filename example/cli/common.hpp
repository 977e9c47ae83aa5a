// What every `vyre` subcommand shares: its entry in the subcommand table and option parsing with
// --help. Each subcommand lives in example/cli/<name>.hpp and is listed in example/vyre.cpp.
#pragma once

#include <boost/program_options.hpp>

#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace vyre::cli {

namespace po = boost::program_options;

struct subcommand {
    std::string summary;
    std::function<int(const std::vector<std::string>&)> run;
};

// Parses `args` against `options`; prints help and returns false when --help was given.
inline bool parse(const std::string& name, const std::string& usage, po::options_description& options,
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

} // namespace vyre::cli
