#include "health/network/tcp_streams.hpp"

#include <arpa/inet.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace shakedown::health {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t header_magic = 0x73'64'74'63;  // "sdtc"
enum class ConnectionKind : std::uint32_t { stream = 1, echo = 2 };
// A stray connection (a port scanner, a late stream of an earlier phase) is closed; this many end
// the wait, so a flood cannot keep a phase open.
constexpr int most_strays = 64;
constexpr int untimed_echoes = 10;

struct Header {
    ConnectionKind kind = ConnectionKind::stream;
    std::uint32_t phase = 0;
    std::uint32_t stream = 0;
};

void send_header(const TcpSocket& socket, const Header& header, std::chrono::milliseconds wait) {
    const std::array<std::uint32_t, 4> words = {htonl(header_magic), htonl(static_cast<std::uint32_t>(header.kind)),
                                                htonl(header.phase), htonl(header.stream)};
    socket.send_all(words.data(), sizeof words, wait);
}

// The header of an accepted connection; nothing for a connection that is not one of ours.
std::optional<Header> read_header(const TcpSocket& socket, std::chrono::milliseconds wait) {
    std::array<std::uint32_t, 4> words{};
    try {
        if (!socket.receive_exactly(words.data(), sizeof words, wait)) return std::nullopt;
    } catch (const std::system_error&) {
        return std::nullopt;
    }
    if (ntohl(words[0]) != header_magic) return std::nullopt;
    return Header{static_cast<ConnectionKind>(ntohl(words[1])), ntohl(words[2]), ntohl(words[3])};
}

std::uint64_t mix(std::uint64_t value) {  // splitmix64's finaliser
    value += 0x9e37'79b9'7f4a'7c15ULL;
    value = (value ^ (value >> 30)) * 0xbf58'476d'1ce4'e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d0'49bb'1331'11ebULL;
    return value ^ (value >> 31);
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

// Reads one stream to its end, checking every byte against its pattern; the first wrong byte is
// reported, the rest of the stream still counted.
struct StreamReader {
    const TcpSocket* socket = nullptr;
    std::uint64_t seed = 0;
    int index = 0;
    std::chrono::milliseconds wait{};
    std::uint64_t bytes = 0;
    Clock::time_point ended{};
    std::string mismatch, error;

    void operator()() {
        const StreamPattern pattern(seed);
        std::vector<std::byte> buffer(StreamPattern::block_bytes);
        bool checking = true;
        try {
            for (;;) {
                const std::size_t got = socket->receive_some(buffer.data(), buffer.size(), wait);
                if (got == 0) break;
                const std::byte* expected = pattern.at(bytes);
                if (checking && std::memcmp(buffer.data(), expected, got) != 0) {
                    const auto wrong = std::mismatch(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(got), expected);
                    const auto at = static_cast<std::uint64_t>(wrong.first - buffer.begin());
                    mismatch = fmt::format("stream {} byte {}: {:#04x}, expected {:#04x}", index, bytes + at,
                                           static_cast<unsigned>(*wrong.first), static_cast<unsigned>(*wrong.second));
                    checking = false;
                }
                bytes += got;
            }
        } catch (const std::system_error& failure) {
            error = fmt::format("stream {} after {} bytes: {}", index, bytes, failure.what());
        }
        ended = Clock::now();
    }
};

}  // namespace

StreamPattern::StreamPattern(std::uint64_t seed) : doubled_(2 * block_bytes) {
    std::uint64_t state = seed;
    for (std::size_t i = 0; i < block_bytes; i += sizeof(std::uint64_t)) {
        state = mix(state);
        std::memcpy(doubled_.data() + i, &state, sizeof state);
    }
    std::copy_n(doubled_.begin(), block_bytes, doubled_.begin() + static_cast<std::ptrdiff_t>(block_bytes));
}

std::uint64_t stream_seed(std::uint32_t phase, int sender, int stream) {
    return mix((std::uint64_t{phase} << 32) ^ static_cast<std::uint32_t>(sender)) ^
           mix(0x5eed'0000ULL + static_cast<std::uint64_t>(stream));
}

double StreamReceiveOutcome::gbits() const {
    std::uint64_t total = 0;
    for (const std::uint64_t stream : bytes) total += stream;
    return seconds > 0.0 ? static_cast<double>(total) * 8.0 / seconds / 1e9 : 0.0;
}

StreamSendOutcome send_streams(const StreamSend& plan) {
    StreamSendOutcome outcome;
    outcome.bytes.assign(static_cast<std::size_t>(plan.streams), 0);
    std::vector<std::string> errors(static_cast<std::size_t>(plan.streams));
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(plan.seconds));
    {
        std::vector<std::jthread> senders;
        for (int stream = 0; stream < plan.streams; ++stream)
            senders.emplace_back([&, stream] {
                const auto index = static_cast<std::size_t>(stream);
                std::uint64_t sent = 0;
                try {
                    const TcpSocket socket = tcp_connect(plan.ipv4, plan.port, plan.wait);
                    send_header(socket, {ConnectionKind::stream, plan.phase, static_cast<std::uint32_t>(stream)}, plan.wait);
                    const StreamPattern pattern(stream_seed(plan.phase, plan.sender, stream));
                    if (plan.corrupt && stream == 0) {
                        std::vector<std::byte> flipped(pattern.at(0), pattern.at(0) + StreamPattern::block_bytes);
                        flipped[1000] ^= std::byte{0xff};
                        socket.send_all(flipped.data(), flipped.size(), plan.wait);
                        sent += flipped.size();
                    }
                    bool paused = false;
                    while (Clock::now() < deadline) {
                        socket.send_all(pattern.at(sent), StreamPattern::block_bytes, plan.wait);
                        sent += StreamPattern::block_bytes;
                        if (!paused && plan.delay_s > 0.0) {
                            std::this_thread::sleep_for(std::chrono::duration<double>(plan.delay_s));
                            paused = true;
                        }
                    }
                    socket.finish_sending();
                    // The receiver closes once it read everything: only then did the bytes arrive.
                    std::array<std::byte, 64> rest{};
                    while (socket.receive_some(rest.data(), rest.size(), plan.wait) > 0) {}
                } catch (const std::system_error& failure) {
                    errors[index] = fmt::format("stream {} after {} bytes: {}", stream, sent, failure.what());
                }
                outcome.bytes[index] = sent;
            });
    }
    for (std::string& error : errors)
        if (!error.empty()) outcome.errors.push_back(std::move(error));
    return outcome;
}

StreamReceiveOutcome receive_streams(const TcpListener& listener, const StreamReceive& plan) {
    StreamReceiveOutcome outcome;
    const auto count = static_cast<std::size_t>(plan.streams);
    outcome.bytes.assign(count, 0);
    std::vector<TcpSocket> sockets(count);
    std::vector<StreamReader> readers(count);
    Clock::time_point started{};
    {
        std::vector<std::jthread> threads;
        int accepted = 0, strays = 0;
        while (accepted < plan.streams && strays < most_strays) {
            TcpSocket socket;
            try {
                socket = listener.accept(plan.wait);
            } catch (const std::system_error& failure) {
                outcome.errors.push_back(fmt::format("{} of {} streams connected: {}", accepted, plan.streams, failure.what()));
                break;
            }
            const auto header = read_header(socket, plan.wait);
            if (!header || header->kind != ConnectionKind::stream || header->phase != plan.phase ||
                header->stream >= count || sockets[header->stream].valid()) {
                ++strays;
                continue;
            }
            if (accepted++ == 0) started = Clock::now();
            const std::size_t index = header->stream;
            sockets[index] = std::move(socket);
            readers[index] = {&sockets[index], stream_seed(plan.phase, plan.sender, static_cast<int>(index)),
                              static_cast<int>(index), plan.wait};
            threads.emplace_back(std::ref(readers[index]));
        }
        if (strays >= most_strays) outcome.errors.push_back(fmt::format("{} connections that were not this phase's streams", strays));
    }
    Clock::time_point ended = started;
    for (std::size_t i = 0; i < count; ++i) {
        if (!sockets[i].valid()) continue;
        outcome.bytes[i] = readers[i].bytes;
        ended = std::max(ended, readers[i].ended);
        if (!readers[i].mismatch.empty()) outcome.mismatches.push_back(readers[i].mismatch);
        if (!readers[i].error.empty()) outcome.errors.push_back(readers[i].error);
    }
    outcome.seconds = seconds_between(started, ended);
    return outcome;
}

RoundTrips measure_round_trips(const std::string& ipv4, std::uint16_t port, std::uint32_t phase, int count,
                               std::chrono::milliseconds wait) {
    RoundTrips trips;
    try {
        const TcpSocket socket = tcp_connect(ipv4, port, wait);
        socket.set_no_delay();
        send_header(socket, {ConnectionKind::echo, phase, 0}, wait);
        trips.microseconds.reserve(static_cast<std::size_t>(count));
        for (int i = 0; i < untimed_echoes + count; ++i) {
            const auto sent = static_cast<std::uint8_t>(i % 251);
            std::uint8_t back = 0;
            const auto start = Clock::now();
            socket.send_all(&sent, 1, wait);
            if (!socket.receive_exactly(&back, 1, wait)) throw std::system_error(std::make_error_code(std::errc::connection_aborted), "echo: the server closed");
            const auto end = Clock::now();
            if (back != sent) {
                trips.error = fmt::format("echo {} came back as {:#04x}, sent {:#04x}", i, back, sent);
                return trips;
            }
            if (i >= untimed_echoes) trips.microseconds.push_back(seconds_between(start, end) * 1e6);
        }
    } catch (const std::system_error& failure) {
        trips.error = fmt::format("echo after {} round trips: {}", trips.microseconds.size(), failure.what());
    }
    return trips;
}

std::string serve_round_trips(const TcpListener& listener, std::uint32_t phase, std::chrono::milliseconds wait) {
    try {
        for (int strays = 0; strays < most_strays; ++strays) {
            const TcpSocket socket = listener.accept(wait);
            const auto header = read_header(socket, wait);
            if (!header || header->kind != ConnectionKind::echo || header->phase != phase) continue;
            socket.set_no_delay();
            std::uint8_t byte = 0;
            while (socket.receive_exactly(&byte, 1, wait)) socket.send_all(&byte, 1, wait);
            return "";
        }
        return "only connections that were not this phase's echo client came";
    } catch (const std::system_error& failure) {
        return fmt::format("echo server: {}", failure.what());
    }
}

}  // namespace shakedown::health
