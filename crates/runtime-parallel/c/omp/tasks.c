/* Ben-Asher & Feitelson 1991 §6.2, §6.3 and §7: explicit tasks (`omp task`), the OpenMP form of ParC's spawned activities.
 *
 * libgomp behaviour worth knowing when reading the numbers: in a team of one every task runs at once in its
 * creator (undeferred); a task is also run at once by its creator when the team already has more than
 * 64 × threads tasks queued; idle threads take queued tasks at barriers. */
#include <omp.h>

#include "overhead_omp.h"

/* Tasks executed by this thread in the current kernel. Thread-local: counting costs no shared line. */
static __thread uint64_t tasks_run;

/* Ben-Asher & Feitelson 1991 §6.3: one construct spawning `ntasks` empty tasks from one thread (`single`), all joined at the
 * end of `single`; any thread of the team may run them. Control: ovh_omp_single_loop. */
void ovh_omp_bulk(int threads, uint64_t ntasks) {
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        for (uint64_t i = 0; i < ntasks; i++) {
#pragma omp task
            __asm__ volatile("");
        }
    }
}

/* Generator `g` of `generators` gets an equal share of `ntasks`; the first ntasks % generators get one more. */
static uint64_t share(uint64_t ntasks, int generators, int g) {
    return ntasks / (uint64_t)generators + ((uint64_t)g < ntasks % (uint64_t)generators);
}

/* Closest OpenMP form of Ben-Asher & Feitelson 1991 §6.2 (generators feeding one executor). Threads 1..threads-1 are the
 * generators and create `ntasks` single empty tasks between them; thread 0 creates none and goes straight to
 * the barrier, where it runs queued tasks. OpenMP cannot direct a task at one thread, so generators may run
 * tasks too (at the same barrier, or undeferred when the queue is long); each thread's count of tasks run is
 * written to per_thread[thread] so the share of thread 0 is a result. With one thread, thread 0 is generator
 * and executor. per_thread must have `threads` slots. Control: ovh_omp_remote_control. */
void ovh_omp_remote(int threads, uint64_t ntasks, ovh_slot *per_thread) {
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num();
        int generators = threads > 1 ? threads - 1 : 1;
        int g = threads > 1 ? me - 1 : 0;
        tasks_run = 0;
        if (threads == 1 || me != 0) {
            uint64_t mine = share(ntasks, generators, g);
            for (uint64_t i = 0; i < mine; i++) {
#pragma omp task
                tasks_run++;
            }
        }
#pragma omp barrier
        per_thread[me].value = tasks_run;
    }
}

/* ovh_omp_remote with the generators' loops empty. */
void ovh_omp_remote_control(int threads, uint64_t ntasks) {
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num();
        int generators = threads > 1 ? threads - 1 : 1;
        int g = threads > 1 ? me - 1 : 0;
        if (threads == 1 || me != 0) {
            uint64_t mine = share(ntasks, generators, g);
            for (uint64_t i = 0; i < mine; i++) __asm__ volatile("" : : "r"(i));
        }
#pragma omp barrier
    }
}

extern volatile int ovh_omp_global;

/* Ben-Asher & Feitelson 1991 §7 (Table 4, Fig. 7): `total_reads` reads of a shared volatile variable split into `ntasks` tasks
 * (the first total_reads % ntasks tasks do one read more), spawned by one thread and run by the team; each
 * thread's number of tasks run goes to per_thread[thread] (the figure's per-CPU share). per_thread must have
 * `threads` slots. Serial baseline: ovh_omp_serial_reads. */
void ovh_omp_grain(int threads, uint64_t total_reads, uint64_t ntasks, ovh_slot *per_thread) {
#pragma omp parallel num_threads(threads)
    {
        tasks_run = 0;
#pragma omp single
        {
            uint64_t each = ntasks ? total_reads / ntasks : 0;
            uint64_t longer = ntasks ? total_reads % ntasks : 0;
            for (uint64_t k = 0; k < ntasks; k++) {
                uint64_t reads = each + (k < longer);
#pragma omp task firstprivate(reads)
                {
                    for (uint64_t r = 0; r < reads; r++) {
                        int n = ovh_omp_global;
                        __asm__ volatile("" : : "r"(n));
                    }
                    tasks_run++;
                }
            }
        }
        /* The end of `single` is a barrier: every task has run. */
        per_thread[omp_get_thread_num()].value = tasks_run;
    }
}
