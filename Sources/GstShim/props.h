/* props.h: GObject properties from an element's property table (the
 * DM_<ELEMENT>_PROPERTIES list in its header; see dmcommon.h).
 *
 * An element writes
 *
 *   #define DM_PROP_INSTANCE GstDepthMatte        (its instance struct, which
 *                                                 holds `settings`)
 *   static const DMPropSpec props[] = { DM_DEPTHMATTE_PROPERTIES (DM_PROP_SPEC) };
 *   ... class_init: dm_props_install (gobject_class, props, G_N_ELEMENTS (props), NULL);
 *   ... instance init: dm_depthmatte_settings_init (&self->settings);
 *
 * and the one generic set/get below reads and writes the settings under the
 * object lock. Property ids are the rows' positions (1-based).
 */
#ifndef DM_PROPS_H
#define DM_PROPS_H
#include <gst/gst.h>

typedef enum {
  DM_PROP_DOUBLE, DM_PROP_INT, DM_PROP_UINT, DM_PROP_UINT64, DM_PROP_BOOLEAN,
  DM_PROP_ENUM
} DMPropKind;

/* Row flags: PLAYING = changeable while PLAYING and controllable (GstController);
 * READY = only in READY or below. */
#define DM_PROP_FLAGS_PLAYING (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE)
#define DM_PROP_FLAGS_READY (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | \
    GST_PARAM_MUTABLE_READY)

typedef struct {
  DMPropKind kind;
  const gchar *name, *nick, *blurb;
  gdouble min, max, def;
  GType (*enum_type) (void);
  GParamFlags flags;
  gsize offset;                 /* of the field in the instance struct */
} DMPropSpec;

#define DM_PROP_SPEC(kind, field, name, nick, min, max, def, enum_type, flags, blurb) \
  { DM_PROP_##kind, name, nick, blurb, (gdouble) (min), (gdouble) (max), \
    (gdouble) (def), enum_type, DM_PROP_FLAGS_##flags, \
    G_STRUCT_OFFSET (DM_PROP_INSTANCE, settings.field) },

/* Called after a property changed (outside the object lock), with the old and
 * the new value as doubles; NULL when the element needs no hook. */
typedef void (*DMPropChanged) (GObject * object, const DMPropSpec * spec,
    gdouble old_value, gdouble new_value);

/* Install every row as a GObject property and the generic set/get. */
void dm_props_install (GObjectClass * klass, const DMPropSpec * specs,
    guint n_specs, DMPropChanged changed);

/* Bring the controlled properties to their values at `pts` (a buffer time in
 * `segment`): GstController bindings apply only when an element syncs them. */
void dm_props_sync (GstObject * object, const GstSegment * segment,
    GstClockTime pts);

#endif
