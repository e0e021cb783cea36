/*
 * thrum_protocol.h — constants of the Thrum wire protocol, version 0.
 *
 * The normative description is PROTOCOL.md beside this file. This header is shared by the
 * firmware core (hardware/firmware) and mirrored by Sources/ThrumWire/ProtocolConstants.swift.
 * Portable C99, no dependencies beyond <stdint.h>.
 */
#ifndef THRUM_PROTOCOL_H
#define THRUM_PROTOCOL_H

#include <stdint.h>

#define THRUM_PROTOCOL_VERSION 0u

/* Framing (PROTOCOL.md §1). */
#define THRUM_SYNC 0x7Eu
#define THRUM_MAX_PAYLOAD 58u
#define THRUM_FRAME_OVERHEAD 6u /* SYNC, LEN, CTRL, SEQ, CRC(2) */
#define THRUM_MAX_FRAME (THRUM_MAX_PAYLOAD + THRUM_FRAME_OVERHEAD)

/* CTRL byte (§1.1). */
#define THRUM_CTRL_MARK_MASK 0xF0u
#define THRUM_CTRL_MARK_HOST 0xA0u
#define THRUM_CTRL_MARK_DEVICE 0xD0u
#define THRUM_CTRL_RESERVED_MASK 0x0Cu
#define THRUM_CTRL_RESYNC 0x02u
#define THRUM_CTRL_UNSEQ 0x01u

/* CRC-16/MCRF4XX (§1.2). */
#define THRUM_CRC_INIT 0xFFFFu
#define THRUM_CRC_POLY_REFLECTED 0x8408u
#define THRUM_CRC_CHECK 0x6F91u /* CRC of "123456789" */

/* Host → device message ids (§3.1). */
#define THRUM_MSG_IDENTIFY 0x01u
#define THRUM_MSG_PING 0x02u
#define THRUM_MSG_STOP 0x03u
#define THRUM_MSG_SEGMENT 0x04u
#define THRUM_MSG_CONFIGURE_DRIVER 0x05u

/* Device → host message ids (§3.2). */
#define THRUM_MSG_ACK 0x40u
#define THRUM_MSG_IDENTIFY_REPLY 0x41u
#define THRUM_MSG_ONSET 0x42u
#define THRUM_MSG_FAULT 0x43u

/* SEGMENT limits (§3.1). */
#define THRUM_SEGMENT_MIN_DURATION_US 1u
#define THRUM_SEGMENT_MAX_DURATION_US 1000000u

/* ONSET status (§3.2). */
#define THRUM_ONSET_ON_TIME 0u
#define THRUM_ONSET_LATE_TRIMMED 1u
#define THRUM_ONSET_DROPPED 2u

/* FAULT codes (§3.2). */
#define THRUM_FAULT_NO_DRIVER 1u
#define THRUM_FAULT_BUS_ERROR 2u
#define THRUM_FAULT_OVER_TEMPERATURE 3u
#define THRUM_FAULT_OVER_CURRENT 4u
#define THRUM_FAULT_WATCHDOG_STOP 5u
#define THRUM_FAULT_FLOW_CONTROL 6u

/* Device behaviour (§4). */
#define THRUM_AMPLITUDE_UPDATE_INTERVAL_US 500u
#define THRUM_LATE_TOLERANCE_US 50u
#define THRUM_WATCHDOG_US 1000000u
#define THRUM_CLOCK_HZ 1000000u

/* Varints (§3). */
#define THRUM_UVARINT_MAX_BYTES 5u

#endif /* THRUM_PROTOCOL_H */
