#ifndef THRUM_CALSA_SHIM_H
#define THRUM_CALSA_SHIM_H
// ALSA's PCM API (libasound2-dev, LGPL-2.1, linked dynamically). ThrumAudio's ALSASystem.swift is
// the only file that calls it.
#include <alsa/asoundlib.h>

// ALSA prints its own diagnostics on stderr ("ALSA lib pcm.c:…"); Thrum reports each failure once,
// with ALSA's code, in its own words. The handler type is variadic, which Swift cannot express.
static void thrum_alsa_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void thrum_alsa_silence_library_errors(void) { snd_lib_error_set_handler(thrum_alsa_quiet_handler); }
#endif
