// Part of engine/unpack.hpp (included there after the public types): entry names and link targets
// checked before anything is decoded or written, and the names given to what a container holds.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace vyre::engine::detail {

// An archive's entry name as a relative path of plain components, or why it is refused.
struct checked_name {
    std::string path; // "a/b/c"; empty for the archive's root ("./")
    std::string refusal;
};

inline checked_name check_entry_name(std::string_view name) {
    checked_name r;
    if (name.empty()) return {"", "empty name"};
    if (name.size() > unpack_max_name_bytes)
        return {"", "name of " + std::to_string(name.size()) + " bytes, longer than " + std::to_string(unpack_max_name_bytes)};
    if (const auto parts = static_cast<std::size_t>(std::count(name.begin(), name.end(), '/')) + 1; parts > unpack_max_name_components)
        return {"", "name of " + std::to_string(parts) + " components, more than " + std::to_string(unpack_max_name_components)};
    if (name.find('\0') != std::string_view::npos) return {"", "name holds a NUL byte"};
    if (name.front() == '/') return {"", "absolute path"};
    if (name.size() >= 2 && name[1] == ':' && std::isalpha(static_cast<unsigned char>(name[0])))
        return {"", "absolute path (drive letter)"};
    std::size_t at = 0;
    while (at <= name.size()) {
        std::size_t end = name.find('/', at);
        if (end == std::string_view::npos) end = name.size();
        const std::string_view c = name.substr(at, end - at);
        if (c == "..") return {"", "'..' component"};
        if (!c.empty() && c != ".") {
            if (!r.path.empty()) r.path += '/';
            r.path += c;
        }
        at = end + 1;
    }
    return r;
}

// Whether a symbolic link at `link` (a checked path below the output folder) pointing at
// `target` stays inside the folder. Leading ".." climb the link's own folders, which this run
// created as real folders; a ".." after a named component is refused, because that component may
// be a link written earlier and "x/.." would then climb from wherever x points.
inline std::string check_link_target(std::string_view link, std::string_view target) {
    if (target.empty()) return "empty link target";
    if (target.find('\0') != std::string_view::npos) return "link target holds a NUL byte";
    if (target.front() == '/') return "link target is absolute";
    std::vector<std::string_view> dir;
    for (std::size_t at = 0; at < link.size();) {
        std::size_t end = link.find('/', at);
        if (end == std::string_view::npos) break; // the last component is the link itself
        dir.push_back(link.substr(at, end - at));
        at = end + 1;
    }
    bool named = false;
    for (std::size_t at = 0; at <= target.size();) {
        std::size_t end = target.find('/', at);
        if (end == std::string_view::npos) end = target.size();
        const std::string_view c = target.substr(at, end - at);
        if (c == "..") {
            if (named) return "link target has '..' after a named component";
            if (dir.empty()) return "link target climbs out of the output folder";
            dir.pop_back();
        } else if (!c.empty() && c != ".") {
            named = true;
        }
        at = end + 1;
    }
    return {};
}

inline std::string join_path(const std::string& prefix, const std::string& name) {
    if (prefix.empty()) return name;
    if (name.empty()) return prefix;
    return prefix + "/" + name;
}

// The name of a compressed stream's content: the stream's own name without its codec suffix.
inline std::string stream_stem(const std::string& path) {
    std::size_t cut = path.rfind('/');
    std::string base = cut == std::string::npos ? path : path.substr(cut + 1);
    struct suffix { const char* from; const char* to; };
    static constexpr suffix suffixes[] = {{".tgz", ".tar"}, {".tzst", ".tar"}, {".tlz4", ".tar"}, {".gz", ""},
                                          {".lz4", ""},     {".zst", ""},       {".zstd", ""}};
    if (base.empty() || base == "." || base == "..") return "content";
    for (const auto& s : suffixes) {
        const std::size_t n = std::strlen(s.from);
        if (base.size() > n && base.compare(base.size() - n, n, s.from) == 0) {
            // "...gz" would become "..": keep the whole name then.
            const std::string stem = base.substr(0, base.size() - n) + s.to;
            return stem == "." || stem == ".." ? base + ".out" : stem;
        }
    }
    return base;
}

} // namespace vyre::engine::detail
