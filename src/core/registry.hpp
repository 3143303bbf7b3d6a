// The test registry. Declarations and implementations register themselves at static-
// initialisation time (one line per file, as google/benchmark does); after main() starts the
// registry is only read. A declaration whose implementation this binary was built without
// stands for a test that waives itself with the reason ("this shakedown was built without
// NCCL"), so one config is valid on every build.
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
using SpecFactory = const TestSpec& (*)();

class Registry {
public:
    static const Registry& instance();

    const std::vector<std::unique_ptr<Test>>& tests() const { return tests_; }  // by key
    const Test* find(std::string_view key) const;
    // What test `test_key` declares for `metric` (nullptr: no such test, or it declares no such metric).
    const MetricSpec* declaration(std::string_view test_key, std::string_view metric) const;
    const std::vector<RuntimeFactory>& runtimes() const { return runtimes_; }
    std::vector<std::string> suites() const;  // every suite any test names, sorted
    std::vector<std::string> keys() const;
    bool is_built(const Test& test) const;  // false: only its declaration is in this binary

    // Tests of `suite` (or exactly `tests`, in the order given), minus `exclude`. A name with a
    // shell wildcard (`*`, `?`, `[...]`, as fnmatch reads them) stands for every test key it
    // matches, in the registry's order: `--tests 'gemm*,mpi_*'`, `--exclude 'nccl*'`.
    // Throws InputError (naming the valid choices) for an unknown name or suite, a pattern that
    // matches no test, and when nothing is left to run.
    std::vector<const Test*> select(const std::string& suite, const std::vector<std::string>& tests,
                                    const std::vector<std::string>& exclude) const;

    // The keys `names` select, each once, in the order given (a pattern's matches in the
    // registry's order). `where`: the option, for the message ("--exclude"), or empty. Throws
    // InputError for an unknown name or a pattern that matches nothing.
    std::vector<std::string> expand(const std::vector<std::string>& names, std::string_view where) const;

private:
    template <typename T>
    friend struct Registration;
    friend struct SpecRegistration;
    friend struct RuntimeRegistration;
    static Registry& mutable_instance();
    void add_spec(const TestSpec& spec);
    void add_test(std::unique_ptr<Test> test);

    std::vector<std::unique_ptr<Test>> tests_;
    std::vector<RuntimeFactory> runtimes_;
};

// Why a declared test is not in this binary: "this shakedown was built without NCCL".
std::string not_built_reason(const TestSpec& spec);

template <typename T>
struct Registration {
    Registration() { Registry::mutable_instance().add_test(std::make_unique<T>()); }
};

struct SpecRegistration {
    explicit SpecRegistration(SpecFactory factory) { Registry::mutable_instance().add_spec(factory()); }
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

// Put at namespace scope in the test's implementation file.
#define SHAKEDOWN_REGISTER_TEST(Type) \
    static const ::shakedown::Registration<Type> shakedown_registration_##Type {}

// Put at namespace scope beside the test's declaration (its spec function).
#define SHAKEDOWN_REGISTER_SPEC(factory) \
    static const ::shakedown::SpecRegistration shakedown_spec_##factory { &factory }

// Put at namespace scope beside the runtime's factory function.
#define SHAKEDOWN_REGISTER_RUNTIME(factory) \
    static const ::shakedown::RuntimeRegistration shakedown_runtime_##factory { &factory }
