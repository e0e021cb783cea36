/*
 * avrsim: the Thrum AVR firmware binary in simavr, served on a pseudo-terminal like `thrum sim`.
 *
 * A separate program because simavr is GPL-3.0: nothing here is linked into the Swift package.
 * See README.md in this directory for what it models, the CSV trace and the measurements.
 *
 *   avrsim --elf thrum.elf [--trace out.csv] [--host-log host.csv] [--calibration C,B,G]
 *          [--no-chip] [--no-twi-fixes] [--no-bus-timing] [--no-pace] [--lead-us N] [--margin-us N] [--max-hold-ms N] [--stop-after-ms N]
 *          [--corrupt P] [--seed N] [--storage FILE] [--trigger-at MS:N] [--clock-file PATH]
 *   avrsim --bootloader HEX --reset-vector ADDR [--flash FILE] [options]
 *   avrsim --rom-durations
 *
 * First stdout line: `pty: /dev/pts/N`. Runs until SIGINT/SIGTERM (or --stop-after-ms of
 * simulated time), then writes the trace footer and a summary on stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_io.h>

#include "boot_flash.h"
#include "drv_model.h"
#include "fw_symbols.h"
#include "pty_uart.h"
#include "sim_clock.h"
#include "triggers.h"
#include "twi_bus.h"

#define REG_TCCR1B 0x81u
#define PACE_CHECK_CYCLES 800u        /* 50 µs of simulated time at 16 MHz */
#define PACE_LEAD_NS 200000     /* default --lead-us: sleep down to this far ahead of the wall clock */
#define PACE_SLEEP_SLACK_NS 100000 /* and only once more than this beyond it (no 10 µs naps) */
#define PACE_MAX_HOLD_NS 100000000 /* default --max-hold-ms: a stall longer than this moves the crystal */
#define LAG_WINDOW_CYCLES 160000u      /* 10 ms */
#define LAG_REPORT_NS 100000

/* Set from the signal handler only; the one piece of process-wide state. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

typedef struct {
    const char *elf_path;
    const char *mcu;
    uint32_t frequency;
    const char *trace_path;
    const char *host_log_path;
    const char *device_log_path;
    drv_cal_result_t cal;
    int chip;
    int twint_fix;
    int sla_fix;
    int bus_timing;
    int pace;
    int64_t lead_ns;         /* --lead-us: how far ahead of the wall clock the device's crystal reads */
    int64_t margin_ns;       /* --margin-us: how far ahead of the crystal pacing keeps the simulation */
    int64_t max_hold_ns;     /* --max-hold-ms: the longest fall behind the crystal held as a slow link */
    uint64_t stop_after_us;
    double corrupt;
    uint64_t seed;
    const char *storage_path;
    const char *clock_path;  /* --clock-file: the simulated time, published (sim_clock.h) */
    triggers_t triggers;     /* --trigger-at presses (the schedule only, until attached) */
    const char *bootloader_path; /* --bootloader HEX: bootloader mode (boot_flash.h) */
    uint32_t reset_vector;   /* --reset-vector: the boot section's start (BOOTRST, BOOTSZ) */
    const char *flash_path;  /* --flash FILE: the application flash, kept */
    long worn_flash;         /* --worn-flash ADDR: a flash byte that keeps nothing written (-1: none) */
} options_t;

typedef struct {
    avr_t *avr;
    pty_uart_t *uart;        /* its device bytes waiting for their time (the crystal) */
    FILE *trace;
    uint64_t t0_ns;          /* CLOCK_MONOTONIC at simulated t = 0 */
    int64_t lag_ns;          /* last measured: wall clock minus paced simulated time (> 0: behind) */
    int64_t max_lag_ns;
    int64_t window_lag_ns;   /* largest lag in the current lag window */
    int64_t lead_ns;         /* the pacing target: ahead of the crystal's line by --margin-us */
    int64_t max_hold_ns;
    int64_t shift_ns;        /* how far the crystal has moved, in all (its jumps) */
    uint64_t crystal_jumps;
    uint64_t pace_checks;    /* pacing checks, and those that found the simulation behind (lag >= 0) */
    uint64_t pace_checks_behind;
    uint64_t window_end_cycle;
    uint64_t writes;
    uint64_t device_clock_start_cycle;
    int device_clock_started;
    uint16_t min_sp;
} sim_t;

static uint64_t monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double cycles_to_us(const avr_t *avr, uint64_t cycles)
{
    return (double)cycles * 1e6 / (double)avr->frequency;
}

static void on_register_write(void *ctx, uint64_t cycle, uint8_t reg, uint8_t value)
{
    sim_t *s = ctx;

    s->writes++;
    if (s->trace != NULL) {
        /* The write on the host's clock is t0 + time_us + pacing_lag_us. Paced, the device's
         * clock is a crystal (pty_uart.h): its bytes are held to wall = t0 + simulated time -
         * lead, so that is when the write happened for everything the host can see, whenever
         * the simulation executed it. Unpaced, the lag at this very write, read from the wall
         * clock now (the instant the simulation executed it, and sent the bytes of then). */
        double sim_ns = cycles_to_us(s->avr, cycle) * 1e3;
        double lag_ns = s->uart != NULL && s->uart->crystal ? -(double)s->uart->crystal_offset_ns
                                                            : (double)(monotonic_ns() - s->t0_ns) - sim_ns;
        fprintf(s->trace, "%.4f,%u,%u,%.1f\n", cycles_to_us(s->avr, cycle), reg, value, lag_ns / 1e3);
        fflush(s->trace);
    }
}

static void on_ring_drop(void *ctx, uint64_t cycle)
{
    sim_t *s = ctx;

    if (s->trace != NULL) {
        fprintf(s->trace, "# rx_ring_drop time_us=%.1f\n", cycles_to_us(s->avr, cycle));
        fflush(s->trace);
    }
}

/* The firmware's receive ring (thrum_port_rx_t: buf[N], head, last_time, tail), when the ELF
 * names it: the harness counts the bytes it drops. */
static void watch_rx_ring(pty_uart_t *uart, const char *elf_path, sim_t *s)
{
    uint32_t addr, size;

    if (fw_symbol_find(elf_path, "rx", &addr, &size) == 0 && size > 6u && ((size - 6u) & (size - 7u)) == 0u) {
        pty_uart_watch_ring(uart, addr, size - 6u);
        uart->on_ring_drop = on_ring_drop;
        uart->on_ring_drop_ctx = s;
    } else {
        fprintf(stderr, "avrsim: no receive ring 'rx' in %s: its drops are not counted\n", elf_path);
    }
    if (fw_symbol_find(elf_path, "tx", &addr, &size) == 0 && size > 2u && ((size - 2u) & (size - 3u)) == 0u) {
        uart->tx_ring_addr = addr;
        uart->tx_ring_size = size - 2u;
    }
}

/* Timer1 is the firmware's µs clock: note when it starts so device clock ↔ simulated time is exact. */
static void on_tccr1b(struct avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
    sim_t *s = param;

    (void)addr;
    if (!s->device_clock_started && (v & 7u) != 0u) {
        s->device_clock_started = 1;
        s->device_clock_start_cycle = avr->cycle;
        if (s->trace != NULL) {
            fprintf(s->trace, "# device_clock_start_us=%.4f\n", cycles_to_us(avr, avr->cycle));
            fflush(s->trace);
        }
    }
}

static void pace(sim_t *s)
{
    uint64_t sim_ns = (uint64_t)(cycles_to_us(s->avr, s->avr->cycle) * 1e3);
    uint64_t wall_ns = monotonic_ns() - s->t0_ns;
    /* Ahead of the line pacing follows: the wall clock, less the crystal's jumps (below). */
    int64_t ahead = (int64_t)sim_ns - (int64_t)wall_ns + s->shift_ns;

    s->lag_ns = -ahead;
    s->pace_checks++;
    if (s->lag_ns >= 0) {
        s->pace_checks_behind++;
    }
    if (s->lag_ns > s->max_lag_ns) {
        s->max_lag_ns = s->lag_ns;
    }
    if (s->lag_ns > s->window_lag_ns) {
        s->window_lag_ns = s->lag_ns;
    }
    /* Lag is reported, never hidden: each 10 ms window in which the simulation fell more than
     * 100 µs behind the wall clock gets a comment line in the trace. */
    if (s->avr->cycle >= s->window_end_cycle) {
        if (s->window_lag_ns > LAG_REPORT_NS && s->trace != NULL) {
            fprintf(s->trace, "# lag end_us=%.0f max_lag_us=%.1f\n", cycles_to_us(s->avr, s->avr->cycle),
                    (double)s->window_lag_ns / 1e3);
            fflush(s->trace);
        }
        s->window_lag_ns = 0;
        s->window_end_cycle = s->avr->cycle + LAG_WINDOW_CYCLES;
    }
    /* Behind the crystal's line by more than the longest hold (a stall): the crystal moves, as
     * a clock that lost time would (a timer overflow missed under a long interrupt-disabled
     * section), instead of holding the link for as long as the simulation needs to catch up. */
    if (s->uart != NULL && s->uart->crystal) {
        int64_t behind = (int64_t)wall_ns - (int64_t)sim_ns + s->uart->crystal_offset_ns;
        if (behind > s->max_hold_ns) {
            if (s->trace != NULL) {
                fprintf(s->trace, "# crystal_jump time_us=%.1f behind_us=%.1f lead_us=%.1f\n", (double)sim_ns / 1e3,
                        (double)behind / 1e3, (double)(s->uart->crystal_offset_ns - behind) / 1e3);
                fflush(s->trace);
            }
            s->uart->crystal_offset_ns -= behind;
            s->shift_ns += behind;
            s->crystal_jumps++;
            ahead += behind;
        }
    }
    if (ahead > s->lead_ns + PACE_SLEEP_SLACK_NS) {
        int64_t nap = ahead - s->lead_ns;
        uint64_t due = s->uart != NULL ? pty_uart_next_out_ns(s->uart) : 0u;
        if (due != 0u) {
            /* wake for the device's next byte on the crystal's line (written at the next check) */
            int64_t until = (int64_t)due - (int64_t)(s->t0_ns + wall_ns);
            if (until <= 0) {
                return; /* due already: written at the next check, no sleep in between */
            }
            if (until < nap) {
                nap = until;
            }
        }
        struct timespec ts = {(time_t)(nap / 1000000000), (long)(nap % 1000000000)};
        nanosleep(&ts, NULL);
    }
}

static int parse_calibration(const char *text, drv_cal_result_t *cal)
{
    int c, b, g;
    char extra;

    if (sscanf(text, "%i,%i,%i%c", &c, &b, &g, &extra) != 3 || c < 0 || c > 255 || b < 0 || b > 255 || g < 0 || g > 3) {
        return -1;
    }
    cal->compensation = (uint8_t)c;
    cal->back_emf = (uint8_t)b;
    cal->bemf_gain = (uint8_t)g;
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: avrsim --elf PATH [options]\n"
            "Runs the Thrum AVR firmware in simavr with UART0 on a pseudo-terminal (first stdout line\n"
            "`pty: /dev/pts/N`) and a DRV2605L model at 0x5A on the TWI bus, paced to the wall clock.\n\n"
            "  --elf PATH            firmware ELF (make -C hardware/firmware avr)\n"
            "  --mcu NAME            simavr core (default atmega328p)\n"
            "  --trace PATH          CSV of register writes: time_us,register,value,pacing_lag_us\n"
            "  --host-log PATH       CSV of host bytes as they reach the UART: time_us,byte,pacing_lag_us\n"
            "  --device-log PATH     CSV of the device's bytes as it sends them (corruption included): time_us,byte\n"
            "  --calibration C,B,G   A_CAL_COMP, A_CAL_BEMF, BEMF_GAIN a calibration finds (default 10,225,0)\n"
            "  --resonance HZ        the actuator's resonance LRA_PERIOD reads while driving (default 175,\n"
            "                        the C10-100 `thrum sim` defaults to too)\n"
            "  --no-chip             nothing answers on the TWI bus\n"
            "  --no-twi-fixes        leave simavr 1.6's two TWI bugs in place (to see them);\n"
            "                        --no-twint-fix / --no-sla-fix leave one of them\n"
            "  --no-bus-timing       simavr's own ~9 µs per I2C byte instead of the TWBR-derived time\n"
            "  --no-pace             run as fast as simavr goes (no pseudo-terminal host can keep up)\n"
            "  --lead-us N           pacing keeps the simulation N µs ahead of the wall clock, and the device's\n"
            "                        clock is a crystal reading that far ahead: its bytes are held to it\n"
            "                        (default 200)\n"
            "  --margin-us N         pace N µs further ahead than the crystal (default 0)\n"
            "  --max-hold-ms N       a fall behind the crystal longer than N ms moves it (a clock jump,\n"
            "                        `# crystal_jump` in the trace) instead of holding the bytes (default 100)\n"
            "  --stop-after-ms N     stop after N ms of simulated time\n"
            "  --corrupt P           flip one bit in each frame (either direction) with probability P (0-1)\n"
            "  --seed N              seed of the corruption's random draws (default 1)\n"
            "  --storage FILE        a 24LC256 EEPROM at 0x50 on the TWI bus (the library image's storage),\n"
            "                        its 32 768 bytes kept in FILE (created blank when missing); standard\n"
            "                        input then presses trigger inputs: `trigger N` (N 0 or 1, held 100 ms)\n"
            "  --trigger-at MS:N     press trigger input N at MS ms of simulated time (repeatable)\n"
            "  --clock-file PATH     publish the simulated time (CPU cycles, on every instruction) in a\n"
            "                        32-byte file mapped shared, for a host that runs on the simulation's\n"
            "                        clock (layout in sim_clock.h); created or truncated\n"
            "  --bootloader HEX      bootloader mode: no --elf; HEX (optiboot, ATmegaBOOT) is loaded at its\n"
            "                        own address, the reset vector points at --reset-vector ADDR (the boot\n"
            "                        section's start: 0x7E00 for 256 words, 0x7800 for 1024), and a client\n"
            "                        opening the pty resets the MCU with EXTRF set (the DTR auto-reset)\n"
            "  --reset-vector ADDR   byte address of the boot section (with --bootloader)\n"
            "  --flash FILE          the 32 KiB flash kept in FILE (created erased), written back when the\n"
            "                        bootloader writes a page (with --bootloader)\n"
            "  --worn-flash ADDR     a worn flash cell: the byte at ADDR (below the boot section) keeps\n"
            "                        nothing written and reads erased (0xFF), so a programmer's verify\n"
            "                        fails there (with --bootloader)\n"
            "  --rom-durations       print the chip model's ROM effect lengths (id,ms) and exit\n");
}

static int parse_options(int argc, char **argv, options_t *o)
{
    int i;

    memset(o, 0, sizeof(*o));
    o->mcu = "atmega328p";
    o->frequency = 16000000u;
    o->cal.compensation = 10u;
    o->cal.back_emf = 225u;
    o->cal.bemf_gain = 0u;
    o->chip = 1;
    o->twint_fix = 1;
    o->sla_fix = 1;
    o->bus_timing = 1;
    o->pace = 1;
    o->lead_ns = PACE_LEAD_NS;
    o->margin_ns = 0;
    o->max_hold_ns = PACE_MAX_HOLD_NS;
    o->seed = 1;
    o->worn_flash = -1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--rom-durations") == 0) {
            unsigned id;
            for (id = 1; id <= 123u; id++) {
                printf("%u,%u\n", id, drv_model_rom_duration_us((uint8_t)id) / 1000u);
            }
            exit(0);
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--no-chip") == 0) {
            o->chip = 0;
        } else if (strcmp(a, "--no-twi-fixes") == 0) {
            o->twint_fix = 0;
            o->sla_fix = 0;
        } else if (strcmp(a, "--no-twint-fix") == 0) {
            o->twint_fix = 0;
        } else if (strcmp(a, "--no-sla-fix") == 0) {
            o->sla_fix = 0;
        } else if (strcmp(a, "--no-bus-timing") == 0) {
            o->bus_timing = 0;
        } else if (strcmp(a, "--no-pace") == 0) {
            o->pace = 0;
        } else if (next == NULL) {
            fprintf(stderr, "avrsim: %s needs a value (or is not an option); see --help\n", a);
            return -1;
        } else if (strcmp(a, "--elf") == 0) {
            o->elf_path = argv[++i];
        } else if (strcmp(a, "--mcu") == 0) {
            o->mcu = argv[++i];
        } else if (strcmp(a, "--trace") == 0) {
            o->trace_path = argv[++i];
        } else if (strcmp(a, "--host-log") == 0) {
            o->host_log_path = argv[++i];
        } else if (strcmp(a, "--device-log") == 0) {
            o->device_log_path = argv[++i];
        } else if (strcmp(a, "--calibration") == 0) {
            if (parse_calibration(argv[++i], &o->cal) != 0) {
                fprintf(stderr, "avrsim: --calibration expects C,B,G (0-255, 0-255, 0-3), got '%s'\n", argv[i]);
                return -1;
            }
        } else if (strcmp(a, "--resonance") == 0) {
            char *end;
            double hz = strtod(argv[++i], &end);
            o->cal.lra_period = drv_model_lra_period_code(hz);
            if (*end != '\0' || o->cal.lra_period == 0u) {
                fprintf(stderr, "avrsim: --resonance expects a frequency in Hz (40 to 10000), got '%s'\n", argv[i]);
                return -1;
            }
        } else if (strcmp(a, "--corrupt") == 0) {
            char *end;
            o->corrupt = strtod(argv[++i], &end);
            if (*end != '\0' || !(o->corrupt >= 0.0 && o->corrupt <= 1.0)) {
                fprintf(stderr, "avrsim: --corrupt expects a probability from 0 to 1, got '%s'\n", argv[i]);
                return -1;
            }
        } else if (strcmp(a, "--seed") == 0) {
            char *end;
            o->seed = strtoull(argv[++i], &end, 10);
            if (*end != '\0' || argv[i][0] == '\0' || argv[i][0] == '-') {
                fprintf(stderr, "avrsim: --seed expects a whole number, got '%s'\n", argv[i]);
                return -1;
            }
        } else if (strcmp(a, "--clock-file") == 0) {
            o->clock_path = argv[++i];
        } else if (strcmp(a, "--bootloader") == 0) {
            o->bootloader_path = argv[++i];
        } else if (strcmp(a, "--flash") == 0) {
            o->flash_path = argv[++i];
        } else if (strcmp(a, "--reset-vector") == 0) {
            char *end;
            o->reset_vector = (uint32_t)strtoul(argv[++i], &end, 0);
            if (*end != '\0' || argv[i][0] == '\0' || o->reset_vector == 0u) {
                fprintf(stderr, "avrsim: --reset-vector expects a byte address such as 0x7E00, got '%s'\n", argv[i]);
                return -1;
            }
        } else if (strcmp(a, "--worn-flash") == 0) {
            char *end;
            o->worn_flash = strtol(argv[++i], &end, 0);
            if (*end != '\0' || argv[i][0] == '\0' || o->worn_flash < 0 || o->worn_flash >= (long)BOOT_FLASH_SIZE) {
                fprintf(stderr, "avrsim: --worn-flash expects a byte address in the 32 KiB flash such as 0x3010, got '%s'\n", argv[i]);
                return -1;
            }
        } else if (strcmp(a, "--storage") == 0) {
            o->storage_path = argv[++i];
        } else if (strcmp(a, "--trigger-at") == 0) {
            if (triggers_schedule(&o->triggers, argv[++i]) != 0) {
                fprintf(stderr, "avrsim: --trigger-at expects MS:N (MS > 0 ms of simulated time, input N 0 or 1; at most %u), got '%s'\n",
                        TRIGGERS_SCHEDULED_MAX, argv[i]);
                return -1;
            }
        } else if (strcmp(a, "--lead-us") == 0) {
            char *end;
            long us = strtol(argv[++i], &end, 10);
            if (*end != '\0' || end == argv[i] || us < 0 || us > 1000000) {
                fprintf(stderr, "avrsim: --lead-us expects a whole number of µs from 0 to 1000000, got '%s'\n", argv[i]);
                return -1;
            }
            o->lead_ns = (int64_t)us * 1000;
        } else if (strcmp(a, "--margin-us") == 0) {
            char *end;
            long us = strtol(argv[++i], &end, 10);
            if (*end != '\0' || end == argv[i] || us < 0 || us > 1000000) {
                fprintf(stderr, "avrsim: --margin-us expects a whole number of µs from 0 to 1000000, got '%s'\n", argv[i]);
                return -1;
            }
            o->margin_ns = (int64_t)us * 1000;
        } else if (strcmp(a, "--max-hold-ms") == 0) {
            char *end;
            long ms = strtol(argv[++i], &end, 10);
            if (*end != '\0' || end == argv[i] || ms < 1 || ms > 100000) {
                fprintf(stderr, "avrsim: --max-hold-ms expects a whole number of ms from 1 to 100000, got '%s'\n", argv[i]);
                return -1;
            }
            o->max_hold_ns = (int64_t)ms * 1000000;
        } else if (strcmp(a, "--stop-after-ms") == 0) {
            char *end;
            unsigned long ms = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || ms == 0u) {
                fprintf(stderr, "avrsim: --stop-after-ms expects a positive whole number, got '%s'\n", argv[i]);
                return -1;
            }
            o->stop_after_us = (uint64_t)ms * 1000u;
        } else {
            fprintf(stderr, "avrsim: unknown option '%s'; see --help\n", a);
            return -1;
        }
    }
    if (o->bootloader_path != NULL) {
        if (o->elf_path != NULL) {
            fprintf(stderr, "avrsim: --bootloader runs what the flash holds: no --elf (flash one with avrdude)\n");
            return -1;
        }
        if (o->reset_vector == 0u) {
            fprintf(stderr, "avrsim: --bootloader needs --reset-vector ADDR (0x7E00: optiboot on an Uno)\n");
            return -1;
        }
        if (o->worn_flash >= (long)o->reset_vector) {
            fprintf(stderr, "avrsim: --worn-flash 0x%lX lies in the boot section (from 0x%X): give an application address\n",
                    (unsigned long)o->worn_flash, o->reset_vector);
            return -1;
        }
    } else if (o->flash_path != NULL || o->reset_vector != 0u || o->worn_flash >= 0) {
        fprintf(stderr, "avrsim: --flash, --reset-vector and --worn-flash are for --bootloader\n");
        return -1;
    } else if (o->elf_path == NULL) {
        fprintf(stderr, "avrsim: no firmware: pass --elf PATH (build it with `make -C hardware/firmware avr`)\n");
        return -1;
    }
    if (strcmp(o->mcu, "atmega328p") != 0) {
        fprintf(stderr, "avrsim: --mcu %s: only atmega328p is supported (the harness uses its TWI and UART registers)\n", o->mcu);
        return -1;
    }
    return 0;
}

/* simavr prints progress on stdout; the first stdout line must be the pty, so send its set-up
 * chatter to stderr. */
static avr_t *load(const options_t *o)
{
    elf_firmware_t fw;
    avr_t *avr;
    int saved = dup(STDOUT_FILENO);

    fflush(stdout);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    memset(&fw, 0, sizeof(fw));
    avr = NULL;
    if (o->bootloader_path != NULL) {
        avr = avr_make_mcu_by_name(o->mcu);
        if (avr != NULL) {
            avr_init(avr);
            avr->log = LOG_ERROR;
            avr->frequency = o->frequency;
        }
    } else if (elf_read_firmware(o->elf_path, &fw) == 0) {
        snprintf(fw.mmcu, sizeof(fw.mmcu), "%s", o->mcu);
        fw.frequency = o->frequency;
        avr = avr_make_mcu_by_name(fw.mmcu);
        if (avr != NULL) {
            avr_init(avr);
            avr->log = LOG_ERROR;
            avr_load_firmware(avr, &fw);
            avr->frequency = o->frequency;
        }
    }
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return avr;
}

/* --storage: the 24LC256 on the bus, its contents from (and kept in) the file. */
static int attach_storage(const options_t *o, twi_bus_t *bus, eeprom_model_t *eeprom)
{
    char error[512];

    if (o->storage_path == NULL) {
        return 0;
    }
    if (eeprom_model_open(eeprom, o->storage_path, error, sizeof(error)) != 0) {
        fprintf(stderr, "avrsim: --storage: %s\n", error);
        return -1;
    }
    bus->eeprom = eeprom;
    return 0;
}

static void print_storage(const options_t *o)
{
    if (o->storage_path != NULL) {
        printf("library storage %s: a 24LC256 at 0x50; type `trigger N` to press input N (0: PB0, 1: PB1)\n",
               o->storage_path);
    }
}

/* The EEPROM's and the trigger inputs' counters: a trace comment before the footer, and stderr. */
static void storage_footer(const options_t *o, eeprom_model_t *eeprom, FILE *trace)
{
    if (o->storage_path == NULL) {
        return;
    }
    if (trace != NULL) {
        fprintf(trace, "# storage page_writes=%u busy_nacks=%u bytes_read=%llu bytes_written=%llu trigger_presses=%u\n",
                eeprom->page_writes, eeprom->busy_nacks, (unsigned long long)eeprom->bytes_read,
                (unsigned long long)eeprom->bytes_written, o->triggers.presses);
    }
    fprintf(stderr, "avrsim: storage %s: %u page writes, %u busy NACKs, %llu bytes read%s\n", o->storage_path,
            eeprom->page_writes, eeprom->busy_nacks, (unsigned long long)eeprom->bytes_read,
            eeprom->file_error ? "; WRITING THE FILE FAILED" : "");
    eeprom_model_close(eeprom);
}

int main(int argc, char **argv)
{
    options_t o;
    sim_t s;
    drv_model_t chip;
    twi_bus_t bus;
    pty_uart_t uart;
    sim_clock_t clock;
    static eeprom_model_t eeprom; /* 32 KiB: not on the stack */
    static boot_flash_t boot;     /* likewise */
    uint64_t next_sync = 0;
    FILE *host_log = NULL;
    FILE *device_log = NULL;
    uint64_t next_check;
    int state = cpu_Running;
    uint16_t ramend;

    if (parse_options(argc, argv, &o) != 0) {
        return 2;
    }
    if (o.elf_path != NULL && access(o.elf_path, R_OK) != 0) {
        fprintf(stderr, "avrsim: cannot read the firmware ELF '%s': %s (build it with `make -C hardware/firmware avr`)\n",
                o.elf_path, strerror(errno));
        return 2;
    }
    memset(&s, 0, sizeof(s));
    s.lead_ns = o.lead_ns + o.margin_ns; /* the pacing target */
    s.max_hold_ns = o.max_hold_ns;
    memset(&bus, 0, sizeof(bus));
    if (o.trace_path != NULL && (s.trace = fopen(o.trace_path, "w")) == NULL) {
        fprintf(stderr, "avrsim: cannot write the trace '%s': %s\n", o.trace_path, strerror(errno));
        return 2;
    }
    if (o.host_log_path != NULL && (host_log = fopen(o.host_log_path, "w")) == NULL) {
        fprintf(stderr, "avrsim: cannot write the host log '%s': %s\n", o.host_log_path, strerror(errno));
        return 2;
    }
    if (o.device_log_path != NULL && (device_log = fopen(o.device_log_path, "w")) == NULL) {
        fprintf(stderr, "avrsim: cannot write the device log '%s': %s\n", o.device_log_path, strerror(errno));
        return 2;
    }
    memset(&clock, 0, sizeof(clock));
    if (o.clock_path != NULL) {
        char error[512];
        if (sim_clock_open(&clock, o.clock_path, o.frequency, error, sizeof(error)) != 0) {
            fprintf(stderr, "avrsim: --clock-file: %s\n", error);
            return 2;
        }
    }
    if ((s.avr = load(&o)) == NULL) {
        fprintf(stderr, "avrsim: simavr could not load '%s' for %s\n", o.elf_path ? o.elf_path : o.bootloader_path, o.mcu);
        return 2;
    }
    boot.fd = -1;
    if (o.bootloader_path != NULL) {
        char error[512];
        if (boot_flash_open(&boot, s.avr, o.bootloader_path, o.flash_path, o.reset_vector, error, sizeof(error)) != 0) {
            fprintf(stderr, "avrsim: --bootloader: %s\n", error);
            return 2;
        }
    }
    if (pty_uart_open(&uart) != 0) {
        fprintf(stderr, "avrsim: cannot open a pseudo-terminal: %s\n", strerror(errno));
        return 2;
    }
    if (o.bootloader_path != NULL) {
        /* A master whose slave was never opened shows no hang-up: open and close the slave once,
         * so that the first client's open is seen as one (boot_flash_client_opened). */
        int slave = open(uart.slave_path, O_RDWR | O_NOCTTY);
        if (slave >= 0) {
            close(slave);
        }
    }
    uart.host_log = host_log;
    uart.device_log = device_log;
    uart.corrupt = o.corrupt;
    uart.rng = o.seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull; /* never 0 */
    if (uart.rng == 0u) {
        uart.rng = 1u;
    }
    if (host_log != NULL) {
        fprintf(host_log, "time_us,byte,pacing_lag_us\n");
    }
    if (device_log != NULL) {
        fprintf(device_log, "time_us,byte\n");
    }
    pty_uart_attach(&uart, s.avr);
    /* The crystal (pty_uart.h) for a host on the wall clock; a host on the simulation's clock
     * (--clock-file) reads the simulated time itself and wants the bytes at once. */
    uart.crystal = o.pace && o.clock_path == NULL;
    uart.crystal_offset_ns = (uint64_t)o.lead_ns;
    s.uart = &uart;
    if (o.bootloader_path != NULL) {
        uart.baud_check_from = boot.boot_start; /* a client at the wrong baud reaches no bootloader */
    }
    if (o.elf_path != NULL) {
        watch_rx_ring(&uart, o.elf_path, &s);
    }
    drv_model_init(&chip, o.cal);
    if (attach_storage(&o, &bus, &eeprom) != 0) {
        return 2;
    }
    bus.fix_twint = o.twint_fix;
    bus.fix_sla_status = o.sla_fix;
    bus.real_timing = o.bus_timing;
    twi_bus_attach(&bus, s.avr, o.chip ? &chip : NULL, on_register_write, &s);
    avr_register_io_write(s.avr, REG_TCCR1B, on_tccr1b, &s);
    triggers_attach(&o.triggers, s.avr, s.trace, o.storage_path != NULL);

    /* Pacing sleeps are ~100 µs: the default 50 µs timer slack would be a systematic lag. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTTIN, SIG_IGN); /* reading trigger lines in a background job: EIO, not a stop */

    ramend = s.avr->ramend;
    s.min_sp = ramend;
    s.t0_ns = monotonic_ns();
    uart.t0_ns = s.t0_ns;
    if (s.trace != NULL) {
        fprintf(s.trace, "# avrsim register trace: DRV2605L writes at 0x5A, each stamped at the end of its data byte\n");
        fprintf(s.trace, "# f_cpu_hz=%u pacing=%s lead_us=%lld calibration=%u,%u,%u corrupt=%g seed=%llu\n", s.avr->frequency,
                o.pace ? "wall-clock" : "none", (long long)(o.lead_ns / 1000), o.cal.compensation, o.cal.back_emf, o.cal.bemf_gain, o.corrupt,
                (unsigned long long)o.seed);
        if (o.clock_path != NULL) {
            fprintf(s.trace, "# clock_file=%s (simulated CPU cycles, published on every instruction)\n", o.clock_path);
        }
        fprintf(s.trace, "# monotonic_ns_at_t0=%llu (host CLOCK_MONOTONIC = t0 + time_us*1000 + pacing_lag_us*1000)\n",
                (unsigned long long)s.t0_ns);
        fprintf(s.trace, "time_us,register,value,pacing_lag_us\n");
        fflush(s.trace);
    }
    printf("pty: %s\n", uart.slave_path);
    if (o.bootloader_path != NULL) {
        printf("avr device: %s with the bootloader %s at 0x%04X (reset vector 0x%04X), flash %s, at %.0f MHz, "
               "DRV2605L model %s; opening the pty resets it into the bootloader (DTR auto-reset)\n",
               o.mcu, o.bootloader_path, boot.boot_start, o.reset_vector, o.flash_path ? o.flash_path : "not kept",
               s.avr->frequency / 1e6, o.chip ? "at 0x5A" : "absent");
    } else {
        printf("avr device: %s ELF %s at %.0f MHz, DRV2605L model %s; serving until stopped\n", o.mcu, o.elf_path,
               s.avr->frequency / 1e6, o.chip ? "at 0x5A" : "absent");
    }
    print_storage(&o);
    fflush(stdout);

    next_check = 0;
    while (!stop_requested && state != cpu_Done && state != cpu_Crashed) {
        uint16_t sp;
        if (o.worn_flash >= 0) {
            boot_flash_wear(&boot, (uint32_t)o.worn_flash); /* before each instruction: nothing written stays */
        }
        if (o.bootloader_path != NULL && boot_flash_halted(&boot)) {
            s.avr->cycle += 16u; /* nothing runs until an external reset (boot_flash.h) */
        } else {
            state = avr_run(s.avr);
            if (state == cpu_Crashed && o.bootloader_path != NULL) {
                /* A board's bootloader still answers a reset after its application ran wild. */
                fprintf(stderr, "avrsim: the application crashed the simulated CPU at PC 0x%04X; held until the next "
                                "external reset (opening the port), which enters the bootloader\n",
                        (unsigned)s.avr->pc);
                boot_flash_crashed(&boot);
                state = cpu_Running;
            }
        }
        sim_clock_publish(&clock, s.avr->cycle);
        sp = (uint16_t)(s.avr->data[R_SPL] | (s.avr->data[R_SPH] << 8));
        if (sp < s.min_sp) {
            s.min_sp = sp;
        }
        if (s.avr->cycle >= next_check) {
            next_check = s.avr->cycle + PACE_CHECK_CYCLES;
            if (o.bootloader_path != NULL) {
                int was_open = boot.client_open;
                int opened = boot_flash_client_opened(&boot, uart.master);
                if (was_open && !boot.client_open) {
                    pty_uart_client_closed(&uart); /* the next client is judged by its own speed */
                }
                if (opened) {
                    uint64_t cycle = s.avr->cycle;
                    boot_flash_external_reset(&boot);
                    s.avr->cycle = cycle; /* simulated time goes on through the reset */
                    pty_uart_reset(&uart);
                    next_check = s.avr->cycle + PACE_CHECK_CYCLES;
                }
                if (s.avr->cycle >= next_sync) {
                    next_sync = s.avr->cycle + 10u * 16000u; /* 10 ms */
                    boot_flash_sync(&boot);
                }
            }
            pty_uart_pump(&uart);
            triggers_poll(&o.triggers);
            if (o.pace) {
                pace(&s);
            }
            if (o.stop_after_us != 0u && cycles_to_us(s.avr, s.avr->cycle) >= (double)o.stop_after_us) {
                break;
            }
        }
    }

    storage_footer(&o, &eeprom, s.trace);
    if (o.bootloader_path != NULL) {
        boot_flash_close(&boot);
        fprintf(stderr, "avrsim: flash %s: %u application pages written, %u external resets, %u application crashes, "
                        "%llu host bytes to the bootloader at a wrong baud%s\n",
                o.flash_path ? o.flash_path : "(not kept)", boot.pages_written, boot.resets, boot.crashes,
                (unsigned long long)uart.baud_garbled, boot.file_error ? "; WRITING THE FILE FAILED" : "");
    }
    if (s.trace != NULL && o.clock_path != NULL) {
        fprintf(s.trace, "# clock_file updates=%llu\n", (unsigned long long)clock.updates);
    }
    sim_clock_close(&clock);
    if (s.trace != NULL) {
        fprintf(s.trace, "# end sim_time_us=%.1f max_pacing_lag_us=%.1f pacing_checks=%llu pacing_checks_behind=%llu device_bytes_late=%llu crystal_jumps=%llu register_writes=%llu stack_high_water_bytes=%u "
                         "min_sp=0x%04X i2c_scl_period_cycles=%u host_bytes=%llu device_bytes=%llu device_bytes_dropped=%llu rx_ring_drops=%llu rx_ring_lost=%llu tx_ring_full_checks=%llu sla_status_fixes=%u "
                         "host_frames=%llu host_frames_corrupted=%llu device_frames=%llu device_frames_corrupted=%llu\n",
                cycles_to_us(s.avr, s.avr->cycle), (double)s.max_lag_ns / 1e3,
                (unsigned long long)s.pace_checks, (unsigned long long)s.pace_checks_behind, (unsigned long long)uart.out_late, (unsigned long long)s.crystal_jumps, (unsigned long long)s.writes,
                (unsigned)(ramend - s.min_sp), s.min_sp, twi_bus_period_cycles(&bus), (unsigned long long)uart.rx_bytes,
                (unsigned long long)uart.tx_bytes, (unsigned long long)uart.tx_dropped,
                (unsigned long long)uart.ring_full_drops, (unsigned long long)pty_uart_ring_lost(&uart),
                (unsigned long long)uart.tx_ring_full_checks, bus.sla_status_fixes,
                (unsigned long long)uart.host_frames.frames, (unsigned long long)uart.host_frames.corrupted,
                (unsigned long long)uart.device_frames.frames, (unsigned long long)uart.device_frames.corrupted);
        fclose(s.trace);
    }
    if (host_log != NULL) {
        fclose(host_log);
    }
    if (device_log != NULL) {
        fclose(device_log);
    }
    fprintf(stderr,
            "avrsim: stopped at %.3f s simulated; %llu register writes; stack high-water %u bytes (SP min 0x%04X); "
            "max pacing lag %.1f µs; %llu bytes from the host, %llu to it (%llu dropped)\n",
            cycles_to_us(s.avr, s.avr->cycle) / 1e6, (unsigned long long)s.writes, (unsigned)(ramend - s.min_sp), s.min_sp,
            (double)s.max_lag_ns / 1e3, (unsigned long long)uart.rx_bytes, (unsigned long long)uart.tx_bytes,
            (unsigned long long)uart.tx_dropped);
    if (state == cpu_Crashed) {
        fprintf(stderr, "avrsim: the simulated CPU crashed at PC 0x%04X\n", (unsigned)s.avr->pc);
        return 1;
    }
    return 0;
}
