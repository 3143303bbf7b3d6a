#include "driver/list_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace shakedown {

std::string format_test_list(const Registry& registry) {
    std::string out = fmt::format("{:<16} {:<24} {}\n", "TEST", "SUITES", "DESCRIPTION");
    for (const auto& test : registry.tests()) {
        out += fmt::format("{:<16} {:<24} {}\n", test->key(), fmt::format("{}", fmt::join(test->suites(), ",")),
                           test->description());
        for (const auto& param : test->parameters())
            out += fmt::format("{:<16}   {}={}  {}\n", "", param.name, describe(param.default_value), param.description);
    }
    return out;
}

}  // namespace shakedown
