#!/usr/bin/env python3
"""Generate firmware-protocol/vectors/wire-vectors.txt.

An independent Python implementation of firmware-protocol/PROTOCOL.md (version 5): CRC,
varints, messages, frames (plain and a session's keyed ones, §3.8) and the §1.3 stream receiver. Run from anywhere:

    python3 tools/gen-wire-vectors.py            # writes the vector file
    python3 tools/gen-wire-vectors.py --check    # fails if the file on disk differs
"""
import os
import sys

SYNC = 0x7E
MAX_PAYLOAD = 58
OVERHEAD = 6
MARK_MASK = 0xF0
MARK = {"h2d": 0xA0, "d2h": 0xD0}
RESERVED = {"h2d": 0x0C, "d2h": 0x0F}
RESYNC = 0x02
UNSEQ = 0x01
U32_MAX = 0xFFFFFFFF

# --------------------------------------------------------------------------------------------
# CRC-16/MCRF4XX (§1.2)


def crc16(data, start=0xFFFF):
    crc = start
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


assert crc16(b"123456789") == 0x6F91


def session_key(session):
    """§3.8: the CRC state after the session's four bytes, little-endian, from 0xFFFF."""
    return crc16(session.to_bytes(4, "little"))

# --------------------------------------------------------------------------------------------
# Unsigned LEB128, at most 5 bytes, value fits 32 bits, minimal encoding (§3)


def uv_encode(v):
    assert 0 <= v <= U32_MAX
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class ParseError(Exception):
    pass


def uv_decode(data, pos):
    """Returns (value, new_pos) or raises ParseError."""
    value = 0
    for i in range(5):
        if pos + i >= len(data):
            raise ParseError("truncated varint")
        b = data[pos + i]
        value |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            if i > 0 and b == 0:
                raise ParseError("overlong varint")
            if value > U32_MAX:
                raise ParseError("varint exceeds 32 bits")
            return value, pos + i + 1
    raise ParseError("varint longer than 5 bytes")


# --------------------------------------------------------------------------------------------
# Messages (§3)

# name -> (id, direction, [(field, type)])
MESSAGES = {
    "IDENTIFY": (0x01, "h2d", []),
    "PING": (0x02, "h2d", []),
    "STOP": (0x03, "h2d", []),
    "SEGMENT": (0x04, "h2d", [("start", "u32"), ("duration", "uv"), ("from", "u8"),
                              ("to", "u8"), ("event", "uv")]),
    "CONFIGURE_DRIVER": (0x05, "h2d", [("rated_voltage", "u8"), ("od_clamp", "u8"),
                                       ("drive_time", "u8"), ("ol_lra_period", "u8")]),
    # 0x06 and 0x07 are never assigned (unknown-id vectors below use them)
    "CALIBRATE": (0x08, "h2d", []),
    "WAKE": (0x09, "h2d", [("idle_timeout_ms", "uv")]),
    "STANDBY": (0x0A, "h2d", []),
    "PRELOAD_BEGIN": (0x0B, "h2d", [("slot", "u8")]),
    "PRELOAD_SEGMENT": (0x0C, "h2d", [("offset", "u32"), ("duration", "uv"), ("from", "u8"),
                                      ("to", "u8"), ("event", "uv")]),
    "GO": (0x0D, "h2d", [("slot", "u8"), ("start", "u32"), ("event_base", "uv")]),
    "ROM_EFFECT": (0x0E, "h2d", [("start", "u32"), ("effect", "u8"), ("event", "uv")]),
    "CUT": (0x0F, "h2d", [("at", "u32")]),
    "CONFIGURE_SAMPLE_TIME": (0x10, "h2d", [("sample_time", "u8")]),
    # version 1: the preset library (§3.3); "bytes" = a u8 length, then that many bytes
    "LIBRARY_BEGIN": (0x11, "h2d", [("size", "u32"), ("crc", "u32")]),
    "LIBRARY_WRITE": (0x12, "h2d", [("offset", "u32"), ("data", "bytes")]),
    "LIBRARY_COMMIT": (0x13, "h2d", []),
    "LIBRARY_QUERY": (0x14, "h2d", []),
    "LIBRARY_READ": (0x15, "h2d", [("offset", "u32"), ("length", "u8")]),
    "PLAY_PRESET": (0x16, "h2d", [("id", "uv"), ("start", "u32"), ("event_base", "uv")]),
    # version 2: the compact stream (§3.4)
    "SHAPE": (0x17, "h2d", [("shape", "u8"), ("data", "bytes")]),
    "PLAY_SHAPE": (0x18, "h2d", [("after", "uv"), ("shape", "u8"), ("event", "uv")]),
    "FOLLOW": (0x19, "h2d", [("gap", "uv"), ("event", "uv"), ("data", "bytes")]),
    "NEXT_SHAPE": (0x1A, "h2d", [("after", "uv"), ("shape", "u8")]),
    # version 2: restoring a kept calibration (§3.5)
    "RESTORE_CALIBRATION": (0x1C, "h2d", [("a_cal_comp", "u8"), ("a_cal_bemf", "u8"), ("bemf_gain", "u8")]),
    # version 3: USB start-of-frame times (§3.6)
    "FRAME_TIMES": (0x1D, "h2d", [("interval_ms", "uv")]),
    # version 5: sessions (§3.8)
    "CLAIM": (0x1E, "h2d", [("session", "u32")]),
    "RELEASE": (0x1F, "h2d", []),
    "ACK": (0x40, "d2h", [("next_seq", "u8"), ("rx_ctrl", "u8"), ("rx_seq", "u8"),
                          ("rx_time", "u32"), ("credits", "uv")]),
    "IDENTIFY_REPLY": (0x41, "d2h", [("protocol_version", "uv"), ("fw_major", "uv"),
                                     ("fw_minor", "uv"), ("fw_patch", "uv"),
                                     ("device_id", "u32"), ("clock_hz", "u32"),
                                     ("queue_slots", "uv"), ("rx_buffer", "uv"),
                                     ("max_payload", "uv"), ("driver_id", "uv")]),
    "ONSET": (0x42, "d2h", [("event", "uv"), ("time", "u32"), ("status", "u8")]),
    "FAULT": (0x43, "d2h", [("code", "uv"), ("detail", "uv")]),
    # 0x44 is never assigned
    "CALIBRATION_RESULT": (0x45, "d2h", [("status", "u8"), ("a_cal_comp", "u8"),
                                         ("a_cal_bemf", "u8"), ("bemf_gain", "u8"),
                                         ("lra_period", "u8")]),
    "STATE": (0x46, "d2h", [("state", "u8"), ("cause", "u8")]),
    "CAPABILITIES": (0x47, "d2h", [("program_slots", "uv"), ("program_segments", "uv"),
                                   ("calibrated", "u8")]),
    "LIBRARY": (0x48, "d2h", [("status", "u8"), ("slot", "u8"), ("seq", "u32"), ("size", "u32"),
                              ("crc", "u32"), ("capacity", "u32")]),
    "LIBRARY_DATA": (0x49, "d2h", [("offset", "u32"), ("data", "bytes")]),
    "TRIGGER": (0x4A, "d2h", [("input", "u8"), ("preset", "uv"), ("time", "u32")]),
    # version 3: USB start-of-frame times (§3.6)
    "FRAME_TIME": (0x4B, "d2h", [("frame", "uv"), ("time", "u32")]),
    # version 4: ACK departures (§3.7)
    "DEPARTURE": (0x4C, "d2h", [("rx_time", "u32"), ("wait", "uv")]),
    # version 5: sessions (§3.8)
    "SESSION": (0x4D, "d2h", [("session", "u32"), ("status", "u8"), ("at", "u32")]),
}
PROGRAM_SLOTS = 4
FRAME_TIMES_MAX_INTERVAL_MS = 60000
USB_FRAME_MAX = 2047
DEPARTURE_MAX_WAIT = 1_000_000
STREAM_SHAPES = 64
STREAM_SHAPE_BYTES = 48
BY_ID = {(spec[1], spec[0]): name for name, spec in MESSAGES.items()}


def check_range(name, field, value, fields=None):
    if name in ("SEGMENT", "PRELOAD_SEGMENT") and field == "duration" and not 1 <= value <= 1_000_000:
        raise ParseError("%s duration out of range" % name)
    if name in ("PRELOAD_BEGIN", "GO") and field == "slot" and not value < PROGRAM_SLOTS:
        raise ParseError("%s slot out of range" % name)
    if name == "ROM_EFFECT" and field == "effect" and not 1 <= value <= 123:
        raise ParseError("ROM_EFFECT effect out of range")
    if name == "FRAME_TIMES" and field == "interval_ms" and not value <= FRAME_TIMES_MAX_INTERVAL_MS:
        raise ParseError("FRAME_TIMES interval out of range")
    if name == "FRAME_TIME" and field == "frame" and not value <= USB_FRAME_MAX:
        raise ParseError("FRAME_TIME frame out of range")
    if name == "DEPARTURE" and field == "wait" and not value <= DEPARTURE_MAX_WAIT:
        raise ParseError("DEPARTURE wait out of range")
    if name == "CLAIM" and field == "session" and (value == 0 or session_key(value) == 0xFFFF):
        raise ParseError("CLAIM session 0, or a session whose key is the plain CRC start")
    if name == "LIBRARY_READ" and field == "length" and not 1 <= value <= 32:
        raise ParseError("LIBRARY_READ length out of range")
    if name in ("SHAPE", "PLAY_SHAPE", "NEXT_SHAPE") and field == "shape" and not value < STREAM_SHAPES:
        raise ParseError("%s shape out of range" % name)
    if name == "SHAPE" and field == "data":
        if not 2 <= len(value) <= STREAM_SHAPE_BYTES:
            raise ParseError("SHAPE data length out of range")
        shape_decode(value)
    if name == "FOLLOW" and field == "data":
        pairs = follow_decode(value)
        if fields["event"] and pairs[0][2]:
            raise ParseError("FOLLOW first ramp marked twice")


def shape_encode(ramps):
    """A ramp list [(gap, duration, from, to)] as §3.4 (and docs/library.md shapes) encode it."""
    out = bytearray([len(ramps)])
    prev_to = 0
    for gap, duration, frm, to in ramps:
        out += uv_encode(duration << 2 | (2 if gap else 0) | (1 if frm != prev_to else 0))
        if gap:
            out += uv_encode(gap)
        if frm != prev_to:
            out.append(frm)
        out.append(to)
        prev_to = to
    return bytes(out)


def shape_decode(data):
    """[(gap, duration, from, to)] or ParseError: count >= 1, ramps whole, nothing left over."""
    if not data or data[0] == 0:
        raise ParseError("shape without ramps")
    pos, prev_to, ramps = 1, 0, []
    for _ in range(data[0]):
        head, pos = uv_decode(data, pos)
        gap, frm = 0, prev_to
        if head & 2:
            gap, pos = uv_decode(data, pos)
        if head & 1:
            if pos >= len(data):
                raise ParseError("truncated ramp")
            frm, pos = data[pos], pos + 1
        if pos >= len(data):
            raise ParseError("truncated ramp")
        to, pos = data[pos], pos + 1
        if not 1 <= head >> 2 <= 1_000_000:
            raise ParseError("ramp duration out of range")
        ramps.append((gap, head >> 2, frm, to))
        prev_to = to
    if pos != len(data):
        raise ParseError("bytes after the last ramp")
    return ramps


def follow_encode(pairs):
    """FOLLOW data from (duration, to) or (duration, to, marks the next event) pairs."""
    out = bytearray()
    for p in pairs:
        duration, to = p[0], p[1]
        marked = p[2] if len(p) > 2 else False
        out += uv_encode(duration << 1 | (1 if marked else 0))
        out.append(to)
    return bytes(out)


def follow_decode(data):
    """[(duration, to, marked)] or ParseError: at least one pair, each whole."""
    if not data:
        raise ParseError("FOLLOW without ramps")
    pos, pairs = 0, []
    while pos < len(data):
        head, pos = uv_decode(data, pos)
        if pos >= len(data):
            raise ParseError("truncated FOLLOW pair")
        if not 1 <= head >> 1 <= 1_000_000:
            raise ParseError("FOLLOW duration out of range")
        pairs.append((head >> 1, data[pos], bool(head & 1)))
        pos += 1
    return pairs


def msg_encode(name, **fields):
    mid, _, layout = MESSAGES[name]
    out = bytearray(uv_encode(mid))
    assert set(fields) == {f for f, _ in layout}, (name, fields)
    for field, typ in layout:
        v = fields[field]
        if typ == "u8":
            assert 0 <= v <= 0xFF
            out.append(v)
        elif typ == "u32":
            assert 0 <= v <= U32_MAX
            out += v.to_bytes(4, "little")
        elif typ == "bytes":
            assert len(v) <= 0xFF
            out.append(len(v))
            out += v
        else:
            out += uv_encode(v)
    return bytes(out)


def msg_text(name, **fields):
    _, _, layout = MESSAGES[name]
    return " ".join([name] + [("%s=%s" % (f, fields[f].hex() or ".")) if t == "bytes" else ("%s=%d" % (f, fields[f]))
                              for f, t in layout])


def parse_payload(direction, data):
    """Returns [(name, {field: value})] or raises ParseError."""
    pos = 0
    out = []
    while pos < len(data):
        mid, pos = uv_decode(data, pos)
        name = BY_ID.get((direction, mid))
        if name is None:
            raise ParseError("unknown message id %d" % mid)
        fields = {}
        for field, typ in MESSAGES[name][2]:
            if typ == "u8":
                if pos + 1 > len(data):
                    raise ParseError("truncated")
                v, pos = data[pos], pos + 1
            elif typ == "u32":
                if pos + 4 > len(data):
                    raise ParseError("truncated")
                v, pos = int.from_bytes(data[pos:pos + 4], "little"), pos + 4
            elif typ == "bytes":
                if pos + 1 > len(data) or pos + 1 + data[pos] > len(data):
                    raise ParseError("truncated byte string")
                v, pos = bytes(data[pos + 1:pos + 1 + data[pos]]), pos + 1 + data[pos]
            else:
                v, pos = uv_decode(data, pos)
            fields[field] = v
            check_range(name, field, v, fields)
        out.append((name, fields))
    return out


# --------------------------------------------------------------------------------------------
# Frames (§1)


def frame_encode(direction, flags, seq, payload, session=None):
    """A plain frame, or with `session` a frame of that session (its CRC starts from the key)."""
    assert len(payload) <= MAX_PAYLOAD
    ctrl = MARK[direction] | flags
    body = bytes([len(payload), ctrl, seq]) + payload
    c = crc16(body, 0xFFFF if session is None else session_key(session))
    return bytes([SYNC]) + body + bytes([c & 0xFF, c >> 8])


def raw_frame(length, ctrl, seq, payload):
    """A frame with arbitrary header bytes and a correct CRC (for invalid-header vectors)."""
    body = bytes([length, ctrl, seq]) + payload
    c = crc16(body)
    return bytes([SYNC]) + body + bytes([c & 0xFF, c >> 8])


def receive(direction, stream, sessions=()):
    """The §1.3 receiver: returns the list of (ctrl, seq, payload) of valid frames found. With
    `sessions` it also takes the frames of those sessions (§3.8), and each found frame says which
    it was: (ctrl, seq, payload, session or None)."""
    window = bytearray()
    found = []
    for byte in stream:
        window.append(byte)
        assert len(window) <= 64
        while True:
            while window and window[0] != SYNC:
                del window[0]
            if len(window) < 2:
                break
            length = window[1]
            if length > MAX_PAYLOAD:
                del window[0]
                continue
            if len(window) < 4:
                break
            ctrl = window[2]
            if ctrl & MARK_MASK != MARK[direction] or ctrl & RESERVED[direction]:
                del window[0]
                continue
            if len(window) < length + OVERHEAD:
                break
            body = bytes(window[1:4 + length])
            got = window[4 + length] | window[5 + length] << 8
            which = [s for s in (None,) + tuple(sessions) if got == crc16(body, 0xFFFF if s is None else session_key(s))]
            if which:
                f = (ctrl, window[3], bytes(window[4:4 + length]))
                found.append(f + (which[0],) if sessions else f)
                del window[:length + OVERHEAD]
            else:
                del window[0]
    return found


# --------------------------------------------------------------------------------------------
# Vector file


def hx(b):
    return b.hex() if b else "."


lines = []


def comment(text):
    lines.append("")
    lines.append("# " + text)


def vec(kind, name, *cols):
    for c in cols:
        assert "\t" not in str(c) and str(c) != ""
    lines.append("\t".join([kind, name] + [str(c) for c in cols]))


def crc_vec(name, data):
    vec("crc", name, hx(data), "%04x" % crc16(data))


def uv_vec(name, value):
    enc = uv_encode(value)
    assert uv_decode(enc, 0) == (value, len(enc))
    vec("uvarint", name, value, hx(enc))


def bad_uv_vec(name, data):
    try:
        v, end = uv_decode(data, 0)
    except ParseError:
        vec("badvarint", name, hx(data))
        return
    raise AssertionError("badvarint %s decodes to %d (%d bytes)" % (name, v, end))


def msg_vec(name, direction, msg, **fields):
    enc = msg_encode(msg, **fields)
    assert MESSAGES[msg][1] == direction
    assert parse_payload(direction, enc) == [(msg, fields)]
    vec("message", name, direction, msg_text(msg, **fields), hx(enc))


def bad_payload_vec(name, direction, data):
    try:
        parse_payload(direction, data)
    except ParseError:
        vec("badpayload", name, direction, hx(data))
        return
    raise AssertionError("badpayload %s parses" % name)


def frame_vec(name, direction, flags, seq, payload):
    parse_payload(direction, payload)  # every frame vector carries a well-formed payload
    f = frame_encode(direction, flags, seq, payload)
    assert receive(direction, f) == [(MARK[direction] | flags, seq, payload)]
    vec("frame", name, direction, "%02x" % (MARK[direction] | flags), seq, hx(payload), hx(f))


def key_vec(name, session):
    vec("sessionkey", name, session, "%04x" % session_key(session))


def keyed_frame_vec(name, direction, session, flags, seq, payload):
    parse_payload(direction, payload)
    f = frame_encode(direction, flags, seq, payload, session)
    assert receive(direction, f) == []  # a plain receiver never takes it
    assert receive(direction, f, [session]) == [(MARK[direction] | flags, seq, payload, session)]
    vec("keyedframe", name, direction, session, "%02x" % (MARK[direction] | flags), seq, hx(payload), hx(f))


def stream_vec(name, direction, stream, expected_payloads):
    got = [p for _, _, p in receive(direction, stream)]
    assert got == expected_payloads, (name, got, expected_payloads)
    for p in got:
        parse_payload(direction, p)
    vec("stream", name, direction, hx(stream), ",".join(hx(p) for p in got) if got else "-")


def build():
    lines.append("# Thrum wire protocol v1 golden vectors. Generated by tools/gen-wire-vectors.py;")
    lines.append("# do not edit by hand. Format: firmware-protocol/PROTOCOL.md §5 (TAB-separated).")

    comment("crc: input hex, CRC-16/MCRF4XX as 4 hex digits")
    crc_vec("check-123456789", b"123456789")
    crc_vec("empty", b"")
    crc_vec("zero-byte", b"\x00")
    crc_vec("ff-byte", b"\xff")
    crc_vec("sync-byte", b"\x7e")
    crc_vec("ping-frame-body", bytes([0x01, 0xA1, 0x00, 0x02]))
    crc_vec("all-bytes", bytes(range(256)))

    comment("uvarint: decimal value, encoding")
    for name, v in [("zero", 0), ("one", 1), ("max-1-byte", 127), ("min-2-bytes", 128),
                    ("max-2-bytes", 16383), ("min-3-bytes", 16384), ("2^21", 1 << 21),
                    ("2^28", 1 << 28), ("1000000", 1_000_000), ("u32-max", U32_MAX)]:
        uv_vec(name, v)

    comment("badvarint: encodings that must fail to decode")
    bad_uv_vec("overlong-zero", bytes.fromhex("8000"))
    bad_uv_vec("overlong-127", bytes.fromhex("ff00"))
    bad_uv_vec("overlong-5-bytes", bytes.fromhex("8080808000"))
    bad_uv_vec("six-bytes", bytes.fromhex("808080808001"))
    bad_uv_vec("2^32", bytes.fromhex("8080808010"))
    bad_uv_vec("above-u32-max", bytes.fromhex("ffffffff1f"))
    bad_uv_vec("truncated-80", bytes.fromhex("80"))
    bad_uv_vec("truncated-4-bytes", bytes.fromhex("ffffffff"))
    bad_uv_vec("empty", b"")

    comment("message h2d: dir, text, encoding")
    msg_vec("identify", "h2d", "IDENTIFY")
    msg_vec("ping", "h2d", "PING")
    msg_vec("stop", "h2d", "STOP")
    msg_vec("segment-typical", "h2d", "SEGMENT", start=1000, duration=5000, **{"from": 0},
            to=200, event=3)
    msg_vec("segment-min", "h2d", "SEGMENT", start=0, duration=1, **{"from": 0}, to=0, event=0)
    msg_vec("segment-max", "h2d", "SEGMENT", start=U32_MAX, duration=1_000_000,
            **{"from": 255}, to=255, event=U32_MAX)
    msg_vec("segment-127-128", "h2d", "SEGMENT", start=0x12345678, duration=128,
            **{"from": 128}, to=127, event=127)
    msg_vec("configure-typical", "h2d", "CONFIGURE_DRIVER", rated_voltage=83, od_clamp=137,
            drive_time=19, ol_lra_period=51)
    msg_vec("configure-zero", "h2d", "CONFIGURE_DRIVER", rated_voltage=0, od_clamp=0,
            drive_time=0, ol_lra_period=0)
    msg_vec("configure-max", "h2d", "CONFIGURE_DRIVER", rated_voltage=255, od_clamp=255,
            drive_time=255, ol_lra_period=255)

    comment("message d2h: dir, text, encoding")
    msg_vec("ack-reset", "d2h", "ACK", next_seq=0, rx_ctrl=0, rx_seq=0, rx_time=0, credits=16)
    msg_vec("ack-typical", "d2h", "ACK", next_seq=8, rx_ctrl=0xA0, rx_seq=7, rx_time=123456789,
            credits=12)
    msg_vec("ack-max", "d2h", "ACK", next_seq=255, rx_ctrl=0xA3, rx_seq=255, rx_time=U32_MAX,
            credits=U32_MAX)
    msg_vec("identify-reply-typical", "d2h", "IDENTIFY_REPLY", protocol_version=0, fw_major=0,
            fw_minor=1, fw_patch=2, device_id=0xC0FFEE01, clock_hz=1_000_000, queue_slots=32,
            rx_buffer=256, max_payload=58, driver_id=7)
    msg_vec("identify-reply-max", "d2h", "IDENTIFY_REPLY", protocol_version=U32_MAX,
            fw_major=U32_MAX, fw_minor=U32_MAX, fw_patch=U32_MAX, device_id=U32_MAX,
            clock_hz=U32_MAX, queue_slots=U32_MAX, rx_buffer=U32_MAX, max_payload=U32_MAX,
            driver_id=U32_MAX)
    msg_vec("onset-on-time", "d2h", "ONSET", event=3, time=1000, status=0)
    msg_vec("onset-trimmed", "d2h", "ONSET", event=300, time=0x80000000, status=1)
    msg_vec("onset-dropped-max", "d2h", "ONSET", event=U32_MAX, time=U32_MAX, status=2)
    msg_vec("fault-watchdog", "d2h", "FAULT", code=5, detail=0)
    msg_vec("fault-bus-error", "d2h", "FAULT", code=2, detail=0x1D)
    msg_vec("fault-flow-control", "d2h", "FAULT", code=6, detail=200)

    seg = msg_encode("SEGMENT", start=1000, duration=5000, **{"from": 0}, to=200, event=3)
    ack = msg_encode("ACK", next_seq=1, rx_ctrl=0xA2, rx_seq=0, rx_time=5000, credits=15)
    comment("badpayload h2d: payloads that must not parse")
    bad_payload_vec("unknown-id-0", "h2d", bytes.fromhex("00"))
    bad_payload_vec("unknown-id-6", "h2d", bytes.fromhex("06"))
    bad_payload_vec("unknown-id-129", "h2d", bytes.fromhex("8101"))
    bad_payload_vec("overlong-id", "h2d", bytes.fromhex("8100"))
    bad_payload_vec("truncated-id", "h2d", bytes.fromhex("0281"))
    bad_payload_vec("d2h-ack-in-h2d", "h2d", ack)
    bad_payload_vec("d2h-onset-id", "h2d", bytes.fromhex("42"))
    bad_payload_vec("segment-truncated-start", "h2d", seg[:3])
    bad_payload_vec("segment-truncated-duration", "h2d", seg[:6])
    bad_payload_vec("segment-missing-event", "h2d", seg[:-1])
    bad_payload_vec("segment-trailing-byte", "h2d", seg + b"\x00")
    bad_payload_vec("ping-trailing-garbage", "h2d", bytes.fromhex("02ff"))
    bad_payload_vec("segment-duration-0", "h2d",
                    bytes.fromhex("04") + (1000).to_bytes(4, "little") + uv_encode(0) + b"\x00\xc8\x03")
    bad_payload_vec("segment-duration-1000001", "h2d",
                    bytes.fromhex("04") + (1000).to_bytes(4, "little") + uv_encode(1_000_001) + b"\x00\xc8\x03")
    bad_payload_vec("segment-duration-overlong", "h2d",
                    bytes.fromhex("04") + (1000).to_bytes(4, "little") + bytes.fromhex("e88700") + b"\x00\xc8\x03")
    bad_payload_vec("segment-event-over-u32", "h2d", seg[:-1] + bytes.fromhex("8080808010"))
    bad_payload_vec("configure-truncated", "h2d", bytes.fromhex("05536489"))
    bad_payload_vec("good-then-unknown", "h2d", bytes.fromhex("0102") + seg + bytes.fromhex("07"))

    comment("badpayload d2h: payloads that must not parse")
    bad_payload_vec("unknown-id-44", "d2h", bytes.fromhex("44"))
    bad_payload_vec("h2d-ping-in-d2h", "d2h", bytes.fromhex("02"))
    bad_payload_vec("h2d-segment-in-d2h", "d2h", ack + seg)
    bad_payload_vec("ack-truncated", "d2h", ack[:-1])
    bad_payload_vec("ack-truncated-rx-time", "d2h", ack[:6])
    bad_payload_vec("ack-trailing-byte", "d2h", ack + b"\x00")
    bad_payload_vec("onset-truncated", "d2h", ack + bytes.fromhex("4203e803"))
    bad_payload_vec("fault-missing-detail", "d2h", ack + bytes.fromhex("4305"))
    bad_payload_vec("identify-reply-truncated", "d2h",
                    msg_encode("IDENTIFY_REPLY", protocol_version=0, fw_major=0, fw_minor=1,
                               fw_patch=2, device_id=1, clock_hz=1_000_000, queue_slots=32,
                               rx_buffer=256, max_payload=58, driver_id=7)[:-1])

    comment("frame: dir, CTRL, SEQ, payload, whole frame")
    frame_vec("empty-payload", "h2d", 0, 0, b"")
    frame_vec("ping-unseq", "h2d", UNSEQ, 0, bytes.fromhex("02"))
    frame_vec("identify-unseq-tag-200", "h2d", UNSEQ, 200, bytes.fromhex("01"))
    frame_vec("stop-unseq", "h2d", UNSEQ, 255, bytes.fromhex("03"))
    frame_vec("segment-resync", "h2d", RESYNC, 0, seg)
    frame_vec("segment-seq-1", "h2d", 0, 1, seg)
    frame_vec("resync-seq-255", "h2d", RESYNC, 255, seg)
    two = seg + msg_encode("SEGMENT", start=6000, duration=5000, **{"from": 200}, to=0, event=0)
    frame_vec("two-segments-seq-2", "h2d", 0, 2, two)
    frame_vec("configure-seq-3", "h2d", 0, 3, msg_encode("CONFIGURE_DRIVER", rated_voltage=83,
                                                         od_clamp=137, drive_time=19,
                                                         ol_lra_period=51))
    frame_vec("max-payload-58-pings", "h2d", UNSEQ, 9, bytes([0x02]) * 58)
    segs = b"".join(msg_encode("SEGMENT", start=0x7E7E7E7E + i, duration=1_000_000,
                               **{"from": 0x7E}, to=0x7E, event=0x7E) for i in range(4))
    assert len(segs) == 44
    frame_vec("max-payload-58-segments-and-pings", "h2d", 0, 0x7E, segs + bytes([0x02]) * 14)
    frame_vec("device-ack-only", "d2h", 0, 0, ack)
    frame_vec("device-ack-reset", "d2h", 0, 0,
              msg_encode("ACK", next_seq=0, rx_ctrl=0, rx_seq=0, rx_time=0, credits=32))
    reply = msg_encode("IDENTIFY_REPLY", protocol_version=0, fw_major=0, fw_minor=1, fw_patch=2,
                       device_id=0xC0FFEE01, clock_hz=1_000_000, queue_slots=32,
                       rx_buffer=256, max_payload=58, driver_id=7)
    ack_id = msg_encode("ACK", next_seq=0, rx_ctrl=0xA1, rx_seq=200, rx_time=77, credits=32)
    frame_vec("device-ack-identify-reply", "d2h", 0, 1, ack_id + reply)
    onsets = ack + msg_encode("ONSET", event=3, time=1003, status=0) + msg_encode(
        "FAULT", code=6, detail=4)
    frame_vec("device-ack-onset-fault", "d2h", 0, 255, onsets)
    big = ack + b"".join(msg_encode("ONSET", event=U32_MAX, time=U32_MAX, status=2)
                         for _ in range(4))
    big += msg_encode("FAULT", code=2, detail=0x1D)
    assert len(big) <= 58
    frame_vec("device-near-max-payload", "d2h", 0, 17, big)

    comment("stream: dir, bytes, payloads of the valid frames found ('-' for none, '.' empty)")
    ping = bytes.fromhex("02")
    f_ping = frame_encode("h2d", UNSEQ, 1, ping)
    f_seg = frame_encode("h2d", RESYNC, 0, seg)
    f_seg2 = frame_encode("h2d", 0, 1, two)
    f_empty = frame_encode("h2d", 0, 5, b"")
    stream_vec("single-frame", "h2d", f_seg, [seg])
    stream_vec("garbage-before-frame", "h2d", bytes.fromhex("00ff1155aa") + f_ping, [ping])
    stream_vec("two-frames-back-to-back", "h2d", f_seg + f_seg2, [seg, two])
    stream_vec("empty-payload-frame", "h2d", f_empty + f_ping, [b"", ping])
    corrupt = bytearray(f_seg)
    corrupt[6] ^= 0x01
    stream_vec("corrupted-then-good", "h2d", bytes(corrupt) + f_ping, [ping])
    bad_crc = bytearray(f_seg2)
    bad_crc[-1] ^= 0x80
    stream_vec("bad-crc-then-good", "h2d", bytes(bad_crc) + f_seg, [seg])
    stream_vec("truncated-then-good", "h2d", f_seg[:7] + f_seg2, [two])
    stream_vec("truncated-short-then-good", "h2d", f_ping[:5] + f_seg, [seg])
    stream_vec("truncated-long-waits", "h2d", f_seg[:3] + f_ping, [])
    # A false 0x7E whose LEN covers the real frame: the receiver waits for LEN+6 bytes, the CRC
    # fails, it drops only the false 0x7E and then finds the real frame inside the window.
    false_start = bytes.fromhex("117e10a000")
    stream_vec("false-sync-in-garbage", "h2d", false_start + f_seg + f_ping, [seg, ping])
    stream_vec("false-sync-len-too-big", "h2d", bytes.fromhex("7e3b") + f_ping, [ping])
    stream_vec("false-sync-bad-marker", "h2d", bytes.fromhex("7e0233") + f_ping, [ping])
    stream_vec("sync-sync-frame", "h2d", bytes.fromhex("7e7e") + f_ping, [ping])
    # Not enough bytes yet to reject the false frame: nothing is delivered (the receiver waits).
    stream_vec("false-sync-waiting", "h2d", bytes.fromhex("7e3aa000") + f_ping, [])
    f_dev = frame_encode("d2h", 0, 0, ack)
    stream_vec("wrong-marker-device-frame-in-h2d", "h2d", f_dev, [])
    stream_vec("echoed-device-frame-then-host", "h2d", f_dev + f_ping, [ping])
    stream_vec("reserved-bit-2", "h2d", raw_frame(1, 0xA4, 0, ping) + f_ping, [ping])
    stream_vec("reserved-bit-3", "h2d", raw_frame(1, 0xA8, 0, ping), [])
    stream_vec("len-59", "h2d", raw_frame(59, 0xA0, 0, bytes([2]) * 59) + f_ping, [ping])
    stream_vec("host-frame-in-d2h", "d2h", f_ping, [])
    stream_vec("device-two-frames", "d2h",
               f_dev + frame_encode("d2h", 0, 1, ack_id + reply), [ack, ack_id + reply])
    stream_vec("device-garbage-then-frame", "d2h", bytes.fromhex("7e7e00d0") + f_dev, [ack])
    stream_vec("device-reserved-flag", "d2h", raw_frame(len(ack), 0xD1, 0, ack) + f_dev, [ack])
    dev_corrupt = bytearray(frame_encode("d2h", 0, 2, onsets))
    dev_corrupt[10] ^= 0x40
    stream_vec("device-corrupted-then-good", "d2h", bytes(dev_corrupt) + f_dev, [ack])
    stream_vec("device-max-frame-in-garbage", "d2h",
               bytes.fromhex("ff7e") + frame_encode("d2h", 0, 3, big) + bytes.fromhex("7e"),
               [big])

    # ---- protocol additions: calibration, standby, preloaded programs, ROM effects ----------
    comment("message h2d (additions): calibration, power, preload, ROM effects")
    msg_vec("calibrate", "h2d", "CALIBRATE")
    msg_vec("wake-typical", "h2d", "WAKE", idle_timeout_ms=5000)
    msg_vec("wake-never", "h2d", "WAKE", idle_timeout_ms=0)
    msg_vec("wake-max", "h2d", "WAKE", idle_timeout_ms=U32_MAX)
    msg_vec("standby", "h2d", "STANDBY")
    msg_vec("preload-begin-0", "h2d", "PRELOAD_BEGIN", slot=0)
    msg_vec("preload-begin-3", "h2d", "PRELOAD_BEGIN", slot=3)
    msg_vec("preload-segment-typical", "h2d", "PRELOAD_SEGMENT", offset=0, duration=12000,
            **{"from": 255}, to=0, event=1)
    msg_vec("preload-segment-max", "h2d", "PRELOAD_SEGMENT", offset=U32_MAX, duration=1_000_000,
            **{"from": 255}, to=255, event=U32_MAX)
    msg_vec("go-typical", "h2d", "GO", slot=1, start=2_000_000, event_base=100)
    msg_vec("go-max", "h2d", "GO", slot=3, start=U32_MAX, event_base=U32_MAX)
    msg_vec("rom-effect-strong-click", "h2d", "ROM_EFFECT", start=1000, effect=1, event=5)
    msg_vec("rom-effect-123", "h2d", "ROM_EFFECT", start=U32_MAX, effect=123, event=U32_MAX)

    comment("message d2h (additions)")
    msg_vec("calibration-pass", "d2h", "CALIBRATION_RESULT", status=0, a_cal_comp=10,
            a_cal_bemf=157, bemf_gain=0, lra_period=50)
    msg_vec("calibration-fail", "d2h", "CALIBRATION_RESULT", status=1, a_cal_comp=0, a_cal_bemf=0,
            bemf_gain=0, lra_period=0)
    msg_vec("state-standby-idle", "d2h", "STATE", state=0, cause=1)
    msg_vec("state-ready-host", "d2h", "STATE", state=1, cause=0)
    msg_vec("state-calibrating-auto", "d2h", "STATE", state=2, cause=2)
    msg_vec("capabilities-host-sim", "d2h", "CAPABILITIES", program_slots=4, program_segments=64,
            calibrated=0)
    msg_vec("capabilities-max", "d2h", "CAPABILITIES", program_slots=U32_MAX,
            program_segments=U32_MAX, calibrated=1)

    comment("badpayload (additions)")
    pseg = msg_encode("PRELOAD_SEGMENT", offset=0, duration=12000, **{"from": 255}, to=0, event=1)
    bad_payload_vec("preload-begin-slot-4", "h2d", bytes.fromhex("0b04"))
    bad_payload_vec("preload-begin-truncated", "h2d", bytes.fromhex("0b"))
    bad_payload_vec("preload-segment-duration-0", "h2d",
                    bytes.fromhex("0c") + (0).to_bytes(4, "little") + uv_encode(0) + b"\xff\x00\x01")
    bad_payload_vec("preload-segment-missing-event", "h2d", pseg[:-1])
    bad_payload_vec("go-slot-4", "h2d", bytes.fromhex("0d04") + (1000).to_bytes(4, "little") + b"\x00")
    bad_payload_vec("go-truncated-start", "h2d", bytes.fromhex("0d01e803"))
    bad_payload_vec("rom-effect-0", "h2d", bytes.fromhex("0e") + (1000).to_bytes(4, "little") + b"\x00\x05")
    bad_payload_vec("rom-effect-124", "h2d", bytes.fromhex("0e") + (1000).to_bytes(4, "little") + b"\x7c\x05")
    bad_payload_vec("wake-overlong", "h2d", bytes.fromhex("098000"))
    bad_payload_vec("calibrate-trailing-byte", "h2d", bytes.fromhex("08ff"))
    bad_payload_vec("calibration-result-truncated", "d2h", ack + bytes.fromhex("4500"))
    bad_payload_vec("state-truncated", "d2h", ack + bytes.fromhex("4601"))
    bad_payload_vec("capabilities-in-h2d", "h2d", bytes.fromhex("47044000"))
    bad_payload_vec("capabilities-without-calibrated", "d2h", ack + bytes.fromhex("470440"))

    comment("frame (additions)")
    go = msg_encode("GO", slot=0, start=2_000_000, event_base=10)
    frame_vec("go-unseq", "h2d", UNSEQ, 42, go)
    frame_vec("wake-standby-unseq", "h2d", UNSEQ, 43,
              msg_encode("WAKE", idle_timeout_ms=3000) + msg_encode("STANDBY"))
    frame_vec("preload-seq-4", "h2d", 0, 4, msg_encode("PRELOAD_BEGIN", slot=2) + pseg + pseg)
    frame_vec("calibrate-rom-seq-5", "h2d", 0, 5,
              msg_encode("CALIBRATE") + msg_encode("ROM_EFFECT", start=5000, effect=47, event=9))
    ident = ack_id + reply + msg_encode("CAPABILITIES", program_slots=4, program_segments=64,
                                        calibrated=0)
    frame_vec("device-identify-capabilities", "d2h", 0, 2, ident)
    frame_vec("device-calibration-state", "d2h", 0, 3,
              ack + msg_encode("CALIBRATION_RESULT", status=0, a_cal_comp=10, a_cal_bemf=157,
                               bemf_gain=0, lra_period=50) + msg_encode("STATE", state=1, cause=2))

    # ---- CUT: replace queued drive from an instant on (§3.1, §4.8) ---------------------------
    comment("message h2d (CUT)")
    msg_vec("cut-typical", "h2d", "CUT", at=2_500_000)
    msg_vec("cut-zero", "h2d", "CUT", at=0)
    msg_vec("cut-max", "h2d", "CUT", at=U32_MAX)
    comment("badpayload (CUT)")
    cut = msg_encode("CUT", at=5000)
    bad_payload_vec("cut-truncated-at", "h2d", cut[:4])
    bad_payload_vec("cut-missing-at", "h2d", cut[:1])
    bad_payload_vec("cut-in-d2h", "d2h", ack + cut)
    comment("frame (CUT)")
    frame_vec("cut-then-segments-seq-6", "h2d", 0, 6,
              cut + msg_encode("SEGMENT", start=5000, duration=3000, **{"from": 80}, to=80, event=2)
              + msg_encode("SEGMENT", start=8000, duration=2000, **{"from": 60}, to=60, event=3))
    frame_vec("stop-cut-seq-7", "h2d", 0, 7, msg_encode("STOP") + msg_encode("CUT", at=U32_MAX))

    # ---- CONFIGURE_SAMPLE_TIME: the profile's SAMPLE_TIME, ahead of CONFIGURE_DRIVER (§3.1) ----
    comment("message h2d (CONFIGURE_SAMPLE_TIME)")
    msg_vec("sample-time-300us", "h2d", "CONFIGURE_SAMPLE_TIME", sample_time=3)
    msg_vec("sample-time-150us", "h2d", "CONFIGURE_SAMPLE_TIME", sample_time=0)
    msg_vec("sample-time-max", "h2d", "CONFIGURE_SAMPLE_TIME", sample_time=255)
    comment("badpayload (CONFIGURE_SAMPLE_TIME)")
    bad_payload_vec("sample-time-truncated", "h2d", bytes.fromhex("10"))
    comment("frame (CONFIGURE_SAMPLE_TIME)")
    frame_vec("sample-time-then-configure-seq-8", "h2d", 0, 8,
              msg_encode("CONFIGURE_SAMPLE_TIME", sample_time=2)
              + msg_encode("CONFIGURE_DRIVER", rated_voltage=83, od_clamp=133, drive_time=24,
                           ol_lra_period=58))

    comment("message h2d (version 1: the preset library)")
    msg_vec("library-begin-typical", "h2d", "LIBRARY_BEGIN", size=2598, crc=0xE312A8A5)
    msg_vec("library-begin-max", "h2d", "LIBRARY_BEGIN", size=U32_MAX, crc=U32_MAX)
    msg_vec("library-write-first", "h2d", "LIBRARY_WRITE", offset=0, data=bytes.fromhex("5448524c014031000000"))
    msg_vec("library-write-empty", "h2d", "LIBRARY_WRITE", offset=U32_MAX, data=b"")
    msg_vec("library-write-full", "h2d", "LIBRARY_WRITE", offset=52, data=bytes(range(52)))
    msg_vec("library-commit", "h2d", "LIBRARY_COMMIT")
    msg_vec("library-query", "h2d", "LIBRARY_QUERY")
    msg_vec("library-read-typical", "h2d", "LIBRARY_READ", offset=64, length=32)
    msg_vec("library-read-one", "h2d", "LIBRARY_READ", offset=U32_MAX, length=1)
    msg_vec("play-preset-typical", "h2d", "PLAY_PRESET", id=12, start=2_000_000, event_base=100)
    msg_vec("play-preset-max", "h2d", "PLAY_PRESET", id=U32_MAX, start=U32_MAX, event_base=U32_MAX)
    comment("message d2h (version 1: the preset library)")
    msg_vec("library-active", "d2h", "LIBRARY", status=0, slot=1, seq=7, size=2598, crc=0xE312A8A5,
            capacity=16320)
    msg_vec("library-empty", "d2h", "LIBRARY", status=1, slot=0, seq=0, size=0, crc=0, capacity=16320)
    msg_vec("library-max", "d2h", "LIBRARY", status=255, slot=255, seq=U32_MAX, size=U32_MAX, crc=U32_MAX,
            capacity=U32_MAX)
    msg_vec("library-data-typical", "d2h", "LIBRARY_DATA", offset=0, data=bytes.fromhex("5448524c01"))
    msg_vec("library-data-past-end", "d2h", "LIBRARY_DATA", offset=4000, data=b"")
    msg_vec("trigger-typical", "d2h", "TRIGGER", input=0, preset=1, time=123456)
    msg_vec("trigger-max", "d2h", "TRIGGER", input=255, preset=U32_MAX, time=U32_MAX)
    comment("badpayload (version 1)")
    write = msg_encode("LIBRARY_WRITE", offset=0, data=bytes.fromhex("0102030405"))
    bad_payload_vec("library-write-short-data", "h2d", write[:-1])
    bad_payload_vec("library-write-no-length", "h2d", write[:5])
    bad_payload_vec("library-write-trailing", "h2d", write + b"\x00")
    bad_payload_vec("library-read-length-0", "h2d", bytes.fromhex("15") + (0).to_bytes(4, "little") + b"\x00")
    bad_payload_vec("library-read-length-33", "h2d", bytes.fromhex("15") + (0).to_bytes(4, "little") + b"\x21")
    bad_payload_vec("library-begin-truncated", "h2d", bytes.fromhex("1100000000"))
    bad_payload_vec("play-preset-truncated", "h2d", bytes.fromhex("160c00"))
    bad_payload_vec("library-data-short", "d2h", ack + bytes.fromhex("490000000003aabb"))
    bad_payload_vec("trigger-truncated", "d2h", ack + bytes.fromhex("4a0001"))
    comment("frame (version 1)")
    frame_vec("library-write-seq-9", "h2d", 0, 9, msg_encode("LIBRARY_WRITE", offset=0, data=bytes(range(52))))
    frame_vec("library-commit-seq-10", "h2d", 0, 10, msg_encode("LIBRARY_COMMIT"))
    frame_vec("play-preset-unseq", "h2d", UNSEQ, 3, msg_encode("PLAY_PRESET", id=1, start=5_000_000, event_base=0))
    frame_vec("library-query-read-unseq", "h2d", UNSEQ, 4,
              msg_encode("LIBRARY_QUERY") + msg_encode("LIBRARY_READ", offset=0, length=32))
    frame_vec("library-reply", "d2h", 0, 11, ack + msg_encode("LIBRARY", status=2, slot=0, seq=1, size=2598,
                                                                    crc=0xE312A8A5, capacity=16320))

    # ---- version 2: the compact stream (§3.4) ----------------------------------------------
    comment("message h2d (version 2: the compact stream)")
    transient = shape_encode([(0, 1430, 0, 255), (0, 4000, 255, 166), (0, 5500, 166, 0)])
    msg_vec("shape-transient", "h2d", "SHAPE", shape=3, data=transient)
    msg_vec("shape-gap-and-from", "h2d", "SHAPE", shape=0,
            data=shape_encode([(0, 2000, 40, 200), (1500, 3000, 90, 0)]))
    msg_vec("shape-max", "h2d", "SHAPE", shape=63, data=shape_encode([(U32_MAX, 1_000_000, 255, 255)]))
    levels = [0] + [10 * (i + 1) for i in range(15)]
    full = shape_encode([(0, 1000 + i, levels[i], levels[i + 1]) for i in range(15)] + [(0, 20, 150, 0)])
    assert len(full) == STREAM_SHAPE_BYTES, len(full)
    msg_vec("shape-48-bytes", "h2d", "SHAPE", shape=17, data=full)
    msg_vec("play-shape-typical", "h2d", "PLAY_SHAPE", after=150_000, shape=3, event=1)
    msg_vec("play-shape-unmarked", "h2d", "PLAY_SHAPE", after=0, shape=0, event=0)
    msg_vec("play-shape-max", "h2d", "PLAY_SHAPE", after=U32_MAX, shape=63, event=U32_MAX)
    msg_vec("follow-typical", "h2d", "FOLLOW", gap=0, event=0,
            data=follow_encode([(2000, 80), (2000, 120), (16000, 60)]))
    msg_vec("follow-marked-after-gap", "h2d", "FOLLOW", gap=500, event=1, data=follow_encode([(8000, 200)]))
    msg_vec("follow-max", "h2d", "FOLLOW", gap=U32_MAX, event=U32_MAX, data=follow_encode([(1_000_000, 255)]))
    msg_vec("follow-17-ramps", "h2d", "FOLLOW", gap=0, event=0,
            data=follow_encode([(1000 + 400 * i, 14 * i) for i in range(17)]))
    msg_vec("follow-marks-next-events", "h2d", "FOLLOW", gap=0, event=3,
            data=follow_encode([(4000, 90), (12000, 90, True), (2000, 140), (9000, 60, True)]))
    msg_vec("next-shape-typical", "h2d", "NEXT_SHAPE", after=150_000, shape=3)
    msg_vec("next-shape-max", "h2d", "NEXT_SHAPE", after=U32_MAX, shape=63)
    comment("badpayload (version 2)")
    bad_payload_vec("shape-id-64", "h2d", msg_encode("SHAPE", shape=0, data=transient)[:1] + b"\x40"
                    + bytes([len(transient)]) + transient)
    bad_payload_vec("shape-no-data", "h2d", bytes.fromhex("170300"))
    bad_payload_vec("shape-count-0", "h2d", bytes.fromhex("1703020000"))
    bad_payload_vec("shape-one-byte", "h2d", bytes.fromhex("17030101"))
    bad_payload_vec("shape-49-bytes", "h2d", bytes.fromhex("170331") + bytes([12]) + bytes.fromhex("a01f04") * 16)
    bad_payload_vec("shape-count-past-ramps", "h2d", bytes.fromhex("17030402") + transient[1:])
    bad_payload_vec("shape-trailing-byte", "h2d", bytes.fromhex("1703") + bytes([len(transient) + 1]) + transient
                    + b"\x00")
    bad_payload_vec("shape-duration-0", "h2d", bytes.fromhex("1703030101ff"))
    bad_payload_vec("shape-duration-over-max", "h2d", bytes.fromhex("17030701") + uv_encode(1_000_001 << 2)
                    + b"\xff")
    bad_payload_vec("shape-truncated-gap", "h2d", bytes.fromhex("17030301a21f"))
    bad_payload_vec("play-shape-id-64", "h2d", bytes.fromhex("18004001"))
    bad_payload_vec("play-shape-truncated", "h2d", bytes.fromhex("180003"))
    bad_payload_vec("follow-no-data", "h2d", bytes.fromhex("19000000"))
    bad_payload_vec("follow-pair-without-to", "h2d", bytes.fromhex("19000003a01f50a01f"))
    bad_payload_vec("follow-duration-0", "h2d", bytes.fromhex("190000020050"))
    bad_payload_vec("follow-duration-0-marked", "h2d", bytes.fromhex("190000020150"))
    bad_payload_vec("follow-truncated-data", "h2d", bytes.fromhex("19000005a01f50"))
    bad_payload_vec("follow-first-marked-twice", "h2d", bytes.fromhex("19000102a11f"))
    bad_payload_vec("next-shape-id-64", "h2d", bytes.fromhex("1a0040"))
    bad_payload_vec("next-shape-truncated", "h2d", bytes.fromhex("1a80"))
    bad_payload_vec("shape-in-d2h", "d2h", ack + msg_encode("SHAPE", shape=3, data=transient))
    comment("frame (version 2)")
    frame_vec("shape-then-plays-seq-12", "h2d", 0, 12,
              msg_encode("SHAPE", shape=3, data=transient)
              + msg_encode("PLAY_SHAPE", after=20_000, shape=3, event=1)
              + msg_encode("NEXT_SHAPE", after=150_000, shape=3)
              + msg_encode("PLAY_SHAPE", after=400_000, shape=3, event=2))
    frame_vec("cut-then-follow-seq-13", "h2d", 0, 13,
              msg_encode("CUT", at=2_500_000)
              + msg_encode("FOLLOW", gap=0, event=1, data=follow_encode([(3000, 120), (3000, 90), (9000, 0)])))
    comment("message h2d (version 2: restoring a kept calibration)")
    msg_vec("restore-calibration-typical", "h2d", "RESTORE_CALIBRATION", a_cal_comp=10, a_cal_bemf=157,
            bemf_gain=2)
    msg_vec("restore-calibration-zero", "h2d", "RESTORE_CALIBRATION", a_cal_comp=0, a_cal_bemf=0, bemf_gain=0)
    msg_vec("restore-calibration-max", "h2d", "RESTORE_CALIBRATION", a_cal_comp=255, a_cal_bemf=255,
            bemf_gain=255)
    comment("message d2h (version 2: CAPABILITIES calibrated 2 = restored)")
    msg_vec("capabilities-restored", "d2h", "CAPABILITIES", program_slots=4, program_segments=64, calibrated=2)
    comment("badpayload (version 2)")
    bad_payload_vec("restore-calibration-truncated", "h2d", bytes.fromhex("1c0a9d"))
    bad_payload_vec("restore-calibration-trailing", "h2d",
                    msg_encode("RESTORE_CALIBRATION", a_cal_comp=10, a_cal_bemf=157, bemf_gain=2) + b"\x00")
    comment("frame (version 2)")
    frame_vec("restore-calibration-after-configure-seq-1", "h2d", RESYNC, 1,
              msg_encode("CONFIGURE_SAMPLE_TIME", sample_time=3)
              + msg_encode("CONFIGURE_DRIVER", rated_voltage=83, od_clamp=133, drive_time=24, ol_lra_period=58)
              + msg_encode("RESTORE_CALIBRATION", a_cal_comp=10, a_cal_bemf=157, bemf_gain=2))
    comment("message h2d (version 3: USB start-of-frame times)")
    msg_vec("frame-times-off", "h2d", "FRAME_TIMES", interval_ms=0)
    msg_vec("frame-times-100ms", "h2d", "FRAME_TIMES", interval_ms=100)
    msg_vec("frame-times-max", "h2d", "FRAME_TIMES", interval_ms=FRAME_TIMES_MAX_INTERVAL_MS)
    comment("message d2h (version 3)")
    msg_vec("frame-time-zero", "d2h", "FRAME_TIME", frame=0, time=0)
    msg_vec("frame-time-typical", "d2h", "FRAME_TIME", frame=1234, time=123456789)
    msg_vec("frame-time-max", "d2h", "FRAME_TIME", frame=USB_FRAME_MAX, time=U32_MAX)
    comment("badpayload (version 3)")
    bad_payload_vec("frame-times-60001", "h2d", bytes([0x1D]) + uv_encode(FRAME_TIMES_MAX_INTERVAL_MS + 1))
    bad_payload_vec("frame-times-u32-max", "h2d", bytes([0x1D]) + uv_encode(U32_MAX))
    bad_payload_vec("frame-times-truncated", "h2d", bytes.fromhex("1d"))
    bad_payload_vec("frame-times-truncated-varint", "h2d", bytes.fromhex("1de0"))
    bad_payload_vec("frame-times-in-d2h", "d2h", ack + msg_encode("FRAME_TIMES", interval_ms=100))
    bad_payload_vec("frame-time-2048", "d2h", ack + bytes([0x4B]) + uv_encode(USB_FRAME_MAX + 1) + bytes(4))
    bad_payload_vec("frame-time-truncated-time", "d2h", ack + bytes.fromhex("4bd20915cd5b"))
    bad_payload_vec("frame-time-truncated", "d2h", ack + bytes.fromhex("4b"))
    bad_payload_vec("frame-time-in-h2d", "h2d", msg_encode("FRAME_TIME", frame=1234, time=123456789))
    comment("frame (version 3)")
    frame_vec("frame-times-ping-unseq", "h2d", UNSEQ, 5,
              msg_encode("FRAME_TIMES", interval_ms=100) + msg_encode("PING"))
    frame_vec("device-ack-frame-time", "d2h", 0, 20,
              ack + msg_encode("FRAME_TIME", frame=1234, time=123456789))
    comment("message d2h (version 4: ACK departures)")
    msg_vec("departure-zero", "d2h", "DEPARTURE", rx_time=0, wait=0)
    msg_vec("departure-wait-127", "d2h", "DEPARTURE", rx_time=5000, wait=127)
    msg_vec("departure-wait-128", "d2h", "DEPARTURE", rx_time=5000, wait=128)
    msg_vec("departure-typical", "d2h", "DEPARTURE", rx_time=123456789, wait=850)
    msg_vec("departure-wait-max", "d2h", "DEPARTURE", rx_time=5000, wait=DEPARTURE_MAX_WAIT)
    msg_vec("departure-rx-time-max", "d2h", "DEPARTURE", rx_time=U32_MAX, wait=1)
    msg_vec("departure-wrapping", "d2h", "DEPARTURE", rx_time=U32_MAX - 99, wait=DEPARTURE_MAX_WAIT)
    comment("badpayload (version 4)")
    bad_payload_vec("departure-wait-1000001", "d2h",
                    ack + bytes([0x4C]) + (5000).to_bytes(4, "little") + uv_encode(DEPARTURE_MAX_WAIT + 1))
    bad_payload_vec("departure-wait-u32-max", "d2h",
                    ack + bytes([0x4C]) + (5000).to_bytes(4, "little") + uv_encode(U32_MAX))
    bad_payload_vec("departure-truncated-wait", "d2h", ack + bytes.fromhex("4c88130000"))
    bad_payload_vec("departure-truncated-varint", "d2h", ack + bytes.fromhex("4c88130000c0"))
    bad_payload_vec("departure-truncated-rx-time", "d2h", ack + bytes.fromhex("4c881300"))
    bad_payload_vec("departure-truncated", "d2h", ack + bytes.fromhex("4c"))
    bad_payload_vec("departure-in-h2d", "h2d", msg_encode("DEPARTURE", rx_time=5000, wait=850))
    comment("frame (version 4)")
    frame_vec("device-ack-departure", "d2h", 0, 21,
              ack + msg_encode("DEPARTURE", rx_time=4200, wait=850))
    frame_vec("device-ack-frame-time-departure", "d2h", 0, 22,
              ack + msg_encode("FRAME_TIME", frame=1234, time=123456789)
              + msg_encode("DEPARTURE", rx_time=4200, wait=850))
    comment("message h2d (version 5: sessions)")
    msg_vec("claim-one", "h2d", "CLAIM", session=1)
    msg_vec("claim-typical", "h2d", "CLAIM", session=0x5EA5100D)
    msg_vec("claim-max", "h2d", "CLAIM", session=U32_MAX)
    msg_vec("release", "h2d", "RELEASE")
    comment("message d2h (version 5)")
    msg_vec("session-claimed", "d2h", "SESSION", session=0x5EA5100D, status=0, at=123456789)
    msg_vec("session-taken", "d2h", "SESSION", session=0x5EA5100D, status=1, at=U32_MAX)
    msg_vec("session-refused", "d2h", "SESSION", session=1, status=2, at=0)
    comment("badpayload (version 5)")
    plain_key_session = next(x for x in range(1, 1 << 20) if session_key(x) == 0xFFFF)
    bad_payload_vec("claim-session-0", "h2d", bytes([0x1E]) + bytes(4))
    bad_payload_vec("claim-session-with-the-plain-key", "h2d", bytes([0x1E]) + plain_key_session.to_bytes(4, "little"))
    bad_payload_vec("claim-truncated", "h2d", bytes.fromhex("1e0d10a5"))
    bad_payload_vec("claim-in-d2h", "d2h", ack + msg_encode("CLAIM", session=1))
    bad_payload_vec("release-trailing", "h2d", msg_encode("RELEASE") + b"\x00")
    bad_payload_vec("session-truncated", "d2h", ack + bytes.fromhex("4d0d10a55e00153b5b"))
    bad_payload_vec("session-in-h2d", "h2d", msg_encode("SESSION", session=1, status=0, at=0))
    comment("sessionkey (version 5): session (decimal), its key (the CRC start of its frames)")
    key_vec("session-1", 1)
    key_vec("session-typical", 0x5EA5100D)
    key_vec("session-max", U32_MAX)
    key_vec("session-with-the-plain-key", plain_key_session)
    comment("frame (version 5): CLAIM travels in a plain frame")
    frame_vec("claim-unseq", "h2d", UNSEQ, 9, msg_encode("CLAIM", session=0x5EA5100D))
    comment("keyedframe (version 5): dir, session, CTRL, SEQ, payload, frame (its CRC from the session's key)")
    keyed_frame_vec("session-segment-resync", "h2d", 0x5EA5100D, RESYNC, 10,
                    msg_encode("SEGMENT", **{"start": 1000, "duration": 5000, "from": 0, "to": 200, "event": 3}))
    keyed_frame_vec("session-release", "h2d", 0x5EA5100D, UNSEQ, 11, msg_encode("RELEASE"))
    keyed_frame_vec("session-ack-claimed", "d2h", 0x5EA5100D, 0, 23,
                    ack + msg_encode("SESSION", session=0x5EA5100D, status=0, at=4200))
    keyed_frame_vec("session-ack-taken", "d2h", 1, 0, 24, ack + msg_encode("SESSION", session=1, status=1, at=4200))
    comment("stream (version 5): a plain receiver takes no session's frame")
    plain = frame_encode("h2d", UNSEQ, 1, msg_encode("PING"))
    keyed = frame_encode("h2d", UNSEQ, 2, msg_encode("PING"), 0x5EA5100D)
    stream_vec("keyed-frame-not-plain", "h2d", keyed, [])
    stream_vec("plain-keyed-plain", "h2d", plain + keyed + plain, [msg_encode("PING"), msg_encode("PING")])
    return "\n".join(lines) + "\n"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "firmware-protocol", "vectors", "wire-vectors.txt")
    text = build()
    if "--check" in sys.argv[1:]:
        with open(path) as f:
            if f.read() != text:
                sys.exit("%s is out of date" % path)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print("wrote %d vectors to %s" % (sum(1 for l in lines if l and not l.startswith("#")), path))


if __name__ == "__main__":
    main()
