// Plain TCP/IPv4 sockets for node-to-node streams (tcp_bandwidth): an RAII descriptor, a
// listener bound to one interface's address, connect and the blocking transfers, each wait
// bounded so a dead peer ends in an error that names it, never in a hang.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace shakedown::health {

class TcpSocket {
public:
    TcpSocket() = default;
    explicit TcpSocket(int fd) : fd_(fd) {}
    TcpSocket(TcpSocket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    TcpSocket& operator=(TcpSocket&& other) noexcept;
    TcpSocket(const TcpSocket&) = delete;
    TcpSocket& operator=(const TcpSocket&) = delete;
    ~TcpSocket();

    int fd() const { return fd_; }
    bool valid() const { return fd_ >= 0; }

    // Whole buffer or std::system_error (a closed or reset peer, or `wait` without progress).
    void send_all(const void* data, std::size_t bytes, std::chrono::milliseconds wait) const;
    // Exactly `bytes`, or std::system_error; false when the peer closed before the first byte.
    bool receive_exactly(void* data, std::size_t bytes, std::chrono::milliseconds wait) const;
    // What is there (at most `bytes`): 0 at the peer's end of stream; std::system_error on `wait`
    // without any byte.
    std::size_t receive_some(void* data, std::size_t bytes, std::chrono::milliseconds wait) const;
    // One call that does not wait: the bytes taken or received (0 received: the peer's end of
    // stream), nothing when the socket's buffer is full or empty now; std::system_error otherwise.
    std::optional<std::size_t> send_now(const void* data, std::size_t bytes) const;
    std::optional<std::size_t> receive_now(void* data, std::size_t bytes) const;
    // The sending half closed: the peer reads the end of the stream once every byte arrived.
    void finish_sending() const;
    void set_no_delay() const;

private:
    int fd_ = -1;
};

// Listens on `ipv4`:`port` (0: a port the kernel picks). Throws std::system_error; a port in
// use is errc::address_in_use.
class TcpListener {
public:
    TcpListener(const std::string& ipv4, std::uint16_t port);
    std::uint16_t port() const { return port_; }
    // The next connection, or std::system_error (timed_out) when none came within `wait`.
    TcpSocket accept(std::chrono::milliseconds wait) const;

private:
    TcpSocket socket_;
    std::uint16_t port_ = 0;
};

// Connected, or std::system_error naming what the connect returned.
TcpSocket tcp_connect(const std::string& ipv4, std::uint16_t port, std::chrono::milliseconds wait);

}  // namespace shakedown::health
