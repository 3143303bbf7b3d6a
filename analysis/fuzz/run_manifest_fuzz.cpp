// libFuzzer target: any bytes as a run.json, read as the analyzer reads it. What parses must give
// a manifest or InputError naming the member, never a crash, an abort or a huge allocation; the
// manifest must also be writable again as JSON text (a byte that is not UTF-8 in a name included).
#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "trace/run_manifest.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const std::string_view text(reinterpret_cast<const char*>(data), size);
        const shakedown::RunManifest manifest =
            shakedown::parse_run_manifest(shakedown::parse_json_document(text, "fuzz: "), "fuzz/");
        (void)shakedown::json_text(shakedown::to_json(manifest), 2);
    } catch (const shakedown::InputError&) {
    }
    return 0;
}
