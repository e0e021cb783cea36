/*
 * thrum_core.h — internal interfaces between the parts of the firmware core.
 * Not a public header: ports and the Swift virtual device use thrum_fw.h only.
 */
#ifndef THRUM_CORE_H
#define THRUM_CORE_H

#include "thrum_fw.h"

/* IDENTIFY, PING, STOP, STANDBY and CALIBRATE carry no fields and are idempotent, so a run of
 * them between two parameterised messages is kept as a set of flags; their order within the run
 * cannot matter (they run in the order STOP, STANDBY, CALIBRATE). CALIBRATE is sequenced. */
#define THRUM_PLAIN_IDENTIFY 0x01u
#define THRUM_PLAIN_PING 0x02u
#define THRUM_PLAIN_STOP 0x04u
#define THRUM_PLAIN_STANDBY 0x08u
#define THRUM_PLAIN_CALIBRATE 0x10u

/* §3 allows at most THRUM_MAX_FIELD_MESSAGES messages with fields per payload, plus one trailing
 * run of plain messages. */
#define THRUM_FW_MAX_COMMANDS (THRUM_MAX_FIELD_MESSAGES + 1u)

/** GO's fields. */
typedef struct thrum_go {
    uint32_t start;
    uint32_t event_base;
    uint8_t slot;
} thrum_go_t;

/** One decoded host command: the plain messages that came before it, then at most one
 *  parameterised message (`id` 0 when the entry holds only plain messages). */
typedef struct thrum_command {
    uint8_t plain;
    uint8_t id;
    union {
        thrum_segment_t segment;   /* SEGMENT, ROM_EFFECT, PRELOAD_SEGMENT (start = offset) */
        drv2605l_config_t driver;  /* CONFIGURE_DRIVER */
        uint32_t idle_timeout_ms;  /* WAKE */
        uint32_t at;               /* CUT */
        uint8_t slot;              /* PRELOAD_BEGIN */
        thrum_go_t go;             /* GO */
    } arg;
} thrum_command_t;

/** A whole host payload, parsed before any of it runs. */
typedef struct thrum_host_payload {
    thrum_command_t cmd[THRUM_FW_MAX_COMMANDS];
    uint8_t count;
    uint8_t sequenced;   /**< it holds a message of the sequenced lane */
} thrum_host_payload_t;

/* messages.c */
int thrum_host_payload_parse(const uint8_t *payload, uint8_t len, thrum_host_payload_t *out);

/* link.c */
void thrum_link_init(thrum_fw_t *fw);
void thrum_link_handle_frame(thrum_fw_t *fw, const thrum_frame_t *frame, uint32_t rx_time);
void thrum_link_check_watchdog(thrum_fw_t *fw, uint32_t now);

/* telemetry (firmware.c) */
void thrum_telemetry_onset(thrum_fw_t *fw, uint32_t event, uint32_t time, uint8_t status);
void thrum_telemetry_fault(thrum_fw_t *fw, uint32_t code, uint32_t detail);
/** Count a failed bus access and report FAULT 2 with the register. */
void thrum_bus_fault(thrum_fw_t *fw);
void thrum_telemetry_send(thrum_fw_t *fw, int with_identify);
void thrum_telemetry_flush(thrum_fw_t *fw);

/* scheduler.c */
void thrum_scheduler_init(thrum_fw_t *fw);
int thrum_scheduler_check(const thrum_fw_t *fw, const thrum_host_payload_t *payload);
void thrum_scheduler_enqueue(thrum_fw_t *fw, const thrum_segment_t *segment);
/** 1 when an entry starting at `start` may be queued behind the queue's tail (§3.1 order). */
int thrum_scheduler_accepts(const thrum_fw_t *fw, uint32_t start);
void thrum_scheduler_stop(thrum_fw_t *fw);
/** CUT (§4.8): drop the entries starting at or after `at`, end the others at `at` at the latest. */
void thrum_scheduler_cut(thrum_fw_t *fw, uint32_t at);
void thrum_scheduler_run(thrum_fw_t *fw, uint32_t now);
void thrum_scheduler_check_driver(thrum_fw_t *fw, uint32_t now);
void thrum_scheduler_driver_fault(thrum_fw_t *fw);
/** End a ROM effect that is playing (GO = 0, RTP mode) and free its slot; no-op otherwise. */
void thrum_scheduler_drop_rom(thrum_fw_t *fw);

void thrum_telemetry_calibration(thrum_fw_t *fw, const drv2605l_calibration_t *result, uint8_t lra_period);
void thrum_telemetry_state(thrum_fw_t *fw, uint8_t state, uint8_t cause);

/* scheduler.c (deadlines) */
void thrum_scheduler_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has);

/* firmware.c */
void thrum_fw_configure_driver(thrum_fw_t *fw, const drv2605l_config_t *config);

/* calibration.c */
void thrum_calibration_request(thrum_fw_t *fw, uint8_t cause);
void thrum_calibration_run(thrum_fw_t *fw, uint32_t now);
void thrum_calibration_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has);

/* power.c */
void thrum_power_init(thrum_fw_t *fw, uint32_t now);
void thrum_power_wake(thrum_fw_t *fw, uint32_t idle_timeout_ms, uint32_t now);
void thrum_power_standby(thrum_fw_t *fw, uint8_t cause);
void thrum_power_run(thrum_fw_t *fw, uint32_t now);
void thrum_power_deadline(const thrum_fw_t *fw, uint32_t now, uint32_t *deadline, uint8_t *has);
int thrum_power_ready(const thrum_fw_t *fw, uint32_t now);

/* program.c */
void thrum_program_init(thrum_fw_t *fw);
void thrum_program_begin(thrum_fw_t *fw, uint8_t slot);
void thrum_program_append(thrum_fw_t *fw, const thrum_segment_t *segment);
void thrum_program_go(thrum_fw_t *fw, const thrum_go_t *go);

/* deadline helper: offer time `t` (a time before `now` counts as `now`) */
static inline void thrum_deadline_offer(uint32_t now, uint32_t t, uint32_t *deadline, uint8_t *has)
{
    if (thrum_time_before(t, now)) {
        t = now;
    }
    if (!*has || thrum_time_before(t, *deadline)) {
        *deadline = t;
        *has = 1;
    }
}

#endif /* THRUM_CORE_H */
