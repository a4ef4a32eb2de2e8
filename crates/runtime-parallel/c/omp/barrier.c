/* Ben-Asher & Feitelson 1991 §8.2 experiment 1 (EPCC syncbench BARRIER): `reps` barrier episodes inside one region. */
#include <omp.h>

#include "overhead_omp.h"

/* Control: ovh_omp_team_loop (same region, same loop, no barrier), so the one fork/join cancels. */
void ovh_omp_barrier(int threads, uint64_t reps) {
#pragma omp parallel num_threads(threads)
    for (uint64_t i = 0; i < reps; i++) {
#pragma omp barrier
    }
}
