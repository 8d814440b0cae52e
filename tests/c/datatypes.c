/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Derived datatypes from C: the constructors' sizes and extents, and
 * their data through point-to-point messages (a matrix column sent as a
 * vector, received contiguous and back), puts and gets (a column into
 * the right neighbour's matrix, a subarray got back), and accumulates
 * (an indexed layout of doubles), every element checked; and
 * MPI_SHORT_INT, whose structs hold 2 bytes of padding that no call may
 * write, in messages, puts, gets and a type of its own. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { N = 6 }; /* N x N matrices of ints */

static int cell(int r, int row, int col) { return r * 10000 + row * 100 + col; }

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
