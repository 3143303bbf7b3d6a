// The test registry. Tests register themselves at static-initialisation time (one line per
// test file, as google/benchmark does); after main() starts the registry is only read.
#pragma once

#include "core/test.hpp"

#include <memory>
#include <string>
#include <vector>

namespace shakedown {

// A process-wide runtime some tests need (Kokkos, ...): the driver starts every registered
// runtime after MPI_Init and destroys it, in reverse order, before MPI_Finalize.
class RuntimeGuard {
public:
    virtual ~RuntimeGuard() = default;
};
using RuntimeFactory = std::unique_ptr<RuntimeGuard> (*)();

class Registry {
public:
    static const Registry& instance();

    const std::vector<std::unique_ptr<Test>>& tests() const { return tests_; }
    const Test* find(std::string_view key) const;
    const std::vector<RuntimeFactory>& runtimes() const { return runtimes_; }
    std::vector<std::string> suites() const;  // every suite any test names, sorted

    // Tests of `suite` (or exactly `tests`, in the order given), minus `exclude`. Unknown
    // names throw InputError naming the valid choices.
    std::vector<const Test*> select(const std::string& suite, const std::vector<std::string>& tests,
                                    const std::vector<std::string>& exclude) const;

private:
    template <typename T>
    friend struct Registration;
    friend struct RuntimeRegistration;
    static Registry& mutable_instance();
    void add(std::unique_ptr<Test> test);

    std::vector<std::unique_ptr<Test>> tests_;
    std::vector<RuntimeFactory> runtimes_;
};

template <typename T>
struct Registration {
    Registration() { Registry::mutable_instance().add(std::make_unique<T>()); }
};

// Every registered runtime, started in registration order for this object's lifetime and
// stopped in reverse order: the driver and the MPI test main hold one between MPI_Init and
// MPI_Finalize.
class RegisteredRuntimes {
public:
    RegisteredRuntimes() {
        for (const auto factory : Registry::instance().runtimes()) guards_.push_back(factory());
    }
    ~RegisteredRuntimes() {
        while (!guards_.empty()) guards_.pop_back();
    }
    RegisteredRuntimes(const RegisteredRuntimes&) = delete;
    RegisteredRuntimes& operator=(const RegisteredRuntimes&) = delete;

private:
    std::vector<std::unique_ptr<RuntimeGuard>> guards_;
};

struct RuntimeRegistration {
    explicit RuntimeRegistration(RuntimeFactory factory) { Registry::mutable_instance().runtimes_.push_back(factory); }
};

}  // namespace shakedown

// Put at namespace scope in the test's .cpp file.
#define SHAKEDOWN_REGISTER_TEST(Type) \
    static const ::shakedown::Registration<Type> shakedown_registration_##Type {}

// Put at namespace scope beside the runtime's factory function.
#define SHAKEDOWN_REGISTER_RUNTIME(factory) \
    static const ::shakedown::RuntimeRegistration shakedown_runtime_##factory { &factory }
