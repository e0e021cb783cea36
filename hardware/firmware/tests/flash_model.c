#include "flash_model.h"

#include <string.h>

#include "thrum_host_sim.h"

#define ERR_IO 5
#define ERR_INVAL 22

void flash_model_init(flash_model_t *m, uint32_t size, uint16_t page)
{
    memset(m, 0, sizeof(*m));
    memset(m->mem, 0xFF, sizeof(m->mem));
    m->size = size;
    m->page = page;
    m->cut_at = -1;
    m->rng = 0x2545F491u;
}

void eeprom_model_init(flash_model_t *m, uint32_t size, uint16_t page)
{
    flash_model_init(m, size, page);
    m->eeprom = 1;
}

void flash_model_power_on(flash_model_t *m)
{
    m->cut_at = -1;
    m->power_lost = 0;
}

static uint32_t next_random(flash_model_t *m)
{
    m->rng ^= m->rng << 13;
    m->rng ^= m->rng >> 17;
    m->rng ^= m->rng << 5;
    return m->rng;
}

/* Start an operation: 0 to do it, 1 when the power goes now (the caller tears it or skips it),
 * -1 when the power is already gone. */
static int start_op(flash_model_t *m)
{
    if (m->power_lost) {
        return -1;
    }
    if (m->cut_at >= 0 && (unsigned long)m->cut_at == m->ops) {
        m->ops++;
        m->power_lost = 1;
        return 1;
    }
    m->ops++;
    return 0;
}

int flash_model_read(void *ctx, uint32_t addr, uint8_t *out, uint16_t len)
{
    flash_model_t *m = &((flash_rig_t *)ctx)->flash;

    if (addr > m->size || len > m->size - addr) {
        return -ERR_INVAL;
    }
    memcpy(out, m->mem + addr, len);
    return 0;
}

int flash_model_write(void *ctx, uint32_t addr, const uint8_t *data, uint16_t len)
{
    flash_model_t *m = &((flash_rig_t *)ctx)->flash;
    uint16_t i;

    if (m->eeprom) {
        if (len == 0u || addr > m->size || len > m->size - addr || addr / m->page != (addr + len - 1u) / m->page) {
            return -ERR_INVAL;
        }
        if (start_op(m) != 0) {
            return -ERR_IO; /* a page write cut: left as it was */
        }
        memcpy(m->mem + addr, data, len);
        m->programs++;
        return 0;
    }
    if (len == 0u || addr % 2u != 0u || addr > m->size || len > m->size - addr ||
        addr / m->page != (addr + len - 1u) / m->page) {
        return -ERR_INVAL;
    }
    for (i = 0; i < len; i += 2u) {
        uint16_t value = (uint16_t)(data[i] | (i + 1u < len ? data[i + 1u] : 0xFFu) << 8);
        uint8_t *at = m->mem + addr + i;
        int op;

        if ((at[0] | at[1] << 8) != 0xFFFF) {
            m->refused++;
            return -ERR_IO; /* PGERR: not erased; nothing written */
        }
        op = start_op(m);
        if (op < 0) {
            return -ERR_IO;
        }
        if (op > 0) {
            if (m->torn) {
                /* some of the bits to clear are cleared */
                value = (uint16_t)~(~value & next_random(m));
                at[0] = (uint8_t)value;
                at[1] = (uint8_t)(value >> 8);
            }
            return -ERR_IO;
        }
        at[0] = (uint8_t)value;
        at[1] = (uint8_t)(value >> 8);
        m->programs++;
    }
    return 0;
}

int flash_model_erase(void *ctx, uint32_t addr)
{
    flash_model_t *m = &((flash_rig_t *)ctx)->flash;
    int op;
    uint32_t i;

    if (addr % m->page != 0u || addr >= m->size) {
        return -ERR_INVAL;
    }
    op = start_op(m);
    if (op < 0) {
        return -ERR_IO;
    }
    if (op > 0) {
        if (m->torn) {
            for (i = 0; i < m->page; i++) {
                m->mem[addr + i] |= (uint8_t)next_random(m); /* some bits set */
            }
        }
        return -ERR_IO;
    }
    memset(m->mem + addr, 0xFF, m->page);
    m->erases++;
    return 0;
}

void flash_rig_boot(flash_rig_t *r, thrum_fw_t *fw, uint32_t t0)
{
    thrum_board_t board = thrum_host_sim_default_board();

    fake_init(&r->fake);
    r->fake.hal.ctx = r;
    r->fake.hal.storage_read = flash_model_read;
    r->fake.hal.storage_write = flash_model_write;
    r->fake.hal.storage_erase = r->flash.eeprom ? NULL : flash_model_erase;
    board.storage_size = r->flash.size;
    board.storage_page = r->flash.page;
    r->fake.now = t0;
    thrum_fw_init(fw, &r->fake.hal, &board);
}
