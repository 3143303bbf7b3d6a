// A fresh folder under the build's temporary directory, removed with everything in it at the
// end of the test; entries() says what a test left behind.
#pragma once

#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace shakedown::testing {

class TempFolder {
public:
    explicit TempFolder(const std::string& stem) {
        std::random_device entropy;
        path_ = std::filesystem::temp_directory_path() / (stem + "." + std::to_string(entropy()) + std::to_string(entropy()));
        std::filesystem::create_directories(path_);
    }
    ~TempFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(path_)) names.push_back(entry.path().filename().string());
        return names;
    }

private:
    std::filesystem::path path_;
};

}  // namespace shakedown::testing
