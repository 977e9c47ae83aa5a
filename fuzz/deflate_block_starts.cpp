// compression.deflate.block_starts (the device's search for where a long DEFLATE stream's blocks
// start) on the IR's reference interpreter, which refuses an access out of bounds, over arbitrary
// bytes: the points equal the host finder's (format::deflate_split_points), windows of 16 bytes,
// one workgroup of 16 invocations each; the bytes after the stream in its buffer (0x5A) change
// nothing. The same for the two programs the search runs by default (the candidates listed, then
// each checked). The input is the stream, its first 1 KiB (the interpreter takes about a
// millisecond a window here).
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
    const auto points_of = [&](const vyre::reference::buffer_data& found) {
        std::vector<std::uint64_t> device{0};
        for (std::uint32_t w = 0; w < windows; ++w) {
            std::uint32_t slot = 0;
            std::memcpy(&slot, found.data() + std::size_t{w} * 4, 4);
            if (slot != cz::deflate_no_block_start) device.push_back((std::uint64_t{w} + 1) * window * 8 + slot);
        }
        return device;
    };
    if (points_of(buffers[1]) != points) std::abort();
    // The two programs the search runs by default: every bit that passes the cheap tests listed
    // (a list as long as there are bits: never passed), then each listed bit checked.
    static const vyre::ir::program list_program = cz::deflate_block_candidates_program(window);
    static const vyre::ir::program check_program = cz::deflate_block_check_program(window);
    const std::uint32_t capacity = n * 8;
    std::vector<vyre::reference::buffer_data> list(4);
    list[0] = buffers[0];
    list[1].assign((1 + std::size_t{capacity} * 2) * 4, 0);
    list[2] = buffers[2];
    const std::uint32_t list_params[2] = {windows, capacity};
    list[3].resize(8);
    std::memcpy(list[3].data(), list_params, 8);
    vyre::reference::run(list_program, {windows, 1, 1}, list);
    std::uint32_t listed = 0;
    std::memcpy(&listed, list[1].data(), 4);
    if (listed > capacity) std::abort();
    std::vector<vyre::reference::buffer_data> check(5);
    check[0] = buffers[0];
    check[1].assign(std::size_t{windows} * 4, 0xFF);
    check[2] = buffers[2];
    check[3].resize(4);
    std::memcpy(check[3].data(), &listed, 4);
    check[4] = list[1];
    if (listed != 0) vyre::reference::run(check_program, {(listed + window - 1) / window, 1, 1}, check);
    if (points_of(check[1]) != points) std::abort();
    return 0;
}
