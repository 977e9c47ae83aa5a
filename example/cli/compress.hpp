// `vyre compress --pages FILE`: a file of 4 KiB pages compressed page by page into a page file
// (doc/ops/compression.lz4_pages.md), on the device or on the CPU, whichever is faster for its size.
#pragma once

#include "common.hpp"

#include <vyre/engine/page_compressor.hpp>
#include <vyre/format/page_file.hpp>
#include <vyre/runtime/context.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace vyre::cli {

inline int cmd_compress(const std::vector<std::string>& args) {
    po::options_description options(
        "Compresses a file of 4 KiB memory pages, each page on its own (LZ4 blocks; a page of one repeated byte\n"
        "is recorded by its byte, a page LZ4 cannot shrink is stored), into a page file that `vyre decompress\n"
        "--pages` restores. The backend is picked by batch size from a measurement of both on this machine");
    options.add_options()("pages", po::value<std::string>(), "the file of pages (its size must be a multiple of 4096)")(
        "output,o", po::value<std::string>(), "output file (default: FILE.vypg)")(
        "backend", po::value<std::string>()->default_value("automatic"),
        "automatic (measure, then pick by size), device (compression.lz4_pages) or cpu (liblz4 on every core)")(
        "force,f", "overwrite the output file if it exists");
    po::variables_map vm;
    if (!parse("compress", "--pages FILE [-o OUT] [--backend automatic|device|cpu] [--force]", options, args, vm)) return 0;
    if (!vm.count("pages")) throw po::error("give the file of pages: --pages FILE");
    engine::page_compressor_options opts;
    const std::string backend = vm["backend"].as<std::string>();
    if (backend == "device") opts.backend = engine::page_backend::device;
    else if (backend == "cpu") opts.backend = engine::page_backend::cpu;
    else if (backend != "automatic") throw po::error("--backend must be automatic, device or cpu, not \"" + backend + "\"");

    const std::filesystem::path in = vm["pages"].as<std::string>();
    const std::filesystem::path out = vm.count("output") ? std::filesystem::path(vm["output"].as<std::string>())
                                                         : std::filesystem::path(in.string() + ".vypg");
    if (std::filesystem::exists(out) && !vm.count("force")) {
        std::cerr << "vyre compress: " << out.string() << " exists; give --force to overwrite it\n";
        return 1;
    }
    std::ifstream f(in, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + in.string());
    // Pageable memory: the device path uploads it straight from here, through the driver's own
    // staging (the benchmark's e2e figures use pinned pages, which upload at DMA speed).
    const std::vector<std::uint8_t> pages(std::istreambuf_iterator<char>(f), {});
    if (pages.size() % 4096 != 0)
        throw std::runtime_error(in.string() + " holds " + std::to_string(pages.size()) + " bytes, not a whole number of 4096-byte pages (" +
                                 std::to_string(pages.size() % 4096) + " bytes left over)");

    runtime::context ctx;
    engine::page_compressor compressor(ctx, opts);
    const auto t0 = std::chrono::steady_clock::now();
    const engine::packed_pages r = compressor.compress(pages);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<std::uint8_t> file = format::write_page_file(r.page_size, r.records, [&](std::size_t i) { return r.block(i); });
    write_output_file(out, file);

    std::size_t kinds[3] = {};
    for (const auto& rec : r.records) ++kinds[static_cast<unsigned>(rec.kind()) % 3];
    std::cout << in.string() << " -> " << out.string() << ": " << r.records.size() << " pages (" << kinds[0] << " compressed, " << kinds[1]
              << " stored, " << kinds[2] << " same-fill), " << pages.size() << " -> " << file.size() << " bytes (ratio "
              << (file.empty() ? 0.0 : double(pages.size()) / double(file.size())) << ")\n"
              << "  on " << (r.backend == engine::page_backend::cpu ? "the CPU (liblz4, " + std::to_string(compressor.options().threads) + " threads)"
                                                                    : ctx.device().label())
              << " in " << seconds * 1e3 << " ms";
    const auto& c = compressor.calibration();
    if (c.measured) {
        std::cout << " (calibration included; device wins from ";
        if (c.crossover_pages == std::numeric_limits<std::size_t>::max()) std::cout << "no batch size";
        else std::cout << c.crossover_pages << " pages";
        std::cout << " on this machine)";
    }
    std::cout << "\n";
    return 0;
}

} // namespace vyre::cli
