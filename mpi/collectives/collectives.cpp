#include "mpi/collectives/collectives.hpp"

#include "mpi/specs.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace shakedown::mpi {
namespace {

constexpr double sentinel = -1.0;  // never a valid result: every input is positive

// Rank r's element i: small positive integers, so any sum over ranks is exact.
double contribution(int rank, std::size_t index) { return static_cast<double>(rank + 1) + static_cast<double>(index % 251); }
double reduced(int ranks, std::size_t index) {
    return static_cast<double>(ranks) * (ranks + 1) / 2.0 + static_cast<double>(ranks) * static_cast<double>(index % 251);
}
// alltoall: what rank `from` sends to rank `to` at element i.
double addressed(int from, int to, std::size_t index) {
    return static_cast<double>(from) * 65536.0 + static_cast<double>(to) * 256.0 + static_cast<double>(index % 251);
}

struct Layout {
    int rank = 0;
    int ranks = 1;
};
Layout layout_of(MPI_Comm comm) {
    Layout l;
    MPI_Comm_rank(comm, &l.rank);
    MPI_Comm_size(comm, &l.ranks);
    return l;
}

std::size_t elements(std::size_t bytes, int parts) {
    return std::max<std::size_t>(1, bytes / sizeof(double) / static_cast<std::size_t>(parts));
}

// Counts the elements of `result` that differ from expected(i), planting one error first
// when asked.
template <typename Expected>
WrongElements count_wrong(std::vector<double>& result, bool plant_corruption, Expected expected) {
    if (plant_corruption && !result.empty()) result[result.size() / 2] += 1.0;
    WrongElements wrong;
    wrong.checked = result.size();
    for (std::size_t i = 0; i < result.size(); ++i) {
        const double want = expected(i);
        if (result[i] == want) continue;
        if (wrong.count++ == 0) wrong.first = fmt::format("index {}: got {}, expected {}", i, result[i], want);
    }
    return wrong;
}

class Allreduce final : public Collective {
public:
    std::string_view name() const override { return "allreduce"; }
    double bus_factor(int n) const override { return 2.0 * (n - 1) / n; }
    std::size_t prepare(std::size_t bytes, MPI_Comm comm) override {
        l_ = layout_of(comm);
        const auto count = elements(bytes, 1);
        send_.resize(count);
        for (std::size_t i = 0; i < count; ++i) send_[i] = contribution(l_.rank, i);
        receive_.assign(count, sentinel);
        return count * sizeof(double);
    }
    void run(MPI_Comm comm) override {
        MPI_Allreduce(send_.data(), receive_.data(), static_cast<int>(send_.size()), MPI_DOUBLE, MPI_SUM, comm);
    }
    WrongElements check(bool corrupt) override {
        return count_wrong(receive_, corrupt, [&](std::size_t i) { return reduced(l_.ranks, i); });
    }

private:
    Layout l_;
    std::vector<double> send_, receive_;
};

class Allgather final : public Collective {
public:
    std::string_view name() const override { return "allgather"; }
    double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
    std::size_t prepare(std::size_t bytes, MPI_Comm comm) override {
        l_ = layout_of(comm);
        per_rank_ = elements(bytes, l_.ranks);
        send_.resize(per_rank_);
        for (std::size_t i = 0; i < per_rank_; ++i) send_[i] = contribution(l_.rank, i);
        receive_.assign(per_rank_ * static_cast<std::size_t>(l_.ranks), sentinel);
        return receive_.size() * sizeof(double);
    }
    void run(MPI_Comm comm) override {
        const int count = static_cast<int>(per_rank_);
        MPI_Allgather(send_.data(), count, MPI_DOUBLE, receive_.data(), count, MPI_DOUBLE, comm);
    }
    WrongElements check(bool corrupt) override {
        return count_wrong(receive_, corrupt,
                           [&](std::size_t i) { return contribution(static_cast<int>(i / per_rank_), i % per_rank_); });
    }

private:
    Layout l_;
    std::size_t per_rank_ = 0;
    std::vector<double> send_, receive_;
};

class ReduceScatter final : public Collective {
public:
    std::string_view name() const override { return "reduce_scatter"; }
    double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
    std::size_t prepare(std::size_t bytes, MPI_Comm comm) override {
        l_ = layout_of(comm);
        per_rank_ = elements(bytes, l_.ranks);
        send_.resize(per_rank_ * static_cast<std::size_t>(l_.ranks));
        for (std::size_t i = 0; i < send_.size(); ++i) send_[i] = contribution(l_.rank, i);
        receive_.assign(per_rank_, sentinel);
        return send_.size() * sizeof(double);
    }
    void run(MPI_Comm comm) override {
        MPI_Reduce_scatter_block(send_.data(), receive_.data(), static_cast<int>(per_rank_), MPI_DOUBLE, MPI_SUM, comm);
    }
    WrongElements check(bool corrupt) override {
        const auto offset = static_cast<std::size_t>(l_.rank) * per_rank_;
        return count_wrong(receive_, corrupt, [&](std::size_t i) { return reduced(l_.ranks, offset + i); });
    }

private:
    Layout l_;
    std::size_t per_rank_ = 0;
    std::vector<double> send_, receive_;
};

class Alltoall final : public Collective {
public:
    std::string_view name() const override { return "alltoall"; }
    double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
    std::size_t prepare(std::size_t bytes, MPI_Comm comm) override {
        l_ = layout_of(comm);
        per_peer_ = elements(bytes, l_.ranks);
        send_.resize(per_peer_ * static_cast<std::size_t>(l_.ranks));
        for (std::size_t i = 0; i < send_.size(); ++i)
            send_[i] = addressed(l_.rank, static_cast<int>(i / per_peer_), i % per_peer_);
        receive_.assign(send_.size(), sentinel);
        return send_.size() * sizeof(double);
    }
    void run(MPI_Comm comm) override {
        const int count = static_cast<int>(per_peer_);
        MPI_Alltoall(send_.data(), count, MPI_DOUBLE, receive_.data(), count, MPI_DOUBLE, comm);
    }
    WrongElements check(bool corrupt) override {
        return count_wrong(receive_, corrupt, [&](std::size_t i) {
            return addressed(static_cast<int>(i / per_peer_), l_.rank, i % per_peer_);
        });
    }

private:
    Layout l_;
    std::size_t per_peer_ = 0;
    std::vector<double> send_, receive_;
};

class Bcast final : public Collective {
public:
    std::string_view name() const override { return "bcast"; }
    double bus_factor(int) const override { return 1.0; }
    std::size_t prepare(std::size_t bytes, MPI_Comm comm) override {
        l_ = layout_of(comm);
        const auto count = elements(bytes, 1);
        buffer_.assign(count, sentinel);
        if (l_.rank == root)
            for (std::size_t i = 0; i < count; ++i) buffer_[i] = contribution(root, i);
        return count * sizeof(double);
    }
    void run(MPI_Comm comm) override { MPI_Bcast(buffer_.data(), static_cast<int>(buffer_.size()), MPI_DOUBLE, root, comm); }
    WrongElements check(bool corrupt) override {
        return count_wrong(buffer_, corrupt, [](std::size_t i) { return contribution(root, i); });
    }

private:
    static constexpr int root = 0;
    Layout l_;
    std::vector<double> buffer_;
};

class Barrier final : public Collective {
public:
    std::string_view name() const override { return "barrier"; }
    double bus_factor(int) const override { return 0.0; }
    bool moves_data() const override { return false; }
    std::size_t prepare(std::size_t, MPI_Comm) override { return 0; }
    void run(MPI_Comm comm) override { MPI_Barrier(comm); }
    WrongElements check(bool) override { return {}; }
};

}  // namespace

std::unique_ptr<Collective> make_collective(std::string_view name) {
    if (name == "allreduce") return std::make_unique<Allreduce>();
    if (name == "allgather") return std::make_unique<Allgather>();
    if (name == "reduce_scatter") return std::make_unique<ReduceScatter>();
    if (name == "alltoall") return std::make_unique<Alltoall>();
    if (name == "bcast") return std::make_unique<Bcast>();
    if (name == "barrier") return std::make_unique<Barrier>();
    throw InputError(fmt::format("unknown collective '{}' in parameter 'collectives' (known: {})", name,
                                 fmt::join(mpi_collective_names, ", ")));
}

}  // namespace shakedown::mpi
