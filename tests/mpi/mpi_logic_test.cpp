// The communication family's pure logic: pair lists, rounds, size sweeps, payloads, statistics.
#include "core/errors.hpp"
#include "comm/pairs.hpp"
#include "comm/payload.hpp"
#include "comm/sizes.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace shakedown::mpi {
namespace {

std::vector<comm::RankPlacement> nodes_of(const std::vector<int>& node_of_rank) {
    std::vector<comm::RankPlacement> placement;
    for (std::size_t r = 0; r < node_of_rank.size(); ++r) placement.push_back({static_cast<int>(r), node_of_rank[r]});
    return placement;
}

template <typename F>
std::string input_error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "no InputError";
}

TEST(Pairs, LocalPairsFirstThenARingOfNodeRepresentatives) {
    // 3 nodes: ranks 0,1 | 2 | 3,4,5
    const auto rounds = comm::local_then_ring_rounds(nodes_of({0, 0, 1, 2, 2, 2}));
    ASSERT_GE(rounds.size(), 2u);
    ASSERT_EQ(rounds[0].size(), 2u);  // node 1 has one rank: no local pair there
    EXPECT_EQ(rounds[0][0].first, 0);
    EXPECT_EQ(rounds[0][0].second, 1);
    EXPECT_EQ(rounds[0][1].first, 3);
    EXPECT_EQ(rounds[0][1].second, 4);
    std::set<std::pair<int, int>> ring;
    for (std::size_t r = 1; r < rounds.size(); ++r) {
        std::set<int> busy;
        for (const auto& pair : rounds[r]) {
            EXPECT_FALSE(pair.intra_node);
            EXPECT_TRUE(busy.insert(pair.first).second && busy.insert(pair.second).second) << "rank twice in a round";
            ring.insert({pair.first, pair.second});
        }
    }
    EXPECT_EQ(ring, (std::set<std::pair<int, int>>{{0, 2}, {2, 3}, {3, 0}}));
}

TEST(Pairs, OneRankOnOneNodeHasNoPairs) { EXPECT_TRUE(comm::local_then_ring_rounds(nodes_of({0})).empty()); }

TEST(Pairs, EveryPairOnceWithEachRankInOnePairPerRound) {
    for (const int members : {2, 3, 4, 5, 8}) {
        const comm::PairRounds rounds = comm::every_pair_rounds(members);
        EXPECT_EQ(rounds.size(), static_cast<std::size_t>(members % 2 == 0 ? members - 1 : members)) << members;
        std::set<std::pair<int, int>> seen;
        for (const auto& round : rounds) {
            std::set<int> busy;
            for (const comm::RankPair& pair : round) {
                EXPECT_LT(pair.first, pair.second);
                EXPECT_TRUE(busy.insert(pair.first).second && busy.insert(pair.second).second) << "a rank twice in a round";
                EXPECT_TRUE(seen.insert({pair.first, pair.second}).second) << "a pair twice";
            }
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(members * (members - 1) / 2)) << members;
    }
    EXPECT_TRUE(comm::every_pair_rounds(1).empty());
}

TEST(Pairs, PairListInWorldRanks) {
    const auto placement = nodes_of({0, 0, 1, 1});
    const auto rounds = comm::parse_pair_list({"0-1", " 2-3", "1-2"}, placement, 4);
    ASSERT_EQ(rounds.size(), 3u);
    EXPECT_TRUE(rounds[0][0].intra_node);
    EXPECT_FALSE(rounds[2][0].intra_node);
    EXPECT_EQ(comm::describe_rounds(rounds, placement), "0-1 (intra-node), 2-3 (intra-node), 1-2 (inter-node)");
}

TEST(Pairs, BadPairListsAreInputErrors) {
    const auto placement = nodes_of({0, 0});
    EXPECT_EQ(input_error_of([&] { comm::parse_pair_list({"0-7"}, placement, 2); }),
              "pair '0-7' in parameter 'pairs' names rank 7, but the job has ranks 0..1");
    EXPECT_NE(input_error_of([&] { comm::parse_pair_list({"0:1"}, placement, 2); }).find("not of the form A-B"),
              std::string::npos);
    EXPECT_NE(input_error_of([&] { comm::parse_pair_list({"1-1"}, placement, 2); }).find("with itself"), std::string::npos);
    EXPECT_NE(input_error_of([&] { comm::parse_pair_list({}, placement, 2); }).find("names no pair"), std::string::npos);
}

TEST(Sizes, SweepDoublesUpToTheMaximum) {
    EXPECT_EQ(comm::size_sweep(1, 16, 2), (std::vector<std::size_t>{1, 2, 4, 8, 16}));
    EXPECT_EQ(comm::size_sweep(3, 20, 4), (std::vector<std::size_t>{3, 12, 20}));
    EXPECT_EQ(comm::size_sweep(8, 8, 2), (std::vector<std::size_t>{8}));
}

TEST(Sizes, UpsideDownRangeIsAnInputError) {
    EXPECT_EQ(input_error_of([] { comm::size_sweep(4096, 8, 2); }),
              "size range is upside down: min_bytes 4096 > max_bytes 8");
    EXPECT_NE(input_error_of([] { comm::size_sweep(1, 8, 1); }).find("factor"), std::string::npos);
}

TEST(Payload, PatternDependsOnSeedAndCatchesAFlippedByte) {
    std::vector<std::byte> buffer(100);
    comm::fill_payload(buffer, comm::payload_seed(3, 100));
    EXPECT_FALSE(comm::first_mismatch(buffer, comm::payload_seed(3, 100)).has_value());
    EXPECT_TRUE(comm::first_mismatch(buffer, comm::payload_seed(4, 100)).has_value());  // stale iteration
    EXPECT_TRUE(comm::first_mismatch(buffer, comm::payload_seed(3, 101)).has_value());  // other size
    comm::flip_one_byte(buffer);
    EXPECT_EQ(comm::first_mismatch(buffer, comm::payload_seed(3, 100)), std::optional<std::size_t>(50));
}

}  // namespace
}  // namespace shakedown::mpi
