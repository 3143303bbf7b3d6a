// `--pdf FILE`: report.html printed to PDF by headless Chromium (Debian's chromium), the way a
// browser's "print" would, with the report's print CSS. Chromium runs in a process group of its own
// with a time limit and is killed with everything it started, so no browser process outlives it;
// its profile lives in a temporary folder that is removed. The PDF appears only when complete.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace shakedown::analysis {

// The browser: "chromium", else "chromium-browser", on the PATH-style list `path_env`.
std::optional<std::filesystem::path> find_chromium(std::string_view path_env);

// Prints `html` to `pdf`. Every page's top names the sha256 of `html` as it is on disk, so a
// printed report can be checked against the report.html it was printed from: the page is printed
// from a copy with that header added (a file cannot hold its own digest). Throws InputError "--pdf FILE: chromium ..." when
// it fails, times out or writes no PDF; an existing `pdf` is then left as it was.
void print_to_pdf(const std::filesystem::path& chromium, const std::filesystem::path& html,
                  const std::filesystem::path& pdf, double timeout_s = 120.0);

}  // namespace shakedown::analysis
