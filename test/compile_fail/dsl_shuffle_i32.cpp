// expected-error: vyre::dsl: subgroup broadcasts and shuffles move u32 values
// Subgroup shuffles move U32 values only: an i32 value must be cast<u32>() first (and back after).
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse", {32, 1, 1});
    k.use_subgroups(32);
    auto in = k.input<i32>("in");
    auto i = k.let("i", invocation_id());
    auto x = k.let("x", in[i]);
    k.let("y", subgroup_shuffle(x, subgroup_local_id() ^ 1u));
}
