/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The stencil in C over MPI windows: the same automaton as the Rust
 * `stencil` program (apps/programs/src/stencil.rs): Conway's rule on the
 * 9-point Moore stencil on a torus, the same first generation, rows split
 * across the ranks the same way (life.h), halo rows put into the neighbours'
 * windows under post/start/complete/wait with two halo windows taking
 * turns. Rank 0 then gets every rank's rows and compares them with its
 * serial run of the whole grid.
 *
 * Usage: stencil [ROWS WIDTH GENERATIONS] (default 192 256 10, the Rust
 * program's scale=quick). Prints the live cells at the end, which the
 * test compares with the Rust program's. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "life.h"

static unsigned rows_total = 192, width = 256, generations = 10;

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 4) {
        rows_total = (unsigned)atoi(argv[1]);
        width = (unsigned)atoi(argv[2]);
        generations = (unsigned)atoi(argv[3]);
    }
    CHECK(argc == 1 || argc == 4, "usage: stencil [ROWS WIDTH GENERATIONS]");
    CHECK(rows_total >= (unsigned)size && width > 0, "%u rows for %d ranks", rows_total, size);
    unsigned w = width, first, rows;
    life_rows_of(rows_total, size, rank, &first, &rows);
    uint8_t *grid = calloc((rows + 2) * w, 1), *next = calloc((rows + 2) * w, 1);
    CHECK(grid != NULL && next != NULL, "memory for %u rows", rows);
    for (unsigned r = 0; r < rows; r++)
        for (unsigned c = 0; c < w; c++) grid[(r + 1) * w + c] = life_seed(first + r, c);

    /* Two halo windows, each a top and a bottom row. */
    uint8_t *halo[2];
    MPI_Win win[2];
    for (int k = 0; k < 2; k++) {
        MPI_Win_allocate(2 * w, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &halo[k], &win[k]);
        memset(halo[k], 0, 2 * w);
    }
    int up = (rank + size - 1) % size, down = (rank + 1) % size;
    MPI_Group world, ring;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int members[2] = {up, down};
    MPI_Group_incl(world, up == down ? 1 : 2, members, &ring);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (unsigned g = 0; g < generations; g++) {
        MPI_Win h = win[g % 2];
        uint8_t *mine = halo[g % 2];
        MPI_Win_post(ring, 0, h);
        MPI_Win_start(ring, 0, h);
        /* My first row is the bottom halo of the rank above, my last the
         * top halo of the rank below. */
        MPI_Put(grid + w, w, MPI_BYTE, up, w, w, MPI_BYTE, h);
        MPI_Put(grid + rows * w, w, MPI_BYTE, down, 0, w, MPI_BYTE, h);
        MPI_Win_complete(h);
        MPI_Win_wait(h);
        memcpy(grid, mine, w);
        memcpy(grid + (rows + 1) * w, mine + w, w);
        life_step(grid, next, rows, w);
        uint8_t *t = grid; grid = next; next = t;
    }
    double elapsed = MPI_Wtime() - start;

    /* Rank 0 gets every rank's rows and compares them with its own run. */
    uint8_t *result;
    MPI_Win res;
    MPI_Win_allocate(rows * w, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &result, &res);
    memcpy(result, grid + w, rows * w);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, res);
    long wrong = 0, live = 0;
    if (rank == 0) {
        uint8_t *whole = life_serial(rows_total, width, generations);
        CHECK(whole != NULL, "memory for the serial run");
        uint8_t *theirs = malloc(((rows_total / size) + 1) * w);
        CHECK(theirs != NULL, "memory for a rank's rows");
        for (int r = 0; r < size; r++) {
            unsigned rf, rc;
            life_rows_of(rows_total, size, r, &rf, &rc);
            MPI_Get(theirs, rc * w, MPI_BYTE, r, 0, rc * w, MPI_BYTE, res);
            for (unsigned k = 0; k < rc * w; k++) {
                if (theirs[k] != whole[(rf + 1) * w + k]) {
                    if (wrong == 0)
                        printf("cell (%u, %u) is %u, the serial run has %u\n", rf + k / w, k % w,
                               theirs[k], whole[(rf + 1) * w + k]);
                    wrong++;
                }
            }
        }
        for (unsigned k = 0; k < rows_total * w; k++) live += whole[w + k];
        free(theirs);
        free(whole);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, res);
    MPI_Bcast(&wrong, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    CHECK(wrong == 0, "%ld cells differ from the serial run", wrong);
    double slowest = 0;
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("stencil in C: %ux%u torus, %u generations on %d ranks: %ld of %u cells alive, "
               "verified against a serial run; %.1f us of modelled time on the slowest rank\n",
               rows_total, width, generations, size, live, rows_total * width, slowest * 1e6);
    MPI_Win_free(&res);
    MPI_Win_free(&win[0]);
    MPI_Win_free(&win[1]);
    MPI_Group_free(&ring);
    MPI_Group_free(&world);
    free(grid);
    free(next);
    MPI_Finalize();
    return 0;
}
