#include "analysis/report/pdf_output.hpp"

#include "analysis/report/markup.hpp"
#include "analysis/report/report_header.hpp"

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/output_file.hpp"
#include "core/process_runner.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

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

// file:// with every byte but the unreserved ones and '/' percent-encoded.
std::string file_url(const fs::path& path) {
    std::string url = "file://";
    for (const unsigned char c : fs::absolute(path).lexically_normal().string()) {
        if (std::isalnum(c) != 0 || std::strchr("/-._~", c) != nullptr) url += static_cast<char>(c);
        else url += fmt::format("%{:02X}", c);
    }
    return url;
}

// The browser's last non-empty line of output, for a message.
std::string last_line(const ProcessResult& result) {
    std::string last;
    for (const std::string* text : {&result.out, &result.err}) {
        std::size_t begin = 0;
        while (begin < text->size()) {
            const std::size_t end = std::min(text->find('\n', begin), text->size());
            if (end > begin) last = text->substr(begin, end - begin);
            begin = end + 1;
        }
    }
    return last.substr(0, 300);
}

bool starts_with_pdf_magic(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    char magic[5] = {};
    in.read(magic, 5);
    return in.gcount() == 5 && std::string_view(magic, 5) == "%PDF-";
}

// `html` with a page header naming its own sha256 (a CSS page-margin box), written to `copy`.
void write_print_copy(const fs::path& html, const fs::path& copy) {
    // The report this analysis has just written: no size limit beyond its own.
    std::string text = read_input_file(html, std::numeric_limits<std::uintmax_t>::max(), "--pdf: ");
    const std::string stamp =
        fmt::format("<style>@page {{ @top-left {{ content: {}; font-size: 7px; color: #555; }} }}</style>",
                    css_string_literal(fmt::format("{} sha256 {}", html.filename().string(), sha256_hex(text))));
    const std::size_t head_end = text.find("</head>");
    text.insert(head_end == std::string::npos ? 0 : head_end, stamp);
    write_file_atomically(copy, text, Flush::to_page_cache);  // a scratch copy the browser reads once
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
    const fs::path printed = scratch.path() / "report.pdf";
    const fs::path print_copy = scratch.path() / "report.html";
    write_print_copy(html, print_copy);
    const std::vector<std::string> argv{chromium.string(),
                                        "--headless",
                                        "--no-sandbox",
                                        "--disable-gpu",
                                        "--no-first-run",
                                        "--user-data-dir=" + (scratch.path() / "profile").string(),
                                        "--print-to-pdf=" + printed.string(),
                                        "--no-pdf-header-footer",
                                        file_url(print_copy)};
    // The browser forks a zygote, renderers and a crash handler: the runner kills its whole group
    // past the time limit and whatever of it outlives the browser.
    const ProcessResult result = run_process(argv, timeout_s);
    const std::string last = last_line(result);
    const std::string said = last.empty() ? "" : ": " + last;
    if (result.timed_out) throw InputError(fmt::format("{}: no PDF within {:.0f} s (killed)", context, timeout_s));
    if (!result.started) throw InputError(fmt::format("{}: {}", context, result.err));
    if (result.exit_code != 0)
        throw InputError(fmt::format("{}: exited {}{}", context,
                                     result.exit_code > 128 ? fmt::format("on signal {}", result.exit_code - 128)
                                                            : fmt::format("with {}", result.exit_code),
                                     said));
    if (!starts_with_pdf_magic(printed)) throw InputError(fmt::format("{}: wrote no PDF{}", context, said));
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
