/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Derived datatypes from C: the constructors' sizes and extents, and
 * their data through point-to-point messages (a matrix column sent as a
 * vector, received contiguous and back), puts and gets (a column into
 * the right neighbour's matrix, a subarray got back), accumulates and
 * get_accumulates (an indexed layout of doubles), every element checked;
 * MPI_SHORT_INT, whose structs hold 2 bytes of padding that no call may
 * write, in messages, puts, gets and a type of its own; and derived types
 * in every collective (packed at one side, unpacked at the other, the
 * bytes between their pieces left alone), reductions included; structs
 * of mixed types laid out as C lays them out, and resized types. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { N = 6 }; /* N x N matrices of ints */

static int cell(int r, int row, int col) { return r * 10000 + row * 100 + col; }

/* A user operation: keeps the first operand (never called here: it is
 * refused on a derived type). */
static void keep_first(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Constructors. */
    MPI_Datatype column, pair, picks, block, hcol;
    MPI_Aint lb, extent;
    int bytes;
    MPI_Type_vector(N, 1, N, MPI_INT, &column);
    MPI_Type_commit(&column);
    MPI_Type_size(column, &bytes);
    MPI_Type_get_extent(column, &lb, &extent);
    CHECK(bytes == N * 4 && lb == 0 && extent == ((N - 1) * N + 1) * 4, "column %d %ld %ld", bytes,
          (long)lb, (long)extent);
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_size(pair, &bytes);
    CHECK(bytes == 16, "pair %d", bytes);
    int lens[3] = {2, 1, 3}, displs[3] = {0, 4, 7};
    MPI_Type_indexed(3, lens, displs, MPI_DOUBLE, &picks);
    MPI_Type_commit(&picks);
    MPI_Type_size(picks, &bytes);
    MPI_Type_get_extent(picks, &lb, &extent);
    CHECK(bytes == 6 * 8 && extent == 10 * 8, "indexed %d %ld", bytes, (long)extent);
    int sizes[2] = {N, N}, sub[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &block);
    MPI_Type_commit(&block);
    MPI_Type_size(block, &bytes);
    MPI_Type_get_extent(block, &lb, &extent);
    CHECK(bytes == 6 * 4 && lb == 0 && extent == N * N * 4, "subarray %d %ld", bytes, (long)extent);
    MPI_Type_create_hvector(N, 1, N * sizeof(int), MPI_INT, &hcol);
    MPI_Type_commit(&hcol);
    MPI_Type_size(hcol, &bytes);
    CHECK(bytes == N * 4, "hvector %d", bytes);

    /* A column sent as a vector, received contiguous; and back. */
    int m[N][N], got[N], back[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) { m[i][j] = cell(rank, i, j); back[i][j] = -1; }
    MPI_Sendrecv(&m[0][2], 1, column, right, 1, got, N, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++) CHECK(got[i] == cell(left, i, 2), "column row %d: %d", i, got[i]);
    MPI_Sendrecv(got, N, MPI_INT, left, 2, &back[0][4], 1, hcol, right, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            CHECK(back[i][j] == (j == 4 ? cell(rank, i, 2) : -1), "back %d,%d: %d", i, j, back[i][j]);

    /* A window holding a matrix: put my column 1 into my right
     * neighbour's column 3; get its 2x3 block at (1, 2) back. */
    int *w;
    MPI_Win win;
    MPI_Win_allocate(N * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    for (int i = 0; i < N * N; i++) w[i] = cell(rank, i / N, i % N);
    MPI_Win_fence(0, win);
    MPI_Put(&m[0][1], 1, column, right, 3, 1, column, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            CHECK(w[i * N + j] == (j == 3 ? cell(left, i, 1) : cell(rank, i, j)), "put %d,%d: %d",
                  i, j, w[i * N + j]);
    int six[6] = {0};
    MPI_Get(six, 6, MPI_INT, right, 0, 1, block, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            int row = 1 + i, col = 2 + j;
            int want = col == 3 ? cell(rank, row, 1) : cell(right, row, col);
            CHECK(six[i * 3 + j] == want, "get block %d,%d: %d", i, j, six[i * 3 + j]);
        }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);

    /* Accumulate through an indexed layout of doubles at rank 0. */
    double *d;
    MPI_Win_allocate(10 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &d, &win);
    for (int i = 0; i < 10; i++) d[i] = 0;
    MPI_Win_fence(0, win);
    double add[6] = {1, 2, 3, 4, 5, 6};
    MPI_Accumulate(add, 6, MPI_DOUBLE, 0, 0, 1, picks, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        double want[10] = {1, 2, 0, 0, 3, 0, 0, 4, 5, 6};
        for (int i = 0; i < 10; i++)
            CHECK(d[i] == want[i] * size, "accumulate %d: %f", i, d[i]);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);

    /* Get_accumulate through derived types at all three buffers: every
     * rank adds 6 contiguous doubles into the picks of its right
     * neighbour's window, getting the values from before into the even
     * doubles of a result (a vector with gaps, whose odd doubles stay). */
    MPI_Win_allocate(10 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &d, &win);
    for (int i = 0; i < 10; i++) d[i] = 100 * rank + i;
    MPI_Datatype evens;
    MPI_Type_vector(6, 1, 2, MPI_DOUBLE, &evens);
    MPI_Type_commit(&evens);
    double before[12];
    for (int i = 0; i < 12; i++) before[i] = -1;
    MPI_Win_fence(0, win);
    MPI_Get_accumulate(add, 6, MPI_DOUBLE, before, 1, evens, right, 0, 1, picks, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int pick_at[6] = {0, 1, 4, 7, 8, 9};
    for (int k = 0; k < 12; k++)
        CHECK(before[k] == (k % 2 ? -1 : 100 * right + pick_at[k / 2]), "get_accumulate result %d: %f",
              k, before[k]);
    for (int i = 0, k = 0; i < 10; i++) {
        double want = 100 * rank + i;
        if (k < 6 && pick_at[k] == i) want += add[k++];
        CHECK(d[i] == want, "get_accumulate target %d: %f, not %f", i, d[i], want);
    }
    /* MPI_NO_OP: an atomic get of the picks, the origin not read. */
    for (int i = 0; i < 12; i++) before[i] = -1;
    MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, before, 1, evens, left, 0, 1, picks, MPI_NO_OP, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int k = 0; k < 12; k++)
        CHECK(before[k] == (k % 2 ? -1 : 100 * left + pick_at[k / 2] + add[k / 2]),
              "get_accumulate no-op result %d: %f", k, before[k]);
    MPI_Win_free(&win);
    MPI_Type_free(&evens);

    /* MPI_SHORT_INT: 6 bytes of data in each 8-byte struct. What a
     * message, a put or a get writes are the shorts and ints; the padding
     * bytes after the shorts keep the receiver's 0x5a. */
    struct short_int { short value; int index; } sent[3], recvd[3], *si;
    for (int i = 0; i < 3; i++) {
        sent[i].value = (short)(-100 * rank - i);
        sent[i].index = 1000 * rank + i;
    }
#define SHORT_INTS_FROM(buf, r, what)                                                       \
    for (int i = 0; i < 3; i++) {                                                           \
        const unsigned char *bytes = (const unsigned char *)&(buf)[i];                      \
        CHECK((buf)[i].value == -100 * (r) - i && (buf)[i].index == 1000 * (r) + i &&       \
                  bytes[2] == 0x5a && bytes[3] == 0x5a,                                     \
              "%s %d: (%d, %d), padding %#x %#x", what, i, (buf)[i].value, (buf)[i].index,  \
              bytes[2], bytes[3]);                                                          \
    }
    MPI_Type_size(MPI_SHORT_INT, &bytes);
    MPI_Type_get_extent(MPI_SHORT_INT, &lb, &extent);
    CHECK(bytes == 6 && extent == sizeof(struct short_int), "short int %d %ld", bytes,
          (long)extent);
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_SHORT_INT, &three);
    MPI_Type_commit(&three);
    MPI_Type_size(three, &bytes);
    MPI_Type_get_extent(three, &lb, &extent);
    CHECK(bytes == 18 && lb == 0 && extent == 24, "three short ints %d %ld", bytes, (long)extent);
    MPI_Status status;
    int count = -1;
    memset(recvd, 0x5a, sizeof recvd);
    MPI_Sendrecv(sent, 3, MPI_SHORT_INT, right, 4, recvd, 3, MPI_SHORT_INT, left, 4,
                 MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_SHORT_INT, &count);
    CHECK(count == 3, "received %d MPI_SHORT_INT", count);
    SHORT_INTS_FROM(recvd, left, "message");
    memset(recvd, 0x5a, sizeof recvd);
    MPI_Sendrecv(sent, 1, three, right, 5, recvd, 3, MPI_SHORT_INT, left, 5, MPI_COMM_WORLD,
                 &status);
    MPI_Get_count(&status, MPI_SHORT_INT, &count);
    CHECK(count == 3, "received %d MPI_SHORT_INT of a type of three", count);
    MPI_Get_count(&status, three, &count);
    CHECK(count == 1, "received %d of a type of three", count);
    MPI_Get_count(&status, column, &count);
    CHECK(count == MPI_UNDEFINED, "18 bytes make %d columns of 24", count);
    SHORT_INTS_FROM(recvd, left, "message of a type of three");

    MPI_Win_allocate(sizeof sent, sizeof(struct short_int), MPI_INFO_NULL, MPI_COMM_WORLD, &si,
                     &win);
    memset(si, 0x5a, sizeof sent);
    MPI_Win_fence(0, win);
    MPI_Put(sent, 3, MPI_SHORT_INT, right, 0, 1, three, win);
    MPI_Win_fence(0, win);
    SHORT_INTS_FROM(si, left, "put");
    memset(recvd, 0x5a, sizeof recvd);
    MPI_Get(recvd, 3, MPI_SHORT_INT, right, 0, 3, MPI_SHORT_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    SHORT_INTS_FROM(recvd, rank, "get");
    memset(recvd, 0x5a, sizeof recvd);
    MPI_Request request;
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
    MPI_Rget(recvd, 1, three, left, 0, 3, MPI_SHORT_INT, win, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Win_unlock(left, win);
    SHORT_INTS_FROM(recvd, (left + size - 1) % size, "rget");
    MPI_Win_free(&win);
    MPI_Type_free(&three);

    /* Collectives. `gap` picks ints 0 and 2 of every 3: two ints of data
     * in an extent of three, so block r of a buffer of gaps starts at
     * int 3r and its middle int is never written. */
    MPI_Datatype gap;
    MPI_Type_vector(2, 1, 2, MPI_INT, &gap);
    MPI_Type_commit(&gap);
    int *gaps = malloc(3 * size * sizeof(int)), *twos = malloc(2 * size * sizeof(int));
    CHECK(gaps && twos, "malloc");

    /* Bcast of rank 0's column 2 into every rank's column 2. */
    int bm[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) bm[i][j] = rank == 0 ? cell(0, i, j) : -1;
    MPI_Bcast(&bm[0][2], 1, column, 0, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            CHECK(bm[i][j] == (j == 2 || rank == 0 ? cell(0, i, j) : -1), "bcast %d,%d: %d", i,
                  j, bm[i][j]);

    /* Gather of every rank's column 1 into rows of the root's. */
    int *rows = malloc(N * size * sizeof(int));
    CHECK(rows != NULL, "malloc");
    MPI_Gather(&m[0][1], 1, column, rows, N, MPI_INT, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                CHECK(rows[r * N + i] == cell(r, i, 1), "gather %d,%d: %d", r, i, rows[r * N + i]);

    /* Allgather of two ints per rank into gaps. */
    int two[2] = {100 * rank, 100 * rank + 1};
    for (int i = 0; i < 3 * size; i++) gaps[i] = -1;
    MPI_Allgather(two, 2, MPI_INT, gaps, 1, gap, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 3; k++)
            CHECK(gaps[3 * r + k] == (k == 1 ? -1 : 100 * r + k / 2), "allgather %d,%d: %d", r, k,
                  gaps[3 * r + k]);

    /* Scatter from gaps at rank 0: rank r gets the two ints of block r. */
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 3; k++) gaps[3 * r + k] = k == 1 ? -1 : 10 * r + k / 2;
    two[0] = two[1] = -1;
    MPI_Scatter(gaps, 1, gap, two, 2, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(two[0] == 10 * rank && two[1] == 10 * rank + 1, "scatter: %d %d", two[0], two[1]);

    /* Alltoall: rank s sends block r of its gaps to rank r, which keeps
     * it as two ints at 2s. */
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 3; k++) gaps[3 * r + k] = k == 1 ? -1 : 100 * rank + 10 * r + k / 2;
    MPI_Alltoall(gaps, 1, gap, twos, 2, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++)
        for (int k = 0; k < 2; k++)
            CHECK(twos[2 * s + k] == 100 * s + 10 * rank + k, "alltoall from %d, %d: %d", s, k,
                  twos[2 * s + k]);
    /* And back, into gaps. */
    for (int i = 0; i < 3 * size; i++) gaps[i] = -1;
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 2; k++) twos[2 * r + k] = 100 * rank + 10 * r + k;
    MPI_Alltoall(twos, 2, MPI_INT, gaps, 1, gap, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++)
        for (int k = 0; k < 3; k++)
            CHECK(gaps[3 * s + k] == (k == 1 ? -1 : 100 * s + 10 * rank + k / 2),
                  "alltoall back from %d, %d: %d", s, k, gaps[3 * s + k]);

    /* Allgatherv: rank r sends r % 2 + 1 gaps' worth (2 or 4 ints), placed
     * at block displacements 0, 1, 3, 4, 6, ... (in extents of gap). */
    int *counts = malloc(size * sizeof(int)), *displs_v = malloc(size * sizeof(int));
    CHECK(counts && displs_v, "malloc");
    int blocks = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r % 2 + 1;
        displs_v[r] = blocks;
        blocks += counts[r];
    }
    int *vgaps = malloc(3 * blocks * sizeof(int));
    CHECK(vgaps != NULL, "malloc");
    for (int i = 0; i < 3 * blocks; i++) vgaps[i] = -1;
    int four[4] = {1000 * rank, 1000 * rank + 1, 1000 * rank + 2, 1000 * rank + 3};
    MPI_Allgatherv(four, 2 * counts[rank], MPI_INT, vgaps, counts, displs_v, gap, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int b = 0; b < counts[r]; b++)
            for (int k = 0; k < 3; k++) {
                int at = 3 * (displs_v[r] + b) + k;
                CHECK(vgaps[at] == (k == 1 ? -1 : 1000 * r + 2 * b + k / 2),
                      "allgatherv rank %d block %d int %d: %d", r, b, k, vgaps[at]);
            }
    /* Scatterv back from rank 0's vgaps: rank r gets its own four ints. */
    int mine4[4] = {-1, -1, -1, -1};
    MPI_Scatterv(vgaps, counts, displs_v, gap, mine4, 2 * counts[rank], MPI_INT, 0,
                 MPI_COMM_WORLD);
    for (int k = 0; k < 4; k++)
        CHECK(mine4[k] == (k < 2 * counts[rank] ? 1000 * rank + k : -1), "scatterv %d: %d", k,
              mine4[k]);
    /* Gatherv of columns (vector types) into rows of ints at the last rank. */
    int *rcounts = malloc(size * sizeof(int)), *rdispls = malloc(size * sizeof(int));
    CHECK(rcounts && rdispls, "malloc");
    for (int r = 0; r < size; r++) {
        rcounts[r] = N;
        rdispls[r] = N * (size - 1 - r); /* reversed */
    }
    for (int i = 0; i < N * size; i++) rows[i] = -1;
    MPI_Gatherv(&m[0][3], 1, column, rows, rcounts, rdispls, MPI_INT, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                CHECK(rows[N * (size - 1 - r) + i] == cell(r, i, 3), "gatherv %d,%d: %d", r, i,
                      rows[N * (size - 1 - r) + i]);
    /* Alltoallv: rank s sends rank r block r of its gaps (one gap each),
     * received as two ints at 2s. */
    int *ones = malloc(size * sizeof(int)), *at1 = malloc(size * sizeof(int));
    int *twocounts = malloc(size * sizeof(int)), *at2 = malloc(size * sizeof(int));
    CHECK(ones && at1 && twocounts && at2, "malloc");
    for (int r = 0; r < size; r++) {
        ones[r] = 1;
        at1[r] = r;
        twocounts[r] = 2;
        at2[r] = 2 * r;
        for (int k = 0; k < 3; k++) gaps[3 * r + k] = k == 1 ? -1 : 100 * rank + 10 * r + k / 2;
    }
    for (int i = 0; i < 2 * size; i++) twos[i] = -1;
    MPI_Alltoallv(gaps, ones, at1, gap, twos, twocounts, at2, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++)
        for (int k = 0; k < 2; k++)
            CHECK(twos[2 * s + k] == 100 * s + 10 * rank + k, "alltoallv from %d, %d: %d", s, k,
                  twos[2 * s + k]);

    /* Reductions on derived types of one predefined type: the picks of
     * an indexed type of doubles summed, the rest left alone; a column's
     * maximum at the root. */
    double vals[10], sums[10];
    for (int i = 0; i < 10; i++) {
        vals[i] = rank + i;
        sums[i] = -1;
    }
    MPI_Allreduce(vals, sums, 1, picks, MPI_SUM, MPI_COMM_WORLD);
    int picked[10] = {1, 1, 0, 0, 1, 0, 0, 1, 1, 1};
    for (int i = 0; i < 10; i++) {
        double want = picked[i] ? size * (size - 1) / 2.0 + size * i : -1;
        CHECK(sums[i] == want, "allreduce pick %d: %f, not %f", i, sums[i], want);
    }
    MPI_Allreduce(MPI_IN_PLACE, vals, 1, picks, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 10; i++)
        CHECK(vals[i] == (picked[i] ? size - 1 + i : rank + i), "allreduce in place %d: %f", i,
              vals[i]);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) bm[i][j] = -1;
    MPI_Reduce(&m[0][5], &bm[0][5], 1, column, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                CHECK(bm[i][j] == (j == 5 ? cell(size - 1, i, 5) : -1), "reduce %d,%d: %d", i, j,
                      bm[i][j]);

    /* What a reduction of a derived type refuses: a user operation, and a
     * type of MPI_SHORT_INT (whose padding leaves no array of values). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Op mine_op;
    MPI_Op_create(keep_first, 1, &mine_op);
    int err = MPI_Allreduce(vals, sums, 1, picks, mine_op, MPI_COMM_WORLD), errclass = 0;
    MPI_Error_class(err, &errclass);
    CHECK(errclass == MPI_ERR_OP, "a user operation on a derived type: class %d", errclass);
    MPI_Op_free(&mine_op);
    MPI_Datatype three_si;
    MPI_Type_contiguous(3, MPI_SHORT_INT, &three_si);
    MPI_Type_commit(&three_si);
    err = MPI_Allreduce(sent, recvd, 1, three_si, MPI_MINLOC, MPI_COMM_WORLD);
    MPI_Error_class(err, &errclass);
    CHECK(errclass == MPI_ERR_TYPE, "a derived type of MPI_SHORT_INT reduced: class %d", errclass);
    MPI_Type_free(&three_si);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(gaps);
    free(twos);
    free(rows);
    free(counts);
    free(displs_v);
    free(vgaps);
    free(rcounts);
    free(rdispls);
    free(ones);
    free(at1);
    free(twocounts);
    free(at2);
    MPI_Type_free(&gap);

    /* Structs: {int; double; char[3]} as gcc -m32 lays it out (16 bytes:
     * the double at 4, the chars at 12, a byte of padding), three of them
     * in a message and a bcast; the padding stays the receiver's. */
    struct rec {
        int a;
        double b;
        char c[3];
    } recs[3], got_recs[3];
    int rlens[3] = {1, 1, 3};
    MPI_Aint rdisp[3], rec_at;
    MPI_Datatype rtypes[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, rec_type;
    MPI_Get_address(&recs[0], &rec_at);
    MPI_Get_address(&recs[0].a, &rdisp[0]);
    MPI_Get_address(&recs[0].b, &rdisp[1]);
    MPI_Get_address(&recs[0].c, &rdisp[2]);
    for (int i = 0; i < 3; i++) rdisp[i] = MPI_Aint_diff(rdisp[i], rec_at);
    CHECK(rdisp[1] == 4 && rdisp[2] == 12, "struct offsets %ld %ld", (long)rdisp[1],
          (long)rdisp[2]);
    MPI_Type_create_struct(3, rlens, rdisp, rtypes, &rec_type);
    MPI_Type_commit(&rec_type);
    MPI_Type_size(rec_type, &bytes);
    MPI_Type_get_extent(rec_type, &lb, &extent);
    MPI_Aint true_lb, true_extent;
    MPI_Type_get_true_extent(rec_type, &true_lb, &true_extent);
    CHECK(bytes == 15 && lb == 0 && extent == (MPI_Aint)sizeof(struct rec) && true_lb == 0 &&
              true_extent == 15,
          "struct: size %d, lb %ld, extent %ld, true %ld %ld", bytes, (long)lb, (long)extent,
          (long)true_lb, (long)true_extent);
    for (int i = 0; i < 3; i++) {
        recs[i].a = 10 * rank + i;
        recs[i].b = rank + i / 4.0;
        for (int k = 0; k < 3; k++) recs[i].c[k] = (char)('a' + rank % 20 + i + k);
    }
#define RECS_FROM(buf, r, what)                                                              \
    for (int i = 0; i < 3; i++) {                                                            \
        const unsigned char *raw = (const unsigned char *)&(buf)[i];                         \
        int fine = (buf)[i].a == 10 * (r) + i && (buf)[i].b == (r) + i / 4.0 && raw[15] == 0x5a; \
        for (int k = 0; k < 3; k++) fine = fine && (buf)[i].c[k] == (char)('a' + (r) % 20 + i + k); \
        CHECK(fine, "%s %d: %d %f %.3s, padding %#x", what, i, (buf)[i].a, (buf)[i].b,        \
              (buf)[i].c, raw[15]);                                                          \
    }
    memset(got_recs, 0x5a, sizeof got_recs);
    MPI_Sendrecv(recs, 3, rec_type, right, 6, got_recs, 3, rec_type, left, 6, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    RECS_FROM(got_recs, left, "struct message");
    memset(got_recs, 0x5a, sizeof got_recs);
    MPI_Bcast(rank == 0 ? (void *)recs : (void *)got_recs, 3, rec_type, 0, MPI_COMM_WORLD);
    if (rank != 0) RECS_FROM(got_recs, 0, "struct bcast");
    /* A struct mixes types: nothing combines it. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err_rec = MPI_Allreduce(recs, got_recs, 1, rec_type, MPI_SUM, MPI_COMM_WORLD), cls = 0;
    MPI_Error_class(err_rec, &cls);
    CHECK(cls == MPI_ERR_TYPE, "a struct reduced: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&rec_type);

    /* A column resized to one int's extent: two of them are columns 0
     * and 1, received contiguous. */
    MPI_Datatype narrow_column;
    MPI_Type_create_resized(column, 0, sizeof(int), &narrow_column);
    MPI_Type_commit(&narrow_column);
    MPI_Type_get_extent(narrow_column, &lb, &extent);
    MPI_Type_get_true_extent(narrow_column, &true_lb, &true_extent);
    CHECK(lb == 0 && extent == sizeof(int) && true_extent == ((N - 1) * N + 1) * 4,
          "resized column: %ld %ld %ld", (long)lb, (long)extent, (long)true_extent);
    int two_columns[2 * N];
    MPI_Sendrecv(&m[0][0], 2, narrow_column, right, 7, two_columns, 2 * N, MPI_INT, left, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < N; i++)
            CHECK(two_columns[k * N + i] == cell(left, i, k), "resized column %d row %d: %d", k, i,
                  two_columns[k * N + i]);
    MPI_Type_free(&narrow_column);

    /* Origin types that reach below their buffer: MPI_BOTTOM with the
     * absolute addresses of MPI_Get_address, and a negative displacement
     * from a base inside the array. */
    int source[4] = {10 * rank + 1, 10 * rank + 2, 10 * rank + 3, 10 * rank + 4}, sink[4] = {0};
    int *exposed;
    MPI_Win bottom;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &exposed,
                     &bottom);
    MPI_Aint at[2];
    MPI_Get_address(&source[3], &at[0]);
    MPI_Get_address(&source[0], &at[1]);
    int unit_lengths[2] = {1, 1};
    MPI_Datatype absolute, below;
    MPI_Type_create_hindexed(2, unit_lengths, at, MPI_INT, &absolute);
    MPI_Type_commit(&absolute);
    MPI_Aint behind[2] = {-3 * (MPI_Aint)sizeof(int), -2 * (MPI_Aint)sizeof(int)};
    MPI_Type_create_hindexed(2, unit_lengths, behind, MPI_INT, &below);
    MPI_Type_commit(&below);
    MPI_Win_fence(0, bottom);
    MPI_Put(MPI_BOTTOM, 1, absolute, right, 0, 2, MPI_INT, bottom);
    MPI_Put(&source[3], 1, below, right, 2, 2, MPI_INT, bottom);
    MPI_Win_fence(0, bottom);
    CHECK(exposed[0] == 10 * left + 4 && exposed[1] == 10 * left + 1 &&
              exposed[2] == 10 * left + 1 && exposed[3] == 10 * left + 2,
          "puts from below the buffer: %d %d %d %d", exposed[0], exposed[1], exposed[2],
          exposed[3]);
    MPI_Get(&sink[3], 1, below, right, 0, 2, MPI_INT, bottom);
    MPI_Win_fence(0, bottom);
    CHECK(sink[0] == 10 * rank + 4 && sink[1] == 10 * rank + 1 && sink[2] == 0 && sink[3] == 0,
          "get into below the buffer: %d %d %d %d", sink[0], sink[1], sink[2], sink[3]);
    MPI_Type_free(&absolute);
    MPI_Type_free(&below);
    MPI_Win_free(&bottom);

    /* Errors: an uncommitted type; a freed one. */
    MPI_Datatype loose;
    MPI_Type_contiguous(3, MPI_INT, &loose);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send(m, 1, loose, right, 3, MPI_COMM_WORLD), class = 0;
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_TYPE, "uncommitted: class %d", class);
    MPI_Type_free(&loose);
    CHECK(loose == MPI_DATATYPE_NULL, "freed handle");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&column);
    MPI_Type_free(&pair);
    MPI_Type_free(&picks);
    MPI_Type_free(&block);
    MPI_Type_free(&hcol);
    printf("rank %d of %d: datatype checks passed\n", rank, size);
    MPI_Finalize();
    return 0;
}
