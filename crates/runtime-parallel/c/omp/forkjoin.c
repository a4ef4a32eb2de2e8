/* Ben-Asher & Feitelson 1991 §6.1 (EPCC syncbench PARALLEL): an empty parallel region, `reps` times. */
#include <omp.h>

#include "overhead_omp.h"

/* Each region forks the team (wakes the pool threads), runs nothing, and joins at the region's implicit
 * barrier; the master thread is thread 0. Control: ovh_omp_empty_loop. */
void ovh_omp_forkjoin(int threads, uint64_t reps) {
    for (uint64_t i = 0; i < reps; i++) {
#pragma omp parallel num_threads(threads)
        __asm__ volatile("");
    }
}
