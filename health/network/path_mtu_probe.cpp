#include "health/network/path_mtu_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>
#include <vector>

namespace shakedown::health {
namespace {

constexpr std::uint32_t probe_magic = 0x534B4450;  // "SKDP"
constexpr int smallest_payload = 68 - ipv4_udp_header_bytes;  // IPv4's minimum MTU: every link carries it

struct ProbeHeader {  // first bytes of every probe and of every echo
    std::uint32_t magic;
    std::uint32_t id;
    std::uint32_t bytes;  // probe: size sent; echo: size received
};

[[noreturn]] void throw_errno(const std::string& what) { throw std::system_error(errno, std::generic_category(), what); }

// Waits up to `timeout_ms` for an echo of probe `id`; stale echoes of earlier probes are skipped.
bool await_echo(int fd, std::uint32_t id, int payload, int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd wait{fd, POLLIN, 0};
        if (::poll(&wait, 1, static_cast<int>(left.count())) <= 0) continue;
        ProbeHeader echo{};
        const ssize_t n = ::recv(fd, &echo, sizeof echo, MSG_DONTWAIT);
        if (n == static_cast<ssize_t>(sizeof echo) && echo.magic == probe_magic && echo.id == id &&
            echo.bytes == static_cast<std::uint32_t>(payload))
            return true;
    }
}

}  // namespace

UdpSocket::UdpSocket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw_errno("socket(AF_INET, SOCK_DGRAM)");
}

UdpSocket::~UdpSocket() { ::close(fd_); }

std::uint16_t UdpSocket::bind_any() {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = 0;
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) throw_errno("bind UDP");
    socklen_t length = sizeof address;
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) throw_errno("getsockname");
    return ntohs(address.sin_port);
}

EchoResponder::EchoResponder() : port_(socket_.bind_any()), thread_([this] { serve(); }) {}

EchoResponder::~EchoResponder() {
    stop_ = true;
    thread_.join();
}

void EchoResponder::serve() {
    std::vector<char> buffer(max_udp_payload + 1);
    while (!stop_) {
        pollfd wait{socket_.fd(), POLLIN, 0};
        if (::poll(&wait, 1, 50) <= 0) continue;  // wakes regularly to see stop_
        sockaddr_in sender{};
        socklen_t length = sizeof sender;
        const ssize_t n = ::recvfrom(socket_.fd(), buffer.data(), buffer.size(), MSG_DONTWAIT,
                                     reinterpret_cast<sockaddr*>(&sender), &length);
        if (n < static_cast<ssize_t>(sizeof(ProbeHeader))) continue;
        ProbeHeader header{};
        std::memcpy(&header, buffer.data(), sizeof header);
        if (header.magic != probe_magic) continue;
        header.bytes = static_cast<std::uint32_t>(n);  // what arrived, not what was claimed
        ::sendto(socket_.fd(), &header, sizeof header, 0, reinterpret_cast<const sockaddr*>(&sender), length);
    }
}

PathMtu probe_path_mtu(const std::string& peer_ipv4, std::uint16_t peer_port, const ProbeSettings& settings) {
    UdpSocket socket;
    const int dont_fragment = IP_PMTUDISC_DO;
    if (::setsockopt(socket.fd(), IPPROTO_IP, IP_MTU_DISCOVER, &dont_fragment, sizeof dont_fragment) != 0)
        throw_errno("setsockopt(IP_MTU_DISCOVER)");
    sockaddr_in peer{};
    peer.sin_family = AF_INET;
    peer.sin_port = htons(peer_port);
    if (::inet_pton(AF_INET, peer_ipv4.c_str(), &peer.sin_addr) != 1)
        throw std::invalid_argument(fmt::format("not an IPv4 address: '{}'", peer_ipv4));
    if (::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&peer), sizeof peer) != 0)
        throw_errno(fmt::format("connect UDP {}:{}", peer_ipv4, peer_port));

    PathMtu result;
    std::vector<char> datagram(static_cast<std::size_t>(std::max(settings.max_payload, smallest_payload)), '\x5a');
    std::uint32_t next_id = 1;
    auto arrives = [&](int payload) {
        for (int attempt = 0; attempt < settings.attempts; ++attempt) {
            const ProbeHeader header{probe_magic, next_id++, static_cast<std::uint32_t>(payload)};
            std::memcpy(datagram.data(), &header, sizeof header);
            ++result.probes_sent;
            // EMSGSIZE: above what the kernel knows of the path (local MTU, or an ICMP
            // "fragmentation needed" already received): too big, no need to wait.
            if (::send(socket.fd(), datagram.data(), static_cast<std::size_t>(payload), 0) < 0) {
                if (errno == EMSGSIZE) return false;
                continue;  // ECONNREFUSED from an earlier ICMP, transient errors: try again
            }
            if (await_echo(socket.fd(), header.id, payload, settings.timeout_ms)) return true;
        }
        return false;
    };

    // Most paths carry the full size: one probe answers. Otherwise bisect.
    int low = smallest_payload, high = settings.max_payload;
    if (high < low || !arrives(low)) return result;
    if (arrives(high)) {
        result.largest_payload = high;
        return result;
    }
    while (high - low > 1) {  // invariant: low arrives, high does not
        const int middle = low + (high - low) / 2;
        (arrives(middle) ? low : high) = middle;
    }
    result.largest_payload = low;
    return result;
}

}  // namespace shakedown::health
