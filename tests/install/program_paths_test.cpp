// Finding shakedown-analyze beside shakedown: in an installed prefix, in the build tree (by its
// recorded layout, no absolute build path) and on PATH; never from the working folder.
#include "core/build_tree_programs.hpp"
#include "core/program_paths.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

namespace shakedown {
namespace {

namespace fs = std::filesystem;

class Tree {
public:
    Tree() : root_(fs::temp_directory_path() / ("shakedown-paths-" + std::to_string(std::random_device{}()))) {
        fs::create_directories(root_);
    }
    ~Tree() {
        std::error_code ignored;
        fs::remove_all(root_, ignored);
    }
    fs::path program(const fs::path& relative, fs::perms mode = fs::perms::owner_all) const {
        const auto path = root_ / relative;
        fs::create_directories(path.parent_path());
        std::ofstream(path) << "#!/bin/sh\n";
        fs::permissions(path, mode);
        return path;
    }
    fs::path data(const fs::path& relative) const {
        const auto path = root_ / relative;
        fs::create_directories(path.parent_path());
        std::ofstream(path) << "x: 1\n";
        return path;
    }
    const fs::path& root() const { return root_; }

private:
    fs::path root_;
};

TEST(ProgramPaths, InstalledPrefixFindsTheAnalyzerBesideTheDriver) {
    Tree tree;
    const auto driver = tree.program("prefix/bin/shakedown");
    const auto analyzer = tree.program("prefix/bin/shakedown-analyze");
    EXPECT_EQ(find_companion_program("shakedown-analyze", driver, ""), analyzer);
}

TEST(ProgramPaths, BuildTreeFindsTheAnalyzerAtItsRecordedPlace) {
    const auto& layout = build_tree_programs();
    ASSERT_TRUE(layout.contains("shakedown"));
    ASSERT_TRUE(layout.contains("shakedown-analyze"));
    EXPECT_FALSE(layout.at("shakedown").is_absolute());
    Tree tree;
    const auto driver = tree.program(fs::path("build") / layout.at("shakedown"));
    const auto analyzer = tree.program(fs::path("build") / layout.at("shakedown-analyze"));
    EXPECT_EQ(find_companion_program("shakedown-analyze", driver, ""), analyzer);
    EXPECT_EQ(find_companion_program("shakedown", analyzer, ""), driver);
}

TEST(ProgramPaths, ADriverCopiedElsewhereDoesNotGuessABuildTree) {
    Tree tree;
    const auto driver = tree.program("somewhere/shakedown");
    tree.program(fs::path("build") / build_tree_programs().at("shakedown-analyze"));
    EXPECT_FALSE(find_companion_program("shakedown-analyze", driver, "").has_value());
}

TEST(ProgramPaths, FallsBackToPathButNeverToTheWorkingFolder) {
    Tree tree;
    const auto driver = tree.program("a/shakedown");
    tree.program("b/shakedown-analyze", fs::perms::owner_read);  // not executable: skipped
    const auto analyzer = tree.program("c/shakedown-analyze");
    const std::string path = "::" + (tree.root() / "b").string() + ":" + (tree.root() / "c").string();
    EXPECT_EQ(find_companion_program("shakedown-analyze", driver, path), analyzer);
    EXPECT_FALSE(find_companion_program("shakedown-analyze", driver, ":" + (tree.root() / "b").string()));
}

TEST(ProgramPaths, RunningTestBinaryIsFound) {
    const auto self = this_executable();
    ASSERT_FALSE(self.empty());
    EXPECT_EQ(self.filename(), "install_logic_tests");
}

TEST(ProgramPaths, InstalledDataIsFoundUnderShareOnlyForABinDirectory) {
    Tree tree;
    const auto driver = tree.program("prefix/bin/shakedown");
    const auto thresholds = tree.data("prefix/share/shakedown/thresholds/default.yaml");
    EXPECT_EQ(installed_data_file("thresholds/default.yaml", driver), thresholds);
    EXPECT_FALSE(installed_data_file("thresholds/missing.yaml", driver).has_value());
    const auto built = tree.program("build/src/driver/shakedown");
    EXPECT_FALSE(installed_data_file("thresholds/default.yaml", built).has_value());
}

}  // namespace
}  // namespace shakedown
