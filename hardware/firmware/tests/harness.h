/* A minimal test harness: each test is a function; CHECK records a failure and carries on. */
#ifndef THRUM_TEST_HARNESS_H
#define THRUM_TEST_HARNESS_H

#include <stdio.h>

extern int harness_failed_checks;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            harness_failed_checks++;                                                      \
            printf("    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);           \
        }                                                                                 \
    } while (0)

#define CHECK_EQ(actual, expected)                                                        \
    do {                                                                                  \
        unsigned long long a_ = (unsigned long long)(actual);                             \
        unsigned long long e_ = (unsigned long long)(expected);                           \
        if (a_ != e_) {                                                                   \
            harness_failed_checks++;                                                      \
            printf("    %s:%d: %s == %llu, expected %s == %llu\n", __FILE__, __LINE__,    \
                   #actual, a_, #expected, e_);                                           \
        }                                                                                 \
    } while (0)

typedef void (*test_fn)(void);

typedef struct test_case {
    const char *name;
    test_fn fn;
} test_case_t;

/* Each test file exposes its table. */
extern const test_case_t codec_tests[];
extern const test_case_t vector_tests[];
extern const test_case_t link_tests[];
extern const test_case_t scheduler_tests[];
extern const test_case_t driver_tests[];
extern const test_case_t feature_tests[];
extern const test_case_t cut_tests[];
extern const test_case_t onset_tests[];
extern const test_case_t failsafe_tests[];
extern const test_case_t chip_tests[];
extern const test_case_t library_tests[];
extern const test_case_t stream_tests[];
extern const test_case_t lead_tests[]; /* only with THRUM_FW_DRIVE_LEAD_US > 0 */
extern const test_case_t txroom_tests[];
extern const test_case_t frame_times_tests[];
extern const test_case_t departure_tests[];
extern const test_case_t session_tests[];

/* Path of firmware-protocol/vectors/wire-vectors.txt (argv[1]). */
extern const char *vectors_path;

#endif
