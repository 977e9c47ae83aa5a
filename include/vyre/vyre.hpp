// The whole library in one include. Prefer the narrower headers in your own code: this one exists
// for quick starts and to prove that every public header compiles together (.ci/check-umbrella
// checks that it names every one). Bottom layer first, as in doc/architecture.md.
#pragma once

// ground: plain values every layer may include
#include <vyre/compression/batch.hpp>
#include <vyre/compression/block.hpp>
#include <vyre/compression/deflate.hpp>
#include <vyre/compression/lz4.hpp>
#include <vyre/compression/pages.hpp>
#include <vyre/compression/skippable.hpp>
#include <vyre/compression/zstd.hpp>
#include <vyre/compression/zstd_blocks.hpp>
#include <vyre/compression/zstd_entropy.hpp>
#include <vyre/error.hpp>
#include <vyre/graph/csr.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/graph/io.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/graph/traversal.hpp>
#include <vyre/scan/filter_tables.hpp>
#include <vyre/scan/pattern.hpp>
#include <vyre/scan/yara_conditions.hpp>
#include <vyre/util/hex.hpp>
#include <vyre/util/json.hpp>
#include <vyre/util/little_endian.hpp>
#include <vyre/util/parallel.hpp>
#include <vyre/util/sha256.hpp>

// the IR, the DSL and the lowering
#include <vyre/dsl.hpp>
#include <vyre/dsl/expression.hpp>
#include <vyre/dsl/kernel.hpp>
#include <vyre/dsl/subgroup.hpp>
#include <vyre/ir/expr.hpp>
#include <vyre/ir/node.hpp>
#include <vyre/ir/program.hpp>
#include <vyre/ir/types.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/lower/opencl.hpp>

// runtime
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/context.hpp>
#include <vyre/runtime/device.hpp>
#include <vyre/runtime/device_pool.hpp>
#include <vyre/runtime/dispatch.hpp>
#include <vyre/runtime/opencl.hpp>
#include <vyre/runtime/parameters.hpp>
#include <vyre/runtime/program_cache.hpp>
#include <vyre/runtime/subgroups.hpp>

// CPU references and host-side parsers
#include <vyre/format/bzip2.hpp>
#include <vyre/format/detect.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/libarchive.hpp>
#include <vyre/format/oci_image.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/format/names.hpp>
#include <vyre/format/page_file.hpp>
#include <vyre/format/rpm.hpp>
#include <vyre/format/salvage.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/xz.hpp>
#include <vyre/format/zip.hpp>
#include <vyre/format/zip_methods.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_sections.hpp>
#include <vyre/reference/dataflow.hpp>
#include <vyre/reference/graph.hpp>
#include <vyre/reference/interpreter.hpp>
#include <vyre/reference/deflate.hpp>
#include <vyre/reference/lz4.hpp>
#include <vyre/reference/lz4_pages.hpp>
#include <vyre/reference/scan.hpp>
#include <vyre/reference/zstd.hpp>
#include <vyre/reference/zstd_frames.hpp>

// ops
#include <vyre/ops/block_op.hpp>
#include <vyre/ops/block_program.hpp>
#include <vyre/ops/bytes/crc32.hpp>
#include <vyre/ops/bytes/heads.hpp>
#include <vyre/ops/bytes/ranges.hpp>
#include <vyre/ops/compression/deflate.hpp>
#include <vyre/ops/compression/deflate_program.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/ops/compression/lz4_pages.hpp>
#include <vyre/ops/compression/lz4_pages_program.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/ops/compression/zstd_blocks.hpp>
#include <vyre/ops/compression/zstd_blocks_program.hpp>
#include <vyre/ops/compression/zstd_frames.hpp>
#include <vyre/ops/dataflow/level.hpp>
#include <vyre/ops/dataflow/transfer.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/ops/graph/bfs_options.hpp>
#include <vyre/ops/graph/bfs_programs.hpp>
#include <vyre/ops/graph/launch.hpp>
#include <vyre/ops/graph/reachability.hpp>
#include <vyre/ops/op.hpp>
#include <vyre/ops/primitive.hpp>
#include <vyre/ops/primitive/bitwise.hpp>
#include <vyre/ops/primitive/compare.hpp>
#include <vyre/ops/primitive/elementwise.hpp>
#include <vyre/ops/primitive/math.hpp>
#include <vyre/ops/scan/patterns.hpp>
#include <vyre/ops/registry.hpp>

// engines
#include <vyre/engine/dataflow.hpp>
#include <vyre/engine/deflate_decompress.hpp>
#include <vyre/engine/image_flatten.hpp>
#include <vyre/engine/lz4_decompress.hpp>
#include <vyre/engine/page_compressor.hpp>
#include <vyre/engine/page_file.hpp>
#include <vyre/engine/scan.hpp>
// Taint rules read TOML with toml++, which only their users need installed.
#if __has_include(<toml++/toml.hpp>) || __has_include(<toml++/toml.h>)
#include <vyre/engine/taint_rules.hpp>
#endif
#include <vyre/engine/unpack.hpp>
#include <vyre/engine/unpack_devices.hpp>
#include <vyre/engine/scan_devices.hpp>
#include <vyre/engine/yara_scan.hpp>
#include <vyre/engine/zip_extract.hpp>
#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/engine/zstd_host.hpp>
#include <vyre/engine/zstd_options.hpp>
