#include "ib/specs.hpp"

#include "comm/pairs.hpp"

namespace shakedown::ib {

std::vector<ParamSpec> endpoint_parameters() {
    return {
        ParamSpec::text("device", automatic, "RDMA device (e.g. mlx5_0)")
            .allow_auto("the HCA nearest the rank's GPU or CPU"),
        ParamSpec::integer("port", automatic, "HCA port").allow_auto("the first ACTIVE port").between(1, 255),
        ParamSpec::integer("gid_index", automatic, "GID table index")
            .allow_auto("LID routing on InfiniBand, a RoCE v2 GID on Ethernet")
            .between(0, 65535),
    };
}

void check_named_pairs(const TestParams& params, int world_size) {
    if (!params.is_auto("pairs"))
        (void)comm::parse_pair_list(params.names("pairs"), comm::every_rank_apart(world_size), world_size);
}

}  // namespace shakedown::ib
