// Where a message lives. Host memory here; GPU-aware MPI supplies device memory behind the
// same interface, so the ping-pong kernel and its validation are written once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace shakedown::comm {

class MessageBuffer {
public:
    virtual ~MessageBuffer() = default;
    virtual void* data() = 0;  // what MPI sends from / receives into
    virtual std::size_t size() const = 0;
    virtual void fill(std::uint64_t seed) = 0;
    virtual std::optional<std::size_t> first_mismatch(std::uint64_t seed) const = 0;
    virtual void flip_one_byte() = 0;  // the planted corruption
};

class HostBuffer final : public MessageBuffer {
public:
    explicit HostBuffer(std::size_t bytes) : bytes_(bytes) {}
    void* data() override { return bytes_.data(); }
    std::size_t size() const override { return bytes_.size(); }
    void fill(std::uint64_t seed) override;
    std::optional<std::size_t> first_mismatch(std::uint64_t seed) const override;
    void flip_one_byte() override;

private:
    std::vector<std::byte> bytes_;
};

}  // namespace shakedown::comm
