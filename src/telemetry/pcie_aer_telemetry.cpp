#include "telemetry/pcie_aer_telemetry.hpp"
#include "telemetry/telemetry_source.hpp"

#include "core/clock.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>
#include <set>

namespace shakedown {
namespace {

namespace fs = std::filesystem;

constexpr std::array<const char*, 3> kinds{"correctable", "nonfatal", "fatal"};

bool is_bdf(const std::string& name) {
    static const std::regex bdf("^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]$");
    return std::regex_match(name, bdf);
}

// gpu / hca / nvme from the PCI class ("0x030200"), "" for anything else.
std::string role_of(const fs::path& device) {
    const std::string text = first_line_of((device / "class").string());
    if (text.empty()) return "";
    const unsigned long code = std::strtoul(text.c_str(), nullptr, 16);
    if ((code >> 16) == 0x03) return "gpu";
    if ((code >> 16) == 0x02) return "hca";
    if (code == 0x010802) return "nvme";
    return "";
}

}  // namespace

std::optional<double> aer_total(std::string_view text) {
    double sum = 0;
    bool any = false;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        const auto space = line.rfind(' ');
        if (space == std::string_view::npos) continue;
        const std::string number(line.substr(space + 1));
        if (number.empty() || !std::all_of(number.begin(), number.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
            continue;
        const double value = std::strtod(number.c_str(), nullptr);
        if (line.starts_with("TOTAL_ERR_")) return value;
        sum += value;
        any = true;
    }
    return any ? std::optional<double>(sum) : std::nullopt;
}

PcieAerTelemetry::PcieAerTelemetry(const fs::path& root, std::chrono::steady_clock::duration read_period)
    : reads_(read_period) {
    std::error_code error;
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(root, error))
        if (is_bdf(entry.path().filename().string())) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    std::vector<fs::path> selected;  // where each device's files are (resolved: bridges are its parents)
    for (const std::string& name : names) {
        const std::string role = role_of(root / name);
        if (role.empty()) continue;
        roles_[name] = role;
        const fs::path real = fs::weakly_canonical(root / name, error);
        selected.push_back(real.empty() ? root / name : real);
        // The bridges above it: the parent folders named like a PCI address (/sys/devices/pci0000:00/0000:00:01.0/...).
        for (fs::path up = selected.back().parent_path(); !up.empty() && is_bdf(up.filename().string()); up = up.parent_path()) {
            if (roles_.emplace(up.filename().string(), "bridge").second) selected.push_back(up);
        }
    }
    std::map<std::string, fs::path> where;
    for (const fs::path& path : selected) where[path.filename().string()] = path;
    for (const auto& [bdf, path] : where) {
        for (const char* kind : kinds) {
            const fs::path file = path / fmt::format("aer_dev_{}", kind);
            Counter counter{fmt::format("{}.aer_{}", bdf, kind), file, KernelFile(file.string())};
            if (!counter.file.is_open()) {
                const char* why = !fs::exists(file) ? "no such file" : fs::is_regular_file(file) ? "not readable" : "not a regular file";
                unavailable_[counter.column] = fmt::format("{}: {}", file.string(), why);
            }
            counters_.push_back(std::move(counter));
        }
    }
    reading_.assign(1 + counters_.size(), not_available);
    read_all(now_utc());
    for (std::size_t i = 0; i < counters_.size(); ++i)
        if (std::isnan(reading_[1 + i]) && !unavailable_.contains(counters_[i].column))
            unavailable_[counters_[i].column] = fmt::format("{}: read failed or no count in it", counters_[i].path.string());
    reads_.taken();
}

std::vector<SampleTable::Column> PcieAerTelemetry::columns() const {
    std::vector<SampleTable::Column> columns{{"t", "s"}, {"counters_t", "s"}};
    for (const Counter& counter : counters_) columns.push_back({counter.column, "count"});
    return columns;
}

void PcieAerTelemetry::read_all(double t) {
    reading_[0] = t;
    for (std::size_t i = 0; i < counters_.size(); ++i) {
        const auto text = counters_[i].file.is_open() ? counters_[i].file.read(buffer_) : std::nullopt;
        const auto total = text ? aer_total(*text) : std::nullopt;
        reading_[1 + i] = total.value_or(not_available);
    }
}

std::vector<double> PcieAerTelemetry::sample() {
    const double t = now_utc();
    if (reads_.due()) read_all(t);
    std::vector<double> row{t};
    row.insert(row.end(), reading_.begin(), reading_.end());
    return row;
}

std::vector<double> PcieAerTelemetry::final_sample() {
    reads_.renew();
    return sample();
}

std::map<std::string, std::string> PcieAerTelemetry::attributes() const {
    std::map<std::string, std::string> facts;
    for (const auto& [bdf, role] : roles_) facts["role." + bdf] = role;
    for (const auto& [column, why] : unavailable_) facts["not_available." + column] = why;
    return facts;
}

std::unique_ptr<TelemetrySource> pcie_aer_source(const fs::path& root) {
    auto source = std::make_unique<PcieAerTelemetry>(root);
    if (source->device_count() == 0) return nullptr;
    return source;
}

fs::path pci_sysfs_root() {
    const char* root = std::getenv(pci_sysfs_root_variable);
    return root != nullptr && *root != '\0' ? fs::path(root) : fs::path(default_pci_sysfs_root);
}

}  // namespace shakedown
