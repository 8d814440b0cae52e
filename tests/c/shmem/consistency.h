/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* consistency.h: what the programs that measure consistency share:
 * waiting for a signal (with shmem_signal_wait_until, or, built with
 * -DSTALE, with plain loads: the synchronisation removed), and the line
 * that reports the consistency overhead. */
#ifndef SHMEM_CONSISTENCY_H
#define SHMEM_CONSISTENCY_H

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

/* How long a -DSTALE PE polls for a signal, in modelled seconds: far
 * longer than a step of the programs takes. */
#define POLL_SECONDS 0.002

/* Waits until the signal at `sig` is at least `want`; 1 if it saw it. */
static int arrived(uint64_t *sig, uint64_t want) {
#ifdef STALE
    double deadline = shmem_wtime() + POLL_SECONDS;
    while (*(volatile uint64_t *)sig < want && shmem_wtime() < deadline) {
    }
    return *(volatile uint64_t *)sig >= want;
#else
    shmem_signal_wait_until(sig, SHMEM_CMP_GE, want);
    return 1;
#endif
}

/* Prints `program`'s times on n PEs with consistency enforced
 * (took[0]) and without (took[1]), in seconds, and their difference. */
static void print_overhead(const char *program, int n, const double took[2]) {
    printf("consistency overhead: %s on %d PEs: %.1f us enforced, %.1f us incoherent (also "
           "verified), %.1f us (%.1f %%) for consistency\n",
           program, n, took[0] * 1e6, took[1] * 1e6, (took[0] - took[1]) * 1e6,
           100.0 * (took[0] - took[1]) / took[0]);
}

#endif
