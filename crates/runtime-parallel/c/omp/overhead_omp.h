/* The OpenMP kernels of `overhead` (runtime `openmp`), called from Rust through src/runtimes/openmp/ffi.rs.
 *
 * Every kernel keeps its timed loop in C: the harness times one call of `reps` (or `ntasks`) operations, so the
 * FFI call is paid once per batch, not once per operation. Each timed kernel has a control with the same shape
 * and an empty body where the harness needs one (Ben-Asher & Feitelson 1991 §6.1's `control` loop; EPCC's reference loops).
 *
 * `threads` is the team size passed to `num_threads`; the caller (Rust's `Team`) checks it is >= 1 and that
 * libgomp really gives that many threads. Counts are uint64_t; nothing here allocates or makes a system call
 * inside a timed loop. */
#ifndef OVERHEAD_OMP_H
#define OVERHEAD_OMP_H

#include <stddef.h>
#include <stdint.h>

/* One counter alone on a 128-byte block (two 64-byte lines, so the adjacent-line prefetcher cannot make
 * neighbours share). Mirrors `Slot` in src/runtimes/openmp/team.rs; `ovh_omp_slot_size` lets a test compare. */
typedef struct {
    _Alignas(128) uint64_t value;
} ovh_slot;

/* A callback run once by every thread of a team: (context, thread number 0..size-1, team size). */
typedef void (*ovh_omp_thread_fn)(void *ctx, int thread, int size);

/* team.c: untimed helpers. */
size_t ovh_omp_slot_size(void);
int ovh_omp_spec_version(void);
void ovh_omp_each(int threads, ovh_omp_thread_fn fn, void *ctx);

/* loops.c: the controls. */
void ovh_omp_empty_loop(uint64_t reps);
void ovh_omp_team_loop(int threads, uint64_t reps);
void ovh_omp_single_loop(int threads, uint64_t n);
void ovh_omp_serial_reads(uint64_t total_reads);

/* forkjoin.c, barrier.c */
void ovh_omp_forkjoin(int threads, uint64_t reps);
void ovh_omp_barrier(int threads, uint64_t reps);

/* tasks.c */
void ovh_omp_bulk(int threads, uint64_t ntasks);
void ovh_omp_remote(int threads, uint64_t ntasks, ovh_slot *per_thread);
void ovh_omp_remote_control(int threads, uint64_t ntasks);
void ovh_omp_grain(int threads, uint64_t total_reads, uint64_t ntasks, ovh_slot *per_thread);

/* sync.c */
uint64_t ovh_omp_faa(int threads, uint64_t reps, int distinct, ovh_slot *slots);
uint64_t ovh_omp_mutex(int threads, uint64_t reps);

#endif
