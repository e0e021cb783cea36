/*
 * Bootloader mode (`--bootloader HEX`): the ATmega328P as an Arduino board has it. The
 * bootloader image Debian ships (optiboot, ATmegaBOOT) sits in the boot section, the reset
 * vector points at the boot section's start (BOOTRST programmed, BOOTSZ from the board's high
 * fuse), and the application flash is kept in a file (`--flash FILE`: the whole 32 KiB as the
 * chip holds it, created erased (0xFF) when missing, written back when the bootloader changed a
 * page). Both bootloaders enter only after an external reset (MCUSR.EXTRF): a power-on or
 * watchdog reset starts the application at once.
 *
 * DTR auto-reset: on a board, opening the serial port drops DTR, and a capacitor turns that edge
 * into a pulse on RESET. A pseudo-terminal has no DTR, so the harness watches the pty master:
 * its POLLHUP clears when a client opens the slave, and at that moment the MCU gets an external
 * reset (EXTRF set), exactly when a board's DTR edge would have come. Bytes still buffered in
 * either direction are dropped, as a USB bridge resetting its board would.
 */
#ifndef AVRSIM_BOOT_FLASH_H
#define AVRSIM_BOOT_FLASH_H

#include <stdint.h>

struct avr_t;

#define BOOT_FLASH_SIZE 32768u
#define BOOT_FLASH_PAGE 128u

typedef struct {
    struct avr_t *avr;
    const char *path;             /* --flash FILE, or NULL: the flash is not kept */
    int fd;
    uint32_t reset_vector;        /* byte address the reset vector points at (BOOTRST) */
    uint32_t boot_start, boot_end;/* where the bootloader image lies (byte addresses, end exclusive) */
    uint8_t shadow[BOOT_FLASH_SIZE]; /* the file's contents as last written */
    uint32_t pages_written;       /* flash pages written back to the file */
    uint32_t resets;              /* external resets from a client opening the pty */
    int file_error;
    int client_open;              /* the pty slave was open at the last check */
    uint8_t wdt_prescaler;        /* WDTCSR's prescaler bits as last written */
    uint32_t watchdog_fixes;      /* prescaler changes simavr 1.6 would have applied late */
    int wild;                     /* the application crashed the simulated CPU: held until an external reset */
    uint32_t crashes;             /* such crashes so far */
} boot_flash_t;

/** Loads the application flash from `path` (created erased when missing; NULL: erased, not kept)
 *  and the bootloader hex at its own address, and points the reset vector at `reset_vector`.
 *  Returns 0, or -1 with a message in `error`. */
int boot_flash_open(boot_flash_t *b, struct avr_t *avr, const char *hex_path, const char *path, uint32_t reset_vector,
                    char *error, unsigned error_size);

/** Writes the pages that differ from the file back to it (call every few ms and at exit). */
void boot_flash_sync(boot_flash_t *b);

/** An external reset: the MCU restarts at the reset vector with EXTRF set in MCUSR. */
void boot_flash_external_reset(boot_flash_t *b);

/** An erased chip: the bootloader, finding no external reset, starts the application, whose
 *  erased words (0xFFFF) run through into the bootloader again; each lap leaks a return address,
 *  and simavr faults once they run the stack out of RAM. A real chip answers nothing in that loop
 *  either: the harness holds the CPU instead (returns 1 while the PC is in the application section,
 *  below the reset vector, and that section is erased) until the next external reset. */
int boot_flash_halted(const boot_flash_t *b);

/** The application crashed the simulated CPU (simavr's cpu_Crashed: a write outside RAM, an
 *  invalid opcode), as a half-written image does after an interrupted upload. A chip would run
 *  wild there, and its bootloader would still answer the next external reset: the harness holds
 *  the CPU (``boot_flash_halted`` returns 1) until then, instead of ending the simulation. */
void boot_flash_crashed(boot_flash_t *b);

/** Watches the pty master for a client opening the slave; returns 1 when one just did (the
 *  caller then resets the MCU and drops buffered bytes). */
int boot_flash_client_opened(boot_flash_t *b, int pty_master);

/** A worn cell (`--worn-flash ADDR`): the byte at `address` keeps nothing written and reads
 *  erased. Called before every instruction, so a page write there is undone before any LPM can
 *  read it back; the file then holds 0xFF there too. */
void boot_flash_wear(boot_flash_t *b, uint32_t address);

void boot_flash_close(boot_flash_t *b);

#endif
