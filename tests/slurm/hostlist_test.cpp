#include "hostlist/hostlist.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <set>

namespace shakedown::slurm {
namespace {

using Names = std::vector<std::string>;

TEST(ExpandHostlist, SingleName) { EXPECT_EQ(expand_hostlist("node7"), Names{"node7"}); }

TEST(ExpandHostlist, PlainNamesSeparatedByCommas) {
    EXPECT_EQ(expand_hostlist("login,node1,gpu-a.cluster"), (Names{"login", "node1", "gpu-a.cluster"}));
}

TEST(ExpandHostlist, RangeWithZeroPaddingKept) {
    EXPECT_EQ(expand_hostlist("node[01-03]"), (Names{"node01", "node02", "node03"}));
    EXPECT_EQ(expand_hostlist("node[008-010]"), (Names{"node008", "node009", "node010"}));
}

TEST(ExpandHostlist, PaddingGrowsPastItsWidthLikeSlurm) {
    EXPECT_EQ(expand_hostlist("n[98-100]"), (Names{"n98", "n99", "n100"}));
    EXPECT_EQ(expand_hostlist("n[09-10]"), (Names{"n09", "n10"}));
}

TEST(ExpandHostlist, CommasInsideBracketsAndAcrossNames) {
    const auto names = expand_hostlist("node[01-16,20],gpu-a[1-3]");
    ASSERT_EQ(names.size(), 20u);
    EXPECT_EQ(names.front(), "node01");
    EXPECT_EQ(names[15], "node16");
    EXPECT_EQ(names[16], "node20");
    EXPECT_EQ(names[17], "gpu-a1");
    EXPECT_EQ(names.back(), "gpu-a3");
}

TEST(ExpandHostlist, SingleNumbersAndRangesMixedInOneBracket) {
    EXPECT_EQ(expand_hostlist("c[1,3-4,7]"), (Names{"c1", "c3", "c4", "c7"}));
}

TEST(ExpandHostlist, TextBetweenBracketsButNotAfterTheLast) {
    EXPECT_EQ(expand_hostlist("node[1-2]-ib[0]"), (Names{"node1-ib0", "node2-ib0"}));
    EXPECT_THROW(expand_hostlist("node[1-2]-ib"), InputError);
}

TEST(ExpandHostlist, WhitespaceAndEmptyItemsSeparateLikeCommas) {
    EXPECT_EQ(expand_hostlist("a,,b c\td,"), (Names{"a", "b", "c", "d"}));
}

TEST(ExpandHostlist, SeveralBracketGroupsExpandAsAProductLastFastest) {
    EXPECT_EQ(expand_hostlist("rack[1-2]-node[1-2]"),
              (Names{"rack1-node1", "rack1-node2", "rack2-node1", "rack2-node2"}));
    EXPECT_EQ(expand_hostlist("r[1-2]n[01-03]").size(), 6u);
}

TEST(ExpandHostlist, OrderAsWrittenAndDuplicatesKept) {
    EXPECT_EQ(expand_hostlist("b2,a1,b2"), (Names{"b2", "a1", "b2"}));
}

TEST(ExpandHostlist, SurroundingWhitespaceIgnored) { EXPECT_EQ(expand_hostlist("  node1\n"), Names{"node1"}); }

TEST(ExpandHostlist, SingleValueRange) { EXPECT_EQ(expand_hostlist("node[5-5]"), Names{"node5"}); }

TEST(ExpandHostlist, LargeButAllowedExpansion) {
    const auto names = expand_hostlist("n[1-1000]-[1-1000]");
    ASSERT_EQ(names.size(), max_hostlist_names);
    EXPECT_EQ(names.back(), "n1000-1000");
}

// A file's expressions share one budget: each may be large, all together no more than one
// expression may (a 4.9 KB topology.conf of many such lines expanded to 2.7 GB).
TEST(ExpandHostlist, AFileWideBudgetCountsEveryExpression) {
    std::size_t names_left = max_hostlist_names;
    EXPECT_EQ(expand_hostlist("a[1-600]-[1-1000]", names_left).size(), 600000u);
    EXPECT_EQ(names_left, max_hostlist_names - 600000u);
    try {
        expand_hostlist("b[1-600]-[1-1000]", names_left);
        FAIL() << "a second expression of 600,000 names was accepted";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("expands to 600000 names, more than the 400000 left of the 1000000 one file "
                                                 "may name"),
                  std::string::npos)
            << error.what();
    }
    EXPECT_EQ(names_left, 400000u);  // unchanged by the refused expression
    EXPECT_EQ(expand_hostlist("c[1-3]", names_left).size(), 3u);
}

// Every malformed expression is one InputError naming the expression and the problem.
struct BadHostlist {
    std::string expression;
    std::string message_part;
};

class ExpandHostlistRejects : public ::testing::TestWithParam<BadHostlist> {};

TEST_P(ExpandHostlistRejects, WithAClearMessage) {
    const auto& bad = GetParam();
    try {
        expand_hostlist(bad.expression);
        FAIL() << "accepted '" << bad.expression << "'";
    } catch (const InputError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("invalid hostlist"), std::string::npos) << message;
        EXPECT_NE(message.find(bad.message_part), std::string::npos) << message;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ExpandHostlistRejects,
    ::testing::Values(BadHostlist{"", "empty"}, BadHostlist{"   ", "empty"},
                      BadHostlist{"node[3-1]", "runs backwards"}, BadHostlist{"node[", "without a matching ']'"},
                      BadHostlist{"node[1-2", "without a matching ']'"}, BadHostlist{"node]", "without a matching '['"},
                      BadHostlist{"node[a-b]", "'a' is not a number"}, BadHostlist{"node[1-b]", "'b' is not a number"},
                      BadHostlist{"node[]", "empty brackets"}, BadHostlist{"node[1,]", "empty number"},
                      BadHostlist{"node[-3]", "empty number"}, BadHostlist{"node[1-2-3]", "'2-3' is not a number"},
                      BadHostlist{"node[[1]]", "nested"}, BadHostlist{",", "names no node"},
                      BadHostlist{"node[1-3]x", "after the last ']'"},
                      BadHostlist{"node;rm", "';' is not allowed"},
                      BadHostlist{"no\"de", "'\"' is not allowed"}, BadHostlist{"node$x", "'$' is not allowed"},
                      BadHostlist{"n[1-65537]", "more than 65536 names"},
                      BadHostlist{"n[1-1000]-[1-1001]", "more than 1000000 names"},
                      BadHostlist{"n[1-1000],m[1-1000]x[1-1000]", "more than 1000000 names"},
                      BadHostlist{"n[1-1000]-[1-1000],m[1-2]", "more than 1000000 names"},
                      BadHostlist{"n[1-99999999999999999]", "more than 65536 names"},
                      BadHostlist{"n[1234567890123456789]", "too long"}),
    // Stable names: the case's index (gtest would print the struct's bytes, pointers included).
    [](const ::testing::TestParamInfo<BadHostlist>& info) { return "case" + std::to_string(info.index); });

TEST(CompressHostlist, EmptyListGivesEmptyText) { EXPECT_EQ(compress_hostlist({}), ""); }

TEST(CompressHostlist, SingleNameHasNoBrackets) { EXPECT_EQ(compress_hostlist({"node7"}), "node7"); }

TEST(CompressHostlist, ConsecutiveNumbersBecomeRanges) {
    EXPECT_EQ(compress_hostlist({"node1", "node2", "node3", "node5"}), "node[1-3,5]");
}

TEST(CompressHostlist, ZeroPaddingKeptAndUnpaddedNumbersOfTheSameWidthJoin) {
    EXPECT_EQ(compress_hostlist(expand_hostlist("node[01-16,20]")), "node[01-16,20]");
    EXPECT_EQ(compress_hostlist({"node08", "node09", "node10"}), "node[08-10]");
}

TEST(CompressHostlist, DifferentPaddingsStaySeparate) {
    EXPECT_EQ(compress_hostlist({"n1", "n01", "n2", "n02"}), "n[1-2],n[01-02]");
}

TEST(CompressHostlist, GroupsInOrderOfFirstAppearanceNumbersAscending) {
    EXPECT_EQ(compress_hostlist({"gpu-a3", "node2", "gpu-a1", "node1", "login"}), "gpu-a[1,3],node[1-2],login");
}

TEST(CompressHostlist, DuplicatesDropped) { EXPECT_EQ(compress_hostlist({"n2", "n1", "n2", "x", "x"}), "n[1-2],x"); }

// Slurm allows no text after a bracket group, so such names are not bracketed.
TEST(CompressHostlist, NamesWithTextAfterTheirNumberStayAsWritten) {
    EXPECT_EQ(compress_hostlist({"node1-ib", "node2-ib", "node3"}), "node1-ib,node2-ib,node3");
}

TEST(CompressHostlist, OnlyTheLastNumberVaries) {
    EXPECT_EQ(compress_hostlist(expand_hostlist("rack[1-2]-node[1-2]")), "rack1-node[1-2],rack2-node[1-2]");
}

TEST(CompressHostlist, ZeroItself) { EXPECT_EQ(compress_hostlist({"n0", "n1", "n00"}), "n[0-1],n00"); }

// Round trip on random node sets: compress(expand(compress(x))) covers exactly the set x.
TEST(CompressHostlist, RoundTripsRandomSets) {
    std::mt19937 random(20261130);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<std::string> names;
        const int count = 1 + static_cast<int>(random() % 40);
        for (int i = 0; i < count; ++i) {
            const auto prefix = std::string(1, static_cast<char>('a' + random() % 3));
            const auto value = random() % 130;
            names.push_back(random() % 2 ? fmt::format("{}{:03}", prefix, value) : fmt::format("{}{}", prefix, value));
        }
        const auto compressed = compress_hostlist(names);
        const auto expanded = expand_hostlist(compressed);
        EXPECT_EQ(std::set<std::string>(expanded.begin(), expanded.end()),
                  std::set<std::string>(names.begin(), names.end()))
            << compressed;
        EXPECT_EQ(std::set<std::string>(expanded.begin(), expanded.end()).size(), expanded.size())
            << "duplicates in " << compressed;
        EXPECT_EQ(compress_hostlist(expanded), compressed) << "not stable";
    }
}

}  // namespace
}  // namespace shakedown::slurm
