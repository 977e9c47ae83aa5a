// Proves the compile-fail mechanism (CMake: vyre_compile_fail_test, b2: compile-fail): this file
// must not compile, and the compiler must print the message on the `expected-error:` line below.
// A compile-fail test names, on such a line, the static_assert text (a regular expression) it
// expects, so that failing to compile for another reason (a typo, a missing header) fails the test.
// expected-error: vyre: example misuse
#include <vyre/error.hpp> // proves the test compiles with vyre's include paths and flags

#include <type_traits>

namespace {

template <class T>
constexpr bool always_false = false;

template <class T>
void only_integers(T) {
    static_assert(std::is_integral_v<T> || always_false<T>, "vyre: example misuse (only integers here)");
}

} // namespace

int main() {
    only_integers(1.5); // a double: the static_assert fires
}
