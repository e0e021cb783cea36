/*
 * The preset library (PROTOCOL.md §3.3, §4.9; image layout in docs/library.md): an image kept in
 * one of two storage slots, selected by the newer of two records, each alone in its own page:
 *
 *   page 0: record A    page 1: record B    slot 0 (capacity C)    slot 1 (capacity C)
 *
 * A record is 20 bytes: "TL", slot, 0, seq (u32), size (u32), image CRC-32 (u32), then the CRC-32
 * of those 16 bytes. A flash writes the slot no record selects, reads it back to check its CRC-32,
 * then writes one record with the next sequence number: that one write is the switch. Power lost
 * before it completes leaves the old record the newest valid one, and the old slot untouched. At
 * reset the newest valid record whose slot verifies wins, else the newest one of the other slot.
 *
 * Where the record goes depends on the medium. EEPROM (no storage_erase): the record page the
 * active record is not in, rewritten in place (one page write). Flash (storage_erase): a half-word
 * is programmed once between erases, so records are appended: each record page holds
 * page / 20 record positions, and the switch record is programmed into the first erased position
 * after the active record, with no erase. Only when that page is full (or no library is active)
 * is the other record page erased, and the record goes first in it: that page then holds no
 * record in use (the active one is in the first), so a power loss during the erase or the record
 * write still leaves the active record whole.
 *
 * The player feeds a stored preset into the segment queue as slots free up, so a preset longer
 * than the queue plays whole. Trigger inputs start the preset the index maps to them.
 */
#include <string.h>

#include "thrum_core.h"

#if THRUM_FW_LIBRARY

#define RECORD_SIZE 20u
#define IMAGE_HEADER 64u
#define INDEX_ENTRY 12u
#define NO_TRIGGER 0xFFu
#define TAG_SHAPE 1u
#define TAG_SEGMENT 2u
#define TAG_ROM 3u

static void arm_triggers(thrum_fw_t *fw);

/* Storage through the HAL (a table, or the port's thrum_hal_* functions: THRUM_FW_STATIC_HAL). */
#define STORAGE_READ(fw, addr, out, len) THRUM_HAL((fw)->hal, storage_read)(THRUM_HAL_CTX((fw)->hal), addr, out, len)
#define STORAGE_WRITE(fw, addr, data, len) THRUM_HAL((fw)->hal, storage_write)(THRUM_HAL_CTX((fw)->hal), addr, data, len)
/* Whether the storage is flash (erased before it is written; records appended) rather than a
 * medium that writes in place (EEPROM). A table HAL says it by having storage_erase; a static HAL
 * always has every member, so its port says it with THRUM_FW_STORAGE_FLASH. */
#if THRUM_FW_STATIC_HAL
#ifndef THRUM_FW_STORAGE_FLASH
#define THRUM_FW_STORAGE_FLASH 0
#endif
#define STORAGE_IS_FLASH(fw) ((void)(fw), THRUM_FW_STORAGE_FLASH)
#else
#define STORAGE_IS_FLASH(fw) ((fw)->hal->storage_erase != NULL)
#endif

static int has_storage(const thrum_fw_t *fw)
{
    return THRUM_HAL_HAS(fw->hal, storage_read) && THRUM_HAL_HAS(fw->hal, storage_write) &&
           fw->board.storage_page >= 32u && fw->board.storage_size >= 4u * (uint32_t)fw->board.storage_page;
}

/* Capacity of one slot: half of what the two record pages leave, in whole pages (and no more than
 * the player's image offsets reach: THRUM_FW_LIBRARY_POS_T). */
static uint32_t compute_capacity(const thrum_fw_t *fw)
{
    uint32_t page = fw->board.storage_page;
    uint32_t c = has_storage(fw) ? (fw->board.storage_size - 2u * page) / 2u / page * page : 0u;

    if (sizeof(thrum_library_pos_t) < sizeof(uint32_t) && c > (uint32_t)(thrum_library_pos_t)~(thrum_library_pos_t)0) {
        c = (uint32_t)(thrum_library_pos_t)~(thrum_library_pos_t)0 / page * page;
    }
    return c;
}

/* The slot capacity, computed once at init (no 32-bit arithmetic under the deep storage paths). */
static uint32_t capacity(const thrum_fw_t *fw)
{
    return fw->library.capacity;
}

static uint32_t slot_base(const thrum_fw_t *fw, uint8_t slot)
{
    return 2u * (uint32_t)fw->board.storage_page + (slot != 0u ? capacity(fw) : 0u); /* slot is 0 or 1 */
}

static uint32_t crc32_update(uint32_t crc, uint8_t byte)
{
    uint8_t i;

    crc ^= byte;
    for (i = 0; i < 8u; i++) {
        crc = (crc & 1u) != 0u ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return crc;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void set32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#define LINE 16u

/* One byte of the active image at image offset `at` (0 past its end or on a read error), through
 * a 16-byte line: an EEPROM read costs its addressing (≈ 120 µs at 400 kHz) whatever its length. */
static uint8_t rd8(thrum_fw_t *fw, uint32_t at)
{
    thrum_library_t *l = &fw->library;

    if (at >= l->size) {
        return 0;
    }
    if (l->line_at == 0xFFFFFFFFu || at < l->line_at || at >= l->line_at + LINE) {
        uint32_t start = at - at % LINE;
        uint16_t n = (uint16_t)(l->size - start < LINE ? l->size - start : LINE);

        if (STORAGE_READ(fw, slot_base(fw, l->slot) + start, l->line, n) != 0) {
            l->line_at = 0xFFFFFFFFu;
            return 0;
        }
        l->line_at = start;
    }
    return l->line[at - l->line_at];
}

static uint16_t rd16(thrum_fw_t *fw, uint32_t at)
{
    return (uint16_t)(rd8(fw, at) | ((uint16_t)rd8(fw, at + 1u) << 8));
}

static uint32_t rd_uv(thrum_fw_t *fw, thrum_library_pos_t *at)
{
    uint32_t v = 0;
    uint8_t shift = 0;
    uint8_t b;

    do {
        b = rd8(fw, (*at)++);
        v |= (uint32_t)(b & 0x7Fu) << shift;
        shift = (uint8_t)(shift + 7u);
    } while ((b & 0x80u) != 0u && shift < 35u);
    return v;
}

/* CRC-32 of the first `len` bytes of slot `slot`; 0 and *ok = 0 on a read error. */
static uint32_t slot_crc(const thrum_fw_t *fw, uint8_t slot, uint32_t len, int *ok)
{
    uint8_t buf[16];
    uint32_t crc = 0xFFFFFFFFu;
    uint32_t at = 0;
    uint32_t base = slot_base(fw, slot);

    *ok = 1;
    while (at < len) {
        uint16_t n = (uint16_t)(len - at < sizeof(buf) ? len - at : sizeof(buf));
        uint16_t i;

        if (STORAGE_READ(fw, base + at, buf, n) != 0) {
            *ok = 0;
            return 0;
        }
        for (i = 0; i < n; i++) {
            crc = crc32_update(crc, buf[i]);
        }
        at += n;
    }
    return crc ^ 0xFFFFFFFFu;
}

/* The image in `slot` of `size` bytes is whole: its trailer is the CRC-32 of the rest, and it is
 * `crc`. */
static int slot_verifies(const thrum_fw_t *fw, uint8_t slot, uint32_t size, uint32_t crc)
{
    uint8_t trailer[4];
    int ok;
    uint32_t computed;

    if (size < IMAGE_HEADER + 4u || size > capacity(fw)) {
        return 0;
    }
    computed = slot_crc(fw, slot, size - 4u, &ok);
    if (!ok || STORAGE_READ(fw, slot_base(fw, slot) + size - 4u, trailer, 4u) != 0) {
        return 0;
    }
    return computed == crc && get32(trailer) == crc;
}

/* Record positions in a record page: 1 on a medium that writes in place (EEPROM), every whole
 * 20 bytes of the page on flash (records are appended there). */
static uint16_t record_positions(const thrum_fw_t *fw)
{
    return !STORAGE_IS_FLASH(fw) ? 1u : (uint16_t)(fw->board.storage_page / RECORD_SIZE);
}

static uint32_t record_addr(const thrum_fw_t *fw, uint8_t page, uint16_t pos)
{
    return (uint32_t)page * fw->board.storage_page + (uint32_t)pos * RECORD_SIZE;
}

/* The record at `addr`: 1 and its fields when it is whole. */
static int read_record(const thrum_fw_t *fw, uint32_t addr, uint8_t *slot, uint32_t *seq, uint32_t *size, uint32_t *crc)
{
    uint8_t r[RECORD_SIZE];
    uint32_t check = 0xFFFFFFFFu;
    uint8_t i;

    if (STORAGE_READ(fw, addr, r, RECORD_SIZE) != 0) {
        return 0;
    }
    for (i = 0; i < 16u; i++) {
        check = crc32_update(check, r[i]);
    }
    if (r[0] != 'T' || r[1] != 'L' || r[2] > 1u || (check ^ 0xFFFFFFFFu) != get32(r + 16)) {
        return 0;
    }
    *slot = r[2];
    *seq = get32(r + 4);
    *size = get32(r + 8);
    *crc = get32(r + 12);
    return 1;
}

/* Make the image in `slot` the active one (its header read into the cache). */
static void activate(thrum_fw_t *fw, uint8_t record, uint8_t slot, uint32_t seq, uint32_t size, uint32_t crc)
{
    thrum_library_t *l = &fw->library;

    l->line_at = 0xFFFFFFFFu;
    l->active = 1;
    l->record = record;
    l->slot = slot;
    l->seq = seq;
    l->size = size;
    l->crc = crc;
    l->count = rd16(fw, 6u);
    l->shape_table = rd16(fw, 18u);
    l->shapes = (uint16_t)(l->shape_table + 2u * rd16(fw, 8u));
    l->programs = rd16(fw, 20u);
    arm_triggers(fw);
}

void thrum_library_init(thrum_fw_t *fw, uint32_t now)
{
    thrum_library_t *l = &fw->library;
    /* per slot, the newest whole record that selects it */
    uint8_t page[2];
    uint32_t seq[2];
    uint32_t size[2];
    uint32_t crc[2];
    int valid[2] = {0, 0};
    uint16_t positions;
    uint8_t first;
    uint8_t k;
    uint8_t i;

    memset(l, 0, sizeof(*l));
    l->capacity = compute_capacity(fw);
    for (i = 0; i < THRUM_FW_TRIGGER_INPUTS; i++) {
        l->trig_since[i] = now - THRUM_TRIGGER_DEBOUNCE_US; /* an input may fire at once after reset */
    }
    if (!has_storage(fw)) {
        return;
    }
    positions = record_positions(fw);
    for (k = 0; k < 2u; k++) {
        uint16_t pos;

        for (pos = 0; pos < positions; pos++) {
            uint8_t s;
            uint32_t q, z, c;

            if (!read_record(fw, record_addr(fw, k, pos), &s, &q, &z, &c)) {
                continue;
            }
            if (!l->max_seq || (int32_t)(q - l->max_seq) > 0) {
                l->max_seq = q;
            }
            if (!valid[s] || (int32_t)(q - seq[s]) > 0) {
                valid[s] = 1;
                page[s] = k;
                seq[s] = q;
                size[s] = z;
                crc[s] = c;
            }
        }
    }
    /* the newer record first, the older as a fallback when the newer's slot does not verify */
    first = (valid[0] && valid[1]) ? ((int32_t)(seq[1] - seq[0]) > 0 ? 1u : 0u) : (valid[1] ? 1u : 0u);
    for (k = 0; k < 2u; k++) {
        uint8_t s = (uint8_t)(k == 0u ? first : 1u - first);
        if (valid[s] && slot_verifies(fw, s, size[s], crc[s])) {
            activate(fw, page[s], s, seq[s], size[s], crc[s]);
            return;
        }
    }
}

static void report(thrum_fw_t *fw, uint8_t status)
{
    const thrum_library_t *l = &fw->library;
    uint8_t m[19];

    m[0] = THRUM_MSG_LIBRARY;
    m[1] = status;
    m[2] = l->active ? l->slot : 0u;
    set32(m + 3, l->active ? l->seq : 0u);
    set32(m + 7, l->active ? l->size : 0u);
    set32(m + 11, l->active ? l->crc : 0u);
    set32(m + 15, capacity(fw));
    thrum_telemetry_append(fw, m, sizeof(m));
}

void thrum_library_query(thrum_fw_t *fw)
{
    report(fw, !has_storage(fw) ? THRUM_LIBRARY_STATUS_NO_STORAGE
               : fw->library.active ? THRUM_LIBRARY_STATUS_ACTIVE
                                    : THRUM_LIBRARY_STATUS_EMPTY);
}

static uint8_t target_slot(const thrum_fw_t *fw)
{
    return fw->library.active ? (uint8_t)(1u - fw->library.slot) : 0u;
}

void thrum_library_begin(thrum_fw_t *fw, uint32_t size, uint32_t crc)
{
    thrum_library_t *l = &fw->library;

    l->writing = 0;
    if (!has_storage(fw)) {
        report(fw, THRUM_LIBRARY_STATUS_NO_STORAGE);
        return;
    }
    if (size < IMAGE_HEADER + 4u || size > capacity(fw)) {
        report(fw, THRUM_LIBRARY_STATUS_TOO_LARGE);
        return;
    }
    l->writing = 1;
    l->w_size = size;
    l->w_crc = crc;
    l->w_cursor = 0;
}

/* Write `n` bytes at slot offset `at` (inside one page), erasing the page first on flash. */
static int store(thrum_fw_t *fw, uint32_t at, const uint8_t *data, uint16_t n)
{
    uint32_t addr = slot_base(fw, target_slot(fw)) + at;

    if (addr % fw->board.storage_page == 0u && STORAGE_IS_FLASH(fw) &&
        THRUM_HAL(fw->hal, storage_erase)(THRUM_HAL_CTX(fw->hal), addr) != 0) {
        return -1;
    }
    return STORAGE_WRITE(fw, addr, data, n);
}

/* The image is assembled in RAM in units of a page, or of sizeof(w_buf) bytes when the page is
 * larger, and written a unit at a time: one write cycle per EEPROM page (its write cycle, not the
 * link, then bounds the rate), and on flash every write begins at an even offset and only the last
 * one may end at an odd one, so each half-word is programmed once, whatever lengths the host's
 * LIBRARY_WRITEs have. */
static uint32_t unit(const thrum_fw_t *fw)
{
    return fw->board.storage_page < sizeof(fw->library.w_buf) ? fw->board.storage_page : sizeof(fw->library.w_buf);
}

/* Write the unit being assembled (the bytes of it received so far). */
static int flush_unit(thrum_fw_t *fw)
{
    thrum_library_t *l = &fw->library;
    uint32_t start = (l->w_cursor - 1u) / unit(fw) * unit(fw);

    if (l->w_cursor == 0u) {
        return 0;
    }
    return store(fw, start, l->w_buf, (uint16_t)(l->w_cursor - start));
}

void thrum_library_write(thrum_fw_t *fw, uint32_t offset, const uint8_t *data, uint8_t len)
{
    thrum_library_t *l = &fw->library;
    uint32_t u = unit(fw);

    if (!l->writing) {
        return; /* refused or failed before: reported then */
    }
    if (offset != l->w_cursor || (uint32_t)len > l->w_size - l->w_cursor) {
        l->writing = 0;
        report(fw, THRUM_LIBRARY_STATUS_WRITE_ERROR);
        return;
    }
    while (len > 0u) {
        uint32_t room = u - l->w_cursor % u;
        uint8_t n = (uint8_t)(len < room ? len : room);

        memcpy(l->w_buf + l->w_cursor % u, data, n);
        l->w_cursor += n;
        if (l->w_cursor % u == 0u && flush_unit(fw) != 0) {
            l->writing = 0;
            report(fw, THRUM_LIBRARY_STATUS_WRITE_ERROR);
            return;
        }
        data += n;
        len = (uint8_t)(len - n);
    }
}

/* The first record position of page `page` after its last used one (a position is used when any
 * of its bytes is not 0xFF, or cannot be read); record_positions() when none is left. */
static uint16_t free_position(const thrum_fw_t *fw, uint8_t page)
{
    uint16_t pos = record_positions(fw);

    while (pos > 0u) {
        uint8_t r[RECORD_SIZE];
        uint8_t i;

        if (STORAGE_READ(fw, record_addr(fw, page, (uint16_t)(pos - 1u)), r, RECORD_SIZE) != 0) {
            break;
        }
        for (i = 0; i < RECORD_SIZE && r[i] == 0xFFu; i++) {
        }
        if (i < RECORD_SIZE) {
            break;
        }
        pos--;
    }
    return pos;
}

/* Where the switch record goes (see the top of this file); *erase: its page is erased first. */
static uint32_t record_place(const thrum_fw_t *fw, int *erase)
{
    const thrum_library_t *l = &fw->library;
    uint8_t other = l->active ? (uint8_t)(1u - l->record) : 0u;

    *erase = 0;
    if (!STORAGE_IS_FLASH(fw)) {
        return record_addr(fw, other, 0u); /* EEPROM: the other page, rewritten */
    }
    if (l->active) {
        uint16_t pos = free_position(fw, l->record);

        if (pos < record_positions(fw)) {
            return record_addr(fw, l->record, pos);
        }
    }
    *erase = 1;
    return record_addr(fw, other, 0u);
}

void thrum_library_commit(thrum_fw_t *fw)
{
    thrum_library_t *l = &fw->library;
    uint8_t slot = target_slot(fw);
    uint32_t at;
    int erase;
    uint8_t r[RECORD_SIZE]; /* the image's header first, then the record (one buffer: stack) */
    uint32_t check = 0xFFFFFFFFu;
    uint32_t seq = l->max_seq + 1u;
    uint8_t got_slot;
    uint32_t got_seq, got_size, got_crc;
    uint8_t i;

    if (!l->writing || l->w_cursor != l->w_size ||
        (l->w_cursor % unit(fw) != 0u && flush_unit(fw) != 0)) {
        l->writing = 0;
        report(fw, THRUM_LIBRARY_STATUS_WRITE_ERROR);
        return;
    }
    l->writing = 0;
    if (STORAGE_READ(fw, slot_base(fw, slot), r, 16u) != 0 || r[0] != 'T' || r[1] != 'H' || r[2] != 'R' ||
        r[3] != 'L' || r[4] != 1u || get32(r + 12) != l->w_size) {
        report(fw, THRUM_LIBRARY_STATUS_BAD_IMAGE);
        return;
    }
    if (!slot_verifies(fw, slot, l->w_size, l->w_crc)) {
        report(fw, THRUM_LIBRARY_STATUS_VERIFY_FAILED);
        return;
    }
    r[0] = 'T';
    r[1] = 'L';
    r[2] = slot;
    r[3] = 0;
    set32(r + 4, seq);
    set32(r + 8, l->w_size);
    set32(r + 12, l->w_crc);
    for (i = 0; i < 16u; i++) {
        check = crc32_update(check, r[i]);
    }
    set32(r + 16, check ^ 0xFFFFFFFFu);
    at = record_place(fw, &erase);
    if ((erase && THRUM_HAL(fw->hal, storage_erase)(THRUM_HAL_CTX(fw->hal), at) != 0) ||
        STORAGE_WRITE(fw, at, r, RECORD_SIZE) != 0 ||
        !read_record(fw, at, &got_slot, &got_seq, &got_size, &got_crc) || got_seq != seq) {
        report(fw, THRUM_LIBRARY_STATUS_WRITE_ERROR);
        return;
    }
    l->player.playing = 0; /* the old image's program is gone from under the player */
    l->max_seq = seq;
    activate(fw, (uint8_t)(at / fw->board.storage_page), slot, seq, l->w_size, l->w_crc);
    report(fw, THRUM_LIBRARY_STATUS_SWITCHED);
}

void thrum_library_read(thrum_fw_t *fw, uint32_t offset, uint8_t len)
{
    const thrum_library_t *l = &fw->library;
    uint8_t m[1u + 4u + 1u + THRUM_LIBRARY_READ_MAX];
    uint8_t n = 0;

    m[0] = THRUM_MSG_LIBRARY_DATA;
    set32(m + 1, offset);
    if (l->active && offset < l->size) {
        n = (uint8_t)(l->size - offset < len ? l->size - offset : len);
        if (STORAGE_READ(fw, slot_base(fw, l->slot) + offset, m + 6, n) != 0) {
            n = 0;
        }
    }
    m[5] = n;
    thrum_telemetry_append(fw, m, (uint8_t)(6u + n));
}

/* Index entry of preset `id` (by id when `by_trigger` is 0, else by trigger input `id`); its
 * image offset, or 0 when none. */
static uint32_t find(thrum_fw_t *fw, uint32_t key, int by_trigger)
{
    uint16_t i = 0;

#if THRUM_FW_LIBRARY_ID_CACHE > 0
    if (!by_trigger) {
        for (; i < fw->library.count && i < THRUM_FW_LIBRARY_ID_CACHE; i++) {
            if (fw->library.ids[i] == key) {
                return IMAGE_HEADER + (uint32_t)i * INDEX_ENTRY;
            }
        }
    }
#endif
#if THRUM_FW_LIBRARY_BSEARCH
    /* Builders write the index in ascending id order (the example library is): a binary search
     * reads about log2(n) ids instead of up to n entries, each probe just the id's two bytes (on
     * the AVR's 400 kHz bus ≈ 0.2 ms, a 16-byte line ≈ 0.5 ms). An index in another order falls
     * through to the scan. */
    if (!by_trigger) {
        uint16_t lo = 0;
        uint16_t hi = fw->library.count;

        while (lo < hi) {
            uint16_t mid = (uint16_t)(lo + (hi - lo) / 2u);
            uint32_t at = IMAGE_HEADER + (uint32_t)mid * INDEX_ENTRY;
            uint8_t b[2];
            uint16_t id;

            if (STORAGE_READ(fw, slot_base(fw, fw->library.slot) + at, b, 2u) != 0) {
                break;
            }
            id = (uint16_t)(b[0] | ((uint16_t)b[1] << 8));

            if (id == key) {
                return at;
            }
            if (id < key) {
                lo = (uint16_t)(mid + 1u);
            } else {
                hi = mid;
            }
        }
    }
#endif
    /* the entries the id cache did not hold (all of them without one) */
    for (; i < fw->library.count; i++) {
        uint32_t at = IMAGE_HEADER + (uint32_t)i * INDEX_ENTRY;
        if (by_trigger ? rd8(fw, at + 2u) == key : rd16(fw, at) == key) {
            return at;
        }
    }
    return 0;
}

/* Set the player on the preset of index entry `at`: its drive (the program) begins at device
 * time `start`; its pattern time 0 is the entry's lead later. */
static void start_player(thrum_fw_t *fw, uint32_t at, uint32_t start, uint32_t event_base)
{
    thrum_library_player_t *p = &fw->library.player;

    p->playing = 1;
    p->ramps_left = 0;
    p->p_pos = (thrum_library_pos_t)(fw->library.programs + rd16(fw, at + 4u));
    p->p_end = (thrum_library_pos_t)(p->p_pos + rd16(fw, at + 6u));
    p->p_time = start;
    p->event_base = event_base;
}

/* How far after the clock a preset whose start has passed is started (thrum_library_play). */
#define LATE_START_MARGIN_US 1000u

static int queue_entry(thrum_fw_t *fw, const thrum_segment_t *seg);
static void cut_player(thrum_fw_t *fw);
static int player_live(thrum_fw_t *fw);
static int next_entry(thrum_fw_t *fw, thrum_segment_t *seg);
static void start_play(thrum_fw_t *fw, uint32_t id, uint32_t start, uint32_t event_base);
static void feed(thrum_fw_t *fw);

/* Decode the preset of index entry `at` ahead into `a` (times from 0, events without a base). */
static void arm(thrum_fw_t *fw, thrum_library_armed_t *a, uint32_t at)
{
    a->count = 0;
    a->id = rd16(fw, at);
    start_player(fw, at, 0u, 0u);
    while (a->count < THRUM_FW_LIBRARY_ARMED && next_entry(fw, &a->first[a->count])) {
        a->count++;
    }
    a->player = fw->library.player;
}

/* Start a preset decoded ahead: its drive begins at `start`, its events count from `event_base`. */
static void start_armed(thrum_fw_t *fw, const thrum_library_armed_t *a, uint32_t start, uint32_t event_base)
{
    thrum_library_player_t *p = &fw->library.player;
    uint8_t k;

    *p = a->player;
    fw->library.player_stops = fw->sched.stops;
    p->p_time += start;
    p->s_time += start;
    p->event_base = event_base;
    if (p->s_event != 0u) {
        p->s_event += event_base;
    }
    for (k = 0; k < a->count; k++) {
        thrum_segment_t seg = a->first[k];
        seg.start += start;
        if (seg.event != 0u) {
            seg.event += event_base;
        }
        if (!queue_entry(fw, &seg)) {
            break;
        }
    }
}

/* The armed copy of preset `id`, if one is at hand. */
static const thrum_library_armed_t *armed_for(const thrum_fw_t *fw, uint32_t id)
{
    uint8_t i;

    if (fw->library.last.count > 0u && fw->library.last.id == id) {
        return &fw->library.last;
    }
    for (i = 0; i < THRUM_FW_TRIGGER_INPUTS; i++) {
        if (fw->library.armed[i].count > 0u && fw->library.armed[i].id == id) {
            return &fw->library.armed[i];
        }
    }
    return NULL;
}

void thrum_library_play(thrum_fw_t *fw, uint32_t id, uint32_t start, uint32_t event_base)
{
    thrum_library_t *l = &fw->library;
    const thrum_library_player_t *p = &l->player;

    /* A preset still feeding keeps playing: this one waits until it has queued its last entry
     * (thrum_library_feed starts it then). One waits; a PLAY_PRESET beyond that is refused whole. */
    if (l->next_set || (player_live(fw) && (p->ramps_left > 0u || p->p_pos < p->p_end))) {
        if (l->next_set) {
            thrum_telemetry_fault(fw, THRUM_FAULT_PRESET_CUT, event_base);
            return;
        }
        l->next_set = 1;
        l->next_stops = fw->sched.stops;
        l->next_id = id;
        l->next_start = start;
        l->next_base = event_base;
        return;
    }
    start_play(fw, id, start, event_base);
    feed(fw);
}

/* Start preset `id` (no other play feeding): its first entries queued, the rest fed as it plays. */
static void start_play(thrum_fw_t *fw, uint32_t id, uint32_t start, uint32_t event_base)
{
    const thrum_library_armed_t *a = fw->library.active ? armed_for(fw, id) : NULL;
    uint32_t at;

    if (a == NULL) {
        at = fw->library.active && id <= 0xFFFFu ? find(fw, id, 0) : 0u;
        if (at == 0u) {
            thrum_telemetry_fault(fw, THRUM_FAULT_NO_PRESET, id);
            return;
        }
        arm(fw, &fw->library.last, at); /* decodes the first entries once; the next play is fast */
        a = &fw->library.last;
    }
    /* Reading the preset from storage may have taken it past its start (or the PLAY_PRESET came
     * late): it then starts as soon as the scheduler can start it on time (its look-ahead, 0 on a
     * fast main loop, and a margin for the pass that reaches it: it may first end the entries
     * before it, a driver write; started at the clock's reading itself, a preset behind another
     * began 101 us late, trimmed), whole: a trimmed start would lose a transient's kick, or drop
     * it. Its ONSETs say when. */
    if ((int32_t)(start - (thrum_clock(fw) + THRUM_FW_DRIVE_LEAD_US)) < 0) {
        start = thrum_clock(fw) + THRUM_FW_DRIVE_LEAD_US + LATE_START_MARGIN_US;
    }
    start_armed(fw, a, start, event_base);
}

/* Decode the player's next queue entry into `seg`; 0 (and the player stopped) at the end. */
static int next_entry(thrum_fw_t *fw, thrum_segment_t *seg)
{
    thrum_library_player_t *p = &fw->library.player;

    seg->effect = 0;
    for (;;) {
        uint8_t tag;
        uint32_t event;

        if (!p->playing) {
            return 0;
        }
        if (p->ramps_left > 0u) {
            uint32_t head = rd_uv(fw, &p->s_pos);
            uint32_t gap = (head & 2u) != 0u ? rd_uv(fw, &p->s_pos) : 0u;

            seg->from = (head & 1u) != 0u ? rd8(fw, p->s_pos++) : p->prev_to;
            seg->to = rd8(fw, p->s_pos++);
            seg->duration = head >> 2;
            p->s_time += gap;
            seg->start = p->s_time;
            seg->event = p->s_event;
            p->s_event = 0;
            p->s_time += seg->duration;
            p->prev_to = seg->to;
            p->ramps_left--;
            return 1;
        }
        if (p->p_pos >= p->p_end) {
            p->playing = 0;
            return 0;
        }
        tag = rd8(fw, p->p_pos++);
        p->p_time += rd_uv(fw, &p->p_pos);
        if (tag == TAG_SHAPE) {
            uint32_t shape = rd_uv(fw, &p->p_pos);
            event = rd_uv(fw, &p->p_pos);
            p->s_pos = (thrum_library_pos_t)(fw->library.shapes + rd16(fw, fw->library.shape_table + 2u * shape));
            p->ramps_left = rd8(fw, p->s_pos++);
            p->s_time = p->p_time;
            p->s_event = event != 0u ? p->event_base + event : 0u;
            p->prev_to = 0;
            continue;
        }
        seg->start = p->p_time;
        if (tag == TAG_SEGMENT) {
            seg->duration = rd_uv(fw, &p->p_pos);
            seg->from = rd8(fw, p->p_pos++);
            seg->to = rd8(fw, p->p_pos++);
        } else if (tag == TAG_ROM) {
            seg->effect = rd8(fw, p->p_pos++);
            seg->duration = THRUM_ROM_LATE_WINDOW_US;
            seg->from = 0;
            seg->to = 0;
        } else {
            p->playing = 0;
            return 0;
        }
        event = rd_uv(fw, &p->p_pos);
        seg->event = event != 0u ? p->event_base + event : 0u;
        return 1;
    }
}

/* Whether the player still feeds a preset: not once the queue was emptied since it started (a
 * STOP, the watchdog, a takeover, a driver fault: what plays stops, the preset's rest with it). */
static int player_live(thrum_fw_t *fw)
{
    if (fw->library.player_stops != fw->sched.stops) {
        fw->library.player.playing = 0;
    }
    return fw->library.player.playing;
}

/* The playing preset's entries from the next on are dropped: FAULT 11 names the play by its event
 * base, so that the host can tell which of its events will never report. */
static void cut_player(thrum_fw_t *fw)
{
    fw->library.player.playing = 0;
    thrum_telemetry_fault(fw, THRUM_FAULT_PRESET_CUT, fw->library.player.event_base);
}

static int queue_entry(thrum_fw_t *fw, const thrum_segment_t *seg)
{
    if (seg->duration < THRUM_SEGMENT_MIN_DURATION_US || !thrum_scheduler_accepts(fw, seg->start)) {
        cut_player(fw); /* out of order behind what the host queued: the rest is dropped */
        return 0;
    }
    thrum_scheduler_enqueue(fw, seg);
    return 1;
}

/* The player keeps this many entries queued and tops the queue up on every pass, so that one
 * pass never spends long reading storage (a stored preset may be much longer than the queue). */
#define FEED_AHEAD 4u

/* Reading one entry may cost a few storage lines (on an I2C EEPROM about 0.5 ms each): while the
 * playing entry's first drive is still due, or the next entry that has not begun starts sooner
 * than this, the feed waits (it reads when only the playing entry is queued, which must be
 * followed), so that a read never makes an onset late. */
#define FEED_GUARD_US 2000u

/* A waiting PLAY_PRESET whose preset is not decoded ahead reads storage first (its index entry,
 * program, shapes: ~3 ms on an I2C EEPROM): it starts only when no onset is due sooner than this,
 * or when only the playing entry is left. */
#define NEXT_READ_GUARD_US 10000u

/* Top the queue up with the player's next entries. */
static void feed(thrum_fw_t *fw)
{
    while (player_live(fw) && fw->sched.count < THRUM_FW_QUEUE_SLOTS && fw->sched.count < FEED_AHEAD &&
           !thrum_scheduler_onset_within(fw, thrum_clock(fw), FEED_GUARD_US)) {
        thrum_segment_t seg;

        if (!next_entry(fw, &seg) || !queue_entry(fw, &seg)) {
            break;
        }
    }
}

void thrum_library_feed(thrum_fw_t *fw)
{
    thrum_library_t *l = &fw->library;

    /* The play before has queued its last entry: the waiting one starts (its start before that
     * entry's: refused, FAULT 11). A stop since it came drops it, as it ends the play it waited for. */
    if (l->next_set && !player_live(fw)) {
        uint32_t guard = l->active && armed_for(fw, l->next_id) != NULL ? FEED_GUARD_US : NEXT_READ_GUARD_US;

        if (l->next_stops != fw->sched.stops) {
            l->next_set = 0;
            thrum_telemetry_fault(fw, THRUM_FAULT_PRESET_CUT, l->next_base);
        } else if (!thrum_scheduler_onset_within(fw, thrum_clock(fw), guard)) {
            l->next_set = 0;
            start_play(fw, l->next_id, l->next_start, l->next_base);
        }
    }
    feed(fw);
}

/* Decode the first entries of every trigger input's preset (times from 0), so that an edge queues
 * drive at once; called when a library becomes active. */
static void arm_triggers(thrum_fw_t *fw)
{
    thrum_library_t *l = &fw->library;
    uint16_t i;

    l->last.count = 0;
    for (i = 0; i < THRUM_FW_TRIGGER_INPUTS; i++) {
        l->armed[i].count = 0;
    }
    /* one pass over the index (each scan of it costs storage reads) */
    for (i = 0; i < l->count; i++) {
        uint32_t at = IMAGE_HEADER + (uint32_t)i * INDEX_ENTRY;
        uint8_t input = rd8(fw, at + 2u);

#if THRUM_FW_LIBRARY_ID_CACHE > 0
        if (i < THRUM_FW_LIBRARY_ID_CACHE) {
            l->ids[i] = rd16(fw, at); /* the same line as the trigger byte */
        }
#endif
        if (input < THRUM_FW_TRIGGER_INPUTS && l->armed[input].count == 0u) {
            arm(fw, &l->armed[input], at);
        }
    }
    l->player.playing = 0;
    l->next_set = 0; /* a waiting play named a preset of the old image */
}

void thrum_library_triggers(thrum_fw_t *fw, uint32_t now)
{
    thrum_library_t *l = &fw->library;
    uint8_t level;
    uint8_t changed;
    uint8_t i;

    if (!THRUM_HAL_HAS(fw->hal, trigger_read)) {
        return;
    }
    level = THRUM_HAL(fw->hal, trigger_read)(THRUM_HAL_CTX(fw->hal));
    changed = (uint8_t)(level ^ l->trig_level);
    l->trig_level = level;
    for (i = 0; i < THRUM_FW_TRIGGER_INPUTS; i++) {
        uint8_t bit = (uint8_t)(1u << i);
        const thrum_library_armed_t *a = &l->armed[i];
        uint8_t m[1u + 1u + THRUM_UVARINT_MAX_BYTES + 4u];
        uint8_t n = 2;

        if ((changed & bit) == 0u) {
            continue;
        }
        if ((level & bit) == 0u) {
            l->trig_since[i] = now; /* released (or a bounce): the rest period starts again */
            continue;
        }
        if (now - l->trig_since[i] < THRUM_TRIGGER_DEBOUNCE_US || !l->active || a->count == 0u) {
            continue; /* a bounce within the rest period, or nothing mapped */
        }
        /* a trigger replaces whatever plays (as STOP would), then the decoded first entries go in
         * at once, from now; the player continues after them */
        if (fw->sched.count > 0u) {
            thrum_scheduler_stop(fw);
        }
        start_armed(fw, a, now, THRUM_TRIGGER_EVENT_BASE + ((uint32_t)a->id << 12));
        m[0] = THRUM_MSG_TRIGGER;
        m[1] = i;
        n = (uint8_t)(n + thrum_uvarint_encode(a->id, m + n));
        set32(m + n, now);
        thrum_telemetry_append(fw, m, (uint8_t)(n + 4u));
    }
}

uint8_t thrum_fw_library_active(const thrum_fw_t *fw, uint32_t *seq, uint32_t *size, uint32_t *crc, uint8_t *slot)
{
    *seq = fw->library.seq;
    *size = fw->library.size;
    *crc = fw->library.crc;
    *slot = fw->library.slot;
    return fw->library.active;
}

#else
typedef int thrum_library_unused_t; /* ISO C wants a declaration in every translation unit */
#endif /* THRUM_FW_LIBRARY */
