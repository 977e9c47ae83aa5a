// Containers vyre does not parse itself, read through libarchive (Debian's libarchive-dev): ar
// (Debian packages), cpio (newc, crc, odc and binary), 7z, ISO 9660 images, and RPM packages (lead
// and headers, then the compressed cpio payload, all inside libarchive). vyre's own ZIP, tar, gzip,
// LZ4 and zstd parsers stay: they produce the descriptors the device decodes. These formats hold
// little that the device could take (ar, cpio and ISO store their members; 7z and RPM compress them
// in ways only a whole-stream decoder reads), so their members come out decoded, on the host.
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
#include <vector>

namespace vyre::format {

enum class library_format { ar, cpio, sevenzip, rpm, iso9660 };

inline const char* library_format_name(library_format f) noexcept {
    switch (f) {
    case library_format::ar: return "ar";
    case library_format::cpio: return "cpio";
    case library_format::sevenzip: return "7z";
    case library_format::rpm: return "rpm";
    case library_format::iso9660: return "iso9660";
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
    case library_format::rpm:
        // RPM is a filter in libarchive (it strips the lead and the headers), then the payload's
        // compression, then cpio.
        archive_read_support_filter_all(r.a);
        archive_read_support_format_cpio(r.a);
        break;
    }
    const std::string codec = library_format_name(f);
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
