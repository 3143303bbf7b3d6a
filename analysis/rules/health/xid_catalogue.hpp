// NVIDIA Xid numbers and what an acceptance run does with each: the table the hidden-fault rule
// (rules/health/hidden_fault_rule.hpp) judges NVML Xid events by.
//
// Source: NVIDIA's Xid catalogue, "XID Errors" in the GPU deployment and management
// documentation (docs.nvidia.com/deploy/xid-errors), which gives each Xid its meaning and the
// likely causes (driver, application, hardware, thermal, bus). Levels here: an Xid whose likely
// cause includes the GPU, its memory, its NVLink or its bus FAILs the node and drains it (cause
// hardware, evidence fault); one the catalogue attributes to the application (a kernel's bad
// address, a stopped channel) WARNs, since it can also follow from a hardware fault that the
// other counters show. An Xid not in this table WARNs, naming its number.
#pragma once

#include "analysis/rules/model/finding.hpp"

#include <array>
#include <optional>
#include <string_view>

namespace shakedown::analysis {

struct XidEntry {
    unsigned xid;
    Level level;
    std::string_view meaning;  // the catalogue's name
    std::string_view action;   // what to do with the GPU
};

inline constexpr std::array<XidEntry, 17> xid_catalogue{{
    {13, Level::warn, "graphics engine exception", "application error (illegal instruction or address); check the job"},
    {31, Level::warn, "GPU memory page fault", "application error (illegal address); check the job"},
    {43, Level::warn, "GPU stopped processing", "application error; check the job"},
    {45, Level::warn, "preemptive cleanup, due to previous errors",
     "follows another error or a killed job; check the others"},
    {48, Level::fail, "double bit ECC error", "drain; reset the GPU, replace it if it recurs"},
    {61, Level::fail, "internal micro-controller breakpoint/warning", "drain; reset the GPU"},
    {62, Level::fail, "internal micro-controller halt", "drain; reset the GPU"},
    {63, Level::fail, "ECC page retirement or row remapping recording event", "drain; reset the GPU to apply the remap"},
    {64, Level::fail, "ECC page retirement or row remapper recording failure", "drain; replace the GPU"},
    {74, Level::fail, "NVLink error", "drain; check the NVLink connection and NVSwitch"},
    {79, Level::fail, "GPU has fallen off the bus", "drain; check the GPU's PCIe link, power and seating"},
    {92, Level::warn, "high single-bit ECC error rate", "watch the corrected-error counts; replace if they keep rising"},
    {94, Level::fail, "contained ECC error", "drain; reset the GPU (row remap pending)"},
    {95, Level::fail, "uncontained ECC error", "drain; reset the GPU, replace it if it recurs"},
    {119, Level::fail, "GSP RPC timeout", "drain; reset the GPU"},
    {120, Level::fail, "GSP error", "drain; reset the GPU"},
    {140, Level::fail, "unrecovered ECC error", "drain; reset the GPU, replace it if it recurs"},
}};

inline std::optional<XidEntry> xid_entry(unsigned xid) {
    for (const XidEntry& entry : xid_catalogue)
        if (entry.xid == xid) return entry;
    return std::nullopt;
}

}  // namespace shakedown::analysis
