/* depthmatte-pairing.c: colour and depth paired by running time.
 *
 * The base class gives each output the newest frame of every pad, so a slow
 * branch would key colour with depth of another moment. Instead the newest
 * colour frame with a depth frame near its own time is keyed (a slow branch
 * delivers one late: the other's frame of that time is still in its
 * history); with none that close, the last good pairing again, never one of
 * mixed times. Depth frames are kept as they arrive on the depth pad (a pad
 * probe, upstream's thread, under depth_lock); colour frames as the
 * aggregate sees them (streaming thread).
 */
#include <string.h>
#include "depthmatte-private.h"

/* ---- held frames and histories ---------------------------------------------- */

static void
held_clear (DMHeldFrame * h)
{
  gst_clear_buffer (&h->buf);
  h->rt = GST_CLOCK_TIME_NONE;
}

static void
held_copy (DMHeldFrame * dst, const DMHeldFrame * src)
{
  GstBuffer *old = dst->buf;
  *dst = *src;
  if (dst->buf)
    gst_buffer_ref (dst->buf);
  if (old)
    gst_buffer_unref (old);
}

static void
history_clear (DMHistory * h)
{
  guint i;
  for (i = 0; i < h->n; i++)
    held_clear (&h->f[i]);
  h->n = 0;
}

void
gst_depth_matte_pairing_clear (GstDepthMatte * self)
{
  history_clear (&self->colour_history);
  g_mutex_lock (&self->depth_lock);
  history_clear (&self->depth_history);
  g_mutex_unlock (&self->depth_lock);
  held_clear (&self->pair_colour);
  held_clear (&self->pair_depth);
  self->holding = FALSE;
}

void
gst_depth_matte_pairing_init (GstDepthMatte * self)
{
  g_mutex_init (&self->depth_lock);
  gst_segment_init (&self->depth_segment, GST_FORMAT_UNDEFINED);
  self->colour_history.cap = DM_COLOUR_HISTORY;
  self->colour_history.f = g_new0 (DMHeldFrame, DM_COLOUR_HISTORY);
  self->depth_history.cap = DM_DEPTH_HISTORY;
  self->depth_history.f = g_new0 (DMHeldFrame, DM_DEPTH_HISTORY);
}

void
gst_depth_matte_pairing_free (GObject * object)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (object);

  gst_depth_matte_pairing_clear (self);
  g_mutex_clear (&self->depth_lock);
  g_free (self->colour_history.f);
  g_free (self->depth_history.f);
}

guint
gst_depth_matte_depth_frames_held (GstDepthMatte * self)
{
  guint frames;
  g_mutex_lock (&self->depth_lock);
  frames = self->depth_history.n;
  g_mutex_unlock (&self->depth_lock);
  return frames;
}

gint
gst_depth_matte_collect_faces (GstBuffer * buf, DMBox * boxes)
{
  gpointer state = NULL;
  GstMeta *meta;
  gint n = 0;
  GQuark face = g_quark_from_static_string ("face");

  if (!buf)
    return 0;
  while (n < DM_MAX_FACES && (meta = gst_buffer_iterate_meta_filtered (buf,
              &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    if (roi->roi_type != face)
      continue;
    boxes[n].x = roi->x;
    boxes[n].y = roi->y;
    boxes[n].width = roi->w;
    boxes[n].height = roi->h;
    n++;
  }
  return n;
}

/* Adds a frame at running time `rt` unless the newest kept has that time;
 * the oldest goes when the history is full. `copy`: a deep copy (a camera's
 * buffer pool is not starved by a long history), else a reference. */
static DMHeldFrame *
history_add (DMHistory * h, GstBuffer * buf, const GstVideoInfo * info,
    GstClockTime rt, gboolean copy)
{
  DMHeldFrame *e;
  if (h->n > 0 && h->f[h->n - 1].rt == rt)
    return NULL;
  if (h->n == h->cap) {
    held_clear (&h->f[0]);
    memmove (&h->f[0], &h->f[1], (h->cap - 1) * sizeof (DMHeldFrame));
    h->n--;
  }
  e = &h->f[h->n++];
  e->buf = copy ? gst_buffer_copy_deep (buf) : gst_buffer_ref (buf);
  e->info = *info;
  e->rt = rt;
  e->duration = GST_BUFFER_DURATION (buf);
  e->n_faces = 0;
  return e;
}

/* Adds the pad's current (prepared) frame to the history when it is a new
 * one (another running time than the newest kept). */
static void
history_push (DMHistory * h, GstVideoAggregatorPad * pad, GstVideoFrame * frame,
    gboolean faces)
{
  GstBuffer *cur;
  GstClockTime rt;
  DMHeldFrame *e;

  if (!pad || !frame)
    return;
  cur = gst_video_aggregator_pad_get_current_buffer (pad);
  if (!cur || !GST_BUFFER_PTS_IS_VALID (cur))
    return;
  rt = gst_depth_matte_pad_running_time (pad, GST_BUFFER_PTS (cur));
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return;
  e = history_add (h, frame->buffer, &frame->info, rt, FALSE);
  if (e) {
    e->duration = GST_BUFFER_DURATION (cur);
    e->n_faces = faces ? gst_depth_matte_collect_faces (cur, e->faces) : 0;
  }
}

GstClockTime
gst_depth_matte_pad_running_time (GstVideoAggregatorPad * pad, GstClockTime ts)
{
  const GstSegment *seg = &GST_AGGREGATOR_PAD (pad)->segment;

  if (seg->format != GST_FORMAT_TIME)
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_running_time (seg, GST_FORMAT_TIME, ts);
}

/* ---- the depth pad ------------------------------------------------------------ */

/* Every depth frame as it arrives on the depth pad (upstream's thread): a
 * frame arriving after its output time is dropped by the base class before
 * it becomes the pad's current frame, yet it is the one a colour frame of
 * that time needs. */
static GstPadProbeReturn
depth_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (user_data);

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT) {
      const GstSegment *seg;
      gst_event_parse_segment (ev, &seg);
      g_mutex_lock (&self->depth_lock);
      gst_segment_copy_into (seg, &self->depth_segment);
      g_mutex_unlock (&self->depth_lock);
    } else if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      /* the layout once per caps, not per frame */
      GstCaps *caps;
      gst_event_parse_caps (ev, &caps);
      g_mutex_lock (&self->depth_lock);
      self->depth_info_valid = gst_video_info_from_caps (&self->depth_info, caps);
      g_mutex_unlock (&self->depth_lock);
    }
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
    g_mutex_lock (&self->depth_lock);
    if (self->depth_info_valid && GST_BUFFER_PTS_IS_VALID (buf)
        && self->depth_segment.format == GST_FORMAT_TIME) {
      GstClockTime rt = gst_segment_to_running_time (&self->depth_segment,
          GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
      if (GST_CLOCK_TIME_IS_VALID (rt))
        history_add (&self->depth_history, buf, &self->depth_info, rt, TRUE);
    }
    g_mutex_unlock (&self->depth_lock);
  }
  return GST_PAD_PROBE_OK;
}

void
gst_depth_matte_watch_depth_pad (GstDepthMatte * self, GstPad * pad)
{
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER
      | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, depth_probe, self, NULL);
}

/* ---- choosing a pairing ------------------------------------------------------- */

static GstClockTime
pairing_tolerance (GstDepthMatte * self, guint64 setting)
{
  GstClockTime longest = 0;
  guint i;
  if (setting > 0)
    return setting;
  /* half the longer frame duration of the two inputs, plus 5 ms */
  for (i = 0; i < self->colour_history.n; i++)
    if (GST_CLOCK_TIME_IS_VALID (self->colour_history.f[i].duration))
      longest = MAX (longest, self->colour_history.f[i].duration);
  for (i = 0; i < self->depth_history.n; i++)
    if (GST_CLOCK_TIME_IS_VALID (self->depth_history.f[i].duration))
      longest = MAX (longest, self->depth_history.f[i].duration);
  if (longest == 0)
    longest = GST_SECOND / 30;
  return longest / 2 + 5 * GST_MSECOND;
}

static inline GstClockTime
rt_distance (const DMHeldFrame * a, const DMHeldFrame * b)
{
  return a->rt > b->rt ? a->rt - b->rt : b->rt - a->rt;
}

/* The newest colour frame that has a depth frame within `tol` of its time,
 * and that depth frame (the nearest). FALSE when no colour frame has. */
static gboolean
pairing_choose (GstDepthMatte * self, GstClockTime tol, DMHeldFrame ** colour,
    DMHeldFrame ** depth)
{
  gint i;
  guint j;
  for (i = (gint) self->colour_history.n - 1; i >= 0; i--) {
    DMHeldFrame *c = &self->colour_history.f[i], *best = NULL;
    GstClockTime best_d = GST_CLOCK_TIME_NONE;
    for (j = 0; j < self->depth_history.n; j++) {
      DMHeldFrame *d = &self->depth_history.f[j];
      GstClockTime diff = rt_distance (c, d);
      if (!best || diff < best_d) {
        best = d;
        best_d = diff;
      }
    }
    if (best && best_d <= tol) {
      *colour = c;
      *depth = best;
      return TRUE;
    }
  }
  return FALSE;
}

/* The colour and depth frames closest in time of the two histories (before
 * any pairing within the tolerance: the first frames of a run). */
static gboolean
pairing_closest (GstDepthMatte * self, DMHeldFrame ** colour,
    DMHeldFrame ** depth)
{
  guint i, j;
  GstClockTime best = GST_CLOCK_TIME_NONE;
  for (i = 0; i < self->colour_history.n; i++)
    for (j = 0; j < self->depth_history.n; j++) {
      DMHeldFrame *c = &self->colour_history.f[i], *d = &self->depth_history.f[j];
      GstClockTime diff = rt_distance (c, d);
      if (!GST_CLOCK_TIME_IS_VALID (best) || diff <= best) {
        best = diff;
        *colour = c;
        *depth = d;
      }
    }
  return GST_CLOCK_TIME_IS_VALID (best);
}

/* The pairing for this output, from the histories (depth_lock held). A
 * depth input that has ended is held on purpose (a depth still, one frame;
 * a truncated recording, warned about): a colour frame past its end is
 * keyed with its last frame, as before pairing. */
static void
pairing_update (GstDepthMatte * self, GstClockTime tol, gboolean depth_ended)
{
  DMHeldFrame *c = NULL, *d = NULL;

  if (pairing_choose (self, tol, &c, &d)) {
    if (self->holding)
      GST_INFO_OBJECT (self, "colour at %" GST_TIME_FORMAT " paired with "
          "depth at %" GST_TIME_FORMAT " again", GST_TIME_ARGS (c->rt),
          GST_TIME_ARGS (d->rt));
    held_copy (&self->pair_colour, c);
    held_copy (&self->pair_depth, d);
    self->holding = FALSE;
  } else if (depth_ended) {
    held_clear (&self->pair_colour);
    held_clear (&self->pair_depth);
    self->holding = FALSE;
  } else if (!self->pair_colour.buf && pairing_closest (self, &c, &d)) {
    /* nothing paired yet: the two frames closest in time */
    held_copy (&self->pair_colour, c);
    held_copy (&self->pair_depth, d);
  } else if (self->pair_colour.buf) {
    if (!self->holding)
      GST_INFO_OBJECT (self, "no depth within %" GST_TIME_FORMAT " of the "
          "newest colour frames: repeating the last pairing (colour at %"
          GST_TIME_FORMAT ", depth at %" GST_TIME_FORMAT ")",
          GST_TIME_ARGS (tol), GST_TIME_ARGS (self->pair_colour.rt),
          GST_TIME_ARGS (self->pair_depth.rt));
    self->holding = TRUE;
  }
}

/* The input keys the held frame instead of its prepared frame when they
 * differ (and the held one maps). */
static void
use_held (const DMHeldFrame * held, DMInput * input)
{
  if (held->buf && held->buf != input->frame->buffer
      && gst_video_frame_map (&input->paired, &held->info, held->buf,
          GST_MAP_READ)) {
    input->frame = &input->paired;
    input->paired_mapped = TRUE;
  }
}

const DMHeldFrame *
gst_depth_matte_pair (GstDepthMatte * self, DMInput * video, DMInput * depth,
    guint64 sync_tolerance)
{
  gboolean depth_ended = gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD
      (depth->pad));

  history_push (&self->colour_history, video->pad, video->frame, TRUE);
  g_mutex_lock (&self->depth_lock);
  if (self->depth_history.n == 0)
    history_push (&self->depth_history, depth->pad, depth->frame, FALSE);
  pairing_update (self, pairing_tolerance (self, sync_tolerance), depth_ended);
  g_mutex_unlock (&self->depth_lock);

  use_held (&self->pair_colour, video);
  use_held (&self->pair_depth, depth);
  return self->pair_colour.buf ? &self->pair_colour : NULL;
}
