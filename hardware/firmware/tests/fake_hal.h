/*
 * A fake board for the core: a DRV2605L register file at 0x5A that logs every write with the time
 * it completed, a clock the test sets, and the serial output decoded with the core's own decoder.
 */
#ifndef THRUM_FAKE_HAL_H
#define THRUM_FAKE_HAL_H

#include "thrum_fw.h"

#define FAKE_REGS 0x23
#define FAKE_MAX_WRITES 8192
#define FAKE_MAX_SERIAL 65536
#define FAKE_MAX_MSGS 2048

/* CTRL bytes of host frames: sequenced, and sequenced with RESYNC. */
#define HOST_SEQ THRUM_CTRL_MARK_HOST
#define HOST_RESYNC (THRUM_CTRL_MARK_HOST | THRUM_CTRL_RESYNC)
/* One register write at 400 kHz, µs: what the schedulers' tests charge per I2C transfer. */
#define I2C_COST 73u

typedef struct fake_write {
    uint32_t time; /* clock when the write returned */
    uint8_t reg;
    uint8_t value;
} fake_write_t;

typedef struct fake_msg {
    unsigned frame;        /* index of the device frame it came in */
    unsigned index;        /* position inside that frame */
#if THRUM_FW_SESSIONS
    uint8_t keyed;         /* 0: a plain frame; i: its CRC started from the decoder's key[i - 1] */
#endif
    thrum_msg_t msg;
} fake_msg_t;

typedef struct fake {
    thrum_hal_t hal;
    uint32_t now;
    uint32_t i2c_cost_us;      /* the clock advances this much per I2C transfer */
    int present;               /* the driver answers */
    int fail_reg;              /* writes to this register fail (-1: none) */
    int fail_count;            /* ... this many times (-1: always) */
    uint8_t regs[FAKE_REGS];
    fake_write_t writes[FAKE_MAX_WRITES];
    size_t nwrites;
    unsigned reads;
    uint32_t first_access_time; /* clock at the first I2C access */
    int accessed;
    uint32_t delayed_us;       /* total busy-wait before the first access */
    uint8_t serial[FAKE_MAX_SERIAL];
    size_t nserial;
    /* decoded output */
    thrum_frame_decoder_t dec;
    size_t decoded_upto;
    unsigned frames;
    fake_msg_t msgs[FAKE_MAX_MSGS];
    size_t nmsgs;
    unsigned onset_repeats; /* repeated ONSETs seen and dropped by fake_decode */
    struct {
        size_t frame;       /* the device frame (counted from 0) that repeated it */
        uint32_t event;
    } repeat[256];          /* the first 256 of them */
    size_t taken;              /* messages already returned by fake_next */
    int bad_output;            /* a device frame that failed to parse or did not start with ACK */
    /* GO: set in MODE 7 (calibration) or MODE 0 (sequencer) it reads 1 for this many more reads
     * of GO, then self-clears; calibration then writes its results */
    unsigned go_reads_left;
    unsigned cal_go_reads;     /* default 3 */
    unsigned rom_go_reads;     /* default 5 */
    int cal_fail;              /* the next calibration fails (DIAG_RESULT = 1) */
    unsigned recoveries;       /* i2c_recover calls */
    unsigned dev_resets;       /* MODE writes with DEV_RESET */
    unsigned reset_reads;      /* MODE reads that still show DEV_RESET after one (default 2) */
    unsigned reset_reads_left;
    int reset_stuck;           /* DEV_RESET never clears */
    int fail_read_reg;         /* reads of this register fail (-1: none) ... */
    int fail_read_count;       /* ... this many times (-1: always) */
    int recover_frees;         /* i2c_recover ends the injected write failures */
    uint8_t en;                /* EN pin as driven through the HAL */
    unsigned en_calls;
    int en_time_set;
    uint32_t en_time;          /* clock when EN first went high */
    /* a transmit ring like a port's (fake_limit_tx): serial_write keeps what fits and drops the
     * rest, the line takes tx_byte_us per byte out of it */
    unsigned tx_ring;          /* bytes it holds (0: no ring, serial_room NULL, nothing dropped) */
    unsigned tx_queued;        /* bytes in it now */
    uint32_t tx_byte_us;
    uint32_t tx_line_at;       /* clock up to which the line's sending is counted */
    unsigned tx_dropped;       /* bytes serial_write dropped: the core wrote more than fitted */
    unsigned tx_room_calls;
    unsigned tx_spin;          /* serial_room calls in a row with nothing else taking the clock on */
    unsigned tx_spin_max;      /* the longest such run: a core waiting for room */
    uint32_t tx_room_at;       /* clock after the last serial_room call */
} fake_t;

void fake_init(fake_t *f);

/* Typical boot: fake_init, then thrum_fw_init with the host-sim board at time `t0`. */
void fake_boot(fake_t *f, thrum_fw_t *fw, uint32_t t0);
/* A fresh fake and a booted firmware, then the clock set to `now`, I2C transfers costing
 * `i2c_cost_us`, and the boot's output dropped: the common start of a scheduler test. */
void fake_start(fake_t *f, thrum_fw_t *fw, uint32_t now, uint32_t i2c_cost_us);
/* The writes to register `reg` from write number `from` on: copies the first `max` into `out`
 * and returns how many there are. */
unsigned fake_register_writes(const fake_t *f, size_t from, uint8_t reg, fake_write_t *out, unsigned max);

/* Give the fake a transmit ring of `bytes` drained at `byte_us` per byte from now on; with
 * `tell_room` the HAL has serial_room (what ports do), without it the core cannot know (what they
 * did before: a full ring drops bytes). Each serial_room call takes 1 µs of the clock (a spin). */
void fake_limit_tx(fake_t *f, unsigned bytes, uint32_t byte_us, int tell_room);

/* Decode the serial output produced so far. */
void fake_decode(fake_t *f);

/* Next not-yet-taken device message with this id (0 = any); NULL when none. */
const thrum_msg_t *fake_next(fake_t *f, uint32_t id);

/* Count of not-yet-taken messages with this id (0 = any). */
unsigned fake_count(fake_t *f, uint32_t id);

/* Forget every message decoded so far. */
void fake_drop_output(fake_t *f);

/* Writes to `reg` since write index `from`. */
unsigned fake_writes_to(const fake_t *f, uint8_t reg, size_t from);

/* Send one host frame to the core at the fake clock. */
void fake_send(fake_t *f, thrum_fw_t *fw, uint8_t ctrl, uint8_t seq, const uint8_t *payload, uint8_t len);

/* Send the next frame of a sequenced stream: RESYNC when `*seq` is 0 (the stream's first frame),
 * SEQ otherwise; `*seq` advances. */
void fake_send_next(fake_t *f, thrum_fw_t *fw, uint8_t *seq, const uint8_t *payload, uint8_t len);

/* Send the next frame of a sequenced stream and read the device's answer: *ack is its last ACK
 * (NULL when none; no message is taken, ONSETs stay to be read). Returns 1 and advances `*seq`
 * when the device ran the frame (the ACK's next_seq moved on), 0 otherwise. */
int fake_send_acked(fake_t *f, thrum_fw_t *fw, uint8_t *seq, const uint8_t *payload, uint8_t len,
                    const thrum_msg_t **ack);

/* Message builders (host to device); each returns the bytes appended at `out`. */
uint8_t msg_segment(uint8_t *out, uint32_t start, uint32_t duration, uint8_t from, uint8_t to, uint32_t event);
uint8_t msg_plain(uint8_t *out, uint32_t id);
uint8_t msg_configure(uint8_t *out, uint8_t rated, uint8_t clamp, uint8_t drive_time, uint8_t period);
/* Any message from its fields (types from the codec's table). */
uint8_t msg_any(uint8_t *out, uint32_t id, uint8_t count, const uint32_t *fields);

/* Results the fake calibration writes. */
#define FAKE_CAL_COMP 0x0Au
#define FAKE_CAL_BEMF 0x9Du
#define FAKE_CAL_BEMF_GAIN 0u
#define FAKE_CAL_LRA_PERIOD 49u

/* Advance the clock to `t`, polling every `step` µs on the way. */
void fake_run_until(fake_t *f, thrum_fw_t *fw, uint32_t t, uint32_t step);

#endif
