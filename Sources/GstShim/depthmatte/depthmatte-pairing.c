/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthmatte-pairing.c: colour and depth paired by running time.
 *
 * The base class gives each output the newest frame of every pad, so a slow
 * branch would key colour with depth of another moment. Instead the newest
 * colour frame with a depth frame near its own time is keyed (a slow branch
 * delivers one late: the other's frame of that time is still in its
 * history); with none that close, the last good pairing again, never one of
 * mixed times. Depth and person frames are kept as they arrive on their
 * pads (a pad probe, upstream's thread, under the input's lock); colour
 * frames as the aggregate sees them (streaming thread). The person
 * probability of the keyed colour frame is the one nearest its time within
 * the same tolerance; with none that close the frame is keyed by depth
 * alone (a mask of another moment would cut the moving person).
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

static void
arrivals_init (DMArrivals * a, guint cap)
{
  g_mutex_init (&a->lock);
  gst_segment_init (&a->segment, GST_FORMAT_UNDEFINED);
  a->history.cap = cap;
  a->history.f = g_new0 (DMHeldFrame, cap);
}

static void
arrivals_clear (DMArrivals * a)
{
  g_mutex_lock (&a->lock);
  history_clear (&a->history);
  g_mutex_unlock (&a->lock);
}

static void
arrivals_free (DMArrivals * a)
{
  arrivals_clear (a);
  g_mutex_clear (&a->lock);
  g_free (a->history.f);
}

void
gst_depth_matte_pairing_clear (GstDepthMatte * self)
{
  history_clear (&self->colour_history);
  arrivals_clear (&self->depth);
  arrivals_clear (&self->person);
  held_clear (&self->pair_colour);
  held_clear (&self->pair_depth);
  held_clear (&self->pair_person);
  self->holding = FALSE;
}

void
gst_depth_matte_pairing_init (GstDepthMatte * self)
{
  self->colour_history.cap = DM_COLOUR_HISTORY;
  self->colour_history.f = g_new0 (DMHeldFrame, DM_COLOUR_HISTORY);
  arrivals_init (&self->depth, DM_DEPTH_HISTORY);
  arrivals_init (&self->person, DM_PERSON_HISTORY);
}

void
gst_depth_matte_pairing_free (GObject * object)
{
  GstDepthMatte *self = GST_DEPTH_MATTE (object);

  held_clear (&self->pair_colour);
  held_clear (&self->pair_depth);
  held_clear (&self->pair_person);
  history_clear (&self->colour_history);
  g_free (self->colour_history.f);
  arrivals_free (&self->depth);
  arrivals_free (&self->person);
}

guint
gst_depth_matte_depth_frames_held (GstDepthMatte * self)
{
  guint frames;
  g_mutex_lock (&self->depth.lock);
  frames = self->depth.history.n;
  g_mutex_unlock (&self->depth.lock);
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

/* ---- the depth and person pads --------------------------------------------------- */

/* Every frame as it arrives on the depth or person pad (upstream's thread):
 * a frame arriving after its output time is dropped by the base class
 * before it becomes the pad's current frame, yet it is the one a colour
 * frame of that time needs. */
static GstPadProbeReturn
arrivals_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  DMArrivals *a = user_data;

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT) {
      const GstSegment *seg;
      gst_event_parse_segment (ev, &seg);
      g_mutex_lock (&a->lock);
      gst_segment_copy_into (seg, &a->segment);
      g_mutex_unlock (&a->lock);
    } else if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      /* the layout once per caps, not per frame */
      GstCaps *caps;
      gst_event_parse_caps (ev, &caps);
      g_mutex_lock (&a->lock);
      a->info_valid = gst_video_info_from_caps (&a->info, caps);
      g_mutex_unlock (&a->lock);
    }
  } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
    g_mutex_lock (&a->lock);
    if (a->info_valid && GST_BUFFER_PTS_IS_VALID (buf)
        && a->segment.format == GST_FORMAT_TIME) {
      GstClockTime rt = gst_segment_to_running_time (&a->segment,
          GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
      if (GST_CLOCK_TIME_IS_VALID (rt))
        history_add (&a->history, buf, &a->info, rt, TRUE);
    }
    g_mutex_unlock (&a->lock);
  }
  return GST_PAD_PROBE_OK;
}

void
gst_depth_matte_watch_pad (GstDepthMatte * self, GstPad * pad,
    DMInputIndex input)
{
  DMArrivals *a = input == DM_INPUT_PERSON ? &self->person : &self->depth;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER
      | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, arrivals_probe, a, NULL);
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
  for (i = 0; i < self->depth.history.n; i++)
    if (GST_CLOCK_TIME_IS_VALID (self->depth.history.f[i].duration))
      longest = MAX (longest, self->depth.history.f[i].duration);
  if (longest == 0)
    longest = GST_SECOND / 30;
  return longest / 2 + 5 * GST_MSECOND;
}

static inline GstClockTime
rt_distance (const DMHeldFrame * a, const DMHeldFrame * b)
{
  return a->rt > b->rt ? a->rt - b->rt : b->rt - a->rt;
}

/* The frame of `h` nearest in time to `c`, if within `tol`; else NULL. */
static DMHeldFrame *
nearest_within (DMHistory * h, const DMHeldFrame * c, GstClockTime tol)
{
  DMHeldFrame *best = NULL;
  GstClockTime best_d = GST_CLOCK_TIME_NONE;
  guint j;
  for (j = 0; j < h->n; j++) {
    GstClockTime diff = rt_distance (c, &h->f[j]);
    if (!best || diff < best_d) {
      best = &h->f[j];
      best_d = diff;
    }
  }
  return best && best_d <= tol ? best : NULL;
}

/* A person stream that has not ended and whose newest frame is at most this
 * much older than the newest colour frame is waited for by the pairing (a
 * model a frame or two behind its colour); one that stops delivering holds
 * the colour back no longer than this. */
#define PERSON_WAIT (100 * GST_MSECOND)

/* The newest colour frame that has a depth frame within `tol` of its time,
 * and that depth frame (the nearest); while a linked person stream delivers,
 * the newest colour frame that also has its person frame within `tol`
 * (a model's mask leaves after its colour frame: the colour frame of one
 * moment earlier is keyed with depth and mask of its own time rather than
 * the newest without its mask). FALSE when no colour frame has depth. */
static gboolean
pairing_choose (GstDepthMatte * self, GstClockTime tol, gboolean person_live,
    DMHeldFrame ** colour, DMHeldFrame ** depth)
{
  gint i, pass;
  gboolean person;
  DMHistory *ch = &self->colour_history;

  g_mutex_lock (&self->person.lock);
  person = person_live && ch->n > 0 && self->person.history.n > 0
      && self->person.history.f[self->person.history.n - 1].rt +
      PERSON_WAIT >= ch->f[ch->n - 1].rt;
  for (pass = person ? 0 : 1; pass < 2; pass++) {
    for (i = (gint) ch->n - 1; i >= 0; i--) {
      DMHeldFrame *c = &ch->f[i], *d = nearest_within (&self->depth.history,
          c, tol);
      if (d && (pass == 1 || nearest_within (&self->person.history, c, tol))) {
        g_mutex_unlock (&self->person.lock);
        *colour = c;
        *depth = d;
        return TRUE;
      }
    }
  }
  g_mutex_unlock (&self->person.lock);
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
    for (j = 0; j < self->depth.history.n; j++) {
      DMHeldFrame *c = &self->colour_history.f[i], *d = &self->depth.history.f[j];
      GstClockTime diff = rt_distance (c, d);
      if (!GST_CLOCK_TIME_IS_VALID (best) || diff <= best) {
        best = diff;
        *colour = c;
        *depth = d;
      }
    }
  return GST_CLOCK_TIME_IS_VALID (best);
}

/* The pairing for this output, from the histories (depth.lock held). A
 * depth input that has ended is held on purpose (a depth still, one frame;
 * a truncated recording, warned about): a colour frame past its end is
 * keyed with its last frame, as before pairing. */
static void
pairing_update (GstDepthMatte * self, GstClockTime tol, gboolean depth_ended,
    gboolean person_live)
{
  DMHeldFrame *c = NULL, *d = NULL;

  if (pairing_choose (self, tol, person_live, &c, &d)) {
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
  gboolean person_live = FALSE;
  GstVideoAggregatorPad *ppad;

  GST_OBJECT_LOCK (self);
  ppad = self->pads[DM_INPUT_PERSON] ?
      gst_object_ref (self->pads[DM_INPUT_PERSON]) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (ppad) {
    person_live = !gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (ppad));
    gst_object_unref (ppad);
  }

  history_push (&self->colour_history, video->pad, video->frame, TRUE);
  g_mutex_lock (&self->depth.lock);
  if (self->depth.history.n == 0)
    history_push (&self->depth.history, depth->pad, depth->frame, FALSE);
  pairing_update (self, pairing_tolerance (self, sync_tolerance), depth_ended,
      person_live);
  g_mutex_unlock (&self->depth.lock);

  use_held (&self->pair_colour, video);
  use_held (&self->pair_depth, depth);
  return self->pair_colour.buf ? &self->pair_colour : NULL;
}

void
gst_depth_matte_pair_person (GstDepthMatte * self, GstClockTime colour_rt,
    DMInput * person, guint64 sync_tolerance)
{
  DMHeldFrame *best = NULL;
  GstClockTime best_d = GST_CLOCK_TIME_NONE, tol;
  guint i;

  person->frame = NULL;
  held_clear (&self->pair_person);
  if (!person->pad || !GST_CLOCK_TIME_IS_VALID (colour_rt))
    return;
  g_mutex_lock (&self->depth.lock);
  tol = pairing_tolerance (self, sync_tolerance);
  g_mutex_unlock (&self->depth.lock);
  g_mutex_lock (&self->person.lock);
  for (i = 0; i < self->person.history.n; i++) {
    DMHeldFrame *p = &self->person.history.f[i];
    GstClockTime diff = p->rt > colour_rt ? p->rt - colour_rt :
        colour_rt - p->rt;
    if (!best || diff < best_d) {
      best = p;
      best_d = diff;
    }
  }
  if (best && best_d <= tol)
    held_copy (&self->pair_person, best);
  g_mutex_unlock (&self->person.lock);
  if (self->pair_person.buf && gst_video_frame_map (&person->paired,
          &self->pair_person.info, self->pair_person.buf, GST_MAP_READ)) {
    person->frame = &person->paired;
    person->paired_mapped = TRUE;
  }
}
