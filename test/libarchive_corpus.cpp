// libarchive's own test archives (test/data/libarchive, see its README) as a conformance corpus for
// engine::unpack. Each file is read twice: by libarchive with every format and filter enabled (what
// bsdtar reads), and by vyre. Where libarchive reads a file to its end, vyre must list the same
// files with the same bytes and the same symlinks; where it does not, vyre must report a problem
// whose message names a cause. The files where vyre differs on purpose are listed below with the
// reason, and the case checks that each still differs in exactly that way (so the list cannot go
// stale).
#include "unpack_helpers.hpp"

#include <vyre/format/libarchive.hpp>

#include <chrono>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#ifdef VYRE_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

VYRE_TEST_MAIN

namespace {

// The payload of a uuencoded file ("begin MODE NAME" … "end"); text before "begin" is a comment.
bytes uudecode(const std::string& text) {
    bytes out;
    std::size_t pos = text.find("begin ");
    while (pos != std::string::npos && pos != 0 && text[pos - 1] != '\n') pos = text.find("begin ", pos + 1);
    BOOST_REQUIRE_MESSAGE(pos != std::string::npos, "no 'begin' line");
    pos = text.find('\n', pos);
    while (pos != std::string::npos && pos + 1 < text.size()) {
        const std::size_t start = pos + 1;
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line(text.data() + start, end - start);
        pos = end < text.size() ? end : std::string::npos;
        if (line.rfind("end", 0) == 0) break;
        if (line.empty()) continue;
        const auto six = [&](std::size_t i) { return i < line.size() ? static_cast<unsigned>(line[i] - 32) & 63u : 0u; };
        const std::size_t n = six(0);
        for (std::size_t i = 1, done = 0; done < n; i += 4) {
            const unsigned v = (six(i) << 18) | (six(i + 1) << 12) | (six(i + 2) << 6) | six(i + 3);
            for (int k = 2; k >= 0 && done < n; --k, ++done) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
        }
    }
    return out;
}

// Bytes outside printable ASCII as \xNN, for messages.
std::string shown(std::string_view s) {
    std::string out;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 32 && u < 127) {
            out += c;
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", u);
            out += buf;
        }
    }
    return out;
}

std::string normal_path(std::string p) {
    while (p.rfind("./", 0) == 0) p.erase(0, 2);
    while (!p.empty() && p.back() == '/') p.pop_back();
    return p;
}

// What a reader saw: files by path (hex SHA-256 of the content), symlinks by path (target), and
// whether it read to the end without error.
struct reading {
    std::map<std::string, std::string> files, links;
    bool whole = true;
    std::string why;      // the first error
    std::string warnings; // vyre's warnings, one per line
};

#ifdef VYRE_HAVE_LIBARCHIVE
// libarchive as bsdtar drives it: every filter and format, names in a UTF-8 locale, an entry with
// an empty name skipped as an error, hard links given their group's content (the members of a
// link group share one file once extracted; cpio stores the bytes with the last member).
reading read_as_bsdtar(const bytes& data) {
    reading r;
    std::unique_ptr<archive, int (*)(archive*)> a(archive_read_new(), archive_read_free);
    archive_read_support_filter_all(a.get());
    archive_read_support_format_all(a.get());
    const auto fail = [&](const std::string& what) {
        if (r.whole) r.why = what + ": " + (archive_error_string(a.get()) ? archive_error_string(a.get()) : "?");
        r.whole = false;
    };
    if (archive_read_open_memory(a.get(), data.data(), data.size()) != ARCHIVE_OK) {
        fail("open");
        return r;
    }
    std::map<std::string, std::string> links_to; // hard link -> the name it links to
    for (;;) {
        archive_entry* e = nullptr;
        const int h = archive_read_next_header(a.get(), &e);
        if (h == ARCHIVE_EOF) break;
        if (h == ARCHIVE_FATAL) {
            fail("header");
            break;
        }
        if (h == ARCHIVE_FAILED || h == ARCHIVE_RETRY) {
            fail("header");
            continue;
        }
        const char* name = archive_entry_pathname(e);
        const std::string raw = name ? name : "";
        const std::string path = normal_path(raw);
        const auto type = archive_entry_filetype(e);
        // An ar archive's symbol and long-name tables, which libarchive lists as members and
        // `ar t` does not.
        if (raw == "/" || raw == "//" || raw == "/SYM64/") continue;
        if (path.empty() && raw != "." && raw != "./") { // "./": the archive's root folder
            if (r.whole) r.why = "an entry with an empty or unreadable name";
            r.whole = false;
            continue;
        }
        if (type == AE_IFLNK) {
            r.links[path] = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
            continue;
        }
        if (type != AE_IFREG) continue;
        if (const char* target = archive_entry_hardlink(e)) links_to[path] = normal_path(target);
        vyre::util::sha256 hash;
        std::uint8_t buf[16384];
        bool ok = true;
        std::uint64_t size = 0;
        for (;;) {
            const la_ssize_t n = archive_read_data(a.get(), buf, sizeof buf);
            if (n == 0) break;
            if (n < 0) {
                fail("data of " + path);
                ok = false;
                break;
            }
            size += static_cast<std::uint64_t>(n);
            hash.update(std::span<const std::uint8_t>(buf, static_cast<std::size_t>(n)));
        }
        if (!ok) continue;
        // A sparse file's trailing hole: archive_read_data stops at the last data segment, and
        // bsdtar's extraction sets the file to its recorded size.
        if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0 && size < static_cast<std::uint64_t>(archive_entry_size(e)) &&
            archive_entry_sparse_count(e) > 0) {
            const std::uint8_t zeros[4096] = {};
            for (std::uint64_t left = static_cast<std::uint64_t>(archive_entry_size(e)) - size; left > 0;) {
                const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, sizeof zeros));
                hash.update(std::span<const std::uint8_t>(zeros, n));
                left -= n;
                size += n;
            }
        }
        if (size == 0 && links_to.count(path)) r.files[path] = ""; // the group's content, below
        else r.files[path] = vyre::util::to_hex(hash.final());
    }
    // Each link group's content: the one member that holds bytes (or none: empty).
    const std::string empty = vyre::util::to_hex(vyre::util::sha256_of(std::span<const std::uint8_t>()));
    const auto find = [&](std::string p) {
        for (int hops = 0; links_to.count(p) && hops < 64; ++hops) p = links_to.at(p);
        return p;
    };
    std::map<std::string, std::string> content;
    for (const auto& [p, h] : r.files)
        if (!h.empty()) content[find(p)] = h;
    for (auto& [p, h] : r.files)
        if (h.empty()) h = content.count(find(p)) ? content.at(find(p)) : empty;
    // A member that held the bytes for its group (cpio) gives them to the members before it too.
    for (const auto& [p, target] : links_to)
        if (r.files.count(target) && r.files.at(target) == empty && r.files.count(p)) r.files[target] = r.files.at(p);
    return r;
}
#endif

#ifdef VYRE_HAVE_LIBARCHIVE
// The content of a compress(1) stream (.Z, which libarchive's tests use to keep ISO images and
// some tars small; vyre does not read it): libarchive's own filter, as a raw stream.
bytes uncompress_z(const bytes& data) {
    std::unique_ptr<archive, int (*)(archive*)> a(archive_read_new(), archive_read_free);
    archive_read_support_filter_compress(a.get());
    archive_read_support_format_raw(a.get());
    archive_entry* e = nullptr;
    BOOST_REQUIRE(archive_read_open_memory(a.get(), data.data(), data.size()) == ARCHIVE_OK);
    BOOST_REQUIRE(archive_read_next_header(a.get(), &e) == ARCHIVE_OK);
    bytes out;
    std::uint8_t buf[16384];
    for (la_ssize_t n; (n = archive_read_data(a.get(), buf, sizeof buf)) > 0;) out.insert(out.end(), buf, buf + n);
    return out;
}
#endif

reading read_as_vyre(vyre::runtime::context& ctx, const std::string& name, const bytes& data) {
    ve::unpack_options o;
    o.hash = true;
    // The corpus's files are small; one of them is a gzip that holds a gzip that holds a gzip …,
    // each step within the ratio limit, which the default total limit would let grow to gigabytes.
    o.limits.max_total_bytes = std::uint64_t{64} << 20;
    o.recurse = false; // libarchive opens one layer (plus its filters)
    const ve::unpack_input in{name, data};
    const auto report = ve::unpack(ctx, std::span(&in, 1), o);
    reading r;
    const std::string prefix = name + "!/";
    for (const auto& e : report.entries) {
        if (e.status != ve::unpack_status::ok) continue;
        const std::string path = normal_path(e.path.rfind(prefix, 0) == 0 ? e.path.substr(prefix.size()) : e.path);
        if (e.type == ve::unpack_entry_type::symlink) r.links[path] = e.link_target;
        if ((e.type == ve::unpack_entry_type::file || e.type == ve::unpack_entry_type::hard_link) && e.sha256)
            r.files[path] = vyre::util::to_hex(*e.sha256);
    }
    for (const auto& p : report.problems) {
        const std::string line = std::string(ve::unpack_status_name(p.kind)) + " " + p.path + ": " + p.message;
        if (p.kind == ve::unpack_status::warning) {
            r.warnings += line + "\n";
            continue;
        }
        if (r.whole) r.why = line;
        r.whole = false;
    }
    return r;
}

std::string describe(const reading& r) {
    std::string s = std::to_string(r.files.size()) + " file(s), " + std::to_string(r.links.size()) + " link(s)";
    return r.whole ? s : s + "; " + r.why;
}

} // namespace

// The files vyre reads differently from libarchive on purpose, and what vyre must say about each
// (a few words of its first problem, or of its warning). Every other file must be read the same:
// the same files with the same bytes and the same symlinks, a problem exactly where libarchive
// fails, and no warning.
struct expectation {
    const char* file;    // the test file's name, without ".uu"
    const char* says;    // words of vyre's first problem (or, for `warns`, of its warning)
    bool warns = false;  // read as libarchive reads it, with a warning
    bool no_reference = false; // libarchive is not run on it (it spends minutes on it)
    bool lists = false;  // `says` is a file vyre lists, and libarchive does not, with no problem (where
                         // libarchive reads it all, the two list as many files)
    bool libarchive_36 = false; // the difference is libarchive 3.6's (Debian 12's): later ones read as vyre does
};

const expectation expected[] = {
    // Bytes after the end of the compressed stream: all of it read, the rest ignored with a warning
    // (libarchive ignores them silently, gzip -d warns).
    {"test_compat_gzip_2.tgz", "after the last member are not gzip data", true},
    {"test_compat_bzip2_2.tbz", "after the last stream are not bzip2 data", true},
    {"test_compat_lz4_2.tar.lz4", "after the last frame are not lz4 data", true},
    {"test_compat_lzma_1.tlz", "after the last stream are not lzma data", true},
    // An RPM signature header declaring 2^31 index entries: vyre reads RPM headers (to find the
    // payload and its compressor) and refuses one that cannot fit; libarchive skips to the cpio.
    {"test_read_format_huge_rpm.rpm", "index entries"},
    // A tar 'V' header with a negative size: libarchive stops without an error, vyre says why.
    {"test_read_format_tar_V_negative_size.tar", "size field"},
    // No end of central directory record (its signature is damaged): read by the local headers, as
    // libarchive's streaming reader reads it, with a warning that the directory is missing.
    {"test_read_format_zip_extra_padding.zip", "no end of central directory record", true},
    // A fuzzed gzip holding a gzip holding a gzip …, whose outer member's CRC-32 is wrong: vyre says
    // so (and keeps within its limits below it); libarchive expands it for minutes before it fails.
    {"test_read_filter_gzip_recursive.gz", "CRC-32 mismatch", false, true},
    // A malformed pax record: passed over with a warning, as bsdtar warns "Ignoring malformed pax
    // extended attribute".
    {"test_read_pax_empty_val_no_nl.tar", "pax record length 4 is too short", true},
    // Local and central headers that name entries 2 to 4 differently ("File 2 - xx.txt" and
    // "File 2 - \x94.txt"), with Unicode Path fields (0x7075) whose CRC-32 is that of the local
    // name: a reader of the central directory (unzip, Python's zipfile) and a reader of local
    // headers see different names, which vyre reports, as Python's zipfile does; libarchive takes
    // the local header's.
    {"test_read_format_zip_7075_utf8_paths.zip", "local header names it 'File 2 - "},
    {"test_read_too_many_filters.gz", "nesting deeper than 8 containers"},
    // Symlinks whose targets climb out of the output folder are refused, whatever the format.
    {"test_read_format_iso_rockridge.iso.Z", "link target climbs out of the output folder"},
    {"test_read_format_iso_rockridge_new.iso.Z", "link target is absolute"},
    {"test_read_format_iso_zisofs.iso.Z", "link target is absolute"},
    // A pax header holding an 8 MB attribute: Debian 12's libarchive refuses it ("Special header
    // too large"), later ones and Python's tarfile read it, and so does vyre.
    {"test_read_format_tar_pax_large_attr.tar.Z", "foo", false, false, true, true},
    // A NetBSD makefs image that Debian 12's libarchive (3.6) does not recognize as ISO 9660 (later
    // ones do): vyre finds it by its "CD001" and says what libarchive answered; bsdtar, trying
    // every format, reads the image's leading zero blocks as an empty tar.
    {"test_read_format_iso_3.iso.Z", "iso9660: Unrecognized archive format", false, false, false, true},
    // Images on which the ISO 9660 reader of Debian 12's libarchive fails unsafely (fixed upstream
    // in 2026): a continuation area that points back (it loops and allocates without bound), a
    // Joliet path past its buffer (a heap overflow), short or malformed zisofs entries (reads past
    // them). vyre walks the image first and refuses these; libarchive is not run on them here.
    {"test_read_format_iso_rockridge_ce_loop.iso.Z", "continuation area (CE) that points back", false, true},
    {"test_read_format_iso_joliet_utf16be_overflow.iso", "a Joliet path of more than", false, true},
    {"test_read_format_iso_rockridge_zf_overflow.iso", "zisofs (ZF) entry of", false, true},
    {"test_read_format_iso_zisofs_overflow.iso", "zisofs (ZF) block size", false, true},
};

VYRE_DEVICE_TEST(libarchive_test_archives_read_as_bsdtar_reads_them) {
#ifndef VYRE_HAVE_LIBARCHIVE
    BOOST_TEST_MESSAGE("built without libarchive: no reference reader");
    return;
#else
    const fs::path dir = fs::path(VYRE_SOURCE_DIR) / "test" / "data" / "libarchive";
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(dir))
        if (f.path().extension() == ".uu") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    BOOST_REQUIRE_GT(files.size(), 150u);
    // bsdtar converts names to the locale's character set: a UTF-8 one keeps UTF-8 names as they are.
    BOOST_REQUIRE_MESSAGE(std::setlocale(LC_CTYPE, "C.UTF-8") != nullptr, "no C.UTF-8 locale");
    const char* only = std::getenv("VYRE_CORPUS_ONLY"); // a part of the names to run, when debugging
    std::size_t same = 0, unreadable = 0, warned = 0, differ = 0;
    std::set<std::string> met;
    for (const auto& f : files) {
        const std::string name = f.stem().string();
        if (only && name.find(only) == std::string::npos) continue;
        const auto text = read_file(f);
        bytes data = uudecode(std::string(text.begin(), text.end()));
        if (f.stem().extension() == ".Z") data = uncompress_z(data); // both readers get the content
        const expectation* e = nullptr;
        for (const auto& x : expected)
            if (name == x.file) e = &x;
        if (e) met.insert(name);
        if (e && e->libarchive_36 && archive_version_number() >= 3007000) {
            BOOST_TEST_MESSAGE(name << ": not checked with libarchive " << archive_version_string() << " (its expectation is 3.6's)");
            continue;
        }
        const reading ref = e && e->no_reference ? reading{} : read_as_bsdtar(data);
        const reading ours = read_as_vyre(dev.ctx(), name, data);
        BOOST_TEST_CONTEXT(name << "\n  libarchive: " << describe(ref) << "\n  vyre:       " << describe(ours)
                                << (ours.warnings.empty() ? "" : "\n  warnings: " + ours.warnings)) {
            const bool agree = ref.files == ours.files && ref.links == ours.links;
            if (e && e->warns) {
                ++warned;
                BOOST_CHECK(ref.whole && ours.whole && agree);
                BOOST_CHECK_MESSAGE(ours.warnings.find(e->says) != std::string::npos, "no warning saying '" << e->says << "'");
            } else if (e && e->lists) {
                ++differ;
                BOOST_CHECK(ours.whole && ours.warnings.empty());
                BOOST_CHECK_MESSAGE(ours.files.count(e->says) && !ref.files.count(e->says), "vyre should list " << shown(e->says));
                BOOST_CHECK(ref.whole ? ours.files.size() == ref.files.size() : ours.files.size() > ref.files.size());
            } else if (e) {
                ++differ;
                BOOST_CHECK_MESSAGE(!ours.whole && ours.why.find(e->says) != std::string::npos, "vyre should say '" << e->says << "'");
                BOOST_CHECK_MESSAGE(!(ref.whole && agree && ours.whole), "reads the same now: drop it from the list");
            } else if (ref.whole) {
                ++same;
                BOOST_CHECK_MESSAGE(ours.whole, "vyre reported a problem where libarchive read it all");
                BOOST_CHECK(ours.warnings.empty());
                for (const auto& [p, h] : ref.files)
                    BOOST_CHECK_MESSAGE(ours.files.count(p) && ours.files.at(p) == h, "file " << shown(p) << (ours.files.count(p) ? " differs" : " is missing"));
                for (const auto& [p, h] : ours.files) BOOST_CHECK_MESSAGE(ref.files.count(p), "file " << shown(p) << " is extra");
                BOOST_CHECK(ref.links == ours.links);
            } else {
                // libarchive fails: vyre must fail too, with a cause, and agree on what both read.
                ++unreadable;
                BOOST_CHECK_MESSAGE(!ours.whole && !ours.why.empty(), "vyre reported no problem where libarchive failed");
                for (const auto& [p, h] : ours.files)
                    if (ref.files.count(p)) BOOST_CHECK_MESSAGE(ref.files.at(p) == h, "file " << shown(p) << " differs");
            }
        }
    }
    if (!only)
        for (const auto& x : expected) BOOST_CHECK_MESSAGE(met.count(x.file), x.file << " is listed but not in " << dir);
    BOOST_TEST_MESSAGE(same << " read the same as libarchive reads them, " << unreadable << " unreadable to both, " << warned
                            << " read the same with a warning, " << differ << " read differently on purpose");
#endif
}
