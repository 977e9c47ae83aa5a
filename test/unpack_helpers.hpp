// What the unpack tests share: a source tree of real files, archives compared with it, the report's
// problems, and a ZIP writer for the methods Python cannot write (zstd, xz).
#pragma once

#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/engine/unpack.hpp>
#include <vyre/util/sha256.hpp>

#include <bzlib.h>
#include <libdeflate.h>
#include <lzma.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace ve = vyre::engine;
using bytes = std::vector<std::uint8_t>;

// ---------------------------------------------------------------- files and commands

using vyre::test::read_file;
using vyre::test::write_file;
using vyre::test::write_text;
constexpr auto& q = vyre::test::shell_quote;
constexpr auto& run = vyre::test::run_command;

struct temp_dir : vyre::test::scratch_dir {
    temp_dir() : scratch_dir("vyre_unpack_") {}
};

inline bytes random_bytes(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    return vyre::test::random_bytes(rng, n);
}

// ---------------------------------------------------------------- the source tree

// Real files (headers of /usr/include/linux, a budget of about 1.5 MB) plus the shapes archivers
// treat specially: a path and a name component over 100 bytes, relative symlinks, a hard link, an
// empty file, an empty folder, incompressible bytes, an executable, a name with spaces.
struct source_tree {
    temp_dir tmp;
    fs::path root;

    source_tree() {
        root = tmp.path / "src";
        fs::create_directories(root / "linux");
        std::vector<fs::path> headers;
        for (const auto& e : fs::recursive_directory_iterator("/usr/include/linux"))
            if (e.is_regular_file() && !e.is_symlink()) headers.push_back(e.path());
        std::sort(headers.begin(), headers.end());
        std::uintmax_t budget = 1500 * 1024;
        for (const auto& h : headers) {
            const auto size = fs::file_size(h);
            if (size > budget) continue;
            budget -= size;
            const fs::path to = root / "linux" / h.lexically_relative("/usr/include/linux");
            fs::create_directories(to.parent_path());
            fs::copy_file(h, to);
        }
        BOOST_REQUIRE_MESSAGE(budget < 1000 * 1024, "too few headers in /usr/include/linux to archive");
        write_file(root / "random.bin", random_bytes(300 * 1024, 7));
        write_text(root / "empty.txt", "");
        write_text(root / "name with spaces.txt", "spaces\n");
        write_text(root / "run.sh", "#!/bin/sh\necho hi\n");
        fs::permissions(root / "run.sh", fs::perms::owner_exec, fs::perm_options::add);
        fs::create_directories(root / "empty_dir");
        const fs::path deep = root / "deep" / std::string(60, 'd') / std::string(60, 'e');
        fs::create_directories(deep);
        write_text(deep / (std::string(110, 'n') + ".txt"), "a name component of 114 bytes\n");
        fs::create_symlink("random.bin", root / "link_to_random");
        fs::create_directories(root / "sub");
        fs::create_symlink("../empty.txt", root / "sub" / "up_link");
        fs::create_hard_link(root / "random.bin", root / "hard_copy.bin");
    }
};

inline const source_tree& tree() {
    static source_tree t;
    return t;
}

// Compares `out` with `src`: same names, same kinds, same bytes, same link targets. With
// follow_links, a symlink of src must be a regular file in out with the target's content (archivers
// that store what a link points to); with !empty_dirs, folders without files may be missing.
inline void check_same_tree(const fs::path& src, const fs::path& out, bool follow_links = false, bool empty_dirs = true) {
    std::set<std::string> seen;
    for (auto it = fs::recursive_directory_iterator(src); it != fs::recursive_directory_iterator(); ++it) {
        const std::string rel = it->path().lexically_relative(src).generic_string();
        const fs::path o = out / rel;
        const auto st = fs::symlink_status(o);
        if (it->is_symlink() && !follow_links) {
            BOOST_CHECK_MESSAGE(fs::is_symlink(st), rel << " should be a symlink in " << out);
            if (fs::is_symlink(st)) BOOST_CHECK_EQUAL(fs::read_symlink(o), fs::read_symlink(it->path()));
        } else if (it->is_directory()) {
            if (!empty_dirs && fs::is_empty(it->path())) continue;
            BOOST_CHECK_MESSAGE(fs::is_directory(st), rel << " should be a folder in " << out);
        } else {
            BOOST_CHECK_MESSAGE(fs::is_regular_file(st), rel << " should be a regular file in " << out);
            if (fs::is_regular_file(st)) BOOST_CHECK_MESSAGE(read_file(o) == read_file(it->path()), rel << " differs");
        }
        seen.insert(rel);
    }
    for (auto it = fs::recursive_directory_iterator(out); it != fs::recursive_directory_iterator(); ++it) {
        const std::string rel = it->path().lexically_relative(out).generic_string();
        BOOST_CHECK_MESSAGE(seen.count(rel), rel << " in " << out << " is not in the original");
    }
}

// Every path below `root`, without following links: what must not change outside the output folder.
inline std::set<std::string> listing(const fs::path& root) {
    std::set<std::string> s;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it)
        s.insert(it->path().lexically_relative(root).generic_string());
    return s;
}

// No symlink below `out` may resolve outside it.
inline void check_links_inside(const fs::path& out) {
    const fs::path base = fs::canonical(out);
    for (auto it = fs::recursive_directory_iterator(out); it != fs::recursive_directory_iterator(); ++it) {
        if (!it->is_symlink()) continue;
        const fs::path resolved = fs::weakly_canonical(it->path());
        const auto rel = resolved.lexically_relative(base).generic_string();
        BOOST_CHECK_MESSAGE(!rel.empty() && rel.rfind("..", 0) != 0, it->path() << " resolves outside: " << resolved);
    }
}

inline ve::unpack_report unpack_files(vyre::runtime::context& ctx, const std::vector<fs::path>& files, const fs::path& out,
                               ve::unpack_options o = {}) {
    std::vector<bytes> data;
    data.reserve(files.size());
    std::vector<ve::unpack_input> inputs;
    for (const auto& f : files) {
        data.push_back(read_file(f));
        inputs.push_back({f.filename().string(), data.back()});
    }
    o.output_dir = out;
    o.hash = true;
    return ve::unpack(ctx, inputs, o);
}

inline std::string problems_of(const ve::unpack_report& r) {
    std::string s;
    for (const auto& p : r.problems) s += "\n  " + std::string(ve::unpack_status_name(p.kind)) + " " + p.path + ": " + p.message;
    return s;
}

inline const ve::unpack_problem* find_problem(const ve::unpack_report& r, const std::string& path_part, const std::string& message_part) {
    for (const auto& p : r.problems)
        if (p.path.find(path_part) != std::string::npos && p.message.find(message_part) != std::string::npos) return &p;
    return nullptr;
}

// ---------------------------------------------------------------- a ZIP writer for what Python cannot write

struct zip_item {
    std::string name;
    bytes data;
    std::uint16_t method = 0; // 0 stored, 8 deflate, 12 bzip2, 14 LZMA (with its end marker), 93 zstd, 95 xz
    std::uint32_t unix_mode = 0100644;
    std::optional<std::uint32_t> declared_size; // a lie, when set
    std::uint16_t made_by = 0x031E;               // version made by: Unix, 3.0
    std::optional<std::uint32_t> external;        // external attributes (default: unix_mode << 16)
};

inline zip_item entry(std::string name, bytes data, std::uint16_t method = 0, std::uint32_t unix_mode = 0100644,
                std::optional<std::uint32_t> declared_size = std::nullopt) {
    zip_item item;
    item.name = std::move(name);
    item.data = std::move(data);
    item.method = method;
    item.unix_mode = unix_mode;
    item.declared_size = declared_size;
    return item;
}

inline void put16(bytes& b, std::uint32_t v) {
    b.push_back(static_cast<std::uint8_t>(v));
    b.push_back(static_cast<std::uint8_t>(v >> 8));
}
inline void put32(bytes& b, std::uint32_t v) {
    put16(b, v & 0xFFFF);
    put16(b, v >> 16);
}

inline bytes make_zip(const std::vector<zip_item>& items) {
    bytes out, central;
    for (const auto& it : items) {
        bytes packed;
        if (it.method == 0) {
            packed = it.data;
        } else if (it.method == 8) {
            libdeflate_compressor* c = libdeflate_alloc_compressor(6);
            packed.resize(libdeflate_deflate_compress_bound(c, it.data.size()));
            packed.resize(libdeflate_deflate_compress(c, it.data.data(), it.data.size(), packed.data(), packed.size()));
            libdeflate_free_compressor(c);
        } else if (it.method == 12) {
            auto n = static_cast<unsigned>(it.data.size() + it.data.size() / 100 + 600);
            packed.resize(n);
            BOOST_REQUIRE(BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(packed.data()), &n,
                                                   const_cast<char*>(reinterpret_cast<const char*>(it.data.data())),
                                                   static_cast<unsigned>(it.data.size()), 9, 0, 0) == BZ_OK);
            packed.resize(n);
        } else if (it.method == 14 || it.method == 95) {
            // 14: ZIP's LZMA header (SDK version 9.20, 5 bytes of properties), then the raw stream
            // with its end marker (flag bit 1 says so); 95: a whole .xz stream.
            lzma_options_lzma opt;
            lzma_lzma_preset(&opt, 6);
            lzma_filter filters[2] = {{it.method == 14 ? LZMA_FILTER_LZMA1 : LZMA_FILTER_LZMA2, &opt}, {LZMA_VLI_UNKNOWN, nullptr}};
            bytes raw(it.data.size() + it.data.size() / 2 + 1024);
            std::size_t n = 0;
            if (it.method == 95) {
                BOOST_REQUIRE(lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC64, nullptr, it.data.data(), it.data.size(), raw.data(), &n,
                                                        raw.size()) == LZMA_OK);
                raw.resize(n);
                packed = raw;
            } else {
                BOOST_REQUIRE(lzma_raw_buffer_encode(filters, nullptr, it.data.data(), it.data.size(), raw.data(), &n, raw.size()) == LZMA_OK);
                raw.resize(n);
                std::uint32_t props_size = 0;
                BOOST_REQUIRE(lzma_properties_size(&props_size, &filters[0]) == LZMA_OK && props_size == 5);
                packed = {9, 20, 5, 0, 0, 0, 0, 0, 0};
                BOOST_REQUIRE(lzma_properties_encode(&filters[0], packed.data() + 4) == LZMA_OK);
                packed.insert(packed.end(), raw.begin(), raw.end());
            }
        } else {
            packed.resize(ZSTD_compressBound(it.data.size()));
            const std::size_t n = ZSTD_compress(packed.data(), packed.size(), it.data.data(), it.data.size(), 3);
            BOOST_REQUIRE(!ZSTD_isError(n));
            packed.resize(n);
        }
        const std::uint32_t crc = libdeflate_crc32(0, it.data.data(), it.data.size());
        const std::uint32_t usize = it.declared_size.value_or(static_cast<std::uint32_t>(it.data.size()));
        const auto offset = static_cast<std::uint32_t>(out.size());
        const auto header = [&](bytes& b, bool local) {
            put32(b, local ? 0x04034B50 : 0x02014B50);
            if (!local) put16(b, it.made_by);
            put16(b, it.method == 93 ? 63 : 20);
            put16(b, it.method == 14 ? 0x0802 : 0x0800);
            put16(b, it.method);
            put16(b, 0);
            put16(b, 0x21);
            put32(b, crc);
            put32(b, static_cast<std::uint32_t>(packed.size()));
            put32(b, usize);
            put16(b, static_cast<std::uint32_t>(it.name.size()));
            put16(b, 0);
            if (!local) {
                put16(b, 0);
                put16(b, 0);
                put16(b, 0);
                put32(b, it.external.value_or(it.unix_mode << 16));
                put32(b, offset);
            }
            b.insert(b.end(), it.name.begin(), it.name.end());
        };
        header(out, true);
        out.insert(out.end(), packed.begin(), packed.end());
        header(central, false);
    }
    const auto cd_offset = static_cast<std::uint32_t>(out.size());
    out.insert(out.end(), central.begin(), central.end());
    put32(out, 0x06054B50);
    put16(out, 0);
    put16(out, 0);
    put16(out, static_cast<std::uint32_t>(items.size()));
    put16(out, static_cast<std::uint32_t>(items.size()));
    put32(out, static_cast<std::uint32_t>(central.size()));
    put32(out, cd_offset);
    put16(out, 0);
    return out;
}

inline bytes text(const std::string& s) { return bytes(s.begin(), s.end()); }

inline bool contains_text(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

} // namespace
