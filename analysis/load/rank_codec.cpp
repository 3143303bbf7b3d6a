#include "analysis/load/rank_codec.hpp"

#include "analysis/load/trace_archive.hpp"

namespace shakedown::analysis {

template <class Archive>
void serialize(Archive& archive, RankRecord& record) {
    archive(record.node, record.local_rank, record.problem, record.problem_text, record.trace, record.inventory_read);
}

std::vector<std::uint8_t> encode_rank_read(const RankRecord& record) { return to_archive_bytes(record); }

void decode_rank_read(std::span<const std::uint8_t> bytes, RankRecord& record) {
    // serialize() names only the members the read step fills: rank, gpu and trace_path stay.
    from_archive_bytes(bytes, record, "a reader's record is malformed");
}

}  // namespace shakedown::analysis
