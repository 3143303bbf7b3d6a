// RAII for the UCP objects ucx_perf uses: context, worker, worker address, endpoint, mapped
// memory, packed and unpacked remote keys. Each owns one handle; declare them in creation
// order so they are released in reverse (rkey and endpoint before the worker, memory before
// the context). A failed call throws UcxError naming the call and UCX's status text.
#pragma once

#include <ucp/api/ucp.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::ib::ucx {

class UcxError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

void check(ucs_status_t status, std::string_view call);

// Tag matching and RMA (put/get), single-threaded worker.
class Context {
public:
    Context();
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    ucp_context_h get() const { return handle_; }

private:
    ucp_context_h handle_ = nullptr;
};

class Worker {
public:
    explicit Worker(const Context& context);
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;
    ucp_worker_h get() const { return handle_; }
    std::vector<std::byte> address() const;  // the packed worker address, for the peer
    // Drives the worker until `request` (from a *_nbx call) completes or `timeout_s` passes.
    void wait(ucs_status_ptr_t request, std::string_view what, double timeout_s) const;

private:
    ucp_worker_h handle_ = nullptr;
};

class Endpoint {
public:
    Endpoint(const Worker& worker, std::span<const std::byte> peer_address);
    ~Endpoint();  // flush-closes, driving the worker; the peer closes at the same time
    Endpoint(const Endpoint&) = delete;
    Endpoint& operator=(const Endpoint&) = delete;
    ucp_ep_h get() const { return handle_; }
    std::string describe() const;  // ucp_ep_print_info's text

private:
    const Worker& worker_;
    ucp_ep_h handle_ = nullptr;
};

class MappedMemory {
public:
    MappedMemory(const Context& context, void* address, std::size_t length);
    ~MappedMemory();
    MappedMemory(const MappedMemory&) = delete;
    MappedMemory& operator=(const MappedMemory&) = delete;
    std::vector<std::byte> packed_key() const;  // ucp_rkey_pack, for the peer

private:
    const Context& context_;
    ucp_mem_h handle_ = nullptr;
};

class RemoteKey {
public:
    RemoteKey(const Endpoint& endpoint, std::span<const std::byte> packed);
    ~RemoteKey();
    RemoteKey(const RemoteKey&) = delete;
    RemoteKey& operator=(const RemoteKey&) = delete;
    ucp_rkey_h get() const { return handle_; }

private:
    ucp_rkey_h handle_ = nullptr;
};

}  // namespace shakedown::ib::ucx
