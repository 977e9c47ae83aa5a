// compression.lz4_pages: LZ4 compression of a batch of fixed-size memory pages (4 KiB in v1) in one
// dispatch, one workgroup per page. Per page: a valid LZ4 block, its length and a kind (compressed,
// stored when the block would not be smaller, same_fill with the fill byte). The op's traits and
// the batch API (pages in, page records and blocks out); the program: lz4_pages_program.hpp.
#pragma once

#include <vyre/compression/pages.hpp>
#include <vyre/error.hpp>
#include <vyre/ops/compression/lz4_pages_program.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/parameters.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace vyre::ops::compression {

// A record read back from the device, checked before its length is trusted (slots are page_size
// bytes): the kind is known, no reserved bits are set, and the length fits the kind.
inline void check_lz4_pages_record(const page_record& r, std::uint32_t page_size, std::size_t page) {
    const auto kind = r.flags & 0xFFu;
    const bool ok = (r.flags >> 16) == 0 &&
                    ((kind == static_cast<std::uint32_t>(page_kind::compressed) && r.length > 0 && r.length < page_size && (r.flags >> 8) == 0) ||
                     (kind == static_cast<std::uint32_t>(page_kind::stored) && r.length == page_size && (r.flags >> 8) == 0) ||
                     (kind == static_cast<std::uint32_t>(page_kind::same_fill) && r.length == 0));
    if (!ok)
        throw error("compression.lz4_pages: device record of page " + std::to_string(page) + " is invalid (length " + std::to_string(r.length) +
                    ", flags " + std::to_string(r.flags) + ", page size " + std::to_string(page_size) + ")");
}

// ---- the op ------------------------------------------------------------------------------------

// Not a block op (pages in, page records and slots out), so it has its own small runtime below.
struct lz4_pages_op {
    static constexpr const char* id = lz4_pages_op_id;
    // Version 2: 12-bit hashes found through a table in workgroup memory (version 1 sorted 20-bit
    // hashes); the same container, records and page kinds, different blocks.
    static constexpr std::uint32_t version = 2;

    static std::vector<op_info> infos() {
        return {{id, version, "LZ4 compression of 4 KiB pages, one workgroup per page (records: length, kind | fill << 8)",
                 ir::op_signature{{ir::data_type::u32}, ir::data_type::bytes}, ir::convention::v1(), [] { return lz4_pages_program(); }}};
    }
};

// ---- running the program ---------------------------------------------------------------------

// A built program and its shape (lz4_pages_program's arguments).
struct lz4_pages_kernel {
    runtime::compiled_program program;
    std::uint32_t page_size;
    std::uint32_t workgroup = lz4_pages_default_workgroup;
    std::uint32_t hash_bits = reference::lz4_pages_hash_bits();
};

// The op's program (4 KiB pages, 12-bit hashes) in one of its shapes (32, 64 or 128 invocations
// per page: the same bytes), built once per shape. Other page sizes and hash widths:
// lz4_pages_kernel{runtime::compiled_program(lz4_pages_program(size, workgroup, bits)), size, workgroup, bits}.
inline const lz4_pages_kernel& lz4_pages_kernel_for(std::uint32_t page_size = lz4_pages_default_page_size,
                                                    std::uint32_t workgroup = lz4_pages_default_workgroup) {
    check_lz4_pages_shape(page_size, workgroup);
    if (page_size != lz4_pages_default_page_size)
        throw resource_error("compression.lz4_pages: the op runs " + std::to_string(lz4_pages_default_page_size) + "-byte pages, not " +
                             std::to_string(page_size) + " (build other sizes as lz4_pages_kernel{runtime::compiled_program(lz4_pages_program(" +
                             std::to_string(page_size) + ")), " + std::to_string(page_size) + "})");
    const auto make = [](std::uint32_t wg) {
        return lz4_pages_kernel{runtime::compiled_program(lz4_pages_program(lz4_pages_default_page_size, wg)), lz4_pages_default_page_size, wg};
    };
    switch (workgroup) {
    case 64: {
        static const lz4_pages_kernel k = make(64);
        return k;
    }
    case 128: {
        static const lz4_pages_kernel k = make(128);
        return k;
    }
    default: {
        static const lz4_pages_kernel k = make(32);
        return k;
    }
    }
}

// Device buffers of one dispatch: `count` pages in, slots and records out.
struct lz4_pages_device {
    boost::compute::buffer pages;   // count * page_size bytes
    boost::compute::buffer output;  // count * page_size bytes (slots)
    boost::compute::buffer records; // count * 8 bytes
    std::uint32_t count = 0;
};

inline lz4_pages_device allocate_lz4_pages(runtime::context& ctx, std::uint32_t capacity, std::uint32_t page_size) {
    if (capacity > lz4_pages_max_batch(page_size))
        throw resource_error("compression.lz4_pages: " + std::to_string(capacity) + " pages in one dispatch; at most " +
                             std::to_string(lz4_pages_max_batch(page_size)));
    lz4_pages_device d;
    d.pages = runtime::allocate(ctx, std::size_t{capacity} * page_size, CL_MEM_READ_ONLY);
    d.output = runtime::allocate(ctx, std::size_t{capacity} * page_size);
    d.records = runtime::allocate(ctx, std::size_t{capacity} * sizeof(page_record));
    d.count = capacity;
    return d;
}

namespace detail {
inline boost::compute::event launch_lz4_pages(runtime::context& ctx, const lz4_pages_kernel& kernel, const lz4_pages_device& d,
                                              std::uint32_t count, const boost::compute::buffer& params) {
    const std::uint32_t words = count * (kernel.page_size / 4);
    const runtime::buffer_arg args[] = {{d.pages, words}, {d.output, words}, {d.records, count * 2u}, {params, lz4_pages_param_words}};
    return runtime::dispatch(ctx, kernel.program, {count, 1, 1}, args);
}
inline void check_lz4_pages_launch(runtime::context& ctx, const lz4_pages_kernel& kernel, const lz4_pages_device& d, std::uint32_t count) {
    if (count > d.count)
        throw resource_error("compression.lz4_pages: " + std::to_string(count) + " pages for buffers of " + std::to_string(d.count));
    if (count != 0) check_lz4_pages_device(ctx.device(), kernel.page_size, kernel.workgroup, kernel.hash_bits);
}
} // namespace detail

// Enqueues the compression of the first `count` pages of `d` on ctx's queue and returns the
// launch's event; nothing waits. `params` receives the launch's parameter buffer: keep it until
// the event completes.
inline boost::compute::event enqueue_lz4_pages(runtime::context& ctx, const lz4_pages_kernel& kernel, const lz4_pages_device& d,
                                               std::uint32_t count, boost::compute::buffer& params) {
    detail::check_lz4_pages_launch(ctx, kernel, d, count);
    if (count == 0) return {};
    const std::uint32_t p[lz4_pages_param_words] = {count, 0, 0, 0};
    params = runtime::make_parameter_buffer(ctx, p);
    return detail::launch_lz4_pages(ctx, kernel, d, count, params);
}

// The same with a parameter buffer kept across launches and remade only when `count` changes: a
// pipeline of launches on several queues frees no device memory between them (the NVIDIA driver
// waits for the whole device before it frees any, which would run the pipeline's chunks one after
// another).
inline boost::compute::event enqueue_lz4_pages(runtime::context& ctx, const lz4_pages_kernel& kernel, const lz4_pages_device& d,
                                               std::uint32_t count, runtime::parameter_buffer<lz4_pages_param_words>& params) {
    detail::check_lz4_pages_launch(ctx, kernel, d, count);
    if (count == 0) return {};
    return detail::launch_lz4_pages(ctx, kernel, d, count, params.hold(ctx, {count, 0, 0, 0}));
}

// A batch's result: records[i] and page i's bytes at data[i * page_size, + records[i].length).
struct compressed_pages {
    std::uint32_t page_size = lz4_pages_default_page_size;
    std::vector<page_record> records;
    std::vector<std::uint8_t> data; // fixed slots of page_size bytes

    std::span<const std::uint8_t> block(std::size_t i) const {
        return std::span<const std::uint8_t>(data).subspan(i * page_size, records[i].length);
    }
    std::uint64_t compressed_bytes() const {
        std::uint64_t sum = 0;
        for (const auto& r : records) sum += r.length;
        return sum;
    }
};

namespace detail {
inline void check_pages_input(std::size_t bytes, std::uint32_t page_size) {
    if (bytes % page_size != 0)
        throw format_error("compression.lz4_pages: " + std::to_string(bytes) + " bytes is not a whole number of " +
                           std::to_string(page_size) + "-byte pages");
}
} // namespace detail

// Compresses every page of `pages` (a whole number of 4 KiB pages) on the device: one dispatch per
// lz4_pages_max_batch pages, blocking. The page bytes of stored pages are copied too, so every
// record's bytes are in `data`.
inline compressed_pages compress_pages(runtime::context& ctx, std::span<const std::uint8_t> pages,
                                       std::uint32_t page_size = lz4_pages_default_page_size) {
    const lz4_pages_kernel& kernel = lz4_pages_kernel_for(page_size);
    detail::check_pages_input(pages.size(), page_size);
    compressed_pages r;
    r.page_size = page_size;
    const std::size_t count = pages.size() / page_size;
    if (count != 0) check_lz4_pages_device(ctx.device(), page_size);
    r.records.resize(count);
    r.data.resize(pages.size());
    const std::size_t max_batch = static_cast<std::size_t>(
        std::min<std::uint64_t>(lz4_pages_max_batch(page_size), ctx.device().max_allocation / page_size));
    for (std::size_t first = 0; first < count; first += max_batch) {
        const auto n = static_cast<std::uint32_t>(std::min(max_batch, count - first));
        lz4_pages_device d = allocate_lz4_pages(ctx, n, page_size);
        const std::size_t bytes = std::size_t{n} * page_size;
        runtime::write(ctx, d.pages, pages.data() + first * page_size, bytes);
        boost::compute::buffer params;
        enqueue_lz4_pages(ctx, kernel, d, n, params);
        runtime::read(ctx, d.records, r.records.data() + first, n * sizeof(page_record));
        for (std::size_t i = first; i < first + n; ++i) check_lz4_pages_record(r.records[i], page_size, i);
        runtime::read(ctx, d.output, r.data.data() + first * page_size, bytes);
    }
    return r;
}

} // namespace vyre::ops::compression
