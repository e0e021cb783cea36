#ifndef THRUM_CSERIALPORT_PTY_SHIM_H
#define THRUM_CSERIALPORT_PTY_SHIM_H
/*
 * Pseudo-terminal calls for the termios transports.
 *
 * Glibc declares posix_openpt, grantpt, unlockpt and ptsname_r only under _XOPEN_SOURCE or
 * _GNU_SOURCE, which Swift's prebuilt Glibc module is not built with, so Swift cannot see them.
 * They are plain libc functions: declare them here with their POSIX prototypes and wrap them.
 * Darwin's module exposes them already; the wrappers simply forward there.
 */
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/file.h>

#if defined(__linux__)
extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern int ptsname_r(int fd, char *buf, size_t buflen);
#else
#include <stdlib.h>
#endif

/** posix_openpt(3). */
static inline int thrum_posix_openpt(int flags) { return posix_openpt(flags); }
/** grantpt(3). */
static inline int thrum_grantpt(int fd) { return grantpt(fd); }
/** unlockpt(3). */
static inline int thrum_unlockpt(int fd) { return unlockpt(fd); }
/** ptsname_r(3): returns 0 or an errno value (glibc) / -1 with errno set (older systems). */
static inline int thrum_ptsname_r(int fd, char *buf, size_t buflen) { return ptsname_r(fd, buf, buflen); }

/** ioctl(fd, TIOCEXCL): further open(2)s of the terminal fail with EBUSY (except for root). */
static inline int thrum_set_terminal_exclusive(int fd) { return ioctl(fd, TIOCEXCL); }
/** ioctl(fd, TIOCNXCL): lifts TIOCEXCL. */
static inline int thrum_clear_terminal_exclusive(int fd) { return ioctl(fd, TIOCNXCL); }
/** flock(fd, LOCK_EX | LOCK_NB): an advisory lock every Thrum opener takes; fails with EWOULDBLOCK when held. */
static inline int thrum_lock_exclusive(int fd) { return flock(fd, LOCK_EX | LOCK_NB); }

#if defined(__linux__)
#include <errno.h>
#include <linux/serial.h>
/**
 * Asks a serial driver for low latency (TIOCGSERIAL, set ASYNC_LOW_LATENCY, TIOCSSERIAL). The
 * FTDI driver (ftdi_sio) then sets the bridge's latency timer to 1 ms instead of its 16 ms
 * default; the flag is one a port's user may set without privileges. Returns 0, or -1 with errno
 * (ENOTTY on a terminal without serial settings, a pseudo-terminal).
 */
static inline int thrum_request_low_latency(int fd)
{
    struct serial_struct serial;
    if (ioctl(fd, TIOCGSERIAL, &serial) != 0) {
        return -1;
    }
    if (serial.flags & ASYNC_LOW_LATENCY) {
        return 0;
    }
    serial.flags |= ASYNC_LOW_LATENCY;
    return ioctl(fd, TIOCSSERIAL, &serial);
}
#else
#include <errno.h>
/** No serial low-latency flag on this system. */
static inline int thrum_request_low_latency(int fd)
{
    (void)fd;
    errno = ENOTSUP;
    return -1;
}
#endif

#endif
