// Fake sbatch and sinfo in a temporary folder, for tests of the submit path without Slurm.
// sinfo lists the partitions "debug*" and "batch"; sbatch records its arguments and prints a
// job id, or refuses like Slurm when the script asks for partition "full".
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace shakedown::slurm::testing {

class FakeSlurm {
public:
    FakeSlurm() : folder_(std::filesystem::temp_directory_path() / ("shakedown-fake-slurm-" + std::to_string(::getpid()))) {
        std::filesystem::create_directories(folder_);
        write("sinfo", "#!/bin/sh\n[ \"$*\" = '-h -o %P' ] || exit 9\nprintf 'debug*\\nbatch\\n'\n");
        write("sbatch", "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + (folder_ / "sbatch-arguments").string() +
                            "\nfor last; do :; done\n"
                            "grep -q -- '--partition=full' \"$last\" && "
                            "{ echo 'sbatch: error: Batch job submission failed: Invalid partition' >&2; exit 1; }\n"
                            "echo 4242\n"
                            "[ \"$2\" = --wait ] && exit 3\nexit 0\n");
    }
    ~FakeSlurm() {
        std::error_code ignored;
        std::filesystem::remove_all(folder_, ignored);
    }
    FakeSlurm(const FakeSlurm&) = delete;
    FakeSlurm& operator=(const FakeSlurm&) = delete;

    const std::filesystem::path& folder() const { return folder_; }
    std::string tool(const std::string& name) const { return (folder_ / name).string(); }
    std::string sbatch_arguments() const {
        std::ifstream in(folder_ / "sbatch-arguments");
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

private:
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(folder_ / name) << text;
        std::filesystem::permissions(folder_ / name, std::filesystem::perms::owner_all);
    }
    std::filesystem::path folder_;
};

}  // namespace shakedown::slurm::testing
