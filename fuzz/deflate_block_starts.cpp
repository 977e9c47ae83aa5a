// compression.deflate.block_starts (the device's search for where a long DEFLATE stream's blocks
// start) on the IR's reference interpreter, which refuses an access out of bounds, over arbitrary
// bytes: the points equal the host finder's (format::deflate_split_points), windows of 16 bytes,
// one workgroup of 16 invocations each; the bytes after the stream in its buffer (0x5A) change
// nothing. The input is the stream, its first 1 KiB (the interpreter takes about a millisecond a
// window here).
#include <vyre/format/deflate_split.hpp>
#include <vyre/ops/compression/deflate_block_starts.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/runtime/buffer.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace cz = vyre::ops::compression;
    constexpr std::uint32_t window = 16;
    const std::span<const std::uint8_t> stream(data, std::min<std::size_t>(size, 1024));
    const auto points = vyre::format::deflate_split_points(stream, window, 1);
    if (stream.size() <= window) return 0;
    static const vyre::ir::program program = cz::deflate_block_starts_program(window);
    const auto n = static_cast<std::uint32_t>(stream.size()), windows = (n - window + window - 1) / window;
    std::vector<vyre::reference::buffer_data> buffers(4);
    buffers[0].assign(stream.begin(), stream.end());
    buffers[0].resize(vyre::runtime::padded_bytes(stream.size()), 0x5A);
    buffers[1].assign(std::size_t{windows} * 4, 0xFF);
    const auto described = cz::deflate_search_windows(window, n, window, n);
    buffers[2].resize(described.size() * sizeof(cz::deflate_search_window));
    std::memcpy(buffers[2].data(), described.data(), buffers[2].size());
    buffers[3].resize(4);
    std::memcpy(buffers[3].data(), &windows, 4);
    vyre::reference::run(program, {windows, 1, 1}, buffers);
    std::vector<std::uint64_t> device{0};
    for (std::uint32_t w = 0; w < windows; ++w) {
        std::uint32_t slot = 0;
        std::memcpy(&slot, buffers[1].data() + std::size_t{w} * 4, 4);
        if (slot != cz::deflate_no_block_start) device.push_back((std::uint64_t{w} + 1) * window * 8 + slot);
    }
    if (device != points) std::abort();
    return 0;
}
