/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The header of the mpicc test: found through -I, it names the word each
 * rank prints and the function greet.c defines. */
#ifndef GREETING_H
#define GREETING_H

#define GREETING_WORD "greetings"

/* The number rank `rank` prints: made from GREETING_BASE, which greet.c
 * is compiled with (-D). */
int greeting_number(int rank);

#endif
