// libFuzzer target: any text as a `shakedown run --config` file, checked against every test's
// declared parameters. It must give a config or InputError "file:line: ...", never a crash.
#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const shakedown::CliOverrides cli;
        (void)shakedown::parse_config_text(text, "fuzz.yaml", cli, shakedown::Registry::instance());
    } catch (const shakedown::InputError&) {
    }
    return 0;
}
