// The transfers of tcp_bandwidth between two nodes: parallel TCP streams of a known pattern for
// a fixed time, every byte checked on receipt, and a one-byte echo for the round-trip time. Each
// connection starts with a header naming its phase, so a connection of another phase (a late
// one, or a stranger on the port) is closed, not measured.
#pragma once

#include "health/network/tcp_socket.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace shakedown::health {

// The bytes one stream carries: a block of pseudo-random bytes drawn from its seed, repeated.
// Stored twice in a row, so any window of up to one block at any offset is contiguous.
class StreamPattern {
public:
    static constexpr std::size_t block_bytes = std::size_t{1} << 17;
    explicit StreamPattern(std::uint64_t seed);
    const std::byte* at(std::uint64_t offset) const { return doubled_.data() + offset % block_bytes; }

private:
    std::vector<std::byte> doubled_;
};

// Both ends derive a stream's seed from the phase, the sender and the stream's index.
std::uint64_t stream_seed(std::uint32_t phase, int sender, int stream);

struct StreamSend {
    std::string ipv4;
    std::uint16_t port = 0;
    int streams = 1;
    double seconds = 1.0;
    std::uint32_t phase = 0;
    int sender = 0;        // this rank's number in the seeds
    bool corrupt = false;  // planted: one byte of stream 0's first block flipped
    double delay_s = 0.0;  // planted: each stream pauses this long inside its window
    std::chrono::milliseconds wait{30'000};
};

// The bytes of every stream together.
std::uint64_t total_bytes(const std::vector<std::uint64_t>& per_stream);

struct StreamSendOutcome {
    std::vector<std::uint64_t> bytes;  // per stream, what the peer acknowledged by closing
    std::vector<std::string> errors;
};

// Sends for `seconds` on every stream at once, then waits for the receiver's end of stream.
StreamSendOutcome send_streams(const StreamSend& plan);

struct StreamReceive {
    int streams = 1;
    std::uint32_t phase = 0;
    int sender = 0;
    std::chrono::milliseconds wait{30'000};
};

struct StreamReceiveOutcome {
    std::vector<std::uint64_t> bytes;     // per stream index, validated or not
    double seconds = 0.0;                 // first header read to the last end of stream
    std::vector<std::string> errors;      // connections that failed
    std::vector<std::string> mismatches;  // the first wrong byte of each stream that had one
    double gbits() const;
};

// Accepts `streams` connections of `phase` on `listener` and reads each to its end.
StreamReceiveOutcome receive_streams(const TcpListener& listener, const StreamReceive& plan);

struct RoundTrips {
    std::vector<double> microseconds;
    std::string error;
};

// `count` timed one-byte echoes (after a few untimed ones) with the echo server of `phase`.
RoundTrips measure_round_trips(const std::string& ipv4, std::uint16_t port, std::uint32_t phase, int count,
                               std::chrono::milliseconds wait);
// Answers one echo client of `phase` on `listener` until it closes; an error's text, or "".
std::string serve_round_trips(const TcpListener& listener, std::uint32_t phase, std::chrono::milliseconds wait);

}  // namespace shakedown::health
