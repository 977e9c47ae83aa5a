// Part of format/tar.hpp (included there after the public types and the field helpers): the parser
// that reads header after header, folds extension headers ('L', 'K', 'x', 'g' and the vendors')
// into the entry they describe, and reads GNU sparse maps.
#pragma once

#include <vyre/error.hpp>
#include <vyre/format/names.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::format::detail {

class tar_parser {
public:
    // `prefix`: the input may end inside an entry (parse_tar_prefix).
    explicit tar_parser(std::span<const std::uint8_t> data, bool prefix = false) : data_(data), prefix_(prefix) {}

    tar_archive run() {
        while (pos_ < data_.size()) {
            const std::uint64_t left = data_.size() - pos_;
            const auto rest = data_.subspan(static_cast<std::size_t>(pos_));
            if (left < tar_block_size) {
                if (prefix_) return cut_short(pos_);
                if (tar_zero_block(rest)) break; // zero padding cut short: still the end
                throw format_error("truncated tar header: " + std::to_string(left) + " bytes remain, a header needs 512",
                                   pos_);
            }
            const auto block = rest.first(tar_block_size);
            if (tar_zero_block(block)) {
                archive_.end_marker = true;
                break;
            }
            if (!header(block)) return cut_short(pos_);
        }
        archive_.end_offset = std::min<std::uint64_t>(pos_, data_.size());
        if (pending_ && prefix_) return cut_short(pos_);
        if (pending_)
            throw format_error("tar extension header at byte offset " + std::to_string(pending_first_) +
                                   " is not followed by the entry it describes",
                               archive_.end_offset);
        return std::move(archive_);
    }

private:
    std::span<const std::uint8_t> data_;
    bool prefix_ = false;
    std::uint64_t pos_ = 0;
    tar_archive archive_;
    // Extension headers ('L', 'K', 'x') waiting for the entry they describe.
    bool pending_ = false;
    std::uint64_t pending_first_ = 0;
    std::optional<std::string> long_name_;
    std::optional<std::string> long_link_;
    std::map<std::string, std::string> pax_;

    // A numeric field of the header block that starts at byte `header_at` of the archive.
    static std::int64_t number(std::span<const std::uint8_t> block, std::uint64_t header_at, std::size_t at,
                               std::size_t width, const char* what, const std::string& entry) {
        const auto v = tar_number(block.subspan(at, width));
        if (!v)
            throw format_error("tar entry " + archive_quote(entry) + ": the " + what +
                                   " field is neither an octal nor a base-256 number",
                               header_at + at);
        return *v;
    }

    // The value of a pax key for the entry: its own 'x' records first, then the global ones. An
    // empty value deletes the key (POSIX), leaving the header field in force.
    std::optional<std::string> pax(const std::string& key) const {
        auto it = pax_.find(key);
        if (it == pax_.end()) {
            it = archive_.global_pax.find(key);
            if (it == archive_.global_pax.end()) return std::nullopt;
        }
        if (it->second.empty()) return std::nullopt;
        return it->second;
    }

    // The archive up to the entry that starts at `at` (or its first extension header).
    tar_archive cut_short(std::uint64_t at) {
        archive_.end_offset = pending_ ? pending_first_ : at;
        archive_.cut_short = true;
        return std::move(archive_);
    }

    // Reads the header at pos_ and moves past the entry; false (in a prefix) where the input ends
    // inside it.
    bool header(std::span<const std::uint8_t> block) {
        const std::uint64_t at = pos_;
        const std::string field_name = tar_string(block.first(100));
        const tar_checksum sum = tar_header_checksum(block);
        if (!sum.stored)
            throw format_error("tar header (name field " + archive_quote(field_name) +
                                   "): the checksum field is not an octal number: not a tar header",
                               at + 148);
        if (!sum.ok())
            throw format_error("tar header checksum mismatch (name field " + archive_quote(field_name) + "): stored " +
                                   tar_octal(*sum.stored) + ", computed " + tar_octal(sum.unsigned_sum) +
                                   " (unsigned) or " + tar_octal(sum.signed_sum) + " (signed), in octal",
                               at + 148);
        const std::string_view magic(reinterpret_cast<const char*>(block.data() + tar_magic_offset), tar_gnu_magic.size());
        tar_header_format format = tar_header_format::v7;
        if (magic.substr(0, tar_ustar_magic.size()) == tar_ustar_magic) format = tar_header_format::ustar;
        else if (magic == tar_gnu_magic) format = tar_header_format::gnu;
        const char typeflag = static_cast<char>(block[156]);

        std::string name = field_name;
        if (format == tar_header_format::ustar) {
            // The GNU header keeps atime/ctime where ustar has the prefix: only ustar has one.
            if (const std::string prefix = tar_string(block.subspan(345, 155)); !prefix.empty()) name = prefix + "/" + name;
        }
        const std::string shown = long_name_ ? *long_name_ : name; // the name messages use
        const std::int64_t raw_size = number(block, at, 124, 12, "size", shown);
        if (raw_size < 0)
            throw format_error("tar entry " + archive_quote(shown) + " has a negative size (" + std::to_string(raw_size) + ")",
                               at + 124);
        std::uint64_t size = static_cast<std::uint64_t>(raw_size);
        const bool extension = tar_extension_header(typeflag);
        if (!extension) {
            if (const auto s = pax("size")) {
                const auto v = tar_pax_integer(*s, false);
                if (!v) throw format_error("tar entry " + archive_quote(shown) + ": pax size " + archive_quote(*s) + " is not a number", at);
                size = static_cast<std::uint64_t>(*v);
            }
            if (!tar_type_has_data(typeflag)) size = 0;
        }
        std::uint64_t data_offset = at + tar_block_size;
        std::vector<tar_sparse_segment> gnu_map;
        std::string gnu_problem;
        if (typeflag == 'S' && format == tar_header_format::gnu) {
            // Old GNU sparse files: four map entries in the header (offset and size, 12 bytes
            // each, from byte 386), more in extension blocks between header and data (21 each),
            // each flagging (byte 482 of the header, 504 of a block) whether another follows. An
            // entry whose offset field is empty ends the map.
            const auto read_map = [&](std::span<const std::uint8_t> b, std::size_t first, std::size_t count, std::uint64_t b_at) {
                for (std::size_t k = 0; k < count && gnu_problem.empty(); ++k) {
                    const std::size_t o = first + 24 * k;
                    if (b[o] == 0) return;
                    const auto off = tar_number(b.subspan(o, 12)), n = tar_number(b.subspan(o + 12, 12));
                    if (!off || !n || *off < 0 || *n < 0)
                        gnu_problem = "map entry at byte offset " + std::to_string(b_at + o) + " is not two numbers of at least 0";
                    else
                        gnu_map.push_back({static_cast<std::uint64_t>(*off), static_cast<std::uint64_t>(*n)});
                }
            };
            read_map(block, 386, 4, at);
            bool more = block[482] != 0;
            while (more) {
                if (data_.size() - data_offset < tar_block_size && prefix_) return false;
                if (data_.size() - data_offset < tar_block_size)
                    throw format_error("truncated GNU sparse extension header of tar entry " + archive_quote(shown), data_offset);
                read_map(data_.subspan(static_cast<std::size_t>(data_offset), tar_block_size), 0, 21, data_offset);
                more = data_[data_offset + 504] != 0;
                data_offset += tar_block_size;
            }
        }
        const std::uint64_t remaining = data_.size() - data_offset;
        const std::uint64_t padded = (size + tar_block_size - 1) / tar_block_size * tar_block_size;
        // In a prefix, an entry ends with its padding (the next header starts a block further on).
        if (prefix_ && (size > remaining || padded > remaining)) return false;
        if (size > remaining) {
            const char* what = typeflag == 'L' ? "GNU long name header"
                : typeflag == 'K'              ? "GNU long link header"
                : typeflag == 'x'              ? "pax extended header"
                : typeflag == 'X'              ? "Solaris extended header"
                : typeflag == 'A'              ? "Solaris ACL header"
                : typeflag == 'E'              ? "Solaris extended attribute header"
                : typeflag == 'g'              ? "pax global header"
                : typeflag == 'V'              ? "GNU volume header"
                                               : nullptr;
            throw format_error(std::string(what ? what : "tar entry") + (what ? " for " : " ") + archive_quote(shown) +
                                   " (header at byte offset " + std::to_string(at) + ") declares " + std::to_string(size) +
                                   " bytes of data, only " + std::to_string(remaining) + " remain in the archive",
                               at + 124);
        }
        const auto data = data_.subspan(static_cast<std::size_t>(data_offset), static_cast<std::size_t>(size));
        // size <= remaining < data_.size(): rounding up cannot overflow.
        pos_ = data_offset + std::min(padded, remaining);

        if (extension) {
            if (!pending_) pending_first_ = at;
            switch (typeflag) {
            case 'L': long_name_ = tar_string(data); break;
            case 'K': long_link_ = tar_string(data); break;
            case 'x':
            case 'X': tar_pax_records(data, data_offset, pax_, &archive_.warnings); break;
            case 'A':
            case 'E': break; // ACLs and extended attributes are not kept
            case 'V': return true; // the volume's name: not tied to one entry
            case 'g': // not tied to one entry
                tar_pax_records(data, data_offset, archive_.global_pax, &archive_.warnings);
                return true;
            }
            pending_ = true;
            return true;
        }

        tar_entry e;
        e.typeflag = typeflag;
        e.format = format;
        e.header_offset = at;
        e.first_header_offset = pending_ ? pending_first_ : at;
        e.data_offset = data_offset;
        e.size = size;
        e.name = long_name_ ? *long_name_ : name;
        e.link_target = long_link_ ? *long_link_ : tar_string(block.subspan(157, 100));
        e.mode = static_cast<std::uint32_t>(number(block, at, 100, 8, "mode", e.name) & 07777);
        e.uid = static_cast<std::uint64_t>(number(block, at, 108, 8, "uid", e.name));
        e.gid = static_cast<std::uint64_t>(number(block, at, 116, 8, "gid", e.name));
        e.mtime = number(block, at, 136, 12, "mtime", e.name);
        if (format != tar_header_format::v7) {
            e.uname = tar_string(block.subspan(265, 32));
            e.gname = tar_string(block.subspan(297, 32));
            e.dev_major = static_cast<std::uint32_t>(number(block, at, 329, 8, "devmajor", e.name));
            e.dev_minor = static_cast<std::uint32_t>(number(block, at, 337, 8, "devminor", e.name));
        }
        apply_pax(e);
        e.type = tar_type_of(typeflag, e.name);
        if (e.type == tar_entry_type::sparse && format == tar_header_format::gnu) {
            e.sparse_map = std::move(gnu_map);
            e.sparse_problem = std::move(gnu_problem);
            const auto real = tar_number(block.subspan(483, 12));
            if (!real || *real < 0) {
                if (e.sparse_problem.empty()) e.sparse_problem = "the file size field (byte offset " + std::to_string(at + 483) + ") is not a number of at least 0";
            } else {
                e.sparse_size = static_cast<std::uint64_t>(*real);
            }
        }
        // The entry's own pax records only: a global header cannot make every later entry sparse.
        if (own_pax("GNU.sparse.major") || own_pax("GNU.sparse.map") || own_pax("GNU.sparse.size") || own_pax("GNU.sparse.offset")) {
            e.type = tar_entry_type::sparse;
            if (const auto real = own_pax("GNU.sparse.name")) e.name = *real;
            e.sparse_problem = apply_sparse_pax(e);
        }
        archive_.entries.push_back(std::move(e));
        pending_ = false;
        long_name_.reset();
        long_link_.reset();
        pax_.clear();
        return true;
    }

    // The value of a pax key from the entry's own extended header ('x'), not a global one.
    std::optional<std::string> own_pax(const std::string& key) const {
        const auto it = pax_.find(key);
        if (it == pax_.end() || it->second.empty()) return std::nullopt;
        return it->second;
    }

    // The pax records of a sparse file: format 1.0 (GNU.sparse.major 1, the map in the data, the
    // size in GNU.sparse.realsize), 0.1 (GNU.sparse.map "offset,size,..."), 0.0 (the pairs
    // GNU.sparse.offset and GNU.sparse.numbytes, repeated; the size in GNU.sparse.size). Returns
    // what does not fit together, or empty.
    std::string apply_sparse_pax(tar_entry& e) const {
        std::string problem;
        const auto integer = [&](const std::string& text, const char* what) -> std::uint64_t {
            const auto n = tar_pax_integer(text, false);
            if (!n || std::to_string(*n) != text) {
                if (problem.empty()) problem = std::string(what) + " " + archive_quote(text) + " is not a number";
                return 0;
            }
            return static_cast<std::uint64_t>(*n);
        };
        const auto numbers = [&](const std::string& list, const char* what) {
            std::vector<std::uint64_t> out;
            for (std::size_t p = 0; p <= list.size() && problem.empty();) {
                const std::size_t q = std::min(list.find(',', p), list.size());
                out.push_back(integer(list.substr(p, q - p), what));
                p = q + 1;
            }
            return out;
        };
        const auto major = own_pax("GNU.sparse.major"), minor = own_pax("GNU.sparse.minor");
        if (major) {
            if (*major != "1" || (minor && *minor != "0"))
                return "format " + *major + "." + (minor ? *minor : std::string("?")) + " is not one GNU tar writes";
            const auto real = own_pax("GNU.sparse.realsize");
            if (!real) return "format 1.0 without GNU.sparse.realsize";
            e.sparse_size = integer(*real, "size");
            e.sparse_map_in_data = true;
            return problem;
        }
        const auto size = own_pax("GNU.sparse.size");
        if (!size) return "map without GNU.sparse.size";
        e.sparse_size = integer(*size, "size");
        std::vector<std::uint64_t> flat;
        if (const auto map = own_pax("GNU.sparse.map")) {
            flat = numbers(*map, "map entry");
        } else {
            const auto offsets = own_pax("GNU.sparse.offset"), sizes = own_pax("GNU.sparse.numbytes");
            if (!offsets || !sizes) return "map without GNU.sparse.offset or GNU.sparse.numbytes";
            const auto o = numbers(*offsets, "offset"), n = numbers(*sizes, "size");
            if (problem.empty() && o.size() != n.size())
                return "map with " + std::to_string(o.size()) + " offsets and " + std::to_string(n.size()) + " sizes";
            for (std::size_t k = 0; k < std::min(o.size(), n.size()); ++k) flat.insert(flat.end(), {o[k], n[k]});
        }
        if (!problem.empty()) return problem;
        if (flat.size() % 2) return "map of an odd number of values";
        for (std::size_t k = 0; k < flat.size(); k += 2) e.sparse_map.push_back({flat[k], flat[k + 1]});
        return {};
    }

    void apply_pax(tar_entry& e) {
        if (!pax_.empty()) e.format = tar_header_format::pax;
        if (const auto v = pax("path")) e.name = *v;
        if (const auto v = pax("linkpath")) e.link_target = *v;
        if (const auto v = pax("uname")) e.uname = *v;
        if (const auto v = pax("gname")) e.gname = *v;
        const auto integer = [&](const char* key, bool sign) -> std::optional<std::int64_t> {
            const auto v = pax(key);
            if (!v) return std::nullopt;
            const auto n = tar_pax_integer(*v, sign);
            if (!n)
                throw format_error("tar entry " + archive_quote(e.name) + ": pax " + key + " " + archive_quote(*v) +
                                       " is not a number",
                                   e.first_header_offset);
            return n;
        };
        if (const auto n = integer("uid", false)) e.uid = static_cast<std::uint64_t>(*n);
        if (const auto n = integer("gid", false)) e.gid = static_cast<std::uint64_t>(*n);
        if (const auto n = integer("mtime", true)) e.mtime = *n;
    }
};

} // namespace vyre::format::detail
