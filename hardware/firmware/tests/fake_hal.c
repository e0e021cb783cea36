#include "fake_hal.h"

#include <string.h>

#include "thrum_host_sim.h"

static uint32_t fake_clock(void *ctx)
{
    return ((fake_t *)ctx)->now;
}

/* DRV2605L reset values that matter here (reference notes §1.1); STATUS keeps its DEVICE_ID. */
static void reset_regs(fake_t *f)
{
    uint8_t id = (uint8_t)(f->regs[DRV2605L_REG_STATUS] & DRV2605L_STATUS_DEVICE_ID);

    memset(f->regs, 0, sizeof(f->regs));
    f->regs[DRV2605L_REG_STATUS] = id;
    f->regs[DRV2605L_REG_MODE] = 0x40;
    f->regs[DRV2605L_REG_LIBRARY] = 0x01;
    f->regs[DRV2605L_REG_RATED_VOLTAGE] = 0x3E;
    f->regs[DRV2605L_REG_OD_CLAMP] = 0x8C;
    f->regs[DRV2605L_REG_A_CAL_COMP] = 0x0C;
    f->regs[DRV2605L_REG_A_CAL_BEMF] = 0x6C;
    f->regs[DRV2605L_REG_FEEDBACK_CONTROL] = 0x36;
    f->regs[DRV2605L_REG_CONTROL1] = 0x93;
    f->regs[DRV2605L_REG_CONTROL2] = 0xF5;
    f->regs[DRV2605L_REG_CONTROL3] = 0xA0;
    f->regs[DRV2605L_REG_OL_LRA_PERIOD] = 0x33;
    f->go_reads_left = 0;
}

static void note_access(fake_t *f)
{
    if (!f->accessed) {
        f->accessed = 1;
        f->first_access_time = f->now;
    }
}

static int fake_i2c_write(void *ctx, uint8_t addr, const uint8_t *data, uint8_t len)
{
    fake_t *f = ctx;
    uint8_t i;

    note_access(f);
    f->now += f->i2c_cost_us;
    if (!f->present || addr != DRV2605L_I2C_ADDR || len < 1u) {
        return -6; /* -ENXIO: nobody acknowledged */
    }
    if (f->fail_reg == data[0] && f->fail_count != 0) {
        if (f->fail_count > 0) {
            f->fail_count--;
        }
        return -5;
    }
    for (i = 1; i < len; i++) {
        uint8_t reg = (uint8_t)(data[0] + i - 1u);
        if (reg == DRV2605L_REG_MODE && (data[i] & DRV2605L_MODE_DEV_RESET) != 0u) {
            /* DEV_RESET: as a power cycle; MODE reads bit 7 until the reset is done */
            reset_regs(f);
            f->regs[DRV2605L_REG_MODE] = 0xC0;
            f->dev_resets++;
            f->reset_reads_left = f->reset_reads;
        } else if (reg < FAKE_REGS && reg != DRV2605L_REG_STATUS) {
            f->regs[reg] = data[i];
        }
        if (reg == DRV2605L_REG_GO) {
            uint8_t mode = DRV2605L_FIELD_GET(DRV2605L_MODE_MODE, f->regs[DRV2605L_REG_MODE]);
            f->go_reads_left = (data[i] & 1u) == 0u ? 0u
                             : mode == DRV2605L_MODE_AUTO_CALIBRATION ? f->cal_go_reads
                             : mode == DRV2605L_MODE_INTERNAL_TRIGGER ? f->rom_go_reads : 0u;
            if (mode == DRV2605L_MODE_AUTO_CALIBRATION && (data[i] & 1u) != 0u) {
                f->regs[DRV2605L_REG_LRA_PERIOD] = FAKE_CAL_LRA_PERIOD;
            }
        }
        if (f->nwrites < FAKE_MAX_WRITES) {
            f->writes[f->nwrites].time = f->now;
            f->writes[f->nwrites].reg = reg;
            f->writes[f->nwrites].value = data[i];
            f->nwrites++;
        }
    }
    return 0;
}

static int fake_i2c_read(void *ctx, uint8_t addr, uint8_t reg, uint8_t *out, uint8_t len)
{
    fake_t *f = ctx;
    uint8_t i;

    note_access(f);
    f->now += f->i2c_cost_us;
    f->reads++;
    if (!f->present || addr != DRV2605L_I2C_ADDR) {
        return -6;
    }
    if (f->fail_read_reg == reg && f->fail_read_count != 0) {
        if (f->fail_read_count > 0) {
            f->fail_read_count--;
        }
        return -5;
    }
    for (i = 0; i < len; i++) {
        uint8_t r = (uint8_t)(reg + i);
        if (r == DRV2605L_REG_GO && f->regs[r] != 0u) {
            if (f->go_reads_left > 0u) {
                f->go_reads_left--;
            } else {
                uint8_t mode = DRV2605L_FIELD_GET(DRV2605L_MODE_MODE, f->regs[DRV2605L_REG_MODE]);
                f->regs[r] = 0; /* done: GO self-clears */
                if (mode == DRV2605L_MODE_AUTO_CALIBRATION) {
                    f->regs[DRV2605L_REG_A_CAL_COMP] = FAKE_CAL_COMP;
                    f->regs[DRV2605L_REG_A_CAL_BEMF] = FAKE_CAL_BEMF;
                    f->regs[DRV2605L_REG_FEEDBACK_CONTROL] =
                        (uint8_t)((f->regs[DRV2605L_REG_FEEDBACK_CONTROL] & ~DRV2605L_FEEDBACK_BEMF_GAIN) | FAKE_CAL_BEMF_GAIN);
                    if (f->cal_fail) {
                        f->regs[DRV2605L_REG_STATUS] |= DRV2605L_STATUS_DIAG_RESULT;
                    }
                }
            }
        }
        if (r == DRV2605L_REG_MODE && (f->regs[r] & DRV2605L_MODE_DEV_RESET) != 0u) {
            if (f->reset_reads_left > 0u) {
                f->reset_reads_left--;
            } else if (!f->reset_stuck) {
                f->regs[r] &= (uint8_t)~DRV2605L_MODE_DEV_RESET;
            }
        }
        out[i] = r < FAKE_REGS ? f->regs[r] : 0u;
        if (r == DRV2605L_REG_STATUS) {
            /* the flag bits clear on read, DEVICE_ID stays */
            f->regs[r] &= DRV2605L_STATUS_DEVICE_ID;
        }
    }
    return 0;
}

/* The line sends the ring's bytes one per tx_byte_us up to the clock. */
static void tx_line(fake_t *f)
{
    uint32_t sent = (f->now - f->tx_line_at) / f->tx_byte_us;

    if (sent >= f->tx_queued) {
        f->tx_queued = 0;
        f->tx_line_at = f->now;
    } else {
        f->tx_queued -= sent;
        f->tx_line_at += sent * f->tx_byte_us;
    }
}

static uint16_t fake_serial_room(void *ctx)
{
    fake_t *f = ctx;

    f->tx_room_calls++;
    f->tx_spin = f->tx_room_calls > 1u && f->now == f->tx_room_at ? f->tx_spin + 1u : 1u;
    if (f->tx_spin > f->tx_spin_max) {
        f->tx_spin_max = f->tx_spin;
    }
    f->now += 1u;
    f->tx_room_at = f->now;
    tx_line(f);
    return (uint16_t)(f->tx_ring - f->tx_queued);
}

void fake_limit_tx(fake_t *f, unsigned bytes, uint32_t byte_us, int tell_room)
{
    f->tx_ring = bytes;
    f->tx_queued = 0;
    f->tx_byte_us = byte_us;
    f->tx_line_at = f->now;
    f->hal.serial_room = tell_room ? fake_serial_room : NULL;
}

static void fake_serial_write(void *ctx, const uint8_t *data, uint16_t len)
{
    fake_t *f = ctx;

    if (f->tx_ring > 0u) {
        tx_line(f);
        if (f->tx_queued + len > f->tx_ring) {
            uint16_t fits = (uint16_t)(f->tx_ring - f->tx_queued);
            f->tx_dropped += (unsigned)(len - fits);
            len = fits; /* as thrum_port_tx_put: what fits, the rest is lost */
        }
        f->tx_queued += len;
    }
    if (f->nserial + len <= FAKE_MAX_SERIAL) {
        memcpy(f->serial + f->nserial, data, len);
        f->nserial += len;
    }
}

static void fake_delay(void *ctx, uint32_t us)
{
    fake_t *f = ctx;

    if (!f->accessed) {
        f->delayed_us += us;
    }
    f->now += us;
}

/* Bus recovery: frees the bus (ends the injected failures) when recover_frees is set. */
static int fake_i2c_recover(void *ctx)
{
    fake_t *f = ctx;

    f->recoveries++;
    f->now += 9u * 10u + 10u; /* 9 SCL pulses at 100 kHz and a STOP */
    if (f->recover_frees) {
        f->fail_count = 0;
        return 0;
    }
    return -5;
}

static void fake_driver_enable(void *ctx, uint8_t on)
{
    fake_t *f = ctx;

    f->en = on;
    f->en_calls++;
    if (on && !f->en_time_set) {
        f->en_time_set = 1;
        f->en_time = f->now;
    }
}

void fake_init(fake_t *f)
{
    memset(f, 0, sizeof(*f));
    f->hal.ctx = f;
    f->hal.clock_us = fake_clock;
    f->hal.i2c_write = fake_i2c_write;
    f->hal.i2c_read = fake_i2c_read;
    f->hal.serial_write = fake_serial_write;
    f->hal.delay_us = fake_delay;
    f->hal.i2c_recover = fake_i2c_recover;
    f->hal.driver_enable = fake_driver_enable;
    f->present = 1;
    f->fail_reg = -1;
    f->fail_read_reg = -1;
    f->i2c_cost_us = 0;
    f->cal_go_reads = 3;
    f->rom_go_reads = 5;
    f->reset_reads = 2;
    f->regs[DRV2605L_REG_STATUS] = 0xE0; /* DRV2605L */
    reset_regs(f);
    thrum_frame_decoder_init(&f->dec, THRUM_CTRL_MARK_DEVICE);
}

void fake_boot(fake_t *f, thrum_fw_t *fw, uint32_t t0)
{
    thrum_board_t board = thrum_host_sim_default_board();

    f->now = t0;
    thrum_fw_init(fw, &f->hal, &board);
}

/* An ONSET equal to one already received (event, time, status): the device's repeat of it. */
static int is_repeat(const fake_t *f, const thrum_msg_t *m)
{
    size_t i;

    for (i = 0; i < f->nmsgs; i++) {
        const thrum_msg_t *o = &f->msgs[i].msg;
        if (o->id == THRUM_MSG_ONSET && o->field[0] == m->field[0] && o->field[1] == m->field[1] && o->field[2] == m->field[2]) {
            return 1;
        }
    }
    return 0;
}

void fake_decode(fake_t *f)
{
    const uint8_t *data = f->serial + f->decoded_upto;
    size_t len = f->nserial - f->decoded_upto;

    f->decoded_upto = f->nserial;
    for (;;) {
        thrum_frame_t frame;
        int found;
        size_t n = thrum_frame_decoder_feed(&f->dec, data, len, &frame, &found);
        size_t pos = 0;
        unsigned index = 0;

        data += n;
        len -= n;
        if (!found) {
            break;
        }
        while (pos < frame.len) {
            thrum_msg_t msg;
            int m = thrum_msg_decode(THRUM_DIR_D2H, frame.payload + pos, frame.len - pos, &msg);
            if (m < 0) {
                f->bad_output = 1;
                break;
            }
            if ((index == 0u) != (msg.id == THRUM_MSG_ACK)) {
                f->bad_output = 1; /* exactly one ACK, and first */
            }
            if (msg.id == THRUM_MSG_ONSET && is_repeat(f, &msg)) {
                if (f->onset_repeats < sizeof(f->repeat) / sizeof(f->repeat[0])) {
                    f->repeat[f->onset_repeats].frame = f->frames;
                    f->repeat[f->onset_repeats].event = msg.field[0];
                }
                f->onset_repeats++; /* a repeated ONSET (PROTOCOL.md §3.2): dropped, as the host does */
            } else if (f->nmsgs < FAKE_MAX_MSGS) {
                f->msgs[f->nmsgs].frame = f->frames;
                f->msgs[f->nmsgs].index = index;
#if THRUM_FW_SESSIONS
                f->msgs[f->nmsgs].keyed = frame.keyed;
#endif
                f->msgs[f->nmsgs].msg = msg;
                f->nmsgs++;
            }
            pos += (size_t)m;
            index++;
        }
        if (frame.len == 0u) {
            f->bad_output = 1;
        }
        f->frames++;
    }
    if (f->dec.bad_crc != 0u || f->dec.discarded_bytes != 0u) {
        f->bad_output = 1;
    }
}

const thrum_msg_t *fake_next(fake_t *f, uint32_t id)
{
    fake_decode(f);
    while (f->taken < f->nmsgs) {
        const thrum_msg_t *m = &f->msgs[f->taken++].msg;
        if (id == 0u || m->id == id) {
            return m;
        }
    }
    return NULL;
}

unsigned fake_count(fake_t *f, uint32_t id)
{
    size_t i;
    unsigned n = 0;

    fake_decode(f);
    for (i = f->taken; i < f->nmsgs; i++) {
        if (id == 0u || f->msgs[i].msg.id == id) {
            n++;
        }
    }
    return n;
}

void fake_drop_output(fake_t *f)
{
    fake_decode(f);
    f->taken = f->nmsgs;
}

unsigned fake_writes_to(const fake_t *f, uint8_t reg, size_t from)
{
    size_t i;
    unsigned n = 0;

    for (i = from; i < f->nwrites; i++) {
        if (f->writes[i].reg == reg) {
            n++;
        }
    }
    return n;
}

void fake_send(fake_t *f, thrum_fw_t *fw, uint8_t ctrl, uint8_t seq, const uint8_t *payload, uint8_t len)
{
    uint8_t frame[THRUM_MAX_FRAME];
    uint8_t n = thrum_frame_encode(frame, ctrl, seq, payload, len);

    thrum_fw_receive(fw, frame, n, f->now);
}

void fake_send_next(fake_t *f, thrum_fw_t *fw, uint8_t *seq, const uint8_t *payload, uint8_t len)
{
    fake_send(f, fw, *seq == 0u ? HOST_RESYNC : HOST_SEQ, *seq, payload, len);
    (*seq)++;
}

int fake_send_acked(fake_t *f, thrum_fw_t *fw, uint8_t *seq, const uint8_t *payload, uint8_t len,
                    const thrum_msg_t **ack)
{
    uint8_t expected = (uint8_t)(*seq + 1u);
    size_t i;

    fake_send(f, fw, *seq == 0u ? HOST_RESYNC : HOST_SEQ, *seq, payload, len);
    fake_decode(f);
    *ack = NULL;
    for (i = f->nmsgs; i > 0u && *ack == NULL; i--) {
        if (f->msgs[i - 1u].msg.id == THRUM_MSG_ACK) {
            *ack = &f->msgs[i - 1u].msg;
        }
    }
    if (*ack != NULL && (*ack)->field[0] == expected) {
        *seq = expected;
        return 1;
    }
    return 0;
}

static uint8_t encode(uint8_t *out, thrum_msg_t *m)
{
    return thrum_msg_encode(THRUM_DIR_H2D, m, out, THRUM_MAX_PAYLOAD);
}

uint8_t msg_segment(uint8_t *out, uint32_t start, uint32_t duration, uint8_t from, uint8_t to, uint32_t event)
{
    thrum_msg_t m;

    m.id = THRUM_MSG_SEGMENT;
    m.field_count = 5;
    m.field[0] = start;
    m.field[1] = duration;
    m.field[2] = from;
    m.field[3] = to;
    m.field[4] = event;
    return encode(out, &m);
}

uint8_t msg_plain(uint8_t *out, uint32_t id)
{
    thrum_msg_t m;

    m.id = id;
    m.field_count = 0;
    return encode(out, &m);
}

uint8_t msg_configure(uint8_t *out, uint8_t rated, uint8_t clamp, uint8_t drive_time, uint8_t period)
{
    thrum_msg_t m;

    m.id = THRUM_MSG_CONFIGURE_DRIVER;
    m.field_count = 4;
    m.field[0] = rated;
    m.field[1] = clamp;
    m.field[2] = drive_time;
    m.field[3] = period;
    return encode(out, &m);
}

void fake_run_until(fake_t *f, thrum_fw_t *fw, uint32_t t, uint32_t step)
{
    while (thrum_time_before(f->now, t)) {
        thrum_fw_poll(fw);
        if (!thrum_time_before(f->now, t)) {
            break; /* the I2C traffic of that poll already took the clock there */
        }
        f->now = (t - f->now) <= step ? t : f->now + step;
    }
    thrum_fw_poll(fw);
}

uint8_t msg_any(uint8_t *out, uint32_t id, uint8_t count, const uint32_t *fields)
{
    thrum_msg_t msg;
    uint8_t i;

    msg.id = id;
    msg.field_count = count;
    for (i = 0; i < count; i++) {
        msg.field[i] = fields[i];
    }
    return thrum_msg_encode(THRUM_DIR_H2D, &msg, out, THRUM_MAX_PAYLOAD);
}

void fake_start(fake_t *f, thrum_fw_t *fw, uint32_t now, uint32_t i2c_cost_us)
{
    fake_init(f);
    fake_boot(f, fw, 0);
    f->now = now;
    f->i2c_cost_us = i2c_cost_us;
    fake_drop_output(f);
}

unsigned fake_register_writes(const fake_t *f, size_t from, uint8_t reg, fake_write_t *out, unsigned max)
{
    size_t i;
    unsigned n = 0;

    for (i = from; i < f->nwrites; i++) {
        if (f->writes[i].reg == reg) {
            if (n < max) {
                out[n] = f->writes[i];
            }
            n++;
        }
    }
    return n;
}
