/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Umbrella header for json-glib, which the shim reads calibration files with. */
#include <json-glib/json-glib.h>
