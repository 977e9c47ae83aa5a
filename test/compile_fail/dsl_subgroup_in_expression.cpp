// expected-error: vyre::dsl: a subgroup operation must be the whole value of a let or assign
// As in the IR, a subgroup operation cannot be an operand: the whole subgroup evaluates it together.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse", {32, 1, 1});
    k.use_subgroups(32);
    auto in = k.input<u32>("in");
    auto i = k.let("i", invocation_id());
    auto c = k.let("c", in[i] != 0u);
    k.let("x", subgroup_ballot(c) + 1u);
}
