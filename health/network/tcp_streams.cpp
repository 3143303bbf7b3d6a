#include "health/network/tcp_streams.hpp"

#include <arpa/inet.h>
#include <poll.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
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

// One received stream: every byte checked against its pattern as it arrives; the first wrong
// byte is reported, the rest of the stream still counted.
struct IncomingStream {
    TcpSocket socket;
    StreamPattern pattern;
    int index = 0;
    std::uint64_t bytes = 0;
    bool checking = true;
    bool ended = false;
    std::string mismatch;

    // Reads what is there now; false at the peer's end of stream.
    bool read_now(std::vector<std::byte>& buffer) {
        const auto got = socket.receive_now(buffer.data(), buffer.size());
        if (!got) return true;
        if (*got == 0) return false;
        const std::byte* expected = pattern.at(bytes);
        if (checking && std::memcmp(buffer.data(), expected, *got) != 0) {
            const auto wrong = std::mismatch(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(*got), expected);
            const auto at = static_cast<std::uint64_t>(wrong.first - buffer.begin());
            mismatch = fmt::format("stream {} byte {}: {:#04x}, expected {:#04x}", index, bytes + at,
                                   static_cast<unsigned>(*wrong.first), static_cast<unsigned>(*wrong.second));
            checking = false;
        }
        bytes += *got;
        return true;
    }
};

// One sent stream: the pattern from its offset, a block at a time (a partial send resumes where
// it stopped, so blocks stay aligned with the pattern); with a planted corruption, stream 0's first
// block comes from a copy with one byte flipped.
struct OutgoingStream {
    TcpSocket socket;
    StreamPattern pattern;
    std::vector<std::byte> flipped;  // empty unless planted
    std::uint64_t bytes = 0;
    bool finished = false;      // its sending half closed
    bool acknowledged = false;  // the receiver closed: every byte arrived

    void send_now() {
        const std::size_t into_block = bytes % StreamPattern::block_bytes;
        const std::byte* from = bytes < flipped.size() ? flipped.data() + bytes : pattern.at(bytes);
        if (const auto sent = socket.send_now(from, StreamPattern::block_bytes - into_block)) bytes += *sent;
    }
};

// Waits for `events` on every socket `wanted` says needs it, at most `wait`; the ready ones.
template <typename Stream, typename Wanted>
std::vector<Stream*> ready(std::vector<Stream>& streams, short events, Wanted wanted, std::chrono::milliseconds wait,
                           const char* what) {
    std::vector<pollfd> entries;
    std::vector<Stream*> waiting;
    for (Stream& stream : streams)
        if (wanted(stream)) {
            entries.push_back({stream.socket.fd(), events, 0});
            waiting.push_back(&stream);
        }
    std::vector<Stream*> result;
    if (entries.empty()) return result;
    int count = -1;
    do count = ::poll(entries.data(), entries.size(), static_cast<int>(wait.count()));
    while (count < 0 && errno == EINTR);
    if (count < 0) throw std::system_error(errno, std::generic_category(), what);
    if (count == 0) throw std::system_error(std::make_error_code(std::errc::timed_out), what);
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (entries[i].revents != 0) result.push_back(waiting[i]);
    return result;
}

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

std::uint64_t total_bytes(const std::vector<std::uint64_t>& per_stream) {
    return std::accumulate(per_stream.begin(), per_stream.end(), std::uint64_t{0});
}

double StreamReceiveOutcome::gbits() const {
    return seconds > 0.0 ? static_cast<double>(total_bytes(bytes)) * 8.0 / seconds / 1e9 : 0.0;
}

StreamSendOutcome send_streams(const StreamSend& plan) {
    // One thread serves every stream, as iperf3 does: on a node whose cores also receive, a thread
    // per stream costs the rate that the figure is about.
    StreamSendOutcome outcome;
    std::vector<OutgoingStream> streams;
    try {
        for (int index = 0; index < plan.streams; ++index) {
            TcpSocket socket = tcp_connect(plan.ipv4, plan.port, plan.wait);
            send_header(socket, {ConnectionKind::stream, plan.phase, static_cast<std::uint32_t>(index)}, plan.wait);
            streams.push_back({std::move(socket), StreamPattern(stream_seed(plan.phase, plan.sender, index)), {}});
        }
    } catch (const std::system_error& failure) {
        outcome.errors.push_back(fmt::format("{} of {} streams connected: {}", streams.size(), plan.streams,
                                             failure.what()));
        return outcome;  // the receiver's accept times out and says so too
    }
    if (plan.corrupt) {
        auto& first = streams.front();
        first.flipped.assign(first.pattern.at(0), first.pattern.at(0) + StreamPattern::block_bytes);
        first.flipped[1000] ^= std::byte{0xff};
    }
    const auto deadline = Clock::now() +
                          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(plan.seconds));
    bool paused = plan.delay_s <= 0.0;
    std::string failed;
    try {
        while (Clock::now() < deadline) {
            for (OutgoingStream* stream : ready(
                     streams, POLLOUT, [](const OutgoingStream&) { return true; }, plan.wait, "send: the peer took nothing"))
                stream->send_now();
            if (!paused) {  // planted: the whole sender stalls once inside its window
                std::this_thread::sleep_for(std::chrono::duration<double>(plan.delay_s));
                paused = true;
            }
        }
        for (OutgoingStream& stream : streams) {
            stream.socket.finish_sending();
            stream.finished = true;
        }
        // The receiver closes once it read everything: only then did the bytes arrive.
        std::array<std::byte, 64> rest{};
        const auto open = [](const OutgoingStream& stream) { return !stream.acknowledged; };
        while (std::any_of(streams.begin(), streams.end(), open))
            for (OutgoingStream* stream : ready(streams, POLLIN, open, plan.wait, "send: the receiver never closed"))
                if (stream->socket.receive_now(rest.data(), rest.size()) == std::optional<std::size_t>{0})
                    stream->acknowledged = true;
    } catch (const std::system_error& failure) {
        failed = failure.what();
    }
    for (const OutgoingStream& stream : streams) outcome.bytes.push_back(stream.bytes);
    if (!failed.empty()) outcome.errors.push_back(fmt::format("after {} bytes: {}", total_bytes(outcome.bytes), failed));
    return outcome;
}

StreamReceiveOutcome receive_streams(const TcpListener& listener, const StreamReceive& plan) {
    StreamReceiveOutcome outcome;
    const auto count = static_cast<std::size_t>(plan.streams);
    outcome.bytes.assign(count, 0);
    std::vector<IncomingStream> streams;
    streams.reserve(count);
    std::vector<bool> connected(count, false);
    Clock::time_point started{};
    int strays = 0;
    while (streams.size() < count && strays < most_strays) {
        TcpSocket socket;
        try {
            socket = listener.accept(plan.wait);
        } catch (const std::system_error& failure) {
            outcome.errors.push_back(fmt::format("{} of {} streams connected: {}", streams.size(), plan.streams,
                                                 failure.what()));
            break;
        }
        const auto header = read_header(socket, plan.wait);
        if (!header || header->kind != ConnectionKind::stream || header->phase != plan.phase || header->stream >= count ||
            connected[header->stream]) {
            ++strays;
            continue;
        }
        if (streams.empty()) started = Clock::now();
        connected[header->stream] = true;
        const int index = static_cast<int>(header->stream);
        streams.push_back({std::move(socket), StreamPattern(stream_seed(plan.phase, plan.sender, index)), index});
    }
    if (strays >= most_strays)
        outcome.errors.push_back(fmt::format("{} connections that were not this phase's streams", strays));
    // One thread reads every stream (the sender's streams connect before any sends, so all of them
    // are here before the data flows).
    std::vector<std::byte> buffer(StreamPattern::block_bytes);
    Clock::time_point ended = started;
    const auto open = [](const IncomingStream& stream) { return !stream.ended; };
    try {
        while (std::any_of(streams.begin(), streams.end(), open))
            for (IncomingStream* stream : ready(streams, POLLIN, open, plan.wait, "receive: nothing arrived"))
                if (!stream->read_now(buffer)) {
                    stream->ended = true;
                    ended = Clock::now();
                }
    } catch (const std::system_error& failure) {
        outcome.errors.push_back(fmt::format("while receiving: {}", failure.what()));
    }
    for (IncomingStream& stream : streams) {
        outcome.bytes[static_cast<std::size_t>(stream.index)] = stream.bytes;
        if (!stream.mismatch.empty()) outcome.mismatches.push_back(stream.mismatch);
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
            if (!socket.receive_exactly(&back, 1, wait))
                throw std::system_error(std::make_error_code(std::errc::connection_aborted), "echo: the server closed");
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
