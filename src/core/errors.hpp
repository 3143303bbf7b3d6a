// Errors that travel as values up to the driver, which alone decides to exit.
#pragma once

#include "core/cause.hpp"

#include <stdexcept>
#include <string>

namespace shakedown {

// Bad input from the user (command line, YAML, names, folders): one clear line, exit 2.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An error whose cause is known where it is thrown: a GPU library's status code says whether the
// device, the build or the software failed. The test runner records the cause with the error.
class CausedError : public std::runtime_error {
public:
    CausedError(const std::string& what, Cause cause) : std::runtime_error(what), cause_(cause) {}
    Cause cause() const { return cause_; }

private:
    Cause cause_;
};

// Exit codes shared by the driver and the analyzer.
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failures = 1;
inline constexpr int bad_input = 2;
inline constexpr int incomplete = 3;
}  // namespace exit_code

}  // namespace shakedown
