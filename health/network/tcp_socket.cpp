#include "health/network/tcp_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace shakedown::health {
namespace {

[[noreturn]] void throw_errno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

// Waits until `fd` is ready for `events`; timed_out when `wait` passes first.
void wait_for(int fd, short events, std::chrono::milliseconds wait, const char* what) {
    pollfd entry{fd, events, 0};
    for (;;) {
        const int ready = ::poll(&entry, 1, static_cast<int>(wait.count()));
        if (ready > 0) return;
        if (ready == 0) throw std::system_error(std::make_error_code(std::errc::timed_out), what);
        if (errno != EINTR) throw_errno(what);
    }
}

sockaddr_in address_of(const std::string& ipv4, std::uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (::inet_pton(AF_INET, ipv4.c_str(), &address.sin_addr) != 1)
        throw std::system_error(std::make_error_code(std::errc::invalid_argument), "not an IPv4 address: " + ipv4);
    return address;
}

TcpSocket new_stream_socket() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw_errno("socket");
    return TcpSocket(fd);
}

}  // namespace

TcpSocket& TcpSocket::operator=(TcpSocket&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

TcpSocket::~TcpSocket() {
    if (fd_ >= 0) ::close(fd_);
}

std::optional<std::size_t> TcpSocket::send_now(const void* data, std::size_t bytes) const {
    for (;;) {
        const ssize_t sent = ::send(fd_, data, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0) return static_cast<std::size_t>(sent);
        if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
        if (errno != EINTR) throw_errno("send");
    }
}

std::optional<std::size_t> TcpSocket::receive_now(void* data, std::size_t bytes) const {
    for (;;) {
        const ssize_t got = ::recv(fd_, data, bytes, MSG_DONTWAIT);
        if (got >= 0) return static_cast<std::size_t>(got);
        if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
        if (errno != EINTR) throw_errno("receive");
    }
}

void TcpSocket::send_all(const void* data, std::size_t bytes, std::chrono::milliseconds wait) const {
    // The call first, the wait only when the socket's buffer is full: one system call per block
    // while the stream flows, as a blocking sender makes.
    const auto* at = static_cast<const char*>(data);
    while (bytes > 0) {
        const auto sent = send_now(at, bytes);
        if (!sent) {
            wait_for(fd_, POLLOUT, wait, "send: the peer took nothing");
            continue;
        }
        at += *sent;
        bytes -= *sent;
    }
}

std::size_t TcpSocket::receive_some(void* data, std::size_t bytes, std::chrono::milliseconds wait) const {
    for (;;) {
        if (const auto got = receive_now(data, bytes)) return *got;
        wait_for(fd_, POLLIN, wait, "receive: nothing arrived");
    }
}

bool TcpSocket::receive_exactly(void* data, std::size_t bytes, std::chrono::milliseconds wait) const {
    auto* at = static_cast<char*>(data);
    std::size_t done = 0;
    while (done < bytes) {
        const std::size_t got = receive_some(at + done, bytes - done, wait);
        if (got == 0) {
            if (done == 0) return false;
            throw std::system_error(std::make_error_code(std::errc::connection_aborted),
                                    "receive: the peer closed mid-message");
        }
        done += got;
    }
    return true;
}

void TcpSocket::finish_sending() const { ::shutdown(fd_, SHUT_WR); }

void TcpSocket::set_no_delay() const {
    const int on = 1;
    if (::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0) throw_errno("setsockopt TCP_NODELAY");
}

TcpListener::TcpListener(const std::string& ipv4, std::uint16_t port) : socket_(new_stream_socket()) {
    const int on = 1;
    ::setsockopt(socket_.fd(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);  // a port left in TIME_WAIT by a last run
    sockaddr_in address = address_of(ipv4, port);
    if (::bind(socket_.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) throw_errno("bind");
    if (::listen(socket_.fd(), 256) != 0) throw_errno("listen");
    socklen_t length = sizeof address;
    if (::getsockname(socket_.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0) throw_errno("getsockname");
    port_ = ntohs(address.sin_port);
}

TcpSocket TcpListener::accept(std::chrono::milliseconds wait) const {
    for (;;) {
        wait_for(socket_.fd(), POLLIN, wait, "accept: no connection came");
        const int fd = ::accept4(socket_.fd(), nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) return TcpSocket(fd);
        if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) throw_errno("accept");
    }
}

TcpSocket tcp_connect(const std::string& ipv4, std::uint16_t port, std::chrono::milliseconds wait) {
    TcpSocket socket = new_stream_socket();
    const sockaddr_in address = address_of(ipv4, port);
    // Non-blocking connect, so a peer that never answers ends within `wait`.
    const int flags = ::fcntl(socket.fd(), F_GETFL, 0);
    ::fcntl(socket.fd(), F_SETFL, flags | O_NONBLOCK);
    if (::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        if (errno != EINPROGRESS) throw_errno("connect");
        wait_for(socket.fd(), POLLOUT, wait, "connect: no answer");
        int error = 0;
        socklen_t length = sizeof error;
        ::getsockopt(socket.fd(), SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0) throw std::system_error(error, std::generic_category(), "connect");
    }
    ::fcntl(socket.fd(), F_SETFL, flags);
    return socket;
}

}  // namespace shakedown::health
