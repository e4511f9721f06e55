/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* framestack-private.h: what the framestack element's C files share (not
 * part of the shim/bridge contract, which is DMContract/include/framestack.h).
 *
 *   framestack.c         the type: pads, chain, events, queries, state,
 *                        properties
 *   framestack-output.c  the output side: the settings snapshot, the
 *                        buffer pool, rendering a stack and pushing it, the
 *                        result message
 * framestack.c calls framestack-output.c, never the other way round.
 */
#ifndef DM_FRAMESTACK_PRIVATE_H
#define DM_FRAMESTACK_PRIVATE_H
#include <gst/gst.h>
#include <gst/video/video.h>
#include "framestack.h"

G_GNUC_INTERNAL GST_DEBUG_CATEGORY_EXTERN (gst_frame_stack_debug);
#define GST_CAT_DEFAULT gst_frame_stack_debug

#define GST_TYPE_FRAME_STACK (gst_frame_stack_get_type ())
G_DECLARE_FINAL_TYPE (GstFrameStack, gst_frame_stack, GST, FRAME_STACK, GstElement)

struct _GstFrameStack
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  /* properties (framestack_properties.def), guarded by the object lock */
  DMFrameStackSettings settings;

  /* streaming thread (chain and serialized events) */
  void *state;                  /* Swift FrameStacker */
  gboolean have_info;
  GstVideoInfo info;            /* input (= output) size and format */
  gint frames, mode;            /* taken from the properties at each CAPS */
  GstSegment segment;
  gboolean discont;
  GstBufferPool *pool;
  /* latency added in batch mode; read by the latency query */
  GstClockTime frame_duration;  /* guarded by the object lock */

  /* message arrays for DMFrameStackResult */
  double shift_x[DM_FRAMESTACK_MAX_FRAMES], shift_y[DM_FRAMESTACK_MAX_FRAMES];
  int32_t registered[DM_FRAMESTACK_MAX_FRAMES];
  uint64_t frame_pts[DM_FRAMESTACK_MAX_FRAMES];
  uint64_t sample_counts[DM_FRAMESTACK_MAX_FRAMES + 1];
};

/* framestack-output.c */
/* The settings for the stacker, copied under the object lock, with frames
 * and mode as the last CAPS fixed them; *post (when not NULL) says whether
 * to post messages. */
G_GNUC_INTERNAL DMFrameStackSettings gst_frame_stack_copy_settings
    (GstFrameStack * self, gboolean * post);
/* Takes downstream's pool for `caps` when it offers one, else makes a video
 * pool of our own. */
G_GNUC_INTERNAL void gst_frame_stack_setup_pool (GstFrameStack * self,
    GstCaps * caps);
G_GNUC_INTERNAL void gst_frame_stack_drop_pool (GstFrameStack * self);
/* Stacks what was collected and pushes it. */
G_GNUC_INTERNAL GstFlowReturn gst_frame_stack_push_stack (GstFrameStack *
    self);
/* Pushes a partial batch, if any. */
G_GNUC_INTERNAL GstFlowReturn gst_frame_stack_drain (GstFrameStack * self);

#endif
