// RAII ownership of HDF5 identifiers. Every hid_t the trace code creates or opens lives in
// one of these, so an exception anywhere closes what was opened (an id left open would keep
// the file open after the writer is gone and hide data from readers).
#pragma once

#include <hdf5.h>

#include <utility>

namespace shakedown::hdf5 {

// Owns one identifier and closes it with the function that matches its kind.
template <herr_t (*Close)(hid_t)>
class Handle {
public:
    Handle() = default;
    explicit Handle(hid_t id) : id_(id) {}
    ~Handle() { reset(); }
    Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, H5I_INVALID_HID);
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    // Gives up ownership: for handing an id opened generically to a handle of its kind.
    hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }
    void reset() {
        // A failing close has nowhere to report to from a destructor; HDF5 records it on
        // its error stack, which the next checked call clears.
        if (id_ >= 0) Close(id_);
        id_ = H5I_INVALID_HID;
    }

private:
    hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;  // never wrap predefined types such as H5T_NATIVE_DOUBLE
using Attribute = Handle<H5Aclose>;
using PropertyList = Handle<H5Pclose>;
using Object = Handle<H5Oclose>;  // a group or dataset opened by name without knowing which

}  // namespace shakedown::hdf5
