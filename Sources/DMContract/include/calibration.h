/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shim/bridge contract for a depth/colour camera pair's calibration
 * file (the JSON schema in docs/depthalign.md), read by depthalign and by
 * rgbdtestsrc's `calibration`: the shim parses and checks the file once when
 * an element starts (calibrationfile.c, json-glib) into a DMCalibration, the
 * bridge turns that into the kit's DepthCalibration behind a handle for the
 * frames. */
#ifndef DM_CALIBRATION_H
#define DM_CALIBRATION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A camera's lens distortion (librealsense's rs2_distortion subset; the
 * file's "model" string). */
typedef enum {
  DM_DISTORTION_NONE = 0,                   /* "none" */
  DM_DISTORTION_BROWN_CONRADY = 1,          /* "brown-conrady" */
  DM_DISTORTION_INVERSE_BROWN_CONRADY = 2,  /* "inverse-brown-conrady" */
} DMDistortionModel;

/* One camera's intrinsics, in pixels as librealsense's rs2_intrinsics. */
typedef struct {
  int32_t width, height;       /* 1...65536 */
  double fx, fy;               /* focal lengths, > 0 */
  double ppx, ppy;             /* principal point (pixel centres at integers) */
  DMDistortionModel model;
  double coeffs[5];            /* k1, k2, p1, p2, k3; zeros when the file has none */
} DMCameraIntrinsics;

/* A whole calibration file, checked: every number finite. */
typedef struct {
  DMCameraIntrinsics depth;    /* the depth input's camera and size */
  DMCameraIntrinsics color;    /* the colour picture's camera and size */
  double rotation[9];          /* depth -> colour, row-major, a rotation within 1e-3 */
  double translation[3];       /* depth -> colour, metres */
  double depth_scale;          /* metres per depth unit, > 0 */
} DMCalibration;

/* Why a file was refused: the field path ("color.fx",
 * "depth_to_color.rotation[7]"; empty for the file as a whole, e.g. a JSON
 * syntax error) and a sentence ("invalid JSON at line 3, column 14: ..."). */
typedef struct {
  char field[64];
  char message[256];
} DMCalibrationError;

/* Parse and check a calibration file's text (UTF-8; invalid bytes are read
 * as U+FFFD) into *calibration: 1, or 0 with *error set (C, the shim). */
int32_t dm_calibration_parse(const char *text, DMCalibration *calibration,
    DMCalibrationError *error);

/* The bridge's handle for a checked calibration, for per-frame use
 * (depthalign.h, rgbdtestsrc.h); dm_calibration_release frees it (NULL:
 * nothing). */
void *dm_calibration_new(const DMCalibration *calibration);
void dm_calibration_release(void *parsed);

#ifdef __cplusplus
}
#endif

#endif
