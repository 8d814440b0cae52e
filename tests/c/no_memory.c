/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A heap without room fails the call with MPI_ERR_NO_MEM, and the run goes
 * on: committing a datatype of more runs than the heap holds, and
 * receiving a message larger than what is left of the receiver's heap (the
 * message is dropped; the next one arrives intact). Run on 2 cores with the
 * default 32 MiB of RAM (16 MiB of heap). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BIG (6 << 20)

static char big[BIG];

static int class_of(int err)
{
    int cls;
    MPI_Error_class(err, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run on 2 cores, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* 2 million separate ints: 32 MB of runs, twice the heap. */
    MPI_Datatype huge;
    MPI_Type_vector(2000000, 1, 2, MPI_INT, &huge);
    int err = MPI_Type_commit(&huge);
    CHECK(class_of(err) == MPI_ERR_NO_MEM, "commit of a huge vector: class %d", class_of(err));
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(err, text, &len);
    CHECK(strstr(text, "heap") != NULL, "the error names the heap: %s", text);
    /* A smaller one still commits and moves the right data. */
    MPI_Datatype every_other;
    MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
    CHECK(MPI_Type_commit(&every_other) == MPI_SUCCESS, "a small vector commits");

    /* Rank 1 keeps most of its heap, then receives more than is left. */
    char *hog = NULL;
    if (rank == 1) {
        hog = malloc(12 << 20);
        CHECK(hog != NULL, "12 MiB of heap");
        memset(hog, 1, 12 << 20);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < BIG; i++)
            big[i] = (char)(i * 7);
        CHECK(MPI_Send(big, BIG, MPI_CHAR, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS, "big send");
        int v[8] = {10, 11, 12, 13, 14, 15, 16, 17};
        CHECK(MPI_Send(v, 1, every_other, 1, 6, MPI_COMM_WORLD) == MPI_SUCCESS, "small send");
    } else {
        err = MPI_Recv(big, BIG, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(class_of(err) == MPI_ERR_NO_MEM, "a receive beyond the heap: class %d",
              class_of(err));
        int got[4] = {0, 0, 0, 0};
        err = MPI_Recv(got, 4, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(err == MPI_SUCCESS, "the next message: %d", err);
        CHECK(got[0] == 10 && got[1] == 12 && got[2] == 14 && got[3] == 16,
              "the next message's data: %d %d %d %d", got[0], got[1], got[2], got[3]);
        free(hog);
    }
    MPI_Type_free(&every_other);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: out of memory reported\n", rank);
    MPI_Finalize();
    return 0;
}
