// RAII owner of a dlopen() handle. Used for libraries that a node may or may not have
// (NVML, the system BLAS): absence is an ordinary answer, not an error.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace shakedown {

class DynamicLibrary {
public:
    // std::nullopt when the library cannot be loaded; `why` then holds dlerror()'s text.
    static std::optional<DynamicLibrary> open(const std::string& name, int flags, std::string* why = nullptr);

    DynamicLibrary(DynamicLibrary&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    DynamicLibrary& operator=(DynamicLibrary&& other) noexcept {
        if (this != &other) {
            close();
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    DynamicLibrary(const DynamicLibrary&) = delete;
    DynamicLibrary& operator=(const DynamicLibrary&) = delete;
    ~DynamicLibrary() { close(); }

    void* symbol(const char* name) const;  // nullptr when the library does not export it

    // Typed look-up: `auto fn = lib.function<nvml_abi::InitFn>("nvmlInit_v2");`
    template <typename FunctionPointer>
    FunctionPointer function(const char* name) const {
        return reinterpret_cast<FunctionPointer>(symbol(name));
    }

    // Absolute path of the file the handle refers to (from dlinfo), empty when unknown.
    std::string path() const;

private:
    explicit DynamicLibrary(void* handle) : handle_(handle) {}
    void close();

    void* handle_ = nullptr;
};

}  // namespace shakedown
