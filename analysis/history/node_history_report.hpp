// A node's history rendered for the terminal, a ticket (Markdown) and tools (JSON): per metric a
// row per run (node figure, fleet median, node/fleet), then the counter trends, the ones that rose
// named first.
#pragma once

#include "analysis/history/node_history.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace shakedown::analysis {

std::string node_history_text(const NodeHistory& history);
std::string node_history_markdown(const NodeHistory& history);
nlohmann::json node_history_json(const NodeHistory& history);

}  // namespace shakedown::analysis
