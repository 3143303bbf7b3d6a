// Samples every telemetry source at a fixed rate on its own thread, from construction to
// stop() (or destruction), and once more as it stops (each source's final_sample()), so the
// last reading is the state at the end, not up to a period before it. The schedule follows
// the steady clock (tick k at start + k/rate), so a slow sample does not shift later ticks,
// and stopping wakes the thread at once.
#pragma once

#include "core/result.hpp"
#include "telemetry/telemetry_source.hpp"

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shakedown {

class TelemetrySampler {
public:
    // Starts sampling at once. Throws std::invalid_argument for a rate that is not > 0 or
    // sources whose device() names repeat.
    TelemetrySampler(double rate_hz, std::vector<std::unique_ptr<TelemetrySource>> sources);
    TelemetrySampler(const TelemetrySampler&) = delete;
    TelemetrySampler& operator=(const TelemetrySampler&) = delete;
    ~TelemetrySampler();  // stops and joins

    // Takes the final readings and ends the thread; drain() then hands them over. Idempotent.
    void stop();

    // Hands over the rows collected since the last drain, one table per device (tables
    // without rows included, so the columns are known), and starts empty tables.
    std::map<std::string, SampleTable> drain();
    // Sources that threw: one event per source and failure streak, not one per sample.
    std::vector<Event> drain_events();

    // What identifies each device (GPU UUID, PCI bus id, model), read once at construction:
    // the trace keeps it beside the device's table.
    using DeviceAttributes = std::map<std::string, std::string>;
    const DeviceAttributes& attributes_of(const std::string& device) const;

private:
    struct Channel {
        std::unique_ptr<TelemetrySource> source;
        std::string device;
        std::vector<SampleTable::Column> columns;
        DeviceAttributes attributes;
        bool failing = false;  // only the sampling thread touches it
    };

    void run();
    void sample_all(bool final_reading);

    std::chrono::steady_clock::duration period_;
    std::vector<Channel> channels_;

    std::mutex mutex_;  // guards everything below
    std::condition_variable wake_;
    bool stop_ = false;
    std::vector<SampleTable> tables_;  // parallel to channels_
    std::vector<Event> events_;

    std::thread thread_;  // last: starts once everything above exists
};

}  // namespace shakedown
