/* Runs every test table; prints "N passed, M failed" last and exits non-zero on any failure. */
#include <stdlib.h>

#include "harness.h"
#include "thrum_fw.h"

int harness_failed_checks;
const char *vectors_path = "../../firmware-protocol/vectors/wire-vectors.txt";

int main(int argc, char **argv)
{
#if THRUM_FW_DRIVE_LEAD_US > 0
    /* the second binary (make test): the core as the AVR builds it, with a drive lead */
    const test_case_t *tables[] = {lead_tests, txroom_tests};
#else
    const test_case_t *tables[] = {codec_tests, vector_tests, link_tests, scheduler_tests, driver_tests, feature_tests, cut_tests, onset_tests, failsafe_tests, chip_tests, library_tests, stream_tests, lead_tests, txroom_tests, frame_times_tests, departure_tests, session_tests};
#endif
    unsigned passed = 0;
    unsigned failed = 0;
    size_t t;

    if (argc > 1) {
        vectors_path = argv[1];
    }
    for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
        const test_case_t *tc;

        for (tc = tables[t]; tc->name != NULL; tc++) {
            int before = harness_failed_checks;

            tc->fn();
            if (harness_failed_checks == before) {
                passed++;
                printf("ok   %s\n", tc->name);
            } else {
                failed++;
                printf("FAIL %s\n", tc->name);
            }
        }
    }
    printf("%u passed, %u failed\n", passed, failed);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
