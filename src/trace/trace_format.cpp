#include "trace/trace_format.hpp"

namespace shakedown {

std::string_view to_string(TraceStatus status) {
    switch (status) {
        case TraceStatus::running: return "running";
        case TraceStatus::complete: return "complete";
        case TraceStatus::aborted: return "aborted";
    }
    return "unknown";
}

std::optional<TraceStatus> trace_status_from_string(std::string_view text) {
    for (TraceStatus status : {TraceStatus::running, TraceStatus::complete, TraceStatus::aborted})
        if (to_string(status) == text) return status;
    return std::nullopt;
}

}  // namespace shakedown
