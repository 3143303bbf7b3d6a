#include "telemetry/nvme_health_telemetry.hpp"
#include "telemetry/telemetry_source.hpp"

#include "core/clock.hpp"
#include "telemetry/kernel_file.hpp"
#include "telemetry/nvme_health_columns.hpp"

#include <fmt/format.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <regex>
#include <unistd.h>

namespace shakedown {
namespace {

namespace fs = std::filesystem;
namespace col = nvme_health_columns;

constexpr std::uint8_t get_log_page = 0x02;    // admin opcode
constexpr std::uint32_t smart_log_id = 0x02;   // SMART / Health Information
constexpr std::uint32_t all_namespaces = 0xFFFFFFFF;
constexpr std::uint32_t admin_timeout_ms = 5000;

// Little-endian unsigned of `bytes` bytes at `offset`; a 16-byte counter beyond 2^64 saturates to
// the largest double it reaches (the figure is a count: its size, not its last digit, matters).
double little_endian(std::span<const std::uint8_t, nvme_smart_log_bytes> page, std::size_t offset, std::size_t bytes) {
    double value = 0.0;
    for (std::size_t i = bytes; i-- > 0;) value = value * 256.0 + page[offset + i];
    return value;
}

// An owned file descriptor.
class Descriptor {
public:
    explicit Descriptor(int fd) : fd_(fd) {}
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    ~Descriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

class DeviceNvmeLogReader final : public NvmeLogReader {
public:
    Reading read_smart_log(const std::string& controller) override {
        const std::string path = "/dev/" + controller;
        const Descriptor device(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
        if (device.get() < 0) return {std::nullopt, fmt::format("{}: {}", path, std::strerror(errno))};
        NvmeSmartLogPage page{};
        nvme_admin_cmd command{};
        command.opcode = get_log_page;
        command.nsid = all_namespaces;
        command.addr = reinterpret_cast<std::uintptr_t>(page.data());
        command.data_len = static_cast<std::uint32_t>(page.size());
        command.cdw10 = smart_log_id | ((static_cast<std::uint32_t>(page.size() / 4) - 1) << 16);  // dwords - 1
        command.timeout_ms = admin_timeout_ms;
        const int status = ::ioctl(device.get(), NVME_IOCTL_ADMIN_CMD, &command);
        if (status < 0) return {std::nullopt, fmt::format("{}: Get Log Page (SMART): {}", path, std::strerror(errno))};
        if (status > 0) return {std::nullopt, fmt::format("{}: Get Log Page (SMART): NVMe status 0x{:x}", path, status)};
        return {page, ""};
    }
};

}  // namespace

std::unique_ptr<NvmeLogReader> device_nvme_log_reader() { return std::make_unique<DeviceNvmeLogReader>(); }

std::array<double, 7> smart_log_fields(std::span<const std::uint8_t, nvme_smart_log_bytes> page) {
    const double kelvin = little_endian(page, 1, 2);
    return {static_cast<double>(page[0]),
            kelvin > 0 ? kelvin - 273.0 : not_available,  // 0: the drive reports none
            static_cast<double>(page[3]),
            static_cast<double>(page[4]),
            static_cast<double>(page[5]),
            little_endian(page, 160, 16),
            little_endian(page, 176, 16)};
}

NvmeHealthTelemetry::NvmeHealthTelemetry(const fs::path& sysfs_root, std::unique_ptr<NvmeLogReader> reader,
                                         std::chrono::steady_clock::duration read_period)
    : reader_(std::move(reader)), reads_(read_period) {
    static const std::regex controller("^nvme[0-9]+$");  // not the namespaces' block devices
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(sysfs_root, error))
        if (std::regex_match(entry.path().filename().string(), controller)) controllers_.push_back(entry.path().filename().string());
    std::sort(controllers_.begin(), controllers_.end());
    for (const std::string& name : controllers_) {
        facts_[std::string(col::model_prefix) + name] = first_line_of((sysfs_root / name / "model").string());
        facts_[std::string(col::serial_prefix) + name] = first_line_of((sysfs_root / name / "serial").string());
        facts_[std::string(col::firmware_prefix) + name] = first_line_of((sysfs_root / name / "firmware_rev").string());
    }
    reading_.assign(1 + controllers_.size() * col::fields.size(), not_available);
    read_all(now_utc());
    reads_.taken();
}

std::string NvmeHealthTelemetry::device() const { return std::string(col::table); }

std::vector<SampleTable::Column> NvmeHealthTelemetry::columns() const {
    std::vector<SampleTable::Column> columns{{"t", "s"}, {std::string(col::log_time), "s"}};
    for (const std::string& name : controllers_)
        for (const auto& field : col::fields) columns.push_back({fmt::format("{}.{}", name, field.name), std::string(field.unit)});
    return columns;
}

void NvmeHealthTelemetry::read_all(double t) {
    reading_[0] = t;
    for (std::size_t c = 0; c < controllers_.size(); ++c) {
        const NvmeLogReader::Reading reading = reader_->read_smart_log(controllers_[c]);
        const std::string why_key = std::string(col::not_available_prefix) + controllers_[c];
        std::array<double, 7> values{};
        values.fill(not_available);
        if (reading.page) {
            values = smart_log_fields(*reading.page);
            facts_.erase(why_key);
        } else {
            facts_[why_key] = reading.why;
        }
        std::copy(values.begin(), values.end(), reading_.begin() + 1 + static_cast<std::ptrdiff_t>(c * col::fields.size()));
    }
}

std::vector<double> NvmeHealthTelemetry::sample() {
    const double t = now_utc();
    if (reads_.due()) read_all(t);
    std::vector<double> row{t};
    row.insert(row.end(), reading_.begin(), reading_.end());
    return row;
}

std::vector<double> NvmeHealthTelemetry::final_sample() {
    reads_.renew();
    return sample();
}

std::map<std::string, std::string> NvmeHealthTelemetry::attributes() const { return facts_; }

std::unique_ptr<TelemetrySource> nvme_health_source(const fs::path& sysfs_root, std::unique_ptr<NvmeLogReader> reader) {
    auto source = std::make_unique<NvmeHealthTelemetry>(sysfs_root, std::move(reader));
    if (source->controller_count() == 0) return nullptr;
    return source;
}

fs::path nvme_sysfs_root() {
    const char* root = std::getenv(nvme_sysfs_root_variable);
    return root != nullptr && *root != '\0' ? fs::path(root) : fs::path(default_nvme_sysfs_root);
}

}  // namespace shakedown
