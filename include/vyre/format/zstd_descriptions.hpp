// Reading a Zstandard compressed block's headers and table descriptions (RFC 8878 3.1.1.3, 4.1.1
// and 4.2.1): the literals section header, the number of sequences, an FSE distribution, and a
// Huffman tree description, its weights direct or FSE-compressed. The host's walk over compressed
// blocks (format/zstd_sections.hpp) and the host routes' checks (format/zstd_frame_checks.hpp)
// read them; a malformed one is a format_error that names its byte offset.
#pragma once

#include <vyre/compression/zstd.hpp>
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/error.hpp>
#include <vyre/util/little_endian.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vyre::format::detail {

// Reads bits first-to-last from the low bit of each byte (FSE table descriptions); past the end
// it reads zeros, and `used()` tells how far it went.
class zstd_forward_bits {
public:
    explicit zstd_forward_bits(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
    // n <= 32
    std::uint32_t peek(std::uint32_t n) const {
        const std::uint64_t byte = at_ / 8;
        std::uint64_t word = 0;
        if (byte + 8 <= bytes_.size()) word = util::read_le64(bytes_, byte);
        else
            for (std::uint64_t i = 0; byte + i < bytes_.size(); ++i) word |= std::uint64_t{bytes_[byte + i]} << (8 * i);
        return static_cast<std::uint32_t>((word >> (at_ % 8)) & ((std::uint64_t{1} << n) - 1));
    }
    void skip(std::uint32_t n) { at_ += n; }
    std::uint64_t used_bytes() const noexcept { return (at_ + 7) / 8; }

private:
    std::span<const std::uint8_t> bytes_;
    std::uint64_t at_ = 0;
};

// An FSE table description (RFC 8878 4.1.1) at the start of `bytes`: the distribution over
// symbols 0..max_symbol, its accuracy log (at most max_log) and the bytes it took. Throws
// format_error at `offset` (the description's file offset) when it is malformed.
// The counts live in the struct (at most zstd_fse_max_symbols of them): the walk reads one
// per FSE-compressed table of every block, and an allocation each cost as much as the reading.
struct zstd_counts {
    std::array<std::int16_t, compression::zstd_fse_max_symbols> values;
    std::uint32_t symbols = 0;
    std::uint32_t log = 0;
    std::uint64_t bytes = 0;

    std::span<const std::int16_t> counts() const noexcept { return {values.data(), symbols}; }
};

inline zstd_counts zstd_read_counts(std::span<const std::uint8_t> bytes, std::uint32_t max_symbol, std::uint32_t max_log,
                                    std::uint64_t offset, const char* what) {
    const auto fail = [&](const std::string& why) {
        throw format_error(std::string("zstd: ") + what + " table description: " + why, offset);
    };
    if (max_symbol >= compression::zstd_fse_max_symbols)
        throw std::logic_error("zstd_read_counts: symbols up to " + std::to_string(max_symbol) + " do not fit zstd_counts");
    zstd_forward_bits in(bytes);
    zstd_counts out;
    out.log = in.peek(4) + 5;
    in.skip(4);
    if (out.log > max_log) fail("accuracy log " + std::to_string(out.log) + " above " + std::to_string(max_log));
    std::int32_t remaining = (1 << out.log) + 1;
    std::int32_t threshold = 1 << out.log;
    std::uint32_t bits = out.log + 1;
    bool previous_zero = false;
    while (remaining > 1) {
        if (previous_zero) {
            std::uint32_t zeros = 0;
            while (in.peek(2) == 3) {
                zeros += 3;
                in.skip(2);
                if (out.symbols + zeros > max_symbol + 1u) fail("zero run past symbol " + std::to_string(max_symbol));
            }
            zeros += in.peek(2);
            in.skip(2);
            if (out.symbols + zeros > max_symbol + 1u) fail("zero run past symbol " + std::to_string(max_symbol));
            std::fill_n(out.values.begin() + out.symbols, zeros, std::int16_t{0});
            out.symbols += zeros;
        }
        if (out.symbols > max_symbol) fail("probabilities past symbol " + std::to_string(max_symbol));
        const std::int32_t max = (2 * threshold - 1) - remaining;
        const auto v = static_cast<std::int32_t>(in.peek(bits));
        std::int32_t count;
        if ((v & (threshold - 1)) < max) {
            count = v & (threshold - 1);
            in.skip(bits - 1);
        } else {
            count = v & (2 * threshold - 1);
            if (count >= threshold) count -= max;
            in.skip(bits);
        }
        --count;
        remaining -= count < 0 ? -count : count;
        out.values[out.symbols++] = static_cast<std::int16_t>(count);
        previous_zero = count == 0;
        if (remaining <= 1) break;
        while (remaining < threshold) {
            --bits;
            threshold >>= 1;
        }
    }
    if (remaining != 1) fail("probabilities do not sum to " + std::to_string(1u << out.log));
    out.bytes = in.used_bytes();
    if (out.bytes > bytes.size()) fail("needs " + std::to_string(out.bytes) + " bytes, " + std::to_string(bytes.size()) + " remain");
    return out;
}

// A Huffman tree description's weights (at most 255): every symbol's but the last.
struct zstd_weights {
    std::array<std::uint8_t, 256> values;
    std::uint32_t count = 0;

    std::span<const std::uint8_t> weights() const noexcept { return {values.data(), count}; }
};

// The bits of an FSE-compressed weights stream below its end marker; throws format_error at
// `offset` when there is no end marker or fewer bits than its two initial states of `log` bits.
inline std::int64_t zstd_weights_stream_bits(std::span<const std::uint8_t> stream, std::uint32_t log, std::uint64_t offset) {
    const auto fail = [&](const std::string& why) { throw format_error("zstd: Huffman weights: " + why, offset); };
    if (stream.empty() || stream.back() == 0) fail("the bitstream has no end marker");
    const std::int64_t bits = static_cast<std::int64_t>(stream.size()) * 8 - std::countl_zero(stream.back()) - 1;
    if (bits < 2 * static_cast<std::int64_t>(log)) fail("the bitstream is shorter than its two states");
    return bits;
}

// The weights of a Huffman tree description compressed with FSE (RFC 8878 4.2.1.2): two states
// interleaved over a backward bitstream, until a state update reads past its start.
inline zstd_weights zstd_fse_weights(std::span<const std::uint8_t> stream, std::span<const compression::zstd_fse_entry> table,
                                     std::uint32_t log, std::uint64_t offset) {
    const auto fail = [&](const std::string& why) { throw format_error("zstd: Huffman weights: " + why, offset); };
    std::int64_t left = zstd_weights_stream_bits(stream, log, offset);
    // Bits [left - n, left) of the little-endian number the stream is, zeros below bit 0 (n <= 16).
    const auto read = [&](std::uint32_t n) {
        const std::int64_t low = left - n;
        std::uint32_t v = 0;
        if (n != 0 && low >= 0 && static_cast<std::uint64_t>(low / 8) + 8 <= stream.size()) {
            v = static_cast<std::uint32_t>((util::read_le64(stream, static_cast<std::uint64_t>(low / 8)) >> (low % 8)) & ((1u << n) - 1u));
        } else if (n != 0 && left > 0) {
            // The bytes holding bits [max(low, 0), left), as one number from bit `first * 8`.
            const std::int64_t first = std::max<std::int64_t>(low, 0) / 8, last = (left - 1) / 8;
            std::uint64_t word = 0;
            for (std::int64_t b = last; b >= first; --b) word = word << 8 | stream[static_cast<std::size_t>(b)];
            const std::int64_t shift = low - first * 8; // negative: zeros below bit 0
            v = static_cast<std::uint32_t>((shift >= 0 ? word >> shift : word << -shift) & ((1u << n) - 1u));
        }
        left -= n;
        return v;
    };
    std::array<std::uint32_t, 2> state{read(log), read(log)}; // left stays >= 0: the stream holds both
    zstd_weights out;
    for (std::uint32_t which = 0;; which ^= 1u) {
        if (out.count >= 255) fail("more than 255 weights");
        const auto& e = table[state[which]];
        out.values[out.count++] = static_cast<std::uint8_t>(e.symbol);
        state[which] = e.baseline + read(e.bits);
        if (left < 0) {
            if (out.count >= 255) fail("more than 255 weights");
            out.values[out.count++] = static_cast<std::uint8_t>(table[state[which ^ 1u]].symbol);
            break;
        }
    }
    return out;
}

// A Huffman tree description at the start of `bytes` (RFC 8878 4.2.1): the table and the bytes
// the description took.
inline std::pair<compression::zstd_huffman_code, std::uint64_t> zstd_read_huffman(std::span<const std::uint8_t> bytes,
                                                                                   std::uint64_t offset) {
    const auto fail = [&](const std::string& why) { throw format_error("zstd: Huffman tree description: " + why, offset); };
    if (bytes.empty()) fail("missing");
    const std::uint32_t header = bytes[0];
    zstd_weights w;
    std::uint64_t size = 0;
    if (header < 128) {
        size = 1 + header;
        if (size > bytes.size()) fail("needs " + std::to_string(size) + " bytes, " + std::to_string(bytes.size()) + " remain");
        const auto body = bytes.subspan(1, header);
        const zstd_counts c = zstd_read_counts(body, compression::zstd_huffman_max_bits, compression::zstd_huffman_weight_max_log,
                                               offset + 1, "Huffman weights");
        std::array<compression::zstd_fse_entry, std::size_t{1} << compression::zstd_huffman_weight_max_log> cells;
        const std::span<compression::zstd_fse_entry> table(cells.data(), std::size_t{1} << c.log);
        if (!compression::zstd_fse_table_into(c.counts(), c.log, table)) fail("the weights' distribution builds no table");
        w = zstd_fse_weights(body.subspan(c.bytes), table, c.log, offset + 1 + c.bytes);
    } else {
        const std::uint32_t n = header - 127;
        size = 1 + (n + 1) / 2;
        if (size > bytes.size()) fail("needs " + std::to_string(size) + " bytes, " + std::to_string(bytes.size()) + " remain");
        for (std::uint32_t i = 0; i < n; ++i) w.values[w.count++] = static_cast<std::uint8_t>(i % 2 == 0 ? bytes[1 + i / 2] >> 4 : bytes[1 + i / 2] & 15u);
    }
    auto t = compression::zstd_huffman_from_weights(w.weights());
    if (!t)
        fail("the weights describe no prefix code (of at most " + std::to_string(compression::zstd_huffman_max_bits) +
             " bits, its longest codes at least a pair)");
    return {std::move(*t), size};
}

// Throws unless `count` bytes of a compressed block ending at `end` remain at `at`.
inline void zstd_block_need(std::uint64_t at, std::uint64_t count, std::uint64_t end, const char* what) {
    if (at > end || count > end - at)
        throw format_error(std::string("zstd: compressed block: truncated ") + what + ": needs " + std::to_string(count) +
                               " bytes, " + std::to_string(at <= end ? end - at : 0) + " remain in the block",
                           at);
}

// A literals section header (RFC 8878 3.1.1.3.1) at `begin`, in a compressed block ending at `end`.
struct zstd_literals_header {
    std::uint32_t type = 0;        // 0 raw, 1 RLE, 2 Huffman with its tree, 3 Huffman reusing the last tree
    std::uint32_t bytes = 0;       // the header's own
    std::uint32_t regenerated = 0; // literals
    std::uint32_t compressed = 0;  // types 2 and 3: the tree description and streams' bytes
    bool four_streams = false;
};

inline zstd_literals_header zstd_read_literals_header(std::span<const std::uint8_t> data, std::uint64_t begin, std::uint64_t end) {
    zstd_block_need(begin, 1, end, "literals section header");
    const std::uint32_t b0 = data[begin];
    const std::uint32_t format = (b0 >> 2) & 3u;
    zstd_literals_header h;
    h.type = b0 & 3u;
    if (h.type < 2) {
        h.bytes = format == 1 ? 2 : format == 3 ? 3 : 1;
        zstd_block_need(begin, h.bytes, end, "literals section header");
        const auto v = static_cast<std::uint32_t>(util::read_le(data, begin, h.bytes));
        h.regenerated = h.bytes == 1 ? v >> 3 : v >> 4;
    } else {
        h.bytes = format < 2 ? 3 : format == 2 ? 4 : 5;
        h.four_streams = format != 0;
        zstd_block_need(begin, h.bytes, end, "literals section header");
        const std::uint64_t v = util::read_le(data, begin, h.bytes);
        const std::uint32_t size_bits = format < 2 ? 10 : format == 2 ? 14 : 18;
        h.regenerated = static_cast<std::uint32_t>((v >> 4) & ((1u << size_bits) - 1u));
        h.compressed = static_cast<std::uint32_t>((v >> (4 + size_bits)) & ((1u << size_bits) - 1u));
    }
    return h;
}

// The number of sequences (RFC 8878 3.1.1.3.2.1) at `at`, in a compressed block ending at `end`:
// the count, the offset just past it, and whether a count of zero took two bytes (0x80 0x00),
// which the format allows. A count of zero ends the block: a byte after it is a format_error.
struct zstd_sequence_count {
    std::uint32_t count = 0;
    std::uint64_t next = 0;
    bool zero_in_two_bytes = false;
};

inline zstd_sequence_count zstd_read_sequence_count(std::span<const std::uint8_t> data, std::uint64_t at, std::uint64_t end) {
    zstd_block_need(at, 1, end, "sequences section header");
    zstd_sequence_count n;
    n.count = data[at];
    n.next = at + 1;
    if (n.count >= 128) {
        if (n.count == 255) {
            zstd_block_need(n.next, 2, end, "number of sequences");
            n.count = static_cast<std::uint32_t>(util::read_le(data, n.next, 2)) + 0x7F00u;
            n.next += 2;
        } else {
            zstd_block_need(n.next, 1, end, "number of sequences");
            n.count = ((n.count - 128) << 8) + data[n.next];
            n.next += 1;
            n.zero_in_two_bytes = n.count == 0;
        }
    }
    if (n.count == 0 && n.next != end)
        throw format_error("zstd: compressed block: no sequences, yet " + std::to_string(end - n.next) + " bytes follow the sequences header",
                           n.next);
    return n;
}

} // namespace vyre::format::detail
