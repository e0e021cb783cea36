"""ThrumStrategy: brings a rig to `ready`, flashing Thrum's firmware when the device runs another version."""

import enum

import attr
from labgrid.factory import target_factory
from labgrid.step import step
from labgrid.strategy.common import Strategy, StrategyError, never_retry


class Status(enum.Enum):
    unknown = 0
    ready = 1


@target_factory.reg_driver
@attr.s(eq=False)
class ThrumStrategy(Strategy):
    """`transition("ready")`: the device answers and runs `firmware_version`.

    When the version differs, the firmware is flashed (`thrum firmware flash --board BOARD`) and
    the version read again; a device that still differs is a ``StrategyError``.

    Args:
        board (str): the board `thrum firmware flash` builds and flashes for (e.g. `uno`)
        firmware_version (str): the version the tests expect (e.g. `0.1.0`)
    """

    bindings = {"thrum": "ThrumDriver"}

    board = attr.ib(validator=attr.validators.instance_of(str))
    firmware_version = attr.ib(validator=attr.validators.instance_of(str))
    status = attr.ib(default=Status.unknown)

    def __attrs_post_init__(self):
        super().__attrs_post_init__()
        self.flashed = False

    @never_retry
    @step(args=["status"])
    def transition(self, status, *, step):  # pylint: disable=redefined-outer-name
        if not isinstance(status, Status):
            status = Status[status]
        if status != Status.ready:
            raise StrategyError(f"can not transition to {status}")
        if status == self.status:
            step.skip("nothing to do")
            return
        self.target.activate(self.thrum)
        found = self.thrum.firmware_version()
        if found != self.firmware_version:
            self.thrum.flash_firmware(self.board)
            self.flashed = True
            found = self.thrum.firmware_version()
            if found != self.firmware_version:
                raise StrategyError(f"firmware {found} after flashing {self.board}, expected {self.firmware_version}")
        self.status = status
