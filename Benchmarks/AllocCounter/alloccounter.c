/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include "alloccounter.h"

extern void *__libc_malloc (size_t);
extern void *__libc_calloc (size_t, size_t);
extern void *__libc_realloc (void *, size_t);
extern void *__libc_memalign (size_t, size_t);

static uint64_t count;

uint64_t dm_alloc_count (void) { return __atomic_load_n (&count, __ATOMIC_RELAXED); }
static inline void bump (void) { __atomic_fetch_add (&count, 1, __ATOMIC_RELAXED); }

void *malloc (size_t n) { bump (); return __libc_malloc (n); }
void *calloc (size_t a, size_t b) { bump (); return __libc_calloc (a, b); }
void *realloc (void *p, size_t n) { bump (); return __libc_realloc (p, n); }
void *memalign (size_t al, size_t n) { bump (); return __libc_memalign (al, n); }
void *aligned_alloc (size_t al, size_t n) { bump (); return __libc_memalign (al, n); }
int posix_memalign (void **out, size_t al, size_t n)
{
  void *p;
  bump ();
  p = __libc_memalign (al, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}
