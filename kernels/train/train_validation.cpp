#include "kernels/train/train_validation.hpp"

#include "kernels/train/host_layers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

namespace shakedown::kernels::train {

ReductionCheck check_reduction(const GradientSummary& local, const GradientSummary& reduced, double unit_roundoff,
                               MPI_Comm comm) {
    int size = 1;
    int rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    double sums[2] = {local.checksum, local.magnitude};
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
    ReductionCheck check;
    // Each element of a sum over `size` ranks is rounded at most once per addition, plus the
    // checksum's own double rounding: a corrupted element moves the checksum by its whole size.
    check.bound = (size - 1 + 2) * unit_roundoff;
    check.relative_error = sums[1] > 0.0 ? std::abs(reduced.checksum - sums[0]) / sums[1] : 0.0;
    if (!std::isfinite(reduced.checksum)) check.relative_error = INFINITY;

    std::vector<std::uint64_t> hashes(static_cast<std::size_t>(size));
    std::uint64_t mine = reduced.hash;
    MPI_Allgather(&mine, 1, MPI_UINT64_T, hashes.data(), 1, MPI_UINT64_T, comm);
    std::map<std::uint64_t, int> counts;
    for (const std::uint64_t hash : hashes) ++counts[hash];
    check.distinct_hashes = static_cast<int>(counts.size());
    const auto majority = std::max_element(counts.begin(), counts.end(),
                                           [](const auto& a, const auto& b) { return a.second < b.second; });
    // A strict majority says which bits are right. Without one (two ranks that differ) nobody can
    // tell which is: every rank is told, since the checksum cannot see one wrong element among
    // hundreds of millions within bf16's rounding.
    const bool strict_majority = majority->second * 2 > size;
    check.hash_disagrees = strict_majority ? mine != majority->first : counts.size() > 1;

    // Alone, the sum is the rank's own gradient: bit for bit (the checksum cannot see one element
    // among hundreds of millions within bf16's rounding, the hash can).
    if (size == 1 && reduced.hash != local.hash)
        check.problem = "the reduced gradient on this rank differs in its bits from its own gradient, the sum over this one rank";
    else if (!(check.relative_error <= check.bound))
        check.problem = fmt::format(
            "the reduced gradient on this rank is not the sum of the ranks' gradients: its checksum is off by {:.3g} of "
            "their magnitude (rounding allows {:.3g})",
            check.relative_error, check.bound);
    if (check.hash_disagrees && strict_majority)
        check.problem += fmt::format("{}its reduced gradient differs in its bits from {} of the {} ranks'",
                                     check.problem.empty() ? "" : "; ", majority->second, size);
    else if (check.hash_disagrees)
        check.problem += fmt::format("{}the ranks' reduced gradients differ in their bits ({} different among {} ranks) and no "
                                     "majority says which is right",
                                     check.problem.empty() ? "" : "; ", counts.size(), size);
    return check;
}

double relative_l2_error(const std::vector<float>& got, const std::vector<double>& want) {
    double difference = 0.0;
    double norm = 0.0;
    for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
        difference += (static_cast<double>(got[i]) - want[i]) * (static_cast<double>(got[i]) - want[i]);
        norm += want[i] * want[i];
    }
    if (got.size() != want.size() || !std::isfinite(difference)) return INFINITY;
    return norm > 0.0 ? std::sqrt(difference / norm) : std::sqrt(difference);
}

StepShape reference_shape(const LayerShape& main) {
    // Four query heads of the main head dimension; grouped as the main shape is (two per key/value
    // head) unless it has none (multi-head attention), so the same attention path is checked.
    const std::int64_t head_dim = main.head_dim();
    const std::int64_t kv_heads = main.heads > main.kv_heads ? 2 : 4;
    return StepShape{LayerShape{4 * head_dim, 12 * head_dim, 4, kv_heads}, 2, 128, 1};
}

ReferenceCheck check_against_reference(TrainEngine& engine, const StepShape& shape, std::uint64_t rank_seed,
                                       bool bf16_values) {
    engine.reduce_over(MPI_COMM_NULL);
    engine.step(make_buckets(engine.layout(), engine.element_bytes(), SIZE_MAX), 0.0);
    const std::vector<float> output = engine.output();
    const std::vector<float> gradients = engine.gradients();

    HostLayerStack<double> reference(shape, rank_seed, bf16_values);
    reference.forward();
    reference.backward([](std::size_t) {});

    ReferenceCheck check;
    const auto consider = [&](double error, std::string tensor) {
        if (!(error <= check.worst_error)) {  // NaN is the worst
            check.worst_error = std::isnan(error) ? INFINITY : error;
            check.worst_tensor = std::move(tensor);
        }
    };
    consider(relative_l2_error(output, reference.output()), "output");
    for (const TensorSlot& slot : reference.layout()) {
        const std::vector<float> got(gradients.begin() + static_cast<std::ptrdiff_t>(slot.offset),
                                     gradients.begin() + static_cast<std::ptrdiff_t>(slot.offset + slot.elements));
        const std::vector<double> want(reference.gradients().begin() + static_cast<std::ptrdiff_t>(slot.offset),
                                       reference.gradients().begin() + static_cast<std::ptrdiff_t>(slot.offset + slot.elements));
        consider(relative_l2_error(got, want), fmt::format("layer {} {} gradient", slot.layer, to_string(slot.kind)));
    }
    return check;
}

}  // namespace shakedown::kernels::train
