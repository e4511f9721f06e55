/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A camera pair's calibration file, read with json-glib and checked field by
 * field (schema: docs/depthalign.md; unknown keys are ignored, "model" and
 * "coeffs" may be left out: no distortion). Every refusal names the field,
 * and a JSON syntax error its line and column. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include "calibrationfile.h"

/* Nesting deeper than this is refused before json-glib reads the text:
 * json-glib 1.6 recurses once a level and overflows the stack near 100000. */
#define MAX_NESTING 64
/* How far R·Rᵀ may be from the identity (and det R from 1): calibration
 * files print rotations with 6-7 significant digits. */
#define ROTATION_TOLERANCE 1e-3
#define FIELD_SIZE sizeof (((DMCalibrationError *) NULL)->field)

/* The file's "model" strings, in DMDistortionModel order. */
static const gchar *const model_names[] =
    { "none", "brown-conrady", "inverse-brown-conrady" };

/* ---- errors ----------------------------------------------------------------- */

static gboolean G_GNUC_PRINTF (3, 4)
fail (DMCalibrationError * error, const gchar * field, const gchar * format,
    ...)
{
  va_list args;
  const gchar *end;

  g_strlcpy (error->field, field, sizeof error->field);
  va_start (args, format);
  g_vsnprintf (error->message, sizeof error->message, format, args);
  va_end (args);
  /* a message cut at the buffer's end stops at a whole character */
  if (!g_utf8_validate (error->message, -1, &end))
    *(gchar *) end = '\0';
  return FALSE;
}

/* A number for a message, locale-independent. */
typedef struct
{
  gchar s[G_ASCII_DTOSTR_BUF_SIZE];
} Num;

static Num
num (gdouble x)
{
  Num n;
  g_ascii_formatd (n.s, sizeof n.s, "%.9g", x);
  return n;
}

static const gchar *
join (gchar field[FIELD_SIZE], const gchar * path, const gchar * key)
{
  g_snprintf (field, FIELD_SIZE, "%s%s%s", path, *path ? "." : "", key);
  return field;
}

static const gchar *
type_name (JsonNode * node)
{
  GType type;

  switch (json_node_get_node_type (node)) {
    case JSON_NODE_OBJECT:
      return "an object";
    case JSON_NODE_ARRAY:
      return "an array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
      break;
  }
  type = json_node_get_value_type (node);
  if (type == G_TYPE_BOOLEAN)
    return "a boolean";
  if (type == G_TYPE_STRING)
    return "a string";
  return "a number";
}

/* 1-based line and byte column of `at` in `text`. */
static void
position (const gchar * text, const gchar * at, guint * line, guint * column)
{
  *line = *column = 1;
  for (; text < at; text++) {
    if (*text == '\n') {
      (*line)++;
      *column = 1;
    } else {
      (*column)++;
    }
  }
}

/* Brackets nested more than MAX_NESTING deep (outside strings): refused. */
static gboolean
check_nesting (const gchar * text, DMCalibrationError * error)
{
  const gchar *p;
  gboolean in_string = FALSE;
  guint depth = 0, line, column;

  for (p = text; *p; p++) {
    if (in_string) {
      if (*p == '\\' && p[1])
        p++;
      else if (*p == '"')
        in_string = FALSE;
    } else if (*p == '"') {
      in_string = TRUE;
    } else if (*p == '[' || *p == '{') {
      if (++depth > MAX_NESTING) {
        position (text, p, &line, &column);
        return fail (error, "", "invalid JSON at line %u, column %u: nested "
            "more than %d levels", line, column, MAX_NESTING);
      }
    } else if ((*p == ']' || *p == '}') && depth > 0) {
      depth--;
    }
  }
  return TRUE;
}

/* json-glib's "<data>:LINE:COLUMN: Parse error: WHAT" as
 * "invalid JSON at line LINE, column COLUMN: WHAT". */
static gboolean
syntax_error (const GError * err, DMCalibrationError * error)
{
  const gchar *prefix = "<data>:", *what, *colon;
  guint line, column;
  gint n = 0;

  if (g_str_has_prefix (err->message, prefix)
      && sscanf (err->message + strlen (prefix), "%u:%u: %n", &line, &column,
          &n) == 2 && n > 0) {
    what = err->message + strlen (prefix) + n;
    /* past json-glib's (translated) "Parse error: " */
    colon = strstr (what, ": ");
    return fail (error, "", "invalid JSON at line %u, column %u: %s", line,
        column, colon ? colon + 2 : what);
  }
  return fail (error, "", "invalid JSON: %s", err->message);
}

/* ---- values ----------------------------------------------------------------- */

/* `key` of `object` (whose field path is `path`), or NULL: missing. */
static JsonNode *
member (JsonObject * object, const gchar * path, const gchar * key,
    DMCalibrationError * error)
{
  gchar field[FIELD_SIZE];
  JsonNode *node = json_object_get_member (object, key);

  if (!node)
    fail (error, join (field, path, key), "missing field");
  return node;
}

/* The object `node` holds, or NULL: `node` NULL (a missing member, already
 * reported) or not an object (reported as field `path`). */
static JsonObject *
object_at (JsonNode * node, const gchar * path, DMCalibrationError * error)
{
  if (!node)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node)) {
    fail (error, path, "expected an object, found %s", type_name (node));
    return NULL;
  }
  return json_node_get_object (node);
}

/* A finite number. `node` NULL: a missing member, already reported. */
static gboolean
number (JsonNode * node, const gchar * field, gdouble * out,
    DMCalibrationError * error)
{
  GType type;

  if (!node)
    return FALSE;
  if (!JSON_NODE_HOLDS_VALUE (node)
      || ((type = json_node_get_value_type (node)) != G_TYPE_INT64
          && type != G_TYPE_DOUBLE))
    return fail (error, field, "expected a number, found %s",
        type_name (node));
  *out = json_node_get_double (node);
  if (!isfinite (*out))
    return fail (error, field, "number out of range");
  return TRUE;
}

static gboolean
member_number (JsonObject * object, const gchar * path, const gchar * key,
    gdouble * out, DMCalibrationError * error)
{
  gchar field[FIELD_SIZE];

  return number (member (object, path, key, error), join (field, path, key),
      out, error);
}

/* An array of exactly `count` numbers. */
static gboolean
numbers (JsonNode * node, const gchar * field, guint count, gdouble * out,
    DMCalibrationError * error)
{
  JsonArray *array;
  gchar item[FIELD_SIZE];
  guint i;

  if (!node)
    return FALSE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return fail (error, field, "expected an array of %u numbers, found %s",
        count, type_name (node));
  array = json_node_get_array (node);
  if (json_array_get_length (array) != count)
    return fail (error, field, "expected %u numbers, found %u", count,
        json_array_get_length (array));
  for (i = 0; i < count; i++) {
    g_snprintf (item, sizeof item, "%s[%u]", field, i);
    if (!number (json_array_get_element (array, i), item, &out[i], error))
      return FALSE;
  }
  return TRUE;
}

/* A picture size: a whole number of pixels in 1...65536. */
static gboolean
member_size (JsonObject * object, const gchar * path, const gchar * key,
    int32_t * out, DMCalibrationError * error)
{
  gchar field[FIELD_SIZE];
  gdouble x;

  if (!member_number (object, path, key, &x, error))
    return FALSE;
  if (x != round (x) || x < 1 || x > 65536)
    return fail (error, join (field, path, key), "must be a whole number of "
        "pixels in 1...65536, found %s", num (x).s);
  *out = (int32_t) x;
  return TRUE;
}

static gboolean
camera (JsonNode * node, const gchar * path, DMCameraIntrinsics * cam,
    DMCalibrationError * error)
{
  JsonObject *object;
  JsonNode *model;
  gchar field[FIELD_SIZE];
  const gchar *name;
  guint i;

  if (!(object = object_at (node, path, error)))
    return FALSE;
  if (!member_size (object, path, "width", &cam->width, error)
      || !member_size (object, path, "height", &cam->height, error)
      || !member_number (object, path, "fx", &cam->fx, error)
      || !member_number (object, path, "fy", &cam->fy, error))
    return FALSE;
  if (!(cam->fx > 0))
    return fail (error, join (field, path, "fx"), "focal length must be > 0 "
        "pixels, found %s", num (cam->fx).s);
  if (!(cam->fy > 0))
    return fail (error, join (field, path, "fy"), "focal length must be > 0 "
        "pixels, found %s", num (cam->fy).s);
  if (!member_number (object, path, "ppx", &cam->ppx, error)
      || !member_number (object, path, "ppy", &cam->ppy, error))
    return FALSE;

  cam->model = DM_DISTORTION_NONE;
  if ((model = json_object_get_member (object, "model"))) {
    join (field, path, "model");
    if (!JSON_NODE_HOLDS_VALUE (model)
        || json_node_get_value_type (model) != G_TYPE_STRING)
      return fail (error, field, "expected a string, found %s",
          type_name (model));
    name = json_node_get_string (model);
    for (i = 0; i < G_N_ELEMENTS (model_names); i++)
      if (g_str_equal (name, model_names[i]))
        break;
    if (i == G_N_ELEMENTS (model_names))
      return fail (error, field, "unknown distortion model \"%s\" (known: "
          "\"%s\", \"%s\", \"%s\")", name, model_names[0], model_names[1],
          model_names[2]);
    cam->model = (DMDistortionModel) i;
  }
  join (field, path, "coeffs");
  if (json_object_has_member (object, "coeffs"))
    return numbers (json_object_get_member (object, "coeffs"), field, 5,
        cam->coeffs, error);
  if (cam->model != DM_DISTORTION_NONE)
    return fail (error, field, "missing field (model \"%s\" needs [k1, k2, "
        "p1, p2, k3])", model_names[cam->model]);
  memset (cam->coeffs, 0, sizeof cam->coeffs);
  return TRUE;
}

/* The largest |(R Rᵀ − I)ᵢⱼ| and |det R − 1| of a row-major R: 0 for an
 * exact rotation. */
static gdouble
rotation_error (const gdouble * r)
{
  gdouble e = 0, d, det;
  guint i, j;

  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      d = r[3 * i] * r[3 * j] + r[3 * i + 1] * r[3 * j + 1]
          + r[3 * i + 2] * r[3 * j + 2] - (i == j ? 1 : 0);
      if (isnan (d))
        return INFINITY;
      e = MAX (e, fabs (d));
    }
  det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6])
      + r[2] * (r[3] * r[7] - r[4] * r[6]);
  return isnan (det) ? INFINITY : MAX (e, fabs (det - 1));
}

static gboolean
extrinsics (JsonNode * node, DMCalibration * cal, DMCalibrationError * error)
{
  const gchar *path = "depth_to_color";
  JsonObject *object;
  gdouble e;

  if (!(object = object_at (node, path, error)))
    return FALSE;
  if (!numbers (member (object, path, "rotation", error),
          "depth_to_color.rotation", 9, cal->rotation, error)
      || !numbers (member (object, path, "translation", error),
          "depth_to_color.translation", 3, cal->translation, error))
    return FALSE;
  e = rotation_error (cal->rotation);
  if (!(e <= ROTATION_TOLERANCE))
    return fail (error, "depth_to_color.rotation", "not a rotation: R·Rᵀ "
        "differs from the identity (or det R from 1) by %s, more than %s",
        num (e).s, num (ROTATION_TOLERANCE).s);
  return TRUE;
}

static gboolean
calibration (JsonNode * root, DMCalibration * cal, DMCalibrationError * error)
{
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (root))
    return fail (error, "", "the calibration must be a JSON object, found %s",
        type_name (root));
  object = json_node_get_object (root);
  if (!camera (member (object, "", "depth", error), "depth", &cal->depth,
          error)
      || !camera (member (object, "", "color", error), "color", &cal->color,
          error)
      || !extrinsics (member (object, "", "depth_to_color", error), cal, error)
      || !member_number (object, "", "depth_scale", &cal->depth_scale, error))
    return FALSE;
  if (!(cal->depth_scale > 0))
    return fail (error, "depth_scale", "must be > 0 (metres per depth unit), "
        "found %s", num (cal->depth_scale).s);
  return TRUE;
}

int32_t
dm_calibration_parse (const char *text, DMCalibration * cal,
    DMCalibrationError * error)
{
  JsonParser *parser = NULL;
  JsonNode *root;
  GError *err = NULL;
  gchar *valid;
  gboolean ok = FALSE;
  guint line, column;

  memset (cal, 0, sizeof *cal);
  memset (error, 0, sizeof *error);
  valid = g_utf8_make_valid (text, -1);
  if (!check_nesting (valid, error))
    goto done;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, valid, -1, &err)) {
    syntax_error (err, error);
    goto done;
  }
  root = json_parser_get_root (parser);
  if (!root) {
    /* nothing but blanks (and comments, which json-glib skips) */
    position (valid, valid + strlen (valid), &line, &column);
    fail (error, "", "invalid JSON at line %u, column %u: unexpected end of "
        "text", line, column);
    goto done;
  }
  ok = calibration (root, cal, error);

done:
  if (!ok)
    memset (cal, 0, sizeof *cal);
  g_clear_error (&err);
  g_clear_object (&parser);
  g_free (valid);
  return ok;
}

/* ---- elements --------------------------------------------------------------- */

gboolean
dm_calibration_load (GstElement * element, gchar * const *property,
    DMLoadedCalibration * loaded)
{
  GError *err = NULL;
  gchar *json = NULL;
  DMCalibrationError error;
  gboolean ok;

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
  ok = dm_calibration_parse (json, &loaded->values, &error);
  g_free (json);
  if (!ok) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("The calibration file \"%s\" is invalid: %s%s%s.", loaded->path,
            error.field, *error.field ? ": " : "", error.message),
        ("field '%s' of %s", error.field, loaded->path));
    return FALSE;
  }
  /* read once here: negotiation reads `values`, streaming the handle */
  loaded->parsed = dm_calibration_new (&loaded->values);
  GST_INFO_OBJECT (element, "calibration %s: depth %dx%d -> colour %dx%d, "
      "depth scale %g m", loaded->path, loaded->values.depth.width,
      loaded->values.depth.height, loaded->values.color.width,
      loaded->values.color.height, loaded->values.depth_scale);
  return TRUE;
}

void
dm_calibration_clear (DMLoadedCalibration * loaded)
{
  g_free (loaded->path);
  dm_calibration_release (loaded->parsed);
  memset (loaded, 0, sizeof *loaded);
}
