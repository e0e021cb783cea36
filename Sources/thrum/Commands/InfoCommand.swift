import Foundation
import ThrumCompiler
import ThrumEngine
import ThrumLink
import ThrumTime
import ThrumWire

/// `thrum info`: what a device says about itself, once.
enum InfoCommand: Subcommand {
    static let name = "info"
    static let summary = "print a device's identity, capabilities, calibration and state"
    static let usage = """
        Usage: thrum info [--port PATH] [--actuator NAME|FILE.json] [--baud N] [--json]

        Connects, pings a few times for the link and clock figures, and prints once: identity
        (driver, firmware, protocol, device id), capabilities (queue, buffers, program store,
        optional features), the preset library it holds (name, version, size, CRC-32, slot),
        calibration (whether the driver holds one since reset, measured or restored, the one kept for
        this device in $XDG_CONFIG_HOME/thrum/calibrations and whether it is valid for the
        profile), state (driver power state, faults) and the link (round trip, clock drift and
        error). Changes nothing on the device. Without --port, the built-in virtual device.

        Options:
          --port PATH        serial port or pseudo-terminal of a Thrum device
          --actuator NAME    the profile to judge the kept calibration against (default \(ActuatorProfile.default.id))
          --baud N           baud rate of a real serial port (default 115200)
          --json             one JSON object

        Ctrl-C (SIGINT), SIGTERM or SIGQUIT: the step under way ends (the library read, at most a
        few seconds), then `thrum: interrupted (signal N): …`, the device released, exit 130, 143
        or 131, nothing printed on standard output.
        """

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let options = try DeviceCommandOptions.take(from: &arguments)
        let profile = options.profile, json = options.json
        // A signal from here on ends the command between its steps, the device released.
        Interrupt.install()
        let target = try options.target()
        let connection = try DeviceConnection.open(target: target, profile: profile, configure: false)
        defer {
            connection.device.release()
            target.close()
        }
        let stopped = "nothing was printed; the device was released (info changes nothing on it)"
        let device = connection.device
        do {
            if let stop = Interrupt.failure(stopped) { throw stop }
            try device.synchronizeClock()
            // A device that reports USB start-of-frame times has sent one by now; the count of its
            // crystal against the frame grid needs reports 200 frames apart: wait for them.
            try device.awaitFrameCount(timeout: .milliseconds(500))
        } catch let error as EngineError {
            throw CommandFailure(engine: error)
        }
        if let stop = Interrupt.failure(stopped) { throw stop }
        let library = try DeviceLibrary.read(connection)
        if let stop = Interrupt.failure(stopped) { throw stop }
        let info = Info(connection: connection, library: library, status: device.status, health: device.linkHealth)
        if json {
            JSONOutput.print(info.json)
        } else {
            print(info.text)
        }
        return 0
    }

    /// The figures gathered at connect.
    struct Info {
        let connection: DeviceConnection
        /// The preset library the device holds.
        let library: DeviceLibrary
        /// The device's identity and state, read once the library was.
        let status: DeviceStatus
        /// The link's figures, read with it.
        let health: LinkHealth
        var identity: DeviceIdentity { status.identity! }
        var capabilities: ThrumEngine.DeviceCapabilities { status.capabilities! }
        var stored: StoredCalibration? { connection.stored }

        var features: [String] {
            let c = capabilities
            var out: [String] = []
            if c.standby { out.append("standby") }
            if c.calibration { out.append("calibration") }
            if c.preload { out.append("preload + GO") }
            if c.romEffects { out.append("ROM effects") }
            return out
        }

        var powerState: String {
            switch status.powerState {
            case .standby?: return "standby"
            case .ready?: return "ready"
            case .calibrating?: return "calibrating"
            case nil: return "not reported since connect (awake after reset, unless an idle timeout put it in standby)"
            }
        }

        var text: String {
            let c = capabilities
            let stats = health.statistics
            var lines: [String] = []
            lines.append("device on \(connection.target.name)")
            lines.append(
                "identity: \(DeviceDescription.driverName(Int(identity.driverId))) (driver id \(identity.driverId)), firmware "
                    + "\(DeviceDescription.firmware(identity)), protocol \(identity.protocolVersion), id \(DeviceDescription.hex(identity.deviceId)), "
                    + "clock \(identity.clockHz) Hz")
            lines.append(
                "capabilities: queue \(c.queueSlots) slots, receive buffer \(identity.rxBuffer) B, payload ≤ \(identity.maxPayload) B; "
                    + (c.preload
                        ? "\(c.programSlots) program slots sharing \(c.programSegments) segments; "
                        : "no program store; ")
                    + (features.isEmpty ? "base messages only" : features.joined(separator: ", ")))
            lines.append(
                "calibration: "
                    + {
                        switch connection.driverCalibration {
                        case "none": return "the driver holds no calibration since reset"
                        case "measured": return "the driver holds a calibration measured (passed) since reset"
                        case "restored":
                            return "the driver holds a kept calibration restored since reset (RESTORE_CALIBRATION)"
                        case let other: return "the driver holds a calibration since reset (\(other))"
                        }
                    }())
            if let stored {
                let valid = connection.stillValid != nil
                lines.append(
                    String(
                        format:
                            "  kept: %@ for %@ on %@: A_CAL_COMP 0x%02X, A_CAL_BEMF 0x%02X, BEMF_GAIN %d, LRA_PERIOD %d",
                        stored.calibratedAt, stored.profile, stored.port, stored.aCalComp, stored.aCalBemf,
                        stored.bemfGain, stored.lraPeriod)
                        + (stored.resonanceHz.map { String(format: " (%.1f Hz)", $0) } ?? ""))
                let restorable = !valid && !connection.deviceSaysCalibrated && connection.restorable != nil
                lines.append(
                    "  "
                        + (valid
                            ? "valid for \(connection.profile.id): `thrum play` will not calibrate again"
                            : restorable
                                ? "the device reset since: `thrum play` will restore it (RESTORE_CALIBRATION, no buzz)"
                                : "not valid for \(connection.profile.id) ("
                                    + (stored.matches(connection.registers)
                                        ? (status.canRestoreCalibration
                                            ? "the device reset since" : "the device reset since and cannot restore it")
                                        : "other calibration inputs")
                                    + "): `thrum play` will calibrate"))
            } else if connection.store != nil {
                lines.append("  none kept for this device")
            }
            lines.append(library.text)
            lines.append(
                "state: driver \(powerState); faults: "
                    + (status.faults.isEmpty
                        ? "none" : status.faults.map { "\($0.code) (\($0.meaning))" }.joined(separator: ", "))
                    + (status.earlierFaults.isEmpty
                        ? "" : "; before this connection: "
                            + status.earlierFaults.map { "\($0.code) (\($0.meaning))" }.joined(separator: ", ")))
            lines.append(
                String(
                    format:
                        "link: round trip %.2f ms (variation %.2f ms), %d frames out, %d back, %d retransmissions, %d bad frames",
                    stats.smoothedRoundTrip.seconds * 1e3, stats.roundTripVariation.seconds * 1e3, stats.framesSent,
                    stats.framesReceived,
                    stats.retransmissions, stats.badFrames))
            lines.append(
                String(
                    format:
                        "clock: device counter at %.3f s (free-running µs, wraps every 71.6 min), drift %+.1f ppm, error ± %.0f µs over %d samples",
                    deviceSeconds, health.driftPPM, health.clockBound.seconds * 1e6, health.clockSamples))
            lines.append(frameText)
            return lines.joined(separator: "\n")
        }

        /// What the device's USB start-of-frame times say (PROTOCOL.md §3.6).
        var frameText: String {
            if let drift = health.frameDriftPPM {
                return String(
                    format: "frames: crystal %+.2f ppm against the USB frame grid (%d start-of-frame reports; the grid runs on the host controller's crystal); %d ACK departures",
                    drift, health.frameReports, health.statistics.departures)
            }
            if health.frameReports > 0 {
                return "frames: \(health.frameReports) start-of-frame report(s), too few to count the crystal yet"
            }
            return "frames: no USB start-of-frame times (a serial bridge or a pseudo-terminal, no native USB, or protocol < 3)"
        }

        var deviceSeconds: Double {
            Double(health.deviceTime.wire.rawValue) / 1e6
        }

        var json: [String: Any] {
            let c = capabilities
            let stats = health.statistics
            var storedJSON: Any = NSNull()
            if let stored {
                storedJSON =
                    [
                        "calibrated_at": stored.calibratedAt, "profile": stored.profile, "port": stored.port,
                        "a_cal_comp": stored.aCalComp, "a_cal_bemf": stored.aCalBemf, "bemf_gain": stored.bemfGain,
                        "lra_period": stored.lraPeriod, "resonance_hz": JSONOutput.orNull(stored.resonanceHz),
                        "valid_for_profile": connection.stillValid != nil,
                        "restorable": connection.restorable != nil,
                    ] as [String: Any]
            }
            return [
                "target": connection.target.isVirtual ? "virtual" : connection.target.name,
                "device": DeviceDescription.json(identity),
                "capabilities": [
                    "queue_slots": c.queueSlots, "program_slots": c.programSlots, "program_segments": c.programSegments,
                    "standby": c.standby, "calibration": c.calibration, "preload": c.preload,
                    "rom_effects": c.romEffects,
                ] as [String: Any],
                "calibration": [
                    "calibrated_since_reset": connection.deviceSaysCalibrated,
                    "driver_calibration": connection.driverCalibration, "profile": connection.profile.id,
                    "kept": storedJSON,
                ] as [String: Any],
                "library": library.json,
                "state": [
                    "power_state": JSONOutput.orNull(status.powerState.map { "\($0)" }),
                    "faults": status.faults.map {
                        ["code": Int($0.code), "detail": Int($0.detail), "meaning": $0.meaning] as [String: Any]
                    },
                    "earlier_faults": status.earlierFaults.map {
                        ["code": Int($0.code), "detail": Int($0.detail), "meaning": $0.meaning] as [String: Any]
                    },
                ] as [String: Any],
                "link": [
                    "round_trip_ms": (stats.smoothedRoundTrip.seconds * 1e6).rounded() / 1e3,
                    "round_trip_variation_ms": (stats.roundTripVariation.seconds * 1e6).rounded() / 1e3,
                    "frames_sent": stats.framesSent, "frames_received": stats.framesReceived,
                    "retransmissions": stats.retransmissions,
                    "bad_frames": stats.badFrames,
                    "clock_drift_ppm": (health.driftPPM * 10).rounded() / 10,
                    "clock_error_us": (health.clockBound.seconds * 1e6).rounded(),
                    "clock_samples": health.clockSamples,
                    "device_time_s": (deviceSeconds * 1e6).rounded() / 1e6,
                    "frame_reports": health.frameReports,
                    "frame_drift_ppm": JSONOutput.orNull(health.frameDriftPPM.map { ($0 * 100).rounded() / 100 }),
                    "departure_reports": stats.departures,
                    "line_byte_time_us": JSONOutput.orNull(health.lineByteTime.map { ($0 * 1000).rounded() / 1000 }),
                ] as [String: Any],
            ]
        }
    }
}
