#include "slurm/drain_list.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace shakedown::slurm {
namespace {

TEST(DrainReason, PrefixedAndCleaned) {
    EXPECT_EQ(clean_drain_reason("FP64 DGEMM 0.71 of nominal"), "shakedown: FP64 DGEMM 0.71 of nominal");
    EXPECT_EQ(clean_drain_reason("shakedown: already prefixed"), "shakedown: already prefixed");
    EXPECT_EQ(clean_drain_reason("shakedown:tight"), "shakedown: tight");
    EXPECT_EQ(clean_drain_reason(""), "shakedown: failed");
    EXPECT_EQ(clean_drain_reason("  \n\t "), "shakedown: failed");
}

TEST(DrainReason, QuotesAndShellCharactersCannotEscape) {
    EXPECT_EQ(clean_drain_reason("link \"a\" $(reboot) `id` \\ !!"), "shakedown: link 'a' _(reboot) _id_ _ __");
}

TEST(DrainReason, ControlCharactersAndWhitespaceRunsBecomeOneSpace) {
    EXPECT_EQ(clean_drain_reason("line1\nline2\r\n\tend\x1b[31m"), "shakedown: line1 line2 end [31m");
    EXPECT_EQ(clean_drain_reason(std::string("a\0b", 3)), "shakedown: a b");
}

TEST(DrainReason, NonAsciiReplacedAndLengthCapped) {
    EXPECT_EQ(clean_drain_reason("temp 90\xc2\xb0"), "shakedown: temp 90??");
    const auto reason = clean_drain_reason(std::string(500, 'x'));
    EXPECT_EQ(reason.size(), max_drain_reason_length);
    EXPECT_EQ(reason.substr(reason.size() - 3), "...");
}

TEST(DrainCommand, ArgvAndLineAgree) {
    const auto command = make_drain_command({"node17", "FP64 DGEMM 0.71 of nominal"});
    EXPECT_EQ(command.argv, (std::vector<std::string>{"scontrol", "update", "NodeName=node17", "State=DRAIN",
                                                      "Reason=shakedown: FP64 DGEMM 0.71 of nominal"}));
    EXPECT_EQ(command.line,
              "scontrol update NodeName=node17 State=DRAIN Reason=\"shakedown: FP64 DGEMM 0.71 of nominal\"");
}

TEST(DrainCommand, InvalidNodeNamesRejected) {
    for (const auto* bad : {"", "node 1", "node1;reboot", "node\"1", "$(id)", "node1\n"})
        EXPECT_THROW(make_drain_command({bad, "x"}), InputError) << bad;
    EXPECT_THROW(make_drain_commands({{"good1", "x"}, {"bad name", "y"}}), InputError);
}

TEST(DrainCommand, OneLinePerNodeReasonsJoinedInFirstAppearanceOrder) {
    const auto commands = make_drain_commands({{"node2", "slow link"}, {"node1", "hot"}, {"node2", "ECC"}});
    ASSERT_EQ(commands.size(), 2u);
    EXPECT_EQ(commands[0].node, "node2");
    EXPECT_EQ(commands[0].reason, "shakedown: slow link; ECC");
    EXPECT_EQ(commands[1].node, "node1");
}

TEST(DrainFile, HeaderSaysNothingWasRunAndListsEachNode) {
    const auto text = format_drain_file({{"node4", "link rate 0.05 of median"}}, "run-1\nevil");
    EXPECT_NE(text.find("# shakedown drain list for run run-1?evil"), std::string::npos) << text;
    EXPECT_NE(text.find("Nothing here has been run"), std::string::npos);
    EXPECT_NE(text.find("\nscontrol update NodeName=node4 State=DRAIN Reason=\"shakedown: link rate 0.05 of median\"\n"),
              std::string::npos)
        << text;
    EXPECT_NE(format_drain_file({}, "r").find("No node needs draining"), std::string::npos);
}

// apply_drain_list runs scontrol with argv: a fake scontrol records the arguments it got, one
// per line, so any shell interpretation would show.
TEST(DrainApply, ExecutesWithArgvOnly) {
    const auto folder = std::filesystem::temp_directory_path() / ("shakedown-drain-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    const auto log = folder / "arguments";
    const auto fake = folder / "scontrol";
    {
        std::ofstream script(fake);
        script << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> " << log.string()
               << "\n[ \"$2\" = NodeName=node9 ] && { echo 'node9 not found' >&2; exit 1; }\nexit 0\n";
    }
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    const auto outcomes = apply_drain_list({{"node3", "bad $(touch /tmp/pwned) \"x\""}, {"node9", "y"}}, fake.string());
    ASSERT_EQ(outcomes.size(), 2u);
    EXPECT_EQ(outcomes[0].exit_code, 0);
    EXPECT_EQ(outcomes[1].exit_code, 1);
    EXPECT_EQ(outcomes[1].message, "node9 not found");
    std::ifstream recorded(log);
    std::vector<std::string> lines;
    for (std::string line; std::getline(recorded, line);) lines.push_back(line);
    ASSERT_EQ(lines.size(), 8u);  // 4 arguments per node
    EXPECT_EQ(lines[1], "NodeName=node3");
    EXPECT_EQ(lines[3], "Reason=shakedown: bad _(touch /tmp/pwned) 'x'");
    std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace shakedown::slurm
