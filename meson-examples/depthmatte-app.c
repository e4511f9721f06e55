/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthmatte-app: embed a depthmatte pipeline in a C program.
 *
 * Builds  rgbdtestsrc(video) ─┐
 *                              depthmatte ─ appsink
 *         rgbdtestsrc(depth) ─┘
 * with the GStreamer API (request pads by name, properties, bus messages),
 * pulls every keyed frame, changes a property while PLAYING and checks the
 * result: exit status 0 only when all frames came out, every frame had its
 * depthmatte message and the face lock was found.
 *
 * Usage: depthmatte-app [frames]
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <stdlib.h>
#include <string.h>

#ifndef DM_PLUGIN_DIR
#define DM_PLUGIN_DIR ""
#endif

static gboolean
find_plugin (void)
{
  const gchar *dir = g_getenv ("DEPTHMATTE_PLUGIN_DIR");
  GstPluginFeature *f;

  if (!dir || !*dir)
    dir = DM_PLUGIN_DIR;
  f = gst_registry_lookup_feature (gst_registry_get (), "depthmatte");
  if (!f && dir && *dir && g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    /* not on GST_PLUGIN_PATH nor installed per user: load it from the build */
    gst_registry_scan_path (gst_registry_get (), dir);
    f = gst_registry_lookup_feature (gst_registry_get (), "depthmatte");
  }
  if (f) {
    g_print ("depthmatte-app: using %s\n",
        gst_plugin_feature_get_plugin_name (f));
    gst_object_unref (f);
    return TRUE;
  }
  g_printerr ("depthmatte-app: the depthmatte plugin was not found "
      "(build it with 'swift build -c release', install it, or set "
      "DEPTHMATTE_PLUGIN_DIR)\n");
  return FALSE;
}

static GstElement *
make (const gchar * factory, const gchar * name)
{
  GstElement *e = gst_element_factory_make (factory, name);
  if (!e) {
    g_printerr ("depthmatte-app: missing element %s\n", factory);
    exit (2);
  }
  return e;
}

static GstElement *
source (const gchar * stream, gint width, gint height, gint frames)
{
  GstElement *bin = gst_bin_new (NULL);
  GstElement *src = make ("rgbdtestsrc", NULL);
  GstElement *filter = make ("capsfilter", NULL);
  GstCaps *caps = gst_caps_new_simple ("video/x-raw",
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height,
      "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  GstPad *pad;

  gst_util_set_object_arg (G_OBJECT (src), "stream", stream);
  g_object_set (src, "num-buffers", frames, NULL);
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  gst_bin_add_many (GST_BIN (bin), src, filter, NULL);
  gst_element_link (src, filter);
  pad = gst_element_get_static_pad (filter, "src");
  gst_element_add_pad (bin, gst_ghost_pad_new ("src", pad));
  gst_object_unref (pad);
  return bin;
}

static gboolean
link_to (GstElement * from, GstElement * matte, const gchar * pad_name)
{
  GstPad *src = gst_element_get_static_pad (from, "src");
  GstPad *sink = gst_element_request_pad_simple (matte, pad_name);
  gboolean ok = sink && gst_pad_link (src, sink) == GST_PAD_LINK_OK;
  gst_object_unref (src);
  if (sink)
    gst_object_unref (sink);
  return ok;
}

int
main (int argc, char **argv)
{
  gint frames = argc > 1 ? atoi (argv[1]) : 60;
  GstElement *pipeline, *video, *depth, *matte, *sink;
  GstBus *bus;
  gint pulled = 0, messages = 0, faces = 0, errors = 0;
  gdouble last_cutoff = 0, last_coverage = 0;

  gst_init (&argc, &argv);
  if (!find_plugin ())
    return 2;

  pipeline = gst_pipeline_new ("app");
  video = source ("video", 640, 360, frames);
  depth = source ("depth", 320, 180, frames);
  matte = make ("depthmatte", "m");
  sink = make ("appsink", "sink");
  gst_util_set_object_arg (G_OBJECT (matte), "output", "composite");
  g_object_set (matte, "background-color", 0xff2060a0u, NULL);
  g_object_set (sink, "sync", FALSE, NULL);
  gst_bin_add_many (GST_BIN (pipeline), video, depth, matte, sink, NULL);
  if (!link_to (video, matte, "video") || !link_to (depth, matte, "depth")
      || !gst_element_link (matte, sink)) {
    g_printerr ("depthmatte-app: linking failed\n");
    return 1;
  }

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);

  for (;;) {
    GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    GstMessage *msg;
    if (!sample)
      break;
    pulled++;
    gst_sample_unref (sample);
    if (pulled == frames / 2)   /* properties are safe to change while PLAYING */
      g_object_set (matte, "cutoff-offset", 0.4, NULL);

    while ((msg = gst_bus_pop (bus))) {
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
        GError *err;
        gchar *dbg;
        gst_message_parse_error (msg, &err, &dbg);
        g_printerr ("depthmatte-app: error from %s: %s (%s)\n",
            GST_OBJECT_NAME (msg->src), err->message, dbg ? dbg : "");
        g_clear_error (&err);
        g_free (dbg);
        errors++;
      } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
          gst_message_has_name (msg, "depthmatte")) {
        const GstStructure *s = gst_message_get_structure (msg);
        gboolean found = FALSE;
        gst_structure_get_boolean (s, "face-found", &found);
        gst_structure_get_double (s, "cutoff", &last_cutoff);
        gst_structure_get_double (s, "coverage", &last_coverage);
        messages++;
        faces += found;
      }
      gst_message_unref (msg);
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);

  g_print ("depthmatte-app: %d frames, %d depthmatte messages, %d with a face, "
      "last cutoff %.3f m, last coverage %.3f\n", pulled, messages, faces,
      last_cutoff, last_coverage);
  if (errors || pulled != frames || messages < frames - 1 || faces == 0
      || last_coverage <= 0.0 || last_coverage >= 1.0)
    return 1;
  return 0;
}
