// libFuzzer target: any bytes as a run.json. The JSON parser may refuse them; what parses must
// give a manifest or InputError naming the member, never a crash, an abort or a huge allocation.
#include "core/errors.hpp"
#include "trace/run_manifest.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const nlohmann::json document = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) return 0;
    try {
        const shakedown::RunManifest manifest = shakedown::parse_run_manifest(document, "fuzz/");
        (void)shakedown::to_json(manifest);
    } catch (const shakedown::InputError&) {
    }
    return 0;
}
