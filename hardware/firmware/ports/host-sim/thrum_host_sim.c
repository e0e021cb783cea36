/* Host-simulation port: the Swift virtual device supplies the HAL; this file only names the
 * board it pretends to be. */
#include "thrum_host_sim.h"

thrum_board_t thrum_host_sim_default_board(void)
{
    thrum_board_t board;

    board.device_id = THRUM_HOST_SIM_DEVICE_ID;
    /* SEMCO 1030 LRA (205 Hz, 1.5 V rms, 3.0 V peak), the DRV2605L EVM actuator: these equal the
     * driver's reset values, see hardware/drv2605/README.md */
    board.rated_voltage = 0x3Eu;
    board.od_clamp = 0x8Cu;
    board.drive_time = 19u;
    board.ol_lra_period = 50u;
    return board;
}
