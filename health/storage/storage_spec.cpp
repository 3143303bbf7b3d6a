#include "health/specs.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

namespace shakedown::health {
namespace {

void check_storage(const TestParams& params, int /*world_size*/) {
    const std::int64_t block_kib = params.integer("block_kib");
    if (block_kib % 4 != 0) throw InputError(fmt::format("storage: block_kib must be a multiple of 4, not {}", block_kib));
    const std::int64_t size_mib = params.integer("size_mib");
    if (size_mib * 1024 % block_kib != 0)
        throw InputError(fmt::format("storage: size_mib={} is not a whole number of {} KiB blocks", size_mib, block_kib));
}

}  // namespace

const TestSpec& storage_spec() {
    static const TestSpec spec{
        .key = "storage",
        .description = "Sequential write/read GB/s and random 4 KiB read IOPS on a folder, per node and all nodes at once, validated",
        .suites = {"quick", "full"},
        .parameters =
            {
                ParamSpec::text("target", automatic, "folder to test; must exist and be writable").allow_auto("the current directory"),
                ParamSpec::integer("size_mib", 4096, "file size per node in MiB").between(1, 1 << 24).in_suite("quick", 256),
                ParamSpec::integer("block_kib", 1024, "sequential transfer size in KiB (multiple of 4)").between(4, 1 << 20),
                ParamSpec::real("random_s", 5.0, "seconds of random 4 KiB reads").above(0).at_most(86400).in_suite("quick", 1.0),
                ParamSpec::flag("direct", true, "use O_DIRECT where the file system allows it"),
                ParamSpec::flag("all_nodes", true, "after the per-node phase, every node at once"),
            },
        .metrics =
            {
                {"storage.{write_gbs,read_gbs,all_nodes_write_gbs,all_nodes_read_gbs}", "GB/s", Better::higher,
                 "sequential rate of this node alone, and of every node at once"},
                {"storage.{random_read_iops,all_nodes_random_read_iops}", "IOPS", Better::higher, "random 4 KiB reads"},
            },
        .samples = {{"phase", "0=alone,1=all_nodes"}, {"write_gbs", "GB/s"}, {"read_gbs", "GB/s"}, {"random_read_iops", "IOPS"}, {"bytes", "B"}},
        .check_parameters = check_storage,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(storage_spec);

}  // namespace shakedown::health
