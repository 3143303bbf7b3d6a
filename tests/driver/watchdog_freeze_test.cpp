// The armed watchdog sees its own process stand still: a child is stopped (SIGSTOP) for 2 s while
// a test is armed and continued; its watchdog reports one freeze of about that length in that
// test. A child left alone reports none, and nothing is recorded while no test is armed.
#include "driver/watchdog.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace shakedown {
namespace {

struct ChildReport {
    int freezes = -1;
    double seconds = 0.0;
    std::string test;
};

// The child arms "p2p", tells the parent it is ready, waits `armed_s`, then reports what its
// watchdog took. The parent stops it for `stopped_s` (0: not at all) right after it is ready.
ChildReport run_child(double armed_s, double stopped_s, bool armed = true) {
    std::array<int, 2> ready{}, report{};
    if (::pipe(ready.data()) != 0 || ::pipe(report.data()) != 0) return {};
    const pid_t child = ::fork();
    if (child == 0) {
        ::alarm(20);
        const Activity activity;
        Watchdog watchdog(0, "node1", 10.0, /*freeze_report_s=*/1.0, activity, [](const std::string&, const ActivitySnapshot&, double) {});
        if (armed) watchdog.arm("p2p", 600.0);
        (void)!::write(ready[1], "r", 1);
        // Waits by the clock, not by sleep alone: a stopped child's sleep is not stretched for it.
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(armed_s);
        while (std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        watchdog.disarm();
        const auto freezes = watchdog.take_freezes();
        char line[256];
        const int length = std::snprintf(line, sizeof line, "%zu %.3f %s", freezes.size(),
                                         freezes.empty() ? 0.0 : freezes.front().seconds,
                                         freezes.empty() ? "-" : freezes.front().test_key.c_str());
        (void)!::write(report[1], line, static_cast<std::size_t>(length));
        std::_Exit(0);
    }
    ::close(ready[1]);
    ::close(report[1]);
    char byte = 0;
    if (::read(ready[0], &byte, 1) == 1 && stopped_s > 0.0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the watchdog is asleep in its tick
        ::kill(child, SIGSTOP);
        std::this_thread::sleep_for(std::chrono::duration<double>(stopped_s));
        ::kill(child, SIGCONT);
    }
    char text[256] = {};
    const ssize_t length = ::read(report[0], text, sizeof text - 1);
    ::waitpid(child, nullptr, 0);
    ::close(ready[0]);
    ::close(report[0]);
    ChildReport result;
    if (length <= 0) return result;
    char test[128] = {};
    if (std::sscanf(text, "%d %lf %127s", &result.freezes, &result.seconds, test) == 3) result.test = test;
    return result;
}

TEST(WatchdogFreeze, AStoppedProcessReportsOneFreezeOfAboutItsLength) {
    const ChildReport report = run_child(/*armed_s=*/3.5, /*stopped_s=*/2.0);
    EXPECT_EQ(report.freezes, 1);
    EXPECT_EQ(report.test, "p2p");
    EXPECT_GT(report.seconds, 1.2);  // 2 s stopped, less the part of a tick it was asleep anyway
    EXPECT_LT(report.seconds, 3.0);
}

TEST(WatchdogFreeze, ARunningProcessReportsNone) {
    const ChildReport report = run_child(2.0, 0.0);
    EXPECT_EQ(report.freezes, 0);
}

TEST(WatchdogFreeze, NothingIsRecordedBetweenTests) {
    const ChildReport report = run_child(3.5, 2.0, /*armed=*/false);
    EXPECT_EQ(report.freezes, 0);
}

}  // namespace
}  // namespace shakedown
