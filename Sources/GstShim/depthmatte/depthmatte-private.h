/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* depthmatte-private.h: what the depthmatte element's C files share (not
 * part of the shim/bridge contract, which is DMContract/include/depthmatte.h).
 *
 *   depthmatte.c          the type: enums, pad templates, pad request and
 *                         release, sink queries and events, start/stop,
 *                         properties, class and instance init
 *   depthmatte-caps.c     the video pad's conversion and the output caps
 *   depthmatte-pairing.c  the depth pad's history and the pairing of colour
 *                         and depth frames by running time
 *   depthmatte-aggregate.c  one output frame: inputs, checks, the Swift call,
 *                         logs and the element message
 * depthmatte.c calls the other three, and depthmatte-aggregate.c calls the
 * pairing; none calls back into its caller.
 */
#ifndef DM_DEPTHMATTE_PRIVATE_H
#define DM_DEPTHMATTE_PRIVATE_H
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideoaggregator.h>
#include "depthmatte.h"

G_GNUC_INTERNAL GST_DEBUG_CATEGORY_EXTERN (gst_depth_matte_debug);
#define GST_CAT_DEFAULT gst_depth_matte_debug

#define DM_MAX_FACES 32

#define GST_TYPE_DEPTH_MATTE (gst_depth_matte_get_type ())
G_DECLARE_FINAL_TYPE (GstDepthMatte, gst_depth_matte, GST, DEPTH_MATTE, GstVideoAggregator)

/* The inputs, each a request pad named after its role; also the order in
 * which they are checked and logged per frame. */
typedef enum
{
  DM_INPUT_VIDEO, DM_INPUT_DEPTH, DM_INPUT_BACKGROUND, DM_INPUT_PERSON,
  DM_N_INPUTS
} DMInputIndex;

/* An input's bit in the per-input masks (warned_unmappable, stalled, present). */
#define DM_INPUT_BIT(index) (1u << (index))

/* A frame kept for pairing colour and depth by time: the pad's prepared
 * frame's buffer (the colour pad's may be a converted copy), its layout,
 * its running time and (colour) the face boxes of the original buffer. */
typedef struct
{
  GstBuffer *buf;
  GstVideoInfo info;
  GstClockTime rt;
  GstClockTime duration;
  DMBox faces[DM_MAX_FACES];
  gint n_faces;
} DMHeldFrame;

#define DM_COLOUR_HISTORY 4
/* depth frames are copied (a camera's buffer pool is not starved): about
 * two seconds at 30 frames/s, 30 MB at 640x360 */
#define DM_DEPTH_HISTORY 64
/* person probabilities (GRAY8 at a model's size, 64 KB each) are copied
 * too: about a second at 30 frames/s */
#define DM_PERSON_HISTORY 32

typedef struct
{
  DMHeldFrame *f;               /* cap entries (allocated at init) */
  guint n, cap;
} DMHistory;

/* A side input whose every frame is kept as it arrives (a pad probe on
 * upstream's thread): its segment, layout and history under `lock`. */
typedef struct
{
  GMutex lock;
  GstSegment segment;
  GstVideoInfo info;            /* from the pad's caps event */
  gboolean info_valid;
  DMHistory history;
} DMArrivals;

struct _GstDepthMatte
{
  GstVideoAggregator parent;

  /* pads by DMInputIndex, guarded by the object lock; NULL until requested */
  GstVideoAggregatorPad *pads[DM_N_INPUTS];

  /* properties (depthmatte_properties.def), guarded by the object lock */
  DMDepthMatteSettings settings;

  /* streaming thread only */
  void *state;                  /* Swift DepthMatter */
  gboolean warned_no_depth;
  gboolean warned_far_lock;     /* lock beyond any depth camera's range */
  gboolean warned_no_video;
  guint warned_unmappable;      /* bit per input (DM_INPUT_BIT): warned once */
  guint stalled;                /* bit per input: stall warned, not recovered */
  GstClockTime keyed_video_pts; /* PTS of the video buffer keyed last and
                                 * of the output it was keyed into; NONE
                                 * before the first */
  GstClockTime keyed_output_pts;
  GstClockTime person_missing_since;  /* output running time from which the
                                 * linked person pad had no frame near the
                                 * colour's time; NONE while it has */

  /* debug log, streaming thread only (reset in start) */
  gint logged_lock;             /* lock source last logged; -1: none yet */
  gdouble logged_cutoff;        /* cutoff (m) last logged */
  guint present;                /* bit per input: had a frame last output */

  /* pairing by time, streaming thread only (cleared on start, flush, stop) */
  DMHistory colour_history;
  DMArrivals depth, person;     /* filled by the pads' probes as frames
                                 * arrive, before the base class drops a
                                 * late one */
  DMHeldFrame pair_colour, pair_depth;  /* the last good pairing (bufs ref'd) */
  DMHeldFrame pair_person;      /* the person frame of this output, if any */
  gboolean holding;             /* the last output repeated that pairing */
  gint flush_pending;           /* (atomic) a FLUSH_STOP arrived: reset the
                                 * lock and the pairing at the next frame */
  gint playing;                 /* (atomic) PLAYING, with its base time set */
};

/* One input of one output frame (streaming thread). */
typedef struct
{
  GstVideoAggregatorPad *pad;   /* a reference; NULL: not requested */
  GstVideoFrame *frame;         /* what is keyed: the pad's prepared frame or
                                 * `paired`; NULL: none for this output */
  GstVideoFrame paired;         /* a frame of the pairing, mapped here */
  gboolean paired_mapped;
} DMInput;

/* "video", "depth", "background", "person": the pad names, also used in
 * messages. */
static inline const gchar *
gst_depth_matte_input_role (DMInputIndex input)
{
  static const gchar *const roles[DM_N_INPUTS] =
      { "video", "depth", "background", "person" };
  return roles[input];
}

/* The input bits of DMInputIndex. */
#define INPUT_VIDEO DM_INPUT_BIT (DM_INPUT_VIDEO)
#define INPUT_DEPTH DM_INPUT_BIT (DM_INPUT_DEPTH)
#define INPUT_PERSON DM_INPUT_BIT (DM_INPUT_PERSON)

/* The lock source's name in logs and messages. */
static inline const gchar *
gst_depth_matte_lock_source_name (gint source)
{
  static const gchar *names[] = { "fixed", "face", "tracked", "nearest" };
  return source >= 0 && source < 4 ? names[source] : "fixed";
}

/* The output's segment. */
static inline GstSegment *
gst_depth_matte_output_segment (GstDepthMatte * self)
{
  return &GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD (self))->segment;
}

/* depthmatte-checks.c: the checks and logs of one output frame. */
G_GNUC_INTERNAL void gst_depth_matte_check_unmappable (GstDepthMatte * self,
    const DMInput * in, DMInputIndex index);
G_GNUC_INTERNAL void gst_depth_matte_check_stalled (GstDepthMatte * self,
    const DMInput * in, DMInputIndex index, GstClockTime out_rt);
G_GNUC_INTERNAL void gst_depth_matte_check_person (GstDepthMatte * self,
    const DMInput * person, GstClockTime out_rt);
G_GNUC_INTERNAL void gst_depth_matte_log_presence (GstDepthMatte * self,
    const DMInput * in, DMInputIndex index, GstClockTime pts);
G_GNUC_INTERNAL void gst_depth_matte_log_lock (GstDepthMatte * self,
    const DMDepthMatteResult * r, gint n_faces, GstClockTime pts);
G_GNUC_INTERNAL void gst_depth_matte_post_result (GstDepthMatte * self,
    GstBuffer * outbuf, const DMDepthMatteResult * r);

/* depthmatte-caps.c: the video pad's type (packed RGB is not converted) and
 * the class's output caps vfuncs. */
G_GNUC_INTERNAL GType gst_depth_matte_video_pad_get_type (void);
G_GNUC_INTERNAL GstFlowReturn gst_depth_matte_update_src_caps
    (GstAggregator * agg, GstCaps * downstream, GstCaps ** ret);
G_GNUC_INTERNAL GstCaps *gst_depth_matte_fixate_src_caps (GstAggregator * agg,
    GstCaps * caps);

/* depthmatte-aggregate.c: the class's aggregate_frames. */
G_GNUC_INTERNAL void gst_depth_matte_aggregate_class_init
    (GstVideoAggregatorClass * vagg_class);

/* depthmatte-pairing.c */
/* The running time of `ts` in `pad`'s segment, or GST_CLOCK_TIME_NONE when
 * that segment is not in TIME: a flush on the pad's streaming thread resets
 * it (FLUSH_STOP) while the source task may still hold the pad's current
 * buffer, and the next SEGMENT event has not come yet. */
G_GNUC_INTERNAL GstClockTime gst_depth_matte_pad_running_time
    (GstVideoAggregatorPad * pad, GstClockTime ts);
G_GNUC_INTERNAL void gst_depth_matte_pairing_init (GstDepthMatte * self);
/* The element's finalize hook (its element info's free_more). */
G_GNUC_INTERNAL void gst_depth_matte_pairing_free (GObject * object);
/* Drops the histories and the last pairing. */
G_GNUC_INTERNAL void gst_depth_matte_pairing_clear (GstDepthMatte * self);
/* Keeps every frame that arrives on `pad` (the depth or person pad) in
 * that input's history. */
G_GNUC_INTERNAL void gst_depth_matte_watch_pad (GstDepthMatte * self,
    GstPad * pad, DMInputIndex input);
/* How many depth frames the history holds. */
G_GNUC_INTERNAL guint gst_depth_matte_depth_frames_held (GstDepthMatte * self);
/* The face boxes among the ROI metas of `buf` (at most DM_MAX_FACES). */
G_GNUC_INTERNAL gint gst_depth_matte_collect_faces (GstBuffer * buf,
    DMBox * boxes);
/* Pairs the frames of `video` and `depth` (both present) by time, replacing
 * either's frame by a mapped frame of the pairing where it differs; returns
 * the pairing's colour frame (for its face boxes) or NULL. */
G_GNUC_INTERNAL const DMHeldFrame *gst_depth_matte_pair (GstDepthMatte * self,
    DMInput * video, DMInput * depth, guint64 sync_tolerance);
/* The person frame within the pairing tolerance of the keyed colour frame
 * (`colour_rt`), mapped into `person` (its frame set, or NULL: none that
 * close, the matte is depth-only on this frame). */
G_GNUC_INTERNAL void gst_depth_matte_pair_person (GstDepthMatte * self,
    GstClockTime colour_rt, DMInput * person, guint64 sync_tolerance);

#endif
