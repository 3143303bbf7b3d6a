#include "comm/pairs.hpp"

#include "core/errors.hpp"
#include "core/params.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <string_view>

namespace shakedown::comm {
namespace {

int parse_rank(std::string_view text, std::string_view item) {
    int value = -1;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || ptr != end || value < 0)
        throw InputError(fmt::format("pair '{}' in parameter 'pairs' is not of the form A-B with rank numbers", item));
    return value;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    return text;
}

}  // namespace

std::vector<RankPlacement> gather_placement(MPI_Comm comm, const Session& session) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    const int mine[2] = {session.world_rank(), session.identity().node_index};
    std::vector<int> all(static_cast<std::size_t>(2 * size));
    MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm);
    std::vector<RankPlacement> placement(static_cast<std::size_t>(size));
    for (std::size_t i = 0; i < placement.size(); ++i) placement[i] = {all[2 * i], all[2 * i + 1]};
    return placement;
}

PairRounds every_pair_rounds(int members) {
    PairRounds rounds;
    if (members < 2) return rounds;
    // An odd count gets a stand-in member; whoever meets it sits that round out.
    const int slots = members + members % 2;
    const int turning = slots - 1;  // every slot but the last turns around the circle
    for (int round = 0; round < turning; ++round) {
        std::vector<RankPair> pairs;
        auto add = [&](int a, int b) {
            if (a >= members || b >= members) return;
            pairs.push_back({std::min(a, b), std::max(a, b), false});
        };
        add(round, slots - 1);
        for (int step = 1; step < slots / 2; ++step) add((round + step) % turning, (round - step + turning) % turning);
        rounds.push_back(std::move(pairs));
    }
    return rounds;
}

PairRounds pack_into_rounds(const std::vector<RankPair>& pairs) {
    PairRounds rounds;
    std::vector<std::set<int>> busy;
    for (const auto& pair : pairs) {
        std::size_t round = 0;
        while (round < rounds.size() && (busy[round].count(pair.first) || busy[round].count(pair.second))) ++round;
        if (round == rounds.size()) {
            rounds.emplace_back();
            busy.emplace_back();
        }
        rounds[round].push_back(pair);
        busy[round].insert({pair.first, pair.second});
    }
    return rounds;
}

PairRounds local_then_ring_rounds(const std::vector<RankPlacement>& placement) {
    std::map<int, std::vector<int>> ranks_by_node;  // ordered by node index, ranks ascending
    for (std::size_t rank = 0; rank < placement.size(); ++rank)
        ranks_by_node[placement[rank].node_index].push_back(static_cast<int>(rank));

    PairRounds rounds;
    std::vector<RankPair> local;
    std::vector<int> representatives;
    for (const auto& [node, ranks] : ranks_by_node) {
        representatives.push_back(ranks.front());
        if (ranks.size() >= 2) local.push_back({ranks[0], ranks[1], true});
    }
    if (!local.empty()) rounds.push_back(local);  // different nodes: no interference

    const auto nodes = representatives.size();
    std::vector<RankPair> ring;
    for (std::size_t i = 0; i + 1 < nodes; ++i) ring.push_back({representatives[i], representatives[i + 1], false});
    if (nodes > 2) ring.push_back({representatives[nodes - 1], representatives[0], false});
    for (auto& round : pack_into_rounds(ring)) rounds.push_back(std::move(round));
    return rounds;
}

PairRounds parse_pair_list(const std::vector<std::string>& pairs, const std::vector<RankPlacement>& placement,
                           int world_size) {
    std::map<int, int> comm_rank_of_world;
    for (std::size_t rank = 0; rank < placement.size(); ++rank)
        comm_rank_of_world[placement[rank].world_rank] = static_cast<int>(rank);

    PairRounds rounds;
    for (const std::string& text : pairs) {
        const std::string_view item = trim(text);
        const auto dash = item.find('-');
        if (dash == std::string_view::npos)
            throw InputError(fmt::format("pair '{}' in parameter 'pairs' is not of the form A-B", item));
        const int a = parse_rank(trim(item.substr(0, dash)), item);
        const int b = parse_rank(trim(item.substr(dash + 1)), item);
        for (const int rank : {a, b}) {
            if (rank >= world_size)
                throw InputError(fmt::format("pair '{}' in parameter 'pairs' names rank {}, but the job has ranks 0..{}",
                                             item, rank, world_size - 1));
            if (!comm_rank_of_world.count(rank))
                throw InputError(fmt::format("pair '{}' in parameter 'pairs' names rank {}, which waived this test", item, rank));
        }
        if (a == b) throw InputError(fmt::format("pair '{}' in parameter 'pairs' pairs a rank with itself", item));
        const int first = comm_rank_of_world[a];
        const int second = comm_rank_of_world[b];
        rounds.push_back({{first, second, placement[first].node_index == placement[second].node_index}});
    }
    if (rounds.empty()) throw InputError("parameter 'pairs' names no pair (expected e.g. [0-1, 2-3])");
    return rounds;
}

std::vector<RankPlacement> every_rank_apart(int world_size) {
    std::vector<RankPlacement> everyone(static_cast<std::size_t>(world_size));
    for (int rank = 0; rank < world_size; ++rank) everyone[static_cast<std::size_t>(rank)] = {rank, rank};
    return everyone;
}

PairRounds pairs_or_default(const TestParams& params, const std::vector<RankPlacement>& placement, int world_size,
                            const std::function<PairRounds(const std::vector<RankPlacement>&)>& default_rounds) {
    if (params.is_auto("pairs")) return default_rounds(placement);
    return parse_pair_list(params.names("pairs"), placement, world_size);
}

ParamSpec pairs_parameter(const std::string& automatic_pairs) {
    ParamSpec spec = ParamSpec::names("pairs", {}, {}, "world-rank pairs such as [0-1, 2-3], each measured alone");
    spec.default_value = automatic;
    return spec.allow_auto(automatic_pairs);
}

std::string describe_rounds(const PairRounds& rounds, const std::vector<RankPlacement>& placement) {
    std::string text;
    for (const auto& round : rounds)
        for (const auto& pair : round)
            text += fmt::format("{}{}-{} ({})", text.empty() ? "" : ", ", placement[pair.first].world_rank,
                                placement[pair.second].world_rank, pair.intra_node ? "intra-node" : "inter-node");
    return text.empty() ? "none" : text;
}

std::optional<MyRole> role_in(const std::vector<RankPair>& round, int my_rank) {
    for (const auto& pair : round) {
        if (pair.first == my_rank) return MyRole{pair, pair.second, true};
        if (pair.second == my_rank) return MyRole{pair, pair.first, false};
    }
    return std::nullopt;
}

}  // namespace shakedown::comm
