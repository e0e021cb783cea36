/* Host-simulation port: the Swift virtual device supplies the HAL; this file only names the
 * board it pretends to be. */
#include "thrum_host_sim.h"

#include "thrum_board_defaults.h"

thrum_board_t thrum_host_sim_default_board(void)
{
    thrum_board_t board;

    board.device_id = THRUM_HOST_SIM_DEVICE_ID;
    board.rated_voltage = THRUM_BOARD_RATED_VOLTAGE; /* thrum_board_defaults.h */
    board.od_clamp = THRUM_BOARD_OD_CLAMP;
    board.drive_time = THRUM_BOARD_DRIVE_TIME;
    board.ol_lra_period = THRUM_BOARD_OL_LRA_PERIOD;
    return board;
}
