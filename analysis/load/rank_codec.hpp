// What reading one rank's trace gave (run_loader's read step), as cereal binary bytes: the form in
// which a forked reader process hands its ranks back to the analyzer (load/forked_workers.hpp).
// Every member of the Trace value travels, so the decoded record equals what the parent would
// have read itself; enums travel as their numbers, since both ends are the same program.
#pragma once

#include "analysis/load/run_data.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace shakedown::analysis {

// The members the read step fills: node and local_rank (when run.json named none), trace,
// inventory_read, problem and problem_text. rank, gpu and trace_path come from run.json on both sides.
std::vector<std::uint8_t> encode_rank_read(const RankRecord& record);

// Fills those members of `record` from `bytes`; throws std::runtime_error on bytes that are not
// an encode_rank_read() result.
void decode_rank_read(std::span<const std::uint8_t> bytes, RankRecord& record);

}  // namespace shakedown::analysis
