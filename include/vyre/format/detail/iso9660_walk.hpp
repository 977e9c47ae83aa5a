// An ISO 9660 image's directory trees walked before libarchive reads it (format/libarchive.hpp).
// The libarchive that Debian 12 ships (3.6) has faults in its ISO 9660 reader that an image can
// reach, fixed upstream only in 2026: a Rock Ridge continuation area ("CE") that points back into
// one already read makes it loop while it allocates without bound, a
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

#include <algorithm>
#include <cstdint>
#include <functional>
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
        // libarchive keeps one block size for the image, the last descriptor's that it takes
        // (a Joliet one after the primary): each tree is walked with every size a descriptor gives.
        std::vector<std::pair<std::uint64_t, bool>> roots; // root record, Joliet
        std::vector<std::uint64_t> blocks;
        for (std::uint64_t at = 16 * sector; at + sector <= d_.size(); at += sector) {
            const std::uint8_t type = d_[at];
            if (std::string_view(reinterpret_cast<const char*>(d_.data() + at + 1), 5) != "CD001") break;
            if (type == 255) break; // the set's terminator
            if (type != 1 && type != 2) continue;
            // A supplementary descriptor is Joliet when its escape sequence names UCS-2 level 1 to 3.
            const bool joliet = type == 2 && d_[at + 88] == '%' && d_[at + 89] == '/' &&
                                (d_[at + 90] == '@' || d_[at + 90] == 'C' || d_[at + 90] == 'E');
            if (type == 2 && !joliet) continue;
            const std::uint64_t block = util::read_le16(d_, at + 128);
            if (block == 0) continue; // libarchive refuses it itself
            roots.emplace_back(at + 156, joliet);
            if (std::find(blocks.begin(), blocks.end(), block) == blocks.end()) blocks.push_back(block);
        }
        for (const std::uint64_t block : blocks)
            for (const auto& [root, joliet] : roots) {
                block_ = block;
                if (why_.empty()) walk_tree(root, joliet);
            }
        return {why_, at_};
    }

private:
    std::span<const std::uint8_t> d_;
    std::uint64_t block_ = 2048;
    std::uint64_t walked_ = 0; // directory and continuation bytes read, over every tree
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
        std::uint64_t skip = 0; // SUSP bytes to skip in each record, from the root's "SP" entry
        bool root = true;
        for (std::size_t q = 0; q < queue.size() && why_.empty(); ++q) {
            const directory dir = queue[q];
            if (dir.extent > d_.size() / block_) continue; // beyond the image: libarchive says so
            const std::uint64_t begin = dir.extent * block_;
            const std::uint64_t end = begin + std::min<std::uint64_t>(dir.size, d_.size() - begin);
            if (!count(end - begin, begin)) return;
            for (std::uint64_t pos = begin; pos < end && why_.empty();) {
                const std::uint64_t len = d_[pos];
                if (len == 0) { // records do not cross blocks: the rest of this one is padding
                    pos = (pos / block_ + 1) * block_;
                    continue;
                }
                const std::uint64_t name_len = pos + 33 <= end ? d_[pos + 32] : 0;
                if (len < 34 || len > end - pos || 33 + name_len > len) break; // malformed: libarchive reports it
                const bool self_or_parent = name_len == 1 && (d_[pos + 33] == 0 || d_[pos + 33] == 1);
                // SUSP entries, in both trees (libarchive 3.6 reads Rock Ridge in Joliet records
                // too). The root's "." record holds "SP" and the skip; its own entries are read
                // from each place a reader may start them.
                const std::uint64_t susp = pos + 33 + name_len + (name_len % 2 == 0 ? 1 : 0);
                if (root && self_or_parent && d_[pos + 33] == 0) {
                    skip = sp_skip(susp, pos + len);
                    for (const std::uint64_t from : {susp, susp + 7, susp + 7 + skip})
                        if (from < pos + len) read_susp(from, pos + len);
                } else if (susp + skip < pos + len) {
                    read_susp(susp + skip, pos + len);
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
        if (at < end && end - at >= 7 && d_[at] == 'S' && d_[at + 1] == 'P' && d_[at + 4] == 0xBE && d_[at + 5] == 0xEF) return d_[at + 6];
        return 0;
    }

    // Counts bytes read against the walk's budget (8 times the image); false once it is spent.
    bool count(std::uint64_t n, std::uint64_t at) {
        walked_ += n;
        if (walked_ <= 8 * d_.size()) return true;
        refuse("directories or continuation areas reached again and again", at);
        return false;
    }

    // The SUSP entries of [at, end), then of every continuation area they lead to, in the order of
    // their offsets (as libarchive reads them), each after the last one read: libarchive 3.6
    // loops on an area that points back, later ones refuse it. Every CE entry is followed, whatever
    // its version, so that none libarchive follows is missed.
    void read_susp(std::uint64_t at, std::uint64_t end) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> areas; // (start, length), to read
        std::uint64_t read_to = 0; // the end of the last continuation area read for this record
        for (bool first = true; why_.empty(); first = false) {
            while (end - at >= 4 && why_.empty()) {
                const std::uint64_t len = d_[at + 2];
                if (len < 4 || len > end - at) break;
                const char a = static_cast<char>(d_[at]), b = static_cast<char>(d_[at + 1]);
                if (a == 'S' && b == 'T' && len == 4 && d_[at + 3] == 1) break; // the terminator, as libarchive takes it
                if (a == 'Z' && b == 'F') {
                    if (len < 16) refuse("a zisofs (ZF) entry of " + std::to_string(len) + " bytes (16 are needed)", at);
                    else if (d_[at + 7] < 15 || d_[at + 7] > 17)
                        refuse("a zisofs (ZF) block size of 2^" + std::to_string(d_[at + 7]) + " bytes (2^15 to 2^17 are defined)", at + 7);
                }
                if (a == 'C' && b == 'E' && len >= 28) {
                    const std::uint64_t block = util::read_le32(d_, at + 4), offset = util::read_le32(d_, at + 12);
                    const std::uint64_t length = util::read_le32(d_, at + 20);
                    const std::uint64_t start = block * block_ + offset;
                    // One libarchive refuses itself (past the block or the image) is not followed.
                    if (offset + length <= block_ && start <= d_.size() && length <= d_.size() - start) {
                        if (!first && start < read_to) {
                            refuse("a Rock Ridge continuation area (CE) that points back into one already read", at);
                            return;
                        }
                        areas.emplace_back(start, length);
                        std::push_heap(areas.begin(), areas.end(), std::greater<>());
                    }
                }
                at += len;
            }
            if (areas.empty() || !why_.empty()) return;
            std::pop_heap(areas.begin(), areas.end(), std::greater<>());
            const auto [start, length] = areas.back();
            areas.pop_back();
            if (start < read_to) {
                refuse("Rock Ridge continuation areas (CE) that overlap", start);
                return;
            }
            if (!count(length, start)) return;
            at = start;
            end = start + length;
            read_to = end;
        }
    }
};

// Why libarchive must not read `image` as ISO 9660, with the byte offset; empty where it may.
inline std::pair<std::string, std::uint64_t> iso9660_walk_refusal(std::span<const std::uint8_t> image) {
    return iso9660_walk(image).run();
}

} // namespace vyre::format::detail
