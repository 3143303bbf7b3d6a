// HDF5 built without --enable-threadsafe (Spack's default, many site builds) must never be
// entered by two threads at once, even on different files: its state is global. The trace writer
// is entered by the main thread, the telemetry sampler and the watchdog, so every writer takes
// one process-wide mutex around its HDF5 calls. With a thread-safe HDF5 the library holds a
// global lock of its own, so the same mutex costs nothing there, and one code path runs (and is
// tested) whichever library a site has.
#pragma once

#include <mutex>
#include <string>

namespace shakedown::hdf5 {

bool library_is_threadsafe();  // H5is_library_threadsafe, asked once

// "1.10.8, thread-safe" or "1.10.8, not thread-safe"; trace writes are serialised either way.
std::string library_description();

// The mutex every trace writer takes for its HDF5 calls: one for the whole process.
std::timed_mutex& writer_mutex();

}  // namespace shakedown::hdf5
