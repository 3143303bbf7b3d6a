// Errors that travel as values up to the driver, which alone decides to exit.
#pragma once

#include <stdexcept>
#include <string>

namespace shakedown {

// Bad input from the user (command line, YAML, names, folders): one clear line, exit 2.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Exit codes shared by the driver and the analyzer.
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failures = 1;
inline constexpr int bad_input = 2;
inline constexpr int incomplete = 3;
}  // namespace exit_code

}  // namespace shakedown
