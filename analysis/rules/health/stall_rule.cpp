#include "analysis/rules/health/stall_rule.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace shakedown::analysis {
namespace {

// A watchdog that woke late ran in a process that was frozen (SIGSTOP, a paused VM) and resumed
// only as the job ended: that rank stopped, it did not wait.
bool frozen(const StalledAt& stood) {
    return stood.noticed_by == stalled_by_watchdog && stood.late_s > frozen_watchdog_late_s;
}

struct Stalls {
    std::map<int, const StalledAt*> watchdog;  // ranks whose watchdog fired, where they stood
    std::map<int, const StalledAt*> silent;    // the others: ended by a signal, or no record at all (nullptr)
    std::set<int> waited_for;                  // by the ranks whose watchdog fired
};

Stalls collect(const LoadedRun& run) {
    Stalls stalls;
    for (const RankRecord& record : run.ranks) {
        const StalledAt* stood = record.trace && record.trace->stalled ? &*record.trace->stalled : nullptr;
        if (stood != nullptr && stood->noticed_by == stalled_by_watchdog && !frozen(*stood)) {
            stalls.watchdog[record.rank] = stood;
            stalls.waited_for.insert(stood->activity.waiting_for.begin(), stood->activity.waiting_for.end());
        } else if (record.problem != RankProblem::none || stood != nullptr) {
            stalls.silent[record.rank] = stood;  // a rank that finished cleanly is neither
        }
    }
    return stalls;
}

std::vector<int> culprits_of(const Stalls& stalls) {
    std::vector<int> culprits;
    for (const auto& entry : stalls.silent)
        if (stalls.waited_for.count(entry.first) != 0) culprits.push_back(entry.first);
    if (culprits.empty())
        for (const auto& entry : stalls.silent) culprits.push_back(entry.first);
    if (!culprits.empty()) return culprits;
    // Every rank's watchdog fired: the ones waited for that waited for no one.
    for (const auto& [rank, stood] : stalls.watchdog)
        if (stalls.waited_for.count(rank) != 0 && stood->activity.waiting_for.empty()) culprits.push_back(rank);
    return culprits;
}

std::string test_of(const Stalls& stalls) {
    std::map<std::string, int> votes;
    for (const auto& entry : stalls.watchdog) ++votes[entry.second->activity.test];
    return std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
}

// What the culprit itself left: where it stood (and whether it was frozen), nothing at all, or,
// when its own watchdog fired in time, what that watchdog saw.
std::string where_it_stood(const Stalls& stalls, int rank) {
    const auto silent = stalls.silent.find(rank);
    if (silent == stalls.silent.end())
        return fmt::format(" (its watchdog: {})", stalls.watchdog.at(rank)->activity.describe());
    const StalledAt* stood = silent->second;
    if (stood == nullptr) return " (it left no record of where it stood)";
    const std::string frozen_note =
        frozen(*stood) ? fmt::format("; frozen: its own watchdog woke {:.0f} s late", stood->late_s) : std::string();
    return fmt::format(" (it was in {}{})", stood->activity.describe(), frozen_note);
}

}  // namespace

std::vector<Finding> stall_findings(const Observations& observations) {
    const Stalls stalls = collect(observations.run());
    if (stalls.watchdog.empty()) return {};  // no watchdog fired: the other rules say what ended the job
    const std::string test = test_of(stalls);
    std::vector<int> waiters;
    for (const auto& entry : stalls.watchdog) waiters.push_back(entry.first);
    std::vector<Finding> findings;
    for (const int rank : culprits_of(stalls)) {
        const RankIdentity* who = observations.rank(rank);
        if (who == nullptr) continue;
        std::vector<int> waited;  // the ranks whose watchdog named this one
        for (const auto& [other, stood] : stalls.watchdog)
            if (std::find(stood->activity.waiting_for.begin(), stood->activity.waiting_for.end(), rank) !=
                stood->activity.waiting_for.end())
                waited.push_back(other);
        const std::string where = where_it_stood(stalls, rank);
        const std::string waiting =
            waited.empty() ? fmt::format("rank{} {} reached the watchdog deadline", waiters.size() == 1 ? "" : "s",
                                         fmt::join(waiters, ","))
                           : fmt::format("rank{} {} waited for it", waited.size() == 1 ? "" : "s", fmt::join(waited, ","));
        findings.push_back(
            make_finding(*who, test, Level::fail,
                         fmt::format("{} rank {} stopped progressing in {}{}; {}", who->node, rank, test, where, waiting),
                         FindingSource::stall));
    }
    return findings;
}

}  // namespace shakedown::analysis
