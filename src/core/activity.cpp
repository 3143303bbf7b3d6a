#include "core/activity.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace shakedown {

std::string ActivitySnapshot::describe() const {
    if (test.empty()) return "between tests";
    std::string text = test;
    if (!phase.empty()) text += ", " + phase;
    if (!waiting_for.empty())
        text += fmt::format(", waiting for rank{} {}", waiting_for.size() == 1 ? "" : "s", fmt::join(waiting_for, ","));
    return text;
}

void Activity::enter_test(const std::string& test) {
    const std::lock_guard lock(mutex_);
    now_ = ActivitySnapshot{test, {}, {}};
}

void Activity::set_phase(std::string phase, std::vector<int> waiting_for) {
    const std::lock_guard lock(mutex_);
    now_.phase = std::move(phase);
    now_.waiting_for = std::move(waiting_for);
}

void Activity::leave_test() {
    const std::lock_guard lock(mutex_);
    now_ = ActivitySnapshot{};
}

ActivitySnapshot Activity::snapshot() const {
    const std::lock_guard lock(mutex_);
    return now_;
}

}  // namespace shakedown
