#include "harness.h"
const test_case_t link_tests[] = {{NULL, NULL}};
const test_case_t scheduler_tests[] = {{NULL, NULL}};
const test_case_t driver_tests[] = {{NULL, NULL}};
