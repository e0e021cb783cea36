/*
 * thrum_codec.h — the wire codec of PROTOCOL.md: CRC, varints, frames and messages.
 *
 * Pure functions over caller-owned buffers: no heap, no globals. The firmware core uses them, the
 * C tests check them against the golden vectors, and the Swift tests may call them to compare the
 * Swift codec with this one.
 */
#ifndef THRUM_CODEC_H
#define THRUM_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "thrum_protocol.h"

/* 1 (the default): the preset library messages of protocol version 1 (see thrum_fw.h). */
#ifndef THRUM_FW_LIBRARY
#define THRUM_FW_LIBRARY 1
#endif
/* 1 (the default where the library is built): the compact stream of protocol version 2 (SHAPE,
 * PLAY_SHAPE, FOLLOW; PROTOCOL.md §3.4). It needs the library's byte-string fields. */
#ifndef THRUM_FW_STREAM
#define THRUM_FW_STREAM THRUM_FW_LIBRARY
#endif
#if THRUM_FW_STREAM && !THRUM_FW_LIBRARY
#error "THRUM_FW_STREAM needs THRUM_FW_LIBRARY (byte-string fields)"
#endif
/* 1 (the default where the compact stream is built, i.e. where the device reports version 2 or
 * later): USB start-of-frame times of protocol version 3 (FRAME_TIMES, FRAME_TIME; PROTOCOL.md
 * §3.6). Their ids follow version 2's in the message tables. */
#ifndef THRUM_FW_FRAME_TIMES
#define THRUM_FW_FRAME_TIMES THRUM_FW_STREAM
#endif
#if THRUM_FW_FRAME_TIMES && !THRUM_FW_STREAM
#error "THRUM_FW_FRAME_TIMES needs THRUM_FW_STREAM (version 3 is version 2 plus two messages)"
#endif
/* 1 (the default where the USB frame times are built): ACK departures of protocol version 4
 * (DEPARTURE; PROTOCOL.md §3.7), reported while FRAME_TIMES is on. Its id follows version 3's in
 * the message table. */
#ifndef THRUM_FW_DEPARTURES
#define THRUM_FW_DEPARTURES THRUM_FW_FRAME_TIMES
#endif
#if THRUM_FW_DEPARTURES && !THRUM_FW_FRAME_TIMES
#error "THRUM_FW_DEPARTURES needs THRUM_FW_FRAME_TIMES (version 4 is version 3 plus one message, switched by FRAME_TIMES)"
#endif

/* 1 (the default where the ACK departures are built): sessions of protocol version 5 (CLAIM,
 * RELEASE, SESSION and the keyed frames; PROTOCOL.md §3.8). Their ids follow version 4's in the
 * message tables. */
#ifndef THRUM_FW_SESSIONS
#define THRUM_FW_SESSIONS THRUM_FW_DEPARTURES
#endif
#if THRUM_FW_SESSIONS && !THRUM_FW_DEPARTURES
#error "THRUM_FW_SESSIONS needs THRUM_FW_DEPARTURES (version 5 is version 4 plus sessions)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CRC-16/MCRF4XX (§1.2) ---------------------------------------------------------------- */

/** Fold one byte into a running CRC (start from THRUM_CRC_INIT). */
uint16_t thrum_crc16_update(uint16_t crc, uint8_t byte);

/** CRC of a whole buffer. */
uint16_t thrum_crc16(const uint8_t *data, size_t len);

#if THRUM_FW_SESSIONS
/** CRC of a buffer from the running value `crc` (THRUM_CRC_INIT, or a session key). */
uint16_t thrum_crc16_from(uint16_t crc, const uint8_t *data, size_t len);

/** The key of session `session` (PROTOCOL.md §3.8): the CRC state after its four bytes,
 *  little-endian, from THRUM_CRC_INIT. A session's frames start their CRC from it. */
uint16_t thrum_session_key(uint32_t session);
#endif

/* ---- Unsigned LEB128 varints (§3) --------------------------------------------------------- */

/** thrum_uvarint_decode: the input ended inside the varint. */
#define THRUM_UVARINT_TRUNCATED (-1)
/** thrum_uvarint_decode: longer than 5 bytes, wider than 32 bits, or not minimal. */
#define THRUM_UVARINT_MALFORMED (-2)

/** Bytes the encoding of `value` takes (1..5). */
uint8_t thrum_uvarint_size(uint32_t value);

/** Encode `value` into `out` (room for THRUM_UVARINT_MAX_BYTES); returns the bytes written. */
uint8_t thrum_uvarint_encode(uint32_t value, uint8_t *out);

/** Decode one varint; returns the bytes consumed (1..5) or a negative THRUM_UVARINT_* code. */
int thrum_uvarint_decode(const uint8_t *in, size_t len, uint32_t *value);

/* ---- Frames (§1) --------------------------------------------------------------------------- */

/** A frame found by the decoder. `payload` points into the decoder's window and stays valid
 *  until the next call of thrum_frame_decoder_feed. */
typedef struct thrum_frame {
    uint8_t ctrl;
    uint8_t seq;
    uint8_t len;
    const uint8_t *payload;
#if THRUM_FW_SESSIONS
    uint8_t keyed;            /**< 0: its CRC starts from THRUM_CRC_INIT; i: from the decoder's key[i - 1] */
#endif
} thrum_frame_t;

#if THRUM_FW_SESSIONS
/** Session keys a decoder accepts besides the plain CRC start (§3.8). */
#define THRUM_DECODER_KEYS 2u
#endif

/** Stream receiver state (§1.3): a window of up to one frame of unconsumed bytes. */
typedef struct thrum_frame_decoder {
    uint8_t window[THRUM_MAX_FRAME];
    uint8_t fill;             /**< bytes held in window */
    uint8_t delivered;        /**< length of the frame delivered last call, consumed on the next */
    uint8_t expected_mark;    /**< THRUM_CTRL_MARK_HOST on the device, _DEVICE on the host */
    uint32_t discarded_bytes; /**< bytes dropped while hunting for a frame start */
    uint32_t bad_crc;         /**< candidate frames whose CRC did not match */
#if THRUM_FW_SESSIONS
    uint16_t key[THRUM_DECODER_KEYS]; /**< session keys a frame's CRC may also start from */
    uint8_t keys;             /**< how many of `key` are in use (0: plain frames only) */
    uint8_t keyed;            /**< what the frame found last started its CRC from (thrum_frame_t) */
#endif
} thrum_frame_decoder_t;

/** Reset a decoder that accepts frames whose CTRL high nibble is `expected_mark`. */
void thrum_frame_decoder_init(thrum_frame_decoder_t *dec, uint8_t expected_mark);

/**
 * Feed bytes. Returns how many of `data` were taken into the window. When a valid frame is
 * found, `*found` is 1 and `*frame` describes it; call again with the rest of the input (even
 * if that is empty, a further frame may already be in the window). When `*found` is 0, all of
 * `data` has been taken.
 */
size_t thrum_frame_decoder_feed(thrum_frame_decoder_t *dec, const uint8_t *data, size_t len,
                                thrum_frame_t *frame, int *found);

/**
 * Finish a frame whose payload the caller already wrote at `frame + 4`: fills SYNC, LEN, CTRL,
 * SEQ and the CRC. Returns the frame length (LEN + 6), or 0 when `len` exceeds the maximum.
 */
uint8_t thrum_frame_seal(uint8_t *frame, uint8_t ctrl, uint8_t seq, uint8_t len);

/** Build a whole frame into `out` (THRUM_MAX_FRAME bytes). Returns its length, or 0. */
uint8_t thrum_frame_encode(uint8_t *out, uint8_t ctrl, uint8_t seq, const uint8_t *payload,
                           uint8_t len);

#if THRUM_FW_SESSIONS
/** thrum_frame_encode for a session's frame: its CRC starts from `key` (thrum_session_key, §3.8)
 *  instead of THRUM_CRC_INIT (which gives the plain frame). */
uint8_t thrum_frame_encode_keyed(uint8_t *out, uint16_t key, uint8_t ctrl, uint8_t seq, const uint8_t *payload,
                                 uint8_t len);
#endif

/* ---- Messages (§3) ------------------------------------------------------------------------- */

/** Direction of a message: which id table applies. */
#define THRUM_DIR_H2D 0u
#define THRUM_DIR_D2H 1u

/** Field types, as used by thrum_msg_field_type. */
#define THRUM_FIELD_U8 1u
#define THRUM_FIELD_U32 2u
#define THRUM_FIELD_UV 3u

/** The most fields any message has (IDENTIFY_REPLY). */
#define THRUM_MSG_MAX_FIELDS 10u

/** One message with its fields as plain numbers, in the order of §3. */
typedef struct thrum_msg {
    uint32_t id;
    uint8_t field_count;
    uint32_t field[THRUM_MSG_MAX_FIELDS];
#if THRUM_FW_LIBRARY
    /** A message with a byte string (LIBRARY_WRITE, LIBRARY_DATA, §3): after its fixed fields a
     *  `u8` length and that many bytes. Decoding points `blob` into the input; NULL otherwise. */
    const uint8_t *blob;
    uint8_t blob_len;
#endif
} thrum_msg_t;

/** 1 when message `id` of direction `dir` ends with a byte string (§3 type `bytes`). */
int thrum_msg_has_blob(uint8_t dir, uint32_t id);

/** Number of fields of message `id` in direction `dir`, or -1 when the id is unknown. */
int thrum_msg_field_count(uint8_t dir, uint32_t id);

/** Type (THRUM_FIELD_*) of field `index` of message `id`, or 0. */
uint8_t thrum_msg_field_type(uint8_t dir, uint32_t id, uint8_t index);

/** 1 when host message `id` may travel in an UNSEQ frame (§3.1 lane "any"). */
int thrum_msg_is_any_lane(uint32_t id);

/** 1 when the field values of `msg` are within the ranges §3 gives. */
int thrum_msg_fields_valid(uint8_t dir, const thrum_msg_t *msg);

/** Decode one message from the start of `in`. Returns the bytes consumed, or -1 when it does
 *  not parse (unknown id, truncated field, value out of range). */
int thrum_msg_decode(uint8_t dir, const uint8_t *in, size_t len, thrum_msg_t *msg);

/** Encode `msg` into `out` (room for `cap` bytes). Returns the bytes written, or 0 when the id is
 *  unknown, a value is out of range, or it does not fit. */
uint8_t thrum_msg_encode(uint8_t dir, const thrum_msg_t *msg, uint8_t *out, uint8_t cap);

/** 1 when a whole payload parses: only complete, well-formed messages and nothing after them. */
int thrum_payload_valid(uint8_t dir, const uint8_t *payload, size_t len);

/* ---- Time (§3) ----------------------------------------------------------------------------- */

/** 1 when device time `a` is before `b`, across the 2^32 µs wrap. */
static inline int thrum_time_before(uint32_t a, uint32_t b)
{
    return ((a - b) & 0x80000000u) != 0u;
}

#ifdef __cplusplus
}
#endif

#endif /* THRUM_CODEC_H */
