/* See fw_symbols.h. */
#define _POSIX_C_SOURCE 200809L
#include "fw_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#define AVR_DATA_OFFSET 0x800000u

static int name_matches(const char *symbol, const char *name)
{
    size_t n = strlen(name);

    return strncmp(symbol, name, n) == 0 && (symbol[n] == '\0' || symbol[n] == '.');
}

int fw_symbol_find(const char *path, const char *name, uint32_t *addr, uint32_t *size)
{
    int found = -1;
    int fd;
    Elf *elf;
    Elf_Scn *scn = NULL;

    if (elf_version(EV_CURRENT) == EV_NONE || (fd = open(path, O_RDONLY)) < 0) {
        return -1;
    }
    elf = elf_begin(fd, ELF_C_READ, NULL);
    while (elf != NULL && found != 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr shdr;
        Elf_Data *data;
        size_t i, count;

        if (gelf_getshdr(scn, &shdr) == NULL || shdr.sh_type != SHT_SYMTAB || shdr.sh_entsize == 0u) {
            continue;
        }
        data = elf_getdata(scn, NULL);
        count = shdr.sh_size / shdr.sh_entsize;
        for (i = 0; data != NULL && i < count; i++) {
            GElf_Sym sym;
            const char *symbol;

            if (gelf_getsym(data, (int)i, &sym) == NULL || GELF_ST_TYPE(sym.st_info) != STT_OBJECT
                || sym.st_value < AVR_DATA_OFFSET) {
                continue;
            }
            symbol = elf_strptr(elf, shdr.sh_link, sym.st_name);
            if (symbol != NULL && name_matches(symbol, name)) {
                *addr = (uint32_t)(sym.st_value - AVR_DATA_OFFSET);
                *size = (uint32_t)sym.st_size;
                found = 0;
                break;
            }
        }
    }
    if (elf != NULL) {
        elf_end(elf);
    }
    close(fd);
    return found;
}
