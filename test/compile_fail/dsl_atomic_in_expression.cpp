// expected-error: vyre::dsl: an atomic must be the whole value of a let or assign
// As in the IR, an atomic cannot be an operand: its side effect needs a defined order.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto counts = k.output<u32>("counts");
    k.let("next", atomic_add(counts, 0u, 1u) + 1u);
}
