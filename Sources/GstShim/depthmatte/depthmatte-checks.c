/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthmatte-checks.c: what depthmatte says about its inputs and each keyed
 * frame (streaming thread): unmappable, stalled, ended and missing inputs,
 * the presence and lock logs, and the per-frame bus message. */
#include "depthmatte-private.h"
#include "element.h"

/* A live depth or background input whose newest frame ended this long before
 * the output time has stalled (its last frame keeps being used). */
#define STALL_THRESHOLD (500 * GST_MSECOND)
/* An input that ended (EOS) while the video goes on is held; after this
 * long that is worth a warning. */
#define ENDED_THRESHOLD GST_SECOND
/* cutoff changes below this (metres) are not logged (smoothing, noise) */
#define LOG_CUTOFF_STEP 0.03

/* ---- checks and logs ----------------------------------------------------------- */

/* An input buffer the base class could not map (smaller than its caps say)
 * leaves the pad with a current buffer but no prepared frame: the element
 * never reads it. Say so once per input instead of failing silently. */
void
gst_depth_matte_check_unmappable (GstDepthMatte * self, const DMInput * in, DMInputIndex index)
{
  const gchar *role = gst_depth_matte_input_role (index);
  GstVideoAggregatorPad *pad = in->pad;
  GstBuffer *buf;
  gsize size, want;

  if (!pad || in->frame)
    return;
  buf = gst_video_aggregator_pad_get_current_buffer (pad);
  if (!buf)
    return;
  size = gst_buffer_get_size (buf);
  if (size == 0 && GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return;
  if (self->warned_unmappable & DM_INPUT_BIT (index))
    return;
  self->warned_unmappable |= DM_INPUT_BIT (index);
  want = GST_VIDEO_INFO_SIZE (&pad->info);
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("A %s buffer could not be mapped and was dropped.", role),
      ("The %s buffer has %" G_GSIZE_FORMAT " bytes, its caps (%dx%d %s) "
          "need %" G_GSIZE_FORMAT "; treated as no %s frame (warned once)",
          role, size, GST_VIDEO_INFO_WIDTH (&pad->info),
          GST_VIDEO_INFO_HEIGHT (&pad->info),
          gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&pad->info)),
          want, role));
}

/* The running time at which the input's current buffer ends, or NONE. */
static GstClockTime
current_end_rt (GstVideoAggregatorPad * pad)
{
  GstBuffer *buf = gst_video_aggregator_pad_get_current_buffer (pad);
  GstClockTime end;

  if (!buf || !GST_BUFFER_PTS_IS_VALID (buf))
    return GST_CLOCK_TIME_NONE;
  end = GST_BUFFER_PTS (buf);
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    end += GST_BUFFER_DURATION (buf);
  return gst_depth_matte_pad_running_time (pad, end);
}

/* A depth stream that ended early (a truncated recording) is held: say so
 * once it has been held for a second while the video flows (a depth still,
 * one frame, and a background picture are held on purpose). */
static void
check_ended (GstDepthMatte * self, DMInputIndex index, GstClockTime end_rt,
    GstClockTime out_rt)
{
  const gchar *role = gst_depth_matte_input_role (index);
  guint bit = DM_INPUT_BIT (index);
  guint frames = gst_depth_matte_depth_frames_held (self);

  if (bit == INPUT_DEPTH && frames >= 2 && end_rt + ENDED_THRESHOLD < out_rt
      && !(self->stalled & bit)) {
    self->stalled |= bit;
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("The %s input ended: keying with its last frame.", role),
        ("The last %s frame ended at running time %" GST_TIME_FORMAT
            ", the output is at %" GST_TIME_FORMAT " and the video goes on",
            role, GST_TIME_ARGS (end_rt), GST_TIME_ARGS (out_rt)));
  }
}

/* A depth or background input that stopped delivering (without EOS) keeps
 * its last frame in use; warn when that frame is STALL_THRESHOLD old, and
 * again after it recovers and stalls anew. */
void
gst_depth_matte_check_stalled (GstDepthMatte * self, const DMInput * in, DMInputIndex index,
    GstClockTime out_rt)
{
  const gchar *role = gst_depth_matte_input_role (index);
  guint bit = DM_INPUT_BIT (index);
  GstClockTime end_rt;

  if (!in->pad || !GST_CLOCK_TIME_IS_VALID (out_rt))
    return;
  end_rt = current_end_rt (in->pad);
  if (!GST_CLOCK_TIME_IS_VALID (end_rt))
    return;
  if (gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (in->pad))) {
    check_ended (self, index, end_rt, out_rt);
    return;
  }
  if (end_rt + STALL_THRESHOLD < out_rt) {
    if (!(self->stalled & bit)) {
      self->stalled |= bit;
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("The %s input stalled: %s.", role, bit == INPUT_DEPTH
              ? "repeating the last colour frame keyed with depth of its own "
              "time" : "keying with its last frame"),
          ("The newest %s frame ended at running time %" GST_TIME_FORMAT
              ", the output is at %" GST_TIME_FORMAT, role,
              GST_TIME_ARGS (end_rt), GST_TIME_ARGS (out_rt)));
    }
  } else if (self->stalled & bit) {
    self->stalled &= ~bit;
    GST_INFO_OBJECT (self, "the %s input recovered", role);
  }
}

/* A linked person pad with no frame near the colour's time (stalled, ended,
 * or never started) leaves the matte to depth alone: a WARNING once it has
 * lasted STALL_THRESHOLD, INFO when person frames come back. */
void
gst_depth_matte_check_person (GstDepthMatte * self, const DMInput * person,
    GstClockTime out_rt)
{
  const gchar *why;

  if (!person->pad || !GST_CLOCK_TIME_IS_VALID (out_rt))
    return;
  if (person->frame) {
    if (self->stalled & INPUT_PERSON)
      GST_INFO_OBJECT (self, "the person input recovered: fusing again");
    self->stalled &= ~INPUT_PERSON;
    self->person_missing_since = GST_CLOCK_TIME_NONE;
    return;
  }
  if (!GST_CLOCK_TIME_IS_VALID (self->person_missing_since))
    self->person_missing_since = out_rt;
  if ((self->stalled & INPUT_PERSON)
      || out_rt < self->person_missing_since + STALL_THRESHOLD)
    return;
  self->stalled |= INPUT_PERSON;
  why = gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (person->pad)) ?
      "ended" : gst_video_aggregator_pad_get_current_buffer (person->pad) ?
      "stalled" : "has sent no frame";
  GST_ELEMENT_WARNING (self, STREAM, FAILED,
      ("The person input %s: keying by depth alone.", why),
      ("No person frame within the pairing tolerance of the colour since "
          "running time %" GST_TIME_FORMAT " (output at %" GST_TIME_FORMAT
          ")", GST_TIME_ARGS (self->person_missing_since),
          GST_TIME_ARGS (out_rt)));
}

/* INFO when an input starts or stops having a frame for the output time
 * (transitions only; the once-only warnings say what it means). */
void
gst_depth_matte_log_presence (GstDepthMatte * self, const DMInput * in, DMInputIndex index,
    GstClockTime pts)
{
  const gchar *role = gst_depth_matte_input_role (index);
  guint bit = DM_INPUT_BIT (index);
  gboolean now = in->frame != NULL;
  gboolean before = (self->present & bit) != 0;

  if (now == before || !in->pad)
    return;
  if (now) {
    self->present |= bit;
    GST_INFO_OBJECT (self, "%s frames present from %" GST_TIME_FORMAT, role,
        GST_TIME_ARGS (pts));
  } else {
    self->present &= ~bit;
    GST_INFO_OBJECT (self, "no %s frame for the output at %" GST_TIME_FORMAT
        "%s", role, GST_TIME_ARGS (pts),
        gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (in->pad)) ? " (eos)" :
        "");
  }
}

/* What a user debugging the lock needs, from consecutive results: INFO when
 * the lock source changes (with the face box and depth that set it), DEBUG
 * when the cutoff moves by more than LOG_CUTOFF_STEP. Nothing per frame. */
void
gst_depth_matte_log_lock (GstDepthMatte * self, const DMDepthMatteResult * r, gint n_faces,
    GstClockTime pts)
{
  if (r->lock_source != self->logged_lock) {
    if (r->face_found)
      GST_INFO_OBJECT (self, "lock %s -> %s at %" GST_TIME_FORMAT
          ": face box %dx%d at (%d,%d) of %d, face depth %.3f m, "
          "cutoff %.3f m", self->logged_lock < 0 ? "none" :
          gst_depth_matte_lock_source_name (self->logged_lock),
          gst_depth_matte_lock_source_name (r->lock_source), GST_TIME_ARGS (pts),
          r->face_box.width, r->face_box.height, r->face_box.x,
          r->face_box.y, n_faces, r->face_depth, r->cutoff);
    else
      GST_INFO_OBJECT (self, "lock %s -> %s at %" GST_TIME_FORMAT
          ": cutoff %.3f m (%d face boxes)", self->logged_lock < 0 ? "none" :
          gst_depth_matte_lock_source_name (self->logged_lock),
          gst_depth_matte_lock_source_name (r->lock_source), GST_TIME_ARGS (pts), r->cutoff,
          n_faces);
    self->logged_lock = r->lock_source;
    self->logged_cutoff = r->cutoff;
  } else if (ABS (r->cutoff - self->logged_cutoff) > LOG_CUTOFF_STEP) {
    GST_DEBUG_OBJECT (self, "cutoff %.3f -> %.3f m at %" GST_TIME_FORMAT
        " (lock %s, face depth %.3f m)", self->logged_cutoff, r->cutoff,
        GST_TIME_ARGS (pts), gst_depth_matte_lock_source_name (r->lock_source),
        r->face_depth);
    self->logged_cutoff = r->cutoff;
  }
}

void
gst_depth_matte_post_result (GstDepthMatte * self, GstBuffer * outbuf,
    const DMDepthMatteResult * r)
{
  GstSegment *seg = gst_depth_matte_output_segment (self);
  GstClockTime ts = GST_BUFFER_PTS (outbuf);
  GstStructure *s;

  s = gst_structure_new ("depthmatte",
      "timestamp", G_TYPE_UINT64, ts,
      "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (seg, GST_FORMAT_TIME, ts),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (seg, GST_FORMAT_TIME, ts),
      "duration", G_TYPE_UINT64, GST_BUFFER_DURATION (outbuf),
      "face-found", G_TYPE_BOOLEAN, r->face_found != 0,
      "face-depth", G_TYPE_DOUBLE, r->face_depth,
      "cutoff", G_TYPE_DOUBLE, r->cutoff,
      "keyed-cutoff", G_TYPE_DOUBLE, r->keyed_cutoff,
      "coverage", G_TYPE_DOUBLE, r->coverage,
      "lock", G_TYPE_STRING, gst_depth_matte_lock_source_name (r->lock_source),
      "camera-moving", G_TYPE_BOOLEAN, r->camera_moving != 0,
      "camera-shift-x", G_TYPE_DOUBLE, r->camera_shift_x,
      "camera-shift-y", G_TYPE_DOUBLE, r->camera_shift_y,
      "person", G_TYPE_BOOLEAN, r->person_used != 0, NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

