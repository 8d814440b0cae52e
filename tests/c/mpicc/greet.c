/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Compiled on its own with -D GREETING_BASE=... and -I include. */
#include "greeting.h"

#ifndef GREETING_BASE
#error "compile greet.c with -DGREETING_BASE=N"
#endif

int greeting_number(int rank) { return GREETING_BASE + 10 * rank; }
