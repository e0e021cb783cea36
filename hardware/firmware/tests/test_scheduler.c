#include "harness.h"
const test_case_t scheduler_tests[] = {{NULL, NULL}};
