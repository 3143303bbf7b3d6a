#include "telemetry/dynamic_library.hpp"

#include <dlfcn.h>
#include <link.h>

namespace shakedown {

std::optional<DynamicLibrary> DynamicLibrary::open(const std::string& name, int flags, std::string* why) {
    dlerror();  // clear a stale message so the one we report belongs to this call
    void* handle = dlopen(name.c_str(), flags);
    if (handle == nullptr) {
        if (why != nullptr) {
            const char* text = dlerror();
            *why = text != nullptr ? text : "dlopen failed";
        }
        return std::nullopt;
    }
    return DynamicLibrary(handle);
}

void* DynamicLibrary::symbol(const char* name) const {
    return handle_ != nullptr ? dlsym(handle_, name) : nullptr;
}

std::string DynamicLibrary::path() const {
    link_map* map = nullptr;
    if (handle_ == nullptr || dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr ||
        map->l_name == nullptr)
        return {};
    return map->l_name;
}

void DynamicLibrary::close() {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = nullptr;
}

}  // namespace shakedown
