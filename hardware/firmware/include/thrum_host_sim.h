/*
 * thrum_host_sim.h — the host-simulation board port (compiled into the Swift virtual device).
 */
#ifndef THRUM_HOST_SIM_H
#define THRUM_HOST_SIM_H

#include "thrum_fw.h"

#ifdef __cplusplus
extern "C" {
#endif

/** device_id the virtual device reports ("THRM" in ASCII, little-endian). */
#define THRUM_HOST_SIM_DEVICE_ID 0x4D524854u

/** Board defaults of the virtual device: a 205 Hz, 1.5 V rms LRA on a DRV2605L. */
thrum_board_t thrum_host_sim_default_board(void);

#ifdef __cplusplus
}
#endif

#endif /* THRUM_HOST_SIM_H */
