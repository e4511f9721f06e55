/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal to the shim: one registration function per element. */
#ifndef DM_ELEMENTS_H
#define DM_ELEMENTS_H
#include <gst/gst.h>

GST_ELEMENT_REGISTER_DECLARE (depthmatte);
GST_ELEMENT_REGISTER_DECLARE (rgbdtestsrc);
GST_ELEMENT_REGISTER_DECLARE (sparkle);
GST_ELEMENT_REGISTER_DECLARE (framestack);
GST_ELEMENT_REGISTER_DECLARE (depthview);
GST_ELEMENT_REGISTER_DECLARE (depthalign);
GST_ELEMENT_REGISTER_DECLARE (personmask);
GST_ELEMENT_REGISTER_DECLARE (mpfacedetect);

/* The packed 8-bit RGB formats the elements read and write (DMRGBImage). */
#define DM_PACKED_RGB_FORMATS \
  "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR }"

/* An always pad template of those formats (filters on packed RGB). */
#define DM_PACKED_RGB_TEMPLATE(name, direction) \
  GST_STATIC_PAD_TEMPLATE (name, direction, GST_PAD_ALWAYS, \
      GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (DM_PACKED_RGB_FORMATS)))

/* Enums shared by depthview and depthmatte (depthview.c). */
GType dm_depth_kind_get_type (void);
GType dm_colormap_get_type (void);

/* Post a CORE/NEGOTIATION error naming the pad, what it accepts and what it
 * was offered when a CAPS event the pad cannot take arrives (refusedcaps.c). */
void dm_watch_refused_caps (GstElement * element, GstPad * sinkpad);

/* Define `fn`, the get_type function of a GEnum named `type_name` from the
 * contract's value list (DM_ENUM_TYPEDEF in dmcommon.h; registered once,
 * thread-safe):
 *   DM_DEFINE_ENUM (static, dm_x_mode_get_type, "GstXMode", DM_X_MODE_LIST);
 * `scope` is static or empty. */
#define DM_GENUM_VALUE(id, nick, blurb) {id, blurb, nick},
#define DM_DEFINE_ENUM(scope, fn, type_name, LIST) \
  scope GType fn (void) \
  { \
    static gsize type = 0; \
    static const GEnumValue values[] = { LIST (DM_GENUM_VALUE) {0, NULL, NULL} }; \
    return dm_enum_type (&type, type_name, values); \
  } \
  G_STATIC_ASSERT (1)

/* Register an enum type once (thread-safe); for the *_get_type functions. */
static inline GType
dm_enum_type (gsize * type, const gchar * name, const GEnumValue * values)
{
  if (g_once_init_enter (type)) {
    GType t = g_enum_register_static (name, values);
    g_once_init_leave (type, t);
  }
  return (GType) * type;
}
#endif
