/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* life.h: the automaton of the stencil programs, shared by the C
 * stencil over MPI (stencil.c) and over OpenSHMEM (shmem/stencil.c): the
 * same as the Rust `stencil` program (apps/programs/src/stencil.rs).
 * Conway's rule on the 9-point Moore stencil on a torus; the same first
 * generation; the rows split over the processes the same way. */
#ifndef LIFE_H
#define LIFE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The first generation: about a third of the cells alive, scattered. */
static uint8_t life_seed(uint32_t row, uint32_t col) {
    uint32_t x = row * 0x9E3779B9u ^ col * 0x85EBCA6Bu ^ 0x5bd1e995u;
    x = (x ^ (x >> 15)) * 0x2C1B3C6Du;
    return (x >> 24) % 3 == 0;
}

/* The rows of process k of n, of `total`: the first and how many. */
static void life_rows_of(unsigned total, unsigned n, unsigned k, unsigned *first,
                         unsigned *count) {
    unsigned base = total / n, extra = total % n;
    *first = k * base + (k < extra ? k : extra);
    *count = base + (k < extra);
}

/* One generation of rows 1..=rows of grid (rows + 2 rows of w cells; rows
 * 0 and rows + 1 are the halos) into the same rows of next. */
static void life_step(const uint8_t *grid, uint8_t *next, unsigned rows, unsigned w) {
    for (unsigned r = 1; r <= rows; r++) {
        for (unsigned c = 0; c < w; c++) {
            unsigned west = (c + w - 1) % w, east = (c + 1) % w, alive = 0;
            for (unsigned row = r - 1; row <= r + 1; row++) {
                const uint8_t *line = grid + row * w;
                alive += line[west] + line[c] + line[east];
            }
            uint8_t me = grid[r * w + c];
            alive -= me;
            next[r * w + c] = alive == 3 || (me == 1 && alive == 2);
        }
    }
}

/* The whole grid of `rows` rows of w cells after `generations`, wrapping
 * around rows too, with a halo row above and below (so row r is at
 * (r + 1) * w); NULL if memory runs out. */
static uint8_t *life_serial(unsigned rows, unsigned w, unsigned generations) {
    uint8_t *grid = calloc((rows + 2) * w, 1), *next = calloc((rows + 2) * w, 1);
    if (grid == NULL || next == NULL) return NULL;
    for (unsigned r = 0; r < rows; r++)
        for (unsigned c = 0; c < w; c++) grid[(r + 1) * w + c] = life_seed(r, c);
    for (unsigned g = 0; g < generations; g++) {
        memcpy(grid, grid + rows * w, w);           /* the last row above the first */
        memcpy(grid + (rows + 1) * w, grid + w, w); /* the first row below the last */
        life_step(grid, next, rows, w);
        uint8_t *t = grid;
        grid = next;
        next = t;
    }
    free(next);
    return grid;
}

#endif
