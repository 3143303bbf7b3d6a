#include "mpi/congestion/congestion_ring.hpp"

#include "comm/payload.hpp"
#include "core/planted_delay.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <span>
#include <utility>

namespace shakedown::mpi {
namespace {

constexpr int to_next_tag = 0x7270;
constexpr int to_previous_tag = 0x7271;
constexpr int stream_tag = 0x7272;

constexpr std::string_view phase_name(int phase) { return phase == 0 ? "baseline" : "congested"; }

// One seed per message: phase, sender, kind (latency to next / to previous / bandwidth slot) and
// iteration all differ, so a message from another phase, rank or iteration never validates.
// The ring is folded in through a multiplicative hash, as the key's bits are taken.
std::uint64_t message_seed(int phase, int ring, int sender_world, std::uint64_t slot, std::uint64_t iteration,
                           std::size_t bytes) {
    const std::uint64_t key = (static_cast<std::uint64_t>(phase) << 60) ^ (static_cast<std::uint64_t>(sender_world) << 36) ^
                              (slot << 24) ^ iteration ^ (static_cast<std::uint64_t>(ring + 1) * 0x9E3779B97F4A7C15ULL);
    return comm::payload_seed(key, bytes);
}

class Checker {
public:
    Checker(const RingPlace& place, int phase, int ring, bool corrupt)
        : place_(place), phase_(phase), ring_(ring), corrupt_pending_(corrupt) {}

    // `slot` 0: the latency message to next, 1: to previous, 2 + w: bandwidth message w.
    void check(std::span<std::byte> received, int from_world, std::uint64_t slot, int iteration, std::string_view what) {
        if (corrupt_pending_ && slot >= 2) {
            comm::flip_one_byte(received);
            corrupt_pending_ = false;
        }
        if (first_) return;
        const auto seed =
            message_seed(phase_, ring_, from_world, slot, static_cast<std::uint64_t>(iteration), received.size());
        if (const auto index = comm::first_mismatch(received, seed))
            first_ = fmt::format("payload mismatch on the link {} -> {} ({} phase, ring {}, {} {} B, iteration {}, byte {})",
                                 from_world, place_.me_world, phase_name(phase_), ring_ + 1, what, received.size(),
                                 iteration, *index);
    }
    std::optional<std::string> take() { return std::move(first_); }

private:
    RingPlace place_;
    int phase_;
    int ring_;
    bool corrupt_pending_;
    std::optional<std::string> first_;
};

void latency(MPI_Comm comm, const RingPlace& p, const RingSpec& spec, int phase, int ring, double delay_s, Checker& checker,
             PhaseFigures& figures) {
    const auto bytes = spec.latency_bytes;
    const int count = static_cast<int>(bytes);
    std::vector<std::byte> to_next(bytes), to_previous(bytes), from_previous(bytes), from_next(bytes);
    std::vector<double> times_us;
    for (int step = 0; step < spec.latency_warmup + spec.latency_iterations; ++step) {
        comm::fill_payload(to_next, message_seed(phase, ring, p.me_world, 0, static_cast<std::uint64_t>(step), bytes));
        comm::fill_payload(to_previous, message_seed(phase, ring, p.me_world, 1, static_cast<std::uint64_t>(step), bytes));
        MPI_Request requests[4];
        MPI_Barrier(comm);  // every iteration starts together: no lag carried around the ring
        MPI_Irecv(from_previous.data(), count, MPI_BYTE, p.previous, to_next_tag, comm, &requests[0]);
        MPI_Irecv(from_next.data(), count, MPI_BYTE, p.next, to_previous_tag, comm, &requests[1]);
        const double start = MPI_Wtime();
        planted_delay(delay_s);
        MPI_Isend(to_next.data(), count, MPI_BYTE, p.next, to_next_tag, comm, &requests[2]);
        MPI_Isend(to_previous.data(), count, MPI_BYTE, p.previous, to_previous_tag, comm, &requests[3]);
        MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
        const double elapsed = MPI_Wtime() - start;
        if (step >= spec.latency_warmup) times_us.push_back(elapsed * 1e6);
        checker.check(from_previous, p.previous_world, 0, step, "latency message");
        checker.check(from_next, p.next_world, 1, step, "latency message");
    }
    figures.latency_p50_us = stats::median(times_us);
    figures.latency_p99_us = stats::percentile(times_us, 0.99);
}

// Separate receive buffers per window slot, so that every message can be checked.
void bandwidth(MPI_Comm comm, const RingPlace& p, const RingSpec& spec, int phase, int ring, double delay_s,
               Checker& checker, PhaseFigures& figures) {
    const auto bytes = spec.bandwidth_bytes;
    const int count = static_cast<int>(bytes);
    const auto window = static_cast<std::size_t>(spec.bandwidth_window);
    std::vector<std::vector<std::byte>> out(window, std::vector<std::byte>(bytes)), in(out);
    std::vector<MPI_Request> requests(2 * window);
    std::vector<double> rates_gbs;
    for (int step = 0; step < spec.bandwidth_warmup + spec.bandwidth_iterations; ++step) {
        for (std::size_t w = 0; w < window; ++w)
            comm::fill_payload(out[w],
                               message_seed(phase, ring, p.me_world, 2 + w, static_cast<std::uint64_t>(step), bytes));
        MPI_Barrier(comm);
        for (std::size_t w = 0; w < window; ++w)
            MPI_Irecv(in[w].data(), count, MPI_BYTE, p.previous, stream_tag, comm, &requests[w]);
        const double start = MPI_Wtime();
        planted_delay(delay_s);
        for (std::size_t w = 0; w < window; ++w)
            MPI_Isend(out[w].data(), count, MPI_BYTE, p.next, stream_tag, comm, &requests[window + w]);
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
        const double elapsed = MPI_Wtime() - start;
        if (step >= spec.bandwidth_warmup) rates_gbs.push_back(static_cast<double>(bytes * window) / elapsed / 1e9);
        for (std::size_t w = 0; w < window; ++w)
            checker.check(in[w], p.previous_world, 2 + w, step, fmt::format("bandwidth message {} of {}", w + 1, window));
    }
    figures.bandwidth_gbs = stats::median(rates_gbs);
}

}  // namespace

std::vector<int> random_ring(int size, std::uint64_t seed) {
    std::vector<int> ring(static_cast<std::size_t>(size));
    std::iota(ring.begin(), ring.end(), 0);
    std::mt19937_64 generator(seed);
    std::shuffle(ring.begin(), ring.end(), generator);  // one binary on every rank: the same order
    return ring;
}

namespace {

// Every rank's unordered pair of neighbours, by rank: what makes two rings the same.
std::vector<std::pair<int, int>> neighbour_pairs(const std::vector<int>& ring) {
    const auto size = ring.size();
    std::vector<std::pair<int, int>> pairs(size);
    for (std::size_t i = 0; i < size; ++i) {
        const int a = ring[(i + size - 1) % size], b = ring[(i + 1) % size];
        pairs[static_cast<std::size_t>(ring[i])] = std::minmax(a, b);
    }
    return pairs;
}

}  // namespace

std::vector<std::vector<int>> random_rings(int size, std::uint64_t seed, int count) {
    constexpr int draws_per_ring = 16;
    std::vector<std::vector<int>> rings;
    std::vector<std::vector<std::pair<int, int>>> seen;
    std::uint64_t next_seed = seed;
    for (int k = 0; k < count; ++k) {
        std::vector<int> ring;
        std::vector<std::pair<int, int>> pairs;
        for (int draw = 0; draw < draws_per_ring; ++draw) {
            ring = random_ring(size, next_seed++);
            pairs = neighbour_pairs(ring);
            if (std::find(seen.begin(), seen.end(), pairs) == seen.end()) break;
        }
        seen.push_back(std::move(pairs));
        rings.push_back(std::move(ring));
    }
    return rings;
}

RingPlace ring_place(const std::vector<int>& ring, int me, const std::vector<int>& world_of) {
    const auto size = ring.size();
    const auto position = static_cast<std::size_t>(std::find(ring.begin(), ring.end(), me) - ring.begin());
    RingPlace place;
    place.next = ring[(position + 1) % size];
    place.previous = ring[(position + size - 1) % size];
    place.next_world = world_of[static_cast<std::size_t>(place.next)];
    place.previous_world = world_of[static_cast<std::size_t>(place.previous)];
    place.me_world = world_of[static_cast<std::size_t>(me)];
    return place;
}

PhaseFigures measure_ring_phase(MPI_Comm measuring, const RingPlace& place, const RingSpec& spec, int phase, int ring,
                                const PhaseFaults& faults) {
    Checker checker(place, phase, ring, faults.corrupt);
    PhaseFigures figures;
    latency(measuring, place, spec, phase, ring, faults.delay_s, checker, figures);
    bandwidth(measuring, place, spec, phase, ring, faults.delay_s, checker, figures);
    figures.mismatch = checker.take();
    return figures;
}

}  // namespace shakedown::mpi
