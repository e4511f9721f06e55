/* placeholder until the rgbdtestsrc element lands */
#include "elements.h"
gboolean dm_rgbdtestsrc_register (GstPlugin * plugin) { return TRUE; }
