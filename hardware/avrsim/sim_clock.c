/* See sim_clock.h. */
#define _POSIX_C_SOURCE 200809L
#include "sim_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int sim_clock_open(sim_clock_t *c, const char *path, uint32_t frequency_hz, char *error, unsigned error_size)
{
    int fd;
    void *map;

    memset(c, 0, sizeof(*c));
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        snprintf(error, error_size, "cannot create '%s': %s", path, strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)SIM_CLOCK_SIZE) != 0) {
        snprintf(error, error_size, "cannot size '%s' to %u bytes: %s", path, SIM_CLOCK_SIZE, strerror(errno));
        close(fd);
        return -1;
    }
    map = mmap(NULL, SIM_CLOCK_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(error, error_size, "cannot map '%s': %s", path, strerror(errno));
        return -1;
    }
    c->page = map;
    c->page->version = SIM_CLOCK_VERSION;
    c->page->frequency_hz = frequency_hz;
    c->page->state = 0u;
    c->page->reserved = 0u;
    __atomic_store_n(&c->page->cycles, (uint64_t)0, __ATOMIC_RELEASE);
    /* The magic last: a reader that sees it sees a whole header. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memcpy(c->page->magic, SIM_CLOCK_MAGIC, 8);
    return 0;
}

void sim_clock_close(sim_clock_t *c)
{
    if (c->page == NULL) {
        return;
    }
    __atomic_store_n(&c->page->state, 1u, __ATOMIC_RELEASE);
    msync(c->page, SIM_CLOCK_SIZE, MS_ASYNC);
    munmap(c->page, SIM_CLOCK_SIZE);
    c->page = NULL;
}
