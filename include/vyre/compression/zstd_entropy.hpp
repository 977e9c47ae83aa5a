// Zstandard's entropy vocabulary (RFC 8878 sections 3.1.1.3 and 4): the literals-length,
// match-length and offset codes, the predefined distributions, FSE and Huffman decoding tables
// built from their descriptions, and the layout in which compression.zstd.frames receives a
// frame's blocks and tables. The parser (format/zstd_sections.hpp), the CPU reference
// (reference/zstd_frames.hpp) and the device program (ops/compression/zstd_frames.hpp) share
// them, so that a table means the same thing on every side.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vyre::compression {

// ---- sequence codes (RFC 8878 3.1.1.3.2.1.1): a code's value is base + that many extra bits.
struct zstd_code_value {
    std::uint32_t base;
    std::uint32_t extra_bits;
};

inline constexpr std::uint32_t zstd_literal_length_codes = 36, zstd_match_length_codes = 53, zstd_offset_codes = 32;
// Largest accuracy logs a description may declare.
inline constexpr std::uint32_t zstd_literal_length_max_log = 9, zstd_match_length_max_log = 9, zstd_offset_max_log = 8;
inline constexpr std::uint32_t zstd_huffman_weight_max_log = 6;
// Huffman codes are at most this long (RFC 8878 4.2.1.1).
inline constexpr std::uint32_t zstd_huffman_max_bits = 11;

inline constexpr zstd_code_value zstd_literal_length_value(std::uint32_t code) noexcept {
    constexpr std::array<zstd_code_value, 20> high{{{16, 1}, {18, 1}, {20, 1}, {22, 1}, {24, 2}, {28, 2}, {32, 3},
                                                    {40, 3}, {48, 4}, {64, 6}, {128, 7}, {256, 8}, {512, 9}, {1024, 10},
                                                    {2048, 11}, {4096, 12}, {8192, 13}, {16384, 14}, {32768, 15}, {65536, 16}}};
    return code < 16 ? zstd_code_value{code, 0} : high[code - 16];
}

inline constexpr zstd_code_value zstd_match_length_value(std::uint32_t code) noexcept {
    constexpr std::array<zstd_code_value, 21> high{{{35, 1}, {37, 1}, {39, 1}, {41, 1}, {43, 2}, {47, 2}, {51, 3},
                                                    {59, 3}, {67, 4}, {83, 4}, {99, 5}, {131, 7}, {259, 8}, {515, 9},
                                                    {1027, 10}, {2051, 11}, {4099, 12}, {8195, 13}, {16387, 14},
                                                    {32771, 15}, {65539, 16}}};
    return code < 32 ? zstd_code_value{code + 3, 0} : high[code - 32];
}

// Predefined distributions (RFC 8878 3.1.1.3.2.2); -1 is a "less than 1" probability.
inline constexpr std::array<std::int16_t, 36> zstd_literal_length_default{
    4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
inline constexpr std::array<std::int16_t, 53> zstd_match_length_default{
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
inline constexpr std::array<std::int16_t, 29> zstd_offset_default{
    1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};
inline constexpr std::uint32_t zstd_literal_length_default_log = 6, zstd_match_length_default_log = 6,
                               zstd_offset_default_log = 5;

// ---- FSE decoding tables (RFC 8878 4.1.1): state s decodes `symbol`, then the next state is
// `baseline` plus the next `bits` bits.
struct zstd_fse_entry {
    std::uint16_t symbol = 0;
    std::uint8_t bits = 0;
    std::uint16_t baseline = 0;
};

// The table of a distribution of `log` accuracy (counts sum to 1 << log, -1 counting as 1)
// written into `table` (1 << log entries), or false when the counts do not sum so or there are
// more than 256 of them. Symbols of probability -1 take the last cells; the others are spread with
// the RFC's step. No allocation: the host's walk builds one per Huffman tree description.
inline bool zstd_fse_table_into(std::span<const std::int16_t> counts, std::uint32_t log, std::span<zstd_fse_entry> table) {
    const std::uint32_t size = 1u << log;
    if (table.size() != size || counts.size() > 256) return false;
    std::uint64_t total = 0;
    for (const auto c : counts) {
        if (c < -1) return false;
        total += c == -1 ? 1 : static_cast<std::uint32_t>(c);
    }
    if (total != size) return false;
    std::array<std::uint32_t, 256> next;
    std::uint32_t high = size - 1;
    for (std::size_t s = 0; s < counts.size(); ++s) {
        if (counts[s] == -1) {
            table[high--] = {static_cast<std::uint16_t>(s), 0, 0};
            next[s] = 1;
        } else {
            next[s] = static_cast<std::uint32_t>(counts[s]);
        }
    }
    const std::uint32_t step = (size >> 1) + (size >> 3) + 3, mask = size - 1;
    std::uint32_t pos = 0;
    for (std::size_t s = 0; s < counts.size(); ++s)
        for (std::int32_t i = 0; i < counts[s]; ++i) {
            table[pos].symbol = static_cast<std::uint16_t>(s);
            do pos = (pos + step) & mask;
            while (pos > high);
        }
    if (pos != 0) return false;
    for (auto& e : table) {
        const std::uint32_t state = next[e.symbol]++;
        const std::uint32_t bits = log - (31u - static_cast<std::uint32_t>(std::countl_zero(state)));
        e.bits = static_cast<std::uint8_t>(bits);
        e.baseline = static_cast<std::uint16_t>((state << bits) - size);
    }
    return true;
}

// The same table as a vector, empty where zstd_fse_table_into refuses the counts.
inline std::vector<zstd_fse_entry> zstd_fse_table(std::span<const std::int16_t> counts, std::uint32_t log) {
    std::vector<zstd_fse_entry> table(std::size_t{1} << log);
    if (!zstd_fse_table_into(counts, log, table)) return {};
    return table;
}

// ---- FSE table descriptions (compression.zstd.fse_tables): the distribution a table is built
// from, for the device to build it. zstd_fse_description_words each:
//   word 0   the table's word offset in the tables buffer (its header word; the states follow)
//   word 1   accuracy log A | number of symbols N << 8
//   words 2+ the N counts as 16-bit two's complement, two a word, symbol 2i in the low half
// A table of 513 words travels as 29.
inline constexpr std::uint32_t zstd_fse_max_symbols = zstd_match_length_codes;
inline constexpr std::uint32_t zstd_fse_description_words = 2 + (zstd_fse_max_symbols + 1) / 2;
// A description's accuracy log is its 4 low bits plus 5 (RFC 8878 4.1.1); below 5 the spread's
// step is even and would not visit every state.
inline constexpr std::uint32_t zstd_fse_min_log = 5;
// The header word a failed build leaves (no accuracy log is this large, so the decoders refuse it).
inline constexpr std::uint32_t zstd_fse_refused = 0xFFFFFFFFu;

inline void zstd_append_fse_description(std::vector<std::uint32_t>& out, std::uint32_t table_at, std::span<const std::int16_t> counts,
                                        std::uint32_t log) {
    const std::size_t at = out.size();
    out.resize(at + zstd_fse_description_words, 0u);
    out[at] = table_at;
    out[at + 1] = log | static_cast<std::uint32_t>(counts.size()) << 8;
    for (std::size_t s = 0; s < counts.size() && s < zstd_fse_max_symbols; ++s)
        out[at + 2 + s / 2] |= std::uint32_t{static_cast<std::uint16_t>(counts[s])} << (16 * (s % 2));
}

// A state's word in the tables layout below: bits | symbol << 4 | baseline << 10.
inline std::uint32_t zstd_fse_word(const zstd_fse_entry& e) { return e.bits | std::uint32_t{e.symbol} << 4 | std::uint32_t{e.baseline} << 10; }

// A one-symbol table (RLE mode): accuracy 0, every state decodes `symbol` and reads nothing.
inline std::vector<zstd_fse_entry> zstd_fse_rle_table(std::uint16_t symbol) { return {zstd_fse_entry{symbol, 0, 0}}; }

// ---- Huffman codes (RFC 8878 4.2.1): with `bits` the longest code, a decoding table has
// 1 << bits entries; symbol s with a code of n bits owns entries [start, start + 2^(bits - n)),
// every index whose first n bits (read first bit first) are its code.
struct zstd_huffman_symbol {
    std::uint8_t symbol = 0;
    std::uint8_t bits = 0;
    std::uint16_t start = 0;
};

struct zstd_huffman_code {
    std::uint32_t bits = 0;
    std::vector<zstd_huffman_symbol> symbols; // those with a code, by symbol
};

// From the weights of every symbol but the last (whose weight completes the sum to a power of
// two), or nothing when the weights do not describe a code (the sum cannot be completed, or a
// code would be longer than zstd_huffman_max_bits, or fewer than two symbols have the longest codes).
inline std::optional<zstd_huffman_code> zstd_huffman_from_weights(std::span<const std::uint8_t> weights) {
    if (weights.empty() || weights.size() > 255) return std::nullopt;
    std::uint32_t sum = 0;
    for (const auto w : weights) {
        if (w > zstd_huffman_max_bits) return std::nullopt;
        if (w) sum += 1u << (w - 1);
    }
    if (sum == 0) return std::nullopt;
    const std::uint32_t bits = 32u - static_cast<std::uint32_t>(std::countl_zero(sum)); // 2^bits > sum
    if (bits > zstd_huffman_max_bits) return std::nullopt;
    const std::uint32_t rest = (1u << bits) - sum;
    if (!std::has_single_bit(rest)) return std::nullopt;
    std::array<std::uint8_t, 256> every;
    std::copy(weights.begin(), weights.end(), every.begin());
    every[weights.size()] = static_cast<std::uint8_t>(std::countr_zero(rest) + 1);
    const std::span<const std::uint8_t> all(every.data(), weights.size() + 1);
    // The longest codes (weight 1) come at least in a pair: otherwise no code is as long as the
    // table's bits say (libzstd refuses such weights too).
    if (std::count(all.begin(), all.end(), std::uint8_t{1}) < 2) return std::nullopt;
    // Codes are handed out by increasing weight (longest first), symbols in order within one.
    std::array<std::uint32_t, zstd_huffman_max_bits + 2> start{};
    for (const auto w : all)
        if (w) start[w] += 1u << (w - 1);
    std::uint32_t at = 0;
    for (std::uint32_t w = 1; w <= zstd_huffman_max_bits + 1; ++w) {
        const std::uint32_t n = start[w];
        start[w] = at;
        at += n;
    }
    zstd_huffman_code code{bits, {}};
    code.symbols.reserve(all.size());
    for (std::size_t s = 0; s < all.size(); ++s) {
        const std::uint32_t w = all[s];
        if (!w) continue;
        code.symbols.push_back({static_cast<std::uint8_t>(s), static_cast<std::uint8_t>(bits + 1 - w), static_cast<std::uint16_t>(start[w])});
        start[w] += 1u << (w - 1);
    }
    return code;
}

// ---- how compression.zstd.frames receives its work (all u32 words) ---------------------------
//
// Frames: zstd_frame_words each: [first block record, block count, output offset, output
// capacity]. Blocks: zstd_block_words each, in frame order (fields below). Tables: one u32
// buffer holding every table a block names, by word offset:
//   Huffman  word 0: the longest code's bits B | the number of symbols N << 8; then N words:
//            symbol | code bits n << 8 | first entry << 12 (the device expands them into a
//            table of 1 << B entries in workgroup memory, each symbol on 2^(B - n) entries)
//   FSE      word 0: accuracy log A; then 1 << A words: bits | symbol << 4 | baseline << 10
//   values   at word 0 of the buffer, zstd_value_words words: the literal-length codes' then the
//            match-length codes' base | extra bits << 24 (an offset code's value is 1 << code
//            plus that many extra bits)
// Literals of every compressed block are first written to a scratch byte buffer at the block's
// literals offset; the sequences then copy them into the output.
inline constexpr std::uint32_t zstd_frame_words = 4;
inline constexpr std::uint32_t zstd_block_words = 16;

namespace zstd_block_field {
// bits 0-1 block type (0 raw, 1 RLE, 2 compressed); bits 2-3 literals type (0 raw, 1 RLE,
// 2 Huffman); bit 4 four Huffman streams
inline constexpr std::uint32_t kind = 0;
inline constexpr std::uint32_t size = 1;            // raw/RLE: Block_Size; compressed: the literals' regenerated size
inline constexpr std::uint32_t source = 2;          // input offset: raw content, the RLE byte, or the literals' first byte
inline constexpr std::uint32_t stream_sizes = 3;    // 3..6: the Huffman streams' byte sizes (one stream: word 3 alone)
inline constexpr std::uint32_t huffman_table = 7;   // table word offset
inline constexpr std::uint32_t literals_at = 8;     // scratch offset of the block's literals
inline constexpr std::uint32_t sequences = 9;       // number of sequences
inline constexpr std::uint32_t sequences_at = 10;   // input offset of the sequences' bitstream
inline constexpr std::uint32_t sequences_size = 11; // its bytes
inline constexpr std::uint32_t literal_length_table = 12, offset_table = 13, match_length_table = 14; // table word offsets
inline constexpr std::uint32_t maximum = 15;        // Block_Maximum_Size: no block regenerates more
} // namespace zstd_block_field

inline constexpr std::uint32_t zstd_literals_raw = 0, zstd_literals_rle = 1, zstd_literals_huffman = 2;
inline constexpr std::uint32_t zstd_four_streams = 1u << 4;

// Statuses: zstd_status_words per frame: [code (compression.zstd's zstd_error), the frame's
// regenerated size (0 on failure), the failing block (counted from the frame's first), reason].
// A failed frame's region holds whatever was written before the failure (compression.zstd.blocks:
// whatever its blocks wrote, later blocks too); nothing outside the frames' regions and the
// literals' scratch is written.
inline constexpr std::uint32_t zstd_status_words = 4;

// Why a frame failed (status word 3). Every reason is corrupt_block except `capacity`
// (output_overflow).
namespace zstd_frame_reason {
inline constexpr std::uint32_t none = 0;
inline constexpr std::uint32_t bad_record = 1;       // a record, range or table outside its buffer, or an unknown kind
inline constexpr std::uint32_t literals_stream = 2;  // a Huffman stream not consumed exactly (or without an end marker)
inline constexpr std::uint32_t sequences_stream = 3; // the sequences' bitstream not consumed exactly (or without an end marker)
inline constexpr std::uint32_t offset = 4;           // a match offset of 0 or reaching before the frame's first byte
inline constexpr std::uint32_t literals_overrun = 5; // sequences take more literals than the block has
inline constexpr std::uint32_t block_maximum = 6;    // a block regenerates more than Block_Maximum_Size
inline constexpr std::uint32_t capacity = 7;         // the frame's output outgrows its region
} // namespace zstd_frame_reason

inline const char* zstd_frame_reason_text(std::uint32_t reason) noexcept {
    switch (reason) {
    case zstd_frame_reason::none: return "none";
    case zstd_frame_reason::bad_record: return "a block record or table outside its buffer";
    case zstd_frame_reason::literals_stream: return "a literals Huffman stream is corrupt";
    case zstd_frame_reason::sequences_stream: return "the sequences bitstream is corrupt";
    case zstd_frame_reason::offset: return "a match offset reaches before the frame's first byte";
    case zstd_frame_reason::literals_overrun: return "the sequences take more literals than the block holds";
    case zstd_frame_reason::block_maximum: return "a block regenerates more than the frame's block maximum";
    case zstd_frame_reason::capacity: return "the frame regenerates more than its output region";
    default: return "unknown";
    }
}

// Appends a Huffman table in the layout above; returns its word offset.
inline std::uint32_t zstd_append_table(std::vector<std::uint32_t>& tables, const zstd_huffman_code& code) {
    const auto at = static_cast<std::uint32_t>(tables.size());
    tables.push_back(code.bits | static_cast<std::uint32_t>(code.symbols.size()) << 8);
    for (const auto& e : code.symbols) tables.push_back(e.symbol | std::uint32_t{e.bits} << 8 | std::uint32_t{e.start} << 12);
    return at;
}

inline std::uint32_t zstd_append_table(std::vector<std::uint32_t>& tables, std::span<const zstd_fse_entry> t) {
    const auto at = static_cast<std::uint32_t>(tables.size());
    tables.push_back(static_cast<std::uint32_t>(std::countr_zero(t.size())));
    for (const auto& e : t) tables.push_back(zstd_fse_word(e));
    return at;
}

// The CPU reference of compression.zstd.fse_tables: builds the table of every description into
// `tables`, or writes zstd_fse_refused at a table's offset where its description builds none or
// its table would leave the buffer. A description whose offset is outside the buffer writes nothing.
inline void zstd_build_described_tables(std::span<std::uint32_t> tables, std::span<const std::uint32_t> descriptions) {
    for (std::size_t d = 0; d + zstd_fse_description_words <= descriptions.size(); d += zstd_fse_description_words) {
        const std::uint32_t at = descriptions[d], log = descriptions[d + 1] & 0xFFu, n = descriptions[d + 1] >> 8;
        if (at >= tables.size()) continue;
        if (log < zstd_fse_min_log || log > zstd_literal_length_max_log || (std::uint64_t{1} << log) > tables.size() - at - 1 ||
            n > zstd_fse_max_symbols) {
            tables[at] = zstd_fse_refused;
            continue;
        }
        std::vector<std::int16_t> counts(n);
        for (std::uint32_t s = 0; s < n; ++s) counts[s] = static_cast<std::int16_t>(descriptions[d + 2 + s / 2] >> (16 * (s % 2)));
        const auto table = zstd_fse_table(counts, log);
        if (table.empty()) {
            tables[at] = zstd_fse_refused;
            continue;
        }
        tables[at] = log;
        for (std::size_t u = 0; u < table.size(); ++u) tables[at + 1 + u] = zstd_fse_word(table[u]);
    }
}

// The values of the length codes, at the start of every table buffer.
inline constexpr std::uint32_t zstd_match_values_at = zstd_literal_length_codes;
inline constexpr std::uint32_t zstd_value_words = zstd_literal_length_codes + zstd_match_length_codes;

inline void zstd_append_values(std::vector<std::uint32_t>& tables) {
    for (std::uint32_t c = 0; c < zstd_literal_length_codes; ++c) {
        const auto v = zstd_literal_length_value(c);
        tables.push_back(v.base | v.extra_bits << 24);
    }
    for (std::uint32_t c = 0; c < zstd_match_length_codes; ++c) {
        const auto v = zstd_match_length_value(c);
        tables.push_back(v.base | v.extra_bits << 24);
    }
}

} // namespace vyre::compression
