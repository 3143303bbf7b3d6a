// GPU identity under per-rank visibility, through the fake NVML (this machine has no GPU): two
// ranks on one node, each seeing only its own GPU as CUDA ordinal 0 (as under Slurm --gpu-bind
// or CUDA_VISIBLE_DEVICES=<rank>). The node leader samples both fake GPUs with the real sampler
// (tables keyed by NVML index, each with its UUID attribute); each rank writes a real trace with
// a DGEMM far below nominal; run.json records gpu 0 for both with distinct UUIDs. The analyzer
// must explain rank 0's finding with the power-capped GPU and rank 1's with the normal one: by
// ordinal, both would get GPU 0's telemetry. The CUDA side of the binding is what is simulated.
#include "analysis/analyzer.hpp"
#include "bench/run_folder_writer.hpp"
#include "core/clock.hpp"
#include "placement/gpu_binding.hpp"
#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/nvml.hpp"
#include "telemetry/sampler.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace shakedown {
namespace {

namespace fs = std::filesystem;

constexpr const char* run_id = "gpu-identity-test";
constexpr const char* node = "node0000";
constexpr const char* capped_uuid = "GPU-00000000-1111-2222-3333-444444444444";  // fake NVML device 0
constexpr const char* normal_uuid = "GPU-55555555-6666-7777-8888-999999999999";  // fake NVML device 1

int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

// The fake library next to this executable (as a runtime bundle ships it), else in the build tree.
std::string fake_nvml_path() {
    const auto beside = fs::read_symlink("/proc/self/exe").parent_path() / fs::path(SHAKEDOWN_FAKE_NVML_PATH).filename();
    return fs::exists(beside) ? beside.string() : std::string(SHAKEDOWN_FAKE_NVML_PATH);
}

// Rank 0 makes the folder; every rank learns its path.
fs::path shared_run_folder() {
    std::array<char, 4096> path{};
    if (world_rank() == 0) {
        std::string pattern = (fs::temp_directory_path() / "shakedown-gpu-identity-XXXXXX").string();
        if (::mkdtemp(pattern.data()) != nullptr) pattern.copy(path.data(), path.size() - 1);
    }
    MPI_Bcast(path.data(), static_cast<int>(path.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
    return fs::path(path.data()) / "run";
}

// What this rank's inventory records when it sees only NVML device `nvml_index`: one GPU, CUDA
// ordinal 0, with that device's UUID and clocks.
nlohmann::json inventory_seeing_only(const Nvml& nvml, unsigned nvml_index) {
    const auto device = nvml.device(nvml_index);
    return {{"gpus",
             {{{"index", 0},
               {"uuid", device->uuid().value_or("")},
               {"max_sm_clock_mhz", device->max_clock_mhz(nvml_abi::clock_sm).value_or(0)},
               {"nvml", {{"nvml_index", nvml_index}}}}}}};
}

std::vector<std::string> gather_uuids(const std::string& mine) {
    constexpr int width = 96;
    std::array<char, width> own{};
    mine.copy(own.data(), width - 1);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<char> all(static_cast<std::size_t>(width) * size);
    MPI_Gather(own.data(), width, MPI_CHAR, all.data(), width, MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> uuids;
    for (int rank = 0; rank < size; ++rank) uuids.emplace_back(all.data() + rank * width);
    return uuids;
}

TEST(GpuIdentityFakeNvml, EachRanksFindingIsExplainedByItsOwnGpu) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ASSERT_EQ(size, 2) << "run with 2 ranks";
    const int rank = world_rank();
    std::string why;
    const auto nvml = Nvml::load(fake_nvml_path(), &why);
    ASSERT_NE(nvml, nullptr) << why;
    ASSERT_EQ(nvml->device_count(), 2u);
    const fs::path run = shared_run_folder();
    ASSERT_FALSE(run.parent_path().empty());
    if (rank == 0) fs::create_directories(run);
    MPI_Barrier(MPI_COMM_WORLD);

    Trace trace;
    trace.header = {.shakedown_version = SHAKEDOWN_VERSION, .run_id = run_id, .rank = rank, .world_size = size,
                    .node = node, .local_rank = rank, .start_utc = now_utc()};
    trace.config_yaml = "suite: quick\n";
    trace.inventory = inventory_seeing_only(*nvml, static_cast<unsigned>(rank));
    const std::optional<int> ordinal = 0;  // each rank's only visible GPU
    const std::string own_uuid = placement::gpu_uuid_for(trace.inventory, ordinal);
    EXPECT_EQ(own_uuid, rank == 0 ? capped_uuid : normal_uuid);

    TestResult dgemm;
    dgemm.key = "dgemm_fp64";
    dgemm.start_utc = now_utc();
    if (rank == 0) {  // the node leader samples every GPU of the node, by NVML index
        std::vector<std::unique_ptr<TelemetrySource>> sources;
        for (unsigned index = 0; index < nvml->device_count(); ++index)
            sources.push_back(std::make_unique<GpuTelemetry>(nvml, *nvml->device(index)));
        TelemetrySampler sampler(50.0, std::move(sources));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        sampler.stop();
        trace.telemetry = sampler.drain();
        for (const auto& [device, table] : trace.telemetry) trace.telemetry_attributes[device] = sampler.attributes_of(device);
    } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    dgemm.end_utc = now_utc() + 0.1;
    dgemm.metrics.push_back(Metric{"dgemm_fp64.tflops", "TFLOP/s", 20.0, 64.0, Better::higher});  // 0.31 of nominal: FAIL
    trace.tests.push_back(dgemm);
    trace.status = TraceStatus::complete;
    trace.end_utc = now_utc() + 0.2;
    bench::write_trace_file(run / fmt::format("rank-{:05d}.h5", rank), trace);

    const std::vector<std::string> uuids = gather_uuids(own_uuid);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        bench::write_run_json(run, bench::make_run_json(run_id, {"dgemm_fp64"}, {node, node}, "complete", {0, 0}, uuids));
        std::ostringstream out;
        std::ostringstream err;
        const int code = analysis::analyze({.run_dir = run, .write_html = false}, out, err);
        EXPECT_EQ(code, 1) << out.str() << err.str();
        nlohmann::json summary;
        std::ifstream(run / "summary.json") >> summary;
        const auto& findings = summary["nodes"][0]["findings"];
        ASSERT_EQ(findings.size(), 2u) << summary.dump(2);
        for (const auto& finding : findings) {
            EXPECT_EQ(finding["gpu"], 0) << finding.dump();  // the same ordinal on both ranks
            const std::string explanation = finding["explanation"].get<std::string>();
            if (finding["rank"] == 0) {
                EXPECT_EQ(finding["gpu_uuid"], capped_uuid);
                EXPECT_TRUE(finding["telemetry_coincided"].get<bool>()) << explanation;
                EXPECT_EQ(explanation.rfind("GPU0 power-capped", 0), 0u) << explanation;
            } else {
                EXPECT_EQ(finding["gpu_uuid"], normal_uuid);
                EXPECT_FALSE(finding["telemetry_coincided"].get<bool>()) << explanation;
                EXPECT_EQ(explanation.rfind("GPU1 telemetry in the dgemm_fp64 window looks normal", 0), 0u) << explanation;
                EXPECT_EQ(explanation.find("power-capped"), std::string::npos) << explanation;
            }
        }
        fs::remove_all(run.parent_path());
    }
}

}  // namespace
}  // namespace shakedown
