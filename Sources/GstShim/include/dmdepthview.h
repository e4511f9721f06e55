/* dmdepthview.h: the contract between the depthview element's C shim
 * (depthview.c) and its Swift bridge (Sources/GstDepthMatte/DepthViewBridge.swift).
 * Plain C types only; the algorithms live in DepthMatteKit/DepthView.swift and
 * DepthDecode.swift. */
#ifndef DMDEPTHVIEW_H
#define DMDEPTHVIEW_H

#include <stdint.h>
#include "dmshim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DM_DEPTH_KIND_DEPTH = 0, DM_DEPTH_KIND_DISPARITY = 1 } DMDepthKind;
typedef enum { DM_COLORMAP_GREY = 0, DM_COLORMAP_TURBO = 1 } DMColormap;

/* How raw depth values read as metres (see DepthDecode.swift). */
typedef struct {
  int32_t kind;          /* DMDepthKind */
  int32_t eight_bit;     /* 1: GRAY8 normalised map, 0: GRAY16 */
  double scale;          /* GRAY16: metres per unit (depth) or 1/m per unit (disparity) */
  double near_m;         /* GRAY8: metres at the near end */
  double far_m;          /* GRAY8: metres at the far end */
  int32_t big_endian;    /* 1: GRAY16_BE (16-bit PNG depth images) */
} DMDepthEncoding;

/* A copy of the element's properties, taken under the object lock once per frame. */
typedef struct {
  DMDepthEncoding encoding;
  double range_min;      /* metres shown nearest; 0 = automatic */
  double range_max;      /* metres shown farthest; 0 = automatic */
  int32_t colormap;      /* DMColormap */
  uint32_t hole_argb;    /* colour of holes, 0xAARRGGBB */
} DMDepthViewSettings;

void *dm_depthview_new(void);
void dm_depthview_free(void *state);
/* depth: GRAY16_LE/BE or GRAY8 (encoding.eight_bit, big_endian), read only; out: packed RGB. */
void dm_depthview_process(void *state, const DMDepthViewSettings *settings,
    const DMGrayImage *depth, const DMRGBImage *out);

#ifdef __cplusplus
}
#endif
#endif
