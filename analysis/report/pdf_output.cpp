#include "analysis/report/pdf_output.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace shakedown::analysis {
namespace {

namespace fs = std::filesystem;

// A folder made with mkdtemp and removed with what is in it.
class TemporaryFolder {
public:
    TemporaryFolder() {
        std::string pattern = (fs::temp_directory_path() / "shakedown-pdf-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            throw InputError(fmt::format("--pdf: cannot make a temporary folder: {}", std::strerror(errno)));
        path_ = pattern;
    }
    TemporaryFolder(const TemporaryFolder&) = delete;
    TemporaryFolder& operator=(const TemporaryFolder&) = delete;
    ~TemporaryFolder() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

class SpawnActions {
public:
    SpawnActions() { posix_spawn_file_actions_init(&actions_); }
    SpawnActions(const SpawnActions&) = delete;
    SpawnActions& operator=(const SpawnActions&) = delete;
    ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
    posix_spawn_file_actions_t* get() { return &actions_; }

private:
    posix_spawn_file_actions_t actions_{};
};

class SpawnAttributes {
public:
    SpawnAttributes() { posix_spawnattr_init(&attributes_); }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
    ~SpawnAttributes() { posix_spawnattr_destroy(&attributes_); }
    posix_spawnattr_t* get() { return &attributes_; }

private:
    posix_spawnattr_t attributes_{};
};

// file:// with every byte but the unreserved ones and '/' percent-encoded.
std::string file_url(const fs::path& path) {
    std::string url = "file://";
    for (const unsigned char c : fs::absolute(path).lexically_normal().string()) {
        if (std::isalnum(c) != 0 || std::strchr("/-._~", c) != nullptr) url += static_cast<char>(c);
        else url += fmt::format("%{:02X}", c);
    }
    return url;
}

std::string last_line(const fs::path& log) {
    std::ifstream in(log);
    std::string line;
    std::string last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last.substr(0, 300);
}

bool starts_with_pdf_magic(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    char magic[5] = {};
    in.read(magic, 5);
    return in.gcount() == 5 && std::string_view(magic, 5) == "%PDF-";
}

}  // namespace

std::optional<fs::path> find_chromium(std::string_view path_env) {
    for (const char* name : {"chromium", "chromium-browser"}) {
        std::string_view rest = path_env;
        while (true) {
            const std::size_t colon = rest.find(':');
            const std::string_view dir = rest.substr(0, colon);
            if (!dir.empty()) {
                const fs::path candidate = fs::path(dir) / name;
                if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
            }
            if (colon == std::string_view::npos) break;
            rest.remove_prefix(colon + 1);
        }
    }
    return std::nullopt;
}

void print_to_pdf(const fs::path& chromium, const fs::path& html, const fs::path& pdf, double timeout_s) {
    const std::string context = fmt::format("--pdf {}: {}", pdf.string(), chromium.string());
    const TemporaryFolder scratch;
    const fs::path log = scratch.path() / "chromium.log";
    const fs::path printed = scratch.path() / "report.pdf";
    const std::vector<std::string> argv{chromium.string(),
                                        "--headless",
                                        "--no-sandbox",
                                        "--disable-gpu",
                                        "--no-first-run",
                                        "--user-data-dir=" + (scratch.path() / "profile").string(),
                                        "--print-to-pdf=" + printed.string(),
                                        "--no-pdf-header-footer",
                                        file_url(html)};
    std::vector<char*> arguments;
    for (const std::string& word : argv) arguments.push_back(const_cast<char*>(word.c_str()));
    arguments.push_back(nullptr);

    SpawnActions actions;
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO);
    // A group of its own: the browser forks a zygote, renderers and a crash handler, and all of
    // them go with one kill of the group.
    SpawnAttributes attributes;
    posix_spawnattr_setflags(attributes.get(), POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(attributes.get(), 0);
    pid_t pid = 0;
    if (const int error = posix_spawn(&pid, arguments.front(), actions.get(), attributes.get(), arguments.data(), environ);
        error != 0)
        throw InputError(fmt::format("{}: cannot start it: {}", context, std::strerror(error)));

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    int status = 0;
    bool timed_out = false;
    while (true) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) break;
        if (std::chrono::steady_clock::now() >= deadline) {
            timed_out = true;
            ::kill(-pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(-pid, SIGKILL);  // whatever of the group outlived the browser itself (ESRCH when none did)

    if (timed_out) throw InputError(fmt::format("{}: no PDF within {:.0f} s (killed)", context, timeout_s));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw InputError(fmt::format("{}: exited {}{}", context,
                                     WIFEXITED(status) ? fmt::format("with {}", WEXITSTATUS(status))
                                                       : fmt::format("on signal {}", WTERMSIG(status)),
                                     last_line(log).empty() ? "" : ": " + last_line(log)));
    if (!starts_with_pdf_magic(printed))
        throw InputError(fmt::format("{}: wrote no PDF{}", context, last_line(log).empty() ? "" : ": " + last_line(log)));
    // Copied beside the target and renamed over it: a reader never sees half a PDF.
    const fs::path partial = pdf.parent_path() / ("." + pdf.filename().string() + ".partial");
    std::error_code error;
    fs::copy_file(printed, partial, fs::copy_options::overwrite_existing, error);
    if (!error) fs::rename(partial, pdf, error);
    if (error) {
        std::error_code ignored;
        fs::remove(partial, ignored);
        throw InputError(fmt::format("--pdf {}: cannot write it: {}", pdf.string(), error.message()));
    }
}

}  // namespace shakedown::analysis
