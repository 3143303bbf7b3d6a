// RDMA devices through libibverbs (compiled when SHAKEDOWN_HAVE_VERBS): every HCA with its
// ports' state, MTU, speed, width and link layer. A node without devices gives [].
#include "inventory/inventory_sections.hpp"

#include "inventory/inventory_names.hpp"

#include <infiniband/verbs.h>

#include <endian.h>
#include <fmt/format.h>

#include <memory>

namespace shakedown::inventory_detail {
namespace {

struct DeviceListDeleter {
    void operator()(ibv_device** list) const { ibv_free_device_list(list); }
};
struct ContextDeleter {
    void operator()(ibv_context* context) const { ibv_close_device(context); }
};

std::string link_layer_name(std::uint8_t link_layer) {
    switch (link_layer) {
        case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
        case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
        default: return "unspecified";
    }
}

nlohmann::json port_json(ibv_context* context, std::uint8_t port) {
    ibv_port_attr attr{};
    if (ibv_query_port(context, port, &attr) != 0) return {{"port", port}, {"error", "ibv_query_port failed"}};
    nlohmann::json json{{"port", port},
                        {"state", ibv_port_state_str(attr.state)},
                        {"active_mtu", 128 << attr.active_mtu},  // IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5
                        {"speed", ib_speed_name(attr.active_speed)},
                        {"link_layer", link_layer_name(attr.link_layer)},
                        {"lid", attr.lid}};
    if (auto lanes = ib_width_lanes(attr.active_width)) json["width"] = fmt::format("{}x", *lanes);
    if (auto rate = ib_rate_gbps(attr.active_speed, attr.active_width)) json["rate_gbps"] = *rate;
    return json;
}

}  // namespace

nlohmann::json rdma_section() {
    nlohmann::json hcas = nlohmann::json::array();
    int count = 0;
    std::unique_ptr<ibv_device*, DeviceListDeleter> list(ibv_get_device_list(&count));
    if (!list) return hcas;  // no RDMA subsystem in this kernel
    for (int i = 0; i < count; ++i) {
        ibv_device* device = list.get()[i];
        nlohmann::json hca{{inventory_names::rdma::name, ibv_get_device_name(device)}};
        std::unique_ptr<ibv_context, ContextDeleter> context(ibv_open_device(device));
        ibv_device_attr attr{};
        if (!context || ibv_query_device(context.get(), &attr) != 0) {
            hca["error"] = "cannot open or query the device";
            hcas.push_back(std::move(hca));
            continue;
        }
        hca[inventory_names::rdma::fw_ver] = attr.fw_ver;
        hca["node_guid"] = fmt::format("{:016x}", be64toh(attr.node_guid));
        nlohmann::json ports = nlohmann::json::array();
        for (std::uint8_t port = 1; port <= attr.phys_port_cnt; ++port) ports.push_back(port_json(context.get(), port));
        hca["ports"] = ports;
        hcas.push_back(std::move(hca));
    }
    return hcas;
}

}  // namespace shakedown::inventory_detail
