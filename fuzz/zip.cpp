// format::parse_zip on arbitrary bytes: a clear format_error, or an archive whose entries with
// status ok have their stored bytes inside the input (zip_entry_data agrees, never throws for them)
// and whose directory lies inside the input.
#include <vyre/format/zip.hpp>

#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> in(data, size);
    try {
        const vyre::format::zip_archive z = vyre::format::parse_zip(in);
        if (z.eocd_offset > size) std::abort();
        for (const auto& e : z.entries) {
            if (e.status != vyre::format::zip_entry_status::ok) continue;
            const auto stored = vyre::format::zip_entry_data(in, e);
            if (stored.data() < data || stored.data() + stored.size() > data + size) std::abort();
        }
    } catch (const vyre::format_error&) {
    }
    return 0;
}
