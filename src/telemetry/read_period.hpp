// When a source whose counters cost a device read (NVML, sysfs, an NVMe admin command) reads them
// again: at most once per period, the sampler's rows between reads repeating the last reading,
// and afresh when sampling stops (final_sample), so what happened in the last moments counts.
#pragma once

#include <chrono>
#include <optional>

namespace shakedown {

class ReadPeriod {
public:
    explicit ReadPeriod(std::chrono::steady_clock::duration period) : period_(period) {}

    // True when a read is due (none taken yet, the period has passed, or renew() asked for one);
    // the period then counts from now, as the caller reads.
    bool due() {
        const auto now = std::chrono::steady_clock::now();
        if (last_ && now - *last_ < period_) return false;
        last_ = now;
        return true;
    }
    // A read taken now outside due() (at construction).
    void taken() { last_ = std::chrono::steady_clock::now(); }
    // The next due() is true.
    void renew() { last_.reset(); }

private:
    std::chrono::steady_clock::duration period_;
    std::optional<std::chrono::steady_clock::time_point> last_;
};

}  // namespace shakedown
