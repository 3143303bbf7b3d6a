#include "driver/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace shakedown {

Progress::Progress(bool enabled, std::size_t total, std::FILE* out)
    : enabled_(enabled), total_(total), out_(out), live_(enabled && ::isatty(::fileno(out)) != 0) {}

std::string Progress::prefix(std::size_t index, const std::string& key) const {
    const int width = static_cast<int>(fmt::format("{}", total_).size());
    return fmt::format("[{:>{}}/{}] {:<16}", index + 1, width, total_, key);
}

void Progress::started(std::size_t index, const std::string& key) {
    if (!live_) return;
    fmt::print(out_, "{} ...", prefix(index, key));
    std::fflush(out_);
}

void Progress::finished(std::size_t index, const std::string& key, const TestOutcome& outcome) {
    if (!enabled_) return;
    std::string line = fmt::format("{} {:<6} {:7.1f} s", prefix(index, key), to_string(outcome.worst), outcome.seconds);
    if (outcome.worst == Status::pass) {
        line += fmt::format("  ({} ranks)", outcome.ranks);
    } else {
        line += fmt::format("  on {} of {} ranks; rank {}: {}", outcome.ranks_with_worst, outcome.ranks,
                            outcome.first_rank_with_worst, outcome.reason);
    }
    fmt::print(out_, "{}{}\n", live_ ? "\r\033[K" : "", line);
    std::fflush(out_);
}

void Progress::message(const std::string& text) {
    if (!enabled_) return;
    fmt::print(out_, "{}\n", text);
    std::fflush(out_);
}

}  // namespace shakedown
