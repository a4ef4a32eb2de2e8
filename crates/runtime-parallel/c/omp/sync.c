/* Ben-Asher & Feitelson 1991 §8.1 (fetch-and-add) and the lock pair of Souvatzis's semaphores, in OpenMP's forms. */
#include <omp.h>

#include "overhead_omp.h"

/* Every thread of the team does `reps` `omp atomic` increments, all on slots[0] (`distinct` = 0: the line
 * bounces between CPUs) or each on slots[thread] (`distinct` != 0). Returns the sum of the slots after the
 * region: exactly threads × reps if the increments are atomic. slots must have `threads` slots.
 * Control: ovh_omp_team_loop. */
uint64_t ovh_omp_faa(int threads, uint64_t reps, int distinct, ovh_slot *slots) {
    for (int t = 0; t < threads; t++) slots[t].value = 0;
#pragma omp parallel num_threads(threads)
    {
        uint64_t *counter = &slots[distinct ? omp_get_thread_num() : 0].value;
        for (uint64_t i = 0; i < reps; i++) {
#pragma omp atomic
            *counter += 1;
        }
    }
    uint64_t sum = 0;
    for (int t = 0; t < threads; t++) sum += slots[t].value;
    return sum;
}

/* One lock and the count it protects, on a line of their own as a lock and its data usually are. */
typedef struct {
    _Alignas(128) omp_lock_t lock;
    uint64_t count;
} guarded_count;

/* Every thread of the team takes and releases one shared omp_lock_t `reps` times, adding 1 to a plain
 * (non-atomic) count while holding it. Returns the count: exactly threads × reps only if the lock excludes.
 * Control: ovh_omp_team_loop. */
uint64_t ovh_omp_mutex(int threads, uint64_t reps) {
    guarded_count g;
    g.count = 0;
    omp_init_lock(&g.lock);
#pragma omp parallel num_threads(threads)
    for (uint64_t i = 0; i < reps; i++) {
        omp_set_lock(&g.lock);
        g.count++;
        omp_unset_lock(&g.lock);
    }
    omp_destroy_lock(&g.lock);
    return g.count;
}
