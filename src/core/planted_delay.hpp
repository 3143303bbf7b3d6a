// The test-only `delay` fault: a rank that sleeps before each operation, as a slow node or
// link would make it wait (FaultSwitches::delay_s gives the seconds).
#pragma once

#include <chrono>
#include <thread>

namespace shakedown {

inline void planted_delay(double seconds) {
    if (seconds > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace shakedown
