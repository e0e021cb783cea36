/*
 * fw_symbols: look up a variable of the firmware ELF by name, so the harness can watch firmware
 * state that has no I/O register (the UART receive ring) without a byte of firmware code.
 */
#ifndef FW_SYMBOLS_H
#define FW_SYMBOLS_H

#include <stdint.h>

/* Finds the data object `name` (or an LTO-renamed `name.lto_priv.N` / `name.N`) in the ELF at
 * `path`. On success returns 0 with its data-space address (the ELF's 0x800000 offset removed)
 * and size; -1 when the file has no such object. */
int fw_symbol_find(const char *path, const char *name, uint32_t *addr, uint32_t *size);

#endif
