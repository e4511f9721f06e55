/* refusedcaps.c: a clear error when upstream sends caps a sink pad cannot take.
 *
 * Without it, a CAPS event the pad refuses fails inside the core's accept-caps
 * check before the element sees it, and the only error is upstream's bare
 * "streaming stopped, reason not-negotiated". A probe on the pad sees the
 * event first (probes run before that check) and posts a CORE/NEGOTIATION
 * error from the element naming the pad, what it accepts and what it was
 * offered. Only real CAPS events are judged, never ACCEPT_CAPS queries, which
 * upstream elements also use to probe for optional features.
 */
#include <gst/gst.h>
#include "elements.h"

GST_DEBUG_CATEGORY_STATIC (dm_refused_caps_debug);
#define GST_CAT_DEFAULT dm_refused_caps_debug

static GstPadProbeReturn
refused_caps_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  GstElement *element = GST_ELEMENT (user_data);
  GstCaps *caps, *templ;

  if (!event || GST_EVENT_TYPE (event) != GST_EVENT_CAPS)
    return GST_PAD_PROBE_OK;
  gst_event_parse_caps (event, &caps);
  templ = gst_pad_get_pad_template_caps (pad);
  if (!gst_caps_is_subset (caps, templ)) {
    gchar *got = gst_caps_to_string (caps);
    gchar *want = gst_caps_to_string (templ);
    GST_ELEMENT_ERROR (element, CORE, NEGOTIATION,
        ("The %s pad of %s cannot take the offered caps.",
            GST_PAD_NAME (pad), GST_ELEMENT_NAME (element)),
        ("Pad '%s' accepts %s but was offered %s", GST_PAD_NAME (pad), want,
            got));
    g_free (got);
    g_free (want);
  }
  gst_caps_unref (templ);
  return GST_PAD_PROBE_OK;
}

void
dm_watch_refused_caps (GstElement * element, GstPad * sinkpad)
{
  static gsize init = 0;
  if (g_once_init_enter (&init)) {
    GST_DEBUG_CATEGORY_INIT (dm_refused_caps_debug, "dmrefusedcaps", 0,
        "depthmatte plugin: refused caps");
    g_once_init_leave (&init, 1);
  }
  /* the element owns the pad, so the probe never outlives the element */
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      refused_caps_probe, element, NULL);
}
