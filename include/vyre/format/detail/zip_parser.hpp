// Part of format/zip.hpp (included there after the public types): the parser that reads an
// archive through its end records and central directory and checks every record against the
// others (central and local headers, ZIP64 fields, data descriptors, overlapping data).
#pragma once

#include <vyre/error.hpp>
#include <vyre/format/detail/zip_fields.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/names.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/little_endian.hpp>

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::format {

namespace detail {

// What a walk of local headers (a ZIP without its end record) inflates at most, in all, to find
// where deflate entries with data descriptors end.
inline constexpr std::uint64_t zip_walk_max_inflate = std::uint64_t{4} << 30;

class zip_parser {
public:
    explicit zip_parser(std::span<const std::uint8_t> data) : data_(data) {}

    zip_archive run() {
        if (find_end_record()) {
            read_central_directory();
            for (zip_entry& e : archive_.entries) check_local_header(e);
        } else {
            walk_local_headers();
        }
        check_overlaps();
        for (zip_entry& e : archive_.entries) check_method(e);
        return std::move(archive_);
    }

private:
    std::span<const std::uint8_t> data_;
    zip_archive archive_;
    std::uint64_t cd_limit_ = 0; // the central directory must end here (at the end records)
    mutable std::uint64_t inflated_ = 0; // by walk_local_headers, to find deflate entries' ends

    std::uint16_t u16(std::uint64_t at) const { return util::read_le16(data_, at); }
    std::uint32_t u32(std::uint64_t at) const { return util::read_le32(data_, at); }
    std::uint64_t u64(std::uint64_t at) const { return util::read_le64(data_, at); }

    // The end record sits in the last 22 + 65535 bytes (its comment is at most 65535 bytes). Scanning
    // back from the end, the first signature whose comment reaches exactly the end of the file
    // wins; failing that, the last one whose comment fits (bytes appended after the archive).
    // False where there is none but the input starts with a local header (a truncated archive, or
    // one whose end is damaged): walk_local_headers reads it then.
    bool find_end_record() {
        if (data_.size() < zip_eocd_size)
            throw format_error("too small for a ZIP archive: " + std::to_string(data_.size()) +
                                   " bytes, the end of central directory record alone needs 22",
                               0);
        const std::size_t last = data_.size() - zip_eocd_size;
        const std::size_t first = last > zip_max_comment ? last - zip_max_comment : 0;
        std::optional<std::size_t> exact, fits;
        for (std::size_t p = last + 1; p-- > first;) {
            if (u32(p) != zip_eocd_signature) continue;
            const std::uint64_t end = p + zip_eocd_size + std::uint64_t{u16(p + 20)};
            if (end == data_.size()) {
                exact = p;
                break;
            }
            // Bytes appended after the archive: a record whose directory checks out (junk after
            // an archive may hold the signature too).
            const std::uint64_t cd_size = u32(p + 12);
            if (end < data_.size() && !fits && (cd_size == 0 || (cd_size >= 4 && cd_size <= p && u32(p - cd_size) == zip_central_signature)))
                fits = p;
        }
        if (!exact && !fits) {
            if (data_.size() >= zip_local_header_size && u32(0) == zip_local_signature) return false;
            throw format_error("no end of central directory record in the last " +
                                   std::to_string(data_.size() - first) + " bytes: not a ZIP archive, or truncated",
                               data_.size());
        }
        const std::size_t eocd = exact ? *exact : *fits;
        archive_.eocd_offset = eocd;
        archive_.comment.assign(data_.begin() + static_cast<std::ptrdiff_t>(eocd + zip_eocd_size),
                                data_.begin() + static_cast<std::ptrdiff_t>(eocd + zip_eocd_size + u16(eocd + 20)));
        std::uint64_t disk = u16(eocd + 4), cd_disk = u16(eocd + 6);
        archive_.declared_entries = u16(eocd + 10);
        archive_.cd_size = u32(eocd + 12);
        archive_.cd_offset = u32(eocd + 16);
        cd_limit_ = eocd;
        if (eocd >= zip64_locator_size && u32(eocd - zip64_locator_size) == zip64_locator_signature) {
            const std::uint64_t loc = eocd - zip64_locator_size;
            const std::uint64_t rec = u64(loc + 8);
            if (u32(loc + 16) > 1)
                throw format_error("multi-disk (split) ZIP archives are not supported: " + std::to_string(u32(loc + 16)) +
                                       " disks",
                                   loc + 16);
            if (rec > loc || loc - rec < zip64_eocd_min_size)
                throw format_error("the ZIP64 end of central directory locator points at byte " + std::to_string(rec) +
                                       ", leaving no room for the record before the locator",
                                   loc + 8);
            if (u32(rec) != zip64_eocd_signature)
                throw format_error("no ZIP64 end of central directory record where the locator points", rec);
            if (u64(rec + 4) < zip64_eocd_min_size - 12)
                throw format_error("ZIP64 end of central directory record is too short", rec + 4);
            disk = u32(rec + 16);
            cd_disk = u32(rec + 20);
            archive_.declared_entries = u64(rec + 32);
            archive_.cd_size = u64(rec + 40);
            archive_.cd_offset = u64(rec + 48);
            archive_.zip64 = true;
            cd_limit_ = rec;
        }
        if (disk != 0 || cd_disk != 0)
            throw format_error("multi-disk (split) ZIP archives are not supported: this is disk " + std::to_string(disk) +
                                   ", the central directory starts on disk " + std::to_string(cd_disk),
                               eocd + 4);
        // Bytes prepended to an archive (a self-extractor's stub, `cat stub.exe a.zip`) shift every
        // offset by their length: found where the directory ends at the end records but does not
        // start where the end record says, as Info-ZIP's unzip finds them.
        if (archive_.cd_size != 0 && archive_.cd_size <= cd_limit_ && archive_.cd_offset < cd_limit_ - archive_.cd_size &&
            u32(cd_limit_ - archive_.cd_size) == zip_central_signature &&
            (cd_limit_ - archive_.cd_offset < 4 || u32(archive_.cd_offset) != zip_central_signature)) {
            archive_.prefix_size = cd_limit_ - archive_.cd_size - archive_.cd_offset;
            archive_.cd_offset += archive_.prefix_size;
        }
        if (archive_.cd_offset > cd_limit_)
            throw format_error("the central directory offset " + std::to_string(archive_.cd_offset) +
                                   " lies past the end records (byte " + std::to_string(cd_limit_) +
                                   "): truncated or not a ZIP archive",
                               archive_.zip64 ? cd_limit_ + 48 : eocd + 16);
        return true;
    }

    // An archive without an end record (cut short, or its end damaged) read as a streaming reader
    // reads it (bsdtar, libarchive's streaming ZIP reader): local header after local header from
    // the start. An entry whose sizes are in a data descriptor after its data (bit 3) ends where its
    // deflate or zstd data ends, or (stored) at the descriptor whose CRC-32 and size fit the bytes
    // before it. The walk stops at the first header it cannot place (a cut-short entry is corrupt);
    // zip_archive::problems says that the directory was missing and where the walk stopped.
    void walk_local_headers() {
        archive_.local_walk = true;
        std::uint64_t p = 0;
        std::string stop;
        while (data_.size() - p >= 4 && u32(p) == zip_local_signature) {
            zip_entry e;
            e.central_offset = e.local_offset = p;
            if (data_.size() - p < zip_local_header_size) {
                stop = "a local header cut short";
                break;
            }
            read_shared_fields(e, p + 4);
            const std::uint16_t name_size = u16(p + 26), extra_size = u16(p + 28);
            const std::uint64_t header_end = p + zip_local_header_size + name_size + extra_size;
            if (header_end > data_.size()) {
                stop = "a local header whose name and extra field run past the end";
                break;
            }
            e.name.assign(reinterpret_cast<const char*>(data_.data() + p + zip_local_header_size), name_size);
            const auto extra = data_.subspan(static_cast<std::size_t>(p + zip_local_header_size + name_size), extra_size);
            read_name_fields(e, extra);
            zip64_extra z(extra);
            e.zip64 = z.present();
            e.data_offset = header_end;
            std::uint64_t end = 0;
            if (!(e.flags & zip_flag_data_descriptor)) {
                if ((e.uncompressed_size == 0xFFFFFFFFu || e.compressed_size == 0xFFFFFFFFu) && z.size() >= 16) {
                    if (e.uncompressed_size == 0xFFFFFFFFu) e.uncompressed_size = z.value_at(0);
                    if (e.compressed_size == 0xFFFFFFFFu) e.compressed_size = z.value_at(8);
                }
                if (e.compressed_size > data_.size() - header_end) {
                    zip_fail(e, zip_entry_status::corrupt,
                             "cut short: its " + std::to_string(e.compressed_size) + " bytes of data run past the end of the input", header_end);
                    archive_.entries.push_back(std::move(e));
                    stop = "an entry cut short";
                    break;
                }
                end = header_end + e.compressed_size;
            } else {
                const std::optional<std::uint64_t> data_end = data_end_before_descriptor(e);
                std::optional<std::uint64_t> size;
                if (data_end) {
                    e.compressed_size = *data_end - header_end;
                    size = descriptor_after(*data_end, e);
                }
                if (!size) {
                    zip_fail(e, zip_entry_status::corrupt,
                             e.method == zip_method_stored || e.method == zip_method_deflate || e.is_zstd()
                                 ? "its data and data descriptor are damaged or cut short"
                                 : "method " + std::to_string(e.method) + " with a data descriptor: without the central directory its end cannot be found",
                             header_end);
                    archive_.entries.push_back(std::move(e));
                    stop = "an entry whose end could not be found";
                    break;
                }
                end = *data_end + *size;
            }
            e.end_offset = end;
            archive_.entries.push_back(std::move(e));
            p = end;
        }
        if (stop.empty())
            stop = data_.size() - p < 4                  ? "the end of the input"
                   : u32(p) == zip_central_signature ? "a central directory without an end record"
                                                     : "bytes that are no local header";
        problem("no end of central directory record: " + std::to_string(archive_.entries.size()) +
                    " entries read from their local headers, as a streaming reader reads them, up to " + stop,
                p);
    }

    // Where the data of an entry with a data descriptor ends (its start is data_offset): a deflate
    // stream inflated (into scratch memory) to its end, zstd frames measured, or for stored data the
    // first descriptor signature whose CRC-32 and size fit the bytes before it.
    std::optional<std::uint64_t> data_end_before_descriptor(const zip_entry& e) const {
        const auto in = data_.subspan(static_cast<std::size_t>(e.data_offset));
        if (e.method == zip_method_deflate) {
            z_stream z{};
            if (inflateInit2(&z, -15) != Z_OK) return std::nullopt;
            std::uint8_t scratch[64 * 1024];
            std::uint64_t at = 0;
            int rc = Z_OK;
            // The walk inflates at most zip_walk_max_inflate bytes in all to find ends: a hostile
            // file of deflate bombs cannot make it work without bound.
            while (rc == Z_OK && inflated_ + z.total_out < zip_walk_max_inflate) {
                if (z.avail_in == 0) {
                    const std::uint64_t n = std::min<std::uint64_t>(in.size() - at, 1u << 30);
                    if (n == 0) break;
                    z.next_in = const_cast<Bytef*>(in.data() + at);
                    z.avail_in = static_cast<uInt>(n);
                    at += n;
                }
                z.next_out = scratch;
                z.avail_out = sizeof scratch;
                rc = inflate(&z, Z_NO_FLUSH);
                if (rc == Z_BUF_ERROR && z.avail_in == 0) rc = Z_OK; // more input
            }
            const std::uint64_t used = at - z.avail_in;
            inflated_ += z.total_out;
            inflateEnd(&z);
            if (rc != Z_STREAM_END) return std::nullopt;
            return e.data_offset + used;
        }
        if (e.is_zstd()) {
            std::uint64_t at = 0;
            do {
                const std::size_t n = ZSTD_findFrameCompressedSize(in.data() + at, in.size() - at);
                if (ZSTD_isError(n)) return at == 0 ? std::nullopt : std::optional<std::uint64_t>(e.data_offset + at);
                at += n;
            } while (in.size() - at >= 4 && (u32(e.data_offset + at) == 0xFD2FB528u));
            return e.data_offset + at;
        }
        if (e.method != zip_method_stored) return std::nullopt;
        // The CRC-32 of the bytes before each candidate, carried forward (never recomputed from the start).
        std::uint32_t crc = 0;
        std::uint64_t summed = 0;
        for (std::uint64_t q = 0; in.size() - q >= 16; ++q) {
            if (util::read_le32(in, q) != zip_descriptor_signature) continue;
            const std::uint64_t narrow = util::read_le32(in, q + 8), wide = in.size() - q >= 24 ? util::read_le64(in, q + 8) : 0;
            if (narrow != q && wide != q) continue;
            crc = static_cast<std::uint32_t>(libdeflate_crc32(crc, in.data() + summed, static_cast<std::size_t>(q - summed)));
            summed = q;
            if (crc == util::read_le32(in, q + 4)) return e.data_offset + q;
        }
        return std::nullopt;
    }

    // The UTF-8 name of an Info-ZIP Unicode Path extra field (0x7075: version 1, the CRC-32 of the
    // name field it stands for, the name), or empty: without one, where its CRC-32 is not that of
    // `name_field` (a later tool renamed the entry and left the field stale, as APPNOTE says), or
    // where it would make a folder of a file or a file of a folder.
    static std::string unicode_path(std::span<const std::uint8_t> extra, std::string_view name_field) {
        const auto up = zip_find_extra(extra, 0x7075);
        if (!up || up->size() < 6 || (*up)[0] != 1) return {};
        if (util::read_le32(*up, 1) != crc32_of(std::span(reinterpret_cast<const std::uint8_t*>(name_field.data()), name_field.size())))
            return {};
        std::string utf8(reinterpret_cast<const char*>(up->data()) + 5, up->size() - 5);
        const auto folder = [](std::string_view n) { return !n.empty() && (n.back() == '/' || n.back() == '\\'); };
        return zip_valid_utf8(utf8) && folder(utf8) == folder(name_field) ? utf8 : std::string();
    }

    void problem(std::string message, std::uint64_t offset) { archive_.problems.push_back({std::move(message), offset}); }

    void read_central_directory() {
        std::uint64_t end = archive_.cd_offset + archive_.cd_size; // both <= file size: no overflow
        if (archive_.cd_size > cd_limit_ - archive_.cd_offset) {
            problem("the central directory (" + std::to_string(archive_.cd_size) + " bytes at byte " +
                        std::to_string(archive_.cd_offset) + ") runs past the end records at byte " +
                        std::to_string(cd_limit_) + "; reading what lies before them",
                    archive_.cd_offset);
            end = cd_limit_;
        }
        // Every header takes 46 bytes at least: that, not the declared count, bounds the allocation.
        const std::uint64_t declared = archive_.declared_entries;
        archive_.entries.reserve(static_cast<std::size_t>(
            std::min<std::uint64_t>(declared, (end - archive_.cd_offset) / zip_central_header_size)));
        // Headers are read as long as they follow each other, whatever the count says: old writers
        // wrapped the 16-bit count past 65535 entries, and entries some readers would not list are
        // exactly what a scanner must see. A count that disagrees is reported.
        std::uint64_t p = archive_.cd_offset;
        for (std::uint64_t i = 0;; ++i) {
            const std::string which = "central directory entry " + std::to_string(i);
            if (end - p < zip_central_header_size || u32(p) != zip_central_signature) {
                if (i < declared)
                    problem(std::string(end - p < zip_central_header_size ? "the central directory ends"
                                                                          : "no central directory header signature") +
                                " after " + std::to_string(i) + " of the " + std::to_string(declared) +
                                " entries the end record declares",
                            p);
                break;
            }
            const std::uint64_t total = zip_central_header_size + std::uint64_t{u16(p + 28)} + u16(p + 30) + u16(p + 32);
            if (total > end - p) {
                problem(which + " (" + std::to_string(total) +
                            " bytes with its name, extra field and comment) runs past the end of the central directory",
                        p);
                break;
            }
            archive_.entries.push_back(central_entry(p));
            p += total;
        }
        if (archive_.entries.size() > declared)
            problem("the central directory holds " + std::to_string(archive_.entries.size()) + " entries, the end record declares " +
                        std::to_string(declared) + " (all are listed)",
                    archive_.cd_offset);
    }

    // The fields local and central headers share, in the same order, from "version needed to
    // extract" at `at` to the uncompressed size.
    void read_shared_fields(zip_entry& e, std::uint64_t at) const {
        e.version_needed = u16(at);
        e.flags = u16(at + 2);
        e.method = u16(at + 4);
        e.dos_time = u16(at + 6);
        e.dos_date = u16(at + 8);
        e.crc32 = u32(at + 10);
        e.compressed_size = u32(at + 14);
        e.uncompressed_size = u32(at + 18);
    }

    // From a header's extra field: Info-ZIP's extended timestamp (id 0x5455: a flags byte, then the
    // modification time in UTC seconds when bit 0 is set, the first value in both headers' copies)
    // and the Unicode Path name.
    static void read_name_fields(zip_entry& e, std::span<const std::uint8_t> extra) {
        if (const auto ut = zip_find_extra(extra, 0x5455); ut && ut->size() >= 5 && ((*ut)[0] & 1))
            e.unix_mtime = static_cast<std::int32_t>(util::read_le32(*ut, 1));
        e.unicode_name = unicode_path(extra, e.name);
    }

    zip_entry central_entry(std::uint64_t p) const {
        zip_entry e;
        e.central_offset = p;
        e.version_made_by = u16(p + 4);
        read_shared_fields(e, p + 6);
        const std::uint16_t name_size = u16(p + 28), extra_size = u16(p + 30), comment_size = u16(p + 32);
        std::uint64_t disk = u16(p + 34);
        e.external_attributes = u32(p + 38);
        e.local_offset = u32(p + 42);
        const auto* base = data_.data() + p + zip_central_header_size;
        e.name.assign(reinterpret_cast<const char*>(base), name_size);
        const auto extra = data_.subspan(static_cast<std::size_t>(p + zip_central_header_size + name_size), extra_size);
        e.comment.assign(reinterpret_cast<const char*>(base) + name_size + extra_size, comment_size);
        read_name_fields(e, extra);

        e.zip64 = e.uncompressed_size == 0xFFFFFFFFu || e.compressed_size == 0xFFFFFFFFu ||
                  e.local_offset == 0xFFFFFFFFu || disk == 0xFFFF;
        zip64_extra z(extra);
        const bool ok = z.take(e.uncompressed_size, 0xFFFFFFFFu, 8) && z.take(e.compressed_size, 0xFFFFFFFFu, 8) &&
                        z.take(e.local_offset, 0xFFFFFFFFu, 8) && z.take(disk, 0xFFFF, 4);
        if (e.local_offset > std::numeric_limits<std::uint64_t>::max() - archive_.prefix_size)
            zip_fail(e, zip_entry_status::corrupt, "local header offset beyond any archive", p + 42);
        else
            e.local_offset += archive_.prefix_size;
        if (!ok)
            zip_fail(e, zip_entry_status::corrupt,
                     "sizes, offset or disk are saturated but the ZIP64 extra field is missing or too short",
                     p + zip_central_header_size + name_size);
        if (disk != 0)
            zip_fail(e, zip_entry_status::corrupt, "entry starts on disk " + std::to_string(disk) +
                                                       " (multi-disk archives are not supported)",
                     p + 34);
        return e;
    }

    // The local header decides where the data starts (its name and extra field lengths may differ
    // from the central directory's); the rest of it must agree with the central directory, or two
    // readers could see two different archives.
    void check_local_header(zip_entry& e) const {
        if (e.status == zip_entry_status::corrupt) return;
        const std::uint64_t data_end = archive_.cd_offset; // entries' bytes precede the central directory
        const std::uint64_t lo = e.local_offset;
        if (lo > data_end || data_end - lo < zip_local_header_size) {
            zip_fail(e, zip_entry_status::corrupt,
                     "local header offset " + std::to_string(lo) + " does not leave room for a local header before the central directory at byte " +
                         std::to_string(data_end),
                     e.central_offset + 42);
            return;
        }
        if (u32(lo) != zip_local_signature) {
            zip_fail(e, zip_entry_status::corrupt, "no local header signature where the central directory points", lo);
            return;
        }
        const std::uint16_t flags = u16(lo + 6), method = u16(lo + 8);
        const std::uint32_t crc = u32(lo + 14);
        std::uint64_t csize = u32(lo + 18), usize = u32(lo + 22);
        const std::uint16_t name_size = u16(lo + 26), extra_size = u16(lo + 28);
        const std::uint64_t header_end = lo + zip_local_header_size + name_size + extra_size;
        if (header_end > data_end) {
            zip_fail(e, zip_entry_status::corrupt, "local header's name and extra field run into the central directory", lo + 26);
            return;
        }
        const std::string_view local_name(reinterpret_cast<const char*>(data_.data() + lo + zip_local_header_size), name_size);
        const auto extra = data_.subspan(static_cast<std::size_t>(lo + zip_local_header_size + name_size), extra_size);
        // The names agree as stored and as a reader of Unicode Path fields sees them: a reader of
        // local headers (a streaming one) and a reader of the central directory must see one name.
        // (A field that stands for its own header's name counts; a stale one is ignored by both.)
        const std::string local_unicode = unicode_path(extra, local_name);
        const std::string_view central_seen = e.unicode_name.empty() ? std::string_view(e.name) : std::string_view(e.unicode_name);
        const std::string_view local_seen = local_unicode.empty() ? local_name : std::string_view(local_unicode);
        if (local_name != e.name || local_seen != central_seen) {
            zip_fail(e, zip_entry_status::corrupt,
                     "local header names it " + archive_quote(local_seen) + ", the central directory " + archive_quote(central_seen),
                     lo + zip_local_header_size);
            return;
        }
        if (method != e.method) {
            zip_fail(e, zip_entry_status::corrupt,
                     "local header says method " + std::to_string(method) + ", the central directory " + std::to_string(e.method),
                     lo + 8);
            return;
        }
        zip64_extra z(extra);
        if (!(flags & zip_flag_data_descriptor)) {
            // APPNOTE 4.5.3: a local ZIP64 field holds both sizes, even when one alone is saturated.
            bool ok = true;
            if ((usize == 0xFFFFFFFFu || csize == 0xFFFFFFFFu) && z.size() >= 16) {
                if (usize == 0xFFFFFFFFu) usize = z.value_at(0);
                if (csize == 0xFFFFFFFFu) csize = z.value_at(8);
            } else {
                ok = z.take(usize, 0xFFFFFFFFu, 8) && z.take(csize, 0xFFFFFFFFu, 8);
            }
            if (!ok) {
                zip_fail(e, zip_entry_status::corrupt, "local header sizes are 0xFFFFFFFF but its ZIP64 extra field is missing or too short",
                         lo + zip_local_header_size + name_size);
                return;
            }
            if (crc != e.crc32 || csize != e.compressed_size || usize != e.uncompressed_size) {
                zip_fail(e, zip_entry_status::corrupt,
                         "local header (CRC-32 " + util::hex(crc, 8) + ", " + std::to_string(csize) + " -> " + std::to_string(usize) +
                             " bytes) disagrees with the central directory (CRC-32 " + util::hex(e.crc32, 8) + ", " +
                             std::to_string(e.compressed_size) + " -> " + std::to_string(e.uncompressed_size) + " bytes)",
                         lo + 14);
                return;
            }
        }
        e.data_offset = header_end;
        if (e.compressed_size > data_end - header_end) {
            zip_fail(e, zip_entry_status::corrupt,
                     "compressed size " + std::to_string(e.compressed_size) + " runs past the data area (" +
                         std::to_string(data_end - header_end) + " bytes from the data to the central directory)",
                     e.central_offset + 20);
            return;
        }
        std::uint64_t end = header_end + e.compressed_size;
        if (flags & zip_flag_data_descriptor) {
            const auto size = descriptor_size(end, data_end, e, z.present() || e.zip64);
            if (!size) {
                zip_fail(e, zip_entry_status::corrupt,
                         "the data descriptor after the data does not match the central directory's CRC-32 and sizes", end);
                return;
            }
            end += *size;
        }
        e.end_offset = end;
    }

    // A data descriptor: an optional signature, the CRC-32, then both sizes in 4 bytes each, or 8
    // in ZIP64 entries. Writers disagree on the signature and, for ZIP64, on the width, so every
    // layout is tried, the width named first first, and the first that `fits` wins.
    struct descriptor {
        std::uint64_t size = 0; // of the descriptor itself
        std::uint32_t crc = 0;
        std::uint64_t compressed = 0, uncompressed = 0;
    };
    template <class Fits>
    std::optional<descriptor> descriptor_at(std::uint64_t at, std::uint64_t limit, bool wide_first, Fits fits) const {
        for (const bool signature : {true, false}) {
            for (const bool wide : {wide_first, !wide_first}) {
                descriptor d;
                d.size = (signature ? 4 : 0) + 4 + (wide ? 16 : 8);
                if (limit - at < d.size) continue;
                std::uint64_t q = at;
                if (signature) {
                    if (u32(q) != zip_descriptor_signature) continue;
                    q += 4;
                }
                d.crc = u32(q);
                d.compressed = wide ? u64(q + 4) : u32(q + 4);
                d.uncompressed = wide ? u64(q + 12) : u32(q + 8);
                if (fits(d)) return d;
            }
        }
        return std::nullopt;
    }

    // The size of the descriptor at `at` that repeats the central directory's CRC-32 and sizes.
    std::optional<std::uint64_t> descriptor_size(std::uint64_t at, std::uint64_t limit, const zip_entry& e, bool wide_first) const {
        const auto d = descriptor_at(at, limit, wide_first, [&](const descriptor& x) {
            return x.crc == e.crc32 && x.compressed == e.compressed_size && x.uncompressed == e.uncompressed_size;
        });
        return d ? std::optional<std::uint64_t>(d->size) : std::nullopt;
    }

    // The size of the descriptor at `at` (where `e`'s data ends) whose compressed size is the data's;
    // its CRC-32 and uncompressed size are taken into `e` (a walk without the central directory).
    std::optional<std::uint64_t> descriptor_after(std::uint64_t at, zip_entry& e) const {
        const auto d = descriptor_at(at, data_.size(), e.zip64, [&](const descriptor& x) { return x.compressed == e.compressed_size; });
        if (!d) return std::nullopt;
        e.crc32 = d->crc;
        e.uncompressed_size = d->uncompressed;
        return d->size;
    }

    // Entries whose bytes overlap another's (the trick behind overlapping-entry ZIP bombs, and
    // ambiguity between readers): every entry but the first at those bytes is corrupt.
    void check_overlaps() {
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < archive_.entries.size(); ++i)
            if (archive_.entries[i].end_offset != 0) order.push_back(i);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return archive_.entries[a].local_offset < archive_.entries[b].local_offset;
        });
        std::uint64_t reach = 0;
        std::size_t owner = 0;
        for (const std::size_t i : order) {
            zip_entry& e = archive_.entries[i];
            if (reach > e.local_offset) {
                const zip_entry& o = archive_.entries[owner];
                zip_fail(e, zip_entry_status::corrupt,
                         "its bytes " + std::to_string(e.local_offset) + ".." + std::to_string(e.end_offset) +
                             " overlap those of entry " + archive_quote(o.name) + " (" + std::to_string(o.local_offset) + ".." +
                             std::to_string(o.end_offset) + ")",
                         e.local_offset);
            }
            if (e.end_offset > reach) {
                reach = e.end_offset;
                owner = i;
            }
        }
    }

    static void check_method(zip_entry& e) {
        if (e.status == zip_entry_status::corrupt) return;
        if ((e.flags & (zip_flag_encrypted | zip_flag_strong_encryption)) || e.method == zip_method_aes) {
            zip_fail(e, zip_entry_status::encrypted, "the entry is encrypted", e.central_offset + 8);
            return;
        }
        switch (e.method) {
        case zip_method_stored:
            // Sizes that differ by a multiple of 4 GiB: a writer that wrapped one of them at 32 bits
            // (libarchive reads these). The stored bytes are compressed_size long, and the CRC-32
            // checks them.
            if (e.compressed_size != e.uncompressed_size &&
                ((e.compressed_size ^ e.uncompressed_size) & 0xFFFFFFFFu) == 0) e.uncompressed_size = e.compressed_size;
            if (e.compressed_size != e.uncompressed_size)
                zip_fail(e, zip_entry_status::corrupt,
                         "stored entry with compressed size " + std::to_string(e.compressed_size) + " and uncompressed size " +
                             std::to_string(e.uncompressed_size),
                         e.central_offset + 20);
            return;
        case zip_method_deflate:
        case zip_method_zstd:
        case zip_method_zstd_legacy:
        case 12:  // bzip2 (format/zip_methods.hpp)
        case 14:  // LZMA
        case 95: return; // xz
#ifdef VYRE_HAVE_LIBARCHIVE
        case 98: return; // PPMd, through libarchive
#endif
        default:
            zip_fail(e, zip_entry_status::unsupported_method,
                     "compression method " + std::to_string(e.method) + " (" + zip_method_name(e.method) + ") is not supported" +
                         (e.method == 98 ? " in this build (vyre was built without libarchive)" : ""),
                     e.central_offset + 10);
        }
    }
};

} // namespace detail

} // namespace vyre::format
