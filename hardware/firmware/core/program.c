/*
 * Preloaded programs (PROTOCOL.md §3.1 PRELOAD_BEGIN, PRELOAD_SEGMENT, GO): a small RAM store of
 * segments with offsets relative to the program start, copied into the queue by GO so that a
 * prepared pattern starts with a few bytes. One pool serves all slots; the slot being loaded is
 * always last in it, so loading only appends.
 */
#include <string.h>

#include "thrum_core.h"

#define SLOT_BIT(slot) ((uint8_t)(1u << (slot)))

void thrum_program_init(thrum_fw_t *fw)
{
    memset(&fw->programs, 0, sizeof(fw->programs));
    fw->programs.loading = THRUM_PROGRAM_SLOTS;
}

/* Drop slot `slot` from the pool, closing the gap. */
static void remove_slot(thrum_program_store_t *p, uint8_t slot)
{
    uint8_t first = p->first[slot];
    uint8_t n = p->count[slot];
    uint8_t i;

    if (n > 0u) {
        memmove(&p->segment[first], &p->segment[first + n],
                (size_t)(p->used - first - n) * sizeof(p->segment[0]));
        for (i = 0; i < THRUM_PROGRAM_SLOTS; i++) {
            /* every slot above the gap moves down, an empty one too: its `first` must stay
             * within the pool (fuzzer finding firmware-receive crash-cf09a372) */
            if (i != slot && p->first[i] > first) {
                p->first[i] = (uint8_t)(p->first[i] - n);
            }
        }
        p->used = (uint8_t)(p->used - n);
    }
    p->count[slot] = 0;
    p->valid &= (uint8_t)~SLOT_BIT(slot);
}

void thrum_program_begin(thrum_fw_t *fw, uint8_t slot)
{
    thrum_program_store_t *p = &fw->programs;

    remove_slot(p, slot);
    p->first[slot] = p->used;
    p->loading = slot;
    p->valid |= SLOT_BIT(slot);
}

void thrum_program_append(thrum_fw_t *fw, const thrum_segment_t *segment)
{
    thrum_program_store_t *p = &fw->programs;
    uint8_t slot = p->loading;

    if (slot >= THRUM_PROGRAM_SLOTS) {
        thrum_telemetry_fault(fw, THRUM_FAULT_PROGRAM_FULL, THRUM_PROGRAM_SLOTS);
        return; /* no PRELOAD_BEGIN before it */
    }
    if ((p->valid & SLOT_BIT(slot)) == 0u) {
        return; /* already found broken; reported once */
    }
    if (p->used >= THRUM_FW_PROGRAM_SEGMENTS) {
        remove_slot(p, slot); /* frees the store for other slots; the slot stays invalid */
        thrum_telemetry_fault(fw, THRUM_FAULT_PROGRAM_FULL, slot);
        return;
    }
    if (p->count[slot] > 0u && segment->start < p->segment[p->used - 1u].start) {
        p->valid &= (uint8_t)~SLOT_BIT(slot); /* offsets must not decrease: GO will refuse it */
        return;
    }
    p->segment[p->used] = *segment;
    p->used++;
    p->count[slot]++;
}

void thrum_program_go(thrum_fw_t *fw, const thrum_go_t *go)
{
    const thrum_program_store_t *p = &fw->programs;
    const thrum_segment_t *src = &p->segment[p->first[go->slot]];
    uint8_t n = p->count[go->slot];
    thrum_segment_t seg;

    if ((p->valid & SLOT_BIT(go->slot)) == 0u || n > (uint8_t)(THRUM_FW_QUEUE_SLOTS - fw->sched.count) ||
        (n > 0u && !thrum_scheduler_accepts(fw, go->start + src->start))) {
        thrum_telemetry_fault(fw, THRUM_FAULT_GO_REJECTED, go->slot);
        return;
    }
    while (n-- > 0u) {
        seg = *src++;
        seg.start += go->start;
        if (seg.event != 0u) {
            seg.event += go->event_base;
        }
        thrum_scheduler_enqueue(fw, &seg);
    }
}
