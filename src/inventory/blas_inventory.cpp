// Which BLAS the process uses, and for OpenBLAS the kernel family it picked at start-up.
// OpenBLAS detects the CPU itself and may guess wrong (on virtual Xeons it falls back to
// "Prescott", a generic SSE3 kernel 5x slower than SkylakeX): the analyzer needs this to
// explain a CPU DGEMM far below nominal.
#include "inventory/inventory_sections.hpp"
#include "telemetry/dynamic_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace shakedown::inventory_detail {
namespace {

std::string canonical_path(const std::string& path) {
    std::error_code error;
    auto resolved = std::filesystem::canonical(path, error);
    return error ? path : resolved.string();
}

// The file that defines `symbol_address` (a resolved dgemm_).
std::string library_of(void* symbol_address) {
    Dl_info info{};
    if (dladdr(symbol_address, &info) == 0 || info.dli_fname == nullptr) return {};
    return canonical_path(info.dli_fname);
}

void add_openblas_facts(nlohmann::json& blas, const DynamicLibrary* library) {
    // Look up in the library found; when the process links BLAS, the global scope has them.
    auto find = [library](const char* name) {
        return library != nullptr ? library->symbol(name) : dlsym(RTLD_DEFAULT, name);
    };
    using TextFn = char* (*)();
    using IntFn = int (*)();
    const auto corename = reinterpret_cast<TextFn>(find("openblas_get_corename"));
    const auto config = reinterpret_cast<TextFn>(find("openblas_get_config"));
    const auto threads = reinterpret_cast<IntFn>(find("openblas_get_num_threads"));
    if (corename == nullptr) return;  // not OpenBLAS (reference BLAS, BLIS, MKL, ...)
    blas["vendor"] = "OpenBLAS";
    blas["openblas_core"] = std::string(corename());
    if (config != nullptr) blas["openblas_config"] = std::string(config());
    if (threads != nullptr) blas["openblas_threads"] = threads();
    if (const char* forced = std::getenv("OPENBLAS_CORETYPE")) blas["openblas_coretype_env"] = forced;
}

}  // namespace

nlohmann::json blas_section() {
    nlohmann::json blas{{"library", ""}, {"source", "none"}, {"openblas_core", ""}, {"openblas_config", ""}};
    // Already in the process (the driver links KokkosKernels' BLAS): that is the one in use.
    if (void* dgemm = dlsym(RTLD_DEFAULT, "dgemm_")) {
        blas["library"] = library_of(dgemm);
        blas["source"] = "linked";
        add_openblas_facts(blas, nullptr);
        return blas;
    }
    // Otherwise the one a BLAS user on this node would get through the alternatives system.
    // RTLD_NODELETE: unloading OpenBLAS runs its thread-pool teardown, which has crashed in
    // dlclose on several releases; a loaded but idle BLAS is harmless.
    std::string why;
    auto library = DynamicLibrary::open("libblas.so.3", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE, &why);
    if (!library) {
        blas["error"] = why;
        return blas;
    }
    void* dgemm = library->symbol("dgemm_");
    blas["library"] = dgemm != nullptr ? library_of(dgemm) : canonical_path(library->path());
    blas["source"] = "libblas.so.3";
    add_openblas_facts(blas, &*library);
    return blas;
}

}  // namespace shakedown::inventory_detail
