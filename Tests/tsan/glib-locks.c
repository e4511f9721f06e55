/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* glib-locks.c: tells ThreadSanitizer about GLib's own locks.
 *
 * On Linux GLib implements GMutex and GCond on futexes, and g_once_init_* on
 * atomics, all in libglib, which is not instrumented: TSan sees none of the
 * ordering they give, and every access guarded by GST_OBJECT_LOCK or a
 * GMutex of ours shows up as a race. Preloaded after the TSan runtime
 * (scripts/tsan), this library interposes those entry points, calls GLib's
 * own implementation and reports the lock operations through TSan's mutex
 * annotations (tsan_interface.h). GRecMutex, GRWLock and GThread are built
 * on pthreads, which TSan intercepts itself.
 *
 * Only calls that go through the PLT are seen (every call from GStreamer and
 * from the plugin; GLib's calls to itself may not be).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glib.h>
#include <sanitizer/tsan_interface.h>

/* GLib's own `name`, looked up once. */
#define REAL(name) \
  static __typeof__ (&name) real_ ## name; \
  if (!real_ ## name) real_ ## name = (__typeof__ (&name)) dlsym (RTLD_NEXT, #name)

void
g_mutex_lock (GMutex * m)
{
  REAL (g_mutex_lock);
  __tsan_mutex_pre_lock (m, 0);
  real_g_mutex_lock (m);
  __tsan_mutex_post_lock (m, 0, 0);
}

gboolean
g_mutex_trylock (GMutex * m)
{
  gboolean ok;
  REAL (g_mutex_trylock);
  __tsan_mutex_pre_lock (m, __tsan_mutex_try_lock);
  ok = real_g_mutex_trylock (m);
  __tsan_mutex_post_lock (m, __tsan_mutex_try_lock
      | (ok ? 0 : __tsan_mutex_try_lock_failed), 0);
  return ok;
}

void
g_mutex_unlock (GMutex * m)
{
  REAL (g_mutex_unlock);
  __tsan_mutex_pre_unlock (m, 0);
  real_g_mutex_unlock (m);
  __tsan_mutex_post_unlock (m, 0);
}

void
g_mutex_clear (GMutex * m)
{
  REAL (g_mutex_clear);
  __tsan_mutex_destroy (m, 0);
  real_g_mutex_clear (m);
}

/* A wait gives the mutex up and takes it again. */
void
g_cond_wait (GCond * c, GMutex * m)
{
  REAL (g_cond_wait);
  __tsan_mutex_pre_unlock (m, 0);
  __tsan_mutex_post_unlock (m, 0);
  real_g_cond_wait (c, m);
  __tsan_mutex_pre_lock (m, 0);
  __tsan_mutex_post_lock (m, 0, 0);
}

gboolean
g_cond_wait_until (GCond * c, GMutex * m, gint64 end_time)
{
  gboolean signalled;
  REAL (g_cond_wait_until);
  __tsan_mutex_pre_unlock (m, 0);
  __tsan_mutex_post_unlock (m, 0);
  signalled = real_g_cond_wait_until (c, m, end_time);
  __tsan_mutex_pre_lock (m, 0);
  __tsan_mutex_post_lock (m, 0, 0);
  return signalled;
}

/* g_once_init_enter() the macro reads the location with an (instrumented)
 * acquire load; the value is published by g_once_init_leave() in GLib. */
gboolean
(g_once_init_enter) (volatile void *location)
{
  gboolean mine;
  REAL (g_once_init_enter);
  mine = real_g_once_init_enter (location);
  if (!mine)
    __tsan_acquire ((void *) location);
  return mine;
}

void
(g_once_init_leave) (volatile void *location, gsize result)
{
  REAL (g_once_init_leave);
  __tsan_release ((void *) location);
  real_g_once_init_leave (location, result);
}
