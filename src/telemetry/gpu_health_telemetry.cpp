#include "telemetry/gpu_health_telemetry.hpp"
#include "telemetry/telemetry_source.hpp"

#include "core/clock.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <utility>

namespace shakedown {
namespace {

namespace col = telemetry_columns::gpu_health;
using nvml_abi::Return;

constexpr unsigned xid_events_per_sample = 64;  // a storm is counted over the next samples

// The outcome of one NVML call: the value, or why there is none.
struct Read {
    double value = not_available;
    std::string why;  // empty when read
};

std::string return_text(const Nvml& nvml, Return code) {
    return fmt::format("returned {} ({})", static_cast<int>(code), nvml.error_text(code));
}

Read missing(const char* symbol) { return {not_available, fmt::format("{}: symbol not in this driver's NVML", symbol)}; }

template <typename Value, typename Fn, typename... Args>
Read call(const Nvml& nvml, const char* symbol, Fn fn, Args... args) {
    if (fn == nullptr) return missing(symbol);
    Value value{};
    const Return code = fn(args..., &value);
    if (code != nvml_abi::success) return {not_available, fmt::format("{} {}", symbol, return_text(nvml, code))};
    return {static_cast<double>(value), {}};
}

Read retired_pages(const Nvml& nvml, nvml_abi::Device device, nvml_abi::PageRetirementCause cause) {
    const auto& api = nvml.api();
    unsigned count = 0;
    Return code;
    const char* symbol;
    if (api.device_get_retired_pages_v2 != nullptr) {
        symbol = "nvmlDeviceGetRetiredPages_v2";
        code = api.device_get_retired_pages_v2(device, cause, &count, nullptr, nullptr);
    } else if (api.device_get_retired_pages != nullptr) {
        symbol = "nvmlDeviceGetRetiredPages";
        code = api.device_get_retired_pages(device, cause, &count, nullptr);
    } else {
        return missing("nvmlDeviceGetRetiredPages_v2");
    }
    // With a zero-sized buffer NVML answers the count: SUCCESS for none, INSUFFICIENT_SIZE for some.
    if (code == nvml_abi::success || code == nvml_abi::error_insufficient_size) return {static_cast<double>(count), {}};
    return {not_available, fmt::format("{} {}", symbol, return_text(nvml, code))};
}

}  // namespace

GpuHealthTelemetry::GpuHealthTelemetry(std::shared_ptr<const Nvml> nvml, NvmlDevice device,
                                       std::chrono::steady_clock::duration read_period)
    : nvml_(std::move(nvml)), device_(device), reads_(read_period), xid_last_(not_available) {
    reading_.assign(col::columns().size() - 1, not_available);
    if (auto uuid = device_.uuid()) uuid_ = *uuid;
    const auto& api = nvml_->api();
    const char* xid_why = nullptr;
    Return code = nvml_abi::success;
    if (api.event_set_create == nullptr) xid_why = "nvmlEventSetCreate";
    else if (api.device_register_events == nullptr) xid_why = "nvmlDeviceRegisterEvents";
    else if (api.event_set_wait == nullptr) xid_why = "nvmlEventSetWait_v2";
    if (xid_why != nullptr) {
        unavailable_[std::string(col::xid_count)] = fmt::format("{}: symbol not in this driver's NVML", xid_why);
    } else if (code = api.event_set_create(&events_); code != nvml_abi::success) {
        events_ = nullptr;
        unavailable_[std::string(col::xid_count)] = "nvmlEventSetCreate " + return_text(*nvml_, code);
    } else if (code = api.device_register_events(device_.handle(), nvml_abi::event_type_xid_critical_error, events_);
               code != nvml_abi::success) {
        if (api.event_set_free != nullptr) api.event_set_free(events_);
        events_ = nullptr;
        unavailable_[std::string(col::xid_count)] = "nvmlDeviceRegisterEvents(Xid) " + return_text(*nvml_, code);
    }
    if (events_ == nullptr) {
        unavailable_[std::string(col::xid_last)] = unavailable_[std::string(col::xid_count)];
        xid_count_ = not_available;
    }
    read_counters(now_utc());  // the probe: which columns this GPU and driver can give
    reads_.taken();
    probed_ = true;
}

GpuHealthTelemetry::~GpuHealthTelemetry() {
    if (events_ != nullptr && nvml_->api().event_set_free != nullptr) nvml_->api().event_set_free(events_);
}

std::string GpuHealthTelemetry::device() const { return telemetry_columns::gpu_health_table(device_.index()); }

std::vector<SampleTable::Column> GpuHealthTelemetry::columns() const { return col::columns(); }

void GpuHealthTelemetry::read_counters(double t) {
    const Nvml& nvml = *nvml_;
    const auto& api = nvml.api();
    const nvml_abi::Device handle = device_.handle();
    std::map<std::string_view, Read> reads;

    const auto ecc = [&](nvml_abi::MemoryErrorType type, nvml_abi::EccCounterType counter) {
        return call<unsigned long long>(nvml, "nvmlDeviceGetTotalEccErrors", api.device_get_total_ecc_errors, handle, type,
                                        counter);
    };
    reads[col::ecc_sbe_volatile] = ecc(nvml_abi::memory_error_corrected, nvml_abi::ecc_volatile);
    reads[col::ecc_dbe_volatile] = ecc(nvml_abi::memory_error_uncorrected, nvml_abi::ecc_volatile);
    reads[col::ecc_sbe_aggregate] = ecc(nvml_abi::memory_error_corrected, nvml_abi::ecc_aggregate);
    reads[col::ecc_dbe_aggregate] = ecc(nvml_abi::memory_error_uncorrected, nvml_abi::ecc_aggregate);
    reads[col::retired_pages_sbe] = retired_pages(nvml, handle, nvml_abi::retired_multiple_single_bit);
    reads[col::retired_pages_dbe] = retired_pages(nvml, handle, nvml_abi::retired_double_bit);
    reads[col::retired_pages_pending] = call<nvml_abi::EnableState>(
        nvml, "nvmlDeviceGetRetiredPagesPendingStatus", api.device_get_retired_pages_pending_status, handle);

    if (api.device_get_remapped_rows == nullptr) {
        for (auto name : {col::remap_corrected, col::remap_uncorrected, col::remap_pending, col::remap_failure})
            reads[name] = missing("nvmlDeviceGetRemappedRows");
    } else {
        unsigned corrected = 0, uncorrected = 0, pending = 0, failure = 0;
        const Return code = api.device_get_remapped_rows(handle, &corrected, &uncorrected, &pending, &failure);
        const std::string why =
            code == nvml_abi::success ? "" : "nvmlDeviceGetRemappedRows " + return_text(nvml, code);
        const auto of = [&](unsigned value) { return why.empty() ? Read{static_cast<double>(value), {}} : Read{not_available, why}; };
        reads[col::remap_corrected] = of(corrected);
        reads[col::remap_uncorrected] = of(uncorrected);
        reads[col::remap_pending] = of(pending);
        reads[col::remap_failure] = of(failure);
    }
    if (api.device_get_row_remapper_histogram == nullptr) {
        for (auto name : {col::remap_bank_max, col::remap_bank_high, col::remap_bank_partial, col::remap_bank_low,
                          col::remap_bank_none})
            reads[name] = missing("nvmlDeviceGetRowRemapperHistogram");
    } else {
        nvml_abi::RowRemapperHistogramValues banks{};
        const Return code = api.device_get_row_remapper_histogram(handle, &banks);
        const std::string why =
            code == nvml_abi::success ? "" : "nvmlDeviceGetRowRemapperHistogram " + return_text(nvml, code);
        const auto of = [&](unsigned value) { return why.empty() ? Read{static_cast<double>(value), {}} : Read{not_available, why}; };
        reads[col::remap_bank_max] = of(banks.max);
        reads[col::remap_bank_high] = of(banks.high);
        reads[col::remap_bank_partial] = of(banks.partial);
        reads[col::remap_bank_low] = of(banks.low);
        reads[col::remap_bank_none] = of(banks.none);
    }
    reads[col::pcie_replay] =
        call<unsigned>(nvml, "nvmlDeviceGetPcieReplayCounter", api.device_get_pcie_replay_counter, handle);

    // NVLink: every link NVML answers for (invalid_argument past the part's last link).
    if (api.device_get_nvlink_state == nullptr) {
        for (auto name : {col::nvlink_links, col::nvlink_links_up, col::nvlink_down_mask})
            reads[name] = missing("nvmlDeviceGetNvLinkState");
    } else {
        unsigned links = 0, up = 0;
        double down_mask = 0;
        std::string why;
        for (unsigned link = 0; link < nvml_abi::nvlink_max_links; ++link) {
            nvml_abi::EnableState state = nvml_abi::feature_disabled;
            const Return code = api.device_get_nvlink_state(handle, link, &state);
            if (code == nvml_abi::success) {
                ++links;
                if (state == nvml_abi::feature_enabled) ++up;
                else down_mask += static_cast<double>(1u << link);
            } else if (link == 0) {
                why = "nvmlDeviceGetNvLinkState(link 0) " + return_text(nvml, code);
                break;
            }
        }
        const auto of = [&](double value) { return why.empty() ? Read{value, {}} : Read{not_available, why}; };
        reads[col::nvlink_links] = of(links);
        reads[col::nvlink_links_up] = of(up);
        reads[col::nvlink_down_mask] = of(down_mask);
    }
    const std::array<std::pair<std::string_view, std::vector<nvml_abi::NvLinkErrorCounter>>, 3> nvlink_counters{{
        {col::nvlink_replay, {nvml_abi::nvlink_error_dl_replay}},
        {col::nvlink_recovery, {nvml_abi::nvlink_error_dl_recovery}},
        {col::nvlink_crc, {nvml_abi::nvlink_error_dl_crc_flit, nvml_abi::nvlink_error_dl_crc_data}},
    }};
    for (const auto& [name, counters] : nvlink_counters) {
        if (api.device_get_nvlink_error_counter == nullptr) {
            reads[name] = missing("nvmlDeviceGetNvLinkErrorCounter");
            continue;
        }
        double total = 0;
        bool any = false;
        std::string why;
        for (unsigned link = 0; link < nvml_abi::nvlink_max_links; ++link) {
            for (const auto counter : counters) {
                unsigned long long value = 0;
                const Return code = api.device_get_nvlink_error_counter(handle, link, counter, &value);
                if (code == nvml_abi::success) {
                    any = true;
                    total += static_cast<double>(value);
                } else if (why.empty()) {
                    why = fmt::format("nvmlDeviceGetNvLinkErrorCounter(link {}) {}", link, return_text(nvml, code));
                }
            }
        }
        reads[name] = any ? Read{total, {}} : Read{not_available, why};
    }
    if (api.device_get_gpu_fabric_info == nullptr) {
        reads[col::fabric_state] = reads[col::fabric_status] = missing("nvmlDeviceGetGpuFabricInfo");
    } else {
        nvml_abi::GpuFabricInfo info{};
        const Return code = api.device_get_gpu_fabric_info(handle, &info);
        if (code != nvml_abi::success) {
            reads[col::fabric_state] = reads[col::fabric_status] = {not_available,
                                                                    "nvmlDeviceGetGpuFabricInfo " + return_text(nvml, code)};
        } else if (info.state == nvml_abi::fabric_state::not_supported) {
            reads[col::fabric_state] = reads[col::fabric_status] = {
                not_available, "nvmlDeviceGetGpuFabricInfo: state NVML_GPU_FABRIC_STATE_NOT_SUPPORTED (no NVSwitch fabric)"};
        } else {
            reads[col::fabric_state] = {static_cast<double>(info.state), {}};
            reads[col::fabric_status] = info.state == nvml_abi::fabric_state::completed
                                            ? Read{static_cast<double>(info.status), {}}
                                            : Read{not_available, "fabric registration not completed"};
        }
    }

    const auto columns = col::columns();
    reading_[0] = t;  // counters_t
    for (std::size_t i = 2; i < columns.size(); ++i) {
        const auto found = reads.find(columns[i].name);
        if (found == reads.end()) continue;  // xid columns: kept by poll_xid
        reading_[i - 1] = found->second.value;
        if (!probed_ && !found->second.why.empty()) unavailable_[columns[i].name] = found->second.why;
    }
}

void GpuHealthTelemetry::poll_xid(double t) {
    if (events_ == nullptr) return;
    const auto wait = nvml_->api().event_set_wait;
    for (unsigned i = 0; i < xid_events_per_sample; ++i) {
        nvml_abi::EventData data{};
        if (wait(events_, &data, 0) != nvml_abi::success) break;  // NVML_ERROR_TIMEOUT: nothing pending
        if ((data.event_type & nvml_abi::event_type_xid_critical_error) == 0) continue;
        xid_count_ += 1;
        xid_last_ = static_cast<double>(data.event_data);
        seen_.push_back(Event{t, Severity::error,
                              fmt::format("{}{} {} xid={}", col::xid_event_prefix, device(),
                                          uuid_.empty() ? "unknown-uuid" : uuid_, data.event_data)});
    }
}

std::vector<double> GpuHealthTelemetry::sample() {
    const double t = now_utc();
    if (reads_.due()) read_counters(t);
    poll_xid(t);
    const std::size_t xid_count_at = col::columns().size() - 3;  // index in reading_
    reading_[xid_count_at] = xid_count_;
    reading_[xid_count_at + 1] = xid_last_;
    std::vector<double> row;
    row.reserve(1 + reading_.size());
    row.push_back(t);
    row.insert(row.end(), reading_.begin(), reading_.end());
    return row;
}

std::vector<double> GpuHealthTelemetry::final_sample() {
    reads_.renew();
    return sample();
}

std::map<std::string, std::string> GpuHealthTelemetry::attributes() const {
    std::map<std::string, std::string> facts{{"nvml_index", std::to_string(device_.index())}};
    if (!uuid_.empty()) facts[std::string(col::gpu_uuid_attribute)] = uuid_;
    if (auto name = device_.name()) facts[std::string(col::gpu_name_attribute)] = *name;
    if (auto pci = device_.pci_info()) facts["pci_bus_id"] = pci->bus_id;
    for (const auto& [column, why] : unavailable_) facts[std::string(col::not_available_prefix) + column] = why;
    return facts;
}

std::vector<Event> GpuHealthTelemetry::take_events() { return std::exchange(seen_, {}); }

}  // namespace shakedown
