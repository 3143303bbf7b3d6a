// The host BLAS's kernel width against the CPU's. A host DGEMM is judged against its cores' FMA
// peak at the width its BLAS kernels compute at (kernels/dgemm), so a healthy host passes with
// whatever kernel its library has for the core. Whether a narrower kernel is a choice (AVX2
// kernels on an AVX-512 core: the library's or OPENBLAS_CORETYPE's, not to fix) or a
// misdetection (OpenBLAS not recognizing the core and falling back to SSE kernels), or forced
// that narrow by OPENBLAS_CORETYPE, is a fact of the node's software, read from its inventory:
// the last two are configuration to fix, one finding per node that ran the DGEMM on its host,
// with the fix; and that node's host DGEMM figures below their bands are the kernel's, not the
// hardware's (configuration too: nothing drains).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/model/finding.hpp"

#include <vector>

namespace shakedown::analysis {

// Appends the nodes' BLAS findings to `findings` and re-files their host DGEMM figure findings.
void judge_blas_kernels(std::vector<Finding>& findings, const Observations& observations, RunDetails& details);

}  // namespace shakedown::analysis
