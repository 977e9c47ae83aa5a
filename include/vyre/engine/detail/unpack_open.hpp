// Part of engine/unpack.hpp (included there after the public types): step 1 of a layer, opening
// containers. A tar lists its entries (views into its bytes), a ZIP its entries (stored ones are
// views, deflate and zstd ones become decode jobs), a compressed stream one decode job for its
// content. Entry names and link targets are checked here, before anything is decoded.
#pragma once

#include <vyre/engine/detail/unpack_names.hpp>
#include <vyre/engine/detail/unpack_state.hpp>
#include <vyre/error.hpp>
#include <vyre/format/names.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/zip.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vyre::engine::detail {

namespace fmt = format;

// What opening one container found: its entries, the decode jobs that make their content, and
// damage to the container itself.
struct opened {
    std::vector<item> items;
    std::vector<decode_job> jobs;
    std::vector<unpack_problem> problems;
};

inline item make_item(const container& c, std::uint32_t index, std::string_view raw_name, checked_name&& name) {
    item it;
    it.parent = &c;
    it.e.depth = c.depth;
    it.e.order = c.order;
    it.e.order.push_back(index);
    it.e.path = c.path + "!/" + (name.refusal.empty() ? name.path : std::string(raw_name));
    if (name.refusal.empty()) it.e.output_path = join_path(c.out_prefix, name.path);
    else {
        it.e.status = unpack_status::refused;
        it.e.message = name.refusal + ": " + fmt::archive_quote(raw_name);
    }
    return it;
}

inline void open_tar(const container& c, opened& out) {
    fmt::tar_archive tar;
    try {
        tar = fmt::parse_tar(c.data.bytes);
    } catch (const format_error& e) {
        // A tar has no index: nothing after a broken header can be found. The entries before
        // it are kept (headers start on 512-byte boundaries, so the damage's block is where
        // the readable part ends; an extension header cut off there moves the end back again).
        std::uint64_t cut = e.offset() == format_error::npos ? 0 : std::min<std::uint64_t>(e.offset(), c.data.bytes.size());
        cut = cut / fmt::tar_block_size * fmt::tar_block_size;
        for (int attempt = 0; attempt < 4 && cut > 0; ++attempt) {
            try {
                tar = fmt::parse_tar(c.data.bytes.first(static_cast<std::size_t>(cut)));
                break;
            } catch (const format_error& again) {
                const std::uint64_t o = again.offset() == format_error::npos ? 0 : again.offset();
                cut = std::min(cut - fmt::tar_block_size, o / fmt::tar_block_size * fmt::tar_block_size);
                tar = {};
            }
        }
        out.problems.push_back({c.path, unpack_status::corrupt,
                                std::string("tar: ") + e.what() + "; " + std::to_string(tar.entries.size()) +
                                    " entries before it kept, the rest of the archive is unreadable",
                                c.order});
    }
    std::unordered_map<std::string, int> seen; // checked path -> item, for hard links
    for (std::size_t i = 0; i < tar.entries.size(); ++i) {
        const auto& t = tar.entries[i];
        checked_name name = check_entry_name(t.name);
        if (name.refusal.empty() && name.path.empty()) continue; // "./": the archive's root folder
        const std::string rel = name.path;
        item it = make_item(c, static_cast<std::uint32_t>(i), t.name, std::move(name));
        it.e.method = "stored";
        it.e.mode = t.mode;
        it.e.link_target = t.link_target;
        switch (t.type) {
        case fmt::tar_entry_type::regular:
            it.e.type = unpack_entry_type::file;
            it.content = {fmt::tar_entry_data(c.data.bytes, t), c.data.owner};
            break;
        case fmt::tar_entry_type::directory: it.e.type = unpack_entry_type::directory; break;
        case fmt::tar_entry_type::symlink: it.e.type = unpack_entry_type::symlink; break;
        case fmt::tar_entry_type::hard_link: it.e.type = unpack_entry_type::hard_link; break;
        case fmt::tar_entry_type::sparse:
            it.e.type = unpack_entry_type::file;
            if (it.e.status == unpack_status::ok) {
                it.e.status = unpack_status::refused;
                it.e.message = "GNU sparse files are not supported";
            }
            break;
        default: it.e.type = unpack_entry_type::other; break;
        }
        it.e.size = it.content.bytes.size();
        it.e.compressed_size = it.e.size;
        if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::hard_link) {
            const checked_name target = check_entry_name(t.link_target);
            const auto found = target.refusal.empty() ? seen.find(target.path) : seen.end();
            if (found == seen.end()) {
                it.e.status = unpack_status::refused;
                it.e.message = "hard link to " + fmt::archive_quote(t.link_target) +
                               ", which is not a file earlier in the archive";
            } else {
                it.link_item = found->second;
            }
        }
        if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::file)
            seen[rel] = static_cast<int>(out.items.size());
        if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::symlink)
            if (std::string why = check_link_target(it.e.output_path, t.link_target); !why.empty()) {
                it.e.status = unpack_status::refused;
                it.e.message = why + ": " + fmt::archive_quote(t.link_target);
            }
        out.items.push_back(std::move(it));
    }
}

inline void open_zip(const container& c, opened& out) {
    fmt::zip_archive zip;
    try {
        zip = fmt::parse_zip(c.data.bytes);
    } catch (const std::exception& e) {
        out.problems.push_back({c.path, unpack_status::corrupt, std::string("ZIP: ") + e.what(), c.order});
        return;
    }
    for (const auto& p : zip.problems)
        out.problems.push_back({c.path, unpack_status::corrupt,
                                "ZIP central directory: " + p.message +
                                    (p.offset != format_error::npos ? " (byte offset " + std::to_string(p.offset) + ")" : ""),
                                c.order});
    for (std::size_t i = 0; i < zip.entries.size(); ++i) {
        const auto& z = zip.entries[i];
        checked_name name = check_entry_name(z.name);
        if (name.refusal.empty() && name.path.empty()) continue;
        item it = make_item(c, static_cast<std::uint32_t>(i), z.name, std::move(name));
        it.e.method = z.is_zstd() ? "zstd" : fmt::zip_method_name(z.method);
        it.e.size = z.uncompressed_size;
        it.e.compressed_size = z.compressed_size;
        it.e.mode = z.unix_mode() & 07777;
        it.e.type = z.is_directory() ? unpack_entry_type::directory
                    : z.is_symlink() ? unpack_entry_type::symlink
                                     : unpack_entry_type::file;
        if (it.e.status == unpack_status::ok && z.status != fmt::zip_entry_status::ok) {
            it.e.status = z.status == fmt::zip_entry_status::corrupt ? unpack_status::corrupt : unpack_status::refused;
            it.e.message = std::string(fmt::zip_entry_status_name(z.status)) + ": " + z.problem +
                           (z.problem_offset != format_error::npos ? " (byte offset " + std::to_string(z.problem_offset) + ")" : "");
        }
        if (it.e.status == unpack_status::ok && it.e.type != unpack_entry_type::directory) {
            const auto data = fmt::zip_entry_data(c.data.bytes, z);
            if (z.method == fmt::zip_method_stored) {
                it.content = {data, c.data.owner};
                it.crc = z.crc32;
            } else {
                decode_job j;
                j.kind = z.is_zstd() ? codec::zstd : codec::zip_deflate;
                j.input = {data, c.data.owner};
                j.zip_archive = c.data.bytes;
                j.zip = z;
                j.declared_size = z.uncompressed_size;
                if (z.is_zstd()) it.crc = z.crc32; // the deflate engine checks deflate entries itself
                it.job = static_cast<int>(out.jobs.size());
                out.jobs.push_back(std::move(j));
            }
        }
        out.items.push_back(std::move(it));
    }
}

inline void open_stream(const container& c, opened& out) {
    item it;
    it.parent = &c;
    it.stream = true;
    it.e.depth = c.depth;
    it.e.order = c.order;
    it.e.order.push_back(0);
    const std::string stem = stream_stem(c.path);
    it.e.path = c.path + "!/" + stem;
    it.e.output_path = join_path(c.out_prefix, stem);
    it.e.compressed_size = c.data.bytes.size();
    decode_job j;
    j.input = c.data;
    switch (c.kind) {
    case fmt::content_kind::gzip: j.kind = codec::gzip; it.e.method = "gzip"; break;
    case fmt::content_kind::zstd: j.kind = codec::zstd; it.e.method = "zstd"; break;
    default: j.kind = codec::lz4; it.e.method = "lz4"; break;
    }
    it.job = static_cast<int>(out.jobs.size());
    out.jobs.push_back(std::move(j));
    out.items.push_back(std::move(it));
}

} // namespace vyre::engine::detail
