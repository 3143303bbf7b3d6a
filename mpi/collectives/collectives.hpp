// The MPI collectives mpi_coll measures, as a table: each knows its nccl-tests bus-bandwidth
// factor, how to lay out buffers for a message size, how to run once, and how to count the
// wrong elements of its result. Inputs are built so the exact result is known: rank r's
// element i is a small integer function of (r, i), so sums are exact in double.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::mpi {

struct WrongElements {
    std::size_t count = 0;
    std::size_t checked = 0;
    std::string first;  // "index 64: got 3, expected 5", empty when none
};

class Collective {
public:
    virtual ~Collective() = default;
    virtual std::string_view name() const = 0;
    virtual double bus_factor(int ranks) const = 0;   // busbw = algbw x factor (nccl-tests)
    virtual bool moves_data() const { return true; }  // barrier does not

    // Lays out and fills the buffers for a message of `bytes` (nccl-tests' "size": the
    // reduced buffer, the gathered result, the scattered input, one rank's alltoall input).
    // Returns the bytes actually used (rounded to whole elements per rank).
    virtual std::size_t prepare(std::size_t bytes, MPI_Comm comm) = 0;
    virtual void run(MPI_Comm comm) = 0;
    virtual WrongElements check(bool plant_corruption) = 0;
};

// Throws InputError naming the known collectives when `name` is not one of them.
std::unique_ptr<Collective> make_collective(std::string_view name);

}  // namespace shakedown::mpi
