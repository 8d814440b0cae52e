/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* jacobi.c: a Jacobi solver over OpenSHMEM for the heat on a plate: the
 * top edge hot, the other edges cold, the five-point average until no
 * cell changes by more than TOLERANCE (or MAX_ITERATIONS).
 *
 * The grid's rows are split in blocks over the PEs. Each iteration, a PE
 * puts its first and last rows into its neighbours' halos with
 * shmem_double_put_signal and waits for its own with
 * shmem_signal_wait_until; the halos come in two sets taking turns, so
 * no barrier is needed between iterations. Every CHECK_EVERY iterations
 * the PEs take the largest change with shmem_double_max_reduce and stop
 * once it is small enough. Every PE then runs the whole grid alone for
 * as many iterations and checks its block against it, bit for bit; PE 0
 * prints the heat, a sum reduction over the PEs.
 *
 * With the argument `overhead`, the solver runs a second time without
 * the library's consistency actions (shmemx_enforce_consistency(0), an
 * incoherent run, right only where no load can be stale: the chip
 * model's default reading of MPBT-WT loads), is checked again, and PE 0
 * prints both times and their difference, the consistency overhead.
 *
 * Built with -DSTALE, a PE waits for its halos with plain loads of the
 * signal instead: the one synchronisation removed. It runs the solver
 * once; under --ideal-wt-reads its cached lines keep old signals and old
 * halos, the coherence checker names the stale reads, and the program
 * reports what it found instead of failing. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "consistency.h"

#define W 32
#define ROWS_PER_PE 4
#define TOLERANCE 0.05
#define CHECK_EVERY 5
#define MAX_ITERATIONS 200
enum { ABOVE, BELOW };

/* The fixed value of cell (g, c) of a grid of `rows` rows, or -1 for an
 * inner cell. */
static double edge(int g, int c, int rows) {
    if (g == 0) return 100.0;
    return g == rows - 1 || c == 0 || c == W - 1 ? 0.0 : -1.0;
}

/* One iteration of rows 1..=count of u (count + 2 rows; 0 and count + 1
 * are the halos, global rows first - 1 and first + count) into next;
 * the largest change. */
static double sweep(const double *u, double *next, int count, int first, int rows) {
    double most = 0.0;
    for (int r = 1; r <= count; r++)
        for (int c = 0; c < W; c++) {
            int g = first - 1 + r;
            double fixed = edge(g, c, rows);
            double v = fixed >= 0.0 ? fixed
                                    : 0.25 * (u[(r - 1) * W + c] + u[(r + 1) * W + c] +
                                              u[r * W + c - 1] + u[r * W + c + 1]);
            double change = v > u[r * W + c] ? v - u[r * W + c] : u[r * W + c] - v;
            if (change > most) most = change;
            next[r * W + c] = v;
        }
    return most;
}

/* The whole grid run alone for `iterations`: rows rows of W cells. */
static double *alone(int rows, int iterations) {
    double *a = malloc(rows * W * sizeof(double)), *b = malloc(rows * W * sizeof(double));
    CHECK(a != NULL && b != NULL, "memory for the whole grid");
    for (int g = 0; g < rows; g++)
        for (int c = 0; c < W; c++) {
            double fixed = edge(g, c, rows);
            a[g * W + c] = b[g * W + c] = fixed >= 0.0 ? fixed : 0.0;
        }
    for (int it = 0; it < iterations; it++) {
        sweep(a, b, rows - 2, 1, rows);
        double *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int overhead = argc == 2 && strcmp(argv[1], "overhead") == 0;
    CHECK(argc == 1 || overhead, "usage: jacobi [overhead]");
#ifdef STALE
    CHECK(!overhead, "a -DSTALE build measures no overhead");
#endif
    int rows = n * ROWS_PER_PE + 2; /* with the fixed top and bottom rows */
    int first = 1 + me * ROWS_PER_PE; /* global row of local row 1 */
    int up = me - 1, down = me + 1;   /* no neighbour past the fixed rows */
    size_t block = (ROWS_PER_PE + 2) * W;
    double *u = malloc(block * sizeof(double)), *next = malloc(block * sizeof(double));
    /* Symmetric: the halos [set][ABOVE or BELOW], their signals, and the
     * reductions' arguments. */
    double *halo = shmem_calloc(4 * W, sizeof(double));
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
    double *change = shmem_malloc(sizeof(double)), *largest = shmem_malloc(sizeof(double));
    double *mine = shmem_malloc(sizeof(double)), *total = shmem_malloc(sizeof(double));
    CHECK(u != NULL && next != NULL && halo != NULL && sig != NULL && change != NULL &&
              largest != NULL && mine != NULL && total != NULL,
          "memory for the grid");
    uint64_t iteration = 0; /* of every run, each with its own signal */
    int iterations = 0;
    double took[2], *whole = NULL;
    for (int run = 0; run < 1 + overhead; run++) {
        shmemx_enforce_consistency(run == 0);
        for (int r = 0; r < ROWS_PER_PE + 2; r++)
            for (int c = 0; c < W; c++) {
                double fixed = edge(first - 1 + r, c, rows);
                u[r * W + c] = fixed >= 0.0 ? fixed : 0.0;
                next[r * W + c] = u[r * W + c];
            }
        shmem_barrier_all();
        long late = 0;
        double start = shmem_wtime();
        int it = 0;
        for (*largest = TOLERANCE + 1.0; *largest > TOLERANCE && it < MAX_ITERATIONS;) {
            double most = 0.0;
            for (int k = 0; k < CHECK_EVERY; k++, it++) {
                iteration++;
                double *set = halo + 2 * (iteration % 2) * W;
                uint64_t *signals = sig + 2 * (iteration % 2);
                /* My first row is the lower halo of the PE above, my last
                 * the upper halo of the PE below. */
                if (up >= 0)
                    shmem_double_put_signal(set + BELOW * W, &u[W], W, signals + BELOW,
                                            iteration, SHMEM_SIGNAL_SET, up);
                if (down < n)
                    shmem_double_put_signal(set + ABOVE * W, &u[ROWS_PER_PE * W], W,
                                            signals + ABOVE, iteration, SHMEM_SIGNAL_SET, down);
                if (up >= 0) {
                    late += !arrived(signals + ABOVE, iteration);
                    memcpy(&u[0], set + ABOVE * W, W * sizeof(double));
                }
                if (down < n) {
                    late += !arrived(signals + BELOW, iteration);
                    memcpy(&u[(ROWS_PER_PE + 1) * W], set + BELOW * W, W * sizeof(double));
                }
                double moved = sweep(u, next, ROWS_PER_PE, first, rows);
                if (moved > most) most = moved;
                double *t = u;
                u = next;
                next = t;
            }
            *change = most;
            shmem_double_max_reduce(SHMEM_TEAM_WORLD, largest, change, 1);
        }
        took[run] = shmem_wtime() - start;
        shmemx_enforce_consistency(1); /* the checks below with it */
#ifdef STALE
        printf("PE %d: %ld of %d halos not seen in time\n", me, late,
               it * ((up >= 0) + (down < n)));
#else
        CHECK(late == 0, "%ld halos late", late);
#endif
        CHECK(run == 0 || it == iterations, "the incoherent run took %d iterations, not %d", it,
              iterations);
        iterations = it;
        /* This PE's block against the whole grid run alone. */
        if (run == 0) whole = alone(rows, iterations);
        *mine = 0.0;
        long wrong = 0;
        for (int r = 1; r <= ROWS_PER_PE; r++)
            for (int c = 0; c < W; c++) {
                double want = whole[(first - 1 + r) * W + c];
#ifndef STALE
                CHECK(u[r * W + c] == want, "%s run: cell (%d, %d) = %f, not %f",
                      run == 0 ? "the enforced" : "the incoherent", first - 1 + r, c,
                      u[r * W + c], want);
#endif
                wrong += u[r * W + c] != want;
                *mine += u[r * W + c];
            }
        shmem_double_sum_reduce(SHMEM_TEAM_WORLD, total, mine, 1);
        double heat = 0.0;
        for (int g = 1; g < rows - 1; g++)
            for (int c = 0; c < W; c++) heat += whole[g * W + c];
#ifdef STALE
        printf("PE %d: %ld of %d cells differ from the grid run alone\n", me, wrong,
               ROWS_PER_PE * W);
#else
        CHECK(*total > heat - 1e-9 && *total < heat + 1e-9, "sum %f, alone %f", *total, heat);
        if (me == 0 && run == 0)
            printf("jacobi: %d PEs, %d iterations, heat %.6f\n", n, iterations, *total);
#endif
    }
    if (me == 0 && overhead)
        print_overhead("jacobi", n, took);

    shmem_finalize();
    return 0;
}
