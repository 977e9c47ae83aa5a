// expected-error: vyre::dsl: atomics need a read_write buffer
// Atomics write, so a ReadOnly buffer takes none.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto counts = k.input<u32>("counts");
    k.let("old", atomic_add(counts, invocation_id(), 1u));
}
