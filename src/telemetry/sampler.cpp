#include "telemetry/sampler.hpp"

#include "core/clock.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

namespace shakedown {

TelemetrySampler::TelemetrySampler(double rate_hz, std::vector<std::unique_ptr<TelemetrySource>> sources) {
    if (!(rate_hz > 0.0) || !std::isfinite(rate_hz))
        throw std::invalid_argument(fmt::format("telemetry rate must be > 0 Hz, got {}", rate_hz));
    period_ = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(1.0 / rate_hz));
    if (period_.count() <= 0) period_ = std::chrono::steady_clock::duration(1);

    std::set<std::string> devices;
    for (auto& source : sources) {
        std::string device = source->device();
        if (!devices.insert(device).second)
            throw std::invalid_argument(fmt::format("two telemetry sources are named '{}'", device));
        auto columns = source->columns();
        auto attributes = source->attributes();
        tables_.emplace_back(columns);
        channels_.push_back(Channel{std::move(source), std::move(device), std::move(columns), std::move(attributes)});
    }
    thread_ = std::thread([this] { run(); });
}

TelemetrySampler::~TelemetrySampler() { stop(); }

void TelemetrySampler::stop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::map<std::string, SampleTable> TelemetrySampler::drain() {
    std::map<std::string, SampleTable> collected;
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < channels_.size(); ++i) {
        collected[channels_[i].device] = std::move(tables_[i]);
        tables_[i] = SampleTable(channels_[i].columns);
    }
    return collected;
}

const TelemetrySampler::DeviceAttributes& TelemetrySampler::attributes_of(const std::string& device) const {
    static const DeviceAttributes none;
    for (const auto& channel : channels_)
        if (channel.device == device) return channel.attributes;
    return none;
}

std::vector<Event> TelemetrySampler::drain_events() {
    std::lock_guard lock(mutex_);
    return std::exchange(events_, {});
}

void TelemetrySampler::run() {
    auto next = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex_);
    while (!stop_) {
        lock.unlock();
        sample_all(false);  // sources are read without the lock: drain() never waits on a device
        lock.lock();
        next += period_;
        const auto now = std::chrono::steady_clock::now();
        if (next < now) next += ((now - next) / period_ + 1) * period_;  // skip missed ticks, no burst
        wake_.wait_until(lock, next, [this] { return stop_; });
    }
    lock.unlock();
    sample_all(true);
}

void TelemetrySampler::sample_all(bool final_reading) {
    for (std::size_t i = 0; i < channels_.size(); ++i) {
        Channel& channel = channels_[i];
        try {
            std::vector<double> row = final_reading ? channel.source->final_sample() : channel.source->sample();
            std::vector<Event> seen = channel.source->take_events();
            std::lock_guard lock(mutex_);
            tables_[i].add_row(std::move(row));
            for (Event& event : seen) events_.push_back(std::move(event));
            channel.failing = false;
        } catch (const std::exception& error) {
            if (channel.failing) continue;
            channel.failing = true;
            std::lock_guard lock(mutex_);
            events_.push_back(Event{now_utc(), Severity::warning,
                                    fmt::format("telemetry source {} failed: {}", channel.device, error.what())});
        }
    }
}

}  // namespace shakedown
