// Byte ranges of one device buffer, the input of the ops over many ranges at once (bytes.crc32,
// bytes.heads): what the decoders leave on the device is many contents back to back in one buffer.
#pragma once

#include <vyre/error.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::bytes {

struct byte_range {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

// The ranges as the programs read them, u32 pairs (offset, size), after checking that each lies
// in the first `readable` bytes of the buffer and below 4 GiB (the programs index u32 bytes).
inline std::vector<std::uint32_t> range_words(const char* op, std::span<const byte_range> ranges, std::uint64_t readable) {
    std::vector<std::uint32_t> words;
    words.reserve(ranges.size() * 2 + 2);
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        const byte_range& x = ranges[r];
        if (x.offset > readable || x.size > readable - x.offset || x.offset + x.size > 0xffffffffull)
            throw resource_error(std::string(op) + ": range " + std::to_string(r) + " (offset " + std::to_string(x.offset) + ", " +
                                 std::to_string(x.size) + " bytes) leaves the buffer's " + std::to_string(readable) +
                                 " readable bytes or its first 4 GiB");
        words.push_back(static_cast<std::uint32_t>(x.offset));
        words.push_back(static_cast<std::uint32_t>(x.size));
    }
    if (words.empty()) words.assign(2, 0); // a buffer is never empty
    return words;
}

// In the programs that read ranges as words (bytes.heads, bytes.gather): the little-endian word of
// a range's bytes [at, at + 4), zeros past its `size`, read a byte at a time from `data` at `base`
// (a range may start at any byte).
template <class Kernel, class Data, class Base, class At, class Size>
auto range_word(Kernel& k, const Data& data, const Base& base, const At& at, const Size& size) {
    const auto word = k.let("word", 0u);
    k.for_("b", 0u, 4u, [&](const auto& b) {
        k.if_(at + b < size, [&] { word = word | (data[base + at + b] << (b * 8u)); });
    });
    return word;
}

} // namespace vyre::ops::bytes
