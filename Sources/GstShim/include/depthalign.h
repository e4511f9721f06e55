/* depthalign.h: the depthalign element's contract between the shim
 * (depthalign.c) and the bridge (DepthAlignBridge.swift). */
#ifndef DM_DEPTHALIGN_H
#define DM_DEPTHALIGN_H

#include "dmcommon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of the element's properties (depthalign_properties.def), taken
 * under the object lock per frame, plus what the shim adds per frame. */
typedef struct {
#define DM_PROPERTY DM_SETTINGS_FIELD
#include "depthalign_properties.def"
  int32_t big_endian;    /* 1: the depth input is GRAY16_BE (16-bit PNG depth) */
} DMDepthAlignSettings;

static inline void
dm_depthalign_settings_init (DMDepthAlignSettings *s)
{
#define DM_PROPERTY DM_SETTINGS_DEFAULT
#include "depthalign_properties.def"
  s->big_endian = 0;
}

/* What a calibration gives the shim: the sizes to negotiate, or why it was
 * refused (the field path, e.g. "color.fx", and a sentence). */
typedef struct _DMDepthAlignCalibration {
  int32_t depth_width, depth_height;   /* the depth input's size */
  int32_t color_width, color_height;   /* the output's size */
  double depth_scale;                  /* metres per unit */
  char field[64];
  char message[256];
} DMDepthAlignCalibration;

/* Parse a calibration (the file's text) into `info`: 1, or 0 with the field
 * and message set (for any element that reads calibration files). */
int32_t dm_calibration_describe(const char *json, DMDepthAlignCalibration *info);
/* The calibration parsed once (a handle for per-frame use), or NULL when it
 * does not parse; dm_calibration_release frees it (NULL: nothing). */
void *dm_calibration_parse(const char *json);
void dm_calibration_release(void *parsed);

void *dm_depthalign_new(void);
/* Parse `json` (the calibration file's text) and keep it for the frames to
 * come; returns 1, or 0 with info->field and info->message set. */
int32_t dm_depthalign_load(void *state, const char *json, DMDepthAlignCalibration *info);
/* Register one GRAY16_LE (or, settings->big_endian, GRAY16_BE) depth frame
 * (depth camera's view) into `out`
 * (GRAY16_LE, colour camera's size and view, same units, 0 = no reading).
 * Returns 1, or 0 when the sizes do not match the loaded calibration. */
int32_t dm_depthalign_process(void *state, const DMDepthAlignSettings *settings,
    const DMGrayImage *depth, const DMGrayImage *out);

#ifdef __cplusplus
}
#endif
#endif
