/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* plugin.c: the plugin definition. GStreamer loads libgstdepthmatte.so and
 * calls plugin_init, which registers every element of the plugin. */
#include <gst/gst.h>
#include "elements.h"

#ifndef PACKAGE
#define PACKAGE "depthmatte"
#endif
#define DM_VERSION "0.1.0"
/* Where the plugin comes from, as gst-inspect-1.0 shows it: set it when
 * packaging (-DDM_ORIGIN='"https://..."'); GStreamer's own convention for an
 * unset origin otherwise. */
#ifndef DM_ORIGIN
#define DM_ORIGIN "Unknown package origin"
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* one element that fails to register does not take the others down */
  struct
  {
    const gchar *name;
    gboolean (*reg) (GstPlugin *);
  } elements[] = {
    {"depthmatte", gst_element_register_depthmatte},
    {"rgbdtestsrc", gst_element_register_rgbdtestsrc},
    {"sparkle", gst_element_register_sparkle},
    {"framestack", gst_element_register_framestack},
    {"depthview", gst_element_register_depthview},
    {"depthalign", gst_element_register_depthalign},
    {"personmask", gst_element_register_personmask},
    {"mpfacedetect", gst_element_register_mpfacedetect},
  };
  guint i, registered = 0;
  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    if (elements[i].reg (plugin))
      registered++;
    else
      GST_WARNING ("could not register the %s element", elements[i].name);
  }
  return registered > 0;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, depthmatte,
    "Keys live video by depth: depthmatte (face-locked depth matte and "
    "background replacement), depthalign (depth registered to colour), "
    "depthview (depth as a picture), framestack (aligned frame stacking), "
    "sparkle (brightness meter and glints), rgbdtestsrc (synthetic RGB-D scene), "
    "personmask (person probability) and mpfacedetect (faces), learned models "
    "run in-process",
    plugin_init, DM_VERSION, "LGPL", "depthmatte", DM_ORIGIN)
