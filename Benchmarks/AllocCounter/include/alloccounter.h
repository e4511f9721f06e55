/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Counts heap allocations made by the benchmark process (malloc, calloc,
 * realloc, posix_memalign, aligned_alloc, memalign) by interposing them on
 * glibc's implementations. Linked only into depthmatte-bench. */
#ifndef ALLOCCOUNTER_H
#define ALLOCCOUNTER_H
#include <stdint.h>
uint64_t dm_alloc_count (void);
#endif
