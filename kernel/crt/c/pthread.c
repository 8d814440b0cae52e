/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* pthread.h for one thread per core (see the header). */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

/* The core's one thread. */
#define ONLY_THREAD ((pthread_t)1)

pthread_t pthread_self(void)
{
    return ONLY_THREAD;
}

int pthread_equal(pthread_t t1, pthread_t t2)
{
    return t1 == t2;
}

/* A core runs one thread: there is never room for another. */
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg)
{
    (void)thread;
    (void)attr;
    (void)start;
    (void)arg;
    return EAGAIN;
}

/* No thread but this one exists, and it cannot join itself. */
int pthread_join(pthread_t thread, void **value)
{
    (void)value;
    return thread == ONLY_THREAD ? EDEADLK : ESRCH;
}

int pthread_attr_init(pthread_attr_t *attr)
{
    attr->unused = 0;
    return 0;
}

int pthread_attr_destroy(pthread_attr_t *attr)
{
    (void)attr;
    return 0;
}

int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr)
{
    (void)attr;
    mutex->locked = 0;
    return 0;
}

/* A held mutex may not be destroyed. */
int pthread_mutex_destroy(pthread_mutex_t *mutex)
{
    return mutex->locked ? EBUSY : 0;
}

/* Only this thread can hold it: locking it again would wait for ever. */
int pthread_mutex_lock(pthread_mutex_t *mutex)
{
    if (mutex->locked) {
        return EDEADLK;
    }
    mutex->locked = 1;
    return 0;
}

int pthread_mutex_trylock(pthread_mutex_t *mutex)
{
    if (mutex->locked) {
        return EBUSY;
    }
    mutex->locked = 1;
    return 0;
}

/* Giving back a mutex nobody holds is an error. */
int pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    if (!mutex->locked) {
        return EPERM;
    }
    mutex->locked = 0;
    return 0;
}

int pthread_mutexattr_init(pthread_mutexattr_t *attr)
{
    attr->unused = 0;
    return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *attr)
{
    (void)attr;
    return 0;
}

/* `init` runs at the first call, once; later calls return at once. */
int pthread_once(pthread_once_t *once, void (*init)(void))
{
    if (*once == PTHREAD_ONCE_INIT) {
        *once = 1;
        init();
    }
    return 0;
}
