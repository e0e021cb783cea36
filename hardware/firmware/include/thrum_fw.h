/*
 * thrum_fw.h — public API of the portable Thrum firmware core.
 *
 * The core is portable C99 with no heap and no global mutable state: everything lives in a
 * thrum_fw_t that the board port allocates (statically on a microcontroller, inside the Swift
 * virtual device on the host). The core reaches the hardware only through thrum_hal_t.
 *
 * Call pattern of a board port:
 *   thrum_fw_init(&fw, &hal, &board);          once, after power-up
 *   thrum_fw_receive(&fw, bytes, n, t_rx);      whenever serial bytes arrive (t_rx = clock at arrival)
 *   thrum_fw_poll(&fw);                         often (every main-loop pass, or at each timer tick)
 */
#ifndef THRUM_FW_H
#define THRUM_FW_H

#include <stddef.h>
#include <stdint.h>

#include "drv2605l.h"
#include "thrum_codec.h"
#include "thrum_protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capacity of the segment queue. Ports may override at build time (AVR uses a smaller one). */
#ifndef THRUM_FW_QUEUE_SLOTS
#define THRUM_FW_QUEUE_SLOTS 32u
#endif
#if THRUM_FW_QUEUE_SLOTS < 1 || THRUM_FW_QUEUE_SLOTS > 255
#error "THRUM_FW_QUEUE_SLOTS must be 1..255: queue indexes and credits are 8-bit"
#endif

/* Capacity of the preload program store, in segments shared by the THRUM_PROGRAM_SLOTS slots
 * (AVR uses a smaller one). Reported in CAPABILITIES. */
#ifndef THRUM_FW_PROGRAM_SEGMENTS
#define THRUM_FW_PROGRAM_SEGMENTS 64u
#endif
#if THRUM_FW_PROGRAM_SEGMENTS < 1 || THRUM_FW_PROGRAM_SEGMENTS > 255
#error "THRUM_FW_PROGRAM_SEGMENTS must be 1..255"
#endif

/* 1: the preset library (PROTOCOL.md §3.3, §4.9): storage in two slots, flashing, PLAY_PRESET and
 * trigger inputs; the device then speaks protocol version 1, and version 2 with the compact stream
 * (THRUM_FW_STREAM, thrum_codec.h: on by default with the library). 0: version 0 only (the AVR
 * build, whose flash is full). */
#ifndef THRUM_FW_LIBRARY
#define THRUM_FW_LIBRARY 1
#endif

/* Trigger inputs the library watches (inputs 0..N-1 of the image's 0..7; an index entry naming a
 * higher input is ignored). The AVR library image has 2: each costs a preset decoded ahead. */
#ifndef THRUM_FW_TRIGGER_INPUTS
#define THRUM_FW_TRIGGER_INPUTS 8u
#endif
#if THRUM_FW_TRIGGER_INPUTS < 1 || THRUM_FW_TRIGGER_INPUTS > 8
#error "THRUM_FW_TRIGGER_INPUTS must be 1..8"
#endif

/* Queue entries decoded ahead for a trigger input's preset and for the preset PLAY_PRESET played
 * last (1..2; the AVR library image keeps 1: the next entries follow from storage as the queue
 * drains). */
#ifndef THRUM_FW_LIBRARY_ARMED
#define THRUM_FW_LIBRARY_ARMED 2u
#endif
#if THRUM_FW_LIBRARY_ARMED < 1 || THRUM_FW_LIBRARY_ARMED > 2
#error "THRUM_FW_LIBRARY_ARMED must be 1 or 2"
#endif

/* 1: PLAY_PRESET looks its id up by binary search first (an index in ascending id order, as the
 * builder writes it), then by a scan; 0 (the default): by a scan. On the AVR library image each
 * index entry read is an EEPROM access: the scan took up to 24 ms for the example library's last
 * preset. */
#ifndef THRUM_FW_LIBRARY_BSEARCH
#define THRUM_FW_LIBRARY_BSEARCH 0
#endif

/* Type of the library player's image offsets. uint16_t (the AVR library image) halves them and
 * their arithmetic; a slot then holds at most 65535 bytes (its capacity is reported so). */
#ifndef THRUM_FW_LIBRARY_POS_T
#define THRUM_FW_LIBRARY_POS_T uint32_t
#endif
typedef THRUM_FW_LIBRARY_POS_T thrum_library_pos_t;

/* Receive window for the frame decoder: at least one whole frame. */
#define THRUM_FW_RX_WINDOW THRUM_MAX_FRAME

/* Receive buffer reported in IDENTIFY_REPLY. A port whose UART ring is larger than the decoder
 * window defines it to the ring size. */
#ifndef THRUM_FW_RX_BUFFER
#define THRUM_FW_RX_BUFFER THRUM_FW_RX_WINDOW
#endif

/* Firmware version reported in IDENTIFY_REPLY. */
#define THRUM_FW_VERSION_MAJOR 0u
#define THRUM_FW_VERSION_MINOR 1u
#define THRUM_FW_VERSION_PATCH 0u

/* While the actuator is driven, STATUS is read this often to catch over-temperature and
 * over-current shutdowns (the driver latches them). */
#define THRUM_FW_STATUS_POLL_US 50000u
/* No STATUS poll this close before an entry's start, µs: the read holds the bus ≈ 90 µs. The
 * AVR build sets 0 (no guard) until it has the 70 bytes of flash the check takes; there an entry
 * can start up to ≈ 90 µs late (and say so) about once per 50 ms of drive. */
#ifndef THRUM_FW_STATUS_GUARD_US
#define THRUM_FW_STATUS_GUARD_US 250u
#endif

/* Onsets on time to the microsecond on a slow CPU: when a drive begins (a segment's start, a
 * ramp's crossing, a take-over) at most this many µs ahead, the scheduler prepares it at once, as
 * if it were due, and holds its first driver write until the clock reaches the instant. It must
 * exceed the port's longest main-loop pass (handling a full host frame included); the loop waits
 * out the lead instead of handling frames meanwhile. 0 (the default: the virtual device, whose
 * port polls exactly at the deadlines) turns it off. */
#ifndef THRUM_FW_DRIVE_LEAD_US
#define THRUM_FW_DRIVE_LEAD_US 0u
#endif
/* While a ROM effect plays, GO is read this often to see it end. */
#define THRUM_FW_ROM_POLL_US 2000u

/* A queued segment wakes a driver in standby this long before its start (more than
 * DRV2605L_STANDBY_EXIT_US, so that it starts on time). */
#define THRUM_FW_WAKE_LEAD_US 2000u

/**
 * Hardware abstraction: the only way the core touches the board.
 * Every function receives `ctx` as its first argument.
 */
typedef struct thrum_hal {
    void *ctx;
    /** Free-running microsecond clock; wraps at 2^32. */
    uint32_t (*clock_us)(void *ctx);
    /** Write `len` bytes to the 7-bit I2C address `addr` (first byte = register). 0 or a negative errno. */
    int (*i2c_write)(void *ctx, uint8_t addr, const uint8_t *data, uint8_t len);
    /** Write register `reg`, then read `len` bytes into `out` (repeated start). 0 or a negative errno. */
    int (*i2c_read)(void *ctx, uint8_t addr, uint8_t reg, uint8_t *out, uint8_t len);
    /** Queue bytes for the serial link to the host (never blocks for long; may drop on overflow:
     *  the core writes a frame only when serial_room says it fits). */
    void (*serial_write)(void *ctx, const uint8_t *data, uint16_t len);
    /** Busy-wait for at least `us` microseconds (used only during driver set-up). */
    void (*delay_us)(void *ctx, uint32_t us);
    /** Free a stuck I2C bus after a failed transfer: clock SCL (at most 9 pulses) until the slave
     *  releases SDA, then a STOP, and re-initialise the bus controller. 0 when SDA is high after
     *  it, negative when it stays low. NULL when the port cannot drive the bus lines. */
    int (*i2c_recover)(void *ctx);
    /** Drive the driver's EN pin (1 = enabled, 0 = hardware shutdown, outputs to ground).
     *  NULL when EN is wired high on the board. */
    void (*driver_enable)(void *ctx, uint8_t on);
    /** Bytes serial_write can take now without dropping any (the free space of the port's
     *  transmit ring). The core then sends only whole frames that fit: an ACK-only frame that does
     *  not fit is left to a later frame (ACKs are cumulative), reports wait in the outbox.
     *  NULL when serial_write never drops (the virtual device). */
    uint16_t (*serial_room)(void *ctx);
#if THRUM_FW_LIBRARY
    /** Library storage (THRUM_FW_LIBRARY; NULL when the board has none; geometry in thrum_board_t):
     *  read `len` bytes at byte address `addr`. 0 or negative. */
    int (*storage_read)(void *ctx, uint32_t addr, uint8_t *out, uint16_t len);
    /** Write `len` bytes at `addr`, all inside one page (an EEPROM page write, or programming
     *  flash that was erased). On flash the core writes each half-word once between erases: `addr`
     *  is even, and an odd `len` (the image's last byte) leaves the last half-word's high byte
     *  0xFF. 0 or negative (nothing may be assumed about the bytes then). */
    int (*storage_write)(void *ctx, uint32_t addr, const uint8_t *data, uint16_t len);
    /** Erase the page that starts at `addr` to 0xFF (flash); NULL when the medium writes in place
     *  (EEPROM). With it, switch records are appended in erased flash (core/library.c). */
    int (*storage_erase)(void *ctx, uint32_t addr);
    /** Levels of the trigger inputs, bit i = input i (1 = active). NULL when the board has none. */
    uint8_t (*trigger_read)(void *ctx);
#endif
} thrum_hal_t;

/*
 * THRUM_FW_STATIC_HAL (default 0). A port with one board may set it to 1 and define the HAL as
 * functions named thrum_hal_<member>, with the table's signatures (their ctx is always NULL), and
 * every member present (i2c_recover, driver_enable and serial_room included). The core then calls them
 * directly instead of through the table, and never reads the table: the port passes NULL to
 * thrum_fw_init (and thrum_port_run). On the AVR an indirect call costs some 12 B more than a
 * direct one, and functions whose address is never taken can be specialised by LTO: 268 B in all.
 */
#ifndef THRUM_FW_STATIC_HAL
#define THRUM_FW_STATIC_HAL 0
#endif
#if THRUM_FW_STATIC_HAL
uint32_t thrum_hal_clock_us(void *ctx);
int thrum_hal_i2c_write(void *ctx, uint8_t addr, const uint8_t *data, uint8_t len);
int thrum_hal_i2c_read(void *ctx, uint8_t addr, uint8_t reg, uint8_t *out, uint8_t len);
void thrum_hal_serial_write(void *ctx, const uint8_t *data, uint16_t len);
void thrum_hal_delay_us(void *ctx, uint32_t us);
int thrum_hal_i2c_recover(void *ctx);
void thrum_hal_driver_enable(void *ctx, uint8_t on);
uint16_t thrum_hal_serial_room(void *ctx);
#if THRUM_FW_LIBRARY
/* storage_erase is a no-op returning 0 on a medium that writes in place (EEPROM); trigger_read
 * returns 0 on a board without inputs. */
int thrum_hal_storage_read(void *ctx, uint32_t addr, uint8_t *out, uint16_t len);
int thrum_hal_storage_write(void *ctx, uint32_t addr, const uint8_t *data, uint16_t len);
int thrum_hal_storage_erase(void *ctx, uint32_t addr);
uint8_t thrum_hal_trigger_read(void *ctx);
#endif
/** The HAL function `member` of the table `hal`, and its first argument. */
#define THRUM_HAL(hal, member) ((void)(hal), thrum_hal_##member)
#define THRUM_HAL_CTX(hal) NULL
/** Whether the optional member is there. */
#define THRUM_HAL_HAS(hal, member) ((void)(hal), 1)
#else
#define THRUM_HAL(hal, member) ((hal)->member)
#define THRUM_HAL_CTX(hal) ((hal)->ctx)
#define THRUM_HAL_HAS(hal, member) ((hal)->member != NULL)
#endif

/** Constant board configuration (from the board description, never changed at run time). */
typedef struct thrum_board {
    uint32_t device_id;        /**< reported in IDENTIFY_REPLY; 0 when the board has none */
    uint8_t rated_voltage;     /**< DRV2605L RATED_VOLTAGE default until CONFIGURE_DRIVER */
    uint8_t od_clamp;          /**< DRV2605L OD_CLAMP default */
    uint8_t drive_time;        /**< DRV2605L CONTROL1 DRIVE_TIME default (0..31) */
    uint8_t ol_lra_period;     /**< DRV2605L OL_LRA_PERIOD default (0..127) */
#if THRUM_FW_LIBRARY
    uint32_t storage_size;     /**< bytes of library storage (0: none) */
    uint16_t storage_page;     /**< its page: the write unit (and erase unit on flash), 32..4096 */
#endif
} thrum_board_t;

/* Width of the diagnostic counters. A port that never reads them may narrow them (the AVR build
 * uses 16 bits: they then wrap at 65536, and every increment is half the code). */
#ifndef THRUM_FW_COUNT_T
#define THRUM_FW_COUNT_T uint32_t
#endif
typedef THRUM_FW_COUNT_T thrum_fw_count_t;

/* 0: the core keeps no counters (thrum_fw_stats reads zeros). For a port whose flash is tight and
 * that never reads them (AVR: nothing reports them to the host; it saves ~300 B there). */
#ifndef THRUM_FW_STATS
#define THRUM_FW_STATS 1
#endif

/** Counters a port or a test may read; the core only increments them. */
typedef struct thrum_fw_stats {
    thrum_fw_count_t frames_ok;        /**< valid host frames that parsed (executed or not) */
    thrum_fw_count_t bad_frames;       /**< CRC failures and frames that did not parse or broke a §3 rule */
    thrum_fw_count_t discarded_bytes;  /**< bytes dropped by the frame decoder while resynchronising */
    thrum_fw_count_t duplicates;       /**< valid sequenced frames with SEQ != next_seq */
    thrum_fw_count_t stale_frames;     /**< valid frames of a session that ended (released or lapsed): not bad, not run */
    thrum_fw_count_t flow_violations;
    thrum_fw_count_t segments_played;  /**< segments started on time */
    thrum_fw_count_t segments_trimmed; /**< segments started late, played from the moment reached */
    thrum_fw_count_t segments_dropped; /**< segments reached after their end (or with no driver) */
    thrum_fw_count_t driver_writes;    /**< RTP_INPUT writes that succeeded */
    thrum_fw_count_t bus_errors;
    thrum_fw_count_t watchdog_stops;
    thrum_fw_count_t calibrations;     /**< calibration runs finished (passed or failed) */
} thrum_fw_stats_t;

/** One queued amplitude ramp (PROTOCOL.md §3.1 SEGMENT), or a ROM effect (ROM_EFFECT) when
 *  `effect` is not 0. In the program store `start` is the offset from the program's start. */
typedef struct thrum_segment {
    uint32_t start;
    uint32_t duration;  /**< ramp length; for a ROM effect the window in which it may still start */
    uint32_t event;
    uint8_t from;
    uint8_t to;
    uint8_t effect;     /**< 0 = RTP ramp, 1..123 = ROM effect id */
} thrum_segment_t;

/** Link state (§2): what the next ACK reports. */
typedef struct thrum_link {
    uint8_t next_seq;           /**< sequence number expected next */
    uint8_t tx_seq;             /**< device frame counter */
    uint8_t rx_ctrl;            /**< CTRL of the last valid host frame (0 before any) */
    uint8_t rx_seq;             /**< SEQ of the last valid host frame */
    uint32_t rx_time;           /**< device time its last byte arrived */
    uint32_t last_host_time;    /**< arrival of the last host frame that parsed (watchdog) */
    uint8_t host_seen;          /**< a frame has parsed since reset: the watchdog is armed */
    uint8_t watchdog_tripped;   /**< FAULT 5 sent for this silence */
    uint8_t identify;           /**< the frame being handled asked for IDENTIFY_REPLY */
#if THRUM_FW_SESSIONS
    uint32_t session;           /**< the session that holds the device (§3.8); 0: none */
    uint32_t previous;          /**< the session taken from its host last (0: none): its frames get SESSION taken */
    uint32_t taken_at;          /**< device time `previous` was taken */
    uint16_t key;               /**< the CRC start of the device's own frames: session's key, or THRUM_CRC_INIT */
    uint8_t claimed;            /**< the frame being handled claimed the device: its ACK frame says so */
    uint8_t released;           /**< RELEASE ended the last session: the watchdog stops silently (no FAULT 5) */
#endif
} thrum_link_t;

/* 1: a marked entry dropped for lateness whose event's drive goes on in the next entry passes
 * its mark on, so the event is reported late where the chip began driving it, not dropped
 * (PROTOCOL.md §4.2). 0 (about 270 B of flash less on the AVR, whose streaming image has no room
 * for it): such an event is reported dropped. */
#ifndef THRUM_FW_CARRY_MARKS
#define THRUM_FW_CARRY_MARKS 1
#endif

/** 1: an unmarked queue entry that would have driven (a level above 0, a ROM effect), dropped for
 * lateness (reached after its window, or after the next entry's start), is reported as FAULT 12
 * with its start, so the host learns of the hole it leaves in a drive (PROTOCOL.md §4.2). 0: it is
 * only counted (segments_dropped). */
#ifndef THRUM_FW_DRIVE_DROP_FAULT
#define THRUM_FW_DRIVE_DROP_FAULT 1
#endif

/** Segment scheduler state (§4.1, §4.2). */
typedef struct thrum_scheduler {
    thrum_segment_t queue[THRUM_FW_QUEUE_SLOTS];
    /** µs after its start at which queue[i] ends at the latest (set by CUT, §4.8); 0xFFFFFFFF
     *  when it has no such limit. Kept beside the queue so the program store stays small. */
    uint32_t limit[THRUM_FW_QUEUE_SLOTS];
    uint8_t head;            /**< index of the oldest queued segment */
    uint8_t count;           /**< queued segments, the playing one included */
    uint8_t playing;         /**< 1 while queue[head] is being driven */
    uint8_t onset_pending;   /**< queue[head] ramps up from 0 and has not reached its first
                                  non-zero code yet: its first write (and ONSET) is still due */
#if THRUM_FW_CARRY_MARKS
    uint8_t carried;         /**< queue[head] carries the mark of a late entry dropped before it
                                  (§4.2): its onset is reported late whenever it begins */
#endif
    uint8_t amplitude;       /**< last amplitude the driver accepted */
    uint8_t output_unknown;  /**< a write failed: the driver may hold any amplitude */
    uint8_t bus_fault_sent;  /**< FAULT 2 already reported for the current run of failures */
    uint32_t known_at;       /**< last poll at which the output was known (fail-safe watchdog) */
    uint32_t last_write_time;
    uint32_t last_status_time;
    uint32_t last_rom_poll;  /**< when GO was last read while a ROM effect plays */
    uint8_t hold;            /**< this run acts ahead of time: its first write waits for hold_until */
    uint32_t hold_until;     /**< device time the drive being prepared begins */
    uint8_t stops;           /**< counts queue emptyings (STOP, watchdog, takeover, driver faults), wrapping */
} thrum_scheduler_t;

/** Auto-calibration state machine (reference §2.4), polled without blocking. */
typedef struct thrum_calibration {
    uint8_t running;         /**< GO was set; polling it */
    uint8_t again;           /**< asked for while running: run once more when this run ends */
    uint8_t lra_period;      /**< LRA_PERIOD read while the calibration drove the actuator */
    uint8_t cause;           /**< THRUM_CAUSE_* of the run */
    uint8_t failed;          /**< a GO read failed or it ran past the timeout: the run has failed,
                                  but MODE is not touched until GO reads 0 */
    uint8_t reconfigure;     /**< CONFIGURE_DRIVER came meanwhile: set up once GO has cleared */
    uint8_t valid;           /**< CAPABILITIES `calibrated`: THRUM_CALIBRATED_NONE, _MEASURED (the
                                  last run since reset passed) or _RESTORED (RESTORE_CALIBRATION) */
    uint32_t started;
    uint32_t last_poll;
} thrum_calibration_t;

/** Driver power state: standby, WAKE's idle timeout. */
typedef struct thrum_power {
    uint8_t standby;         /**< the driver is in software standby */
    uint8_t waking;          /**< left standby; it can drive from ready_at */
    uint32_t idle_timeout_us;/**< 0 = never return to standby on idle */
    uint32_t idle_since;     /**< device time the device last became (or was told to stay) awake and idle */
    uint32_t ready_at;       /**< device time the driver can drive after leaving standby */
} thrum_power_t;

/** Preloaded programs (PRELOAD_BEGIN, PRELOAD_SEGMENT, GO): one pool of segments; slot i uses
 *  segments [first[i], first[i] + count[i]). The slot being loaded is always the last in the pool. */
typedef struct thrum_program_store {
    thrum_segment_t segment[THRUM_FW_PROGRAM_SEGMENTS];
    uint8_t first[THRUM_PROGRAM_SLOTS];
    uint8_t count[THRUM_PROGRAM_SLOTS];
    uint8_t valid;           /**< bit i: slot i holds a complete program */
    uint8_t used;            /**< segments in the pool */
    uint8_t loading;         /**< slot being loaded, or THRUM_PROGRAM_SLOTS when none */
} thrum_program_store_t;

/** Where the library player is in a stored preset (times are device times). */
typedef struct thrum_library_player {
    uint8_t playing;         /**< a stored preset is being fed into the queue */
    uint8_t ramps_left;      /**< ramps of the current shape still to queue */
    uint8_t prev_to;         /**< `to` of the previous ramp of the shape */
    thrum_library_pos_t p_pos; /**< image offset of the next program item */
    thrum_library_pos_t p_end; /**< end of the program */
    uint32_t p_time;         /**< device time of the current item's start */
    uint32_t event_base;     /**< added to the preset's event numbers */
    thrum_library_pos_t s_pos; /**< image offset of the next ramp */
    uint32_t s_time;         /**< device time the next ramp's gap counts from */
    uint32_t s_event;        /**< event of the shape's first ramp (0 after it) */
} thrum_library_player_t;

/** A preset decoded ahead (times from 0, event numbers without a base): its first entries and the
 *  player state after them, so that it starts without reading storage first (a trigger input's
 *  preset, armed at activation; the preset PLAY_PRESET played last). */
typedef struct thrum_library_armed {
    thrum_library_player_t player;
    thrum_segment_t first[THRUM_FW_LIBRARY_ARMED];
    uint8_t count;           /**< entries in `first` (0: no preset mapped to the input) */
    uint16_t id;             /**< the preset's id */
} thrum_library_armed_t;

/* The ids of the first THRUM_FW_LIBRARY_ID_CACHE presets of the active library stay in RAM
 * (read at activation, in the pass that arms the trigger inputs), so that PLAY_PRESET finds its
 * index entry without scanning storage: on a 400 kHz EEPROM the scan took about 0.2 ms per preset
 * ahead of it. 2 bytes each; 0 scans storage. */
#ifndef THRUM_FW_LIBRARY_ID_CACHE
#define THRUM_FW_LIBRARY_ID_CACHE 64u
#endif

#if THRUM_FW_STREAM
/** The stream cursor (§3.4): where the sequenced lane's last queued entry lies. */
typedef struct thrum_stream_cursor {
    uint32_t start;          /**< start of the last entry the sequenced lane queued (after CUT: its `at`) */
    uint32_t end;            /**< its end (a ROM effect: its start; after CUT: `at`) */
    uint32_t event;          /**< the last nonzero event a sequenced-lane entry marked (0 after reset) */
    uint8_t to;              /**< its final amplitude (a ROM effect, CUT: 0) */
} thrum_stream_cursor_t;

/** The compact stream (§3.4): the cursor and the shape table. */
typedef struct thrum_stream {
    thrum_stream_cursor_t cursor;
    uint8_t shape_len[THRUM_STREAM_SHAPES];                     /**< 0: shape i is not defined */
    uint8_t shape[THRUM_STREAM_SHAPES][THRUM_STREAM_SHAPE_BYTES]; /**< ramp lists, as SHAPE sent them */
} thrum_stream_t;
#endif

#if THRUM_FW_FRAME_TIMES
/** USB start-of-frame times (§3.6): the newest SOF the port gave, and FRAME_TIMES' pacing. The
 *  SOF fields are written by the port's SOF interrupt (thrum_fw_usb_sof) and read by the main
 *  loop, which copies them again when `sof_fresh` was set meanwhile. */
typedef struct thrum_frame_times {
    volatile uint32_t sof_time;   /**< device time the newest SOF's interrupt was taken */
    volatile uint16_t sof_frame;  /**< its USB frame number, 0..2047 */
    volatile uint8_t sof_fresh;   /**< an SOF came since the last FRAME_TIME was sent */
    uint8_t sent;                 /**< a FRAME_TIME went out since FRAME_TIMES set the interval */
    uint16_t interval_ms;         /**< FRAME_TIMES' interval; 0 = off (after reset) */
    uint32_t sent_at;             /**< device time the last FRAME_TIME was sent */
} thrum_frame_times_t;
#endif

#if THRUM_FW_DEPARTURES
/** No ACK awaits its departure (thrum_departures_t.state). */
#define THRUM_DEPARTURE_NONE 0u
/** The pending ACK's frame is written: the IN-complete interrupt watches for `end`. */
#define THRUM_DEPARTURE_PENDING 1u
/** It left at `left_at`: the main loop reports it in the next frame with room. */
#define THRUM_DEPARTURE_LEFT 2u

/** ACK departures (§3.7): the bytes the core wrote, the bytes the host's IN transfers took, and
 *  the one fresh ACK whose departure is awaited. `written` is the main loop's; `taken` only the
 *  IN-complete interrupt writes (thrum_fw_usb_in_done). The pending ACK passes between the two
 *  with `state`, written last by each side: the main loop fills `end` and `rx_time` while the
 *  state is NONE and then sets PENDING; the interrupt, only while PENDING, sets `left_at` and then
 *  LEFT; the main loop reads `left_at` only once it sees LEFT, after which the interrupt leaves the
 *  fields alone. So no field is read while the other side may be writing it. */
typedef struct thrum_departures {
    volatile uint16_t taken;     /**< output bytes the host's IN transfers took (wrapping) */
    volatile uint16_t end;       /**< `written` at the end of the pending ACK's frame */
    volatile uint32_t left_at;   /**< device time the IN transfer that took byte `end` completed */
    volatile uint8_t state;      /**< THRUM_DEPARTURE_NONE, _PENDING or _LEFT */
    uint8_t fresh;               /**< a valid host frame came and no ACK naming it was sent yet */
    uint16_t written;            /**< output bytes the core handed to serial_write (wrapping) */
    uint32_t rx_time;            /**< the pending ACK's rx_time */
} thrum_departures_t;
#endif

/** The preset library (§4.9): the active image's place in storage, a flash in progress, the
 *  player that feeds a stored preset into the queue, and the trigger inputs. */
typedef struct thrum_library {
    uint32_t capacity;       /**< bytes a slot holds (0: no storage), from the board at init */
    uint8_t active;          /**< a verified library is selected */
    uint8_t slot;            /**< its slot (0 or 1) */
    uint8_t record;          /**< the record page (0 or 1) that selected it */
    uint32_t seq;            /**< its record's sequence number */
    uint32_t size;           /**< its image size */
    uint32_t crc;            /**< its image CRC-32 */
    uint16_t count;          /**< its presets */
    uint16_t shape_table;    /**< offsets in the image (docs/library.md) */
    uint16_t shapes;
    uint16_t programs;
    uint32_t max_seq;        /**< the highest record sequence number seen */
    uint8_t writing;         /**< LIBRARY_BEGIN accepted; LIBRARY_WRITEs expected */
    uint32_t w_size;         /**< size of the image being written */
    uint32_t w_crc;          /**< its expected CRC-32 */
    uint32_t w_cursor;       /**< bytes received so far */
    uint8_t w_buf[64];       /**< the unit being assembled: a page of up to 64 B, else 64 B of one */
    thrum_library_player_t player;
    uint8_t player_stops;    /**< the scheduler's `stops` when the player started: a stop since ends it */
    uint8_t next_set;        /**< a PLAY_PRESET waits for the player to queue its last entry (§4.9) */
    uint8_t next_stops;      /**< the scheduler's `stops` when it came: a stop since drops it */
    uint32_t next_id;        /**< the waiting PLAY_PRESET's id, start and event base */
    uint32_t next_start;
    uint32_t next_base;
    uint32_t line_at;        /**< image offset of the cached line (0xFFFFFFFF: none) */
    uint8_t line[16];        /**< the last 16 bytes read from storage: decoding reads in order */
    uint8_t trig_level;      /**< trigger input levels last read */
    uint32_t trig_since[THRUM_FW_TRIGGER_INPUTS]; /**< when input i last went inactive */
    thrum_library_armed_t armed[THRUM_FW_TRIGGER_INPUTS];
    thrum_library_armed_t last; /**< the preset PLAY_PRESET played last, decoded ahead for the next time */
#if THRUM_FW_LIBRARY_ID_CACHE > 0
    uint16_t ids[THRUM_FW_LIBRARY_ID_CACHE]; /**< ids of the first index entries, in index order */
#endif
} thrum_library_t;

/** Outgoing telemetry (ONSET, FAULT) waiting for the next device frame. */
#define THRUM_FW_ACK_MAX 10u /* id, next_seq, rx_ctrl, rx_seq, rx_time(4), credits(uv, <= 2) */
#define THRUM_FW_PENDING_MAX (THRUM_MAX_PAYLOAD - THRUM_FW_ACK_MAX)

/* A frame that must go now (a report that finds the outbox full, IDENTIFY_REPLY) while the
 * port's transmit ring has no room for it waits up to this long for the ring to drain (a 128-byte
 * ring takes 11 ms at 115 200 baud), then is written anyway. */
#ifndef THRUM_FW_TX_WAIT_US
#define THRUM_FW_TX_WAIT_US 20000u
#endif

/* Each ONSET goes out again in the next THRUM_FW_ONSET_REPEATS device frames after the one that
 * first carried it (behind their new reports, when it fits; on every frame where the port has
 * serial_room, else on report frames and the ACKs of any-lane frames only, never on the ACK of a
 * sequenced frame), so that one corrupted or lost frame
 * does not lose the report (PROTOCOL.md §3.2): with 5 % of frames lost, about 1 in 160 000 onsets
 * loses all four copies instead of 1 in 20 its only one. The ONSETs being repeated wait in a
 * buffer of THRUM_FW_ONSET_ECHO_MAX bytes (the newest three of the 7-8 byte ONSETs: the oldest
 * makes room). 0: no repeats (226 B of flash and 26 B of RAM less on the AVR). A frame that
 * does not fit the port's transmit room waits (serial_room), repeats included. */
#ifndef THRUM_FW_ONSET_REPEATS
#define THRUM_FW_ONSET_REPEATS 3u
#endif
#ifndef THRUM_FW_ONSET_ECHO_MAX
#define THRUM_FW_ONSET_ECHO_MAX 24u
#endif

/** The whole firmware state. Opaque to ports: read it only through the functions below. */
typedef struct thrum_fw {
    const thrum_hal_t *hal;
    thrum_board_t board;
    thrum_frame_decoder_t decoder;
    thrum_link_t link;
    thrum_scheduler_t sched;
    thrum_calibration_t calibration;
    thrum_power_t power;
    thrum_program_store_t programs;
#if THRUM_FW_LIBRARY
    thrum_library_t library;
#endif
#if THRUM_FW_STREAM
    thrum_stream_t stream;
#endif
#if THRUM_FW_FRAME_TIMES
    thrum_frame_times_t frame_times;
#endif
#if THRUM_FW_DEPARTURES
    thrum_departures_t departures;
#endif
    drv2605l_t driver;
    drv2605l_config_t driver_config;
    thrum_fw_count_t parse_failures;
    uint8_t pending[THRUM_FW_PENDING_MAX];
    uint8_t pending_len;
    uint8_t ack_owed;                      /**< an ACK-only frame found no room: the next frame carries it */
#if THRUM_FW_ONSET_REPEATS > 0
    uint8_t echo[THRUM_FW_ONSET_ECHO_MAX]; /**< recent ONSETs, oldest first, to repeat */
    uint8_t echo_len;
    uint8_t echo_left;                     /**< frames that will still repeat them */
#endif
    thrum_fw_stats_t stats;
} thrum_fw_t;

/** Initialise the core, probe and set up the driver. */
void thrum_fw_init(thrum_fw_t *fw, const thrum_hal_t *hal, const thrum_board_t *board);

/** Feed bytes received from the host; `rx_time` is the device clock when they arrived. */
void thrum_fw_receive(thrum_fw_t *fw, const uint8_t *data, size_t len, uint32_t rx_time);

#if THRUM_FW_FRAME_TIMES
/**
 * A USB start-of-frame: a port with native USB calls this from its SOF interrupt (every 1 ms)
 * with the frame number the SOF carried (masked to its 11 bits here) and the device time at which
 * it took the interrupt. The core keeps the newest; while the host has asked for them
 * (FRAME_TIMES, PROTOCOL.md §3.6) a later device frame reports it as FRAME_TIME. Two stores and
 * a flag: safe in an interrupt that preempts every other call here. A board without native USB
 * never calls it and sends no FRAME_TIME.
 */
void thrum_fw_usb_sof(thrum_fw_t *fw, uint16_t frame, uint32_t time);
#endif

#if THRUM_FW_DEPARTURES
/**
 * A USB IN transfer completed: a port with native USB calls this from its IN-complete interrupt
 * with the bytes of the device's output that transfer took (`bytes` more, in the order the core
 * wrote them with serial_write) and the device time at which it took the interrupt. The core
 * counts them (a 16-bit running count, compared with the count of bytes it wrote); when they take
 * the output up to the end of the frame that carried the newest fresh ACK, that ACK has left the
 * device at `time`, and while the host has asked for USB timing reports (FRAME_TIMES, PROTOCOL.md
 * §3.7) a later device frame reports it as DEPARTURE. Interrupt-safe without a lock: it adds to
 * its own count and, only while an ACK is pending, compares, stores the time and sets a flag last
 * (thrum_departures_t says how the main loop hands the pending ACK over). Bytes the port drops or
 * discards (a full ring, a flush at a bus reset) count as taken: it adds them to its next call, so
 * that both counts stay in step (a departure is then at most reported early, never late).
 * thrum_fw_init zeroes both counts. A board without native USB never calls it and sends no
 * DEPARTURE.
 */
void thrum_fw_usb_in_done(thrum_fw_t *fw, uint16_t bytes, uint32_t time);
#endif

/** Run due work: start, update and end segments, the watchdog, and flush telemetry. */
void thrum_fw_poll(thrum_fw_t *fw);

/**
 * When thrum_fw_poll next has work to do, for a port that sleeps or arms a timer between passes:
 * a segment start, the next amplitude change (500 µs rule), a segment end, a ROM-effect or
 * calibration poll, a STATUS check, the watchdog or the idle timeout. Returns a device time (at
 * or before `now` when work is already due) and sets `*has_deadline`; sets it to 0 when nothing
 * is scheduled (the return value is then `now`). Receiving bytes can bring the deadline forward,
 * so ask again after thrum_fw_receive.
 */
uint32_t thrum_fw_next_deadline(const thrum_fw_t *fw, uint32_t now, uint8_t *has_deadline);

/** Free segment slots (the credits an ACK reports). */
uint8_t thrum_fw_free_slots(const thrum_fw_t *fw);

/** Read-only access to the counters. */
const thrum_fw_stats_t *thrum_fw_stats(const thrum_fw_t *fw);

/** DEVICE_ID the driver reported (as in IDENTIFY_REPLY), 0 when none answered. */
uint8_t thrum_fw_driver_id(const thrum_fw_t *fw);

/** Amplitude last written to the driver (0 when idle or stopped). */
uint8_t thrum_fw_amplitude(const thrum_fw_t *fw);

/** Segments queued, the playing one included. */
uint8_t thrum_fw_queued(const thrum_fw_t *fw);

/** 1 while an auto-calibration runs. */
uint8_t thrum_fw_calibrating(const thrum_fw_t *fw);

/** 1 while the driver is in software standby. */
uint8_t thrum_fw_standby(const thrum_fw_t *fw);

#if THRUM_FW_LIBRARY
/** The active library (§4.9): 1 and its record's sequence number, image size, CRC-32 and slot;
 *  0 when none is stored. */
uint8_t thrum_fw_library_active(const thrum_fw_t *fw, uint32_t *seq, uint32_t *size, uint32_t *crc, uint8_t *slot);
#endif

/** A write that should silence the driver has been failing for this long: the core reports
 *  itself unhealthy so that the port's hardware watchdog resets the board (README: fail-safes). */
#define THRUM_FW_STUCK_US 100000u

/**
 * 1 when the port may kick its hardware watchdog: the core ran (the port calls this from its main
 * loop, after thrum_fw_poll) and the driver's output is known, or has been unknown (failed bus
 * writes) for less than THRUM_FW_STUCK_US. 0 asks for a reset.
 */
uint8_t thrum_fw_healthy(const thrum_fw_t *fw, uint32_t now);

#ifdef __cplusplus
}
#endif

#endif /* THRUM_FW_H */
