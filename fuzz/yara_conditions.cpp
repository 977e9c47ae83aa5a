// scan::yara_rule_conditions on arbitrary text: it returns (never throws, loops or reads out of
// bounds), and a rule it names is one the text declares.
#include <vyre/scan/yara_conditions.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& rule : vyre::scan::yara_rule_conditions(text))
        if (rule.name.empty() || text.find(rule.name) == std::string_view::npos) std::abort();
    return 0;
}
