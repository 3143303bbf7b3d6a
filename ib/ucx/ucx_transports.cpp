#include "ib/ucx/ucx_transports.hpp"

#include <algorithm>
#include <regex>

namespace shakedown::ib::ucx {

std::vector<std::string> transports_in(const std::string& endpoint_info) {
    // "<resource index>:<transport>/<device>.<path index>" after "lane[N]:"
    static const std::regex lane(R"(lane\[\d+\]:\s*\d+:([^\s/]+/[^\s]+?)\.\d+\s)");
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(endpoint_info.begin(), endpoint_info.end(), lane); it != std::sregex_iterator();
         ++it) {
        const auto transport = (*it)[1].str();
        if (std::find(found.begin(), found.end(), transport) == found.end()) found.push_back(transport);
    }
    return found;
}

}  // namespace shakedown::ib::ucx
