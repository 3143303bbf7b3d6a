// Work spread over forked worker processes, results handed back as bytes through pipes.
//
// Why processes and not threads: HDF5 holds one global lock (a thread-safe build) or must be
// entered by one thread at a time (other builds), so threads reading traces take turns; a forked
// process has a library of its own. The analyzer has no MPI and no other thread while it loads,
// so fork() is safe there; a worker never returns into the caller's code (it ends in _exit), so
// nothing of the parent (stdio buffers, HDF5's atexit) runs twice.
//
// Each worker claims the next index from a counter in shared memory, so a worker slowed by
// another process on its core takes fewer items instead of holding the others up. A worker that
// dies (a signal while reading a hostile file) costs only the item it was on: `lost` is told
// which, and the remaining items go to new workers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace shakedown {

struct ForkedWork {
    std::size_t count = 0;  // items 0..count-1
    int jobs = 1;           // worker processes (at most count); 1 or fewer: everything in this process
    // Runs in a worker (or in this process when jobs is 1): the item's result as bytes. An exception
    // becomes lost(index, what()).
    std::function<std::vector<std::uint8_t>(std::size_t index)> work;
    // Runs in this process, once per item that gave a result, in no particular order.
    std::function<void(std::size_t index, std::span<const std::uint8_t> result)> take;
    // Runs in this process for an item whose work threw or whose worker died on it.
    std::function<void(std::size_t index, const std::string& why)> lost;
};

// Returns when every item was taken or lost. Throws std::runtime_error when workers die without
// finishing anything (fork or pipe failing is not an error: the rest then runs in this process).
void run_forked(const ForkedWork& work);

// The CPUs this process may run on (sched_getaffinity, so taskset and cgroup cpusets count): the
// default number of workers.
int usable_cores();

}  // namespace shakedown
