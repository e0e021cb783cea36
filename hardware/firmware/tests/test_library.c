/*
 * The preset library on flash (core/library.c through the storage HAL; flash_model.h): a flash
 * writes whole half-words once between erases whatever the host's LIBRARY_WRITE lengths, switch
 * records are appended with no erase, and the power-loss sweep: power cut at every half-word
 * program and every page erase of a flash of the example library (tests/fixtures/examples.thl,
 * `thrum library build examples/library`), each cut operation either not done or left torn. After
 * the power comes back the previous library is active and plays in every interrupted case, the new
 * one in every case where the switch completed, and flashing again works. The EEPROM path keeps its
 * two record pages rewritten in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flash_model.h"
#include "harness.h"

#if THRUM_FW_LIBRARY

#ifndef THRUM_TEST_FIXTURES
#define THRUM_TEST_FIXTURES "tests/fixtures"
#endif

/* The Cortex-M port's storage (ports/cortex-m/stm32f103.ld): 34 KiB in 1 KiB pages. */
#define CM_SIZE (34u * 1024u)
#define CM_PAGE 1024u
#define CM_CAPACITY (16u * 1024u)
#define RECORD 20u
#define WRITE_MAX (THRUM_MAX_PAYLOAD - 1u - 4u - 1u) /* LIBRARY_WRITE data, as the host sends it */
#define IMAGE_MAX 4096u

typedef struct image {
    uint8_t bytes[IMAGE_MAX];
    uint32_t len;
} image_t;

static flash_rig_t rig;
static thrum_fw_t fw;
static uint8_t base[FLASH_MODEL_MAX];

/* Left-over bytes, as an older, larger firmware would leave them: a seeded linear congruential
 * sequence (the same bytes for a seed). */
static void fill_garbage(uint8_t *mem, uint32_t size, uint32_t seed)
{
    uint32_t i;
    uint32_t x = seed;

    for (i = 0; i < size; i++) {
        x = x * 1103515245u + 12345u;
        mem[i] = (uint8_t)(x >> 16);
    }
}

static uint32_t crc32(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    uint32_t i;
    int b;

    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (b = 0; b < 8; b++) {
            crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
        }
    }
    return crc ^ 0xFFFFFFFFu;
}

static uint32_t get16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
    return get16(p) | get16(p + 2) << 16;
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

static uint32_t image_crc(const image_t *img)
{
    return get32(img->bytes + img->len - 4u);
}

/* The example library, built by `thrum library build examples/library`. */
static int load_examples(image_t *img)
{
    FILE *f = fopen(THRUM_TEST_FIXTURES "/examples.thl", "rb");

    img->len = 0;
    if (f == NULL) {
        printf("    cannot open %s/examples.thl (run the tests from hardware/firmware)\n", THRUM_TEST_FIXTURES);
        return 0;
    }
    img->len = (uint32_t)fread(img->bytes, 1, sizeof(img->bytes), f);
    fclose(f);
    return img->len > 68u && memcmp(img->bytes, "THRL", 4) == 0 && get32(img->bytes + 12) == img->len &&
           crc32(img->bytes, img->len - 4u) == image_crc(img);
}

/* Another valid image of the same presets: `suffix` appended to the library's name (every preset's
 * name offset moves with it), `version` set, size and CRC-32 trailer updated. */
static void derive(const image_t *src, image_t *out, const char *suffix, uint16_t version)
{
    uint32_t names = get16(src->bytes + 22);
    uint32_t count = get16(src->bytes + 6);
    uint32_t at = names + (uint32_t)strlen((const char *)src->bytes + names);
    uint32_t add = (uint32_t)strlen(suffix);
    uint32_t i;

    memcpy(out->bytes, src->bytes, at);
    memcpy(out->bytes + at, suffix, add);
    memcpy(out->bytes + at + add, src->bytes + at, src->len - at);
    out->len = src->len + add;
    for (i = 0; i < count; i++) {
        uint8_t *entry = out->bytes + 64u + 12u * i;
        put16(entry + 10, get16(entry + 10) + add);
    }
    put16(out->bytes + 10, version);
    put32(out->bytes + 12, out->len);
    put32(out->bytes + out->len - 4u, crc32(out->bytes, out->len - 4u));
}

/* The last LIBRARY report the device sent (lib_seen: one came since last_status()). */
static thrum_msg_t lib_msg;
static int lib_seen;

/* Take the device's output: note the LIBRARY reports, then forget it (a flash of single bytes
 * sends thousands of ACKs, more than the fake keeps). */
static void collect(void)
{
    const thrum_msg_t *m;

    fake_decode(&rig.fake);
    while ((m = fake_next(&rig.fake, THRUM_MSG_LIBRARY)) != NULL) {
        lib_msg = *m;
        lib_seen = 1;
    }
    rig.fake.nserial = 0;
    rig.fake.decoded_upto = 0;
    rig.fake.nmsgs = 0;
    rig.fake.taken = 0;
}

/* Send one host message in its own sequenced frame, then let 200 µs pass and poll. */
static uint8_t seq;

static void send(const thrum_msg_t *m)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n = thrum_msg_encode(THRUM_DIR_H2D, m, p, sizeof(p));

    fake_send_next(&rig.fake, &fw, &seq, p, n);
    rig.fake.now += 200u;
    thrum_fw_poll(&fw);
    collect();
}

/* Flash `img` as the host does (LIBRARY_BEGIN, LIBRARY_WRITEs of `chunk` bytes, LIBRARY_COMMIT),
 * from a fresh link; stops when the power is lost. */
static void flash(const image_t *img, uint8_t chunk)
{
    thrum_msg_t m;
    uint32_t off;

    memset(&m, 0, sizeof(m));
    seq = 0;
    m.id = THRUM_MSG_LIBRARY_BEGIN;
    m.field_count = 2;
    m.field[0] = img->len;
    m.field[1] = image_crc(img);
    send(&m);
    for (off = 0; off < img->len && !rig.flash.power_lost; off += chunk) {
        m.id = THRUM_MSG_LIBRARY_WRITE;
        m.field_count = 1;
        m.field[0] = off;
        m.blob = img->bytes + off;
        m.blob_len = (uint8_t)(img->len - off < chunk ? img->len - off : chunk);
        send(&m);
    }
    if (!rig.flash.power_lost) {
        memset(&m, 0, sizeof(m));
        m.id = THRUM_MSG_LIBRARY_COMMIT;
        send(&m);
    }
}

/* The status of the last LIBRARY report since the previous call, or -1 when none came. */
static int last_status(void)
{
    int seen = lib_seen;

    collect();
    lib_seen = 0;
    return seen ? (int)lib_msg.field[0] : -1;
}

static int active(uint32_t *crc, uint32_t *seq_out)
{
    uint32_t size;
    uint8_t slot;

    return thrum_fw_library_active(&fw, seq_out, &size, crc, &slot);
}

/* PLAY_PRESET `id` 2 ms ahead: the driver is driven within 40 ms. */
static int plays(uint32_t id)
{
    fake_write_t w[64];
    uint32_t fields[3];
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    size_t from = rig.fake.nwrites;
    unsigned count;
    unsigned i;

    fields[0] = id;
    fields[1] = rig.fake.now + 2000u;
    fields[2] = 100u;
    n = msg_any(p, THRUM_MSG_PLAY_PRESET, 3, fields);
    fake_send(&rig.fake, &fw, HOST_RESYNC, 0, p, n);
    fake_run_until(&rig.fake, &fw, rig.fake.now + 40000u, 250u);
    count = fake_register_writes(&rig.fake, from, DRV2605L_REG_RTP_INPUT, w, 64);
    for (i = 0; i < count && i < 64u; i++) {
        if (w[i].value != 0u) {
            return 1;
        }
    }
    return 0;
}

static void reboot(void)
{
    flash_model_power_on(&rig.flash);
    flash_rig_boot(&rig, &fw, rig.fake.now + 1000u);
}

/* A fresh board with this storage, booted. */
static void fresh(int eeprom, uint32_t size, uint16_t page)
{
    if (eeprom) {
        eeprom_model_init(&rig.flash, size, page);
    } else {
        flash_model_init(&rig.flash, size, page);
    }
    flash_rig_boot(&rig, &fw, 1000u);
}

static int record_at(uint32_t addr, uint32_t *rseq, uint8_t *slot)
{
    const uint8_t *r = rig.flash.mem + addr;

    *rseq = get32(r + 4);
    *slot = r[2];
    return r[0] == 'T' && r[1] == 'L' && crc32(r, 16) == get32(r + 16);
}

/* ---- the flash model's own rules ------------------------------------------------------------- */

static void test_flash_model_rules(void)
{
    const uint8_t ab[3] = {0x12, 0x34, 0x56};
    uint8_t out[4];

    fresh(0, CM_SIZE, CM_PAGE);
    CHECK_EQ(rig.flash.mem[100], 0xFFu);
    CHECK_EQ(flash_model_write(&rig, 100, ab, 2), 0);
    CHECK_EQ(flash_model_read(&rig, 100, out, 2), 0);
    CHECK(out[0] == 0x12 && out[1] == 0x34);
    /* a half-word is programmed once: again (even with the same bits, or only clearing) fails */
    CHECK(flash_model_write(&rig, 100, ab, 2) != 0);
    CHECK_EQ(rig.flash.refused, 1u);
    CHECK(out[0] == rig.flash.mem[100] && out[1] == rig.flash.mem[101]);
    /* half-words at even addresses, inside one page; an odd length pads the high byte with 0xFF */
    CHECK(flash_model_write(&rig, 101, ab, 2) != 0);
    CHECK(flash_model_write(&rig, CM_PAGE - 2u, ab, 3) != 0);
    CHECK_EQ(flash_model_write(&rig, 200, ab, 3), 0);
    CHECK(rig.flash.mem[202] == 0x56 && rig.flash.mem[203] == 0xFF);
    CHECK(flash_model_write(&rig, 202, ab, 2) != 0);
    /* erase: whole pages, to 0xFF; then programmable again */
    CHECK(flash_model_erase(&rig, 100) != 0);
    CHECK_EQ(flash_model_erase(&rig, 0), 0);
    CHECK(rig.flash.mem[100] == 0xFF && rig.flash.mem[202] == 0xFF);
    CHECK_EQ(flash_model_write(&rig, 100, ab, 2), 0);
    /* a cut: the operation torn (only bits to clear cleared), every later one fails */
    rig.flash.cut_at = (long)rig.flash.ops;
    rig.flash.torn = 1;
    CHECK(flash_model_write(&rig, 300, ab, 2) != 0);
    CHECK(rig.flash.power_lost);
    CHECK_EQ(rig.flash.mem[300] & 0x12u, 0x12u);
    CHECK(flash_model_erase(&rig, CM_PAGE) != 0);
    CHECK_EQ(rig.flash.mem[CM_PAGE], 0xFFu);
    flash_model_power_on(&rig.flash);
    CHECK_EQ(flash_model_erase(&rig, CM_PAGE), 0);
}

/* ---- flashing on flash ----------------------------------------------------------------------- */

/* LIBRARY_QUERY on the Cortex-M geometry: status 1 (empty) and a 16 KiB slot; after a flash 0. */
static void test_flash_query_reports_capacity(void)
{
    image_t img;
    thrum_msg_t q;

    CHECK(load_examples(&img));
    fresh(0, CM_SIZE, CM_PAGE);
    memset(&q, 0, sizeof(q));
    q.id = THRUM_MSG_LIBRARY_QUERY;
    seq = 0;
    lib_seen = 0;
    send(&q);
    CHECK(lib_seen);
    CHECK_EQ(lib_msg.field[0], THRUM_LIBRARY_STATUS_EMPTY);
    CHECK_EQ(lib_msg.field[5], CM_CAPACITY);
    flash(&img, WRITE_MAX);
    CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
    reboot();
    seq = 0;
    send(&q);
    CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_ACTIVE);
    CHECK_EQ(lib_msg.field[3], img.len);      /* size */
    CHECK_EQ(lib_msg.field[4], image_crc(&img));
    CHECK_EQ(lib_msg.field[5], CM_CAPACITY);  /* capacity */
}

/* Writes of any length (1, 7, 51 bytes: odd offsets and an odd image size) program whole
 * half-words once each: no program of a half-word that is not erased, and the image verifies. */
static void test_flash_odd_writes(void)
{
    static const uint8_t chunks[] = {1, 7, 51, WRITE_MAX};
    image_t ex, odd;
    size_t i;

    CHECK(load_examples(&ex));
    derive(&ex, &odd, ex.len % 2u == 0u ? "-odd1" : "-odd", 3);
    CHECK_EQ(odd.len % 2u, 1u);
    for (i = 0; i < sizeof(chunks); i++) {
        uint32_t crc, s;

        fresh(0, CM_SIZE, CM_PAGE);
        flash(&odd, chunks[i]);
        CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
        flash(&ex, chunks[i]);
        CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
        flash(&odd, chunks[i]);
        CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
        CHECK_EQ(rig.flash.refused, 0u);
        reboot();
        CHECK(active(&crc, &s));
        CHECK_EQ(crc, image_crc(&odd));
        CHECK_EQ(s, 3u);
        CHECK(plays(1));
    }
}

/* Switch records are appended in the record page with no erase; the other page is erased only
 * when the first is full, and the first is never erased while it holds the active record. */
static void test_flash_records_appended(void)
{
    image_t ex, other;
    unsigned positions = CM_PAGE / RECORD;
    unsigned k;
    unsigned long erases;
    uint32_t rseq;
    uint8_t slot;

    CHECK(load_examples(&ex));
    derive(&ex, &other, "-b", 2);
    fresh(0, CM_SIZE, CM_PAGE);
    for (k = 0; k < positions; k++) {
        const image_t *img = k % 2u == 0u ? &ex : &other;

        erases = rig.flash.erases;
        flash(img, WRITE_MAX);
        CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
        /* the image's pages, plus record page 0 for the first record only */
        CHECK_EQ(rig.flash.erases - erases, (img->len + CM_PAGE - 1u) / CM_PAGE + (k == 0u ? 1u : 0u));
        CHECK(record_at(k * RECORD, &rseq, &slot));
        CHECK_EQ(rseq, k + 1u);
        CHECK_EQ(slot, k % 2u);
    }
    /* page 0 is full: the next record goes first in page 1, erased first; page 0 is kept */
    erases = rig.flash.erases;
    flash(&other, WRITE_MAX);
    CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
    CHECK_EQ(rig.flash.erases - erases, (other.len + CM_PAGE - 1u) / CM_PAGE + 1u);
    CHECK(record_at(CM_PAGE, &rseq, &slot));
    CHECK_EQ(rseq, positions + 1u);
    CHECK(record_at((positions - 1u) * RECORD, &rseq, &slot));
    CHECK_EQ(rseq, positions);
    /* and the next one after it in page 1, with no erase of a record page */
    erases = rig.flash.erases;
    flash(&ex, WRITE_MAX);
    CHECK_EQ(rig.flash.erases - erases, (ex.len + CM_PAGE - 1u) / CM_PAGE);
    CHECK(record_at(CM_PAGE + RECORD, &rseq, &slot));
    CHECK_EQ(rseq, positions + 2u);
    CHECK_EQ(rig.flash.refused, 0u);
    reboot();
    {
        uint32_t crc, s;
        CHECK(active(&crc, &s));
        CHECK_EQ(crc, image_crc(&ex));
        CHECK_EQ(s, positions + 2u);
    }
}

/* Left-over bytes in the storage area (an older firmware that was larger, say): the first flash
 * erases what it uses, and works. */
static void test_flash_over_garbage(void)
{
    image_t ex;
    uint32_t crc, s;

    CHECK(load_examples(&ex));
    fresh(0, CM_SIZE, CM_PAGE);
    fill_garbage(rig.flash.mem, CM_SIZE, 12345u);
    reboot();
    CHECK(!active(&crc, &s));
    flash(&ex, WRITE_MAX);
    CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
    reboot();
    CHECK(active(&crc, &s));
    CHECK_EQ(crc, image_crc(&ex));
    CHECK(plays(1));
}

/* ---- the power-loss sweep -------------------------------------------------------------------- */

typedef struct sweep_counts {
    unsigned long ops;          /* operations of the flash swept */
    unsigned long programs;     /* of which half-word programs */
    unsigned long erases;       /* and page erases */
    unsigned interrupted;       /* cases cut before the switch completed */
    unsigned kept;              /* ... of which the previous library was active and played */
    unsigned switched;          /* cases where the switch completed: the new library active */
    unsigned recovered;         /* cases where flashing again after the cut worked */
    unsigned failed;
} sweep_counts_t;

/* Power cut at every operation of flashing `img` over the storage in `base` (both ways: the cut
 * operation not done, and torn), then power back: the library active before (`had_old`, CRC
 * `old_crc`, record `old_seq`; none when 0) is active and plays preset `id`, unless the switch
 * completed: then the new one. Then `img` is flashed again, which must work. */
static void sweep(const image_t *img, int had_old, uint32_t old_crc, uint32_t old_seq, uint32_t id, sweep_counts_t *c)
{
    unsigned long total;
    unsigned long k;
    int torn;
    uint32_t crc, s;

    memset(c, 0, sizeof(*c));
    /* the whole flash once, to count its operations */
    memcpy(rig.flash.mem, base, rig.flash.size);
    flash_model_power_on(&rig.flash);
    flash_rig_boot(&rig, &fw, 1000u);
    rig.flash.ops = rig.flash.programs = rig.flash.erases = 0;
    flash(img, WRITE_MAX);
    CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
    total = rig.flash.ops;
    c->ops = total;
    c->programs = rig.flash.programs;
    c->erases = rig.flash.erases;
    CHECK(c->programs >= img->len / 2u && c->erases >= img->len / CM_PAGE);

    for (k = 0; k <= total; k++) {
        for (torn = 0; torn < 2; torn++) {
            int ok = 1;
            int is_new;

            if (k == total && torn) {
                continue;
            }
            memcpy(rig.flash.mem, base, rig.flash.size);
            flash_model_power_on(&rig.flash);
            flash_rig_boot(&rig, &fw, 1000u);
            rig.flash.ops = 0;
            rig.flash.cut_at = (long)k;
            rig.flash.torn = torn;
            flash(img, WRITE_MAX);
            reboot();
            is_new = active(&crc, &s) && crc == image_crc(img);
            if (k == total || (is_new && k + 1u == total && torn)) {
                /* done, or the record's last half-word torn with every bit it clears cleared: the
                 * switch completed */
                c->switched++;
                ok = is_new && s == old_seq + 1u;
            } else {
                c->interrupted++;
                ok = had_old ? active(&crc, &s) && crc == old_crc && s == old_seq : !active(&crc, &s);
                if (ok) {
                    c->kept++;
                }
            }
            if (ok && (had_old || k == total) && !plays(id)) {
                ok = 0;
            }
            /* flashing again after the power came back works */
            rig.flash.cut_at = -1;
            flash(img, WRITE_MAX);
            if (last_status() == THRUM_LIBRARY_STATUS_SWITCHED && rig.flash.refused == 0u) {
                reboot();
                if (active(&crc, &s) && crc == image_crc(img)) {
                    c->recovered++;
                } else {
                    ok = 0;
                }
            } else {
                ok = 0;
            }
            if (!ok) {
                c->failed++;
                if (c->failed <= 5u) {
                    printf("    power cut at operation %lu of %lu (%s): wrong library after it\n", k, total,
                           torn ? "torn" : "not done");
                }
            }
        }
    }
    CHECK_EQ(c->failed, 0u);
    CHECK_EQ(c->recovered, c->interrupted + c->switched);
    if (had_old) {
        CHECK_EQ(c->kept, c->interrupted);
    }
}

static void report(const char *what, const sweep_counts_t *c)
{
    printf("     %s: %lu operations (%lu half-word programs, %lu page erases), %u cuts: previous library kept in "
           "%u of %u interrupted, new one in %u of %u completed, flashing again worked in %u\n",
           what, c->ops, c->programs, c->erases, c->interrupted + c->switched, c->kept, c->interrupted, c->switched,
           c->switched, c->recovered);
}

/* The device holds an older library (odd size: its last half-word padded); the example library
 * goes into the other slot and its record is appended after the active one. */
static void test_power_loss_sweep_append(void)
{
    image_t ex, old;
    sweep_counts_t c;
    uint32_t crc, s;

    CHECK(load_examples(&ex));
    derive(&ex, &old, "-old1", 7);
    fresh(0, CM_SIZE, CM_PAGE);
    flash(&old, WRITE_MAX);
    CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
    reboot();
    CHECK(active(&crc, &s) && crc == image_crc(&old));
    memcpy(base, rig.flash.mem, CM_SIZE);
    sweep(&ex, 1, image_crc(&old), s, 1, &c);
    report("append", &c);
}

/* The active record's page is full: the switch erases the other record page and writes the
 * record first in it; power lost during that erase or that write keeps the previous library. */
static void test_power_loss_sweep_record_page_full(void)
{
    image_t ex, old, other;
    sweep_counts_t c;
    unsigned positions = CM_PAGE / RECORD;
    unsigned k;
    uint32_t crc, s;
    uint8_t slot;

    CHECK(load_examples(&ex));
    derive(&ex, &old, "-old1", 7);
    derive(&ex, &other, "-x", 8);
    fresh(0, CM_SIZE, CM_PAGE);
    for (k = 0; k < positions; k++) {
        flash(k % 2u == 0u ? &old : &other, WRITE_MAX);
    }
    CHECK(record_at((positions - 1u) * RECORD, &s, &slot));
    reboot();
    CHECK(active(&crc, &s) && crc == image_crc(&old) && s == positions);
    memcpy(base, rig.flash.mem, CM_SIZE);
    sweep(&ex, 1, image_crc(&old), s, 1, &c);
    report("record page full", &c);
}

/* The first flash of a device whose storage holds left-over bytes: interrupted, no library (and
 * nothing crashes); flashing again works. */
static void test_power_loss_sweep_first_flash(void)
{
    image_t ex;
    sweep_counts_t c;

    CHECK(load_examples(&ex));
    fresh(0, CM_SIZE, CM_PAGE);
    fill_garbage(base, CM_SIZE, 777u);
    sweep(&ex, 0, 0, 0, 1, &c);
    report("first flash", &c);
}

/* ---- the EEPROM path is unchanged ------------------------------------------------------------ */

/* On an EEPROM (no erase) the record pages alternate and the record is rewritten at the start of
 * the page the active one is not in; pages are written whole; a power cut at any page write keeps
 * the previous library. */
static void test_eeprom_records_alternate(void)
{
    image_t ex, old;
    unsigned k;
    uint32_t rseq, crc, s;
    uint8_t slot;
    unsigned long writes;
    unsigned long total;

    CHECK(load_examples(&ex));
    derive(&ex, &old, "-old1", 7);
    fresh(1, 32768u, 64u);
    for (k = 0; k < 4u; k++) {
        writes = rig.flash.programs;
        flash(k % 2u == 0u ? &old : &ex, WRITE_MAX);
        CHECK_EQ(last_status(), THRUM_LIBRARY_STATUS_SWITCHED);
        /* one write per 64-byte page of the image, and the record */
        CHECK_EQ(rig.flash.programs - writes, ((k % 2u == 0u ? old.len : ex.len) + 63u) / 64u + 1u);
        CHECK(record_at((k % 2u) * 64u, &rseq, &slot));
        CHECK_EQ(rseq, k + 1u);
        CHECK_EQ(slot, k % 2u);
        CHECK_EQ(rig.flash.mem[(k % 2u) * 64u + RECORD], 0xFFu); /* no second record in the page */
    }
    /* power cut at every page write of a flash of the example library over `old` */
    memcpy(base, rig.flash.mem, 32768u);
    reboot();
    CHECK(active(&crc, &s) && crc == image_crc(&ex));
    rig.flash.ops = 0;
    flash(&old, WRITE_MAX);
    total = rig.flash.ops;
    for (k = 0; k < total; k++) {
        memcpy(rig.flash.mem, base, 32768u);
        flash_model_power_on(&rig.flash);
        flash_rig_boot(&rig, &fw, 1000u);
        rig.flash.ops = 0;
        rig.flash.cut_at = (long)k;
        flash(&old, WRITE_MAX);
        reboot();
        CHECK(active(&crc, &s) && crc == image_crc(&ex) && s == 4u);
    }
}

/* ---- a stored preset's rest dropped: FAULT 11 names the play --------------------------------- */

/* PLAY_PRESET `id` from `start` with events from `event_base` (any lane). */
static void play_preset(uint32_t id, uint32_t start, uint32_t event_base)
{
    uint32_t fields[3];
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;

    fields[0] = id;
    fields[1] = start;
    fields[2] = event_base;
    n = msg_any(p, THRUM_MSG_PLAY_PRESET, 3, fields);
    fake_send(&rig.fake, &fw, HOST_RESYNC, 0, p, n);
}

/* The detail of each FAULT 11 the device sent since the last collect() (at most `max`). */
static unsigned preset_cuts(uint32_t *details, unsigned max)
{
    const thrum_msg_t *m;
    unsigned n = 0;

    fake_decode(&rig.fake);
    while ((m = fake_next(&rig.fake, THRUM_MSG_FAULT)) != NULL) {
        CHECK_EQ(m->field[0], THRUM_FAULT_PRESET_CUT);
        if (n < max) {
            details[n] = m->field[1];
        }
        n++;
    }
    collect();
    return n;
}

/* Run until `until`, with a PING every 200 ms so that the host watchdog (1 s) stays quiet. */
static void run_alive(uint32_t until)
{
    uint8_t p[THRUM_MAX_PAYLOAD];

    while ((int32_t)(until - rig.fake.now) > 0) {
        uint32_t step = (int32_t)(until - rig.fake.now) > 200000 ? 200000u : until - rig.fake.now;

        fake_send(&rig.fake, &fw, HOST_RESYNC, 0, p, msg_any(p, THRUM_MSG_PING, 0, NULL));
        fake_run_until(&rig.fake, &fw, rig.fake.now + step, 250u);
    }
}

/* ONSETs the device sent since the last collect() with events from `first` to `last`. */
static unsigned onsets_between(uint32_t first, uint32_t last)
{
    size_t i;
    unsigned n = 0;

    fake_decode(&rig.fake);
    for (i = 0; i < rig.fake.nmsgs; i++) {
        const thrum_msg_t *m = &rig.fake.msgs[i].msg;

        n += m->id == THRUM_MSG_ONSET && m->field[0] >= first && m->field[0] <= last;
    }
    return n;
}

/* The device drops the rest of a stored preset when an entry would start before the queue's last
 * entry (here a host SEGMENT queued far beyond it, or the play before it when it waited for
 * that one: §4.9), and a PLAY_PRESET that comes while another waits is refused whole: each time
 * FAULT 11 with the dropped play's event base, so the host can tell which of its events will
 * never report. A preset that queued all it had is not cut. */
static void test_preset_cut_names_the_play(void)
{
    image_t ex;
    uint32_t t0;
    uint32_t crc;
    uint32_t s;
    uint32_t details[4];
    thrum_msg_t m;

    CHECK(load_examples(&ex));
    fresh(0, CM_SIZE, CM_PAGE);
    flash(&ex, WRITE_MAX);
    CHECK(active(&crc, &s) && crc == image_crc(&ex));
    collect();

    /* a host segment 300 ms ahead, then the metronome (preset 2) from events 0x1000 at once: its
     * first entries would start before the segment, and the play is refused */
    memset(&m, 0, sizeof(m));
    m.id = THRUM_MSG_SEGMENT;
    m.field_count = 5;
    m.field[0] = rig.fake.now + 300000u;
    m.field[1] = 2000u;
    send(&m);
    play_preset(2u, rig.fake.now + 2000u, 0x1000u);
    fake_run_until(&rig.fake, &fw, rig.fake.now + 20000u, 250u);
    CHECK_EQ(preset_cuts(details, 4), 1u);
    CHECK_EQ(details[0], 0x1000u);

    /* the metronome again (events 0x2000), and 20 ms in the heartbeat (events 0x3000) to start
     * 3.6 s on, after the metronome's last tick: it waits until the metronome has queued its last
     * entry (it replaced the metronome's play before, cutting 7 of its 8 ticks); a third
     * PLAY_PRESET while it waits is refused whole (FAULT 11 0x5000). Both play whole. */
    {
        uint8_t p[THRUM_MAX_PAYLOAD];

        fake_send(&rig.fake, &fw, HOST_RESYNC, 0, p, msg_any(p, THRUM_MSG_STOP, 0, NULL));
    }
    fake_run_until(&rig.fake, &fw, rig.fake.now + 20000u, 250u);
    CHECK_EQ(preset_cuts(details, 4), 0u);
    t0 = rig.fake.now + 2000u;
    play_preset(2u, t0, 0x2000u);
    fake_run_until(&rig.fake, &fw, rig.fake.now + 20000u, 250u);
    CHECK_EQ(preset_cuts(details, 4), 0u);
    play_preset(1u, t0 + 3600000u, 0x3000u);
    play_preset(10u, t0 + 5000000u, 0x5000u);
    fake_run_until(&rig.fake, &fw, rig.fake.now + 20000u, 250u);
    CHECK_EQ(preset_cuts(details, 4), 1u);
    CHECK_EQ(details[0], 0x5000u);
    collect();
    run_alive(t0 + 4800000u);
    CHECK_EQ(onsets_between(0x2001u, 0x2008u), 8u);
    CHECK_EQ(onsets_between(0x3001u, 0x3004u), 4u);
    CHECK_EQ(preset_cuts(details, 4), 0u);

    /* the metronome, and the heartbeat asked to start 20 ms in, during it: it waits, and once the
     * metronome queued its last entry its start lies before that entry's: refused whole (FAULT
     * 11 0x6000); the metronome plays on, whole */
    collect();
    t0 = rig.fake.now + 2000u;
    play_preset(2u, t0, 0x2000u);
    fake_run_until(&rig.fake, &fw, rig.fake.now + 20000u, 250u);
    play_preset(1u, t0 + 20000u, 0x6000u);
    run_alive(t0 + 4000000u);
    CHECK_EQ(onsets_between(0x2001u, 0x2008u), 8u);
    CHECK_EQ(onsets_between(0x6001u, 0x6004u), 0u);
    CHECK_EQ(preset_cuts(details, 4), 1u);
    CHECK_EQ(details[0], 0x6000u);

    /* the heartbeat again, stopped 20 ms in: nothing more of it drives (the player stops with
     * the queue; it fed the rest of the preset after a STOP before) */
    fake_run_until(&rig.fake, &fw, rig.fake.now + 600000u, 250u);
    play_preset(1u, rig.fake.now + 2000u, 0x4000u);
    fake_run_until(&rig.fake, &fw, rig.fake.now + 20000u, 250u);
    {
        uint8_t p[THRUM_MAX_PAYLOAD];
        fake_write_t w[64];
        size_t from;
        unsigned count;
        unsigned i;
        unsigned driven = 0;

        fake_send(&rig.fake, &fw, HOST_RESYNC, 0, p, msg_any(p, THRUM_MSG_STOP, 0, NULL));
        from = rig.fake.nwrites;
        fake_run_until(&rig.fake, &fw, rig.fake.now + 800000u, 250u);
        count = fake_register_writes(&rig.fake, from, DRV2605L_REG_RTP_INPUT, w, 64);
        for (i = 0; i < count && i < 64u; i++) {
            driven += w[i].value != 0u;
        }
        CHECK_EQ(driven, 0u);
    }
}

const test_case_t library_tests[] = {
    {"library: the flash model's rules (erase, program once, half-words, cuts)", test_flash_model_rules},
    {"library: flash storage: LIBRARY_QUERY reports the 16 KiB slot", test_flash_query_reports_capacity},
    {"library: flash storage: writes of any length program each half-word once", test_flash_odd_writes},
    {"library: flash storage: switch records appended, a record page erased only when full", test_flash_records_appended},
    {"library: flash storage: the first flash over left-over bytes", test_flash_over_garbage},
    {"library: flash power-loss sweep, record appended (every half-word program and page erase)", test_power_loss_sweep_append},
    {"library: flash power-loss sweep, record page full (every operation)", test_power_loss_sweep_record_page_full},
    {"library: flash power-loss sweep, first flash over left-over bytes (every operation)", test_power_loss_sweep_first_flash},
    {"library: EEPROM storage: records alternate, power cut at every page write", test_eeprom_records_alternate},
    {"library: a stored preset's rest dropped: FAULT 11 names the play (its event base)", test_preset_cut_names_the_play},
    {NULL, NULL},
};

#else
const test_case_t library_tests[] = {
    {NULL, NULL},
};
#endif /* THRUM_FW_LIBRARY */
