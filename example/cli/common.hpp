// What every `vyre` subcommand shares: its entry in the subcommand table and option parsing with
// --help. Each subcommand lives in example/cli/<name>.hpp and is listed in example/vyre.cpp.
#pragma once

#include <boost/program_options.hpp>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

// A file's bytes: a regular file mapped read-only (nothing copied; the kernel pages it in as it
// is read, where reading it into memory first faulted in every page of a fresh buffer), anything
// else (a pipe) read whole.
class input_file {
public:
    explicit input_file(const std::filesystem::path& path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
        struct stat st;
        if (::fstat(fd, &st) != 0) {
            const int e = errno;
            ::close(fd);
            throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(e));
        }
        if (S_ISDIR(st.st_mode)) {
            ::close(fd);
            throw std::runtime_error(path.string() + " is a folder, not a file");
        }
        if (!S_ISREG(st.st_mode)) {
            ::close(fd);
            std::ifstream f(path, std::ios::binary);
            if (!f) throw std::runtime_error("cannot open " + path.string());
            read_.assign(std::istreambuf_iterator<char>(f), {});
            bytes_ = read_;
            return;
        }
        const auto size = static_cast<std::size_t>(st.st_size);
        if (size > 0) {
            void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p == MAP_FAILED) {
                const int e = errno;
                ::close(fd);
                throw std::runtime_error("cannot map " + path.string() + ": " + std::strerror(e));
            }
            ::madvise(p, size, MADV_SEQUENTIAL);
            bytes_ = {static_cast<const std::uint8_t*>(p), size};
            mapped_ = true;
        }
        ::close(fd);
    }
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;
    ~input_file() {
        if (mapped_) ::munmap(const_cast<std::uint8_t*>(bytes_.data()), bytes_.size());
    }
    std::span<const std::uint8_t> bytes() const noexcept { return bytes_; }

private:
    std::span<const std::uint8_t> bytes_;
    std::vector<std::uint8_t> read_;
    bool mapped_ = false;
};

} // namespace vyre::cli
