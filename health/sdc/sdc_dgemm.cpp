// `sdc_dgemm`: silent data corruption. The same C = A * B (inputs from a fixed seed, the same on
// every rank) twice on this rank's device, cuBLAS on the bound GPU or the host BLAS through
// KokkosKernels; the two results must agree bit for bit (a deterministic library on healthy
// hardware repeats itself exactly), and the result's checksum must equal the one most devices of
// the node computed. Checksum validation (gemm_checksum) cannot see a flipped low bit; this can.
// The fault `corrupt` flips the lowest mantissa bit of one element of the second result, so the
// test must FAIL naming the rank and its device.
#include "health/sdc/result_agreement.hpp"
#include "health/specs.hpp"
#include "placement/placement_names.hpp"

#include "core/communicator.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "gemm/blas_threads.hpp"
#include "gemm/dgemm_engine.hpp"
#include "gemm/matrix_fill.hpp"
#include "kokkos/kokkos_runtime.hpp"
#include "placement/placement.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace shakedown::health {
namespace {

constexpr std::size_t gpu_default_n = 8192;
constexpr std::size_t host_default_n = 384;

// The lowest mantissa bit: the smallest corruption, invisible to any tolerance-based check.
void flip_lowest_bit(double& value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    bits ^= 1ull;
    std::memcpy(&value, &bits, sizeof bits);
}

// "GPU 3" (the CUDA ordinal as this rank sees it; the analyzer adds the GPU's UUID from run.json).
std::string device_name(const RunContext& ctx, placement::Placement where) {
    if (where == placement::Placement::host) return "host";
    return fmt::format("GPU {}", *placement::usable_gpu(ctx));
}

// Every rank's checksum on its node (collective over ctx.comm()).
std::vector<NodeChecksum> node_checksums(const RunContext& ctx, const std::optional<std::uint64_t>& mine,
                                         const std::string& device) {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(ctx.comm(), MPI_COMM_TYPE_SHARED, ctx.session().world_rank(), MPI_INFO_NULL, &node);
    int size = 0;
    MPI_Comm_size(node, &size);
    const unsigned long long value[2] = {mine ? 1ull : 0ull, mine.value_or(0)};
    std::vector<unsigned long long> values(2 * static_cast<std::size_t>(size));
    MPI_Allgather(value, 2, MPI_UNSIGNED_LONG_LONG, values.data(), 2, MPI_UNSIGNED_LONG_LONG, node);
    const int rank = ctx.session().world_rank();
    std::vector<int> ranks(static_cast<std::size_t>(size));
    MPI_Allgather(&rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, node);
    // Device names travel as fixed-size text ("GPU 7", "host").
    char name[64] = {};
    std::snprintf(name, sizeof name, "%s", device.c_str());
    std::vector<char> names(64 * static_cast<std::size_t>(size));
    MPI_Allgather(name, 64, MPI_CHAR, names.data(), 64, MPI_CHAR, node);
    MPI_Comm_free(&node);
    std::vector<NodeChecksum> out;
    for (std::size_t i = 0; i < static_cast<std::size_t>(size); ++i) {
        const char* text = names.data() + 64 * i;
        NodeChecksum entry{ranks[i], std::string(text, strnlen(text, 64)), std::nullopt};
        if (values[2 * i] != 0) entry.checksum = values[2 * i + 1];
        out.push_back(std::move(entry));
    }
    return out;
}

class SdcDgemm final : public Test {
public:
    SdcDgemm() : Test(sdc_dgemm_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const std::string& device = ctx.params().text(placement::names::device);
        if (auto gpu = placement::gpu_request_waiver(ctx, device)) return gpu;
        const bool on_gpu = device == "gpu" || (device == "auto" && placement::usable_gpu(ctx));
        if (!on_gpu && !kokkos::built()) return std::string("built without Kokkos (host DGEMM needs KokkosKernels)");
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        TestResult result;
        const auto where = placement::choose_placement(ctx, ctx.params().text(placement::names::device));
        const bool gpu = where == placement::Placement::gpu;
        const auto n = static_cast<std::size_t>(ctx.params().optional_integer("n").value_or(gpu ? gpu_default_n : host_default_n));
        const auto seed = static_cast<std::uint64_t>(ctx.params().integer("seed"));
        std::optional<gemm::BlasThreadShare> threads;
        if (!gpu)
            threads.emplace(std::max(1, static_cast<int>(placement::cores_per_rank(ctx, placement::ranks_sharing_this_node(ctx, true)))));
        else (void)placement::ranks_sharing_this_node(ctx, false);  // collective: every rank calls it
        auto engine = gpu ? gemm::make_cuda_dgemm(n, *placement::usable_gpu(ctx)) : gemm::make_host_dgemm(n);
        engine->load(gemm::random_matrix(seed, n, n), gemm::random_matrix(seed + 1, n, n));
        const std::string device = device_name(ctx, where);
        result.parameters["n"] = std::to_string(n);
        result.parameters["engine"] = engine->name();
        result.parameters["device_used"] = device;

        result.samples = SampleTable(sdc_dgemm_spec().samples);
        std::vector<double> first, second;
        double seconds = 0;
        for (int run = 0; run < 2; ++run) {
            const double took = engine->run_timed();
            seconds = run == 0 ? took : std::min(seconds, took);
            result.samples.add_row({static_cast<double>(run), took});
            (run == 0 ? first : second) = engine->result();
        }
        if (ctx.faults().corrupt()) flip_lowest_bit(second[second.size() / 2 + n / 3]);  // test-only: a flipped bit

        const auto difference = bit_difference(first, second);
        if (difference)
            result.fail(fmt::format("sdc_dgemm: rank {} ({}): the same product differs between two runs in {} of {} "
                                    "elements; first C({}, {}) = {:.17g} then {:.17g}",
                                    ctx.session().world_rank(), device, difference->elements, first.size(),
                                    difference->first % n, difference->first / n, difference->first_value,
                                    difference->other_value));
        // A device that does not repeat itself is not compared with the others: it is already named.
        const auto node = node_checksums(ctx, difference ? std::nullopt : std::optional(result_checksum(first)), device);
        const auto disagreements = node_disagreements(node);
        for (const Disagreement& disagreement : disagreements)
            if (disagreement.rank == ctx.session().world_rank()) result.fail("sdc_dgemm: " + disagreement.reason);
        result.add_metric("sdc_dgemm.mismatched_elements", difference ? static_cast<double>(difference->elements) : 0.0);
        result.add_metric("sdc_dgemm.node_disagreements", static_cast<double>(disagreements.size()));
        result.add_metric("sdc_dgemm.seconds", seconds);
        return result;
    }
};

SHAKEDOWN_REGISTER_TEST(SdcDgemm);

}  // namespace
}  // namespace shakedown::health
