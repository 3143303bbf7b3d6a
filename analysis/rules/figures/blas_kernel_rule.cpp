#include "analysis/rules/figures/blas_kernel_rule.hpp"

#include "hardware/vector_isa.hpp"
#include "inventory/inventory_names.hpp"
#include "kernels/dgemm/dgemm_fp64_names.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace shakedown::analysis {
namespace {

namespace names = inventory_names;

std::string text_at(const nlohmann::json& inventory, const char* section, const char* field) {
    if (!inventory.is_object() || !inventory.contains(section) || !inventory[section].is_object()) return {};
    const auto& value = inventory[section].value(field, nlohmann::json());
    return value.is_string() ? value.get<std::string>() : std::string();
}

// The first rank of the node whose DGEMM ran on the host cores (not waived), else nullptr.
const TestRow* host_dgemm_on(const Observations& observations, const NodeRow& node) {
    for (const std::size_t index : node.tests) {
        const TestRow& row = observations.tests()[index];
        if (row.test->key == kernels::dgemm_names::key && row.test->status != Status::waived && ran_on_host(*row.test))
            return &row;
    }
    return nullptr;
}

// The node's host DGEMM figures below their bands: the narrow kernel's doing.
void file_under_the_kernel(std::vector<Finding>& findings, const Observations& observations, const std::string& node) {
    for (Finding& finding : findings) {
        if (finding.node != node || finding.test != kernels::dgemm_names::key || finding.metric.empty() ||
            finding.cause != Cause::hardware)
            continue;
        const TestResult* test = observations.test_of(finding.rank, finding.test);
        if (test == nullptr || !ran_on_host(*test)) continue;
        finding.cause = Cause::configuration;
        finding.reason += " (the BLAS kernel's narrow vectors, to fix on this node: not the hardware's)";
    }
}

}  // namespace

void judge_blas_kernels(std::vector<Finding>& findings, const Observations& observations, RunDetails& details) {
    std::vector<Finding> kernel_findings;
    for (const NodeRow& node : observations.nodes()) {
        const TestRow* dgemm = host_dgemm_on(observations, node);
        if (dgemm == nullptr) continue;
        const nlohmann::json& inventory = details.inventory(node.name);
        if (!inventory.is_object() || !inventory.contains(names::cpu::section) ||
            !inventory[names::cpu::section].is_object())
            continue;
        const hardware::BlasKernelJudgement judgement =
            hardware::judge_blas_kernel(text_at(inventory, names::blas::section, names::blas::openblas_core),
                                        text_at(inventory, names::blas::section, names::blas::openblas_coretype_env),
                                        inventory[names::cpu::section].value(names::cpu::flags, nlohmann::json::array()),
                                        text_at(inventory, names::cpu::section, names::cpu::model));
        if (judgement.fit != hardware::BlasKernelFit::misdetected && judgement.fit != hardware::BlasKernelFit::forced)
            continue;
        file_under_the_kernel(findings, observations, node.name);
        Finding finding =
            make_finding(*dgemm->who, dgemm->test->key, Level::fail, judgement.text, FindingSource::software_stack);
        finding.cause = Cause::configuration;
        kernel_findings.push_back(std::move(finding));
    }
    append(findings, std::move(kernel_findings));
}

}  // namespace shakedown::analysis
