/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal to the shim: what every element logs about its pads (padlog.c). */
#ifndef DM_PADLOG_H
#define DM_PADLOG_H
#include <gst/gst.h>

/* Log each caps the pad negotiates at INFO in the element's own category
 * ("negotiated caps ...", the pad as the log object: <element:pad>).
 * Idempotent: call it from start() or wherever the pad becomes known. */
void dm_log_pad_caps (GstPad * pad, GstDebugCategory * category);
#endif
