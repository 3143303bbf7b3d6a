#include "telemetry/kernel_file.hpp"

#include <cctype>

#include <array>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <utility>

namespace shakedown {

// Opened without blocking and kept only when it is a regular file (sysfs attributes and /proc
// files are): a FIFO under a configured sysfs root (telemetry.infiniband_sysfs_root) blocked the
// open until a writer came, and the rank hung before its first test, judged a hardware fault.
KernelFile::KernelFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {
    struct stat status {};
    if (fd_ >= 0 && (::fstat(fd_, &status) != 0 || !S_ISREG(status.st_mode))) {
        ::close(fd_);
        fd_ = -1;
    }
}

KernelFile::KernelFile(KernelFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

KernelFile& KernelFile::operator=(KernelFile&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

KernelFile::~KernelFile() {
    if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string_view> KernelFile::read(std::span<char> buffer) const {
    if (fd_ < 0 || buffer.empty()) return std::nullopt;
    const ssize_t got = ::pread(fd_, buffer.data(), buffer.size(), 0);
    if (got <= 0) return std::nullopt;
    return std::string_view(buffer.data(), static_cast<std::size_t>(got));
}

std::optional<double> KernelFile::read_number(std::span<char> buffer) const {
    const auto text = read(buffer);
    return text ? leading_number(*text) : std::nullopt;
}

std::string first_line_of(const std::string& path) {
    std::array<char, 256> buffer{};
    const auto text = KernelFile(path).read(buffer);
    if (!text) return {};
    std::string line(text->substr(0, text->find('\n')));
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    return line;
}

std::optional<double> leading_number(std::string_view text) {
    const auto start = text.find_first_not_of(" \t");
    if (start == std::string_view::npos) return std::nullopt;
    double value = 0.0;
    const auto [end, error] = std::from_chars(text.data() + start, text.data() + text.size(), value);
    if (error != std::errc{}) return std::nullopt;
    return value;
}

std::optional<double> number_after(std::string_view text, std::string_view key) {
    for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
        if (at == 0 || text[at - 1] == '\n') return leading_number(text.substr(at + key.size()));
    }
    return std::nullopt;
}

}  // namespace shakedown
