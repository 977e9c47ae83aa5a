// Launch parameters: the small Uniform buffer of words every op binds last (counts, byte sizes,
// shapes), and the largest buffer a launch may allocate. Written once here for every op.
#pragma once

#include <vyre/runtime/buffer.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace vyre::runtime {

// A read-only buffer holding `words`, filled at creation (CL_MEM_COPY_HOST_PTR) rather than
// through the queue, so making one never blocks behind launches already enqueued.
inline bc::buffer make_parameter_buffer(const context& ctx, std::span<const std::uint32_t> words) {
    const std::size_t bytes = std::max<std::size_t>(words.size_bytes(), 4);
    const std::uint32_t none = 0;
    void* host = words.empty() ? const_cast<std::uint32_t*>(&none) : const_cast<std::uint32_t*>(words.data());
    return cl_call("clCreateBuffer", [&] {
        return bc::buffer(ctx.cl_context(), bytes, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, host);
    });
}

// A launch's parameter buffer and the words it holds. Pass the same one to launches with the same
// words and it is made once: replacing a buffer frees the old one, and the NVIDIA driver waits for
// the whole device before it frees memory, which would serialize launches and copies running on
// other queues. Keep it alive until the launches that read it have completed.
template <std::size_t Words>
struct parameter_buffer {
    bc::buffer buffer;
    std::array<std::uint32_t, Words> words{};

    // The buffer holding `next`, made anew only when the words change.
    const bc::buffer& hold(const context& ctx, const std::array<std::uint32_t, Words>& next) {
        if (buffer.get() == nullptr || words != next) {
            buffer = make_parameter_buffer(ctx, next);
            words = next;
        }
        return buffer;
    }
};

// The largest buffer of whole u32 words the device allocates, capped at what a u32 word index
// reaches (2^32-1 words would be 16 GiB; byte offsets in descriptors stop at 4 GiB anyway).
inline std::uint64_t max_word_buffer_bytes(const device_info& d) noexcept {
    return std::min<std::uint64_t>(d.max_allocation, std::uint64_t{std::numeric_limits<std::uint32_t>::max()} * 4) / 4 * 4;
}

// Bytes rounded up to whole u32 words: the size of the buffer behind a Bytes binding.
constexpr std::uint64_t padded_bytes(std::uint64_t bytes) noexcept { return (bytes + 3) / 4 * 4; }

} // namespace vyre::runtime
