// Containers vyre does not parse itself, read through libarchive (Debian's libarchive-dev): ar
// (Debian packages), cpio (newc, crc, odc and binary: RPM payloads, initramfs images), 7z and
// ISO 9660 images. vyre's own ZIP, tar, gzip, LZ4 and zstd parsers stay: they produce the
// descriptors the device decodes. These formats hold little the device could take (ar, cpio and
// ISO store their members; 7z compresses them in ways only a whole-stream decoder reads), so their
// members come out decoded, on the host. (RPM's lead and headers are skipped by format/rpm.hpp;
// its payload is a compressed stream like any other.)
#pragma once

// Built with libarchive when VYRE_HAVE_LIBARCHIVE is defined (the vyre::vyre CMake target defines it
// when it finds the library, and links it). Without it, libarchive_available() is false and
// read_with_libarchive throws unsupported_format naming the format, so that a caller says
// "7z archive: not supported in this build" rather than "unknown data".
//
// Limits. Every byte of content is announced to `take` before it is kept; a refusal stops the
// read (library_archive::refusal says why) and the entries read before it stay. Damage
// to the archive stops the read too: the entries before it are kept and `damage` says what and
// where (libarchive's message, and the offset it had read to).

#include <vyre/error.hpp>
#include <vyre/format/detail/iso9660_walk.hpp>
#include <vyre/format/names.hpp>

#ifdef VYRE_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vyre::format {

// zip: only for single ZIP entries of methods vyre does not decode itself (format/zip_methods.hpp);
// vyre reads ZIP archives with its own parser.
enum class library_format { ar, cpio, sevenzip, iso9660, zip };

inline const char* library_format_name(library_format f) noexcept {
    switch (f) {
    case library_format::ar: return "ar";
    case library_format::cpio: return "cpio";
    case library_format::sevenzip: return "7z";
    case library_format::iso9660: return "iso9660";
    case library_format::zip: return "zip";
    }
    return "unknown";
}

// A format vyre recognises but this build cannot read.
class unsupported_format : public error {
public:
    using error::error;
};

enum class library_entry_type { file, directory, symlink, hard_link, other };

struct library_entry {
    std::string name;        // as recorded (not checked: the caller decides what is safe to write)
    library_entry_type type = library_entry_type::file;
    std::uint32_t mode = 0;  // permission bits (07777) as recorded
    std::optional<std::int64_t> mtime; // seconds since the epoch, where recorded
    std::string link_target; // symlinks and hard links
    std::vector<std::uint8_t> data;
};

struct library_archive {
    std::vector<library_entry> entries;
    std::string damage;  // what stopped the read early, and where (empty: read to the end)
    std::string refusal; // take's answer, when it refused content (the read stopped there)
};

inline bool libarchive_available() noexcept {
#ifdef VYRE_HAVE_LIBARCHIVE
    return true;
#else
    return false;
#endif
}

namespace detail {

// libarchive sizes its read-ahead buffer by what a header asks for before it knows whether the
// input holds that much: a 2 KiB cpio whose header claims a 3.5 GiB name made it allocate 3.5 GiB.
// The headers of ar and cpio are walked here first, and each size must fit in what is left of the
// input (a cpio name in 4,096 bytes), so that nothing libarchive reads ahead can exceed the input.
// Returns why not, with the offset, or an empty string.
inline std::string hex_or_octal(std::span<const std::uint8_t> d, std::size_t at, std::size_t n, int base, std::uint64_t& v) {
    v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const char c = static_cast<char>(d[at + i]);
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
        if (base == 10 && c == ' ') break; // ar pads its decimal fields with spaces
        if (digit >= base) return "a header field holds a character that is not a digit";
        v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
    }
    return {};
}

// The sizes of the cpio header at `pos` (of the given ASCII family, or binary), or why they do
// not fit in the input. `header_ok` is false where the bytes there are no header at all.
inline std::pair<std::string, std::uint64_t> cpio_header_fits(std::span<const std::uint8_t> d, std::uint64_t pos, bool& header_ok,
                                                              std::uint64_t& next, bool& trailer) {
    constexpr std::uint64_t max_name = 4096;
    const auto at = static_cast<std::size_t>(pos);
    const std::string_view magic(reinterpret_cast<const char*>(d.data() + at), std::min<std::size_t>(6, d.size() - at));
    std::uint64_t header = 0, name = 0, data = 0, name_pad = 1, data_pad = 1;
    header_ok = false;
    if (magic == "070701" || magic == "070702") {
        header = 110, name_pad = 4, data_pad = 4;
        if (d.size() - pos < header) return {};
        if (!hex_or_octal(d, at + 94, 8, 16, name).empty() || !hex_or_octal(d, at + 54, 8, 16, data).empty()) return {};
    } else if (magic == "070707") {
        header = 76;
        if (d.size() - pos < header) return {};
        if (!hex_or_octal(d, at + 59, 6, 8, name).empty() || !hex_or_octal(d, at + 65, 11, 8, data).empty()) return {};
    } else if (d.size() - pos >= 26 && ((d[at] == 0xC7 && d[at + 1] == 0x71) || (d[at] == 0x71 && d[at + 1] == 0xC7))) {
        header = 26, name_pad = 2, data_pad = 2;
        const bool little = d[at] == 0xC7;
        const auto u16 = [&](std::size_t o) { return little ? d[at + o] | unsigned{d[at + o + 1]} << 8 : unsigned{d[at + o]} << 8 | d[at + o + 1]; };
        name = u16(20);
        data = std::uint64_t{u16(22)} << 16 | u16(24);
    } else {
        return {};
    }
    header_ok = true;
    if (name > max_name) return {"cpio: a name of " + std::to_string(name) + " bytes (at most 4096)", pos};
    const std::uint64_t name_end = (header + name + name_pad - 1) / name_pad * name_pad;
    if (name_end > d.size() - pos) return {"cpio: a name runs past the end of the archive", pos};
    const std::string_view entry(reinterpret_cast<const char*>(d.data() + at + header), static_cast<std::size_t>(name));
    trailer = entry.substr(0, 10) == "TRAILER!!!";
    if (!trailer && data > d.size() - pos - name_end)
        return {"cpio: an entry of " + std::to_string(data) + " bytes runs past the end of the archive", pos};
    next = pos + name_end + (data + data_pad - 1) / data_pad * data_pad;
    return {};
}

// libarchive's cpio reader also skips junk to the next ASCII magic number it finds, anywhere: so
// every place the archive's ASCII magic appears is checked, not only where the walk lands. (afio's
// large headers, "070727", which the odc reader also takes, are refused: nothing writes them now.)
inline std::pair<std::string, std::uint64_t> cpio_sizes_fit(std::span<const std::uint8_t> d) {
    if (d.size() < 6) return {};
    const std::string_view all(reinterpret_cast<const char*>(d.data()), d.size());
    const bool ascii = all.substr(0, 5) == "07070";
    if (ascii) {
        for (std::size_t at = all.find("07070"); at != std::string_view::npos; at = all.find("07070", at + 1)) {
            if (at + 6 > all.size()) break;
            if (all[at + 5] == '7' && all.substr(at, 6) == "070727")
                return {"cpio: an afio large header (070727): not read", at};
            bool header_ok = false, trailer = false;
            std::uint64_t next = 0;
            if (auto bad = cpio_header_fits(d, at, header_ok, next, trailer); !bad.first.empty()) return bad;
        }
        return {};
    }
    // Binary headers: the reader goes from one to the next.
    std::uint64_t pos = 0;
    for (;;) {
        bool header_ok = false, trailer = false;
        std::uint64_t next = 0;
        if (pos >= d.size()) return {};
        if (auto bad = cpio_header_fits(d, pos, header_ok, next, trailer); !bad.first.empty()) return bad;
        if (!header_ok || trailer) return {};
        pos = next;
    }
}

inline std::pair<std::string, std::uint64_t> ar_sizes_fit(std::span<const std::uint8_t> d) {
    std::uint64_t pos = 8; // "!<arch>\n"
    while (d.size() > pos && d.size() - pos >= 60) {
        std::uint64_t size = 0;
        if (std::string bad = hex_or_octal(d, static_cast<std::size_t>(pos + 48), 10, 10, size); !bad.empty()) return {"ar: " + bad, pos + 48};
        if (size > d.size() - pos - 60) return {"ar: a member of " + std::to_string(size) + " bytes runs past the end of the archive", pos + 48};
        pos += 60 + size + (size & 1);
    }
    return {};
}

} // namespace detail

// Reads every entry of `bytes` as format `f`, content included. `take(n)` is asked before n more
// bytes of content are kept: an empty answer allows them, any other text refuses them and stops
// the read (library_archive::refusal). Throws format_error when the input cannot be opened at all.
inline library_archive read_with_libarchive(std::span<const std::uint8_t> bytes, library_format f,
                                            const std::function<std::string(std::uint64_t)>& take) {
#ifndef VYRE_HAVE_LIBARCHIVE
    (void)bytes;
    (void)take;
    throw unsupported_format(std::string(library_format_name(f)) + " archive: not supported in this build (vyre was built without libarchive)");
#else
    struct reader {
        archive* a = archive_read_new();
        ~reader() { archive_read_free(a); }
    } r;
    if (!r.a) throw std::bad_alloc();
    switch (f) {
    case library_format::ar: archive_read_support_format_ar(r.a); break;
    case library_format::cpio: archive_read_support_format_cpio(r.a); break;
    case library_format::sevenzip: archive_read_support_format_7zip(r.a); break;
    case library_format::iso9660: archive_read_support_format_iso9660(r.a); break;
    case library_format::zip: archive_read_support_format_zip(r.a); break;
    }
    const std::string codec = library_format_name(f);
    if (f == library_format::cpio || f == library_format::ar || f == library_format::iso9660) {
        const auto [why, at] = f == library_format::cpio ? detail::cpio_sizes_fit(bytes)
                               : f == library_format::ar ? detail::ar_sizes_fit(bytes)
                                                         : detail::iso9660_walk_refusal(bytes);
        if (!why.empty()) throw format_error(why, at);
    }
    const auto where = [&] { return " (after " + std::to_string(archive_filter_bytes(r.a, -1)) + " bytes of input)"; };
    const auto fail_text = [&] {
        const char* s = archive_error_string(r.a);
        return std::string(s ? s : "unreadable");
    };
    if (archive_read_open_memory(r.a, bytes.data(), bytes.size()) != ARCHIVE_OK)
        throw format_error(codec + ": " + fail_text(), 0);
    library_archive out;
    for (;;) {
        archive_entry* e = nullptr;
        const int h = archive_read_next_header(r.a, &e);
        if (h == ARCHIVE_EOF) break;
        if (h < ARCHIVE_WARN) {
            out.damage = codec + ": " + fail_text() + where();
            break;
        }
        library_entry le;
        const char* name = archive_entry_pathname(e);
        if (!name) name = archive_entry_pathname_utf8(e);
        le.name = name ? name : "";
        // An ar archive's symbol table ("/", "/SYM64/") and long-name table ("//") are the
        // archive's own indexes, which libarchive lists as members: `ar t` lists neither.
        if (f == library_format::ar && (le.name == "/" || le.name == "//" || le.name == "/SYM64/")) continue;
        const mode_t type = archive_entry_filetype(e);
        const char* hard = archive_entry_hardlink(e);
        if (hard) {
            le.type = library_entry_type::hard_link;
            le.link_target = hard;
        } else if (type == AE_IFREG || type == 0) {
            // No type at all (ar members written in deterministic mode record bare permissions):
            // a regular file, as libarchive's own extraction takes it.
            le.type = library_entry_type::file;
        } else if (type == AE_IFDIR) {
            le.type = library_entry_type::directory;
        } else if (type == AE_IFLNK) {
            le.type = library_entry_type::symlink;
            const char* t = archive_entry_symlink(e);
            le.link_target = t ? t : "";
        } else {
            le.type = library_entry_type::other;
        }
        le.mode = static_cast<std::uint32_t>(archive_entry_perm(e)) & 07777;
        if (archive_entry_mtime_is_set(e)) le.mtime = static_cast<std::int64_t>(archive_entry_mtime(e));
        // Content: files, and hard links that carry it (cpio's newc keeps a linked file's data
        // with the last of its links).
        bool stop = false; // damage or a refusal: the read ends here
        if (le.type == library_entry_type::file || le.type == library_entry_type::hard_link) {
            std::uint8_t chunk[64 * 1024];
            for (;;) {
                const la_ssize_t n = archive_read_data(r.a, chunk, sizeof chunk);
                if (n == 0) break;
                if (n < 0) {
                    out.damage = codec + ": " + archive_quote(le.name) + ": " + fail_text() + where();
                    stop = true;
                    break;
                }
                if (std::string why = take(static_cast<std::uint64_t>(n)); !why.empty()) {
                    out.refusal = codec + ": " + archive_quote(le.name) + ": " + why;
                    stop = true;
                    break;
                }
                le.data.insert(le.data.end(), chunk, chunk + n);
            }
        }
        if (stop) break;
        out.entries.push_back(std::move(le));
    }
    return out;
#endif
}

} // namespace vyre::format
