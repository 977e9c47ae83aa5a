// An ISO 9660 image's directory trees walked before libarchive reads it (format/libarchive.hpp).
// The libarchive that Debian 12 ships (3.6) has faults in its ISO 9660 reader that an image can
// reach, fixed upstream only in 2026: a Rock Ridge continuation area ("CE") that points back into
// one already read makes it loop while it allocates without bound (a 375 KB image took 24 GB), a
// Joliet path longer than its 1,024-byte buffer is written past the buffer's end, and a short or
// malformed zisofs entry ("ZF") is read past its end. This walk finds each of those shapes and
// refuses the image with the reason, so that libarchive never sees one.
#pragma once

// The walk reads the primary tree (where Rock Ridge lives) and the Joliet tree, and every SUSP
// entry of every record, following continuation areas forward only. A directory is read once in
// the primary tree; in the Joliet tree again only where it is reached by a longer path (what
// libarchive builds the path from), and a tree that makes the walk read more than 8 times the
// image's bytes is refused. What it does not understand it leaves to libarchive, which reports
// it: only the shapes above are refused here.

#include <vyre/util/little_endian.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vyre::format::detail {

// What libarchive 3.6 allows a Joliet path (UTF-16BE bytes, components and 2-byte separators).
inline constexpr std::uint64_t iso9660_joliet_path_max = 1024;

class iso9660_walk {
public:
    explicit iso9660_walk(std::span<const std::uint8_t> image) : d_(image) {}

    // Why the image is refused, and the byte offset; empty where nothing found is refused.
    std::pair<std::string, std::uint64_t> run() {
        constexpr std::uint64_t sector = 2048;
        for (std::uint64_t at = 16 * sector; at + sector <= d_.size() && why_.empty(); at += sector) {
            const std::uint8_t type = d_[at];
            if (std::string_view(reinterpret_cast<const char*>(d_.data() + at + 1), 5) != "CD001") break;
            if (type == 255) break; // the set's terminator
            if (type != 1 && type != 2) continue;
            const std::uint64_t block = util::read_le16(d_, at + 128);
            if (block != 512 && block != 1024 && block != 2048) continue; // libarchive refuses it itself
            // A supplementary descriptor is Joliet when its escape sequence names UCS-2 level 1 to 3.
            const bool joliet = type == 2 && d_[at + 88] == '%' && d_[at + 89] == '/' &&
                                (d_[at + 90] == '@' || d_[at + 90] == 'C' || d_[at + 90] == 'E');
            if (type == 2 && !joliet) continue;
            block_ = block;
            walk_tree(at + 156, joliet);
        }
        return {why_, at_};
    }

private:
    std::span<const std::uint8_t> d_;
    std::uint64_t block_ = 2048;
    std::string why_;
    std::uint64_t at_ = 0;

    void refuse(std::string why, std::uint64_t at) {
        if (!why_.empty()) return;
        why_ = "iso9660: " + std::move(why) + " (the ISO 9660 reader of libarchive 3.6 fails unsafely on it)";
        at_ = at;
    }

    struct directory {
        std::uint64_t extent = 0, size = 0;
        std::uint64_t path_bytes = 0; // Joliet: the path's UTF-16BE bytes
    };

    void walk_tree(std::uint64_t root_record, bool joliet) {
        std::vector<directory> queue{{util::read_le32(d_, root_record + 2), util::read_le32(d_, root_record + 10), 0}};
        std::unordered_map<std::uint64_t, std::uint64_t> seen{{queue.front().extent, 0}}; // extent -> longest path queued
        std::uint64_t walked = 0;
        std::uint64_t skip = 0; // SUSP bytes to skip in each record, from the root's "SP" entry
        bool root = true;
        for (std::size_t q = 0; q < queue.size() && why_.empty(); ++q) {
            const directory dir = queue[q];
            if (dir.extent > d_.size() / block_) continue; // beyond the image: libarchive says so
            const std::uint64_t begin = dir.extent * block_;
            const std::uint64_t end = begin + std::min<std::uint64_t>(dir.size, d_.size() - begin);
            walked += end - begin;
            if (walked > 8 * d_.size()) {
                refuse("a directory tree that reaches its directories again and again", begin);
                return;
            }
            for (std::uint64_t pos = begin; pos < end && why_.empty();) {
                const std::uint64_t len = d_[pos];
                if (len == 0) { // records do not cross sectors: the rest of this one is padding
                    pos = (pos / 2048 + 1) * 2048;
                    continue;
                }
                const std::uint64_t name_len = pos + 33 <= end ? d_[pos + 32] : 0;
                if (len < 34 || len > end - pos || 33 + name_len > len) break; // malformed: libarchive reports it
                const bool self_or_parent = name_len == 1 && (d_[pos + 33] == 0 || d_[pos + 33] == 1);
                if (!joliet) {
                    const std::uint64_t susp = pos + 33 + name_len + (name_len % 2 == 0 ? 1 : 0);
                    if (root && self_or_parent && d_[pos + 33] == 0) skip = sp_skip(susp, pos + len);
                    if (susp + skip < pos + len) read_susp(susp + skip, pos + len);
                }
                if ((d_[pos + 25] & 2) && !self_or_parent) {
                    directory child{util::read_le32(d_, pos + 2), util::read_le32(d_, pos + 10), 0};
                    if (joliet) {
                        child.path_bytes = dir.path_bytes + (dir.path_bytes ? 2 : 0) + name_len;
                        if (child.path_bytes + 2 > iso9660_joliet_path_max)
                            refuse("a Joliet path of more than " + std::to_string(iso9660_joliet_path_max / 2 - 1) + " characters", pos + 33);
                    }
                    const auto [it, fresh] = seen.try_emplace(child.extent, child.path_bytes);
                    if (fresh || (joliet && child.path_bytes > it->second)) {
                        it->second = child.path_bytes;
                        queue.push_back(child);
                    }
                }
                pos += len;
            }
            root = false;
        }
    }

    // The root's "SP" entry ("SP", length 7, version, 0xBE 0xEF, bytes to skip).
    std::uint64_t sp_skip(std::uint64_t at, std::uint64_t end) const {
        if (end - at >= 7 && d_[at] == 'S' && d_[at + 1] == 'P' && d_[at + 4] == 0xBE && d_[at + 5] == 0xEF) return d_[at + 6];
        return 0;
    }

    // The SUSP entries of [at, end), then of each continuation area they lead to, each area after
    // the one before it (later libarchives refuse the rest, and 3.6 loops on them).
    void read_susp(std::uint64_t at, std::uint64_t end) {
        std::uint64_t read_to = 0; // the end of the last continuation area read for this record
        for (int areas = 0; why_.empty(); ++areas) {
            std::uint64_t next = 0, next_len = 0;
            while (end - at >= 4 && why_.empty()) {
                const std::uint64_t len = d_[at + 2];
                if (len < 4 || len > end - at) break;
                const char a = static_cast<char>(d_[at]), b = static_cast<char>(d_[at + 1]);
                if (a == 'S' && b == 'T') break; // the terminator
                if (a == 'Z' && b == 'F') {
                    if (len < 16) refuse("a zisofs (ZF) entry of " + std::to_string(len) + " bytes (16 are needed)", at);
                    else if (d_[at + 7] < 15 || d_[at + 7] > 17)
                        refuse("a zisofs (ZF) block size of 2^" + std::to_string(d_[at + 7]) + " bytes (2^15 to 2^17 are defined)", at + 7);
                }
                if (a == 'C' && b == 'E' && len >= 28) {
                    const std::uint64_t block = util::read_le32(d_, at + 4), offset = util::read_le32(d_, at + 12);
                    next_len = util::read_le32(d_, at + 20);
                    next = block * block_ + offset;
                    if (offset + next_len > block_ || next > d_.size() || next_len > d_.size() - next) next = 0; // libarchive refuses it
                    else if (next < read_to) {
                        refuse("a Rock Ridge continuation area (CE) that points back into one already read", at);
                        return;
                    }
                }
                at += len;
            }
            if (next == 0 || areas >= 1 << 16) return;
            at = next;
            end = next + next_len;
            read_to = end;
        }
    }
};

// Why libarchive must not read `image` as ISO 9660, with the byte offset; empty where it may.
inline std::pair<std::string, std::uint64_t> iso9660_walk_refusal(std::span<const std::uint8_t> image) {
    return iso9660_walk(image).run();
}

} // namespace vyre::format::detail
