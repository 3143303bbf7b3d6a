#include "analysis/rules/links/link_matrices.hpp"

#include "health/network/tcp_bandwidth_names.hpp"
#include "mpi/allpairs/allpairs_names.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

namespace shakedown::analysis {
namespace {

std::vector<std::string> comma_separated(const std::string& text) {
    std::vector<std::string> names;
    std::istringstream stream(text);
    for (std::string name; std::getline(stream, name, ',');)
        if (!name.empty()) names.push_back(name);
    return names;
}

}  // namespace

const std::vector<LinkMatrixSource>& link_matrix_sources() {
    static const std::vector<LinkMatrixSource> sources = {mpi::allpairs_names::link_matrix,
                                                          health::tcp_bandwidth_names::link_matrix};
    return sources;
}

std::vector<LinkMatrix> split_link_matrix(const LinkMatrixSource& source, const SampleTable& table,
                                          const TestResult* rank0) {
    const std::string test(source.test);
    if (source.network_column.empty()) return {{source, "", test, table}};
    const auto column = table.column_index(source.network_column);
    if (!column) return {};  // not the declared layout: no network can be told apart
    std::vector<std::string> networks;
    if (rank0 != nullptr) {
        const auto named = rank0->parameters.find(std::string(source.networks_parameter));
        if (named != rank0->parameters.end()) networks = comma_separated(named->second);
    }
    std::vector<LinkMatrix> matrices;
    for (const std::vector<double>& row : table.rows()) {
        const double index = row[*column];
        if (!std::isfinite(index) || index < 0 || index > 1e6) continue;
        const auto at = static_cast<std::size_t>(index);
        const std::string network = at < networks.size() ? networks[at] : fmt::format("network {}", at);
        auto matrix =
            std::find_if(matrices.begin(), matrices.end(), [&](const LinkMatrix& m) { return m.network == network; });
        if (matrix == matrices.end()) {
            matrices.push_back({source, network, fmt::format("{} on {}", test, network), SampleTable(table.columns())});
            matrix = matrices.end() - 1;
        }
        matrix->table.add_row(row);
    }
    return matrices;
}

std::vector<LinkMatrix> link_matrices_of(const RunDetails& details) {
    std::vector<LinkMatrix> matrices;
    for (const LinkMatrixSource& source : link_matrix_sources()) {
        const std::string test(source.test);
        const auto table = details.rank0_samples(test);
        if (!table) continue;
        for (LinkMatrix& matrix : split_link_matrix(source, *table, details.rank0_result(test)))
            matrices.push_back(std::move(matrix));
    }
    return matrices;
}

}  // namespace shakedown::analysis
