/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* calibrationfile.h: a camera pair's calibration file (DMContract's calibration.h)
 * as an element reads it when it starts (depthalign, rgbdtestsrc): parsed
 * and checked once (json-glib), then negotiation reads the sizes and
 * streaming uses the bridge's handle. */
#ifndef DM_CALIBRATION_FILE_H
#define DM_CALIBRATION_FILE_H

#include <gst/gst.h>
#include "calibration.h"

/* All zero = none read. */
typedef struct
{
  gchar *path;                  /* the `calibration` property it was read from */
  DMCalibration values;         /* what it gives */
  void *parsed;                 /* dm_calibration_new's handle; NULL when none was read */
} DMLoadedCalibration;

/* Read and check the file that `*property` (a settings string, copied under
 * the element's object lock) names into *loaded, dropping what was there.
 * No file named: TRUE, with loaded->parsed NULL. On failure a RESOURCE error
 * naming the file (and the field) is posted and FALSE returned. */
G_GNUC_INTERNAL gboolean dm_calibration_load (GstElement * element,
    gchar * const *property, DMLoadedCalibration * loaded);

/* Free and zero what dm_calibration_load read (the shared finalize does, for
 * an element with DM_ELEMENT_CALIBRATION). */
G_GNUC_INTERNAL void dm_calibration_clear (DMLoadedCalibration * loaded);

#endif
