#include "core/clock.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cmath>

namespace shakedown {

double now_utc() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool is_calendar_time(double seconds_since_epoch) {
    return std::isfinite(seconds_since_epoch) && seconds_since_epoch >= 0.0 && seconds_since_epoch <= latest_calendar_utc;
}

std::string format_utc(double seconds_since_epoch) {
    if (!is_calendar_time(seconds_since_epoch)) return fmt::format("{} s since the epoch, not a time", seconds_since_epoch);
    const auto whole = static_cast<std::time_t>(seconds_since_epoch);
    const int millis = static_cast<int>((seconds_since_epoch - static_cast<double>(whole)) * 1000.0);
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", fmt::gmtime(whole), millis);
}

}  // namespace shakedown
