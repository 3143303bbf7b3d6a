// What a path is when it is not the regular file the caller wants, for one-line refusals
// ("not a regular file (a FIFO)"): shared by the input and the output file checks.
#pragma once

#include <sys/stat.h>

namespace shakedown {

inline const char* file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a plain file";
}

}  // namespace shakedown
