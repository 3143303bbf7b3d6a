#include "driver/progress.hpp"

#include "core/printable_text.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>

namespace shakedown {

namespace {

// Open MPI hands every rank a pseudo-terminal even when mpirun's own output goes to a file,
// so under it "a terminal" cannot be told from a log: there, lines unless asked for live.
bool wants_live_line(ProgressStyle style, std::FILE* out) {
    switch (style) {
    case ProgressStyle::live: return true;
    case ProgressStyle::lines: return false;
    case ProgressStyle::automatic: return ::isatty(::fileno(out)) != 0 && std::getenv("OMPI_COMM_WORLD_RANK") == nullptr;
    }
    return false;
}

}  // namespace

std::string elapsed_text(double elapsed_s, const ExpectedDuration& expected) {
    if (!expected.seconds) return fmt::format("{:.0f} s (expected time unknown)", elapsed_s);
    return fmt::format("{:.0f} s of ~{:.0f} s", elapsed_s, *expected.seconds);
}

Progress::Progress(bool enabled, std::size_t total, ProgressStyle style, double still_running_interval_s, std::FILE* out)
    : enabled_(enabled), total_(total), still_running_interval_s_(still_running_interval_s), out_(out),
      live_(enabled && wants_live_line(style, out)) {}

std::string Progress::prefix(std::size_t index, const std::string& key) const {
    const int width = static_cast<int>(fmt::format("{}", total_).size());
    return fmt::format("[{:>{}}/{}] {:<16}", index + 1, width, total_, key);
}

void Progress::started(std::size_t index, const std::string& key) {
    std::lock_guard lock(mutex_);
    still_running_lines_ = 0;
    if (!live_) return;
    fmt::print(out_, "{} ...", prefix(index, key));
    std::fflush(out_);
}

void Progress::running(std::size_t index, const std::string& key, double elapsed_s, const ExpectedDuration& expected) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    if (live_) {
        fmt::print(out_, "\r\033[K{} {}", prefix(index, key), elapsed_text(elapsed_s, expected));
    } else {
        // The n-th line once n intervals have passed: a late tick never makes two lines at once.
        const auto due = static_cast<std::size_t>(std::floor(elapsed_s / still_running_interval_s_));
        if (due <= still_running_lines_) return;
        still_running_lines_ = due;
        fmt::print(out_, "{} still running, {}\n", prefix(index, key), elapsed_text(elapsed_s, expected));
    }
    std::fflush(out_);
}

void Progress::finished(std::size_t index, const std::string& key, const TestOutcome& outcome) {
    if (!enabled_) return;
    std::string line = fmt::format("{} {:<6} {:7.1f} s", prefix(index, key), to_string(outcome.worst), outcome.seconds);
    if (outcome.worst == Status::pass) {
        line += fmt::format("  ({} ranks)", outcome.ranks);
    } else {
        line += fmt::format("  on {} of {} ranks; rank {}: {}", outcome.ranks_with_worst, outcome.ranks,
                            outcome.first_rank_with_worst, escape_control(outcome.reason));
    }
    std::lock_guard lock(mutex_);
    fmt::print(out_, "{}{}\n", live_ ? "\r\033[K" : "", line);
    std::fflush(out_);
}

void Progress::message(const std::string& text) {
    if (!enabled_) return;
    std::lock_guard lock(mutex_);
    fmt::print(out_, "{}\n", escape_control(text));
    std::fflush(out_);
}

}  // namespace shakedown
