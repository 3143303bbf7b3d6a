#include "core/registry.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace shakedown {

Registry& Registry::mutable_instance() {
    static Registry registry;
    return registry;
}

const Registry& Registry::instance() { return mutable_instance(); }

void Registry::add(std::unique_ptr<Test> test) {
    if (find(test->key()) != nullptr)
        throw std::logic_error(fmt::format("two tests register the key '{}'", test->key()));
    tests_.push_back(std::move(test));
    std::sort(tests_.begin(), tests_.end(), [](const auto& a, const auto& b) { return a->key() < b->key(); });
}

const Test* Registry::find(std::string_view key) const {
    for (const auto& test : tests_)
        if (test->key() == key) return test.get();
    return nullptr;
}

std::vector<std::string> Registry::suites() const {
    std::set<std::string> names;
    for (const auto& test : tests_)
        for (const auto& suite : test->suites()) names.insert(suite);
    return {names.begin(), names.end()};
}

namespace {
std::vector<std::string> keys_of(const std::vector<std::unique_ptr<Test>>& tests) {
    std::vector<std::string> keys;
    for (const auto& test : tests) keys.emplace_back(test->key());
    return keys;
}
}  // namespace

std::vector<const Test*> Registry::select(const std::string& suite, const std::vector<std::string>& tests,
                                          const std::vector<std::string>& exclude) const {
    for (const auto& name : exclude)
        if (find(name) == nullptr)
            throw InputError(fmt::format("unknown test '{}' in --exclude (known: {})", name,
                                         fmt::join(keys_of(tests_), ", ")));
    const auto excluded = [&](std::string_view key) {
        return std::find(exclude.begin(), exclude.end(), key) != exclude.end();
    };

    std::vector<const Test*> chosen;
    if (!tests.empty()) {
        for (const auto& name : tests) {
            const Test* test = find(name);
            if (test == nullptr)
                throw InputError(fmt::format("unknown test '{}' (known: {})", name, fmt::join(keys_of(tests_), ", ")));
            if (!excluded(name) && std::find(chosen.begin(), chosen.end(), test) == chosen.end()) chosen.push_back(test);
        }
        return chosen;
    }
    const auto known_suites = suites();
    if (std::find(known_suites.begin(), known_suites.end(), suite) == known_suites.end())
        throw InputError(fmt::format("unknown suite '{}' (known: {})", suite, fmt::join(known_suites, ", ")));
    for (const auto& test : tests_) {
        const auto test_suites = test->suites();
        if (std::find(test_suites.begin(), test_suites.end(), suite) != test_suites.end() && !excluded(test->key()))
            chosen.push_back(test.get());
    }
    return chosen;
}

}  // namespace shakedown
