// What this rank is doing now: the test, its phase ("round 3 of 6: ranks 0-2") and the world
// ranks it is waiting for. The watchdog and the termination handler say it from their own
// threads while the main thread may be stuck inside MPI, so the analyzer can tell the rank that
// stopped from the ranks that waited for it.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace shakedown {

struct ActivitySnapshot {
    std::string test;              // "" between tests
    std::string phase;             // "" when the test has not said
    std::vector<int> waiting_for;  // world ranks; empty when not waiting on a peer
    std::string describe() const;  // "p2p, round 3 of 6: ranks 0-2, waiting for rank 2"
};

class Activity {
public:
    void enter_test(const std::string& test);
    void set_phase(std::string phase, std::vector<int> waiting_for = {});
    void leave_test();
    ActivitySnapshot snapshot() const;

private:
    mutable std::mutex mutex_;
    ActivitySnapshot now_;
};

}  // namespace shakedown
