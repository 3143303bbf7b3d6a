#include "core/clock.hpp"
#include "telemetry/sampler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace shakedown {
namespace {

// Test double: counts its samples and returns (t, count, 2 * count) so every row is known.
class FakeSource : public TelemetrySource {
public:
    explicit FakeSource(std::string name = "fake", bool throws = false)
        : name_(std::move(name)), throws_(throws) {}
    std::string device() const override { return name_; }
    std::vector<SampleTable::Column> columns() const override {
        return {{"t", "s"}, {"count", "1"}, {"twice", "1"}};
    }
    std::map<std::string, std::string> attributes() const override { return {{"uuid", "FAKE-" + name_}}; }
    std::vector<double> sample() override {
        if (throws_) throw std::runtime_error("sensor gone");
        ++count_;
        return {now_utc(), count_, 2.0 * count_};
    }

private:
    std::string name_;
    bool throws_;
    double count_ = 0.0;
};

std::vector<std::unique_ptr<TelemetrySource>> sources_of(std::unique_ptr<TelemetrySource> a,
                                                         std::unique_ptr<TelemetrySource> b = nullptr) {
    std::vector<std::unique_ptr<TelemetrySource>> sources;
    sources.push_back(std::move(a));
    if (b) sources.push_back(std::move(b));
    return sources;
}

TEST(TelemetrySampler, SamplesAtTheRequestedRate) {
    const double before = now_utc();
    std::map<std::string, SampleTable> tables;
    {
        TelemetrySampler sampler(50.0, sources_of(std::make_unique<FakeSource>()));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        tables = sampler.drain();
    }
    ASSERT_EQ(tables.size(), 1u);
    const SampleTable& table = tables.at("fake");
    ASSERT_EQ(table.columns().size(), 3u);
    EXPECT_EQ(table.columns()[0].name, "t");
    EXPECT_GE(table.size(), 12u);
    EXPECT_LE(table.size(), 18u);
    double previous_t = before - 1e-3;
    for (std::size_t i = 0; i < table.size(); ++i) {
        const auto& row = table.rows()[i];
        EXPECT_GT(row[0], previous_t) << "row " << i;
        previous_t = row[0];
        EXPECT_DOUBLE_EQ(row[1], static_cast<double>(i + 1));
        EXPECT_DOUBLE_EQ(row[2], 2.0 * static_cast<double>(i + 1));
    }
}

TEST(TelemetrySampler, DrainHandsOverAndEmpties) {
    TelemetrySampler sampler(200.0, sources_of(std::make_unique<FakeSource>("a"), std::make_unique<FakeSource>("b")));
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    auto first = sampler.drain();
    ASSERT_EQ(first.size(), 2u);
    EXPECT_GT(first.at("a").size(), 0u);
    EXPECT_GT(first.at("b").size(), 0u);
    // Immediately after, only the ticks in between (few; a loaded machine may let several by):
    // what was handed over is gone from the sampler.
    auto second = sampler.drain();
    ASSERT_EQ(second.size(), 2u);
    EXPECT_LT(second.at("a").size(), first.at("a").size() + 5);
    EXPECT_EQ(second.at("a").columns().size(), 3u);  // empty tables keep their columns
    // Rows continue where each drain stopped: nothing lost, nothing repeated.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    auto third = sampler.drain();
    double expected_count = first.at("a").rows().back()[1] + 1.0;
    for (const auto* drained : {&second.at("a"), &third.at("a")}) {
        for (const auto& row : drained->rows()) {
            EXPECT_DOUBLE_EQ(row[1], expected_count);
            expected_count = row[1] + 1.0;
        }
    }
    EXPECT_FALSE(third.at("a").empty());
}

TEST(TelemetrySampler, KeepsEachDevicesIdentity) {
    const TelemetrySampler sampler(10.0, sources_of(std::make_unique<FakeSource>("a"), std::make_unique<FakeSource>("b")));
    EXPECT_EQ(sampler.attributes_of("a").at("uuid"), "FAKE-a");
    EXPECT_EQ(sampler.attributes_of("b").at("uuid"), "FAKE-b");
    EXPECT_TRUE(sampler.attributes_of("nosuch").empty());
}

TEST(TelemetrySampler, DestructorStopsPromptly) {
    // At 1 Hz the thread sleeps ~1 s between ticks; stopping must not wait for the next tick.
    auto sampler = std::make_unique<TelemetrySampler>(1.0, sources_of(std::make_unique<FakeSource>()));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const Stopwatch stopping;
    sampler.reset();
    EXPECT_LT(stopping.seconds(), 0.5);
}

// The last reading is taken as sampling stops, through final_sample(): at 0.5 Hz the only
// other row is the first tick's.
TEST(TelemetrySampler, StopTakesAFinalReadingThatDrainHandsOver) {
    class MarksItsFinalRow final : public FakeSource {
    public:
        std::vector<double> final_sample() override { return {now_utc(), -1.0, -1.0}; }
    };
    TelemetrySampler sampler(0.5, sources_of(std::make_unique<MarksItsFinalRow>()));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const Stopwatch stopping;
    sampler.stop();
    EXPECT_LT(stopping.seconds(), 0.5);  // not a wait for the next tick
    sampler.stop();                      // idempotent
    const auto tables = sampler.drain();
    const SampleTable& table = tables.at("fake");
    ASSERT_EQ(table.size(), 2u);
    EXPECT_DOUBLE_EQ(table.rows().front()[1], 1.0);
    EXPECT_DOUBLE_EQ(table.rows().back()[1], -1.0);
}

TEST(TelemetrySampler, RejectsBadRateAndDuplicateDevices) {
    EXPECT_THROW(TelemetrySampler(0.0, sources_of(std::make_unique<FakeSource>())), std::invalid_argument);
    EXPECT_THROW(TelemetrySampler(-5.0, sources_of(std::make_unique<FakeSource>())), std::invalid_argument);
    EXPECT_THROW(TelemetrySampler(10.0, sources_of(std::make_unique<FakeSource>("x"), std::make_unique<FakeSource>("x"))),
                 std::invalid_argument);
}

TEST(TelemetrySampler, FailingSourceGivesOneEventAndOthersContinue) {
    TelemetrySampler sampler(200.0, sources_of(std::make_unique<FakeSource>("broken", true),
                                               std::make_unique<FakeSource>("fine")));
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    const auto tables = sampler.drain();
    EXPECT_EQ(tables.at("broken").size(), 0u);
    EXPECT_GT(tables.at("fine").size(), 3u);
    const auto events = sampler.drain_events();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].severity, Severity::warning);
    EXPECT_NE(events[0].text.find("broken"), std::string::npos);
    EXPECT_NE(events[0].text.find("sensor gone"), std::string::npos);
    EXPECT_TRUE(sampler.drain_events().empty());
}

}  // namespace
}  // namespace shakedown
