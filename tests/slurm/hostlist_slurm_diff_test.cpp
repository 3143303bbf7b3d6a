// The hostlist grammar against Slurm's own: every expression of the table is expanded by
// expand_hostlist and, where Slurm is installed, by `scontrol show hostnames` (Slurm 22.05 on the
// development machine; that command needs a slurm.conf but no controller, so the test writes a
// minimal one). The table holds what Slurm printed, so without scontrol the test still checks
// shakedown against it; with scontrol it also checks that the table is still Slurm's. Rows marked
// `stricter` are where Slurm prints garbage or nothing and shakedown refuses on purpose.
#include "core/process_runner.hpp"
#include "hostlist/hostlist.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <unistd.h>

namespace shakedown::slurm {
namespace {

using Names = std::vector<std::string>;

enum class Slurm { same, stricter };

struct Row {
    std::string expression;
    std::optional<Names> names;  // none: refused (by both, or by shakedown alone when stricter)
    Slurm slurm = Slurm::same;
    std::optional<Names> slurm_names = std::nullopt;  // stricter rows: what Slurm printed instead
};

// Slurm 22.05.8's answers, from `scontrol show hostnames`.
const std::vector<Row>& table() {
    static const std::vector<Row> rows = {
        {"node1 node2", Names{"node1", "node2"}},
        {"node1  node2\tnode3", Names{"node1", "node2", "node3"}},
        {"node[1-2] gpu[3-4]", Names{"node1", "node2", "gpu3", "gpu4"}},
        {"node[1-2],", Names{"node1", "node2"}},
        {",node1", Names{"node1"}},
        {"n[1-2],,m1", Names{"n1", "n2", "m1"}},
        {"node[1-3]x", std::nullopt},
        {"node[1-2]-ib", std::nullopt},
        {"n[1-2]0", std::nullopt},
        {"n[1-2]y,m1", std::nullopt},
        {"n[1-2]x[3-4]y[5]z", std::nullopt},
        {"node[01-03]", Names{"node01", "node02", "node03"}},
        {"n[000-002]", Names{"n000", "n001", "n002"}},
        {"n[8-10]", Names{"n8", "n9", "n10"}},
        {"n[08-10]", Names{"n08", "n09", "n10"}},
        {"n[98-100]", Names{"n98", "n99", "n100"}},
        {"n[8-010]", Names{"n8", "n9", "n10"}},
        {"n[01-2]", Names{"n01", "n02"}},
        {"n[1-02]", Names{"n1", "n2"}},
        {"n[3,1,2]", Names{"n3", "n1", "n2"}},
        {"c[1,3-4,7]", Names{"c1", "c3", "c4", "c7"}},
        {"n[1-1]", Names{"n1"}},
        {"x[0-0]", Names{"x0"}},
        {"n[1-2],n[2-3]", Names{"n1", "n2", "n2", "n3"}},
        {"n.a_b-1", Names{"n.a_b-1"}},
        {"a[1-2]b[3-4]", Names{"a1b3", "a1b4", "a2b3", "a2b4"}},
        {"rack[1-2]-n[01-2]", Names{"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"}},
        {"n[1-2]-[3-4]", Names{"n1-3", "n1-4", "n2-3", "n2-4"}},
        {"n[1-2][3-4]", Names{"n13", "n14", "n23", "n24"}},
        {"n[1-2]x[3]", Names{"n1x3", "n2x3"}},
        {"n[1-2]x[3-4]y[5-6]",
         Names{"n1x3y5", "n1x3y6", "n2x3y5", "n2x3y6", "n1x4y5", "n1x4y6", "n2x4y5", "n2x4y6"}},
        {"a[1-2][3-4][5-6]", Names{"a135", "a136", "a235", "a236", "a145", "a146", "a245", "a246"}},
        {"[1-2]", Names{"1", "2"}},
        {"n[1-2[3-4]]", std::nullopt},
        {"n[[1-2]]", std::nullopt},
        {"node[3-1]", std::nullopt},
        {"n[a-b]", std::nullopt},
        {"n[]", std::nullopt},
        {"n[1,,2]", std::nullopt},
        {"n[-2]", std::nullopt},
        {"n[1-65536]", std::nullopt},  // placeholder, replaced below by its 65536 names
        {"n[1-65537]", std::nullopt},
        {"n[0-9999999]", std::nullopt},
        // Slurm prints nonsense or nothing for these; a job on them is never what was meant.
        {"node[1-2", std::nullopt, Slurm::stricter, Names{"node]"}},
        {"n[1-]", std::nullopt, Slurm::stricter, Names{"n1"}},
        {"n[1 - 2]", std::nullopt, Slurm::stricter, Names{"n01", "n02"}},
        {"n]1", std::nullopt, Slurm::stricter, Names{"n]1"}},
        {"n@1", std::nullopt, Slurm::stricter, Names{"n@1"}},
        {",", std::nullopt, Slurm::stricter, Names{}},
    };
    return rows;
}

std::optional<Names> expected_names(const Row& row) {
    if (row.expression == "n[1-65536]") {
        Names names;
        for (int i = 1; i <= 65536; ++i) names.push_back(fmt::format("n{}", i));
        return names;
    }
    return row.names;
}

std::optional<Names> shakedown_names(const std::string& expression) {
    try {
        return expand_hostlist(expression);
    } catch (const InputError&) {
        return std::nullopt;
    }
}

// `scontrol show hostnames`, run once per expression with a throwaway slurm.conf. On bad input it
// prints "Invalid hostlist: ..." on standard error and still exits 0: that line means refused.
class ScontrolHostnames {
public:
    ScontrolHostnames() {
        folder_ = std::filesystem::temp_directory_path() / fmt::format("shakedown-hostlist-diff-{}", ::getpid());
        std::filesystem::create_directories(folder_);
        std::ofstream(folder_ / "slurm.conf") << "ClusterName=hostlist\nSlurmctldHost=localhost\n"
                                                 "NodeName=localhost\nPartitionName=p Nodes=localhost\n";
        available_ = run_process({"env", "SLURM_CONF=" + (folder_ / "slurm.conf").string(), "scontrol", "--version"}, 10.0)
                         .exit_code == 0;
    }
    ~ScontrolHostnames() {
        if (!folder_.empty()) std::filesystem::remove_all(folder_);
    }
    bool available() const { return available_; }

    std::optional<Names> expand(const std::string& expression) const {
        const auto result = run_process({"env", "SLURM_CONF=" + (folder_ / "slurm.conf").string(), "scontrol", "show",
                                         "hostnames", expression},
                                        30.0);
        EXPECT_EQ(result.exit_code, 0) << expression << ": " << result.err;
        if (result.err.find("Invalid hostlist") != std::string::npos) return std::nullopt;
        Names names;
        std::istringstream lines(result.out);
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("Invalid hostlist", 0) == 0) return std::nullopt;
            names.push_back(line);
        }
        return names;
    }

private:
    std::filesystem::path folder_;
    bool available_ = false;
};

std::string show(const std::optional<Names>& names) {
    if (!names) return "refused";
    return names->size() > 8 ? fmt::format("{} names", names->size()) : fmt::format("{}", fmt::join(*names, " "));
}

TEST(HostlistAgainstSlurmTable, ShakedownExpandsEveryRowAsTheTableSays) {
    for (const auto& row : table())
        EXPECT_EQ(show(shakedown_names(row.expression)), show(expected_names(row))) << "'" << row.expression << "'";
}

TEST(HostlistAgainstSlurmTable, IssueCasesAcceptedAndRefusedAsSlurmDoes) {
    EXPECT_EQ(shakedown_names("node1 node2"), (Names{"node1", "node2"}));
    EXPECT_EQ(shakedown_names("node[1-2],"), (Names{"node1", "node2"}));
    EXPECT_EQ(shakedown_names("node[1-3]x"), std::nullopt);
}

TEST(HostlistAgainstScontrol, EveryRowAsSlurmInstalledHere) {
    const ScontrolHostnames scontrol;
    if (!scontrol.available()) GTEST_SKIP() << "no scontrol here: the table alone was checked";
    for (const auto& row : table()) {
        const auto slurm = scontrol.expand(row.expression);
        if (row.slurm == Slurm::same) {
            EXPECT_EQ(show(slurm), show(expected_names(row))) << "Slurm differs from the table: '" << row.expression << "'";
            EXPECT_EQ(show(shakedown_names(row.expression)), show(slurm)) << "'" << row.expression << "'";
        } else {
            // Where shakedown is stricter on purpose, the table says what Slurm printed instead.
            EXPECT_EQ(show(slurm), show(row.slurm_names)) << "'" << row.expression << "'";
            EXPECT_EQ(shakedown_names(row.expression), std::nullopt) << "'" << row.expression << "'";
        }
    }
}

// What compress_hostlist writes into #SBATCH --nodelist must mean the same names to Slurm.
TEST(HostlistAgainstScontrol, CompressedFormsExpandToTheSameNamesInSlurm) {
    const ScontrolHostnames scontrol;
    if (!scontrol.available()) GTEST_SKIP() << "no scontrol here";
    const std::vector<Names> sets = {
        {"node01", "node02", "node03", "node07", "node10"},
        {"gpu-a3", "node2", "gpu-a1", "node1", "login"},
        {"n1", "n01", "n2", "n02", "n0", "n00"},
        {"node1-ib", "node2-ib", "node3"},
        {"rack1-node1", "rack1-node2", "rack2-node1"},
        {"n8", "n9", "n10", "n11", "n099"},
    };
    for (const auto& names : sets) {
        const auto compressed = compress_hostlist(names);
        const auto slurm = scontrol.expand(compressed);
        ASSERT_TRUE(slurm.has_value()) << compressed;
        EXPECT_EQ(std::set<std::string>(slurm->begin(), slurm->end()), std::set<std::string>(names.begin(), names.end()))
            << compressed;
    }
}

}  // namespace
}  // namespace shakedown::slurm
