// expected-error: vyre::dsl: cannot shift a boolean
// Shifts take integers only.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto i = k.let("i", invocation_id());
    auto flag = k.let("flag", i == 0u);
    k.let("shifted", flag << flag);
}
