// scan::yara_rule_conditions on arbitrary text: it returns (never throws, loops or reads out of
// bounds), a rule it names is one the text declares, and a rule needs a string exactly when its
// formula (yara_string_need) does not hold with no string matching.
#include <vyre/scan/yara_conditions.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& rule : vyre::scan::yara_rule_conditions(text))
        if (rule.name.empty() || text.find(rule.name) == std::string_view::npos ||
            rule.needs_a_string == rule.need.holds_without_strings())
            std::abort();
    return 0;
}
