// expected-error: vyre::dsl: operands of a binary operator must have the same type
// Adding a u32 to a u64 needs an explicit cast<T>().
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto in = k.input<u32>("in");
    auto wide = k.let("wide", cast<u64>(invocation_id()));
    k.let("sum", in[0u] + wide);
}
