// Transfer functions of the dataflow engine (engine/dataflow.hpp): whether (and for which sources) a fact crosses an
// edge. Each is an IR function spliced into the engine's level programs, with a host form of the
// same meaning for the CPU references; three come with vyre (allow_all, block_sanitizers,
// edge_kind_mask) and make_transfer builds others from a DSL expression.
#pragma once

// The IR function is pure (no loads): the level program loads what it needs and passes it in,
//   u32 dataflow_transfer(lanes, lane_base, from, to, from_label, to_label, edge_kind, p0, p1, p2, p3)
// lanes: the 32 sources (bit l is source_idx lane_base + l) holding the fact at `from`;
// p0..p3: the run's transfer parameters (rules set them; they are data, so a rule never changes
// a program). The answer is the lanes that reach `to`; the engine ANDs it with `lanes`, so 0
// blocks, `lanes` allows, and anything between filters sources (a transformed fact word). It
// must be lane-wise (reference/dataflow.hpp says why and what that means).

#include <vyre/dsl.hpp>
#include <vyre/error.hpp>
#include <vyre/ir/program.hpp>
#include <vyre/reference/dataflow.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vyre::ops::dataflow {

using reference::edge_view;
using reference::transfer_params;

inline constexpr const char* transfer_function_name = "dataflow_transfer";

struct transfer_function {
    std::string name;     // [a-z0-9_]+: part of the level programs' names (dataflow.level.<name>.push)
    std::string summary;  // one line
    ir::function function; // the device form (see the top of this file)
    std::function<std::uint32_t(std::uint32_t lanes, const edge_view&)> host; // the same on the CPU
};

// Whether `s` can name a transfer function: 1 to 48 characters of a-z, 0-9 and _ (it becomes
// part of the level programs' names).
inline bool valid_transfer_name(std::string_view s) noexcept {
    if (s.empty() || s.size() > 48) return false;
    for (const char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

namespace detail {

// The role byte of a label as a DSL expression (graph/labels.hpp: bits 16..23).
template <class L>
auto role_bits(const L& label) {
    return (label >> 16u) & 0xFFu;
}

} // namespace detail

// Builds a transfer function from `body(lanes, lane_base, from, to, from_label, to_label, kind,
// p0, p1, p2, p3)`, a DSL expression of u32 built only from its parameters, and its host form.
template <class Body>
transfer_function make_transfer(std::string name, std::string summary, Body&& body,
                                std::function<std::uint32_t(std::uint32_t, const edge_view&)> host) {
    if (!valid_transfer_name(name))
        throw validation_error("make_transfer: name '" + name + "' must be 1 to 48 characters of a-z, 0-9 and _");
    if (!host) throw validation_error("make_transfer: transfer '" + name + "' needs a host form");
    namespace d = vyre::dsl;
    using u = d::u32;
    d::kernel scratch("dataflow_transfer_scratch");
    scratch.function<u(u, u, u, u, u, u, u, u, u, u, u)>(
        transfer_function_name,
        {"lanes", "lane_base", "from", "to", "from_label", "to_label", "edge_kind", "p0", "p1", "p2", "p3"},
        std::forward<Body>(body));
    return {std::move(name), std::move(summary), scratch.program().functions.front(), std::move(host)};
}

namespace transfers {

// Host forms as plain function objects, so a CPU reference can inline them.
struct allow_all_host {
    std::uint32_t operator()(std::uint32_t lanes, const edge_view&) const noexcept { return lanes; }
};
struct block_sanitizers_host {
    std::uint32_t operator()(std::uint32_t lanes, const edge_view& e) const noexcept {
        return graph::is_sanitizer(e.from_label) ? 0u : lanes;
    }
};
// p0: bit k allows edges of kind k (kinds >= 32 never cross); p1 != 0: sanitizers block as well.
struct edge_kind_mask_host {
    std::uint32_t operator()(std::uint32_t lanes, const edge_view& e) const noexcept {
        const bool kind_ok = e.kind < 32 && ((e.params[0] >> e.kind) & 1u) != 0;
        const bool sanitized = e.params[1] != 0 && graph::is_sanitizer(e.from_label);
        return kind_ok && !sanitized ? lanes : 0u;
    }
};

// Every edge carries every fact: plain reachability (sanitizers are ordinary nodes).
inline const transfer_function& allow_all() {
    static const transfer_function t = make_transfer(
        "allow_all", "every fact crosses every edge",
        [](auto lanes, auto, auto, auto, auto, auto, auto, auto, auto, auto, auto) { return lanes; }, allow_all_host{});
    return t;
}

// A sanitizer's out-edges carry nothing (graph.bfs's semantics): the taint default.
inline const transfer_function& block_sanitizers() {
    static const transfer_function t = make_transfer(
        "block_sanitizers", "facts do not leave sanitizer nodes (role 4)",
        [](auto lanes, auto, auto, auto, auto from_label, auto, auto, auto, auto, auto, auto) {
            return dsl::select(detail::role_bits(from_label) == 4u, 0u, lanes);
        },
        block_sanitizers_host{});
    return t;
}

// Only edges whose kind is in the mask p0 carry facts; with p1 != 0 sanitizers block too.
inline const transfer_function& edge_kind_mask() {
    static const transfer_function t = make_transfer(
        "edge_kind_mask", "facts cross edges whose kind k has bit k set in p0; p1 != 0: sanitizers block as well",
        [](auto lanes, auto, auto, auto, auto from_label, auto, auto kind, auto p0, auto p1, auto, auto) {
            // A shift masks its amount to 5 bits, so kinds >= 32 are excluded by the comparison.
            const auto kind_ok = kind < 32u && ((p0 >> kind) & 1u) != 0u;
            const auto sanitized = p1 != 0u && detail::role_bits(from_label) == 4u;
            return dsl::select(kind_ok && !sanitized, lanes, 0u);
        },
        edge_kind_mask_host{});
    return t;
}

// The built-in transfer functions, by name.
inline std::vector<const transfer_function*> builtin() { return {&allow_all(), &block_sanitizers(), &edge_kind_mask()}; }

inline const transfer_function* find(std::string_view name) {
    for (const auto* t : builtin())
        if (t->name == name) return t;
    return nullptr;
}

} // namespace transfers

} // namespace vyre::ops::dataflow
