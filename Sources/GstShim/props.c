/* props.c: the one generic property set/get of every element (props.h). */
#include "props.h"

typedef struct
{
  const DMPropSpec *specs;
  guint n_specs;
  DMPropChanged changed;
} DMPropTable;

static GQuark
table_quark (void)
{
  static GQuark q = 0;
  if (!q)
    q = g_quark_from_static_string ("dm-prop-table");
  return q;
}

static const DMPropTable *
table_for (GParamSpec * pspec)
{
  return g_type_get_qdata (pspec->owner_type, table_quark ());
}

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
    default:
      return *(gint32 *) field;
  }
}

static void
dm_props_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  const DMPropTable *t = table_for (pspec);
  const DMPropSpec *spec;
  gpointer field;
  gdouble old_value, new_value;

  if (!t || prop_id == 0 || prop_id > t->n_specs) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  spec = &t->specs[prop_id - 1];
  field = G_STRUCT_MEMBER_P (object, spec->offset);
  GST_OBJECT_LOCK (object);
  old_value = read_field (spec, field);
  switch (spec->kind) {
    case DM_PROP_DOUBLE:
      *(gdouble *) field = g_value_get_double (value);
      break;
    case DM_PROP_INT:
      *(gint32 *) field = g_value_get_int (value);
      break;
    case DM_PROP_UINT:
      *(guint32 *) field = g_value_get_uint (value);
      break;
    case DM_PROP_UINT64:
      *(guint64 *) field = g_value_get_uint64 (value);
      break;
    case DM_PROP_BOOLEAN:
      *(gint32 *) field = g_value_get_boolean (value) ? 1 : 0;
      break;
    case DM_PROP_ENUM:
      *(gint32 *) field = g_value_get_enum (value);
      break;
  }
  new_value = read_field (spec, field);
  GST_OBJECT_UNLOCK (object);
  if (t->changed)
    t->changed (object, spec, old_value, new_value);
}

static void
dm_props_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  const DMPropTable *t = table_for (pspec);
  const DMPropSpec *spec;
  gpointer field;

  if (!t || prop_id == 0 || prop_id > t->n_specs) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  spec = &t->specs[prop_id - 1];
  field = G_STRUCT_MEMBER_P (object, spec->offset);
  GST_OBJECT_LOCK (object);
  switch (spec->kind) {
    case DM_PROP_DOUBLE:
      g_value_set_double (value, *(gdouble *) field);
      break;
    case DM_PROP_INT:
      g_value_set_int (value, *(gint32 *) field);
      break;
    case DM_PROP_UINT:
      g_value_set_uint (value, *(guint32 *) field);
      break;
    case DM_PROP_UINT64:
      g_value_set_uint64 (value, *(guint64 *) field);
      break;
    case DM_PROP_BOOLEAN:
      g_value_set_boolean (value, *(gint32 *) field != 0);
      break;
    case DM_PROP_ENUM:
      g_value_set_enum (value, *(gint32 *) field);
      break;
  }
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

void
dm_props_install (GObjectClass * klass, const DMPropSpec * specs,
    guint n_specs, DMPropChanged changed)
{
  DMPropTable *t = g_new0 (DMPropTable, 1);     /* lives as long as the type */
  guint i;

  t->specs = specs;
  t->n_specs = n_specs;
  t->changed = changed;
  g_type_set_qdata (G_OBJECT_CLASS_TYPE (klass), table_quark (), t);
  klass->set_property = dm_props_set_property;
  klass->get_property = dm_props_get_property;
  for (i = 0; i < n_specs; i++)
    g_object_class_install_property (klass, i + 1, param_spec (&specs[i]));
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
