#include "ib/ucx/ucx_handles.hpp"

#include "core/clock.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace shakedown::ib::ucx {

void check(ucs_status_t status, std::string_view call) {
    if (status != UCS_OK) throw UcxError(fmt::format("{} failed: {}", call, ucs_status_string(status)));
}

Context::Context() {
    ucp_config_t* config = nullptr;
    check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_TAG | UCP_FEATURE_RMA;
    const ucs_status_t status = ucp_init(&params, config, &handle_);
    ucp_config_release(config);
    check(status, "ucp_init");
}

Context::~Context() { ucp_cleanup(handle_); }

Worker::Worker(const Context& context) {
    ucp_worker_params_t params{};
    params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    params.thread_mode = UCS_THREAD_MODE_SINGLE;
    check(ucp_worker_create(context.get(), &params, &handle_), "ucp_worker_create");
}

Worker::~Worker() { ucp_worker_destroy(handle_); }

std::vector<std::byte> Worker::address() const {
    ucp_address_t* address = nullptr;
    std::size_t length = 0;
    check(ucp_worker_get_address(handle_, &address, &length), "ucp_worker_get_address");
    const auto* bytes = reinterpret_cast<const std::byte*>(address);
    std::vector<std::byte> copy(bytes, bytes + length);
    ucp_worker_release_address(handle_, address);
    return copy;
}

void Worker::wait(ucs_status_ptr_t request, std::string_view what, double timeout_s) const {
    if (request == nullptr) return;  // completed in place
    if (UCS_PTR_IS_ERR(request)) check(UCS_PTR_STATUS(request), what);
    const Stopwatch clock;
    ucs_status_t status = UCS_INPROGRESS;
    for (std::size_t spins = 1; (status = ucp_request_check_status(request)) == UCS_INPROGRESS; ++spins) {
        ucp_worker_progress(handle_);
        if (spins % 4096 == 0 && clock.seconds() > timeout_s) {
            ucp_request_cancel(handle_, request);
            while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(handle_);
            ucp_request_free(request);
            throw UcxError(fmt::format("{} did not complete within {} s (peer gone?)", what, timeout_s));
        }
    }
    ucp_request_free(request);
    check(status, what);
}

Endpoint::Endpoint(const Worker& worker, std::span<const std::byte> peer_address) : worker_(worker) {
    ucp_ep_params_t params{};
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    params.address = reinterpret_cast<const ucp_address_t*>(peer_address.data());
    check(ucp_ep_create(worker.get(), &params, &handle_), "ucp_ep_create");
}

Endpoint::~Endpoint() {
    ucp_request_param_t params{};
    params.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    params.flags = 0;  // flush: outstanding operations finish first
    try {
        worker_.wait(ucp_ep_close_nbx(handle_, &params), "ucp_ep_close_nbx", 10.0);
    } catch (const UcxError&) {
        // Nothing more to do in a destructor: the worker's destruction releases what is left.
    }
}

std::string Endpoint::describe() const {
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* stream = open_memstream(&text, &size);  // C calls only until fclose: nothing can throw
    if (stream == nullptr) return {};
    ucp_ep_print_info(handle_, stream);
    std::fclose(stream);  // finalises text and size
    const std::unique_ptr<char, decltype(&std::free)> owned(text, &std::free);
    return std::string(text, size);
}

MappedMemory::MappedMemory(const Context& context, void* address, std::size_t length) : context_(context) {
    ucp_mem_map_params_t params{};
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address = address;
    params.length = length;
    check(ucp_mem_map(context.get(), &params, &handle_), "ucp_mem_map");
}

MappedMemory::~MappedMemory() { ucp_mem_unmap(context_.get(), handle_); }

std::vector<std::byte> MappedMemory::packed_key() const {
    void* buffer = nullptr;
    std::size_t length = 0;
    check(ucp_rkey_pack(context_.get(), handle_, &buffer, &length), "ucp_rkey_pack");
    const auto* bytes = static_cast<const std::byte*>(buffer);
    std::vector<std::byte> copy(bytes, bytes + length);
    ucp_rkey_buffer_release(buffer);
    return copy;
}

RemoteKey::RemoteKey(const Endpoint& endpoint, std::span<const std::byte> packed) {
    check(ucp_ep_rkey_unpack(endpoint.get(), packed.data(), &handle_), "ucp_ep_rkey_unpack");
}

RemoteKey::~RemoteKey() { ucp_rkey_destroy(handle_); }

}  // namespace shakedown::ib::ucx
