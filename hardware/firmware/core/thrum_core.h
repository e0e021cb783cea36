/*
 * thrum_core.h — internal interfaces between the parts of the firmware core.
 * Not a public header: ports and the Swift virtual device use thrum_fw.h only.
 */
#ifndef THRUM_CORE_H
#define THRUM_CORE_H

#include "thrum_fw.h"

/* IDENTIFY, PING and STOP carry no fields and are idempotent, so a run of them between two
 * parameterised messages is kept as a set of flags; their order within the run cannot matter. */
#define THRUM_PLAIN_IDENTIFY 0x01u
#define THRUM_PLAIN_PING 0x02u
#define THRUM_PLAIN_STOP 0x04u

/* A 58-byte payload holds at most 11 CONFIGURE_DRIVER messages (5 bytes each) or 6 SEGMENTs
 * (9 bytes each at least), plus one trailing run of plain messages. */
#define THRUM_FW_MAX_COMMANDS 12u

/** One decoded host command: the plain messages that came before it, then at most one
 *  parameterised message (`id` 0 when the entry holds only plain messages). */
typedef struct thrum_command {
    uint8_t plain;
    uint8_t id;
    union {
        thrum_segment_t segment;
        drv2605l_config_t driver;
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
void thrum_telemetry_send(thrum_fw_t *fw, int with_identify);
void thrum_telemetry_flush(thrum_fw_t *fw);

/* scheduler.c */
void thrum_scheduler_init(thrum_fw_t *fw);
int thrum_scheduler_check(const thrum_fw_t *fw, const thrum_host_payload_t *payload);
void thrum_scheduler_enqueue(thrum_fw_t *fw, const thrum_segment_t *segment);
void thrum_scheduler_stop(thrum_fw_t *fw);
void thrum_scheduler_run(thrum_fw_t *fw, uint32_t now);
void thrum_scheduler_check_driver(thrum_fw_t *fw, uint32_t now);
void thrum_scheduler_driver_fault(thrum_fw_t *fw);

/* firmware.c */
void thrum_fw_configure_driver(thrum_fw_t *fw, const drv2605l_config_t *config);

#endif /* THRUM_CORE_H */
