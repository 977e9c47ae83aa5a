// expected-error: vyre::dsl: cannot store into a uniform buffer
// A uniform buffer holds constants: loads only.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse");
    auto params = k.uniform<u32>("params");
    k.store(params, 0u, 7u);
}
