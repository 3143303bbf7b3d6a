// Path MTU between two nodes measured with don't-fragment UDP probes: the sender sets
// IP_MTU_DISCOVER = IP_PMTUDISC_DO (no fragmentation, EMSGSIZE above the known path MTU),
// sends datagrams of a given payload size, and the peer's responder echoes a small reply
// naming the size that arrived. A frame larger than some hop's MTU is dropped on the way
// (or refused locally), so the largest payload that arrives + 28 (IPv4 20 + UDP 8 bytes)
// is the path MTU. Every wait is bounded: a dead peer gives "nothing arrived", not a hang.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace shakedown::health {

inline constexpr int ipv4_udp_header_bytes = 28;
inline constexpr int max_udp_payload = 65507;

// RAII UDP/IPv4 socket.
class UdpSocket {
public:
    UdpSocket();  // throws std::system_error
    UdpSocket(const UdpSocket&) = delete;
    UdpSocket& operator=(const UdpSocket&) = delete;
    ~UdpSocket();
    int fd() const { return fd_; }
    std::uint16_t bind_any();  // binds 0.0.0.0:<ephemeral>, returns the port

private:
    int fd_ = -1;
};

// Answers probes on its own thread until destroyed.
class EchoResponder {
public:
    EchoResponder();
    EchoResponder(const EchoResponder&) = delete;
    EchoResponder& operator=(const EchoResponder&) = delete;
    ~EchoResponder();  // stops and joins
    std::uint16_t port() const { return port_; }

private:
    void serve();
    UdpSocket socket_;
    std::uint16_t port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;  // last: starts once the socket is bound
};

struct ProbeSettings {
    int max_payload = max_udp_payload;  // the sender's own interface MTU - 28 bounds it
    int timeout_ms = 200;               // wait for an echo per attempt
    int attempts = 2;                   // a lost datagram is retried before "too big"
};

struct PathMtu {
    int largest_payload = 0;  // 0 when not even the smallest probe arrived
    int probes_sent = 0;
    bool reachable() const { return largest_payload > 0; }
    int path_mtu() const { return largest_payload > 0 ? largest_payload + ipv4_udp_header_bytes : 0; }
};

// Binary search between the smallest IPv4 payload every link carries and max_payload.
PathMtu probe_path_mtu(const std::string& peer_ipv4, std::uint16_t peer_port, const ProbeSettings& settings);

}  // namespace shakedown::health
