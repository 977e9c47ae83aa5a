// Part of format/zip.hpp (through detail/zip_parser.hpp): what the parser reads out of a record's
// fields: an entry's status, the extra fields, and the ZIP64 extra field's values.
#pragma once

#include <vyre/error.hpp>
#include <vyre/util/little_endian.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace vyre::format::detail {

// Marks an entry; a more serious earlier status stays.
inline void zip_fail(zip_entry& e, zip_entry_status s, std::string why, std::uint64_t offset) {
    if (e.status != zip_entry_status::ok && e.status >= s) return;
    e.status = s;
    e.problem = std::move(why);
    e.problem_offset = offset;
}

// The payload of the first extra field with `id`. A malformed list (a length running past its
// end) ends the search: writers pad extras with junk, and only the fields we need matter.
inline std::optional<std::span<const std::uint8_t>> zip_find_extra(std::span<const std::uint8_t> extra, std::uint16_t id) {
    std::size_t q = 0;
    while (extra.size() - q >= 4) {
        const std::uint16_t field_id = util::read_le16(extra, q);
        const std::uint16_t size = util::read_le16(extra, q + 2);
        if (size > extra.size() - q - 4) return std::nullopt;
        if (field_id == id) return extra.subspan(q + 4, size);
        q += 4 + std::size_t{size};
    }
    return std::nullopt;
}

// Reads the ZIP64 extra field (id 1): a saturated 32-bit value (0xFFFFFFFF; 0xFFFF for the disk)
// is replaced by the next value of the field, in APPNOTE order (uncompressed size, compressed size,
// local header offset, disk), each present only when its 32-bit field is saturated.
class zip64_extra {
public:
    explicit zip64_extra(std::span<const std::uint8_t> extra) {
        if (const auto f = zip_find_extra(extra, 0x0001)) {
            field_ = *f;
            present_ = true;
        }
    }

    bool present() const noexcept { return present_; }
    std::size_t size() const noexcept { return field_.size(); }

    // False when the value is saturated and the field has no more values for it.
    bool take(std::uint64_t& v, std::uint64_t saturated, std::size_t width) {
        if (v != saturated) return true;
        if (field_.size() - at_ < width) return false;
        v = width == 8 ? util::read_le64(field_, at_) : util::read_le32(field_, at_);
        at_ += width;
        return true;
    }

    std::uint64_t value_at(std::size_t at) const { return util::read_le64(field_, at); }

private:
    std::span<const std::uint8_t> field_;
    bool present_ = false;
    std::size_t at_ = 0;
};

} // namespace vyre::format::detail
