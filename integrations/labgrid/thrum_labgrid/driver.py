"""ThrumDriver: plays Core Haptics patterns on a Thrum rig through labgrid's serial resources."""

import json
import subprocess

import attr
from labgrid.driver.common import Driver
from labgrid.factory import target_factory
from labgrid.resource import SerialPort
from labgrid.step import step
from labgrid.util.proxy import proxymanager


class ThrumError(Exception):
    """`thrum` could not do what was asked: its one-line message (standard error) and exit status."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


@target_factory.reg_driver
@attr.s(eq=False)
class ThrumDriver(Driver):
    """Runs the `thrum` command-line tool against the rig's serial port.

    Bound to labgrid's serial resources: a ``NetworkSerialPort`` (an exported RawSerialPort or
    USBSerialPort of a ``RemotePlace``, or a ser2net you run yourself: ``rfc2217`` or ``raw``)
    or a local ``SerialPort``. The place must be acquired, as for any labgrid driver.

    Args:
        thrum (str): the `thrum` executable (default: `thrum` on PATH)
        timeout (float): seconds one command may take (default 600)
    """

    bindings = {"port": {"SerialPort", "NetworkSerialPort"}}

    thrum = attr.ib(default="thrum", validator=attr.validators.instance_of(str))
    timeout = attr.ib(default=600.0, validator=attr.validators.instance_of(float))

    def __attrs_post_init__(self):
        super().__attrs_post_init__()
        self.last_status = None

    def on_activate(self):
        pass

    def on_deactivate(self):
        pass

    @property
    def address(self):
        """The port as `thrum --port` takes it: a device path, `rfc2217://host:port` or `tcp://host:port`."""
        if isinstance(self.port, SerialPort):
            return self.port.port
        host, port = proxymanager.get_host_and_port(self.port)
        if ":" in host:
            host = f"[{host}]"
        scheme = "tcp" if self.port.protocol == "raw" else "rfc2217"
        return f"{scheme}://{host}:{port}"

    def _run(self, arguments, json_output=True, accept=(0,)):
        """Runs `thrum ARGUMENTS…`; its JSON (or text) output, or ``ThrumError`` when the exit
        status is not in `accept` (the message from the JSON error object or standard error)."""
        command = [self.thrum] + arguments
        done = subprocess.run(command, capture_output=True, text=True, timeout=self.timeout, check=False)
        self.last_status = done.returncode
        lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("thrum: note:")]
        message = lines[-1] if lines else f"exit status {done.returncode}"
        report = None
        if json_output:
            try:
                report = json.loads(done.stdout)
            except json.JSONDecodeError:
                pass
            if isinstance(report, dict) and isinstance(report.get("error"), dict):
                message = report["error"].get("message", message)
        if done.returncode not in accept or (json_output and not isinstance(report, dict)):
            raise ThrumError(f"thrum {arguments[0]}: {message}", done.returncode)
        return report if json_output else done.stdout

    @Driver.check_active
    @step(args=["pattern"])
    def play(self, pattern, expect_max_error_us=None, expect_onsets=None, options=()):
        """Plays `pattern` (an AHAP file or `preset:NAME`) and returns the `thrum play --json` report.

        The report is returned whatever the outcome (an expectation missed: exit status 3; a
        fault: 1); ``last_status`` holds the exit status. Raises ``ThrumError`` when thrum
        printed no report (a usage error, no device answering).
        """
        arguments = ["play", str(pattern), "--port", self.address, "--baud", str(self.port.speed), "--json", "--no-plot"]
        if expect_max_error_us is not None:
            arguments += ["--expect-max-error-us", str(expect_max_error_us)]
        if expect_onsets is not None:
            arguments += ["--expect-onsets", str(expect_onsets)]
        report = self._run(arguments + list(options), accept=(0, 1, 3))
        if "events" not in report:
            error = report.get("error", {}).get("message", "no report")
            raise ThrumError(f"thrum play: {error}", self.last_status)
        return report

    @Driver.check_active
    @step()
    def info(self):
        """The `thrum info --json` report (device, capabilities, calibration); changes nothing."""
        return self._run(["info", "--port", self.address, "--baud", str(self.port.speed), "--json"])

    def firmware_version(self):
        """The version the device's firmware reports (`info`'s `device.firmware_version`)."""
        return self.info()["device"]["firmware_version"]

    @Driver.check_active
    @step(args=["board"])
    def flash_firmware(self, board, options=()):
        """Flashes Thrum's firmware for `board` (`thrum firmware flash --board B --port P`)."""
        return self._run(["firmware", "flash", "--board", board, "--port", self.address] + list(options), json_output=False)
