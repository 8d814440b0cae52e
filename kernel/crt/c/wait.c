/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* sys/wait.h: a core starts no process, so no call has a child to wait
 * for. */
#include <errno.h>
#include <sys/wait.h>

pid_t wait(int *status)
{
    (void)status;
    errno = ECHILD;
    return -1;
}

pid_t waitpid(pid_t pid, int *status, int options)
{
    (void)pid;
    (void)status;
    (void)options;
    errno = ECHILD;
    return -1;
}
