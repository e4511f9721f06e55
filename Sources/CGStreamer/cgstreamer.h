/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Umbrella header for the GStreamer libraries the plugin links against. */
#include <gst/gst.h>
#include <gst/base/base.h>
#include <gst/video/video.h>
#include <gst/video/gstvideoaggregator.h>
