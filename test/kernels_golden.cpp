// The lowering is a pure function: every registered op lowers to exactly the bytes kept in
// kernels/ (regenerate with `vyre emit --all --out kernels` after a deliberate change).
#include "harness.hpp"

#include <vyre/lower/opencl.hpp>
#include <vyre/ops/registry.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace {

// VYRE_SOURCE_DIR in the environment wins, so a build carried to another machine still finds the tree.
std::filesystem::path kernels_dir() {
    const char* env = std::getenv("VYRE_SOURCE_DIR");
    return std::filesystem::path(env && *env ? env : VYRE_SOURCE_DIR) / "kernels";
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

BOOST_AUTO_TEST_CASE(every_op_lowers_to_its_golden_kernel) {
    const auto& ops = vyre::ops::registry();
    BOOST_REQUIRE(!ops.empty());
    for (const auto& op : ops) {
        BOOST_TEST_CONTEXT("op " << op.id) {
            const auto file = kernels_dir() / op.kernel_file();
            BOOST_REQUIRE_MESSAGE(std::filesystem::exists(file), file << " is missing: run vyre emit --all --out kernels");
            BOOST_TEST(vyre::lower::to_opencl(op.program()).source == slurp(file));
        }
    }
}

BOOST_AUTO_TEST_CASE(no_stale_golden_kernels) {
    std::set<std::string> expected;
    for (const auto& op : vyre::ops::registry()) expected.insert(op.kernel_file());
    for (const auto& entry : std::filesystem::directory_iterator(kernels_dir()))
        BOOST_TEST(expected.count(entry.path().filename().string()) == 1u, entry.path() << " belongs to no registered op");
}

BOOST_AUTO_TEST_CASE(lowering_and_hash_are_deterministic) {
    for (const auto& op : vyre::ops::registry()) {
        const auto a = op.program(), b = op.program();
        BOOST_TEST(a == b);
        BOOST_TEST(vyre::ir::hash(a) == vyre::ir::hash(b));
        BOOST_TEST(vyre::lower::to_opencl(a).source == vyre::lower::to_opencl(b).source);
    }
}

BOOST_AUTO_TEST_CASE(op_ids_are_unique_and_entry_points_valid) {
    std::set<std::string> ids;
    for (const auto& op : vyre::ops::registry()) {
        BOOST_TEST(ids.insert(op.id).second, "duplicate op id " << op.id);
        BOOST_TEST(vyre::ir::is_valid_identifier(op.program().name), op.program().name);
    }
}

VYRE_TEST_MAIN
