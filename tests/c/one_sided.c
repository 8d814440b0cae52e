/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* One-sided communication from C, every transfer checked: a window from
 * MPI_Win_allocate, its memory loaded and stored through the pointer it
 * gives; fence epochs with put, get and accumulate; passive-target epochs
 * with fetch_and_op, compare_and_swap, get_accumulate, lock_all, flush
 * and request-based put and get; PSCW between neighbours; the errors a
 * window reports; a shared window's parts loaded and stored by address;
 * and a window made by MPI_Win_create on memory from MPI_Alloc_mem
 * (window_memory.c makes them on every other kind of memory). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { SLOTS = 8 }; /* per rank, after the `size` slots of the ring */

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *base = NULL;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)((size + SLOTS) * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    CHECK(base != NULL, "a base address");
    /* The window's attributes. */
    void *attr_base = NULL;
    MPI_Aint *attr_size = NULL;
    int *attr_unit = NULL, *attr_flavor = NULL, *attr_model = NULL, flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &attr_base, &flag);
    CHECK(flag && attr_base == base, "MPI_WIN_BASE");
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &attr_size, &flag);
    CHECK(flag && *attr_size == (MPI_Aint)((size + SLOTS) * sizeof(int)), "MPI_WIN_SIZE %ld",
          (long)*attr_size);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &attr_unit, &flag);
    CHECK(flag && *attr_unit == sizeof(int), "MPI_WIN_DISP_UNIT %d", *attr_unit);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &attr_flavor, &flag);
    CHECK(flag && *attr_flavor == MPI_WIN_FLAVOR_ALLOCATE, "MPI_WIN_CREATE_FLAVOR %d", *attr_flavor);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &attr_model, &flag);
    CHECK(flag && *attr_model == MPI_WIN_SEPARATE, "MPI_WIN_MODEL %d", *attr_model);
    for (int i = 0; i < size + SLOTS; i++) base[i] = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Fence: put my value into my right neighbour's slot `rank`. */
    MPI_Win_fence(0, win);
    int v = 100 + rank;
    MPI_Put(&v, 1, MPI_INT, right, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(base[left] == 100 + left, "put: base[%d] = %d", left, base[left]);
    int got = 0;
    MPI_Get(&got, 1, MPI_INT, right, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(got == 100 + rank, "get %d", got);

    /* Accumulate: every rank adds rank + 1 into rank 0's slot `size`. */
    if (rank == 0) base[size] = 0;
    MPI_Win_fence(0, win);
    int mine = rank + 1;
    MPI_Accumulate(&mine, 1, MPI_INT, 0, size, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0) CHECK(base[size] == size * (size + 1) / 2, "accumulate %d", base[size]);

    /* Passive target: a counter at rank 0's slot size + 1. */
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        base[size + 1] = 0;
        base[size + 2] = -1;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int old = -1, one = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, size + 1, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    CHECK(old >= 0 && old < size, "fetch_and_op gave %d", old);
    /* Every rank saw a different old value. */
    int seen = 1 << old, all_seen = 0;
    if (size <= 31) {
        MPI_Allreduce(&seen, &all_seen, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(all_seen == (int)((1u << size) - 1), "old values %#x", all_seen);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int count = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(NULL, &count, MPI_INT, 0, size + 1, MPI_NO_OP, win);
    MPI_Win_unlock(0, win);
    CHECK(count == size, "counter %d", count);

    /* Compare and swap: one rank wins rank 0's slot size + 2. */
    int expected = -1, prev = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Compare_and_swap(&rank, &expected, &prev, MPI_INT, 0, size + 2, win);
    MPI_Win_unlock(0, win);
    int won = prev == -1, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1, "%d winners", winners);

    /* get_accumulate with doubles and lock_all/flush: each rank adds into
     * its right neighbour's slot size + 4 (a double) and reads it back. */
    double *d = (double *)&base[size + 4];
    MPI_Win_lock_all(0, win);
    /* The store reaches the window's public copy with MPI_Win_sync; the
     * barrier orders it before the others' accesses (MPI 11.7). */
    *d = 0.0;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    double add = 0.25 * (rank + 1), before = -1;
    MPI_Get_accumulate(&add, 1, MPI_DOUBLE, &before, 1, MPI_DOUBLE, right, size + 4, 1,
                       MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_flush(right, win);
    CHECK(before == 0.0, "get_accumulate saw %f", before);
    double after = -1;
    MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, &after, 1, MPI_DOUBLE, right, size + 4, 1,
                       MPI_DOUBLE, MPI_NO_OP, win);
    MPI_Win_flush_all(win);
    CHECK(after == add, "after %f", after);
    /* Request-based put and get in the same epoch. */
    MPI_Request reqs[2];
    int rv = 9000 + rank, rback = -1;
    MPI_Rput(&rv, 1, MPI_INT, right, size + 7, 1, MPI_INT, win, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Win_flush(right, win);
    MPI_Rget(&rback, 1, MPI_INT, right, size + 7, 1, MPI_INT, win, &reqs[1]);
    int done = 0;
    MPI_Test(&reqs[1], &done, MPI_STATUS_IGNORE);
    CHECK(done && reqs[1] == MPI_REQUEST_NULL && rback == rv, "rget %d (done %d)", rback, done);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    MPI_Win_sync(win);
    CHECK(*d == 0.25 * (left + 1), "own double %f", *d);
    MPI_Win_unlock(rank, win);

    /* PSCW: even ranks expose to the next odd rank, which puts. */
    MPI_Group world, peer, wgroup;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Win_get_group(win, &wgroup);
    int gsize = 0, grank = -1;
    MPI_Group_size(wgroup, &gsize);
    MPI_Group_rank(wgroup, &grank);
    CHECK(gsize == size && grank == rank, "window group %d %d", gsize, grank);
    MPI_Group_free(&wgroup);
    CHECK(wgroup == MPI_GROUP_NULL, "freed group handle");
    if (!(rank == size - 1 && rank % 2 == 0)) {
        int other = rank % 2 == 0 ? rank + 1 : rank - 1;
        MPI_Group_incl(world, 1, &other, &peer);
        if (rank % 2 == 0) {
            base[size + 3] = 0;
            MPI_Win_post(peer, 0, win);
            MPI_Win_wait(win);
            CHECK(base[size + 3] == 7000 + other, "pscw got %d", base[size + 3]);
        } else {
            int w = 7000 + rank;
            MPI_Win_start(peer, 0, win);
            MPI_Put(&w, 1, MPI_INT, other, size + 3, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
        MPI_Group_free(&peer);
    }
    MPI_Group_free(&world);

    /* Errors on the window, returned. */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int class = 0, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Win_fence(0, win);
    int rc = MPI_Put(&v, 1, MPI_INT, right, size + SLOTS, 1, MPI_INT, win);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_RMA_RANGE, "put past the end: class %d", class);
    rc = MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_RANK, "put to rank %d: class %d", size, class);
    rc = MPI_Put(&v, 2, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_COUNT, "2 ints into 1: class %d", class);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    rc = MPI_Win_unlock(right, win);
    MPI_Error_class(rc, &class);
    MPI_Error_string(rc, text, &len);
    CHECK(class == MPI_ERR_RMA_SYNC && strstr(text, "MPI_Win_unlock") != NULL, "%s", text);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* A window on memory from MPI_Alloc_mem. */
    int *mem = NULL;
    MPI_Alloc_mem(4 * sizeof(int), MPI_INFO_NULL, &mem);
    CHECK(mem != NULL, "MPI_Alloc_mem");
    for (int i = 0; i < 4; i++) mem[i] = -1;
    MPI_Win made;
    MPI_Win_create(mem, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &made);
    MPI_Win_get_attr(made, MPI_WIN_CREATE_FLAVOR, &attr_flavor, &flag);
    MPI_Win_get_attr(made, MPI_WIN_BASE, &attr_base, &flag);
    CHECK(*attr_flavor == MPI_WIN_FLAVOR_CREATE && attr_base == mem, "created window's attributes");
    MPI_Win_fence(0, made);
    MPI_Put(&rank, 1, MPI_INT, right, 1, 1, MPI_INT, made);
    MPI_Win_fence(0, made);
    CHECK(mem[1] == left && mem[0] == -1 && mem[2] == -1, "put into created window: %d", mem[1]);
    /* Freed before its window (as MPICH's test harness does), the memory
     * stays the window's until MPI_Win_free. */
    rc = MPI_Free_mem(mem);
    CHECK(rc == MPI_SUCCESS, "freeing memory under a window: %d", rc);
    int from_right = 0;
    MPI_Get(&from_right, 1, MPI_INT, right, 1, 1, MPI_INT, made);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, made);
    CHECK(from_right == rank, "get from freed memory under a window: %d", from_right);
    MPI_Win_free(&made);

    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL, "freed window handle");

    /* A shared window: every rank stores into its own part, then loads
     * its right neighbour's through the address MPI_Win_shared_query
     * gives, MPI_Win_sync on both sides of a barrier. */
    MPI_Win shared;
    int *mine_part, *theirs;
    MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine_part,
                            &shared);
    MPI_Aint part_size = 0;
    int unit = 0;
    MPI_Win_shared_query(shared, right, &part_size, &unit, &theirs);
    MPI_Win_get_attr(shared, MPI_WIN_CREATE_FLAVOR, &attr_flavor, &flag);
    CHECK(*attr_flavor == MPI_WIN_FLAVOR_SHARED, "shared flavor %d", *attr_flavor);
    CHECK(part_size == 4 * sizeof(int) && unit == sizeof(int), "shared query %ld %d",
          (long)part_size, unit);
    int *own_again;
    MPI_Win_shared_query(shared, rank, &part_size, &unit, &own_again);
    CHECK(own_again == mine_part, "the own part's address");
    MPI_Win_lock_all(0, shared);
    for (int i = 0; i < 4; i++) mine_part[i] = 300 * rank + i;
    MPI_Win_sync(shared);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(shared);
    for (int i = 0; i < 4; i++)
        CHECK(theirs[i] == 300 * right + i, "shared load %d from %d: %d", i, right, theirs[i]);
    MPI_Win_unlock_all(shared);
    MPI_Win_free(&shared);

    /* A dynamic window: each rank attaches a block of MPI_Alloc_mem and
     * its right neighbour puts into it at the address MPI_Get_address
     * gave, sent to it; what it may not attach or reach is refused. */
    MPI_Win dyn;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
    MPI_Win_get_attr(dyn, MPI_WIN_CREATE_FLAVOR, &attr_flavor, &flag);
    CHECK(*attr_flavor == MPI_WIN_FLAVOR_DYNAMIC, "dynamic flavor %d", *attr_flavor);
    void *dyn_base = (void *)1;
    MPI_Win_get_attr(dyn, MPI_WIN_BASE, &dyn_base, &flag);
    CHECK(dyn_base == MPI_BOTTOM, "dynamic base %p", dyn_base);
    int *block;
    MPI_Alloc_mem(8 * sizeof(int), MPI_INFO_NULL, &block);
    for (int i = 0; i < 8; i++) block[i] = -1;
    MPI_Win_attach(dyn, block, 8 * sizeof(int));
    MPI_Aint where, where_3;
    MPI_Get_address(block, &where);
    MPI_Get_address(&block[3], &where_3);
    CHECK(MPI_Aint_diff(where_3, where) == 3 * sizeof(int), "address difference %ld",
          (long)MPI_Aint_diff(where_3, where));
    CHECK(MPI_Aint_add(where, 12) == where_3, "address sum");
    MPI_Aint theirs_at;
    MPI_Sendrecv(&where, 1, MPI_AINT, left, 20, &theirs_at, 1, MPI_AINT, right, 20,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int pair[2] = {rank, 7 * rank};
    MPI_Win_fence(0, dyn);
    MPI_Put(pair, 2, MPI_INT, right, MPI_Aint_add(theirs_at, 3 * sizeof(int)), 2, MPI_INT, dyn);
    MPI_Win_fence(0, dyn);
    for (int i = 0; i < 8; i++)
        CHECK(block[i] == (i == 3 ? left : i == 4 ? 7 * left : -1), "dynamic put %d: %d", i,
              block[i]);
    MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN);
    rc = MPI_Put(pair, 1, MPI_INT, right, (MPI_Aint)MPI_BOTTOM, 1, MPI_INT, dyn);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_DISP, "a put at MPI_BOTTOM: class %d", class);
    MPI_Win_fence(0, dyn);
    MPI_Win_detach(dyn, block);
    MPI_Free_mem(block);
    MPI_Win_free(&dyn);

    /* Info objects, and the hints a window takes. */
    MPI_Info info, copy, used;
    char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    int nkeys = -1, vlen = -1, found = -1;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    MPI_Info_set(info, "scc_lock_scheme", "mcs-wp");
    MPI_Info_set(info, "no_locks", "false"); /* replaces the value, keeps the place */
    MPI_Info_set(info, "some_other_mpis_hint", "42");
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 3, "%d keys", nkeys);
    MPI_Info_get_nthkey(info, 1, key);
    CHECK(strcmp(key, "scc_lock_scheme") == 0, "key 1: %s", key);
    MPI_Info_get_valuelen(info, "scc_lock_scheme", &vlen, &found);
    CHECK(found == 1 && vlen == 6, "value length %d (%d)", vlen, found);
    MPI_Info_get(info, "scc_lock_scheme", 3, value, &found);
    CHECK(found == 1 && strcmp(value, "mcs") == 0, "value cut to 3: %s", value);
    MPI_Info_get(info, "no_locks", MPI_MAX_INFO_VAL, value, &found);
    CHECK(found == 1 && strcmp(value, "false") == 0, "no_locks: %s", value);
    MPI_Info_get(info, "absent", MPI_MAX_INFO_VAL, value, &found);
    CHECK(found == 0, "an absent key found");
    MPI_Info_dup(info, &copy);
    MPI_Info_delete(copy, "no_locks");
    MPI_Info_get_nkeys(copy, &nkeys);
    CHECK(nkeys == 2, "%d keys in the copy", nkeys);
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 3, "%d keys after the copy's delete", nkeys);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Info_delete(copy, "no_locks");
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_INFO_NOKEY, "deleting a deleted key: class %d", class);
    MPI_Info_free(&copy);
    CHECK(copy == MPI_INFO_NULL, "freed info %d", copy);
    rc = MPI_Info_get_nkeys(copy, &nkeys);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_INFO, "a freed info object: class %d", class);

    /* A window made with them takes its locks by MCS-WP, and says so; a
     * counter at rank 0 under its exclusive locks counts every rank. */
    int *counter;
    MPI_Win hinted;
    MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &counter, &hinted);
    MPI_Win_get_info(hinted, &used);
    MPI_Info_get(used, "scc_lock_scheme", MPI_MAX_INFO_VAL, value, &found);
    CHECK(found == 1 && strcmp(value, "mcs-wp") == 0, "lock scheme in use: %s", value);
    MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL, value, &found);
    CHECK(found == 1 && strcmp(value, "rar,raw,war,waw") == 0, "ordering in use: %s", value);
    MPI_Info_free(&used);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, hinted);
    *counter = 0;
    MPI_Win_unlock(rank, hinted);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int round = 0; round < 3; round++) {
        int now = -1, next;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, hinted);
        MPI_Get(&now, 1, MPI_INT, 0, 0, 1, MPI_INT, hinted);
        MPI_Win_flush(0, hinted);
        next = now + 1;
        MPI_Put(&next, 1, MPI_INT, 0, 0, 1, MPI_INT, hinted);
        MPI_Win_unlock(0, hinted);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, hinted);
        CHECK(*counter == 3 * size, "counter under MCS-WP locks: %d", *counter);
        MPI_Win_unlock(0, hinted);
    }
    /* Its lock scheme stays what it was made with. */
    MPI_Win_set_errhandler(hinted, MPI_ERRORS_RETURN);
    MPI_Info_set(info, "scc_lock_scheme", "gbh");
    rc = MPI_Win_set_info(hinted, info);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_INFO_VALUE, "changing the lock scheme: class %d", class);
    MPI_Info_set(info, "scc_lock_scheme", "mcs-wp");
    CHECK(MPI_Win_set_info(hinted, info) == MPI_SUCCESS, "the same lock scheme again");
    MPI_Win_free(&hinted);

    /* no_locks: the window has no locks; a value a key does not take is
     * refused. */
    MPI_Win unlocked;
    int *unused;
    MPI_Info_set(info, "no_locks", "true");
    MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &unused, &unlocked);
    MPI_Win_set_errhandler(unlocked, MPI_ERRORS_RETURN);
    rc = MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, unlocked);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_RMA_SYNC, "a lock of a no_locks window: class %d", class);
    MPI_Win_fence(0, unlocked);
    MPI_Win_fence(0, unlocked);
    MPI_Win_free(&unlocked);
    MPI_Info_set(info, "scc_lock_scheme", "ticket");
    MPI_Win refused = MPI_WIN_NULL;
    rc = MPI_Win_allocate(sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &unused, &refused);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_INFO_VALUE && refused == MPI_WIN_NULL, "a lock scheme of no name: %d",
          class);
    MPI_Info_free(&info);

    /* scc_memory_type: the window is mapped as NCM, says so, and a put
     * under a fence reaches the neighbour; a type of no name is refused. */
    MPI_Info typed;
    MPI_Win ncm;
    int *slot;
    MPI_Info_create(&typed);
    MPI_Info_set(typed, "scc_memory_type", "ncm");
    MPI_Win_allocate(sizeof(int), sizeof(int), typed, MPI_COMM_WORLD, &slot, &ncm);
    MPI_Win_get_info(ncm, &used);
    MPI_Info_get(used, "scc_memory_type", MPI_MAX_INFO_VAL, value, &found);
    CHECK(found == 1 && strcmp(value, "ncm") == 0, "memory type in use: %s", value);
    MPI_Info_free(&used);
    int ours = 1000 + rank;
    MPI_Win_fence(0, ncm);
    MPI_Put(&ours, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, ncm);
    MPI_Win_fence(0, ncm);
    CHECK(*slot == 1000 + (rank + size - 1) % size, "put into an NCM window: %d", *slot);
    MPI_Win_free(&ncm);
    MPI_Info_set(typed, "scc_memory_type", "cached");
    refused = MPI_WIN_NULL;
    rc = MPI_Win_allocate(sizeof(int), sizeof(int), typed, MPI_COMM_WORLD, &unused, &refused);
    MPI_Error_class(rc, &class);
    CHECK(class == MPI_ERR_INFO_VALUE && refused == MPI_WIN_NULL, "a memory type of no name: %d",
          class);
    MPI_Info_free(&typed);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (rank == 0) printf("one-sided checks passed on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
