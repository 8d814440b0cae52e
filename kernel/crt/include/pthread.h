/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* pthread.h: POSIX threads as far as one thread per core goes. A core
 * runs one program on one thread, so pthread_create fails with EAGAIN
 * (the resources for another thread are never there) and pthread_join
 * with ESRCH; the calling thread is pthread_self(). Mutexes and
 * pthread_once work as POSIX says for that one thread: a mutex is
 * taken and given back, and locking one this thread holds fails with
 * EDEADLK (what an error-checking mutex does; a default mutex would hang
 * for ever) instead of hanging the core. */
#ifndef CRT_PTHREAD_H
#define CRT_PTHREAD_H

#include <time.h>

/** A thread: 1 is the core's only one. */
typedef unsigned long pthread_t;
/** Thread attributes (none are kept). */
typedef struct {
    int unused;
} pthread_attr_t;
/** A mutex: whether it is held. */
typedef struct {
    int locked;
} pthread_mutex_t;
/** Mutex attributes (none are kept). */
typedef struct {
    int unused;
} pthread_mutexattr_t;
/** A once-control. */
typedef int pthread_once_t;

#define PTHREAD_MUTEX_INITIALIZER {0}
#define PTHREAD_ONCE_INIT 0

pthread_t pthread_self(void);
int pthread_equal(pthread_t t1, pthread_t t2);
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg);
int pthread_join(pthread_t thread, void **value);
int pthread_attr_init(pthread_attr_t *attr);
int pthread_attr_destroy(pthread_attr_t *attr);
int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int pthread_mutex_destroy(pthread_mutex_t *mutex);
int pthread_mutex_lock(pthread_mutex_t *mutex);
int pthread_mutex_trylock(pthread_mutex_t *mutex);
int pthread_mutex_unlock(pthread_mutex_t *mutex);
int pthread_mutexattr_init(pthread_mutexattr_t *attr);
int pthread_mutexattr_destroy(pthread_mutexattr_t *attr);
int pthread_once(pthread_once_t *once, void (*init)(void));

#endif
