// libFuzzer target: any bytes as a rank file. read_trace() must give a Trace or throw TraceError
// with one line; anything else (a crash, an ASan report, another exception type) is a bug.
#include "trace/trace_reader.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

// One scratch file per fuzzing process (libFuzzer's -jobs/-workers run several), in memory.
const std::filesystem::path& scratch_file() {
    static const std::filesystem::path path =
        std::filesystem::path(std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp") /
        ("shakedown-fuzz-trace-" + std::to_string(::getpid()) + ".h5");
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    {
        std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        const shakedown::Trace trace = shakedown::read_trace(scratch_file());
        (void)trace;
    } catch (const shakedown::TraceError&) {
        // the promised outcome for a damaged file
    }
    return 0;
}
