/*
 * Reliable delivery on the device side (PROTOCOL.md §2): sequence numbers, RESYNC, the UNSEQ
 * lane, flow control, one ACK per valid host frame, and the watchdog that silences the actuator
 * when the host goes quiet (§4.4).
 *
 * A frame is handled in three passes over its payload, decoding again each time rather than
 * keeping a parsed copy (stack is scarce on small MCUs): validate it whole (messages.c), check
 * order and credits as executing it would, then execute each message through its handler (both
 * driven by the command table, commands.c).
 */
#include <string.h>

#include "thrum_core.h"

void thrum_link_init(thrum_fw_t *fw)
{
    memset(&fw->link, 0, sizeof(fw->link));
#if THRUM_FW_SESSIONS
    fw->link.key = THRUM_CRC_INIT; /* plain frames until a CLAIM (§3.8) */
#endif
}

void thrum_link_handle_frame(thrum_fw_t *fw, const thrum_frame_t *frame, uint32_t rx_time)
{
    thrum_link_t *link = &fw->link;
    uint8_t sequenced;

#if THRUM_FW_SESSIONS
    if (thrum_session_screen(fw, frame, rx_time)) {
        return; /* not the holder's frame: answered, nothing of it ran (§3.8) */
    }
#endif
    /* Every valid frame is a clock sample, whether or not it runs, and gets one ACK (sent at the
     * end; IDENTIFY_REPLY rides with it when an executed IDENTIFY asked). */
    link->rx_ctrl = frame->ctrl;
    link->rx_seq = frame->seq;
    link->rx_time = rx_time;
    link->identify = 0;
#if THRUM_FW_DEPARTURES
    fw->departures.fresh = 1; /* the next ACK sent names this frame first (§3.7) */
#endif

    if (thrum_host_payload_validate(frame->payload, frame->len, &sequenced) != 0) {
        THRUM_COUNT(fw->parse_failures);
    } else {
        THRUM_COUNT(fw->stats.frames_ok);
        link->last_host_time = rx_time;
        link->host_seen = 1;
        link->watchdog_tripped = 0;
        if ((frame->ctrl & THRUM_CTRL_UNSEQ) != 0u) {
            if (sequenced) {
                THRUM_COUNT(fw->parse_failures); /* a sequenced message in the any-lane breaks §2.3 */
            } else {
                thrum_commands_execute(fw, frame->payload, frame->len, rx_time);
            }
        } else {
            if ((frame->ctrl & THRUM_CTRL_RESYNC) != 0u) {
                link->next_seq = frame->seq;
            }
            if (frame->seq != link->next_seq) {
                /* duplicate or gap: the ACK's next_seq tells the host where to resume */
                THRUM_COUNT(fw->stats.duplicates);
            } else {
                switch (thrum_commands_check(fw, frame->payload, frame->len)) {
                case 0:
                    thrum_commands_execute(fw, frame->payload, frame->len, rx_time);
                    link->next_seq = (uint8_t)(link->next_seq + 1u);
#if THRUM_FW_SESSIONS
                    link->released = 0; /* a host plays again: its silence is a fault again */
#endif
                    break;
                case 1:
                    /* entries out of order: a rule of §3.1, rejected like a bad parse */
                    THRUM_COUNT(fw->parse_failures);
                    break;
                default:
                    THRUM_COUNT(fw->stats.flow_violations);
                    thrum_telemetry_fault(fw, THRUM_FAULT_FLOW_CONTROL, frame->seq);
                    break;
                }
            }
        }
    }
    /* repeated ONSETs ride on the ACKs of any-lane frames (pings) only, never in a burst */
    thrum_telemetry_send(fw, link->identify, (frame->ctrl & THRUM_CTRL_UNSEQ) != 0u);
#if THRUM_FW_SESSIONS
    if (link->released && link->session != THRUM_SESSION_NONE) {
        thrum_session_end(fw); /* RELEASE ran: its ACK went in the session's key */
    }
#endif
}

void thrum_link_check_watchdog(thrum_fw_t *fw, uint32_t now)
{
    thrum_link_t *link = &fw->link;

    if (!link->host_seen || link->watchdog_tripped) {
        return;
    }
    if ((int32_t)(now - link->last_host_time) < (int32_t)THRUM_WATCHDOG_US) {
        return; /* not silent long enough (or a frame stamped after `now`) */
    }
    link->watchdog_tripped = 1;
    THRUM_COUNT(fw->stats.watchdog_stops);
    thrum_scheduler_stop(fw);
    /* A silence with nothing queued is still reported: a stream the silence starved (an underrun)
     * looks the same, and its host must learn it. Only a host that said it was done (RELEASE)
     * falls silent without a fault (§4.4). */
#if THRUM_FW_SESSIONS
    if (!link->released)
#endif
    {
        thrum_telemetry_fault(fw, THRUM_FAULT_WATCHDOG_STOP, 0);
    }
#if THRUM_FW_SESSIONS
    if (link->session != THRUM_SESSION_NONE) {
        thrum_session_end(fw); /* a silent holder's session lapses (its FAULT leaves in its key) */
    }
#endif
}
