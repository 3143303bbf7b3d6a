/* A measurement probe, not part of the product: LD_PRELOADed into `shakedown run`, it counts the
 * trace writer's HDF5 flushes (H5Fflush, one per flushed write: trace_writer.cpp) and logs each
 * with the file's size after it, one line per flush to $TRACE_FLUSH_LOG.<pid>:
 *     <file> <bytes after the flush>
 * bench/run_side_scale.sh builds it and turns the logs into bytes and flushes per rank per test
 * (docs/benchmarks.md "The run side at scale"). The call itself is passed through unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef herr_t (*flush_fn)(hid_t, H5F_scope_t);

herr_t H5Fflush(hid_t object, H5F_scope_t scope) {
    static flush_fn real = NULL;
    if (real == NULL) real = (flush_fn)dlsym(RTLD_NEXT, "H5Fflush");
    const herr_t status = real(object, scope);
    const char* log = getenv("TRACE_FLUSH_LOG");
    if (log == NULL) return status;
    char name[4096] = "";
    hsize_t size = 0;
    const hid_t file = H5Iget_file_id(object);
    if (file >= 0) {
        H5Fget_name(file, name, sizeof name);
        H5Fget_filesize(file, &size);
        H5Fclose(file);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s.%d", log, (int)getpid());
    FILE* out = fopen(path, "a");
    if (out != NULL) {
        fprintf(out, "%s %llu\n", name, (unsigned long long)size);
        fclose(out);
    }
    return status;
}
