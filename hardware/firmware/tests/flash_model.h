/*
 * A NOR flash with the STM32F1's rules, behind the core's storage HAL, for the library tests:
 * erase sets a whole page to 0xFF; programming writes half-words at even addresses and can only
 * clear bits; a half-word is programmed once between erases (programming one that does not read
 * 0xFFFF fails, as the F1's PGERR, and changes nothing). Power can be cut at any operation (a
 * half-word program or a page erase): that operation is either not done or left torn (a random
 * subset of its bits changed), and every later operation fails.
 */
#ifndef THRUM_FLASH_MODEL_H
#define THRUM_FLASH_MODEL_H

#include <stdint.h>

#include "fake_hal.h"

#define FLASH_MODEL_MAX (64u * 1024u)

typedef struct flash_model {
    uint8_t mem[FLASH_MODEL_MAX];
    uint32_t size;
    uint16_t page;
    long cut_at;            /* operation (counted from 0) at which the power goes; -1: never */
    int torn;               /* 1: that operation is left half done; 0: it does not happen */
    int power_lost;
    unsigned long ops;      /* half-word programs and page erases started */
    unsigned long programs; /* half-words programmed */
    unsigned long erases;   /* pages erased */
    unsigned long refused;  /* programs of a half-word that was not erased */
    uint32_t rng;           /* what a torn operation leaves */
    int eeprom;             /* 1: an EEPROM instead (bytes written in place within a page, no
                               erase: the HAL's storage_erase is NULL) */
} flash_model_t;

/* A board: the fake DRV2605L and serial (fake_hal.h) and the flash as its library storage. The
 * fake comes first: the HAL's ctx (the fake) is the rig. */
typedef struct flash_rig {
    fake_t fake;
    flash_model_t flash;
} flash_rig_t;

/* Every byte 0xFF, no cut planned. */
void flash_model_init(flash_model_t *m, uint32_t size, uint16_t page);
/* The same storage as an EEPROM (24LC256 class): writes in place, no erase. */
void eeprom_model_init(flash_model_t *m, uint32_t size, uint16_t page);

/* Power back: the planned cut is forgotten, operations work again (the counters stay). */
void flash_model_power_on(flash_model_t *m);

/* Boot the firmware on the rig at time `t0` (the fake re-initialised, the flash kept as it is),
 * with the flash as its library storage. */
void flash_rig_boot(flash_rig_t *r, thrum_fw_t *fw, uint32_t t0);

/* The HAL's storage functions (ctx = the rig). */
int flash_model_read(void *ctx, uint32_t addr, uint8_t *out, uint16_t len);
int flash_model_write(void *ctx, uint32_t addr, const uint8_t *data, uint16_t len);
int flash_model_erase(void *ctx, uint32_t addr);

#endif
