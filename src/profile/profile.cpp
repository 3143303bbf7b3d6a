#include "profile/profile.hpp"

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/yaml_document.hpp"
#include "hostlist/hostlist.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

namespace shakedown::profile {
namespace {

// Every problem as one "source:line: problem" line.
class Reader {
public:
    explicit Reader(std::string source) : source_(std::move(source)) {}

    [[noreturn]] void reject(const YAML::Node& where, std::string_view problem) const {
        throw InputError(fmt::format("{}:{}: {}", source_, where.Mark().line + 1, problem));
    }
    std::string text(const YAML::Node& node, std::string_view what) const {
        if (!node.IsScalar() || node.Scalar().empty()) reject(node, fmt::format("{}: expected text", what));
        return node.Scalar();
    }
    double number(const YAML::Node& node, std::string_view what) const {
        double value = 0.0;
        if (!node.IsScalar() || !YAML::convert<double>::decode(node, value) || !std::isfinite(value) || value < 0.0)
            reject(node, fmt::format("{}: expected a number of at least 0, not '{}'", what, node.IsScalar() ? node.Scalar() : "(a map or list)"));
        return value;
    }
    int integer(const YAML::Node& node, std::string_view what) const {
        const double value = number(node, what);
        if (value != std::floor(value) || value > 1e6) reject(node, fmt::format("{}: expected a whole number", what));
        return static_cast<int>(value);
    }
    void map(const YAML::Node& node, std::string_view what) const {
        if (!node.IsMap()) reject(node, fmt::format("{}: expected a map", what));
    }
    const std::string& source() const { return source_; }

private:
    std::string source_;
};

GpuExpectation gpu_of(const Reader& reader, const YAML::Node& node) {
    reader.map(node, "gpu");
    GpuExpectation gpu;
    for (const auto& item : node) {
        const std::string key = reader.text(item.first, "gpu");
        if (key == "model") gpu.model = reader.text(item.second, "gpu.model");
        else if (key == "memory_gib") gpu.memory_gib = reader.number(item.second, "gpu.memory_gib");
        else if (key == "nvlinks") gpu.nvlinks = reader.integer(item.second, "gpu.nvlinks");
        else if (key == "pcie_generation") gpu.pcie_generation = reader.integer(item.second, "gpu.pcie_generation");
        else if (key == "pcie_width") gpu.pcie_width = reader.integer(item.second, "gpu.pcie_width");
        else if (key == "bus_ids") {
            if (!item.second.IsSequence()) reader.reject(item.second, "gpu.bus_ids: expected a list");
            for (const auto& id : item.second) gpu.bus_ids.push_back(reader.text(id, "gpu.bus_ids"));
        } else {
            reader.reject(item.first, fmt::format("gpu: unknown key '{}' (expected model, memory_gib, bus_ids, nvlinks, "
                                                  "pcie_generation, pcie_width)", key));
        }
    }
    return gpu;
}

HcaExpectation hcas_of(const Reader& reader, const YAML::Node& node) {
    reader.map(node, "hcas");
    HcaExpectation hcas;
    for (const auto& item : node) {
        const std::string key = reader.text(item.first, "hcas");
        if (key == "count") hcas.count = reader.integer(item.second, "hcas.count");
        else if (key == "rate_gbps") hcas.rate_gbps = reader.number(item.second, "hcas.rate_gbps");
        else if (key == "link_layer") hcas.link_layer = reader.text(item.second, "hcas.link_layer");
        else if (key == "mtu") hcas.mtu = reader.integer(item.second, "hcas.mtu");
        else reader.reject(item.first, fmt::format("hcas: unknown key '{}' (expected count, rate_gbps, link_layer, mtu)", key));
    }
    return hcas;
}

// `names_left`: what the file's hostlists may still expand to (slurm::expand_hostlist), shared by
// every class of the file.
NodeClass class_of(const Reader& reader, const YAML::Node& node, const std::vector<std::string>& known_tests,
                   std::size_t& names_left) {
    reader.map(node, "classes");
    NodeClass entry;
    for (const auto& item : node) {
        const std::string key = reader.text(item.first, "classes");
        const YAML::Node& value = item.second;
        if (key == "nodes") entry.nodes = reader.text(value, "nodes");
        else if (key == "gpus_per_node") entry.gpus_per_node = reader.integer(value, "gpus_per_node");
        else if (key == "gpu") entry.gpu = gpu_of(reader, value);
        else if (key == "hcas") entry.hcas = hcas_of(reader, value);
        else if (key == "memory_gib") entry.memory_gib = reader.number(value, "memory_gib");
        else if (key == "cpu") {
            reader.map(value, "cpu");
            for (const auto& field : value) {
                const std::string name = reader.text(field.first, "cpu");
                if (name == "model") entry.cpu_model = reader.text(field.second, "cpu.model");
                else if (name == "cores") entry.cpu_cores = reader.integer(field.second, "cpu.cores");
                else reader.reject(field.first, fmt::format("cpu: unknown key '{}' (expected model, cores)", name));
            }
        } else if (key == "nics") {
            if (!value.IsSequence()) reader.reject(value, "nics: expected a list of {name, mtu}");
            for (const auto& nic : value) {
                reader.map(nic, "nics");
                NicExpectation expected;
                for (const auto& field : nic) {
                    const std::string name = reader.text(field.first, "nics");
                    if (name == "name") expected.name = reader.text(field.second, "nics.name");
                    else if (name == "mtu") expected.mtu = reader.integer(field.second, "nics.mtu");
                    else reader.reject(field.first, fmt::format("nics: unknown key '{}' (expected name, mtu)", name));
                }
                if (expected.name.empty()) reader.reject(nic, "nics: an entry needs its name");
                entry.nics.push_back(std::move(expected));
            }
        } else if (key == "tests") {
            if (!value.IsSequence()) reader.reject(value, "tests: expected a list of test names");
            for (const auto& test : value) {
                const std::string name = reader.text(test, "tests");
                if (std::find(known_tests.begin(), known_tests.end(), name) == known_tests.end())
                    reader.reject(test, fmt::format("tests: unknown test '{}' (known: {})", name, fmt::join(known_tests, ", ")));
                entry.tests.push_back(name);
            }
        } else {
            reader.reject(item.first, fmt::format("unknown key '{}' (expected nodes, gpus_per_node, gpu, hcas, nics, cpu, "
                                                  "memory_gib, tests)", key));
        }
    }
    if (entry.nodes.empty()) reader.reject(node, "a class needs 'nodes' (a hostlist, or all)");
    if (entry.nodes != "all") {
        try {
            const auto names = slurm::expand_hostlist(entry.nodes, names_left);
            entry.expanded.insert(names.begin(), names.end());
        } catch (const InputError& error) {
            reader.reject(node, error.what());
        }
    }
    return entry;
}

void put_optional(YAML::Emitter& out, const char* key, const auto& value) {
    if (value) out << YAML::Key << key << YAML::Value << *value;
}

}  // namespace

bool NodeClass::covers(const std::string& node) const { return nodes == "all" || expanded.count(node) > 0; }

const NodeClass* Profile::class_of(const std::string& node) const {
    for (const NodeClass& entry : classes)
        if (entry.covers(node)) return &entry;
    return nullptr;
}

Profile parse_profile(std::string_view yaml_text, const std::string& source_name, const std::vector<std::string>& known_tests) {
    const Reader reader(source_name);
    const YAML::Node root = load_yaml_document(std::string(yaml_text), source_name);
    if (!root.IsMap() || !root["classes"]) throw InputError(fmt::format("{}:1: expected a map with 'classes'", source_name));
    Profile profile;
    profile.source = source_name;
    std::size_t names_left = slurm::max_hostlist_names;
    for (const auto& section : root) {
        const std::string key = reader.text(section.first, "top level");
        if (key != "classes") reader.reject(section.first, fmt::format("unknown key '{}' (expected classes)", key));
        if (!section.second.IsSequence() || section.second.size() == 0)
            reader.reject(section.second, "classes: expected a list of node classes");
        for (const auto& entry : section.second)
            profile.classes.push_back(class_of(reader, entry, known_tests, names_left));
    }
    return profile;
}

Profile read_profile(const std::string& path, const std::vector<std::string>& known_tests) {
    const std::string text =
        read_input_file(path, input_limits::max_text_file_bytes, fmt::format("{}: cannot read the profile: ", path));
    return parse_profile(text, path, known_tests);
}

std::string to_yaml(const Profile& profile) {
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "classes" << YAML::Value << YAML::BeginSeq;
    for (const NodeClass& entry : profile.classes) {
        out << YAML::BeginMap << YAML::Key << "nodes" << YAML::Value << entry.nodes;
        put_optional(out, "gpus_per_node", entry.gpus_per_node);
        const GpuExpectation& gpu = entry.gpu;
        if (gpu.model || gpu.memory_gib || !gpu.bus_ids.empty() || gpu.nvlinks || gpu.pcie_generation || gpu.pcie_width) {
            out << YAML::Key << "gpu" << YAML::Value << YAML::BeginMap;
            put_optional(out, "model", gpu.model);
            put_optional(out, "memory_gib", gpu.memory_gib);
            if (!gpu.bus_ids.empty()) out << YAML::Key << "bus_ids" << YAML::Value << YAML::Flow << gpu.bus_ids;
            put_optional(out, "nvlinks", gpu.nvlinks);
            put_optional(out, "pcie_generation", gpu.pcie_generation);
            put_optional(out, "pcie_width", gpu.pcie_width);
            out << YAML::EndMap;
        }
        const HcaExpectation& hcas = entry.hcas;
        if (hcas.count || hcas.rate_gbps || hcas.link_layer || hcas.mtu) {
            out << YAML::Key << "hcas" << YAML::Value << YAML::Flow << YAML::BeginMap;
            put_optional(out, "count", hcas.count);
            put_optional(out, "rate_gbps", hcas.rate_gbps);
            put_optional(out, "link_layer", hcas.link_layer);
            put_optional(out, "mtu", hcas.mtu);
            out << YAML::EndMap;
        }
        if (!entry.nics.empty()) {
            out << YAML::Key << "nics" << YAML::Value << YAML::BeginSeq;
            for (const NicExpectation& nic : entry.nics) {
                out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << nic.name;
                put_optional(out, "mtu", nic.mtu);
                out << YAML::EndMap;
            }
            out << YAML::EndSeq;
        }
        if (entry.cpu_model || entry.cpu_cores) {
            out << YAML::Key << "cpu" << YAML::Value << YAML::Flow << YAML::BeginMap;
            put_optional(out, "model", entry.cpu_model);
            put_optional(out, "cores", entry.cpu_cores);
            out << YAML::EndMap;
        }
        put_optional(out, "memory_gib", entry.memory_gib);
        if (!entry.tests.empty()) out << YAML::Key << "tests" << YAML::Value << YAML::Flow << entry.tests;
        out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

Profile gpus_per_node_profile(int gpus) {
    Profile profile;
    profile.source = "--gpus-per-node";
    NodeClass every;
    every.nodes = "all";
    every.gpus_per_node = gpus;
    profile.classes.push_back(std::move(every));
    return profile;
}

}  // namespace shakedown::profile
