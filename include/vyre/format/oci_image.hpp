// Container images saved as one tar: what `docker save` writes (manifest.json naming each layer, in
// order, as "<id>/layer.tar" before Docker 25 and "blobs/sha256/<hex>" since) and OCI image layout
// archives (`skopeo copy ... oci-archive:`, `buildah push`: index.json, then the manifest blob,
// then its layers by digest). image_layers_of finds the layers of the one image in such a tar, in
// the order they are applied. The layer files themselves are tars (often gzip'd or zstd'd), opened
// by engine/unpack.hpp like any other; engine/image_flatten.hpp applies them with their whiteouts.
#pragma once

// The JSON documents are read with Boost.PropertyTree's parser (in Boost's headers). It recurses
// once per nesting level, so a document nested deeper than oci_max_json_depth, or larger than
// oci_max_json_bytes, is refused before it is parsed: a hostile manifest cannot exhaust the stack.

#include <vyre/error.hpp>
#include <vyre/format/names.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/util/sha256.hpp>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::format {

inline constexpr std::size_t oci_max_json_depth = 64;
inline constexpr std::size_t oci_max_json_bytes = std::size_t{16} << 20;

struct image_layer {
    std::string name;   // the layer's path in the image tar ("blobs/sha256/<hex>", "<id>/layer.tar")
    // "sha256:<hex>": the blob's digest where the layout names layers by it (OCI, docker save since
    // Docker 25), else the config's rootfs.diff_ids entry (docker save before 25, whose layer.tar
    // files are the uncompressed layers the diff_ids hash); empty where neither says.
    std::string digest;
    std::span<const std::uint8_t> bytes; // a view into the image tar
};

struct image_layout {
    std::string kind;                // "docker" (manifest.json) or "oci" (index.json)
    std::vector<std::string> tags;   // RepoTags or the OCI ref name, where recorded
    std::vector<image_layer> layers; // bottom first: the order they are applied in
};

namespace detail {

// Depth of nesting of `text`'s arrays and objects, strings skipped; stops counting past `limit`.
inline std::size_t json_depth(std::string_view text, std::size_t limit) {
    std::size_t depth = 0, most = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') {
            most = std::max(most, ++depth);
            if (most > limit) return most;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return most;
}

inline boost::property_tree::ptree parse_image_json(std::span<const std::uint8_t> bytes, const std::string& what,
                                                    std::size_t max_bytes = oci_max_json_bytes) {
    if (bytes.size() > max_bytes)
        throw format_error("image: " + what + " is " + std::to_string(bytes.size()) + " bytes, more than the " +
                           std::to_string(max_bytes) + " a manifest may have");
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (json_depth(text, oci_max_json_depth) > oci_max_json_depth)
        throw format_error("image: " + what + " nests arrays and objects deeper than " + std::to_string(oci_max_json_depth));
    boost::property_tree::ptree tree;
    std::istringstream in{std::string(text)};
    try {
        boost::property_tree::read_json(in, tree);
    } catch (const boost::property_tree::json_parser_error& e) {
        throw format_error("image: " + what + " is not valid JSON: " + e.message() + " (line " + std::to_string(e.line()) + ")");
    }
    return tree;
}

// Whether `d` has the form of a digest, "<algorithm>:<lowercase hex>" (it becomes part of paths).
inline bool digest_form(const std::string& d) {
    const auto colon = d.find(':');
    return colon != std::string::npos && colon > 0 && colon + 1 < d.size() &&
           d.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") == colon &&
           d.find_first_not_of("0123456789abcdef", colon + 1) == std::string::npos;
}

// "sha256:<64 hex digits>" -> "blobs/sha256/<hex>"; anything else is refused (a digest is a path).
inline std::string blob_path(const std::string& digest) {
    if (!digest_form(digest)) throw format_error("image: digest " + archive_quote(digest) + " is not of the form sha256:<hex>");
    const auto colon = digest.find(':');
    return "blobs/" + digest.substr(0, colon) + "/" + digest.substr(colon + 1);
}

// The children of `key` in `tree` (an array's elements), none when it is absent.
inline std::vector<const boost::property_tree::ptree*> json_elements(const boost::property_tree::ptree& tree, const std::string& key) {
    std::vector<const boost::property_tree::ptree*> out;
    if (const auto child = tree.get_child_optional(key))
        for (const auto& kv : *child) out.push_back(&kv.second);
    return out;
}

} // namespace detail

// Whether `layer`'s bytes hash to its digest; true where it has none, or one of another algorithm
// than SHA-256 (not checked).
inline bool image_layer_digest_matches(const image_layer& layer) {
    if (layer.digest.rfind("sha256:", 0) != 0) return true;
    return "sha256:" + util::to_hex(util::sha256_of(layer.bytes)) == layer.digest;
}

// The layers of the image held in `tar` (parsed from `data`). Throws format_error when the tar has
// neither manifest.json nor index.json, when it holds more than one image (the message lists
// them), or when a layer it names is missing.
// `max_json`: the most bytes a manifest, index or config may have (oci_max_json_bytes by default).
inline image_layout image_layers_of(std::span<const std::uint8_t> data, const tar_archive& tar,
                                    std::size_t max_json = oci_max_json_bytes) {
    std::map<std::string, const tar_entry*> files;
    for (const auto& e : tar.entries) {
        std::string n = e.name;
        while (n.rfind("./", 0) == 0) n.erase(0, 2);
        if (e.type == tar_entry_type::regular) files[n] = &e;
    }
    const auto file = [&](const std::string& name, const std::string& what) -> std::span<const std::uint8_t> {
        const auto f = files.find(name);
        if (f == files.end()) throw format_error("image: " + what + " " + archive_quote(name) + " is not in the image tar");
        return tar_entry_data(data, *f->second);
    };
    image_layout out;
    if (files.count("manifest.json")) {
        out.kind = "docker";
        const auto m = detail::parse_image_json(file("manifest.json", "manifest"), "manifest.json", max_json);
        std::vector<const boost::property_tree::ptree*> images;
        for (const auto& [key, image] : m) images.push_back(&image);
        if (images.size() != 1) {
            std::string names;
            for (const auto* i : images)
                for (const auto* tag : detail::json_elements(*i, "RepoTags")) names += (names.empty() ? "" : ", ") + tag->data();
            throw format_error("image: manifest.json describes " + std::to_string(images.size()) + " images" +
                               (names.empty() ? std::string() : " (" + names + ")") + "; one image can be flattened at a time");
        }
        for (const auto* tag : detail::json_elements(*images[0], "RepoTags")) out.tags.push_back(tag->data());
        // The config's diff_ids, one per layer in order, where the config is in the tar.
        std::vector<std::string> diff_ids;
        if (const std::string config = images[0]->get<std::string>("Config", ""); !config.empty() && files.count(config)) {
            const auto c = detail::parse_image_json(file(config, "config"), config, max_json);
            if (const auto ids = c.get_child_optional("rootfs.diff_ids"))
                for (const auto& kv : *ids) diff_ids.push_back(kv.second.data());
        }
        for (const auto* layer : detail::json_elements(*images[0], "Layers")) {
            std::string name = layer->data();
            std::string digest;
            if (name.rfind("blobs/", 0) == 0) {
                const auto slash = name.find('/', 6);
                if (slash != std::string::npos) digest = name.substr(6, slash - 6) + ":" + name.substr(slash + 1);
                if (!detail::digest_form(digest)) digest.clear();
            }
            out.layers.push_back({name, digest, file(name, "layer")});
        }
        if (diff_ids.size() == out.layers.size())
            for (std::size_t i = 0; i < diff_ids.size(); ++i)
                if (out.layers[i].digest.empty() && detail::digest_form(diff_ids[i])) out.layers[i].digest = diff_ids[i];
        return out;
    }
    if (files.count("index.json")) {
        out.kind = "oci";
        const auto index = detail::parse_image_json(file("index.json", "index"), "index.json", max_json);
        std::vector<std::pair<std::string, std::string>> manifests; // digest, ref name
        for (const auto* m : detail::json_elements(index, "manifests")) {
            // The annotation's key holds dots, PropertyTree's path separator: look it up by hand.
            std::string ref;
            if (const auto a = m->get_child_optional("annotations"))
                if (const auto f = a->find("org.opencontainers.image.ref.name"); f != a->not_found()) ref = f->second.data();
            manifests.push_back({m->get<std::string>("digest", ""), ref});
        }
        if (manifests.size() != 1)
            throw format_error("image: index.json lists " + std::to_string(manifests.size()) +
                               " manifests; one image can be flattened at a time");
        if (!manifests[0].second.empty()) out.tags.push_back(manifests[0].second);
        const std::string manifest_path = detail::blob_path(manifests[0].first);
        const auto manifest = detail::parse_image_json(file(manifest_path, "manifest"), manifest_path, max_json);
        if (manifest.get_child_optional("manifests"))
            throw format_error("image: " + manifest_path + " is an index of several images (a multi-platform image); "
                               "one image can be flattened at a time");
        for (const auto* layer : detail::json_elements(manifest, "layers")) {
            const std::string digest = layer->get<std::string>("digest", "");
            out.layers.push_back({detail::blob_path(digest), digest, file(detail::blob_path(digest), "layer")});
        }
        return out;
    }
    throw format_error("image: neither manifest.json (docker save) nor index.json (OCI layout) is in the tar");
}

} // namespace vyre::format
