// The raw DEFLATE streams the Deflate benchmarks measure, made and picked in one place so that
// bench_deflate (ours, libdeflate, zlib) and bench_nvcomp (nvCOMP) decode exactly the same bytes:
// the corpus cut into pieces, each compressed as one raw DEFLATE stream by libdeflate or zlib, and
// every deflate entry (method 8) of ZIP files (Python wheels, jars), as stored in the archive.
// Needs only libdeflate, zlib and vyre's host-only headers (no OpenCL), so bench/nvcomp.cpp can use
// it on a machine with CUDA. A set that cannot be made (a level the compressor refuses, an archive
// that cannot be read) throws stream_error, which each program reports in its own words and exit
// status; everything printed on the way is printed the same for both.
#pragma once

#include "measure.hpp"

#include <vyre/format/zip.hpp>
#include <vyre/util/parallel.hpp>

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace vyre::bench {

// A set of streams that cannot be made; what() says why (bench_deflate and bench_nvcomp print it
// after their own name).
struct stream_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One stream of a deflate_set: it reads compressed[input_offset, +input_size) and must decode to
// exactly plain[output_offset, +output_size).
struct deflate_stream {
    std::size_t input_offset = 0, input_size = 0, output_offset = 0, output_size = 0;
};

// Raw DEFLATE streams back to back in `compressed`, decoding to `plain` back to back.
struct deflate_set {
    std::string input;     // the results' input name: "small.tar libdeflate-6", "wheels ZIP deflate entries"
    std::string made_with; // "libdeflate-6", "zlib-6", "archives"
    std::vector<std::uint8_t> compressed;
    std::vector<deflate_stream> streams;
    std::shared_ptr<const std::vector<std::uint8_t>> plain;
};

// ---- streams from the corpus --------------------------------------------------------------------

// What one thread keeps while compressing pieces: its libdeflate compressor or zlib stream, made on
// its first piece.
struct deflate_compressor_state {
    libdeflate_compressor* deflater = nullptr;
    z_stream z{};
    bool z_open = false;
    deflate_compressor_state() = default;
    deflate_compressor_state(const deflate_compressor_state&) = delete;
    deflate_compressor_state& operator=(const deflate_compressor_state&) = delete;
    ~deflate_compressor_state() {
        if (deflater) libdeflate_free_compressor(deflater);
        if (z_open) deflateEnd(&z);
    }
};

// `input` cut into pieces of `block` bytes (the last one shorter), each one raw DEFLATE stream made
// by `compressor` ("libdeflate", or "zlib": windowBits -15, memLevel 8, default strategy) at `level`,
// on `threads` threads.
inline std::vector<std::vector<std::uint8_t>> compress_pieces(std::span<const std::uint8_t> input, std::size_t block,
                                                              const std::string& compressor, int level, unsigned threads) {
    const std::size_t n = (input.size() + block - 1) / block;
    std::vector<std::vector<std::uint8_t>> parts(n);
    std::atomic<bool> ok{true};
    vyre::util::parallel_chunks<deflate_compressor_state>(n, threads, 1, [&](std::size_t begin, std::size_t end, deflate_compressor_state& st) {
        for (std::size_t i = begin; i < end && ok; ++i) {
            const auto piece = input.subspan(i * block, std::min(block, input.size() - i * block));
            std::vector<std::uint8_t>& out = parts[i];
            if (compressor == "libdeflate") {
                if (!st.deflater) st.deflater = libdeflate_alloc_compressor(level);
                if (!st.deflater) {
                    ok = false;
                    break;
                }
                out.resize(libdeflate_deflate_compress_bound(st.deflater, piece.size()));
                const std::size_t got = libdeflate_deflate_compress(st.deflater, piece.data(), piece.size(), out.data(), out.size());
                if (got == 0) ok = false;
                out.resize(got);
            } else {
                if (!st.z_open) {
                    if (deflateInit2(&st.z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
                        ok = false;
                        break;
                    }
                    st.z_open = true;
                } else if (deflateReset(&st.z) != Z_OK) {
                    ok = false;
                    break;
                }
                out.resize(deflateBound(&st.z, static_cast<uLong>(piece.size())));
                st.z.next_in = const_cast<Bytef*>(piece.data());
                st.z.avail_in = static_cast<uInt>(piece.size());
                st.z.next_out = out.data();
                st.z.avail_out = static_cast<uInt>(out.size());
                if (deflate(&st.z, Z_FINISH) != Z_STREAM_END) ok = false;
                out.resize(static_cast<std::size_t>(st.z.total_out));
            }
        }
    });
    if (!ok) throw stream_error(compressor + " could not compress at level " + std::to_string(level) + " (libdeflate takes 0..12, zlib 0..9)");
    return parts;
}

// The corpus's set: `input` cut and compressed as compress_pieces does, the pieces back to back.
// `label` names the input ("small.tar"); the set's input name adds the compressor and level.
inline deflate_set deflate_pieces(const std::shared_ptr<const std::vector<std::uint8_t>>& input, const std::string& label,
                                  std::size_t block, const std::string& compressor, int level, unsigned threads) {
    deflate_set s;
    s.made_with = compressor + "-" + std::to_string(level);
    s.input = label + " " + s.made_with;
    s.plain = input;
    const auto parts = compress_pieces(*input, block, compressor, level, threads);
    std::size_t total = 0;
    for (const auto& p : parts) total += p.size();
    s.compressed.reserve(total);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::size_t at = i * block;
        s.streams.push_back({s.compressed.size(), parts[i].size(), at, std::min(block, input->size() - at)});
        s.compressed.insert(s.compressed.end(), parts[i].begin(), parts[i].end());
    }
    return s;
}

// ---- streams from ZIP archives ------------------------------------------------------------------

inline bool zip_like(const std::filesystem::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".whl" || ext == ".zip" || ext == ".jar";
}

// The archives named: files as given, folders searched (recursively, sorted) for *.whl, *.zip, *.jar.
inline std::vector<std::filesystem::path> zip_files(const std::vector<std::string>& given) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (const auto& g : given) {
        const fs::path p = g;
        if (fs::is_regular_file(p)) {
            files.push_back(p);
            continue;
        }
        if (!fs::is_directory(p)) throw stream_error("--zip: " + g + " is neither a file nor a folder");
        std::vector<fs::path> found;
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (it->is_regular_file(ec) && zip_like(it->path())) found.push_back(it->path());
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    if (files.empty()) throw stream_error("--zip: no .whl, .zip or .jar file found");
    return files;
}

// One thread's libdeflate decompressor (null where it could not be made: the caller's check fails).
struct deflate_decompressor_state {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    deflate_decompressor_state() = default;
    deflate_decompressor_state(const deflate_decompressor_state&) = delete;
    deflate_decompressor_state& operator=(const deflate_decompressor_state&) = delete;
    ~deflate_decompressor_state() {
        if (d) libdeflate_free_decompressor(d);
    }
};

// Every deflate entry (method 8) of the archives, as stored, in archive order, until the next one
// would pass `limit` decompressed bytes; an entry larger than `limit` on its own, an empty one, or
// one the directory marks damaged or encrypted is skipped and counted. The plain bytes are
// libdeflate's, held to the size and CRC-32 each entry's archive records. Prints one line saying
// what was read, taken and skipped.
inline deflate_set zip_entries(const std::vector<std::string>& given, std::uint64_t limit, unsigned threads) {
    namespace fmt = vyre::format;
    constexpr std::uint64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    deflate_set s;
    s.input = input_label(given.front()) + (given.size() > 1 ? " +" + std::to_string(given.size() - 1) : "") + " ZIP deflate entries";
    s.made_with = "archives";
    auto plain = std::make_shared<std::vector<std::uint8_t>>();
    std::vector<std::uint32_t> crcs;
    std::uint64_t out_total = 0;
    std::size_t files_read = 0, deflate_entries = 0, skipped_large = 0, skipped_empty = 0, skipped_bad = 0, left = 0;
    bool full = false;
    const auto files = zip_files(given);
    for (const auto& file : files) {
        if (full) break;
        std::ifstream f(file, std::ios::binary);
        if (!f) throw stream_error("cannot read " + file.string());
        const std::vector<std::uint8_t> archive((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        ++files_read;
        fmt::zip_archive z;
        try {
            z = fmt::parse_zip(archive);
        } catch (const std::exception& e) {
            throw stream_error("--zip: " + file.string() + ": " + e.what());
        }
        for (const auto& e : z.entries) {
            if (e.method != fmt::zip_method_deflate) continue;
            ++deflate_entries;
            if (full) {
                ++left;
                continue;
            }
            if (e.status != fmt::zip_entry_status::ok || (e.flags & fmt::zip_flag_encrypted) != 0) {
                ++skipped_bad;
                continue;
            }
            if (e.uncompressed_size == 0) {
                ++skipped_empty;
                continue;
            }
            if (e.uncompressed_size > limit || e.uncompressed_size > u32_max || e.compressed_size > u32_max) {
                ++skipped_large;
                continue;
            }
            if (out_total + e.uncompressed_size > limit) { // the budget is spent: stop here
                full = true;
                ++left;
                continue;
            }
            std::span<const std::uint8_t> data;
            try {
                data = fmt::zip_entry_data(archive, e);
            } catch (const std::exception& x) {
                throw stream_error("--zip: " + file.string() + ": " + x.what());
            }
            // Both decoders address the streams with 32-bit offsets (vyre's block descriptors).
            if (s.compressed.size() + data.size() > u32_max)
                throw stream_error("--zip: the compressed entries pass 4 GiB; take a smaller --mib");
            s.streams.push_back({s.compressed.size(), data.size(), static_cast<std::size_t>(out_total),
                                 static_cast<std::size_t>(e.uncompressed_size)});
            crcs.push_back(e.crc32);
            s.compressed.insert(s.compressed.end(), data.begin(), data.end());
            out_total += e.uncompressed_size;
        }
    }
    // The expected bytes: libdeflate's, held to the sizes and CRC-32s the archives record.
    plain->resize(static_cast<std::size_t>(out_total));
    std::atomic<std::size_t> bad{s.streams.size()};
    vyre::util::parallel_chunks<deflate_decompressor_state>(
        s.streams.size(), threads, 1, [&](std::size_t begin, std::size_t end, deflate_decompressor_state& st) {
            for (std::size_t i = begin; i < end; ++i) {
                const auto& d = s.streams[i];
                std::size_t got = 0;
                const bool ok = st.d &&
                                libdeflate_deflate_decompress(st.d, s.compressed.data() + d.input_offset, d.input_size,
                                                              plain->data() + d.output_offset, d.output_size, &got) == LIBDEFLATE_SUCCESS &&
                                got == d.output_size &&
                                static_cast<std::uint32_t>(libdeflate_crc32(0, plain->data() + d.output_offset, d.output_size)) == crcs[i];
                if (!ok) bad = i;
            }
        });
    if (bad != s.streams.size())
        throw stream_error("--zip: deflate entry " + std::to_string(bad) + " does not inflate to its recorded size and CRC-32 with libdeflate");
    s.plain = std::move(plain);
    std::printf("# %s: %zu of %zu archives read, %zu deflate entries: %zu taken (%zu -> %llu bytes), skipped %zu larger than "
                "--mib, %zu empty, %zu damaged or encrypted; %zu left once the next would pass --mib\n",
                s.input.c_str(), files_read, files.size(), deflate_entries, s.streams.size(), s.compressed.size(),
                static_cast<unsigned long long>(out_total), skipped_large, skipped_empty, skipped_bad, left);
    if (s.streams.empty()) throw stream_error("--zip: no deflate entry to measure");
    return s;
}

} // namespace vyre::bench
