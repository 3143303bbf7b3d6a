// The health family's test declarations (one *_spec.cpp each, built into every binary).
#pragma once

#include "core/test_spec.hpp"

namespace shakedown::health {

const TestSpec& topology_spec();
const TestSpec& h2d_bandwidth_spec();
const TestSpec& burnin_spec();
const TestSpec& storage_spec();
const TestSpec& checkpoint_io_spec();
const TestSpec& network_mtu_spec();
const TestSpec& tcp_bandwidth_spec();
const TestSpec& gpu_memtest_spec();
const TestSpec& sdc_dgemm_spec();

}  // namespace shakedown::health
