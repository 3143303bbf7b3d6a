// train_step's definitions without MPI: the host layer stack's backward against finite
// differences (the arithmetic every engine is checked against), float against double, the
// shapes' FLOP and parameter counts, the gradient buckets, the scaling prediction and the pairing
// schedule of the node-link figures.
#include "kernels/train/host_layers.hpp"
#include "kernels/train/scaling_model.hpp"
#include "kernels/train/train_phases.hpp"
#include "kernels/train/train_shape.hpp"
#include "kernels/train/train_validation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <set>

namespace shakedown::kernels::train {
namespace {

const StepShape small_step{LayerShape{16, 24, 4, 2}, 2, 8, 2};

// loss = sum(output * G), as the stack defines it.
double loss_of(HostLayerStack<double>& stack, const std::vector<double>& output_gradient) {
    stack.forward();
    return std::inner_product(stack.output().begin(), stack.output().end(), output_gradient.begin(), 0.0);
}

// The output gradient the stack uses: G for its seed, as HostLayerStack fills it.
std::vector<double> output_gradient_of(const StepShape& shape, std::uint64_t seed) {
    std::vector<double> g(static_cast<std::size_t>(shape.tokens() * shape.layer.hidden));
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = output_gradient_value(seed, i);
    return g;
}

TEST(TrainMath, BackwardMatchesFiniteDifferencesForEveryTensorKind) {
    HostLayerStack<double> stack(small_step, 7, false);
    const std::vector<double> g = output_gradient_of(small_step, 7);
    stack.forward();
    stack.backward([](std::size_t) {});
    const std::vector<double> analytic = stack.gradients();
    // A few elements of every tensor of both layers, perturbed through a copy of the parameters.
    int checked = 0;
    for (const TensorSlot& slot : stack.layout())
        for (std::size_t i : {std::size_t{0}, slot.elements / 2, slot.elements - 1}) {
            const std::size_t index = slot.offset + i;
            const double h = 1e-6;
            HostLayerStack<double> plus(small_step, 7, false), minus(small_step, 7, false);
            plus.parameters()[index] += h;
            minus.parameters()[index] -= h;
            const double numeric = (loss_of(plus, g) - loss_of(minus, g)) / (2 * h);
            EXPECT_NEAR(analytic[index], numeric, 1e-6 * std::max(1.0, std::abs(numeric)))
                << "layer " << slot.layer << " " << to_string(slot.kind) << " element " << i;
            ++checked;
        }
    EXPECT_EQ(checked, 2 * tensors_per_layer * 3);
}

TEST(TrainMath, FloatStepAgreesWithDoubleToFloatRounding) {
    HostLayerStack<float> single(small_step, 3, false);
    HostLayerStack<double> twice(small_step, 3, false);
    single.forward();
    twice.forward();
    single.backward([](std::size_t) {});
    twice.backward([](std::size_t) {});
    EXPECT_LT(relative_l2_error(single.output(), twice.output()), 1e-5);
    EXPECT_LT(relative_l2_error(single.gradients(), twice.gradients()), 1e-4);
    // And a different rank's data gives a different gradient.
    HostLayerStack<double> other(small_step, 4, false);
    other.forward();
    other.backward([](std::size_t) {});
    EXPECT_GT(relative_l2_error(single.gradients(), other.gradients()), 0.1);
}

TEST(TrainMath, GradientsAreCompletedInLayoutOrder) {
    HostLayerStack<float> stack(small_step, 1, false);
    stack.forward();
    std::vector<std::size_t> order;
    stack.backward([&](std::size_t slot) { order.push_back(slot); });
    ASSERT_EQ(order.size(), stack.layout().size());
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
}

TEST(TrainShape, PresetsCountTheirPublishedParameters) {
    const LayerShape llama8 = *preset_shape("llama3_8b");
    EXPECT_EQ(llama8.head_dim(), 128);
    EXPECT_EQ(llama8.qkv_width(), 6144);
    EXPECT_EQ(llama8.parameters(), 218'112'000);  // 32 of these are most of Llama 3 8B's 8.0 billion
    EXPECT_EQ(preset_shape("llama3_70b")->parameters(), 855'654'400);
    EXPECT_FALSE(preset_shape("llama4"));
    // 6 x parameters x tokens + 12 x layers x hidden x sequence x tokens.
    const StepShape step{llama8, 4, 4096, 1};
    EXPECT_DOUBLE_EQ(step.model_flop(), 6.0 * 218'112'000 * 4 * 4096 + 12.0 * 4 * 4096 * 4096 * 4096);
}

TEST(TrainShape, ImpossibleShapesAreNamed) {
    EXPECT_EQ(shape_problem({4096, 14336, 32, 8}), "");
    EXPECT_EQ(shape_problem({4100, 14336, 32, 8}), "hidden 4100 is not a multiple of heads 32");
    EXPECT_EQ(shape_problem({4096, 14336, 32, 5}), "heads 32 is not a multiple of kv_heads 5 (grouped-query attention)");
    EXPECT_EQ(shape_problem({4096, 14335, 32, 8}), "ffn 14335 is not a multiple of 8");
    EXPECT_EQ(shape_problem({60, 64, 10, 2}), "the head dimension hidden / heads = 6 is not a multiple of 8");
}

TEST(TrainShape, BucketsAreContiguousWholeTensorsInBackwardOrder) {
    const std::vector<TensorSlot> layout = parameter_layout(small_step);
    ASSERT_EQ(layout.size(), 12u);
    EXPECT_EQ(layout.front().layer, 1);  // the last layer's gradients are complete first
    EXPECT_EQ(layout.front().kind, TensorKind::w_down);
    const std::vector<Bucket> buckets = make_buckets(layout, 4, 2000);
    std::size_t next_offset = 0, next_slot = 0;
    for (const Bucket& bucket : buckets) {
        EXPECT_EQ(bucket.offset, next_offset);
        EXPECT_EQ(bucket.first_slot, next_slot);
        std::size_t elements = 0;
        for (std::size_t slot = bucket.first_slot; slot <= bucket.last_slot; ++slot) elements += layout[slot].elements;
        EXPECT_EQ(bucket.elements, elements);
        if (&bucket != &buckets.back()) EXPECT_GE(bucket.elements * 4, 2000u);
        EXPECT_EQ(bucket_closed_by(buckets, bucket.last_slot), static_cast<std::size_t>(&bucket - buckets.data()));
        next_offset += elements;
        next_slot = bucket.last_slot + 1;
    }
    EXPECT_EQ(next_slot, layout.size());
    EXPECT_EQ(make_buckets(layout, 4, SIZE_MAX).size(), 1u);
}

TEST(ScalingModel, BusBandwidthIsNcclTestsDefinition) {
    EXPECT_DOUBLE_EQ(allreduce_bus_gbs(1e9, 8, 0.5), 2.0 * 2.0 * 7.0 / 8.0);
    EXPECT_DOUBLE_EQ(allreduce_bus_gbs(1e9, 1, 0.5), 0.0);
    EXPECT_DOUBLE_EQ(allreduce_seconds(1e9, 8, 3.5), 0.5);
    EXPECT_DOUBLE_EQ(allreduce_seconds(1e9, 1, 3.5), 0.0);
}

TEST(ScalingModel, SumsOverlapTheBackwardOneAfterAnother) {
    // Buckets ready at 1, 2, 3 s; compute ends at 3 s.
    EXPECT_DOUBLE_EQ(overlapped_step_s({1, 2, 3}, 3.0, {0.5, 0.5, 0.5}), 3.5);  // only the last is exposed
    EXPECT_DOUBLE_EQ(overlapped_step_s({1, 2, 3}, 3.0, {2.0, 2.0, 2.0}), 7.0);  // the stream is the bottleneck
    EXPECT_DOUBLE_EQ(overlapped_step_s({1, 2, 3}, 3.0, {0, 0, 0}), 3.0);
    EXPECT_DOUBLE_EQ(overlapped_step_s({}, 3.0, {}), 3.0);
    EXPECT_EQ(median_per_bucket({{1, 10}, {3, 30}, {2, 20}}), (std::vector<double>{2, 20}));
}

TEST(NodeLinks, RoundRobinPairsEveryNodeOncePerRound) {
    for (int players : {2, 3, 4, 5, 8, 9}) {
        const auto rounds = round_robin_rounds(players, 3);
        EXPECT_EQ(static_cast<int>(rounds.size()), std::min(3, players % 2 == 0 ? players - 1 : players));
        std::set<std::pair<int, int>> seen;
        for (const auto& round : rounds) {
            std::set<int> busy;
            for (const auto& [a, b] : round) {
                EXPECT_LT(a, b);
                EXPECT_LT(b, players);
                EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second) << "a node twice in one round";
                EXPECT_TRUE(seen.insert({a, b}).second) << "a pair twice";
            }
            EXPECT_GE(static_cast<int>(busy.size()), players - 1);  // at most one sits out
        }
    }
    EXPECT_TRUE(round_robin_rounds(1, 3).empty());
}

TEST(ReferenceShape, KeepsTheHeadDimensionAndTheGrouping) {
    const StepShape small = reference_shape(*preset_shape("llama3_8b"));
    EXPECT_EQ(small.layer.head_dim(), 128);
    EXPECT_EQ(small.layer.heads, 4);
    EXPECT_EQ(small.layer.kv_heads, 2);
    EXPECT_EQ(shape_problem(small.layer), "");
    EXPECT_EQ(reference_shape(LayerShape{256, 768, 4, 4}).layer.kv_heads, 4);
}

}  // namespace
}  // namespace shakedown::kernels::train
