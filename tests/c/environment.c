/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The MPI environment and collectives from C: init and finalize, argv,
 * the clock, error classes, codes, strings and handlers, and barrier,
 * bcast, reduce, allreduce, gather and allgather with their data checked,
 * and a user-defined operation that does not commute.
 * Run with the arguments "one two words" after --. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void environment(int argc, char **argv, int rank) {
    CHECK(argc == 3, "argc %d", argc);
    CHECK(strcmp(argv[0], "environment") == 0, "argv[0] %s", argv[0]);
    CHECK(strcmp(argv[1], "one") == 0 && strcmp(argv[2], "two words") == 0,
          "argv %s|%s", argv[1], argv[2]);
    CHECK(argv[3] == NULL, "argv ends with NULL");
    int flag = 0, version = 0, subversion = 0;
    MPI_Initialized(&flag);
    CHECK(flag == 1, "initialized %d", flag);
    MPI_Finalized(&flag);
    CHECK(flag == 0, "finalized %d", flag);
    MPI_Get_version(&version, &subversion);
    CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION, "%d.%d", version, subversion);
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    CHECK(len > 0 && (int)strlen(name) == len, "processor name %s", name);
    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 1e-6, "tick %g", tick);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    CHECK(t1 > t0, "the clock moves: %.9f then %.9f", t0, t1);
    int size = 0;
    MPI_Type_size(MPI_DOUBLE, &size);
    CHECK(size == 8, "double %d", size);
    MPI_Type_size(MPI_LONG, &size);
    CHECK(size == 4, "long %d", size);
    (void)rank;
}

static void errors(int rank, int size) {
    char text[MPI_MAX_ERROR_STRING];
    int len, class;
    MPI_Errhandler handler;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
    CHECK(handler == MPI_ERRORS_ARE_FATAL, "the default handler %d", handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* A call the library does not carry out fails, naming itself. */
    MPI_Win dynamic;
    int rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dynamic);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_UNSUPPORTED_OPERATION, "class %d", class);
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "MPI_Win_create_dynamic") != NULL && (int)strlen(text) == len, "%s", text);

    int x = 0;
    rc = MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_ROOT, "bad root: class %d", class);
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "MPI_Bcast") != NULL && strstr(text, "root") != NULL, "%s", text);

    rc = MPI_Bcast(&x, 1, (MPI_Datatype)999, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_TYPE, "bad type: class %d", class);
    rc = MPI_Comm_rank((MPI_Comm)77, &x);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_COMM, "bad communicator: class %d", class);
    rc = MPI_Allreduce(&x, &x, 1, MPI_INT, MPI_MINLOC, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_OP, "MINLOC on int: class %d", class);

    /* A bare class gives its meaning. */
    MPI_Error_string(MPI_ERR_RANK, text, &len);
    CHECK(strstr(text, "MPI_ERR_RANK") != NULL, "%s", text);
    rc = MPI_Error_class(12345678, &class);
    CHECK(rc != MPI_SUCCESS, "not a code");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    (void)rank;
}

/* x -> m x + c, as (m, c): `in after inout`, associative, not
 * commutative. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *type) {
    unsigned *a = in, *b = inout;
    CHECK(*type == MPI_UNSIGNED, "the user function got datatype %d", *type);
    for (int i = 0; i + 1 < *len; i += 2) {
        unsigned m = a[i] * b[i], c = a[i] * b[i + 1] + a[i + 1];
        b[i] = m;
        b[i + 1] = c;
    }
}

static void user_operations(int rank, int size) {
    MPI_Op op;
    MPI_Op_create(compose, 0, &op);
    unsigned mine[2] = {2u + (unsigned)rank, (unsigned)rank + 1}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_UNSIGNED, op, MPI_COMM_WORLD);
    /* rank 0 after rank 1 after ... after rank size - 1. */
    unsigned m = 1, c = 0;
    for (int r = size - 1; r >= 0; r--) {
        unsigned rm = 2u + (unsigned)r, rc = (unsigned)r + 1;
        c = rm * c + rc;
        m = rm * m;
    }
    CHECK(all[0] == m && all[1] == c, "user operation: (%u, %u), not (%u, %u)", all[0], all[1], m, c);
    unsigned at_root[2] = {0, 0};
    MPI_Reduce(mine, at_root, 2, MPI_UNSIGNED, op, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1) CHECK(at_root[0] == m && at_root[1] == c, "user reduce");
    MPI_Op_free(&op);
    CHECK(op == MPI_OP_NULL, "freed operation");
}

static void collectives(int rank, int size) {
    for (int root = 0; root < size; root++) {
        int v[3] = {-1, -1, -1};
        if (rank == root) { v[0] = root; v[1] = root * 10; v[2] = root * 100; }
        MPI_Bcast(v, 3, MPI_INT, root, MPI_COMM_WORLD);
        CHECK(v[0] == root && v[1] == root * 10 && v[2] == root * 100, "bcast from %d", root);
    }
    int mine = rank + 1, sum = 0, min = 0, max = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(sum == size * (size + 1) / 2 && min == 1 && max == size, "%d %d %d", sum, min, max);
    double d[2] = {0.5 * rank, -1.0 * rank};
    MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double want = 0.5 * size * (size - 1) / 2.0;
    CHECK(d[0] == want && d[1] == -2.0 * want, "doubles %f %f", d[0], d[1]);
    long long big = (long long)rank << 33, bigsum = 0;
    MPI_Allreduce(&big, &bigsum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(bigsum == ((long long)size * (size - 1) / 2) << 33, "long long %lld", bigsum);
    unsigned u = 0xfffffff0u + rank, umax = 0;
    MPI_Allreduce(&u, &umax, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
    CHECK(umax == 0xfffffff0u + size - 1, "unsigned %u", umax);

    for (int root = 0; root < size; root += size > 2 ? size - 1 : 1) {
        int total = -1;
        MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root) CHECK(total == size * (size + 1) / 2, "reduce at %d: %d", root, total);
        else CHECK(total == -1, "reduce leaves non-roots' buffers: %d", total);
    }

    int *all = malloc(sizeof(int) * 2 * size);
    CHECK(all != NULL, "malloc");
    int pair[2] = {rank, rank * rank};
    MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        CHECK(all[2 * r] == r && all[2 * r + 1] == r * r, "allgather %d", r);
    memset(all, 0, sizeof(int) * 2 * size);
    all[2 * rank] = rank + 7;
    all[2 * rank + 1] = rank + 8;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        CHECK(all[2 * r] == r + 7 && all[2 * r + 1] == r + 8, "allgather in place %d", r);
    memset(all, 0, sizeof(int) * 2 * size);
    MPI_Gather(pair, 2, MPI_INT, all, 2, MPI_INT, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1)
        for (int r = 0; r < size; r++)
            CHECK(all[2 * r] == r && all[2 * r + 1] == r * r, "gather %d", r);
    free(all);

    /* MPI_COMM_SELF: one rank. */
    int self_rank = -1, self_size = -1, one = 5, got = 0;
    MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
    MPI_Comm_size(MPI_COMM_SELF, &self_size);
    MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    CHECK(self_rank == 0 && self_size == 1 && got == 5, "self %d %d %d", self_rank, self_size, got);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    environment(argc, argv, rank);
    errors(rank, size);
    collectives(rank, size);
    user_operations(rank, size);
    MPI_Finalize();
    int flag = 0;
    MPI_Finalized(&flag);
    CHECK(flag == 1, "finalized");
    printf("rank %d of %d: environment checks passed\n", rank, size);
    return 0;
}
