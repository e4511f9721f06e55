/* dmcommon.h: what every element's contract between the C shim and the Swift
 * bridge shares: plain picture descriptions, boxes, and the property-table
 * macros.
 *
 * Only plain C types cross this boundary: plane pointers, strides, sizes and
 * small settings/result structs. The C side owns GStreamer; the Swift side
 * (Sources/GstDepthMatte) implements the dm_* functions each element header
 * declares, with @_cdecl, and never calls back into GStreamer.
 *
 * Property tables: each element header lists its properties once, as
 *
 *   #define DM_<ELEMENT>_PROPERTIES(P, X) \
 *     P (X, KIND, field, "name", "Nick", min, max, default, enum_get_type, FLAGS, \
 *        "description with units and range") ...
 *
 * (X is passed through to P: the user's context, e.g. the settings type.)
 *
 * KIND is DOUBLE, INT, UINT, UINT64, BOOLEAN, ENUM (enum_get_type names the
 * registered GEnum's get_type function; NULL otherwise) or STRING (a string
 * the element owns; default 0 = NULL, min/max unused); FLAGS is PLAYING
 * (changeable while PLAYING and controllable) or READY (READY or below only).
 * From that one list come the settings struct (DM_SETTINGS_FIELD), its
 * defaults (DM_SETTINGS_DEFAULT, used by the element's instance init and by
 * the Swift bridge) and the GObject properties with their generic set/get
 * (Sources/GstShim/props.c).
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

/* How depth samples are encoded (depthview, depthmatte). */
typedef enum { DM_DEPTH_KIND_DEPTH = 0, DM_DEPTH_KIND_DISPARITY = 1 } DMDepthKind;
typedef enum { DM_COLORMAP_GREY = 0, DM_COLORMAP_TURBO = 1 } DMColormap;

/* ---- property tables --------------------------------------------------- */

#define DM_CTYPE_DOUBLE double
#define DM_CTYPE_INT int32_t
#define DM_CTYPE_UINT uint32_t
#define DM_CTYPE_UINT64 uint64_t
#define DM_CTYPE_BOOLEAN int32_t
#define DM_CTYPE_ENUM int32_t
#define DM_CTYPE_STRING char *

/* One settings-struct field per property row. */
#define DM_SETTINGS_FIELD(X, kind, field, name, nick, min, max, def, enum_type, flags, blurb) \
  DM_CTYPE_##kind field;
/* The row's default into settings `s` (a pointer in scope). */
#define DM_SETTINGS_DEFAULT(X, kind, field, name, nick, min, max, def, enum_type, flags, blurb) \
  s->field = (DM_CTYPE_##kind) (def);


/* Rows shared by every element that reads depth samples (depthview,
 * depthmatte): what the values mean. */
#define DM_DEPTH_ENCODING_PROPERTIES(P, X) \
  P (X, ENUM, depth_kind, "depth-kind", "Depth kind", 0, 0, DM_DEPTH_KIND_DEPTH, \
      dm_depth_kind_get_type, PLAYING, \
      "What the depth values measure: distance, or disparity (1/m, larger = " \
      "nearer); thresholds and ranges work in metres either way") \
  P (X, DOUBLE, depth_scale, "depth-scale", "Depth scale", 1e-6, 10.0, 0.001, NULL, PLAYING, \
      "GRAY16 depth: metres per unit (0.001 = millimetres); with " \
      "depth-kind=disparity: 1/m per unit (metres = 1 / (value * scale)); " \
      "value 0 = no reading") \
  P (X, DOUBLE, depth_near, "depth-near", "Depth near", 0.01, 1000.0, 0.5, NULL, PLAYING, \
      "GRAY8 depth maps: metres at the near end (depth-kind=depth: value 0; " \
      "disparity: value 255)") \
  P (X, DOUBLE, depth_far, "depth-far", "Depth far", 0.01, 1000.0, 5.0, NULL, PLAYING, \
      "GRAY8 depth maps: metres at the far end (depth-kind=depth: value 255, " \
      "linear in metres; disparity: value 0, linear in 1/m)")

/* Rows shared by every element that draws depth as a picture (depthview,
 * depthmatte output=depth). */
#define DM_DEPTH_DISPLAY_PROPERTIES(P, X) \
  P (X, ENUM, depth_colormap, "depth-colormap", "Depth colour map", 0, 0, DM_COLORMAP_TURBO, \
      dm_colormap_get_type, PLAYING, "Colour map of the depth picture") \
  P (X, DOUBLE, range_min, "depth-range-min", "Depth range min", 0.0, 1000.0, 0.0, NULL, PLAYING, \
      "Metres shown nearest (brightest / red); 0 = automatic (2nd " \
      "percentile of the frame's valid depths)") \
  P (X, DOUBLE, range_max, "depth-range-max", "Depth range max", 0.0, 1000.0, 0.0, NULL, PLAYING, \
      "Metres shown farthest (black / dark blue); 0 = automatic (98th " \
      "percentile of the frame's valid depths)") \
  P (X, UINT, hole_argb, "hole-color", "Hole colour", 0, 4294967295.0, 0xff000000u, NULL, PLAYING, \
      "Colour of pixels with no depth reading, 0xAARRGGBB (AA goes to the " \
      "alpha of RGBA/BGRA output)")

/* Per-element Swift state behind an opaque pointer: one free and one reset for
 * every element (the bridge's ElementState). */
void dm_state_free(void *state);
void dm_state_reset(void *state);

#ifdef __cplusplus
}
#endif
#endif
