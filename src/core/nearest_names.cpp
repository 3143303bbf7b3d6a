#include "core/nearest_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace shakedown {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::vector<std::string> nearest_names(std::string_view key, const std::vector<std::string>& names, std::size_t count) {
    std::vector<std::pair<std::size_t, std::string>> ranked;
    for (const std::string& name : names) ranked.emplace_back(edit_distance(key, name), name);
    std::sort(ranked.begin(), ranked.end());
    ranked.erase(std::unique(ranked.begin(), ranked.end()), ranked.end());
    std::vector<std::string> nearest;
    for (std::size_t i = 0; i < std::min(count, ranked.size()); ++i) nearest.push_back(ranked[i].second);
    return nearest;
}

std::string did_you_mean(std::string_view key, const std::vector<std::string>& names) {
    const auto nearest = nearest_names(key, names, 1);
    if (nearest.empty()) return {};
    const std::size_t allowed = std::max<std::size_t>(2, key.size() / 3);
    return edit_distance(key, nearest.front()) <= allowed ? fmt::format(" (did you mean '{}'?)", nearest.front()) : std::string();
}

}  // namespace shakedown
