#pragma once

#include <string>

namespace shakedown {

std::string build_info();  // version, compiler and the optional features this binary has

}  // namespace shakedown
