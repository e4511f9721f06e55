/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* element.c: the class plumbing every element shares (element.h). */
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideopool.h>
#include "element.h"
#include "elements.h"
#include "padlog.h"
#include "dmcommon.h"
#include "calibrationfile.h"

typedef struct
{
  const DMPropSpec *specs;
  guint n_specs;
  DMPropChanged changed;
  gsize settings_offset;        /* of the instance's settings struct */
  gssize state_offset;          /* of the instance's Swift state, or -1 */
  void (*free_more) (GObject * object);
  gsize calibration_offset;     /* of the instance's calibration, or 0 */
  const gchar *changed_only;    /* the one property `changed` follows, or NULL */
} DMPropTable;

G_DEFINE_QUARK (dm-prop-table, dm_prop_table);

static const DMPropTable *
table_for (GParamSpec * pspec)
{
  return g_type_get_qdata (pspec->owner_type, dm_prop_table_quark ());
}

/* The field as a double (for the changed hook). */
static gdouble
read_field (const DMPropSpec * spec, gpointer field)
{
  switch (spec->kind) {
    case DM_PROP_DOUBLE:
      return *(gdouble *) field;
    case DM_PROP_UINT:
      return *(guint32 *) field;
    case DM_PROP_UINT64:
      return (gdouble) * (guint64 *) field;
    case DM_PROP_STRING:
      return 0;
    default:
      return *(gint32 *) field;
  }
}

/* Copy between the GValue and the settings field, under the object lock. */
static void
transfer (GObject * object, gsize settings_offset, const DMPropSpec * spec,
    GValue * value, gboolean to_field)
{
  gpointer f = G_STRUCT_MEMBER_P (object, settings_offset + spec->offset);

#define TRANSFER(ctype, get, set) \
  (to_field ? (void) (*(ctype *) f = get (value)) : set (value, *(ctype *) f))
  switch (spec->kind) {
    case DM_PROP_DOUBLE: TRANSFER (gdouble, g_value_get_double, g_value_set_double); break;
    case DM_PROP_INT: TRANSFER (gint32, g_value_get_int, g_value_set_int); break;
    case DM_PROP_UINT: TRANSFER (guint32, g_value_get_uint, g_value_set_uint); break;
    case DM_PROP_UINT64: TRANSFER (guint64, g_value_get_uint64, g_value_set_uint64); break;
    case DM_PROP_BOOLEAN: TRANSFER (gint32, !!g_value_get_boolean, g_value_set_boolean); break;
    case DM_PROP_ENUM: TRANSFER (gint32, g_value_get_enum, g_value_set_enum); break;
    case DM_PROP_STRING:
      if (to_field) {
        g_free (*(gchar **) f);
        *(gchar **) f = g_value_dup_string (value);
      } else {
        g_value_set_string (value, *(gchar **) f);
      }
      break;
  }
#undef TRANSFER
}

/* Whether the table's `changed` hook follows `spec`. */
static gboolean
follows (const DMPropTable * t, const DMPropSpec * spec)
{
  return t->changed && (!t->changed_only
      || g_str_equal (spec->name, t->changed_only));
}

static const DMPropSpec *
spec_for (GObject * object, guint prop_id, GParamSpec * pspec,
    const DMPropTable ** table)
{
  *table = table_for (pspec);
  if (!*table || prop_id == 0 || prop_id > (*table)->n_specs) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return NULL;
  }
  return &(*table)->specs[prop_id - 1];
}

static void
dm_props_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  const DMPropTable *t;
  const DMPropSpec *spec = spec_for (object, prop_id, pspec, &t);
  gdouble old_value, new_value;
  gpointer field;

  if (!spec)
    return;
  field = G_STRUCT_MEMBER_P (object, t->settings_offset + spec->offset);
  GST_OBJECT_LOCK (object);
  old_value = read_field (spec, field);
  transfer (object, t->settings_offset, spec, (GValue *) value, TRUE);
  new_value = read_field (spec, field);
  GST_OBJECT_UNLOCK (object);
  if (follows (t, spec))
    t->changed (object, spec, old_value, new_value);
}

static void
dm_props_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  const DMPropTable *t;
  const DMPropSpec *spec = spec_for (object, prop_id, pspec, &t);

  if (!spec)
    return;
  GST_OBJECT_LOCK (object);
  transfer (object, t->settings_offset, spec, value, FALSE);
  GST_OBJECT_UNLOCK (object);
}

static GParamSpec *
param_spec (const DMPropSpec * s)
{
  switch (s->kind) {
    case DM_PROP_DOUBLE:
      return g_param_spec_double (s->name, s->nick, s->blurb, s->min, s->max,
          s->def, s->flags);
    case DM_PROP_INT:
      return g_param_spec_int (s->name, s->nick, s->blurb, (gint) s->min,
          (gint) s->max, (gint) s->def, s->flags);
    case DM_PROP_UINT:
      return g_param_spec_uint (s->name, s->nick, s->blurb, (guint) s->min,
          (guint) s->max, (guint) s->def, s->flags);
    case DM_PROP_UINT64:
      return g_param_spec_uint64 (s->name, s->nick, s->blurb,
          (guint64) s->min, s->max >= 1.8e19 ? G_MAXUINT64 : (guint64) s->max,
          (guint64) s->def, s->flags);
    case DM_PROP_BOOLEAN:
      return g_param_spec_boolean (s->name, s->nick, s->blurb, s->def != 0,
          s->flags);
    case DM_PROP_STRING:
      return g_param_spec_string (s->name, s->nick, s->blurb, NULL, s->flags);
    case DM_PROP_ENUM:{
      GType type = s->enum_type ();
      gst_type_mark_as_plugin_api (type, 0);
      return g_param_spec_enum (s->name, s->nick, s->blurb, type,
          (gint) s->def, s->flags);
    }
  }
  g_assert_not_reached ();
  return NULL;
}

static void
dm_element_finalize (GObject * object)
{
  GType type = G_OBJECT_TYPE (object);
  const DMPropTable *t = g_type_get_qdata (type, dm_prop_table_quark ());
  GObjectClass *parent = g_type_class_peek (g_type_parent (type));

  if (t) {
    guint i;
    if (t->free_more)
      t->free_more (object);
    if (t->calibration_offset)
      dm_calibration_clear (G_STRUCT_MEMBER_P (object, t->calibration_offset));
    for (i = 0; i < t->n_specs; i++)
      if (t->specs[i].kind == DM_PROP_STRING)
        g_free (*(gchar **) G_STRUCT_MEMBER_P (object,
                t->settings_offset + t->specs[i].offset));
  }
  if (t && t->state_offset >= 0) {
    void **state = G_STRUCT_MEMBER_P (object, t->state_offset);
    if (*state)
      dm_state_free (*state);
    *state = NULL;
  }
  parent->finalize (object);
}

void
dm_element_class_init (gpointer klass, const DMElementInfo * info)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  DMPropTable *t = g_new0 (DMPropTable, 1);     /* lives as long as the type */
  guint i;

  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      info->longname, info->classification, info->description,
      "depthmatte developers");
  t->specs = info->specs;
  t->n_specs = info->n_specs;
  t->changed = info->changed;
  t->changed_only = info->changed_only;
  t->settings_offset = info->settings_offset;
  t->state_offset = info->state_offset;
  t->free_more = info->free_more;
  t->calibration_offset = info->calibration_offset;
  g_type_set_qdata (G_OBJECT_CLASS_TYPE (klass), dm_prop_table_quark (), t);
  gobject_class->set_property = dm_props_set_property;
  gobject_class->get_property = dm_props_get_property;
  gobject_class->finalize = dm_element_finalize;   /* strings, state */
  for (i = 0; i < info->n_specs; i++)
    g_object_class_install_property (gobject_class, i + 1,
        param_spec (&info->specs[i]));
  for (i = 0; i < G_N_ELEMENTS (info->templates) && info->templates[i]; i++)
    gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
        info->templates[i]);
}

void
dm_element_init (gpointer instance)
{
  const DMPropTable *t = g_type_get_qdata (G_OBJECT_TYPE (instance),
      dm_prop_table_quark ());
  guint i;

  if (!t || !t->changed)
    return;
  for (i = 0; i < t->n_specs; i++) {
    gdouble v = read_field (&t->specs[i], G_STRUCT_MEMBER_P (instance,
            t->settings_offset + t->specs[i].offset));
    if (follows (t, &t->specs[i]))
      t->changed (G_OBJECT (instance), &t->specs[i], v, v);
  }
}

/* Controlled properties follow the stream time. */
static void
dm_video_filter_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  dm_props_sync (GST_OBJECT (trans), &trans->segment, GST_BUFFER_PTS (buf));
}

GstBaseTransformClass *
dm_video_filter_class_init (gpointer klass, const DMElementInfo * info)
{
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  dm_element_class_init (klass, info);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (dm_video_filter_before_transform);
  trans_class->passthrough_on_same_caps = FALSE;
  return trans_class;
}

/* A learned element's stop: its Swift state forgets the stream (last frames
 * and results, dm_state_reset); what start opened stays for the next one. */
static gboolean
dm_learned_stop (GstBaseTransform * trans)
{
  const DMPropTable *t = g_type_get_qdata (G_OBJECT_TYPE (trans),
      dm_prop_table_quark ());
  void *state = *(void **) G_STRUCT_MEMBER_P (trans, t->state_offset);

  if (state)
    dm_state_reset (state);
  return TRUE;
}

GstBaseTransformClass *
dm_learned_class_init (gpointer klass, const DMElementInfo * info,
    gboolean (*start) (GstBaseTransform * trans))
{
  GstBaseTransformClass *trans_class = dm_video_filter_class_init (klass, info);

  g_return_val_if_fail (info->state_offset >= 0, trans_class);
  trans_class->start = start;
  trans_class->stop = GST_DEBUG_FUNCPTR (dm_learned_stop);
  return trans_class;
}

void
dm_video_filter_init (gpointer filter, GstDebugCategory * category)
{
  GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD (filter);

  dm_element_init (filter);
  dm_watch_refused_caps (GST_ELEMENT (filter), sinkpad);
  dm_log_pad_caps (sinkpad, category);
  dm_log_pad_caps (GST_BASE_TRANSFORM_SRC_PAD (filter), category);
}

GstCaps *
dm_caps_filter (GstCaps * caps, GstCaps * filter)
{
  GstCaps *res;

  if (!filter)
    return caps;
  res = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return res;
}

GstStructure *
dm_pool_config (GstBufferPool * pool, GstQuery * query, GstCaps * caps,
    guint size, guint min, guint max)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);

  if (caps)
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  return config;
}

void
dm_props_sync (GstObject * object, const GstSegment * segment,
    GstClockTime pts)
{
  GstClockTime st;

  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return;
  st = segment && segment->format == GST_FORMAT_TIME ?
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, pts) : pts;
  if (GST_CLOCK_TIME_IS_VALID (st))
    gst_object_sync_values (object, st);
}

void
dm_learned_start_report (GstElement * element, gboolean ready,
    const gchar * model, const gchar * why, const gchar * instead)
{
  gchar *name;

  if (ready) {
    GST_INFO_OBJECT (element, "%s model ready", model);
    return;
  }
  name = gst_object_get_name (GST_OBJECT (gst_element_get_factory (element)));
  GST_ELEMENT_WARNING (element, RESOURCE, NOT_FOUND,
      ("%s has no %s model: %s. %s", name, model, why, instead),
      ("scripts/setup installs the LiteRT runtime and the models into "
          "~/.local/share/depthmatte (DEPTHMATTE_DATA_DIR overrides it)"));
  g_free (name);
}
