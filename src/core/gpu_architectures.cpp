#include "core/gpu_architectures.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <iterator>

namespace shakedown {
namespace {

std::optional<CudaArchitecture> parse_entry(std::string_view entry) {
    CudaArchitecture architecture;
    int number = 0;
    const auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), number);
    if (error != std::errc() || number <= 0) return std::nullopt;
    architecture.number = number;
    std::string_view rest(end, static_cast<std::size_t>(entry.data() + entry.size() - end));
    if (rest.starts_with("a")) {
        architecture.scope = CudaArchitecture::Scope::exact;
        rest.remove_prefix(1);
    } else if (rest.starts_with("f")) {
        architecture.scope = CudaArchitecture::Scope::family;
        rest.remove_prefix(1);
    }
    if (rest.empty()) {
        architecture.sass = architecture.ptx = true;
    } else if (rest == "-real") {
        architecture.sass = true;
    } else if (rest == "-virtual") {
        architecture.ptx = true;
    } else {
        return std::nullopt;
    }
    return architecture;
}

// CUDA's compatibility rules: SASS of sm_XY runs on sm_XZ for Z >= Y (same major); an
// arch-specific "a" build only on its own part, a family "f" build on its major from its minor
// up; PTX is compiled by the driver for any later part (arch-specific PTX for its own only).
bool sass_runs_on(const CudaArchitecture& built, int device) {
    if (built.scope == CudaArchitecture::Scope::exact) return device == built.number;
    return device / 10 == built.number / 10 && device >= built.number;
}

bool ptx_runs_on(const CudaArchitecture& built, int device) {
    switch (built.scope) {
    case CudaArchitecture::Scope::exact: return device == built.number;
    case CudaArchitecture::Scope::family: return device / 10 == built.number / 10 && device >= built.number;
    case CudaArchitecture::Scope::generation: return device >= built.number;
    }
    return false;
}

std::string suffix(const CudaArchitecture& architecture) {
    switch (architecture.scope) {
    case CudaArchitecture::Scope::exact: return "a";
    case CudaArchitecture::Scope::family: return "f";
    case CudaArchitecture::Scope::generation: return "";
    }
    return "";
}

}  // namespace

std::optional<std::vector<CudaArchitecture>> parse_cuda_architectures(std::string_view cmake_list) {
    std::vector<CudaArchitecture> built;
    std::size_t start = 0;
    while (start <= cmake_list.size()) {
        const auto semicolon = cmake_list.find(';', start);
        const auto entry = cmake_list.substr(start, semicolon == std::string_view::npos ? std::string_view::npos
                                                                                         : semicolon - start);
        if (!entry.empty()) {
            const auto architecture = parse_entry(entry);
            if (!architecture) return std::nullopt;
            built.push_back(*architecture);
        }
        if (semicolon == std::string_view::npos) break;
        start = semicolon + 1;
    }
    if (built.empty()) return std::nullopt;
    return built;
}

std::string describe_cuda_architectures(const std::vector<CudaArchitecture>& built) {
    std::vector<std::string> sass;
    std::vector<std::string> ptx;
    for (const auto& architecture : built) {
        if (architecture.sass) sass.push_back(fmt::format("sm_{}{}", architecture.number, suffix(architecture)));
        if (architecture.ptx) ptx.push_back(fmt::format("compute_{}{}", architecture.number, suffix(architecture)));
    }
    std::string text = fmt::format("{}", fmt::join(sass, ", "));
    if (!ptx.empty()) text += fmt::format("{}PTX {}", sass.empty() ? "" : " and ", fmt::join(ptx, ", "));
    return text;
}

std::optional<std::string> gpu_architecture_refusal(int device, const std::vector<CudaArchitecture>& built) {
    for (const auto& architecture : built) {
        if (architecture.sass && sass_runs_on(architecture, device)) return std::nullopt;
        if (architecture.ptx && ptx_runs_on(architecture, device)) return std::nullopt;
    }
    return fmt::format("built for {}, this GPU is sm_{}", describe_cuda_architectures(built), device);
}

}  // namespace shakedown
