// expected-error: vyre::dsl: u32_le reads a bytes buffer
// A little-endian U32 load assembles four bytes of a bytes buffer; a U32 buffer's elements are
// indexed directly.
#include <vyre/dsl.hpp>

int main() {
    using namespace vyre::dsl;
    kernel k("misuse", {32, 1, 1});
    auto in = k.input<u32>("in");
    auto out = k.output<u32>("out");
    auto i = k.let("i", invocation_id());
    k.store(out, i, in.u32_le(i));
}
