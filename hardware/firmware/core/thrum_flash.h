/*
 * thrum_flash.h — constant tables in program memory.
 *
 * On Harvard MCUs (AVR) a `static const` table is copied into RAM at start-up unless it is placed
 * in flash and read with special instructions. A port may define THRUM_FLASH (the placement
 * attribute), THRUM_FLASH_U8, THRUM_FLASH_U32 and THRUM_FLASH_PTR (read one uint8_t, uint32_t or
 * pointer from such a table) itself; otherwise AVR
 * builds use avr-libc's PROGMEM / pgm_read_dword and every other target reads plain memory.
 */
#ifndef THRUM_FLASH_H
#define THRUM_FLASH_H

#include <stdint.h>

#ifndef THRUM_FLASH
#if defined(__AVR__)
#include <avr/pgmspace.h>
#define THRUM_FLASH PROGMEM
#define THRUM_FLASH_U8(p) ((uint8_t)pgm_read_byte(p))
#define THRUM_FLASH_U32(p) ((uint32_t)pgm_read_dword(p))
#define THRUM_FLASH_PTR(p) pgm_read_word(p)
#else
#define THRUM_FLASH
#define THRUM_FLASH_U8(p) (*(p))
#define THRUM_FLASH_U32(p) (*(p))
#define THRUM_FLASH_PTR(p) (*(p))
#endif
#endif

/* Keep a function out of line (the stack-bound tool, tools/fw-budget.py, maps the indirect calls of
 * the command dispatcher by its name). */
#ifndef THRUM_NOINLINE
#if defined(__GNUC__)
#define THRUM_NOINLINE __attribute__((noinline))
#else
#define THRUM_NOINLINE
#endif
#endif

#endif /* THRUM_FLASH_H */
