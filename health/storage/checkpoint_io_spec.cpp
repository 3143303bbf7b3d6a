#include "health/specs.hpp"
#include "health/storage/checkpoint_io_names.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

namespace shakedown::health {
namespace {

namespace names = checkpoint_io_names;

void check_checkpoint_io(const TestParams& params, int /*world_size*/) {
    for (const char* name : {"block_kib", "sample_kib"}) {
        const std::int64_t kib = params.integer(name);
        if (kib % 4 != 0) throw InputError(fmt::format("checkpoint_io: {} must be a multiple of 4, not {}", name, kib));
    }
    const std::int64_t shard_mib = params.integer("shard_mib");
    const std::int64_t block_kib = params.integer("block_kib");
    if (shard_mib * 1024 % block_kib != 0)
        throw InputError(fmt::format("checkpoint_io: shard_mib={} is not a whole number of {} KiB blocks", shard_mib, block_kib));
}

MetricSpec metric(std::string_view name, const char* unit, Better better, const char* description,
                  MetricScope scope = MetricScope::rank) {
    return {std::string(name), unit, better, description, scope};
}

}  // namespace

const TestSpec& checkpoint_io_spec() {
    static const TestSpec spec{
        .key = std::string(names::key),
        .description = "Checkpoint save and restore with every rank writing its shard at once, then many small "
                       "sample files read in a shuffled order (training input); GB/s per rank, node and job, "
                       "latency percentiles, every byte validated",
        .suites = {"full"},
        .parameters =
            {
                ParamSpec::text("target", automatic, "folder to test; must exist and be writable").allow_auto("the current directory"),
                ParamSpec::integer("shard_mib", 1024, "checkpoint shard per rank in MiB (the job's checkpoint is this x ranks)")
                    .between(1, 1 << 24),
                ParamSpec::integer("block_kib", 1024, "transfer size of the shard's writes and reads in KiB (multiple of 4)")
                    .between(4, 1 << 20),
                ParamSpec::integer("sample_files", 512, "small files per rank, written then read in a shuffled order")
                    .between(1, 1 << 20),
                ParamSpec::integer("sample_kib", 128, "size of each sample file in KiB (multiple of 4)").between(4, 1 << 20),
                ParamSpec::flag("direct", true, "use O_DIRECT where the file system allows it"),
            },
        .metrics =
            {
                metric(names::save_gbs, "GB/s", Better::higher, "this rank's shard written and fsync'ed, every rank at once"),
                metric(names::restore_gbs, "GB/s", Better::higher, "this rank's shard read back, every rank at once"),
                metric(names::sample_write_p50_us, "us", Better::lower, "one sample file created, written, fsync'ed, closed"),
                metric(names::sample_write_p99_us, "us", Better::lower, "one sample file created, written, fsync'ed, closed"),
                metric(names::sample_read_p50_us, "us", Better::lower, "one sample file opened, read whole, closed"),
                metric(names::sample_read_p99_us, "us", Better::lower, "one sample file opened, read whole, closed"),
                metric(names::sample_writes_per_s, "files/s", Better::higher, "this rank's sample files written per second"),
                metric(names::sample_reads_per_s, "files/s", Better::higher, "this rank's sample files read per second"),
                metric(names::node_save_s, "s", Better::lower, "the node's shards saved: its slowest rank's time"),
                metric(names::node_restore_s, "s", Better::lower, "the node's shards restored: its slowest rank's time"),
                metric(names::node_save_gbs, "GB/s", Better::higher, "the node's shards over its slowest rank's save time"),
                metric(names::node_restore_gbs, "GB/s", Better::higher, "the node's shards over its slowest rank's restore time"),
                metric(names::job_save_s, "s", Better::lower, "the whole checkpoint saved: the slowest rank's time", MetricScope::job),
                metric(names::job_restore_s, "s", Better::lower, "the whole checkpoint restored: the slowest rank's time",
                       MetricScope::job),
                metric(names::job_save_gbs, "GB/s", Better::higher, "the checkpoint over the slowest rank's save time",
                       MetricScope::job),
                metric(names::job_restore_gbs, "GB/s", Better::higher, "the checkpoint over the slowest rank's restore time",
                       MetricScope::job),
                metric(names::job_sample_read_gbs, "GB/s", Better::higher, "every rank's sample files over the slowest rank's read time",
                       MetricScope::job),
                metric(names::job_sample_reads_per_s, "files/s", Better::higher, "every rank's sample files over the slowest rank's read time",
                       MetricScope::job),
            },
        .samples = {{std::string(names::phase_column), "0=save,1=restore,2=sample_write,3=sample_read"},
                    {std::string(names::seconds_column), "s"},
                    {std::string(names::bytes_column), "B"}},
        .default_deadline_s = 1800.0,
        .check_parameters = check_checkpoint_io,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(checkpoint_io_spec);

}  // namespace shakedown::health
