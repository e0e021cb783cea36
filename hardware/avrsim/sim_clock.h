/*
 * The simulation's clock, published for a host that runs on it (`avrsim --clock-file PATH`).
 *
 * A 32-byte file, mapped shared, that the harness rewrites on every step of its run loop (every
 * AVR instruction), so a reader on the same machine sees the simulated time move as the simulated
 * CPU does. Layout (little-endian, naturally aligned; Sources/ThrumBench/SimulationClock.swift
 * reads it):
 *
 *   offset 0   8 bytes  magic "THRMCLK1"
 *   offset 8   uint32   layout version (1)
 *   offset 12  uint32   CPU frequency, Hz (simulated time = cycles / frequency)
 *   offset 16  uint64   CPU cycles since reset: one aligned 64-bit store (release), never torn
 *   offset 24  uint32   state: 0 running, 1 stopped (the harness exited; the clock will not move)
 *   offset 28  uint32   reserved, 0
 *
 * Cycles rather than nanoseconds: exact, and one store per instruction with no division.
 */
#ifndef AVRSIM_SIM_CLOCK_H
#define AVRSIM_SIM_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define SIM_CLOCK_MAGIC "THRMCLK1"
#define SIM_CLOCK_VERSION 1u
#define SIM_CLOCK_SIZE 32u

typedef struct {
    char magic[8];
    uint32_t version;
    uint32_t frequency_hz;
    uint64_t cycles;
    uint32_t state;
    uint32_t reserved;
} sim_clock_page_t;

typedef struct {
    sim_clock_page_t *page; /* NULL: not published */
    uint64_t updates;
} sim_clock_t;

/** Creates (or truncates) `path`, maps it and writes the header; 0, or -1 with a message in
 *  `error`. */
int sim_clock_open(sim_clock_t *c, const char *path, uint32_t frequency_hz, char *error, unsigned error_size);

/** Publishes `cycles` (a no-op when not open). */
static inline void sim_clock_publish(sim_clock_t *c, uint64_t cycles)
{
    if (c->page != NULL) {
        __atomic_store_n(&c->page->cycles, cycles, __ATOMIC_RELEASE);
        c->updates++;
    }
}

/** Marks the clock stopped and unmaps it (the file stays, for a reader still holding it). */
void sim_clock_close(sim_clock_t *c);

#endif
