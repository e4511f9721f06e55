/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dmcommon.h: what every element's contract between the C shim and the Swift
 * bridge shares: plain picture descriptions, boxes, and the property-table
 * macros.
 *
 * Only plain C types cross this boundary: plane pointers, strides, sizes and
 * small settings/result structs. The C side (Sources/GstShim) owns
 * GStreamer; the Swift side (Sources/GstDepthMatte) implements the dm_*
 * functions each element header declares, with @_cdecl, and never calls back
 * into GStreamer. These headers include only <stdint.h>, so the pure-Swift
 * kit (Sources/DepthMatteKit) reads the settings structs as they are.
 *
 * Property tables: each element lists its properties once, in an X-macro
 * table of its own, include/<element>_properties.def (the .def ending is the
 * LLVM/GCC convention for such tables: data, included where it is expanded),
 * one row per property:
 *
 *   DM_PROPERTY (KIND, field, "name", "Nick", min, max, default, enum_get_type,
 *       FLAGS, "description with units and range")
 *
 * The includer defines DM_PROPERTY; an element's table undefines it at its
 * end. Rows several elements share are tables of their own
 * (depth_encoding_properties.def, depth_display_properties.def), included
 * from the elements' tables.
 *
 * KIND is DOUBLE, INT, UINT, UINT64, BOOLEAN, ENUM (enum_get_type names the
 * registered GEnum's get_type function; NULL otherwise) or STRING (a string
 * the element owns; default 0 = NULL, min/max unused); FLAGS is PLAYING
 * (changeable while PLAYING and controllable) or READY (READY or below only).
 * From that one list come the settings struct (DM_SETTINGS_FIELD), its
 * defaults (DM_SETTINGS_DEFAULT: dm_<element>_settings_init, used by the
 * element's instance init and by the kit's `defaults`) and the GObject
 * properties with their generic set/get (DM_PROP_SPEC, Sources/GstShim/element.c).
 * A row's default is written there and nowhere else: the kit reads each
 * struct in one place (the element's plan or settings reader).
 */
#ifndef DMCOMMON_H
#define DMCOMMON_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A packed 8-bit RGB picture: one plane, 3 or 4 bytes per pixel.
 * r, g, b, a are the byte offsets of each component inside a pixel
 * (a = -1 when the format has no alpha, e.g. BGRx or RGB). */
typedef struct {
  uint8_t *data;
  int32_t width;
  int32_t height;
  int32_t stride;        /* bytes per row, >= width * pixel_stride */
  int32_t pixel_stride;  /* bytes per pixel: 3 or 4 */
  int32_t r, g, b, a;
} DMRGBImage;

/* A single-plane grey picture: 16-bit (depth) or 8-bit (matte). */
typedef struct {
  uint8_t *data;
  int32_t width;
  int32_t height;
  int32_t stride;        /* bytes per row */
} DMGrayImage;

/* An axis-aligned box in pixels of the picture it belongs to. */
typedef struct {
  int32_t x, y, width, height;
} DMBox;

/* ---- enums ------------------------------------------------------------- */

/* Each enum is written once, as a list X (ID, "nick", "description") in value
 * order from 0. DM_ENUM_TYPEDEF makes the C enum from it, plus the constant
 * <Name>Count the kit's mirror is checked against; the shim's
 * DM_DEFINE_ENUM (elements.h) registers the GEnum from the same list. */
#define DM_ENUM_MEMBER(id, nick, blurb) id,
#define DM_ENUM_ONE(id, nick, blurb) + 1
#define DM_ENUM_TYPEDEF(name, LIST) \
  typedef enum { LIST (DM_ENUM_MEMBER) } name; \
  enum { name##Count = 0 LIST (DM_ENUM_ONE) };

/* How depth samples are encoded (depthview, depthmatte). */
#define DM_DEPTH_KIND_LIST(X) \
  X (DM_DEPTH_KIND_DEPTH, "depth", \
      "Distance: larger values are farther (GRAY16: metres = value * " \
      "depth-scale)") \
  X (DM_DEPTH_KIND_DISPARITY, "disparity", \
      "Disparity (1/m): larger values are nearer (GRAY16: metres = 1 " \
      "/ (value * depth-scale))")
DM_ENUM_TYPEDEF (DMDepthKind, DM_DEPTH_KIND_LIST)

#define DM_COLORMAP_LIST(X) \
  X (DM_COLORMAP_GREY, "grey", \
      "Grey: near white, far black") \
  X (DM_COLORMAP_TURBO, "turbo", \
      "Turbo (perceptual rainbow): near red, far dark blue")
DM_ENUM_TYPEDEF (DMColormap, DM_COLORMAP_LIST)

/* ---- property tables --------------------------------------------------- */

#define DM_CTYPE_DOUBLE double
#define DM_CTYPE_INT int32_t
#define DM_CTYPE_UINT uint32_t
#define DM_CTYPE_UINT64 uint64_t
#define DM_CTYPE_BOOLEAN int32_t
#define DM_CTYPE_ENUM int32_t
#define DM_CTYPE_STRING char *

/* One settings-struct field per property row. */
#define DM_SETTINGS_FIELD(kind, field, name, nick, min, max, def, enum_type, flags, blurb) \
  DM_CTYPE_##kind field;
/* The row's default into settings `s` (a pointer in scope). */
#define DM_SETTINGS_DEFAULT(kind, field, name, nick, min, max, def, enum_type, flags, blurb) \
  s->field = (DM_CTYPE_##kind) (def);



/* Per-element Swift state behind an opaque pointer: one free and one reset for
 * every element (the bridge's ElementState). */
void dm_state_free(void *state);
void dm_state_reset(void *state);

#ifdef __cplusplus
}
#endif
#endif
