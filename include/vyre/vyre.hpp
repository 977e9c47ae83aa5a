// The whole library in one include. Prefer the narrower headers in your own code: this one exists
// for quick starts and to prove that every public header compiles together.
#pragma once

#include <vyre/error.hpp>

#include <vyre/ir/program.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/dsl.hpp>
#include <vyre/lower/opencl.hpp>

#include <vyre/runtime/context.hpp>
#include <vyre/runtime/device.hpp>
#include <vyre/runtime/program_cache.hpp>
#include <vyre/runtime/buffer.hpp>
#include <vyre/runtime/dispatch.hpp>

#include <vyre/reference/interpreter.hpp>
#include <vyre/reference/lz4.hpp>
#include <vyre/reference/zstd.hpp>
#include <vyre/reference/graph.hpp>
#include <vyre/reference/dataflow.hpp>

#include <vyre/format/detect.hpp>
#include <vyre/format/lz4_frame.hpp>
#include <vyre/format/zstd_frame.hpp>
#include <vyre/format/zstd_decompress.hpp>
#include <vyre/format/gzip.hpp>
#include <vyre/format/tar.hpp>
#include <vyre/format/zip.hpp>

#include <vyre/graph/csr.hpp>
#include <vyre/graph/labels.hpp>
#include <vyre/graph/finding.hpp>
#include <vyre/graph/traversal.hpp>
#include <vyre/graph/generate.hpp>
#include <vyre/graph/io.hpp>

#include <vyre/ops/registry.hpp>
#include <vyre/ops/primitive.hpp>
#include <vyre/ops/compression/block.hpp>
#include <vyre/ops/compression/lz4.hpp>
#include <vyre/ops/compression/zstd.hpp>
#include <vyre/ops/graph/launch.hpp>
#include <vyre/ops/graph/bfs_options.hpp>
#include <vyre/ops/graph/bfs_programs.hpp>
#include <vyre/ops/graph/bfs.hpp>
#include <vyre/ops/graph/reachability.hpp>
#include <vyre/ops/dataflow/transfer.hpp>
#include <vyre/ops/dataflow/level.hpp>

#include <vyre/engine/zstd_decompress.hpp>
#include <vyre/engine/dataflow.hpp>
// Taint rules read TOML with toml++, which only their users need installed.
#if __has_include(<toml++/toml.hpp>) || __has_include(<toml++/toml.h>)
#include <vyre/engine/taint_rules.hpp>
#endif
