/* See twi_bus.h. Register addresses are the ATmega328P's (data space). */
#include "twi_bus.h"

#include <stddef.h>

#include <sim_avr.h>
#include <sim_io.h>
#include <sim_irq.h>
#include <avr_twi.h>

#define REG_TWBR 0xB8u
#define REG_TWSR 0xB9u
#define REG_TWCR 0xBCu
#define TWINT_BIT 0x80u
#define TWSTA_BIT 0x20u
#define TWSTO_BIT 0x10u
#define TWEN_BIT 0x04u

#define TW_MT_SLA_ACK 0x18u
#define TW_MT_SLA_NACK 0x20u
#define TW_MT_DATA_ACK 0x28u
#define TW_MT_DATA_NACK 0x30u
#define BITS_PER_BYTE 9u

uint32_t twi_bus_period_cycles(const twi_bus_t *bus)
{
    const uint8_t *data = bus->avr->data;
    uint32_t scale = 1u << (2u * (data[REG_TWSR] & 3u)); /* 4^TWPS */

    return 16u + 2u * (uint32_t)data[REG_TWBR] * scale;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Runs after simavr's own TWCR handler. */
static void twcr_written(struct avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    twi_bus_t *bus = param;
    uint64_t now = avr->cycle;
    uint32_t period = twi_bus_period_cycles(bus);

    (void)addr;
    if ((v & TWINT_BIT) == 0u || (v & TWEN_BIT) == 0u) {
        return;
    }
    if (bus->fix_twint) {
        avr->data[REG_TWCR] &= (uint8_t)~TWINT_BIT; /* bug 1: writing one clears TWINT */
    }
    bus->twint_latched = 0;
    if ((v & TWSTO_BIT) != 0u) {
        bus->bus_free_at = max64(now, bus->busy_until) + period; /* STOP, then bus-free time */
        bus->busy_until = now;
    } else if ((v & TWSTA_BIT) != 0u) {
        bus->busy_until = max64(now, bus->bus_free_at) + period;
    } else {
        bus->busy_until = now + (uint64_t)BITS_PER_BYTE * period;
        bus->bytes++;
    }
}

/* The firmware polls TWCR for TWINT: it only appears once the byte has had its bus time. */
static uint8_t twcr_read(struct avr_t *avr, avr_io_addr_t addr, void *param)
{
    twi_bus_t *bus = param;
    uint8_t v = avr->data[addr];

    if (!bus->real_timing) {
        return v;
    }
    if ((v & TWINT_BIT) != 0u && avr->cycle < bus->busy_until) {
        bus->twint_latched = 1;
        return (uint8_t)(v & ~TWINT_BIT);
    }
    if (bus->twint_latched && avr->cycle >= bus->busy_until) {
        bus->twint_latched = 0;
        return (uint8_t)(v | TWINT_BIT);
    }
    return v;
}

static void status_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
    twi_bus_t *bus = param;
    uint8_t *twsr = &bus->avr->data[REG_TWSR];

    (void)irq;
    if (!bus->expect_sla_w_status) {
        return;
    }
    bus->expect_sla_w_status = 0;
    if (!bus->fix_sla_status) {
        return;
    }
    if ((value & 0xF8u) == TW_MT_DATA_ACK) { /* bug 2 */
        *twsr = (uint8_t)(TW_MT_SLA_ACK | (*twsr & 3u));
        bus->sla_status_fixes++;
    } else if ((value & 0xF8u) == TW_MT_DATA_NACK) {
        *twsr = (uint8_t)(TW_MT_SLA_NACK | (*twsr & 3u));
        bus->sla_status_fixes++;
    }
}

static void reply(twi_bus_t *bus, uint8_t msg, uint8_t addr, uint8_t data)
{
    avr_raise_irq(avr_io_getirq(bus->avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_INPUT), avr_twi_irq_msg(msg, addr, data));
}

/* The EEPROM's side of a bus message (START with its address, data, STOP); 1 when it took it. */
static int eeprom_message(twi_bus_t *bus, const avr_twi_msg_irq_t *m, uint64_t t_us)
{
    if (bus->eeprom == NULL) {
        return 0;
    }
    if (m->u.twi.msg & TWI_COND_START) {
        uint8_t sla = m->u.twi.addr;
        if ((sla >> 1) != EEPROM_MODEL_ADDR) {
            return 0;
        }
        bus->selected = 0;
        if ((sla & 1u) == 0u) {
            bus->expect_sla_w_status = 1;
        }
        if (eeprom_model_select(bus->eeprom, sla & 1u, t_us)) { /* NACKed during a write cycle */
            bus->selected = 2;
            reply(bus, TWI_COND_ACK, sla, 1);
        }
        return 1;
    }
    if (bus->selected != 2) {
        return 0;
    }
    if (m->u.twi.msg & TWI_COND_WRITE) {
        reply(bus, TWI_COND_ACK, m->u.twi.addr, 1);
        eeprom_model_write(bus->eeprom, m->u.twi.data);
    }
    if (m->u.twi.msg & TWI_COND_READ) {
        reply(bus, TWI_COND_READ, m->u.twi.addr, eeprom_model_read(bus->eeprom));
    }
    return 1;
}

/* Master -> bus traffic: the slave side of the DRV2605L. */
static void bus_message(struct avr_irq_t *irq, uint32_t value, void *param)
{
    twi_bus_t *bus = param;
    avr_twi_msg_irq_t m;
    uint64_t now = bus->avr->cycle;
    uint64_t byte_done = now + (uint64_t)BITS_PER_BYTE * twi_bus_period_cycles(bus);
    uint64_t t_us = byte_done / (bus->avr->frequency / 1000000u);

    (void)irq;
    m.u.v = value;
    if (m.u.twi.msg & TWI_COND_STOP) {
        if (bus->selected == 2) {
            eeprom_model_stop(bus->eeprom, now / (bus->avr->frequency / 1000000u)); /* the write cycle starts */
        }
        bus->selected = 0;
    }
    if (eeprom_message(bus, &m, t_us)) {
        return;
    }
    if (m.u.twi.msg & TWI_COND_START) {
        uint8_t sla = m.u.twi.addr;
        if ((sla & 1u) == 0u) {
            bus->expect_sla_w_status = 1;
        }
        bus->selected = 0;
        if (bus->chip != NULL && (sla >> 1) == DRV_MODEL_ADDR) {
            bus->selected = 1;
            bus->reading = sla & 1u;
            bus->index = 0;
            reply(bus, TWI_COND_ACK, sla, 1);
        }
        return;
    }
    if (!bus->selected) {
        return;
    }
    if (m.u.twi.msg & TWI_COND_WRITE) {
        reply(bus, TWI_COND_ACK, m.u.twi.addr, 1);
        if (bus->index++ == 0u) {
            bus->reg_ptr = m.u.twi.data;
        } else {
            uint8_t reg = bus->reg_ptr++;
            drv_model_write(bus->chip, reg, m.u.twi.data, t_us);
            if (bus->on_write != NULL) {
                bus->on_write(bus->observer_ctx, byte_done, reg, m.u.twi.data);
            }
        }
    }
    if (m.u.twi.msg & TWI_COND_READ) {
        uint8_t data = drv_model_read(bus->chip, bus->reg_ptr++, t_us);
        reply(bus, TWI_COND_READ, m.u.twi.addr, data);
    }
}

void twi_bus_attach(twi_bus_t *bus, struct avr_t *avr, drv_model_t *chip, twi_write_observer_t on_write, void *ctx)
{
    bus->avr = avr;
    bus->chip = chip;
    bus->on_write = on_write;
    bus->observer_ctx = ctx;
    avr_register_io_write(avr, REG_TWCR, twcr_written, bus);
    avr_register_io_read(avr, REG_TWCR, twcr_read, bus);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_STATUS), status_changed, bus);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_TWI_GETIRQ(0), TWI_IRQ_OUTPUT), bus_message, bus);
}
