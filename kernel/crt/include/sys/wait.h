/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* sys/wait.h: waiting for child processes (POSIX). A core runs one
 * program and starts no process, so there is never a child to wait for:
 * wait and waitpid fail with ECHILD, as POSIX has them do for a process
 * without children. The status macros decode Linux's status word. */
#ifndef CRT_SYS_WAIT_H
#define CRT_SYS_WAIT_H

#include <sys/types.h>

/** waitpid's options: return at once if no child has ended. */
#define WNOHANG 1
/** waitpid's options: report stopped children too. */
#define WUNTRACED 2

/** The exit status of a child that exited. */
#define WEXITSTATUS(status) (((status) & 0xff00) >> 8)
/** The signal that ended a child. */
#define WTERMSIG(status) ((status) & 0x7f)
/** The signal that stopped a child. */
#define WSTOPSIG(status) WEXITSTATUS(status)
/** Whether the child exited. */
#define WIFEXITED(status) (WTERMSIG(status) == 0)
/** Whether a signal ended the child (its low 7 bits name it; 0x7f
 * marks a stopped child instead). */
#define WIFSIGNALED(status) (WTERMSIG(status) != 0 && WTERMSIG(status) != 0x7f)
/** Whether the child is stopped. */
#define WIFSTOPPED(status) (((status) & 0xff) == 0x7f)

/** Fails with ECHILD: there is no child process. Returns -1. */
pid_t wait(int *status);
/** Fails with ECHILD: there is no child process. Returns -1. */
pid_t waitpid(pid_t pid, int *status, int options);

#endif
