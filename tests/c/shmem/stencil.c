/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* stencil.c: the stencil over OpenSHMEM, the automaton of the C stencil
 * over MPI and of the Rust `stencil` program (../life.h): Conway's rule
 * on a torus, the rows split in blocks over the PEs.
 *
 * Each generation, a PE puts its first row into the lower halo of the PE
 * above and its last row into the upper halo of the PE below, each with
 * shmem_putmem_signal, and waits for its own two halos with
 * shmem_signal_wait_until. The halos come in two sets taking turns by
 * generation, so no barrier is needed inside the loop: a neighbour can
 * be at most one generation ahead.
 *
 * PE 0 checks the result against its serial run. With the argument
 * `overhead`, the generations run a second time from the first one,
 * without the library's consistency actions (shmemx_enforce_consistency(0),
 * an incoherent run, right only where no load can be stale: the chip
 * model's default reading of MPBT-WT loads); PE 0 checks it too and
 * prints both times and their difference, the consistency overhead.
 *
 * Built with -DSTALE, a PE waits for its halos with plain loads of the
 * signal instead of shmem_signal_wait_until: the one synchronisation
 * removed. It runs once. Under --ideal-wt-reads its cached lines keep old
 * signals and old halos, the coherence checker names the stale reads, and
 * the program reports what it found instead of failing.
 *
 * Usage: stencil [ROWS WIDTH GENERATIONS] [overhead] (default 192 256 10). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../life.h"
#include "check.h"
#include "consistency.h"

enum { ABOVE, BELOW };

static unsigned rows_total = 192, width = 256, generations = 10;

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int overhead = argc > 1 && strcmp(argv[argc - 1], "overhead") == 0;
    int sizes = argc - overhead;
    CHECK(sizes == 1 || sizes == 4, "usage: stencil [ROWS WIDTH GENERATIONS] [overhead]");
    if (sizes == 4) {
        rows_total = (unsigned)atoi(argv[1]);
        width = (unsigned)atoi(argv[2]);
        generations = (unsigned)atoi(argv[3]);
    }
    CHECK(rows_total >= (unsigned)n && width > 0, "%u rows for %d PEs", rows_total, n);
    unsigned w = width, first, rows, most = (rows_total + n - 1) / n;
    life_rows_of(rows_total, n, me, &first, &rows);
    /* The grid is private (its loads cached); symmetric are the halos
     * [set][ABOVE or BELOW], their signals and the rows PE 0 gets at the
     * end. */
    uint8_t *grid = calloc((rows + 2) * w, 1), *next = calloc((rows + 2) * w, 1);
    uint8_t *halo = shmem_calloc(4, w), *result = shmem_malloc(most * w);
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
    CHECK(grid != NULL && next != NULL && halo != NULL && result != NULL && sig != NULL,
          "memory for %u rows", most);
    int up = (me + n - 1) % n, down = (me + 1) % n;
    uint8_t *whole = NULL;
    if (me == 0) {
        whole = life_serial(rows_total, w, generations);
        CHECK(whole != NULL, "memory for the serial run");
    }
    uint8_t *theirs = me == 0 ? malloc(most * w) : NULL;
    CHECK(me != 0 || theirs != NULL, "memory for a PE's rows");
    /* Every generation of every run gets its own signal value. */
    uint64_t generation = 0;
    int runs = overhead ? 2 : 1;
#ifdef STALE
    CHECK(!overhead, "a -DSTALE build measures no overhead");
#endif
    double took[2];
    for (int run = 0; run < runs; run++) {
        shmemx_enforce_consistency(run == 0);
        for (unsigned r = 0; r < rows; r++)
            for (unsigned c = 0; c < w; c++) grid[(r + 1) * w + c] = life_seed(first + r, c);
        shmem_barrier_all();
        long late = 0;
        double start = shmem_wtime();
        for (unsigned g = 0; g < generations; g++) {
            generation++;
            unsigned set = generation % 2;
            uint8_t *mine = halo + 2 * set * w;
            uint64_t *signals = sig + 2 * set;
            /* My first row is the lower halo of the PE above, my last the
             * upper halo of the PE below. */
            shmem_putmem_signal(mine + BELOW * w, grid + w, w, signals + BELOW, generation,
                                SHMEM_SIGNAL_SET, up);
            shmem_putmem_signal(mine + ABOVE * w, grid + rows * w, w, signals + ABOVE,
                                generation, SHMEM_SIGNAL_SET, down);
            late += !arrived(signals + ABOVE, generation);
            late += !arrived(signals + BELOW, generation);
            memcpy(grid, mine + ABOVE * w, w);
            memcpy(grid + (rows + 1) * w, mine + BELOW * w, w);
            life_step(grid, next, rows, w);
            uint8_t *t = grid;
            grid = next;
            next = t;
        }
        shmem_barrier_all();
        took[run] = shmem_wtime() - start;
        shmemx_enforce_consistency(1); /* the checks below with it */
        memcpy(result, grid + w, rows * w);
        shmem_barrier_all();
        /* PE 0 gets every PE's rows and compares them with its serial run. */
        long wrong = 0, live = 0;
        if (me == 0) {
            for (int pe = 0; pe < n; pe++) {
                unsigned pf, pc;
                life_rows_of(rows_total, n, pe, &pf, &pc);
                shmem_getmem(theirs, result, pc * w, pe);
                for (unsigned k = 0; k < pc * w; k++) {
                    live += theirs[k];
                    if (theirs[k] != whole[(pf + 1) * w + k]) {
                        if (wrong == 0)
                            printf("cell (%u, %u) is %u, the serial run has %u\n", pf + k / w,
                                   k % w, theirs[k], whole[(pf + 1) * w + k]);
                        wrong++;
                    }
                }
            }
        }
#ifdef STALE
        printf("PE %d: %ld of %u halos not seen in time\n", me, late, 2 * generations);
        if (me == 0)
            printf("stencil without signal_wait_until: %ld of %u cells differ from the serial "
                   "run\n",
                   wrong, rows_total * w);
#else
        CHECK(late == 0, "%ld halos late", late);
        CHECK(wrong == 0, "%s run: %ld cells differ from the serial run",
              run == 0 ? "the enforced" : "the incoherent", wrong);
        if (me == 0 && run == 0)
            printf("stencil over OpenSHMEM: %ux%u torus, %u generations on %d PEs: %ld of %u "
                   "cells alive, verified against a serial run\n",
                   rows_total, w, generations, n, live, rows_total * w);
#endif
        /* Nobody starts the next run before PE 0 has read this one. */
        shmem_barrier_all();
    }
    if (me == 0 && overhead)
        print_overhead("stencil", n, took);
    shmem_finalize();
    return 0;
}
