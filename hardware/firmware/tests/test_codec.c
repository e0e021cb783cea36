/* CRC, varints, frame encoder and the §1.3 stream decoder on good, garbage, corrupt and
 * truncated input. */
#include <string.h>

#include "harness.h"
#include "thrum_codec.h"

static void test_crc_check_value(void)
{
    const uint8_t digits[] = "123456789";

    CHECK_EQ(thrum_crc16(digits, 9), THRUM_CRC_CHECK);
    CHECK_EQ(thrum_crc16(digits, 0), THRUM_CRC_INIT);
    /* byte-wise update equals the whole-buffer function */
    {
        uint16_t crc = THRUM_CRC_INIT;
        size_t i;
        for (i = 0; i < 9; i++) {
            crc = thrum_crc16_update(crc, digits[i]);
        }
        CHECK_EQ(crc, 0x6F91u);
    }
}

static void test_uvarint_round_trip(void)
{
    const uint32_t values[] = {0, 1, 127, 128, 255, 300, 16383, 16384, 2097151, 2097152,
                               268435455, 268435456, 1000000, 0x7FFFFFFFu, 0xFFFFFFFFu};
    const uint8_t sizes[] = {1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 5, 3, 5, 5};
    size_t i;

    for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        uint8_t buf[8];
        uint32_t back = 0xDEADBEEFu;
        uint8_t n = thrum_uvarint_encode(values[i], buf);

        CHECK_EQ(n, sizes[i]);
        CHECK_EQ(thrum_uvarint_size(values[i]), sizes[i]);
        CHECK_EQ(thrum_uvarint_decode(buf, n, &back), n);
        CHECK_EQ(back, values[i]);
        /* every prefix is truncated */
        while (n-- > 0) {
            CHECK_EQ(thrum_uvarint_decode(buf, n, &back), THRUM_UVARINT_TRUNCATED);
        }
    }
}

static void test_uvarint_malformed(void)
{
    const uint8_t overlong0[] = {0x80, 0x00};
    const uint8_t overlong5[] = {0x81, 0x80, 0x80, 0x80, 0x00};
    const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    const uint8_t wide[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x1F};
    const uint8_t two32[] = {0x80, 0x80, 0x80, 0x80, 0x10};
    uint32_t v;

    CHECK_EQ(thrum_uvarint_decode(overlong0, 2, &v), THRUM_UVARINT_MALFORMED);
    CHECK_EQ(thrum_uvarint_decode(overlong5, 5, &v), THRUM_UVARINT_MALFORMED);
    CHECK_EQ(thrum_uvarint_decode(six, 6, &v), THRUM_UVARINT_MALFORMED);
    CHECK_EQ(thrum_uvarint_decode(wide, 5, &v), THRUM_UVARINT_MALFORMED);
    CHECK_EQ(thrum_uvarint_decode(two32, 5, &v), THRUM_UVARINT_MALFORMED);
    CHECK_EQ(thrum_uvarint_decode(overlong0, 0, &v), THRUM_UVARINT_TRUNCATED);
}

static uint8_t make_frame(uint8_t *out, uint8_t ctrl, uint8_t seq, uint8_t len, uint8_t fill)
{
    uint8_t payload[THRUM_MAX_PAYLOAD];

    memset(payload, fill, sizeof(payload));
    return thrum_frame_encode(out, ctrl, seq, payload, len);
}

/* Feed a stream in chunks of `chunk` bytes; collect the SEQ bytes of the frames found. */
static unsigned decode_stream(thrum_frame_decoder_t *dec, const uint8_t *data, size_t len, size_t chunk,
                              uint8_t *seqs, unsigned max)
{
    unsigned count = 0;
    size_t pos = 0;

    while (pos < len) {
        size_t n = len - pos < chunk ? len - pos : chunk;
        const uint8_t *p = data + pos;

        pos += n;
        for (;;) {
            thrum_frame_t frame;
            int found;
            size_t used = thrum_frame_decoder_feed(dec, p, n, &frame, &found);

            p += used;
            n -= used;
            if (!found) {
                CHECK_EQ(n, 0);
                break;
            }
            if (count < max) {
                seqs[count] = frame.seq;
            }
            count++;
        }
    }
    return count;
}

static void test_frame_encode_layout(void)
{
    uint8_t frame[THRUM_MAX_FRAME];
    const uint8_t ping = THRUM_MSG_PING;
    uint8_t n = thrum_frame_encode(frame, 0xA1, 0x00, &ping, 1);
    uint8_t big[THRUM_MAX_PAYLOAD + 1];

    CHECK_EQ(n, 7);
    CHECK_EQ(frame[0], 0x7E);
    CHECK_EQ(frame[1], 1);
    CHECK_EQ(frame[2], 0xA1);
    CHECK_EQ(frame[3], 0);
    CHECK_EQ(frame[4], 0x02);
    CHECK_EQ(frame[5] | (frame[6] << 8), thrum_crc16(frame + 1, 4));
    memset(big, 0, sizeof(big));
    CHECK_EQ(thrum_frame_encode(frame, 0xA0, 0, big, THRUM_MAX_PAYLOAD + 1), 0);
    CHECK_EQ(make_frame(frame, 0xA0, 0, THRUM_MAX_PAYLOAD, 0x7E), THRUM_MAX_FRAME);
}

static void test_decoder_byte_by_byte_and_chunks(void)
{
    uint8_t stream[3 * THRUM_MAX_FRAME];
    size_t len = 0;
    size_t chunk;

    len += make_frame(stream + len, 0xA0, 1, 9, 0x7E);
    len += make_frame(stream + len, 0xA0, 2, THRUM_MAX_PAYLOAD, 0x7E);
    len += make_frame(stream + len, 0xA1, 3, 0, 0);
    for (chunk = 1; chunk <= len; chunk++) {
        thrum_frame_decoder_t dec;
        uint8_t seqs[4];

        thrum_frame_decoder_init(&dec, THRUM_CTRL_MARK_HOST);
        CHECK_EQ(decode_stream(&dec, stream, len, chunk, seqs, 4), 3);
        CHECK_EQ(seqs[0], 1);
        CHECK_EQ(seqs[1], 2);
        CHECK_EQ(seqs[2], 3);
        CHECK_EQ(dec.discarded_bytes, 0);
        CHECK_EQ(dec.bad_crc, 0);
    }
}

static void test_decoder_garbage_and_wrong_direction(void)
{
    uint8_t stream[256];
    size_t len = 0;
    thrum_frame_decoder_t dec;
    uint8_t seqs[4];
    const uint8_t garbage[] = {0x00, 0xFF, 0x7E, 0x3B, 0x7E, 0x02, 0x33, 0x11};

    memcpy(stream, garbage, sizeof(garbage));
    len += sizeof(garbage);
    len += make_frame(stream + len, 0xD0, 9, 4, 1); /* device frame: wrong marker for a device */
    len += make_frame(stream + len, 0xA4, 8, 4, 1); /* reserved bit set */
    len += make_frame(stream + len, 0xA2, 7, 4, 1);
    thrum_frame_decoder_init(&dec, THRUM_CTRL_MARK_HOST);
    CHECK_EQ(decode_stream(&dec, stream, len, 5, seqs, 4), 1);
    CHECK_EQ(seqs[0], 7);
    CHECK_EQ(dec.discarded_bytes, sizeof(garbage) + 10 + 10);
}

static void test_decoder_corrupt_and_truncated(void)
{
    uint8_t stream[256];
    size_t len = 0;
    size_t first;
    thrum_frame_decoder_t dec;
    uint8_t seqs[4];

    /* a frame with one flipped payload bit, then a good one */
    first = make_frame(stream, 0xA0, 1, 20, 0x55);
    stream[10] ^= 0x04;
    len += first;
    /* a frame cut short, then a good one that starts inside its claimed length */
    len += make_frame(stream + len, 0xA0, 2, 30, 0x33) - 25;
    len += make_frame(stream + len, 0xA0, 3, 8, 0x7E);
    thrum_frame_decoder_init(&dec, THRUM_CTRL_MARK_HOST);
    /* the cut frame claims 36 bytes, so the decoder rightly waits until that many have come */
    CHECK_EQ(decode_stream(&dec, stream, len, 64, seqs, 4), 0);
    len += make_frame(stream + len, 0xA0, 5, 20, 0x7E);
    thrum_frame_decoder_init(&dec, THRUM_CTRL_MARK_HOST);
    CHECK_EQ(decode_stream(&dec, stream, len, 64, seqs, 4), 2);
    CHECK_EQ(seqs[0], 3);
    CHECK_EQ(seqs[1], 5);
    CHECK(dec.bad_crc >= 1u);

    /* a truncated frame at the end of the input just waits */
    thrum_frame_decoder_init(&dec, THRUM_CTRL_MARK_HOST);
    len = make_frame(stream, 0xA0, 4, 30, 0x7E);
    CHECK_EQ(decode_stream(&dec, stream, len - 1, 7, seqs, 4), 0);
    CHECK_EQ(decode_stream(&dec, stream + len - 1, 1, 1, seqs, 4), 1);
    CHECK_EQ(seqs[0], 4);
}

/* Random garbage with frames spliced in: every frame is found (a false start costs one byte and
 * the scan resumes) and the decoder never reads or writes out of bounds (ASan watches). */
static void test_decoder_fuzz(void)
{
    static uint8_t stream[20000];
    uint32_t rng = 12345;
    size_t len = 0;
    unsigned planted = 0;
    thrum_frame_decoder_t dec;
    uint8_t seqs[400];
    unsigned found;
    unsigned i;

    while (len < sizeof(stream) - 2 * THRUM_MAX_FRAME) {
        unsigned garbage;
        rng = rng * 1103515245u + 12345u;
        garbage = (rng >> 16) % 40u;
        while (garbage-- > 0u) {
            rng = rng * 1103515245u + 12345u;
            /* plenty of 0x7E and plausible LEN/CTRL bytes */
            stream[len++] = (rng >> 24) % 4u == 0u ? THRUM_SYNC : (uint8_t)(rng >> 16);
        }
        rng = rng * 1103515245u + 12345u;
        len += make_frame(stream + len, 0xA0, (uint8_t)planted, (uint8_t)((rng >> 16) % 59u), (uint8_t)(rng >> 8));
        planted++;
    }
    thrum_frame_decoder_init(&dec, THRUM_CTRL_MARK_HOST);
    found = decode_stream(&dec, stream, len, 13, seqs, 400);
    /* a false frame passing the CRC by chance could in principle swallow a real one; with this
     * seed none does, which also pins the behaviour */
    CHECK(found >= planted);
    for (i = 0; i < planted && i < 400u; i++) {
        if (found == planted) {
            CHECK_EQ(seqs[i], (uint8_t)i);
        }
    }
}

static void test_message_codec(void)
{
    thrum_msg_t m;
    thrum_msg_t back;
    uint8_t buf[64];
    uint8_t n;

    m.id = THRUM_MSG_SEGMENT;
    m.field_count = 5;
    m.field[0] = 1000;
    m.field[1] = 5000;
    m.field[2] = 0;
    m.field[3] = 200;
    m.field[4] = 3;
    n = thrum_msg_encode(THRUM_DIR_H2D, &m, buf, sizeof(buf));
    CHECK_EQ(n, 10);
    CHECK_EQ(thrum_msg_decode(THRUM_DIR_H2D, buf, n, &back), n);
    CHECK_EQ(back.field[1], 5000);
    CHECK_EQ(thrum_msg_encode(THRUM_DIR_H2D, &m, buf, 9), 0); /* no room */
    m.field[1] = 0;
    CHECK_EQ(thrum_msg_encode(THRUM_DIR_H2D, &m, buf, sizeof(buf)), 0); /* duration 0 */
    m.field[1] = 1;
    m.field[2] = 256;
    CHECK_EQ(thrum_msg_encode(THRUM_DIR_H2D, &m, buf, sizeof(buf)), 0); /* u8 overflow */
    CHECK_EQ(thrum_msg_field_count(THRUM_DIR_D2H, THRUM_MSG_SEGMENT), -1);
    CHECK_EQ(thrum_msg_field_count(THRUM_DIR_D2H, THRUM_MSG_IDENTIFY_REPLY), 10);
    CHECK(thrum_msg_is_any_lane(THRUM_MSG_STOP));
    CHECK(!thrum_msg_is_any_lane(THRUM_MSG_SEGMENT));
    CHECK(!thrum_msg_is_any_lane(THRUM_MSG_CONFIGURE_DRIVER));
    CHECK(!thrum_msg_is_any_lane(THRUM_MSG_CUT)); /* sequenced: it must never overtake drive it replaces */
    CHECK(thrum_payload_valid(THRUM_DIR_H2D, buf, 0));
}

static void test_time_compare_wraps(void)
{
    CHECK(thrum_time_before(0xFFFFFFF0u, 0x10u));
    CHECK(!thrum_time_before(0x10u, 0xFFFFFFF0u));
    CHECK(thrum_time_before(5, 6));
    CHECK(!thrum_time_before(6, 6));
    CHECK(thrum_time_before(0x80000005u, 5u)); /* 2^31 apart: (int32_t)(a - b) < 0 per §3 */
}

const test_case_t codec_tests[] = {
    {"crc: check value and byte-wise update", test_crc_check_value},
    {"uvarint: round trip, sizes, truncation", test_uvarint_round_trip},
    {"uvarint: malformed encodings", test_uvarint_malformed},
    {"frame: encoder layout and limits", test_frame_encode_layout},
    {"decoder: frames split at every chunk size", test_decoder_byte_by_byte_and_chunks},
    {"decoder: garbage, wrong marker, reserved bits", test_decoder_garbage_and_wrong_direction},
    {"decoder: corrupt and truncated frames", test_decoder_corrupt_and_truncated},
    {"decoder: fuzzed garbage with planted frames", test_decoder_fuzz},
    {"messages: encode, decode, ranges, lanes", test_message_codec},
    {"time: wrap-safe compare", test_time_compare_wraps},
    {NULL, NULL},
};
