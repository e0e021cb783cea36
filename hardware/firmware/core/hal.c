/*
 * The core's bottom layer: what every module reads from the port's HAL through one call. Calls
 * nothing in the core (tools/fw-layers.py holds the layer order).
 */
#include "thrum_core.h"
#include "thrum_flash.h"

/* The device clock, µs (one out-of-line call: every site saves the HAL indirection). */
THRUM_NOINLINE uint32_t thrum_clock(const thrum_fw_t *fw)
{
    return THRUM_HAL(fw->hal, clock_us)(THRUM_HAL_CTX(fw->hal));
}
