"""ThrumStrategy's firmware step on a real (simulated) device of the farm's rig2.

The device reports its own version; the step must flash exactly when it differs. `thrum firmware
flash` itself is not run here: a wrapper records the command the step gives and succeeds, so a
device still on the old version afterwards is the step's error to raise.
"""

import shutil

import pytest
from labgrid.strategy.common import StrategyError

from thrum_labgrid import ThrumStrategy


def test_firmware_step_flashes_only_a_device_on_another_version(env, tmp_path):
    target = env.get_target("rig2")
    thrum = target.get_driver("ThrumDriver")
    ready = target.get_driver("ThrumStrategy")
    ready.transition("ready")
    assert not ready.flashed, "the device runs the expected version: nothing flashed"

    log = tmp_path / "flash.log"
    wrapper = tmp_path / "thrum"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = firmware ]; then echo "$@" >> {log}; exit 0; fi\n'
        f'exec {shutil.which(thrum.thrum)} "$@"\n'
    )
    wrapper.chmod(0o755)
    newer = ThrumStrategy(target, "newer", board="uno", firmware_version="9.9.9")
    real = thrum.thrum
    thrum.thrum = str(wrapper)
    try:
        with pytest.raises(StrategyError) as raised:
            newer.transition("ready")
        # labgrid's never_retry keeps the step's own error as the cause.
        assert raised.value.__cause__.msg == "firmware 0.1.0 after flashing uno, expected 9.9.9"
    finally:
        thrum.thrum = real
    assert log.read_text().split() == ["firmware", "flash", "--board", "uno", "--port", thrum.address]
