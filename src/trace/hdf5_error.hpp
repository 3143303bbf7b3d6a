// HDF5 reports failures as negative return codes plus a per-thread error stack that it
// prints to stderr by default. The trace code prints nothing itself: it turns the printing
// off and converts each negative code into one TraceError line naming the file, the HDF5
// call, the object and HDF5's own innermost reason ("file signature not found").
#pragma once

#include "trace/trace_format.hpp"

#include <hdf5.h>

#include <string>
#include <string_view>

namespace shakedown::hdf5 {

// HDF5's automatic error printing is per thread in thread-safe builds (Debian's is one),
// so every public entry point calls this for the thread it runs on.
void silence_error_printing();

// The most specific description on the calling thread's HDF5 error stack, or "".
std::string innermost_error_message();

// The file every message names. Passed down to every helper that touches HDF5.
class ErrorContext {
public:
    explicit ErrorContext(std::string file) : file_(std::move(file)) {}
    const std::string& file() const { return file_; }

    // "<file>: <what>"
    [[noreturn]] void fail(std::string_view what) const;
    // "<file>: <call> failed on <object>: <HDF5 reason>"; `object` says what it was, quoted
    // by the caller ("'/tests/stream'", "attribute 'status' of '/'").
    [[noreturn]] void fail_call(std::string_view call, std::string_view object) const;

    template <typename Code>
    Code check(Code code, std::string_view call, std::string_view object) const {
        if (code < 0) fail_call(call, object);
        return code;
    }

private:
    std::string file_;
};

}  // namespace shakedown::hdf5
