import os

import pytest

# rig1's port is exported through a ser2net tuned for Thrum, rig2's by labgrid's own ser2net
# (character delay on): their onset bounds differ tenfold (docs/timing.md, "Farms").
@pytest.mark.parametrize("rig, max_error_us", [("rig1", 500), ("rig2", 4000)])
def test_metronome_plays_on_time(env, rig, max_error_us):
    target = env.get_target(rig)
    target.get_driver("ThrumStrategy").transition("ready")
    thrum = target.get_driver("ThrumDriver")
    pattern = os.path.join(env.config.get_path("examples"), "metronome.ahap")
    r = thrum.play(pattern, expect_max_error_us=max_error_us)
    assert r["faults"] == [] and r["earlier_faults"] == []
    assert [e["status"] for e in r["events"]] == ["on_time"] * 8
    assert r["expectations"]["passed"], r["expectations"]
    assert thrum.last_status == 0
