#ifndef THRUM_CSERIALPORT_WAIT_SHIM_H
#define THRUM_CSERIALPORT_WAIT_SHIM_H
/*
 * ppoll(2) for the transports' waits: poll(2) takes whole milliseconds, ppoll a timespec, so a
 * frame due in 200 µs is not held to the next millisecond.
 *
 * Glibc declares ppoll only under _GNU_SOURCE, which Swift's prebuilt Glibc module is not built
 * with, so Swift cannot see it: declare it here with its Linux prototype and wrap it. Darwin has
 * no ppoll; the Swift side falls back to poll(2) there (Platform.waitForEvents).
 */
#if defined(__linux__)
#include <poll.h>
#include <signal.h>
#include <time.h>

extern int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);

/** ppoll(2) on one descriptor with the signal mask left as it is: waits at most `seconds` +
 *  `nanoseconds` (0 and 0: do not wait). Returns what ppoll returns (-1 with errno set). */
static inline int thrum_ppoll_one(struct pollfd *entry, long long seconds, long nanoseconds) {
    struct timespec timeout;
    timeout.tv_sec = (time_t)seconds;
    timeout.tv_nsec = nanoseconds;
    return ppoll(entry, 1, &timeout, NULL);
}

/** ppoll(2) on `count` descriptors, as thrum_ppoll_one: a wait on a transport's descriptor and
 *  a wake descriptor together. */
static inline int thrum_ppoll_many(struct pollfd *entries, unsigned long count, long long seconds, long nanoseconds) {
    struct timespec timeout;
    timeout.tv_sec = (time_t)seconds;
    timeout.tv_nsec = nanoseconds;
    return ppoll(entries, (nfds_t)count, &timeout, NULL);
}
#endif

#endif
