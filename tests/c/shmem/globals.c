/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* globals.c: global and static variables are symmetric objects. An
 * initialised global keeps its value through shmem_init; puts, gets,
 * atomics, wait_until, a lock, a broadcast and a reduction work on
 * globals, static locals and .bss arrays, each value checked. */
#include "check.h"

#include <stdint.h>

int init_value = 42;
long ring[8];
int counter;
long lock;
int flag;
long bcast[4];
long bcast_src[4];
long total;
long src;
static double halves[3] = {0.5, 1.5, 2.5};

int main(void)
{
    static long from_left;
    int on_stack = 0;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    CHECK(init_value == 42, "init_value is %d", init_value);
    CHECK(halves[2] == 2.5, "halves[2] is %f", halves[2]);
    CHECK(shmem_addr_accessible(&ring, right), "ring is not accessible");
    CHECK(shmem_addr_accessible(&from_left, right), "a static is not accessible");
    CHECK(!shmem_addr_accessible(&on_stack, right), "the stack is accessible");
    CHECK(shmem_ptr(&counter, me) == (void *)&counter, "shmem_ptr of my counter");

    /* The program's own loads and stores. */
    for (int i = 0; i < 8; i++)
        ring[i] = -1;
    init_value = me;
    CHECK(init_value == me && ring[7] == -1, "local stores were lost");
    shmem_barrier_all();

    /* A ring of puts into a global array and a static local. */
    long mine[8];
    for (int i = 0; i < 8; i++)
        mine[i] = me * 100 + i;
    shmem_long_put(ring, mine, 8, right);
    shmem_long_p(&from_left, me, right);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        CHECK(ring[i] == left * 100 + i, "ring[%d] is %ld", i, ring[i]);
    CHECK(from_left == left, "from_left is %ld", from_left);
    CHECK(shmem_int_g(&init_value, right) == right, "init_value of PE %d", right);
    double got[3];
    shmem_double_get(got, halves, 3, right);
    CHECK(got[1] == 1.5, "halves[1] of PE %d is %f", right, got[1]);

    /* Atomics on a global of PE 0. */
    shmem_int_atomic_add(&counter, 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter == n, "counter is %d, not %d", counter, n);
    shmem_barrier_all();

    /* A lock in a global around a get-modify-put of PE 0's total. */
    for (int k = 0; k < 3; k++) {
        shmem_set_lock(&lock);
        long t = shmem_long_g(&total, 0);
        shmem_long_p(&total, t + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(total == 3L * n, "total is %ld, not %d", total, 3 * n);

    /* A flag in a global, waited for. */
    shmem_int_atomic_set(&flag, me + 1, right);
    shmem_int_wait_until(&flag, SHMEM_CMP_EQ, left + 1);

    /* A broadcast and a reduction over globals. */
    if (me == 0)
        for (int i = 0; i < 4; i++)
            bcast_src[i] = 7 + i;
    shmem_barrier_all();
    shmem_long_broadcast(SHMEM_TEAM_WORLD, bcast, bcast_src, 4, 0);
    CHECK(bcast[3] == 10, "bcast[3] is %ld", bcast[3]);
    src = me + 1;
    shmem_barrier_all();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &src, 1);
    CHECK(total == (long)n * (n + 1) / 2, "the sum is %ld", total);

    printf("PE %d of %d: globals checks passed\n", me, n);
    shmem_finalize();
    return 0;
}
