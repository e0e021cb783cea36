/*
 * A 24LC256 I²C EEPROM (32 KiB, 64-byte pages) as the firmware sees it on the bus: pure C99, no
 * simavr (twi_bus.c routes address 0x50 to it; tests/test_eeprom_model.c drives it directly).
 *
 *   - Address: two bytes (high first; bit 15 ignored) after SLA+W set the address pointer.
 *   - Page write: the data bytes after the address are latched at the pointer, which wraps inside
 *     its 64-byte page (a 65th byte overwrites the first); at STOP the latched bytes are written
 *     and a write cycle (5 ms) begins. During it the part NACKs its address (ACK polling).
 *   - Read: from the pointer, any length, wrapping at the end of the memory (sequential read);
 *     a random read is an address write, a repeated START and SLA+R.
 *   - Contents: optionally kept in a file (32 768 bytes; a missing file is a blank part, 0xFF):
 *     each write cycle's page is written through, so a restart keeps them.
 */
#ifndef AVRSIM_EEPROM_MODEL_H
#define AVRSIM_EEPROM_MODEL_H

#include <stdint.h>
#include <stdio.h>

#define EEPROM_MODEL_ADDR 0x50u
#define EEPROM_MODEL_SIZE 32768u
#define EEPROM_MODEL_PAGE 64u
#define EEPROM_MODEL_WRITE_CYCLE_US 5000u

typedef struct {
    uint8_t mem[EEPROM_MODEL_SIZE];
    FILE *file;              /* NULL: contents are not kept */
    uint16_t pointer;        /* address pointer */
    int writing;             /* selected with SLA+W */
    unsigned index;          /* bytes received since SLA+W */
    uint8_t latch[EEPROM_MODEL_PAGE];
    uint8_t latched[EEPROM_MODEL_PAGE]; /* 1: latch[i] was loaded */
    int has_data;
    uint64_t busy_until_us;  /* end of the write cycle in progress */
    /* counters */
    uint32_t page_writes;
    uint32_t busy_nacks;
    uint64_t bytes_read;
    uint64_t bytes_written;
    int file_error;          /* a write-through failed */
} eeprom_model_t;

/** A blank part, or the contents of `path` (created when missing). 0, or -1 with errno / a
 *  message in `error` (a file of the wrong size). */
int eeprom_model_open(eeprom_model_t *m, const char *path, char *error, size_t error_len);
void eeprom_model_close(eeprom_model_t *m);

/** START (or repeated START) with this part's address; `read` = the R/W bit. 1 = ACK, 0 = NACK
 *  (a write cycle in progress at `now_us`). */
int eeprom_model_select(eeprom_model_t *m, int read, uint64_t now_us);
/** A byte from the master after SLA+W (address bytes, then data into the page latch). */
void eeprom_model_write(eeprom_model_t *m, uint8_t byte);
/** The next byte of a sequential read. */
uint8_t eeprom_model_read(eeprom_model_t *m);
/** STOP: a page write when data was latched (its write cycle begins at `now_us`). */
void eeprom_model_stop(eeprom_model_t *m, uint64_t now_us);

#endif
