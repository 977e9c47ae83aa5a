// expected-error: vyre::dsl: cannot store into a read-only buffer
// An input (ReadOnly) buffer takes loads only.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto in = k.input<u32>("in");
    k.store(in, invocation_id(), 1u);
}
