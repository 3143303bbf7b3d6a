// `checkpoint_io`: the storage a training job uses. First the checkpoint: every rank writes its
// shard at once (large transfers, fsync), then reads it back; then the training input: every rank
// writes many small sample files and reads them whole in a shuffled order, all ranks at once.
// Figures per rank, per node (its shards over its slowest rank) and per job (the checkpoint over
// the slowest rank: what a save or a restore costs the job). Every byte is validated, every file
// removed, also on failure; a target without room for the node's files is refused before any
// write.
#include "health/specs.hpp"
#include "health/storage/checkpoint_files.hpp"
#include "health/storage/checkpoint_io_names.hpp"
#include "health/storage/scratch_file.hpp"
#include "health/storage/storage_target.hpp"

#include "core/clock.hpp"
#include "core/communicator.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "placement/placement.hpp"
#include "stats/summary.hpp"

#include <sys/statvfs.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>

namespace shakedown::health {
namespace {

namespace names = checkpoint_io_names;
constexpr std::uint64_t mib = 1024 * 1024;

// Errors an operator fixes (room, quota, permissions, a read-only mount); any other I/O error is
// the storage's own.
Cause cause_of_errno(int code) {
    switch (code) {
    case ENOSPC: case EDQUOT: case EROFS: case EACCES: case EPERM: case EMFILE: case ENFILE: return Cause::configuration;
    default: return Cause::hardware;
    }
}

struct Failure {
    std::string reason;
    Cause cause = Cause::hardware;
};

// Runs one phase unless an earlier one failed; its error kept as text, so that every rank still
// reaches the next barrier (a throw here would leave the others waiting).
template <typename Work>
void run_phase(std::optional<Failure>& failure, Work work) {
    if (failure) return;
    try {
        work();
    } catch (const std::system_error& error) {
        failure = Failure{error.what(), cause_of_errno(error.code().value())};
    } catch (const std::exception& error) {
        failure = Failure{error.what(), Cause::software};
    }
}

// The node's first rank: does the target hold the node's files? Every rank of the node gets the
// answer ("" when it does).
std::string room_on_node(const std::filesystem::path& folder, std::uint64_t node_bytes, MPI_Comm node) {
    int node_rank = 0;
    MPI_Comm_rank(node, &node_rank);
    std::string problem;
    if (node_rank == 0) {
        struct statvfs space {};
        if (::statvfs(folder.c_str(), &space) != 0) {
            problem = fmt::format("cannot read the free space of {}: {}", folder.string(), std::strerror(errno));
        } else {
            const std::uint64_t free_bytes = static_cast<std::uint64_t>(space.f_bavail) * space.f_frsize;
            if (free_bytes < node_bytes)
                problem = fmt::format("{} has {} MiB free; this node's ranks need {} MiB: free space or name another target",
                                      folder.string(), free_bytes / mib, (node_bytes + mib - 1) / mib);
        }
    }
    broadcast_text(problem, 0, node);
    return problem;
}

struct RankFigures {
    double save_s = 0.0;
    double restore_s = 0.0;
    std::vector<double> sample_write_s;
    double sample_write_wall_s = 0.0;
    SampleFiles::Reads sample_reads;
};

class CheckpointIoTest final : public Test {
public:
    CheckpointIoTest() : Test(checkpoint_io_spec()) {}

    void check_on_node(const TestParams& params) const override { check_storage_target(storage_target_of(params)); }

    TestResult run(const RunContext& ctx) const override {
        TestResult result;
        const TestParams& params = ctx.params();
        const std::filesystem::path folder = storage_target_of(params);
        MPI_Comm comm = ctx.comm();
        int rank = 0, ranks = 1;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &ranks);
        const Communicator node = Communicator::split(comm, ctx.session().identity().node_index, rank);
        const int node_ranks = node.size();

        ShardOptions shard;
        shard.shard_bytes = static_cast<std::uint64_t>(params.integer("shard_mib")) * mib;
        shard.block_bytes = static_cast<std::uint64_t>(params.integer("block_kib")) * 1024;
        shard.seed = 2 * static_cast<std::uint64_t>(ctx.session().world_rank()) + 1;
        shard.plant_corruption = ctx.faults().corrupt();
        shard.stem = fmt::format("shakedown-checkpoint.{}.r{}", ctx.session().identity().node_name, ctx.session().world_rank());
        const int sample_count = static_cast<int>(params.integer("sample_files"));
        const std::uint64_t sample_bytes = static_cast<std::uint64_t>(params.integer("sample_kib")) * 1024;

        result.parameters["target_used"] = folder.string();
        result.parameters["file_system"] = file_system_name(folder);
        result.parameters["writers"] = "every rank, its own shard and sample files, all ranks at once";
        result.parameters["checkpoint_mib_used"] = std::to_string(shard.shard_bytes / mib * static_cast<std::uint64_t>(ranks));
        result.samples = SampleTable(checkpoint_io_spec().samples);

        std::optional<Failure> failure;
        // A rank holds its shard, then its sample files, in memory and on the target (one at a time).
        const std::uint64_t rank_bytes = std::max(shard.shard_bytes, sample_bytes * static_cast<std::uint64_t>(sample_count));
        const std::uint64_t node_bytes = rank_bytes * static_cast<std::uint64_t>(node_ranks);
        if (node_bytes > placement::host_memory_bytes(ctx) / 2)
            failure = Failure{fmt::format("this node's ranks would hold {} MiB of checkpoint data in memory, more than half "
                                          "its {} MiB: lower shard_mib or sample_files",
                                          (node_bytes + mib - 1) / mib, placement::host_memory_bytes(ctx) / mib),
                              Cause::configuration};
        if (std::string room = room_on_node(folder, node_bytes, node.get()); !room.empty() && !failure)
            failure = Failure{room, Cause::configuration};
        run_phase(failure, [&] {
            shard.direct = params.flag("direct") && supports_o_direct(folder);
            record_cache_mode(result.parameters, cache_mode_of(folder, shard.direct));
        });

        RankFigures mine;
        std::string mismatch;
        {
            std::optional<CheckpointShard> file;
            run_phase(failure, [&] { file.emplace(folder, shard); });
            MPI_Barrier(comm);
            run_phase(failure, [&] { mine.save_s = file->save(); });
            MPI_Barrier(comm);
            run_phase(failure, [&] {
                const CheckedRead read = file->restore();
                mine.restore_s = read.seconds;
                mismatch = read.mismatch;
            });
        }  // the shard removed: its room is the sample files'
        {
            std::optional<SampleFiles> samples;
            run_phase(failure, [&] {
                samples.emplace(folder, shard.stem + ".samples", sample_count, sample_bytes, shard.seed + 1, shard.direct);
            });
            MPI_Barrier(comm);
            run_phase(failure, [&] {
                const Stopwatch wall;
                mine.sample_write_s = samples->write_all();
                mine.sample_write_wall_s = wall.seconds();
            });
            MPI_Barrier(comm);
            run_phase(failure, [&] {
                mine.sample_reads = samples->read_shuffled();
                if (mismatch.empty()) mismatch = mine.sample_reads.mismatch;
            });
        }

        const int world_rank = ctx.session().world_rank();
        if (failure) {
            result.fail(fmt::format("checkpoint_io on rank {}: {}", world_rank, failure->reason));
            result.cause = failure->cause;
        } else if (!mismatch.empty()) {
            result.fail(fmt::format("checkpoint_io on rank {}: read-back differs from what was written: {}", world_rank, mismatch));
        } else {
            record_rank(result, mine, shard.shard_bytes, sample_bytes);
        }
        const bool valid = !failure && mismatch.empty();
        record_shared(result, mine, valid, shard.shard_bytes, sample_bytes, node.get(), comm);
        return result;
    }

private:
    static void record_rank(TestResult& result, const RankFigures& mine, std::uint64_t shard_bytes, std::uint64_t sample_bytes) {
        result.samples.add_row({static_cast<double>(names::Phase::save), mine.save_s, static_cast<double>(shard_bytes)});
        result.samples.add_row({static_cast<double>(names::Phase::restore), mine.restore_s, static_cast<double>(shard_bytes)});
        const double files = static_cast<double>(mine.sample_write_s.size());
        result.samples.add_row({static_cast<double>(names::Phase::sample_write), mine.sample_write_wall_s, files * sample_bytes});
        result.samples.add_row({static_cast<double>(names::Phase::sample_read), mine.sample_reads.wall_seconds, files * sample_bytes});
        if (mine.save_s > 0) result.add_metric(std::string(names::save_gbs), shard_bytes / mine.save_s * 1e-9);
        if (mine.restore_s > 0) result.add_metric(std::string(names::restore_gbs), shard_bytes / mine.restore_s * 1e-9);
        const auto microseconds = [](std::vector<double> seconds) {
            for (double& value : seconds) value *= 1e6;
            return seconds;
        };
        const std::vector<double> write_us = microseconds(mine.sample_write_s);
        const std::vector<double> read_us = microseconds(mine.sample_reads.seconds);
        result.add_metric(std::string(names::sample_write_p50_us), stats::median(write_us));
        result.add_metric(std::string(names::sample_write_p99_us), stats::percentile(write_us, 0.99));
        result.add_metric(std::string(names::sample_read_p50_us), stats::median(read_us));
        result.add_metric(std::string(names::sample_read_p99_us), stats::percentile(read_us, 0.99));
        if (mine.sample_write_wall_s > 0) result.add_metric(std::string(names::sample_writes_per_s), files / mine.sample_write_wall_s);
        if (mine.sample_reads.wall_seconds > 0)
            result.add_metric(std::string(names::sample_reads_per_s), files / mine.sample_reads.wall_seconds);
    }

    // The node's and the job's figures: bytes over the slowest rank's time, recorded only when
    // every rank of that node (job) measured a valid figure. Collective over `node` and `comm`.
    static void record_shared(TestResult& result, const RankFigures& mine, bool valid, std::uint64_t shard_bytes,
                              std::uint64_t sample_bytes, MPI_Comm node, MPI_Comm comm) {
        const double files = static_cast<double>(mine.sample_reads.seconds.size());
        const double slowest_mine[3] = {mine.save_s, mine.restore_s, mine.sample_reads.wall_seconds};
        const double sums_mine[3] = {valid ? static_cast<double>(shard_bytes) : 0.0, valid ? files * sample_bytes : 0.0,
                                     valid ? files : 0.0};
        const int invalid = valid ? 0 : 1;
        double node_slowest[3] = {}, node_sums[3] = {}, job_slowest[3] = {}, job_sums[3] = {};
        int node_invalid = 0, job_invalid = 0;
        MPI_Allreduce(slowest_mine, node_slowest, 3, MPI_DOUBLE, MPI_MAX, node);
        MPI_Allreduce(sums_mine, node_sums, 3, MPI_DOUBLE, MPI_SUM, node);
        MPI_Allreduce(&invalid, &node_invalid, 1, MPI_INT, MPI_MAX, node);
        MPI_Allreduce(slowest_mine, job_slowest, 3, MPI_DOUBLE, MPI_MAX, comm);
        MPI_Allreduce(sums_mine, job_sums, 3, MPI_DOUBLE, MPI_SUM, comm);
        MPI_Allreduce(&invalid, &job_invalid, 1, MPI_INT, MPI_MAX, comm);
        int node_rank = 0, rank = 0;
        MPI_Comm_rank(node, &node_rank);
        MPI_Comm_rank(comm, &rank);
        const auto positive = [](const double* values) { return values[0] > 0 && values[1] > 0 && values[2] > 0; };
        if (node_rank == 0 && node_invalid == 0 && positive(node_slowest)) {
            result.add_metric(std::string(names::node_save_s), node_slowest[0]);
            result.add_metric(std::string(names::node_restore_s), node_slowest[1]);
            result.add_metric(std::string(names::node_save_gbs), node_sums[0] / node_slowest[0] * 1e-9);
            result.add_metric(std::string(names::node_restore_gbs), node_sums[0] / node_slowest[1] * 1e-9);
        }
        if (rank == 0 && job_invalid == 0 && positive(job_slowest)) {
            result.add_metric(std::string(names::job_save_s), job_slowest[0]);
            result.add_metric(std::string(names::job_restore_s), job_slowest[1]);
            result.add_metric(std::string(names::job_save_gbs), job_sums[0] / job_slowest[0] * 1e-9);
            result.add_metric(std::string(names::job_restore_gbs), job_sums[0] / job_slowest[1] * 1e-9);
            result.add_metric(std::string(names::job_sample_read_gbs), job_sums[1] / job_slowest[2] * 1e-9);
            result.add_metric(std::string(names::job_sample_reads_per_s), job_sums[2] / job_slowest[2]);
        }
    }
};

SHAKEDOWN_REGISTER_TEST(CheckpointIoTest);

}  // namespace
}  // namespace shakedown::health
