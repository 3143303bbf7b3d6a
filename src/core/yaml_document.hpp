// Loading a YAML file the programs are given (config, profile; any YAML input): exactly one
// document, no key twice in a mapping. yaml-cpp itself keeps the first of two equal keys and the
// first of several documents without a word, so a config with `suite:` twice, or a second
// document after `---`, would run with settings nobody meant.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace shakedown {

// The document's root (a null node for an empty file). Throws InputError with one line:
// "<origin>:<line>: malformed YAML: <what>", "<origin>:<line>: duplicate key 'suite' (first at
// line 1)", "<origin>:<line>: a second YAML document (the file must hold one)", "<origin>:<line>:
// control character 0x01: YAML holds printable characters only".
YAML::Node load_yaml_document(const std::string& text, const std::string& origin);

}  // namespace shakedown
