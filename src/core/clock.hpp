// Wall-clock stamps (seconds since the Unix epoch, shared by results and telemetry so the
// analyzer can match them) and a monotonic stopwatch for measuring.
#pragma once

#include <chrono>
#include <string>

namespace shakedown {

double now_utc();

// Times read from files are checked against the calendar a time stamp can name: 1970-01-01 to
// 9999-12-31 (the last second ISO 8601's four-digit year holds). A larger figure is damage; the
// C library's calendar conversion fails on it.
inline constexpr double latest_calendar_utc = 253402300799.0;
bool is_calendar_time(double seconds_since_epoch);  // finite and within 0..latest_calendar_utc

// ISO 8601, "2026-11-30T05:39:24.123Z"; a figure that is not a calendar time is written as the
// number it is ("1e+18 s since the epoch, not a time"), never an error.
std::string format_utc(double seconds_since_epoch);

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
