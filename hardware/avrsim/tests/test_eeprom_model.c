/* Tests of the harness's 24LC256 model against the datasheet behaviour it claims (eeprom_model.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eeprom_model.h"
#include "tests/check.h"


/* One bus transaction as the firmware's driver does it: SLA+W, address, data, STOP. 0 when the
 * part NACKed its address. */
static int page_write(eeprom_model_t *m, uint16_t addr, const uint8_t *data, unsigned n, uint64_t now)
{
    unsigned i;

    if (!eeprom_model_select(m, 0, now)) {
        return 0;
    }
    eeprom_model_write(m, (uint8_t)(addr >> 8));
    eeprom_model_write(m, (uint8_t)addr);
    for (i = 0; i < n; i++) {
        eeprom_model_write(m, data[i]);
    }
    eeprom_model_stop(m, now);
    return 1;
}

/* Random read: SLA+W, address, repeated START, SLA+R, n bytes, STOP. */
static int random_read(eeprom_model_t *m, uint16_t addr, uint8_t *out, unsigned n, uint64_t now)
{
    unsigned i;

    if (!eeprom_model_select(m, 0, now)) {
        return 0;
    }
    eeprom_model_write(m, (uint8_t)(addr >> 8));
    eeprom_model_write(m, (uint8_t)addr);
    if (!eeprom_model_select(m, 1, now)) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        out[i] = eeprom_model_read(m);
    }
    eeprom_model_stop(m, now);
    return 1;
}

static void blank_part_reads_ff(void)
{
    eeprom_model_t m;
    uint8_t buf[4];
    char error[200];

    CHECK(eeprom_model_open(&m, NULL, error, sizeof(error)) == 0);
    CHECK(random_read(&m, 0x1234, buf, 4, 0));
    CHECK(buf[0] == 0xFF && buf[3] == 0xFF);
    CHECK(m.page_writes == 0); /* a read (address write, no data) starts no write cycle */
}

static void page_write_then_read_back_and_busy_nack(void)
{
    eeprom_model_t m;
    uint8_t data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    uint8_t buf[10];
    char error[200];

    eeprom_model_open(&m, NULL, error, sizeof(error));
    CHECK(page_write(&m, 0x0100, data, 10, 1000));
    CHECK(m.page_writes == 1);
    /* the write cycle: the address is NACKed for 5 ms */
    CHECK(!eeprom_model_select(&m, 0, 1000));
    CHECK(!eeprom_model_select(&m, 0, 1000 + EEPROM_MODEL_WRITE_CYCLE_US - 1));
    CHECK(m.busy_nacks == 2);
    CHECK(random_read(&m, 0x0100, buf, 10, 1000 + EEPROM_MODEL_WRITE_CYCLE_US));
    CHECK(memcmp(buf, data, 10) == 0);
    /* only the bytes written change */
    CHECK(random_read(&m, 0x00FF, buf, 1, 7000) && buf[0] == 0xFF);
    CHECK(random_read(&m, 0x010A, buf, 1, 7000) && buf[0] == 0xFF);
}

static void page_write_wraps_inside_its_page(void)
{
    eeprom_model_t m;
    uint8_t data[4] = {0xA1, 0xA2, 0xA3, 0xA4};
    uint8_t buf[4];
    char error[200];

    eeprom_model_open(&m, NULL, error, sizeof(error));
    /* 4 bytes from the page's last two: the 3rd and 4th go to the page's start, not the next page */
    CHECK(page_write(&m, 0x007E, data, 4, 0));
    CHECK(random_read(&m, 0x007E, buf, 2, 10000) && buf[0] == 0xA1 && buf[1] == 0xA2);
    CHECK(random_read(&m, 0x0040, buf, 2, 10000) && buf[0] == 0xA3 && buf[1] == 0xA4);
    CHECK(random_read(&m, 0x0080, buf, 1, 10000) && buf[0] == 0xFF);
}

static void sequential_read_crosses_pages_and_wraps_at_the_end(void)
{
    eeprom_model_t m;
    uint8_t a[1] = {0x11};
    uint8_t b[1] = {0x22};
    uint8_t buf[3];
    char error[200];

    eeprom_model_open(&m, NULL, error, sizeof(error));
    CHECK(page_write(&m, 0x003F, a, 1, 0));
    CHECK(page_write(&m, 0x0040, b, 1, 10000));
    CHECK(random_read(&m, 0x003F, buf, 2, 20000) && buf[0] == 0x11 && buf[1] == 0x22);
    CHECK(random_read(&m, 0x7FFF, buf, 2, 20000) && buf[0] == 0xFF && buf[1] == 0x00 + 0xFF);
    /* the address's bit 15 is ignored: 0x803F is 0x003F */
    CHECK(random_read(&m, 0x803F, buf, 1, 20000) && buf[0] == 0x11);
}

static void contents_survive_a_restart_in_the_file(void)
{
    /* in $TMPDIR when set, else the working directory (make runs it in the harness folder) */
    const char *dir = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : ".";
    char path[512];
    int fd;
    eeprom_model_t m;
    uint8_t data[3] = {7, 8, 9};
    uint8_t buf[3];
    char error[200];
    FILE *f;

    snprintf(path, sizeof(path), "%s/thrum-eeprom-test-XXXXXX", dir);
    fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    unlink(path); /* a missing file: a blank part, created */
    CHECK(eeprom_model_open(&m, path, error, sizeof(error)) == 0);
    CHECK(page_write(&m, 0x4000, data, 3, 0));
    eeprom_model_close(&m);
    CHECK(eeprom_model_open(&m, path, error, sizeof(error)) == 0);
    CHECK(random_read(&m, 0x4000, buf, 3, 0) && memcmp(buf, data, 3) == 0);
    CHECK(random_read(&m, 0x0000, buf, 1, 0) && buf[0] == 0xFF);
    eeprom_model_close(&m);
    /* a file of another size is refused, with a message that says why */
    f = fopen(path, "ab");
    CHECK(f != NULL && fputc(0, f) == 0 && fclose(f) == 0);
    CHECK(eeprom_model_open(&m, path, error, sizeof(error)) == -1);
    CHECK(strstr(error, "not a 24LC256 image") != NULL);
    unlink(path);
}

int main(void)
{
    blank_part_reads_ff();
    page_write_then_read_back_and_busy_nack();
    page_write_wraps_inside_its_page();
    sequential_read_crosses_pages_and_wraps_at_the_end();
    contents_survive_a_restart_in_the_file();
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
