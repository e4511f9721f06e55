/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gstshim.h: the shim's public face, which is empty on purpose. GStreamer
 * finds the plugin through the symbol GST_PLUGIN_DEFINE exports (plugin.c);
 * the shim calls the Swift bridge through DMContract's declarations and is
 * never called from Swift, so nothing here is for another target. */
#ifndef DM_GSTSHIM_H
#define DM_GSTSHIM_H
#endif
