// expected-error: vyre::dsl: a C\+\+ value wider than the expression.s type does not convert
// A 64-bit C++ value beside a u32 expression would be truncated silently; it does not compile.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto i = k.let("i", invocation_id());
    k.let("j", i + 0x100000000ull);
}
