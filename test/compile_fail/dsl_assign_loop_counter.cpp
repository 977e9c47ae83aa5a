// expected-error: vyre::dsl: a loop counter is read-only
// The IR forbids assigning to a loop counter.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    k.for_("j", 0u, 8u, [&](auto j) { j = j + 1u; });
}
