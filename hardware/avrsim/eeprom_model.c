/* See eeprom_model.h. */
#define _POSIX_C_SOURCE 200809L
#include "eeprom_model.h"

#include <errno.h>
#include <string.h>

int eeprom_model_open(eeprom_model_t *m, const char *path, char *error, size_t error_len)
{
    memset(m, 0, sizeof(*m));
    memset(m->mem, 0xFF, sizeof(m->mem));
    if (path == NULL) {
        return 0;
    }
    m->file = fopen(path, "r+b");
    if (m->file == NULL && errno == ENOENT) {
        m->file = fopen(path, "w+b");
        if (m->file != NULL && (fwrite(m->mem, 1, sizeof(m->mem), m->file) != sizeof(m->mem) || fflush(m->file) != 0)) {
            snprintf(error, error_len, "cannot write %s: %s", path, strerror(errno));
            fclose(m->file);
            m->file = NULL;
            return -1;
        }
        return m->file != NULL ? 0 : (snprintf(error, error_len, "cannot create %s: %s", path, strerror(errno)), -1);
    }
    if (m->file == NULL) {
        snprintf(error, error_len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    {
        size_t n = fread(m->mem, 1, sizeof(m->mem), m->file);
        int extra = fgetc(m->file);
        if (n != sizeof(m->mem) || extra != EOF) {
            snprintf(error, error_len, "%s is not a 24LC256 image: expected %u bytes, found %s%zu", path,
                     EEPROM_MODEL_SIZE, extra != EOF ? "more than " : "", n);
            fclose(m->file);
            m->file = NULL;
            return -1;
        }
    }
    return 0;
}

void eeprom_model_close(eeprom_model_t *m)
{
    if (m->file != NULL) {
        fclose(m->file);
        m->file = NULL;
    }
}

int eeprom_model_select(eeprom_model_t *m, int read, uint64_t now_us)
{
    if (now_us < m->busy_until_us) {
        m->busy_nacks++;
        return 0;
    }
    m->writing = !read;
    m->index = 0;
    if (!read) {
        m->has_data = 0;
        memset(m->latched, 0, sizeof(m->latched));
    }
    return 1;
}

void eeprom_model_write(eeprom_model_t *m, uint8_t byte)
{
    unsigned at;

    if (!m->writing) {
        return;
    }
    if (m->index == 0u) {
        m->pointer = (uint16_t)((m->pointer & 0x00FFu) | ((unsigned)(byte & 0x7Fu) << 8));
    } else if (m->index == 1u) {
        m->pointer = (uint16_t)((m->pointer & 0x7F00u) | byte);
    } else {
        at = m->pointer % EEPROM_MODEL_PAGE;
        m->latch[at] = byte;
        m->latched[at] = 1;
        m->has_data = 1;
        /* the pointer wraps inside the page */
        m->pointer = (uint16_t)((m->pointer - at) | ((at + 1u) % EEPROM_MODEL_PAGE));
    }
    m->index++;
}

uint8_t eeprom_model_read(eeprom_model_t *m)
{
    uint8_t byte = m->mem[m->pointer];

    m->pointer = (uint16_t)((m->pointer + 1u) % EEPROM_MODEL_SIZE);
    m->bytes_read++;
    return byte;
}

void eeprom_model_stop(eeprom_model_t *m, uint64_t now_us)
{
    unsigned base = m->pointer - m->pointer % EEPROM_MODEL_PAGE;
    unsigned i;

    if (!m->writing || !m->has_data) {
        m->writing = 0;
        return;
    }
    for (i = 0; i < EEPROM_MODEL_PAGE; i++) {
        if (m->latched[i]) {
            m->mem[base + i] = m->latch[i];
            m->bytes_written++;
        }
    }
    m->page_writes++;
    m->busy_until_us = now_us + EEPROM_MODEL_WRITE_CYCLE_US;
    m->writing = 0;
    m->has_data = 0;
    if (m->file != NULL &&
        (fseek(m->file, (long)base, SEEK_SET) != 0 || fwrite(m->mem + base, 1, EEPROM_MODEL_PAGE, m->file) != EEPROM_MODEL_PAGE ||
         fflush(m->file) != 0)) {
        m->file_error = 1;
    }
}
