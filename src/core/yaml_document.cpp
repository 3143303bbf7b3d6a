#include "core/yaml_document.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

namespace shakedown {
namespace {

// Walks every mapping once. Aliases share their anchor's node, so nodes are told apart by where
// they were parsed: a node reached twice through aliases is checked once (no exponential walk).
class DuplicateKeys {
public:
    explicit DuplicateKeys(const std::string& origin) : origin_(origin) {}

    void check(const YAML::Node& node) {
        if (!node.IsMap() && !node.IsSequence()) return;
        if (!visited_.insert(node.Mark().pos).second) return;
        if (node.IsSequence()) {
            for (const auto& item : node) check(item);
            return;
        }
        std::map<std::string, int> first_line;
        for (const auto& item : node) {
            if (item.first.IsScalar()) {
                const auto [found, inserted] = first_line.emplace(item.first.Scalar(), item.first.Mark().line + 1);
                if (!inserted)
                    throw InputError(fmt::format("{}:{}: duplicate key '{}' (first at line {})", origin_,
                                                 item.first.Mark().line + 1, item.first.Scalar(), found->second));
            }
            check(item.second);
        }
    }

private:
    const std::string& origin_;
    std::set<int> visited_;
};

}  // namespace

YAML::Node load_yaml_document(const std::string& text, const std::string& origin) {
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text);
    } catch (const YAML::ParserException& error) {
        throw InputError(fmt::format("{}:{}: malformed YAML: {}", origin, error.mark.line + 1, error.msg));
    }
    if (documents.empty()) return YAML::Node();
    if (documents.size() > 1) {
        const int line = documents[1].Mark().line;
        const std::string where = line >= 0 ? fmt::format("{}:{}", origin, line + 1) : origin;
        throw InputError(fmt::format("{}: a second YAML document (the file must hold one)", where));
    }
    DuplicateKeys(origin).check(documents.front());
    return documents.front();
}

}  // namespace shakedown
