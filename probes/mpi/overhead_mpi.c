/*
 * The MPI side of `overhead` (docs/ARCHITECTURE.md "Hosts and MPI"): a small shared library that
 * `overhead probe` loads (dlopen, RTLD_GLOBAL) when the orchestrator started it as one rank of an MPI job.
 * It is built on first use with the MPI implementation's own compiler wrapper (`mpicc`), so the default
 * build of `overhead` needs no MPI headers.
 *
 * Rank 0 runs the project's harness in Rust and leads: before each batch it broadcasts what to do and how
 * many times (`ovh_mpi_lead`); every other rank follows (`ovh_mpi_follow`) until told to stop. The timed
 * loops are here, in C, so that a batch of n operations is n MPI calls and nothing else; the broadcast that
 * starts a batch is charged to the control as well (a lead with OVH_OP_NOTHING), so the harness subtracts it.
 *
 * The operations follow the OSU micro-benchmarks' loops (osu_latency, osu_bw, osu_barrier, osu_allreduce)
 * and mpiGraph's pairs; see docs/METHOD.md "MPI".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    OVH_OP_STOP = 0,
    OVH_OP_NOTHING = 1,
    /* rank 0 sends `bytes` to rank 1, which sends them back: one round trip (osu_latency's loop). */
    OVH_OP_PINGPONG = 2,
    /* rank 0 posts `window` non-blocking sends of `bytes`, rank 1 as many receives, then a 4-byte ack back
     * (osu_bw's loop); one operation is one window. */
    OVH_OP_WINDOW = 3,
    /* every rank: MPI_Barrier (osu_barrier). */
    OVH_OP_BARRIER = 4,
    /* every rank: MPI_Allreduce of `bytes` / 4 floats, MPI_SUM (osu_allreduce). */
    OVH_OP_ALLREDUCE = 5,
    /* rank 0 alone: a non-blocking send to itself and the matching receive (Souvatzis: asynchronous
     * send/receive on one activity). */
    OVH_OP_SELF = 6,
    /* 7 is not used (it was a one-way MPI_Ssend, replaced by OVH_OP_RENDEZVOUS). */
    /* ranks `peer_a` and `peer_b` (in `window`: a * 65536 + b) ping-pong `bytes`; the others wait. */
    OVH_OP_PAIR = 8,
    /* as OVH_OP_PAIR with a window of 64 messages from a to b and an ack (mpiGraph's bandwidth). */
    OVH_OP_PAIR_WINDOW = 9,
    /* rank 0 MPI_Ssend of `bytes` to rank 1, which receives it and replies with MPI_Send; rank 0 receives the
     * reply: Souvatzis's rendezvous, a request accepted and answered, one call. */
    OVH_OP_RENDEZVOUS = 10,
};

/* What a lead broadcasts: the operation and its arguments. */
struct ovh_command {
    uint64_t op;
    uint64_t n;
    uint64_t bytes;
    uint64_t window;
};

static char *send_buf;
static char *recv_buf;
static size_t buf_size;
static MPI_Request *requests;
static size_t requests_size;
static double pair_ns;

static int ensure_buffers(size_t bytes, size_t window) {
    if (bytes > buf_size) {
        free(send_buf);
        free(recv_buf);
        send_buf = malloc(bytes);
        recv_buf = malloc(bytes);
        if (!send_buf || !recv_buf) return -1;
        memset(send_buf, 0x5a, bytes);
        memset(recv_buf, 0, bytes);
        buf_size = bytes;
    }
    if (window > requests_size) {
        free(requests);
        requests = malloc(window * sizeof *requests);
        if (!requests) return -1;
        requests_size = window;
    }
    return 0;
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int ovh_mpi_init(void) {
    int provided = 0;
    int already = 0;
    MPI_Initialized(&already);
    if (already) return 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return -1;
    /* Errors come back as codes, never abort the rank silently. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return 0;
}

int ovh_mpi_rank(void) {
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int ovh_mpi_size(void) {
    int size = -1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

/* The implementation's own version line (MPI_Get_library_version), into `out` (NUL-terminated). */
void ovh_mpi_library_version(char *out, int capacity) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    if (capacity <= 0) return;
    if (length >= capacity) length = capacity - 1;
    memcpy(out, version, (size_t)length);
    out[length] = 0;
}

int ovh_mpi_finalize(void) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return 0;
    return MPI_Finalize() == MPI_SUCCESS ? 0 : -1;
}

void ovh_mpi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

/* Point to point, outside timed loops: addresses and results between ranks. */
int ovh_mpi_send_bytes(int dest, const void *data, int bytes) {
    return MPI_Send(data, bytes, MPI_BYTE, dest, 7, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

int ovh_mpi_recv_bytes(int source, void *data, int bytes) {
    return MPI_Recv(data, bytes, MPI_BYTE, source, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1;
}

/* Every rank: gather `bytes` from each rank into rank 0's `all` (size × bytes). */
int ovh_mpi_gather_bytes(const void *mine, int bytes, void *all) {
    return MPI_Gather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}


/* One side of a pair's ping-pong or window, `n` times; the first rank of the pair times it. */
static int pair(uint64_t n, size_t bytes, int a, int b, int windowed) {
    int rank = ovh_mpi_rank();
    int err = MPI_SUCCESS;
    double start = now_ns();
    for (uint64_t i = 0; i < n && err == MPI_SUCCESS; i++) {
        if (!windowed) {
            if (rank == a) {
                err = MPI_Send(send_buf, (int)bytes, MPI_CHAR, b, 1, MPI_COMM_WORLD);
                if (err == MPI_SUCCESS) err = MPI_Recv(recv_buf, (int)bytes, MPI_CHAR, b, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == b) {
                err = MPI_Recv(recv_buf, (int)bytes, MPI_CHAR, a, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (err == MPI_SUCCESS) err = MPI_Send(send_buf, (int)bytes, MPI_CHAR, a, 1, MPI_COMM_WORLD);
            }
        } else {
            int ack = 0;
            if (rank == a) {
                for (int w = 0; w < 64 && err == MPI_SUCCESS; w++)
                    err = MPI_Isend(send_buf, (int)bytes, MPI_CHAR, b, 2, MPI_COMM_WORLD, &requests[w]);
                if (err == MPI_SUCCESS) err = MPI_Waitall(64, requests, MPI_STATUSES_IGNORE);
                if (err == MPI_SUCCESS) err = MPI_Recv(&ack, 1, MPI_INT, b, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == b) {
                for (int w = 0; w < 64 && err == MPI_SUCCESS; w++)
                    err = MPI_Irecv(recv_buf, (int)bytes, MPI_CHAR, a, 2, MPI_COMM_WORLD, &requests[w]);
                if (err == MPI_SUCCESS) err = MPI_Waitall(64, requests, MPI_STATUSES_IGNORE);
                if (err == MPI_SUCCESS) err = MPI_Send(&ack, 1, MPI_INT, a, 3, MPI_COMM_WORLD);
            }
        }
    }
    double elapsed = now_ns() - start;
    if (err != MPI_SUCCESS) return -1;
    /* The timing rank sends its time to rank 0, which keeps it for ovh_mpi_pair_ns. */
    if (a != 0 && rank == a) err = MPI_Send(&elapsed, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
    if (a != 0 && rank == 0) err = MPI_Recv(&elapsed, 1, MPI_DOUBLE, a, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) pair_ns = elapsed;
    return err == MPI_SUCCESS ? 0 : -1;
}

/* This rank's part of `c`, `c.n` times. */
static int perform(const struct ovh_command *c) {
    int rank = ovh_mpi_rank();
    size_t bytes = (size_t)c->bytes;
    int count = (int)c->bytes;
    int err = MPI_SUCCESS;
    if (ensure_buffers(bytes > 8 ? bytes : 8, c->window > 64 ? c->window : 64) != 0) return -1;
    switch (c->op) {
    case OVH_OP_NOTHING:
        return 0;
    case OVH_OP_PINGPONG:
        for (uint64_t i = 0; i < c->n && err == MPI_SUCCESS; i++) {
            if (rank == 0) {
                err = MPI_Send(send_buf, count, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                if (err == MPI_SUCCESS) err = MPI_Recv(recv_buf, count, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                err = MPI_Recv(recv_buf, count, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (err == MPI_SUCCESS) err = MPI_Send(send_buf, count, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        break;
    case OVH_OP_WINDOW: {
        int window = (int)c->window;
        int ack = 0;
        for (uint64_t i = 0; i < c->n && err == MPI_SUCCESS; i++) {
            if (rank == 0) {
                for (int w = 0; w < window && err == MPI_SUCCESS; w++)
                    err = MPI_Isend(send_buf, count, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &requests[w]);
                if (err == MPI_SUCCESS) err = MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
                if (err == MPI_SUCCESS) err = MPI_Recv(&ack, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                for (int w = 0; w < window && err == MPI_SUCCESS; w++)
                    err = MPI_Irecv(recv_buf, count, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &requests[w]);
                if (err == MPI_SUCCESS) err = MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
                if (err == MPI_SUCCESS) err = MPI_Send(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
            }
        }
        break;
    }
    case OVH_OP_BARRIER:
        for (uint64_t i = 0; i < c->n && err == MPI_SUCCESS; i++) err = MPI_Barrier(MPI_COMM_WORLD);
        break;
    case OVH_OP_ALLREDUCE: {
        int floats = count / 4 > 0 ? count / 4 : 1;
        for (uint64_t i = 0; i < c->n && err == MPI_SUCCESS; i++)
            err = MPI_Allreduce(send_buf, recv_buf, floats, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        break;
    }
    case OVH_OP_SELF:
        if (rank == 0) {
            for (uint64_t i = 0; i < c->n && err == MPI_SUCCESS; i++) {
                MPI_Request request;
                err = MPI_Isend(send_buf, count, MPI_CHAR, 0, 5, MPI_COMM_WORLD, &request);
                if (err == MPI_SUCCESS) err = MPI_Recv(recv_buf, count, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (err == MPI_SUCCESS) err = MPI_Wait(&request, MPI_STATUS_IGNORE);
            }
        }
        break;
    case OVH_OP_RENDEZVOUS:
        for (uint64_t i = 0; i < c->n && err == MPI_SUCCESS; i++) {
            if (rank == 0) {
                err = MPI_Ssend(send_buf, count, MPI_CHAR, 1, 8, MPI_COMM_WORLD);
                if (err == MPI_SUCCESS) err = MPI_Recv(recv_buf, count, MPI_CHAR, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                err = MPI_Recv(recv_buf, count, MPI_CHAR, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (err == MPI_SUCCESS) err = MPI_Send(send_buf, count, MPI_CHAR, 0, 9, MPI_COMM_WORLD);
            }
        }
        break;
    case OVH_OP_PAIR:
    case OVH_OP_PAIR_WINDOW:
        return pair(c->n, bytes, (int)(c->window >> 16), (int)(c->window & 0xffff), c->op == OVH_OP_PAIR_WINDOW);
    default:
        return -2;
    }
    return err == MPI_SUCCESS ? 0 : -1;
}

/*
 * Rank 0: tell every rank to do `op` `n` times, then do this rank's part. Returns 0, or a negative code
 * when an MPI call failed or the operation is unknown.
 */
int ovh_mpi_lead(uint64_t op, uint64_t n, uint64_t bytes, uint64_t window) {
    struct ovh_command c = {op, n, bytes, window};
    if (MPI_Bcast(&c, 4, MPI_UINT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    if (op == OVH_OP_STOP) return 0;
    return perform(&c);
}

/* The ns a pair's first rank measured for the last OVH_OP_PAIR or OVH_OP_PAIR_WINDOW (rank 0 only). */
double ovh_mpi_pair_ns(void) { return pair_ns; }

/* Every rank but 0: do what rank 0 leads until it says stop. Returns 0, or a negative code. */
int ovh_mpi_follow(void) {
    for (;;) {
        struct ovh_command c;
        if (MPI_Bcast(&c, 4, MPI_UINT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
        if (c.op == OVH_OP_STOP) return 0;
        int err = perform(&c);
        if (err != 0) return err;
    }
}
