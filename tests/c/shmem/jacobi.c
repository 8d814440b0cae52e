/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* jacobi.c: a 2D Jacobi stencil over OpenSHMEM. The grid's rows are
 * split in blocks over the PEs; each iteration puts a PE's first and
 * last rows into its neighbours' halo rows, then shmem_barrier_all, then
 * the five-point average. Every PE also runs the whole grid alone and
 * checks its block against it, bit for bit; PE 0 prints the residual,
 * a sum reduction over the PEs. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define W 32
#define ROWS_PER_PE 4
#define ITERATIONS 20

/* The boundary: the top row hot, the rest cold. */
static double boundary(int row, int col, int rows) {
    (void)col;
    (void)rows;
    return row == 0 ? 100.0 : 0.0;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int rows = n * ROWS_PER_PE + 2; /* with the fixed top and bottom rows */
    /* Local block with a halo row above and below. */
    double *u = shmem_calloc((ROWS_PER_PE + 2) * W, sizeof(double));
    double *next = malloc((ROWS_PER_PE + 2) * W * sizeof(double));
    int first = 1 + me * ROWS_PER_PE; /* global row of local row 1 */
    for (int r = 0; r < ROWS_PER_PE + 2; r++)
        for (int c = 0; c < W; c++) {
            int g = first - 1 + r;
            int edge = g == 0 || g == rows - 1 || c == 0 || c == W - 1;
            u[r * W + c] = edge ? boundary(g, c, rows) : 0.0;
        }
    shmem_barrier_all();
    for (int it = 0; it < ITERATIONS; it++) {
        if (me > 0) shmem_double_put(&u[(ROWS_PER_PE + 1) * W], &u[1 * W], W, me - 1);
        if (me < n - 1) shmem_double_put(&u[0], &u[ROWS_PER_PE * W], W, me + 1);
        shmem_barrier_all();
        for (int r = 1; r <= ROWS_PER_PE; r++)
            for (int c = 0; c < W; c++) {
                int g = first - 1 + r;
                int edge = g == rows - 1 || c == 0 || c == W - 1;
                next[r * W + c] = edge ? u[r * W + c]
                                       : 0.25 * (u[(r - 1) * W + c] + u[(r + 1) * W + c] +
                                                 u[r * W + c - 1] + u[r * W + c + 1]);
            }
        /* Neighbours read this PE's rows only after the next barrier. */
        shmem_barrier_all();
        for (int r = 1; r <= ROWS_PER_PE; r++)
            for (int c = 0; c < W; c++) u[r * W + c] = next[r * W + c];
    }
    /* The whole grid on this PE alone. */
    double *a = malloc(rows * W * sizeof(double)), *b = malloc(rows * W * sizeof(double));
    for (int g = 0; g < rows; g++)
        for (int c = 0; c < W; c++) {
            int edge = g == 0 || g == rows - 1 || c == 0 || c == W - 1;
            a[g * W + c] = edge ? boundary(g, c, rows) : 0.0;
        }
    for (int it = 0; it < ITERATIONS; it++) {
        for (int g = 0; g < rows; g++)
            for (int c = 0; c < W; c++) {
                int edge = g == 0 || g == rows - 1 || c == 0 || c == W - 1;
                b[g * W + c] = edge ? a[g * W + c]
                                    : 0.25 * (a[(g - 1) * W + c] + a[(g + 1) * W + c] +
                                              a[g * W + c - 1] + a[g * W + c + 1]);
            }
        double *t = a;
        a = b;
        b = t;
    }
    double *mine = shmem_malloc(sizeof(double)), *total = shmem_malloc(sizeof(double));
    *mine = 0.0;
    for (int r = 1; r <= ROWS_PER_PE; r++)
        for (int c = 0; c < W; c++) {
            double want = a[(first - 1 + r) * W + c];
            CHECK(u[r * W + c] == want, "cell (%d, %d) = %f, not %f", first - 1 + r, c,
                  u[r * W + c], want);
            *mine += u[r * W + c];
        }
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, total, mine, 1);
    double whole = 0.0;
    for (int g = 1; g < rows - 1; g++)
        for (int c = 0; c < W; c++) whole += a[g * W + c];
    CHECK(*total > whole - 1e-9 && *total < whole + 1e-9, "sum %f, alone %f", *total, whole);
    if (me == 0) printf("jacobi: %d PEs, %d iterations, heat %.6f\n", n, ITERATIONS, *total);
    shmem_finalize();
    return 0;
}
