// The RDMA family's test declarations (one *_spec.cpp each, built into every binary).
#pragma once

#include "core/test_spec.hpp"

#include <vector>

namespace shakedown::ib {

const TestSpec& ib_inventory_spec();
const TestSpec& ib_perf_spec();
const TestSpec& gpudirect_rdma_spec();
const TestSpec& ucx_perf_spec();

// "device", "port" and "gid_index": which HCA, port and GID the verbs tests use (automatic:
// the HCA nearest the rank's GPU or CPU, its first ACTIVE port, a RoCE v2 GID on Ethernet).
std::vector<ParamSpec> endpoint_parameters();

// Named pairs must be of the job's ranks (checked before any rank starts).
void check_named_pairs(const TestParams& params, int world_size);

}  // namespace shakedown::ib
