// `storage`: sequential write and read bandwidth and random 4 KiB read IOPS on a target
// folder, one writer per node (the node leader, its own file), first each node alone, then
// every node at once after a barrier (the load a parallel file system sees), every byte read
// back validated, every file removed afterwards, also on failure.
#include "comm/node_leaders.hpp"
#include "health/storage/storage_io.hpp"
#include "health/storage/storage_target.hpp"
#include "health/specs.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

namespace shakedown::health {
namespace {

constexpr std::uint64_t mib = 1024 * 1024;

struct Phase {
    const char* name;
    int code;  // the samples' "phase" column
};
constexpr Phase alone_phase{"alone", 0};
constexpr Phase all_phase{"all_nodes", 1};

// One measurement, its failure turned into text so that every leader still reaches the
// next barrier (a throw here would leave the others waiting).
struct Attempt {
    StorageFigures figures;
    std::string error;
};

Attempt attempt(const std::filesystem::path& folder, const StorageOptions& options) {
    Attempt result;
    try {
        result.figures = measure_storage(folder, options);
    } catch (const std::exception& error) {
        result.error = error.what();
    }
    return result;
}

class StorageTest final : public Test {
public:
    StorageTest() : Test(storage_spec()) {}

    // The folder must exist and be writable on this node: the driver's exit 2 otherwise.
    void check_on_node(const TestParams& params) const override { check_storage_target(storage_target_of(params)); }

    TestResult run(const RunContext& ctx) const override {
        TestResult result;
        const std::filesystem::path folder = storage_target_of(ctx.params());
        result.parameters["target_used"] = folder.string();
        result.parameters["writers"] = "node leaders, one file each (other ranks idle)";
        const Communicator leaders = comm::leaders_of(ctx);
        if (!leaders.valid()) {
            result.parameters["role"] = "not a node leader: no I/O";
            return result;
        }

        StorageOptions options;
        options.file_bytes = static_cast<std::uint64_t>(ctx.params().integer("size_mib")) * mib;
        options.block_bytes = static_cast<std::uint64_t>(ctx.params().integer("block_kib")) * 1024;
        options.random_seconds = ctx.params().real("random_s");
        options.try_direct = ctx.params().flag("direct");
        options.file_stem = fmt::format("shakedown-storage.{}.r{}", ctx.session().identity().node_name,
                                        ctx.session().world_rank());
        result.parameters["file_mib_used"] = std::to_string(options.file_bytes / mib);
        result.parameters["random_s_used"] = fmt::format("{:g}", options.random_seconds);
        result.parameters["file_system"] = file_system_name(folder);
        result.samples = SampleTable(storage_spec().samples);
        const int node = ctx.session().identity().node_index;

        // Each node alone, in leader order: nobody else's traffic in the figure.
        Attempt alone;
        for (int turn = 0; turn < leaders.size(); ++turn) {
            if (turn == leaders.rank()) {
                options.seed = static_cast<std::uint64_t>(2 * node + 1);
                options.plant_corruption = ctx.faults().corrupt();
                alone = attempt(folder, options);
            }
            MPI_Barrier(leaders.get());
        }
        record(result, alone, alone_phase);
        if (alone.error.empty()) {
            record_cache_mode(result.parameters, alone.figures.cache_mode);
            result.add_metric("storage.write_gbs", alone.figures.write_gbs());
            result.add_metric("storage.read_gbs", alone.figures.read_gbs());
            result.add_metric("storage.random_read_iops", alone.figures.random_iops());
        }

        if (leaders.size() == 1 || !ctx.params().flag("all_nodes")) {
            result.parameters["all_nodes_phase"] =
                leaders.size() == 1 ? "skipped: one node, the per-node figures are the job's" : "skipped: all_nodes=false";
            return result;
        }
        MPI_Barrier(leaders.get());
        options.seed = static_cast<std::uint64_t>(2 * node + 2);
        options.plant_corruption = false;
        const Attempt together = attempt(folder, options);
        record(result, together, all_phase);
        aggregate(result, together, leaders.get());
        return result;
    }

private:
    static void record(TestResult& result, const Attempt& attempt, Phase phase) {
        if (!attempt.error.empty()) {
            result.fail(fmt::format("storage ({}): {}", phase.name, attempt.error));
            return;
        }
        const auto& f = attempt.figures;
        if (!f.validation_error.empty())
            result.fail(fmt::format("storage ({}): read-back differs from what was written: {}", phase.name,
                                    f.validation_error));
        result.samples.add_row({static_cast<double>(phase.code), f.write_gbs(), f.read_gbs(), f.random_iops(),
                                static_cast<double>(f.bytes)});
    }

    // Aggregate of the all-nodes phase: total bytes over the slowest node's time (what the
    // file system delivered to the job), and the sum of IOPS. Reported by the first leader.
    static void aggregate(TestResult& result, const Attempt& together, MPI_Comm leaders) {
        const bool ok = together.error.empty();
        const double mine[4] = {ok ? static_cast<double>(together.figures.bytes) : 0.0,
                                ok ? together.figures.random_iops() : 0.0, 0.0, 0.0};
        const double times[2] = {ok ? together.figures.write_seconds : 0.0, ok ? together.figures.read_seconds : 0.0};
        double sums[4] = {}, slowest[2] = {};
        int failed = ok ? 0 : 1, any_failed = 0;
        MPI_Allreduce(mine, sums, 4, MPI_DOUBLE, MPI_SUM, leaders);
        MPI_Allreduce(times, slowest, 2, MPI_DOUBLE, MPI_MAX, leaders);
        MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, leaders);
        int rank = 0;
        MPI_Comm_rank(leaders, &rank);
        if (rank != 0 || any_failed != 0 || slowest[0] <= 0.0 || slowest[1] <= 0.0) return;
        result.add_metric("storage.all_nodes_write_gbs", sums[0] / slowest[0] * 1e-9);
        result.add_metric("storage.all_nodes_read_gbs", sums[0] / slowest[1] * 1e-9);
        result.add_metric("storage.all_nodes_random_read_iops", sums[1]);
    }
};

SHAKEDOWN_REGISTER_TEST(StorageTest);

}  // namespace
}  // namespace shakedown::health
