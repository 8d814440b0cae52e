/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The MPI environment and collectives from C: init and finalize, argv,
 * the clock, error classes, codes, strings and handlers, and barrier,
 * bcast, reduce, allreduce, gather and allgather with their data checked,
 * MPI_MINLOC and MPI_MAXLOC on every pair type (their C structs' layout
 * checked against MPI_Type_size and MPI_Type_get_extent), and
 * user-defined operations (one that does not commute, one on pairs).
 * Run with the arguments "one two words" after --. */
#include <mpi.h>
#include <stddef.h>
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
    int scanned = 0;
    int rc = MPI_Scan(&rank, &scanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_UNSUPPORTED_OPERATION, "class %d", class);
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "MPI_Scan") != NULL && (int)strlen(text) == len, "%s", text);

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
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "MPI_MINLOC is not a reduction on MPI_INT") != NULL, "%s", text);
    /* A pair type takes MPI_MINLOC and MPI_MAXLOC only, on one rank too. */
    int two[2] = {1, 2}, sum[2];
    rc = MPI_Allreduce(two, sum, 1, MPI_2INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_OP, "SUM on 2INT: class %d", class);
    MPI_Error_string(rc, text, &len);
    CHECK(strstr(text, "MPI_Allreduce: MPI_SUM is not a reduction on MPI_2INT") != NULL, "%s",
          text);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Reduce(two, sum, 1, MPI_2INT, MPI_MAX, 0, MPI_COMM_SELF);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_OP, "MAX on 2INT over MPI_COMM_SELF: class %d", class);
    double d = 1.0;
    rc = MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAXLOC, MPI_COMM_SELF);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_OP, "MAXLOC on double over MPI_COMM_SELF: class %d", class);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);

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

/* A MINLOC of its own on MPI_SHORT_INT, whose elements (6 bytes of
 * data) lie 8 bytes apart: *len must count elements, not sizes. */
struct short_int { short value; int index; };

static int short_len = -1; /* the last *len short_minloc got */

static void short_minloc(void *in, void *inout, int *len, MPI_Datatype *type) {
    struct short_int *a = in, *b = inout;
    short_len = *type == MPI_SHORT_INT ? *len : -1;
    for (int i = 0; i < *len && i < 3; i++)
        if (a[i].value < b[i].value || (a[i].value == b[i].value && a[i].index < b[i].index))
            b[i] = a[i];
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

    MPI_Op_create(short_minloc, 1, &op);
    struct short_int pairs[3], least[3];
    for (int i = 0; i < 3; i++) {
        pairs[i].value = (short)((rank + i) % 4);
        pairs[i].index = size - rank;
    }
    MPI_Allreduce(pairs, least, 3, MPI_SHORT_INT, op, MPI_COMM_WORLD);
    CHECK(short_len == (size > 1 ? 3 : -1), "the user function got %d MPI_SHORT_INT", short_len);
    for (int i = 0; i < 3; i++) {
        /* The least value (r + i) % 4 of all ranks r, and of the ranks
         * that have it the highest (whose index is the smallest). */
        int best = -1;
        for (int r = 0; r < size; r++)
            if (best < 0 || (r + i) % 4 <= (best + i) % 4) best = r;
        CHECK(least[i].value == (best + i) % 4 && least[i].index == size - best,
              "user MINLOC %d: (%d, %d)", i, least[i].value, least[i].index);
    }
    MPI_Op_free(&op);
}

/* The pair types of MPI_MINLOC and MPI_MAXLOC are these C structs, as
 * gcc -m32 lays them out (a double or long double aligned to 4 bytes). */
struct int_int { int value; int index; };
struct float_int { float value; int index; };
struct double_int { double value; int index; };
struct long_int { long value; int index; };
struct long_double_int { long double value; int index; };

/* MPI_Type_size and MPI_Type_get_extent of pair type `type`: the value's
 * and the int's bytes, and the struct's. */
static void pair_type(MPI_Datatype type, const char *name, int size, size_t extent) {
    int s = -1;
    MPI_Aint lb = -1, e = -1;
    MPI_Type_size(type, &s);
    MPI_Type_get_extent(type, &lb, &e);
    CHECK(s == size && lb == 0 && e == (MPI_Aint)extent, "%s: size %d, lb %ld, extent %ld", name,
          s, (long)lb, (long)e);
}

/* Rank r's pairs: values that tie across ranks, and indices that fall as
 * ranks rise, so that the smaller index of a tie is not the lower rank's. */
static int index_of(int r, int k, int size) { return 10 * (size - r) + k; }

/* Checks the MPI_MINLOC and MPI_MAXLOC of two pairs per rank of type
 * TYPE (struct STRUCT), rank r's value k being VALUE(r, k), against the
 * standard's rule worked out here over every rank: the smallest
 * (largest) value, of equal ones the smallest index. By MPI_Allreduce,
 * in place, and by MPI_Reduce at the last rank. */
#define CHECK_LOC(TYPE, STRUCT, VALUE)                                                     \
    do {                                                                                   \
        STRUCT mine[2], min[2], max[2], lo[2], hi[2];                                      \
        for (int k = 0; k < 2; k++) {                                                      \
            mine[k].value = VALUE(rank, k);                                                \
            mine[k].index = index_of(rank, k, size);                                       \
            for (int r = 0; r < size; r++) {                                               \
                STRUCT p;                                                                  \
                p.value = VALUE(r, k);                                                     \
                p.index = index_of(r, k, size);                                            \
                if (r == 0 || p.value < lo[k].value ||                                     \
                    (p.value == lo[k].value && p.index < lo[k].index))                     \
                    lo[k] = p;                                                             \
                if (r == 0 || p.value > hi[k].value ||                                     \
                    (p.value == hi[k].value && p.index < hi[k].index))                     \
                    hi[k] = p;                                                             \
            }                                                                              \
        }                                                                                  \
        MPI_Allreduce(mine, min, 2, TYPE, MPI_MINLOC, MPI_COMM_WORLD);                     \
        memcpy(max, mine, sizeof max);                                                     \
        MPI_Allreduce(MPI_IN_PLACE, max, 2, TYPE, MPI_MAXLOC, MPI_COMM_WORLD);             \
        for (int k = 0; k < 2; k++) {                                                      \
            CHECK(min[k].value == lo[k].value && min[k].index == lo[k].index,              \
                  #TYPE " MINLOC %d: (%g, %d), not (%g, %d)", k, (double)min[k].value,     \
                  min[k].index, (double)lo[k].value, lo[k].index);                         \
            CHECK(max[k].value == hi[k].value && max[k].index == hi[k].index,              \
                  #TYPE " MAXLOC %d: (%g, %d), not (%g, %d)", k, (double)max[k].value,     \
                  max[k].index, (double)hi[k].value, hi[k].index);                         \
        }                                                                                  \
        STRUCT at_root[2] = {{0, -1}, {0, -1}};                                            \
        MPI_Reduce(mine, at_root, 2, TYPE, MPI_MAXLOC, size - 1, MPI_COMM_WORLD);          \
        for (int k = 0; k < 2; k++)                                                        \
            CHECK(rank == size - 1 ? at_root[k].value == hi[k].value &&                    \
                                         at_root[k].index == hi[k].index                   \
                                   : at_root[k].index == -1,                               \
                  #TYPE " MAXLOC %d at the root: index %d", k, at_root[k].index);          \
    } while (0)

#define INT_VALUE(r, k) ((k) == 0 ? (r) % 3 : -((r) / 2))
#define FLOAT_VALUE(r, k) ((k) == 0 ? 0.25f * ((r) % 4) - 0.5f : (float)((r) * (r) % 5))
#define DOUBLE_VALUE(r, k) ((k) == 0 ? 1e-3 * ((r) * 5 % 7) : -1e300 * ((r) % 2))
#define LONG_VALUE(r, k) ((k) == 0 ? 100000L * ((r) % 2) : -(long)((r) % 4))
#define SHORT_VALUE(r, k) ((short)((k) == 0 ? -300 + 7 * ((r) % 3) : (r) / 3))
/* Values 2^-60 apart, the same as doubles: only the x87's 64-bit
 * significand tells them apart. */
#define LONG_DOUBLE_VALUE(r, k) \
    ((k) == 0 ? 1.0L + ((r) % 2) * 0x1p-60L : -(long double)((r) % 3) / 3)

static void locations(int rank, int size) {
    CHECK(sizeof(struct double_int) == 12 && offsetof(struct double_int, index) == 8,
          "struct { double; int; } is %u bytes, its int at %u", (unsigned)sizeof(struct double_int),
          (unsigned)offsetof(struct double_int, index));
    CHECK(sizeof(struct short_int) == 8 && offsetof(struct short_int, index) == 4,
          "struct { short; int; } is %u bytes", (unsigned)sizeof(struct short_int));
    CHECK(sizeof(long double) == 12 && sizeof(struct long_double_int) == 16 &&
              offsetof(struct long_double_int, index) == 12,
          "struct { long double; int; } is %u bytes", (unsigned)sizeof(struct long_double_int));
    CHECK((double)LONG_DOUBLE_VALUE(1, 0) == (double)LONG_DOUBLE_VALUE(0, 0) &&
              LONG_DOUBLE_VALUE(1, 0) > LONG_DOUBLE_VALUE(0, 0),
          "long double has more precision than double");
    pair_type(MPI_2INT, "MPI_2INT", 2 * sizeof(int), sizeof(struct int_int));
    pair_type(MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(float) + sizeof(int),
              sizeof(struct float_int));
    pair_type(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(double) + sizeof(int),
              sizeof(struct double_int));
    pair_type(MPI_LONG_INT, "MPI_LONG_INT", sizeof(long) + sizeof(int), sizeof(struct long_int));
    pair_type(MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(short) + sizeof(int),
              sizeof(struct short_int));
    pair_type(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double) + sizeof(int),
              sizeof(struct long_double_int));

    CHECK_LOC(MPI_2INT, struct int_int, INT_VALUE);
    CHECK_LOC(MPI_FLOAT_INT, struct float_int, FLOAT_VALUE);
    CHECK_LOC(MPI_DOUBLE_INT, struct double_int, DOUBLE_VALUE);
    CHECK_LOC(MPI_LONG_INT, struct long_int, LONG_VALUE);
    CHECK_LOC(MPI_SHORT_INT, struct short_int, SHORT_VALUE);
    CHECK_LOC(MPI_LONG_DOUBLE_INT, struct long_double_int, LONG_DOUBLE_VALUE);

    /* A pair type moves whole in the other collectives. */
    struct double_int sent[3];
    for (int i = 0; i < 3; i++) {
        sent[i].value = rank == 0 ? 0.5 * i : -1;
        sent[i].index = rank == 0 ? 7 * i : -1;
    }
    MPI_Bcast(sent, 3, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        CHECK(sent[i].value == 0.5 * i && sent[i].index == 7 * i, "bcast of MPI_DOUBLE_INT %d", i);

    /* MPI_COMM_SELF: the rank's own pair. */
    struct int_int own = {rank, -rank}, back = {0, 0};
    MPI_Allreduce(&own, &back, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_SELF);
    CHECK(back.value == rank && back.index == -rank, "MINLOC over MPI_COMM_SELF");
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
    locations(rank, size);
    user_operations(rank, size);
    MPI_Finalize();
    int flag = 0;
    MPI_Finalized(&flag);
    CHECK(flag == 1, "finalized");
    printf("rank %d of %d: environment checks passed\n", rank, size);
    return 0;
}
