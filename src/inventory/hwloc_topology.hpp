// RAII owner of a loaded hwloc topology of the whole machine (also CPUs and memory outside
// this process's cgroup, which is marked separately) with the PCI devices that matter.
#pragma once

#include <hwloc.h>

namespace shakedown {

class HwlocTopology {
public:
    HwlocTopology();  // throws std::runtime_error when hwloc cannot load the topology
    HwlocTopology(const HwlocTopology&) = delete;
    HwlocTopology& operator=(const HwlocTopology&) = delete;
    ~HwlocTopology();

    hwloc_topology_t get() const { return topology_; }

private:
    hwloc_topology_t topology_ = nullptr;
};

}  // namespace shakedown
