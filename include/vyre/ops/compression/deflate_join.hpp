// compression.deflate.join: the last step of inflating DEFLATE streams in pieces
// (ops/compression/deflate_split.hpp). Every piece after a stream's first decoded with references
// (256 + w) in place of byte w of the 32 KiB before it; this program writes every element of
// every piece at once to the piece's place in the output, following each reference back through
// the pieces before it, one piece per step, to a byte. Nothing is written to the pieces' regions,
// so no element waits for another.
#pragma once

#include <vyre/compression/deflate.hpp>
#include <vyre/dsl.hpp>
#include <vyre/ops/compression/deflate_program.hpp>
#include <vyre/ops/op.hpp>

#include <cstdint>

namespace vyre::ops::compression {

// The window each piece after the first starts with: DEFLATE's reach.
inline constexpr std::uint32_t deflate_piece_window = vyre::compression::deflate_window_bytes;
inline constexpr std::uint32_t deflate_join_workgroup = 256;
// An element no byte stands for: a reference to before the stream's first byte.
inline constexpr std::uint32_t deflate_no_byte = 0xFFFFFFFFu;

namespace deflate_join_binding {
inline constexpr std::uint32_t elements = 0, pieces = 1, statuses = 2, destinations = 3, output = 4, failures = 5, params = 6;
} // namespace deflate_join_binding

// compression.deflate.join: see the top of this file. params: pieces, slices per piece (each
// piece's elements are cut into that many slices, one workgroup each). failures[i] becomes 1 when
// an element of piece i names no byte. Pieces of several streams may share a launch: a stream's
// first piece has no window, so no chain passes it.
inline ir::program deflate_join_program(std::uint32_t workgroup = deflate_join_workgroup) {
    namespace d = vyre::dsl;
    namespace piece = deflate_piece;
    d::kernel k(entry_name("compression.deflate.join"), {workgroup, 1, 1});
    const auto elements = k.input<d::u32>("elements", deflate_join_binding::elements);
    const auto pieces = k.input<d::u32>("pieces", deflate_join_binding::pieces);
    const auto statuses = k.input<d::u32>("statuses", deflate_join_binding::statuses);
    const auto destinations = k.input<d::u32>("destinations", deflate_join_binding::destinations);
    const auto output = k.output<d::bytes>("output", deflate_join_binding::output);
    const auto failures = k.output<d::u32>("failures", deflate_join_binding::failures);
    const auto params = k.uniform<d::u32>("params", deflate_join_binding::params);
    const auto i = k.let("piece", d::workgroup_id() / params[1u]);
    const auto slice = k.let("slice", d::workgroup_id() % params[1u]);
    k.if_(i < params[0u], [&] {
        const auto base = k.let("base", pieces[i * piece::words + piece::out_base]);
        const auto window = k.let("window", pieces[i * piece::words + piece::window]);
        const auto count = k.let("count", statuses[i * piece::status_words + piece::written] - window);
        const auto share = k.let("share", count / params[1u] + 1u);
        const auto from = k.let("from", d::min(count, slice * share));
        const auto to = k.let("to", d::min(count, from + share));
        const auto j = k.let("j", from + d::local_id());
        k.while_(j < to, [&] {
            const auto v = k.let("v", elements[base + window + j]);
            // A reference: element written - window_bytes + w of the piece before, and so on back.
            const auto at = k.let("at", i);
            k.while_(v >= 256u, [&] {
                const auto w = k.let("w", v - 256u);
                k.if_(at == 0u || w >= deflate_piece_window, [&] {
                    v = d::lit(deflate_no_byte);
                    k.break_();
                });
                at = at - 1u;
                const auto written = k.let("previous_written", statuses[at * piece::status_words + piece::written]);
                k.if_(written + w < deflate_piece_window, [&] { // before the stream's first byte
                    v = d::lit(deflate_no_byte);
                    k.break_();
                });
                v = elements[pieces[at * piece::words + piece::out_base] + written - deflate_piece_window + w];
            });
            k.if_(v >= 256u, [&] { k.store(failures, i, 1u); });
            k.store(output, destinations[i] + j, v);
            j = j + workgroup;
        });
    });
    return k.program();
}

} // namespace vyre::ops::compression
