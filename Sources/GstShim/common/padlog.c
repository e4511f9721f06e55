/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* padlog.c: an INFO line per negotiated caps of a pad, in the category of the
 * element that owns the pad, so GST_DEBUG=<element>:4 shows what each pad
 * carries without the core's GST_CAPS noise. */
#include "padlog.h"

static void
on_caps (GObject * object, GParamSpec * pspec, gpointer category)
{
  GstPad *pad = GST_PAD (object);
  GstCaps *caps = gst_pad_get_current_caps (pad);

  if (!caps)
    return;
  GST_CAT_INFO_OBJECT ((GstDebugCategory *) category, pad,
      "negotiated caps %" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
}

void
dm_log_pad_caps (GstPad * pad, GstDebugCategory * category)
{
  if (!pad || g_signal_handler_find (pad,
          G_SIGNAL_MATCH_FUNC | G_SIGNAL_MATCH_DATA, 0, 0, NULL, on_caps,
          category))
    return;
  g_signal_connect (pad, "notify::caps", G_CALLBACK (on_caps), category);
}
