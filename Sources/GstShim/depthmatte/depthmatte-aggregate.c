/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthmatte-aggregate.c: one output frame of depthmatte (streaming thread).
 *
 * A pending flush is honoured, the settings are copied under the object
 * lock, each input's frame is taken and checked (unmappable, stalled,
 * present: depthmatte-checks.c), colour and depth are paired by time
 * (depthmatte-pairing.c), the mapped planes and the face boxes go to
 * dm_depthmatte_process() (Swift bridge), and the result is logged and
 * posted. No pixel work here.
 */
#include <string.h>
#include "depthmatte-private.h"
#include "element.h"
#include "rgbimage.h"

/* ---- the steps of one output frame --------------------------------------------- */

/* A FLUSH_STOP (sink_event, another thread) asked for a new lock and a new
 * pairing: the Swift state is reset here, on the streaming thread. */
static void
honour_flush (GstDepthMatte * self)
{
  if (g_atomic_int_compare_and_exchange (&self->flush_pending, 1, 0)) {
    if (self->state)
      dm_state_reset (self->state);
    gst_depth_matte_pairing_clear (self);
    self->keyed_video_pts = self->keyed_output_pts = GST_CLOCK_TIME_NONE;
  }
}

/* The settings and the pads in one go under the object lock, then each
 * pad's prepared frame (NULL: none for this output). */
static void
take_inputs (GstDepthMatte * self, DMDepthMatteSettings * settings,
    DMInput * in)
{
  guint i;

  GST_OBJECT_LOCK (self);
  *settings = self->settings;
  for (i = 0; i < DM_N_INPUTS; i++)
    in[i].pad = self->pads[i] ? gst_object_ref (self->pads[i]) : NULL;
  GST_OBJECT_UNLOCK (self);
  for (i = 0; i < DM_N_INPUTS; i++) {
    in[i].frame = in[i].pad ?
        gst_video_aggregator_pad_get_prepared_frame (in[i].pad) : NULL;
    in[i].paired_mapped = FALSE;
  }
}

static void
release_inputs (DMInput * in)
{
  guint i;

  for (i = 0; i < DM_N_INPUTS; i++)
    if (in[i].paired_mapped)
      gst_video_frame_unmap (&in[i].paired);
  for (i = 0; i < DM_N_INPUTS; i++)
    if (in[i].pad)
      gst_object_unref (in[i].pad);
}

static GstClockTime
output_running_time (GstDepthMatte * self, GstBuffer * outbuf)
{
  return GST_BUFFER_PTS_IS_VALID (outbuf) ?
      gst_segment_to_running_time (gst_depth_matte_output_segment (self), GST_FORMAT_TIME,
      GST_BUFFER_PTS (outbuf)) : GST_CLOCK_TIME_NONE;
}

static void
check_inputs (GstDepthMatte * self, const DMInput * in, GstBuffer * outbuf)
{
  GstClockTime pts = GST_BUFFER_PTS (outbuf);
  GstClockTime out_rt = output_running_time (self, outbuf);
  guint i;

  for (i = 0; i < DM_N_INPUTS; i++)
    gst_depth_matte_check_unmappable (self, &in[i], i);
  for (i = 0; i < DM_N_INPUTS; i++)
    if (i != DM_INPUT_PERSON)
      gst_depth_matte_log_presence (self, &in[i], i, pts);
  gst_depth_matte_check_stalled (self, &in[DM_INPUT_DEPTH], DM_INPUT_DEPTH, out_rt);
  gst_depth_matte_check_stalled (self, &in[DM_INPUT_BACKGROUND], DM_INPUT_BACKGROUND, out_rt);
}

/* The colour and its face boxes (the pairing's, else the pad's current
 * buffer's); a colour frame that cannot be mapped leaves the background
 * (no colour frame at all makes no output: create_output_buffer). */
static void
describe_video (GstDepthMatte * self, const DMInput * video,
    const DMHeldFrame * paired, DMDepthMatteFrame * frame, DMBox * faces)
{
  if (video->frame) {
    frame->video = dm_rgb_image_from_frame (video->frame);
    if (paired) {
      frame->n_faces = paired->n_faces;
      memcpy (faces, paired->faces, DM_MAX_FACES * sizeof (DMBox));
    } else {
      frame->n_faces = gst_depth_matte_collect_faces
          (gst_video_aggregator_pad_get_current_buffer (video->pad), faces);
    }
    frame->faces = faces;
  } else if (!self->warned_no_video
      && !(self->warned_unmappable & INPUT_VIDEO)) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("No video frame for this output time."),
        ("Producing a background-only frame"));
    self->warned_no_video = TRUE;
  }
}

/* A lock found in the depth (face, tracked, nearest) beyond FAR_LOCK_METRES,
 * or depth whose median reading lies beyond FAR_READING_METRES, where no depth
 * camera reads, is a unit mistake: depth-scale (metres per depth unit) off by
 * a factor of 1000 or so. Warned once. */
#define FAR_LOCK_METRES 20.0
#define FAR_READING_METRES 50.0
static void
check_far_lock (GstDepthMatte * self, const DMDepthMatteResult * r)
{
  gdouble scale, metres;
  const gchar *what;
  if (self->warned_far_lock)
    return;
  if (r->lock_source != 0 && r->cutoff > FAR_LOCK_METRES) {
    what = "The subject lock is at";
    metres = r->cutoff;
  } else if (r->depth_median > FAR_READING_METRES) {
    what = "The depth reads";
    metres = r->depth_median;
  } else {
    return;
  }
  GST_OBJECT_LOCK (self);
  scale = self->settings.depth_scale;
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_WARNING (self, STREAM, FAILED,
      ("%s %.0f m, beyond any depth camera's range: is depth-scale (%g "
          "metres per depth unit) right? A millimetre depth image takes "
          "0.001.", what, metres, scale),
      ("lock %s, cutoff %.3f m, median depth reading %.3f m",
          gst_depth_matte_lock_source_name (r->lock_source), r->cutoff, r->depth_median));
  self->warned_far_lock = TRUE;
}

/* The depth and its encoding. Colour without depth passes unkeyed, or is
 * keyed by the person mask when one comes: with no depth pad requested that
 * is what was asked for (no warning); a depth pad with no frame warns. */
static void
describe_depth (GstDepthMatte * self, const DMInput * depth,
    gboolean have_video, gboolean have_person, DMDepthMatteFrame * frame)
{
  if (depth->frame) {
    GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (depth->frame);
    frame->depth = dm_gray_image_from_frame (depth->frame);
    frame->has_depth = 1;
    frame->depth_eight_bit = format == GST_VIDEO_FORMAT_GRAY8;
    frame->depth_big_endian = format == GST_VIDEO_FORMAT_GRAY16_BE;
  } else if (have_video && !self->warned_no_depth
      && !(self->warned_unmappable & INPUT_DEPTH)
      && !(have_person && !depth->pad)) {
    if (have_person)
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("No depth frame: keying the video by the person mask alone."),
          ("The depth pad is linked but has no buffer yet"));
    else
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("No depth frame: passing the video through unkeyed."),
          ("The depth pad is %s; the matte is 1 everywhere until depth "
              "arrives", depth->pad ? "linked but has no buffer yet" :
              "not requested"));
    self->warned_no_depth = TRUE;
  }
}

static void
describe_background (const DMInput * background, DMDepthMatteFrame * frame)
{
  if (background->frame) {
    frame->background = dm_rgb_image_from_frame (background->frame);
    frame->has_background = 1;
  }
}

/* A person frame flagged GAP carries no probability (personmask without its
 * model): the frame is keyed by depth alone, as without a person pad. */
static void
describe_person (const DMInput * person, DMDepthMatteFrame * frame)
{
  if (person->frame && !GST_BUFFER_FLAG_IS_SET (person->frame->buffer,
          GST_BUFFER_FLAG_GAP)) {
    frame->person = dm_gray_image_from_frame (person->frame);
    frame->has_person = 1;
  }
}

/* The person frame of the keyed colour frame (the pairing's, else the video
 * pad's current buffer's time), checked and logged. */
static void
pair_person (GstDepthMatte * self, DMInput * in, const DMHeldFrame * paired,
    guint64 sync_tolerance, GstBuffer * outbuf)
{
  DMInput *video = &in[DM_INPUT_VIDEO], *person = &in[DM_INPUT_PERSON];
  GstClockTime colour_rt = GST_CLOCK_TIME_NONE;
  GstBuffer *cur;

  if (!person->pad)
    return;
  if (paired)
    colour_rt = paired->rt;
  else if (video->frame && (cur = gst_video_aggregator_pad_get_current_buffer
          (video->pad)) && GST_BUFFER_PTS_IS_VALID (cur))
    colour_rt = gst_depth_matte_pad_running_time (video->pad,
        GST_BUFFER_PTS (cur));
  gst_depth_matte_pair_person (self, colour_rt, person, sync_tolerance);
  gst_depth_matte_check_person (self, person, output_running_time (self, outbuf));
  gst_depth_matte_log_presence (self, person, DM_INPUT_PERSON, GST_BUFFER_PTS (outbuf));
}

/* The Swift call; the lock's clock is the output frame's duration. */
static void
process (GstDepthMatte * self, DMDepthMatteSettings * settings,
    GstBuffer * outbuf, const DMDepthMatteFrame * frame,
    DMDepthMatteResult * result)
{
  settings->frame_duration = GST_BUFFER_DURATION_IS_VALID (outbuf) ?
      (double) GST_BUFFER_DURATION (outbuf) / GST_SECOND : 0.0;
  if (!self->state)
    self->state = dm_depthmatte_new ();
  dm_depthmatte_process (self->state, settings, frame, result);
}

static void
report (GstDepthMatte * self, gboolean post, GstBuffer * outbuf,
    const DMInput * in, const DMDepthMatteFrame * frame,
    const DMDepthMatteResult * result)
{
  gst_depth_matte_log_lock (self, result, frame->n_faces, GST_BUFFER_PTS (outbuf));
  check_far_lock (self, result);
  GST_LOG_OBJECT (self, "frame %" GST_TIME_FORMAT ": video %s, depth %s, "
      "background %s, person %s, %d face boxes, lock %s, cutoff %.3f m, coverage %.3f",
      GST_TIME_ARGS (GST_BUFFER_PTS (outbuf)),
      in[DM_INPUT_VIDEO].frame ? "yes" : "no",
      in[DM_INPUT_DEPTH].frame ? "yes" : "no",
      in[DM_INPUT_BACKGROUND].frame ? "yes" : "no",
      in[DM_INPUT_PERSON].frame ? "yes" : "no", frame->n_faces,
      gst_depth_matte_lock_source_name (result->lock_source), result->cutoff,
      result->coverage);
  if (post)
    gst_depth_matte_post_result (self, outbuf, result);
}

/* Keys the inputs' frames into `outbuf`. */
static GstFlowReturn
key_frame (GstDepthMatte * self, DMDepthMatteSettings * settings,
    const DMInput * in, const DMHeldFrame * paired, GstBuffer * outbuf)
{
  GstVideoFrame oframe;
  DMDepthMatteFrame frame = { 0 };
  DMDepthMatteResult result = { 0 };
  DMBox faces[DM_MAX_FACES];

  if (!gst_video_frame_map (&oframe, &GST_VIDEO_AGGREGATOR (self)->info,
          outbuf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output buffer"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  frame.output = dm_rgb_image_from_frame (&oframe);
  describe_video (self, &in[DM_INPUT_VIDEO], paired, &frame, faces);
  if (in[DM_INPUT_VIDEO].frame) {
    self->keyed_video_pts = GST_BUFFER_PTS
        (gst_video_aggregator_pad_get_current_buffer (in[DM_INPUT_VIDEO].pad));
    self->keyed_output_pts = GST_BUFFER_PTS (outbuf);
  }
  describe_depth (self, &in[DM_INPUT_DEPTH], in[DM_INPUT_VIDEO].frame != NULL,
      in[DM_INPUT_PERSON].frame != NULL, &frame);
  describe_background (&in[DM_INPUT_BACKGROUND], &frame);
  describe_person (&in[DM_INPUT_PERSON], &frame);
  process (self, settings, outbuf, &frame, &result);
  gst_video_frame_unmap (&oframe);
  report (self, settings->post_messages, outbuf, in, &frame, &result);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_depth_matte_aggregate_frames (GstVideoAggregator * vagg,
    GstBuffer * outbuf)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (vagg);
  DMInput in[DM_N_INPUTS];
  DMInput *video = &in[DM_INPUT_VIDEO], *depth = &in[DM_INPUT_DEPTH];
  DMDepthMatteSettings settings;
  const DMHeldFrame *paired = NULL;
  GstFlowReturn ret;

  honour_flush (self);
  /* controlled properties (GstController) take their values for this frame */
  dm_props_sync (GST_OBJECT (self), gst_depth_matte_output_segment (self),
      GST_BUFFER_PTS (outbuf));
  take_inputs (self, &settings, in);
  check_inputs (self, in, outbuf);
  if (video->frame && depth->frame)
    paired = gst_depth_matte_pair (self, video, depth,
        settings.sync_tolerance);
  pair_person (self, in, paired, settings.sync_tolerance, outbuf);

  if (!video->frame && video->pad
      && gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (video->pad)))
    ret = GST_FLOW_EOS;         /* the video ended: so does the output */
  else
    ret = key_frame (self, &settings, in, paired, outbuf);
  release_inputs (in);
  return ret;
}

/* One output per colour frame, and none without one. With a video pad
 * linked: no output is made while the pad has no frame yet (before the first
 * colour frame), and once the pad is at EOS with no frame or with the frame
 * keyed into an earlier output, the output ends (a live aggregator still
 * waiting on another pad would key that frame once more under the next
 * output time, N colour frames in giving N + 1 out; an imagefreeze
 * background never ends on its own). The same output time again (a caps
 * change made the base class drop the output and aggregate it anew) is made.
 * Before EOS, a timeout repeats the last colour frame as compositor does, so
 * a loaded machine still gets one output per output time with rising
 * timestamps (skipping those leaves 16 outputs of 60 under a 3x CPU load). */
static GstFlowReturn
gst_depth_matte_create_output_buffer (GstVideoAggregator * vagg,
    GstBuffer ** outbuf)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (vagg);
  GstVideoAggregatorPad *vpad;
  GstBuffer *cur = NULL;
  gboolean eos = FALSE, keyed = FALSE;

  GST_OBJECT_LOCK (self);
  vpad = self->pads[DM_INPUT_VIDEO] ?
      gst_object_ref (self->pads[DM_INPUT_VIDEO]) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!vpad)
    goto make;
  cur = gst_video_aggregator_pad_get_current_buffer (vpad);
  eos = gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (vpad));
  keyed = cur && GST_CLOCK_TIME_IS_VALID (self->keyed_video_pts)
      && GST_BUFFER_PTS (cur) == self->keyed_video_pts
      && gst_depth_matte_output_segment (self)->position != GST_CLOCK_TIME_NONE
      && gst_depth_matte_output_segment (self)->position > self->keyed_output_pts;
  gst_object_unref (vpad);
  *outbuf = NULL;
  if (eos && (!cur || keyed)) {
    GST_DEBUG_OBJECT (self, "the video ended: so does the output");
    return GST_FLOW_EOS;
  }
  if (!cur) {
    GST_LOG_OBJECT (self, "no colour frame yet for the output at %"
        GST_TIME_FORMAT ": nothing made",
        GST_TIME_ARGS (gst_depth_matte_output_segment (self)->position));
    return GST_FLOW_OK;
  }
make:
  return GST_VIDEO_AGGREGATOR_CLASS (g_type_class_peek_parent
      (G_OBJECT_GET_CLASS (self)))->create_output_buffer (vagg, outbuf);
}

/* No buffer leaves without a timestamp: a muxer downstream stops the
 * recording on one ("Buffer has no PTS"). The base class stamps every
 * output with its output time; one without is dropped with a log line. */
static GstFlowReturn
gst_depth_matte_finish_buffer (GstAggregator * agg, GstBuffer * buffer)
{
  if (!GST_BUFFER_PTS_IS_VALID (buffer)) {
    GST_WARNING_OBJECT (agg, "an output without a timestamp: dropped");
    gst_buffer_unref (buffer);
    return GST_FLOW_OK;
  }
  return GST_AGGREGATOR_CLASS (g_type_class_peek_parent
      (G_OBJECT_GET_CLASS (agg)))->finish_buffer (agg, buffer);
}

void
gst_depth_matte_aggregate_class_init (GstVideoAggregatorClass * vagg_class)
{
  vagg_class->create_output_buffer =
      GST_DEBUG_FUNCPTR (gst_depth_matte_create_output_buffer);
  vagg_class->aggregate_frames =
      GST_DEBUG_FUNCPTR (gst_depth_matte_aggregate_frames);
  GST_AGGREGATOR_CLASS (vagg_class)->finish_buffer =
      GST_DEBUG_FUNCPTR (gst_depth_matte_finish_buffer);
}
