/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Examples of MPI-3.1's chapter 11 (one-sided communications) in C, as
 * the standard writes them, on every rank of the run, every value
 * checked. The translation of each keeps the standard's calls and their
 * order; what it adds is the harness that makes values checkable
 * (initial contents, a barrier between parts, a read-back) and, where the
 * standard names two processes A and B, the ring: every rank is A towards
 * its right neighbour and B for its own window.
 *
 * One change runs through them: the standard makes its windows with
 * MPI_Win_create on the program's arrays; here they come from
 * MPI_Win_allocate and the arrays are the memory it gives, because a
 * program's own memory is private to its core on the SCC.
 *
 * Covered: 11.1 (A = B(map), a get per process through indexed-block
 * datatypes at both sides), 11.2 (the same with a get per element), 11.3 (a histogram by
 * accumulate), 11.4 (start, put, complete against a late post), 11.5
 * (lock, put, unlock), 11.6 (a store under the own lock, a get after a
 * barrier), 11.8 (a put under lock, a load under the own lock; and its
 * polling form), 11.10 (a store, a shared lock, MPI_Win_sync, a get),
 * 11.13 (the loosely synchronous fence loop with halo puts), 11.15 (the
 * same with post/start/complete/wait), 11.18 (the counting semaphore by
 * accumulate and get_accumulate) and 11.20 (a critical region by compare
 * and swap). Not here yet: 11.7 and 11.9 (unified-model windows), 11.21
 * to 11.23 (shared, request-based and dynamic windows), which this
 * library does not carry out yet, and 11.11, 11.12, 11.14, 11.16, 11.17
 * and 11.19 (the Rust program rma-mpi-examples runs them all over rma). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { M = 12, H = 8, CORE = 16, ITERATIONS = 3, ROUNDS = 3 };

static int rank, size, left, right;

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

/* The halo update of 11.13 and 11.15: A is halo, boundary, core,
 * boundary, halo; each iteration puts the boundaries into the
 * neighbours' halos, then updates the core and boundaries from them. */
static int value_at(int r, int it, int i) { return r * 100000 + it * 1000 + i; }

static void fill(int *A, int it) {
    for (int i = H; i < 3 * H + CORE; i++) A[i] = value_at(rank, it, i);
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
        int count = -1;
        MPI_Get(&count, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        count++;
        MPI_Put(&count, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
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
    ex11_13();
    ex11_15();
    ex11_18();
    ex11_20();
    if (rank == 0) printf("MPI-3.1 chapter 11 examples passed on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
