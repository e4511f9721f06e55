/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* framestack-output.c: framestack's output side (streaming thread): the
 * settings a stack is made with, the buffer pool, a stack rendered by the
 * Swift bridge into a pool buffer and pushed, and the "framestack" element
 * message that describes it. It calls nothing in framestack.c.
 */
#include <gst/video/gstvideopool.h>
#include "framestack-private.h"
#include "element.h"
#include "rgbimage.h"

/* ---- the settings ------------------------------------------------------------- */

DMFrameStackSettings
gst_frame_stack_copy_settings (GstFrameStack * self, gboolean * post)
{
  DMFrameStackSettings s;
  GST_OBJECT_LOCK (self);
  s = self->settings;
  if (post)
    *post = self->settings.post_messages;
  GST_OBJECT_UNLOCK (self);
  /* frames and mode are fixed between CAPS events */
  s.frames = self->frames;
  s.mode = self->mode;
  return s;
}

/* ---- the pool ------------------------------------------------------------------ */

void
gst_frame_stack_drop_pool (GstFrameStack * self)
{
  if (self->pool) {
    gst_buffer_pool_set_active (self->pool, FALSE);
    gst_object_unref (self->pool);
    self->pool = NULL;
  }
}

void
gst_frame_stack_setup_pool (GstFrameStack * self, GstCaps * caps)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  guint size = self->info.size, min = 0, max = 0;
  GstStructure *config;

  gst_frame_stack_drop_pool (self);
  if (gst_pad_peer_query (self->srcpad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (!pool)
    pool = gst_video_buffer_pool_new ();
  size = MAX (size, (guint) self->info.size);
  config = dm_pool_config (pool, query, caps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    /* the pool changed our config: take it if it still fits */
    config = gst_buffer_pool_get_config (pool);
    if (!gst_buffer_pool_config_validate_params (config, caps, size, min, max)
        || !gst_buffer_pool_set_config (pool, config)) {
      gst_object_unref (pool);
      pool = gst_video_buffer_pool_new ();
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_set_params (config, caps, self->info.size, 0, 0);
      gst_buffer_pool_set_config (pool, config);
    }
  }
  gst_buffer_pool_set_active (pool, TRUE);
  self->pool = pool;
  gst_query_unref (query);
}

/* ---- the message ---------------------------------------------------------------- */

/* Sets `field` of `s` to an array of the `n` values at `values` (double,
 * int32 read as boolean, or uint64, by `type`). */
static void
take_array (GstStructure * s, const gchar * field, GType type,
    gconstpointer values, gint n)
{
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  gint k;

  gst_value_array_init (&arr, n);
  for (k = 0; k < n; k++) {
    g_value_init (&v, type);
    if (type == G_TYPE_DOUBLE)
      g_value_set_double (&v, ((const double *) values)[k]);
    else if (type == G_TYPE_BOOLEAN)
      g_value_set_boolean (&v, ((const int32_t *) values)[k] != 0);
    else
      g_value_set_uint64 (&v, ((const uint64_t *) values)[k]);
    gst_value_array_append_and_take_value (&arr, &v);
  }
  gst_structure_take_value (s, field, &arr);
}

static void
post_result (GstFrameStack * self, GstBuffer * outbuf,
    const DMFrameStackResult * r)
{
  GstClockTime ts = GST_BUFFER_PTS (outbuf);
  GstStructure *s;
  guint64 border = 0;
  gint k;

  /* pixels stacked from fewer than all frames */
  for (k = 0; k < r->n_frames; k++)
    border += r->sample_counts[k];
  s = gst_structure_new ("framestack",
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (&self->segment, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (&self->segment, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (outbuf),
      "frames", G_TYPE_INT, r->n_frames,
      "min-samples", G_TYPE_INT, r->min_samples,
      "border-pixels", G_TYPE_UINT64, border,
      "full-x", G_TYPE_INT, r->full_x, "full-y", G_TYPE_INT, r->full_y,
      "full-width", G_TYPE_INT, r->full_width,
      "full-height", G_TYPE_INT, r->full_height, NULL);
  take_array (s, "shift-x", G_TYPE_DOUBLE, r->shift_x, r->n_frames);
  take_array (s, "shift-y", G_TYPE_DOUBLE, r->shift_y, r->n_frames);
  take_array (s, "registered", G_TYPE_BOOLEAN, r->registered, r->n_frames);
  take_array (s, "frame-timestamps", G_TYPE_UINT64, r->frame_pts,
      r->n_frames);
  take_array (s, "sample-counts", G_TYPE_UINT64, r->sample_counts,
      r->n_frames + 1);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* ---- pushing a stack ------------------------------------------------------------ */

GstFlowReturn
gst_frame_stack_push_stack (GstFrameStack * self)
{
  DMFrameStackSettings settings;
  DMFrameStackResult result = { 0 };
  GstVideoFrame oframe;
  GstBuffer *outbuf = NULL;
  DMRGBImage out;
  gboolean post;
  GstFlowReturn ret;

  settings = gst_frame_stack_copy_settings (self, &post);
  if (self->pool)
    ret = gst_buffer_pool_acquire_buffer (self->pool, &outbuf, NULL);
  else {
    outbuf = gst_buffer_new_allocate (NULL, self->info.size, NULL);
    ret = outbuf ? GST_FLOW_OK : GST_FLOW_ERROR;
  }
  if (ret != GST_FLOW_OK) {
    dm_state_reset (self->state);
    return ret;
  }
  if (!gst_video_frame_map (&oframe, &self->info, outbuf, GST_MAP_WRITE)) {
    gst_buffer_unref (outbuf);
    dm_state_reset (self->state);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  result.shift_x = self->shift_x;
  result.shift_y = self->shift_y;
  result.registered = self->registered;
  result.frame_pts = self->frame_pts;
  result.sample_counts = self->sample_counts;
  out = dm_rgb_image_from_frame (&oframe);
  if (!dm_framestack_render (self->state, &settings, &out, &result)) {
    gst_video_frame_unmap (&oframe);
    gst_buffer_unref (outbuf);
    dm_state_reset (self->state);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("framestack could not stack its frames into the output picture."),
        ("output %dx%d %s", GST_VIDEO_INFO_WIDTH (&self->info),
            GST_VIDEO_INFO_HEIGHT (&self->info),
            GST_VIDEO_INFO_NAME (&self->info)));
    return GST_FLOW_ERROR;
  }
  gst_video_frame_unmap (&oframe);

  GST_BUFFER_PTS (outbuf) = result.pts;
  GST_BUFFER_DTS (outbuf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (outbuf) = result.duration;
  if (self->discont) {
    GST_BUFFER_FLAG_SET (outbuf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
  }
  GST_LOG_OBJECT (self, "stack of %d frames at %" GST_TIME_FORMAT
      " duration %" GST_TIME_FORMAT ", min samples %d", result.n_frames,
      GST_TIME_ARGS (result.pts), GST_TIME_ARGS (result.duration),
      result.min_samples);
  if (post)
    post_result (self, outbuf, &result);
  return gst_pad_push (self->srcpad, outbuf);
}

GstFlowReturn
gst_frame_stack_drain (GstFrameStack * self)
{
  if (self->state && self->have_info && self->mode == DM_FS_MODE_BATCH
      && dm_framestack_pending (self->state) > 0)
    return gst_frame_stack_push_stack (self);
  return GST_FLOW_OK;
}
