// engine::unpack on the package formats of the supply chain that the host decodes: xz, lzma and
// bzip2 streams (liblzma, libbz2), ZIP methods 12, 14 and 95, and the containers read through
// libarchive (Debian packages, RPMs, cpio in its four formats, 7z, ISO 9660). Every input is made
// by the system's own tools (dpkg-deb, rpmbuild, cpio, 7z, genisoimage, xz, bzip2, zip, Python)
// and must extract to what the reference tool extracts (dpkg-deb -x, rpm2cpio | cpio, 7z x,
// bsdtar), metadata (modes, times, links) included. Detection is by content, so every format is
// named, never "unknown"; damage and bombs are reported with the codec named once.
#include "unpack_helpers.hpp"

#include <vyre/engine/image_flatten.hpp>
#include <vyre/format/bzip2.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/libarchive.hpp>
#include <vyre/format/rpm.hpp>
#include <vyre/format/stream_decode.hpp>
#include <vyre/format/xz.hpp>
#include <vyre/format/zip_methods.hpp>

#include <bzlib.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>

namespace {

using vyre::test::have_tool;

// Every path below `root` with what extraction must keep: the kind, the permission bits, the
// modification time (of files only: not every reference tool sets a link's own time, and cpio -i
// gives folders the time of extraction), and a link's target.
struct node {
    char kind = '?';
    unsigned mode = 0;
    long long mtime = 0;
    std::string target;
    bool operator==(const node&) const = default;
};

std::map<std::string, node> metadata_of(const fs::path& root) {
    std::map<std::string, node> m;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        struct stat st;
        BOOST_REQUIRE(::lstat(it->path().c_str(), &st) == 0);
        node n;
        n.kind = S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : S_ISREG(st.st_mode) ? 'f' : 'o';
        n.mode = S_ISLNK(st.st_mode) ? 0 : st.st_mode & 07777;
        n.mtime = S_ISREG(st.st_mode) ? static_cast<long long>(st.st_mtime) : 0;
        if (n.kind == 'l') n.target = fs::read_symlink(it->path()).string();
        m[it->path().lexically_relative(root).generic_string()] = n;
    }
    return m;
}

// `ours` and `theirs` hold the same paths with the same kinds, bytes, modes, times and targets.
void check_same_extraction(const fs::path& ours, const fs::path& theirs) {
    check_same_tree(theirs, ours);
    const auto a = metadata_of(ours), b = metadata_of(theirs);
    for (const auto& [path, n] : b) {
        const auto f = a.find(path);
        if (f == a.end()) continue; // check_same_tree said so
        BOOST_CHECK_MESSAGE(f->second.mode == n.mode, path << ": mode " << std::oct << f->second.mode << ", the reference tool gave " << n.mode);
        BOOST_CHECK_MESSAGE(f->second.mtime == n.mtime, path << ": time " << f->second.mtime << ", the reference tool gave " << n.mtime);
    }
}

// A small tree with the metadata the formats record: modes other than 0644/0755, a set-uid file,
// fixed times, a symlink, a hard link, a folder of mode 0750.
struct meta_tree {
    temp_dir tmp;
    fs::path root;
    meta_tree() {
        root = tmp.path / "src";
        fs::create_directories(root / "bin");
        fs::create_directories(root / "share" / "doc");
        write_file(root / "bin" / "tool", random_bytes(70000, 3));
        write_text(root / "share" / "doc" / "README", "a package's read-me\n");
        write_file(root / "share" / "data.bin", vyre::test::system_corpus(200000));
        write_text(root / "bin" / "suid", "#!/bin/sh\n");
        fs::create_symlink("tool", root / "bin" / "alias");
        fs::create_hard_link(root / "share" / "doc" / "README", root / "share" / "README.copy");
        run("chmod 0755 " + q(root / "bin" / "tool") + " && chmod 4755 " + q(root / "bin" / "suid") + " && chmod 0600 " +
            q(root / "share" / "data.bin") + " && chmod 0750 " + q(root / "share" / "doc"));
        run("find " + q(root) + " -exec touch -h -d '2021-06-15 12:34:56 UTC' {} +");
    }
};

const meta_tree& meta() {
    static meta_tree t;
    return t;
}

// What a tool wrote, unpacked by vyre below `out`; the problems must be none.
ve::unpack_report unpack_clean(vyre::runtime::context& ctx, const fs::path& file, const fs::path& out, ve::unpack_options o = {}) {
    const auto r = unpack_files(ctx, {file}, out, o);
    BOOST_CHECK_MESSAGE(r.problems.empty(), file.filename() << ":" << problems_of(r));
    return r;
}

std::string first_message(const ve::unpack_report& r) { return r.problems.empty() ? std::string() : r.problems.front().message; }

// Whether `7z` is there and writes archives (a machine may have another 7-Zip, or a broken one):
// the cases that need it skip, and say so, where it does not.
bool seven_zip_works() {
    static const bool works = [] {
        temp_dir t;
        write_text(t.path / "f", "x");
        return have_tool("7z") && vyre::test::command_succeeds("cd " + q(t.path) + " && 7z a -bd -bso0 p.7z f > /dev/null 2>&1");
    }();
    if (!works) BOOST_TEST_MESSAGE("7z is missing or cannot write an archive here: its cases are skipped");
    return works;
}

// In a build without libarchive (-DVYRE_WITH_LIBARCHIVE=OFF) its formats must be named and
// refused, not called unknown: checked on `file`, and true where the case can go no further.
bool without_libarchive(vyre::runtime::context& ctx, const fs::path& file, const std::string& format) {
    if (vyre::format::libarchive_available()) return false;
    const auto r = unpack_files(ctx, {file}, file.parent_path() / "out_without_libarchive");
    BOOST_CHECK_MESSAGE(contains_text(first_message(r), format + " archive: not supported in this build"), first_message(r));
    return true;
}

} // namespace

// ---------------------------------------------------------------- the codecs alone

// libbz2 hands a block's bytes out before it checks the block's CRC; format::stream_decoder (the
// windowed unpack and the salvage of a damaged stream) holds them until it has, so a block that
// fails hands out none of its bytes and what comes out is the stream's content, cut at a block.
BOOST_AUTO_TEST_CASE(bzip2_blocks_are_handed_out_once_their_crc_matched) {
    const bytes content = vyre::test::system_corpus(600u << 10);
    bytes packed(content.size() + content.size() / 50 + 1024);
    unsigned packed_size = static_cast<unsigned>(packed.size());
    BOOST_REQUIRE(BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(packed.data()), &packed_size,
                                           const_cast<char*>(reinterpret_cast<const char*>(content.data())),
                                           static_cast<unsigned>(content.size()), 1, 0, 0) == BZ_OK);
    packed.resize(packed_size); // blocks of 100 kB: six or seven of them
    const auto pull = [](const bytes& in, std::size_t piece, bool& failed) {
        vyre::format::stream_decoder d(vyre::format::content_kind::bzip2, in);
        bytes out, room(piece);
        while (!d.done() && !d.failed()) {
            const std::size_t n = d.read(room);
            out.insert(out.end(), room.begin(), room.begin() + static_cast<std::ptrdiff_t>(n));
        }
        failed = d.failed();
        return out;
    };
    bool failed = true;
    BOOST_TEST((pull(packed, 64u << 10, failed) == content));
    BOOST_TEST(!failed);
    for (const double at : {0.2, 0.5, 0.8}) {
        BOOST_TEST_CONTEXT("a bit flipped at " << at << " of the stream") {
            bytes damaged = packed;
            damaged[static_cast<std::size_t>(double(damaged.size()) * at)] ^= 0x04;
            for (const std::size_t piece : {std::size_t{4096}, std::size_t{1} << 20}) {
                const bytes out = pull(damaged, piece, failed);
                BOOST_TEST(failed);
                BOOST_TEST(out.size() < content.size());
                BOOST_TEST(std::equal(out.begin(), out.end(), content.begin()), out.size() << " bytes handed out are not the content's first");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(host_codecs_against_the_system_tools) {
    temp_dir work;
    const bytes content = vyre::test::system_corpus(3u << 20);
    write_file(work.path / "c", content);
    run("xz -k -T1 " + q(work.path / "c") + " && lzma -k " + q(work.path / "c") + " && bzip2 -k " + q(work.path / "c"));
    BOOST_CHECK(vyre::format::xz_decompress(read_file(work.path / "c.xz")) == content);
    BOOST_CHECK(vyre::format::lzma_alone_decompress(read_file(work.path / "c.lzma")) == content);
    BOOST_CHECK(vyre::format::bzip2_decompress(read_file(work.path / "c.bz2")) == content);
    // Several streams one after another (pbzip2, `cat a.xz b.xz`), with xz's stream padding.
    const bytes two_bz2 = vyre::test::concat({read_file(work.path / "c.bz2"), read_file(work.path / "c.bz2")});
    const bytes doubled = vyre::test::concat({content, content});
    BOOST_CHECK(vyre::format::bzip2_decompress(two_bz2) == doubled);
    const bytes two_xz = vyre::test::concat({read_file(work.path / "c.xz"), bytes(8, 0), read_file(work.path / "c.xz")});
    BOOST_CHECK(vyre::format::xz_decompress(two_xz) == doubled);
    // Multi-threaded xz writes several blocks; zero padding after bzip2 is accepted.
    run("xz -T4 --block-size=262144 -c " + q(work.path / "c") + " > " + q(work.path / "mt.xz"));
    BOOST_CHECK(vyre::format::xz_decompress(read_file(work.path / "mt.xz")) == content);
    BOOST_CHECK(vyre::format::bzip2_decompress(vyre::test::concat({read_file(work.path / "c.bz2"), bytes(512, 0)})) == content);

    // Limits: output past the limit is a resource_error, whatever the stream says.
    BOOST_CHECK_THROW(vyre::format::xz_decompress(read_file(work.path / "c.xz"), content.size() - 1), vyre::resource_error);
    BOOST_CHECK_THROW(vyre::format::bzip2_decompress(read_file(work.path / "c.bz2"), 1000), vyre::resource_error);
    BOOST_CHECK_THROW(vyre::format::lzma_alone_decompress(read_file(work.path / "c.lzma"), 4096), vyre::resource_error);
    BOOST_CHECK_EQUAL(vyre::format::xz_decompress(read_file(work.path / "c.xz"), content.size()).size(), content.size());
    // An .lzma header asking for a 1.5 GiB dictionary is refused before anything is allocated.
    bytes greedy = read_file(work.path / "c.lzma");
    greedy[1] = 0x00, greedy[2] = 0x00, greedy[3] = 0x00, greedy[4] = 0x60;
    BOOST_CHECK(vyre::format::looks_like_lzma_alone(greedy));
    BOOST_CHECK_THROW(vyre::format::lzma_alone_decompress(greedy), vyre::format::lzma_memory_error);

    // Damage: truncation, a flipped byte, trailing garbage; each a format_error naming the codec
    // once, at an offset inside the input.
    const std::pair<const char*, bytes> inputs[] = {{"xz", read_file(work.path / "c.xz")}, {"bzip2", read_file(work.path / "c.bz2")},
                                                    {"lzma", read_file(work.path / "c.lzma")}};
    for (const auto& input : inputs) {
        const char* const codec = input.first; // not a structured binding: lambdas capture it
        const bytes& packed = input.second;
        BOOST_TEST_CONTEXT(codec) {
            const auto decode = [&, codec = std::string(codec)](const bytes& b) {
                if (codec == "xz") return vyre::format::xz_decompress(b);
                if (codec == "bzip2") return vyre::format::bzip2_decompress(b);
                return vyre::format::lzma_alone_decompress(b);
            };
            const auto expect_damage = [&](const bytes& b, const char* what) {
                try {
                    decode(b);
                    BOOST_ERROR(what << ": accepted");
                } catch (const vyre::format_error& e) {
                    const std::string m = e.what();
                    BOOST_CHECK_MESSAGE(m.rfind(std::string(codec) + ": ", 0) == 0, what << ": " << m);
                    BOOST_CHECK_MESSAGE(m.find(std::string(codec) + ": " + codec) == std::string::npos, what << ": codec named twice: " << m);
                    BOOST_CHECK_MESSAGE(e.offset() != vyre::format_error::npos && e.offset() <= b.size(), what << ": offset " << e.offset());
                }
            };
            expect_damage(bytes(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(packed.size() / 2)), "truncated");
            bytes flipped = packed;
            flipped[flipped.size() / 3] ^= 0x55;
            expect_damage(flipped, "flipped");
            if (std::string(codec) != "lzma") { // an .lzma stream with an end marker may be followed by anything the
                                                 // decoder never reads; xz and bzip2 say what follows
                expect_damage(vyre::test::concat({packed, vyre::test::to_bytes("garbage!")}), "trailing garbage");
            }
        }
    }
}

// libarchive sizes its read-ahead by what a header asks for: a 2 KiB cpio found by fuzzing
// (fuzz/corpus/host_formats/cpio_huge_size) claimed 3.5 GiB and was given it. ar and cpio headers
// are walked before libarchive sees them; sizes past the input are refused, naming the offset.
BOOST_AUTO_TEST_CASE(libarchive_inputs_are_bounded_first) {
    namespace f = vyre::format;
    const auto take_all = [](std::uint64_t) { return std::string(); };
    if (!f::libarchive_available()) {
        BOOST_CHECK_THROW(f::read_with_libarchive(text("!<arch>\n"), f::library_format::ar, take_all), f::unsupported_format);
        return;
    }
    std::string newc = "070701";
    for (const char* field : {"00000001", "000081A4", "00000000", "00000000", "00000001", "00000000", "00000005", "00000000",
                              "00000000", "00000000", "00000000", "E0000002", "00000000"})
        newc += field;
    newc += "a";
    newc += std::string(600, '\0');
    try {
        f::read_with_libarchive(text(newc), f::library_format::cpio, take_all);
        BOOST_ERROR("a 3.5 GiB cpio name was accepted");
    } catch (const vyre::format_error& e) {
        BOOST_CHECK_MESSAGE(contains_text(e.what(), "cpio: a name of 3758096386 bytes"), e.what());
        BOOST_CHECK_EQUAL(e.offset(), 0u);
    }
    // libarchive skips junk to the next magic number it finds: a hostile header after junk, behind
    // a valid first entry, is refused too (the fuzzer's second find).
    std::string resync = newc.substr(0, 6 + 8 * 11) + "00000002" + "00000000" + "a" + std::string(3, '\0');
    resync.replace(6 + 8 * 6, 8, "00000000"); // no data
    resync += "junk070701" + newc.substr(6, 110 - 6) + std::string(64, '\0');
    try {
        f::read_with_libarchive(text(resync), f::library_format::cpio, take_all);
        BOOST_ERROR("a hostile header after junk was accepted");
    } catch (const vyre::format_error& e) {
        BOOST_CHECK_MESSAGE(contains_text(e.what(), "cpio: a name of 3758096386 bytes"), e.what());
        BOOST_CHECK_EQUAL(e.offset(), resync.find("070701", 1));
    }
    // A data size past the end, in odc, and an ar member past the end.
    std::string odc = "070707" + std::string(6 * 7, '0') + std::string(11, '0') + "000002" + "77777777777" + "a" + std::string(1, '\0');
    BOOST_CHECK_THROW(f::read_with_libarchive(text(odc + std::string(100, 'x')), f::library_format::cpio, take_all), vyre::format_error);
    std::string ar = "!<arch>\nname/           0           0     0     644     999999999 `\nshort";
    try {
        f::read_with_libarchive(text(ar), f::library_format::ar, take_all);
        BOOST_ERROR("an ar member past the end was accepted");
    } catch (const vyre::format_error& e) {
        BOOST_CHECK_MESSAGE(contains_text(e.what(), "runs past the end"), e.what());
    }
    // The file the fuzzer found, as a whole unpack would meet it: refused with a message.
    const char* source = std::getenv("VYRE_SOURCE_DIR"); // wins, so that a build carried elsewhere finds the tree
    const bytes found = read_file(fs::path(source && *source ? source : VYRE_SOURCE_DIR) / "fuzz" / "corpus" / "host_formats" / "cpio_huge_size");
    BOOST_CHECK_THROW(f::read_with_libarchive(std::span(found).subspan(1), f::library_format::cpio, take_all), vyre::format_error);
    // RPM: headers past the end are refused before anything is read.
    bytes rpm(200, 0);
    rpm[0] = 0xED, rpm[1] = 0xAB, rpm[2] = 0xEE, rpm[3] = 0xDB;
    rpm[96] = 0x8E, rpm[97] = 0xAD, rpm[98] = 0xE8, rpm[99] = 0x01, rpm[104] = 0x10; // 2^28 index entries
    try {
        f::rpm_payload(rpm);
        BOOST_ERROR("an RPM header past the end was accepted");
    } catch (const vyre::format_error& e) {
        BOOST_CHECK_MESSAGE(contains_text(e.what(), "rpm: the signature header declares 268435456 index entries"), e.what());
    }
}

BOOST_AUTO_TEST_CASE(detection_names_every_format) {
    namespace f = vyre::format;
    temp_dir work;
    const auto& t = meta();
    const fs::path a = work.path;
    const std::string src = q(t.root);
    run("tar -cf " + q(a / "x.tar") + " -C " + src + " .");
    run("xz -k " + q(a / "x.tar") + " && lzma -k " + q(a / "x.tar") + " && bzip2 -k " + q(a / "x.tar"));
    run("cd " + src + " && find . | cpio --quiet -o -H newc > " + q(a / "newc.cpio"));
    run("cd " + src + " && find . | cpio --quiet -o -H odc > " + q(a / "odc.cpio"));
    run("cd " + src + " && find . | cpio --quiet -o -H crc > " + q(a / "crc.cpio"));
    run("cd " + src + " && find . | cpio --quiet -o -H bin > " + q(a / "bin.cpio"));
    run("cd " + src + " && ar rc " + q(a / "x.a") + " bin/tool share/doc/README");
    const bool sevenzip = seven_zip_works();
    if (sevenzip) run("cd " + src + " && 7z a -bd -bso0 " + q(a / "x.7z") + " . > /dev/null");
    run("genisoimage -quiet -R -o " + q(a / "x.iso") + " " + src);
    const std::pair<const char*, f::content_kind> expected[] = {
        {"x.tar.xz", f::content_kind::xz},     {"x.tar.lzma", f::content_kind::lzma}, {"x.tar.bz2", f::content_kind::bzip2},
        {"newc.cpio", f::content_kind::cpio},  {"odc.cpio", f::content_kind::cpio},   {"crc.cpio", f::content_kind::cpio},
        {"bin.cpio", f::content_kind::cpio},   {"x.a", f::content_kind::ar},          {"x.7z", f::content_kind::sevenzip},
        {"x.iso", f::content_kind::iso9660},   {"x.tar", f::content_kind::tar}};
    for (const auto& [name, kind] : expected)
        if (sevenzip || kind != f::content_kind::sevenzip)
            BOOST_CHECK_MESSAGE(f::detect(read_file(a / name)) == kind,
                            name << " detected as " << f::content_kind_name(f::detect(read_file(a / name))) << ", not "
                                 << f::content_kind_name(kind));
    // Plain data and text stay unknown: the weak signatures (binary cpio, .lzma) do not fire on them.
    std::mt19937_64 rng(5);
    std::size_t false_hits = 0;
    for (int i = 0; i < 20000; ++i) {
        bytes b = vyre::test::random_bytes(rng, 600);
        if (i % 2) b[0] = 0x5D; // an .lzma properties byte in front of noise
        if (i % 3 == 0) b[0] = 0xC7, b[1] = 0x71; // a binary cpio magic in front of noise
        false_hits += f::detect(b) != f::content_kind::unknown;
    }
    BOOST_CHECK_EQUAL(false_hits, 0u);
    BOOST_CHECK(f::detect(vyre::test::system_corpus(4096)) == f::content_kind::unknown);
}

// ---------------------------------------------------------------- through engine::unpack

VYRE_DEVICE_TEST(compressed_tars_of_every_host_codec_extract_like_tar) {
    const auto& t = meta();
    temp_dir work;
    const fs::path a = work.path;
    const std::string src = q(t.root);
    run("tar -cf " + q(a / "x.tar") + " -C " + src + " .");
    run("xz -k " + q(a / "x.tar") + " && lzma -k " + q(a / "x.tar") + " && bzip2 -k " + q(a / "x.tar"));
    const fs::path reference = a / "reference";
    fs::create_directories(reference);
    run("tar --no-same-owner -xf " + q(a / "x.tar") + " -C " + q(reference));
    // tar as root keeps set-uid bits; vyre drops them unless asked.
    run("chmod u-s " + q(reference / "bin" / "suid"));
    for (const char* name : {"x.tar.xz", "x.tar.lzma", "x.tar.bz2"}) {
        BOOST_TEST_CONTEXT(name) {
            const fs::path out = a / (std::string("out_") + name);
            const auto r = unpack_clean(dev.ctx(), a / name, out);
            check_same_extraction(out, reference);
            BOOST_CHECK_EQUAL(r.library_streams, 1u);
            // The tar opens in place: x.tar.xz!/bin/tool, not x.tar.xz!/x.tar!/bin/tool.
            for (const auto& e : r.entries) BOOST_CHECK_EQUAL(e.path, std::string(name) + "!/" + e.output_path);
        }
    }
    // Set-uid kept only when asked.
    ve::unpack_options keep;
    keep.keep_setid = true;
    unpack_clean(dev.ctx(), a / "x.tar.xz", a / "kept", keep);
    BOOST_CHECK((fs::status(a / "kept" / "bin" / "suid").permissions() & fs::perms::set_uid) == fs::perms::set_uid);
    BOOST_CHECK((fs::status(a / "out_x.tar.xz" / "bin" / "suid").permissions() & fs::perms::set_uid) == fs::perms::none);
}

VYRE_DEVICE_TEST(zip_methods_bzip2_lzma_and_xz) {
    const auto& t = meta();
    temp_dir work;
    const fs::path a = work.path;
    const bytes tool = read_file(t.root / "bin" / "tool"), data = read_file(t.root / "share" / "data.bin");
    // Info-ZIP's bzip2 and Python's bzip2 and LZMA (with the end marker), checked both ways by unzip
    // and by zipfile; method 95 written by the test with liblzma, as no Debian tool writes it.
    run("cd " + q(t.root) + " && zip -q -r -Z bzip2 " + q(a / "infozip_bzip2.zip") + " .");
    const std::string py = "import sys, zipfile\n"
                           "m = {'bzip2': zipfile.ZIP_BZIP2, 'lzma': zipfile.ZIP_LZMA}[sys.argv[3]]\n"
                           "with zipfile.ZipFile(sys.argv[1], 'w', m) as z:\n"
                           "    z.write(sys.argv[2] + '/bin/tool', 'bin/tool')\n"
                           "    z.write(sys.argv[2] + '/share/data.bin', 'share/data.bin')\n";
    write_text(a / "mkzip.py", py);
    run("python3 " + q(a / "mkzip.py") + " " + q(a / "py_bzip2.zip") + " " + q(t.root) + " bzip2");
    run("python3 " + q(a / "mkzip.py") + " " + q(a / "py_lzma.zip") + " " + q(t.root) + " lzma");
    write_file(a / "ours.zip", make_zip({entry("bin/tool", tool, 95, 0100755), entry("share/data.bin", data, 14),
                                         entry("share/also.bin", data, 12)}));
    run("python3 -c \"import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); [z.read(n) for n in z.namelist()]\" " + q(a / "py_lzma.zip"));
    for (const char* name : {"py_bzip2.zip", "py_lzma.zip", "ours.zip"}) {
        BOOST_TEST_CONTEXT(name) {
            const fs::path out = a / (std::string("out_") + name);
            const auto r = unpack_clean(dev.ctx(), a / name, out);
            BOOST_CHECK(read_file(out / "bin" / "tool") == tool);
            BOOST_CHECK(read_file(out / "share" / "data.bin") == data);
            BOOST_CHECK_GE(r.library_streams, 2u);
        }
    }
    const fs::path out = a / "out_infozip";
    unpack_clean(dev.ctx(), a / "infozip_bzip2.zip", out);
    const fs::path reference = a / "ref_infozip";
    run("unzip -q " + q(a / "infozip_bzip2.zip") + " -d " + q(reference));
    run("chmod u-s " + q(reference / "bin" / "suid"));
    check_same_extraction(out, reference);
    // The methods' entries listed with their names; Python reads what the test wrote, too.
    const auto listed = unpack_files(dev.ctx(), {a / "ours.zip"}, a / "again");
    std::set<std::string> methods;
    for (const auto& e : listed.entries) methods.insert(e.method);
    BOOST_CHECK(methods == (std::set<std::string>{"bzip2", "lzma", "xz"}));
    run("python3 -c \"import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); z.read('share/data.bin'); z.read('share/also.bin')\" " +
        q(a / "ours.zip"));
    // A corrupt entry is that entry's problem; the others extract.
    bytes zip = make_zip({entry("good.txt", text("fine\n"), 12), entry("bad.bin", data, 95)});
    const auto at = std::search(zip.begin(), zip.end(), vyre::format::xz_magic.begin(), vyre::format::xz_magic.end());
    BOOST_REQUIRE(at != zip.end());
    at[200] ^= 0x40;
    write_file(a / "damaged.zip", zip);
    const auto d = unpack_files(dev.ctx(), {a / "damaged.zip"}, a / "out_damaged");
    BOOST_CHECK_EQUAL(d.problems.size(), 1u);
    BOOST_CHECK(find_problem(d, "bad.bin", "xz: "));
    BOOST_CHECK(read_file(a / "out_damaged" / "good.txt") == text("fine\n"));
}

// PPMd entries (method 98), as 7-Zip writes them: decoded by libarchive, one entry at a time, and
// checked like every other entry (sizes, CRC-32). A damaged one is that entry's problem.
VYRE_DEVICE_TEST(zip_ppmd_entries_through_libarchive) {
    if (!seven_zip_works()) return;
    const auto& t = meta();
    temp_dir work;
    const fs::path a = work.path;
    run("cd " + q(t.root) + " && 7z a -bd -bso0 -tzip -mm=PPMd " + q(a / "ppmd.zip") + " bin/tool share/data.bin share/doc/README > /dev/null");
    const bytes zip = read_file(a / "ppmd.zip");
    const auto parsed = vyre::format::parse_zip(zip);
    std::size_t ppmd = 0;
    for (const auto& e : parsed.entries) ppmd += e.method == vyre::format::zip_method_ppmd;
    BOOST_REQUIRE_GE(ppmd, 1u); // 7-Zip stores what PPMd cannot shrink (the random tool, the short README)
    if (!vyre::format::libarchive_available()) { // named and refused, entry by entry
        for (const auto& e : unpack_files(dev.ctx(), {a / "ppmd.zip"}, a / "out_without").entries)
            if (e.method == "ppmd") BOOST_CHECK_MESSAGE(contains_text(e.message, "not supported in this build"), e.message);
        return;
    }
    const auto r = unpack_clean(dev.ctx(), a / "ppmd.zip", a / "out");
    BOOST_CHECK(read_file(a / "out" / "bin" / "tool") == read_file(t.root / "bin" / "tool"));
    BOOST_CHECK(read_file(a / "out" / "share" / "data.bin") == read_file(t.root / "share" / "data.bin"));
    BOOST_CHECK(read_file(a / "out" / "share" / "doc" / "README") == read_file(t.root / "share" / "doc" / "README"));
    BOOST_CHECK_GE(r.library_streams, ppmd);
    // Damage in the model's stream of a PPMd entry: that entry is corrupt, the rest extract.
    const auto big = std::find_if(parsed.entries.begin(), parsed.entries.end(),
                                  [](const auto& x) { return x.method == vyre::format::zip_method_ppmd; });
    bytes damaged = zip;
    damaged[static_cast<std::size_t>(big->data_offset + big->compressed_size / 2)] ^= 0x40;
    write_file(a / "damaged.zip", damaged);
    const auto d = unpack_files(dev.ctx(), {a / "damaged.zip"}, a / "out_damaged");
    BOOST_CHECK_MESSAGE(d.problems.size() == 1u && find_problem(d, big->name, ""), problems_of(d));
    std::size_t corrupt = 0;
    for (const auto& e : d.entries) {
        if (e.status == ve::unpack_status::ok) continue;
        ++corrupt;
        BOOST_CHECK_MESSAGE(e.path.find(big->name) != std::string::npos, e.path << ": " << e.message);
        BOOST_CHECK(e.status == ve::unpack_status::corrupt);
    }
    BOOST_CHECK_EQUAL(corrupt, 1u);
    BOOST_CHECK(read_file(a / "out_damaged" / "share" / "doc" / "README") == read_file(t.root / "share" / "doc" / "README"));
}

// GNU sparse files in each of GNU tar's four formats (old GNU 'S' headers, pax 0.0, 0.1 and 1.0)
// expand to the file GNU tar read, holes as zeros; a map that does not hold together (a file
// size smaller than its segments) makes the entry corrupt, with the reason.
VYRE_DEVICE_TEST(gnu_sparse_files_expand_in_every_format) {
    temp_dir work;
    const fs::path a = work.path, src = a / "src";
    fs::create_directories(src);
    // 8 MiB: a head, 100 KB of data at 3 MiB, a tail in the last bytes; the rest holes.
    const bytes middle = random_bytes(100000, 21);
    {
        const int fd = ::open((src / "holes.bin").c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
        BOOST_REQUIRE(fd >= 0);
        BOOST_REQUIRE(::pwrite(fd, "head", 4, 0) == 4);
        BOOST_REQUIRE(::pwrite(fd, middle.data(), middle.size(), 3 << 20) == static_cast<ssize_t>(middle.size()));
        BOOST_REQUIRE(::pwrite(fd, "tail", 4, (8 << 20) - 4) == 4);
        ::close(fd);
    }
    const bytes original = read_file(src / "holes.bin");
    const std::pair<const char*, const char*> formats[] = {{"gnu.tar", "--format=gnu"},
                                                           {"pax00.tar", "--format=posix --sparse-version=0.0"},
                                                           {"pax01.tar", "--format=posix --sparse-version=0.1"},
                                                           {"pax10.tar", "--format=posix --sparse-version=1.0"}};
    for (const auto& [name, flags] : formats) {
        BOOST_TEST_CONTEXT(name) {
            run("tar --sparse " + std::string(flags) + " -cf " + q(a / name) + " -C " + q(src) + " holes.bin");
            const bytes tar = read_file(a / name);
            const auto parsed = vyre::format::parse_tar(tar);
            BOOST_REQUIRE_EQUAL(parsed.entries.size(), 1u);
            if (parsed.entries[0].type != vyre::format::tar_entry_type::sparse) {
                BOOST_TEST_MESSAGE("this file system shows GNU tar no holes: it wrote a plain file");
                continue;
            }
            BOOST_CHECK_LT(tar.size(), original.size() / 4);
            const auto r = unpack_clean(dev.ctx(), a / name, a / ("out_" + std::string(name)));
            BOOST_REQUIRE_EQUAL(r.entries.size(), 1u);
            BOOST_CHECK_EQUAL(r.entries[0].path, std::string(name) + "!/holes.bin");
            BOOST_CHECK_EQUAL(r.entries[0].size, original.size());
            BOOST_CHECK(read_file(a / ("out_" + std::string(name)) / "holes.bin") == original);
        }
    }
    // Old GNU format with the file's size (header byte 483) cut to 16 bytes: its segments lie past it.
    bytes gnu = read_file(a / "gnu.tar");
    if (vyre::format::parse_tar(gnu).entries[0].type != vyre::format::tar_entry_type::sparse) return;
    vyre::test::put_octal(gnu, 483, 12, 16);
    vyre::test::tar_set_checksum(gnu, 0);
    write_file(a / "lying.tar", gnu);
    const auto r = unpack_files(dev.ctx(), {a / "lying.tar"}, a / "out_lying");
    BOOST_REQUIRE_EQUAL(r.entries.size(), 1u);
    BOOST_CHECK(r.entries[0].status == ve::unpack_status::corrupt);
    BOOST_CHECK_MESSAGE(contains_text(r.entries[0].message, "GNU sparse file") && contains_text(r.entries[0].message, "past the file's size"),
                        r.entries[0].message);
    BOOST_CHECK(!fs::exists(a / "out_lying" / "holes.bin"));
    // A map entry that is no number (header byte 386): that entry is corrupt, the entries after it
    // are read; and a global header's GNU.sparse records make no later entry sparse.
    bytes bad = read_file(a / "gnu.tar");
    const auto first = vyre::format::parse_tar(bad).entries[0];
    bad.resize(static_cast<std::size_t>(first.data_offset + (first.size + 511) / 512 * 512)); // the end blocks go
    bad[386] = 'x';
    vyre::test::tar_set_checksum(bad, 0);
    vyre::test::tar_append(bad, "after.txt", '0', text("after\n"));
    vyre::test::tar_finish(bad);
    write_file(a / "bad_map.tar", bad);
    const auto b = unpack_files(dev.ctx(), {a / "bad_map.tar"}, a / "out_bad_map");
    BOOST_REQUIRE_EQUAL(b.entries.size(), 2u);
    BOOST_CHECK(b.entries[0].status == ve::unpack_status::corrupt);
    BOOST_CHECK_MESSAGE(contains_text(b.entries[0].message, "map entry"), b.entries[0].message);
    BOOST_CHECK(read_file(a / "out_bad_map" / "after.txt") == text("after\n"));
    bytes global;
    const std::string records = "27 GNU.sparse.map=0,5,10,0\n" "22 GNU.sparse.size=10\n";
    vyre::test::tar_append(global, "././@PaxGlobalHeader", 'g', text(records));
    vyre::test::tar_append(global, "plain.txt", '0', text("plain\n"));
    vyre::test::tar_finish(global);
    write_file(a / "global.tar", global);
    unpack_clean(dev.ctx(), a / "global.tar", a / "out_global");
    BOOST_CHECK(read_file(a / "out_global" / "plain.txt") == text("plain\n"));
}

VYRE_DEVICE_TEST(debian_packages_extract_like_dpkg_deb) {
    if (!have_tool("dpkg-deb")) {
        BOOST_TEST_MESSAGE("dpkg-deb not installed: Debian packages not tested");
        return;
    }
    const auto& t = meta();
    temp_dir work;
    const fs::path a = work.path;
    const fs::path pkg = a / "pkg";
    fs::create_directories(pkg / "DEBIAN");
    run("cp -a " + q(t.root) + " " + q(pkg / "usr"));
    write_text(pkg / "DEBIAN" / "control", "Package: vyre-demo\nVersion: 1.0\nArchitecture: all\nMaintainer: vyre <vyre@example.org>\n"
                                           "Description: a package made by the tests\n");
    for (const char* z : {"xz", "zstd", "gzip", "none"}) {
        BOOST_TEST_CONTEXT(z) {
            const fs::path deb = a / (std::string("demo_") + z + ".deb");
            run("dpkg-deb --root-owner-group -Z" + std::string(z) + " --build " + q(pkg) + " " + q(deb) + " > /dev/null");
            const fs::path reference = a / (std::string("ref_") + z);
            run("dpkg-deb -x " + q(deb) + " " + q(reference));
            run("chmod u-s " + q(reference / "usr" / "bin" / "suid"));
            if (without_libarchive(dev.ctx(), deb, "ar")) return;
            const fs::path out = a / (std::string("out_") + z);
            const auto r = unpack_clean(dev.ctx(), deb, out);
            // ar members: debian-binary, control.tar.*, data.tar.*; the data tar opens where it lies.
            const std::string data = std::string("data.tar") + (std::string(z) == "none" ? "" : std::string(z) == "gzip" ? ".gz" : std::string(z) == "zstd" ? ".zst" : ".xz");
            BOOST_REQUIRE(fs::exists(out / (data + "!")));
            check_same_extraction(out / (data + "!"), reference);
            BOOST_CHECK(read_file(out / "debian-binary") == text("2.0\n"));
            bool control = false;
            for (const auto& e : r.entries) control = control || e.path.find("!/control") != std::string::npos;
            BOOST_CHECK(control);
        }
    }
}

VYRE_DEVICE_TEST(rpm_packages_extract_like_rpm2cpio) {
    if (!have_tool("rpmbuild") || !have_tool("rpm2cpio")) {
        BOOST_TEST_MESSAGE("rpmbuild or rpm2cpio not installed: RPMs not tested");
        return;
    }
    const auto& t = meta();
    temp_dir work;
    const fs::path a = work.path;
    write_text(a / "demo.spec", "Name: vyre-demo\nVersion: 1.0\nRelease: 1\nSummary: demo\nLicense: MIT\nBuildArch: noarch\n"
                                "%description\nA package made by the tests.\n"
                                "%install\nmkdir -p %{buildroot}/opt\ncp -a " + t.root.string() + " %{buildroot}/opt/demo\n"
                                "%files\n/opt/demo\n");
    for (const char* payload : {"w19.zstdio", "w6.xzdio", "w9.gzdio"}) {
        BOOST_TEST_CONTEXT(payload) {
            const fs::path top = a / (std::string("top_") + payload);
            run("rpmbuild --quiet -bb --define " + q("_topdir " + top.string()) + " --define " +
                q(std::string("_binary_payload ") + payload) + " " + q(a / "demo.spec") + " > /dev/null 2>&1");
            fs::path rpm;
            for (const auto& e : fs::recursive_directory_iterator(top))
                if (e.path().extension() == ".rpm") rpm = e.path();
            BOOST_REQUIRE(!rpm.empty());
            BOOST_CHECK(vyre::format::detect(read_file(rpm)) == vyre::format::content_kind::rpm);
            // The payload is decoded by vyre's own decoders (zstd's engine, the deflate engine,
            // liblzma), then the cpio inside opens in place.
            const fs::path reference = a / (std::string("ref_") + payload);
            fs::create_directories(reference);
            run("cd " + q(reference) + " && rpm2cpio " + q(rpm) + " | cpio --quiet -idm --no-absolute-filenames");
            run("chmod u-s " + q(reference / "opt" / "demo" / "bin" / "suid"));
            if (without_libarchive(dev.ctx(), rpm, "cpio")) return; // the payload is a cpio
            const fs::path out = a / (std::string("out_") + payload);
            const auto r = unpack_clean(dev.ctx(), rpm, out);
            if (std::string(payload).find("zstd") != std::string::npos) BOOST_CHECK_GT(r.zstd_blocks, 0u);
            if (std::string(payload).find("xz") != std::string::npos) BOOST_CHECK_EQUAL(r.library_streams, 1u);
            if (std::string(payload).find("gz") != std::string::npos) BOOST_CHECK_EQUAL(r.deflate_streams, 1u);
            for (const auto& e : r.entries) BOOST_CHECK_MESSAGE(e.path.rfind(rpm.filename().string() + "!/opt/demo", 0) == 0, e.path);
            check_same_extraction(out, reference);
        }
    }
}

VYRE_DEVICE_TEST(cpio_7z_and_iso_extract_like_their_tools) {
    const auto& t = meta();
    temp_dir work;
    const fs::path a = work.path;
    const std::string src = q(t.root);
    for (const char* h : {"newc", "odc", "crc", "bin"}) {
        BOOST_TEST_CONTEXT(h) {
            const fs::path archive = a / (std::string(h) + ".cpio");
            run("cd " + src + " && find . | cpio --quiet -o -H " + std::string(h) + " > " + q(archive));
            if (without_libarchive(dev.ctx(), archive, "cpio")) return;
            const fs::path reference = a / (std::string("ref_") + h);
            fs::create_directories(reference);
            run("cd " + q(reference) + " && cpio --quiet -idm < " + q(archive));
            run("chmod u-s " + q(reference / "bin" / "suid"));
            const fs::path out = a / (std::string("out_") + h);
            unpack_clean(dev.ctx(), archive, out);
            check_same_extraction(out, reference);
        }
    }
    if (seven_zip_works()) {
        run("cd " + src + " && 7z a -bd -bso0 -snl " + q(a / "x.7z") + " . > /dev/null");
        const fs::path reference = a / "ref_7z";
        run("7z x -bd -bso0 -snl -o" + reference.string() + " " + q(a / "x.7z") + " > /dev/null");
        const fs::path out = a / "out_7z";
        unpack_clean(dev.ctx(), a / "x.7z", out);
        check_same_tree(reference, out);
        BOOST_CHECK(read_file(out / "share" / "data.bin") == read_file(t.root / "share" / "data.bin"));
    }
    if (have_tool("genisoimage") && have_tool("bsdtar")) {
        run("genisoimage -quiet -R -o " + q(a / "x.iso") + " " + src);
        const fs::path reference = a / "ref_iso";
        fs::create_directories(reference);
        run("bsdtar -xf " + q(a / "x.iso") + " -C " + q(reference));
        run("chmod u-s " + q(reference / "bin" / "suid"));
        const fs::path out = a / "out_iso";
        unpack_clean(dev.ctx(), a / "x.iso", out);
        check_same_extraction(out, reference);
    }
}

// Content the device keeps is told from the device: by its head, and an ISO 9660 image by the 5
// bytes at iso9660_magic_offset, read back for all such files of a layer at once; the containers
// among them are then read back together for the host to parse. Inside a ZIP (deflated, on the
// device route, kept), x.iso opens and lists its files; a file of the same size without those
// bytes stays a file, on the device.
VYRE_DEVICE_TEST(kept_content_is_told_from_the_device) {
    if (!have_tool("genisoimage") || !have_tool("zip") || !vyre::format::libarchive_available()) {
        BOOST_TEST_MESSAGE("genisoimage, zip or libarchive missing: case skipped");
        return;
    }
    temp_dir work;
    const fs::path a = work.path;
    run("genisoimage -quiet -R -o " + q(a / "x.iso") + " " + q(meta().root));
    const std::uint64_t iso_size = fs::file_size(a / "x.iso");
    BOOST_REQUIRE(iso_size > vyre::format::iso9660_magic_offset + 5);
    write_file(a / "plain.bin", random_bytes(static_cast<std::size_t>(iso_size), 11));
    run("cd " + q(a) + " && zip -q -6 x.zip x.iso plain.bin");
    const bytes zip = read_file(a / "x.zip");
    ve::unpack_options o;
    o.deflate = ve::deflate_route::device;
    o.deflate_device_max_bytes = std::numeric_limits<std::uint64_t>::max();
    o.keep_on_device = true;
    std::map<std::string, bool> seen; // path: whether its content stayed on the device
    o.layer_files = [&](std::span<const ve::unpack_file_view> views) {
        for (const auto& v : views) seen[std::string(v.path)] = v.device != nullptr;
    };
    const std::vector<ve::unpack_input> inputs{{"x.zip", zip}};
    const auto r = ve::unpack(dev.ctx(), inputs, o);
    BOOST_TEST(r.problems.empty(), problems_of(r));
    BOOST_TEST(seen.count("x.zip!/x.iso!/bin/tool") == 1u);
    BOOST_TEST(seen.count("x.zip!/x.iso!/share/data.bin") == 1u);
    if (seen.count("x.zip!/x.iso")) BOOST_TEST(!seen["x.zip!/x.iso"]); // read back to be opened
    BOOST_TEST_REQUIRE(seen.count("x.zip!/plain.bin") == 1u);
    BOOST_TEST(seen["x.zip!/plain.bin"]); // stayed on the device
    BOOST_TEST(r.fetched_bytes == iso_size); // the image alone came back
}

VYRE_DEVICE_TEST(host_codec_limits_and_damage) {
    temp_dir work;
    const fs::path a = work.path;
    // Bombs: 256 MiB of zeros in a few kilobytes, as xz, bzip2 and 7z.
    const bool sevenzip = vyre::format::libarchive_available() && seven_zip_works();
    run("head -c 268435456 /dev/zero > " + q(a / "zeros") + " && xz -k -T1 " + q(a / "zeros") + " && bzip2 -k " + q(a / "zeros"));
    if (sevenzip) run("cd " + q(a) + " && 7z a -bd -bso0 zeros.7z zeros > /dev/null");
    fs::remove(a / "zeros");
    for (const char* name : {"zeros.xz", "zeros.bz2", "zeros.7z"}) {
        if (!sevenzip && std::string(name).ends_with(".7z")) continue;
        BOOST_TEST_CONTEXT(name) {
            const auto r = unpack_files(dev.ctx(), {a / name}, a / (std::string("out_") + name));
            BOOST_REQUIRE_EQUAL(r.problems.size(), 1u);
            BOOST_CHECK(r.problems[0].kind == ve::unpack_status::refused);
            BOOST_CHECK_MESSAGE(first_message(r).find("ratio above the limit") != std::string::npos, first_message(r));
            BOOST_CHECK_LT(r.decoded_bytes, std::uint64_t{64} << 20);
        }
    }
    // The total: a 7z of one file, with --max-total below its size.
    ve::unpack_options small;
    small.limits.max_total_bytes = 100000;
    if (sevenzip) run("cd " + q(meta().root) + " && 7z a -bd -bso0 " + q(a / "meta.7z") + " . > /dev/null");
    if (sevenzip) {
        const auto capped = unpack_files(dev.ctx(), {a / "meta.7z"}, a / "out_capped", small);
        BOOST_CHECK(find_problem(capped, "meta.7z", "total output limit reached"));
        BOOST_CHECK_LE(capped.decoded_bytes, small.limits.max_total_bytes);
    }

    // Damage: a truncated .tar.xz, .tar.bz2 and .7z name the codec once, and nothing is written
    // outside the output folder.
    run("tar -cf - -C " + q(meta().root) + " . | xz > " + q(a / "m.tar.xz"));
    run("tar -cf - -C " + q(meta().root) + " . | bzip2 > " + q(a / "m.tar.bz2"));
    for (const char* name : {"m.tar.xz", "m.tar.bz2", "meta.7z"}) {
        if (!sevenzip && std::string(name).ends_with(".7z")) continue;
        BOOST_TEST_CONTEXT(name) {
            const bytes whole = read_file(a / name);
            const fs::path cut = a / (std::string("cut_") + name);
            write_file(cut, bytes(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(whole.size() * 2 / 3)));
            const auto before = listing(a);
            const auto r = unpack_files(dev.ctx(), {cut}, a / (std::string("out_cut_") + name));
            BOOST_REQUIRE(!r.problems.empty());
            const std::string m = first_message(r);
            const std::string codec = std::string(name).ends_with(".xz") ? "xz" : std::string(name).ends_with(".bz2") ? "bzip2" : "7z";
            BOOST_CHECK_MESSAGE(m.find(codec + ": ") != std::string::npos && m.find(codec + ": " + codec) == std::string::npos, m);
            BOOST_CHECK(r.problems[0].kind == ve::unpack_status::corrupt);
            auto after = listing(a);
            for (auto it = after.begin(); it != after.end();)
                it = it->rfind(std::string("out_cut_") + name, 0) == 0 ? after.erase(it) : std::next(it);
            BOOST_CHECK(after == before);
        }
    }
}

VYRE_DEVICE_TEST(listing_shows_modes_and_times) {
    const auto& t = meta();
    temp_dir work;
    run("tar -cJf " + q(work.path / "m.tar.xz") + " -C " + q(t.root) + " .");
    const auto r = unpack_files(dev.ctx(), {work.path / "m.tar.xz"}, work.path / "out");
    BOOST_CHECK(r.problems.empty());
    struct stat st;
    BOOST_REQUIRE(::stat((t.root / "bin" / "tool").c_str(), &st) == 0);
    bool seen = false;
    for (const auto& e : r.entries) {
        if (e.output_path != "bin/tool") continue;
        seen = true;
        BOOST_CHECK_EQUAL(e.mode, 0755u);
        BOOST_REQUIRE(e.mtime);
        BOOST_CHECK_EQUAL(*e.mtime, static_cast<std::int64_t>(st.st_mtime));
        BOOST_CHECK_EQUAL(e.method, "stored");
    }
    BOOST_CHECK(seen);
    // A ZIP keeps its extended timestamp (UTC), which unzip restores too.
    run("cd " + q(t.root) + " && zip -q -r " + q(work.path / "m.zip") + " bin");
    const auto z = unpack_files(dev.ctx(), {work.path / "m.zip"}, work.path / "zout");
    const auto listed = std::find_if(z.entries.begin(), z.entries.end(), [](const auto& e) { return e.output_path == "bin/tool"; });
    BOOST_REQUIRE(listed != z.entries.end());
    BOOST_CHECK(listed->mtime && *listed->mtime == static_cast<std::int64_t>(st.st_mtime));
    struct stat out;
    BOOST_REQUIRE(::stat((work.path / "zout" / "bin" / "tool").c_str(), &out) == 0);
    BOOST_CHECK_EQUAL(out.st_mtime, st.st_mtime);
}

// ---------------------------------------------------------------- what the established readers accept

VYRE_DEVICE_TEST(inputs_the_established_readers_accept) {
    const auto& t = meta();
    temp_dir work;
    const fs::path a = work.path;
    // A file of skippable frames only decodes to nothing, as `lz4 -d` and `zstd -d` decode it.
    bytes skip = {0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 'm', 'e', 't', 'a', 0x5F, 0x2A, 0x4D, 0x18, 0, 0, 0, 0};
    write_file(a / "meta.lz4", skip);
    run("lz4 -q -dc " + q(a / "meta.lz4") + " > " + q(a / "lz4_out") + " && zstd -q -dc " + q(a / "meta.lz4") + " > " + q(a / "zstd_out"));
    BOOST_REQUIRE_EQUAL(fs::file_size(a / "lz4_out"), 0u);
    const auto r = unpack_clean(dev.ctx(), a / "meta.lz4", a / "out_skip");
    BOOST_CHECK(fs::is_regular_file(a / "out_skip" / "meta") && fs::file_size(a / "out_skip" / "meta") == 0);
    BOOST_CHECK_EQUAL(r.entries.size(), 1u);
    // Data before a ZIP: a JAR behind a launcher script (offsets not adjusted) and a self-extractor
    // whose offsets `zip -A` adjusted; both read as unzip reads them.
    run("cd " + q(t.root) + " && zip -q -r " + q(a / "plain.zip") + " .");
    write_text(a / "launcher.sh", "#!/bin/sh\nexec java -jar \"$0\" \"$@\"\n");
    run("cat " + q(a / "launcher.sh") + " " + q(a / "plain.zip") + " > " + q(a / "app.run"));
    run("cp " + q(a / "app.run") + " " + q(a / "adjusted.run") + " && zip -q -A " + q(a / "adjusted.run"));
    for (const char* name : {"app.run", "adjusted.run"}) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_CHECK(vyre::format::detect(read_file(a / name)) == vyre::format::content_kind::zip);
            const fs::path reference = a / (std::string("ref_") + name);
            run("unzip -q " + q(a / name) + " -d " + q(reference) + " 2>/dev/null || test -d " + q(reference));
            run("chmod u-s " + q(reference / "bin" / "suid"));
            unpack_clean(dev.ctx(), a / name, a / (std::string("out_") + name));
            check_same_extraction(a / (std::string("out_") + name), reference);
        }
    }
    // An Alpine package: three gzip streams one after the other (signature, control, data), the
    // first two tars without their end-of-archive blocks, so that the content reads as one tar.
    const std::string apk = "import gzip, io, sys, tarfile\n"
                            "def segment(name, data, last):\n"
                            "    b = io.BytesIO()\n"
                            "    with tarfile.open(fileobj=b, mode='w', format=tarfile.USTAR_FORMAT) as t:\n"
                            "        i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))\n"
                            "    raw = b.getvalue()\n"
                            "    while not last and raw.endswith(bytes(512)): raw = raw[:-512]\n"
                            "    return gzip.compress(raw)\n"
                            "open(sys.argv[1], 'wb').write(segment('.SIGN.RSA.key.rsa.pub', b'sig', False) +\n"
                            "    segment('.PKGINFO', b'pkgname = demo\\n', False) + segment('usr/bin/tool', b'tool\\n', True))\n";
    write_text(a / "mkapk.py", apk);
    run("python3 " + q(a / "mkapk.py") + " " + q(a / "demo.apk"));
    unpack_clean(dev.ctx(), a / "demo.apk", a / "out_apk");
    BOOST_CHECK(read_file(a / "out_apk" / ".PKGINFO") == text("pkgname = demo\n"));
    BOOST_CHECK(read_file(a / "out_apk" / "usr" / "bin" / "tool") == text("tool\n"));
    BOOST_CHECK(fs::exists(a / "out_apk" / ".SIGN.RSA.key.rsa.pub"));
    // Zero padding after a gzip member (tape blocks) is no problem; the head of a file that merely
    // ends like a ZIP is not taken for one.
    run("gzip -c " + q(t.root / "share" / "doc" / "README") + " > " + q(a / "padded.gz") + " && head -c 1024 /dev/zero >> " + q(a / "padded.gz"));
    unpack_clean(dev.ctx(), a / "padded.gz", a / "out_padded");
    BOOST_CHECK(read_file(a / "out_padded" / "padded") == read_file(t.root / "share" / "doc" / "README"));
    const bytes zip = read_file(a / "plain.zip");
    BOOST_CHECK(vyre::format::detect(std::span(zip).subspan(10), true) == vyre::format::content_kind::zip);
    BOOST_CHECK(vyre::format::detect(std::span(zip).subspan(10), false) == vyre::format::content_kind::unknown);
}

// Bytes after the end of a compressed stream that start no new member or frame: everything
// before them is read, and they are reported as a warning (gzip -d says "trailing garbage
// ignored"; bsdtar and Python's readers ignore them), on the ordinary and the windowed route. Bytes
// that start like a member or frame and are not one are damage. A ZIP followed by junk, and an
// .lzma file written with lc=4 (properties byte 0x5E), are found by their content.
VYRE_DEVICE_TEST(trailing_bytes_after_a_stream_are_ignored_with_a_warning) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    run("tar -cf " + q(a / "x.tar") + " -C " + q(t.root) + " .");
    const auto listed = [](const ve::unpack_report& r) {
        std::map<std::string, std::string> m;
        for (const auto& e : r.entries)
            if (e.status == ve::unpack_status::ok && e.sha256) m[e.output_path] = vyre::util::to_hex(*e.sha256);
        return m;
    };
    const auto plain = listed(unpack_files(dev.ctx(), {a / "x.tar"}, a / "out_plain"));
    BOOST_REQUIRE_GT(plain.size(), 100u);
    struct codec {
        const char* suffix;
        const char* pack;
        const char* name; // as messages name it
    };
    const codec codecs[] = {{"gz", "gzip -c", "gzip"},        {"zst", "zstd -q -c", "zstd"}, {"lz4", "lz4 -q -c", "lz4"},
                            {"xz", "xz -c", "xz"},            {"bz2", "bzip2 -c", "bzip2"},
                            {"lzma", "xz --format=lzma --lzma1=preset=6,lc=4 -c", "lzma"}};
    const std::string junk = "these bytes follow the stream and start nothing\n";
    for (const auto& c : codecs) {
        const fs::path packed = a / (std::string("x.tar.") + c.suffix);
        run(std::string(c.pack) + " " + q(a / "x.tar") + " > " + q(packed));
        bytes with_junk = read_file(packed);
        if (std::string(c.suffix) == "lzma") BOOST_CHECK_EQUAL(int(with_junk[0]), 0x5E);
        with_junk.insert(with_junk.end(), junk.begin(), junk.end());
        const fs::path junked = a / (std::string("junk.tar.") + c.suffix);
        write_file(junked, with_junk);
        for (const std::uint64_t stream_above : {UINT64_MAX, std::uint64_t{0}}) {
            BOOST_TEST_CONTEXT(junked.filename() << (stream_above ? "" : " in windows")) {
                ve::unpack_options o;
                o.stream_above_bytes = stream_above;
                o.window_bytes = 64 << 20; // one window: the tree's hard link stays inside it
                const auto r = unpack_files(dev.ctx(), {junked}, a / ("out_" + junked.filename().string() + std::to_string(stream_above & 1)), o);
                BOOST_CHECK_MESSAGE(r.failures() == 0, problems_of(r));
                BOOST_CHECK_EQUAL(r.warnings(), 1u);
                const std::string m = first_message(r);
                BOOST_CHECK_MESSAGE(m.rfind(std::string(c.name) + ": " + std::to_string(junk.size()) + " byte(s) after the last", 0) == 0, m);
                BOOST_CHECK_MESSAGE(m.find("input byte offset " + std::to_string(with_junk.size() - junk.size())) != std::string::npos, m);
                BOOST_CHECK(listed(r) == plain);
                BOOST_CHECK_EQUAL(r.streamed_archives, stream_above ? 0u : 1u);
            }
        }
    }
    // A second member or frame that starts right and breaks off is damage, not trailing bytes.
    for (const char* suffix : {"gz", "zst", "xz", "bz2"}) {
        BOOST_TEST_CONTEXT("a cut second stream after x.tar." << suffix) {
            bytes twice = read_file(a / (std::string("x.tar.") + suffix));
            twice.insert(twice.end(), twice.begin(), twice.begin() + 64);
            write_file(a / (std::string("cut.tar.") + suffix), twice);
            const auto r = unpack_files(dev.ctx(), {a / (std::string("cut.tar.") + suffix)}, a / (std::string("out_cut_") + suffix));
            BOOST_CHECK_EQUAL(r.warnings(), 0u);
            BOOST_CHECK_MESSAGE(r.corrupt() >= 1, problems_of(r));
        }
    }
    // After the last stream, bytes that begin as a stream would (all of a magic number that is
    // there) are a cut stream: damage, never trailing bytes. So is xz padding that is not a whole
    // number of 4-byte words.
    const std::vector<std::pair<std::string, bytes>> cut_heads = {
        {"gz", {0x1F}}, {"bz2", {'B', 'Z', 'h', '9', 'x', 'y'}}, {"xz", {0xFD, '7', 'z'}}, {"zst", {0x28, 0xB5}},
        {"lz4", {0x04, 0x22, 0x4D}}, {"zst", {0x5E, 0x2A, 0x4D}}, {"xz", {0, 0, 0}}};
    for (const auto& [suffix, head] : cut_heads) {
        BOOST_TEST_CONTEXT("x.tar." << suffix << " and " << head.size() << " bytes that start a stream") {
            bytes b = read_file(a / ("x.tar." + suffix));
            b.insert(b.end(), head.begin(), head.end());
            write_file(a / ("head.tar." + suffix), b);
            for (const std::uint64_t stream_above : {UINT64_MAX, std::uint64_t{0}}) {
                ve::unpack_options o;
                o.stream_above_bytes = stream_above;
                o.window_bytes = 64 << 20;
                const auto r = unpack_files(dev.ctx(), {a / ("head.tar." + suffix)}, a / ("out_head_" + suffix + std::to_string(stream_above & 1)), o);
                BOOST_CHECK_EQUAL(r.warnings(), 0u);
                BOOST_CHECK_MESSAGE(r.corrupt() >= 1, problems_of(r));
            }
        }
    }
    // A ZIP with junk after its end record (and none before): Python's zipfile reads it, and so
    // does detection by content; junk that holds an end record's signature itself is passed over.
    run("cd " + q(t.root) + " && zip -q -r " + q(a / "z.zip") + " linux");
    bytes zip = read_file(a / "z.zip");
    zip.insert(zip.end(), junk.begin(), junk.end());
    const bytes fake_end = {'P', 'K', 5, 6, 0, 0, 0, 0, 1, 0, 1, 0, 46, 0, 0, 0, 9, 0, 0, 0, 0, 0, 'x'};
    zip.insert(zip.end(), fake_end.begin(), fake_end.end());
    write_file(a / "padded.zip", zip);
    BOOST_CHECK(vyre::format::detect(zip) == vyre::format::content_kind::zip);
    const auto z = unpack_clean(dev.ctx(), a / "padded.zip", a / "out_padded_zip");
    BOOST_CHECK_GT(z.entries.size(), 100u);
}

// ZIPs written on Windows: from a DOS-like host (the high byte of "version made by" 0, 6, 11 or
// 14), '\\' separates components and an empty entry with the MS-DOS directory attribute is a
// folder, as unzip and 7-Zip read them; a name with '\\' from a Unix host keeps it as a byte.
VYRE_DEVICE_TEST(zip_names_from_windows_tools) {
    temp_dir work;
    const fs::path a = work.path;
    std::vector<zip_item> items = {entry("docs\\readme.txt", text("read me\n")), entry("empty", {}), entry("..\\evil.txt", text("no\n")),
                                   entry("back\\slash.txt", text("a name\n"))};
    for (int i = 0; i < 3; ++i) items[i].made_by = 0x0014; // MS-DOS, 2.0
    items[0].external = 0x20;                              // archive bit
    items[1].external = 0x10;                              // directory
    items[2].external = 0x20;
    write_file(a / "win.zip", make_zip(items));
    const auto r = unpack_files(dev.ctx(), {a / "win.zip"}, a / "out");
    BOOST_CHECK(read_file(a / "out" / "docs" / "readme.txt") == text("read me\n"));
    BOOST_CHECK(fs::is_directory(a / "out" / "empty"));
    BOOST_CHECK(read_file(a / "out" / "back\\slash.txt") == text("a name\n"));
    BOOST_CHECK_MESSAGE(find_problem(r, "win.zip!/../evil.txt", ".."), problems_of(r));
    BOOST_CHECK_EQUAL(r.problems.size(), 1u);
    BOOST_CHECK(!fs::exists(a / "evil.txt"));
    const auto listed = [&](const std::string& path) {
        return std::any_of(r.entries.begin(), r.entries.end(), [&](const auto& e) { return e.path == path; });
    };
    BOOST_CHECK(listed("win.zip!/docs/readme.txt"));
    BOOST_CHECK(listed("win.zip!/empty"));
    // unzip reads the same names (it warns about the backslashes).
    run("unzip -q " + q(a / "win.zip") + " -d " + q(a / "unzip") + " 2>/dev/null; true");
    BOOST_CHECK(read_file(a / "unzip" / "docs" / "readme.txt") == text("read me\n"));
    BOOST_CHECK(fs::exists(a / "unzip" / "back\\slash.txt"));
}

// ---------------------------------------------------------------- damaged compressed tars

// A compressed tar cut short keeps every entry before the cut, as GNU tar does: whatever the codec
// (and the route: gzip members go to the deflate engine, zstd frames to the zstd engine, LZ4 frames
// to compression.lz4), each file that ends before where the codec's own tool stops decoding is
// extracted whole and equal to the original, nothing else is, the message names the codec once
// and says what was kept, and nothing is written outside the output folder.
VYRE_DEVICE_TEST(truncated_compressed_tars_keep_the_entries_before_the_cut) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    run("tar -cf " + q(a / "x.tar") + " -C " + q(t.root) + " .");
    const bytes tar = read_file(a / "x.tar");
    const auto entries = vyre::format::parse_tar(tar).entries;
    struct codec {
        const char* suffix;
        const char* pack;   // a command reading x.tar, writing to stdout
        const char* unpack; // a command reading stdin, writing what it decoded before failing
        const char* name;   // as messages name it
    };
    const codec codecs[] = {{"gz", "gzip -c", "gzip -dc", "gzip"},          {"zst", "zstd -q -c", "zstd -q -dc", "zstd"},
                            {"lz4", "lz4 -q -B4 -c", "lz4 -q -dc", "LZ4"},      {"xz", "xz -c", "xz -dc", "xz"},
                            {"bz2", "bzip2 -c", "bzip2 -dc", "bzip2"}};
    for (const auto& c : codecs) {
        run(std::string(c.pack) + " " + q(a / "x.tar") + " > " + q(a / (std::string("x.tar.") + c.suffix)));
        const bytes packed = read_file(a / (std::string("x.tar.") + c.suffix));
        for (const double at : {0.3, 0.7, 0.95}) {
            BOOST_TEST_CONTEXT(c.suffix << " cut at " << at) {
                const std::string name = std::string("cut_") + std::to_string(int(at * 100)) + ".tar." + c.suffix;
                write_file(a / name, bytes(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(double(packed.size()) * at)));
                run(std::string(c.unpack) + " < " + q(a / name) + " > " + q(a / "prefix") + " 2>/dev/null || true");
                const std::uint64_t reference = fs::file_size(a / "prefix");
                const fs::path out = a / ("out_" + name);
                const auto before = listing(a);
                const auto r = unpack_files(dev.ctx(), {a / name}, out);
                BOOST_REQUIRE(!r.problems.empty());
                const std::string m = r.problems.front().message;
                BOOST_CHECK_MESSAGE(m.find(std::string(c.name) + ": ") != std::string::npos, m);
                BOOST_CHECK_MESSAGE(m.find(std::string(c.name) + ": " + c.name) == std::string::npos, "codec named twice: " << m);
                if (reference > 0) BOOST_CHECK_MESSAGE(m.find("decoded before the damage are kept") != std::string::npos, m);
                std::size_t expected = 0, got = 0;
                for (const auto& e : entries) {
                    if (e.type != vyre::format::tar_entry_type::regular) continue;
                    const std::string rel = vyre::engine::detail::check_entry_name(e.name).path;
                    // Whole before where the tool stopped (1 KiB of slack: zlib and gzip may stop a
                    // few bytes apart inside the last deflate block).
                    if (e.data_offset + e.size + 1024 <= reference) {
                        ++expected;
                        BOOST_CHECK_MESSAGE(fs::exists(out / rel), rel << " ends before the cut but was not extracted");
                    }
                    if (fs::exists(out / rel)) {
                        ++got;
                        BOOST_CHECK_MESSAGE(read_file(out / rel) == bytes(tar.begin() + static_cast<std::ptrdiff_t>(e.data_offset),
                                                                          tar.begin() + static_cast<std::ptrdiff_t>(e.data_offset + e.size)),
                                            rel << " differs from the original");
                    }
                }
                if (at > 0.5) BOOST_CHECK_GT(expected, 10u);
                BOOST_CHECK_LE(got, expected + 2); // nothing after the cut, beyond the slack's entries
                auto after = listing(a);
                for (auto it = after.begin(); it != after.end();) it = it->rfind("out_" + name, 0) == 0 ? after.erase(it) : std::next(it);
                after.erase("prefix");
                auto was = before;
                was.erase("prefix");
                BOOST_CHECK(after == was);
            }
        }
    }
}

// A flipped bit anywhere in a compressed tar: every entry vyre extracts holds the bytes the codec's
// own tool decoded for it (`gzip -dc`, `zstd -dc`, ... up to where the tool stopped, the damaged
// part included where the codec could not tell), the entries the tool's output holds whole are
// extracted (with slack: where exactly a streaming decoder stops depends on its buffers), each
// run names the codec's damage, and nothing is written outside the output folder. Both routes:
// the ordinary one (the device's or libdeflate's decoders, the library's streaming decoder for
// what they refuse) and windows.
VYRE_DEVICE_TEST(bit_flips_in_compressed_tars_keep_what_the_codec_tool_keeps) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    run("tar -cf " + q(a / "x.tar") + " -C " + q(t.root) + " .");
    // Where each file's bytes start and end in the intact tar.
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> extents;
    {
        const bytes tar = read_file(a / "x.tar");
        for (const auto& e : vyre::format::parse_tar(tar).entries)
            if (e.type == vyre::format::tar_entry_type::regular)
                extents[vyre::engine::detail::check_entry_name(e.name).path] = {e.data_offset, e.data_offset + e.size};
    }
    struct codec {
        const char* suffix;
        const char* pack;
        const char* unpack;
    };
    const codec codecs[] = {{"gz", "gzip -c", "gzip -dc"}, {"zst", "zstd -q -c", "zstd -q -dc"}, {"lz4", "lz4 -q -B4 -c", "lz4 -q -dc"},
                            {"xz", "xz -c", "xz -dc"},     {"bz2", "bzip2 -c", "bzip2 -dc"}};
    for (const auto& c : codecs) {
        run(std::string(c.pack) + " " + q(a / "x.tar") + " > " + q(a / (std::string("x.tar.") + c.suffix)));
        const bytes packed = read_file(a / (std::string("x.tar.") + c.suffix));
        std::size_t kept = 0; // files kept over the flips and routes: the case must have exercised something
        for (const double at : {0.35, 0.75}) {
            const std::string name = std::string("flip_") + std::to_string(int(at * 100)) + ".tar." + c.suffix;
            bytes flipped = packed;
            flipped[static_cast<std::size_t>(double(flipped.size()) * at)] ^= 0x10;
            write_file(a / name, flipped);
            const bool tool_ok = std::system((std::string(c.unpack) + " < " + q(a / name) + " > " + q(a / "prefix") + " 2>/dev/null").c_str()) == 0;
            const bytes prefix = read_file(a / "prefix");
            // The entries the tool's output holds whole, with the bytes it gave them (a header the
            // flip broke ends the list, as it ends any tar reader's).
            std::map<std::string, bytes> theirs;
            vyre::format::tar_archive ta;
            std::span<const std::uint8_t> view(prefix);
            for (int attempt = 0; attempt < 4; ++attempt) {
                try {
                    ta = vyre::format::parse_tar_prefix(view);
                    break;
                } catch (const vyre::format_error& e) {
                    view = view.first(std::min<std::size_t>(view.size(), e.offset() / 512 * 512));
                }
            }
            for (const auto& e : ta.entries)
                if (e.type == vyre::format::tar_entry_type::regular)
                    theirs[vyre::engine::detail::check_entry_name(e.name).path] = bytes(view.begin() + static_cast<std::ptrdiff_t>(e.data_offset),
                                                                                       view.begin() + static_cast<std::ptrdiff_t>(e.data_offset + e.size));
            for (const std::uint64_t stream_above : {UINT64_MAX, std::uint64_t{0}}) {
                BOOST_TEST_CONTEXT(name << (stream_above ? "" : " in windows")) {
                    ve::unpack_options o;
                    o.stream_above_bytes = stream_above;
                    o.window_bytes = 256 << 10;
                    const fs::path out = a / ("out_" + name + (stream_above ? "" : "_windows"));
                    const auto before = listing(a);
                    const auto r = unpack_files(dev.ctx(), {a / name}, out, o);
                    // The tool failed (a checksum, a broken block) where and only where vyre reports damage.
                    BOOST_CHECK_MESSAGE(tool_ok == r.problems.empty(), "the tool " << (tool_ok ? "succeeded" : "failed") << ";" << problems_of(r));
                    // Files both hold: the same bytes. Files one holds alone lie where the two
                    // decoders stopped apart: within 1 MiB of where the tool's output ends (one
                    // file larger than that may be whole in one output and cut in the other).
                    std::uint64_t apart = 0;
                    std::set<std::string> ours;
                    const auto from_the_tools_end = [&](const std::string& path, bool ours_alone, std::uint64_t size) {
                        const auto x = extents.find(path);
                        if (x == extents.end()) return size; // a name the damage made: its size
                        // Ours alone: vyre decoded to the file's end. The tool's alone: vyre stopped after its start.
                        const std::uint64_t at = ours_alone ? x->second.second : x->second.first;
                        return at > prefix.size() ? at - prefix.size() : prefix.size() - at;
                    };
                    for (const auto& e : r.entries) {
                        if (e.type != ve::unpack_entry_type::file || e.status != ve::unpack_status::ok) continue;
                        ours.insert(e.output_path);
                        const auto f = theirs.find(e.output_path);
                        if (f == theirs.end()) apart = std::max(apart, from_the_tools_end(e.output_path, true, e.size));
                        else BOOST_CHECK_MESSAGE(read_file(out / e.output_path) == f->second, e.output_path << " differs from what the tool decoded");
                    }
                    for (const auto& [path, content] : theirs)
                        if (!ours.count(path)) apart = std::max(apart, from_the_tools_end(path, false, content.size()));
                    // bzip2 -dc writes a damaged block's bytes out before libbz2 finds its CRC
                    // wrong; vyre holds a block until its CRC matched, so it stops at the damaged
                    // block's start, up to that block's output before the tool's end.
                    const std::uint64_t withheld = std::string(c.suffix) == "bz2" && prefix.size() > r.decoded_bytes ? prefix.size() - r.decoded_bytes : 0;
                    BOOST_CHECK_MESSAGE(apart <= (std::uint64_t{1} << 20) + withheld, apart << " bytes apart: vyre kept " << ours.size() << " files, the tool's "
                                                                              << prefix.size() << " bytes hold " << theirs.size() << ";" << problems_of(r));
                    kept += ours.size();
                    auto after = listing(a);
                    for (auto it = after.begin(); it != after.end();) it = it->rfind(out.filename().string(), 0) == 0 ? after.erase(it) : std::next(it);
                    BOOST_CHECK(after == before);
                }
            }
        }
        BOOST_CHECK_MESSAGE(kept > 20u, c.suffix << ": " << kept << " files kept in all");
    }
}

// ---------------------------------------------------------------- archives larger than memory

namespace {

// The fields of a listing that must not depend on how the archive was read.
std::string entry_line(const ve::unpack_entry& e) {
    std::string order;
    for (const auto o : e.order) order += std::to_string(o) + ".";
    return e.path + "|" + e.output_path + "|" + ve::unpack_entry_type_name(e.type) + "|" + std::to_string(e.size) + "|" +
           e.method + "|" + e.link_target + "|" + std::to_string(e.mode) + "|" + std::to_string(e.mtime.value_or(-1)) + "|" +
           (e.sha256 ? vyre::util::to_hex(*e.sha256) : "-") + "|" + ve::unpack_status_name(e.status) + "|" + e.message + "|" + order;
}

bool cross_window_link(const std::string& message) { return message.find("a file of an earlier window") != std::string::npos; }

} // namespace

// A compressed tar unpacked in windows (stream_above_bytes 0, windows of 64 KiB) lists and extracts
// what the ordinary run does, entry for entry: orders continue across windows, a global pax header
// (which sets every later entry's time) reaches every window, entries larger than a window and
// long names in pax headers come through whole, a nested gzip'd tar is opened inside its window,
// and a hard link to a file of an earlier window is copied from the file written for it. Listed
// without extracting, such a link is refused, by a message that says why.
VYRE_DEVICE_TEST(tars_unpacked_in_windows_match_the_ordinary_run) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    run("tar -czf " + q(a / "nested.tar.gz") + " -C " + q(meta().root) + " .");
    // Python's tarfile writes the global header ('g') first, then every entry in pax format (whole
    // seconds, so that no entry has a time of its own in its pax header).
    write_text(a / "make.py",
               "import sys, tarfile\n"
               "def whole(i):\n"
               "    i.mtime = int(i.mtime)\n"
               "    return i\n"
               "with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT, pax_headers={'mtime': '1234567890'}) as t:\n"
               "    t.add(sys.argv[2], arcname='tree', filter=whole)\n"
               "    t.add(sys.argv[3], arcname='nested.tar.gz', filter=whole)\n");
    run("python3 " + q(a / "make.py") + " " + q(a / "x.tar") + " " + q(t.root) + " " + q(a / "nested.tar.gz"));
    run("gzip -k " + q(a / "x.tar") + " && zstd -q -k " + q(a / "x.tar") + " && lz4 -q " + q(a / "x.tar") + " " +
        q(a / "x.tar.lz4") + " && xz -k " + q(a / "x.tar") + " && bzip2 -k " + q(a / "x.tar"));
    for (const char* name : {"x.tar.gz", "x.tar.zst", "x.tar.lz4", "x.tar.xz", "x.tar.bz2", "x.tar"}) {
        // A plain tar's entries are at depth 1, a compressed tar's at depth 2 (below its stream).
        const unsigned top = std::string(name) == "x.tar" ? 1 : 2;
        BOOST_TEST_CONTEXT(name) {
            ve::unpack_options whole, windows;
            whole.stream_above_bytes = UINT64_MAX;
            windows.stream_above_bytes = 0;
            windows.window_bytes = 64 << 10;
            const auto w = unpack_files(dev.ctx(), {a / name}, a / ("whole_" + std::string(name)), whole);
            const auto s = unpack_files(dev.ctx(), {a / name}, a / ("windows_" + std::string(name)), windows);
            BOOST_CHECK_EQUAL(w.streamed_archives, 0u);
            BOOST_CHECK_EQUAL(s.streamed_archives, 1u);
            BOOST_CHECK_GT(s.stream_windows, 10u);
            BOOST_CHECK_MESSAGE(w.problems.empty(), problems_of(w));
            BOOST_REQUIRE_EQUAL(w.entries.size(), s.entries.size());
            std::size_t links = 0, timed = 0, nested = 0;
            for (std::size_t i = 0; i < w.entries.size(); ++i) {
                const auto &x = w.entries[i], &y = s.entries[i];
                links += y.type == ve::unpack_entry_type::hard_link && y.status == ve::unpack_status::ok && y.size > 0;
                BOOST_CHECK_EQUAL(entry_line(x), entry_line(y));
                timed += x.depth == top && x.mtime == 1234567890;
                nested += x.depth > top;
            }
            // Of the tree's two hard links, one lies about 1 MB after its target: always another window.
            BOOST_CHECK_EQUAL(links, 2u);
            BOOST_CHECK_MESSAGE(s.problems.empty(), problems_of(s));
            BOOST_CHECK_EQUAL(timed, std::count_if(w.entries.begin(), w.entries.end(), [&](const auto& e) { return e.depth == top; }));
            BOOST_CHECK_GT(nested, 5u);
            BOOST_CHECK_EQUAL(w.containers, s.containers);
            BOOST_CHECK_EQUAL(w.layers, s.layers);
            // Listed only: the link's target is gone with its window, and nothing was written to copy.
            if (top == 2) {
                const bytes in = read_file(a / name);
                const ve::unpack_input input{name, in};
                const auto l = ve::unpack(dev.ctx(), std::span<const ve::unpack_input>(&input, 1), windows);
                BOOST_REQUIRE_EQUAL(l.problems.size(), 1u);
                BOOST_CHECK_MESSAGE(cross_window_link(l.problems[0].message) && contains_text(l.problems[0].message, "writes no files"),
                                    l.problems[0].message);
            }
            // The files on disk: the same.
            const auto lw = listing(a / ("whole_" + std::string(name))), ls = listing(a / ("windows_" + std::string(name)));
            BOOST_CHECK(lw == ls);
            for (const auto& p : ls) {
                const fs::path f = a / ("windows_" + std::string(name)) / p;
                if (fs::is_regular_file(fs::symlink_status(f)))
                    BOOST_CHECK_MESSAGE(read_file(f) == read_file(a / ("whole_" + std::string(name)) / p), p << " differs");
            }
        }
    }
    // A ZIP of the same tree and the nested tar in windows of consecutive entries: the same
    // listing, files and counts as the ordinary run (a ZIP has no hard links to refuse).
    run("cd " + q(t.root) + " && zip -q -r -y " + q(a / "x.zip") + " . && zip -q -j " + q(a / "x.zip") + " " + q(a / "nested.tar.gz"));
    {
        ve::unpack_options whole, windows;
        whole.stream_above_bytes = UINT64_MAX;
        windows.stream_above_bytes = 0;
        windows.window_bytes = 64 << 10;
        const auto w = unpack_files(dev.ctx(), {a / "x.zip"}, a / "whole_x.zip", whole);
        const auto s = unpack_files(dev.ctx(), {a / "x.zip"}, a / "windows_x.zip", windows);
        BOOST_CHECK_EQUAL(w.streamed_archives, 0u);
        BOOST_CHECK_EQUAL(s.streamed_archives, 1u);
        BOOST_CHECK_GT(s.stream_windows, 10u);
        BOOST_CHECK_MESSAGE(w.problems.empty(), problems_of(w));
        BOOST_CHECK_MESSAGE(s.problems.empty(), problems_of(s));
        BOOST_REQUIRE_EQUAL(w.entries.size(), s.entries.size());
        std::size_t nested = 0;
        for (std::size_t i = 0; i < w.entries.size(); ++i) {
            BOOST_CHECK_EQUAL(entry_line(w.entries[i]), entry_line(s.entries[i]));
            nested += w.entries[i].depth > 1;
        }
        BOOST_CHECK_GT(nested, 5u);
        BOOST_CHECK_EQUAL(w.containers, s.containers);
        BOOST_CHECK_EQUAL(w.layers, s.layers);
        BOOST_CHECK_EQUAL(w.decoded_bytes, s.decoded_bytes);
        const auto lw = listing(a / "whole_x.zip"), ls = listing(a / "windows_x.zip");
        BOOST_CHECK(lw == ls);
        for (const auto& p : ls) {
            const fs::path f = a / "windows_x.zip" / p;
            if (fs::is_regular_file(fs::symlink_status(f)))
                BOOST_CHECK_MESSAGE(read_file(f) == read_file(a / "whole_x.zip" / p), p << " differs");
        }
    }
    // Damage. A cut keeps the entries before it, each with its original bytes, as the ordinary
    // run keeps them. A flipped byte keeps entries too and says what failed where, but which:
    // libzstd may emit a corrupted block before it finds the damage (at the frame's checksum, at
    // worst), and how far it gets depends on its output buffer's size.
    const bytes zst = read_file(a / "x.tar.zst");
    bytes flipped = zst;
    flipped[flipped.size() * 2 / 3] ^= 0x40;
    write_file(a / "flipped.tar.zst", flipped);
    write_file(a / "cut.tar.zst", bytes(zst.begin(), zst.begin() + static_cast<std::ptrdiff_t>(zst.size() / 2)));
    ve::unpack_options whole, windows;
    whole.stream_above_bytes = UINT64_MAX;
    windows.stream_above_bytes = 0;
    windows.window_bytes = 64 << 10;
    std::map<std::string, std::string> intact; // output path -> the undamaged archive's SHA-256
    for (const auto& e : unpack_files(dev.ctx(), {a / "x.tar.zst"}, a / "intact", whole).entries)
        if (e.sha256) intact[e.output_path] = vyre::util::to_hex(*e.sha256);
    for (const char* name : {"flipped.tar.zst", "cut.tar.zst"}) {
        BOOST_TEST_CONTEXT(name) {
            const auto w = unpack_files(dev.ctx(), {a / name}, a / ("whole_" + std::string(name)), whole);
            const auto s = unpack_files(dev.ctx(), {a / name}, a / ("windows_" + std::string(name)), windows);
            const auto* p = find_problem(s, name, "zstd: ");
            BOOST_REQUIRE_MESSAGE(p, problems_of(s));
            BOOST_CHECK_MESSAGE(contains_text(p->message, "byte offset") && contains_text(p->message, "decoded before the damage are kept"),
                                p->message);
            std::set<std::string> ok_w, ok_s;
            for (const auto& e : w.entries)
                if (e.status == ve::unpack_status::ok && e.type == ve::unpack_entry_type::file) ok_w.insert(entry_line(e));
            for (const auto& e : s.entries)
                if (e.status == ve::unpack_status::ok && e.type == ve::unpack_entry_type::file) {
                    ok_s.insert(entry_line(e));
                    if (std::string(name) == "cut.tar.zst")
                        BOOST_CHECK_MESSAGE(e.sha256 && intact[e.output_path] == vyre::util::to_hex(*e.sha256), e.output_path << " differs from the original");
                }
            BOOST_CHECK_GT(ok_s.size(), 10u);
            if (std::string(name) == "cut.tar.zst") BOOST_CHECK(ok_w == ok_s);
        }
    }
}

// A tar in one zstd frame unpacked in windows (of 64 KiB, so that the device, too, decodes many
// windows and its three buffers go round): on every zstd route the listing, the problems and the
// files are the ordinary run's, the hard link across windows included, and the device route says
// it decoded there. Damage: the device stops at the window it cannot decode and the host decoder
// goes on from what the device gave. libzstd holds back a block or more of its output, so the
// device keeps more: every block before the damaged one. What is kept includes all that the host
// decoder keeps, and the problem names the damage at its byte offset. A frame cut short is not one
// whole frame: the host decodes it, as with the host route.
VYRE_DEVICE_TEST(one_frame_tars_in_windows_decode_on_the_device) {
    const auto& t = tree();
    temp_dir work;
    const fs::path a = work.path;
    run("tar -cf " + q(a / "x.tar") + " -C " + q(t.root) + " . && zstd -q -T0 -k " + q(a / "x.tar"));
    ve::unpack_options whole, windows;
    whole.stream_above_bytes = UINT64_MAX;
    windows.stream_above_bytes = 0;
    windows.window_bytes = 64 << 10;
    const auto w = unpack_files(dev.ctx(), {a / "x.tar.zst"}, a / "whole", whole);
    BOOST_CHECK_EQUAL(w.streamed_archives, 0u);
    BOOST_CHECK_MESSAGE(w.problems.empty(), problems_of(w));
    std::vector<std::size_t> links;
    for (std::size_t i = 0; i < w.entries.size(); ++i)
        if (w.entries[i].type == ve::unpack_entry_type::hard_link) links.push_back(i);
    BOOST_REQUIRE(!links.empty());
    for (const ve::zstd_route route : {ve::zstd_route::host, ve::zstd_route::device, ve::zstd_route::automatic}) {
        const std::string out = "windows_" + std::to_string(static_cast<int>(route));
        BOOST_TEST_CONTEXT(out) {
            ve::unpack_options o = windows;
            o.zstd = route;
            const auto s = unpack_files(dev.ctx(), {a / "x.tar.zst"}, a / out, o);
            BOOST_CHECK_EQUAL(s.streamed_archives, 1u);
            BOOST_CHECK_GT(s.stream_windows, 10u);
            BOOST_CHECK_MESSAGE(s.problems.empty(), problems_of(s));
            if (route == ve::zstd_route::host) BOOST_CHECK_EQUAL(s.zstd_dispatches, 0u);
            if (route == ve::zstd_route::device) BOOST_CHECK_GT(s.zstd_dispatches, 10u);
            if (route == ve::zstd_route::device) BOOST_CHECK_GT(s.zstd_blocks, 0u);
            BOOST_REQUIRE_EQUAL(w.entries.size(), s.entries.size());
            for (std::size_t i = 0; i < w.entries.size(); ++i) BOOST_CHECK_EQUAL(entry_line(w.entries[i]), entry_line(s.entries[i]));
            for (const std::size_t i : links) BOOST_CHECK(s.entries[i].status == ve::unpack_status::ok && s.entries[i].size > 0);
            BOOST_CHECK_EQUAL(w.containers, s.containers);
            BOOST_CHECK_EQUAL(w.layers, s.layers);
            const auto lw = listing(a / "whole"), ls = listing(a / out);
            BOOST_CHECK(lw == ls);
            for (const auto& p : ls) {
                const fs::path f = a / out / p;
                if (fs::is_regular_file(fs::symlink_status(f)))
                    BOOST_CHECK_MESSAGE(read_file(f) == read_file(a / "whole" / p), p << " differs");
            }
        }
    }
    // Damage: a byte flipped late in the frame that only the checksum finds; one that breaks a block
    // (the first such place from two thirds in, as libzstd tells); the frame cut short.
    const bytes zst = read_file(a / "x.tar.zst");
    const auto flip = [&](std::size_t at) {
        bytes f = zst;
        f[at] ^= 0x40;
        return f;
    };
    const auto libzstd_error = [&](const bytes& f) {
        bytes out(std::size_t{64} << 20);
        const std::size_t n = ZSTD_decompress(out.data(), out.size(), f.data(), f.size());
        return ZSTD_isError(n) ? ZSTD_getErrorCode(n) : ZSTD_error_no_error;
    };
    std::size_t late = zst.size() * 3 / 4, broken = zst.size() * 2 / 3;
    while (late < zst.size() - 16 && libzstd_error(flip(late)) != ZSTD_error_checksum_wrong) ++late;
    while (broken < zst.size() - 16 &&
           (ZSTD_findFrameCompressedSize(zst.data(), zst.size()) != zst.size() ||
            libzstd_error(flip(broken)) == ZSTD_error_checksum_wrong || libzstd_error(flip(broken)) == ZSTD_error_no_error ||
            ZSTD_findFrameCompressedSize(flip(broken).data(), zst.size()) != zst.size()))
        ++broken;
    BOOST_REQUIRE_LT(late, zst.size() - 16);
    BOOST_REQUIRE_LT(broken, zst.size() - 16);
    write_file(a / "flipped.tar.zst", flip(late));
    write_file(a / "broken.tar.zst", flip(broken));
    write_file(a / "cut.tar.zst", bytes(zst.begin(), zst.begin() + static_cast<std::ptrdiff_t>(zst.size() * 3 / 4)));
    ve::unpack_options host_stream = windows;
    host_stream.zstd = ve::zstd_route::host;
    for (const char* name : {"flipped.tar.zst", "broken.tar.zst", "cut.tar.zst"}) {
        BOOST_TEST_CONTEXT(name) {
            const std::string n = name;
            ve::unpack_options o = windows;
            o.zstd = ve::zstd_route::device;
            const auto h = unpack_files(dev.ctx(), {a / name}, a / ("host_" + std::string(name)), host_stream);
            const auto d = unpack_files(dev.ctx(), {a / name}, a / ("device_" + std::string(name)), o);
            BOOST_REQUIRE_MESSAGE(!h.problems.empty(), name);
            const auto* p = find_problem(d, name, "zstd: ");
            BOOST_REQUIRE_MESSAGE(p, problems_of(d));
            BOOST_CHECK_MESSAGE(contains_text(p->message, "byte offset") && contains_text(p->message, "decoded before the damage are kept"),
                                p->message);
            BOOST_CHECK_EQUAL(d.streamed_archives, 1u);
            if (n != "cut.tar.zst") BOOST_CHECK_GT(d.zstd_dispatches, 0u);
            if (n == "broken.tar.zst") BOOST_CHECK_MESSAGE(contains_text(p->message, "block "), p->message); // the device's words
            if (n == "cut.tar.zst") {
                BOOST_CHECK_EQUAL(d.zstd_dispatches, 0u);
                BOOST_CHECK_EQUAL(problems_of(h), problems_of(d));
                BOOST_REQUIRE_EQUAL(h.entries.size(), d.entries.size());
                for (std::size_t i = 0; i < h.entries.size(); ++i) BOOST_CHECK_EQUAL(entry_line(h.entries[i]), entry_line(d.entries[i]));
            }
            // Everything the host's run keeps, this one keeps the same.
            std::map<std::string, std::string> kept;
            for (const auto& e : d.entries)
                if (e.status == ve::unpack_status::ok) kept[e.path] = entry_line(e);
            std::size_t both = 0;
            for (const auto& e : h.entries)
                if (e.status == ve::unpack_status::ok) {
                    const auto k = kept.find(e.path);
                    BOOST_CHECK_MESSAGE(k != kept.end() && k->second == entry_line(e), e.path << " kept by the host's run only, or otherwise");
                    ++both;
                }
            BOOST_CHECK_GT(both, 10u);
        }
    }
}

// The windows' edges, on tars written by hand: a global pax header that follows an extension
// header at a window's cut (once written past the buffer's end), a thousand global headers (one
// header carries them all), a stream whose tail after the tar passes the ratio limit (refused, the
// entries kept), zero padding after a gzip member (no damage), an entry larger than what the total
// limit leaves (refused, nothing else lost).
VYRE_DEVICE_TEST(windows_carry_global_headers_and_bound_what_they_decode) {
    namespace vt = vyre::test;
    temp_dir work;
    const fs::path a = work.path;
    const auto record = [](const std::string& key, const std::string& value) {
        const std::string body = " " + key + "=" + value + "\n";
        std::size_t n = body.size() + 1;
        while (std::to_string(n).size() + body.size() != n) ++n;
        return std::to_string(n) + body;
    };
    bytes tar;
    vt::tar_append(tar, "first.txt", '0', text("first\n"));
    vt::tar_append(tar, "PaxHeaders/big", 'x', text(record("path", "renamed/big.bin")));
    vt::tar_append(tar, "GlobalHead", 'g', text(record("comment", std::string(8000, 'c')) + record("mtime", "1111111111")));
    const bytes big = random_bytes(200000, 5);
    vt::tar_append(tar, "big.bin", '0', big);
    for (int g = 0; g < 1000; ++g) {
        vt::tar_append(tar, "GlobalHead", 'g', text(record("uname", "user" + std::to_string(g))));
        vt::tar_append(tar, "small" + std::to_string(g) + ".txt", '0', text(std::to_string(g)));
    }
    vt::tar_finish(tar);
    write_file(a / "h.tar", tar);
    run("zstd -q -k " + q(a / "h.tar") + " && gzip -k " + q(a / "h.tar") + " && cat " + q(a / "h.tar.gz") + " > " + q(a / "padded.tar.gz") +
        " && head -c 4096 /dev/zero >> " + q(a / "padded.tar.gz"));
    ve::unpack_options whole, windows;
    whole.stream_above_bytes = UINT64_MAX;
    windows.stream_above_bytes = 0;
    windows.window_bytes = 16 << 10; // the first window holds first.txt, the 'x' and the whole 'g', not big.bin
    for (const char* name : {"h.tar.zst", "padded.tar.gz"}) {
        BOOST_TEST_CONTEXT(name) {
            const auto w = unpack_files(dev.ctx(), {a / name}, a / ("whole_" + std::string(name)), whole);
            const auto s = unpack_files(dev.ctx(), {a / name}, a / ("windows_" + std::string(name)), windows);
            BOOST_CHECK_MESSAGE(s.problems.empty(), problems_of(s));
            BOOST_CHECK_GT(s.stream_windows, 100u);
            BOOST_REQUIRE_EQUAL(w.entries.size(), s.entries.size());
            BOOST_REQUIRE_EQUAL(s.entries.size(), 1002u);
            for (std::size_t i = 0; i < w.entries.size(); ++i) BOOST_CHECK_EQUAL(entry_line(w.entries[i]), entry_line(s.entries[i]));
            BOOST_CHECK_EQUAL(s.entries[1].path, std::string(name) + "!/renamed/big.bin");
            BOOST_CHECK(s.entries[1].mtime == 1111111111);
            BOOST_CHECK(s.entries[1001].mtime == 1111111111);
        }
    }
    // The ratio limit: the tar, then a megabyte of zeros per byte of input, and more (zstd's RLE blocks).
    {
        std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> c(ZSTD_createCCtx(), &ZSTD_freeCCtx);
        bytes content = tar;
        content.resize(content.size() + (std::size_t{256} << 20), 0);
        bytes packed(ZSTD_compressBound(content.size()));
        packed.resize(ZSTD_compressCCtx(c.get(), packed.data(), packed.size(), content.data(), content.size(), 19));
        write_file(a / "tail.tar.zst", packed);
        ve::unpack_options o = windows;
        o.window_bytes = 1 << 20;
        const auto s = unpack_files(dev.ctx(), {a / "tail.tar.zst"}, a / "windows_tail", o);
        BOOST_REQUIRE_MESSAGE(!s.problems.empty(), packed.size() << " bytes decode to " << content.size());
        BOOST_CHECK(s.problems.front().kind == ve::unpack_status::refused);
        BOOST_CHECK_MESSAGE(contains_text(s.problems.front().message, "decompression ratio above the limit"), s.problems.front().message);
        BOOST_CHECK_EQUAL(s.entries.size(), 1002u);
    }
    // An entry larger than what the total limit leaves: refused, with the entries before it kept.
    {
        ve::unpack_options o = windows;
        o.limits.max_total_bytes = 64 << 10;
        const auto s = unpack_files(dev.ctx(), {a / "h.tar.zst"}, a / "windows_small_total", o);
        BOOST_REQUIRE(!s.problems.empty());
        BOOST_CHECK_MESSAGE(contains_text(s.problems.front().message, "a tar entry longer than"), problems_of(s));
        BOOST_CHECK_EQUAL(s.entries.size(), 1u);
    }
}

namespace {

// A zstd stream of a tar of `files` files of 4 MiB (a 64 KiB random block repeated, its first
// bytes the file's number), written piece by piece: megabytes for gigabytes of content.
bytes big_tar_zst(std::size_t files) {
    const bytes block = random_bytes(64 << 10, 11);
    std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> c(ZSTD_createCCtx(), &ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(c.get(), ZSTD_c_compressionLevel, 1);
    bytes out(ZSTD_CStreamOutSize());
    bytes packed;
    const auto put = [&](std::span<const std::uint8_t> in, ZSTD_EndDirective end) {
        ZSTD_inBuffer src{in.data(), in.size(), 0};
        for (;;) {
            ZSTD_outBuffer dst{out.data(), out.size(), 0};
            const std::size_t left = ZSTD_compressStream2(c.get(), &dst, &src, end);
            BOOST_REQUIRE(!ZSTD_isError(left));
            packed.insert(packed.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(dst.pos));
            if (end == ZSTD_e_end ? left == 0 : src.pos == src.size) break;
        }
    };
    for (std::size_t f = 0; f < files; ++f) {
        bytes header;
        vyre::test::tar_append(header, "data/" + std::to_string(f) + ".bin", '0', {});
        vyre::test::put_octal(header, 124, 12, std::uint64_t{4} << 20);
        vyre::test::tar_set_checksum(header, 0);
        put(header, ZSTD_e_continue);
        bytes b = block;
        std::memcpy(b.data(), &f, sizeof f);
        for (int k = 0; k < 64; ++k) put(b, ZSTD_e_continue);
    }
    put(bytes(1024, 0), ZSTD_e_end);
    return packed;
}

// A plain tar of `files` entries of 4 MiB as a sparse file: the headers are written, the content
// is left as holes (it reads as zeros), so that gigabytes of tar take no disk.
fs::path big_sparse_tar(const fs::path& dir, std::size_t files) {
    const fs::path path = dir / ("sparse" + std::to_string(files) + ".tar");
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    BOOST_REQUIRE(fd >= 0);
    constexpr std::uint64_t content = std::uint64_t{4} << 20, stride = content + 512;
    for (std::size_t f = 0; f < files; ++f) {
        bytes header;
        vyre::test::tar_append(header, "data/" + std::to_string(f) + ".bin", '0', {});
        vyre::test::put_octal(header, 124, 12, content);
        vyre::test::tar_set_checksum(header, 0);
        BOOST_REQUIRE(::pwrite(fd, header.data(), 512, static_cast<off_t>(f * stride)) == 512);
    }
    BOOST_REQUIRE(::ftruncate(fd, static_cast<off_t>(files * stride + 1024)) == 0); // the end-of-archive blocks, zeros too
    ::close(fd);
    return path;
}

// A ZIP of `files` deflate entries, each 4 MiB of zeros (a few KiB compressed): gigabytes of
// content from a few MiB of input.
bytes big_deflate_zip(std::size_t files) {
    const bytes zeros(std::size_t{4} << 20, 0);
    libdeflate_compressor* c = libdeflate_alloc_compressor(6);
    bytes packed(libdeflate_deflate_compress_bound(c, zeros.size()));
    packed.resize(libdeflate_deflate_compress(c, zeros.data(), zeros.size(), packed.data(), packed.size()));
    libdeflate_free_compressor(c);
    const std::uint32_t crc = libdeflate_crc32(0, zeros.data(), zeros.size());
    bytes out, central;
    for (std::size_t f = 0; f < files; ++f) {
        const std::string name = "data/" + std::to_string(f) + ".bin";
        const auto offset = static_cast<std::uint32_t>(out.size());
        const auto header = [&](bytes& b, bool local) {
            put32(b, local ? 0x04034B50 : 0x02014B50);
            if (!local) put16(b, 0x031E);
            for (const std::uint32_t v : {20u, 0u, 8u, 0u, 0x21u}) put16(b, v);
            put32(b, crc);
            put32(b, static_cast<std::uint32_t>(packed.size()));
            put32(b, static_cast<std::uint32_t>(zeros.size()));
            put16(b, static_cast<std::uint32_t>(name.size()));
            put16(b, 0);
            if (!local) {
                for (int k = 0; k < 3; ++k) put16(b, 0);
                put32(b, 0100644u << 16);
                put32(b, offset);
            }
            b.insert(b.end(), name.begin(), name.end());
        };
        header(out, true);
        out.insert(out.end(), packed.begin(), packed.end());
        header(central, false);
    }
    const auto cd_offset = static_cast<std::uint32_t>(out.size()), cd_size = static_cast<std::uint32_t>(central.size());
    out.insert(out.end(), central.begin(), central.end());
    put32(out, 0x06054B50);
    put32(out, 0);
    put16(out, static_cast<std::uint32_t>(files));
    put16(out, static_cast<std::uint32_t>(files));
    put32(out, cd_size);
    put32(out, cd_offset);
    put16(out, 0);
    return out;
}

// A file mapped read-only, as `vyre unpack` maps its inputs.
struct mapped_input {
    std::span<const std::uint8_t> bytes;
    explicit mapped_input(const fs::path& path) {
        const int fd = ::open(path.c_str(), O_RDONLY);
        BOOST_REQUIRE(fd >= 0);
        const auto size = static_cast<std::size_t>(fs::file_size(path));
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        BOOST_REQUIRE(p != MAP_FAILED);
        bytes = {static_cast<const std::uint8_t*>(p), size};
    }
    ~mapped_input() { ::munmap(const_cast<std::uint8_t*>(bytes.data()), bytes.size()); }
    mapped_input(const mapped_input&) = delete;
    mapped_input& operator=(const mapped_input&) = delete;
};

// The most resident memory (VmHWM) a child process reached above what it held when it started,
// running engine::unpack on `input` (listing only): in bytes, or nullopt under AddressSanitizer.
std::optional<std::uint64_t> peak_growth_of_unpack(vyre::runtime::context& ctx, const ve::unpack_input& in, const ve::unpack_options& o) {
    if constexpr (vyre::test::under_address_sanitizer) return std::nullopt;
    const auto kib = [](const char* field) {
        std::ifstream status("/proc/self/status");
        for (std::string line; std::getline(status, line);)
            if (line.rfind(field, 0) == 0) return std::strtoull(line.c_str() + std::strlen(field), nullptr, 10);
        return 0ull;
    };
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    std::fflush(nullptr);
    const pid_t child = ::fork();
    BOOST_REQUIRE(child >= 0);
    if (child == 0) {
        ::close(fds[0]);
        ::malloc_trim(0); // what the parent freed stays resident otherwise, and would be reused unseen
        const unsigned long long start = kib("VmRSS:");
        const auto r = ve::unpack(ctx, std::span<const ve::unpack_input>(&in, 1), o);
        const unsigned long long grown = (kib("VmHWM:") - start) << 10;
        const std::string line = std::to_string(grown) + " " + std::to_string(r.entries.size()) + " " +
                                 std::to_string(r.problems.size()) + " " + std::to_string(r.stream_windows) + "\n";
        if (::write(fds[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(2);
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string text;
    char buf[256];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int st = 0;
    BOOST_REQUIRE(::waitpid(child, &st, 0) == child);
    BOOST_REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    unsigned long long grown = 0, entries = 0, problems = 0, windows = 0;
    BOOST_REQUIRE(std::sscanf(text.c_str(), "%llu %llu %llu %llu", &grown, &entries, &problems, &windows) == 4);
    BOOST_TEST_MESSAGE(in.bytes.size() << " bytes of " << in.name << ": " << entries << " entries in " << windows << " windows, resident memory grew by "
                                    << (grown >> 20) << " MiB");
    BOOST_CHECK_EQUAL(problems, 0u);
    BOOST_CHECK_GT(windows, 8u);
    return grown;
}

} // namespace

// Archives larger than memory: a streamed .tar.zst, a plain tar (a mapped file, as `vyre unpack`
// maps it) and a ZIP of deflate entries, each of 1 GiB and of 3 GiB (content), are listed with
// windows of 32 MiB, and the resident memory the run adds stays under the stated bound, 160 MiB
// (the window, the bytes carried into the next one, libzstd's state and the listing), and does
// not grow with the archive (within 32 MiB between the two).
VYRE_DEVICE_TEST(streamed_archives_hold_a_window_not_the_archive) {
    ve::unpack_options o;
    o.stream_above_bytes = 0;
    o.window_bytes = 32 << 20;
    o.limits.max_ratio = 1000000; // the content is a repeated block: far above the default ratio
    o.deflate = ve::deflate_route::host; // the route is not what is measured here
    o.zstd = ve::zstd_route::host;       // (and the child of fork() below must not use a GPU's driver)
    temp_dir work;
    const mapped_input tar_small(big_sparse_tar(work.path, 256)), tar_large(big_sparse_tar(work.path, 768));
    const bytes zst_small = big_tar_zst(256), zst_large = big_tar_zst(768);
    const bytes zip_small = big_deflate_zip(256), zip_large = big_deflate_zip(768);
    const std::vector<std::pair<ve::unpack_input, ve::unpack_input>> cases = {
        {{"big.tar.zst", zst_small}, {"big.tar.zst", zst_large}},
        {{"big.tar", tar_small.bytes, true}, {"big.tar", tar_large.bytes, true}},
        {{"big.zip", zip_small}, {"big.zip", zip_large}},
    };
    for (const auto& [in_small, in_large] : cases) {
        BOOST_TEST_CONTEXT(in_small.name) {
            const auto small = peak_growth_of_unpack(dev.ctx(), in_small, o);
            const auto large = peak_growth_of_unpack(dev.ctx(), in_large, o);
            if (!small || !large) {
                BOOST_TEST_MESSAGE("under AddressSanitizer: resident memory is not measured");
                return;
            }
            BOOST_CHECK_LT(*small, std::uint64_t{160} << 20);
            BOOST_CHECK_LT(*large, std::uint64_t{160} << 20);
            BOOST_CHECK_LT(*large, *small + (std::uint64_t{32} << 20));
        }
    }
}

// ---------------------------------------------------------------- container images

namespace {

// Three layers as a container build leaves them: a base, then a layer that deletes a file
// (.wh.NAME), empties a folder (.wh..wh..opq) while adding to it, and replaces a file with a
// link, then a layer that turns a file into a folder. `final` is the filesystem they give.
struct image_layers {
    temp_dir tmp;
    std::vector<fs::path> tars; // layer.tar of each, bottom first
    fs::path final_tree;
    image_layers() {
        const fs::path l1 = tmp.path / "l1", l2 = tmp.path / "l2", l3 = tmp.path / "l3", f = tmp.path / "final";
        for (const auto& d : {l1 / "etc", l1 / "app" / "old", l1 / "bin", l2 / "etc", l2 / "app", l2 / "bin", l3 / "etc" / "conf",
                              f / "etc" / "conf", f / "app", f / "bin"})
            fs::create_directories(d);
        write_text(l1 / "etc" / "passwd", "root:x:0:0\n");
        write_text(l1 / "etc" / "secret", "to be deleted\n");
        write_text(l1 / "etc" / "conf", "a file, then a folder\n");
        write_text(l1 / "app" / "old" / "a.py", "old\n");
        write_text(l1 / "app" / "keep_me_not", "emptied by the opaque marker\n");
        write_text(l1 / "bin" / "sh", "a shell\n");
        write_text(l2 / "etc" / ".wh.secret", "");
        write_text(l2 / "app" / ".wh..wh..opq", "");
        write_text(l2 / "app" / "new.py", "new\n");
        fs::create_symlink("busybox", l2 / "bin" / "sh");
        write_text(l2 / "bin" / "busybox", "busybox\n");
        write_text(l3 / "etc" / "conf" / "x.conf", "now a folder\n");
        // What the layers give.
        write_text(f / "etc" / "passwd", "root:x:0:0\n");
        write_text(f / "etc" / "conf" / "x.conf", "now a folder\n");
        write_text(f / "app" / "new.py", "new\n");
        fs::create_symlink("busybox", f / "bin" / "sh");
        write_text(f / "bin" / "busybox", "busybox\n");
        final_tree = f;
        for (const auto& l : {l1, l2, l3}) {
            tars.push_back(tmp.path / (l.filename().string() + ".tar"));
            run("tar -cf " + q(tars.back()) + " -C " + q(l) + " .");
        }
    }
};

std::string sha256_hex(const bytes& b) { return vyre::util::to_hex(vyre::util::sha256_of(b)); }

} // namespace

VYRE_DEVICE_TEST(container_images_flatten_with_whiteouts) {
    image_layers layers;
    temp_dir work;
    const fs::path a = work.path;
    // docker save before Docker 25: <id>/layer.tar and manifest.json. The middle layer is gzip'd.
    const fs::path legacy = a / "legacy";
    std::string list;
    for (std::size_t i = 0; i < layers.tars.size(); ++i) {
        const std::string id = std::string(64, static_cast<char>('a' + i));
        fs::create_directories(legacy / id);
        if (i == 1) run("gzip -c " + q(layers.tars[i]) + " > " + q(legacy / id / "layer.tar"));
        else fs::copy_file(layers.tars[i], legacy / id / "layer.tar");
        list += std::string(i ? "," : "") + "\"" + id + "/layer.tar\"";
    }
    write_text(legacy / "manifest.json", "[{\"Config\":\"c.json\",\"RepoTags\":[\"demo:1\"],\"Layers\":[" + list + "]}]");
    // The config's diff_ids: each layer.tar's SHA-256, as Docker records them.
    std::string diff_ids;
    for (std::size_t i = 0; i < layers.tars.size(); ++i)
        diff_ids += std::string(i ? "," : "") + "\"sha256:" + sha256_hex(read_file(legacy / std::string(64, static_cast<char>('a' + i)) / "layer.tar")) + "\"";
    write_text(legacy / "c.json", "{\"architecture\":\"amd64\",\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[" + diff_ids + "]}}");
    run("tar -cf " + q(a / "legacy.tar") + " -C " + q(legacy) + " .");
    // An OCI archive: index.json -> manifest blob -> layer blobs by digest (the last zstd'd).
    const fs::path oci = a / "oci";
    fs::create_directories(oci / "blobs" / "sha256");
    std::string layer_list;
    for (std::size_t i = 0; i < layers.tars.size(); ++i) {
        bytes blob = read_file(layers.tars[i]);
        if (i == 2) {
            run("zstd -q -c " + q(layers.tars[i]) + " > " + q(a / "l3.tar.zst"));
            blob = read_file(a / "l3.tar.zst");
        }
        const std::string hex = sha256_hex(blob);
        write_file(oci / "blobs" / "sha256" / hex, blob);
        layer_list += std::string(i ? "," : "") + "{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\"sha256:" + hex +
                      "\",\"size\":" + std::to_string(blob.size()) + "}";
    }
    const std::string manifest = "{\"schemaVersion\":2,\"layers\":[" + layer_list + "]}";
    const std::string manifest_hex = sha256_hex(text(manifest));
    write_text(oci / "blobs" / "sha256" / manifest_hex, manifest);
    write_text(oci / "index.json", "{\"schemaVersion\":2,\"manifests\":[{\"digest\":\"sha256:" + manifest_hex +
                                       "\",\"annotations\":{\"org.opencontainers.image.ref.name\":\"demo:1\"}}]}");
    write_text(oci / "oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}");
    run("tar -cf " + q(a / "oci.tar") + " -C " + q(oci) + " .");

    for (const char* name : {"legacy.tar", "oci.tar"}) {
        BOOST_TEST_CONTEXT(name) {
            const bytes image = read_file(a / name);
            const auto layout = vyre::format::image_layers_of(image, vyre::format::parse_tar(image));
            BOOST_CHECK_EQUAL(layout.layers.size(), 3u);
            BOOST_CHECK(layout.tags == std::vector<std::string>{"demo:1"});
            for (const auto& l : layout.layers) {
                BOOST_CHECK_MESSAGE(l.digest.rfind("sha256:", 0) == 0 && l.digest.size() == 71, l.name << ": " << l.digest);
                BOOST_CHECK(vyre::format::image_layer_digest_matches(l));
            }
            ve::unpack_options o;
            o.output_dir = a / (std::string("flat_") + name);
            o.hash = true;
            const auto r = ve::flatten_image(dev.ctx(), {name, image}, o);
            BOOST_CHECK_MESSAGE(r.problems.empty(), problems_of(r));
            check_same_tree(layers.final_tree, o.output_dir);
            for (const auto& e : r.entries) {
                BOOST_CHECK_MESSAGE(e.output_path.find(".wh.") == std::string::npos, e.path);
                // Listed under the layer's digest.
                BOOST_CHECK_MESSAGE(e.path.rfind(std::string(name) + "!/sha256:", 0) == 0, e.path);
            }
            // Without --flatten, each layer's files are listed under the layer's digest too, and
            // extracted below the layer's path in the image.
            const auto plain = unpack_files(dev.ctx(), {a / name}, a / (std::string("plain_") + name));
            BOOST_CHECK_MESSAGE(plain.problems.empty(), problems_of(plain));
            bool under_digest = false;
            for (const auto& e : plain.entries)
                if (e.path == std::string(name) + "!/" + layout.layers[0].digest + "!/etc/passwd") {
                    under_digest = true;
                    BOOST_CHECK_EQUAL(e.output_path, layout.layers[0].name + "!/etc/passwd");
                }
            BOOST_CHECK(under_digest);
        }
    }
    // A layer whose bytes no longer hash to its diff_id (a file's content changed in place): a
    // corrupt problem that names the layer; the layers are still applied.
    {
        const fs::path id = legacy / std::string(64, 'a');
        bytes layer = read_file(id / "layer.tar");
        const std::string_view root = "root:x:0:0";
        const auto at = std::search(layer.begin(), layer.end(), root.begin(), root.end());
        BOOST_REQUIRE(at != layer.end());
        *at = 'R';
        write_file(id / "layer.tar", layer);
        run("tar -cf " + q(a / "tampered.tar") + " -C " + q(legacy) + " .");
        const bytes image = read_file(a / "tampered.tar");
        ve::unpack_options o;
        o.output_dir = a / "flat_tampered";
        const auto r = ve::flatten_image(dev.ctx(), {"tampered.tar", image}, o);
        BOOST_REQUIRE_EQUAL(r.problems.size(), 1u);
        BOOST_CHECK(r.problems[0].kind == ve::unpack_status::corrupt);
        BOOST_CHECK_MESSAGE(contains_text(r.problems[0].message, "do not hash to sha256:") &&
                                contains_text(r.problems[0].message, std::string(64, 'a') + "/layer.tar"),
                            r.problems[0].message);
        BOOST_CHECK(read_file(a / "flat_tampered" / "etc" / "passwd") == text("Root:x:0:0\n"));
    }
    // Not an image: the message says what is missing, or what the input is.
    const auto message_of = [&](const fs::path& f) {
        try {
            const bytes b = read_file(f);
            ve::flatten_image(dev.ctx(), {f.filename().string(), b}, {});
        } catch (const vyre::format_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    BOOST_CHECK(contains_text(message_of(layers.tars[0]), "neither manifest.json"));
    run("gzip -k " + q(a / "oci.tar"));
    BOOST_CHECK(contains_text(message_of(a / "oci.tar.gz"), "decompress it first"));
    // Hostile manifests: nesting deep enough to exhaust a recursive parser's stack, a digest that
    // is a path, a layer that is not there.
    const auto image_with = [&](const std::string& file, const std::string& json, const std::string& tar_name) {
        const fs::path d = a / (tar_name + "_dir");
        fs::create_directories(d);
        write_text(d / file, json);
        run("tar -cf " + q(a / tar_name) + " -C " + q(d) + " .");
        return message_of(a / tar_name);
    };
    BOOST_CHECK(contains_text(image_with("manifest.json", std::string(100000, '[') + std::string(100000, ']'), "deep.tar"), "deeper than 64"));
    BOOST_CHECK(contains_text(image_with("index.json", "{\"manifests\":[{\"digest\":\"sha256:../../etc/passwd\"}]}", "path.tar"),
                              "is not of the form"));
    BOOST_CHECK(contains_text(image_with("manifest.json", "[{\"Layers\":[\"missing/layer.tar\"]}]", "missing.tar"), "is not in the image tar"));
    BOOST_CHECK(contains_text(image_with("manifest.json", "[{\"Layers\":[]},{\"Layers\":[]}]", "two.tar"), "2 images"));
}

VYRE_TEST_MAIN
