#ifndef THRUM_CALSA_SHIM_H
#define THRUM_CALSA_SHIM_H
// ALSA's PCM API (libasound2-dev, LGPL-2.1, linked dynamically). ThrumAudio's ALSAPCM.swift is
// the only file that calls it.
#include <alsa/asoundlib.h>
#endif
