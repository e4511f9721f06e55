/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* element.h: the class plumbing every element shares: GObject properties
 * from the element's property table (DMContract/include/<element>_properties.def; see
 * dmcommon.h), one generic set/get, control-binding sync, the finalize
 * that frees the element's Swift state, a caps query's filter and a
 * buffer pool's config.
 *
 * An element writes
 *
 *   static const DMPropSpec properties[] = {
 *   #define DM_PROPERTY(...) DM_PROP_SPEC (DMDepthMatteSettings, __VA_ARGS__)
 *   #include "depthmatte_properties.def"
 *   };
 *   static const DMElementInfo info = { "Depth matte", "Filter/...", "Keys ...",
 *     DM_ELEMENT_PROPERTIES (properties), NULL, DM_ELEMENT_LAYOUT (GstDepthMatte) };
 *   ... class_init: dm_element_class_init (klass, &info);
 *   ... instance init: dm_depthmatte_settings_init (&self->settings);
 *
 * and the one generic set/get below reads and writes the settings under the
 * object lock. Property ids are the rows' positions (1-based).
 */
#ifndef DM_ELEMENT_H
#define DM_ELEMENT_H
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include "dmcommon.h"

typedef enum {
  DM_PROP_DOUBLE, DM_PROP_INT, DM_PROP_UINT, DM_PROP_UINT64, DM_PROP_BOOLEAN,
  DM_PROP_ENUM, DM_PROP_STRING
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
  gsize offset;                 /* of the field in the settings struct */
} DMPropSpec;

/* One row of a property table as a DMPropSpec; Settings is the settings type. */
#define DM_PROP_SPEC(Settings, kind, field, name, nick, min, max, def, enum_type, flags, blurb) \
  { DM_PROP_##kind, name, nick, blurb, (gdouble) (min), (gdouble) (max), \
    (gdouble) (def), enum_type, DM_PROP_FLAGS_##flags, \
    G_STRUCT_OFFSET (Settings, field) },

/* Called after a property changed (outside the object lock), with the old and
 * the new value as doubles: every property, or the one DMElementInfo's
 * `changed_only` names; NULL when the element needs no hook. */
typedef void (*DMPropChanged) (GObject * object, const DMPropSpec * spec,
    gdouble old_value, gdouble new_value);

/* What dm_element_class_init sets up for an element class. */
typedef struct
{
  const gchar *longname, *classification, *description;   /* gst-inspect's */
  const DMPropSpec *specs;      /* its property table (DM_PROP_SPEC rows) */
  guint n_specs;
  DMPropChanged changed;        /* or NULL */
  gsize settings_offset;        /* DM_ELEMENT_LAYOUT (Instance) */
  gssize state_offset;
  GstStaticPadTemplate *templates[3];   /* always pads' templates, NULL-ended */
  /* What the instance owns beyond its settings and state, freed by the
   * shared finalize before those; or NULL */
  void (*free_more) (GObject * object);
  /* DM_ELEMENT_CALIBRATION (Instance): where the instance keeps the
   * DMLoadedCalibration (calibrationfile.h) it reads at start, cleared by the
   * shared finalize; 0 for none (offset 0 is the parent instance, never a
   * calibration) */
  gsize calibration_offset;
  /* The one property `changed` follows (by name), or NULL for every one */
  const gchar *changed_only;
} DMElementInfo;

/* The element's metadata and pad templates; every row as a GObject property
 * with the generic set/get; a finalize that frees what the instance owns
 * (free_more, the calibration, string settings and, with a `state_offset` (of
 * the instance's `void *state`, the Swift state made by dm_<element>_new; -1
 * for none), that state) and chains up. */
void dm_element_class_init (gpointer klass, const DMElementInfo * info);

/* Instance init, after the settings have their defaults: the `changed` hook
 * once per row it follows, with the initial value as old and new, so
 * base-class state that follows a property (is-live, draw's passthrough) is
 * set in that one place. */
void dm_element_init (gpointer instance);

/* The table's specs and count, for DMElementInfo. */
#define DM_ELEMENT_PROPERTIES(specs) specs, G_N_ELEMENTS (specs)

/* Where an instance keeps `settings` and `state`, for DMElementInfo. */
#define DM_ELEMENT_LAYOUT(Instance) \
  G_STRUCT_OFFSET (Instance, settings), G_STRUCT_OFFSET (Instance, state)
#define DM_ELEMENT_LAYOUT_NO_STATE(Instance) \
  G_STRUCT_OFFSET (Instance, settings), -1

/* Where an instance keeps its `calibration`, for DMElementInfo. */
#define DM_ELEMENT_CALIBRATION(Instance) G_STRUCT_OFFSET (Instance, calibration)

/* The GstVideoFilter elements (depthview, depthalign, sparkle), on top of
 * dm_element_class_init: controlled properties follow the stream time
 * (before_transform), and equal caps on both sides never make the element a
 * passthrough by themselves. Returns the class for the element's own vfuncs. */
GstBaseTransformClass *dm_video_filter_class_init (gpointer klass,
    const DMElementInfo * info);

/* Their instance init, after the settings' defaults: dm_element_init, one
 * clear error for caps the sink pad cannot take, and both pads' negotiated
 * caps logged in the element's `category`. */
void dm_video_filter_init (gpointer filter, GstDebugCategory * category);

/* The tail every video filter made with dm_video_filter_class_init shares:
 * its instance init (the settings to their defaults with `settings_init`,
 * then dm_video_filter_init) and its registration as element `name` (also
 * the debug category's name; `debug` the category, `description` its
 * description). `prefix` is the type's function prefix (gst_depthview). */
#define DM_VIDEO_FILTER_DEFINE(prefix, Instance, settings_init, name, TYPE, \
    debug, description) \
  static void prefix##_init (Instance * self) \
  { \
    settings_init (&self->settings); \
    dm_video_filter_init (self, GST_CAT_DEFAULT); \
  } \
  GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (name, #name, GST_RANK_NONE, TYPE, \
      GST_DEBUG_CATEGORY_INIT (debug, #name, 0, description))

/* Copy the element's settings under its object lock: once per frame, so a
 * property changed while PLAYING applies from one frame to the next whole. */
#define DM_COPY_SETTINGS(self, out) G_STMT_START { \
    GST_OBJECT_LOCK (self); \
    (out) = (self)->settings; \
    GST_OBJECT_UNLOCK (self); \
  } G_STMT_END

/* `caps` (taken) as a caps query with `filter` wants them: their
 * intersection in the filter's order, or `caps` itself without a filter. */
GstCaps *dm_caps_filter (GstCaps * caps, GstCaps * filter);

/* A config for `pool` with the caps (when not NULL), buffer size and counts
 * given, and GstVideoMeta when the allocation query says downstream
 * understands it (strides are respected through GstVideoFrame mapping). */
GstStructure *dm_pool_config (GstBufferPool * pool, GstQuery * query,
    GstCaps * caps, guint size, guint min, guint max);

/* Bring the controlled properties to their values at `pts` (a buffer time in
 * `segment`): GstController bindings apply only when an element syncs them. */
void dm_props_sync (GstObject * object, const GstSegment * segment,
    GstClockTime pts);

/* The learned elements (personmask, mpfacedetect), on top of
 * dm_video_filter_class_init: `start` (DM_LEARNED_START) opens the models,
 * stop has the Swift state forget the stream (dm_state_reset). Returns the
 * class for the element's own vfuncs. */
GstBaseTransformClass *dm_learned_class_init (gpointer klass,
    const DMElementInfo * info, gboolean (*start) (GstBaseTransform * trans));

/* Define `prefix`_start, a learned element's start: the settings copied, the
 * Swift state made once (dm_`name`_new), the models opened with
 * dm_`name`_start; `unavailable` set when they are not, and the outcome
 * reported (dm_learned_start_report with `model` and `instead`). */
#define DM_LEARNED_START(prefix, Instance, Settings, name, model, instead) \
  static gboolean prefix##_start (GstBaseTransform * trans) \
  { \
    Instance *self = (Instance *) trans; \
    Settings settings; \
    char why[512] = ""; \
    DM_COPY_SETTINGS (self, settings); \
    if (!self->state) \
      self->state = dm_##name##_new (); \
    self->unavailable = dm_##name##_start (self->state, &settings, why, \
        sizeof why) != 0; \
    dm_learned_start_report (GST_ELEMENT (self), !self->unavailable, model, \
        why, instead); \
    return TRUE; \
  } \
  G_STATIC_ASSERT (1)

/* The end of a learned element's start (personmask, mpfacedetect): when its
 * models are not `ready`, one RESOURCE/NOT_FOUND WARNING "<element> has no
 * <model> model: <why>. <instead>" with where the runtime and models come
 * from; an INFO line when they are. */
void dm_learned_start_report (GstElement * element, gboolean ready,
    const gchar * model, const gchar * why, const gchar * instead);

#endif
