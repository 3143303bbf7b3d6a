#include "health/sdc/result_agreement.hpp"

#include <fmt/format.h>

#include <cstring>
#include <map>

namespace shakedown::health {

std::optional<BitDifference> bit_difference(const std::vector<double>& first, const std::vector<double>& second) {
    BitDifference difference;
    const std::size_t common = std::min(first.size(), second.size());
    for (std::size_t i = 0; i < common; ++i) {
        if (std::memcmp(&first[i], &second[i], sizeof(double)) == 0) continue;  // bits, not values: -0 vs 0 differs too
        if (difference.elements == 0) {
            difference.first = i;
            difference.first_value = first[i];
            difference.other_value = second[i];
        }
        ++difference.elements;
    }
    difference.elements += std::max(first.size(), second.size()) - common;
    if (difference.elements == 0) return std::nullopt;
    return difference;
}

std::uint64_t result_checksum(const std::vector<double>& result) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (const double value : result) {
        unsigned char bytes[sizeof(double)];
        std::memcpy(bytes, &value, sizeof(double));
        for (const unsigned char byte : bytes) hash = (hash ^ byte) * 0x100000001b3ull;
    }
    return hash;
}

std::vector<Disagreement> node_disagreements(const std::vector<NodeChecksum>& node) {
    std::vector<const NodeChecksum*> compared;
    std::map<std::uint64_t, int> holders;
    for (const NodeChecksum& rank : node)
        if (rank.checksum) {
            compared.push_back(&rank);
            ++holders[*rank.checksum];
        }
    std::vector<Disagreement> out;
    if (compared.size() < 2 || holders.size() < 2) return out;
    auto most = holders.begin();
    for (auto it = holders.begin(); it != holders.end(); ++it)
        if (it->second > most->second) most = it;
    const bool majority = 2 * most->second > static_cast<int>(compared.size());
    std::string all;
    for (const NodeChecksum* rank : compared)
        all += fmt::format("{}rank {} {} {:016x}", all.empty() ? "" : ", ", rank->rank, rank->device, *rank->checksum);
    for (const NodeChecksum* rank : compared) {
        if (majority && *rank->checksum == most->first) continue;
        out.push_back({rank->rank,
                       majority ? fmt::format("rank {} ({}) computed checksum {:016x}, {} of the node's {} devices "
                                              "computed {:016x} from the same inputs",
                                              rank->rank, rank->device, *rank->checksum, most->second, compared.size(),
                                              most->first)
                                : fmt::format("the node's {} devices agree on no checksum of the same product: {}",
                                              compared.size(), all)});
    }
    return out;
}

}  // namespace shakedown::health
