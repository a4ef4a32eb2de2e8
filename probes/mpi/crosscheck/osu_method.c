/*
 * osu_method: four MPI measurements taken the way the OSU Micro-Benchmarks (OMB) take them, so that
 * `overhead run --runtime mpi` can be cross-checked against the method everybody quotes (
 * probes/mpi/crosscheck.sh). Written for this project from a reading of OMB; no OMB code is copied.
 *
 *   osu_method latency|bw|barrier|allreduce [-m [MIN]:[MAX] | -m MAX] [-i ITER] [-x SKIP] [-W WINDOW] [-p DIGITS]
 *   mpirun -np 2 ./osu_method latency         (latency and bw need exactly 2 ranks, the collectives >= 2)
 *
 * Loops followed: OMB 7.2 (configure.ac AC_INIT 7.2; c/mpi/pt2pt/standard/osu_latency.c, osu_bw.c,
 * c/mpi/collective/blocking/osu_barrier.c, osu_allreduce.c, c/util/osu_util.h and osu_util.c for the
 * defaults), checked against OMB 6.2 (c/mpi/pt2pt/osu_latency.c, c/mpi/collective/osu_allreduce.c), whose
 * loops are the same. What each mode does, in OMB's words where they are OMB's numbers:
 *
 *   latency    rank 0: MPI_Send(size) to 1, MPI_Recv(size) from 1; rank 1 mirrors. MPI_CHAR, tag 1.
 *              Sizes 0, 1, 2, 4 … 4 MiB. SKIP untimed then ITER timed iterations: 100 + 10000 up to
 *              8192 B, 10 + 1000 above. One MPI_Barrier before each size. Rank 0 reads MPI_Wtime around
 *              every timed round trip and sums; reports sum / (2 ITER) in µs: HALF a round trip.
 *   bw         rank 0: WINDOW (64) MPI_Isend(size) to 1, MPI_Waitall, then MPI_Recv of a 4-byte ack;
 *              rank 1: WINDOW MPI_Irecv, MPI_Waitall, MPI_Send of the 4-byte ack. Tags 100 (data) and 101
 *              (ack); all sends read one buffer, all receives write one buffer (OMB's default "-b single").
 *              Sizes 1 … 4 MiB; 10 + 100 iterations up to 8192 B, 2 + 20 above; barrier before each size.
 *              Rank 0 times each window + ack and sums; reports size × WINDOW × ITER / 1e6 / seconds, MB/s
 *              with MB = 10^6 bytes.
 *   barrier    every rank: MPI_Wtime, MPI_Barrier, MPI_Wtime; 100 + 1000 iterations, no barrier before the
 *              loop. Each rank's mean over ITER in µs; rank 0 prints the mean of those means over the ranks.
 *   allreduce  every rank: MPI_Wtime, MPI_Allreduce(size / 4 MPI_FLOAT, MPI_SUM), MPI_Wtime, then an
 *              UNTIMED MPI_Barrier (so iterations never overlap). Sizes 4 … 1 MiB; 100 + 1000 iterations
 *              up to 8192 B, 10 + 100 above; barrier before each size. Reported like barrier: mean over the
 *              ranks of each rank's mean, in µs.
 *
 * -i and -x set the small- and large-message counts alike, as OMB's -i and -x do. -m takes OMB's forms
 * (MAX, MIN:MAX, MIN:, :MAX). Buffers are page-aligned and filled before use as OMB fills them (pt2pt: 'a'
 * for send, 'b' for receive, per size; collectives: send bytes 1, receive bytes 0, once), so the floats
 * summed are small normal numbers, never denormals.
 *
 * Differences from OMB 7.2, all of them outside the timed loops:
 *   - allreduce uses MPI_FLOAT, OMB 5.x/6.x's only type. OMB 7.x iterates over -T types and defaults to
 *     MPI_CHAR (MPI_SUM over MPI_CHAR); the loop is otherwise identical. The large-message switch compares
 *     BYTES with 8192 as 7.x does; 6.2 compared the float COUNT (switch above 32 KiB). For 8 B and 1 MiB
 *     both give the same counts.
 *   - OMB switches to the large counts once and keeps them (sizes only grow); here each size picks its own
 *     counts. Same result for OMB's ascending sizes.
 *   - -p DIGITS (default 2, OMB's FLOAT_PRECISION) widens the printed precision; -W is OMB's window option.
 *   - no validation (-c), accelerators, derived datatypes, graphs or PAPI; no -f columns.
 *   - the header names this program and the MPI library instead of OMB's version.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum mode { LATENCY, BW, BARRIER, ALLREDUCE };

#define LARGE_ABOVE 8192          /* bytes; above this the "large" counts apply */
#define PT2PT_MAX (1L << 22)      /* 4 MiB: latency and bw default maximum */
#define COLL_MAX (1L << 20)       /* 1 MiB: collective default maximum */
#define MAX_WINDOW 1024

struct counts {
    long iter, skip;
};

static struct {
    enum mode mode;
    long min, max;
    long iter, skip; /* -1: OMB's default for the size */
    int window;
    int digits;
} opt;

static int rank, nranks;

static void usage_exit(const char *why)
{
    if (rank == 0) {
        if (why)
            fprintf(stderr, "osu_method: %s\n", why);
        fprintf(stderr, "usage: osu_method latency|bw|barrier|allreduce [-m [MIN]:[MAX] | -m MAX] "
                        "[-i ITER] [-x SKIP] [-W WINDOW] [-p DIGITS]\n");
    }
    MPI_Finalize();
    exit(2);
}

/* OMB's defaults: small counts up to 8192 bytes, large counts above. */
static struct counts counts_for(long size)
{
    struct counts c;
    int large = size > LARGE_ABOVE;
    switch (opt.mode) {
    case LATENCY: c.iter = large ? 1000 : 10000; c.skip = large ? 10 : 100; break;
    case BW: c.iter = large ? 20 : 100; c.skip = large ? 2 : 10; break;
    default: c.iter = large ? 100 : 1000; c.skip = large ? 10 : 100; break;
    }
    if (opt.iter > 0)
        c.iter = opt.iter;
    if (opt.skip >= 0)
        c.skip = opt.skip;
    return c;
}

static long parse_long(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 0)
        usage_exit(what);
    return v;
}

static void parse_sizes(char *arg)
{
    char *colon = strchr(arg, ':');
    if (!colon) {
        opt.max = parse_long(arg, "bad -m");
        return;
    }
    *colon = '\0';
    if (arg[0])
        opt.min = parse_long(arg, "bad -m minimum");
    if (colon[1])
        opt.max = parse_long(colon + 1, "bad -m maximum");
}

static void parse_args(int argc, char **argv)
{
    if (argc < 2)
        usage_exit(NULL);
    if (!strcmp(argv[1], "latency"))
        opt.mode = LATENCY;
    else if (!strcmp(argv[1], "bw"))
        opt.mode = BW;
    else if (!strcmp(argv[1], "barrier"))
        opt.mode = BARRIER;
    else if (!strcmp(argv[1], "allreduce"))
        opt.mode = ALLREDUCE;
    else
        usage_exit("unknown benchmark");

    opt.min = opt.mode == LATENCY ? 0 : opt.mode == ALLREDUCE ? (long)sizeof(float) : 1;
    opt.max = opt.mode == ALLREDUCE ? COLL_MAX : PT2PT_MAX;
    opt.iter = -1;
    opt.skip = -1;
    opt.window = 64;
    opt.digits = 2;

    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        if (i + 1 >= argc || o[0] != '-' || o[1] == '\0' || o[2] != '\0')
            usage_exit("options take a value: -m -i -x -W -p");
        char *v = argv[++i];
        switch (o[1]) {
        case 'm': parse_sizes(v); break;
        case 'i':
            opt.iter = parse_long(v, "bad -i");
            if (opt.iter < 1)
                usage_exit("-i must be at least 1");
            break;
        case 'x': opt.skip = parse_long(v, "bad -x"); break;
        case 'W':
            opt.window = (int)parse_long(v, "bad -W");
            if (opt.window < 1 || opt.window > MAX_WINDOW)
                usage_exit("-W must be 1..1024");
            break;
        case 'p': opt.digits = (int)parse_long(v, "bad -p"); break;
        default: usage_exit("unknown option");
        }
    }
    if (opt.min > opt.max)
        usage_exit("-m: minimum above maximum");
    if ((opt.mode == LATENCY || opt.mode == BW) && nranks != 2)
        usage_exit("latency and bw need exactly 2 ranks");
    if (nranks < 2)
        usage_exit("the collectives need at least 2 ranks");
}

static void *page_alloc(size_t bytes)
{
    void *p = NULL;
    long page = sysconf(_SC_PAGESIZE);
    if (bytes == 0)
        bytes = 1;
    if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, bytes) != 0) {
        fprintf(stderr, "osu_method: rank %d: cannot allocate %zu bytes\n", rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Sizes 0 (only as a minimum), 1, 2, 4, … as OMB steps them. */
static long next_size(long size) { return size ? size * 2 : 1; }

static void header(const char *title, const char *column)
{
    if (rank != 0)
        return;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = '\0';
    printf("# osu_method %s (OMB 7.2 method), %d ranks, %s\n", title, nranks, lib);
    if (column)
        printf("%-10s%18s\n", "# Size", column);
    fflush(stdout);
}

static void row(long size, double value)
{
    printf("%-10ld%18.*f\n", size, opt.digits, value);
    fflush(stdout);
}

static void latency(void)
{
    char *sbuf = page_alloc(opt.max), *rbuf = page_alloc(opt.max);
    int peer = 1 - rank;
    header("MPI latency", "Latency (us)");
    for (long size = opt.min; size <= opt.max; size = next_size(size)) {
        struct counts c = counts_for(size);
        memset(sbuf, 'a', size);
        memset(rbuf, 'b', size);
        MPI_Barrier(MPI_COMM_WORLD);
        double total = 0.0;
        for (long i = 0; i < c.skip + c.iter; i++) {
            if (rank == 0) {
                double t0 = MPI_Wtime();
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t1 = MPI_Wtime();
                if (i >= c.skip)
                    total += t1 - t0;
            } else {
                MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            row(size, total * 1e6 / (2.0 * c.iter));
    }
    free(sbuf);
    free(rbuf);
}

static void bandwidth(void)
{
    char *sbuf = page_alloc(opt.max), *rbuf = page_alloc(opt.max);
    MPI_Request req[MAX_WINDOW];
    int peer = 1 - rank;
    if (opt.min < 1)
        opt.min = 1; /* OMB's bw loop doubles from its minimum; 0 would never grow */
    header("MPI bandwidth", "Bandwidth (MB/s)");
    for (long size = opt.min; size <= opt.max; size *= 2) {
        struct counts c = counts_for(size);
        memset(sbuf, 'a', size);
        memset(rbuf, 'b', size);
        MPI_Barrier(MPI_COMM_WORLD);
        double total = 0.0;
        for (long i = 0; i < c.skip + c.iter; i++) {
            if (rank == 0) {
                double t0 = MPI_Wtime();
                for (int w = 0; w < opt.window; w++)
                    MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(opt.window, req, MPI_STATUSES_IGNORE);
                MPI_Recv(rbuf, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t1 = MPI_Wtime();
                if (i >= c.skip)
                    total += t1 - t0;
            } else {
                for (int w = 0; w < opt.window; w++)
                    MPI_Irecv(rbuf, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(opt.window, req, MPI_STATUSES_IGNORE);
                MPI_Send(sbuf, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            row(size, (double)size / 1e6 * (double)opt.window * (double)c.iter / total);
    }
    free(sbuf);
    free(rbuf);
}

/* Each rank's mean in µs → rank 0 gets the mean over the ranks (OMB's "Avg Latency(us)"). */
static double mean_over_ranks(double my_mean_us)
{
    double sum = 0.0;
    MPI_Reduce(&my_mean_us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return sum / nranks;
}

static void barrier(void)
{
    struct counts c = counts_for(0);
    header("MPI barrier latency", NULL);
    if (rank == 0) {
        printf("# Avg Latency(us)\n");
        fflush(stdout);
    }
    double total = 0.0;
    for (long i = 0; i < c.skip + c.iter; i++) {
        double t0 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (i >= c.skip)
            total += t1 - t0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double avg = mean_over_ranks(total * 1e6 / c.iter);
    if (rank == 0) {
        printf("%17.*f\n", opt.digits, avg);
        fflush(stdout);
    }
}

static void allreduce(void)
{
    if (opt.min < (long)sizeof(float))
        opt.min = sizeof(float); /* fewer than one float is skipped by OMB */
    float *sbuf = page_alloc(opt.max), *rbuf = page_alloc(opt.max);
    memset(sbuf, 1, opt.max);
    memset(rbuf, 0, opt.max);
    header("MPI_Allreduce latency, MPI_FLOAT MPI_SUM", "Avg Latency(us)");
    for (long size = opt.min; size <= opt.max; size *= 2) {
        struct counts c = counts_for(size);
        int count = (int)(size / (long)sizeof(float));
        MPI_Barrier(MPI_COMM_WORLD);
        double total = 0.0;
        for (long i = 0; i < c.skip + c.iter; i++) {
            double t0 = MPI_Wtime();
            MPI_Allreduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double t1 = MPI_Wtime();
            MPI_Barrier(MPI_COMM_WORLD);
            if (i >= c.skip)
                total += t1 - t0;
        }
        double avg = mean_over_ranks(total * 1e6 / c.iter);
        if (rank == 0)
            row(size, avg);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    parse_args(argc, argv);
    switch (opt.mode) {
    case LATENCY: latency(); break;
    case BW: bandwidth(); break;
    case BARRIER: barrier(); break;
    case ALLREDUCE: allreduce(); break;
    }
    MPI_Finalize();
    return 0;
}
