// Built without libibverbs: a verbs API with no devices, and the reason, so the RDMA tests
// waive with "no RDMA device (built without libibverbs)" instead of passing.
#include "ib/verbs/verbs_api.hpp"

namespace shakedown::ib {
namespace {

class NoVerbs final : public VerbsApi {
public:
    std::string_view implementation() const override { return "none (built without libibverbs)"; }
    std::vector<std::string> device_names() const override { return {}; }
    std::unique_ptr<DeviceContext> open(const std::string& device) const override {
        throw VerbsError("cannot open '" + device + "': shakedown was built without libibverbs");
    }
    PortCounters port_counters(const std::string&, int) const override { return {}; }
};

}  // namespace

std::unique_ptr<VerbsApi> make_system_verbs() { return std::make_unique<NoVerbs>(); }
std::optional<std::string> system_verbs_missing_reason() { return "built without libibverbs"; }

}  // namespace shakedown::ib
