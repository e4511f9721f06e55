/* plugin.c: the plugin definition. GStreamer loads libgstdepthmatte.so and
 * calls plugin_init, which registers every element of the plugin. */
#include <gst/gst.h>
#include "elements.h"

#ifndef PACKAGE
#define PACKAGE "depthmatte"
#endif
#define DM_VERSION "0.1.0"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = TRUE;
  ok &= dm_depthmatte_register (plugin);
  ok &= dm_rgbdtestsrc_register (plugin);
  ok &= dm_sparkle_register (plugin);
  ok &= dm_framestack_register (plugin);
  ok &= dm_depthview_register (plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, depthmatte,
    "Keys live video by depth: face-locked depth matte, synthetic RGB-D source",
    plugin_init, DM_VERSION, "LGPL", "depthmatte", "https://example.invalid/depthmatte")
