/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* How a C program ends its run, as argv[1] says: "exit 3" (exit with
 * status 3 on rank 1, after output still buffered), "return 0" (return 0
 * from main after atexit handlers and buffered output), "fatal" (an
 * error under MPI_ERRORS_ARE_FATAL on rank 0), "abort" (MPI_Abort on the
 * last rank), "assert" (a failed assert on rank 0), "nofinalize" (rank 1
 * returns 0 from main without MPI_Finalize), "unreceived" (rank 0 sends
 * itself a message it never receives, then finalizes). */
#include <assert.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static void goodbye(void) { printf("rank %d: atexit handler ran\n", rank); }

int main(int argc, char **argv) {
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        printf("usage: endings exit|return|fatal|abort|assert|nofinalize|unreceived\n");
        return 2;
    }
    atexit(goodbye);
    /* Buffered: no newline, so only exit's flush writes it out. */
    printf("rank %d: buffered", rank);
    if (strcmp(argv[1], "exit") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) exit(atoi(argv[2]));
        MPI_Finalize();
        return 0;
    }
    if (strcmp(argv[1], "return") == 0) {
        MPI_Finalize();
        return 0;
    }
    if (strcmp(argv[1], "fatal") == 0) {
        int x = 0;
        if (rank == 0) MPI_Bcast(&x, 1, MPI_INT, size + 5, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        return 0;
    }
    if (strcmp(argv[1], "abort") == 0) {
        if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 42);
        MPI_Barrier(MPI_COMM_WORLD);
        return 0;
    }
    if (strcmp(argv[1], "assert") == 0) {
        assert(rank != 0 && "rank 0 asserts");
        MPI_Barrier(MPI_COMM_WORLD);
        return 0;
    }
    if (strcmp(argv[1], "nofinalize") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) return 0;
        MPI_Finalize();
        return 0;
    }
    if (strcmp(argv[1], "unreceived") == 0) {
        int x = 5;
        MPI_Request request;
        if (rank == 0) {
            MPI_Isend(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
        MPI_Finalize();
        return 0;
    }
    printf("unknown ending %s\n", argv[1]);
    return 2;
}
