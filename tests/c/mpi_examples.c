/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Examples of MPI-3.1's chapter 11 (one-sided communications) in C, as
 * the standard writes them, on every rank of the run, every value
 * checked. The translation of each keeps the standard's calls and their
 * order; what it adds is the harness that makes values checkable
 * (initial contents, a barrier between parts, a read-back) and, where the
 * standard names two processes A and B, the ring: every rank is A towards
 * its right neighbour and B for its own window (11.11, 11.19 and 11.21
 * take pairs of ranks instead, see below).
 *
 * One change runs through them: the standard makes its windows with
 * MPI_Win_create on the program's arrays; here they come from
 * MPI_Win_allocate and the arrays are the memory it gives, the window
 * itself (window_memory.c makes windows on a program's own arrays).
 *
 * Covered: 11.1 (A = B(map), a get per process through indexed-block
 * datatypes at both sides), 11.2 (the same with a get per element), 11.3
 * (a histogram by accumulate), 11.4 (start, put, complete against a late
 * post), 11.5 (lock, put, unlock), 11.6 (a store under the own lock, a
 * get after a barrier), 11.8 (a put under lock, a load under the own
 * lock; and its polling form), 11.10 (a store, a shared lock,
 * MPI_Win_sync, a get), 11.11 (PSCW with A in its own groups, in the
 * corrected form its text gives: A puts X into its own window and loads
 * it after wait; B gets Y in its start epoch and X and Y under a lock),
 * 11.12 (a put under lock, then PSCW on the own window with both
 * corrections: a get inside the epoch, the load after wait), 11.13 (the
 * loosely synchronous fence loop with halo puts), 11.14 (the same with
 * gets into the halos, the core update overlapping them), 11.15 and 11.16
 * (11.13 and 11.14 with post/start/complete/wait), 11.17 (the
 * checkerboard of two windows with MPI_MODE_NOCHECK, checked against a
 * serial run of every rank's arrays), 11.18 (the counting semaphore by
 * accumulate and get_accumulate), 11.19 (Peterson's algorithm between
 * ranks 0 and 1, repeated, a counter in the critical region), 11.20 (a
 * critical region by compare and swap), 11.21 (stores and loads in a
 * shared window, synchronised by send, receive and MPI_Win_sync) and
 * 11.22 (MPI_Rget and MPI_Rput through a few buffers, MPI_Waitany for a
 * free one), and 11.23 (below). 11.11 and 11.21 run on pairs of ranks (even A, the next odd
 * B), 11.19 on ranks 0 and 1; the three need two ranks and are skipped on
 * one, saying so.
 *
 * 11.21 is written for the unified memory model; this library reports
 * MPI_WIN_SEPARATE for every window (11.21 checks it), and MPI promises a
 * consistent view of a shared window's loads and stores in the unified
 * model only. It runs here as written: this library's MPI_Win_sync on a
 * shared window releases the caller's stores and drops its stale copies
 * of every part it loads, which is what the example's two syncs ask for.
 *
 * Left out: 11.7 and 11.9, valid only in the unified model, where a
 * window has one copy: in 11.7 a get reads X after the barrier that
 * follows B's store, with no synchronisation call to carry the store from
 * B's private copy to the public one; in 11.9 B loads X after the barrier
 * that follows A's put and flush, with none to carry the put from the
 * public copy to B's private one. The Rust program rma-mpi-examples
 * runs all of them over rma, 11.7 and 11.9 on unified (NCM) windows.
 *
 * 11.23, the distributed linked list on a dynamic window, runs as the
 * standard writes it, nil being MPI_BOTTOM (but for the rank a stale
 * tail's next displacement is read at, corrected as noted there): every rank appends NUM_ELEMS
 * elements from MPI_Alloc_mem, attached as they are made and reached at
 * the addresses MPI_Get_address gives, in one lock_all epoch; then rank
 * 0 walks the list with gets and checks that it holds every element once,
 * each rank's in the order it appended them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum {
    M = 12,            /* elements of A, B and map per rank (11.1 to 11.3) */
    H = 8,             /* a halo or a boundary (11.13 to 11.17) */
    CORE = 16,         /* the core between the boundaries (11.13 to 11.16) */
    INTERIOR = 16,     /* the interior between 11.17's halos */
    ITERATIONS = 3,    /* of the loops of 11.13 to 11.17 */
    ROUNDS = 3,        /* entries into the critical regions of 11.19 and 11.20 */
    EXCHANGES = 4,     /* messages of 11.21's loop */
    NSTEPS = 6,        /* 11.22's NSTEPS, M (buffers) and N (doubles a chunk) */
    BUFFERS = 3,
    CHUNK = 16,
    MAX_POLLS = 200000 /* polls a polling loop makes before the check fails */
};

static int rank, size, left, right;

/* Whether the run has the two ranks an example needs; rank 0 says so
 * when it has not. */
static int runs_on_pairs(const char *example) {
    if (size >= 2) return 1;
    if (rank == 0) printf("example %s skipped: it needs 2 processes, the run has 1\n", example);
    return 0;
}

/* A window of `n` ints from MPI_Win_allocate, each `init`, made public by
 * a fence that opens no epoch: the arrays the standard's examples start
 * from. */
static int *int_window(int n, int init, MPI_Win *win) {
    int *base;
    MPI_Win_allocate(n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, win);
    for (int i = 0; i < n; i++) base[i] = init;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, *win);
    return base;
}

/* A group of `n` (1 or 2) ranks, each once: MPI_Group_incl takes no rank
 * twice, and a ring of one or two ranks has the same left and right. */
static MPI_Group group_of(int n, const int *ranks) {
    MPI_Group world, g;
    int distinct[2], k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || distinct[0] != ranks[i]) distinct[k++] = ranks[i];
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, k, distinct, &g);
    MPI_Group_free(&world);
    return g;
}

/* A deterministic permutation of 0..len, the same on every rank. */
static void permutation(int *p, int len, unsigned seed) {
    for (int i = 0; i < len; i++) p[i] = i;
    for (int i = len - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        int t = p[i]; p[i] = p[j]; p[j] = t;
    }
}

static float b_value(int g) { return (float)(g * 7 % 1000 + 1); }
static float a_value(int g) { return (float)(g % 13 + 1); }

/* Example 11.1: A = B(map) with one get per process, through
 * indexed-block datatypes at both sides (the standard's code). */
static void ex11_1(void) {
    float *B, A[M];
    int *all = malloc(sizeof(int) * M * size), *map = all + rank * M;
    int *count = malloc(sizeof(int) * size), *total = malloc(sizeof(int) * size);
    int oindex[M], tindex[M];
    MPI_Datatype *otype = malloc(sizeof(MPI_Datatype) * size);
    MPI_Datatype *ttype = malloc(sizeof(MPI_Datatype) * size);
    permutation(all, M * size, 0x1101);
    MPI_Win win;
    MPI_Win_allocate(M * sizeof(float), sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &B, &win);
    for (int k = 0; k < M; k++) B[k] = b_value(rank * M + k);
    /* Compute the number of entries to be received from each process. */
    for (int j = 0; j < size; j++) count[j] = 0;
    for (int i = 0; i < M; i++) count[map[i] / M]++;
    total[0] = 0;
    for (int j = 1; j < size; j++) total[j] = total[j - 1] + count[j - 1];
    for (int j = 0; j < size; j++) count[j] = 0;
    /* Compute origin and target indices of entries: entry i at the origin
     * is entry k at the target. */
    for (int i = 0; i < M; i++) {
        int j = map[i] / M, k = map[i] % M;
        oindex[total[j] + count[j]] = i;
        tindex[total[j] + count[j]] = k;
        count[j]++;
    }
    /* Create origin and target datatypes for each get operation. */
    for (int j = 0; j < size; j++) {
        MPI_Type_create_indexed_block(count[j], 1, oindex + total[j], MPI_FLOAT, &otype[j]);
        MPI_Type_commit(&otype[j]);
        MPI_Type_create_indexed_block(count[j], 1, tindex + total[j], MPI_FLOAT, &ttype[j]);
        MPI_Type_commit(&ttype[j]);
    }
    /* This part does the assignment itself. */
    MPI_Win_fence(0, win);
    for (int j = 0; j < size; j++) MPI_Get(A, 1, otype[j], j, 0, 1, ttype[j], win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    for (int j = 0; j < size; j++) {
        MPI_Type_free(&otype[j]);
        MPI_Type_free(&ttype[j]);
    }
    for (int i = 0; i < M; i++) CHECK(A[i] == b_value(map[i]), "11.1: A[%d] = %f", i, A[i]);
    free(otype); free(ttype); free(count); free(total); free(all);
}

/* Example 11.2: A = B(map) with one get per element. */
static void ex11_2(void) {
    float *B, A[M];
    int *all = malloc(sizeof(int) * M * size), *map = all + rank * M;
    permutation(all, M * size, 0x1102);
    MPI_Win win;
    MPI_Win_allocate(M * sizeof(float), sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &B, &win);
    for (int k = 0; k < M; k++) B[k] = b_value(rank * M + k);
    MPI_Win_fence(0, win);
    for (int i = 0; i < M; i++) {
        int j = map[i] / M, k = map[i] % M;
        MPI_Get(&A[i], 1, MPI_FLOAT, j, k, 1, MPI_FLOAT, win);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    for (int i = 0; i < M; i++) CHECK(A[i] == b_value(map[i]), "11.2: A[%d] = %f", i, A[i]);
    free(all);
}

/* Example 11.3: B(j) = sum of A(i) over map(i) = j, one accumulate per
 * element (map has collisions: a histogram). */
static void ex11_3(void) {
    float A[M], *B;
    int *all = malloc(sizeof(int) * M * size), *map = all + rank * M;
    unsigned s = 0x1103;
    for (int g = 0; g < M * size; g++) { s = s * 1103515245u + 12345u; all[g] = (int)((s >> 8) % (unsigned)(M * size)); }
    for (int i = 0; i < M; i++) A[i] = a_value(rank * M + i);
    MPI_Win win;
    MPI_Win_allocate(M * sizeof(float), sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &B, &win);
    for (int k = 0; k < M; k++) B[k] = 0;
    MPI_Win_fence(0, win);
    for (int i = 0; i < M; i++) {
        int j = map[i] / M, k = map[i] % M;
        MPI_Accumulate(&A[i], 1, MPI_FLOAT, j, k, 1, MPI_FLOAT, MPI_SUM, win);
    }
    MPI_Win_fence(0, win);
    for (int k = 0; k < M; k++) {
        float want = 0;
        for (int g = 0; g < M * size; g++)
            if (all[g] == rank * M + k) want += a_value(g);
        CHECK(B[k] == want, "11.3: B[%d] = %f, not %f", k, B[k], want);
    }
    MPI_Win_free(&win);
    free(all);
}

/* Example 11.4: start, put, complete around the ring; even ranks post
 * late, so the put must wait for the post. */
static void ex11_4(void) {
    int *slot;
    MPI_Win win;
    MPI_Group world, origins, targets;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &slot, &win);
    *slot = -1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &origins);
    MPI_Group_incl(world, 1, &right, &targets);
    if (rank % 2 == 0) {
        double until = MPI_Wtime() + 20e-6;
        while (MPI_Wtime() < until) {}
    }
    *slot = 0;
    MPI_Win_post(origins, 0, win);
    MPI_Win_start(targets, 0, win);
    int v = 4000 + rank;
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    CHECK(*slot == 4000 + left, "11.4: %d", *slot);
    MPI_Group_free(&origins);
    MPI_Group_free(&targets);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

/* Example 11.5: an exclusive lock, a put and unlock; the origin reads the
 * value back under a shared lock. */
static void ex11_5(void) {
    int *slot, v = 5000 + rank, got = -1;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &slot, &win);
    *slot = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    CHECK(got == v, "11.5: %d", got);
    MPI_Win_free(&win);
}

/* Example 11.6: B stores X between lock and unlock of its own window; A
 * gets X under an exclusive lock after the barrier. */
static void ex11_6(void) {
    int *X, x = -1;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &X, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    *X = 6000 + rank;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Get(&x, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    CHECK(x == 6000 + right, "11.6: %d", x);
    MPI_Win_free(&win);
}

/* Example 11.8: A puts X under an exclusive lock; B loads X between lock
 * and unlock of its own window after the barrier; then the polling form
 * (lock, load, unlock until X changes). */
static void ex11_8(void) {
    int *X, v = 8000 + rank;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &X, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    X[0] = X[1] = 0;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    int x = X[0];
    MPI_Win_unlock(rank, win);
    CHECK(x == 8000 + left, "11.8: %d", x);
    int w = v + 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&w, 1, MPI_INT, right, 1, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    int polls = 0;
    do {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        x = X[1];
        MPI_Win_unlock(rank, win);
        CHECK(++polls < 200000, "11.8: X unchanged after %d polls", polls);
    } while (x == 0);
    CHECK(x == 8001 + left, "11.8 polling: %d", x);
    MPI_Win_free(&win);
}

/* Example 11.10: B stores X and calls MPI_Win_sync in a shared lock of
 * its own window before the barrier; A gets X under a shared lock. */
static void ex11_10(void) {
    int *X, x = -1;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &X, &win);
    *X = 10000 + rank;
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Win_sync(win);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Get(&x, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    CHECK(x == 10000 + right, "11.10: %d", x);
    MPI_Win_free(&win);
}

/* Who a rank is in an example run on pairs of ranks: process A (even
 * ranks) of the next rank, process B (odd ranks) of the one before; the
 * last rank of an odd run is neither. */
enum role { ROLE_A, ROLE_B, IDLE };

static enum role role_of(int *partner) {
    if (rank % 2 == 1) {
        *partner = rank - 1;
        return ROLE_B;
    }
    *partner = rank + 1;
    return rank + 1 < size ? ROLE_A : IDLE;
}

/* Example 11.11 on pairs of ranks, corrected as its text says: A stores
 * Y, posts to A and B and starts on itself; it puts X into its own window
 * (a store would reach its private copy only) and, after wait, loads X.
 * B gets Y inside its start epoch, as the text allows, and after the
 * barrier gets X and Y under an exclusive lock. */
static int x11(int a) { return 11000 + 10 * a; }
static int y11(int a) { return 11001 + 10 * a; }

static void ex11_11(void) {
    if (!runs_on_pairs("11.11")) return;
    MPI_Win win;
    int *W = int_window(2, 0, &win); /* X at 0, Y at 1 */
    int partner;
    enum role role = role_of(&partner);
    if (role == ROLE_A) {
        int both[2] = {rank, partner}, x = x11(rank);
        MPI_Group ab = group_of(2, both), a = group_of(1, &rank);
        W[1] = y11(rank);
        MPI_Win_post(ab, 0, win);
        MPI_Win_start(a, 0, win);
        MPI_Put(&x, 1, MPI_INT, rank, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        CHECK(W[0] == x11(rank), "11.11: A's load of X after wait: %d", W[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Group_free(&ab);
        MPI_Group_free(&a);
    } else if (role == ROLE_B) {
        MPI_Group a = group_of(1, &partner);
        int y = -1, xy[2] = {-1, -1};
        MPI_Win_start(a, 0, win);
        MPI_Get(&y, 1, MPI_INT, partner, 1, 1, MPI_INT, win);
        MPI_Win_complete(win);
        CHECK(y == y11(partner), "11.11: B's get of Y in its start epoch: %d", y);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, partner, 0, win);
        MPI_Get(&xy[0], 1, MPI_INT, partner, 0, 1, MPI_INT, win);
        MPI_Get(&xy[1], 1, MPI_INT, partner, 1, 1, MPI_INT, win);
        MPI_Win_unlock(partner, win);
        CHECK(xy[0] == x11(partner) && xy[1] == y11(partner), "11.11: B got X %d, Y %d", xy[0],
              xy[1]);
        MPI_Group_free(&a);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
}

/* Example 11.12 on the ring: A puts X into its right neighbour under an
 * exclusive lock; after the barrier B posts to and starts on itself, with
 * both corrections the text gives: it gets X from its own window inside
 * the epoch, and loads X after wait. */
static void ex11_12(void) {
    MPI_Win win;
    int *X = int_window(1, 0, &win), v = 12000 + rank, got = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group b = group_of(1, &rank);
    MPI_Win_post(b, 0, win);
    MPI_Win_start(b, 0, win);
    MPI_Get(&got, 1, MPI_INT, rank, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    int loaded = *X;
    CHECK(got == 12000 + left, "11.12: B's get of its own X: %d", got);
    CHECK(loaded == 12000 + left, "11.12: B's load of X after wait: %d", loaded);
    MPI_Group_free(&b);
    MPI_Win_free(&win);
}

/* The halo update of 11.13 to 11.16: A is halo, boundary, core,
 * boundary, halo; each iteration puts the boundaries into the
 * neighbours' halos (or gets the neighbours' boundaries into its own),
 * then updates the core and boundaries from them. */
static int value_at(int r, int it, int i) { return r * 100000 + it * 1000 + i; }

static void fill(int *A, int it) {
    for (int i = H; i < 3 * H + CORE; i++) A[i] = value_at(rank, it, i);
}

/* update_boundary(A) and update_core(A) of 11.14 and 11.16. */
static void update_boundary(int *A, int it) {
    for (int i = 0; i < H; i++) {
        A[H + i] = value_at(rank, it, H + i);
        A[2 * H + CORE + i] = value_at(rank, it, 2 * H + CORE + i);
    }
}

static void update_core(int *A, int it) {
    for (int i = 2 * H; i < 2 * H + CORE; i++) A[i] = value_at(rank, it, i);
}

/* The boundaries and core of iteration `it` are this rank's. */
static void check_own(const int *A, int it, const char *example) {
    for (int i = H; i < 3 * H + CORE; i++)
        CHECK(A[i] == value_at(rank, it, i), "%s: own element %d = %d", example, i, A[i]);
}

static void check_halos(const int *A, int it, const char *example) {
    for (int i = 0; i < H; i++) {
        /* My left halo holds my left neighbour's right boundary. */
        CHECK(A[i] == value_at(left, it, 2 * H + CORE + i), "%s: left halo %d = %d", example, i, A[i]);
        CHECK(A[3 * H + CORE + i] == value_at(right, it, H + i), "%s: right halo %d = %d", example, i,
              A[3 * H + CORE + i]);
    }
}

/* Example 11.13: the loosely synchronous fence loop. */
static void ex11_13(void) {
    int *A;
    MPI_Win win;
    MPI_Win_allocate((4 * H + CORE) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &A,
                     &win);
    MPI_Win_fence(0, win);
    for (int it = 0; it < ITERATIONS; it++) {
        fill(A, it);
        MPI_Win_fence(0, win);
        MPI_Put(&A[2 * H + CORE], H, MPI_INT, right, 0, H, MPI_INT, win);
        MPI_Put(&A[H], H, MPI_INT, left, 3 * H + CORE, H, MPI_INT, win);
        MPI_Win_fence(0, win);
        check_halos(A, it, "11.13");
    }
    MPI_Win_free(&win);
}

/* Example 11.14: the same with gets, the core update overlapping them:
 * update_boundary, a fence (MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE), gets
 * of both neighbours' boundaries into the own halos, update_core, a
 * fence (MPI_MODE_NOSUCCEED). */
static void ex11_14(void) {
    MPI_Win win;
    int *A = int_window(4 * H + CORE, 0, &win);
    for (int it = 0; it < ITERATIONS; it++) {
        update_boundary(A, it);
        MPI_Win_fence(MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE, win);
        MPI_Get(&A[0], H, MPI_INT, left, 2 * H + CORE, H, MPI_INT, win);
        MPI_Get(&A[3 * H + CORE], H, MPI_INT, right, H, H, MPI_INT, win);
        update_core(A, it);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        check_halos(A, it, "11.14");
        check_own(A, it, "11.14");
    }
    MPI_Win_free(&win);
}

/* Example 11.15: the same with post/start/complete/wait on the
 * neighbours' group. */
static void ex11_15(void) {
    int *A;
    MPI_Win win;
    MPI_Group world, neighbours;
    MPI_Win_allocate((4 * H + CORE) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &A,
                     &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int both[2] = {left, right};
    MPI_Group_incl(world, left == right ? 1 : 2, both, &neighbours);
    for (int it = 0; it < ITERATIONS; it++) {
        fill(A, it);
        MPI_Win_post(neighbours, 0, win);
        MPI_Win_start(neighbours, 0, win);
        MPI_Put(&A[2 * H + CORE], H, MPI_INT, right, 0, H, MPI_INT, win);
        MPI_Put(&A[H], H, MPI_INT, left, 3 * H + CORE, H, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        check_halos(A, it, "11.15");
    }
    MPI_Group_free(&neighbours);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

/* Example 11.16: 11.14 with post (MPI_MODE_NOPUT), start, complete and
 * wait on the neighbours' group. */
static void ex11_16(void) {
    MPI_Win win;
    int *A = int_window(4 * H + CORE, 0, &win), both[2] = {left, right};
    MPI_Group neighbours = group_of(2, both);
    for (int it = 0; it < ITERATIONS; it++) {
        update_boundary(A, it);
        MPI_Win_post(neighbours, MPI_MODE_NOPUT, win);
        MPI_Win_start(neighbours, 0, win);
        MPI_Get(&A[0], H, MPI_INT, left, 2 * H + CORE, H, MPI_INT, win);
        MPI_Get(&A[3 * H + CORE], H, MPI_INT, right, H, H, MPI_INT, win);
        update_core(A, it);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        check_halos(A, it, "11.16");
        check_own(A, it, "11.16");
    }
    MPI_Group_free(&neighbours);
    MPI_Win_free(&win);
}

/* Example 11.17's arrays: halo, interior, halo. */
enum { CB = 2 * H + INTERIOR };

/* update2(X, Y): a local update of X's interior that depends on X (its
 * halos included) and on Y. */
static void update2(unsigned *x, const unsigned *y) {
    unsigned old[CB];
    memcpy(old, x, sizeof old);
    for (int i = H; i < H + INTERIOR; i++) x[i] = old[i - 1] + old[i + 1] + 3 * y[i] + 1;
}

/* update1(X): a local update of X's interior that depends on X only. */
static void update1(unsigned *x, int it) {
    for (int i = H; i < H + INTERIOR; i++)
        x[i] = ((x[i] << 5) | (x[i] >> 27)) ^ ((unsigned)i << 8) ^ (unsigned)it;
}

/* What 11.17's gets fetch into every rank's array: the left halo from
 * the left neighbour's last H interior elements, the right halo from the
 * right neighbour's first. `arrays` holds `size` arrays. */
static void exchange(unsigned *arrays) {
    unsigned *old = malloc(sizeof(unsigned) * CB * size);
    memcpy(old, arrays, sizeof(unsigned) * CB * size);
    for (int r = 0; r < size; r++) {
        const unsigned *l = old + CB * ((r + size - 1) % size), *rt = old + CB * ((r + 1) % size);
        memcpy(arrays + CB * r, l + INTERIOR, sizeof(unsigned) * H);
        memcpy(arrays + CB * r + H + INTERIOR, rt + H, sizeof(unsigned) * H);
    }
    free(old);
}

static unsigned cb_init(int r, int i) { return 17000u + 100u * (unsigned)r + (unsigned)i; }

/* Example 11.17: the checkerboard (double buffer): A0 and A1 are updated
 * in turn, each exchange of one array's halos (gets in an epoch whose
 * start asserts MPI_MODE_NOCHECK, the posts MPI_MODE_NOCHECK and
 * MPI_MODE_NOPUT) overlapping the update of the other; after each
 * iteration both arrays are checked against a serial run of every
 * rank's. */
static void ex11_17(void) {
    unsigned *a0 = calloc((size_t)CB * size, sizeof(unsigned));
    unsigned *a1 = calloc((size_t)CB * size, sizeof(unsigned));
    for (int r = 0; r < size; r++)
        for (int i = H; i < H + INTERIOR; i++) a0[CB * r + i] = cb_init(r, i);
    MPI_Win win0, win1;
    unsigned *A0 = (unsigned *)int_window(CB, 0, &win0), *A1 = (unsigned *)int_window(CB, 0, &win1);
    for (int i = H; i < H + INTERIOR; i++) A0[i] = cb_init(rank, i);
    int both[2] = {left, right};
    MPI_Group neighbours = group_of(2, both);
    MPI_Win_post(neighbours, MPI_MODE_NOCHECK | MPI_MODE_NOPUT, win0);
    /* The barrier is needed because the start call inside the loop uses
     * the nocheck option. */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it < ITERATIONS; it++) {
        /* Communication on A0 and computation on A1. */
        update2(A1, A0);
        MPI_Win_start(neighbours, MPI_MODE_NOCHECK, win0);
        MPI_Get(&A0[0], H, MPI_INT, left, INTERIOR, H, MPI_INT, win0);
        MPI_Get(&A0[H + INTERIOR], H, MPI_INT, right, H, H, MPI_INT, win0);
        update1(A1, it);
        MPI_Win_post(neighbours, MPI_MODE_NOCHECK | MPI_MODE_NOPUT, win1);
        MPI_Win_complete(win0);
        MPI_Win_wait(win0);

        /* Communication on A1 and computation on A0. */
        update2(A0, A1);
        MPI_Win_start(neighbours, MPI_MODE_NOCHECK, win1);
        MPI_Get(&A1[0], H, MPI_INT, left, INTERIOR, H, MPI_INT, win1);
        MPI_Get(&A1[H + INTERIOR], H, MPI_INT, right, H, H, MPI_INT, win1);
        update1(A0, it);
        if (it + 1 < ITERATIONS) MPI_Win_post(neighbours, MPI_MODE_NOCHECK | MPI_MODE_NOPUT, win0);
        MPI_Win_complete(win1);
        MPI_Win_wait(win1);

        /* The same on every rank's arrays, serially. */
        for (int r = 0; r < size; r++) update2(a1 + CB * r, a0 + CB * r);
        exchange(a0);
        for (int r = 0; r < size; r++) update1(a1 + CB * r, it);
        for (int r = 0; r < size; r++) update2(a0 + CB * r, a1 + CB * r);
        exchange(a1);
        for (int r = 0; r < size; r++) update1(a0 + CB * r, it);
        for (int i = 0; i < CB; i++) {
            CHECK(A0[i] == a0[CB * rank + i], "11.17 iteration %d: A0[%d] = %u, not %u", it, i,
                  A0[i], a0[CB * rank + i]);
            CHECK(A1[i] == a1[CB * rank + i], "11.17 iteration %d: A1[%d] = %u, not %u", it, i,
                  A1[i], a1[CB * rank + i]);
        }
    }
    MPI_Group_free(&neighbours);
    MPI_Win_free(&win1);
    MPI_Win_free(&win0);
    free(a0);
    free(a1);
}

/* Example 11.18: a counting semaphore at rank 0, X starting at the number
 * of ranks: each rank decrements it by accumulate, then polls with
 * get_accumulate (MPI_NO_OP) and flush until it is zero. */
static void ex11_18(void) {
    int *X, one = -1, x = -1;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &X, &win);
    if (rank == 0) *X = size;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush(0, win);
    int polls = 0;
    do {
        MPI_Get_accumulate(NULL, 0, MPI_INT, &x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        CHECK(++polls < 200000, "11.18: the semaphore stays at %d", x);
    } while (x != 0);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

/* The critical region of 11.19 and 11.20: rank 0's counter at `at`
 * incremented by a get and a put, which only the region keeps other
 * ranks out of; the count it found. */
static int critical_region(MPI_Win win, int at) {
    int count = -1;
    MPI_Get(&count, 1, MPI_INT, 0, at, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    count++;
    MPI_Put(&count, 1, MPI_INT, 0, at, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    return count - 1;
}

/* z = MPI_Get_accumulate(loc, MPI_NO_OP, 0) in the standard's words. */
static int read_int(MPI_Win win, int target, int disp) {
    int z = -1;
    MPI_Get_accumulate(NULL, 0, MPI_INT, &z, 1, MPI_INT, target, disp, 1, MPI_INT, MPI_NO_OP, win);
    return z;
}

/* Example 11.19: Peterson's algorithm between process A (rank 0, which
 * holds X and T) and process B (rank 1, which holds Y), repeated, a
 * barrier of every rank ending each round. In the critical region each
 * increments a counter at rank 0 by get and put: it must find the entries
 * before its own, and the count must be exact at the end; every flag and
 * turn read must be 0 or 1. */
static void ex11_19(void) {
    if (!runs_on_pairs("11.19")) return;
    enum { X = 0, T = 1, COUNT = 2, Y = 0 }; /* rank 0's X, T, counter; rank 1's Y */
    MPI_Win win;
    int *W = int_window(3, 0, &win), zero = 0, one = 1;
    for (int round = 0; round < ROUNDS; round++) {
        int count = -1, flags = 0, polls = 0;
        if (rank == 0) {
            MPI_Win_lock_all(0, win);
            W[X] = 1;
            MPI_Win_sync(win);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Accumulate(&one, 1, MPI_INT, 0, T, 1, MPI_INT, MPI_REPLACE, win);
            int t = 1, y = read_int(win, 1, Y);
            flags = y | t;
            while (y == 1 && t == 1) {
                y = read_int(win, 1, Y);
                t = read_int(win, 0, T);
                MPI_Win_flush_all(win);
                flags |= y | t;
                CHECK(++polls < MAX_POLLS, "11.19: A waited %d polls", polls);
            }
            count = critical_region(win, COUNT);
            MPI_Accumulate(&zero, 1, MPI_INT, 0, X, 1, MPI_INT, MPI_REPLACE, win);
            MPI_Win_unlock_all(win);
        } else if (rank == 1) {
            MPI_Win_lock_all(0, win);
            W[Y] = 1;
            MPI_Win_sync(win);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Accumulate(&zero, 1, MPI_INT, 0, T, 1, MPI_INT, MPI_REPLACE, win);
            int t = 0, x = read_int(win, 0, X);
            flags = x | t;
            while (x == 1 && t == 0) {
                x = read_int(win, 0, X);
                t = read_int(win, 0, T);
                MPI_Win_flush(0, win);
                flags |= x | t;
                CHECK(++polls < MAX_POLLS, "11.19: B waited %d polls", polls);
            }
            count = critical_region(win, COUNT);
            MPI_Accumulate(&zero, 1, MPI_INT, 1, Y, 1, MPI_INT, MPI_REPLACE, win);
            MPI_Win_unlock_all(win);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (rank < 2)
            CHECK((count == 2 * round || count == 2 * round + 1) && (flags & ~1) == 0,
                  "11.19 round %d: the critical region found %d entries before; flags and turn "
                  "read %#x",
                  round, count, flags);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        int total = W[COUNT];
        MPI_Win_unlock(0, win);
        CHECK(total == 2 * ROUNDS, "11.19: %d entries counted, not %d", total, 2 * ROUNDS);
    }
    MPI_Win_free(&win);
}

/* Example 11.20: a critical region by compare and swap on a lock word at
 * rank 0; inside it, a counter there is read and written back, so every
 * increment must show. */
static void ex11_20(void) {
    int *W;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &W, &win);
    if (rank == 0) W[0] = W[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < ROUNDS; r++) {
        int mine = rank + 1, zero = 0, prev = -1;
        do {
            MPI_Compare_and_swap(&mine, &zero, &prev, MPI_INT, 0, 0, win);
            MPI_Win_flush(0, win);
        } while (prev != 0);
        critical_region(win, 1);
        MPI_Compare_and_swap(&zero, &mine, &prev, MPI_INT, 0, 0, win);
        MPI_Win_flush(0, win);
        CHECK(prev == mine, "11.20: the lock word was %d while held", prev);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int total = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&total, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    CHECK(total == ROUNDS * size, "11.20: counter %d, not %d", total, ROUNDS * size);
    MPI_Win_free(&win);
}

/* Example 11.21 on pairs of ranks: X lies in A's part of a shared window
 * (MPI_Win_allocate_shared); in a lock_all (MPI_MODE_NOCHECK) epoch, A
 * stores X, calls MPI_Win_sync and sends; B receives, calls MPI_Win_sync,
 * loads X through the address MPI_Win_shared_query gives and sends back.
 * The standard writes it for the unified model; this library's shared
 * windows are separate (MPI_WIN_MODEL says so, checked here), and there
 * the example's two syncs do what it asks of them: A's makes its store
 * public, B's drops B's stale copy of the part it loads.
 * (MPI_F_SYNC_REG is Fortran's: C needs no equivalent.) */
static int x21(int a, int k) { return 21000 + 100 * a + k; }

static void ex11_21(void) {
    if (!runs_on_pairs("11.21")) return;
    int *mine, *X, *model, flag = 0, partner, token = -1;
    MPI_Win win;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_SEPARATE, "11.21: the shared window's model is %d", *model);
    enum role role = role_of(&partner);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    if (role == ROLE_A) {
        for (int k = 0; k < EXCHANGES; k++) {
            *mine = x21(rank, k);
            MPI_Win_sync(win);
            MPI_Send(&k, 1, MPI_INT, partner, 21, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, partner, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(token == k, "11.21: A got token %d back, not %d", token, k);
        }
    } else if (role == ROLE_B) {
        MPI_Aint bytes = 0;
        int unit = 0;
        MPI_Win_shared_query(win, partner, &bytes, &unit, &X);
        CHECK(bytes == sizeof(int) && unit == sizeof(int), "11.21: A's part %ld %d", (long)bytes,
              unit);
        for (int k = 0; k < EXCHANGES; k++) {
            MPI_Recv(&token, 1, MPI_INT, partner, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Win_sync(win);
            int x = *X;
            CHECK(token == k && x == x21(partner, k), "11.21 exchange %d: X = %d, not %d", k, x,
                  x21(partner, k));
            MPI_Send(&k, 1, MPI_INT, partner, 21, MPI_COMM_WORLD);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

/* Example 11.22's compute(i, data[j]), and its window's data at first. */
static void compute(int i, double *data) {
    for (int k = 0; k < CHUNK; k++) data[k] = data[k] * 2 + i;
}

static double chunk_init(int r, int at) { return r * 1000 + at; }

/* Example 11.22 on the ring: in a lock_all epoch each rank fetches
 * NSTEPS chunks of its right neighbour's window with MPI_Rget, computes
 * on them and writes them back with MPI_Rput, through BUFFERS buffers (a
 * buffer is reused once MPI_Waitany returned its put). Every chunk
 * fetched must hold the target's first data, and every window the
 * computed chunks at the end. */
static void ex11_22(void) {
    MPI_Request put_req[BUFFERS], get_req;
    double *base, data[BUFFERS][CHUNK];
    MPI_Win win;
    int target = right;
    for (int j = 0; j < BUFFERS; j++) put_req[j] = MPI_REQUEST_NULL;
    MPI_Win_allocate(NSTEPS * CHUNK * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    for (int at = 0; at < NSTEPS * CHUNK; at++) base[at] = chunk_init(rank, at);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < NSTEPS; i++) {
        int j;
        if (i < BUFFERS) {
            j = i;
        } else {
            j = -1;
            MPI_Waitany(BUFFERS, put_req, &j, MPI_STATUS_IGNORE);
            CHECK(j >= 0 && j < BUFFERS && put_req[j] == MPI_REQUEST_NULL, "11.22: waitany %d", j);
        }
        MPI_Rget(data[j], CHUNK, MPI_DOUBLE, target, i * CHUNK, CHUNK, MPI_DOUBLE, win, &get_req);
        MPI_Wait(&get_req, MPI_STATUS_IGNORE);
        for (int k = 0; k < CHUNK; k++)
            CHECK(data[j][k] == chunk_init(target, i * CHUNK + k), "11.22: chunk %d[%d] = %f", i, k,
                  data[j][k]);
        compute(i, data[j]);
        MPI_Rput(data[j], CHUNK, MPI_DOUBLE, target, i * CHUNK, CHUNK, MPI_DOUBLE, win,
                 &put_req[j]);
    }
    MPI_Waitall(BUFFERS, put_req, MPI_STATUSES_IGNORE);
    MPI_Win_unlock_all(win);
    for (int j = 0; j < BUFFERS; j++)
        CHECK(put_req[j] == MPI_REQUEST_NULL, "11.22: request %d left after waitall", j);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < NSTEPS; i++) {
        double want[CHUNK];
        for (int k = 0; k < CHUNK; k++) want[k] = chunk_init(rank, i * CHUNK + k);
        compute(i, want);
        for (int k = 0; k < CHUNK; k++)
            CHECK(base[i * CHUNK + k] == want[k], "11.22: chunk %d[%d] from rank %d = %f, not %f",
                  i, k, left, base[i * CHUNK + k], want[k]);
    }
    MPI_Win_unlock(rank, win);
    MPI_Win_free(&win);
}

/* Example 11.23: a linked list that every rank appends to, in a
 * dynamic window. */
enum { NUM_ELEMS = 10 };

/* Linked list pointer */
typedef struct {
    MPI_Aint disp;
    int rank;
} llist_ptr_t;

/* Linked list element */
typedef struct {
    llist_ptr_t next;
    int value;
} llist_elem_t;

static const llist_ptr_t nil = {(MPI_Aint)MPI_BOTTOM, -1};

/* List of locally allocated list elements. */
static llist_elem_t **my_elems = NULL;
static int my_elems_size = 0;
static int my_elems_count = 0;

/* Allocate a new shared linked list element */
static MPI_Aint alloc_elem(int value, MPI_Win win) {
    MPI_Aint disp;
    llist_elem_t *elem_ptr;
    /* Allocate the new element and register it with the window */
    MPI_Alloc_mem(sizeof(llist_elem_t), MPI_INFO_NULL, &elem_ptr);
    elem_ptr->value = value;
    elem_ptr->next = nil;
    MPI_Win_attach(win, elem_ptr, sizeof(llist_elem_t));
    /* Add the element to the list of local elements so we can free it
     * later. */
    if (my_elems_size == my_elems_count) {
        my_elems_size += 100;
        my_elems = realloc(my_elems, my_elems_size * sizeof(void *));
        CHECK(my_elems != NULL, "realloc");
    }
    my_elems[my_elems_count] = elem_ptr;
    my_elems_count++;
    MPI_Get_address(elem_ptr, &disp);
    return disp;
}

static void ex11_23(void) {
    int procid = rank, nproc = size, i;
    MPI_Win llist_win;
    llist_ptr_t head_ptr, tail_ptr;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &llist_win);
    /* Process 0 creates the head node */
    if (procid == 0) head_ptr.disp = alloc_elem(-1, llist_win);
    /* Broadcast the head pointer to everyone */
    head_ptr.rank = 0;
    MPI_Bcast(&head_ptr.disp, 1, MPI_AINT, 0, MPI_COMM_WORLD);
    tail_ptr = head_ptr;
    /* Lock the window for shared access to all targets */
    MPI_Win_lock_all(0, llist_win);
    /* All processes concurrently append NUM_ELEMS elements to the list */
    for (i = 0; i < NUM_ELEMS; i++) {
        llist_ptr_t new_elem_ptr;
        int success;
        /* Create a new list element and attach it to the window */
        new_elem_ptr.rank = procid;
        new_elem_ptr.disp = alloc_elem(procid * 100 + i, llist_win);
        /* Append the new node to the list. This might take multiple
         * attempts if others have already appended and our tail pointer
         * is stale. */
        do {
            llist_ptr_t next_tail_ptr = nil;
            MPI_Compare_and_swap((void *)&new_elem_ptr.rank, (void *)&nil.rank,
                                 (void *)&next_tail_ptr.rank, MPI_INT, tail_ptr.rank,
                                 (MPI_Aint) & (((llist_elem_t *)tail_ptr.disp)->next.rank),
                                 llist_win);
            MPI_Win_flush(tail_ptr.rank, llist_win);
            success = (next_tail_ptr.rank == nil.rank);
            if (success) {
                MPI_Accumulate(&new_elem_ptr.disp, 1, MPI_AINT, tail_ptr.rank,
                               (MPI_Aint) & (((llist_elem_t *)tail_ptr.disp)->next.disp), 1,
                               MPI_AINT, MPI_REPLACE, llist_win);
                MPI_Win_flush(tail_ptr.rank, llist_win);
                tail_ptr = new_elem_ptr;
            } else {
                /* Tail pointer is stale, fetch the displacement. May take
                 * multiple tries if it is being updated. (The standard's
                 * text reads it at next_tail_ptr.rank; the displacement
                 * lies in the tail element, at tail_ptr.rank, as MPICH's
                 * test of this list reads it.) */
                do {
                    MPI_Get_accumulate(NULL, 0, MPI_AINT, &next_tail_ptr.disp, 1, MPI_AINT,
                                       tail_ptr.rank,
                                       (MPI_Aint) & (((llist_elem_t *)tail_ptr.disp)->next.disp),
                                       1, MPI_AINT, MPI_NO_OP, llist_win);
                    MPI_Win_flush(tail_ptr.rank, llist_win);
                } while (next_tail_ptr.disp == nil.disp);
                tail_ptr = next_tail_ptr;
            }
        } while (!success);
    }
    MPI_Win_unlock_all(llist_win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* The harness: rank 0 walks the list from the head with gets and
     * checks every element once, each rank's in its order. */
    if (procid == 0) {
        int *seen = calloc(nproc, sizeof(int)), elems = 0;
        CHECK(seen != NULL, "calloc");
        llist_ptr_t at = head_ptr;
        MPI_Win_lock_all(0, llist_win);
        for (;;) {
            llist_elem_t elem;
            MPI_Get(&elem, sizeof elem, MPI_BYTE, at.rank, at.disp, sizeof elem, MPI_BYTE,
                    llist_win);
            MPI_Win_flush(at.rank, llist_win);
            if (elems > 0) {
                int owner = elem.value / 100, k = elem.value % 100;
                CHECK(owner == at.rank && owner < nproc && k == seen[owner],
                      "11.23: element %d of the list holds %d (rank %d's element %d next)", elems,
                      elem.value, owner, owner < nproc ? seen[owner] : -1);
                seen[owner]++;
            } else {
                CHECK(elem.value == -1, "11.23: the head holds %d", elem.value);
            }
            elems++;
            if (elem.next.rank == nil.rank) break;
            at = elem.next;
        }
        MPI_Win_unlock_all(llist_win);
        CHECK(elems == 1 + nproc * NUM_ELEMS, "11.23: %d elements in the list", elems);
        free(seen);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Free all the elements in the list */
    for (; my_elems_count > 0; my_elems_count--) {
        MPI_Win_detach(llist_win, my_elems[my_elems_count - 1]);
        MPI_Free_mem(my_elems[my_elems_count - 1]);
    }
    MPI_Win_free(&llist_win);
    free(my_elems);
    my_elems = NULL;
    my_elems_size = 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    ex11_1();
    ex11_2();
    ex11_3();
    ex11_4();
    ex11_5();
    ex11_6();
    ex11_8();
    ex11_10();
    ex11_11();
    ex11_12();
    ex11_13();
    ex11_14();
    ex11_15();
    ex11_16();
    ex11_17();
    ex11_18();
    ex11_19();
    ex11_20();
    ex11_21();
    ex11_22();
    ex11_23();
    if (rank == 0) printf("MPI-3.1 chapter 11 examples passed on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
