/* Controls: the timed kernels' loops with nothing in them (Ben-Asher & Feitelson 1991 §6.1 `control`; EPCC's reference). */
#include <omp.h>

#include "overhead_omp.h"

/* Keeps an otherwise empty loop: the index must exist in a register each iteration, nothing else. */
#define KEEP(i) __asm__ volatile("" : : "r"(i))

/* The loop of ovh_omp_forkjoin without the region: its control. */
void ovh_omp_empty_loop(uint64_t reps) {
    for (uint64_t i = 0; i < reps; i++) KEEP(i);
}

/* One region in which every thread runs `reps` empty iterations: the control of barrier, faa and mutex, so
 * that the region's own fork and join cancel. */
void ovh_omp_team_loop(int threads, uint64_t reps) {
#pragma omp parallel num_threads(threads)
    for (uint64_t i = 0; i < reps; i++) KEEP(i);
}

/* One region in which one thread runs `n` empty iterations inside `single`: the control of ovh_omp_bulk. */
void ovh_omp_single_loop(int threads, uint64_t n) {
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        for (uint64_t i = 0; i < n; i++) KEEP(i);
    }
}

/* The shared variable the grain kernel's tasks read (Ben-Asher & Feitelson 1991 §7: `n = g`). volatile: every read is done. */
volatile int ovh_omp_global;

/* `total_reads` reads of the shared variable on the calling thread, no OpenMP: the serial baseline of
 * Ben-Asher & Feitelson 1991 §7's speed-up. */
void ovh_omp_serial_reads(uint64_t total_reads) {
    for (uint64_t r = 0; r < total_reads; r++) {
        int n = ovh_omp_global;
        KEEP(n);
    }
}
