// The look-ahead LU's schedule (kernels/lu/lookahead_lu.cpp) run through the host operations:
// the same factors and pivots as LAPACK's dgetrf, a solve within HPL's residual limit, and a
// planted wrong pivot caught. A recording wrapper checks the schedule the GPU runs on two
// streams: every pair of operations on different lanes that touch the same data is ordered by
// an event, and the next panel is factored while the trailing matrix is updated.
#include "kernels/lu/lookahead_lu.hpp"
#include "kernels/lu/lookahead_lu_host.hpp"
#include "kernels/lu/lu_math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

namespace shakedown::kernels::lu {
namespace {

constexpr std::uint64_t seed = 17;

std::vector<double> random_matrix(int n) {
    std::vector<double> a(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            a[static_cast<std::size_t>(j) * static_cast<std::size_t>(n) + static_cast<std::size_t>(i)] =
                input_entry(seed, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j), static_cast<std::uint64_t>(n));
    return a;
}

struct Factors {
    std::vector<double> lu;
    std::vector<int> pivots;
    int info = 0;
};

Factors lookahead(int n, int block) {
    Factors f{random_matrix(n), std::vector<int>(static_cast<std::size_t>(n), 0), 0};
    HostLuOperations ops(f.lu.data(), n, n, f.pivots.data());
    factor_lookahead(ops, n, block);
    f.info = ops.info();
    return f;
}

Factors reference(int n) {
    Factors f{random_matrix(n), std::vector<int>(static_cast<std::size_t>(n), 0), 0};
    f.info = lapack_getrf(n, f.lu.data(), n, f.pivots.data());
    return f;
}

double max_abs(const std::vector<double>& v) {
    double m = 0.0;
    for (double x : v) m = std::max(m, std::fabs(x));
    return m;
}

// HPL's scaled residual of the solve of A x = b (b column n of the generator) from the factors.
double solve_residual(int n, const Factors& f) {
    const std::vector<double> a = random_matrix(n);
    std::vector<double> b(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        b[static_cast<std::size_t>(i)] =
            input_entry(seed, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n));
    std::vector<double> x = b;
    EXPECT_EQ(lapack_getrs(n, f.lu.data(), n, f.pivots.data(), x.data()), 0);
    double residual = 0.0, matrix = 0.0;
    for (int i = 0; i < n; ++i) {
        double r = -b[static_cast<std::size_t>(i)], row = 0.0;
        for (int j = 0; j < n; ++j) {
            const double aij = a[static_cast<std::size_t>(j) * static_cast<std::size_t>(n) + static_cast<std::size_t>(i)];
            r += aij * x[static_cast<std::size_t>(j)];
            row += std::fabs(aij);
        }
        residual = std::max(residual, std::fabs(r));
        matrix = std::max(matrix, row);
    }
    return scaled_residual(residual, matrix, max_abs(x), max_abs(b), n);
}

class LookaheadLu : public testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(LookaheadLu, MatchesLapackGetrfAndSolvesWithinHplsLimit) {
    const auto [n, block] = GetParam();
    const Factors mine = lookahead(n, block);
    const Factors lapack = reference(n);
    EXPECT_EQ(mine.info, 0);
    EXPECT_EQ(lapack.info, 0);
    EXPECT_EQ(mine.pivots, lapack.pivots);
    double diff = 0.0;
    for (std::size_t k = 0; k < mine.lu.size(); ++k) diff = std::max(diff, std::fabs(mine.lu[k] - lapack.lu[k]));
    EXPECT_LE(diff, 1e-12 * max_abs(lapack.lu)) << "max |LU - LU_lapack| " << diff;
    EXPECT_LT(solve_residual(n, mine), residual_limit);
}

INSTANTIATE_TEST_SUITE_P(SizesAndBlocks, LookaheadLu,
                         testing::Combine(testing::Values(1, 7, 64, 100, 257, 1000), testing::Values(1, 16, 64, 128)),
                         [](const testing::TestParamInfo<std::tuple<int, int>>& info) {
                             return "n" + std::to_string(std::get<0>(info.param)) + "_nb" +
                                    std::to_string(std::get<1>(info.param));
                         });

TEST(LookaheadLuFault, OneSwappedPivotIsCaught) {
    const int n = 257;
    Factors planted = lookahead(n, 64);
    ASSERT_LT(solve_residual(n, planted), residual_limit);  // healthy before the fault
    // Row 100's interchange goes to another row than the factorization chose.
    planted.pivots[100] = planted.pivots[100] == n ? 101 : n;
    EXPECT_NE(planted.pivots, reference(n).pivots);
    EXPECT_GE(solve_residual(n, planted), residual_limit);
}

TEST(LookaheadLuFault, ASingularMatrixReportsGetrfsInfo) {
    const int n = 100;
    Factors f{random_matrix(n), std::vector<int>(static_cast<std::size_t>(n), 0), 0};
    for (int i = 0; i < n; ++i) f.lu[static_cast<std::size_t>(70) * n + static_cast<std::size_t>(i)] = 0.0;  // column 70 zero
    HostLuOperations ops(f.lu.data(), n, n, f.pivots.data());
    factor_lookahead(ops, n, 16);
    EXPECT_EQ(ops.info(), 71);
}

// --- the two-lane schedule ---------------------------------------------------------------
// Each operation's footprint as rectangles (rows x columns of the matrix, or a range of the
// pivot vector); lanes ordered by vector clocks, as events order CUDA streams.
struct Box {
    bool pivots = false;  // the pivot vector (rows = indices) rather than the matrix
    int row_begin, row_end, column_begin, column_end;
    bool writes;
};

bool overlap(const Box& a, const Box& b) {
    if (a.pivots != b.pivots) return false;
    const bool rows = a.row_begin < b.row_end && b.row_begin < a.row_end;
    const bool columns = a.pivots || (a.column_begin < b.column_end && b.column_begin < a.column_end);
    return rows && columns && (a.writes || b.writes);
}

struct Recorded {
    std::string what;
    Lane lane;
    std::array<int, 2> clock;  // the lanes' counts when it was issued (its own included)
    std::vector<Box> boxes;
};

class RecordingOperations final : public LuOperations {
public:
    RecordingOperations(LuOperations& inner, int n) : inner_(inner), n_(n) {}

    void factor_panel(Lane lane, int first, int width) override {
        inner_.factor_panel(lane, first, width);
        add("factor_panel", lane, {{false, first, n_, first, first + width, true}, {true, first, first + width, 0, 0, true}});
    }
    void swap_rows(Lane lane, int first, int width, int column_begin, int column_end) override {
        inner_.swap_rows(lane, first, width, column_begin, column_end);
        add("swap_rows", lane,
            {{false, first, n_, column_begin, column_end, true}, {true, first, first + width, 0, 0, false}});
    }
    void solve_block_row(Lane lane, int first, int width, int column_begin, int column_end) override {
        inner_.solve_block_row(lane, first, width, column_begin, column_end);
        add("solve_block_row", lane,
            {{false, first, first + width, first, first + width, false},
             {false, first, first + width, column_begin, column_end, true}});
    }
    void update_trailing(Lane lane, int first, int width, int column_begin, int column_end) override {
        inner_.update_trailing(lane, first, width, column_begin, column_end);
        add("update_trailing", lane,
            {{false, first + width, n_, first, first + width, false},
             {false, first, first + width, column_begin, column_end, false},
             {false, first + width, n_, column_begin, column_end, true}});
    }
    void wait(Lane waiter, Lane signaller) override {
        inner_.wait(waiter, signaller);
        auto& w = clocks_[index(waiter)];
        const auto& s = clocks_[index(signaller)];
        for (int l = 0; l < 2; ++l) w[l] = std::max(w[l], s[l]);
    }

    // Operations on different lanes that touch the same data with no event between them.
    std::vector<std::string> races() const {
        std::vector<std::string> found;
        for (std::size_t a = 0; a < ops_.size(); ++a)
            for (std::size_t b = a + 1; b < ops_.size(); ++b) {
                if (ops_[a].lane == ops_[b].lane || ordered(ops_[a], ops_[b])) continue;
                for (const Box& x : ops_[a].boxes)
                    for (const Box& y : ops_[b].boxes)
                        if (overlap(x, y)) {
                            found.push_back(ops_[a].what + " #" + std::to_string(a) + " vs " + ops_[b].what + " #" +
                                            std::to_string(b));
                            goto next;
                        }
            next:;
            }
        return found;
    }
    // Whether everything issued is ordered before the update lane's next operation.
    bool joined_into_update() const {
        const auto& u = clocks_[index(Lane::update)];
        return std::all_of(ops_.begin(), ops_.end(), [&](const Recorded& r) { return r.clock[index(r.lane)] <= u[index(r.lane)]; });
    }
    // Panel factorizations that may run while a trailing update runs on the other lane.
    int overlapped_panels() const {
        int count = 0;
        for (const Recorded& p : ops_) {
            if (p.what != "factor_panel") continue;
            count += std::any_of(ops_.begin(), ops_.end(), [&](const Recorded& u) {
                return u.what == "update_trailing" && u.lane != p.lane && !ordered(u, p) && !ordered(p, u);
            });
        }
        return count;
    }

private:
    static int index(Lane lane) { return lane == Lane::update ? 0 : 1; }
    // `a` finished before `b` started: b's lane had seen a's count on a's lane.
    static bool ordered(const Recorded& a, const Recorded& b) { return a.clock[index(a.lane)] <= b.clock[index(a.lane)]; }

    void add(std::string what, Lane lane, std::vector<Box> boxes) {
        auto& clock = clocks_[index(lane)];
        ++clock[index(lane)];
        ops_.push_back({std::move(what), lane, clock, std::move(boxes)});
    }

    LuOperations& inner_;
    int n_;
    std::array<std::array<int, 2>, 2> clocks_{};
    std::vector<Recorded> ops_;
};

TEST(LookaheadLuSchedule, EveryCrossLaneConflictIsOrderedByAnEvent) {
    for (const int n : {1, 7, 64, 100, 257})
        for (const int block : {1, 16, 64, 128}) {
            Factors f{random_matrix(n), std::vector<int>(static_cast<std::size_t>(n), 0), 0};
            HostLuOperations host(f.lu.data(), n, n, f.pivots.data());
            RecordingOperations recording(host, n);
            factor_lookahead(recording, n, block);
            const std::vector<std::string> races = recording.races();
            EXPECT_TRUE(races.empty()) << "n " << n << " block " << block << ": " << races.size() << " races, first "
                                       << (races.empty() ? "" : races.front());
            EXPECT_TRUE(recording.joined_into_update()) << "n " << n << " block " << block;
            // Look-ahead: every panel after the first two overlaps a trailing update (panel k+1
            // beside the rest of step k's update, which exists once two panels follow).
            const int panels = (n + block - 1) / block;
            EXPECT_EQ(recording.overlapped_panels(), std::max(0, panels - 2)) << "n " << n << " block " << block;
        }
}

TEST(LookaheadLuSchedule, AMissingEventIsFound) {
    // The planted schedule: the update lane swaps panel 0's rows without waiting for the panel.
    const int n = 64;
    Factors f{random_matrix(n), std::vector<int>(static_cast<std::size_t>(n), 0), 0};
    HostLuOperations host(f.lu.data(), n, n, f.pivots.data());
    RecordingOperations recording(host, n);
    recording.factor_panel(Lane::panel, 0, 16);
    recording.swap_rows(Lane::update, 0, 16, 16, 64);
    EXPECT_EQ(recording.races().size(), 1u);
    EXPECT_FALSE(recording.joined_into_update());
    recording.wait(Lane::update, Lane::panel);
    EXPECT_TRUE(recording.joined_into_update());

    // And ordered by an event, the same two are not flagged.
    RecordingOperations healthy(host, n);
    healthy.factor_panel(Lane::panel, 0, 16);
    healthy.wait(Lane::update, Lane::panel);
    healthy.swap_rows(Lane::update, 0, 16, 16, 64);
    EXPECT_TRUE(healthy.races().empty());
}

}  // namespace
}  // namespace shakedown::kernels::lu
