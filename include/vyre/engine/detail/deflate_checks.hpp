// The checks every deflate stream passes on every path (its status against the size it must
// decode to, its CRC-32), and the host path that decodes a stream with libdeflate and names a
// failure as the device would. Internal to engine/deflate_decompress.hpp, whose opening comment
// describes the whole pipeline.
#pragma once

#include <vyre/compression/block.hpp>
#include <vyre/compression/deflate.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/reference/deflate.hpp>
#include <vyre/util/hex.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>

namespace vyre::engine::detail {

// A stream libdeflate refuses is run through the CPU oracle, which reads a bit at a time, to name
// the status the device would report; only up to this size, so that a huge corrupt stream does
// not hold the host pass for the oracle's time. Larger ones are named by libdeflate's verdict.
inline constexpr std::uint64_t deflate_oracle_bytes = std::uint64_t{64} << 20;

// What a stream that ended with status `s` did, against the `expected` size; empty when it made
// exactly that.
inline std::string deflate_status_failure(const compression::block_status& s, std::uint64_t expected) {
    if (s.code != compression::deflate_error::none)
        return std::string(ops::compression::deflate_op::status_name(s.code)) + " after " + std::to_string(s.output_size) +
               " bytes, " + std::to_string(expected) + " expected";
    if (s.output_size != expected)
        return "decodes to " + std::to_string(s.output_size) + " bytes, " + std::to_string(expected) + " expected";
    return {};
}

// The checks of a stream that ended with status `s` and made content of CRC-32 `crc`.
inline std::optional<std::string> deflate_check_crc(const deflate_stream& stream, const compression::block_status& s,
                                                    std::uint32_t crc) {
    if (std::string why = deflate_status_failure(s, stream.size); !why.empty()) return why;
    if (crc != stream.crc32) return "CRC-32 mismatch: expected " + util::hex(stream.crc32, 8) + ", computed " + util::hex(crc, 8);
    return std::nullopt;
}

// The checks of a stream that ended with status `s`, its slot `out` holding what it made.
inline std::optional<std::string> deflate_check(const deflate_stream& stream, const compression::block_status& s,
                                                std::span<const std::uint8_t> out) {
    if (std::string why = deflate_status_failure(s, stream.size); !why.empty()) return why;
    return deflate_check_crc(stream, s, format::crc32_of(out));
}

// A host stream: libdeflate into its slot. One that fails (refused, or made the wrong bytes) goes
// through the oracle (see deflate_oracle_bytes), whose status is what the device would report:
// libdeflate is more lenient than RFC 1951 in places (it may end a corrupt stream where the
// oracle finds an invalid symbol), and the message must not depend on the route.
inline std::optional<std::string> deflate_host_stream(const deflate_stream& stream, std::span<std::uint8_t> out) {
    const format::inflate_outcome r = format::inflate_into(stream.input, out);
    std::optional<std::string> failure;
    if (r.result == LIBDEFLATE_SUCCESS) {
        failure = deflate_check(stream, {compression::deflate_error::none, static_cast<std::uint32_t>(r.produced)}, out);
        if (!failure) return failure;
    }
    if (stream.size <= deflate_oracle_bytes && stream.input.size() <= std::numeric_limits<std::uint32_t>::max())
        return deflate_check(stream, reference::deflate_inflate(stream.input, out).status, out);
    if (failure) return failure;
    if (r.result == LIBDEFLATE_INSUFFICIENT_SPACE)
        return "decodes to more than the " + std::to_string(stream.size) + " bytes expected (libdeflate)";
    return "invalid deflate data (libdeflate), " + std::to_string(stream.size) + " bytes expected";
}

} // namespace vyre::engine::detail
