// The permanent record of one compressed memory page (compression.lz4_pages): its layout is in the
// device's record words and in page files, so the op, its CPU reference and the page-file format
// all read it from here.
#pragma once

#include <cstdint>

namespace vyre::compression {

// How a page was stored (permanent values).
enum class page_kind : std::uint32_t {
    compressed = 0, // an LZ4 block of `length` bytes, smaller than the page
    stored = 1,     // the page itself (length = page size): the block would not have been smaller
    same_fill = 2,  // every byte equals the fill byte; no block (length 0)
};

inline const char* page_kind_name(page_kind k) noexcept {
    switch (k) {
    case page_kind::compressed: return "compressed";
    case page_kind::stored: return "stored";
    case page_kind::same_fill: return "same_fill";
    }
    return "unknown";
}

// Two words per page, the device's own layout: length in bytes, then kind | fill byte << 8.
struct page_record {
    std::uint32_t length = 0;
    std::uint32_t flags = 0;
    page_kind kind() const noexcept { return static_cast<page_kind>(flags & 0xFFu); }
    std::uint8_t fill() const noexcept { return static_cast<std::uint8_t>(flags >> 8); }
    friend bool operator==(const page_record&, const page_record&) = default;
};
static_assert(sizeof(page_record) == 8, "the record layout is permanent: 2 words");

inline page_record make_page_record(std::uint32_t length, page_kind kind, std::uint8_t fill = 0) {
    return {length, static_cast<std::uint32_t>(kind) | std::uint32_t{fill} << 8};
}

} // namespace vyre::compression
