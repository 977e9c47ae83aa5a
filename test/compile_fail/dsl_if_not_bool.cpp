// expected-error: vyre::dsl: an if_ condition must be boolean
// An integer is not a condition: compare it (x != 0u).
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto out = k.output<u32>("out");
    auto i = k.let("i", invocation_id());
    k.if_(i, [&] { k.store(out, i, 1u); });
}
