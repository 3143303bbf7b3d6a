// A /proc or /sys file opened once and re-read from offset 0 on every sample: the kernel
// regenerates such files on each read at offset 0, so a sampler pays one pread() per value
// instead of open/read/close and no allocation.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace shakedown {

class KernelFile {
public:
    // is_open() is false when absent, unreadable or not a regular file (a FIFO, a device, a folder)
    explicit KernelFile(const std::string& path);
    KernelFile(KernelFile&& other) noexcept;
    KernelFile& operator=(KernelFile&& other) noexcept;
    KernelFile(const KernelFile&) = delete;
    KernelFile& operator=(const KernelFile&) = delete;
    ~KernelFile();

    bool is_open() const { return fd_ >= 0; }
    // The current contents (up to buffer.size() bytes) as a view into `buffer`; nullopt when
    // the read fails (some sysfs attributes refuse reads when a device is down).
    std::optional<std::string_view> read(std::span<char> buffer) const;
    // The leading number of the contents ("2400000\n", "0.52 0.58 ...").
    std::optional<double> read_number(std::span<char> buffer) const;

private:
    int fd_ = -1;
};

// The first line of a sysfs attribute ("InfiniBand", a padded NVMe model), trailing whitespace
// removed; "" when it cannot be read (absent, not a regular file: a FIFO never blocks).
std::string first_line_of(const std::string& path);

// Leading number of a text such as "0.52 0.58 0.59 1/123 4567" or "2400000\n".
std::optional<double> leading_number(std::string_view text);
// The number after `key` in /proc/meminfo-style text ("MemAvailable:   123456 kB").
std::optional<double> number_after(std::string_view text, std::string_view key);

}  // namespace shakedown
