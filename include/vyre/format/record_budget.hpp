// The bound on the records a container parse keeps. A parse that lists a file's blocks (one record
// each, so that their output can be laid out before anything decodes) keeps tens of bytes per
// block, yet a block can be a few bytes of input: a hostile file of millions of empty blocks would
// make the list many times larger than the file. Every such parse (format/lz4_frame.hpp,
// format/zstd_frame.hpp) stops at a budget, by default record_budget(input size), and throws its
// format's subclass of record_budget_error; the engine's routes then decode the file without a
// list (walking or streaming it), so memory follows the file, not its block count.
#pragma once

#include <vyre/error.hpp>

#include <cstdint>

namespace vyre::format {

// 16 MiB plus one byte per input byte: no file whose blocks average 56 bytes of input or more
// reaches it (real files keep about 50 bytes of records per block of 64 KiB or more).
inline constexpr std::uint64_t record_budget_base = std::uint64_t{16} << 20;

inline constexpr std::uint64_t record_budget(std::uint64_t input_bytes) noexcept {
    return input_bytes > ~std::uint64_t{0} - record_budget_base ? ~std::uint64_t{0} : record_budget_base + input_bytes;
}

// A parse's records would pass its budget. Callers that decode any format catch this one.
class record_budget_error : public resource_error {
public:
    using resource_error::resource_error;
};

} // namespace vyre::format
