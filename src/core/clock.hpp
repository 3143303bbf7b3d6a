// Wall-clock stamps (seconds since the Unix epoch, shared by results and telemetry so the
// analyzer can match them) and a monotonic stopwatch for measuring.
#pragma once

#include <chrono>
#include <string>

namespace shakedown {

double now_utc();
std::string format_utc(double seconds_since_epoch);  // ISO 8601, "2026-11-30T05:39:24.123Z"

class Stopwatch {
public:
    Stopwatch() : start_(std::chrono::steady_clock::now()) {}
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    void restart() { start_ = std::chrono::steady_clock::now(); }

private:
    std::chrono::steady_clock::time_point start_;
};

}  // namespace shakedown
