/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The mpicc test's main: every rank passes its greeting number to its
 * right neighbour and prints what it sent and received, with the word
 * from greeting.h and its argv. */
#include <mpi.h>
#include <stdio.h>

#include "greeting.h"

int main(int argc, char **argv) {
    int rank, size, sent, received;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sent = greeting_number(rank);
    MPI_Sendrecv(&sent, 1, MPI_INT, (rank + 1) % size, 0, &received, 1, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d of %d: %s %d, received %d, argv %s %s\n", rank, size, GREETING_WORD, sent,
           received, argv[0], argc > 1 ? argv[1] : "-");
    MPI_Finalize();
    return received == greeting_number((rank + size - 1) % size) ? 0 : 1;
}
