#ifndef THRUM_CSERIALPORT_STDIO_SHIM_H
#define THRUM_CSERIALPORT_STDIO_SHIM_H
/*
 * The C library's standard output stream, for the CLI's check that its output was written
 * (fflush and ferror). Swift 6 refuses to read the C global `stdout` (a mutable global is not
 * concurrency-safe); a function returning it is fine.
 */
#include <stdio.h>

/** The process's `stdout` stream (the one Swift's print writes to). */
static inline FILE *thrum_standard_output(void) { return stdout; }

#endif
