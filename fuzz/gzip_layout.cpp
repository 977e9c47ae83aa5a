// format::gzip_layout_of on arbitrary bytes: a clear format_error or a layout whose members all lie
// inside the input, in order, with their deflate streams between header and trailer.
#include <vyre/format/gzip.hpp>

#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> in(data, size);
    try {
        const vyre::format::gzip_layout layout = vyre::format::gzip_layout_of(in);
        std::uint64_t at = 0, output = 0;
        for (const auto& m : layout.members) {
            if (m.offset < at || m.deflate_offset < m.offset || m.deflate_offset + m.deflate_size > m.trailer_offset ||
                m.end_offset() > size)
                std::abort();
            at = m.end_offset();
            output += m.isize;
        }
        if (layout.kind != vyre::format::gzip_layout_kind::unknown && output != layout.output_size) std::abort();
    } catch (const vyre::format_error&) {
    }
    return 0;
}
