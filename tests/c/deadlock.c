/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Two ranks that wait for each other forever, as argv[1] says: "barrier"
 * (rank 0 skips a barrier rank 1 enters), "bcast" (rank 0 broadcasts while
 * rank 1 enters a barrier), "recv" (rank 1 receives a message rank 0 never
 * sends, and rank 0 waits in a barrier). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        printf("usage: deadlock barrier|bcast|recv\n");
        return 2;
    }
    if (strcmp(argv[1], "barrier") == 0) {
        if (rank == 1) MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(argv[1], "bcast") == 0) {
        if (rank == 0)
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        else
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(argv[1], "recv") == 0) {
        if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        printf("unknown case %s\n", argv[1]);
        return 2;
    }
    printf("rank %d: past the deadlock\n", rank);
    MPI_Finalize();
    return 0;
}
