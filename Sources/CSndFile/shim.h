#ifndef THRUM_CSNDFILE_SHIM_H
#define THRUM_CSNDFILE_SHIM_H
// libsndfile (libsndfile1-dev, LGPL-2.1, linked dynamically): WAV, AIFF, CAF, FLAC, Ogg, MP3.
// ThrumAudio's SoundFile.swift is the only file that calls it.
#include <sndfile.h>
#endif
