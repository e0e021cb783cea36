/*
 * Reliable delivery on the device side (PROTOCOL.md §2): sequence numbers, RESYNC, the UNSEQ
 * lane, flow control, one ACK per valid host frame, and the watchdog that silences the actuator
 * when the host goes quiet (§4.4).
 */
#include <string.h>

#include "thrum_core.h"

void thrum_link_init(thrum_fw_t *fw)
{
    memset(&fw->link, 0, sizeof(fw->link));
}

/* Run the commands of a frame that passed every check, in order. Returns 1 if IDENTIFY asked
 * for a reply. */
static int execute(thrum_fw_t *fw, const thrum_host_payload_t *payload, uint32_t rx_time)
{
    int identify = 0;
    uint8_t i;

    for (i = 0; i < payload->count; i++) {
        const thrum_command_t *cmd = &payload->cmd[i];

        if ((cmd->plain & (THRUM_PLAIN_STOP | THRUM_PLAIN_STANDBY)) != 0u) {
            thrum_scheduler_stop(fw);
        }
        if ((cmd->plain & THRUM_PLAIN_STANDBY) != 0u) {
            thrum_power_standby(fw, THRUM_CAUSE_HOST);
        }
        if ((cmd->plain & THRUM_PLAIN_CALIBRATE) != 0u) {
            thrum_calibration_request(fw, THRUM_CAUSE_HOST);
        }
        if ((cmd->plain & THRUM_PLAIN_IDENTIFY) != 0u) {
            identify = 1;
        }
        /* PING needs nothing beyond the ACK every frame gets. */
        switch (cmd->id) {
        case THRUM_MSG_SEGMENT:
        case THRUM_MSG_ROM_EFFECT:
            thrum_scheduler_enqueue(fw, &cmd->arg.segment);
            break;
        case THRUM_MSG_CUT:
            thrum_scheduler_cut(fw, cmd->arg.at);
            break;
        case THRUM_MSG_CONFIGURE_DRIVER:
            thrum_fw_configure_driver(fw, &cmd->arg.driver);
            break;
        case THRUM_MSG_WAKE:
            thrum_power_wake(fw, cmd->arg.idle_timeout_ms, rx_time);
            break;
        case THRUM_MSG_PRELOAD_BEGIN:
            thrum_program_begin(fw, cmd->arg.slot);
            break;
        case THRUM_MSG_PRELOAD_SEGMENT:
            thrum_program_append(fw, &cmd->arg.segment);
            break;
        case THRUM_MSG_GO:
            thrum_program_go(fw, &cmd->arg.go);
            break;
        default:
            break;
        }
    }
    return identify;
}

void thrum_link_handle_frame(thrum_fw_t *fw, const thrum_frame_t *frame, uint32_t rx_time)
{
    thrum_host_payload_t payload;
    thrum_link_t *link = &fw->link;
    int identify = 0;

    /* Every valid frame is a clock sample, whether or not it runs. */
    link->rx_ctrl = frame->ctrl;
    link->rx_seq = frame->seq;
    link->rx_time = rx_time;

    if (thrum_host_payload_parse(frame->payload, frame->len, &payload) != 0) {
        fw->parse_failures++;
        thrum_telemetry_send(fw, 0);
        return;
    }
    fw->stats.frames_ok++;
    link->last_host_time = rx_time;
    link->host_seen = 1;
    link->watchdog_tripped = 0;

    if ((frame->ctrl & THRUM_CTRL_UNSEQ) != 0u) {
        if (payload.sequenced) {
            fw->parse_failures++; /* a sequenced message in the any-lane breaks §2.3 */
        } else {
            identify = execute(fw, &payload, rx_time);
        }
        thrum_telemetry_send(fw, identify);
        return;
    }
    if ((frame->ctrl & THRUM_CTRL_RESYNC) != 0u) {
        link->next_seq = frame->seq;
    }
    if (frame->seq != link->next_seq) {
        /* duplicate or gap: the ACK's next_seq tells the host where to resume */
        fw->stats.duplicates++;
        thrum_telemetry_send(fw, 0);
        return;
    }
    switch (thrum_scheduler_check(fw, &payload)) {
    case 0:
        identify = execute(fw, &payload, rx_time);
        link->next_seq = (uint8_t)(link->next_seq + 1u);
        break;
    case 1:
        /* segments out of order: a rule of §3.1, so the frame is rejected like a bad parse */
        fw->parse_failures++;
        break;
    default:
        fw->stats.flow_violations++;
        thrum_telemetry_fault(fw, THRUM_FAULT_FLOW_CONTROL, frame->seq);
        break;
    }
    thrum_telemetry_send(fw, identify);
}

void thrum_link_check_watchdog(thrum_fw_t *fw, uint32_t now)
{
    thrum_link_t *link = &fw->link;

    if (!link->host_seen || link->watchdog_tripped) {
        return;
    }
    if (now - link->last_host_time < THRUM_WATCHDOG_US || thrum_time_before(now, link->last_host_time)) {
        return;
    }
    link->watchdog_tripped = 1;
    fw->stats.watchdog_stops++;
    thrum_scheduler_stop(fw);
    thrum_telemetry_fault(fw, THRUM_FAULT_WATCHDOG_STOP, 0);
}
