#include "trace/hdf5_threads.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <string>

namespace shakedown::hdf5 {

bool library_is_threadsafe() {
    static const bool threadsafe = [] {
        hbool_t answer = 0;
        return H5is_library_threadsafe(&answer) >= 0 && answer != 0;
    }();
    return threadsafe;
}

std::string library_description() {
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    return fmt::format("{}.{}.{}, {}", major, minor, release,
                       library_is_threadsafe() ? "thread-safe" : "not thread-safe");
}

std::timed_mutex& writer_mutex() {
    static std::timed_mutex process_wide;
    return process_wide;
}

}  // namespace shakedown::hdf5
