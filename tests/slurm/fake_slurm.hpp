// Fake Slurm commands in a temporary folder, for tests of the submit and wait paths without
// Slurm. sinfo lists the partitions "debug*" and "batch"; sbatch records its arguments and
// prints a job id (4242), or refuses like Slurm when the script asks for partition "full".
// squeue, scontrol and sacct answer from files the test writes:
//   set_squeue_states({...}): squeue's nth call prints the nth line (the last one repeated);
//       a line "UNREACHABLE" fails like a controller that does not answer; no states: the job
//       is unknown ("Invalid job id specified"); squeue_sleeps() makes it hang.
//   set_scontrol_job(text), set_sacct(text): their output; not set: they fail as Slurm does
//       for a forgotten job or disabled accounting.
#pragma once

#include "slurm/slurm_tools.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace shakedown::slurm::testing {

class FakeSlurm {
public:
    FakeSlurm()
        : folder_(std::filesystem::temp_directory_path() /
                  ("shakedown-fake-slurm-" + std::to_string(::getpid()) + "-" + std::to_string(next_instance()))) {
        std::filesystem::create_directories(folder_);
        const auto state = [&](const std::string& name) { return (folder_ / name).string(); };
        write("sinfo", "#!/bin/sh\n[ \"$*\" = '-h -o %P' ] || exit 9\nprintf 'debug*\\nbatch\\n'\n");
        write("sbatch", "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + state("sbatch-arguments") +
                            "\nfor last; do :; done\n"
                            "grep -q -- '--partition=full' \"$last\" && "
                            "{ echo 'sbatch: error: Batch job submission failed: Invalid partition' >&2; exit 1; }\n"
                            "echo 4242\n");
        write("squeue", "#!/bin/sh\n"
                        "printf '%s\\n' \"$*\" >> " + state("squeue-calls") + "\n"
                        "[ -e " + state("squeue-sleeps") + " ] && exec sleep 60\n"
                        "[ -e " + state("squeue-states") + " ] || "
                        "{ echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1; }\n"
                        "n=$(wc -l < " + state("squeue-calls") + ")\n"
                        "line=$(sed -n \"${n}p\" " + state("squeue-states") + ")\n"
                        "[ -n \"$line\" ] || line=$(tail -n 1 " + state("squeue-states") + ")\n"
                        "[ \"$line\" = UNREACHABLE ] && "
                        "{ echo 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)' >&2; exit 1; }\n"
                        "printf '%s\\n' \"$line\"\n");
        write("scontrol", "#!/bin/sh\n[ \"$1 $2 $3\" = 'show job -o' ] || exit 9\n"
                          "[ -e " + state("scontrol-job") + " ] || "
                          "{ echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1; }\n"
                          "cat " + state("scontrol-job") + "\n");
        write("sacct", "#!/bin/sh\n[ -e " + state("sacct-job") + " ] || "
                       "{ echo 'sacct: error: Slurm accounting storage is disabled' >&2; exit 1; }\n"
                       "cat " + state("sacct-job") + "\n");
    }
    ~FakeSlurm() {
        std::error_code ignored;
        std::filesystem::remove_all(folder_, ignored);
    }
    FakeSlurm(const FakeSlurm&) = delete;
    FakeSlurm& operator=(const FakeSlurm&) = delete;

    const std::filesystem::path& folder() const { return folder_; }
    std::string tool(const std::string& name) const { return (folder_ / name).string(); }
    SlurmTools tools() const {
        return {tool("sbatch"), tool("sinfo"), tool("squeue"), tool("scontrol"), tool("sacct")};
    }
    std::string sbatch_arguments() const { return read("sbatch-arguments"); }
    std::string squeue_calls() const { return read("squeue-calls"); }

    void set_squeue_states(const std::vector<std::string>& lines) const {
        std::ofstream out(folder_ / "squeue-states");
        for (const auto& line : lines) out << line << '\n';
    }
    void squeue_sleeps() const { std::ofstream(folder_ / "squeue-sleeps") << ""; }
    void set_scontrol_job(const std::string& text) const { std::ofstream(folder_ / "scontrol-job") << text << '\n'; }
    void set_sacct(const std::string& text) const { std::ofstream(folder_ / "sacct-job") << text << '\n'; }

private:
    static int next_instance() {
        static std::atomic<int> count{0};
        return count++;
    }
    std::string read(const std::string& name) const {
        std::ifstream in(folder_ / name);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    void write(const std::string& name, const std::string& text) const {
        std::ofstream(folder_ / name) << text;
        std::filesystem::permissions(folder_ / name, std::filesystem::perms::owner_all);
    }
    std::filesystem::path folder_;
};

}  // namespace shakedown::slurm::testing
