/* Untimed helpers: the team itself (pinning, placement checks run through a callback on every thread). */
#include <omp.h>

#include "overhead_omp.h"

size_t ovh_omp_slot_size(void) { return sizeof(ovh_slot); }

/* The `_OPENMP` date macro of the compiler that built the kernels (201511 = OpenMP 4.5, 201811 = 5.0). */
int ovh_omp_spec_version(void) { return _OPENMP; }

/* Runs `fn(ctx, thread, size)` once on every thread of a `threads`-thread parallel region. libgomp keeps one
 * thread pool per master thread and hands pool thread i the team number i again on every region of the same
 * size, so what `fn` does to a thread (pin it) holds for the later kernels called from the same master. */
void ovh_omp_each(int threads, ovh_omp_thread_fn fn, void *ctx) {
#pragma omp parallel num_threads(threads)
    fn(ctx, omp_get_thread_num(), omp_get_num_threads());
}
