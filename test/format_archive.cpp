// Host-side archive formats (tar, ZIP, gzip, content detection), checked against archives the
// system's own tools (tar, gzip, zip, lz4, zstd, Python's zipfile and tarfile) make from real files,
// and against hostile archives: every parsed entry must equal the original byte for byte, and every
// damaged input must end in format_error, resource_error or a per-entry status, never a crash.
#include "harness.hpp"
#include "test_data.hpp"

#include <vyre/engine/zip_extract.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/util/little_endian.hpp>

#include <libdeflate.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <stdlib.h> // mkdtemp

namespace {

namespace fs = std::filesystem;
namespace fmt = vyre::format;
using bytes = std::vector<std::uint8_t>;

// ---------------------------------------------------------------- files and commands

using vyre::test::read_file;
using vyre::test::write_file;
using vyre::test::write_text;
constexpr auto& q = vyre::test::shell_quote;
constexpr auto& run = vyre::test::run_command;

bool same(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

bytes as_bytes(const std::string& s) { return bytes(s.begin(), s.end()); }

struct temp_dir : vyre::test::scratch_dir {
    temp_dir() : scratch_dir("vyre_archive_") {}
};

bytes random_bytes(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    return vyre::test::random_bytes(rng, n);
}

// ---------------------------------------------------------------- the source tree

// A folder of real files (headers from /usr/include, copyright files from /usr/share/doc) with the
// shapes archivers treat specially: a path over 100 bytes that ustar can split, a file name
// component over 100 bytes that only GNU and pax can store, a symlink with a target over 100 bytes,
// a hard link, an empty file, an empty directory, and incompressible bytes.
struct source_tree {
    temp_dir tmp;
    fs::path root;
    // Top-level names ustar cannot store (name component or link target over 100 bytes).
    std::set<std::string> not_ustar = {"long", "long_target_link"};

    source_tree() {
        root = tmp.path / "src";
        fs::create_directories(root / "include");
        std::uintmax_t budget = 300 * 1024;
        std::string first_header;
        for (const char* h : {"zlib.h", "zstd.h", "lz4.h", "libdeflate.h", "stdio.h", "string.h", "errno.h", "zconf.h",
                              "lz4frame.h", "xxhash.h"}) {
            const fs::path src = fs::path("/usr/include") / h;
            std::error_code ec;
            if (!fs::is_regular_file(src, ec) || fs::file_size(src) > budget) continue;
            budget -= fs::file_size(src);
            fs::copy_file(src, root / "include" / h);
            if (first_header.empty()) first_header = h;
        }
        BOOST_REQUIRE_MESSAGE(!first_header.empty(), "no header of /usr/include to archive");
        std::uintmax_t doc_budget = 100 * 1024;
        std::vector<fs::path> docs;
        std::error_code ec;
        for (const auto& d : fs::directory_iterator("/usr/share/doc", ec)) docs.push_back(d.path());
        std::sort(docs.begin(), docs.end());
        int taken = 0;
        for (const auto& d : docs) {
            const fs::path c = d / "copyright";
            if (taken == 12 || !fs::is_regular_file(c, ec) || fs::file_size(c, ec) > doc_budget) continue;
            doc_budget -= fs::file_size(c);
            fs::create_directories(root / "doc" / d.filename());
            fs::copy_file(c, root / "doc" / d.filename() / "copyright");
            ++taken;
        }
        write_file(root / "random.bin", random_bytes(48 * 1024, 1));
        write_text(root / "empty.txt", "");
        fs::create_directories(root / "empty_dir");
        const fs::path deep = root / "deep" / std::string(60, 'd') / std::string(60, 'e');
        fs::create_directories(deep);
        fs::copy_file(root / "include" / first_header, deep / "notes.h");
        fs::create_directories(root / "long");
        write_text(root / "long" / (std::string(110, 'n') + ".txt"), "a name component of 114 bytes\n");
        fs::create_symlink("include/" + first_header, root / "link_to_header.h");
        fs::create_symlink("deep/" + std::string(60, 'd') + "/" + std::string(60, 'e') + "/notes.h",
                           root / "long_target_link");
        fs::create_hard_link(root / "include" / first_header, root / "hard_copy.h");
    }
};

const source_tree& tree() {
    static source_tree t;
    return t;
}

struct expected_item {
    enum kind_t { file, directory, symlink } kind = file;
    bytes content;
    std::string target;
};

using expected_tree = std::map<std::string, expected_item>;

// What an archive of `root` must hold, by path relative to root (no "./", no trailing '/').
expected_tree expected_of(const fs::path& root, const std::set<std::string>& exclude = {}) {
    expected_tree out;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        const std::string rel = it->path().lexically_relative(root).generic_string();
        const std::string top = rel.substr(0, rel.find('/'));
        if (exclude.count(top)) {
            if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
            continue;
        }
        expected_item item;
        if (it->is_symlink()) {
            item.kind = expected_item::symlink;
            item.target = fs::read_symlink(it->path()).string();
        } else if (it->is_directory()) {
            item.kind = expected_item::directory;
        } else {
            item.content = read_file(it->path());
        }
        out.emplace(rel, std::move(item));
    }
    return out;
}

std::string normalized(std::string name) {
    while (name.rfind("./", 0) == 0) name.erase(0, 2);
    while (!name.empty() && name.back() == '/') name.pop_back();
    return name == "." ? std::string() : name;
}

// Checks a tar against the tree: same names, types, link targets, and contents byte for byte (a hard
// link's content is its target's).
void check_tar(std::span<const std::uint8_t> archive, const expected_tree& want) {
    const fmt::tar_archive a = fmt::parse_tar(archive);
    BOOST_TEST(a.end_marker);
    std::map<std::string, const fmt::tar_entry*> by_name;
    for (const auto& e : a.entries) {
        const std::string n = normalized(e.name);
        if (n.empty()) continue;
        BOOST_TEST(by_name.emplace(n, &e).second, "duplicate tar entry " << n);
    }
    BOOST_TEST(by_name.size() == want.size());
    for (const auto& [name, item] : want) {
        BOOST_TEST_CONTEXT("entry " << name) {
            const auto it = by_name.find(name);
            if (it == by_name.end()) {
                BOOST_ERROR("missing from the tar");
                continue;
            }
            const fmt::tar_entry& e = *it->second;
            switch (item.kind) {
            case expected_item::directory: BOOST_TEST((e.type == fmt::tar_entry_type::directory)); break;
            case expected_item::symlink:
                BOOST_TEST((e.type == fmt::tar_entry_type::symlink));
                BOOST_TEST(e.link_target == item.target);
                break;
            case expected_item::file: {
                const fmt::tar_entry* content = &e;
                if (e.type == fmt::tar_entry_type::hard_link) {
                    const auto t = by_name.find(normalized(e.link_target));
                    BOOST_TEST_REQUIRE((t != by_name.end()), "hard link target " << e.link_target);
                    content = t->second;
                }
                BOOST_TEST((content->type == fmt::tar_entry_type::regular));
                BOOST_TEST(same(fmt::tar_entry_data(archive, *content), item.content), "content differs");
                break;
            }
            }
        }
    }
}

// Checks a ZIP against the tree; every entry must be extractable and equal the original.
void check_zip(std::span<const std::uint8_t> archive, const expected_tree& want, bool symlinks = true) {
    const fmt::zip_archive a = fmt::parse_zip(archive);
    BOOST_TEST(a.problems.empty());
    std::map<std::string, const fmt::zip_entry*> by_name;
    for (const auto& e : a.entries) {
        BOOST_TEST_CONTEXT("entry " << e.name) {
            BOOST_TEST((e.status == fmt::zip_entry_status::ok), e.problem);
            BOOST_TEST(by_name.emplace(normalized(e.name), &e).second, "duplicate ZIP entry");
        }
    }
    std::size_t wanted = 0;
    for (const auto& [name, item] : want) {
        if (item.kind == expected_item::symlink && !symlinks) continue;
        ++wanted;
        BOOST_TEST_CONTEXT("entry " << name) {
            const auto it = by_name.find(name);
            if (it == by_name.end()) {
                BOOST_ERROR("missing from the ZIP");
                continue;
            }
            const fmt::zip_entry& e = *it->second;
            const bytes content = vyre::engine::zip_extract(archive, e);
            switch (item.kind) {
            case expected_item::directory: BOOST_TEST(e.is_directory()); break;
            case expected_item::symlink:
                BOOST_TEST(e.is_symlink());
                BOOST_TEST(std::string(content.begin(), content.end()) == item.target);
                break;
            case expected_item::file:
                BOOST_TEST(!e.is_directory());
                BOOST_TEST(same(content, item.content), "content differs");
                break;
            }
        }
    }
    BOOST_TEST(by_name.size() == wanted);
}

// ---------------------------------------------------------------- hand-built archives

void put_le(bytes& out, std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void set_le(bytes& out, std::uint64_t at, std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) out.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}

std::uint32_t crc32(std::span<const std::uint8_t> b) {
    return static_cast<std::uint32_t>(libdeflate_crc32(0, b.data(), b.size()));
}

bytes deflate_raw(std::span<const std::uint8_t> in, int level = 6) {
    libdeflate_compressor* c = libdeflate_alloc_compressor(level);
    BOOST_REQUIRE(c);
    bytes out(libdeflate_deflate_compress_bound(c, in.size()));
    const std::uint8_t none = 0;
    const std::size_t n = libdeflate_deflate_compress(c, in.empty() ? &none : in.data(), in.size(), out.data(), out.size());
    libdeflate_free_compressor(c);
    BOOST_REQUIRE(n > 0);
    out.resize(n);
    return out;
}

bytes zstd_compress(std::span<const std::uint8_t> in) {
    bytes out(ZSTD_compressBound(in.size()));
    const std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
    BOOST_REQUIRE(!ZSTD_isError(n));
    out.resize(n);
    return out;
}

bool is_zstd_method(std::uint16_t m) { return m == fmt::zip_method_zstd || m == fmt::zip_method_zstd_legacy; }

struct hand_entry {
    std::string name;
    bytes content;
    std::uint16_t method = fmt::zip_method_stored; // 0, 8, 20, 93; any other is written as stored bytes
    bool zip64 = false;      // 0xFFFFFFFF in the headers, the values in ZIP64 extra fields
    bool descriptor = false; // bit 3: zeros in the local header, a signed data descriptor after the data
    std::uint16_t flags = 0;
};

struct hand_zip {
    bytes data;
    std::vector<std::uint64_t> local;   // offsets of the local headers, in entry order
    std::vector<std::uint64_t> central; // offsets of the central directory headers
    std::uint64_t cd_offset = 0;
    std::uint64_t eocd = 0;
};

// A ZIP written field by field (APPNOTE 6.3) for what no tool here writes: zstd entries (methods 93
// and 20), a ZIP64 end record, ZIP64 extra fields in both headers, duplicated central records.
hand_zip build_zip(const std::vector<hand_entry>& entries, bool zip64_end = false, const std::string& comment = {},
                   const std::vector<std::size_t>& duplicate_central = {}) {
    struct written {
        std::uint32_t crc;
        std::uint64_t csize, usize, offset;
    };
    hand_zip z;
    bytes& out = z.data;
    std::vector<written> w;
    for (const auto& e : entries) {
        const bytes data = e.method == fmt::zip_method_deflate ? deflate_raw(e.content)
            : is_zstd_method(e.method)                         ? zstd_compress(e.content)
                                                               : e.content;
        const written info{crc32(e.content), data.size(), e.content.size(), out.size()};
        z.local.push_back(out.size());
        put_le(out, fmt::zip_local_signature, 4);
        put_le(out, e.zip64 ? 45 : 20, 2);
        put_le(out, e.flags | (e.descriptor ? 0x08 : 0), 2);
        put_le(out, e.method, 2);
        put_le(out, 0, 2);
        put_le(out, 0x21, 2); // 1980-01-01
        put_le(out, e.descriptor ? 0 : info.crc, 4);
        put_le(out, e.descriptor ? 0 : e.zip64 ? 0xFFFFFFFF : info.csize, 4);
        put_le(out, e.descriptor ? 0 : e.zip64 ? 0xFFFFFFFF : info.usize, 4);
        put_le(out, e.name.size(), 2);
        put_le(out, e.zip64 ? 20 : 0, 2);
        out.insert(out.end(), e.name.begin(), e.name.end());
        if (e.zip64) {
            put_le(out, 1, 2);
            put_le(out, 16, 2);
            put_le(out, e.descriptor ? 0 : info.usize, 8);
            put_le(out, e.descriptor ? 0 : info.csize, 8);
        }
        out.insert(out.end(), data.begin(), data.end());
        if (e.descriptor) {
            put_le(out, fmt::zip_descriptor_signature, 4);
            put_le(out, info.crc, 4);
            put_le(out, info.csize, e.zip64 ? 8 : 4);
            put_le(out, info.usize, e.zip64 ? 8 : 4);
        }
        w.push_back(info);
    }
    z.cd_offset = out.size();
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < entries.size(); ++i) order.push_back(i);
    order.insert(order.end(), duplicate_central.begin(), duplicate_central.end());
    for (const std::size_t i : order) {
        const auto& e = entries[i];
        const auto& info = w[i];
        z.central.push_back(out.size());
        put_le(out, fmt::zip_central_signature, 4);
        put_le(out, 3 << 8 | 63, 2); // made by Unix, APPNOTE 6.3
        put_le(out, e.zip64 ? 45 : 20, 2);
        put_le(out, e.flags | (e.descriptor ? 0x08 : 0), 2);
        put_le(out, e.method, 2);
        put_le(out, 0, 2);
        put_le(out, 0x21, 2);
        put_le(out, info.crc, 4);
        put_le(out, e.zip64 ? 0xFFFFFFFF : info.csize, 4);
        put_le(out, e.zip64 ? 0xFFFFFFFF : info.usize, 4);
        put_le(out, e.name.size(), 2);
        put_le(out, e.zip64 ? 28 : 0, 2);
        put_le(out, 0, 2); // comment
        put_le(out, 0, 2); // disk
        put_le(out, 0, 2); // internal attributes
        put_le(out, std::uint64_t{0100644} << 16, 4);
        put_le(out, e.zip64 ? 0xFFFFFFFF : info.offset, 4);
        out.insert(out.end(), e.name.begin(), e.name.end());
        if (e.zip64) {
            put_le(out, 1, 2);
            put_le(out, 24, 2);
            put_le(out, info.usize, 8);
            put_le(out, info.csize, 8);
            put_le(out, info.offset, 8);
        }
    }
    const std::uint64_t cd_size = out.size() - z.cd_offset;
    const std::uint64_t count = order.size();
    if (zip64_end) {
        const std::uint64_t record = out.size();
        put_le(out, fmt::zip64_eocd_signature, 4);
        put_le(out, 44, 8);
        put_le(out, 45, 2);
        put_le(out, 45, 2);
        put_le(out, 0, 4);
        put_le(out, 0, 4);
        put_le(out, count, 8);
        put_le(out, count, 8);
        put_le(out, cd_size, 8);
        put_le(out, z.cd_offset, 8);
        put_le(out, fmt::zip64_locator_signature, 4);
        put_le(out, 0, 4);
        put_le(out, record, 8);
        put_le(out, 1, 4);
    }
    z.eocd = out.size();
    put_le(out, fmt::zip_eocd_signature, 4);
    put_le(out, 0, 2);
    put_le(out, 0, 2);
    put_le(out, zip64_end ? 0xFFFF : count, 2);
    put_le(out, zip64_end ? 0xFFFF : count, 2);
    put_le(out, zip64_end ? 0xFFFFFFFF : cd_size, 4);
    put_le(out, zip64_end ? 0xFFFFFFFF : z.cd_offset, 4);
    put_le(out, comment.size(), 2);
    out.insert(out.end(), comment.begin(), comment.end());
    return z;
}

// One gzip member with the header fields `flags` asks for (FHCRC computed over the header).
bytes gzip_member(std::span<const std::uint8_t> content, std::uint8_t flags, const std::string& name = {},
                  const std::string& comment = {}, const bytes& extra = {}) {
    bytes out = {0x1F, 0x8B, 8, flags};
    put_le(out, 1700000000, 4);
    out.push_back(0);
    out.push_back(3); // Unix
    if (flags & fmt::gzip_flag_extra) {
        put_le(out, extra.size(), 2);
        out.insert(out.end(), extra.begin(), extra.end());
    }
    if (flags & fmt::gzip_flag_name) {
        out.insert(out.end(), name.begin(), name.end());
        out.push_back(0);
    }
    if (flags & fmt::gzip_flag_comment) {
        out.insert(out.end(), comment.begin(), comment.end());
        out.push_back(0);
    }
    if (flags & fmt::gzip_flag_hcrc) put_le(out, crc32(out) & 0xFFFF, 2);
    const bytes d = deflate_raw(content);
    out.insert(out.end(), d.begin(), d.end());
    put_le(out, crc32(content), 4);
    put_le(out, content.size(), 4);
    return out;
}

using vyre::test::put_octal;
using vyre::test::tar_append;
using vyre::test::tar_finish;
using vyre::test::tar_set_checksum;

// The message of the E that f throws; a test error when it throws nothing.
template <class E, class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    BOOST_ERROR("no exception where one was expected");
    return {};
}

template <class F>
std::uint64_t format_error_offset(F&& f) {
    try {
        f();
    } catch (const vyre::format_error& e) {
        return e.offset();
    }
    BOOST_ERROR("no format_error where one was expected");
    return 0;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The tree's regular files only (what a writer that skips directories and symlinks stores).
expected_tree files_only(const expected_tree& t) {
    expected_tree out;
    for (const auto& [n, item] : t)
        if (item.kind == expected_item::file) out.emplace(n, item);
    return out;
}

} // namespace

// ================================================================ tar

BOOST_AUTO_TEST_CASE(tar_by_gnu_tar_in_every_format) {
    const source_tree& t = tree();
    temp_dir out;
    struct variant {
        const char* format;
        std::set<std::string> exclude;
        fmt::tar_header_format header;
    };
    const variant variants[] = {
        {"gnu", {}, fmt::tar_header_format::gnu},
        {"oldgnu", {}, fmt::tar_header_format::gnu},
        {"pax", {}, fmt::tar_header_format::ustar},
        {"ustar", t.not_ustar, fmt::tar_header_format::ustar},
        // v7 has no prefix field: names over 99 bytes cannot be stored at all.
        {"v7", {"long", "long_target_link", "deep"}, fmt::tar_header_format::v7},
    };
    for (const variant& v : variants) {
        BOOST_TEST_CONTEXT("tar --format=" << v.format) {
            std::string excludes;
            for (const auto& x : v.exclude) excludes += " --exclude=./" + x;
            const fs::path file = out.path / (std::string(v.format) + ".tar");
            run("tar --format=" + std::string(v.format) + " -cf " + q(file) + excludes + " -C " + q(t.root) + " .");
            const bytes archive = read_file(file);
            BOOST_TEST((fmt::detect(archive) == fmt::content_kind::tar));
            check_tar(archive, expected_of(t.root, v.exclude));
            const fmt::tar_archive a = fmt::parse_tar(archive);
            bool long_name = false, long_link = false;
            for (const auto& e : a.entries) {
                // pax headers change an entry's format; its own header block is still ustar.
                if (e.format != fmt::tar_header_format::pax) BOOST_TEST((e.format == v.header), e.name);
                long_name = long_name || e.name.size() > 100;
                long_link = long_link || e.link_target.size() > 100;
                BOOST_TEST(e.data_offset == e.header_offset + 512);
            }
            BOOST_TEST(long_name == !v.exclude.count("deep")); // ustar splits it into prefix and name
            BOOST_TEST(long_link == !v.exclude.count("long_target_link"));
        }
    }
}

BOOST_AUTO_TEST_CASE(tar_by_python_tarfile_pax_and_gnu_with_non_ascii_names) {
    temp_dir out;
    const fs::path script = out.path / "make_tars.py";
    write_text(script, R"PY(
import os, sys, tarfile
out = sys.argv[1]
u = os.path.join(out, 'u')
os.makedirs(os.path.join(u, 'données', '日本語'))
with open(os.path.join(u, 'données', 'ünïcödé-名前.txt'), 'wb') as f:
    f.write(('é' * 3000 + '\n').encode())
with open(os.path.join(u, 'données', '日本語', 'ファイル.bin'), 'wb') as f:
    f.write(bytes(range(256)) * 40)
with open(os.path.join(u, 'ľ' * 70 + '.txt'), 'wb') as f:
    f.write(b'a non-ASCII name of 144 bytes\n')
os.symlink('données/ünïcödé-名前.txt', os.path.join(u, 'lien'))
with tarfile.open(os.path.join(out, 'pax.tar'), 'w', format=tarfile.PAX_FORMAT, pax_headers={'comment': 'vyre'}) as t:
    t.add(u, arcname='.')
with tarfile.open(os.path.join(out, 'gnu.tar'), 'w', format=tarfile.GNU_FORMAT) as t:
    t.add(u, arcname='.')
)PY");
    run("python3 " + q(script) + " " + q(out.path));
    const expected_tree want = expected_of(out.path / "u");
    BOOST_TEST(want.size() == 6u);
    const bytes pax = read_file(out.path / "pax.tar");
    check_tar(pax, want);
    const fmt::tar_archive a = fmt::parse_tar(pax);
    BOOST_TEST(a.global_pax.count("comment") == 1u);
    BOOST_TEST(a.global_pax.at("comment") == "vyre");
    BOOST_TEST(std::count_if(a.entries.begin(), a.entries.end(), [](const fmt::tar_entry& e) {
                   return e.format == fmt::tar_header_format::pax;
               }) >= 4);
    check_tar(read_file(out.path / "gnu.tar"), want);
}

BOOST_AUTO_TEST_CASE(tar_numbers_checksums_and_old_headers) {
    const bytes content = as_bytes("seven bytes and more\n");
    // Base-256 size (GNU, for sizes of 8 GiB and more): the same entry read either way.
    bytes a;
    const std::size_t h = tar_append(a, "big.bin", '0', content);
    tar_finish(a);
    bytes b256 = a;
    std::fill_n(b256.begin() + static_cast<std::ptrdiff_t>(h + 124), 12, std::uint8_t{0});
    b256[h + 124] = 0x80;
    b256[h + 135] = static_cast<std::uint8_t>(content.size());
    tar_set_checksum(b256, h);
    const fmt::tar_archive parsed = fmt::parse_tar(b256);
    BOOST_TEST_REQUIRE(parsed.entries.size() == 1u);
    BOOST_TEST(parsed.entries[0].size == content.size());
    BOOST_TEST(same(fmt::tar_entry_data(b256, parsed.entries[0]), content));
    // A base-256 size beyond the archive, and a negative one (0xFF...).
    bytes huge = b256;
    huge[h + 130] = 0x01; // 2^40 and more
    tar_set_checksum(huge, h);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::parse_tar(huge); }), "'big.bin'"));
    bytes negative = b256;
    std::fill_n(negative.begin() + static_cast<std::ptrdiff_t>(h + 124), 12, std::uint8_t{0xFF});
    tar_set_checksum(negative, h);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::parse_tar(negative); }), "negative size"));

    // The old signed checksum (bytes >= 0x80 summed as negative) is accepted, as GNU tar does.
    bytes high;
    const std::size_t hh = tar_append(high, "caf\xC3\xA9-\xE5\x90\x8D.txt", '0', content);
    tar_finish(high);
    tar_set_checksum(high, hh, true);
    const fmt::tar_archive signed_sum = fmt::parse_tar(high);
    BOOST_TEST_REQUIRE(signed_sum.entries.size() == 1u);
    BOOST_TEST(signed_sum.entries[0].name == "caf\xC3\xA9-\xE5\x90\x8D.txt");

    // v7: no magic, directories by a trailing slash on a '\0' type.
    bytes v7;
    tar_append(v7, "dir/", '\0', {}, {}, false);
    tar_append(v7, "dir/file", '\0', content, {}, false);
    tar_append(v7, "dir/link", '1', {}, "dir/file", false);
    tar_finish(v7);
    BOOST_TEST((fmt::detect(v7) == fmt::content_kind::tar));
    const fmt::tar_archive old = fmt::parse_tar(v7);
    BOOST_TEST_REQUIRE(old.entries.size() == 3u);
    BOOST_TEST((old.entries[0].type == fmt::tar_entry_type::directory));
    BOOST_TEST((old.entries[1].type == fmt::tar_entry_type::regular));
    BOOST_TEST((old.entries[1].format == fmt::tar_header_format::v7));
    BOOST_TEST(same(fmt::tar_entry_data(v7, old.entries[1]), content));
    BOOST_TEST((old.entries[2].type == fmt::tar_entry_type::hard_link));
    BOOST_TEST(old.entries[2].link_target == "dir/file");
    BOOST_TEST(old.entries[2].size == 0u);

    // GNU long name and long link headers, and a pax header overriding path, size and mtime.
    bytes ext;
    const std::string long_name(150, 'x');
    tar_append(ext, "././@LongLink", 'L', as_bytes(long_name + '\0'));
    tar_append(ext, "././@LongLink", 'K', as_bytes(std::string(130, 'y') + '\0'));
    tar_append(ext, "short", '2', {}, "short-target");
    const std::string records = "30 mtime=1234567890.123456789\n" "17 path=pax/name\n";
    tar_append(ext, "PaxHeaders/file", 'x', as_bytes(records));
    tar_append(ext, "file", '0', content);
    tar_finish(ext);
    const fmt::tar_archive e = fmt::parse_tar(ext);
    BOOST_TEST_REQUIRE(e.entries.size() == 2u);
    BOOST_TEST(e.entries[0].name == long_name);
    BOOST_TEST(e.entries[0].link_target == std::string(130, 'y'));
    BOOST_TEST((e.entries[0].type == fmt::tar_entry_type::symlink));
    BOOST_TEST(e.entries[0].first_header_offset == 0u);
    BOOST_TEST(e.entries[0].header_offset == 4 * 512u);
    BOOST_TEST(e.entries[1].name == "pax/name");
    BOOST_TEST(e.entries[1].mtime == 1234567890);
    BOOST_TEST((e.entries[1].format == fmt::tar_header_format::pax));
    BOOST_TEST(same(fmt::tar_entry_data(ext, e.entries[1]), content));
    BOOST_TEST(e.end_marker);

    // What libarchive, GNU tar and tarfile accept: a GNU volume label, Solaris's 'X' extended
    // header (read as 'x') and ACL header (skipped), a vendor type flag (a regular file), pax
    // numbers with junk after them.
    bytes vendor;
    tar_append(vendor, "backup volume 1", 'V', {});
    tar_append(vendor, "X/solaris", 'X', as_bytes("26 path=solaris/long/name\n"));
    tar_append(vendor, "short", '0', content);
    const std::size_t acl_at = tar_append(vendor, "A/acl", 'A', as_bytes("user::rw-,group::r--,other::r--"));
    tar_append(vendor, "acl.txt", '0', as_bytes("with an ACL"));
    tar_append(vendor, "vendor.bin", 'Q', as_bytes("vendor data"));
    tar_append(vendor, "PaxHeaders/junk", 'x', as_bytes("24 mtime=1234567890junk\n" "16 uid=1001.5xy\n"));
    tar_append(vendor, "junk.txt", '0', content);
    tar_finish(vendor);
    const fmt::tar_archive v = fmt::parse_tar(vendor);
    BOOST_TEST_REQUIRE(v.entries.size() == 4u);
    BOOST_TEST(v.entries[0].name == "solaris/long/name");
    BOOST_TEST(same(fmt::tar_entry_data(vendor, v.entries[0]), content));
    BOOST_TEST(v.entries[1].name == "acl.txt");
    BOOST_TEST(v.entries[1].first_header_offset == acl_at);
    BOOST_TEST(same(fmt::tar_entry_data(vendor, v.entries[1]), as_bytes("with an ACL")));
    BOOST_TEST((v.entries[2].type == fmt::tar_entry_type::regular));
    BOOST_TEST(same(fmt::tar_entry_data(vendor, v.entries[2]), as_bytes("vendor data")));
    BOOST_TEST(v.entries[3].mtime == 1234567890);
    BOOST_TEST(v.entries[3].uid == 1001u);
    BOOST_TEST(!fmt::detail::tar_pax_integer("junk", true).has_value());
    BOOST_TEST(!fmt::detail::tar_pax_integer("-", true).has_value());

    // Old GNU sparse entries with extension blocks (9 data regions: 4 in the header, 5 beyond).
    {
        temp_dir out;
        run("cd " + q(out.path) + " && truncate -s 2M f && for o in 10 100 200 300 400 500 600 700 800; do "
            "printf data | dd of=f bs=1024 seek=$o conv=notrunc status=none; done && "
            "printf after > g && tar --format=gnu --sparse -cf s.tar f g");
        const bytes sparse = read_file(out.path / "s.tar");
        const fmt::tar_archive sp = fmt::parse_tar(sparse);
        BOOST_TEST_REQUIRE(sp.entries.size() == 2u);
        if (sp.entries[0].typeflag == 'S') {
            BOOST_TEST((sp.entries[0].type == fmt::tar_entry_type::sparse));
            BOOST_TEST(sp.entries[0].data_offset == 1024u); // one extension block
            BOOST_TEST(sp.entries[0].sparse_map.size() >= 9u);
            BOOST_TEST(sp.entries[0].sparse_size == 2u << 20);
            BOOST_TEST(fmt::tar_sparse_content(sparse, sp.entries[0], 2u << 20) == read_file(out.path / "f"));
            BOOST_CHECK_THROW(fmt::tar_sparse_content(sparse, sp.entries[0], 1u << 20), vyre::resource_error);
        } else {
            BOOST_TEST_MESSAGE("this file system made no sparse file: GNU sparse headers not exercised");
        }
        BOOST_TEST(sp.entries[1].name == "g");
        BOOST_TEST(same(fmt::tar_entry_data(sparse, sp.entries[1]), as_bytes("after")));
    }

    // No end blocks: the archive ends at the end of the input.
    bytes no_end;
    tar_append(no_end, "a", '0', content);
    const fmt::tar_archive ne = fmt::parse_tar(no_end);
    BOOST_TEST(ne.entries.size() == 1u);
    BOOST_TEST(!ne.end_marker);
    BOOST_TEST(ne.end_offset == no_end.size());
}

BOOST_AUTO_TEST_CASE(tar_hostile_headers) {
    const bytes content(700, 'c');
    bytes good;
    tar_append(good, "first.txt", '0', content);
    const std::size_t second = tar_append(good, "second.txt", '0', content);
    tar_finish(good);
    BOOST_TEST(fmt::parse_tar(good).entries.size() == 2u);

    bytes bad_sum = good;
    bad_sum[second + 10] ^= 1;
    const std::string sum_msg = error_of<vyre::format_error>([&] { fmt::parse_tar(bad_sum); });
    BOOST_TEST(contains(sum_msg, "checksum mismatch"));
    BOOST_TEST(format_error_offset([&] { fmt::parse_tar(bad_sum); }) == second + 148);

    // The size field points past the end of the input: the entry is named.
    bytes past = good;
    past.resize(second + 512 + 100);
    const std::string past_msg = error_of<vyre::format_error>([&] { fmt::parse_tar(past); });
    BOOST_TEST(contains(past_msg, "'second.txt'"), past_msg);
    BOOST_TEST(contains(past_msg, "700 bytes"), past_msg);
    bytes lying = good;
    put_octal(lying, second + 124, 12, 077777777777);
    tar_set_checksum(lying, second);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::parse_tar(lying); }), "'second.txt'"));

    bytes not_octal = good;
    std::memcpy(&not_octal[second + 124], "12345678z00", 11);
    tar_set_checksum(not_octal, second);
    BOOST_TEST(format_error_offset([&] { fmt::parse_tar(not_octal); }) == second + 124);

    bytes truncated_header = good;
    truncated_header.resize(second + 300);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::parse_tar(truncated_header); }), "truncated tar header"));

    // Extension headers with nothing after them, and broken pax records.
    bytes lone;
    tar_append(lone, "././@LongLink", 'L', as_bytes("name\0"));
    tar_finish(lone);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::parse_tar(lone); }), "not followed"));
    // A malformed record ends its header's records, with a warning; the records before it apply
    // and the entries after it are read (as libarchive and Python's tarfile read them).
    // (The header's data starts at byte 512; each case's bad record or byte is at `where`.)
    const std::vector<std::pair<std::string, int>> broken = {{"99 path=x\n", 512},   {"5 k=v\n", 516}, {"12 pathxxxx\n", 512},
                                                             {"abc\n", 512},         {"11 path=ab", 512}, {"4 x=", 512},
                                                             {"13 path=good\n9 bad\n", 525}};
    for (const auto& [records, where] : broken) {
        BOOST_TEST_CONTEXT("pax records " << records) {
            bytes pax;
            tar_append(pax, "PaxHeaders/x", 'x', as_bytes(records));
            tar_append(pax, "x", '0', content);
            tar_append(pax, "after", '0', content);
            tar_finish(pax);
            const fmt::tar_archive t = fmt::parse_tar(pax);
            BOOST_TEST_REQUIRE(t.entries.size() == 2u);
            BOOST_TEST(t.entries[0].name == (records.rfind("13 path=good", 0) == 0 ? "good" : "x"));
            BOOST_TEST(t.entries[1].name == "after");
            BOOST_TEST_REQUIRE(t.warnings.size() == 1u);
            BOOST_TEST(contains(t.warnings[0], "pax record"));
            BOOST_TEST(contains(t.warnings[0], "byte offset " + std::to_string(where) + ")"));
            std::map<std::string, std::string> into;
            BOOST_CHECK_THROW(vyre::format::detail::tar_pax_records(as_bytes(records), 0, into), vyre::format_error);
        }
    }
    bytes pax_size;
    tar_append(pax_size, "PaxHeaders/x", 'x', as_bytes("18 size=999999999\n"));
    tar_append(pax_size, "x", '0', content);
    tar_finish(pax_size);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::parse_tar(pax_size); }), "'x'"));

    // Names are reported as they are: the caller refuses what is unsafe.
    bytes slip;
    tar_append(slip, "../../evil", '0', content);
    tar_append(slip, "/etc/passwd", '0', content);
    tar_append(slip, "escape", '2', {}, "../../../../etc");
    tar_finish(slip);
    const fmt::tar_archive s = fmt::parse_tar(slip);
    BOOST_TEST_REQUIRE(s.entries.size() == 3u);
    BOOST_TEST(s.entries[0].name == "../../evil");
    BOOST_TEST(s.entries[1].name == "/etc/passwd");
    BOOST_TEST(s.entries[2].link_target == "../../../../etc");
}

// ================================================================ gzip

BOOST_AUTO_TEST_CASE(gzip_by_system_gzip_and_tar) {
    const source_tree& t = tree();
    temp_dir out;
    const fs::path a = t.root / "random.bin";
    const fs::path b = *fs::directory_iterator(t.root / "include");
    run("gzip -c -9 " + q(a) + " > " + q(out.path / "a.gz"));
    run("gzip -c -1 " + q(b) + " > " + q(out.path / "b.gz"));
    run("cat " + q(out.path / "a.gz") + " " + q(out.path / "b.gz") + " > " + q(out.path / "ab.gz"));
    const bytes ab_gz = read_file(out.path / "ab.gz");
    BOOST_TEST((fmt::detect(ab_gz) == fmt::content_kind::gzip));
    bytes want = read_file(a);
    const bytes bb = read_file(b);
    want.insert(want.end(), bb.begin(), bb.end());
    const fmt::gzip_content g = fmt::gzip_decompress(ab_gz);
    BOOST_TEST_REQUIRE(g.members.size() == 2u);
    BOOST_TEST(same(g.data, want));
    BOOST_TEST(g.members[0].name == "random.bin");
    BOOST_TEST(g.members[1].offset == g.members[0].end_offset());
    BOOST_TEST(g.members[1].output_offset == fs::file_size(a));
    BOOST_TEST(g.members[1].end_offset() == ab_gz.size());

    // Zero padding after the last member (tape blocks) is accepted, other bytes are not.
    bytes padded = ab_gz;
    padded.resize(padded.size() + 1000, 0);
    BOOST_TEST(same(fmt::gzip_decompress(padded).data, want));
    padded.back() = 1;
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::gzip_decompress(padded); }), "after gzip member 2"));

    // tar.gz by tar -z: the gzip layer, then the tar layer.
    run("tar -czf " + q(out.path / "t.tgz") + " -C " + q(t.root) + " .");
    const fmt::gzip_content tgz = fmt::gzip_decompress(read_file(out.path / "t.tgz"));
    BOOST_TEST((fmt::detect(tgz.data) == fmt::content_kind::tar));
    check_tar(tgz.data, expected_of(t.root));
}

BOOST_AUTO_TEST_CASE(gzip_header_fields_and_hostile_members) {
    const bytes content = random_bytes(5000, 7);
    const bytes extra = {'A', 'B', 2, 0, 'h', 'i'};
    const std::uint8_t all = fmt::gzip_flag_text | fmt::gzip_flag_hcrc | fmt::gzip_flag_extra | fmt::gzip_flag_name |
                             fmt::gzip_flag_comment;
    const bytes m = gzip_member(content, all, "name.bin", "a comment", extra);
    const fmt::gzip_content g = fmt::gzip_decompress(m);
    BOOST_TEST_REQUIRE(g.members.size() == 1u);
    const fmt::gzip_member& h = g.members[0];
    BOOST_TEST(h.flags == all);
    BOOST_TEST(h.name == "name.bin");
    BOOST_TEST(h.comment == "a comment");
    BOOST_TEST(h.extra_offset == 12u);
    BOOST_TEST(h.extra_size == extra.size());
    BOOST_TEST(h.mtime == 1700000000u);
    BOOST_TEST(h.os == 3u);
    BOOST_TEST(h.isize == content.size());
    BOOST_TEST(same(g.data, content));

    for (const std::uint8_t reserved : {0x20, 0x40, 0x80}) {
        bytes r = m;
        r[3] |= reserved;
        BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::gzip_decompress(r); }), "reserved"));
        BOOST_TEST(format_error_offset([&] { fmt::gzip_decompress(r); }) == 3u);
    }
    bytes method = m;
    method[2] = 7;
    BOOST_TEST(format_error_offset([&] { fmt::gzip_decompress(method); }) == 2u);
    bytes hcrc = m;
    hcrc[14] ^= 1; // inside the extra field: the header CRC no longer matches
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::gzip_decompress(hcrc); }), "header CRC"));
    bytes crc = m;
    crc[crc.size() - 8] ^= 1;
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::gzip_decompress(crc); }), "CRC-32 mismatch"));
    BOOST_TEST(format_error_offset([&] { fmt::gzip_decompress(crc); }) == m.size() - 8);
    bytes isize = m;
    isize[isize.size() - 1] ^= 1;
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::gzip_decompress(isize); }), "ISIZE"));
    for (const std::size_t cut : {std::size_t{0}, std::size_t{5}, std::size_t{20}, std::size_t{40}, m.size() / 2,
                                  m.size() - 3}) {
        BOOST_TEST_CONTEXT("cut at " << cut) {
            const bytes c(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(cut));
            BOOST_CHECK_THROW(fmt::gzip_decompress(c), vyre::format_error);
        }
    }
    bytes no_nul = gzip_member(content, fmt::gzip_flag_name, "n");
    no_nul.resize(11); // "n" without its terminating zero
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::gzip_decompress(no_nul); }), "terminating zero"));
    bytes garbage = m;
    garbage[h.deflate_offset] = 0xFF; // block type 3 (reserved)
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::gzip_decompress(garbage); }), "invalid deflate"));
}

BOOST_AUTO_TEST_CASE(gzip_ratio_bomb_stops_at_the_limit) {
    temp_dir out;
    const std::size_t size = 6u << 20;
    run("head -c " + std::to_string(size) + " /dev/zero | gzip -9 > " + q(out.path / "zeros.gz"));
    const bytes bomb = read_file(out.path / "zeros.gz");
    BOOST_TEST(bomb.size() < size / 500); // a ratio of 1000:1 or so
    const std::string msg = error_of<vyre::resource_error>([&] { fmt::gzip_decompress(bomb, 1u << 20); });
    BOOST_TEST(contains(msg, "limit of 1048576"), msg);
    BOOST_TEST(fmt::gzip_decompress(bomb, size).data.size() == size);
    // ISIZE lies small: the limit still holds, and without a limit the lie is found.
    bytes lying = bomb;
    set_le(lying, lying.size() - 4, 1000, 4);
    BOOST_CHECK_THROW(fmt::gzip_decompress(lying, 1u << 20), vyre::resource_error);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::gzip_decompress(lying); }), "ISIZE"));
    // The limit is on all members together.
    bytes two = bomb;
    two.insert(two.end(), bomb.begin(), bomb.end());
    BOOST_CHECK_THROW(fmt::gzip_decompress(two, size + size / 2), vyre::resource_error);
    BOOST_TEST(fmt::gzip_decompress(two, 2 * size).members.size() == 2u);
}

BOOST_AUTO_TEST_CASE(inflate_raw_exact_sizes) {
    const bytes content = random_bytes(3000, 3);
    bytes text(100000, 'a');
    for (std::size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<std::uint8_t>('a' + i % 26);
    const bytes* inputs[] = {&content, &text};
    for (const bytes* c : inputs) {
        const bytes d = deflate_raw(*c);
        BOOST_TEST(same(fmt::inflate_raw(d, c->size(), c->size()), *c));
        BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::inflate_raw(d, c->size() - 1, c->size(), 77); }),
                            "more than"));
        BOOST_TEST(format_error_offset([&] { fmt::inflate_raw(d, c->size() + 1, c->size() + 1, 77); }) == 77u);
        BOOST_CHECK_THROW(fmt::inflate_raw(d, c->size(), c->size() - 1), vyre::resource_error);
    }
    const bytes empty = deflate_raw({});
    BOOST_TEST(fmt::inflate_raw(empty, 0, 0).empty());
    BOOST_CHECK_THROW(fmt::inflate_raw(deflate_raw(content), 0, 1u << 20), vyre::format_error);
    // A declared size no stream of this length could produce is refused before allocating it.
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::inflate_raw(empty, std::uint64_t{1} << 40, ~std::uint64_t{0}); }),
                        "cannot inflate"));
    const bytes junk(100, 0xFF);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::inflate_raw(junk, 100, 1000); }), "invalid deflate"));
}

// ================================================================ ZIP

BOOST_AUTO_TEST_CASE(zip_by_info_zip_stored_and_deflate) {
    const source_tree& t = tree();
    temp_dir out;
    const expected_tree want = expected_of(t.root);
    for (const char* level : {"-0", "-6"}) {
        BOOST_TEST_CONTEXT("zip " << level) {
            const fs::path file = out.path / (std::string("tree") + level + ".zip");
            run("cd " + q(t.root) + " && zip -q -r -y " + level + " " + q(file) + " .");
            const bytes archive = read_file(file);
            BOOST_TEST((fmt::detect(archive) == fmt::content_kind::zip));
            check_zip(archive, want);
            const fmt::zip_archive a = fmt::parse_zip(archive);
            const auto deflated = std::count_if(a.entries.begin(), a.entries.end(),
                                                [](const fmt::zip_entry& e) { return e.method == fmt::zip_method_deflate; });
            if (std::string(level) == "-0") BOOST_TEST(deflated == 0);
            else BOOST_TEST(deflated > 5);
        }
    }
}

BOOST_AUTO_TEST_CASE(zip_by_python_zip64_and_data_descriptors) {
    const source_tree& t = tree();
    temp_dir out;
    const fs::path script = out.path / "make_zip.py";
    write_text(script, R"PY(
import os, sys, zipfile
root, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]
def files():
    for d, dirs, names in os.walk(root):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(d, n)
            if not os.path.islink(p):
                yield p, os.path.relpath(p, root)
# A pipe cannot seek: zipfile then sets bit 3 and writes data descriptors.
target = open(out, 'wb') if mode == 'zip64' else sys.stdout.buffer
with zipfile.ZipFile(target, 'w') as z:
    for i, (p, rel) in enumerate(files()):
        info = zipfile.ZipInfo(rel, date_time=(2020, 1, 2, 3, 4, 6))
        info.compress_type = zipfile.ZIP_DEFLATED if i % 2 else zipfile.ZIP_STORED
        with open(p, 'rb') as src, z.open(info, 'w', force_zip64=(mode == 'zip64' or i % 3 == 0)) as dst:
            dst.write(src.read())
)PY");
    const fs::path zip64 = out.path / "zip64.zip", stream = out.path / "stream.zip";
    run("python3 " + q(script) + " " + q(t.root) + " " + q(zip64) + " zip64");
    run("python3 " + q(script) + " " + q(t.root) + " unused stream | cat > " + q(stream));
    const expected_tree want = files_only(expected_of(t.root));

    const bytes z64 = read_file(zip64);
    check_zip(z64, want);
    for (const auto& e : fmt::parse_zip(z64).entries) {
        // force_zip64 puts 0xFFFFFFFF sizes and a ZIP64 extra field in every local header.
        BOOST_TEST(vyre::util::read_le32(z64, e.local_offset + 18) == 0xFFFFFFFFu, e.name);
        BOOST_TEST(!e.has_data_descriptor());
    }
    const bytes st = read_file(stream);
    check_zip(st, want);
    for (const auto& e : fmt::parse_zip(st).entries) {
        BOOST_TEST(e.has_data_descriptor(), e.name);
        BOOST_TEST(vyre::util::read_le32(st, e.data_offset + e.compressed_size) == fmt::zip_descriptor_signature);
    }
}

BOOST_AUTO_TEST_CASE(zip_hand_built_zstd_entries_and_zip64_end_record) {
    const source_tree& t = tree();
    temp_dir out;
    std::vector<hand_entry> entries;
    expected_tree want;
    const std::uint16_t methods[] = {fmt::zip_method_zstd, fmt::zip_method_zstd_legacy, fmt::zip_method_deflate,
                                     fmt::zip_method_stored};
    std::size_t i = 0;
    for (const auto& [name, item] : files_only(expected_of(t.root))) {
        hand_entry e{name, item.content, methods[i % 4], i % 3 == 1, i % 5 == 2};
        entries.push_back(e);
        want.emplace(name, item);
        ++i;
    }
    for (const bool zip64_end : {false, true}) {
        BOOST_TEST_CONTEXT("ZIP64 end record: " << zip64_end) {
            const hand_zip z = build_zip(entries, zip64_end, "an archive comment");
            check_zip(z.data, want);
            const fmt::zip_archive a = fmt::parse_zip(z.data);
            BOOST_TEST(a.zip64 == zip64_end);
            BOOST_TEST(a.comment == "an archive comment");
            BOOST_TEST(a.cd_offset == z.cd_offset);
            for (const auto& e : a.entries)
                if (e.is_zstd())
                    BOOST_TEST((fmt::detect(fmt::zip_entry_data(z.data, e)) == fmt::content_kind::zstd), e.name);
            // Another reader agrees on the listing (Python's zipfile has no zstd, so it lists only).
            const fs::path file = out.path / "hand.zip";
            write_file(file, z.data);
            run("python3 -c \"import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
                "assert len(z.infolist()) == int(sys.argv[2]), len(z.infolist())\" " +
                q(file) + " " + std::to_string(entries.size()));
        }
    }
}

BOOST_AUTO_TEST_CASE(zip_hostile_central_directory) {
    const source_tree& t = tree();
    temp_dir out;
    const fs::path file = out.path / "tree.zip";
    run("cd " + q(t.root) + " && zip -q -r -y " + q(file) + " .");
    const bytes good = read_file(file);
    const fmt::zip_archive a = fmt::parse_zip(good);
    const std::size_t n = a.entries.size();
    BOOST_TEST_REQUIRE(n > 10u);
    BOOST_TEST(a.problems.empty());

    // Cut inside the central directory: the end record is gone, and the entries are found by their
    // local headers, as a streaming reader finds them, the same as the directory lists them.
    const bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(a.cd_offset + a.cd_size / 2));
    const fmt::zip_archive walked = fmt::parse_zip(cut);
    BOOST_TEST(walked.local_walk);
    BOOST_TEST_REQUIRE(walked.problems.size() == 1u);
    BOOST_TEST(contains(walked.problems[0].message, "no end of central directory record"), walked.problems[0].message);
    BOOST_TEST(contains(walked.problems[0].message, "a central directory without an end record"), walked.problems[0].message);
    BOOST_TEST_REQUIRE(walked.entries.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto &x = a.entries[i], &y = walked.entries[i];
        BOOST_TEST_CONTEXT(x.name) {
            BOOST_TEST(y.name == x.name);
            BOOST_TEST((y.status == x.status));
            BOOST_TEST(y.crc32 == x.crc32);
            BOOST_TEST(y.compressed_size == x.compressed_size);
            BOOST_TEST(y.uncompressed_size == x.uncompressed_size);
            BOOST_TEST(y.data_offset == x.data_offset);
            BOOST_TEST(y.end_offset == x.end_offset);
        }
    }
    // Cut inside an entry's data: the entries before it, and that one corrupt, cut short.
    const auto& middle = a.entries[n / 2];
    const fmt::zip_archive half = fmt::parse_zip(bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(middle.data_offset + 1)));
    BOOST_TEST_REQUIRE(half.entries.size() == n / 2 + 1);
    if (middle.compressed_size > 1) {
        BOOST_TEST((half.entries.back().status == fmt::zip_entry_status::corrupt));
        BOOST_TEST(contains(half.entries.back().problem, "cut short"), half.entries.back().problem);
    }
    for (std::size_t i = 0; i < n / 2; ++i) BOOST_TEST((half.entries[i].status == a.entries[i].status));
    // Written to a pipe, zip puts every entry's sizes in a data descriptor after its data: the
    // walk finds a deflate entry's end by inflating it and a stored one's by its descriptor.
    for (const char* level : {"-6", "-0"}) {
        BOOST_TEST_CONTEXT(level) {
            run("cd " + q(t.root) + " && zip -q -r -y " + level + " - . | cat > " + q(out.path / "piped.zip"));
            const bytes piped = read_file(out.path / "piped.zip");
            const fmt::zip_archive whole = fmt::parse_zip(piped);
            BOOST_TEST_REQUIRE(whole.entries.size() == n);
            std::size_t descriptors = 0;
            for (const auto& e : whole.entries) descriptors += e.has_data_descriptor();
            BOOST_TEST(descriptors > n / 2);
            const fmt::zip_archive w = fmt::parse_zip(bytes(piped.begin(), piped.begin() + static_cast<std::ptrdiff_t>(whole.cd_offset)));
            BOOST_TEST(w.local_walk);
            BOOST_TEST_REQUIRE(w.entries.size() == n);
            for (std::size_t i = 0; i < n; ++i) {
                BOOST_TEST_CONTEXT(whole.entries[i].name) {
                    BOOST_TEST((w.entries[i].status == whole.entries[i].status));
                    BOOST_TEST(w.entries[i].crc32 == whole.entries[i].crc32);
                    BOOST_TEST(w.entries[i].uncompressed_size == whole.entries[i].uncompressed_size);
                    BOOST_TEST(w.entries[i].end_offset == whole.entries[i].end_offset);
                }
            }
        }
    }
    BOOST_CHECK_THROW(fmt::parse_zip(bytes(good.begin(), good.begin() + 21)), vyre::format_error);
    BOOST_CHECK_THROW(fmt::parse_zip(random_bytes(100000, 5)), vyre::format_error);

    // More entries declared than present: all present ones listed, the shortfall reported.
    bytes more = good;
    set_le(more, a.eocd_offset + 8, n + 3, 2);
    set_le(more, a.eocd_offset + 10, n + 3, 2);
    fmt::zip_archive m = fmt::parse_zip(more);
    BOOST_TEST(m.entries.size() == n);
    BOOST_TEST_REQUIRE(m.problems.size() == 1u);
    BOOST_TEST(contains(m.problems[0].message, "ends after"), m.problems[0].message);

    // A damaged header in the middle: the entries before it are still listed and extractable.
    bytes broken = good;
    broken[a.entries[4].central_offset] = 'X';
    m = fmt::parse_zip(broken);
    BOOST_TEST(m.entries.size() == 4u);
    BOOST_TEST_REQUIRE(m.problems.size() == 1u);
    BOOST_TEST(m.problems[0].offset == a.entries[4].central_offset);
    for (const auto& e : m.entries) BOOST_TEST(same(vyre::engine::zip_extract(broken, e), vyre::engine::zip_extract(good, a.entries[&e - m.entries.data()])));

    // A directory size running past the end record.
    bytes longer = good;
    set_le(longer, a.eocd_offset + 12, a.cd_size + 5000, 4);
    m = fmt::parse_zip(longer);
    BOOST_TEST(m.entries.size() == n);
    BOOST_TEST(m.problems.size() == 1u);
    // Fewer declared than present.
    bytes fewer = good;
    set_le(fewer, a.eocd_offset + 10, n - 2, 2);
    m = fmt::parse_zip(fewer);
    BOOST_TEST(m.entries.size() == n); // all listed, the count reported
    BOOST_TEST_REQUIRE(m.problems.size() == 1u);
    BOOST_TEST(contains(m.problems[0].message, "declares " + std::to_string(n - 2)), m.problems[0].message);
    // A directory offset beyond the file is fatal: there is nothing to list.
    bytes far = good;
    set_le(far, a.eocd_offset + 16, 0x7FFFFFFF, 4);
    BOOST_TEST(format_error_offset([&] { fmt::parse_zip(far); }) == a.eocd_offset + 16);
    // A multi-disk archive.
    bytes disk = good;
    set_le(disk, a.eocd_offset + 4, 1, 2);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { fmt::parse_zip(disk); }), "multi-disk"));
    // Bytes appended after the end record (the comment no longer reaches the end) still parse.
    bytes appended = good;
    appended.resize(appended.size() + 100, 'z');
    BOOST_TEST(fmt::parse_zip(appended).entries.size() == n);
    // Bytes prepended (a self-extractor's stub) shift every offset: found and allowed for.
    bytes stub = random_bytes(3000, 9);
    stub.insert(stub.end(), good.begin(), good.end());
    m = fmt::parse_zip(stub);
    BOOST_TEST(m.prefix_size == 3000u);
    BOOST_TEST(m.problems.empty());
    BOOST_TEST_REQUIRE(m.entries.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
        BOOST_TEST((m.entries[i].status == fmt::zip_entry_status::ok), m.entries[i].problem);
        BOOST_TEST(same(vyre::engine::zip_extract(stub, m.entries[i]), vyre::engine::zip_extract(good, a.entries[i])));
    }
    // An empty archive is its end record alone.
    const hand_zip empty = build_zip({});
    BOOST_TEST((fmt::detect(empty.data) == fmt::content_kind::zip));
    BOOST_TEST(fmt::parse_zip(empty.data).entries.empty());
}

BOOST_AUTO_TEST_CASE(zip_hostile_entries_are_reported_one_by_one) {
    const bytes text = as_bytes(std::string(20000, 't') + "the end\n");
    const bytes noise = random_bytes(4000, 11);
    const std::vector<hand_entry> entries = {
        {"a.txt", text, fmt::zip_method_stored},
        {"b.txt", text, fmt::zip_method_deflate},
        {"c.txt", text, fmt::zip_method_zstd},
        {"d.bin", noise, fmt::zip_method_deflate},
        {"e.bin", noise, fmt::zip_method_stored},
    };
    const hand_zip z = build_zip(entries);
    const auto all_ok_but = [&](const bytes& data, std::size_t bad) {
        const fmt::zip_archive a = fmt::parse_zip(data);
        BOOST_TEST_REQUIRE(a.entries.size() == entries.size());
        for (std::size_t i = 0; i < entries.size(); ++i) {
            if (i == bad) continue;
            BOOST_TEST((a.entries[i].status == fmt::zip_entry_status::ok), a.entries[i].name << ": " << a.entries[i].problem);
            if (a.entries[i].status == fmt::zip_entry_status::ok)
                BOOST_TEST(same(vyre::engine::zip_extract(data, a.entries[i]), entries[i].content));
        }
        return a;
    };
    all_ok_but(z.data, entries.size());
    // Both headers of an entry patched alike, so only the lie itself is left to find.
    const auto patch = [&](std::size_t i, std::size_t local_field, std::size_t central_field, std::uint64_t v) {
        bytes d = z.data;
        set_le(d, z.local[i] + local_field, v, 4);
        set_le(d, z.central[i] + central_field, v, 4);
        return d;
    };

    // A compressed size running beyond the archive.
    fmt::zip_archive a = all_ok_but(patch(1, 18, 20, 0x7FFFFFF0), 1);
    BOOST_TEST((a.entries[1].status == fmt::zip_entry_status::corrupt));
    BOOST_TEST(contains(a.entries[1].problem, "runs past"), a.entries[1].problem);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { vyre::engine::zip_extract(z.data, a.entries[1]); }), "'b.txt'"));
    // An uncompressed size smaller or larger than what decompression makes (deflate, zstd).
    for (const std::size_t i : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
        for (const std::int64_t delta : {-1, 100}) {
            BOOST_TEST_CONTEXT("entry " << i << ", size off by " << delta) {
                const bytes d = patch(i, 22, 24, entries[i].content.size() + delta);
                a = all_ok_but(d, i);
                BOOST_TEST((a.entries[i].status == fmt::zip_entry_status::ok));
                const std::string msg = error_of<vyre::format_error>([&] { vyre::engine::zip_extract(d, a.entries[i]); });
                BOOST_TEST(contains(msg, entries[i].name), msg);
            }
        }
    }
    // Sizes no compressed data of this length could make are refused before allocating them.
    for (const std::size_t i : {std::size_t{1}, std::size_t{2}}) {
        const bytes d = patch(i, 22, 24, 0xF0000000);
        a = all_ok_but(d, i);
        const std::string msg = error_of<vyre::format_error>([&] { vyre::engine::zip_extract(d, a.entries[i]); });
        BOOST_TEST(contains(msg, "bytes declared"), msg);
    }
    // A stored entry whose sizes differ.
    a = all_ok_but(patch(4, 22, 24, noise.size() + 1), 4);
    BOOST_TEST((a.entries[4].status == fmt::zip_entry_status::corrupt));
    // A CRC mismatch (stored and deflate).
    for (const std::size_t i : {std::size_t{0}, std::size_t{3}}) {
        const bytes d = patch(i, 14, 16, 0x12345678);
        a = all_ok_but(d, i);
        const std::string msg = error_of<vyre::format_error>([&] { vyre::engine::zip_extract(d, a.entries[i]); });
        BOOST_TEST(contains(msg, "CRC-32 mismatch"), msg);
    }
    // Flipped data bytes: a CRC mismatch for stored data.
    bytes flipped = z.data;
    flipped[z.local[4] + 30 + 5 + 100] ^= 0x40;
    a = all_ok_but(flipped, 4);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { vyre::engine::zip_extract(flipped, a.entries[4]); }), "CRC-32"));
    // Local and central headers that disagree on the name, the method or the CRC.
    bytes renamed = z.data;
    renamed[z.local[2] + 30] = 'X';
    a = all_ok_but(renamed, 2);
    BOOST_TEST(contains(a.entries[2].problem, "names it"), a.entries[2].problem);
    bytes remethod = z.data;
    set_le(remethod, z.local[3] + 8, 0, 2);
    BOOST_TEST((all_ok_but(remethod, 3).entries[3].status == fmt::zip_entry_status::corrupt));
    bytes recrc = z.data;
    set_le(recrc, z.local[0] + 14, 1, 4);
    BOOST_TEST((all_ok_but(recrc, 0).entries[0].status == fmt::zip_entry_status::corrupt));
    // A local header offset pointing elsewhere.
    bytes moved = z.data;
    set_le(moved, z.central[3] + 42, z.local[3] + 7, 4);
    BOOST_TEST(contains(all_ok_but(moved, 3).entries[3].problem, "no local header signature"));
    set_le(moved, z.central[3] + 42, 0xFFFFFFF0, 4);
    BOOST_TEST((all_ok_but(moved, 3).entries[3].status == fmt::zip_entry_status::corrupt));
    // A declared size above the caller's limit: refused before decompressing.
    a = fmt::parse_zip(z.data);
    BOOST_CHECK_THROW(vyre::engine::zip_extract(z.data, a.entries[1], 1000), vyre::resource_error);

    // Two directory records for the same bytes (overlapping entries): the second is corrupt.
    const hand_zip dup = build_zip(entries, false, {}, {1});
    a = fmt::parse_zip(dup.data);
    BOOST_TEST_REQUIRE(a.entries.size() == entries.size() + 1);
    BOOST_TEST((a.entries[1].status == fmt::zip_entry_status::ok));
    BOOST_TEST((a.entries.back().status == fmt::zip_entry_status::corrupt));
    BOOST_TEST(contains(a.entries.back().problem, "overlap"), a.entries.back().problem);

    // Unsupported methods and encryption are per-entry statuses, not errors.
    std::vector<hand_entry> odd = entries;
    odd[1].method = 97; // WavPack: no decoder here
    odd[2].flags = fmt::zip_flag_encrypted;
    odd[3].method = fmt::zip_method_aes;
    const hand_zip o = build_zip(odd);
    a = fmt::parse_zip(o.data);
    BOOST_TEST((a.entries[0].status == fmt::zip_entry_status::ok));
    BOOST_TEST((a.entries[1].status == fmt::zip_entry_status::unsupported_method));
    BOOST_TEST(contains(a.entries[1].problem, "wavpack"));
    BOOST_TEST((a.entries[2].status == fmt::zip_entry_status::encrypted));
    BOOST_TEST((a.entries[3].status == fmt::zip_entry_status::encrypted));
    BOOST_TEST((a.entries[4].status == fmt::zip_entry_status::ok));
    BOOST_CHECK_THROW(vyre::engine::zip_extract(o.data, a.entries[1]), vyre::format_error);
    BOOST_TEST(same(vyre::engine::zip_extract(o.data, a.entries[4]), noise));

    // A data descriptor that does not match the central directory.
    std::vector<hand_entry> described = entries;
    for (auto& e : described) e.descriptor = true;
    const hand_zip dd = build_zip(described);
    all_ok_but(dd.data, entries.size());
    bytes bad_dd = dd.data;
    const fmt::zip_archive dda = fmt::parse_zip(dd.data);
    bad_dd[dda.entries[2].data_offset + dda.entries[2].compressed_size + 4] ^= 1; // its CRC
    BOOST_TEST(contains(all_ok_but(bad_dd, 2).entries[2].problem, "data descriptor"));

    // Unsafe names are listed as they are: refusing them is the caller's decision.
    const std::vector<std::string> names = {"../../evil", "/etc/passwd", "..\\..\\evil.txt", "C:\\windows\\x.txt",
                                            "a/../../b"};
    std::vector<hand_entry> slip;
    for (const auto& n : names) slip.push_back({n, text, fmt::zip_method_deflate});
    const hand_zip s = build_zip(slip);
    a = fmt::parse_zip(s.data);
    BOOST_TEST_REQUIRE(a.entries.size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        BOOST_TEST(a.entries[i].name == names[i]);
        BOOST_TEST((a.entries[i].status == fmt::zip_entry_status::ok));
        BOOST_TEST(same(vyre::engine::zip_extract(s.data, a.entries[i]), text));
    }
}

// A zstd entry that declares 2 GiB for about 70 KB of data (zstd's best ratio would allow it, so
// the size check lets it through) is found out having allocated about what its data decodes to,
// not the size it claims. Run in a child whose address space is capped 256 MiB above what this
// process holds: allocating the declared size there fails with bad_alloc instead of the
// format_error a careful reader gives.
BOOST_AUTO_TEST_CASE(zip_zstd_entry_declaring_2_gib_allocates_what_it_decodes) {
    const bytes noise = random_bytes(70000, 23);
    const hand_zip z = build_zip({{"big.bin", noise, fmt::zip_method_zstd}});
    bytes d = z.data;
    const std::uint64_t declared = std::uint64_t{1} << 31;
    set_le(d, z.local[0] + 22, declared, 4);
    set_le(d, z.central[0] + 24, declared, 4);
    const fmt::zip_archive a = fmt::parse_zip(d);
    BOOST_TEST_REQUIRE(a.entries.size() == 1u);
    BOOST_TEST_REQUIRE((a.entries[0].status == fmt::zip_entry_status::ok), a.entries[0].problem);
    BOOST_TEST_REQUIRE(a.entries[0].uncompressed_size == declared);
    const auto st = vyre::test::exit_status_with_address_space_headroom(std::uint64_t{256} << 20, [&] {
        try {
            (void)vyre::engine::zip_extract(d, a.entries[0]);
            return 4; // decoded 2 GiB from 70 KB: impossible
        } catch (const vyre::format_error& e) {
            return std::string(e.what()).find("decompresses to 70000 bytes") != std::string::npos ? 0 : 3;
        }
    });
    // 70: bad_alloc, the declared size was allocated; 3: another format_error; 4: no error at all.
    if (st) BOOST_TEST(*st == 0);
    else BOOST_TEST_MESSAGE("under AddressSanitizer: the address-space cap is not tested");

    // The buffer grows as the data proves itself: a 3 MiB run of one byte (a few hundred bytes of
    // zstd) doubles its way up from 64 KiB to exactly the declared size, and one byte less declared
    // is found out at the boundary.
    const bytes run(3u << 20, 'z');
    const hand_zip r = build_zip({{"run.bin", run, fmt::zip_method_zstd}});
    const fmt::zip_archive ra = fmt::parse_zip(r.data);
    BOOST_TEST_REQUIRE(ra.entries.size() == 1u);
    BOOST_TEST_REQUIRE(ra.entries[0].compressed_size * 4 < 64u * 1024);
    BOOST_TEST(same(vyre::engine::zip_extract(r.data, ra.entries[0]), run));
    bytes shorter = r.data;
    set_le(shorter, r.local[0] + 22, run.size() - 1, 4);
    set_le(shorter, r.central[0] + 24, run.size() - 1, 4);
    const fmt::zip_archive sa = fmt::parse_zip(shorter);
    BOOST_TEST(contains(error_of<vyre::format_error>([&] { vyre::engine::zip_extract(shorter, sa.entries[0]); }),
                        "decompresses to more than the 3145727 bytes declared"));
}

// ================================================================ detection

BOOST_AUTO_TEST_CASE(detect_by_magic_numbers) {
    const source_tree& t = tree();
    temp_dir out;
    const fs::path src = t.root / "random.bin";
    run("lz4 -q -f " + q(src) + " " + q(out.path / "f.lz4"));
    run("lz4 -q -f -l " + q(src) + " " + q(out.path / "l.lz4"));
    run("zstd -q -f " + q(src) + " -o " + q(out.path / "f.zst"));
    const bytes lz4 = read_file(out.path / "f.lz4"), legacy = read_file(out.path / "l.lz4"),
                zst = read_file(out.path / "f.zst");
    BOOST_TEST((fmt::detect(lz4) == fmt::content_kind::lz4_frame));
    BOOST_TEST((fmt::detect(legacy) == fmt::content_kind::lz4_legacy));
    BOOST_TEST((fmt::detect(zst) == fmt::content_kind::zstd));

    // Skippable frames: the codec of the first real frame after them decides.
    bytes skip;
    put_le(skip, 0x184D2A53, 4);
    put_le(skip, 5, 4);
    skip.insert(skip.end(), {1, 2, 3, 4, 5});
    BOOST_TEST((fmt::detect(skip) == fmt::content_kind::skippable));
    bytes skip2 = skip;
    skip2.insert(skip2.end(), skip.begin(), skip.end());
    for (const auto& [tail, kind] : {std::pair{&zst, fmt::content_kind::zstd}, std::pair{&lz4, fmt::content_kind::lz4_frame},
                                     std::pair{&legacy, fmt::content_kind::lz4_legacy}}) {
        bytes s = skip2;
        s.insert(s.end(), tail->begin(), tail->end());
        BOOST_TEST((fmt::detect(s) == kind));
    }
    bytes skip_then_gzip = skip;
    const bytes gz = gzip_member(as_bytes("hello"), 0);
    skip_then_gzip.insert(skip_then_gzip.end(), gz.begin(), gz.end());
    BOOST_TEST((fmt::detect(skip_then_gzip) == fmt::content_kind::unknown));
    bytes skip_truncated = skip;
    skip_truncated.pop_back();
    BOOST_TEST((fmt::detect(skip_truncated) == fmt::content_kind::unknown));
    bytes skip_huge = skip;
    set_le(skip_huge, 4, 0xFFFFFFFF, 4);
    BOOST_TEST((fmt::detect(skip_huge) == fmt::content_kind::unknown));

    BOOST_TEST((fmt::detect(gz) == fmt::content_kind::gzip));
    BOOST_TEST((fmt::detect(build_zip({{"x", as_bytes("x")}}).data) == fmt::content_kind::zip));
    BOOST_TEST((fmt::detect(read_file(src)) == fmt::content_kind::unknown));
    BOOST_TEST((fmt::detect(bytes{}) == fmt::content_kind::unknown));
    BOOST_TEST((fmt::detect(bytes(10240, 0)) == fmt::content_kind::unknown)); // zero blocks: no header
    BOOST_TEST((fmt::detect(as_bytes("#include <stdio.h>\n")) == fmt::content_kind::unknown));
    BOOST_TEST(std::string(fmt::content_kind_name(fmt::content_kind::unknown)) == "unknown/raw data");
}

// ================================================================ mutations

BOOST_AUTO_TEST_CASE(seeded_mutations_never_crash) {
    const std::uint64_t seed = vyre::test::test_seed();
    BOOST_TEST_CONTEXT("seed " << seed << " (VYRE_TEST_SEED replays it)") {
        temp_dir out;
        // Small valid inputs of each kind, with the features a mutation should reach.
        const fs::path small = out.path / "small";
        fs::create_directories(small / "d");
        write_text(small / "d" / "a.txt", "hello tar\n");
        write_file(small / (std::string(120, 'L') + ".bin"), random_bytes(700, 2));
        fs::create_symlink("d/a.txt", small / "link");
        run("tar --format=gnu -b 1 -cf " + q(out.path / "g.tar") + " -C " + q(small) + " .");
        run("tar --format=pax -b 1 -cf " + q(out.path / "p.tar") + " -C " + q(small) + " .");
        const bytes text = as_bytes("zip content, zip content, zip content\n");
        const std::vector<bytes> tars = {read_file(out.path / "g.tar"), read_file(out.path / "p.tar")};
        const std::vector<bytes> zips = {
            build_zip({{"s.txt", text, 0}, {"d.txt", text, 8, false, true}, {"z.txt", text, 93, true}}).data,
            build_zip({{"a", text, 8, true, true}, {"b/", {}, 0}}, true, "comment").data,
        };
        bytes gz = gzip_member(text, 0x1F, "n", "c", {'X', 'Y', 0, 0});
        const bytes gz2 = gzip_member(random_bytes(300, 4), 0);
        gz.insert(gz.end(), gz2.begin(), gz2.end());

        // The 512-byte blocks of each tar that are headers: mutated tars get their checksums fixed
        // half of the time, so that the mutation reaches the fields behind the checksum.
        std::vector<std::vector<std::size_t>> tar_headers;
        for (const bytes& t : tars) {
            std::vector<std::size_t> h;
            for (std::size_t at = 0; at + 512 <= t.size(); at += 512)
                if (fmt::tar_header_checksum_ok(std::span(t).subspan(at, 512))) h.push_back(at);
            tar_headers.push_back(h);
        }

        std::mt19937_64 rng(seed);
        const auto pick = [&](std::uint64_t n) { return n ? rng() % n : 0; };
        const auto mutate = [&](bytes d) {
            const unsigned count = 1 + static_cast<unsigned>(pick(4));
            for (unsigned i = 0; i < count && !d.empty(); ++i) {
                const std::size_t at = pick(d.size());
                switch (pick(6)) {
                case 0: d[at] ^= static_cast<std::uint8_t>(1u << pick(8)); break;
                case 1: d[at] = static_cast<std::uint8_t>(rng()); break;
                case 2: {
                    static constexpr std::uint32_t values[] = {0, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFF, 1};
                    const std::uint32_t v = pick(2) ? values[pick(6)] : static_cast<std::uint32_t>(rng());
                    for (unsigned k = 0; k < 4 && at + k < d.size(); ++k) d[at + k] = static_cast<std::uint8_t>(v >> (8 * k));
                    break;
                }
                case 3: d.resize(at); break;
                case 4: d.insert(d.begin() + static_cast<std::ptrdiff_t>(at), 1 + pick(16), static_cast<std::uint8_t>(rng())); break;
                case 5: d.erase(d.begin() + static_cast<std::ptrdiff_t>(at), d.begin() + static_cast<std::ptrdiff_t>(std::min(d.size(), at + 1 + pick(16)))); break;
                }
            }
            return d;
        };
        struct tally {
            int ok = 0, format = 0, resource = 0;
        };
        const auto attempt = [](tally& t, auto&& f) {
            try {
                f();
                ++t.ok;
            } catch (const vyre::format_error&) {
                ++t.format;
            } catch (const vyre::resource_error&) {
                ++t.resource;
            }
        };
        const std::uint64_t limit = 1u << 20;
        const int rounds = 3000;
        tally tar_t, zip_t, zip_entries, gz_t;
        for (int r = 0; r < rounds; ++r) {
            BOOST_TEST_CONTEXT("round " << r) {
                const std::size_t which = pick(tars.size());
                bytes t = mutate(tars[which]);
                if (pick(2))
                    for (const std::size_t at : tar_headers[which])
                        if (at + 512 <= t.size()) tar_set_checksum(t, at);
                (void)fmt::detect(t);
                attempt(tar_t, [&] {
                    const fmt::tar_archive a = fmt::parse_tar(t);
                    for (const auto& e : a.entries) {
                        const auto data = fmt::tar_entry_data(t, e);
                        BOOST_TEST_REQUIRE((data.data() >= t.data() && data.data() + data.size() <= t.data() + t.size()));
                    }
                });

                const bytes z = mutate(zips[pick(zips.size())]);
                (void)fmt::detect(z);
                attempt(zip_t, [&] {
                    const fmt::zip_archive a = fmt::parse_zip(z);
                    for (const auto& e : a.entries) attempt(zip_entries, [&] { vyre::engine::zip_extract(z, e, limit); });
                });

                const bytes g = mutate(gz);
                (void)fmt::detect(g);
                attempt(gz_t, [&] { fmt::gzip_decompress(g, limit); });
            }
        }
        BOOST_TEST_MESSAGE("tar: " << tar_t.ok << " parsed, " << tar_t.format << " format errors; zip: " << zip_t.ok
                                   << " parsed, " << zip_t.format << " format errors; zip entries: " << zip_entries.ok
                                   << " extracted, " << zip_entries.format << " format errors, " << zip_entries.resource
                                   << " over the limit; gzip: " << gz_t.ok << " decoded, " << gz_t.format
                                   << " format errors, " << gz_t.resource << " over the limit");
        // Both outcomes occur: the mutations neither all miss nor all break the structure.
        for (const tally* t : {&tar_t, &zip_t, &gz_t}) {
            BOOST_TEST(t->ok > 0);
            BOOST_TEST(t->format > 0);
        }
        BOOST_TEST(zip_entries.ok > 0);
        BOOST_TEST(zip_entries.format > 0);
    }
}

VYRE_TEST_MAIN
