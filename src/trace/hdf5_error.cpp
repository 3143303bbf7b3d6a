#include "trace/hdf5_error.hpp"

#include <fmt/format.h>

namespace shakedown::hdf5 {
namespace {

// H5Ewalk2 visits the stack from the innermost frame outward with H5E_WALK_UPWARD; the
// first description is the most specific one. Must not throw: HDF5 calls it from C.
herr_t keep_first_description(unsigned, const H5E_error2_t* error, void* out) noexcept {
    auto* description = static_cast<std::string*>(out);
    if (description->empty() && error != nullptr && error->desc != nullptr) {
        try {
            *description = error->desc;
        } catch (...) {
            return -1;
        }
    }
    return 0;
}

// HDF5 descriptions are single lines in practice; make sure a message stays one line.
std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

}  // namespace

void silence_error_printing() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string innermost_error_message() {
    std::string description;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_first_description, &description);
    return one_line(std::move(description));
}

void ErrorContext::fail(std::string_view what) const {
    throw TraceError(fmt::format("{}: {}", file_, one_line(std::string(what))));
}

void ErrorContext::fail_call(std::string_view call, std::string_view object) const {
    const std::string reason = innermost_error_message();
    fail(fmt::format("{} failed on {}{}{}", call, object, reason.empty() ? "" : ": ", reason));
}

}  // namespace shakedown::hdf5
