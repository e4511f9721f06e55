/* dmshim.h: the contract between the C shim (GObject glue) and the Swift bridge.
 *
 * Only plain C types cross this boundary: plane pointers, strides, sizes and
 * small settings/result structs. The C side owns GStreamer; the Swift side
 * (Sources/GstDepthMatte) implements the dm_* functions declared at the end
 * with @_cdecl and never calls back into GStreamer.
 */
#ifndef DMSHIM_H
#define DMSHIM_H

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

/* A single-plane grey picture: 16-bit little-endian (depth) or 8-bit (matte). */
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

/* ---- depthmatte ---------------------------------------------------------- */

typedef enum { DM_MODE_FACE = 0, DM_MODE_FIXED = 1, DM_MODE_NEAREST = 2,
  DM_MODE_HIGHPASS = 3, DM_MODE_BANDPASS = 4 } DMMode;
typedef enum { DM_LOCK_ROBUST = 0, DM_LOCK_ORIGINAL = 1 } DMLockStrategy;
typedef enum { DM_REFINE_GUIDED = 0, DM_REFINE_ORIGINAL = 1, DM_REFINE_NONE = 2 } DMRefine;
typedef enum { DM_OUTPUT_COMPOSITE = 0, DM_OUTPUT_MATTE = 1, DM_OUTPUT_ALPHA = 2,
  DM_OUTPUT_DEPTH = 3 } DMOutput;

/* A copy of the element's properties, taken under the object lock once per frame. */
typedef struct {
  int32_t mode;            /* DMMode */
  double cutoff;           /* metres: fixed cutoff, and the cutoff before any face */
  double cutoff_offset;    /* metres added to the face depth */
  double blur_radius;      /* Gaussian sigma in depth pixels; 0 = no blur */
  double gamma;            /* matte exponent */
  double depth_scale;      /* metres per depth unit */
  uint32_t background_argb;/* replacement colour when no background pad */
  int32_t output;          /* DMOutput */
  int32_t lock_strategy;   /* DMLockStrategy (mode=face) */
  double lock_hold;        /* seconds a lost face is trusted (tracked in depth) */
  double lock_smoothing;   /* seconds: time constant of the cutoff */
  double frame_duration;   /* seconds since the previous frame (set per frame) */
  int32_t n_threads;       /* worker threads for the full-resolution pass; 0 = one per core */
  int32_t depth_kind;      /* 0 depth, 1 disparity (1/m per unit for GRAY16) */
  double depth_near;       /* GRAY8 depth: metres at the near end */
  double depth_far;        /* GRAY8 depth: metres at the far end */
  double focus;            /* highpass/bandpass: metres */
  double slope;            /* highpass/bandpass: per metre (ramp 1/slope m wide) */
  double focus_width;      /* bandpass: metres either side of focus kept fully */
  int32_t depth_colormap;  /* output=depth: 0 grey, 1 turbo (DMColormap) */
  double range_min;        /* output=depth: metres shown nearest; 0 = automatic */
  double range_max;        /* output=depth: metres shown farthest; 0 = automatic */
  uint32_t hole_argb;      /* output=depth: colour of holes */
  int32_t background_effect; /* 0 none, 1 desaturate, 2 comic, 3 blur */
  double effect_radius;    /* background-effect=blur: radius in video pixels */
  int32_t effect_growth;   /* blur: 1 = grows from radius/3 to radius over 1 m behind the subject */
  int32_t refine;          /* DMRefine: how the matte is made from the depth mask */
} DMMatteSettings;

typedef struct {
  DMRGBImage video;            /* colour input (read only) */
  DMGrayImage depth;           /* GRAY16_LE/BE or GRAY8 depth input (read only) */
  int32_t has_depth;           /* 0: no depth buffer for this frame */
  DMRGBImage background;       /* background input, already in the output format */
  int32_t has_background;      /* 0: use background_argb */
  DMRGBImage output;           /* output picture, same size as video */
  const DMBox *faces;          /* face boxes (video pixels), in meta order */
  int32_t n_faces;
  int32_t depth_eight_bit;     /* 1: the depth input is GRAY8 (normalised map) */
  int32_t depth_big_endian;    /* 1: the depth input is GRAY16_BE */
} DMMatteFrame;

typedef struct {
  int32_t face_found;     /* a face box was used to set the cutoff on this frame */
  double face_depth;      /* metres; 0 when no valid depth was found in the face */
  double cutoff;          /* metres, the cutoff used for this frame */
  double coverage;        /* fraction of output pixels with matte > 0.5 */
  int32_t lock_source;    /* 0 fixed, 1 face, 2 tracked, 3 nearest */
  DMBox face_box;         /* the face box (video pixels) that set the cutoff; all 0 when face_found is 0 */
} DMMatteResult;

void *dm_matte_new(void);
void dm_matte_free(void *state);
/* Forget the lock (on flush / state change to READY). */
void dm_matte_reset(void *state);
void dm_matte_process(void *state, const DMMatteSettings *settings,
    const DMMatteFrame *frame, DMMatteResult *result);

/* ---- rgbdtestsrc ------------------------------------------------------- */

typedef enum { DM_STREAM_VIDEO = 0, DM_STREAM_DEPTH = 1, DM_STREAM_TRUTH = 2 } DMStream;

typedef struct {
  uint32_t seed;           /* noise seed */
  double depth_scale;      /* metres per depth unit written */
  int32_t noise;           /* depth noise growing with distance squared */
  int32_t holes;           /* zero holes: occlusion shadows and random clusters */
  int32_t flying_pixels;   /* mixed depths on edges */
  int32_t misregistration; /* depth shifted against colour, in depth pixels */
  int32_t motion;          /* 0: still scene */
  int32_t false_face;      /* a face on the poster reported first, plus stray boxes */
  int32_t face_cover;      /* the subject's face unreported for t mod 8 in [2.8, 4.6) */
  int32_t face_meta;       /* 0: never report faces */
} DMSceneSettings;

/* Render the scene at time t (seconds of stream time).
 * Colour: fills out, and writes the subject's face box (video pixels) to face;
 * returns 1 when a face is visible. */
int32_t dm_scene_render_video(const DMSceneSettings *s, double t, const DMRGBImage *out, DMBox *face);
/* The face boxes a detector would report at time t in a width x height
 * picture, in meta order; writes at most max boxes, returns how many. */
int32_t dm_scene_faces(const DMSceneSettings *s, double t, int32_t width, int32_t height,
    DMBox *out, int32_t max);
/* Depth: GRAY16_LE in units of depth_scale, 0 = no reading. */
void dm_scene_render_depth(const DMSceneSettings *s, double t, const DMGrayImage *out);
/* Ground-truth matte: GRAY8, 255 = subject. */
void dm_scene_render_truth(const DMSceneSettings *s, double t, const DMGrayImage *out);

#ifdef __cplusplus
}
#endif
#endif
