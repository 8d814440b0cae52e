/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* producer_consumer.c: even PEs produce, each for the odd PE above it:
 * the consumer has the data's and the flag's lines in its cache, says it
 * is ready, and the producer puts the data, fences and sets the flag. The
 * consumer waits with shmem_int_wait_until, which reads the flag fresh
 * each time, and then finds every value.
 *
 * Built with -DSTALE, the consumer waits with plain loads of the flag
 * instead: the one synchronisation removed. Its cached line keeps the old
 * flag and data, the coherence checker names the stale reads, and the
 * program reports what it saw instead of failing.
 *
 * With the argument `overhead`, each pair then hands over ROUNDS rounds
 * of data (ready, put, fence, flag, each waited for with
 * shmem_int_wait_until), with the library's consistency actions and
 * then without them (shmemx_enforce_consistency(0), an incoherent run,
 * right only where no load can be stale: the chip model's default
 * reading of MPBT-WT loads). Every round's data is checked, and PE 0
 * prints both times and their difference, the consistency overhead. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "consistency.h"

#define N 40
#define ROUNDS 50

/* Value i of round `round` from `producer`. */
static int value(int producer, int round, int i) { return producer * 7 + round * 1000 + i + 1; }

/* ROUNDS hand-overs from each producer to its consumer, the flags and
 * the ready words counting on from `base`; this PE's time. */
static double hand_over(int me, int producer, int consumer, int *data, int *flag, int *ready,
                        int base) {
    shmem_barrier_all();
    double start = shmem_wtime();
    for (int round = 1; round <= ROUNDS; round++) {
        int tag = base + round;
        if (consumer) {
            shmem_int_p(ready, tag, me - 1);
            shmem_int_wait_until(flag, SHMEM_CMP_GE, tag);
            for (int i = 0; i < N; i++)
                CHECK(data[i] == value(me - 1, tag, i), "round %d: data[%d] = %d", tag, i,
                      data[i]);
        } else if (producer) {
            int vals[N];
            for (int i = 0; i < N; i++) vals[i] = value(me, tag, i);
            shmem_int_wait_until(ready, SHMEM_CMP_GE, tag);
            shmem_int_put(data, vals, N, me + 1);
            shmem_fence();
            shmem_int_p(flag, tag, me + 1);
        }
    }
    shmem_barrier_all();
    return shmem_wtime() - start;
}

int main(int argc, char **argv) {
    shmem_init();
    int overhead = argc == 2 && strcmp(argv[1], "overhead") == 0;
    CHECK(argc == 1 || overhead, "usage: producer_consumer [overhead]");
#ifdef STALE
    CHECK(!overhead, "a -DSTALE build measures no overhead");
#endif
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *data = shmem_calloc(N, sizeof(int));
    int *flag = shmem_calloc(1, sizeof(int));
    int *ready = shmem_calloc(1, sizeof(int));
    int producer = me % 2 == 0 && me + 1 < n;
    int consumer = me % 2 == 1;
    if (consumer) {
        /* The data's and the flag's lines into this core's cache. */
        int sum = 0;
        for (int i = 0; i < N; i++) sum += ((volatile int *)data)[i];
        sum += *(volatile int *)flag;
        CHECK(sum == 0, "calloc left %d", sum);
        shmem_int_p(ready, 1, me - 1);
#ifdef STALE
        long polls = 0;
        double deadline = shmem_wtime() + POLL_SECONDS;
        while (*(volatile int *)flag == 0 && shmem_wtime() < deadline) polls++;
        int stale = 0;
        for (int i = 0; i < N; i++) stale += data[i] != (me - 1) * 7 + i + 1;
        printf("PE %d: flag %s after %ld polls, %d of %d values stale\n", me,
               *(volatile int *)flag ? "seen" : "not seen", polls, stale, N);
#else
        shmem_int_wait_until(flag, SHMEM_CMP_EQ, 1);
        for (int i = 0; i < N; i++)
            CHECK(data[i] == (me - 1) * 7 + i + 1, "data[%d] = %d", i, data[i]);
        printf("PE %d: consumed %d values from PE %d\n", me, N, me - 1);
#endif
    } else if (producer) {
        int vals[N];
        for (int i = 0; i < N; i++) vals[i] = me * 7 + i + 1;
        shmem_int_wait_until(ready, SHMEM_CMP_EQ, 1);
        shmem_int_put(data, vals, N, me + 1);
        shmem_fence();
        shmem_int_p(flag, 1, me + 1);
        printf("PE %d: produced %d values for PE %d\n", me, N, me + 1);
    }
    if (overhead) {
        double took[2];
        for (int run = 0; run < 2; run++) {
            shmemx_enforce_consistency(run == 0);
            took[run] = hand_over(me, producer, consumer, data, flag, ready, 1 + run * ROUNDS);
            shmemx_enforce_consistency(1);
        }
        if (me == 0)
            print_overhead("producer_consumer", n, took);
    }
    shmem_finalize();
    return 0;
}
