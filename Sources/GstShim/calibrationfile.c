/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "calibrationfile.h"

gboolean
dm_calibration_load (GstElement * element, gchar * const *property,
    DMLoadedCalibration * loaded)
{
  GError *err = NULL;
  gchar *json = NULL;

  dm_calibration_clear (loaded);
  GST_OBJECT_LOCK (element);
  loaded->path = g_strdup (*property);
  GST_OBJECT_UNLOCK (element);
  if (!loaded->path || !*loaded->path)
    return TRUE;
  if (!g_file_get_contents (loaded->path, &json, NULL, &err)) {
    if (g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT))
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
          ("The calibration file \"%s\" does not exist.", loaded->path),
          ("%s", err->message));
    else
      GST_ELEMENT_ERROR (element, RESOURCE, OPEN_READ,
          ("Could not read the calibration file \"%s\".", loaded->path),
          ("%s", err->message));
    g_clear_error (&err);
    return FALSE;
  }
  /* parsed once here: negotiation reads `info`, streaming the handle */
  loaded->parsed = dm_calibration_parse (json, &loaded->info);
  g_free (json);
  if (!loaded->parsed) {
    const DMCalibrationInfo *i = &loaded->info;
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("The calibration file \"%s\" is invalid: %s%s%s.", loaded->path,
            i->field, *i->field ? ": " : "", i->message),
        ("field '%s' of %s", i->field, loaded->path));
    return FALSE;
  }
  GST_INFO_OBJECT (element, "calibration %s: depth %dx%d -> colour %dx%d, "
      "depth scale %g m", loaded->path, loaded->info.depth_width,
      loaded->info.depth_height, loaded->info.color_width,
      loaded->info.color_height, loaded->info.depth_scale);
  return TRUE;
}

void
dm_calibration_clear (DMLoadedCalibration * loaded)
{
  g_free (loaded->path);
  dm_calibration_release (loaded->parsed);
  memset (loaded, 0, sizeof *loaded);
}
