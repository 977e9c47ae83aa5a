// engine::unpack (the `vyre unpack` pipeline) and util::sha256. Archives are made by the system's
// own tools (tar, gzip, zip, lz4, zstd, Python's zipfile and tarfile) from real files; the extracted
// trees must equal the originals byte for byte. Hostile archives (zip-slip, absolute paths, escaping
// links, bombs, deep nesting, truncation, lying sizes) must be refused or reported, with nothing
// written outside the output folder.
#include "harness.hpp"
#include "lz4_blocks.hpp"
#include "test_data.hpp"
#include "unpack_helpers.hpp"
#include "zstd_blocks.hpp"

#include <vyre/engine/unpack.hpp>
#include <vyre/engine/unpack_devices.hpp>
#include <vyre/util/sha256.hpp>

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
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <stdlib.h> // mkdtemp


// ---------------------------------------------------------------- SHA-256

BOOST_AUTO_TEST_CASE(sha256_fips_180_4_vectors) {
    namespace vu = vyre::util;
    BOOST_CHECK_EQUAL(vu::to_hex(vu::sha256_of("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    BOOST_CHECK_EQUAL(vu::to_hex(vu::sha256_of("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    BOOST_CHECK_EQUAL(vu::to_hex(vu::sha256_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
                      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    BOOST_CHECK_EQUAL(vu::to_hex(vu::sha256_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")),
                      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    // One million 'a', fed in uneven pieces to exercise the incremental buffer.
    vu::sha256 h;
    const std::string piece(997, 'a');
    std::size_t left = 1000000;
    while (left) {
        const std::size_t n = std::min(left, piece.size());
        h.update(std::string_view(piece).substr(0, n));
        left -= n;
    }
    BOOST_CHECK_EQUAL(vu::to_hex(h.final()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

BOOST_AUTO_TEST_CASE(sha256_accelerated_equals_portable) {
    // Every length around the 55/56/64-byte padding edges, then larger random inputs.
    const bytes data = random_bytes(1 << 20, 11);
    for (std::size_t n = 0; n < 300; ++n) {
        const std::span<const std::uint8_t> s(data.data(), n);
        BOOST_REQUIRE_MESSAGE(vyre::util::sha256_of(s) == vyre::util::detail::sha256_portable_of(s), "length " << n);
    }
    for (std::size_t n : {4096u, 65535u, 65536u, 1u << 20}) {
        const std::span<const std::uint8_t> s(data.data(), n);
        BOOST_CHECK_MESSAGE(vyre::util::sha256_of(s) == vyre::util::detail::sha256_portable_of(s), "length " << n);
    }
}

// ---------------------------------------------------------------- names and links

BOOST_AUTO_TEST_CASE(entry_names_and_link_targets) {
    using vyre::engine::detail::check_entry_name;
    using vyre::engine::detail::check_link_target;
    BOOST_CHECK_EQUAL(check_entry_name("./a//b/./c").path, "a/b/c");
    BOOST_CHECK(check_entry_name("./").path.empty() && check_entry_name("./").refusal.empty());
    BOOST_CHECK_EQUAL(check_entry_name("/etc/passwd").refusal, "absolute path");
    BOOST_CHECK_EQUAL(check_entry_name("a/../../b").refusal, "'..' component");
    BOOST_CHECK_EQUAL(check_entry_name("..").refusal, "'..' component");
    BOOST_CHECK_EQUAL(check_entry_name("C:/x").refusal, "absolute path (drive letter)");
    BOOST_CHECK_EQUAL(check_entry_name(std::string("a\0b", 3)).refusal, "name holds a NUL byte");
    BOOST_CHECK_EQUAL(check_entry_name("a..b/..c").path, "a..b/..c"); // dots inside names are fine
    BOOST_CHECK(check_link_target("a/b/link", "../c").empty());
    BOOST_CHECK(check_link_target("a/b/link", "../../c").empty());
    BOOST_CHECK_EQUAL(check_link_target("a/b/link", "../../../c"), "link target climbs out of the output folder");
    BOOST_CHECK_EQUAL(check_link_target("link", "/etc/passwd"), "link target is absolute");
    BOOST_CHECK_EQUAL(check_link_target("a/link", "x/../../.."), "link target has '..' after a named component");
    BOOST_CHECK(check_link_target("link", ".").empty());
}

// The output tree's walk starts at the deepest folder the path shares with the one its thread
// opened last (held open, at most dir_cache_depth() deep): paths that jump between folders, near
// and far, above and below that depth, land where they should; a symlink or a file in the way is
// never followed, even where the folder before it is held; and nothing stays open after.
BOOST_AUTO_TEST_CASE(output_tree_walks_from_the_folders_it_holds) {
    using vyre::engine::detail::output_tree;
    namespace fs = std::filesystem;
    const auto open_fds = [] { return std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator{}); };
    temp_dir work;
    const fs::path root = work.path / "out";
    const auto before = open_fds();
    {
        const output_tree tree(root);
        output_tree::dir_cache cache;
        std::string deep;
        for (int i = 0; i < 20; ++i) deep += (i ? "/d" : "d") + std::to_string(i);
        const std::string deep_sibling = deep.substr(0, deep.rfind('/')) + "/other";
        const std::vector<std::string> dirs = {"a/b/c", "a/x", "a/b/c", "", "a", "e/f/g/h", deep, deep_sibling, deep, "a/b",
                                               deep.substr(0, deep.find("/d17")), "a/b/c/d", "a/b/cc", "a/bx"};
        int n = 0;
        for (const std::string& d : dirs) {
            BOOST_TEST_CONTEXT("folder '" << d << "'") {
                BOOST_TEST(tree.make_dir(d, cache) == "");
                const std::string file = (d.empty() ? "" : d + "/") + "f" + std::to_string(n);
                BOOST_TEST(tree.write_file(file, text("file " + std::to_string(n)), 0644, std::nullopt, cache) == "");
                BOOST_TEST((read_file(root / file) == text("file " + std::to_string(n))));
                BOOST_TEST(open_fds() <= before + 1 + static_cast<long>(output_tree::dir_cache_depth()) + 1);
                ++n;
            }
        }
        // ("a/b/cc" and "a/bx" start with the held "a/b/c" and "a/b" as strings, not as folders.)
        BOOST_TEST((!fs::exists(root / "a/b/c/c") && !fs::exists(root / "a/b/x")));
        // A symlink planted below a held folder, pointing out of the tree, and a file in a
        // folder's place: neither is followed.
        fs::create_directories(work.path / "elsewhere");
        fs::create_symlink(work.path / "elsewhere", root / "a" / "b" / "c" / "lnk");
        BOOST_TEST(tree.write_file("a/b/c/lnk/evil", text("x"), 0644, std::nullopt, cache).find("not followed") != std::string::npos);
        fs::create_symlink(work.path / "elsewhere", root / deep / "lnk");
        BOOST_TEST(tree.write_file(deep + "/lnk/evil", text("x"), 0644, std::nullopt, cache).find("not followed") != std::string::npos);
        BOOST_TEST(tree.write_file("a/f4/evil", text("x"), 0644, std::nullopt, cache).find("not followed") != std::string::npos);
        BOOST_TEST(fs::is_empty(work.path / "elsewhere"));
        // After a refusal the walk starts afresh and still lands right.
        BOOST_TEST(tree.write_file("a/b/c/d/again", text("again"), 0644, std::nullopt, cache) == "");
        BOOST_TEST((read_file(root / "a/b/c/d/again") == text("again")));
    }
    BOOST_TEST(open_fds() == before);
}

// ---------------------------------------------------------------- archives made by the system's tools

VYRE_DEVICE_TEST(tar_family_round_trips_byte_for_byte) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    const std::string src = q(t.root);
    // Plain tar (GNU format with long names), pax, and the compressed forms the issue names.
    run("tar -cf " + q(a / "gnu.tar") + " -C " + src + " .");
    run("tar --format=pax -cf " + q(a / "pax.tar") + " -C " + src + " .");
    run("tar -czf " + q(a / "x.tar.gz") + " -C " + src + " .");
    run("tar -cf - -C " + src + " . | lz4 -q > " + q(a / "x.tar.lz4"));
    run("tar -cf - -C " + src + " . | lz4 -q -BD -B4 > " + q(a / "linked.tar.lz4")); // linked 64 KiB blocks
    run("tar -cf - -C " + src + " . | lz4 -q -B4 --content-size > " + q(a / "small_blocks.tar.lz4"));
    run("tar -cf - -C " + src + " . | zstd -q -T0 > " + q(a / "x.tar.zst"));
    run("tar -cf - -C " + src + " . | zstd -q --ultra -22 > " + q(a / "ultra.tar.zst"));
    const std::string py = "import sys, tarfile\n"
                           "fmt = {'gnu': tarfile.GNU_FORMAT, 'pax': tarfile.PAX_FORMAT}[sys.argv[3]]\n"
                           "with tarfile.open(sys.argv[1], 'w:gz' if sys.argv[1].endswith('.gz') else 'w', format=fmt) as t:\n"
                           "    t.add(sys.argv[2], arcname='.')\n";
    write_text(a / "mktar.py", py);
    run("python3 " + q(a / "mktar.py") + " " + q(a / "py_gnu.tar") + " " + src + " gnu");
    run("python3 " + q(a / "mktar.py") + " " + q(a / "py_pax.tar.gz") + " " + src + " pax");
    for (const char* name : {"gnu.tar", "pax.tar", "x.tar.gz", "x.tar.lz4", "linked.tar.lz4", "small_blocks.tar.lz4", "x.tar.zst",
                             "ultra.tar.zst", "py_gnu.tar", "py_pax.tar.gz"}) {
        BOOST_TEST_CONTEXT(name) {
            const fs::path out = a / (std::string("out_") + name);
            const auto r = unpack_files(dev.ctx(), {a / name}, out);
            BOOST_CHECK_MESSAGE(r.problems.empty(), problems_of(r));
            check_same_tree(t.root, out);
            // The listing's hashes are those of the original files.
            std::size_t hashed = 0;
            for (const auto& e : r.entries) {
                if (e.type != ve::unpack_entry_type::file) continue;
                BOOST_REQUIRE(e.sha256);
                BOOST_CHECK_MESSAGE(*e.sha256 == vyre::util::sha256_of(read_file(t.root / e.output_path)), e.path);
                BOOST_CHECK_EQUAL(e.path, std::string(name) + "!/" + e.output_path);
                ++hashed;
            }
            BOOST_CHECK_GT(hashed, 100u);
            // The recorded permission bits, as tar keeps them (the source's run.sh is 0744).
            BOOST_CHECK(fs::status(out / "run.sh").permissions() == fs::status(t.root / "run.sh").permissions());
            BOOST_CHECK((fs::status(out / "run.sh").permissions() & fs::perms::owner_exec) == fs::perms::owner_exec);
        }
    }
    // One dispatch per codec per layer: two LZ4 inputs together still make one batch.
    ve::unpack_options on_device;
    on_device.lz4 = vyre::engine::lz4_route::device; // automatic: the host for x.tar.lz4's 4 MiB blocks
    const auto both = unpack_files(dev.ctx(), {a / "x.tar.lz4", a / "small_blocks.tar.lz4"}, a / "both", on_device);
    BOOST_CHECK(both.problems.empty());
    BOOST_CHECK_EQUAL(both.lz4_dispatches, 1u);
    BOOST_CHECK_GT(both.lz4_device_blocks, 2u);
    // sha256sum agrees on one file, so the listing is not only self-consistent.
    run("sha256sum " + q(t.root / "random.bin") + " > " + q(a / "sum.txt"));
    const bytes sum = read_file(a / "sum.txt");
    const auto listed = std::find_if(both.entries.begin(), both.entries.end(), [](const auto& e) { return e.output_path == "random.bin"; });
    BOOST_REQUIRE(listed != both.entries.end());
    BOOST_CHECK_EQUAL(std::string(sum.begin(), sum.begin() + 64), vyre::util::to_hex(*listed->sha256));
}

VYRE_DEVICE_TEST(zip_family_round_trips_byte_for_byte) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    const std::string src = q(t.root);
    run("cd " + src + " && zip -q -r -y " + q(a / "deflate.zip") + " .");
    run("cd " + src + " && zip -q -r -y -0 " + q(a / "stored.zip") + " .");
    // Written to a pipe, zip cannot seek back: data descriptors after every entry.
    run("cd " + src + " && zip -q -r -y - . > " + q(a / "descriptors.zip"));
    // Python: deflate, and ZIP64 extra fields forced on every entry (links followed, as zipfile does).
    const std::string py = "import os, sys, zipfile\n"
                           "z64 = sys.argv[3] == 'zip64'\n"
                           "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
                           "    for d, dirs, files in os.walk(sys.argv[2]):\n"
                           "        for f in sorted(files):\n"
                           "            p = os.path.join(d, f)\n"
                           "            n = os.path.relpath(p, sys.argv[2])\n"
                           "            with open(p, 'rb') as i, z.open(n, 'w', force_zip64=z64) as o: o.write(i.read())\n";
    write_text(a / "mkzip.py", py);
    run("python3 " + q(a / "mkzip.py") + " " + q(a / "py.zip") + " " + src + " plain");
    run("python3 " + q(a / "mkzip.py") + " " + q(a / "py64.zip") + " " + src + " zip64");
    for (const char* name : {"deflate.zip", "stored.zip", "descriptors.zip"}) {
        BOOST_TEST_CONTEXT(name) {
            const auto r = unpack_files(dev.ctx(), {a / name}, a / (std::string("out_") + name));
            BOOST_CHECK_MESSAGE(r.problems.empty(), problems_of(r));
            check_same_tree(t.root, a / (std::string("out_") + name));
        }
    }
    for (const char* name : {"py.zip", "py64.zip"}) {
        BOOST_TEST_CONTEXT(name) {
            const auto r = unpack_files(dev.ctx(), {a / name}, a / (std::string("out_") + name));
            BOOST_CHECK_MESSAGE(r.problems.empty(), problems_of(r));
            check_same_tree(t.root, a / (std::string("out_") + name), true, false);
        }
    }
    // ZIP method 93 (zstd): Debian's Python cannot write it, so the test does, with libzstd.
    std::vector<zip_item> items;
    for (auto it = fs::recursive_directory_iterator(t.root); it != fs::recursive_directory_iterator(); ++it) {
        if (it->is_directory()) continue; // links are stored as what they point to
        zip_item z;
        z.name = it->path().lexically_relative(t.root).generic_string();
        z.data = read_file(it->path());
        z.method = items.size() % 3 == 2 ? 8 : 93;
        items.push_back(std::move(z));
    }
    write_file(a / "zstd.zip", make_zip(items));
    const auto r = unpack_files(dev.ctx(), {a / "zstd.zip"}, a / "out_zstd");
    BOOST_CHECK_MESSAGE(r.problems.empty(), problems_of(r));
    BOOST_CHECK_GT(r.zstd_blocks, items.size() / 2);
    // Every zstd entry of the layer in one engine call: at most one dispatch (frames with
    // compressed blocks are decoded on the host).
    BOOST_CHECK_LE(r.zstd_dispatches, 1u);
    check_same_tree(t.root, a / "out_zstd", true, false);
    const auto zstd_entry = std::find_if(r.entries.begin(), r.entries.end(), [](const auto& e) { return e.method == "zstd"; });
    BOOST_CHECK(zstd_entry != r.entries.end());
}

// ---------------------------------------------------------------- nesting

VYRE_DEVICE_TEST(nested_archives_open_layer_by_layer) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    const std::string src = q(t.root);
    fs::create_directories(a / "stage");
    // zip in zip (Python), tar.zst in zip, tar.gz in tar.lz4.
    run("cd " + src + " && zip -q -r -y " + q(a / "stage" / "inner.zip") + " linux");
    run("tar -cf - -C " + src + " deep random.bin | zstd -q > " + q(a / "stage" / "data.tar.zst"));
    const std::string py = "import sys, zipfile\n"
                           "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
                           "    z.write(sys.argv[2], 'lib/inner.zip')\n"
                           "    z.write(sys.argv[3], 'lib/data.tar.zst')\n";
    write_text(a / "mk.py", py);
    run("python3 " + q(a / "mk.py") + " " + q(a / "outer.zip") + " " + q(a / "stage" / "inner.zip") + " " +
        q(a / "stage" / "data.tar.zst"));
    run("tar -czf " + q(a / "stage" / "docs.tar.gz") + " -C " + src + " linux sub empty.txt");
    run("tar -cf - -C " + q(a / "stage") + " docs.tar.gz | lz4 -q > " + q(a / "outer.tar.lz4"));

    const auto r = unpack_files(dev.ctx(), {a / "outer.zip", a / "outer.tar.lz4"}, a / "out");
    BOOST_CHECK_MESSAGE(r.problems.empty(), problems_of(r));
    const fs::path out = a / "out";
    // The nested archives themselves are written as they were, their contents beside them.
    BOOST_CHECK(read_file(out / "lib" / "inner.zip") == read_file(a / "stage" / "inner.zip"));
    BOOST_CHECK(read_file(out / "docs.tar.gz") == read_file(a / "stage" / "docs.tar.gz"));
    for (auto it = fs::recursive_directory_iterator(t.root / "linux"); it != fs::recursive_directory_iterator(); ++it) {
        if (!it->is_regular_file()) continue;
        const std::string rel = it->path().lexically_relative(t.root).generic_string();
        BOOST_CHECK_MESSAGE(read_file(out / "lib/inner.zip!" / rel) == read_file(it->path()), rel);
        BOOST_CHECK_MESSAGE(read_file(out / "docs.tar.gz!" / rel) == read_file(it->path()), rel);
    }
    BOOST_CHECK(read_file(out / "lib/data.tar.zst!/random.bin") == read_file(t.root / "random.bin"));
    BOOST_CHECK_EQUAL(fs::read_symlink(out / "docs.tar.gz!/sub/up_link"), "../empty.txt");
    BOOST_CHECK(r.layers >= 4); // outer.tar.lz4: lz4, tar, gzip, tar
    // Listing paths name the whole nesting.
    std::set<std::string> paths;
    for (const auto& e : r.entries) paths.insert(e.path);
    std::string first_header;
    for (const auto& d : fs::directory_iterator(t.root / "linux"))
        if (d.is_regular_file() && (first_header.empty() || d.path().filename().string() < first_header)) first_header = d.path().filename().string();
    BOOST_CHECK(paths.count("outer.zip!/lib/inner.zip!/linux/" + first_header));
    BOOST_CHECK(paths.count("outer.zip!/lib/data.tar.zst!/random.bin"));
    BOOST_CHECK(paths.count("outer.tar.lz4!/docs.tar.gz!/empty.txt"));
    // Listing order: a container's entries follow it.
    const auto pos = [&](const std::string& p) {
        return std::find_if(r.entries.begin(), r.entries.end(), [&](const auto& e) { return e.path == p; }) - r.entries.begin();
    };
    BOOST_CHECK_LT(pos("outer.zip!/lib/data.tar.zst"), pos("outer.zip!/lib/data.tar.zst!/random.bin"));

    // --no-recurse: the inputs' own layers only.
    ve::unpack_options o;
    o.recurse = false;
    const auto shallow = unpack_files(dev.ctx(), {a / "outer.tar.lz4"}, a / "shallow", o);
    BOOST_CHECK(shallow.problems.empty());
    BOOST_CHECK(fs::exists(a / "shallow" / "docs.tar.gz"));
    BOOST_CHECK(!fs::exists(a / "shallow" / "docs.tar.gz!"));
}

// ---------------------------------------------------------------- hostile archives

VYRE_DEVICE_TEST(hostile_names_and_links_are_refused) {
    temp_dir work;
    const fs::path a = work.path;
    fs::create_directories(a / "box");
    // A tar of traversal names and escaping links, written by Python's tarfile as given.
    const std::string py =
        "import io, sys, tarfile\n"
        "def f(t, name, data=b'x'):\n"
        "    i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))\n"
        "def l(t, name, target, kind=tarfile.SYMTYPE):\n"
        "    i = tarfile.TarInfo(name); i.type = kind; i.linkname = target; t.addfile(i)\n"
        "with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as t:\n"
        "    f(t, 'good.txt', b'good')\n"
        "    f(t, '../evil1.txt')\n"
        "    f(t, '/tmp/vyre_evil_abs.txt')\n"
        "    f(t, 'a/../../evil2.txt')\n"
        "    l(t, 'up', '../..')\n"
        "    l(t, 'abs', '/etc')\n"
        "    l(t, 'tricky', 'sub/../../x')\n"
        "    f(t, 'up/evil3.txt')\n"
        "    f(t, 'abs/evil4.txt')\n"
        "    l(t, 'hard', '../../etc/passwd', tarfile.LNKTYPE)\n"
        "    l(t, 'inside', 'good.txt')\n"
        "    f(t, 'z/after.txt', b'after')\n";
    write_text(a / "mk.py", py);
    run("python3 " + q(a / "mk.py") + " " + q(a / "box" / "evil.tar"));
    // The same traversal names in a ZIP (zip-slip), with an escaping symlink entry.
    std::vector<zip_item> zi = {entry("../zip_evil.txt", text("x")), entry("ok/fine.txt", text("fine"), 8),
                                entry("/zip_abs.txt", text("x")), entry("link", text("../../outside"), 0, 0120777)};
    write_file(a / "box" / "slip.zip", make_zip(zi));
    const auto before = listing(a);
    const auto r = unpack_files(dev.ctx(), {a / "box" / "evil.tar", a / "box" / "slip.zip"}, a / "box" / "out");
    BOOST_TEST_MESSAGE(problems_of(r));
    for (const char* bad : {"../evil1.txt", "/tmp/vyre_evil_abs.txt", "a/../../evil2.txt", "!/up", "!/abs", "!/tricky", "!/hard",
                            "../zip_evil.txt", "/zip_abs.txt", "slip.zip!/link"})
        BOOST_CHECK_MESSAGE(find_problem(r, bad, ""), "no problem reported for " << bad << problems_of(r));
    BOOST_CHECK_EQUAL(r.refused(), 10u);
    BOOST_CHECK_EQUAL(r.corrupt(), 0u);
    // Everything else was extracted, and nothing outside the output folder changed.
    const fs::path out = a / "box" / "out";
    BOOST_CHECK(read_file(out / "good.txt") == text("good"));
    BOOST_CHECK(read_file(out / "z" / "after.txt") == text("after"));
    BOOST_CHECK(read_file(out / "ok" / "fine.txt") == text("fine"));
    BOOST_CHECK_EQUAL(fs::read_symlink(out / "inside"), "good.txt");
    BOOST_CHECK(!fs::exists("/tmp/vyre_evil_abs.txt"));
    auto after = listing(a);
    for (auto it = after.begin(); it != after.end();) it = it->rfind("box/out", 0) == 0 ? after.erase(it) : std::next(it);
    BOOST_CHECK(after == before);
    check_links_inside(out);
    // "up/evil3.txt": the link "up" was refused, so "up" is a plain folder inside the output.
    BOOST_CHECK(fs::is_directory(fs::symlink_status(out / "up")));
}

VYRE_DEVICE_TEST(links_written_earlier_are_never_followed) {
    temp_dir work;
    const fs::path a = work.path;
    // An allowed link "inner.zip!" -> "sub" written by the outer tar, then the nested ZIP's entries
    // (which go below "inner.zip!/") must not land in "sub" through it.
    std::vector<zip_item> zi = {entry("payload.txt", text("payload"))};
    fs::create_directories(a / "stage" / "sub");
    write_file(a / "stage" / "inner.zip", make_zip(zi));
    fs::create_symlink("sub", a / "stage" / "inner.zip!");
    run("tar -cf " + q(a / "outer.tar") + " -C " + q(a / "stage") + " sub inner.zip! inner.zip");
    const auto r = unpack_files(dev.ctx(), {a / "outer.tar"}, a / "out");
    BOOST_CHECK(fs::is_symlink(a / "out" / "inner.zip!"));
    BOOST_CHECK(!fs::exists(a / "out" / "sub" / "payload.txt"));
    BOOST_CHECK_MESSAGE(find_problem(r, "inner.zip!/payload.txt", "not followed"), problems_of(r));
    BOOST_CHECK_EQUAL(r.refused(), 1u);
}

VYRE_DEVICE_TEST(bombs_and_depth_are_limited) {
    temp_dir work;
    const fs::path a = work.path;
    write_file(a / "zeros", bytes(24u << 20, 0));
    run("gzip -c < " + q(a / "zeros") + " > " + q(a / "zeros.gz"));
    run("zstd -q -c < " + q(a / "zeros") + " > " + q(a / "zeros.zst"));
    run("lz4 -q -c < " + q(a / "zeros") + " > " + q(a / "zeros.lz4"));
    fs::remove(a / "zeros");
    // A ratio bomb in each codec (zeros compress beyond 1000:1 except in LZ4, about 250:1).
    ve::unpack_options o;
    o.limits.max_ratio = 200;
    const auto r = unpack_files(dev.ctx(), {a / "zeros.gz", a / "zeros.zst", a / "zeros.lz4"}, a / "out", o);
    BOOST_CHECK_EQUAL(r.refused(), 3u);
    for (const char* n : {"zeros.gz", "zeros.zst", "zeros.lz4"})
        BOOST_CHECK_MESSAGE(find_problem(r, n, "ratio above the limit"), n << problems_of(r));
    BOOST_CHECK(!fs::exists(a / "out" / "zeros"));
    // The same with the default ratio but a total output limit of 8 MiB.
    ve::unpack_options small;
    small.limits.max_total_bytes = 8u << 20;
    const auto t = unpack_files(dev.ctx(), {a / "zeros.lz4"}, a / "out2", small);
    BOOST_CHECK_MESSAGE(find_problem(t, "zeros.lz4", "total output limit"), problems_of(t));
    // Deep nesting: gzip inside gzip, 10 deep; the default depth limit of 8 stops it.
    write_text(a / "g0", "the bottom\n");
    for (int i = 1; i <= 10; ++i) run("gzip -c < " + q(a / ("g" + std::to_string(i - 1))) + " > " + q(a / ("g" + std::to_string(i))));
    const auto d = unpack_files(dev.ctx(), {a / "g10"}, a / "out3");
    BOOST_CHECK_MESSAGE(find_problem(d, "g10", "nesting deeper than 8"), problems_of(d));
    BOOST_CHECK_EQUAL(d.problems.size(), 1u);
    BOOST_CHECK_EQUAL(d.layers, 8u);
    ve::unpack_options deep;
    deep.limits.max_depth = 11;
    const auto ok = unpack_files(dev.ctx(), {a / "g10"}, a / "out4", deep);
    BOOST_CHECK_MESSAGE(ok.problems.empty(), problems_of(ok));
    const auto bottom = std::find_if(ok.entries.begin(), ok.entries.end(), [](const auto& e) { return e.size == 11; });
    BOOST_REQUIRE(bottom != ok.entries.end());
    BOOST_CHECK_EQUAL(bottom->path, "g10!/g10!/g10!/g10!/g10!/g10!/g10!/g10!/g10!/g10!/g10");
    BOOST_CHECK(read_file(a / "out4" / "g10!/g10!/g10!/g10!/g10!/g10!/g10!/g10!/g10!/g10") == text("the bottom\n"));
}

VYRE_DEVICE_TEST(corrupt_entries_are_reported_and_the_rest_extracted) {
    temp_dir work;
    const fs::path a = work.path;
    const bytes big = random_bytes(100000, 3);
    bytes compressible;
    for (int i = 0; i < 5000; ++i) {
        const std::string line = "line " + std::to_string(i) + " of a compressible file\n";
        compressible.insert(compressible.end(), line.begin(), line.end());
    }
    // Entry 1's deflate data damaged; entries 0 and 2 intact.
    std::vector<zip_item> zi = {entry("a.txt", compressible, 8), entry("b.txt", compressible, 8), entry("c.bin", big, 93)};
    bytes zip = make_zip(zi);
    const auto local_b = std::search(zip.begin() + 4, zip.end(), std::begin("PK\3\4") , std::begin("PK\3\4") + 4);
    BOOST_REQUIRE(local_b != zip.end());
    const std::size_t data_b = static_cast<std::size_t>(local_b - zip.begin()) + 30 + 5;
    for (std::size_t i = 20; i < 60; ++i) zip[data_b + i] ^= 0x5A;
    write_file(a / "damaged.zip", zip);
    // Lying sizes: the declared size (local and central) says 10 bytes more than the content.
    std::vector<zip_item> lie = {entry("lie.txt", compressible, 8, 0100644, static_cast<std::uint32_t>(compressible.size() + 10)),
                                 entry("zlie.bin", big, 93, 0100644, static_cast<std::uint32_t>(big.size() - 1)),
                                 entry("honest.txt", text("honest"))};
    write_file(a / "lying.zip", make_zip(lie));
    // A ZIP whose central directory is cut short (read by its local headers, with a warning), a
    // truncated tar.gz, a tar header that lies.
    run("cd /usr/include/linux && zip -q " + q(a / "full.zip") + " ioctl.h errno.h posix_types.h");
    bytes full = read_file(a / "full.zip");
    const auto cd = std::search(full.begin(), full.end(), std::begin("PK\1\2"), std::begin("PK\1\2") + 4);
    BOOST_REQUIRE(cd != full.end());
    write_file(a / "cut_directory.zip", bytes(full.begin(), cd + 60));
    run("tar -czf " + q(a / "t.tar.gz") + " -C /usr/include/linux types.h stddef.h");
    bytes tgz = read_file(a / "t.tar.gz");
    tgz.resize(tgz.size() * 2 / 3);
    write_file(a / "truncated.tar.gz", tgz);
    run("tar -cf " + q(a / "t.tar") + " -C /usr/include/linux types.h stddef.h");
    bytes tar = read_file(a / "t.tar");
    // The second header's size lies: the first entry is still extracted.
    const std::size_t h = 512 + (std::strtoul(std::string(tar.begin() + 124, tar.begin() + 135).c_str(), nullptr, 8) + 511) / 512 * 512;
    BOOST_REQUIRE_LT(h + 512, tar.size());
    tar[h + 124] = '7'; // the size field's first digit: gigabytes, more than the archive holds
    unsigned sum = 0;   // a valid checksum, so that only the size lies
    for (std::size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : tar[h + i];
    std::snprintf(reinterpret_cast<char*>(tar.data()) + h + 148, 8, "%06o", sum);
    tar[h + 155] = ' ';
    write_file(a / "lying.tar", tar);

    const auto before = listing(a);
    const auto r = unpack_files(dev.ctx(),
                                {a / "damaged.zip", a / "lying.zip", a / "cut_directory.zip", a / "truncated.tar.gz", a / "lying.tar"},
                                a / "out");
    BOOST_TEST_MESSAGE(problems_of(r));
    BOOST_CHECK_MESSAGE(find_problem(r, "damaged.zip!/b.txt", ""), problems_of(r));
    BOOST_CHECK_MESSAGE(find_problem(r, "lying.zip!/lie.txt", ""), problems_of(r));
    BOOST_CHECK_MESSAGE(find_problem(r, "lying.zip!/zlie.bin", "declares"), problems_of(r));
    const auto* walked = find_problem(r, "cut_directory.zip", "no end of central directory record");
    BOOST_CHECK_MESSAGE(walked && walked->kind == ve::unpack_status::warning, problems_of(r));
    for (const char* h : {"ioctl.h", "errno.h", "posix_types.h"})
        BOOST_CHECK_MESSAGE(read_file(a / "out" / h) == read_file(fs::path("/usr/include/linux") / h), h);
    BOOST_CHECK_MESSAGE(find_problem(r, "truncated.tar.gz", "gzip"), problems_of(r) );
    BOOST_CHECK_MESSAGE(find_problem(r, "lying.tar", "declares"), problems_of(r));
    BOOST_CHECK_EQUAL(r.corrupt(), r.problems.size() - 1);
    BOOST_CHECK(read_file(a / "out" / "a.txt") == compressible);
    BOOST_CHECK(read_file(a / "out" / "c.bin") == big);
    BOOST_CHECK(read_file(a / "out" / "honest.txt") == text("honest"));
    BOOST_CHECK(read_file(a / "out" / "types.h") == read_file("/usr/include/linux/types.h")); // before the lying header
    BOOST_CHECK(!fs::exists(a / "out" / "stddef.h"));
    BOOST_CHECK(!fs::exists(a / "out" / "b.txt"));
    BOOST_CHECK(!fs::exists(a / "out" / "lie.txt"));
    auto after = listing(a);
    for (auto it = after.begin(); it != after.end();) it = it->rfind("out", 0) == 0 ? after.erase(it) : std::next(it);
    BOOST_CHECK(after == before);
    // Plain data is not an archive: reported, not guessed at.
    write_text(a / "plain.txt", "just text\n");
    const auto p = unpack_files(dev.ctx(), {a / "plain.txt"}, a / "out5");
    BOOST_CHECK_MESSAGE(find_problem(p, "plain.txt", "not an archive"), problems_of(p));
}

// ---------------------------------------------------------------- review fixes: amplification and limits

BOOST_AUTO_TEST_CASE(names_stems_and_messages) {
    using vyre::engine::detail::check_entry_name;
    using vyre::engine::detail::stream_stem;
    std::string deep;
    for (int i = 0; i < 40000; ++i) deep += "a/";
    BOOST_CHECK(contains_text(check_entry_name(deep + "f").refusal, "longer than 4096"));
    std::string many;
    for (int i = 0; i < 1100; ++i) many += "a/";
    BOOST_CHECK(contains_text(check_entry_name(many + "f").refusal, "more than 1024"));
    BOOST_CHECK(check_entry_name(std::string(4096, 'n')).refusal.empty());
    // The suffix comes off first, then '.' and '..' are refused.
    BOOST_CHECK_EQUAL(stream_stem("...gz"), "...gz.out");
    BOOST_CHECK_EQUAL(stream_stem("x.tar!/..zst"), "..zst.out");
    BOOST_CHECK_EQUAL(stream_stem("..tgz"), "..tar");
    BOOST_CHECK_EQUAL(stream_stem("a.txt.gz"), "a.txt");
    BOOST_CHECK_EQUAL(stream_stem(".."), "content");
    // Messages quote names already: printed as they are, control characters aside.
    const std::string quoted = vyre::format::archive_quote("a\nb\\c");
    BOOST_CHECK_EQUAL(ve::unpack_printable(quoted, false), quoted);
    BOOST_CHECK_EQUAL(ve::unpack_printable("x\ny", false), "x\\x0Ay");
    BOOST_CHECK_EQUAL(ve::unpack_printable("a\\b"), "a\\x5Cb");
    // The default total protects the machine: at most half of its memory, at most 64 GiB.
    const std::uint64_t physical = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE);
    BOOST_CHECK_LE(ve::unpack_limits{}.max_total_bytes, std::max<std::uint64_t>(physical / 2, 1u << 20));
    BOOST_CHECK_LE(ve::unpack_limits{}.max_total_bytes, std::uint64_t{64} << 30);
}

// VYRE_DEVICE set for a scope, and restored at its end however the scope ends.
struct device_filter_for_scope {
    explicit device_filter_for_scope(const char* value) : before(vyre::runtime::env_or_empty("VYRE_DEVICE")) {
        ::setenv("VYRE_DEVICE", value, 1);
    }
    ~device_filter_for_scope() {
        if (before.empty()) ::unsetenv("VYRE_DEVICE");
        else ::setenv("VYRE_DEVICE", before.c_str(), 1);
    }
    std::string before;
};

// Inputs under unpack_options::host_below_bytes, with a context that nothing has used yet: every
// codec decodes on the host cores and the device is never asked for (VYRE_DEVICE names nothing, so
// making it would throw), and the files are the source's. The LZ4 host route (liblz4, blocks in
// parallel) gives the same bytes as the lz4 tool made them from; a damaged file is reported.
BOOST_AUTO_TEST_CASE(small_runs_decode_on_the_host_without_a_device) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    const std::string src = q(t.root);
    run("tar -cf - -C " + src + " . | lz4 -q -B4 > " + q(a / "x.tar.lz4"));
    run("tar -cf - -C " + src + " . | zstd -q -T0 > " + q(a / "x.tar.zst"));
    run("tar -czf " + q(a / "x.tar.gz") + " -C " + src + " .");
    std::vector<zip_item> items;
    for (auto it = fs::recursive_directory_iterator(t.root); it != fs::recursive_directory_iterator(); ++it)
        if (it->is_regular_file() && !it->is_symlink())
            items.push_back(entry(it->path().lexically_relative(t.root).generic_string(), read_file(it->path()), 8));
    write_file(a / "x.zip", make_zip(items));
    const device_filter_for_scope no_device("no such device, surely");
    auto ctx = vyre::runtime::context::on_first_use();
    const std::uint64_t started = vyre::runtime::context::contexts_started();
    for (const char* name : {"x.tar.lz4", "x.tar.zst", "x.tar.gz", "x.zip"}) {
        BOOST_TEST_CONTEXT(name) {
            const fs::path out = a / (std::string("out_") + name);
            const auto r = unpack_files(ctx, {a / name}, out);
            BOOST_CHECK_MESSAGE(r.problems.empty(), problems_of(r));
            if (std::string(name) == "x.zip") {
                for (const auto& z : items) BOOST_CHECK_MESSAGE(read_file(out / z.name) == z.data, z.name);
            } else {
                check_same_tree(t.root, out);
            }
            BOOST_CHECK_EQUAL(r.lz4_device_blocks, 0u);
            BOOST_CHECK_EQUAL(r.lz4_dispatches, 0u);
            BOOST_CHECK_EQUAL(r.zstd_dispatches, 0u);
            BOOST_CHECK_EQUAL(r.deflate_device_streams, 0u);
        }
    }
    const auto lz4_run = unpack_files(ctx, {a / "x.tar.lz4"}, a / "again");
    BOOST_CHECK_GT(lz4_run.lz4_host_blocks, 1u);
    BOOST_CHECK(!ctx.used());
    // A damaged file is reported, and the run still never asks for the device.
    bytes broken = read_file(a / "x.tar.lz4");
    for (std::size_t k = broken.size() / 2; k < broken.size() / 2 + 64; ++k) broken[k] ^= 0x5A;
    write_file(a / "broken.tar.lz4", broken);
    const auto damaged = unpack_files(ctx, {a / "broken.tar.lz4"}, a / "out_broken");
    BOOST_CHECK(find_problem(damaged, "broken.tar.lz4", "LZ4") != nullptr);
    BOOST_CHECK(!ctx.used());
    BOOST_CHECK_EQUAL(vyre::runtime::context::contexts_started(), started); // no driver was even tried
}

// A context made in the background that fails (VYRE_DEVICE matching nothing), with the small-run
// rule off: a plain tar needs no device to decode, yet a run that may use the device (its routes
// automatic) stops with no_device before it writes anything, and listing
// without writing still works; a .tar.zst, which goes to the device, stops with no_device too
// rather than quietly decoding on the host.
VYRE_DEVICE_TEST(a_device_that_cannot_be_made_stops_before_writing) {
    temp_dir work;
    bytes tar;
    vyre::test::tar_append(tar, "a.txt", '0', text("hello"));
    vyre::test::tar_finish(tar);
    bytes zst(ZSTD_compressBound(tar.size()));
    zst.resize(ZSTD_compress(zst.data(), zst.size(), tar.data(), tar.size(), 3));
    const device_filter_for_scope no_device("no such device, surely");
    auto ctx = vyre::runtime::context::in_background();
    const ve::unpack_input tar_input{"a.tar", tar}, zst_input{"a.tar.zst", zst};
    ve::unpack_options o;
    o.host_below_bytes = 0; // small inputs would otherwise stay on the host and need no device
    o.output_dir = work.path / "out";
    BOOST_CHECK_THROW(ve::unpack(ctx, std::span(&tar_input, 1), o), vyre::no_device);
    BOOST_CHECK(!fs::exists(work.path / "out" / "a.txt"));
    o.output_dir.clear();
    o.hash = true;
    const auto listed = ve::unpack(ctx, std::span(&tar_input, 1), o);
    BOOST_CHECK_EQUAL(listed.entries.size(), 1u);
    BOOST_CHECK_THROW(ve::unpack(ctx, std::span(&zst_input, 1), o), vyre::no_device);
}

BOOST_AUTO_TEST_CASE(gzip_many_members_reuse_their_room) {
    // 3,000 empty members, then one of 4 MiB: the last ISIZE (4 MiB) used to size every member's
    // buffer, zero-filled again each time (quadratic); now the room is made once and reused.
    bytes file;
    libdeflate_compressor* c = libdeflate_alloc_compressor(6);
    bytes packed(libdeflate_gzip_compress_bound(c, 4u << 20));
    const std::size_t empty = libdeflate_gzip_compress(c, packed.data(), 0, packed.data() + 64, packed.size() - 64);
    BOOST_REQUIRE(empty > 0);
    for (int i = 0; i < 3000; ++i) file.insert(file.end(), packed.begin() + 64, packed.begin() + 64 + static_cast<std::ptrdiff_t>(empty));
    const bytes zeros(4u << 20, 0);
    const std::size_t n = libdeflate_gzip_compress(c, zeros.data(), zeros.size(), packed.data(), packed.size());
    libdeflate_free_compressor(c);
    BOOST_REQUIRE(n > 0);
    file.insert(file.end(), packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(n));
    vyre::format::detail::inflate_stats() = {};
    const auto g = vyre::format::gzip_decompress(file);
    BOOST_CHECK(g.data == zeros);
    BOOST_CHECK_EQUAL(g.members.size(), 3001u);
    BOOST_CHECK_EQUAL(g.members.back().output_offset, 0u);
    BOOST_CHECK_LE(vyre::format::detail::inflate_stats().zero_filled, std::uint64_t{8} << 20);
    BOOST_CHECK_LE(vyre::format::detail::inflate_stats().passes, 3001u + 8u);
}

VYRE_DEVICE_TEST(hard_links_count_and_are_not_opened_again) {
    temp_dir work;
    const fs::path a = work.path;
    // inner.tar: f (10,000 zeros) and 40 hard links to it; outer.tar: inner.tar and 40 hard links to it.
    const std::string py = "import io, sys, tarfile\n"
                           "def make(path, name, data):\n"
                           "    with tarfile.open(path, 'w', format=tarfile.GNU_FORMAT) as t:\n"
                           "        i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))\n"
                           "        for k in range(40):\n"
                           "            l = tarfile.TarInfo('link%d' % k); l.type = tarfile.LNKTYPE; l.linkname = name; t.addfile(l)\n"
                           "make(sys.argv[1] + '/inner.tar', 'f', bytes(10000))\n"
                           "make(sys.argv[1] + '/outer.tar', 'inner.tar', open(sys.argv[1] + '/inner.tar', 'rb').read())\n";
    write_text(a / "mk.py", py);
    run("python3 " + q(a / "mk.py") + " " + q(a));
    run("gzip -9 " + q(a / "outer.tar"));
    const std::uint64_t inner = fs::file_size(a / "inner.tar");
    // Unlimited: inner.tar opens once (its links are copies, never archives again).
    const auto r = unpack_files(dev.ctx(), {a / "outer.tar.gz"}, a / "out");
    BOOST_CHECK_MESSAGE(r.problems.empty(), problems_of(r));
    BOOST_CHECK_EQUAL(r.containers, 3u); // outer.tar.gz, outer.tar in place, inner.tar
    BOOST_CHECK(read_file(a / "out" / "link7") == read_file(a / "inner.tar"));
    BOOST_CHECK(read_file(a / "out" / "inner.tar!" / "link3") == bytes(10000, 0));
    BOOST_CHECK(!fs::exists(a / "out" / "link7!"));
    // The copies count against the total: 256 KiB lets a few through, then refuses.
    ve::unpack_options o;
    o.limits.max_total_bytes = 256u << 10;
    const auto t = unpack_files(dev.ctx(), {a / "outer.tar.gz"}, a / "out2", o);
    BOOST_CHECK_MESSAGE(find_problem(t, "outer.tar.gz!/link", "total output limit"), problems_of(t));
    BOOST_CHECK_LE(t.written_bytes, std::uint64_t{256} << 10);
    BOOST_CHECK_LE(t.decoded_bytes, std::uint64_t{256} << 10);
    BOOST_CHECK_GT(t.written_bytes, 2 * inner);
    // The entry count is capped: one clear refusal for the rest.
    ve::unpack_options few;
    few.limits.max_entries = 10;
    const auto e = unpack_files(dev.ctx(), {a / "outer.tar.gz"}, a / "out3", few);
    BOOST_CHECK_MESSAGE(find_problem(e, "outer.tar.gz!/link8", "entry limit reached"), problems_of(e));
    BOOST_CHECK_MESSAGE(find_problem(e, "inner.tar!/f", "entry limit reached"), problems_of(e));
    BOOST_CHECK_EQUAL(e.problems.size(), 2u);
    BOOST_CHECK_EQUAL(e.entries.size(), 9u); // the stream's content opens in place; 9 tar entries
    BOOST_CHECK(!fs::exists(a / "out3" / "link8"));
}

// A layer whose jobs could pass the total limit decodes one codec after the other (zstd first), so
// the entry the limit refuses is the same on every run; with room for everything the zstd pass
// runs beside the deflate pass and both decode.
VYRE_DEVICE_TEST(total_limit_refusals_do_not_depend_on_timing) {
    vyre::test::temp_dir t("vyre-unpack-budget-", true);
    const fs::path a = t.path;
    std::mt19937_64 rng(vyre::test::test_seed());
    write_file(a / "data", vyre::test::text_bytes(rng, 3u << 20));
    run("gzip -c < " + q(a / "data") + " > " + q(a / "data.gz"));
    run("zstd -q -c < " + q(a / "data") + " > " + q(a / "data.zst"));
    for (int round = 0; round < 5; ++round) {
        ve::unpack_options o;
        o.limits.max_total_bytes = 4u << 20;
        const auto r = unpack_files(dev.ctx(), {a / "data.gz", a / "data.zst"}, a / ("tight" + std::to_string(round)), o);
        BOOST_REQUIRE_EQUAL(r.problems.size(), 1u);
        BOOST_CHECK_MESSAGE(find_problem(r, "data.gz", "total output limit"), problems_of(r));
        BOOST_CHECK(fs::exists(a / ("tight" + std::to_string(round)) / "data"));
    }
    const auto both = unpack_files(dev.ctx(), {a / "data.gz", a / "data.zst"}, a / "roomy");
    BOOST_CHECK_MESSAGE(both.problems.empty(), problems_of(both));
    BOOST_CHECK_EQUAL(both.decoded_bytes, std::uint64_t{6} << 20);
}

VYRE_DEVICE_TEST(zstd_bombs_are_refused_before_decoding) {
    temp_dir work;
    const fs::path a = work.path;
    const bytes zeros(64u << 20, 0);
    bytes packed(ZSTD_compressBound(zeros.size()));
    const std::size_t n = ZSTD_compress(packed.data(), packed.size(), zeros.data(), zeros.size(), 3);
    BOOST_REQUIRE(!ZSTD_isError(n));
    packed.resize(n);
    write_file(a / "z.zst", packed);
    // A ZIP zstd entry whose declared size alone is above the ratio.
    std::vector<zip_item> zi = {entry("z.bin", bytes(8u << 20, 0), 93), entry("ok.txt", text("fine"))};
    write_file(a / "z.zip", make_zip(zi));
    const auto r = unpack_files(dev.ctx(), {a / "z.zst", a / "z.zip"}, a / "out");
    const auto* p = find_problem(r, "z.zst", "refused before decoding");
    BOOST_CHECK_MESSAGE(p, problems_of(r));
    if (p) BOOST_CHECK_MESSAGE(contains_text(p->message, std::to_string(n) + " compressed bytes"), p->message);
    BOOST_CHECK_MESSAGE(find_problem(r, "z.zip!/z.bin", "declares"), problems_of(r));
    BOOST_CHECK_EQUAL(r.refused(), 2u);
    BOOST_CHECK_EQUAL(r.decoded_bytes, 4u); // only ok.txt (a stored view) was counted
    BOOST_CHECK_EQUAL(r.zstd_blocks, 0u);
    BOOST_CHECK(read_file(a / "out" / "ok.txt") == text("fine"));
    // Under a tight total, the same refusal names the total.
    ve::unpack_options o;
    o.limits.max_ratio = 1u << 30;
    o.limits.max_total_bytes = 1u << 20;
    const auto t = unpack_files(dev.ctx(), {a / "z.zst"}, a / "out2", o);
    BOOST_CHECK_MESSAGE(find_problem(t, "z.zst", "total output limit"), problems_of(t));
    BOOST_CHECK_EQUAL(t.decoded_bytes, 0u);
    // Tiny compressed blocks whose layout asks for a gigabyte (zstd_layout_unproven) decode into
    // memory that grows with what they hold: nothing from empty blocks, a refusal at the ratio
    // cap from a true 26,000:1 bomb of 40 KB, corrupt for blocks libzstd refuses.
    using vyre::test::frame_of_compressed_blocks;
    write_file(a / "empty.zst", frame_of_compressed_blocks(vyre::test::empty_compressed_block, 8000));
    write_file(a / "broken.zst", frame_of_compressed_blocks(vyre::test::broken_compressed_block, 8000));
    write_file(a / "tiny_bomb.zst", frame_of_compressed_blocks(vyre::test::rle_128k_compressed_block, 8000));
    const auto g = unpack_files(dev.ctx(), {a / "empty.zst", a / "broken.zst", a / "tiny_bomb.zst"}, a / "out3");
    BOOST_CHECK_MESSAGE(find_problem(g, "tiny_bomb.zst", "decoding stopped there"), problems_of(g));
    BOOST_CHECK_MESSAGE(find_problem(g, "broken.zst", "zstd: "), problems_of(g));
    BOOST_CHECK_MESSAGE(!find_problem(g, "empty.zst", ""), problems_of(g));
    BOOST_CHECK_EQUAL(g.refused(), 1u);
    BOOST_CHECK_EQUAL(g.corrupt(), 1u);
    BOOST_CHECK_EQUAL(g.decoded_bytes, 0u);
    // Too many tiny blocks to list (format::zstd_table_error): one file of 400,000 empty blocks,
    // and 40 files of 40,000 each, every one within its own parse's budget but not all together
    // (the jobs parsed as one): all streamed on the host, each file's bytes right.
    write_file(a / "many.zst", vyre::test::frame_of_empty_raw_blocks(400'000, "many"));
    std::vector<fs::path> inputs = {a / "many.zst"};
    for (int i = 0; i < 40; ++i) {
        inputs.push_back(a / ("part" + std::to_string(i) + ".zst"));
        write_file(inputs.back(), vyre::test::frame_of_empty_raw_blocks(40'000, "part" + std::to_string(i)));
    }
    const auto m = unpack_files(dev.ctx(), inputs, a / "out4");
    BOOST_CHECK_MESSAGE(m.problems.empty(), problems_of(m));
    BOOST_CHECK(read_file(a / "out4" / "many") == text("many"));
    // A .tar.zst of the same kind, unpacked in windows on the device route: its frame is too
    // many blocks to list for the device's windows, so the host's streaming decoder reads it.
    fs::create_directories(a / "tar_src");
    write_text(a / "tar_src" / "inside", "inside a frame of empty blocks\n");
    run("tar -cf " + q(a / "small.tar") + " -C " + q(a / "tar_src") + " inside");
    const bytes tar = read_file(a / "small.tar");
    write_file(a / "many.tar.zst", vyre::test::frame_of_empty_raw_blocks(400'000, std::string(tar.begin(), tar.end())));
    ve::unpack_options in_windows;
    in_windows.zstd = ve::zstd_route::device;
    in_windows.stream_above_bytes = 0;
    const auto w = unpack_files(dev.ctx(), {a / "many.tar.zst"}, a / "out6", in_windows);
    BOOST_CHECK_MESSAGE(w.problems.empty(), problems_of(w));
    BOOST_CHECK_EQUAL(w.streamed_archives, 1u);
    BOOST_CHECK_EQUAL(w.zstd_dispatches, 0u);
    BOOST_CHECK(read_file(a / "out6" / "inside") == text("inside a frame of empty blocks\n"));
    // The same for LZ4 (format::lz4_table_error): a file of 400,000 one-byte blocks.
    std::mt19937_64 rng(vyre::test::test_seed() ^ 0x1b2ULL);
    const bytes tiny_content = vyre::test::text_bytes(rng, 400'000);
    write_file(a / "tiny.lz4", vyre::test::lz4_frame_of_one_byte_blocks(tiny_content));
    const auto l = unpack_files(dev.ctx(), {a / "tiny.lz4"}, a / "out5");
    BOOST_CHECK_MESSAGE(l.problems.empty(), problems_of(l));
    BOOST_CHECK(read_file(a / "out5" / "tiny") == tiny_content);
    BOOST_CHECK_EQUAL(l.lz4_host_blocks, 400'000u);
    // The parts listed together stop at the budget of one parse of all 41 files (about 22 MB:
    // 11 parts of 1.9 MB); the others are streamed and their blocks not counted.
    BOOST_CHECK_GT(m.zstd_blocks, 0u);
    BOOST_CHECK_LT(m.zstd_blocks, 40u * 40'001u);
    for (int i = 0; i < 40; ++i) {
        const std::string part = "part" + std::to_string(i);
        BOOST_CHECK(read_file(a / "out4" / part) == text(part));
    }
}

VYRE_DEVICE_TEST(long_names_and_planted_hard_links) {
    temp_dir work;
    const fs::path a = work.path;
    // A pax name of 2,001 components (4,001 bytes) is refused; the entry after it is extracted.
    const std::string py = "import io, sys, tarfile\n"
                           "with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as t:\n"
                           "    for name, data in (('a/' * 2000 + 'f', b'deep'), ('g', b'shallow')):\n"
                           "        i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))\n";
    write_text(a / "mk.py", py);
    run("python3 " + q(a / "mk.py") + " " + q(a / "long.tar"));
    // The output folder already holds a hard link "g" to a file outside it: never written through.
    fs::create_directories(a / "out");
    write_text(a / "victim", "untouched\n");
    fs::create_hard_link(a / "victim", a / "out" / "g");
    const auto r = unpack_files(dev.ctx(), {a / "long.tar"}, a / "out");
    BOOST_CHECK_MESSAGE(find_problem(r, "long.tar!/a/a/a", "more than 1024"), problems_of(r));
    BOOST_CHECK_EQUAL(r.problems.size(), 1u);
    BOOST_CHECK(read_file(a / "out" / "g") == text("shallow"));
    BOOST_CHECK(read_file(a / "victim") == text("untouched\n"));
    BOOST_CHECK(!fs::exists(a / "out" / "a"));
}

// Inputs spread over several devices (here three contexts of one device, one input per batch)
// list, extract and count as one device does, and the limits hold over the whole job.
VYRE_DEVICE_TEST(several_devices_list_and_extract_as_one) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    const std::string src = q(t.root);
    // Each input below a folder of its own, so that no two inputs write one path.
    run("tar -czf " + q(a / "gz.tar.gz") + " --transform 's,^\\.,gz,' -C " + src + " .");
    run("tar -cf - --transform 's,^\\.,lz4,' -C " + src + " . | lz4 -q > " + q(a / "x.tar.lz4"));
    run("tar -cf - --transform 's,^\\.,zst,' -C " + src + " . | zstd -q > " + q(a / "x.tar.zst"));
    run("tar -czf " + q(a / "whole.tar.gz") + " --transform 's,^\\.,broken,' -C " + src + " .");
    const bytes whole = read_file(a / "whole.tar.gz");
    write_file(a / "broken.tar.gz", bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(whole.size() / 2)));
    run("cd " + q(a) + " && zip -q nested.zip gz.tar.gz x.tar.zst");
    write_text(a / "plain.txt", "not an archive\n");
    std::vector<bytes> data;
    std::vector<ve::unpack_input> inputs;
    const std::vector<std::string> names = {"gz.tar.gz", "plain.txt", "x.tar.lz4", "broken.tar.gz", "x.tar.zst", "nested.zip"};
    for (const auto& n : names) data.push_back(read_file(a / n));
    for (std::size_t i = 0; i < names.size(); ++i) inputs.push_back({names[i], data[i]});

    ve::unpack_options o;
    o.hash = true;
    o.output_dir = a / "one";
    const auto one = ve::unpack(dev.ctx(), inputs, o);
    BOOST_CHECK(find_problem(one, "plain.txt", "not an archive"));
    BOOST_CHECK(find_problem(one, "broken.tar.gz", ""));
    vyre::runtime::context second(dev.ctx().device()), third(dev.ctx().device());
    vyre::runtime::context* devices[] = {&dev.ctx(), &second, &third};
    vyre::runtime::batch_limits alone; // one input per batch
    alone.min_bytes = alone.max_bytes = 1;
    alone.max_items = 1;
    o.output_dir = a / "many";
    ve::unpack_device_stats stats;
    const auto many = ve::unpack_on_devices(devices, inputs, o, &stats, alone);

    BOOST_REQUIRE_EQUAL(many.entries.size(), one.entries.size());
    for (std::size_t i = 0; i < one.entries.size(); ++i) {
        const auto &x = one.entries[i], &y = many.entries[i];
        BOOST_TEST_CONTEXT(x.path) {
            BOOST_CHECK_EQUAL(x.path, y.path);
            BOOST_CHECK_EQUAL(x.output_path, y.output_path);
            BOOST_CHECK(x.type == y.type && x.status == y.status && x.order == y.order && x.depth == y.depth);
            BOOST_CHECK(x.size == y.size && x.compressed_size == y.compressed_size && x.mode == y.mode && x.mtime == y.mtime);
            BOOST_CHECK(x.method == y.method && x.link_target == y.link_target && x.message == y.message && x.sha256 == y.sha256);
        }
    }
    BOOST_REQUIRE_EQUAL(many.problems.size(), one.problems.size());
    for (std::size_t i = 0; i < one.problems.size(); ++i) {
        BOOST_CHECK_EQUAL(many.problems[i].path, one.problems[i].path);
        BOOST_CHECK_EQUAL(many.problems[i].message, one.problems[i].message);
        BOOST_CHECK(many.problems[i].kind == one.problems[i].kind && many.problems[i].order == one.problems[i].order);
    }
    BOOST_CHECK_EQUAL(many.containers, one.containers);
    BOOST_CHECK_EQUAL(many.layers, one.layers);
    BOOST_CHECK_EQUAL(many.decoded_bytes, one.decoded_bytes);
    BOOST_CHECK_EQUAL(many.written_bytes, one.written_bytes);
    BOOST_CHECK_EQUAL(many.lz4_device_blocks + many.lz4_host_blocks, one.lz4_device_blocks + one.lz4_host_blocks);
    BOOST_CHECK_EQUAL(many.zstd_blocks, one.zstd_blocks);
    BOOST_CHECK_EQUAL(many.deflate_streams, one.deflate_streams);
    check_same_tree(a / "one", a / "many");
    BOOST_REQUIRE_EQUAL(stats.size(), 3u);
    std::size_t batches = 0, items = 0;
    for (const auto& d : stats) batches += d.batches, items += d.items;
    BOOST_CHECK_EQUAL(batches, inputs.size());
    BOOST_CHECK_EQUAL(items, inputs.size());

    // The limits count over the job, not over each device's batches. (Ordinary runs: an archive
    // read in windows counts each window only while it is held.)
    ve::unpack_options tight;
    tight.limits.max_total_bytes = one.decoded_bytes / 2;
    tight.stream_above_bytes = UINT64_MAX;
    const auto cut = ve::unpack_on_devices(devices, inputs, tight, nullptr, alone);
    BOOST_CHECK_LE(cut.decoded_bytes, tight.limits.max_total_bytes);
    BOOST_CHECK_MESSAGE(find_problem(cut, "", "total output limit"), problems_of(cut));
    ve::unpack_options few;
    few.limits.max_entries = 50;
    const auto capped = ve::unpack_on_devices(devices, inputs, few, nullptr, alone);
    BOOST_CHECK_LE(capped.entries.size(), 50u);
    BOOST_CHECK_MESSAGE(find_problem(capped, "", "entry limit reached"), problems_of(capped));
}

VYRE_TEST_MAIN
