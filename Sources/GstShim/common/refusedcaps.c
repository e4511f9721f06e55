/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* refusedcaps.c: one clear error, every run, when upstream offers a sink pad
 * caps it cannot take (every element's sink pads use this).
 *
 * Without it the outcome depends on timing: negotiation fails inside the
 * core's accept-caps check before the element sees the CAPS event, or
 * upstream gives up earlier because a CAPS query came back empty, and the only
 * error is upstream's bare "streaming stopped, reason not-negotiated" (or a
 * decoder's own), sometimes ours, sometimes both.
 *
 * Two probes make it deterministic:
 * - a CAPS query the pad answers with nothing because the *offered* caps miss
 *   the pad's template entirely is answered with the offer itself, so upstream
 *   goes on and sends its CAPS event instead of failing on its own;
 * - a CAPS event outside the template is judged before the core's check
 *   (probes run first): the element posts one CORE/NEGOTIATION error naming
 *   the pad, what it accepts, what it was offered and the fix; the core then
 *   refuses the event. Upstream's own not-negotiated error comes after ours.
 * ACCEPT_CAPS queries are answered truthfully (converters ask them to decide
 * whether to convert); only real CAPS events are judged.
 */
#include <string.h>
#include <gst/gst.h>
#include "elements.h"

GST_DEBUG_CATEGORY_STATIC (dm_refused_caps_debug);
#define GST_CAT_DEFAULT dm_refused_caps_debug

/* The caps last reported on a pad, so a sticky event re-sent on every push
 * attempt gives one error, not one per buffer: qdata under this quark (set
 * once, before the first probe is added). */
static GQuark reported_quark;

/* "GRAY16_LE, GRAY16_BE, GRAY8" from the format fields of `caps`. */
static gchar *
format_list (GstCaps * caps)
{
  GString *s = g_string_new (NULL);
  guint i, j;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GValue *f = gst_structure_get_value (gst_caps_get_structure (caps,
            i), "format");
    const gchar *media = gst_structure_get_name (gst_caps_get_structure (caps,
            i));
    if (!f) {
      g_string_append_printf (s, "%s%s (any format)", s->len ? ", " : "",
          media);
    } else if (G_VALUE_HOLDS_STRING (f)) {
      g_string_append_printf (s, "%s%s", s->len ? ", " : "",
          g_value_get_string (f));
    } else if (GST_VALUE_HOLDS_LIST (f)) {
      for (j = 0; j < gst_value_list_get_size (f); j++)
        g_string_append_printf (s, "%s%s", s->len ? ", " : "",
            g_value_get_string (gst_value_list_get_value (f, j)));
    }
  }
  return g_string_free (s, FALSE);
}

/* Whether every format in a format_list is a GRAY one (a depth pad's). */
static gboolean
only_gray (const gchar * list)
{
  gchar **f = g_strsplit (list, ", ", -1);
  gboolean all = f[0] != NULL;
  guint i;
  for (i = 0; f[i]; i++)
    if (!g_str_has_prefix (f[i], "GRAY"))
      all = FALSE;
  g_strfreev (f);
  return all;
}

static void
post_refused (GstElement * element, GstPad * pad, GstCaps * caps,
    GstCaps * templ)
{
  gchar *got = format_list (caps), *want = format_list (templ);
  gchar *got_caps = gst_caps_to_string (caps);

  if (only_gray (want) && !strstr (got, "GRAY")) {
    /* colour offered to a depth pad: videoconvert would make it grey
     * brightness, which would then be keyed as if it were distance */
    GST_ELEMENT_ERROR (element, CORE, NEGOTIATION,
        ("The %s pad of %s cannot take %s: it takes depth (%s), not colour.",
            GST_PAD_NAME (pad), GST_ELEMENT_NAME (element), got, want),
        ("Pad '%s' accepts %s but was offered %s (caps: %s). A colour picture is no depth "
            "map: link a depth camera's stream (realsensesrc, openni2src "
            "sourcetype=depth ! depthalign, a 16-bit PNG; GRAY16 in units of "
            "depth-scale, or GRAY8 with depth-near and depth-far where the "
            "element has them). videoconvert would turn the colour into "
            "brightness, keyed as if it were distance", GST_PAD_NAME (pad), want,
            got, got_caps));
    g_free (got);
    g_free (want);
    g_free (got_caps);
    return;
  }
  GST_ELEMENT_ERROR (element, CORE, NEGOTIATION,
      ("The %s pad of %s cannot take %s: put videoconvert before it.",
          GST_PAD_NAME (pad), GST_ELEMENT_NAME (element), got),
      ("Pad '%s' accepts %s but was offered %s (caps: %s). Add a converter "
          "in front of the pad, e.g. '... ! videoconvert ! %s.%s'",
          GST_PAD_NAME (pad), want, got, got_caps, GST_ELEMENT_NAME (element),
          GST_PAD_NAME (pad)));
  g_free (got);
  g_free (want);
  g_free (got_caps);
}

static gboolean
misses_template (GstPad * pad, GstCaps * caps)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (pad);
  gboolean misses = !gst_caps_can_intersect (caps, templ);
  gst_caps_unref (templ);
  return misses;
}

static GstPadProbeReturn
refused_event_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
  GstElement *element = GST_ELEMENT (user_data);
  GstCaps *caps, *templ, *reported;

  if (GST_EVENT_TYPE (event) != GST_EVENT_CAPS)
    return GST_PAD_PROBE_OK;
  gst_event_parse_caps (event, &caps);
  templ = gst_pad_get_pad_template_caps (pad);
  if (gst_caps_is_subset (caps, templ)) {
    g_object_set_qdata (G_OBJECT (pad), reported_quark, NULL);
    gst_caps_unref (templ);
    return GST_PAD_PROBE_OK;
  }
  reported = g_object_get_qdata (G_OBJECT (pad), reported_quark);
  if (!reported || !gst_caps_is_equal (reported, caps)) {
    post_refused (element, pad, caps, templ);
    g_object_set_qdata_full (G_OBJECT (pad), reported_quark,
        gst_caps_ref (caps), (GDestroyNotify) gst_caps_unref);
  }
  gst_caps_unref (templ);
  /* the core's accept-caps check refuses the event next */
  return GST_PAD_PROBE_OK;
}

/* After the pad answered a CAPS query: an empty answer to an offer that
 * misses the template becomes the offer itself (see the top of the file). */
static GstPadProbeReturn
refused_query_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstCaps *filter, *result;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return GST_PAD_PROBE_OK;
  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &result);
  if (filter && !gst_caps_is_empty (filter) && !gst_caps_is_any (filter)
      && (!result || gst_caps_is_empty (result))
      && misses_template (pad, filter)) {
    GST_DEBUG_OBJECT (pad, "offer %" GST_PTR_FORMAT " misses the template: "
        "let upstream send it, to refuse it with a clear error", filter);
    gst_query_set_caps_result (query, filter);
  }
  return GST_PAD_PROBE_OK;
}

void
dm_watch_refused_caps (GstElement * element, GstPad * sinkpad)
{
  static gsize init = 0;
  if (g_once_init_enter (&init)) {
    GST_DEBUG_CATEGORY_INIT (dm_refused_caps_debug, "dmrefusedcaps", 0,
        "depthmatte plugin: refused caps");
    reported_quark = g_quark_from_static_string ("dm-refused-caps-reported");
    g_once_init_leave (&init, 1);
  }
  /* the element owns the pad, so the probes never outlive the element */
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      refused_event_probe, element, NULL);
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PULL, refused_query_probe, element, NULL);
}
