// The test registry. Tests register themselves at static-initialisation time (one line per
// test file, as google/benchmark does); after main() starts the registry is only read.
#pragma once

#include "core/test.hpp"

#include <memory>
#include <string>
#include <vector>

namespace shakedown {

class Registry {
public:
    static const Registry& instance();

    const std::vector<std::unique_ptr<Test>>& tests() const { return tests_; }
    const Test* find(std::string_view key) const;
    std::vector<std::string> suites() const;  // every suite any test names, sorted

    // Tests of `suite` (or exactly `tests`, in the order given), minus `exclude`. Unknown
    // names throw InputError naming the valid choices.
    std::vector<const Test*> select(const std::string& suite, const std::vector<std::string>& tests,
                                    const std::vector<std::string>& exclude) const;

private:
    template <typename T>
    friend struct Registration;
    static Registry& mutable_instance();
    void add(std::unique_ptr<Test> test);

    std::vector<std::unique_ptr<Test>> tests_;
};

template <typename T>
struct Registration {
    Registration() { Registry::mutable_instance().add(std::make_unique<T>()); }
};

}  // namespace shakedown

// Put at namespace scope in the test's .cpp file.
#define SHAKEDOWN_REGISTER_TEST(Type) \
    static const ::shakedown::Registration<Type> shakedown_registration_##Type {}
