// Part of engine/unpack.hpp (included there after the public types): step 1 of a layer, opening
// containers. A tar lists its entries (views into its bytes), a ZIP its entries (stored ones are
// views, deflate and zstd ones become decode jobs), a compressed stream one decode job for its
// content. Entry names and link targets are checked here, before anything is decoded.
#pragma once

#include <vyre/engine/detail/unpack_names.hpp>
#include <vyre/engine/detail/unpack_state.hpp>
#include <vyre/error.hpp>
#include <vyre/format/names.hpp>
#include <vyre/format/oci_image.hpp>
#include <vyre/format/rpm.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/libarchive.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/format/zip_methods.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <map>
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

// The layers of a container image saved as a tar (docker save, an OCI archive), by their path
// in the tar ("./" dropped): their digests, under which their files are listed. Empty for any
// other tar (one without manifest.json or index.json, or whose manifests do not hold together: it
// is listed as a plain tar).
// Manifests and configs an image tar found while listing may hold (parsed for every tar that has a
// manifest.json or index.json, at any depth: kept well below what --flatten accepts).
inline constexpr std::size_t image_listing_max_json_bytes = std::size_t{1} << 20;

inline std::map<std::string, std::string> image_layer_digests(std::span<const std::uint8_t> bytes, const fmt::tar_archive& tar) {
    std::map<std::string, std::string> out;
    const auto at_root = [&](const std::string& n) {
        std::string_view v = n;
        while (v.rfind("./", 0) == 0) v.remove_prefix(2);
        return v == "manifest.json" || v == "index.json";
    };
    if (std::none_of(tar.entries.begin(), tar.entries.end(), [&](const auto& e) { return at_root(e.name); })) return out;
    try {
        for (const auto& l : fmt::image_layers_of(bytes, tar, image_listing_max_json_bytes).layers)
            if (!l.digest.empty()) out[l.name] = l.digest;
    } catch (const std::exception&) {
        out.clear();
    }
    return out;
}

inline void open_tar(run_state& run, const container& c, opened& out) {
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
                                    " entries before it kept, the rest of the archive is unreadable" +
                                    (c.earlier_files ? " (offsets count from the window of the streamed archive that starts at byte offset " +
                                                           std::to_string(c.window_start) + " of its content, after " +
                                                           std::to_string(c.entries_before) + " entries)"
                                                     : std::string()),
                                c.order});
    }
    for (const auto& w : tar.warnings) out.problems.push_back({c.path, unpack_status::warning, "tar: " + w, c.order});
    // An image's layers are listed by digest: x.tar!/sha256:<hex>!/etc/passwd (not in a window of a
    // tar unpacked in windows, which holds part of the image: detail/unpack_stream.hpp).
    const std::map<std::string, std::string> own_digests = c.layer_digests ? std::map<std::string, std::string>{}
                                                                           : image_layer_digests(c.data.bytes, tar);
    const std::map<std::string, std::string>& digests = c.layer_digests ? *c.layer_digests : own_digests;
    std::unordered_map<std::string, int> seen; // checked path -> item, for hard links
    for (std::size_t i = 0; i < tar.entries.size(); ++i) {
        const auto& t = tar.entries[i];
        checked_name name = check_entry_name(t.name);
        if (name.refusal.empty() && name.path.empty()) continue; // "./": the archive's root folder
        const std::string rel = name.path;
        // A window of a streamed tar numbers its entries after the earlier windows' (detail/unpack_stream.hpp).
        item it = make_item(c, static_cast<std::uint32_t>(c.entries_before + i), t.name, std::move(name));
        it.e.method = "stored";
        it.e.mode = t.mode;
        it.e.mtime = t.mtime;
        it.e.link_target = t.link_target;
        switch (t.type) {
        case fmt::tar_entry_type::regular:
            it.e.type = unpack_entry_type::file;
            it.content = {fmt::tar_entry_data(c.data.bytes, t), c.data.owner};
            if (!digests.empty() && it.e.status == unpack_status::ok)
                if (const auto d = digests.find(rel); d != digests.end()) it.e.path = c.path + "!/" + d->second;
            break;
        case fmt::tar_entry_type::directory: it.e.type = unpack_entry_type::directory; break;
        case fmt::tar_entry_type::symlink: it.e.type = unpack_entry_type::symlink; break;
        case fmt::tar_entry_type::hard_link: it.e.type = unpack_entry_type::hard_link; break;
        case fmt::tar_entry_type::sparse:
            // Expanded here, holes as zeros, within the ratio limit against its stored bytes and
            // the total limit; its size is the file's.
            it.e.type = unpack_entry_type::file;
            if (it.e.status == unpack_status::ok) {
                const unpack_limits& limits = run.options.limits;
                const auto refuse = [&](std::string why) {
                    it.e.status = unpack_status::refused;
                    it.e.message = "GNU sparse file: " + why;
                };
                if (!t.sparse_problem.empty()) {
                    it.e.status = unpack_status::corrupt;
                    it.e.message = "GNU sparse file: " + t.sparse_problem;
                } else if (t.sparse_size > ratio_cap(limits, t.size)) {
                    refuse(ratio_message(limits, t.sparse_size, t.size));
                } else if (!run.budget.take(t.sparse_size)) {
                    refuse(total_message(run.budget, t.sparse_size));
                } else {
                    try {
                        it.content = owned_blob(fmt::tar_sparse_content(c.data.bytes, t, t.sparse_size));
                    } catch (const error& x) {
                        run.budget.give_back(t.sparse_size);
                        it.e.status = unpack_status::corrupt;
                        it.e.message = x.what();
                    }
                }
            }
            break;
        default: it.e.type = unpack_entry_type::other; break;
        }
        it.e.size = t.type == fmt::tar_entry_type::sparse ? t.sparse_size : it.content.bytes.size();
        it.e.compressed_size = t.type == fmt::tar_entry_type::sparse ? t.size : it.e.size;
        if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::hard_link) {
            const checked_name target = check_entry_name(t.link_target);
            const auto found = target.refusal.empty() ? seen.find(target.path) : seen.end();
            if (found == seen.end() && c.earlier_files && c.earlier_files->count(target.path)) {
                // Where the earlier window wrote its file, the copy comes from there.
                std::string why = "the archive is unpacked in windows of " + std::to_string(c.window_bytes) +
                                  " bytes, that window's bytes are gone, and the run writes no files to copy it from (--window changes it)";
                if (run.tree && !run.options.write_filter) {
                    why.clear();
                    output_tree::dir_cache cache;
                    std::vector<std::uint8_t> copy =
                        run.tree->read_file(join_path(c.out_prefix, target.path), run.budget.left(), why, cache);
                    if (why.empty() && !run.budget.take(copy.size())) why = total_message(run.budget, copy.size());
                    if (why.empty()) {
                        it.content = owned_blob(std::move(copy));
                        it.e.size = it.content.bytes.size();
                    }
                }
                if (!why.empty()) {
                    it.e.status = unpack_status::refused;
                    it.e.message = "hard link to " + fmt::archive_quote(t.link_target) + ", a file of an earlier window: " + why;
                }
            } else if (found == seen.end()) {
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
    fmt::zip_archive parsed;
    if (!c.zip) {
        try {
            parsed = fmt::parse_zip(c.data.bytes);
        } catch (const std::exception& e) {
            out.problems.push_back({c.path, unpack_status::corrupt, std::string("ZIP: ") + e.what(), c.order});
            return;
        }
    }
    const fmt::zip_archive& zip = c.zip ? *c.zip : parsed; // a window's ZIP is parsed once for all windows
    // A ZIP without an end record, read by its local headers as bsdtar reads it: a warning (an
    // entry cut short is that entry's problem).
    if (c.entry_first == 0)
        for (const auto& p : zip.problems)
            out.problems.push_back({c.path, zip.local_walk ? unpack_status::warning : unpack_status::corrupt,
                                (zip.local_walk ? "ZIP: " : "ZIP central directory: ") + p.message +
                                    (p.offset != format_error::npos ? " (byte offset " + std::to_string(p.offset) + ")" : ""),
                                c.order});
    for (std::size_t i = c.entry_first; i < std::min(c.entry_end, zip.entries.size()); ++i) {
        const auto& z = zip.entries[i];
        const std::string path = z.path_name(); // '\\' separates components in names from DOS-like hosts
        checked_name name = check_entry_name(path);
        if (name.refusal.empty() && name.path.empty()) continue;
        item it = make_item(c, static_cast<std::uint32_t>(i), path, std::move(name));
        it.e.method = z.is_zstd() ? "zstd" : fmt::zip_method_name(z.method);
        it.e.size = z.uncompressed_size;
        it.e.compressed_size = z.compressed_size;
        it.e.mode = z.unix_mode() & 07777;
        it.e.mtime = fmt::zip_mtime(z);
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
                j.kind = z.is_zstd() ? codec::zstd : fmt::zip_library_method(z.method) ? codec::library : codec::zip_deflate;
                j.input = {data, c.data.owner};
                j.zip_archive = c.data.bytes;
                j.zip = z;
                j.declared_size = z.uncompressed_size;
                if (j.kind != codec::zip_deflate) it.crc = z.crc32; // the deflate engine checks deflate entries itself
                it.job = static_cast<int>(out.jobs.size());
                out.jobs.push_back(std::move(j));
            }
        }
        out.items.push_back(std::move(it));
    }
}

// The one item of a container whose content is a single stream (a compressed file, an RPM's
// payload), named `name` below it.
inline item stream_item(const container& c, const std::string& name) {
    item it;
    it.parent = &c;
    it.stream = true;
    it.e.depth = c.depth;
    it.e.order = c.order;
    it.e.order.push_back(0);
    it.e.path = c.path + "!/" + name;
    it.e.output_path = join_path(c.out_prefix, name);
    return it;
}

inline void open_stream(const container& c, opened& out) {
    item it = stream_item(c, stream_stem(c.path));
    it.e.compressed_size = c.data.bytes.size();
    if (c.kind == fmt::content_kind::skippable) { // nothing to decode: empty content
        it.e.method = "skippable";
        out.items.push_back(std::move(it));
        return;
    }
    decode_job j;
    j.input = c.data;
    switch (c.kind) {
    case fmt::content_kind::gzip: j.kind = codec::gzip; it.e.method = "gzip"; break;
    case fmt::content_kind::zstd: j.kind = codec::zstd; it.e.method = "zstd"; break;
    case fmt::content_kind::xz:
    case fmt::content_kind::lzma:
    case fmt::content_kind::bzip2:
        j.kind = codec::library;
        j.stream = c.kind;
        it.e.method = fmt::content_kind_name(c.kind);
        break;
    default: j.kind = codec::lz4; it.e.method = "lz4"; break;
    }
    it.job = static_cast<int>(out.jobs.size());
    out.jobs.push_back(std::move(j));
    out.items.push_back(std::move(it));
}

// An RPM: its payload (a compressed cpio archive, after the lead and headers format::rpm_payload
// skips) is the content of one item, a view, that opens in place: x.rpm!/usr/bin/tool.
inline void open_rpm(const container& c, opened& out) {
    const std::uint64_t at = fmt::rpm_payload(c.data.bytes);
    item it = stream_item(c, stream_stem(c.path) + ".payload");
    it.e.method = "rpm";
    it.content = {c.data.bytes.subspan(static_cast<std::size_t>(at)), c.data.owner};
    it.e.size = it.e.compressed_size = it.content.bytes.size();
    out.items.push_back(std::move(it));
}

// A container read through libarchive (ar, cpio, 7z, ISO 9660): its entries come out with
// their content, decoded on the host as the read goes, each byte taken from the run's budget and
// the whole held to the ratio limit against the container's size. Damage stops the read; what was
// read before it is kept, as for a tar.
inline void open_library(run_state& run, const container& c, opened& out) {
    const fmt::library_format f = *fmt::library_format_of(c.kind);
    const std::string name = fmt::library_format_name(f);
    std::uint64_t produced = 0;
    const std::uint64_t cap = ratio_cap(run.options.limits, c.data.bytes.size());
    fmt::library_archive a;
    try {
        a = fmt::read_with_libarchive(c.data.bytes, f, [&](std::uint64_t n) -> std::string {
            if (produced + n > cap) return ratio_message(run.options.limits, produced + n, c.data.bytes.size());
            if (!run.budget.take(n)) return total_message(run.budget, n);
            produced += n;
            return {};
        });
    } catch (const fmt::unsupported_format& e) {
        out.problems.push_back({c.path, unpack_status::refused, e.what(), c.order});
        return;
    } catch (const std::exception& e) {
        run.budget.give_back(produced);
        out.problems.push_back({c.path, unpack_status::corrupt, e.what(), c.order});
        return;
    }
    // Bytes of an entry cut short by a refusal or damage were taken but are not kept.
    std::uint64_t kept = 0;
    for (const auto& le : a.entries) kept += le.data.size();
    run.budget.give_back(produced - kept);
    if (!a.refusal.empty())
        out.problems.push_back({c.path, unpack_status::refused,
                                a.refusal + "; " + std::to_string(a.entries.size()) + " entries before it kept", c.order});
    if (!a.damage.empty())
        out.problems.push_back({c.path, unpack_status::corrupt,
                                a.damage + "; " + std::to_string(a.entries.size()) + " entries before it kept", c.order});
    std::unordered_map<std::string, int> seen; // checked path -> item, for hard links
    for (std::size_t i = 0; i < a.entries.size(); ++i) {
        auto& le = a.entries[i];
        checked_name checked = check_entry_name(le.name);
        if (checked.refusal.empty() && checked.path.empty()) continue; // "." or "./": the root folder
        const std::string rel = checked.path;
        item it = make_item(c, static_cast<std::uint32_t>(i), le.name, std::move(checked));
        it.e.method = name;
        it.e.mode = le.mode;
        it.e.mtime = le.mtime;
        it.e.link_target = le.link_target;
        // ar, cpio and ISO 9660 store their members; 7z and RPM compress them together, so a
        // member's share is not known (0).
        const bool stored = f == fmt::library_format::ar || f == fmt::library_format::cpio || f == fmt::library_format::iso9660;
        switch (le.type) {
        case fmt::library_entry_type::file: it.e.type = unpack_entry_type::file; break;
        case fmt::library_entry_type::directory: it.e.type = unpack_entry_type::directory; break;
        case fmt::library_entry_type::symlink: it.e.type = unpack_entry_type::symlink; break;
        case fmt::library_entry_type::hard_link: it.e.type = unpack_entry_type::hard_link; break;
        case fmt::library_entry_type::other: it.e.type = unpack_entry_type::other; break;
        }
        // cpio's newc and crc formats keep the data of linked files with the last of the links:
        // the first comes out as an empty file, the last as a link to it that carries the data.
        // The data is that file's content, under both names.
        if (it.e.type == unpack_entry_type::hard_link && !le.data.empty()) {
            const checked_name target = check_entry_name(it.e.link_target);
            it.e.type = unpack_entry_type::file;
            it.e.link_target.clear();
            it.e.size = le.data.size();
            it.content = owned_blob(std::move(le.data));
            if (const auto found = target.refusal.empty() ? seen.find(target.path) : seen.end(); found != seen.end()) {
                item& first = out.items[static_cast<std::size_t>(found->second)];
                if (first.content.bytes.empty()) {
                    // A second reference to the same bytes: counted like a hard-link copy.
                    if (run.budget.take(it.e.size)) {
                        first.content = it.content;
                        first.e.size = it.e.size;
                        first.e.compressed_size = stored ? it.e.size : 0;
                    } else {
                        first.e.status = unpack_status::refused;
                        first.e.message = "hard link: " + total_message(run.budget, it.e.size);
                    }
                }
            }
        } else if (it.e.type == unpack_entry_type::file) {
            it.e.size = le.data.size();
            it.content = owned_blob(std::move(le.data));
        }
        if (it.e.type == unpack_entry_type::file) it.e.compressed_size = stored ? it.e.size : 0;
        if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::hard_link) {
            const checked_name target = check_entry_name(it.e.link_target);
            const auto found = target.refusal.empty() ? seen.find(target.path) : seen.end();
            if (found == seen.end()) {
                it.e.status = unpack_status::refused;
                it.e.message = "hard link to " + fmt::archive_quote(it.e.link_target) + ", which is not a file earlier in the archive";
            } else {
                it.link_item = found->second;
            }
        }
        if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::file) seen[rel] = static_cast<int>(out.items.size());
        if (it.e.status == unpack_status::ok && it.e.type == unpack_entry_type::symlink)
            if (std::string why = check_link_target(it.e.output_path, it.e.link_target); !why.empty()) {
                it.e.status = unpack_status::refused;
                it.e.message = why + ": " + fmt::archive_quote(it.e.link_target);
            }
        out.items.push_back(std::move(it));
    }
}

} // namespace vyre::engine::detail
