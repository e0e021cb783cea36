/* See boot_flash.h. */
#define _XOPEN_SOURCE 600
#define _DEFAULT_SOURCE
#include "boot_flash.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sim_avr.h>
#include <sim_io.h>
#include <sim_regbit.h>
#include <avr_watchdog.h>

#define REG_MCUSR 0x54u
#define REG_WDTCSR 0x60u
#define WDTCSR_WDE 0x08u
#define WDTCSR_WDCE 0x10u
#define WDTCSR_PRESCALER 0x27u
#define MCUSR_EXTRF 0x02u

static int fail(char *error, unsigned size, const char *fmt, const char *a, const char *b)
{
    snprintf(error, size, fmt, a, b);
    return -1;
}

static int load_file(boot_flash_t *b, char *error, unsigned error_size)
{
    struct stat st;
    ssize_t n;

    b->fd = open(b->path, O_RDWR | O_CREAT, 0644);
    if (b->fd < 0) {
        return fail(error, error_size, "cannot open '%s': %s", b->path, strerror(errno));
    }
    if (fstat(b->fd, &st) != 0) {
        return fail(error, error_size, "cannot read '%s': %s", b->path, strerror(errno));
    }
    if (st.st_size == 0) {
        /* A new board: the application flash erased. */
        memset(b->shadow, 0xFF, sizeof(b->shadow));
        if (pwrite(b->fd, b->shadow, sizeof(b->shadow), 0) != (ssize_t)sizeof(b->shadow)) {
            return fail(error, error_size, "cannot write '%s': %s", b->path, strerror(errno));
        }
    } else if (st.st_size != (off_t)BOOT_FLASH_SIZE) {
        return fail(error, error_size, "'%s' is not a simulated ATmega328P flash (32768 bytes)%s", b->path,
                    "; give a new file name, or the file a previous --flash wrote");
    } else {
        n = pread(b->fd, b->shadow, sizeof(b->shadow), 0);
        if (n != (ssize_t)sizeof(b->shadow)) {
            return fail(error, error_size, "cannot read '%s': %s", b->path, strerror(errno));
        }
    }
    return 0;
}

static int hex_nibble(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* An Intel HEX file into `flash` (data records 00, segment/linear bases 02/04; start addresses 03
 * and 05 ignored, as a programmer does). Notes the lowest and highest byte written. Returns 0, or
 * -1 with a message naming the line. */
static int load_hex(const char *path, uint8_t *flash, uint32_t *low, uint32_t *high, char *error, unsigned size)
{
    FILE *f = fopen(path, "r");
    char line[600];
    unsigned number = 0;
    uint32_t base = 0;
    int done = 0;
    uint8_t written[BOOT_FLASH_SIZE / 8u];

    memset(written, 0, sizeof(written));

    if (f == NULL) {
        snprintf(error, size, "cannot read the bootloader '%s': %s", path, strerror(errno));
        return -1;
    }
    *low = BOOT_FLASH_SIZE;
    *high = 0;
    while (!done && fgets(line, sizeof(line), f) != NULL) {
        uint8_t rec[300];
        unsigned n = 0, i, sum = 0, len;
        char *p = line;

        number++;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\r' || *p == '\n' || *p == '\0') continue;
        if (*p++ != ':') goto bad;
        while (hex_nibble(p[0]) >= 0 && hex_nibble(p[1]) >= 0 && n < sizeof(rec)) {
            rec[n++] = (uint8_t)(hex_nibble(p[0]) * 16 + hex_nibble(p[1]));
            p += 2;
        }
        if (n < 5 || (len = rec[0]) + 5u != n) goto bad;
        for (i = 0; i < n; i++) sum += rec[i];
        if ((sum & 0xFFu) != 0u) goto bad;
        switch (rec[3]) {
        case 0x00: {
            uint32_t at = base + ((uint32_t)rec[1] << 8 | rec[2]);
            if (at + len > BOOT_FLASH_SIZE) {
                snprintf(error, size, "%s:%u: data at 0x%X lies past the 32 KiB flash", path, number, at);
                fclose(f);
                return -1;
            }
            for (i = 0; i < len; i++) {
                if (written[(at + i) / 8u] & (1u << ((at + i) % 8u))) {
                    snprintf(error, size, "%s:%u: data at 0x%X overlaps an earlier record (an image that does not fit its section)",
                             path, number, at + i);
                    fclose(f);
                    return -1;
                }
                written[(at + i) / 8u] |= (uint8_t)(1u << ((at + i) % 8u));
            }
            memcpy(flash + at, rec + 4, len);
            if (len > 0 && at < *low) *low = at;
            if (at + len > *high) *high = at + len;
            break;
        }
        case 0x01: done = 1; break;
        case 0x02: if (len != 2) goto bad; base = ((uint32_t)rec[4] << 8 | rec[5]) << 4; break;
        case 0x04: if (len != 2) goto bad; base = ((uint32_t)rec[4] << 8 | rec[5]) << 16; break;
        case 0x03: case 0x05: break;
        default: goto bad;
        }
    }
    fclose(f);
    if (*high == 0) {
        snprintf(error, size, "the bootloader '%s' holds no data records", path);
        return -1;
    }
    return 0;
bad:
    snprintf(error, size, "%s:%u: not an Intel HEX record (':' then LL AAAA TT data CC, checksum 0)", path, number);
    fclose(f);
    return -1;
}

/* simavr 1.6 keeps counting the old watchdog timeout when the prescaler changes (the new one
 * takes effect at the next WDR): optiboot's "leave now" (WATCHDOG_16MS, then a loop without WDR)
 * would wait out the 1 s timeout set at its start. On a chip the new timeout counts from the last
 * WDR, which the bootloader ran a few cycles earlier (getch); restarting the count at the change
 * is the same to within those cycles. Runs after simavr's own WDTCSR handler. */
static void on_wdtcsr(struct avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    boot_flash_t *b = param;

    (void)addr;
    if ((v & WDTCSR_WDCE) != 0u) {
        return; /* the timed sequence's first write: the new setting comes with the next */
    }
    if ((v & WDTCSR_WDE) != 0u && (v & WDTCSR_PRESCALER) != b->wdt_prescaler) {
        avr_ioctl(avr, AVR_IOCTL_WATCHDOG_RESET, NULL);
        b->watchdog_fixes++;
    }
    b->wdt_prescaler = (uint8_t)(v & WDTCSR_PRESCALER);
}

int boot_flash_open(boot_flash_t *b, struct avr_t *avr, const char *hex_path, const char *path, uint32_t reset_vector,
                    char *error, unsigned error_size)
{
    memset(b, 0, sizeof(*b));
    b->avr = avr;
    b->path = path;
    b->fd = -1;
    b->reset_vector = reset_vector;
    if (reset_vector >= BOOT_FLASH_SIZE || (reset_vector & 1u) != 0u) {
        snprintf(error, error_size, "reset vector 0x%X is not a word address inside the 32 KiB flash", reset_vector);
        return -1;
    }
    if (path != NULL) {
        if (load_file(b, error, error_size) != 0) {
            return -1;
        }
    } else {
        memset(b->shadow, 0xFF, sizeof(b->shadow));
    }
    memcpy(avr->flash, b->shadow, BOOT_FLASH_SIZE);
    if (load_hex(hex_path, avr->flash, &b->boot_start, &b->boot_end, error, error_size) != 0) {
        return -1;
    }
    if (b->boot_start < reset_vector) {
        snprintf(error, error_size, "the bootloader starts at 0x%X, below the boot section at 0x%X", b->boot_start,
                 reset_vector);
        return -1;
    }
    avr_register_io_write(avr, REG_WDTCSR, on_wdtcsr, b);
    avr->codeend = avr->flashend;
    avr->reset_pc = reset_vector;
    avr->pc = reset_vector;
    /* Power-on: the bootloaders see no EXTRF and start the application (or, on an erased chip,
     * run through the erased words into the bootloader again). */
    avr->data[REG_MCUSR] = 0x01u; /* PORF */
    boot_flash_sync(b);
    return 0;
}

void boot_flash_sync(boot_flash_t *b)
{
    uint32_t page;

    if (b->fd < 0 || memcmp(b->shadow, b->avr->flash, BOOT_FLASH_SIZE) == 0) {
        return;
    }
    for (page = 0; page < BOOT_FLASH_SIZE; page += BOOT_FLASH_PAGE) {
        if (memcmp(b->shadow + page, b->avr->flash + page, BOOT_FLASH_PAGE) == 0) {
            continue;
        }
        if (pwrite(b->fd, b->avr->flash + page, BOOT_FLASH_PAGE, page) != (ssize_t)BOOT_FLASH_PAGE) {
            b->file_error = 1;
            continue;
        }
        memcpy(b->shadow + page, b->avr->flash + page, BOOT_FLASH_PAGE);
        if (page < b->boot_start) {
            b->pages_written++;
        }
    }
}

void boot_flash_external_reset(boot_flash_t *b)
{
    avr_reset(b->avr);
    b->avr->state = cpu_Running;
    b->wild = 0;
    b->avr->pc = b->reset_vector;
    b->avr->data[REG_MCUSR] = MCUSR_EXTRF;
    b->resets++;
}

int boot_flash_halted(const boot_flash_t *b)
{
    const uint8_t *flash = b->avr->flash;

    return b->wild || (b->avr->pc < b->reset_vector && flash[0] == 0xFFu && flash[1] == 0xFFu);
}

void boot_flash_crashed(boot_flash_t *b)
{
    b->wild = 1;
    b->crashes++;
    b->avr->state = cpu_Running;
}

int boot_flash_client_opened(boot_flash_t *b, int pty_master)
{
    struct pollfd p = {pty_master, POLLIN, 0};
    int open_now;

    if (poll(&p, 1, 0) < 0) {
        return 0;
    }
    open_now = (p.revents & POLLHUP) == 0;
    if (open_now && !b->client_open) {
        b->client_open = 1;
        return 1;
    }
    b->client_open = open_now;
    return 0;
}

void boot_flash_wear(boot_flash_t *b, uint32_t address)
{
    b->avr->flash[address] = 0xFFu;
}

void boot_flash_close(boot_flash_t *b)
{
    boot_flash_sync(b);
    if (b->fd >= 0) {
        close(b->fd);
        b->fd = -1;
    }
}
