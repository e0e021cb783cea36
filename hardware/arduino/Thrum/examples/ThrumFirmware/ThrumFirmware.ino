// Thrum firmware for an Arduino Uno or Nano with a DRV2605L breakout (see hardware/rig/README.md).
//
// Upload this sketch as it is. The Thrum library supplies the firmware and its own main loop,
// which replaces the Arduino core's: setup() and loop() below are never called. Then, on the
// computer:  thrum play examples/heartbeat.ahap --port /dev/ttyACM0
#include <Thrum.h>

void setup() {}

void loop() {}
