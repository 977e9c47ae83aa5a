// The seed's permanent bindings of the block-decompression ops (compression.lz4,
// compression.zstd): the same five buffers, numbers, access and element types in both.
#pragma once

#include <boost/test/unit_test.hpp>

#include <vyre/ir/program.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace vyre::test {

inline void check_block_bindings(const ir::program& p) {
    BOOST_TEST_CONTEXT(p.name) {
        const std::vector<std::tuple<std::string, std::uint32_t, ir::buffer_access, ir::data_type>> want = {
            {"input", 0, ir::buffer_access::read_only, ir::data_type::bytes},
            {"descriptors", 1, ir::buffer_access::read_only, ir::data_type::u32},
            {"output", 2, ir::buffer_access::read_write, ir::data_type::bytes},
            {"statuses", 3, ir::buffer_access::read_write, ir::data_type::u32},
            {"params", 4, ir::buffer_access::uniform, ir::data_type::u32}};
        for (const auto& [name, binding, access, type] : want) {
            const auto* b = p.find_buffer(name);
            BOOST_REQUIRE_MESSAGE(b, "no buffer named " << name);
            BOOST_TEST(b->binding == binding);
            BOOST_TEST((b->access == access));
            BOOST_TEST((b->element == type));
        }
    }
}

} // namespace vyre::test
