/*
 * The segment scheduler (PROTOCOL.md §4.1, §4.2): plays queued amplitude ramps on the driver.
 *
 * Rules that shape it:
 * - a segment's first write happens as soon as it is reached, and its ONSET time is the clock
 *   read right after that write returns, so the host sees when drive really began; a ramp up
 *   from 0 is first written (and its onset taken) where it reaches its first non-zero code;
 * - CUT removes the entries starting at or after its instant and cuts the one spanning it
 *   (a per-slot limit, so the ramp keeps its slope);
 * - during a segment the interpolated amplitude is written at most every 500 µs and only when it
 *   changes (an I2C write takes ~73 µs at 400 kHz and the LRA loop updates once per cycle);
 * - whenever nothing should play (queue dry, gap between segments, STOP, watchdog, bus trouble)
 *   the output goes to 0 at once: every unsafe state ends in no drive;
 * - a ROM effect (ROM_EFFECT) plays through the driver's sequencer: it starts like a segment,
 *   holds its slot until GO reads 0 or the next entry starts, and is never trimmed (reached
 *   within THRUM_ROM_LATE_WINDOW_US it plays whole, later it is dropped);
 * - while calibration runs nothing is written; entries whose time passes meanwhile are trimmed
 *   or dropped when it ends, like any late entry. A driver leaving standby is waited for.
 */
#include <string.h>

#include "thrum_core.h"
#include "thrum_flash.h"

/* How long before the next segment's start no interpolation update is begun: one DRV2605L register
 * write at 400 kHz (≈ 73 µs) with room to spare. */
#define UPDATE_GUARD_US 100u
#define NO_LIMIT 0xFFFFFFFFu

void thrum_scheduler_init(thrum_fw_t *fw)
{
    memset(&fw->sched, 0, sizeof(fw->sched));
}

/* Queue entry `i` after the head (one out-of-line index computation: a multiply and an address
 * on 8-bit MCUs, needed in a dozen places). */
static THRUM_NOINLINE const thrum_segment_t *entry(const thrum_scheduler_t *s, uint8_t i)
{
    return &s->queue[THRUM_QUEUE_INDEX(s->head, i)];
}

static const thrum_segment_t *tail(const thrum_scheduler_t *s)
{
    return s->count == 0u ? NULL : entry(s, (uint8_t)(s->count - 1u));
}

int thrum_scheduler_accepts(const thrum_fw_t *fw, uint32_t start)
{
    const thrum_segment_t *last = tail(&fw->sched);

    return last == NULL || !thrum_time_before(start, last->start);
}

#if THRUM_FW_LIBRARY
int thrum_scheduler_onset_within(const thrum_fw_t *fw, uint32_t now, uint32_t within)
{
    const thrum_scheduler_t *s = &fw->sched;
    uint8_t waiting = s->playing ? 1u : 0u;

    if (s->playing && s->onset_pending) {
        return 1;
    }
    return s->count > waiting && (int32_t)(entry(s, waiting)->start - now) < (int32_t)within;
}
#endif

void thrum_scheduler_enqueue(thrum_fw_t *fw, const thrum_segment_t *segment)
{
    thrum_scheduler_t *s = &fw->sched;

    if (s->count >= THRUM_FW_QUEUE_SLOTS) {
        return; /* thrum_commands_check rules this out; never overwrite a queued segment */
    }
    s->queue[THRUM_QUEUE_INDEX(s->head, s->count)] = *segment;
    s->limit[THRUM_QUEUE_INDEX(s->head, s->count)] = NO_LIMIT;
    s->count++;
}

/* How long after its start the head entry may still be started (a ROM effect: its late window)
 * or played (a segment: its duration), whichever CUT left shorter. */
static uint32_t head_window(const thrum_scheduler_t *s)
{
    uint32_t d = entry(s, 0u)->duration;
    uint32_t limit = s->limit[s->head];

    return limit < d ? limit : d;
}

/* Whether the head entry's window (head_window) is over at `now`. */
static THRUM_NOINLINE int head_expired(const thrum_scheduler_t *s, uint32_t now)
{
    return now - entry(s, 0u)->start >= head_window(s);
}

static void pop(thrum_scheduler_t *s)
{
    s->head = THRUM_QUEUE_INDEX(s->head, 1u);
    s->count--;
    s->playing = 0;
    s->onset_pending = 0;
#if THRUM_FW_CARRY_MARKS
    s->carried = 0;
#endif
}

/* A run acting ahead of time (thrum_scheduler_run's lead) makes its first driver write here, at
 * the instant it prepared for: the clock is read until it gets there, with the port's shortest
 * delay in between (which also moves a simulated clock on). */
static THRUM_NOINLINE void await_due(thrum_fw_t *fw)
{
    const thrum_hal_t *hal = fw->hal;

    if (fw->sched.hold) {
        fw->sched.hold = 0;
        while (thrum_time_before(thrum_clock(fw), fw->sched.hold_until)) {
            THRUM_HAL(hal, delay_us)(THRUM_HAL_CTX(hal), 1u);
        }
    }
}

/* Write an amplitude; 0 on success. A failure leaves the output unknown, so the idle path keeps
 * retrying 0, and is reported once per run of failures. */
static int write_amplitude(thrum_fw_t *fw, uint8_t amplitude, uint32_t now)
{
    thrum_scheduler_t *s = &fw->sched;
    int err;

    await_due(fw);
    err = drv2605l_set_amplitude(&fw->driver, amplitude); /* 0 works on any driver that answered */

    s->last_write_time = now;
    if (err != 0) {
        s->output_unknown = 1;
        if (!s->bus_fault_sent) {
            s->bus_fault_sent = 1;
            thrum_bus_fault(fw); /* FAULT 2, then bus recovery (FAULT 9) */
        } else {
            THRUM_COUNT(fw->stats.bus_errors);
        }
        return err;
    }
    s->amplitude = amplitude;
    s->output_unknown = 0;
    s->bus_fault_sent = 0;
    THRUM_COUNT(fw->stats.driver_writes);
    return 0;
}

/* Whether the amplitude update interval has passed since the last write (one function: the
 * comparison in 32 bits is long on 8-bit MCUs, and it is made in several places). */
static THRUM_NOINLINE int update_due(const thrum_scheduler_t *s, uint32_t now)
{
    return now - s->last_write_time >= THRUM_AMPLITUDE_UPDATE_INTERVAL_US;
}

static int playing_rom(const thrum_scheduler_t *s)
{
    return s->count > 0u && s->playing && entry(s, 0u)->effect != 0u;
}

/* Leave the sequencer: GO = 0 cancels a running effect, then RTP mode at amplitude 0. */
static void end_rom(thrum_fw_t *fw, uint32_t now)
{
    thrum_scheduler_t *s = &fw->sched;

    s->last_write_time = now;
    await_due(fw);
    if (drv2605l_rom_stop(&fw->driver) != 0) {
        s->output_unknown = 1;
        thrum_bus_fault(fw);
        return;
    }
    s->amplitude = 0;
}

void thrum_scheduler_drop_rom(thrum_fw_t *fw)
{
    if (playing_rom(&fw->sched)) {
        end_rom(fw, thrum_clock(fw));
        pop(&fw->sched);
    }
}

void thrum_scheduler_stop(thrum_fw_t *fw)
{
    thrum_scheduler_t *s = &fw->sched;

    if (playing_rom(s)) {
        end_rom(fw, thrum_clock(fw));
    }
    s->head = 0;
    s->count = 0;
    s->playing = 0;
    s->onset_pending = 0;
#if THRUM_FW_CARRY_MARKS
    s->carried = 0;
#endif
    s->stops++; /* a stored preset's player stops with the queue (library.c) */
    if (fw->driver.device_id != 0u && (s->amplitude != 0u || s->output_unknown)) {
        (void)write_amplitude(fw, 0, thrum_clock(fw));
    }
}

/* End the playing head entry at once (a ROM effect leaves the sequencer); the next run writes
 * what follows it, 0 when nothing does. Its ONSET was sent when it started. */
static void end_head(thrum_fw_t *fw, uint32_t now)
{
    if (entry(&fw->sched, 0u)->effect != 0u) {
        end_rom(fw, now);
    }
    pop(&fw->sched);
}

void thrum_scheduler_cut(thrum_fw_t *fw, uint32_t at)
{
    thrum_scheduler_t *s = &fw->sched;
    uint32_t now = thrum_clock(fw);

    /* the queue is ordered by start: remove from the tail while entries start at or after `at` */
    while (s->count > 0u) {
        uint8_t last = THRUM_QUEUE_INDEX(s->head, s->count - 1u);
        uint32_t len = at - s->queue[last].start;
        uint32_t *limit = &s->limit[last];

        if ((int32_t)len > 0) {
            /* starts before `at`: the new tail (every entry ahead of it is taken over before
             * `at` anyway) ends at `at` at the latest */
            if (*limit > len) {
                *limit = len;
            }
            break;
        }
        if (s->count == 1u && s->playing) {
            break; /* began at or after `at`, so `at` has passed: it ends now, below */
        }
        s->count--; /* never started: removed silently, no ONSET */
    }
    if (s->count > 0u && s->playing && !thrum_time_before(now, at)) {
        end_head(fw, now); /* `at` has passed: the playing entry ends now */
    }
}

/* Amplitude of `seg` at `now` (inside its window), rounded to nearest with halves rounding up
 * (toward the larger amplitude) whichever way the ramp runs. elapsed < 2^20 and the span < 2^8,
 * so twice their product fits 32 bits: no 64-bit division on small MCUs. */
static uint8_t interpolate(const thrum_segment_t *seg, uint32_t now)
{
    uint32_t elapsed = now - seg->start;
    uint32_t twice_span_elapsed;
    uint32_t d = seg->duration;

    if (thrum_time_before(now, seg->start)) {
        return seg->from;
    }
    if (elapsed >= d) {
        return seg->to;
    }
    if (seg->to >= seg->from) {
        twice_span_elapsed = 2u * (uint32_t)(seg->to - seg->from) * elapsed;
        return (uint8_t)(seg->from + (twice_span_elapsed + d) / (2u * d));
    }
    /* falling: from - x rounds half up when x rounds half down, i.e. ceil(x - 1/2) */
    twice_span_elapsed = 2u * (uint32_t)(seg->from - seg->to) * elapsed;
    return (uint8_t)(seg->from - (twice_span_elapsed + d - 1u) / (2u * d));
}

static void report(thrum_fw_t *fw, const thrum_segment_t *seg, uint32_t time, uint8_t status)
{
    if (seg->event != 0u) {
        thrum_telemetry_onset(fw, seg->event, time, status);
    }
}

#if THRUM_FW_DRIVE_DROP_FAULT
/* The head entry `seg`, reached at `now`, is dropped: a marked one is reported by its ONSET
 * (dropped); an unmarked one that would have driven (a level above 0, or a ROM effect) leaves a
 * hole in a drive no ONSET tells of, so it is reported as FAULT 12 with its start (§4.2). */
static void report_drop(thrum_fw_t *fw, const thrum_segment_t *seg, uint32_t now)
{
    if (seg->event != 0u) {
        thrum_telemetry_onset(fw, seg->event, now, THRUM_ONSET_DROPPED);
    } else if (fw->driver.ready && (seg->from | seg->to | seg->effect) != 0u) {
        thrum_telemetry_fault(fw, THRUM_FAULT_DRIVE_DROPPED, seg->start);
    }
}
#else
#define report_drop(fw, seg, now) report((fw), (seg), (now), THRUM_ONSET_DROPPED)
#endif

/* When the drive of `seg` begins (§4.1): its start, or for a ramp up from 0 whose rounded
 * amplitude becomes non-zero inside its duration, that crossing, start + ceil(d / (2 to)) (the
 * first elapsed time at which interpolate() is non-zero; SegmentCommand.firstDriveOffset on the
 * host). One division instead of the interpolations it replaces. */
static THRUM_NOINLINE uint32_t drive_at(const thrum_segment_t *seg)
{
    uint32_t d = seg->duration;
    uint32_t crossing;

    if (seg->effect != 0u || seg->from != 0u || seg->to == 0u) {
        return seg->start;
    }
    crossing = (d + 2u * seg->to - 1u) / (2u * seg->to);
    return crossing < d ? seg->start + crossing : seg->start;
}

/* The head entry's drive begins now: its first non-zero write (or the sequencer start of a ROM
 * effect, or the single write of an all-zero segment). Its ONSET time is when that write
 * returned; `late` says it began more than the tolerance after it was due. */
static void begin_drive(thrum_fw_t *fw, uint32_t now, int late)
{
    thrum_scheduler_t *s = &fw->sched;
    const thrum_segment_t *seg = entry(s, 0u);
#if THRUM_FW_CARRY_MARKS
    uint8_t status = late || s->carried ? THRUM_ONSET_LATE_TRIMMED : THRUM_ONSET_ON_TIME;
#else
    uint8_t status = late ? THRUM_ONSET_LATE_TRIMMED : THRUM_ONSET_ON_TIME;
#endif

    if (seg->effect != 0u) {
        s->last_rom_poll = now;
        s->last_write_time = now;
        s->amplitude = 0;
        await_due(fw);
        if (drv2605l_rom_start(&fw->driver, seg->effect) != 0) {
            s->output_unknown = 1;
            thrum_bus_fault(fw);
        }
    } else {
        (void)write_amplitude(fw, interpolate(seg, now), now);
    }
    if (status == THRUM_ONSET_ON_TIME) {
        THRUM_COUNT(fw->stats.segments_played);
    } else {
        THRUM_COUNT(fw->stats.segments_trimmed);
    }
    report(fw, seg, thrum_clock(fw), status);
}

#if THRUM_FW_CARRY_MARKS
/* 1 when the head entry `seg`, a marked ramp dropped for lateness, is followed at once by an
 * unmarked entry that drives (the same event's drive going on, PROTOCOL.md §4.2): the mark moves
 * to that entry, so the event is reported as the chip drove it (late) and not as dropped. */
static int carries_mark(const thrum_scheduler_t *s, const thrum_segment_t *seg)
{
    const thrum_segment_t *next = entry(s, 1u);

    return s->count > 1u && seg->event != 0u && seg->effect == 0u && next->event == 0u && next->effect == 0u &&
           next->start == seg->start + seg->duration && (next->from != 0u || next->to != 0u);
}
#endif

/* Start the head segment, which has been reached at `now`. */
static void start_segment(thrum_fw_t *fw, uint32_t now)
{
    thrum_scheduler_t *s = &fw->sched;
    const thrum_segment_t *seg = entry(s, 0u);
    uint32_t due;
    int superseded = s->count > 1u && !thrum_time_before(now, entry(s, 1u)->start);

    if (head_expired(s, now) || !fw->driver.ready || superseded ||
        (seg->effect != 0u && !DRV2605L_HAS_ROM(fw->driver.device_id))) {
        /* reached after its window, taken over already, nothing to drive, or a ROM effect on a
         * DRV2604/2604L (RAM, no ROM library): never play it outside its time */
#if THRUM_FW_CARRY_MARKS
        int carry = fw->driver.ready && carries_mark(s, seg);

        THRUM_COUNT(fw->stats.segments_dropped);
        if (carry) {
            /* the event's drive goes on in the next entry, which is reached now too: its first
             * write is the event's onset, late (§4.2) */
            s->queue[THRUM_QUEUE_INDEX(s->head, 1u)].event = seg->event;
        } else {
            report_drop(fw, seg, now);
        }
        pop(s);
        s->carried = (uint8_t)carry;
#else
        THRUM_COUNT(fw->stats.segments_dropped);
        report_drop(fw, seg, now);
        pop(s);
#endif
        return;
    }
    s->playing = 1;
    due = drive_at(seg);
    if (thrum_time_before(now, due)) {
        /* a ramp up from 0 before its crossing: drive begins there; until then the output is 0:
         * written now if it was not (that write is not the onset), unless the crossing is less
         * than an update interval away, where the crossing's write replaces the old drive */
        s->onset_pending = 1;
        if ((s->amplitude != 0u || s->output_unknown) && due - now > THRUM_AMPLITUDE_UPDATE_INTERVAL_US) {
            (void)write_amplitude(fw, 0, now);
        }
        return;
    }
    begin_drive(fw, now, now - due > THRUM_LATE_TOLERANCE_US);
}

/* A playing ROM effect: poll GO now and then; it ends when GO clears. 1 when it ended. */
static int rom_finished(thrum_fw_t *fw, uint32_t now)
{
    thrum_scheduler_t *s = &fw->sched;
    uint8_t go = 0;

    if (now - s->last_rom_poll < THRUM_FW_ROM_POLL_US) {
        return 0;
    }
    s->last_rom_poll = now;
    if (drv2605l_read(&fw->driver, DRV2605L_REG_GO, &go) != 0) {
        thrum_bus_fault(fw);
        return 1; /* cannot watch it: end it */
    }
    return (go & DRV2605L_GO_GO) == 0u;
}

static void run(thrum_fw_t *fw, uint32_t now)
{
    thrum_scheduler_t *s = &fw->sched;

    for (;;) {
        const thrum_segment_t *seg;
        int32_t next_in; /* µs to the next segment's start (it takes over there) */

        if (s->count == 0u) {
            break;
        }
        seg = entry(s, 0u);
        if (!s->playing) {
            if (thrum_time_before(now, seg->start)) {
                break; /* a gap before the next segment: fall through to silence */
            }
            if (fw->driver.ready && !thrum_power_ready(fw, now)) {
                return; /* leaving standby: start when the driver can drive (late if need be) */
            }
            start_segment(fw, now);
            if (s->playing) {
                return;
            }
            continue;
        }
        /* A later segment takes over at its start; the current one ends at its own end. */
        next_in = (int32_t)(entry(s, 1u)->start - now);
        if (s->count > 1u && next_in <= 0) {
            if (seg->effect != 0u) {
                end_rom(fw, now);
            }
            if (s->onset_pending) {
                /* taken over before its ramp left 0: it never drove */
                THRUM_COUNT(fw->stats.segments_dropped);
                report(fw, seg, now, THRUM_ONSET_DROPPED);
            }
            pop(s);
            continue;
        }
        if (seg->effect != 0u) {
            if (now - seg->start >= s->limit[s->head] || rom_finished(fw, now)) {
                end_rom(fw, now);
                pop(s);
                continue;
            }
            return;
        }
        if (head_expired(s, now)) {
            pop(s); /* one still at 0 was cut (CUT) before it drove: no ONSET, the host re-sends it */
            continue;
        }
        if (s->onset_pending) {
            uint32_t due = drive_at(seg);
            if (!thrum_time_before(now, due)) {
                s->onset_pending = 0;
                begin_drive(fw, now, now - due > THRUM_LATE_TOLERANCE_US);
            } else if (s->output_unknown && update_due(s, now)) {
                (void)write_amplitude(fw, 0, now);
            }
            return;
        }
        if (update_due(s, now)) {
            uint8_t a = interpolate(seg, now);
            /* An update the next segment's start would find still on the bus is left out: that
             * segment's onset would wait for it (a late, trimmed start). The amplitude stays until
             * the takeover, at most one write later. */
            if (s->output_unknown || (a != s->amplitude && (s->count < 2u || next_in > (int32_t)UPDATE_GUARD_US))) {
                (void)write_amplitude(fw, a, now);
            }
        }
        return;
    }
    /* Nothing plays: write 0 once, retrying a failed write no faster than the update rate. */
    if (fw->driver.device_id != 0u && (s->amplitude != 0u ||
                             (s->output_unknown && update_due(s, now)))) {
        (void)write_amplitude(fw, 0, now);
    }
}

/* The next instant a drive begins: the head's (not started yet, or a ramp before its crossing)
 * or the next entry's (it takes over). 0 when nothing is queued to begin. */
static int next_drive(const thrum_scheduler_t *s, uint32_t *due)
{
    int has = 0;

    if (s->count > 0u && (!s->playing || s->onset_pending)) {
        *due = drive_at(entry(s, 0u));
        has = 1;
    }
    if (s->count > 1u) {
        uint32_t t = drive_at(entry(s, 1u));
        if (!has || thrum_time_before(t, *due)) {
            *due = t;
            has = 1;
        }
    }
    return has;
}

void thrum_scheduler_run(thrum_fw_t *fw, uint32_t now, uint32_t lead)
{
    thrum_scheduler_t *s = &fw->sched;
    uint32_t due;

    if (fw->calibration.running) {
        return; /* the driver belongs to the calibration; entries wait and are judged late */
    }
    /* A drive beginning within `lead`: act as at its instant; the first write waits for it, so
     * its time does not depend on how long this pass took to get there. */
    if (lead > 0u && next_drive(s, &due) && due - now <= lead) {
        s->hold = 1;
        s->hold_until = due;
        now = due;
    }
    run(fw, now);
    s->hold = 0;
}

/* Time at which the interpolated amplitude of `seg` first differs from `a`, or 0 in *has when
 * it never does within the segment. elapsed < 2^20 and span < 2^8: 32-bit arithmetic suffices. */
static uint32_t next_change(const thrum_segment_t *seg, uint8_t a, uint32_t now, uint8_t *has)
{
    uint32_t d = seg->duration;
    uint32_t span;
    uint32_t k;
    uint32_t e;

    *has = 1;
    if (interpolate(seg, now) != a) {
        return now;
    }
    if (seg->to > seg->from && a < seg->to) {
        span = (uint32_t)(seg->to - seg->from);
        k = (uint32_t)(a + 1u - seg->from); /* first elapsed with value >= a + 1 */
        e = (2u * d * k - d + 2u * span - 1u) / (2u * span);
    } else if (seg->to < seg->from && a > seg->to) {
        span = (uint32_t)(seg->from - seg->to);
        k = (uint32_t)(seg->from - a + 1u); /* first elapsed with value <= a - 1 */
        e = (2u * d * k - d + 1u + 2u * span - 1u) / (2u * span);
    } else {
        *has = 0;
        return now;
    }
    return seg->start + e;
}

void thrum_scheduler_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has)
{
    const thrum_scheduler_t *s = &fw->sched;
    const thrum_segment_t *seg;
    uint32_t retry = s->last_write_time + THRUM_AMPLITUDE_UPDATE_INTERVAL_US;
    uint8_t changes;
    uint32_t t;

    if (fw->driver.ready && s->amplitude != 0u) {
        thrum_deadline_offer(now, s->last_status_time + THRUM_FW_STATUS_POLL_US, deadline, has);
    }
    if (fw->calibration.running) {
        return;
    }
    if (s->count == 0u) {
        if (s->amplitude != 0u) {
            thrum_deadline_offer(now, now, deadline, has);
        } else if (s->output_unknown && fw->driver.device_id != 0u) {
            thrum_deadline_offer(now, retry, deadline, has);
        }
        return;
    }
    seg = entry(s, 0u);
    if (!s->playing) {
        t = seg->start;
        if (fw->driver.ready && fw->power.waking && thrum_time_before(t, fw->power.ready_at)) {
            t = fw->power.ready_at;
        }
        if (!fw->power.standby || !fw->driver.ready) {
            thrum_deadline_offer(now, t, deadline, has);
        }
        if (s->amplitude != 0u) {
            thrum_deadline_offer(now, now, deadline, has); /* a gap: silence at once */
        }
        return;
    }
    if (s->count > 1u) {
        thrum_deadline_offer(now, entry(s, 1u)->start, deadline, has);
    }
    if (seg->effect != 0u) {
        thrum_deadline_offer(now, s->last_rom_poll + THRUM_FW_ROM_POLL_US, deadline, has);
        if (s->limit[s->head] != NO_LIMIT) {
            thrum_deadline_offer(now, seg->start + s->limit[s->head], deadline, has);
        }
        return;
    }
    thrum_deadline_offer(now, seg->start + head_window(s), deadline, has);
    if (s->onset_pending) {
        /* the crossing is not held to the 500 µs rule; nothing else changes before it (the
         * output may still hold the drive it takes over from) */
        thrum_deadline_offer(now, next_change(seg, 0, now, &changes), deadline, has);
        if (s->output_unknown) {
            thrum_deadline_offer(now, retry, deadline, has); /* the 0 is retried meanwhile */
        }
        return;
    }
    if (s->output_unknown) {
        thrum_deadline_offer(now, retry, deadline, has);
        return;
    }
    t = next_change(seg, s->amplitude, now, &changes);
    if (changes) {
        if (thrum_time_before(t, retry)) {
            t = retry;
        }
        thrum_deadline_offer(now, t, deadline, has);
    }
}

/* While driving, read STATUS now and then: the driver shuts itself down on over-temperature or
 * over-current and only this read tells us. */
void thrum_scheduler_check_driver(thrum_fw_t *fw, uint32_t now)
{
    thrum_scheduler_t *s = &fw->sched;
    uint8_t status;

    if (!fw->driver.ready || s->amplitude == 0u || fw->calibration.running) {
        s->last_status_time = now;
        return;
    }
    /* Not in the THRUM_FW_STATUS_GUARD_US before the next entry starts: the read holds the bus
     * ≈ 90 µs, and the entry would start late. 16 bits suffice: a start 65 ms away that aliases
     * into the guard only postpones one poll. */
    if (now - s->last_status_time < THRUM_FW_STATUS_POLL_US) {
        return;
    }
#if THRUM_FW_STATUS_GUARD_US > 0
    /* Polls happen only while driving, so the entry to protect is the one after the head. */
    if (s->count > 1u &&
        (uint16_t)((uint16_t)s->queue[THRUM_QUEUE_INDEX(s->head, 1u)].start - (uint16_t)now) < THRUM_FW_STATUS_GUARD_US) {
        return;
    }
#endif
    s->last_status_time = now;
    if (drv2605l_read_status(&fw->driver, &status) != 0) {
        thrum_bus_fault(fw);
        return;
    }
    if ((status & DRV2605L_STATUS_OVER_TEMP) != 0u) {
        thrum_scheduler_stop(fw);
        thrum_telemetry_fault(fw, THRUM_FAULT_OVER_TEMPERATURE, status);
    } else if ((status & DRV2605L_STATUS_OC_DETECT) != 0u) {
        thrum_scheduler_stop(fw);
        thrum_telemetry_fault(fw, THRUM_FAULT_OVER_CURRENT, status);
    }
}
