#include "harness.h"
const test_case_t driver_tests[] = {{NULL, NULL}};
