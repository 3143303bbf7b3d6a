#include "core/registry.hpp"

#include "core/errors.hpp"
#include "core/nearest_names.hpp"
#include "core/run_context.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fnmatch.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace shakedown {

namespace {

// Stands for a declared test whose code this binary was built without: waived with the reason,
// so a config written for a CUDA build is valid (and its values checked) on a CPU build.
class NotBuiltTest final : public Test {
public:
    explicit NotBuiltTest(const TestSpec& spec) : Test(spec) {}
    std::optional<std::string> waiver(const RunContext&) const override { return not_built_reason(spec()); }
    TestResult run(const RunContext&) const override {
        throw std::logic_error(fmt::format("{} is not built into this binary", spec().key));
    }
};

}  // namespace

std::string not_built_reason(const TestSpec& spec) {
    if (const auto missing = first_missing(spec.needs)) return fmt::format("this shakedown was built without {}", to_string(*missing));
    return "not built into this shakedown";
}

bool Registry::is_built(const Test& test) const { return dynamic_cast<const NotBuiltTest*>(&test) == nullptr; }

Registry& Registry::mutable_instance() {
    static Registry registry;
    return registry;
}

const Registry& Registry::instance() { return mutable_instance(); }

void Registry::add_spec(const TestSpec& spec) {
    if (const Test* known = find(spec.key)) {
        if (&known->spec() != &spec) throw std::logic_error(fmt::format("two declarations of the test '{}'", spec.key));
        return;  // its implementation registered first
    }
    tests_.push_back(std::make_unique<NotBuiltTest>(spec));
    std::sort(tests_.begin(), tests_.end(), [](const auto& a, const auto& b) { return a->key() < b->key(); });
}

void Registry::add_test(std::unique_ptr<Test> test) {
    for (auto& known : tests_) {
        if (known->key() != test->key()) continue;
        if (&known->spec() != &test->spec())
            throw std::logic_error(fmt::format("the test '{}' implements another declaration of its key", test->key()));
        if (dynamic_cast<const NotBuiltTest*>(known.get()) == nullptr)
            throw std::logic_error(fmt::format("two tests register the key '{}'", test->key()));
        known = std::move(test);
        return;
    }
    tests_.push_back(std::move(test));
    std::sort(tests_.begin(), tests_.end(), [](const auto& a, const auto& b) { return a->key() < b->key(); });
}

const Test* Registry::find(std::string_view key) const {
    for (const auto& test : tests_)
        if (test->key() == key) return test.get();
    return nullptr;
}

const MetricSpec* Registry::declaration(std::string_view test_key, std::string_view metric) const {
    const Test* test = find(test_key);
    return test == nullptr ? nullptr : test->spec().metric(metric);
}

std::vector<std::string> Registry::suites() const {
    std::set<std::string> names;
    for (const auto& test : tests_)
        for (const auto& suite : test->suites()) names.insert(suite);
    return {names.begin(), names.end()};
}

std::vector<std::string> Registry::keys() const {
    std::vector<std::string> keys;
    for (const auto& test : tests_) keys.emplace_back(test->key());
    return keys;
}

namespace {

// True when `name` holds a wildcard and so selects by pattern, not by key.
bool is_test_pattern(std::string_view name) { return name.find_first_of("*?[") != std::string_view::npos; }

// The keys `name` selects: itself when it is a known key, else every key the pattern matches.
std::vector<std::string> matching(const Registry& registry, std::string_view name, std::string_view where) {
    const std::vector<std::string> keys = registry.keys();
    const std::string option = where.empty() ? std::string() : fmt::format(" in {}", where);
    if (!is_test_pattern(name)) {
        if (registry.find(name) == nullptr)
            throw InputError(fmt::format("unknown test '{}'{}{} (known: {})", name, option, did_you_mean(name, keys),
                                         fmt::join(keys, ", ")));
        return {std::string(name)};
    }
    const std::string pattern(name);
    std::vector<std::string> matched;
    for (const auto& key : keys)
        if (::fnmatch(pattern.c_str(), key.c_str(), 0) == 0) matched.push_back(key);
    // A pattern that selects nothing is a typo as surely as an unknown name is.
    if (matched.empty())
        throw InputError(fmt::format("pattern '{}'{} matches no test (known: {})", name, option, fmt::join(keys, ", ")));
    return matched;
}

}  // namespace

std::vector<std::string> Registry::expand(const std::vector<std::string>& names, std::string_view where) const {
    std::vector<std::string> expanded;
    for (const auto& name : names)
        for (auto& key : matching(*this, name, where))
            if (std::find(expanded.begin(), expanded.end(), key) == expanded.end()) expanded.push_back(std::move(key));
    return expanded;
}

std::vector<const Test*> Registry::select(const std::string& suite, const std::vector<std::string>& tests,
                                          const std::vector<std::string>& exclude) const {
    const std::vector<std::string> excluded_keys = expand(exclude, "--exclude");
    const auto excluded = [&](std::string_view key) {
        return std::find(excluded_keys.begin(), excluded_keys.end(), key) != excluded_keys.end();
    };

    std::vector<const Test*> chosen;
    if (!tests.empty()) {
        for (const auto& key : expand(tests, ""))
            if (!excluded(key)) chosen.push_back(find(key));
        if (chosen.empty())  // a run of nothing would pass: not run is not a pass
            throw InputError(fmt::format("nothing to run: --exclude {} removes every test of --tests {}",
                                         fmt::join(exclude, ","), fmt::join(tests, ",")));
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
    if (chosen.empty())
        throw InputError(fmt::format("nothing to run: --exclude {} removes every test of suite {}", fmt::join(exclude, ","),
                                     suite));
    return chosen;
}

}  // namespace shakedown
