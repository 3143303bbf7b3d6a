// Who and where this rank is, built once after MPI starts: the world, node-local and
// node-leader communicators, the node's name and index, the local rank and the bound GPU.
#pragma once

#include "core/activity.hpp"
#include "core/communicator.hpp"

#include <optional>
#include <string>

namespace shakedown {

struct NodeIdentity {
    std::string node_name;  // SLURMD_NODENAME when set, else the host name
    int node_index = 0;     // 0..node_count-1, ordered by the lowest world rank on each node
    int node_count = 1;
    int local_rank = 0;
    int local_size = 1;
    bool is_leader() const { return local_rank == 0; }
};

class Session {
public:
    // Collective over `world`. `visible_gpus` comes from the GPU runtime (0 without one).
    Session(MPI_Comm world, int visible_gpus);

    MPI_Comm world() const { return world_.get(); }
    MPI_Comm node() const { return node_.get(); }
    MPI_Comm leaders() const { return leaders_.get(); }  // MPI_COMM_NULL on non-leaders
    int world_rank() const { return world_rank_; }
    int world_size() const { return world_size_; }
    const NodeIdentity& identity() const { return identity_; }
    std::optional<int> gpu() const { return gpu_; }  // local rank modulo visible GPUs
    int visible_gpus() const { return visible_gpus_; }

    // Collective over the node: which ranks are bound to the same physical GPU. `gpu_identity`
    // names this rank's GPU (its UUID, so per-rank CUDA_VISIBLE_DEVICES cannot fool it; "" when
    // unknown: the ordinal stands for it). The lowest world rank bound to a GPU owns it.
    void record_gpu_identity(const std::string& gpu_identity);
    // The world rank that owns this rank's GPU (itself when it is the owner); nothing without a
    // GPU. Before record_gpu_identity: this rank.
    std::optional<int> gpu_owner() const;
    // Physical GPUs the job measures (ranks owning one), job-wide; from record_gpu_identity
    // (collective over the world), before it: 0.
    int gpus_measured() const { return gpus_measured_; }

    // What this rank is doing now (thread-safe): tests report their phase, the watchdog and the
    // termination handler read it. Reporting progress does not change who the rank is, so a
    // const session hands it out.
    Activity& activity() const { return activity_; }

private:
    Communicator world_;
    Communicator node_;
    Communicator leaders_;
    int world_rank_ = 0;
    int world_size_ = 1;
    NodeIdentity identity_;
    int visible_gpus_ = 0;
    std::optional<int> gpu_;
    int gpu_owner_ = 0;
    int gpus_measured_ = 0;
    mutable Activity activity_;
};

std::string this_node_name();  // SLURMD_NODENAME, else gethostname()

}  // namespace shakedown
