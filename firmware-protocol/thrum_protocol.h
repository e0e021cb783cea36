/*
 * thrum_protocol.h — constants of the Thrum wire protocol, version 5.
 *
 * The normative description is PROTOCOL.md beside this file. This header is shared by the
 * firmware core (hardware/firmware) and mirrored by Sources/ThrumWire/ProtocolConstants.swift.
 * Portable C99, no dependencies beyond <stdint.h>.
 */
#ifndef THRUM_PROTOCOL_H
#define THRUM_PROTOCOL_H

#include <stdint.h>

#define THRUM_PROTOCOL_VERSION 5u

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
/* 0x06 and 0x07 are never assigned: the golden vectors use them as unknown ids. */
#define THRUM_MSG_CALIBRATE 0x08u
#define THRUM_MSG_WAKE 0x09u
#define THRUM_MSG_STANDBY 0x0Au
#define THRUM_MSG_PRELOAD_BEGIN 0x0Bu
#define THRUM_MSG_PRELOAD_SEGMENT 0x0Cu
#define THRUM_MSG_GO 0x0Du
#define THRUM_MSG_ROM_EFFECT 0x0Eu
#define THRUM_MSG_CUT 0x0Fu
#define THRUM_MSG_CONFIGURE_SAMPLE_TIME 0x10u
/* Version 1: the preset library (§3.3). */
#define THRUM_MSG_LIBRARY_BEGIN 0x11u
#define THRUM_MSG_LIBRARY_WRITE 0x12u
#define THRUM_MSG_LIBRARY_COMMIT 0x13u
#define THRUM_MSG_LIBRARY_QUERY 0x14u
#define THRUM_MSG_LIBRARY_READ 0x15u
#define THRUM_MSG_PLAY_PRESET 0x16u
/* Version 2: restoring a kept calibration (§3.5). */
#define THRUM_MSG_RESTORE_CALIBRATION 0x1Cu
/* Version 2: the compact stream (§3.4). */
#define THRUM_MSG_SHAPE 0x17u
#define THRUM_MSG_PLAY_SHAPE 0x18u
#define THRUM_MSG_FOLLOW 0x19u
#define THRUM_MSG_NEXT_SHAPE 0x1Au
/* Version 3: USB start-of-frame times (§3.6). */
#define THRUM_MSG_FRAME_TIMES 0x1Du
/* Version 5: sessions (§3.8). */
#define THRUM_MSG_CLAIM 0x1Eu
#define THRUM_MSG_RELEASE 0x1Fu

/* Device → host message ids (§3.2). */
#define THRUM_MSG_ACK 0x40u
#define THRUM_MSG_IDENTIFY_REPLY 0x41u
#define THRUM_MSG_ONSET 0x42u
#define THRUM_MSG_FAULT 0x43u
/* 0x44 is never assigned (an unknown id in the golden vectors). */
#define THRUM_MSG_CALIBRATION_RESULT 0x45u
#define THRUM_MSG_STATE 0x46u
#define THRUM_MSG_CAPABILITIES 0x47u
#define THRUM_MSG_LIBRARY 0x48u
#define THRUM_MSG_LIBRARY_DATA 0x49u
#define THRUM_MSG_TRIGGER 0x4Au
/* Version 3: USB start-of-frame times (§3.6). */
#define THRUM_MSG_FRAME_TIME 0x4Bu
/* Version 4: ACK departures (§3.7). */
#define THRUM_MSG_DEPARTURE 0x4Cu
/* Version 5: sessions (§3.8). */
#define THRUM_MSG_SESSION 0x4Du

/* The preset library (§3.3, §4.9). */
#define THRUM_LIBRARY_READ_MAX 32u          /* LIBRARY_READ length: 1..this */
#define THRUM_LIBRARY_STATUS_ACTIVE 0u      /* LIBRARY status: a library is active */
#define THRUM_LIBRARY_STATUS_EMPTY 1u       /* no library stored */
#define THRUM_LIBRARY_STATUS_SWITCHED 2u    /* LIBRARY_COMMIT verified the new image and switched to it */
#define THRUM_LIBRARY_STATUS_TOO_LARGE 3u   /* LIBRARY_BEGIN: larger than a slot (or smaller than a header) */
#define THRUM_LIBRARY_STATUS_VERIFY_FAILED 4u /* the CRC read back differs: nothing switched */
#define THRUM_LIBRARY_STATUS_WRITE_ERROR 5u /* a write out of order, past the size, or failed in storage */
#define THRUM_LIBRARY_STATUS_NO_STORAGE 6u  /* the board has no library storage */
#define THRUM_LIBRARY_STATUS_BAD_IMAGE 7u   /* the image's header is not a library this device reads */
#define THRUM_TRIGGER_EVENT_BASE 0xF0000000u /* event ids of presets a trigger input started */
#define THRUM_TRIGGER_DEBOUNCE_US 20000u    /* an input must rest inactive this long before its next edge counts */

/* The compact stream (§3.4): the shape table a device of version 2 keeps. */
#define THRUM_STREAM_SHAPES 64u      /* SHAPE ids 0..this-1 */
#define THRUM_STREAM_SHAPE_BYTES 48u /* a SHAPE's data (its ramp list) holds at most this many bytes */

/* USB start-of-frame times (§3.6). */
#define THRUM_FRAME_TIMES_MAX_INTERVAL_MS 60000u /* FRAME_TIMES interval_ms: 0 (off) ..this */
#define THRUM_USB_FRAME_MASK 0x7FFu              /* FRAME_TIME frame: the 11-bit USB frame number */

/* ACK departures (§3.7). */
#define THRUM_DEPARTURE_MAX_WAIT_US 1000000u /* DEPARTURE wait: 0..this */

/* Sessions (§3.8). A session's frames start their CRC from its key (the CRC-16 state after the
 * session's four bytes, little-endian, from THRUM_CRC_INIT) instead of THRUM_CRC_INIT. */
#define THRUM_SESSION_NONE 0u        /* no session holds the device (CLAIM never names it) */
#define THRUM_SESSION_CLAIMED 0u     /* SESSION status: this frame's session now holds the device */
#define THRUM_SESSION_TAKEN 1u       /* another host's CLAIM took the device from this session at `at` */
#define THRUM_SESSION_REFUSED 2u     /* the CLAIM was refused: its key is the holder's (pick another session) */

/* SEGMENT limits (§3.1). */
#define THRUM_SEGMENT_MIN_DURATION_US 1u
#define THRUM_SEGMENT_MAX_DURATION_US 1000000u

/* A payload holds at most this many messages that carry fields (§3). */
#define THRUM_MAX_FIELD_MESSAGES 12u

/* Preloaded programs (§3.1 PRELOAD_BEGIN, GO): slots 0..THRUM_PROGRAM_SLOTS-1. */
#define THRUM_PROGRAM_SLOTS 4u

/* ROM_EFFECT (§3.1): DRV2605L ROM waveform ids. */
#define THRUM_ROM_EFFECT_MIN 1u
#define THRUM_ROM_EFFECT_MAX 123u

/* CALIBRATION_RESULT status (§3.2). */
#define THRUM_CALIBRATION_PASS 0u
#define THRUM_CALIBRATION_FAIL 1u

/* CAPABILITIES calibrated (§3.2): the driver's calibration words since reset. */
#define THRUM_CALIBRATED_NONE 0u     /* reset words, or the last run failed */
#define THRUM_CALIBRATED_MEASURED 1u /* an auto-calibration passed */
#define THRUM_CALIBRATED_RESTORED 2u /* RESTORE_CALIBRATION wrote kept words (version 2) */

/* STATE (§3.2): state, then cause. */
#define THRUM_STATE_STANDBY 0u
#define THRUM_STATE_READY 1u
#define THRUM_STATE_CALIBRATING 2u
#define THRUM_CAUSE_HOST 0u
#define THRUM_CAUSE_IDLE_TIMEOUT 1u
#define THRUM_CAUSE_AUTOMATIC 2u

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
#define THRUM_FAULT_PROGRAM_FULL 7u
#define THRUM_FAULT_GO_REJECTED 8u
#define THRUM_FAULT_BUS_RECOVERY 9u
#define THRUM_FAULT_NO_PRESET 10u /* PLAY_PRESET: no library, or no preset with that id (detail = the id) */
#define THRUM_FAULT_PRESET_CUT 11u /* a stored preset's rest was dropped (detail = that play's event_base) */
#define THRUM_FAULT_PRESET_CUT 11u /* a stored preset's rest was dropped (detail = that play's event_base) */
#define THRUM_FAULT_DRIVE_DROPPED 12u /* an unmarked entry that would have driven was dropped (detail = its start) */

/* Device behaviour (§4). */
#define THRUM_AMPLITUDE_UPDATE_INTERVAL_US 500u
#define THRUM_LATE_TOLERANCE_US 50u
#define THRUM_WATCHDOG_US 1000000u
#define THRUM_CLOCK_HZ 1000000u
#define THRUM_ROM_LATE_WINDOW_US 20000u      /* a ROM effect reached later than this is dropped */
#define THRUM_WAKE_MAX_TIMEOUT_MS 2000000u   /* larger WAKE idle timeouts are clamped */

/* Varints (§3). */
#define THRUM_UVARINT_MAX_BYTES 5u

#endif /* THRUM_PROTOCOL_H */
