// The registry of every standard op by permanent id: what `vyre emit --all` walks and what the
// golden-kernel test checks against kernels/.
#pragma once

#include <vyre/ops/bytes/crc32.hpp>
#include <vyre/ops/bytes/gather.hpp>
#include <vyre/ops/bytes/heads.hpp>
#include <vyre/ops/bytes/xxh64.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/ops/compression/deflate_split.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/ops/compression/lz4_pages.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/ops/compression/zstd_blocks.hpp>
#include <vyre/ops/compression/zstd_frames.hpp>
#include <vyre/ops/compression/zstd_fse_tables.hpp>
#include <vyre/ops/dataflow/level.hpp>
#include <vyre/ops/dataflow/setup.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/ops/graph/reachability.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/ops/primitive.hpp>
#include <vyre/ops/primitive/prefix_sum.hpp>
#include <vyre/ops/scan/patterns.hpp>

#include <string_view>
#include <vector>

namespace vyre::ops {

inline const std::vector<op_info>& registry() {
    static const std::vector<op_info> ops = [] {
        std::vector<op_info> out;
        for (const auto& p : primitive::all()) out.push_back(p.info());
        const auto add = [&](std::vector<op_info> infos) {
            for (auto& info : infos) out.push_back(std::move(info));
        };
        add(primitive::prefix_sum_infos());
        add(compression::lz4_op::infos());
        add(compression::lz4_pages_op::infos());
        add(compression::zstd_op::infos());
        add(compression::zstd_frames_infos());
        add(compression::zstd_blocks_infos());
        out.push_back(compression::zstd_fse_tables_info());
        add(compression::deflate_op::infos());
        add(compression::deflate_split_infos());
        out.push_back(graph::bfs_info());
        out.push_back(graph::bitset_init_info());
        out.push_back(graph::bitset_pull_info());
        out.push_back(graph::bitset_push_info());
        out.push_back(graph::reachability_info());
        out.push_back(dataflow::dataflow_init_info());
        out.push_back(dataflow::dataflow_frontier_lanes_info());
        for (auto& info : dataflow::dataflow_level_infos()) out.push_back(std::move(info));
        add(dataflow::dataflow_setup_infos());
        out.push_back(scan::patterns_info());
        out.push_back(bytes::crc32_info());
        out.push_back(bytes::heads_info());
        out.push_back(bytes::gather_info());
        out.push_back(bytes::xxh64_info());
        return out;
    }();
    return ops;
}

inline const op_info* find_op(std::string_view id) {
    for (const auto& op : registry())
        if (op.id == id) return &op;
    return nullptr;
}

} // namespace vyre::ops
