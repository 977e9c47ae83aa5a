// expected-error: vyre::dsl: operands of a comparison must have the same type
// Comparing signed with unsigned needs a cast<T>() that says which comparison is meant.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto in = k.input<i32>("in");
    auto i = k.let("i", invocation_id());
    k.let("below", in[i] < i);
}
