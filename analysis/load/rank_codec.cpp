#include "analysis/load/rank_codec.hpp"

#include "analysis/load/trace_archive.hpp"

namespace shakedown::analysis {

template <class Archive>
void serialize(Archive& archive, RankRecord& record) {
    archive(record.node, record.local_rank, record.problem, record.problem_text, record.trace, record.inventory_read);
}

std::vector<std::uint8_t> encode_rank_read(const RankRecord& record) { return to_archive_bytes(record); }

void decode_rank_read(std::span<const std::uint8_t> bytes, RankRecord& record) {
    RankRecord read;
    from_archive_bytes(bytes, read, "a reader's record is malformed");
    record.node = std::move(read.node);
    record.local_rank = read.local_rank;
    record.problem = read.problem;
    record.problem_text = std::move(read.problem_text);
    record.trace = std::move(read.trace);
    record.inventory_read = read.inventory_read;
}

}  // namespace shakedown::analysis
