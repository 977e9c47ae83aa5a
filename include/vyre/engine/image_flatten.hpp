// A container image's final filesystem: the layers of a `docker save` or OCI archive tar
// (format/oci_image.hpp) applied bottom first, as a container runtime stacks them, with their
// whiteouts. `vyre unpack --flatten image.tar` runs this.
#pragma once

// How the layers combine (the OCI image spec's "Applying changesets"):
//   - an entry of a higher layer replaces the entry at its path below it; a file or link replaces
//     a folder with everything in it, and a folder or file below a path that was a file or link
//     in a lower layer replaces that file;
//   - ".wh.NAME" deletes NAME (and all below it) from the layers beneath; it is never written;
//   - ".wh..wh..opq" in folder D deletes everything below D from the layers beneath, while D's
//     entries in the same layer stay.
// Whiteouts act on lower layers only, wherever they stand in their own layer's tar.
//
// Each layer is checked against its digest (format::image_layer::digest; a mismatch is a corrupt
// problem, and the layer is still applied). It runs in two passes of engine::unpack over the
// layers (each layer one input, named "image.tar!/sha256:<hex>" by its digest, or by its path in
// the image where it has none): the first lists every layer's entries without writing, the second
// decodes them again and writes only what survives (unpack_options::write_filter). Archives
// inside the image's files stay closed (recurse is off): the result is a filesystem. The report
// lists the surviving entries, and the second pass's problems (the first meets the same ones).

#include <vyre/engine/unpack.hpp>
#include <vyre/error.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/oci_image.hpp>
#include <vyre/format/tar.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::engine {

inline constexpr std::string_view whiteout_prefix = ".wh.";
inline constexpr std::string_view opaque_whiteout = ".wh..wh..opq";

namespace detail {

// The entries of a map of paths at `path` and below it.
template <class Map>
void erase_tree(Map& m, const std::string& path) {
    m.erase(path);
    const std::string below = path.empty() ? std::string() : path + "/";
    for (auto it = m.lower_bound(below); it != m.end() && it->first.compare(0, below.size(), below) == 0;) it = m.erase(it);
}

struct surviving_entry {
    std::vector<std::uint32_t> order;
    bool directory = false;
};

// Which entries of a listing of the layers (inputs in order, order[0] the layer) survive.
inline std::set<std::vector<std::uint32_t>> surviving_entries(const std::vector<unpack_entry>& entries, std::size_t layers) {
    std::vector<std::vector<const unpack_entry*>> by_layer(layers);
    for (const auto& e : entries)
        if (e.status == unpack_status::ok && !e.order.empty() && e.order[0] < layers && !e.output_path.empty())
            by_layer[e.order[0]].push_back(&e);
    std::map<std::string, surviving_entry> fs;
    for (const auto& layer : by_layer) {
        // Whiteouts first: they delete from the layers below, not from their own.
        for (const unpack_entry* e : layer) {
            const auto slash = e->output_path.rfind('/');
            const std::string dir = slash == std::string::npos ? "" : e->output_path.substr(0, slash);
            const std::string base = slash == std::string::npos ? e->output_path : e->output_path.substr(slash + 1);
            if (base == opaque_whiteout) {
                const auto keep = fs.find(dir);
                std::optional<surviving_entry> folder;
                if (keep != fs.end()) folder = keep->second;
                erase_tree(fs, dir);
                if (folder && !dir.empty()) fs[dir] = *folder; // the folder stays; only what was below it goes
            } else if (base.rfind(whiteout_prefix, 0) == 0) {
                erase_tree(fs, (dir.empty() ? "" : dir + "/") + base.substr(whiteout_prefix.size()));
            }
        }
        for (const unpack_entry* e : layer) {
            const auto slash = e->output_path.rfind('/');
            const std::string base = slash == std::string::npos ? e->output_path : e->output_path.substr(slash + 1);
            if (base.rfind(whiteout_prefix, 0) == 0) continue;
            const bool directory = e->type == unpack_entry_type::directory;
            if (!directory) erase_tree(fs, e->output_path);
            // A path below something that is not a folder makes it one.
            for (std::size_t s = e->output_path.find('/'); s != std::string::npos; s = e->output_path.find('/', s + 1)) {
                const auto parent = fs.find(e->output_path.substr(0, s));
                if (parent != fs.end() && !parent->second.directory) fs.erase(parent);
            }
            fs[e->output_path] = {e->order, directory};
        }
    }
    std::set<std::vector<std::uint32_t>> keep;
    for (const auto& [path, s] : fs) keep.insert(s.order);
    return keep;
}

} // namespace detail

// Applies the layers of the image in `image` (a tar written by docker save or an OCI archive)
// and extracts the final filesystem below options.output_dir (or lists it, without one). Throws
// format_error when `image` is not such a tar (the message names what it is instead).
inline unpack_report flatten_image(runtime::context& ctx, const unpack_input& image, unpack_options options) {
    const auto kind = format::detect(image.bytes);
    if (kind != format::content_kind::tar)
        throw format_error(image.name + ": --flatten takes an image tar (docker save, an OCI archive); this is " +
                           format::content_kind_name(kind) + " content" +
                           (kind == format::content_kind::gzip || kind == format::content_kind::zstd || kind == format::content_kind::xz
                                ? " (decompress it first)"
                                : ""));
    const format::tar_archive tar = format::parse_tar(image.bytes);
    const format::image_layout layout = format::image_layers_of(image.bytes, tar);
    // Each layer's files are listed under its digest where the image gives one ("x.tar!/sha256:<hex>!/etc/passwd"),
    // after its bytes are checked against it.
    std::vector<unpack_input> layers;
    std::vector<unpack_problem> mismatches;
    for (const auto& l : layout.layers) {
        layers.push_back({image.name + "!/" + (l.digest.empty() ? l.name : l.digest), l.bytes});
        if (!format::image_layer_digest_matches(l))
            mismatches.push_back({layers.back().name, unpack_status::corrupt,
                                  "layer " + l.name + ": its bytes do not hash to " + l.digest + ", the digest the image gives for it",
                                  {static_cast<std::uint32_t>(layers.size() - 1)}});
    }

    unpack_options listing = options;
    listing.output_dir.clear();
    listing.hash = false;
    listing.recurse = false;
    listing.layer_files = nullptr;
    listing.write_filter = nullptr;
    const unpack_report first = unpack(ctx, layers, listing);
    const auto keep = detail::surviving_entries(first.entries, layers.size());

    options.recurse = false;
    options.write_filter = [&](const unpack_entry& e) { return keep.count(e.order) > 0; };
    unpack_report r = unpack(ctx, layers, options);
    std::erase_if(r.entries, [&](const unpack_entry& e) { return e.status == unpack_status::ok && !keep.count(e.order); });
    r.problems.insert(r.problems.begin(), mismatches.begin(), mismatches.end());
    std::stable_sort(r.problems.begin(), r.problems.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
    return r;
}

} // namespace vyre::engine
