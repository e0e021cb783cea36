/* The harness tests' one assertion: counts checks and failures, names the failed condition. */
#ifndef AVRSIM_TESTS_CHECK_H
#define AVRSIM_TESTS_CHECK_H

#include <stdio.h>

static int failures;
static int checks;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        checks++;                                                                     \
        if (!(cond)) {                                                                \
            failures++;                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                             \
    } while (0)

#endif
