/* CUT (PROTOCOL.md §3.1, §4.8): entries starting at or after `at` removed silently, the entry
 * that spans `at` shortened (same ramp), `at` in the past ends the playing entry, replacement
 * segments in the same payload pass the order check, and the slots a cut frees count as credits. */
#include <string.h>

#include "fake_hal.h"
#include "harness.h"


static fake_t f;
static thrum_fw_t fw;
static uint8_t seq;
static size_t mark;

static void boot(void)
{
    fake_start(&f, &fw, 500, I2C_COST);
    seq = 0;
    mark = f.nwrites;
}

/* Send a sequenced frame; returns the credits of its ACK and sets *executed when the device ran
 * it (next_seq moved on). */
static uint32_t credits_after(const uint8_t *p, uint8_t n, int *executed)
{
    const thrum_msg_t *ack;

    *executed = fake_send_acked(&f, &fw, &seq, p, n, &ack);
    return ack != NULL ? ack->field[4] : 0u;
}

/* Send a sequenced frame; 1 when the device executed it. */
static int send(const uint8_t *p, uint8_t n)
{
    int executed;

    (void)credits_after(p, n, &executed);
    return executed;
}

static uint8_t msg_cut(uint8_t *out, uint32_t at)
{
    return msg_any(out, THRUM_MSG_CUT, 1, &at);
}

static uint8_t msg_rom(uint8_t *out, uint32_t start, uint32_t effect, uint32_t event)
{
    uint32_t fields[3];

    fields[0] = start;
    fields[1] = effect;
    fields[2] = event;
    return msg_any(out, THRUM_MSG_ROM_EFFECT, 3, fields);
}

/* RTP writes since boot. */
static unsigned rtp_writes(fake_write_t *out, unsigned max)
{
    return fake_register_writes(&f, mark, DRV2605L_REG_RTP_INPUT, out, max);
}

/* The ramp 100 -> 200 over [1000, 11000), rounded as §4.1 says. */
static uint8_t ramp(uint32_t t)
{
    uint32_t e = t - 1000u;
    return (uint8_t)(100u + (2u * 100u * e + 10000u) / 20000u);
}

static void test_cut_mid_segment(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_write_t w[64];
    unsigned n;
    unsigned i;
    unsigned nonzero = 0;

    boot();
    f.i2c_cost_us = 0;
    CHECK(send(p, msg_segment(p, 1000, 10000, 100, 200, 1)));
    fake_run_until(&f, &fw, 3000, 10);
    CHECK(send(p, msg_cut(p, 6000)));
    CHECK_EQ(thrum_fw_queued(&fw), 1);     /* the playing segment stays, shortened */
    fake_run_until(&f, &fw, 12000, 10);
    n = rtp_writes(w, 64);
    CHECK(n >= 10u && n <= 64u);
    for (i = 0; i < n && i < 64u; i++) {
        if (w[i].value != 0u) {
            /* every write before the cut is the uncut ramp at its time: the same slope */
            CHECK(w[i].time < 6000u);
            CHECK_EQ(w[i].value, ramp(w[i].time));
            nonzero++;
        }
    }
    CHECK(nonzero >= 10u);
    /* the last write is the 0 at the cut instant (within one 10 µs poll step) */
    CHECK_EQ(w[n - 1u].value, 0);
    CHECK(w[n - 1u].time >= 6000u && w[n - 1u].time <= 6010u);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 1); /* the segment's own onset, nothing more */
    CHECK(!f.bad_output);
}

static void test_cut_removes_rom_effect(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    int executed;
    const thrum_msg_t *m;

    boot();
    n = msg_segment(p, 1000, 2000, 150, 150, 1);
    n = (uint8_t)(n + msg_rom(p + n, 5000, 47, 2));
    n = (uint8_t)(n + msg_segment(p + n, 8000, 1000, 90, 90, 3));
    CHECK(send(p, n));
    CHECK_EQ(thrum_fw_queued(&fw), 3);
    /* the ROM effect and the segment after it start at or after 4000: gone, slots freed at once */
    n = msg_cut(p, 4000);
    CHECK_EQ(credits_after(p, n, &executed), THRUM_FW_QUEUE_SLOTS - 1u);
    CHECK(executed);
    fake_run_until(&f, &fw, 12000, 10);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 1u);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0); /* removed entries report nothing */
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_GO, mark), 0);
    CHECK_EQ(fake_writes_to(&f, DRV2605L_REG_WAV_FRM_SEQ1, mark), 0);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 0);
    CHECK_EQ(thrum_fw_queued(&fw), 0);

    /* a ROM effect playing when the cut instant comes ends there (GO = 0, RTP mode) */
    f.rom_go_reads = 1000; /* a long effect: it would run for seconds */
    CHECK(send(p, msg_rom(p, 20000, 47, 4)));
    CHECK(send(p, msg_cut(p, 30000)));
    fake_run_until(&f, &fw, 29900, 10);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x00); /* still in the sequencer */
    fake_run_until(&f, &fw, 30000 + 3u * I2C_COST, 10);
    CHECK_EQ(f.regs[DRV2605L_REG_GO], 0);
    fake_run_until(&f, &fw, 31000, 10);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x05);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK(!f.bad_output);
}

static void test_cut_in_the_past(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    fake_write_t w[16];
    unsigned n;
    const thrum_msg_t *m;

    boot();
    CHECK(send(p, msg_segment(p, 1000, 20000, 150, 150, 1)));
    fake_run_until(&f, &fw, 5000, 10);
    CHECK_EQ(f.regs[DRV2605L_REG_RTP_INPUT], 150);
    /* `at` before now: the playing segment ends now */
    CHECK(send(p, msg_cut(p, 2000)));
    fake_run_until(&f, &fw, 5010, 10);
    n = rtp_writes(w, 16);
    CHECK_EQ(n, 2);
    CHECK_EQ(w[1].value, 0);
    CHECK(w[1].time >= 5000u && w[1].time <= 5000u + 10u + I2C_COST);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    m = fake_next(&f, THRUM_MSG_ONSET);
    CHECK(m != NULL && m->field[0] == 1u);
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0);

    /* an entry that began after `at` (`at` long past) ends now as well, and a ROM effect
     * playing then leaves the sequencer at once */
    f.rom_go_reads = 1000;
    CHECK(send(p, msg_rom(p, 10000, 47, 2)));
    fake_run_until(&f, &fw, 12000, 10);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x00);
    CHECK(send(p, msg_cut(p, 9000)));
    CHECK_EQ(f.regs[DRV2605L_REG_GO], 0);
    CHECK_EQ(f.regs[DRV2605L_REG_MODE], 0x05);
    CHECK_EQ(thrum_fw_queued(&fw), 0);
    CHECK(!f.bad_output);
}

static void test_cut_then_segments_in_one_payload(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    fake_write_t w[64];
    unsigned count;
    unsigned i;
    const thrum_msg_t *m;

    boot();
    n = msg_segment(p, 1000, 10000, 120, 120, 1);
    n = (uint8_t)(n + msg_segment(p + n, 6000, 5000, 130, 130, 2));
    n = (uint8_t)(n + msg_segment(p + n, 9000, 5000, 140, 140, 3));
    CHECK(send(p, n));
    /* replacement drive from 5000 on, without the cut: out of order, rejected whole */
    n = msg_segment(p, 5000, 3000, 80, 80, 2);
    CHECK(!send(p, n));
    CHECK_EQ(thrum_fw_queued(&fw), 3);
    /* with the cut first, the same segments (same event ids) are accepted */
    n = msg_cut(p, 5000);
    n = (uint8_t)(n + msg_segment(p + n, 5000, 3000, 80, 80, 2));
    n = (uint8_t)(n + msg_segment(p + n, 8000, 2000, 60, 60, 3));
    CHECK(send(p, n));
    CHECK_EQ(thrum_fw_queued(&fw), 3);
    /* but a segment after the cut must still follow the entry the cut left in front of it */
    n = msg_cut(p, 9000);
    n = (uint8_t)(n + msg_segment(p + n, 7000, 1000, 10, 10, 0));
    CHECK(!send(p, n));
    fake_run_until(&f, &fw, 12000, 10);
    count = rtp_writes(w, 64);
    CHECK_EQ(count, 4);
    if (count == 4u) {
        CHECK_EQ(w[0].value, 120);
        CHECK(w[0].time >= 1000u && w[0].time <= 1000u + 10u + I2C_COST);
        CHECK_EQ(w[1].value, 80); /* no gap, no 0 in between */
        CHECK(w[1].time >= 5000u && w[1].time <= 5000u + 10u + I2C_COST);
        CHECK_EQ(w[2].value, 60);
        CHECK(w[2].time >= 8000u && w[2].time <= 8000u + 10u + I2C_COST);
        CHECK_EQ(w[3].value, 0);
        CHECK(w[3].time >= 10000u && w[3].time <= 10000u + 10u + I2C_COST);
    }
    /* one ONSET per event: the removed entries reported nothing, the replacements did */
    for (i = 1; i <= 3u; i++) {
        m = fake_next(&f, THRUM_MSG_ONSET);
        CHECK(m != NULL && m->field[0] == i && m->field[2] == THRUM_ONSET_ON_TIME);
    }
    CHECK_EQ(fake_count(&f, THRUM_MSG_ONSET), 0);
    CHECK(!f.bad_output);
}

static void test_cut_frees_credits(void)
{
    uint8_t p[THRUM_MAX_PAYLOAD];
    uint8_t n;
    uint32_t i;
    int executed;
    uint32_t credits;

    boot();
    /* fill every slot, four segments a frame */
    for (i = 0; i < THRUM_FW_QUEUE_SLOTS; i += 4u) {
        uint32_t k;
        n = 0;
        for (k = i; k < i + 4u && k < THRUM_FW_QUEUE_SLOTS; k++) {
            n = (uint8_t)(n + msg_segment(p + n, 100000u + 1000u * k, 1000, 50, 50, 0));
        }
        CHECK(send(p, n));
    }
    CHECK_EQ(thrum_fw_free_slots(&fw), 0);
    /* a full queue refuses more (flow control) ... */
    n = msg_segment(p, 100000u + 1000u * THRUM_FW_QUEUE_SLOTS, 1000, 50, 50, 0);
    credits = credits_after(p, n, &executed);
    CHECK(!executed);
    CHECK_EQ(credits, 0);
    CHECK_EQ(fw.stats.flow_violations, 1);
    /* ... but a cut that removes the last three makes room for three replacements */
    n = msg_cut(p, 100000u + 1000u * (THRUM_FW_QUEUE_SLOTS - 3u));
    for (i = 0; i < 3u; i++) {
        n = (uint8_t)(n + msg_segment(p + n, 100000u + 1000u * (THRUM_FW_QUEUE_SLOTS - 3u + i), 500, 70, 70, 0));
    }
    credits = credits_after(p, n, &executed);
    CHECK(executed);
    CHECK_EQ(credits, 0);
    /* a cut alone reports the freed slots in its ACK */
    n = msg_cut(p, 100000u + 1000u * (THRUM_FW_QUEUE_SLOTS - 5u));
    CHECK_EQ(credits_after(p, n, &executed), 5);
    CHECK(executed);
    /* fill up again, then four replacements need more than the three a cut frees: refused */
    n = 0;
    for (i = THRUM_FW_QUEUE_SLOTS - 5u; i < THRUM_FW_QUEUE_SLOTS; i++) {
        n = (uint8_t)(n + msg_segment(p + n, 100000u + 1000u * i, 1000, 50, 50, 0));
    }
    CHECK(send(p, n));
    CHECK_EQ(thrum_fw_free_slots(&fw), 0);
    n = msg_cut(p, 100000u + 1000u * (THRUM_FW_QUEUE_SLOTS - 3u));
    for (i = 0; i < 4u; i++) {
        n = (uint8_t)(n + msg_segment(p + n, 100000u + 1000u * (THRUM_FW_QUEUE_SLOTS - 3u) + 10u * i, 5, 70, 70, 0));
    }
    credits = credits_after(p, n, &executed);
    CHECK(!executed);
    CHECK_EQ(credits, 0);
    CHECK_EQ(fw.stats.flow_violations, 2);
    CHECK_EQ(thrum_fw_queued(&fw), THRUM_FW_QUEUE_SLOTS); /* nothing of it ran, not even the cut */
    CHECK(!f.bad_output);
}

const test_case_t cut_tests[] = {
    {"cut: mid-segment, same ramp until the cut, then 0", test_cut_mid_segment},
    {"cut: removes a queued ROM effect silently; ends a playing one", test_cut_removes_rom_effect},
    {"cut: at in the past ends the playing entry now", test_cut_in_the_past},
    {"cut: replacement segments in the same payload pass the order check", test_cut_then_segments_in_one_payload},
    {"cut: slots it frees count as credits", test_cut_frees_credits},
    {NULL, NULL},
};
