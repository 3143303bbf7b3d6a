// network_mtu and burnin pieces without MPI: the interface expectations, the cross-node
// outlier rule, the default route, a don't-fragment probe over loopback, and the per-window
// telemetry summary.
#include "health/burnin/window_telemetry.hpp"
#include "health/network/job_interface.hpp"
#include "health/network/mtu_expectations.hpp"
#include "health/network/path_mtu_probe.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace shakedown::health {
namespace {

const nlohmann::json network = nlohmann::json::parse(R"([
  {"name": "eth0", "mtu": 9000, "speed_mbps": 100000, "operstate": "up", "type": "ether"},
  {"name": "eth1", "mtu": 1500, "speed_mbps": 25000, "operstate": "up", "type": "ether"},
  {"name": "ib0", "mtu": 4092, "speed_mbps": 400000, "operstate": "up", "type": "infiniband"},
  {"name": "lo", "mtu": 65536, "speed_mbps": -1, "operstate": "unknown", "type": "loopback"}])");

TEST(MtuExpectations, JobInterfaceByDefaultGlobAndOverrides) {
    MtuExpectations expected;
    expected.mtu = 9000;
    auto verdict = judge_interfaces(network, expected, "eth0");
    EXPECT_EQ(verdict.checked, std::vector<std::string>{"eth0"});
    EXPECT_TRUE(verdict.problems.empty());

    expected.glob = "eth*";
    verdict = judge_interfaces(network, expected, "eth0");
    ASSERT_EQ(verdict.problems.size(), 1u);
    EXPECT_EQ(verdict.problems[0], "eth1: MTU 1500, expected 9000");

    expected.per_interface = parse_interface_mtu("{eth1: 1500, ib0: 4096, ib9: 4096}");
    expected.speed_mbps = 100000;
    verdict = judge_interfaces(network, expected, "eth0");
    EXPECT_EQ(verdict.problems, (std::vector<std::string>{"eth1: speed 25000 Mb/s, expected 100000",
                                                          "ib0: MTU 4092, expected 4096",
                                                          "ib0: speed 400000 Mb/s, expected 100000",
                                                          "ib9: named in interface_mtu but not on this node"}));
}

TEST(MtuExpectations, BadInterfaceMapIsAnInputError) {
    EXPECT_THROW(parse_interface_mtu("{eth0: 9000"), InputError);
    EXPECT_THROW(parse_interface_mtu("9000"), InputError);
    EXPECT_THROW(parse_interface_mtu("{eth0: jumbo}"), InputError);
    EXPECT_THROW(parse_interface_mtu("{eth0: 10}"), InputError);
    // A list as a key was yaml-cpp's conversion error (exit 3); an alias or a second key is refused
    // as in every YAML shakedown reads.
    try {
        parse_interface_mtu("{[a, b]: 9000}");
        ADD_FAILURE() << "a list as a key was accepted";
    } catch (const InputError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "network_mtu: interface_mtu must map interface names to MTUs; a key of '{[a, b]: 9000}' is not a name");
    }
    EXPECT_THROW(parse_interface_mtu("{eth0: 9000, eth0: 1500}"), InputError);
    EXPECT_THROW(parse_interface_mtu("{eth0: &m 9000, eth1: *m}"), InputError);
    EXPECT_TRUE(parse_interface_mtu("").empty());
}

TEST(MtuExpectations, TheOddNodeOutIsNamed) {
    const auto outliers = find_outliers({{"node1", 9000}, {"node2", 1500}, {"node3", 9000}});
    ASSERT_EQ(outliers.size(), 1u);
    EXPECT_EQ(outliers[0].node, "node2");
    EXPECT_EQ(outliers[0].value, 1500);
    EXPECT_EQ(outliers[0].norm, 9000);
    const auto tie = find_outliers({{"a", 9000}, {"b", 1500}});  // two nodes: the jumbo one is the norm
    ASSERT_EQ(tie.size(), 1u);
    EXPECT_EQ(tie[0].node, "b");
    EXPECT_TRUE(find_outliers({{"a", 1500}, {"b", 1500}}).empty());
}

TEST(JobInterface, DefaultRouteFromProcNetRoute) {
    const std::string table =
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        "eth1\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
        "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n";
    EXPECT_EQ(default_route_interface(table), "eth0");
    EXPECT_EQ(default_route_interface("Iface\tDestination\n"), std::nullopt);
}

TEST(JobInterface, LoopbackHasAnAddressAndUnknownInterfaceIsNamed) {
    EXPECT_EQ(ipv4_address_of("lo"), "127.0.0.1");
    try {
        choose_job_interface("nosuch0", network);
        FAIL() << "no error";
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find("'nosuch0'"), std::string::npos) << error.what();
    }
}

TEST(JobInterface, MtuComesFromTheKernelOfThisNamespace) {
    EXPECT_EQ(interface_mtu("lo"), 65536);  // loopback's MTU on Linux
    EXPECT_EQ(choose_job_interface("lo", network).mtu, 65536);
    EXPECT_EQ(interface_mtu("nosuch0"), std::nullopt);
    EXPECT_EQ(interface_mtu(""), std::nullopt);
}

TEST(PathMtu, LoopbackCarriesTheCapAndADeadPeerDoesNotHang) {
    const EchoResponder responder;
    ProbeSettings settings;
    settings.max_payload = 1500 - ipv4_udp_header_bytes;
    const PathMtu path = probe_path_mtu("127.0.0.1", responder.port(), settings);
    EXPECT_EQ(path.path_mtu(), 1500);
    EXPECT_EQ(path.probes_sent, 2);  // the smallest, then the cap: both arrive
    settings.max_payload = max_udp_payload;
    EXPECT_EQ(probe_path_mtu("127.0.0.1", responder.port(), settings).largest_payload, max_udp_payload);

    // No responder on that port: every probe times out, bounded.
    UdpSocket idle;
    const std::uint16_t silent_port = idle.bind_any();
    settings.timeout_ms = 50;
    const Stopwatch watch;
    const PathMtu dead = probe_path_mtu("127.0.0.1", silent_port, settings);
    EXPECT_FALSE(dead.reachable());
    EXPECT_LT(watch.seconds(), 2.0);
}

TEST(WindowTelemetry, GpuColumnsSummarised) {
    SampleTable table({{"t", "s"}, {"temperature_c", "C"}, {"power_w", "W"}, {"sm_clock_mhz", "MHz"},
                       {"power_capped", "bool"}, {"thermal", "bool"}, {"hw_slowdown", "bool"}, {"hw_power_brake", "bool"},
                       {"ecc_corrected_total", "count"}, {"ecc_uncorrected_total", "count"}});
    const double nan = std::nan("");
    table.add_row({1, 60, 690, 1980, 0, 0, 0, 0, 5, 0});
    table.add_row({2, 71, 700, 1755, 1, 0, 0, 0, 5, 0});
    table.add_row({3, 66, 699, nan, 1, 0, 0, 0, 7, 0});
    table.add_row({4, 64, 695, 1900, 0, 0, 0, 0, 8, 0});
    const WindowTelemetry window = summarize_window(table, gpu_telemetry_roles());
    EXPECT_EQ(window.samples, 4u);
    EXPECT_DOUBLE_EQ(window.clock_median_mhz, 1900);
    EXPECT_DOUBLE_EQ(window.clock_min_mhz, 1755);
    EXPECT_DOUBLE_EQ(window.temperature_max_c, 71);
    EXPECT_DOUBLE_EQ(window.power_median_w, 697);
    ASSERT_EQ(window.throttle_share.size(), 4u);
    EXPECT_DOUBLE_EQ(window.throttle_share[0], 0.5);
    EXPECT_DOUBLE_EQ(window.throttle_share[1], 0.0);
    ASSERT_EQ(window.ecc_increment.size(), 2u);
    EXPECT_DOUBLE_EQ(window.ecc_increment[0], 3);
    EXPECT_DOUBLE_EQ(window.ecc_increment[1], 0);
}

TEST(WindowTelemetry, HostHasNoThrottleOrEcc) {
    SampleTable table({{"t", "s"}, {"loadavg_1m", "1"}, {"cpu_mhz_mean", "MHz"}, {"max_thermal_c", "C"}, {"mem_available_bytes", "B"}});
    table.add_row({1, 1.0, 2100, std::nan(""), 1e9});
    const WindowTelemetry window = summarize_window(table, host_telemetry_roles());
    EXPECT_DOUBLE_EQ(window.clock_median_mhz, 2100);
    EXPECT_TRUE(std::isnan(window.temperature_max_c));
    EXPECT_TRUE(std::isnan(window.power_median_w));
    EXPECT_TRUE(window.throttle_share.empty());
}

}  // namespace
}  // namespace shakedown::health
