#include "telemetry/rdma_pkeys.hpp"

#include "telemetry/kernel_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <string_view>

namespace shakedown {
namespace {

// "0xffff\n" -> 0xffff; nullopt for anything else.
std::optional<std::uint16_t> parse_pkey(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    if (!text.starts_with("0x") && !text.starts_with("0X")) return std::nullopt;
    text.remove_prefix(2);
    unsigned value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (error != std::errc() || end != text.data() + text.size() || text.empty() || value > 0xffff) return std::nullopt;
    return static_cast<std::uint16_t>(value);
}

}  // namespace

PkeyTable read_pkey_table(const std::filesystem::path& port_dir) {
    PkeyTable table;
    const std::filesystem::path folder = port_dir / "pkeys";
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error)) {
        table.not_available = fmt::format("{}: absent", folder.string());
        return table;
    }
    std::array<char, 32> buffer{};
    std::size_t entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
            continue;  // only the numbered entries
        const KernelFile file(entry.path().string());
        const auto text = file.is_open() ? file.read(buffer) : std::nullopt;
        if (!text) {
            table.not_available = fmt::format("{}: cannot be read", entry.path().string());
            table.valid.clear();
            return table;
        }
        const auto pkey = parse_pkey(*text);
        if (!pkey) {
            table.not_available = fmt::format("{}: not a PKey ('{}')", entry.path().string(),
                                              std::string(text->substr(0, text->find('\n'))));
            table.valid.clear();
            return table;
        }
        ++entries;
        if ((*pkey & 0x7fff) != 0) table.valid.push_back(*pkey);
    }
    if (error) {
        table.not_available = fmt::format("{}: {}", folder.string(), error.message());
        table.valid.clear();
        return table;
    }
    if (entries == 0) {
        table.not_available = fmt::format("{}: no entries", folder.string());
        return table;
    }
    std::sort(table.valid.begin(), table.valid.end());
    table.valid.erase(std::unique(table.valid.begin(), table.valid.end()), table.valid.end());
    return table;
}

std::string format_pkeys(const std::vector<std::uint16_t>& pkeys) {
    if (pkeys.empty()) return "none";
    std::string text;
    for (const std::uint16_t pkey : pkeys) text += fmt::format("{}0x{:04x}", text.empty() ? "" : ",", pkey);
    return text;
}

}  // namespace shakedown
