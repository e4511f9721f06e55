/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shim/bridge contract for a depth/colour camera pair's calibration
 * file (the JSON schema of README "depthalign"), read by depthalign and by
 * rgbdtestsrc's `calibration`: parsed once when an element starts, then used
 * through the handle. */
#ifndef DM_CALIBRATION_H
#define DM_CALIBRATION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a calibration gives the shim: the sizes to negotiate, or why it was
 * refused (the field path, e.g. "color.fx", and a sentence). */
typedef struct _DMCalibrationInfo {
  int32_t depth_width, depth_height;   /* the depth input's size */
  int32_t color_width, color_height;   /* the colour picture's size */
  double depth_scale;                  /* metres per unit */
  char field[64];
  char message[256];
} DMCalibrationInfo;

/* Parse a calibration (the file's text) once: a handle for per-frame use and
 * its sizes in `info`, or NULL with info->field and info->message set.
 * dm_calibration_release frees the handle (NULL: nothing). */
void *dm_calibration_parse(const char *json, DMCalibrationInfo *info);
void dm_calibration_release(void *parsed);

#ifdef __cplusplus
}
#endif

#endif
