/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Point-to-point communication and communicators from C, every message
 * checked: tags and wildcards, statuses and counts, the order of messages
 * and of posted receives, nonblocking calls, probes, truncation, split
 * and duplicated communicators (with their own collectives and a window),
 * the irregular collectives and all-to-alls, and a send the heap cannot
 * stage (MPI_ERR_NO_MEM). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void ring(int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[3] = {rank, rank * 2, rank * 3}, in[3] = {-1, -1, -1};
    MPI_Status st;
    if (rank % 2 == 0) {
        MPI_Send(out, 3, MPI_INT, right, 10 + rank, MPI_COMM_WORLD);
        MPI_Recv(in, 3, MPI_INT, left, 10 + left, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(in, 3, MPI_INT, left, 10 + left, MPI_COMM_WORLD, &st);
        MPI_Send(out, 3, MPI_INT, right, 10 + rank, MPI_COMM_WORLD);
    }
    CHECK(in[0] == left && in[1] == 2 * left && in[2] == 3 * left, "ring %d %d %d", in[0], in[1], in[2]);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 10 + left && count == 3, "status %d %d %d",
          st.MPI_SOURCE, st.MPI_TAG, count);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == MPI_UNDEFINED, "12 bytes are no whole doubles: %d", count);
}

static void wildcards_and_order(int rank, int size) {
    /* Every other rank sends 3 messages to rank 0 with tags 1, 2, 3. */
    if (rank != 0) {
        for (int k = 1; k <= 3; k++) {
            int v = rank * 100 + k;
            MPI_Send(&v, 1, MPI_INT, 0, k, MPI_COMM_WORLD);
        }
    } else {
        /* Tag 3 first from each: the others wait unexpected. */
        for (int r = 1; r < size; r++) {
            int v = 0;
            MPI_Recv(&v, 1, MPI_INT, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == r * 100 + 3, "tag 3 from %d: %d", r, v);
        }
        /* Then the rest by wildcard: per sender, tag 1 before tag 2. */
        int *next = calloc(size, sizeof(int));
        for (int i = 0; i < 2 * (size - 1); i++) {
            int v = 0;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int r = st.MPI_SOURCE;
            CHECK(r > 0 && r < size, "source %d", r);
            next[r]++;
            CHECK(st.MPI_TAG == next[r] && v == r * 100 + next[r], "from %d: tag %d value %d",
                  r, st.MPI_TAG, v);
        }
        free(next);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void nonblocking(int rank, int size) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* Two receives posted for any tag take the messages in posting order. */
    int a = -1, b = -1, x = rank * 10 + 1, y = rank * 10 + 2;
    MPI_Request req[4];
    MPI_Status st[4];
    MPI_Irecv(&a, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&b, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&x, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&y, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, st);
    CHECK(a == left * 10 + 1 && b == left * 10 + 2, "posting order: %d %d", a, b);
    CHECK(st[0].MPI_TAG == 7 && st[1].MPI_TAG == 8, "tags %d %d", st[0].MPI_TAG, st[1].MPI_TAG);
    for (int i = 0; i < 4; i++) CHECK(req[i] == MPI_REQUEST_NULL, "request %d freed", i);

    /* Test until done; Waitany. */
    int c = -1, flag = 0;
    MPI_Request r;
    MPI_Irecv(&c, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r);
    MPI_Send(&rank, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
    while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(c == left && r == MPI_REQUEST_NULL, "test %d", c);
    int d[2] = {-1, -1}, idx = -1;
    MPI_Request two[2];
    MPI_Irecv(&d[0], 1, MPI_INT, left, 11, MPI_COMM_WORLD, &two[0]);
    MPI_Irecv(&d[1], 1, MPI_INT, left, 12, MPI_COMM_WORLD, &two[1]);
    int e = rank + 500;
    MPI_Send(&e, 1, MPI_INT, right, 12, MPI_COMM_WORLD);
    MPI_Waitany(2, two, &idx, MPI_STATUS_IGNORE);
    CHECK(idx == 1 && d[1] == left + 500, "waitany %d %d", idx, d[1]);
    /* Tag 11 goes only once the right neighbour's Waitany is over, which
     * it says with tag 13: else it could find both done, and take 0. */
    int over = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, left, 13, &over, 1, MPI_INT, right, 13, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(over == right, "waitany over at %d", over);
    MPI_Send(&e, 1, MPI_INT, right, 11, MPI_COMM_WORLD);
    MPI_Wait(&two[0], MPI_STATUS_IGNORE);
    CHECK(d[0] == left + 500, "wait %d", d[0]);

    /* Sendrecv and PROC_NULL. */
    int s = rank, got = -1;
    MPI_Status st1;
    MPI_Sendrecv(&s, 1, MPI_INT, right, 20, &got, 1, MPI_INT, left, 20, MPI_COMM_WORLD, &st1);
    CHECK(got == left, "sendrecv %d", got);
    MPI_Send(&s, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st1);
    CHECK(st1.MPI_SOURCE == MPI_PROC_NULL, "proc null source %d", st1.MPI_SOURCE);

    /* Probe, then receive what was probed. */
    double vals[5] = {1.5, 2.5, 3.5, 4.5, (double)rank};
    MPI_Send(vals, 5, MPI_DOUBLE, right, 30, MPI_COMM_WORLD);
    MPI_Probe(left, 30, MPI_COMM_WORLD, &st1);
    int n = 0;
    MPI_Get_count(&st1, MPI_DOUBLE, &n);
    CHECK(n == 5 && st1.MPI_SOURCE == left, "probed %d from %d", n, st1.MPI_SOURCE);
    double back[5];
    MPI_Recv(back, n, MPI_DOUBLE, st1.MPI_SOURCE, st1.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(back[4] == (double)left && back[0] == 1.5, "probed message %f", back[4]);
    MPI_Iprobe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(flag == 0, "nothing with tag 31");

    /* Truncation, returned. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Send(vals, 5, MPI_DOUBLE, right, 40, MPI_COMM_WORLD);
    int rc = MPI_Recv(back, 2, MPI_DOUBLE, left, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int class = 0;
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_TRUNCATE, "truncated: class %d", class);
    CHECK(back[0] == 1.5 && back[1] == 2.5, "the part that fits arrived");
    rc = MPI_Send(vals, 1, MPI_DOUBLE, size, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_RANK, "bad destination: class %d", class);
    rc = MPI_Send(vals, 1, MPI_DOUBLE, right, -5, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_TAG, "bad tag: class %d", class);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void communicators(int rank, int size) {
    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    int want = rank % 2 == 0 ? (size + 1) / 2 : size / 2;
    CHECK(hsize == want, "half of %d: %d", size, hsize);
    /* Keys are -rank: the highest world rank comes first. */
    int first = -1, top = rank;
    MPI_Allreduce(&top, &first, 1, MPI_INT, MPI_MAX, half);
    if (hrank == 0) CHECK(rank == first, "rank 0 of the half is world rank %d", first);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    int expect = 0;
    for (int r = rank % 2; r < size; r += 2) expect += r;
    CHECK(sum == expect, "sum in the half %d, not %d", sum, expect);
    /* A message on the duplicate is not one on the original. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int cmp;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "compare %d", cmp);
    MPI_Comm_compare(MPI_COMM_WORLD, half, &cmp);
    CHECK(cmp == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare with half %d", cmp);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, v = rank, got = -1, flag = 1;
    MPI_Send(&v, 1, MPI_INT, right, 5, dup);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(left, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(flag == 0, "the duplicate's message showed on the original");
    MPI_Recv(&got, 1, MPI_INT, left, 5, dup, MPI_STATUS_IGNORE);
    CHECK(got == left, "on the duplicate %d", got);
    /* A window on the half, ranks of the half. */
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, half, &base, &win);
    *base = -1;
    MPI_Win_fence(0, win);
    int hright = (hrank + 1) % hsize;
    MPI_Put(&rank, 1, MPI_INT, hright, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    int hleft_world = -1, hleft = (hrank + hsize - 1) % hsize;
    int *members = malloc(sizeof(int) * hsize);
    MPI_Allgather(&rank, 1, MPI_INT, members, 1, MPI_INT, half);
    hleft_world = members[hleft];
    CHECK(*base == hleft_world, "window on the half: %d, not %d", *base, hleft_world);
    free(members);
    MPI_Win_free(&win);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    CHECK(half == MPI_COMM_NULL, "freed");
    MPI_Comm none;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none);
    CHECK((rank == 0) == (none == MPI_COMM_NULL), "MPI_UNDEFINED joins none");
    if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
}

static void irregular(int rank, int size) {
    int root = size - 1;
    /* Scatter 2 ints per rank. */
    int *all = malloc(sizeof(int) * 2 * size);
    for (int i = 0; i < 2 * size; i++) all[i] = rank == root ? 1000 + i : -1;
    int two[2] = {-1, -1};
    MPI_Scatter(all, 2, MPI_INT, two, 2, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(two[0] == 1000 + 2 * rank && two[1] == 1001 + 2 * rank, "scatter %d %d", two[0], two[1]);
    /* Rank r has r + 1 ints; gatherv and allgatherv put them end to end. */
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    int total = 0;
    for (int r = 0; r < size; r++) { counts[r] = r + 1; displs[r] = total; total += r + 1; }
    int *mine = malloc(sizeof(int) * (rank + 1));
    for (int i = 0; i <= rank; i++) mine[i] = rank * 1000 + i;
    int *gathered = malloc(sizeof(int) * total);
    for (int i = 0; i < total; i++) gathered[i] = -1;
    MPI_Allgatherv(mine, rank + 1, MPI_INT, gathered, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int i = 0; i <= r; i++)
            CHECK(gathered[displs[r] + i] == r * 1000 + i, "allgatherv %d.%d", r, i);
    for (int i = 0; i < total; i++) gathered[i] = -1;
    MPI_Gatherv(mine, rank + 1, MPI_INT, gathered, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            CHECK(gathered[displs[r]] == r * 1000, "gatherv %d", r);
    /* Scatterv: the root sends rank r its r + 1 ints. */
    for (int i = 0; i < total; i++) gathered[i] = 7 * i;
    int *part = malloc(sizeof(int) * (rank + 1));
    MPI_Scatterv(gathered, counts, displs, MPI_INT, part, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i <= rank; i++) CHECK(part[i] == 7 * (displs[rank] + i), "scatterv %d", i);
    /* Alltoall: rank r sends r * 100 + d to rank d. */
    int *out = malloc(sizeof(int) * size), *in = malloc(sizeof(int) * size);
    for (int d = 0; d < size; d++) out[d] = rank * 100 + d;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++) CHECK(in[s] == s * 100 + rank, "alltoall from %d: %d", s, in[s]);
    /* Alltoallv: rank r sends one int to each even rank, none to odd. */
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    for (int d = 0; d < size; d++) {
        sc[d] = d % 2 == 0; sd[d] = d;
        rc[d] = rank % 2 == 0; rd[d] = d;
        in[d] = -1;
    }
    MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++)
        CHECK(rank % 2 ? in[s] == -1 : in[s] == s * 100 + rank, "alltoallv from %d: %d", s, in[s]);
    /* Reductions rma has none for, folded in rank order. */
    int p = rank + 1, prod = 0, band = 0;
    MPI_Allreduce(&p, &prod, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
    int fact = 1;
    for (int r = 1; r <= size && r <= 12; r++) fact *= r;
    if (size <= 12) CHECK(prod == fact, "product %d", prod);
    int bits = ~(1 << rank);
    MPI_Allreduce(&bits, &band, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD);
    CHECK(band == ~((int)((1u << (size < 31 ? size : 31)) - 1)) || size >= 31, "band %#x", band);
    short sh = (short)(rank * 3), shmax = 0;
    MPI_Allreduce(&sh, &shmax, 1, MPI_SHORT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(shmax == (short)(3 * (size - 1)), "short max %d", shmax);
    char ch = (char)('a' + rank % 26), chmin = 0;
    MPI_Allreduce(&ch, &chmin, 1, MPI_CHAR, MPI_MIN, MPI_COMM_WORLD);
    CHECK(chmin == 'a', "char min %c", chmin);
    free(all); free(counts); free(displs); free(mine); free(gathered); free(part);
    free(out); free(in); free(sc); free(sd); free(rc); free(rd);
}

/* A send the heap cannot stage fails with MPI_ERR_NO_MEM, and the heap
 * (16 MiB) still serves afterwards: 10 MiB of malloc, then a send of
 * them, which needs as much again. */
static void no_memory(int rank, int size) {
    enum { BIG = 10 << 20 };
    char *big = malloc(BIG);
    CHECK(big != NULL, "malloc of 10 MiB");
    memset(big, 7, BIG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Send(big, BIG, MPI_CHAR, (rank + 1) % size, 99, MPI_COMM_WORLD), class = 0;
    MPI_Error_class(rc, &class);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    CHECK(class == MPI_ERR_NO_MEM && strstr(text, "MPI_Send") != NULL, "%s", text);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(big);
    /* The send went nowhere: a small message still goes round. */
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 98, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(got == (rank + size - 1) % size, "after the failed send: %d", got);
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring(rank, size);
    wildcards_and_order(rank, size);
    nonblocking(rank, size);
    communicators(rank, size);
    irregular(rank, size);
    no_memory(rank, size);
    printf("rank %d of %d: point-to-point checks passed\n", rank, size);
    MPI_Finalize();
    return 0;
}
