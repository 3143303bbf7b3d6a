#include "core/yaml_document.hpp"

#include "core/errors.hpp"
#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <map>
#include <optional>
#include <sstream>
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

// YAML streams are Unicode text of printable characters (tab, line feed and carriage return among
// the C0 controls). yaml-cpp 0.7 refuses neither control characters nor broken UTF-8, and loops
// for ever on some of them (found by fuzzing the config parser: the 6 bytes ", s\x01\x01l", and
// bytes 0xf5 0xa7 in a key).
void require_printable(const std::string& text, const std::string& origin) {
    int line = 1;
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == '\n') ++line;
        if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7f)
            throw InputError(fmt::format("{}:{}: control character 0x{:02x}: YAML holds printable characters only",
                                         origin, line, byte));
        const std::size_t length = utf8_sequence_at(text, i).length;
        if (length == 0)
            throw InputError(fmt::format("{}:{}: byte 0x{:02x} is not UTF-8: YAML is Unicode text", origin, line, byte));
        i += length;
    }
}

// Where the stream's documents start, read with yaml-cpp's event parser for at most two of them.
// YAML::LoadAll is not used: on a stray ',' (",", ", s") its parser returns an empty document at
// the same place for ever and LoadAll collects them until memory runs out. A document that starts
// where the one before it did is that.
class DocumentStarts final : public YAML::EventHandler {
public:
    std::vector<int> lines;
    std::vector<int> positions;
    bool stuck = false;
    std::optional<int> first_alias_line;

    void OnDocumentStart(const YAML::Mark& mark) override {
        if (!positions.empty() && positions.back() == mark.pos) stuck = true;
        lines.push_back(mark.line);
        positions.push_back(mark.pos);
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
        if (!first_alias_line) first_alias_line = mark.line;
    }
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

DocumentStarts document_starts(const std::string& text) {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentStarts starts;
    for (int document = 0; document < 2 && !starts.stuck && parser.HandleNextDocument(starts); ++document) {
    }
    return starts;
}

}  // namespace

YAML::Node load_yaml_document(const std::string& text, const std::string& origin) {
    require_printable(text, origin);
    YAML::Node root;
    try {
        const DocumentStarts starts = document_starts(text);
        if (starts.stuck)
            throw InputError(fmt::format("{}:{}: malformed YAML: the parser cannot read past this point (a stray ',' "
                                         "outside [] or {{}}?)",
                                         origin, starts.lines.back() + 1));
        if (starts.lines.size() > 1)
            throw InputError(fmt::format("{}:{}: a second YAML document (the file must hold one)", origin,
                                         starts.lines[1] + 1));
        // Every reader walks the tree and copies what it reads: 5000 aliases of a 1 MiB list in
        // a 1 MB file became gigabytes and ended the program (bad_alloc). No file of shakedown's
        // needs an alias, so none is read.
        if (starts.first_alias_line)
            throw InputError(fmt::format("{}:{}: a YAML alias (*name): write the value out instead (aliases can "
                                         "repeat a large value without bound)",
                                         origin, *starts.first_alias_line + 1));
        if (starts.lines.empty()) return YAML::Node();
        root = YAML::Load(text);
    } catch (const YAML::ParserException& error) {
        throw InputError(fmt::format("{}:{}: malformed YAML: {}", origin, error.mark.line + 1, error.msg));
    }
    DuplicateKeys(origin).check(root);
    return root;
}

}  // namespace shakedown
